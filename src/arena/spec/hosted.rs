//! A hosted engine's table (`hosted = "KEY"`): an engine the program that runs the spec
//! supplies in-process ([`crate::arena::hosted`]; a Python function given to `joute.run`).

use super::*;

/// The `algorithm` a hosted engine is recorded with.
pub const HOSTED: &str = "hosted";

/// The keys a hosted engine's table may hold besides `hosted`.
const HOSTED_TABLE: &str = "name, hosted and its own clock (tc, st, timemargin)";

/// The hosted engine of table `e` (`engine[N]`, called `name`): its key checked, and no key
/// of a built-in engine or an outside program beside it.
pub(crate) fn hosted_engine(
    e: &Spanned<RawEngine>,
    prefix: &str,
    name: &str,
    loc: &Locator<'_>,
) -> Result<ResolvedEngine, SpecError> {
    let raw = e.get_ref();
    let hosted = raw.hosted.as_ref().expect("a hosted engine's table");
    let key = hosted.get_ref().trim();
    if key.is_empty() || key.chars().any(char::is_control) || key.chars().count() > MAX_NAME_CHARS {
        return Err(loc.on(
            hosted,
            &format!("{prefix}.hosted"),
            format!(
                "engine '{name}': hosted must be a key of 1 to {MAX_NAME_CHARS} characters without control characters, naming an engine the program running the spec supplies (in Python, a function given to joute.run's bots)"
            ),
        ));
    }
    if let Some((k, offset)) = other_keys(raw)
        .into_iter()
        .find_map(|(k, at)| Some((k, at?)))
    {
        return Err(loc.at(
            offset,
            &format!("{prefix}.{k}"),
            format!(
                "engine '{name}': {k} does not go with hosted: a hosted engine is a function of the program running the spec, played as it is; its table holds {HOSTED_TABLE}"
            ),
        ));
    }
    Ok(ResolvedEngine::hosted(name, key))
}

/// Where each key of `raw` that a hosted engine's table may not hold is written, if it is.
fn other_keys(raw: &RawEngine) -> Vec<(&'static str, Option<usize>)> {
    fn at<T>(v: &Option<Spanned<T>>) -> Option<usize> {
        v.as_ref().map(|v| v.span().start)
    }
    vec![
        ("algorithm", at(&raw.algorithm)),
        ("command", at(&raw.command)),
        ("args", at(&raw.args)),
        ("protocol", at(&raw.protocol)),
        ("protocol_version", at(&raw.protocol_version)),
        ("working_dir", at(&raw.working_dir)),
        ("options", at(&raw.options)),
        ("stall_timeout", at(&raw.stall_timeout)),
        ("depth", at(&raw.depth)),
        ("nodes", at(&raw.nodes)),
        ("time", at(&raw.time)),
        ("playouts", at(&raw.playouts)),
        ("weights", at(&raw.weights)),
        ("ordering", at(&raw.ordering)),
        ("fail_soft", at(&raw.fail_soft)),
        ("tt_mib", at(&raw.tt_mib)),
        ("tolerance", at(&raw.tolerance)),
        ("exploration", at(&raw.exploration)),
        ("tree_mib", at(&raw.tree_mib)),
        ("tie_break", at(&raw.tie_break)),
        ("exact", at(&raw.exact)),
        ("near", at(&raw.near)),
        ("threads", at(&raw.threads)),
        ("threats", at(&raw.threats)),
        ("vcf", at(&raw.vcf)),
        ("vct", at(&raw.vct)),
        ("lmr", at(&raw.lmr)),
        ("memory_limit", at(&raw.memory_limit)),
        ("process_limit", at(&raw.process_limit)),
        ("cpu_limit", at(&raw.cpu_limit)),
        ("write_limit", at(&raw.write_limit)),
        ("confine", at(&raw.confine)),
        ("readable", at(&raw.readable)),
        ("pause", at(&raw.pause)),
        ("restart", at(&raw.restart)),
    ]
}

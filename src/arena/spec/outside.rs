//! Outside engines' tables (`command`, `args`, `protocol`, ...) and the spec's clock (`tc`,
//! `st`, `timemargin`), checked and resolved.

use std::time::Duration;

use super::*;
use crate::arena::game::TimeControl;
use crate::arena::outside::{OutsideSpec, Protocol};

/// How long an outside program may be silent off the clock, unless the spec says otherwise.
pub const DEFAULT_STALL: Duration = Duration::from_secs(60);

/// The keys only built-in engines take, with what each is for.
const BUILT_IN_KEYS: [&str; 18] = [
    "algorithm",
    "time",
    "playouts",
    "weights",
    "ordering",
    "fail_soft",
    "tt_mib",
    "tolerance",
    "exploration",
    "tree_mib",
    "tie_break",
    "exact",
    "near",
    "threads",
    "threats",
    "vcf",
    "vct",
    "lmr",
];

/// The spec's clock as resolved: the time control and the margin forgiven on each move.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolvedClock {
    /// The time control.
    pub control: TimeControl,
    /// Overrun forgiven on each move, milliseconds.
    pub margin_ms: u64,
}

impl ResolvedClock {
    /// The margin.
    pub fn margin(&self) -> Duration {
        Duration::from_millis(self.margin_ms)
    }
}

/// A duration with a unit (`"200ms"`, `"1.5s"`), or zero.
fn duration_or_zero(text: &str) -> Option<Result<Duration, String>> {
    match text.trim() {
        "0" | "0s" | "0ms" => Some(Ok(Duration::ZERO)),
        t => parse_time(t),
    }
}

/// Resolves `tc`, `st` and `timemargin`.
pub(super) fn resolve_clock(
    raw: &RawSpec,
    loc: &Locator<'_>,
) -> Result<Option<ResolvedClock>, SpecError> {
    fn text(v: &Option<Spanned<String>>) -> Option<&str> {
        v.as_ref().map(|v| v.get_ref().as_str())
    }
    clock_of(text(&raw.tc), text(&raw.st), text(&raw.timemargin)).map_err(|(key, m)| {
        let at = match key {
            "tc" => raw.tc.as_ref(),
            "st" => raw.st.as_ref(),
            _ => raw.timemargin.as_ref(),
        };
        loc.at(at.map_or(0, |v| v.span().start), key, m)
    })
}

/// Resolves an engine's own `tc`, `st` and `timemargin` (time odds, as cutechess' per-engine
/// `tc`) against the spec's clock `shared`: `tc` or `st` gives the engine a clock of its own
/// (with its `timemargin`, else the spec's); `timemargin` alone changes the margin of the
/// spec's clock for this engine. `None`: the engine plays on the spec's clock, or none.
pub(crate) fn resolve_engine_clock(
    raw: &Spanned<RawEngine>,
    shared: Option<ResolvedClock>,
    prefix: &str,
    name: &str,
    loc: &Locator<'_>,
) -> Result<Option<ResolvedClock>, SpecError> {
    let e = raw.get_ref();
    fn text(v: &Option<Spanned<String>>) -> Option<&str> {
        v.as_ref().map(|v| v.get_ref().as_str())
    }
    let fail = |key: &str, m: String| {
        let at = match key {
            "tc" => e.tc.as_ref(),
            "st" => e.st.as_ref(),
            _ => e.timemargin.as_ref(),
        };
        loc.at(
            at.map_or(raw.span().start, |v| v.span().start),
            &format!("{prefix}.{key}"),
            format!("engine '{name}': {m}"),
        )
    };
    engine_clock_of(text(&e.tc), text(&e.st), text(&e.timemargin), shared)
        .map_err(|(k, m)| fail(k, m))
}

/// An engine's own clock from its `tc`, `st` and `timemargin` as written, against the clock
/// `shared` every other engine plays on ([`resolve_engine_clock`]); an error names the key.
pub fn engine_clock_of(
    tc: Option<&str>,
    st: Option<&str>,
    timemargin: Option<&str>,
    shared: Option<ResolvedClock>,
) -> Result<Option<ResolvedClock>, (&'static str, String)> {
    match (tc, st, timemargin) {
        (None, None, None) => Ok(None),
        (None, None, Some(margin)) => {
            let Some(shared) = shared else {
                return Err((
                    "timemargin",
                    "timemargin goes with a clock: tc = \"10+0.1\" or st = \"100ms\" for this engine or for all".into(),
                ));
            };
            let own = clock_of(Some("1"), None, Some(margin))?;
            Ok(own.map(|c| ResolvedClock {
                control: shared.control,
                margin_ms: c.margin_ms,
            }))
        }
        (tc, st, margin) => {
            let inherited = shared.map(|c| format!("{}ms", c.margin_ms));
            clock_of(tc, st, margin.or(inherited.as_deref()))
        }
    }
}

/// Refuses an engine's own clock where there is no tournament to keep it (tuning specs).
pub(crate) fn no_engine_clock(
    raw: &RawEngine,
    prefix: &str,
    name: &str,
    loc: &Locator<'_>,
) -> Result<(), SpecError> {
    for (key, value) in [
        ("tc", &raw.tc),
        ("st", &raw.st),
        ("timemargin", &raw.timemargin),
    ] {
        if let Some(v) = value {
            return Err(loc.on(
                v,
                &format!("{prefix}.{key}"),
                format!("engine '{name}': an engine's own clock belongs to tournaments; a tuning spec's clock is tc, st or timemargin at its top"),
            ));
        }
    }
    Ok(())
}

/// The clock of a game clock `tc`, a time per move `st` and a `timemargin`, each as written;
/// an error names the key at fault.
pub fn clock_of(
    tc: Option<&str>,
    st: Option<&str>,
    timemargin: Option<&str>,
) -> Result<Option<ResolvedClock>, (&'static str, String)> {
    let control = match (tc, st) {
        (Some(_), Some(_)) => {
            return Err((
                "st",
                "give either tc (a game clock) or st (a time per move), not both".into(),
            ));
        }
        (Some(tc), None) => TimeControl::parse_game(tc).map_err(|m| ("tc", m))?,
        (None, Some(st)) => match parse_time(st.trim()) {
            Some(Ok(time)) => TimeControl::Move { time },
            Some(Err(m)) => return Err(("st", m)),
            None => {
                return Err((
                    "st",
                    format!("time per move '{st}' needs a unit: \"100ms\" or \"0.5s\""),
                ));
            }
        },
        (None, None) if timemargin.is_some() => {
            return Err((
                "timemargin",
                "timemargin goes with a clock: tc = \"10+0.1\" or st = \"100ms\"".into(),
            ));
        }
        (None, None) => return Ok(None),
    };
    let margin = match timemargin {
        None => Duration::ZERO,
        Some(m) => match duration_or_zero(m) {
            Some(Ok(d)) => d,
            _ => {
                return Err((
                    "timemargin",
                    format!(
                        "timemargin '{m}' is not a time such as \"50ms\" or \"0.1s\" (0 to one day)"
                    ),
                ));
            }
        },
    };
    Ok(Some(ResolvedClock {
        control,
        margin_ms: margin.as_millis() as u64,
    }))
}

/// Refuses the keys of outside engines in a built-in engine's table.
pub(crate) fn no_outside_keys(
    raw: &RawEngine,
    prefix: &str,
    name: &str,
    loc: &Locator<'_>,
) -> Result<(), SpecError> {
    let given: [(&str, Option<usize>); 6] = [
        ("args", raw.args.as_ref().map(|v| v.span().start)),
        ("protocol", raw.protocol.as_ref().map(|v| v.span().start)),
        (
            "protocol_version",
            raw.protocol_version.as_ref().map(|v| v.span().start),
        ),
        (
            "working_dir",
            raw.working_dir.as_ref().map(|v| v.span().start),
        ),
        ("options", raw.options.as_ref().map(|v| v.span().start)),
        (
            "stall_timeout",
            raw.stall_timeout.as_ref().map(|v| v.span().start),
        ),
    ];
    let first = given
        .into_iter()
        .find_map(|(k, at)| at.map(|at| (k, at)))
        .or_else(|| raw.first_guard_key());
    if let Some((k, at)) = first {
        return Err(loc.at(
            at,
            &format!("{prefix}.{k}"),
            format!("engine '{name}': {k} belongs to outside programs (command = \"PROGRAM\"), not to built-in engines"),
        ));
    }
    Ok(())
}

/// Finds the program `written` of a spec ([`crate::arena::outside::find_program`]): a path
/// relative to the spec's folder, or a name looked up in `PATH`; `dir` the working folder as
/// written with its key, for the error's advice.
pub(crate) fn find_program(
    written: &str,
    loc: &Locator<'_>,
    dir: Option<(&str, &str)>,
) -> Result<PathBuf, String> {
    let base_name = match loc.base {
        Some(_) => "the spec's folder",
        None => "the current folder",
    };
    crate::arena::outside::find_program(written, loc.base, base_name, dir)
}

/// Why the option `name` = `value` cannot be passed to a program speaking `protocol`, if it
/// cannot: a name of letters, digits, `_`, `-` and `.`; a value without control characters
/// (a line end would start a line of the protocol), nor white space for the line protocol
/// (its handshake sends `NAME=VALUE` words).
pub fn check_option(protocol: Protocol, name: &str, value: &str) -> Result<(), String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
    {
        return Err(format!(
            "option name '{name}' may hold letters, digits, '_', '-' and '.' only"
        ));
    }
    if value.chars().any(char::is_control)
        || (protocol == Protocol::Line && value.chars().any(char::is_whitespace))
    {
        return Err(format!(
            "option '{name}' has a value with {}",
            if protocol == Protocol::Line {
                "white space or a control character (the line protocol sends NAME=VALUE words)"
            } else {
                "a control character"
            }
        ));
    }
    Ok(())
}

/// Validates an outside engine's table; `prefix` is its key path in errors (`engine[2]`).
/// `shared` is the spec's `[outside]` table (tournaments only).
pub(crate) fn outside_engine(
    e: &Spanned<RawEngine>,
    prefix: &str,
    name: &str,
    game: &GameKind,
    shared: Option<&RawGuard>,
    loc: &Locator<'_>,
) -> Result<ResolvedEngine, SpecError> {
    let raw = e.get_ref();
    let at = EngineKeys { prefix, name, loc };
    no_built_in_keys(raw, &at)?;
    let (written, program) = outside_program(raw, &at)?;
    let (protocol, protocol_version) = outside_protocol(e, game, &at)?;
    let (depth, nodes) = outside_budget(raw, protocol, &at)?;
    let args = raw
        .args
        .as_ref()
        .map_or_else(Vec::new, |a| a.get_ref().clone());
    if let Some(a) = &raw.args
        && args.iter().any(|x| x.contains('\0'))
    {
        return Err(at.on(a, "args", "an argument holds a NUL character"));
    }
    let working_dir = match &raw.working_dir {
        None => None,
        Some(w) => {
            loc.folder(w, &at.key("working_dir"), |dir| {
                format!(
                    "engine '{name}': no folder at '{}' ({})",
                    w.get_ref(),
                    dir.display()
                )
            })?;
            Some(PathBuf::from(w.get_ref()))
        }
    };
    let options = outside_options(raw, protocol, &at)?;
    let stall = match &raw.stall_timeout {
        None => DEFAULT_STALL,
        Some(t) => loc.duration(
            t,
            &at.key("stall_timeout"),
            &format!("engine '{name}': "),
            |text| {
                format!(
                    "engine '{name}': stall_timeout '{text}' needs a unit: \"30s\" or \"500ms\""
                )
            },
        )?,
    };
    let folder = match &working_dir {
        Some(w) => loc.path(&w.display().to_string()),
        None => loc
            .base
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
    };
    let spec = OutsideSpec {
        command: PathBuf::from(written),
        args,
        working_dir,
        protocol,
        protocol_version,
        options,
        depth,
        nodes,
        stall_ms: stall.as_millis() as u64,
        program: Some(absolute(&program)),
        folder: Some(absolute(&folder)),
        guard: resolve_guard(raw.guard_keys(), prefix, name, shared, loc)?,
    };
    Ok(ResolvedEngine::outside(name, spec))
}

/// Refuses the keys only built-in engines take in an outside program's table.
fn no_built_in_keys(raw: &RawEngine, at: &EngineKeys<'_, '_>) -> Result<(), SpecError> {
    let built_in: [(usize, Option<usize>); 18] = [
        (0, raw.algorithm.as_ref().map(|v| v.span().start)),
        (1, raw.time.as_ref().map(|v| v.span().start)),
        (2, raw.playouts.as_ref().map(|v| v.span().start)),
        (3, raw.weights.as_ref().map(|v| v.span().start)),
        (4, raw.ordering.as_ref().map(|v| v.span().start)),
        (5, raw.fail_soft.as_ref().map(|v| v.span().start)),
        (6, raw.tt_mib.as_ref().map(|v| v.span().start)),
        (7, raw.tolerance.as_ref().map(|v| v.span().start)),
        (8, raw.exploration.as_ref().map(|v| v.span().start)),
        (9, raw.tree_mib.as_ref().map(|v| v.span().start)),
        (10, raw.tie_break.as_ref().map(|v| v.span().start)),
        (11, raw.exact.as_ref().map(|v| v.span().start)),
        (12, raw.near.as_ref().map(|v| v.span().start)),
        (13, raw.threads.as_ref().map(|v| v.span().start)),
        (14, raw.threats.as_ref().map(|v| v.span().start)),
        (15, raw.vcf.as_ref().map(|v| v.span().start)),
        (16, raw.vct.as_ref().map(|v| v.span().start)),
        (17, raw.lmr.as_ref().map(|v| v.span().start)),
    ];
    if let Some((i, Some(offset))) = built_in.into_iter().find(|(_, at)| at.is_some()) {
        let k = BUILT_IN_KEYS[i];
        let hint = if k == "time" {
            ": an outside program's time comes from the clock, tc = \"10+0.1\" or st = \"100ms\" in its table or at the top of the spec"
        } else {
            ", not to an outside program (command = ...); its own settings go in args or options"
        };
        return Err(at.loc.at(
            offset,
            &at.key(k),
            format!(
                "engine '{}': {k} belongs to built-in engines{hint}",
                at.name
            ),
        ));
    }
    Ok(())
}

/// An outside engine's `command`: as written (trimmed, not empty) and the program found.
fn outside_program<'r>(
    raw: &'r RawEngine,
    at: &EngineKeys<'_, '_>,
) -> Result<(&'r str, PathBuf), SpecError> {
    let command = raw
        .command
        .as_ref()
        .expect("an outside engine has a command");
    let written = command.get_ref().trim();
    if written.is_empty() {
        return Err(at.on(command, "command", "the command is empty"));
    }
    let dir = raw
        .working_dir
        .as_ref()
        .map(|w| ("working_dir ", w.get_ref().as_str()));
    let program = find_program(written, at.loc, dir).map_err(|m| at.on(command, "command", m))?;
    Ok((written, program))
}

/// An outside engine's `protocol`, which must play `game`, and its `protocol_version`
/// (NBoard's: 2 unless given).
fn outside_protocol(
    e: &Spanned<RawEngine>,
    game: &GameKind,
    at: &EngineKeys<'_, '_>,
) -> Result<(Protocol, Option<u32>), SpecError> {
    let raw = e.get_ref();
    let Some(protocol_text) = &raw.protocol else {
        return Err(at.on(
            e,
            "protocol",
            "an outside program needs protocol = \"line\", \"gtp\", \"nboard\" or \"gomocup\"",
        ));
    };
    let protocol = Protocol::parse(protocol_text.get_ref())
        .map_err(|m| at.on(protocol_text, "protocol", m))?;
    if let Some(why) = protocol.refuses(game) {
        return Err(at.on(protocol_text, "protocol", why));
    }
    let version = match &raw.protocol_version {
        None if protocol == Protocol::Nboard => Some(2),
        None => None,
        Some(v) if protocol == Protocol::Nboard && matches!(*v.get_ref(), 1 | 2) => {
            Some(*v.get_ref() as u32)
        }
        Some(v) if protocol == Protocol::Nboard => {
            return Err(at.on(
                v,
                "protocol_version",
                format!(
                    "NBoard's protocol_version is 1 (Edax) or 2 (NTest), not {}",
                    v.get_ref()
                ),
            ));
        }
        Some(v) => {
            return Err(at.on(
                v,
                "protocol_version",
                format!("protocol_version belongs to nboard, not {protocol}"),
            ));
        }
    };
    Ok((protocol, version))
}

/// An outside engine's `depth` and `nodes`, where its protocol can pass them.
fn outside_budget(
    raw: &RawEngine,
    protocol: Protocol,
    at: &EngineKeys<'_, '_>,
) -> Result<(Option<u32>, Option<u64>), SpecError> {
    let depth = match &raw.depth {
        None => None,
        Some(d) if !protocol.passes_depth() => {
            return Err(at.on(
                d,
                "depth",
                format!("the {protocol} protocol cannot pass a depth; give the program its own option in args (Edax: \"-l\", \"8\")"),
            ));
        }
        Some(d) => Some(at.depth(d)?),
    };
    let nodes = match &raw.nodes {
        None => None,
        Some(n) if !protocol.passes_nodes() => {
            return Err(at.on(
                n,
                "nodes",
                format!("the {protocol} protocol cannot pass a node budget"),
            ));
        }
        Some(n) => Some(at.int_in(n, "nodes", 1..=MAX_NODES as i64, |v| {
            format!("nodes is {v}; allowed: 1..={MAX_NODES}")
        })?),
    };
    Ok((depth, nodes))
}

/// An outside engine's `options`: each a string, number or boolean the protocol can send
/// ([`check_option`]), as text.
fn outside_options(
    raw: &RawEngine,
    protocol: Protocol,
    at: &EngineKeys<'_, '_>,
) -> Result<BTreeMap<String, String>, SpecError> {
    let mut options = BTreeMap::new();
    let Some(table) = &raw.options else {
        return Ok(options);
    };
    for (k, v) in table.get_ref() {
        let fail = |m: String| at.on(table, &format!("options.{k}"), m);
        let value = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(x) => x.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                let kind = other.type_str();
                let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                return Err(fail(format!(
                    "an option is a string, number or boolean, not {article} {kind}"
                )));
            }
        };
        check_option(protocol, k, &value).map_err(fail)?;
        options.insert(k.clone(), value);
    }
    Ok(options)
}

/// `path` made absolute against the current folder (the runner's workers do not change it,
/// but the programs run in folders of their own).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    // A spec named without a folder (`joute run spec.toml`) has the empty path for its folder,
    // which no process can start in: it is the current folder.
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

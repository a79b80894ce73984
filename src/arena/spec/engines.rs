//! An engine's algorithm, budget and options, and its weights, checked against the game.

use super::*;

/// Validates an engine's algorithm, budget and options; `prefix` is its key path in errors
/// (`engine[2]`). An engine on a clock (`clocked`) needs no budget of its own. The weights are
/// resolved separately ([`resolve_weights`]).
pub(crate) fn engine_budget(
    e: &Spanned<RawEngine>,
    prefix: &str,
    name: &str,
    clocked: bool,
    loc: &Locator<'_>,
) -> Result<ResolvedEngine, SpecError> {
    let at = EngineKeys { prefix, name, loc };
    let algorithm = built_in_algorithm(e, &at)?;
    let mut resolved = ResolvedEngine::with_defaults(name, algorithm.name());
    budget(e, algorithm, clocked, &at, &mut resolved)?;
    search_options(e.get_ref(), algorithm, &at, &mut resolved)?;
    Ok(resolved)
}

/// Where an engine's errors point: its key path (`engine[2]`), its name (every message starts
/// `engine 'NAME': `) and the spec.
pub(crate) struct EngineKeys<'k, 'a> {
    pub(crate) prefix: &'k str,
    pub(crate) name: &'k str,
    pub(crate) loc: &'k Locator<'a>,
}

impl EngineKeys<'_, '_> {
    /// The key path of the engine's key `k`.
    pub(crate) fn key(&self, k: &str) -> String {
        format!("{}.{k}", self.prefix)
    }

    /// An error at the value of the engine's key `k`: `engine 'NAME': message`.
    pub(crate) fn on<T>(&self, v: &Spanned<T>, k: &str, message: impl fmt::Display) -> SpecError {
        self.loc.on(
            v,
            &self.key(k),
            format!("engine '{}': {message}", self.name),
        )
    }

    /// The engine's key `k`, an integer within `range` ([`Locator::int_in`]); `message`
    /// gets the value and follows `engine 'NAME': `.
    pub(crate) fn int_in<T: TryFrom<i64>>(
        &self,
        v: &Spanned<i64>,
        k: &str,
        range: std::ops::RangeInclusive<i64>,
        message: impl FnOnce(i64) -> String,
    ) -> Result<T, SpecError> {
        let name = self.name;
        self.loc.int_in(v, &self.key(k), range, |x| {
            format!("engine '{name}': {}", message(x))
        })
    }

    /// The engine's `depth`, 1..=[`MAX_DEPTH`] (built-in engines and outside programs alike).
    pub(crate) fn depth(&self, d: &Spanned<i64>) -> Result<u32, SpecError> {
        self.int_in(d, "depth", 1..=MAX_DEPTH as i64, |v| {
            format!("depth {v} is out of range; allowed: 1..={MAX_DEPTH}")
        })
    }
}

/// A built-in engine's algorithm: its table has no `command` nor outside program's keys.
fn built_in_algorithm(
    e: &Spanned<RawEngine>,
    at: &EngineKeys<'_, '_>,
) -> Result<Algorithm, SpecError> {
    let raw = e.get_ref();
    if let Some(c) = &raw.command {
        return Err(at.on(
            c,
            "command",
            "a pool engine is built in; outside programs play in tournaments (joute run, joute match), or as the tuned [engine], their options tuned",
        ));
    }
    no_outside_keys(raw, at.prefix, at.name, at.loc)?;
    let Some(algorithm_text) = &raw.algorithm else {
        return Err(at.on(
            e,
            "algorithm",
            "say what plays: algorithm = \"pvs\" (a built-in engine) or command = \"PROGRAM\" with protocol = \"gtp\" (an outside program)",
        ));
    };
    algorithm_text
        .get_ref()
        .trim()
        .parse::<Algorithm>()
        .map_err(|err| at.on(algorithm_text, "algorithm", err))
}

/// A built-in engine's budget: `depth`, `nodes`, `playouts` (mcts) and `time`, at least one
/// unless the engine is on a clock (`clocked`) or plays at random.
fn budget(
    e: &Spanned<RawEngine>,
    algorithm: Algorithm,
    clocked: bool,
    at: &EngineKeys<'_, '_>,
    resolved: &mut ResolvedEngine,
) -> Result<(), SpecError> {
    let raw = e.get_ref();
    if let Some(d) = &raw.depth {
        if algorithm == Algorithm::Mcts || algorithm == Algorithm::Random {
            return Err(at.on(
                d,
                "depth",
                format!("{algorithm} takes no depth; mcts takes playouts or nodes, random nothing"),
            ));
        }
        resolved.depth = Some(at.depth(d)?);
    }
    if let Some(n) = &raw.nodes {
        resolved.nodes = Some(at.int_in(n, "nodes", 1..=MAX_NODES as i64, |v| {
            format!(
                "nodes is {v}; allowed: 1..={MAX_NODES} (ten billion positions: minutes a move)"
            )
        })?);
    }
    if let Some(p) = &raw.playouts {
        if algorithm != Algorithm::Mcts {
            return Err(at.on(
                p,
                "playouts",
                format!("playouts belongs to mcts, not {algorithm}"),
            ));
        }
        resolved.playouts = at.int_in(p, "playouts", 1..=MAX_PLAYOUTS as i64, |v| {
            format!("playouts is {v}; allowed: 1..={MAX_PLAYOUTS}")
        })?;
    }
    if let Some(t) = &raw.time {
        let context = format!("engine '{}': ", at.name);
        let d = at.loc.duration(t, &at.key("time"), &context, |text| {
            format!("{context}time '{text}' needs a unit: \"0.5s\" or \"200ms\"")
        })?;
        resolved.time_ms = Some(d.as_secs_f64() * 1000.0);
    }
    let budgeted = resolved.depth.is_some()
        || resolved.nodes.is_some()
        || resolved.time_ms.is_some()
        || raw.playouts.is_some();
    if !budgeted && !clocked && algorithm != Algorithm::Random {
        return Err(at.on(
            e,
            "depth",
            format!(
                "{algorithm} needs a budget: depth = N, nodes = N, time = \"200ms\"{}",
                if algorithm == Algorithm::Mcts {
                    " or playouts = N"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}

/// A built-in engine's search options: `ordering`, `fail_soft`, `tt_mib`, `tolerance`,
/// `exploration`, `tree_mib` (mcts), `tie_break`, `exact`, `near` (pvs, mtdf) and `threads`.
fn search_options(
    raw: &RawEngine,
    algorithm: Algorithm,
    at: &EngineKeys<'_, '_>,
    resolved: &mut ResolvedEngine,
) -> Result<(), SpecError> {
    let name = at.name;
    if let Some(o) = &raw.ordering {
        resolved.ordering = at.loc.choice(
            o,
            &at.key("ordering"),
            &[
                ("natural", MoveOrder::Natural),
                ("evaluation", MoveOrder::Evaluation),
                ("perfect", MoveOrder::Perfect),
            ],
            |other| format!("engine '{name}': unknown ordering '{other}'; allowed: natural, evaluation, perfect"),
        )?;
    }
    if let Some(f) = &raw.fail_soft {
        resolved.fail_soft = *f.get_ref();
    }
    if let Some(t) = &raw.tt_mib {
        resolved.tt_mib = at.int_in(t, "tt_mib", 1..=1024, |v| {
            format!("tt_mib is {v}; allowed: 1..=1024 (every game builds its engines afresh, for reproducibility)")
        })?;
    }
    if let Some(t) = &raw.tolerance {
        resolved.tolerance = at.int_in(t, "tolerance", 0..=1_000_000, |v| {
            format!("tolerance is {v}; allowed: 0..=1000000")
        })?;
    }
    if let Some(x) = &raw.exploration {
        resolved.exploration = at
            .loc
            .float_in(x, &at.key("exploration"), 0.0..=100.0, |w| {
                format!("engine '{name}': exploration is {w}; allowed: 0..=100")
            })?;
    }
    if let Some(t) = &raw.tree_mib {
        if algorithm != Algorithm::Mcts {
            return Err(at.on(
                t,
                "tree_mib",
                format!("tree_mib belongs to mcts, not {algorithm}"),
            ));
        }
        resolved.tree_mib = at.int_in(t, "tree_mib", 1..=MAX_TREE_MIB as i64, |v| {
            format!("tree_mib is {v}; allowed: 1..={MAX_TREE_MIB} (MiB; a full tree stops growing, the search goes on)")
        })?;
    }
    if let Some(t) = &raw.tie_break {
        resolved.tie_break = *t.get_ref();
    }
    if let Some(x) = &raw.exact {
        if algorithm == Algorithm::Random {
            return Err(at.on(
                x,
                "exact",
                "random plays at random and solves nothing; exact belongs to the searching algorithms",
            ));
        }
        resolved.exact = at.int_in(x, "exact", 0..=MAX_DEPTH as i64, |v| {
            format!("exact is {v}; allowed: 0..={MAX_DEPTH} empty squares (0: never solve)")
        })?;
    }
    if let Some(x) = &raw.near {
        if !matches!(algorithm, Algorithm::Pvs | Algorithm::Mtdf) {
            return Err(at.on(
                x,
                "near",
                format!("near belongs to pvs and mtdf, not {algorithm}"),
            ));
        }
        resolved.near = at.int_in(x, "near", 0..=MAX_NEAR as i64, |v| {
            format!("near is {v}; allowed: 0..={MAX_NEAR} cells (0: every move)")
        })?;
    }
    let search_only = |key: &str| format!("{key} belongs to pvs and mtdf, not {algorithm}");
    let searches = matches!(algorithm, Algorithm::Pvs | Algorithm::Mtdf);
    if let Some(x) = raw.threats.as_ref().filter(|_| !searches) {
        return Err(at.on(x, "threats", search_only("threats")));
    }
    if let Some(x) = raw.vcf.as_ref().filter(|_| !searches) {
        return Err(at.on(x, "vcf", search_only("vcf")));
    }
    if let Some(x) = raw.vct.as_ref().filter(|_| !searches) {
        return Err(at.on(x, "vct", search_only("vct")));
    }
    if let Some(x) = raw.lmr.as_ref().filter(|_| !searches) {
        return Err(at.on(x, "lmr", search_only("lmr")));
    }
    if let Some(x) = &raw.threats {
        resolved.threats = *x.get_ref();
    }
    // The threat search's reductions and node budgets, each of which needs the threat search.
    let threats_on = raw.threats.as_ref().is_some_and(|t| *t.get_ref());
    if let Some(x) = &raw.lmr {
        resolved.lmr = *x.get_ref();
        if resolved.lmr && !threats_on {
            return Err(at.on(
                x,
                "lmr",
                "lmr is the threat search's late move reductions: set threats = true as well"
                    .to_string(),
            ));
        }
    }
    for (key, field, most, name, place, slot) in [
        (
            "vcf",
            &raw.vcf,
            MAX_VCF_NODES,
            "VCF",
            "at the leaves",
            &mut resolved.vcf,
        ),
        (
            "vct",
            &raw.vct,
            MAX_VCT_NODES,
            "VCT",
            "at the root",
            &mut resolved.vct,
        ),
    ] {
        let Some(x) = field else {
            continue;
        };
        *slot = at.int_in::<u64>(x, key, 0..=most as i64, |v| {
            format!("{key} is {v}; allowed: 0..={most} nodes (0: no {name} search {place})")
        })?;
        if *slot > 0 && !threats_on {
            return Err(at.on(
                x,
                key,
                format!("{key} is the threat search's {name} {place}: set threats = true as well"),
            ));
        }
    }
    if let Some(x) = &raw.threads {
        let most = crate::search::solver::othello::MAX_THREADS as i64;
        resolved.threads = at.int_in(x, "threads", 1..=most, |v| {
            format!("threads is {v}; allowed: 1..={most} (the cores the engine may use: its exact endgame's threads)")
        })?;
    }
    Ok(())
}

/// Gives a built-in `engine` the game's default `exact` for its algorithm
/// ([`crate::search::endgame::default_exact`]) when its table `raw` does not set the key.
pub(crate) fn default_exact<G: crate::games::Game>(
    start: &G,
    raw: &RawEngine,
    engine: &mut ResolvedEngine,
) {
    if raw.exact.is_none()
        && engine.outside.is_none()
        && engine.hosted.is_none()
        && let Ok(algorithm) = engine.algorithm.parse()
    {
        engine.exact = crate::search::endgame::default_exact(start, algorithm, engine.depth);
    }
}

/// Resolves what `engine` evaluates with: a pattern weights file (Othello; told by its first
/// bytes) or linear weights ([`resolve_weights`]).
pub(crate) fn resolve_evaluation<G: Features>(
    start: &G,
    value: Option<&Spanned<toml::Value>>,
    key: &str,
    loc: &Locator<'_>,
    engine: &mut ResolvedEngine,
) -> Result<(), SpecError> {
    if let Some(v) = value
        && let toml::Value::String(path) = v.get_ref()
        && crate::eval::pattern::PatternWeights::is_pattern_file(&loc.path(path))
    {
        if start.name() != "othello" {
            return Err(loc.on(
                v,
                key,
                format!(
                    "{path} is a pattern weights file, which evaluates Othello, not {}",
                    start.name()
                ),
            ));
        }
        let (shared, weights) = crate::arena::engine::SharedPatterns::load(&loc.path(path))
            .map_err(|e| loc.on(v, key, e.to_string()))?;
        let mut linear = Weights::default_for(start);
        linear.origin = path.clone();
        engine.set_weights(start, &linear);
        engine.patterns = Some(PatternsFile::new(path, &weights, shared));
        return Ok(());
    }
    let w = resolve_weights(start, value, key, loc)?;
    engine.set_weights(start, &w);
    Ok(())
}

/// Loads an engine's weights (a file name or an inline table; the game's defaults when absent);
/// `key` is the key path in errors (`engine[2].weights`).
pub(crate) fn resolve_weights<G: Features>(
    start: &G,
    value: Option<&Spanned<toml::Value>>,
    key: &str,
    loc: &Locator<'_>,
) -> Result<Weights, SpecError> {
    let Some(value) = value else {
        return Ok(Weights::default_for(start));
    };
    match value.get_ref() {
        toml::Value::String(path) => {
            // Recorded as written (run.json and the hash do not depend on the current folder).
            let mut weights = Weights::load(start, &loc.path(path))
                .map_err(|e| loc.on(value, key, e.to_string()))?;
            weights.origin = path.clone();
            Ok(weights)
        }
        toml::Value::Table(table) => {
            let features = start.features();
            let mut values = vec![0.0; features.len()];
            let named: BTreeMap<&String, &toml::Value> = table.iter().collect();
            for (feature, v) in named {
                let Some(i) = features.iter().position(|f| &f.name == feature) else {
                    return Err(loc.on(
                        value,
                        &format!("{key}.{feature}"),
                        format!(
                            "'{feature}' is not a feature of {}; allowed: {}",
                            start.name(),
                            features
                                .iter()
                                .map(|f| f.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                };
                let x = match v {
                    toml::Value::Integer(n) => *n as f64,
                    toml::Value::Float(x) => *x,
                    other => {
                        return Err(loc.on(value, &format!("{key}.{feature}"), format!("expected a number, found a {}", other.type_str())));
                    }
                };
                values[i] = crate::eval::weights::check_weight(x)
                    .map_err(|e| loc.on(value, &format!("{key}.{feature}"), e))?;
            }
            Ok(Weights {
                game: start.name(),
                values,
                endgame: None,
                origin: "inline".into(),
            })
        }
        other => Err(loc.on(
            value,
            key,
            format!(
                "expected a weights file name (\"weights/{}.toml\") or an inline table {{ feature = number, ... }}, found a {}",
                start.name(),
                other.type_str()
            ),
        )),
    }
}

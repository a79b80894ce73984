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
    let raw = e.get_ref();
    let key = |k: &str| format!("{prefix}.{k}");
    if let Some(c) = &raw.command {
        return Err(loc.on(
            c,
            &key("command"),
            format!("engine '{name}': a pool engine is built in; outside programs play in tournaments (joute run, joute match), or as the tuned [engine], their options tuned"),
        ));
    }
    no_outside_keys(raw, prefix, name, loc)?;
    let Some(algorithm_text) = &raw.algorithm else {
        return Err(loc.on(
            e,
            &key("algorithm"),
            format!("engine '{name}': say what plays: algorithm = \"pvs\" (a built-in engine) or command = \"PROGRAM\" with protocol = \"gtp\" (an outside program)"),
        ));
    };
    let algorithm: Algorithm = algorithm_text.get_ref().trim().parse().map_err(|err| {
        loc.on(
            algorithm_text,
            &key("algorithm"),
            format!("engine '{name}': {err}"),
        )
    })?;
    let mut resolved = ResolvedEngine::with_defaults(name, algorithm.name());
    if let Some(d) = &raw.depth {
        let v = *d.get_ref();
        if algorithm == Algorithm::Mcts || algorithm == Algorithm::Random {
            return Err(loc.on(d, &key("depth"), format!("engine '{name}': {algorithm} takes no depth; mcts takes playouts or nodes, random nothing")));
        }
        if !(1..=MAX_DEPTH as i64).contains(&v) {
            return Err(loc.on(
                d,
                &key("depth"),
                format!("engine '{name}': depth {v} is out of range; allowed: 1..={MAX_DEPTH}"),
            ));
        }
        resolved.depth = Some(v as u32);
    }
    if let Some(n) = &raw.nodes {
        let v = *n.get_ref();
        if !(1..=MAX_NODES as i64).contains(&v) {
            return Err(loc.on(
                n,
                &key("nodes"),
                format!("engine '{name}': nodes is {v}; allowed: 1..={MAX_NODES} (ten billion positions: minutes a move)"),
            ));
        }
        resolved.nodes = Some(v as u64);
    }
    if let Some(p) = &raw.playouts {
        let v = *p.get_ref();
        if algorithm != Algorithm::Mcts {
            return Err(loc.on(
                p,
                &key("playouts"),
                format!("engine '{name}': playouts belongs to mcts, not {algorithm}"),
            ));
        }
        if !(1..=MAX_PLAYOUTS as i64).contains(&v) {
            return Err(loc.on(
                p,
                &key("playouts"),
                format!("engine '{name}': playouts is {v}; allowed: 1..={MAX_PLAYOUTS}"),
            ));
        }
        resolved.playouts = v as u64;
    }
    if let Some(t) = &raw.time {
        match parse_time(t.get_ref().trim()) {
            Some(Ok(d)) => resolved.time_ms = Some(d.as_secs_f64() * 1000.0),
            Some(Err(reason)) => {
                return Err(loc.on(t, &key("time"), format!("engine '{name}': {reason}")));
            }
            None => {
                return Err(loc.on(
                    t,
                    &key("time"),
                    format!(
                        "engine '{name}': time '{}' needs a unit: \"0.5s\" or \"200ms\"",
                        t.get_ref()
                    ),
                ));
            }
        }
    }
    let budgeted = resolved.depth.is_some()
        || resolved.nodes.is_some()
        || resolved.time_ms.is_some()
        || raw.playouts.is_some();
    if !budgeted && !clocked && algorithm != Algorithm::Random {
        return Err(loc.on(
            e,
            &key("depth"),
            format!("engine '{name}': {algorithm} needs a budget: depth = N, nodes = N, time = \"200ms\"{}", if algorithm == Algorithm::Mcts { " or playouts = N" } else { "" }),
        ));
    }
    if let Some(o) = &raw.ordering {
        resolved.ordering = match o.get_ref().as_str() {
            "natural" => MoveOrder::Natural,
            "evaluation" => MoveOrder::Evaluation,
            "perfect" => MoveOrder::Perfect,
            other => {
                return Err(loc.on(o, &key("ordering"), format!("engine '{name}': unknown ordering '{other}'; allowed: natural, evaluation, perfect")));
            }
        };
    }
    if let Some(f) = &raw.fail_soft {
        resolved.fail_soft = *f.get_ref();
    }
    if let Some(t) = &raw.tt_mib {
        let v = *t.get_ref();
        if !(1..=1024).contains(&v) {
            return Err(loc.on(
                t,
                &key("tt_mib"),
                format!("engine '{name}': tt_mib is {v}; allowed: 1..=1024 (every game builds its engines afresh, for reproducibility)"),
            ));
        }
        resolved.tt_mib = v as usize;
    }
    if let Some(t) = &raw.tolerance {
        let v = *t.get_ref();
        if !(0..=1_000_000).contains(&v) {
            return Err(loc.on(
                t,
                &key("tolerance"),
                format!("engine '{name}': tolerance is {v}; allowed: 0..=1000000"),
            ));
        }
        resolved.tolerance = v as i32;
    }
    if let Some(x) = &raw.exploration {
        let v = *x.get_ref();
        if !(0.0..=100.0).contains(&v) {
            return Err(loc.on(
                x,
                &key("exploration"),
                format!(
                    "engine '{name}': exploration is {}; allowed: 0..=100",
                    loc.written(x)
                ),
            ));
        }
        resolved.exploration = v;
    }
    if let Some(t) = &raw.tree_mib {
        let v = *t.get_ref();
        if algorithm != Algorithm::Mcts {
            return Err(loc.on(
                t,
                &key("tree_mib"),
                format!("engine '{name}': tree_mib belongs to mcts, not {algorithm}"),
            ));
        }
        if !(1..=MAX_TREE_MIB as i64).contains(&v) {
            return Err(loc.on(
                t,
                &key("tree_mib"),
                format!("engine '{name}': tree_mib is {v}; allowed: 1..={MAX_TREE_MIB} (MiB; a full tree stops growing, the search goes on)"),
            ));
        }
        resolved.tree_mib = v as usize;
    }
    if let Some(t) = &raw.tie_break {
        resolved.tie_break = *t.get_ref();
    }
    if let Some(x) = &raw.exact {
        let v = *x.get_ref();
        if algorithm == Algorithm::Random {
            return Err(loc.on(
                x,
                &key("exact"),
                format!("engine '{name}': random plays at random and solves nothing; exact belongs to the searching algorithms"),
            ));
        }
        if !(0..=MAX_DEPTH as i64).contains(&v) {
            return Err(loc.on(
                x,
                &key("exact"),
                format!("engine '{name}': exact is {v}; allowed: 0..={MAX_DEPTH} empty squares (0: never solve)"),
            ));
        }
        resolved.exact = v as u32;
    }
    if let Some(x) = &raw.near {
        let v = *x.get_ref();
        if !matches!(algorithm, Algorithm::Pvs | Algorithm::Mtdf) {
            return Err(loc.on(
                x,
                &key("near"),
                format!("engine '{name}': near belongs to pvs and mtdf, not {algorithm}"),
            ));
        }
        if !(0..=MAX_NEAR as i64).contains(&v) {
            return Err(loc.on(
                x,
                &key("near"),
                format!(
                    "engine '{name}': near is {v}; allowed: 0..={MAX_NEAR} cells (0: every move)"
                ),
            ));
        }
        resolved.near = v as u32;
    }
    Ok(resolved)
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

//! A raw tuning spec checked and resolved, section by section: the game and engine, the method
//! and its budget, the parameters, the confirmation, the openings.

use super::outside::resolve_outside;
use super::regression::{is_pattern_regression, resolve_regression};
use super::*;

pub(super) fn validate(raw: RawTuneSpec, loc: &Locator<'_>) -> Result<ResolvedTuneSpec, SpecError> {
    let (name, kind) = name_and_game(&raw.name, &raw.game, loc)?;
    let seed = *raw.seed.get_ref();
    let method = match raw.method.get_ref().trim() {
        "hill-climb" | "hill-climbing" => Method::HillClimb,
        "spsa" => Method::Spsa,
        "regression" => Method::Regression,
        other => {
            return Err(loc.on(
                &raw.method,
                "method",
                format!("unknown method '{other}'; allowed: hill-climb, spsa, regression"),
            ));
        }
    };
    let weights_out = match &raw.weights_out {
        None => None,
        Some(w) => {
            let text = w.get_ref().trim();
            let patterns = is_pattern_regression(&raw);
            let (ending, example, folder) = if patterns {
                (
                    ".jpw",
                    "../weights/othello-patterns.jpw",
                    "tuned-weights.jpw",
                )
            } else {
                (
                    ".toml",
                    "../weights/othello-tuned.toml",
                    "tuned-weights.toml",
                )
            };
            if text.is_empty() || !text.ends_with(ending) {
                return Err(loc.on(
                    w,
                    "weights_out",
                    format!("name the file the tuned weights are copied to, ending in {ending} (e.g. \"{example}\"); without the key they go to {folder} in the run's folder"),
                ));
            }
            Some(loc.path(text))
        }
    };

    // The engine tuned (weights below, with the game).
    if let Some(n) = raw.engine.get_ref().name() {
        return Err(loc.on(
            n,
            "engine.name",
            "the tuned engine takes no name: it is 'tuned' against 'start'",
        ));
    }
    let outside = raw.engine.get_ref().is_outside();
    crate::arena::spec::no_engine_clock(raw.engine.get_ref(), "engine", "tuned", loc)?;
    let engine = if outside {
        crate::arena::spec::outside_engine(&raw.engine, "engine", "tuned", &kind, loc)?
    } else {
        engine_budget(&raw.engine, "engine", "tuned", false, loc)?
    };
    if engine.algorithm == "random" {
        return Err(loc.on(
            &raw.engine,
            "engine.algorithm",
            "random ignores its weights, so there is nothing to tune; choose a searching algorithm",
        ));
    }

    // Opponents.
    let pooled = match raw.opponent.as_ref().map(|o| o.get_ref().trim()) {
        None | Some("incumbent") => false,
        Some("pool") => true,
        Some(other) => {
            return Err(loc.on(
                raw.opponent.as_ref().expect("given"),
                "opponent",
                format!("unknown opponent '{other}'; allowed: incumbent (the current best weights), pool (the [[pool]] engines)"),
            ));
        }
    };
    if pooled && raw.pool.is_empty() {
        return Err(loc.on(
            raw.opponent.as_ref().expect("given"),
            "pool",
            "opponent = \"pool\" needs one or more [[pool]] engines",
        ));
    }
    if !pooled && let Some(first) = raw.pool.first() {
        return Err(loc.on(
            first,
            "pool",
            "[[pool]] engines are the opponents of opponent = \"pool\"; add that, or remove them",
        ));
    }
    let mut pool = Vec::new();
    let mut pool_names: Vec<String> = Vec::new();
    for (i, e) in raw.pool.iter().enumerate() {
        let key = format!("pool[{}].name", i + 1);
        let Some(n) = e.get_ref().name() else {
            return Err(loc.on(e, &key, "missing key 'name' (required here)"));
        };
        let n_text = n.get_ref().trim().to_string();
        if n_text.is_empty()
            || n_text.chars().any(|c| c.is_control() || c == ',')
            || n_text == "tuned"
            || n_text == "start"
            || pool_names.contains(&n_text)
        {
            return Err(loc.on(
                n,
                &key,
                "a pool engine's name must be non-empty, unique, not 'tuned' or 'start', without commas or control characters",
            ));
        }
        crate::arena::spec::no_engine_clock(
            e.get_ref(),
            &format!("pool[{}]", i + 1),
            &n_text,
            loc,
        )?;
        pool.push(engine_budget(
            e,
            &format!("pool[{}]", i + 1),
            &n_text,
            false,
            loc,
        )?);
        pool_names.push(n_text);
    }

    // Openings.
    let o = raw.openings.get_ref();
    let plies = *o.plies.get_ref();
    if !(0..=200).contains(&plies) {
        return Err(loc.on(
            &o.plies,
            "openings.plies",
            format!("plies is {plies}; allowed: 0..=200"),
        ));
    }
    let mut balance = Balance::default_for(kind);
    if let Some(d) = &o.balance_depth {
        let v = *d.get_ref();
        if !(0..=8).contains(&v) {
            return Err(loc.on(
                d,
                "openings.balance_depth",
                format!("balance_depth is {v}; allowed: 0..=8 (0 turns the check off)"),
            ));
        }
        balance.depth = v as u32;
    }
    if let Some(m) = &o.max_imbalance {
        let v = *m.get_ref();
        if v.is_nan() || v <= 0.0 {
            return Err(loc.on(
                m,
                "openings.max_imbalance",
                format!(
                    "max_imbalance is {}; it must be a positive number (in weight units) or inf",
                    loc.written(m)
                ),
            ));
        }
        balance.max_imbalance = v.is_finite().then_some(v);
    }

    // Budget.
    let no_budget = RawBudget {
        iterations: None,
        games: None,
    };
    let b = raw.budget.as_ref().map_or(&no_budget, |b| b.get_ref());
    // Where budget errors point: the table, or the top of the file when it is missing.
    let budget_at = raw.budget.as_ref().map_or(0, |b| b.span().start);
    let budget_value = |v: &Option<Spanned<i64>>, key: &str, max: u64| match v {
        None => Ok(None),
        Some(v) if *v.get_ref() == 0 => Err(loc.on(
            v,
            key,
            "a budget of 0 plays nothing; give a positive number, or leave the key out",
        )),
        Some(v) => positive(v, key, max, loc).map(Some),
    };
    let iterations = budget_value(&b.iterations, "budget.iterations", MAX_ITERATIONS)?;
    let games = budget_value(&b.games, "budget.games", MAX_TUNE_GAMES)?;
    if method == Method::Regression {
        if let Some(i) = &b.iterations {
            return Err(loc.on(
                i,
                "budget.iterations",
                "regression plays no candidates: give its self-play games and rounds in [regression], and optionally a cap on all games with budget.games",
            ));
        }
    } else if iterations.is_none() && games.is_none() {
        return Err(loc.at(
            budget_at,
            "budget",
            "give iterations = N (candidates), games = N (games in all, confirmation included), or both",
        ));
    }
    if method == Method::Spsa && iterations.is_none() {
        return Err(loc.at(
            budget_at,
            "budget.iterations",
            "spsa needs iterations = N: its schedule is planned for N iterations",
        ));
    }

    // The method's settings.
    let mut hill = None;
    let mut spsa = None;
    let mut regression = None;
    match method {
        Method::HillClimb => {
            if let Some(s) = &raw.spsa {
                return Err(loc.on(s, "spsa", "[spsa] belongs to method = \"spsa\""));
            }
            let h = raw.hill.as_ref().map(|h| h.get_ref());
            let neighbour = match h.and_then(|h| h.neighbour.as_ref()) {
                None => Neighbour::Single,
                Some(n) => match n.get_ref().as_str() {
                    "single" => Neighbour::Single,
                    "all" => Neighbour::All,
                    other => {
                        return Err(loc.on(
                            n,
                            "hill.neighbour",
                            format!("unknown neighbour '{other}'; allowed: single (one parameter ± its step), all (every parameter ± its step)"),
                        ));
                    }
                },
            };
            let get = |v: Option<&Spanned<i64>>, key: &str, default: u64, max: u64| match v {
                None => Ok(default),
                Some(v) => positive(v, key, max, loc),
            };
            let batch = get(h.and_then(|h| h.batch.as_ref()), "hill.batch", 16, 100_000)?;
            let patience = get(
                h.and_then(|h| h.patience.as_ref()),
                "hill.patience",
                6,
                1000,
            )?;
            let min_step = match h.and_then(|h| h.min_step.as_ref()) {
                None => 1.0 / 16.0,
                Some(m) => {
                    let v = *m.get_ref();
                    if !(v > 0.0 && v <= 1.0) {
                        return Err(loc.on(
                            m,
                            "hill.min_step",
                            format!("min_step is {}; allowed: above 0, at most 1 (a fraction of each parameter's step)", loc.written(m)),
                        ));
                    }
                    v
                }
            };
            let fixed = h.and_then(|h| h.pairs.as_ref());
            let (acceptance, max_pairs) = match (fixed, &raw.sprt) {
                (Some(p), Some(s)) => {
                    return Err(loc.on(
                        s,
                        "sprt",
                        format!(
                            "give either [sprt] (a sequential test) or hill.pairs = {} (a fixed-length test), not both",
                            p.get_ref()
                        ),
                    ));
                }
                (Some(p), None) => {
                    if let Some(m) = h.and_then(|h| h.max_pairs.as_ref()) {
                        return Err(loc.on(
                            m,
                            "hill.max_pairs",
                            "max_pairs caps a sequential test; with hill.pairs every candidate plays exactly that many",
                        ));
                    }
                    (
                        Acceptance::Fixed,
                        positive(p, "hill.pairs", 1_000_000, loc)?,
                    )
                }
                (None, s) => {
                    let sprt = match s {
                        Some(s) => resolve_sprt(s, "sprt", loc)?,
                        None => Sprt {
                            elo0: 0.0,
                            elo1: 10.0,
                            alpha: 0.05,
                            beta: 0.05,
                            model: EloModel::Logistic,
                        },
                    };
                    let max_pairs = get(
                        h.and_then(|h| h.max_pairs.as_ref()),
                        "hill.max_pairs",
                        1000,
                        1_000_000,
                    )?;
                    (Acceptance::Sprt(sprt), max_pairs)
                }
            };
            hill = Some(HillConfig {
                acceptance,
                batch: batch.min(max_pairs),
                max_pairs,
                patience: patience as u32,
                min_step,
                neighbour,
                seed,
            });
        }
        Method::Spsa => {
            if let Some(h) = &raw.hill {
                return Err(loc.on(h, "hill", "[hill] belongs to method = \"hill-climb\""));
            }
            if let Some(s) = &raw.sprt {
                return Err(loc.on(
                    s,
                    "sprt",
                    "[sprt] is hill climbing's acceptance test; SPSA accepts no candidates, it follows the gradient",
                ));
            }
            let pairs = match raw.spsa.as_ref().and_then(|s| s.get_ref().pairs.as_ref()) {
                None => 1,
                Some(p) => positive(p, "spsa.pairs", 10_000, loc)?,
            };
            spsa = Some(SpsaConfig {
                iterations: iterations.expect("checked above"),
                pairs,
                seed,
            });
        }
        Method::Regression => {
            regression = Some(resolve_regression(&raw, &kind, loc)?);
            if let (GameKind::RandomTree { .. }, Some(table)) = (&kind, &raw.regression)
                && let Some(v) = &table.get_ref().exact_labels
            {
                return Err(loc.on(
                    v,
                    "regression.exact_labels",
                    "a random tree has no exact solver; exact_labels is for othello, connect4 and morpion",
                ));
            }
        }
    }
    if method != Method::Regression
        && let Some(r) = &raw.regression
    {
        return Err(loc.on(
            r,
            "regression",
            "[regression] belongs to method = \"regression\"",
        ));
    }

    // The confirmation.
    let c = raw.confirm.get_ref();
    let confirm_games = even_games(&c.games, "confirm.games", loc)?;
    let aa_games = match &c.aa_games {
        None => 0,
        Some(a) if *a.get_ref() == 0 => 0,
        Some(a) => even_games(a, "confirm.aa_games", loc)?,
    };
    let confirm_plies = match &c.plies {
        None => plies as u32,
        Some(p) => {
            let v = *p.get_ref();
            if !(0..=200).contains(&v) {
                return Err(loc.on(
                    p,
                    "confirm.plies",
                    format!("plies is {v}; allowed: 0..=200"),
                ));
            }
            v as u32
        }
    };
    if let (Some(g), Some(total)) = (&b.games, games)
        && total <= confirm_games + aa_games
    {
        return Err(loc.on(
            g,
            "budget.games",
            format!(
                "budget.games = {total} leaves nothing for tuning after the confirmation ({confirm_games} games) and the A/A match ({aa_games})"
            ),
        ));
    }

    // Parameters: names checked against the game's features below (regression: every
    // feature, filled in there).
    if raw.param.is_empty() && method != Method::Regression {
        return Err(loc.on(
            &raw.engine,
            "param",
            "no [[param]] tables: name the features to tune, each with min, max and step",
        ));
    }
    let mut params = Vec::new();
    for (i, p) in raw.param.iter().enumerate() {
        let r = p.get_ref();
        let key = |k: &str| format!("param[{}].{k}", i + 1);
        let n = r.name.get_ref().trim().to_string();
        if params.iter().any(|q: &Param| q.name == n) {
            return Err(loc.on(
                &r.name,
                &key("name"),
                format!("'{n}' is tuned twice; each feature may appear once"),
            ));
        }
        for (v, k) in [(&r.min, "min"), (&r.max, "max"), (&r.step, "step")] {
            // The tuned weights must stay weights joute accepts.
            crate::eval::weights::check_weight(*v.get_ref()).map_err(|e| loc.on(v, &key(k), e))?;
        }
        let (min, max, step) = (*r.min.get_ref(), *r.max.get_ref(), *r.step.get_ref());
        if min >= max {
            return Err(loc.on(
                &r.max,
                &key("max"),
                format!(
                    "parameter '{n}': min ({}) must be less than max ({})",
                    loc.written(&r.min),
                    loc.written(&r.max)
                ),
            ));
        }
        if step <= 0.0 || step > max - min {
            return Err(loc.on(
                &r.step,
                &key("step"),
                format!(
                    "parameter '{n}': step is {}; allowed: above 0, at most max - min = {}",
                    loc.written(&r.step),
                    number_text(max - min)
                ),
            ));
        }
        let mut param = Param::new(n.clone(), 0.0, min, max, step);
        for (v, k, slot) in [
            (&r.c_end, "c_end", &mut param.c_end),
            (&r.r_end, "r_end", &mut param.r_end),
        ] {
            if let Some(v) = v {
                let x = *v.get_ref();
                // c_end is a perturbation of the parameter, r_end a learning rate.
                let most = if k == "c_end" { max - min } else { 1.0 };
                if !(x.is_finite() && x > 0.0 && x <= most) {
                    return Err(loc.on(
                        v,
                        &key(k),
                        format!(
                            "parameter '{n}': {k} is {}; allowed: above 0, at most {}",
                            loc.written(v),
                            number_text(most)
                        ),
                    ));
                }
                if method != Method::Spsa {
                    return Err(loc.on(v, &key(k), format!("{k} belongs to method = \"spsa\"")));
                }
                *slot = Some(x);
            }
        }
        params.push(param);
    }
    // An outside engine's parameters are its options, its games on a clock of the spec's.
    let (clock, options) = resolve_outside(&raw, &engine, method, &kind, &mut params, loc)?;
    let (params, option_params) = if outside {
        (Vec::new(), params)
    } else {
        (params, Vec::new())
    };

    // What needs the game: weights (engine, pool) and the parameters' features and starts.
    struct Resolve<'a, 'b> {
        raw: &'b RawTuneSpec,
        loc: &'b Locator<'a>,
        engine: ResolvedEngine,
        pool: Vec<ResolvedEngine>,
        params: Vec<Param>,
        /// The opening lengths to check: (plies, where, key).
        openings: Vec<(u32, usize, &'static str)>,
        seed: u64,
        balance: Balance,
        /// Regression: every feature is a parameter.
        regression: bool,
    }
    type Resolved = (ResolvedEngine, Vec<ResolvedEngine>, Vec<Param>, Vec<usize>);
    impl FeaturesVisitor for Resolve<'_, '_> {
        type Output = Result<Resolved, SpecError>;
        fn visit<G: Features>(mut self, start: G) -> Self::Output {
            let names: Vec<String> = start.features().iter().map(|f| f.name.clone()).collect();
            let w = resolve_weights(
                &start,
                self.raw.engine.get_ref().weights_value(),
                "engine.weights",
                self.loc,
            )?;
            if w.endgame.is_some() {
                return Err(self.loc.on(
                    self.raw.engine.get_ref().weights_value().expect("a file"),
                    "engine.weights",
                    format!(
                        "{} is tapered ([endgame]); tuning starts from one weight vector (method = \"regression\" with [regression] taper = true fits a taper)",
                        w.origin
                    ),
                ));
            }
            self.engine.weights_origin = w.origin.clone();
            self.engine.weights = names.iter().cloned().zip(w.values.clone()).collect();
            default_exact(&start, self.raw.engine.get_ref(), &mut self.engine);
            for (i, e) in self.raw.pool.iter().enumerate() {
                default_exact(&start, e.get_ref(), &mut self.pool[i]);
                let key = format!("pool[{}].weights", i + 1);
                let pw = resolve_weights(&start, e.get_ref().weights_value(), &key, self.loc)?;
                self.pool[i].weights_origin = pw.origin.clone();
                self.pool[i].weights = names.iter().cloned().zip(pw.values).collect();
            }
            let mut features = Vec::new();
            if self.regression {
                // Every feature, within the bounds weights files allow.
                let most = crate::eval::weights::MAX_WEIGHT;
                self.params = names
                    .iter()
                    .zip(&w.values)
                    .map(|(n, &v)| Param::new(n.clone(), v, -most, most, 1.0))
                    .collect();
                features = (0..names.len()).collect();
            }
            for (i, p) in self
                .params
                .iter_mut()
                .enumerate()
                .filter(|_| !self.regression)
            {
                let at = &self.raw.param[i].get_ref().name;
                let Some(f) = names.iter().position(|n| *n == p.name) else {
                    return Err(self.loc.on(
                        at,
                        &format!("param[{}].name", i + 1),
                        format!(
                            "'{}' is not a feature of {}; allowed: {}",
                            p.name,
                            start.name(),
                            names.join(", ")
                        ),
                    ));
                };
                let value = w.values[f];
                if value < p.min || value > p.max {
                    return Err(self.loc.on(
                        at,
                        &format!("param[{}].name", i + 1),
                        format!(
                            "the start weights ({}) give '{}' = {}, outside [min, max] = [{}, {}]; widen the bounds",
                            w.origin,
                            p.name,
                            number_text(value),
                            number_text(p.min),
                            number_text(p.max)
                        ),
                    ));
                }
                p.value = value;
                features.push(f);
            }
            // Tuning plays every pair from a fresh opening: the plies must give many.
            for (plies, span, key) in self.openings {
                let mut stream = OpeningStream::new(start, plies, self.seed, self.balance.clone());
                for found in 0..MIN_OPENINGS {
                    if stream.next_opening().is_err() {
                        return Err(self.loc.at(
                            span,
                            key,
                            format!(
                                "plies = {plies} gives only {found} distinct playable openings of {}; tuning needs a fresh one for every pair: choose plies that give thousands (6 to 10)",
                                start.name()
                            ),
                        ));
                    }
                }
            }
            Ok((self.engine, self.pool, self.params, features))
        }
    }
    let (mut resolved_engine, pool, mut params, features) = crate::eval::dispatch(
        &kind,
        Resolve {
            raw: &raw,
            loc,
            engine,
            pool,
            params,
            openings: {
                let o = raw.openings.get_ref();
                let mut list = vec![(plies as u32, o.plies.span().start, "openings.plies")];
                if let Some(p) = &raw.confirm.get_ref().plies
                    && confirm_plies != plies as u32
                {
                    list.push((confirm_plies, p.span().start, "confirm.plies"));
                }
                list
            },
            seed,
            balance: balance.clone(),
            regression: method == Method::Regression,
        },
    )?;
    if outside {
        // No weights of joute's: the program evaluates for itself.
        resolved_engine.weights.clear();
        resolved_engine.weights_origin.clear();
        params = option_params;
    }

    let spec = ResolvedTuneSpec {
        name,
        game: kind.to_string(),
        seed,
        method,
        weights_out,
        engine: resolved_engine,
        params,
        features,
        pool,
        plies: plies as u32,
        balance,
        iterations,
        games,
        hill,
        spsa,
        regression,
        confirm: Confirm {
            games: confirm_games,
            aa_games,
            plies: confirm_plies,
        },
        clock,
        options,
    };
    Ok(spec)
}

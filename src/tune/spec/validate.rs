//! A raw tuning spec checked and resolved, section by section, each by a function of its own:
//! the method and `weights_out`, the engine tuned and its opponents, the openings, the budget,
//! the method's settings, the confirmation, the parameters; then what needs the game (the
//! weights, the parameters' features and starts, the openings' supply).

use super::outside::resolve_outside;
use super::regression::{is_pattern_regression, resolve_regression};
use super::*;

pub(super) fn validate(raw: RawTuneSpec, loc: &Locator<'_>) -> Result<ResolvedTuneSpec, SpecError> {
    let (name, kind) = name_and_game(&raw.name, &raw.game, loc)?;
    let seed = *raw.seed.get_ref();
    let method = loc.choice_trimmed(
        &raw.method,
        "method",
        &[
            ("hill-climb", Method::HillClimb),
            ("hill-climbing", Method::HillClimb),
            ("spsa", Method::Spsa),
            ("regression", Method::Regression),
        ],
        |other| format!("unknown method '{other}'; allowed: hill-climb, spsa, regression"),
    )?;
    let weights_out = resolve_weights_out(&raw, loc)?;
    let (engine, outside) = tuned_engine(&raw, &kind, loc)?;
    let pool = resolve_pool(&raw, loc)?;
    let o = raw.openings.get_ref();
    let plies = opening_plies(&o.plies, "openings.plies", loc)?;
    let min_plies = o
        .min_plies
        .as_ref()
        .map(|m| {
            loc.int_in(m, "openings.min_plies", 0..=i64::from(plies), |v| {
                format!("min_plies is {v}; allowed: 0..={plies} (at most openings.plies)")
            })
        })
        .transpose()?;
    let balance = opening_balance(
        kind,
        o.balance_depth.as_ref(),
        o.max_imbalance.as_ref(),
        loc,
    )?;
    let (iterations, games) = resolve_budget(&raw, method, loc)?;
    let (hill, spsa, regression) = match method {
        Method::HillClimb => (Some(resolve_hill(&raw, seed, loc)?), None, None),
        Method::Spsa => (None, Some(resolve_spsa(&raw, iterations, seed, loc)?), None),
        Method::Regression => (None, None, Some(regression_settings(&raw, &kind, loc)?)),
    };
    if method != Method::Regression
        && let Some(r) = &raw.regression
    {
        return Err(loc.on(
            r,
            "regression",
            "[regression] belongs to method = \"regression\"",
        ));
    }
    let confirm = resolve_confirm(&raw, plies, games, loc)?;
    let mut params = resolve_params(&raw, method, loc)?;
    // An outside engine's parameters are its options, its games on a clock of the spec's.
    let (clock, options) = resolve_outside(&raw, &engine, method, &kind, &mut params, loc)?;
    let (params, option_params) = if outside {
        (Vec::new(), params)
    } else {
        (params, Vec::new())
    };
    let (mut resolved_engine, pool, mut params, features) = crate::eval::dispatch(
        &kind,
        WithGame {
            raw: &raw,
            loc,
            engine,
            pool,
            params,
            openings: opening_checks(&raw, (min_plies.unwrap_or(plies), plies), confirm.plies),
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
    Ok(ResolvedTuneSpec {
        name,
        game: kind.to_string(),
        seed,
        method,
        weights_out,
        engine: resolved_engine,
        params,
        features,
        pool,
        plies,
        min_plies,
        balance,
        iterations,
        games,
        hill,
        spsa,
        regression,
        confirm,
        clock,
        options,
    })
}

/// `weights_out`: a file name with the ending of the weights tuned (`.jpw` for a pattern
/// regression, else `.toml`), relative to the spec's folder.
fn resolve_weights_out(
    raw: &RawTuneSpec,
    loc: &Locator<'_>,
) -> Result<Option<std::path::PathBuf>, SpecError> {
    let Some(w) = &raw.weights_out else {
        return Ok(None);
    };
    let text = w.get_ref().trim();
    let (ending, example, folder) = if is_pattern_regression(raw) {
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
    Ok(Some(loc.path(text)))
}

/// `[engine]`, the engine tuned (its weights need the game: [`WithGame`]): no name, no clock
/// of its own, an algorithm that uses its weights; and whether it is an outside program.
fn tuned_engine(
    raw: &RawTuneSpec,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<(ResolvedEngine, bool), SpecError> {
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
        crate::arena::spec::outside_engine(&raw.engine, "engine", "tuned", kind, None, loc)?
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
    Ok((engine, outside))
}

/// `opponent` and the `[[pool]]` engines it plays with `opponent = "pool"` (their weights
/// need the game: [`WithGame`]).
fn resolve_pool(raw: &RawTuneSpec, loc: &Locator<'_>) -> Result<Vec<ResolvedEngine>, SpecError> {
    let pooled = raw
        .opponent
        .as_ref()
        .map(|o| {
            loc.choice_trimmed(
                o,
                "opponent",
                &[("incumbent", false), ("pool", true)],
                |other| format!("unknown opponent '{other}'; allowed: incumbent (the current best weights), pool (the [[pool]] engines)"),
            )
        })
        .transpose()?
        .unwrap_or(false);
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
        let prefix = format!("pool[{}]", i + 1);
        crate::arena::spec::no_engine_clock(e.get_ref(), &prefix, &n_text, loc)?;
        pool.push(engine_budget(e, &prefix, &n_text, false, loc)?);
        pool_names.push(n_text);
    }
    Ok(pool)
}

/// `[budget]`: `iterations` (candidates; none for regression, required by SPSA) and `games`
/// (in all), at least one of them for the methods that play candidates.
fn resolve_budget(
    raw: &RawTuneSpec,
    method: Method,
    loc: &Locator<'_>,
) -> Result<(Option<u64>, Option<u64>), SpecError> {
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
        loc.absent(b.iterations.as_ref(), "budget.iterations", || {
            "regression plays no candidates: give its self-play games and rounds in [regression], and optionally a cap on all games with budget.games".into()
        })?;
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
    Ok((iterations, games))
}

/// `[hill]` and `[sprt]`, hill climbing's settings (`[spsa]` refused).
fn resolve_hill(raw: &RawTuneSpec, seed: u64, loc: &Locator<'_>) -> Result<HillConfig, SpecError> {
    loc.absent(raw.spsa.as_ref(), "spsa", || {
        "[spsa] belongs to method = \"spsa\"".into()
    })?;
    let h = raw.hill.as_ref().map(|h| h.get_ref());
    let neighbour = h
        .and_then(|h| h.neighbour.as_ref())
        .map(|n| {
            loc.choice(
                n,
                "hill.neighbour",
                &[("single", Neighbour::Single), ("all", Neighbour::All)],
                |other| format!("unknown neighbour '{other}'; allowed: single (one parameter ± its step), all (every parameter ± its step)"),
            )
        })
        .transpose()?
        .unwrap_or(Neighbour::Single);
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
        Some(m) => loc.float_if(
            m,
            "hill.min_step",
            |v| v > 0.0 && v <= 1.0,
            |w| format!("min_step is {w}; allowed: above 0, at most 1 (a fraction of each parameter's step)"),
        )?,
    };
    let (acceptance, max_pairs) = hill_acceptance(raw, h, loc)?;
    Ok(HillConfig {
        acceptance,
        batch: batch.min(max_pairs),
        max_pairs,
        patience: patience as u32,
        min_step,
        neighbour,
        seed,
    })
}

/// Hill climbing's test of a candidate and the most pairs it plays: a fixed number
/// (`hill.pairs`) or the GSPRT of `[sprt]` (default elo0 = 0, elo1 = 10), capped by
/// `hill.max_pairs`.
fn hill_acceptance(
    raw: &RawTuneSpec,
    h: Option<&RawHill>,
    loc: &Locator<'_>,
) -> Result<(Acceptance, u64), SpecError> {
    let max_pairs = h.and_then(|h| h.max_pairs.as_ref());
    match (h.and_then(|h| h.pairs.as_ref()), &raw.sprt) {
        (Some(p), Some(s)) => Err(loc.on(
            s,
            "sprt",
            format!(
                "give either [sprt] (a sequential test) or hill.pairs = {} (a fixed-length test), not both",
                p.get_ref()
            ),
        )),
        (Some(p), None) => {
            loc.absent(max_pairs, "hill.max_pairs", || {
                "max_pairs caps a sequential test; with hill.pairs every candidate plays exactly that many".into()
            })?;
            Ok((
                Acceptance::Fixed,
                positive(p, "hill.pairs", 1_000_000, loc)?,
            ))
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
            let max_pairs = match max_pairs {
                None => 1000,
                Some(v) => positive(v, "hill.max_pairs", 1_000_000, loc)?,
            };
            Ok((Acceptance::Sprt(sprt), max_pairs))
        }
    }
}

/// `[spsa]`, SPSA's settings (`[hill]` and `[sprt]` refused); `iterations` from `[budget]`.
fn resolve_spsa(
    raw: &RawTuneSpec,
    iterations: Option<u64>,
    seed: u64,
    loc: &Locator<'_>,
) -> Result<SpsaConfig, SpecError> {
    loc.absent(raw.hill.as_ref(), "hill", || {
        "[hill] belongs to method = \"hill-climb\"".into()
    })?;
    loc.absent(raw.sprt.as_ref(), "sprt", || {
        "[sprt] is hill climbing's acceptance test; SPSA accepts no candidates, it follows the gradient".into()
    })?;
    let pairs = match raw.spsa.as_ref().and_then(|s| s.get_ref().pairs.as_ref()) {
        None => 1,
        Some(p) => positive(p, "spsa.pairs", 10_000, loc)?,
    };
    Ok(SpsaConfig {
        iterations: iterations.expect("checked above"),
        pairs,
        seed,
    })
}

/// `[regression]`, regression's settings ([`resolve_regression`]), with the exact labels a
/// random tree cannot give refused.
fn regression_settings(
    raw: &RawTuneSpec,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<RegressionConfig, SpecError> {
    let regression = resolve_regression(raw, kind, loc)?;
    if let (GameKind::RandomTree { .. }, Some(table)) = (kind, &raw.regression) {
        loc.absent(
            table.get_ref().exact_labels.as_ref(),
            "regression.exact_labels",
            || "a random tree has no exact solver; exact_labels is for othello, connect4 and morpion".into(),
        )?;
    }
    Ok(regression)
}

/// `[confirm]`: the confirmation's games, the A/A match's and the held-out openings' plies
/// (default: the tuning openings' `plies`), which must leave games for tuning in
/// `budget.games`.
fn resolve_confirm(
    raw: &RawTuneSpec,
    plies: u32,
    games: Option<u64>,
    loc: &Locator<'_>,
) -> Result<Confirm, SpecError> {
    let c = raw.confirm.get_ref();
    let confirm_games = even_games(&c.games, "confirm.games", loc)?;
    let aa_games = match &c.aa_games {
        None => 0,
        Some(a) if *a.get_ref() == 0 => 0,
        Some(a) => even_games(a, "confirm.aa_games", loc)?,
    };
    let confirm_plies = match &c.plies {
        None => plies,
        Some(p) => opening_plies(p, "confirm.plies", loc)?,
    };
    let budget_games = raw.budget.as_ref().and_then(|b| b.get_ref().games.as_ref());
    if let (Some(g), Some(total)) = (budget_games, games)
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
    Ok(Confirm {
        games: confirm_games,
        aa_games,
        plies: confirm_plies,
    })
}

/// The `[[param]]` tables (none for regression, which tunes every feature): names checked
/// against the game's features with the game ([`WithGame`]), the bounds, steps and SPSA's
/// `c_end` and `r_end` here.
fn resolve_params(
    raw: &RawTuneSpec,
    method: Method,
    loc: &Locator<'_>,
) -> Result<Vec<Param>, SpecError> {
    if raw.param.is_empty() && method != Method::Regression {
        return Err(loc.on(
            &raw.engine,
            "param",
            "no [[param]] tables: name the features to tune, each with min, max and step",
        ));
    }
    let mut params: Vec<Param> = Vec::new();
    for (i, p) in raw.param.iter().enumerate() {
        let r = p.get_ref();
        let n = r.name.get_ref().trim().to_string();
        if params.iter().any(|q| q.name == n) {
            return Err(loc.on(
                &r.name,
                &format!("param[{}].name", i + 1),
                format!("'{n}' is tuned twice; each feature may appear once"),
            ));
        }
        params.push(resolve_param(r, i, n, method, loc)?);
    }
    Ok(params)
}

/// The `i`-th `[[param]]` table, named `n`: `min` < `max`, a `step` that fits between them,
/// the optional `c_end` and `r_end` (SPSA's).
fn resolve_param(
    r: &RawParam,
    i: usize,
    n: String,
    method: Method,
    loc: &Locator<'_>,
) -> Result<Param, SpecError> {
    let key = |k: &str| format!("param[{}].{k}", i + 1);
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
            // c_end is a perturbation of the parameter, r_end a learning rate.
            let most = if k == "c_end" { max - min } else { 1.0 };
            let x = loc.float_if(
                v,
                &key(k),
                |x| x.is_finite() && x > 0.0 && x <= most,
                |w| {
                    format!(
                        "parameter '{n}': {k} is {w}; allowed: above 0, at most {}",
                        number_text(most)
                    )
                },
            )?;
            if method != Method::Spsa {
                return Err(loc.on(v, &key(k), format!("{k} belongs to method = \"spsa\"")));
            }
            *slot = Some(x);
        }
    }
    Ok(param)
}

/// The opening lengths whose supply the game must check ([`WithGame`]): the tuning openings'
/// `plies`, and the confirmation's when it gives other plies.
fn opening_checks(
    raw: &RawTuneSpec,
    (min_plies, plies): (u32, u32),
    confirm_plies: u32,
) -> Vec<((u32, u32), usize, &'static str)> {
    let o = raw.openings.get_ref();
    let mut list = vec![((min_plies, plies), o.plies.span().start, "openings.plies")];
    if let Some(p) = &raw.confirm.get_ref().plies
        && (confirm_plies != plies || min_plies != plies)
    {
        list.push((
            (confirm_plies, confirm_plies),
            p.span().start,
            "confirm.plies",
        ));
    }
    list
}

/// What needs the game: weights (engine, pool), the parameters' features and starts, and the
/// openings' supply.
struct WithGame<'a, 'b> {
    raw: &'b RawTuneSpec,
    loc: &'b Locator<'a>,
    engine: ResolvedEngine,
    pool: Vec<ResolvedEngine>,
    params: Vec<Param>,
    /// The opening lengths to check: ((shortest, longest), where, key).
    openings: Vec<((u32, u32), usize, &'static str)>,
    seed: u64,
    balance: Balance,
    /// Regression: every feature is a parameter.
    regression: bool,
}

/// The engine tuned, its pool, the parameters and each one's feature.
type WithGameOutput = (ResolvedEngine, Vec<ResolvedEngine>, Vec<Param>, Vec<usize>);

impl FeaturesVisitor for WithGame<'_, '_> {
    type Output = Result<WithGameOutput, SpecError>;
    fn visit<G: Features>(mut self, start: G) -> Self::Output {
        let names: Vec<String> = start.features().iter().map(|f| f.name.clone()).collect();
        let w = self.engine_weights(&start, &names)?;
        let features = if self.regression {
            // Every feature, within the bounds weights files allow.
            let most = crate::eval::weights::MAX_WEIGHT;
            self.params = names
                .iter()
                .zip(&w)
                .map(|(n, &v)| Param::new(n.clone(), v, -most, most, 1.0))
                .collect();
            (0..names.len()).collect()
        } else {
            self.param_features(&start, &names, &w)?
        };
        self.opening_supply(start)?;
        Ok((self.engine, self.pool, self.params, features))
    }
}

impl WithGame<'_, '_> {
    /// Loads the weights of the engine tuned (one vector: not tapered) and of the pool, and
    /// gives them their default `exact`; the start's values.
    fn engine_weights<G: Features>(
        &mut self,
        start: &G,
        names: &[String],
    ) -> Result<Vec<f64>, SpecError> {
        let w = resolve_weights(
            start,
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
        default_exact(start, self.raw.engine.get_ref(), &mut self.engine);
        for (i, e) in self.raw.pool.iter().enumerate() {
            default_exact(start, e.get_ref(), &mut self.pool[i]);
            let key = format!("pool[{}].weights", i + 1);
            let pw = resolve_weights(start, e.get_ref().weights_value(), &key, self.loc)?;
            self.pool[i].weights_origin = pw.origin.clone();
            self.pool[i].weights = names.iter().cloned().zip(pw.values).collect();
        }
        Ok(w.values)
    }

    /// Each parameter's feature among `names`, its start the weight `w` gives it, within its
    /// bounds.
    fn param_features<G: Features>(
        &mut self,
        start: &G,
        names: &[String],
        w: &[f64],
    ) -> Result<Vec<usize>, SpecError> {
        let origin = &self.engine.weights_origin;
        let mut features = Vec::new();
        for (i, p) in self.params.iter_mut().enumerate() {
            let at = &self.raw.param[i].get_ref().name;
            let key = format!("param[{}].name", i + 1);
            let Some(f) = names.iter().position(|n| *n == p.name) else {
                return Err(self.loc.on(
                    at,
                    &key,
                    format!(
                        "'{}' is not a feature of {}; allowed: {}",
                        p.name,
                        start.name(),
                        names.join(", ")
                    ),
                ));
            };
            let value = w[f];
            if value < p.min || value > p.max {
                return Err(self.loc.on(
                    at,
                    &key,
                    format!(
                        "the start weights ({origin}) give '{}' = {}, outside [min, max] = [{}, {}]; widen the bounds",
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
        Ok(features)
    }

    /// Tuning plays every pair from a fresh opening: the plies must give many.
    fn opening_supply<G: Features>(&self, start: G) -> Result<(), SpecError> {
        for &((min_plies, plies), span, key) in &self.openings {
            let mut stream = OpeningStream::new(start, plies, self.seed, self.balance.clone())
                .with_min_plies(min_plies);
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
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::arena::spec::TournamentSpec;

    /// Random openings' keys are resolved by the same functions in both kinds of spec: the
    /// same bad value is refused with the same key and message.
    #[test]
    fn random_openings_are_refused_alike_in_tournament_and_tuning_specs() {
        for (key, value, message) in [
            ("plies", "201", "plies is 201; allowed: 0..=200"),
            (
                "balance_depth",
                "9",
                "balance_depth is 9; allowed: 0..=8 (0 turns the check off)",
            ),
            (
                "max_imbalance",
                "-1.5",
                "max_imbalance is -1.5; it must be a positive number (in weight units) or inf",
            ),
            (
                "max_imbalance",
                "nan",
                "max_imbalance is nan; it must be a positive number (in weight units) or inf",
            ),
        ] {
            let keys = if key == "plies" {
                format!("plies = {value}")
            } else {
                format!("plies = 2, {key} = {value}")
            };
            let tournament = format!(
                "name = \"t\"\ngame = \"connect4\"\nseed = 1\nopenings = {{ {keys}, count = 2 }}\n\n[[engine]]\nname = \"a\"\nalgorithm = \"random\"\n\n[[engine]]\nname = \"b\"\nalgorithm = \"random\"\n"
            );
            let tuning = format!(
                "name = \"t\"\ngame = \"connect4\"\nseed = 1\nmethod = \"spsa\"\nopenings = {{ {keys} }}\n\n[engine]\nalgorithm = \"alphabeta\"\ndepth = 1\n\n[budget]\niterations = 10\n\n[confirm]\ngames = 2\n"
            );
            let t = TournamentSpec::parse(&tournament, "t.toml").unwrap_err();
            let u = super::super::parse(&tuning, "u.toml").unwrap_err();
            let expected_key = format!("openings.{key}");
            assert_eq!(
                (t.key.as_str(), t.message.as_str()),
                (expected_key.as_str(), message)
            );
            assert_eq!(
                (u.key.as_str(), u.message.as_str()),
                (expected_key.as_str(), message)
            );
        }
    }

    /// `openings.min_plies`: at most `plies`, named with its line and column when not; absent,
    /// the spec (and so its hash) is as before; set, it is in the canonical form.
    #[test]
    fn min_plies_is_bounded_by_plies_and_left_out_of_the_hash_when_absent() {
        let spec = |openings: &str| {
            format!(
                "name = \"t\"\ngame = \"othello\"\nseed = 1\nmethod = \"regression\"\n{openings}\n\n[engine]\nalgorithm = \"alphabeta\"\ndepth = 1\n\n[regression]\ngames = 10\n\n[confirm]\ngames = 2\n"
            )
        };
        let err = super::super::parse(&spec("openings = { plies = 10, min_plies = 11 }"), "u.toml")
            .unwrap_err();
        assert_eq!(err.key, "openings.min_plies");
        assert_eq!(
            err.message,
            "min_plies is 11; allowed: 0..=10 (at most openings.plies)"
        );
        assert_eq!((err.line, err.column), (5, 38), "{err:?}");
        let fixed = super::super::parse(&spec("openings = { plies = 10 }"), "u.toml").unwrap();
        let varied =
            super::super::parse(&spec("openings = { plies = 10, min_plies = 2 }"), "u.toml")
                .unwrap();
        assert_eq!((fixed.min_plies, varied.min_plies), (None, Some(2)));
        let form = |s: &super::super::ResolvedTuneSpec| serde_json::to_string(s).unwrap();
        assert!(!form(&fixed).contains("min_plies"));
        assert!(form(&varied).contains("\"min_plies\":2"));
    }

    /// `regression.counts`: absent or true, the counts are fitted and the spec's form (and so
    /// its hash) is as before the key; false holds them, in the form. `fit_iterations` alike.
    #[test]
    fn counts_and_fit_iterations_are_left_out_of_the_hash_at_their_defaults() {
        let spec = |extra: &str| {
            format!(
                "name = \"t\"\ngame = \"othello\"\nseed = 1\nmethod = \"regression\"\nopenings = {{ plies = 8 }}\n\n[engine]\nalgorithm = \"alphabeta\"\ndepth = 1\n\n[regression]\ngames = 10\nevaluation = \"patterns\"\n{extra}\n[confirm]\ngames = 2\n"
            )
        };
        let parse = |extra: &str| super::super::parse(&spec(extra), "u.toml").unwrap();
        let (absent, fitted, held) = (parse(""), parse("counts = true"), parse("counts = false"));
        let counts = |s: &super::super::ResolvedTuneSpec| s.patterns().unwrap().counts;
        assert_eq!(
            (counts(&absent), counts(&fitted), counts(&held)),
            (true, true, false)
        );
        let form = |s: &super::super::ResolvedTuneSpec| serde_json::to_string(s).unwrap();
        assert_eq!(form(&absent), form(&fitted));
        assert!(!form(&absent).contains("counts"));
        assert!(form(&held).contains("\"counts\":false"));
        assert_ne!(absent.hash(), held.hash());
        // `fit_iterations`: the default is left out of the form, another value is in it.
        let (default, more) = (
            parse("fit_iterations = 300"),
            parse("fit_iterations = 2000"),
        );
        let iterations = |s: &super::super::ResolvedTuneSpec| s.patterns().unwrap().fit_iterations;
        assert_eq!(
            (iterations(&absent), iterations(&default), iterations(&more)),
            (300, 300, 2000)
        );
        assert_eq!(form(&absent), form(&default));
        assert!(form(&more).contains("\"fit_iterations\":2000"));
        // `margin_labels`: absent, results (and the form as before); given, in the form.
        let margins = parse("margin_labels = 8");
        let scale = |s: &super::super::ResolvedTuneSpec| s.patterns().unwrap().margin_labels;
        assert_eq!((scale(&absent), scale(&margins)), (None, Some(8.0)));
        assert!(!form(&absent).contains("margin_labels"));
        assert!(form(&margins).contains("\"margin_labels\":8.0"));
        assert_ne!(absent.hash(), margins.hash());
    }
}

//! `[regression]` resolved: the regression run's keys, its pattern evaluation's and its
//! search labels', and what regression refuses of the other methods' keys.

use std::ops::RangeInclusive;

use super::*;
use crate::tune::fit::regression::MAX_MARGIN_SCALE;

/// `[regression]`, and what regression refuses of the other methods' keys.
pub(super) fn resolve_regression(
    raw: &RawTuneSpec,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<RegressionConfig, SpecError> {
    refuse_candidates(raw, loc)?;
    let Some(table) = &raw.regression else {
        return Err(loc.on(
            &raw.method,
            "regression",
            "method = \"regression\" needs a [regression] table with games = N, the self-play games of each round",
        ));
    };
    let r = table.get_ref();
    let games = positive(&r.games, "regression.games", MAX_TUNE_GAMES, loc)?;
    let rounds = match &r.rounds {
        None => 1,
        Some(v) => positive(v, "regression.rounds", 100, loc)? as u32,
    };
    let skip_plies = loc.int_or(
        r.skip_plies.as_ref(),
        0,
        "regression.skip_plies",
        0..=1000,
        |v| format!("skip_plies is {v}; allowed: 0..=1000"),
    )?;
    let max_per_game = match &r.max_per_game {
        None => None,
        Some(v) => Some(positive(v, "regression.max_per_game", 100_000, loc)? as usize),
    };
    let lambda = match &r.lambda {
        None => crate::tune::fit::regression::DEFAULT_LAMBDA,
        Some(v) => loc.float_in(
            v,
            "regression.lambda",
            0.0..=crate::tune::fit::regression::MAX_LAMBDA,
            |w| format!("lambda is {w}; allowed: 0 (no ridge) to 1e6"),
        )?,
    };
    let exact_labels = match &r.exact_labels {
        None => None,
        Some(v) => Some(positive(v, "regression.exact_labels", MAX_EXACT_LABELS, loc)? as u32),
    };
    let patterns = resolve_patterns(r, kind, loc)?;
    Ok(RegressionConfig {
        games,
        rounds,
        skip_plies,
        max_per_game,
        lambda,
        taper: r.taper.as_ref().is_some_and(|t| *t.get_ref()),
        exact_labels,
        patterns,
    })
}

/// Refuses what only the methods that play candidates take: `[hill]`, `[sprt]`, `[spsa]`,
/// `opponent` and the `[[param]]` tables.
fn refuse_candidates(raw: &RawTuneSpec, loc: &Locator<'_>) -> Result<(), SpecError> {
    let belongs =
        |what: &str| format!("[{what}] belongs to another method; regression plays no candidates");
    loc.absent(raw.hill.as_ref(), "hill", || belongs("hill"))?;
    loc.absent(raw.sprt.as_ref(), "sprt", || belongs("sprt"))?;
    loc.absent(raw.spsa.as_ref(), "spsa", || belongs("spsa"))?;
    loc.absent(raw.opponent.as_ref(), "opponent", || {
        "regression plays no candidates, so it has no opponents: it fits the weights to the results of self-play games".into()
    })?;
    loc.absent(raw.param.first(), "param", || {
        "regression fits every feature of the evaluation at once; remove the [[param]] tables"
            .into()
    })
}

/// The pattern fit's keys of `[regression]` (`evaluation = "patterns"`), and the refusal of
/// each of them without it, and of the linear fit's keys with it.
fn resolve_patterns(
    r: &RawRegression,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<Option<PatternRegression>, SpecError> {
    let Some(evaluation) = &r.evaluation else {
        return refuse_pattern_keys(r, loc).map(|()| None);
    };
    let patterns = loc.choice_trimmed(
        evaluation,
        "regression.evaluation",
        &[("linear", false), ("patterns", true)],
        |other| format!("unknown evaluation '{other}'; allowed: linear (the features' weights), patterns (Othello's pattern evaluation)"),
    )?;
    if !patterns {
        return refuse_pattern_keys(r, loc).map(|()| None);
    }
    if *kind != GameKind::Othello {
        return Err(loc.on(
            evaluation,
            "regression.evaluation",
            format!("the pattern evaluation is Othello's, not {kind}'s; remove evaluation = \"patterns\""),
        ));
    }
    loc.absent(r.taper.as_ref(), "regression.taper", || {
        "taper is the linear fit's; the pattern weights have phases instead (regression.phases)"
            .into()
    })?;
    loc.absent(r.lambda.as_ref(), "regression.lambda", || {
        "lambda is the linear fit's ridge; the pattern fit's is regression.ridge, in positions"
            .into()
    })?;
    let ranged = |v: Option<&Spanned<i64>>, key: &str, range: RangeInclusive<i64>, default| {
        let (first, last) = (*range.start(), *range.end());
        loc.int_or(v, default, key, range, |v| {
            format!("{key} is {v}; allowed: {first}..={last}")
        })
    };
    let phases = ranged(
        r.phases.as_ref(),
        "regression.phases",
        1..=crate::eval::pattern::MAX_PHASES as i64,
        DEFAULT_PATTERN_PHASES,
    )?;
    let overlap = ranged(
        r.phase_overlap.as_ref(),
        "regression.phase_overlap",
        0..=59,
        0,
    )?;
    let ridge = match &r.ridge {
        None => crate::tune::fit::pattern_fit::DEFAULT_PATTERN_RIDGE,
        Some(v) => loc.float_in(v, "regression.ridge", 0.0..=1e9, |w| {
            format!("ridge is {w}; allowed: 0 (no ridge) to 1e9 positions")
        })?,
    };
    let start = r
        .start
        .as_ref()
        .map(|s| pattern_start(s, loc))
        .transpose()?;
    let search = search_labels(r, loc)?;
    let fit_iterations = ranged(
        r.fit_iterations.as_ref(),
        "regression.fit_iterations",
        1..=crate::tune::fit::pattern_fit::MAX_ITERATIONS as i64,
        crate::tune::fit::pattern_fit::DEFAULT_MAX_ITERATIONS,
    )?;
    Ok(Some(PatternRegression {
        phases,
        overlap,
        ridge,
        start,
        search,
        counts: r.counts.as_ref().is_none_or(|c| *c.get_ref()),
        fit_iterations,
        margin_labels: margin_labels(r, loc)?,
    }))
}

/// `[regression] margin_labels`: the scale S of the labels σ(m / S), in discs.
fn margin_labels(r: &RawRegression, loc: &Locator<'_>) -> Result<Option<f64>, SpecError> {
    r.margin_labels
        .as_ref()
        .map(|m| {
            loc.float_if(
                m,
                "regression.margin_labels",
                |x| x > 0.0 && x <= MAX_MARGIN_SCALE,
                |w| {
                    format!(
                        "margin_labels is {w}; allowed: above 0 and at most {MAX_MARGIN_SCALE} (discs)"
                    )
                },
            )
        })
        .transpose()
}

/// Refuses the pattern fit's keys in a linear fit's `[regression]`.
fn refuse_pattern_keys(r: &RawRegression, loc: &Locator<'_>) -> Result<(), SpecError> {
    let belongs = |key: &str| {
        format!(
            "{key} belongs to evaluation = \"patterns\" (Othello's pattern evaluation); the linear fit has no such setting"
        )
    };
    let refuse = |span: Option<std::ops::Range<usize>>, key: &str| match span {
        Some(span) => Err(loc.at(span.start, key, belongs(key))),
        None => Ok(()),
    };
    refuse(r.phases.as_ref().map(Spanned::span), "regression.phases")?;
    refuse(
        r.phase_overlap.as_ref().map(Spanned::span),
        "regression.phase_overlap",
    )?;
    refuse(r.ridge.as_ref().map(Spanned::span), "regression.ridge")?;
    refuse(r.start.as_ref().map(Spanned::span), "regression.start")?;
    refuse(
        r.search_labels.as_ref().map(Spanned::span),
        "regression.search_labels",
    )?;
    refuse(
        r.search_mix.as_ref().map(Spanned::span),
        "regression.search_mix",
    )?;
    refuse(r.counts.as_ref().map(Spanned::span), "regression.counts")?;
    refuse(
        r.fit_iterations.as_ref().map(Spanned::span),
        "regression.fit_iterations",
    )?;
    refuse(
        r.margin_labels.as_ref().map(Spanned::span),
        "regression.margin_labels",
    )
}

/// `[regression] start`: a pattern weights file, relative to the spec's folder.
fn pattern_start(s: &Spanned<String>, loc: &Locator<'_>) -> Result<PatternsFile, SpecError> {
    let path = loc.path(s.get_ref().trim());
    if !crate::eval::pattern::PatternWeights::is_pattern_file(&path) {
        return Err(loc.on(
            s,
            "regression.start",
            format!("{} is not a pattern weights file (.jpw or its CSV); the linear start is engine.weights", path.display()),
        ));
    }
    let (shared, weights) = crate::arena::engine::SharedPatterns::load(&path)
        .map_err(|e| loc.on(s, "regression.start", e.to_string()))?;
    Ok(PatternsFile::new(
        &path.display().to_string(),
        &weights,
        shared,
    ))
}

/// `[regression] search_labels` (the labelling search's depth) and `search_mix` (its share,
/// which needs the depth).
fn search_labels(
    r: &RawRegression,
    loc: &Locator<'_>,
) -> Result<Option<SearchLabelConfig>, SpecError> {
    let Some(depth) = &r.search_labels else {
        loc.absent(r.search_mix.as_ref(), "regression.search_mix", || {
            "search_mix is the share of the search labels: give search_labels = DEPTH with it"
                .into()
        })?;
        return Ok(None);
    };
    let max = crate::search::MAX_DEPTH as i64;
    let depth = loc.int_in(depth, "regression.search_labels", 1..=max, |v| {
        format!("regression.search_labels is {v}; allowed: 1..={max}")
    })?;
    let mix = match &r.search_mix {
        None => 1.0,
        Some(m) => loc.float_if(
            m,
            "regression.search_mix",
            |x| x > 0.0 && x <= 1.0,
            |w| format!("search_mix is {w}; allowed: above 0 and at most 1 (1: the search's label alone)"),
        )?,
    };
    Ok(Some(SearchLabelConfig { depth, mix }))
}

/// Whether the spec asks for a regression of the pattern evaluation (before it is validated).
pub(super) fn is_pattern_regression(raw: &RawTuneSpec) -> bool {
    raw.method.get_ref().trim() == "regression"
        && raw
            .regression
            .as_ref()
            .and_then(|r| r.get_ref().evaluation.as_ref())
            .is_some_and(|e| e.get_ref().trim() == "patterns")
}

//! `[regression]` resolved: the regression run's keys, its pattern evaluation's and its
//! search labels', and what regression refuses of the other methods' keys.

use super::*;

/// `[regression]`, and what regression refuses of the other methods' keys.
pub(super) fn resolve_regression(
    raw: &RawTuneSpec,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<RegressionConfig, SpecError> {
    let belongs =
        |what: &str| format!("[{what}] belongs to another method; regression plays no candidates");
    if let Some(h) = &raw.hill {
        return Err(loc.on(h, "hill", belongs("hill")));
    }
    if let Some(s) = &raw.sprt {
        return Err(loc.on(s, "sprt", belongs("sprt")));
    }
    if let Some(s) = &raw.spsa {
        return Err(loc.on(s, "spsa", belongs("spsa")));
    }
    if let Some(o) = &raw.opponent {
        return Err(loc.on(
            o,
            "opponent",
            "regression plays no candidates, so it has no opponents: it fits the weights to the results of self-play games",
        ));
    }
    if let Some(p) = raw.param.first() {
        return Err(loc.on(
            p,
            "param",
            "regression fits every feature of the evaluation at once; remove the [[param]] tables",
        ));
    }
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
    let skip_plies = match &r.skip_plies {
        None => 0,
        Some(v) if (0..=1000).contains(v.get_ref()) => *v.get_ref() as usize,
        Some(v) => {
            return Err(loc.on(
                v,
                "regression.skip_plies",
                format!("skip_plies is {}; allowed: 0..=1000", v.get_ref()),
            ));
        }
    };
    let max_per_game = match &r.max_per_game {
        None => None,
        Some(v) => Some(positive(v, "regression.max_per_game", 100_000, loc)? as usize),
    };
    let lambda = match &r.lambda {
        None => crate::tune::fit::regression::DEFAULT_LAMBDA,
        Some(v) => {
            let x = *v.get_ref();
            if !(0.0..=crate::tune::fit::regression::MAX_LAMBDA).contains(&x) {
                return Err(loc.on(
                    v,
                    "regression.lambda",
                    format!("lambda is {}; allowed: 0 (no ridge) to 1e6", loc.written(v)),
                ));
            }
            x
        }
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

/// The pattern fit's keys of `[regression]` (`evaluation = "patterns"`), and the refusal of
/// each of them without it, and of the linear fit's keys with it.
fn resolve_patterns(
    r: &RawRegression,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<Option<PatternRegression>, SpecError> {
    let patterns = match &r.evaluation {
        None => false,
        Some(e) => match e.get_ref().trim() {
            "linear" => false,
            "patterns" => true,
            other => {
                return Err(loc.on(
                    e,
                    "regression.evaluation",
                    format!("unknown evaluation '{other}'; allowed: linear (the features' weights), patterns (Othello's pattern evaluation)"),
                ));
            }
        },
    };
    if !patterns {
        let at = |v: &dyn Fn() -> Option<std::ops::Range<usize>>, key: &str| {
            match v() {
            Some(span) => Err(loc.at(
                span.start,
                key,
                format!("{key} belongs to evaluation = \"patterns\" (Othello's pattern evaluation); the linear fit has no such setting"),
            )),
            None => Ok(()),
        }
        };
        at(
            &|| r.phases.as_ref().map(Spanned::span),
            "regression.phases",
        )?;
        at(
            &|| r.phase_overlap.as_ref().map(Spanned::span),
            "regression.phase_overlap",
        )?;
        at(&|| r.ridge.as_ref().map(Spanned::span), "regression.ridge")?;
        at(&|| r.start.as_ref().map(Spanned::span), "regression.start")?;
        at(
            &|| r.search_labels.as_ref().map(Spanned::span),
            "regression.search_labels",
        )?;
        at(
            &|| r.search_mix.as_ref().map(Spanned::span),
            "regression.search_mix",
        )?;
        return Ok(None);
    }
    let evaluation = r.evaluation.as_ref().expect("given");
    if *kind != GameKind::Othello {
        return Err(loc.on(
            evaluation,
            "regression.evaluation",
            format!("the pattern evaluation is Othello's, not {kind}'s; remove evaluation = \"patterns\""),
        ));
    }
    if let Some(t) = &r.taper {
        return Err(loc.on(
            t,
            "regression.taper",
            "taper is the linear fit's; the pattern weights have phases instead (regression.phases)",
        ));
    }
    if let Some(l) = &r.lambda {
        return Err(loc.on(
            l,
            "regression.lambda",
            "lambda is the linear fit's ridge; the pattern fit's is regression.ridge, in positions",
        ));
    }
    let ranged = |v: &Option<Spanned<i64>>,
                  key: &str,
                  range: std::ops::RangeInclusive<i64>,
                  default: usize| match v {
        None => Ok(default),
        Some(v) if range.contains(v.get_ref()) => Ok(*v.get_ref() as usize),
        Some(v) => Err(loc.on(
            v,
            key,
            format!(
                "{key} is {}; allowed: {}..={}",
                v.get_ref(),
                range.start(),
                range.end()
            ),
        )),
    };
    let phases = ranged(
        &r.phases,
        "regression.phases",
        1..=crate::eval::pattern::MAX_PHASES as i64,
        DEFAULT_PATTERN_PHASES,
    )?;
    let overlap = ranged(&r.phase_overlap, "regression.phase_overlap", 0..=59, 0)?;
    let ridge = match &r.ridge {
        None => crate::tune::fit::pattern_fit::DEFAULT_PATTERN_RIDGE,
        Some(v) if (0.0..=1e9).contains(v.get_ref()) => *v.get_ref(),
        Some(v) => {
            return Err(loc.on(
                v,
                "regression.ridge",
                format!(
                    "ridge is {}; allowed: 0 (no ridge) to 1e9 positions",
                    loc.written(v)
                ),
            ));
        }
    };
    let start = match &r.start {
        None => None,
        Some(s) => {
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
            Some(PatternsFile::new(
                &path.display().to_string(),
                &weights,
                shared,
            ))
        }
    };
    let search = match (&r.search_labels, &r.search_mix) {
        (None, None) => None,
        (None, Some(m)) => {
            return Err(loc.on(
                m,
                "regression.search_mix",
                "search_mix is the share of the search labels: give search_labels = DEPTH with it",
            ));
        }
        (Some(_), mix) => {
            let depth = ranged(
                &r.search_labels,
                "regression.search_labels",
                1..=crate::search::MAX_DEPTH as i64,
                0,
            )?;
            let mix = match mix {
                None => 1.0,
                Some(m) if *m.get_ref() > 0.0 && *m.get_ref() <= 1.0 => *m.get_ref(),
                Some(m) => {
                    return Err(loc.on(
                        m,
                        "regression.search_mix",
                        format!(
                            "search_mix is {}; allowed: above 0 and at most 1 (1: the search's label alone)",
                            loc.written(m)
                        ),
                    ));
                }
            };
            Some(SearchLabelConfig {
                depth: depth as u32,
                mix,
            })
        }
    };
    Ok(Some(PatternRegression {
        phases,
        overlap,
        ridge,
        start,
        search,
    }))
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

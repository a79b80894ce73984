//! What an outside engine adds to a tuning spec: its clock and each parameter's option.

use super::*;

/// What an outside engine (`[engine]` with `command`) adds to a tuning spec, and what a
/// built-in engine refuses: the clock (`tc`, `st`, `timemargin`, as in tournaments) and each
/// parameter's option — its start from `start`, else from the engine's `options` (required one
/// way or the other), rounded when `integer = true`. Sets the parameters' values (the start).
pub(super) fn resolve_outside(
    raw: &RawTuneSpec,
    engine: &ResolvedEngine,
    method: Method,
    kind: &GameKind,
    params: &mut [Param],
    loc: &Locator<'_>,
) -> Result<(Option<ResolvedClock>, Vec<TunedOption>), SpecError> {
    let Some(program) = &engine.outside else {
        return refuse_outside_keys(raw, loc).map(|()| (None, Vec::new()));
    };
    if !matches!(method, Method::HillClimb | Method::Spsa) {
        return Err(loc.on(
            &raw.method,
            "method",
            format!(
                "an outside engine's options are tuned by hill-climb or spsa; method = \"{}\" fits joute's own evaluation weights",
                method.name()
            ),
        ));
    }
    let clock = tuning_clock(raw, loc)?;
    struct FeatureNames;
    impl FeaturesVisitor for FeatureNames {
        type Output = Vec<String>;
        fn visit<G: Features>(self, start: G) -> Vec<String> {
            start.features().iter().map(|f| f.name.clone()).collect()
        }
    }
    let features = crate::eval::dispatch(kind, FeatureNames);
    let mut options = Vec::new();
    for (i, p) in params.iter_mut().enumerate() {
        let r = raw.param[i].get_ref();
        crate::arena::spec::check_option(program.protocol, &p.name, "0")
            .map_err(|m| loc.on(&r.name, &format!("param[{}].name", i + 1), m))?;
        p.value = option_start(raw, i, p, program, &features, kind, loc)?;
        options.push(TunedOption {
            name: p.name.clone(),
            integer: r.integer.as_ref().is_some_and(|b| *b.get_ref()),
        });
    }
    Ok((clock, options))
}

/// The clock keys a built-in engine refuses, with their values.
fn clock_keys(raw: &RawTuneSpec) -> [(&'static str, &Option<Spanned<String>>); 3] {
    [
        ("tc", &raw.tc),
        ("st", &raw.st),
        ("timemargin", &raw.timemargin),
    ]
}

/// Refuses an outside engine's keys with a built-in engine: the clock, and the parameters'
/// `start` and `integer`.
fn refuse_outside_keys(raw: &RawTuneSpec, loc: &Locator<'_>) -> Result<(), SpecError> {
    for (k, v) in clock_keys(raw) {
        loc.absent(v.as_ref(), k, || {
            format!("{k} is the clock of an outside engine's games (command = ...); a built-in engine is tuned at its own budget: depth, nodes or time in [engine]")
        })?;
    }
    for (i, p) in raw.param.iter().enumerate() {
        let r = p.get_ref();
        loc.absent(r.start.as_ref(), &format!("param[{}].start", i + 1), || {
            "start belongs to an outside engine's option (command = ...); a built-in engine's parameters start at its weights (engine.weights)".into()
        })?;
        loc.absent(r.integer.as_ref(), &format!("param[{}].integer", i + 1), || {
            "integer belongs to an outside engine's option (command = ...); a built-in engine's weights are any numbers".into()
        })?;
    }
    Ok(())
}

/// The clock of an outside engine's games: `tc`, `st` and `timemargin` at the top.
fn tuning_clock(raw: &RawTuneSpec, loc: &Locator<'_>) -> Result<Option<ResolvedClock>, SpecError> {
    fn text(v: &Option<Spanned<String>>) -> Option<&str> {
        v.as_ref().map(|v| v.get_ref().as_str())
    }
    let at = |key: &str| {
        let given = clock_keys(raw).into_iter().find(|(k, _)| *k == key);
        given
            .and_then(|(_, v)| v.as_ref())
            .map_or(0, |v| v.span().start)
    };
    let clock = crate::arena::spec::clock_of(text(&raw.tc), text(&raw.st), text(&raw.timemargin));
    clock.map_err(|(key, m)| loc.at(at(key), key, m))
}

/// The start of the `i`-th parameter `p`, an option of `program`: its `start`, or the number
/// the engine's `options` give it; within its bounds. `features`: the game's own features,
/// named in the error when a parameter is one of them.
fn option_start(
    raw: &RawTuneSpec,
    i: usize,
    p: &Param,
    program: &crate::arena::outside::OutsideSpec,
    features: &[String],
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<f64, SpecError> {
    let r = raw.param[i].get_ref();
    let key = |k: &str| format!("param[{}].{k}", i + 1);
    let n = &p.name;
    let value = match (&r.start, program.options.get(n)) {
        (Some(v), _) => *v.get_ref(),
        (None, Some(text)) => text.trim().parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| {
            loc.on(
                &raw.engine,
                &format!("engine.options.{n}"),
                format!("option '{n}' is '{text}', not a number, so it cannot be tuned from there; give param[{}].start = N", i + 1),
            )
        })?,
        (None, None) if features.contains(n) => {
            return Err(loc.on(
                &r.name,
                &key("name"),
                format!("'{n}' is a feature of joute's own evaluation of {kind}, which an outside program does not use; an outside engine's parameters are its options: name one, with start = N or its value in engine.options"),
            ));
        }
        (None, None) => {
            return Err(loc.on(
                &r.name,
                &key("name"),
                format!("option '{n}' has no start: give start = N, or its value in the engine's options = {{ {n} = N }}"),
            ));
        }
    };
    if value < p.min || value > p.max {
        let (at, k) = match &r.start {
            Some(v) => (v.span().start, "start"),
            None => (r.name.span().start, "name"),
        };
        return Err(loc.at(
            at,
            &key(k),
            format!(
                "option '{n}' starts at {}, outside [min, max] = [{}, {}]; widen the bounds",
                number_text(value),
                number_text(p.min),
                number_text(p.max)
            ),
        ));
    }
    Ok(value)
}

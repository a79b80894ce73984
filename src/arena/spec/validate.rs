//! Validation and resolution: a [`RawSpec`] checked key by key and turned into a
//! [`TournamentSpec`] — engines and their budgets, weights, openings, the SPRT.

use super::*;

/// Checks an engine's name: non-empty, short, without commas or control characters.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name.chars().any(|c| c.is_control() || c == ',')
        || name.chars().count() > MAX_NAME_CHARS
    {
        return Err(format!(
            "an engine name must be non-empty, at most {MAX_NAME_CHARS} characters, without commas or control characters"
        ));
    }
    Ok(())
}

/// Validates a spec's `name` (a folder name) and `game`.
pub(crate) fn name_and_game(
    name: &Spanned<String>,
    game: &Spanned<String>,
    loc: &Locator<'_>,
) -> Result<(String, GameKind), SpecError> {
    let text = name.get_ref().trim().to_string();
    if text.is_empty()
        || text
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_control())
        || text == "."
        || text == ".."
        || text.chars().count() > MAX_NAME_CHARS
    {
        return Err(loc.on(
            name,
            "name",
            format!("the name must be non-empty, at most {MAX_NAME_CHARS} characters and usable as a folder name (no '/', '\\' or control characters)"),
        ));
    }
    let kind = GameKind::parse(game.get_ref()).map_err(|e| loc.on(game, "game", e.to_string()))?;
    Ok((text, kind))
}

pub(super) fn validate(raw: RawSpec, loc: &Locator<'_>) -> Result<TournamentSpec, SpecError> {
    let (name, kind) = name_and_game(&raw.name, &raw.game, loc)?;

    // Engines: names, count, algorithms and budgets (weights need the game: below).
    if raw.engine.len() < 2 {
        let at = raw.engine.first().map_or(0, |e| e.span().start);
        return Err(loc.at(
            at,
            "engine",
            format!(
                "a tournament needs at least two [[engine]] tables; found {}",
                raw.engine.len()
            ),
        ));
    }
    if raw.engine.len() > MAX_ENGINES {
        return Err(loc.on(
            &raw.engine[MAX_ENGINES],
            "engine",
            format!("at most {MAX_ENGINES} engines"),
        ));
    }
    let mut names: Vec<String> = Vec::new();
    for (i, e) in raw.engine.iter().enumerate() {
        let engine = e.get_ref();
        let key = format!("engine[{}].name", i + 1);
        let Some(name) = &engine.name else {
            return Err(loc.on(e, &key, "missing key 'name' (required here)"));
        };
        let n = name.get_ref().trim();
        check_name(n).map_err(|m| loc.on(name, &key, m))?;
        if let Some(first) = names.iter().position(|m| m == n) {
            return Err(loc.on(
                name,
                &key,
                format!(
                    "two engines are called '{n}' (engines {} and {}); names must be unique",
                    first + 1,
                    i + 1
                ),
            ));
        }
        names.push(n.to_string());
    }

    // Format.
    let format = match raw.format.as_ref().map(|f| f.get_ref().as_str()) {
        None | Some("round-robin") => "round-robin",
        Some("gauntlet") => "gauntlet",
        Some(other) => {
            return Err(loc.on(
                raw.format.as_ref().expect("present"),
                "format",
                format!("unknown format '{other}'; allowed: round-robin, gauntlet"),
            ));
        }
    };
    let mut challengers = Vec::new();
    match (&raw.challengers, format) {
        (Some(list), "gauntlet") => {
            if list.get_ref().is_empty() {
                return Err(loc.on(
                    list,
                    "challengers",
                    "a gauntlet needs at least one challenger",
                ));
            }
            for c in list.get_ref() {
                let n = c.get_ref().trim();
                if !names.iter().any(|m| m == n) {
                    return Err(loc.on(
                        c,
                        "challengers",
                        format!("'{n}' is not an engine; engines: {}", names.join(", ")),
                    ));
                }
                if challengers.iter().any(|m| m == n) {
                    return Err(loc.on(c, "challengers", format!("'{n}' is listed twice")));
                }
                challengers.push(n.to_string());
            }
            if challengers.len() == names.len() {
                return Err(loc.on(
                    list,
                    "challengers",
                    "every engine is a challenger, so nobody is left to play them; use format = \"round-robin\" or list fewer challengers",
                ));
            }
        }
        (None, "gauntlet") => {
            return Err(loc.on(
                raw.format.as_ref().expect("gauntlet is written"),
                "challengers",
                "a gauntlet needs challengers = [\"NAME\", ...]: the engines that play all the others",
            ));
        }
        (Some(list), _) => {
            return Err(loc.on(
                list,
                "challengers",
                "challengers belong to format = \"gauntlet\"",
            ));
        }
        (None, _) => {}
    }

    // Rounds and the game count.
    let rounds = match &raw.rounds {
        None => 1,
        Some(r) => {
            let v = *r.get_ref();
            if !(1..=10_000).contains(&v) {
                return Err(loc.on(r, "rounds", format!("rounds is {v}; allowed: 1..=10000")));
            }
            v as u32
        }
    };
    let games = match &raw.games {
        None => None,
        Some(g) => {
            let v = *g.get_ref();
            if v <= 0 || v % 2 != 0 {
                return Err(loc.on(
                    g,
                    "games",
                    format!(
                        "games is {v}; it must be a positive even number (games per pairing: every opening is played twice, colours swapped)"
                    ),
                ));
            }
            if v % (2 * rounds as i64) != 0 {
                return Err(loc.on(
                    g,
                    "games",
                    format!(
                        "games is {v}; with rounds = {rounds} it must be a multiple of {}",
                        2 * rounds
                    ),
                ));
            }
            Some((g, (v / 2 / rounds as i64) as u64))
        }
    };

    // Openings: random or from a file.
    let raw_openings = raw.openings.get_ref();
    let count = match &raw_openings.count {
        None => None,
        Some(c) => {
            let v = *c.get_ref();
            if v <= 0 || v as u64 > MAX_OPENINGS {
                return Err(loc.on(
                    c,
                    "openings.count",
                    format!("count is {v}; allowed: 1..={MAX_OPENINGS}"),
                ));
            }
            Some(v as u64)
        }
    };
    let count = match (count, games) {
        (Some(c), Some((g, from_games))) if c != from_games => {
            return Err(loc.on(
                g,
                "games",
                format!(
                    "games = {} does not match openings.count = {c} × 2 colours × {rounds} round(s) = {}; give one of them",
                    g.get_ref(),
                    c * 2 * rounds as u64
                ),
            ));
        }
        (Some(c), _) => Some(c),
        (None, Some((_, from_games))) => Some(from_games),
        (None, None) => None,
    };
    let opening_request = match (&raw_openings.file, &raw_openings.plies) {
        (Some(_), Some(p)) => {
            return Err(loc.on(
                p,
                "openings.plies",
                "give either plies (random openings) or file, not both",
            ));
        }
        (Some(f), None) => {
            for (key, present) in [
                (
                    "openings.balance_depth",
                    raw_openings.balance_depth.as_ref().map(|s| s.span()),
                ),
                (
                    "openings.max_imbalance",
                    raw_openings.max_imbalance.as_ref().map(|s| s.span()),
                ),
            ] {
                if let Some(span) = present {
                    return Err(loc.at(
                        span.start,
                        key,
                        "applies to random openings only; an openings file is used as it is",
                    ));
                }
            }
            let order = match &raw_openings.order {
                None => FileOrder::Sequential,
                Some(o) => match o.get_ref().as_str() {
                    "sequential" => FileOrder::Sequential,
                    "random" => FileOrder::Random,
                    other => {
                        return Err(loc.on(
                            o,
                            "openings.order",
                            format!("order is '{other}'; allowed: \"sequential\", \"random\""),
                        ));
                    }
                },
            };
            let start = match &raw_openings.start {
                None => 0,
                Some(s) => {
                    let v = *s.get_ref();
                    if !(0..=MAX_OPENINGS as i64).contains(&v) {
                        return Err(loc.on(
                            s,
                            "openings.start",
                            format!("start is {v}; allowed: 0..={MAX_OPENINGS} (openings of the file to skip)"),
                        ));
                    }
                    v as u32
                }
            };
            OpeningRequest::File {
                path: f.get_ref().clone(),
                count,
                order,
                start,
                span: f.span().start,
            }
        }
        (None, Some(p)) => {
            for (key, present) in [
                (
                    "openings.order",
                    raw_openings.order.as_ref().map(|s| s.span()),
                ),
                (
                    "openings.start",
                    raw_openings.start.as_ref().map(|s| s.span()),
                ),
            ] {
                if let Some(span) = present {
                    return Err(loc.at(
                        span.start,
                        key,
                        "applies to an openings file only; random openings are drawn from the seed",
                    ));
                }
            }
            let plies = *p.get_ref();
            if !(0..=200).contains(&plies) {
                return Err(loc.on(
                    p,
                    "openings.plies",
                    format!("plies is {plies}; allowed: 0..=200"),
                ));
            }
            let Some(count) = count else {
                return Err(loc.on(
                    &raw.openings,
                    "openings.count",
                    "say how many openings: openings = { plies = 6, count = 50 }, or games = N at the top level",
                ));
            };
            let mut balance = Balance::default_for(kind);
            if let Some(d) = &raw_openings.balance_depth {
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
            if let Some(m) = &raw_openings.max_imbalance {
                let v = *m.get_ref();
                if v.is_nan() || v <= 0.0 {
                    return Err(loc.on(m, "openings.max_imbalance", format!("max_imbalance is {}; it must be a positive number (in weight units) or inf", loc.written(m))));
                }
                balance.max_imbalance = v.is_finite().then_some(v);
            }
            // The size of the run, before any opening is generated.
            let schedule_format = if format == "gauntlet" {
                Format::Gauntlet {
                    challengers: challengers
                        .iter()
                        .map(|c| names.iter().position(|n| n == c).expect("checked above"))
                        .collect(),
                }
            } else {
                Format::RoundRobin
            };
            let pairings = Schedule::new(&schedule_format, names.len(), 0, 1)
                .pairings
                .len() as u64;
            let openings = count * rounds as u64;
            if openings > MAX_OPENINGS || pairings * openings * 2 > MAX_GAMES {
                return Err(loc.on(
                    &raw.openings,
                    "openings",
                    format!(
                        "{openings} openings ({count} × {rounds} round(s)) for {pairings} pairing(s) make {} games; at most {MAX_OPENINGS} openings and {MAX_GAMES} games",
                        pairings * openings * 2
                    ),
                ));
            }
            OpeningRequest::Random {
                plies: plies as u32,
                count: count as u32,
                balance,
                span: raw.openings.span().start,
            }
        }
        (None, None) => {
            return Err(loc.on(
                &raw.openings,
                "openings",
                "say where the openings come from: { plies = 6, count = 50 } or { file = \"openings.txt\" }",
            ));
        }
    };

    // Anchor.
    let anchor = match (&raw.anchor, &raw.anchor_elo) {
        (Some(a), elo) => {
            let n = a.get_ref().trim();
            if !names.iter().any(|m| m == n) {
                return Err(loc.on(
                    a,
                    "anchor",
                    format!("'{n}' is not an engine; engines: {}", names.join(", ")),
                ));
            }
            let elo_value = elo.as_ref().map_or(0.0, |e| *e.get_ref());
            if !(-MAX_ANCHOR_ELO..=MAX_ANCHOR_ELO).contains(&elo_value) {
                return Err(loc.on(
                    elo.as_ref().expect("given"),
                    "anchor_elo",
                    format!(
                        "anchor_elo is {}; allowed: -{MAX_ANCHOR_ELO}..={MAX_ANCHOR_ELO}",
                        loc.written(elo.as_ref().expect("given"))
                    ),
                ));
            }
            Some(Anchor {
                engine: n.to_string(),
                elo: elo_value,
            })
        }
        (None, Some(e)) => {
            return Err(loc.on(e, "anchor_elo", "anchor_elo needs anchor = \"ENGINE\""));
        }
        (None, None) => None,
    };

    // The rating model.
    let ratings = match raw
        .ratings
        .as_ref()
        .and_then(|r| r.get_ref().first_move.as_ref())
    {
        None => RatingsModel::default(),
        Some(f) => RatingsModel {
            first_move: match f.get_ref().trim() {
                "fit" => FirstMove::Fit,
                "ignore" => FirstMove::Ignore,
                other => {
                    return Err(loc.on(
                        f,
                        "ratings.first_move",
                        format!("unknown first_move '{other}'; allowed: fit, ignore"),
                    ));
                }
            },
        },
    };

    // SPRT.
    let sprt = match &raw.sprt {
        None => None,
        Some(s) => {
            if names.len() != 2 {
                return Err(loc.on(
                    s,
                    "sprt",
                    format!(
                        "an SPRT compares exactly two engines; this spec has {}",
                        names.len()
                    ),
                ));
            }
            Some(resolve_sprt(s, "sprt", loc)?)
        }
    };

    let adjudication = resolve_adjudication(&raw, &kind, loc)?;

    // Engines: algorithm, budget, options (weights below, with the game).
    let clock = resolve_clock(&raw, loc)?;
    let mut engines = Vec::new();
    for (i, e) in raw.engine.iter().enumerate() {
        let prefix = format!("engine[{}]", i + 1);
        let own_clock = resolve_engine_clock(e, clock, &prefix, &names[i], loc)?;
        let mut engine = if e.get_ref().command.is_some() {
            outside_engine(e, &prefix, &names[i], &kind, loc)?
        } else {
            let clocked = clock.is_some() || own_clock.is_some();
            engine_budget(e, &prefix, &names[i], clocked, loc)?
        };
        engine.clock = own_clock;
        engines.push(engine);
    }

    // What needs the game's type: weights and openings.
    struct Resolve<'a, 'b> {
        raw: &'b RawSpec,
        loc: &'b Locator<'a>,
        engines: Vec<ResolvedEngine>,
        request: OpeningRequest,
        seed: u64,
        rounds: u32,
    }
    impl FeaturesVisitor for Resolve<'_, '_> {
        type Output = Result<(Vec<ResolvedEngine>, OpeningSource, Vec<String>), SpecError>;
        fn visit<G: Features>(mut self, start: G) -> Self::Output {
            for (i, e) in self.raw.engine.iter().enumerate() {
                if self.engines[i].outside.is_some() {
                    continue;
                }
                default_exact(&start, e.get_ref(), &mut self.engines[i]);
                let key = format!("engine[{}].weights", i + 1);
                resolve_evaluation(
                    &start,
                    e.get_ref().weights.as_ref(),
                    &key,
                    self.loc,
                    &mut self.engines[i],
                )?;
            }
            let (source, moves) =
                resolve_openings(&start, &self.request, self.seed, self.rounds, self.loc)?;
            Ok((self.engines, source, moves))
        }
    }
    let seed = *raw.seed.get_ref();
    let (engines, source, opening_moves) = crate::eval::dispatch(
        &kind,
        Resolve {
            raw: &raw,
            loc,
            engines,
            request: opening_request,
            seed,
            rounds,
        },
    )?;

    let resolved = ResolvedSpec {
        name,
        game: kind.to_string(),
        seed,
        format: format.to_string(),
        challengers,
        openings: source,
        opening_moves,
        rounds,
        engines,
        anchor,
        ratings,
        sprt,
        clock,
        adjudication,
        records: resolve_records(&raw, &kind, loc)?,
        engine_log_mib: resolve_engine_log(&raw, loc)?,
        grown: Vec::new(),
    };
    let total = resolved.schedule().games();
    if total > MAX_GAMES {
        return Err(loc.on(
            &raw.openings,
            "openings",
            format!("the run would play {total} games; at most {MAX_GAMES}"),
        ));
    }
    Ok(TournamentSpec::from_resolved(resolved))
}

/// `[adjudication]`, resolved for the game: `None` when absent, or with `solver = false` and no
/// score rule. A key of another game is refused, and so is the solver of a game without one
/// (random trees).
fn resolve_adjudication(
    raw: &RawSpec,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<Option<AdjudicationRules>, SpecError> {
    use crate::arena::adjudication::{
        DEFAULT_CONNECT4_NODES, DEFAULT_MORPION_NODES, DEFAULT_OTHELLO_EMPTIES,
        MAX_ADJUDICATION_NODES, MAX_OTHELLO_EMPTIES,
    };
    let Some(table) = &raw.adjudication else {
        return Ok(None);
    };
    let a = table.get_ref();
    let game = match kind {
        GameKind::Othello => "othello",
        GameKind::Connect4 => "connect4",
        GameKind::Morpion { .. } => "morpion",
        GameKind::RandomTree { .. } => "random-tree",
    };
    // Each game's key, refused on the others.
    for (key, value, owner) in [
        ("othello_empties", &a.othello_empties, "othello"),
        ("connect4_nodes", &a.connect4_nodes, "connect4"),
        ("morpion_nodes", &a.morpion_nodes, "morpion"),
    ] {
        if let Some(v) = value
            && owner != game
        {
            return Err(loc.on(
                v,
                &format!("adjudication.{key}"),
                format!("{key} applies to {owner} games only; this game is {kind}"),
            ));
        }
    }
    let (resign, draw) = resolve_score_rules(a, loc)?;
    let solver = a.solver.as_ref().is_none_or(|s| *s.get_ref());
    if !solver {
        return Ok(
            (resign.is_some() || draw.is_some()).then_some(AdjudicationRules {
                resign,
                draw,
                ..AdjudicationRules::default()
            }),
        );
    }
    if game == "random-tree" {
        return Err(loc.on(
            table,
            "adjudication",
            "random trees have no solver adjudication; allowed for othello, connect4 and morpion games (or solver = false)",
        ));
    }
    let nodes = |v: &Option<Spanned<i64>>, key: &str, default: u64| match v {
        None => Ok(default),
        Some(n) => u64::try_from(*n.get_ref())
            .ok()
            .filter(|n| (1..=MAX_ADJUDICATION_NODES).contains(n))
            .ok_or_else(|| {
                loc.on(
                    n,
                    &format!("adjudication.{key}"),
                    format!(
                        "{} is not a node budget; allowed 1..={MAX_ADJUDICATION_NODES}",
                        n.get_ref()
                    ),
                )
            }),
    };
    Ok(Some(match game {
        "othello" => AdjudicationRules {
            empties: Some(match &a.othello_empties {
                None => DEFAULT_OTHELLO_EMPTIES,
                Some(e) => u32::try_from(*e.get_ref())
                    .ok()
                    .filter(|e| (1..=MAX_OTHELLO_EMPTIES).contains(e))
                    .ok_or_else(|| {
                        loc.on(
                            e,
                            "adjudication.othello_empties",
                            format!(
                                "{} empty squares is out of range; allowed 1..={MAX_OTHELLO_EMPTIES} (a solve at 24 empties takes seconds)",
                                e.get_ref()
                            ),
                        )
                    })?,
            }),
            nodes: None,
            resign,
            draw,
        },
        "connect4" => AdjudicationRules {
            empties: None,
            nodes: Some(nodes(
                &a.connect4_nodes,
                "connect4_nodes",
                DEFAULT_CONNECT4_NODES,
            )?),
            resign,
            draw,
        },
        _ => AdjudicationRules {
            empties: None,
            nodes: Some(nodes(&a.morpion_nodes, "morpion_nodes", DEFAULT_MORPION_NODES)?),
            resign,
            draw,
        },
    }))
}

/// `[output] records`: record formats that fit the game, each once.
fn resolve_records(
    raw: &RawSpec,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<Vec<String>, SpecError> {
    use crate::arena::records::Format;
    let Some(list) = raw
        .output
        .as_ref()
        .and_then(|o| o.get_ref().records.as_ref())
    else {
        return Ok(Vec::new());
    };
    let mut names: Vec<String> = Vec::new();
    for item in list.get_ref() {
        let format = Format::parse(item.get_ref().trim())
            .and_then(|f| f.check_game(kind).map(|_| f))
            .map_err(|e| loc.on(item, "output.records", e))?;
        if names.iter().any(|n| n == format.name()) {
            return Err(loc.on(
                item,
                "output.records",
                format!("format {} is listed twice", format.name()),
            ));
        }
        names.push(format.name().to_string());
    }
    Ok(names)
}

/// The largest `[output] engine_log_mib`: 64 GiB.
pub const MAX_ENGINE_LOG_MIB: i64 = 65_536;

/// `[output] engine_log_mib`: the cap of each outside engine's stderr log, 1..=65536 MiB.
fn resolve_engine_log(raw: &RawSpec, loc: &Locator<'_>) -> Result<Option<u64>, SpecError> {
    let Some(v) = raw
        .output
        .as_ref()
        .and_then(|o| o.get_ref().engine_log_mib.as_ref())
    else {
        return Ok(None);
    };
    match *v.get_ref() {
        m @ 1..=MAX_ENGINE_LOG_MIB => Ok(Some(m as u64)),
        _ => Err(loc.on(
            v,
            "output.engine_log_mib",
            format!(
                "engine_log_mib is {}; allowed: 1..={MAX_ENGINE_LOG_MIB} (MiB of each outside engine's stderr log; default 64)",
                loc.written(v)
            ),
        )),
    }
}

/// The most `move_count` and `move_number` of the score rules.
const MAX_RULE_MOVES: i64 = 1000;

/// `[adjudication.resign]` and `[adjudication.draw]`, checked.
fn resolve_score_rules(
    a: &super::raw::RawAdjudication,
    loc: &Locator<'_>,
) -> Result<(Option<ResignRule>, Option<DrawRule>), SpecError> {
    let moves = |v: &Spanned<i64>, key: &str, least: i64| {
        u32::try_from(*v.get_ref())
            .ok()
            .filter(|&n| (least..=MAX_RULE_MOVES).contains(&i64::from(n)))
            .ok_or_else(|| {
                loc.on(
                    v,
                    &format!("adjudication.{key}"),
                    format!(
                        "{} moves is out of range; allowed {least}..={MAX_RULE_MOVES}",
                        v.get_ref()
                    ),
                )
            })
    };
    let score = |v: &Spanned<i64>, key: &str| {
        Some(*v.get_ref())
            .filter(|s| (0..=i64::from(i32::MAX)).contains(s))
            .ok_or_else(|| {
                loc.on(
                    v,
                    &format!("adjudication.{key}"),
                    format!(
                        "{} is not a score threshold; allowed 0..={} in the engines' own units",
                        v.get_ref(),
                        i32::MAX
                    ),
                )
            })
    };
    let resign = match &a.resign {
        None => None,
        Some(r) => {
            let r = r.get_ref();
            Some(ResignRule {
                move_count: moves(&r.move_count, "resign.move_count", 1)?,
                score: score(&r.score, "resign.score")?,
                two_sided: r.two_sided.as_ref().is_some_and(|b| *b.get_ref()),
            })
        }
    };
    let draw = match &a.draw {
        None => None,
        Some(d) => {
            let d = d.get_ref();
            Some(DrawRule {
                move_number: match &d.move_number {
                    None => 0,
                    Some(n) => moves(n, "draw.move_number", 0)?,
                },
                move_count: moves(&d.move_count, "draw.move_count", 1)?,
                score: score(&d.score, "draw.score")?,
            })
        }
    };
    Ok((resign, draw))
}

//! Validation and resolution: a [`RawSpec`] checked section by section, each by a function of
//! its own, and turned into a [`TournamentSpec`] — engines and their budgets, weights, openings,
//! the SPRT, adjudication, output.

use super::*;

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

/// Validates a tournament spec, section by section, and resolves it with the game: the
/// engines' weights and the openings.
pub(super) fn validate(raw: RawSpec, loc: &Locator<'_>) -> Result<TournamentSpec, SpecError> {
    let (name, kind) = name_and_game(&raw.name, &raw.game, loc)?;
    let names = engine_names(&raw, loc)?;
    let (format, challengers) = format_and_challengers(&raw, &names, loc)?;
    let rounds = loc.int_or(raw.rounds.as_ref(), 1, "rounds", 1..=10_000, |v| {
        format!("rounds is {v}; allowed: 1..=10000")
    })?;
    let games = games_per_opening(&raw, rounds, loc)?;
    let count = opening_count(&raw, games, rounds, loc)?;
    let pairings = || {
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
        Schedule::new(&schedule_format, names.len(), 0, 1)
            .pairings
            .len() as u64
    };
    let request = opening_request(&raw, kind, count, rounds, pairings, loc)?;
    let anchor = resolve_anchor(&raw, &names, loc)?;
    let ratings = resolve_ratings(&raw, loc)?;
    let sprt = match &raw.sprt {
        Some(s) if names.len() != 2 => {
            return Err(loc.on(
                s,
                "sprt",
                format!(
                    "an SPRT compares exactly two engines; this spec has {}",
                    names.len()
                ),
            ));
        }
        Some(s) => Some(resolve_sprt(s, "sprt", loc)?),
        None => None,
    };
    let adjudication = resolve_adjudication(&raw, &kind, loc)?;
    let clock = resolve_clock(&raw, loc)?;
    let engines = resolve_engines(&raw, &names, clock, &kind, loc)?;
    let seed = *raw.seed.get_ref();
    let (engines, source, opening_moves) = crate::eval::dispatch(
        &kind,
        WithGame {
            raw: &raw,
            loc,
            engines,
            request,
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
        affinity: raw.affinity.as_ref().is_some_and(|a| *a.get_ref()),
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

/// The `[[engine]]` tables' names: two tables or more, at most [`MAX_ENGINES`], each named,
/// every name its own.
fn engine_names(raw: &RawSpec, loc: &Locator<'_>) -> Result<Vec<String>, SpecError> {
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
        let key = format!("engine[{}].name", i + 1);
        let Some(name) = &e.get_ref().name else {
            return Err(loc.on(e, &key, "missing key 'name' (required here)"));
        };
        let n = loc.engine_name(name, &key)?;
        if let Some(first) = names.iter().position(|m| *m == n) {
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
        names.push(n);
    }
    Ok(names)
}

/// One of the engines `names`, as the key `key` names it (trimmed).
fn engine_among(
    v: &Spanned<String>,
    key: &str,
    names: &[String],
    loc: &Locator<'_>,
) -> Result<String, SpecError> {
    let n = v.get_ref().trim();
    if !names.iter().any(|m| m == n) {
        return Err(loc.on(
            v,
            key,
            format!("'{n}' is not an engine; engines: {}", names.join(", ")),
        ));
    }
    Ok(n.to_string())
}

/// `format` and, for a gauntlet, its `challengers`: engines, each once, not all of them.
fn format_and_challengers(
    raw: &RawSpec,
    names: &[String],
    loc: &Locator<'_>,
) -> Result<(&'static str, Vec<String>), SpecError> {
    let format = raw
        .format
        .as_ref()
        .map(|f| {
            loc.choice(
                f,
                "format",
                &[("round-robin", "round-robin"), ("gauntlet", "gauntlet")],
                |other| format!("unknown format '{other}'; allowed: round-robin, gauntlet"),
            )
        })
        .transpose()?
        .unwrap_or("round-robin");
    let list = match (&raw.challengers, format) {
        (Some(list), "gauntlet") => list,
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
        (None, _) => return Ok((format, Vec::new())),
    };
    if list.get_ref().is_empty() {
        return Err(loc.on(
            list,
            "challengers",
            "a gauntlet needs at least one challenger",
        ));
    }
    let mut challengers: Vec<String> = Vec::new();
    for c in list.get_ref() {
        let n = engine_among(c, "challengers", names, loc)?;
        if challengers.contains(&n) {
            return Err(loc.on(c, "challengers", format!("'{n}' is listed twice")));
        }
        challengers.push(n);
    }
    if challengers.len() == names.len() {
        return Err(loc.on(
            list,
            "challengers",
            "every engine is a challenger, so nobody is left to play them; use format = \"round-robin\" or list fewer challengers",
        ));
    }
    Ok((format, challengers))
}

/// The top-level `games` (per pairing), if given: its value and the openings per round it
/// gives, a whole number with `rounds`.
fn games_per_opening<'r>(
    raw: &'r RawSpec,
    rounds: u32,
    loc: &Locator<'_>,
) -> Result<Option<(&'r Spanned<i64>, u64)>, SpecError> {
    let Some(g) = &raw.games else {
        return Ok(None);
    };
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
    Ok(Some((g, (v / 2 / rounds as i64) as u64)))
}

/// `anchor` (an engine) and `anchor_elo` (its fixed rating, default 0).
fn resolve_anchor(
    raw: &RawSpec,
    names: &[String],
    loc: &Locator<'_>,
) -> Result<Option<Anchor>, SpecError> {
    let Some(a) = &raw.anchor else {
        loc.absent(raw.anchor_elo.as_ref(), "anchor_elo", || {
            "anchor_elo needs anchor = \"ENGINE\"".into()
        })?;
        return Ok(None);
    };
    let engine = engine_among(a, "anchor", names, loc)?;
    let elo = match &raw.anchor_elo {
        None => 0.0,
        Some(e) => loc.float_in(e, "anchor_elo", -MAX_ANCHOR_ELO..=MAX_ANCHOR_ELO, |w| {
            format!("anchor_elo is {w}; allowed: -{MAX_ANCHOR_ELO}..={MAX_ANCHOR_ELO}")
        })?,
    };
    Ok(Some(Anchor { engine, elo }))
}

/// `[ratings]`: the rating model.
fn resolve_ratings(raw: &RawSpec, loc: &Locator<'_>) -> Result<RatingsModel, SpecError> {
    let Some(f) = raw
        .ratings
        .as_ref()
        .and_then(|r| r.get_ref().first_move.as_ref())
    else {
        return Ok(RatingsModel::default());
    };
    let first_move = loc.choice_trimmed(
        f,
        "ratings.first_move",
        &[("fit", FirstMove::Fit), ("ignore", FirstMove::Ignore)],
        |other| format!("unknown first_move '{other}'; allowed: fit, ignore"),
    )?;
    Ok(RatingsModel { first_move })
}

/// The engines' algorithms, budgets, options and clocks (their weights need the game:
/// [`WithGame`]); `clock` is the spec's.
fn resolve_engines(
    raw: &RawSpec,
    names: &[String],
    clock: Option<ResolvedClock>,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<Vec<ResolvedEngine>, SpecError> {
    outside_table_used(raw, loc)?;
    let shared = raw.outside.as_ref().map(Spanned::get_ref);
    let mut engines = Vec::new();
    for (i, e) in raw.engine.iter().enumerate() {
        let prefix = format!("engine[{}]", i + 1);
        let own_clock = resolve_engine_clock(e, clock, &prefix, &names[i], loc)?;
        let mut engine = if e.get_ref().hosted.is_some() {
            hosted::hosted_engine(e, &prefix, &names[i], loc)?
        } else if e.get_ref().command.is_some() {
            outside_engine(e, &prefix, &names[i], kind, shared, loc)?
        } else {
            let clocked = clock.is_some() || own_clock.is_some();
            engine_budget(e, &prefix, &names[i], clocked, loc)?
        };
        engine.clock = own_clock;
        engines.push(engine);
    }
    Ok(engines)
}

/// What needs the game's type: the built-in engines' weights and default `exact`, and the
/// openings.
struct WithGame<'a, 'b> {
    raw: &'b RawSpec,
    loc: &'b Locator<'a>,
    engines: Vec<ResolvedEngine>,
    request: OpeningRequest,
    seed: u64,
    rounds: u32,
}

impl FeaturesVisitor for WithGame<'_, '_> {
    type Output = Result<(Vec<ResolvedEngine>, OpeningSource, Vec<String>), SpecError>;
    fn visit<G: Features>(mut self, start: G) -> Self::Output {
        for (i, e) in self.raw.engine.iter().enumerate() {
            if self.engines[i].outside.is_some() || self.engines[i].hosted.is_some() {
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

/// `[adjudication]`, resolved for the game: `None` when absent, or with `solver = false` and no
/// score rule. A key of another game is refused, and so is the solver of a game without one
/// (random trees).
fn resolve_adjudication(
    raw: &RawSpec,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<Option<AdjudicationRules>, SpecError> {
    use crate::arena::adjudication::{DEFAULT_CONNECT4_NODES, DEFAULT_MORPION_NODES};
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
        if owner != game {
            loc.absent(value.as_ref(), &format!("adjudication.{key}"), || {
                format!("{key} applies to {owner} games only; this game is {kind}")
            })?;
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
    let (empties, nodes) = match game {
        "othello" => (Some(othello_empties(a, loc)?), None),
        "connect4" => (
            None,
            Some(solver_nodes(
                a.connect4_nodes.as_ref(),
                "connect4_nodes",
                DEFAULT_CONNECT4_NODES,
                loc,
            )?),
        ),
        _ => (
            None,
            Some(solver_nodes(
                a.morpion_nodes.as_ref(),
                "morpion_nodes",
                DEFAULT_MORPION_NODES,
                loc,
            )?),
        ),
    };
    Ok(Some(AdjudicationRules {
        empties,
        nodes,
        resign,
        draw,
    }))
}

/// `[adjudication] othello_empties`: the empty squares from which Othello's solver decides.
fn othello_empties(a: &RawAdjudication, loc: &Locator<'_>) -> Result<u32, SpecError> {
    use crate::arena::adjudication::{DEFAULT_OTHELLO_EMPTIES, MAX_OTHELLO_EMPTIES};
    loc.int_or(
        a.othello_empties.as_ref(),
        DEFAULT_OTHELLO_EMPTIES,
        "adjudication.othello_empties",
        1..=i64::from(MAX_OTHELLO_EMPTIES),
        |v| {
            format!(
                "{v} empty squares is out of range; allowed 1..={MAX_OTHELLO_EMPTIES} (a solve at 24 empties takes seconds)"
            )
        },
    )
}

/// A solver's node budget of `[adjudication]` (`connect4_nodes`, `morpion_nodes`).
fn solver_nodes(
    v: Option<&Spanned<i64>>,
    key: &str,
    default: u64,
    loc: &Locator<'_>,
) -> Result<u64, SpecError> {
    use crate::arena::adjudication::MAX_ADJUDICATION_NODES;
    loc.int_or(
        v,
        default,
        &format!("adjudication.{key}"),
        1..=MAX_ADJUDICATION_NODES as i64,
        |v| format!("{v} is not a node budget; allowed 1..={MAX_ADJUDICATION_NODES}"),
    )
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
    let mib = loc.int_in(v, "output.engine_log_mib", 1..=MAX_ENGINE_LOG_MIB, |_| {
        format!(
            "engine_log_mib is {}; allowed: 1..={MAX_ENGINE_LOG_MIB} (MiB of each outside engine's stderr log; default 64)",
            loc.written(v)
        )
    })?;
    Ok(Some(mib))
}

/// The most `move_count` and `move_number` of the score rules.
const MAX_RULE_MOVES: i64 = 1000;

/// `[adjudication.resign]` and `[adjudication.draw]`, checked.
fn resolve_score_rules(
    a: &RawAdjudication,
    loc: &Locator<'_>,
) -> Result<(Option<ResignRule>, Option<DrawRule>), SpecError> {
    let moves = |v: &Spanned<i64>, key: &str, least: i64| {
        loc.int_in(
            v,
            &format!("adjudication.{key}"),
            least..=MAX_RULE_MOVES,
            |v| format!("{v} moves is out of range; allowed {least}..={MAX_RULE_MOVES}"),
        )
    };
    let score = |v: &Spanned<i64>, key: &str| {
        loc.int_in(
            v,
            &format!("adjudication.{key}"),
            0..=i64::from(i32::MAX),
            |v| {
                format!(
                    "{v} is not a score threshold; allowed 0..={} in the engines' own units",
                    i32::MAX
                )
            },
        )
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

//! `joute play`: one game between two engines, the board after every move.

use std::io::Write;

use serde_json::json;

use super::{InputError, PlayArgs};
use joute::arena::outside::{OutsidePlayer, Setup};
use joute::arena::spec::{ClockWords, MatchEngine};
use joute::arena::{Engine, Opening, Player, Referee, play_game};
use joute::eval::{Features, FeaturesVisitor};
use joute::games::{Game, GameKind, Side};
use joute::search::{WIN, WIN_THRESHOLD};

/// A forced result found by a search, in words from the mover's point of view: `win in 7
/// plies` (the score `2^24 - 7`: the game ends in the mover's favour 7 plies after the position
/// it moved from), `loss in 4 plies`; `None` for any other score.
fn forced_result<G: Game>(score: i32) -> Option<String> {
    if G::SCORED_LEAVES || score.abs() < WIN_THRESHOLD {
        return None;
    }
    let plies = WIN - score.abs();
    Some(format!(
        "{} in {plies} {}",
        if score > 0 { "win" } else { "loss" },
        if plies == 1 { "ply" } else { "plies" }
    ))
}

/// A move's score in words: a forced result, `score N`, or `no score` from a player that gave
/// none.
fn describe_score<G: Game>(score: Option<i32>) -> String {
    match score {
        Some(s) => forced_result::<G>(s).unwrap_or_else(|| format!("score {s}")),
        None => "no score".into(),
    }
}

/// The player `text` names (a built-in engine, or an outside program as `joute match` takes
/// it: `cmd=python3,arg=engine.py,proto=line`), and its name.
fn player<G: Features>(
    text: &str,
    kind: &GameKind,
    start: &G,
    seed: u64,
) -> Result<(String, Box<dyn Player<G>>), InputError> {
    let input = |e: &dyn std::fmt::Display| InputError(e.to_string());
    let no_clock = |clock: &ClockWords| match clock == &ClockWords::default() {
        true => Ok(()),
        false => Err(InputError(format!(
            "engine '{text}': joute play keeps no clock; a game on a clock is `joute match --games 1 --tc ...`"
        ))),
    };
    match MatchEngine::parse(text).map_err(|e| input(&e))? {
        MatchEngine::BuiltIn { engine, clock } => {
            no_clock(&clock)?;
            let player = Engine::new(&engine, start, seed).map_err(|e| input(&e))?;
            Ok((engine.name, Box::new(player)))
        }
        MatchEngine::Outside { name, spec, clock } => {
            no_clock(&clock)?;
            let setup = Setup {
                game: *kind,
                spec,
                clock: None,
            };
            // Its stderr is kept in memory: its last lines are in the message if it fails.
            Ok((name, Box::new(OutsidePlayer::<G>::new(setup, None))))
        }
    }
}

/// `joute play`, run for the game the user named.
pub(super) struct PlayCommand {
    pub args: PlayArgs,
}

impl FeaturesVisitor for PlayCommand {
    type Output = anyhow::Result<()>;

    fn visit<G: Features>(self, start: G) -> anyhow::Result<()> {
        let args = self.args;
        let input = |e: &dyn std::fmt::Display| InputError(e.to_string());
        let seed = args.seed.unwrap_or(1);
        let (first_name, mut first) = player(&args.engine_a, &args.game, &start, seed)?;
        let (second_name, mut second) =
            player(&args.engine_b, &args.game, &start, seed.wrapping_add(1))?;
        let opening = args.opening.as_deref().unwrap_or("");
        let opening_moves = start.parse_sequence(opening).map_err(|e| input(&e))?;
        let game_opening = Opening {
            initial: start,
            moves: &opening_moves,
        };
        let from = game_opening.position();
        let names = [first_name, second_name];
        let mut out = std::io::stdout().lock();
        if !args.json {
            writeln!(
                out,
                "{}: {} (first) vs {} (second)",
                start.name(),
                names[0],
                names[1]
            )?;
            if !opening.is_empty() {
                writeln!(out, "opening: {opening}")?;
            }
            write!(out, "{}", from.render())?;
        }
        let mut ply = 0;
        let players: [&mut dyn Player<G>; 2] = [first.as_mut(), second.as_mut()];
        let record = play_game(
            &game_opening,
            players,
            &mut Referee::default(),
            |pos, mv| {
                ply += 1;
                if !args.json {
                    let _ = writeln!(
                        out,
                        "\n{ply}. {} ({}) plays {}: {}, depth {}, {} nodes, {:.3} s{}",
                        names[mv.side as usize],
                        if mv.side == Side::First {
                            "first"
                        } else {
                            "second"
                        },
                        from.format_move(mv.mv),
                        describe_score::<G>(mv.score),
                        mv.depth,
                        mv.nodes,
                        mv.seconds,
                        if mv.timed_out { " (time limit)" } else { "" }
                    );
                    let _ = write!(out, "{}", pos.render());
                }
            },
        );
        let result = match record.outcome.winner {
            Some(Side::First) => format!("{} (first) wins", names[0]),
            Some(Side::Second) => format!("{} (second) wins", names[1]),
            None => "draw".to_string(),
        };
        // Move notation does not depend on the position, only on the game.
        let moves: Vec<String> = record
            .moves
            .iter()
            .map(|m| from.format_move(m.mv))
            .collect();
        if args.json {
            let value = json!({
                "game": start.name(),
                "first": names[0],
                "second": names[1],
                "opening": opening,
                "moves": moves,
                "plies": record.moves.len(),
                "winner": record.outcome.winner.map(|s| if s == Side::First { "first" } else { "second" }),
                "score": record.outcome.score,
                "termination": record.termination.name(),
                "detail": record.termination.detail(),
                "seconds": record.seconds,
                "records": record.moves.iter().zip(&moves).map(|(m, text)| json!({
                    "move": text, "score": m.score, "score_text": m.score.map(|s| forced_result::<G>(s).unwrap_or_else(|| s.to_string())),
                    "depth": m.depth, "nodes": m.nodes,
                    "seconds": m.seconds, "timed_out": m.timed_out,
                })).collect::<Vec<_>>(),
            });
            writeln!(out, "{value}")?;
        } else {
            let how = match record.termination.detail() {
                Some(detail) => format!(" by {}: {detail}", record.termination.name()),
                None => String::new(),
            };
            writeln!(
                out,
                "\nresult: {result}{how} (score {} for the first player) after {} moves: {}",
                record.outcome.score,
                moves.len(),
                moves.join(" ")
            )?;
        }
        Ok(())
    }
}

//! `joute play`: one game between two engines, the board after every move.

use std::io::Write;

use serde_json::json;

use super::{InputError, PlayArgs};
use joute::arena::GameRecord;
use joute::arena::duel::Duel;
use joute::eval::{Features, FeaturesVisitor};
use joute::games::{Game, Side};
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

/// `joute play`, run for the game the user named.
pub(super) struct PlayCommand {
    pub args: PlayArgs,
}

impl FeaturesVisitor for PlayCommand {
    type Output = anyhow::Result<()>;

    fn visit<G: Features>(self, start: G) -> anyhow::Result<()> {
        let args = self.args;
        let opening = args.opening.as_deref().unwrap_or("");
        let seed = args.seed.unwrap_or(1);
        let engines = [args.engine_a.as_str(), args.engine_b.as_str()];
        let duel = Duel::new(args.game, start, engines, seed, opening).map_err(InputError)?;
        let from = duel.position();
        let names = duel.names.clone();
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
        let record = duel.play(|pos, mv| {
            ply += 1;
            if !args.json {
                let _ = writeln!(
                    out,
                    "\n{ply}. {} ({}) plays {}: {}, {}, {:.3} s{}{}",
                    names[mv.side as usize],
                    if mv.side == Side::First {
                        "first"
                    } else {
                        "second"
                    },
                    from.format_move(mv.mv),
                    describe_score::<G>(mv.score),
                    search_words(mv.depth, mv.seldepth, mv.nodes),
                    mv.seconds,
                    mv.cpu.map_or(String::new(), |c| format!(
                        " (CPU {:.3} s)",
                        c.as_secs_f64()
                    )),
                    if mv.timed_out { " (time limit)" } else { "" }
                );
                let _ = write!(out, "{}", pos.render());
            }
        });
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
            let value = game_json(&start.name(), &names, opening, &record, &moves);
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

/// The game as `joute play --json` prints it: the players, every move with its search, the
/// result.
fn game_json<G: Game>(
    game: &str,
    names: &[String; 2],
    opening: &str,
    record: &GameRecord<G>,
    moves: &[String],
) -> serde_json::Value {
    json!({
        "game": game,
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
        "records": record.moves.iter().zip(moves).map(|(m, text)| json!({
            "move": text, "score": m.score, "score_text": m.score.map(|s| forced_result::<G>(s).unwrap_or_else(|| s.to_string())),
            "depth": m.depth, "seldepth": m.seldepth, "nodes": m.nodes,
            "seconds": m.seconds, "cpu_seconds": m.cpu.map(|c| c.as_secs_f64()),
            "timed_out": m.timed_out,
        })).collect::<Vec<_>>(),
    })
}

/// What a move's search says of itself: `depth 5, 455 nodes`, `depth 4/11` with a selective
/// depth, `nodes not said` when the engine gives no count.
fn search_words(depth: u32, seldepth: u32, nodes: Option<u64>) -> String {
    let depth = match (depth, seldepth) {
        (0, _) => "depth not said".to_string(),
        (d, 0) => format!("depth {d}"),
        (d, s) => format!("depth {d}/{s}"),
    };
    match nodes {
        Some(n) => format!("{depth}, {n} nodes"),
        None => format!("{depth}, nodes not said"),
    }
}

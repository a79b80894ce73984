//! One game between two engines, from a start position and an optional opening.

use std::time::Instant;

use super::engine::Engine;
use crate::eval::Features;
use crate::games::{Game, Outcome, Side};

/// One move of a game, as an engine chose it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRecord<M> {
    /// The move.
    pub mv: M,
    /// Who played it.
    pub side: Side,
    /// The engine's score for it, from its own point of view.
    pub score: i32,
    /// Depth of the engine's deepest completed iteration.
    pub depth: u32,
    /// Positions the engine visited.
    pub nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The engine's search was cut by its clock.
    pub timed_out: bool,
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord<G: Game> {
    /// The position the engines started from (after the opening).
    pub start: G,
    /// The engines' moves.
    pub moves: Vec<MoveRecord<G::Move>>,
    /// The final position.
    pub last: G,
    /// How it ended.
    pub outcome: Outcome,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Plays `engines[0]` (the first player) against `engines[1]` from `start` — which may be a
/// position after an opening: the side to move there picks the engine — to the end of the
/// game, calling `observer` after every move with the new position.
pub fn play_game<G: Features>(
    start: G,
    engines: &mut [Engine<G>; 2],
    mut observer: impl FnMut(&G, &MoveRecord<G::Move>),
) -> GameRecord<G> {
    let clock = Instant::now();
    let mut pos = start;
    let mut moves = Vec::new();
    loop {
        if let Some(outcome) = pos.outcome() {
            return GameRecord {
                start,
                moves,
                last: pos,
                outcome,
                seconds: clock.elapsed().as_secs_f64(),
            };
        }
        let side = pos.side_to_move();
        let engine = &mut engines[side as usize];
        let result = engine.choose(&pos);
        let mv = result
            .best_move
            .expect("a search of an unfinished position returns a move");
        let record = MoveRecord {
            mv,
            side,
            score: result.score,
            depth: result.stats.depth,
            nodes: result.stats.nodes,
            seconds: result.stats.seconds,
            timed_out: result.stats.timed_out,
        };
        pos = pos.play(mv);
        observer(&pos, &record);
        moves.push(record);
    }
}

//! The arena: engine configurations, playing one game between two engines, and (with the
//! tournaments layer) openings, scheduling, the parallel runner and the games log.

pub mod engine;
pub mod game;

pub use engine::{Engine, EngineError, EngineSpec};
pub use game::{GameRecord, MoveRecord, play_game};

use crate::eval::Features;
use crate::games::{Connect4, GameKind, Morpion, Othello, RandomTree};

/// Code to run once for whichever game the user named, needing the game's evaluation features
/// (engines): [`dispatch`] calls [`EngineGameVisitor::visit`] with that game's start position.
pub trait EngineGameVisitor {
    /// What the visit returns.
    type Output;
    /// Runs the visitor on the game whose start position is `start`.
    fn visit<G: Features>(self, start: G) -> Self::Output;
}

/// Calls `visitor` with the start position of `kind`, monomorphised for its type.
pub fn dispatch<V: EngineGameVisitor>(kind: &GameKind, visitor: V) -> V::Output {
    match *kind {
        GameKind::Othello => visitor.visit(Othello::start()),
        GameKind::Connect4 => visitor.visit(Connect4::start()),
        GameKind::Morpion { rows, cols, k } => visitor.visit(Morpion::start(rows, cols, k)),
        GameKind::RandomTree {
            branching,
            depth,
            seed,
        } => visitor.visit(RandomTree::new(branching, depth, seed)),
    }
}

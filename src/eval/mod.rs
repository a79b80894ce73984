//! The evaluation layer: named features per game, weight vectors (`weights/*.toml`) and the
//! linear evaluator that scores a position from them.

use crate::games::Game;

/// The largest magnitude a static evaluation may take. Scores of finished games lie beyond it
/// (see [`crate::search::WIN`]), so a won position always outranks any evaluation.
pub const EVAL_LIMIT: i32 = 1 << 22;

/// A static evaluation of positions of `G`.
pub trait Evaluator<G: Game>: Send + Sync {
    /// The score of `pos` from the point of view of the side to move (negamax convention),
    /// within `-self.bound()..=self.bound()`. Called on positions that are not finished.
    fn evaluate(&self, pos: &G) -> i32;

    /// An upper bound on the magnitude of [`Evaluator::evaluate`] over every position; at most
    /// [`EVAL_LIMIT`].
    fn bound(&self) -> i32 {
        EVAL_LIMIT
    }
}

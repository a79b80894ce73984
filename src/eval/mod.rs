//! The evaluation layer: named features per game, weight vectors (`weights/*.toml`) and the
//! linear evaluator that scores a position from them.
//!
//! - [`Features`]: each game's named features ([`Feature`]), computed from the side to move's
//!   point of view ([`features`], and per game [`othello`], [`connect4`], [`morpion`]; the
//!   random tree has one, its node value).
//! - [`Weights`]: one number per feature, read from a `weights/*.toml` file ([`weights`]), or
//!   the hand-set defaults compiled in; [`EvalError`] says what is wrong with a file.
//! - [`LinearEval`]: Σ wᵢ·fᵢ in integers, an [`Evaluator`] for the searches ([`linear`]).

pub mod connect4;
pub mod features;
pub mod linear;
pub mod morpion;
pub mod othello;
#[cfg(test)]
mod strength;
pub mod weights;

pub use features::{Feature, Features, MAX_FEATURES};
pub use linear::LinearEval;
pub use weights::{EvalError, Weights};

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

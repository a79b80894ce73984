//! The evaluation layer: named features per game, weight vectors (`weights/*.toml`) and the
//! linear evaluator that scores a position from them.
//!
//! - [`Features`]: each game's named features ([`Feature`]), computed from the side to move's
//!   point of view ([`features`], and per game [`othello`], [`connect4`], [`morpion`]; the
//!   random tree has one, its node value).
//! - [`Weights`]: one number per feature, read from a `weights/*.toml` file ([`weights`]), or
//!   the hand-set defaults compiled in; [`EvalError`] says what is wrong with a file.
//! - [`LinearEval`]: Σ wᵢ·fᵢ in integers, an [`Evaluator`] for the searches ([`linear`]).
//! - [`PatternEval`]: an Othello evaluation in the manner of Logistello and Edax, one weight
//!   per configuration of each pattern of squares (corners, edges, rows, diagonals) and per
//!   game phase, from a binary or CSV [`PatternWeights`] file ([`pattern`]).
//! - [`dispatch`]: runs a [`FeaturesVisitor`] on the game a [`crate::games::GameKind`] names,
//!   for code that needs `G: Features` rather than `G: Game`.
//!
//! Cost, measured when the layer was written: one [`LinearEval::evaluate`] with the default
//! weights took, on positions of random games (optimised test build on a loaded 2-core machine,
//! so rough): Othello 60–100 ns, Connect 4 60–120 ns, Morpion 3×3 about 0.2 µs, Morpion 15×15
//! k = 5 about 0.8 µs, the random tree under 10 ns. `joute bench` and `cargo bench --bench
//! search` measure the searches that use it.
//!
//! Strength: `tests/it/strength.rs` plays the defaults against the simplest evaluations
//! (`weights/othello-discs.toml`, `weights/connect4-centre.toml`) with the search layer's
//! alpha-beta at equal depth, 200 games from random openings with colours swapped.

pub mod connect4;
pub mod features;
pub mod linear;
pub mod morpion;
pub mod othello;
pub mod pattern;
pub mod weights;

pub use features::{Feature, Features, FeaturesVisitor, MAX_FEATURES, Weights, dispatch};
pub use linear::LinearEval;
pub use pattern::{PatternEval, PatternState, PatternWeights};
pub use weights::EvalError;

use crate::games::Game;

/// The largest magnitude a static evaluation may take. Scores of finished games lie beyond it
/// (see [`crate::search::WIN`]), so a won position always outranks any evaluation.
pub const EVAL_LIMIT: i32 = 1 << 22;

/// What an incremental evaluation keeps for each position of a search's line (today the one
/// there is: Othello's pattern configurations).
pub type EvalState = PatternState;

/// A static evaluation of positions of `G`.
///
/// An evaluation may also keep a state along the search's line ([`Evaluator::tracks`]): a
/// search that supports it (`pvs`, `mtdf`) calls [`Evaluator::track`] at its root,
/// [`Evaluator::track_move`] from each position to the next, and [`Evaluator::evaluate_tracked`]
/// at its leaves, which must equal [`Evaluator::evaluate`]. The defaults keep no state.
pub trait Evaluator<G: Game>: Send + Sync {
    /// The score of `pos` from the point of view of the side to move (negamax convention),
    /// within `-self.bound()..=self.bound()`. Called on positions that are not finished.
    fn evaluate(&self, pos: &G) -> i32;

    /// An upper bound on the magnitude of [`Evaluator::evaluate`] over every position; at most
    /// [`EVAL_LIMIT`].
    fn bound(&self) -> i32 {
        EVAL_LIMIT
    }

    /// Whether the evaluation keeps a state along the search's line.
    fn tracks(&self) -> bool {
        false
    }

    /// Sets `state` to the state of `pos`.
    fn track(&self, _pos: &G, _state: &mut EvalState) {}

    /// Sets `out` to the state of `child`, one move after `parent`, whose state is `state`.
    fn track_move(&self, _parent: &G, _child: &G, _state: &EvalState, _out: &mut EvalState) {}

    /// [`Evaluator::evaluate`] of `pos` given its state.
    fn evaluate_tracked(&self, pos: &G, _state: &EvalState) -> i32 {
        self.evaluate(pos)
    }
}

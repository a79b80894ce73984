//! Exact solvers specialised for one game, the strongest machinery `joute solve` has: they use
//! the game's bitboards directly instead of the generic [`crate::games::Game`] interface.

pub mod connect4;
pub mod generic;
pub mod othello;

/// The exact value of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution<M> {
    /// The score for the side to move under perfect play, in the game's own convention
    /// (Othello: final disc difference; Connect 4: the convention of the test suites).
    pub score: i32,
    /// Moves that achieve the score (at least one unless the game is over).
    pub best_moves: Vec<M>,
    /// Positions visited.
    pub nodes: u64,
}

//! The search layer: the algorithms, their limits and statistics, the transposition table and
//! move ordering, and the exact solvers.

pub mod solver;

/// The score of a won game at the root; a win `p` plies from the root scores `WIN - p`, a loss
/// `-(WIN - p)`: win fast, lose slow. Far beyond any evaluation ([`crate::eval::EVAL_LIMIT`]).
pub const WIN: i32 = 1 << 24;

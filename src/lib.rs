//! joute: a self-play tournament and tuning harness for board-game engines.
//!
//! The crate is layered as DESIGN.md describes, lowest first: [`games`] (rules, notation,
//! hashing, perft), [`eval`] (features, weight vectors, the linear evaluator), [`search`] (the
//! algorithms and exact solvers), [`arena`] (engines, playing games); later layers add
//! tournaments, statistics, tuning ([`tune`]) and reports.
//! The `joute` binary is a thin command line over this library.

#![warn(missing_docs)]

pub mod arena;
pub mod eval;
pub mod games;
pub mod report;
pub mod search;
pub mod stats;
pub mod tune;

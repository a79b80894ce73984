//! joute: a self-play tournament and tuning harness for board-game engines.
//!
//! The crate is layered (see `docs/architecture.md`), lowest first: [`games`] (rules, notation,
//! hashing, perft), [`eval`] (features, weight vectors, the linear evaluator), [`search`] (the
//! algorithms and exact solvers), [`arena`] (engines, playing games, the schedule and the log);
//! then [`stats`] (ratings, SPRT), [`report`] (summaries, tables, charts, HTML), [`tournament`]
//! (a run in its folder, as a library), [`tune`] and [`serve`] (a live page on a running run).
//! The `joute` binary is a thin command line over this library.

#![warn(missing_docs)]

pub mod arena;
pub mod eval;
pub mod games;
pub mod inputs;
pub mod outputs;
pub mod report;
pub mod search;
pub mod serve;
pub mod stats;
pub mod tournament;
pub mod tune;

//! joute: a self-play tournament and tuning harness for board-game engines.
//!
//! The crate is layered as `../DESIGN.md` describes, lowest first: [`games`] (rules, notation,
//! hashing, perft); later layers add evaluation, search, the arena, statistics, tuning and
//! reports. The `joute` binary is a thin command line over this library.

#![warn(missing_docs)]

pub mod games;

//! The arena: engine configurations, playing one game between two engines, and (with the
//! tournaments layer) openings, scheduling, the parallel runner and the games log.

pub mod engine;
pub mod game;

pub use engine::{Engine, EngineError, EngineSpec};
pub use game::{GameRecord, MoveRecord, play_game};

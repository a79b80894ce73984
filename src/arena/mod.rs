//! The arena: engine configurations, tournament specs, openings, the schedule, playing one
//! game, the parallel runner, the games log, and outside engines' processes.

pub mod adjudication;
pub mod affinity;
pub mod bench;
pub mod cancel;
pub mod confine;
pub mod cpu;
pub mod descendants;
pub mod duel;
pub mod engine;
pub mod engine_log;
pub mod game;
pub mod hosted;
pub mod limits;
pub mod log;
pub mod openings;
pub mod outside;
pub mod process;
pub mod reader;
pub mod records;
pub mod replay;
pub mod runner;
pub mod schedule;
pub mod spec;
pub mod suites;
pub mod workload;

pub use cancel::CancelToken;
pub use engine::{Engine, EngineError, EngineSpec};
pub use game::{
    GameRecord, MoveRecord, Opening, Player, PlayerError, Referee, Termination, Thought,
    TimeControl, Turn, play_game,
};
pub use spec::{SpecError, TournamentSpec};

//! Tournaments as a library: a run in its output folder, opened or resumed, played with an
//! observer listening and a token to cancel it ([`session`]).
//!
//! This layer sits above the arena (games, schedule, runner, log) and the report's summary,
//! and below the command line and tuning, which both run tournaments through it.

pub mod session;
pub mod shared_sprt;

pub use session::{Ending, Observer, Opened, Options, Outcome, Reported, Session, SessionError};

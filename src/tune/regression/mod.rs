//! `method = "regression"` as a resumable tuning run: rounds of self-play games and fits
//! ([`run`]), and the rounds of Othello's pattern evaluation ([`pattern_round`]: their weights
//! files, the matches' pattern engines). The fits themselves are [`super::fit`]'s; the run
//! played by N processes sharing its folder is [`super::session::shard`] (above the session it
//! runs, as this room is below it).

pub mod pattern_round;
pub mod run;

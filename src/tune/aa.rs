//! The A/A check after tuning: the start against itself on held-out openings, judged pass,
//! fail or not meaningful.
//!
//! Two copies of a deterministic engine play the two games of a pair as the same game with
//! colours swapped, so a correct pipeline scores their A/A match exactly 0 ± 0: an interval of
//! no width, a pass that tested nothing. The A/A match is therefore played with `tie_break` on
//! (see `session`): each copy picks at random among the root moves that share the best score,
//! from the ChaCha generator its search is seeded with — the match's seed (derived from the
//! spec's), the game's id and the side (`arena::runner::play_slot`) — so the two games of a
//! pair differ and every game replays from its seed.
//!
//! The verdict ([`judge`]), from the games log:
//! - **fail** when the log and the match's summary credit the games differently (the summary
//!   counts by the schedule's colours, the log by the names of the engines that moved first);
//! - **not meaningful** when no pair is complete, or fewer than [`MIN_UNEVEN_PAIRS`] pairs did
//!   not score 1–1: the engine made no random choice (each pair one game played twice with
//!   colours swapped, which a correct pipeline scores exactly 1–1), every game was drawn, or
//!   nearly every pair split;
//! - **fail** when the 95% interval of the pentanomial Elo excludes 0 (`|Elo| > ±`, the
//!   interval the terminal, `summary.json` and the report print) — an honest setup fails 1
//!   time in 20;
//! - **pass** otherwise.
//!
//! A broken seating still fails with deterministic engines: a copy that moves first in both
//! games of a pair plays the same game twice and scores it twice, so the pairs are uneven.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::optimise::objective::Trial;
use crate::arena::log::GameLine;

/// The fewest pairs that did not score 1–1 (LL, LD, WD or WW) an A/A match needs to be judged.
/// Only they move the score and its variance: two copies that replay each pair as one game
/// with colours swapped, or draw every game, give none, and with a handful the normal
/// interval's false alarms exceed 5% (four pairs all on one side: 1 in 8).
pub const MIN_UNEVEN_PAIRS: u64 = 10;

/// What the A/A match says of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AaVerdict {
    /// The 95% interval of the start's Elo over itself contains 0.
    Pass,
    /// It does not, or the games are credited inconsistently.
    Fail,
    /// Too few pairs to judge: mirrored games, every game drawn, or every pair but a handful
    /// split 1–1.
    NotMeaningful,
}

impl AaVerdict {
    /// `pass`, `fail` or `not-meaningful`, as `summary.json` writes it.
    pub fn name(self) -> &'static str {
        match self {
            AaVerdict::Pass => "pass",
            AaVerdict::Fail => "fail",
            AaVerdict::NotMeaningful => "not-meaningful",
        }
    }
}

/// The A/A match judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AaCheck {
    /// The verdict.
    pub verdict: AaVerdict,
    /// Why, in one sentence.
    pub reason: String,
    /// Complete opening pairs.
    pub pairs: u64,
    /// Pairs whose two games differ (their moves after the opening).
    pub distinct_pairs: u64,
    /// Pairs that did not score 1–1 (LL, LD, WD or WW): the ones that carry the interval.
    pub uneven_pairs: u64,
    /// Games not drawn.
    pub decisive_games: u64,
}

/// The games of an A/A match, counted from its log: each game credited to the engine the log
/// names as having played it.
#[derive(Clone, Debug, Default)]
pub struct AaTally {
    /// Complete pairs.
    pub pairs: u64,
    /// Complete pairs whose two games differ.
    pub distinct_pairs: u64,
    /// Games not drawn.
    pub decisive_games: u64,
    /// The first engine's pair results, `[LL, LD, WL+DD, WD, WW]`.
    pub pentanomial: [u64; 5],
    /// The first game of each pair until its partner comes: the first engine's score, and the
    /// moves.
    pending: HashMap<u64, (f64, Vec<String>)>,
}

impl AaTally {
    /// Counts `game`, crediting engine `a` (the pairing's first engine) with its points.
    pub fn add(&mut self, game: GameLine, a: &str) -> Result<(), String> {
        let score = if game.first == a {
            game.score
        } else if game.second == a {
            1.0 - game.score
        } else {
            return Err(format!(
                "game {}: '{a}' played neither side ({} against {})",
                game.id, game.first, game.second
            ));
        };
        if game.score != 0.5 {
            self.decisive_games += 1;
        }
        match self.pending.remove(&game.pair) {
            None => {
                self.pending.insert(game.pair, (score, game.moves));
            }
            Some((other, moves)) => {
                self.pairs += 1;
                if moves != game.moves {
                    self.distinct_pairs += 1;
                }
                let index = ((other + score) * 2.0).round() as usize;
                self.pentanomial[index.min(4)] += 1;
            }
        }
        Ok(())
    }
}

/// The Elo of the first engine and the half-width of its 95% interval from its pair results
/// `[LL, LD, WL+DD, WD, WW]` (the pentanomial model; the numbers a match result shows).
pub fn pentanomial_elo(pentanomial: [u64; 5]) -> (f64, f64) {
    let mut trial = Trial::default();
    for (i, &n) in pentanomial.iter().enumerate() {
        trial.diffs[2 * i] = n;
    }
    let (elo, error) = trial.estimate();
    // -0.0 reads as a loss in a table.
    (if elo == 0.0 { 0.0 } else { elo }, error)
}

/// Judges an A/A match from its games (`tally`) and, when there is one, the pentanomial the
/// match's summary counted (by the schedule's colours): see the module documentation.
pub fn judge(tally: &AaTally, summary: Option<[u64; 5]>) -> AaCheck {
    let n = tally.pairs;
    let uneven = n - tally.pentanomial[2];
    let check = |verdict, reason: String| AaCheck {
        verdict,
        reason,
        pairs: n,
        distinct_pairs: tally.distinct_pairs,
        uneven_pairs: uneven,
        decisive_games: tally.decisive_games,
    };
    if n == 0 {
        return check(
            AaVerdict::NotMeaningful,
            "no pair of games was completed".into(),
        );
    }
    if let Some(s) = summary
        && s != tally.pentanomial
    {
        return check(
            AaVerdict::Fail,
            format!(
                "the games log credits the first copy with pairs {:?} but the match's summary with {s:?} ([LL, LD, WL+DD, WD, WW]): games are credited to the wrong side",
                tally.pentanomial
            ),
        );
    }
    if uneven < MIN_UNEVEN_PAIRS {
        let reason = if tally.distinct_pairs == 0 {
            format!(
                "the two games of each of the {n} pairs were the same moves with colours swapped: the engine made no random choice (tie_break found no equal root moves), so start against itself could only score 0"
            )
        } else if tally.decisive_games == 0 {
            format!(
                "all {} games were drawn: a setup favouring one side could not show",
                2 * n
            )
        } else {
            format!(
                "only {uneven} of the {n} pairs did not score 1-1 (at least {MIN_UNEVEN_PAIRS} needed): too few for the interval to say anything"
            )
        };
        return check(AaVerdict::NotMeaningful, reason);
    }
    let (elo, error) = pentanomial_elo(tally.pentanomial);
    if elo.abs() <= error + 1e-9 {
        check(
            AaVerdict::Pass,
            "the 95% interval of the pentanomial Elo contains 0".into(),
        )
    } else {
        check(
            AaVerdict::Fail,
            "the 95% interval of the pentanomial Elo excludes 0: the setup may favour one side (an honest setup fails 1 time in 20; rerun with another seed to tell)"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests;

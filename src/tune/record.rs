//! What a tuning run records: one [`HistoryLine`] per candidate (`history.jsonl`), and the
//! [`TuneRecord`] the report is drawn from (the parameters, the history, the confirmation).

use serde::{Deserialize, Serialize};

use super::optimise::params::Param;
use crate::stats::sprt::Sprt;

/// One candidate of a tuning run, as `history.jsonl` holds it (one JSON object per line).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryLine {
    /// The candidate's number, from 1 (hill climbing: the proposal; SPSA: the iteration).
    pub k: u64,
    /// `hill-climb` or `spsa`.
    pub method: String,
    /// The weights tested, in the order of the run's parameters (hill climbing: the neighbour;
    /// SPSA: θ+).
    pub candidate: Vec<f64>,
    /// What it played (hill climbing against the incumbent: the incumbent; SPSA: θ-). With a
    /// pool of opponents both the candidate and this vector played the pool on the same
    /// openings.
    pub opponent: Vec<f64>,
    /// The parameters the proposal moved (indices; SPSA: all of them).
    pub moved: Vec<usize>,
    /// Opening pairs played for this candidate.
    pub pairs: u64,
    /// Games played for this candidate (all sides; a pool doubles them).
    pub games: u64,
    /// Wins, draws and losses of the candidate's own games.
    pub wins: u64,
    /// See `wins`.
    pub draws: u64,
    /// See `wins`.
    pub losses: u64,
    /// The candidate's opening pairs, `[LL, LD, WL+DD, WD, WW]`.
    pub pentanomial: [u64; 5],
    /// The log-likelihood ratio when the candidate was tested by SPRT.
    pub llr: Option<f64>,
    /// The candidate's measured advantage over `opponent`, Elo, and its 95% half-width.
    pub elo: f64,
    /// See `elo`.
    pub elo_error: f64,
    /// Hill climbing: whether the candidate became the incumbent. SPSA: false, as there is no
    /// acceptance (every iteration moves θ by its gradient estimate; runs written before
    /// joute said so hold true).
    pub accepted: bool,
    /// The incumbent (hill climbing) or θ (SPSA) after this candidate.
    pub theta: Vec<f64>,
    /// Step sizes after this candidate (hill climbing), or `c_k` (SPSA), per parameter.
    pub steps: Vec<f64>,
    /// Games the run has played after this candidate (confirmation excluded).
    pub games_total: u64,
    /// Seconds the run has spent after this candidate, over all its sessions.
    pub seconds: f64,
    /// Regression: what the round's fit gave (absent for the other methods).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<RoundFit>,
}

/// A regression round's fit, as its history line records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundFit {
    /// Positions fitted (every round's so far).
    pub positions: u64,
    /// Games they came from.
    pub games: u64,
    /// The fitted scale K (logit per evaluation unit).
    pub k: f64,
    /// Mean log loss of the round's start weights, at K.
    pub start_loss: f64,
    /// Mean log loss of the fitted weights.
    pub loss: f64,
    /// Newton steps.
    pub iterations: u64,
    /// Whether the fit converged.
    pub converged: bool,
    /// Seconds the collection and the fit took.
    pub seconds: f64,
}

/// An Elo and its 95% half-width, `+12.3 ± 4.5`; never a zero-width interval (`docs/usage.md`):
/// a zero (or not finite) half-width, which games whose pairs all scored alike give (identical
/// programs, typically), is said in words, `+0.0 (no interval: every pair scored alike)`.
pub fn elo_interval_text(elo: f64, error: f64) -> String {
    if error > 0.0 && error.is_finite() {
        format!("{elo:+.1} ± {error:.1}")
    } else {
        format!("{elo:+.1} (no interval: every pair scored alike)")
    }
}

/// A confirmation (or A/A) match as the report shows it: `tuned` against `start`, from the
/// tuned side, on held-out openings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// Games played.
    pub games: u64,
    /// Wins, draws and losses of the tuned side.
    pub wins: u64,
    /// See `wins`.
    pub draws: u64,
    /// See `wins`.
    pub losses: u64,
    /// Pentanomial counts of the tuned side.
    pub pentanomial: [u64; 5],
    /// Elo of the tuned side over the start (pentanomial estimate), and its 95% half-width.
    pub elo: f64,
    /// See `elo`.
    pub error: f64,
    /// Likelihood of superiority, 0..=1.
    pub los: f64,
    /// Where the match's own report is (relative to the tuning run's folder).
    pub report: String,
    /// What each side's moves cost, tuned side first (absent in records written before
    /// joute recorded it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cost: Vec<SideCost>,
    /// Why the match was not played (no games, no figures): the tuned values, as sent, are
    /// the start's, so it would have been the start against itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

impl MatchResult {
    /// A match not played, for `reason`.
    pub fn skipped(reason: String) -> Self {
        MatchResult {
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            pentanomial: [0; 5],
            elo: 0.0,
            error: 0.0,
            los: 0.5,
            report: String::new(),
            cost: Vec::new(),
            skipped: Some(reason),
        }
    }

    /// The Elo and its 95% interval, `+12.3 ± 4.5`; never a zero-width interval: a match whose
    /// game pairs all scored alike (identical programs, typically) has no spread to measure,
    /// `+0.0 (no interval: every pair scored alike)`, and one not played says so.
    pub fn elo_text(&self) -> String {
        if self.skipped.is_some() {
            "not played".into()
        } else {
            elo_interval_text(self.elo, self.error)
        }
    }

    /// Whether the match has an interval to judge by ([`MatchResult::elo_text`]).
    pub fn has_interval(&self) -> bool {
        self.skipped.is_none() && self.error > 0.0 && self.error.is_finite()
    }
}

/// One side's cost in a match: its engine and the cost figures of its moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideCost {
    /// The engine's name in the match.
    pub engine: String,
    /// Its moves' figures.
    #[serde(flatten)]
    pub figures: crate::stats::cost::CostFigures,
}

/// Everything the tuning report draws from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneRecord {
    /// The run's name (the spec's `name`).
    pub name: String,
    /// The game.
    pub game: String,
    /// `hill-climb` or `spsa`.
    pub method: String,
    /// The engine tuned, in words (`alphabeta depth 3`).
    pub engine: String,
    /// What the candidates played: `incumbent`, or the pool's engines described.
    pub opponent: String,
    /// The seed.
    pub seed: u64,
    /// The tuned parameters; their `value` is the start.
    pub params: Vec<Param>,
    /// The final weights of the tuned parameters, in the same order (of tapered weights, the
    /// opening vector).
    pub tuned: Vec<f64>,
    /// A tapered regression fit: the endgame vector, in the same order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tuned_endgame: Option<Vec<f64>>,
    /// The acceptance test of hill climbing.
    pub sprt: Option<Sprt>,
    /// Every candidate, in order.
    pub history: Vec<HistoryLine>,
    /// The confirmation match (tuned against start on held-out openings), once played.
    pub confirmation: Option<MatchResult>,
    /// The A/A match (start against itself), when the spec asks for one.
    pub aa: Option<MatchResult>,
    /// Its verdict: pass, fail or not meaningful, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aa_check: Option<crate::tune::aa::AaCheck>,
    /// Where the tuned weights were written.
    pub weights_file: String,
    /// Games played in all, confirmation included.
    pub games: u64,
    /// Seconds spent in all.
    pub seconds: f64,
    /// An outside engine's run: its tuned options, and what its results depend on (absent for
    /// a built-in engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside: Option<OutsideRecord>,
}

/// What the record of an outside engine's run adds: the tuned values are the program's options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutsideRecord {
    /// The tuned options as a tournament spec writes them: `options = { noise = 3 }`.
    pub options: String,
    /// What the results depend on besides the spec and its seed (the program, the clock).
    pub not_reproducible: Vec<String>,
    /// Each tuned option's value as sent to the program, in the parameters' order (an integer
    /// option rounded: `7` for a tuned 7.47); empty in records written before joute kept it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sent: Vec<String>,
}

/// A tuned value as the report shows it: `sent` (the text the program got) and, when rounding
/// changed it, the estimate to two decimals: `sent 7 (estimate 7.47)`.
pub fn sent_text(sent: &str, estimate: f64) -> String {
    if sent.parse::<f64>().is_ok_and(|v| v == estimate) {
        format!("sent {sent}")
    } else {
        let e = format!("{estimate:.2}");
        let e = e.trim_end_matches('0').trim_end_matches('.');
        format!("sent {sent} (estimate {e})")
    }
}

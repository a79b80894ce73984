//! What a tuning run keeps between sessions, below the loops that play it ([`super::run`] for
//! hill climbing and SPSA, [`super::regression::run`] for regression): the budget's [`Plan`],
//! the optimiser's state, `checkpoint.json` ([`Checkpoint`]), `history.jsonl` read back, the
//! run's opening streams, and [`TuneError`].
//!
//! Nothing random is kept in the checkpoint: every proposal, Δ and game seed derives from the
//! spec's seed and the candidate's number, and the openings from the spec's seed and how many
//! the run has used (the stream is rebuilt and advanced that far on resume). A resumed run
//! therefore plays exactly the games an uninterrupted one would have.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::derive_seed;
use super::optimise::hill::HillState;
use super::optimise::spsa::SpsaState;
use super::record::HistoryLine;
use super::spec::{Method, ResolvedTuneSpec};
use crate::arena::EngineSpec;
use crate::arena::openings::{self, OpeningStream};
use crate::eval::Features;
use crate::tournament::SessionError;

/// Seed streams of a run (besides the optimisers' own).
const STREAM_OPENINGS: u64 = 101;
const STREAM_HELD_OUT: u64 = 102;

/// How a run's games are shared out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The cap on all games (the spec's `budget.games`, or `--budget`, whichever is smaller).
    pub total: Option<u64>,
    /// Games tuning may play: the cap less the confirmation and the A/A match.
    pub tuning: u64,
    /// Games of the confirmation match.
    pub confirm: u64,
    /// Games of the A/A match (0: none).
    pub aa: u64,
}

impl Plan {
    /// The plan of `spec` under an optional `--budget`. Under a cap from `--budget` the
    /// confirmation gets at most a quarter of it and the A/A match a tenth (each even, at
    /// least one pair), tuning the rest.
    pub fn new(spec: &ResolvedTuneSpec, budget: Option<u64>) -> Result<Plan, String> {
        if budget == Some(0) {
            return Err("--budget 0 plays nothing; give a positive number of games".into());
        }
        let even = |x: u64| (x / 2 * 2).max(2);
        let (mut confirm, mut aa) = (spec.confirm.games, spec.confirm.aa_games);
        if let Some(b) = budget {
            confirm = confirm.min(even(b / 4));
            if aa > 0 {
                aa = aa.min(even(b / 10));
            }
        }
        let total = match (spec.games, budget) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let tuning = match total {
            None => u64::MAX,
            Some(t) if t > confirm + aa => t - confirm - aa,
            Some(t) => {
                return Err(format!(
                    "--budget {t} leaves nothing for tuning after the confirmation ({confirm} games) and the A/A match ({aa}); give at least {}",
                    confirm + aa + 4
                ));
            }
        };
        Ok(Plan {
            total,
            tuning,
            confirm,
            aa,
        })
    }
}

/// The optimiser's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "kebab-case")]
pub enum MethodState {
    /// Hill climbing.
    HillClimb(HillState),
    /// SPSA.
    Spsa(SpsaState),
    /// Regression.
    Regression(RegressionState),
}

impl MethodState {
    /// The current best estimate of the tuned parameters (incumbent, or θ).
    pub fn theta(&self) -> &[f64] {
        match self {
            MethodState::HillClimb(h) => &h.theta,
            MethodState::Spsa(s) => &s.theta,
            MethodState::Regression(r) => &r.theta,
        }
    }

    /// The endgame vector of tapered weights, when the method fitted one (regression with
    /// `taper`).
    pub fn endgame(&self) -> Option<&[f64]> {
        match self {
            MethodState::Regression(r) => r.endgame.as_deref(),
            _ => None,
        }
    }

    /// Candidates so far.
    pub fn k(&self) -> u64 {
        match self {
            MethodState::HillClimb(h) => h.k,
            MethodState::Spsa(s) => s.k,
            MethodState::Regression(r) => r.k,
        }
    }
}

/// Regression's state in the checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegressionState {
    /// Rounds finished (fitted).
    pub k: u64,
    /// The weights of every feature: the start, then each round's fit.
    pub theta: Vec<f64>,
    /// Self-play games of the round under way, logged and counted.
    pub round_games: u64,
    /// The endgame vector of tapered weights (`[regression] taper`), after the first fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endgame: Option<Vec<f64>>,
    /// The pattern weights of the last round fitted (`evaluation = "patterns"`): their file
    /// in the run's folder ([`super::regression::pattern_round::round_file`]) and digest. The linear
    /// `theta` then stays the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patterns: Option<crate::arena::spec::PatternsFile>,
}

impl RegressionState {
    /// A fresh run from `start` weights.
    pub fn new(start: Vec<f64>) -> Self {
        RegressionState {
            k: 0,
            theta: start,
            round_games: 0,
            endgame: None,
            patterns: None,
        }
    }
}

/// Everything needed to resume a run (`checkpoint.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// joute's version.
    pub joute_version: String,
    /// The spec's hash; `--resume` compares it.
    pub spec_hash: String,
    /// The spec as resolved.
    pub spec: ResolvedTuneSpec,
    /// The budget's plan.
    pub plan: Plan,
    /// The optimiser.
    pub state: MethodState,
    /// Tuning games played.
    pub games: u64,
    /// Openings the run has used.
    pub openings_used: u64,
    /// Lines in `history.jsonl`.
    pub candidates: u64,
    /// Seconds spent tuning, over every session.
    pub seconds: f64,
    /// Whether tuning is over (the confirmation comes next).
    pub tuning_done: bool,
    /// The files of the folder joute wrote, relative to it (what `--fresh` removes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl Checkpoint {
    /// A fresh run of `spec` under `plan`.
    pub fn new(spec: ResolvedTuneSpec, plan: Plan) -> Checkpoint {
        let params = spec.params.clone();
        let state = match spec.method {
            Method::HillClimb => MethodState::HillClimb(HillState::new(
                params,
                spec.hill
                    .clone()
                    .expect("a hill-climb spec has its settings"),
            )),
            Method::Spsa => MethodState::Spsa(SpsaState::new(
                params,
                spec.spsa.clone().expect("an spsa spec has its settings"),
            )),
            Method::Regression => MethodState::Regression(RegressionState::new(
                super::optimise::params::values(&params),
            )),
        };
        Checkpoint {
            joute_version: env!("CARGO_PKG_VERSION").to_string(),
            spec_hash: spec.hash(),
            spec,
            plan,
            state,
            games: 0,
            openings_used: 0,
            candidates: 0,
            seconds: 0.0,
            tuning_done: false,
            files: Vec::new(),
        }
    }

    /// Reads a checkpoint and checks that it is whole: its spec is valid and hashes to the
    /// recorded hash, its state fits the spec.
    pub fn load(path: &Path) -> Result<Checkpoint, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read the checkpoint: {e}", path.display()))?;
        let ck: Checkpoint = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a joute checkpoint: {e}", path.display()))?;
        ck.spec
            .check()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if ck.spec.hash() != ck.spec_hash {
            return Err(format!(
                "{}: the recorded spec does not match its hash (edited?)",
                path.display()
            ));
        }
        let n = ck.spec.params.len();
        if ck.state.theta().len() != n || ck.state.k() != ck.candidates {
            return Err(format!(
                "{}: the optimiser's state does not fit the spec",
                path.display()
            ));
        }
        Ok(ck)
    }

    /// Writes the checkpoint to `path` through a temporary file and a rename. Not synced to
    /// disk on every candidate (candidates can take milliseconds): a killed process loses
    /// nothing, a power cut at most the last candidates.
    pub fn save(&mut self, path: &Path) -> std::io::Result<()> {
        // The list of the folder's files joute wrote, brought up to date (what `--fresh`
        // removes).
        let dir = path.parent().unwrap_or(Path::new(""));
        self.files = crate::outputs::written_under(dir, &self.files);
        let json = serde_json::to_vec_pretty(self).expect("a checkpoint serialises");
        crate::outputs::write_with(path, false, |out| out.write_all(&json))
    }

    /// Games per opening: 2 against the incumbent, 4 against a pool (both vectors play).
    pub fn games_per_pair(&self) -> u64 {
        if self.spec.pool.is_empty() { 2 } else { 4 }
    }
}

/// The two matches after tuning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchKind {
    /// Tuned against start, on held-out openings (`confirm/`).
    Confirm,
    /// Start against itself, on other held-out openings (`aa/`).
    Aa,
}

impl MatchKind {
    /// The match's folder in the run's.
    pub fn folder(self) -> &'static str {
        match self {
            MatchKind::Confirm => "confirm",
            MatchKind::Aa => "aa",
        }
    }
}

/// Where a run was when it was interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Tuning: the checkpoint holds every finished candidate (or chunk of a regression round).
    Tuning,
    /// Playing a match: its games so far are in its folder.
    Match(MatchKind),
}

/// Why a run stopped short.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// The spec, the folder or the options are refused before any game (an input error).
    #[error("{0}")]
    Input(String),
    /// Something failed after the start, said in full (a match, a file written at the end).
    #[error("{0}")]
    Failed(String),
    /// Games could not be played (no fresh openings left).
    #[error("{0}")]
    Games(String),
    /// Cancelled (Ctrl-C), at the stage it names; `--resume` continues from there (the
    /// checkpoint is saved, a match's games are in its folder).
    #[error("interrupted")]
    Interrupted(Stage),
    /// `history.jsonl` or `checkpoint.json` could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A match, as a tournament session, was refused or failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The observer could not show the run's progress (the command line's output closed): the
    /// run stops there, as it would interrupted.
    #[error(transparent)]
    Observer(std::io::Error),
}

impl TuneError {
    /// Whether the user's input is at fault (the command line exits 2), rather than the run.
    pub fn is_input(&self) -> bool {
        match self {
            TuneError::Input(_) => true,
            TuneError::Session(e) => e.is_input(),
            _ => false,
        }
    }
}

pub(super) fn io(path: &Path) -> impl Fn(std::io::Error) -> TuneError + '_ {
    move |e| TuneError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// The engine tuned, as the arena builds it.
pub fn engine_spec(spec: &ResolvedTuneSpec) -> EngineSpec {
    EngineSpec {
        name: "tuned".into(),
        config: spec.engine.config(),
        weights: None,
        patterns: None,
        exact: Some(spec.engine.exact),
    }
}

/// The run's opening stream, advanced past the `used` openings already played.
pub fn opening_stream<G: Features>(
    start: G,
    spec: &ResolvedTuneSpec,
    used: u64,
) -> Result<OpeningStream<G>, String> {
    let mut stream = OpeningStream::new(
        start,
        spec.plies,
        derive_seed(spec.seed, STREAM_OPENINGS, 0),
        spec.balance.clone(),
    )
    .with_min_plies(spec.min_plies.unwrap_or(spec.plies));
    for _ in 0..used {
        stream.next_opening()?;
    }
    Ok(stream)
}

/// The openings a supply check draws at most, of each kind: a board with that many distinct
/// playable openings is taken to have enough (only small boards and short openings run out).
const SUPPLY_CHECKED: u64 = 20_000;

/// Checks before the first game that the board has the openings `plan` needs: the tuning's (a
/// capped plan's, one per `games_per_pair` games; an uncapped plan's are not known in advance)
/// and the matches' held-out ones, which must differ from them, drawn from the run's own
/// streams (up to [`SUPPLY_CHECKED`] of each). The error keeps the stream's advice.
pub fn check_opening_supply<G: Features>(
    start: G,
    spec: &ResolvedTuneSpec,
    plan: &Plan,
    games_per_pair: u64,
) -> Result<(), String> {
    let tuning = if plan.total.is_some() {
        plan.tuning / games_per_pair
    } else {
        0
    };
    let held = plan.confirm / 2 + plan.aa / 2;
    let mut stream = opening_stream(start, spec, 0)?;
    for _ in 0..tuning.min(SUPPLY_CHECKED) {
        stream.next_opening().map_err(|e| {
            format!("the plan needs {tuning} openings to tune and {held} more for its matches: {e}")
        })?;
    }
    held_out_openings(start, spec, &stream, 0, held.min(SUPPLY_CHECKED)).map_err(|e| {
        format!("the plan needs {held} openings of confirm.plies for its matches besides the {tuning} it tunes on: {e}")
    })?;
    Ok(())
}

/// `count` held-out openings (in notation) from a seed no tuning stream uses, none of them a
/// position `used` gave; `skip` openings of that stream are passed over first (the A/A match
/// takes those after the confirmation's).
pub fn held_out_openings<G: Features>(
    start: G,
    spec: &ResolvedTuneSpec,
    used: &OpeningStream<G>,
    skip: u64,
    count: u64,
) -> Result<Vec<String>, String> {
    let mut stream = OpeningStream::new(
        start,
        spec.confirm.plies,
        derive_seed(spec.seed, STREAM_HELD_OUT, 0),
        spec.balance.clone(),
    );
    for p in used.seen() {
        stream.exclude(*p);
    }
    for _ in 0..skip {
        stream.next_opening()?;
    }
    let moves = (0..count)
        .map(|_| stream.next_opening().map(|(m, _)| m))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(openings::notation(&start, &moves))
}

/// Keeps the first `lines` lines of the history at `path` (a run killed between appending a
/// line and saving its checkpoint wrote one more) and returns them.
pub fn read_history(path: &Path, lines: u64) -> Result<Vec<HistoryLine>, TuneError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let mut history = Vec::new();
    for (i, line) in text.lines().take(lines as usize).enumerate() {
        let h: HistoryLine = serde_json::from_str(line).map_err(|e| TuneError::Io {
            path: path.to_path_buf(),
            message: format!("line {}: {e}", i + 1),
        })?;
        history.push(h);
    }
    if (history.len() as u64) < lines {
        return Err(TuneError::Io {
            path: path.to_path_buf(),
            message: format!("holds {} candidates, the checkpoint {lines}", history.len()),
        });
    }
    Ok(history)
}

/// The file of a sharded regression run's folder saying how many shards play it
/// (`super::session::shard`).
pub const SHARDS_FILE: &str = "shards.json";

/// The number of shards of the run in `dir`, when it is a sharded regression run.
pub fn sharded_run(dir: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(dir.join(SHARDS_FILE)).ok()?;
    serde_json::from_str::<serde_json::Value>(&text).ok()?["shards"].as_u64()
}

/// Bytes of the first `lines` lines of `text`.
pub(super) fn prefix_bytes(text: &str, lines: u64) -> u64 {
    text.split_inclusive('\n')
        .take(lines as usize)
        .map(|l| l.len() as u64)
        .sum()
}

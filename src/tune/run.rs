//! A tuning run on real games: the optimiser's loop, `history.jsonl` (one line per candidate,
//! appended and flushed) and `checkpoint.json` (rewritten atomically after every candidate), so
//! that a killed run resumes exactly where it stopped. What the checkpoint holds, and why a
//! resumed run plays the games an uninterrupted one would, is in [`super::checkpoint`].

use std::path::Path;
use std::time::Instant;

use super::checkpoint::{
    Checkpoint, MethodState, Stage, TuneError, engine_spec, io, opening_stream, prefix_bytes,
};
use super::optimise::objective::Trial;
use super::optimise::oracle::EngineOracle;
use super::outside::oracle::{OutsideOracle, RunOracle};
use super::record::HistoryLine;
use super::spec::ResolvedTuneSpec;
use crate::arena::log::LogWriter;
use crate::arena::openings::OpeningStream;
use crate::arena::{CancelToken, EngineSpec};
use crate::eval::{Features, Weights};

/// Plays the run's candidates until its budget or its iterations are spent, appending each to
/// `dir/history.jsonl` and saving `dir/checkpoint.json` after each; `on_step` sees every
/// history line as it is written. Returns the run's opening stream (for the held-out
/// openings). The history file is locked against a second process.
pub fn tune<G: Features>(
    start: G,
    ck: &mut Checkpoint,
    dir: &Path,
    threads: usize,
    cancel: &CancelToken,
    mut on_step: impl FnMut(&HistoryLine, &Checkpoint),
) -> Result<OpeningStream<G>, TuneError> {
    if matches!(ck.state, MethodState::Regression(_)) {
        return super::regression::run::tune_by_regression(
            start, ck, dir, threads, cancel, on_step,
        );
    }
    let history_path = dir.join("history.jsonl");
    let checkpoint_path = dir.join("checkpoint.json");
    let mut history = LogWriter::lock(&history_path).map_err(io(&history_path))?;
    let text = std::fs::read_to_string(&history_path).map_err(io(&history_path))?;
    history
        .cut(prefix_bytes(&text, ck.candidates))
        .map_err(io(&history_path))?;
    let spec = ck.spec.clone();
    let stream = opening_stream(start, &spec, ck.openings_used).map_err(TuneError::Games)?;
    let mut oracle = run_oracle(start, &spec, stream, threads, dir, cancel)?;
    let clock = Instant::now();
    let seconds_before = ck.seconds;
    let per_pair = ck.games_per_pair();
    while !ck.tuning_done {
        if cancel.is_cancelled() {
            // Between two candidates: the checkpoint holds every finished one.
            ck.seconds = seconds_before + clock.elapsed().as_secs_f64();
            ck.save(&checkpoint_path).map_err(io(&checkpoint_path))?;
            return Err(TuneError::Interrupted(Stage::Tuning));
        }
        let left_pairs = ck.plan.tuning.saturating_sub(ck.games) / per_pair;
        let Some(mut line) = next_candidate(&mut ck.state, &spec, &mut oracle, left_pairs, cancel)?
        else {
            ck.tuning_done = true;
            break;
        };
        ck.games += line.games;
        ck.openings_used = oracle.openings().given();
        ck.candidates += 1;
        ck.seconds = seconds_before + clock.elapsed().as_secs_f64();
        line.games_total = ck.games;
        line.seconds = ck.seconds;
        history.append_json(&line).map_err(io(&history_path))?;
        ck.save(&checkpoint_path).map_err(io(&checkpoint_path))?;
        on_step(&line, ck);
    }
    ck.seconds = seconds_before + clock.elapsed().as_secs_f64();
    ck.save(&checkpoint_path).map_err(io(&checkpoint_path))?;
    Ok(oracle.into_openings())
}

/// The engines of the tuning spec's pool, each with its fixed weights.
fn pool_engines(spec: &ResolvedTuneSpec) -> Vec<(EngineSpec, Weights)> {
    spec.pool
        .iter()
        .map(|e| {
            (
                EngineSpec {
                    name: e.name.clone(),
                    config: e.config(),
                    weights: None,
                    patterns: None,
                    exact: Some(e.exact),
                },
                Weights {
                    game: spec.game.clone(),
                    values: e.weights.iter().map(|(_, w)| *w).collect(),
                    endgame: None,
                    origin: e.weights_origin.clone(),
                },
            )
        })
        .collect()
}

/// What plays the run's candidates: the built-in engine's weights in-process, or an outside
/// program's options through the arena.
fn run_oracle<G: Features>(
    start: G,
    spec: &ResolvedTuneSpec,
    stream: OpeningStream<G>,
    threads: usize,
    dir: &Path,
    cancel: &CancelToken,
) -> Result<RunOracle<G>, TuneError> {
    Ok(if spec.is_outside() {
        // An outside program's options: its games are the arena's (see `outside::oracle`).
        RunOracle::Outside(Box::new(
            OutsideOracle::new(start, spec, stream, threads, &dir.join("engines"), cancel)
                .map_err(TuneError::Input)?,
        ))
    } else {
        RunOracle::Engine(Box::new(EngineOracle::new(
            start,
            engine_spec(spec),
            spec.start_weights(),
            spec.features.clone(),
            pool_engines(spec),
            stream,
            threads,
        )))
    })
}

/// Plays the next candidate of the hill climb or SPSA iteration in `state` within `left_pairs`
/// pairs of games, and returns its history line (totals not yet filled); `None` when the
/// method is done (its budget or its iterations spent).
fn next_candidate<G: Features>(
    state: &mut MethodState,
    spec: &ResolvedTuneSpec,
    oracle: &mut RunOracle<G>,
    left_pairs: u64,
    cancel: &CancelToken,
) -> Result<Option<HistoryLine>, TuneError> {
    Ok(Some(match state {
        MethodState::HillClimb(h) => {
            if left_pairs == 0 || spec.iterations.is_some_and(|n| h.k >= n) {
                return Ok(None);
            }
            let opponent = h.theta.clone();
            let step = h
                .step_within(oracle, left_pairs)
                .map_err(|e| step_failed(cancel, e))?;
            history_line(
                spec,
                step.k,
                step.candidate,
                opponent,
                step.moved,
                &step.result,
                step.llr,
                step.accepted,
                step.theta,
                h.steps.clone(),
            )
        }
        MethodState::Spsa(s) => {
            if left_pairs < s.config.pairs || s.finished() {
                return Ok(None);
            }
            let k = s.k + 1;
            let c_k = (0..s.params.len()).map(|i| s.gains(i, k).0).collect();
            let step = s.step(oracle).map_err(|e| step_failed(cancel, e))?;
            let all = (0..s.params.len()).collect();
            history_line(
                spec,
                step.k,
                step.plus,
                step.minus,
                all,
                &step.result,
                None,
                // No acceptance in SPSA: every iteration moves θ by its estimate.
                false,
                step.theta,
                c_k,
            )
        }
        MethodState::Regression(_) => unreachable!("regression runs in regression_run"),
    }))
}

/// A candidate that could not be played: interrupted when `cancel` was raised during its games
/// (an outside engine's candidate stops between two games; nothing of it is recorded, the
/// checkpoint holds every candidate before it), else the oracle's error.
fn step_failed(cancel: &CancelToken, message: String) -> TuneError {
    if cancel.is_cancelled() {
        TuneError::Interrupted(Stage::Tuning)
    } else {
        TuneError::Games(message)
    }
}

/// One history line (totals filled in by the caller).
#[allow(clippy::too_many_arguments)]
fn history_line(
    spec: &ResolvedTuneSpec,
    k: u64,
    candidate: Vec<f64>,
    opponent: Vec<f64>,
    moved: Vec<usize>,
    result: &Trial,
    llr: Option<f64>,
    accepted: bool,
    theta: Vec<f64>,
    steps: Vec<f64>,
) -> HistoryLine {
    let (elo, elo_error) = result.estimate();
    HistoryLine {
        k,
        method: spec.method.name().to_string(),
        candidate,
        opponent,
        moved,
        pairs: result.pairs(),
        games: result.games,
        wins: result.wdl[0],
        draws: result.wdl[1],
        losses: result.wdl[2],
        pentanomial: result.pentanomial.0,
        llr,
        elo,
        elo_error,
        accepted,
        theta,
        steps,
        games_total: 0,
        seconds: 0.0,
        fit: None,
    }
}

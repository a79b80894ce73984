//! `[regression] evaluation = "patterns"`: a regression tuning run of Othello's pattern
//! evaluation ([`crate::eval::pattern`]) instead of the linear weights.
//!
//! Round 1 plays with the spec's `start` pattern weights, or else with the engine's linear
//! weights; every later round with the weights the round before fitted. Each round fits the
//! positions of every round so far ([`crate::tune::fit::pattern_fit`], in the spec's phases and overlap),
//! from the weights the round played with (zeros when it played with linear weights), the ridge
//! pulling towards them: each round refines the last, as `joute fit --patterns --weights` does.
//! A round's weights are written to `patterns/round-R.jpw` in the run's folder (a temporary
//! file, then a rename) and the checkpoint names the file with a digest of its weights, which is
//! checked whenever it is read back. The fit is a deterministic function of the logs and the
//! previous weights, so a resumed run writes the same files bit for bit.

use std::path::Path;

use crate::arena::CancelToken;
use crate::arena::engine::{EngineSpec, SharedPatterns};
use crate::arena::log::{LogWriter, scan_log};
use crate::arena::spec::PatternsFile;
use crate::eval::pattern::{PatternEval, PatternWeights, SCALE};
use crate::eval::{Features, Weights};
use crate::search::Limits;
use crate::tune::checkpoint::Stage;
use crate::tune::checkpoint::{MethodState, TuneError};
use crate::tune::fit::pattern_fit::{PatternFitOptions, collect_patterns, fit_patterns};
use crate::tune::fit::regression::CollectOptions;
use crate::tune::fit::search_labels::{SearchScores, read_scores, score_games};
use crate::tune::record::RoundFit;
use crate::tune::spec::{PatternRegression, ResolvedTuneSpec};

/// The tuned pattern weights in the run's folder.
pub const TUNED_PATTERNS: &str = "tuned-weights.jpw";

/// The folder of the rounds' pattern weights in the run's folder.
pub const PATTERNS_DIR: &str = "patterns";

/// The file of round `round`'s (from 0) fitted weights, relative to the run's folder.
pub fn round_file(round: u64) -> String {
    format!("{PATTERNS_DIR}/round-{}.jpw", round + 1)
}

/// Loads the pattern weights `file` records (its path relative to `dir`, or as written when
/// `dir` is `None`), refusing a file whose weights no longer match the recorded digest.
pub fn load(
    file: &PatternsFile,
    dir: Option<&Path>,
) -> Result<(PatternsFile, PatternWeights), TuneError> {
    let path = match dir {
        Some(d) => d.join(&file.path),
        None => file.path.clone().into(),
    };
    let (shared, weights) = SharedPatterns::load(&path)
        .map_err(|e| TuneError::Failed(format!("the pattern weights: {e}")))?;
    let loaded = PatternsFile::new(&file.path, &weights, shared);
    if loaded != *file {
        return Err(TuneError::Failed(format!(
            "{}: the pattern weights changed since the run recorded them (digest {}, now {}); restore the file, or start the run afresh in another folder",
            path.display(),
            file.digest,
            loaded.digest
        )));
    }
    Ok((loaded, weights))
}

/// The pattern weights the run plays with now: the last round's, else the spec's start;
/// `None` before the first fit of a run without a start (the linear weights play).
pub fn current(
    spec: &ResolvedTuneSpec,
    state: &MethodState,
    dir: &Path,
) -> Result<Option<(PatternsFile, PatternWeights)>, TuneError> {
    let fitted = match state {
        MethodState::Regression(r) => r.patterns.as_ref(),
        _ => None,
    };
    match (fitted, spec.patterns().and_then(|p| p.start.as_ref())) {
        (Some(file), _) => load(file, Some(dir)).map(Some),
        (None, Some(start)) => load(start, None).map(Some),
        (None, None) => Ok(None),
    }
}

/// The search scores of a round's self-play positions, beside its log `log`
/// (`selfplay/round-R.scores.jsonl`).
pub fn scores_file(log: &Path) -> std::path::PathBuf {
    log.with_extension("scores.jsonl")
}

/// Stream of the labelling searches' seeds.
const STREAM_LABELS: u64 = 106;

/// Games per chunk of the labelling searches, per thread.
const LABEL_CHUNK_PER_THREAD: usize = 16;

/// Whether round `round` (from 0) plays with pattern weights: every round but a first one
/// without a start (it plays with the linear weights, whose scores are no logits: its
/// positions keep their results as labels).
fn plays_patterns(config: &PatternRegression, round: u64) -> bool {
    round > 0 || config.start.is_some()
}

/// The inputs of [`score_round`].
pub struct RoundScoring<'a> {
    /// The round's self-play log.
    pub log: &'a Path,
    /// The round, from 0.
    pub round: u64,
    /// The engine the round played with (its pattern evaluation loaded).
    pub engine: &'a EngineSpec,
    /// Its linear weights (unused beside the patterns, needed to build it).
    pub weights: &'a Weights,
    /// Which positions the fit reads.
    pub collect: &'a CollectOptions,
    /// The run's seed.
    pub seed: u64,
    /// Worker threads of `pool`.
    pub threads: usize,
}

/// With `search_labels`, scores round `job.round`'s self-play positions by the round's engine
/// at the labels' depth into [`scores_file`] (resumed where a stopped run left it); nothing
/// for a round played with linear weights or without search labels.
pub fn score_round<G: Features>(
    start: G,
    config: &PatternRegression,
    job: &RoundScoring,
    pool: &rayon::ThreadPool,
    cancel: &CancelToken,
) -> Result<(), TuneError> {
    let Some(search) = config.search.as_ref() else {
        return Ok(());
    };
    if !plays_patterns(config, job.round) {
        return Ok(());
    }
    let mut engine = job.engine.clone();
    engine.config.limits = Limits::depth(search.depth);
    let out = scores_file(job.log);
    let round = job.round;
    let seed = job.seed;
    score_log(
        start,
        &ScoreJob {
            log: job.log,
            out: &out,
            collect: job.collect,
            engine: &engine,
            weights: job.weights,
            chunk: LABEL_CHUNK_PER_THREAD * job.threads.max(1),
        },
        |id| crate::tune::derive_seed(seed, STREAM_LABELS, round << 32 | id),
        pool,
        cancel,
    )
}

/// The search scores of the rounds whose logs are `logs` (round 1's first) for their fit, or
/// `None` without search labels.
pub fn round_scores(
    config: &PatternRegression,
    logs: &[&Path],
) -> Result<Option<SearchScores>, TuneError> {
    let Some(search) = config.search.as_ref() else {
        return Ok(None);
    };
    let logs = logs
        .iter()
        .enumerate()
        .map(|(r, log)| {
            plays_patterns(config, r as u64)
                .then(|| read_scores(&scores_file(log)))
                .transpose()
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(TuneError::Games)?;
    Ok(Some(SearchScores {
        mix: search.mix,
        logit_per_unit: 1.0 / SCALE,
        logs,
    }))
}

/// Fits round `round`'s pattern weights on the self-play logs `logs` (every round's so far)
/// from `from` (the weights the round played with; `None`: zeros), its positions relabelled
/// by `scores` when given, writes them to [`round_file`] in `dir` and returns their record and
/// the round's fit line (`games`: the games the positions came from; K is 1: pattern weights
/// carry their own scale).
pub fn fit_round(
    config: &PatternRegression,
    collect: &CollectOptions,
    logs: &[&Path],
    scores: Option<&SearchScores>,
    from: Option<&PatternWeights>,
    dir: &Path,
    round: u64,
) -> Result<(PatternsFile, RoundFit), TuneError> {
    let clock = std::time::Instant::now();
    let (data, games, _, _) =
        collect_patterns(logs, collect, config.phases, config.overlap, scores)
            .map_err(TuneError::Games)?;
    if data.is_empty() {
        return Err(TuneError::Games(format!(
            "no positions to fit after round {}: the games are shorter than regression.skip_plies ({})",
            round + 1,
            collect.skip_plies
        )));
    }
    let start = match from {
        Some(w) => w.in_phases(config.phases),
        None => PatternWeights::zeros(config.phases),
    };
    let options = PatternFitOptions {
        ridge: config.ridge,
        counts: config.counts,
        max_iterations: config.fit_iterations,
        ..PatternFitOptions::default()
    };
    let fitted = fit_patterns(&data, &start, &options).map_err(TuneError::Games)?;
    let name = round_file(round);
    let path = dir.join(&name);
    let folder = dir.join(PATTERNS_DIR);
    std::fs::create_dir_all(&folder)
        .and_then(|()| fitted.weights.write_binary(&path))
        .map_err(|e| TuneError::Failed(format!("{}: {e}", path.display())))?;
    let shared = SharedPatterns(std::sync::Arc::new(PatternEval::new(&fitted.weights)));
    let file = PatternsFile::new(&name, &fitted.weights, shared);
    let line = RoundFit {
        positions: fitted.positions as u64,
        games,
        k: 1.0,
        start_loss: fitted.start_loss,
        loss: fitted.loss,
        // The slowest phase's.
        iterations: fitted.iterations.iter().copied().max().unwrap_or(0) as u64,
        converged: fitted.all_converged(),
        seconds: clock.elapsed().as_secs_f64(),
    };
    Ok((file, line))
}

/// The pattern weights of the confirmation's two engines, tuned and start (the A/A match
/// plays the start's): `None` for an engine that plays with its linear weights. `[None, None]`
/// for a run of the linear weights.
pub fn match_patterns(
    spec: &ResolvedTuneSpec,
    state: &MethodState,
    dir: &Path,
) -> Result<[Option<PatternsFile>; 2], TuneError> {
    let Some(config) = spec.patterns() else {
        return Ok([None, None]);
    };
    let start = match &config.start {
        Some(s) => Some(load(s, None)?.0),
        None => None,
    };
    let tuned = match current(spec, state, dir)? {
        Some((file, _)) => Some(file),
        None => start.clone(),
    };
    Ok([tuned, start])
}

/// Writes the tuned pattern weights (the last round's, else the start's) to `path` (a
/// temporary file, then a rename).
pub fn write_tuned(
    spec: &ResolvedTuneSpec,
    state: &MethodState,
    dir: &Path,
    path: &Path,
) -> Result<(), TuneError> {
    let (_, weights) = current(spec, state, dir)?.ok_or_else(|| {
        TuneError::Failed(
            "no pattern weights to write: no round was fitted and the spec has no start".into(),
        )
    })?;
    weights.write_binary(path).map_err(|e| {
        TuneError::Failed(format!(
            "cannot write the tuned pattern weights to {}: {e}",
            path.display()
        ))
    })
}

/// What [`score_log`] does.
pub struct ScoreJob<'a> {
    /// The games log whose positions are scored.
    pub log: &'a Path,
    /// The scores file, appended to (and cut to its complete lines when resumed).
    pub out: &'a Path,
    /// Which positions.
    pub collect: &'a CollectOptions,
    /// The searching engine (its budget: the labels' depth).
    pub engine: &'a EngineSpec,
    /// Its weights.
    pub weights: &'a Weights,
    /// Games per chunk: the unit between two flushes of the scores file.
    pub chunk: usize,
}

/// Scores every game of `job.log` not yet in `job.out`, appending a line per game in chunks (a
/// killed run resumes after the last complete line), on `pool`. Stops with
/// [`TuneError::Interrupted`] between chunks when `cancel` fires.
pub fn score_log<G: Features>(
    start: G,
    job: &ScoreJob,
    seed_of: impl Fn(u64) -> u64 + Sync,
    pool: &rayon::ThreadPool,
    cancel: &CancelToken,
) -> Result<(), TuneError> {
    let io = |path: &Path, e: std::io::Error| TuneError::Failed(format!("{}: {e}", path.display()));
    let mut games = Vec::new();
    scan_log(job.log, |line| {
        games.push(line);
        Ok(())
    })
    .map_err(|e| TuneError::Games(format!("{}: {e}", job.log.display())))?;
    let mut out = LogWriter::lock(job.out).map_err(|e| io(job.out, e))?;
    let text = std::fs::read_to_string(job.out).map_err(|e| io(job.out, e))?;
    let complete = text.matches('\n').count();
    out.cut(crate::tune::checkpoint::prefix_bytes(
        &text,
        complete as u64,
    ))
    .map_err(|e| io(job.out, e))?;
    for chunk in games[complete.min(games.len())..].chunks(job.chunk.max(1)) {
        if cancel.is_cancelled() {
            return Err(TuneError::Interrupted(Stage::Tuning));
        }
        let lines = pool
            .install(|| score_games(start, chunk, job.collect, job.engine, job.weights, &seed_of))
            .map_err(|e| TuneError::Games(format!("{}: {e}", job.log.display())))?;
        for line in &lines {
            out.append_json(line).map_err(|e| io(job.out, e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Othello;
    use crate::tune::fit::regression::tests::{random_lines, write_log};
    use crate::tune::fit::search_labels::tests::engine;

    #[test]
    fn a_torn_scores_file_resumes_to_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let log = write_log(dir.path(), &random_lines(Othello::start(), 9, 60, 5, 4));
        let (spec, _) = engine(2);
        let weights = Weights::default_for(&Othello::start());
        let collect = CollectOptions {
            max_per_game: Some(6),
            ..CollectOptions::default()
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let run = |out: &Path| {
            let job = ScoreJob {
                log: &log,
                out,
                collect: &collect,
                engine: &spec,
                weights: &weights,
                chunk: 4,
            };
            score_log(Othello::start(), &job, |id| id, &pool, &CancelToken::new())
        };
        let whole = dir.path().join("whole.jsonl");
        run(&whole).unwrap();
        let text = std::fs::read_to_string(&whole).unwrap();
        assert_eq!(text.lines().count(), 9);
        let lines = read_scores(&whole).unwrap();
        assert!(lines.iter().all(|l| l.scores.len() == 6), "{lines:?}");
        // Three lines and half a fourth, as a killed run leaves them.
        let torn = dir.path().join("torn.jsonl");
        let cut = crate::tune::checkpoint::prefix_bytes(&text, 3) as usize + 7;
        std::fs::write(&torn, &text[..cut]).unwrap();
        run(&torn).unwrap();
        assert_eq!(std::fs::read_to_string(&torn).unwrap(), text);
        // A cancelled run stops before its next chunk.
        let cancel = CancelToken::new();
        cancel.cancel();
        let job = ScoreJob {
            log: &log,
            out: &dir.path().join("never.jsonl"),
            collect: &collect,
            engine: &spec,
            weights: &weights,
            chunk: 4,
        };
        let stopped = score_log(Othello::start(), &job, |id| id, &pool, &cancel);
        assert!(matches!(
            stopped,
            Err(TuneError::Interrupted(Stage::Tuning))
        ));
    }
}

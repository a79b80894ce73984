//! `method = "regression"`: tuning by regression on positions of self-play games, as a
//! resumable run in the tuning folder like the other methods.
//!
//! Each round plays `[regression] games` self-play games of the tuned engine with the current
//! weights (the start in round 1), each from a fresh opening of the run's stream, played once
//! (a colour-swapped pair of one deterministic engine against itself would be the same game
//! twice), logged to `selfplay/round-R.jsonl` (the games log format, readable by `joute fit`
//! and `joute report`-free tools). Then the positions of every round so far are collected and
//! K and the weights fitted ([`crate::tune::fit::regression`]); the fitted weights are the next round's.
//! One `history.jsonl` line per round says what the fit gave.
//!
//! **Resuming**: games are played in chunks; after each chunk the log is flushed and
//! `checkpoint.json` saved with the games and openings used. A run killed mid-chunk left log
//! lines beyond the checkpoint: they are cut, and the chunk replayed (every game is a pure
//! function of its opening, engine and weights). The fit is a deterministic function of the
//! logs, so a resumed run ends with the same weights bit for bit as an uninterrupted one.

use std::path::Path;
use std::time::Instant;

use super::pattern_round;
use crate::arena::engine::Engine;
use crate::arena::game::{Opening, Referee, play_game};
use crate::arena::log::{GameLine, LogWriter, scan_log};
use crate::arena::openings::OpeningStream;
use crate::arena::spec::PatternsFile;
use crate::arena::{CancelToken, EngineSpec};
use crate::eval::pattern::PatternWeights;
use crate::eval::weights::MAX_WEIGHT;
use crate::eval::{Features, Weights};
use crate::games::Side;
use crate::tune::checkpoint::{
    Checkpoint, MethodState, RegressionState, Stage, TuneError, engine_spec, opening_stream,
    prefix_bytes,
};
use crate::tune::derive_seed;
use crate::tune::fit::regression::{CollectOptions, Collector, FitOptions, Phases, fit};
use crate::tune::record::{HistoryLine, RoundFit};
use crate::tune::spec::{RegressionConfig, ResolvedTuneSpec};
use rayon::prelude::*;

/// Seed stream of the self-play games.
const STREAM_SELFPLAY: u64 = 105;

/// Games per chunk and thread: the unit between two checkpoints.
pub(in crate::tune) const CHUNK_PER_THREAD: u64 = 32;

/// The folder of the self-play logs in the run's folder.
pub const SELFPLAY_DIR: &str = "selfplay";

/// The self-play log of round `round` (from 0).
pub fn round_log(dir: &Path, round: u64) -> std::path::PathBuf {
    dir.join(SELFPLAY_DIR)
        .join(format!("round-{}.jsonl", round + 1))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TuneError + '_ {
    move |e| TuneError::Failed(format!("{}: {e}", path.display()))
}

/// Runs regression rounds until the spec's rounds or the plan's games are spent (or where a
/// resumed run left off), appending a history line per round. Returns the run's opening
/// stream (for the held-out openings).
pub fn tune_by_regression<G: Features>(
    start: G,
    ck: &mut Checkpoint,
    dir: &Path,
    threads: usize,
    cancel: &CancelToken,
    mut on_step: impl FnMut(&HistoryLine, &Checkpoint),
) -> Result<OpeningStream<G>, TuneError> {
    let spec = ck.spec.clone();
    let config = regression_config(&spec)?;
    let checkpoint_path = dir.join("checkpoint.json");
    let mut history = open_history(dir, ck)?;
    std::fs::create_dir_all(dir.join(SELFPLAY_DIR)).map_err(io(dir))?;
    let mut stream = opening_stream(start, &spec, ck.openings_used).map_err(TuneError::Games)?;
    let pool = selfplay_pool(threads)?;
    let clock = Instant::now();
    let seconds_before = ck.seconds;
    let chunk = CHUNK_PER_THREAD * threads.max(1) as u64;
    let seconds = || seconds_before + clock.elapsed().as_secs_f64();
    let save = |ck: &mut Checkpoint| -> Result<(), TuneError> {
        ck.seconds = seconds();
        ck.save(&checkpoint_path).map_err(io(&checkpoint_path))
    };
    while !ck.tuning_done {
        let target = round_target(&config, ck)?;
        if target == 0 {
            ck.tuning_done = true;
            break;
        }
        let play = RoundPlay::new(&spec, &config, ck, dir)?;
        // Self-play: the log holds exactly the checkpoint's games of the round.
        let log_path = round_log(dir, play.round);
        let mut done = regression_state(ck)?.round_games;
        let mut log = open_log(&log_path, done)?;
        while done < target {
            if cancel.is_cancelled() {
                save(ck)?;
                return Err(TuneError::Interrupted(Stage::Tuning));
            }
            let n = chunk.min(target - done);
            let games: Vec<_> = (done..done + n)
                .zip(draw_openings(&mut stream, n)?)
                .collect();
            for line in &play.games(start, &games, &ck.spec_hash, &pool) {
                log.append(line).map_err(io(&log_path))?;
            }
            done += n;
            ck.games += n;
            ck.openings_used = stream.given();
            if let MethodState::Regression(s) = &mut ck.state {
                s.round_games = done;
            }
            save(ck)?;
        }
        drop(log);
        let line = fit_and_record(
            start,
            ck,
            dir,
            &play,
            Workers {
                pool: &pool,
                cancel,
            },
            &mut history,
            &seconds,
        )?;
        save(ck)?;
        on_step(&line, ck);
    }
    save(ck)?;
    Ok(stream)
}

/// The `[regression]` table of a regression spec.
pub(in crate::tune) fn regression_config(
    spec: &ResolvedTuneSpec,
) -> Result<RegressionConfig, TuneError> {
    spec.regression
        .clone()
        .ok_or_else(|| TuneError::Input("a regression spec without [regression]".into()))
}

/// The regression state of a run's checkpoint.
pub(in crate::tune) fn regression_state(ck: &Checkpoint) -> Result<&RegressionState, TuneError> {
    match &ck.state {
        MethodState::Regression(state) => Ok(state),
        _ => Err(TuneError::Input(
            "the checkpoint holds another method's state".into(),
        )),
    }
}

/// `history.jsonl` in `dir`, locked for appending and cut to the checkpoint's lines (a run
/// killed between appending a line and saving its checkpoint wrote one more).
pub(in crate::tune) fn open_history(dir: &Path, ck: &Checkpoint) -> Result<LogWriter, TuneError> {
    let path = dir.join("history.jsonl");
    let mut history = LogWriter::lock(&path).map_err(io(&path))?;
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    history
        .cut(prefix_bytes(&text, ck.candidates))
        .map_err(io(&path))?;
    Ok(history)
}

/// A self-play log locked for appending and cut to its first `games` lines (the games a
/// checkpoint counts; a killed run may have logged more).
pub(in crate::tune) fn open_log(path: &Path, games: u64) -> Result<LogWriter, TuneError> {
    let mut log = LogWriter::lock(path).map_err(io(path))?;
    let logged = std::fs::read_to_string(path).map_err(io(path))?;
    log.cut(prefix_bytes(&logged, games)).map_err(io(path))?;
    Ok(log)
}

/// The worker threads of the self-play games and the fits.
pub(in crate::tune) fn selfplay_pool(threads: usize) -> Result<rayon::ThreadPool, TuneError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("joute-selfplay-{i}"))
        .build()
        .map_err(|e| TuneError::Failed(format!("cannot start the worker threads: {e}")))
}

/// The self-play games of the round under way: the spec's, or fewer when the plan's games
/// run out; 0 when tuning is over (every round fitted, or the games spent).
pub(in crate::tune) fn round_target(
    config: &RegressionConfig,
    ck: &Checkpoint,
) -> Result<u64, TuneError> {
    let state = regression_state(ck)?;
    if state.k >= config.rounds as u64 {
        return Ok(0);
    }
    let left = ck.plan.tuning.saturating_sub(ck.games);
    Ok(config.games.min(state.round_games + left))
}

/// The next `n` openings of the run's stream, one for each self-play game.
pub(in crate::tune) fn draw_openings<G: Features>(
    stream: &mut OpeningStream<G>,
    n: u64,
) -> Result<Vec<Vec<G::Move>>, TuneError> {
    (0..n)
        .map(|_| stream.next_opening().map(|(moves, _)| moves))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            TuneError::Games(format!(
                "{e}. Every self-play game needs a fresh opening: raise openings.plies, or play fewer games"
            ))
        })
}

/// What the round under way plays with: the weights of the last fit (the start in round 1),
/// and a pattern run's current pattern weights (none before its first fit without a start:
/// the linear weights play).
pub(in crate::tune) struct RoundPlay {
    /// The round, from 0.
    pub round: u64,
    seed: u64,
    weights: Weights,
    engine: EngineSpec,
    patterns: Option<(PatternsFile, PatternWeights)>,
}

impl RoundPlay {
    /// The round under way in `ck`, its pattern weights read from `dir`.
    pub(in crate::tune) fn new(
        spec: &ResolvedTuneSpec,
        config: &RegressionConfig,
        ck: &Checkpoint,
        dir: &Path,
    ) -> Result<RoundPlay, TuneError> {
        let state = regression_state(ck)?;
        let weights = Weights {
            game: spec.game.clone(),
            values: state.theta.clone(),
            endgame: state.endgame.clone(),
            origin: format!("round {}", state.k + 1),
        };
        let patterns = match &config.patterns {
            Some(_) => pattern_round::current(spec, &ck.state, dir)?,
            None => None,
        };
        let mut engine = engine_spec(spec);
        engine.patterns = patterns.as_ref().and_then(|(f, _)| f.loaded.clone());
        Ok(RoundPlay {
            round: state.k,
            seed: spec.seed,
            weights,
            engine,
            patterns,
        })
    }

    /// Plays the self-play games `games` (id and opening) on `pool`, in their order.
    pub(in crate::tune) fn games<G: Features>(
        &self,
        start: G,
        games: &[(u64, Vec<G::Move>)],
        spec_hash: &str,
        pool: &rayon::ThreadPool,
    ) -> Vec<GameLine> {
        pool.install(|| {
            games
                .par_iter()
                .map(|(id, moves)| {
                    selfplay_game(
                        start,
                        &self.engine,
                        &self.weights,
                        moves,
                        *id,
                        self.game_seed(*id),
                        spec_hash,
                    )
                })
                .collect()
        })
    }

    /// The seed of the round's self-play game `id`: the run's seed, the round and the id.
    pub(in crate::tune) fn game_seed(&self, id: u64) -> u64 {
        derive_seed(self.seed, STREAM_SELFPLAY, self.round << 32 | id)
    }
}

/// The threads a fit runs on, and what stops it (between chunks of its labelling searches).
#[derive(Clone, Copy)]
pub(in crate::tune) struct Workers<'a> {
    /// The worker threads.
    pub pool: &'a rayon::ThreadPool,
    /// Stops the labelling searches.
    pub cancel: &'a CancelToken,
}

/// The fit after the round `play`, on the positions of every round's log so far in `dir`
/// (the round's own log holding its `round_games` games): the next round's weights (pattern
/// weights written to their file), the state moved on to the next round, and the round's
/// line appended to `history` and returned. `seconds`: the run's tuning seconds so far.
pub(in crate::tune) fn fit_and_record<G: Features>(
    start: G,
    ck: &mut Checkpoint,
    dir: &Path,
    play: &RoundPlay,
    workers: Workers,
    history: &mut LogWriter,
    seconds: &dyn Fn() -> f64,
) -> Result<HistoryLine, TuneError> {
    let Workers { pool, cancel } = workers;
    let spec = &ck.spec;
    let config = regression_config(spec)?;
    let round = play.round;
    let done = regression_state(ck)?.round_games;
    let collect = CollectOptions {
        skip_plies: config.skip_plies,
        max_per_game: config.max_per_game,
        seed: spec.seed,
        exact_labels: config.exact_labels.unwrap_or(0),
        margin_scale: config
            .patterns
            .as_ref()
            .and_then(|p| p.margin_labels)
            .unwrap_or(0.0),
        ..CollectOptions::default()
    };
    // This round's results (for its history line).
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let path = round_log(dir, round);
    scan_log(&path, |line: GameLine| {
        if line.score == 1.0 {
            wins += 1;
        } else if line.score == 0.0 {
            losses += 1;
        } else {
            draws += 1;
        }
        Ok(())
    })
    .map_err(|e| TuneError::Games(format!("{}: {e}", path.display())))?;
    let weights = &play.weights;
    let (theta, endgame, fitted_patterns, round_fit) = match &config.patterns {
        Some(pc) => {
            // Search labels: the round's positions scored once, resumably, before the fit.
            let paths: Vec<_> = (0..=round).map(|r| round_log(dir, r)).collect();
            let paths: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
            let scoring = pattern_round::RoundScoring {
                log: paths[round as usize],
                round,
                engine: &play.engine,
                weights,
                collect: &collect,
                seed: spec.seed,
                threads: pool.current_num_threads(),
            };
            pattern_round::score_round(start, pc, &scoring, pool, cancel)?;
            let scores = pattern_round::round_scores(pc, &paths)?;
            let from = play.patterns.as_ref().map(|(_, w)| w);
            let (file, fit) = pool.install(|| {
                pattern_round::fit_round(pc, &collect, &paths, scores.as_ref(), from, dir, round)
            })?;
            (
                weights.values.clone(),
                weights.endgame.clone(),
                Some(file),
                fit,
            )
        }
        None => {
            let (theta, endgame, fit) =
                fit_linear(start, &config, collect, dir, round, weights, pool)?;
            (theta, endgame, None, fit)
        }
    };
    let MethodState::Regression(state) = &mut ck.state else {
        unreachable!("checked by regression_state")
    };
    let previous = std::mem::replace(&mut state.theta, theta.clone());
    state.endgame = endgame;
    if fitted_patterns.is_some() {
        state.patterns = fitted_patterns;
    }
    state.k += 1;
    state.round_games = 0;
    ck.candidates += 1;
    ck.seconds = seconds();
    let line = HistoryLine {
        k: round + 1,
        method: ck.spec.method.name().to_string(),
        candidate: theta.clone(),
        opponent: previous,
        moved: (0..theta.len()).collect(),
        pairs: 0,
        games: done,
        wins,
        draws,
        losses,
        pentanomial: [0; 5],
        llr: None,
        elo: 0.0,
        elo_error: 0.0,
        accepted: true,
        theta,
        steps: Vec::new(),
        games_total: ck.games,
        seconds: ck.seconds,
        fit: Some(round_fit),
    };
    let history_path = dir.join("history.jsonl");
    history.append_json(&line).map_err(io(&history_path))?;
    Ok(line)
}

/// A round's linear fit: the weights, the endgame vector of tapered weights, the fit's line.
type LinearRound = (Vec<f64>, Option<Vec<f64>>, RoundFit);

/// The linear fit of round `round` on the positions of every round so far, from the round's
/// `weights`: the fitted vector (clamped to the weights files' range), its endgame vector when
/// tapered, and the round's fit line.
fn fit_linear<G: Features>(
    start: G,
    config: &RegressionConfig,
    collect: CollectOptions,
    dir: &Path,
    round: u64,
    weights: &Weights,
    pool: &rayon::ThreadPool,
) -> Result<LinearRound, TuneError> {
    let clock = Instant::now();
    let mut collector = Collector::new(start, collect);
    for r in 0..=round {
        let path = round_log(dir, r);
        scan_log(&path, |line: GameLine| {
            collector.add_game(&line).map(|_| ())
        })
        .map_err(|e| TuneError::Games(format!("{}: {e}", path.display())))?;
    }
    let data = collector.finish();
    if data.is_empty() {
        return Err(TuneError::Games(format!(
            "no positions to fit after round {}: the games are shorter than regression.skip_plies ({})",
            round + 1,
            config.skip_plies
        )));
    }
    let options = FitOptions {
        lambda: config.lambda,
        phases: Phases::single(),
        taper: config.taper,
        ..FitOptions::default()
    };
    let fitted = pool
        .install(|| fit(&start, &data, weights, &options))
        .map_err(TuneError::Games)?;
    let clamp =
        |v: &[f64]| -> Vec<f64> { v.iter().map(|w| w.clamp(-MAX_WEIGHT, MAX_WEIGHT)).collect() };
    let theta = clamp(&fitted.weights[0].values);
    let endgame = fitted.weights[0].endgame.as_deref().map(clamp);
    let line = RoundFit {
        positions: data.len() as u64,
        games: data.games,
        k: fitted.k,
        start_loss: fitted.start_loss,
        loss: fitted.loss,
        iterations: fitted.iterations as u64,
        converged: fitted.converged,
        seconds: clock.elapsed().as_secs_f64(),
    };
    Ok((theta, endgame, line))
}

/// One self-play game of `weights` against themselves after the opening `moves`, as a games
/// log line (`first` and `second` both `selfplay`).
fn selfplay_game<G: Features>(
    start: G,
    engine: &crate::arena::EngineSpec,
    weights: &Weights,
    moves: &[G::Move],
    id: u64,
    seed: u64,
    spec_hash: &str,
) -> GameLine {
    let build = |side: u64| {
        Engine::with_weights(
            engine,
            &start,
            weights.clone(),
            crate::games::hash::combine(seed, side),
        )
    };
    let (mut first, mut second) = (build(0), build(1));
    let opening = Opening {
        initial: start,
        moves,
    };
    let record = play_game(
        &opening,
        [&mut first, &mut second],
        &mut Referee::default(),
        |_, _| {},
    );
    let mut pos = record.start;
    let mut nodes = [0u64; 2];
    let mut timeouts = [0u32; 2];
    let mut played = Vec::with_capacity(record.moves.len());
    for m in &record.moves {
        nodes[m.side as usize] += m.nodes.unwrap_or(0);
        timeouts[m.side as usize] += u32::from(m.timed_out);
        played.push(pos.format_move(m.mv));
        pos = pos.play(m.mv);
    }
    GameLine {
        id,
        pair: id,
        round: 0,
        opening_index: id,
        opening: moves.iter().map(|&m| start.format_move(m)).collect(),
        first: "selfplay".into(),
        second: "selfplay".into(),
        score: record.outcome.first_player_points(),
        result: match record.outcome.winner {
            Some(Side::First) => "1-0",
            Some(Side::Second) => "0-1",
            None => "1/2-1/2",
        }
        .into(),
        margin: record.outcome.score,
        termination: record.termination.name().into(),
        detail: record.termination.detail().map(str::to_string),
        adjudication: None,
        plies: played.len(),
        moves: played,
        nodes,
        timed_out: timeouts != [0, 0],
        timeouts,
        move_us: Vec::new(),
        move_ms: Vec::new(),
        move_nodes: Vec::new(),
        move_depth: Vec::new(),
        move_seldepth: Vec::new(),
        move_cpu_us: Vec::new(),
        clock_ms: Vec::new(),
        scores: Vec::new(),
        not_reproducible: if timeouts != [0, 0] {
            vec!["time limit".into()]
        } else {
            Vec::new()
        },
        seed,
        spec: spec_hash.to_string(),
        seconds: record.seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::spec::PatternsFile;
    use crate::games::Othello;
    use crate::tune::checkpoint::Plan;
    use crate::tune::regression::pattern_round::{load, round_file};
    use crate::tune::spec::parse;

    /// A pattern regression of Othello at alpha-beta depth 1: two rounds of 40 games, the
    /// first with the default linear weights.
    fn pattern_spec() -> crate::tune::spec::ResolvedTuneSpec {
        let text = r#"name = "p"
game = "othello"
seed = 5
method = "regression"

[engine]
algorithm = "alphabeta"
depth = 1

[openings]
plies = 6

[regression]
games = 40
rounds = 2
evaluation = "patterns"
phases = 2
phase_overlap = 3

[confirm]
games = 2
"#;
        parse(text, "p.toml").unwrap()
    }

    fn fresh(spec: &crate::tune::spec::ResolvedTuneSpec) -> Checkpoint {
        Checkpoint::new(spec.clone(), Plan::new(spec, None).unwrap())
    }

    fn round_patterns(ck: &Checkpoint) -> Option<PatternsFile> {
        match &ck.state {
            MethodState::Regression(r) => r.patterns.clone(),
            _ => None,
        }
    }

    /// The history's lines without their clocks.
    fn history(dir: &Path) -> Vec<serde_json::Value> {
        std::fs::read_to_string(dir.join("history.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("seconds");
                v["fit"].as_object_mut().unwrap().remove("seconds");
                v
            })
            .collect()
    }

    #[test]
    fn pattern_rounds_write_their_weights_and_a_stopped_run_resumes_bit_for_bit() {
        let spec = pattern_spec();
        let cancel = CancelToken::new();
        let whole = tempfile::tempdir().unwrap();
        let mut ck = fresh(&spec);
        tune_by_regression(
            Othello::start(),
            &mut ck,
            whole.path(),
            2,
            &cancel,
            |_, _| {},
        )
        .unwrap();
        let last = round_patterns(&ck).expect("the checkpoint names the last round's weights");
        assert_eq!(last.path, round_file(1));
        let (_, fitted) = load(&last, Some(whole.path())).unwrap();
        assert_eq!(fitted.phases, 2);
        assert!(
            fitted.values.iter().any(|&w| w != 0.0),
            "round 2 fitted nothing"
        );
        // Round 1's weights differ from round 2's: round 2 played with them and refitted.
        let bytes = std::fs::read(whole.path().join(round_file(0))).unwrap();
        let first = crate::eval::pattern::PatternWeights::parse(&bytes, "round 1").unwrap();
        assert_ne!(first.values, fitted.values);
        // The checkpoint reads back with its pattern state.
        let read = Checkpoint::load(&whole.path().join("checkpoint.json")).unwrap();
        assert_eq!(read, ck);

        // Stopped after round 1 (the cancel seen in round 2's self-play), then resumed.
        let stopped = tempfile::tempdir().unwrap();
        let mut ck = fresh(&spec);
        let result = tune_by_regression(
            Othello::start(),
            &mut ck,
            stopped.path(),
            2,
            &cancel,
            |_, _| cancel.cancel(),
        );
        assert!(matches!(result, Err(TuneError::Interrupted(Stage::Tuning))));
        assert_eq!(round_patterns(&ck).unwrap().path, round_file(0));
        let mut ck = Checkpoint::load(&stopped.path().join("checkpoint.json")).unwrap();
        tune_by_regression(
            Othello::start(),
            &mut ck,
            stopped.path(),
            2,
            &CancelToken::new(),
            |_, _| {},
        )
        .unwrap();
        for round in 0..2 {
            assert_eq!(
                std::fs::read(stopped.path().join(round_file(round))).unwrap(),
                std::fs::read(whole.path().join(round_file(round))).unwrap(),
                "round {} weights",
                round + 1
            );
        }
        assert_eq!(history(stopped.path()), history(whole.path()));

        // A round file changed behind the run's back is refused, not played with.
        let path = whole.path().join(round_file(1));
        let mut bytes = std::fs::read(&path).unwrap();
        // The lowest bit of the last weight (little-endian f32): still a valid file.
        let at = bytes.len() - 4;
        bytes[at] ^= 0x01;
        std::fs::write(&path, bytes).unwrap();
        let err = load(&last, Some(whole.path())).unwrap_err().to_string();
        assert!(err.contains("changed since the run recorded them"), "{err}");
    }
}

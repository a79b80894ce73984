//! `joute tune SPEC --shard I/N` for `method = "regression"`: N processes (on one machine or on
//! cluster nodes sharing a folder) play one regression run together, with no server, ending
//! with the weights, history and fits of the unsharded run bit for bit.
//!
//! The run's folder is the unsharded run's (`checkpoint.json`, `history.jsonl`,
//! `selfplay/round-R.jsonl`, `patterns/`, the matches, the outputs) plus `shards.json` (the
//! number of shards, written once by the first shard to start) and a folder per shard,
//! `shard-I-of-N/`, holding its progress (`shard.json`) and its self-play logs
//! (`selfplay/round-R.jsonl`). The shared `checkpoint.json` changes only at a fit; between two
//! fits it says which round is under way and with which weights.
//!
//! - **Self-play**: each shard draws the whole round's openings from the run's stream (cheap),
//!   and plays the games whose id is I mod N into its own log, in chunks, its progress saved
//!   after each: a shard killed mid-chunk cuts its extra lines on resume and replays the chunk.
//! - **The fit**: the first shard to see every shard's games of the round logged takes the
//!   round's lock (`selfplay/round-R.fit`, created whole or not at all, naming the shard),
//!   merges the shards' logs by game id into `selfplay/round-R.jsonl` — the unsharded run's
//!   log, but for the games' clocks; every line checked to be the run's game of its id, by its
//!   spec hash, opening and seed, so that a shard folder or a line of another run, round or
//!   game is refused rather than fitted — and fits and records the round exactly as the unsharded
//!   run does ([`crate::tune::regression::run::fit_and_record`]), the checkpoint saved last (a
//!   temporary file, then a rename). The others poll the checkpoint until the round is fitted,
//!   saying what they wait for. A shard killed while it fits holds the lock: resumed, it sees
//!   its own name there and fits again (the fit is a pure function of the logs). A fit that
//!   fails writes why beside its lock (`selfplay/round-R.failed`), which stops the shards
//!   waiting for it; a shard that finds a failed fit when it starts (resumed) takes the fit's
//!   next attempt (`selfplay/round-R.retry-A.fit`, created whole or not at all: of two shards
//!   resumed at once, one fits and the other waits), so that no shard waits for one that has
//!   exited and none retries a failing fit for ever.
//! - **The matches**: the shard that fitted the last round plays the confirmation and the A/A
//!   match on its threads and writes the outputs; the others end when tuning does. The matches
//!   are a small part of a run (a few hundred games against thousands of self-play games), and
//!   one player needs no second barrier and no merge of two tournaments' shards.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Finished, TuneObserver, TuneOptions, TuneSession, create_run_folder, weights_copy};
use crate::arena::CancelToken;
use crate::arena::log::GameLine;
use crate::arena::schedule::Shard;
use crate::eval::{Features, FeaturesVisitor};
use crate::outputs::{write_atomically, write_new};
use crate::tune::checkpoint::{
    Checkpoint, MethodState, Plan, SHARDS_FILE, Stage, TuneError, opening_stream, read_history,
    sharded_run,
};
use crate::tune::regression::run::{
    CHUNK_PER_THREAD, RoundPlay, SELFPLAY_DIR, Workers, draw_openings, fit_and_record,
    open_history, open_log, regression_config, regression_state, round_log, round_target,
    selfplay_pool,
};
use crate::tune::spec::{Method, ResolvedTuneSpec};

/// A shard's progress in its folder.
pub const SHARD_FILE: &str = "shard.json";

/// How often a waiting shard looks at the others' progress and the checkpoint.
const POLL: Duration = Duration::from_millis(200);

/// A shard's progress (`shard-I-of-N/shard.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Progress {
    /// The round (from 0) its games are of.
    round: u64,
    /// Its games of that round logged (all of them: the round's self-play is done here).
    games: u64,
    /// Seconds it has waited for the other shards and the fits, over every session.
    waited: f64,
}

/// How a shard's session ended.
#[derive(Debug)]
pub struct ShardEnd {
    /// The matches and the outputs, when this shard played them (it fitted the last round).
    pub finished: Option<Box<Finished>>,
    /// The shard that plays (or played) the matches.
    pub matches_by: u64,
    /// Seconds this shard waited for the others' games and the fits, over every session.
    pub waited: f64,
}

/// One shard of a sharded regression run, opened in the run's folder.
pub struct ShardSession {
    /// The run's shared state as the shard found it (the folder's `checkpoint.json`).
    pub ck: Checkpoint,
    /// Which shard this is.
    pub shard: Shard,
    dir: PathBuf,
    own: PathBuf,
    copy: Option<PathBuf>,
    /// The round and attempt whose fit had failed when this session started: a resumed
    /// shard retries it (a failure seen while it runs stops it instead, so that shards do not
    /// retry a failing fit for ever).
    retry: Option<(u64, u64)>,
}

impl ShardSession {
    /// Opens shard `shard` of the run of `spec` in `dir`, the folder every shard is given:
    /// the first shard to come creates the run (`shards.json` and `checkpoint.json`, each
    /// created whole or not at all), the others join it; a spec, shard count or budget other
    /// than the run's is refused, and so is a shard whose folder holds progress without
    /// `options.resume`.
    pub fn open(
        spec: ResolvedTuneSpec,
        dir: &Path,
        shard: Shard,
        options: &TuneOptions,
    ) -> Result<ShardSession, TuneError> {
        let input = TuneError::Input;
        let name = format!("{}/{}", shard.index, shard.count);
        if spec.method != Method::Regression {
            return Err(input(format!(
                "--shard {name}: only method = \"regression\" runs as shards (its self-play rounds), not method = \"{}\"; run it without --shard",
                spec.method.name()
            )));
        }
        check_run_folder(dir, options.force).map_err(input)?;
        create_run_folder(dir)?;
        let checkpoint_path = dir.join("checkpoint.json");
        if checkpoint_path.exists() && sharded_run(dir).is_none() {
            return Err(input(format!(
                "--shard {name}: {} holds a run played without --shard; continue it with --resume and no --shard, or choose another --out",
                dir.display()
            )));
        }
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |e: std::io::Error| TuneError::Failed(format!("{}: {e}", path.display()))
        };
        let shards_path = dir.join(SHARDS_FILE);
        let sharding = serde_json::json!({ "shards": shard.count });
        write_new(&shards_path, format!("{sharding}\n").as_bytes()).map_err(io(&shards_path))?;
        match sharded_run(dir) {
            Some(n) if n == shard.count => {}
            Some(n) => {
                return Err(input(format!(
                    "--shard {name}: {} holds a run of {n} shard{}, not {}; give every shard --shard I/{n}",
                    dir.display(),
                    if n == 1 { "" } else { "s" },
                    shard.count
                )));
            }
            None => {
                return Err(input(format!(
                    "{}: not a joute shards file (edited?)",
                    shards_path.display()
                )));
            }
        }
        let copy = weights_copy(&spec, options)?;
        let plan = Plan::new(&spec, options.budget).map_err(input)?;
        let fresh = Checkpoint::new(spec.clone(), plan);
        let json = serde_json::to_vec_pretty(&fresh).expect("a checkpoint serialises");
        write_new(&checkpoint_path, &json).map_err(io(&checkpoint_path))?;
        let ck = Checkpoint::load(&checkpoint_path).map_err(input)?;
        if ck.spec_hash != spec.hash() {
            return Err(input(format!(
                "--shard {name}: {} holds a run of another spec (hash {}, '{}'), not this one (hash {}); every shard of a run takes the same spec and weights files",
                dir.display(),
                ck.spec_hash,
                ck.spec.name,
                spec.hash()
            )));
        }
        if ck.plan != plan {
            return Err(input(format!(
                "--shard {name}: the run in {} plans {} tuning games, this shard {}; give every shard the same --budget",
                dir.display(),
                ck.plan.tuning,
                plan.tuning
            )));
        }
        let own = dir.join(shard.folder_name());
        if own.join(SHARD_FILE).exists() && !options.resume {
            return Err(input(format!(
                "--shard {name}: {} holds this shard's games already; add --resume to continue it",
                own.display()
            )));
        }
        for folder in [dir, &own] {
            std::fs::create_dir_all(folder.join(SELFPLAY_DIR)).map_err(io(folder))?;
        }
        crate::outputs::remove_stale_temporaries(dir);
        crate::outputs::remove_stale_temporaries(&own);
        Ok(ShardSession {
            ck,
            shard,
            dir: dir.to_path_buf(),
            own,
            copy,
            retry: None,
        })
    }

    /// Plays this shard's part of the run on `threads` threads, telling `observer` of every
    /// round fitted (by any shard) and of what it waits for; the shard that fits the last
    /// round then plays the matches and writes the outputs ([`TuneSession::run`];
    /// `spec_path`: the spec as the user named it). `cancel` stops it where it is
    /// ([`TuneError::Interrupted`]): resumed with `--resume`, it goes on from there.
    pub fn run(
        &mut self,
        spec_path: &Path,
        threads: usize,
        observer: &mut dyn TuneObserver,
        cancel: &CancelToken,
    ) -> Result<ShardEnd, TuneError> {
        struct Tune<'a> {
            session: &'a mut ShardSession,
            threads: usize,
            observer: &'a mut dyn TuneObserver,
            cancel: &'a CancelToken,
        }
        impl FeaturesVisitor for Tune<'_> {
            type Output = Result<f64, TuneError>;
            fn visit<G: Features>(self, start: G) -> Self::Output {
                self.session
                    .tune(start, self.threads, self.observer, self.cancel)
            }
        }
        let kind = self.ck.spec.game_kind();
        let waited = crate::eval::dispatch(
            &kind,
            Tune {
                session: self,
                threads,
                observer,
                cancel,
            },
        )?;
        self.ck = self.shared()?;
        // The shard that took the last round's lock plays the matches.
        let by = self
            .fitter(self.ck.candidates.saturating_sub(1))?
            .unwrap_or(0);
        let mut end = ShardEnd {
            finished: None,
            matches_by: by,
            waited,
        };
        if by == self.shard.index {
            let mut session =
                TuneSession::of_checkpoint(self.ck.clone(), &self.dir, self.copy.clone());
            let finished = session.run(spec_path, threads, observer, cancel)?;
            self.ck = session.ck;
            end.finished = Some(Box::new(finished));
        }
        Ok(end)
    }

    /// Plays the rounds until tuning is over; returns the seconds waited.
    fn tune<G: Features>(
        &mut self,
        start: G,
        threads: usize,
        observer: &mut dyn TuneObserver,
        cancel: &CancelToken,
    ) -> Result<f64, TuneError> {
        let pool = selfplay_pool(threads)?;
        let chunk = CHUNK_PER_THREAD * threads.max(1) as u64;
        let progress_path = self.own.join(SHARD_FILE);
        let mut progress = self.progress(self.shard.index)?.unwrap_or_default();
        // A lock of the round under way that no shard wrote is refused before any game; an
        // attempt at its fit that failed before this session is this session's to retry.
        let round = regression_state(&self.shared()?)?.k;
        self.fitter(round)?;
        self.retry = self
            .latest(round)
            .filter(|&attempt| self.failed(round, attempt).exists())
            .map(|attempt| (round, attempt));
        let save = |progress: &Progress| {
            let json = serde_json::to_vec_pretty(progress).expect("progress serialises");
            write_atomically(&progress_path, &json)
                .map_err(|e| TuneError::Failed(format!("{}: {e}", progress_path.display())))
        };
        loop {
            let ck = self.shared()?;
            if ck.tuning_done {
                return Ok(progress.waited);
            }
            let spec = &ck.spec;
            let config = regression_config(spec)?;
            let round = regression_state(&ck)?.k;
            if progress.round != round {
                // The round this shard played was fitted: on to the next.
                progress.round = round;
                progress.games = 0;
            }
            let target = round_target(&config, &ck)?;
            let play = RoundPlay::new(spec, &config, &ck, &self.dir)?;
            let clock = Instant::now();
            let mut stream =
                opening_stream(start, spec, ck.openings_used).map_err(TuneError::Games)?;
            let openings = draw_openings(&mut stream, target)?;
            let mine: Vec<_> = (0..target)
                .zip(openings.iter().cloned())
                .filter(|(id, _)| id % self.shard.count == self.shard.index)
                .collect();
            let log_path = round_log(&self.own, round);
            let mut log = open_log(&log_path, progress.games)?;
            while progress.games < mine.len() as u64 {
                if cancel.is_cancelled() {
                    save(&progress)?;
                    return Err(TuneError::Interrupted(Stage::Tuning));
                }
                let from = progress.games as usize;
                let to = (from + chunk as usize).min(mine.len());
                for line in &play.games(start, &mine[from..to], &ck.spec_hash, &pool) {
                    log.append(line)
                        .map_err(|e| TuneError::Failed(format!("{}: {e}", log_path.display())))?;
                }
                progress.games = to as u64;
                save(&progress)?;
            }
            drop(log);
            save(&progress)?;
            let fit = RoundFit {
                start,
                play: &play,
                target,
                openings: openings
                    .iter()
                    .map(|moves| moves.iter().map(|&m| start.format_move(m)).collect())
                    .collect(),
                openings_used: stream.given(),
                pool: &pool,
                clock,
            };
            let waited = self.fit_or_wait(fit, observer, cancel);
            progress.waited += waited.1;
            save(&progress)?;
            waited.0?;
        }
    }

    /// Waits until every shard has logged its games of the round and then fits it (when this
    /// shard takes the round's lock) or waits for the shard that does. Returns how it ended
    /// and the seconds spent waiting (not fitting).
    fn fit_or_wait<G: Features>(
        &self,
        fit: RoundFit<'_, G>,
        observer: &mut dyn TuneObserver,
        cancel: &CancelToken,
    ) -> (Result<(), TuneError>, f64) {
        let mut waited = Duration::ZERO;
        let round = fit.play.round;
        let mut said = String::new();
        loop {
            let ck = match self.shared() {
                Ok(ck) => ck,
                Err(e) => return (Err(e), waited.as_secs_f64()),
            };
            if ck.candidates > round {
                let told = read_history(&self.dir.join("history.jsonl"), ck.candidates)
                    .map(|h| h.get(round as usize).map(|line| observer.step(line, &ck)));
                return (told.map(drop), waited.as_secs_f64());
            }
            let what = match self.missing(round, fit.target) {
                Err(e) => return (Err(e), waited.as_secs_f64()),
                Ok(missing) if missing.is_empty() => match self.next_fit(round) {
                    Err(e) => return (Err(e), waited.as_secs_f64()),
                    Ok(NextFit::Fit(attempt)) => {
                        // A fit that fails says so to the shards waiting for it.
                        let fitted = self.fit(ck, fit, observer, cancel);
                        if let Err(e) = &fitted {
                            let failed = self.failed(round, attempt);
                            let _ = write_atomically(&failed, e.to_string().as_bytes());
                        }
                        return (fitted, waited.as_secs_f64());
                    }
                    Ok(NextFit::Wait(by)) => format!(
                        "shard {by}/{}'s fit of round {}",
                        self.shard.count,
                        round + 1
                    ),
                    Ok(NextFit::Failed(by, why)) => {
                        let e = TuneError::Failed(format!(
                            "shard {by}/{}'s fit of round {} failed: {why}",
                            self.shard.count,
                            round + 1
                        ));
                        return (Err(e), waited.as_secs_f64());
                    }
                },
                Ok(missing) => format!(
                    "the self-play games of round {} of shard{} {}",
                    round + 1,
                    if missing.len() == 1 { "" } else { "s" },
                    missing
                        .iter()
                        .map(|i| format!("{i}/{}", self.shard.count))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            if what != said {
                observer.waiting(&what);
                said = what;
            }
            if cancel.is_cancelled() {
                return (
                    Err(TuneError::Interrupted(Stage::Tuning)),
                    waited.as_secs_f64(),
                );
            }
            let slept = Instant::now();
            std::thread::sleep(POLL);
            waited += slept.elapsed();
        }
    }

    /// The fit of `fit`'s round by this shard, which holds its lock: the shards' logs merged
    /// by game id into the run's log of the round, then the unsharded run's fit and record,
    /// the checkpoint saved last.
    fn fit<G: Features>(
        &self,
        mut ck: Checkpoint,
        fit: RoundFit<'_, G>,
        observer: &mut dyn TuneObserver,
        cancel: &CancelToken,
    ) -> Result<(), TuneError> {
        let round = fit.play.round;
        let games = RoundGames {
            round,
            spec_hash: &ck.spec_hash,
            openings: &fit.openings,
            seeds: (0..fit.target).map(|id| fit.play.game_seed(id)).collect(),
        };
        self.merge(&games)?;
        let config = regression_config(&ck.spec)?;
        ck.games += fit.target;
        ck.openings_used = fit.openings_used;
        if let MethodState::Regression(s) = &mut ck.state {
            s.round_games = fit.target;
        }
        let mut history = open_history(&self.dir, &ck)?;
        let seconds_before = ck.seconds;
        let seconds = || seconds_before + fit.clock.elapsed().as_secs_f64();
        let line = fit_and_record(
            fit.start,
            &mut ck,
            &self.dir,
            fit.play,
            Workers {
                pool: fit.pool,
                cancel,
            },
            &mut history,
            &seconds,
        )?;
        if round_target(&config, &ck)? == 0 {
            ck.tuning_done = true;
        }
        let path = self.dir.join("checkpoint.json");
        ck.save(&path)
            .map_err(|e| TuneError::Failed(format!("{}: {e}", path.display())))?;
        observer.step(&line, &ck);
        Ok(())
    }

    /// Writes the run's log of the round of `games`: every shard's lines of it, in game id
    /// order, each checked to be the game of this run and round that its place in its shard's
    /// log says (a shard's folder copied from another run, or a line from one, is refused,
    /// naming the file and the line).
    fn merge(&self, games: &RoundGames) -> Result<(), TuneError> {
        let (count, round, target) = (self.shard.count, games.round, games.target());
        let texts = (0..count)
            .map(|index| {
                let path = round_log(
                    &self.dir.join(
                        Shard {
                            index,
                            ..self.shard
                        }
                        .folder_name(),
                    ),
                    round,
                );
                if share(index, count, target) == 0 {
                    return Ok((path, Vec::new()));
                }
                match std::fs::read(&path) {
                    Ok(bytes) => Ok((path, bytes)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        Err(TuneError::Input(format!(
                            "{}: missing, though shard {index}/{count}'s progress says its games of round {} are there; restore the shard's folder, or start the run afresh in another folder",
                            path.display(),
                            round + 1
                        )))
                    }
                    Err(e) => Err(TuneError::Failed(format!("{}: {e}", path.display()))),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut lines: Vec<_> = texts
            .iter()
            .map(|(path, bytes)| (path, bytes.split_inclusive(|&b| b == b'\n')))
            .collect();
        let mut merged = Vec::new();
        for id in 0..target {
            let (path, shard_lines) = &mut lines[(id % count) as usize];
            let why = match shard_lines.next() {
                None => "the log ends before it".to_string(),
                Some(line) => match games.mismatch(line, id) {
                    None => {
                        merged.extend_from_slice(line);
                        continue;
                    }
                    Some(why) => why,
                },
            };
            return Err(TuneError::Input(format!(
                "{}: line {} is not this run's self-play game {id} of round {}: {why}; restore the shard's log, or start the run afresh in another folder",
                path.display(),
                id / count + 1,
                round + 1
            )));
        }
        let path = round_log(&self.dir, round);
        write_atomically(&path, &merged)
            .map_err(|e| TuneError::Failed(format!("{}: {e}", path.display())))
    }

    /// The shards that have not logged all their games of round `round` (`target` games).
    fn missing(&self, round: u64, target: u64) -> Result<Vec<u64>, TuneError> {
        let mut missing = Vec::new();
        for index in 0..self.shard.count {
            let need = share(index, self.shard.count, target);
            let done = need == 0
                || self
                    .progress(index)?
                    .is_some_and(|p| p.round == round && p.games >= need);
            if !done {
                missing.push(index);
            }
        }
        Ok(missing)
    }

    /// The shard `index`'s progress, `None` before it saved any.
    fn progress(&self, index: u64) -> Result<Option<Progress>, TuneError> {
        let path = self
            .dir
            .join(
                Shard {
                    index,
                    ..self.shard
                }
                .folder_name(),
            )
            .join(SHARD_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(TuneError::Failed(format!("{}: {e}", path.display()))),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            TuneError::Failed(format!(
                "{}: not a joute shard's progress: {e}",
                path.display()
            ))
        })
    }

    /// What this shard does about round `round`'s fit once every shard's games of it are
    /// logged: fit it when it takes the fit's first attempt, or the next attempt after one that
    /// had failed when this session started (a resumed shard retries the fit; of shards resumed
    /// at once, the one whose lock is created first), or when it holds the latest attempt
    /// (taken by its session that was killed while it fitted); else wait for the shard that
    /// holds it, or stop when that attempt failed.
    fn next_fit(&self, round: u64) -> Result<NextFit, TuneError> {
        let attempt = match self.latest(round) {
            None => 0,
            Some(latest) => {
                let failed = self.failed(round, latest);
                match std::fs::read_to_string(&failed) {
                    Ok(_) if self.retry == Some((round, latest)) => latest + 1,
                    Ok(why) => {
                        let by = self.holder(round, latest)?.unwrap_or(self.shard.index);
                        return Ok(NextFit::Failed(by, why));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => latest,
                    Err(e) => {
                        return Err(TuneError::Failed(format!("{}: {e}", failed.display())));
                    }
                }
            }
        };
        let path = self.lock(round, attempt);
        write_new(&path, format!("{}\n", self.shard.index).as_bytes())
            .map_err(|e| TuneError::Failed(format!("{}: {e}", path.display())))?;
        let by = self
            .holder(round, attempt)?
            .ok_or_else(|| TuneError::Failed(format!("{}: missing", path.display())))?;
        Ok(if by == self.shard.index {
            NextFit::Fit(attempt)
        } else {
            NextFit::Wait(by)
        })
    }

    /// The shard that fits (or fitted) round `round`: the one holding its latest attempt's
    /// lock, if one was taken.
    fn fitter(&self, round: u64) -> Result<Option<u64>, TuneError> {
        match self.latest(round) {
            Some(attempt) => self.holder(round, attempt),
            None => Ok(None),
        }
    }

    /// The latest attempt at round `round`'s fit: the last whose lock exists (an attempt is
    /// taken only after the one before it failed).
    fn latest(&self, round: u64) -> Option<u64> {
        let mut latest = None;
        while self.lock(round, latest.map_or(0, |a| a + 1)).exists() {
            latest = Some(latest.map_or(0, |a| a + 1));
        }
        latest
    }

    /// The shard that took the lock of attempt `attempt` at round `round`'s fit, if one did.
    fn holder(&self, round: u64, attempt: u64) -> Result<Option<u64>, TuneError> {
        let path = self.lock(round, attempt);
        let count = self.shard.count;
        match std::fs::read_to_string(&path) {
            Ok(text) => match text.trim().parse::<u64>() {
                Ok(by) if by < count => Ok(Some(by)),
                // Refused, not waited for: no such shard will ever fit.
                Ok(by) => Err(TuneError::Input(format!(
                    "{}: a fit lock naming shard {by}, and the run has {count} shard{} (0 to {}); edited? remove it and resume the shards",
                    path.display(),
                    if count == 1 { "" } else { "s" },
                    count - 1
                ))),
                Err(_) => Err(TuneError::Input(format!(
                    "{}: not a joute fit lock (edited?)",
                    path.display()
                ))),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(TuneError::Failed(format!("{}: {e}", path.display()))),
        }
    }

    /// The lock of attempt `attempt` at round `round`'s fit, the file naming the shard that
    /// fits: `selfplay/round-R.fit`, then `selfplay/round-R.retry-A.fit`.
    fn lock(&self, round: u64, attempt: u64) -> PathBuf {
        self.attempt_file(round, attempt, "fit")
    }

    /// Where the shard that took attempt `attempt` at round `round`'s fit says why it failed:
    /// `selfplay/round-R.failed`, then `selfplay/round-R.retry-A.failed`.
    fn failed(&self, round: u64, attempt: u64) -> PathBuf {
        self.attempt_file(round, attempt, "failed")
    }

    fn attempt_file(&self, round: u64, attempt: u64, extension: &str) -> PathBuf {
        let log = round_log(&self.dir, round);
        match attempt {
            0 => log.with_extension(extension),
            _ => log.with_extension(format!("retry-{attempt}.{extension}")),
        }
    }

    /// The run's shared checkpoint as it is now.
    fn shared(&self) -> Result<Checkpoint, TuneError> {
        Checkpoint::load(&self.dir.join("checkpoint.json")).map_err(TuneError::Failed)
    }
}

/// What a shard does about a round's fit ([`ShardSession::next_fit`]).
enum NextFit {
    /// Fit it, holding the lock of this attempt.
    Fit(u64),
    /// Wait for this shard's fit.
    Wait(u64),
    /// This shard's attempt failed, for this reason: stop.
    Failed(u64, String),
}

/// What the fit of a round needs from the shard that played it.
struct RoundFit<'a, G> {
    start: G,
    play: &'a RoundPlay,
    /// The round's games, every shard's.
    target: u64,
    /// Each game's opening by id, as the logs write it.
    openings: Vec<Vec<String>>,
    /// The openings of the run's stream used once the round's are drawn.
    openings_used: u64,
    pool: &'a rayon::ThreadPool,
    /// Since this shard started the round.
    clock: Instant,
}

/// The self-play games of a round, as the shards' logs must hold them: this run's (its spec
/// hash), this round's (their seeds), each game with the opening the run's stream gives it.
struct RoundGames<'a> {
    /// The round, from 0.
    round: u64,
    /// The run's spec hash.
    spec_hash: &'a str,
    /// Each game's opening by id, as the logs write it.
    openings: &'a [Vec<String>],
    /// Each game's seed by id.
    seeds: Vec<u64>,
}

impl RoundGames<'_> {
    /// The round's games.
    fn target(&self) -> u64 {
        self.seeds.len() as u64
    }

    /// Why the log line `line` is not the round's game `id`; `None` when it is.
    fn mismatch(&self, line: &[u8], id: u64) -> Option<String> {
        // What a line says of itself, shown escaped and cut: the line may be anything.
        let shown = |text: &str| -> String {
            let text: String = text.chars().take(60).collect();
            crate::outputs::escape_controls(&text).into_owned()
        };
        if !line.ends_with(b"\n") {
            return Some("it is cut short (no end of line)".into());
        }
        let game: GameLine = match serde_json::from_slice(line) {
            Ok(game) => game,
            Err(e) => return Some(format!("not a games log line ({})", shown(&e.to_string()))),
        };
        let i = id as usize;
        Some(if game.id != id {
            format!("it holds game {}", game.id)
        } else if game.spec != self.spec_hash {
            format!(
                "another spec's game (spec hash {}, this run's {})",
                shown(&game.spec),
                self.spec_hash
            )
        } else if (game.first.as_str(), game.second.as_str()) != ("selfplay", "selfplay")
            || (game.pair, game.opening_index, game.round) != (id, id, 0)
        {
            "it is no self-play game of a regression run (its engines, pair, round or opening index)".into()
        } else if self.openings.get(i) != Some(&game.opening) {
            "its opening is not the one the run gives that game".into()
        } else if self.seeds.get(i) != Some(&game.seed) {
            "its seed is not that game's (another round's game?)".into()
        } else {
            return None;
        })
    }
}

/// Checks the folder of a sharded run for this shard: new, a sharded run's, one another shard
/// is creating (it holds only `shards.json` and temporary files: `shards.json` being written,
/// the writable check's `.tmp…`), or else what `--out` may name. The folder is read once: read
/// twice, it could be empty the first time and hold another shard's temporary file the second.
fn check_run_folder(dir: &Path, force: bool) -> Result<(), String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        // A file, or a folder that cannot be read: the output check says which.
        Err(_) => return crate::outputs::check_output_folder(dir, force),
    };
    let joining = entries.flatten().all(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name == SHARDS_FILE
            || name.ends_with(crate::outputs::TEMPORARY_SUFFIX)
            || name.starts_with(".tmp")
    });
    if joining || dir.join(SHARDS_FILE).exists() {
        return Ok(());
    }
    crate::outputs::check_output_folder(dir, force)
}

/// The games of `target` (ids 0 to `target` − 1) whose id is `index` mod `count`.
fn share(index: u64, count: u64, target: u64) -> u64 {
    if index < target {
        (target - index).div_ceil(count)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_shards_temporary_files_never_make_the_folder_refused() {
        // Another shard has created the run's folder and writes `shards.json` through a
        // temporary file, again and again: whenever this shard looks, the folder is empty or
        // holds only that temporary, and it is never refused.
        let dir = tempfile::tempdir().unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let temporary = dir.path().join(format!(
            ".{SHARDS_FILE}.{}.a1B2c3{}",
            std::process::id(),
            crate::outputs::TEMPORARY_SUFFIX
        ));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = std::fs::write(&temporary, "{");
                    let _ = std::fs::remove_file(&temporary);
                }
            });
            let refused = (0..20_000)
                .filter_map(|_| check_run_folder(dir.path(), false).err())
                .next();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            assert_eq!(refused, None);
        });
    }

    #[test]
    fn a_line_of_another_run_round_or_game_is_told_from_the_rounds_own() {
        let openings = [vec!["f5".to_string()], vec!["d3".to_string()]];
        let games = RoundGames {
            round: 1,
            spec_hash: "0123456789abcdef",
            openings: &openings,
            seeds: vec![70, 71],
        };
        // The round's game 1, as a shard logs it.
        let own = serde_json::json!({
            "id": 1, "pair": 1, "round": 0, "opening_index": 1, "opening": ["d3"],
            "first": "selfplay", "second": "selfplay", "score": 1.0, "result": "1-0",
            "margin": 4, "termination": "normal", "moves": ["c3"], "plies": 1,
            "nodes": [5, 0], "timed_out": false, "seed": 71, "spec": "0123456789abcdef",
            "seconds": 0.01,
        });
        let line = |game: &serde_json::Value| format!("{game}\n").into_bytes();
        assert_eq!(games.mismatch(&line(&own), 1), None);
        let changed = |field: &str, value: serde_json::Value| {
            let mut game = own.clone();
            game[field] = value;
            games.mismatch(&line(&game), 1).expect(field)
        };
        assert!(changed("id", 3.into()).contains("holds game 3"));
        let other_spec = changed("spec", "fedcba9876543210".into());
        assert!(other_spec.contains(
            "another spec's game (spec hash fedcba9876543210, this run's 0123456789abcdef)"
        ));
        for (field, value) in [
            ("first", "engine".into()),
            ("second", "engine".into()),
            ("pair", 0.into()),
            ("opening_index", 0.into()),
            ("round", 2.into()),
        ] {
            assert!(
                changed(field, value).contains("no self-play game"),
                "{field}"
            );
        }
        assert!(changed("opening", serde_json::json!(["f5"])).contains("opening"));
        assert!(changed("seed", 70.into()).contains("seed"));
        // Game 0's line where game 1 belongs.
        assert!(
            games
                .mismatch(&line(&own), 0)
                .unwrap()
                .contains("holds game 1")
        );
        // A line cut short, or not a game, or any bytes: a reason, shown without control
        // characters.
        let cut = line(&own);
        assert!(
            games
                .mismatch(&cut[..cut.len() - 1], 1)
                .unwrap()
                .contains("cut short")
        );
        let junk = games.mismatch(b"\x1b[2J\xff{\n", 1).unwrap();
        assert!(junk.contains("not a games log line"), "{junk}");
        let spec = changed("spec", "\u{1b}[31m".into());
        assert!(!spec.chars().any(char::is_control), "{spec:?}");
    }

    /// Shard `index` of 2 of a small regression run in `dir` (never played: its locks only),
    /// retrying `retry`.
    fn session(dir: &Path, index: u64, retry: Option<(u64, u64)>) -> ShardSession {
        let text = r#"name = "r"
game = "othello"
seed = 1
method = "regression"

[engine]
algorithm = "alphabeta"
depth = 1

[openings]
plies = 8

[regression]
games = 4
rounds = 1

[confirm]
games = 2
"#;
        let spec = crate::tune::spec::parse(text, "r.toml").unwrap();
        let plan = crate::tune::checkpoint::Plan::new(&spec, None).unwrap();
        let shard = Shard::parse(&format!("{index}/2")).unwrap();
        ShardSession {
            ck: Checkpoint::new(spec, plan),
            shard,
            dir: dir.to_path_buf(),
            own: dir.join(shard.folder_name()),
            copy: None,
            retry,
        }
    }

    #[test]
    fn a_failed_fit_is_retried_by_one_resumed_shard_and_stops_the_shards_that_saw_it_fail() {
        let fits = |next: &NextFit| match next {
            NextFit::Fit(attempt) => Some(*attempt),
            _ => None,
        };
        for _ in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir(dir.path().join(SELFPLAY_DIR)).unwrap();
            let [zero, one] = [0, 1].map(|i| session(dir.path(), i, None));
            // Shard 1 takes the first attempt; shard 0 waits for it.
            assert!(matches!(one.next_fit(0).unwrap(), NextFit::Fit(0)));
            assert!(matches!(zero.next_fit(0).unwrap(), NextFit::Wait(1)));
            // Shard 1 killed while it fits: resumed, it fits again; shard 0 still waits.
            assert!(matches!(one.next_fit(0).unwrap(), NextFit::Fit(0)));
            // It fails: shard 0, which saw the attempt under way, stops.
            std::fs::write(one.failed(0, 0), "No space left on device").unwrap();
            match zero.next_fit(0).unwrap() {
                NextFit::Failed(1, why) => assert_eq!(why, "No space left on device"),
                _ => panic!("shard 0 goes on after shard 1's fit failed"),
            }
            // Both resumed at once: one of them takes the next attempt, the other waits for it.
            let resumed = [0, 1].map(|i| session(dir.path(), i, Some((0, 0))));
            let nexts = std::thread::scope(|scope| {
                let turns = resumed
                    .each_ref()
                    .map(|s| scope.spawn(move || s.next_fit(0).unwrap()));
                turns.map(|t| t.join().unwrap())
            });
            let fitter = match nexts.iter().position(|n| fits(n) == Some(1)) {
                Some(i) => i as u64,
                None => panic!("no shard retries the fit"),
            };
            assert!(
                matches!(nexts[1 - fitter as usize], NextFit::Wait(by) if by == fitter),
                "both shards fit"
            );
            assert_eq!(resumed[0].fitter(0).unwrap(), Some(fitter));
            // A shard resumed later finds the retry under way and waits for it.
            let later = session(dir.path(), 1 - fitter, None);
            assert!(matches!(later.next_fit(0).unwrap(), NextFit::Wait(by) if by == fitter));
        }
    }

    #[test]
    fn the_shares_deal_out_every_id_once() {
        for count in 1..6 {
            for target in 0..20 {
                let shares: u64 = (0..count).map(|i| share(i, count, target)).sum();
                assert_eq!(shares, target, "{count} shards, {target} games");
                for index in 0..count {
                    let ids = (0..target).filter(|id| id % count == index).count() as u64;
                    assert_eq!(share(index, count, target), ids);
                }
            }
        }
    }
}

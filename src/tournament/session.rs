//! One tournament run in its output folder, as a library: [`Session::open`] creates the folder
//! or picks up what it holds, [`Session::play`] plays the missing games and returns the
//! [`Outcome`].
//!
//! What a folder may hold when it is opened, and what happens:
//! - nothing: a fresh run;
//! - games of the same spec (the same hash): they are kept and only the missing games are
//!   played — a finished run plays nothing and its report can be rendered again;
//! - games of a spec that the new one *extends* (more openings or rounds, everything else
//!   the same, so that every game played keeps its id, engines, opening and seed), with
//!   [`Options::extend`]: they are kept, `run.json` records the earlier hash in `extends`,
//!   and the new games are played;
//! - anything else: refused, with the reason.
//!
//! The log is locked for the session's life (a second writer is refused), a torn last line
//! (a run killed in mid-write) is cut off, and `run.json` records every session: its start,
//! end, threads, games played (kept up to date every few seconds while it runs, so a killed
//! session still says roughly how far it got), peak memory and how it ended.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::arena::log::{Addition, GameLine, LogWriter, RunInfo, Scan, Session as SessionRecord};
use crate::arena::log::{create_out_folder, now, peak_rss_kib};
use crate::arena::openings;
use crate::arena::reader::{Duplicate, RunLines, read_log};
use crate::arena::records::Format;
use crate::arena::runner::{Checked, check_outside, run_games};
use crate::arena::schedule::{Shard, ShardUnit};
use crate::arena::spec::{Anchor, EarlierShape, ResolvedEngine, TournamentSpec};
use crate::arena::workload::{affinity_refusal, hosted_refusal, threads_refusal};
use crate::arena::{CancelToken, spec::ResolvedSpec};
use crate::eval::{Features, FeaturesVisitor};
use crate::games::{Game, GameVisitor};
use crate::outputs::{check_output_folder, remove_run_files, remove_stale_temporaries};
use crate::report::Summary;
use crate::report::cost::{CostRow, cost_rows};
use crate::report::load::summarize_logs;
use crate::report::records::LiveRecords;
use crate::report::run::{ReportError, write_run_report};
use crate::report::table::{RatingRow, RatingScale, rating_rows};
use crate::stats::sequential::Decided;

use super::shared_sprt::SharedSprt;

/// What every refusal of a folder's earlier run says the user can do.
pub const AFRESH: &str =
    "Add --fresh to start afresh here (it removes only joute's files), or choose another --out";

/// How `run.json`'s record of the running session is refreshed.
const RECORD_EVERY: Duration = Duration::from_secs(5);

/// Why a session cannot open or play.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The user's input is wrong (the folder holds another run, a second writer, a damaged
    /// log): nothing was played.
    #[error("{0}")]
    Input(String),
    /// The run failed (a file could not be written, the openings do not replay).
    #[error("{0}")]
    Failed(String),
    /// The games were played but the report could not be written.
    #[error(transparent)]
    Report(#[from] ReportError),
}

impl SessionError {
    /// Whether the user's input is at fault (the command line exits 2), rather than the run.
    pub fn is_input(&self) -> bool {
        matches!(self, SessionError::Input(_))
    }
}

/// How to open a run folder.
#[derive(Clone, Debug)]
pub struct Options {
    /// Worker threads.
    pub threads: usize,
    /// Play only this shard's games.
    pub shard: Option<Shard>,
    /// Keep the games of an earlier spec that this one extends (the user said `--resume`).
    pub extend: bool,
    /// Write into an existing folder of other files that holds no run (the user said
    /// `--force`); refused otherwise.
    pub force: bool,
    /// Start afresh (the user said `--fresh`): the files of the run the folder holds, those
    /// its record lists, are removed before anything is played; other files stay.
    pub fresh: bool,
    /// The anchor of the ratings the session reports, whatever the spec says (`--anchor`):
    /// `Some(Some(a))` fixes engine `a.engine` at `a.elo`, `Some(None)` puts the engines' mean
    /// at 0, `None` keeps the spec's. A view of the same games: not in the spec's hash.
    pub anchor: Option<Option<Anchor>>,
    /// With `affinity`, share cores between games on a clock anyway (`--oversubscribe`).
    pub oversubscribe: bool,
}

/// What the folder held when the session opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opened {
    /// Nothing: a fresh run.
    Fresh,
    /// Games of this spec, `games` of them, kept.
    Continued {
        /// Games kept.
        games: u64,
    },
    /// Games of an earlier spec that this one extends, kept.
    Extended {
        /// Games kept.
        games: u64,
        /// The earlier spec's hash.
        from: String,
        /// The engines this spec adds (empty: it adds openings or rounds).
        added: Vec<String>,
    },
}

/// Something the caller may want to tell the user about the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The log ended with a torn line: it was cut off and that game is played again.
    TornLine,
    /// The run was started by another version of joute.
    OtherVersion {
        /// The version that started it.
        started_by: String,
    },
    /// A log (this run's, or another shard's) holds a game twice, the same line both times:
    /// skipped.
    Duplicates(Duplicate),
    /// `--fresh` emptied the folder of the run it held.
    Fresh {
        /// Files removed.
        removed: usize,
        /// Files left: not the run's (relative paths).
        kept: Vec<String>,
    },
}

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every scheduled game is in the log.
    Complete,
    /// The SPRT decided; later pairs were not played.
    Decided,
    /// Cancelled: no game was started after the token was raised; the rest can be resumed.
    Interrupted,
}

impl Ending {
    /// The word `run.json` records.
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Complete => "complete",
            Ending::Decided => "decided",
            Ending::Interrupted => "interrupted",
        }
    }
}

/// What a session reports while it plays.
pub trait Observer {
    /// Play begins: the run holds `scheduled` games, `remaining` of them to play now (an SPRT
    /// may stop earlier).
    fn started(&mut self, _scheduled: u64, _remaining: u64) {}
    /// A game finished and was logged; `summary` counts it.
    fn game_finished(&mut self, game: &GameLine, summary: &Summary);
}

/// An observer that ignores everything.
impl Observer for () {
    fn game_finished(&mut self, _: &GameLine, _: &Summary) {}
}

/// The result of [`Session::play`].
#[derive(Debug)]
pub struct Outcome {
    /// How it ended.
    pub ending: Ending,
    /// Games this session played.
    pub played: u64,
    /// Wall-clock seconds of this session's games.
    pub seconds: f64,
    /// The run record as written at the end (every session).
    pub info: RunInfo,
    /// The summary of every game in the log (this session's and earlier ones).
    pub summary: Summary,
    /// A sharded SPRT run: the run's decision, read from every shard's log (a shard's own
    /// summary cannot decide: it lacks the other shards' pairs).
    pub run_decision: Option<Decided>,
    /// What was found while playing that the user should hear (another shard's log holding a
    /// game twice).
    pub notices: Vec<Notice>,
}

/// What [`Session::play_and_report`] did: the session's outcome and the run's rating table.
#[derive(Debug)]
pub struct Reported {
    /// How the session went.
    pub outcome: Outcome,
    /// The rating table's rows, best first.
    pub rows: Vec<RatingRow>,
    /// The cost table's rows, in the same order.
    pub costs: Vec<CostRow>,
    /// What the ratings mean (scale, anchor, first-move advantage).
    pub scale: RatingScale,
    /// The report's page (`index.html`), when the report was written.
    pub page: Option<PathBuf>,
}

/// An open run folder, its log locked.
pub struct Session {
    spec: TournamentSpec,
    out: PathBuf,
    options: Options,
    writer: LogWriter,
    summary: Summary,
    info: RunInfo,
    todo: Vec<u64>,
    opened: Opened,
    notices: Vec<Notice>,
    /// A sharded SPRT run: the test over every shard's log.
    shared: Option<SharedSprt>,
    /// The names the outside programs gave themselves, when they were checked as the folder
    /// was opened (a fresh run's).
    checked_names: Option<Vec<Checked>>,
}

impl Session {
    /// Opens (creating it when missing) the run folder `out` for `spec`: locks its log, reads
    /// what it holds, and works out which games are still to play.
    pub fn open(
        spec: &TournamentSpec,
        out: &Path,
        options: Options,
    ) -> Result<Session, SessionError> {
        let refusal = affinity_refusal(&spec.resolved, options.threads, options.oversubscribe)
            .or_else(|| hosted_refusal(&spec.resolved, options.threads, options.oversubscribe))
            .or_else(|| threads_refusal(&spec.resolved, options.threads, options.oversubscribe));
        if let Some(why) = refusal {
            return Err(SessionError::Input(why));
        }
        spec.check_hosts().map_err(SessionError::Input)?;
        let spec_hosts = &spec.hosts;
        for e in &spec.resolved.engines {
            if let Some(why) = e.outside.as_ref().and_then(|o| o.reaches_run_folder(out)) {
                return Err(SessionError::Input(format!("engine '{}': {why}", e.name)));
            }
        }
        let Folder {
            log_path,
            mut writer,
            mut notices,
            checked_names,
            previous,
        } = prepare_folder(spec, out, &options)?;
        let shard = options.shard;
        // What the folder's games allow this spec to be: the same run, or one it extends
        // (more openings or rounds, more engines); the run's earlier shapes come with it.
        let (mut spec, added) = match &previous {
            Some(previous) => what_the_folder_allows(spec, previous, out, &options)?,
            None => (spec.clone(), Vec::new()),
        };
        // The run's spec as the folder has it plays with the caller's hosted engines.
        spec.hosts = spec_hosts.clone();
        let spec = &spec;
        let total = spec.resolved.schedule().games();
        let pairings = spec.resolved.schedule().pairings.len() as u64;
        let mut info = new_run_info(spec, shard, total, pairings);
        let mut summary = Summary::new(&spec.resolved, &spec.hash);
        let mut lines = RunLines::new(&spec.resolved, vec![spec.hash.clone()]);
        let mut opened = Opened::Fresh;
        if let Some(previous) = previous {
            carry_over_record(&mut info, &previous, spec, &added, total, &mut notices);
            summary.accept_earlier(&info.extends);
            let mut hashes = vec![spec.hash.clone()];
            hashes.extend(info.extends.iter().cloned());
            lines = RunLines::new(&spec.resolved, hashes);
            // Every line checked (a game of the run, replayed to its result), then counted.
            let same_spec = previous.spec_hash == spec.hash;
            let scan = scan_log(
                &log_path,
                out,
                &mut lines,
                &mut summary,
                shard,
                pairings,
                same_spec,
            )?;
            if scan.torn {
                notices.push(Notice::TornLine);
            }
            count_killed_sessions_games(&mut info.sessions, scan.games);
            notices.extend(lines.duplicates().iter().cloned().map(Notice::Duplicates));
            writer.cut(scan.good_bytes).map_err(|e| {
                SessionError::Failed(format!(
                    "cannot cut the torn line of {}: {e}",
                    log_path.display()
                ))
            })?;
            opened = continued_or_extended(previous.spec_hash, &spec.hash, scan.games, added);
        }
        // A sharded SPRT reads every shard's log; the run may be decided already.
        let (shared, shared_decision) = shared_sprt(spec, out, shard, &log_path, &mut notices)?;
        let decided_at = shared_decision.or(summary.decision()).map(|d| d.pairs);
        let todo = games_to_play(total, shard, pairings, &lines, decided_at);
        Ok(Session {
            spec: spec.clone(),
            out: out.to_path_buf(),
            options,
            writer,
            summary,
            info,
            todo,
            opened,
            notices,
            shared,
            checked_names,
        })
    }

    /// Adds this session to the run's record, started now, nothing played yet.
    fn start_session_record(&mut self) {
        let (started_unix, started) = now();
        self.info.sessions.push(SessionRecord {
            started_unix,
            started,
            finished_unix: None,
            finished: None,
            threads: self.options.threads,
            games_played: 0,
            peak_rss_kib: None,
            ended: None,
        });
    }

    /// The sharded run's decision after this session and the other shards' new duplicates
    /// (none without a shared SPRT).
    fn last_look_at_shared_sprt(&mut self) -> Result<(Option<Decided>, Vec<Notice>), SessionError> {
        let run_decision = match self.shared.as_mut() {
            Some(s) => s.look(true).map_err(SessionError::Failed)?,
            None => None,
        };
        let notices = match self.shared.as_mut() {
            Some(s) => s
                .new_duplicates()
                .into_iter()
                .map(Notice::Duplicates)
                .collect(),
            None => Vec::new(),
        };
        Ok((run_decision, notices))
    }

    /// A finished run opened again: nothing to play and no session to record (but an
    /// extension that adds no game still records the new spec); the outcome from the log.
    fn nothing_to_play(
        self,
        observer: &mut dyn Observer,
        run_path: &Path,
        log_path: &Path,
    ) -> Result<Outcome, SessionError> {
        observer.started(self.scheduled(), self.remaining());
        if matches!(self.opened, Opened::Extended { .. }) {
            save_run_info(&self.info, run_path)?;
        }
        let (_, summary, _) = summarize_logs(&[log_path.to_path_buf()])
            .map_err(|e| SessionError::Failed(format!("cannot read the log back: {e}")))?;
        Ok(Outcome {
            ending: if summary.decision().is_some() {
                Ending::Decided
            } else {
                Ending::Complete
            },
            played: 0,
            seconds: 0.0,
            info: self.info,
            summary,
            run_decision: self.shared.as_ref().and_then(SharedSprt::decision),
            notices: Vec::new(),
        })
    }

    /// Starts every outside program once and speaks its handshake (unless the folder's opening
    /// did, for a fresh run), logging to `engine_logs`; records the names they gave themselves.
    fn start_outside_programs(&mut self, engine_logs: &Path) -> Result<(), SessionError> {
        std::fs::create_dir_all(engine_logs).map_err(|e| {
            SessionError::Failed(format!("cannot create {}: {e}", engine_logs.display()))
        })?;
        let checked = match self.checked_names.take() {
            Some(checked) => checked,
            None => check_programs(&self.spec, Some(engine_logs)).map_err(SessionError::Input)?,
        };
        for c in checked {
            if let Some(own) = c.reported_name {
                self.info.reported_names.insert(c.engine.clone(), own);
            }
            if !c.held.is_empty() {
                self.info.engines_held.insert(c.engine, c.held);
            }
        }
        Ok(())
    }

    /// The writers of `[output] records`, game by game, if the spec asks for any.
    fn live_records(&self) -> Result<Option<LiveRecords>, SessionError> {
        Ok(if self.spec.resolved.records.is_empty() {
            None
        } else {
            let formats = (self.spec.resolved.records.iter())
                .map(|name| Format::parse(name).map_err(SessionError::Input))
                .collect::<Result<Vec<_>, _>>()?;
            let r = &self.spec.resolved;
            Some(LiveRecords::new(
                r.game_kind(),
                &r.name,
                &self.out,
                &formats,
            ))
        })
    }

    /// What the folder held.
    pub fn opened(&self) -> &Opened {
        &self.opened
    }

    /// Things worth telling the user about the folder.
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// Games this folder is to hold (the shard's share of the run).
    pub fn scheduled(&self) -> u64 {
        self.info.games_scheduled
    }

    /// Games still to play (an SPRT may stop earlier).
    pub fn remaining(&self) -> u64 {
        self.todo.len() as u64
    }

    /// The summary of the games the folder held when it was opened.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The run folder.
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// Plays the remaining games, telling `observer` of each, until they are all played, the
    /// SPRT decides, or `cancel` is raised (the games in flight then finish and are logged).
    /// `run.json` records the session throughout and how it ended.
    pub fn play(
        mut self,
        observer: &mut dyn Observer,
        cancel: &CancelToken,
    ) -> Result<Outcome, SessionError> {
        let log_path = self.out.join("games.jsonl");
        let engine_logs = self.out.join("engines");
        let run_path = self.out.join("run.json");
        if self.todo.is_empty() {
            return self.nothing_to_play(observer, &run_path, &log_path);
        }
        self.begin(observer, &run_path, &engine_logs)?;
        let save = |info: &RunInfo| save_run_info(info, &run_path);

        // `[output] records`, game by game (the report rewrites them whole at the end).
        let mut live = self.live_records()?;
        let decided_before = (self.shared.as_ref())
            .and_then(SharedSprt::decision)
            .or(self.summary.decision());
        let stop_pair = AtomicU64::new(decided_before.map_or(u64::MAX, |d| d.pairs));
        let clock = Instant::now();
        let mut recorded = Instant::now();
        let mut played = 0u64;
        let mut decided = decided_before.is_some();
        let Session {
            spec,
            writer,
            summary,
            info,
            todo,
            options,
            shared,
            ..
        } = &mut self;
        let result = crate::eval::dispatch(
            &spec.resolved.game_kind(),
            Play {
                spec,
                todo,
                threads: options.threads,
                stop_pair: &stop_pair,
                cancel,
                engine_logs: &engine_logs,
                consume: |game: GameLine| {
                    append_game(writer, live.as_mut(), &game, &log_path)?;
                    played += 1;
                    if let Some(d) = count_game(summary, shared.as_mut(), &game)? {
                        decided = true;
                        stop_pair.store(d.pairs, Ordering::Relaxed);
                    }
                    observer.game_finished(&game, summary);
                    if recorded.elapsed() >= RECORD_EVERY {
                        recorded = Instant::now();
                        if let Some(s) = info.sessions.last_mut() {
                            s.games_played = played;
                        }
                        save(info)?;
                    }
                    Ok(())
                },
            },
        );
        let seconds = clock.elapsed().as_secs_f64();
        let ending = ending_of(decided, played, todo.len() as u64);
        // Record the session whatever happened: the games it logged are in the run.
        record_session_end(
            info,
            played,
            result.is_ok().then(|| ending.as_str().to_string()),
        );
        save(info)?;
        result?;
        self.outcome(ending, played, seconds, &log_path)
    }

    /// Begins the session: records it in `run.json` (at `run_path`), starts the outside
    /// programs (logging to `engine_logs`) and tells `observer` that play starts.
    fn begin(
        &mut self,
        observer: &mut dyn Observer,
        run_path: &Path,
        engine_logs: &Path,
    ) -> Result<(), SessionError> {
        self.start_session_record();
        save_run_info(&self.info, run_path)?;
        // Every outside program started once and its handshake spoken before play is
        // announced (a fresh run's when its folder was opened): a program that does not start
        // is the run's only message.
        if self.spec.has_outside() {
            self.start_outside_programs(engine_logs)?;
            save_run_info(&self.info, run_path)?;
        }
        observer.started(self.scheduled(), self.remaining());
        Ok(())
    }

    /// The outcome of a session that played `played` games in `seconds` and ended so: the
    /// summary read back from the log at `log_path`, and the sharded run's last look.
    fn outcome(
        mut self,
        ending: Ending,
        played: u64,
        seconds: f64,
        log_path: &Path,
    ) -> Result<Outcome, SessionError> {
        let (_, summary, _) = summarize_logs(&[log_path.to_path_buf()])
            .map_err(|e| SessionError::Failed(format!("cannot read the log back: {e}")))?;
        let (run_decision, notices) = self.last_look_at_shared_sprt()?;
        Ok(Outcome {
            ending,
            played,
            seconds,
            info: self.info,
            summary,
            run_decision,
            notices,
        })
    }
}

/// The run folder as [`prepare_folder`] leaves it: its log locked, and the record of the run
/// it held.
struct Folder {
    /// The run's log, `games.jsonl`.
    log_path: PathBuf,
    /// The log's writer, holding its lock.
    writer: LogWriter,
    /// What is worth telling the user so far (a run started afresh).
    notices: Vec<Notice>,
    /// The names the outside programs gave themselves, when a fresh run checked them.
    checked_names: Option<Vec<Checked>>,
    /// The folder's earlier record, when its log holds games.
    previous: Option<RunInfo>,
}

/// Readies the run folder `out` for `spec`: checks it may be used, checks a fresh run's
/// outside programs, creates the folder, locks its log (starting afresh when the options say
/// so), removes a killed session's temporaries and loads the earlier run's record.
fn prepare_folder(
    spec: &TournamentSpec,
    out: &Path,
    options: &Options,
) -> Result<Folder, SessionError> {
    check_output_folder(out, options.force).map_err(SessionError::Input)?;
    let log_path = out.join("games.jsonl");
    // A fresh run checks its outside programs before it creates anything: a program that
    // is missing or does not speak its protocol leaves no folder behind (the check's
    // stderr is then only in the error).
    let fresh = log_path.metadata().map_or(true, |m| m.len() == 0);
    let checked_names = if fresh && spec.has_outside() {
        Some(check_programs(spec, None).map_err(SessionError::Input)?)
    } else {
        None
    };
    create_out_folder(out).map_err(SessionError::Input)?;
    let run_path = out.join("run.json");
    // Lock the log before reading it: no other process may append while this one runs.
    let mut writer = lock_log(out, &log_path)?;
    let mut notices = Vec::new();
    if options.fresh && (run_path.exists() || log_path.metadata().is_ok_and(|m| m.len() > 0)) {
        notices.push(start_afresh(out, &run_path, &mut writer)?);
    }
    let holds_games = log_path.metadata().map(|m| m.len() > 0).unwrap_or(false);
    // Files a killed session was writing when it died (the lock says no run is live here).
    remove_stale_temporaries(out);
    let previous = if holds_games {
        Some(RunInfo::load(&run_path).map_err(SessionError::Input)?)
    } else {
        None
    };
    Ok(Folder {
        log_path,
        writer,
        notices,
        checked_names,
        previous,
    })
}

/// The run's record of `spec` before anything is carried over from the folder's earlier record:
/// the games of the `total` (over `pairings` pairings) that are `shard`'s, no session yet.
fn new_run_info(spec: &TournamentSpec, shard: Option<Shard>, total: u64, pairings: u64) -> RunInfo {
    RunInfo {
        joute_version: env!("CARGO_PKG_VERSION").to_string(),
        spec_hash: spec.hash.clone(),
        seed: spec.resolved.seed,
        shard,
        games_scheduled: (0..total)
            .filter(|&id| shard.is_none_or(|s| s.holds(id, pairings)))
            .count() as u64,
        sessions: Vec::new(),
        extends: Vec::new(),
        additions: Vec::new(),
        files: Vec::new(),
        reported_names: Default::default(),
        engines_held: Default::default(),
        spec: spec.resolved.clone(),
    }
}

/// What a folder holding `games` of the run with hash `from` was opened as, for the spec with
/// hash `hash` (which adds `added` when it extends that run).
fn continued_or_extended(from: String, hash: &str, games: u64, added: Vec<String>) -> Opened {
    if from == hash {
        Opened::Continued { games }
    } else {
        Opened::Extended { games, from, added }
    }
}

/// The ids of the games still to play: `shard`'s games of the `total` (over `pairings`
/// pairings) that `lines` does not hold, before the pair `decided_at` where an SPRT stopped.
fn games_to_play(
    total: u64,
    shard: Option<Shard>,
    pairings: u64,
    lines: &RunLines,
    decided_at: Option<u64>,
) -> Vec<u64> {
    (0..total)
        .filter(|&id| shard.is_none_or(|s| s.holds(id, pairings)))
        .filter(|&id| !lines.contains(id))
        .filter(|&id| decided_at.is_none_or(|pairs| id / 2 < pairs))
        .collect()
}

/// Writes the run's record `info` to `run_path`.
fn save_run_info(info: &RunInfo, run_path: &Path) -> Result<(), SessionError> {
    info.save(run_path)
        .map_err(|e| SessionError::Failed(format!("cannot write {}: {e}", run_path.display())))
}

/// Appends a finished `game` to the run's log (`writer`, at `log_path`) and to the records
/// written game by game, if any.
fn append_game(
    writer: &mut LogWriter,
    live: Option<&mut LiveRecords>,
    game: &GameLine,
    log_path: &Path,
) -> Result<(), SessionError> {
    writer.append(game).map_err(|e| {
        SessionError::Failed(format!("cannot append to {}: {e}", log_path.display()))
    })?;
    if let Some(live) = live {
        live.append(game)
            .map_err(|e| SessionError::Failed(e.to_string()))?;
    }
    Ok(())
}

/// Counts a finished `game` in the `summary`; the SPRT's decision, if it decides now (a
/// sharded run's is the `shared` test's).
fn count_game(
    summary: &mut Summary,
    shared: Option<&mut SharedSprt>,
    game: &GameLine,
) -> Result<Option<Decided>, SessionError> {
    let counted = summary.add(game).map_err(|e| SessionError::Failed(e.0))?;
    // A shard's own pairs are not a prefix of the run's: its test is the shared one.
    Ok(match shared {
        Some(s) => s.look(false).map_err(SessionError::Failed)?,
        None => counted,
    })
}

/// How a session ended: the SPRT `decided`, or it played all its `todo` games, or it was
/// interrupted after `played`.
fn ending_of(decided: bool, played: u64, todo: u64) -> Ending {
    if decided {
        Ending::Decided
    } else if played == todo {
        Ending::Complete
    } else {
        Ending::Interrupted
    }
}

/// Stamps the session `info` records last as finished now, with the games it played, its peak
/// memory and how it ended (`None`: on an error).
fn record_session_end(info: &mut RunInfo, played: u64, ended: Option<String>) {
    let (finished_unix, finished) = now();
    if let Some(s) = info.sessions.last_mut() {
        s.finished_unix = Some(finished_unix);
        s.finished = Some(finished);
        s.games_played = played;
        s.peak_rss_kib = peak_rss_kib();
        s.ended = ended;
    }
}

/// What the run's record `info` keeps of the folder's earlier record `previous`: the specs it
/// extends (with this one's addition when `spec` extends it, adding `added` and the games up to
/// `total`), its files, sessions and the names outside engines gave themselves; a notice when
/// another version of joute started the run.
fn carry_over_record(
    info: &mut RunInfo,
    previous: &RunInfo,
    spec: &TournamentSpec,
    added: &[String],
    total: u64,
    notices: &mut Vec<Notice>,
) {
    info.extends = previous.extends.clone();
    info.additions = previous.additions.clone();
    info.files = previous.files.clone();
    if previous.spec_hash != spec.hash {
        info.extends.push(previous.spec_hash.clone());
        let (at_unix, at) = now();
        info.additions.push(Addition {
            at_unix,
            at,
            from: previous.spec_hash.clone(),
            to: spec.hash.clone(),
            engines: added.to_vec(),
            games: total.saturating_sub(previous.spec.schedule().games()),
        });
    }
    if previous.joute_version != info.joute_version {
        notices.push(Notice::OtherVersion {
            started_by: previous.joute_version.clone(),
        });
    }
    info.sessions = previous.sessions.clone();
    info.reported_names = previous.reported_names.clone();
    info.engines_held = previous.engines_held.clone();
}

/// The SPRT of a sharded run, which reads every shard's log, and its decision if the run is
/// decided already (`None`, `None` for a run without shards or without an SPRT); the other
/// shards' duplicates go to `notices`.
fn shared_sprt(
    spec: &TournamentSpec,
    out: &Path,
    shard: Option<Shard>,
    log_path: &Path,
    notices: &mut Vec<Notice>,
) -> Result<(Option<SharedSprt>, Option<Decided>), SessionError> {
    let mut shared = match shard {
        Some(s) if spec.resolved.sprt.is_some() => Some(SharedSprt::new(spec, out, s)),
        _ => None,
    };
    let shared_decision = match shared.as_mut() {
        Some(s) => s.look(true).map_err(SessionError::Input)?,
        None => None,
    };
    if let Some(s) = shared.as_mut() {
        // This shard's own duplicates were said above.
        let others = s
            .new_duplicates()
            .into_iter()
            .filter(|d| d.path != log_path);
        notices.extend(others.map(Notice::Duplicates));
    }
    Ok((shared, shared_decision))
}

/// Locks the games log of the run folder `out` for this process: no other process may append
/// while this one runs.
fn lock_log(out: &Path, log_path: &Path) -> Result<LogWriter, SessionError> {
    LogWriter::lock(log_path).map_err(|e| {
        SessionError::Input(if e.kind() == std::io::ErrorKind::WouldBlock {
            format!(
                "{e}: another joute run is using {}; wait for it or choose another --out",
                out.display()
            )
        } else {
            format!("{}: cannot write the games log: {e}", log_path.display())
        })
    })
}

/// `--fresh` in a folder that holds a run: empties the log (which stays: this process holds its
/// lock) and removes the run's other files, those its record lists.
fn start_afresh(
    out: &Path,
    run_path: &Path,
    writer: &mut LogWriter,
) -> Result<Notice, SessionError> {
    // The record may be damaged (the reason to start afresh): then only the run's own
    // files go.
    let listed = RunInfo::load(run_path).map_or_else(|_| Vec::new(), |i| i.files);
    let failed = |e: std::io::Error| {
        SessionError::Failed(format!("--fresh: cannot empty {}: {e}", out.display()))
    };
    // The log stays (this process holds its lock) and is emptied.
    writer.cut(0).map_err(failed)?;
    let removed = remove_run_files(out, &listed, &["games.jsonl"]).map_err(failed)?;
    Ok(Notice::Fresh {
        removed: removed.files + 1,
        kept: removed.kept,
    })
}

/// The spec this session plays in a folder that holds the run `previous`: `spec` itself when
/// it is the same run, or `spec` extending it (more openings or rounds, more engines, with
/// `--resume`), carrying the run's earlier shapes; with the engines it adds. Refused when the
/// folder holds another shard, another spec, or one this spec extends without `--resume`.
fn what_the_folder_allows(
    spec: &TournamentSpec,
    previous: &RunInfo,
    out: &Path,
    options: &Options,
) -> Result<(TournamentSpec, Vec<String>), SessionError> {
    let shard = options.shard;
    let mut spec = spec.clone();
    let mut added = Vec::new();
    if previous.shard != shard {
        return Err(SessionError::Input(format!(
            "{} holds {}, not {}; choose the folder of that shard, or add --fresh to start afresh there",
            out.display(),
            describe_shard(previous.shard),
            describe_shard(shard)
        )));
    }
    spec.resolved.grown = previous.spec.grown.clone();
    if previous.spec_hash != spec.hash {
        added = why_not_extended(&previous.spec, &spec.resolved).map_err(|why| {
            SessionError::Input(format!(
                "{} holds the games of another spec ('{}', hash {}): {why}. {AFRESH}",
                out.display(),
                previous.spec.name,
                previous.spec_hash,
            ))
        })?;
        if !options.extend {
            let what = if added.is_empty() {
                "play only the new games".to_string()
            } else {
                format!("play only the games of {}", quoted_list(&added))
            };
            return Err(SessionError::Input(format!(
                "{} holds games of an earlier spec '{}' (hash {}) that this one extends: add --resume to keep them and {what}, or --fresh to start afresh",
                out.display(),
                previous.spec.name,
                previous.spec_hash
            )));
        }
        if !added.is_empty() {
            if shard.is_some() {
                return Err(SessionError::Input(format!(
                    "{} holds {}: a sharded run cannot gain engines ({}); play the new pairings unsharded in a folder of their own, or the whole spec afresh",
                    out.display(),
                    describe_shard(shard),
                    quoted_list(&added)
                )));
            }
            spec.resolved.grown.push(EarlierShape {
                engines: previous.spec.engine_names(),
                challengers: previous.spec.challengers.clone(),
                openings: previous.spec.opening_moves.len() as u64,
            });
        }
        spec.resolved.check().map_err(|why| {
            SessionError::Input(format!(
                "this spec cannot extend the run in {}: {why}. {AFRESH}",
                out.display()
            ))
        })?;
    }
    Ok((spec, added))
}

/// Reads the folder's log back: every line checked (a game of the run, or of this shard,
/// replayed to its result), then counted in `summary`. `same_spec`: the log's run is this spec's
/// (else a line this spec does not keep refuses the extension).
fn scan_log(
    log_path: &Path,
    out: &Path,
    lines: &mut RunLines,
    summary: &mut Summary,
    shard: Option<Shard>,
    pairings: u64,
    same_spec: bool,
) -> Result<Scan, SessionError> {
    read_log(log_path, lines, |game| {
        if shard.is_some_and(|s| !s.holds(game.id, pairings)) {
            return Err(format!("game id {} does not belong to this shard", game.id));
        }
        summary.add(&game).map(|_| ()).map_err(|e| e.0)
    })
    .map_err(|e| {
        if same_spec {
            SessionError::Input(e)
        } else {
            SessionError::Input(format!(
                "{e}: the new spec does not keep this game as it was played, so it cannot extend the run in {}. {AFRESH}",
                out.display()
            ))
        }
    })
}

impl Session {
    /// A run in its folder, start to end: plays the remaining games ([`Session::play`]), writes
    /// the run's report in the folder from its log ([`write_run_report`]; with `write_report`
    /// false, for a scratch folder, only the rating table is worked out), then records this
    /// process's peak memory in `run.json` ([`record_peak_memory`]), in that order, so that
    /// the figure covers the report. An interrupted session is reported like a finished one:
    /// [`Outcome::ending`] says it was interrupted.
    pub fn play_and_report(
        self,
        observer: &mut dyn Observer,
        cancel: &CancelToken,
        write_report: bool,
    ) -> Result<Reported, SessionError> {
        let out = self.out.clone();
        let anchor = self.options.anchor.clone();
        let mut outcome = self.play(observer, cancel)?;
        if let Some(anchor) = anchor {
            outcome.summary.spec.anchor = anchor;
        }
        let summary = &outcome.summary;
        let (rows, scale, page) = if write_report {
            let logs = [out.join("games.jsonl")];
            let written = write_run_report(summary, &out, &outcome.info, &logs)?;
            (written.rows, written.scale, Some(written.page))
        } else {
            let ratings = summary.ratings();
            (
                rating_rows(summary, &ratings),
                RatingScale::of(summary, &ratings),
                None,
            )
        };
        let costs = cost_rows(summary, &rows);
        if outcome.played > 0 {
            record_peak_memory(&out)?;
        }
        Ok(Reported {
            outcome,
            rows,
            costs,
            scale,
            page,
        })
    }
}

/// A session killed (SIGKILL, a power cut) recorded the games it played only now and then:
/// the games the log holds beyond what the sessions recorded are the last killed one's.
fn count_killed_sessions_games(sessions: &mut [SessionRecord], logged: u64) {
    let recorded: u64 = sessions.iter().map(|s| s.games_played).sum();
    if let Some(killed) = sessions.last_mut()
        && killed.finished_unix.is_none()
        && logged > recorded
    {
        killed.games_played += logged - recorded;
    }
}

/// Plays `todo` on the game the spec names (the visitor picks the game's type).
struct Play<'a, F: FnMut(GameLine) -> Result<(), SessionError>> {
    spec: &'a TournamentSpec,
    todo: &'a [u64],
    threads: usize,
    stop_pair: &'a AtomicU64,
    cancel: &'a CancelToken,
    /// Where outside programs' stderr goes (`engines/` in the run folder).
    engine_logs: &'a Path,
    consume: F,
}

impl<F: FnMut(GameLine) -> Result<(), SessionError>> FeaturesVisitor for Play<'_, F> {
    type Output = Result<(), SessionError>;
    fn visit<G: Features>(self, start: G) -> Self::Output {
        let openings = openings::parse_all(&start, &self.spec.resolved.opening_moves)
            .map_err(|e| SessionError::Failed(format!("the run's openings do not replay: {e}")))?;
        run_games(
            self.spec,
            start,
            &openings,
            self.todo,
            self.threads,
            self.stop_pair,
            self.cancel,
            self.spec.has_outside().then_some(self.engine_logs),
            self.consume,
        )
    }
}

/// Starts every outside program of `spec` once and speaks its handshake
/// ([`check_outside`]), its stderr to `logs` when given; the names the programs gave
/// themselves, by engine name.
fn check_programs(spec: &TournamentSpec, logs: Option<&Path>) -> Result<Vec<Checked>, String> {
    struct Check<'a>(&'a TournamentSpec, Option<&'a Path>);
    impl GameVisitor for Check<'_> {
        type Output = Result<Vec<Checked>, String>;
        fn visit<G: Game>(self, _: G) -> Self::Output {
            check_outside::<G>(self.0, self.1)
        }
    }
    spec.resolved.game_kind().dispatch(Check(spec, logs))
}

fn describe_shard(shard: Option<Shard>) -> String {
    match shard {
        Some(s) if s.unit == ShardUnit::Game => format!(
            "shard {}/{} dealt out by game id (an earlier joute; shards now hold whole opening pairs: its logs still merge with `joute report`, but it cannot be resumed)",
            s.index, s.count
        ),
        Some(s) => format!("shard {}/{}", s.index, s.count),
        None => "the whole run (no shard)".into(),
    }
}

/// Whether `new` may carry on the run of `old` keeping its games, and if so the engines it
/// adds (none: more openings or rounds only). Every earlier engine must still be there,
/// unchanged, in the same order and role (new engines may go anywhere among them); the game,
/// seed, format and kind of openings must be the same. Whether every game keeps its opening is
/// checked game by game when the log is read.
pub fn why_not_extended(old: &ResolvedSpec, new: &ResolvedSpec) -> Result<Vec<String>, String> {
    if old.game != new.game {
        return Err(format!("the game changed ({} → {})", old.game, new.game));
    }
    if old.seed != new.seed {
        return Err(format!("the seed changed ({} → {})", old.seed, new.seed));
    }
    if old.format != new.format {
        return Err(format!(
            "the format changed ({} → {})",
            old.format, new.format
        ));
    }
    let comparable = |e: &ResolvedEngine| ResolvedEngine {
        weights_origin: String::new(),
        ..e.clone()
    };
    let mut last: Option<usize> = None;
    for a in &old.engines {
        let Some(at) = new.engine_index(&a.name) else {
            return Err(format!(
                "engine '{}' is not in the new spec (a run may gain engines, but not lose or rename one)",
                a.name
            ));
        };
        let b = &new.engines[at];
        if let Some(why) = comparable(a).exact_changed(&comparable(b)) {
            return Err(why);
        }
        if comparable(a) != comparable(b) {
            return Err(format!(
                "engine '{}' changed (its algorithm, budget, options or weights)",
                a.name
            ));
        }
        if let Some(before) = last.filter(|&l| at < l) {
            return Err(format!(
                "the engines' order changed ('{}' now before '{}'; new engines may go anywhere, earlier ones keep their order)",
                a.name, new.engines[before].name
            ));
        }
        last = Some(at);
    }
    let role_kept = |c: &String| new.challengers.contains(c) == old.challengers.contains(c);
    if !old.engines.iter().map(|e| &e.name).all(role_kept) {
        return Err(
            "the challengers changed (a gauntlet may gain challengers and opponents, but an earlier engine keeps its role)"
                .into(),
        );
    }
    use crate::arena::spec::OpeningSource::{File, Random};
    match (&old.openings, &new.openings) {
        (
            Random {
                plies: p0,
                balance: b0,
                ..
            },
            Random {
                plies: p1,
                balance: b1,
                ..
            },
        ) if p0 == p1 && b0 == b1 => {}
        (File { .. }, File { .. }) => {}
        _ => return Err("the openings changed (their kind, plies or filter)".into()),
    }
    let added: Vec<String> = (new.engines.iter())
        .filter(|e| old.engine_index(&e.name).is_none())
        .map(|e| e.name.clone())
        .collect();
    let (before, after) = (old.opening_moves.len(), new.opening_moves.len());
    if !added.is_empty() && after < before {
        return Err(format!(
            "it adds {} but has fewer openings than the run ({before} → {after}); keep `count` and `rounds`",
            quoted_list(&added)
        ));
    }
    Ok(added)
}

/// `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`.
pub fn quoted_list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

/// Records this process's peak memory in the last session of `out/run.json`: called once
/// everything (the report included) is done, so that the figure covers it all.
pub fn record_peak_memory(out: &Path) -> Result<(), SessionError> {
    let path = out.join("run.json");
    let mut info = RunInfo::load(&path).map_err(SessionError::Failed)?;
    if let Some(session) = info.sessions.last_mut()
        && let Some(peak) = peak_rss_kib()
    {
        session.peak_rss_kib = Some(session.peak_rss_kib.map_or(peak, |p| p.max(peak)));
        info.save(&path)
            .map_err(|e| SessionError::Failed(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

//! A tuning run in its folder, as a library: [`TuneSession::open`] starts or resumes it (every
//! output checked writable before the first game) and [`TuneSession::run`] plays the whole
//! procedure, telling a [`TuneObserver`]: the optimiser ([`TuneSession::tune`]), the held-out
//! openings, the confirmation and A/A matches as tournament sessions of their own (`confirm/`,
//! `aa/`, [`TuneSession::play_match`]; the A/A match judged by [`super::aa`]), and the end
//! ([`TuneSession::finish`]: the tuned weights, `summary.json` and the report).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use super::aa::{AaCheck, AaTally, judge, pentanomial_elo};
use super::checkpoint::{
    Checkpoint, MatchKind, Plan, Stage, TuneError, check_opening_supply, held_out_openings,
    read_history,
};
use super::derive_seed;
use super::record::{HistoryLine, MatchResult, SideCost, TuneRecord};
use super::run::tune;
use super::spec::{Method, ResolvedTuneSpec};
use crate::arena::CancelToken;
use crate::arena::log::{GameLine, create_out_folder, scan_log};
use crate::arena::openings::Balance;
use crate::arena::spec::{Anchor, OpeningSource, ResolvedEngine, ResolvedSpec, TournamentSpec};
use crate::eval::{Features, FeaturesVisitor, Weights};
use crate::outputs::write_atomically;
use crate::tournament::{Ending, Observer, Options, Session};

pub mod shard;

/// The tuned weights in the run's folder.
pub const TUNED_WEIGHTS: &str = "tuned-weights.toml";

/// Seed streams of the two matches (tuning uses others: see `tune::checkpoint`).
const STREAM_CONFIRM: u64 = 103;
const STREAM_AA: u64 = 104;

/// How a tuning run is opened.
#[derive(Clone, Debug, Default)]
pub struct TuneOptions {
    /// Continue the run the folder holds (refused without it when the folder holds one).
    pub resume: bool,
    /// A cap on the games below the spec's budget.
    pub budget: Option<u64>,
    /// A copy of the tuned weights outside the folder (overrides the spec's `weights_out`).
    pub write_weights: Option<PathBuf>,
    /// The copy may replace an existing file, and the run may go in an existing folder of
    /// other files.
    pub force: bool,
    /// Start afresh: the files of the run the folder holds (those its checkpoint lists, and
    /// the run's own) are removed first; other files stay.
    pub fresh: bool,
    /// The files the run reads (its spec): the weights copy is never one of them.
    pub inputs: Vec<PathBuf>,
}

/// [`check_opening_supply`] for the run of `ck`, before its first game.
fn check_supply(ck: &Checkpoint) -> Result<(), String> {
    struct Supply<'a>(&'a Checkpoint);
    impl FeaturesVisitor for Supply<'_> {
        type Output = Result<(), String>;
        fn visit<G: Features>(self, start: G) -> Self::Output {
            let ck = self.0;
            check_opening_supply(start, &ck.spec, &ck.plan, ck.games_per_pair())
        }
    }
    crate::eval::dispatch(&ck.spec.game_kind(), Supply(ck))
}

/// The held-out openings of the two matches (in notation), none of them a position tuning used.
#[derive(Clone, Debug)]
pub struct HeldOut {
    /// The confirmation's.
    pub confirm: Vec<String>,
    /// The A/A match's.
    pub aa: Vec<String>,
}

/// A match played: the first engine's result and the match's rating table.
#[derive(Clone, Debug)]
pub struct PlayedMatch {
    /// The first engine's result (the tuned weights' in the confirmation).
    pub result: MatchResult,
    /// The rating rows, best first.
    pub rows: Vec<crate::report::table::RatingRow>,
    /// What the rating rows mean (scale, anchor, first-move advantage).
    pub scale: crate::report::table::RatingScale,
    /// The A/A match's verdict (`None` for the confirmation).
    pub check: Option<AaCheck>,
}

/// What [`TuneSession::finish`] wrote.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The run's record (the report's data).
    pub record: TuneRecord,
    /// `summary.json`'s object.
    pub summary: serde_json::Value,
    /// The tuned weights in the run's folder.
    pub weights: PathBuf,
    /// The copy the user asked for.
    pub copy: Option<PathBuf>,
    /// The report's page.
    pub report: PathBuf,
    /// The A/A match's verdict, when there was one.
    pub aa_check: Option<AaCheck>,
}

/// What a tuning run tells while [`TuneSession::run`] plays it, as [`Observer`] does for a
/// tournament. Every method but [`TuneObserver::games`] does nothing unless implemented; one
/// that returns an error stops the run there ([`TuneError::Observer`]).
pub trait TuneObserver {
    /// A candidate (a regression round) was recorded: its `history.jsonl` line and the run's
    /// state after it.
    fn step(&mut self, _line: &HistoryLine, _ck: &Checkpoint) {}
    /// A shard of a sharded regression run waits for `what` (the other shards' games of a
    /// round, or another shard's fit): told again whenever what it waits for changes.
    fn waiting(&mut self, _what: &str) {}
    /// Tuning is over (at once when a resumed run had finished it): the run's state and every
    /// candidate's line. The matches come next.
    fn tuned(&mut self, _ck: &Checkpoint, _history: &[HistoryLine]) -> std::io::Result<()> {
        Ok(())
    }
    /// A match is about to be played: `games` is its planned games (the A/A match may have
    /// none, and is then skipped).
    fn match_starting(&mut self, _kind: MatchKind, _games: u64) -> std::io::Result<()> {
        Ok(())
    }
    /// A match is not played, for `reason` (the confirmation, when the tuned program as sent
    /// is the start's).
    fn match_skipped(&mut self, _kind: MatchKind, _reason: &str) -> std::io::Result<()> {
        Ok(())
    }
    /// The observer of the match's games.
    fn games(&mut self) -> &mut dyn Observer;
    /// A match was played (or read back from its folder when a resumed run had played it).
    fn match_played(&mut self, _kind: MatchKind, _played: &PlayedMatch) -> std::io::Result<()> {
        Ok(())
    }
}

/// An observer that ignores everything.
impl TuneObserver for () {
    fn games(&mut self) -> &mut dyn Observer {
        self
    }
}

/// A tuning run opened in its folder.
pub struct TuneSession {
    /// The run's state: spec, plan, optimiser, games and time so far.
    pub ck: Checkpoint,
    out: PathBuf,
    copy: Option<PathBuf>,
    removed: Option<crate::outputs::Removed>,
}

impl TuneSession {
    /// Opens the run of `spec` in `out`: creates the folder or, with `options.resume`, continues
    /// the run there (its checkpoint must be this spec's). Every output — the folder and the
    /// weights copy — is checked before the first game: a run must not play for hours and then
    /// find it cannot write its result.
    pub fn open(
        spec: ResolvedTuneSpec,
        out: &Path,
        options: &TuneOptions,
    ) -> Result<TuneSession, TuneError> {
        let input = TuneError::Input;
        crate::outputs::check_output_folder(out, options.force).map_err(input)?;
        create_run_folder(out)?;
        let checkpoint_path = out.join("checkpoint.json");
        let history_path = out.join("history.jsonl");
        let started =
            checkpoint_path.exists() || history_path.metadata().is_ok_and(|m| m.len() > 0);
        if let Some(shards) = super::checkpoint::sharded_run(out) {
            return Err(input(format!(
                "{} holds a regression run played as {shards} shard{}: continue it with --shard I/{shards} (each of its shards), or choose another --out",
                out.display(),
                if shards == 1 { "" } else { "s" }
            )));
        }
        if started && !options.resume && !options.fresh {
            return Err(input(format!(
                "{} already holds a tuning run; add --resume to continue it, --fresh to start afresh there (it removes only joute's files), or choose another --out",
                out.display()
            )));
        }
        if started {
            // Files a killed session was writing when it died (only joute's own).
            crate::outputs::remove_stale_temporaries(out);
        }
        let copy = weights_copy(&spec, options)?;
        // A run started here checks its openings first: one that cannot finish leaves the
        // folder as it was (and none behind when it made one, still empty).
        let new_run = if !started || options.fresh {
            let plan = Plan::new(&spec, options.budget).map_err(input)?;
            let ck = Checkpoint::new(spec.clone(), plan);
            if let Err(e) = check_supply(&ck) {
                let _ = std::fs::remove_dir(out);
                return Err(input(e));
            }
            Some(ck)
        } else {
            None
        };
        let mut removed = None;
        if started && options.fresh {
            // A run in progress holds the history's lock: it is not removed under it.
            let lock = crate::arena::log::LogWriter::lock(&history_path).map_err(|e| {
                input(format!(
                    "--fresh: {}: {e}; another joute run may be using the folder",
                    history_path.display()
                ))
            })?;
            let listed =
                Checkpoint::load(&checkpoint_path).map_or_else(|_| Vec::new(), |ck| ck.files);
            let done = crate::outputs::remove_run_files(out, &listed, &[]).map_err(|e| {
                TuneError::Failed(format!("--fresh: cannot empty {}: {e}", out.display()))
            })?;
            drop(lock);
            removed = Some(done);
        }
        let ck = if let Some(ck) = new_run {
            ck
        } else if checkpoint_path.exists() {
            let mut ck =
                Checkpoint::load(&checkpoint_path).map_err(|e| input(format!("--resume: {e}")))?;
            if ck.spec_hash != spec.hash() {
                let why = std::iter::once((&ck.spec.engine, &spec.engine))
                    .chain(ck.spec.pool.iter().zip(&spec.pool))
                    .find_map(|(old, new)| old.exact_changed(new))
                    .unwrap_or_else(|| "the spec or a weights file changed since".into());
                return Err(input(format!(
                    "--resume: {} was written by another spec ('{}', hash {}); {why}. {}",
                    out.display(),
                    ck.spec.name,
                    ck.spec_hash,
                    crate::tournament::session::AFRESH
                )));
            }
            // Where an outside program was found is not recorded: the spec just read found it.
            ck.spec.engine.outside.clone_from(&spec.engine.outside);
            if let Some(b) = options.budget {
                // A new cap on resume: tuning stops at it (at once when it is already spent),
                // and the matches take their share of it.
                ck.plan = Plan::new(&spec, Some(b)).map_err(input)?;
                if ck.games >= ck.plan.tuning {
                    ck.tuning_done = true;
                }
            }
            ck
        } else {
            let plan = Plan::new(&spec, options.budget).map_err(input)?;
            Checkpoint::new(spec, plan)
        };
        Ok(TuneSession {
            ck,
            out: out.to_path_buf(),
            copy,
            removed,
        })
    }

    /// What `--fresh` removed when the session opened (`None`: nothing was there, or no
    /// `--fresh`).
    pub fn removed(&self) -> Option<&crate::outputs::Removed> {
        self.removed.as_ref()
    }

    /// The session of a run already opened in `out` at `ck` (the shard of a sharded
    /// regression run that plays its matches), `copy`: the checked [`weights_copy`].
    pub(super) fn of_checkpoint(ck: Checkpoint, out: &Path, copy: Option<PathBuf>) -> Self {
        TuneSession {
            ck,
            out: out.to_path_buf(),
            copy,
            removed: None,
        }
    }

    /// The run's folder.
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// Plays the whole procedure on `threads` threads, telling `observer`: tunes to the end of
    /// the plan ([`TuneSession::tune`]), plays the confirmation and the A/A match on held-out
    /// openings ([`TuneSession::play_match`]), and writes the outputs ([`TuneSession::finish`];
    /// `spec_path`: the spec as the user named it). `cancel` stops it where it is, said by
    /// [`TuneError::Interrupted`]: a resumed run goes on from there.
    pub fn run(
        &mut self,
        spec_path: &Path,
        threads: usize,
        observer: &mut dyn TuneObserver,
        cancel: &CancelToken,
    ) -> Result<Finished, TuneError> {
        let held = self.tune(threads, cancel, |line, ck| observer.step(line, ck))?;
        let history = self.history()?;
        observer
            .tuned(&self.ck, &history)
            .map_err(TuneError::Observer)?;
        let clock = Instant::now();
        let mut matches = [None, None];
        let plan = [
            (MatchKind::Confirm, held.confirm, self.ck.plan.confirm),
            (MatchKind::Aa, held.aa, self.ck.plan.aa),
        ];
        // The tuned program, as sent, may be the start's: then there is nothing to confirm.
        let unchanged = super::outside::unchanged(&self.ck.spec, self.ck.state.theta());
        let mut skipped = None;
        for ((kind, openings, games), played) in plan.into_iter().zip(&mut matches) {
            if let (MatchKind::Confirm, Some(reason)) = (kind, &unchanged) {
                observer
                    .match_skipped(kind, reason)
                    .map_err(TuneError::Observer)?;
                skipped = Some(MatchResult::skipped(reason.clone()));
                continue;
            }
            observer
                .match_starting(kind, games)
                .map_err(TuneError::Observer)?;
            *played = self.play_match(kind, openings, threads, observer.games(), cancel)?;
            if let Some(played) = played {
                observer
                    .match_played(kind, played)
                    .map_err(TuneError::Observer)?;
            }
        }
        let match_seconds = clock.elapsed().as_secs_f64();
        let [confirm, aa] = matches;
        let confirmation = match (confirm, skipped) {
            (Some(played), _) => played.result,
            (None, Some(skipped)) => skipped,
            (None, None) => {
                return Err(TuneError::Failed(
                    "the confirmation match played no games".into(),
                ));
            }
        };
        let aa = aa.and_then(|played| played.check.map(|check| (played.result, check)));
        self.finish(spec_path, confirmation, aa, match_seconds)
    }

    /// Tunes on `threads` threads to the end of the plan (or to where a resumed run left off),
    /// calling `on_step` after every candidate, then draws the held-out openings of the two
    /// matches. `cancel` stops it between two candidates, the checkpoint saved
    /// ([`TuneError::Interrupted`]).
    pub fn tune(
        &mut self,
        threads: usize,
        cancel: &CancelToken,
        on_step: impl FnMut(&HistoryLine, &Checkpoint),
    ) -> Result<HeldOut, TuneError> {
        struct Tune<'a, F> {
            ck: &'a mut Checkpoint,
            out: &'a Path,
            threads: usize,
            cancel: &'a CancelToken,
            on_step: F,
        }
        impl<F: FnMut(&HistoryLine, &Checkpoint)> FeaturesVisitor for Tune<'_, F> {
            type Output = Result<HeldOut, TuneError>;
            fn visit<G: Features>(self, start: G) -> Self::Output {
                let stream = tune(
                    start,
                    self.ck,
                    self.out,
                    self.threads,
                    self.cancel,
                    self.on_step,
                )?;
                let (spec, plan) = (&self.ck.spec, &self.ck.plan);
                let held = |skip, count| {
                    held_out_openings(start, spec, &stream, skip, count)
                        .map_err(|e| TuneError::Games(format!("held-out openings: {e}")))
                };
                Ok(HeldOut {
                    confirm: held(0, plan.confirm / 2)?,
                    aa: held(plan.confirm / 2, plan.aa / 2)?,
                })
            }
        }
        let kind = self.ck.spec.game_kind();
        crate::eval::dispatch(
            &kind,
            Tune {
                ck: &mut self.ck,
                out: &self.out,
                threads,
                cancel,
                on_step,
            },
        )
    }

    /// The history of the candidates tried so far.
    pub fn history(&self) -> Result<Vec<HistoryLine>, TuneError> {
        read_history(&self.out.join("history.jsonl"), self.ck.candidates)
    }

    /// Plays one of the two matches on `openings` as a tournament run in its folder (resuming
    /// what is there), telling `observer` of every game, and returns the first engine's result
    /// (the tuned weights' in the confirmation) and its table, and the A/A match's verdict.
    /// `None` when the plan gives it no games. The A/A match's two copies break ties at random
    /// (`tie_break`, seeded per game and side), so that their games differ.
    pub fn play_match(
        &self,
        kind: MatchKind,
        openings: Vec<String>,
        threads: usize,
        observer: &mut dyn Observer,
        cancel: &CancelToken,
    ) -> Result<Option<PlayedMatch>, TuneError> {
        self.play_match_with(kind, openings, threads, observer, cancel, true)
    }

    /// [`TuneSession::play_match`], the A/A copies breaking ties at random only when
    /// `aa_tie_break` (tests turn it off to see the deterministic engines' mirrored games).
    pub(super) fn play_match_with(
        &self,
        kind: MatchKind,
        openings: Vec<String>,
        threads: usize,
        observer: &mut dyn Observer,
        cancel: &CancelToken,
        aa_tie_break: bool,
    ) -> Result<Option<PlayedMatch>, TuneError> {
        if kind == MatchKind::Aa && self.ck.plan.aa == 0 {
            return Ok(None);
        }
        let spec = &self.ck.spec;
        let state = &self.ck.state;
        let mut tournament = match_tournament(
            spec,
            kind,
            state.theta(),
            state.endgame(),
            openings,
            aa_tie_break,
        );
        if spec.patterns().is_some() {
            let [tuned, start] =
                super::regression::pattern_round::match_patterns(spec, state, &self.out)?;
            let patterns = match kind {
                MatchKind::Confirm => [tuned, start],
                MatchKind::Aa => [start.clone(), start],
            };
            tournament = with_patterns(tournament, patterns);
        }
        let dir = self.out.join(kind.folder());
        let options = Options {
            threads,
            shard: None,
            extend: true,
            force: false,
            fresh: false,
            anchor: None,
            oversubscribe: false,
        };
        let session = Session::open(&tournament, &dir, options)?;
        let reported = session.play_and_report(observer, cancel, true)?;
        let outcome = &reported.outcome;
        if outcome.ending == Ending::Interrupted {
            return Err(TuneError::Interrupted(Stage::Match(kind)));
        }
        let summary = &outcome.summary;
        let p = summary
            .pairings
            .first()
            .ok_or_else(|| TuneError::Games("the match has no pairing".into()))?;
        // Pairing A is the first engine (the lower spec index).
        let (elo, error) = pentanomial_elo(p.pentanomial.0);
        let result = MatchResult {
            games: p.wdl.games(),
            wins: p.wdl.wins,
            draws: p.wdl.draws,
            losses: p.wdl.losses,
            pentanomial: p.pentanomial.0,
            elo,
            error,
            los: p.estimate().los,
            report: format!("{}/index.html", kind.folder()),
            cost: [p.a, p.b]
                .into_iter()
                .map(|i| SideCost {
                    engine: summary.spec.engines[i].name.clone(),
                    figures: summary.costs[i].figures(),
                })
                .collect(),
            skipped: None,
        };
        let check = match kind {
            MatchKind::Confirm => None,
            MatchKind::Aa => {
                // Counted again from the log, crediting each game to the engine it names.
                let a = &tournament.resolved.engines[0].name;
                let mut tally = AaTally::default();
                scan_log(&dir.join("games.jsonl"), |game: GameLine| {
                    tally.add(game, a)
                })
                .map_err(|e| TuneError::Failed(format!("the A/A match: {e}")))?;
                Some(judge(&tally, Some(p.pentanomial.0)))
            }
        };
        Ok(Some(PlayedMatch {
            result,
            rows: reported.rows,
            scale: reported.scale,
            check,
        }))
    }

    /// Writes the tuned weights (in the folder, and the copy asked for), `summary.json` and the
    /// report. `spec_path`: the spec as the user named it (said in the weights file's header);
    /// `aa`: the A/A match's result and verdict; `match_seconds`: the time the matches took.
    pub fn finish(
        &mut self,
        spec_path: &Path,
        confirmation: MatchResult,
        aa: Option<(MatchResult, AaCheck)>,
        match_seconds: f64,
    ) -> Result<Finished, TuneError> {
        let spec = &self.ck.spec;
        let ck = &self.ck;
        let history = self.history()?;
        let theta = ck.state.theta().to_vec();
        let tuned = spec.weights_with(&theta);
        let games = ck.games + confirmation.games + aa.as_ref().map_or(0, |(m, _)| m.games);
        let header = weights_header(spec, spec_path, ck, &history, &confirmation, games);
        let in_folder = tuned_file_in(spec, &self.out);
        let endgame = ck.state.endgame();
        for path in std::iter::once(&in_folder).chain(&self.copy) {
            if spec.patterns().is_some() {
                // Pattern weights: a binary file, which has no room for the header
                // (summary.json and the report say how they were made).
                super::regression::pattern_round::write_tuned(spec, &ck.state, &self.out, path)?;
            } else {
                write_tuned(spec, &theta, (&tuned, endgame), &header, path)?;
            }
        }
        let weights_file = self
            .copy
            .as_ref()
            .unwrap_or(&in_folder)
            .display()
            .to_string();
        let concluded = Concluded {
            confirmation,
            aa,
            seconds: ck.seconds + match_seconds,
        };
        let record = tune_record(ck, history, weights_file, Some(concluded));
        let mut summary = summary_json(&record, &self.out);
        if let Some(o) = &record.outside {
            summary["options_file"] = json!(record.weights_file);
            summary["options"] = json!(o.options);
            summary["not_reproducible"] = json!(o.not_reproducible);
        }
        let path = self.out.join("summary.json");
        let text = serde_json::to_string_pretty(&summary).expect("a JSON value serialises");
        write_atomically(&path, text.as_bytes())
            .map_err(|e| TuneError::Failed(format!("cannot write {}: {e}", path.display())))?;
        let written = super::report::write_tune_report(&record, &self.out).map_err(|e| {
            TuneError::Failed(format!(
                "cannot write the tuning report in {}: {e}",
                self.out.display()
            ))
        })?;
        let report = written
            .last()
            .cloned()
            .unwrap_or_else(|| self.out.join("index.html"));
        // The checkpoint saved once more: its list of the folder's files then holds the
        // outputs and the report (what `--fresh` removes).
        let checkpoint = self.out.join("checkpoint.json");
        self.ck.save(&checkpoint).map_err(|e| {
            TuneError::Failed(format!("cannot write {}: {e}", checkpoint.display()))
        })?;
        let aa_check = record.aa_check.clone();
        Ok(Finished {
            record,
            summary,
            weights: in_folder,
            copy: self.copy.clone(),
            report,
            aa_check,
        })
    }
}

/// What the end of a run adds to its record: the matches' results and the time in all.
#[derive(Clone, Debug)]
pub struct Concluded {
    /// The confirmation match (tuned against start).
    pub confirmation: MatchResult,
    /// The A/A match and its verdict, when the run played one.
    pub aa: Option<(MatchResult, AaCheck)>,
    /// Seconds spent in all, tuning and matches.
    pub seconds: f64,
}

/// The record of the run whose state is `ck` and whose candidates are `history`, its tuned
/// values going to `weights_file`: the record [`TuneSession::finish`] reports once `concluded`
/// says how the matches went, or, without it, the record of a run under way (the current
/// weights, the history so far, no confirmation; the games and time of tuning alone).
pub fn tune_record(
    ck: &Checkpoint,
    history: Vec<HistoryLine>,
    weights_file: String,
    concluded: Option<Concluded>,
) -> TuneRecord {
    let spec = &ck.spec;
    let theta = ck.state.theta().to_vec();
    let (confirmation, aa, seconds) = match concluded {
        Some(c) => (Some(c.confirmation), c.aa, c.seconds),
        None => (None, None, ck.seconds),
    };
    let (aa, aa_check) = aa.unzip();
    let games = ck.games
        + confirmation.as_ref().map_or(0, |m| m.games)
        + aa.as_ref().map_or(0, |m| m.games);
    TuneRecord {
        name: spec.name.clone(),
        game: spec.game.clone(),
        method: spec.method.name().to_string(),
        engine: spec.engine.describe(),
        opponent: if spec.pool.is_empty() {
            "incumbent".into()
        } else {
            spec.pool
                .iter()
                .map(|e| format!("{} ({})", e.name, e.describe()))
                .collect::<Vec<_>>()
                .join(", ")
        },
        seed: spec.seed,
        params: spec.params.clone(),
        outside: super::outside::record(spec, &theta),
        tuned: theta,
        tuned_endgame: ck.state.endgame().map(<[f64]>::to_vec),
        sprt: match &spec.hill {
            Some(h) => match h.acceptance {
                super::optimise::hill::Acceptance::Sprt(s) => Some(s),
                super::optimise::hill::Acceptance::Fixed => None,
            },
            None => None,
        },
        history,
        confirmation,
        aa,
        aa_check,
        weights_file,
        games,
        seconds,
    }
}

/// The record of the tuning run in `dir` as its files hold it now, for a page that follows
/// the run: `checkpoint.json` (or `start`, the state of a run that has not saved one yet) and
/// the candidates of `history.jsonl` it counts, and once the run has finished (its
/// `summary.json` written for this checkpoint) the matches' results, as [`tune_record`] builds
/// it: the same record [`TuneSession::finish`] reported. With the state it was read from.
pub fn record_in_folder(
    dir: &Path,
    start: Option<&Checkpoint>,
) -> Result<(TuneRecord, Checkpoint), TuneError> {
    let path = dir.join("checkpoint.json");
    let ck = if path.exists() {
        Checkpoint::load(&path).map_err(|message| TuneError::Io {
            path: path.clone(),
            message,
        })?
    } else {
        start.cloned().ok_or_else(|| TuneError::Io {
            path: path.clone(),
            message: "not written yet: the run has not finished its first candidate".into(),
        })?
    };
    // Read after the checkpoint: the history holds at least the candidates it counts.
    let history = read_history(&dir.join("history.jsonl"), ck.candidates)?;
    let summary = dir.join("summary.json");
    let concluded = if ck.tuning_done && summary.exists() {
        concluded_in(&summary, &ck)?
    } else {
        None
    };
    let weights_file = match &concluded {
        Some((_, file)) => file.clone(),
        None => (ck.spec.weights_out.clone())
            .unwrap_or_else(|| tuned_file_in(&ck.spec, dir))
            .display()
            .to_string(),
    };
    let record = tune_record(&ck, history, weights_file, concluded.map(|(c, _)| c));
    Ok((record, ck))
}

/// What a finished run's `summary.json` says of its matches, and where its tuned values went;
/// `None` when it was written for another state than `ck` (a run resumed for more candidates).
fn concluded_in(path: &Path, ck: &Checkpoint) -> Result<Option<(Concluded, String)>, TuneError> {
    let bad = |message: String| TuneError::Io {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let summary: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if summary["candidates"].as_u64() != Some(ck.candidates) {
        return Ok(None);
    }
    /// The value at `pointer` (`/aa/check`), read as a `T` (null: absent).
    fn field<T: serde::de::DeserializeOwned>(
        summary: &serde_json::Value,
        pointer: &str,
    ) -> Result<T, String> {
        let value = summary.pointer(pointer).cloned().unwrap_or_default();
        serde_json::from_value(value).map_err(|e| format!("'{}': {e}", &pointer[1..]))
    }
    let concluded = Concluded {
        confirmation: field(&summary, "/confirmation").map_err(bad)?,
        aa: Option::zip(
            field(&summary, "/aa").map_err(bad)?,
            field(&summary, "/aa/check").map_err(bad)?,
        ),
        seconds: field(&summary, "/seconds").map_err(bad)?,
    };
    Ok(Some((
        concluded,
        field(&summary, "/weights_file").map_err(bad)?,
    )))
}

/// The tuned weights (or an outside program's options) in the run's folder `dir`.
fn tuned_file_in(spec: &ResolvedTuneSpec, dir: &Path) -> PathBuf {
    dir.join(if spec.is_outside() {
        super::outside::TUNED_OPTIONS
    } else if spec.patterns().is_some() {
        super::regression::pattern_round::TUNED_PATTERNS
    } else {
        TUNED_WEIGHTS
    })
}

/// The tournament spec of `kind`'s match on `openings` (`theta`: the tuned parameters,
/// `endgame`: the endgame vector of tapered tuned weights); the A/A copies break ties at random
/// when `aa_tie_break`.
pub(super) fn match_tournament(
    spec: &ResolvedTuneSpec,
    kind: MatchKind,
    theta: &[f64],
    endgame: Option<&[f64]>,
    openings: Vec<String>,
    aa_tie_break: bool,
) -> TournamentSpec {
    if spec.is_outside() {
        // The program under the tuned options and under the start's (no tie_break: the
        // program makes its own choices).
        let start = super::optimise::params::values(&spec.params);
        let (seed, engines) = match kind {
            MatchKind::Confirm => (STREAM_CONFIRM, [("tuned", theta), ("start", &start[..])]),
            MatchKind::Aa => (
                STREAM_AA,
                [("start-a", &start[..]), ("start-b", &start[..])],
            ),
        };
        let seed = derive_seed(spec.seed, seed, 0);
        let engines = engines.map(|(name, theta)| spec.outside_engine_with(name, theta));
        return match_spec(spec, kind.folder(), seed, engines, openings);
    }
    let tuned = spec.weights_with(theta);
    let start = spec.start_weights();
    let (seed, engines, tie_break) = match kind {
        MatchKind::Confirm => (
            derive_seed(spec.seed, STREAM_CONFIRM, 0),
            [("tuned", &tuned, endgame), ("start", &start, None)],
            spec.engine.tie_break,
        ),
        MatchKind::Aa => (
            derive_seed(spec.seed, STREAM_AA, 0),
            [("start-a", &start, None), ("start-b", &start, None)],
            aa_tie_break || spec.engine.tie_break,
        ),
    };
    let engines = engines
        .map(|(name, weights, endgame)| built_in_engine(spec, name, weights, endgame, tie_break));
    match_spec(spec, kind.folder(), seed, engines, openings)
}

/// `tournament` with its two engines evaluating with `patterns` (in the engines' order; `None`
/// keeps an engine's linear weights).
fn with_patterns(
    tournament: TournamentSpec,
    patterns: [Option<crate::arena::spec::PatternsFile>; 2],
) -> TournamentSpec {
    let mut resolved = tournament.resolved;
    for (engine, p) in resolved.engines.iter_mut().zip(patterns) {
        engine.patterns = p;
    }
    TournamentSpec::from_resolved(resolved)
}

/// The tuned built-in engine called `name` with every feature's `weights` (and the endgame
/// vector of tapered weights), breaking ties at random when `tie_break`.
fn built_in_engine(
    spec: &ResolvedTuneSpec,
    name: &str,
    weights: &[f64],
    endgame: Option<&[f64]>,
    tie_break: bool,
) -> ResolvedEngine {
    let named = |weights: &[f64]| -> Vec<(String, f64)> {
        spec.engine
            .weights
            .iter()
            .map(|(n, _)| n.clone())
            .zip(weights.iter().copied())
            .collect()
    };
    ResolvedEngine {
        name: name.to_string(),
        weights_origin: if name == "tuned" {
            TUNED_WEIGHTS.to_string()
        } else {
            spec.engine.weights_origin.clone()
        },
        weights: named(weights),
        endgame: endgame.map(named),
        tie_break,
        ..spec.engine.clone()
    }
}

/// The tournament spec of a match, built-in or outside engines alike: `engines` on
/// `openings`, the second engine anchored at 0, on the tuning's clock (an outside engine's;
/// none for a built-in one).
fn match_spec(
    spec: &ResolvedTuneSpec,
    folder: &str,
    seed: u64,
    engines: [ResolvedEngine; 2],
    openings: Vec<String>,
) -> TournamentSpec {
    let count = openings.len() as u32;
    let anchor = engines[1].name.clone();
    TournamentSpec::from_resolved(ResolvedSpec {
        name: format!("{}-{folder}", spec.name),
        game: spec.game.clone(),
        seed,
        format: "round-robin".into(),
        challengers: Vec::new(),
        openings: OpeningSource::Random {
            plies: spec.confirm.plies,
            count,
            balance: Balance {
                depth: spec.balance.depth,
                max_imbalance: spec.balance.max_imbalance,
            },
            distinct: None,
        },
        opening_moves: openings,
        rounds: 1,
        engines: engines.into(),
        anchor: Some(Anchor {
            engine: anchor,
            elo: 0.0,
        }),
        ratings: Default::default(),
        sprt: None,
        clock: spec.clock,
        adjudication: None,
        records: Vec::new(),
        engine_log_mib: None,
        grown: Vec::new(),
        affinity: false,
    })
}

/// The comment on top of the tuned weights file.
fn weights_header(
    spec: &ResolvedTuneSpec,
    spec_path: &Path,
    ck: &Checkpoint,
    history: &[HistoryLine],
    confirmation: &MatchResult,
    games: u64,
) -> String {
    let accepted = history.iter().filter(|h| h.accepted).count();
    format!(
        "Tuned by joute {}: joute tune {} (spec '{}', hash {}, seed {}).\n\
         Method {}, engine {} (the start); tuned: {}.\n\
         {} candidate{}{}, {} tuning games, {} games in all.\n\
         {}",
        env!("CARGO_PKG_VERSION"),
        spec_path.display(),
        spec.name,
        ck.spec_hash,
        spec.seed,
        spec.method.name(),
        spec.engine.describe(),
        spec.params
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        history.len(),
        if history.len() == 1 { "" } else { "s" },
        if spec.method == Method::HillClimb {
            format!(" ({accepted} accepted)")
        } else {
            String::new()
        },
        ck.games,
        games,
        confirmation_sentence(confirmation)
    )
}

/// The confirmation in one sentence, as the tuned file's header says it: its Elo with the 95%
/// interval (or why it has none), or why it was not played.
pub fn confirmation_sentence(confirmation: &MatchResult) -> String {
    match &confirmation.skipped {
        Some(reason) => format!("Not confirmed, no match played: {reason}."),
        None => format!(
            "Confirmed against the start on {} held-out games: {} Elo{}, LOS {:.2}%.",
            confirmation.games,
            confirmation.elo_text(),
            if confirmation.has_interval() {
                " (95%)"
            } else {
                ""
            },
            100.0 * confirmation.los
        ),
    }
}

/// The copy of the tuned weights the user asked for (`--write-weights`, else the spec's
/// `weights_out`), checked before the first game: never over an input (the spec, the start
/// weights, a pool engine's weights), writable, and a `.jpw` file for pattern weights.
pub(super) fn weights_copy(
    spec: &ResolvedTuneSpec,
    options: &TuneOptions,
) -> Result<Option<PathBuf>, TuneError> {
    let input = TuneError::Input;
    let copy = options.write_weights.clone().or(spec.weights_out.clone());
    if let Some(path) = &copy {
        // Never over an input: the spec, the start weights, a pool engine's weights.
        let weights = std::iter::once(&spec.engine)
            .chain(&spec.pool)
            .map(|e| PathBuf::from(&e.weights_origin))
            .chain(
                spec.patterns()
                    .and_then(|p| p.start.as_ref())
                    .map(|s| PathBuf::from(&s.path)),
            );
        let inputs: Vec<PathBuf> = options.inputs.iter().cloned().chain(weights).collect();
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        crate::outputs::check_output_parent(path).map_err(input)?;
        crate::outputs::check_output_file(path, &inputs, true, true).map_err(input)?;
        check_weights_copy(path, options.force)?;
        if spec.patterns().is_some() && path.extension().is_none_or(|e| e != "jpw") {
            return Err(input(format!(
                "{}: the run fits pattern weights, a binary file: name a .jpw file",
                path.display()
            )));
        }
    }
    Ok(copy)
}

/// Creates a run's folder `dir` (when missing) and checks that files can be created in it.
pub(super) fn create_run_folder(dir: &Path) -> Result<(), TuneError> {
    create_out_folder(dir).map_err(TuneError::Input)?;
    check_writable(dir).map_err(|e| {
        TuneError::Input(format!(
            "{}: cannot write in the output folder: {e}",
            dir.display()
        ))
    })
}

/// Whether files can be created in `dir` (a temporary file is made and removed).
fn check_writable(dir: &Path) -> std::io::Result<()> {
    tempfile::NamedTempFile::new_in(dir).map(drop)
}

/// The copy of the tuned weights the user asked for: refused before any game when it would
/// replace a file without `force`, or cannot be written.
fn check_weights_copy(path: &Path, force: bool) -> Result<(), TuneError> {
    if path.is_dir() {
        return Err(TuneError::Input(format!(
            "{}: a folder, not a weights file; name a .toml file",
            path.display()
        )));
    }
    if path.exists() && !force {
        return Err(TuneError::Input(format!(
            "{} exists: the tuned weights would replace it; add --force to replace it, or name another file (--write-weights PATH); they are always in the run's folder as {TUNED_WEIGHTS}",
            path.display()
        )));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    check_writable(parent).map_err(|e| {
        TuneError::Input(format!(
            "{}: the tuned weights cannot be written there: {e}",
            path.display()
        ))
    })
}

/// Writes the run's result to `path`: the tuned weights (`tuned`, every feature's), or an
/// outside engine's tuned options (`theta`).
fn write_tuned(
    spec: &ResolvedTuneSpec,
    theta: &[f64],
    (tuned, endgame): (&[f64], Option<&[f64]>),
    header: &str,
    path: &Path,
) -> Result<(), TuneError> {
    if !spec.is_outside() {
        return write_weights(spec, (tuned, endgame), header, path);
    }
    let text = super::outside::options_file(spec, theta, header);
    write_atomically(path, text.as_bytes()).map_err(|e| {
        TuneError::Failed(format!(
            "cannot write the tuned options to {}: {e}",
            path.display()
        ))
    })
}

/// Writes a tuned weights file (temporary file, then rename).
fn write_weights(
    spec: &ResolvedTuneSpec,
    (values, endgame): (&[f64], Option<&[f64]>),
    header: &str,
    path: &Path,
) -> Result<(), TuneError> {
    struct Text<'a> {
        values: &'a [f64],
        endgame: Option<&'a [f64]>,
        header: &'a str,
    }
    impl FeaturesVisitor for Text<'_> {
        type Output = String;
        fn visit<G: Features>(self, start: G) -> String {
            Weights {
                game: start.name(),
                values: self.values.to_vec(),
                endgame: self.endgame.map(<[f64]>::to_vec),
                origin: "tuned".into(),
            }
            .to_toml(&start, self.header)
        }
    }
    let text = crate::eval::dispatch(
        &spec.game_kind(),
        Text {
            values,
            endgame,
            header,
        },
    );
    write_atomically(path, text.as_bytes()).map_err(|e| {
        TuneError::Failed(format!(
            "cannot write the tuned weights to {}: {e}",
            path.display()
        ))
    })
}

/// The run's outcome as JSON (`summary.json`, and `--json`); the A/A match's verdict is in
/// `aa.check`.
fn summary_json(record: &TuneRecord, out: &Path) -> serde_json::Value {
    let mut aa = json!(record.aa);
    if let (Some(object), Some(check)) = (aa.as_object_mut(), &record.aa_check) {
        object.insert("check".into(), json!(check));
    }
    let accepted = record.history.iter().filter(|h| h.accepted).count();
    json!({
        "name": record.name,
        "game": record.game,
        "method": record.method,
        "candidates": record.history.len(),
        "accepted": accepted,
        "games": record.games,
        "seconds": record.seconds,
        "weights_file": record.weights_file,
        "params": record.params.iter().zip(&record.tuned).enumerate().map(|(i, (p, t))| {
            let mut param = json!({
                "name": p.name, "min": p.min, "max": p.max, "start": p.value, "tuned": t,
            });
            if let Some(endgame) = &record.tuned_endgame {
                param["tuned_endgame"] = json!(endgame.get(i));
            }
            param
        }).collect::<Vec<_>>(),
        "confirmation": record.confirmation,
        "aa": aa,
        "out": out.display().to_string(),
    })
}

#[cfg(test)]
mod aa_tests;

#[cfg(test)]
mod record_tests;

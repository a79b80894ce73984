//! `joute run`, `joute match` and `joute report`: wiring the spec, the runner, the log, the
//! progress display and the report together.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;

use super::interrupt;
use super::meter::{Meter, eta_seconds, short_duration};
use super::{InputError, MatchArgs, ReportArgs, RunArgs};
use joute::arena::log::{GameLine, ReadLock, RunInfo, create_out_folder};
use joute::arena::schedule::Shard;
use joute::arena::spec::{
    Anchor, MAX_ANCHOR_ELO, MatchEngine, MatchOpenings, TournamentSpec, clock_of, match_records,
    match_spec,
};
use joute::outputs::file_name;
use joute::report::Summary;
use joute::report::cost::{self, CostRow};
use joute::report::load::summarize_logs;
use joute::report::run::{SessionTiming, check_report_folder, run_timing, summary_json};
use joute::report::table::{RatingRow, RatingScale};
use joute::report::{table, write_run_report};
use joute::stats::ratings::FirstMove;
use joute::stats::sprt::{Decision, Sprt};
use joute::tournament::session::Notice;
use joute::tournament::{Ending, Observer, Opened, Options, Outcome, Session};

/// The quickstart tournament, compiled in for `joute run` without a spec.
pub const QUICKSTART: &str = include_str!("../../tournaments/quickstart.toml");

/// What the run prints: how it talks, and whether the cost table is whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shown {
    /// How it talks.
    pub voice: Voice,
    /// Every cost figure (`--cost`), not only the compact table.
    pub full_cost: bool,
    /// Games between two head-to-head blocks while a run plays (`--report-every`; 0: none).
    pub report_every: u64,
    /// Exit with the SPRT's verdict (`--sprt-exit-code`).
    pub sprt_exit: bool,
}

/// `--report-every` when not given: fastchess's rating interval.
pub(super) const REPORT_EVERY: u64 = 100;

/// The exit code of an SPRT that accepted H0, with `--sprt-exit-code`.
pub const EXIT_SPRT_H0: u8 = 10;

/// The exit code of an SPRT that ended undecided (the game cap), with `--sprt-exit-code`.
pub const EXIT_SPRT_UNDECIDED: u8 = 11;

/// The SPRT's verdict as an exit code (`--sprt-exit-code`), after the run printed its report.
#[derive(Debug, thiserror::Error)]
#[error("SPRT verdict {0}")]
pub struct SprtVerdict(pub u8);

/// How the run talks to the terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Voice {
    /// Progress and the final report.
    Normal,
    /// Only the final table.
    Quiet,
    /// One JSON object on stdout.
    Json,
    /// Nothing at all (a match inside another command's JSON output).
    Silent,
}

/// `joute run`.
pub fn run(args: &RunArgs) -> anyhow::Result<()> {
    let spec = match &args.spec {
        Some(path) => TournamentSpec::load(path).map_err(|e| InputError(e.to_string()))?,
        None => TournamentSpec::parse(QUICKSTART, "(embedded quickstart)")
            .map_err(|e| InputError(e.to_string()))?,
    };
    let shard = args
        .shard
        .as_deref()
        .map(Shard::parse)
        .transpose()
        .map_err(|e| InputError(format!("--shard: {e}")))?;
    let base = (args.out.clone())
        .unwrap_or_else(|| PathBuf::from("reports").join(file_name(&spec.resolved.name, "")));
    let out = match shard {
        Some(s) => shard_folder(&base, &s.folder_name()),
        None => base,
    };
    let options = Options {
        threads: threads(args.threads)?,
        shard,
        extend: args.resume,
        force: args.force,
        fresh: args.fresh,
        anchor: anchor_option(args.anchor.as_deref(), &spec)?,
        oversubscribe: args.oversubscribe,
    };
    let live = super::serve::start(args.serve.as_deref(), &out)?;
    let shown = Shown {
        voice: voice(args.quiet, args.json),
        full_cost: args.cost,
        report_every: args.report_every.unwrap_or(REPORT_EVERY),
        sprt_exit: args.sprt_exit_code,
    };
    let played = play(&spec, &out, options, shown, true);
    drop(live); // the open pages hear that the run ended
    played
}

/// A shard's folder in `base`, the folder every shard is given: `base/shard-I-of-N`, unless
/// `base` is that folder already (as the deploy scripts name it) or holds a log of its own (a
/// shard folder laid out by an earlier joute).
fn shard_folder(base: &Path, name: &str) -> PathBuf {
    if base.file_name().is_some_and(|f| f == name) || base.join("games.jsonl").exists() {
        base.to_path_buf()
    } else {
        base.join(name)
    }
}

/// `joute match GAME ENGINE ENGINE`.
pub fn run_match(args: &MatchArgs) -> anyhow::Result<()> {
    let parse = |text: &str| MatchEngine::parse(text).map_err(|e| InputError(e.to_string()));
    let engines = [parse(&args.engine_a)?, parse(&args.engine_b)?];
    let clock = clock_of(
        args.tc.as_deref(),
        args.st.as_deref(),
        args.timemargin.as_deref(),
    )
    .map_err(|(key, m)| InputError(format!("(command line): --{key}: {m}")))?;
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let games = args
        .games
        .unwrap_or(if sprt.is_some() { 10_000 } else { 100 });
    let openings = MatchOpenings {
        plies: args.openings,
        repeat: args.repeat_openings,
    };
    let records = (args.records.as_deref())
        .map(|list| match_records(&args.game, list))
        .transpose()
        .map_err(|e| InputError(e.to_string()))?;
    if records.is_some() && args.out.is_none() {
        return Err(InputError(
            "--records needs --out DIR: the records are written there as the games are played"
                .into(),
        )
        .into());
    }
    let (mut spec, note) = match_spec(
        args.game,
        engines,
        games,
        openings,
        args.seed.unwrap_or(1),
        sprt,
        clock,
    )
    .map_err(|e| InputError(e.to_string()))?;
    // Not in the spec's hash: a match resumed with other records is the same match.
    spec.resolved.records = records.unwrap_or_default();
    let voice = voice(args.quiet, args.json);
    if let Some(note) = note
        && voice == Voice::Normal
    {
        note!("{note}");
    }
    // How the games are run, not which (left out of the spec's hash).
    spec.resolved.affinity = args.affinity;
    let mut options = Options {
        threads: threads(args.threads)?,
        shard: None,
        extend: args.resume,
        force: args.force,
        fresh: args.fresh,
        anchor: anchor_option(args.anchor.as_deref(), &spec)?,
        oversubscribe: args.oversubscribe,
    };
    let shown = Shown {
        voice,
        full_cost: args.cost,
        report_every: args.report_every.unwrap_or(REPORT_EVERY),
        sprt_exit: args.sprt_exit_code,
    };
    match &args.out {
        Some(out) => {
            let live = super::serve::start(args.serve.as_deref(), out)?;
            let played = play(&spec, out, options, shown, true);
            drop(live); // the open pages hear that the run ended
            played
        }
        None => {
            if args.resume {
                return Err(InputError(
                    "--resume needs --out DIR: the folder of the match to resume".into(),
                )
                .into());
            }
            // Removed when dropped, whichever way this returns; a second Ctrl-C removes it too.
            let dir = tempfile::Builder::new()
                .prefix("joute-match-")
                .tempdir()
                .context("cannot create a scratch folder for the match")?;
            interrupt::set_scratch(Some(dir.path().to_path_buf()));
            options.extend = false;
            let live = super::serve::start(args.serve.as_deref(), dir.path())?;
            let result = play(&spec, dir.path(), options, shown, false);
            drop(live); // the open pages hear that the run ended
            interrupt::set_scratch(None);
            result
        }
    }
}

/// `joute report LOG...`.
/// The session's anchor from `--anchor` (see [`parse_anchor`]), checked against `spec`'s
/// engines; `None` when the option is not given.
fn anchor_option(
    text: Option<&str>,
    spec: &TournamentSpec,
) -> Result<Option<Option<joute::arena::spec::Anchor>>, InputError> {
    text.map(|t| parse_anchor(t, &spec.resolved.engine_names()))
        .transpose()
}

/// `--anchor ENGINE=ELO` (or `ENGINE`, at 0; or `mean`): the anchor it names, checked against
/// the run's engines (`joute report`, `joute rate`).
pub(super) fn parse_anchor(text: &str, engines: &[String]) -> Result<Option<Anchor>, InputError> {
    if text.trim() == "mean" {
        return Ok(None);
    }
    let (name, elo) = match text.rsplit_once('=') {
        Some((name, elo)) => {
            let value: f64 = elo.trim().parse().map_err(|_| {
                InputError(format!(
                    "--anchor {text}: '{}' is not a number of Elo",
                    elo.trim()
                ))
            })?;
            (name.trim(), value)
        }
        None => (text.trim(), 0.0),
    };
    if !elo.is_finite() || elo.abs() > MAX_ANCHOR_ELO {
        return Err(InputError(format!(
            "--anchor {text}: the Elo must be within -{MAX_ANCHOR_ELO}..={MAX_ANCHOR_ELO}"
        )));
    }
    if !engines.iter().any(|e| e == name) {
        return Err(InputError(format!(
            "--anchor {text}: '{name}' is not among the rated engines: {}",
            engines.join(", ")
        )));
    }
    Ok(Some(Anchor {
        engine: name.to_string(),
        elo,
    }))
}

/// Checks that every path is a games log and holds each while it is read (`joute report`,
/// `joute export`); `say_live`: note a log a run is still writing.
pub(super) fn open_logs(logs: &[PathBuf], say_live: bool) -> Result<Vec<ReadLock>, InputError> {
    for log in logs {
        if log.is_dir() {
            return Err(InputError(format!(
                "{} is a folder; give the games log in it: {}",
                log.display(),
                log.join("games.jsonl").display()
            )));
        }
        if !log.is_file() {
            return Err(InputError(format!("{}: no such games log", log.display())));
        }
    }
    // Hold the logs while they are read; a log a run is writing now is read as far as it goes.
    let mut locks = Vec::new();
    for log in logs {
        let lock = ReadLock::new(log)
            .map_err(|e| InputError(format!("{}: cannot read the log: {e}", log.display())))?;
        if lock.live && say_live {
            note!(
                "note: a run is still writing {}; this report covers the games logged so far",
                log.display()
            );
        }
        locks.push(lock);
    }
    Ok(locks)
}

pub fn report(args: &ReportArgs) -> anyhow::Result<()> {
    let _locks = open_logs(&args.logs, !args.json)?;
    let (info, mut summary, loaded) = summarize_logs(&args.logs).map_err(InputError)?;
    if let Some(text) = &args.anchor {
        summary.spec.anchor = parse_anchor(text, &summary.spec.engine_names())?;
    }
    if let Some(model) = &args.first_move {
        summary.spec.ratings.first_move = match model.as_str() {
            "ignore" => FirstMove::Ignore,
            _ => FirstMove::Fit,
        };
    }
    let out = args.out.clone().unwrap_or_else(|| {
        if args.logs.len() == 1 {
            args.logs[0]
                .parent()
                .unwrap_or(Path::new("."))
                .to_path_buf()
        } else {
            PathBuf::from("reports").join(file_name(&info.spec.name, ""))
        }
    });
    check_report_folder(&out, &info, args.force).map_err(InputError)?;
    let voice = if args.json {
        Voice::Json
    } else {
        Voice::Normal
    };
    if loaded.games_read < loaded.games_scheduled
        && summary.decision().is_none()
        && voice == Voice::Normal
    {
        note!(
            "note: the logs hold {} of the run's {} games",
            loaded.games_read,
            loaded.games_scheduled
        );
    }
    for duplicate in &loaded.duplicates {
        if voice == Voice::Normal {
            note!("note: {}", duplicate.describe());
        }
    }
    for torn in &loaded.torn {
        if voice == Voice::Normal {
            note!(
                "note: {} ends with a torn line (a run killed mid-write); it was ignored",
                torn.display()
            );
        }
    }
    create_out_folder(&out).map_err(InputError)?;
    // The run's timing as its record says (the first log's sessions).
    let timing = Timing {
        session: None,
        run: &info,
    };
    let written = write_run_report(&summary, &out, &info, &args.logs)?;
    let table = Table {
        rows: &written.rows,
        costs: &written.costs,
        scale: &written.scale,
        page: Some(written.page.as_path()),
    };
    let shown = Shown {
        voice,
        full_cost: args.cost,
        report_every: 0,
        sprt_exit: false,
    };
    render(&summary, &out, shown, table, timing, table::Stage::Ended)
}

pub(super) fn voice(quiet: bool, json: bool) -> Voice {
    if json {
        Voice::Json
    } else if quiet {
        Voice::Quiet
    } else {
        Voice::Normal
    }
}

pub(super) fn threads(requested: Option<usize>) -> anyhow::Result<usize> {
    match requested {
        Some(0) => Err(InputError("--threads must be at least 1".into()).into()),
        Some(n) if n > 1024 => Err(InputError("--threads must be at most 1024".into()).into()),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// `--sprt`: the library's forms ([`Sprt::parse`]), its error named by the flag.
pub(super) fn parse_sprt(text: &str) -> Result<Sprt, InputError> {
    Sprt::parse(text).map_err(|e| InputError(format!("--sprt {e}")))
}

/// Plays the games of `spec` that `out` does not hold yet (this shard's, when sharded), then
/// reports. `keep` false: a scratch folder (a match without --out), whose path is not shown.
/// `options.extend`: the user said `--resume`, which also lets a spec extend the run it finds.
pub(super) fn play(
    spec: &TournamentSpec,
    out: &Path,
    options: Options,
    shown: Shown,
    keep: bool,
) -> anyhow::Result<()> {
    let voice = shown.voice;
    let (resume, threads) = (options.extend, options.threads);
    let session = Session::open(spec, out, options)?;
    say_duplicates(session.notices(), voice);
    if voice == Voice::Normal {
        say_opened(&session, spec, resume, keep);
    }
    let scheduled = session.scheduled();
    let remaining = session.remaining();
    if remaining > 0 && voice != Voice::Silent {
        for warning in joute::arena::workload::warnings(&spec.resolved) {
            note!("{warning}");
        }
        if let Some(warning) = joute::arena::workload::oversubscribed(&spec.resolved, threads) {
            note!("{warning}");
        }
    }
    let cancel = interrupt::token();
    let mut progress = Progress::new(
        voice,
        scheduled,
        scheduled - remaining,
        remaining,
        threads,
        spec.resolved.sprt.is_some(),
    );
    progress.report_every = shown.report_every;
    progress.openings = spec.resolved.openings.describe();
    let reported = session.play_and_report(&mut progress, &cancel, keep);
    progress.finish();
    let reported = reported?;
    let outcome = &reported.outcome;
    say_played(spec, outcome, voice, threads)?;
    let timing = Timing {
        session: Some(SessionTiming {
            played: outcome.played,
            seconds: outcome.seconds,
            threads,
        }),
        run: &outcome.info,
    };
    let table = Table {
        rows: &reported.rows,
        costs: &reported.costs,
        scale: &reported.scale,
        page: reported.page.as_deref(),
    };
    let interrupted = outcome.ending == Ending::Interrupted;
    let stage = if interrupted {
        table::Stage::Interrupted
    } else {
        table::Stage::Ended
    };
    render(&outcome.summary, out, shown, table, timing, stage)?;
    if interrupted {
        if voice != Voice::Json && voice != Voice::Silent {
            let logged = outcome.summary.games + outcome.summary.after_decision;
            if keep {
                say!(
                    "interrupted: {logged} of {scheduled} games are in {} ({} this session); to play the rest, run: {}",
                    out.join("games.jsonl").display(),
                    outcome.played,
                    interrupt::resume_command()
                )?;
            } else {
                say!(
                    "interrupted after {logged} of {scheduled} games; a match without --out keeps nothing, so it cannot be resumed"
                )?;
            }
        }
        return Err(Interrupted.into());
    }
    if shown.sprt_exit && spec.resolved.sprt.is_some() {
        let code = match outcome.run_decision.or(outcome.summary.decision()) {
            Some(d) if d.decision == Decision::H1 => None,
            Some(d) if d.decision == Decision::H0 => Some(EXIT_SPRT_H0),
            _ => Some(EXIT_SPRT_UNDECIDED),
        };
        if let Some(code) = code {
            return Err(SprtVerdict(code).into());
        }
    }
    Ok(())
}

/// The notes before play: what the folder held, the clock, the outside programs.
fn say_opened(session: &Session, spec: &TournamentSpec, resume: bool, keep: bool) {
    let out = session.out();
    for notice in session.notices() {
        match notice {
            Notice::TornLine => note!(
                "note: the log ended with a torn line (the run was killed mid-write); it is cut off and that game is played again"
            ),
            Notice::OtherVersion { started_by } => note!(
                "note: {} was started by joute {started_by}; this is {}: engines of another version may play differently",
                out.display(),
                env!("CARGO_PKG_VERSION")
            ),
            Notice::Fresh { removed, kept } => say_fresh(out, *removed, kept),
            // Said whatever the voice, but --json ([`say_duplicates`]).
            Notice::Duplicates(_) => {}
        }
    }
    let remaining = session.remaining();
    if remaining > 0 {
        let own = spec.resolved.engines.iter().filter(|e| e.clock.is_some());
        if let Some(clock) = spec.resolved.clock {
            let whom = if own.clone().count() > 0 {
                "for the engines without a clock of their own"
            } else {
                "for every engine"
            };
            note!(
                "clock: {} {whom}, margin {} ms (games on a clock do not replay bit for bit)",
                clock.control.describe(),
                clock.margin_ms
            );
        }
        for e in own.clone() {
            let c = e.clock.expect("filtered");
            note!(
                "clock of {}: {}, margin {} ms",
                e.name,
                c.control.describe(),
                c.margin_ms
            );
        }
        // TOML's trap: tc written below the last [[engine]] table belongs to that table.
        let engines = &spec.resolved.engines;
        if spec.resolved.clock.is_none()
            && engines.len() > 2
            && own.count() == 1
            && engines.last().is_some_and(|e| e.clock.is_some())
        {
            note!(
                "note: only '{}', the last engine, has a clock: a key written below an [[engine]] table belongs to it; a clock for every engine goes at the top of the spec",
                engines[engines.len() - 1].name
            );
        }
        for e in &spec.resolved.engines {
            if let Some(o) = &e.outside {
                let log = joute::arena::runner::engine_log(&out.join("engines"), &e.name);
                let kept = if keep {
                    format!(" (stderr in {})", log.display())
                } else {
                    String::new()
                };
                note!("{}: {}{kept}", e.name, o.describe());
                if let Some(held) = o.guard.describe() {
                    note!("  held: {held} (what the machine applied: run.json, engines_held)");
                }
            }
        }
    }
    match session.opened() {
        Opened::Continued { games } if remaining == 0 => note!(
            "{} already holds this run's {games} games: nothing to play; the report is rendered again",
            out.display()
        ),
        Opened::Continued { games } if !resume => note!(
            "{} holds {games} games of this spec: continuing with the {remaining} missing",
            out.display()
        ),
        Opened::Extended { games, from, added } if added.is_empty() => note!(
            "{}: this spec extends the run there (spec {from}): its {games} games are kept, {remaining} new ones to play",
            out.display()
        ),
        Opened::Extended { games, from, added } => note!(
            "{}: this spec adds {} to the run there (spec {from}): its {games} games are kept, {remaining} new ones to play",
            out.display(),
            joute::tournament::session::quoted_list(added)
        ),
        _ => {}
    }
}

/// What `--fresh` removed from `out`, and the files it left there.
pub(super) fn say_fresh(out: &Path, removed: usize, kept: &[String]) {
    note!(
        "{}: started afresh, {removed} file{} of the earlier run removed",
        out.display(),
        if removed == 1 { "" } else { "s" }
    );
    if !kept.is_empty() {
        let shown: Vec<&str> = kept.iter().take(5).map(String::as_str).collect();
        note!(
            "note: kept {} file{} the run record does not list as joute's: {}{}",
            kept.len(),
            if kept.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if kept.len() > 5 { ", …" } else { "" }
        );
    }
}

/// The logs found to hold a game twice, the same line (skipped): said even with --quiet, a
/// log once; not with --json.
fn say_duplicates(notices: &[Notice], voice: Voice) {
    for notice in notices {
        if let Notice::Duplicates(d) = notice
            && voice != Voice::Json
        {
            note!("note: {}", d.describe());
        }
    }
}

/// The lines after play: its timing, and for a shard, what its tables cover and the run's test.
fn say_played(
    spec: &TournamentSpec,
    outcome: &Outcome,
    voice: Voice,
    threads: usize,
) -> anyhow::Result<()> {
    say_duplicates(&outcome.notices, voice);
    if voice == Voice::Normal && outcome.played > 0 {
        say!("{}", timing_line(&spec.resolved.name, outcome, threads))?;
        if let Some(s) = outcome.info.shard {
            say!(
                "shard {}/{}: these ratings cover this shard only; `joute report` over every shard's games.jsonl gives the run's",
                s.index,
                s.count
            )?;
        }
    }
    // The run's test, which no shard's own tables show.
    if outcome.info.shard.is_some() && matches!(voice, Voice::Normal | Voice::Quiet) {
        if let Some(d) = outcome.run_decision {
            say!(
                "the run's SPRT (every shard's log): {} accepted after {} pairs, LLR {:.2}; this shard stopped scheduling there",
                if d.decision == Decision::H1 {
                    "H1"
                } else {
                    "H0"
                },
                d.pairs,
                d.llr
            )?;
        } else if spec.resolved.sprt.is_some() {
            say!("the run's SPRT (every shard's log): not decided yet")?;
        }
    }
    Ok(())
}

/// A run stopped by Ctrl-C or a termination signal, after saying so: exit 130, no message.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// "NAME: N games played in S s (R games/s, T threads)", with the run's totals when earlier
/// sessions played games too.
fn timing_line(name: &str, outcome: &Outcome, threads: usize) -> String {
    let rate = if outcome.seconds > 0.0 {
        outcome.played as f64 / outcome.seconds
    } else {
        0.0
    };
    let mut line = format!(
        "{name}: {} games played in {:.1} s ({rate:.1} games/s, {threads} thread{})",
        outcome.played,
        outcome.seconds,
        if threads == 1 { "" } else { "s" },
    );
    let sessions = &outcome.info.sessions;
    if sessions.len() > 1 {
        let (games, seconds, _) = run_timing(&outcome.info, None);
        line.push_str(&format!(
            "; the run: {games} games in {:.1} s over {} sessions",
            seconds,
            sessions.len()
        ));
    }
    line
}

/// Time spent: by this session (none for `joute report`) and by every session of the run (its
/// record).
struct Timing<'a> {
    session: Option<SessionTiming>,
    run: &'a RunInfo,
}

/// The rating table's rows, the cost table's, what the ratings mean, and the report's page
/// when it was written.
struct Table<'a> {
    rows: &'a [RatingRow],
    costs: &'a [CostRow],
    scale: &'a RatingScale,
    page: Option<&'a Path>,
}

/// Prints the tables (or the JSON object) of a run whose report is in `out` (when `page`).
fn render(
    summary: &Summary,
    out: &Path,
    shown: Shown,
    table: Table,
    timing: Timing,
    stage: table::Stage,
) -> anyhow::Result<()> {
    let Table {
        rows,
        costs,
        scale,
        page,
    } = table;
    match shown.voice {
        Voice::Json => {
            let written = page.map(|p| (out, p));
            let object = summary_json(summary, rows, scale, timing.session, timing.run, written);
            say!("{object}")?;
        }
        Voice::Silent => {}
        Voice::Quiet => {
            say_text!(table::rating_table(rows))?;
            say_text!(scale.lines())?;
        }
        Voice::Normal => {
            say_text!(table::rating_table(rows))?;
            say_text!(scale.lines())?;
            if let Some(block) = cost::cost_table(costs, shown.full_cost) {
                say_text!(block)?;
            }
            if let Some(line) = cost::starved_warning(costs, summary.spec.on_time()) {
                say!("{line}")?;
            }
            if let Some(block) = table::head_to_head(summary, stage) {
                say_text!(block)?;
            }
            if summary.games > 0 {
                say!(
                    "the side moving first scored {:.1}% over {} games",
                    100.0 * summary.first_side_points / summary.games as f64,
                    summary.games
                )?;
            }
            if let Some(block) = table::terminations(summary) {
                say_text!(block)?;
                let failed = summary.failures.iter().any(|f| f.total() > 0);
                if failed && page.is_none() {
                    say!(
                        "(a match without --out keeps nothing: with --out DIR, each engine's whole stderr is in DIR/engines/NAME.log)"
                    )?;
                }
            }
            if summary.after_decision > 0 {
                say!(
                    "({} games finished after the SPRT decided were in flight; they are in the log but not counted)",
                    summary.after_decision
                )?;
            }
            if let Some(page) = page {
                say!("files: {}", out.display())?;
                say!("report: {}", page.display())?;
            }
        }
    }
    Ok(())
}

/// The progress of a run's games: a bar with the ETA, the rate and the leader on a terminal,
/// the same as a note every few seconds otherwise; every `report_every` games the
/// head-to-head block.
struct Progress {
    voice: Voice,
    meter: Meter,
    /// The header line said when play starts (after the outside programs' handshakes, which
    /// may fail).
    announce: Option<String>,
    /// Games the folder is to hold, and games in it now.
    total: u64,
    done: u64,
    /// Games left when the session started (the SPRT may stop earlier).
    remaining_at_start: u64,
    played: u64,
    last_leader: Instant,
    started: Instant,
    leader: String,
    /// Games between two head-to-head blocks (0: none).
    report_every: u64,
    /// The openings, for the header line.
    openings: String,
    /// The ETA of the SPRT, refreshed with the leader.
    sprt_eta: Option<SprtEta>,
    /// Whether the run has an SPRT (its game count is a cap).
    sprt: bool,
}

/// Pairs a test must have counted before its expected length is shown: fewer say little
/// about the drift.
const SPRT_ETA_PAIRS: u64 = 10;

/// What the progress line says of the SPRT's expected remaining length.
#[derive(Clone, Copy, Debug)]
enum SprtEta {
    /// Expected games still to play.
    Games(f64),
    /// The drift is lost in the noise: no figure worth showing.
    NoDrift,
}

impl Progress {
    fn new(
        voice: Voice,
        total: u64,
        done: u64,
        remaining: u64,
        threads: usize,
        sprt: bool,
    ) -> Progress {
        let talk = voice == Voice::Normal && remaining > 0;
        let meter = Meter::new(talk, total, done, "{bar:20} {pos}/{len} {wide_msg}", false);
        let announce = talk.then(|| {
            format!(
                "playing {}{remaining} games on {threads} thread{} ({done} already played{})",
                if sprt { "up to " } else { "" },
                if threads == 1 { "" } else { "s" },
                if sprt {
                    "; the SPRT may stop earlier"
                } else {
                    ""
                }
            )
        });
        Progress {
            voice,
            meter,
            announce,
            total,
            done,
            remaining_at_start: remaining,
            played: 0,
            last_leader: Instant::now() - Duration::from_secs(10),
            started: Instant::now(),
            leader: String::new(),
            report_every: 0,
            openings: String::new(),
            sprt_eta: None,
            sprt,
        }
    }

    fn finish(&mut self) {
        self.meter.finish();
    }

    /// `ETA 5h 55m`, or with an SPRT `ETA ~25m (SPRT), cap 5h 55m`: the test's expected
    /// remaining length at the current rate beside the time to the game cap (`ETA cap 5h 55m`
    /// before [`SPRT_ETA_PAIRS`] pairs).
    fn eta(&self, rate: f64, elapsed: f64) -> String {
        let left = self.remaining_at_start - self.played.min(self.remaining_at_start);
        let cap = short_duration(eta_seconds(self.played, left, elapsed));
        match self.sprt_eta {
            None if self.sprt => format!("ETA cap {cap}"),
            None => format!("ETA {cap}"),
            Some(SprtEta::NoDrift) => format!("ETA cap {cap} (SPRT: drift ~0)"),
            Some(SprtEta::Games(g)) if g >= left as f64 => {
                format!("ETA cap {cap} (SPRT: not expected before the cap)")
            }
            Some(SprtEta::Games(g)) => {
                let seconds = if rate > 0.0 { g / rate } else { f64::INFINITY };
                format!("ETA ~{} (SPRT), cap {cap}", short_duration(seconds))
            }
        }
    }
}

impl Observer for Progress {
    fn started(&mut self, _: u64, _: u64) {
        if let Some(mut line) = self.announce.take() {
            if !self.openings.is_empty() {
                line.push_str(&format!("; openings: {}", self.openings));
            }
            self.meter.line(&line);
        }
    }

    fn game_finished(&mut self, _: &GameLine, summary: &Summary) {
        self.done += 1;
        self.played += 1;
        if self.voice != Voice::Normal {
            return;
        }
        if self.last_leader.elapsed() >= Duration::from_millis(500) || self.done == self.total {
            self.last_leader = Instant::now();
            let ratings = summary.ratings();
            self.leader =
                table::progress_estimate(summary).unwrap_or_else(|| table::leader(&ratings));
            if let (Some(test), Some(state)) = (summary.spec.sprt, &summary.sprt) {
                if !self.leader.is_empty() {
                    self.leader.push_str(", ");
                }
                self.leader.push_str(&format!(
                    "LLR {:.2} ({:.2}, {:.2})",
                    state.llr(),
                    test.lower(),
                    test.upper()
                ));
                self.sprt_eta = state.expected_remaining(SPRT_ETA_PAIRS).map(|r| {
                    if r.drifting {
                        SprtEta::Games(2.0 * r.pairs)
                    } else {
                        SprtEta::NoDrift
                    }
                });
            }
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = self.played as f64 / elapsed.max(1e-9);
        let eta = self.eta(rate, elapsed);
        let (done, total, leader) = (self.done, self.total, &self.leader);
        self.meter.show(
            done,
            false,
            || format!("{eta}  {rate:.1} games/s  {leader}"),
            || format!("{done}/{total} games, {rate:.1} games/s, {eta}, {leader}"),
        );
        if self.report_every > 0
            && self.done.is_multiple_of(self.report_every)
            && self.done < self.total
            && summary.decision().is_none()
            && let Some(block) = table::head_to_head(summary, table::Stage::Playing)
        {
            for line in block.lines() {
                self.meter.line(line);
            }
        }
    }
}

/// The progress of a match inside another command (tuning's confirmation and A/A): a
/// [`Progress`] made when the session says how many games it will play.
pub(super) struct MatchProgress {
    voice: Voice,
    threads: usize,
    progress: Option<Progress>,
}

impl MatchProgress {
    pub(super) fn new(voice: Voice, threads: usize) -> MatchProgress {
        MatchProgress {
            voice,
            threads,
            progress: None,
        }
    }

    pub(super) fn finish(&mut self) {
        if let Some(p) = self.progress.as_mut() {
            p.finish();
        }
    }
}

impl Observer for MatchProgress {
    fn started(&mut self, scheduled: u64, remaining: u64) {
        self.progress = Some(Progress::new(
            self.voice,
            scheduled,
            scheduled - remaining,
            remaining,
            self.threads,
            false,
        ));
        if let Some(p) = self.progress.as_mut() {
            p.started(scheduled, remaining);
        }
    }

    fn game_finished(&mut self, game: &GameLine, summary: &Summary) {
        if let Some(p) = self.progress.as_mut() {
            p.game_finished(game, summary);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A progress of a run that has played `played` of `left + played` games, silent.
    fn progress(played: u64, left: u64, eta: Option<SprtEta>) -> Progress {
        let mut p = Progress::new(Voice::Quiet, played + left, 0, played + left, 1, true);
        p.played = played;
        p.sprt_eta = eta;
        p
    }

    #[test]
    fn the_eta_shows_the_tests_expected_length_beside_the_cap() {
        // 100 games in 100 s: 1 game/s; 900 games to the cap, 15m.
        let p = progress(100, 900, None);
        assert_eq!(p.eta(1.0, 100.0), "ETA cap 15m 00s");
        let p = progress(100, 900, Some(SprtEta::Games(150.0)));
        assert_eq!(p.eta(1.0, 100.0), "ETA ~2m 30s (SPRT), cap 15m 00s");
        let p = progress(100, 900, Some(SprtEta::Games(5000.0)));
        assert_eq!(
            p.eta(1.0, 100.0),
            "ETA cap 15m 00s (SPRT: not expected before the cap)"
        );
        let p = progress(100, 900, Some(SprtEta::NoDrift));
        assert_eq!(p.eta(1.0, 100.0), "ETA cap 15m 00s (SPRT: drift ~0)");
        // Without an SPRT, no "cap".
        let mut p = progress(100, 900, None);
        p.sprt = false;
        assert_eq!(p.eta(1.0, 100.0), "ETA 15m 00s");
    }
}

//! `joute run`, `joute match` and `joute report`: wiring the spec, the runner, the log, the
//! progress display and the report together.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use super::{InputError, MatchArgs, ReportArgs, RunArgs};
use joute::arena::EngineSpec;
use joute::arena::log::{IdSet, LogWriter, RunInfo, Session, now, peak_rss_kib, scan_log};
use joute::arena::openings;
use joute::arena::runner::run_games;
use joute::arena::schedule::Shard;
use joute::arena::spec::{TournamentSpec, match_spec};
use joute::eval::{Features, FeaturesVisitor};
use joute::report::Summary;
use joute::report::load::summarize_logs;
use joute::report::{charts, files, html, table};
use joute::stats::sprt::{EloModel, Sprt};

/// The quickstart tournament, compiled in for `joute run` without a spec.
pub const QUICKSTART: &str = include_str!("../../tournaments/quickstart.toml");

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
    let out = args.out.clone().unwrap_or_else(|| {
        let base = PathBuf::from("reports").join(&spec.resolved.name);
        match shard {
            Some(s) => base.join(format!("shard-{}-of-{}", s.index, s.count)),
            None => base,
        }
    });
    if shard.is_some() && spec.resolved.sprt.is_some() {
        return Err(InputError(
            "--shard: an SPRT run decides on its pairs in order and stops as soon as it can; it cannot be split into shards. Run it on one machine (--threads N), or drop [sprt] to shard a fixed-length match".into(),
        )
        .into());
    }
    let voice = voice(args.quiet, args.json);
    let threads = threads(args.threads)?;
    play(&spec, &out, Some(shard), args.resume, threads, voice, true)
}

/// `joute match GAME ENGINE ENGINE`.
pub fn run_match(args: &MatchArgs) -> anyhow::Result<()> {
    let parse = |text: &str| EngineSpec::parse(text).map_err(|e| InputError(e.to_string()));
    let engines = [parse(&args.engine_a)?, parse(&args.engine_b)?];
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let games = args
        .games
        .unwrap_or(if sprt.is_some() { 10_000 } else { 100 });
    let plies = args
        .openings
        .unwrap_or_else(|| default_plies(&args.game, games / 2));
    let spec = match_spec(
        args.game,
        engines,
        games,
        plies,
        args.seed.unwrap_or(1),
        sprt,
    )
    .map_err(|e| InputError(e.to_string()))?;
    let voice = voice(args.quiet, args.json);
    let threads = threads(args.threads)?;
    match &args.out {
        Some(out) => play(&spec, out, None, args.resume, threads, voice, true),
        None => {
            if args.resume {
                return Err(InputError(
                    "--resume needs --out DIR: the folder of the match to resume".into(),
                )
                .into());
            }
            let dir = std::env::temp_dir().join(format!("joute-match-{}", std::process::id()));
            let result = play(&spec, &dir, None, false, threads, voice, false);
            let _ = std::fs::remove_dir_all(&dir);
            result
        }
    }
}

/// `joute report LOG...`.
pub fn report(args: &ReportArgs) -> anyhow::Result<()> {
    for log in &args.logs {
        if !log.is_file() {
            return Err(InputError(format!("{}: no such games log", log.display())).into());
        }
    }
    let (info, summary, loaded) = summarize_logs(&args.logs).map_err(InputError)?;
    let out = args.out.clone().unwrap_or_else(|| {
        if args.logs.len() == 1 {
            args.logs[0]
                .parent()
                .unwrap_or(Path::new("."))
                .to_path_buf()
        } else {
            PathBuf::from("reports").join(&info.spec.name)
        }
    });
    let voice = if args.json {
        Voice::Json
    } else {
        Voice::Normal
    };
    if loaded.games_read < loaded.games_scheduled
        && summary.decision().is_none()
        && voice == Voice::Normal
    {
        eprintln!(
            "note: the logs hold {} of the run's {} games",
            loaded.games_read, loaded.games_scheduled
        );
    }
    for torn in &loaded.torn {
        if voice == Voice::Normal {
            eprintln!(
                "note: {} ends with a torn line (a run killed mid-write); it was ignored",
                torn.display()
            );
        }
    }
    std::fs::create_dir_all(&out).map_err(|e| {
        InputError(format!(
            "{}: cannot create the output folder: {e}",
            out.display()
        ))
    })?;
    // The run's timing as its record says (the first log's sessions).
    let timing = Some((
        info.sessions.iter().map(|s| s.games_played).sum(),
        info.sessions
            .iter()
            .filter_map(|s| Some(s.finished_unix? - s.started_unix))
            .sum(),
        info.sessions.last().map_or(1, |s| s.threads),
    ));
    finish_with(&summary, &out, voice, true, timing, &args.logs)
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

/// Opening plies for `joute match` when `--openings` is not given: enough for `count` distinct
/// openings on every board.
fn default_plies(game: &joute::games::GameKind, count: u64) -> u32 {
    use joute::games::GameKind;
    match game {
        GameKind::Othello if count <= 2000 => 6,
        GameKind::Othello => 8,
        GameKind::Connect4 if count <= 400 => 4,
        GameKind::Connect4 => 6,
        GameKind::Morpion { .. } | GameKind::RandomTree { .. } => 2,
    }
}

/// `ELO0,ELO1` into a logistic test at α = β = 5%.
fn parse_sprt(text: &str) -> anyhow::Result<Sprt> {
    let bad = || {
        InputError(format!(
            "--sprt '{text}' is not ELO0,ELO1 with ELO0 < ELO1, e.g. --sprt 0,10"
        ))
    };
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    let elo0: f64 = a.trim().parse().map_err(|_| bad())?;
    let elo1: f64 = b.trim().parse().map_err(|_| bad())?;
    if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
        return Err(bad().into());
    }
    Ok(Sprt {
        elo0,
        elo1,
        alpha: 0.05,
        beta: 0.05,
        model: EloModel::Logistic,
    })
}

/// Plays the games of `spec` that `out` does not hold yet (this shard's, when sharded), then
/// reports. `keep` false: a scratch folder (a match without --out), whose path is not shown.
pub(super) fn play(
    spec: &TournamentSpec,
    out: &Path,
    shard: Option<Option<Shard>>,
    resume: bool,
    threads: usize,
    voice: Voice,
    keep: bool,
) -> anyhow::Result<()> {
    let shard = shard.flatten();
    std::fs::create_dir_all(out).map_err(|e| {
        InputError(format!(
            "{}: cannot create the output folder: {e}",
            out.display()
        ))
    })?;
    let log_path = out.join("games.jsonl");
    let run_path = out.join("run.json");
    let exists = log_path.metadata().map(|m| m.len() > 0).unwrap_or(false);
    if exists && !resume {
        return Err(InputError(format!(
            "{} already holds games; add --resume to continue that run, or choose another --out",
            log_path.display()
        ))
        .into());
    }

    // Lock the log before reading it: no other process may append while this one runs.
    let mut writer = LogWriter::lock(&log_path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::WouldBlock {
            anyhow::Error::from(InputError(format!(
                "{e}: another joute run is using {}; wait for it or choose another --out",
                out.display()
            )))
        } else {
            anyhow::Error::from(InputError(format!(
                "{}: cannot write the games log: {e}",
                log_path.display()
            )))
        }
    })?;
    let total = spec.resolved.schedule().games();
    let mut summary = Summary::new(&spec.resolved, &spec.hash);
    let mut done = IdSet::new(total);
    let mut info = RunInfo {
        joute_version: env!("CARGO_PKG_VERSION").to_string(),
        spec_hash: spec.hash.clone(),
        seed: spec.resolved.seed,
        shard,
        games_scheduled: (0..total)
            .filter(|&id| shard.is_none_or(|s| s.holds(id)))
            .count() as u64,
        sessions: Vec::new(),
        spec: spec.resolved.clone(),
    };
    let mut keep_bytes = 0;
    if resume && exists {
        let previous =
            RunInfo::load(&run_path).map_err(|e| InputError(format!("--resume: {e}")))?;
        if previous.spec_hash != spec.hash {
            return Err(InputError(format!(
                "--resume: {} was written by another spec (hash {}, '{}'), not this one (hash {}); the spec or a weights file changed since. Choose another --out to start afresh",
                out.display(),
                previous.spec_hash,
                previous.spec.name,
                spec.hash
            ))
            .into());
        }
        if previous.shard != shard {
            return Err(InputError(format!(
                "--resume: {} holds shard {:?}, not {:?}",
                out.display(),
                previous.shard,
                shard
            ))
            .into());
        }
        if previous.joute_version != info.joute_version && voice == Voice::Normal {
            eprintln!(
                "note: {} was started by joute {}; this is {}: engines of another version may play differently",
                out.display(),
                previous.joute_version,
                info.joute_version
            );
        }
        info.sessions = previous.sessions;
        let scan = scan_log(&log_path, |game| {
            if shard.is_some_and(|s| !s.holds(game.id)) {
                return Err(format!("game id {} does not belong to this shard", game.id));
            }
            done.insert(game.id)?;
            // Checks the line against the schedule and counts it.
            summary.add(&game).map(|_| ()).map_err(|e| e.0)
        })
        .map_err(InputError)?;
        keep_bytes = scan.good_bytes;
        if scan.torn && voice == Voice::Normal {
            eprintln!(
                "note: the log ended with a torn line (the run was killed mid-write); it is cut off and that game is played again"
            );
        }
    }
    let (started_unix, started) = now();
    info.sessions.push(Session {
        started_unix,
        started,
        finished_unix: None,
        finished: None,
        threads,
        games_played: 0,
        peak_rss_kib: None,
    });
    info.save(&run_path)
        .with_context(|| format!("cannot write {}", run_path.display()))?;
    writer
        .cut(keep_bytes)
        .with_context(|| format!("cannot cut the torn line of {}", log_path.display()))?;

    let stop_pair = AtomicU64::new(summary.decision().map_or(u64::MAX, |d| d.pairs));
    let todo: Vec<u64> = (0..total)
        .filter(|&id| shard.is_none_or(|s| s.holds(id)))
        .filter(|&id| !done.contains(id))
        .collect();
    let already = info.games_scheduled - todo.len() as u64;
    let mut progress = Progress::new(
        voice,
        info.games_scheduled,
        already,
        threads,
        spec.resolved.sprt.is_some(),
    );
    let clock = Instant::now();
    let mut played = 0u64;

    struct Play<'a, F: FnMut(joute::arena::log::GameLine) -> anyhow::Result<()>> {
        spec: &'a TournamentSpec,
        todo: &'a [u64],
        threads: usize,
        stop_pair: &'a AtomicU64,
        consume: F,
    }
    impl<F: FnMut(joute::arena::log::GameLine) -> anyhow::Result<()>> FeaturesVisitor for Play<'_, F> {
        type Output = anyhow::Result<()>;
        fn visit<G: Features>(self, start: G) -> Self::Output {
            let positions = openings::positions(&start, &self.spec.resolved.opening_moves)
                .map_err(|e| anyhow::anyhow!("the run's openings do not replay: {e}"))?;
            run_games(
                self.spec,
                start,
                &positions,
                self.todo,
                self.threads,
                self.stop_pair,
                self.consume,
            )
        }
    }
    let result = joute::eval::dispatch(
        &spec.resolved.game_kind(),
        Play {
            spec,
            todo: &todo,
            threads,
            stop_pair: &stop_pair,
            consume: |game| {
                writer
                    .append(&game)
                    .with_context(|| format!("cannot append to {}", log_path.display()))?;
                played += 1;
                if let Some(decided) = summary.add(&game).map_err(|e| anyhow::anyhow!(e.0))? {
                    stop_pair.store(decided.pairs, Ordering::Relaxed);
                }
                progress.update(&summary);
                Ok(())
            },
        },
    );
    progress.finish();
    result?;
    let seconds = clock.elapsed().as_secs_f64();
    let (finished_unix, finished) = now();
    if let Some(session) = info.sessions.last_mut() {
        session.finished_unix = Some(finished_unix);
        session.finished = Some(finished);
        session.games_played = played;
        session.peak_rss_kib = peak_rss_kib();
    }
    info.save(&run_path)
        .with_context(|| format!("cannot write {}", run_path.display()))?;

    let (_, final_summary, _) =
        summarize_logs(std::slice::from_ref(&log_path)).map_err(|e| anyhow::anyhow!(e))?;
    if voice == Voice::Normal {
        let rate = if seconds > 0.0 {
            played as f64 / seconds
        } else {
            0.0
        };
        println!(
            "{}: {} games played in {:.1} s ({rate:.1} games/s, {threads} thread{}){}",
            spec.resolved.name,
            played,
            seconds,
            if threads == 1 { "" } else { "s" },
            if already > 0 {
                format!(", {already} from before")
            } else {
                String::new()
            }
        );
        if let Some(s) = shard {
            println!(
                "shard {}/{}: these ratings cover this shard only; `joute report` over every shard's games.jsonl gives the run's",
                s.index, s.count
            );
        }
    }
    finish_with(
        &final_summary,
        out,
        voice,
        keep,
        Some((played, seconds, threads)),
        std::slice::from_ref(&log_path),
    )
}

/// Prints the tables (or the JSON object) and, with `keep`, writes the CSV files and the HTML
/// report of the games in `logs`.
fn finish_with(
    summary: &Summary,
    out: &Path,
    voice: Voice,
    keep: bool,
    timing: Option<(u64, f64, usize)>,
    logs: &[PathBuf],
) -> anyhow::Result<()> {
    let ratings = summary.ratings();
    let rows = table::rating_rows(summary, &ratings);
    let mut report = None;
    if keep {
        files::write_ratings(out, &rows)
            .and_then(|_| files::write_crosstable(out, summary, &ratings, &rows))
            .and_then(|_| files::write_pairs(out, summary))
            .with_context(|| format!("cannot write the CSV files in {}", out.display()))?;
        let charts = charts::write_charts(summary, &ratings, out)
            .with_context(|| format!("cannot write the charts in {}", out.display()))?
            .svgs;
        let timing = timing.map(|(games, seconds, threads)| html::Timing {
            games,
            seconds,
            threads,
        });
        report = Some(
            html::write_report(summary, &ratings, &charts, logs, timing, out)
                .with_context(|| format!("cannot write the HTML report in {}", out.display()))?,
        );
    }
    match voice {
        Voice::Json => {
            let mut object = json!({
                "name": summary.spec.name,
                "game": summary.spec.game,
                "games": summary.games,
                "ratings": rows,
            });
            if summary.spec.engines.len() == 2
                && let Some(p) = summary.pairings.first()
            {
                let e = table::finite_estimate(p);
                object["head_to_head"] = json!({
                    "bound": e.bound,
                    "a": summary.spec.engines[p.a].name,
                    "b": summary.spec.engines[p.b].name,
                    "games": p.wdl.games(),
                    "wins": p.wdl.wins, "draws": p.wdl.draws, "losses": p.wdl.losses,
                    "points": p.wdl.points(),
                    "score": e.score, "elo": e.elo, "error": e.error, "nelo": e.nelo, "los": e.los,
                    "pentanomial": p.pentanomial.0,
                });
            }
            if let Some(test) = &summary.sprt {
                let decided = summary.decision();
                object["sprt"] = json!({
                    "elo0": summary.spec.sprt.map(|s| s.elo0),
                    "elo1": summary.spec.sprt.map(|s| s.elo1),
                    "llr": decided.map_or(test.llr(), |d| d.llr),
                    "decision": decided.map(|d| d.decision),
                    "pairs": decided.map_or(test.counts().pairs(), |d| d.pairs),
                });
            }
            if let Some((played, seconds, threads)) = timing {
                object["played"] = json!(played);
                object["seconds"] = json!(seconds);
                object["threads"] = json!(threads);
            }
            if keep {
                object["out"] = json!(out.display().to_string());
            }
            if let Some(path) = &report {
                object["report"] = json!(path.display().to_string());
            }
            println!("{object}");
        }
        Voice::Silent => {}
        Voice::Normal | Voice::Quiet => {
            print!("{}", table::rating_table(&rows));
            if let Some(block) = table::head_to_head(summary) {
                print!("{block}");
            }
            if voice == Voice::Normal && summary.games > 0 {
                println!(
                    "the side moving first scored {:.1}% over {} games",
                    100.0 * summary.first_side_points / summary.games as f64,
                    summary.games
                );
            }
            if summary.after_decision > 0 && voice == Voice::Normal {
                println!(
                    "({} games finished after the SPRT decided were in flight; they are in the log but not counted)",
                    summary.after_decision
                );
            }
            if keep && voice == Voice::Normal {
                println!("files: {}", out.display());
            }
            if let Some(path) = &report
                && voice == Voice::Normal
            {
                println!("report: {}", path.display());
            }
        }
    }
    Ok(())
}

/// The progress display: a bar on a terminal, a plain line every few seconds otherwise.
struct Progress {
    voice: Voice,
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    last_line: Instant,
    last_leader: Instant,
    started: Instant,
    started_done: u64,
    leader: String,
}

impl Progress {
    fn new(voice: Voice, total: u64, done: u64, threads: usize, sprt: bool) -> Progress {
        let bar = (voice == Voice::Normal && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{bar:24} {pos}/{len} games  ETA {eta}  {msg}")
                    .expect("a valid template"),
            );
            bar.set_position(done);
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        if voice == Voice::Normal && bar.is_none() {
            eprintln!(
                "playing {}{} games on {threads} thread{} ({done} already played{})",
                if sprt { "up to " } else { "" },
                total - done,
                if threads == 1 { "" } else { "s" },
                if sprt {
                    "; the SPRT may stop earlier"
                } else {
                    ""
                }
            );
        }
        Progress {
            voice,
            bar,
            total,
            done,
            last_line: Instant::now(),
            last_leader: Instant::now() - Duration::from_secs(10),
            started: Instant::now(),
            started_done: done,
            leader: String::new(),
        }
    }

    fn update(&mut self, summary: &Summary) {
        self.done += 1;
        if self.voice != Voice::Normal {
            return;
        }
        if self.last_leader.elapsed() >= Duration::from_millis(500) || self.done == self.total {
            self.last_leader = Instant::now();
            let ratings = summary.ratings();
            if let Some(best) = ratings
                .ratings
                .iter()
                .filter(|r| r.games > 0.0)
                .max_by(|a, b| a.elo.total_cmp(&b.elo))
            {
                self.leader = format!("leader {} {:+.0}", best.name, best.elo);
            }
            if let Some(test) = &summary.sprt {
                self.leader.push_str(&format!(", LLR {:.2}", test.llr()));
            }
        }
        match &self.bar {
            Some(bar) => {
                let rate = (self.done - self.started_done) as f64
                    / self.started.elapsed().as_secs_f64().max(1e-9);
                bar.set_position(self.done);
                bar.set_message(format!("{rate:.1} games/s  {}", self.leader));
            }
            None => {
                if self.last_line.elapsed() >= Duration::from_secs(5) {
                    self.last_line = Instant::now();
                    let elapsed = self.started.elapsed().as_secs_f64();
                    let rate = (self.done - self.started_done) as f64 / elapsed.max(1e-9);
                    let eta = (self.total - self.done) as f64 / rate.max(1e-9);
                    eprintln!(
                        "{}/{} games, {rate:.1} games/s, ETA {eta:.0} s, {}",
                        self.done, self.total, self.leader
                    );
                }
            }
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

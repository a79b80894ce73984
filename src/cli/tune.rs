//! `joute tune`: the tuning loop, the confirmation and A/A matches (played as tournament runs
//! in `confirm/` and `aa/`), the tuned weights file and the report.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use super::interrupt;
use super::run::{Voice, play, threads, voice};
use super::{InputError, TuneArgs};
use joute::arena::log::write_atomically;
use joute::arena::openings::Balance;
use joute::arena::spec::{Anchor, OpeningSource, ResolvedEngine, ResolvedSpec, TournamentSpec};
use joute::eval::{Features, FeaturesVisitor, Weights};
use joute::report::load::summarize_logs;
use joute::tune::derive_seed;
use joute::tune::record::{HistoryLine, MatchResult, TuneRecord};
use joute::tune::run::{
    Checkpoint, Plan, TuneError, held_out_openings, read_history, tune as tune_loop,
};
use joute::tune::spec::{Method, ResolvedTuneSpec, load};

/// Seed streams of the two matches (tuning uses others: see `tune::run`).
const STREAM_CONFIRM: u64 = 103;
const STREAM_AA: u64 = 104;

/// `joute tune SPEC`.
pub fn tune(args: &TuneArgs) -> anyhow::Result<()> {
    let spec = load(&args.spec).map_err(|e| InputError(e.to_string()))?;
    let threads = threads(args.threads)?;
    let voice = voice(args.quiet, args.json);
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("reports").join(&spec.name));
    // Every output is checked before the first game: a run must not play for hours and then
    // find it cannot write its result.
    std::fs::create_dir_all(&out).map_err(|e| {
        InputError(format!(
            "{}: cannot create the output folder: {e}",
            out.display()
        ))
    })?;
    check_writable(&out).map_err(|e| {
        InputError(format!(
            "{}: cannot write in the output folder: {e}",
            out.display()
        ))
    })?;

    let checkpoint_path = out.join("checkpoint.json");
    let history_path = out.join("history.jsonl");
    let started = checkpoint_path.exists()
        || history_path
            .metadata()
            .map(|m| m.len() > 0)
            .unwrap_or(false);
    if started && !args.resume {
        return Err(InputError(format!(
            "{} already holds a tuning run; add --resume to continue it, or choose another --out",
            out.display()
        ))
        .into());
    }
    let copy = args.write_weights.clone().or(spec.weights_out.clone());
    if let Some(path) = &copy {
        check_weights_copy(path, args.force)?;
    }
    let mut ck = if checkpoint_path.exists() {
        let ck =
            Checkpoint::load(&checkpoint_path).map_err(|e| InputError(format!("--resume: {e}")))?;
        if ck.spec_hash != spec.hash() {
            return Err(InputError(format!(
                "--resume: {} was written by another spec (hash {}, '{}'), not this one (hash {}); the spec or a weights file changed since. Choose another --out to start afresh",
                out.display(),
                ck.spec_hash,
                ck.spec.name,
                spec.hash()
            ))
            .into());
        }
        let mut ck = ck;
        if let Some(b) = args.budget {
            // A new cap on resume: tuning stops at it (at once when it is already spent), and
            // the matches take their share of it.
            ck.plan = Plan::new(&spec, Some(b)).map_err(InputError)?;
            if ck.games >= ck.plan.tuning {
                ck.tuning_done = true;
            }
        }
        ck
    } else {
        let plan = Plan::new(&spec, args.budget).map_err(InputError)?;
        Checkpoint::new(spec, plan)
    };
    let spec = ck.spec.clone();
    if voice == Voice::Normal {
        note!(
            "tuning {} parameter{} of {} ({}) by {}, {}; {} thread{}{}",
            spec.params.len(),
            if spec.params.len() == 1 { "" } else { "s" },
            spec.game,
            spec.engine.describe(),
            spec.method.name(),
            match ck.plan.total {
                Some(t) => format!("at most {t} games"),
                None => format!("{} iterations", spec.iterations.unwrap_or(0)),
            },
            threads,
            if threads == 1 { "" } else { "s" },
            if ck.candidates > 0 {
                format!(" (resuming after candidate {})", ck.candidates)
            } else {
                String::new()
            }
        );
    }

    // Tuning, then the held-out openings (they exclude every position tuning used).
    struct Tune<'a> {
        ck: &'a mut Checkpoint,
        out: &'a Path,
        threads: usize,
        voice: Voice,
    }
    impl FeaturesVisitor for Tune<'_> {
        type Output = anyhow::Result<(Vec<String>, Vec<String>)>;
        fn visit<G: Features>(self, start: G) -> Self::Output {
            let mut progress = TuneProgress::new(self.voice, self.ck);
            let cancel = interrupt::token();
            let result = tune_loop(
                start,
                self.ck,
                self.out,
                self.threads,
                &cancel,
                |line, ck| progress.step(line, ck),
            );
            progress.finish();
            let stream = match result {
                Err(TuneError::Interrupted) => {
                    if self.voice != Voice::Json && self.voice != Voice::Silent {
                        say!(
                            "interrupted after candidate {} ({} games); to continue, run: {}",
                            self.ck.candidates,
                            self.ck.games,
                            super::run::resume_command()
                        )?;
                    }
                    return Err(super::run::Interrupted.into());
                }
                other => other?,
            };
            let spec = &self.ck.spec;
            let confirm = held_out_openings(start, spec, &stream, 0, self.ck.plan.confirm / 2)
                .map_err(|e| anyhow::anyhow!("held-out openings: {e}"))?;
            let aa = held_out_openings(
                start,
                spec,
                &stream,
                self.ck.plan.confirm / 2,
                self.ck.plan.aa / 2,
            )
            .map_err(|e| anyhow::anyhow!("held-out openings: {e}"))?;
            Ok((confirm, aa))
        }
    }
    let (confirm_openings, aa_openings) = joute::eval::dispatch(
        &spec.game_kind(),
        Tune {
            ck: &mut ck,
            out: &out,
            threads,
            voice,
        },
    )?;
    let history = read_history(&history_path, ck.candidates)?;
    let theta = ck.state.theta().to_vec();
    if voice == Voice::Normal {
        let accepted = history.iter().filter(|h| h.accepted).count();
        say!(
            "{}: {} candidates{}, {} games in {:.1} s",
            spec.name,
            history.len(),
            if spec.method == Method::HillClimb {
                format!(" ({accepted} accepted)")
            } else {
                String::new()
            },
            ck.games,
            ck.seconds
        )?;
    }

    // The confirmation and A/A matches, as tournament runs of their own.
    let clock = Instant::now();
    let match_voice = if voice == Voice::Normal {
        Voice::Quiet
    } else {
        Voice::Silent
    };
    let tuned = spec.weights_with(&theta);
    let start_weights = spec.start_weights();
    if voice == Voice::Normal {
        say!(
            "\nconfirmation: tuned against start, {} games on held-out openings",
            ck.plan.confirm
        )?;
    }
    let confirmation = play_match(
        &spec,
        "confirm",
        derive_seed(spec.seed, STREAM_CONFIRM, 0),
        [("tuned", &tuned), ("start", &start_weights)],
        confirm_openings,
        &out,
        threads,
        match_voice,
    )?;
    let aa = if ck.plan.aa > 0 {
        if voice == Voice::Normal {
            say!(
                "\nA/A: start against itself, {} games on held-out openings",
                ck.plan.aa
            )?;
        }
        Some(play_match(
            &spec,
            "aa",
            derive_seed(spec.seed, STREAM_AA, 0),
            [("start-a", &start_weights), ("start-b", &start_weights)],
            aa_openings,
            &out,
            threads,
            match_voice,
        )?)
    } else {
        None
    };
    let match_seconds = clock.elapsed().as_secs_f64();

    // The tuned weights, with how they were made: in the run's folder, and where the user
    // asked for a copy.
    let games = ck.games + confirmation.games + aa.as_ref().map_or(0, |m| m.games);
    let header = weights_header(&spec, &args.spec, &ck, &history, &confirmation, games);
    let in_folder = out.join(TUNED_WEIGHTS);
    write_weights(&spec, &tuned, &header, &in_folder)?;
    if let Some(path) = &copy {
        write_weights(&spec, &tuned, &header, path)?;
    }
    let weights_file = copy.as_ref().unwrap_or(&in_folder).display().to_string();

    let record = TuneRecord {
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
        tuned: theta.clone(),
        sprt: match &spec.hill {
            Some(h) => match h.acceptance {
                joute::tune::hill::Acceptance::Sprt(s) => Some(s),
                joute::tune::hill::Acceptance::Fixed => None,
            },
            None => None,
        },
        history,
        confirmation: Some(confirmation.clone()),
        aa: aa.clone(),
        weights_file: weights_file.clone(),
        games,
        seconds: ck.seconds + match_seconds,
    };
    let summary = summary_json(&record, &out);
    write_atomically(
        &out.join("summary.json"),
        serde_json::to_string_pretty(&summary)?.as_bytes(),
    )
    .with_context(|| format!("cannot write {}", out.join("summary.json").display()))?;
    let report = joute::report::tune::write_tune_report(&record, &out)
        .with_context(|| format!("cannot write the tuning report in {}", out.display()))?;
    let index = report
        .last()
        .cloned()
        .unwrap_or_else(|| out.join("index.html"));

    match voice {
        Voice::Json => {
            let mut object = summary;
            object["report"] = json!(index.display().to_string());
            say!("{object}")?;
        }
        Voice::Silent => {}
        Voice::Normal | Voice::Quiet => {
            say_text!(weights_table(&record))?;
            say!(
                "confirmed: tuned vs start {:+.1} ± {:.1} Elo (95%), LOS {:.2}% over {} games on held-out openings — {}",
                confirmation.elo,
                confirmation.error,
                100.0 * confirmation.los,
                confirmation.games,
                if confirmation.elo - confirmation.error > 0.0 {
                    "the interval is above 0"
                } else {
                    "NOT confirmed: the interval reaches 0"
                }
            )?;
            if let Some(a) = &aa {
                say!(
                    "A/A: start vs start {:+.1} ± {:.1} Elo over {} games — {}",
                    a.elo,
                    a.error,
                    a.games,
                    if a.elo.abs() <= a.error + 1e-9 {
                        "consistent with 0"
                    } else {
                        "WARNING: not 0 within its error"
                    }
                )?;
            }
            say!(
                "{} games in all, {:.1} s; weights: {}{}",
                games,
                record.seconds,
                in_folder.display(),
                copy.as_ref()
                    .map_or(String::new(), |c| format!(", copied to {}", c.display()))
            )?;
            if voice == Voice::Normal {
                say!("report: {}", index.display())?;
            }
        }
    }
    Ok(())
}

/// What `joute tune` shows while it tunes: a bar over the planned candidates (or games) with
/// its ETA on a terminal, accepted candidates above it; on a pipe, accepted candidates and a
/// line every few seconds.
struct TuneProgress {
    voice: Voice,
    bar: Option<ProgressBar>,
    /// Candidates planned (`Some`), or else the games tuning may play.
    candidates: Option<u64>,
    games: u64,
    names: Vec<String>,
    started: Instant,
    at_start: u64,
    shown: Instant,
    previous: Vec<f64>,
}

impl TuneProgress {
    fn new(voice: Voice, ck: &Checkpoint) -> TuneProgress {
        let candidates = ck.spec.iterations;
        let games = ck.plan.tuning;
        let done = match candidates {
            Some(_) => ck.candidates,
            None => ck.games,
        };
        let total = candidates.unwrap_or(games);
        let bar = (voice == Voice::Normal && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(if candidates.is_some() {
                    "{bar:20} {pos}/{len} candidates {wide_msg}"
                } else {
                    "{bar:20} {pos}/{len} games {wide_msg}"
                })
                .expect("a valid template"),
            );
            bar.set_position(done.min(total));
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        TuneProgress {
            voice,
            bar,
            candidates,
            games,
            names: ck.spec.params.iter().map(|p| p.name.clone()).collect(),
            started: Instant::now(),
            at_start: done,
            // The first candidate is shown at once: the run says it is alive.
            shown: Instant::now() - Duration::from_secs(60),
            previous: ck.state.theta().to_vec(),
        }
    }

    fn step(&mut self, line: &HistoryLine, ck: &Checkpoint) {
        let text = progress_line(line, &self.names, &self.previous, ck);
        self.previous = line.theta.clone();
        if self.voice != Voice::Normal {
            return;
        }
        let (done, total) = match self.candidates {
            Some(n) => (ck.candidates, n),
            None => (ck.games, self.games),
        };
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = super::run::eta_seconds(
            done.saturating_sub(self.at_start),
            total.saturating_sub(done),
            elapsed,
        );
        let accepted = line.accepted && line.method == "hill-climb";
        match &self.bar {
            Some(bar) => {
                if accepted {
                    bar.println(&text);
                }
                bar.set_position(done.min(total));
                bar.set_message(format!(
                    "ETA {}  {} games  {text}",
                    super::run::short_duration(eta),
                    ck.games
                ));
            }
            None => {
                if accepted || self.shown.elapsed() >= Duration::from_secs(5) {
                    self.shown = Instant::now();
                    note!("{text}; ETA {}", super::run::short_duration(eta));
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

/// One progress line: a hill-climbing candidate and its verdict, or an SPSA iteration as what
/// it is — θ+ against θ− and where θ moved (`previous`: θ before it).
fn progress_line(
    line: &HistoryLine,
    names: &[String],
    previous: &[f64],
    ck: &Checkpoint,
) -> String {
    if line.method == "spsa" {
        let moved: Vec<String> = names
            .iter()
            .zip(&line.theta)
            .zip(previous)
            .take(4)
            .map(|((name, &now), &before)| format!("{name} {} ({:+.2})", short(now), now - before))
            .collect();
        let more = if names.len() > 4 { ", …" } else { "" };
        return format!(
            "iteration {}: θ+ vs θ− {}/{}/{}; θ: {}{more}; {} games, {:.0} s",
            line.k,
            line.wins,
            line.draws,
            line.losses,
            moved.join(", "),
            ck.games,
            ck.seconds
        );
    }
    progress_candidate(line, names, ck)
}

/// A hill-climbing candidate's line.
fn progress_candidate(line: &HistoryLine, names: &[String], ck: &Checkpoint) -> String {
    let moved: Vec<String> = line
        .moved
        .iter()
        .take(4)
        .map(|&i| format!("{} {}", names[i], short(line.candidate[i])))
        .collect();
    let more = if line.moved.len() > 4 { ", …" } else { "" };
    let llr = line.llr.map_or(String::new(), |l| format!(", LLR {l:.2}"));
    let verdict = if line.accepted {
        " accepted"
    } else {
        " rejected"
    };
    format!(
        "candidate {}: {}{more}: {} pairs, {:+.1} ± {:.1} Elo{llr}{verdict}; {} games, {:.0} s",
        line.k,
        moved.join(", "),
        line.pairs,
        line.elo,
        line.elo_error,
        ck.games,
        ck.seconds
    )
}

/// A weight, short.
fn short(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Plays `engines` (name, full weight vector) on `openings` as a tournament run in
/// `out/folder`, resuming what is there, and returns the first engine's result.
#[allow(clippy::too_many_arguments)]
fn play_match(
    spec: &ResolvedTuneSpec,
    folder: &str,
    seed: u64,
    engines: [(&str, &[f64]); 2],
    openings: Vec<String>,
    out: &Path,
    threads: usize,
    voice: Voice,
) -> anyhow::Result<MatchResult> {
    let engine = |name: &str, weights: &[f64]| ResolvedEngine {
        name: name.to_string(),
        weights_origin: if name == "tuned" {
            TUNED_WEIGHTS.to_string()
        } else {
            spec.engine.weights_origin.clone()
        },
        weights: spec
            .engine
            .weights
            .iter()
            .map(|(n, _)| n.clone())
            .zip(weights.iter().copied())
            .collect(),
        ..spec.engine.clone()
    };
    let count = openings.len() as u32;
    let resolved = ResolvedSpec {
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
        engines: vec![
            engine(engines[0].0, engines[0].1),
            engine(engines[1].0, engines[1].1),
        ],
        anchor: Some(Anchor {
            engine: engines[1].0.to_string(),
            elo: 0.0,
        }),
        sprt: None,
    };
    let tournament = TournamentSpec::from_resolved(resolved);
    let dir = out.join(folder);
    play(&tournament, &dir, None, true, threads, voice, true)?;
    let log = dir.join("games.jsonl");
    let (_, summary, _) =
        summarize_logs(std::slice::from_ref(&log)).map_err(|e| anyhow::anyhow!(e))?;
    let p = summary
        .pairings
        .first()
        .context("the match has no pairing")?;
    // Pairing A is the first engine (the lower spec index).
    let mut trial = joute::tune::objective::Trial::default();
    for (i, &n) in p.pentanomial.0.iter().enumerate() {
        trial.diffs[2 * i] = n;
    }
    let (elo, error) = trial.estimate();
    // -0.0 reads as a loss in a table.
    let elo = if elo == 0.0 { 0.0 } else { elo };
    Ok(MatchResult {
        games: p.wdl.games(),
        wins: p.wdl.wins,
        draws: p.wdl.draws,
        losses: p.wdl.losses,
        pentanomial: p.pentanomial.0,
        elo,
        error,
        los: p.estimate().los,
        report: format!("{folder}/index.html"),
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
         {} candidates{}, {} tuning games, {} games in all.\n\
         Confirmed against the start on {} held-out games: {:+.1} ± {:.1} Elo (95%), LOS {:.2}%.",
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
        if spec.method == Method::HillClimb {
            format!(" ({accepted} accepted)")
        } else {
            String::new()
        },
        ck.games,
        games,
        confirmation.games,
        confirmation.elo,
        confirmation.error,
        100.0 * confirmation.los
    )
}

/// The tuned weights in the run's folder.
const TUNED_WEIGHTS: &str = "tuned-weights.toml";

/// Whether files can be created in `dir` (a temporary file is made and removed).
fn check_writable(dir: &Path) -> std::io::Result<()> {
    tempfile::NamedTempFile::new_in(dir).map(drop)
}

/// The copy of the tuned weights the user asked for: refused before any game when it would
/// replace a file without `--force`, or cannot be written.
fn check_weights_copy(path: &Path, force: bool) -> anyhow::Result<()> {
    if path.is_dir() {
        return Err(InputError(format!(
            "{}: a folder, not a weights file; name a .toml file",
            path.display()
        ))
        .into());
    }
    if path.exists() && !force {
        return Err(InputError(format!(
            "{} exists: the tuned weights would replace it; add --force to replace it, or name another file (--write-weights PATH); they are always in the run's folder as {TUNED_WEIGHTS}",
            path.display()
        ))
        .into());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    check_writable(parent).map_err(|e| {
        InputError(format!(
            "{}: the tuned weights cannot be written there: {e}",
            path.display()
        ))
    })?;
    Ok(())
}

/// Writes a tuned weights file (temporary file, then rename).
fn write_weights(
    spec: &ResolvedTuneSpec,
    values: &[f64],
    header: &str,
    path: &Path,
) -> anyhow::Result<()> {
    struct Text<'a> {
        values: &'a [f64],
        header: &'a str,
    }
    impl FeaturesVisitor for Text<'_> {
        type Output = String;
        fn visit<G: Features>(self, start: G) -> String {
            Weights {
                game: start.name(),
                values: self.values.to_vec(),
                origin: "tuned".into(),
            }
            .to_toml(&start, self.header)
        }
    }
    let text = joute::eval::dispatch(&spec.game_kind(), Text { values, header });
    write_atomically(path, text.as_bytes())
        .with_context(|| format!("cannot write the tuned weights to {}", path.display()))
}

/// The run's outcome as JSON (`summary.json`, and `--json`).
fn summary_json(record: &TuneRecord, out: &Path) -> serde_json::Value {
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
        "params": record.params.iter().zip(&record.tuned).map(|(p, t)| json!({
            "name": p.name, "min": p.min, "max": p.max, "start": p.value, "tuned": t,
        })).collect::<Vec<_>>(),
        "confirmation": record.confirmation,
        "aa": record.aa,
        "out": out.display().to_string(),
    })
}

/// The final weights, start → tuned, with the ones at a bound flagged.
fn weights_table(record: &TuneRecord) -> String {
    let width = record
        .params
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(4)
        .max(9);
    let mut s = format!(
        "{:<width$} {:>9} {:>9} {:>9} {:>9}\n",
        "parameter", "start", "tuned", "min", "max"
    );
    for (p, &t) in record.params.iter().zip(&record.tuned) {
        let at_bound =
            (t - p.min).abs() <= 1e-9 * p.range() || (t - p.max).abs() <= 1e-9 * p.range();
        s.push_str(&format!(
            "{:<width$} {:>9} {:>9} {:>9} {:>9}{}\n",
            p.name,
            short(p.value),
            short(t),
            short(p.min),
            short(p.max),
            if at_bound { "  at bound" } else { "" }
        ));
    }
    s
}

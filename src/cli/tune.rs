//! `joute tune`: a tuning session (`tune::session`) with its progress shown, and its outcome
//! rendered.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use super::interrupt;
use super::run::{Voice, threads, voice};
use super::{InputError, TuneArgs};
use joute::tune::aa::{AaCheck, AaVerdict};
use joute::tune::record::{HistoryLine, MatchResult, TuneRecord};
use joute::tune::run::{Checkpoint, TuneError};
use joute::tune::session::{MatchKind, TuneOptions, TuneSession};
use joute::tune::spec::{Method, load};

/// `joute tune SPEC`.
pub fn tune(args: &TuneArgs) -> anyhow::Result<()> {
    let spec = load(&args.spec).map_err(|e| InputError(e.to_string()))?;
    let threads = threads(args.threads)?;
    let voice = voice(args.quiet, args.json);
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("reports").join(&spec.name));
    let options = TuneOptions {
        resume: args.resume,
        budget: args.budget,
        write_weights: args.write_weights.clone(),
        force: args.force,
    };
    let mut session = TuneSession::open(spec, &out, &options).map_err(tune_error)?;
    let ck = &session.ck;
    let spec = ck.spec.clone();
    if voice == Voice::Normal {
        note!(
            "tuning {} parameter{} of {} ({}) by {}, {}; {} thread{}{}",
            spec.params.len(),
            if spec.params.len() == 1 { "" } else { "s" },
            spec.game,
            spec.engine.describe(),
            spec.method.name(),
            match (&spec.regression, ck.plan.total) {
                (Some(r), total) => format!(
                    "{} round{} of {} self-play games{}",
                    r.rounds,
                    if r.rounds == 1 { "" } else { "s" },
                    r.games,
                    total.map_or(String::new(), |t| format!(", at most {t} games in all"))
                ),
                (None, Some(t)) => format!("at most {t} games"),
                (None, None) => format!("{} iterations", spec.iterations.unwrap_or(0)),
            },
            threads,
            if threads == 1 { "" } else { "s" },
            if ck.candidates > 0 {
                format!(" (resuming after candidate {})", ck.candidates)
            } else {
                String::new()
            }
        );
        let reasons = joute::tune::outside::not_reproducible(&spec);
        if let Some(note) = joute::tune::outside::not_reproducible_note(&reasons) {
            note!("{note}");
        }
    }

    // Tuning, then the held-out openings (they exclude every position tuning used).
    let cancel = interrupt::token();
    let mut progress = TuneProgress::new(voice, &session.ck);
    let held = session.tune(threads, &cancel, |line, ck| progress.step(line, ck));
    progress.finish();
    let held = match held {
        Err(TuneError::Interrupted) => {
            if voice != Voice::Json && voice != Voice::Silent {
                say!(
                    "interrupted after candidate {} ({} games); to continue, run: {}",
                    session.ck.candidates,
                    session.ck.games,
                    interrupt::resume_command()
                )?;
            }
            return Err(super::run::Interrupted.into());
        }
        other => other.map_err(tune_error)?,
    };
    if voice == Voice::Normal {
        let history = session.history().map_err(tune_error)?;
        let accepted = history.iter().filter(|h| h.accepted).count();
        say!(
            "{}: {} {}{}, {} games in {:.1} s",
            spec.name,
            history.len(),
            if spec.method == Method::Regression {
                "rounds"
            } else {
                "candidates"
            },
            if spec.method == Method::HillClimb {
                format!(" ({accepted} accepted)")
            } else {
                String::new()
            },
            session.ck.games,
            session.ck.seconds
        )?;
    }

    // The confirmation and A/A matches, as tournament runs of their own.
    let clock = Instant::now();
    let mut matches = Vec::new();
    for (kind, openings) in [(MatchKind::Confirm, held.confirm), (MatchKind::Aa, held.aa)] {
        if voice == Voice::Normal {
            match kind {
                MatchKind::Confirm => say!(
                    "\nconfirmation: tuned against start, {} games on held-out openings",
                    session.ck.plan.confirm
                )?,
                MatchKind::Aa if session.ck.plan.aa > 0 => say!(
                    "\nA/A: start against itself, {} games on held-out openings, each copy choosing at random among equally good moves",
                    session.ck.plan.aa
                )?,
                MatchKind::Aa => {}
            }
        }
        let mut observer = super::run::MatchProgress::new(voice, threads);
        let played = session.play_match(kind, openings, threads, &mut observer, &cancel);
        observer.finish();
        match played {
            Err(TuneError::Interrupted) => {
                if voice != Voice::Json && voice != Voice::Silent {
                    say!(
                        "interrupted during the {} match; its games so far are in {}; to continue, run: {}",
                        kind.folder(),
                        out.join(kind.folder()).display(),
                        interrupt::resume_command()
                    )?;
                }
                return Err(super::run::Interrupted.into());
            }
            other => {
                let played = other.map_err(tune_error)?;
                if let Some(played) = &played
                    && voice == Voice::Normal
                {
                    say_text!(joute::report::table::rating_table(&played.rows))?;
                    say_text!(played.scale.lines())?;
                }
                matches.push(played.map(|p| (p.result, p.check)));
            }
        }
    }
    let match_seconds = clock.elapsed().as_secs_f64();
    let aa = matches
        .pop()
        .flatten()
        .and_then(|(result, check)| check.map(|c| (result, c)));
    let (confirmation, _) = matches
        .pop()
        .flatten()
        .context("the confirmation match played no games")?;

    // The tuned weights, with how they were made: in the run's folder, and where the user
    // asked for a copy; summary.json and the report.
    let finished = session
        .finish(&args.spec, confirmation, aa, match_seconds)
        .map_err(tune_error)?;
    let record = &finished.record;
    match voice {
        Voice::Json => {
            let mut object = finished.summary.clone();
            object["report"] = json!(finished.report.display().to_string());
            say!("{object}")?;
        }
        Voice::Silent => {}
        Voice::Normal | Voice::Quiet => {
            let confirmation = record.confirmation.as_ref().expect("set by finish");
            say_text!(weights_table(record))?;
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
            if let (Some(a), Some(check)) = (&record.aa, &finished.aa_check) {
                say!("{}", aa_line(a, check))?;
            }
            if let Some(o) = &record.outside {
                say!("{}", o.options)?;
                if let Some(note) = joute::tune::outside::not_reproducible_note(&o.not_reproducible)
                {
                    say!("{note}")?;
                }
            }
            say!(
                "{} games in all, {:.1} s; {}: {}{}",
                record.games,
                record.seconds,
                if record.outside.is_some() {
                    "options"
                } else {
                    "weights"
                },
                finished.weights.display(),
                finished
                    .copy
                    .as_ref()
                    .map_or(String::new(), |c| format!(", copied to {}", c.display()))
            )?;
            if voice == Voice::Normal {
                say!("report: {}", finished.report.display())?;
            }
        }
    }
    Ok(())
}

/// The A/A match's line: its result and verdict (`docs/statistics.md`, "Tuning").
fn aa_line(a: &MatchResult, check: &AaCheck) -> String {
    let result = format!(
        "start vs start {:+.1} ± {:.1} Elo (95%) over {} games ({} of {} pairs played two different games)",
        a.elo, a.error, a.games, check.distinct_pairs, check.pairs
    );
    match check.verdict {
        AaVerdict::Pass => format!("A/A: {result} — pass: {}", check.reason),
        AaVerdict::Fail => format!("A/A: {result} — FAIL: {}", check.reason),
        AaVerdict::NotMeaningful => {
            format!("A/A not meaningful: {} ({result})", check.reason)
        }
    }
}

/// A tuning error as the command line reports it: refused input exits 2.
fn tune_error(e: TuneError) -> anyhow::Error {
    match e {
        TuneError::Input(text) => InputError(text).into(),
        other => anyhow::anyhow!(other),
    }
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
        let games = match &ck.spec.regression {
            Some(r) => ck.plan.tuning.min(r.games * r.rounds as u64),
            None => ck.plan.tuning,
        };
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
        // Hill climbing's accepted candidates and every regression round stay on screen.
        let accepted = line.accepted && line.method == "hill-climb" || line.fit.is_some();
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
    if let Some(fit) = &line.fit {
        return format!(
            "round {}: {} self-play games ({}/{}/{}); fitted on {} positions of {} games in {:.1} s: mean log loss {:.4} -> {:.4}, K = {:.3e}{}; {} games, {:.0} s",
            line.k,
            line.games,
            line.wins,
            line.draws,
            line.losses,
            fit.positions,
            fit.games,
            fit.seconds,
            fit.start_loss,
            fit.loss,
            fit.k,
            if fit.converged {
                ""
            } else {
                " (not converged)"
            },
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

/// The final weights, start → tuned, with the ones at a bound flagged.
fn weights_table(record: &TuneRecord) -> String {
    let width = record
        .params
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(4)
        .max(9);
    if record.method == "regression" {
        // Regression fits every feature, unbounded: no bounds to show.
        let mut s = format!("{:<width$} {:>9} {:>9}\n", "feature", "start", "fitted");
        for (p, &t) in record.params.iter().zip(&record.tuned) {
            s.push_str(&format!(
                "{:<width$} {:>9} {:>9}\n",
                p.name,
                short(p.value),
                short(t)
            ));
        }
        return s;
    }
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

//! `joute tune`: a tuning session (`tune::session`) run with its progress shown, and its
//! outcome rendered.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use super::interrupt;
use super::interrupt::resume_command;
use super::meter::{Meter, eta_seconds, short_duration};
use super::run::{Interrupted, MatchProgress, Voice, threads, voice};
use super::serve;
use super::{InputError, TuneArgs};
use joute::arena::schedule::Shard;
use joute::outputs::number_text;
use joute::serve::{Source, TuneFolder};
use joute::tournament::Observer;
use joute::tune::aa::{AaCheck, AaVerdict};
use joute::tune::checkpoint::{Checkpoint, MatchKind, Stage, TuneError};
use joute::tune::record::{HistoryLine, MatchResult, TuneRecord, elo_interval_text, sent_text};
use joute::tune::session::shard::ShardSession;
use joute::tune::session::{Finished, PlayedMatch, TuneObserver, TuneOptions, TuneSession};
use joute::tune::spec::{Method, ResolvedTuneSpec, load};

/// `joute tune SPEC`.
pub fn tune(args: &TuneArgs) -> anyhow::Result<()> {
    if let Some(shard) = &args.shard {
        return tune_shard(args, shard);
    }
    let (spec, out, options) = tune_options(args)?;
    let threads = threads(args.threads)?;
    let voice = voice(args.quiet, args.json);
    let addr = args.serve.as_deref().map(serve::address).transpose()?;
    let mut session = TuneSession::open(spec, &out, &options)?;
    if voice == Voice::Normal {
        if let Some(removed) = session.removed() {
            super::run::say_fresh(&out, removed.files, &removed.kept);
        }
        say_plan(&session.ck, threads);
    }
    if voice != Voice::Silent {
        for warning in joute::tune::outside::schedule_warnings(&session.ck.spec) {
            note!("warning: {warning}");
        }
    }
    let live = serve_live(addr, &out, &session.ck)?;
    let cancel = interrupt::token();
    let mut progress = TuneProgress::new(voice, threads, &session.ck);
    let finished = session.run(&args.spec, threads, &mut progress, &cancel);
    progress.finish();
    drop(live); // the open pages hear that the run ended, and fetch its last state
    match finished {
        Ok(finished) => render(&finished, voice),
        Err(TuneError::Interrupted(stage)) => {
            if voice != Voice::Json && voice != Voice::Silent {
                match stage {
                    Stage::Tuning => say!(
                        "interrupted after candidate {} ({} games); to continue, run: {}",
                        session.ck.candidates,
                        session.ck.games,
                        resume_command()
                    )?,
                    Stage::Match(kind) => say!(
                        "interrupted during the {} match; its games so far are in {}; to continue, run: {}",
                        kind.folder(),
                        out.join(kind.folder()).display(),
                        resume_command()
                    )?,
                }
            }
            Err(Interrupted.into())
        }
        // A closed output: `main` ends quietly on it.
        Err(TuneError::Observer(e)) => Err(e.into()),
        Err(e) => Err(e.into()),
    }
}

/// `joute tune SPEC --shard I/N`: one shard of a sharded regression run.
fn tune_shard(args: &TuneArgs, shard: &str) -> anyhow::Result<()> {
    let shard = Shard::parse(shard).map_err(|e| InputError(format!("--shard: {e}")))?;
    let (spec, out, options) = tune_options(args)?;
    let threads = threads(args.threads)?;
    let voice = voice(args.quiet, args.json);
    let addr = args.serve.as_deref().map(serve::address).transpose()?;
    let mut session = ShardSession::open(spec, &out, shard, &options)?;
    let name = format!("{}/{}", shard.index, shard.count);
    if voice == Voice::Normal {
        say_plan(&session.ck, threads);
        note!(
            "shard {name}: the self-play games whose id is {} mod {}, into {}",
            shard.index,
            shard.count,
            out.join(shard.folder_name()).display()
        );
    }
    let live = serve_live(addr, &out, &session.ck)?;
    let cancel = interrupt::token();
    let mut progress = TuneProgress::new(voice, threads, &session.ck);
    let ended = session.run(&args.spec, threads, &mut progress, &cancel);
    progress.finish();
    drop(live);
    let end = match ended {
        Ok(end) => end,
        Err(TuneError::Interrupted(stage)) => {
            if voice != Voice::Json && voice != Voice::Silent {
                let when = match stage {
                    Stage::Tuning => "the other shards wait for it".to_string(),
                    Stage::Match(kind) => format!("during the {} match", kind.folder()),
                };
                say!(
                    "shard {name} interrupted ({when}); to continue it, run: {}",
                    resume_command()
                )?;
            }
            return Err(Interrupted.into());
        }
        Err(e) => return Err(e.into()),
    };
    match (&end.finished, voice) {
        (Some(finished), _) => render(finished, voice)?,
        (None, Voice::Json) => say!(
            "{}",
            json!({
                "shard": name,
                "tuned": true,
                "rounds": session.ck.candidates,
                "games": session.ck.games,
                "matches_by": end.matches_by,
                "waited_seconds": end.waited,
                "out": out.display().to_string(),
            })
        )?,
        (None, Voice::Silent) => {}
        (None, Voice::Normal | Voice::Quiet) => say!(
            "shard {name}: tuning done ({} rounds, {} games); shard {}/{} plays the confirmation and A/A matches and writes the results in {}",
            session.ck.candidates,
            session.ck.games,
            end.matches_by,
            shard.count,
            out.display()
        )?,
    }
    if matches!(voice, Voice::Normal | Voice::Quiet) {
        say!(
            "shard {name} waited {:.1} s for the other shards' games and the fits",
            end.waited
        )?;
    }
    Ok(())
}

/// The tuning page of the run in `out`, served live on `addr` (`--serve`) while it runs.
fn serve_live(
    addr: Option<std::net::SocketAddr>,
    out: &Path,
    ck: &Checkpoint,
) -> anyhow::Result<Option<joute::serve::LiveServer>> {
    addr.map(|addr| {
        let folder = TuneFolder {
            dir: out.to_path_buf(),
            start: Some(ck.clone()),
        };
        serve::serve_on(addr, Source::Tune(Box::new(folder)))
    })
    .transpose()
}

/// The spec, the run's folder and how to open it, from the arguments.
fn tune_options(args: &TuneArgs) -> anyhow::Result<(ResolvedTuneSpec, PathBuf, TuneOptions)> {
    let spec = load(&args.spec).map_err(|e| InputError(e.to_string()))?;
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("reports").join(joute::outputs::file_name(&spec.name, ""))
    });
    let options = TuneOptions {
        resume: args.resume,
        budget: args.budget,
        write_weights: args.write_weights.clone(),
        force: args.force,
        fresh: args.fresh,
        inputs: vec![args.spec.clone()],
    };
    Ok((spec, out, options))
}

/// What the run will do, before it starts.
fn say_plan(ck: &Checkpoint, threads: usize) {
    let spec = &ck.spec;
    let what = match spec.patterns() {
        Some(p) => format!(
            "the pattern evaluation ({} phases, overlap {}{}{})",
            p.phases,
            p.overlap,
            if p.counts { "" } else { ", count weights held" },
            p.margin_labels
                .map(|s| format!(", labels σ(margin/{})", number_text(s)))
                .unwrap_or_default()
        ),
        None => format!(
            "{} parameter{}",
            spec.params.len(),
            if spec.params.len() == 1 { "" } else { "s" }
        ),
    };
    note!(
        "tuning {what} of {} ({}) by {}, {}; {} thread{}{}",
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
    let reasons = joute::tune::outside::not_reproducible(spec);
    if let Some(note) = joute::tune::outside::not_reproducible_note(&reasons) {
        note!("{note}");
    }
}

/// The run's outcome: the tuned weights, the matches' verdicts, where the files are.
fn render(finished: &Finished, voice: Voice) -> anyhow::Result<()> {
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
            match &confirmation.skipped {
                Some(reason) => say!("confirmation not played: {reason}")?,
                None => say!(
                    "confirmed: tuned vs start {} Elo{}, LOS {:.2}% over {} games on held-out openings — {}",
                    confirmation.elo_text(),
                    if confirmation.has_interval() {
                        " (95%)"
                    } else {
                        ""
                    },
                    100.0 * confirmation.los,
                    confirmation.games,
                    if !confirmation.has_interval() {
                        "NOT confirmed: no interval to judge by"
                    } else if confirmation.elo - confirmation.error > 0.0 {
                        "the interval is above 0"
                    } else {
                        "NOT confirmed: the interval reaches 0"
                    }
                )?,
            }
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
        "start vs start {} Elo{} over {} games ({} of {} pairs played two different games)",
        a.elo_text(),
        if a.has_interval() { " (95%)" } else { "" },
        a.games,
        check.distinct_pairs,
        check.pairs
    );
    match check.verdict {
        AaVerdict::Pass => format!("A/A: {result} — pass: {}", check.reason),
        AaVerdict::Fail => format!("A/A: {result} — FAIL: {}", check.reason),
        AaVerdict::NotMeaningful => {
            format!("A/A not meaningful: {} ({result})", check.reason)
        }
    }
}

/// What `joute tune` shows while it runs: while it tunes, a bar over the planned candidates
/// (or games) with its ETA on a terminal, accepted candidates above it, and on a pipe, accepted
/// candidates and a line every few seconds; then the matches, as `joute match` shows them, and
/// their tables.
struct TuneProgress {
    voice: Voice,
    threads: usize,
    meter: Meter,
    /// Candidates planned (`Some`), or else the games tuning may play.
    candidates: Option<u64>,
    games: u64,
    names: Vec<String>,
    started: Instant,
    at_start: u64,
    previous: Vec<f64>,
    /// The match being played.
    matches: MatchProgress,
}

impl TuneProgress {
    fn new(voice: Voice, threads: usize, ck: &Checkpoint) -> TuneProgress {
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
        let template = if candidates.is_some() {
            "{bar:20} {pos}/{len} candidates {wide_msg}"
        } else {
            "{bar:20} {pos}/{len} games {wide_msg}"
        };
        // The first candidate is shown at once: the run says it is alive.
        let meter = Meter::new(
            voice == Voice::Normal,
            total,
            done.min(total),
            template,
            true,
        );
        TuneProgress {
            voice,
            threads,
            meter,
            candidates,
            games,
            names: ck.spec.params.iter().map(|p| p.name.clone()).collect(),
            started: Instant::now(),
            at_start: done,
            previous: ck.state.theta().to_vec(),
            matches: MatchProgress::new(voice, threads),
        }
    }

    fn finish(&mut self) {
        self.meter.finish();
        self.matches.finish();
    }
}

impl TuneObserver for TuneProgress {
    fn waiting(&mut self, what: &str) {
        if self.voice == Voice::Normal {
            self.meter.line(&format!("waiting for {what}"));
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
        let eta = short_duration(eta_seconds(
            done.saturating_sub(self.at_start),
            total.saturating_sub(done),
            elapsed,
        ));
        // Hill climbing's accepted candidates and every regression round stay on screen.
        let accepted = line.accepted && line.method == "hill-climb" || line.fit.is_some();
        if accepted {
            self.meter.above(&text);
        }
        self.meter.show(
            done.min(total),
            accepted,
            || format!("ETA {eta}  {} games  {text}", ck.games),
            || format!("{text}; ETA {eta}"),
        );
    }

    fn tuned(&mut self, ck: &Checkpoint, history: &[HistoryLine]) -> std::io::Result<()> {
        self.meter.finish();
        if self.voice != Voice::Normal {
            return Ok(());
        }
        let spec = &ck.spec;
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
            ck.games,
            ck.seconds
        )
    }

    fn match_skipped(&mut self, kind: MatchKind, reason: &str) -> std::io::Result<()> {
        if self.voice == Voice::Normal {
            let what = match kind {
                MatchKind::Confirm => "confirmation",
                MatchKind::Aa => "A/A match",
            };
            say!("\n{what} skipped: {reason}")?;
        }
        Ok(())
    }

    fn match_starting(&mut self, kind: MatchKind, games: u64) -> std::io::Result<()> {
        if self.voice == Voice::Normal {
            match kind {
                MatchKind::Confirm => {
                    say!("\nconfirmation: tuned against start, {games} games on held-out openings")?
                }
                MatchKind::Aa if games > 0 => say!(
                    "\nA/A: start against itself, {games} games on held-out openings, each copy choosing at random among equally good moves"
                )?,
                MatchKind::Aa => {}
            }
        }
        self.matches = MatchProgress::new(self.voice, self.threads);
        Ok(())
    }

    fn games(&mut self) -> &mut dyn Observer {
        &mut self.matches
    }

    fn match_played(&mut self, _: MatchKind, played: &PlayedMatch) -> std::io::Result<()> {
        self.matches.finish();
        if self.voice == Voice::Normal {
            say_text!(joute::report::table::rating_table(&played.rows))?;
            say_text!(played.scale.lines())?;
        }
        Ok(())
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
            "round {}: {} self-play games ({}/{}/{}); fitted on {} positions of {} games in {:.1} s: mean log loss {:.4} -> {:.4}, {}{}; {} games, {:.0} s",
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
            match ck.spec.patterns() {
                Some(p) => format!("pattern weights in {} phases", p.phases),
                None => format!("K = {:.3e}", fit.k),
            },
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
        "candidate {}: {}{more}: {} pairs, {} Elo{llr}{verdict}; {} games, {:.0} s",
        line.k,
        moved.join(", "),
        line.pairs,
        elo_interval_text(line.elo, line.elo_error),
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
    if record.weights_file.ends_with(".jpw") {
        return format!("pattern weights fitted: {}\n", record.weights_file);
    }
    if record.method == "regression" {
        // Regression fits every feature, unbounded: no bounds to show; a tapered fit has two
        // vectors, the opening's and the endgame's.
        let mut s = match &record.tuned_endgame {
            Some(_) => format!(
                "{:<width$} {:>9} {:>9} {:>9}\n",
                "feature", "start", "opening", "endgame"
            ),
            None => format!("{:<width$} {:>9} {:>9}\n", "feature", "start", "fitted"),
        };
        for (i, (p, &t)) in record.params.iter().zip(&record.tuned).enumerate() {
            s.push_str(&format!(
                "{:<width$} {:>9} {:>9}",
                p.name,
                short(p.value),
                short(t)
            ));
            if let Some(endgame) = &record.tuned_endgame {
                let e = endgame.get(i).map_or("-".into(), |&e| short(e));
                s.push_str(&format!(" {e:>9}"));
            }
            s.push('\n');
        }
        return s;
    }
    // An option's tuned value is what the program got, with the estimate behind it.
    let sent = record.outside.as_ref().map(|o| &o.sent);
    let tuned: Vec<String> = (record.tuned.iter().enumerate())
        .map(|(i, &t)| match sent.and_then(|s| s.get(i)) {
            Some(sent) => sent_text(sent, t),
            None => short(t),
        })
        .collect();
    let tuned_width = tuned.iter().map(String::len).max().unwrap_or(9).max(9);
    let mut s = format!(
        "{:<width$} {:>9} {:>tuned_width$} {:>9} {:>9}\n",
        "parameter", "start", "tuned", "min", "max"
    );
    for ((p, &t), tuned) in record.params.iter().zip(&record.tuned).zip(&tuned) {
        let at_bound =
            (t - p.min).abs() <= 1e-9 * p.range() || (t - p.max).abs() <= 1e-9 * p.range();
        s.push_str(&format!(
            "{:<width$} {:>9} {tuned:>tuned_width$} {:>9} {:>9}{}\n",
            p.name,
            short(p.value),
            short(p.min),
            short(p.max),
            if at_bound { "  at bound" } else { "" }
        ));
    }
    s
}

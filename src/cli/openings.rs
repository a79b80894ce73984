//! `joute openings`: generates an opening suite (the logic is in `joute::arena::suites`).

use std::io::Write;
use std::time::Instant;

use serde_json::json;

use super::{InputError, OpeningsArgs};
use joute::arena::suites::{self, OTHELLO_DEPTH, OTHELLO_MAX_SCORE};
use joute::eval::Weights;
use joute::games::{GameKind, Morpion, Othello};

/// A bar of the openings found, with the time left, on stderr when it is a terminal (a suite
/// of 100 Connect 4 openings takes minutes).
fn progress_bar(count: u32) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(count.into());
    let style = indicatif::ProgressStyle::with_template(
        "{bar:30} {pos}/{len} openings, {elapsed} elapsed, about {eta} left",
    )
    .expect("a valid template");
    bar.set_style(style);
    Some(bar)
}

/// Runs `joute openings`.
pub(super) fn run(args: &OpeningsArgs) -> anyhow::Result<()> {
    if args.count == 0 || args.count > 100_000 {
        return Err(InputError(format!("--count is {}; allowed: 1..=100000", args.count)).into());
    }
    let started = Instant::now();
    let bar = progress_bar(args.count);
    let progress = &mut |n: u32| {
        if let Some(bar) = &bar {
            bar.set_position(n.into());
        }
    };
    let suite = match args.game {
        GameKind::Connect4 => {
            if args.depth.is_some() {
                return Err(InputError(
                    "--depth applies to othello only; Connect 4 openings are solved exactly".into(),
                )
                .into());
            }
            let max_score = args.max_score.unwrap_or(2.0);
            if !(0.0..=22.0).contains(&max_score) || max_score.fract() != 0.0 {
                return Err(InputError(format!(
                    "--max-score is {max_score}; for connect4 a whole number in 0..=22"
                ))
                .into());
            }
            suites::connect4_suite(
                args.plies.unwrap_or(6),
                args.count,
                args.seed,
                max_score as i32,
                progress,
            )
        }
        GameKind::Othello => {
            let depth = args.depth.unwrap_or(OTHELLO_DEPTH);
            if !(1..=12).contains(&depth) {
                return Err(InputError(format!("--depth is {depth}; allowed: 1..=12")).into());
            }
            let max_score = args.max_score.unwrap_or(OTHELLO_MAX_SCORE);
            if max_score.is_nan() || max_score < 0.0 {
                return Err(InputError(format!(
                    "--max-score is {max_score}; it must be 0 or more"
                ))
                .into());
            }
            let start = Othello::start();
            suites::othello_suite(
                args.plies.unwrap_or(8),
                args.count,
                args.seed,
                depth,
                max_score,
                &Weights::default_for(&start),
                progress,
            )
        }
        GameKind::Morpion {
            rows,
            cols,
            k,
            rule,
        } => {
            if args.max_score.is_some() {
                return Err(InputError(
                    "--max-score applies to connect4 and othello; Morpion openings are rejected only when the search finds a forced result".into(),
                )
                .into());
            }
            let depth = args.depth.unwrap_or(2);
            if !(0..=6).contains(&depth) {
                return Err(InputError(format!("--depth is {depth}; for morpion 0..=6")).into());
            }
            suites::morpion_suite(
                Morpion::with_rule(rows, cols, k, rule),
                args.plies.unwrap_or(4),
                args.count,
                args.seed,
                depth,
                progress,
            )
        }
        other => {
            return Err(InputError(format!(
                "joute openings makes suites for connect4, othello and morpion; not for {other}"
            ))
            .into());
        }
    }
    .map_err(InputError)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let command = std::iter::once("joute".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let text = suite.to_file(&command, args.seed);
    if let Some(path) = &args.out {
        std::fs::write(path, &text)
            .map_err(|e| InputError(format!("cannot write {}: {e}", path.display())))?;
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let value = json!({
            "game": args.game.to_string(),
            "seed": args.seed,
            "method": suite.method,
            "candidates": suite.candidates,
            "openings": suite.lines.iter().map(|l| json!({"moves": l.moves, "score": l.score})).collect::<Vec<_>>(),
            "out": args.out.as_ref().map(|p| p.display().to_string()),
            "seconds": started.elapsed().as_secs_f64(),
        });
        writeln!(stdout, "{value}")?;
    } else if let Some(path) = &args.out {
        eprintln!(
            "wrote {} openings ({} candidates) to {} in {:.1} s",
            suite.lines.len(),
            suite.candidates,
            path.display(),
            started.elapsed().as_secs_f64()
        );
    } else {
        write!(stdout, "{text}")?;
    }
    Ok(())
}

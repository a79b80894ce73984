//! `joute solve`: exact values of positions, one at a time or a whole test suite checked
//! against its known values.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use serde_json::{Value, json};

use super::{InputError, SolveArgs};
use joute::games::{GameKind, Side};
use joute::search::WIN_THRESHOLD;
use joute::search::solver::position::{Limits, Solved, solve_position};
use joute::search::solver::suite::{Checked, SuiteError, check_suite};
use joute::search::solver::{Solution, StopReason, Stopped};

/// The largest `--nodes`: far beyond any solve joute can finish (the empty Connect 4 board
/// takes about 10^10).
const MAX_SOLVE_NODES: u64 = 1_000_000_000_000_000;
/// The largest `--hash`, MiB.
const MAX_HASH_MIB: u64 = 8192;

/// A solve's limits as given on the command line, checked.
fn limits(args: &SolveArgs) -> anyhow::Result<Limits> {
    let time = match &args.time {
        None => None,
        Some(t) => Some(match joute::arena::engine::parse_time(t.trim()) {
            Some(Ok(d)) => d,
            Some(Err(e)) => return Err(input(format!("--time: {e}"))),
            None => {
                return Err(input(format!(
                    "--time '{t}' needs a unit: 30s or 500ms (from 1ms to one day)"
                )));
            }
        }),
    };
    if let Some(n) = args.nodes
        && !(1..=MAX_SOLVE_NODES).contains(&n)
    {
        return Err(input(format!(
            "--nodes is {n}; allowed: 1..={MAX_SOLVE_NODES}"
        )));
    }
    if let Some(h) = args.hash
        && !(1..=MAX_HASH_MIB).contains(&h)
    {
        return Err(input(format!(
            "--hash is {h} MiB; allowed: 1..={MAX_HASH_MIB}"
        )));
    }
    let most = joute::search::solver::othello::MAX_THREADS as u64;
    if !(1..=most).contains(&args.threads) {
        return Err(input(format!(
            "--threads is {}; allowed: 1..={most}",
            args.threads
        )));
    }
    if args.threads > 1 && args.game != GameKind::Othello {
        return Err(input(format!(
            "--threads applies to Othello solves; the {} solver runs on one thread",
            args.game
        )));
    }
    Ok(Limits {
        nodes: args.nodes,
        time,
        hash_mib: args.hash,
        threads: args.threads as usize,
    })
}

pub(super) fn run(args: &SolveArgs) -> anyhow::Result<()> {
    let limits = limits(args)?;
    match (&args.file, &args.position) {
        (Some(_), Some(_)) => {
            Err(InputError("give either a POSITION or --file SUITE, not both".into()).into())
        }
        (Some(_), None) if limits.limited() => Err(InputError(
            "--time and --nodes apply to one position, not to a --file suite".into(),
        )
        .into()),
        (Some(file), None) => suite(args.game, file, &limits, args.json),
        (None, position) => one(args.game, position.as_deref(), &limits, args.json),
    }
}

fn input(e: impl std::fmt::Display) -> anyhow::Error {
    InputError(e.to_string()).into()
}

/// `win`, `draw` or `loss` for the side to move.
fn verdict(score: i32) -> &'static str {
    match score.signum() {
        1 => "win",
        -1 => "loss",
        _ => "draw",
    }
}

/// One position solved (`joute solve POSITION`), rendered.
fn one(
    kind: GameKind,
    position: Option<&str>,
    limits: &Limits,
    as_json: bool,
) -> anyhow::Result<()> {
    let progress = Arc::new(AtomicU64::new(0));
    let watch = super::meter::Watch::nodes(progress.clone(), !as_json);
    let clock = Instant::now();
    let solved = solve_position(kind, position, limits, &progress).map_err(input)?;
    let seconds = clock.elapsed().as_secs_f64();
    watch.finish();
    let Solved {
        name,
        text,
        side,
        solution,
        explain,
    } = &solved;
    if let Some(stopped) = solution.stopped {
        return report_stopped(name, text, solution, stopped, explain, seconds, as_json);
    }
    if as_json {
        say!(
            "{}",
            json!({
                "game": name,
                "position": text,
                "side_to_move": if *side == Side::First { "first" } else { "second" },
                "exact": true,
                "value": verdict(solution.score),
                "score": solution.score,
                "best_moves": solution.best_moves,
                "nodes": solution.nodes,
                "seconds": seconds,
            })
        )?;
    } else {
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "{name} {}",
            if text.is_empty() { "start" } else { text }
        )?;
        writeln!(
            out,
            "value for the side to move: {} (score {}: {explain})",
            verdict(solution.score),
            solution.score
        )?;
        writeln!(out, "best moves: {}", solution.best_moves.join(" "))?;
        writeln!(
            out,
            "{} nodes in {seconds:.3} s ({:.0} nodes/s)",
            solution.nodes,
            solution.nodes as f64 / seconds.max(1e-9)
        )?;
    }
    Ok(())
}

/// What a solve stopped by a limit reached: the bounds it proved, the best move it had.
fn report_stopped(
    name: &str,
    text: &str,
    solution: &Solution<String>,
    stopped: Stopped,
    explain: &str,
    seconds: f64,
    as_json: bool,
) -> anyhow::Result<()> {
    let by = match stopped.reason {
        StopReason::Nodes => "the node limit",
        StopReason::Time => "the time limit",
    };
    let proven = if stopped.lower == stopped.upper {
        format!(
            "the score is exactly {} ({})",
            stopped.lower,
            verdict(stopped.lower)
        )
    } else if stopped.lower.abs() >= WIN_THRESHOLD
        || stopped.upper.abs() >= WIN_THRESHOLD
        || (name == "othello" && stopped.lower <= -64 && stopped.upper >= 64)
    {
        "nothing proven yet".to_string()
    } else {
        format!(
            "the score is between {} and {}",
            stopped.lower, stopped.upper
        )
    };
    if as_json {
        say!(
            "{}",
            json!({
                "game": name,
                "position": text,
                "exact": false,
                "stopped_by": stopped.reason.as_str(),
                "lower": stopped.lower,
                "upper": stopped.upper,
                "depth": stopped.depth,
                "best_moves": solution.best_moves,
                "nodes": solution.nodes,
                "seconds": seconds,
            })
        )?;
        return Ok(());
    }
    say!("{name} {}", if text.is_empty() { "start" } else { text })?;
    say!("NOT SOLVED: stopped by {by}; {proven} (score: {explain})")?;
    if stopped.depth > 0 {
        say!("deepest full iteration: {} plies", stopped.depth)?;
    }
    if !solution.best_moves.is_empty() {
        say!(
            "{}: {}",
            if stopped.lower == stopped.upper {
                "best moves found before stopping"
            } else {
                "best move so far"
            },
            solution.best_moves.join(" ")
        )?;
    }
    say!(
        "{} nodes in {seconds:.3} s ({:.0} nodes/s)",
        solution.nodes,
        solution.nodes as f64 / seconds.max(1e-9)
    )?;
    Ok(())
}

fn suite(kind: GameKind, file: &Path, limits: &Limits, as_json: bool) -> anyhow::Result<()> {
    let text = joute::inputs::read_to_string(file, joute::inputs::Input::Positions)
        .map_err(|e| input(format!("{}: cannot read the suite: {e}", file.display())))?;
    let checked =
        check_suite(kind, &text, limits.hash_mib, limits.threads).map_err(|e| match e {
            SuiteError::Line { .. } => input(format!("{}:{e}", file.display())),
            SuiteError::NoFormat(_) => input(e),
        })?;
    report_suite(file, &checked, as_json)
}

fn report_suite(file: &Path, checked: &[Checked], as_json: bool) -> anyhow::Result<()> {
    let n = checked.len().max(1) as f64;
    let wrong: Vec<&Checked> = checked.iter().filter(|c| !c.correct()).collect();
    let nodes: u64 = checked.iter().map(|c| c.nodes).sum();
    // From +0.0: an empty f64 sum is -0.0 (an empty suite printed "-0.000000 s").
    let seconds = checked.iter().map(|c| c.seconds).fold(0.0, |a, b| a + b);
    if as_json {
        let wrong: Vec<Value> = wrong
            .iter()
            .map(|c| json!({"line": c.line, "id": c.id, "expected": c.expected, "got": c.got, "best_move": c.best, "best_move_ok": c.move_ok}))
            .collect();
        let each: Vec<Value> = checked
            .iter()
            .map(|c| json!({"line": c.line, "id": c.id, "empties": c.empties, "expected": c.expected, "got": c.got, "best_move": c.best, "correct": c.correct(), "nodes": c.nodes, "seconds": c.seconds}))
            .collect();
        say!(
            "{}",
            json!({
                "file": file.display().to_string(),
                "positions": checked.len(),
                "correct": checked.len() - wrong.len(),
                "wrong": wrong,
                "mean_seconds": seconds / n,
                "nodes": nodes,
                "mean_nodes": nodes as f64 / n,
                "nodes_per_second": nodes as f64 / seconds.max(1e-9),
                "each": each,
            })
        )?;
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {} positions", file.display(), checked.len())?;
    writeln!(
        out,
        "{:>8} {:>7} {:>6} {:>6} {:>5} {:>14} {:>10} {:>12}",
        "id", "empties", "value", "found", "move", "nodes", "seconds", "nodes/s"
    )?;
    for c in checked {
        writeln!(
            out,
            "{:>8} {:>7} {:>+6} {:>+6} {:>5} {:>14} {:>10.3} {:>12.0}{}",
            c.id,
            c.empties,
            c.expected,
            c.got,
            c.best,
            c.nodes,
            c.seconds,
            c.nodes as f64 / c.seconds.max(1e-9),
            if c.correct() { "" } else { "  wrong" }
        )?;
    }
    writeln!(
        out,
        "correct: {}/{}",
        checked.len() - wrong.len(),
        checked.len()
    )?;
    for c in &wrong {
        writeln!(
            out,
            "  wrong at line {} ({}): expected {}, got {}{}",
            c.line,
            c.id,
            c.expected,
            c.got,
            if c.move_ok {
                String::new()
            } else {
                format!(", best move {} not among the listed ones", c.best)
            }
        )?;
    }
    writeln!(
        out,
        "mean per position: {:.6} s, {:.0} nodes; total {nodes} nodes in {seconds:.3} s ({:.0} nodes/s)",
        seconds / n,
        nodes as f64 / n,
        nodes as f64 / seconds.max(1e-9)
    )?;
    Ok(())
}

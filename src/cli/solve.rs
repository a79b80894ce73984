//! `joute solve`: exact values of positions, one at a time or a whole test suite checked
//! against its known values.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{InputError, SolveArgs};
use joute::games::{Connect4, Game, GameKind, Morpion, Othello, RandomTree, Side};
use joute::search::solver::connect4::Connect4Solver;
use joute::search::solver::othello::OthelloSolver;
use joute::search::solver::suite::{Checked, SuiteError, check_suite};
use joute::search::solver::{Solution, Stop, StopReason, Stopped, generic};
use joute::search::{WIN, WIN_THRESHOLD};

/// Above this many empty squares an Othello solve is out of reach (FFO #40–#59 have 20–26).
const OTHELLO_MAX_EMPTIES: u32 = 30;
/// Above this many empty cells a Morpion solve is out of reach.
const MORPION_MAX_EMPTIES: u32 = 25;

/// The largest `--nodes`: far beyond any solve joute can finish (the empty Connect 4 board
/// takes about 10^10).
const MAX_SOLVE_NODES: u64 = 1_000_000_000_000_000;
/// The largest `--hash`, MiB.
const MAX_HASH_MIB: u64 = 8192;

/// A solve's limits as given on the command line.
struct Limits {
    nodes: Option<u64>,
    time: Option<Duration>,
    hash_mib: Option<u64>,
}

impl Limits {
    fn from(args: &SolveArgs) -> anyhow::Result<Limits> {
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
        Ok(Limits {
            nodes: args.nodes,
            time,
            hash_mib: args.hash,
        })
    }

    fn limited(&self) -> bool {
        self.nodes.is_some() || self.time.is_some()
    }

    /// The solver's stop, feeding `progress`.
    fn stop(&self, progress: &Arc<AtomicU64>) -> Stop {
        Stop::new(self.nodes, self.time, Some(progress.clone()))
    }
}

pub(super) fn run(args: &SolveArgs) -> anyhow::Result<()> {
    let limits = Limits::from(args)?;
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

fn one(
    kind: GameKind,
    position: Option<&str>,
    limits: &Limits,
    as_json: bool,
) -> anyhow::Result<()> {
    let progress = Arc::new(AtomicU64::new(0));
    let watch = super::output::Watch::nodes(progress.clone(), !as_json);
    let clock = Instant::now();
    let (name, text, side, solution, explain): (String, String, Side, Solution<String>, String) =
        match kind {
            GameKind::Othello => {
                let pos = match position {
                    Some(p) => Othello::start().parse_position(p).map_err(input)?,
                    None => Othello::start(),
                };
                let empties = 64 - (pos.player | pos.opponent).count_ones();
                if empties > OTHELLO_MAX_EMPTIES && !limits.limited() {
                    return Err(input(format!(
                        "this Othello position has {empties} empty squares; joute solves positions with at most {OTHELLO_MAX_EMPTIES} (an endgame) unless --time or --nodes limits the search"
                    )));
                }
                let mut solver = limits
                    .hash_mib
                    .map_or_else(OthelloSolver::new, OthelloSolver::with_table_mib)
                    .all_best_moves(true);
                solver.set_stop(limits.stop(&progress));
                let s = solver.solve(&pos);
                (
                    pos.name(),
                    pos.to_board_string(),
                    pos.side,
                    named(&pos, s),
                    "final disc difference for the side to move, empty squares to the winner"
                        .into(),
                )
            }
            GameKind::Connect4 => {
                let pos = Connect4::start()
                    .parse_position(position.unwrap_or(""))
                    .map_err(input)?;
                let mut solver = connect4_solver(limits);
                solver.set_stop(limits.stop(&progress));
                let s = solver.solve(&pos);
                (
                    pos.name(),
                    position.unwrap_or("").to_string(),
                    pos.side_to_move(),
                    named(&pos, s),
                    "22 minus the winner's stones at the win; positive when the side to move wins"
                        .into(),
                )
            }
            GameKind::Morpion {
                rows,
                cols,
                k,
                rule,
            } => {
                let start = Morpion::with_rule(rows, cols, k, rule);
                let pos = match position {
                    Some(p) => start.parse_position(p).map_err(input)?,
                    None => start,
                };
                let empties = (0..pos.cells())
                    .filter(|&i| pos.mark_at(i).is_none())
                    .count() as u32;
                if empties > MORPION_MAX_EMPTIES && !limits.limited() {
                    return Err(input(format!(
                        "this {} position has {empties} empty cells; joute solves Morpion positions with at most {MORPION_MAX_EMPTIES} unless --time or --nodes limits the search",
                        pos.name()
                    )));
                }
                // A table in proportion to the tree: tiny boards do not pay for a large one.
                let tt_mib = limits
                    .hash_mib
                    .map_or(if empties <= 12 { 4 } else { 256 }, |m| m as usize);
                let s = generic::solve_within(&pos, empties, tt_mib, limits.nodes, limits.time);
                // Scores become plies: +p a win in p plies, -p a loss in p plies, 0 a draw.
                let plies = if s.score.abs() >= WIN_THRESHOLD {
                    WIN - s.score.abs()
                } else {
                    empties as i32
                };
                let score = s.score.signum() * if s.score == 0 { 0 } else { plies };
                (
                    pos.name(),
                    position.unwrap_or("").to_string(),
                    pos.side_to_move(),
                    named(
                        &pos,
                        Solution {
                            score,
                            best_moves: s.best_moves,
                            nodes: s.nodes,
                            stopped: s.stopped,
                        },
                    ),
                    format!(
                        "plies to the end with best play, positive for a win; the game ends after {plies} plies"
                    ),
                )
            }
            GameKind::RandomTree {
                branching,
                depth,
                seed,
            } => {
                let root = RandomTree::new(branching, depth, seed);
                let pos = root.parse_position(position.unwrap_or("")).map_err(input)?;
                let left = (depth - pos.ply()) as u32;
                let s = generic::solve_within(
                    &pos,
                    left.max(1),
                    limits.hash_mib.map_or(64, |m| m as usize),
                    limits.nodes,
                    limits.time,
                );
                (
                    pos.name(),
                    position.unwrap_or("").to_string(),
                    pos.side_to_move(),
                    named(&pos, s),
                    "minimax leaf value for the side to move".into(),
                )
            }
        };
    let seconds = clock.elapsed().as_secs_f64();
    watch.finish();
    if let Some(stopped) = solution.stopped {
        return report_stopped(&name, &text, &solution, stopped, &explain, seconds, as_json);
    }
    if as_json {
        say!(
            "{}",
            json!({
                "game": name,
                "position": text,
                "side_to_move": if side == Side::First { "first" } else { "second" },
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
            if text.is_empty() { "start" } else { &text }
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

/// The Connect 4 solver with the table `--hash` asks for (default 64 MiB).
fn connect4_solver(limits: &Limits) -> Connect4Solver {
    limits
        .hash_mib
        .map_or_else(Connect4Solver::new, Connect4Solver::with_table_mib)
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

/// A solution with its moves written in the game's notation.
fn named<G: Game>(pos: &G, s: Solution<G::Move>) -> Solution<String> {
    Solution {
        score: s.score,
        best_moves: s.best_moves.iter().map(|&m| pos.format_move(m)).collect(),
        nodes: s.nodes,
        stopped: s.stopped,
    }
}

fn suite(kind: GameKind, file: &Path, limits: &Limits, as_json: bool) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| input(format!("{}: cannot read the suite: {e}", file.display())))?;
    let checked = check_suite(kind, &text, limits.hash_mib).map_err(|e| match e {
        SuiteError::Line { .. } => input(format!("{}:{e}", file.display())),
        SuiteError::NoFormat(_) => input(e),
    })?;
    report_suite(file, &checked, as_json)
}

fn report_suite(file: &Path, checked: &[Checked], as_json: bool) -> anyhow::Result<()> {
    let n = checked.len().max(1) as f64;
    let wrong: Vec<&Checked> = checked.iter().filter(|c| !c.correct()).collect();
    let nodes: u64 = checked.iter().map(|c| c.nodes).sum();
    let seconds: f64 = checked.iter().map(|c| c.seconds).sum();
    if as_json {
        let wrong: Vec<Value> = wrong
            .iter()
            .map(|c| json!({"line": c.line, "id": c.id, "expected": c.expected, "got": c.got, "best_move": c.best, "best_move_ok": c.move_ok}))
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
            })
        )?;
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {} positions", file.display(), checked.len())?;
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

//! One position solved, whatever the game (`joute solve POSITION`): the position read in the
//! game's notation, refused when it is out of reach without a limit, the game's solver run
//! under the limits, and the score said in the game's own terms.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use super::connect4::Connect4Solver;
use super::othello::OthelloSolver;
use super::{Solution, Stop, generic};
use crate::games::{Connect4, Game, GameKind, Morpion, Othello, RandomTree, Side};
use crate::search::{WIN, WIN_THRESHOLD};

/// Above this many empty squares an Othello solve is out of reach (FFO #40–#59 have 20–26).
pub const OTHELLO_MAX_EMPTIES: u32 = 30;
/// Above this many empty cells a Morpion solve is out of reach.
pub const MORPION_MAX_EMPTIES: u32 = 25;

/// A solve's limits (none: solve to the end).
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// The most positions to visit.
    pub nodes: Option<u64>,
    /// The most time to take.
    pub time: Option<Duration>,
    /// The transposition table's size, MiB (each game has its default).
    pub hash_mib: Option<u64>,
    /// Threads of an Othello solve (0 or 1: one; [`OthelloSolver::set_threads`]); the other
    /// games' solvers run on one.
    pub threads: usize,
}

impl Limits {
    /// Whether the solve may stop before it is exact.
    pub fn limited(&self) -> bool {
        self.nodes.is_some() || self.time.is_some()
    }

    /// The solver's stop, feeding `progress`.
    fn stop(&self, progress: &Arc<AtomicU64>) -> Stop {
        Stop::new(self.nodes, self.time, Some(progress.clone()))
    }
}

/// A position solved, or stopped by a limit ([`Solution::stopped`]).
#[derive(Clone, Debug)]
pub struct Solved {
    /// The game's name.
    pub name: String,
    /// The position as given (Othello: its board; empty for the start of the others).
    pub text: String,
    /// The side to move.
    pub side: Side,
    /// The value, with its moves in the game's notation.
    pub solution: Solution<String>,
    /// What the score means in this game.
    pub explain: String,
}

/// Solves `position` (the start when `None`) of the game `kind` under `limits`; the Othello and
/// Connect 4 solvers count their nodes into `progress` as they go. Every error is the input's:
/// a position that does not read, or one too far from the end to solve without a limit.
pub fn solve_position(
    kind: GameKind,
    position: Option<&str>,
    limits: &Limits,
    progress: &Arc<AtomicU64>,
) -> Result<Solved, String> {
    let text = || position.unwrap_or("").to_string();
    Ok(match kind {
        GameKind::Othello => {
            let pos = match position {
                Some(p) => Othello::start()
                    .parse_position(p)
                    .map_err(|e| e.to_string())?,
                None => Othello::start(),
            };
            let empties = 64 - (pos.player | pos.opponent).count_ones();
            if empties > OTHELLO_MAX_EMPTIES && !limits.limited() {
                return Err(format!(
                    "this Othello position has {empties} empty squares; joute solves positions with at most {OTHELLO_MAX_EMPTIES} (an endgame) unless --time or --nodes limits the search"
                ));
            }
            let mut solver = limits
                .hash_mib
                .map_or_else(OthelloSolver::new, OthelloSolver::with_table_mib)
                .all_best_moves(true)
                .threads(limits.threads);
            solver.set_stop(limits.stop(progress));
            let s = solver.solve(&pos);
            Solved {
                name: pos.name(),
                text: pos.to_board_string(),
                side: pos.side,
                solution: named(&pos, s),
                explain: "final disc difference for the side to move, empty squares to the winner"
                    .into(),
            }
        }
        GameKind::Connect4 => {
            let pos = Connect4::start()
                .parse_position(position.unwrap_or(""))
                .map_err(|e| e.to_string())?;
            let mut solver = limits
                .hash_mib
                .map_or_else(Connect4Solver::new, Connect4Solver::with_table_mib);
            solver.set_stop(limits.stop(progress));
            let s = solver.solve(&pos);
            Solved {
                name: pos.name(),
                text: text(),
                side: pos.side_to_move(),
                solution: named(&pos, s),
                explain:
                    "22 minus the winner's stones at the win; positive when the side to move wins"
                        .into(),
            }
        }
        GameKind::Morpion {
            rows,
            cols,
            k,
            rule,
        } => solve_morpion(Morpion::with_rule(rows, cols, k, rule), position, limits)?,
        GameKind::RandomTree {
            branching,
            depth,
            seed,
        } => {
            let root = RandomTree::new(branching, depth, seed);
            let pos = root
                .parse_position(position.unwrap_or(""))
                .map_err(|e| e.to_string())?;
            let left = (depth - pos.ply()) as u32;
            let s = generic::solve_within(
                &pos,
                left.max(1),
                limits.hash_mib.map_or(64, |m| m as usize),
                limits.nodes,
                limits.time,
            );
            Solved {
                name: pos.name(),
                text: text(),
                side: pos.side_to_move(),
                solution: named(&pos, s),
                explain: "minimax leaf value for the side to move".into(),
            }
        }
    })
}

/// A Morpion position, by the generic solver, its score in plies to the end.
fn solve_morpion(
    start: Morpion,
    position: Option<&str>,
    limits: &Limits,
) -> Result<Solved, String> {
    let pos = match position {
        Some(p) => start.parse_position(p).map_err(|e| e.to_string())?,
        None => start,
    };
    let empties = (0..pos.cells())
        .filter(|&i| pos.mark_at(i).is_none())
        .count() as u32;
    if empties > MORPION_MAX_EMPTIES && !limits.limited() {
        return Err(format!(
            "this {} position has {empties} empty cells; joute solves Morpion positions with at most {MORPION_MAX_EMPTIES} unless --time or --nodes limits the search",
            pos.name()
        ));
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
    Ok(Solved {
        name: pos.name(),
        text: position.unwrap_or("").to_string(),
        side: pos.side_to_move(),
        solution: named(
            &pos,
            Solution {
                score,
                best_moves: s.best_moves,
                nodes: s.nodes,
                stopped: s.stopped,
            },
        ),
        explain: format!(
            "plies to the end with best play, positive for a win; the game ends after {plies} plies"
        ),
    })
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

//! Exact endgames in play: when the position a search is asked about has at most
//! [`super::SearchOptions::exact`] empty squares, the game's exact solver chooses the move
//! instead of the depth-limited search — Othello's endgame solver
//! ([`OthelloSolver`]), Connect 4's ([`Connect4Solver`]), and for Morpion the generic
//! full-depth search ([`generic::solve_within`]).
//!
//! The solve happens at the root only. Inside a depth-`d` tree it would pay nowhere: a node
//! `p` plies down with at most `exact` empties is only reached from roots with at most
//! `exact + p` of them, so solving there costs what solving at the root `d` empties earlier
//! would, while a root solve runs the solver's own ordering, table and last-four-empties code
//! from the first move.
//!
//! What the solver learns stays in its table for the game's later moves (a searcher lives for
//! one game), so after the first solve the next ones are mostly table hits. Under a node or
//! time budget the solve gets half of what is left, and when it does not finish in it the
//! search plays with the other half: every node is counted, and the budget holds.
//!
//! Scores keep the search's convention: a won position scores `WIN - plies`, the plies of the
//! solver's line to the game's end (for Othello, the line that keeps the best disc
//! difference, followed through the solver's table), a lost one `-(WIN - plies)`, a draw 0.

use std::any::Any;
use std::time::{Duration, Instant};

use super::solver::connect4::Connect4Solver;
use super::solver::othello::OthelloSolver;
use super::solver::{Stop, generic};
use super::{Algorithm, WIN};
use crate::games::{Connect4, Game, Morpion, Othello};

/// The default of [`super::SearchOptions::exact`] for engines of the game of `start` searching
/// with `algorithm` to `depth` plies (`None`: under a node or time budget; the search layer's
/// own default is 0, off): Othello's `pvs` and `mtdf` solve from 2·depth + 4 empties, at most
/// [`OTHELLO_EXACT`] (measured against NTest: docs/spec.md, "Exact endgames"); Connect 4's
/// from 2·depth + 4 empty cells, at most [`CONNECT4_EXACT`], and never under a budget (not
/// measured there: a solve that does not finish takes half the budget). The course's algorithms (minimax,
/// negamax, alphabeta, bisection) keep their depth-limited value, and `mcts` and `random`
/// their own nature: 0.
///
/// Why it scales with the depth: a solve's cost grows about twice as fast with the empties as
/// a search's with its depth, so a fixed 20 that costs a `pvs:8` game 4.4 times its nodes costs
/// a `pvs:4` game 370 times (31 k → 11.6 M nodes), while 2·depth + 4 keeps the solve within a
/// few times the game's search at every depth (`pvs:4` at 12: 2.3 times; `pvs:6` at 16: 2.6).
pub fn default_exact<G: Game>(start: &G, algorithm: Algorithm, depth: Option<u32>) -> u32 {
    if !matches!(algorithm, Algorithm::Pvs | Algorithm::Mtdf) {
        return 0;
    }
    // 2·depth + 4 at a fixed depth, at most `cap`; `budgeted` under a node or time budget.
    let scaled = |cap: u32, budgeted: u32| {
        depth.map_or(budgeted, |d| d.saturating_mul(2).saturating_add(4).min(cap))
    };
    let any = start as &dyn Any;
    if any.is::<Othello>() {
        scaled(OTHELLO_EXACT, OTHELLO_EXACT)
    } else if any.is::<Connect4>() {
        scaled(CONNECT4_EXACT, 0)
    } else {
        0
    }
}

/// Othello's default under a budget, and its cap at a fixed depth (from depth 8 on): solve
/// exactly from this many empty squares on. Against NTest at depth 6,
/// `pvs:8` with the shipped pattern weights scored 22% never solving, 24.5%, 27.5%, 30%, 32%
/// and 35.5% solving from 14, 16, 18, 20 and 22 empties, for 1.0, 1.1, 1.6, 4.4 and 22 times
/// the nodes of a game: 20 is where the nodes are still a few times a game's.
pub const OTHELLO_EXACT: u32 = 20;

/// Connect 4's cap at a fixed depth (from depth 14 on): solve exactly from this many empty
/// cells on. Head to head against the same engine never solving (`pvs:D:exact=N` against
/// `pvs:D`, 200 games from random 10-ply openings, 32 empty cells): depth 8 at 16 and 20 cells
/// +7 ± 8 and +28 ± 12 Elo, depth 12 at 24, 28 and 32 +32 ± 14, +48 ± 16 and +88 ± 22, depth 16
/// at 20, 24, 28 and 32 +1 ± 5, +13 ± 10, +32 ± 14 and +58 ± 18. At 32 cells a depth-16 game
/// takes fewer nodes than without solving (0.7 times), a depth-12 game 5.8 times as many;
/// 2·depth + 4 keeps a game's nodes within 1.1 times. From 36 cells a solve takes seconds to
/// minutes here: 32 is the cap.
pub const CONNECT4_EXACT: u32 = 32;

/// The empty squares (cells) of `pos`, for the games that have a solver: Othello, Connect 4
/// and Morpion; `None` for the others (random trees).
pub fn empties<G: Game>(pos: &G) -> Option<u32> {
    let any = pos as &dyn Any;
    if let Some(p) = any.downcast_ref::<Othello>() {
        Some(64 - (p.player | p.opponent).count_ones())
    } else if let Some(p) = any.downcast_ref::<Connect4>() {
        Some(42 - p.stones())
    } else {
        any.downcast_ref::<Morpion>()
            .map(|p| (0..p.cells()).filter(|&i| p.mark_at(i).is_none()).count() as u32)
    }
}

/// What the solver may spend: the nodes left (`None`: no limit) and the deadline.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    pub nodes: Option<u64>,
    pub deadline: Option<Instant>,
}

impl Budget {
    /// What is left once the solver has spent `spent` nodes: nodes and time.
    fn left(&self, spent: u64) -> (Option<u64>, Option<Duration>) {
        (
            self.nodes.map(|n| n.saturating_sub(spent).max(1)),
            self.deadline
                .map(|d| d.saturating_duration_since(Instant::now())),
        )
    }

    /// The solver's limits once it has spent `spent` nodes of the budget.
    fn stop(&self, spent: u64) -> Stop {
        let (nodes, time) = self.left(spent);
        Stop::new(nodes, time, None)
    }
}

/// A solved root: the search's score, the moves that keep it (all of them when asked for),
/// the line to the end as far as it was followed, and the nodes the solver visited.
pub(crate) struct Solved<M> {
    pub score: i32,
    pub best_moves: Vec<M>,
    pub pv: Vec<M>,
}

/// The solvers an engine uses in play, allocated at their first solve and kept for the game.
pub(crate) struct Endgame {
    othello: Option<Box<OthelloSolver>>,
    connect4: Option<Box<Connect4Solver>>,
    table_mib: usize,
    threads: usize,
}

impl Endgame {
    /// No solver yet; their tables will take `table_mib` MiB, Othello's solves of a root run
    /// on `threads` threads.
    pub fn new(table_mib: usize, threads: usize) -> Endgame {
        Endgame {
            othello: None,
            connect4: None,
            table_mib: table_mib.max(1),
            threads: threads.max(1),
        }
    }

    /// Solves `pos` (not finished, a game with a solver) within `budget`: `Some` with the
    /// exact result, or `None` when the budget ran out first (or the game has no solver);
    /// with the nodes visited either way. `all_best` asks for every best move.
    pub fn solve<G: Game>(
        &mut self,
        pos: &G,
        budget: Budget,
        all_best: bool,
    ) -> (Option<Solved<G::Move>>, u64) {
        let any = pos as &dyn Any;
        if let Some(p) = any.downcast_ref::<Othello>() {
            let (solved, nodes) = self.othello(p, budget, all_best);
            (solved.and_then(cast), nodes)
        } else if let Some(p) = any.downcast_ref::<Connect4>() {
            let (solved, nodes) = self.connect4(p, budget);
            (solved.and_then(cast), nodes)
        } else if let Some(p) = any.downcast_ref::<Morpion>() {
            let (solved, nodes) = self.generic(p, budget);
            (solved.and_then(cast), nodes)
        } else {
            (None, 0)
        }
    }

    /// The result of `pos` for the side to move under perfect play: 1 (a win), ½ or 0; `None`
    /// for a finished position or a game without a solver. For labelling positions in tuning
    /// (`tune::fit::regression`).
    pub fn perfect_result<G: Game>(&mut self, pos: &G) -> Option<f64> {
        if pos.outcome().is_some() {
            return None;
        }
        let unlimited = Budget {
            nodes: None,
            deadline: None,
        };
        let (solved, _) = self.solve(pos, unlimited, false);
        solved.map(|s| 0.5 + 0.5 * f64::from(s.score.signum()))
    }

    fn othello(
        &mut self,
        pos: &Othello,
        budget: Budget,
        all_best: bool,
    ) -> (Option<Solved<crate::games::othello::OthelloMove>>, u64) {
        let mib = self.table_mib as u64;
        let solver = self
            .othello
            .get_or_insert_with(|| Box::new(OthelloSolver::with_table_mib(mib)));
        solver.set_stop(budget.stop(0));
        solver.set_all_best_moves(all_best);
        solver.set_threads(self.threads);
        let root = solver.solve(pos);
        let mut nodes = root.nodes;
        if root.stopped.is_some() {
            return (None, nodes);
        }
        // The line to the end: each position's best move, from the table the solve filled
        // (mostly hits: one thread, no helpers to start).
        solver.set_threads(1);
        solver.set_all_best_moves(false);
        let mut pv = Vec::new();
        let mut cursor = *pos;
        let mut next = root.best_moves.first().copied();
        let mut cut = false;
        while let Some(mv) = next {
            pv.push(mv);
            cursor = cursor.play(mv);
            if cursor.outcome().is_some() {
                break;
            }
            solver.set_stop(budget.stop(nodes));
            let s = solver.solve(&cursor);
            nodes += s.nodes;
            if s.stopped.is_some() {
                cut = true;
                break;
            }
            next = s.best_moves.first().copied();
        }
        // A line cut by the budget ends within the empties it has left (passes aside).
        let plies = pv.len() as u32
            + if cut {
                empties(&cursor).unwrap_or(0)
            } else {
                0
            };
        let solved = Solved {
            score: result_score(root.score.signum(), plies),
            best_moves: root.best_moves,
            pv,
        };
        (Some(solved), nodes)
    }

    fn connect4(
        &mut self,
        pos: &Connect4,
        budget: Budget,
    ) -> (Option<Solved<crate::games::connect4::Column>>, u64) {
        let mib = self.table_mib as u64;
        let solver = self
            .connect4
            .get_or_insert_with(|| Box::new(Connect4Solver::with_table_mib(mib)));
        solver.set_stop(budget.stop(0));
        let s = solver.solve(pos);
        if s.stopped.is_some() || s.best_moves.is_empty() {
            return (None, s.nodes);
        }
        let solved = Solved {
            score: connect4_score(pos, s.score),
            pv: s.best_moves[..1].to_vec(),
            best_moves: s.best_moves,
        };
        (Some(solved), s.nodes)
    }

    fn generic(
        &mut self,
        pos: &Morpion,
        budget: Budget,
    ) -> (Option<Solved<crate::games::morpion::Cell>>, u64) {
        let left = empties(pos).unwrap_or(0);
        let (nodes, time) = budget.left(0);
        let s = generic::solve_within(pos, left, self.table_mib, nodes, time);
        if s.stopped.is_some() || s.best_moves.is_empty() {
            return (None, s.nodes);
        }
        let solved = Solved {
            score: s.score,
            pv: s.best_moves[..1].to_vec(),
            best_moves: s.best_moves,
        };
        (Some(solved), s.nodes)
    }
}

/// The search's score of a result (`sign`: 1 a win for the side to move, -1 a loss, 0 a
/// draw) reached `plies` plies from the root.
fn result_score(sign: i32, plies: u32) -> i32 {
    sign * (WIN - plies as i32)
}

/// A Connect 4 solver's score (the suites' convention: `22 - k` when the side to move wins
/// with its `k`-th stone, minus that when the opponent does) in the search's convention:
/// `WIN - plies` with the plies until the winning stone.
fn connect4_score(pos: &Connect4, score: i32) -> i32 {
    let stones = pos.stones() as i32;
    let mover = stones / 2;
    let opponent = stones - mover;
    match score.signum() {
        1 => result_score(1, (2 * (22 - score - mover) - 1) as u32),
        -1 => result_score(-1, (2 * (22 + score - opponent)) as u32),
        _ => 0,
    }
}

/// `value` as a `U` when `T` and `U` are the same type (they always are here: the caller has
/// just found the game's type).
fn cast<T: 'static, U: 'static>(value: T) -> Option<U> {
    (&mut Some(value) as &mut dyn Any)
        .downcast_mut::<Option<U>>()
        .and_then(Option::take)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Evaluator;
    use crate::games::{MoveList, Side, random_position};
    use crate::search::{Limits, SearchConfig, Searcher, WIN_THRESHOLD};

    /// Disc count: a weak evaluation, so that the solve, not the search, finds the moves.
    struct Discs;
    impl Evaluator<Othello> for Discs {
        fn evaluate(&self, pos: &Othello) -> i32 {
            pos.player.count_ones() as i32 - pos.opponent.count_ones() as i32
        }
    }

    struct Zero;
    impl<G: Game> Evaluator<G> for Zero {
        fn evaluate(&self, _: &G) -> i32 {
            0
        }
    }

    fn pvs(depth: u32, exact: u32) -> SearchConfig {
        let mut config = SearchConfig::new(Algorithm::Pvs, depth);
        config.options.exact = exact;
        config
    }

    /// Unfinished Othello positions with `empties` empty squares, from random games.
    fn othello_positions(empties: u32, count: usize) -> Vec<Othello> {
        (0..)
            .map(|seed| random_position(Othello::start(), (60 - empties) as usize, seed))
            .filter(|p| empties_of(p) == empties && p.outcome().is_none())
            .take(count)
            .collect()
    }

    fn empties_of(p: &Othello) -> u32 {
        64 - (p.player | p.opponent).count_ones()
    }

    #[test]
    fn othello_solved_roots_play_the_solvers_line_to_its_score() {
        for pos in othello_positions(12, 20) {
            let exact = OthelloSolver::new().all_best_moves(true).solve(&pos);
            let r = Searcher::new(pvs(2, 12)).search(&pos, &Discs);
            assert!(exact.best_moves.contains(&r.best_move.unwrap()), "{pos:?}");
            assert_eq!(r.stats.depth, 12);
            assert!(r.stats.nodes > 0);
            // The line ends the game with the solver's disc difference, in as many plies as
            // the score says.
            let end = r.pv.iter().fold(pos, |p, &mv| p.play(mv));
            let outcome = end.outcome().expect("the line reaches the end");
            let margin = if pos.side_to_move() == Side::First {
                outcome.score
            } else {
                -outcome.score
            };
            assert_eq!(margin, exact.score, "{pos:?}");
            let expected = match exact.score.signum() {
                0 => 0,
                s => s * (WIN - r.pv.len() as i32),
            };
            assert_eq!(r.score, expected);
        }
    }

    #[test]
    fn beyond_its_empties_the_search_is_untouched() {
        for pos in othello_positions(14, 5) {
            let plain = Searcher::new(pvs(4, 0)).search(&pos, &Discs);
            let beyond = Searcher::new(pvs(4, 13)).search(&pos, &Discs);
            assert_eq!(
                (plain.best_move, plain.score, plain.pv, plain.stats.nodes),
                (
                    beyond.best_move,
                    beyond.score,
                    beyond.pv,
                    beyond.stats.nodes
                )
            );
        }
    }

    #[test]
    fn connect4_solved_scores_are_the_full_depth_search_values() {
        let mut checked = 0;
        for seed in 0..400 {
            let pos = random_position(Connect4::start(), 28, seed);
            if pos.outcome().is_some() || pos.stones() != 28 {
                continue;
            }
            let r = Searcher::new(pvs(1, 14)).search(&pos, &Zero);
            let full = generic::solve(&pos, 14, 4);
            assert_eq!(r.score, full.score, "{pos:?}");
            assert!(full.best_moves.contains(&r.best_move.unwrap()));
            checked += 1;
        }
        assert!(checked >= 40, "{checked}");
    }

    #[test]
    fn morpion_solves_with_the_generic_search() {
        let pos = Morpion::start(4, 4, 3).play_sequence("a1 b2 c3").unwrap();
        let r = Searcher::new(pvs(1, 13)).search(&pos, &Zero);
        let full = generic::solve(&pos, 13, 4);
        assert_eq!(r.score, full.score);
        assert!(full.best_moves.contains(&r.best_move.unwrap()));
        assert_eq!(r.stats.depth, 13);
    }

    #[test]
    fn a_node_budget_holds_with_the_solve_in_it() {
        for pos in othello_positions(20, 3) {
            for nodes in [1_000, 30_000] {
                let mut config = pvs(64, 20);
                config.limits = Limits {
                    nodes: Some(nodes),
                    ..Limits::default()
                };
                let r = Searcher::new(config).search(&pos, &Discs);
                assert!(r.stats.nodes <= nodes + 1, "{} > {nodes}", r.stats.nodes);
                let mut legal = MoveList::new();
                pos.legal_moves(&mut legal);
                assert!(legal.contains(&r.best_move.unwrap()));
                // Too small a budget for a 20-empty solve: the search played.
                assert!(r.score.abs() < WIN_THRESHOLD || r.stats.depth < 20);
            }
            // A budget the solve fits in: solved.
            let mut config = pvs(64, 20);
            config.limits.nodes = Some(1_000_000_000);
            let r = Searcher::new(config).search(&pos, &Discs);
            assert_eq!(r.stats.depth, 20);
        }
    }

    #[test]
    fn tie_breaks_choose_among_every_best_move() {
        let positions = othello_positions(10, 40);
        let mut differed = false;
        for pos in &positions {
            let best = OthelloSolver::new()
                .all_best_moves(true)
                .solve(pos)
                .best_moves;
            let mut seen = Vec::new();
            for seed in 0..8 {
                let mut config = pvs(2, 10);
                config.options.tie_break = true;
                config.options.seed = seed;
                let mv = Searcher::new(config).search(pos, &Discs).best_move.unwrap();
                assert!(best.contains(&mv));
                if !seen.contains(&mv) {
                    seen.push(mv);
                }
            }
            differed |= seen.len() > 1;
        }
        assert!(differed, "no position had two best moves chosen");
    }

    #[test]
    fn defaults_solve_for_the_engines_of_play_only() {
        let othello = Othello::start();
        assert_eq!(default_exact(&othello, Algorithm::Pvs, None), OTHELLO_EXACT);
        assert_eq!(
            default_exact(&othello, Algorithm::Mtdf, None),
            OTHELLO_EXACT
        );
        // At a fixed depth: 2·depth + 4, capped.
        for (depth, exact) in [(1, 6), (4, 12), (6, 16), (8, 20), (10, 20), (60, 20)] {
            assert_eq!(default_exact(&othello, Algorithm::Pvs, Some(depth)), exact);
        }
        for a in [
            Algorithm::Minimax,
            Algorithm::Negamax,
            Algorithm::AlphaBeta,
            Algorithm::Bisection,
            Algorithm::Mcts,
            Algorithm::Random,
        ] {
            assert_eq!(default_exact(&othello, a, Some(8)), 0);
            assert_eq!(default_exact(&othello, a, None), 0);
        }
        // Connect 4: 2·depth + 4 cells at a fixed depth, capped at 32; never under a budget.
        let connect4 = Connect4::start();
        for (depth, exact) in [(1, 6), (8, 20), (12, 28), (14, 32), (16, 32), (40, 32)] {
            assert_eq!(default_exact(&connect4, Algorithm::Pvs, Some(depth)), exact);
            assert_eq!(
                default_exact(&connect4, Algorithm::Mtdf, Some(depth)),
                exact
            );
            assert_eq!(
                default_exact(&connect4, Algorithm::AlphaBeta, Some(depth)),
                0
            );
        }
        assert_eq!(default_exact(&connect4, Algorithm::Pvs, None), 0);
        let morpion = Morpion::start(3, 3, 3);
        assert_eq!(default_exact(&morpion, Algorithm::Pvs, Some(8)), 0);
        assert_eq!(empties(&Othello::start()), Some(60));
        assert_eq!(empties(&Connect4::start()), Some(42));
        assert_eq!(empties(&Morpion::start(15, 15, 5)), Some(225));
    }
}

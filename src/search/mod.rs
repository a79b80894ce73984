//! The search layer: the algorithms of the minimax course and their modern successors, their
//! limits and statistics, the transposition table and move ordering, and the exact solvers.
//!
//! Scores are integers from the point of view of the side to move (negamax convention); the
//! two-function `minimax` scores for the maximising player, who is the side to move at the root,
//! so every algorithm reports the root value the same way. A won game scores `WIN - plies`
//! (plies from the root) and a lost one `-(WIN - plies)`: win fast, lose slow.

mod alphabeta;
pub mod analysis;
mod bisection;
mod context;
pub mod endgame;
mod mcts;
mod minimax;
mod pvs;
pub mod solver;
mod tactics;
pub mod tt;
pub mod vcf;
pub mod vct;

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::eval::{EvalState, Evaluator};
use crate::games::{Game, MAX_MOVES, MoveList};
use context::{Ctx, PvTable};
use tt::TranspositionTable;

/// The score of a won game at the root; a win `p` plies from the root scores `WIN - p`, a loss
/// `-(WIN - p)`: win fast, lose slow. Far beyond any evaluation ([`crate::eval::EVAL_LIMIT`]).
pub const WIN: i32 = 1 << 24;

/// Scores above this (or below its negation) are wins (losses) found by the search.
pub const WIN_THRESHOLD: i32 = WIN - MAX_PLY as i32;

/// The deepest line a search follows, in plies (the longest game: 15×15 Morpion, 225 plies).
pub const MAX_PLY: usize = 256;

/// The largest depth an engine may be given.
pub const MAX_DEPTH: u32 = 64;

/// Beyond every score.
pub(crate) const INFINITY: i32 = WIN + 1;

/// A search algorithm.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// The course's MinMax: a Max function and a Min function, fixed depth, no pruning.
    Minimax,
    /// The same tree in negamax form.
    Negamax,
    /// Negamax with alpha-beta pruning; optional move ordering, fail-soft or fail-hard.
    #[serde(rename = "alphabeta")]
    AlphaBeta,
    /// The 1994 test search: "can the side to move ensure at least x?" and a dichotomy on x.
    Bisection,
    /// MTD(f): repeated null-window alpha-beta with a transposition table.
    Mtdf,
    /// Principal variation search with iterative deepening, transposition table, killer and
    /// history ordering.
    Pvs,
    /// Monte Carlo tree search (UCT) with a playout budget.
    Mcts,
    /// A uniformly random legal move: the rating floor.
    Random,
}

impl Algorithm {
    /// Every algorithm, simplest first.
    pub const ALL: [Algorithm; 8] = [
        Algorithm::Minimax,
        Algorithm::Negamax,
        Algorithm::AlphaBeta,
        Algorithm::Bisection,
        Algorithm::Mtdf,
        Algorithm::Pvs,
        Algorithm::Mcts,
        Algorithm::Random,
    ];

    /// The exact algorithms: at the same depth they all return the same root value.
    pub const EXACT: [Algorithm; 6] = [
        Algorithm::Minimax,
        Algorithm::Negamax,
        Algorithm::AlphaBeta,
        Algorithm::Bisection,
        Algorithm::Mtdf,
        Algorithm::Pvs,
    ];

    /// The name used in specs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Minimax => "minimax",
            Algorithm::Negamax => "negamax",
            Algorithm::AlphaBeta => "alphabeta",
            Algorithm::Bisection => "bisection",
            Algorithm::Mtdf => "mtdf",
            Algorithm::Pvs => "pvs",
            Algorithm::Mcts => "mcts",
            Algorithm::Random => "random",
        }
    }

    /// Whether the algorithm computes the exact depth-limited minimax value.
    pub fn is_exact(self) -> bool {
        Algorithm::EXACT.contains(&self)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A search configuration that cannot be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// The algorithm name is not one joute knows.
    #[error(
        "unknown algorithm '{0}'; expected minimax, negamax, alphabeta, bisection, mtdf, pvs, mcts or random"
    )]
    UnknownAlgorithm(String),
    /// The depth is out of range.
    #[error("depth {0} is out of range; it must be between 1 and {MAX_DEPTH}")]
    BadDepth(i64),
}

impl FromStr for Algorithm {
    type Err = SearchError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algorithm::ALL
            .iter()
            .copied()
            .find(|a| a.name() == s)
            .ok_or_else(|| SearchError::UnknownAlgorithm(s.to_string()))
    }
}

/// The largest node budget an engine may have: ten billion positions, about a quarter of an
/// hour a move at ten million positions a second.
pub const MAX_NODES: u64 = 10_000_000_000;

/// The most playouts an `mcts` engine may make a move (a hundred million: minutes a move).
pub const MAX_PLAYOUTS: u64 = 100_000_000;

/// The default and the largest size of an `mcts` tree, MiB.
pub const DEFAULT_TREE_MIB: usize = 256;
/// See [`DEFAULT_TREE_MIB`].
pub const MAX_TREE_MIB: usize = 4096;

/// When a search stops. With a node budget or a time limit, the depth-first algorithms deepen
/// iteratively and answer with the deepest iteration they completed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Plies to search (for `mcts`: ignored).
    pub depth: Option<u32>,
    /// Positions to visit at most (for `mcts`: playouts); deterministic.
    pub nodes: Option<u64>,
    /// Wall-clock time per move; results then depend on the machine and are flagged as not
    /// reproducible.
    pub time: Option<Duration>,
}

impl Limits {
    /// A fixed depth.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }
}

/// The order in which `alphabeta` tries the moves of a node.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveOrder {
    /// The order the game generates them in.
    Natural,
    /// Best first by the static evaluation of the position each move leads to.
    Evaluation,
    /// Best first by the exact value of each move at the remaining depth, found by a separate
    /// search that is not counted: the perfectly ordered tree of the Knuth–Moore analysis.
    /// For experiments only: it costs far more than it saves.
    Perfect,
}

/// Options of the algorithms; the defaults suit play.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// `alphabeta`: the order in which moves are tried.
    pub ordering: MoveOrder,
    /// `alphabeta`: return the best value found even outside the window (fail-soft) rather than
    /// the window's bound (fail-hard).
    pub fail_soft: bool,
    /// `mtdf`, `pvs`: transposition table size in MiB.
    pub tt_mib: usize,
    /// `bisection`: stop the dichotomy when the bracket is this narrow (0: exact).
    pub tolerance: i32,
    /// `mcts`: the exploration constant of UCT.
    pub exploration: f64,
    /// `mcts`: playouts per move when no node budget is given.
    pub playouts: u64,
    /// `mcts`: the most memory its tree may take, MiB; when it is full the search goes on
    /// with playouts from the leaves it has, without growing the tree.
    pub tree_mib: usize,
    /// Choose at random (seeded) among the root moves that share the best score, instead of the
    /// first one found; exact algorithms only.
    pub tie_break: bool,
    /// Solve exactly, with the game's solver, when the position to search has at most this
    /// many empty squares (cells); 0: never ([`endgame`]). Every algorithm but `random`.
    pub exact: u32,
    /// `pvs`, `mtdf`: search only the moves within this many cells of a mark, where the game
    /// places marks on a grid (Morpion: [`Game::retain_near`]); 0: every legal move. A
    /// pruning: the search is then no longer the exact fixed-depth minimax of every move.
    pub near: u32,
    /// `pvs`, `mtdf` in the k-in-a-row games (Morpion: gomoku, renju): the threat search —
    /// forced answers to fours with their extension, threat-first ordering and a win by
    /// continuous fours played at once ([`tactics`]). The search is then no longer the exact
    /// fixed-depth minimax. Ignored in the other games.
    pub threats: bool,
    /// With [`SearchOptions::threats`]: each leaf's search for a win by continuous fours visits
    /// at most this many nodes (0: none at the leaves).
    pub vcf: u64,
    /// With [`SearchOptions::threats`]: the VCT searches at the root — a win by continuous
    /// threes and fours, and the opponent's after the move chosen, which sends the search
    /// back without that move — visit at most this many nodes each (0: none; [`tactics`]).
    pub vct: u64,
    /// With [`SearchOptions::threats`]: late move reductions — at nodes of depth 3 and more,
    /// a quiet move tried after the first three (no threat of either side's on its cell, not
    /// the table's move nor a killer) is searched a ply shallower first, and again at full
    /// depth only when it beats the best so far ([`tactics`]). The search then sees deeper
    /// for its nodes, and is no longer the fixed-depth minimax of the moves it keeps.
    pub lmr: bool,
    /// The threads the engine may use: today those of its exact endgame solve (Othello's
    /// solver; [`endgame`]), 1 by default. A parallel solve's node count varies from run to
    /// run, its score and move do not.
    pub threads: u32,
    /// Seed of every random choice the engine makes.
    pub seed: u64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            ordering: MoveOrder::Evaluation,
            fail_soft: true,
            tt_mib: 16,
            tolerance: 0,
            exploration: std::f64::consts::SQRT_2,
            playouts: 1000,
            tree_mib: DEFAULT_TREE_MIB,
            tie_break: false,
            exact: 0,
            near: 0,
            threats: false,
            vcf: 0,
            vct: 0,
            lmr: false,
            threads: 1,
            seed: 0,
        }
    }
}

/// An algorithm with its limits and options.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// When to stop.
    pub limits: Limits,
    /// Options.
    pub options: SearchOptions,
}

impl SearchConfig {
    /// `algorithm` to a fixed `depth` with default options.
    pub fn new(algorithm: Algorithm, depth: u32) -> SearchConfig {
        SearchConfig {
            algorithm,
            limits: Limits::depth(depth),
            options: SearchOptions::default(),
        }
    }
}

/// What a search did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SearchStats {
    /// Positions visited, the root and the positions at the horizon included.
    pub nodes: u64,
    /// Positions scored: by the evaluator at the horizon, or as finished games.
    pub leaves: u64,
    /// Depth of the deepest completed iteration — or of the first that followed every line to
    /// the game's end, when one did (deeper iterations only repeat it) — (for `mcts`, the
    /// length of its principal variation: the most visited line of its tree).
    pub depth: u32,
    /// Selective depth, where the algorithm has one beside its depth: `mcts`'s deepest tree
    /// node; 0 for the depth-first algorithms, whose lines all end at their depth (or at the
    /// game's end).
    pub seldepth: u32,
    /// Wall-clock time.
    pub seconds: f64,
    /// The search was cut by its time limit: the result depends on the machine.
    pub timed_out: bool,
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The move to play; `None` only when the game is over.
    pub best_move: Option<M>,
    /// The root value from the side to move's point of view (`mcts`: the mean result of the
    /// chosen move, scaled to -1000..=1000; `random`: 0).
    pub score: i32,
    /// The principal variation, best move first, where the algorithm has one.
    pub pv: Vec<M>,
    /// Statistics.
    pub stats: SearchStats,
}

/// An engine's search state: configuration, transposition table, ordering tables and its seeded
/// random generator, reused from move to move. Nothing is allocated inside the search.
pub struct Searcher<G: Game> {
    config: SearchConfig,
    tt: Option<TranspositionTable<G::Move>>,
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<[u32; MAX_MOVES]>,
    pv: PvTable<G::Move>,
    rng: ChaCha8Rng,
    endgame: endgame::Endgame,
    /// The threat search's state, in the k-in-a-row games with [`SearchOptions::threats`].
    tactics: Option<tactics::Tactics>,
    /// The moves of the line `pvs` and `mtdf` are searching, by the ply they lead to (the
    /// threat search reads the last one).
    line: Vec<Option<G::Move>>,
    /// The evaluation's state of each position of the line `pvs` and `mtdf` search
    /// ([`Evaluator::tracks`]), by ply.
    states: Vec<EvalState>,
}

impl<G: Game> Searcher<G> {
    /// A searcher for `config`; the random generator is seeded from `config.options.seed`.
    pub fn new(config: SearchConfig) -> Self {
        let tt = matches!(config.algorithm, Algorithm::Mtdf | Algorithm::Pvs)
            .then(|| TranspositionTable::new(config.options.tt_mib));
        let rng = ChaCha8Rng::seed_from_u64(config.options.seed);
        let endgame = endgame::Endgame::new(config.options.tt_mib, config.options.threads as usize);
        let tracked = matches!(config.algorithm, Algorithm::Mtdf | Algorithm::Pvs);
        let tactics = (tracked && config.options.threats)
            .then(tactics::Tactics::for_game::<G>)
            .flatten();
        Searcher {
            config,
            tt,
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![[0; MAX_MOVES]; 2],
            pv: PvTable::new(),
            rng,
            endgame,
            tactics,
            line: vec![None; MAX_PLY + 1],
            states: if tracked {
                vec![EvalState::default(); MAX_PLY + 1]
            } else {
                Vec::new()
            },
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Changes the limits of the next searches (the tables are kept).
    pub fn set_limits(&mut self, limits: Limits) {
        self.config.limits = limits;
    }

    /// Searches `pos` and returns the move to play with its score and statistics.
    pub fn search<E: Evaluator<G>>(&mut self, pos: &G, eval: &E) -> SearchResult<G::Move> {
        let clock = Instant::now();
        let limits = self.config.limits.clone();
        let mut ctx = Ctx::new(eval, &limits, clock);
        if let Some(tactics) = &mut self.tactics {
            tactics.clear_root();
        }
        let solved = self
            .solve_exactly(pos, &mut ctx)
            .or_else(|| self.threats_at_root(pos, &mut ctx));
        let exactly = solved.is_some();
        let mut result = match (solved, self.config.algorithm) {
            (Some(result), _) => result,
            (None, Algorithm::Random) => self.random_move(pos),
            (None, Algorithm::Mcts) => mcts::search(self, pos, &mut ctx),
            (None, _) => self.deepen(pos, &mut ctx),
        };
        if !exactly {
            result = self.avoid_vct_losses(pos, &mut ctx, result);
        }
        if self.config.options.tie_break
            && !exactly
            && self.config.algorithm.is_exact()
            && !ctx.timed_out
            && result.best_move.is_some()
        {
            ctx.lift_limits();
            result.best_move = self.break_ties(pos, &mut ctx, &result);
            if result.pv.first() != result.best_move.as_ref() {
                result.pv = result.best_move.into_iter().collect();
            }
        }
        result.stats.nodes = ctx.nodes;
        result.stats.leaves = ctx.leaves;
        result.stats.timed_out = ctx.timed_out;
        result.stats.seconds = clock.elapsed().as_secs_f64();
        result
    }

    /// The exact solver's choice when the position has at most `exact` empties and the solve
    /// finishes within half of the budget (the search then plays with the rest); its nodes
    /// are counted either way. With `tie_break`, a seeded choice among every best move.
    fn solve_exactly<E: Evaluator<G>>(
        &mut self,
        pos: &G,
        ctx: &mut Ctx<'_, G, E>,
    ) -> Option<SearchResult<G::Move>> {
        let exact = self.config.options.exact;
        if exact == 0 || self.config.algorithm == Algorithm::Random {
            return None;
        }
        let empties = endgame::empties(pos).filter(|&e| e <= exact)?;
        if pos.outcome().is_some() {
            return None;
        }
        let tie_break = self.config.options.tie_break;
        let (solved, nodes) = self.endgame.solve(pos, ctx.half_budget(), tie_break);
        ctx.nodes += nodes;
        let solved = solved?;
        let best_move = if tie_break && solved.best_moves.len() > 1 {
            solved.best_moves[self.rng.random_range(0..solved.best_moves.len())]
        } else {
            solved.best_moves[0]
        };
        let pv = if solved.pv.first() == Some(&best_move) {
            solved.pv
        } else {
            vec![best_move]
        };
        Some(SearchResult {
            best_move: Some(best_move),
            score: solved.score,
            pv,
            stats: SearchStats {
                depth: empties,
                ..SearchStats::default()
            },
        })
    }

    /// What the threat search decides at the root without a search: a win by continuous
    /// fours of the side to move (found within [`tactics::ROOT_VCF_NODES`] and half of the
    /// budget; its nodes are counted either way), with [`SearchOptions::vct`] one by threes
    /// and fours, or a loss to two fives it cannot both block (it blocks one). The search
    /// that follows keeps the invariant its nodes rely on: the side to move never has a five
    /// to play and at most one to block.
    fn threats_at_root<E: Evaluator<G>>(
        &mut self,
        pos: &G,
        ctx: &mut Ctx<'_, G, E>,
    ) -> Option<SearchResult<G::Move>> {
        let tactics = self.tactics.as_mut()?;
        if pos.outcome().is_some() {
            return None;
        }
        let budget = ctx.half_budget();
        let mut allowed = budget.nodes.unwrap_or(u64::MAX);
        if let Some(deadline) = budget.deadline {
            // The VCF and VCT searches read no clock: their nodes are held to what half the
            // time left allows at a pessimistic 20 µs a node.
            let left = deadline.saturating_duration_since(Instant::now());
            allowed = allowed.min(left.as_micros() as u64 / 20);
        }
        let (mut win, used) = tactics.vcf(pos, 0, allowed.min(tactics::ROOT_VCF_NODES), true);
        ctx.nodes += used;
        let forced = tactics.forced(pos, None, 0);
        let vct = self.config.options.vct.min(allowed.saturating_sub(used));
        if win.is_none() && vct > 0 && forced == tactics::Forced::Free {
            let (found, used) = tactics.vct(pos, vct);
            ctx.nodes += used;
            win = found;
        }
        let (score, pv) = match (win, forced) {
            (Some(win), _) => (win.score, win.line),
            (None, tactics::Forced::Lost(score)) => {
                let block = tactics.blocks(pos).into_iter().next().or_else(|| {
                    let mut moves = MoveList::new();
                    pos.legal_moves(&mut moves);
                    moves.first().copied()
                });
                (score, block.into_iter().collect())
            }
            (None, _) => return None,
        };
        Some(SearchResult {
            best_move: pv.first().copied(),
            score,
            stats: SearchStats {
                depth: pv.len() as u32,
                ..SearchStats::default()
            },
            pv,
        })
    }

    /// With [`SearchOptions::vct`], at a fixed depth: the chosen move checked against the
    /// opponent's VCT (within that many nodes); a move that loses to it is left out of the root
    /// and the search run again, at most [`tactics::VCT_RETRIES`] times. When every move tried
    /// loses, the first choice stands. Under a node or time budget the search has spent it, and
    /// nothing is checked.
    fn avoid_vct_losses<E: Evaluator<G>>(
        &mut self,
        pos: &G,
        ctx: &mut Ctx<'_, G, E>,
        first: SearchResult<G::Move>,
    ) -> SearchResult<G::Move> {
        let nodes = self.config.options.vct;
        if nodes == 0 || ctx.has_budget() || pos.outcome().is_some() {
            return first;
        }
        let mut result = first.clone();
        for _ in 0..tactics::VCT_RETRIES {
            let (Some(mv), Some(tactics)) = (result.best_move, self.tactics.as_mut()) else {
                break;
            };
            let (lost, used) = tactics.loses_to_vct(pos, mv, nodes);
            ctx.nodes += used;
            if !lost {
                return result;
            }
            tactics.skip_at_root::<G>(mv);
            result = self.deepen(pos, ctx);
            if result.best_move.is_none() || result.best_move == Some(mv) {
                break;
            }
        }
        first
    }

    /// Runs the configured depth-first algorithm: once at the fixed depth, or deepening one ply
    /// at a time under a node or time budget (always for `mtdf` and `pvs`, whose iterations
    /// feed the transposition table and the move ordering).
    fn deepen<E: Evaluator<G>>(
        &mut self,
        pos: &G,
        ctx: &mut Ctx<'_, G, E>,
    ) -> SearchResult<G::Move> {
        let budgeted = ctx.has_budget();
        let max_depth =
            self.config
                .limits
                .depth
                .unwrap_or(if budgeted { MAX_PLY as u32 - 1 } else { 1 });
        let iterative =
            budgeted || matches!(self.config.algorithm, Algorithm::Mtdf | Algorithm::Pvs);
        if let Some(tt) = &mut self.tt {
            tt.new_search();
        }
        for k in &mut self.killers {
            *k = [None; 2];
        }
        let first = if iterative { 1 } else { max_depth };
        let mut done: Option<SearchResult<G::Move>> = None;
        let mut guess = 0;
        // The first iteration that scored no position with the evaluator followed every line to
        // the game's end: the depth it reached, whatever deeper iterations repeat of it.
        let mut to_the_end: Option<u32> = None;
        for depth in first..=max_depth {
            let evaluated = ctx.evaluated;
            let outcome = match self.config.algorithm {
                Algorithm::Minimax => minimax::search(self, pos, depth, ctx),
                Algorithm::Negamax => minimax::negamax_root(self, pos, depth, ctx),
                Algorithm::AlphaBeta => alphabeta::search(self, pos, depth, ctx),
                Algorithm::Bisection => bisection::search(self, pos, depth, ctx),
                Algorithm::Mtdf => pvs::mtdf(self, pos, depth, guess, ctx),
                Algorithm::Pvs => pvs::search(self, pos, depth, ctx),
                Algorithm::Mcts | Algorithm::Random => unreachable!("not depth-first"),
            };
            if ctx.aborted {
                break;
            }
            guess = outcome.0;
            if ctx.evaluated == evaluated && to_the_end.is_none() {
                to_the_end = Some(depth);
            }
            done = Some(SearchResult {
                best_move: outcome.1,
                score: outcome.0,
                pv: self.pv.line(0).to_vec(),
                stats: SearchStats {
                    depth: to_the_end.map_or(depth, |end| end.min(depth)),
                    ..SearchStats::default()
                },
            });
            // A finished game or a forced result needs no deeper look.
            if outcome.1.is_none() || outcome.0.abs() >= WIN_THRESHOLD && !G::SCORED_LEAVES {
                break;
            }
        }
        done.unwrap_or_else(|| {
            // Not even depth 1 finished within the budget: play the first legal move.
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            SearchResult {
                best_move: moves.first().copied(),
                score: 0,
                pv: moves.first().copied().into_iter().collect(),
                stats: SearchStats::default(),
            }
        })
    }

    fn random_move(&mut self, pos: &G) -> SearchResult<G::Move> {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let best_move = (!moves.is_empty()).then(|| moves[self.rng.random_range(0..moves.len())]);
        SearchResult {
            best_move,
            score: 0,
            pv: best_move.into_iter().collect(),
            stats: SearchStats::default(),
        }
    }

    /// Among the root moves that reach the best score, one chosen with the seeded generator.
    fn break_ties<E: Evaluator<G>>(
        &mut self,
        pos: &G,
        ctx: &mut Ctx<'_, G, E>,
        result: &SearchResult<G::Move>,
    ) -> Option<G::Move> {
        let depth = result.stats.depth.max(1);
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let mut equal: ArrayVec<G::Move, MAX_MOVES> = ArrayVec::new();
        for &mv in &moves {
            // The move reaches the score when the child's value is at most -score.
            let reaches = Some(mv) == result.best_move
                || !bisection::test(self, &pos.play(mv), depth - 1, 1, 1 - result.score, ctx);
            if reaches {
                equal.push(mv);
            }
        }
        if equal.len() <= 1 {
            return result.best_move;
        }
        Some(equal[self.rng.random_range(0..equal.len())])
    }
}

/// Searches `pos` once with `config` and `eval`: a convenience for single questions.
pub fn search_once<G: Game, E: Evaluator<G>>(
    pos: &G,
    config: &SearchConfig,
    eval: &E,
) -> SearchResult<G::Move> {
    Searcher::new(config.clone()).search(pos, eval)
}

/// One test of the bisection search: whether the side to move can ensure at least `x` within
/// `depth` plies, stopping at the first move that does; with the nodes and leaves it took.
pub fn bisection_test<G: Game, E: Evaluator<G>>(
    pos: &G,
    depth: u32,
    x: i32,
    eval: &E,
) -> (bool, SearchStats) {
    let mut searcher = Searcher::new(SearchConfig::new(Algorithm::Bisection, depth));
    let limits = Limits::depth(depth);
    let clock = Instant::now();
    let mut ctx = Ctx::new(eval, &limits, clock);
    let satisfied = bisection::test(&mut searcher, pos, depth, 0, x, &mut ctx);
    let stats = SearchStats {
        nodes: ctx.nodes,
        leaves: ctx.leaves,
        depth,
        seconds: clock.elapsed().as_secs_f64(),
        ..SearchStats::default()
    };
    (satisfied, stats)
}

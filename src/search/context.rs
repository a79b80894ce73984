//! What every algorithm shares during one search: the evaluator, node and leaf counts, the
//! budget, the scoring of finished games, and the principal-variation table.

use std::time::Instant;

use arrayvec::ArrayVec;

use super::{Limits, MAX_PLY, WIN, WIN_THRESHOLD};
use crate::eval::{EvalState, Evaluator};
use crate::games::{Game, MAX_MOVES, MoveList, Side};

/// The per-search state the algorithms thread through their recursion.
pub(crate) struct Ctx<'a, G: Game, E: Evaluator<G>> {
    pub eval: &'a E,
    pub nodes: u64,
    pub leaves: u64,
    /// Positions scored by the evaluator (leaves that are no finished game): an iteration that
    /// scores none has followed every line to the game's end.
    pub evaluated: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    /// The budget ran out: the iteration under way is void.
    pub aborted: bool,
    /// The budget that ran out was the clock.
    pub timed_out: bool,
    _game: std::marker::PhantomData<G>,
}

impl<'a, G: Game, E: Evaluator<G>> Ctx<'a, G, E> {
    pub fn new(eval: &'a E, limits: &Limits, start: Instant) -> Self {
        Ctx {
            eval,
            nodes: 0,
            leaves: 0,
            evaluated: 0,
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            deadline: limits.time.map(|t| start + t),
            aborted: false,
            timed_out: false,
            _game: std::marker::PhantomData,
        }
    }

    /// Whether a node budget or a time limit applies.
    pub fn has_budget(&self) -> bool {
        self.node_limit != u64::MAX || self.deadline.is_some()
    }

    /// Half of what is left of the budget, for an exact solve that the search may have to
    /// replace with the other half.
    pub fn half_budget(&self) -> super::endgame::Budget {
        let now = Instant::now();
        super::endgame::Budget {
            nodes: (self.node_limit != u64::MAX)
                .then(|| self.node_limit.saturating_sub(self.nodes) / 2),
            deadline: self
                .deadline
                .map(|d| now + d.saturating_duration_since(now) / 2),
        }
    }

    /// Removes the budget (for the short extra work after the main search).
    pub fn lift_limits(&mut self) {
        self.node_limit = u64::MAX;
        self.deadline = None;
        self.aborted = false;
    }

    /// Counts a visited position; false once the budget is spent (the caller unwinds).
    #[inline]
    pub fn enter(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            self.aborted = true;
        } else if let Some(deadline) = self.deadline
            && self.nodes & 1023 == 0
            && Instant::now() >= deadline
        {
            self.aborted = true;
            self.timed_out = true;
        }
        !self.aborted
    }

    /// The static evaluation of an unfinished position, counted as a leaf.
    #[inline]
    pub fn evaluate(&mut self, pos: &G) -> i32 {
        self.leaves += 1;
        self.evaluated += 1;
        self.eval.evaluate(pos)
    }

    /// The score of `pos` for the side to move if the game is over there, counted as a leaf.
    #[inline]
    pub fn terminal(&mut self, pos: &G, ply: u32) -> Option<i32> {
        let outcome = pos.outcome()?;
        self.leaves += 1;
        Some(outcome_score(pos, outcome, ply))
    }

    /// The score of a position with no legal move (hence finished), counted as a leaf.
    #[inline]
    pub fn finished(&mut self, pos: &G, ply: u32) -> i32 {
        debug_assert!(pos.outcome().is_some(), "no legal move but not finished");
        self.terminal(pos, ply).unwrap_or(0)
    }

    /// The score at the horizon: finished games by their result, others by the evaluator.
    #[inline]
    pub fn horizon(&mut self, pos: &G, ply: u32) -> i32 {
        match self.terminal(pos, ply) {
            Some(score) => score,
            None => self.evaluate(pos),
        }
    }

    /// [`Ctx::horizon`] for a search that keeps the evaluation's state of `pos`.
    #[inline]
    pub fn horizon_tracked(&mut self, pos: &G, ply: u32, state: &EvalState) -> i32 {
        match self.terminal(pos, ply) {
            Some(score) => score,
            None => {
                self.leaves += 1;
                self.evaluated += 1;
                self.eval.evaluate_tracked(pos, state)
            }
        }
    }
}

/// A finished game's score for the side to move, `ply` plies from the root.
#[inline]
pub(crate) fn outcome_score<G: Game>(pos: &G, outcome: crate::games::Outcome, ply: u32) -> i32 {
    let side = pos.side_to_move();
    if G::SCORED_LEAVES {
        return if side == Side::First {
            outcome.score
        } else {
            -outcome.score
        };
    }
    match outcome.winner {
        None => 0,
        Some(winner) if winner == side => WIN - ply as i32,
        Some(_) => -(WIN - ply as i32),
    }
}

/// A win or loss score made relative to the position it is stored for (transposition table).
#[inline]
pub(crate) fn to_table(value: i32, ply: u32) -> i32 {
    if value >= WIN_THRESHOLD {
        value + ply as i32
    } else if value <= -WIN_THRESHOLD {
        value - ply as i32
    } else {
        value
    }
}

/// The inverse of [`to_table`] at `ply` plies from the root.
#[inline]
pub(crate) fn from_table(value: i32, ply: u32) -> i32 {
    if value >= WIN_THRESHOLD {
        value - ply as i32
    } else if value <= -WIN_THRESHOLD {
        value + ply as i32
    } else {
        value
    }
}

/// The triangular table of principal variations: line `ply` is the best line found from the
/// node at that ply. Allocated once per searcher.
pub(crate) struct PvTable<M> {
    lines: Vec<ArrayVec<M, MAX_PLY>>,
}

impl<M: Copy> PvTable<M> {
    pub fn new() -> Self {
        PvTable {
            lines: (0..=MAX_PLY).map(|_| ArrayVec::new()).collect(),
        }
    }

    /// Empties the line at `ply` (on entering a node).
    #[inline]
    pub fn clear(&mut self, ply: u32) {
        self.lines[ply as usize].clear();
    }

    /// The line at `ply` becomes `mv` followed by the line at `ply + 1`.
    #[inline]
    pub fn update(&mut self, ply: u32, mv: M) {
        let ply = ply as usize;
        let (head, tail) = self.lines.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        let rest = &tail[0];
        let room = MAX_PLY - 1;
        line.extend(rest.iter().take(room).copied());
    }

    /// The line at `ply`.
    pub fn line(&self, ply: u32) -> &[M] {
        &self.lines[ply as usize]
    }
}

/// Reorders `moves` by ascending `key`; moves with equal keys keep their order.
#[inline]
pub(crate) fn sort_moves<M: Copy, K: Ord>(moves: &mut MoveList<M>, mut key: impl FnMut(M) -> K) {
    let mut keyed: ArrayVec<(K, M), MAX_MOVES> = moves.iter().map(|&mv| (key(mv), mv)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    moves.clear();
    moves.extend(keyed.into_iter().map(|(_, mv)| mv));
}

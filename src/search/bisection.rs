//! `bisection`: the 1994 "variante du minimax". A boolean test — can the side to move ensure at
//! least `x` within `k` plies? — answered depth-first, stopping at the first move that
//! satisfies it, and a dichotomy on `x` over the bounded range of values (MTD-bi in later
//! literature). Exact with tolerance 0; a wider tolerance stops once the bracket is that narrow
//! and answers its lower end.

use super::context::Ctx;
use super::{Searcher, WIN};
use crate::eval::Evaluator;
use crate::games::{Game, MoveList};

/// Whether the value of `pos` searched `depth` plies deep is at least `x`, for the side to move.
/// At the root (`ply == 0`) the first satisfying move is left in the PV table.
pub(super) fn test<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ply: u32,
    x: i32,
    ctx: &mut Ctx<'_, G, E>,
) -> bool {
    if !ctx.enter() {
        return false;
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if depth == 0 || moves.is_empty() {
        return ctx.horizon(pos, ply) >= x;
    }
    for &mv in &moves {
        // value(pos) >= x  <=>  some child has value <= -x  <=>  not (child value >= 1 - x).
        let refuted = test(s, &pos.play(mv), depth - 1, ply + 1, 1 - x, ctx);
        if ctx.aborted {
            return false;
        }
        if !refuted {
            if ply == 0 {
                s.pv.clear(0);
                s.pv.update(0, mv);
            }
            return true;
        }
    }
    false
}

/// The dichotomy at the root. First places the value among the losses, the evaluations or the
/// wins with two tests at the evaluator's bound, then halves the bracket `[lo, hi)` where
/// `value >= lo` holds and `value >= hi` does not.
pub(super) fn search<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> (i32, Option<G::Move>) {
    let bound = ctx.eval.bound().clamp(0, WIN - super::MAX_PLY as i32 - 1);
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        s.pv.clear(0);
        return (ctx.finished(pos, 0), None);
    }
    let tolerance = s.config.options.tolerance.max(0);
    let mut best = None;
    let (mut lo, mut hi);
    if !test(s, pos, depth, 0, -bound, ctx) {
        (lo, hi) = (-WIN, -bound);
    } else {
        let reaches_low = s.pv.line(0).first().copied();
        if test(s, pos, depth, 0, bound + 1, ctx) {
            best = s.pv.line(0).first().copied();
            (lo, hi) = (bound + 1, WIN + 1);
        } else {
            best = reaches_low;
            (lo, hi) = (-bound, bound + 1);
        }
    }
    if ctx.aborted {
        return (0, None);
    }
    while hi - lo > 1 + tolerance {
        let mid = lo + (hi - lo) / 2;
        if test(s, pos, depth, 0, mid, ctx) {
            lo = mid;
            best = s.pv.line(0).first().copied();
        } else {
            hi = mid;
        }
        if ctx.aborted {
            return (0, None);
        }
    }
    if best.is_none() {
        // Only when every value is a loss: no test succeeded yet, run the one at `lo`.
        test(s, pos, depth, 0, lo, ctx);
        best = s.pv.line(0).first().copied();
    }
    s.pv.clear(0);
    if let Some(mv) = best {
        s.pv.update(0, mv);
    }
    (lo, best)
}

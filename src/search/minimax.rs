//! `minimax` (the course's two functions, Max and Min) and `negamax` (the same tree in one
//! function): full-width, fixed-depth, no pruning.

use super::context::Ctx;
use super::{INFINITY, Searcher};
use crate::eval::Evaluator;
use crate::games::{Game, MoveList, Side};

/// The value of `pos` for `max`, at the horizon or at the end of the game.
fn leaf_for_max<G: Game, E: Evaluator<G>>(
    pos: &G,
    ply: u32,
    max: Side,
    ctx: &mut Ctx<'_, G, E>,
) -> i32 {
    let score = ctx.horizon(pos, ply);
    if pos.side_to_move() == max {
        score
    } else {
        -score
    }
}

/// The value of a position for the maximising player, by whichever of Max and Min is to move.
fn value<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ply: u32,
    max: Side,
    ctx: &mut Ctx<'_, G, E>,
) -> i32 {
    if pos.side_to_move() == max {
        max_value(s, pos, depth, ply, max, ctx)
    } else {
        min_value(s, pos, depth, ply, max, ctx)
    }
}

/// Max: the best value among the children, for the maximising player.
fn max_value<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ply: u32,
    max: Side,
    ctx: &mut Ctx<'_, G, E>,
) -> i32 {
    if !ctx.enter() {
        return 0;
    }
    s.pv.clear(ply);
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if depth == 0 || moves.is_empty() {
        return leaf_for_max(pos, ply, max, ctx);
    }
    let mut best = -INFINITY;
    for &mv in &moves {
        let v = value(s, &pos.play(mv), depth - 1, ply + 1, max, ctx);
        if ctx.aborted {
            return 0;
        }
        if v > best {
            best = v;
            s.pv.update(ply, mv);
        }
    }
    best
}

/// Min: the worst value among the children, for the maximising player.
fn min_value<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ply: u32,
    max: Side,
    ctx: &mut Ctx<'_, G, E>,
) -> i32 {
    if !ctx.enter() {
        return 0;
    }
    s.pv.clear(ply);
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if depth == 0 || moves.is_empty() {
        return leaf_for_max(pos, ply, max, ctx);
    }
    let mut best = INFINITY;
    for &mv in &moves {
        let v = value(s, &pos.play(mv), depth - 1, ply + 1, max, ctx);
        if ctx.aborted {
            return 0;
        }
        if v < best {
            best = v;
            s.pv.update(ply, mv);
        }
    }
    best
}

/// `minimax` at the root: the side to move maximises.
pub(super) fn search<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> (i32, Option<G::Move>) {
    let score = max_value(s, pos, depth, 0, pos.side_to_move(), ctx);
    (score, s.pv.line(0).first().copied())
}

/// `negamax`: each node takes the best of its children's negated values.
fn negamax<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ply: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> i32 {
    if !ctx.enter() {
        return 0;
    }
    s.pv.clear(ply);
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if depth == 0 || moves.is_empty() {
        return ctx.horizon(pos, ply);
    }
    let mut best = -INFINITY;
    for &mv in &moves {
        let v = -negamax(s, &pos.play(mv), depth - 1, ply + 1, ctx);
        if ctx.aborted {
            return 0;
        }
        if v > best {
            best = v;
            s.pv.update(ply, mv);
        }
    }
    best
}

/// `negamax` at the root.
pub(super) fn negamax_root<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> (i32, Option<G::Move>) {
    let score = negamax(s, pos, depth, 0, ctx);
    (score, s.pv.line(0).first().copied())
}

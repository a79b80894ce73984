//! `alphabeta`: negamax with alpha-beta pruning, as in the course. Options: try the moves in
//! the order of their static evaluation, and fail-soft or fail-hard returns.

use super::context::Ctx;
use super::context::{outcome_score, sort_moves};
use super::{INFINITY, MoveOrder, Searcher};
use crate::eval::Evaluator;
use crate::games::{Game, MoveList};

/// Orders `moves` best first by the static value of the position each one leads to (a finished
/// game by its result). These evaluations steer the order only and are not counted as leaves.
pub(super) fn order_by_evaluation<G: Game, E: Evaluator<G>>(
    pos: &G,
    moves: &mut MoveList<G::Move>,
    ply: u32,
    eval: &E,
) {
    // The child's value is from the opponent's side: lowest first is best for us.
    sort_moves(moves, |mv| {
        let child = pos.play(mv);
        match child.outcome() {
            Some(outcome) => outcome_score(&child, outcome, ply + 1),
            None => eval.evaluate(&child),
        }
    });
}

/// The exact value of `pos` searched `depth` plies deep, by plain negamax, uncounted.
fn exact_value<G: Game, E: Evaluator<G>>(pos: &G, depth: u32, ply: u32, eval: &E) -> i32 {
    if let Some(outcome) = pos.outcome() {
        return outcome_score(pos, outcome, ply);
    }
    if depth == 0 {
        return eval.evaluate(pos);
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves
        .iter()
        .map(|&mv| -exact_value(&pos.play(mv), depth - 1, ply + 1, eval))
        .max()
        .unwrap_or(0)
}

/// Orders `moves` best first by their exact values at the remaining depth (ties keep their
/// order): the perfectly ordered tree.
fn order_perfectly<G: Game, E: Evaluator<G>>(
    pos: &G,
    moves: &mut MoveList<G::Move>,
    depth: u32,
    ply: u32,
    eval: &E,
) {
    sort_moves(moves, |mv| {
        exact_value(&pos.play(mv), depth - 1, ply + 1, eval)
    });
}

fn alphabeta<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ply: u32,
    mut alpha: i32,
    beta: i32,
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
    match s.config.options.ordering {
        MoveOrder::Evaluation if depth > 1 => order_by_evaluation(pos, &mut moves, ply, ctx.eval),
        MoveOrder::Perfect if moves.len() > 1 => {
            order_perfectly(pos, &mut moves, depth, ply, ctx.eval)
        }
        _ => {}
    }
    let alpha_in = alpha;
    let mut best = -INFINITY;
    for &mv in &moves {
        let v = -alphabeta(s, &pos.play(mv), depth - 1, ply + 1, -beta, -alpha, ctx);
        if ctx.aborted {
            return 0;
        }
        if v > best {
            best = v;
            if v > alpha {
                alpha = v;
                s.pv.update(ply, mv);
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    if s.config.options.fail_soft {
        best
    } else {
        best.clamp(alpha_in, beta)
    }
}

/// `alphabeta` at the root, with the full window.
pub(super) fn search<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> (i32, Option<G::Move>) {
    let score = alphabeta(s, pos, depth, 0, -INFINITY, INFINITY, ctx);
    (score, s.pv.line(0).first().copied())
}

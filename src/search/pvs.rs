//! `pvs` — principal variation search with iterative deepening, a transposition table, killer
//! moves and the history heuristic — and `mtdf`, MTD(f), which drives the same node search with
//! null windows only.
//!
//! The transposition table cuts only on entries searched to exactly the remaining depth, so
//! both return the same value as a plain fixed-depth minimax; deeper entries still supply the
//! first move to try.

use arrayvec::ArrayVec;

use super::context::{Ctx, from_table, sort_moves, to_table};
use super::tt::Bound;
use super::{INFINITY, Searcher};
use crate::eval::Evaluator;
use crate::games::{Game, MoveList};

/// Orders `moves` for the node at `ply`: the table's move, then the two killers, then by the
/// history counters of the side to move.
fn order<G: Game>(
    s: &Searcher<G>,
    pos: &G,
    moves: &mut MoveList<G::Move>,
    ply: u32,
    hash_move: Option<G::Move>,
) {
    let side = pos.side_to_move() as usize;
    let killers = s.killers[ply as usize];
    sort_moves(moves, |mv| {
        let key = if Some(mv) == hash_move {
            u32::MAX
        } else if Some(mv) == killers[0] {
            u32::MAX - 1
        } else if Some(mv) == killers[1] {
            u32::MAX - 2
        } else {
            s.history[side][pos.move_index(mv)].min(u32::MAX - 3)
        };
        std::cmp::Reverse(key)
    });
}

/// The value of `pos` within `(alpha, beta)`, fail-soft: a value at or below `alpha` is an upper
/// bound, one at or above `beta` a lower bound.
pub(super) fn node<G: Game, E: Evaluator<G>>(
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
    if depth == 0 {
        return ctx.horizon(pos, ply);
    }
    let key = pos.hash_key();
    let mut hash_move = None;
    if let Some(entry) = s.tt.as_ref().and_then(|tt| tt.probe(key)) {
        hash_move = entry.best;
        if entry.depth as u32 == depth && ply > 0 {
            let v = from_table(entry.value, ply);
            let cut = match entry.bound {
                Bound::Exact => true,
                Bound::Lower => v >= beta,
                Bound::Upper => v <= alpha,
            };
            if cut {
                return v;
            }
        }
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        return ctx.finished(pos, ply);
    }
    order(s, pos, &mut moves, ply, hash_move);

    let alpha_in = alpha;
    let mut best = -INFINITY;
    let mut best_move = None;
    for (i, &mv) in moves.iter().enumerate() {
        let child = pos.play(mv);
        let v = if i == 0 {
            -node(s, &child, depth - 1, ply + 1, -beta, -alpha, ctx)
        } else {
            // A null window proves the move no better; re-search only when it is.
            let mut v = -node(s, &child, depth - 1, ply + 1, -alpha - 1, -alpha, ctx);
            if v > alpha && v < beta && !ctx.aborted {
                v = -node(s, &child, depth - 1, ply + 1, -beta, -alpha, ctx);
            }
            v
        };
        if ctx.aborted {
            return 0;
        }
        if v > best {
            best = v;
            best_move = Some(mv);
            if v > alpha {
                alpha = v;
                s.pv.update(ply, mv);
            }
        }
        if alpha >= beta {
            let slot = &mut s.killers[ply as usize];
            if slot[0] != Some(mv) {
                slot[1] = slot[0];
                slot[0] = Some(mv);
            }
            let counter = &mut s.history[pos.side_to_move() as usize][pos.move_index(mv)];
            *counter = counter.saturating_add(depth * depth);
            break;
        }
    }
    let bound = if best <= alpha_in {
        Bound::Upper
    } else if best >= beta {
        Bound::Lower
    } else {
        Bound::Exact
    };
    if let Some(tt) = &mut s.tt {
        tt.store(key, depth, bound, to_table(best, ply), best_move);
    }
    best
}

/// One iteration of `pvs` at the root, with the full window.
pub(super) fn search<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> (i32, Option<G::Move>) {
    let score = node(s, pos, depth, 0, -INFINITY, INFINITY, ctx);
    (score, s.pv.line(0).first().copied())
}

/// One iteration of MTD(f) at the root: null-window searches around the guess `first` until the
/// lower and upper bounds meet. The best move is the one that proved the final lower bound.
pub(super) fn mtdf<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    first: i32,
    ctx: &mut Ctx<'_, G, E>,
) -> (i32, Option<G::Move>) {
    let (mut lower, mut upper) = (-INFINITY, INFINITY);
    let mut g = first;
    let mut best = None;
    while lower < upper {
        let beta = g.max(lower + 1);
        g = node(s, pos, depth, 0, beta - 1, beta, ctx);
        if ctx.aborted {
            return (0, None);
        }
        if g < beta {
            upper = g;
        } else {
            lower = g;
            best = s.pv.line(0).first().copied();
        }
    }
    // The principal variation: the table's best moves from the root.
    s.pv.clear(0);
    let mut line: ArrayVec<G::Move, { super::MAX_PLY }> = ArrayVec::new();
    if let Some(mv) = best {
        line.push(mv);
        let mut cursor = pos.play(mv);
        while line.len() < depth as usize {
            let next =
                s.tt.as_ref()
                    .and_then(|tt| tt.probe(cursor.hash_key()))
                    .and_then(|e| e.best);
            let Some(mv) = next else { break };
            let mut legal = MoveList::new();
            cursor.legal_moves(&mut legal);
            if !legal.contains(&mv) {
                break;
            }
            line.push(mv);
            cursor = cursor.play(mv);
        }
    }
    for (ply, &mv) in line.iter().enumerate().rev() {
        s.pv.update(ply as u32, mv);
    }
    (g, best)
}

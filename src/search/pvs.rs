//! `pvs` — principal variation search with iterative deepening, a transposition table, killer
//! moves and the history heuristic — and `mtdf`, MTD(f), which drives the same node search with
//! null windows only.
//!
//! The transposition table cuts only on entries searched to exactly the remaining depth, so
//! both return the same value as a plain fixed-depth minimax; deeper entries still supply the
//! first move to try.

use arrayvec::ArrayVec;

use super::context::{Ctx, from_table, to_table};
use super::tactics::{Forced, Tactics};
use super::tt::Bound;
use super::{INFINITY, MAX_PLY, Searcher, WIN};
use crate::eval::Evaluator;
use crate::games::threats::Cells;
use crate::games::{Game, MAX_MOVES, MoveList};

/// The ordering key of each of `moves` at the node at `ply`, higher first: the table's move,
/// then the two killers, then the history counters of the side to move.
fn order_keys<G: Game>(
    s: &Searcher<G>,
    pos: &G,
    moves: &MoveList<G::Move>,
    ply: u32,
    hash_move: Option<G::Move>,
    keys: &mut ArrayVec<u32, MAX_MOVES>,
) {
    let side = pos.side_to_move() as usize;
    let killers = s.killers[ply as usize];
    keys.extend(moves.iter().map(|&mv| {
        if Some(mv) == hash_move {
            u32::MAX
        } else if Some(mv) == killers[0] {
            u32::MAX - 1
        } else if Some(mv) == killers[1] {
            u32::MAX - 2
        } else {
            s.history[side][pos.move_index(mv)].min(u32::MAX - 3)
        }
    }));
}

/// Brings the best remaining move (highest key, the earliest of equals) of `moves[i..]` to
/// `i`, the others keeping their order, and returns it: move by move, the order of a stable
/// sort by descending key, without sorting the moves a cutoff never reaches.
#[inline]
fn pick<M: Copy>(moves: &mut [M], keys: &mut [u32], i: usize) -> M {
    let mut best = i;
    for j in i + 1..moves.len() {
        if keys[j] > keys[best] {
            best = j;
        }
    }
    if best != i {
        moves[i..=best].rotate_right(1);
        keys[i..=best].rotate_right(1);
    }
    moves[i]
}

/// The threat search's verdict on the fives of `pos` (k-in-a-row games, `threats` on): the
/// block forced by the opponent's five to play, the only move (`Ok(Some)`), or a loss to two
/// fives, scored without a search (`Err`); `Ok(None)` otherwise, and always at the root,
/// which [`super::Searcher::search`] judged before.
fn forced_block<G: Game>(s: &Searcher<G>, pos: &G, ply: u32) -> Result<Option<G::Move>, i32> {
    let Some(tactics) = &s.tactics else {
        return Ok(None);
    };
    if pos.outcome().is_some() || ply as usize >= MAX_PLY - 2 {
        return Ok(None);
    }
    let last = if ply == 0 { None } else { s.line[ply as usize] };
    match tactics.forced(pos, last, ply) {
        Forced::Free => Ok(None),
        Forced::Only(mv) => Ok(Some(mv)),
        Forced::Lost(score) if ply > 0 => Err(score),
        Forced::Lost(_) => Ok(None),
    }
}

/// The score at the horizon: a win by continuous fours when `vcf` asks for one and it is
/// found, else the evaluation.
fn horizon<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    ply: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> i32 {
    if s.config.options.vcf > 0
        && pos.outcome().is_none()
        && let Some(tactics) = &mut s.tactics
    {
        let (win, nodes) = tactics.vcf(pos, ply, s.config.options.vcf, false);
        ctx.nodes += nodes;
        if let Some(win) = win {
            return win.score;
        }
    }
    ctx.horizon_tracked(pos, ply, &s.states[ply as usize])
}

/// Narrows the legal `moves` of `pos` to those searched: the `forced` block alone; against an
/// open three of the opponent's, its defences and the side's own fours (none: a loss, `Err`,
/// but at the root every move stays); else the cells `near` a mark. At the root, the moves
/// found lost to the opponent's VCT are left out, unless no other is left. Whether a threat
/// chose the moves (the block, or the answers to a three): `true`.
fn candidates<G: Game>(
    s: &Searcher<G>,
    pos: &G,
    ply: u32,
    forced: Option<G::Move>,
    moves: &mut MoveList<G::Move>,
) -> Result<bool, i32> {
    let mut threatened = true;
    if let Some(only) = forced {
        moves.clear();
        moves.push(only);
    } else if let Some(tactics) = &s.tactics
        && let Some(keep) = tactics.against_threes(pos)
    {
        moves.retain(|&mut mv| Tactics::holds::<G>(&keep, mv));
        if moves.is_empty() {
            if ply > 0 {
                return Err(-(WIN - ply as i32 - 4));
            }
            pos.legal_moves(moves);
        }
    } else {
        threatened = false;
        if s.config.options.near > 0 {
            pos.retain_near(moves, s.config.options.near);
        }
    }
    if ply == 0
        && forced.is_none()
        && let Some(tactics) = &s.tactics
    {
        let skip = tactics.root_skip();
        if moves.iter().any(|&mv| !Tactics::holds::<G>(skip, mv)) {
            moves.retain(|&mut mv| !Tactics::holds::<G>(skip, mv));
        }
    }
    Ok(threatened)
}

/// Late move reductions: moves tried before this many are never reduced.
const LMR_FULL_MOVES: usize = 3;

/// Late move reductions: only at nodes of at least this depth (the reduced child then has 1).
const LMR_MIN_DEPTH: u32 = 3;

/// Late move reductions: moves tried from this one on are reduced by two plies, at nodes
/// deep enough for the child to keep one.
const LMR_DEEP_MOVES: usize = 8;

/// Late move reductions at one node. A node may reduce when it is deep enough, not the root,
/// and no threat forces its moves; its moves on the cells of either side's threats
/// ([`Tactics::threat_cells`]) stay at full depth. The cells are found when the first move
/// that could be reduced comes up: most nodes cut off before it.
struct LateMoves {
    may_reduce: bool,
    unreduced: Option<Cells>,
}

impl LateMoves {
    fn new<G: Game>(s: &Searcher<G>, depth: u32, ply: u32, free: bool) -> Self {
        let may_reduce = s.tactics.is_some()
            && s.config.options.lmr
            && free
            && depth >= LMR_MIN_DEPTH
            && ply > 0;
        LateMoves {
            may_reduce,
            unreduced: None,
        }
    }

    /// How many plies shallower `mv`, the node's `i`th move with ordering key `key`, is
    /// searched first at a node of `depth`: none among the first few, for the table's move or
    /// a killer, or on a threat cell; two for the latest moves when the child keeps a ply;
    /// otherwise one.
    fn reduction<G: Game>(
        &mut self,
        s: &Searcher<G>,
        pos: &G,
        (i, key, mv): (usize, u32, G::Move),
        depth: u32,
    ) -> u32 {
        if !self.may_reduce || i < LMR_FULL_MOVES || key >= u32::MAX - 2 {
            return 0;
        }
        let Some(tactics) = &s.tactics else {
            return 0;
        };
        let cells = self
            .unreduced
            .get_or_insert_with(|| tactics.threat_cells(pos));
        if Tactics::holds::<G>(cells, mv) {
            0
        } else if i >= LMR_DEEP_MOVES && depth > LMR_MIN_DEPTH {
            2
        } else {
            1
        }
    }
}

/// Threats first: the side to move's fours get the key right after the table's move.
fn fours_first<G: Game>(s: &Searcher<G>, pos: &G, moves: &[G::Move], keys: &mut [u32]) {
    let Some(tactics) = &s.tactics else {
        return;
    };
    let fours = tactics.fours(pos);
    for (key, &mv) in keys.iter_mut().zip(moves) {
        if *key != u32::MAX && Tactics::holds::<G>(&fours, mv) {
            *key = u32::MAX - 1;
        }
    }
}

/// The transposition table's word on the node of `key`: its move to try first (`Ok`), or the
/// value that ends the node when an entry of exactly `depth` decides it (`Err`; never at the
/// root, which must return a move).
fn probe<G: Game>(
    s: &Searcher<G>,
    key: u64,
    depth: u32,
    ply: u32,
    alpha: i32,
    beta: i32,
) -> Result<Option<G::Move>, i32> {
    let Some(entry) = s.tt.as_ref().and_then(|tt| tt.probe(key)) else {
        return Ok(None);
    };
    if entry.depth as u32 == depth && ply > 0 {
        let v = from_table(entry.value, ply);
        let cut = match entry.bound {
            Bound::Exact => true,
            Bound::Lower => v >= beta,
            Bound::Upper => v <= alpha,
        };
        if cut {
            return Err(v);
        }
    }
    Ok(entry.best)
}

/// The value of `child`, a move after a node's first, within the node's `(alpha, beta)`: a
/// null window proves it no better, and only a move that is better is searched again with the
/// full window; a move with a `reduction` is tried that many plies shallower first, and at
/// full depth only when it beats `alpha` there.
fn later_move<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    child: &G,
    child_depth: u32,
    ply: u32,
    (alpha, beta): (i32, i32),
    reduction: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> i32 {
    let mut v = alpha + 1;
    if reduction > 0 {
        v = -node(
            s,
            child,
            child_depth - reduction,
            ply + 1,
            -alpha - 1,
            -alpha,
            ctx,
        );
    }
    if v > alpha && !ctx.aborted {
        v = -node(s, child, child_depth, ply + 1, -alpha - 1, -alpha, ctx);
    }
    if v > alpha && v < beta && !ctx.aborted {
        v = -node(s, child, child_depth, ply + 1, -beta, -alpha, ctx);
    }
    v
}

/// A cutoff by `mv` at the node of `pos`: it becomes the ply's first killer, and its history
/// counter grows by depth².
fn note_cutoff<G: Game>(s: &mut Searcher<G>, pos: &G, mv: G::Move, depth: u32, ply: u32) {
    let slot = &mut s.killers[ply as usize];
    if slot[0] != Some(mv) {
        slot[1] = slot[0];
        slot[0] = Some(mv);
    }
    let counter = &mut s.history[pos.side_to_move() as usize][pos.move_index(mv)];
    *counter = counter.saturating_add(depth * depth);
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
    let forced = match forced_block(s, pos, ply) {
        Ok(forced) => forced,
        Err(score) => return score,
    };
    let extension = u32::from(forced.is_some() && ply > 0);
    if depth == 0 && extension == 0 {
        return horizon(s, pos, ply, ctx);
    }
    let key = pos.hash_key();
    let hash_move = match probe(s, key, depth, ply, alpha, beta) {
        Ok(hash_move) => hash_move,
        Err(cut) => return cut,
    };
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        return ctx.finished(pos, ply);
    }
    let threatened = match candidates(s, pos, ply, forced, &mut moves) {
        Ok(threatened) => threatened,
        Err(score) => return score,
    };
    let mut keys = ArrayVec::new();
    order_keys(s, pos, &moves, ply, hash_move, &mut keys);
    if forced.is_none() && depth >= 2 {
        fours_first(s, pos, &moves, &mut keys);
    }
    // The child's depth: a forced block does not count.
    let child_depth = depth + extension - 1;
    let mut late = LateMoves::new(s, depth, ply, !threatened);

    let alpha_in = alpha;
    let mut best = -INFINITY;
    let mut best_move = None;
    for i in 0..moves.len() {
        let mv = pick(&mut moves, &mut keys, i);
        let child = play_child(s, pos, mv, ply, ctx);
        let v = if i == 0 {
            -node(s, &child, child_depth, ply + 1, -beta, -alpha, ctx)
        } else {
            let reduction = late.reduction(s, pos, (i, keys[i], mv), depth);
            let window = (alpha, beta);
            later_move(s, &child, child_depth, ply, window, reduction, ctx)
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
            note_cutoff(s, pos, mv, depth, ply);
            break;
        }
    }
    store(s, (key, depth, ply), (alpha_in, beta), best, best_move);
    best
}

/// `mv` played from `pos`, the node at `ply`: the line records it and the evaluation's state
/// of the child, when it keeps one, follows it.
fn play_child<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    mv: G::Move,
    ply: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> G {
    let child = pos.play(mv);
    s.line[ply as usize + 1] = Some(mv);
    if ctx.eval.tracks() {
        let (line, next) = s.states.split_at_mut(ply as usize + 1);
        ctx.eval
            .track_move(pos, &child, &line[ply as usize], &mut next[0]);
    }
    child
}

/// The transposition table keeps `best`, the value of the node of `key` searched to `depth`
/// at `ply` within `(alpha, beta)`, as the bound it is, with the move that gave it.
fn store<G: Game>(
    s: &mut Searcher<G>,
    (key, depth, ply): (u64, u32, u32),
    (alpha, beta): (i32, i32),
    best: i32,
    best_move: Option<G::Move>,
) {
    let bound = if best <= alpha {
        Bound::Upper
    } else if best >= beta {
        Bound::Lower
    } else {
        Bound::Exact
    };
    if let Some(tt) = &mut s.tt {
        tt.store(key, depth, bound, to_table(best, ply), best_move);
    }
}

/// Sets the evaluation's state of the root, when it keeps one.
fn track_root<G: Game, E: Evaluator<G>>(s: &mut Searcher<G>, pos: &G, ctx: &Ctx<'_, G, E>) {
    if ctx.eval.tracks() {
        ctx.eval.track(pos, &mut s.states[0]);
    }
}

/// One iteration of `pvs` at the root, with the full window.
pub(super) fn search<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    pos: &G,
    depth: u32,
    ctx: &mut Ctx<'_, G, E>,
) -> (i32, Option<G::Move>) {
    track_root(s, pos, ctx);
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
    track_root(s, pos, ctx);
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

#[cfg(test)]
mod tests {
    use super::pick;
    use proptest::prelude::*;

    proptest! {
        /// Picking move by move gives the order of a stable sort by descending key.
        #[test]
        fn picking_is_a_stable_sort_by_descending_key(keys in prop::collection::vec(0u32..6, 0..40)) {
            let mut moves: Vec<usize> = (0..keys.len()).collect();
            let mut sorted = moves.clone();
            sorted.sort_by_key(|&m| std::cmp::Reverse(keys[m]));
            let mut k = keys.clone();
            let picked: Vec<usize> = (0..keys.len()).map(|i| pick(&mut moves, &mut k, i)).collect();
            prop_assert_eq!(picked, sorted);
        }
    }
}

#[cfg(test)]
mod tracked_tests {
    use crate::eval::{Evaluator, PatternEval, PatternWeights};
    use crate::games::{Othello, random_position};
    use crate::search::{Algorithm, SearchConfig, Searcher};

    /// The pattern evaluation without its state: every leaf read from the board.
    struct Untracked<'a>(&'a PatternEval);

    impl Evaluator<Othello> for Untracked<'_> {
        fn evaluate(&self, pos: &Othello) -> i32 {
            self.0.evaluate(pos)
        }
        fn bound(&self) -> i32 {
            self.0.bound()
        }
    }

    #[test]
    fn searches_that_track_the_patterns_are_the_searches_that_do_not() {
        let mut weights = PatternWeights::zeros(4);
        let mut x = 7u64;
        for w in weights.values.iter_mut() {
            x = crate::games::hash::mix64(x);
            *w = (x % 2001) as f32 / 1000.0 - 1.0;
        }
        let eval = PatternEval::new(&weights);
        assert!(eval.tracks());
        for seed in 0..12 {
            let pos = random_position(Othello::start(), 10 + 4 * seed as usize, seed);
            for algorithm in [Algorithm::Pvs, Algorithm::Mtdf] {
                let config = SearchConfig::new(algorithm, 5);
                let tracked = Searcher::new(config.clone()).search(&pos, &eval);
                let plain = Searcher::new(config).search(&pos, &Untracked(&eval));
                assert_eq!(
                    (
                        tracked.best_move,
                        tracked.score,
                        &tracked.pv,
                        tracked.stats.nodes
                    ),
                    (plain.best_move, plain.score, &plain.pv, plain.stats.nodes),
                    "{algorithm} {pos:?}"
                );
            }
        }
    }
}

#[cfg(test)]
mod near_tests {
    use crate::eval::{LinearEval, Weights};
    use crate::games::{Game, Morpion, random_position};
    use crate::search::{Algorithm, SearchConfig, Searcher};

    fn config(depth: u32, near: u32) -> SearchConfig {
        let mut config = SearchConfig::new(Algorithm::Pvs, depth);
        config.options.near = near;
        config
    }

    #[test]
    fn near_moves_cover_the_board_as_every_move_does_and_prune_otherwise() {
        let start = Morpion::start(9, 9, 5);
        let eval = LinearEval::new(&start, &Weights::default_for(&start));
        for seed in 0..10u64 {
            let pos = random_position(start, 3 + seed as usize, seed);
            if pos.outcome().is_some() {
                continue;
            }
            // Within 8 of any mark is every cell of a 9×9 board: the same search.
            let all = Searcher::new(config(3, 0)).search(&pos, &eval);
            let wide = Searcher::new(config(3, 8)).search(&pos, &eval);
            assert_eq!(
                (all.best_move, all.score, &all.pv, all.stats.nodes),
                (wide.best_move, wide.score, &wide.pv, wide.stats.nodes)
            );
            // Within 1: a move next to a mark, in fewer nodes.
            let near = Searcher::new(config(3, 1)).search(&pos, &eval);
            let mv = near.best_move.unwrap().0 as i32;
            assert!((0..81).any(|i| {
                pos.mark_at(i as usize).is_some()
                    && (i / 9 - mv / 9).abs() <= 1
                    && (i % 9 - mv % 9).abs() <= 1
            }));
            assert!(near.stats.nodes < all.stats.nodes, "seed {seed}");
        }
    }

    #[test]
    fn near_search_still_finds_the_win_and_the_block() {
        let start = Morpion::start(15, 15, 5);
        let eval = LinearEval::new(&start, &Weights::default_for(&start));
        // X h8 h9 h10 h11 with O scattered: X to move wins at h7 or h12.
        let pos = start.play_sequence("h8 a1 h9 o15 h10 a15 h11 o1").unwrap();
        let result = Searcher::new(config(2, 2)).search(&pos, &eval);
        let win = result.best_move.map(|m| pos.format_move(m)).unwrap();
        assert!(win == "h7" || win == "h12", "{win}");
        assert_eq!(result.score, crate::search::WIN - 1);
        // O to move against X's four on a closed end (h7 is O's): O blocks at h12.
        let pos = start.play_sequence("h8 h7 h9 o15 h10 a15 h11").unwrap();
        let result = Searcher::new(config(3, 2)).search(&pos, &eval);
        assert_eq!(result.best_move.map(|m| pos.format_move(m)).unwrap(), "h12");
    }
}

#[cfg(test)]
mod lmr_tests {
    use super::LateMoves;
    use crate::games::{Game, Morpion};
    use crate::search::{Algorithm, SearchConfig, Searcher};

    fn searcher() -> Searcher<Morpion> {
        let mut config = SearchConfig::new(Algorithm::Pvs, 9);
        config.options.threats = true;
        config.options.lmr = true;
        Searcher::new(config)
    }

    /// The reductions by move and depth: none for the first three moves, one ply at nodes of
    /// depth 3 (the child keeps one), and from the eighth move two plies at nodes of depth 4
    /// and more; none at the root, below depth 3, where a threat forces the moves, for the
    /// table's move or on a threat cell.
    #[test]
    fn late_moves_lose_one_ply_then_two_at_deep_nodes() {
        let s = searcher();
        // X h8 h9 h10 is an open three: h7 and h11 are threat cells; a15 is none.
        let pos = Morpion::start(15, 15, 5)
            .play_sequence("h8 a1 h9 o1 h10 o15")
            .unwrap();
        let quiet = pos.parse_move("a15").unwrap();
        let threat = pos.parse_move("h11").unwrap();
        let reductions = |depth, ply, free, key, mv| {
            let mut late = LateMoves::new(&s, depth, ply, free);
            (0..10)
                .map(|i| late.reduction(&s, &pos, (i, key, mv), depth))
                .collect::<Vec<u32>>()
        };
        assert_eq!(
            reductions(3, 1, true, 0, quiet),
            [0, 0, 0, 1, 1, 1, 1, 1, 1, 1]
        );
        assert_eq!(
            reductions(4, 1, true, 0, quiet),
            [0, 0, 0, 1, 1, 1, 1, 1, 2, 2]
        );
        assert_eq!(
            reductions(9, 5, true, 0, quiet),
            [0, 0, 0, 1, 1, 1, 1, 1, 2, 2]
        );
        for (depth, ply, free, key, mv) in [
            (9, 0, true, 0, quiet),
            (2, 1, true, 0, quiet),
            (9, 1, false, 0, quiet),
            (9, 1, true, u32::MAX, quiet),
            (9, 1, true, 0, threat),
        ] {
            assert_eq!(
                reductions(depth, ply, free, key, mv),
                [0; 10],
                "{depth} {ply} {free} {key} {mv:?}"
            );
        }
    }
}

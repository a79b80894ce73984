//! Exact Othello endgame solver.
//!
//! The search is the classic one of strong endgame programs (Edax, Zebra), working on the two
//! bitboards directly:
//!
//! - at the root, principal variation search over the full score range, and (optionally) null
//!   window tests that find every move reaching the best score;
//! - inside, null-window searches (scores are even, so a window `(alpha, alpha + 1)` with any
//!   `alpha` decides "better than alpha or not"), PVS along the principal variation;
//! - a two-way transposition table keyed on both bitboards (the full position is stored, so a
//!   hit is never a collision), with lower and upper bounds and the best move, used above
//!   [`SHALLOW_EMPTIES`] empty squares, one cache line per probe, the children's lines
//!   prefetched; enhanced transposition cutoffs from the children's entries;
//! - move ordering: the hash move first, searched before the others are even generated; then
//!   fastest-first (fewest opponent replies, corners counted twice), the mover's stable
//!   corners, the opponent's potential mobility, the parity of the square's quadrant and a
//!   static square value; near the leaves only the parity of the empty squares of each
//!   quadrant (odd first) and corners first;
//! - from 14 empty squares up, the moves are re-ordered by a shallow alpha-beta search (2 plies
//!   at 14 empties, one more every 3, at most 8) of the shipped pattern evaluation, added to the
//!   fastest-first key (a quarter logit of the evaluation weighs one opponent move): where the
//!   subtree is large a better first move saves most, and such nodes are few (its nodes are
//!   counted);
//! - a stability cutoff: discs of the opponent that can never flip bound the score from above;
//! - dedicated code for the last four empty squares, which never generates a move list: it tries
//!   the known empties and, for the very last one, counts its flips directly.
//!
//! Nothing is allocated inside the search: move lists are arrays on the stack.

use arrayvec::ArrayVec;

use super::{Solution, Stop, Stopped};
use crate::eval::pattern;
use crate::games::othello::{Othello, OthelloMove, flips, legal_moves_mask, parse_square};
use crate::games::{Game, GameError, Side};
use crate::search::Evaluator;

/// Up to this many empty squares, searches use parity ordering and no transposition table:
/// the table costs more than it saves so close to the end.
pub const SHALLOW_EMPTIES: u32 = 7;

/// From this many empties up, null-window nodes look for a cutoff among their children's table
/// entries before searching.
const ETC_EMPTIES: u32 = 10;

/// From this many empties up, moves are ordered by a shallow search of the pattern evaluation
/// ([`OthelloSolver::sort_by_search`]): at the top of the tree a wrong first move costs most.
const SORT_SEARCH_EMPTIES: u32 = 14;

/// A score above every final disc difference, for "no move yet" sentinels.
const INF: i32 = 127;

const CORNERS: u64 = 0x8100_0000_0000_0081;

/// The eight neighbours of every square: a move needs an opponent disc next to it.
static NEIGHBOURS: [u64; 64] = build_neighbours();

const fn build_neighbours() -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut dr = -1;
        while dr <= 1 {
            let mut dc = -1;
            while dc <= 1 {
                let (nr, nc) = (r + dr, c + dc);
                if (dr != 0 || dc != 0) && nr >= 0 && nr < 8 && nc >= 0 && nc < 8 {
                    table[sq] |= 1u64 << (nr * 8 + nc);
                }
                dc += 1;
            }
            dr += 1;
        }
        sq += 1;
    }
    table
}

/// The quadrant (2×2 split of the board into 4×4 blocks) of a square, 0..4.
#[inline]
fn quadrant(sq: usize) -> u32 {
    (((sq >> 2) & 1) | ((sq >> 4) & 2)) as u32
}

/// The squares of the quadrants whose bits are set in the 4-bit index.
static QUADRANT_MASKS: [u64; 16] = build_quadrant_masks();

const fn build_quadrant_masks() -> [u64; 16] {
    const Q: [u64; 4] = [
        0x0000_0000_0F0F_0F0F,
        0x0000_0000_F0F0_F0F0,
        0x0F0F_0F0F_0000_0000,
        0xF0F0_F0F0_0000_0000,
    ];
    let mut table = [0u64; 16];
    let mut i = 0;
    while i < 16 {
        let mut q = 0;
        while q < 4 {
            if i >> q & 1 == 1 {
                table[i] |= Q[q];
            }
            q += 1;
        }
        i += 1;
    }
    table
}

/// The parity of the empties of each quadrant, one bit per quadrant (set: odd).
#[inline]
fn parity_of(empties: u64) -> u32 {
    let mut parity = 0;
    for q in 0..4 {
        parity |= (((empties & QUADRANT_MASKS[1 << q]).count_ones()) & 1) << q;
    }
    parity
}

/// The final disc difference for `p`, empty squares to the winner.
#[inline]
fn final_score(p: u64, o: u64) -> i32 {
    let (pc, oc) = (p.count_ones() as i32, o.count_ones() as i32);
    let diff = pc - oc;
    let empties = 64 - pc - oc;
    if diff > 0 {
        diff + empties
    } else if diff < 0 {
        diff - empties
    } else {
        0
    }
}

/// Stable discs: edge patterns from a table, full lines, then propagation inwards.
mod stability {
    use std::sync::OnceLock;

    static EDGE: OnceLock<Box<[u8]>> = OnceLock::new();

    /// The stable discs of `p` on one edge of 8 squares against `o`, for every pair of bytes:
    /// a disc is stable if no sequence of moves on the edge alone turns it over.
    pub fn edge_table() -> &'static [u8] {
        EDGE.get_or_init(|| {
            let mut table = vec![0u8; 65536].into_boxed_slice();
            for p in 0..256u32 {
                for o in 0..256u32 {
                    if p & o == 0 {
                        table[(p << 8 | o) as usize] = find_edge_stable(p, o, p) as u8;
                    }
                }
            }
            table
        })
    }

    /// Plays `x` for `p` on the edge (flipping along it) and returns the new `(p, o)`.
    fn edge_play(mut p: u32, mut o: u32, x: i32) -> (u32, u32) {
        p |= 1 << x;
        for step in [-1i32, 1] {
            let mut y = x + step;
            let mut run = 0u32;
            while (0..8).contains(&y) && o >> y & 1 == 1 {
                run |= 1 << y;
                y += step;
            }
            if (0..8).contains(&y) && p >> y & 1 == 1 {
                p |= run;
                o &= !run;
            }
        }
        (p, o)
    }

    fn find_edge_stable(p: u32, o: u32, mut stable: u32) -> u32 {
        stable &= p;
        let empty = !(p | o) & 0xff;
        if stable == 0 || empty == 0 {
            return stable;
        }
        for x in 0..8 {
            if empty >> x & 1 == 0 {
                continue;
            }
            let (np, no) = edge_play(p, o, x);
            stable = find_edge_stable(np, no, stable);
            if stable == 0 {
                return 0;
            }
            let (no, np) = edge_play(o, p, x);
            stable = find_edge_stable(np, no, stable);
            if stable == 0 {
                return 0;
            }
        }
        stable
    }

    const COL_A: u64 = 0x0101_0101_0101_0101;
    const COL_H: u64 = 0x8080_8080_8080_8080;

    #[inline]
    fn pack_a(x: u64) -> usize {
        ((x & COL_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize
    }

    #[inline]
    fn pack_h(x: u64) -> usize {
        ((x & COL_H).wrapping_mul(0x0002_0408_1020_4081) >> 56) as usize
    }

    /// Inverse of `pack_a`: bit i of the byte goes to row i of column a.
    static UNPACK_A: [u64; 256] = build_unpack();

    const fn build_unpack() -> [u64; 256] {
        let mut table = [0u64; 256];
        let mut b = 0;
        while b < 256 {
            let mut i = 0;
            while i < 8 {
                if b >> i & 1 == 1 {
                    table[b] |= 1u64 << (8 * i);
                }
                i += 1;
            }
            b += 1;
        }
        table
    }

    /// Squares on a full line in each of the four directions (row, column, and diagonals).
    #[cfg(test)]
    static DIAG7: [u64; 15] = build_diagonals(7);
    #[cfg(test)]
    static DIAG9: [u64; 15] = build_diagonals(9);

    #[cfg(test)]
    const fn build_diagonals(step: u32) -> [u64; 15] {
        let mut lines = [0u64; 15];
        let mut sq = 0;
        while sq < 64 {
            let (r, c) = (sq / 8, sq % 8);
            let index = if step == 9 { r + 7 - c } else { r + c };
            lines[index] |= 1u64 << sq;
            sq += 1;
        }
        lines
    }

    /// [`full_lines_slow`] by shifts and masks, without a loop over the diagonals (Edax's
    /// method): a square stays set while its neighbours along the line, at doubling
    /// distances, are filled or off the board.
    #[inline]
    pub fn full_lines(filled: u64) -> [u64; 4] {
        let mut h = filled;
        h &= h >> 1;
        h &= h >> 2;
        h &= h >> 4;
        let h = (h & COL_A).wrapping_mul(0xff);
        let mut v = filled;
        v &= v.rotate_left(8);
        v &= v.rotate_left(16);
        v &= v.rotate_left(32);

        let (mut l7, mut r7) = (filled, filled);
        l7 &= 0xff01_0101_0101_0101 | (l7 >> 7);
        r7 &= 0x8080_8080_8080_80ff | (r7 << 7);
        l7 &= 0xffff_0303_0303_0303 | (l7 >> 14);
        r7 &= 0xc0c0_c0c0_c0c0_ffff | (r7 << 14);
        l7 &= 0xffff_ffff_0f0f_0f0f | (l7 >> 28);
        r7 &= 0xf0f0_f0f0_ffff_ffff | (r7 << 28);
        let d7 = l7 & r7;

        let (mut l9, mut r9) = (filled, filled);
        l9 &= 0xff80_8080_8080_8080 | (l9 >> 9);
        r9 &= 0x0101_0101_0101_01ff | (r9 << 9);
        l9 &= 0xffff_c0c0_c0c0_c0c0 | (l9 >> 18);
        r9 &= 0x0303_0303_0303_ffff | (r9 << 18);
        let d9 = l9 & r9 & (0x0f0f_0f0f_f0f0_f0f0 | (l9 >> 36) | (r9 << 36));
        [h, v, d7, d9]
    }

    /// Squares on a full line in each direction, diagonal by diagonal: the reference for
    /// [`full_lines`].
    #[cfg(test)]
    pub fn full_lines_slow(filled: u64) -> [u64; 4] {
        let mut h = filled;
        h &= h >> 1;
        h &= h >> 2;
        h &= h >> 4;
        let h = (h & COL_A).wrapping_mul(0xff);
        let mut v = filled;
        v &= v.rotate_left(8);
        v &= v.rotate_left(16);
        v &= v.rotate_left(32);
        let mut d7 = 0;
        let mut d9 = 0;
        for i in 0..15 {
            if filled & DIAG7[i] == DIAG7[i] {
                d7 |= DIAG7[i];
            }
            if filled & DIAG9[i] == DIAG9[i] {
                d9 |= DIAG9[i];
            }
        }
        [h, v, d7, d9]
    }

    /// The number of discs of `p` that `o` can never turn over (a lower bound: the test is
    /// sufficient, not necessary).
    #[inline]
    pub fn stable_count(edge: &[u8], p: u64, o: u64) -> u32 {
        let e = |pp: usize, oo: usize| edge[pp << 8 | oo] as u64;
        let mut stable = e((p & 0xff) as usize, (o & 0xff) as usize)
            | e((p >> 56) as usize, (o >> 56) as usize) << 56
            | UNPACK_A[e(pack_a(p), pack_a(o)) as usize]
            | UNPACK_A[e(pack_h(p), pack_h(o)) as usize] << 7;
        let filled = p | o;
        let [h, v, d7, d9] = full_lines(filled);
        let inner = p & 0x007e_7e7e_7e7e_7e00;
        stable |= h & v & d7 & d9 & inner;
        if stable == 0 {
            return 0;
        }
        loop {
            let old = stable;
            let sh = (stable >> 1) | (stable << 1) | h;
            let sv = (stable >> 8) | (stable << 8) | v;
            let s7 = (stable >> 7) | (stable << 7) | d7;
            let s9 = (stable >> 9) | (stable << 9) | d9;
            stable |= sh & sv & s7 & s9 & inner;
            if stable == old {
                return stable.count_ones();
            }
        }
    }
}

/// Below this alpha (indexed by empties), the stability bound cannot cut: skip computing it.
const STABILITY_THRESHOLD: [i32; 65] = [
    99, 99, 99, 99, 6, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46,
    48, 48, 50, 50, 52, 52, 54, 54, 56, 56, 58, 58, 60, 60, 62, 62, 64, 64, 64, 64, 64, 64, 64, 64,
    64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
];

/// One transposition-table slot. The full position is stored, so a hit is never a collision.
#[derive(Copy, Clone, Default)]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
    /// Best move square, or 64 for none.
    best: u8,
    /// Empty squares of the position, the replacement priority; 0 marks an unused slot.
    depth: u8,
}

/// Two slots in one cache line: a probe costs one memory access.
#[derive(Copy, Clone, Default)]
#[repr(align(64))]
struct Bucket([Entry; 2]);

/// A small static preference between squares (corners, then the edges' middle), which only
/// breaks ties of the ordering (Edax's table).
#[rustfmt::skip]
static SQUARE_VALUE: [i32; 64] = [
    18, 4, 16, 12, 12, 16, 4, 18,
    4, 2, 6, 8, 8, 6, 2, 4,
    16, 6, 14, 10, 10, 14, 6, 16,
    12, 8, 10, 0, 0, 10, 8, 12,
    12, 8, 10, 0, 0, 10, 8, 12,
    16, 6, 14, 10, 10, 14, 6, 16,
    4, 2, 6, 8, 8, 6, 2, 4,
    18, 4, 16, 12, 12, 16, 4, 18,
];

/// A move of a move list: its square, the discs it flips, and its ordering key.
#[derive(Copy, Clone)]
struct Move {
    sq: u8,
    flipped: u64,
    key: i32,
}

/// Moves of one position; Othello positions have far fewer than 64.
type MoveBuf = ArrayVec<Move, 64>;

/// An exact Othello endgame solver with its transposition table.
///
/// ```
/// use joute::games::{Game, Othello};
/// use joute::search::solver::othello::OthelloSolver;
///
/// let pos = Othello::start()
///     .parse_position("OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOXXXXX--- X")
///     .unwrap();
/// // Nobody can move: the game is over, 5 discs to 56 and the 3 empties to white.
/// let solution = OthelloSolver::new().solve(&pos);
/// assert_eq!(solution.score, -54);
/// assert!(solution.best_moves.is_empty());
/// ```
pub struct OthelloSolver {
    table: Vec<Bucket>,
    mask: usize,
    edge: &'static [u8],
    nodes: u64,
    all_best_moves: bool,
    stop: Stop,
}

impl Default for OthelloSolver {
    fn default() -> Self {
        OthelloSolver::new()
    }
}

impl OthelloSolver {
    /// Default transposition-table size: 2^20 slots, two to a 64-byte line (32 MiB).
    pub const DEFAULT_HASH_BITS: u32 = 20;

    /// A solver with the default table, reporting one best move.
    pub fn new() -> OthelloSolver {
        OthelloSolver::with_hash_bits(Self::DEFAULT_HASH_BITS)
    }

    /// A solver whose table takes at most `mib` MiB (at least one slot pair).
    pub fn with_table_mib(mib: u64) -> OthelloSolver {
        // Slots of 32 bytes.
        OthelloSolver::with_hash_bits((mib * (1 << 20) / 32).max(1).ilog2())
    }

    /// A solver whose table has `2^bits` slots, 32 bytes each (`bits` clamped to 4..=30).
    pub fn with_hash_bits(bits: u32) -> OthelloSolver {
        let size = 1usize << bits.clamp(4, 30);
        OthelloSolver {
            table: vec![Bucket::default(); size / 2],
            mask: size / 2 - 1,
            edge: stability::edge_table(),
            nodes: 0,
            all_best_moves: false,
            stop: Stop::unlimited(),
        }
    }

    /// The limits of the next solves (a node budget, a time, a progress counter); a solve that
    /// reaches one stops with the bounds it proved ([`Solution::stopped`]).
    pub fn set_stop(&mut self, stop: Stop) {
        self.stop = stop;
    }

    /// Whether [`OthelloSolver::solve`] lists every best move (`true`) or one (`false`, the
    /// default). Listing all costs proving each other root move strictly worse: 12% more nodes
    /// on FFO #40, 50% more on #41–#44 (14.4 M against 12.9 M; 170 M against 113 M).
    pub fn all_best_moves(mut self, all: bool) -> OthelloSolver {
        self.all_best_moves = all;
        self
    }

    /// [`OthelloSolver::all_best_moves`] on a solver already built.
    pub fn set_all_best_moves(&mut self, all: bool) {
        self.all_best_moves = all;
    }

    /// Forgets every stored position, for solves independent of earlier ones.
    pub fn clear(&mut self) {
        self.table.fill(Bucket::default());
    }

    /// Solves `pos`: the final disc difference for the side to move under perfect play (empty
    /// squares to the winner), the best move or moves (`pass` when only a pass is legal; none
    /// when the game is over), and the nodes visited. The table keeps what it learnt: call
    /// [`OthelloSolver::clear`] between solves that must not share it.
    pub fn solve(&mut self, pos: &Othello) -> Solution<OthelloMove> {
        self.nodes = 0;
        self.stop.start();
        let (p, o) = (pos.player, pos.opponent);
        if legal_moves_mask(p, o) == 0 {
            if legal_moves_mask(o, p) == 0 {
                return Solution {
                    score: final_score(p, o),
                    best_moves: Vec::new(),
                    nodes: 1,
                    stopped: None,
                };
            }
            let (score, _, bounds) = self.root(o, p);
            return Solution {
                score: -score,
                best_moves: vec![OthelloMove::PASS],
                nodes: self.nodes + 1,
                stopped: self.stopped(-bounds.1, -bounds.0),
            };
        }
        let (score, best_moves, bounds) = self.root(p, o);
        Solution {
            score,
            best_moves,
            nodes: self.nodes,
            stopped: self.stopped(bounds.0, bounds.1),
        }
    }

    /// What a stopped solve proved, after forgetting what it stored while stopping.
    fn stopped(&mut self, lower: i32, upper: i32) -> Option<Stopped> {
        let reason = self.stop.reason()?;
        self.clear();
        Some(Stopped {
            reason,
            lower,
            upper,
            depth: 0,
        })
    }

    /// The root of a position with at least one move: PVS over the root moves, then null-window
    /// tests of the others at `best - 1` when every best move is wanted. Returns the score, the
    /// best moves and the proven bounds (equal unless a limit stopped the search: then the
    /// moves searched to the end give a lower bound).
    fn root(&mut self, p: u64, o: u64) -> (i32, Vec<OthelloMove>, (i32, i32)) {
        self.nodes += 1;
        let empties = !(p | o);
        let n = empties.count_ones();
        let hash_move = self.probe(p, o).map_or(64, |e| e.best);
        let mut moves = MoveBuf::new();
        self.list_moves(
            p,
            o,
            legal_moves_mask(p, o),
            hash_move,
            n > SHALLOW_EMPTIES + 1,
            &mut moves,
        );
        if n >= SORT_SEARCH_EMPTIES {
            self.sort_by_search(p, o, n, &mut moves);
        }
        let mut best = -INF;
        let mut best_moves = Vec::new();
        for i in 0..moves.len() {
            let m = pick(&mut moves, i);
            let (np, no) = (o ^ m.flipped, p | m.flipped | 1u64 << m.sq);
            let score = if i == 0 {
                let s = -self.pvs(np, no, -65, 65, n - 1);
                if self.stop.stopped() {
                    return (0, Vec::new(), (-64, 64));
                }
                s
            } else {
                // Test "better than best" (or "at least best" for all best moves); scores
                // are even, so `best - 1` tests equality too.
                let a = if self.all_best_moves { best - 1 } else { best };
                if a >= 64 {
                    continue;
                }
                let s = -self.nws(np, no, -a - 1, n - 1);
                let s = if s > a && !self.stop.stopped() {
                    -self.pvs(np, no, -65, -a, n - 1)
                } else {
                    s
                };
                if self.stop.stopped() {
                    // The moves searched so far: the root is worth at least their best.
                    return (best, best_moves, (best, 64));
                }
                s
            };
            if score > best {
                best = score;
                best_moves.clear();
                best_moves.push(OthelloMove(m.sq));
            } else if score == best && self.all_best_moves {
                best_moves.push(OthelloMove(m.sq));
            }
        }
        self.store(p, o, n, best, best, best_moves[0].0);
        (best, best_moves, (best, best))
    }

    /// Re-keys `moves` (all but a hash move or a wipe-out) by a shallow search of each child
    /// with [`order_eval`], added to the fastest-first key (its mobility term has the same
    /// scale: one unit of the search's value weighs one opponent move).
    fn sort_by_search(&mut self, p: u64, o: u64, n: u32, moves: &mut MoveBuf) {
        let depth = sort_depth(n);
        for m in moves.iter_mut() {
            if m.key >= 1 << 29 {
                continue;
            }
            let (np, no) = (o ^ m.flipped, p | m.flipped | 1u64 << m.sq);
            let v = -self.order_search(np, no, depth - 1, -ORDER_INF, ORDER_INF);
            if self.stop.stopped() {
                // A node or time limit met while ordering: the search ends at its next node.
                break;
            }
            m.key = v.clamp(-500, 500) * (1 << 13) + (m.key >> 2);
        }
    }

    /// Alpha-beta of [`order_eval`] to `depth` plies, for ordering only (its nodes counted).
    fn order_search(&mut self, p: u64, o: u64, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        // Its nodes are the solve's: a node budget or a deadline holds inside it too.
        if self.stop.poll(self.nodes) {
            return 0;
        }
        if depth == 0 {
            return order_eval(p, o);
        }
        let mut mask = legal_moves_mask(p, o);
        if mask == 0 {
            if legal_moves_mask(o, p) == 0 {
                return final_score(p, o) * 64;
            }
            return -self.order_search(o, p, depth, -beta, -alpha);
        }
        let mut best = -ORDER_INF;
        while mask != 0 {
            let sq = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let f = flips(sq, p, o);
            let v = -self.order_search(o ^ f, p | f | 1u64 << sq, depth - 1, -beta, -alpha);
            if self.stop.stopped() {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Fills `moves` with the moves of `mask` and their ordering keys: the hash move first,
    /// then fastest-first (fewest opponent replies, corners counted twice), then the mover's
    /// stable corners, then the opponent's potential mobility, and the parity of the region.
    fn list_moves(
        &self,
        p: u64,
        o: u64,
        mut mask: u64,
        hash_move: u8,
        prefetch: bool,
        moves: &mut MoveBuf,
    ) {
        let empties = !(p | o);
        let parity = parity_of(empties);
        while mask != 0 {
            let sq = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let flipped = flips(sq, p, o);
            let key = if sq as u8 == hash_move {
                1 << 30
            } else {
                let (np, no) = (o ^ flipped, p | flipped | 1u64 << sq);
                if prefetch {
                    self.prefetch(np, no);
                }
                let replies = legal_moves_mask(np, no);
                if np == 0 {
                    1 << 29 // wipe-out
                } else {
                    let mobility = (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
                    let potential = (neighbours_of(no) & empties).count_ones() as i32;
                    let corner_stable = corner_stability(no) as i32;
                    SQUARE_VALUE[sq]
                        + (36 - mobility) * (1 << 15)
                        + corner_stable * (1 << 11)
                        + (36 - potential) * (1 << 5)
                        + ((parity >> quadrant(sq) & 1) as i32) * (1 << 6)
                }
            };
            moves.push(Move {
                sq: sq as u8,
                flipped,
                key,
            });
        }
    }

    #[inline]
    fn index(&self, p: u64, o: u64) -> usize {
        let h = p.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ o.rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        ((h ^ (h >> 31)) as usize) & self.mask
    }

    /// Starts loading the bucket of a position that will be probed soon: the children's
    /// probes then find it in cache instead of stalling on memory.
    #[inline]
    fn prefetch(&self, p: u64, o: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = &self.table[self.index(p, o)] as *const Bucket as *const i8;
            // SAFETY: a prefetch is only a hint and never faults; SSE is x86-64's baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (p, o);
    }

    #[inline]
    fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        let i = self.index(p, o);
        self.table[i]
            .0
            .iter()
            .find(|e| e.player == p && e.opponent == o && e.depth != 0)
            .copied()
    }

    /// Stores bounds for a position, merging with what is known of it already; a new position
    /// takes the first slot if at least as deep as its occupant, which moves to the second.
    #[inline]
    fn store(&mut self, p: u64, o: u64, n: u32, lower: i32, upper: i32, best: u8) {
        let i = self.index(p, o);
        let depth = n as u8 + 1;
        let fresh = Entry {
            player: p,
            opponent: o,
            lower: lower as i8,
            upper: upper as i8,
            best,
            depth,
        };
        let bucket = &mut self.table[i].0;
        for e in bucket.iter_mut() {
            if e.player == p && e.opponent == o && e.depth != 0 {
                e.lower = e.lower.max(lower as i8);
                e.upper = e.upper.min(upper as i8);
                e.best = best;
                return;
            }
        }
        if depth >= bucket[0].depth {
            bucket[1] = bucket[0];
            bucket[0] = fresh;
        } else {
            bucket[1] = fresh;
        }
    }

    /// Principal variation search with window `(alpha, beta)`, fail-soft, `n` empty squares.
    fn pvs(&mut self, p: u64, o: u64, mut alpha: i32, beta: i32, n: u32) -> i32 {
        if n <= SHALLOW_EMPTIES {
            // Close to the end a PV node is cheap: find the exact score by null windows.
            return self.exact_small(p, o, alpha, beta, n);
        }
        self.nodes += 1;
        if self.stop.poll(self.nodes) {
            return 0;
        }
        let moves_mask = legal_moves_mask(p, o);
        if moves_mask == 0 {
            if legal_moves_mask(o, p) == 0 {
                return final_score(p, o);
            }
            return -self.pvs(o, p, -beta, -alpha, n);
        }
        let mut hash_move = 64;
        if let Some(e) = self.probe(p, o) {
            let (lower, upper) = (e.lower as i32, e.upper as i32);
            if lower >= beta || upper <= alpha || lower == upper {
                return if lower >= beta { lower } else { upper };
            }
            hash_move = e.best;
        }
        let mut moves = MoveBuf::new();
        self.list_moves(
            p,
            o,
            moves_mask,
            hash_move,
            n > SHALLOW_EMPTIES + 1,
            &mut moves,
        );
        if n >= SORT_SEARCH_EMPTIES {
            self.sort_by_search(p, o, n, &mut moves);
        }
        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_move = 64;
        for i in 0..moves.len() {
            let m = pick(&mut moves, i);
            let (np, no) = (o ^ m.flipped, p | m.flipped | 1u64 << m.sq);
            let mut score;
            if i == 0 {
                score = -self.pvs(np, no, -beta, -alpha, n - 1);
            } else {
                score = -self.nws(np, no, -alpha - 1, n - 1);
                if score > alpha && score < beta {
                    score = -self.pvs(np, no, -beta, -alpha, n - 1);
                }
            }
            if self.stop.stopped() {
                // Unwinding: nothing here is a bound worth storing.
                return 0;
            }
            if score > best {
                best = score;
                best_move = m.sq;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let (lower, upper) = if best >= beta {
            (best, 64)
        } else if best > original_alpha {
            (best, best)
        } else {
            (-64, best)
        };
        self.store(p, o, n, lower, upper, best_move);
        best
    }

    /// The exact score near the end, clipped to `(alpha, beta)` the fail-soft way, by a
    /// bisection of null-window searches.
    fn exact_small(&mut self, p: u64, o: u64, alpha: i32, beta: i32, n: u32) -> i32 {
        let (mut lo, mut hi) = (alpha.max(-65), beta.min(65));
        // Invariant: lo < score < hi, unless the score lies outside (alpha, beta).
        while hi - lo > 2 {
            // Floor division: lo < mid < hi, so every test narrows the interval.
            let mid = (lo + hi).div_euclid(2);
            let s = self.nws(p, o, mid, n);
            if self.stop.stopped() {
                return 0;
            }
            if s > mid {
                lo = s - 1;
                if s >= beta {
                    return s;
                }
            } else {
                hi = s + 1;
                if s <= alpha {
                    return s;
                }
            }
        }
        lo + 1
    }

    /// Null-window search: a score `> alpha` if and only if the true score is, `n` empties.
    #[inline]
    fn nws(&mut self, p: u64, o: u64, alpha: i32, n: u32) -> i32 {
        if n > SHALLOW_EMPTIES {
            self.nws_deep(p, o, alpha, n)
        } else if n > 4 {
            self.nws_shallow(p, o, alpha, n, parity_of(!(p | o)))
        } else {
            self.nws_last(p, o, alpha, n)
        }
    }

    /// Null-window search with the table, fastest-first ordering and the stability cutoff.
    fn nws_deep(&mut self, p: u64, o: u64, alpha: i32, n: u32) -> i32 {
        self.nodes += 1;
        if self.stop.poll(self.nodes) {
            return 0;
        }
        if alpha >= STABILITY_THRESHOLD[n as usize] {
            let bound = 64 - 2 * stability::stable_count(self.edge, o, p) as i32;
            if bound <= alpha {
                return bound;
            }
        }
        let moves_mask = legal_moves_mask(p, o);
        if moves_mask == 0 {
            if legal_moves_mask(o, p) == 0 {
                return final_score(p, o);
            }
            return -self.nws_deep(o, p, -alpha - 1, n);
        }
        let mut hash_move = 64;
        if let Some(e) = self.probe(p, o) {
            if e.lower as i32 > alpha {
                return e.lower as i32;
            }
            if e.upper as i32 <= alpha {
                return e.upper as i32;
            }
            hash_move = e.best;
        }
        let parity = parity_of(!(p | o));
        let mut best = -INF;
        let mut best_move = 64;
        let mut rest = moves_mask;
        if hash_move < 64 && moves_mask >> hash_move & 1 == 1 {
            // The hash move alone first: when it cuts, as it often does, the other moves are
            // never generated or ordered.
            let sq = hash_move as usize;
            let flipped = flips(sq, p, o);
            let score = self.nws_child(o ^ flipped, p | flipped | 1u64 << sq, alpha, n, parity, sq);
            if self.stop.stopped() {
                return 0;
            }
            if score > alpha {
                self.store(p, o, n, score, 64, hash_move);
                return score;
            }
            best = score;
            best_move = hash_move;
            rest &= !(1u64 << sq);
        }
        let mut moves = MoveBuf::new();
        self.list_moves(p, o, rest, 64, n > SHALLOW_EMPTIES + 1, &mut moves);
        if n >= ETC_EMPTIES {
            // Enhanced transposition cutoff: a child already known to be bad enough for the
            // opponent settles this node without searching anything.
            for m in &moves {
                let (np, no) = (o ^ m.flipped, p | m.flipped | 1u64 << m.sq);
                if let Some(e) = self.probe(np, no)
                    && -(e.upper as i32) > alpha
                {
                    let score = -(e.upper as i32);
                    self.store(p, o, n, score, 64, m.sq);
                    return score;
                }
            }
        }
        if n >= SORT_SEARCH_EMPTIES {
            self.sort_by_search(p, o, n, &mut moves);
        }
        for i in 0..moves.len() {
            let m = pick(&mut moves, i);
            let (np, no) = (o ^ m.flipped, p | m.flipped | 1u64 << m.sq);
            let score = self.nws_child(np, no, alpha, n, parity, m.sq as usize);
            if self.stop.stopped() {
                return 0;
            }
            if score > best {
                best = score;
                best_move = m.sq;
                if score > alpha {
                    break;
                }
            }
        }
        if best > alpha {
            self.store(p, o, n, best, 64, best_move);
        } else {
            self.store(p, o, n, -64, best, best_move);
        }
        best
    }

    /// The score of the move to `sq` (leading to `(np, no)`) for a null-window node with `n`
    /// empties and quadrant parities `parity`, from the node's side.
    #[inline]
    fn nws_child(&mut self, np: u64, no: u64, alpha: i32, n: u32, parity: u32, sq: usize) -> i32 {
        if n - 1 > SHALLOW_EMPTIES {
            -self.nws_deep(np, no, -alpha - 1, n - 1)
        } else {
            -self.nws_shallow(np, no, -alpha - 1, n - 1, parity ^ 1 << quadrant(sq))
        }
    }

    /// Null-window search without the table, 5..=[`SHALLOW_EMPTIES`] empties: moves in
    /// quadrants with an odd number of empties first (they tend to get the last move there).
    fn nws_shallow(&mut self, p: u64, o: u64, alpha: i32, n: u32, parity: u32) -> i32 {
        if n == 4 {
            return self.nws_last(p, o, alpha, 4);
        }
        self.nodes += 1;
        if alpha >= STABILITY_THRESHOLD[n as usize] {
            let bound = 64 - 2 * stability::stable_count(self.edge, o, p) as i32;
            if bound <= alpha {
                return bound;
            }
        }
        // The few empties are tried directly (an opponent neighbour, then the flips) rather
        // than generating the move mask: most squares are settled by the neighbour test.
        let empties = !(p | o);
        let odd = QUADRANT_MASKS[parity as usize];
        let mut best = -INF;
        let (odd, even) = (empties & odd, empties & !odd);
        // Corners first within each parity class.
        for mut set in [
            odd & CORNERS,
            odd & !CORNERS,
            even & CORNERS,
            even & !CORNERS,
        ] {
            while set != 0 {
                let sq = set.trailing_zeros() as usize;
                set &= set - 1;
                if NEIGHBOURS[sq] & o == 0 {
                    continue;
                }
                let flipped = flips(sq, p, o);
                if flipped == 0 {
                    continue;
                }
                let (np, no) = (o ^ flipped, p | flipped | 1u64 << sq);
                let score =
                    -self.nws_shallow(np, no, -alpha - 1, n - 1, parity ^ 1 << quadrant(sq));
                if score > best {
                    best = score;
                    if score > alpha {
                        return best;
                    }
                }
            }
        }
        if best == -INF {
            if legal_moves_mask(o, p) == 0 {
                return final_score(p, o);
            }
            return -self.nws_shallow(o, p, -alpha - 1, n, parity);
        }
        best
    }

    /// Null-window search of the last 0..=4 empties: the empties are listed and handed to the
    /// dedicated routines.
    fn nws_last(&mut self, p: u64, o: u64, alpha: i32, n: u32) -> i32 {
        let empties = !(p | o);
        // Squares in quadrants with an odd number of empties first (for 4 empties: the
        // squares alone in their quadrant, or with two others).
        let odd = QUADRANT_MASKS[parity_of(empties) as usize];
        let mut sq = [0usize; 4];
        let mut k = 0;
        for mut set in [empties & odd, empties & !odd] {
            while set != 0 && k < 4 {
                sq[k] = set.trailing_zeros() as usize;
                set &= set - 1;
                k += 1;
            }
        }
        match n {
            0 => final_score(p, o),
            1 => {
                self.nodes += 1;
                solve_1(p, o, alpha, sq[0])
            }
            2 => self.solve_2(p, o, alpha, sq[0], sq[1]),
            3 => self.solve_3(p, o, alpha, sq[0], sq[1], sq[2]),
            _ => self.solve_4(p, o, alpha, sq),
        }
    }

    /// Four empties, tried in the order given (parity order, from [`OthelloSolver::nws_last`]):
    /// each legal move into [`OthelloSolver::solve_3`].
    fn solve_4(&mut self, p: u64, o: u64, alpha: i32, sq: [usize; 4]) -> i32 {
        self.nodes += 1;
        if alpha >= STABILITY_THRESHOLD[4] {
            let bound = 64 - 2 * stability::stable_count(self.edge, o, p) as i32;
            if bound <= alpha {
                return bound;
            }
        }
        let mut best = -INF;
        for i in 0..4 {
            let x = sq[i];
            if NEIGHBOURS[x] & o == 0 {
                continue;
            }
            let f = flips(x, p, o);
            if f == 0 {
                continue;
            }
            let rest = match i {
                0 => [sq[1], sq[2], sq[3]],
                1 => [sq[0], sq[2], sq[3]],
                2 => [sq[0], sq[1], sq[3]],
                _ => [sq[0], sq[1], sq[2]],
            };
            let score = -self.solve_3(
                o ^ f,
                p | f | 1u64 << x,
                -alpha - 1,
                rest[0],
                rest[1],
                rest[2],
            );
            if score > best {
                best = score;
                if score > alpha {
                    return best;
                }
            }
        }
        if best == -INF {
            let empties = (1u64 << sq[0]) | (1u64 << sq[1]) | (1u64 << sq[2]) | (1u64 << sq[3]);
            if legal_moves_mask(o, p) & empties == 0 {
                return final_score(p, o);
            }
            return -self.solve_4(o, p, -alpha - 1, sq);
        }
        best
    }

    /// Three empties.
    fn solve_3(&mut self, p: u64, o: u64, alpha: i32, x1: usize, x2: usize, x3: usize) -> i32 {
        self.nodes += 1;
        let mut best = -INF;
        for (x, a, b) in [(x1, x2, x3), (x2, x1, x3), (x3, x1, x2)] {
            if NEIGHBOURS[x] & o == 0 {
                continue;
            }
            let f = flips(x, p, o);
            if f == 0 {
                continue;
            }
            let score = -self.solve_2(o ^ f, p | f | 1u64 << x, -alpha - 1, a, b);
            if score > best {
                best = score;
                if score > alpha {
                    return best;
                }
            }
        }
        if best == -INF {
            let empties = (1u64 << x1) | (1u64 << x2) | (1u64 << x3);
            if legal_moves_mask(o, p) & empties == 0 {
                return final_score(p, o);
            }
            return -self.solve_3(o, p, -alpha - 1, x1, x2, x3);
        }
        best
    }

    /// Two empties: the player's moves, else the opponent's, else the game is over.
    fn solve_2(&mut self, p: u64, o: u64, alpha: i32, x1: usize, x2: usize) -> i32 {
        self.nodes += 1;
        let mut best = -INF;
        if NEIGHBOURS[x1] & o != 0 {
            let f = flips(x1, p, o);
            if f != 0 {
                self.nodes += 1;
                best = -solve_1(o ^ f, p | f | 1u64 << x1, -alpha - 1, x2);
                if best > alpha {
                    return best;
                }
            }
        }
        if NEIGHBOURS[x2] & o != 0 {
            let f = flips(x2, p, o);
            if f != 0 {
                self.nodes += 1;
                return best.max(-solve_1(o ^ f, p | f | 1u64 << x2, -alpha - 1, x1));
            }
        }
        if best != -INF {
            return best;
        }
        // The player passes; the opponent minimises the player's score.
        let mut worst = INF;
        if NEIGHBOURS[x1] & p != 0 {
            let f = flips(x1, o, p);
            if f != 0 {
                self.nodes += 1;
                worst = solve_1(p ^ f, o | f | 1u64 << x1, alpha, x2);
                if worst <= alpha {
                    return worst;
                }
            }
        }
        if NEIGHBOURS[x2] & p != 0 {
            let f = flips(x2, o, p);
            if f != 0 {
                self.nodes += 1;
                return worst.min(solve_1(p ^ f, o | f | 1u64 << x2, alpha, x1));
            }
        }
        if worst != INF {
            return worst;
        }
        final_score(p, o)
    }
}

/// The last empty square `x`: the player's move if it has one, else the opponent's, else the
/// game ends with the square to the winner. Only the flips of `x` are counted. Null-window:
/// exact, or an upper bound `<= alpha` when the player cannot move and fails low anyway.
#[inline]
fn solve_1(p: u64, o: u64, alpha: i32, x: usize) -> i32 {
    let base = 2 * p.count_ones() as i32 - 64;
    let f = flips(x, p, o);
    if f != 0 {
        return base + 2 + 2 * f.count_ones() as i32;
    }
    // Without a move the player scores at most base + 2: when that fails low anyway, the
    // opponent's flips need not be counted.
    if base + 2 <= alpha {
        return base + 2;
    }
    let f = flips(x, o, p);
    if f != 0 {
        return base - 2 * f.count_ones() as i32;
    }
    if base + 1 > 0 { base + 2 } else { base }
}

/// Beyond every value of [`order_eval`] and every final score times 64.
const ORDER_INF: i32 = 1 << 16;

/// Plies of the ordering search at `n` empties: 2 at 14–16 empties, one more every 3 (the
/// deeper the subtree, the more a better first move saves), at most 8.
#[inline]
fn sort_depth(n: u32) -> u32 {
    (2 + (n - SORT_SEARCH_EMPTIES) / 3).min(8)
}

/// The evaluation of the ordering search, from the side to move's view: the shipped pattern
/// evaluation ([`pattern::shipped`], 1024 per logit of the win probability), a unit of it
/// 1/4 logit — about one opponent move of the fastest-first key, which breaks its ties.
#[inline]
fn order_eval(p: u64, o: u64) -> i32 {
    let pos = Othello {
        player: p,
        opponent: o,
        // The pattern evaluation reads the side to move's discs; the colour does not matter.
        side: Side::First,
    };
    pattern::shipped().evaluate(&pos) / ORDER_EVAL_DIVISOR
}

/// The pattern evaluation's units per unit of the ordering key (see [`order_eval`]): 256, a
/// quarter logit, measured best (fewest nodes) among 64–1024 on 30 positions of 21–22 empties
/// from joute's self-play (not the FFO suite).
const ORDER_EVAL_DIVISOR: i32 = 256;

/// Moves the best remaining move (highest key) of `moves[i..]` to `i` and returns it: a lazy
/// selection sort, since a cutoff often comes after the first move or two.
#[inline]
fn pick(moves: &mut MoveBuf, i: usize) -> Move {
    let mut best = i;
    for j in i + 1..moves.len() {
        if moves[j].key > moves[best].key {
            best = j;
        }
    }
    moves.swap(i, best);
    moves[i]
}

/// The squares next to the discs of `b`.
#[inline]
fn neighbours_of(b: u64) -> u64 {
    const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
    const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let h = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    let row = b | h;
    h | (row << 8) | (row >> 8)
}

/// Corners of `b` and the edge squares next to them that `b` also holds: discs no move can
/// turn over, a cheap hint for ordering.
#[inline]
fn corner_stability(b: u64) -> u32 {
    let stable = (((0x0100_0000_0000_0001 & b) << 1)
        | ((0x8000_0000_0000_0080 & b) >> 1)
        | ((0x0000_0000_0000_0081 & b) << 8)
        | ((0x8100_0000_0000_0000 & b) >> 8)
        | CORNERS)
        & b;
    stable.count_ones()
}

/// One position of an Othello endgame suite with its known solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FfoEntry {
    /// The position's name in the suite (`40` for FFO #40).
    pub id: String,
    /// The position, side to move included.
    pub position: Othello,
    /// The exact final disc difference for the side to move.
    pub score: i32,
    /// Every move that achieves the score.
    pub best_moves: Vec<OthelloMove>,
}

/// Reads one line of the tab-separated suite format: `id`, 64-character board, side to move
/// (`X`/`O`), exact score (`+38`, `-12`, `+0`), best moves (comma-separated squares), and
/// optionally the listed move scores, which are not read. Comment lines (`#`) and blank lines
/// are the caller's to skip. The error names the field that is wrong.
pub fn parse_ffo_line(line: &str) -> Result<FfoEntry, GameError> {
    let bad = |reason: String| GameError::BadPosition {
        game: "othello".into(),
        reason,
    };
    let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
    if fields.len() < 5 {
        return Err(bad(format!(
            "an endgame suite line needs at least 5 tab-separated fields (id, board, side, score, best moves); found {}",
            fields.len()
        )));
    }
    let id = fields[0].trim();
    if id.is_empty() {
        return Err(bad("field 1 (id) is empty".into()));
    }
    let side = fields[2].trim();
    let position = Othello::start()
        .parse_position(&format!("{} {}", fields[1].trim(), side))
        .map_err(|e| match e {
            GameError::BadPosition { reason, .. } => {
                bad(format!("field 2 (board) or 3 (side to move): {reason}"))
            }
            other => other,
        })?;
    if side.is_empty() {
        return Err(bad(
            "field 3 (side to move) is empty; expected X or O".into()
        ));
    }
    let score_text = fields[3].trim();
    let score: i32 = score_text
        .strip_prefix('+')
        .unwrap_or(score_text)
        .parse()
        .ok()
        .filter(|s: &i32| (-64..=64).contains(s))
        .ok_or_else(|| {
            bad(format!(
                "field 4 (score) '{score_text}' is not a disc difference between -64 and +64"
            ))
        })?;
    let mut best_moves = Vec::new();
    for text in fields[4].split(',').map(str::trim) {
        let sq = parse_square(text).ok_or_else(|| {
            bad(format!(
                "field 5 (best moves): '{text}' is not a square a1..h8"
            ))
        })?;
        if position.moves_mask() >> sq & 1 == 0 {
            return Err(bad(format!(
                "field 5 (best moves): '{text}' is not a legal move in the position"
            )));
        }
        best_moves.push(OthelloMove(sq));
    }
    Ok(FfoEntry {
        id: id.to_string(),
        position,
        score,
        best_moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_table_knows_corners_and_full_edges() {
        let edge = stability::edge_table();
        // A lone corner disc is stable; a lone disc on b1 is not.
        assert_eq!(edge[1 << 8], 1);
        assert_eq!(edge[2 << 8], 0);
        // A full edge is stable.
        assert_eq!(edge[(0x0f << 8) | 0xf0], 0x0f);
    }

    #[test]
    fn full_lines_by_shifts_match_the_diagonal_walk() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            x = crate::games::hash::mix64(x);
            // Dense boards, where full lines are common.
            let filled = x | crate::games::hash::mix64(x ^ 1) | crate::games::hash::mix64(x ^ 2);
            assert_eq!(
                stability::full_lines(filled),
                stability::full_lines_slow(filled),
                "{filled:#x}"
            );
        }
        assert_eq!(stability::full_lines(!0), [!0; 4]);
    }

    #[test]
    fn stable_count_of_a_full_board_is_every_disc() {
        let edge = stability::edge_table();
        let p = 0x1234_5678_9abc_def0u64;
        assert_eq!(stability::stable_count(edge, p, !p), p.count_ones());
    }

    /// Plain negamax of [`order_eval`], without pruning: the reference for the ordering
    /// search's alpha-beta.
    fn order_negamax(p: u64, o: u64, depth: u32) -> i32 {
        if depth == 0 {
            return order_eval(p, o);
        }
        let mut mask = legal_moves_mask(p, o);
        if mask == 0 {
            if legal_moves_mask(o, p) == 0 {
                return final_score(p, o) * 64;
            }
            return -order_negamax(o, p, depth);
        }
        let mut best = -ORDER_INF;
        while mask != 0 {
            let sq = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let f = flips(sq, p, o);
            best = best.max(-order_negamax(o ^ f, p | f | 1u64 << sq, depth - 1));
        }
        best
    }

    #[test]
    fn the_ordering_search_is_the_negamax_of_its_evaluation() {
        let mut solver = OthelloSolver::with_hash_bits(4);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        for _ in 0..60 {
            // A random game from the start, stopped at 20 to 50 empties.
            let start = Othello::start();
            let (mut p, mut o) = (start.player, start.opponent);
            x = crate::games::hash::mix64(x);
            let stop_at = 20 + (x % 31) as u32;
            while (!(p | o)).count_ones() > stop_at {
                let mask = legal_moves_mask(p, o);
                if mask == 0 {
                    if legal_moves_mask(o, p) == 0 {
                        break;
                    }
                    (p, o) = (o, p);
                    continue;
                }
                x = crate::games::hash::mix64(x);
                let mut pick = (x % mask.count_ones() as u64) as u32;
                let mut m = mask;
                while pick > 0 {
                    m &= m - 1;
                    pick -= 1;
                }
                let sq = m.trailing_zeros() as usize;
                let f = flips(sq, p, o);
                (p, o) = (o ^ f, p | f | 1u64 << sq);
            }
            for depth in 0..=3 {
                assert_eq!(
                    solver.order_search(p, o, depth, -ORDER_INF, ORDER_INF),
                    order_negamax(p, o, depth),
                    "{p:#x} {o:#x} depth {depth}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 240);
    }

    #[test]
    fn the_ordering_search_deepens_with_the_empties() {
        assert_eq!(sort_depth(SORT_SEARCH_EMPTIES), 2);
        assert_eq!(sort_depth(16), 2);
        assert_eq!(sort_depth(17), 3);
        assert_eq!(sort_depth(26), 6);
        assert_eq!(sort_depth(60), 8);
    }

    #[test]
    fn the_ordering_evaluation_prefers_the_side_ahead() {
        // FFO #40 and #49 (+38 and +16 for the side to move): the pattern evaluation must
        // see the side to move ahead, more so in the lopsided one, and the other side behind.
        let ffo = std::fs::read_to_string("tests/data/othello-ffo-40-59.txt").unwrap();
        let eval = |id: &str| {
            let line = ffo
                .lines()
                .find(|l| l.starts_with(&format!("{id}\t")))
                .unwrap();
            let pos = parse_ffo_line(line).unwrap().position;
            (
                order_eval(pos.player, pos.opponent),
                order_eval(pos.opponent, pos.player),
            )
        };
        let (forty, forty_other) = eval("40");
        let (forty_nine, forty_nine_other) = eval("49");
        assert!(forty > 0 && forty_other < 0, "{forty} {forty_other}");
        assert!(
            forty > forty_nine && forty_nine >= 0,
            "{forty} {forty_nine}"
        );
        assert!(forty_nine_other <= 0, "{forty_nine_other}");
    }

    #[test]
    fn final_scores_give_empties_to_the_winner() {
        assert_eq!(final_score(0b111, 0b1000), 64 - 2);
        assert_eq!(final_score(0b1, 0b1), 0);
        assert_eq!(final_score(0b1, 0b110), -62);
    }
}

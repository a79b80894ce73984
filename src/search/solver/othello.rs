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
//!   prefetched; enhanced transposition cutoffs from the children's entries. The table is
//!   lockless (each slot three atomic words, the keys XOR-ed with the data word, so a slot
//!   read while another thread writes it is a miss) and a new entry replaces a shallower one,
//!   or any of an earlier generation ([`OthelloSolver::age`]);
//! - move ordering: the hash move first, searched before the others are even generated; then
//!   fastest-first (fewest opponent replies, corners counted twice), the mover's stable
//!   corners, the opponent's potential mobility, the parity of the square's quadrant and a
//!   static square value; near the leaves only the parity of the empty squares of each
//!   quadrant (odd first) and corners first;
//! - from 14 empty squares up, the moves are re-ordered by a shallow alpha-beta search (2 plies
//!   at 14 empties, one more every 3, at most 8) of the built-in pattern evaluation, added to the
//!   fastest-first key (a quarter logit of the evaluation weighs one opponent move): where the
//!   subtree is large a better first move saves most, and such nodes are few (its nodes are
//!   counted);
//! - a stability cutoff: discs of the opponent that can never flip bound the score from above;
//! - dedicated code for the last four empty squares, which never generates a move list: it tries
//!   the known empties and, for the very last one, counts its flips directly.
//!
//! - on several threads ([`OthelloSolver::set_threads`]), lazy SMP: once the main thread has
//!   ordered its root moves, helper threads search the same root (each rotating the order by
//!   its number) on the shared table until the main thread is done; at null-window nodes of
//!   [`DEFER_EMPTIES`] empties or more, once one move is searched, a move whose position
//!   another thread is searching waits until the others are (ABDADA's idea, simplified), so
//!   that the threads share out a node's moves. The table being sound, the score is exact
//!   whatever the helpers store, and the best move is the first in the main thread's order
//!   that reaches it: the same as on one thread. The node count (every thread's) varies from
//!   run to run. One node budget and one deadline hold for all the threads together.
//!
//! Nothing is allocated inside the search: move lists are arrays on the stack.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Condvar, Mutex};

use arrayvec::ArrayVec;

use super::{Solution, Stop, Stopped};
use crate::eval::pattern;
use crate::games::othello::{
    Othello, OthelloMove, flips, legal_moves_mask, neighbours, parse_square,
};
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

/// What the table knows of a position. The full position is stored, so a hit is never a
/// collision.
#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
struct Entry {
    lower: i8,
    upper: i8,
    /// Best move square, or 64 for none.
    best: u8,
    /// Empty squares of the position plus one, the replacement priority; 0 marks an unused slot.
    depth: u8,
    /// The table's generation when stored ([`OthelloSolver::age`]): older entries give way.
    generation: u8,
}

impl Entry {
    /// The entry as one word: bounds, best move, depth and generation, a byte each.
    #[inline]
    fn pack(self) -> u64 {
        u64::from(self.lower as u8)
            | u64::from(self.upper as u8) << 8
            | u64::from(self.best) << 16
            | u64::from(self.depth) << 24
            | u64::from(self.generation) << 32
    }

    #[inline]
    fn unpack(data: u64) -> Entry {
        Entry {
            lower: data as u8 as i8,
            upper: (data >> 8) as u8 as i8,
            best: (data >> 16) as u8,
            depth: (data >> 24) as u8,
            generation: (data >> 32) as u8,
        }
    }
}

/// One slot, lockless (Hyatt's scheme): the data word, and the two bitboards each XOR-ed with
/// it. Threads read and write the three words independently (`Relaxed`: plain moves on
/// x86-64); a slot read while another thread writes it may mix two writes, and then the keys
/// XOR-ed back with the data word it read do not give the position probed: a torn read is a
/// miss, never a wrong bound, so the solve stays exact.
#[derive(Default)]
struct Slot {
    player: AtomicU64,
    opponent: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The entry of position `(p, o)` if this slot holds it (and was read whole).
    #[inline]
    fn get(&self, p: u64, o: u64) -> Option<Entry> {
        let data = self.data.load(Relaxed);
        (self.player.load(Relaxed) ^ data == p
            && self.opponent.load(Relaxed) ^ data == o
            && (data >> 24) as u8 != 0)
            .then(|| Entry::unpack(data))
    }

    #[inline]
    fn set(&self, p: u64, o: u64, e: Entry) {
        let data = e.pack();
        self.player.store(p ^ data, Relaxed);
        self.opponent.store(o ^ data, Relaxed);
        self.data.store(data, Relaxed);
    }

    /// The replacement priority: the depth, 0 for an unused slot or one stored by an earlier
    /// generation (a torn read only misjudges a priority).
    #[inline]
    fn priority(&self, generation: u8) -> u8 {
        let e = Entry::unpack(self.data.load(Relaxed));
        if e.generation == generation {
            e.depth
        } else {
            0
        }
    }

    /// Copies `other` into this slot word by word (a torn copy is a slot no probe accepts).
    #[inline]
    fn copy_from(&self, other: &Slot) {
        self.player.store(other.player.load(Relaxed), Relaxed);
        self.opponent.store(other.opponent.load(Relaxed), Relaxed);
        self.data.store(other.data.load(Relaxed), Relaxed);
    }

    fn reset(&self) {
        self.player.store(0, Relaxed);
        self.opponent.store(0, Relaxed);
        self.data.store(0, Relaxed);
    }
}

/// Two slots in one cache line: a probe costs one memory access.
#[derive(Default)]
#[repr(align(64))]
struct Bucket([Slot; 2]);

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

/// The transposition table, shared by the threads of a parallel solve through an [`Arc`].
struct Table {
    buckets: Box<[Bucket]>,
    mask: usize,
}

impl Table {
    /// `buckets` buckets, a power of two.
    fn new(buckets: usize) -> Table {
        Table {
            buckets: (0..buckets).map(|_| Bucket::default()).collect(),
            mask: buckets - 1,
        }
    }

    #[inline]
    fn bucket(&self, p: u64, o: u64) -> &Bucket {
        let h = p.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ o.rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        &self.buckets[((h ^ (h >> 31)) as usize) & self.mask]
    }

    fn clear(&self) {
        for b in self.buckets.iter() {
            b.0[0].reset();
            b.0[1].reset();
        }
    }
}

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
    table: Arc<Table>,
    /// Stored with each entry; [`OthelloSolver::age`] moves it on.
    generation: u8,
    edge: &'static [u8],
    nodes: u64,
    all_best_moves: bool,
    stop: Stop,
    /// Threads of a solve ([`OthelloSolver::set_threads`]).
    threads: usize,
    /// This solver's part in a parallel solve.
    role: Role,
    /// In a parallel solve, the positions its threads are searching ([`Busy`]).
    busy: Option<Arc<Busy>>,
}

/// A solver's part in a solve: alone, or the main thread or a helper of a parallel one.
enum Role {
    Alone,
    /// The main thread: it opens the gate once its root moves are ordered.
    Main(Arc<Gate>),
    /// Helper `k` (1, 2, ...): it rotates its root moves by `k`.
    Helper(usize),
}

/// Where a parallel solve's helpers wait until the main thread has ordered its root moves, so
/// that nothing they store can change that order (the reported best move is the first in it
/// reaching the best score).
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.opened.notify_all();
    }

    fn wait(&self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while !*open {
            open = self.opened.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Below this many empty squares a solve runs on one thread whatever
/// [`OthelloSolver::set_threads`] says: it takes less time than starting helpers.
pub const PARALLEL_EMPTIES: u32 = 12;

/// From this many empties up, a thread of a parallel solve leaves for later the moves another
/// thread is searching ([`Busy`]).
pub const DEFER_EMPTIES: u32 = 12;

/// The positions the threads of a parallel solve are searching, by a hash (ABDADA's
/// "exclusive" marks, simplified): at a null-window node, a move whose position another
/// thread is searching waits until the others are searched, so that threads reaching the same
/// node share its moves out rather than search them twice. A lost or mistaken mark only
/// changes an order: the search stays exact.
struct Busy {
    slots: Box<[AtomicU64]>,
}

impl Busy {
    const SLOTS: usize = 1 << 12;

    fn new() -> Busy {
        Busy {
            slots: (0..Self::SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The slot and the non-zero key of a position.
    #[inline]
    fn key(p: u64, o: u64) -> (usize, u64) {
        let h =
            crate::games::hash::mix64(p ^ o.rotate_left(17).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        ((h as usize) & (Self::SLOTS - 1), h | 1)
    }

    #[inline]
    fn is_busy(&self, p: u64, o: u64) -> bool {
        let (i, k) = Self::key(p, o);
        self.slots[i].load(Relaxed) == k
    }

    #[inline]
    fn enter(&self, p: u64, o: u64) {
        let (i, k) = Self::key(p, o);
        self.slots[i].store(k, Relaxed);
    }

    #[inline]
    fn leave(&self, p: u64, o: u64) {
        let (i, k) = Self::key(p, o);
        let _ = self.slots[i].compare_exchange(k, 0, Relaxed, Relaxed);
    }
}

/// The most threads of one solve.
pub const MAX_THREADS: usize = 256;

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
            table: Arc::new(Table::new(size / 2)),
            generation: 0,
            edge: stability::edge_table(),
            nodes: 0,
            all_best_moves: false,
            stop: Stop::unlimited(),
            threads: 1,
            role: Role::Alone,
            busy: None,
        }
    }

    /// How many threads the next solves use (clamped to 1..=[`MAX_THREADS`]; 1 by default).
    /// More than one: lazy SMP, helper threads searching the root moves in other orders on
    /// the shared table while the main thread searches as alone; the score and the best
    /// moves are the one-thread solve's, the node count (all threads') varies from run to run.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, MAX_THREADS);
    }

    /// [`OthelloSolver::set_threads`] on a solver being built.
    pub fn threads(mut self, threads: usize) -> OthelloSolver {
        self.set_threads(threads);
        self
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
        self.table.clear();
    }

    /// Starts a new generation of the table: what later solves store replaces what earlier
    /// ones stored before it replaces anything deeper of their own (probes still find the old
    /// entries until then). For a game's successive solves, one per move.
    pub fn age(&mut self) {
        self.generation = self.generation.wrapping_add(1);
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
            let (score, _, bounds) = self.root_threads(o, p);
            return Solution {
                score: -score,
                best_moves: vec![OthelloMove::PASS],
                nodes: self.nodes + 1,
                stopped: self.stopped(-bounds.1, -bounds.0),
            };
        }
        let (score, best_moves, bounds) = self.root_threads(p, o);
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
        self.root_ordered(&mut moves);
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

    /// [`OthelloSolver::root`] on the threads of [`OthelloSolver::set_threads`]: the main
    /// thread (this one) searches as alone, helpers search the same root in other orders on
    /// the shared table until it is done, and their nodes are added to this solver's.
    fn root_threads(&mut self, p: u64, o: u64) -> (i32, Vec<OthelloMove>, (i32, i32)) {
        if self.threads <= 1 || (!(p | o)).count_ones() < PARALLEL_EMPTIES {
            return self.root(p, o);
        }
        let shared = self.stop.share();
        let gate = Arc::new(Gate::default());
        let busy = Arc::new(Busy::new());
        self.busy = Some(busy.clone());
        let helpers: Vec<OthelloSolver> = (1..self.threads)
            .map(|k| OthelloSolver {
                table: self.table.clone(),
                generation: self.generation,
                edge: self.edge,
                nodes: 0,
                all_best_moves: self.all_best_moves,
                stop: self.stop.helper(),
                threads: 1,
                role: Role::Helper(k),
                busy: Some(busy.clone()),
            })
            .collect();
        self.role = Role::Main(gate.clone());
        let (result, helper_nodes) = std::thread::scope(|scope| {
            let running: Vec<_> = helpers
                .into_iter()
                .map(|mut helper| {
                    let gate = &gate;
                    scope.spawn(move || {
                        gate.wait();
                        helper.root(p, o);
                        helper.nodes
                    })
                })
                .collect();
            let result = self.root(p, o);
            shared.halt();
            // Open already, unless the root stopped before ordering its moves.
            gate.open();
            let nodes: u64 = running
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .sum();
            (result, nodes)
        });
        self.role = Role::Alone;
        self.busy = None;
        self.stop.unshare();
        self.nodes += helper_nodes;
        result
    }

    /// Called by [`OthelloSolver::root`] once its moves are ordered: the main thread of a
    /// parallel solve lets its helpers start; helper `k` rotates its order by `k` moves, so
    /// that the threads start on different moves.
    fn root_ordered(&mut self, moves: &mut MoveBuf) {
        match &self.role {
            Role::Alone => {}
            Role::Main(gate) => gate.open(),
            &Role::Helper(k) => {
                // The main thread's order (pick's), rotated, then keyed so that pick keeps it.
                for i in 0..moves.len() {
                    pick(moves, i);
                }
                let len = moves.len();
                moves.rotate_left(k % len.max(1));
                let len = len as i32;
                for (i, m) in moves.iter_mut().enumerate() {
                    m.key = len - i as i32;
                }
            }
        }
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
                    let potential = (neighbours(no) & empties).count_ones() as i32;
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

    /// Starts loading the bucket of a position that will be probed soon: the children's
    /// probes then find it in cache instead of stalling on memory.
    #[inline]
    fn prefetch(&self, p: u64, o: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = self.table.bucket(p, o) as *const Bucket as *const i8;
            // SAFETY: a prefetch is only a hint and never faults; SSE is x86-64's baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (p, o);
    }

    #[inline]
    fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        let [a, b] = &self.table.bucket(p, o).0;
        a.get(p, o).or_else(|| b.get(p, o))
    }

    /// Stores bounds for a position, merging with what is known of it already; a new position
    /// takes the first slot if at least as deep as its occupant, which moves to the second,
    /// or if the occupant is of an earlier generation, which it replaces.
    #[inline]
    fn store(&mut self, p: u64, o: u64, n: u32, lower: i32, upper: i32, best: u8) {
        let bucket = &self.table.bucket(p, o).0;
        let depth = n as u8 + 1;
        let generation = self.generation;
        for slot in bucket {
            if let Some(e) = slot.get(p, o) {
                // Another thread may write the slot meanwhile: one of the two writes is lost,
                // and each holds true bounds.
                let merged = Entry {
                    lower: e.lower.max(lower as i8),
                    upper: e.upper.min(upper as i8),
                    best,
                    depth: e.depth,
                    generation,
                };
                slot.set(p, o, merged);
                return;
            }
        }
        let fresh = Entry {
            lower: lower as i8,
            upper: upper as i8,
            best,
            depth,
            generation,
        };
        let first = bucket[0].priority(generation);
        if first == 0 {
            bucket[0].set(p, o, fresh);
        } else if depth >= first {
            bucket[1].copy_from(&bucket[0]);
            bucket[0].set(p, o, fresh);
        } else {
            bucket[1].set(p, o, fresh);
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
        // The depth first: the shared Arc's count is touched only where deferral applies.
        if n >= DEFER_EMPTIES
            && let Some(busy) = self.busy.clone()
        {
            (best, best_move) =
                self.nws_moves_shared(&busy, [p, o], alpha, n, moves, (best, best_move));
            if self.stop.stopped() {
                return 0;
            }
        } else {
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
        }
        if best > alpha {
            self.store(p, o, n, best, 64, best_move);
        } else {
            self.store(p, o, n, -64, best, best_move);
        }
        best
    }

    /// The moves of a null-window node in a parallel solve: as alone, except that once one move
    /// is searched (the hash move or the first), a move another thread is searching waits
    /// until the others are searched. Returns the best score and its move, given the best so
    /// far (`best`, `-INF` for none) and its move.
    fn nws_moves_shared(
        &mut self,
        busy: &Busy,
        [p, o]: [u64; 2],
        alpha: i32,
        n: u32,
        mut moves: MoveBuf,
        (mut best, mut best_move): (i32, u8),
    ) -> (i32, u8) {
        let parity = parity_of(!(p | o));
        let mut deferred = 0u64;
        for i in 0..moves.len() {
            let m = pick(&mut moves, i);
            let (np, no) = (o ^ m.flipped, p | m.flipped | 1u64 << m.sq);
            if best != -INF && busy.is_busy(np, no) {
                deferred |= 1 << i;
                continue;
            }
            busy.enter(np, no);
            let score = self.nws_child(np, no, alpha, n, parity, m.sq as usize);
            busy.leave(np, no);
            if self.stop.stopped() {
                return (0, 64);
            }
            if score > best {
                best = score;
                best_move = m.sq;
                if score > alpha {
                    return (best, best_move);
                }
            }
        }
        while deferred != 0 {
            // `pick` left each move at the index it was picked at.
            let m = moves[deferred.trailing_zeros() as usize];
            deferred &= deferred - 1;
            let (np, no) = (o ^ m.flipped, p | m.flipped | 1u64 << m.sq);
            let score = self.nws_child(np, no, alpha, n, parity, m.sq as usize);
            if self.stop.stopped() {
                return (0, 64);
            }
            if score > best {
                best = score;
                best_move = m.sq;
                if score > alpha {
                    break;
                }
            }
        }
        (best, best_move)
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

/// The evaluation of the ordering search, from the side to move's view: the built-in pattern
/// evaluation ([`pattern::built_in`], 1024 per logit of the win probability), a unit of it
/// 1/4 logit — about one opponent move of the fastest-first key, which breaks its ties.
#[inline]
fn order_eval(p: u64, o: u64) -> i32 {
    let pos = Othello {
        player: p,
        opponent: o,
        // The pattern evaluation reads the side to move's discs; the colour does not matter.
        side: Side::First,
    };
    pattern::built_in().evaluate(&pos) / ORDER_EVAL_DIVISOR
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
    fn table_entries_pack_and_torn_slots_are_misses() {
        let e = Entry {
            lower: -64,
            upper: 38,
            best: 63,
            depth: 21,
            generation: 255,
        };
        assert_eq!(Entry::unpack(e.pack()), e);
        let (p, o) = (0x0000_0018_1000_0000u64, 0x0000_0000_0818_0000u64);
        let slot = Slot::default();
        assert_eq!(slot.get(p, o), None, "an unused slot holds nothing");
        slot.set(p, o, e);
        assert_eq!(slot.get(p, o), Some(e));
        assert_eq!(slot.get(o, p), None);
        // A read mixing two writes of the same position: the keys of the first, the data of
        // the second.
        let later = Entry { lower: 38, ..e };
        let keys = (p ^ e.pack(), o ^ e.pack());
        slot.set(p, o, later);
        slot.player.store(keys.0, Relaxed);
        assert_eq!(slot.get(p, o), None);
        slot.opponent.store(keys.1, Relaxed);
        slot.data.store(later.pack(), Relaxed);
        assert_eq!(slot.get(p, o), None);
    }

    #[test]
    fn older_generations_give_way_and_the_deepest_stays_first() {
        let mut solver = OthelloSolver::with_hash_bits(4);
        // Positions of one bucket (16 slots, 8 buckets): found by trying.
        let first = (1u64, 2u64);
        let bucket = solver.table.bucket(first.0, first.1) as *const Bucket;
        let same: Vec<(u64, u64)> = (3u64..)
            .map(|p| (p << 8, 2u64))
            .filter(|&(p, o)| std::ptr::eq(solver.table.bucket(p, o), bucket))
            .take(2)
            .collect();
        solver.store(first.0, first.1, 20, -4, 64, 9);
        // Shallower: second slot.
        solver.store(same[0].0, same[0].1, 10, -64, 2, 8);
        assert!(solver.probe(first.0, first.1).is_some());
        assert!(solver.probe(same[0].0, same[0].1).is_some());
        // A new generation: the deep entry of the old one gives way to a shallow one, and the
        // second slot keeps its entry.
        solver.age();
        solver.store(same[1].0, same[1].1, 8, 0, 0, 7);
        assert!(solver.probe(first.0, first.1).is_none());
        assert!(solver.probe(same[0].0, same[0].1).is_some());
        assert_eq!(solver.probe(same[1].0, same[1].1).map(|e| e.best), Some(7));
        // Within a generation, depth decides: deeper goes first, the occupant second.
        solver.store(first.0, first.1, 20, -4, 64, 9);
        assert!(solver.probe(first.0, first.1).is_some());
        assert!(solver.probe(same[1].0, same[1].1).is_some());
        assert!(solver.probe(same[0].0, same[0].1).is_none());
    }

    #[test]
    fn final_scores_give_empties_to_the_winner() {
        assert_eq!(final_score(0b111, 0b1000), 64 - 2);
        assert_eq!(final_score(0b1, 0b1), 0);
        assert_eq!(final_score(0b1, 0b110), -62);
    }
}

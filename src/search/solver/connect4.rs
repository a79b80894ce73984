//! Exact Connect 4 solver: negamax with alpha-beta on the bitboard, after Pascal Pons' solver.
//!
//! Scores follow the convention of the test suites (`tests/data/connect4/`): 0 for a draw;
//! when the side to move wins, `22 - k` where `k` is the number of stones the winner has played
//! at its winning move (a faster win scores more); when it loses, minus the same quantity for the
//! opponent. On a 7×6 board that is, for a position with `n` stones and the side to move winning
//! with its next stone, `(43 - n) / 2`.
//!
//! The search ([`Connect4Solver::score`]) is a binary search on the score at the root with
//! null-window negamax probes. Each probe prunes with:
//! - *non-losing moves*: a move under one of the opponent's winning cells is never played, an
//!   opponent's immediate threat must be blocked, two such threats lose at once;
//! - *score bounds*: the number of empty cells bounds how fast either side can still win;
//! - a *transposition table* keyed on `current + mask` (unique per position) that keeps an upper
//!   or a lower bound of each position's score;
//! - *move ordering* by the number of winning cells a move creates, centre columns first on ties.
//!
//! Nothing is allocated during the search; the table is allocated once per solver (on huge pages
//! where Linux grants them) and emptied in O(1) by bumping a generation stamp
//! ([`Connect4Solver::clear`]). Memory is what limits speed: most probes of a table of tens of
//! MiB miss the caches, so each node prefetches its children's entries while it orders them.

use super::{Solution, Stop, Stopped};
use crate::games::GameError;
use crate::games::connect4::{BOARD, BOTTOM_ROW, Column, Connect4, H1, HEIGHT, WIDTH};

/// Cells on the board.
const CELLS: i32 = (WIDTH * HEIGHT) as i32;
/// The lowest score negamax can meet: a loss to the opponent's 4th stone, `-(22 - 4)`.
const MIN_SCORE: i32 = -(CELLS / 2) + 3;
/// The highest score negamax can meet: a win with one's 4th stone.
const MAX_SCORE: i32 = (CELLS + 1) / 2 - 3;
/// Centre columns first: they take part in more alignments.
const COLUMN_ORDER: [u32; WIDTH as usize] = [3, 2, 4, 1, 5, 0, 6];

/// The cells of column `col`.
#[inline]
const fn column_mask(col: u32) -> u64 {
    ((1 << HEIGHT) - 1) << (col * H1)
}

/// The empty cells where one more stone would give `stones` four in a row (cells above the
/// column tops included: they are threats for later).
#[inline]
fn winning_cells(stones: u64, mask: u64) -> u64 {
    let p = stones;
    // Vertical: three stones below.
    let mut r = (p << 1) & (p << 2) & (p << 3);
    // Horizontal and the two diagonals: the cell can be any of the four of the line.
    for shift in [H1, H1 - 1, H1 + 1] {
        let pairs = (p << shift) & (p << (2 * shift));
        r |= pairs & (p << (3 * shift));
        r |= pairs & (p >> shift);
        let pairs = (p >> shift) & (p >> (2 * shift));
        r |= pairs & (p << shift);
        r |= pairs & (p >> (3 * shift));
    }
    r & (BOARD ^ mask)
}

/// The position as the search sees it: the stones of the side to move, all stones, and their
/// number (kept to avoid a popcount per node).
#[derive(Copy, Clone)]
struct Node {
    current: u64,
    mask: u64,
    moves: i32,
}

impl Node {
    #[inline]
    fn new(pos: &Connect4) -> Node {
        Node {
            current: pos.current,
            mask: pos.mask,
            moves: pos.stones() as i32,
        }
    }

    /// Unique per position: `mask + BOTTOM_ROW` marks each column's first empty cell, and adding
    /// `current` instead of `BOTTOM_ROW` does the same shifted by the side to move's stones.
    #[inline]
    fn key(&self) -> u64 {
        self.current + self.mask
    }

    /// The cell where a stone would land in each column that is not full.
    #[inline]
    fn playable(&self) -> u64 {
        (self.mask + BOTTOM_ROW) & BOARD
    }

    /// Whether the side to move wins with its next stone.
    #[inline]
    fn can_win_next(&self) -> bool {
        winning_cells(self.current, self.mask) & self.playable() != 0
    }

    /// The position after a stone on `cell` (one bit of [`Node::playable`]).
    #[inline]
    fn play(&self, cell: u64) -> Node {
        Node {
            current: self.current ^ self.mask,
            mask: self.mask | cell,
            moves: self.moves + 1,
        }
    }

    /// The opponent's winning cells.
    #[inline]
    fn opponent_wins(&self) -> u64 {
        winning_cells(self.current ^ self.mask, self.mask)
    }

    /// The playable cells that do not let the opponent win at once, assuming the side to move
    /// cannot win at once: the single forced block if the opponent threatens one cell, nothing
    /// if it threatens two, and never a cell right under an opponent's winning cell.
    /// `opponent_win` is [`Node::opponent_wins`].
    #[inline]
    fn non_losing_moves(&self, opponent_win: u64) -> u64 {
        let mut possible = self.playable();
        let forced = possible & opponent_win;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(opponent_win >> 1)
    }
}

/// The score of the side to move if it wins with its next stone, with `moves` stones on board.
#[inline]
fn win_next(moves: i32) -> i32 {
    (CELLS + 1 - moves) / 2
}

/// The transposition table: one entry per slot, always replaced.
///
/// A position's key (`current + mask`) has [`KEY_BITS`] bits. It is scrambled by a
/// multiplication by an odd constant modulo 2^49, a bijection on the keys: the top `bits` bits
/// of the result choose the slot, the other `49 - bits` bits (the *check*) are stored with the
/// 7-bit bound, so slot and check together give back the whole key and a hit is never a
/// collision. From 2^24 slots on the check fits in 25 bits and an entry in a `u32` (check above
/// the bound): twice the entries of 8-byte slots in the same memory, as many as Pascal Pons'
/// solver keeps in 84 MB. Smaller tables (tests, `--hash` below 64 MiB) take `u64` entries.
///
/// Clearing writes zeros over the slots written since the last clear while there are few (a
/// short solve), and over the whole table otherwise: a suite of small positions never pays for
/// the full table, and nothing in an entry is spent on a generation stamp.
struct Table {
    entries: Entries,
    /// The first slot (a little slack before it aligns it on a huge page).
    start: usize,
    /// log2 of the number of slots.
    bits: u32,
    /// Slots written since the last clear, while there are at most [`TRACKED`] of them.
    written: Vec<u32>,
    tracking: bool,
}

/// The slots: packed (`u32`, from 2^24 slots) or wide (`u64`).
enum Entries {
    Packed(Box<[u32]>),
    Wide(Box<[u64]>),
}

/// Bits of a position's key: 7 columns of 7 bits.
const KEY_BITS: u32 = 49;
/// Written slots remembered for a cheap clear; past this, a clear zeroes the whole table.
const TRACKED: usize = 1 << 16;
/// The fewest slot bits whose check fits a `u32` entry beside the bound.
const PACKED_BITS: u32 = KEY_BITS - 25;

/// Huge pages are 2 MiB on x86-64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// Asks Linux to back `bytes` bytes at `addr` with huge pages where it can: every probe of a big
/// table otherwise misses the TLB too. Returns how many bytes to skip to the first huge page.
/// A hint only: the table works the same if the kernel declines.
#[cfg(target_os = "linux")]
fn advise_huge_pages(addr: usize, bytes: usize) -> usize {
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    const MADV_HUGEPAGE: i32 = 14;
    let skip = addr.next_multiple_of(HUGE_PAGE) - addr;
    let len = bytes.saturating_sub(skip) / HUGE_PAGE * HUGE_PAGE;
    if len > 0 {
        // SAFETY: the range lies inside the caller's allocation; MADV_HUGEPAGE changes neither
        // the contents nor the validity of the memory.
        unsafe { madvise((addr + skip) as *mut std::ffi::c_void, len, MADV_HUGEPAGE) };
    }
    skip
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_addr: usize, _bytes: usize) -> usize {
    0
}

/// Scrambles keys; odd, so that multiplying by it is a bijection modulo 2^49.
const SCRAMBLE: u64 = 0x9E37_79B9_7F4A_7C15;
/// The bound field of an entry.
const VALUE_FIELD: u64 = 0x7f;

/// A zeroed slice of `len` slots with `slack` more, on huge pages where Linux grants them;
/// returns it and the index of the first aligned slot.
fn allocate<T: Copy + Default>(len: usize) -> (Box<[T]>, usize) {
    let size = std::mem::size_of::<T>();
    let slack = if len * size >= HUGE_PAGE {
        HUGE_PAGE / size
    } else {
        0
    };
    // A fresh zeroed allocation this large is untouched memory from the system: the advice
    // applies before the first fault brings any page in.
    let mut entries = vec![T::default(); len + slack].into_boxed_slice();
    let start = if slack > 0 {
        advise_huge_pages(entries.as_mut_ptr() as usize, entries.len() * size) / size
    } else {
        0
    };
    (entries, start)
}

impl Table {
    fn new(bits: u32) -> Table {
        debug_assert!((10..=30).contains(&bits));
        let len = 1usize << bits;
        let (entries, start) = if bits >= PACKED_BITS {
            let (e, s) = allocate::<u32>(len);
            (Entries::Packed(e), s)
        } else {
            let (e, s) = allocate::<u64>(len);
            (Entries::Wide(e), s)
        };
        Table {
            entries,
            start,
            bits,
            written: Vec::with_capacity(TRACKED),
            tracking: true,
        }
    }

    /// Bytes per entry.
    fn entry_bytes(&self) -> usize {
        match self.entries {
            Entries::Packed(_) => 4,
            Entries::Wide(_) => 8,
        }
    }

    /// Writes every page of the table now, so that no solve pays for the page faults of its
    /// first touches (worth it before a suite of short solves).
    fn pre_touch(&mut self) {
        match &mut self.entries {
            Entries::Packed(e) => e.fill(0),
            Entries::Wide(e) => e.fill(0),
        }
    }

    /// The slot of `key` and its check.
    #[inline]
    fn locate(&self, key: u64) -> (usize, u64) {
        let h = key.wrapping_mul(SCRAMBLE) & ((1 << KEY_BITS) - 1);
        let check_bits = KEY_BITS - self.bits;
        (
            self.start + (h >> check_bits) as usize,
            h & ((1 << check_bits) - 1),
        )
    }

    /// Starts loading the entry of `key` into the cache, so that a lookup a little later does
    /// not wait for memory.
    #[inline]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let i = self.locate(key).0;
            let p = match &self.entries {
                Entries::Packed(e) => e.as_ptr().wrapping_add(i) as *const i8,
                Entries::Wide(e) => e.as_ptr().wrapping_add(i) as *const i8,
            };
            // SAFETY: prefetching is only a hint and never faults, whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The value stored for `key`, 0 if none.
    #[inline]
    fn get(&self, key: u64) -> u32 {
        let (i, check) = self.locate(key);
        // SAFETY: a slot is below `start + 2^bits`, at most the length of the entries.
        let e = match &self.entries {
            Entries::Packed(e) => (unsafe { *e.get_unchecked(i) }) as u64,
            Entries::Wide(e) => unsafe { *e.get_unchecked(i) },
        };
        if e >> 7 == check {
            (e & VALUE_FIELD) as u32
        } else {
            0
        }
    }

    #[inline]
    fn put(&mut self, key: u64, value: u32) {
        debug_assert!((1..=VALUE_FIELD as u32).contains(&value));
        let (i, check) = self.locate(key);
        let entry = check << 7 | value as u64;
        // SAFETY: as in `get`; a packed entry's check has at most 25 bits, so it fits.
        match &mut self.entries {
            Entries::Packed(e) => unsafe { *e.get_unchecked_mut(i) = entry as u32 },
            Entries::Wide(e) => unsafe { *e.get_unchecked_mut(i) = entry },
        }
        if self.tracking {
            if self.written.len() < TRACKED {
                self.written.push(i as u32);
            } else {
                self.tracking = false;
                self.written.clear();
            }
        }
    }

    /// Forgets every entry.
    fn clear(&mut self) {
        if self.tracking {
            match &mut self.entries {
                Entries::Packed(e) => self.written.iter().for_each(|&i| e[i as usize] = 0),
                Entries::Wide(e) => self.written.iter().for_each(|&i| e[i as usize] = 0),
            }
            self.written.clear();
        } else {
            self.pre_touch();
            self.tracking = true;
        }
    }
}

/// Table values: an upper bound `u` is stored as `u - MIN_SCORE + 1` (1..=37), a lower bound `l`
/// as `l + MAX_SCORE - 2 * MIN_SCORE + 2` (38..=74).
const LOWER_BOUND_BASE: i32 = MAX_SCORE - MIN_SCORE + 1;

/// An exact Connect 4 solver with its transposition table.
///
/// Results are exact whatever the table holds; a table kept from one position to the next only
/// saves work. Call [`Connect4Solver::clear`] to make solves independent of one another (for
/// timing, say).
pub struct Connect4Solver {
    table: Table,
    nodes: u64,
    stop: Stop,
}

impl Default for Connect4Solver {
    fn default() -> Self {
        Connect4Solver::new()
    }
}

impl Connect4Solver {
    /// Bits of the default table size: 2^24 entries of 4 bytes, 64 MiB.
    pub const DEFAULT_TABLE_BITS: u32 = 24;

    /// A solver with the default table of 2^[`Self::DEFAULT_TABLE_BITS`] entries.
    pub fn new() -> Connect4Solver {
        Connect4Solver::with_table_bits(Self::DEFAULT_TABLE_BITS)
    }

    /// A solver with a table of `2^bits` entries (4 bytes each from 2^24 on, 8 below); `bits`
    /// is clamped to 10..=30.
    pub fn with_table_bits(bits: u32) -> Connect4Solver {
        Connect4Solver {
            table: Table::new(bits.clamp(10, 30)),
            nodes: 0,
            stop: Stop::unlimited(),
        }
    }

    /// A solver whose table takes at most `mib` MiB (at least 1; 64 MiB and up hold 4-byte
    /// entries, less 8-byte ones).
    pub fn with_table_mib(mib: u64) -> Connect4Solver {
        let bytes = mib.max(1) << 20;
        let packed = (bytes / 4).ilog2();
        let bits = if packed >= PACKED_BITS {
            packed
        } else {
            (bytes / 8).ilog2()
        };
        Connect4Solver::with_table_bits(bits)
    }

    /// The table's size in bytes.
    pub fn table_bytes(&self) -> usize {
        (1usize << self.table.bits) * self.table.entry_bytes()
    }

    /// Writes every page of the table now, so that solves do not pay for its first touches:
    /// worth it before a suite of short solves, not before one long one.
    pub fn pre_touch(&mut self) {
        self.table.pre_touch();
    }

    /// The limits of the next solves (a node budget, a time, a progress counter); a solve that
    /// reaches one stops with the bounds it proved ([`Solution::stopped`]).
    pub fn set_stop(&mut self, stop: Stop) {
        self.stop = stop;
    }

    /// Forgets every table entry (cheaply after a short solve: see the table's documentation),
    /// so the next solve does not benefit from earlier ones.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Positions visited by the last [`Self::score`] or [`Self::solve`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact score of `pos` for the side to move, in the suite convention (see the module
    /// documentation). A finished game scores 0 if drawn and, if the last move won, minus
    /// `22 - k` where `k` is the number of stones of the winner.
    pub fn score(&mut self, pos: &Connect4) -> i32 {
        self.nodes = 0;
        self.stop.start();
        self.root_bounds(pos).0
    }

    /// The score of `pos` as proven bounds `(lower, upper)` within the limits of
    /// [`Self::set_stop`]: equal when the solve finished (the exact score, as
    /// [`Self::score`] gives it), apart when a limit stopped it.
    ///
    /// A stopped solve keeps what it stored: the search stores a bound only once every child it
    /// searched returned before the stop (it unwinds without storing), so the table still holds
    /// only proven bounds, and a later solve — of this position or one after it — starts from
    /// them. With a node limit (no time limit) what the table holds depends only on the solves
    /// made since the last [`Self::clear`], so the result of a sequence of budgeted solves is
    /// reproducible.
    pub fn score_bounds(&mut self, pos: &Connect4) -> (i32, i32) {
        self.nodes = 0;
        self.stop.start();
        self.root_bounds(pos)
    }

    /// The exact score of `pos` and every move that achieves it (none if the game is over),
    /// with the positions visited.
    pub fn solve(&mut self, pos: &Connect4) -> Solution<Column> {
        self.nodes = 0;
        self.stop.start();
        let (lower, upper) = self.root_bounds(pos);
        let node = Node::new(pos);
        let mut best_moves = Vec::new();
        if lower == upper && !pos.last_move_won() && node.moves < CELLS {
            for col in 0..WIDTH {
                let cell = node.playable() & column_mask(col);
                if cell != 0 && self.move_reaches(&node, cell, lower) && !self.stop.stopped() {
                    best_moves.push(Column(col as u8));
                }
            }
        }
        let stopped = self.stop.reason().map(|reason| {
            // What was searched while stopping is not to be trusted: forget it.
            self.table.clear();
            Stopped {
                reason,
                lower,
                upper,
                depth: 0,
            }
        });
        Solution {
            score: lower,
            best_moves,
            nodes: self.nodes,
            stopped,
        }
    }

    /// The root's score as proven bounds `(lower, upper)`: equal unless a limit stopped the
    /// binary search.
    fn root_bounds(&mut self, pos: &Connect4) -> (i32, i32) {
        let node = Node::new(pos);
        if pos.last_move_won() {
            // The winner played the last stone, so it has ceil(n / 2) of the n stones.
            let s = -(22 - (node.moves + 1) / 2);
            return (s, s);
        }
        if node.moves == CELLS {
            return (0, 0);
        }
        if node.can_win_next() {
            let s = win_next(node.moves);
            return (s, s);
        }
        // Binary search on the score with null-window probes; each probe narrows [min, max].
        let mut min = -(CELLS - node.moves) / 2;
        let mut max = (CELLS + 1 - node.moves) / 2;
        while min < max {
            let mut med = min + (max - min) / 2;
            // Probe nearer zero first: draws and slow results are the common case and those
            // probes are the cheap ones.
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.negamax(node, node.opponent_wins(), med, med + 1);
            if self.stop.stopped() {
                return (min, max);
            }
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        (min, min)
    }

    /// Whether the stone on `cell` reaches `score`, the exact score of `node` (which is not
    /// finished and in which the side to move may or may not win at once).
    fn move_reaches(&mut self, node: &Node, cell: u64, score: i32) -> bool {
        if winning_cells(node.current, node.mask) & cell != 0 {
            return win_next(node.moves) == score;
        }
        let child = node.play(cell);
        if child.moves == CELLS {
            return score == 0;
        }
        if child.can_win_next() {
            return -win_next(child.moves) == score;
        }
        // The move reaches `score` iff the child's score is at most `-score`: one null-window
        // probe just above `-score`.
        self.negamax(child, child.opponent_wins(), -score, -score + 1) <= -score
    }

    /// Negamax with alpha-beta, `alpha < beta`, on a position where the side to move cannot win
    /// at once. A result `<= alpha` is an upper bound of the score, a result `>= beta` a lower
    /// bound, anything between is exact. `opponent_win` is [`Node::opponent_wins`], which the
    /// parent computed when it ordered its moves.
    fn negamax(&mut self, node: Node, opponent_win: u64, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta && !node.can_win_next());
        debug_assert_eq!(opponent_win, node.opponent_wins());
        self.nodes += 1;
        if self.stop.poll(self.nodes) {
            return 0;
        }

        let possible = node.non_losing_moves(opponent_win);
        if possible == 0 {
            // The opponent wins with its next stone whatever we play.
            return -(CELLS - node.moves) / 2;
        }
        if node.moves >= CELLS - 2 {
            // Two cells left, neither side can win with them: a draw.
            return 0;
        }
        // The opponent cannot win with its next stone, so we lose at best one stone later.
        let min = -(CELLS - 2 - node.moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        // We cannot win with this stone, so at best with the next one.
        let max = (CELLS - 1 - node.moves) / 2;
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }

        let key = node.key();
        let value = self.table.get(key) as i32;
        if value != 0 {
            if value > LOWER_BOUND_BASE {
                let min = value + 2 * MIN_SCORE - MAX_SCORE - 2;
                if alpha < min {
                    alpha = min;
                    if alpha >= beta {
                        return alpha;
                    }
                }
            } else {
                let max = value + MIN_SCORE - 1;
                if beta > max {
                    beta = max;
                    if alpha >= beta {
                        return beta;
                    }
                }
            }
        }

        // Order the moves by the number of winning cells they give us, ties in centre-first
        // order (insertion sort, best last). Those cells are the child's `opponent_win`.
        let mut cells = [0u64; WIDTH as usize];
        let mut wins = [0u64; WIDTH as usize];
        let mut scores = [0u32; WIDTH as usize];
        let mut count = 0;
        for &col in COLUMN_ORDER.iter().rev() {
            let cell = possible & column_mask(col);
            if cell != 0 {
                // The child will look itself up: the table is far larger than the caches.
                self.table.prefetch(node.play(cell).key());
                // The cell itself is not among them: it would have been a win at once.
                let w = winning_cells(node.current | cell, node.mask | cell);
                let s = w.count_ones();
                let mut i = count;
                // `>` keeps a later column (more central) after an equal earlier one.
                while i > 0 && scores[i - 1] > s {
                    cells[i] = cells[i - 1];
                    wins[i] = wins[i - 1];
                    scores[i] = scores[i - 1];
                    i -= 1;
                }
                cells[i] = cell;
                wins[i] = w;
                scores[i] = s;
                count += 1;
            }
        }

        for i in (0..count).rev() {
            let score = -self.negamax(node.play(cells[i]), wins[i], -beta, -alpha);
            if self.stop.stopped() {
                // Unwinding: nothing below is a bound worth storing.
                return 0;
            }
            if score >= beta {
                self.table
                    .put(key, (score + MAX_SCORE - 2 * MIN_SCORE + 2) as u32);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        self.table.put(key, (alpha - MIN_SCORE + 1) as u32);
        alpha
    }
}

/// Reads one line of a Connect 4 test suite, `MOVES SCORE`: the columns played from the empty
/// board (digits 1..7, run together) and the exact score for the side to move.
pub fn parse_suite_line(line: &str) -> Result<(Connect4, i32), GameError> {
    let bad = |reason: String| GameError::BadPosition {
        game: "connect4".into(),
        reason,
    };
    let mut fields = line.split_whitespace();
    let (Some(moves), Some(score)) = (fields.next(), fields.next()) else {
        return Err(bad(format!(
            "suite line '{}' should be 'MOVES SCORE': the columns played (1..7) and the score",
            line.trim()
        )));
    };
    if let Some(extra) = fields.next() {
        return Err(bad(format!(
            "suite line '{}' has '{extra}' after the score; expected 'MOVES SCORE'",
            line.trim()
        )));
    }
    let score = score
        .parse::<i32>()
        .map_err(|_| bad(format!("score '{score}' is not an integer")))?;
    let pos = Connect4::start().play_digits(moves)?;
    Ok((pos, score))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;

    /// Keys as the solver makes them: `current + mask` of positions along seeded random games.
    fn keys(count: usize) -> Vec<u64> {
        let mut keys = Vec::new();
        let mut k = 0u64;
        while keys.len() < count {
            let (line, _) = crate::games::random_game(Connect4::start(), 42, k);
            keys.extend(line.iter().map(|p| Node::new(p).key()));
            k += 1;
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    #[test]
    fn a_table_hit_is_never_another_positions_entry() {
        // A tiny wide table and a packed one: many keys share a slot, and each read gives the
        // value of its own key or nothing, never a neighbour's.
        for bits in [10, PACKED_BITS] {
            let mut table = Table::new(bits);
            let keys = keys(20_000);
            for (i, &key) in keys.iter().enumerate() {
                let value = (i % 74 + 1) as u32;
                table.put(key, value);
                assert_eq!(table.get(key), value);
                if i > 0 {
                    let previous = table.get(keys[i - 1]);
                    assert!(previous == 0 || previous == ((i - 1) % 74 + 1) as u32);
                }
            }
            for (i, &key) in keys.iter().enumerate() {
                let v = table.get(key);
                assert!(
                    v == 0 || v == (i % 74 + 1) as u32,
                    "bits {bits}: a false hit"
                );
            }
            table.clear();
            assert!(
                keys.iter().all(|&k| table.get(k) == 0),
                "bits {bits}: cleared"
            );
        }
    }

    #[test]
    fn tables_are_sized_in_mebibytes() {
        assert_eq!(Connect4Solver::new().table_bytes(), 64 << 20);
        assert_eq!(Connect4Solver::with_table_mib(64).table_bytes(), 64 << 20);
        assert_eq!(Connect4Solver::with_table_mib(200).table_bytes(), 128 << 20);
        // Below 64 MiB the entries are 8 bytes.
        assert_eq!(Connect4Solver::with_table_mib(16).table_bytes(), 16 << 20);
        assert_eq!(Connect4Solver::with_table_mib(1).table_bytes(), 1 << 20);
    }

    #[test]
    fn winning_cells_match_has_four() {
        // Every empty cell found by `winning_cells` completes a four, and every playable cell
        // that completes a four is found.
        let pos = Connect4::start().play_digits("445533").unwrap();
        let node = Node::new(&pos);
        let wins = winning_cells(node.current, node.mask);
        for cell in (0..64)
            .map(|b| 1u64 << b)
            .filter(|c| c & BOARD & !node.mask != 0)
        {
            assert_eq!(
                wins & cell != 0,
                crate::games::connect4::has_four(node.current | cell),
                "cell {cell:#x}"
            );
        }
        assert!(node.can_win_next());
    }

    #[test]
    fn a_clear_forgets_after_short_and_long_solves() {
        for bits in [10, PACKED_BITS] {
            let mut t = Table::new(bits);
            t.put(12345, 7);
            assert_eq!(t.get(12345), 7);
            // Few writes: the clear zeroes those slots.
            t.clear();
            assert_eq!(t.get(12345), 0);
            // More writes than are tracked: the clear zeroes everything.
            for k in 0..(TRACKED as u64 + 10) {
                t.put(k * 977 + 1, 5);
            }
            assert!(!t.tracking);
            t.clear();
            assert!(t.tracking);
            assert!((0..1000u64).all(|k| t.get(k * 977 + 1) == 0));
            // The largest key and the largest value fit.
            let top = (1 << 49) - 1;
            t.put(top, 74);
            assert_eq!(t.get(top), 74);
        }
    }

    #[test]
    fn table_never_confuses_keys_sharing_a_slot() {
        // Keys in the same slot differ in their check: each reads back its own value or none.
        let t = Table::new(10);
        let slot = |k: u64| t.locate(k).0;
        let keys: Vec<u64> = (1..200_000u64).filter(|&k| slot(k) == slot(1)).collect();
        assert!(keys.len() > 20);
        let mut t = t;
        for (n, &k) in keys.iter().enumerate() {
            t.put(k, 1 + (n % 74) as u32);
            assert_eq!(t.get(k), 1 + (n % 74) as u32);
            if n > 0 {
                assert_eq!(t.get(keys[n - 1]), 0, "key {k} shadows {}", keys[n - 1]);
            }
        }
    }

    #[test]
    fn finished_games_score_for_the_loser() {
        let mut solver = Connect4Solver::with_table_bits(12);
        // The first player wins with its 4th stone: the second player, to move, scores -18.
        let pos = Connect4::start().play_digits("1212121").unwrap();
        assert_eq!(solver.score(&pos), -18);
        let s = solver.solve(&pos);
        assert!(s.best_moves.is_empty());
        assert_eq!(pos.move_count(), 0);
        // The second player wins with its 4th stone: the first player scores -18.
        let pos = Connect4::start().play_digits("12121252").unwrap();
        assert_eq!(solver.score(&pos), -18);
    }
}

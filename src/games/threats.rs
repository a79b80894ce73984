//! Threats in the k-in-a-row games ([`Morpion`]: gomoku, renju, any m,n,k): what one stone of a
//! side makes on an empty cell — a five (a win), a four and the cell(s) completing it, an open
//! three — each under the position's [`Rule`]. The threat searches (`search::vcf`) are built on
//! these.
//!
//! The definitions, for a side and an empty cell, with `k` the game's K:
//! - a **five** is a winning line through the stone: `k` or more in a row (freestyle), exactly
//!   `k` (exact rules, and renju's black, whose overline wins nothing); renju's white wins
//!   with five or more;
//! - a **four** is a line through the stone to which one more stone adds a five through it;
//!   that stone's cell is a *completing cell*, where the opponent must defend. A line has at
//!   most two (the first empty cell on each side of the stone's run); a **straight four** is
//!   the stone's unbroken run of `k − 1` with both ends completing (`.XXXX.`);
//! - an **open three** is a line, holding no four, where one more stone `q` makes a straight
//!   four through the stone: one move from a straight four. For renju's black, `q` must be a
//!   point black may take with the stone placed — neither a five nor forbidden — as the
//!   renju rules define a three ([`super::renju`]);
//! - renju's black: a stone on a forbidden point makes no four and no three (a five still
//!   wins: renju judges the five first). A four whose completing cell is forbidden for black
//!   would be no four, but a completing cell makes an exact five, which is never forbidden, so
//!   no four is lost that way (a property test checks it).
//!
//! Each judgement scans the four lines through the cell in windows of `2k + 1` cells held as
//! bits of a `u32`; nothing is allocated.

use super::morpion::Cell;
use super::morpion::{Morpion, Rule};
use super::padded::{Padded, STRIDE, padded, shift_left, shift_right, unpadded};
use super::renju;
use super::{Game, Side};

/// A set of cells, row-major (`row * cols + col`), as [`Morpion::marks`] gives them.
pub type Cells = [u64; 4];

/// The four lines through a cell as (row step, column step).
const LINES: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// What one stone makes on an empty cell.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Threat {
    /// It makes a five: the side wins.
    pub five: bool,
    /// The completing cells of the fours it makes (none: no four).
    pub four: Cells,
    /// One of its fours is a straight four (two completing cells on one unbroken run).
    pub straight_four: bool,
    /// It makes an open three.
    pub open_three: bool,
}

/// Whether a cell is in `cells`.
#[inline]
pub fn contains(cells: &Cells, i: usize) -> bool {
    cells[i >> 6] >> (i & 63) & 1 == 1
}

/// The number of cells in `cells`.
#[inline]
pub fn count(cells: &Cells) -> u32 {
    cells.iter().map(|w| w.count_ones()).sum()
}

/// The lowest cell of `cells`, if any.
#[inline]
pub fn first(cells: &Cells) -> Option<usize> {
    cells
        .iter()
        .enumerate()
        .find(|(_, w)| **w != 0)
        .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
}

/// Calls `f` with every cell of `cells`, in cell order.
#[inline]
pub fn for_each(cells: &Cells, mut f: impl FnMut(usize)) {
    for (w, &word) in cells.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            f(w * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
}

/// Adds the cell `i` to `cells`.
#[inline]
pub fn insert(cells: &mut Cells, i: usize) {
    cells[i >> 6] |= 1 << (i & 63);
}

/// Whether `side` wins only with exactly `k` in a row under `rule`.
#[inline]
fn exact_for(rule: Rule, side: Side) -> bool {
    match rule {
        Rule::Freestyle => false,
        Rule::Exact => true,
        Rule::Renju => side == Side::First,
    }
}

/// The first and last bit of the run of set bits of `own` through bit `i` (which is set).
#[inline]
fn run(own: u32, i: u32) -> (u32, u32) {
    let up = (own >> i).trailing_ones();
    let down = ((own as u64) << (63 - i)).leading_ones();
    (i + 1 - down, i + up - 1)
}

/// One side's stones on a board, with the rule that judges its lines.
#[derive(Clone, Copy)]
struct Lines {
    own: Cells,
    opp: Cells,
    rows: i32,
    cols: i32,
    k: u32,
    exact: bool,
}

/// What the stone makes in one line.
#[derive(Clone, Copy, Default)]
struct LineShape {
    five: bool,
    /// The completing cells as window bits.
    completing: u32,
    straight: bool,
    /// The open three's straight-four points as window bits (only looked for when asked and
    /// the line has no four).
    three_points: u32,
}

impl Lines {
    fn of(pos: &Morpion, side: Side) -> Lines {
        Lines {
            own: pos.marks(side),
            opp: pos.marks(side.opponent()),
            rows: pos.rows() as i32,
            cols: pos.cols() as i32,
            k: pos.k() as u32,
            exact: exact_for(pos.rule(), side),
        }
    }

    /// Whether a run of `len` stones wins.
    #[inline]
    fn wins(&self, len: u32) -> bool {
        if self.exact {
            len == self.k
        } else {
            len >= self.k
        }
    }

    /// The line through `cell` along `(dr, dc)`, offsets −k..=k as bits 0..=2k: the own stones
    /// (the cell itself counted own) and the empty cells.
    #[inline]
    fn window(&self, cell: usize, (dr, dc): (i32, i32)) -> (u32, u32) {
        let k = self.k as i32;
        let (r0, c0) = (cell as i32 / self.cols, cell as i32 % self.cols);
        let (mut own, mut empty) = (1u32 << k, 0u32);
        for i in -k..=k {
            let (r, c) = (r0 + dr * i, c0 + dc * i);
            if i == 0 || r < 0 || c < 0 || r >= self.rows || c >= self.cols {
                continue;
            }
            let at = (r * self.cols + c) as usize;
            if contains(&self.own, at) {
                own |= 1 << (i + k);
            } else if !contains(&self.opp, at) {
                empty |= 1 << (i + k);
            }
        }
        (own, empty)
    }

    /// The cell at window bit `bit` of the line through `cell`.
    #[inline]
    fn cell_at(&self, cell: usize, (dr, dc): (i32, i32), bit: u32) -> usize {
        let i = bit as i32 - self.k as i32;
        let (r, c) = (
            cell as i32 / self.cols + dr * i,
            cell as i32 % self.cols + dc * i,
        );
        (r * self.cols + c) as usize
    }

    /// The window bits of the empty ends of the run through `centre` that complete a win.
    #[inline]
    fn completing(&self, own: u32, empty: u32, centre: u32) -> u32 {
        let (lo, hi) = run(own, centre);
        let mut out = 0;
        for e in [lo.wrapping_sub(1), hi + 1] {
            if e <= 2 * self.k && empty >> e & 1 == 1 {
                let (l, h) = run(own | 1 << e, e);
                if self.wins(h + 1 - l) {
                    out |= 1 << e;
                }
            }
        }
        out
    }

    /// The shape a stone on the window's centre makes; threes only when `threes`.
    #[inline]
    fn shape(&self, own: u32, empty: u32, threes: bool) -> LineShape {
        let centre = self.k;
        let mut s = LineShape::default();
        let (lo, hi) = run(own, centre);
        if self.wins(hi + 1 - lo) {
            s.five = true;
            return s;
        }
        s.completing = self.completing(own, empty, centre);
        s.straight = hi + 1 - lo == self.k - 1 && s.completing.count_ones() == 2;
        if s.completing != 0 || !threes || self.k < 3 {
            return s;
        }
        // A point `q` making the centre's unbroken run k − 1 long with both ends completing.
        let mut points = empty & !(1 | 1 << (2 * self.k));
        while points != 0 {
            let q = points.trailing_zeros();
            points &= points - 1;
            let with = own | 1 << q;
            let (lo, hi) = run(with, centre);
            if hi + 1 - lo == self.k - 1
                && (lo..=hi).contains(&q)
                && self
                    .completing(with, empty & !(1 << q), centre)
                    .count_ones()
                    == 2
            {
                s.three_points |= 1 << q;
            }
        }
        s
    }

    /// Whether a stone on the empty `cell` makes a five.
    #[inline]
    fn five(&self, cell: usize) -> bool {
        LINES.iter().any(|&line| {
            let (own, _) = self.window(cell, line);
            let (lo, hi) = run(own, self.k);
            self.wins(hi + 1 - lo)
        })
    }
}

/// Whether black may not play on the empty `cell` of `pos` under renju (whoever is to move).
#[inline]
fn forbidden_for_black(pos: &Morpion, black: &Cells, cell: usize) -> bool {
    renju::is_forbidden(
        black,
        &pos.marks(Side::Second),
        pos.rows() as usize,
        pos.cols() as usize,
        cell,
    )
}

/// Whether renju's forbidden points bind `side` in `pos`.
#[inline]
fn bound(pos: &Morpion, side: Side) -> bool {
    pos.rule() == Rule::Renju && side == Side::First
}

/// What a stone of `side` on the empty `cell` of `pos` makes (see the module's definitions).
/// The open three is judged only when `threes` (it costs more, and renju's three needs its
/// points judged forbidden or not).
pub fn classify(pos: &Morpion, side: Side, cell: usize, threes: bool) -> Threat {
    let lines = Lines::of(pos, side);
    let mut threat = Threat::default();
    let mut shapes = [LineShape::default(); 4];
    for (s, &line) in shapes.iter_mut().zip(&LINES) {
        let (own, empty) = lines.window(cell, line);
        *s = lines.shape(own, empty, threes);
        if s.five {
            threat.five = true;
            return threat;
        }
    }
    if shapes
        .iter()
        .all(|s| s.completing == 0 && s.three_points == 0)
    {
        return threat;
    }
    let renju_black = bound(pos, side);
    if renju_black && forbidden_for_black(pos, &lines.own, cell) {
        return threat;
    }
    let mut placed = lines.own;
    insert(&mut placed, cell);
    for (s, &line) in shapes.iter().zip(&LINES) {
        let mut bits = s.completing;
        while bits != 0 {
            insert(
                &mut threat.four,
                lines.cell_at(cell, line, bits.trailing_zeros()),
            );
            bits &= bits - 1;
        }
        threat.straight_four |= s.straight;
        let mut points = s.three_points;
        while points != 0 && !threat.open_three {
            let q = lines.cell_at(cell, line, points.trailing_zeros());
            points &= points - 1;
            threat.open_three = !renju_black || {
                let after = Lines {
                    own: placed,
                    ..lines
                };
                !after.five(q) && !forbidden_for_black(pos, &placed, q)
            };
        }
    }
    threat
}

/// Whether a stone of `side` on the empty `cell` makes a five.
#[inline]
pub fn makes_five(pos: &Morpion, side: Side, cell: usize) -> bool {
    Lines::of(pos, side).five(cell)
}

/// Whether a stone of `side` on the empty `cell` makes an open three.
#[inline]
pub fn makes_open_three(pos: &Morpion, side: Side, cell: usize) -> bool {
    classify(pos, side, cell, true).open_three
}

/// The empty cells of `pos` (on the board, neither side's).
#[inline]
pub fn empty_cells(pos: &Morpion) -> Cells {
    let (x, o) = (pos.marks(Side::First), pos.marks(Side::Second));
    let n = pos.cells();
    std::array::from_fn(|w| {
        let valid = match n.saturating_sub(64 * w) {
            0 => 0,
            m if m >= 64 => !0,
            m => (1u64 << m) - 1,
        };
        !(x[w] | o[w]) & valid
    })
}

/// The windows of `k` cells along the line of padded step `step` that hold exactly `stones`
/// of `own` and none of the opponent's (all on the board), as the set of their first cells;
/// `open` is the padded board's cells that are on the board and not the opponent's.
fn windows(own: &Padded, open: &Padded, k: usize, step: usize, stones: u32) -> Padded {
    // The window's count of own stones, bit-sliced in four planes (k ≤ 15).
    let mut planes = [[0u64; 4]; 4];
    let mut all_open = [!0u64; 4];
    for j in 0..k {
        let o = shift_right(own, j * step, 4);
        let f = shift_right(open, j * step, 4);
        for w in 0..4 {
            all_open[w] &= f[w];
            let mut carry = o[w];
            for plane in planes.iter_mut() {
                let sum = plane[w] ^ carry;
                carry &= plane[w];
                plane[w] = sum;
            }
        }
    }
    std::array::from_fn(|w| {
        let mut equal = all_open[w];
        for (b, plane) in planes.iter().enumerate() {
            equal &= if stones >> b & 1 == 1 {
                plane[w]
            } else {
                !plane[w]
            };
        }
        equal
    })
}

/// The empty cells of the windows of `k` cells, along every line, that hold exactly
/// `stones` of `side`'s and none of the opponent's: where a stone of `side` brings such a window
/// one closer to full. With `stones` = k − 1 they are the five moves of the rules where more
/// than `k` also wins, with k − 2 the four moves and the five moves; under an exact rule, a
/// superset (an overline wins nothing).
fn window_points(pos: &Morpion, side: Side, stones: u32) -> Cells {
    let b = SideBoard::of(pos, side);
    let mut points = [0u64; 4];
    for step in [1, STRIDE, STRIDE + 1, STRIDE - 1] {
        let starts = windows(&b.own, &b.open, b.k, step, stones);
        b.collect_empty(&starts, b.k, step, &mut points);
    }
    unpadded(&points, b.rows, b.cols)
}

/// One side's stones on the padded board, with the cells open to it (on the board, not the
/// opponent's) and the empty ones.
struct SideBoard {
    own: Padded,
    open: Padded,
    empty: Padded,
    rows: usize,
    cols: usize,
    k: usize,
}

impl SideBoard {
    fn of(pos: &Morpion, side: Side) -> SideBoard {
        let (rows, cols) = (pos.rows() as usize, pos.cols() as usize);
        let own = padded(&pos.marks(side), rows, cols);
        let board = padded(&[!0; 4], rows, cols);
        let theirs = padded(&pos.marks(side.opponent()), rows, cols);
        let open: Padded = std::array::from_fn(|w| board[w] & !theirs[w]);
        let empty: Padded = std::array::from_fn(|w| open[w] & !own[w]);
        SideBoard {
            own,
            open,
            empty,
            rows,
            cols,
            k: pos.k() as usize,
        }
    }

    /// Adds to `points` the empty cells of the windows of `len` cells along `step` that
    /// start at `starts`.
    fn collect_empty(&self, starts: &Padded, len: usize, step: usize, points: &mut Padded) {
        if *starts == [0; 4] {
            return;
        }
        for j in 0..len {
            let at = shift_right(&self.empty, j * step, 4);
            let hit: Padded = std::array::from_fn(|w| starts[w] & at[w]);
            let cells = shift_left(&hit, j * step);
            for w in 0..4 {
                points[w] |= cells[w];
            }
        }
    }
}

/// The empty cells where a stone of `side` makes a five. They are also the cells where the
/// opponent must defend against `side`'s fours. Found by windows on the padded board; under
/// an exact rule each is confirmed on its lines.
pub fn five_moves(pos: &Morpion, side: Side) -> Cells {
    let lines = Lines::of(pos, side);
    if lines.k == 1 {
        return empty_cells(pos);
    }
    let mut out = window_points(pos, side, lines.k - 1);
    if lines.exact {
        for_each(&out.clone(), |cell| {
            if !lines.five(cell) {
                out[cell >> 6] &= !(1 << (cell & 63));
            }
        });
    }
    out
}

/// The empty cells on the four lines through `cell` where a stone of `side` makes a five along
/// that line: after `side`'s stone on `cell`, the fives it may have made possible. Every five
/// move of `side` that `cell`'s stone created is one of them (a five through a cell runs along
/// one line); with the five moves `side` had before, they are all of its five moves. The
/// search in play (`search::tactics`) keeps that invariant, and pays four window scans a node
/// instead of [`five_moves`]' scan of the board.
pub fn five_moves_through(pos: &Morpion, side: Side, cell: usize) -> Cells {
    let lines = Lines::of(pos, side);
    let mut out = [0u64; 4];
    if !contains(&lines.own, cell) {
        return out;
    }
    for &line in &LINES {
        let (own, empty) = lines.window(cell, line);
        let mut points = empty;
        while points != 0 {
            let e = points.trailing_zeros();
            points &= points - 1;
            // The run through the empty point, within the window: a five along this line
            // through `cell` lies in it, with the cells that tell an overline beyond its ends.
            let (lo, hi) = run(own | 1 << e, e);
            if (lo..=hi).contains(&lines.k) && lines.wins(hi + 1 - lo) {
                insert(&mut out, lines.cell_at(cell, line, e));
            }
        }
    }
    out
}

/// The empty cells where a stone of `side` makes a four and no five (renju's black: not on a
/// forbidden point). Found by windows on the padded board; under an exact rule and for
/// renju's black each is confirmed on its lines.
pub fn four_moves(pos: &Morpion, side: Side) -> Cells {
    let lines = Lines::of(pos, side);
    if lines.k < 2 {
        return [0; 4];
    }
    let candidates = window_points(pos, side, lines.k - 2);
    let renju_black = bound(pos, side);
    if !lines.exact && !renju_black {
        // Freestyle: a window of k − 2 stones and two empty cells is a four for each empty
        // cell, unless that cell makes a five already.
        let fives = window_points(pos, side, lines.k - 1);
        return std::array::from_fn(|w| candidates[w] & !fives[w]);
    }
    let mut out = [0u64; 4];
    for_each(&candidates, |cell| {
        let mut four = false;
        for &line in &LINES {
            let (own, empty) = lines.window(cell, line);
            let (lo, hi) = run(own, lines.k);
            if lines.wins(hi + 1 - lo) {
                return;
            }
            four |= lines.completing(own, empty, lines.k) != 0;
        }
        if four && !(renju_black && forbidden_for_black(pos, &lines.own, cell)) {
            insert(&mut out, cell);
        }
    });
    out
}

/// The empty cells where a stone of `side` makes a straight four (renju's black: not on a
/// forbidden point): the points of its open threes. Candidates from windows of `k − 1` cells
/// holding `k − 2` stones between two empty cells, each confirmed by [`classify`].
pub fn straight_four_moves(pos: &Morpion, side: Side) -> Cells {
    let mut out = [0u64; 4];
    if pos.k() < 3 {
        return out;
    }
    let b = SideBoard::of(pos, side);
    let mut points = [0u64; 4];
    for step in [1, STRIDE, STRIDE + 1, STRIDE - 1] {
        // Windows of k − 1 with k − 2 stones, the cell before and the cell after empty.
        let inner = windows(&b.own, &b.open, b.k - 1, step, b.k as u32 - 2);
        let before = shift_left(&b.empty, step);
        let after = shift_right(&b.empty, (b.k - 1) * step, 4);
        let starts: Padded = std::array::from_fn(|w| inner[w] & before[w] & after[w]);
        b.collect_empty(&starts, b.k - 1, step, &mut points);
    }
    for_each(&unpadded(&points, b.rows, b.cols), |cell| {
        if classify(pos, side, cell, false).straight_four {
            insert(&mut out, cell);
        }
    });
    out
}

/// The empty cells where a stone of `side` makes an open three (renju's black: not on a
/// forbidden point), whether or not it also makes a four: the threat moves of a VCT beside the
/// fours. Candidates from windows of `k` cells holding `k − 3` of the side's stones and none
/// of the opponent's (the straight four such a three threatens lies in one, with one of its
/// open ends), each confirmed by [`classify`].
pub fn three_moves(pos: &Morpion, side: Side) -> Cells {
    let mut out = [0u64; 4];
    if pos.k() < 3 {
        return out;
    }
    for_each(&window_points(pos, side, pos.k() as u32 - 3), |cell| {
        if classify(pos, side, cell, true).open_three {
            insert(&mut out, cell);
        }
    });
    out
}

/// Against the opponent's open threes: `None` when the opponent of the side to move has no
/// straight four to make; otherwise the empty cells where the side to move's stone leaves it
/// none (renju's black: not on a forbidden point). Every other move that makes no four of its
/// own lets the straight four come, and loses. The cells tried are those within `k` of a
/// straight four's point on its four lines: no stone further away touches that four.
pub fn three_defences(pos: &Morpion) -> Option<Cells> {
    let side = pos.side_to_move();
    let them = side.opponent();
    let points = straight_four_moves(pos, them);
    if points == [0; 4] {
        return None;
    }
    let (rows, cols, k) = (pos.rows() as i32, pos.cols() as i32, pos.k() as i32);
    let mut candidates = [0u64; 4];
    for_each(&points, |q| {
        let (r0, c0) = (q as i32 / cols, q as i32 % cols);
        for (dr, dc) in LINES {
            for i in -k..=k {
                let (r, c) = (r0 + dr * i, c0 + dc * i);
                if r >= 0 && c >= 0 && r < rows && c < cols {
                    insert(&mut candidates, (r * cols + c) as usize);
                }
            }
        }
    });
    let empty = empty_cells(pos);
    let bound_here = bound(pos, side);
    // A stone of the side to move only takes straight-four points away, so only the points
    // there were need judging again — except for renju's black, whose points a white stone
    // can add (by undoing a double three that forbade one): those are found anew.
    let anew = bound(pos, them);
    let black = pos.marks(Side::First);
    let mut out = [0u64; 4];
    for_each(&std::array::from_fn(|w| candidates[w] & empty[w]), |c| {
        if bound_here && forbidden_for_black(pos, &black, c) {
            return;
        }
        let next = pos.play(Cell(c as u8));
        let none_left = if anew {
            straight_four_moves(&next, them) == [0; 4]
        } else {
            let mut left = false;
            for_each(&points, |q| {
                left = left || (q != c && classify(&next, them, q, false).straight_four);
            });
            !left
        };
        if none_left {
            insert(&mut out, c);
        }
    });
    Some(out)
}

/// The cells where `side` must play against the opponent's fours: the opponent's five moves
/// (two or more: they cannot all be stopped).
#[inline]
pub fn defences(pos: &Morpion, side: Side) -> Cells {
    five_moves(pos, side.opponent())
}

#[cfg(test)]
pub(crate) mod naive;

#[cfg(test)]
pub(crate) mod tests;

//! Renju's forbidden points: where black (X, the first player) may not play.
//!
//! The definitions are the Renju International Federation's, for black:
//! - a **five** is an unbroken row of exactly five stones; it wins, even when the move also
//!   makes an overline, a double four or a double three in other lines;
//! - an **overline** is an unbroken row of six or more: forbidden;
//! - a **four** is a row of four stones to which one stone adds a five; two fours made at once
//!   (a **double four**) are forbidden, in two lines or in one (`X.XXX.X`, the middle three
//!   with either end making two different fours); a **straight four** (`.XXXX.`, two ways to
//!   five with the same four stones) is one four;
//! - a **three** is a row of three stones to which one stone adds a straight four without
//!   making a five at the same time, on a point that is not itself forbidden (judged with the
//!   new stone on the board, recursively); two threes made at once (a **double three**) are
//!   forbidden. A line where the move makes a four counts as that four, not as a three.
//!
//! Only fours and threes through the new stone count (they "meet in this intersection"). A
//! point can only be forbidden with at least two black stones within four cells along two
//! lines, or four along one: [`forbidden_points`] finds those candidates for the whole board
//! at once on bitboards and judges only them.

use super::padded::{Padded, STRIDE, padded, rows_below, shift_left, shift_right};

/// A set of cells, row-major (`row * cols + col`), as [`super::Morpion`] keeps them.
type Cells = [u64; 4];

#[inline]
fn has(cells: &Cells, i: usize) -> bool {
    cells[i >> 6] >> (i & 63) & 1 == 1
}

/// The four lines through a point as (row step, column step).
const LINES: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// The judged point's bit in a line window (offsets −5..=5 are bits 0..=10).
const CENTRE: u32 = 5;

/// The stones on the board.
#[derive(Clone, Copy)]
struct Board<'a> {
    black: Cells,
    white: &'a Cells,
    rows: usize,
    cols: usize,
}

impl Board<'_> {
    /// The line through `cell` along `(dr, dc)`, offsets −5..=5 as bits 0..=10: the black
    /// stones (the point itself counted black) and the empty points.
    #[inline]
    fn window(&self, cell: usize, (dr, dc): (i32, i32)) -> (u16, u16) {
        let (r0, c0) = ((cell / self.cols) as i32, (cell % self.cols) as i32);
        let (mut own, mut empty) = (1u16 << CENTRE, 0u16);
        for i in 0..11i32 {
            if i == CENTRE as i32 {
                continue;
            }
            let (r, c) = (r0 + dr * (i - 5), c0 + dc * (i - 5));
            if r < 0 || c < 0 || r >= self.rows as i32 || c >= self.cols as i32 {
                continue;
            }
            let at = (r as usize) * self.cols + c as usize;
            if has(&self.black, at) {
                own |= 1 << i;
            } else if !has(self.white, at) {
                empty |= 1 << i;
            }
        }
        (own, empty)
    }

    /// The cell `offset` steps from `cell` along `(dr, dc)` (on the board: the window only
    /// lists points on it).
    #[inline]
    fn step(&self, cell: usize, (dr, dc): (i32, i32), offset: i32) -> usize {
        let (r, c) = (
            (cell / self.cols) as i32 + dr * offset,
            (cell % self.cols) as i32 + dc * offset,
        );
        r as usize * self.cols + c as usize
    }
}

/// The first and last bit of the run of set bits of `own` through bit `i` (which is set).
#[inline]
fn run(own: u16, i: u32) -> (u32, u32) {
    let up = (own >> i).trailing_ones();
    let down = ((own as u32) << (31 - i)).leading_ones();
    (i + 1 - down, i + up - 1)
}

/// Whether a black stone on the empty bit `e` makes an unbroken row of exactly five through it.
#[inline]
fn makes_five(own: u16, e: u32) -> bool {
    let (lo, hi) = run(own | 1 << e, e);
    hi + 1 - lo == 5
}

/// What a black stone on the window's centre makes in that line.
#[derive(Clone, Copy, Default)]
struct Shape {
    five: bool,
    overline: bool,
    /// Distinct fours through the centre: 0, 1, or 2 for two or more.
    fours: u32,
    /// The points (window bits) where one more stone makes a straight four through the centre
    /// without a five in this line: a three, if one of them is not forbidden. Only looked for
    /// when the line has no four.
    three_points: u16,
}

/// The shape a black stone on the centre makes in a line window.
fn shape(own: u16, empty: u16) -> Shape {
    let mut s = Shape::default();
    let (lo, hi) = run(own, CENTRE);
    match hi + 1 - lo {
        5 => s.five = true,
        n if n >= 6 => s.overline = true,
        _ => {}
    }
    if s.five || s.overline {
        return s;
    }
    // Fours: each point completing a five through the centre; the four is the five without
    // that point, and a straight four's two points give the same four.
    let mut first_four = 0u16;
    let mut points = empty & 0b011_1111_1110;
    while points != 0 {
        let e = points.trailing_zeros();
        points &= points - 1;
        let (lo, hi) = run(own | 1 << e, e);
        if hi + 1 - lo == 5 && lo <= CENTRE && CENTRE <= hi {
            let four = (((1u32 << (hi + 1)) - (1u32 << lo)) as u16) & !(1 << e);
            if s.fours == 0 {
                first_four = four;
                s.fours = 1;
            } else if four != first_four {
                s.fours = 2;
            }
        }
    }
    if s.fours > 0 {
        return s;
    }
    // Threes: a point making an unbroken four through the centre whose two ends each make five.
    let mut points = empty & 0b001_1111_1100;
    while points != 0 {
        let q = points.trailing_zeros();
        points &= points - 1;
        let with = own | 1 << q;
        let (lo, hi) = run(with, q);
        if hi + 1 - lo != 4 || lo > CENTRE || hi < CENTRE {
            continue;
        }
        let (a, b) = (lo - 1, hi + 1);
        if empty >> a & 1 == 1 && empty >> b & 1 == 1 && makes_five(with, a) && makes_five(with, b)
        {
            s.three_points |= 1 << q;
        }
    }
    s
}

/// What a black stone on an empty point does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// It makes a five: black wins.
    Five,
    /// It makes an overline, a double four or a double three, and no five.
    Forbidden,
    /// Anything else.
    Allowed,
}

/// Judges a black stone on the empty `cell`.
fn judge(board: &Board<'_>, cell: usize) -> Verdict {
    let mut shapes = [Shape::default(); 4];
    for (s, &line) in shapes.iter_mut().zip(&LINES) {
        let (own, empty) = board.window(cell, line);
        *s = shape(own, empty);
    }
    if shapes.iter().any(|s| s.five) {
        return Verdict::Five;
    }
    if shapes.iter().any(|s| s.overline) || shapes.iter().map(|s| s.fours).sum::<u32>() >= 2 {
        return Verdict::Forbidden;
    }
    let mut left = shapes.iter().filter(|s| s.three_points != 0).count();
    if left < 2 {
        return Verdict::Allowed;
    }
    // A three is real when one of its straight-four points is itself allowed, judged with
    // this stone on the board.
    let mut placed = *board;
    placed.black[cell >> 6] |= 1 << (cell & 63);
    let mut threes = 0;
    for (s, &line) in shapes.iter().zip(&LINES) {
        if s.three_points == 0 {
            continue;
        }
        let mut points = s.three_points;
        while points != 0 {
            let q = points.trailing_zeros();
            points &= points - 1;
            let at = board.step(cell, line, q as i32 - CENTRE as i32);
            if judge(&placed, at) == Verdict::Allowed {
                threes += 1;
                break;
            }
        }
        left -= 1;
        if threes >= 2 {
            return Verdict::Forbidden;
        }
        if threes + left < 2 {
            break;
        }
    }
    Verdict::Allowed
}

/// The padded cells of a `rows` × `cols` board.
fn on_board(rows: usize, cols: usize) -> Padded {
    let row = ((1u64 << cols) - 1) * 0x0001_0001_0001_0001;
    [0, 1, 2, 3].map(|w| row & rows_below(rows, w))
}

/// The empty points that may be forbidden: at least two black stones within four cells along
/// two lines, or four along one (see the module's note), on the padded board.
fn candidates(black: &Cells, white: &Cells, rows: usize, cols: usize) -> Padded {
    let b = padded(black, rows, cols);
    let taken = padded(&[0, 1, 2, 3].map(|w| black[w] | white[w]), rows, cols);
    let board = on_board(rows, cols);
    // Columns from which a shift by `k` columns stays in the row: c + k <= 15 and c >= k.
    let right = |k: usize| ((1u64 << (STRIDE - k)) - 1) * 0x0001_0001_0001_0001;
    let left = |k: usize| (0xFFFFu64 & !((1u64 << k) - 1)) * 0x0001_0001_0001_0001;
    let (mut two_lines, mut some_line, mut four) = ([0u64; 4], [0u64; 4], [0u64; 4]);
    for (step, dc) in [
        (1usize, 1i32),
        (STRIDE, 0),
        (STRIDE + 1, 1),
        (STRIDE - 1, -1),
    ] {
        // Saturating counts of black stones within four cells: at least 1, 2, 3, 4.
        let (mut c1, mut c2, mut c3, mut c4) = ([0u64; 4], [0u64; 4], [0u64; 4], [0u64; 4]);
        for k in 1..=4 {
            let (ahead, behind) = match dc {
                1 => (right(k), left(k)),
                -1 => (left(k), right(k)),
                _ => (!0, !0),
            };
            for (near, mask) in [
                (shift_right(&b, k * step, 4), ahead),
                (shift_left(&b, k * step), behind),
            ] {
                for w in 0..4 {
                    let x = near[w] & mask;
                    c4[w] |= c3[w] & x;
                    c3[w] |= c2[w] & x;
                    c2[w] |= c1[w] & x;
                    c1[w] |= x;
                }
            }
        }
        for w in 0..4 {
            two_lines[w] |= some_line[w] & c2[w];
            some_line[w] |= c2[w];
            four[w] |= c4[w];
        }
    }
    [0, 1, 2, 3].map(|w| (two_lines[w] | four[w]) & board[w] & !taken[w])
}

/// Calls `f` with the row-major cell of every candidate point until it returns `true`;
/// returns whether one did.
fn any_candidate(
    black: &Cells,
    white: &Cells,
    rows: usize,
    cols: usize,
    mut f: impl FnMut(usize) -> bool,
) -> bool {
    for (w, &word) in candidates(black, white, rows, cols).iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let x = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if f(x / STRIDE * cols + x % STRIDE) {
                return true;
            }
        }
    }
    false
}

/// Black's forbidden points on a `rows` × `cols` board with `black` and `white` stones, as a
/// row-major set of cells.
pub fn forbidden_points(black: &Cells, white: &Cells, rows: usize, cols: usize) -> Cells {
    let board = Board {
        black: *black,
        white,
        rows,
        cols,
    };
    let mut out = [0u64; 4];
    any_candidate(black, white, rows, cols, |cell| {
        if judge(&board, cell) == Verdict::Forbidden {
            out[cell >> 6] |= 1 << (cell & 63);
        }
        false
    });
    out
}

/// Whether black may play somewhere: an empty point that is not forbidden.
pub fn has_allowed_point(black: &Cells, white: &Cells, rows: usize, cols: usize) -> bool {
    let cells = rows * cols;
    let empties: u32 = (0..4)
        .map(|w| {
            let valid = match cells.saturating_sub(64 * w) {
                0 => 0,
                n if n >= 64 => !0,
                n => (1u64 << n) - 1,
            };
            (!(black[w] | white[w]) & valid).count_ones()
        })
        .sum();
    let candidates: u32 = candidates(black, white, rows, cols)
        .iter()
        .map(|w| w.count_ones())
        .sum();
    if empties > candidates {
        return true;
    }
    let board = Board {
        black: *black,
        white,
        rows,
        cols,
    };
    any_candidate(black, white, rows, cols, |cell| {
        judge(&board, cell) != Verdict::Forbidden
    })
}

/// Whether black may not play on the empty `cell`.
pub fn is_forbidden(black: &Cells, white: &Cells, rows: usize, cols: usize, cell: usize) -> bool {
    let board = Board {
        black: *black,
        white,
        rows,
        cols,
    };
    judge(&board, cell) == Verdict::Forbidden
}

/// Whether `black` holds an unbroken row of six or more.
pub fn has_overline(black: &Cells, rows: usize, cols: usize) -> bool {
    let (rows, cols) = (rows as i32, cols as i32);
    let at = |r: i32, c: i32| {
        r >= 0 && c >= 0 && r < rows && c < cols && has(black, (r * cols + c) as usize)
    };
    (0..rows).any(|r| {
        (0..cols).any(|c| {
            LINES
                .iter()
                .any(|&(dr, dc)| (0..6).all(|i| at(r + dr * i, c + dc * i)))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window from text: `X` black, `.` empty, anything else blocked; the centre is the
    /// sixth character and must be `X`.
    fn line(text: &str) -> (u16, u16) {
        assert_eq!(text.len(), 11);
        let (mut own, mut empty) = (0, 0);
        for (i, ch) in text.chars().enumerate() {
            match ch {
                'X' => own |= 1 << i,
                '.' => empty |= 1 << i,
                _ => {}
            }
        }
        assert!(own >> CENTRE & 1 == 1, "{text}");
        (own, empty)
    }

    fn of(text: &str) -> Shape {
        let (own, empty) = line(text);
        shape(own, empty)
    }

    #[test]
    fn runs_are_found_through_a_bit() {
        assert_eq!(run(0b0111_1000, 5), (3, 6));
        assert_eq!(run(0b0010_0000, 5), (5, 5));
        assert_eq!(run(0b111_1111_1111, 0), (0, 10));
    }

    #[test]
    fn a_line_makes_five_overline_four_or_three() {
        assert!(of("O..XXXXX..O").five);
        assert!(of("...XXXXXX..").overline);
        assert!(!of("..XXXXX.X..").overline && of("..XXXXX.X..").five);
        // A four closed at one end, a straight four (one four), a broken four.
        assert_eq!(of("...OXXXX...").fours, 1);
        assert_eq!(of("....XXXX...").fours, 1);
        assert_eq!(of("..XX.XX....").fours, 1);
        // Two fours in one line: either gap makes a different five.
        assert_eq!(of("...X.XXX.X.").fours, 2);
        assert_eq!(of("..XX.XX.XX.").fours, 2);
        // A gap whose five would be six is no four.
        assert_eq!(of("..XX.XXX...").fours, 0);
        // Threes: open, broken; closed at one end, or only to an overline: none.
        assert_ne!(of("....XXX....").three_points, 0);
        assert_ne!(of("...X.XX....").three_points, 0);
        assert_eq!(of("...OXXX....").three_points, 0);
        assert_eq!(of(".X..XXX..X.").three_points, 0);
        assert_ne!(of(".X..XXX...O").three_points, 0);
    }
}

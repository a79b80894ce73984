//! The padded 15×15 board of Morpion's line scans: 16 bits per row, so that a line's next
//! cell is a fixed shift away. Renju's forbidden points ([`super::renju`]) and the Morpion
//! evaluation's line counts (`eval::morpion`) both scan it; it sits below
//! [`super::morpion`], which uses renju, so that no two modules of the games layer use each
//! other.

/// Bits per row of the padded board: 15 columns and a zero bit.
pub(crate) const STRIDE: usize = 16;

/// A board padded to [`STRIDE`] bits per row: row `r`, column `c` is bit `16 r + c` of the
/// 256-bit set (4 rows per word). A line's next cell is 1, 16, 17 or 15 bits further, and the
/// zero column keeps rows apart for shifts of one column.
pub(crate) type Padded = [u64; 4];

/// The cells of `cells` (row-major, `cols` per row) on the padded board.
#[inline]
pub(crate) fn padded(cells: &[u64; 4], rows: usize, cols: usize) -> Padded {
    let mut out = [0u64; 4];
    let row_mask = (1u64 << cols) - 1;
    for r in 0..rows {
        let off = r * cols;
        let (w, b) = (off >> 6, off & 63);
        let mut v = cells[w] >> b;
        if b + cols > 64 && w + 1 < 4 {
            v |= cells[w + 1] << (64 - b);
        }
        out[r / 4] |= (v & row_mask) << (STRIDE * (r % 4));
    }
    out
}

/// The cells of the padded board `p` as a row-major set of `cols` per row: [`padded`]'s
/// inverse.
#[inline]
pub(crate) fn unpadded(p: &Padded, rows: usize, cols: usize) -> [u64; 4] {
    let mut out = [0u64; 4];
    let row_mask = (1u64 << cols) - 1;
    for r in 0..rows {
        let v = (p[r / 4] >> (STRIDE * (r % 4))) & row_mask;
        if v == 0 {
            continue;
        }
        let off = r * cols;
        let (w, b) = (off >> 6, off & 63);
        out[w] |= v << b;
        if b + cols > 64 && w + 1 < 4 {
            out[w + 1] |= v >> (64 - b);
        }
    }
    out
}

/// The padded board shifted right by `n` bits (`n` < 256): bit `x` of the result is bit
/// `x + n` of `b`. Only the first `words` words are computed.
#[inline]
pub(crate) fn shift_right(b: &Padded, n: usize, words: usize) -> Padded {
    let (q, s) = (n / 64, n % 64);
    let at = |i: usize| if i < 4 { b[i] } else { 0 };
    let mut out = [0u64; 4];
    for (w, word) in out.iter_mut().enumerate().take(words) {
        *word = if s == 0 {
            at(w + q)
        } else {
            (at(w + q) >> s) | (at(w + q + 1) << (64 - s))
        };
    }
    out
}

/// The rows `0..n` of the padded board, all 16 bits of each, in word `w`.
#[inline]
pub(crate) fn rows_below(n: usize, w: usize) -> u64 {
    match n.saturating_sub(4 * w) {
        0 => 0,
        m if m >= 4 => !0,
        m => (1u64 << (STRIDE * m)) - 1,
    }
}

/// The padded board shifted left by `n` bits (`n` < 256): bit `x` of the result is bit
/// `x - n` of `b` (0 below bit `n`).
#[inline]
pub(crate) fn shift_left(b: &Padded, n: usize) -> Padded {
    let (q, s) = (n / 64, n % 64);
    let at = |i: usize| if i < 4 { b[i] } else { 0 };
    let mut out = [0u64; 4];
    for (w, word) in out.iter_mut().enumerate().skip(q) {
        *word = if s == 0 {
            at(w - q)
        } else {
            (at(w - q) << s) | if w > q { at(w - q - 1) >> (64 - s) } else { 0 }
        };
    }
    out
}

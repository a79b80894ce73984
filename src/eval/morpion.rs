//! Morpion (m,n,k game) features. A *window* is a line of `k` cells (horizontal, vertical or
//! diagonal) that fits on the board; "own" is the side to move, "opp" the other player.
//!
//! | # | name | value (side to move's view) |
//! |---|---|---|
//! | 0 | `centre` | own marks minus the opponent's in the central region (cells whose Chebyshev distance to the centre, in half cells, is at most max(1, min(rows, cols) / 3): the centre cell of 3×3, the central 5×5 of 15×15) |
//! | 1 … k−1 | `own_windows_J` | windows holding exactly J own marks and no opponent mark |
//! | k … 2k−2 | `opp_windows_J` | windows holding exactly J opponent marks and no own mark |
//!
//! for J = 1 … k−1 (a window with k marks is a finished game). So `morpion` (3×3, k = 3) has
//! `centre`, `own_windows_1`, `own_windows_2`, `opp_windows_1`, `opp_windows_2`.
//!
//! Variants with k ≥ 4 where a line of k + 1 cells fits (gomoku and renju: k = 5 on 15×15) also
//! have four *threat* features, counted on the windows of k + 1 cells whose two end cells are
//! empty (an *open* window; for k = 5, six cells `.????.`):
//!
//! | # | name | value |
//! |---|---|---|
//! | 2k−1 | `own_open_{k−1}` | open windows whose k − 1 inner cells are all own (an open four, `.XXXX.`) |
//! | 2k | `own_open_{k−2}` | open windows whose inner cells hold k − 2 own marks and one empty cell (an open three, straight or split: `.XXX..`, `.XX.X.`) |
//! | 2k+1, 2k+2 | `opp_open_{k−1}`, `opp_open_{k−2}` | the same for the opponent |
//!
//! The same variants have ten *combination* features, five a side (`own_…` for the side to
//! move, `opp_…` for the other), each the number of empty cells where that side's mark would
//! make, for k = 5:
//!
//! | name | the mark makes |
//! |---|---|
//! | `4_cells` | a four: a window of k cells with k − 1 of its marks and no other |
//! | `open_3_cells` | an open three: an open window whose inner cells hold k − 2 of its marks and no other |
//! | `4x4_cells` | fours in two directions |
//! | `4x3_cells` | a four in one direction and an open three in another |
//! | `3x3_cells` | open threes in two directions |
//!
//! (the numbers are k − 1 and k − 2 for other k). These are the shapes that win at once or in
//! two moves, the knowledge the window counts lack: two windows of three marks are a double
//! three only when they cross on an empty cell. Under renju black's doubles are forbidden
//! points: for black `4x4_cells` and `3x3_cells` are 0 and `4x3_cells` leaves out a cell that
//! is also a double. As the window counts, they judge by windows, not by the rules' exact
//! shapes (an overline, a four that is also a five, and a three that cannot become a straight
//! four are not told apart).
//!
//! Their default weights are 0, so the default evaluation of every variant is the window
//! counts' alone; `weights/renju.toml` gives them weights fitted by `joute fit`.
//!
//! `centre` is antisymmetric (the opponent's view of the same board negates it); `own_windows_J`
//! and `opp_windows_J` swap.
//!
//! Game progress ([`Features::progress`], for tapered weights): the marks on the board, of
//! T = rows·cols.
//!
//! The board is copied to a padded layout of 16 bits per row, where a window is the start cell
//! and the cells 1, 16, 17 or 15 bits further per step; the windows of a direction are counted
//! for all starting cells at once, with bit-sliced counters (four bit planes).

use crate::games::padded::{Padded, STRIDE, padded, rows_below, shift_left, shift_right};
use crate::games::{Game, Morpion, Rule, Side};

use super::features::{Feature, Features, Weights};

/// Adds the one-bit numbers of `x` to the four-bit counters `planes`.
#[inline]
fn add(planes: &mut [u64; 4], x: u64) {
    let mut carry = x;
    for plane in planes.iter_mut() {
        let t = *plane & carry;
        *plane ^= carry;
        carry = t;
    }
}

/// The counters of `planes` equal to `j`.
#[inline]
fn equal(planes: &[u64; 4], j: usize) -> u64 {
    let mut m = !0;
    for (b, plane) in planes.iter().enumerate() {
        m &= if j >> b & 1 == 1 { *plane } else { !*plane };
    }
    m
}

/// The counters of `planes` that are not 0.
#[inline]
fn any(planes: &[u64; 4]) -> u64 {
    planes[0] | planes[1] | planes[2] | planes[3]
}

/// The cells holding neither side's mark (the padding included: windows never reach it).
#[inline]
fn empty_cells(own: &Padded, opp: &Padded) -> Padded {
    std::array::from_fn(|w| !(own[w] | opp[w]))
}

/// The own and the opponent's marks on the cells `cells` (offsets, in steps of `step`, from a
/// window's start) of every window at once: one four-bit counter a starting cell, bit-sliced
/// into four planes, for the first `words` words of the padded board.
#[inline]
fn sliced_counts(
    own: &Padded,
    opp: &Padded,
    step: usize,
    cells: std::ops::Range<usize>,
    words: usize,
) -> ([[u64; 4]; 4], [[u64; 4]; 4]) {
    let (mut pa, mut pb) = ([[0u64; 4]; 4], [[0u64; 4]; 4]);
    for i in cells {
        let a = shift_right(own, i * step, words);
        let b = shift_right(opp, i * step, words);
        for w in 0..words {
            add(&mut pa[w], a[w]);
            add(&mut pb[w], b[w]);
        }
    }
    (pa, pb)
}

/// The half-cell distance under which a cell counts as central.
fn centre_radius(rows: usize, cols: usize) -> usize {
    (rows.min(cols) / 3).max(1)
}

/// The central region on the padded board.
#[inline]
fn centre_mask(rows: usize, cols: usize) -> Padded {
    let t = centre_radius(rows, cols) as i32;
    // |2c - (cols - 1)| <= t  <=>  c in [lo, hi].
    let lo = |n: usize| ((n as i32 - 1 - t + 1) / 2).max(0) as usize;
    let hi = |n: usize| ((n as i32 - 1 + t) / 2).min(n as i32 - 1) as usize;
    let (c0, c1) = (lo(cols), hi(cols));
    let (r0, r1) = (lo(rows), hi(rows));
    let col_mask = ((1u64 << (c1 + 1)) - 1) & !((1u64 << c0) - 1);
    let rep = col_mask * 0x0001_0001_0001_0001;
    let mut out = [0u64; 4];
    for (w, word) in out.iter_mut().enumerate() {
        *word = rep & rows_below(r1 + 1, w) & !rows_below(r0, w);
    }
    out
}

/// The four directions as the bit step between the cells of a window on the padded board,
/// with the starting cells of their windows: the number of starting rows and the mask of
/// starting columns.
fn directions(rows: usize, cols: usize, k: usize) -> [(usize, usize, u64); 4] {
    let all = (1u64 << cols) - 1;
    let fits_c = cols >= k;
    let start_cols_right = if fits_c {
        (1u64 << (cols - k + 1)) - 1
    } else {
        0
    };
    let start_cols_left = if fits_c {
        all & !((1u64 << (k - 1)) - 1)
    } else {
        0
    };
    let start_rows_down = if rows >= k { rows - k + 1 } else { 0 };
    [
        (1, rows, start_cols_right),
        (STRIDE, start_rows_down, all),
        (STRIDE + 1, start_rows_down, start_cols_right),
        (STRIDE - 1, start_rows_down, start_cols_left),
    ]
}

/// The number of windows of `k` cells on a `rows` × `cols` board.
pub fn window_count(rows: usize, cols: usize, k: usize) -> usize {
    directions(rows, cols, k)
        .iter()
        .map(|&(_, n, mask)| n * mask.count_ones() as usize)
        .sum()
}

/// The feature values with `own` to move against `opp` (padded boards, see [`padded`]), in
/// the order of the table above; `out` holds `2k - 1` values.
///
/// Each direction is counted for every starting cell at once: the board shifted by each step
/// of the window is added into four bit planes of counters, one counter per starting cell.
fn morpion_values(own: &Padded, opp: &Padded, rows: usize, cols: usize, k: usize, out: &mut [i32]) {
    let centre = centre_mask(rows, cols);
    let mut c = 0;
    for w in 0..4 {
        c += (own[w] & centre[w]).count_ones() as i32 - (opp[w] & centre[w]).count_ones() as i32;
    }
    out[0] = c;
    for v in out[1..2 * k - 1].iter_mut() {
        *v = 0;
    }
    if k < 2 {
        return;
    }
    for (step, start_rows, start_cols) in directions(rows, cols, k) {
        if start_rows == 0 || start_cols == 0 {
            continue;
        }
        let words = start_rows.div_ceil(4);
        let rep = start_cols * 0x0001_0001_0001_0001;
        let (pa, pb) = sliced_counts(own, opp, step, 0..k, words);
        for w in 0..words {
            let valid = rep & rows_below(start_rows, w);
            let (pa, pb) = (&pa[w], &pb[w]);
            let (a_any, b_any) = (any(pa), any(pb));
            let free_a = valid & !b_any;
            let free_b = valid & !a_any;
            for j in 1..k {
                out[j] += (equal(pa, j) & free_a).count_ones() as i32;
                out[k - 1 + j] += (equal(pb, j) & free_b).count_ones() as i32;
            }
        }
    }
}

/// Whether the variant has the threat features: k ≥ 4 and a line of k + 1 cells fits.
pub fn has_threats(rows: usize, cols: usize, k: usize) -> bool {
    k >= 4 && rows.max(cols) > k
}

/// The number of features of a variant: the window counts, and the threat and combination
/// features where [`has_threats`].
pub fn feature_count(rows: usize, cols: usize, k: usize) -> usize {
    2 * k - 1
        + if has_threats(rows, cols, k) {
            4 + COMBINATIONS
        } else {
            0
        }
}

/// The threat features of the module's table (`own_open_{k−1}`, `own_open_{k−2}`,
/// `opp_open_{k−1}`, `opp_open_{k−2}`) into `out` (4 values), with the windows' machinery:
/// the k − 1 inner cells of each window of k + 1 cells added into bit-sliced counters, its two
/// ends tested empty.
fn threat_values(own: &Padded, opp: &Padded, rows: usize, cols: usize, k: usize, out: &mut [i32]) {
    out[..4].fill(0);
    let empty = empty_cells(own, opp);
    for (step, start_rows, start_cols) in directions(rows, cols, k + 1) {
        if start_rows == 0 || start_cols == 0 {
            continue;
        }
        let words = start_rows.div_ceil(4);
        let rep = start_cols * 0x0001_0001_0001_0001;
        let (pa, pb) = sliced_counts(own, opp, step, 1..k, words);
        let last = shift_right(&empty, k * step, words);
        for w in 0..words {
            let open = rep & rows_below(start_rows, w) & empty[w] & last[w];
            let (pa, pb) = (&pa[w], &pb[w]);
            let (a_any, b_any) = (any(pa), any(pb));
            out[0] += (equal(pa, k - 1) & open).count_ones() as i32;
            out[1] += (equal(pa, k - 2) & !b_any & open).count_ones() as i32;
            out[2] += (equal(pb, k - 1) & open).count_ones() as i32;
            out[3] += (equal(pb, k - 2) & !a_any & open).count_ones() as i32;
        }
    }
}

/// The number of combination features (where [`has_threats`]): five a side.
const COMBINATIONS: usize = 10;

/// For each side, the empty cells where it makes a *four* (a window of k cells with k − 1 of
/// its marks and none of the other's) and those where it makes an *open three* (a window of
/// k + 1 cells, both ends empty, whose k − 1 inner cells hold k − 2 of its marks and none of the
/// other's), one pair of cell sets per direction: `own`'s, then `opp`'s.
fn threat_cells(
    own: &Padded,
    opp: &Padded,
    empty: &Padded,
    (rows, cols, k): (usize, usize, usize),
) -> [[(Padded, Padded); 4]; 2] {
    let mut out = [[([0u64; 4], [0u64; 4]); 4]; 2];
    let fours = directions(rows, cols, k);
    let threes = directions(rows, cols, k + 1);
    for d in 0..4 {
        let (step, start_rows, start_cols) = fours[d];
        if start_rows > 0 && start_cols != 0 {
            let words = start_rows.div_ceil(4);
            let rep = start_cols * 0x0001_0001_0001_0001;
            let (pa, pb) = sliced_counts(own, opp, step, 0..k, words);
            let mut starts = [[0u64; 4]; 2];
            for w in 0..words {
                let valid = rep & rows_below(start_rows, w);
                let (a_any, b_any) = (any(&pa[w]), any(&pb[w]));
                starts[0][w] = valid & equal(&pa[w], k - 2) & !b_any;
                starts[1][w] = valid & equal(&pb[w], k - 2) & !a_any;
            }
            out[0][d].0 = spread(&starts[0], step, 0..k, empty);
            out[1][d].0 = spread(&starts[1], step, 0..k, empty);
        }
        let (step, start_rows, start_cols) = threes[d];
        if start_rows > 0 && start_cols != 0 {
            let words = start_rows.div_ceil(4);
            let rep = start_cols * 0x0001_0001_0001_0001;
            let (pa, pb) = sliced_counts(own, opp, step, 1..k, words);
            let last = shift_right(empty, k * step, words);
            let mut starts = [[0u64; 4]; 2];
            for w in 0..words {
                let open = rep & rows_below(start_rows, w) & empty[w] & last[w];
                let (a_any, b_any) = (any(&pa[w]), any(&pb[w]));
                starts[0][w] = open & equal(&pa[w], k - 3) & !b_any;
                starts[1][w] = open & equal(&pb[w], k - 3) & !a_any;
            }
            out[0][d].1 = spread(&starts[0], step, 1..k, empty);
            out[1][d].1 = spread(&starts[1], step, 1..k, empty);
        }
    }
    out
}

/// The empty cells at offsets `cells` (in steps of `step`) of the windows starting at `starts`.
#[inline]
fn spread(starts: &Padded, step: usize, cells: std::ops::Range<usize>, empty: &Padded) -> Padded {
    let mut out = [0u64; 4];
    for i in cells {
        let s = shift_left(starts, i * step);
        for w in 0..4 {
            out[w] |= s[w] & empty[w];
        }
    }
    out
}

/// One side's five combination features into `out`: the empty cells where it makes a four,
/// an open three, two fours (in two directions), a four and an open three (in two), two open
/// threes (in two). Where `doubles_forbidden` (renju's black) the last two kinds and a four-three
/// that is also one of them are forbidden points and count nothing.
fn side_combinations(cells: &[(Padded, Padded); 4], doubles_forbidden: bool, out: &mut [i32]) {
    let count = |b: &Padded| b.iter().map(|w| w.count_ones() as i32).sum::<i32>();
    let (mut four, mut three) = ([0u64; 4], [0u64; 4]);
    let (mut four2, mut three2, mut four_three) = ([0u64; 4], [0u64; 4], [0u64; 4]);
    for (f, t) in cells {
        for w in 0..4 {
            four2[w] |= four[w] & f[w];
            three2[w] |= three[w] & t[w];
            // A four here and a three in an earlier direction, or the other way round.
            four_three[w] |= (f[w] & three[w]) | (t[w] & four[w]);
            four[w] |= f[w];
            three[w] |= t[w];
        }
    }
    if doubles_forbidden {
        for w in 0..4 {
            four_three[w] &= !(four2[w] | three2[w]);
        }
        four2 = [0; 4];
        three2 = [0; 4];
    }
    out[0] = count(&four);
    out[1] = count(&three);
    out[2] = count(&four2);
    out[3] = count(&four_three);
    out[4] = count(&three2);
}

/// The combination features of the module's table into `out` ([`COMBINATIONS`] values): the
/// side to move's five, then the opponent's. `renju_black_to_move` is `None` under the other
/// rules; under renju, whether black (whose doubles are forbidden) is the side to move.
fn combination_values(
    own: &Padded,
    opp: &Padded,
    shape: (usize, usize, usize),
    renju_black_to_move: Option<bool>,
    out: &mut [i32],
) {
    let empty = empty_cells(own, opp);
    let [mine, theirs] = threat_cells(own, opp, &empty, shape);
    side_combinations(&mine, renju_black_to_move == Some(true), &mut out[..5]);
    side_combinations(&theirs, renju_black_to_move == Some(false), &mut out[5..10]);
}

/// The combination features' names and meanings, in the order of [`combination_values`].
fn combination_features(k: usize) -> Vec<Feature> {
    let mut list = Vec::with_capacity(COMBINATIONS);
    let (four, three) = (k - 1, k - 2);
    for (side, whose) in [("own", "an own mark"), ("opp", "an opponent's mark")] {
        for (name, what) in [
            (
                format!("{four}_cells"),
                format!(
                    "a {four} (a line of {k} cells holding {four} of its side's marks and no other mark)"
                ),
            ),
            (
                format!("open_{three}_cells"),
                format!(
                    "an open {three} (a line of {} cells, both ends empty, the inner {four} holding {three} of its side's marks and no other mark)",
                    k + 1
                ),
            ),
            (
                format!("{four}x{four}_cells"),
                format!("a {four} in two directions (none for renju's black: forbidden)"),
            ),
            (
                format!("{four}x{three}_cells"),
                format!(
                    "a {four} and, in another direction, an open {three} (for renju's black, none that is also a double)"
                ),
            ),
            (
                format!("{three}x{three}_cells"),
                format!("an open {three} in two directions (none for renju's black: forbidden)"),
            ),
        ] {
            list.push(Feature::new(
                format!("{side}_{name}"),
                format!("empty cells where {whose} would make {what}"),
            ));
        }
    }
    list
}

/// The generated default weights of a variant with `k` in a row, in feature order: `centre`
/// 1; `own_windows_J` 4^(J−1) and `opp_windows_J` −4^(J−1), except for J = k−1, where an own
/// window is a win on this move (4^(k−1)) and an opponent's must be blocked (−2·4^(k−2)).
/// The threat features, where a variant has them, weigh 0 ([`Features::default_weights`]
/// appends them).
pub fn generated_defaults(k: usize) -> Vec<f64> {
    let mut values = vec![1.0];
    let power = |e: usize| 4f64.powi(e as i32);
    let own = (1..k).map(|j| {
        if j == k - 1 {
            power(k - 1)
        } else {
            power(j - 1)
        }
    });
    values.extend(own);
    let opp = (1..k).map(|j| {
        if j == k - 1 {
            -2.0 * power(k - 2)
        } else {
            -power(j - 1)
        }
    });
    values.extend(opp);
    values
}

impl Features for Morpion {
    fn features(&self) -> Vec<Feature> {
        let k = self.k() as usize;
        let mut list = vec![Feature::new(
            "centre",
            format!(
                "own marks minus the opponent's in the central region ({} cells)",
                centre_mask(self.rows() as usize, self.cols() as usize)
                    .iter()
                    .map(|w| w.count_ones())
                    .sum::<u32>()
            ),
        )];
        for j in 1..k {
            list.push(Feature::new(
                format!("own_windows_{j}"),
                format!(
                    "lines of {k} cells holding exactly {j} own mark{} and no opponent mark",
                    if j == 1 { "" } else { "s" }
                ),
            ));
        }
        for j in 1..k {
            list.push(Feature::new(
                format!("opp_windows_{j}"),
                format!(
                    "lines of {k} cells holding exactly {j} opponent mark{} and no own mark",
                    if j == 1 { "" } else { "s" }
                ),
            ));
        }
        if has_threats(self.rows() as usize, self.cols() as usize, k) {
            for (side, whose) in [("own", "own"), ("opp", "opponent")] {
                list.push(Feature::new(
                    format!("{side}_open_{}", k - 1),
                    format!(
                        "lines of {} cells, both ends empty, the {} inner cells all {whose} marks (open {})",
                        k + 1,
                        k - 1,
                        k - 1
                    ),
                ));
                list.push(Feature::new(
                    format!("{side}_open_{}", k - 2),
                    format!(
                        "lines of {} cells, both ends empty, the {} inner cells {} {whose} marks and one empty (open {}, split or not)",
                        k + 1,
                        k - 1,
                        k - 2,
                        k - 2
                    ),
                ));
            }
            list.extend(combination_features(k));
        }
        list
    }

    #[inline]
    fn feature_values(&self, out: &mut [i32]) {
        self.leading_feature_values(out, out.len());
    }

    #[inline]
    fn leading_feature_values(&self, out: &mut [i32], used: usize) {
        let (rows, cols, k) = (
            self.rows() as usize,
            self.cols() as usize,
            self.k() as usize,
        );
        let me = self.side_to_move();
        let own = padded(&self.marks(me), rows, cols);
        let opp = padded(&self.marks(me.opponent()), rows, cols);
        morpion_values(&own, &opp, rows, cols, k, out);
        // The threats are a second pass over the board: skipped when no weight reads them.
        if used > 2 * k - 1 && has_threats(rows, cols, k) {
            threat_values(&own, &opp, rows, cols, k, &mut out[2 * k - 1..]);
        }
        // The combinations are a third: the threat cells of both sides, direction by direction.
        if used > 2 * k + 3 && has_threats(rows, cols, k) {
            let renju = (self.rule() == Rule::Renju).then_some(me == Side::First);
            combination_values(
                &own,
                &opp,
                (rows, cols, k),
                renju,
                &mut out[2 * k + 3..2 * k + 3 + COMBINATIONS],
            );
        }
    }

    fn feature_bounds(&self) -> Vec<i32> {
        let (rows, cols, k) = (
            self.rows() as usize,
            self.cols() as usize,
            self.k() as usize,
        );
        let centre: u32 = centre_mask(rows, cols).iter().map(|w| w.count_ones()).sum();
        let windows = window_count(rows, cols, k) as i32;
        let mut bounds = vec![centre as i32];
        bounds.extend(std::iter::repeat_n(windows, 2 * (k - 1)));
        if has_threats(rows, cols, k) {
            bounds.extend(std::iter::repeat_n(
                window_count(rows, cols, k + 1) as i32,
                4,
            ));
            bounds.extend(std::iter::repeat_n((rows * cols) as i32, COMBINATIONS));
        }
        bounds
    }

    fn default_weights(&self) -> Weights {
        if self.name() == "morpion" {
            return super::weights::embedded(self, include_str!("../../weights/morpion.toml"));
        }
        let (rows, cols, k) = (
            self.rows() as usize,
            self.cols() as usize,
            self.k() as usize,
        );
        let mut values = generated_defaults(k);
        values.resize(feature_count(rows, cols, k), 0.0);
        Weights {
            game: self.name(),
            values,
            endgame: None,
            origin: super::features::BUILT_IN.to_string(),
        }
    }

    /// The marks on the board, of its R·C cells.
    #[inline]
    fn progress(&self) -> (u32, u32) {
        let marks: u32 = [Side::First, Side::Second]
            .iter()
            .flat_map(|&s| self.marks(s))
            .map(u64::count_ones)
            .sum();
        let cells = self.cells() as u32;
        (marks.min(cells), cells)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hash::mix64;

    fn values(pos: &Morpion) -> Vec<i32> {
        let mut out = vec![0; pos.features().len()];
        pos.feature_values(&mut out);
        out
    }

    fn random_position(rows: u8, cols: u8, k: u8, seed: u64) -> Morpion {
        let plies = (mix64(seed) % (rows as u64 * cols as u64)) as usize;
        crate::games::random_position(Morpion::start(rows, cols, k), plies, seed)
    }

    #[test]
    fn the_3x3_file_holds_the_generated_defaults_for_k_3() {
        let ttt = Morpion::start(3, 3, 3);
        assert_eq!(Weights::default_for(&ttt).values, generated_defaults(3));
    }

    /// The window counts by walking every window cell by cell.
    fn slow_values(pos: &Morpion) -> Vec<i32> {
        let (rows, cols, k) = (pos.rows() as i32, pos.cols() as i32, pos.k() as i32);
        let me = pos.side_to_move();
        let threats = has_threats(rows as usize, cols as usize, k as usize);
        let mut out = vec![0; feature_count(rows as usize, cols as usize, k as usize)];
        let t = centre_radius(rows as usize, cols as usize) as i32;
        for r in 0..rows {
            for c in 0..cols {
                let central = (2 * r - (rows - 1)).abs() <= t && (2 * c - (cols - 1)).abs() <= t;
                match pos.mark_at((r * cols + c) as usize) {
                    Some(s) if central && s == me => out[0] += 1,
                    Some(_) if central => out[0] -= 1,
                    _ => {}
                }
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let (er, ec) = (r + (k - 1) * dr, c + (k - 1) * dc);
                    if !(0..rows).contains(&er) || !(0..cols).contains(&ec) {
                        continue;
                    }
                    let (mut mine, mut theirs) = (0, 0);
                    for i in 0..k {
                        match pos.mark_at(((r + i * dr) * cols + c + i * dc) as usize) {
                            Some(s) if s == me => mine += 1,
                            Some(_) => theirs += 1,
                            None => {}
                        }
                    }
                    if theirs == 0 && (1..k).contains(&mine) {
                        out[mine as usize] += 1;
                    }
                    if mine == 0 && (1..k).contains(&theirs) {
                        out[(k - 1 + theirs) as usize] += 1;
                    }
                    // The window of k + 1 cells from here, for the threat features.
                    let (er, ec) = (r + k * dr, c + k * dc);
                    if !threats || !(0..rows).contains(&er) || !(0..cols).contains(&ec) {
                        continue;
                    }
                    let at = |i: i32| pos.mark_at(((r + i * dr) * cols + c + i * dc) as usize);
                    if at(0).is_some() || at(k).is_some() {
                        continue;
                    }
                    let (mut mine, mut theirs) = (0, 0);
                    for i in 1..k {
                        match at(i) {
                            Some(s) if s == me => mine += 1,
                            Some(_) => theirs += 1,
                            None => {}
                        }
                    }
                    let base = (2 * k - 1) as usize;
                    for (who, other, slot) in [(mine, theirs, base), (theirs, mine, base + 2)] {
                        if who == k - 1 {
                            out[slot] += 1;
                        } else if who == k - 2 && other == 0 {
                            out[slot + 1] += 1;
                        }
                    }
                }
            }
        }
        if threats {
            let base = (2 * k + 3) as usize;
            out[base..base + COMBINATIONS].copy_from_slice(&slow_combinations(pos));
        }
        out
    }

    /// The combination features by walking, for every empty cell and direction, each window
    /// holding the cell.
    fn slow_combinations(pos: &Morpion) -> [i32; COMBINATIONS] {
        let (rows, cols, k) = (pos.rows() as i32, pos.cols() as i32, pos.k() as i32);
        let me = pos.side_to_move();
        let at = |r: i32, c: i32| {
            ((0..rows).contains(&r) && (0..cols).contains(&c))
                .then(|| pos.mark_at((r * cols + c) as usize))
        };
        // Whether the `len` cells from (r, c) along (dr, dc) are on the board, the ends (for
        // `open`) empty, and the inner or all cells hold `want` of `side`'s marks and no other.
        let window = |side: Side, (r, c): (i32, i32), (dr, dc), len: i32, open: bool, want| {
            let cells: Option<Vec<_>> = (0..len).map(|i| at(r + i * dr, c + i * dc)).collect();
            let Some(cells) = cells else { return false };
            let inner = if open {
                if cells[0].is_some() || cells[len as usize - 1].is_some() {
                    return false;
                }
                &cells[1..len as usize - 1]
            } else {
                &cells[..]
            };
            inner.iter().all(|m| *m != Some(side.opponent()))
                && inner.iter().filter(|m| **m == Some(side)).count() == want
        };
        let mut out = [0; COMBINATIONS];
        for (slot, side) in [(0, me), (5, me.opponent())] {
            let forbidden = pos.rule() == Rule::Renju && side == Side::First;
            for r in 0..rows {
                for c in 0..cols {
                    if at(r, c) != Some(None) {
                        continue;
                    }
                    let (mut fours, mut threes) = (vec![], vec![]);
                    for (d, dir) in [(0, 1), (1, 0), (1, 1), (1, -1)].into_iter().enumerate() {
                        let from = |j: i32| (r - j * dir.0, c - j * dir.1);
                        if (0..k).any(|j| window(side, from(j), dir, k, false, k as usize - 2)) {
                            fours.push(d);
                        }
                        if (1..k).any(|j| window(side, from(j), dir, k + 1, true, k as usize - 3)) {
                            threes.push(d);
                        }
                    }
                    let four_four = fours.len() >= 2;
                    let three_three = threes.len() >= 2;
                    let four_three = fours.iter().any(|f| threes.iter().any(|t| t != f));
                    out[slot] += !fours.is_empty() as i32;
                    out[slot + 1] += !threes.is_empty() as i32;
                    if forbidden {
                        out[slot + 3] += (four_three && !four_four && !three_three) as i32;
                    } else {
                        out[slot + 2] += four_four as i32;
                        out[slot + 3] += four_three as i32;
                        out[slot + 4] += three_three as i32;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn tic_tac_toe_counted_by_hand() {
        let start = Morpion::start(3, 3, 3);
        let names: Vec<String> = start.features().into_iter().map(|f| f.name).collect();
        assert_eq!(
            names,
            [
                "centre",
                "own_windows_1",
                "own_windows_2",
                "opp_windows_1",
                "opp_windows_2"
            ]
        );
        assert_eq!(values(&start), [0, 0, 0, 0, 0]);
        // X in the centre, O to move: X's mark lies on 4 of the 8 lines.
        let pos = start.play_sequence("b2").unwrap();
        assert_eq!(values(&pos), [-1, 0, 0, 4, 0]);
        // X b2, O a1, X c1; O to move. X: lines b1-b3? no: X owns c1 and b2 → diagonal c1-a3
        // holds both (2); c1 row (a1 is O) blocked; column c: 1; row 2: 1; column b: 1. O: a1
        // lines: column a 1 (row 1 has X c1, diagonal has X b2).
        let pos = start.play_sequence("b2 a1 c1").unwrap();
        assert_eq!(values(&pos), [-1, 1, 0, 3, 1]);
    }

    #[test]
    fn windows_match_a_cell_by_cell_count() {
        for (rows, cols, k) in [
            (3, 3, 3),
            (4, 5, 3),
            (15, 15, 5),
            (6, 7, 4),
            (2, 9, 6),
            (5, 3, 4),
            (15, 15, 15),
            (1, 1, 1),
            (3, 3, 2),
        ] {
            for seed in 0..40 {
                let pos = random_position(rows, cols, k, seed);
                assert_eq!(
                    values(&pos),
                    slow_values(&pos),
                    "{rows}x{cols}-{k} seed {seed}"
                );
                let bounds = pos.feature_bounds();
                for (v, b) in values(&pos).iter().zip(&bounds) {
                    assert!(v.abs() <= *b);
                }
            }
        }
        // The combinations under the other rules: renju forbids black's doubles.
        let mut forbidden_doubles = 0;
        for (rows, cols, rule) in [
            (15, 15, Rule::Renju),
            (9, 9, Rule::Exact),
            (9, 9, Rule::Renju),
        ] {
            for seed in 0..60 {
                let start = Morpion::with_rule(rows, cols, 5, rule);
                let plies = (mix64(seed) % (rows as u64 * cols as u64 / 2)) as usize;
                let pos = crate::games::random_position(start, plies, seed);
                assert_eq!(
                    values(&pos),
                    slow_values(&pos),
                    "{rows}x{cols} {rule:?} seed {seed}"
                );
                let black = if pos.side_to_move() == Side::First {
                    0
                } else {
                    5
                };
                let combos = &values(&pos)[13..];
                if rule == Rule::Renju {
                    assert_eq!((combos[black + 2], combos[black + 4]), (0, 0));
                }
                forbidden_doubles += combos[7 - black] + combos[9 - black];
            }
        }
        assert!(forbidden_doubles > 0, "no white double was seen");
    }

    #[test]
    fn opponent_view_negates_centre_and_swaps_windows() {
        for seed in 0..200 {
            let pos = random_position(7, 7, 4, seed);
            let me = pos.side_to_move();
            let own = padded(&pos.marks(me), 7, 7);
            let opp = padded(&pos.marks(me.opponent()), 7, 7);
            let (mut a, mut b) = ([0; 7], [0; 7]);
            morpion_values(&own, &opp, 7, 7, 4, &mut a);
            morpion_values(&opp, &own, 7, 7, 4, &mut b);
            assert_eq!(a[0], -b[0]);
            assert_eq!(a[1..4], b[4..7]);
            assert_eq!(a[4..7], b[1..4]);
        }
    }

    #[test]
    fn threats_are_skipped_only_where_no_weight_reads_them() {
        use crate::eval::{Evaluator, LinearEval};
        let start = Morpion::start(15, 15, 5);
        let mut with_threats = Weights::default_for(&start);
        with_threats.values[10] = 3.0; // own_open_3
        let defaults = LinearEval::new(&start, &Weights::default_for(&start));
        let threats = LinearEval::new(&start, &with_threats);
        let mut differed = false;
        for seed in 0..40 {
            let pos = random_position(15, 15, 5, seed);
            let all = values(&pos);
            let mut lead = [-7; 23];
            pos.leading_feature_values(&mut lead, 9);
            assert_eq!(lead[..9], all[..9]);
            pos.leading_feature_values(&mut lead, 13);
            assert_eq!(lead[..13], all[..13]);
            pos.leading_feature_values(&mut lead, 23);
            assert_eq!(lead, all[..]);
            // The default weights give what the full dot product gives, threats unread.
            let dot = |w: &[i32]| w.iter().zip(&all).map(|(&a, &b)| a * b).sum::<i32>();
            assert_eq!(defaults.evaluate(&pos), dot(defaults.int_weights()));
            assert_eq!(threats.evaluate(&pos), dot(threats.int_weights()));
            differed |= all[10] != 0 && defaults.evaluate(&pos) != threats.evaluate(&pos);
        }
        assert!(differed, "no position had an open three");
    }

    #[test]
    fn gomoku_threats_counted_by_hand() {
        let start = Morpion::start(15, 15, 5);
        let names: Vec<String> = start.features().into_iter().map(|f| f.name).collect();
        assert_eq!(
            names[9..13],
            ["own_open_4", "own_open_3", "opp_open_4", "opp_open_3"]
        );
        assert_eq!(Weights::default_for(&start).values[9..], [0.0; 14]);
        assert_eq!(values(&start)[9..13], [0, 0, 0, 0]);
        // X d8 e8 f8, O a1 a2 a3, X to move: X's three is open in two windows, b8-g8
        // (.+XXX+.: b8 and g8 empty, c8 d8 e8 f8 = .XXX) and c8-h8 (d8 e8 f8 g8 = XXX.);
        // a8-f8 and d8-i8 end on a mark. O's column a1-a3 touches the edge: a1-a6 starts on
        // a mark and no window starts above a1.
        let pos = start.play_sequence("d8 a1 e8 a2 f8 a3").unwrap();
        assert_eq!(values(&pos)[9..13], [0, 2, 0, 0]);
        // One more X far away, O to move: the same threes are now the opponent's.
        let pos = start.play_sequence("d8 a1 e8 a2 f8 a3 o15").unwrap();
        assert_eq!(values(&pos)[9..13], [0, 0, 0, 2]);
        // A split three, X d8 e8 g8: c8-h8 (.XX.X.) only; b8-g8 ends on g8.
        let pos = start.play_sequence("d8 a1 e8 a2 g8 a3 o15").unwrap();
        assert_eq!(values(&pos)[9..13], [0, 0, 0, 1]);
        // An open four, X d8 e8 f8 g8, X to move: c8-h8 (.XXXX.); b8-g8 and d8-i8 end on a
        // mark, so no open three either.
        let pos = start.play_sequence("d8 a1 e8 a2 f8 a3 g8 o15").unwrap();
        assert_eq!(values(&pos)[9..13], [1, 0, 0, 0]);
        // X's three blocked by O at c8: every window holding it has a mark at an end or O
        // inside.
        let pos = start.play_sequence("d8 c8 e8 a2 f8 a3 o14").unwrap();
        assert_eq!(values(&pos)[9..13], [0, 0, 0, 0]);
        // Tic-tac-toe and k = 3 variants keep their five features.
        assert_eq!(Morpion::start(3, 3, 3).features().len(), 5);
        assert_eq!(Morpion::start(9, 9, 3).features().len(), 5);
        assert_eq!(Morpion::start(5, 5, 5).features().len(), 9);
        assert_eq!(Morpion::start(6, 5, 5).features().len(), 23);
    }

    #[test]
    fn window_counts_and_centre_regions() {
        assert_eq!(window_count(3, 3, 3), 8);
        assert_eq!(window_count(15, 15, 5), 15 * 11 * 2 + 11 * 11 * 2);
        assert_eq!(
            Morpion::start(3, 3, 3).feature_bounds(),
            vec![1, 8, 8, 8, 8]
        );
        assert_eq!(Morpion::start(15, 15, 5).feature_bounds()[0], 25);
        assert_eq!(Morpion::start(4, 4, 3).feature_bounds()[0], 4);
        assert_eq!(generated_defaults(3), vec![1.0, 1.0, 16.0, -1.0, -8.0]);
    }
}

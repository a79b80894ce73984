//! Connect 4 features, on the bitboards of [`Connect4`] (7 bits per column, bottom first, the
//! seventh a sentinel). "Own" is the side to move, "opp" the other player; rows are numbered 1
//! (bottom) to 6. A *window* is one of the 69 lines of four cells; a *threat* is an empty cell
//! that would complete four for its owner.
//!
//! | # | name | value (side to move's view) |
//! |---|---|---|
//! | 0 | `centre` | own stones in the centre column (4) minus the opponent's |
//! | 1 | `near_centre` | own stones in columns 3 and 5 minus the opponent's |
//! | 2 | `own_twos` | windows with exactly 2 own stones and no opponent stone |
//! | 3 | `own_threes` | windows with exactly 3 own stones and no opponent stone |
//! | 4 | `opp_twos` | windows with exactly 2 opponent stones and no own stone |
//! | 5 | `opp_threes` | windows with exactly 3 opponent stones and no own stone |
//! | 6 | `own_immediate` | own threats that are playable now (a win on this move) |
//! | 7 | `opp_immediate` | opponent threats that are playable now (each must be blocked) |
//! | 8 | `good_threats` | own threats on the rows the zugzwang rule favours for the side to move (odd rows if it moved first, even if second) minus the opponent's threats on its own favoured rows |
//! | 9 | `bad_threats` | own threats on the other rows minus the opponent's threats on its other rows |
//!
//! `centre`, `near_centre`, `good_threats` and `bad_threats` are antisymmetric: the opponent's
//! view of the same board (the opponent to move, each player keeping whether it moved first)
//! negates them. The `own_*` and `opp_*` features swap instead (`own_twos` ↔ `opp_twos`, …),
//! so that weights may value the side to move's windows differently from the opponent's.
//!
//! Game progress ([`Features::progress`], for tapered weights): the stones on the board, of
//! T = 42.

use crate::games::connect4::{BOARD, BOTTOM_ROW, H1, HEIGHT, WIDTH};
use crate::games::{Connect4, Game, Side};

use super::features::Weights;
use super::features::{Feature, Features};

const COLUMN: u64 = (1 << HEIGHT) - 1;
const CENTRE: u64 = COLUMN << (3 * H1);
const NEAR_CENTRE: u64 = (COLUMN << (2 * H1)) | (COLUMN << (4 * H1));
/// Rows 1, 3, 5 (from the bottom).
const ODD_ROWS: u64 = BOTTOM_ROW * 0b010101;
/// Rows 2, 4, 6.
const EVEN_ROWS: u64 = BOTTOM_ROW * 0b101010;

/// The four line directions as bit shifts: vertical, horizontal, and the two diagonals.
const SHIFTS: [u32; 4] = [1, H1, H1 - 1, H1 + 1];

/// For each direction of [`SHIFTS`], the cells where a window of four starts.
const WINDOW_STARTS: [u64; 4] = {
    let mut starts = [0; 4];
    let mut i = 0;
    while i < 4 {
        let s = SHIFTS[i];
        starts[i] = BOARD & (BOARD >> s) & (BOARD >> (2 * s)) & (BOARD >> (3 * s));
        i += 1;
    }
    starts
};

/// The number of windows of four on the board.
pub const WINDOWS: u32 = {
    let mut n = 0;
    let mut i = 0;
    while i < 4 {
        n += WINDOW_STARTS[i].count_ones();
        i += 1;
    }
    n
};

/// The empty cells that would complete four in a row for `stones` (playable now or not).
#[inline]
pub fn threat_cells(stones: u64, mask: u64) -> u64 {
    let p = stones;
    let mut r = (p << 1) & (p << 2) & (p << 3);
    for s in [H1, H1 - 1, H1 + 1] {
        let t = (p << s) & (p << (2 * s));
        r |= t & (p << (3 * s));
        r |= t & (p >> s);
        let t = (p >> s) & (p >> (2 * s));
        r |= t & (p << s);
        r |= t & (p >> (3 * s));
    }
    r & (BOARD ^ mask)
}

/// The windows holding exactly two and exactly three stones of `a` and none of `b`.
#[inline]
fn open_windows(a: u64, b: u64) -> (i32, i32) {
    let (mut twos, mut threes) = (0, 0);
    for (s, starts) in SHIFTS.into_iter().zip(WINDOW_STARTS) {
        let (a0, a1, a2, a3) = (a, a >> s, a >> (2 * s), a >> (3 * s));
        let free = starts & !(b | (b >> s) | (b >> (2 * s)) | (b >> (3 * s)));
        // A bit-sliced sum of the four cells: ones + 2 × (c1 + c2 + carry).
        let (s1, c1) = (a0 ^ a1, a0 & a1);
        let (s2, c2) = (a2 ^ a3, a2 & a3);
        let ones = s1 ^ s2;
        let carry = s1 & s2;
        // c1 and c2 both set means four stones; carry excludes both.
        let one_pair = (c1 | c2 | carry) & !(c1 & c2) & free;
        twos += (one_pair & !ones).count_ones() as i32;
        threes += (one_pair & ones).count_ones() as i32;
    }
    (twos, threes)
}

/// The feature values with `own` to move against `opp` (`mask` = all stones); `own_first`
/// says whether the side to move is the player who moved first.
#[inline]
pub fn connect4_values(own: u64, opp: u64, mask: u64, own_first: bool, out: &mut [i32]) {
    let count = |b: u64| b.count_ones() as i32;
    out[0] = count(own & CENTRE) - count(opp & CENTRE);
    out[1] = count(own & NEAR_CENTRE) - count(opp & NEAR_CENTRE);
    let (own_twos, own_threes) = open_windows(own, opp);
    let (opp_twos, opp_threes) = open_windows(opp, own);
    out[2] = own_twos;
    out[3] = own_threes;
    out[4] = opp_twos;
    out[5] = opp_threes;
    let playable = (mask + BOTTOM_ROW) & BOARD;
    let own_threats = threat_cells(own, mask);
    let opp_threats = threat_cells(opp, mask);
    out[6] = count(own_threats & playable);
    out[7] = count(opp_threats & playable);
    let (own_rows, opp_rows) = if own_first {
        (ODD_ROWS, EVEN_ROWS)
    } else {
        (EVEN_ROWS, ODD_ROWS)
    };
    out[8] = count(own_threats & own_rows) - count(opp_threats & opp_rows);
    out[9] = count(own_threats & opp_rows) - count(opp_threats & own_rows);
}

impl Features for Connect4 {
    fn features(&self) -> Vec<Feature> {
        vec![
            Feature::new(
                "centre",
                "own stones in the centre column (4) minus the opponent's",
            ),
            Feature::new(
                "near_centre",
                "own stones in columns 3 and 5 minus the opponent's",
            ),
            Feature::new(
                "own_twos",
                "windows of four with exactly 2 own stones and no opponent stone",
            ),
            Feature::new(
                "own_threes",
                "windows of four with exactly 3 own stones and no opponent stone",
            ),
            Feature::new(
                "opp_twos",
                "windows of four with exactly 2 opponent stones and no own stone",
            ),
            Feature::new(
                "opp_threes",
                "windows of four with exactly 3 opponent stones and no own stone",
            ),
            Feature::new(
                "own_immediate",
                "own winning cells playable now (a win on this move)",
            ),
            Feature::new(
                "opp_immediate",
                "opponent winning cells playable now (each must be blocked)",
            ),
            Feature::new(
                "good_threats",
                "own winning cells on the rows the zugzwang rule favours for the side to move (odd if it moved first, even if second), minus the opponent's on its favoured rows",
            ),
            Feature::new(
                "bad_threats",
                "own winning cells on the other rows, minus the opponent's on its other rows",
            ),
        ]
    }

    #[inline]
    fn feature_values(&self, out: &mut [i32]) {
        let own_first = self.side_to_move() == Side::First;
        connect4_values(
            self.current,
            self.current ^ self.mask,
            self.mask,
            own_first,
            out,
        );
    }

    fn feature_bounds(&self) -> Vec<i32> {
        let w = WINDOWS as i32;
        let cells = (WIDTH * HEIGHT) as i32;
        vec![6, 12, w, w, w, w, WIDTH as i32, WIDTH as i32, cells, cells]
    }

    fn default_weights(&self) -> Weights {
        super::weights::embedded(self, include_str!("../../weights/connect4.toml"))
    }

    /// The stones on the board, of 42.
    #[inline]
    fn progress(&self) -> (u32, u32) {
        let cells = WIDTH * HEIGHT;
        (self.stones().min(cells), cells)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hash::mix64;

    const N: usize = 10;

    fn values(moves: &str) -> [i32; N] {
        let pos = Connect4::start().play_digits(moves).unwrap();
        let mut out = [0; N];
        pos.feature_values(&mut out);
        out
    }

    fn random_position(seed: u64) -> Connect4 {
        crate::games::random_position(Connect4::start(), (mix64(seed) % 42) as usize, seed)
    }

    #[test]
    fn sixty_nine_windows() {
        assert_eq!(WINDOWS, 69);
        assert_eq!(values(""), [0; N]);
    }

    #[test]
    fn hand_counted_pairs() {
        // X on 4 and 5 at the bottom, O above them; X to move.
        // X: bottom-row windows starting at columns 2, 3, 4 hold both X stones; O likewise on row 2.
        assert_eq!(values("4455"), [0, 0, 3, 0, 3, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn hand_counted_threats() {
        // X on 4 5 6 at the bottom, O above; X to move. X threatens 3 and 7 on row 1 (odd,
        // playable: own_immediate 2); O threatens 3 and 7 on row 2 (even: O's good rows, not
        // playable yet).
        let v = values("445566");
        assert_eq!(v[0..2], [0, 0]);
        // X: bottom windows 3-6 and 4-7 hold three; 1-4 (one), 2-5 (two) → one two.
        assert_eq!(v[2..6], [1, 2, 1, 2]);
        assert_eq!(v[6..8], [2, 0]);
        assert_eq!(v[8..10], [2 - 2, 0]);
        // X then plays 1 (harmless); O to move sees X's two playable threats.
        let v = values("4455661");
        assert_eq!(v[6..8], [0, 2]);
        // O moved second: its favoured rows are even, where its two threats lie.
        assert_eq!(v[8..10], [2 - 2, 0]);
    }

    #[test]
    fn centre_counts_columns() {
        // X 4, O 3, X 4, O 5: X to move; X has 2 in the centre, O 2 near it.
        assert_eq!(values("4345")[0..2], [2, -2]);
        // O to move after X 4: O's view.
        assert_eq!(values("4")[0..2], [-1, 0]);
    }

    #[test]
    fn opponent_view_negates_or_swaps() {
        for seed in 0..500 {
            let pos = random_position(seed);
            let own = pos.current;
            let opp = pos.current ^ pos.mask;
            let first = pos.side_to_move() == Side::First;
            let (mut a, mut b) = ([0; N], [0; N]);
            connect4_values(own, opp, pos.mask, first, &mut a);
            connect4_values(opp, own, pos.mask, !first, &mut b);
            for i in [0, 1, 8, 9] {
                assert_eq!(a[i], -b[i], "feature {i}");
            }
            for (i, j) in [(2, 4), (3, 5), (6, 7)] {
                assert_eq!((a[i], a[j]), (b[j], b[i]), "features {i} {j}");
            }
            let bounds = pos.feature_bounds();
            for i in 0..N {
                assert!(a[i].abs() <= bounds[i]);
            }
        }
    }

    #[test]
    fn windows_match_a_cell_by_cell_count() {
        for seed in 0..300 {
            let pos = random_position(seed);
            let own = pos.current;
            let opp = pos.current ^ pos.mask;
            let (mut twos, mut threes) = (0, 0);
            for c in 0..7i32 {
                for r in 0..6i32 {
                    for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                        let cells: Vec<(i32, i32)> =
                            (0..4).map(|i| (c + i * dc, r + i * dr)).collect();
                        if cells
                            .iter()
                            .any(|&(c, r)| !(0..7).contains(&c) || !(0..6).contains(&r))
                        {
                            continue;
                        }
                        let bit = |&(c, r): &(i32, i32)| 1u64 << (c * 7 + r);
                        let mine = cells.iter().filter(|x| own & bit(x) != 0).count();
                        let theirs = cells.iter().filter(|x| opp & bit(x) != 0).count();
                        if theirs == 0 && mine == 2 {
                            twos += 1;
                        }
                        if theirs == 0 && mine == 3 {
                            threes += 1;
                        }
                    }
                }
            }
            assert_eq!(open_windows(own, opp), (twos, threes));
        }
    }
}

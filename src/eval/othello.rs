//! Othello features, on the bitboards of [`Othello`]: `P` the discs of the side to move, `O`
//! the opponent's, `E` the empty squares.
//!
//! | # | name | value (side to move's view) |
//! |---|---|---|
//! | 0 | `discs` | discs of P minus discs of O |
//! | 1 | `mobility` | legal moves of P minus legal moves O would have |
//! | 2 | `potential_mobility` | empty squares next to an O disc minus empty squares next to a P disc (frontier) |
//! | 3 | `corners` | corners of P minus corners of O |
//! | 4 | `x_squares` | X-squares (b2, g2, b7, g7) of P next to an empty corner, minus O's |
//! | 5 | `c_squares` | C-squares (b1, a2, …) of P next to an empty corner, minus O's |
//! | 6 | `stable_edges` | P's edge discs that can never be flipped (a full edge, or a run from an own corner), minus O's |
//! | 7 | `parity` | +1 when the number of empty squares is odd (the side to move would play last), −1 when even; passes are not foreseen |
//! | 8–17 | `sq_a1` … `sq_d4` | discs of P minus discs of O in one of the 10 symmetry classes of the board |
//!
//! Every feature is invariant under the 8 symmetries of the board. Every feature but `parity` is
//! antisymmetric: the opponent's view of the same board negates it; `parity` depends on the
//! empty squares alone and is the same for both players.
//!
//! Game progress ([`Features::progress`], for tapered weights): the discs on the board minus the
//! 4 of the start, of T = 60.

use crate::games::Othello;
use crate::games::othello::{legal_moves_mask, neighbours};

use super::features::Weights;
use super::features::{Feature, Features};

const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Per corner: the corner, its X-square, its two C-squares.
const CORNER_NEIGHBOURS: [(u64, u64, u64); 4] = [
    (1 << 0, 1 << 9, (1 << 1) | (1 << 8)),
    (1 << 7, 1 << 14, (1 << 6) | (1 << 15)),
    (1 << 56, 1 << 49, (1 << 48) | (1 << 57)),
    (1 << 63, 1 << 54, (1 << 55) | (1 << 62)),
];

/// The 10 symmetry classes of the squares, named by their representative in the a1–d4
/// triangle.
pub const SQUARE_CLASSES: [&str; 10] = ["a1", "b1", "c1", "d1", "b2", "c2", "d2", "c3", "d3", "d4"];

/// The squares of each class of [`SQUARE_CLASSES`].
pub const CLASS_MASKS: [u64; 10] = build_class_masks();

const fn build_class_masks() -> [u64; 10] {
    // (row, column) of each representative, row <= column, both folded into 0..4.
    const REPS: [(usize, usize); 10] = [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 2),
        (2, 3),
        (3, 3),
    ];
    let mut masks = [0u64; 10];
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = (sq / 8, sq % 8);
        let r = if r < 4 { r } else { 7 - r };
        let c = if c < 4 { c } else { 7 - c };
        let (a, b) = if r <= c { (r, c) } else { (c, r) };
        let mut i = 0;
        while i < 10 {
            if REPS[i].0 == a && REPS[i].1 == b {
                masks[i] |= 1 << sq;
            }
            i += 1;
        }
        sq += 1;
    }
    masks
}

/// The stable discs of `p` on one 8-square edge line: all of them when the line is full,
/// else the runs that start at either corner.
#[inline]
fn stable_line(p: u8, o: u8) -> u8 {
    if p | o == 0xFF {
        return p;
    }
    let low = ((1u16 << p.trailing_ones()) - 1) as u8;
    let high = !(0xFFu8 >> p.leading_ones());
    low | high
}

/// The squares of column `col` as a byte, row 1 in bit 0.
#[inline]
fn column_byte(b: u64, col: u32) -> u8 {
    (((b >> col) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// The number of discs of `p` on the four edges that can never be flipped. An edge disc can
/// only be flipped along its edge (every other line through it ends there), so a disc on a
/// full edge, or in an unbroken run of `p` discs from a corner, is stable. Corners, on two
/// edges, count once.
#[inline]
pub fn stable_edge_count(p: u64, o: u64) -> i32 {
    let row1 = stable_line(p as u8, o as u8);
    let row8 = stable_line((p >> 56) as u8, (o >> 56) as u8);
    let col_a = stable_line(column_byte(p, 0), column_byte(o, 0)) & 0x7E;
    let col_h = stable_line(column_byte(p, 7), column_byte(o, 7)) & 0x7E;
    (row1.count_ones() + row8.count_ones() + col_a.count_ones() + col_h.count_ones()) as i32
}

#[inline]
fn count(b: u64) -> i32 {
    b.count_ones() as i32
}

/// The feature values for `p` to move against `o`, in the order of the table above.
#[inline]
pub fn othello_values(p: u64, o: u64, out: &mut [i32]) {
    let empty = !(p | o);
    out[0] = count(p) - count(o);
    out[1] = count(legal_moves_mask(p, o)) - count(legal_moves_mask(o, p));
    out[2] = count(neighbours(o) & empty) - count(neighbours(p) & empty);
    out[3] = count(p & CORNERS) - count(o & CORNERS);
    let (mut xs, mut cs) = (0, 0);
    for (corner, x, c) in CORNER_NEIGHBOURS {
        if empty & corner != 0 {
            xs |= x;
            cs |= c;
        }
    }
    out[4] = count(p & xs) - count(o & xs);
    out[5] = count(p & cs) - count(o & cs);
    out[6] = stable_edge_count(p, o) - stable_edge_count(o, p);
    out[7] = if empty.count_ones() % 2 == 1 { 1 } else { -1 };
    for (i, mask) in CLASS_MASKS.iter().enumerate() {
        out[8 + i] = count(p & mask) - count(o & mask);
    }
}

impl Features for Othello {
    fn features(&self) -> Vec<Feature> {
        let mut list = vec![
            Feature::new("discs", "own discs minus the opponent's"),
            Feature::new(
                "mobility",
                "own legal moves minus the opponent's (as if it were to move)",
            ),
            Feature::new(
                "potential_mobility",
                "empty squares next to opponent discs minus empty squares next to own discs (frontier)",
            ),
            Feature::new("corners", "own corners minus the opponent's"),
            Feature::new(
                "x_squares",
                "own discs on X-squares (b2 g2 b7 g7) next to an empty corner, minus the opponent's",
            ),
            Feature::new(
                "c_squares",
                "own discs on C-squares (b1 a2 g1 h2 a7 b8 h7 g8) next to an empty corner, minus the opponent's",
            ),
            Feature::new(
                "stable_edges",
                "own edge discs that can never be flipped (full edge, or a run from an own corner), minus the opponent's",
            ),
            Feature::new(
                "parity",
                "+1 when the number of empty squares is odd (the side to move would play last), -1 when even",
            ),
        ];
        for (name, mask) in SQUARE_CLASSES.iter().zip(CLASS_MASKS) {
            list.push(Feature::new(
                format!("sq_{name}"),
                format!(
                    "own discs minus the opponent's on the {} squares of the {name} class",
                    mask.count_ones()
                ),
            ));
        }
        list
    }

    #[inline]
    fn feature_values(&self, out: &mut [i32]) {
        othello_values(self.player, self.opponent, out);
    }

    fn feature_bounds(&self) -> Vec<i32> {
        let mut bounds = vec![64, 60, 60, 4, 4, 8, 28, 1];
        bounds.extend(CLASS_MASKS.iter().map(|m| m.count_ones() as i32));
        bounds
    }

    fn default_weights(&self) -> Weights {
        super::weights::embedded(self, include_str!("../../weights/othello.toml"))
    }

    /// The discs on the board minus the 4 of the start, of 60.
    #[inline]
    fn progress(&self) -> (u32, u32) {
        let discs = (self.player | self.opponent).count_ones();
        (discs.saturating_sub(4).min(60), 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hash::mix64;
    use crate::games::{Game, Side};
    use proptest::prelude::*;

    const N: usize = 18;

    fn values(pos: &Othello) -> [i32; N] {
        let mut out = [0; N];
        pos.feature_values(&mut out);
        out
    }

    /// The position after up to `plies` random moves from the start.
    fn random_position(seed: u64, plies: usize) -> Othello {
        crate::games::random_position(Othello::start(), plies, seed)
    }

    #[test]
    fn classes_partition_the_board() {
        assert_eq!(CLASS_MASKS.iter().fold(0, |a, m| a | m), u64::MAX);
        assert_eq!(CLASS_MASKS.iter().map(|m| m.count_ones()).sum::<u32>(), 64);
        assert_eq!(CLASS_MASKS[0], CORNERS);
        assert_eq!(CLASS_MASKS[4], (1 << 9) | (1 << 14) | (1 << 49) | (1 << 54));
        let start = Othello::start();
        assert_eq!(start.features().len(), N);
        assert_eq!(start.feature_bounds().len(), N);
    }

    #[test]
    fn start_position_is_balanced() {
        let v = values(&Othello::start());
        let mut expected = [0; N];
        expected[7] = -1; // 60 empties: even
        assert_eq!(v, expected);
    }

    #[test]
    fn after_f5_counted_by_hand() {
        // Black d5 e4 e5 f5, white d4; white to move.
        let pos = Othello::start().play_sequence("f5").unwrap();
        assert_eq!(pos.side, Side::Second);
        let v = values(&pos);
        assert_eq!(v[0], 1 - 4, "discs");
        assert_eq!(v[1], 3 - 3, "mobility: white d6 f4 f6, black c3 d3 c4");
        // Empties next to black: c4 c5 c6 d6 e6 d3 e3 f3 f4 f6 g4 g5 g6; next to white: c3 d3 e3 c4 c5.
        assert_eq!(v[2], 13 - 5, "potential mobility");
        assert_eq!(&v[3..7], &[0, 0, 0, 0]);
        assert_eq!(v[7], 1, "59 empties: odd");
        assert_eq!(v[8 + 9], 1 - 3, "sq_d4: white d4; black d5 e4 e5");
        assert_eq!(v[8 + 8], -1, "sq_d3: black f5");
    }

    #[test]
    fn corner_x_c_and_stable_edges_counted_by_hand() {
        // Row 1: X X X O - - - -  (a1 b1 c1 black, d1 white); b2 white, g2 black (h1 empty);
        // row 8 full: O X O X O X O X. Black to move.
        let mut board = vec!['-'; 64];
        let put = |b: &mut Vec<char>, sq: &str, c: char| {
            b[crate::games::othello::parse_square(sq).unwrap() as usize] = c
        };
        for sq in ["a1", "b1", "c1", "g2"] {
            put(&mut board, sq, 'X');
        }
        for sq in ["d1", "b2"] {
            put(&mut board, sq, 'O');
        }
        for (i, c) in "OXOXOXOX".chars().enumerate() {
            board[56 + i] = c;
        }
        let text: String = board.into_iter().collect::<String>() + " X";
        let pos = Othello::start().parse_position(&text).unwrap();
        let v = values(&pos);
        assert_eq!(v[0], 8 - 6);
        assert_eq!(v[3], 2 - 1, "corners: a1 and h8 black, a8 white");
        // a1 is taken, so b2 does not count; h1 is empty, so g2 (black) does.
        assert_eq!(v[4], 1, "x_squares");
        // C-squares next to empty corners: only h1's (g1, h2), both empty.
        assert_eq!(v[5], 0, "c_squares");
        // Black: a1 b1 c1 run + b8 d8 f8 h8 on the full row 8 (h8 counted once);
        // white: a8 c8 e8 g8.
        assert_eq!(v[6], 7 - 4, "stable_edges");
    }

    /// Stable edge discs by walking each edge from its corners, square by square.
    fn slow_stable_edges(p: u64, o: u64) -> i32 {
        let edges: [[u32; 8]; 4] = [
            [0, 1, 2, 3, 4, 5, 6, 7],
            [56, 57, 58, 59, 60, 61, 62, 63],
            [0, 8, 16, 24, 32, 40, 48, 56],
            [7, 15, 23, 31, 39, 47, 55, 63],
        ];
        let mut stable = 0u64;
        for edge in edges {
            let full = edge.iter().all(|&sq| (p | o) >> sq & 1 == 1);
            for (i, &sq) in edge.iter().enumerate() {
                let from_start = edge[..=i].iter().all(|&s| p >> s & 1 == 1);
                let from_end = edge[i..].iter().all(|&s| p >> s & 1 == 1);
                if p >> sq & 1 == 1 && (full || from_start || from_end) {
                    stable |= 1 << sq;
                }
            }
        }
        stable.count_ones() as i32
    }

    #[test]
    fn stable_edges_match_a_square_by_square_walk() {
        let mut state = 99u64;
        for _ in 0..20_000 {
            state = mix64(state);
            let a = state;
            state = mix64(state);
            // Dense edges, so full edges and long runs occur.
            let occupied = a | state;
            let p = occupied & mix64(state ^ a);
            let o = occupied & !p;
            assert_eq!(stable_edge_count(p, o), slow_stable_edges(p, o));
            assert_eq!(stable_edge_count(o, p), slow_stable_edges(o, p));
        }
    }

    #[test]
    fn negation_for_the_opponent() {
        for seed in 0..200 {
            let pos = random_position(seed, (seed % 60) as usize);
            let a = values(&pos);
            let swapped = Othello {
                player: pos.opponent,
                opponent: pos.player,
                side: pos.side.opponent(),
            };
            let b = values(&swapped);
            for i in 0..N {
                if i == 7 {
                    assert_eq!(a[i], b[i], "parity is symmetric");
                } else {
                    assert_eq!(a[i], -b[i], "feature {i}");
                }
            }
        }
    }

    #[test]
    fn values_stay_within_bounds() {
        let bounds = Othello::start().feature_bounds();
        for seed in 0..500 {
            let v = values(&random_position(seed, (seed % 64) as usize));
            for i in 0..N {
                assert!(v[i].abs() <= bounds[i], "feature {i}: {}", v[i]);
            }
        }
    }

    proptest! {
        #[test]
        fn features_are_invariant_under_the_8_symmetries(seed in any::<u64>(), plies in 0usize..64) {
            let pos = random_position(seed, plies);
            let v = values(&pos);
            for image in pos.symmetries() {
                prop_assert_eq!(values(&image), v);
            }
        }
    }
}

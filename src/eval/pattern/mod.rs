//! A pattern evaluation for Othello in the manner of Logistello and Edax: the board is read
//! through fixed groups of squares (patterns), each configuration of each pattern has its own
//! weight, and the evaluation is the sum of the weights of the configurations on the board, one
//! weight table per game phase.
//!
//! # Patterns
//!
//! Each pattern type has one canonical list of squares, in ascending square order (bit 0 = a1,
//! bit 7 = h1, bit 56 = a8, as in [`Othello`]):
//!
//! | type | squares (canonical order) | len | configurations | instances × readings |
//! |---|---|---|---|---|
//! | `corner3x3` | a1 b1 c1 a2 b2 c2 a3 b3 c3 | 9 | 19 683 | 4 × 2 |
//! | `corner2x5` | a1 b1 c1 d1 e1 a2 b2 c2 d2 e2 | 10 | 59 049 | 8 × 1 |
//! | `edge2x` | a1 b1 c1 d1 e1 f1 g1 h1 b2 g2 | 10 | 59 049 | 4 × 2 |
//! | `row2` | a2 b2 c2 d2 e2 f2 g2 h2 | 8 | 6 561 | 4 × 2 |
//! | `row3` | a3 b3 c3 d3 e3 f3 g3 h3 | 8 | 6 561 | 4 × 2 |
//! | `row4` | a4 b4 c4 d4 e4 f4 g4 h4 | 8 | 6 561 | 4 × 2 |
//! | `diag8` | a1 b2 c3 d4 e5 f6 g7 h8 | 8 | 6 561 | 2 × 4 |
//! | `diag7` | b1 c2 d3 e4 f5 g6 h7 | 7 | 2 187 | 4 × 2 |
//! | `diag6` | c1 d2 e3 f4 g5 h6 | 6 | 729 | 4 × 2 |
//! | `diag5` | d1 e2 f3 g4 h5 | 5 | 243 | 4 × 2 |
//! | `diag4` | e1 f2 g3 h4 | 4 | 81 | 4 × 2 |
//! | `bias` | (none: the constant 1, the side to move's tempo) | 0 | 1 | 1 |
//!
//! The configuration of a list of squares s₀ s₁ … is the base-3 number Σ dᵢ·3ⁱ (the first square
//! is the least significant digit), dᵢ = 0 for an empty square, 1 for a disc of the side to move,
//! 2 for an opponent's disc. Colours play no part: the same discs with the other side to move
//! are another configuration.
//!
//! The instances of a type are the images of its canonical list under the 8 symmetries of the
//! board; all of them share the type's weights. Every position is read through all 8 images, so
//! each type contributes 8 lookups: a type that some symmetry maps onto itself (an edge is its
//! own mirror image) has fewer distinct instances, each read several times — usually in both
//! directions, which gives two different configurations (the last column of the table). That is
//! by design: [`feature_indices`] lists every lookup, repeats included, and [`PatternEval`] sums
//! exactly those, so a regression on [`feature_indices`] fits what the evaluation computes.
//!
//! # Counts
//!
//! Beside the patterns, as NTest's evaluation reads them, five numbers read from the whole
//! board, each value with its own weight ([`COUNT_TYPES`]), one lookup each:
//!
//! | type | value | values |
//! |---|---|---|
//! | `mobility` | the side to move's legal moves | 64 |
//! | `opp_mobility` | the opponent's legal moves (were it to move) | 64 |
//! | `potential` | empty squares next to an opponent's disc (potential mobility) | 64 |
//! | `opp_potential` | empty squares next to a disc of the side to move | 64 |
//! | `parity` | the empty squares, modulo 2 | 2 |
//!
//! A phase's weights are the blocks of the pattern types in the order of the table, each 3^len
//! long and indexed by configuration, then those of the count types, indexed by value, then the
//! bias: [`WEIGHTS_PER_PHASE`] = 167 524 weights in all, and [`FEATURES_PER_POSITION`] =
//! 8 × 11 + 5 + 1 = 94 lookups per position. Files of format version 1 had no counts (167 266
//! weights a phase); they are read with every count weight 0, and an evaluation whose count
//! weights are all 0 does not compute them.
//!
//! # Phases
//!
//! A weights file holds P phases (1..=60) of weights. The phase of a position depends on its
//! number of empty squares E alone: `phase = min(60 − E, 59) · P / 60` (integer division; 60 − E
//! is taken as 0 when E > 60), so phase 0 starts at the start position and P = 1 is a single
//! phase for the whole game.
//!
//! # Evaluation
//!
//! [`PatternEval`] rounds every weight once to an integer, `round(w · SCALE)` ([`SCALE`] = 1024
//! units per weight unit; weights are logits: σ(Σ w) is the side to move's expected score), and
//! evaluates a position as the sum of the integers of its [`FEATURES_PER_POSITION`] lookups,
//! clamped to its bound (Σ over the lookups of the largest magnitude in the looked-up block,
//! largest over the phases, capped at [`EVAL_LIMIT`], at least 1). The evaluation is invariant
//! under the 8 symmetries of the board. Its table is folded: an instance read through several
//! images is read once, from an entry holding the sum of the integer weights of all its
//! readings (46 pattern lookups instead of 88, the same sum; see [`PatternEval`]). The counts
//! cost two move generations and two neighbour fills more.
//!
//! Cost, measured when the module was written (release, `cargo bench --bench pattern`, a shared
//! 2-core AMD EPYC with BMI2, 12 phases of random weights, 2-byte table): one evaluation about
//! 39 ns on positions of random games, against 29 ns for [`super::LinearEval`] with the default
//! Othello weights; [`feature_indices`] about 36 ns. A PVS search to depth 6 from midgame
//! positions that computes both evaluations wherever it evaluates (the linear one's tree) takes
//! 1.25 times as long as with the linear one alone. Built for the x86-64 baseline (no BMI2) an
//! evaluation takes about 150 ns. Non-zero count weights add about 9 ns (52.7 ns against 43.6 ns
//! with the same weights, counts zeroed, on the same machine when they were added).
//!
//! Configurations are read with BMI2's `pext` when the build enables it (`target-cpu=native` on
//! a processor that has it, x86-64-v3 and up), else with a portable loop over the pattern's
//! squares that gives the same indices.
//!
//! # Files
//!
//! [`PatternWeights`] are read from and written to a compact binary file (`JOUTEPAT`, exact) or
//! a CSV file of the non-zero weights (for reading by people); `docs/files.md`, "Pattern
//! weights files", describes both byte by byte.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use super::weights::{EvalError, MAX_WEIGHT, check_weight};
use super::{EVAL_LIMIT, EvalState, Evaluator};
use crate::games::Othello;
use crate::games::othello::{
    flip_vertical, legal_moves_mask, mirror_horizontal, neighbours, square_name, transpose,
};

/// Integer units per weight unit in [`PatternEval`].
pub const SCALE: f64 = 1024.0;

/// The most phases a weights file may hold: one per move of a game.
pub const MAX_PHASES: usize = 60;

/// A pattern type: a list of squares read as one base-3 configuration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PatternType {
    /// The name used in CSV files (`corner3x3`).
    pub name: &'static str,
    /// The canonical squares (0 = a1 … 63 = h8), ascending; the first is the least significant
    /// base-3 digit of a configuration.
    pub squares: &'static [u8],
    /// The number of squares.
    pub len: usize,
}

const fn pattern(name: &'static str, squares: &'static [u8]) -> PatternType {
    PatternType {
        name,
        squares,
        len: squares.len(),
    }
}

/// The pattern types, in the order of their blocks in a phase's weights (see the module
/// documentation).
pub const PATTERN_TYPES: &[PatternType] = &[
    pattern("corner3x3", &[0, 1, 2, 8, 9, 10, 16, 17, 18]),
    pattern("corner2x5", &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12]),
    pattern("edge2x", &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14]),
    pattern("row2", &[8, 9, 10, 11, 12, 13, 14, 15]),
    pattern("row3", &[16, 17, 18, 19, 20, 21, 22, 23]),
    pattern("row4", &[24, 25, 26, 27, 28, 29, 30, 31]),
    pattern("diag8", &[0, 9, 18, 27, 36, 45, 54, 63]),
    pattern("diag7", &[1, 10, 19, 28, 37, 46, 55]),
    pattern("diag6", &[2, 11, 20, 29, 38, 47]),
    pattern("diag5", &[3, 12, 21, 30, 39]),
    pattern("diag4", &[4, 13, 22, 31]),
];

/// The number of pattern types.
const TYPES: usize = PATTERN_TYPES.len();

/// The most squares in a pattern: `B2T` covers masks of this many bits.
const MAX_LEN: usize = 10;

/// The name of the bias feature in CSV files.
pub const BIAS_NAME: &str = "bias";

const fn pow3(n: usize) -> usize {
    let mut p = 1;
    let mut i = 0;
    while i < n {
        p *= 3;
        i += 1;
    }
    p
}

/// The first index of each type's block within a phase.
const OFFSETS: [usize; TYPES] = {
    let mut offsets = [0; TYPES];
    let mut at = 0;
    let mut t = 0;
    while t < TYPES {
        offsets[t] = at;
        at += pow3(PATTERN_TYPES[t].len);
        t += 1;
    }
    offsets
};

/// A count feature: a number read from the whole board (a mobility, a parity), each of its
/// values with its own weight, as NTest's evaluation reads mobility and potential mobility
/// beside its patterns.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CountType {
    /// The name used in CSV files (`mobility`).
    pub name: &'static str,
    /// The number of values, 0..values.
    pub values: usize,
    /// What is counted, for people.
    pub meaning: &'static str,
}

/// The count features, in the order of their blocks after the patterns' (see the module
/// documentation). Every count is at most 60 (the empty squares), below 64.
pub const COUNT_TYPES: &[CountType] = &[
    CountType {
        name: "mobility",
        values: 64,
        meaning: "the side to move's legal moves",
    },
    CountType {
        name: "opp_mobility",
        values: 64,
        meaning: "the opponent's legal moves (were it to move)",
    },
    CountType {
        name: "potential",
        values: 64,
        meaning: "empty squares next to an opponent's disc (the side to move's potential mobility)",
    },
    CountType {
        name: "opp_potential",
        values: 64,
        meaning: "empty squares next to a disc of the side to move (the opponent's potential mobility)",
    },
    CountType {
        name: "parity",
        values: 2,
        meaning: "the number of empty squares, modulo 2",
    },
];

/// The number of count types.
const COUNTS: usize = COUNT_TYPES.len();

/// The first index of the count blocks within a phase: the end of the patterns'.
pub const COUNTS_OFFSET: usize = {
    let last = TYPES - 1;
    OFFSETS[last] + pow3(PATTERN_TYPES[last].len)
};

/// The first index of each count type's block within a phase.
const COUNT_OFFSETS: [usize; COUNTS] = {
    let mut offsets = [0; COUNTS];
    let mut at = COUNTS_OFFSET;
    let mut c = 0;
    while c < COUNTS {
        offsets[c] = at;
        at += COUNT_TYPES[c].values;
        c += 1;
    }
    offsets
};

/// The weights of one phase: Σ 3^len over the pattern types, the values of the count types,
/// and the bias (the last one).
pub const WEIGHTS_PER_PHASE: usize = {
    let last = COUNTS - 1;
    COUNT_OFFSETS[last] + COUNT_TYPES[last].values + 1
};

/// The weights of one phase in files of format version 1, which had no count features: the
/// patterns' blocks and the bias.
pub const V1_WEIGHTS_PER_PHASE: usize = COUNTS_OFFSET + 1;

/// The index of the bias within a phase.
pub const BIAS_INDEX: usize = WEIGHTS_PER_PHASE - 1;

/// The symmetric images through which the board is read.
const IMAGES: usize = 8;

/// Lookups per position: 8 images of every pattern type, one of every count type, and the bias
/// (last in [`feature_indices`]).
pub const FEATURES_PER_POSITION: usize = IMAGES * TYPES + COUNTS + 1;

/// The first index of the block each lookup of [`feature_indices`] reads in (the bias's:
/// [`BIAS_INDEX`]). A lookup is its block's start plus a configuration below 3^[`MAX_LEN`]
/// (59,049), which fits a `u16`: the pattern fit stores its positions' lookups that way.
pub const LOOKUP_BLOCKS: [u32; FEATURES_PER_POSITION] = {
    assert!(pow3(MAX_LEN) <= 1 << 16);
    let mut blocks = [BIAS_INDEX as u32; FEATURES_PER_POSITION];
    let mut k = 0;
    while k < IMAGES * TYPES {
        blocks[k] = OFFSETS[k / IMAGES] as u32;
        k += 1;
    }
    let mut c = 0;
    while c < COUNTS {
        assert!(COUNT_TYPES[c].values <= 1 << 16);
        blocks[IMAGES * TYPES + c] = COUNT_OFFSETS[c] as u32;
        c += 1;
    }
    blocks
};

/// The values of the count features of `pos`, in [`COUNT_TYPES`] order.
#[inline]
pub fn counts(pos: &Othello) -> [u32; COUNTS] {
    let (p, o) = (pos.player, pos.opponent);
    let empty = !(p | o);
    [
        legal_moves_mask(p, o).count_ones(),
        legal_moves_mask(o, p).count_ones(),
        (neighbours(o) & empty).count_ones(),
        (neighbours(p) & empty).count_ones(),
        empty.count_ones() & 1,
    ]
}

const _: () = assert!(COUNTS == 5, "counts has one value per count type");

/// Each type's squares as a mask; checks at compile time that the lists are ascending, within
/// the board and at most [`MAX_LEN`] long.
const MASKS: [u64; TYPES] = {
    let mut masks = [0u64; TYPES];
    let mut t = 0;
    while t < TYPES {
        let squares = PATTERN_TYPES[t].squares;
        assert!(squares.len() <= MAX_LEN && !squares.is_empty());
        let mut i = 0;
        while i < squares.len() {
            assert!(squares[i] < 64);
            assert!(i == 0 || squares[i - 1] < squares[i]);
            masks[t] |= 1u64 << squares[i];
            i += 1;
        }
        t += 1;
    }
    masks
};

/// `B2T[m]`: the bits of `m` read as base-3 digits (bit i ↦ 3^i).
static B2T: [u16; 1 << MAX_LEN] = {
    let mut table = [0u16; 1 << MAX_LEN];
    let mut m = 0;
    while m < (1 << MAX_LEN) {
        let mut value = 0;
        let mut bit = MAX_LEN;
        while bit > 0 {
            bit -= 1;
            value = value * 3 + ((m >> bit) & 1);
        }
        table[m] = value as u16;
        m += 1;
    }
    table
};

/// Parallel bit extract, portable: the bits of `x` at the set bits of `mask`, packed into the
/// low bits in ascending order (what BMI2's `pext` computes).
#[inline]
pub fn pext_portable(x: u64, mut mask: u64) -> u64 {
    let mut out = 0;
    let mut bit = 1;
    while mask != 0 {
        if x & mask & mask.wrapping_neg() != 0 {
            out |= bit;
        }
        bit <<= 1;
        mask &= mask - 1;
    }
    out
}

/// Parallel bit extract: BMI2's `pext` when the build enables BMI2, else [`pext_portable`].
#[inline(always)]
pub fn pext(x: u64, mask: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: BMI2 is enabled for this whole build (the cfg above).
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_pext_u64(x, mask)
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        pext_portable(x, mask)
    }
}

/// The 8 images of a bitboard, in the order of [`Othello::symmetries`]: identity, vertical
/// flip, horizontal mirror, both, transpose, and the transpose followed by each of the first
/// three.
#[inline(always)]
fn images(b: u64) -> [u64; IMAGES] {
    let h = mirror_horizontal(b);
    let t = transpose(b);
    let ht = mirror_horizontal(t);
    [
        b,
        flip_vertical(b),
        h,
        flip_vertical(h),
        t,
        flip_vertical(t),
        ht,
        flip_vertical(ht),
    ]
}

/// The index within a phase of type `T`'s configuration in the image whose discs are `p` (the
/// side to move's) and `o`, read with `extract` (a `pext`).
#[inline(always)]
fn lookup<const T: usize>(p: u64, o: u64, extract: &impl Fn(u64, u64) -> u64) -> usize {
    let own = B2T[(extract(p, MASKS[T]) & ((1 << MAX_LEN) - 1)) as usize] as usize;
    let opp = B2T[(extract(o, MASKS[T]) & ((1 << MAX_LEN) - 1)) as usize] as usize;
    OFFSETS[T] + own + 2 * opp
}

/// The 8 lookups of type `T`, into `out[8T..8T + 8]`.
#[inline(always)]
fn type_indices<const T: usize>(
    pi: &[u64; IMAGES],
    oi: &[u64; IMAGES],
    extract: &impl Fn(u64, u64) -> u64,
    out: &mut [u32; FEATURES_PER_POSITION],
) {
    for k in 0..IMAGES {
        out[T * IMAGES + k] = lookup::<T>(pi[k], oi[k], extract) as u32;
    }
}

/// [`feature_indices`], reading configurations with `extract` (a `pext`).
#[inline(always)]
fn indices_with(
    pos: &Othello,
    out: &mut [u32; FEATURES_PER_POSITION],
    extract: impl Fn(u64, u64) -> u64,
) {
    let pi = images(pos.player);
    let oi = images(pos.opponent);
    // One call per type, so that every loop has constant bounds and unrolls.
    type_indices::<0>(&pi, &oi, &extract, out);
    type_indices::<1>(&pi, &oi, &extract, out);
    type_indices::<2>(&pi, &oi, &extract, out);
    type_indices::<3>(&pi, &oi, &extract, out);
    type_indices::<4>(&pi, &oi, &extract, out);
    type_indices::<5>(&pi, &oi, &extract, out);
    type_indices::<6>(&pi, &oi, &extract, out);
    type_indices::<7>(&pi, &oi, &extract, out);
    type_indices::<8>(&pi, &oi, &extract, out);
    type_indices::<9>(&pi, &oi, &extract, out);
    type_indices::<10>(&pi, &oi, &extract, out);
    for (c, value) in counts(pos).into_iter().enumerate() {
        out[IMAGES * TYPES + c] = (COUNT_OFFSETS[c] + value as usize) as u32;
    }
    out[FEATURES_PER_POSITION - 1] = BIAS_INDEX as u32;
}

const _: () = assert!(
    TYPES == 11,
    "indices_with and folded_sum have one call per type"
);

/// The phase of `pos` among `phases` phases: `min(60 − empties, 59) · phases / 60` (see the
/// module documentation).
#[inline]
pub fn phase_of(pos: &Othello, phases: usize) -> usize {
    let empties = (!(pos.player | pos.opponent)).count_ones() as usize;
    60usize.saturating_sub(empties).min(59) * phases / 60
}

/// The index within one phase's block (0..[`WEIGHTS_PER_PHASE`]) of each lookup of `pos`: the
/// 8 images of each type in [`PATTERN_TYPES`] order, then the bias. Indices repeat when a
/// configuration is read twice; [`PatternEval`] sums the weights of exactly these entries.
#[inline]
pub fn feature_indices(pos: &Othello, out: &mut [u32; FEATURES_PER_POSITION]) {
    indices_with(pos, out, pext);
}

/// What an index within a phase weighs: a pattern type's configuration, a count type's value,
/// or the bias.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Feature {
    /// A configuration of a pattern type.
    Pattern {
        /// The type, an index into [`PATTERN_TYPES`].
        t: usize,
        /// The configuration, below 3^len.
        config: usize,
    },
    /// A value of a count type.
    Count {
        /// The type, an index into [`COUNT_TYPES`].
        c: usize,
        /// The value counted.
        value: usize,
    },
    /// The bias.
    Bias,
}

/// What an index within a phase weighs, or `None` beyond the phase.
pub fn split_index(index: usize) -> Option<Feature> {
    if index == BIAS_INDEX {
        return Some(Feature::Bias);
    }
    if index > BIAS_INDEX {
        return None;
    }
    if index >= COUNTS_OFFSET {
        let c = COUNT_OFFSETS.iter().rposition(|&o| o <= index)?;
        return Some(Feature::Count {
            c,
            value: index - COUNT_OFFSETS[c],
        });
    }
    let t = OFFSETS.iter().rposition(|&o| o <= index)?;
    Some(Feature::Pattern {
        t,
        config: index - OFFSETS[t],
    })
}

/// A configuration of `len` squares as text, square by square in canonical order: `.` empty,
/// `x` the side to move's disc, `o` the opponent's.
pub fn config_string(len: usize, mut config: usize) -> String {
    (0..len)
        .map(|_| {
            let c = [b'.', b'x', b'o'][config % 3] as char;
            config /= 3;
            c
        })
        .collect()
}

/// An index within a phase, for people: `corner3x3 xo.......`, `mobility 12` or `bias`.
pub fn describe_index(index: usize) -> String {
    match split_index(index) {
        Some(Feature::Pattern { t, config }) => {
            let ty = &PATTERN_TYPES[t];
            format!("{} {}", ty.name, config_string(ty.len, config))
        }
        Some(Feature::Count { c, value }) => format!("{} {value}", COUNT_TYPES[c].name),
        Some(Feature::Bias) => BIAS_NAME.into(),
        None => format!("index {index} (beyond the {WEIGHTS_PER_PHASE} of a phase)"),
    }
}

/// The squares of a type, as names (`a1 b1 c1`).
fn square_names(ty: &PatternType) -> String {
    ty.squares
        .iter()
        .map(|&s| square_name(s))
        .collect::<Vec<_>>()
        .join(" ")
}

mod evaluate;
mod file;
#[cfg(test)]
mod tests;

/// The second generation of the shipped pattern weights, `weights/othello-patterns-gen2.jpw`,
/// built into the library: the exact solver orders its moves with them wherever joute runs,
/// with no file to find. Its tree sizes (docs/speed.md) were measured with these; a newer
/// file here is a change of the solver, to be measured as one.
static BUILT_IN_WEIGHTS: &[u8] = include_bytes!("../../../weights/othello-patterns-gen2.jpw");

/// The evaluator of the built-in pattern weights ([`BUILT_IN_WEIGHTS`]), built once (about
/// 12 ms) at its first use and shared.
pub fn built_in() -> &'static PatternEval {
    static EVAL: std::sync::OnceLock<PatternEval> = std::sync::OnceLock::new();
    EVAL.get_or_init(|| {
        let weights = PatternWeights::parse(BUILT_IN_WEIGHTS, "weights/othello-patterns-gen2.jpw")
            .expect("the built-in pattern weights are a valid weights file (tested)");
        PatternEval::new(&weights)
    })
}

pub use evaluate::{PatternEval, PatternState};
pub use file::{CSV_FIRST_LINE, CSV_HEADER, MAGIC, PatternWeights, VERSION};

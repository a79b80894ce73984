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
//! A phase's weights are the blocks of the types in the order of the table, each 3^len long and
//! indexed by configuration, then the bias: [`WEIGHTS_PER_PHASE`] = 167 266 weights in all, and
//! [`FEATURES_PER_POSITION`] = 8 × 11 + 1 = 89 lookups per position.
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
//! readings (46 lookups instead of 89, the same sum; see [`PatternEval`]).
//!
//! Cost, measured when the module was written (release, `cargo bench --bench pattern`, a shared
//! 2-core AMD EPYC with BMI2, 12 phases of random weights, 2-byte table): one evaluation about
//! 39 ns on positions of random games, against 29 ns for [`super::LinearEval`] with the default
//! Othello weights; [`feature_indices`] about 36 ns. A PVS search to depth 6 from midgame
//! positions that computes both evaluations wherever it evaluates (the linear one's tree) takes
//! 1.25 times as long as with the linear one alone. Built for the x86-64 baseline (no BMI2) an
//! evaluation takes about 150 ns.
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
use crate::games::othello::{flip_vertical, mirror_horizontal, square_name, transpose};

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

/// The weights of one phase: Σ 3^len over the types, plus the bias (the last one).
pub const WEIGHTS_PER_PHASE: usize = {
    let last = TYPES - 1;
    OFFSETS[last] + pow3(PATTERN_TYPES[last].len) + 1
};

/// The index of the bias within a phase.
pub const BIAS_INDEX: usize = WEIGHTS_PER_PHASE - 1;

/// The symmetric images through which the board is read.
const IMAGES: usize = 8;

/// Lookups per position: 8 images of every type, and the bias (last in [`feature_indices`]).
pub const FEATURES_PER_POSITION: usize = IMAGES * TYPES + 1;

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
    blocks
};

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

/// The type (index into [`PATTERN_TYPES`], or `None` for the bias) and configuration of an
/// index within a phase, or `None` beyond the phase.
pub fn split_index(index: usize) -> Option<(Option<usize>, usize)> {
    if index == BIAS_INDEX {
        return Some((None, 0));
    }
    if index > BIAS_INDEX {
        return None;
    }
    let t = OFFSETS.iter().rposition(|&o| o <= index)?;
    Some((Some(t), index - OFFSETS[t]))
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

/// An index within a phase, for people: `corner3x3 xo.......` or `bias`.
pub fn describe_index(index: usize) -> String {
    match split_index(index) {
        Some((Some(t), config)) => {
            let ty = &PATTERN_TYPES[t];
            format!("{} {}", ty.name, config_string(ty.len, config))
        }
        Some((None, _)) => BIAS_NAME.into(),
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

/// The binary file's first bytes.
pub const MAGIC: &[u8; 8] = b"JOUTEPAT";

/// The binary format's version.
pub const VERSION: u32 = 1;

/// Bytes before the weights in a binary file: magic, version, phases, weights per phase.
const HEADER_LEN: usize = 20;

/// The start of a CSV file's first line, before `, phases = P`.
pub const CSV_FIRST_LINE: &str = "# joute pattern weights";

/// A CSV file's column header.
pub const CSV_HEADER: &str = "phase,pattern,config,weight";

/// Pattern weights: [`WEIGHTS_PER_PHASE`] per phase, phase-major.
#[derive(Clone, PartialEq)]
pub struct PatternWeights {
    /// The number of phases, 1..=[`MAX_PHASES`].
    pub phases: usize,
    /// `values[phase * WEIGHTS_PER_PHASE + index]`, `index` as [`feature_indices`] gives it.
    pub values: Vec<f32>,
    /// Where the weights came from: a file path, or a description.
    pub origin: String,
}

impl fmt::Debug for PatternWeights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PatternWeights")
            .field("phases", &self.phases)
            .field("values", &format_args!("[{} f32]", self.values.len()))
            .field(
                "non_zero",
                &self.values.iter().filter(|&&v| v != 0.0).count(),
            )
            .field("origin", &self.origin)
            .finish()
    }
}

/// A refusal of a binary or whole file.
fn file_error(file: &str, reason: impl Into<String>) -> EvalError {
    EvalError::PatternFile {
        file: file.to_string(),
        reason: reason.into(),
    }
}

/// A refusal of a CSV line.
fn csv_error(file: &str, line: usize, field: &str, reason: impl Into<String>) -> EvalError {
    EvalError::PatternCsv {
        file: file.to_string(),
        line,
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// The phase and content of a position in the values, for messages.
fn describe_position(at: usize) -> String {
    format!(
        "phase {}, {}",
        at / WEIGHTS_PER_PHASE,
        describe_index(at % WEIGHTS_PER_PHASE)
    )
}

/// Why a phase count is refused, if it is.
fn check_phases(phases: u64) -> Result<usize, String> {
    if (1..=MAX_PHASES as u64).contains(&phases) {
        Ok(phases as usize)
    } else {
        Err(format!("{phases} phases; allowed: 1..={MAX_PHASES}"))
    }
}

impl PatternWeights {
    /// `phases` phases of zero weights.
    ///
    /// # Panics
    /// When `phases` is not in 1..=[`MAX_PHASES`].
    pub fn zeros(phases: usize) -> Self {
        assert!(
            (1..=MAX_PHASES).contains(&phases),
            "{phases} phases; allowed: 1..={MAX_PHASES}"
        );
        PatternWeights {
            phases,
            values: vec![0.0; phases * WEIGHTS_PER_PHASE],
            origin: "zeros".into(),
        }
    }

    /// The same weights in `phases` phases: each new phase takes the weights of the old phase
    /// that holds the middle of its range of empty squares (a start for a fit in more or
    /// fewer phases); a copy when they are in `phases` already.
    ///
    /// # Panics
    /// When `phases` is not in 1..=[`MAX_PHASES`].
    pub fn in_phases(&self, phases: usize) -> Self {
        if phases == self.phases {
            return self.clone();
        }
        let mut out = Self::zeros(phases);
        for (q, block) in out.values.chunks_exact_mut(WEIGHTS_PER_PHASE).enumerate() {
            // Phase q holds the positions of (60 − empties)·phases/60 = q: its middle, in
            // discs played, is about (q + ½)·60/phases.
            let middle = (2 * q + 1) * 60 / (2 * phases);
            let old = middle.min(59) * self.phases / 60;
            block.copy_from_slice(&self.values[old * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE]);
        }
        out.origin = format!("{} in {phases} phases", self.origin);
        out
    }

    /// Whether the file at `path` starts like a pattern weights file: the binary magic, the
    /// CSV first line or the CSV header. Reads at most 64 bytes; false when it cannot be read.
    pub fn is_pattern_file(path: &Path) -> bool {
        let Ok(file) = File::open(path) else {
            return false;
        };
        let mut start = Vec::with_capacity(64);
        if file.take(64).read_to_end(&mut start).is_err() {
            return false;
        }
        Self::looks_like_pattern_file(&start)
    }

    fn looks_like_pattern_file(start: &[u8]) -> bool {
        start.starts_with(MAGIC)
            || start.starts_with(CSV_FIRST_LINE.as_bytes())
            || start.starts_with(CSV_HEADER.as_bytes())
    }

    /// Reads a weights file, binary or CSV (told apart by their first bytes); `origin` becomes
    /// the path.
    pub fn load(path: &Path) -> Result<Self, EvalError> {
        let file = path.display().to_string();
        let bytes = crate::inputs::read(path, crate::inputs::Input::Weights).map_err(|e| {
            EvalError::Io {
                file: file.clone(),
                reason: e.to_string(),
            }
        })?;
        Self::parse(&bytes, &file)
    }

    /// Reads weights from the content of a file; `origin` names it in errors and becomes
    /// [`PatternWeights::origin`].
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Self, EvalError> {
        if bytes.starts_with(MAGIC) {
            return Self::parse_binary(bytes, origin);
        }
        if bytes.starts_with(b"#") || bytes.starts_with(CSV_HEADER.as_bytes()) {
            let text = std::str::from_utf8(bytes).map_err(|e| {
                let line = bytes[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1;
                csv_error(origin, line, "(line)", "not UTF-8 text")
            })?;
            return Self::parse_csv(text, origin);
        }
        let shown: String = bytes
            .iter()
            .take(8)
            .map(|&b| {
                if b.is_ascii_graphic() {
                    (b as char).to_string()
                } else {
                    format!("\\x{b:02x}")
                }
            })
            .collect();
        Err(file_error(
            origin,
            format!(
                "not a pattern weights file: it starts with \"{shown}\"; expected the binary magic \"JOUTEPAT\" or the CSV first line \"{CSV_FIRST_LINE}, phases = P\""
            ),
        ))
    }

    fn parse_binary(bytes: &[u8], origin: &str) -> Result<Self, EvalError> {
        if bytes.len() < HEADER_LEN {
            return Err(file_error(
                origin,
                format!(
                    "truncated header: {} bytes; a binary pattern weights file starts with {HEADER_LEN} (magic, version, phases, weights per phase)",
                    bytes.len()
                ),
            ));
        }
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let version = word(8);
        if version != VERSION {
            return Err(file_error(
                origin,
                format!("format version {version}; this joute reads version {VERSION}"),
            ));
        }
        let phases = check_phases(word(12) as u64).map_err(|r| file_error(origin, r))?;
        let per_phase = word(16) as usize;
        if per_phase != WEIGHTS_PER_PHASE {
            return Err(file_error(
                origin,
                format!(
                    "{per_phase} weights per phase; this joute's patterns have {WEIGHTS_PER_PHASE}"
                ),
            ));
        }
        let body = bytes.len() - HEADER_LEN;
        let needed = phases * WEIGHTS_PER_PHASE;
        if !body.is_multiple_of(4) || body / 4 != needed {
            let stray = if !body.is_multiple_of(4) {
                format!(" and {} stray bytes", body % 4)
            } else {
                String::new()
            };
            return Err(file_error(
                origin,
                format!(
                    "wrong size: the file holds {} weights{stray} after its {HEADER_LEN}-byte header, but {phases} phases of {WEIGHTS_PER_PHASE} weights need {needed} ({} bytes in all)",
                    body / 4,
                    HEADER_LEN + 4 * needed
                ),
            ));
        }
        let mut values = Vec::with_capacity(needed);
        for (at, chunk) in bytes[HEADER_LEN..].chunks_exact(4).enumerate() {
            let w = f32::from_le_bytes(chunk.try_into().unwrap());
            check_weight(w as f64).map_err(|reason| {
                file_error(
                    origin,
                    format!("weight {at} ({}): {reason}", describe_position(at)),
                )
            })?;
            values.push(w);
        }
        Ok(PatternWeights {
            phases,
            values,
            origin: origin.to_string(),
        })
    }

    fn parse_csv(text: &str, origin: &str) -> Result<Self, EvalError> {
        let mut lines = text.lines();
        let first = lines.next().unwrap_or("");
        let phases = parse_first_line(first).map_err(|r| csv_error(origin, 1, "phases", r))?;
        let mut values = vec![0.0f32; phases * WEIGHTS_PER_PHASE];
        // The line that set each weight (0: none yet).
        let mut set_on = vec![0u32; values.len()];
        let mut header_seen = false;
        let mut line_no = 1;
        for line in lines {
            line_no += 1;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if !header_seen {
                if trimmed != CSV_HEADER {
                    return Err(csv_error(
                        origin,
                        line_no,
                        "header",
                        format!(
                            "expected the column header \"{CSV_HEADER}\", found \"{}\"",
                            short(trimmed)
                        ),
                    ));
                }
                header_seen = true;
                continue;
            }
            let fields: Vec<&str> = trimmed.split(',').map(str::trim).collect();
            if fields.len() != 4 {
                return Err(csv_error(
                    origin,
                    line_no,
                    "(line)",
                    format!("{} fields; a row has 4: {CSV_HEADER}", fields.len()),
                ));
            }
            let err = |field: &str, reason: String| csv_error(origin, line_no, field, reason);
            let phase: usize = fields[0].parse().map_err(|_| {
                err(
                    "phase",
                    format!("\"{}\" is not a phase number", short(fields[0])),
                )
            })?;
            if phase >= phases {
                return Err(err(
                    "phase",
                    format!(
                        "phase {phase} is out of range: the file has {phases} phases, 0..={}",
                        phases - 1
                    ),
                ));
            }
            let index = parse_pattern_config(fields[1], fields[2]).map_err(|(f, r)| err(f, r))?;
            let w: f32 = fields[3].parse().map_err(|_| {
                err(
                    "weight",
                    format!("\"{}\" is not a number", short(fields[3])),
                )
            })?;
            check_weight(w as f64).map_err(|r| err("weight", r))?;
            let at = phase * WEIGHTS_PER_PHASE + index;
            if set_on[at] != 0 {
                return Err(err(
                    "config",
                    format!(
                        "duplicate row: {} was already set on line {}",
                        describe_position(at),
                        set_on[at]
                    ),
                ));
            }
            set_on[at] = line_no as u32;
            values[at] = w;
        }
        if !header_seen {
            return Err(csv_error(
                origin,
                line_no,
                "header",
                format!("the column header \"{CSV_HEADER}\" is missing"),
            ));
        }
        Ok(PatternWeights {
            phases,
            values,
            origin: origin.to_string(),
        })
    }

    /// Checks that the values fit the phases, for the writers.
    fn check_shape(&self) -> std::io::Result<()> {
        let bad = |reason: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, reason);
        check_phases(self.phases as u64).map_err(bad)?;
        if self.values.len() != self.phases * WEIGHTS_PER_PHASE {
            return Err(bad(format!(
                "{} pattern weights for {} phases of {WEIGHTS_PER_PHASE}",
                self.values.len(),
                self.phases
            )));
        }
        Ok(())
    }

    /// Writes the binary file (see `docs/files.md`) through a temporary file renamed over
    /// `path`. Refuses (`InvalidInput`) values that do not fit the phases.
    pub fn write_binary(&self, path: &Path) -> std::io::Result<()> {
        self.check_shape()?;
        let mut bytes = Vec::with_capacity(HEADER_LEN + 4 * self.values.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(self.phases as u32).to_le_bytes());
        bytes.extend_from_slice(&(WEIGHTS_PER_PHASE as u32).to_le_bytes());
        for w in &self.values {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        crate::outputs::write_with(path, true, |out| out.write_all(&bytes))
    }

    /// Writes the CSV file (one row per non-zero weight; see `docs/files.md`) through a
    /// temporary file renamed over `path`. Refuses (`InvalidInput`) values that do not fit the
    /// phases.
    pub fn write_csv(&self, path: &Path) -> std::io::Result<()> {
        self.check_shape()?;
        crate::outputs::write_with(path, true, |out| {
            writeln!(out, "{CSV_FIRST_LINE}, phases = {}", self.phases)?;
            writeln!(
                out,
                "# one row per non-zero weight; config: the pattern's squares in order, x side to move, o opponent, . empty"
            )?;
            writeln!(out, "{CSV_HEADER}")?;
            for (phase, block) in self.values.chunks_exact(WEIGHTS_PER_PHASE).enumerate() {
                for (t, ty) in PATTERN_TYPES.iter().enumerate() {
                    let weights = &block[OFFSETS[t]..OFFSETS[t] + pow3(ty.len)];
                    for (config, &w) in weights.iter().enumerate() {
                        if w != 0.0 {
                            writeln!(
                                out,
                                "{phase},{},{},{w:?}",
                                ty.name,
                                config_string(ty.len, config)
                            )?;
                        }
                    }
                }
                let bias = block[BIAS_INDEX];
                if bias != 0.0 {
                    writeln!(out, "{phase},{BIAS_NAME},,{bias:?}")?;
                }
            }
            Ok(())
        })
    }
}

/// At most 40 characters of a field, for messages.
fn short(text: &str) -> String {
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text.to_string()
    }
}

/// The phase count of a CSV file's first line, `# joute pattern weights, phases = P`.
fn parse_first_line(line: &str) -> Result<usize, String> {
    let expected = || {
        format!(
            "the first line must be \"{CSV_FIRST_LINE}, phases = P\" (P in 1..={MAX_PHASES}), found \"{}\"",
            short(line.trim())
        )
    };
    let rest = line
        .trim()
        .strip_prefix(CSV_FIRST_LINE)
        .ok_or_else(expected)?
        .trim_start()
        .trim_start_matches(',')
        .trim_start()
        .strip_prefix("phases")
        .ok_or_else(expected)?
        .trim_start()
        .strip_prefix('=')
        .ok_or_else(expected)?
        .trim();
    let phases: u64 = rest
        .parse()
        .map_err(|_| format!("\"{}\" is not a number of phases", short(rest)))?;
    check_phases(phases)
}

/// The index within a phase of a CSV row's pattern and config, or the field at fault and why.
fn parse_pattern_config(name: &str, config: &str) -> Result<usize, (&'static str, String)> {
    if name == BIAS_NAME {
        if !config.is_empty() {
            return Err((
                "config",
                format!(
                    "the bias has no configuration; leave the field empty, found \"{}\"",
                    short(config)
                ),
            ));
        }
        return Ok(BIAS_INDEX);
    }
    let Some(t) = PATTERN_TYPES.iter().position(|ty| ty.name == name) else {
        let allowed: Vec<&str> = PATTERN_TYPES
            .iter()
            .map(|ty| ty.name)
            .chain([BIAS_NAME])
            .collect();
        return Err((
            "pattern",
            format!(
                "unknown pattern \"{}\"; allowed: {}",
                short(name),
                allowed.join(", ")
            ),
        ));
    };
    let ty = &PATTERN_TYPES[t];
    let count = pow3(ty.len);
    let value = if !config.is_empty() && config.bytes().all(|b| b.is_ascii_digit()) {
        let index: u64 = config.parse().unwrap_or(u64::MAX);
        if index >= count as u64 {
            return Err((
                "config",
                format!(
                    "config index {} out of range: {} has {count} configurations, 0..={}",
                    short(config),
                    ty.name,
                    count - 1
                ),
            ));
        }
        index as usize
    } else {
        let bad = || {
            (
                "config",
                format!(
                    "bad config \"{}\" for {}: expected {} characters, one per square {} in order (x side to move, o opponent, . empty), or an index 0..={}",
                    short(config),
                    ty.name,
                    ty.len,
                    square_names(ty),
                    count - 1
                ),
            )
        };
        if config.chars().count() != ty.len {
            return Err(bad());
        }
        let mut value = 0;
        for c in config.chars().rev() {
            let digit = match c {
                '.' | '-' => 0,
                'x' | 'X' => 1,
                'o' | 'O' => 2,
                _ => return Err(bad()),
            };
            value = value * 3 + digit;
        }
        value
    };
    Ok(OFFSETS[t] + value)
}

/// The images through which [`PatternEval`] reads each type: one per distinct instance. The
/// other images of [`feature_indices`] read the same instances again, in another order; their
/// weights are folded into these readings' (see [`fold_permutations`]).
const EVAL_IMAGES: [&[usize]; TYPES] = [
    &[0, 1, 2, 3],             // corner3x3: transposing maps a corner block onto itself
    &[0, 1, 2, 3, 4, 5, 6, 7], // corner2x5: 8 distinct instances
    &[0, 1, 4, 5],             // edge2x: the mirror maps an edge onto itself
    &[0, 1, 4, 5],             // row2
    &[0, 1, 4, 5],             // row3
    &[0, 1, 4, 5],             // row4
    &[0, 1],                   // diag8: 2 instances, each read 4 times
    &[0, 1, 2, 3],             // diag7
    &[0, 1, 2, 3],             // diag6
    &[0, 1, 2, 3],             // diag5
    &[0, 1, 2, 3],             // diag4
];

/// [`EVAL_IMAGES`] as bit sets.
const EVAL_IMAGE_SET: [u8; TYPES] = {
    let mut sets = [0u8; TYPES];
    let mut t = 0;
    while t < TYPES {
        let mut i = 0;
        while i < EVAL_IMAGES[t].len() {
            sets[t] |= 1 << EVAL_IMAGES[t][i];
            i += 1;
        }
        t += 1;
    }
    sets
};

/// The folded readings [`PatternEval`] sums, one per distinct instance: the images of
/// [`EVAL_IMAGES`], type by type.
const READINGS: usize = {
    let mut n = 0;
    let mut t = 0;
    while t < TYPES {
        n += EVAL_IMAGES[t].len();
        t += 1;
    }
    n
};

/// Where image `k` of a board puts the disc on `sq` (the images of [`images`], square by
/// square: `images(1 << sq)[k] == 1 << image_square(k, sq)`).
const fn image_square(k: usize, sq: usize) -> usize {
    let (r, c) = (sq / 8, sq % 8);
    let (r, c) = match k {
        0 => (r, c),
        1 => (7 - r, c),
        2 => (r, 7 - c),
        3 => (7 - r, 7 - c),
        4 => (c, r),
        5 => (7 - c, r),
        6 => (c, 7 - r),
        _ => (7 - c, 7 - r),
    };
    r * 8 + c
}

/// Each folded reading: its type, the offset of the type's block, and its squares in the
/// canonical order of the type (square `i` is the base-3 digit `3^i`), as [`instance`] lists
/// them.
struct Reading {
    offset: u32,
    len: usize,
    squares: [u8; MAX_LEN],
}

/// The folded readings, type by type in the order of [`EVAL_IMAGES`].
const READING_LIST: [Reading; READINGS] = {
    let mut list = [const {
        Reading {
            offset: 0,
            len: 0,
            squares: [0; MAX_LEN],
        }
    }; READINGS];
    let mut f = 0;
    let mut t = 0;
    while t < TYPES {
        let mut j = 0;
        while j < EVAL_IMAGES[t].len() {
            let k = EVAL_IMAGES[t][j];
            let canonical = PATTERN_TYPES[t].squares;
            list[f].offset = OFFSETS[t] as u32;
            list[f].len = canonical.len();
            let mut i = 0;
            while i < canonical.len() {
                // The square that image k reads as canonical square i.
                let mut sq = 0;
                while image_square(k, sq) != canonical[i] as usize {
                    sq += 1;
                }
                list[f].squares[i] = sq as u8;
                i += 1;
            }
            f += 1;
            j += 1;
        }
        t += 1;
    }
    list
};

/// [`PatternState`]'s lanes: the readings, padded to a whole number of 512-bit vectors (the
/// padding is always 0 and never read).
const LANES: usize = READINGS.div_ceil(16) * 16;

/// For each square, its digit's weight (`3^i`) in each reading it takes part in, 0 in the
/// others: what a disc on it adds to black's half of every reading at once.
static SQUARE_DIGITS: [[u32; LANES]; 64] = {
    let mut table = [[0u32; LANES]; 64];
    let mut f = 0;
    while f < READINGS {
        let mut i = 0;
        while i < READING_LIST[f].len {
            let sq = READING_LIST[f].squares[i] as usize;
            table[sq][f] = pow3(i) as u32;
            i += 1;
        }
        f += 1;
    }
    table
};

/// Each lane's block offset in a phase (0 for the padding).
static LANE_OFFSETS: [u32; LANES] = {
    let mut offsets = [0u32; LANES];
    let mut f = 0;
    while f < READINGS {
        offsets[f] = READING_LIST[f].offset;
        f += 1;
    }
    offsets
};

/// The configurations of [`PatternEval`]'s folded readings of a position, kept up to date move
/// by move as Edax keeps its features: each reading's base-3 number over its squares, black's
/// discs in the low 16 bits and white's in the high 16, whoever is to move (the side to move
/// picks which half weighs 1 and which 2 when the evaluation reads them). After a move only the
/// squares that changed count: per square one vector addition over every reading
/// ([`SQUARE_DIGITS`]), instead of reading the board through its 8 images;
/// [`PatternEval::evaluate_tracked`] then costs the 46 table reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(64))]
pub struct PatternState {
    configs: [u32; LANES],
}

impl Default for PatternState {
    fn default() -> Self {
        PatternState {
            configs: [0; LANES],
        }
    }
}

impl PatternState {
    /// The configurations of `pos`, read square by square.
    pub fn of(pos: &Othello) -> PatternState {
        let (black, white) = (pos.black(), pos.white());
        let mut configs = [0u32; LANES];
        for (config, reading) in configs.iter_mut().zip(&READING_LIST) {
            for (i, &sq) in reading.squares[..reading.len].iter().enumerate() {
                let digit = (black >> sq & 1) as u32 + (((white >> sq & 1) as u32) << 16);
                *config += pow3(i) as u32 * digit;
            }
        }
        PatternState { configs }
    }

    /// The configurations of `child`, a position one move (or pass) after `parent`, whose
    /// configurations these are.
    #[inline]
    pub fn after(&self, parent: &Othello, child: &Othello) -> PatternState {
        let mut next = *self;
        let (b0, w0, b1, w1) = (parent.black(), parent.white(), child.black(), child.white());
        let mut changed = (b0 ^ b1) | (w0 ^ w1);
        while changed != 0 {
            let sq = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            // +1, 0 or -1 in each half (wrapping: a -1 borrows from nothing the true
            // configurations do not hold, so the sum is exact).
            let db = ((b1 >> sq & 1) as u32).wrapping_sub((b0 >> sq & 1) as u32);
            let dw = ((w1 >> sq & 1) as u32).wrapping_sub((w0 >> sq & 1) as u32);
            let factor = db.wrapping_add(dw << 16);
            for (c, &digit) in next.configs.iter_mut().zip(&SQUARE_DIGITS[sq]) {
                *c = c.wrapping_add(digit.wrapping_mul(factor));
            }
        }
        next
    }
}

/// The squares that image `k` reads as the canonical squares of type `t`, in canonical order:
/// the instance of `t` in image `k`.
fn instance(t: usize, k: usize) -> Vec<u8> {
    PATTERN_TYPES[t]
        .squares
        .iter()
        .map(|&c| {
            (0..64u8)
                .find(|&sq| images(1 << sq)[k] == 1 << c)
                .expect("an image is a permutation of the squares")
        })
        .collect()
}

/// For each type, the configuration maps of the images that read its canonical instance: for
/// each such image, `map[c]` is the configuration that image reads when the canonical reading
/// is `c`. Every instance is read through as many images, with the same maps (relative to one
/// of its readings), so `Σ over these maps of w[map[c]]` is the weight of the instance read as
/// `c` once, with every other reading of it folded in. Also checks [`EVAL_IMAGES`]: one image
/// per instance.
fn fold_permutations() -> Vec<Vec<Vec<u32>>> {
    (0..TYPES)
        .map(|t| {
            let canonical = instance(t, 0);
            let sorted = |mut v: Vec<u8>| {
                v.sort_unstable();
                v
            };
            let instances: Vec<Vec<u8>> = (0..IMAGES).map(|k| instance(t, k)).collect();
            let readers: Vec<&Vec<u8>> = instances
                .iter()
                .filter(|i| sorted(i.to_vec()) == sorted(canonical.clone()))
                .collect();
            let mut chosen: Vec<Vec<u8>> = EVAL_IMAGES[t]
                .iter()
                .map(|&k| sorted(instances[k].clone()))
                .collect();
            chosen.sort();
            chosen.dedup();
            assert_eq!(
                chosen.len() * readers.len(),
                IMAGES,
                "EVAL_IMAGES of {} must hold one image per instance",
                PATTERN_TYPES[t].name
            );
            let len = canonical.len();
            readers
                .iter()
                .map(|reader| {
                    // Square i of this reading is square sigma[i] of the canonical one.
                    let sigma: Vec<usize> = reader
                        .iter()
                        .map(|sq| canonical.iter().position(|c| c == sq).unwrap())
                        .collect();
                    let powers: Vec<usize> = (0..len).map(pow3).collect();
                    (0..pow3(len))
                        .map(|c| {
                            let mut digits = [0; MAX_LEN];
                            let mut rest = c;
                            for d in digits.iter_mut().take(len) {
                                *d = rest % 3;
                                rest /= 3;
                            }
                            (0..len)
                                .map(|i| digits[sigma[i]] * powers[i])
                                .sum::<usize>() as u32
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// The folded integer table of a [`PatternEval`]: 2 bytes an entry when every entry fits,
/// else 4.
#[derive(Clone)]
enum Table {
    Narrow(Arc<[i16]>),
    Wide(Arc<[i32]>),
}

/// The pattern evaluation of [`PatternWeights`], in integers (see the module documentation).
/// Cloning shares the integer table.
///
/// The table is folded: an instance that [`feature_indices`] reads through several images (an
/// edge, forwards and backwards) is read once here, from an entry that holds the sum of the
/// integer weights of all its readings — 46 lookups per position instead of 89, the same sum.
/// It has the layout of [`PatternWeights::values`], with 2-byte entries (327 KiB per phase)
/// when every entry lies within ±32 767 — folded sums of weights within about ±8 — else 4-byte
/// entries (654 KiB per phase); the smaller table is faster (fewer cache misses).
#[derive(Clone)]
pub struct PatternEval {
    /// Per phase, per configuration: Σ round(w · SCALE) over the readings folded into it.
    table: Table,
    phases: usize,
    bound: i32,
}

impl fmt::Debug for PatternEval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let table = match &self.table {
            Table::Narrow(t) => format!("[{} i16]", t.len()),
            Table::Wide(t) => format!("[{} i32]", t.len()),
        };
        f.debug_struct("PatternEval")
            .field("phases", &self.phases)
            .field("table", &format_args!("{table}"))
            .field("bound", &self.bound)
            .finish()
    }
}

impl PatternEval {
    /// The evaluator of `weights`. Each weight becomes `round(w · SCALE)`; the entries of the
    /// folded table (sums of up to 4 of these) saturate at the range of `i32`, which only
    /// weights beyond ±524 288 can reach (files hold at most ±[`MAX_WEIGHT`]; weights beyond it
    /// are clamped to it first). Takes about 2 ms a phase, and a temporary 5 bytes a weight.
    ///
    /// # Panics
    /// When the phases are not in 1..=[`MAX_PHASES`], when `weights.values` does not hold
    /// `phases ·` [`WEIGHTS_PER_PHASE`] values ([`PatternWeights::load`] and
    /// [`PatternWeights::zeros`] always give such weights), or when a weight is not finite.
    pub fn new(weights: &PatternWeights) -> Self {
        let phases = weights.phases;
        assert!(
            (1..=MAX_PHASES).contains(&phases),
            "{phases} phases in {}; allowed: 1..={MAX_PHASES}",
            weights.origin
        );
        assert_eq!(
            weights.values.len(),
            phases * WEIGHTS_PER_PHASE,
            "{} pattern weights from {} for {phases} phases of {WEIGHTS_PER_PHASE}",
            weights.values.len(),
            weights.origin
        );
        assert!(
            weights.values.iter().all(|w| w.is_finite()),
            "non-finite pattern weight in {}",
            weights.origin
        );
        let int = |w: f32| ((w as f64).clamp(-MAX_WEIGHT, MAX_WEIGHT) * SCALE).round() as i64;
        let folds = fold_permutations();
        let mut table = vec![0i32; phases * WEIGHTS_PER_PHASE];
        let mut bound = 0i64;
        for (block, out) in weights
            .values
            .chunks_exact(WEIGHTS_PER_PHASE)
            .zip(table.chunks_exact_mut(WEIGHTS_PER_PHASE))
        {
            let bias = int(block[BIAS_INDEX]);
            out[BIAS_INDEX] = bias as i32;
            let mut phase_bound = bias.abs();
            for (t, ty) in PATTERN_TYPES.iter().enumerate() {
                let range = OFFSETS[t]..OFFSETS[t] + pow3(ty.len);
                let (w, out) = (&block[range.clone()], &mut out[range]);
                let largest = w.iter().map(|&w| int(w).abs()).max().unwrap_or(0);
                phase_bound += IMAGES as i64 * largest;
                for (c, entry) in out.iter_mut().enumerate() {
                    let sum: i64 = folds[t].iter().map(|map| int(w[map[c] as usize])).sum();
                    *entry = sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
                }
            }
            bound = bound.max(phase_bound);
        }
        let narrow: Option<Arc<[i16]>> = table.iter().map(|&e| i16::try_from(e).ok()).collect();
        PatternEval {
            table: match narrow {
                Some(narrow) => Table::Narrow(narrow),
                None => Table::Wide(table.into()),
            },
            phases,
            bound: bound.clamp(1, EVAL_LIMIT as i64) as i32,
        }
    }

    /// The number of phases.
    pub fn phases(&self) -> usize {
        self.phases
    }

    /// Whether the folded table has 2-byte entries (see [`PatternEval`]).
    pub fn is_narrow(&self) -> bool {
        matches!(self.table, Table::Narrow(_))
    }

    /// [`Evaluator::evaluate`] of `pos` from its configurations `state` ([`PatternState`]),
    /// without reading the board: the same value.
    #[inline]
    pub fn evaluate_tracked(&self, pos: &Othello, state: &PatternState) -> i32 {
        let phase = phase_of(pos, self.phases);
        let white = pos.side == crate::games::Side::Second;
        let sum = match &self.table {
            Table::Narrow(table) => tracked_sum(&table[phase * WEIGHTS_PER_PHASE..], state, white),
            Table::Wide(table) => tracked_sum(&table[phase * WEIGHTS_PER_PHASE..], state, white),
        };
        let bound = self.bound as i64;
        sum.clamp(-bound, bound) as i32
    }

    /// The unclamped sum of the integer weights of the lookups of `pos`: Σ round(w · SCALE)
    /// over [`feature_indices`] in the phase of `pos`.
    #[inline]
    pub fn raw_sum(&self, pos: &Othello) -> i64 {
        let phase = phase_of(pos, self.phases);
        match &self.table {
            Table::Narrow(table) => folded_sum(&table[phase * WEIGHTS_PER_PHASE..], pos),
            Table::Wide(table) => folded_sum(&table[phase * WEIGHTS_PER_PHASE..], pos),
        }
    }
}

/// The sum of the entries of a phase's folded `table` that `pos` reads.
#[inline(always)]
fn folded_sum<W: Copy + Into<i64>>(table: &[W], pos: &Othello) -> i64 {
    let table = &table[..WEIGHTS_PER_PHASE];
    let pi = images(pos.player);
    let oi = images(pos.opponent);
    // One call per type, so that every loop has constant bounds and unrolls.
    table[BIAS_INDEX].into()
        + type_sum::<0, W>(table, &pi, &oi)
        + type_sum::<1, W>(table, &pi, &oi)
        + type_sum::<2, W>(table, &pi, &oi)
        + type_sum::<3, W>(table, &pi, &oi)
        + type_sum::<4, W>(table, &pi, &oi)
        + type_sum::<5, W>(table, &pi, &oi)
        + type_sum::<6, W>(table, &pi, &oi)
        + type_sum::<7, W>(table, &pi, &oi)
        + type_sum::<8, W>(table, &pi, &oi)
        + type_sum::<9, W>(table, &pi, &oi)
        + type_sum::<10, W>(table, &pi, &oi)
}

/// The folded table's entries for type `T` in the images of `EVAL_IMAGES[T]`.
#[inline(always)]
fn type_sum<const T: usize, W: Copy + Into<i64>>(
    table: &[W],
    pi: &[u64; IMAGES],
    oi: &[u64; IMAGES],
) -> i64 {
    let mut sum = 0;
    for k in 0..IMAGES {
        if EVAL_IMAGE_SET[T] & (1 << k) != 0 {
            sum += table[lookup::<T>(pi[k], oi[k], &pext)].into();
        }
    }
    sum
}

/// The sum of the entries of a phase's folded `table` that the configurations `state` read,
/// with white (`white`) or black to move: the side to move's discs are the digits 1.
#[inline(always)]
fn tracked_sum<W: Copy + Into<i64>>(table: &[W], state: &PatternState, white: bool) -> i64 {
    let table = &table[..WEIGHTS_PER_PHASE];
    // The indices first, every lane at once: the side to move's half to the low 16 bits.
    let turn = if white { 16 } else { 0 };
    let mut index = [0u32; LANES];
    for ((i, &c), &offset) in index.iter_mut().zip(&state.configs).zip(&LANE_OFFSETS) {
        let c = c.rotate_left(turn);
        *i = offset + (c & 0xffff) + 2 * (c >> 16);
    }
    let mut sum: i64 = table[BIAS_INDEX].into();
    for &i in &index[..READINGS] {
        sum += table[i as usize].into();
    }
    sum
}

impl Evaluator<Othello> for PatternEval {
    #[inline]
    fn evaluate(&self, pos: &Othello) -> i32 {
        let bound = self.bound as i64;
        self.raw_sum(pos).clamp(-bound, bound) as i32
    }

    fn bound(&self) -> i32 {
        self.bound
    }

    fn tracks(&self) -> bool {
        true
    }

    #[inline]
    fn track(&self, pos: &Othello, state: &mut EvalState) {
        *state = PatternState::of(pos);
    }

    #[inline]
    fn track_move(
        &self,
        parent: &Othello,
        child: &Othello,
        state: &EvalState,
        out: &mut EvalState,
    ) {
        *out = state.after(parent, child);
    }

    #[inline]
    fn evaluate_tracked(&self, pos: &Othello, state: &EvalState) -> i32 {
        PatternEval::evaluate_tracked(self, pos, state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Game, MoveList, Side};
    use proptest::prelude::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Every position (not finished) of `games` random games, played with the game's own move
    /// generation.
    fn random_positions(seed: u64, games: usize) -> Vec<Othello> {
        random_lines(seed, games)
            .into_iter()
            .map(|(pos, _)| pos)
            .collect()
    }

    fn random_weights(phases: usize, seed: u64) -> PatternWeights {
        random_weights_within(phases, seed, 1.0)
    }

    fn random_weights_within(phases: usize, seed: u64, magnitude: f32) -> PatternWeights {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        PatternWeights {
            phases,
            values: (0..phases * WEIGHTS_PER_PHASE)
                .map(|_| rng.random_range(-magnitude..magnitude))
                .collect(),
            origin: "random".into(),
        }
    }

    /// The 8 symmetries of the board as maps of (row, column).
    fn symmetry(g: usize, (r, c): (usize, usize)) -> (usize, usize) {
        let (r, c) = if g & 4 != 0 { (c, r) } else { (r, c) };
        let r = if g & 2 != 0 { 7 - r } else { r };
        let c = if g & 1 != 0 { 7 - c } else { c };
        (r, c)
    }

    /// Every instance of every type: its squares, in the order of the canonical list, under
    /// each of the 8 symmetries (with repeats).
    fn naive_instances() -> Vec<(usize, Vec<usize>)> {
        let mut out = Vec::new();
        for (t, ty) in PATTERN_TYPES.iter().enumerate() {
            for g in 0..8 {
                let squares = ty
                    .squares
                    .iter()
                    .map(|&s| {
                        let (r, c) = symmetry(g, (s as usize / 8, s as usize % 8));
                        r * 8 + c
                    })
                    .collect();
                out.push((t, squares));
            }
        }
        out
    }

    /// The lookups of `pos`, sorted, computed square by square.
    fn naive_indices(pos: &Othello, instances: &[(usize, Vec<usize>)]) -> Vec<u32> {
        // Block offsets, recomputed here.
        let mut offsets = vec![0usize];
        for ty in PATTERN_TYPES {
            offsets.push(offsets.last().unwrap() + 3usize.pow(ty.len as u32));
        }
        let bias = *offsets.last().unwrap();
        assert_eq!(bias + 1, WEIGHTS_PER_PHASE);
        let digit = |sq: usize| {
            if pos.player >> sq & 1 == 1 {
                1
            } else if pos.opponent >> sq & 1 == 1 {
                2
            } else {
                0
            }
        };
        let mut out: Vec<u32> = instances
            .iter()
            .map(|(t, squares)| {
                let config: usize = squares
                    .iter()
                    .enumerate()
                    .map(|(i, &sq)| digit(sq) * 3usize.pow(i as u32))
                    .sum();
                (offsets[*t] + config) as u32
            })
            .collect();
        out.push(bias as u32);
        out.sort_unstable();
        out
    }

    fn indices(pos: &Othello) -> [u32; FEATURES_PER_POSITION] {
        let mut out = [0; FEATURES_PER_POSITION];
        feature_indices(pos, &mut out);
        out
    }

    #[test]
    fn weights_in_more_phases_evaluate_alike_and_in_fewer_take_the_middle() {
        // Phases that split the old ones evaluate every position as before.
        let w = random_weights(6, 21);
        let eval = PatternEval::new(&w);
        assert_eq!(w.in_phases(6).values, w.values);
        for q in [12, 30, 60] {
            let finer = PatternEval::new(&w.in_phases(q));
            for pos in random_positions(22, 10) {
                assert_eq!(finer.evaluate(&pos), eval.evaluate(&pos), "{q} phases");
            }
        }
        // Two phases from six: the middle of 0..=29 discs played (15) is in old phase 1, of
        // 30..=59 (45) in old phase 4.
        let coarse = w.in_phases(2);
        assert_eq!(
            coarse.values[..WEIGHTS_PER_PHASE],
            w.values[WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE]
        );
        assert_eq!(
            coarse.values[WEIGHTS_PER_PHASE..],
            w.values[4 * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE]
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(TYPES, 11);
        assert_eq!(WEIGHTS_PER_PHASE, 167_266);
        assert_eq!(FEATURES_PER_POSITION, 89);
        for ty in PATTERN_TYPES {
            assert_eq!(ty.len, ty.squares.len());
        }
        assert_eq!(split_index(0), Some((Some(0), 0)));
        assert_eq!(split_index(19_683), Some((Some(1), 0)));
        assert_eq!(split_index(BIAS_INDEX), Some((None, 0)));
        assert_eq!(split_index(BIAS_INDEX - 1), Some((Some(10), 80)));
        assert_eq!(split_index(WEIGHTS_PER_PHASE), None);
        assert_eq!(describe_index(2 + 2 * 3), "corner3x3 oo.......");
        assert_eq!(describe_index(BIAS_INDEX), "bias");
    }

    #[test]
    fn the_start_position_by_hand() {
        let start = Othello::start();
        let idx = indices(&start);
        assert_eq!(idx[FEATURES_PER_POSITION - 1] as usize, BIAS_INDEX);
        // row4, identity: a4..h4 with d4 white (opponent, digit 2 at position 3) and e4 black
        // (side to move, digit 1 at position 4).
        let row4 = OFFSETS[5] as u32;
        assert_eq!(idx[5 * 8], row4 + 2 * 27 + 81);
        // The corners are empty: the 8 corner3x3 lookups are configuration 0.
        assert!(idx[..8].iter().all(|&i| i == 0));
        // diag8 a1..h8 holds d4 (white) and e5 (white).
        assert_eq!(idx[6 * 8], OFFSETS[6] as u32 + 2 * 27 + 2 * 81);
    }

    #[test]
    fn feature_indices_match_a_square_by_square_reading() {
        let instances = naive_instances();
        let positions = random_positions(1, 60);
        assert!(positions.len() > 3000, "{}", positions.len());
        for pos in &positions {
            let mut fast = indices(pos).to_vec();
            assert!(fast.iter().all(|&i| (i as usize) < WEIGHTS_PER_PHASE));
            fast.sort_unstable();
            assert_eq!(fast, naive_indices(pos, &instances), "{pos:?}");
        }
        // The types that a symmetry maps onto themselves are read more than once per instance.
        let distinct = |t: usize| {
            let mut sets: Vec<Vec<usize>> = instances
                .iter()
                .filter(|(u, _)| *u == t)
                .map(|(_, s)| {
                    let mut s = s.clone();
                    s.sort();
                    s
                })
                .collect();
            sets.sort();
            sets.dedup();
            sets.len()
        };
        let counts: Vec<usize> = (0..TYPES).map(distinct).collect();
        assert_eq!(counts, [4, 8, 4, 4, 4, 4, 2, 4, 4, 4, 4]);
    }

    #[test]
    fn the_portable_pext_gives_the_same_indices() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..10_000 {
            let x: u64 = rng.random();
            let mask: u64 = rng.random::<u64>() & rng.random::<u64>();
            // The definition, bit by bit.
            let mut expected = 0;
            let mut k = 0;
            for sq in 0..64 {
                if mask >> sq & 1 == 1 {
                    expected |= (x >> sq & 1) << k;
                    k += 1;
                }
            }
            assert_eq!(pext_portable(x, mask), expected);
            assert_eq!(pext(x, mask), expected);
        }
        for pos in random_positions(3, 20) {
            let mut portable = [0u32; FEATURES_PER_POSITION];
            indices_with(&pos, &mut portable, pext_portable);
            assert_eq!(portable, indices(&pos));
        }
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    #[test]
    fn the_portable_pext_equals_the_instruction() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for _ in 0..10_000 {
            let x: u64 = rng.random();
            let mask: u64 = rng.random();
            // SAFETY: BMI2 is enabled for this build.
            #[allow(unused_unsafe)]
            let fast = unsafe { core::arch::x86_64::_pext_u64(x, mask) };
            assert_eq!(pext_portable(x, mask), fast);
        }
    }

    #[test]
    fn phases_follow_the_empty_squares() {
        let start = Othello::start();
        assert_eq!(phase_of(&start, 1), 0);
        assert_eq!(phase_of(&start, 60), 0);
        let mut pos = start;
        pos.player = u64::MAX >> 1; // one empty square
        pos.opponent = 0;
        assert_eq!(phase_of(&pos, 60), 59);
        assert_eq!(phase_of(&pos, 4), 3);
        assert_eq!(phase_of(&pos, 1), 0);
        pos.player = 0xFF; // 56 empties: min(4, 59) * 10 / 60 = 0
        assert_eq!(phase_of(&pos, 10), 0);
        pos.player = 0; // 64 empties, beyond the start
        assert_eq!(phase_of(&pos, 60), 0);
        for pos in random_positions(5, 10) {
            let empties = 64 - (pos.player | pos.opponent).count_ones() as usize;
            for p in 1..=60 {
                let phase = phase_of(&pos, p);
                assert!(phase < p);
                assert_eq!(phase, (60 - empties).min(59) * p / 60);
            }
        }
    }

    /// Σ round(w · SCALE) over the naive lookups, clamped.
    fn naive_eval(
        weights: &PatternWeights,
        pos: &Othello,
        instances: &[(usize, Vec<usize>)],
    ) -> i64 {
        let phase = phase_of(pos, weights.phases);
        naive_indices(pos, instances)
            .iter()
            .map(|&i| {
                (weights.values[phase * WEIGHTS_PER_PHASE + i as usize] as f64 * 1024.0).round()
                    as i64
            })
            .sum()
    }

    #[test]
    fn evaluations_are_symmetric_and_the_naive_sum() {
        let instances = naive_instances();
        // Weights within ±1 fold into 2-byte entries, within ±20 they need 4 bytes.
        for (phases, seed, magnitude, narrow) in [
            (1, 6, 1.0, true),
            (4, 7, 1.0, true),
            (60, 8, 1.0, true),
            (1, 9, 20.0, false),
            (3, 10, 20.0, false),
        ] {
            let weights = random_weights_within(phases, seed, magnitude);
            let eval = PatternEval::new(&weights);
            assert_eq!(eval.phases(), phases);
            assert_eq!(eval.is_narrow(), narrow);
            assert!(eval.bound() > 1 && eval.bound() <= EVAL_LIMIT);
            for pos in random_positions(seed, 8) {
                let score = eval.evaluate(&pos);
                let bound = eval.bound() as i64;
                let naive = naive_eval(&weights, &pos, &instances);
                assert_eq!(score as i64, naive.clamp(-bound, bound));
                assert_eq!(eval.raw_sum(&pos), naive);
                assert!(score.abs() <= eval.bound());
                for image in pos.symmetries() {
                    assert_eq!(eval.evaluate(&image), score, "{pos:?}");
                }
            }
        }
    }

    #[test]
    fn the_readings_are_the_instances_of_the_folded_images() {
        for k in 0..IMAGES {
            for sq in 0..64 {
                assert_eq!(images(1 << sq)[k], 1 << image_square(k, sq), "image {k}");
            }
        }
        let mut f = 0;
        for t in 0..TYPES {
            for &k in EVAL_IMAGES[t] {
                let r = &READING_LIST[f];
                assert_eq!(r.squares[..r.len], instance(t, k)[..], "type {t} image {k}");
                assert_eq!(r.offset as usize, OFFSETS[t]);
                f += 1;
            }
        }
        assert_eq!(f, READINGS);
        assert_eq!(READINGS, 46);
    }

    /// Every position of a random game with its successor, passes included.
    fn random_lines(seed: u64, games: usize) -> Vec<(Othello, Othello)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pairs = Vec::new();
        let mut moves = MoveList::new();
        for _ in 0..games {
            let mut pos = Othello::start();
            loop {
                moves.clear();
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                let next = pos.play(moves[rng.random_range(0..moves.len())]);
                pairs.push((pos, next));
                pos = next;
            }
        }
        pairs
    }

    #[test]
    fn tracked_evaluations_are_the_evaluations() {
        // Narrow and wide tables, one phase and many.
        for (phases, seed, magnitude) in [(1, 21, 1.0), (6, 22, 1.0), (60, 23, 1.0), (3, 24, 20.0)]
        {
            let eval = PatternEval::new(&random_weights_within(phases, seed, magnitude));
            let mut state = PatternState::of(&Othello::start());
            let mut passes = 0;
            for (pos, next) in random_lines(seed, 20) {
                assert_eq!(state, PatternState::of(&pos));
                assert_eq!(eval.evaluate_tracked(&pos, &state), eval.evaluate(&pos));
                let after = state.after(&pos, &next);
                assert_eq!(after, PatternState::of(&next), "{pos:?} -> {next:?}");
                passes += usize::from(next.player == pos.opponent);
                // The game's end starts the next game from the start.
                state = if next.outcome().is_some() {
                    PatternState::of(&Othello::start())
                } else {
                    after
                };
            }
            assert!(passes > 0, "no pass was tried");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Any board, either side to move, any disc flipped or placed: the configurations
        /// after the change are those read from scratch, and the evaluation from them is the
        /// evaluation.
        #[test]
        fn tracked_state_follows_any_change(
            black in any::<u64>(),
            white_bits in any::<u64>(),
            changes in proptest::collection::vec((0usize..64, 0u8..3), 1..6),
            white_to_move in any::<bool>(),
            seed in 0u64..4,
        ) {
            let side = if white_to_move { Side::Second } else { Side::First };
            let board = |black: u64, white: u64, side: Side| {
                let mut pos = Othello::start();
                pos.side = side;
                (pos.player, pos.opponent) = if side == Side::First { (black, white) } else { (white, black) };
                pos
            };
            let white = white_bits & !black;
            let before = board(black, white, side);
            let (mut b, mut w) = (black, white);
            for (sq, what) in changes {
                let bit = 1u64 << sq;
                (b, w) = match what {
                    0 => (b & !bit, w & !bit),
                    1 => (b | bit, w & !bit),
                    _ => (b & !bit, w | bit),
                };
            }
            let after = board(b, w, side.opponent());
            let state = PatternState::of(&before).after(&before, &after);
            prop_assert_eq!(state, PatternState::of(&after));
            let eval = PatternEval::new(&random_weights(2, seed));
            prop_assert_eq!(eval.evaluate_tracked(&after, &state), eval.evaluate(&after));
        }
    }

    #[test]
    fn the_bias_and_the_bound() {
        let mut weights = PatternWeights::zeros(2);
        let zero = PatternEval::new(&weights);
        assert_eq!(zero.bound(), 1);
        assert_eq!(zero.evaluate(&Othello::start()), 0);
        weights.values[BIAS_INDEX] = 0.5;
        weights.values[WEIGHTS_PER_PHASE + BIAS_INDEX] = -0.25;
        // corner3x3, empty corner: read 8 times at the start.
        weights.values[0] = 0.001;
        let eval = PatternEval::new(&weights);
        assert_eq!(eval.evaluate(&Othello::start()), 512 + 8);
        let mut late = Othello::start();
        late.player = u64::MAX >> 4;
        late.opponent = 0;
        assert_eq!(eval.evaluate(&late), -256);
        assert_eq!(eval.bound(), 512 + 8);
        // A huge weight: the bound stops at EVAL_LIMIT and evaluations are clamped to it.
        assert!(eval.is_narrow());
        weights.values[3] = 1e6;
        let eval = PatternEval::new(&weights);
        assert!(!eval.is_narrow());
        assert_eq!(eval.bound(), EVAL_LIMIT);
        let mut pos = Othello::start();
        // b1, the second square of corner3x3: configuration 3 in the identity image, 27 (a2,
        // the fourth square) in the transposed one; the 6 other readings of the corner are
        // empty (configuration 0).
        pos.player |= 2;
        assert_eq!(eval.evaluate(&pos), EVAL_LIMIT);
        assert_eq!(eval.raw_sum(&pos), 1_024_000_000 + 512 + 6);
        pos.player = !pos.opponent;
        assert_eq!(eval.evaluate(&pos), -256);
    }

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn binary_and_csv_round_trips() {
        let dir = tmp();
        for weights in [random_weights(3, 9), PatternWeights::zeros(1), {
            let mut sparse = PatternWeights::zeros(60);
            let mut rng = ChaCha8Rng::seed_from_u64(10);
            for _ in 0..5000 {
                let at = rng.random_range(0..sparse.values.len());
                sparse.values[at] =
                    rng.random_range(-3.0f32..3.0) * 10f32.powi(rng.random_range(-20..6));
            }
            sparse.values[BIAS_INDEX] = 1e-30;
            sparse.values[59 * WEIGHTS_PER_PHASE + BIAS_INDEX] = -1e6;
            sparse
        }] {
            let bin = dir.path().join("w.bin");
            weights.write_binary(&bin).unwrap();
            assert!(PatternWeights::is_pattern_file(&bin));
            assert_eq!(
                std::fs::metadata(&bin).unwrap().len() as usize,
                20 + 4 * weights.values.len()
            );
            let back = PatternWeights::load(&bin).unwrap();
            assert_eq!(back.phases, weights.phases);
            assert_eq!(back.values, weights.values);
            assert_eq!(back.origin, bin.display().to_string());
            let csv = dir.path().join("w.csv");
            weights.write_csv(&csv).unwrap();
            assert!(PatternWeights::is_pattern_file(&csv));
            let back = PatternWeights::load(&csv).unwrap();
            assert_eq!(back.phases, weights.phases);
            assert!(
                back.values
                    .iter()
                    .zip(&weights.values)
                    .all(|(a, b)| a.to_bits() == b.to_bits() || (*a == 0.0 && *b == 0.0))
            );
            let rows = std::fs::read_to_string(&csv).unwrap().lines().count();
            assert_eq!(
                rows,
                3 + weights.values.iter().filter(|&&v| v != 0.0).count()
            );
        }
        // No temporary files are left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let wrong = PatternWeights {
            phases: 2,
            values: vec![0.0; 3],
            origin: "x".into(),
        };
        assert!(wrong.write_binary(&dir.path().join("x.bin")).is_err());
        assert!(wrong.write_csv(&dir.path().join("x.csv")).is_err());
        assert!(!dir.path().join("x.bin").exists());
    }

    #[test]
    fn csv_as_written_by_hand() {
        let text = "# joute pattern weights, phases = 2\r\n# tuned by hand\n\nphase,pattern,config,weight\n0,corner3x3,x.o......,1.5\n1, bias , , -2\n1,diag4,80,0.25\n1,edge2x,XO-.......,3\n";
        let w = PatternWeights::parse(text.as_bytes(), "w.csv").unwrap();
        assert_eq!(w.phases, 2);
        assert_eq!(w.values[1 + 2 * 9], 1.5);
        assert_eq!(w.values[WEIGHTS_PER_PHASE + BIAS_INDEX], -2.0);
        assert_eq!(w.values[WEIGHTS_PER_PHASE + BIAS_INDEX - 1], 0.25);
        assert_eq!(w.values[WEIGHTS_PER_PHASE + OFFSETS[2] + 1 + 2 * 3], 3.0);
        assert_eq!(w.values.iter().filter(|&&v| v != 0.0).count(), 4);
        // Only the header: every weight 0.
        let w = PatternWeights::parse(
            b"# joute pattern weights, phases = 60\nphase,pattern,config,weight",
            "w.csv",
        )
        .unwrap();
        assert_eq!(
            w,
            PatternWeights {
                origin: "w.csv".into(),
                ..PatternWeights::zeros(60)
            }
        );
    }

    fn error(bytes: &[u8]) -> String {
        PatternWeights::parse(bytes, "w").unwrap_err().to_string()
    }

    fn csv(rows: &str) -> String {
        error(
            format!("# joute pattern weights, phases = 2\nphase,pattern,config,weight\n{rows}")
                .as_bytes(),
        )
    }

    fn binary(version: u32, phases: u32, per_phase: u32, weights: usize) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&version.to_le_bytes());
        b.extend_from_slice(&phases.to_le_bytes());
        b.extend_from_slice(&per_phase.to_le_bytes());
        b.resize(b.len() + 4 * weights, 0);
        b
    }

    #[test]
    fn binary_errors() {
        let wpp = WEIGHTS_PER_PHASE as u32;
        let e = error(b"JOUTEPA");
        assert!(
            e.starts_with("w: not a pattern weights file") && e.contains("JOUTEPA"),
            "{e}"
        );
        let e = error(b"game = \"othello\"\n");
        assert!(
            e.starts_with("w: not a pattern weights file") && e.contains("JOUTEPAT"),
            "{e}"
        );
        let e = error(b"\x00\x01");
        assert!(e.contains("\\x00\\x01"), "{e}");
        let e = error(b"JOUTEPAT\x01\x00");
        assert!(e.starts_with("w: truncated header: 10 bytes"), "{e}");
        let e = error(&binary(2, 1, wpp, WEIGHTS_PER_PHASE));
        assert_eq!(e, "w: format version 2; this joute reads version 1");
        let e = error(&binary(1, 0, wpp, 0));
        assert_eq!(e, "w: 0 phases; allowed: 1..=60");
        let e = error(&binary(1, 61, wpp, 0));
        assert_eq!(e, "w: 61 phases; allowed: 1..=60");
        let e = error(&binary(1, 1, 1000, 1000));
        assert!(
            e.contains("1000 weights per phase") && e.contains("167266"),
            "{e}"
        );
        let e = error(&binary(1, 2, wpp, WEIGHTS_PER_PHASE));
        assert!(
            e.starts_with("w: wrong size: the file holds 167266 weights after its 20-byte header, but 2 phases of 167266 weights need 334532"),
            "{e}"
        );
        let mut b = binary(1, 1, wpp, WEIGHTS_PER_PHASE);
        b.push(0);
        let e = error(&b);
        assert!(e.contains("holds 167266 weights and 1 stray bytes"), "{e}");
        let mut b = binary(1, 2, wpp, 2 * WEIGHTS_PER_PHASE);
        let at = HEADER_LEN + 4 * (WEIGHTS_PER_PHASE + 3);
        b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        let e = error(&b);
        assert!(
            e.contains("weight 167269 (phase 1, corner3x3 .x.......)") && e.contains("NaN"),
            "{e}"
        );
        b[at..at + 4].copy_from_slice(&f32::NEG_INFINITY.to_le_bytes());
        assert!(error(&b).contains("infinite"));
        b[at..at + 4].copy_from_slice(&2e6f32.to_le_bytes());
        assert!(error(&b).contains("too large"));
        let dir = tmp();
        let missing = dir.path().join("missing.bin");
        let e = PatternWeights::load(&missing).unwrap_err().to_string();
        assert!(
            e.starts_with(&missing.display().to_string()) && e.contains("cannot read"),
            "{e}"
        );
        assert!(!PatternWeights::is_pattern_file(&missing));
        assert!(!PatternWeights::is_pattern_file(dir.path()));
    }

    #[test]
    fn csv_errors() {
        let e = error(b"# joute pattern weights\nphase,pattern,config,weight\n");
        assert!(
            e.starts_with("w:1: field 'phases': the first line must be"),
            "{e}"
        );
        let e = error(b"phase,pattern,config,weight\n0,bias,,1\n");
        assert!(e.starts_with("w:1: field 'phases':"), "{e}");
        let e = error(b"# joute pattern weights, phases = 0\n");
        assert_eq!(e, "w:1: field 'phases': 0 phases; allowed: 1..=60");
        let e = error(b"# joute pattern weights, phases = 61\n");
        assert!(e.contains("61 phases"), "{e}");
        let e = error(b"# joute pattern weights, phases = two\n");
        assert!(e.contains("\"two\" is not a number of phases"), "{e}");
        let e = error(b"# joute pattern weights, phases = 2\n# c\n");
        assert!(
            e.starts_with("w:2: field 'header': the column header"),
            "{e}"
        );
        let e = error(b"# joute pattern weights, phases = 2\n\nphase,pattern,weight\n");
        assert!(e.starts_with("w:3: field 'header': expected"), "{e}");
        let e = error(b"# joute pattern weights, phases = 2\nphase,pattern\xff\n");
        assert!(e.starts_with("w:2: field '(line)': not UTF-8"), "{e}");

        let e = csv("0,bias,,1\n0,corner3x3,x........\n");
        assert!(
            e.starts_with("w:4: field '(line)': 3 fields; a row has 4"),
            "{e}"
        );
        let e = csv("2,bias,,1\n");
        assert!(
            e.starts_with("w:3: field 'phase': phase 2 is out of range: the file has 2 phases"),
            "{e}"
        );
        let e = csv("-1,bias,,1\n");
        assert!(
            e.starts_with("w:3: field 'phase': \"-1\" is not a phase number"),
            "{e}"
        );
        let e = csv("0,corner4x4,x........,1\n");
        assert!(
            e.starts_with(
                "w:3: field 'pattern': unknown pattern \"corner4x4\"; allowed: corner3x3, corner2x5"
            ),
            "{e}"
        );
        assert!(e.ends_with("diag4, bias"), "{e}");
        let e = csv("0,corner3x3,x.......,1\n");
        assert!(e.starts_with("w:3: field 'config': bad config \"x.......\" for corner3x3: expected 9 characters, one per square a1 b1 c1 a2 b2 c2 a3 b3 c3"), "{e}");
        let e = csv("0,corner3x3,x.......y,1\n");
        assert!(e.contains("bad config \"x.......y\""), "{e}");
        let e = csv("0,corner3x3,,1\n");
        assert!(e.contains("bad config \"\""), "{e}");
        let e = csv("0,diag4,81,1\n");
        assert!(e.starts_with("w:3: field 'config': config index 81 out of range: diag4 has 81 configurations, 0..=80"), "{e}");
        let e = csv("0,diag4,99999999999999999999999,1\n");
        assert!(e.contains("out of range"), "{e}");
        let e = csv("0,bias,x,1\n");
        assert!(
            e.starts_with("w:3: field 'config': the bias has no configuration"),
            "{e}"
        );
        let e = csv("0,bias,,heavy\n");
        assert!(
            e.starts_with("w:3: field 'weight': \"heavy\" is not a number"),
            "{e}"
        );
        let e = csv("0,bias,,NaN\n");
        assert!(
            e.starts_with("w:3: field 'weight':") && e.contains("NaN"),
            "{e}"
        );
        let e = csv("0,bias,,-inf\n");
        assert!(e.contains("infinite"), "{e}");
        let e = csv("0,bias,,1e39\n");
        assert!(e.contains("infinite"), "{e}");
        let e = csv("0,bias,,2e6\n");
        assert!(e.contains("too large"), "{e}");
        let e = csv("1,diag4,xo..,1\n0,diag4,xo..,1\n1,diag4,7,2\n");
        assert!(
            e.starts_with(
                "w:5: field 'config': duplicate row: phase 1, diag4 xo.. was already set on line 3"
            ),
            "{e}"
        );
    }

    /// A small valid file of each kind.
    fn samples() -> Vec<Vec<u8>> {
        let dir = tmp();
        let mut w = PatternWeights::zeros(1);
        w.values[5] = 1.25;
        w.values[OFFSETS[3] + 17] = -0.5;
        w.values[BIAS_INDEX] = 0.125;
        let (bin, csv) = (dir.path().join("w.bin"), dir.path().join("w.csv"));
        w.write_binary(&bin).unwrap();
        w.write_csv(&csv).unwrap();
        vec![std::fs::read(bin).unwrap(), std::fs::read(csv).unwrap()]
    }

    #[test]
    fn truncations_and_mutations_never_panic() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for sample in samples() {
            assert!(PatternWeights::parse(&sample, "w").is_ok());
            let cuts: Vec<usize> = (0..sample.len().min(300))
                .chain((0..200).map(|_| rng.random_range(0..sample.len())))
                .collect();
            for cut in cuts {
                let _ = PatternWeights::parse(&sample[..cut], "w");
            }
            for _ in 0..300 {
                let mut bytes = sample.clone();
                for _ in 0..rng.random_range(1..4) {
                    let at = rng.random_range(0..bytes.len().min(400));
                    bytes[at] = rng.random();
                }
                let _ = PatternWeights::parse(&bytes, "w");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn arbitrary_input_never_panics(
            kind in 0usize..3,
            tail in proptest::collection::vec(any::<u8>(), 0..64),
            text in "[0-9a-z,.#= \n-]{0,80}",
        ) {
            let mut bytes = match kind {
                0 => MAGIC.to_vec(),
                1 => b"# joute pattern weights, phases = 3\nphase,pattern,config,weight\n".to_vec(),
                _ => Vec::new(),
            };
            if kind == 0 {
                bytes.extend_from_slice(&tail);
            } else {
                bytes.extend_from_slice(text.as_bytes());
            }
            let _ = PatternWeights::parse(&bytes, "w");
        }
    }
}

//! The evaluation: the weights folded into the readings it makes, its incremental state, and
//! [`PatternEval`] as an [`Evaluator`].

use super::*;

/// The images through which [`PatternEval`] reads each type: one per distinct instance. The
/// other images of [`feature_indices`] read the same instances again, in another order; their
/// weights are folded into these readings' (see [`fold_permutations`]).
pub(super) const EVAL_IMAGES: [&[usize]; TYPES] = [
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
pub(super) const READINGS: usize = {
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
pub(super) const fn image_square(k: usize, sq: usize) -> usize {
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
pub(super) struct Reading {
    pub(super) offset: u32,
    pub(super) len: usize,
    pub(super) squares: [u8; MAX_LEN],
}

/// The folded readings, type by type in the order of [`EVAL_IMAGES`].
pub(super) const READING_LIST: [Reading; READINGS] = {
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
pub(super) fn instance(t: usize, k: usize) -> Vec<u8> {
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
/// integer weights of all its readings — 46 pattern lookups per position instead of 88, the
/// same sum; the counts and the bias are read once each, as in [`feature_indices`].
/// It has the layout of [`PatternWeights::values`], with 2-byte entries (327 KiB per phase)
/// when every entry lies within ±32 767 — folded sums of weights within about ±8 — else 4-byte
/// entries (654 KiB per phase); the smaller table is faster (fewer cache misses).
#[derive(Clone)]
pub struct PatternEval {
    /// Per phase, per configuration: Σ round(w · SCALE) over the readings folded into it.
    table: Table,
    phases: usize,
    bound: i32,
    /// Whether any count weight is non-zero: when none is, the counts (two move generations)
    /// are not computed.
    counts: bool,
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
            .field("counts", &self.counts)
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
        let mut counts = false;
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
            // A count is read once: its entries are the integer weights themselves.
            for (c, ty) in COUNT_TYPES.iter().enumerate() {
                let range = COUNT_OFFSETS[c]..COUNT_OFFSETS[c] + ty.values;
                let mut largest = 0;
                for (&w, entry) in block[range.clone()].iter().zip(&mut out[range]) {
                    let w = int(w);
                    largest = largest.max(w.abs());
                    *entry = w as i32;
                }
                phase_bound += largest;
                counts |= largest != 0;
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
            counts,
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
        let mut sum = match &self.table {
            Table::Narrow(table) => tracked_sum(&table[phase * WEIGHTS_PER_PHASE..], state, white),
            Table::Wide(table) => tracked_sum(&table[phase * WEIGHTS_PER_PHASE..], state, white),
        };
        if self.counts {
            sum += self.counts_sum(pos, phase);
        }
        let bound = self.bound as i64;
        sum.clamp(-bound, bound) as i32
    }

    /// The unclamped sum of the integer weights of the lookups of `pos`: Σ round(w · SCALE)
    /// over [`feature_indices`] in the phase of `pos`.
    #[inline]
    pub fn raw_sum(&self, pos: &Othello) -> i64 {
        let phase = phase_of(pos, self.phases);
        let sum = match &self.table {
            Table::Narrow(table) => folded_sum(&table[phase * WEIGHTS_PER_PHASE..], pos),
            Table::Wide(table) => folded_sum(&table[phase * WEIGHTS_PER_PHASE..], pos),
        };
        if self.counts {
            sum + self.counts_sum(pos, phase)
        } else {
            sum
        }
    }

    /// Whether any count weight is non-zero (else the evaluation does not compute the counts).
    pub fn reads_counts(&self) -> bool {
        self.counts
    }

    /// The entries of `phase` that the counts of `pos` read.
    #[inline]
    fn counts_sum(&self, pos: &Othello, phase: usize) -> i64 {
        let values = counts(pos);
        let at = |c: usize| phase * WEIGHTS_PER_PHASE + COUNT_OFFSETS[c] + values[c] as usize;
        match &self.table {
            Table::Narrow(table) => (0..COUNTS).map(|c| table[at(c)] as i64).sum(),
            Table::Wide(table) => (0..COUNTS).map(|c| table[at(c)] as i64).sum(),
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

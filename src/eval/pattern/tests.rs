//! The pattern evaluation's tests: indexing, the weights files, the evaluation.

use super::evaluate::*;
use super::file::*;
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
    // Then the count blocks: 64, 64, 64, 64 and 2 values.
    let counts_at = *offsets.last().unwrap();
    let count_offsets = [0, 64, 128, 192, 256].map(|o| counts_at + o);
    let bias = counts_at + 258;
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
    for (offset, value) in count_offsets.into_iter().zip(naive_counts(pos)) {
        out.push((offset + value) as u32);
    }
    out.push(bias as u32);
    out.sort_unstable();
    out
}

/// The 8 directions as (row, column) steps.
fn directions() -> impl Iterator<Item = (i32, i32)> {
    (-1..=1)
        .flat_map(|dr| (-1..=1).map(move |dc| (dr, dc)))
        .filter(|&d| d != (0, 0))
}

/// Whether `me` may play on the empty square (r, c) against `them`, walking each direction.
fn naive_legal(me: u64, them: u64, r: i32, c: i32) -> bool {
    let at = |r: i32, c: i32, b: u64| {
        (0..8).contains(&r) && (0..8).contains(&c) && b >> (r * 8 + c) & 1 == 1
    };
    directions().any(|(dr, dc)| {
        let (mut rr, mut cc, mut seen) = (r + dr, c + dc, 0);
        while at(rr, cc, them) {
            rr += dr;
            cc += dc;
            seen += 1;
        }
        seen > 0 && at(rr, cc, me)
    })
}

/// The count features of `pos` square by square: the moves of each side, the empty squares next
/// to each side's discs, the parity of the empty squares.
fn naive_counts(pos: &Othello) -> [usize; 5] {
    let (p, o) = (pos.player, pos.opponent);
    let mut counts = [0; 5];
    let next_to = |b: u64, r: i32, c: i32| {
        directions().any(|(dr, dc)| {
            let (rr, cc) = (r + dr, c + dc);
            (0..8).contains(&rr) && (0..8).contains(&cc) && b >> (rr * 8 + cc) & 1 == 1
        })
    };
    for sq in 0..64 {
        if (p | o) >> sq & 1 == 1 {
            continue;
        }
        let (r, c) = (sq / 8, sq % 8);
        counts[0] += naive_legal(p, o, r, c) as usize;
        counts[1] += naive_legal(o, p, r, c) as usize;
        counts[2] += next_to(o, r, c) as usize;
        counts[3] += next_to(p, r, c) as usize;
        counts[4] += 1;
    }
    counts[4] %= 2;
    counts
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
    assert_eq!(WEIGHTS_PER_PHASE, 167_266 + 258);
    assert_eq!(V1_WEIGHTS_PER_PHASE, 167_266);
    assert_eq!(FEATURES_PER_POSITION, 89 + 5);
    for ty in PATTERN_TYPES {
        assert_eq!(ty.len, ty.squares.len());
    }
    let pattern = |t, config| Some(Feature::Pattern { t, config });
    assert_eq!(split_index(0), pattern(0, 0));
    assert_eq!(split_index(19_683), pattern(1, 0));
    assert_eq!(split_index(BIAS_INDEX), Some(Feature::Bias));
    assert_eq!(split_index(COUNTS_OFFSET - 1), pattern(10, 80));
    assert_eq!(
        split_index(COUNTS_OFFSET),
        Some(Feature::Count { c: 0, value: 0 })
    );
    assert_eq!(
        split_index(BIAS_INDEX - 1),
        Some(Feature::Count { c: 4, value: 1 })
    );
    assert_eq!(split_index(WEIGHTS_PER_PHASE), None);
    assert_eq!(describe_index(2 + 2 * 3), "corner3x3 oo.......");
    assert_eq!(describe_index(COUNTS_OFFSET + 64 + 7), "opp_mobility 7");
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
    // 4 moves each; 10 empty squares next to each side's two discs (c3 d3 e3 c4 c5 around d4,
    // f4 f5 d6 e6 f6 around e5, for white's); 60 empty squares, even.
    assert_eq!(counts(&start), [4, 4, 10, 10, 0]);
    let c = COUNTS_OFFSET as u32;
    assert_eq!(
        idx[88..93],
        [c + 4, c + 64 + 4, c + 128 + 10, c + 192 + 10, c + 256]
    );
    // A count weight is read once.
    let mut weights = PatternWeights::zeros(1);
    assert!(!PatternEval::new(&weights).reads_counts());
    weights.values[COUNTS_OFFSET + 4] = 0.5;
    weights.values[COUNTS_OFFSET + 256] = -0.25;
    let eval = PatternEval::new(&weights);
    assert!(eval.reads_counts());
    assert_eq!(eval.evaluate(&start), 512 - 256);
    assert_eq!(eval.bound(), 512 + 256);
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
fn naive_eval(weights: &PatternWeights, pos: &Othello, instances: &[(usize, Vec<usize>)]) -> i64 {
    let phase = phase_of(pos, weights.phases);
    naive_indices(pos, instances)
        .iter()
        .map(|&i| {
            (weights.values[phase * WEIGHTS_PER_PHASE + i as usize] as f64 * 1024.0).round() as i64
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
    for (phases, seed, magnitude) in [(1, 21, 1.0), (6, 22, 1.0), (60, 23, 1.0), (3, 24, 20.0)] {
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
    let text = "# joute pattern weights, phases = 2\r\n# tuned by hand\n\nphase,pattern,config,weight\n0,corner3x3,x.o......,1.5\n1, bias , , -2\n1,diag4,80,0.25\n1,edge2x,XO-.......,3\n0,opp_mobility,12,-0.5\n1,parity,1,0.125\n";
    let w = PatternWeights::parse(text.as_bytes(), "w.csv").unwrap();
    assert_eq!(w.phases, 2);
    assert_eq!(w.values[1 + 2 * 9], 1.5);
    assert_eq!(w.values[WEIGHTS_PER_PHASE + BIAS_INDEX], -2.0);
    assert_eq!(w.values[WEIGHTS_PER_PHASE + COUNTS_OFFSET - 1], 0.25);
    assert_eq!(w.values[WEIGHTS_PER_PHASE + OFFSETS[2] + 1 + 2 * 3], 3.0);
    assert_eq!(w.values[COUNTS_OFFSET + 64 + 12], -0.5);
    assert_eq!(w.values[WEIGHTS_PER_PHASE + BIAS_INDEX - 1], 0.125);
    assert_eq!(w.values.iter().filter(|&&v| v != 0.0).count(), 6);
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
fn version_1_files_read_with_the_counts_at_zero() {
    // Two phases of the old layout: the patterns, then the bias; weight i of phase p is
    // 10p + (i mod 7) − 3.
    let old = V1_WEIGHTS_PER_PHASE;
    let value = |p: usize, i: usize| (p * 10 + i % 7) as f32 - 3.0;
    let mut bytes = binary(1, 2, old as u32, 0);
    for p in 0..2 {
        for i in 0..old {
            bytes.extend_from_slice(&value(p, i).to_le_bytes());
        }
    }
    let w = PatternWeights::parse(&bytes, "v1").unwrap();
    assert_eq!(w.phases, 2);
    for p in 0..2 {
        let block = &w.values[p * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE];
        for (i, &x) in block[..COUNTS_OFFSET].iter().enumerate() {
            assert_eq!(x, value(p, i), "phase {p}, {}", describe_index(i));
        }
        assert!(block[COUNTS_OFFSET..BIAS_INDEX].iter().all(|&x| x == 0.0));
        assert_eq!(block[BIAS_INDEX], value(p, old - 1));
    }
    // Its evaluation reads no counts, and the file written back is version 2 and reads the same.
    assert!(!PatternEval::new(&w).reads_counts());
    let dir = tmp();
    let path = dir.path().join("w.jpw");
    w.write_binary(&path).unwrap();
    let written = std::fs::read(&path).unwrap();
    assert_eq!(written[8..12], 2u32.to_le_bytes());
    assert_eq!(PatternWeights::load(&path).unwrap().values, w.values);
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
    let e = error(&binary(3, 1, wpp, WEIGHTS_PER_PHASE));
    assert_eq!(e, "w: format version 3; this joute reads versions 1 and 2");
    let e = error(&binary(2, 0, wpp, 0));
    assert_eq!(e, "w: 0 phases; allowed: 1..=60");
    let e = error(&binary(2, 61, wpp, 0));
    assert_eq!(e, "w: 61 phases; allowed: 1..=60");
    let e = error(&binary(2, 1, 1000, 1000));
    assert_eq!(e, "w: 1000 weights per phase; format version 2 has 167524");
    // A version 1 file holds the phases without the counts.
    let e = error(&binary(1, 1, wpp, WEIGHTS_PER_PHASE));
    assert_eq!(
        e,
        "w: 167524 weights per phase; format version 1 has 167266"
    );
    let e = error(&binary(2, 2, wpp, WEIGHTS_PER_PHASE));
    assert!(
        e.starts_with("w: wrong size: the file holds 167524 weights after its 20-byte header, but 2 phases of 167524 weights need 335048"),
        "{e}"
    );
    let mut b = binary(2, 1, wpp, WEIGHTS_PER_PHASE);
    b.push(0);
    let e = error(&b);
    assert!(e.contains("holds 167524 weights and 1 stray bytes"), "{e}");
    let mut v1 = binary(1, 2, V1_WEIGHTS_PER_PHASE as u32, 2 * V1_WEIGHTS_PER_PHASE);
    let at = HEADER_LEN + 4 * (2 * V1_WEIGHTS_PER_PHASE - 1);
    v1[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = error(&v1);
    assert!(
        e.contains("weight 334531 (phase 1, bias)") && e.contains("NaN"),
        "{e}"
    );
    let mut b = binary(2, 2, wpp, 2 * WEIGHTS_PER_PHASE);
    let at = HEADER_LEN + 4 * (WEIGHTS_PER_PHASE + 3);
    b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = error(&b);
    assert!(
        e.contains("weight 167527 (phase 1, corner3x3 .x.......)") && e.contains("NaN"),
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
    assert!(
        e.ends_with("diag4, mobility, opp_mobility, potential, opp_potential, parity, bias"),
        "{e}"
    );
    let e = csv("0,mobility,64,1\n");
    assert_eq!(
        e,
        "w:3: field 'config': bad value \"64\" for mobility (the side to move's legal moves): expected a number 0..=63"
    );
    let e = csv("0,parity,x,1\n");
    assert!(e.contains("bad value \"x\" for parity"), "{e}");
    let e = csv("0,corner3x3,x.......,1\n");
    assert!(e.starts_with("w:3: field 'config': bad config \"x.......\" for corner3x3: expected 9 characters, one per square a1 b1 c1 a2 b2 c2 a3 b3 c3"), "{e}");
    let e = csv("0,corner3x3,x.......y,1\n");
    assert!(e.contains("bad config \"x.......y\""), "{e}");
    let e = csv("0,corner3x3,,1\n");
    assert!(e.contains("bad config \"\""), "{e}");
    let e = csv("0,diag4,81,1\n");
    assert!(
        e.starts_with(
            "w:3: field 'config': config index 81 out of range: diag4 has 81 configurations, 0..=80"
        ),
        "{e}"
    );
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

#[test]
fn the_built_in_weights_are_the_second_generation_file_in_weights() {
    let file = PatternWeights::load(Path::new("weights/othello-patterns-gen2.jpw")).unwrap();
    let eval = PatternEval::new(&file);
    for pos in random_positions(45, 20) {
        assert_eq!(built_in().evaluate(&pos), eval.evaluate(&pos));
    }
}

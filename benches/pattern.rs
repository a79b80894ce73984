//! The Othello pattern evaluation against the linear one: the time of one `evaluate` on
//! positions of random games, of one evaluation from the configurations kept move by move
//! (`PatternState`), and of PVS searches from midgame positions with each (depth 6 with random
//! weights; depth 8 with the shipped `weights/othello-patterns.jpw`, the configurations kept or
//! every leaf read from the board). `cargo bench --bench pattern` (`-- --quick` for a short
//! run).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use joute::eval::othello::{CLASS_MASKS, SQUARE_CLASSES};
use joute::eval::pattern::{
    BIAS_INDEX, COUNTS_OFFSET, FEATURES_PER_POSITION, PATTERN_TYPES, SCALE, WEIGHTS_PER_PHASE,
    feature_indices,
};
use joute::eval::{
    Evaluator, Features, LinearEval, PatternEval, PatternState, PatternWeights, Weights,
};
use joute::games::{Game, Othello, random_game, random_position};
use joute::search::{Algorithm, SearchConfig, Searcher};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Phases of the random pattern weights (a search to depth 6 touches one or two).
const PHASES: usize = 12;

/// Every unfinished position of 40 random games: about 2,400.
fn positions() -> Vec<Othello> {
    lines().into_iter().map(|(_, pos)| pos).collect()
}

/// The positions of [`positions`], each with the one before it (the first of a game with
/// itself).
fn lines() -> Vec<(Othello, Othello)> {
    (0..40)
        .flat_map(|seed| {
            let line = random_game(Othello::start(), 60, 1000 + seed).0;
            let before = std::iter::once(line[0]).chain(line.clone());
            before.zip(line).collect::<Vec<_>>()
        })
        .filter(|(_, pos)| pos.outcome().is_none())
        .collect()
}

fn random_weights() -> PatternWeights {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    PatternWeights {
        phases: PHASES,
        values: (0..PHASES * WEIGHTS_PER_PHASE)
            .map(|_| rng.random_range(-1.0f32..1.0))
            .collect(),
        origin: "random".into(),
    }
}

/// Pattern weights that make the evaluation a disc-square table: each square weighs, for the
/// side to move's disc (the opponent's: the negation), the default linear weights' `discs`, its
/// `sq_*` class and `corners` for a corner, shared among the lookups that read it, so the
/// evaluation is the linear default's positional part, in the same units. A search with them
/// builds a tree of the size a sensible evaluation gives, unlike random weights.
fn square_weights() -> PatternWeights {
    let start = Othello::start();
    let linear = Weights::default_for(&start);
    let names: Vec<String> = start.features().into_iter().map(|f| f.name).collect();
    let weight = |name: &str| linear.values[names.iter().position(|n| n == name).unwrap()];
    let square = |sq: usize| {
        let class = CLASS_MASKS.iter().position(|m| m >> sq & 1 == 1).unwrap();
        let corner = if [0, 7, 56, 63].contains(&sq) {
            weight("corners")
        } else {
            0.0
        };
        weight("discs") + weight(&format!("sq_{}", SQUARE_CLASSES[class])) + corner
    };
    // The block of each index, and how many lookups read each square.
    let mut offsets = vec![0];
    for ty in PATTERN_TYPES {
        offsets.push(offsets.last().unwrap() + 3usize.pow(ty.len as u32));
    }
    let mut cover = [0usize; 64];
    let mut out = [0u32; FEATURES_PER_POSITION];
    for (sq, count) in cover.iter_mut().enumerate() {
        let mut pos = start;
        pos.player = 1 << sq;
        pos.opponent = 0;
        feature_indices(&pos, &mut out);
        *count = out[..FEATURES_PER_POSITION - 1]
            .iter()
            .filter(|&&i| !offsets.contains(&(i as usize)))
            .count();
    }
    // Linear weights are worth 16 units, pattern weights 1024.
    let unit = 16.0 / SCALE;
    let mut weights = PatternWeights::zeros(1);
    for (t, ty) in PATTERN_TYPES.iter().enumerate() {
        for config in 0..3usize.pow(ty.len as u32) {
            let mut rest = config;
            let mut w = 0.0;
            for &sq in ty.squares {
                let sign = [0.0, 1.0, -1.0][rest % 3];
                rest /= 3;
                w += sign * square(sq as usize) / cover[sq as usize] as f64;
            }
            weights.values[offsets[t] + config] = (w * unit) as f32;
        }
    }
    // Check: Σ over the squares of 16 · weight · (own − opponent's), up to the rounding of
    // each lookup's integer.
    let eval = PatternEval::new(&weights);
    for seed in 0..20 {
        let pos = random_position(start, 30, seed);
        let table: f64 = (0..64)
            .map(|sq| {
                16.0 * square(sq)
                    * ((pos.player >> sq & 1) as f64 - (pos.opponent >> sq & 1) as f64)
            })
            .sum();
        let diff = (eval.evaluate(&pos) as f64 - table).abs();
        assert!(diff <= FEATURES_PER_POSITION as f64 / 2.0, "{diff}");
    }
    weights
}

fn evaluate_all<E: Evaluator<Othello>>(eval: &E, positions: &[Othello]) -> i64 {
    positions
        .iter()
        .map(|pos| eval.evaluate(black_box(pos)) as i64)
        .sum()
}

fn evaluations(c: &mut Criterion) {
    let positions = positions();
    let start = Othello::start();
    let linear = LinearEval::new(&start, &Weights::default_for(&start));
    let weights = random_weights();
    let clock = std::time::Instant::now();
    let pattern = PatternEval::new(&weights);
    eprintln!(
        "PatternEval::new with {PHASES} phases: {:.1} ms; {} positions",
        clock.elapsed().as_secs_f64() * 1e3,
        positions.len()
    );
    let mut group = c.benchmark_group("evaluate");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("linear", |b| b.iter(|| evaluate_all(&linear, &positions)));
    group.bench_function("pattern", |b| b.iter(|| evaluate_all(&pattern, &positions)));
    // The same weights with every count weight 0: the counts are not computed.
    let mut no_counts = weights.clone();
    for block in no_counts.values.chunks_exact_mut(WEIGHTS_PER_PHASE) {
        block[COUNTS_OFFSET..BIAS_INDEX].fill(0.0);
    }
    let no_counts = PatternEval::new(&no_counts);
    assert!(pattern.reads_counts() && !no_counts.reads_counts());
    group.bench_function("pattern_without_counts", |b| {
        b.iter(|| evaluate_all(&no_counts, &positions))
    });
    // As a search meets them: each position's configurations from its parent's, then the
    // evaluation from them.
    let lines = lines();
    let states: Vec<PatternState> = lines
        .iter()
        .map(|(before, _)| PatternState::of(before))
        .collect();
    group.bench_function("pattern_tracked", |b| {
        b.iter(|| {
            lines
                .iter()
                .zip(&states)
                .map(|((before, pos), state)| {
                    let state = black_box(state).after(before, black_box(pos));
                    pattern.evaluate_tracked(pos, &state) as i64
                })
                .sum::<i64>()
        })
    });
    group.bench_function("pattern_feature_indices", |b| {
        b.iter(|| {
            let mut out = [0u32; FEATURES_PER_POSITION];
            let mut total = 0u64;
            for pos in &positions {
                feature_indices(black_box(pos), &mut out);
                total += black_box(&out).iter().map(|&i| i as u64).sum::<u64>();
            }
            total
        })
    });
    group.finish();
}

/// The linear evaluation, with the pattern evaluation computed beside it and thrown away: a
/// search with it walks the linear evaluation's tree and pays for both evaluations, so its
/// time over the linear search's bounds the cost of the patterns on the same tree.
struct Both<'a> {
    linear: &'a LinearEval<Othello>,
    pattern: &'a PatternEval,
}

impl Evaluator<Othello> for Both<'_> {
    fn evaluate(&self, pos: &Othello) -> i32 {
        black_box(self.pattern.evaluate(pos));
        self.linear.evaluate(pos)
    }

    fn bound(&self) -> i32 {
        self.linear.bound()
    }
}

/// Searches each position with a fresh searcher (as a new engine would); the total nodes.
fn search_all<E: Evaluator<Othello>>(eval: &E, positions: &[Othello], depth: u32) -> u64 {
    positions
        .iter()
        .map(|pos| {
            let mut searcher = Searcher::new(SearchConfig::new(Algorithm::Pvs, depth));
            searcher.search(black_box(pos), eval).stats.nodes
        })
        .sum()
}

fn searches(c: &mut Criterion) {
    let start = Othello::start();
    let midgame: Vec<Othello> = (1..=4)
        .map(|seed| random_position(start, 20, seed))
        .filter(|pos| pos.outcome().is_none())
        .collect();
    let linear = LinearEval::new(&start, &Weights::default_for(&start));
    let pattern = PatternEval::new(&random_weights());
    let depth = 6;
    eprintln!(
        "pvs:{depth} from {} midgame positions: {} nodes with the linear evaluation, {} with the patterns",
        midgame.len(),
        search_all(&linear, &midgame, depth),
        search_all(&pattern, &midgame, depth)
    );
    let mut group = c.benchmark_group("pvs6");
    group.bench_function("linear", |b| {
        b.iter(|| search_all(&linear, &midgame, depth))
    });
    group.bench_function("pattern", |b| {
        b.iter(|| search_all(&pattern, &midgame, depth))
    });
    let squares = PatternEval::new(&square_weights());
    eprintln!(
        "pvs:{depth}: {} nodes with the disc-square pattern weights",
        search_all(&squares, &midgame, depth)
    );
    group.bench_function("pattern-squares", |b| {
        b.iter(|| search_all(&squares, &midgame, depth))
    });
    let both = Both {
        linear: &linear,
        pattern: &pattern,
    };
    group.bench_function("linear+pattern", |b| {
        b.iter(|| search_all(&both, &midgame, depth))
    });
    group.finish();

    // The shipped weights at depth 8: configurations kept move by move, or every leaf read
    // from the board (the same tree: the same nodes).
    let shipped = PatternEval::new(
        &PatternWeights::load(std::path::Path::new("weights/othello-patterns.jpw")).unwrap(),
    );
    let board = FromBoard(&shipped);
    let depth = 8;
    let (tracked, read) = (
        search_all(&shipped, &midgame, depth),
        search_all(&board, &midgame, depth),
    );
    assert_eq!(tracked, read);
    eprintln!("pvs:{depth} with weights/othello-patterns.jpw: {tracked} nodes");
    let mut group = c.benchmark_group("pvs8-shipped");
    group.bench_function("tracked", |b| {
        b.iter(|| search_all(&shipped, &midgame, depth))
    });
    group.bench_function("from-board", |b| {
        b.iter(|| search_all(&board, &midgame, depth))
    });
    group.finish();
}

/// The pattern evaluation without its configurations kept: every leaf read from the board,
/// as before `PatternState`.
struct FromBoard<'a>(&'a PatternEval);

impl Evaluator<Othello> for FromBoard<'_> {
    fn evaluate(&self, pos: &Othello) -> i32 {
        self.0.evaluate(pos)
    }

    fn bound(&self) -> i32 {
        self.0.bound()
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = evaluations, searches
}
criterion_main!(benches);

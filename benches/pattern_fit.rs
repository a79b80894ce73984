//! The pattern fit's passes over its positions ([`joute::tune::fit::pattern_fit`]): one loss and
//! gradient pass (`fit_patterns` stopped before its first L-BFGS iteration) and one loss pass
//! (`pattern_loss`), on every position of 2,000 random games (about 116,000) in 6 phases
//! overlapping by 3 empty squares, as `tournaments/tune-othello-patterns.toml` fits them.
//! `cargo bench --bench pattern_fit`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use joute::eval::PatternWeights;
use joute::games::{Game, Othello, random_game};
use joute::tune::fit::pattern_fit::{
    PatternFitOptions, PatternPositions, fit_patterns, pattern_loss,
};

const PHASES: usize = 6;

/// Every unfinished position of 2,000 random games, labelled 0, ½ or 1 by a rule of the game's
/// seed and the ply (the labels change no timing).
fn positions() -> PatternPositions {
    let mut data = PatternPositions::with_overlap(PHASES, 3);
    for seed in 0..2000u64 {
        let line = random_game(Othello::start(), 60, 5000 + seed).0;
        for (ply, pos) in line.iter().enumerate() {
            if pos.outcome().is_none() {
                data.push(pos, ((seed as usize + ply) % 3) as f64 / 2.0);
            }
        }
    }
    data
}

fn passes(c: &mut Criterion) {
    let data = positions();
    let zeros = PatternWeights::zeros(PHASES);
    // Weights every lookup reads as something else than zero, so no pass is a special case.
    let fitted = fit_patterns(
        &data,
        &zeros,
        &PatternFitOptions {
            max_iterations: 3,
            ..Default::default()
        },
    )
    .unwrap()
    .weights;
    eprintln!(
        "{} positions, {} with the overlaps",
        data.distinct(),
        data.len()
    );
    let one_pass = PatternFitOptions {
        max_iterations: 0,
        ..Default::default()
    };
    let mut group = c.benchmark_group("pattern_fit");
    group.throughput(Throughput::Elements(data.distinct() as u64));
    group.bench_function("loss_gradient", |b| {
        b.iter(|| {
            fit_patterns(black_box(&data), &fitted, &one_pass)
                .unwrap()
                .loss
        })
    });
    group.bench_function("loss", |b| {
        b.iter(|| pattern_loss(black_box(&data), &fitted))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = passes
}
criterion_main!(benches);

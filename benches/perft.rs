//! Perft throughput of the move generators, single thread: the standard measure of a game's
//! move generation and make-move speed. `cargo bench --bench perft`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use joute::games::perft::perft;
use joute::games::{Connect4, Morpion, Othello};

/// Quick sizes, a fraction of a second each.
fn small(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.bench_function("othello/9", |b| {
        b.iter(|| perft(black_box(&Othello::start()), 9))
    });
    group.bench_function("connect4/9", |b| {
        b.iter(|| perft(black_box(&Connect4::start()), 9))
    });
    group.bench_function("morpion/9", |b| {
        b.iter(|| perft(black_box(&Morpion::start(3, 3, 3)), 9))
    });
    group.bench_function("morpion-15x15-5/3", |b| {
        b.iter(|| perft(black_box(&Morpion::start(15, 15, 5)), 3))
    });
    group.finish();
}

/// The sizes of the speed targets: Othello perft(12) and Connect 4 perft(11), a few seconds each.
fn full(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft-full");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(30));
    group.bench_function("othello/12", |b| {
        b.iter(|| perft(black_box(&Othello::start()), 12))
    });
    group.bench_function("connect4/11", |b| {
        b.iter(|| perft(black_box(&Connect4::start()), 11))
    });
    group.finish();
}

criterion_group!(benches, small, full);
criterion_main!(benches);

//! Perft throughput of the move generators, single thread: the standard measure of a game's
//! move generation and make-move speed. `cargo bench --bench perft`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use joute::games::perft::perft;
use joute::games::{Connect4, Game, Morpion, Othello, Rule};

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
    // A middle game, 12 stones each, black to move: renju judges black's candidate points at
    // every other ply; the same board under freestyle is the baseline.
    let middle =
        "h8 i9 i8 g8 j8 k8 h9 h7 g10 f11 i10 j11 h10 h11 j10 k10 i7 g9 i11 i6 j7 k6 f9 e10";
    for (name, rule) in [
        ("renju-middle/2", Rule::Renju),
        ("morpion-15x15-5-middle/2", Rule::Freestyle),
    ] {
        let pos = Morpion::with_rule(15, 15, 5, rule)
            .play_sequence(middle)
            .unwrap();
        group.bench_function(name, |b| b.iter(|| perft(black_box(&pos), 2)));
    }
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

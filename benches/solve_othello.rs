//! Othello endgame solver speed, release, single thread: FFO #40 alone and FFO #41–#44 in
//! total, each solve from an empty transposition table. `cargo bench --bench solve_othello --
//! --noplot`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use joute::search::solver::othello::{FfoEntry, OthelloSolver, parse_ffo_line};

const SUITE: &str = include_str!("../tests/data/othello-ffo-40-59.txt");

fn entries(ids: &[&str]) -> Vec<FfoEntry> {
    SUITE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| parse_ffo_line(l).unwrap())
        .filter(|e| ids.contains(&e.id.as_str()))
        .collect()
}

/// Solves each position from a cleared table and checks the score.
fn solve_all(solver: &mut OthelloSolver, entries: &[FfoEntry]) -> u64 {
    let mut nodes = 0;
    for entry in entries {
        solver.clear();
        let solution = solver.solve(black_box(&entry.position));
        assert_eq!(solution.score, entry.score, "FFO #{}", entry.id);
        nodes += solution.nodes;
    }
    nodes
}

fn ffo(c: &mut Criterion) {
    let mut solver = OthelloSolver::new();
    let first = entries(&["40"]);
    let rest = entries(&["41", "42", "43", "44"]);
    eprintln!(
        "nodes: FFO #40 {}, FFO #41-#44 {}",
        solve_all(&mut solver, &first),
        solve_all(&mut solver, &rest)
    );
    let mut group = c.benchmark_group("solve-othello");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(10));
    group.bench_function("ffo-40", |b| b.iter(|| solve_all(&mut solver, &first)));
    // Ten solves of about 12 s each: give criterion the time rather than a warning.
    group.measurement_time(Duration::from_secs(150));
    group.bench_function("ffo-41-44", |b| b.iter(|| solve_all(&mut solver, &rest)));
    group.finish();
}

criterion_group!(benches, ffo);
criterion_main!(benches);

//! Connect 4 solver speed, single thread: the mean time to solve one position of the middle
//! (`Test_L2_R1`) and early (`Test_L1_R1`) suites. One criterion iteration solves every position
//! of a suite, each independently: the solver (and its table allocation) is kept, the table is
//! emptied (O(1), a generation bump) before each position. Criterion's throughput in elements/s
//! is positions/s; the time per iteration divided by 1000 is the mean per position.
//!
//! `cargo bench --bench solve_connect4 -- --noplot`; `C4_BITS=N` in the environment benches a
//! table of 2^N entries instead of the default.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use joute::games::Connect4;
use joute::search::solver::connect4::{Connect4Solver, parse_suite_line};

const L2: &str = include_str!("../tests/data/connect4/Test_L2_R1.txt");
const L1: &str = include_str!("../tests/data/connect4/Test_L1_R1.txt");

fn positions(text: &str) -> Vec<(Connect4, i32)> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| parse_suite_line(l).expect("suite line"))
        .collect()
}

/// Solves every position once, table cleared before each; checks the scores.
fn solve_all(solver: &mut Connect4Solver, suite: &[(Connect4, i32)]) -> u64 {
    let mut nodes = 0;
    for (pos, expected) in suite {
        solver.clear();
        let score = solver.score(black_box(pos));
        assert_eq!(score, *expected);
        nodes += solver.nodes();
    }
    nodes
}

fn suites(c: &mut Criterion) {
    let mut solver = match std::env::var("C4_BITS") {
        Ok(b) => Connect4Solver::with_table_bits(b.parse().unwrap()),
        Err(_) => Connect4Solver::new(),
    };
    let mut group = c.benchmark_group("solve_connect4");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    for (name, text) in [("Test_L2_R1", L2), ("Test_L1_R1", L1)] {
        let suite = positions(text);
        let nodes = solve_all(&mut solver, &suite);
        eprintln!(
            "{name}: {} positions, mean {:.0} nodes per position",
            suite.len(),
            nodes as f64 / suite.len() as f64
        );
        group.throughput(Throughput::Elements(suite.len() as u64));
        group.bench_function(name, |b| b.iter(|| solve_all(&mut solver, &suite)));
    }
    group.finish();
}

criterion_group!(benches, suites);
criterion_main!(benches);

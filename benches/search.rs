//! Search speed on fixed positions with the default weights: the same searches as `joute bench`,
//! timed by criterion. `cargo bench --bench search`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use joute::arena::{Engine, EngineSpec};
use joute::eval::{Evaluator, Features, LinearEval, Weights};
use joute::games::{Connect4, Morpion, Othello, Rule, random_position};

fn bench_engine<G: Features>(c: &mut Criterion, start: G, opening: &str, engine: &str) {
    let pos = start.play_sequence(opening).unwrap();
    let spec = EngineSpec::parse(engine).unwrap();
    c.bench_function(&format!("{}/{engine}/{opening}", start.name()), |b| {
        b.iter(|| {
            let mut engine = Engine::new(&spec, &start, 1).unwrap();
            black_box(engine.choose(black_box(&pos)))
        })
    });
}

fn searches(c: &mut Criterion) {
    for engine in ["alphabeta:7", "bisection:6", "mtdf:8", "pvs:8"] {
        bench_engine(c, Othello::start(), "f5d6c3d3c4", engine);
    }
    for engine in ["alphabeta:9", "pvs:12"] {
        bench_engine(c, Connect4::start(), "4453", engine);
    }
}

/// One evaluation with the default weights, untapered and tapered (the defaults as the opening
/// vector, other weights as the endgame's), over 64 positions of random games: the time
/// reported is for all 64. `cargo bench --bench search -- evaluate`.
fn evaluations<G: Features>(c: &mut Criterion, start: G) {
    let positions: Vec<G> = (0..64)
        .map(|i| random_position(start, 4 + (i as usize * 7) % 36, 1000 + i))
        .collect();
    let plain = Weights::default_for(&start);
    let mut tapered = plain.clone();
    tapered.endgame = Some(plain.values.iter().map(|w| 1.5 * w - 1.0).collect());
    for (name, weights) in [("plain", &plain), ("tapered", &tapered)] {
        let eval = LinearEval::new(&start, weights);
        c.bench_function(&format!("{}/evaluate-64/{name}", start.name()), |b| {
            b.iter(|| {
                let mut sum = 0i64;
                for pos in black_box(&positions) {
                    sum += eval.evaluate(pos) as i64;
                }
                black_box(sum)
            })
        });
    }
}

/// Renju's evaluation over 64 positions of random games by how many of its passes a weights
/// file reads: the window counts alone (the defaults), with the open windows (the threat
/// features), and with the combination features too (every weight 1 beyond the defaults).
/// `cargo bench --bench search -- renju`.
fn renju_evaluations(c: &mut Criterion) {
    let start = Morpion::with_rule(15, 15, 5, Rule::Renju);
    let positions: Vec<Morpion> = (0..64)
        .map(|i| random_position(start, 10 + (i as usize * 7) % 50, 2000 + i))
        .collect();
    let windows = Weights::default_for(&start);
    let (mut threats, mut combinations) = (windows.clone(), windows.clone());
    threats.values[9..13].fill(1.0);
    combinations.values[9..].fill(1.0);
    for (name, weights) in [
        ("windows", &windows),
        ("threats", &threats),
        ("combinations", &combinations),
    ] {
        let eval = LinearEval::new(&start, weights);
        c.bench_function(&format!("renju/evaluate-64/{name}"), |b| {
            b.iter(|| {
                let mut sum = 0i64;
                for pos in black_box(&positions) {
                    sum += eval.evaluate(pos) as i64;
                }
                black_box(sum)
            })
        });
    }
}

fn evaluate(c: &mut Criterion) {
    evaluations(c, Othello::start());
    evaluations(c, Connect4::start());
    renju_evaluations(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = searches, evaluate
}
criterion_main!(benches);

//! Search speed on fixed positions with the default weights: the same searches as `joute bench`,
//! timed by criterion. `cargo bench --bench search`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use joute::arena::{Engine, EngineSpec};
use joute::eval::Features;
use joute::games::{Connect4, Othello};

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

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = searches
}
criterion_main!(benches);

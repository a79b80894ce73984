//! Tournament throughput: one CPU-bound Othello round robin (4 engines, 6 pairings × 40 games)
//! played with 1 and with 2 worker threads; the ratio of the two is the parallel speed-up.
//! `cargo bench --bench tournament`.

use std::sync::atomic::AtomicU64;

use criterion::{Criterion, criterion_group, criterion_main};
use joute::arena::CancelToken;
use joute::arena::TournamentSpec;
use joute::arena::openings;
use joute::arena::runner::run_games;
use joute::eval::{Features, FeaturesVisitor};

const SPEC: &str = r#"
name = "bench"
game = "othello"
seed = 4
openings = { plies = 6, count = 20 }
[[engine]]
name = "ab-3"
algorithm = "alphabeta"
depth = 3
[[engine]]
name = "ab-4"
algorithm = "alphabeta"
depth = 4
[[engine]]
name = "mcts-300"
algorithm = "mcts"
playouts = 300
[[engine]]
name = "pvs-4"
algorithm = "pvs"
depth = 4
"#;

/// Plays every game of the spec on `threads` workers; returns the number of games.
struct Play<'a> {
    spec: &'a TournamentSpec,
    threads: usize,
}

impl FeaturesVisitor for Play<'_> {
    type Output = u64;
    fn visit<G: Features>(self, start: G) -> u64 {
        let openings = openings::parse_all(&start, &self.spec.resolved.opening_moves).unwrap();
        let todo: Vec<u64> = (0..self.spec.resolved.schedule().games()).collect();
        let stop = AtomicU64::new(u64::MAX);
        let mut games = 0;
        run_games(
            self.spec,
            start,
            &openings,
            &todo,
            self.threads,
            &stop,
            &CancelToken::new(),
            None,
            |_| {
                games += 1;
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        games
    }
}

fn tournament(c: &mut Criterion) {
    let spec = TournamentSpec::parse(SPEC, "bench").unwrap();
    let kind = spec.resolved.game_kind();
    let mut group = c.benchmark_group("tournament-othello-240-games");
    group.sample_size(10);
    for threads in [1, 2] {
        group.bench_function(format!("threads-{threads}"), |b| {
            b.iter(|| {
                joute::eval::dispatch(
                    &kind,
                    Play {
                        spec: &spec,
                        threads,
                    },
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, tournament);
criterion_main!(benches);

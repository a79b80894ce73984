//! The VCF and VCT searches' speed on 15×15 renju positions: the 50 openings of
//! `openings/morpion-15x15-4move.txt`, each played on by 20 to 49 seeded random moves near the
//! stones (a move ending the game skipped), the side to move searched to 12 fours (VCF) or 12
//! threats (VCT) within 20,000 nodes, one table of 2^12 entries per pass over the 50. The nodes
//! searched are printed once, so that nodes per second is their count over criterion's time.
//! `cargo bench --bench vcf`.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use joute::arena::openings::read_openings_file;
use joute::games::threats;
use joute::games::{Game, Morpion, MoveList, Rule, Side};
use joute::search::vcf::{Vcf, VcfSearch};
use joute::search::vct::{Vct, VctSearch};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The openings played on by seeded random moves near the stones.
fn positions() -> Vec<Morpion> {
    let start = Morpion::with_rule(15, 15, 5, Rule::Renju);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("openings/morpion-15x15-4move.txt");
    let openings = read_openings_file(start, &path).expect("the shipped openings");
    let mut rng = ChaCha8Rng::seed_from_u64(46);
    openings
        .iter()
        .map(|opening| {
            let mut pos = opening.iter().fold(start, |p, &m| p.play(m));
            let extra = rng.random_range(20..50);
            for _ in 0..extra {
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                pos.retain_near(&mut moves, 1);
                let next = pos.play(moves[rng.random_range(0..moves.len())]);
                if next.outcome().is_none() {
                    pos = next;
                }
            }
            pos
        })
        .collect()
}

/// The side to move's VCF in every position, with one fresh table (the positions share no
/// key): the nodes and the VCFs found.
fn search_all(positions: &[Morpion]) -> (u64, usize) {
    let mut search = VcfSearch::new(12);
    let (mut nodes, mut wins) = (0, 0);
    for pos in positions {
        let result = search.search(pos, 12, 20_000);
        nodes += result.nodes;
        wins += matches!(result.vcf, Vcf::Win(_)) as usize;
    }
    (nodes, wins)
}

/// The side to move's VCT in every position, as [`search_all`] does the VCF.
fn search_all_vct(positions: &[Morpion]) -> (u64, usize) {
    let mut search = VctSearch::new(12);
    let (mut nodes, mut wins) = (0, 0);
    for pos in positions {
        let result = search.search(pos, 12, 20_000);
        nodes += result.nodes;
        wins += matches!(result.vct, Vct::Win { .. }) as usize;
    }
    (nodes, wins)
}

fn vcf(c: &mut Criterion) {
    let positions = positions();
    let (nodes, wins) = search_all(&positions);
    eprintln!(
        "vcf: {} renju positions, {nodes} nodes, {wins} VCFs found",
        positions.len()
    );
    c.bench_function("morpion-15x15-5-renju/vcf-50", |b| {
        b.iter(|| black_box(search_all(black_box(&positions))))
    });
    let (nodes, wins) = search_all_vct(&positions);
    eprintln!(
        "vct: {} renju positions, {nodes} nodes, {wins} VCTs found",
        positions.len()
    );
    c.bench_function("morpion-15x15-5-renju/vct-50", |b| {
        b.iter(|| black_box(search_all_vct(black_box(&positions))))
    });
    c.bench_function("morpion-15x15-5-renju/three-moves-50", |b| {
        b.iter(|| {
            for pos in &positions {
                black_box(threats::three_moves(black_box(pos), pos.side_to_move()));
            }
        })
    });
    // The primitives every threat-aware search node pays for: both sides' five moves (the
    // fours on the board) and the side to move's four moves.
    c.bench_function("morpion-15x15-5-renju/five-moves-50x2", |b| {
        b.iter(|| {
            for pos in &positions {
                black_box(threats::five_moves(black_box(pos), Side::First));
                black_box(threats::five_moves(black_box(pos), Side::Second));
            }
        })
    });
    c.bench_function("morpion-15x15-5-renju/four-moves-50", |b| {
        b.iter(|| {
            for pos in &positions {
                black_box(threats::four_moves(black_box(pos), pos.side_to_move()));
            }
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = vcf
}
criterion_main!(benches);

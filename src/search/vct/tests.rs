//! The VCT search against independent judgements: the same threat tree searched naively (every
//! empty cell tried, threats judged by walking lines: `games::threats::naive`), and the exact
//! values of the generic full-depth solver on small boards.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::games::threats::naive;
use crate::games::threats::tests::random_position;
use crate::games::{MoveList, Rule, Side};
use crate::search::WIN_THRESHOLD;
use crate::search::solver::generic;
use crate::search::vcf::{Vcf, vcf};

/// The empty cells of `pos`.
fn empties(pos: &Morpion) -> Vec<usize> {
    (0..pos.cells())
        .filter(|&c| pos.mark_at(c).is_none())
        .collect()
}

/// The VCT tree of the module's definition, searched naively: the attacker's threats are the
/// empty cells where a walk of the lines finds a four or an open three, the defender's answers
/// every legal move after which the defender has a five to play or the attacker no straight
/// four to make, and the VCF at each attacker node [`naive::vcf`].
fn naive_attack(pos: &Morpion, depth: u32, vcf_depth: u32) -> bool {
    if pos.outcome().is_some() {
        return false;
    }
    let me = pos.side_to_move();
    if !naive::fives(pos, me).is_empty() {
        return true;
    }
    let theirs = naive::fives(pos, me.opponent());
    if theirs.len() >= 2 {
        return false;
    }
    if naive::vcf(pos, vcf_depth) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let moves: Vec<usize> = match theirs.first() {
        Some(&block) if pos.is_forbidden(block) => return false,
        Some(&block) => vec![block],
        None => empties(pos)
            .into_iter()
            .filter(|&c| naive::four(pos, me, c) != [0; 4] || naive::open_three(pos, me, c))
            .collect(),
    };
    moves
        .into_iter()
        .any(|m| naive_defend(&pos.play(Cell(m as u8)), depth - 1, vcf_depth))
}

/// The defender's side of [`naive_attack`].
fn naive_defend(pos: &Morpion, depth: u32, vcf_depth: u32) -> bool {
    let me = pos.side_to_move();
    let attacker = me.opponent();
    if let Some(outcome) = pos.outcome() {
        return outcome == Outcome::win(attacker);
    }
    if !naive::fives(pos, me).is_empty() {
        return false;
    }
    let fives = naive::fives(pos, attacker);
    let straight_fours = |p: &Morpion| {
        empties(p)
            .into_iter()
            .any(|c| naive::straight_four(p, attacker, c))
    };
    let answers: Vec<Cell> = match fives.len() {
        0 if !straight_fours(pos) => return false,
        0 => {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            moves
                .into_iter()
                .filter(|&a| {
                    let next = pos.play(a);
                    !naive::fives(&next, me).is_empty() || !straight_fours(&next)
                })
                .collect()
        }
        1 if pos.is_forbidden(fives[0]) => return true,
        1 => vec![Cell(fives[0] as u8)],
        _ => return true,
    };
    answers
        .into_iter()
        .all(|a| naive_attack(&pos.play(a), depth, vcf_depth))
}

/// On random 9 × 9 positions of every rule, the search and the naive tree agree at depths 1
/// and 2, with a VCF of 2 fours at each attacker node (and nodes enough for it).
#[test]
fn it_agrees_with_the_naive_tree_on_small_boards() {
    let mut rng = ChaCha8Rng::seed_from_u64(4647);
    let mut met = [0usize; 2];
    for rule in [Rule::Freestyle, Rule::Exact, Rule::Renju] {
        for i in 0..40 {
            let stones = rng.random_range(8..22);
            let pos = random_position(&mut rng, (9, 9, 5), rule, stones, 7);
            let depth = 1 + i % 2;
            let mut search = VctSearch::with_vcf(12, 2, 1_000_000);
            let found = search.search(&pos, depth, u64::MAX);
            let naive = naive_attack(&pos, depth, 2);
            let beyond_fours = naive && !naive::vcf(&pos, 2);
            assert_eq!(
                matches!(found.vct, Vct::Win { .. }),
                naive,
                "{rule:?} depth {depth}: {:?}\n{}",
                found.vct,
                pos.render()
            );
            assert_ne!(found.vct, Vct::Unknown);
            met[0] += naive as usize;
            met[1] += beyond_fours as usize;
        }
    }
    assert!(
        met[0] >= 10 && met[1] >= 3,
        "wins, wins beyond fours: {met:?}"
    );
}

/// Every VCT the search finds on small boards where no VCF wins is a win, and so is its first
/// move: checked by the generic exact solver.
#[test]
fn the_wins_it_finds_are_exact() {
    let mut rng = ChaCha8Rng::seed_from_u64(4648);
    let mut met = [0usize; 4];
    for (size, rule) in [
        ((6u8, 6u8, 4u8), Rule::Freestyle),
        ((6, 6, 4), Rule::Exact),
        ((8, 8, 5), Rule::Freestyle),
        ((7, 7, 5), Rule::Renju),
    ] {
        let cells = size.0 as usize * size.1 as usize;
        for _ in 0..2500 {
            let stones = rng.random_range(cells - 22..cells - 12);
            let pos = random_position(&mut rng, size, rule, stones, size.0);
            let open = empties(&pos).len() as u32;
            met[0] += 1;
            // The wins by fours alone are the VCF's, checked in its own tests.
            if open > 18 {
                met[2] += 1;
                continue;
            }
            if vcf(&pos, 40, 100_000).vcf != Vcf::None {
                met[3] += 1;
                continue;
            }
            let Vct::Win { first, .. } = vct(&pos, 6, 100_000).vct else {
                continue;
            };
            let exact = generic::solve(&pos, open, 4);
            assert!(exact.score >= WIN_THRESHOLD, "{rule:?}\n{}", pos.render());
            let after = pos.play(first);
            let reply = after
                .outcome()
                .map_or_else(|| generic::solve(&after, open, 4).score, |_| -WIN_THRESHOLD);
            assert!(
                reply <= -WIN_THRESHOLD,
                "{rule:?} {}\n{}",
                pos.format_move(first),
                pos.render()
            );
            met[1] += 1;
        }
    }
    assert!(
        met[1] >= 8,
        "positions, wins beyond fours, too many empties, wins by fours: {met:?}"
    );
}

/// A double open three (a three-three) wins where no four does; the search finds it at depth
/// 1 and plays the crossing point. White's under renju (black may not make one), either side's
/// in freestyle.
#[test]
fn a_three_three_is_found() {
    for rule in [Rule::Freestyle, Rule::Renju] {
        let start = Morpion::with_rule(15, 15, 5, rule);
        // White: f8 g8 along row 8, h6 h7 along column h, crossing at h8; black's stones apart.
        let pos = start
            .play_sequence("a1 f8 o1 g8 a15 h6 o15 h7 l12")
            .unwrap();
        assert_eq!(pos.side_to_move(), Side::Second);
        assert_eq!(vcf(&pos, 40, 100_000).vcf, Vcf::None);
        assert_eq!(vct(&pos, 0, 100_000).vct, Vct::None);
        let found = vct(&pos, 1, 100_000);
        let Vct::Win { first, .. } = found.vct else {
            panic!("{rule:?}: {:?}\n{}", found.vct, pos.render());
        };
        assert_eq!(pos.format_move(first), "h8", "{rule:?}");
    }
}

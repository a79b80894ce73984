//! The VCF search against an exhaustive search of the same fours-only tree written naively
//! (`games::threats::naive::vcf`: every empty cell tried, fives found by walking lines), on
//! random small positions and on hand-built puzzles.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::games::threats::naive;
use crate::games::{MoveList, Rule};

/// A random position of `size` × `size`, k = 5, of up to `stones` legal moves in the central
/// `spread` × `spread` cells; a move ending the game is skipped.
fn random_position(rng: &mut ChaCha8Rng, size: u8, rule: Rule, stones: u32, spread: u8) -> Morpion {
    let mut pos = Morpion::with_rule(size, size, 5, rule);
    let lo = (size - spread) / 2;
    let mut placed = 0;
    for _ in 0..stones * 4 {
        if placed >= stones {
            break;
        }
        let cell = (lo + rng.random_range(0..spread)) as usize * size as usize
            + (lo + rng.random_range(0..spread)) as usize;
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        if moves.contains(&Cell(cell as u8)) {
            let next = pos.play(Cell(cell as u8));
            if next.outcome().is_none() {
                pos = next;
                placed += 1;
            }
        }
    }
    pos
}

/// Plays a winning line and checks that it wins: every move legal, the defender's moves the
/// forced blocks, and the end a five or a four the defender cannot stop.
fn check_line(pos: &Morpion, line: &[Cell]) {
    let me = pos.side_to_move();
    let mut at = *pos;
    for (i, &mv) in line.iter().enumerate() {
        let mut moves = MoveList::new();
        at.legal_moves(&mut moves);
        assert!(
            moves.contains(&mv),
            "move {i} of {line:?} illegal in\n{}",
            at.render()
        );
        if i % 2 == 1 {
            // The defender blocks the attacker's only five.
            assert_eq!(naive::fives(&at, me), vec![mv.0 as usize]);
        }
        at = at.play(mv);
    }
    if at.outcome().is_some() {
        assert_eq!(at.outcome(), Some(crate::games::Outcome::win(me)));
        return;
    }
    assert_eq!(line.len() % 2, 1, "{line:?}");
    let fives = naive::fives(&at, me);
    let them = me.opponent();
    assert!(naive::fives(&at, them).is_empty());
    assert!(
        fives.len() >= 2
            || (fives.len() == 1 && naive::bound(&at, them) && at.is_forbidden(fives[0])),
        "the line's last four can be stopped:\n{}",
        at.render()
    );
}

#[test]
fn vcf_agrees_with_the_exhaustive_search_on_random_9x9() {
    let mut rng = ChaCha8Rng::seed_from_u64(46);
    let mut search = VcfSearch::new(12);
    for rule in [Rule::Freestyle, Rule::Exact, Rule::Renju] {
        let (mut wins, mut total) = (0, 0);
        for _ in 0..120 {
            let stones = rng.random_range(8..28);
            let pos = random_position(&mut rng, 9, rule, stones, 7);
            let depth = rng.random_range(1..5);
            let fast = search.search(&pos, depth, u64::MAX);
            let slow = naive::vcf(&pos, depth);
            match &fast.vcf {
                Vcf::Win(line) => {
                    assert!(
                        slow,
                        "{rule:?} depth {depth}: {line:?} in\n{}",
                        pos.render()
                    );
                    check_line(&pos, line);
                    wins += 1;
                }
                Vcf::None => assert!(!slow, "{rule:?} depth {depth} missed in\n{}", pos.render()),
                Vcf::Unknown => panic!("no node limit"),
            }
            total += 1;
        }
        // Both answers occur, or the agreement says little.
        assert!(
            wins >= 15 && total - wins >= 15,
            "{rule:?}: {wins} wins of {total}"
        );
    }
}

/// A 15×15 position from its moves under `rule`.
fn position(rule: Rule, moves: &str) -> Morpion {
    Morpion::with_rule(15, 15, 5, rule)
        .play_sequence(moves)
        .unwrap()
}

fn cells(pos: &Morpion, names: &str) -> Vec<Cell> {
    pos.parse_sequence(names).unwrap()
}

/// The shortest VCF by the exhaustive search: the first depth that wins, up to `max`.
fn naive_depth(pos: &Morpion, max: u32) -> Option<u32> {
    (0..=max).find(|&d| naive::vcf(pos, d))
}

/// X: c8 d8 e8 (closed by O b8), f9 f10 (O f7 below), d11 e11; O e10 stops the diagonal
/// g8-d11, its other stones far.
const THREE_MOVES: &str = "c8 b8 d8 f7 e8 e10 f9 a15 f10 c15 d11 e15 e11 g15";

#[test]
fn a_three_move_vcf() {
    // f8 makes a four (O g8), f11 a four on the column (O f12), c11 then a straight four.
    let pos = position(Rule::Freestyle, THREE_MOVES);
    assert_eq!(naive_depth(&pos, 4), Some(3));
    let found = vcf(&pos, 3, u64::MAX);
    assert_eq!(found.vcf, Vcf::Win(cells(&pos, "f8 g8 f11 f12 c11")));
    check_line(&pos, &cells(&pos, "f8 g8 f11 f12 c11"));
    // Two fours are not enough.
    assert_eq!(vcf(&pos, 2, u64::MAX).vcf, Vcf::None);
}

#[test]
fn a_vcf_by_a_double_four_and_none_for_renju_black() {
    // X: d8 e8 f8 (closed by O c8) and g5 g6 g7 (closed by O g4): g8 makes two fours.
    let moves = "d8 c8 e8 g4 f8 a15 g5 c15 g6 e15 g7 i15";
    let free = position(Rule::Freestyle, moves);
    assert_eq!(naive_depth(&free, 3), Some(1));
    assert_eq!(vcf(&free, 3, u64::MAX).vcf, Vcf::Win(cells(&free, "g8")));
    // With g8 taken, each four alone is blocked: the VCF is the double four's.
    let blocked = position(Rule::Freestyle, &format!("{moves} a1 g8"));
    assert_eq!(naive_depth(&blocked, 3), None);
    // Renju: the double four is forbidden to black, and was the VCF's only way: none.
    let renju = position(Rule::Renju, moves);
    assert!(renju.is_forbidden(6 + 7 * 15));
    assert_eq!(naive_depth(&renju, 4), None);
    assert_eq!(vcf(&renju, 4, u64::MAX).vcf, Vcf::None);
}

#[test]
fn renju_white_wins_by_forcing_black_onto_a_forbidden_point() {
    // Black g8 i8 h7 h9: h8 is a double three, forbidden to black. White d4 e5 f6 (c3 is
    // black's) plays g7: a four completed only at h8, which black cannot take.
    let moves = "g8 e5 i8 f6 h7 d4 h9 o1 c3";
    let renju = position(Rule::Renju, moves);
    assert_eq!(naive_depth(&renju, 3), Some(1));
    let found = vcf(&renju, 3, u64::MAX);
    assert_eq!(found.vcf, Vcf::Win(cells(&renju, "g7")));
    check_line(&renju, &cells(&renju, "g7"));
    // Freestyle: black blocks at h8, and white has nothing more.
    let free = position(Rule::Freestyle, moves);
    assert_eq!(vcf(&free, 3, u64::MAX).vcf, Vcf::None);
    assert_eq!(naive_depth(&free, 3), None);
}

#[test]
fn no_vcf_is_found_within_the_limits() {
    // A quiet position: no four anywhere, one node.
    let quiet = position(Rule::Renju, "h8 i9 g9 i7 i8 g7");
    let none = vcf(&quiet, 10, 1_000);
    assert_eq!((none.vcf, none.nodes), (Vcf::None, 1));
    // The three-move VCF cut by the node limit: unknown, within the limit.
    let pos = position(Rule::Freestyle, THREE_MOVES);
    let cut = vcf(&pos, 3, 2);
    assert_eq!((cut.vcf, cut.nodes), (Vcf::Unknown, 2));
    // The table's failures hold for the same depth and below, not above.
    let mut search = VcfSearch::new(10);
    assert_eq!(search.search(&pos, 2, u64::MAX).vcf, Vcf::None);
    assert!(matches!(search.search(&pos, 3, u64::MAX).vcf, Vcf::Win(_)));
    let again = search.search(&pos, 2, u64::MAX);
    assert_eq!((again.vcf, again.nodes), (Vcf::None, 1));
}

#[test]
fn the_defenders_four_must_be_answered() {
    // The three-move VCF's X stones, the row open, but O holds a1-a4 and X, to move, must
    // block at a5, which is no four: no VCF.
    let pos = position(
        Rule::Freestyle,
        "c8 a1 d8 a2 e8 a3 f9 a4 f10 o15 d11 o13 e11 o11",
    );
    assert_eq!(naive::fives(&pos, Side::Second), vec![4 * 15]);
    assert_eq!(naive_depth(&pos, 4), None);
    assert_eq!(vcf(&pos, 4, u64::MAX).vcf, Vcf::None);
}

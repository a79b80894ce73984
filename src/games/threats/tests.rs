//! The threats against [`super::naive`]'s plain line walks, on random positions of every rule.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::naive;
use super::*;
use crate::games::morpion::Cell;
use crate::games::{Game, MoveList};

/// A random position of `rows` × `cols` under `rule`, of up to `stones` legal moves played in
/// the central `spread` × `spread` cells (so that lines form); a move that would end the game
/// is skipped.
pub(crate) fn random_position(
    rng: &mut ChaCha8Rng,
    (rows, cols, k): (u8, u8, u8),
    rule: Rule,
    stones: usize,
    spread: u8,
) -> Morpion {
    let mut pos = Morpion::with_rule(rows, cols, k, rule);
    let (r0, c0) = ((rows - spread.min(rows)) / 2, (cols - spread.min(cols)) / 2);
    for _ in 0..stones * 4 {
        if (count(&pos.marks(Side::First)) + count(&pos.marks(Side::Second))) as usize >= stones {
            break;
        }
        let r = r0 + rng.random_range(0..spread.min(rows));
        let c = c0 + rng.random_range(0..spread.min(cols));
        let cell = (r as usize) * cols as usize + c as usize;
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        if !moves.contains(&Cell(cell as u8)) {
            continue;
        }
        let next = pos.play(Cell(cell as u8));
        if next.outcome().is_none() {
            pos = next;
        }
    }
    pos
}

/// Boards of every rule and another `k` (size, the central spread played in, rule), for the
/// tests that compare whole-board sets of cells.
const BOARDS: [((u8, u8, u8), u8, Rule); 5] = [
    ((9, 9, 5), 7, Rule::Freestyle),
    ((9, 9, 5), 7, Rule::Exact),
    ((9, 9, 5), 7, Rule::Renju),
    ((15, 15, 5), 7, Rule::Renju),
    ((8, 8, 4), 6, Rule::Freestyle),
];

/// Every threat of every empty cell, both sides, against the naive judgements; the numbers of
/// fives, fours, straight fours and open threes met, so that a test can show it met them.
fn check_position(pos: &Morpion, threes: bool) -> [usize; 4] {
    let mut met = [0; 4];
    for side in [Side::First, Side::Second] {
        let (mut fives, mut fours) = ([0u64; 4], [0u64; 4]);
        for cell in (0..pos.cells()).filter(|&c| pos.mark_at(c).is_none()) {
            let t = classify(pos, side, cell, threes);
            let at = || format!("{side:?} at {cell} of\n{}", pos.render());
            assert_eq!(t.five, naive::five(pos, side, &[], cell), "five: {}", at());
            assert_eq!(makes_five(pos, side, cell), t.five, "{}", at());
            assert_eq!(t.four, naive::four(pos, side, cell), "four: {}", at());
            assert_eq!(
                t.straight_four,
                naive::straight_four(pos, side, cell),
                "straight four: {}",
                at()
            );
            if threes {
                assert_eq!(
                    t.open_three,
                    naive::open_three(pos, side, cell),
                    "open three: {}",
                    at()
                );
            }
            met[0] += t.five as usize;
            met[1] += (t.four != [0; 4]) as usize;
            met[2] += t.straight_four as usize;
            met[3] += t.open_three as usize;
            if t.five {
                insert(&mut fives, cell);
            } else if t.four != [0; 4] {
                insert(&mut fours, cell);
            }
            // A completing cell is never forbidden for renju's black: it makes a five.
            if naive::bound(pos, side) {
                for_each(&t.four, |e| {
                    assert!(!naive::forbidden(pos, &[cell], e), "{}", at());
                    assert!(naive::five(pos, side, &[cell], e), "{}", at());
                });
            }
        }
        assert_eq!(five_moves(pos, side), fives, "{side:?}\n{}", pos.render());
        assert_eq!(four_moves(pos, side), fours, "{side:?}\n{}", pos.render());
        assert_eq!(defences(pos, side.opponent()), fives);
    }
    met
}

/// Adds what one position met to the total.
fn tally(total: &mut [usize; 4], met: [usize; 4]) {
    for (t, m) in total.iter_mut().zip(met) {
        *t += m;
    }
}

const RULES: [Rule; 3] = [Rule::Freestyle, Rule::Exact, Rule::Renju];

#[test]
fn threats_agree_with_walking_the_lines_on_small_boards() {
    let mut rng = ChaCha8Rng::seed_from_u64(46);
    for (size, games) in [((7u8, 7u8, 5u8), 60), ((9, 9, 5), 60)] {
        for rule in RULES {
            let mut met = [0; 4];
            for _ in 0..games {
                let stones = rng.random_range(4..30);
                let pos = random_position(&mut rng, size, rule, stones, 7);
                tally(&mut met, check_position(&pos, true));
            }
            // Every kind of threat was met, many times.
            assert!(met.iter().all(|&n| n >= 10), "{size:?} {rule:?}: {met:?}");
        }
    }
}

#[test]
fn threats_agree_with_walking_the_lines_on_15x15() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    for rule in RULES {
        let mut met = [0; 4];
        for _ in 0..12 {
            let stones = rng.random_range(10..50);
            let pos = random_position(&mut rng, (15, 15, 5), rule, stones, 9);
            tally(&mut met, check_position(&pos, true));
        }
        assert!(met.iter().all(|&n| n >= 5), "{rule:?}: {met:?}");
    }
}

#[test]
fn threats_agree_for_other_k_and_shapes() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for size in [(9u8, 9u8, 4u8), (8, 6, 3), (6, 9, 6), (5, 5, 2), (4, 4, 1)] {
        for rule in [Rule::Freestyle, Rule::Exact] {
            let mut met = [0; 4];
            for _ in 0..25 {
                let stones = rng.random_range(2..20);
                let pos = random_position(&mut rng, size, rule, stones, 6);
                tally(&mut met, check_position(&pos, true));
            }
            // Fours at least (k = 1 has only fives; k = 2's three needs a straight four).
            assert!(
                met[0] > 0 && (size.2 == 1 || met[1] > 0),
                "{size:?} {rule:?}: {met:?}"
            );
        }
    }
}

#[test]
fn threats_by_hand() {
    let start = Morpion::with_rule(15, 15, 5, Rule::Freestyle);
    let cell = |pos: &Morpion, name: &str| pos.parse_move(name).unwrap().0 as usize;
    // X on h8..j8 (three) with O to move elsewhere: g8 or k8 makes a straight four.
    let pos = start.play_sequence("h8 a1 i8 a2 j8 a3").unwrap();
    let t = classify(&pos, Side::First, cell(&pos, "k8"), true);
    assert!(t.straight_four && !t.five);
    assert_eq!(count(&t.four), 2);
    assert!(contains(&t.four, cell(&pos, "g8")) && contains(&t.four, cell(&pos, "l8")));
    // A broken three: f8 makes `.X.XXX` — a four completed at g8 only.
    let t = classify(&pos, Side::First, cell(&pos, "f8"), true);
    assert_eq!(t.four, {
        let mut c = [0; 4];
        insert(&mut c, cell(&pos, "g8"));
        c
    });
    assert!(!t.straight_four);
    // Two stones on the diagonal: a third beside them, or one cell apart, makes a three.
    let two = start.play_sequence("h8 a1 i9 a2").unwrap();
    assert!(makes_open_three(&two, Side::First, cell(&two, "j10")));
    assert!(makes_open_three(&two, Side::First, cell(&two, "k11")));
    assert!(!makes_open_three(&two, Side::First, cell(&two, "h10")));
    // Exactly five: an overline is no five, and a four that would become six is no four.
    let exact = Morpion::with_rule(15, 15, 5, Rule::Exact)
        .play_sequence("a8 o1 b8 o2 c8 o3 d8 o4 f8 n1")
        .unwrap();
    assert!(!makes_five(&exact, Side::First, cell(&exact, "e8")));
    let free = Morpion::with_rule(15, 15, 5, Rule::Freestyle)
        .play_sequence("a8 o1 b8 o2 c8 o3 d8 o4 f8 n1")
        .unwrap();
    assert!(makes_five(&free, Side::First, cell(&free, "e8")));
}

#[test]
fn renju_black_makes_no_threat_on_a_forbidden_point() {
    // Black: a double three at h8 (g8 i8 on the row, h7 h9... the column) is forbidden.
    let pos = Morpion::with_rule(15, 15, 5, Rule::Renju)
        .play_sequence("g8 a1 i8 a3 h7 a5 h9 a7")
        .unwrap();
    let h8 = 7 * 15 + 7;
    assert!(pos.is_forbidden(h8));
    assert_eq!(classify(&pos, Side::First, h8, true), Threat::default());
    // The same shape under freestyle: two open threes, no four.
    let free = Morpion::with_rule(15, 15, 5, Rule::Freestyle)
        .play_sequence("g8 a1 i8 a3 h7 a5 h9 a7")
        .unwrap();
    let t = classify(&free, Side::First, h8, true);
    assert!(t.open_three && t.four == [0; 4] && !t.five);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn threats_agree_on_any_sequence(
        rule in 0usize..3,
        size in prop::sample::select(vec![(7u8, 7u8), (9, 9), (9, 7)]),
        cells in prop::collection::vec(0usize..81, 0..40),
    ) {
        let rule = RULES[rule];
        let (rows, cols) = size;
        let mut pos = Morpion::with_rule(rows, cols, 5, rule);
        for c in cells {
            let c = c % pos.cells();
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.contains(&Cell(c as u8)) {
                let next = pos.play(Cell(c as u8));
                if next.outcome().is_none() {
                    pos = next;
                }
            }
        }
        check_position(&pos, true);
    }
}

/// The fives a stone made possible are on its lines: after a random legal move `m` of `side`,
/// [`five_moves_through`] holds every five move `side` did not have before, and only five moves.
#[test]
fn the_fives_a_stone_makes_possible_are_found_on_its_lines() {
    let mut rng = ChaCha8Rng::seed_from_u64(460);
    for (size, spread, rule) in [
        ((9u8, 9u8, 5u8), 7u8, Rule::Freestyle),
        ((9, 9, 5), 7, Rule::Exact),
        ((9, 9, 5), 7, Rule::Renju),
        ((15, 15, 5), 6, Rule::Renju),
        ((15, 15, 5), 6, Rule::Exact),
        ((7, 7, 4), 7, Rule::Freestyle),
    ] {
        let mut created = 0;
        for _ in 0..400 {
            let stones = rng.random_range(8..36);
            let pos = random_position(&mut rng, size, rule, stones, spread);
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            let Some(&m) = moves.get(rng.random_range(0..moves.len().max(1))) else {
                continue;
            };
            let side = pos.side_to_move();
            let next = pos.play(m);
            if next.outcome().is_some() {
                continue;
            }
            let (before, after) = (five_moves(&pos, side), five_moves(&next, side));
            let through = five_moves_through(&next, side, m.0 as usize);
            let at = || format!("{side:?} played {m:?} in\n{}", next.render());
            for w in 0..4 {
                assert_eq!(through[w] & !after[w], 0, "not a five move: {}", at());
                assert_eq!(after[w] & !before[w] & !through[w], 0, "missed: {}", at());
            }
            created += count(&through);
        }
        assert!(
            created >= 5,
            "{size:?} {rule:?}: {created} fives made possible"
        );
    }
}

/// The straight fours to make are the cells [`classify`] calls so, and the defences against
/// them are every cell (tried all, not only near the threes) after which none is left.
#[test]
fn straight_fours_and_their_defences_agree_with_every_cell_tried() {
    let mut rng = ChaCha8Rng::seed_from_u64(4633);
    let mut met = [0usize; 2];
    for (size, spread, rule) in BOARDS {
        for _ in 0..120 {
            let stones = rng.random_range(6..30);
            let pos = random_position(&mut rng, size, rule, stones, spread);
            for side in [Side::First, Side::Second] {
                let mut expected = [0u64; 4];
                for cell in (0..pos.cells()).filter(|&c| pos.mark_at(c).is_none()) {
                    if classify(&pos, side, cell, false).straight_four {
                        insert(&mut expected, cell);
                    }
                }
                assert_eq!(
                    straight_four_moves(&pos, side),
                    expected,
                    "{side:?}\n{}",
                    pos.render()
                );
            }
            let me = pos.side_to_move();
            let Some(defences) = three_defences(&pos) else {
                assert_eq!(straight_four_moves(&pos, me.opponent()), [0; 4]);
                continue;
            };
            met[0] += 1;
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            for m in moves {
                let stops = straight_four_moves(&pos.play(m), me.opponent()) == [0; 4];
                assert_eq!(
                    contains(&defences, m.0 as usize),
                    stops,
                    "{m:?}\n{}",
                    pos.render()
                );
                met[1] += stops as usize;
            }
        }
    }
    assert!(met.iter().all(|&n| n >= 20), "threes, defences: {met:?}");
}

/// The open threes to make are the cells where walking the lines finds one
/// ([`naive::open_three`]), on boards of every rule and of another `k`.
#[test]
fn three_moves_are_the_cells_walking_the_lines_calls_open_threes() {
    let mut rng = ChaCha8Rng::seed_from_u64(4634);
    let mut found = 0usize;
    for (size, spread, rule) in BOARDS {
        for _ in 0..120 {
            let stones = rng.random_range(4..30);
            let pos = random_position(&mut rng, size, rule, stones, spread);
            for side in [Side::First, Side::Second] {
                let mut expected = [0u64; 4];
                for cell in (0..pos.cells()).filter(|&c| pos.mark_at(c).is_none()) {
                    if naive::open_three(&pos, side, cell) {
                        insert(&mut expected, cell);
                    }
                }
                found += count(&expected) as usize;
                assert_eq!(
                    three_moves(&pos, side),
                    expected,
                    "{side:?}\n{}",
                    pos.render()
                );
            }
        }
    }
    assert!(found >= 500, "open threes found: {found}");
}

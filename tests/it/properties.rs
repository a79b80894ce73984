//! Property tests of the games layer: replaying a game, move notation, hashing of transpositions,
//! the symmetries of Othello, and agreement with the plain implementations in `slow/` along
//! random games.

use crate::slow;

use std::collections::{HashMap, HashSet};

use joute::games::hash::mix64;
use joute::games::{Connect4, Game, Morpion, MoveList, Othello, RandomTree, Rule, Side};
use proptest::prelude::*;

/// A game of random legal moves from `start`, at most `plies` long.
fn random_game<G: Game>(start: G, seed: u64, plies: usize) -> (Vec<G>, Vec<G::Move>) {
    joute::games::random_game(start, plies, seed)
}

fn replay_and_notation_hold<G: Game>(start: G, seed: u64, plies: usize) {
    let (positions, played) = random_game(start, seed, plies);
    let text: Vec<String> = positions
        .iter()
        .zip(&played)
        .map(|(pos, &mv)| pos.format_move(mv))
        .collect();
    let replayed = start.play_sequence(&text.join(" ")).unwrap();
    let last = *positions.last().unwrap();
    assert_eq!(replayed, last);
    assert_eq!(replayed.hash_key(), last.hash_key());
    for pos in &positions {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        assert_eq!(moves.len(), pos.move_count());
        assert_eq!(moves.is_empty(), pos.outcome().is_some(), "{pos:?}");
        for &mv in &moves {
            assert_eq!(pos.parse_move(&pos.format_move(mv)).unwrap(), mv);
        }
    }
}

/// The moves of a random game written without separators replay to the same position.
fn glued_replay_holds<G: Game>(start: G, seed: u64, plies: usize) {
    let (positions, played) = random_game(start, seed, plies);
    let text: String = positions
        .iter()
        .zip(&played)
        .map(|(pos, &mv)| pos.format_move(mv))
        .collect();
    assert_eq!(
        start.play_sequence(&text).unwrap(),
        *positions.last().unwrap(),
        "{text}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn replaying_a_game_gives_the_same_position_and_every_move_parses_back(seed in any::<u64>()) {
        replay_and_notation_hold(Othello::start(), seed, 70);
        replay_and_notation_hold(Connect4::start(), seed, 42);
        replay_and_notation_hold(Morpion::start(3, 3, 3), seed, 9);
        replay_and_notation_hold(Morpion::start(15, 15, 5), seed, 120);
        replay_and_notation_hold(Morpion::start(4, 7, 4), seed, 28);
        replay_and_notation_hold(Morpion::with_rule(15, 15, 5, Rule::Renju), seed, 120);
        replay_and_notation_hold(Morpion::with_rule(7, 7, 5, Rule::Renju), seed, 49);
        replay_and_notation_hold(Morpion::with_rule(15, 15, 5, Rule::Exact), seed, 120);
        replay_and_notation_hold(RandomTree::new(5, 6, seed), seed, 6);
    }

    #[test]
    fn othello_board_strings_parse_back_glued_or_spaced(seed in any::<u64>(), plies in 0usize..70) {
        let (positions, _) = random_game(Othello::start(), seed, plies);
        for pos in positions {
            // The board and side written here from the discs, not by to_board_string.
            let board: String = (0..64)
                .map(|sq| match (pos.black() >> sq & 1, pos.white() >> sq & 1) {
                    (1, _) => 'X',
                    (_, 1) => 'O',
                    _ => '-',
                })
                .collect();
            let side = if pos.side_to_move() == Side::First { "X" } else { "O" };
            let spaced = format!("{board} {side}");
            prop_assert_eq!(&pos.to_board_string(), &spaced);
            for text in [spaced.clone(), format!("{board}{side}"), format!("{board}{}", side.to_lowercase())] {
                prop_assert_eq!(Othello::start().parse_position(&text).unwrap(), pos, "{}", text);
            }
        }
    }

    #[test]
    fn moves_run_together_replay_the_same_game(seed in any::<u64>()) {
        glued_replay_holds(Othello::start(), seed, 70);
        glued_replay_holds(Connect4::start(), seed, 42);
        glued_replay_holds(Morpion::start(15, 15, 5), seed, 120);
        glued_replay_holds(Morpion::start(4, 7, 4), seed, 28);
        glued_replay_holds(Morpion::with_rule(15, 15, 5, Rule::Renju), seed, 120);
    }

    #[test]
    fn othello_symmetric_positions_have_the_same_number_of_moves(seed in any::<u64>(), plies in 0usize..60) {
        let (positions, _) = random_game(Othello::start(), seed, plies);
        let pos = *positions.last().unwrap();
        let images = pos.symmetries();
        for image in images {
            prop_assert_eq!(image.move_count(), pos.move_count());
            prop_assert_eq!(image.moves_mask().count_ones(), pos.moves_mask().count_ones());
            prop_assert_eq!(joute::games::perft::perft(&image, 2), joute::games::perft::perft(&pos, 2));
        }
    }

    #[test]
    fn morpion_moves_in_another_order_reach_the_same_position_and_hash(seed in any::<u64>(), plies in 2usize..20) {
        let start = Morpion::start(6, 6, 5);
        let (positions, played) = random_game(start, seed, plies);
        let last = *positions.last().unwrap();
        prop_assume!(last.outcome().is_none());
        // Shuffle each side's moves among themselves: the same board by another move order.
        let mut state = mix64(seed ^ 1);
        let mut by_side = [vec![], vec![]];
        for (i, &mv) in played.iter().enumerate() {
            by_side[i % 2].push(mv);
        }
        for moves in &mut by_side {
            for i in (1..moves.len()).rev() {
                state = mix64(state);
                moves.swap(i, (state % (i as u64 + 1)) as usize);
            }
        }
        let mut pos = start;
        for i in 0..played.len() {
            let mv = by_side[i % 2][i / 2];
            prop_assume!(pos.outcome().is_none());
            pos = pos.play(mv);
        }
        prop_assert_eq!(pos, last);
        prop_assert_eq!(pos.hash_key(), last.hash_key());
    }

    #[test]
    fn othello_agrees_with_the_plain_implementation(seed in any::<u64>()) {
        let (positions, played) = random_game(Othello::start(), seed, 80);
        let mut slow = slow::SlowOthello::start();
        for (i, pos) in positions.iter().enumerate() {
            prop_assert_eq!(pos.to_board_string(), slow.board_string());
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            let mut fast: Vec<String> = moves.iter().map(|&m| pos.format_move(m)).collect();
            let mut expected = slow.moves();
            fast.sort();
            expected.sort();
            prop_assert_eq!(fast, expected);
            prop_assert_eq!(pos.outcome().map(|o| o.score), slow.final_score());
            if let Some(&mv) = played.get(i) {
                slow = slow.play(&pos.format_move(mv));
            }
        }
    }

    #[test]
    fn connect4_agrees_with_the_plain_implementation(seed in any::<u64>()) {
        let (positions, played) = random_game(Connect4::start(), seed, 42);
        let mut slow = slow::SlowConnect4::start();
        for (i, pos) in positions.iter().enumerate() {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            let fast: Vec<usize> = moves.iter().map(|m| m.0 as usize + 1).collect();
            prop_assert_eq!(fast, slow.moves());
            let winner = pos.outcome().and_then(|o| o.winner).map(|s| s as u8 + 1).unwrap_or(0);
            prop_assert_eq!(winner, slow.winner);
            prop_assert_eq!(pos.outcome().is_some(), slow.winner != 0 || slow.full());
            if let Some(&mv) = played.get(i) {
                slow = slow.play(mv.0 as usize + 1);
            }
        }
    }
}

/// The legal moves of a Morpion position as cell names.
fn move_names(pos: &Morpion) -> Vec<String> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves.iter().map(|&m| pos.format_move(m)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn gomoku_rules_agree_with_the_plain_referee_along_random_games(seed in any::<u64>()) {
        use slow::renju::{SlowFive, SlowRule};
        for (rule, slow_rule, side) in [(Rule::Renju, SlowRule::Renju, 9), (Rule::Exact, SlowRule::Exact, 8)] {
            let start = Morpion::with_rule(side, side, 5, rule);
            let (positions, played) = random_game(start, seed, side as usize * side as usize);
            let mut slow = SlowFive::start(side as usize, side as usize, slow_rule);
            for (i, pos) in positions.iter().enumerate() {
                prop_assert_eq!(move_names(pos), slow.moves(), "{:?} ply {}", rule, i);
                let winner = pos.outcome().and_then(|o| o.winner).map_or(0, |s| s as u8 + 1);
                prop_assert_eq!(winner, slow.winner);
                prop_assert_eq!(pos.outcome().is_some(), slow.over);
                if let Some(&mv) = played.get(i) {
                    slow = slow.play(&pos.format_move(mv));
                }
            }
        }
    }

    #[test]
    fn renju_forbids_only_black_and_only_empty_points(seed in any::<u64>()) {
        for rule in [Rule::Renju, Rule::Exact, Rule::Freestyle] {
            let (positions, _) = random_game(Morpion::with_rule(9, 9, 5, rule), seed, 81);
            for pos in positions.iter().filter(|p| p.outcome().is_none()) {
                let forbidden = pos.forbidden();
                let empties: Vec<usize> = (0..pos.cells()).filter(|&i| pos.mark_at(i).is_none()).collect();
                let names: Vec<String> = empties
                    .iter()
                    .filter(|&&i| forbidden[i / 64] >> (i % 64) & 1 == 0)
                    .map(|&i| pos.format_move(joute::games::morpion::Cell(i as u8)))
                    .collect();
                prop_assert_eq!(move_names(pos), names);
                let count: u32 = forbidden.iter().map(|w| w.count_ones()).sum();
                if rule != Rule::Renju || pos.side_to_move() == Side::Second {
                    prop_assert_eq!(count, 0);
                }
                for i in 0..pos.cells() {
                    let marked = forbidden[i / 64] >> (i % 64) & 1 == 1;
                    prop_assert_eq!(marked, pos.is_forbidden(i));
                }
            }
        }
    }
}

/// Every position of a game's tree to `depth`, with how many move orders reach it.
fn reached<G: Game>(pos: G, depth: u32, seen: &mut HashMap<u64, (G, u32)>) {
    let entry = seen.entry(pos.hash_key()).or_insert((pos, 0));
    // Equal hashes must come from equal positions (no collision among these few), and equal
    // positions hash alike by construction of the map: a second order lands on the same entry.
    assert_eq!(entry.0, pos, "hash collision");
    entry.1 += 1;
    if depth == 0 {
        return;
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    for &mv in &moves {
        reached(pos.play(mv), depth - 1, seen);
    }
}

fn transpositions_hash_alike<G: Game>(start: G, depth: u32) {
    let mut seen = HashMap::new();
    reached(start, depth, &mut seen);
    let transposed = seen.values().filter(|(_, n)| *n > 1).count();
    assert!(
        transposed > 0,
        "{}: no transposition within {depth} plies",
        start.name()
    );
    // Distinct positions must have distinct hashes: count positions by equality, not by hash.
    let distinct: HashSet<G> = seen.values().map(|(p, _)| *p).collect();
    assert_eq!(distinct.len(), seen.len());
}

#[test]
fn positions_reached_by_different_move_orders_hash_alike() {
    transpositions_hash_alike(Othello::start(), 6);
    transpositions_hash_alike(Connect4::start(), 6);
    transpositions_hash_alike(Morpion::start(3, 3, 3), 9);
    transpositions_hash_alike(Morpion::start(4, 5, 4), 4);
}

#[test]
fn morpion_3x3_has_5478_distinct_positions() {
    let mut seen = HashMap::new();
    reached(Morpion::start(3, 3, 3), 9, &mut seen);
    assert_eq!(seen.len(), 5478);
}

//! Perft counts: the published counts, and counts of boards without published
//! figures checked against the plain implementations in `slow/`.

use crate::slow;

use joute::games::perft::{divide, perft, perft_parallel};
use joute::games::{Connect4, Game, Morpion, MoveList, Othello, Outcome, Rule, Side};

#[test]
fn othello_perft_to_9_matches_the_published_counts() {
    let expected = [4u64, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288];
    let counts: Vec<u64> = (1..=9).map(|d| perft(&Othello::start(), d)).collect();
    assert_eq!(counts, expected);
}

#[test]
fn connect4_perft_to_8_matches_the_published_counts() {
    let expected = [7u64, 49, 343, 2401, 16807, 117649, 823536, 5673234];
    let counts: Vec<u64> = (1..=8).map(|d| perft(&Connect4::start(), d)).collect();
    assert_eq!(counts, expected);
}

#[test]
fn morpion_3x3_perft_to_9_matches_the_published_counts() {
    let expected = [9u64, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872];
    let counts: Vec<u64> = (1..=9)
        .map(|d| perft(&Morpion::start(3, 3, 3), d))
        .collect();
    assert_eq!(counts, expected);
}

#[test]
fn othello_and_connect4_match_plain_implementations() {
    let slow = slow::SlowOthello::start();
    for d in 1..=6 {
        assert_eq!(
            perft(&Othello::start(), d),
            slow.perft(d),
            "othello depth {d}"
        );
    }
    let slow = slow::SlowConnect4::start();
    for d in 1..=6 {
        assert_eq!(
            perft(&Connect4::start(), d),
            slow.perft(d),
            "connect4 depth {d}"
        );
    }
}

#[test]
fn perft_from_an_othello_endgame_with_passes() {
    // FFO #40 has 20 empty squares; counts checked against the plain implementation, which
    // exercises passes and game ends deep in the tree.
    let text = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
    let fast = Othello::start().parse_position(text).unwrap();
    let mut slow = slow::SlowOthello::start();
    for (i, ch) in text[..64].chars().enumerate() {
        slow.board[i / 8][i % 8] = match ch {
            'X' => 1,
            'O' => 2,
            _ => 0,
        };
    }
    for d in 1..=5 {
        assert_eq!(perft(&fast, d), slow.perft(d), "depth {d}");
    }
}

#[test]
fn parallel_perft_and_divide_sum_to_the_serial_count() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let serial = perft(&Othello::start(), 8);
    assert_eq!(
        pool.install(|| perft_parallel(&Othello::start(), 8)),
        serial
    );
    for parallel in [false, true] {
        let parts = pool.install(|| divide(&Othello::start(), 8, parallel));
        assert_eq!(parts.len(), 4);
        assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), serial);
    }
}

/// A 15×15 board text with `black` and `white` stones (cell names), white filled up from the
/// bottom row (`a15`, `c15`, `e15`, ..., spaced so they make no line) until the counts are
/// equal: black to move.
fn gomoku_board(black: &[&str], white: &[&str]) -> String {
    let index = |name: &str| {
        let col = (name.as_bytes()[0] - b'a') as usize;
        let row: usize = name[1..].parse().unwrap();
        (row - 1) * 15 + col
    };
    let mut cells = vec!['.'; 225];
    for &b in black {
        cells[index(b)] = 'X';
    }
    for &w in white {
        cells[index(w)] = 'O';
    }
    let mut fillers = (0..8)
        .map(|i| 14 * 15 + 2 * i)
        .chain((0..8).map(|i| 12 * 15 + 2 * i));
    while cells.iter().filter(|&&c| c == 'O').count() < black.len() {
        let at = fillers.next().expect("enough fillers");
        assert_eq!(cells[at], '.');
        cells[at] = 'O';
    }
    cells
        .chunks(15)
        .map(|r| r.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether black may play `at` in renju, as joute and the plain referee judge it (they must
/// agree), and what the move does under joute.
fn renju_verdict(black: &[&str], white: &[&str], at: &str) -> (bool, Option<Outcome>) {
    let board = gomoku_board(black, white);
    let renju = Morpion::with_rule(15, 15, 5, Rule::Renju);
    let pos = renju.parse_position(&board).unwrap();
    let slow = slow::renju::SlowFive::from_board(15, 15, slow::renju::SlowRule::Renju, &board);
    let legal = slow.moves().contains(&at.to_string());
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let fast = moves.iter().any(|&m| pos.format_move(m) == at);
    assert_eq!(fast, legal, "{at} on {board}");
    assert_eq!(pos.parse_move(at).is_ok(), legal, "{at}");
    let outcome = pos
        .parse_move(at)
        .ok()
        .and_then(|mv| pos.play(mv).outcome());
    (legal, outcome)
}

#[test]
fn renju_forbidden_shapes_hand_checked() {
    let far = ["a1", "c1", "e1", "g1"];
    // A double three: h8 makes g8-h8-i8 and h6-h7-h8, both open.
    assert!(!renju_verdict(&["g8", "i8", "h6", "h7"], &far, "h8").0);
    // One three is fine, and so is a three closed at one end with another three.
    assert!(renju_verdict(&["g8", "i8", "a8", "c8"], &far, "h8").0);
    assert!(renju_verdict(&["g8", "i8", "h6", "h7"], &["h5", "c1", "e1", "g1"], "h8").0);
    // A double four in two lines, and in one line (d8 f8 g8 h8 j8: e8 and i8 each make five).
    assert!(!renju_verdict(&["e8", "f8", "g8", "h5", "h6", "h7"], &far, "h8").0);
    assert!(!renju_verdict(&["d8", "f8", "g8", "j8"], &far, "h8").0);
    // A four and a three: allowed.
    assert!(
        renju_verdict(
            &["e8", "f8", "g8", "h6", "h7"],
            &["d8", "c1", "e1", "g1", "a3"],
            "h8"
        )
        .0
    );
    // An overline: forbidden; white's wins.
    assert!(!renju_verdict(&["c8", "d8", "e8", "g8", "h8"], &far, "f8").0);
    let white_six = Morpion::with_rule(15, 15, 5, Rule::Renju)
        .parse_position(&gomoku_board(
            &["a1", "a3", "a5", "a7", "a9", "a11"],
            &["c8", "d8", "e8", "g8", "h8"],
        ))
        .unwrap();
    let white_six = white_six.play(white_six.parse_move("o15").unwrap());
    let mv = white_six.parse_move("f8").unwrap();
    assert_eq!(
        white_six.play(mv).outcome(),
        Some(Outcome::win(Side::Second))
    );
    // A five wins even when it also makes a double three, or an overline in another line.
    let (legal, outcome) = renju_verdict(
        &["d8", "e8", "f8", "g8", "h6", "h7", "f6", "g7"],
        &far,
        "h8",
    );
    assert!(legal);
    assert_eq!(outcome, Some(Outcome::win(Side::First)));
    let (legal, outcome) = renju_verdict(
        &["d8", "e8", "f8", "g8", "h4", "h5", "h6", "h7", "h9"],
        &["a1", "c1", "e1", "g1", "i1", "k1", "m1", "o1"],
        "h8",
    );
    assert!(legal);
    assert_eq!(outcome, Some(Outcome::win(Side::First)));
    // A false three: h8 makes g8-h8-i8 (open) and h6-h7-h8, whose only straight four, h9, is an
    // overline point (f9 g9 _ i9 j9 k9): one real three, so h8 is allowed; with h4 free, h5
    // also makes the straight four and h8 is a double three.
    let row9 = ["g8", "i8", "h6", "h7", "f9", "g9", "i9", "j9", "k9"];
    assert!(renju_verdict(&row9, &["h4", "a1", "c1", "e1", "g1"], "h8").0);
    assert!(!renju_verdict(&row9, &["a1", "c1", "e1", "g1"], "h8").0);
}

#[test]
fn renju_and_exact_five_match_a_plain_referee_on_crowded_boards() {
    use slow::renju::{SlowFive, SlowRule};
    let mut forbidden_seen = 0;
    let mut state = 0x5eed_u64;
    let mut next = move || {
        state = joute::games::hash::mix64(state);
        state
    };
    for (rows, cols, span, stones, boards, depth) in [
        (15, 15, 9, 22, 24, 2),
        (9, 9, 9, 26, 24, 2),
        (7, 7, 7, 16, 12, 3),
    ] {
        for _ in 0..boards {
            // `stones` of each colour at random on the central span × span square.
            let (r0, c0) = ((rows - span) / 2, (cols - span) / 2);
            let mut cells = vec!['.'; rows * cols];
            for colour in ['X', 'O'] {
                let mut placed = 0;
                while placed < stones {
                    let (r, c) = (
                        r0 + (next() % span as u64) as usize,
                        c0 + (next() % span as u64) as usize,
                    );
                    if cells[r * cols + c] == '.' {
                        cells[r * cols + c] = colour;
                        placed += 1;
                    }
                }
            }
            let board: String = cells.iter().collect();
            for (rule, slow_rule) in [
                (Rule::Renju, SlowRule::Renju),
                (Rule::Exact, SlowRule::Exact),
            ] {
                let start = Morpion::with_rule(rows as u8, cols as u8, 5, rule);
                let Ok(fast) = start.parse_position(&board) else {
                    continue;
                };
                if fast.outcome().is_some() {
                    continue;
                }
                let slow = SlowFive::from_board(rows, cols, slow_rule, &board);
                let mut moves = MoveList::new();
                fast.legal_moves(&mut moves);
                let names: Vec<String> = moves.iter().map(|&m| fast.format_move(m)).collect();
                assert_eq!(names, slow.moves(), "{rule:?} {board}");
                forbidden_seen += fast.forbidden().iter().map(|w| w.count_ones()).sum::<u32>();
                assert_eq!(
                    perft(&fast, depth),
                    slow.perft(depth),
                    "{rule:?} {board} depth {depth}"
                );
            }
        }
    }
    assert!(
        forbidden_seen >= 20,
        "only {forbidden_seen} forbidden points met"
    );
}

/// The long suites: ignored by a plain `cargo test`, run by CI (`.ci/run`) and by
/// `cargo test --test it -- --ignored ::long::`.
mod long {
    use super::*;

    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn morpion_4x4_and_5x5_match_a_plain_implementation() {
        for (rows, cols, k, depth) in [
            (4, 4, 3, 6),
            (4, 4, 4, 5),
            (5, 5, 4, 4),
            (5, 5, 3, 5),
            (3, 5, 3, 7),
            (4, 3, 2, 6),
        ] {
            let fast = Morpion::start(rows as u8, cols as u8, k as u8);
            let slow = slow::SlowMnk::start(rows, cols, k);
            for d in 1..=depth {
                assert_eq!(
                    perft(&fast, d),
                    slow.perft(d),
                    "morpion-{rows}x{cols}-{k} depth {d}"
                );
            }
        }
    }

    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn gomoku_rules_perft_from_the_start_and_an_opening() {
        use slow::renju::{SlowFive, SlowRule};
        for (rule, slow_rule) in [
            (Rule::Freestyle, SlowRule::Freestyle),
            (Rule::Exact, SlowRule::Exact),
            (Rule::Renju, SlowRule::Renju),
        ] {
            let fast = Morpion::with_rule(7, 7, 5, rule);
            let slow = SlowFive::start(7, 7, slow_rule);
            for d in 1..=3 {
                assert_eq!(perft(&fast, d), slow.perft(d), "{rule:?} depth {d}");
            }
        }
    }
}

//! Perft counts: the published counts, and counts of boards without published
//! figures checked against the plain implementations in `slow/`.

use crate::slow;

use joute::games::perft::{divide, perft, perft_parallel};
use joute::games::{Connect4, Game, Morpion, Othello};

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

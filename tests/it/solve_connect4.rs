//! The Connect 4 solver against the public test suites (copied into `tests/data/connect4/`) and
//! against an independent brute force on positions near the end of the game.

use joute::games::connect4::{Column, Connect4};
use joute::games::{Game, MoveList};
use joute::search::solver::connect4::{Connect4Solver, parse_suite_line};

const L3: &str = include_str!("../data/connect4/Test_L3_R1.txt");
const L2: &str = include_str!("../data/connect4/Test_L2_R1.txt");
const L1: &str = include_str!("../data/connect4/Test_L1_R1.txt");

fn suite(text: &str) -> Vec<(String, Connect4, i32)> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let (pos, score) =
                parse_suite_line(line).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
            (line.to_string(), pos, score)
        })
        .collect()
}

/// Solves every position of a suite, each independently (table cleared), and lists the misses.
fn check_suite(name: &str, text: &str, step: usize) {
    let positions = suite(text);
    assert_eq!(positions.len(), 1000, "{name}");
    let mut solver = Connect4Solver::new();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (line, pos, expected) in positions.iter().step_by(step) {
        solver.clear();
        let got = solver.score(pos);
        assert!(solver.nodes() > 0 || pos.move_count() == 0);
        if got != *expected {
            wrong.push(format!("{line}: got {got}"));
        }
        checked += 1;
    }
    assert!(wrong.is_empty(), "{name}: {} wrong: {wrong:?}", wrong.len());
    assert_eq!(checked, 1000_usize.div_ceil(step));
}

#[test]
fn every_end_position_is_solved_exactly() {
    check_suite("Test_L3_R1", L3, 1);
}

#[test]
fn every_middle_position_is_solved_exactly() {
    check_suite("Test_L2_R1", L2, 1);
}

#[test]
fn every_early_position_is_solved_exactly() {
    check_suite("Test_L1_R1", L1, 1);
}

/// The score of a finished game for the side to move, written from the suite's definition.
fn finished_score(pos: &Connect4) -> Option<i32> {
    if pos.last_move_won() {
        let winner_stones = (pos.current ^ pos.mask).count_ones() as i32;
        Some(-(22 - winner_stones))
    } else if pos.stones() == 42 {
        Some(0)
    } else {
        None
    }
}

/// Plain full-depth negamax over the `Game` interface: no pruning, no table, no bitboard tricks.
fn brute_force(pos: &Connect4) -> i32 {
    if let Some(score) = finished_score(pos) {
        return score;
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves
        .iter()
        .map(|&m| -brute_force(&pos.play(m)))
        .max()
        .expect("an unfinished game has a move")
}

fn legal_moves(pos: &Connect4) -> Vec<Column> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves.to_vec()
}

/// Positions with at most `empty` empty cells, unfinished, from the suites' own lines cut short
/// of their end and from seeded random games.
fn near_end_positions(empty: u32, count: usize) -> Vec<Connect4> {
    let mut out = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    while out.len() < count {
        let mut pos = Connect4::start();
        loop {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            if pos.stones() >= 42 - empty {
                out.push(pos);
                break;
            }
            pos = pos.play(moves[(next() % moves.len() as u64) as usize]);
        }
    }
    out
}

#[test]
fn near_end_positions_match_brute_force() {
    let mut solver = Connect4Solver::with_table_bits(16);
    let mut positions = near_end_positions(10, 150);
    // The end suite's lines with their last few moves cut off reach back to 10 empty cells.
    for (line, _, _) in suite(L3).iter().step_by(50) {
        let moves = line.split_whitespace().next().unwrap();
        let keep = moves.len().min(32);
        positions.push(Connect4::start().play_digits(&moves[..keep]).unwrap());
    }
    let mut decided = 0;
    for pos in &positions {
        let expected = brute_force(pos);
        decided += (expected != 0) as usize;
        solver.clear();
        assert_eq!(solver.score(pos), expected, "{pos:?}");
        let solution = solver.solve(pos);
        assert_eq!(solution.score, expected);
        let best: Vec<Column> = legal_moves(pos)
            .into_iter()
            .filter(|&m| -brute_force(&pos.play(m)) == expected)
            .collect();
        assert_eq!(solution.best_moves, best, "{pos:?}");
    }
    // The sample is not trivially all draws.
    assert!(decided > 20, "{decided}");
}

/// `solve` lists exactly the moves whose child scores `-score`: checked with independent
/// `score` calls on every child, on a sample of the end and middle suites.
#[test]
fn best_moves_are_exactly_those_reaching_the_score() {
    let mut solver = Connect4Solver::with_table_bits(20);
    let mut child_solver = Connect4Solver::with_table_bits(20);
    let mut several = 0;
    for (text, step) in [(L3, 10), (L2, 10)] {
        for (line, pos, expected) in suite(text).iter().step_by(step) {
            solver.clear();
            let solution = solver.solve(pos);
            assert_eq!(solution.score, *expected, "{line}");
            assert!(!solution.best_moves.is_empty(), "{line}");
            assert!(solution.nodes > 0);
            several += (solution.best_moves.len() > 1) as usize;
            for m in legal_moves(pos) {
                let child = pos.play(m);
                child_solver.clear();
                let value = -child_solver.score(&child);
                assert!(
                    value <= *expected,
                    "{line}: move {} beats the score",
                    m.0 + 1
                );
                assert_eq!(
                    solution.best_moves.contains(&m),
                    value == *expected,
                    "{line}: move {} scores {value}",
                    m.0 + 1
                );
            }
        }
    }
    assert!(several > 5, "{several}");
}

/// On early positions, the exact score of a losing move's child can cost far more than the
/// position itself, so only the listed moves are checked: each child scores exactly `-score`.
#[test]
fn early_best_moves_reach_the_score() {
    let mut solver = Connect4Solver::with_table_bits(20);
    let mut child_solver = Connect4Solver::with_table_bits(20);
    for (line, pos, expected) in suite(L1).iter().step_by(20) {
        solver.clear();
        let solution = solver.solve(pos);
        assert_eq!(solution.score, *expected, "{line}");
        assert!(!solution.best_moves.is_empty(), "{line}");
        for &m in &solution.best_moves {
            child_solver.clear();
            assert_eq!(
                -child_solver.score(&pos.play(m)),
                *expected,
                "{line}: move {}",
                m.0 + 1
            );
        }
    }
}

#[test]
fn a_kept_or_tiny_table_gives_the_same_scores() {
    // Results never depend on what the table holds from earlier positions, nor on how often
    // entries are overwritten (2^10 entries: nearly every store replaces another position).
    let mut kept = Connect4Solver::with_table_bits(14);
    let mut tiny = Connect4Solver::with_table_bits(10);
    for (line, pos, expected) in suite(L2).iter().step_by(5) {
        assert_eq!(kept.score(pos), *expected, "{line}");
        tiny.clear();
        assert_eq!(tiny.score(pos), *expected, "{line}");
    }
}

#[test]
fn finished_and_immediate_positions() {
    let mut solver = Connect4Solver::new();
    // The second player, to move, has lost to a vertical four of the first player's 4th stone.
    let pos = Connect4::start().play_digits("1212121").unwrap();
    assert_eq!(solver.score(&pos), -18);
    let s = solver.solve(&pos);
    assert_eq!((s.score, s.best_moves.len()), (-18, 0));
    // The first player to move wins at once with its 4th stone in column 1: 22 - 4.
    let pos = Connect4::start().play_digits("121212").unwrap();
    let s = solver.solve(&pos);
    assert_eq!(s.score, 18);
    assert_eq!(s.best_moves, vec![Column(0)]);
    // A full board without four: a draw, no move.
    let drawn = find_drawn_full_board();
    assert_eq!(solver.score(&drawn), 0);
    assert!(solver.solve(&drawn).best_moves.is_empty());
}

fn find_drawn_full_board() -> Connect4 {
    let mut state = 7u64;
    for _ in 0..1_000_000 {
        let mut pos = Connect4::start();
        loop {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            pos = pos.play(moves[((state >> 33) % moves.len() as u64) as usize]);
        }
        if !pos.last_move_won() {
            return pos;
        }
    }
    panic!("no random game ended in a draw");
}

#[test]
fn suite_lines_are_read_with_clear_errors() {
    let (pos, score) = parse_suite_line("4453 -7").unwrap();
    assert_eq!(pos, Connect4::start().play_digits("4453").unwrap());
    assert_eq!(score, -7);
    let (pos, score) = parse_suite_line("  12 3\r").unwrap();
    assert_eq!((pos.stones(), score), (2, 3));
    for (line, needle) in [
        ("", "MOVES SCORE"),
        ("4453", "MOVES SCORE"),
        ("4453 x", "score 'x' is not an integer"),
        ("4453 1 2", "'2' after the score"),
        ("4489 1", "column 1..7"),
        ("4444444 0", "column 4 is full"),
        ("12121212 0", "already won"),
    ] {
        let err = parse_suite_line(line).unwrap_err().to_string();
        assert!(err.contains(needle), "{line:?}: {err}");
    }
}

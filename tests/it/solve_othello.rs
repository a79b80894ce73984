//! The Othello endgame solver: FFO #40–#44 against their published values, and a few hundred
//! random endgames against a plain negamax written here over the `Game` trait.

use std::time::Instant;

use joute::games::othello::{Othello, OthelloMove};
use joute::games::{Game, MoveList, Side};
use joute::search::solver::othello::{FfoEntry, OthelloSolver, parse_ffo_line};

const SUITE: &str = include_str!("../data/othello-ffo-40-59.txt");

fn suite() -> Vec<FfoEntry> {
    SUITE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| parse_ffo_line(l).unwrap())
        .collect()
}

/// Full-depth negamax over the `Game` trait only: the final disc difference for the side to move.
fn negamax(pos: &Othello) -> i32 {
    if let Some(outcome) = pos.outcome() {
        return if pos.side_to_move() == Side::First {
            outcome.score
        } else {
            -outcome.score
        };
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves.iter().map(|&m| -negamax(&pos.play(m))).max().unwrap()
}

/// splitmix64, so the positions are the same on every run.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A position reached by random play from the start, stopped at `empties` empty squares or
/// at the end of the game, whichever comes first.
fn random_position(state: &mut u64, empties: u32) -> Othello {
    let mut pos = Othello::start();
    while (!(pos.player | pos.opponent)).count_ones() > empties && pos.outcome().is_none() {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let mv = moves[(next(state) % moves.len() as u64) as usize];
        pos = pos.play(mv);
    }
    pos
}

#[test]
fn random_endgames_match_a_plain_negamax() {
    let mut state = 2026;
    let mut solver = OthelloSolver::with_hash_bits(16);
    let mut all_solver = OthelloSolver::with_hash_bits(16).all_best_moves(true);
    let (mut passes, mut finished) = (0, 0);
    for i in 0..400 {
        // 0..=10 empties; 0 plays the game out, so some games are finished at the root.
        let empties = (i % 11) as u32;
        let pos = random_position(&mut state, empties);
        let expected = negamax(&pos);
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            finished += 1;
        } else if moves[0] == OthelloMove::PASS {
            passes += 1;
        }
        // Every move's exact value, for checking the best moves.
        let values: Vec<(OthelloMove, i32)> =
            moves.iter().map(|&m| (m, -negamax(&pos.play(m)))).collect();
        let best: Vec<OthelloMove> = values
            .iter()
            .filter(|&&(_, v)| v == expected)
            .map(|&(m, _)| m)
            .collect();

        // Independent solves and solves that share a table must both be exact.
        if i % 2 == 0 {
            solver.clear();
        }
        let one = solver.solve(&pos);
        assert_eq!(one.score, expected, "{}", pos.to_board_string());
        assert!(one.best_moves.len() <= 1);
        assert_eq!(one.best_moves.is_empty(), moves.is_empty());
        if let Some(mv) = one.best_moves.first() {
            assert!(best.contains(mv), "{}", pos.to_board_string());
        }

        all_solver.clear();
        let all = all_solver.solve(&pos);
        assert_eq!(all.score, expected, "{}", pos.to_board_string());
        let mut found = all.best_moves.clone();
        found.sort_by_key(|m| m.0);
        assert_eq!(found, best, "{}", pos.to_board_string());
    }
    assert!(passes > 0, "no position with a pass to move");
    assert!(finished > 0, "no finished game");
}

/// Alpha-beta over the `Game` trait only, fail-hard within `(alpha, beta)`: the exact value
/// when it lies inside the window.
fn alphabeta(pos: &Othello, mut alpha: i32, beta: i32) -> i32 {
    if pos.outcome().is_some() {
        return negamax(pos);
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    for &m in moves.iter() {
        alpha = alpha.max(-alphabeta(&pos.play(m), -beta, -alpha));
        if alpha >= beta {
            return beta;
        }
    }
    alpha
}

/// Solves `pos` on `threads` threads from a clear table, one best move or all.
fn solve_on(pos: &Othello, threads: usize, all: bool) -> (i32, Vec<OthelloMove>, u64) {
    let mut solver = OthelloSolver::with_hash_bits(18)
        .all_best_moves(all)
        .threads(threads);
    let s = solver.solve(pos);
    assert!(s.stopped.is_none());
    (s.score, s.best_moves, s.nodes)
}

#[test]
fn two_threads_find_the_scores_and_moves_of_one() {
    let mut state = 45;
    let mut checked = 0;
    for i in 0..40 {
        let pos = random_position(&mut state, 14 + i % 5);
        if pos.outcome().is_some() {
            continue;
        }
        for all in [false, true] {
            let (score, moves, _) = solve_on(&pos, 1, all);
            for threads in [2, 3] {
                let (s, m, nodes) = solve_on(&pos, threads, all);
                assert_eq!((s, &m), (score, &moves), "{}", pos.to_board_string());
                assert!(nodes > 0);
            }
        }
        checked += 1;
    }
    assert!(checked >= 35, "{checked}");
}

#[test]
fn two_threads_solve_small_endgames_exactly() {
    // 12 and 13 empties: parallel (from `PARALLEL_EMPTIES`), and small enough for a plain
    // alpha-beta of every root move.
    let mut state = 4545;
    let mut checked = 0;
    for i in 0..16 {
        let pos = random_position(&mut state, 12 + i % 2);
        if pos.outcome().is_some() || pos.moves_mask() == 0 {
            continue;
        }
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let values: Vec<(OthelloMove, i32)> = moves
            .iter()
            .map(|&m| (m, -alphabeta(&pos.play(m), -65, 65)))
            .collect();
        let score = values.iter().map(|&(_, v)| v).max().unwrap();
        let mut best: Vec<OthelloMove> = values
            .iter()
            .filter(|&&(_, v)| v == score)
            .map(|&(m, _)| m)
            .collect();
        best.sort_by_key(|m| m.0);
        let (s, mut all, _) = solve_on(&pos, 2, true);
        all.sort_by_key(|m| m.0);
        assert_eq!((s, all), (score, best.clone()), "{}", pos.to_board_string());
        let (s, one, _) = solve_on(&pos, 2, false);
        assert_eq!(s, score);
        assert!(best.contains(&one[0]), "{}", pos.to_board_string());
        checked += 1;
    }
    assert!(checked >= 12, "{checked}");
}

#[test]
fn limits_hold_for_every_thread_of_a_solve() {
    use joute::search::solver::{Stop, StopReason};
    let entry = &suite()[0];
    for budget in [5_000u64, 200_000] {
        let mut solver = OthelloSolver::with_hash_bits(16).threads(2);
        solver.set_stop(Stop::new(Some(budget), None, None));
        let s = solver.solve(&entry.position);
        let stopped = s.stopped.expect("FFO #40 takes more nodes");
        assert_eq!(stopped.reason, StopReason::Nodes);
        // Each thread may finish the shallow search (at most 7 empties) it is in.
        assert!(s.nodes <= budget + 2 * 20_000, "{} > {budget}", s.nodes);
        // Stopped solves forget what they stored while stopping: a solve after is exact.
        solver.set_stop(Stop::unlimited());
        assert_eq!(solver.solve(&entry.position).score, entry.score);
    }
    let mut solver = OthelloSolver::with_hash_bits(16).threads(2);
    solver.set_stop(Stop::new(None, Some(std::time::Duration::ZERO), None));
    let s = solver.solve(&entry.position);
    assert_eq!(s.stopped.map(|s| s.reason), Some(StopReason::Time));
}

#[test]
fn passes_and_finished_games_at_the_root() {
    let mut solver = OthelloSolver::new();
    // Black's a1 alone: the game is over, black wins 64-0.
    let mut board = "X".to_string();
    board.push_str(&"-".repeat(63));
    let pos = Othello::start()
        .parse_position(&format!("{board} O"))
        .unwrap();
    let solution = solver.solve(&pos);
    assert_eq!(solution.score, -64);
    assert!(solution.best_moves.is_empty());

    // White to move has no move; black does: white must pass.
    let pos = Othello::start()
        .parse_position("XO-------------------------------------------------------------- O")
        .unwrap();
    assert_eq!(pos.moves_mask(), 0);
    let solution = solver.solve(&pos);
    assert_eq!(solution.best_moves, vec![OthelloMove::PASS]);
    assert_eq!(solution.score, negamax(&pos));
}

#[test]
fn suite_lines_are_read_and_bad_ones_named() {
    let entries = suite();
    assert_eq!(entries.len(), 20);
    assert_eq!(entries[0].id, "40");
    assert_eq!(entries[0].score, 38);
    assert_eq!(entries[0].position.side, Side::First);
    assert_eq!(entries[3].best_moves.len(), 2);
    assert_eq!(entries[3].position.side, Side::Second);

    let line = SUITE.lines().find(|l| l.starts_with("40\t")).unwrap();
    let fields: Vec<&str> = line.split('\t').collect();
    let with = |i: usize, text: &str| {
        let mut f = fields.clone();
        f[i] = text;
        parse_ffo_line(&f.join("\t")).unwrap_err().to_string()
    };
    assert!(with(1, "XO").contains("board"));
    assert!(with(2, "Z").contains("side to move"));
    assert!(with(3, "+99").contains("score"));
    assert!(with(3, "abc").contains("score"));
    assert!(with(4, "z9").contains("best moves"));
    assert!(with(4, "a1").contains("not a legal move"));
    assert!(
        parse_ffo_line("40\tXO")
            .unwrap_err()
            .to_string()
            .contains("5 tab-separated fields")
    );
}

/// Timing of FFO #40–#44 outside criterion (test profile, opt-level 3): `cargo test --test
/// it solve_othello::time_ffo -- --ignored --nocapture`.
#[test]
#[ignore]
fn time_ffo_40_to_44() {
    // JOUTE_ALL_BEST=1 lists every best move.
    let all = std::env::var("JOUTE_ALL_BEST").is_ok_and(|v| v == "1");
    let mut solver = OthelloSolver::new().all_best_moves(all);
    let (mut total, mut nodes) = (0.0, 0);
    // JOUTE_FFO=40,41 picks positions.
    let ids = std::env::var("JOUTE_FFO").unwrap_or_else(|_| "40,41,42,43,44".into());
    let ids: Vec<&str> = ids.split(',').collect();
    for entry in suite().iter().filter(|e| ids.contains(&e.id.as_str())) {
        solver.clear();
        let start = Instant::now();
        let s = solver.solve(&entry.position);
        let t = start.elapsed().as_secs_f64();
        assert_eq!(s.score, entry.score);
        eprintln!(
            "#{} {:+} {} nodes {:.3} s {:.1} Mn/s",
            entry.id,
            s.score,
            s.nodes,
            t,
            s.nodes as f64 / t / 1e6
        );
        if entry.id != "40" {
            total += t;
            nodes += s.nodes;
        }
    }
    eprintln!(
        "#41-44: {total:.2} s, {nodes} nodes, {:.1} Mn/s",
        nodes as f64 / total / 1e6
    );
}

/// The long suites: ignored by a plain `cargo test`, run by CI (`.ci/run`) and by
/// `cargo test --test it -- --ignored ::long::`.
mod long {
    use super::*;

    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn ffo_40_to_44_get_their_exact_scores_and_a_best_move() {
        let mut solver = OthelloSolver::new();
        // JOUTE_FFO=40,41 picks positions.
        let ids = std::env::var("JOUTE_FFO").unwrap_or_else(|_| "40,41,42,43,44".into());
        let ids: Vec<&str> = ids.split(',').collect();
        for entry in suite().iter().filter(|e| ids.contains(&e.id.as_str())) {
            solver.clear();
            let start = Instant::now();
            let solution = solver.solve(&entry.position);
            eprintln!(
                "FFO #{}: score {:+} best {:?} nodes {} in {:.2?}",
                entry.id,
                solution.score,
                solution
                    .best_moves
                    .iter()
                    .map(|&m| entry.position.format_move(m))
                    .collect::<Vec<_>>(),
                solution.nodes,
                start.elapsed()
            );
            assert_eq!(solution.score, entry.score, "FFO #{}", entry.id);
            assert!(!solution.best_moves.is_empty());
            for mv in &solution.best_moves {
                assert!(
                    entry.best_moves.contains(mv),
                    "FFO #{}: {} is not a listed best move",
                    entry.id,
                    entry.position.format_move(*mv)
                );
            }
        }
    }

    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn two_threads_solve_ffo_40_to_42_as_one() {
        for entry in suite().iter().take(3) {
            for all in [false, true] {
                let one = solve_on(&entry.position, 1, all);
                let two = solve_on(&entry.position, 2, all);
                assert_eq!(one.0, entry.score, "FFO #{}", entry.id);
                assert_eq!((two.0, &two.1), (one.0, &one.1), "FFO #{}", entry.id);
            }
        }
    }

    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn every_best_move_of_ffo_40_and_44_when_asked() {
        let mut solver = OthelloSolver::new().all_best_moves(true);
        for entry in suite().iter().filter(|e| e.id == "40" || e.id == "44") {
            solver.clear();
            let solution = solver.solve(&entry.position);
            assert_eq!(solution.score, entry.score, "FFO #{}", entry.id);
            let mut found = solution.best_moves.clone();
            found.sort_by_key(|m| m.0);
            let mut listed = entry.best_moves.clone();
            listed.sort_by_key(|m| m.0);
            assert_eq!(found, listed, "FFO #{}", entry.id);
        }
    }
}

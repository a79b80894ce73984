//! Test suites: positions with known values (Pons' Connect 4 suites, the FFO Othello endgame
//! suite), each solved on its own and checked against its value (and, where the suite lists
//! them, its best moves).

use std::time::Instant;

use super::connect4::{Connect4Solver, parse_suite_line};
use super::othello::{OthelloSolver, parse_ffo_line};
use crate::games::{Connect4, Game, GameKind};

/// One position of a suite, solved and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// Its line in the suite (1-based).
    pub line: usize,
    /// Its name in the suite (FFO's number, or Connect 4's move sequence).
    pub id: String,
    /// The value the suite gives.
    pub expected: i32,
    /// The value found.
    pub got: i32,
    /// Where the suite lists best moves: whether the best move found is among them.
    pub move_ok: bool,
    /// The best move found, where the suite lists best moves (else empty).
    pub best: String,
    /// Empty squares (cells) of the position.
    pub empties: u32,
    /// Positions searched for this one alone.
    pub nodes: u64,
    /// Wall-clock seconds of its solve.
    pub seconds: f64,
}

impl Checked {
    /// The value and, where listed, the best move are right.
    pub fn correct(&self) -> bool {
        self.got == self.expected && self.move_ok
    }
}

/// Why a suite cannot be checked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SuiteError {
    /// A line is not a position with its value.
    #[error("{line}: {message}")]
    Line {
        /// The line (1-based).
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// The game has no suite format.
    #[error(
        "no test-suite format for {0}; suites exist for othello (FFO endgame format) and connect4 (moves and score per line)"
    )]
    NoFormat(String),
}

/// Solves every position of the suite `text` (blank lines and `#` comments skipped) for the
/// game `kind`, each from a cleared table of `hash_mib` MiB (the solver's default when `None`),
/// on `threads` threads (Othello's solver; the others run on one), and returns them checked,
/// in order. Every line is read before the first solve.
pub fn check_suite(
    kind: GameKind,
    text: &str,
    hash_mib: Option<u64>,
    threads: usize,
) -> Result<Vec<Checked>, SuiteError> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let at = |line: usize, e: &dyn std::fmt::Display| SuiteError::Line {
        line,
        message: e.to_string(),
    };
    let mut checked = Vec::with_capacity(lines.len());
    match kind {
        GameKind::Connect4 => {
            let positions: Vec<(usize, Connect4, i32, String)> = lines
                .iter()
                .map(|&(n, l)| {
                    let id = l.split_whitespace().next().unwrap_or("").to_string();
                    parse_suite_line(l)
                        .map(|(pos, score)| (n, pos, score, id))
                        .map_err(|e| at(n, &e))
                })
                .collect::<Result<_, _>>()?;
            let mut solver =
                hash_mib.map_or_else(Connect4Solver::new, Connect4Solver::with_table_mib);
            // Short solves one after the other: fault the table's pages in once, here, rather
            // than in the first solves' timings.
            solver.pre_touch();
            for (line, pos, expected, id) in positions {
                solver.clear();
                let clock = Instant::now();
                let got = solver.score(&pos);
                checked.push(Checked {
                    line,
                    id,
                    expected,
                    got,
                    move_ok: true,
                    best: String::new(),
                    empties: 42 - pos.stones(),
                    // The nodes of this position's search alone.
                    nodes: solver.nodes(),
                    seconds: clock.elapsed().as_secs_f64(),
                });
            }
        }
        GameKind::Othello => {
            let entries: Vec<_> = lines
                .iter()
                .map(|&(n, l)| parse_ffo_line(l).map(|e| (n, e)).map_err(|e| at(n, &e)))
                .collect::<Result<_, _>>()?;
            let mut solver = hash_mib
                .map_or_else(OthelloSolver::new, OthelloSolver::with_table_mib)
                .threads(threads);
            for (line, entry) in entries {
                solver.clear();
                let clock = Instant::now();
                let s = solver.solve(&entry.position);
                let best = s.best_moves.first().copied();
                checked.push(Checked {
                    line,
                    id: entry.id.clone(),
                    expected: entry.score,
                    got: s.score,
                    move_ok: entry.best_moves.is_empty()
                        || best.is_some_and(|m| entry.best_moves.contains(&m)),
                    best: best
                        .map(|m| entry.position.format_move(m))
                        .unwrap_or_default(),
                    empties: (!(entry.position.player | entry.position.opponent)).count_ones(),
                    // Every thread's nodes.
                    nodes: s.nodes,
                    seconds: clock.elapsed().as_secs_f64(),
                });
            }
        }
        other => return Err(SuiteError::NoFormat(other.to_string())),
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connect4_suite_is_checked_line_by_line() {
        // A line of Pons' Test_L3_R1 (its value -1: the side to move loses by the smallest margin).
        let text = "# comment\n\n2252576253462244111563365343671351441 -1\n";
        let checked = check_suite(GameKind::Connect4, text, Some(1), 1).unwrap();
        assert_eq!(checked.len(), 1);
        assert_eq!(checked[0].line, 3);
        assert_eq!(checked[0].id, "2252576253462244111563365343671351441");
        assert!(checked[0].nodes > 0);
        assert!(checked[0].correct(), "{:?}", checked[0]);
        // A wrong value is reported as such, not as an error.
        let wrong = check_suite(
            GameKind::Connect4,
            "2252576253462244111563365343671351441 5\n",
            Some(1),
            1,
        )
        .unwrap();
        assert!(!wrong[0].correct());
        assert_eq!(wrong[0].got, checked[0].got);
    }

    #[test]
    fn bad_lines_and_games_without_a_format_are_named() {
        let err = check_suite(GameKind::Connect4, "44\n4x 1\n", None, 1).unwrap_err();
        assert!(matches!(err, SuiteError::Line { line: 1, .. }), "{err}");
        let err = check_suite(
            GameKind::Morpion {
                rows: 3,
                cols: 3,
                k: 3,
                rule: crate::games::Rule::Freestyle,
            },
            "",
            None,
            1,
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with("no test-suite format for"),
            "{err}"
        );
    }
}

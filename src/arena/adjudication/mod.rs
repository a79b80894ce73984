//! Perfect-knowledge adjudication (spec `[adjudication]`): after every move the referee asks
//! the game's exact solver about the position, and a game whose value the solver settles ends
//! there with the game-theoretic result — what a play-out between perfect players would give,
//! as cutechess and fastchess adjudicate from tablebases. The engines might have blundered
//! later; the recorded result is the position's value, not a guess at what they would have
//! played.
//!
//! - Othello: the exact endgame solver ([`OthelloSolver`]), once the board has at most
//!   `othello_empties` empty squares (a solve of a few milliseconds at the default);
//! - Connect 4: the exact solver ([`Connect4Solver`]) within a node budget, on the plies of a
//!   [`Schedule`] (every ply until an attempt fails, then with gaps doubling up to
//!   [`MAX_GAP`]); its table is kept from attempt to attempt within a game, so a failed attempt
//!   is not wasted work;
//! - Morpion: the generic solver ([`generic::solve_within`]) within a node budget, on the same
//!   schedule (small boards settle early, large ones near their end).
//!
//! Deterministic: a solver's exact value does not depend on its table, and whether a budgeted
//! solve finishes depends only on the game's moves (the Connect 4 table is emptied when a game
//! begins, and holds only bounds proven by the game's earlier attempts, stopped or not; the
//! generic solver starts afresh each time; the schedule counts moves).
//!
//! After the solver, the score rules ([`score`]: cutechess' resign and draw) judge the game
//! from the scores the engines gave with their moves.

pub mod score;

use std::any::Any;

use serde::{Deserialize, Serialize};

use super::game::{Adjudicator, MoveRecord};
use crate::games::connect4::Connect4;
use crate::games::morpion::Morpion;
use crate::games::othello::Othello;
use crate::games::{Game, Outcome, Side};
use crate::search::solver::connect4::Connect4Solver;
use crate::search::solver::generic;
use crate::search::solver::othello::OthelloSolver;
use crate::search::{WIN, WIN_THRESHOLD};
pub use score::{DrawRule, ResignRule};

/// Default of `othello_empties`: the solver settles 14 empties in about a millisecond (see
/// `docs/spec.md`, `[adjudication]`).
pub const DEFAULT_OTHELLO_EMPTIES: u32 = 14;
/// The most `othello_empties` may be: beyond it a solve takes seconds.
pub const MAX_OTHELLO_EMPTIES: u32 = 24;
/// Default of `connect4_nodes`: an attempt costs at most about 0.2 ms, and games between the
/// built-in engines settle near ply 20.
pub const DEFAULT_CONNECT4_NODES: u64 = 10_000;
/// Default of `morpion_nodes`.
pub const DEFAULT_MORPION_NODES: u64 = 100_000;
/// The most `connect4_nodes` and `morpion_nodes` may be.
pub const MAX_ADJUDICATION_NODES: u64 = 1_000_000_000;

/// A run's adjudication rules, as resolved for its game (`run.json`, the spec hash). Without
/// `empties` and `nodes` the solver is off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdjudicationRules {
    /// Othello: solve once this many squares (or fewer) are empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empties: Option<u32>,
    /// Connect 4 and Morpion: the solver's node budget on every attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// The resign rule on the engines' scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign: Option<ResignRule>,
    /// The draw rule on the engines' scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<DrawRule>,
}

/// What the log keeps of an adjudication (`adjudication` in `games.jsonl`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdjudicationLine {
    /// The solver's exact value for the side to move, in `joute solve`'s convention (Othello:
    /// the final disc difference; Connect 4: the test suites' score; Morpion: plies to the end
    /// with best play, positive for a win, 0 for a draw).
    pub value: i32,
    /// The side the value belongs to: `first` or `second`.
    pub to_move: String,
    /// The position solved, as `joute solve` reads it (Othello: 64 squares and the side;
    /// Connect 4: the columns played from the start; Morpion: the cells row by row).
    pub position: String,
    /// Plies from the game's start to the position, the opening's included.
    pub plies: usize,
}

/// The solver's verdict on a position: the value for the side to move (`joute solve`'s
/// convention), and the result it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The value for the side to move.
    pub value: i32,
    /// The side to move.
    pub to_move: Side,
    /// The game's result under perfect play.
    pub outcome: Outcome,
}

/// The solvers a worker keeps from game to game (their tables are allocated once).
#[derive(Default)]
pub struct Solvers {
    connect4: Option<Connect4Solver>,
    othello: Option<OthelloSolver>,
}

/// Connect 4's table for adjudication: 2^20 entries (8 MiB) per worker, ample for budgets of
/// millions of nodes.
const CONNECT4_TABLE_BITS: u32 = 20;
/// Othello's table: 2^16 slots (2 MiB) per worker, ample for 24 empties.
const OTHELLO_HASH_BITS: u32 = 16;
/// The generic solver's table, MiB.
const GENERIC_TT_MIB: usize = 4;

impl Solvers {
    /// Makes the solver of `start`'s game ready for a new game.
    pub fn new_game<G: Game>(&mut self, start: &G) {
        let any = start as &dyn Any;
        if any.is::<Connect4>() {
            self.connect4
                .get_or_insert_with(|| Connect4Solver::with_table_bits(CONNECT4_TABLE_BITS))
                .clear();
        } else if any.is::<Othello>() {
            self.othello
                .get_or_insert_with(|| OthelloSolver::with_hash_bits(OTHELLO_HASH_BITS));
        }
    }

    /// The solver's verdict on `pos` under `rules`, or `None` when it does not settle the
    /// position (too many empties, the budget spent, a game without a solver, the solver off).
    pub fn verdict<G: Game>(&mut self, pos: &G, rules: &AdjudicationRules) -> Option<Verdict> {
        if pos.outcome().is_some() {
            return None;
        }
        let to_move = pos.side_to_move();
        let any = pos as &dyn Any;
        let value = if let Some(p) = any.downcast_ref::<Othello>() {
            let empties = 64 - (p.player | p.opponent).count_ones();
            if empties > rules.empties? {
                return None;
            }
            let solver = self
                .othello
                .get_or_insert_with(|| OthelloSolver::with_hash_bits(OTHELLO_HASH_BITS));
            solver.solve(p).score
        } else if let Some(p) = any.downcast_ref::<Connect4>() {
            let nodes = rules.nodes?;
            let solver = self
                .connect4
                .get_or_insert_with(|| Connect4Solver::with_table_bits(CONNECT4_TABLE_BITS));
            solver.set_stop(crate::search::solver::Stop::new(Some(nodes), None, None));
            let (lower, upper) = solver.score_bounds(p);
            if lower != upper {
                return None;
            }
            lower
        } else if let Some(p) = any.downcast_ref::<Morpion>() {
            let nodes = rules.nodes?;
            let empties = (0..p.cells()).filter(|&i| p.mark_at(i).is_none()).count() as u32;
            let s = generic::solve_within(p, empties, GENERIC_TT_MIB, Some(nodes), None);
            // A stopped solve proves nothing, except a win or a loss found by an iteration
            // it finished (the search may stop deepening once it has one).
            if s.stopped.is_some() && s.score.abs() < WIN_THRESHOLD {
                return None;
            }
            // As `joute solve` says it: plies to the end, positive for a win.
            let plies = if s.score.abs() >= WIN_THRESHOLD {
                WIN - s.score.abs()
            } else {
                empties as i32
            };
            s.score.signum() * if s.score == 0 { 0 } else { plies }
        } else {
            return None;
        };
        // The value is the side to move's: its sign is the result, and Othello's is the
        // margin too.
        let mover_margin = if any.is::<Othello>() {
            value
        } else {
            value.signum()
        };
        let first_margin = if to_move == Side::First {
            mover_margin
        } else {
            -mover_margin
        };
        let outcome = Outcome {
            winner: match first_margin.signum() {
                1 => Some(Side::First),
                -1 => Some(Side::Second),
                _ => None,
            },
            score: first_margin,
        };
        Some(Verdict {
            value,
            to_move,
            outcome,
        })
    }
}

/// The position as `joute solve` reads it: Othello's board string, Connect 4's columns from
/// the start (`history`: every move of the game in its notation, the opening's included),
/// Morpion's cells row by row.
pub fn position_text<G: Game>(pos: &G, history: &[String]) -> String {
    let any = pos as &dyn Any;
    if let Some(p) = any.downcast_ref::<Othello>() {
        p.to_board_string()
    } else if let Some(p) = any.downcast_ref::<Morpion>() {
        let cols = p.cols() as usize;
        let mut text = String::new();
        for i in 0..p.cells() {
            if i > 0 && i % cols == 0 {
                text.push('/');
            }
            text.push(match p.mark_at(i) {
                Some(Side::First) => 'X',
                Some(Side::Second) => 'O',
                None => '.',
            });
        }
        text
    } else {
        history.concat()
    }
}

/// When a game's budgeted solves (Connect 4, Morpion) are attempted: after every move until
/// one fails, then with growing gaps — after the n-th failure the next attempt waits
/// min(2^(n-1), [`MAX_GAP`]) plies — so that a game whose value is out of reach early does not
/// pay a whole budget on every ply. It counts the game's moves only, so which plies are tried
/// depends on nothing else.
#[derive(Clone, Copy, Debug, Default)]
pub struct Schedule {
    /// Moves seen so far.
    seen: usize,
    /// The move (counted in `seen`) from which the next attempt is made.
    next: usize,
    /// Plies between the last failed attempt and the next one.
    gap: usize,
}

/// The most plies between two budgeted attempts.
pub const MAX_GAP: usize = 4;

impl Schedule {
    /// Counts a move, and says whether to attempt a solve after it.
    fn due(&mut self) -> bool {
        self.seen += 1;
        self.seen > self.next
    }

    /// The attempt just made failed: wait before the next.
    fn failed(&mut self) {
        self.gap = (self.gap * 2).clamp(1, MAX_GAP);
        self.next = self.seen + self.gap - 1;
    }
}

/// The adjudicator of one game: asks `solvers` after every move (budgeted solves on the plies
/// of its [`Schedule`]), then the score rules; keeps the solver's verdict that ended the game.
pub struct GameAdjudicator<'a> {
    /// The rules.
    pub rules: AdjudicationRules,
    /// The worker's solvers.
    pub solvers: &'a mut Solvers,
    /// Plies of the game's opening (the draw rule counts full moves from the start).
    pub opening_plies: usize,
    /// The solver's verdict that ended the game, once there is one.
    pub verdict: Option<Verdict>,
    /// When budgeted solves are attempted.
    pub schedule: Schedule,
}

impl<'a> GameAdjudicator<'a> {
    /// The adjudicator of a game about to start under `rules` after `opening_plies` plies
    /// (the caller has made `solvers` ready with [`Solvers::new_game`]).
    pub fn new(rules: AdjudicationRules, solvers: &'a mut Solvers, opening_plies: usize) -> Self {
        GameAdjudicator {
            rules,
            solvers,
            opening_plies,
            verdict: None,
            schedule: Schedule::default(),
        }
    }

    /// The solver's judgement of `position`, on the schedule.
    fn solve<G: Game>(&mut self, position: &G) -> Option<(Outcome, String)> {
        if self.rules.empties.is_none() && self.rules.nodes.is_none() {
            return None;
        }
        // Othello's solve is exact and unbudgeted: it is tried whenever the empties allow.
        let budgeted = !(position as &dyn Any).is::<Othello>();
        if budgeted && !self.schedule.due() {
            return None;
        }
        let Some(verdict) = self.solvers.verdict(position, &self.rules) else {
            if budgeted && position.outcome().is_none() {
                self.schedule.failed();
            }
            return None;
        };
        self.verdict = Some(verdict);
        let result = match verdict.outcome.winner {
            Some(Side::First) => "the first player wins",
            Some(Side::Second) => "the second player wins",
            None => "a draw",
        };
        let mover = match verdict.to_move {
            Side::First => "first",
            Side::Second => "second",
        };
        Some((
            verdict.outcome,
            format!(
                "solver: {result} with perfect play (value {:+} for the {mover} player to move)",
                verdict.value
            ),
        ))
    }
}

impl<G: Game> Adjudicator<G> for GameAdjudicator<'_> {
    fn adjudicate(
        &mut self,
        position: &G,
        moves: &[MoveRecord<G::Move>],
    ) -> Option<(Outcome, String)> {
        // The exact value first; then the engines' opinions, resigning before drawing (as
        // fastchess).
        if let Some(end) = self.solve(position) {
            return Some(end);
        }
        if position.outcome().is_some() {
            return None;
        }
        let resign = self.rules.resign.and_then(|r| r.judge(moves));
        resign.or_else(|| {
            self.rules
                .draw
                .and_then(|d| d.judge(self.opening_plies, moves))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;

    fn rules(empties: Option<u32>, nodes: Option<u64>) -> AdjudicationRules {
        AdjudicationRules {
            empties,
            nodes,
            ..AdjudicationRules::default()
        }
    }

    #[test]
    fn connect4_verdicts_agree_with_the_unlimited_solver() {
        let mut solvers = Solvers::default();
        let mut exact = Connect4Solver::with_table_bits(20);
        // Positions of Pons' test suites (`tests/data/connect4/`) with their known scores.
        for (digits, known) in [
            ("5554224333234511764415115", 4),
            ("52753311433677442422121", 8),
            ("1233722555341451114725221333", -1),
            ("2252576253462244111563365343671351441", -1),
        ] {
            let pos = Connect4::start().play_digits(digits).unwrap();
            solvers.new_game(&Connect4::start());
            let v = solvers
                .verdict(&pos, &rules(None, Some(50_000_000)))
                .expect("settled within a large budget");
            assert_eq!(v.value, known, "{digits}");
            assert_eq!(v.value, exact.score(&pos), "{digits}");
            let mover_wins = v.value.signum();
            let first = if pos.side_to_move() == Side::First {
                mover_wins
            } else {
                -mover_wins
            };
            assert_eq!(v.outcome.score, first);
            assert_eq!(v.outcome.winner.is_none(), v.value == 0);
        }
        // A tiny budget does not settle the start.
        solvers.new_game(&Connect4::start());
        assert_eq!(
            solvers.verdict(&Connect4::start(), &rules(None, Some(1000))),
            None
        );
    }

    #[test]
    fn failed_attempts_space_out_up_to_the_largest_gap() {
        let mut schedule = Schedule::default();
        // Every attempt fails: tried after moves 1, 2, 4, 8, then every MAX_GAP moves.
        let tried: Vec<usize> = (1..=24)
            .filter(|_| {
                let due = schedule.due();
                if due {
                    schedule.failed();
                }
                due
            })
            .collect();
        assert_eq!(tried, [1, 2, 4, 8, 12, 16, 20, 24]);
        assert_eq!(MAX_GAP, 4);
    }

    #[test]
    fn connect4_failed_attempts_keep_only_proven_bounds() {
        // A game's attempts within a small budget, the table kept between them: whatever
        // settles is the exact score.
        let mut solvers = Solvers::default();
        let mut exact = Connect4Solver::with_table_bits(20);
        let digits = "2252576253462244111563365343671351441";
        solvers.new_game(&Connect4::start());
        let mut pos = Connect4::start();
        let mut settled = 0;
        for i in 1..=digits.len() {
            pos = pos.play_digits(&digits[i - 1..i]).unwrap();
            if let Some(v) = solvers.verdict(&pos, &rules(None, Some(3000))) {
                assert_eq!(v.value, exact.score(&pos), "after {}", &digits[..i]);
                settled += 1;
            }
        }
        assert!(settled > 0);
    }

    #[test]
    fn othello_verdicts_wait_for_the_empties_and_keep_the_margin() {
        let mut solvers = Solvers::default();
        let start = Othello::start();
        assert_eq!(solvers.verdict(&start, &rules(Some(14), None)), None);
        // Down a fixed line of play (the first legal move each time) to 12 empties.
        let mut pos = start;
        let mut moves = crate::games::MoveList::new();
        while 64 - (pos.player | pos.opponent).count_ones() > 12 && pos.outcome().is_none() {
            moves.clear();
            pos.legal_moves(&mut moves);
            pos = pos.play(moves[moves.len() / 2]);
        }
        assert!(pos.outcome().is_none());
        let v = solvers.verdict(&pos, &rules(Some(14), None)).unwrap();
        let s = OthelloSolver::new().solve(&pos).score;
        assert_eq!(v.value, s);
        let first = if pos.side_to_move() == Side::First {
            s
        } else {
            -s
        };
        assert_eq!(v.outcome.score, first);
        assert_eq!(solvers.verdict(&pos, &rules(Some(11), None)), None);
    }

    #[test]
    fn morpion_verdicts_follow_the_generic_solver() {
        let mut solvers = Solvers::default();
        let start = Morpion::start(3, 3, 3);
        // Tic-tac-toe is a draw: settled from the start within a modest budget.
        let v = solvers
            .verdict(&start, &rules(None, Some(1_000_000)))
            .unwrap();
        assert_eq!(v.outcome, Outcome::DRAW);
        // X to win in one: a win for the first player, in 1 ply.
        let pos = start.play_sequence("a1 b1 a2 b2").unwrap();
        let v = solvers
            .verdict(&pos, &rules(None, Some(1_000_000)))
            .unwrap();
        assert_eq!(v.value, 1);
        assert_eq!(v.outcome.winner, Some(Side::First));
        assert_eq!(position_text(&pos, &[]), "XO./XO./...");
    }
}

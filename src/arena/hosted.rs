//! Engines hosted by the program that embeds joute — a Python function, through joute's Python
//! package (`python/`) — played in-process beside built-in engines and outside programs.
//!
//! The host implements two small traits once for every game: [`HostedEngine`] makes a player
//! for each game, and [`HostedPlayer`] answers each turn with a move in the game's notation.
//! The game reaches it type-erased (`&dyn Any` holding a [`History`] of the run's game), so
//! that the host can hand its own users the typed position without joute knowing of them.
//! [`HostedSeat`] is such a player as the referee sees it ([`Player`]): its answer is checked
//! like an outside program's (a move that does not parse or is illegal loses by
//! `illegal-move`; a failure loses by `crash`, with the host's one-line reason).

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::game::{Opening, Player, PlayerError, Thought, Turn, why_illegal};
use crate::games::{Game, Outcome, Side};

/// A game as a hosted player sees it: every position from the game's start (the opening's
/// included) and the moves between them. The last position is the one to move in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History<G: Game> {
    /// The positions, the start first; never empty.
    pub positions: Vec<G>,
    /// The moves: `moves[i]` leads from `positions[i]` to `positions[i + 1]`.
    pub moves: Vec<G::Move>,
}

impl<G: Game> History<G> {
    /// A game at `start`, no move played.
    pub fn new(start: G) -> History<G> {
        History {
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    /// The position to move in.
    pub fn current(&self) -> &G {
        self.positions.last().expect("a history holds its start")
    }

    /// Plays `mv`, which must be legal in [`History::current`].
    pub fn play(&mut self, mv: G::Move) {
        let next = self.current().play(mv);
        self.positions.push(next);
        self.moves.push(mv);
    }

    /// Takes back the last move; `false` at the start.
    pub fn undo(&mut self) -> bool {
        if self.moves.pop().is_some() {
            self.positions.pop();
            true
        } else {
            false
        }
    }
}

/// The clock on a hosted player's turn, as [`Turn`] gives it (all `None` off the clock).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostedClock {
    /// The time the player should spend at most on this move ([`Turn::budget`]).
    pub budget: Option<Duration>,
    /// Time left on its clock (a game clock).
    pub time_left: Option<Duration>,
    /// Time left on the opponent's clock.
    pub opponent_time_left: Option<Duration>,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves to make before the clock is filled again.
    pub moves_to_go: Option<u32>,
    /// The fixed time for this move (a time per move).
    pub move_time: Option<Duration>,
    /// The referee's limit for this answer, margin included.
    pub deadline: Option<Duration>,
}

/// A hosted player's answer: a move in the game's notation and what it says of its search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostedAnswer {
    /// The move, as the game writes it (`d3`, `4`, `h8`, `pass`).
    pub mv: String,
    /// Its score from the player's point of view, if it gives one.
    pub score: Option<i32>,
    /// The depth it searched (0: not said).
    pub depth: u32,
    /// Its selective depth (0: none).
    pub seldepth: u32,
    /// The positions it visited, if it says.
    pub nodes: Option<u64>,
}

/// One game's player of a hosted engine.
pub trait HostedPlayer: Send {
    /// A new game: the player plays `side` in the game `history` holds (the opening played,
    /// a [`History`] of the run's game behind `Any`), its random choices seeded from `seed`
    /// (the game's seed, as built-in engines are).
    fn new_game(&mut self, history: &dyn Any, side: Side, seed: u64) -> Result<(), PlayerError>;
    /// The move to play in the last position of `history` (a [`History`] behind `Any`).
    fn think(
        &mut self,
        history: &dyn Any,
        clock: &HostedClock,
    ) -> Result<HostedAnswer, PlayerError>;
    /// The game is over.
    fn game_over(&mut self, _outcome: &Outcome) {}
}

/// An engine the embedding program supplies: it makes a fresh player for every game.
pub trait HostedEngine: Send + Sync {
    /// A player for one game.
    fn player(&self) -> Box<dyn HostedPlayer>;
    /// What it is, for the run's records (`python function negamax (bot.py:12)`).
    fn describe(&self) -> String;
}

/// The hosted engines a run may use, by the key a spec names them with (`hosted = "KEY"`).
#[derive(Clone, Default)]
pub struct Hosts(BTreeMap<String, Arc<dyn HostedEngine>>);

impl Hosts {
    /// No hosted engine: what a spec read by the command line has.
    pub fn none() -> Hosts {
        Hosts::default()
    }

    /// Adds `engine` under `key` (replacing one of the same key).
    pub fn insert(&mut self, key: &str, engine: Arc<dyn HostedEngine>) {
        self.0.insert(key.to_string(), engine);
    }

    /// The engine of `key`.
    pub fn get(&self, key: &str) -> Option<&Arc<dyn HostedEngine>> {
        self.0.get(key)
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Hosts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|(k, e)| (k, e.describe())))
            .finish()
    }
}

/// A hosted engine's player as the referee sees it: it keeps the game's [`History`] and hands
/// it over on each turn.
pub struct HostedSeat<G: Game> {
    player: Box<dyn HostedPlayer>,
    history: History<G>,
    /// Positions of the history up to the end of the opening (the players' moves come after).
    opening_len: usize,
    side: Side,
    seed: u64,
}

impl<G: Game> HostedSeat<G> {
    /// `engine`'s player for one game, playing `side`, seeded from `seed`; `start` is the run's
    /// start position (replaced by the opening's at [`Player::new_game`]).
    pub fn new(engine: &dyn HostedEngine, start: G, side: Side, seed: u64) -> HostedSeat<G> {
        HostedSeat {
            player: engine.player(),
            history: History::new(start),
            opening_len: 1,
            side,
            seed,
        }
    }
}

impl<G: Game> Player<G> for HostedSeat<G> {
    fn new_game(&mut self, opening: &Opening<'_, G>) -> Result<(), PlayerError> {
        self.history = History::new(opening.initial);
        for &mv in opening.moves {
            self.history.play(mv);
        }
        self.opening_len = self.history.positions.len();
        self.player.new_game(&self.history, self.side, self.seed)
    }

    fn think(&mut self, turn: &Turn<'_, G>) -> Result<Thought<G::Move>, PlayerError> {
        // The players' moves since the last turn: the history is cut back to the opening and
        // played again (a few plies of copy-make against a call into the host).
        self.history.positions.truncate(self.opening_len);
        self.history.moves.truncate(self.opening_len - 1);
        for &mv in turn.moves {
            self.history.play(mv);
        }
        let clock = HostedClock {
            budget: turn.budget(),
            time_left: turn.time_left,
            opponent_time_left: turn.opponent_time_left,
            increment: turn.increment,
            moves_to_go: turn.moves_to_go,
            move_time: turn.move_time,
            deadline: turn.deadline,
        };
        let answer = self.player.think(&self.history, &clock)?;
        let mv =
            turn.position
                .parse_move(answer.mv.trim())
                .map_err(|e| PlayerError::BadAnswer {
                    line: answer.mv.clone(),
                    why: why_illegal(e),
                })?;
        Ok(Thought {
            mv,
            score: answer.score,
            depth: answer.depth,
            seldepth: answer.seldepth,
            nodes: answer.nodes,
            timed_out: false,
        })
    }

    fn game_over(&mut self, outcome: &Outcome) {
        self.player.game_over(outcome);
    }

    fn cpu_time(&mut self) -> Option<Duration> {
        // The host answers on the thread that asks it.
        super::cpu::thread_time()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::game::{Referee, Termination, play_game};
    use crate::games::connect4::Connect4;
    use std::sync::Mutex;

    /// A host that plays the first legal move, or a scripted answer, and keeps what it saw.
    struct Scripted {
        answers: Vec<&'static str>,
        seen: Arc<Mutex<Vec<(usize, usize)>>>,
    }

    impl HostedPlayer for Scripted {
        fn new_game(&mut self, history: &dyn Any, _: Side, _: u64) -> Result<(), PlayerError> {
            let h = history
                .downcast_ref::<History<Connect4>>()
                .expect("connect4");
            self.seen
                .lock()
                .unwrap()
                .push((h.positions.len(), h.moves.len()));
            Ok(())
        }

        fn think(
            &mut self,
            history: &dyn Any,
            _: &HostedClock,
        ) -> Result<HostedAnswer, PlayerError> {
            let h = history
                .downcast_ref::<History<Connect4>>()
                .expect("connect4");
            assert_eq!(h.positions.len(), h.moves.len() + 1);
            for (i, &mv) in h.moves.iter().enumerate() {
                assert_eq!(h.positions[i].play(mv), h.positions[i + 1]);
            }
            self.seen
                .lock()
                .unwrap()
                .push((h.positions.len(), h.moves.len()));
            let mv = match self.answers.pop() {
                Some("fail") => return Err(PlayerError::Failed("ValueError: boom".into())),
                Some(text) => text.to_string(),
                None => {
                    let mut moves = crate::games::MoveList::new();
                    h.current().legal_moves(&mut moves);
                    h.current().format_move(moves[0])
                }
            };
            Ok(HostedAnswer {
                mv,
                nodes: Some(7),
                ..HostedAnswer::default()
            })
        }
    }

    struct Host(Vec<&'static str>, Arc<Mutex<Vec<(usize, usize)>>>);

    impl HostedEngine for Host {
        fn player(&self) -> Box<dyn HostedPlayer> {
            Box::new(Scripted {
                answers: self.0.clone(),
                seen: self.1.clone(),
            })
        }
        fn describe(&self) -> String {
            "scripted".into()
        }
    }

    fn play(
        first: &[&'static str],
        second: &[&'static str],
    ) -> (crate::arena::GameRecord<Connect4>, Vec<(usize, usize)>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let hosts = [
            Host(first.to_vec(), seen.clone()),
            Host(second.to_vec(), seen.clone()),
        ];
        let mut a = HostedSeat::new(&hosts[0], Connect4::start(), Side::First, 1);
        let mut b = HostedSeat::new(&hosts[1], Connect4::start(), Side::Second, 2);
        let opening_moves = Connect4::start().parse_sequence("44").unwrap();
        let opening = Opening {
            initial: Connect4::start(),
            moves: &opening_moves,
        };
        let mut referee = Referee::default();
        let record = play_game(&opening, [&mut a, &mut b], &mut referee, |_, _| {});
        let seen = seen.lock().unwrap().clone();
        (record, seen)
    }

    #[test]
    fn a_hosted_player_sees_the_whole_game_from_its_start_and_plays_it_out() {
        let (record, seen) = play(&[], &[]);
        assert_eq!(record.termination, Termination::Normal);
        // Both new games saw the opening's two moves; each turn one more move than the last.
        assert_eq!(&seen[..2], &[(3, 2), (3, 2)]);
        for (i, &(positions, moves)) in seen[2..].iter().enumerate() {
            assert_eq!((positions, moves), (3 + i, 2 + i));
        }
        assert_eq!(seen.len() - 2, record.moves.len());
        assert!(record.moves.iter().all(|m| m.nodes == Some(7)));
    }

    #[test]
    fn a_hosted_answer_that_is_no_legal_move_loses_by_illegal_move_naming_it() {
        for bad in ["9", "x1"] {
            let (record, _) = play(&[bad], &[]);
            match &record.termination {
                Termination::IllegalMove(Side::First, detail) => {
                    assert!(detail.starts_with(&format!("{bad}: ")), "{detail}")
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_hosted_failure_loses_by_crash_with_its_reason() {
        let (record, _) = play(&[], &["fail"]);
        assert_eq!(
            record.termination,
            Termination::Crash(Side::Second, "ValueError: boom".into())
        );
        assert_eq!(record.outcome, Outcome::win(Side::First));
    }
}

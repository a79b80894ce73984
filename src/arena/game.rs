//! One game between two players: the [`Player`] interface every engine implements (today's
//! built-in [`Engine`]s, tomorrow outside programs), and [`play_game`], the one place where a
//! game is refereed — moves checked for legality, time accounted, adjudication asked, the game
//! recorded.

use std::time::{Duration, Instant};

use super::engine::Engine;
use crate::eval::Features;
use crate::games::{Game, MoveList, Outcome, Side};

/// Why a player could not give a move: it crashed, broke its protocol, or did not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// The player failed (a process that exited, a protocol error), said in a line.
    #[error("{0}")]
    Failed(String),
    /// The player said nothing within this long.
    #[error("no answer within {0:?}")]
    NoAnswer(Duration),
}

/// How a game begins: a position to set up (usually the game's start) and the opening moves
/// played from it.
#[derive(Clone, Copy, Debug)]
pub struct Opening<'a, G: Game> {
    /// The position set up before the opening (usually the game's start).
    pub initial: G,
    /// The opening's moves, legal from `initial`; the players start after them.
    pub moves: &'a [G::Move],
}

impl<'a, G: Game> Opening<'a, G> {
    /// No opening: the game starts at `initial`.
    pub fn none(initial: G) -> Opening<'static, G> {
        Opening {
            initial,
            moves: &[],
        }
    }

    /// The position after the opening.
    pub fn position(&self) -> G {
        self.moves
            .iter()
            .fold(self.initial, |pos, &mv| pos.play(mv))
    }
}

/// What a player is asked on its turn.
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a, G: Game> {
    /// The position to move in.
    pub position: &'a G,
    /// The players' moves since the game began after the opening, both sides', in order.
    pub moves: &'a [G::Move],
    /// Time left on this player's clock, when the game is played on a clock.
    pub time_left: Option<Duration>,
    /// Time left on the opponent's clock.
    pub opponent_time_left: Option<Duration>,
    /// Time added to the clock after each move.
    pub increment: Duration,
}

/// A player's answer: the move, and what it says of its search (the referee measures time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thought<M> {
    /// The move.
    pub mv: M,
    /// Its score from the player's point of view, when the player gives one.
    pub score: Option<i32>,
    /// Depth of the deepest completed iteration (0 when unknown).
    pub depth: u32,
    /// Positions visited (0 when unknown).
    pub nodes: u64,
    /// The player's own time limit cut its search (the move depends on the machine).
    pub timed_out: bool,
}

/// Something that plays a game: told when a game begins, asked for a move on each of its turns,
/// told when the game is over. Built-in engines implement it ([`Engine`]); an outside program
/// implements it over its protocol.
pub trait Player<G: Game> {
    /// A new game begins from `opening` (its position and the moves that reached it).
    fn new_game(&mut self, opening: &Opening<'_, G>) -> Result<(), PlayerError>;
    /// The move to play on `turn`.
    fn think(&mut self, turn: &Turn<'_, G>) -> Result<Thought<G::Move>, PlayerError>;
    /// The game is over (the player may release what it holds).
    fn game_over(&mut self, _outcome: &Outcome) {}
}

impl<G: Features> Player<G> for Engine<G> {
    fn new_game(&mut self, _: &Opening<'_, G>) -> Result<(), PlayerError> {
        // A built-in engine is built fresh for each game: nothing to forget.
        Ok(())
    }

    fn think(&mut self, turn: &Turn<'_, G>) -> Result<Thought<G::Move>, PlayerError> {
        let result = self.choose(turn.position);
        let mv = result.best_move.ok_or_else(|| {
            PlayerError::Failed("the search returned no move in an unfinished game".into())
        })?;
        Ok(Thought {
            mv,
            score: Some(result.score),
            depth: result.stats.depth,
            nodes: result.stats.nodes,
            timed_out: result.stats.timed_out,
        })
    }
}

/// A game clock: `base` for each side, `increment` added after each move. A move that takes
/// longer than the time left plus `margin` loses the game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeControl {
    /// Each side's time for the game.
    pub base: Duration,
    /// Added after each move.
    pub increment: Duration,
    /// Overrun forgiven (process start-up, scheduling).
    pub margin: Duration,
}

/// Ends a game early when its result is clear: asked after every move.
pub trait Adjudicator<G: Game> {
    /// The result to record now, with the reason, or `None` to play on.
    fn adjudicate(
        &mut self,
        position: &G,
        moves: &[MoveRecord<G::Move>],
    ) -> Option<(Outcome, String)>;
}

/// The rules beyond the game's own: a clock and an adjudicator, both optional.
pub struct Referee<'a, G: Game> {
    /// The game clock; `None`: players keep their own limits (built-in engines' budgets).
    pub clock: Option<TimeControl>,
    /// Asked after every move.
    pub adjudicator: Option<&'a mut dyn Adjudicator<G>>,
}

impl<G: Game> Default for Referee<'_, G> {
    fn default() -> Self {
        Referee {
            clock: None,
            adjudicator: None,
        }
    }
}

/// One move of a game, as a player chose it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRecord<M> {
    /// The move.
    pub mv: M,
    /// Who played it.
    pub side: Side,
    /// The player's score for it, from its own point of view, when it gave one.
    pub score: Option<i32>,
    /// Depth of the player's deepest completed iteration.
    pub depth: u32,
    /// Positions the player visited.
    pub nodes: u64,
    /// Wall-clock seconds, as the referee measured them.
    pub seconds: f64,
    /// The player's own time limit cut its search.
    pub timed_out: bool,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// By the rules of the game.
    Normal,
    /// By the adjudicator, for this reason.
    Adjudicated(String),
    /// `side` lost on time.
    TimeForfeit(Side),
    /// `side` played an illegal move (its text).
    IllegalMove(Side, String),
    /// `side` could not give a move.
    PlayerFailed(Side, String),
}

impl Termination {
    /// The name of the games log's `termination` field: `normal`, `adjudication`,
    /// `time forfeit`, `illegal move` or `player failure`.
    pub fn name(&self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Adjudicated(_) => "adjudication",
            Termination::TimeForfeit(_) => "time forfeit",
            Termination::IllegalMove(..) => "illegal move",
            Termination::PlayerFailed(..) => "player failure",
        }
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord<G: Game> {
    /// The position the players started from (after the opening).
    pub start: G,
    /// The players' moves.
    pub moves: Vec<MoveRecord<G::Move>>,
    /// The final position.
    pub last: G,
    /// How it ended.
    pub outcome: Outcome,
    /// Why it ended.
    pub termination: Termination,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Plays `players[0]` (the first player) against `players[1]` after `opening` — the side to move
/// there picks the player — to the end of the game, under `referee`, calling `observer` after
/// every move with the new position. A player that fails, answers with an illegal move or
/// overruns its clock loses the game.
pub fn play_game<G: Game>(
    opening: &Opening<'_, G>,
    mut players: [&mut dyn Player<G>; 2],
    referee: &mut Referee<'_, G>,
    mut observer: impl FnMut(&G, &MoveRecord<G::Move>),
) -> GameRecord<G> {
    let clock = Instant::now();
    let start = opening.position();
    let mut pos = start;
    let mut moves: Vec<MoveRecord<G::Move>> = Vec::new();
    let mut played: Vec<G::Move> = Vec::new();
    let mut time_left = referee.clock.map(|c| [c.base; 2]);
    let mut legal = MoveList::new();
    let lost = |side: Side| Outcome::win(side.opponent());
    // A player that cannot start the game loses it before the first move.
    let end = [Side::First, Side::Second]
        .into_iter()
        .zip(players.iter_mut())
        .find_map(|(side, player)| {
            let e = player.new_game(opening).err()?;
            Some((lost(side), Termination::PlayerFailed(side, e.to_string())))
        });
    let (outcome, termination) = loop {
        if let Some(end) = end {
            break end;
        }
        if let Some(outcome) = pos.outcome() {
            break (outcome, Termination::Normal);
        }
        let side = pos.side_to_move();
        let me = side as usize;
        let turn = Turn {
            position: &pos,
            moves: &played,
            time_left: time_left.map(|t| t[me]),
            opponent_time_left: time_left.map(|t| t[1 - me]),
            increment: referee.clock.map_or(Duration::ZERO, |c| c.increment),
        };
        let asked = Instant::now();
        let answer = players[me].think(&turn);
        let took = asked.elapsed();
        let thought = match answer {
            Ok(t) => t,
            Err(e) => break (lost(side), Termination::PlayerFailed(side, e.to_string())),
        };
        if let (Some(c), Some(t)) = (referee.clock, time_left.as_mut()) {
            if took > t[me] + c.margin {
                break (lost(side), Termination::TimeForfeit(side));
            }
            t[me] = t[me].saturating_sub(took) + c.increment;
        }
        legal.clear();
        pos.legal_moves(&mut legal);
        if !legal.as_slice().contains(&thought.mv) {
            let text = pos.format_move(thought.mv);
            break (lost(side), Termination::IllegalMove(side, text));
        }
        let record = MoveRecord {
            mv: thought.mv,
            side,
            score: thought.score,
            depth: thought.depth,
            nodes: thought.nodes,
            seconds: took.as_secs_f64(),
            timed_out: thought.timed_out,
        };
        pos = pos.play(thought.mv);
        played.push(thought.mv);
        observer(&pos, &record);
        moves.push(record);
        if let Some(a) = referee.adjudicator.as_deref_mut()
            && let Some((outcome, reason)) = a.adjudicate(&pos, &moves)
        {
            break (outcome, Termination::Adjudicated(reason));
        }
    };
    for player in players.iter_mut() {
        player.game_over(&outcome);
    }
    GameRecord {
        start,
        moves,
        last: pos,
        outcome,
        termination,
        seconds: clock.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::EngineSpec;
    use crate::games::connect4::Connect4;

    type C4Move = <Connect4 as Game>::Move;

    /// A player that answers from a script: a move name, `NAME!` (the move of that name on the
    /// empty board, whether legal here or not), `fail`, or `sleep:MS` then the first legal move;
    /// past the script, the first legal move.
    struct Scripted {
        script: Vec<&'static str>,
        told: Vec<String>,
        over: Option<Outcome>,
    }

    impl Scripted {
        fn new(script: &[&'static str]) -> Scripted {
            Scripted {
                script: script.iter().rev().copied().collect(),
                told: Vec::new(),
                over: None,
            }
        }
    }

    impl Player<Connect4> for Scripted {
        fn new_game(&mut self, opening: &Opening<'_, Connect4>) -> Result<(), PlayerError> {
            let names = opening
                .moves
                .iter()
                .map(|&m| opening.initial.format_move(m));
            self.told
                .push(format!("new {}", names.collect::<Vec<_>>().join(" ")));
            Ok(())
        }

        fn think(&mut self, turn: &Turn<'_, Connect4>) -> Result<Thought<C4Move>, PlayerError> {
            self.told.push(format!("turn after {}", turn.moves.len()));
            let mut legal = MoveList::new();
            turn.position.legal_moves(&mut legal);
            let mv = match self.script.pop() {
                Some("fail") => return Err(PlayerError::Failed("crashed".into())),
                Some(s) if s.starts_with("sleep:") => {
                    std::thread::sleep(Duration::from_millis(s[6..].parse().unwrap()));
                    legal.as_slice()[0]
                }
                Some(name) if name.ends_with('!') => Connect4::start()
                    .parse_move(&name[..name.len() - 1])
                    .unwrap(),
                Some(name) => turn.position.parse_move(name).unwrap(),
                None => legal.as_slice()[0],
            };
            Ok(Thought {
                mv,
                score: None,
                depth: 0,
                nodes: 0,
                timed_out: false,
            })
        }

        fn game_over(&mut self, outcome: &Outcome) {
            self.over = Some(*outcome);
        }
    }

    fn play(
        a: &mut Scripted,
        b: &mut Scripted,
        referee: &mut Referee<'_, Connect4>,
    ) -> GameRecord<Connect4> {
        let initial = Connect4::start();
        let opening = [initial.parse_move("4").unwrap()];
        play_game(
            &Opening {
                initial,
                moves: &opening,
            },
            [a, b],
            referee,
            |_, _| {},
        )
    }

    #[test]
    fn scripted_players_play_by_the_rules_and_are_told_the_game() {
        // After the opening 4 the second player moves: column 1 always, against column 2
        // always; the second player fills column 1 first and wins vertically.
        let mut a = Scripted::new(&["2", "2", "2", "2"]);
        let mut b = Scripted::new(&["1", "1", "1", "1"]);
        let record = play(&mut a, &mut b, &mut Referee::default());
        assert_eq!(record.termination, Termination::Normal);
        assert_eq!(record.outcome.winner, Some(Side::Second));
        assert_eq!(record.moves.len(), 7);
        assert_eq!(a.told[0], "new 4");
        assert_eq!(b.told[..3], ["new 4", "turn after 0", "turn after 2"]);
        assert_eq!(a.over, record.outcome.into());
        assert_eq!(b.over, record.outcome.into());
    }

    #[test]
    fn an_illegal_move_or_a_failure_loses_the_game() {
        // Column 4 holds one disc after the opening; five more fill it, the sixth is illegal.
        let mut a = Scripted::new(&["4", "4", "4!"]);
        let mut b = Scripted::new(&["4", "4", "4"]);
        let record = play(&mut a, &mut b, &mut Referee::default());
        assert_eq!(
            record.termination,
            Termination::IllegalMove(Side::First, "4".into())
        );
        assert_eq!(record.outcome.winner, Some(Side::Second));
        assert_eq!(record.moves.len(), 5);

        let mut a = Scripted::new(&[]);
        let mut b = Scripted::new(&["1", "fail"]);
        let record = play(&mut a, &mut b, &mut Referee::default());
        assert_eq!(
            record.termination,
            Termination::PlayerFailed(Side::Second, "crashed".into())
        );
        assert_eq!(record.outcome.winner, Some(Side::First));
        assert_eq!(record.moves.len(), 2);
    }

    #[test]
    fn the_clock_is_kept_by_the_referee_and_an_overrun_loses() {
        let clock = TimeControl {
            base: Duration::from_millis(150),
            increment: Duration::from_millis(10),
            margin: Duration::from_millis(5),
        };
        // Three sleeps of 60 ms: 150 - 60 + 10 = 100, 100 - 60 + 10 = 50, then 60 > 50 + 5.
        let mut a = Scripted::new(&[]);
        let mut b = Scripted::new(&["sleep:60", "sleep:60", "sleep:60"]);
        let mut referee = Referee {
            clock: Some(clock),
            adjudicator: None,
        };
        let record = play(&mut a, &mut b, &mut referee);
        assert_eq!(record.termination, Termination::TimeForfeit(Side::Second));
        assert_eq!(record.outcome.winner, Some(Side::First));
        assert_eq!(record.moves.len(), 4, "the overrunning move is not played");
        assert!(record.moves[0].seconds >= 0.06);
    }

    #[test]
    fn an_adjudicator_ends_the_game_with_its_reason() {
        struct Draw;
        impl Adjudicator<Connect4> for Draw {
            fn adjudicate(
                &mut self,
                _: &Connect4,
                moves: &[MoveRecord<C4Move>],
            ) -> Option<(Outcome, String)> {
                (moves.len() == 3).then(|| (Outcome::DRAW, "three moves".into()))
            }
        }
        let mut a = Scripted::new(&[]);
        let mut b = Scripted::new(&[]);
        let mut draw = Draw;
        let mut referee = Referee {
            clock: None,
            adjudicator: Some(&mut draw),
        };
        let record = play(&mut a, &mut b, &mut referee);
        assert_eq!(
            record.termination,
            Termination::Adjudicated("three moves".into())
        );
        assert_eq!(record.termination.name(), "adjudication");
        assert_eq!(record.outcome, Outcome::DRAW);
        assert_eq!(record.moves.len(), 3);
    }

    #[test]
    fn built_in_engines_are_players() {
        let start = Connect4::start();
        let spec = EngineSpec::parse("alphabeta:3").unwrap();
        let mut a = Engine::new(&spec, &start, 1).unwrap();
        let mut b = Engine::new(&spec, &start, 2).unwrap();
        let record = play_game(
            &Opening::none(start),
            [&mut a, &mut b],
            &mut Referee::default(),
            |_, _| {},
        );
        assert_eq!(record.termination, Termination::Normal);
        assert_eq!(record.last.outcome(), Some(record.outcome));
        assert!(
            record
                .moves
                .iter()
                .all(|m| m.score.is_some() && m.nodes > 0)
        );
    }
}

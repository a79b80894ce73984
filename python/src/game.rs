//! `joute.Game`: one game of any of joute's games, its moves played and taken back from Python
//! in the game's own notation (`docs/python.md`, section Games).
//!
//! A game is the [`History`] of its positions (copy-make: playing pushes the next position,
//! taking back pops it), so a Python search calling `play`/`undo` in its inner loop costs a
//! move's parse and a push, no copy of the game.

use std::any::Any;
use std::borrow::Cow;

use joute::arena::adjudication::position_text;
use joute::arena::hosted::History;
use joute::games::{
    Connect4, Game as Rules, GameKind, GameVisitor, Morpion, MoveList, Othello, RandomTree, Side,
};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;

/// The moves and positions of a game, for each of the game types joute has.
#[derive(Clone, Debug)]
pub enum Played {
    /// Othello.
    Othello(History<Othello>),
    /// Connect 4.
    Connect4(History<Connect4>),
    /// The m,n,k games (tic-tac-toe, gomoku, renju).
    Morpion(History<Morpion>),
    /// The synthetic random tree.
    RandomTree(History<RandomTree>),
}

/// Runs `$body` with `$h` bound to the history, whatever the game (one copy per game type).
macro_rules! on {
    ($played:expr, $h:ident => $body:expr) => {
        match $played {
            $crate::game::Played::Othello($h) => $body,
            $crate::game::Played::Connect4($h) => $body,
            $crate::game::Played::Morpion($h) => $body,
            $crate::game::Played::RandomTree($h) => $body,
        }
    };
}
pub(crate) use on;

/// Where the game's history starts.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Start {
    /// The game's own start position.
    Root,
    /// A position given as text, in the game's notation as `Game(name, position=...)` reads it
    /// (Connect 4 and the random tree: the moves from the root, `4453`, `0 2 1`).
    Text(String),
    /// A Connect 4 or random-tree position reached by moves no one told us: it has no text.
    Unknown,
}

/// A game being played: its rules, the position it started from and the moves since.
///
/// Built from Python by `joute.Game(name, position=None, moves=None)`, and from Rust by
/// [`Game::from_history`] for a hosted player's turn.
#[pyclass(module = "joute", name = "Game")]
#[derive(Clone, Debug)]
pub struct Game {
    played: Played,
    start: Start,
}

/// A game error as Python's `ValueError`, with joute's message.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// 0 for the first player, 1 for the second.
pub(crate) fn side_index(side: Side) -> u8 {
    match side {
        Side::First => 0,
        Side::Second => 1,
    }
}

/// The game `Game(name, position)` starts from: the root, or the position read from `text`.
struct Setup<'a> {
    position: Option<&'a str>,
}

impl GameVisitor for Setup<'_> {
    type Output = PyResult<Game>;

    fn visit<G: Rules>(self, root: G) -> PyResult<Game> {
        let Some(text) = self.position else {
            return Game::of(History::new(root), Start::Root);
        };
        let start = root.parse_position(text).map_err(value_error)?;
        let any = &root as &dyn Any;
        let text = if any.is::<Connect4>() || any.is::<RandomTree>() {
            // Their positions are the moves from the root: kept in canonical form, so that the
            // moves played after can be appended to it.
            let mut pos = root;
            let mut written = Vec::new();
            for mv in root.parse_sequence(text).map_err(value_error)? {
                written.push(pos.format_move(mv));
                pos = pos.play(mv);
            }
            written.join(sequence_separator(&root))
        } else {
            position_text(&start, &[])
        };
        Game::of(History::new(start), Start::Text(text))
    }
}

/// How moves from the root are joined in a position's text: Connect 4's digits run together
/// (`4453`, what its position reader takes), the random tree's children are spaced (`1 12`).
fn sequence_separator<G: Rules>(pos: &G) -> &'static str {
    if (pos as &dyn Any).is::<Connect4>() {
        ""
    } else {
        " "
    }
}

impl Game {
    /// A game holding `history`, which starts at `start`.
    fn of<G: Rules>(history: History<G>, start: Start) -> PyResult<Game> {
        // `Played` holds every type `GameKind::dispatch` visits: never refused.
        let mut game = Game::from_history(&history).ok_or_else(|| {
            value_error(format!("{}: no such game type", history.current().name()))
        })?;
        game.start = start;
        Ok(game)
    }

    /// The game a hosted player is handed (a [`History`] of one of joute's games behind
    /// `Any`, as `joute::arena::hosted` gives it), copied; `None` if it holds something else.
    /// A Connect 4 or random-tree history must start at the game's root for
    /// [`Game::position_text`] to have a text (a hosted run's always does).
    pub fn from_history(history: &dyn Any) -> Option<Game> {
        let played = if let Some(h) = history.downcast_ref::<History<Othello>>() {
            Played::Othello(h.clone())
        } else if let Some(h) = history.downcast_ref::<History<Connect4>>() {
            Played::Connect4(h.clone())
        } else if let Some(h) = history.downcast_ref::<History<Morpion>>() {
            Played::Morpion(h.clone())
        } else {
            Played::RandomTree(history.downcast_ref::<History<RandomTree>>()?.clone())
        };
        let start = on!(&played, h => start_of(&h.positions[0]));
        Some(Game { played, start })
    }

    /// The game's name (`othello`, `morpion-15x15-5-exact`).
    pub fn game_name(&self) -> String {
        on!(&self.played, h => h.current().name())
    }

    /// The game's moves and positions.
    pub fn played(&self) -> &Played {
        &self.played
    }

    /// The current position in the game's notation, as `Game(name, position=...)` and
    /// `joute solve` read it: Othello's board and side to move, Morpion's cells row by row,
    /// Connect 4's and the random tree's moves from the root. `None` for a Connect 4 or
    /// random-tree game that started at a position whose moves are unknown.
    pub fn position_text(&self) -> Option<String> {
        on!(&self.played, h => {
            let root_moves = match &self.start {
                Start::Root => "",
                Start::Text(text) => text.as_str(),
                Start::Unknown => return None,
            };
            let current = h.current();
            let any = current as &dyn Any;
            if any.is::<Connect4>() || any.is::<RandomTree>() {
                let separator = sequence_separator(current);
                let mut text = root_moves.to_string();
                for (pos, &mv) in h.positions.iter().zip(&h.moves) {
                    if !text.is_empty() {
                        text.push_str(separator);
                    }
                    text.push_str(&pos.format_move(mv));
                }
                Some(text)
            } else {
                Some(position_text(current, &[]))
            }
        })
    }
}

/// Where a history starting at `first` starts.
fn start_of<G: Rules>(first: &G) -> Start {
    let root = GameKind::parse(&first.name())
        .ok()
        .and_then(|kind| kind.dispatch(RootOf::<G>(std::marker::PhantomData)));
    let any = first as &dyn Any;
    if root.as_ref() == Some(first) {
        Start::Root
    } else if any.is::<Connect4>() || any.is::<RandomTree>() {
        Start::Unknown
    } else {
        Start::Text(position_text(first, &[]))
    }
}

/// The root of a game of type `G` (`None` if the kind's start is another type).
struct RootOf<G>(std::marker::PhantomData<G>);

impl<G: Rules> GameVisitor for RootOf<G> {
    type Output = Option<G>;
    fn visit<H: Rules>(self, start: H) -> Option<G> {
        (&start as &dyn Any).downcast_ref::<G>().copied()
    }
}

#[pymethods]
impl Game {
    /// `Game(name, position=None, moves=None)`: a game by joute's name (`othello`,
    /// `connect4`, `morpion`, `morpion-RxC-K[-exact|-renju]`, `renju`, `random-tree-BxD`),
    /// from `position` (the game's notation) or its start, then `moves` played (a sequence
    /// as `play_sequence` reads it, or a list of moves such as `moves()` gives).
    #[new]
    #[pyo3(signature = (name, position=None, moves=None))]
    pub(crate) fn new(
        name: Cow<'_, str>,
        position: Option<Cow<'_, str>>,
        moves: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Game> {
        let kind = GameKind::parse(&name).map_err(value_error)?;
        let mut game = kind.dispatch(Setup {
            position: position.as_deref(),
        })?;
        match moves {
            None => {}
            Some(moves) => match moves.extract::<Cow<'_, str>>() {
                Ok(text) => game.play_sequence(&text)?,
                Err(_) => {
                    for mv in moves.try_iter()? {
                        game.play(mv?.extract::<Cow<'_, str>>()?)?;
                    }
                }
            },
        }
        Ok(game)
    }

    /// The legal moves in the game's notation (none once the game is over; Othello lists
    /// `pass` when it is the only move).
    fn legal_moves(&self) -> Vec<String> {
        on!(&self.played, h => {
            let pos = h.current();
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            moves.iter().map(|&mv| pos.format_move(mv)).collect()
        })
    }

    /// The number of legal moves (cheaper than `len(legal_moves())`).
    fn legal_move_count(&self) -> usize {
        on!(&self.played, h => h.current().move_count())
    }

    /// Plays `move` (the game's notation); `ValueError` saying why if it does not read or is
    /// not legal.
    fn play(&mut self, r#move: Cow<'_, str>) -> PyResult<()> {
        on!(&mut self.played, h => {
            let mv = h.current().parse_move(&r#move).map_err(value_error)?;
            h.play(mv);
        });
        Ok(())
    }

    /// Plays a sequence of moves (`f5d6c3`, `4 4 5`, `a1,b2`); on an error none is played.
    fn play_sequence(&mut self, moves: &str) -> PyResult<()> {
        on!(&mut self.played, h => {
            let seq = h.current().parse_sequence(moves).map_err(value_error)?;
            for mv in seq {
                h.play(mv);
            }
        });
        Ok(())
    }

    /// Takes back the last move; `IndexError` at the game's start.
    fn undo(&mut self) -> PyResult<()> {
        if on!(&mut self.played, h => h.undo()) {
            Ok(())
        } else {
            Err(PyIndexError::new_err(
                "no move to take back: the game is at its start",
            ))
        }
    }

    /// The player to move: 0 the first (Othello's black, X), 1 the second.
    fn turn(&self) -> u8 {
        side_index(on!(&self.played, h => h.current().side_to_move()))
    }

    /// Whether the game is over.
    fn is_over(&self) -> bool {
        on!(&self.played, h => h.current().outcome().is_some())
    }

    /// The first player's points once the game is over: 1.0, 0.5 or 0.0; `None` before.
    fn result(&self) -> Option<f64> {
        on!(&self.played, h => h.current().outcome()).map(|o| o.first_player_points())
    }

    /// The winner (0 or 1) once the game is over; `None` for a draw or a game not over.
    fn winner(&self) -> Option<u8> {
        on!(&self.played, h => h.current().outcome()).and_then(|o| o.winner.map(side_index))
    }

    /// The final score from the first player's point of view once the game is over (Othello:
    /// the disc difference, empty squares to the winner; the random tree: the leaf's value;
    /// else +1, 0 or -1); `None` before.
    fn score(&self) -> Option<i32> {
        on!(&self.played, h => h.current().outcome()).map(|o| o.score)
    }

    /// The board as a text diagram.
    fn board(&self) -> String {
        on!(&self.played, h => h.current().render())
    }

    /// The position in the game's notation, as `Game(name, position=...)` reads it.
    fn position(&self) -> PyResult<String> {
        self.position_text().ok_or_else(|| {
            PyValueError::new_err(
                "this game started at a position reached by moves joute was not given, and its position is written as those moves",
            )
        })
    }

    /// The moves played since the game's start (its position, if one was given).
    fn moves(&self) -> Vec<String> {
        on!(&self.played, h => h
            .positions
            .iter()
            .zip(&h.moves)
            .map(|(pos, &mv)| pos.format_move(mv))
            .collect())
    }

    /// An independent copy.
    fn copy(&self) -> Game {
        self.clone()
    }

    fn __copy__(&self) -> Game {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Game {
        self.clone()
    }

    /// The game's name (`othello`, `morpion-15x15-5-exact`).
    #[getter]
    fn name(&self) -> String {
        self.game_name()
    }

    /// A 64-bit hash of the position (the board and the side to move).
    fn hash(&self) -> u64 {
        on!(&self.played, h => h.current().hash_key())
    }

    /// `Game('othello', moves='f5 d6')`: what rebuilds this game.
    fn __repr__(&self) -> String {
        let mut text = format!("Game({:?}", self.name());
        if let Start::Text(position) = &self.start {
            text.push_str(&format!(", position={position:?}"));
        }
        let moves = self.moves();
        if !moves.is_empty() {
            text.push_str(&format!(", moves={:?}", moves.join(" ")));
        }
        text.push(')');
        text
    }

    /// The board.
    fn __str__(&self) -> String {
        self.board()
    }
}

/// Adds `Game` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Game>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hosted_players_history_becomes_a_game() {
        let mut history = History::new(Connect4::start());
        for col in [3, 3, 4] {
            history.play(joute::games::connect4::Column(col));
        }
        let game = Game::from_history(&history).unwrap();
        assert!(matches!(game.played(), Played::Connect4(h) if *h == history));
        assert_eq!(game.position_text().as_deref(), Some("445"));
        assert_eq!(game.moves(), ["4", "4", "5"]);
        // A Connect 4 game from a position whose moves are unknown has no text.
        let elsewhere = History::new(*history.current());
        assert_eq!(
            Game::from_history(&elsewhere).unwrap().position_text(),
            None
        );
        // Othello and Morpion positions are boards: any start has one.
        let othello = History::new(Othello::start().play_sequence("f5").unwrap());
        let game = Game::from_history(&othello).unwrap();
        assert_eq!(
            game.position_text().unwrap(),
            othello.current().to_board_string()
        );
        assert!(game.__repr__().contains("position="));
        let morpion = History::new(Morpion::start(3, 3, 3));
        let game = Game::from_history(&morpion).unwrap();
        assert_eq!(game.position_text().as_deref(), Some(".../.../..."));
        assert_eq!(game.__repr__(), "Game(\"morpion\")");
        let tree = History::new(RandomTree::new(3, 2, 0));
        assert_eq!(
            Game::from_history(&tree)
                .unwrap()
                .position_text()
                .as_deref(),
            Some("")
        );
        assert!(Game::from_history(&7u32).is_none());
        assert!(Game::from_history(&Connect4::start()).is_none());
    }
}

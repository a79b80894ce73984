//! One game between two engines, as `joute play` shows it: built-in engines built from their
//! `ALGORITHM:BUDGET` specs and seeded, or outside programs as `joute match` takes them, the
//! opening read in the game's notation, and each move handed to the caller as the referee
//! records it.

use super::engine::Engine;
use super::game::{GameRecord, MoveRecord, Opening, Player, Referee, play_game};
use super::outside::{OutsidePlayer, Setup};
use super::spec::{ClockWords, MatchEngine};
use crate::eval::Features;
use crate::games::GameKind;

/// Two players ready to play one game.
pub struct Duel<G: Features> {
    /// The players' names, the first player's first.
    pub names: [String; 2],
    start: G,
    opening: Vec<G::Move>,
    players: [Box<dyn Player<G>>; 2],
}

/// The player `text` names on `game` (a built-in engine seeded `seed`, or an outside program
/// as `joute match` takes it: `cmd=python3,arg=engine.py,proto=line`), and its name.
fn player<G: Features>(
    text: &str,
    game: GameKind,
    start: &G,
    seed: u64,
) -> Result<(String, Box<dyn Player<G>>), String> {
    let no_clock = |clock: &ClockWords| match clock == &ClockWords::default() {
        true => Ok(()),
        false => Err(format!(
            "engine '{text}': joute play keeps no clock; a game on a clock is `joute match --games 1 --tc ...`"
        )),
    };
    match MatchEngine::parse(text).map_err(|e| e.to_string())? {
        MatchEngine::BuiltIn { engine, clock } => {
            no_clock(&clock)?;
            let player = Engine::new(&engine, start, seed).map_err(|e| e.to_string())?;
            Ok((engine.name, Box::new(player)))
        }
        MatchEngine::Outside { name, spec, clock } => {
            no_clock(&clock)?;
            let setup = Setup {
                game,
                spec,
                clock: None,
            };
            // Its stderr is kept in memory: its last lines are in the message if it fails.
            Ok((name, Box::new(OutsidePlayer::<G>::new(setup, None))))
        }
        // The parser makes none: hosted engines come from a program embedding joute.
        MatchEngine::Hosted { name, .. } => Err(format!(
            "engine '{name}' is hosted: joute play has no hosted engines"
        )),
    }
}

impl<G: Features> Duel<G> {
    /// The players `specs` (`ALGORITHM:BUDGET` or an outside program, the first to move first;
    /// built-in engines seeded `seed` and `seed + 1`) to play `game` from `start` after
    /// `opening` (moves in the game's notation, maybe none). A spec or an opening that does not
    /// read is refused with the reason.
    pub fn new(
        game: GameKind,
        start: G,
        specs: [&str; 2],
        seed: u64,
        opening: &str,
    ) -> Result<Duel<G>, String> {
        let (first_name, first) = player(specs[0], game, &start, seed)?;
        let (second_name, second) = player(specs[1], game, &start, seed.wrapping_add(1))?;
        let opening = start.parse_sequence(opening).map_err(|e| e.to_string())?;
        Ok(Duel {
            names: [first_name, second_name],
            start,
            opening,
            players: [first, second],
        })
    }

    /// The position after the opening, where the engines start.
    pub fn position(&self) -> G {
        self.opening().position()
    }

    fn opening(&self) -> Opening<'_, G> {
        Opening {
            initial: self.start,
            moves: &self.opening,
        }
    }

    /// Plays the game, calling `on_move` with the position after each move and its record.
    pub fn play(self, on_move: impl FnMut(&G, &MoveRecord<G::Move>)) -> GameRecord<G> {
        let Duel {
            start,
            opening,
            players: [mut first, mut second],
            ..
        } = self;
        let opening = Opening {
            initial: start,
            moves: &opening,
        };
        let players: [&mut dyn Player<G>; 2] = [first.as_mut(), second.as_mut()];
        play_game(&opening, players, &mut Referee::default(), on_move)
    }
}

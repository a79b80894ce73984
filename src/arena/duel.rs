//! One game between two built-in engines, as `joute play` shows it: the engines built from
//! their `ALGORITHM:BUDGET` specs and seeded, the opening read in the game's notation, and each
//! move handed to the caller as the referee records it.

use super::engine::{Engine, EngineSpec};
use super::game::{GameRecord, MoveRecord, Opening, Player, Referee, play_game};
use crate::eval::Features;

/// Two engines ready to play one game.
pub struct Duel<G: Features> {
    /// The engines' names, the first player's first.
    pub names: [String; 2],
    start: G,
    opening: Vec<G::Move>,
    engines: [Engine<G>; 2],
}

impl<G: Features> Duel<G> {
    /// The engines `specs` (`ALGORITHM:BUDGET`, the first moves first), seeded `seed` and
    /// `seed + 1`, to play from `start` after `opening` (moves in the game's notation, maybe
    /// none). A spec or an opening that does not read is refused with the reason.
    pub fn new(start: G, specs: [&str; 2], seed: u64, opening: &str) -> Result<Duel<G>, String> {
        let parse = |text: &str| EngineSpec::parse(text).map_err(|e| e.to_string());
        let specs = [parse(specs[0])?, parse(specs[1])?];
        let build = |spec: &EngineSpec, seed: u64| {
            Engine::new(spec, &start, seed).map_err(|e| e.to_string())
        };
        let engines = [
            build(&specs[0], seed)?,
            build(&specs[1], seed.wrapping_add(1))?,
        ];
        let opening = start.parse_sequence(opening).map_err(|e| e.to_string())?;
        Ok(Duel {
            names: [specs[0].name.clone(), specs[1].name.clone()],
            start,
            opening,
            engines,
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
            engines: [mut first, mut second],
            ..
        } = self;
        let opening = Opening {
            initial: start,
            moves: &opening,
        };
        let players: [&mut dyn Player<G>; 2] = [&mut first, &mut second];
        play_game(&opening, players, &mut Referee::default(), on_move)
    }
}

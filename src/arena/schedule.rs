//! The schedule: which engines play game `id`, from which opening, with which colours.
//!
//! Games are numbered so that every prefix of the run is balanced: id =
//! `(opening · pairings + pairing) · 2 + colour`, the openings of round 0 first, then those of
//! round 1, and so on (every round has openings of its own: replaying one would repeat the
//! games of deterministic engines move for move and count them twice). The two games of an
//! opening pair have consecutive ids (`pair = id / 2`); in colour 0 the pairing's first engine
//! (its "A") moves first, in colour 1 the second. A game's seed is derived from the spec's seed
//! and the id alone ([`game_seed`]), so nothing depends on threads, order of completion or
//! sharding.
//!
//! A run that gained engines ([`Schedule::grown`]) keeps the ids of the games it had: its
//! schedule is a list of blocks, the first the earlier run's games numbered as above, each
//! later one the games a step added (the new pairings on the openings played so far, then
//! every pairing on the openings added), numbered the same way within the block.

use crate::games::hash::{combine, mix64};

/// Who plays whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every engine against every other.
    RoundRobin,
    /// The challengers (engine indices) against every engine that is not a challenger.
    Gauntlet {
        /// Engine indices.
        challengers: Vec<usize>,
    },
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Game id.
    pub id: u64,
    /// Opening pair id (`id / 2`).
    pub pair: u64,
    /// Round, from 0.
    pub round: u32,
    /// Index of the opening in the run's list (all rounds).
    pub opening: u64,
    /// Index of the pairing.
    pub pairing: usize,
    /// Engine moving first.
    pub first: usize,
    /// Engine moving second.
    pub second: usize,
    /// 0: the pairing's A moves first; 1: its B does.
    pub colour: u8,
}

/// The games of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The pairings (A, B), A the lower spec index in a round robin, the challenger in a
    /// gauntlet.
    pub pairings: Vec<(usize, usize)>,
    /// Openings, all rounds together (each round has `openings / rounds` of its own).
    pub openings: u64,
    /// Rounds.
    pub rounds: u32,
    /// A grown run's blocks, in id order (empty: one block of every pairing and opening).
    blocks: Vec<Block>,
}

/// Games numbered together: `pairings` (indices into [`Schedule::pairings`]) on openings
/// `openings`, from id `first_id`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Block {
    first_id: u64,
    pairings: Vec<usize>,
    openings: std::ops::Range<u64>,
}

impl Block {
    fn games(&self) -> u64 {
        self.pairings.len() as u64 * (self.openings.end - self.openings.start) * 2
    }
}

/// An earlier shape of a grown run: the pairings it had (indices into the present
/// [`Schedule::pairings`]) and how many openings it played them on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The pairings then, a subset of the present ones.
    pub pairings: Vec<usize>,
    /// Openings then, all rounds together.
    pub openings: u64,
}

impl Schedule {
    /// The schedule of `engines` engines in `format`.
    pub fn new(format: &Format, engines: usize, openings: u64, rounds: u32) -> Schedule {
        let pairings = match format {
            Format::RoundRobin => (0..engines)
                .flat_map(|a| (a + 1..engines).map(move |b| (a, b)))
                .collect(),
            Format::Gauntlet { challengers } => challengers
                .iter()
                .flat_map(|&c| {
                    (0..engines)
                        .filter(|e| !challengers.contains(e))
                        .map(move |b| (c, b))
                })
                .collect(),
        };
        Schedule {
            pairings,
            openings,
            rounds,
            blocks: Vec::new(),
        }
    }

    /// The schedule of a run that had the shapes `earlier` (oldest first, each with no fewer
    /// pairings and openings than the one before) before it became this one. Every game of an
    /// earlier shape keeps the id it had; the games each step added come after. The caller
    /// checks the stages (a subset of pairings, openings that do not shrink).
    pub fn grown(mut self, earlier: &[Stage]) -> Schedule {
        let Some(first) = earlier.first() else {
            return self;
        };
        let mut blocks = Vec::new();
        let mut next_id = 0;
        let mut push = |pairings: Vec<usize>, openings: std::ops::Range<u64>| {
            let block = Block {
                first_id: next_id,
                pairings,
                openings,
            };
            if block.games() > 0 {
                next_id += block.games();
                blocks.push(block);
            }
        };
        push(first.pairings.clone(), 0..first.openings);
        let present = Stage {
            pairings: (0..self.pairings.len()).collect(),
            openings: self.openings,
        };
        for (before, after) in earlier.iter().zip(earlier[1..].iter().chain([&present])) {
            let new: Vec<usize> = (after.pairings.iter())
                .filter(|p| !before.pairings.contains(p))
                .copied()
                .collect();
            push(new, 0..before.openings);
            push(after.pairings.clone(), before.openings..after.openings);
        }
        self.blocks = blocks;
        self
    }

    /// The number of games.
    pub fn games(&self) -> u64 {
        self.pairings.len() as u64 * self.openings * 2
    }

    /// Whether the run grew: its ids are not the plain layout's (a sharded run cannot grow).
    pub fn is_grown(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// Game `id` (below [`Schedule::games`]).
    pub fn slot(&self, id: u64) -> Slot {
        let colour = (id % 2) as u8;
        let pair = id / 2;
        let (pairing, opening) = if self.blocks.is_empty() {
            let pairings = self.pairings.len() as u64;
            ((pair % pairings) as usize, pair / pairings)
        } else {
            let at = self.blocks.partition_point(|b| b.first_id <= id) - 1;
            let block = &self.blocks[at];
            let local = (id - block.first_id) / 2;
            let count = block.pairings.len() as u64;
            (
                block.pairings[(local % count) as usize],
                block.openings.start + local / count,
            )
        };
        let per_round = (self.openings / self.rounds.max(1) as u64).max(1);
        let round = (opening / per_round) as u32;
        let (a, b) = self.pairings[pairing];
        let (first, second) = if colour == 0 { (a, b) } else { (b, a) };
        Slot {
            id,
            pair,
            round,
            opening,
            pairing,
            first,
            second,
            colour,
        }
    }
}

/// The seed of game `id` of a run seeded with `seed`.
pub fn game_seed(seed: u64, id: u64) -> u64 {
    mix64(combine(seed ^ 0x6761_6d65, id))
}

/// A shard of a run: whole opening pairs, both games of each — the pair of opening `o` and
/// pairing `q` goes to shard `(o + q) mod count`, so that every shard gets its share of every
/// pairing (dealing pair numbers out modulo `count` would give a shard only some pairings when
/// `count` and the number of pairings share a factor), and a two-engine run's pairs go round
/// the shards in turn. Folders of earlier versions held the games whose id is `index` modulo
/// `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// This shard, 0-based.
    pub index: u64,
    /// Number of shards.
    pub count: u64,
    /// What is dealt out: opening pairs (`run.json` of earlier versions has no `unit`: games).
    #[serde(default = "ShardUnit::games")]
    pub unit: ShardUnit,
}

/// What a shard's modulo counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShardUnit {
    /// Opening pairs: a shard holds whole pairs, so its pentanomial figures mean something.
    /// `pairings`: the schedule's number of pairings.
    Pair,
    /// Game ids, as earlier versions dealt them out (their folders still merge and report).
    Game,
}

impl ShardUnit {
    fn games() -> ShardUnit {
        ShardUnit::Game
    }
}

impl Shard {
    /// Reads `I/N` with `0 ≤ I < N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || {
            format!(
                "shard '{text}' is not I/N with 0 <= I < N, e.g. --shard 0/4 (the first of four)"
            )
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard {
            index,
            count,
            unit: ShardUnit::Pair,
        })
    }

    /// Whether game `id` of a schedule of `pairings` pairings belongs to this shard.
    pub fn holds(&self, id: u64, pairings: u64) -> bool {
        match self.unit {
            ShardUnit::Pair => {
                let pair = id / 2;
                let (opening, pairing) = (pair / pairings, pair % pairings);
                (opening % self.count + pairing % self.count) % self.count == self.index
            }
            ShardUnit::Game => id % self.count == self.index,
        }
    }

    /// The folder name of this shard, `shard-I-of-N`.
    pub fn folder_name(&self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pairing_plays_every_opening_with_both_colours() {
        let s = Schedule::new(&Format::RoundRobin, 4, 10, 2);
        assert_eq!(s.pairings.len(), 6);
        assert_eq!(s.games(), 6 * 10 * 2);
        assert_eq!(s.slot(6 * 5 * 2 - 1).round, 0);
        assert_eq!(s.slot(6 * 5 * 2).round, 1);
        let mut seen = std::collections::HashSet::new();
        for id in 0..s.games() {
            let slot = s.slot(id);
            assert_eq!(slot.pair, id / 2);
            assert!(seen.insert((slot.round, slot.opening, slot.first, slot.second)));
            if slot.colour == 1 {
                let other = s.slot(id - 1);
                assert_eq!((other.first, other.second), (slot.second, slot.first));
                assert_eq!(other.opening, slot.opening);
            }
        }
        assert_eq!(seen.len() as u64, s.games());
    }

    #[test]
    fn a_grown_schedule_keeps_every_earlier_id_and_plays_every_cell_once() {
        // 3 engines on 4 openings, then a fourth engine (still 4 openings), then 6 openings.
        let three = Schedule::new(&Format::RoundRobin, 3, 4, 1);
        let four = Schedule::new(&Format::RoundRobin, 4, 4, 1);
        let index = |s: &Schedule, a, b| s.pairings.iter().position(|&p| p == (a, b)).unwrap();
        let stage = |s: &Schedule, openings| Stage {
            pairings: (s.pairings.iter())
                .map(|&(a, b)| index(&four, a, b))
                .collect(),
            openings,
        };
        let grown =
            Schedule::new(&Format::RoundRobin, 4, 6, 1).grown(&[stage(&three, 4), stage(&four, 4)]);
        assert!(grown.is_grown());
        assert_eq!(grown.games(), 6 * 6 * 2);
        // The first 24 ids are the three-engine run's games, engines and openings alike.
        for id in 0..three.games() {
            let (old, new) = (three.slot(id), grown.slot(id));
            assert_eq!(
                (old.first, old.second, old.opening, old.colour, old.pair),
                (new.first, new.second, new.opening, new.colour, new.pair),
                "id {id}"
            );
        }
        // Then the new engine's pairings on the first four openings, then every pairing on
        // openings 4 and 5: every cell once, the pair's two games consecutive.
        let mut seen = std::collections::HashSet::new();
        for id in 0..grown.games() {
            let slot = grown.slot(id);
            let (a, b) = grown.pairings[slot.pairing];
            let expected = if slot.colour == 0 { (a, b) } else { (b, a) };
            assert_eq!((slot.first, slot.second), expected);
            assert_eq!(slot.pair, id / 2);
            assert!(
                seen.insert((slot.pairing, slot.opening, slot.colour)),
                "id {id}"
            );
            if id >= three.games() && id < three.games() + 3 * 4 * 2 {
                assert!(slot.first == 3 || slot.second == 3, "id {id}: {slot:?}");
                assert!(slot.opening < 4);
            }
            if id >= three.games() + 3 * 4 * 2 {
                assert!(slot.opening >= 4, "id {id}: {slot:?}");
            }
        }
        assert_eq!(seen.len() as u64, grown.games());
        // An ungrown schedule is the plain layout.
        assert_eq!(four.clone().grown(&[]), four);
    }

    #[test]
    fn a_gauntlet_pairs_challengers_with_the_others_only() {
        let s = Schedule::new(
            &Format::Gauntlet {
                challengers: vec![0, 3],
            },
            4,
            1,
            1,
        );
        assert_eq!(s.pairings, vec![(0, 1), (0, 2), (3, 1), (3, 2)]);
    }

    #[test]
    fn shards_parse_and_partition() {
        let shard = |index, unit| Shard {
            index,
            count: 3,
            unit,
        };
        assert_eq!(Shard::parse("1/3").unwrap(), shard(1, ShardUnit::Pair));
        for bad in ["3/3", "0/0", "1", "a/b", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        for unit in [ShardUnit::Pair, ShardUnit::Game] {
            let shards: Vec<Shard> = (0..3).map(|i| shard(i, unit)).collect();
            for pairings in [1, 3, 6, 10] {
                for id in 0..600 {
                    assert_eq!(shards.iter().filter(|s| s.holds(id, pairings)).count(), 1);
                }
            }
        }
        let owner = |id, pairings| {
            (0..3)
                .find(|&i| shard(i, ShardUnit::Pair).holds(id, pairings))
                .unwrap()
        };
        // Two engines: both games of a pair in one shard, the pairs dealt out in turn.
        let by_pair: Vec<u64> = (0..12u64).map(|id| owner(id, 1)).collect();
        assert_eq!(by_pair, [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]);
        // Six pairings, a multiple of the shards: every shard still plays every pairing, on a
        // third of the openings.
        for index in 0..3 {
            for pairing in 0..6u64 {
                let openings = (0..30u64)
                    .filter(|&o| owner(2 * (o * 6 + pairing), 6) == index)
                    .count();
                assert_eq!(openings, 10, "shard {index}, pairing {pairing}");
            }
        }
        // A run.json of an earlier version has no unit: its shard dealt out game ids.
        let old: Shard = serde_json::from_str(r#"{"index":1,"count":3}"#).unwrap();
        assert_eq!(old, shard(1, ShardUnit::Game));
        let new = serde_json::to_string(&shard(1, ShardUnit::Pair)).unwrap();
        assert_eq!(new, r#"{"index":1,"count":3,"unit":"pair"}"#);
    }
}

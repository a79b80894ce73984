//! The summary of a run's games: what the tables, CSV files and charts are made of.
//!
//! A [`Summary`] is fed games one at a time, in any order ([`Summary::add`]), and keeps only
//! counts — per engine pair W/D/L, pentanomial pair counts, the rating fit's inputs — plus the
//! first game of each opening pair until its partner arrives. Feeding the same set of games in
//! another order gives the same summary, which is why the merge of shard logs renders exactly
//! what the unsharded run does.
//!
//! For an SPRT run the decision is taken on the prefix of pairs in pair order (see
//! [`crate::stats::sequential::SequentialSprt`]); games of pairs after the decision point are played
//! only because they were in flight, and are left out of every statistic.

use std::collections::{BTreeMap, HashMap};

use crate::arena::log::GameLine;
use crate::arena::schedule::Schedule;
use crate::arena::spec::ResolvedSpec;
use crate::stats::ratings::{Ratings, Results, fit};
use crate::stats::sequential::{Decided, SequentialSprt};
use crate::stats::summary::{EloEstimate, Pentanomial, Trinomial};

/// The games between two engines, from A's point of view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairingStats {
    /// Engine index of A.
    pub a: usize,
    /// Engine index of B.
    pub b: usize,
    /// A's wins, draws and losses.
    pub wdl: Trinomial,
    /// A's opening-pair results.
    pub pentanomial: Pentanomial,
    /// Pairs won once and lost once (part of the middle pentanomial count).
    pub win_loss_pairs: u64,
    /// Pairs drawn twice (the rest of the middle count).
    pub draw_draw_pairs: u64,
}

impl PairingStats {
    /// Score, Elo ± 95%, nElo and LOS of A from the opening pairs (the pentanomial model), or
    /// from single games when no pair is complete yet.
    pub fn estimate(&self) -> EloEstimate {
        if self.pentanomial.pairs() > 0 {
            self.pentanomial.estimate()
        } else {
            self.wdl.estimate()
        }
    }
}

/// Everything the reports of a run need, accumulated game by game.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The run's spec.
    pub spec: ResolvedSpec,
    /// The spec's hash.
    pub hash: String,
    /// Inputs of the rating fit.
    pub results: Results,
    /// Per engine pair that met, keyed by the pair of indices (A < B in spec order for a
    /// round robin; the challenger first in a gauntlet).
    pub pairings: Vec<PairingStats>,
    /// Games counted.
    pub games: u64,
    /// Draws per engine.
    pub draws: Vec<u64>,
    /// Points scored by the side that moves first in the game (colour advantage).
    pub first_side_points: f64,
    /// Histogram of plies per game (opening included).
    pub lengths: BTreeMap<usize, u64>,
    /// Histogram of the final score margin from the first side's point of view (Othello: disc
    /// difference; games without a margin score +1, 0, -1).
    pub margins: BTreeMap<i32, u64>,
    /// Wall-clock seconds summed over games.
    pub game_seconds: f64,
    /// Moves each engine played (openings excluded).
    pub moves: Vec<u64>,
    /// Moves of each engine that its time limit cut short (results then depend on the
    /// machine).
    pub timeouts: Vec<u64>,
    /// Games of pairs after an SPRT decision, left out.
    pub after_decision: u64,
    /// The SPRT's state, for a run that has one.
    pub sprt: Option<SequentialSprt>,
    /// The first game of each opening pair whose partner has not arrived: (A's score, pairing).
    pending: HashMap<u64, (f64, usize)>,
    /// The run's schedule.
    schedule: Schedule,
    /// The decision's pair count, once known: pairs at or after it are left out.
    cutoff: Option<u64>,
    /// Hashes of earlier specs this run extends: their games count too (see
    /// [`Summary::accept_earlier`]).
    earlier: Vec<String>,
}

/// Why a game cannot be counted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SummaryError(pub String);

impl Summary {
    /// An empty summary of a run of `spec` (whose hash is `hash`).
    pub fn new(spec: &ResolvedSpec, hash: &str) -> Summary {
        let names = spec.engine_names();
        let n = names.len();
        let schedule = spec.schedule();
        let pairings: Vec<PairingStats> = schedule
            .pairings
            .iter()
            .map(|&(a, b)| PairingStats {
                a,
                b,
                ..PairingStats::default()
            })
            .collect();
        Summary {
            spec: spec.clone(),
            hash: hash.to_string(),
            results: Results::new(names),
            pairings,
            games: 0,
            draws: vec![0; n],
            first_side_points: 0.0,
            lengths: BTreeMap::new(),
            margins: BTreeMap::new(),
            game_seconds: 0.0,
            moves: vec![0; n],
            timeouts: vec![0; n],
            after_decision: 0,
            sprt: spec.sprt.map(SequentialSprt::new),
            pending: HashMap::new(),
            schedule,
            cutoff: None,
            earlier: Vec::new(),
        }
    }

    /// Accepts the games of earlier specs that this run's spec extends (more openings or
    /// rounds, the same engines): the caller has checked that every such game keeps its place
    /// in this spec's schedule, which [`Summary::add`] checks again game by game.
    pub fn accept_earlier(&mut self, hashes: &[String]) {
        self.earlier = hashes.to_vec();
    }

    /// Tells the summary where an SPRT decided (from a first pass over the log), so that games
    /// after it are left out whatever order they come in.
    pub fn set_cutoff(&mut self, pairs: Option<u64>) {
        self.cutoff = pairs;
    }

    /// Counts one game. Returns the SPRT's decision if this game completed it.
    pub fn add(&mut self, game: &GameLine) -> Result<Option<Decided>, SummaryError> {
        if game.spec != self.hash && !self.earlier.contains(&game.spec) {
            return Err(SummaryError(format!(
                "game {} belongs to spec {}, not to this run's spec {}",
                game.id, game.spec, self.hash
            )));
        }
        game.check(&self.spec, &self.schedule)
            .map_err(SummaryError)?;
        let slot = self.schedule.slot(game.id);
        let (a, b) = self.schedule.pairings[slot.pairing];
        let index_in_pair = slot.colour;
        let score_a = if index_in_pair == 0 {
            game.score
        } else {
            1.0 - game.score
        };
        if let Some(cutoff) = self.cutoff
            && game.pair >= cutoff
        {
            self.after_decision += 1;
            return Ok(None);
        }
        let p = slot.pairing;
        self.games += 1;
        let stats = &mut self.pairings[p];
        match score_a {
            1.0 => stats.wdl.wins += 1,
            0.0 => stats.wdl.losses += 1,
            _ => {
                stats.wdl.draws += 1;
                self.draws[a] += 1;
                self.draws[b] += 1;
            }
        }
        self.first_side_points += game.score;
        *self
            .lengths
            .entry(game.opening.len() + game.plies)
            .or_default() += 1;
        *self.margins.entry(game.margin).or_default() += 1;
        self.game_seconds += game.seconds;
        // Sides alternate (a pass is a move), so the opening's parity says who moved first.
        let by_first = if game.opening.len().is_multiple_of(2) {
            game.plies.div_ceil(2)
        } else {
            game.plies / 2
        } as u64;
        let (first, second) = (slot.first, slot.second);
        self.moves[first] += by_first;
        self.moves[second] += game.plies as u64 - by_first;
        self.timeouts[first] += u64::from(game.timeouts[0]);
        self.timeouts[second] += u64::from(game.timeouts[1]);
        match self.pending.remove(&game.pair) {
            None => {
                self.pending.insert(game.pair, (score_a, p));
            }
            Some((other, _)) => {
                let stats = &mut self.pairings[p];
                stats.pentanomial.add_pair(other, score_a);
                if other + score_a == 1.0 {
                    if other == 0.5 {
                        stats.draw_draw_pairs += 1;
                    } else {
                        stats.win_loss_pairs += 1;
                    }
                }
                let (s0, s1) = if index_in_pair == 0 {
                    (score_a, other)
                } else {
                    (other, score_a)
                };
                self.results.add_pair(a, b, s0, s1);
            }
        }
        let decided = match &mut self.sprt {
            Some(test) if test.decided().is_none() => {
                test.add_game(game.pair, index_in_pair, score_a)
            }
            _ => None,
        };
        Ok(decided)
    }

    /// Every game counted: complete pairs as pairs, unpaired games on their own.
    pub fn all_results(&self) -> Results {
        let mut results = self.results.clone();
        for &(score_a, p) in self.pending.values() {
            let (a, b) = (self.pairings[p].a, self.pairings[p].b);
            results.add_game(a, b, score_a);
        }
        results
    }

    /// The ratings of [`Summary::all_results`].
    pub fn ratings(&self) -> Ratings {
        fit(&self.all_results(), self.spec.anchor_index())
    }

    /// Games whose pair partner is missing (a run in progress, or an SPRT cut).
    pub fn unpaired(&self) -> usize {
        self.pending.len()
    }

    /// The SPRT decision, if the run has one and it was reached.
    pub fn decision(&self) -> Option<Decided> {
        self.sprt.as_ref().and_then(|t| t.decided())
    }
}

//! The real [`PairOracle`]: candidates play games of the tuned engine, in parallel, from fresh
//! random openings that no other candidate of the run ever gets.
//!
//! Pair `j` of a call plays from the next opening of the run's [`OpeningStream`]; its engines
//! are seeded from `(seed, j)`, so a call's result depends on its seed and on how many
//! openings the run has used before it, never on the thread count. Against a pool, opening `j`
//! is played by the candidate and by the opponent vector against the same pool engine (the
//! pool in turn, counted over the run's openings), two games each.

use super::objective::{PairOracle, Trial};
use crate::arena::EngineSpec;
use crate::arena::engine::Engine;
use crate::arena::game::{Opening, Referee, play_game};
use crate::arena::openings::OpeningStream;
use crate::eval::{Features, Weights};
use crate::games::hash::combine;
use rayon::prelude::*;

/// Candidates of one engine configuration played on real games.
pub struct EngineOracle<G: Features> {
    start: G,
    engine: EngineSpec,
    base: Vec<f64>,
    features: Vec<usize>,
    pool: Vec<(EngineSpec, Weights)>,
    openings: OpeningStream<G>,
    threads: rayon::ThreadPool,
}

impl<G: Features> EngineOracle<G> {
    /// An oracle for `engine` on the game of `start`: candidates set the weights of `features`
    /// (indices into the game's features) in `base`; `pool` empty means candidates play the
    /// opponent vector directly. `threads` workers play the games.
    pub fn new(
        start: G,
        engine: EngineSpec,
        base: Vec<f64>,
        features: Vec<usize>,
        pool: Vec<(EngineSpec, Weights)>,
        openings: OpeningStream<G>,
        threads: usize,
    ) -> Self {
        EngineOracle {
            start,
            engine,
            base,
            features,
            pool,
            openings,
            threads: rayon::ThreadPoolBuilder::new()
                .num_threads(threads.max(1))
                .thread_name(|i| format!("joute-tune-{i}"))
                .build()
                .expect("the worker pool starts"),
        }
    }

    /// The run's opening stream (its positions are excluded from the held-out openings).
    pub fn openings(&self) -> &OpeningStream<G> {
        &self.openings
    }

    /// The run's opening stream, the oracle done with.
    pub fn into_openings(self) -> OpeningStream<G> {
        self.openings
    }

    /// The full weight vector with the tuned features set to `theta`.
    fn weights(&self, theta: &[f64]) -> Weights {
        let mut values = self.base.clone();
        for (&f, &x) in self.features.iter().zip(theta) {
            values[f] = x;
        }
        Weights {
            game: self.start.name(),
            values,
            endgame: None,
            origin: "candidate".into(),
        }
    }
}

/// The next `pairs` openings of a run's `stream`, one per pair of a call: every candidate of
/// the run gets openings no other candidate had.
pub(in crate::tune) fn fresh_openings<G: Features>(
    stream: &mut OpeningStream<G>,
    pairs: u64,
) -> Result<Vec<Vec<G::Move>>, String> {
    let first = stream.given();
    (0..pairs)
        .map(|_| {
            let (moves, _) = stream.next_opening().map_err(|e| {
                format!(
                    "{e}. Every candidate needs fresh openings and this run has used {first}: raise openings.plies, or lower the budget"
                )
            })?;
            Ok(moves)
        })
        .collect()
}

/// The score of engine `a` in a game it plays against `b` from `opening`, `a` on the side that
/// moves first when `a_first`.
fn score_of<G: Features>(
    opening: &Opening<'_, G>,
    a: (&EngineSpec, &Weights),
    b: (&EngineSpec, &Weights),
    a_first: bool,
    start: &G,
    seed: u64,
) -> f64 {
    let build = |(spec, weights): (&EngineSpec, &Weights), side: u64| {
        Engine::with_weights(spec, start, weights.clone(), combine(seed, side))
    };
    let [mut first, mut second] = if a_first {
        [build(a, 0), build(b, 1)]
    } else {
        [build(b, 0), build(a, 1)]
    };
    let record = play_game(
        opening,
        [&mut first, &mut second],
        &mut Referee::default(),
        |_, _| {},
    );
    let first = record.outcome.first_player_points();
    if a_first { first } else { 1.0 - first }
}

impl<G: Features> PairOracle for EngineOracle<G> {
    fn play_pairs(
        &mut self,
        candidate: &[f64],
        opponent: &[f64],
        pairs: u64,
        seed: u64,
    ) -> Result<Trial, String> {
        let first = self.openings.given();
        let openings = fresh_openings(&mut self.openings, pairs)?;
        let cand = self.weights(candidate);
        let opp = self.weights(opponent);
        let (engine, start, pool) = (&self.engine, &self.start, &self.pool);
        let play = |j: usize| -> [f64; 4] {
            let opening = Opening {
                initial: *start,
                moves: &openings[j],
            };
            let seed = combine(seed, j as u64);
            let c = (engine, &cand);
            match pool.len() {
                0 => {
                    let o = (engine, &opp);
                    [
                        score_of(&opening, c, o, true, start, combine(seed, 0)),
                        score_of(&opening, c, o, false, start, combine(seed, 1)),
                        0.0,
                        0.0,
                    ]
                }
                n => {
                    let (spec, weights) = &pool[((first + j as u64) % n as u64) as usize];
                    let p = (spec, weights);
                    let o = (engine, &opp);
                    [
                        score_of(&opening, c, p, true, start, combine(seed, 0)),
                        score_of(&opening, c, p, false, start, combine(seed, 1)),
                        score_of(&opening, o, p, true, start, combine(seed, 0)),
                        score_of(&opening, o, p, false, start, combine(seed, 1)),
                    ]
                }
            }
        };
        let scores: Vec<[f64; 4]> = self
            .threads
            .install(|| (0..openings.len()).into_par_iter().map(play).collect());
        let mut trial = Trial::default();
        for s in scores {
            if self.pool.is_empty() {
                trial.add_direct(s[0], s[1]);
            } else {
                trial.add_pooled([s[0], s[1]], [s[2], s[3]]);
            }
        }
        Ok(trial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::openings::Balance;
    use crate::games::GameKind;
    use crate::games::connect4::Connect4;

    fn oracle(threads: usize, pool: bool) -> EngineOracle<Connect4> {
        let start = Connect4::start();
        let engine = EngineSpec::parse("alphabeta:2").unwrap();
        let base = Weights::default_for(&start).values;
        let pool = if pool {
            vec![(
                EngineSpec::parse("alphabeta:1").unwrap(),
                Weights::default_for(&start),
            )]
        } else {
            Vec::new()
        };
        let stream = OpeningStream::new(start, 6, 9, Balance::default_for(GameKind::Connect4));
        // Feature 6: own_immediate, a playable own threat (a win on this move).
        EngineOracle::new(start, engine, base, vec![6], pool, stream, threads)
    }

    #[test]
    fn results_do_not_depend_on_threads_and_openings_are_never_reused() {
        for pool in [false, true] {
            let mut a = oracle(1, pool);
            let mut b = oracle(2, pool);
            let x = a.play_pairs(&[0.0], &[50.0], 24, 5).unwrap();
            assert_eq!(x, b.play_pairs(&[0.0], &[50.0], 24, 5).unwrap());
            assert_eq!(x.pairs(), 24);
            assert_eq!(x.games, if pool { 96 } else { 48 });
            assert_eq!(x.pooled, pool);
            // The next call gets new openings: its games differ even with the same seed.
            a.play_pairs(&[0.0], &[50.0], 24, 5).unwrap();
            assert_eq!(a.openings().given(), 48);
            assert_eq!(a.openings().seen().count(), 48);
        }
    }

    #[test]
    fn a_much_worse_candidate_loses() {
        // Shunning its own winning moves, against the defaults that take them.
        let mut o = oracle(2, false);
        let t = o.play_pairs(&[-50.0], &[50.0], 40, 1).unwrap();
        let (elo, _) = t.estimate();
        assert!(elo < 0.0, "{t:?}");
        assert!(t.points_difference() < 0.0);
    }
}

//! An SPRT followed over a run whose games finish out of order (several threads): to be
//! reproducible, the test looks only at the prefix of opening pairs in pair-id order, so a run
//! stops on the same pair, with the same counts and LLR, however the threads were scheduled.

use super::sprt::{Decision, NEGLIGIBLE_DRIFT, Sprt, expected_exit};
use super::summary::Pentanomial;
use std::collections::BTreeMap;

/// The outcome of a sequential test: which hypothesis, at what LLR, after how many pairs.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Decided {
    /// H0 or H1 (never `Continue`).
    pub decision: Decision,
    /// The LLR of the pairs counted, the first to reach a bound.
    pub llr: f64,
    /// Pairs counted: the decision was taken on pairs `0..pairs`.
    pub pairs: u64,
}

/// An SPRT fed game by game in any order, deciding on pairs 0, 1, 2, … in order: a pair is
/// counted once both its games and all earlier pairs are in; games that arrive early wait.
#[derive(Clone, Debug)]
pub struct SequentialSprt {
    test: Sprt,
    /// Pentanomial counts of pairs `0..next`.
    counts: Pentanomial,
    /// The first pair not yet counted.
    next: u64,
    /// Games of pairs `next..` already finished, by pair id: A's score in each game.
    waiting: BTreeMap<u64, [Option<f64>; 2]>,
    /// The LLR after each counted pair.
    history: Vec<f64>,
    decided: Option<Decided>,
}

impl SequentialSprt {
    /// A test with no games yet.
    pub fn new(test: Sprt) -> SequentialSprt {
        SequentialSprt {
            test,
            counts: Pentanomial::default(),
            next: 0,
            waiting: BTreeMap::new(),
            history: Vec::new(),
            decided: None,
        }
    }

    /// Records game `game_in_pair` (0 or 1) of pair `pair`, in which engine A scored `score_a`
    /// (1, ½ or 0), counts every pair that is now complete in order, and returns the decision
    /// once there is one (taken by this game or earlier). After the decision games are ignored:
    /// the runner may still be finishing the ones it started.
    ///
    /// # Panics
    ///
    /// If `game_in_pair` is not 0 or 1, or the same game is recorded twice (before the
    /// decision).
    pub fn add_game(&mut self, pair: u64, game_in_pair: u8, score_a: f64) -> Option<Decided> {
        assert!(game_in_pair < 2, "game {game_in_pair} of a pair");
        if self.decided.is_some() {
            return self.decided;
        }
        assert!(pair >= self.next, "pair {pair} recorded twice");
        let slot = &mut self.waiting.entry(pair).or_default()[game_in_pair as usize];
        assert!(
            slot.is_none(),
            "game {game_in_pair} of pair {pair} recorded twice"
        );
        *slot = Some(score_a);
        while let Some(&[Some(first), Some(second)]) = self.waiting.get(&self.next) {
            self.waiting.remove(&self.next);
            self.next += 1;
            self.counts.add_pair(first, second);
            let llr = self.test.llr_pentanomial(&self.counts);
            self.history.push(llr);
            let decision = self.test.decide(llr);
            if decision != Decision::Continue {
                self.decided = Some(Decided {
                    decision,
                    llr,
                    pairs: self.next,
                });
                // Later pairs play no part: forget them.
                self.waiting.clear();
                break;
            }
        }
        self.decided
    }

    /// The decision, once the LLR of a prefix of pairs has reached a bound.
    pub fn decided(&self) -> Option<Decided> {
        self.decided
    }

    /// The pentanomial counts of the pairs counted so far (up to the decision's pair).
    pub fn counts(&self) -> Pentanomial {
        self.counts
    }

    /// The LLR of the pairs counted so far (0 before the first).
    pub fn llr(&self) -> f64 {
        self.history.last().copied().unwrap_or(0.0)
    }

    /// The LLR after each counted pair, in pair order: `history()[k]` is the LLR of pairs
    /// `0..=k`.
    pub fn history(&self) -> &[f64] {
        &self.history
    }

    /// Finished games waiting for an earlier pair before they can be counted.
    pub fn waiting_games(&self) -> usize {
        self.waiting
            .values()
            .map(|games| games.iter().flatten().count())
            .sum()
    }

    /// The test being run.
    pub fn test(&self) -> &Sprt {
        &self.test
    }

    /// How many more pairs the test is expected to take if the pairs to come are like those
    /// counted: [`expected_exit`] from the current LLR to its bounds, with the per-pair
    /// increment's mean and variance at the observed frequencies ([`Sprt::pair_drift`]). `None`
    /// once decided, or before `min_pairs` pairs.
    pub fn expected_remaining(&self, min_pairs: u64) -> Option<Remaining> {
        if self.decided.is_some() || self.counts.pairs() < min_pairs.max(1) {
            return None;
        }
        let (mean, variance) = self.test.pair_drift(&self.counts)?;
        let (up, down) = (
            self.test.upper() - self.llr(),
            self.llr() - self.test.lower(),
        );
        let drifting =
            variance <= 0.0 || (2.0 * mean / variance * (up + down)).abs() >= NEGLIGIBLE_DRIFT;
        Some(Remaining {
            pairs: expected_exit(up, down, mean, variance),
            drifting,
        })
    }
}

/// The expected remaining length of a test ([`SequentialSprt::expected_remaining`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Remaining {
    /// Expected pairs still to play (may be infinite).
    pub pairs: f64,
    /// Whether the drift is large enough to matter across the remaining interval (see
    /// [`NEGLIGIBLE_DRIFT`]); when not, the LLR mostly wanders and the figure says little.
    pub drifting: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sprt::EloModel;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn test() -> Sprt {
        Sprt {
            elo0: 0.0,
            elo1: 20.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        }
    }

    /// `pairs` pairs of games (pair id, game in pair, A's score) in pair order, A's expected
    /// score `e` per game with 30% draws.
    fn games(pairs: u64, e: f64, rng: &mut ChaCha8Rng) -> Vec<(u64, u8, f64)> {
        let mut out = Vec::new();
        for pair in 0..pairs {
            for game in 0..2 {
                let u: f64 = rng.random_range(0.0..1.0);
                let score = if u < e - 0.15 {
                    1.0
                } else if u < e + 0.15 {
                    0.5
                } else {
                    0.0
                };
                out.push((pair, game, score));
            }
        }
        out
    }

    fn shuffle<T>(items: &mut [T], rng: &mut ChaCha8Rng) {
        for i in (1..items.len()).rev() {
            items.swap(i, rng.random_range(0..=i));
        }
    }

    fn run(games: &[(u64, u8, f64)]) -> SequentialSprt {
        let mut s = SequentialSprt::new(test());
        for &(pair, game, score) in games {
            s.add_game(pair, game, score);
        }
        s
    }

    #[test]
    fn the_order_of_the_games_does_not_change_the_outcome() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for (trial, e) in [0.5, 0.53, 0.56, 0.47].into_iter().enumerate() {
            let in_order = games(3000, e, &mut rng);
            let reference = run(&in_order);
            let decided = reference.decided().expect("3000 pairs decide this test");
            // The prefix computed directly.
            let mut counts = Pentanomial::default();
            for pair in in_order.chunks(2).take(decided.pairs as usize) {
                counts.add_pair(pair[0].2, pair[1].2);
            }
            assert_eq!(reference.counts(), counts);
            assert_eq!(reference.llr(), test().llr_pentanomial(&counts));
            assert_eq!(reference.history().len() as u64, decided.pairs);
            assert_eq!(decided.llr, reference.llr());
            eprintln!(
                "trial {trial}: {:?} after {} pairs, LLR {:.3}",
                decided.decision, decided.pairs, decided.llr
            );
            // Fully shuffled, and shuffled within windows of 64 games (threads that finish
            // nearly in order), with seeds of their own.
            for seed in 0..4 {
                let mut order_rng = ChaCha8Rng::seed_from_u64(100 * trial as u64 + seed);
                let mut shuffled = in_order.clone();
                if seed % 2 == 0 {
                    shuffle(&mut shuffled, &mut order_rng);
                } else {
                    for window in shuffled.chunks_mut(64) {
                        shuffle(window, &mut order_rng);
                    }
                }
                let s = run(&shuffled);
                assert_eq!(s.decided(), reference.decided());
                assert_eq!(s.counts(), reference.counts());
                assert_eq!(s.history(), reference.history());
                assert_eq!(s.waiting_games(), 0);
            }
        }
    }

    #[test]
    fn games_after_the_decision_change_nothing() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let all = games(4000, 0.56, &mut rng);
        let mut s = SequentialSprt::new(test());
        let mut decided_at = None;
        for (k, &(pair, game, score)) in all.iter().enumerate() {
            if s.add_game(pair, game, score).is_some() {
                decided_at = Some(k);
                break;
            }
        }
        let k = decided_at.expect("a 4000-pair run decides");
        let (decided, counts, llr, history) =
            (s.decided(), s.counts(), s.llr(), s.history().to_vec());
        assert_eq!(decided.unwrap().decision, Decision::H1);
        // The rest of the run, then games that contradict it.
        for &(pair, game, score) in &all[k + 1..] {
            assert_eq!(s.add_game(pair, game, score), decided);
        }
        for pair in 4000..5000 {
            s.add_game(pair, 0, 0.0);
            s.add_game(pair, 1, 0.0);
        }
        assert_eq!(s.decided(), decided);
        assert_eq!(s.counts(), counts);
        assert_eq!(s.llr(), llr);
        assert_eq!(s.history(), history);
        assert_eq!(s.waiting_games(), 0);
    }

    #[test]
    fn early_games_wait_for_earlier_pairs() {
        let mut s = SequentialSprt::new(test());
        assert_eq!(s.add_game(1, 0, 1.0), None);
        assert_eq!(s.add_game(1, 1, 1.0), None);
        assert_eq!(s.add_game(0, 1, 0.5), None);
        assert_eq!(
            (s.counts().pairs(), s.waiting_games(), s.llr()),
            (0, 3, 0.0)
        );
        s.add_game(0, 0, 0.5);
        assert_eq!(s.counts(), Pentanomial([0, 0, 1, 0, 1]));
        assert_eq!(s.history().len(), 2);
        assert_eq!(s.waiting_games(), 0);
    }

    #[test]
    #[should_panic(expected = "recorded twice")]
    fn a_game_recorded_twice_panics() {
        let mut s = SequentialSprt::new(test());
        s.add_game(3, 1, 1.0);
        s.add_game(3, 1, 0.0);
    }
}

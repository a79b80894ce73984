//! Hill climbing: propose a neighbour of the incumbent, play it against the incumbent (or both
//! against a pool) under a pentanomial SPRT (H0 "Elo = 0", H1 "Elo = elo1") up to a cap of
//! pairs, and move on H1 — or, with a fixed number of pairs, when the lower end of the 95%
//! interval of the candidate's score is above 50%.
//!
//! Step sizes adapt per parameter: ×0.5 after `patience` consecutive rejections, ×1.25 after an
//! acceptance, kept within `[min_step · step, range]`.

use super::objective::PairOracle;
use super::objective::Trial;
use super::params::{Param, clamp_all, values};
use crate::stats::sprt::{Decision, Sprt};
use crate::tune::derive_seed;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

const STREAM_PROPOSAL: u64 = 11;
const STREAM_GAMES: u64 = 12;

/// How a neighbour is proposed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Neighbour {
    /// One parameter, chosen at random, ± its step.
    #[default]
    Single,
    /// Every parameter ± its step, the signs at random; steps adapt together.
    All,
}

/// How a neighbour is accepted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Acceptance {
    /// A pentanomial SPRT (paired differences against a pool), looked at after every batch;
    /// accepted on H1, rejected on H0 or when `max_pairs` pass undecided. `elo0` should be 0.
    Sprt(Sprt),
    /// `max_pairs` pairs; accepted when the lower end of the 95% interval of the score is
    /// above 50%.
    Fixed,
}

/// A climb's fixed settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HillConfig {
    /// The test of each neighbour.
    pub acceptance: Acceptance,
    /// Pairs played between two looks at the test.
    pub batch: u64,
    /// The most pairs one neighbour gets (with [`Acceptance::Fixed`], the pairs it gets).
    pub max_pairs: u64,
    /// Consecutive rejections of a parameter that halve its step.
    pub patience: u32,
    /// The smallest step, as a fraction of the parameter's initial `step`.
    pub min_step: f64,
    /// How neighbours are proposed.
    pub neighbour: Neighbour,
    /// The climb's seed; every proposal and every batch of games has its own derived seed.
    pub seed: u64,
}

/// Where a climb stands: everything needed to resume it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HillState {
    /// Settings.
    pub config: HillConfig,
    /// The parameters (bounds and initial steps; `value` is the start).
    pub params: Vec<Param>,
    /// The incumbent.
    pub theta: Vec<f64>,
    /// The current step of each parameter.
    pub steps: Vec<f64>,
    /// Consecutive rejections of each parameter since its step last changed or it was accepted.
    pub rejections: Vec<u32>,
    /// Proposals made so far.
    pub k: u64,
    /// Proposals accepted so far.
    pub accepted: u64,
    /// Pairs played so far.
    pub pairs: u64,
}

/// What one proposal did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HillStep {
    /// The proposal, from 1.
    pub k: u64,
    /// The parameters it moved.
    pub moved: Vec<usize>,
    /// The neighbour.
    pub candidate: Vec<f64>,
    /// Its pairs against the incumbent (or the pool), from its side.
    pub result: Trial,
    /// The final log-likelihood ratio (SPRT acceptance only).
    pub llr: Option<f64>,
    /// Whether it became the incumbent.
    pub accepted: bool,
    /// The incumbent afterwards.
    pub theta: Vec<f64>,
}

impl HillState {
    /// A climb from the parameters' values with their initial steps.
    pub fn new(params: Vec<Param>, config: HillConfig) -> Self {
        assert!(config.batch > 0 && config.max_pairs > 0 && config.patience > 0);
        let n = params.len();
        HillState {
            theta: values(&params),
            steps: params.iter().map(|p| p.step).collect(),
            rejections: vec![0; n],
            params,
            config,
            k: 0,
            accepted: 0,
            pairs: 0,
        }
    }

    /// The neighbour for proposal `k`: the parameters moved and the clamped candidate.
    fn propose(&self) -> (Vec<usize>, Vec<f64>) {
        let mut rng =
            ChaCha8Rng::seed_from_u64(derive_seed(self.config.seed, STREAM_PROPOSAL, self.k));
        let n = self.params.len();
        let (moved, mut signs): (Vec<usize>, Vec<f64>) = match self.config.neighbour {
            Neighbour::Single => {
                let i = rng.random_range(0..n);
                let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                (vec![i], vec![s])
            }
            Neighbour::All => (0..n)
                .map(|i| (i, if rng.random_bool(0.5) { 1.0 } else { -1.0 }))
                .unzip(),
        };
        let make = |signs: &[f64]| {
            let mut c = self.theta.clone();
            for (&i, s) in moved.iter().zip(signs) {
                c[i] += s * self.steps[i];
            }
            clamp_all(&self.params, &mut c);
            c
        };
        let mut candidate = make(&signs);
        // At a bound the move may vanish; the other direction is then the only neighbour.
        if candidate == self.theta {
            signs.iter_mut().for_each(|s| *s = -*s);
            candidate = make(&signs);
        }
        (moved, candidate)
    }

    /// Proposes one neighbour, tests it, and adapts the steps.
    pub fn step(&mut self, oracle: &mut impl PairOracle) -> Result<HillStep, String> {
        self.step_within(oracle, u64::MAX)
    }

    /// [`HillState::step`] with at most `pair_cap` pairs for this neighbour (a run's budget
    /// running out): a neighbour whose test the cap cuts short is rejected.
    pub fn step_within(
        &mut self,
        oracle: &mut impl PairOracle,
        pair_cap: u64,
    ) -> Result<HillStep, String> {
        let (moved, candidate) = self.propose();
        let games_seed = derive_seed(self.config.seed, STREAM_GAMES, self.k);
        let mut result = Trial::default();
        let mut llr = None;
        let mut decision = Decision::Continue;
        let mut batch = 0;
        let max_pairs = self.config.max_pairs.min(pair_cap);
        if candidate != self.theta {
            while decision == Decision::Continue && result.pairs() < max_pairs {
                let pairs = self.config.batch.min(max_pairs - result.pairs());
                // A fresh seed per batch: no candidate ever replays another's games.
                let seed = derive_seed(games_seed, 0, batch);
                result.merge(&oracle.play_pairs(&candidate, &self.theta, pairs, seed)?);
                batch += 1;
                if let Acceptance::Sprt(sprt) = &self.config.acceptance {
                    let value = if result.pooled {
                        sprt.llr_pair_differences(&result.diffs)
                    } else {
                        sprt.llr_pentanomial(&result.pentanomial)
                    };
                    llr = Some(value);
                    decision = sprt.decide(value);
                }
            }
            if self.config.acceptance == Acceptance::Fixed
                && result.pairs() == self.config.max_pairs
                && result.lower_bound_above_half()
            {
                decision = Decision::H1;
            }
        }
        let accepted = decision == Decision::H1;
        for &i in &moved {
            let p = &self.params[i];
            let (lo, hi) = (self.config.min_step * p.step, p.range());
            if accepted {
                self.steps[i] = (self.steps[i] * 1.25).clamp(lo, hi);
                self.rejections[i] = 0;
            } else {
                self.rejections[i] += 1;
                if self.rejections[i] >= self.config.patience {
                    self.steps[i] = (self.steps[i] * 0.5).clamp(lo, hi);
                    self.rejections[i] = 0;
                }
            }
        }
        if accepted {
            self.theta = candidate.clone();
            self.accepted += 1;
        }
        self.pairs += result.pairs();
        self.k += 1;
        Ok(HillStep {
            k: self.k,
            moved,
            candidate,
            result,
            llr,
            accepted,
            theta: self.theta.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sprt::EloModel;
    use crate::tune::optimise::objective::Synthetic;
    use crate::tune::optimise::spsa::tests::problem;

    fn config(seed: u64, neighbour: Neighbour) -> HillConfig {
        HillConfig {
            acceptance: Acceptance::Sprt(Sprt {
                elo0: 0.0,
                elo1: 10.0,
                alpha: 0.05,
                beta: 0.05,
                model: EloModel::Logistic,
            }),
            batch: 20,
            max_pairs: 4000,
            patience: 8,
            min_step: 1.0 / 16.0,
            neighbour,
            seed,
        }
    }

    pub(super) fn climb(neighbour: Neighbour, seed: u64, steps: u64) -> (HillState, Synthetic) {
        let (params, mut oracle) = problem();
        let mut s = HillState::new(params, config(seed, neighbour));
        for _ in 0..steps {
            s.step(&mut oracle).unwrap();
        }
        (s, oracle)
    }

    #[test]
    fn approaches_the_optimum() {
        for neighbour in [Neighbour::Single, Neighbour::All] {
            let (s, oracle) = climb(neighbour, 42, 200);
            let end = oracle.strength(&s.theta);
            eprintln!(
                "hill {neighbour:?}: {:?} Elo {end:.2}, {}/{} accepted, {} games, steps {:?}",
                s.theta, s.accepted, s.k, oracle.games, s.steps
            );
            // Over seeds 100..120 (the ignored `sweep`), Single ended at most 8.8 from θ* and
            // 6.0 Elo below it, All (whose steps shrink together) 20.6 and 18.0: assert with room.
            let (tolerance, elo) = match neighbour {
                Neighbour::Single => (15.0, -10.0),
                Neighbour::All => (25.0, -25.0),
            };
            for (t, o) in s.theta.iter().zip(&oracle.optimum) {
                assert!((t - o).abs() <= tolerance, "{neighbour:?} {:?}", s.theta);
            }
            assert!(end > elo, "{neighbour:?} {end}");
        }
    }

    #[test]
    fn deterministic() {
        let (a, _) = climb(Neighbour::Single, 3, 60);
        let (b, _) = climb(Neighbour::Single, 3, 60);
        assert_eq!(a, b);
        let (c, _) = climb(Neighbour::Single, 4, 60);
        assert_ne!(a.theta, c.theta);
    }

    #[test]
    fn resumes_exactly() {
        let (whole, _) = climb(Neighbour::All, 5, 80);
        let (params, mut oracle) = problem();
        let mut part = HillState::new(params, config(5, Neighbour::All));
        for _ in 0..33 {
            part.step(&mut oracle).unwrap();
        }
        let saved = serde_json::to_string(&part).unwrap();
        let mut resumed: HillState = serde_json::from_str(&saved).unwrap();
        assert_eq!(resumed, part);
        for _ in 33..80 {
            resumed.step(&mut oracle).unwrap();
        }
        assert_eq!(resumed, whole);
    }
}
#[cfg(test)]
mod sweep {
    use super::*;
    use crate::tune::optimise::spsa::{SpsaConfig, SpsaState};

    /// How far each method ends from θ* (largest deviation, and Elo) over 20 seeds, for judging
    /// the tolerances of the tests: `cargo test --lib tune::hill::sweep -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn sweep() {
        for seed in 100..120 {
            let (s, o) = tests::climb(Neighbour::Single, seed, 200);
            let (t, p) = tests::climb(Neighbour::All, seed, 200);
            let (params, mut q) = crate::tune::optimise::spsa::tests::problem();
            let params: Vec<Param> = params
                .into_iter()
                .map(|p| Param {
                    r_end: Some(0.02),
                    ..p
                })
                .collect();
            let mut sp = SpsaState::new(
                params,
                SpsaConfig {
                    iterations: 20_000,
                    pairs: 2,
                    seed,
                },
            );
            sp.run(&mut q).unwrap();
            let dev = |th: &[f64]| {
                th.iter()
                    .zip(&o.optimum)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max)
            };
            eprintln!(
                "{seed} single {:.1} {:.2} | all {:.1} {:.2} | spsa {:.1} {:.2}",
                dev(&s.theta),
                o.strength(&s.theta),
                dev(&t.theta),
                p.strength(&t.theta),
                dev(&sp.theta),
                q.strength(&sp.theta)
            );
        }
    }
}

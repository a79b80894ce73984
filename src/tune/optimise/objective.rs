//! What an optimiser needs from the outside world, and a synthetic stand-in with a known optimum.

use crate::stats::score;
use crate::stats::summary::Pentanomial;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The outcome of opening pairs between two weight vectors, from the candidate's side.
///
/// Played directly, each pair is one opening with each side moving first once. Against a pool
/// of fixed engines, both vectors play the same pool engine from the same opening (two games
/// each), and the pair's outcome is the difference of their points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trial {
    /// Counts of the pair difference `d` = candidate's points − the opponent's points on one
    /// opening, `d` ∈ {-2, -1.5, …, 2}, at index `2 (d + 2)`. Played directly only even indices
    /// occur (`d` = W − L of the pair).
    pub diffs: [u64; 9],
    /// The candidate's own pairs (against the opponent, or against the pool).
    pub pentanomial: Pentanomial,
    /// The candidate's own games: wins, draws, losses.
    pub wdl: [u64; 3],
    /// Games played in all (a pool plays four per opening).
    pub games: u64,
    /// Whether the pairs were played against a pool (then `diffs` compares two pools' results).
    pub pooled: bool,
}

impl Trial {
    /// Opening pairs counted.
    pub fn pairs(&self) -> u64 {
        self.diffs.iter().sum()
    }

    /// Adds a direct pair: the candidate's scores in its two games (each 0, ½ or 1).
    pub fn add_direct(&mut self, first: f64, second: f64) {
        self.pentanomial.add_pair(first, second);
        self.add_games(&[first, second]);
        let index = ((first + second) * 4.0).round() as usize;
        self.diffs[index.min(8)] += 1;
        self.games += 2;
    }

    /// Adds a pooled opening: the candidate's two scores and the opponent's two scores against
    /// the same pool engine.
    pub fn add_pooled(&mut self, candidate: [f64; 2], opponent: [f64; 2]) {
        self.pooled = true;
        self.pentanomial.add_pair(candidate[0], candidate[1]);
        self.add_games(&candidate);
        let d = candidate[0] + candidate[1] - opponent[0] - opponent[1];
        let index = ((d + 2.0) * 2.0).round().clamp(0.0, 8.0) as usize;
        self.diffs[index] += 1;
        self.games += 4;
    }

    fn add_games(&mut self, scores: &[f64]) {
        for &s in scores {
            let i = if s > 0.75 {
                0
            } else if s > 0.25 {
                1
            } else {
                2
            };
            self.wdl[i] += 1;
        }
    }

    /// Adds another trial's counts.
    pub fn merge(&mut self, other: &Trial) {
        for (a, b) in self.diffs.iter_mut().zip(other.diffs) {
            *a += b;
        }
        for (a, b) in self.pentanomial.0.iter_mut().zip(other.pentanomial.0) {
            *a += b;
        }
        for (a, b) in self.wdl.iter_mut().zip(other.wdl) {
            *a += b;
        }
        self.games += other.games;
        self.pooled |= other.pooled;
    }

    /// The candidate's advantage over the opponent in Elo, and the half-width of its 95%
    /// interval, from the pairs as independent trials. Directly, the pair score's mean is the
    /// score; against a pool, the mean difference of scores `(d̄ / 4)` is taken as `L(E) - ½`
    /// (see [`crate::stats::sprt::Sprt::llr_pair_differences`]). Scores are kept a quarter
    /// pair inside 0 and 1, so both numbers are always finite.
    pub fn estimate(&self) -> (f64, f64) {
        let n = self.pairs();
        if n == 0 {
            return (0.0, 0.0);
        }
        let nf = n as f64;
        let mean: f64 = (self.diffs.iter().enumerate())
            .map(|(i, &c)| c as f64 * i as f64 / 8.0)
            .sum::<f64>()
            / nf;
        let variance: f64 = (self.diffs.iter().enumerate())
            .map(|(i, &c)| c as f64 * (i as f64 / 8.0 - mean).powi(2))
            .sum::<f64>()
            / nf;
        let se = (variance / nf).sqrt();
        let (s, half) = if self.pooled {
            (2.0 * mean - 0.5, 2.0 * crate::stats::Z95 * se)
        } else {
            (mean, crate::stats::Z95 * se)
        };
        let edge = 0.25 / nf;
        let inside = |x: f64| x.clamp(edge, 1.0 - edge);
        let elo = crate::stats::elo(inside(s));
        let error =
            (crate::stats::elo(inside(s + half)) - crate::stats::elo(inside(s - half))) / 2.0;
        (elo, error)
    }

    /// Whether the lower end of the 95% interval of the mean pair outcome (`i/8`) is above ½:
    /// the fixed-length acceptance test of hill climbing.
    pub fn lower_bound_above_half(&self) -> bool {
        let n = self.pairs();
        if n < 2 {
            return false;
        }
        let nf = n as f64;
        let mean: f64 = (self.diffs.iter().enumerate())
            .map(|(i, &c)| c as f64 * i as f64 / 8.0)
            .sum::<f64>()
            / nf;
        let variance: f64 = (self.diffs.iter().enumerate())
            .map(|(i, &c)| c as f64 * (i as f64 / 8.0 - mean).powi(2))
            .sum::<f64>()
            / (nf - 1.0);
        mean - crate::stats::Z95 * (variance / nf).sqrt() > 0.5
    }

    /// Σ d over the pairs: the candidate's points minus the opponent's (W − L when direct).
    pub fn points_difference(&self) -> f64 {
        (self.diffs.iter().enumerate())
            .map(|(i, &n)| (i as f64 / 2.0 - 2.0) * n as f64)
            .sum()
    }
}

/// Plays colour-swapped opening pairs between two weight vectors.
pub trait PairOracle {
    /// Plays `pairs` openings of `candidate` against `opponent` (directly, each side moving
    /// first once, or each against a pool: see [`Trial`]) and returns the outcome from
    /// `candidate`'s side. All randomness (engine noise) must come from `seed`, and no opening
    /// is ever given twice, so that a call is reproducible and no candidate replays another's
    /// games.
    /// An error means the games could not be played (no fresh openings left, say).
    fn play_pairs(
        &mut self,
        candidate: &[f64],
        opponent: &[f64],
        pairs: u64,
        seed: u64,
    ) -> Result<Trial, String>;
}

/// A synthetic objective: strength is a known quadratic Elo surface,
/// `strength(θ) = -Σ curvature_i (θ_i - optimum_i)²`, and each game's result is drawn with
/// expected score `L(strength(a) - strength(b) ± bias)`, where `bias` is the white advantage of
/// the pair's opening (uniform in `±colour_bias`, the same for both games of a pair).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Synthetic {
    /// θ*, where strength is 0 (its maximum).
    pub optimum: Vec<f64>,
    /// Elo lost per squared unit of distance from the optimum, per parameter.
    pub curvature: Vec<f64>,
    /// The draw rate between equals (capped where the expected score leaves no room for it).
    pub draw_rate: f64,
    /// The largest white advantage of an opening, in Elo.
    pub colour_bias: f64,
    /// Games played so far (for tests and cost accounting).
    pub games: u64,
}

impl Synthetic {
    /// A surface with the given optimum and curvatures, a 40% draw rate between equals, and
    /// openings worth up to ±60 Elo to white.
    pub fn new(optimum: Vec<f64>, curvature: Vec<f64>) -> Self {
        assert_eq!(optimum.len(), curvature.len());
        Synthetic {
            optimum,
            curvature,
            draw_rate: 0.4,
            colour_bias: 60.0,
            games: 0,
        }
    }

    /// The Elo of `theta` on the surface (0 at the optimum, negative elsewhere).
    pub fn strength(&self, theta: &[f64]) -> f64 {
        assert_eq!(theta.len(), self.optimum.len());
        -theta
            .iter()
            .zip(&self.optimum)
            .zip(&self.curvature)
            .map(|((x, o), w)| w * (x - o) * (x - o))
            .sum::<f64>()
    }

    /// One game's score (1, ½ or 0) for the side `elo` stronger, with expected score `L(elo)`.
    fn game(&self, elo: f64, rng: &mut ChaCha8Rng) -> f64 {
        crate::stats::simulated_result(rng.random_range(0.0..1.0), score(elo), self.draw_rate)
    }
}

impl PairOracle for Synthetic {
    fn play_pairs(
        &mut self,
        candidate: &[f64],
        opponent: &[f64],
        pairs: u64,
        seed: u64,
    ) -> Result<Trial, String> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let diff = self.strength(candidate) - self.strength(opponent);
        let mut counts = Trial::default();
        for _ in 0..pairs {
            let bias = if self.colour_bias > 0.0 {
                rng.random_range(-self.colour_bias..=self.colour_bias)
            } else {
                0.0
            };
            let white = self.game(diff + bias, &mut rng);
            let black = self.game(diff - bias, &mut rng);
            counts.add_direct(white, black);
        }
        self.games += 2 * pairs;
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strength_peaks_at_the_optimum() {
        let s = Synthetic::new(vec![1.0, 2.0], vec![1.0, 0.5]);
        assert_eq!(s.strength(&[1.0, 2.0]), 0.0);
        assert_eq!(s.strength(&[2.0, 0.0]), -3.0);
    }

    #[test]
    fn deterministic_and_calibrated() {
        let mut s = Synthetic::new(vec![0.0], vec![1.0]);
        let a = s.play_pairs(&[0.0], &[10.0], 1000, 5).unwrap();
        assert_eq!(a.pairs(), 1000);
        assert_eq!(a.games, 2000);
        assert_eq!(a.wdl.iter().sum::<u64>(), 2000);
        let wins_minus_losses = a.wdl[0] as f64 - a.wdl[2] as f64;
        assert_eq!(a.points_difference(), wins_minus_losses);
        assert_eq!(a, s.play_pairs(&[0.0], &[10.0], 1000, 5).unwrap());
        assert_ne!(a, s.play_pairs(&[0.0], &[10.0], 1000, 6).unwrap());
        // Optimum against 100 Elo weaker: expected score L(100) ≈ 0.640.
        let big = s
            .play_pairs(&[0.0], &[10.0], 50_000, 1)
            .unwrap()
            .pentanomial;
        let points: f64 = big
            .0
            .iter()
            .enumerate()
            .map(|(i, &c)| i as f64 * c as f64)
            .sum();
        let mean = points / (4.0 * big.pairs() as f64);
        assert!((mean - score(100.0)).abs() < 0.005, "{mean}");
        // Equals: draws near the configured rate, pairs symmetric.
        let eq = s.play_pairs(&[0.0], &[0.0], 50_000, 2).unwrap().pentanomial;
        let ratio = (eq.0[0] as f64 + 1.0) / (eq.0[4] as f64 + 1.0);
        assert!((ratio - 1.0).abs() < 0.1, "{eq:?}");
    }
}

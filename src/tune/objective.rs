//! What an optimiser needs from the outside world, and a synthetic stand-in with a known optimum.

use crate::stats::score;
use crate::stats::summary::Pentanomial;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Plays colour-swapped opening pairs between two weight vectors.
pub trait PairOracle {
    /// Plays `pairs` pairs of `candidate` against `opponent` (each pair one opening, each side
    /// white once) and returns the pentanomial counts from `candidate`'s side. All randomness
    /// (openings, engine noise) must come from `seed`, so that a call is reproducible.
    fn play_pairs(
        &mut self,
        candidate: &[f64],
        opponent: &[f64],
        pairs: u64,
        seed: u64,
    ) -> Pentanomial;
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
        let s = score(elo);
        // Draws take an equal share from each side's chances, so the expected score stays L(elo).
        let draw = self.draw_rate.min(2.0 * s.min(1.0 - s));
        let u: f64 = rng.random_range(0.0..1.0);
        if u < s - draw / 2.0 {
            1.0
        } else if u < s + draw / 2.0 {
            0.5
        } else {
            0.0
        }
    }
}

impl PairOracle for Synthetic {
    fn play_pairs(
        &mut self,
        candidate: &[f64],
        opponent: &[f64],
        pairs: u64,
        seed: u64,
    ) -> Pentanomial {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let diff = self.strength(candidate) - self.strength(opponent);
        let mut counts = Pentanomial::default();
        for _ in 0..pairs {
            let bias = if self.colour_bias > 0.0 {
                rng.random_range(-self.colour_bias..=self.colour_bias)
            } else {
                0.0
            };
            let white = self.game(diff + bias, &mut rng);
            let black = self.game(diff - bias, &mut rng);
            counts.add_pair(white, black);
        }
        self.games += 2 * pairs;
        counts
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
        let a = s.play_pairs(&[0.0], &[10.0], 1000, 5);
        assert_eq!(a, s.play_pairs(&[0.0], &[10.0], 1000, 5));
        assert_ne!(a, s.play_pairs(&[0.0], &[10.0], 1000, 6));
        // Optimum against 100 Elo weaker: expected score L(100) ≈ 0.640.
        let big = s.play_pairs(&[0.0], &[10.0], 50_000, 1);
        let points: f64 = big
            .0
            .iter()
            .enumerate()
            .map(|(i, &c)| i as f64 * c as f64)
            .sum();
        let mean = points / (4.0 * big.pairs() as f64);
        assert!((mean - score(100.0)).abs() < 0.005, "{mean}");
        // Equals: draws near the configured rate, pairs symmetric.
        let eq = s.play_pairs(&[0.0], &[0.0], 50_000, 2);
        let ratio = (eq.0[0] as f64 + 1.0) / (eq.0[4] as f64 + 1.0);
        assert!((ratio - 1.0).abs() < 0.1, "{eq:?}");
    }
}

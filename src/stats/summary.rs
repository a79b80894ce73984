//! Head-to-head summaries of a match between A and B: from the W/D/L counts of single games
//! (trinomial) and from opening pairs (pentanomial), with the conventions engine testers know
//! (fastchess's printed ± is half the width of the Elo interval).

use super::{Z95, elo, normal_cdf};
use std::f64::consts::LN_10;

/// An estimate on the Elo scale with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct EloEstimate {
    /// The score of A, 0..=1.
    pub score: f64,
    /// The Elo difference of the score; infinite at 0% or 100%.
    pub elo: f64,
    /// Half the width of the 95% Elo interval (`(E(s+) - E(s-)) / 2`).
    pub error: f64,
    /// Normalised Elo: the score's distance from ½ in units of its standard deviation.
    pub nelo: f64,
    /// Likelihood of superiority: the probability that A is the stronger, Φ((s - ½) / se).
    pub los: f64,
}

/// Turns a mean score, its per-unit variance and the number of units into an estimate;
/// `nelo_scale` is the variance's factor in the normalised Elo (1 for games, 2 for pairs).
fn estimate(s: f64, variance: f64, units: f64, nelo_scale: f64) -> EloEstimate {
    let se = (variance / units).sqrt();
    // An interval end at or beyond 0% or 100% would be an infinite Elo: stop it half a unit
    // (game or pair) inside, the closest score the match could have shown. An end inside
    // (0, 1) stays where fastchess's formula puts it.
    let edge = 0.5 / units.max(1.0);
    let inside = |x: f64| {
        if x <= 0.0 {
            edge.min(s)
        } else if x >= 1.0 {
            (1.0 - edge).max(s)
        } else {
            x
        }
    };
    let (lo, hi) = (inside(s - Z95 * se), inside(s + Z95 * se));
    let los = if se > 0.0 {
        normal_cdf((s - 0.5) / se)
    } else if s > 0.5 {
        1.0
    } else if s < 0.5 {
        0.0
    } else {
        0.5
    };
    EloEstimate {
        score: s,
        elo: elo(s),
        error: (elo(hi) - elo(lo)) / 2.0,
        nelo: if variance > 0.0 {
            (s - 0.5) / (nelo_scale * variance).sqrt() * 800.0 / LN_10
        } else {
            0.0
        },
        los,
    }
}

/// Wins, draws and losses of A against B.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Trinomial {
    /// Games A won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games A lost.
    pub losses: u64,
}

impl Trinomial {
    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// A's points: a win 1, a draw ½.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// The draw ratio, 0..=1.
    pub fn draw_ratio(&self) -> f64 {
        self.draws as f64 / self.games().max(1) as f64
    }

    /// Score, Elo ± 95%, normalised Elo and LOS from the games as independent trials:
    /// `σ² = w(1-s)² + d(½-s)² + l·s²`.
    pub fn estimate(&self) -> EloEstimate {
        let n = self.games().max(1) as f64;
        let (w, d, l) = (
            self.wins as f64 / n,
            self.draws as f64 / n,
            self.losses as f64 / n,
        );
        let s = w + d / 2.0;
        let variance = w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2);
        estimate(s, variance, n, 1.0)
    }
}

/// Counts of opening-pair results for A, in the order `[LL, LD, WL+DD, WD, WW]` (pair scores
/// 0, ¼, ½, ¾, 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

/// The score of each pentanomial outcome.
pub const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

impl Pentanomial {
    /// Counts one pair from A's two game scores (each 0, ½ or 1).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let index = ((first + second) * 2.0).round() as usize;
        self.0[index.min(4)] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Score, Elo ± 95%, normalised Elo and LOS from the pairs as independent trials:
    /// `σp² = Σ p_i (a_i - s)²`, `nElo = (s - ½) / sqrt(2 σp²) · 800 / ln 10`.
    pub fn estimate(&self) -> EloEstimate {
        let n = self.pairs().max(1) as f64;
        let p: Vec<f64> = self.0.iter().map(|&c| c as f64 / n).collect();
        let s: f64 = p.iter().zip(PAIR_SCORES).map(|(p, a)| p * a).sum();
        let variance: f64 = p
            .iter()
            .zip(PAIR_SCORES)
            .map(|(p, a)| p * (a - s).powi(2))
            .sum();
        estimate(s, variance, n, 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trinomial_matches_a_hand_computation() {
        // 60 wins, 20 draws, 20 losses: s = 0.7.
        let t = Trinomial {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let e = t.estimate();
        assert!((e.score - 0.7).abs() < 1e-12);
        let var: f64 = 0.6 * 0.09 + 0.2 * 0.04 + 0.2 * 0.49;
        let se = (var / 100.0).sqrt();
        let half = (elo(0.7 + Z95 * se) - elo(0.7 - Z95 * se)) / 2.0;
        assert!((e.error - half).abs() < 1e-9);
        assert!((e.elo - 147.19).abs() < 0.01);
        assert!((e.los - normal_cdf(0.2 / se)).abs() < 1e-12);
        assert!((e.nelo - 0.2 / var.sqrt() * 800.0 / LN_10).abs() < 1e-9);
    }

    #[test]
    fn an_interval_end_inside_zero_and_one_is_fastchesss() {
        // 16 LL and 4 LD pairs: s = 5%, σ² = 0.8 · 0.05² + 0.2 · 0.2² = 0.01; the lower end
        // s - 1.96 √(0.01/20) ≈ 0.62% is inside (0, 1) though below half a pair (2.5%).
        let e = Pentanomial([16, 4, 0, 0, 0]).estimate();
        let se = (0.01f64 / 20.0).sqrt();
        let to_elo = |s: f64| -400.0 * (1.0 / s - 1.0).log10();
        let fastchess = (to_elo(0.05 + Z95 * se) - to_elo(0.05 - Z95 * se)) / 2.0;
        assert!(
            (e.error - fastchess).abs() < 1e-9,
            "{} vs {fastchess}",
            e.error
        );
        // An end beyond 0 still stops half a pair inside, where fastchess's would be NaN.
        let e = Pentanomial([19, 1, 0, 0, 0]).estimate();
        assert!(e.error.is_finite());
    }

    #[test]
    fn pentanomial_counts_pairs_and_shrinks_the_variance() {
        let mut p = Pentanomial::default();
        p.add_pair(1.0, 0.0); // WL
        p.add_pair(0.5, 0.5); // DD
        p.add_pair(1.0, 0.5); // WD
        p.add_pair(1.0, 1.0); // WW
        p.add_pair(0.0, 0.5); // LD
        assert_eq!(p.0, [0, 1, 2, 1, 1]);
        let e = p.estimate();
        assert!((e.score - (0.25 + 1.0 + 0.75 + 1.0) / 5.0).abs() < 1e-12);
        // An even match scores 0 Elo with LOS ½.
        let even = Pentanomial([3, 5, 10, 5, 3]).estimate();
        assert!(even.elo.abs() < 1e-9 && (even.los - 0.5).abs() < 1e-12);
    }
}

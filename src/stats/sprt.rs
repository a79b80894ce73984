//! The generalised sequential probability ratio test, as fishtest and fastchess run it, on the
//! outcome counts of a match (W/D/L or opening pairs).

use super::score;
use super::summary::{PAIR_SCORES, Pentanomial, Trinomial};

/// The hypotheses and error rates of a test: H0 "Elo = elo0", H1 "Elo = elo1" (logistic Elo),
/// α the chance of accepting H1 when H0 holds, β of accepting H0 when H1 holds.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The log-likelihood ratio reached the lower bound: H0 accepted.
    H0,
    /// The log-likelihood ratio reached the upper bound: H1 accepted.
    H1,
    /// Neither bound yet.
    Continue,
}

impl Sprt {
    /// The lower bound `ln(β / (1 - α))`: accept H0 at or below it.
    pub fn lower(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The upper bound `ln((1 - β) / α)`: accept H1 at or above it.
    pub fn upper(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The decision for a log-likelihood ratio.
    pub fn decide(&self, llr: f64) -> Decision {
        if llr >= self.upper() {
            Decision::H1
        } else if llr <= self.lower() {
            Decision::H0
        } else {
            Decision::Continue
        }
    }

    /// The log-likelihood ratio of opening-pair counts.
    pub fn llr_pentanomial(&self, counts: &Pentanomial) -> f64 {
        let c: Vec<f64> = counts.0.iter().map(|&n| n as f64).collect();
        self.llr(&c, &PAIR_SCORES)
    }

    /// The log-likelihood ratio of W/D/L counts.
    pub fn llr_trinomial(&self, counts: &Trinomial) -> f64 {
        let c = [
            counts.losses as f64,
            counts.draws as f64,
            counts.wins as f64,
        ];
        self.llr(&c, &[0.0, 0.5, 1.0])
    }

    /// `N Σ p̂_k ln(p_k(s1) / p_k(s0))`, with `p_k(s)` the distribution closest to the observed
    /// one (`p̂`, zero counts replaced by 1e-3) whose mean score is `s`.
    fn llr(&self, counts: &[f64], scores: &[f64]) -> f64 {
        let n: f64 = counts.iter().sum();
        if n == 0.0 {
            return 0.0;
        }
        let adjusted: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0.0 { 1e-3 } else { c })
            .collect();
        let total: f64 = adjusted.iter().sum();
        let p: Vec<f64> = adjusted.iter().map(|c| c / total).collect();
        let (s0, s1) = (score(self.elo0), score(self.elo1));
        let (Some(q0), Some(q1)) = (constrained(&p, scores, s0), constrained(&p, scores, s1))
        else {
            return 0.0;
        };
        n * p
            .iter()
            .zip(q0.iter().zip(&q1))
            .map(|(pk, (a, b))| pk * (b / a).ln())
            .sum::<f64>()
    }
}

/// The maximum-likelihood distribution with mean score `s` given the observed `p`:
/// `p_k / (1 + θ (a_k - s))`, θ the root of `Σ p_k (a_k - s) / (1 + θ (a_k - s)) = 0`, found by
/// bisection on the interval where every denominator stays positive. `None` when `s` lies
/// outside the scores' range.
fn constrained(p: &[f64], scores: &[f64], s: f64) -> Option<Vec<f64>> {
    let lo_a = scores.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi_a = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if s <= lo_a || s >= hi_a {
        return None;
    }
    // 1 + θ (a - s) > 0 for every a: θ in (-1/(hi - s), 1/(s - lo)).
    let (mut lo, mut hi) = (-1.0 / (hi_a - s), 1.0 / (s - lo_a));
    let f = |theta: f64| -> f64 {
        p.iter()
            .zip(scores)
            .map(|(pk, a)| pk * (a - s) / (1.0 + theta * (a - s)))
            .sum()
    };
    // f decreases in θ; shrink the open interval a little to keep the denominators positive.
    let margin = 1e-12;
    (lo, hi) = (lo + margin * (hi - lo), hi - margin * (hi - lo));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let theta = 0.5 * (lo + hi);
    Some(
        p.iter()
            .zip(scores)
            .map(|(pk, a)| pk / (1.0 + theta * (a - s)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_the_classic_ones() {
        let t = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        assert!((t.lower() + 2.944_438_979).abs() < 1e-8);
        assert!((t.upper() - 2.944_438_979).abs() < 1e-8);
        assert_eq!(t.decide(3.0), Decision::H1);
        assert_eq!(t.decide(-3.0), Decision::H0);
        assert_eq!(t.decide(0.0), Decision::Continue);
    }

    #[test]
    fn llr_agrees_with_the_small_elo_approximation() {
        // LLR ≈ N (s1 - s0)(2s - s0 - s1) / (2σ²) for small Elo differences.
        let t = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let counts = Pentanomial([400, 2300, 5000, 2500, 450]);
        let llr = t.llr_pentanomial(&counts);
        let n = counts.pairs() as f64;
        let p: Vec<f64> = counts.0.iter().map(|&c| c as f64 / n).collect();
        let s: f64 = p.iter().zip(PAIR_SCORES).map(|(p, a)| p * a).sum();
        let var: f64 = p
            .iter()
            .zip(PAIR_SCORES)
            .map(|(p, a)| p * (a - s).powi(2))
            .sum();
        let (s0, s1) = (score(0.0), score(5.0));
        let approx = n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var);
        assert!(
            (llr - approx).abs() < 0.02 * approx.abs().max(1.0),
            "{llr} vs {approx}"
        );
        // More wins, higher LLR.
        let better = Pentanomial([300, 2300, 5000, 2500, 550]);
        assert!(t.llr_pentanomial(&better) > llr);
    }

    #[test]
    fn the_constrained_distribution_has_the_asked_mean() {
        let p = [0.1, 0.2, 0.4, 0.2, 0.1];
        let q = constrained(&p, &PAIR_SCORES, 0.55).unwrap();
        let total: f64 = q.iter().sum();
        let mean: f64 = q.iter().zip(PAIR_SCORES).map(|(q, a)| q * a).sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        assert!((mean - 0.55).abs() < 1e-9, "{mean}");
    }

    /// Runs one simulated test: pairs of games with A's true Elo advantage `truth` (30% draws,
    /// wins and losses around them so the expected score is the model's), until a decision or
    /// 20,000 pairs.
    fn simulate(test: &Sprt, truth: f64, seed: u64) -> Decision {
        use crate::games::hash::mix64;
        let p = score(truth);
        let mut state = seed;
        let mut game = || {
            state = mix64(state);
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            if u < p - 0.15 {
                1.0
            } else if u < p + 0.15 {
                0.5
            } else {
                0.0
            }
        };
        let mut counts = Pentanomial::default();
        for _ in 0..20_000 {
            let (a, b) = (game(), game());
            counts.add_pair(a, b);
            let decision = test.decide(test.llr_pentanomial(&counts));
            if decision != Decision::Continue {
                return decision;
            }
        }
        Decision::Continue
    }

    #[test]
    fn realised_error_rates_stay_within_alpha_and_beta() {
        let test = Sprt {
            elo0: 0.0,
            elo1: 30.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let runs = 600;
        let false_positives = (0..runs)
            .filter(|&i| simulate(&test, 0.0, 10_000 + i) == Decision::H1)
            .count();
        let false_negatives = (0..runs)
            .filter(|&i| simulate(&test, 30.0, 90_000 + i) == Decision::H0)
            .count();
        // The rates, with two standard errors of sampling (sqrt(0.05 * 0.95 / 600) ≈ 0.009).
        let (fp, fneg) = (
            false_positives as f64 / runs as f64,
            false_negatives as f64 / runs as f64,
        );
        println!("SPRT [0, 30]: false positives {fp}, false negatives {fneg}");
        assert!(fp <= 0.05 + 0.018, "false-positive rate {fp}");
        assert!(fneg <= 0.05 + 0.018, "false-negative rate {fneg}");
    }
}

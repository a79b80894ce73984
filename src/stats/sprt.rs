//! The generalised sequential probability ratio test, as fishtest and fastchess run it, on the
//! outcome counts of a match (W/D/L or opening pairs), with bounds in logistic or normalised Elo.

use super::score;
use super::summary::{PAIR_SCORES, Pentanomial, Trinomial};
use std::f64::consts::LN_10;

/// The scale the bounds `elo0` and `elo1` of a test are expressed in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Logistic Elo: the hypothesised scores are `L(elo)`, whatever the draw rate.
    #[default]
    Logistic,
    /// Normalised Elo (fishtest's default): the score's distance from ½ in units of its standard
    /// deviation per game, which makes the test independent of the draw rate.
    #[serde(alias = "normalised")]
    Normalized,
}

/// The hypotheses and error rates of a test: H0 "Elo = elo0", H1 "Elo = elo1" (on the scale of
/// `model`), α the chance of accepting H1 when H0 holds, β of accepting H0 when H1 holds.
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
    /// The scale of `elo0` and `elo1`; logistic when a configuration leaves it out.
    #[serde(default)]
    pub model: EloModel,
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
        self.llr(&c, &PAIR_SCORES, 2.0, 1.0)
    }

    /// The log-likelihood ratio of paired differences: outcome `i` (0..=8) of an opening is the
    /// difference `d = i/2 - 2` between two players' points against the same opponent from the
    /// same opening (two games each), scored `i/8`. When one player is `e` Elo stronger than
    /// the other against that opponent, the mean of `i/8` is about `½ + (L(e) - ½) / 2` (both
    /// near the opponent's strength), so the hypotheses' scores are shrunk by half toward ½.
    pub fn llr_pair_differences(&self, diffs: &[u64; 9]) -> f64 {
        let c: Vec<f64> = diffs.iter().map(|&n| n as f64).collect();
        let scores: Vec<f64> = (0..9).map(|i| i as f64 / 8.0).collect();
        self.llr(&c, &scores, 2.0, 0.5)
    }

    /// The log-likelihood ratio of W/D/L counts.
    pub fn llr_trinomial(&self, counts: &Trinomial) -> f64 {
        let c = [
            counts.losses as f64,
            counts.draws as f64,
            counts.wins as f64,
        ];
        self.llr(&c, &[0.0, 0.5, 1.0], 1.0, 1.0)
    }

    /// The mean scores (per game) H0 and H1 stand for, given the observed outcome frequencies
    /// `p` (zero counts already replaced) over `scores`, each outcome `games` games long.
    ///
    /// Normalised bounds become scores with the observed standard deviation per game,
    /// `s_i = ½ + nelo_i · ln 10 / 800 · sqrt(games · σ²)` (σ² the variance of an outcome's
    /// score; for pairs `2 σp²`, the per-game variance as the pentanomial nElo counts it). This
    /// follows fast-chess's `SPRT::neloToScoreWDL` / `neloToScorePenta` (Disservin/fastchess,
    /// `src/matchmaking/sprt/sprt.cpp`, the versions in the `fast_chess` namespace), which then
    /// took the LLR's variance-ratio approximation where we take the constrained MLE. fishtest
    /// (`LLR_normalized` in `server/fishtest/stats/LLRcalc.py`) and fastchess since then
    /// constrain the t-value `(μ - ½)/σ` of the fitted distribution instead of its mean (M. Van
    /// den Bergh, "Comments on Normalized Elo", §4.1); for the small differences tests use the
    /// two agree closely: within 1% (0.3% at most) on the counts of the test
    /// `normalised_llr_is_close_to_fishtests_t_value_llr`.
    fn hypotheses(&self, p: &[f64], scores: &[f64], games: f64) -> (f64, f64) {
        match self.model {
            EloModel::Logistic => (score(self.elo0), score(self.elo1)),
            EloModel::Normalized => {
                let mean: f64 = p.iter().zip(scores).map(|(p, a)| p * a).sum();
                let variance: f64 = p
                    .iter()
                    .zip(scores)
                    .map(|(p, a)| p * (a - mean).powi(2))
                    .sum();
                let sigma = (games * variance).sqrt();
                let to_score = |nelo: f64| 0.5 + nelo * LN_10 / 800.0 * sigma;
                (to_score(self.elo0), to_score(self.elo1))
            }
        }
    }

    /// `N Σ p̂_k ln(p_k(s1) / p_k(s0))`, with `p_k(s)` the distribution closest to the observed
    /// one (`p̂`, zero counts replaced by 1e-3) whose mean score is `s`, `s0` and `s1` the
    /// hypotheses' scores for outcomes `games` games long, their distance from ½ multiplied by
    /// `shrink`.
    fn llr(&self, counts: &[f64], scores: &[f64], games: f64, shrink: f64) -> f64 {
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
        let (s0, s1) = self.hypotheses(&p, scores, games);
        let (s0, s1) = (0.5 + (s0 - 0.5) * shrink, 0.5 + (s1 - 0.5) * shrink);
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
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn bounds_are_the_classic_ones() {
        let t = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
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
            model: EloModel::Logistic,
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
            model: EloModel::Logistic,
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

    /// A pooled test: the candidate (`truth` Elo above the pool) and the incumbent (equal to
    /// the pool) each play a colour-swapped pair against the same pool engine per opening.
    fn simulate_pooled(test: &Sprt, truth: f64, seed: u64) -> Decision {
        use crate::games::hash::mix64;
        let mut state = seed;
        let mut game = |p: f64| {
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
        let mut diffs = [0u64; 9];
        for _ in 0..40_000 {
            let c: f64 = game(score(truth)) + game(score(truth));
            let i = game(0.5) + game(0.5);
            diffs[((c - i + 2.0) * 2.0).round() as usize] += 1;
            let decision = test.decide(test.llr_pair_differences(&diffs));
            if decision != Decision::Continue {
                return decision;
            }
        }
        Decision::Continue
    }

    #[test]
    fn pooled_differences_keep_alpha_and_beta() {
        let test = Sprt {
            elo0: 0.0,
            elo1: 30.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        };
        let runs = 400;
        let fp = (0..runs)
            .filter(|&i| simulate_pooled(&test, 0.0, 20_000 + i) == Decision::H1)
            .count() as f64
            / runs as f64;
        let fneg = (0..runs)
            .filter(|&i| simulate_pooled(&test, 30.0, 70_000 + i) == Decision::H0)
            .count() as f64
            / runs as f64;
        println!("pooled SPRT [0, 30]: false positives {fp}, false negatives {fneg}");
        // Two standard errors of sampling: sqrt(0.05 * 0.95 / 400) ≈ 0.011.
        assert!(fp <= 0.05 + 0.022, "false-positive rate {fp}");
        assert!(fneg <= 0.05 + 0.022, "false-negative rate {fneg}");
    }

    fn normalised(elo0: f64, elo1: f64) -> Sprt {
        Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
        }
    }

    /// `max_θ Σ p_k ln(1 + θ (a_k - s))` by golden-section search: minus the log of the
    /// largest likelihood ratio of a distribution with mean `s` to `p` (the dual of the
    /// constrained fit, found without its root-finding).
    fn dual(p: &[f64], scores: &[f64], s: f64) -> f64 {
        let g = |theta: f64| -> f64 {
            p.iter()
                .zip(scores)
                .map(|(p, a)| p * (1.0 + theta * (a - s)).ln())
                .sum()
        };
        let (mut lo, mut hi) = (-1.0 / (1.0 - s) + 1e-9, 1.0 / s - 1e-9);
        let phi = (5f64.sqrt() - 1.0) / 2.0;
        for _ in 0..300 {
            let (x, y) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
            if g(x) < g(y) {
                lo = x;
            } else {
                hi = y;
            }
        }
        g(0.5 * (lo + hi))
    }

    /// The normalised LLR computed by hand: zero counts replaced by 1e-3, nElo bounds turned
    /// into scores with the observed per-game deviation, the LLR from the dual.
    fn normalised_by_hand(counts: &[u64], nelo: (f64, f64), games_per_outcome: f64) -> f64 {
        let scores: Vec<f64> = (0..counts.len())
            .map(|k| k as f64 / (counts.len() - 1) as f64)
            .collect();
        let c: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0 { 1e-3 } else { c as f64 })
            .collect();
        let total: f64 = c.iter().sum();
        let p: Vec<f64> = c.iter().map(|c| c / total).collect();
        let mean: f64 = (0..p.len()).map(|k| p[k] * scores[k]).sum();
        let var: f64 = (0..p.len())
            .map(|k| p[k] * (scores[k] - mean).powi(2))
            .sum();
        let per_game = (games_per_outcome * var).sqrt();
        let s0 = 0.5 + nelo.0 / (800.0 / LN_10) * per_game;
        let s1 = 0.5 + nelo.1 / (800.0 / LN_10) * per_game;
        let n: u64 = counts.iter().sum();
        n as f64 * (dual(&p, &scores, s0) - dual(&p, &scores, s1))
    }

    #[test]
    fn normalised_llr_matches_an_independent_computation() {
        let t = normalised(0.0, 5.0);
        // A zero count, to go through the replacement by 1e-3.
        let penta = [0, 1800, 5600, 2300, 300];
        let llr = t.llr_pentanomial(&Pentanomial(penta));
        let by_hand = normalised_by_hand(&penta, (0.0, 5.0), 2.0);
        assert!(
            (llr - by_hand).abs() < 1e-6 * by_hand.abs(),
            "{llr} vs {by_hand}"
        );
        let tri = Trinomial {
            wins: 3400,
            draws: 4200,
            losses: 2900,
        };
        let llr = t.llr_trinomial(&tri);
        let by_hand = normalised_by_hand(&[2900, 4200, 3400], (0.0, 5.0), 1.0);
        assert!(
            (llr - by_hand).abs() < 1e-6 * by_hand.abs(),
            "{llr} vs {by_hand}"
        );
        // Both hypotheses shifted by the same nElo give a different LLR: the bounds matter.
        let shifted = normalised(-2.0, 3.0).llr_trinomial(&tri);
        let by_hand = normalised_by_hand(&[2900, 4200, 3400], (-2.0, 3.0), 1.0);
        assert!((shifted - by_hand).abs() < 1e-6 * by_hand.abs());
        assert!((shifted - llr).abs() > 0.1);
    }

    /// fishtest's maximum-likelihood distribution with t-value `(μ - ½)/σ = t` given the
    /// observed `p` (`MLE_t_value`, Van den Bergh's fixed point), with its own bisection for the
    /// secular equation.
    fn t_value_mle(p: &[f64], scores: &[f64], t: f64) -> Vec<f64> {
        let mut q = vec![1.0 / p.len() as f64; p.len()];
        for _ in 0..100 {
            let mu: f64 = q.iter().zip(scores).map(|(q, a)| q * a).sum();
            let sigma = q
                .iter()
                .zip(scores)
                .map(|(q, a)| q * (a - mu).powi(2))
                .sum::<f64>()
                .sqrt();
            let phi: Vec<f64> = scores
                .iter()
                .map(|a| a - 0.5 - t * sigma * (1.0 + ((a - mu) / sigma).powi(2)) / 2.0)
                .collect();
            let lo_phi = phi.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi_phi = phi.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let (mut lo, mut hi) = (-1.0 / hi_phi, -1.0 / lo_phi);
            let width = hi - lo;
            (lo, hi) = (lo + 1e-12 * width, hi - 1e-12 * width);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                let f: f64 = p
                    .iter()
                    .zip(&phi)
                    .map(|(p, f)| p * f / (1.0 + mid * f))
                    .sum();
                if f > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let x = 0.5 * (lo + hi);
            q = p.iter().zip(&phi).map(|(p, f)| p / (1.0 + x * f)).collect();
        }
        q
    }

    /// fishtest's `LLR_normalized` (`t = nElo · ln 10 / 800`, times √2 for pairs).
    fn fishtest_normalised(counts: &[u64], nelo: (f64, f64)) -> f64 {
        let scores: Vec<f64> = (0..counts.len())
            .map(|k| k as f64 / (counts.len() - 1) as f64)
            .collect();
        let c: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0 { 1e-3 } else { c as f64 })
            .collect();
        let total: f64 = c.iter().sum();
        let p: Vec<f64> = c.iter().map(|c| c / total).collect();
        let unit = if counts.len() == 5 { 2f64.sqrt() } else { 1.0 };
        let t = |nelo: f64| nelo / (800.0 / LN_10) * unit;
        let (q0, q1) = (
            t_value_mle(&p, &scores, t(nelo.0)),
            t_value_mle(&p, &scores, t(nelo.1)),
        );
        total
            * (0..p.len())
                .map(|k| p[k] * (q1[k] / q0[k]).ln())
                .sum::<f64>()
    }

    #[test]
    fn normalised_llr_is_close_to_fishtests_t_value_llr() {
        let t = normalised(0.0, 5.0);
        for penta in [
            [400, 2300, 5000, 2500, 450],
            [30, 900, 6000, 1000, 40],
            [200, 700, 1000, 800, 300],
        ] {
            let ours = t.llr_pentanomial(&Pentanomial(penta));
            let theirs = fishtest_normalised(&penta, (0.0, 5.0));
            eprintln!("pentanomial {penta:?}: LLR {ours:.4}, fishtest's t-value LLR {theirs:.4}");
            assert!(
                (ours - theirs).abs() < 0.01 * theirs.abs().max(1.0),
                "{ours} vs {theirs}"
            );
        }
        for tri in [[2900, 4200, 3400], [1000, 8000, 1100], [4000, 1000, 4300]] {
            let counts = Trinomial {
                losses: tri[0],
                draws: tri[1],
                wins: tri[2],
            };
            let ours = t.llr_trinomial(&counts);
            let theirs = fishtest_normalised(&tri, (0.0, 5.0));
            eprintln!("trinomial {tri:?}: LLR {ours:.4}, fishtest's t-value LLR {theirs:.4}");
            assert!(
                (ours - theirs).abs() < 0.01 * theirs.abs().max(1.0),
                "{ours} vs {theirs}"
            );
        }
    }

    #[test]
    fn the_model_reads_from_configurations_and_defaults_to_logistic() {
        let read = |json: &str| serde_json::from_str::<Sprt>(json).unwrap().model;
        let base = r#""elo0": 0, "elo1": 5, "alpha": 0.05, "beta": 0.05"#;
        assert_eq!(read(&format!("{{{base}}}")), EloModel::Logistic);
        assert_eq!(
            read(&format!(r#"{{{base}, "model": "logistic"}}"#)),
            EloModel::Logistic
        );
        assert_eq!(
            read(&format!(r#"{{{base}, "model": "normalized"}}"#)),
            EloModel::Normalized
        );
        assert_eq!(
            read(&format!(r#"{{{base}, "model": "normalised"}}"#)),
            EloModel::Normalized
        );
        let written = serde_json::to_string(&normalised(0.0, 2.0)).unwrap();
        assert!(written.contains(r#""model":"normalized""#), "{written}");
    }

    /// The expected score per game whose normalised Elo is `nelo` when a fraction `draw` of the
    /// games are drawn (wins and losses around them), by bisection.
    fn score_of_nelo(nelo: f64, draw: f64) -> f64 {
        let nelo_of = |e: f64| {
            let (w, l) = (e - draw / 2.0, 1.0 - e - draw / 2.0);
            let var = w * (1.0 - e).powi(2) + draw * (0.5 - e).powi(2) + l * e * e;
            (e - 0.5) / var.sqrt() * 800.0 / LN_10
        };
        let (mut lo, mut hi) = (0.5, 1.0 - draw / 2.0);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if nelo_of(mid) < nelo {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// Runs one simulated test on pairs of independent games of expected score `e` with a
    /// fraction `draw` of draws, until a decision or 20,000 pairs.
    fn simulate_games(test: &Sprt, e: f64, draw: f64, rng: &mut ChaCha8Rng) -> Decision {
        let mut game = || {
            let u: f64 = rng.random_range(0.0..1.0);
            if u < e - draw / 2.0 {
                1.0
            } else if u < e + draw / 2.0 {
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
    fn normalised_error_rates_stay_within_alpha_and_beta_at_any_draw_rate() {
        // Wide bounds, so that a run takes some 200 pairs and the test a second or two.
        let (nelo0, nelo1) = (0.0, 40.0);
        let test = normalised(nelo0, nelo1);
        let runs = 600;
        let draws = [0.1, 0.3, 0.6];
        let mut rng = ChaCha8Rng::seed_from_u64(2024);
        // Per draw rate: [false positives, false negatives].
        let mut errors = [[0usize; 2]; 3];
        for i in 0..runs {
            // The draw rate changes the logistic Elo of the hypotheses, not their nElo.
            let k = i % draws.len();
            let draw = draws[k];
            let h0 = score_of_nelo(nelo0, draw);
            let h1 = score_of_nelo(nelo1, draw);
            if simulate_games(&test, h0, draw, &mut rng) == Decision::H1 {
                errors[k][0] += 1;
            }
            if simulate_games(&test, h1, draw, &mut rng) == Decision::H0 {
                errors[k][1] += 1;
            }
        }
        for (draw, [fp, fneg]) in draws.iter().zip(errors) {
            eprintln!(
                "normalised SPRT, {draw} draws: {fp} false positives, {fneg} false negatives in \
                 {} runs each",
                runs / draws.len()
            );
        }
        let (fp, fneg) = (
            errors.iter().map(|e| e[0]).sum::<usize>() as f64 / runs as f64,
            errors.iter().map(|e| e[1]).sum::<usize>() as f64 / runs as f64,
        );
        eprintln!(
            "normalised SPRT [{nelo0}, {nelo1}] nElo: false positives {fp:.4}, false negatives \
             {fneg:.4}"
        );
        // Two standard errors of sampling (sqrt(0.05 * 0.95 / 600) ≈ 0.009).
        assert!(fp <= 0.05 + 0.018, "false-positive rate {fp}");
        assert!(fneg <= 0.05 + 0.018, "false-negative rate {fneg}");
    }
}

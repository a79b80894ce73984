//! The generalised sequential probability ratio test, as fishtest and fastchess run it, on the
//! outcome counts of a match (W/D/L or opening pairs), with bounds in logistic or normalised Elo.

use super::score;
use super::summary::{PAIR_SCORES, Pentanomial, Trinomial};
use std::f64::consts::{LN_10, SQRT_2};

/// The scale the bounds `elo0` and `elo1` of a test are expressed in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Logistic Elo: the hypothesised scores are `L(elo)`, whatever the draw rate.
    #[default]
    Logistic,
    /// Normalised Elo (fishtest's default): the score's distance from ½ in units of its standard
    /// deviation per game, times `800 / ln 10`, which makes the test independent of the draw
    /// rate.
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

/// The scores of W/D/L outcomes, in the order `[losses, draws, wins]`.
const GAME_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

/// The scores `i/8` of the nine paired differences of [`Sprt::llr_pair_differences`].
const DIFFERENCE_SCORES: [f64; 9] = [0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0];

/// What fishtest counts in place of an outcome never seen (`regularize` in `LLRcalc.py`).
const ZERO_COUNT: f64 = 1e-3;

/// Normalised Elo per unit of t-value per game: `800 / ln 10` (fishtest's `nelo_divided_by_nt`).
const NELO_PER_T: f64 = 800.0 / LN_10;

/// What one counted outcome is: how the bounds, stated for one game of A against B, become
/// hypotheses about the outcome's distribution.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// One game, scored 0, ½ or 1.
    Game,
    /// A colour-swapped pair of games, scored by its mean 0, ¼, ½, ¾ or 1.
    Pair,
    /// The difference of two players' pair scores against a common opponent, scored `i/8`.
    PooledDifference,
}

impl Outcome {
    /// Logistic bounds: the hypothesised mean outcome is `½ + shrink · (L(elo) - ½)`.
    fn shrink(self) -> f64 {
        match self {
            Outcome::Game | Outcome::Pair => 1.0,
            Outcome::PooledDifference => 0.5,
        }
    }

    /// Normalised bounds: the hypothesised t-value `(μ - ½)/σ` of the outcome is `nElo / (800 /
    /// ln 10)` times this.
    fn t_per_game_t(self) -> f64 {
        match self {
            Outcome::Game | Outcome::PooledDifference => 1.0,
            Outcome::Pair => SQRT_2,
        }
    }
}

/// The forms [`Sprt::parse`] reads, for its errors.
const SPRT_FORMS: &str = "ELO0,ELO1[,MODEL] or elo0=E0,elo1=E1[,alpha=A][,beta=B][,model=MODEL], MODEL logistic or normalized, e.g. 0,10 or elo0=0,elo1=10,model=normalized";

/// The keys of the KEY=VALUE form (fastchess's).
const SPRT_KEYS: [&str; 5] = ["elo0", "elo1", "alpha", "beta", "model"];

impl Sprt {
    /// A test as written (`--sprt`, `joute.match(sprt=...)`): `ELO0,ELO1`, `ELO0,ELO1,MODEL`, or fastchess's
    /// `elo0=E0,elo1=E1,alpha=A,beta=B,model=MODEL` (alpha and beta 0.05 and the model logistic
    /// unless given); the error says what is wrong and the forms. The bounds are checked by the spec's
    /// own rules (`arena::spec::match_spec`).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let fail = |why: String| format!("'{text}': {why}; the forms: {SPRT_FORMS}");
        let number = |key: &str, value: &str| -> Result<f64, String> {
            value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| fail(format!("{key} '{}' is not a number", value.trim())))
        };
        let model_of = |value: &str| match value.trim() {
            "logistic" => Ok(EloModel::Logistic),
            "normalized" | "normalised" => Ok(EloModel::Normalized),
            other => Err(fail(format!(
                "unknown model '{other}'; allowed: logistic, normalized"
            ))),
        };
        let words: Vec<&str> = text.split(',').collect();
        let mut test = Sprt {
            elo0: f64::NAN,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        };
        if words.iter().any(|w| w.contains('=')) {
            let mut seen: Vec<&str> = Vec::new();
            for word in &words {
                let Some((key, value)) = word.split_once('=') else {
                    return Err(fail(format!(
                        "'{}' is not KEY=VALUE (keys: {})",
                        word.trim(),
                        SPRT_KEYS.join(", ")
                    )));
                };
                let key = key.trim();
                if seen.contains(&key) {
                    return Err(fail(format!("{key} is given twice")));
                }
                match key {
                    "elo0" => test.elo0 = number(key, value)?,
                    "elo1" => test.elo1 = number(key, value)?,
                    "alpha" | "beta" => {
                        let rate = number(key, value)?;
                        if !(rate > 0.0 && rate < 0.5) {
                            return Err(fail(format!(
                                "{key} {} is out of range; allowed: between 0 and 0.5 (e.g. 0.05)",
                                value.trim()
                            )));
                        }
                        if key == "alpha" {
                            test.alpha = rate;
                        } else {
                            test.beta = rate;
                        }
                    }
                    "model" => test.model = model_of(value)?,
                    other => {
                        let meant = SPRT_KEYS
                            .iter()
                            .map(|k| (strsim::damerau_levenshtein(other, k), *k))
                            .filter(|(d, k)| *d <= 2 && *d < k.len())
                            .min();
                        return Err(fail(match meant {
                            Some((_, k)) => format!("unknown key '{other}'; did you mean '{k}'?"),
                            None => {
                                format!("unknown key '{other}'; keys: {}", SPRT_KEYS.join(", "))
                            }
                        }));
                    }
                }
                seen.push(key);
            }
            for key in ["elo0", "elo1"] {
                if !seen.contains(&key) {
                    return Err(fail(format!("{key} is missing")));
                }
            }
        } else {
            match words.as_slice() {
                [a, b] | [a, b, _] => {
                    test.elo0 = number("ELO0", a)?;
                    test.elo1 = number("ELO1", b)?;
                }
                _ => return Err(fail("not two bounds and a model".into())),
            }
            if let [_, _, model] = words.as_slice() {
                test.model = model_of(model)?;
            }
        }
        if test.elo0 >= test.elo1 {
            return Err(fail(format!(
                "elo1 ({}) must be greater than elo0 ({})",
                test.elo1, test.elo0
            )));
        }
        Ok(test)
    }

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

    /// The log-likelihood ratio of opening-pair counts. Logistic bounds constrain the pair's
    /// mean score to `L(elo)`; normalised bounds its t-value to `√2 · nElo · ln 10 / 800`
    /// (fishtest's pentanomial normalised Elo is `(μ - ½) / (√2 σ_pair) · 800 / ln 10`, `2 σ²_pair`
    /// standing for the variance of one game).
    pub fn llr_pentanomial(&self, counts: &Pentanomial) -> f64 {
        self.llr(&counts.0, &PAIR_SCORES, Outcome::Pair)
    }

    /// The log-likelihood ratio of paired differences: outcome `i` (0..=8) of an opening is the
    /// difference `d = i/2 - 2` between two players' points against the same opponent from the
    /// same opening (two games each), scored `i/8`.
    ///
    /// Logistic bounds: when one player is `e` Elo stronger than the other against that
    /// opponent, the mean of `i/8` is about `½ + (L(e) - ½) / 2` (both near the opponent's
    /// strength), so the hypotheses' scores are shrunk by half toward ½.
    ///
    /// Normalised bounds constrain the t-value of `i/8` to `nElo · ln 10 / 800`, the per-game
    /// t-value itself: the mean is shrunk by half as above, and so is the standard deviation
    /// (`i/8 = ½ + (x - y)/2` with `x`, `y` the two pair scores, each of variance `σ²_game / 2`),
    /// so a difference of `nElo` between the two players, head to head, is a difference of
    /// t-value `nElo · ln 10 / 800` here when their results against the opponent are
    /// uncorrelated. The opening they share usually correlates them positively, which narrows
    /// the differences and makes the nElo this test measures larger than the head-to-head one,
    /// as colour-decided openings make the pentanomial nElo larger than the W/D/L one.
    pub fn llr_pair_differences(&self, diffs: &[u64; 9]) -> f64 {
        self.llr(diffs, &DIFFERENCE_SCORES, Outcome::PooledDifference)
    }

    /// The log-likelihood ratio of W/D/L counts. Logistic bounds constrain the mean score to
    /// `L(elo)`; normalised bounds the t-value to `nElo · ln 10 / 800`.
    pub fn llr_trinomial(&self, counts: &Trinomial) -> f64 {
        let counts = [counts.losses, counts.draws, counts.wins];
        self.llr(&counts, &GAME_SCORES, Outcome::Game)
    }

    /// The generalised log-likelihood ratio `N Σ_k p̂_k ln(q1_k / q0_k)` of the counts of
    /// outcomes scored `scores`, as fishtest's `LLR_logistic` and `LLR_normalized`
    /// (`server/fishtest/stats/LLRcalc.py`) compute it. `p̂` are the observed frequencies with
    /// each zero count replaced by 10⁻³ (`regularize`) and `N` the sum of those counts; `qi`
    /// is the maximum-likelihood distribution under hypothesis `i` given `p̂`:
    ///
    /// - logistic bounds: the distribution with mean `½ + shrink · (L(elo_i) - ½)`
    ///   ([`mle_with_mean`], fishtest's `MLE_expected`);
    /// - normalised bounds: the distribution with t-value `(μ - ½)/σ = t_i`,
    ///   `t_i = nelo_i · ln 10 / 800` times the outcome's factor ([`mle_with_t_value`],
    ///   fishtest's `MLE_t_value`; M. Van den Bergh, "Comments on Normalized Elo", §4.1,
    ///   <https://www.cantate.be/Fishtest/normalized_elo_practical.pdf>). fastchess
    ///   (`app/src/matchmaking/sprt/sprt.cpp`, `SPRT::getLLR_normalized`) does the same.
    ///
    /// 0 with no counts at all, or if a hypothesis has no such distribution: a mean outside the
    /// scores' range, or a t-value far beyond any test's (bounds beyond about ±230 nElo for
    /// pairs; see [`mle_with_t_value`]), where fishtest raises an error.
    fn llr<const N: usize>(&self, counts: &[u64; N], scores: &[f64; N], outcome: Outcome) -> f64 {
        match self.increments(counts, scores, outcome) {
            Some((total, p, step)) => total * (0..N).map(|k| p[k] * step[k]).sum::<f64>(),
            None => 0.0,
        }
    }

    /// The mean and variance of the LLR's increment per opening pair at the observed
    /// frequencies: outcome `k` adds `ln(q1_k / q0_k)` (the hypotheses fitted as in
    /// [`Sprt::llr_pentanomial`]) with probability `p̂_k`, so the mean is the LLR divided by the
    /// (regularised) pair count. `None` before any pair, or where the LLR is 0 for want of a fit.
    pub fn pair_drift(&self, counts: &Pentanomial) -> Option<(f64, f64)> {
        let (_, p, step) = self.increments(&counts.0, &PAIR_SCORES, Outcome::Pair)?;
        let mean: f64 = (0..5).map(|k| p[k] * step[k]).sum();
        let variance: f64 = (0..5).map(|k| p[k] * (step[k] - mean).powi(2)).sum();
        Some((mean, variance))
    }

    /// The regularised count total, the observed frequencies `p̂` and each outcome's LLR
    /// increment `ln(q1_k / q0_k)` (see [`Sprt::llr`]); `None` with no counts or no fit.
    #[allow(clippy::type_complexity)]
    fn increments<const N: usize>(
        &self,
        counts: &[u64; N],
        scores: &[f64; N],
        outcome: Outcome,
    ) -> Option<(f64, [f64; N], [f64; N])> {
        if counts.iter().all(|&c| c == 0) {
            return None;
        }
        let counts = counts.map(|c| if c == 0 { ZERO_COUNT } else { c as f64 });
        let total: f64 = counts.iter().sum();
        let p = counts.map(|c| c / total);
        let fit = |elo: f64| match self.model {
            EloModel::Logistic => {
                mle_with_mean(&p, scores, 0.5 + outcome.shrink() * (score(elo) - 0.5))
            }
            EloModel::Normalized => {
                mle_with_t_value(&p, scores, elo / NELO_PER_T * outcome.t_per_game_t())
            }
        };
        let (Some(q0), Some(q1)) = (fit(self.elo0), fit(self.elo1)) else {
            return None;
        };
        Some((total, p, std::array::from_fn(|k| (q1[k] / q0[k]).ln())))
    }
}

/// Below this `|θ| (a + b)` (θ = 2μ/σ²) a walk's drift is lost in its noise across the
/// interval: [`expected_exit`] uses the driftless limit, and the progress line says "drift ~0".
pub const NEGLIGIBLE_DRIFT: f64 = 1.0;

/// The expected number of steps for a random walk with increments of mean `mean` and variance
/// `variance` to leave the interval from `up` below its upper end to `down` above its lower end
/// (both ≥ 0), by Wald's identity `μ E[N] = E[S_N]` with the overshoot neglected and the chance
/// of leaving at the top taken from the martingale `e^(-θ S)`, `θ = 2μ/σ²` (exact for Brownian
/// motion): `P_up = (e^(θb) - 1) / (e^(θb) - e^(-θa))`, `E[N] = (P_up a - (1 - P_up) b) / μ`;
/// with no drift, `a b / σ²`. Infinite when the walk neither drifts nor varies.
pub fn expected_exit(up: f64, down: f64, mean: f64, variance: f64) -> f64 {
    let (a, b) = (up.max(0.0), down.max(0.0));
    if variance <= 0.0 {
        return match mean {
            m if m > 0.0 => a / m,
            m if m < 0.0 => b / -m,
            _ => f64::INFINITY,
        };
    }
    let theta = 2.0 * mean / variance;
    if (theta * (a + b)).abs() < 1e-6 {
        return a * b / variance;
    }
    // Written so that no exponential overflows, whichever the sign of θ.
    let p_up = if theta > 0.0 {
        (-theta * b).exp_m1() / (-theta * (a + b)).exp_m1()
    } else {
        (theta * a).exp() * (theta * b).exp_m1() / (theta * (a + b)).exp_m1()
    };
    ((p_up * a - (1.0 - p_up) * b) / mean).max(0.0)
}

/// The maximum-likelihood distribution on `scores` with mean `s` given the observed `p` (every
/// `p_k > 0`): `p_k / (1 + x (a_k - s))`, `x` the root of the secular equation with
/// `φ_k = a_k - s` (fishtest's `MLE_expected`). `None` when `s` is not strictly inside the
/// scores' range.
fn mle_with_mean<const N: usize>(p: &[f64; N], scores: &[f64; N], s: f64) -> Option<[f64; N]> {
    let phi = scores.map(|a| a - s);
    let x = secular(p, &phi, 0.0)?;
    Some(std::array::from_fn(|k| p[k] / (1.0 + x * phi[k])))
}

/// Fixed-point iterations [`mle_with_t_value`] allows itself: it takes up to some 30 for bounds
/// within ±100 nElo (60 on rare counts), up to some 250 near the ±230 nElo where a pair fit
/// gives out.
const T_VALUE_STEPS: usize = 500;

/// [`mle_with_t_value`] stops once no probability moved by more than this in an iteration.
const T_VALUE_TOLERANCE: f64 = 1e-12;

/// The maximum-likelihood distribution on `scores` with t-value `(μ - ½)/σ = t` given the
/// observed `p` (every `p_k > 0`), by Van den Bergh's fixed point as fishtest's `MLE_t_value`
/// computes it: from the uniform distribution, with the current `q` (mean μ, deviation σ), take
/// `φ_k = a_k - ½ - t σ (1 + ((a_k - μ)/σ)²) / 2`, `x` the root of the secular equation
/// `Σ p_k φ_k / (1 + x φ_k) = 0`, and `q_k = p_k / (1 + x φ_k)`. At the fixed point `q` sums to
/// 1 and `Σ q_k φ_k = μ - ½ - t σ = 0`: the stationarity conditions of the likelihood under the
/// constraint.
///
/// fishtest stops once no `q_k` moves by 10⁻⁹, or after 10 iterations; this iterates until no
/// `q_k` moves by more than [`T_VALUE_TOLERANCE`], or, once the moves are below 10⁻⁹, until they
/// stop shrinking (rounding: when a never-seen outcome gets much weight, `1 + x φ_k` is tiny and
/// `q_k` sensitive to the last bits of `x`). Each secular equation starts from the previous
/// root. `None` when the secular equation has no root, which happens only for t-values far
/// beyond a test's (bounds beyond about ±230 nElo for pairs, ±340 for games and paired
/// differences), or if the iteration did not settle within [`T_VALUE_STEPS`] on a distribution
/// of t-value `t`.
fn mle_with_t_value<const N: usize>(p: &[f64; N], scores: &[f64; N], t: f64) -> Option<[f64; N]> {
    let mut q = [1.0 / N as f64; N];
    let (mut x, mut last_move) = (0.0, f64::INFINITY);
    for _ in 0..T_VALUE_STEPS {
        let (mu, sigma) = mean_and_deviation(&q, scores);
        let phi = scores.map(|a| {
            let z = (a - mu) / sigma;
            a - 0.5 - t * sigma * (1.0 + z * z) / 2.0
        });
        x = secular(p, &phi, x)?;
        let next: [f64; N] = std::array::from_fn(|k| p[k] / (1.0 + x * phi[k]));
        let moved = (0..N).map(|k| (next[k] - q[k]).abs()).fold(0.0, f64::max);
        q = next;
        if moved <= T_VALUE_TOLERANCE || (moved < 1e-9 && moved >= last_move) {
            return Some(q);
        }
        last_move = moved;
    }
    let (mu, sigma) = mean_and_deviation(&q, scores);
    if ((mu - 0.5) / sigma - t).abs() <= 1e-9 {
        Some(q)
    } else {
        None
    }
}

/// The mean and standard deviation of the distribution `q` on `scores`.
fn mean_and_deviation<const N: usize>(q: &[f64; N], scores: &[f64; N]) -> (f64, f64) {
    let mu: f64 = (0..N).map(|k| q[k] * scores[k]).sum();
    let variance: f64 = (0..N).map(|k| q[k] * (scores[k] - mu).powi(2)).sum();
    (mu, variance.sqrt())
}

/// Newton steps [`secular`] allows itself; it takes 2 to 12.
const SECULAR_STEPS: usize = 100;

/// The root `x` of the secular equation `f(x) = Σ p_k φ_k / (1 + x φ_k) = 0` (every `p_k > 0`)
/// on the interval `(x_lo, x_hi) = (-1/max φ, -1/min φ)` where every `1 + x φ_k` is positive,
/// across which `f` falls from +∞ to -∞; `None` unless φ takes both signs.
///
/// Newton's method from `start` (0 if `start` is outside the interval) on
/// `g(x) = f(x) (x - x_lo) (x_hi - x)`, which has the sign and the root of `f` but not its poles
/// at the ends (a root next to a pole, when an outcome never seen gets much weight in the fit,
/// would cost Newton on `f` itself many steps), keeping a bracket of the root and bisecting it
/// whenever a step would leave it, until a step is below 10⁻¹⁴ (1 + |x|).
fn secular<const N: usize>(p: &[f64; N], phi: &[f64; N], start: f64) -> Option<f64> {
    let lowest = phi.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(lowest < 0.0 && highest > 0.0) {
        return None;
    }
    let (x_lo, x_hi) = (-1.0 / highest, -1.0 / lowest);
    let (mut lo, mut hi) = (x_lo, x_hi);
    let mut x = if start > lo && start < hi { start } else { 0.0 };
    for _ in 0..SECULAR_STEPS {
        let (mut f, mut slope) = (0.0, 0.0);
        for k in 0..N {
            let r = phi[k] / (1.0 + x * phi[k]);
            f += p[k] * r;
            slope -= p[k] * r * r;
        }
        if f > 0.0 {
            lo = x;
        } else if f < 0.0 {
            hi = x;
        } else {
            return Some(x);
        }
        let (w, w_slope) = ((x - x_lo) * (x_hi - x), x_lo + x_hi - 2.0 * x);
        let newton = x - f * w / (slope * w + f * w_slope);
        if (newton - x).abs() <= 1e-14 * (1.0 + x.abs()) {
            return Some(newton);
        }
        x = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
    }
    Some(x)
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

    /// Wald's Bernoulli SPRT of p0 = 0.48 against p1 = 0.52 at α = β = 5%, simulated from a
    /// fixed seed at several true win rates (drifting up, down, not at all) and starting LLRs:
    /// the mean number of steps to a bound against [`expected_exit`]. The formula neglects the
    /// overshoot, at most one step (|ln(0.52/0.48)| = 0.08) past a bound, which moves the exit
    /// point by at most that and so the expected length by at most `step / |μ|` (or, with no
    /// drift, `step · (a + b) / σ²`); the simulated mean has its own standard error; the test
    /// allows both, the first doubled, plus four standard errors.
    #[test]
    fn expected_exit_matches_a_simulated_bernoulli_sprt() {
        let (p0, p1) = (0.48f64, 0.52f64);
        let (win, loss) = ((p1 / p0).ln(), ((1.0 - p1) / (1.0 - p0)).ln());
        let (lower, upper) = ((0.05f64 / 0.95).ln(), (0.95f64 / 0.05).ln());
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for (truth, start) in [
            (0.52, 0.0),
            (0.47, 0.0),
            (0.5, 0.0),
            (0.51, 1.5),
            (0.5, -2.0),
            (0.49, 2.0),
        ] {
            let runs = 3000;
            let (mut sum, mut squares) = (0.0, 0.0);
            for _ in 0..runs {
                let (mut s, mut n) = (start, 0u64);
                while s > lower && s < upper {
                    s += if rng.random::<f64>() < truth {
                        win
                    } else {
                        loss
                    };
                    n += 1;
                }
                sum += n as f64;
                squares += (n * n) as f64;
            }
            let mean_n = sum / runs as f64;
            let error = (squares / runs as f64 - mean_n * mean_n).sqrt() / (runs as f64).sqrt();
            let mu = truth * win + (1.0 - truth) * loss;
            let variance = truth * win * win + (1.0 - truth) * loss * loss - mu * mu;
            let predicted = expected_exit(upper - start, start - lower, mu, variance);
            let overshoot = if mu.abs() > 1e-12 {
                win / mu.abs()
            } else {
                win * (upper - lower) / variance
            };
            let tolerance = 2.0 * overshoot + 4.0 * error;
            assert!(
                (mean_n - predicted).abs() <= tolerance,
                "p = {truth}, from {start}: simulated {mean_n:.1} ± {error:.1}, predicted {predicted:.1}, tolerance {tolerance:.1}"
            );
        }
        // The limits: no spread, a walk straight to the nearer bound in its direction.
        assert_eq!(expected_exit(2.0, 1.0, 0.5, 0.0), 4.0);
        assert_eq!(expected_exit(2.0, 1.0, -0.5, 0.0), 2.0);
        assert!(expected_exit(2.0, 1.0, 0.0, 0.0).is_infinite());
    }

    /// The per-pair drift is the LLR over the pairs, and its variance that of the increments
    /// weighed by the observed frequencies, recomputed here from two LLRs: adding one pair of
    /// outcome k to N pairs moves N·mean by about the increment of k.
    #[test]
    fn the_pair_drift_is_the_llr_per_pair() {
        let t = normalised(0.0, 10.0);
        let counts = Pentanomial([30, 200, 500, 230, 40]);
        let (mean, variance) = t.pair_drift(&counts).unwrap();
        let n = counts.pairs() as f64;
        let llr = t.llr_pentanomial(&counts);
        assert!((mean - llr / n).abs() < 1e-12, "{mean} vs {}", llr / n);
        // The increments at these frequencies: the fitted q0, q1 move little when a pair is
        // added to 1000, so the LLR's change is nearly the increment of that outcome.
        let steps: Vec<f64> = (0..5)
            .map(|k| {
                let mut more = counts;
                more.0[k] += 1;
                t.llr_pentanomial(&more) - llr
            })
            .collect();
        let p: Vec<f64> = counts.0.iter().map(|&c| c as f64 / n).collect();
        let m: f64 = (0..5).map(|k| p[k] * steps[k]).sum();
        let v: f64 = (0..5).map(|k| p[k] * (steps[k] - m).powi(2)).sum();
        assert!((v - variance).abs() < 0.05 * variance, "{v} vs {variance}");
        assert!(t.pair_drift(&Pentanomial::default()).is_none());
    }

    #[test]
    fn the_constrained_distribution_has_the_asked_mean() {
        let p = [0.1, 0.2, 0.4, 0.2, 0.1];
        let q = mle_with_mean(&p, &PAIR_SCORES, 0.55).unwrap();
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

    #[test]
    fn normalised_pooled_differences_keep_alpha_and_beta() {
        // The same pooled runs (30% draws) with bounds in normalised Elo: the truth is the
        // candidate's head-to-head nElo over the incumbent, 0 or `nelo1`.
        let (nelo0, nelo1) = (0.0, 30.0);
        let test = normalised(nelo0, nelo1);
        let truth = |nelo: f64| crate::stats::elo(score_of_nelo(nelo, 0.3));
        let runs = 1000;
        let fp = (0..runs)
            .filter(|&i| simulate_pooled(&test, truth(nelo0), 30_000 + i) == Decision::H1)
            .count() as f64
            / runs as f64;
        let fneg = (0..runs)
            .filter(|&i| simulate_pooled(&test, truth(nelo1), 80_000 + i) == Decision::H0)
            .count() as f64
            / runs as f64;
        println!(
            "pooled SPRT [{nelo0}, {nelo1}] nElo: false positives {fp}, false negatives {fneg}"
        );
        // Two standard errors of sampling: sqrt(0.05 * 0.95 / 1000) ≈ 0.007.
        assert!(fp <= 0.05 + 0.014, "false-positive rate {fp}");
        assert!(fneg <= 0.05 + 0.014, "false-negative rate {fneg}");
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

    /// fishtest's `server/fishtest/stats/LLRcalc.py` (official-stockfish/fishtest at
    /// b8eecff2), rewritten for these tests apart from the code above: distributions as lists
    /// of (score, probability), the secular equation solved by bisection (fishtest: scipy's
    /// Brent's method), and `MLE_t_value` with fishtest's own stopping rule (at most 10
    /// iterations, until no probability moves by 10⁻⁹), which can stop a little short of the
    /// fixed point for wide bounds (3·10⁻⁶ of the LLR at worst on the grid below).
    mod fishtest {
        use std::f64::consts::LN_10;

        type Pdf = Vec<(f64, f64)>;

        /// The root of `Σ p_i a_i / (1 + x a_i) = 0` between `-1/max a` and `-1/min a`.
        fn secular(pdf: &[(f64, f64)]) -> f64 {
            let v = pdf.iter().map(|&(a, _)| a).fold(f64::INFINITY, f64::min);
            let w = pdf
                .iter()
                .map(|&(a, _)| a)
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(v * w < 0.0, "the support must straddle zero: {pdf:?}");
            let f = |x: f64| pdf.iter().map(|&(a, p)| p * a / (1.0 + x * a)).sum::<f64>();
            let (mut lo, mut hi) = (-1.0 / w + 1e-9, -1.0 / v - 1e-9);
            assert!(f(lo) > 0.0 && f(hi) < 0.0);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if f(mid) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            0.5 * (lo + hi)
        }

        /// Mean and variance.
        fn stats(pdf: &[(f64, f64)]) -> (f64, f64) {
            let total: f64 = pdf.iter().map(|&(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-3);
            let s: f64 = pdf.iter().map(|&(a, p)| p * a).sum();
            (s, pdf.iter().map(|&(a, p)| p * (a - s).powi(2)).sum())
        }

        /// `MLE_expected`: the likeliest distribution with mean `s`.
        fn mle_expected(pdfhat: &[(f64, f64)], s: f64) -> Pdf {
            let shifted: Pdf = pdfhat.iter().map(|&(a, p)| (a - s, p)).collect();
            let x = secular(&shifted);
            let mle: Pdf = pdfhat
                .iter()
                .map(|&(a, p)| (a, p / (1.0 + x * (a - s))))
                .collect();
            assert!((stats(&mle).0 - s).abs() < 1e-6);
            mle
        }

        /// `MLE_t_value`: the likeliest distribution with `(μ - reference) / σ = t`.
        fn mle_t_value(pdfhat: &[(f64, f64)], reference: f64, t: f64) -> Pdf {
            let n = pdfhat.len() as f64;
            let mut mle: Pdf = pdfhat.iter().map(|&(a, _)| (a, 1.0 / n)).collect();
            for _ in 0..10 {
                let (mu, var) = stats(&mle);
                let sigma = var.sqrt();
                let phi: Pdf = pdfhat
                    .iter()
                    .map(|&(a, p)| {
                        let term = t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0;
                        (a - reference - term, p)
                    })
                    .collect();
                let x = secular(&phi);
                let next: Pdf = pdfhat
                    .iter()
                    .zip(&phi)
                    .map(|(&(a, p), &(f, _))| (a, p / (1.0 + x * f)))
                    .collect();
                let moved = (mle.iter().zip(&next))
                    .map(|(u, v)| (u.1 - v.1).abs())
                    .fold(0.0, f64::max);
                mle = next;
                if moved < 1e-9 {
                    break;
                }
            }
            let (mu, var) = stats(&mle);
            assert!((t - (mu - reference) / var.sqrt()).abs() < 1e-5);
            mle
        }

        /// `results_to_pdf`, zero counts regularised to 10⁻³: (N, distribution).
        fn results_to_pdf(results: &[u64]) -> (f64, Pdf) {
            let results: Vec<f64> = (results.iter())
                .map(|&r| if r == 0 { 1e-3 } else { r as f64 })
                .collect();
            let n: f64 = results.iter().sum();
            let last = (results.len() - 1) as f64;
            let pdf = (results.iter().enumerate())
                .map(|(i, r)| (i as f64 / last, r / n))
                .collect();
            (n, pdf)
        }

        /// `N Σ p_i ln(pdf1_i / pdf0_i)`.
        fn llr(n: f64, pdf: &[(f64, f64)], pdf0: &[(f64, f64)], pdf1: &[(f64, f64)]) -> f64 {
            let jumps = (pdf.iter().zip(pdf0.iter().zip(pdf1)))
                .map(|(&(_, p), (&(_, p0), &(_, p1)))| p * (p1.ln() - p0.ln()));
            n * jumps.sum::<f64>()
        }

        /// `LLR_logistic(elo0, elo1, results)`, results `[L, D, W]` or pentanomial.
        pub fn llr_logistic(elo0: f64, elo1: f64, results: &[u64]) -> f64 {
            let logistic = |elo: f64| 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
            let (n, pdf) = results_to_pdf(results);
            let pdf0 = mle_expected(&pdf, logistic(elo0));
            let pdf1 = mle_expected(&pdf, logistic(elo1));
            llr(n, &pdf, &pdf0, &pdf1)
        }

        /// `LLR_normalized(nelo0, nelo1, results)`: t-values `nelo / (800 / ln 10)`, times √2
        /// for pentanomial results.
        pub fn llr_normalized(nelo0: f64, nelo1: f64, results: &[u64]) -> f64 {
            let nelo_divided_by_nt = 800.0 / LN_10;
            let unit = match results.len() {
                3 => 1.0,
                5 => 2f64.sqrt(),
                len => panic!("{len} results"),
            };
            let (t0, t1) = (
                nelo0 / nelo_divided_by_nt * unit,
                nelo1 / nelo_divided_by_nt * unit,
            );
            let (n, pdf) = results_to_pdf(results);
            let pdf0 = mle_t_value(&pdf, 0.5, t0);
            let pdf1 = mle_t_value(&pdf, 0.5, t1);
            llr(n, &pdf, &pdf0, &pdf1)
        }
    }

    /// fishtest's own figures: `LLR_normalized` and `LLR_logistic` of `LLRcalc.py` (b8eecff2),
    /// run by Python on these counts (`[L, D, W]` or pentanomial) and bounds, with a bisection
    /// to full precision standing in for scipy's `brentq`.
    const FISHTEST_FIGURES: [(f64, f64, &[u64], f64, f64); 9] = [
        (
            0.764,
            3.439,
            &[39, 2226, 31451, 2412, 40],
            2.1629408695841628,
            -27.865237341030568,
        ),
        (
            0.0,
            5.0,
            &[400, 2300, 5000, 2500, 450],
            4.752676461260144,
            5.486770861867771,
        ),
        (
            0.0,
            10.0,
            &[0, 12, 150, 30, 2],
            1.6638641718753122,
            3.979770720634002,
        ),
        (
            -10.0,
            10.0,
            &[200, 700, 1000, 800, 300],
            22.63152500164311,
            29.619798648743096,
        ),
        (
            0.0,
            2.0,
            &[1200, 9000, 21000, 9500, 1400],
            7.449582279718388,
            11.034706776915286,
        ),
        (
            0.0,
            5.0,
            &[2900, 4200, 3400],
            8.202695033851032,
            10.18388733107303,
        ),
        (
            0.0,
            40.0,
            &[0, 5, 40],
            4.586581989874454,
            4.8830865600660935,
        ),
        (
            -100.0,
            100.0,
            &[4000, 1000, 4300],
            180.50374542471715,
            192.74250775127263,
        ),
        (
            -5.0,
            0.0,
            &[1000, 8000, 1100],
            4.2016799007537315,
            11.919483714696442,
        ),
    ];

    /// joute's LLR of `[L, D, W]` or pentanomial counts.
    fn joute_llr(test: &Sprt, counts: &[u64]) -> f64 {
        match *counts {
            [losses, draws, wins] => test.llr_trinomial(&Trinomial {
                wins,
                draws,
                losses,
            }),
            [a, b, c, d, e] => test.llr_pentanomial(&Pentanomial([a, b, c, d, e])),
            _ => panic!("{} counts", counts.len()),
        }
    }

    fn logistic(elo0: f64, elo1: f64) -> Sprt {
        Sprt {
            model: EloModel::Logistic,
            ..normalised(elo0, elo1)
        }
    }

    #[test]
    fn the_reference_and_joute_give_fishtests_own_figures() {
        for (elo0, elo1, counts, normalized, logistic_llr) in FISHTEST_FIGURES {
            let reference = fishtest::llr_normalized(elo0, elo1, counts);
            let ours = joute_llr(&normalised(elo0, elo1), counts);
            eprintln!(
                "{counts:?} [{elo0}, {elo1}] nElo: fishtest {normalized:.6}, reference \
                 {reference:.6}, joute {ours:.6}"
            );
            assert!((reference - normalized).abs() < 1e-9 * normalized.abs());
            assert!((ours - normalized).abs() < 1e-7 * normalized.abs());
            let reference = fishtest::llr_logistic(elo0, elo1, counts);
            let ours = joute_llr(&logistic(elo0, elo1), counts);
            assert!((reference - logistic_llr).abs() < 1e-9 * logistic_llr.abs());
            assert!((ours - logistic_llr).abs() < 1e-9 * logistic_llr.abs());
        }
    }

    /// W/D/L frequencies `[L, D, W]` of games of normalised Elo `nelo` with a fraction `draw`
    /// of draws.
    fn game_frequencies(nelo: f64, draw: f64) -> [f64; 3] {
        let e = score_of_nelo(nelo, draw);
        [1.0 - e - draw / 2.0, draw, e - draw / 2.0]
    }

    /// The pentanomial frequencies of two independent games of distribution `g` (`[L, D, W]`).
    fn pairs_of(g: [f64; 3]) -> [f64; 5] {
        let mut pairs = [0.0; 5];
        for i in 0..3 {
            for j in 0..3 {
                pairs[i + j] += g[i] * g[j];
            }
        }
        pairs
    }

    /// Pentanomial frequencies whose normalised Elo (`(μ - ½) / sqrt(2 σ²) · 800 / ln 10`) is
    /// `nelo`: a fraction `decided` of the pairs are one win and one loss (an opening whose
    /// colours decide the games), the others two independent games with a fraction `draw` of
    /// draws and the expected score found by bisection.
    fn pentanomial_frequencies(nelo: f64, draw: f64, decided: f64) -> [f64; 5] {
        let at = |e: f64| {
            let mut f = pairs_of([1.0 - e - draw / 2.0, draw, e - draw / 2.0]);
            for x in &mut f {
                *x *= 1.0 - decided;
            }
            f[2] += decided;
            f
        };
        let nelo_of = |f: [f64; 5]| {
            let mu: f64 = (0..5).map(|k| f[k] * k as f64 / 4.0).sum();
            let var: f64 = (0..5).map(|k| f[k] * (k as f64 / 4.0 - mu).powi(2)).sum();
            (mu - 0.5) / (2.0 * var).sqrt() * 800.0 / LN_10
        };
        let (mut lo, mut hi) = (draw / 2.0, 1.0 - draw / 2.0);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if nelo_of(at(mid)) < nelo {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        at(0.5 * (lo + hi))
    }

    /// Frequencies times `n`, rounded.
    fn counts_of<const N: usize>(f: [f64; N], n: f64) -> [u64; N] {
        f.map(|x| (x * n).round() as u64)
    }

    /// The observed normalised Elo of `[L, D, W]` or pentanomial counts.
    fn observed_nelo(counts: &[u64]) -> f64 {
        let n: u64 = counts.iter().sum();
        let last = (counts.len() - 1) as f64;
        let p = |k: usize| counts[k] as f64 / n as f64;
        let mu: f64 = (0..counts.len()).map(|k| p(k) * k as f64 / last).sum();
        let var: f64 = (0..counts.len())
            .map(|k| p(k) * (k as f64 / last - mu).powi(2))
            .sum();
        let games = if counts.len() == 5 { 2.0 } else { 1.0 };
        (mu - 0.5) / (games * var).sqrt() * 800.0 / LN_10
    }

    /// The count sets of the comparisons with fishtest, with the normalised Elo and draw rate
    /// they were made from: W/D/L and pentanomial counts (pairs of independent games, and with
    /// half the pairs decided by the opening) of observed normalised Elo -100 to 100, draw
    /// rates 5% to 60%, 400 and 40,000 games or pairs; then a few with outcomes never seen.
    fn count_grid() -> Vec<(f64, f64, Vec<u64>)> {
        let mut grid = Vec::new();
        for nelo in [
            -100.0, -60.0, -30.0, -10.0, -3.0, 0.0, 3.0, 10.0, 30.0, 60.0, 100.0,
        ] {
            for draw in [0.05, 0.2, 0.4, 0.6] {
                for n in [400.0, 40_000.0] {
                    let games = counts_of(game_frequencies(nelo, draw), n);
                    grid.push((nelo, draw, games.to_vec()));
                    for decided in [0.0, 0.5] {
                        let pairs = counts_of(pentanomial_frequencies(nelo, draw, decided), n);
                        grid.push((nelo, draw, pairs.to_vec()));
                    }
                }
            }
        }
        // Outcomes never seen, replaced by 10⁻³.
        for counts in [
            vec![0, 12, 150, 30, 2],
            vec![3, 0, 80, 0, 1],
            vec![0, 5, 40],
        ] {
            grid.push((observed_nelo(&counts), f64::NAN, counts));
        }
        grid
    }

    const GRID_BOUNDS: [(f64, f64); 7] = [
        (0.0, 2.0),
        (0.0, 5.0),
        (-5.0, 0.0),
        (-10.0, 10.0),
        (0.0, 40.0),
        (20.0, 80.0),
        (-100.0, 100.0),
    ];

    #[test]
    fn normalised_llr_equals_fishtests_llr_normalized() {
        let mut worst = (0.0, String::new());
        for (nelo, draw, counts) in count_grid() {
            for (elo0, elo1) in GRID_BOUNDS {
                let ours = joute_llr(&normalised(elo0, elo1), &counts);
                let theirs = fishtest::llr_normalized(elo0, elo1, &counts);
                let case = format!(
                    "{counts:?} (observed {:.1} nElo), [{elo0}, {elo1}]: joute {ours:.6}, \
                     fishtest {theirs:.6}",
                    observed_nelo(&counts)
                );
                let shown = [-100.0, -10.0, 0.0, 10.0, 100.0].contains(&nelo)
                    && draw == 0.2
                    && counts.iter().sum::<u64>() == 40_000
                    && ((elo0, elo1) == (0.0, 5.0) || (elo0, elo1) == (-100.0, 100.0));
                if shown {
                    eprintln!("{case}");
                }
                let error = (ours - theirs).abs();
                assert!(error <= 1e-3 * theirs.abs() + 1e-6, "{case}");
                let relative = error / theirs.abs().max(1e-3);
                if relative > worst.0 {
                    worst = (relative, case);
                }
            }
        }
        eprintln!("largest relative difference {:.2e}: {}", worst.0, worst.1);
    }

    #[test]
    fn logistic_llr_equals_fishtests_llr_logistic() {
        for (_, _, counts) in count_grid() {
            for (elo0, elo1) in GRID_BOUNDS {
                let ours = joute_llr(&logistic(elo0, elo1), &counts);
                let theirs = fishtest::llr_logistic(elo0, elo1, &counts);
                assert!(
                    (ours - theirs).abs() <= 1e-6 * theirs.abs() + 1e-6,
                    "{counts:?} [{elo0}, {elo1}]: {ours} vs {theirs}"
                );
            }
        }
    }

    /// `max Σ p_k ln(q_k / p_k)` over the distributions `q` on `scores` with mean `m` and
    /// variance `v`: `-max_λ Σ p_k ln(1 + λ·g_k)`, `g_k = (a_k - m, (a_k - m)² - v)` (the dual
    /// of the two moment constraints), by damped Newton steps on λ. -∞ when the dual is
    /// unbounded (no such distribution).
    fn moment_loglik(p: &[f64], scores: &[f64], m: f64, v: f64) -> f64 {
        let g: Vec<[f64; 2]> = scores
            .iter()
            .map(|a| [a - m, (a - m).powi(2) - v])
            .collect();
        let dual = |l: [f64; 2]| -> Option<f64> {
            let mut sum = 0.0;
            for (pk, gk) in p.iter().zip(&g) {
                let d = 1.0 + l[0] * gk[0] + l[1] * gk[1];
                if d <= 0.0 {
                    return None;
                }
                sum += pk * d.ln();
            }
            Some(sum)
        };
        let mut l = [0.0, 0.0];
        let mut value = 0.0;
        for _ in 0..200 {
            let (mut grad, mut hess) = ([0.0; 2], [[0.0; 2]; 2]);
            for (pk, gk) in p.iter().zip(&g) {
                let d = 1.0 + l[0] * gk[0] + l[1] * gk[1];
                for i in 0..2 {
                    grad[i] += pk * gk[i] / d;
                    for j in 0..2 {
                        hess[i][j] -= pk * gk[i] * gk[j] / (d * d);
                    }
                }
            }
            let det = hess[0][0] * hess[1][1] - hess[0][1] * hess[1][0];
            let step = [
                -(hess[1][1] * grad[0] - hess[0][1] * grad[1]) / det,
                -(hess[0][0] * grad[1] - hess[1][0] * grad[0]) / det,
            ];
            if (grad[0] * step[0] + grad[1] * step[1]).abs() < 1e-24 {
                break;
            }
            let mut scale = 1.0;
            loop {
                let next = [l[0] + scale * step[0], l[1] + scale * step[1]];
                if let Some(next_value) = dual(next).filter(|&x| x >= value) {
                    (l, value) = (next, next_value);
                    break;
                }
                scale /= 2.0;
                if scale < 1e-12 {
                    return -value;
                }
            }
            if value > 30.0 {
                return f64::NEG_INFINITY;
            }
        }
        -value
    }

    /// The largest `Σ p_k ln(q_k / p_k)` of a distribution on `scores` with t-value
    /// `(μ - ½) / σ = t`: [`moment_loglik`] at mean `½ + tσ` and variance `σ²`, maximised over
    /// σ (a scan, then golden sections around its best point).
    fn profile_loglik(p: &[f64], scores: &[f64], t: f64) -> f64 {
        let at = |sigma: f64| moment_loglik(p, scores, 0.5 + t * sigma, sigma * sigma);
        let cell = 0.5 / 200.0;
        let best = (1..200)
            .map(|i| (i as f64 * cell, at(i as f64 * cell)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap()
            .0;
        let (mut lo, mut hi) = (best - cell, best + cell);
        let golden = (5f64.sqrt() - 1.0) / 2.0;
        for _ in 0..60 {
            let (x, y) = (hi - golden * (hi - lo), lo + golden * (hi - lo));
            if at(x) < at(y) {
                lo = x;
            } else {
                hi = y;
            }
        }
        at(0.5 * (lo + hi))
    }

    /// The fixed point checked against a maximisation that knows nothing of it: the fitted
    /// distribution sums to 1, has the asked t-value, and is as likely as the likeliest
    /// distribution of that t-value found by the profile over σ.
    fn check_t_value_fit<const N: usize>(counts: [u64; N], scores: &[f64; N]) {
        let c = counts.map(|c| if c == 0 { 1e-3 } else { c as f64 });
        let total: f64 = c.iter().sum();
        let p = c.map(|c| c / total);
        for nelo in [-150.0, -60.0, -10.0, 0.0, 3.0, 25.0, 100.0] {
            let t = nelo / (800.0 / LN_10);
            let q = mle_with_t_value(&p, scores, t).unwrap();
            let sum: f64 = q.iter().sum();
            let mu: f64 = (0..N).map(|k| q[k] * scores[k]).sum();
            let sigma = (0..N)
                .map(|k| q[k] * (scores[k] - mu).powi(2))
                .sum::<f64>()
                .sqrt();
            let fitted: f64 = (0..N).map(|k| p[k] * (q[k] / p[k]).ln()).sum();
            let profile = profile_loglik(&p, scores, t);
            assert!((sum - 1.0).abs() < 1e-12, "{sum}");
            assert!(((mu - 0.5) / sigma - t).abs() < 1e-10, "{counts:?} t {t}");
            assert!(
                (fitted - profile).abs() < 1e-10,
                "{counts:?} t {t}: fixed point {fitted}, profile {profile}"
            );
        }
    }

    #[test]
    fn the_t_value_fit_is_the_constrained_maximum_likelihood() {
        check_t_value_fit([2900, 4200, 3400], &GAME_SCORES);
        check_t_value_fit([300, 5000, 900], &GAME_SCORES);
        check_t_value_fit([400, 2300, 5000, 2500, 450], &PAIR_SCORES);
        check_t_value_fit([0, 12, 150, 30, 2], &PAIR_SCORES);
        check_t_value_fit([39, 2226, 31451, 2412, 40], &PAIR_SCORES);
        check_t_value_fit([1, 9, 40, 120, 300, 130, 50, 8, 2], &DIFFERENCE_SCORES);
    }

    /// The frequencies of the paired differences `i/8` when the candidate scores `e` per game
    /// and the incumbent ½ against the pool, all games independent with a fraction `draw` of
    /// draws.
    fn difference_frequencies(e: f64, draw: f64) -> [f64; 9] {
        let candidate = pairs_of([1.0 - e - draw / 2.0, draw, e - draw / 2.0]);
        let incumbent = pairs_of([0.5 - draw / 2.0, draw, 0.5 - draw / 2.0]);
        let mut d = [0.0; 9];
        for (i, c) in candidate.iter().enumerate() {
            for (j, b) in incumbent.iter().enumerate() {
                d[i + 4 - j] += c * b;
            }
        }
        d
    }

    #[test]
    fn normalised_pair_differences_measure_the_head_to_head_nelo() {
        // The candidate is `nelo` above the incumbent head to head (the incumbent is the pool's
        // strength): on the expected counts, the test's LLR is about 0 between bounds
        // symmetric around `nelo`, whatever the draw rate, and clearly positive between
        // `nelo - 5` and `nelo`.
        for draw in [0.1, 0.3, 0.6] {
            for nelo in [4.0, 10.0] {
                let e = score_of_nelo(nelo, draw);
                let counts = counts_of(difference_frequencies(e, draw), 100_000.0);
                let around = normalised(nelo - 5.0, nelo + 5.0).llr_pair_differences(&counts);
                let below = normalised(nelo - 5.0, nelo).llr_pair_differences(&counts);
                eprintln!(
                    "pooled differences, {draw} draws, {nelo} nElo: LLR {around:.3} for [{}, {}], \
                     {below:.3} for [{}, {nelo}]",
                    nelo - 5.0,
                    nelo + 5.0,
                    nelo - 5.0
                );
                assert!(below > 5.0, "{below}");
                assert!(around.abs() < 0.03 * below, "{around} vs {below}");
            }
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
        let (mut lo, mut hi) = (draw / 2.0, 1.0 - draw / 2.0);
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
        let mut game = || crate::stats::simulated_result(rng.random_range(0.0..1.0), e, draw);
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

    /// Normalised runs pair by pair: joute's test stops at the same pair with the same decision
    /// as fishtest's `LLR_normalized` would (the old mean-constrained LLR stopped at another pair
    /// in three of four real runs).
    #[test]
    fn normalised_runs_stop_at_the_pair_fishtest_stops_at() {
        let test = normalised(0.0, 40.0);
        let mut rng = ChaCha8Rng::seed_from_u64(77);
        let mut stops = Vec::new();
        for run in 0..60 {
            let draw = [0.1, 0.3, 0.6][run % 3];
            // Truths at H0, the midpoint and H1.
            let e = score_of_nelo([0.0, 20.0, 40.0][run / 3 % 3], draw);
            let mut game = || crate::stats::simulated_result(rng.random_range(0.0..1.0), e, draw);
            let mut counts = Pentanomial::default();
            let (mut ours, mut theirs) = (None, None);
            for pair in 1..=20_000u64 {
                let (a, b) = (game(), game());
                counts.add_pair(a, b);
                let ours_now = test.decide(test.llr_pentanomial(&counts));
                let theirs_now = test.decide(fishtest::llr_normalized(0.0, 40.0, &counts.0));
                if ours.is_none() && ours_now != Decision::Continue {
                    ours = Some((pair, ours_now));
                }
                if theirs.is_none() && theirs_now != Decision::Continue {
                    theirs = Some((pair, theirs_now));
                }
                if ours.is_some() && theirs.is_some() {
                    break;
                }
            }
            assert_eq!(
                ours, theirs,
                "run {run}: joute {ours:?}, fishtest {theirs:?}"
            );
            stops.push(ours.map_or(0, |(pair, _)| pair));
        }
        eprintln!("normalised runs stopped where fishtest stops, at pairs {stops:?}");
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

    #[test]
    fn every_sprt_form_parses_to_its_test() {
        let t = Sprt::parse("elo0=-1.5,elo1=4,alpha=0.1,beta=0.2,model=normalised").unwrap();
        assert_eq!(
            (t.elo0, t.elo1, t.alpha, t.beta, t.model),
            (-1.5, 4.0, 0.1, 0.2, EloModel::Normalized)
        );
        assert_eq!(Sprt::parse("0,10").unwrap().model, EloModel::Logistic);
        assert_eq!(
            Sprt::parse("0,10,normalized").unwrap().model,
            EloModel::Normalized
        );
        for bad in [
            "",
            ",",
            "0,",
            "1,1",
            "elo1=1",
            "elo0=0,elo1=1,alpha=",
            "x=1",
        ] {
            assert!(Sprt::parse(bad).is_err(), "{bad}");
        }
    }
}

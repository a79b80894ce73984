//! The statistics layer: pure arithmetic on game results, with no dependency on the other
//! layers. The formulas are documented in `docs/statistics.md`.
//!
//! - [`elo`] and [`score`]: the logistic Elo scale.
//! - [`summary`]: head-to-head summaries from W/D/L (trinomial) and from opening pairs
//!   (pentanomial): score, Elo with its 95% interval, normalised Elo, LOS.
//! - [`sprt`]: the generalised sequential probability ratio test on pentanomial or trinomial
//!   counts, with bounds in logistic or normalised Elo.
//! - [`sequential`]: that test followed over a run whose games finish out of order, deciding on
//!   the prefix of opening pairs in pair order so that the outcome is reproducible.
//! - [`cost`]: what engines paid for their moves — nodes, depth, time, CPU — and the frontier
//!   of strength against cost.
//! - [`ratings`]: maximum-likelihood Elo of many engines jointly (Bradley–Terry), with error bars
//!   from the likelihood's curvature corrected by the spread of the results clustered by opening
//!   pair, and a LOS matrix.

pub mod cost;
pub mod ratings;
pub mod sequential;
pub mod sprt;
pub mod summary;

/// The two-sided 95% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The logistic Elo difference of a score `s` in (0, 1): `-400 log10(1/s - 1)`.
pub fn elo(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The expected score of an Elo difference `e`: `1 / (1 + 10^(-e/400))`.
pub fn score(e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-e / 400.0))
}

/// The result (1, ½ or 0) that a uniform draw `u` in [0, 1) gives a game of expected score
/// `expected` with a fraction `draw` of draws, capped near 0 and 1 so that the chances of a win
/// and of a loss stay non-negative: the draws take an equal share from each side's chances, so
/// the expected score stays `expected`. What simulated games are made of.
pub fn simulated_result(u: f64, expected: f64, draw: f64) -> f64 {
    let draw = draw.min(2.0 * expected.min(1.0 - expected));
    if u < expected - draw / 2.0 {
        1.0
    } else if u < expected + draw / 2.0 {
        0.5
    } else {
        0.0
    }
}

/// The standard normal cumulative distribution function Φ.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Student's t cumulative distribution function with `df` degrees of freedom (`df` may be
/// fractional; an infinite `df` is the normal's): `1 - ½ I_{df/(df+t²)}(df/2, ½)` for `t ≥ 0`.
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    if !df.is_finite() {
        return normal_cdf(t);
    }
    let tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
    if t >= 0.0 { 1.0 - tail } else { tail }
}

/// The `p` quantile of Student's t with `df` degrees of freedom, by bisection on
/// [`student_t_cdf`] to 1e-12.
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    if p == 0.5 {
        return 0.0;
    }
    let (mut lo, mut hi) = (-1e7, 1e7);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if student_t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 * mid.abs().max(1.0) {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// `ln Γ(x)` for `x > 0` (Lanczos' approximation, g = 7, 9 terms; about 15 digits).
fn ln_gamma(x: f64) -> f64 {
    #[allow(clippy::excessive_precision)] // The published coefficients, digit for digit.
    const G: [f64; 9] = [
        0.999_999_999_999_809_93,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_13,
        -176.615_029_162_140_59,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_571_6e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 - x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised incomplete beta function `I_x(a, b)`, by its continued fraction (modified
/// Lentz), on the side where it converges fast.
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - incomplete_beta(1.0 - x, b, a);
    }
    const TINY: f64 = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut f = d;
    for m in 1..500 {
        let m = m as f64;
        for numerator in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + numerator * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + numerator / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            f *= c * d;
        }
        if (c * d - 1.0).abs() < 1e-15 {
            break;
        }
    }
    front * f / a
}

/// The complementary error function, to about 1e-15 relative accuracy (a Chebyshev fit,
/// Numerical Recipes' `erfccheb`, for x ≥ 0, mirrored for x < 0).
pub fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    #[allow(clippy::excessive_precision)] // The published coefficients, digit for digit.
    const COF: [f64; 28] = [
        -1.3026537197817094,
        6.4196979235649026e-1,
        1.9476473204185836e-2,
        -9.561514786808631e-3,
        -9.46595344482036e-4,
        3.66839497852761e-4,
        4.2523324806907e-5,
        -2.0278578112534e-5,
        -1.624290004647e-6,
        1.303655835580e-6,
        1.5626441722e-8,
        -8.5238095915e-8,
        6.529054439e-9,
        5.059343495e-9,
        -9.91364156e-10,
        -2.27365122e-10,
        9.6467911e-11,
        2.394038e-12,
        -6.886027e-12,
        8.94487e-13,
        3.13092e-13,
        -1.12708e-13,
        3.81e-16,
        7.106e-15,
        -1.523e-15,
        -9.4e-17,
        1.21e-16,
        -2.8e-17,
    ];
    let t = 2.0 / (2.0 + x);
    let ty = 4.0 * t - 2.0;
    let (mut d, mut dd) = (0.0, 0.0);
    for &c in COF[1..].iter().rev() {
        let tmp = d;
        d = ty * d - dd + c;
        dd = tmp;
    }
    t * (-x * x + 0.5 * (COF[0] + ty * d) - dd).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_score_are_inverse() {
        for e in [-800.0, -100.0, -1.0, 0.0, 35.5, 400.0] {
            assert!((elo(score(e)) - e).abs() < 1e-9);
        }
        assert!((score(400.0) - 10.0 / 11.0).abs() < 1e-12);
        assert_eq!(elo(0.5), 0.0);
    }

    #[test]
    fn student_t_quantiles_match_the_tables() {
        // Two-sided 95% critical values from the standard tables.
        for (df, t) in [
            (1.0, 12.706_204_736),
            (2.0, 4.302_652_730),
            (3.0, 3.182_446_305),
            (7.0, 2.364_624_252),
            (30.0, 2.042_272_456),
            (500.0, 1.964_719_837),
        ] {
            let q = student_t_quantile(0.975, df);
            assert!((q - t).abs() < 1e-6 * t, "df {df}: {q} vs {t}");
        }
        assert!((student_t_quantile(0.975, f64::INFINITY) - Z95).abs() < 1e-9);
        // The CDF at 1 with 1 degree of freedom (Cauchy): ½ + atan(1)/π = ¾.
        assert!((student_t_cdf(1.0, 1.0) - 0.75).abs() < 1e-12);
        assert!((student_t_cdf(-1.0, 1.0) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn normal_cdf_matches_known_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-15);
        assert!((normal_cdf(Z95) - 0.975).abs() < 1e-12);
        assert!((normal_cdf(-1.0) - 0.158_655_253_931_457_05).abs() < 1e-13);
        assert!((normal_cdf(3.0) - 0.998_650_101_968_369_9).abs() < 1e-13);
        assert!(normal_cdf(-40.0) >= 0.0);
    }
}

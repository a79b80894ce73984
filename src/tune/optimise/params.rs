//! Tuned parameters: a value, its bounds, and the sizes an optimiser perturbs it by.

use serde::{Deserialize, Serialize};

/// One tuned parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// Name (a feature of the evaluator, for instance).
    pub name: String,
    /// The starting (or current) value.
    pub value: f64,
    /// Lower bound, inclusive.
    pub min: f64,
    /// Upper bound, inclusive.
    pub max: f64,
    /// The initial step of hill climbing, and SPSA's `c_end` when that is left out.
    pub step: f64,
    /// SPSA's perturbation at the last iteration; `step` when absent.
    #[serde(default)]
    pub c_end: Option<f64>,
    /// SPSA's learning rate at the last iteration; [`DEFAULT_R_END`] when absent.
    #[serde(default)]
    pub r_end: Option<f64>,
}

/// fishtest's customary `r_end`.
pub const DEFAULT_R_END: f64 = 0.002;

impl Param {
    /// A parameter with SPSA's `c_end` and `r_end` left to their defaults.
    pub fn new(name: impl Into<String>, value: f64, min: f64, max: f64, step: f64) -> Self {
        Param {
            name: name.into(),
            value,
            min,
            max,
            step,
            c_end: None,
            r_end: None,
        }
    }

    /// `x` brought within `[min, max]`.
    pub fn clamp(&self, x: f64) -> f64 {
        x.clamp(self.min, self.max)
    }

    /// `max - min`.
    pub fn range(&self) -> f64 {
        self.max - self.min
    }

    /// SPSA's `c_end`: the given one, else `step`.
    pub fn c_end(&self) -> f64 {
        self.c_end.unwrap_or(self.step)
    }

    /// SPSA's `r_end`: the given one, else [`DEFAULT_R_END`].
    pub fn r_end(&self) -> f64 {
        self.r_end.unwrap_or(DEFAULT_R_END)
    }
}

/// The values of `params`, clamped, as a weight vector.
pub fn values(params: &[Param]) -> Vec<f64> {
    params.iter().map(|p| p.clamp(p.value)).collect()
}

/// Clamps each entry of `theta` to the bounds of the matching parameter.
pub fn clamp_all(params: &[Param], theta: &mut [f64]) {
    debug_assert_eq!(params.len(), theta.len());
    for (x, p) in theta.iter_mut().zip(params) {
        *x = p.clamp(*x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamping_and_defaults() {
        let p = Param::new("a", 150.0, 0.0, 100.0, 5.0);
        assert_eq!(p.clamp(-3.0), 0.0);
        assert_eq!(p.clamp(42.0), 42.0);
        assert_eq!(values(std::slice::from_ref(&p)), vec![100.0]);
        assert_eq!(p.c_end(), 5.0);
        assert_eq!(p.r_end(), DEFAULT_R_END);
        let mut theta = vec![120.0, -1.0];
        clamp_all(&[p.clone(), p], &mut theta);
        assert_eq!(theta, vec![100.0, 0.0]);
    }
}

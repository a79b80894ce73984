//! The linear evaluator: Σ wᵢ·fᵢ over a game's features, in integers.

use std::marker::PhantomData;

use super::features::{Features, MAX_FEATURES};
use super::weights::Weights;
use super::{EVAL_LIMIT, Evaluator};

/// The most integer units per unit of weight: weights are kept to 1/16.
pub const MAX_SCALE: f64 = 16.0;

/// A linear evaluation Σ wᵢ·fᵢ of the features of `G`, from the side to move's point of view.
///
/// The weights are scaled to integers once, by [`LinearEval::scale`]: [`MAX_SCALE`], or less
/// when Σ |wᵢ|·Bᵢ·[`MAX_SCALE`] (Bᵢ the bound of feature i, [`Features::feature_bounds`]) would
/// pass [`EVAL_LIMIT`]. The bound is then Σ |round(wᵢ·scale)|·Bᵢ: the largest magnitude the sum
/// can take given the features' ranges (capped at [`EVAL_LIMIT`]; at least 1), and evaluations
/// are clamped to it. A constant positive scale does not change which move a search prefers.
#[derive(Clone, Debug)]
pub struct LinearEval<G> {
    weights: Vec<i32>,
    scale: f64,
    bound: i32,
    _game: PhantomData<fn() -> G>,
}

impl<G: Features> LinearEval<G> {
    /// The evaluator of `weights` for the game (variant) of `start`.
    ///
    /// # Panics
    /// When `weights.values` does not hold one value per feature of `start` ([`Weights::parse`]
    /// always returns such weights), or when a weight is not finite.
    pub fn new(start: &G, weights: &Weights) -> Self {
        let bounds = start.feature_bounds();
        let n = bounds.len();
        assert_eq!(
            weights.values.len(),
            n,
            "{} weights from {} for the {n} features of {}",
            weights.values.len(),
            weights.origin,
            start.name()
        );
        assert!(n <= MAX_FEATURES, "{n} features; at most {MAX_FEATURES}");
        assert!(
            weights.values.iter().all(|w| w.is_finite()),
            "non-finite weight in {}",
            weights.origin
        );
        let raw: f64 = weights
            .values
            .iter()
            .zip(&bounds)
            .map(|(w, &b)| w.abs() * b as f64)
            .sum();
        let scale = if raw * MAX_SCALE <= EVAL_LIMIT as f64 {
            MAX_SCALE
        } else {
            EVAL_LIMIT as f64 / raw
        };
        let int_weights: Vec<i32> = weights
            .values
            .iter()
            .map(|w| {
                (w * scale)
                    .round()
                    .clamp(-(EVAL_LIMIT as f64), EVAL_LIMIT as f64) as i32
            })
            .collect();
        let bound: i64 = int_weights
            .iter()
            .zip(&bounds)
            .map(|(&w, &b)| (w as i64).abs() * b as i64)
            .sum();
        LinearEval {
            weights: int_weights,
            scale,
            bound: bound.clamp(1, EVAL_LIMIT as i64) as i32,
            _game: PhantomData,
        }
    }

    /// Integer units per unit of weight.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The integer weights, in feature order.
    pub fn int_weights(&self) -> &[i32] {
        &self.weights
    }
}

impl<G: Features> Evaluator<G> for LinearEval<G> {
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        let n = self.weights.len();
        let mut values = [0i32; MAX_FEATURES];
        pos.feature_values(&mut values[..n]);
        let sum: i64 = self
            .weights
            .iter()
            .zip(&values[..n])
            .map(|(&w, &f)| w as i64 * f as i64)
            .sum();
        sum.clamp(-(self.bound as i64), self.bound as i64) as i32
    }

    fn bound(&self) -> i32 {
        self.bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hash::mix64;
    use crate::games::{Connect4, Game, Morpion, MoveList, Othello, RandomTree};

    /// Evaluates positions along random games, checking the bound.
    fn stays_within_bound<G: Features>(start: G, weights: &Weights, games: u64) -> usize {
        let eval = LinearEval::new(&start, weights);
        assert!(eval.bound() >= 1 && eval.bound() <= EVAL_LIMIT);
        let mut seen = 0;
        for seed in 0..games {
            let mut pos = start;
            let mut state = seed;
            loop {
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                let score = eval.evaluate(&pos);
                assert!(score.abs() <= eval.bound(), "{score} > {}", eval.bound());
                seen += 1;
                state = mix64(state);
                pos = pos.play(moves[(state % moves.len() as u64) as usize]);
            }
        }
        seen
    }

    fn random_weights<G: Features>(start: &G, seed: u64, magnitude: f64) -> Weights {
        let mut state = seed;
        let values = (0..start.features().len())
            .map(|_| {
                state = mix64(state);
                ((state % 2001) as f64 - 1000.0) / 1000.0 * magnitude
            })
            .collect();
        Weights {
            game: start.name(),
            values,
            origin: "random".into(),
        }
    }

    #[test]
    fn evaluations_stay_within_the_bound() {
        fn all<G: Features>(start: G) {
            stays_within_bound(start, &Weights::default_for(&start), 30);
            for (seed, magnitude) in [(1, 1.0), (2, 1e3), (3, 1e9), (4, 1e-3)] {
                stays_within_bound(start, &random_weights(&start, seed, magnitude), 10);
            }
        }
        all(Othello::start());
        all(Connect4::start());
        all(Morpion::start(3, 3, 3));
        all(Morpion::start(9, 9, 5));
        all(RandomTree::new(5, 6, 7));
    }

    #[test]
    fn single_feature_evaluations_are_exact_multiples() {
        let start = Othello::start();
        let w = Weights::parse(
            &start,
            include_str!("../../weights/othello-discs.toml"),
            "d",
        )
        .unwrap();
        let eval = LinearEval::new(&start, &w);
        assert_eq!(eval.scale(), MAX_SCALE);
        assert_eq!(eval.bound(), 64 * 16);
        let pos = start.play_sequence("f5").unwrap();
        assert_eq!(eval.evaluate(&pos), -3 * 16);

        let tree = RandomTree::new(3, 3, 1);
        let eval = LinearEval::new(&tree, &Weights::default_for(&tree));
        assert_eq!(eval.bound(), EVAL_LIMIT);
        let child = tree.play_sequence("1").unwrap();
        assert_eq!(eval.evaluate(&child), -child.value() * 4);
    }

    #[test]
    fn zero_weights_evaluate_to_zero() {
        let start = Connect4::start();
        let w = Weights::parse(&start, "game = \"connect4\"", "z").unwrap();
        let eval = LinearEval::new(&start, &w);
        assert_eq!(eval.bound(), 1);
        assert_eq!(eval.evaluate(&start.play_sequence("4455").unwrap()), 0);
    }
}

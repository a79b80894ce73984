//! Regression for Othello's pattern evaluation ([`crate::eval::pattern`]): tens of thousands
//! of weights per phase, which only a fit on many positions can set.
//!
//! **Model**: a position's evaluation is z = Σ w over its [`FEATURES_PER_POSITION`] lookups
//! (in its phase's block), in logits: σ(z) is the side to move's expected score. There is no
//! K to fit: the weights carry the scale (the evaluator turns them into integers, ×
//! [`crate::eval::pattern::SCALE`]).
//!
//! **Loss**: the mean cross-entropy of σ(z) against the labels (the side to move's result: 1,
//! ½ or 0), as [`super::regression`], plus a ridge (α/2N)·Σ (w − w₀)² towards the start
//! weights w₀ (N positions; zeros for a fit from nothing): each weight is pulled to its start
//! as if by α more positions that say nothing, so a configuration seen in few positions stays
//! near its start, one never seen keeps it, whatever N. Starting from earlier weights (a
//! generation fitted before) thus refines them by the new positions.
//!
//! **Overlapping phases**: with an overlap of E empty squares, a position also counts in the
//! neighbouring phases whose range of empty squares, widened by E on each side, holds its
//! own: many phases then share positions instead of each seeing only its slice.
//!
//! **Optimiser**: L-BFGS (10 pairs of memory) with a backtracking line search (Armijo), on
//! full passes over the positions. Hand-written: the gradient is a scatter over sparse lookups
//! that no optimisation crate's vector types express without copying a million-weight vector
//! per operation, and the method is forty lines.
//!
//! **Determinism**: the positions are grouped by phase and a phase's positions touch only its
//! own block of weights, so the passes run a phase per task and each block's sums are added in
//! position order: the same result bit for bit whatever the number of threads.

use std::path::Path;

use rayon::prelude::*;

use super::regression::{CollectOptions, Collector, sigmoid, softplus};
use super::search_labels::SearchScores;
use crate::arena::log::scan_log;
use crate::eval::pattern::{
    FEATURES_PER_POSITION, MAX_PHASES, PatternWeights, WEIGHTS_PER_PHASE, feature_indices,
};
use crate::games::Othello;

/// The default ridge α of the pattern fit, in positions (see the module documentation).
pub const DEFAULT_PATTERN_RIDGE: f64 = 16.0;

/// Labelled positions as their pattern lookups, grouped by phase.
#[derive(Clone, Debug, Default)]
pub struct PatternPositions {
    /// Per phase: the lookups of its positions, [`FEATURES_PER_POSITION`] each.
    indices: Vec<Vec<u32>>,
    /// Per phase: the labels.
    labels: Vec<Vec<f32>>,
    /// Empty squares by which each phase's range is widened on both sides.
    overlap: usize,
    /// Positions pushed (each once, whatever the phases it is in).
    distinct: usize,
}

impl PatternPositions {
    /// No positions, for `phases` phases.
    ///
    /// # Panics
    /// When `phases` is not in 1..=[`MAX_PHASES`].
    pub fn new(phases: usize) -> Self {
        assert!((1..=MAX_PHASES).contains(&phases), "{phases} phases");
        PatternPositions {
            indices: vec![Vec::new(); phases],
            labels: vec![Vec::new(); phases],
            overlap: 0,
            distinct: 0,
        }
    }

    /// No positions, for `phases` phases each of which also takes the positions within
    /// `overlap` empty squares of its range (see the module documentation).
    ///
    /// # Panics
    /// When `phases` is not in 1..=[`MAX_PHASES`].
    pub fn with_overlap(phases: usize, overlap: usize) -> Self {
        PatternPositions {
            overlap,
            ..PatternPositions::new(phases)
        }
    }

    /// The number of phases.
    pub fn phases(&self) -> usize {
        self.labels.len()
    }

    /// Adds `pos` with the side to move's result `label`: to its phase, and with an overlap
    /// to every phase within the overlap's empty squares.
    pub fn push(&mut self, pos: &Othello, label: f64) {
        let phases = self.phases();
        let mut out = [0u32; FEATURES_PER_POSITION];
        feature_indices(pos, &mut out);
        let empties = (!(pos.player | pos.opponent)).count_ones() as usize;
        let (fewest, most) = (
            empties.saturating_sub(self.overlap),
            (empties + self.overlap).min(60),
        );
        // Phases fall as the empty squares grow: the widened range spans a run of them.
        let first = phase_of_empties(most, phases);
        let last = phase_of_empties(fewest, phases);
        for phase in first..=last {
            self.indices[phase].extend_from_slice(&out);
            self.labels[phase].push(label as f32);
        }
        self.distinct += 1;
    }

    /// The number of positions pushed, each counted once.
    pub fn distinct(&self) -> usize {
        self.distinct
    }

    /// The number of positions, each counted once per phase it is in.
    pub fn len(&self) -> usize {
        self.labels.iter().map(Vec::len).sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Positions per phase.
    pub fn per_phase(&self) -> Vec<usize> {
        self.labels.iter().map(Vec::len).collect()
    }
}

/// The phase of a position with `empties` empty squares, as [`phase_of`] gives it.
fn phase_of_empties(empties: usize, phases: usize) -> usize {
    60usize.saturating_sub(empties).min(59) * phases / 60
}

/// The positions of the Othello games logs at `paths`, chosen and labelled as
/// [`super::regression::collect`] chooses them, as pattern lookups in `phases` phases (each
/// also taking the positions within `overlap` empty squares of its range). Also
/// the games read and skipped, and the positions labelled by the exact solver
/// ([`CollectOptions::exact_labels`]). With `scores` (one scores file's lines per path), the
/// positions the search labels are relabelled by their scores
/// ([`super::search_labels::SearchScores::relabel`]).
pub fn collect_patterns(
    paths: &[&Path],
    options: &CollectOptions,
    phases: usize,
    overlap: usize,
    scores: Option<&SearchScores>,
) -> Result<(PatternPositions, u64, u64, u64), String> {
    let mut collector = Collector::new(Othello::start(), options.clone());
    let mut data = PatternPositions::with_overlap(phases, overlap);
    for (log, path) in paths.iter().enumerate() {
        let mut index = 0;
        scan_log(path, |line| {
            let kept = collector.sample(&line)?;
            if let Some(scores) = scores {
                scores.relabel(
                    log,
                    index,
                    &line,
                    options.exact_labels,
                    collector.sampled_mut(),
                )?;
            }
            index += 1;
            for (pos, _, label) in collector.sampled() {
                data.push(pos, *label);
            }
            collector.count_game(kept);
            Ok(())
        })?;
    }
    let solved = collector.solved();
    let counted = collector.finish();
    Ok((data, counted.games, counted.skipped_games, solved))
}

/// How [`fit_patterns`] fits.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternFitOptions {
    /// The ridge α, in positions.
    pub ridge: f64,
    /// The most L-BFGS iterations.
    pub max_iterations: usize,
    /// Stop when an iteration lowers the objective by less than this, relatively.
    pub tolerance: f64,
}

impl Default for PatternFitOptions {
    fn default() -> Self {
        PatternFitOptions {
            ridge: DEFAULT_PATTERN_RIDGE,
            max_iterations: 300,
            tolerance: 1e-7,
        }
    }
}

/// What [`fit_patterns`] returns.
#[derive(Clone, Debug)]
pub struct PatternFit {
    /// The fitted weights.
    pub weights: PatternWeights,
    /// The mean cross-entropy at the start weights.
    pub start_loss: f64,
    /// The mean cross-entropy at the fitted weights.
    pub loss: f64,
    /// L-BFGS iterations.
    pub iterations: usize,
    /// Positions per phase (a position in several overlapping phases counts in each).
    pub per_phase: Vec<usize>,
    /// Positions, each counted once.
    pub positions: usize,
}

impl PatternFit {
    /// A line saying how the weights were made.
    pub fn summary(&self) -> String {
        let counted: usize = self.per_phase.iter().sum();
        format!(
            "pattern weights fitted by logistic regression (L-BFGS, {} iterations) on {} positions in {} phases{}: mean log loss {:.6} at the start, {:.6} fitted",
            self.iterations,
            self.positions,
            self.per_phase.len(),
            if counted == self.positions {
                String::new()
            } else {
                format!(" ({counted} with the phases' overlaps)")
            },
            self.start_loss,
            self.loss
        )
    }
}

/// The summed (not mean) cross-entropy of a phase's positions at its block `w`, and, when
/// `grad` is given, its gradient added into `grad` (the block's).
fn phase_pass(indices: &[u32], labels: &[f32], w: &[f64], mut grad: Option<&mut [f64]>) -> f64 {
    let mut loss = 0.0;
    for (lookups, &y) in indices.chunks_exact(FEATURES_PER_POSITION).zip(labels) {
        let z: f64 = lookups.iter().map(|&i| w[i as usize]).sum();
        loss += softplus(z) - y as f64 * z;
        if let Some(g) = grad.as_deref_mut() {
            let r = sigmoid(z) - y as f64;
            for &i in lookups {
                g[i as usize] += r;
            }
        }
    }
    loss
}

/// The objective (mean loss + ridge towards `w0`) at `w` and its gradient into `grad`; also
/// the mean loss.
fn objective(
    data: &PatternPositions,
    w: &[f64],
    w0: &[f64],
    lambda: f64,
    grad: &mut [f64],
) -> (f64, f64) {
    let n = data.len() as f64;
    let losses: Vec<f64> = grad
        .par_chunks_mut(WEIGHTS_PER_PHASE)
        .zip(w.par_chunks(WEIGHTS_PER_PHASE))
        .enumerate()
        .map(|(p, (g, w))| {
            g.fill(0.0);
            phase_pass(&data.indices[p], &data.labels[p], w, Some(g))
        })
        .collect();
    let loss = losses.iter().sum::<f64>() / n;
    let mut ridge = 0.0;
    for ((g, &x), &x0) in grad.iter_mut().zip(w).zip(w0) {
        *g = *g / n + lambda * (x - x0);
        ridge += (x - x0) * (x - x0);
    }
    (loss + 0.5 * lambda * ridge, loss)
}

/// The mean cross-entropy of `weights` on `data` (phases must match).
pub fn pattern_loss(data: &PatternPositions, weights: &PatternWeights) -> f64 {
    let w: Vec<f64> = weights.values.iter().map(|&x| x as f64).collect();
    let total: f64 = (0..data.phases())
        .into_par_iter()
        .map(|p| {
            phase_pass(
                &data.indices[p],
                &data.labels[p],
                &w[p * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE],
                None,
            )
        })
        .collect::<Vec<f64>>()
        .iter()
        .sum();
    total / data.len() as f64
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Fits the pattern weights to `data` from `start` (same phases), the ridge pulling towards
/// `start`, by L-BFGS.
pub fn fit_patterns(
    data: &PatternPositions,
    start: &PatternWeights,
    options: &PatternFitOptions,
) -> Result<PatternFit, String> {
    if data.is_empty() {
        return Err("no positions to fit".into());
    }
    if start.phases != data.phases() || start.values.len() != start.phases * WEIGHTS_PER_PHASE {
        return Err(format!(
            "start weights of {} phases for positions in {} phases",
            start.phases,
            data.phases()
        ));
    }
    if !(options.ridge.is_finite() && options.ridge >= 0.0) {
        return Err(format!("ridge {} is not a number ≥ 0", options.ridge));
    }
    let lambda = options.ridge / data.len() as f64;
    const MEMORY: usize = 10;
    let n = start.values.len();
    let x0: Vec<f64> = start.values.iter().map(|&v| v as f64).collect();
    let mut x = x0.clone();
    let mut g = vec![0.0; n];
    let (mut f, start_loss) = objective(data, &x, &x0, lambda, &mut g);
    let mut loss = start_loss;
    let mut s_hist: Vec<Vec<f64>> = Vec::new();
    let mut y_hist: Vec<Vec<f64>> = Vec::new();
    let mut direction = vec![0.0; n];
    let mut x_new = vec![0.0; n];
    let mut g_new = vec![0.0; n];
    let mut alpha = [0.0; MEMORY];
    let mut iterations = 0;
    while iterations < options.max_iterations {
        // Two-loop recursion: direction = -H·g.
        direction.copy_from_slice(&g);
        for i in (0..s_hist.len()).rev() {
            let rho = 1.0 / dot(&y_hist[i], &s_hist[i]);
            alpha[i] = rho * dot(&s_hist[i], &direction);
            for (d, y) in direction.iter_mut().zip(&y_hist[i]) {
                *d -= alpha[i] * y;
            }
        }
        let gamma = match s_hist.last() {
            Some(s) => {
                let y = y_hist.last().expect("pairs");
                dot(s, y) / dot(y, y)
            }
            // The first step: a unit step along the steepest descent would be far too long
            // for a million weights; scale it to a change of about 0.1 in the largest.
            None => 0.1 / g.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-12),
        };
        for d in direction.iter_mut() {
            *d *= gamma;
        }
        for i in 0..s_hist.len() {
            let rho = 1.0 / dot(&y_hist[i], &s_hist[i]);
            let beta = rho * dot(&y_hist[i], &direction);
            for (d, s) in direction.iter_mut().zip(&s_hist[i]) {
                *d += s * (alpha[i] - beta);
            }
        }
        for d in direction.iter_mut() {
            *d = -*d;
        }
        let slope = dot(&g, &direction);
        if slope >= 0.0 {
            // Not a descent direction (rounding): start the memory afresh.
            if s_hist.is_empty() {
                break;
            }
            s_hist.clear();
            y_hist.clear();
            continue;
        }
        // Backtracking line search (Armijo).
        let mut step = 1.0;
        let mut accepted = None;
        for _ in 0..30 {
            for ((xn, &xi), &d) in x_new.iter_mut().zip(&x).zip(&direction) {
                *xn = xi + step * d;
            }
            let (f_new, l_new) = objective(data, &x_new, &x0, lambda, &mut g_new);
            if f_new <= f + 1e-4 * step * slope {
                accepted = Some((f_new, l_new));
                break;
            }
            step *= 0.5;
        }
        let Some((f_new, l_new)) = accepted else {
            break;
        };
        iterations += 1;
        let s: Vec<f64> = x_new.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        if dot(&s, &y) > 1e-12 * dot(&y, &y) {
            if s_hist.len() == MEMORY {
                s_hist.remove(0);
                y_hist.remove(0);
            }
            s_hist.push(s);
            y_hist.push(y);
        }
        std::mem::swap(&mut x, &mut x_new);
        std::mem::swap(&mut g, &mut g_new);
        let decrease = f - f_new;
        f = f_new;
        loss = l_new;
        if decrease <= options.tolerance * f.abs().max(1e-12) {
            break;
        }
    }
    Ok(PatternFit {
        weights: PatternWeights {
            phases: start.phases,
            values: x.iter().map(|&v| v as f32).collect(),
            origin: "pattern regression fit".into(),
        },
        start_loss,
        loss,
        iterations,
        per_phase: data.per_phase(),
        positions: data.distinct(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Evaluator;
    use crate::eval::pattern::PatternEval;
    use crate::games::Game;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Positions of random Othello games, labelled by a planted pattern evaluation: Bernoulli(σ(z)).
    fn planted(games: usize, truth: &PatternWeights, seed: u64) -> PatternPositions {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let eval = PatternEval::new(truth);
        let mut data = PatternPositions::new(truth.phases);
        for _ in 0..games {
            let mut pos = Othello::start();
            while pos.outcome().is_none() {
                let mut moves = crate::games::MoveList::new();
                pos.legal_moves(&mut moves);
                pos = pos.play(moves[rng.random_range(0..moves.len())]);
                if pos.outcome().is_some() {
                    break;
                }
                let z = eval.evaluate(&pos) as f64 / crate::eval::pattern::SCALE;
                let label = if rng.random_range(0.0..1.0) < sigmoid(z) {
                    1.0
                } else {
                    0.0
                };
                data.push(&pos, label);
            }
        }
        data
    }

    /// A planted truth: random weights (±0.3 logit) on every configuration of the last
    /// pattern type (`diag4`, 81 configurations, its block just before the bias), and a bias,
    /// per phase.
    fn truth(phases: usize, seed: u64) -> PatternWeights {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut w = PatternWeights::zeros(phases);
        for p in 0..phases {
            let block = &mut w.values[p * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE];
            for x in &mut block[WEIGHTS_PER_PHASE - 82..] {
                *x = rng.random_range(-0.3..0.3);
            }
        }
        w
    }

    #[test]
    fn the_fit_lowers_the_loss_and_beats_the_truth_only_slightly_on_its_own_data() {
        let truth = truth(2, 3);
        let train = planted(3000, &truth, 1);
        let test = planted(1000, &truth, 2);
        // Random games hardly repeat a 10-square configuration: a strong ridge keeps the fit
        // from learning each position by heart.
        let options = PatternFitOptions {
            ridge: 256.0,
            max_iterations: 100,
            ..Default::default()
        };
        let fit = fit_patterns(&train, &PatternWeights::zeros(2), &options).unwrap();
        assert!(fit.loss < fit.start_loss, "{}", fit.summary());
        // On held-out positions of the same truth, the fit predicts nearly as well as the
        // truth itself (it cannot do better in expectation), and much better than zeros.
        let truth_loss = pattern_loss(&test, &truth);
        let fitted_loss = pattern_loss(&test, &fit.weights);
        let zero_loss = pattern_loss(&test, &PatternWeights::zeros(2));
        eprintln!(
            "{}; held out: truth {truth_loss}, fit {fitted_loss}, zeros {zero_loss}",
            fit.summary()
        );
        assert!(fitted_loss < zero_loss);
        assert!(
            fitted_loss - truth_loss < 0.1 * (zero_loss - truth_loss),
            "the fit explains at least 90% of what the truth explains"
        );
    }

    #[test]
    fn the_fit_does_not_depend_on_the_thread_count() {
        let truth = truth(3, 5);
        let data = planted(300, &truth, 7);
        let options = PatternFitOptions {
            max_iterations: 20,
            ..Default::default()
        };
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| fit_patterns(&data, &PatternWeights::zeros(3), &options).unwrap())
        };
        assert_eq!(run(1).weights, run(3).weights);
    }

    #[test]
    fn overlapping_phases_share_the_positions_near_their_bounds() {
        // Every position of a few random games, in 6 phases of 10 empty squares.
        let mut plain = PatternPositions::with_overlap(6, 0);
        let mut wide = PatternPositions::with_overlap(6, 3);
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut expected = [0usize; 6];
        for _ in 0..20 {
            let mut pos = Othello::start();
            loop {
                let mut moves = crate::games::MoveList::new();
                pos.legal_moves(&mut moves);
                pos = pos.play(moves[rng.random_range(0..moves.len())]);
                if pos.outcome().is_some() {
                    break;
                }
                wide.push(&pos, 1.0);
                plain.push(&pos, 1.0);
                // Counted by hand: the phases of every empty count within 3 of the position's.
                let e = (!(pos.player | pos.opponent)).count_ones() as i64;
                let mut hit = [false; 6];
                for d in -3..=3 {
                    let f = (60 - (e + d).clamp(0, 60)).min(59);
                    hit[f as usize * 6 / 60] = true;
                }
                for (p, h) in hit.iter().enumerate() {
                    expected[p] += usize::from(*h);
                }
            }
        }
        assert_eq!(wide.per_phase(), expected.to_vec());
        // Without overlap each position is in its own phase only; with it, some in two.
        let positions: usize = plain.labels.iter().map(Vec::len).sum();
        assert_eq!(plain.len(), positions);
        assert_eq!((plain.distinct(), wide.distinct()), (positions, positions));
        assert!(
            wide.len() > positions + positions / 4,
            "{:?}",
            wide.per_phase()
        );
        for (p, labels) in plain.labels.iter().enumerate() {
            assert!(labels.len() <= wide.labels[p].len());
        }
    }

    #[test]
    fn the_ridge_pulls_towards_the_start_weights() {
        // A start far from the truth: weights the positions never read keep it exactly, and a
        // strong ridge keeps the others near it, where from zero they would stay near zero.
        let truth = truth(2, 11);
        let data = planted(300, &truth, 12);
        let mut start = PatternWeights::zeros(2);
        for (i, x) in start.values.iter_mut().enumerate() {
            *x = if i % 2 == 0 { 0.5 } else { -0.25 };
        }
        let options = PatternFitOptions {
            ridge: 1e7,
            max_iterations: 30,
            ..Default::default()
        };
        let fit = fit_patterns(&data, &start, &options).unwrap();
        let mut read = vec![false; start.values.len()];
        for p in 0..2 {
            for &i in &data.indices[p] {
                read[p * WEIGHTS_PER_PHASE + i as usize] = true;
            }
        }
        let (mut kept, mut moved) = (0, 0.0f64);
        for ((&w, &w0), &r) in fit.weights.values.iter().zip(&start.values).zip(&read) {
            if r {
                moved = moved.max((w - w0).abs() as f64);
            } else {
                assert_eq!(w, w0);
                kept += 1;
            }
        }
        assert!(
            kept > 0 && moved < 0.05,
            "kept {kept}, moved at most {moved}"
        );
        // A weak ridge lets the positions move the weights they read away from the start.
        let free = fit_patterns(
            &data,
            &start,
            &PatternFitOptions {
                ridge: 1.0,
                max_iterations: 30,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(free.loss < fit.loss, "{} {}", free.loss, fit.loss);
    }

    #[test]
    fn bad_input_is_refused() {
        let data = PatternPositions::new(2);
        assert!(fit_patterns(&data, &PatternWeights::zeros(2), &Default::default()).is_err());
        let truth = truth(2, 1);
        let data = planted(5, &truth, 1);
        assert!(fit_patterns(&data, &PatternWeights::zeros(3), &Default::default()).is_err());
    }
}

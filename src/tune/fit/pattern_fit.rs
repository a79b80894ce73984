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
//! full passes over the positions, one per phase: a phase's positions read only its block of
//! weights, so the objective is a sum of the phases' and each phase is minimised on its own,
//! stopping at its own convergence. Hand-written: the gradient is a scatter over sparse lookups
//! that no optimisation crate's vector types express without copying a million-weight vector
//! per operation, and the method is forty lines.
//!
//! **Determinism**: a phase's fit is one task, its sums added in position order: the same
//! result bit for bit whatever the number of threads, and a phase's weights depend on its own
//! positions only.

use std::path::Path;

use rayon::prelude::*;

use super::regression::{CollectOptions, Collector, sigmoid, softplus};
use super::search_labels::SearchScores;
use crate::arena::log::scan_log;
use crate::eval::pattern::{
    BIAS_INDEX, COUNTS_OFFSET, FEATURES_PER_POSITION, LOOKUP_BLOCKS, MAX_PHASES, PatternWeights,
    WEIGHTS_PER_PHASE, feature_indices,
};
use crate::games::Othello;

/// The default ridge α of the pattern fit, in positions (see the module documentation).
pub const DEFAULT_PATTERN_RIDGE: f64 = 16.0;

/// The default most L-BFGS iterations of a phase's fit.
pub const DEFAULT_MAX_ITERATIONS: usize = 300;

/// The most L-BFGS iterations a fit may be given.
pub const MAX_ITERATIONS: usize = 100_000;

/// The lookups stored per position: every one of [`feature_indices`] but the bias, which is
/// the same for all.
const STORED_LOOKUPS: usize = FEATURES_PER_POSITION - 1;

/// Labelled positions as their pattern lookups, each stored once in the order pushed.
///
/// 191 bytes a position: its [`STORED_LOOKUPS`] (93) lookups as `u16` configurations or count
/// values within their type's block ([`LOOKUP_BLOCKS`]), its label (`f32`) and its empty
/// squares (`u8`), which say the phases it is in. A phase's pass reads the positions in its range in the order pushed,
/// so its sums are those of the phase's own list of positions, without a copy per phase.
#[derive(Clone, Debug, Default)]
pub struct PatternPositions {
    /// The lookups, [`STORED_LOOKUPS`] a position, each less its block's start.
    configs: Vec<u16>,
    /// The labels (the side to move's expected score, in [0, 1]).
    labels: Vec<f32>,
    /// The empty squares of each position.
    empties: Vec<u8>,
    /// Per phase: the set of empty-square counts (bit e) of its positions, its range widened
    /// by the overlap.
    phase_empties: Vec<u64>,
    /// Per phase: its positions.
    per_phase: Vec<usize>,
}

impl PatternPositions {
    /// No positions, for `phases` phases.
    ///
    /// # Panics
    /// When `phases` is not in 1..=[`MAX_PHASES`].
    pub fn new(phases: usize) -> Self {
        PatternPositions::with_overlap(phases, 0)
    }

    /// No positions, for `phases` phases each of which also takes the positions within
    /// `overlap` empty squares of its range (see the module documentation).
    ///
    /// # Panics
    /// When `phases` is not in 1..=[`MAX_PHASES`].
    pub fn with_overlap(phases: usize, overlap: usize) -> Self {
        assert!((1..=MAX_PHASES).contains(&phases), "{phases} phases");
        let mut phase_empties = vec![0u64; phases];
        for empties in 0..=60usize {
            let (fewest, most) = (empties.saturating_sub(overlap), (empties + overlap).min(60));
            // Phases fall as the empty squares grow: the widened range spans a run of them.
            let first = phase_of_empties(most, phases);
            let last = phase_of_empties(fewest, phases);
            for set in &mut phase_empties[first..=last] {
                *set |= 1 << empties;
            }
        }
        PatternPositions {
            phase_empties,
            per_phase: vec![0; phases],
            ..PatternPositions::default()
        }
    }

    /// The number of phases.
    pub fn phases(&self) -> usize {
        self.per_phase.len()
    }

    /// Adds `pos` with the side to move's expected score `label` (in [0, 1]): to its phase,
    /// and with an overlap to every phase within the overlap's empty squares.
    pub fn push(&mut self, pos: &Othello, label: f64) {
        let mut out = [0u32; FEATURES_PER_POSITION];
        feature_indices(pos, &mut out);
        let configs = out.iter().zip(&LOOKUP_BLOCKS).take(STORED_LOOKUPS);
        self.configs
            .extend(configs.map(|(&index, &block)| (index - block) as u16));
        self.labels.push(label as f32);
        let empties = (!(pos.player | pos.opponent)).count_ones() as u8;
        self.empties.push(empties);
        for (count, set) in self.per_phase.iter_mut().zip(&self.phase_empties) {
            *count += (set >> empties & 1) as usize;
        }
    }

    /// The number of positions pushed, each counted once.
    pub fn distinct(&self) -> usize {
        self.labels.len()
    }

    /// The number of positions, each counted once per phase it is in.
    pub fn len(&self) -> usize {
        self.per_phase.iter().sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Positions per phase.
    pub fn per_phase(&self) -> Vec<usize> {
        self.per_phase.clone()
    }

    /// Frees the room reserved for positions not pushed.
    pub fn shrink_to_fit(&mut self) {
        self.configs.shrink_to_fit();
        self.labels.shrink_to_fit();
        self.empties.shrink_to_fit();
    }

    /// The lookups (as [`feature_indices`] gives them) and label of each of `phase`'s
    /// positions, in the order pushed.
    fn phase_positions(
        &self,
        phase: usize,
    ) -> impl Iterator<Item = (&[u16; STORED_LOOKUPS], f32)> + '_ {
        let set = self.phase_empties[phase];
        self.configs
            .as_chunks::<STORED_LOOKUPS>()
            .0
            .iter()
            .zip(&self.labels)
            .zip(&self.empties)
            .filter(move |(_, empties)| set >> **empties & 1 == 1)
            .map(|((configs, &label), _)| (configs, label))
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
    /// Fit the count types' weights (mobility, potential mobility, parity) with the patterns';
    /// false holds them at the start's (0 from nothing), as the fit was before they existed.
    pub counts: bool,
}

impl Default for PatternFitOptions {
    fn default() -> Self {
        PatternFitOptions {
            ridge: DEFAULT_PATTERN_RIDGE,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            tolerance: 1e-7,
            counts: true,
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
    /// L-BFGS iterations, per phase.
    pub iterations: Vec<usize>,
    /// Whether each phase's fit converged (an iteration lowered its objective by less than the
    /// tolerance, or none could lower it) before the most iterations.
    pub converged: Vec<bool>,
    /// Positions per phase (a position in several overlapping phases counts in each).
    pub per_phase: Vec<usize>,
    /// Positions, each counted once.
    pub positions: usize,
}

impl PatternFit {
    /// Whether every phase's fit converged.
    pub fn all_converged(&self) -> bool {
        self.converged.iter().all(|&c| c)
    }

    /// A line saying how the weights were made.
    pub fn summary(&self) -> String {
        let counted: usize = self.per_phase.iter().sum();
        let converged = self.converged.iter().filter(|&&c| c).count();
        format!(
            "pattern weights fitted by logistic regression (L-BFGS per phase, {} iterations at most, {} of {} phases converged) on {} positions in {} phases{}: mean log loss {:.6} at the start, {:.6} fitted",
            self.iterations.iter().max().unwrap_or(&0),
            converged,
            self.converged.len(),
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

/// The summed (not mean) cross-entropy of `phase`'s positions at its block `w`, and, when
/// `grad` is given, its gradient added into `grad` (the block's). The positions are taken in
/// the order pushed and their lookups in [`feature_indices`]' order, the bias last.
fn phase_pass(
    data: &PatternPositions,
    phase: usize,
    w: &[f64],
    mut grad: Option<&mut [f64]>,
) -> f64 {
    let w = &w[..WEIGHTS_PER_PHASE];
    let mut loss = 0.0;
    let mut indices = [0u32; STORED_LOOKUPS];
    for (configs, y) in data.phase_positions(phase) {
        // Decoded at once (the additions vectorise), then read one by one.
        for ((index, &config), &block) in indices.iter_mut().zip(configs).zip(&LOOKUP_BLOCKS) {
            *index = block + config as u32;
        }
        // From −0.0, as `Iterator::sum` adds: the fit gives the weights it gave when each
        // phase kept its own list of lookups, bit for bit.
        let mut z = -0.0;
        for &i in &indices {
            z += w[i as usize];
        }
        z += w[BIAS_INDEX];
        loss += softplus(z) - y as f64 * z;
        if let Some(g) = grad.as_deref_mut() {
            let r = sigmoid(z) - y as f64;
            for &i in &indices {
                g[i as usize] += r;
            }
            g[BIAS_INDEX] += r;
        }
    }
    loss
}

/// `phase`'s part of the objective at its block `w`, times the positions of every phase: its
/// summed loss plus the ridge `alpha`/2·Σ (w − w₀)² towards its start `w0`, with the gradient
/// of that into `grad` (the block's); also the summed loss alone. Summed, not divided by the
/// positions of every phase, so that a phase's fit, its descent included, depends on nothing
/// but its own positions.
fn phase_objective(
    data: &PatternPositions,
    phase: usize,
    (w, w0): (&[f64], &[f64]),
    alpha: f64,
    grad: &mut [f64],
) -> (f64, f64) {
    grad.fill(0.0);
    let loss = phase_pass(data, phase, w, Some(grad));
    let mut ridge = 0.0;
    for ((g, &x), &x0) in grad.iter_mut().zip(w).zip(w0) {
        *g += alpha * (x - x0);
        ridge += (x - x0) * (x - x0);
    }
    (loss + 0.5 * alpha * ridge, loss)
}

/// The mean cross-entropy of `weights` on `data` (phases must match).
pub fn pattern_loss(data: &PatternPositions, weights: &PatternWeights) -> f64 {
    let w: Vec<f64> = weights.values.iter().map(|&x| x as f64).collect();
    let n = data.len() as f64;
    // Each phase's share of the mean, summed in phase order, as the fit sums them.
    (0..data.phases())
        .into_par_iter()
        .map(|p| {
            phase_pass(
                data,
                p,
                &w[p * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE],
                None,
            ) / n
        })
        .collect::<Vec<f64>>()
        .iter()
        .sum()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The pairs of steps and gradient changes the L-BFGS fit remembers.
const MEMORY: usize = 10;

/// Refuses a fit without positions, with start weights of other phases than `data`'s, or with
/// a ridge that is not a number ≥ 0.
fn check_fit_inputs(
    data: &PatternPositions,
    start: &PatternWeights,
    options: &PatternFitOptions,
) -> Result<(), String> {
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
    Ok(())
}

/// The L-BFGS descent direction `-H·g` at the gradient `g`, by the two-loop recursion over the
/// remembered steps `s_hist` and gradient changes `y_hist` (oldest first), into `direction`.
fn descent_direction(direction: &mut [f64], g: &[f64], s_hist: &[Vec<f64>], y_hist: &[Vec<f64>]) {
    let mut alpha = [0.0; MEMORY];
    direction.copy_from_slice(g);
    for i in (0..s_hist.len()).rev() {
        let rho = 1.0 / dot(&y_hist[i], &s_hist[i]);
        alpha[i] = rho * dot(&s_hist[i], direction);
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
        let beta = rho * dot(&y_hist[i], direction);
        for (d, s) in direction.iter_mut().zip(&s_hist[i]) {
            *d += s * (alpha[i] - beta);
        }
    }
    for d in direction.iter_mut() {
        *d = -*d;
    }
}

/// Backtracking line search (Armijo) from `x` (objective `f`, slope `slope`) along
/// `direction`, halving the step from 1 at most 30 times: the accepted point in `x_new` with
/// its gradient in `g_new`, and its objective and loss; `None` when no step decreases enough.
fn line_search(
    mut objective: impl FnMut(&[f64], &mut [f64]) -> (f64, f64),
    x: &[f64],
    direction: &[f64],
    f: f64,
    slope: f64,
    x_new: &mut [f64],
    g_new: &mut [f64],
) -> Option<(f64, f64)> {
    let mut step = 1.0;
    for _ in 0..30 {
        for ((xn, &xi), &d) in x_new.iter_mut().zip(x).zip(direction) {
            *xn = xi + step * d;
        }
        let (f_new, l_new) = objective(x_new, g_new);
        if f_new <= f + 1e-4 * step * slope {
            return Some((f_new, l_new));
        }
        step *= 0.5;
    }
    None
}

/// Remembers the step from `x` to `x_new` and the gradient's change from `g` to `g_new`
/// (forgetting the oldest pair beyond [`MEMORY`]), unless the curvature along it is not
/// positive enough.
fn remember_step(
    s_hist: &mut Vec<Vec<f64>>,
    y_hist: &mut Vec<Vec<f64>>,
    (x, x_new): (&[f64], &[f64]),
    (g, g_new): (&[f64], &[f64]),
) {
    let s: Vec<f64> = x_new.iter().zip(x).map(|(a, b)| a - b).collect();
    let y: Vec<f64> = g_new.iter().zip(g).map(|(a, b)| a - b).collect();
    if dot(&s, &y) > 1e-12 * dot(&y, &y) {
        if s_hist.len() == MEMORY {
            s_hist.remove(0);
            y_hist.remove(0);
        }
        s_hist.push(s);
        y_hist.push(y);
    }
}

/// One phase's fit: its block's weights, and its shares of the objective's loss.
struct PhaseFit {
    weights: Vec<f64>,
    start_loss: f64,
    loss: f64,
    iterations: usize,
    converged: bool,
}

/// Fits `phase`'s block of weights from `x0`, its start (the ridge pulls towards it), by
/// L-BFGS on the phase's part of the objective alone ([`phase_objective`]); its losses are
/// summed, not means.
fn fit_phase(
    data: &PatternPositions,
    phase: usize,
    x0: &[f64],
    options: &PatternFitOptions,
) -> PhaseFit {
    let mut x = x0.to_vec();
    let mut g = vec![0.0; x.len()];
    // A held weight's gradient is 0, so neither the steps nor the memory ever move it.
    let objective_at = |x: &[f64], g: &mut [f64]| {
        let value = phase_objective(data, phase, (x, x0), options.ridge, g);
        if !options.counts {
            g[COUNTS_OFFSET..BIAS_INDEX].fill(0.0);
        }
        value
    };
    let (mut f, start_loss) = objective_at(&x, &mut g);
    let (mut loss, mut iterations, mut converged) = (start_loss, 0, false);
    let (mut s_hist, mut y_hist) = (Vec::new(), Vec::new());
    let mut direction = vec![0.0; x.len()];
    let mut x_new = vec![0.0; x.len()];
    let mut g_new = vec![0.0; x.len()];
    while iterations < options.max_iterations {
        descent_direction(&mut direction, &g, &s_hist, &y_hist);
        let slope = dot(&g, &direction);
        if slope >= 0.0 {
            // Not a descent direction (rounding): start the memory afresh, or stop at the
            // bottom (a phase without positions has a zero gradient at its start).
            if s_hist.is_empty() {
                converged = true;
                break;
            }
            s_hist.clear();
            y_hist.clear();
            continue;
        }
        let step = line_search(
            objective_at,
            &x,
            &direction,
            f,
            slope,
            &mut x_new,
            &mut g_new,
        );
        let Some((f_new, l_new)) = step else {
            // No step lowers the objective: as low as rounding lets it go.
            converged = true;
            break;
        };
        iterations += 1;
        remember_step(&mut s_hist, &mut y_hist, (&x, &x_new), (&g, &g_new));
        std::mem::swap(&mut x, &mut x_new);
        std::mem::swap(&mut g, &mut g_new);
        let decrease = f - f_new;
        (f, loss) = (f_new, l_new);
        if decrease <= options.tolerance * f.abs().max(1e-12) {
            converged = true;
            break;
        }
    }
    PhaseFit {
        weights: x,
        start_loss,
        loss,
        iterations,
        converged,
    }
}

/// Fits the pattern weights to `data` from `start` (same phases), the ridge pulling towards
/// `start`, by one L-BFGS per phase: a phase's positions read only its own block, so the
/// objective is the sum of the phases' and each is minimised on its own, to its own
/// convergence. A phase's weights thus depend on its own positions only (not on where another
/// phase's descent stopped), whatever the number of threads.
pub fn fit_patterns(
    data: &PatternPositions,
    start: &PatternWeights,
    options: &PatternFitOptions,
) -> Result<PatternFit, String> {
    check_fit_inputs(data, start, options)?;
    let n = data.len() as f64;
    let x0: Vec<f64> = start.values.iter().map(|&v| v as f64).collect();
    let phases: Vec<PhaseFit> = x0
        .par_chunks(WEIGHTS_PER_PHASE)
        .enumerate()
        .map(|(p, block)| fit_phase(data, p, block, options))
        .collect();
    Ok(PatternFit {
        weights: PatternWeights {
            phases: start.phases,
            values: phases
                .iter()
                .flat_map(|p| p.weights.iter().map(|&v| v as f32))
                .collect(),
            origin: "pattern regression fit".into(),
        },
        start_loss: phases.iter().map(|p| p.start_loss / n).sum(),
        loss: phases.iter().map(|p| p.loss / n).sum(),
        iterations: phases.iter().map(|p| p.iterations).collect(),
        converged: phases.iter().map(|p| p.converged).collect(),
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

    /// A stored position's lookups as [`feature_indices`] gives them.
    fn lookups(configs: &[u16; STORED_LOOKUPS]) -> [u32; FEATURES_PER_POSITION] {
        let mut out = [BIAS_INDEX as u32; FEATURES_PER_POSITION];
        for ((o, &c), &block) in out.iter_mut().zip(configs).zip(&LOOKUP_BLOCKS) {
            *o = block + c as u32;
        }
        out
    }

    /// Every unfinished position of `games` random games.
    fn random_positions(games: usize, seed: u64) -> Vec<Othello> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut positions = Vec::new();
        for _ in 0..games {
            let mut pos = Othello::start();
            loop {
                let mut moves = crate::games::MoveList::new();
                pos.legal_moves(&mut moves);
                pos = pos.play(moves[rng.random_range(0..moves.len())]);
                if pos.outcome().is_some() {
                    break;
                }
                positions.push(pos);
            }
        }
        positions
    }

    /// The phases (of 6) a position with `empties` empty squares is in with an overlap of
    /// `overlap`, counted by hand: the phases of every empty count within the overlap.
    fn phases_of(empties: usize, overlap: usize) -> Vec<usize> {
        let mut phases: Vec<usize> = (empties.saturating_sub(overlap)..=empties + overlap)
            .map(|e| (60 - e.min(60)).min(59) * 6 / 60)
            .collect();
        phases.dedup();
        phases.reverse();
        phases
    }

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
    /// pattern type (`diag4`, 81 configurations, its block just before the counts'), and a
    /// bias, per phase.
    fn truth(phases: usize, seed: u64) -> PatternWeights {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut w = PatternWeights::zeros(phases);
        for p in 0..phases {
            let block = &mut w.values[p * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE];
            for x in &mut block[COUNTS_OFFSET - 81..COUNTS_OFFSET] {
                *x = rng.random_range(-0.3..0.3);
            }
            block[BIAS_INDEX] = rng.random_range(-0.3..0.3);
        }
        w
    }

    /// The long one: ignored by a plain `cargo test`, run by CI (`.ci/run`).
    mod long {
        use super::*;

        #[test]
        #[ignore = "long (CI runs it): cargo test --lib -- --ignored ::long::"]
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
    fn a_phases_weights_depend_on_its_own_positions_only() {
        // The same positions in 2 phases, then again with the later phase's labels flipped and
        // a third of its positions left out: the early phase's fit must not move by a bit.
        let truth = truth(2, 13);
        let positions = random_positions(200, 14);
        let eval = PatternEval::new(&truth);
        let mut rng = ChaCha8Rng::seed_from_u64(15);
        let labelled: Vec<(Othello, f64)> = positions
            .into_iter()
            .map(|pos| {
                let z = eval.evaluate(&pos) as f64 / crate::eval::pattern::SCALE;
                (pos, f64::from(rng.random_range(0.0..1.0) < sigmoid(z)))
            })
            .collect();
        let late = |pos: &Othello| (!(pos.player | pos.opponent)).count_ones() < 30;
        let (mut data, mut other) = (PatternPositions::new(2), PatternPositions::new(2));
        for (i, (pos, label)) in labelled.iter().enumerate() {
            data.push(pos, *label);
            if !late(pos) {
                other.push(pos, *label);
            } else if i % 3 != 0 {
                other.push(pos, 1.0 - label);
            }
        }
        assert_eq!(data.per_phase()[0], other.per_phase()[0]);
        assert!(data.per_phase()[1] > other.per_phase()[1]);
        let options = PatternFitOptions {
            max_iterations: 40,
            ..Default::default()
        };
        let start = PatternWeights::zeros(2);
        let a = fit_patterns(&data, &start, &options).unwrap();
        let b = fit_patterns(&other, &start, &options).unwrap();
        let (early, later) = a.weights.values.split_at(WEIGHTS_PER_PHASE);
        assert_eq!(early, &b.weights.values[..WEIGHTS_PER_PHASE]);
        assert_ne!(later, &b.weights.values[WEIGHTS_PER_PHASE..]);
        assert_eq!(a.iterations[0], b.iterations[0]);
    }

    #[test]
    fn held_count_weights_keep_their_start_while_the_patterns_are_fitted() {
        // A truth that weighs the side to move's mobility as well as diag4.
        let mut truth = truth(2, 9);
        for p in 0..2 {
            for v in 0..64 {
                truth.values[p * WEIGHTS_PER_PHASE + COUNTS_OFFSET + v] = (v as f32 - 8.0) * 0.05;
            }
        }
        let data = planted(300, &truth, 11);
        let mut start = PatternWeights::zeros(2);
        start.values[COUNTS_OFFSET + 3] = 0.25;
        let options = |counts| PatternFitOptions {
            max_iterations: 20,
            counts,
            ..Default::default()
        };
        let held = fit_patterns(&data, &start, &options(false)).unwrap();
        let free = fit_patterns(&data, &start, &options(true)).unwrap();
        for p in 0..2 {
            let counts = p * WEIGHTS_PER_PHASE + COUNTS_OFFSET..p * WEIGHTS_PER_PHASE + BIAS_INDEX;
            assert_eq!(
                held.weights.values[counts.clone()],
                start.values[counts.clone()]
            );
            assert_ne!(free.weights.values[counts.clone()], start.values[counts]);
            let diag4 =
                p * WEIGHTS_PER_PHASE + COUNTS_OFFSET - 81..p * WEIGHTS_PER_PHASE + COUNTS_OFFSET;
            assert!(held.weights.values[diag4].iter().any(|&w| w != 0.0));
        }
        assert!(held.loss < held.start_loss, "{}", held.summary());
        // Free to weigh the mobility, the fit explains more of a truth that does.
        assert!(
            free.loss < held.loss,
            "{} / {}",
            free.summary(),
            held.summary()
        );
    }

    #[test]
    fn overlapping_phases_share_the_positions_near_their_bounds() {
        // Every position of a few random games, in 6 phases of 10 empty squares.
        let mut plain = PatternPositions::with_overlap(6, 0);
        let mut wide = PatternPositions::with_overlap(6, 3);
        let (mut expected, mut expected_plain) = ([0usize; 6], [0usize; 6]);
        for pos in random_positions(20, 4) {
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
            expected_plain[(60 - e as usize).min(59) * 6 / 60] += 1;
        }
        assert_eq!(wide.per_phase(), expected.to_vec());
        // Without overlap each position is in its own phase only; with it, some in two.
        let positions = expected_plain.iter().sum();
        assert_eq!(plain.per_phase(), expected_plain.to_vec());
        assert_eq!(plain.len(), positions);
        assert_eq!((plain.distinct(), wide.distinct()), (positions, positions));
        assert!(
            wide.len() > positions + positions / 4,
            "{:?}",
            wide.per_phase()
        );
        for (p, &count) in expected_plain.iter().enumerate() {
            assert_eq!(plain.phase_positions(p).count(), count);
            assert_eq!(wide.phase_positions(p).count(), expected[p]);
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
            for (configs, _) in data.phase_positions(p) {
                for i in lookups(configs) {
                    read[p * WEIGHTS_PER_PHASE + i as usize] = true;
                }
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
    fn each_phase_gives_back_its_positions_lookups_and_labels_in_the_order_pushed() {
        let positions = random_positions(30, 21);
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        let labels: Vec<f32> = positions
            .iter()
            .map(|_| rng.random_range(0.0f32..=1.0))
            .collect();
        let mut data = PatternPositions::with_overlap(6, 3);
        for (pos, &label) in positions.iter().zip(&labels) {
            data.push(pos, label as f64);
        }
        data.shrink_to_fit();
        for phase in 0..6 {
            let mut expected = Vec::new();
            for (pos, &label) in positions.iter().zip(&labels) {
                let empties = (!(pos.player | pos.opponent)).count_ones() as usize;
                if phases_of(empties, 3).contains(&phase) {
                    let mut out = [0u32; FEATURES_PER_POSITION];
                    feature_indices(pos, &mut out);
                    expected.push((out, label));
                }
            }
            let stored: Vec<_> = data
                .phase_positions(phase)
                .map(|(configs, label)| (lookups(configs), label))
                .collect();
            assert!(!expected.is_empty());
            assert_eq!(stored, expected, "phase {phase}");
        }
    }

    /// The objective written plainly: each phase's positions copied into a list of `u32`
    /// lookups and labels, and the cross-entropy and its gradient summed over them, position
    /// by position and lookup by lookup, as the fit did before its positions were stored
    /// once. The mean loss and the gradient of the mean loss.
    fn plain_objective(positions: &[(Othello, f32)], overlap: usize, w: &[f64]) -> (f64, Vec<f64>) {
        let mut lists: Vec<(Vec<u32>, Vec<f32>)> = vec![(Vec::new(), Vec::new()); 6];
        for (pos, label) in positions {
            let empties = (!(pos.player | pos.opponent)).count_ones() as usize;
            let mut out = [0u32; FEATURES_PER_POSITION];
            feature_indices(pos, &mut out);
            for phase in phases_of(empties, overlap) {
                lists[phase].0.extend_from_slice(&out);
                lists[phase].1.push(*label);
            }
        }
        let n: usize = lists.iter().map(|(_, labels)| labels.len()).sum();
        let mut grad = vec![0.0; w.len()];
        let mut losses = Vec::new();
        for (phase, (indices, labels)) in lists.iter().enumerate() {
            let base = phase * WEIGHTS_PER_PHASE;
            let mut loss = 0.0;
            for (k, &y) in labels.iter().enumerate() {
                let lookups = &indices[k * FEATURES_PER_POSITION..][..FEATURES_PER_POSITION];
                let mut z = 0.0;
                for &i in lookups {
                    z += w[base + i as usize];
                }
                let y = y as f64;
                // The same scalar functions: what is checked is which lookups and positions
                // are summed, and in which order.
                loss += softplus(z) - y * z;
                let r = sigmoid(z) - y;
                for &i in lookups {
                    grad[base + i as usize] += r;
                }
            }
            losses.push(loss);
        }
        for g in &mut grad {
            *g /= n as f64;
        }
        // Each phase's share of the mean, summed in phase order.
        let n = n as f64;
        (losses.iter().map(|loss| loss / n).sum::<f64>(), grad)
    }

    #[test]
    fn the_passes_equal_a_plain_computation_over_u32_lookups_bit_for_bit() {
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        // Labels anywhere in [0, 1], as the exact solver and the collectors may give them.
        let positions: Vec<(Othello, f32)> = random_positions(40, 32)
            .into_iter()
            .map(|pos| (pos, rng.random_range(0.0f32..=1.0)))
            .collect();
        for overlap in [0, 3] {
            let mut data = PatternPositions::with_overlap(6, overlap);
            for (pos, label) in &positions {
                data.push(pos, *label as f64);
            }
            // Weights everywhere: small random ones, and larger ones where σ saturates.
            for scale in [0.05, 3.0] {
                let w: Vec<f64> = (0..6 * WEIGHTS_PER_PHASE)
                    .map(|_| rng.random_range(-scale..scale))
                    .collect();
                let (expected_loss, expected_grad) = plain_objective(&positions, overlap, &w);
                // The phases' shares, summed in phase order as `fit_patterns` sums them.
                let mut grad = vec![f64::NAN; w.len()];
                let (mut objective, mut loss) = (0.0, 0.0);
                let n = data.len() as f64;
                for (p, (block, g)) in w
                    .chunks(WEIGHTS_PER_PHASE)
                    .zip(grad.chunks_mut(WEIGHTS_PER_PHASE))
                    .enumerate()
                {
                    let (f, l) = phase_objective(&data, p, (block, block), 0.0, g);
                    (objective, loss) = (objective + f / n, loss + l / n);
                }
                grad.iter_mut().for_each(|g| *g /= n);
                assert_eq!(loss.to_bits(), expected_loss.to_bits(), "overlap {overlap}");
                assert_eq!(objective.to_bits(), expected_loss.to_bits());
                let differ = grad
                    .iter()
                    .zip(&expected_grad)
                    .filter(|(a, b)| a.to_bits() != b.to_bits())
                    .count();
                assert_eq!(differ, 0, "overlap {overlap}, scale {scale}");
                let weights = PatternWeights {
                    phases: 6,
                    values: w.iter().map(|&x| x as f32).collect(),
                    origin: "random".into(),
                };
                let widened: Vec<f64> = weights.values.iter().map(|&x| x as f64).collect();
                let plain = plain_objective(&positions, overlap, &widened).0;
                assert_eq!(pattern_loss(&data, &weights).to_bits(), plain.to_bits());
            }
        }
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

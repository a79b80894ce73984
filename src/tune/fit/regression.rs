//! Regression tuning, Texel's method: fit evaluation weights to the results of logged games
//! instead of playing candidates against each other.
//!
//! 1. **Collect** ([`Collector`]): replay every game of a games log (`games.jsonl`) from the
//!    start position and record, for each position after the opening, its feature vector from
//!    the side to move's point of view ([`Features::feature_values`]) and its label, the side to
//!    move's result in that game (1, ½ or 0). Positions before ply [`CollectOptions::skip_plies`]
//!    (counted from the start position, the opening included) and finished positions are left
//!    out; [`CollectOptions::max_per_game`] keeps a deterministic sample of each game's positions
//!    (a ChaCha8 generator seeded from the seed and the game id). Games lost by a failure
//!    (`timeout`, `stall`, `illegal-move`, `crash`) are skipped unless asked for: their result
//!    says nothing about the positions. The positions are kept in flat vectors
//!    ([`Positions`]), features as `i32` (the random tree's values need more than 16 bits).
//! 2. **Fit K** ([`fit_k`]): with the start weights w₀ fixed, the scale K > 0 minimising the mean
//!    logistic loss of σ(K·w₀·f) against the labels (Newton's method on K, with backtracking).
//!    K converts evaluation units into a logit, so the fitted weights stay in the start's units.
//! 3. **Fit the weights** ([`fit_weights`]) with K fixed, by Newton's method (IRLS) with
//!    backtracking, solving each d×d system with a Cholesky factorisation.
//!
//! **Loss**: the mean cross-entropy (log loss, in nats)
//! `L(w) = (1/N) Σⱼ [log(1 + e^{zⱼ}) − yⱼ·zⱼ]`, `zⱼ = K·w·fⱼ`, rather than Texel's squared
//! error: it is convex in w (so Newton's method finds the one minimum), it is the likelihood of
//! the labels under the logistic model, and draws (y = ½) fit in as they are. Its floor is not 0
//! when games are drawn or noisy; compare losses on the same positions only.
//!
//! **Ridge**: the fit minimises `L(w) + (λ/2)·K²·Σᵢ cᵢ·(wᵢ − w₀ᵢ)²`, cᵢ = (mean of fᵢ² over the
//! positions) + 0.01: a ridge on the standardised coefficients (the same λ means the same pull
//! whatever a feature's range), towards the start rather than 0, so that a feature the data
//! cannot identify (one that is always 0, or a combination of others) keeps its start weight; the
//! 0.01 keeps the system definite for a feature that is never non-zero. Some features are exact
//! combinations of others (Othello's `corners` is `sq_a1`, and `discs` the sum of the ten `sq_*`
//! classes): the data fixes only their combined effect and the ridge splits it, leaving the
//! rest at the start. A well-identified weight moves by about λ/mean p(1−p) of its distance
//! from the start, p = σ(K·w·f): on the synthetic data of the tests, 1.3% at λ = 10⁻³; the
//! default λ = [`DEFAULT_LAMBDA`] = 10⁻⁴ makes that about 0.1%.
//!
//! **Phases**: [`Phases`] splits the positions by ply into P phases, each fitted with its own
//! weight vector (the ridge of each phase is weighted by its share of the positions, so λ means
//! the same in each); one phase is the default. `LinearEval` cannot play phases by ply: it plays
//! one vector, or a tapered pair.
//!
//! **Taper** ([`FitOptions::taper`]): fits tapered weights, an opening and an endgame vector
//! that `LinearEval` interpolates by the game's progress t of T ([`Features::progress`]). The
//! evaluation (w_open·f·(T − t) + w_end·f·t)/T is linear in the 2d columns fᵢ·(T − t) and fᵢ·t
//! ([`Positions::tapered`], integers), so the same fit runs on them unchanged, from the start's
//! vectors divided by T; the result times T is the pair. The ridge pulls each vector towards
//! its start. Not with more than one phase.
//!
//! **Determinism**: collection is sequential in log order; the fit's sums run over fixed chunks
//! of positions (on rayon's threads) added in chunk order, so the result is the same bit for bit
//! whatever the number of threads. The passes over the positions allocate nothing per position.

use std::path::Path;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::arena::log::{GameLine, Scan, scan_log};
use crate::arena::replay::{check_result, replay};
use crate::eval::{Features, MAX_FEATURES, Weights};
use crate::games::Side;
use crate::games::hash::combine;
use crate::search::endgame::{Endgame, empties};

/// The default ridge strength λ (see the module documentation).
pub const DEFAULT_LAMBDA: f64 = 1e-4;

/// The largest ridge strength λ a spec or `joute fit --lambda` may ask for.
pub const MAX_LAMBDA: f64 = 1e6;

/// Added to each feature's mean square in the ridge's weights.
const RIDGE_FLOOR: f64 = 0.01;

/// Positions per chunk of the fit's passes: the unit of work and of summation order.
const CHUNK: usize = 8192;

/// The terminations that are some engine's failure rather than the game's result.
/// The table of the exact solver that labels positions ([`CollectOptions::exact_labels`]).
const SOLVER_TABLE_MIB: usize = 64;

const FAILURES: [&str; 5] = ["timeout", "stall", "illegal-move", "crash", "limit"];

/// What [`Collector`] keeps of each game (by default: every position after the opening of
/// every game not lost by a failure).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollectOptions {
    /// Positions before this ply, counted from the start position with the opening's moves
    /// included, are not recorded. The opening's own positions never are.
    pub skip_plies: usize,
    /// At most this many positions of each game, chosen at random (seeded by `seed` and the
    /// game id) among those eligible; `None`: all of them.
    pub max_per_game: Option<usize>,
    /// Seed of the per-game samples.
    pub seed: u64,
    /// Keep games that ended by an engine's failure (`timeout`, `stall`, `illegal-move`,
    /// `crash`); by default they are skipped.
    pub include_failures: bool,
    /// Label the positions with at most this many empty squares (cells) by their exact result
    /// under perfect play, solved by the game's exact solver, instead of the game's result
    /// (0: never). The other positions keep the game's result.
    pub exact_labels: u32,
    /// Label the positions the solver leaves by their game's final margin instead of its
    /// result: σ(m / `margin_scale`), m the margin for the side to move (Othello: its discs
    /// less the opponent's at the end), so that a game won by 30 discs says more than one won
    /// by 2. 0: the result. Games that did not end by the rules keep their result.
    pub margin_scale: f64,
}

/// The largest margin scale S of [`CollectOptions::margin_scale`], in discs: Othello's widest
/// margin, beyond which σ(m / S) no longer tells a crushing win from a narrow one.
pub const MAX_MARGIN_SCALE: f64 = 64.0;

/// Labelled positions: feature vectors in one flat vector, labels, plies, and (when collected
/// from games) each position's game progress.
///
/// *Tapered* positions ([`Positions::tapered`]) hold `2d` integers per position for the `d`
/// features of the game: fᵢ·(T − t) for each feature, then fᵢ·t, (t, T) the position's
/// progress ([`Features::progress`]). A linear fit on them is a fit of tapered weights: the
/// weights w on these columns are the opening and endgame weights divided by T, since
/// (w_open·f·(T − t) + w_end·f·t)/T = (w_open/T)·f·(T − t) + (w_end/T)·f·t.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Positions {
    features: usize,
    values: Vec<i32>,
    /// The side to move's result in half points: 0, 1 or 2.
    labels: Vec<u8>,
    plies: Vec<u16>,
    /// Each position's progress t, when recorded (`total > 0`).
    progress: Vec<u16>,
    /// T of the progress; 0 when the positions carry none.
    total: u32,
    /// `Some(T)`: the values are tapered (see above).
    taper: Option<u32>,
    /// Games whose positions were collected.
    pub games: u64,
    /// Games skipped (failures, unless [`CollectOptions::include_failures`]).
    pub skipped_games: u64,
}

impl Positions {
    /// No positions, of `features` features each, without game progress: added by
    /// [`Positions::push`]; they cannot be tapered.
    pub fn new(features: usize) -> Positions {
        assert!(features <= MAX_FEATURES, "{features} features");
        Positions {
            features,
            ..Positions::default()
        }
    }

    /// No positions, of `features` features each, each with its game progress t of `total`
    /// (T, at least 1): added by [`Positions::push_with_progress`]. What [`Collector`] makes.
    pub fn with_progress(features: usize, total: u32) -> Positions {
        assert!(
            (1..=u16::MAX as u32).contains(&total),
            "progress of T = {total}"
        );
        Positions {
            total,
            ..Positions::new(features)
        }
    }

    /// `Some(T)` when the positions are tapered: `2d` values each, fᵢ·(T − t) then fᵢ·t.
    pub fn taper(&self) -> Option<u32> {
        self.taper
    }

    /// The game progress (t, T) of position `i`, when the positions carry it.
    pub fn progress(&self, i: usize) -> Option<(u32, u32)> {
        (self.total > 0).then(|| (self.progress[i] as u32, self.total))
    }

    /// The tapered copy of these positions: each position's `d` feature values f become the
    /// `2d` values fᵢ·(T − t) then fᵢ·t (see the type's documentation); labels and plies kept.
    /// An error when the positions carry no progress, are tapered already, `2d` passes
    /// [`MAX_FEATURES`], or a product does not fit an `i32`.
    pub fn tapered(&self) -> Result<Positions, String> {
        if self.taper.is_some() {
            return Err("the positions are tapered already".into());
        }
        if self.total == 0 {
            return Err("the positions carry no game progress to taper by".into());
        }
        let d = self.features;
        if 2 * d > MAX_FEATURES {
            return Err(format!(
                "{d} features make {} tapered columns; at most {MAX_FEATURES}",
                2 * d
            ));
        }
        let total = self.total as i64;
        let mut values = Vec::with_capacity(2 * self.values.len());
        for i in 0..self.len() {
            let t = self.progress[i] as i64;
            for scale in [total - t, t] {
                for &f in self.values(i) {
                    let x = f as i64 * scale;
                    values.push(i32::try_from(x).map_err(|_| {
                        format!(
                            "position {i}: feature value {f} × {scale} (progress {t} of {total}) \
                             does not fit a 32-bit integer"
                        )
                    })?);
                }
            }
        }
        Ok(Positions {
            features: 2 * d,
            values,
            labels: self.labels.clone(),
            plies: self.plies.clone(),
            progress: self.progress.clone(),
            total: self.total,
            taper: Some(self.total),
            games: self.games,
            skipped_games: self.skipped_games,
        })
    }

    /// Features per position.
    pub fn features(&self) -> usize {
        self.features
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Adds a position: its feature values, the side to move's result (0, 0.5 or 1) and its
    /// ply from the start position.
    ///
    /// # Panics
    /// When `values` has the wrong length, `label` is not 0, 0.5 or 1, or the positions carry
    /// progress ([`Positions::with_progress`]).
    pub fn push(&mut self, values: &[i32], label: f64, ply: usize) {
        assert_eq!(self.total, 0, "these positions need their progress");
        self.push_any(values, label, ply);
    }

    /// Adds a position as [`Positions::push`] does, with its game progress `t` (of the T of
    /// [`Positions::with_progress`]).
    ///
    /// # Panics
    /// As [`Positions::push`]; when the positions carry no progress or `t` is beyond T.
    pub fn push_with_progress(&mut self, values: &[i32], label: f64, ply: usize, t: u32) {
        assert!(self.total > 0, "these positions carry no progress");
        assert!(t <= self.total, "progress {t} of {}", self.total);
        self.push_any(values, label, ply);
        self.progress.push(t as u16);
    }

    fn push_any(&mut self, values: &[i32], label: f64, ply: usize) {
        assert_eq!(values.len(), self.features);
        assert!(
            self.taper.is_none(),
            "tapered positions are made by tapered()"
        );
        let half = label * 2.0;
        assert!(
            [0.0, 1.0, 2.0].contains(&half),
            "label {label} is not 0, 0.5 or 1"
        );
        self.values.extend_from_slice(values);
        self.labels.push(half as u8);
        self.plies.push(ply.min(u16::MAX as usize) as u16);
    }

    /// The feature values of position `i`.
    pub fn values(&self, i: usize) -> &[i32] {
        &self.values[i * self.features..(i + 1) * self.features]
    }

    /// The side to move's result at position `i`: 0, 0.5 or 1.
    pub fn label(&self, i: usize) -> f64 {
        self.labels[i] as f64 * 0.5
    }

    /// The ply of position `i` from the start position.
    pub fn ply(&self, i: usize) -> usize {
        self.plies[i] as usize
    }
}

/// Replays logged games of one game (variant) and collects their labelled positions.
pub struct Collector<G: Features> {
    start: G,
    options: CollectOptions,
    positions: Positions,
    /// Reused buffers: one game's eligible positions with their plies, and sample indices.
    line: Vec<(G, usize)>,
    picks: Vec<usize>,
    /// The positions `sample` kept of the last game.
    sampled: Vec<(G, usize, f64)>,
    /// The exact solver of [`CollectOptions::exact_labels`], its table kept from position to
    /// position (a game's later positions are mostly in it); made when first needed.
    solver: Option<Endgame>,
    /// Positions labelled by the solver so far.
    solved: u64,
}

impl<G: Features> Collector<G> {
    /// A collector for games from `start` (the game of the logs). The positions carry their
    /// game progress ([`Features::progress`]).
    pub fn new(start: G, options: CollectOptions) -> Self {
        let features = start.features().len();
        Collector {
            start,
            options,
            positions: Positions::with_progress(features, start.progress().1.max(1)),
            line: Vec::new(),
            picks: Vec::new(),
            sampled: Vec::new(),
            solver: None,
            solved: 0,
        }
    }

    /// Reads a games log (`games.jsonl`) and adds the positions of every game in it. Errors
    /// name the file, the line and the game (a log of another game is refused at its first
    /// move that is not legal here).
    pub fn add_log(&mut self, path: &Path) -> Result<Scan, String> {
        scan_log(path, |line| self.add_game(&line).map(|_| ()))
    }

    /// Adds the positions of one game; returns how many were added.
    pub fn add_game(&mut self, game: &GameLine) -> Result<usize, String> {
        if !self.sample(game)? {
            self.positions.skipped_games += 1;
            return Ok(0);
        }
        let d = self.positions.features;
        let total = self.positions.total;
        let mut values = [0i32; MAX_FEATURES];
        for &(pos, ply, label) in &self.sampled {
            let (t, of) = pos.progress();
            if of.max(1) != total || t > total {
                return Err(format!(
                    "game {}: ply {ply} is at progress {t} of {of}, but the game's is out of {total}",
                    game.id
                ));
            }
            pos.feature_values(&mut values[..d]);
            self.positions
                .push_with_progress(&values[..d], label, ply, t);
        }
        self.positions.games += 1;
        Ok(self.sampled.len())
    }

    /// Replays `game` and keeps the positions the options ask for in [`Collector::sampled`]:
    /// each with its ply and label (the side to move's result), in ply order. False when the
    /// game is skipped (lost by a failure); an error when it cannot be replayed.
    pub fn sample(&mut self, game: &GameLine) -> Result<bool, String> {
        self.sampled.clear();
        // Every game is replayed and its result checked, as every reader of logs does, the
        // games skipped below included.
        let from = self.options.skip_plies.max(game.opening.len());
        self.line.clear();
        let line = &mut self.line;
        let end = replay(self.start, game, |pos, ply| {
            if ply >= from && pos.outcome().is_none() {
                line.push((*pos, ply));
            }
        })?;
        check_result(game, &end)?;
        // The margin as replayed, not as logged: the first player's, when the game ended by
        // the rules.
        let margin = end.outcome().map(|o| o.score);
        if !self.options.include_failures && FAILURES.contains(&game.termination.as_str()) {
            return Ok(false);
        }
        let n = self.line.len();
        let keep = self.options.max_per_game.map_or(n, |m| m.min(n));
        self.picks.clear();
        self.picks.extend(0..n);
        if keep < n {
            // A partial Fisher-Yates shuffle picks `keep` of the `n`, kept in ply order.
            let mut rng =
                ChaCha8Rng::seed_from_u64(combine(self.options.seed ^ 0x7465_7865, game.id));
            for i in 0..keep {
                let j = rng.random_range(i..n);
                self.picks.swap(i, j);
            }
            self.picks.truncate(keep);
            self.picks.sort_unstable();
        }
        for &i in &self.picks {
            let (pos, ply) = self.line[i];
            let solved = match empties(&pos) {
                Some(n) if n <= self.options.exact_labels => self
                    .solver
                    .get_or_insert_with(|| Endgame::new(SOLVER_TABLE_MIB, 1))
                    .perfect_result(&pos),
                _ => None,
            };
            let label = match (solved, pos.side_to_move()) {
                (Some(result), _) => {
                    self.solved += 1;
                    result
                }
                (None, side) => self.game_label(game.score, margin, side),
            };
            self.sampled.push((pos, ply, label));
        }
        Ok(true)
    }

    /// The label a game gives a position with `side` to move: the game's result (`score`, the
    /// first player's points), or σ(m / scale) of its final margin m for `side`
    /// ([`CollectOptions::margin_scale`]; `margin` is the first player's, `None` for a game
    /// that did not end by the rules).
    fn game_label(&self, score: f64, margin: Option<i32>, side: Side) -> f64 {
        let scale = self.options.margin_scale;
        match (margin, side) {
            (Some(m), _) if scale > 0.0 => {
                let m = f64::from(m * side.sign());
                sigmoid(m / scale)
            }
            (_, Side::First) => score,
            (_, Side::Second) => 1.0 - score,
        }
    }

    /// How many positions the exact solver labelled ([`CollectOptions::exact_labels`]).
    pub fn solved(&self) -> u64 {
        self.solved
    }

    /// The positions [`Collector::sample`] kept of the last game: position, ply, label.
    pub fn sampled(&self) -> &[(G, usize, f64)] {
        &self.sampled
    }

    /// The positions [`Collector::sample`] kept of the last game, to be relabelled
    /// ([`super::search_labels::SearchScores::relabel`]).
    pub fn sampled_mut(&mut self) -> &mut [(G, usize, f64)] {
        &mut self.sampled
    }

    /// Counts a game whose sampled positions the caller recorded elsewhere.
    pub fn count_game(&mut self, kept: bool) {
        if kept {
            self.positions.games += 1;
        } else {
            self.positions.skipped_games += 1;
        }
    }

    /// The positions collected so far.
    pub fn positions(&self) -> &Positions {
        &self.positions
    }

    /// The positions collected.
    pub fn finish(self) -> Positions {
        self.positions
    }
}

/// The positions of the games logs at `paths`, replayed from `start`.
pub fn collect<G: Features>(
    start: G,
    paths: &[&Path],
    options: &CollectOptions,
) -> Result<Positions, String> {
    let mut collector = Collector::new(start, options.clone());
    for path in paths {
        collector.add_log(path)?;
    }
    Ok(collector.finish())
}

/// A split of the positions into game phases by ply, each fitted with its own weights.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Phases {
    bounds: Vec<usize>,
}

impl Phases {
    /// One phase: one weight vector for every position.
    pub fn single() -> Phases {
        Phases::default()
    }

    /// Phases cut at the plies `bounds` (strictly increasing): phase 0 holds the positions
    /// before ply `bounds[0]`, phase 1 those from `bounds[0]` to before `bounds[1]`, and so on;
    /// `bounds.len() + 1` phases in all.
    pub fn by_ply(bounds: Vec<usize>) -> Result<Phases, String> {
        if bounds.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!(
                "phase bounds {bounds:?} are not strictly increasing"
            ));
        }
        Ok(Phases { bounds })
    }

    /// The number of phases.
    pub fn count(&self) -> usize {
        self.bounds.len() + 1
    }

    /// The phase of a position at `ply`.
    pub fn of(&self, ply: usize) -> usize {
        self.bounds.partition_point(|&b| b <= ply)
    }

    /// The plies where phases start after the first.
    pub fn bounds(&self) -> &[usize] {
        &self.bounds
    }
}

/// How [`fit`] fits.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// The ridge strength λ (see the module documentation); 0 for none.
    pub lambda: f64,
    /// The phases, each with its own weights.
    pub phases: Phases,
    /// A fixed K; `None`: fit it to the start weights first.
    pub k: Option<f64>,
    /// The most Newton steps on the weights.
    pub max_iterations: usize,
    /// Stop when half the squared Newton decrement (the objective's predicted decrease) is
    /// below this.
    pub tolerance: f64,
    /// Fit tapered weights (opening and endgame vectors, [`Weights::endgame`]) on the tapered
    /// positions ([`Positions::tapered`]); not with more than one phase. Tapered positions are
    /// fitted tapered whatever this says.
    pub taper: bool,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            lambda: DEFAULT_LAMBDA,
            phases: Phases::single(),
            k: None,
            max_iterations: 50,
            tolerance: 1e-12,
            taper: false,
        }
    }
}

/// The fitted scale K.
#[derive(Clone, Debug, PartialEq)]
pub struct KFit {
    /// K: logit per evaluation unit.
    pub k: f64,
    /// The mean cross-entropy at K.
    pub loss: f64,
    /// Newton steps taken.
    pub iterations: usize,
}

/// The fitted weights with K fixed.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightFit {
    /// The weights, phase after phase (`phases × features`).
    pub values: Vec<f64>,
    /// The mean cross-entropy at the fitted weights.
    pub loss: f64,
    /// The mean cross-entropy at the start weights.
    pub start_loss: f64,
    /// The loss plus the ridge term: what was minimised.
    pub objective: f64,
    /// Newton steps taken.
    pub iterations: usize,
    /// The last step's predicted decrease fell below the tolerance.
    pub converged: bool,
    /// Positions in each phase.
    pub phase_positions: Vec<usize>,
}

/// What [`fit`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// K, fitted or given.
    pub k: f64,
    /// Newton steps of the K fit (0 when K was given).
    pub k_iterations: usize,
    /// One weight vector per phase, with the game's features, ready for [`Weights::to_toml`];
    /// when tapered, one, with its [`Weights::endgame`].
    pub weights: Vec<Weights>,
    /// `Some(T)` when the fit was tapered, T the game's progress at its end.
    pub taper: Option<u32>,
    /// The mean cross-entropy of the start weights (at K).
    pub start_loss: f64,
    /// The mean cross-entropy of the fitted weights.
    pub loss: f64,
    /// The loss plus the ridge term.
    pub objective: f64,
    /// Positions used.
    pub positions: usize,
    /// Positions in each phase.
    pub phase_positions: Vec<usize>,
    /// Newton steps on the weights.
    pub iterations: usize,
    /// Whether the weight fit converged.
    pub converged: bool,
}

impl Fit {
    /// A few lines saying how the weights were made, for the header of a weights file.
    pub fn summary(&self) -> String {
        format!(
            "Fitted by logistic regression (Texel's method) on {} positions{}{}.\n\
             K = {:.6e} logit per unit; mean log loss {:.6} at the start, {:.6} fitted; \
             {} Newton steps{}.",
            self.positions,
            match self.taper {
                Some(t) => format!(
                    ", tapered (opening and endgame weights, interpolated by the game's progress \
                     of {t})"
                ),
                None => String::new(),
            },
            if self.weights.len() > 1 {
                format!(
                    " in {} phases {:?}",
                    self.weights.len(),
                    self.phase_positions
                )
            } else {
                String::new()
            },
            self.k,
            self.start_loss,
            self.loss,
            self.iterations,
            if self.converged {
                ""
            } else {
                " (not converged)"
            }
        )
    }
}

/// `log(1 + e^z)` without overflow.
#[inline]
pub(in crate::tune) fn softplus(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

/// σ(z).
#[inline]
pub(in crate::tune) fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// The evaluation w·f of position `i` with the weights of its phase.
#[inline]
fn score(data: &Positions, phases: &Phases, w: &[f64], i: usize) -> f64 {
    let d = data.features;
    let p = phases.of(data.ply(i));
    let w = &w[p * d..(p + 1) * d];
    data.values(i)
        .iter()
        .zip(w)
        .map(|(&f, &w)| f as f64 * w)
        .sum()
}

/// Sums `each(chunk range)` over fixed chunks of the positions, in parallel, added in chunk
/// order: the same result whatever the number of threads.
fn chunked<T: Send>(
    n: usize,
    each: impl Fn(std::ops::Range<usize>) -> T + Sync + Send,
    mut add: impl FnMut(T),
) {
    let chunks: Vec<T> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| each(c * CHUNK..((c + 1) * CHUNK).min(n)))
        .collect();
    for t in chunks {
        add(t);
    }
}

/// Fits K > 0 minimising the mean cross-entropy of σ(K·w₀·f), with the start weights `w0`
/// (phase after phase, as [`WeightFit::values`]; one vector serves every phase when it has
/// only `features` entries).
pub fn fit_k(data: &Positions, phases: &Phases, w0: &[f64]) -> Result<KFit, String> {
    let w0 = per_phase(data, phases, w0)?;
    if data.is_empty() {
        return Err("no positions to fit K on".into());
    }
    let n = data.len();
    let mut s = vec![0.0; n];
    let mut y = vec![0.0; n];
    for i in 0..n {
        s[i] = score(data, phases, &w0, i);
        y[i] = data.label(i);
    }
    // (loss, first derivative, second derivative) at K, as means.
    let eval = |k: f64| -> (f64, f64, f64) {
        let (mut l, mut d1, mut d2) = (0.0, 0.0, 0.0);
        for (&s, &y) in s.iter().zip(&y) {
            let z = k * s;
            let p = sigmoid(z);
            l += softplus(z) - y * z;
            d1 += (p - y) * s;
            d2 += p * (1.0 - p) * s * s;
        }
        let n = n as f64;
        (l / n, d1 / n, d2 / n)
    };
    let (mut loss, mut d1, mut d2) = eval(0.0);
    if d1 >= 0.0 {
        return Err(format!(
            "the start weights do not predict the results: the best K is not positive \
             (slope {d1:.3e} at K = 0); start from better weights"
        ));
    }
    let mut k = 0.0;
    let mut iterations = 0;
    while iterations < 100 {
        if d2 <= 0.0 {
            break;
        }
        let step = -d1 / d2;
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..60 {
            let trial = k + t * step;
            if trial > 0.0 {
                let e = eval(trial);
                if e.0 <= loss + 1e-4 * t * step * d1 {
                    accepted = Some((trial, e));
                    break;
                }
            }
            t *= 0.5;
        }
        let Some((trial, e)) = accepted else { break };
        iterations += 1;
        let done = (trial - k).abs() <= 1e-10 * trial.abs();
        k = trial;
        (loss, d1, d2) = e;
        if done || d1 * d1 / d2 < 1e-14 {
            break;
        }
    }
    if k <= 0.0 || !k.is_finite() {
        return Err(format!("the K fit failed (K = {k})"));
    }
    Ok(KFit {
        k,
        loss,
        iterations,
    })
}

/// The start weights as one vector per phase.
fn per_phase(data: &Positions, phases: &Phases, w0: &[f64]) -> Result<Vec<f64>, String> {
    let d = data.features;
    if w0.len() == d {
        Ok(w0.repeat(phases.count()))
    } else if w0.len() == d * phases.count() {
        Ok(w0.to_vec())
    } else {
        Err(format!(
            "{} start weights for {d} features and {} phases",
            w0.len(),
            phases.count()
        ))
    }
}

/// Sums over positions for one Newton step: per phase the loss, the gradient and the Hessian's
/// lower triangle (without the factors K and K²), and the positions.
struct Sums {
    loss: f64,
    grad: Vec<f64>,
    hess: Vec<f64>,
    count: Vec<usize>,
}

impl Sums {
    fn new(phases: usize, d: usize, hessian: bool) -> Sums {
        Sums {
            loss: 0.0,
            grad: vec![0.0; phases * d],
            hess: if hessian {
                vec![0.0; phases * d * d]
            } else {
                Vec::new()
            },
            count: vec![0; phases],
        }
    }

    fn add(&mut self, other: Sums) {
        self.loss += other.loss;
        for (a, b) in self.grad.iter_mut().zip(other.grad) {
            *a += b;
        }
        for (a, b) in self.hess.iter_mut().zip(other.hess) {
            *a += b;
        }
        for (a, b) in self.count.iter_mut().zip(other.count) {
            *a += b;
        }
    }
}

/// One pass over the positions at weights `w`: the loss sum, and the gradient and Hessian sums
/// when `hessian`.
fn pass(data: &Positions, phases: &Phases, k: f64, w: &[f64], hessian: bool) -> Sums {
    let d = data.features;
    let p_count = phases.count();
    let mut total = Sums::new(p_count, d, hessian);
    chunked(
        data.len(),
        |range| {
            let mut sums = Sums::new(p_count, d, hessian);
            let mut f = [0.0f64; MAX_FEATURES];
            for i in range {
                let phase = phases.of(data.ply(i));
                let w = &w[phase * d..(phase + 1) * d];
                let mut s = 0.0;
                for ((x, &v), &w) in f.iter_mut().zip(data.values(i)).zip(w) {
                    *x = v as f64;
                    s += *x * w;
                }
                let z = k * s;
                let y = data.label(i);
                sums.loss += softplus(z) - y * z;
                sums.count[phase] += 1;
                if hessian {
                    let p = sigmoid(z);
                    let r = p - y;
                    let c = p * (1.0 - p);
                    let g = &mut sums.grad[phase * d..(phase + 1) * d];
                    for (g, &x) in g.iter_mut().zip(&f[..d]) {
                        *g += r * x;
                    }
                    let h = &mut sums.hess[phase * d * d..(phase + 1) * d * d];
                    for a in 0..d {
                        let ca = c * f[a];
                        if ca == 0.0 {
                            continue;
                        }
                        let row = &mut h[a * d..a * d + a + 1];
                        for (h, &x) in row.iter_mut().zip(&f[..=a]) {
                            *h += ca * x;
                        }
                    }
                }
            }
            sums
        },
        |sums| total.add(sums),
    );
    total
}

/// Solves `a·x = b` for a symmetric positive definite `a` (n×n, row-major, the lower triangle
/// read) by Cholesky; `b` becomes `x`. `None` when `a` is not positive definite.
fn cholesky_solve(a: &[f64], n: usize, b: &mut [f64]) -> Option<()> {
    let mut l = [0.0f64; MAX_FEATURES * MAX_FEATURES];
    for i in 0..n {
        for j in 0..=i {
            let mut sum = a[i * n + j];
            for k in 0..j {
                sum -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if sum <= 0.0 || !sum.is_finite() {
                    return None;
                }
                l[i * n + i] = sum.sqrt();
            } else {
                l[i * n + j] = sum / l[j * n + j];
            }
        }
    }
    for i in 0..n {
        let mut sum = b[i];
        for k in 0..i {
            sum -= l[i * n + k] * b[k];
        }
        b[i] = sum / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut sum = b[i];
        for k in i + 1..n {
            sum -= l[k * n + i] * b[k];
        }
        b[i] = sum / l[i * n + i];
    }
    Some(())
}

/// The mean cross-entropy of σ(K·w·f) against the labels, `w` one vector for every phase or
/// one per phase: how well weights fitted elsewhere predict these positions (held-out data).
pub fn mean_loss(data: &Positions, phases: &Phases, k: f64, w: &[f64]) -> Result<f64, String> {
    if data.is_empty() {
        return Err("no positions".into());
    }
    let w = per_phase(data, phases, w)?;
    Ok(pass(data, phases, k, &w, false).loss / data.len() as f64)
}

/// The ridge's weight per phase and feature (share of positions · λ · K² · (mean f² +
/// floor)), and how many positions each phase has.
fn ridge_weights(data: &Positions, phases: &Phases, lambda: f64, k: f64) -> (Vec<f64>, Vec<usize>) {
    let d = data.features;
    let pc = phases.count();
    let n = data.len() as f64;
    let mut square = vec![0.0; pc * d];
    let mut count = vec![0usize; pc];
    for i in 0..data.len() {
        let p = phases.of(data.ply(i));
        count[p] += 1;
        for (s, &v) in square[p * d..(p + 1) * d].iter_mut().zip(data.values(i)) {
            *s += v as f64 * v as f64;
        }
    }
    let ridge: Vec<f64> = (0..pc * d)
        .map(|j| {
            let c = count[j / d];
            if c == 0 {
                return 0.0;
            }
            let share = c as f64 / n;
            share * lambda * k * k * (square[j] / c as f64 + RIDGE_FLOOR)
        })
        .collect();
    (ridge, count)
}

/// One Newton step of the fit into `step`, phase by phase (the Hessian is block diagonal):
/// the gradient and Hessian of the mean loss in `sums` (over `n` positions, `count` per
/// phase) plus the ridge towards `w0`, at `w`. Returns the Newton decrement (gradient ·
/// Hessian⁻¹ · gradient); `hess` is room for one phase's Hessian.
#[allow(clippy::too_many_arguments)]
fn newton_step(
    sums: &Sums,
    w: &[f64],
    w0: &[f64],
    ridge: &[f64],
    count: &[usize],
    k: f64,
    n: f64,
    step: &mut [f64],
    hess: &mut [f64],
) -> Result<f64, String> {
    let pc = count.len();
    let d = w.len() / pc;
    let mut decrement = 0.0;
    for p in 0..pc {
        let g = &mut step[p * d..(p + 1) * d];
        if count[p] == 0 {
            g.fill(0.0);
            continue;
        }
        for (i, g) in g.iter_mut().enumerate() {
            let j = p * d + i;
            *g = k * sums.grad[j] / n + ridge[j] * (w[j] - w0[j]);
        }
        let grad: [f64; MAX_FEATURES] = std::array::from_fn(|i| if i < d { g[i] } else { 0.0 });
        for a in 0..d {
            for b in 0..=a {
                let v = k * k * sums.hess[p * d * d + a * d + b] / n;
                hess[a * d + b] = v;
                hess[b * d + a] = v;
            }
            hess[a * d + a] += ridge[p * d + a];
        }
        if cholesky_solve(hess, d, g).is_none() {
            // Not definite (λ = 0 and a feature the data leaves free): a tiny jitter.
            let jitter = 1e-12 * (0..d).map(|a| hess[a * d + a]).fold(1e-300, f64::max);
            for a in 0..d {
                hess[a * d + a] += jitter;
            }
            g.copy_from_slice(&grad[..d]);
            cholesky_solve(hess, d, g)
                .ok_or_else(|| format!("the Hessian of phase {p} is singular"))?;
        }
        for (i, g) in g.iter_mut().enumerate() {
            decrement += *g * grad[i];
            *g = -*g;
        }
    }
    Ok(decrement)
}

/// Fits the weights with K fixed: Newton's method on the mean cross-entropy plus the ridge
/// towards `w0` (one vector for every phase, or one per phase), from `w0`.
pub fn fit_weights(
    data: &Positions,
    w0: &[f64],
    k: f64,
    options: &FitOptions,
) -> Result<WeightFit, String> {
    if data.is_empty() {
        return Err("no positions to fit on".into());
    }
    if !(k > 0.0 && k.is_finite()) {
        return Err(format!("K must be positive and finite, not {k}"));
    }
    if !(options.lambda >= 0.0 && options.lambda.is_finite()) {
        return Err(format!("lambda must be 0 or more, not {}", options.lambda));
    }
    let phases = &options.phases;
    let w0 = per_phase(data, phases, w0)?;
    let d = data.features;
    let pc = phases.count();
    let n = data.len() as f64;

    let (ridge, count) = ridge_weights(data, phases, options.lambda, k);
    let penalty = |w: &[f64]| -> f64 {
        0.5 * w
            .iter()
            .zip(&w0)
            .zip(&ridge)
            .map(|((w, w0), r)| r * (w - w0) * (w - w0))
            .sum::<f64>()
    };

    let mut w = w0.clone();
    let mut sums = pass(data, phases, k, &w, true);
    let start_loss = sums.loss / n;
    let mut objective = start_loss + penalty(&w);
    let mut iterations = 0;
    let mut converged = false;
    let mut step = vec![0.0; pc * d];
    let mut trial = vec![0.0; pc * d];
    let mut hess = vec![0.0; d * d];
    while iterations < options.max_iterations {
        // The Newton step, phase by phase (the Hessian is block diagonal).
        let decrement = newton_step(&sums, &w, &w0, &ridge, &count, k, n, &mut step, &mut hess)?;
        if decrement / 2.0 < options.tolerance {
            converged = true;
            break;
        }
        // Backtracking: the full step almost always passes (Armijo with c = 1e-4).
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..40 {
            for ((x, &w), &s) in trial.iter_mut().zip(&w).zip(&step) {
                *x = w + t * s;
            }
            let s = pass(data, phases, k, &trial, true);
            let obj = s.loss / n + penalty(&trial);
            if obj <= objective - 1e-4 * t * decrement {
                accepted = Some((s, obj));
                break;
            }
            t *= 0.5;
        }
        iterations += 1;
        let Some((s, obj)) = accepted else {
            // No decrease left within rounding: at the minimum as far as f64 can tell.
            converged = true;
            break;
        };
        std::mem::swap(&mut w, &mut trial);
        sums = s;
        objective = obj;
    }
    Ok(WeightFit {
        loss: sums.loss / n,
        objective,
        start_loss,
        values: w,
        iterations,
        converged,
        phase_positions: count,
    })
}

/// Why a tapered fit cannot run with these options (more than one phase), if it cannot.
fn check_taper(options: &FitOptions) -> Result<(), String> {
    if options.phases.count() > 1 {
        return Err(format!(
            "a tapered fit has one phase: phases by ply ({} phases) and a taper together are \
             not supported; fit one or the other",
            options.phases.count()
        ));
    }
    Ok(())
}

/// The weight vector of `weights` on the columns of `data`: the weights themselves, or for
/// tapered positions the opening then the endgame weights divided by T (see [`Positions`]).
/// Tapered weights on positions that are not tapered are refused.
pub fn column_weights(data: &Positions, weights: &Weights) -> Result<Vec<f64>, String> {
    match data.taper {
        Some(total) => {
            let t = total as f64;
            Ok(weights
                .values
                .iter()
                .chain(weights.endgame_values())
                .map(|w| w / t)
                .collect())
        }
        None if weights.is_tapered() => Err(format!(
            "the weights of {} are tapered, but the positions are not (taper them first)",
            weights.origin
        )),
        None => Ok(weights.values.clone()),
    }
}

/// The mean cross-entropy of σ(K·eval) against the labels of `data` (one phase), `eval` the
/// evaluation of `weights`, tapered or not: how well weights fitted elsewhere predict these
/// positions (held-out data). Tapered weights on positions that are not tapered taper a copy
/// of them first.
pub fn weights_loss(data: &Positions, k: f64, weights: &Weights) -> Result<f64, String> {
    let single = Phases::single();
    if data.taper.is_none() && weights.is_tapered() {
        let tapered = data.tapered()?;
        return mean_loss(&tapered, &single, k, &column_weights(&tapered, weights)?);
    }
    mean_loss(data, &single, k, &column_weights(data, weights)?)
}

/// Texel's method on `data`, positions of the game of `start`: K fitted to `start_weights`
/// (unless [`FitOptions::k`] gives it), then the weights, one vector per phase, named by the
/// game's features.
///
/// Tapered ([`FitOptions::taper`], or `data` tapered already): the fit runs on the tapered
/// positions ([`Positions::tapered`], made here when `data` is not), from the start weights'
/// opening and endgame vectors divided by T (the endgame the opening's when the start is not
/// tapered), K fitted to them as for an untapered start (the same K when the start is
/// untapered); the result, multiplied back by T, is one [`Weights`] with its endgame vector.
/// Tapered start weights need a tapered fit, and a tapered fit one phase.
pub fn fit<G: Features>(
    start: &G,
    data: &Positions,
    start_weights: &Weights,
    options: &FitOptions,
) -> Result<Fit, String> {
    let d = start.features().len();
    let tapered = options.taper || data.taper.is_some();
    let columns = if tapered { 2 * d } else { d };
    if start_weights.values.len() != d || start_weights.endgame_values().len() != d {
        return Err(format!(
            "{} start weights for the {d} features of {}",
            start_weights.values.len(),
            start.name()
        ));
    }
    let expanded;
    let data = if tapered {
        check_taper(options)?;
        if data.taper.is_none() {
            if data.features != d {
                return Err(format!(
                    "{} features in the positions for the {d} features of {}",
                    data.features,
                    start.name()
                ));
            }
            expanded = data.tapered()?;
            &expanded
        } else {
            data
        }
    } else {
        if start_weights.is_tapered() {
            return Err(format!(
                "the start weights of {} are tapered: fit them tapered (FitOptions::taper, \
                 `joute fit --taper`)",
                start_weights.origin
            ));
        }
        data
    };
    if data.features != columns {
        return Err(format!(
            "{} features in the positions and {} start weights for the {d} features of {}",
            data.features,
            start_weights.values.len(),
            start.name()
        ));
    }
    let w0 = column_weights(data, start_weights)?;
    let (k, k_iterations) = match options.k {
        Some(k) => (k, 0),
        None => {
            let kf = fit_k(data, &options.phases, &w0)?;
            (kf.k, kf.iterations)
        }
    };
    let wf = fit_weights(data, &w0, k, options)?;
    let weights = match data.taper {
        Some(total) => {
            let t = total as f64;
            vec![Weights {
                game: start.name(),
                values: wf.values[..d].iter().map(|w| w * t).collect(),
                endgame: Some(wf.values[d..].iter().map(|w| w * t).collect()),
                origin: "regression fit, tapered".to_string(),
            }]
        }
        None => {
            let phases = options.phases.count();
            (0..phases)
                .map(|p| Weights {
                    game: start.name(),
                    values: wf.values[p * d..(p + 1) * d].to_vec(),
                    endgame: None,
                    origin: if phases == 1 {
                        "regression fit".to_string()
                    } else {
                        format!("regression fit, phase {p} of {phases}")
                    },
                })
                .collect()
        }
    };
    Ok(Fit {
        k,
        k_iterations,
        weights,
        taper: data.taper,
        start_loss: wf.start_loss,
        loss: wf.loss,
        objective: wf.objective,
        positions: data.len(),
        phase_positions: wf.phase_positions,
        iterations: wf.iterations,
        converged: wf.converged,
    })
}

/// What [`fit_logs`] made: the fit, and the first phase's weights as a weights file.
pub struct FittedLogs {
    /// The fit ([`Fit::taper`] says whether it is tapered).
    pub fit: Fit,
    /// `weights[0]` as a weights TOML file (the game's format, with the fit's summary; with an
    /// `[endgame]` table when tapered).
    pub toml: String,
    /// Games whose positions were fitted.
    pub games: u64,
    /// Games left out: lost by a failure, whose result says nothing of the positions.
    pub skipped_games: u64,
}

/// Texel's method on the games of `logs` (all of `kind`): positions collected with `collect`,
/// K and the weights fitted from `start_weights` (a weights file of the game; `None`: the
/// game's defaults).
pub fn fit_logs(
    kind: &crate::games::GameKind,
    logs: &[&Path],
    start_weights: Option<&Path>,
    collect_options: &CollectOptions,
    options: &FitOptions,
) -> Result<FittedLogs, String> {
    struct Visit<'a> {
        logs: &'a [&'a Path],
        start_weights: Option<&'a Path>,
        collect_options: &'a CollectOptions,
        options: &'a FitOptions,
    }
    impl crate::eval::FeaturesVisitor for Visit<'_> {
        type Output = Result<FittedLogs, String>;
        fn visit<G: Features>(self, start: G) -> Self::Output {
            let w0 = match self.start_weights {
                Some(path) => Weights::load(&start, path).map_err(|e| e.to_string())?,
                None => Weights::default_for(&start),
            };
            if self.options.taper {
                check_taper(self.options)?;
            }
            let mut data = collect(start, self.logs, self.collect_options)?;
            if data.is_empty() {
                return Err(format!(
                    "no positions to fit in {} log(s) ({} games read, {} skipped)",
                    self.logs.len(),
                    data.games,
                    data.skipped_games
                ));
            }
            if self.options.taper {
                // Tapered in place of the collected positions: one copy in memory, not two.
                data = data.tapered()?;
            }
            let fit = fit(&start, &data, &w0, self.options)?;
            let toml = fit.weights[0].to_toml(&start, &fit.summary());
            Ok(FittedLogs {
                fit,
                toml,
                games: data.games,
                skipped_games: data.skipped_games,
            })
        }
    }
    crate::eval::dispatch(
        kind,
        Visit {
            logs,
            start_weights,
            collect_options,
            options,
        },
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::games::{Connect4, Game, Morpion, Othello, random_game};

    /// `n` synthetic positions of `d` features uniform in -8..=8 (ply uniform in 0..60), labels
    /// drawn as Bernoulli(σ(K·w·f)) with the weights of each position's phase.
    fn synthetic(
        n: usize,
        d: usize,
        truth: &[f64],
        k: f64,
        phases: &Phases,
        seed: u64,
    ) -> Positions {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut data = Positions::new(d);
        let mut f = vec![0i32; d];
        for _ in 0..n {
            for x in f.iter_mut() {
                *x = rng.random_range(-8..=8);
            }
            let ply = rng.random_range(0..60usize);
            let p = phases.of(ply);
            let s: f64 = f
                .iter()
                .zip(&truth[p * d..(p + 1) * d])
                .map(|(&f, w)| f as f64 * w)
                .sum();
            let label = if rng.random_range(0.0..1.0) < sigmoid(k * s) {
                1.0
            } else {
                0.0
            };
            data.push(&f, label, ply);
        }
        data
    }

    /// Within 5% of the truth for weights of magnitude 10 or more, within 0.6 (about 5
    /// standard errors at N = 200,000) for the others.
    fn close(fitted: &[f64], truth: &[f64]) -> bool {
        fitted.iter().zip(truth).all(|(&f, &t)| {
            if t.abs() >= 10.0 {
                ((f - t) / t).abs() <= 0.05
            } else {
                (f - t).abs() <= 0.6
            }
        })
    }

    const TRUTH: [f64; 6] = [30.0, -12.0, 4.0, 0.0, 15.0, -2.0];
    const K: f64 = 0.01;

    #[test]
    fn regression_recovers_known_weights() {
        let data = synthetic(200_000, 6, &TRUTH, K, &Phases::single(), 1);
        let options = FitOptions {
            k: Some(K),
            ..FitOptions::default()
        };
        let start = [1.0; 6];
        let fit = fit_weights(&data, &start, K, &options).unwrap();
        assert!(fit.converged && fit.iterations < 15, "{fit:?}");
        println!("truth {TRUTH:?}, fitted {fit:?}");
        assert!(close(&fit.values, &TRUTH), "{:?} vs {TRUTH:?}", fit.values);
        assert!(fit.loss < fit.start_loss);
        let free = FitOptions {
            lambda: 0.0,
            ..options.clone()
        };
        let unpenalised = fit_weights(&data, &start, K, &free).unwrap();
        println!("lambda 0: fitted {:?}", unpenalised.values);
        assert!(close(&unpenalised.values, &TRUTH));
        // Deterministic.
        assert_eq!(fit_weights(&data, &start, K, &options).unwrap(), fit);

        // The check can fail: data from another model (two weights swapped) is not fitted to
        // the truth, and neither is the right data at the wrong K.
        let mut wrong = TRUTH;
        wrong.swap(1, 4);
        let other = synthetic(200_000, 6, &wrong, K, &Phases::single(), 2);
        let fit_other = fit_weights(&other, &start, K, &options).unwrap();
        assert!(close(&fit_other.values, &wrong), "{:?}", fit_other.values);
        assert!(!close(&fit_other.values, &TRUTH));
        println!("wrong model {wrong:?}: fitted {:?}", fit_other.values);
        let off = fit_weights(&data, &start, K * 1.2, &options).unwrap();
        assert!(!close(&off.values, &TRUTH), "{:?}", off.values);
        println!("K 20% too high: fitted {:?}", off.values);
    }

    #[test]
    fn regression_fits_phases_apart() {
        let phases = Phases::by_ply(vec![20, 40]).unwrap();
        assert_eq!(
            (phases.of(0), phases.of(19), phases.of(20), phases.of(59)),
            (0, 0, 1, 2)
        );
        let truth: Vec<f64> = [[30.0, -12.0, 4.0], [10.0, 0.0, 20.0], [-15.0, 25.0, 1.0]].concat();
        let data = synthetic(300_000, 3, &truth, K, &phases, 3);
        let options = FitOptions {
            phases: phases.clone(),
            ..FitOptions::default()
        };
        let fit = fit_weights(&data, &[5.0, 5.0, 5.0], K, &options).unwrap();
        assert!(fit.converged);
        assert_eq!(fit.phase_positions.iter().sum::<usize>(), 300_000);
        // Each phase has a third of the data: 5% still holds for the large weights.
        println!("phases: truth {truth:?}, fitted {fit:?}");
        assert!(close(&fit.values, &truth), "{:?}", fit.values);
    }

    #[test]
    fn regression_k_fit_finds_the_planted_k() {
        for (k, seed) in [(0.01, 4), (0.005, 5), (0.04, 6)] {
            let data = synthetic(200_000, 6, &TRUTH, k, &Phases::single(), seed);
            let kf = fit_k(&data, &Phases::single(), &TRUTH).unwrap();
            println!("planted K {k}: fitted {kf:?}");
            assert!(((kf.k - k) / k).abs() < 0.03, "planted {k}, fitted {kf:?}");
            // Twice the weights: half the K.
            let doubled: Vec<f64> = TRUTH.iter().map(|w| 2.0 * w).collect();
            let kd = fit_k(&data, &Phases::single(), &doubled).unwrap();
            assert!((kd.k * 2.0 / kf.k - 1.0).abs() < 1e-6, "{kd:?} {kf:?}");
        }
        // Weights that predict the opposite of the results have no positive K.
        let data = synthetic(10_000, 6, &TRUTH, 0.01, &Phases::single(), 7);
        let negated: Vec<f64> = TRUTH.iter().map(|w| -w).collect();
        let e = fit_k(&data, &Phases::single(), &negated).unwrap_err();
        assert!(e.contains("not positive"), "{e}");
    }

    /// `n` synthetic tapered positions of `d` features uniform in -8..=8, progress t uniform in
    /// 0..=T, labels drawn as Bernoulli(σ(K·((T − t)·w_open·f + t·w_end·f)/T)).
    fn synthetic_tapered(n: usize, open: &[f64], end: &[f64], total: u32, seed: u64) -> Positions {
        let d = open.len();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut data = Positions::with_progress(d, total);
        let mut f = vec![0i32; d];
        for _ in 0..n {
            for x in f.iter_mut() {
                *x = rng.random_range(-8..=8);
            }
            let t = rng.random_range(0..=total);
            let a = (total - t) as f64 / total as f64;
            let s: f64 = (0..d)
                .map(|i| f[i] as f64 * (a * open[i] + (1.0 - a) * end[i]))
                .sum();
            let label = if rng.random_range(0.0..1.0) < sigmoid(K * s) {
                1.0
            } else {
                0.0
            };
            data.push_with_progress(&f, label, t as usize, t);
        }
        data
    }

    const OPEN: [f64; 5] = [30.0, -12.0, 4.0, 0.0, 15.0];
    const END: [f64; 5] = [5.0, -12.0, 25.0, -10.0, 40.0];

    #[test]
    fn regression_recovers_planted_tapered_weights() {
        // Morpion 3×3 has 5 features and T = 9; the positions are synthetic.
        let start = Morpion::start(3, 3, 3);
        assert_eq!(start.features().len(), 5);
        let total = start.progress().1;
        let data = synthetic_tapered(300_000, &OPEN, &END, total, 11);
        let tapered = data.tapered().unwrap();
        assert_eq!((tapered.features(), tapered.taper()), (10, Some(9)));
        let (t, _) = data.progress(7).unwrap();
        let f = data.values(7);
        let expect: Vec<i32> = f
            .iter()
            .map(|&x| x * (9 - t as i32))
            .chain(f.iter().map(|&x| x * t as i32))
            .collect();
        assert_eq!(tapered.values(7), &expect[..]);

        let mut w0 = Weights::default_for(&start);
        w0.values = vec![1.0; 5];
        let options = FitOptions {
            k: Some(K),
            taper: true,
            ..FitOptions::default()
        };
        let fit = fit(&start, &data, &w0, &options).unwrap();
        assert!(fit.converged, "{fit:?}");
        assert_eq!(fit.taper, Some(9));
        assert!(fit.summary().contains("tapered"), "{}", fit.summary());
        assert_eq!(fit.weights.len(), 1);
        let w = &fit.weights[0];
        let end = w.endgame.clone().unwrap();
        println!(
            "tapered: truth {OPEN:?} → {END:?}, fitted {:?} → {end:?}",
            w.values
        );
        // The tolerance of `close`: 5% for weights of 10 or more, 0.6 for the others.
        assert!(close(&w.values, &OPEN) && close(&end, &END), "{w:?}");
        // Fitting the tapered positions directly gives the same.
        let again = super::fit(&start, &tapered, &w0, &options).unwrap();
        assert_eq!(again.weights, fit.weights);
        // K fitted to an untapered start is the untapered K.
        let mut w1 = w0.clone();
        w1.values = OPEN.to_vec();
        let free_k = FitOptions {
            k: None,
            ..options.clone()
        };
        let untapered_k = fit_k(&data, &Phases::single(), &w1.values).unwrap().k;
        let tapered_k = super::fit(&start, &data, &w1, &free_k).unwrap().k;
        assert!(
            (tapered_k / untapered_k - 1.0).abs() < 1e-9,
            "{tapered_k} {untapered_k}"
        );

        // The check can fail: data of another model (opening and endgame swapped) is fitted to
        // that model, not to the truth; an untapered fit of the right data matches neither.
        let other = synthetic_tapered(300_000, &END, &OPEN, total, 12);
        let fit_other = super::fit(&start, &other, &w0, &options).unwrap();
        let w = &fit_other.weights[0];
        let end = w.endgame.clone().unwrap();
        assert!(close(&w.values, &END) && close(&end, &OPEN), "{w:?}");
        assert!(!close(&w.values, &OPEN) && !close(&end, &END), "{w:?}");
        let flat = FitOptions {
            taper: false,
            ..options.clone()
        };
        let fit_flat = super::fit(&start, &data, &w0, &flat).unwrap();
        assert_eq!(
            (fit_flat.taper, fit_flat.weights[0].endgame.clone()),
            (None, None)
        );
        assert!(!close(&fit_flat.weights[0].values, &OPEN));
        assert!(!close(&fit_flat.weights[0].values, &END));
        assert!(fit_flat.loss > fit.loss);
    }

    #[test]
    fn regression_taper_refusals() {
        let start = Morpion::start(3, 3, 3);
        let data = synthetic_tapered(1000, &OPEN, &END, 9, 13);
        let w0 = Weights::default_for(&start);
        let phased = FitOptions {
            taper: true,
            phases: Phases::by_ply(vec![4]).unwrap(),
            ..FitOptions::default()
        };
        let e = fit(&start, &data, &w0, &phased).unwrap_err();
        assert!(e.contains("phases") && e.contains("taper"), "{e}");
        let e = fit(&start, &data.tapered().unwrap(), &w0, &phased).unwrap_err();
        assert!(e.contains("phases"), "{e}");
        // Tapered start weights need a tapered fit; positions without progress cannot taper.
        let mut tw = w0.clone();
        tw.endgame = Some(vec![1.0; 5]);
        let e = fit(&start, &data, &tw, &FitOptions::default()).unwrap_err();
        assert!(e.contains("tapered"), "{e}");
        let mut plain = Positions::new(5);
        plain.push(&[1, 2, 3, 4, 5], 1.0, 3);
        assert!(plain.progress(0).is_none());
        let e = plain.tapered().unwrap_err();
        assert!(e.contains("progress"), "{e}");
        let e = data.tapered().unwrap().tapered().unwrap_err();
        assert!(e.contains("already"), "{e}");
        let e = weights_loss(&plain, 0.01, &tw).unwrap_err();
        assert!(e.contains("progress"), "{e}");
        // A product beyond i32 is an error, not a wrap.
        let mut big = Positions::with_progress(1, 60);
        big.push_with_progress(&[i32::MAX / 30], 1.0, 0, 0);
        let e = big.tapered().unwrap_err();
        assert!(e.contains("32-bit"), "{e}");
    }

    #[test]
    fn regression_tapered_columns_fit_in_i32() {
        // Every game's feature bounds times its T fit an i32, with room.
        struct Check;
        impl crate::eval::FeaturesVisitor for Check {
            type Output = ();
            fn visit<G: Features>(self, start: G) {
                let total = start.progress().1 as i64;
                for b in start.feature_bounds() {
                    assert!(b as i64 * total <= i32::MAX as i64 / 4, "{}", start.name());
                }
                assert!(
                    2 * start.features().len() <= MAX_FEATURES,
                    "{}",
                    start.name()
                );
            }
        }
        for name in [
            "othello",
            "connect4",
            "morpion",
            "morpion-15x15-5",
            "morpion-15x15-15",
            "random-tree-64x32",
        ] {
            crate::eval::dispatch(&crate::games::GameKind::parse(name).unwrap(), Check);
        }
    }

    /// Random Othello games as log lines, their first 4 moves the opening.
    fn othello_games(from: u64, count: u64) -> Vec<GameLine> {
        let start = Othello::start();
        (from..from + count)
            .map(|g| {
                let (_, moves) = random_game(start, 200, 7000 + g);
                let mut pos = start;
                let text: Vec<String> = moves
                    .iter()
                    .map(|&m| {
                        let t = pos.format_move(m);
                        pos = pos.play(m);
                        t
                    })
                    .collect();
                line(start, g, &text, 4)
            })
            .collect()
    }

    #[test]
    fn regression_taper_predicts_held_out_othello_games_better() {
        // Fit on the positions of 1,500 random games, measure on 1,500 others.
        let dir = tempfile::tempdir().unwrap();
        let start = Othello::start();
        let train_path = write_log(dir.path(), &othello_games(0, 1500));
        let train = collect(start, &[&train_path], &CollectOptions::default()).unwrap();
        let held_path = dir.path().join("held.jsonl");
        std::fs::rename(
            write_log(dir.path(), &othello_games(1500, 1500)),
            &held_path,
        )
        .unwrap();
        let held = collect(start, &[&held_path], &CollectOptions::default()).unwrap();
        assert!(train.len() > 70_000 && held.len() > 70_000);
        let w0 = Weights::default_for(&start);
        let flat = fit(&start, &train, &w0, &FitOptions::default()).unwrap();
        let options = FitOptions {
            taper: true,
            ..FitOptions::default()
        };
        let tapered = fit(&start, &train, &w0, &options).unwrap();
        assert!(tapered.weights[0].is_tapered() && tapered.taper == Some(60));
        assert!((tapered.k / flat.k - 1.0).abs() < 1e-9);
        assert!(
            tapered.start_loss == flat.start_loss
                || (tapered.start_loss / flat.start_loss - 1.0).abs() < 1e-12
        );
        let flat_held = weights_loss(&held, flat.k, &flat.weights[0]).unwrap();
        let tapered_held = weights_loss(&held, tapered.k, &tapered.weights[0]).unwrap();
        let start_held = weights_loss(&held, flat.k, &w0).unwrap();
        println!(
            "random Othello games: train {} positions, held out {}; held-out loss: start {start_held:.5}, one vector {flat_held:.5}, tapered {tapered_held:.5}; training {:.5} vs {:.5}",
            train.len(),
            held.len(),
            flat.loss,
            tapered.loss
        );
        assert!(tapered.loss < flat.loss);
        assert!(tapered_held < flat_held, "{tapered_held} vs {flat_held}");
        // The tapered weights evaluate as LinearEval does, up to its integer rounding.
        let eval = crate::eval::LinearEval::new(&start, &tapered.weights[0]);
        let pos = start.play_sequence("f5d6c3d3c4f4").unwrap();
        let mut f = [0i32; 18];
        pos.feature_values(&mut f);
        let (t, total) = pos.progress();
        let a = (total - t) as f64 / total as f64;
        let w = &tapered.weights[0];
        let exact: f64 = (0..18)
            .map(|i| (a * w.values[i] + (1.0 - a) * w.endgame_values()[i]) * f[i] as f64)
            .sum();
        let slack = f.iter().map(|x| x.abs() as f64).sum::<f64>() + 1.0;
        use crate::eval::Evaluator;
        assert!((eval.evaluate(&pos) as f64 - exact * eval.scale()).abs() <= slack);
    }

    /// A log line for a game of `start` with these moves (the first `opening` of them the
    /// opening), scored by its end (a draw when unfinished).
    fn line<G: Game>(start: G, id: u64, moves: &[String], opening: usize) -> GameLine {
        let pos = moves
            .iter()
            .fold(start, |p, m| p.play(p.parse_move(m).unwrap()));
        let score = pos.outcome().map_or(0.5, |o| o.first_player_points());
        let margin = pos.outcome().map_or(0, |o| o.score);
        GameLine {
            id,
            pair: id / 2,
            round: 0,
            opening_index: id / 2,
            opening: moves[..opening].to_vec(),
            first: "a".into(),
            second: "b".into(),
            score,
            result: crate::arena::records::result_text(score).into(),
            margin,
            termination: if pos.outcome().is_some() {
                "normal".into()
            } else {
                "adjudication".into()
            },
            detail: None,
            adjudication: None,
            moves: moves[opening..].to_vec(),
            plies: moves.len() - opening,
            nodes: [0, 0],
            timed_out: false,
            timeouts: [0, 0],
            move_us: Vec::new(),
            move_ms: Vec::new(),
            move_nodes: Vec::new(),
            move_depth: Vec::new(),
            move_seldepth: Vec::new(),
            move_cpu_us: Vec::new(),
            clock_ms: Vec::new(),
            scores: Vec::new(),
            not_reproducible: Vec::new(),
            seed: id,
            spec: "test".into(),
            seconds: 0.0,
        }
    }

    pub(crate) fn write_log(dir: &Path, lines: &[GameLine]) -> std::path::PathBuf {
        let path = dir.join("games.jsonl");
        let text: String = lines
            .iter()
            .map(|l| serde_json::to_string(l).unwrap() + "\n")
            .collect();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `games` log lines of random games of `start` of at most `plies` plies (game `g` from
    /// seed `seed + g`), the first `opening` moves their opening.
    pub(crate) fn random_lines<G: Game>(
        start: G,
        games: u64,
        plies: usize,
        seed: u64,
        opening: usize,
    ) -> Vec<GameLine> {
        (0..games)
            .map(|g| {
                let (_, moves) = random_game(start, plies, seed + g);
                let mut pos = start;
                let text: Vec<String> = moves
                    .iter()
                    .map(|&m| {
                        let t = pos.format_move(m);
                        pos = pos.play(m);
                        t
                    })
                    .collect();
                line(start, g, &text, opening)
            })
            .collect()
    }

    /// Eight random Connect 4 games played to their end, and one cut short (adjudicated).
    fn connect4_games() -> Vec<GameLine> {
        let start = Connect4::start();
        let mut lines = random_lines(start, 8, 42, 100, 2);
        let cut: Vec<String> = "4453".chars().map(|c| c.to_string()).collect();
        lines.push(line(start, 8, &cut, 2));
        // Won by a score rule.
        (lines[8].score, lines[8].margin, lines[8].result) = (1.0, 1, "1-0".into());
        lines
    }

    #[test]
    fn regression_collects_positions_from_a_log() {
        let dir = tempfile::tempdir().unwrap();
        let lines = connect4_games();
        let path = write_log(dir.path(), &lines);
        let start = Connect4::start();
        let options = CollectOptions {
            skip_plies: 3,
            ..CollectOptions::default()
        };
        let data = collect(start, &[&path], &options).unwrap();
        assert_eq!(data.games, 9);
        // Plies 3.. of each finished game, the finished position left out; the cut game's
        // plies 3 and 4 (its last position is not finished).
        let expected: usize = lines[..8]
            .iter()
            .map(|l| l.opening.len() + l.moves.len() - 3)
            .sum::<usize>()
            + 2;
        assert_eq!(data.len(), expected);
        let mut i = 0;
        for l in &lines {
            let all: Vec<&String> = l.opening.iter().chain(&l.moves).collect();
            let mut pos = start;
            for (ply, m) in all.iter().enumerate() {
                if ply >= 3 {
                    assert_eq!(data.ply(i), ply);
                    let mover = if ply % 2 == 0 { l.score } else { 1.0 - l.score };
                    assert_eq!(data.label(i), mover, "game {} ply {ply}", l.id);
                    let mut f = [0; 10];
                    pos.feature_values(&mut f);
                    assert_eq!(data.values(i), f);
                    i += 1;
                }
                pos = pos.play(pos.parse_move(m).unwrap());
            }
            if pos.outcome().is_none() {
                assert_eq!(data.ply(i), all.len());
                i += 1;
            }
        }
        assert_eq!(i, data.len());

        // A sample of at most 3 per game, the same every time, another with another seed.
        let sample = |seed| {
            let options = CollectOptions {
                skip_plies: 3,
                max_per_game: Some(3),
                seed,
                ..CollectOptions::default()
            };
            collect(start, &[&path], &options).unwrap()
        };
        let a = sample(1);
        assert_eq!(a.len(), 8 * 3 + 2);
        assert_eq!(a, sample(1));
        assert_ne!(a.plies, sample(2).plies);

        // A game lost by a failure is skipped unless asked for.
        let mut failed = lines.clone();
        // The cut game, lost on time by the first player (to move after its 4 plies).
        failed[8].termination = "timeout".into();
        (failed[8].score, failed[8].margin, failed[8].result) = (0.0, -1, "0-1".into());
        let path2 = dir.path().join("failed.jsonl");
        std::fs::rename(write_log(dir.path(), &failed), &path2).unwrap();
        let skipped = collect(start, &[&path2], &options).unwrap();
        assert_eq!((skipped.games, skipped.skipped_games), (8, 1));
        assert!(skipped.len() < data.len());
        // A score that contradicts the moves is refused.
        let mut wrong = lines;
        wrong[0].score = if wrong[0].score == 1.0 { 0.0 } else { 1.0 };
        wrong[0].result = crate::arena::records::result_text(wrong[0].score).into();
        wrong[0].margin = -wrong[0].margin;
        let path3 = write_log(dir.path(), &wrong);
        let e = collect(start, &[&path3], &options).unwrap_err();
        assert!(
            e.contains("games.jsonl:1: game 0:") && e.contains("score"),
            "{e}"
        );
    }

    /// The first player's points under perfect play, by looking at every line to the end.
    fn perfect_points<G: Game>(pos: &G) -> f64 {
        if let Some(outcome) = pos.outcome() {
            return outcome.first_player_points();
        }
        let mut moves = crate::games::MoveList::new();
        pos.legal_moves(&mut moves);
        let values = moves.iter().map(|&m| perfect_points(&pos.play(m)));
        match pos.side_to_move() {
            Side::First => values.fold(0.0, f64::max),
            Side::Second => values.fold(1.0, f64::min),
        }
    }

    #[test]
    fn exact_labels_are_the_results_under_perfect_play() {
        let dir = tempfile::tempdir().unwrap();
        let start = Othello::start();
        let lines = random_lines(start, 6, 80, 300, 4);
        let path = write_log(dir.path(), &lines);
        let by_result = |exact_labels| CollectOptions {
            exact_labels,
            ..CollectOptions::default()
        };
        let plain = collect(start, &[&path], &by_result(0)).unwrap();
        let mut collector = Collector::new(start, by_result(8));
        collector.add_log(&path).unwrap();
        let solved = collector.solved();
        let exact = collector.finish();
        assert_eq!(exact.len(), plain.len());
        let (mut checked, mut changed) = (0, 0);
        let mut i = 0;
        for l in &lines {
            let mut pos = start;
            for (ply, m) in l.opening.iter().chain(&l.moves).enumerate() {
                if ply >= l.opening.len() {
                    assert_eq!(exact.ply(i), ply);
                    if empties(&pos).unwrap() <= 8 {
                        let points = perfect_points(&pos);
                        let mover = match pos.side_to_move() {
                            Side::First => points,
                            Side::Second => 1.0 - points,
                        };
                        assert_eq!(exact.label(i), mover, "game {} ply {ply}", l.id);
                        checked += 1;
                        changed += usize::from(mover != plain.label(i));
                    } else {
                        assert_eq!(exact.label(i), plain.label(i), "game {} ply {ply}", l.id);
                    }
                    i += 1;
                }
                pos = pos.play(pos.parse_move(m).unwrap());
            }
        }
        assert_eq!(i, exact.len());
        assert_eq!(solved, checked as u64);
        assert!(checked >= 6 * 8, "{checked}");
        // Random play throws games away: some positions' results are not their games'.
        assert!(changed > 0);
    }

    #[test]
    fn margin_labels_are_the_logistic_of_the_final_disc_difference() {
        let dir = tempfile::tempdir().unwrap();
        let start = Othello::start();
        let mut lines = random_lines(start, 6, 80, 500, 4);
        // One game cut short keeps its result as its label.
        let cut = lines[0].opening.iter().chain(&lines[0].moves).take(30);
        let cut: Vec<String> = cut.cloned().collect();
        lines.push(line(start, 6, &cut, 4));
        (lines[6].score, lines[6].margin, lines[6].result) = (1.0, 1, "1-0".into());
        let path = write_log(dir.path(), &lines);
        let scale = 8.0;
        let mut collector = Collector::new(
            start,
            CollectOptions {
                margin_scale: scale,
                ..CollectOptions::default()
            },
        );
        let mut soft = 0;
        scan_log(&path, |l| {
            collector.sample(&l)?;
            let end = l
                .opening
                .iter()
                .chain(&l.moves)
                .fold(start, |p, m| p.play(p.parse_move(m).unwrap()));
            let black = i32::try_from(end.black().count_ones()).unwrap();
            let white = i32::try_from(end.white().count_ones()).unwrap();
            let lead = black - white;
            // The empty squares go to the winner.
            let black_margin = lead + lead.signum() * (64 - black - white);
            for &(pos, ply, label) in collector.sampled() {
                let expected = if l.termination == "normal" {
                    let m = match pos.side_to_move() {
                        Side::First => black_margin,
                        Side::Second => -black_margin,
                    };
                    soft += usize::from(label != 0.0 && label != 1.0);
                    1.0 / (1.0 + (-f64::from(m) / scale).exp())
                } else {
                    match pos.side_to_move() {
                        Side::First => 1.0,
                        Side::Second => 0.0,
                    }
                };
                assert!((label - expected).abs() < 1e-12, "game {} ply {ply}", l.id);
            }
            Ok(())
        })
        .unwrap();
        assert!(soft > 100, "{soft}");
    }

    #[test]
    fn regression_refuses_a_log_of_another_game() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_log(dir.path(), &connect4_games());
        let e = collect(Othello::start(), &[&path], &CollectOptions::default()).unwrap_err();
        assert!(
            e.starts_with(&format!("{}:1: game 0: move 1 '", path.display()))
                && e.contains("othello")
                && e.contains("another game"),
            "{e}"
        );
    }

    /// Texel on a real log (not run by default): `JOUTE_FIT_LOG=/tmp/fitdata/games.jsonl cargo
    /// test --release --lib regression_measure -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn regression_measure() {
        let Ok(path) = std::env::var("JOUTE_FIT_LOG") else {
            return;
        };
        let start = Othello::start();
        let t = std::time::Instant::now();
        let collect_options = CollectOptions {
            skip_plies: 8,
            ..CollectOptions::default()
        };
        let data = collect(start, &[Path::new(&path)], &collect_options).unwrap();
        let collect_s = t.elapsed().as_secs_f64();
        println!(
            "collected {} positions of {} games in {collect_s:.3} s ({:.0} positions/s)",
            data.len(),
            data.games,
            data.len() as f64 / collect_s
        );
        let w0 = Weights::default_for(&start);
        for (phases, taper) in [
            (Phases::single(), false),
            (Phases::by_ply(vec![20, 40]).unwrap(), false),
            (Phases::single(), true),
        ] {
            let t = std::time::Instant::now();
            let options = FitOptions {
                phases,
                taper,
                ..FitOptions::default()
            };
            let fit = fit(&start, &data, &w0, &options).unwrap();
            let s = t.elapsed().as_secs_f64();
            println!(
                "fit in {s:.3} s ({:.0} position-passes/s): {}",
                data.len() as f64 * (fit.iterations + fit.k_iterations + 2) as f64 / s,
                fit.summary()
            );
            for w in &fit.weights {
                println!("{}", w.to_toml(&start, &w.origin));
            }
            if let Ok(held) = std::env::var("JOUTE_FIT_HOLDOUT") {
                let held = collect(start, &[Path::new(&held)], &collect_options).unwrap();
                let fitted: Vec<f64> = fit.weights.iter().flat_map(|w| w.values.clone()).collect();
                let loss = if taper {
                    weights_loss(&held, fit.k, &fit.weights[0]).unwrap()
                } else {
                    mean_loss(&held, &options.phases, fit.k, &fitted).unwrap()
                };
                println!(
                    "held out ({} positions): mean log loss {:.6} at the start, {loss:.6} fitted",
                    held.len(),
                    mean_loss(&held, &options.phases, fit.k, &w0.values).unwrap(),
                );
            }
        }
    }
}

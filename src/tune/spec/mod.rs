//! Tuning specs (`tournaments/tune-*.toml`), read like tournament specs: the TOML structure
//! with spans and unknown keys refused, then validated into a [`ResolvedTuneSpec`] (written to
//! `checkpoint.json`; its hash guards `--resume`). Errors are [`SpecError`]s:
//! `FILE:LINE:COLUMN: key 'KEY': what is wrong; what is allowed`.
//!
//! ```toml
//! name = "tune-othello"           # required; output folder reports/NAME/
//! game = "othello"                # required
//! seed = 2026                     # required; every random choice derives from it
//! method = "hill-climb"           # required: "hill-climb" or "spsa"
//! weights_out = "../weights/othello-tuned.toml"   # optional: a copy of the tuned weights
//!                                 # (always in the run's folder as tuned-weights.toml); an
//!                                 # existing file is replaced only with --force
//! opponent = "incumbent"          # default; or "pool" with [[pool]] engines
//!
//! [engine]                        # the engine tuned: the keys of a tournament engine, no name
//! algorithm = "alphabeta"
//! depth = 3
//! weights = "weights/othello-discs.toml"   # the start; features not tuned keep these values
//!                                 # or an outside program (command, args, protocol, options,
//!                                 # … as in tournaments; tc/st at the top put it on a clock):
//!                                 # then each [[param]] is an option, its start from start = N
//!                                 # or from options, integer = true to send it rounded
//!
//! [openings]                      # fresh random openings, never one twice in a run
//! plies = 8                       # also balance_depth and max_imbalance, as in tournaments
//!
//! [budget]                        # at least one of the two
//! iterations = 500                # hill-climb: the most candidates; spsa: N (required)
//! games = 200000                  # the most games in all, confirmation included
//!
//! [hill]                          # hill-climb only; every key optional
//! neighbour = "single"            # or "all" (every parameter ± its step at once)
//! batch = 16                      # pairs between two looks at the test
//! max_pairs = 1000                # the most pairs per candidate
//! patience = 6                    # rejections of a parameter that halve its step
//! min_step = 0.0625               # the smallest step, as a fraction of `step`
//! pairs = 200                     # a fixed-length test instead of [sprt]
//!
//! [sprt]                          # hill-climb's test (default elo0 = 0, elo1 = 10)
//! elo0 = 0
//! elo1 = 10
//!
//! [spsa]                          # spsa only
//! pairs = 2                       # colour-swapped pairs per iteration
//!
//! [confirm]                       # tuned against start on held-out openings
//! games = 2000                    # required, even
//! aa_games = 400                  # optional A/A match (start against itself, ties among
//!                                 # equal moves broken at random: pass, fail or not meaningful)
//! plies = 8                       # default: the openings' plies
//!
//! [[param]]                       # one or more
//! name = "mobility"               # a feature of the game
//! min = 0
//! max = 40
//! step = 4                        # hill-climb's first step; SPSA's c_end when that is absent
//! c_end = 2                       # optional (spsa)
//! r_end = 0.002                   # optional (spsa)
//! ```
//!
//! The files: this one holds the raw tables, the resolved form and its checks; `validate`
//! resolves a spec section by section, one small function each (method, `weights_out`, the
//! engine tuned, opponents and pool, openings, budget, `[hill]`, `[spsa]`, confirmation,
//! parameters, then what needs the game: weights, the parameters' features, the openings'
//! supply); `regression` resolves `[regression]` (the linear fit's keys, the pattern fit's, its
//! start and its search labels); `outside` what an outside engine adds (its clock, each
//! parameter's option and start). The checks they share with tournament specs (ranges, choices,
//! durations; the random openings' plies and balance) are `crate::arena::spec`'s.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::optimise::hill::{Acceptance, HillConfig, Neighbour};
use super::optimise::params::Param;
use super::optimise::spsa::SpsaConfig;
use crate::arena::openings::{Balance, OpeningStream};
use crate::arena::spec::ResolvedClock;
use crate::arena::spec::{
    Locator, MAX_GAMES, PatternsFile, RawEngine, RawSprt, ResolvedEngine, SpecError, SpecKind,
    default_exact, engine_budget, hash_json, name_and_game, opening_balance, opening_plies,
    plain_serde_message, resolve_sprt, resolve_weights,
};
use crate::eval::{Features, FeaturesVisitor};
use crate::games::GameKind;
use crate::outputs::number_text;
use crate::stats::sprt::{EloModel, Sprt};

mod outside;
mod regression;
mod validate;

use validate::validate;

/// The fewest distinct openings the tuning and confirmation plies must give, checked when
/// the spec is read (a run needs far more; fewer means the plies are useless).
const MIN_OPENINGS: usize = 256;

/// The most games one tuning run may play.
pub const MAX_TUNE_GAMES: u64 = 100_000_000;
/// The most candidates (iterations) one run may plan.
pub const MAX_ITERATIONS: u64 = 10_000_000;

/// A tuning spec as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTuneSpec {
    name: Spanned<String>,
    game: Spanned<String>,
    seed: Spanned<u64>,
    method: Spanned<String>,
    weights_out: Option<Spanned<String>>,
    opponent: Option<Spanned<String>>,
    tc: Option<Spanned<String>>,
    st: Option<Spanned<String>>,
    timemargin: Option<Spanned<String>>,
    engine: Spanned<RawEngine>,
    openings: Spanned<RawTuneOpenings>,
    #[serde(default)]
    pool: Vec<Spanned<RawEngine>>,
    budget: Option<Spanned<RawBudget>>,
    hill: Option<Spanned<RawHill>>,
    sprt: Option<Spanned<RawSprt>>,
    spsa: Option<Spanned<RawSpsa>>,
    regression: Option<Spanned<RawRegression>>,
    confirm: Spanned<RawConfirm>,
    #[serde(default)]
    param: Vec<Spanned<RawParam>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTuneOpenings {
    plies: Spanned<i64>,
    min_plies: Option<Spanned<i64>>,
    balance_depth: Option<Spanned<i64>>,
    max_imbalance: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBudget {
    iterations: Option<Spanned<i64>>,
    games: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHill {
    neighbour: Option<Spanned<String>>,
    batch: Option<Spanned<i64>>,
    max_pairs: Option<Spanned<i64>>,
    patience: Option<Spanned<i64>>,
    min_step: Option<Spanned<f64>>,
    pairs: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpsa {
    pairs: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegression {
    games: Spanned<i64>,
    rounds: Option<Spanned<i64>>,
    skip_plies: Option<Spanned<i64>>,
    max_per_game: Option<Spanned<i64>>,
    lambda: Option<Spanned<f64>>,
    taper: Option<Spanned<bool>>,
    exact_labels: Option<Spanned<i64>>,
    evaluation: Option<Spanned<String>>,
    phases: Option<Spanned<i64>>,
    phase_overlap: Option<Spanned<i64>>,
    ridge: Option<Spanned<f64>>,
    start: Option<Spanned<String>>,
    search_labels: Option<Spanned<i64>>,
    search_mix: Option<Spanned<f64>>,
    counts: Option<Spanned<bool>>,
    fit_iterations: Option<Spanned<i64>>,
    margin_labels: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfirm {
    games: Spanned<i64>,
    aa_games: Option<Spanned<i64>>,
    plies: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawParam {
    name: Spanned<String>,
    min: Spanned<f64>,
    max: Spanned<f64>,
    step: Spanned<f64>,
    c_end: Option<Spanned<f64>>,
    r_end: Option<Spanned<f64>>,
    start: Option<Spanned<f64>>,
    integer: Option<Spanned<bool>>,
}

/// The optimiser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// Hill climbing ([`super::optimise::hill`]).
    #[serde(rename = "hill-climb")]
    HillClimb,
    /// SPSA ([`super::optimise::spsa`]).
    #[serde(rename = "spsa")]
    Spsa,
    /// Regression on self-play positions, Texel's method ([`super::fit::regression`],
    /// [`super::regression::run`]).
    #[serde(rename = "regression")]
    Regression,
}

impl Method {
    /// The name in specs and files.
    pub fn name(self) -> &'static str {
        match self {
            Method::HillClimb => "hill-climb",
            Method::Spsa => "spsa",
            Method::Regression => "regression",
        }
    }
}

/// Regression tuning's settings (`[regression]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegressionConfig {
    /// Self-play games per round, each from a fresh opening of the run, played once.
    pub games: u64,
    /// Rounds: each plays its games with the weights the previous round fitted (the first with
    /// the start), then fits on the positions of every round so far.
    pub rounds: u32,
    /// Positions before this ply (the opening included) are not used.
    pub skip_plies: usize,
    /// At most this many positions of each game (a seeded sample); `None`: all.
    pub max_per_game: Option<usize>,
    /// The ridge strength λ.
    pub lambda: f64,
    /// Fit tapered weights (an opening and an endgame vector).
    #[serde(default)]
    pub taper: bool,
    /// Label the positions with at most this many empty squares (cells) by the exact solver's
    /// result instead of their game's ([`super::fit::regression::CollectOptions::exact_labels`]);
    /// `None`: every position by its game's. Left out of the spec's form when `None`, so
    /// earlier specs keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_labels: Option<u32>,
    /// Fit Othello's pattern evaluation instead of the linear weights (`evaluation =
    /// "patterns"`); `None`: the linear weights. Left out of the spec's form when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patterns: Option<PatternRegression>,
}

/// Regression of Othello's pattern evaluation (`[regression] evaluation = "patterns"`,
/// [`super::regression::pattern_round`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatternRegression {
    /// Phases of the fitted weights.
    pub phases: usize,
    /// Empty squares by which each phase's range is widened
    /// ([`super::fit::pattern_fit::PatternPositions::with_overlap`]).
    pub overlap: usize,
    /// The fit's ridge α, in positions ([`super::fit::pattern_fit::PatternFitOptions::ridge`]).
    pub ridge: f64,
    /// The pattern weights round 1 plays with and its fit starts from; `None`: round 1 plays
    /// with the engine's linear weights and the fit starts from zeros. Its path is as resolved
    /// from the spec's folder, its digest in the form (a changed file changes the hash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<PatternsFile>,
    /// Label the positions by a search of their own (`search_labels`, `search_mix`;
    /// [`super::fit::search_labels`]); `None`: by their games' results. Left out of the spec's form
    /// when `None`, so earlier specs keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchLabelConfig>,
    /// Fit the count types' weights too (`counts`, default true); false holds them at the
    /// start's ([`super::fit::pattern_fit::PatternFitOptions::counts`]). Left out of the spec's
    /// form when true, so earlier specs keep their hash.
    #[serde(default = "fit_counts", skip_serializing_if = "fit_counts_is")]
    pub counts: bool,
    /// The most L-BFGS iterations of each phase's fit (`fit_iterations`, default
    /// [`super::fit::pattern_fit::DEFAULT_MAX_ITERATIONS`]). Left out of the spec's form at the
    /// default, so earlier specs keep their hash.
    #[serde(
        default = "default_fit_iterations",
        skip_serializing_if = "is_default_fit_iterations"
    )]
    pub fit_iterations: usize,
    /// Label the positions by their games' final margins, σ(m / scale)
    /// ([`super::fit::regression::CollectOptions::margin_scale`]; `margin_labels`, in discs);
    /// `None`: by their results. Left out of the spec's form when `None`, so earlier specs keep
    /// their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_labels: Option<f64>,
}

/// [`PatternRegression::fit_iterations`]' default.
fn default_fit_iterations() -> usize {
    crate::tune::fit::pattern_fit::DEFAULT_MAX_ITERATIONS
}

/// Whether `fit_iterations` is the default (for serde's `skip_serializing_if`).
fn is_default_fit_iterations(n: &usize) -> bool {
    *n == default_fit_iterations()
}

/// [`PatternRegression::counts`]' default: the counts are fitted.
fn fit_counts() -> bool {
    true
}

/// Whether `counts` is the default (for serde's `skip_serializing_if`).
fn fit_counts_is(counts: &bool) -> bool {
    *counts
}

/// Search labels of a pattern regression (`[regression] search_labels`, `search_mix`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchLabelConfig {
    /// The depth of the labelling search: the tuned engine's, with this depth as its only
    /// budget, evaluating with the weights the round played with.
    pub depth: u32,
    /// λ: the share of the search's label; the rest is the game's result
    /// ([`super::fit::search_labels::SearchScores::label`]).
    pub mix: f64,
}

/// The confirmation match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Confirm {
    /// Games of tuned against start (even).
    pub games: u64,
    /// Games of the A/A match (start against itself; 0: none).
    pub aa_games: u64,
    /// Plies of the held-out openings.
    pub plies: u32,
}

/// A tuning spec in canonical form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolvedTuneSpec {
    /// Run name.
    pub name: String,
    /// Game, canonical spelling.
    pub game: String,
    /// The seed.
    pub seed: u64,
    /// The optimiser.
    pub method: Method,
    /// A copy of the tuned weights outside the run's folder (they are always written to
    /// `tuned-weights.toml` in it), relative to the spec's folder as given. An output path:
    /// not part of the hash or the checkpoint, so that changing it does not block a resume.
    #[serde(skip)]
    pub weights_out: Option<std::path::PathBuf>,
    /// The engine tuned, its weights the start.
    pub engine: ResolvedEngine,
    /// The tuned parameters (their `value`: the start, from the engine's weights).
    pub params: Vec<Param>,
    /// The feature index of each parameter.
    pub features: Vec<usize>,
    /// A fixed pool of opponents (empty: candidates play the incumbent).
    pub pool: Vec<ResolvedEngine>,
    /// Plies of the tuning openings (the longest, with `min_plies`).
    pub plies: u32,
    /// The shortest tuning opening, when their lengths vary (`openings.min_plies`): each
    /// drawn uniformly from `min_plies` to `plies`. Absent from the hash when not set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_plies: Option<u32>,
    /// Their filter.
    pub balance: Balance,
    /// The most candidates (hill climbing) or the planned iterations (SPSA).
    pub iterations: Option<u64>,
    /// The most games in all, confirmation included.
    pub games: Option<u64>,
    /// Hill climbing's settings.
    pub hill: Option<HillConfig>,
    /// SPSA's settings.
    pub spsa: Option<SpsaConfig>,
    /// Regression's settings (absent from the canonical form of the other methods, so their
    /// hashes are unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression: Option<RegressionConfig>,
    /// The confirmation.
    pub confirm: Confirm,
    /// The clock of an outside engine's games (`tc`, `st`, `timemargin`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ResolvedClock>,
    /// An outside engine's tuned options, one per parameter (empty for a built-in engine, and
    /// then absent from the canonical form, so that its hash is unchanged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<TunedOption>,
}

impl ResolvedTuneSpec {
    /// The hash of the canonical JSON form (as tournament specs'); `--resume` compares it.
    pub fn hash(&self) -> String {
        hash_json(self)
    }

    /// The pattern regression's settings, when the run fits pattern weights.
    pub fn patterns(&self) -> Option<&PatternRegression> {
        self.regression.as_ref()?.patterns.as_ref()
    }

    /// The game.
    pub fn game_kind(&self) -> GameKind {
        GameKind::parse(&self.game).expect("a resolved spec names a known game")
    }

    /// The start: every feature's weight.
    pub fn start_weights(&self) -> Vec<f64> {
        self.engine.weights.iter().map(|(_, w)| *w).collect()
    }

    /// The full weight vector of the engine with the tuned parameters set to `theta`.
    pub fn weights_with(&self, theta: &[f64]) -> Vec<f64> {
        let mut w = self.start_weights();
        for (&f, &x) in self.features.iter().zip(theta) {
            w[f] = x;
        }
        w
    }

    /// Checks what the rest of the code takes for granted of a spec read back from a
    /// checkpoint (which a person may have edited).
    pub fn check(&self) -> Result<(), String> {
        GameKind::parse(&self.game).map_err(|e| e.to_string())?;
        let n = self.engine.weights.len();
        if self.is_outside() {
            self.check_options()?;
        } else if self.params.is_empty()
            || self.params.len() != self.features.len()
            || self.features.iter().any(|&f| f >= n)
            || !self.options.is_empty()
            || self.clock.is_some()
        {
            return Err("the parameters do not match the engine's features".into());
        }
        for p in &self.params {
            if !(p.min < p.max && p.step > 0.0 && p.value.is_finite()) {
                return Err(format!("parameter '{}' has invalid bounds or step", p.name));
            }
        }
        match self.method {
            Method::HillClimb if self.hill.is_some() => {}
            Method::Spsa if self.spsa.is_some() && self.iterations.is_some() => {}
            Method::Regression
                if self.regression.is_some() && self.params.len() == self.engine.weights.len() => {}
            _ => return Err("the method's settings are missing".into()),
        }
        if self.confirm.games == 0 || !self.confirm.games.is_multiple_of(2) {
            return Err("the confirmation needs a positive even number of games".into());
        }
        Ok(())
    }
}

/// How one tuned parameter reaches the program: the option it sets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TunedOption {
    /// The option's name (the parameter's).
    pub name: String,
    /// The value sent is rounded to a whole number (`integer = true`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub integer: bool,
}

/// The text an option's value `x` is sent as: a whole number when `integer` (rounded), else the
/// shortest decimal that reads back as `x` (`12.5`, `3`).
pub fn option_text(x: f64, integer: bool) -> String {
    if integer {
        format!("{}", x.round() as i64)
    } else {
        // `-0` reads as 0 everywhere, but a program may not take the sign.
        format!("{}", if x == 0.0 { 0.0 } else { x })
    }
}

impl ResolvedTuneSpec {
    /// Whether the engine tuned is an outside program (its parameters are options).
    pub fn is_outside(&self) -> bool {
        self.engine.outside.is_some()
    }

    /// The outside engine's options with the tuned ones set to `theta`.
    pub fn options_with(&self, theta: &[f64]) -> BTreeMap<String, String> {
        let mut options = self
            .engine
            .outside
            .as_ref()
            .map(|o| o.options.clone())
            .unwrap_or_default();
        for (o, &x) in self.options.iter().zip(theta) {
            options.insert(o.name.clone(), option_text(x, o.integer));
        }
        options
    }

    /// Checks an outside engine's spec read back from a checkpoint: one option per parameter,
    /// named alike, and none of a built-in engine's weights or features.
    pub(super) fn check_options(&self) -> Result<(), String> {
        if self.params.is_empty()
            || self.options.len() != self.params.len()
            || self
                .options
                .iter()
                .zip(&self.params)
                .any(|(o, p)| o.name != p.name)
            || !self.features.is_empty()
            || !self.engine.weights.is_empty()
        {
            return Err("the parameters do not match the outside engine's options".into());
        }
        Ok(())
    }

    /// The outside engine called `name`, its tuned options set to `theta`.
    pub fn outside_engine_with(&self, name: &str, theta: &[f64]) -> ResolvedEngine {
        let mut engine = self.engine.clone();
        engine.name = name.to_string();
        if let Some(o) = &mut engine.outside {
            o.options = self.options_with(theta);
        }
        engine
    }
}

/// Reads and validates the tuning spec at `path`.
pub fn load(path: &Path) -> Result<ResolvedTuneSpec, SpecError> {
    let (text, file) = crate::arena::spec::read_spec_file(path)?;
    parse_in(&text, &file, Some(path.parent().unwrap_or(Path::new(""))))
}

/// Validates the text of a tuning spec; `file` names it in errors; relative paths are relative
/// to the current folder.
pub fn parse(text: &str, file: &str) -> Result<ResolvedTuneSpec, SpecError> {
    parse_in(text, file, None)
}

/// [`parse`], with relative paths relative to `base` (the spec file's folder).
fn parse_in(text: &str, file: &str, base: Option<&Path>) -> Result<ResolvedTuneSpec, SpecError> {
    let loc = Locator { file, text, base };
    let raw: RawTuneSpec = toml::from_str(text).map_err(|e| {
        if SpecKind::of(text) == Some(SpecKind::Tournament) {
            return SpecKind::Tournament.wrong_command(file);
        }
        let offset = e.span().map_or(0, |s| s.start);
        let (key, message) = plain_serde_message(e.message(), text, offset);
        loc.at(offset, &key, message)
    })?;
    validate(raw, &loc)
}

/// The most empty squares (cells) of a position the solver labels: beyond, a solve takes
/// seconds.
pub const MAX_EXACT_LABELS: u64 = 24;

/// A positive whole number within `max`.
fn positive(v: &Spanned<i64>, key: &str, max: u64, loc: &Locator<'_>) -> Result<u64, SpecError> {
    loc.int_in(v, key, 1..=max as i64, |x| {
        format!("{key} is {x}; allowed: 1..={max}")
    })
}

/// A positive even number of games within `max`.
fn even_games(v: &Spanned<i64>, key: &str, loc: &Locator<'_>) -> Result<u64, SpecError> {
    let x = positive(v, key, MAX_GAMES, loc)?;
    if !x.is_multiple_of(2) {
        return Err(loc.on(
            v,
            key,
            format!(
                "{key} is {x}; it must be even (every opening is played twice, colours swapped)"
            ),
        ));
    }
    Ok(x)
}

/// The phases of a pattern fit when `regression.phases` is not given (as the shipped weights).
pub const DEFAULT_PATTERN_PHASES: usize = 6;

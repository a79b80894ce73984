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
    default_exact, engine_budget, hash_json, name_and_game, plain_serde_message, resolve_sprt,
    resolve_weights,
};
use crate::eval::{Features, FeaturesVisitor};
use crate::games::GameKind;
use crate::outputs::number_text;
use crate::stats::sprt::{EloModel, Sprt};

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
    /// Plies of the tuning openings.
    pub plies: u32,
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
    let x = *v.get_ref();
    if x <= 0 || x as u64 > max {
        return Err(loc.on(v, key, format!("{key} is {x}; allowed: 1..={max}")));
    }
    Ok(x as u64)
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

/// `[regression]`, and what regression refuses of the other methods' keys.
fn resolve_regression(
    raw: &RawTuneSpec,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<RegressionConfig, SpecError> {
    let belongs =
        |what: &str| format!("[{what}] belongs to another method; regression plays no candidates");
    if let Some(h) = &raw.hill {
        return Err(loc.on(h, "hill", belongs("hill")));
    }
    if let Some(s) = &raw.sprt {
        return Err(loc.on(s, "sprt", belongs("sprt")));
    }
    if let Some(s) = &raw.spsa {
        return Err(loc.on(s, "spsa", belongs("spsa")));
    }
    if let Some(o) = &raw.opponent {
        return Err(loc.on(
            o,
            "opponent",
            "regression plays no candidates, so it has no opponents: it fits the weights to the results of self-play games",
        ));
    }
    if let Some(p) = raw.param.first() {
        return Err(loc.on(
            p,
            "param",
            "regression fits every feature of the evaluation at once; remove the [[param]] tables",
        ));
    }
    let Some(table) = &raw.regression else {
        return Err(loc.on(
            &raw.method,
            "regression",
            "method = \"regression\" needs a [regression] table with games = N, the self-play games of each round",
        ));
    };
    let r = table.get_ref();
    let games = positive(&r.games, "regression.games", MAX_TUNE_GAMES, loc)?;
    let rounds = match &r.rounds {
        None => 1,
        Some(v) => positive(v, "regression.rounds", 100, loc)? as u32,
    };
    let skip_plies = match &r.skip_plies {
        None => 0,
        Some(v) if (0..=1000).contains(v.get_ref()) => *v.get_ref() as usize,
        Some(v) => {
            return Err(loc.on(
                v,
                "regression.skip_plies",
                format!("skip_plies is {}; allowed: 0..=1000", v.get_ref()),
            ));
        }
    };
    let max_per_game = match &r.max_per_game {
        None => None,
        Some(v) => Some(positive(v, "regression.max_per_game", 100_000, loc)? as usize),
    };
    let lambda = match &r.lambda {
        None => super::fit::regression::DEFAULT_LAMBDA,
        Some(v) => {
            let x = *v.get_ref();
            if !(0.0..=super::fit::regression::MAX_LAMBDA).contains(&x) {
                return Err(loc.on(
                    v,
                    "regression.lambda",
                    format!("lambda is {}; allowed: 0 (no ridge) to 1e6", loc.written(v)),
                ));
            }
            x
        }
    };
    let exact_labels = match &r.exact_labels {
        None => None,
        Some(v) => Some(positive(v, "regression.exact_labels", MAX_EXACT_LABELS, loc)? as u32),
    };
    let patterns = resolve_patterns(r, kind, loc)?;
    Ok(RegressionConfig {
        games,
        rounds,
        skip_plies,
        max_per_game,
        lambda,
        taper: r.taper.as_ref().is_some_and(|t| *t.get_ref()),
        exact_labels,
        patterns,
    })
}

/// The pattern fit's keys of `[regression]` (`evaluation = "patterns"`), and the refusal of
/// each of them without it, and of the linear fit's keys with it.
fn resolve_patterns(
    r: &RawRegression,
    kind: &GameKind,
    loc: &Locator<'_>,
) -> Result<Option<PatternRegression>, SpecError> {
    let patterns = match &r.evaluation {
        None => false,
        Some(e) => match e.get_ref().trim() {
            "linear" => false,
            "patterns" => true,
            other => {
                return Err(loc.on(
                    e,
                    "regression.evaluation",
                    format!("unknown evaluation '{other}'; allowed: linear (the features' weights), patterns (Othello's pattern evaluation)"),
                ));
            }
        },
    };
    if !patterns {
        let at = |v: &dyn Fn() -> Option<std::ops::Range<usize>>, key: &str| {
            match v() {
            Some(span) => Err(loc.at(
                span.start,
                key,
                format!("{key} belongs to evaluation = \"patterns\" (Othello's pattern evaluation); the linear fit has no such setting"),
            )),
            None => Ok(()),
        }
        };
        at(
            &|| r.phases.as_ref().map(Spanned::span),
            "regression.phases",
        )?;
        at(
            &|| r.phase_overlap.as_ref().map(Spanned::span),
            "regression.phase_overlap",
        )?;
        at(&|| r.ridge.as_ref().map(Spanned::span), "regression.ridge")?;
        at(&|| r.start.as_ref().map(Spanned::span), "regression.start")?;
        at(
            &|| r.search_labels.as_ref().map(Spanned::span),
            "regression.search_labels",
        )?;
        at(
            &|| r.search_mix.as_ref().map(Spanned::span),
            "regression.search_mix",
        )?;
        return Ok(None);
    }
    let evaluation = r.evaluation.as_ref().expect("given");
    if *kind != GameKind::Othello {
        return Err(loc.on(
            evaluation,
            "regression.evaluation",
            format!("the pattern evaluation is Othello's, not {kind}'s; remove evaluation = \"patterns\""),
        ));
    }
    if let Some(t) = &r.taper {
        return Err(loc.on(
            t,
            "regression.taper",
            "taper is the linear fit's; the pattern weights have phases instead (regression.phases)",
        ));
    }
    if let Some(l) = &r.lambda {
        return Err(loc.on(
            l,
            "regression.lambda",
            "lambda is the linear fit's ridge; the pattern fit's is regression.ridge, in positions",
        ));
    }
    let ranged = |v: &Option<Spanned<i64>>,
                  key: &str,
                  range: std::ops::RangeInclusive<i64>,
                  default: usize| match v {
        None => Ok(default),
        Some(v) if range.contains(v.get_ref()) => Ok(*v.get_ref() as usize),
        Some(v) => Err(loc.on(
            v,
            key,
            format!(
                "{key} is {}; allowed: {}..={}",
                v.get_ref(),
                range.start(),
                range.end()
            ),
        )),
    };
    let phases = ranged(
        &r.phases,
        "regression.phases",
        1..=crate::eval::pattern::MAX_PHASES as i64,
        DEFAULT_PATTERN_PHASES,
    )?;
    let overlap = ranged(&r.phase_overlap, "regression.phase_overlap", 0..=59, 0)?;
    let ridge = match &r.ridge {
        None => super::fit::pattern_fit::DEFAULT_PATTERN_RIDGE,
        Some(v) if (0.0..=1e9).contains(v.get_ref()) => *v.get_ref(),
        Some(v) => {
            return Err(loc.on(
                v,
                "regression.ridge",
                format!(
                    "ridge is {}; allowed: 0 (no ridge) to 1e9 positions",
                    loc.written(v)
                ),
            ));
        }
    };
    let start = match &r.start {
        None => None,
        Some(s) => {
            let path = loc.path(s.get_ref().trim());
            if !crate::eval::pattern::PatternWeights::is_pattern_file(&path) {
                return Err(loc.on(
                    s,
                    "regression.start",
                    format!("{} is not a pattern weights file (.jpw or its CSV); the linear start is engine.weights", path.display()),
                ));
            }
            let (shared, weights) = crate::arena::engine::SharedPatterns::load(&path)
                .map_err(|e| loc.on(s, "regression.start", e.to_string()))?;
            Some(PatternsFile::new(
                &path.display().to_string(),
                &weights,
                shared,
            ))
        }
    };
    let search = match (&r.search_labels, &r.search_mix) {
        (None, None) => None,
        (None, Some(m)) => {
            return Err(loc.on(
                m,
                "regression.search_mix",
                "search_mix is the share of the search labels: give search_labels = DEPTH with it",
            ));
        }
        (Some(_), mix) => {
            let depth = ranged(
                &r.search_labels,
                "regression.search_labels",
                1..=crate::search::MAX_DEPTH as i64,
                0,
            )?;
            let mix = match mix {
                None => 1.0,
                Some(m) if *m.get_ref() > 0.0 && *m.get_ref() <= 1.0 => *m.get_ref(),
                Some(m) => {
                    return Err(loc.on(
                        m,
                        "regression.search_mix",
                        format!(
                            "search_mix is {}; allowed: above 0 and at most 1 (1: the search's label alone)",
                            loc.written(m)
                        ),
                    ));
                }
            };
            Some(SearchLabelConfig {
                depth: depth as u32,
                mix,
            })
        }
    };
    Ok(Some(PatternRegression {
        phases,
        overlap,
        ridge,
        start,
        search,
    }))
}

/// Whether the spec asks for a regression of the pattern evaluation (before it is validated).
fn is_pattern_regression(raw: &RawTuneSpec) -> bool {
    raw.method.get_ref().trim() == "regression"
        && raw
            .regression
            .as_ref()
            .and_then(|r| r.get_ref().evaluation.as_ref())
            .is_some_and(|e| e.get_ref().trim() == "patterns")
}

/// The phases of a pattern fit when `regression.phases` is not given (as the shipped weights).
pub const DEFAULT_PATTERN_PHASES: usize = 6;

fn validate(raw: RawTuneSpec, loc: &Locator<'_>) -> Result<ResolvedTuneSpec, SpecError> {
    let (name, kind) = name_and_game(&raw.name, &raw.game, loc)?;
    let seed = *raw.seed.get_ref();
    let method = match raw.method.get_ref().trim() {
        "hill-climb" | "hill-climbing" => Method::HillClimb,
        "spsa" => Method::Spsa,
        "regression" => Method::Regression,
        other => {
            return Err(loc.on(
                &raw.method,
                "method",
                format!("unknown method '{other}'; allowed: hill-climb, spsa, regression"),
            ));
        }
    };
    let weights_out = match &raw.weights_out {
        None => None,
        Some(w) => {
            let text = w.get_ref().trim();
            let patterns = is_pattern_regression(&raw);
            let (ending, example, folder) = if patterns {
                (
                    ".jpw",
                    "../weights/othello-patterns.jpw",
                    "tuned-weights.jpw",
                )
            } else {
                (
                    ".toml",
                    "../weights/othello-tuned.toml",
                    "tuned-weights.toml",
                )
            };
            if text.is_empty() || !text.ends_with(ending) {
                return Err(loc.on(
                    w,
                    "weights_out",
                    format!("name the file the tuned weights are copied to, ending in {ending} (e.g. \"{example}\"); without the key they go to {folder} in the run's folder"),
                ));
            }
            Some(loc.path(text))
        }
    };

    // The engine tuned (weights below, with the game).
    if let Some(n) = raw.engine.get_ref().name() {
        return Err(loc.on(
            n,
            "engine.name",
            "the tuned engine takes no name: it is 'tuned' against 'start'",
        ));
    }
    let outside = raw.engine.get_ref().is_outside();
    crate::arena::spec::no_engine_clock(raw.engine.get_ref(), "engine", "tuned", loc)?;
    let engine = if outside {
        crate::arena::spec::outside_engine(&raw.engine, "engine", "tuned", &kind, loc)?
    } else {
        engine_budget(&raw.engine, "engine", "tuned", false, loc)?
    };
    if engine.algorithm == "random" {
        return Err(loc.on(
            &raw.engine,
            "engine.algorithm",
            "random ignores its weights, so there is nothing to tune; choose a searching algorithm",
        ));
    }

    // Opponents.
    let pooled = match raw.opponent.as_ref().map(|o| o.get_ref().trim()) {
        None | Some("incumbent") => false,
        Some("pool") => true,
        Some(other) => {
            return Err(loc.on(
                raw.opponent.as_ref().expect("given"),
                "opponent",
                format!("unknown opponent '{other}'; allowed: incumbent (the current best weights), pool (the [[pool]] engines)"),
            ));
        }
    };
    if pooled && raw.pool.is_empty() {
        return Err(loc.on(
            raw.opponent.as_ref().expect("given"),
            "pool",
            "opponent = \"pool\" needs one or more [[pool]] engines",
        ));
    }
    if !pooled && let Some(first) = raw.pool.first() {
        return Err(loc.on(
            first,
            "pool",
            "[[pool]] engines are the opponents of opponent = \"pool\"; add that, or remove them",
        ));
    }
    let mut pool = Vec::new();
    let mut pool_names: Vec<String> = Vec::new();
    for (i, e) in raw.pool.iter().enumerate() {
        let key = format!("pool[{}].name", i + 1);
        let Some(n) = e.get_ref().name() else {
            return Err(loc.on(e, &key, "missing key 'name' (required here)"));
        };
        let n_text = n.get_ref().trim().to_string();
        if n_text.is_empty()
            || n_text.chars().any(|c| c.is_control() || c == ',')
            || n_text == "tuned"
            || n_text == "start"
            || pool_names.contains(&n_text)
        {
            return Err(loc.on(
                n,
                &key,
                "a pool engine's name must be non-empty, unique, not 'tuned' or 'start', without commas or control characters",
            ));
        }
        crate::arena::spec::no_engine_clock(
            e.get_ref(),
            &format!("pool[{}]", i + 1),
            &n_text,
            loc,
        )?;
        pool.push(engine_budget(
            e,
            &format!("pool[{}]", i + 1),
            &n_text,
            false,
            loc,
        )?);
        pool_names.push(n_text);
    }

    // Openings.
    let o = raw.openings.get_ref();
    let plies = *o.plies.get_ref();
    if !(0..=200).contains(&plies) {
        return Err(loc.on(
            &o.plies,
            "openings.plies",
            format!("plies is {plies}; allowed: 0..=200"),
        ));
    }
    let mut balance = Balance::default_for(kind);
    if let Some(d) = &o.balance_depth {
        let v = *d.get_ref();
        if !(0..=8).contains(&v) {
            return Err(loc.on(
                d,
                "openings.balance_depth",
                format!("balance_depth is {v}; allowed: 0..=8 (0 turns the check off)"),
            ));
        }
        balance.depth = v as u32;
    }
    if let Some(m) = &o.max_imbalance {
        let v = *m.get_ref();
        if v.is_nan() || v <= 0.0 {
            return Err(loc.on(
                m,
                "openings.max_imbalance",
                format!(
                    "max_imbalance is {}; it must be a positive number (in weight units) or inf",
                    loc.written(m)
                ),
            ));
        }
        balance.max_imbalance = v.is_finite().then_some(v);
    }

    // Budget.
    let no_budget = RawBudget {
        iterations: None,
        games: None,
    };
    let b = raw.budget.as_ref().map_or(&no_budget, |b| b.get_ref());
    // Where budget errors point: the table, or the top of the file when it is missing.
    let budget_at = raw.budget.as_ref().map_or(0, |b| b.span().start);
    let budget_value = |v: &Option<Spanned<i64>>, key: &str, max: u64| match v {
        None => Ok(None),
        Some(v) if *v.get_ref() == 0 => Err(loc.on(
            v,
            key,
            "a budget of 0 plays nothing; give a positive number, or leave the key out",
        )),
        Some(v) => positive(v, key, max, loc).map(Some),
    };
    let iterations = budget_value(&b.iterations, "budget.iterations", MAX_ITERATIONS)?;
    let games = budget_value(&b.games, "budget.games", MAX_TUNE_GAMES)?;
    if method == Method::Regression {
        if let Some(i) = &b.iterations {
            return Err(loc.on(
                i,
                "budget.iterations",
                "regression plays no candidates: give its self-play games and rounds in [regression], and optionally a cap on all games with budget.games",
            ));
        }
    } else if iterations.is_none() && games.is_none() {
        return Err(loc.at(
            budget_at,
            "budget",
            "give iterations = N (candidates), games = N (games in all, confirmation included), or both",
        ));
    }
    if method == Method::Spsa && iterations.is_none() {
        return Err(loc.at(
            budget_at,
            "budget.iterations",
            "spsa needs iterations = N: its schedule is planned for N iterations",
        ));
    }

    // The method's settings.
    let mut hill = None;
    let mut spsa = None;
    let mut regression = None;
    match method {
        Method::HillClimb => {
            if let Some(s) = &raw.spsa {
                return Err(loc.on(s, "spsa", "[spsa] belongs to method = \"spsa\""));
            }
            let h = raw.hill.as_ref().map(|h| h.get_ref());
            let neighbour = match h.and_then(|h| h.neighbour.as_ref()) {
                None => Neighbour::Single,
                Some(n) => match n.get_ref().as_str() {
                    "single" => Neighbour::Single,
                    "all" => Neighbour::All,
                    other => {
                        return Err(loc.on(
                            n,
                            "hill.neighbour",
                            format!("unknown neighbour '{other}'; allowed: single (one parameter ± its step), all (every parameter ± its step)"),
                        ));
                    }
                },
            };
            let get = |v: Option<&Spanned<i64>>, key: &str, default: u64, max: u64| match v {
                None => Ok(default),
                Some(v) => positive(v, key, max, loc),
            };
            let batch = get(h.and_then(|h| h.batch.as_ref()), "hill.batch", 16, 100_000)?;
            let patience = get(
                h.and_then(|h| h.patience.as_ref()),
                "hill.patience",
                6,
                1000,
            )?;
            let min_step = match h.and_then(|h| h.min_step.as_ref()) {
                None => 1.0 / 16.0,
                Some(m) => {
                    let v = *m.get_ref();
                    if !(v > 0.0 && v <= 1.0) {
                        return Err(loc.on(
                            m,
                            "hill.min_step",
                            format!("min_step is {}; allowed: above 0, at most 1 (a fraction of each parameter's step)", loc.written(m)),
                        ));
                    }
                    v
                }
            };
            let fixed = h.and_then(|h| h.pairs.as_ref());
            let (acceptance, max_pairs) = match (fixed, &raw.sprt) {
                (Some(p), Some(s)) => {
                    return Err(loc.on(
                        s,
                        "sprt",
                        format!(
                            "give either [sprt] (a sequential test) or hill.pairs = {} (a fixed-length test), not both",
                            p.get_ref()
                        ),
                    ));
                }
                (Some(p), None) => {
                    if let Some(m) = h.and_then(|h| h.max_pairs.as_ref()) {
                        return Err(loc.on(
                            m,
                            "hill.max_pairs",
                            "max_pairs caps a sequential test; with hill.pairs every candidate plays exactly that many",
                        ));
                    }
                    (
                        Acceptance::Fixed,
                        positive(p, "hill.pairs", 1_000_000, loc)?,
                    )
                }
                (None, s) => {
                    let sprt = match s {
                        Some(s) => resolve_sprt(s, "sprt", loc)?,
                        None => Sprt {
                            elo0: 0.0,
                            elo1: 10.0,
                            alpha: 0.05,
                            beta: 0.05,
                            model: EloModel::Logistic,
                        },
                    };
                    let max_pairs = get(
                        h.and_then(|h| h.max_pairs.as_ref()),
                        "hill.max_pairs",
                        1000,
                        1_000_000,
                    )?;
                    (Acceptance::Sprt(sprt), max_pairs)
                }
            };
            hill = Some(HillConfig {
                acceptance,
                batch: batch.min(max_pairs),
                max_pairs,
                patience: patience as u32,
                min_step,
                neighbour,
                seed,
            });
        }
        Method::Spsa => {
            if let Some(h) = &raw.hill {
                return Err(loc.on(h, "hill", "[hill] belongs to method = \"hill-climb\""));
            }
            if let Some(s) = &raw.sprt {
                return Err(loc.on(
                    s,
                    "sprt",
                    "[sprt] is hill climbing's acceptance test; SPSA accepts no candidates, it follows the gradient",
                ));
            }
            let pairs = match raw.spsa.as_ref().and_then(|s| s.get_ref().pairs.as_ref()) {
                None => 1,
                Some(p) => positive(p, "spsa.pairs", 10_000, loc)?,
            };
            spsa = Some(SpsaConfig {
                iterations: iterations.expect("checked above"),
                pairs,
                seed,
            });
        }
        Method::Regression => {
            regression = Some(resolve_regression(&raw, &kind, loc)?);
            if let (GameKind::RandomTree { .. }, Some(table)) = (&kind, &raw.regression)
                && let Some(v) = &table.get_ref().exact_labels
            {
                return Err(loc.on(
                    v,
                    "regression.exact_labels",
                    "a random tree has no exact solver; exact_labels is for othello, connect4 and morpion",
                ));
            }
        }
    }
    if method != Method::Regression
        && let Some(r) = &raw.regression
    {
        return Err(loc.on(
            r,
            "regression",
            "[regression] belongs to method = \"regression\"",
        ));
    }

    // The confirmation.
    let c = raw.confirm.get_ref();
    let confirm_games = even_games(&c.games, "confirm.games", loc)?;
    let aa_games = match &c.aa_games {
        None => 0,
        Some(a) if *a.get_ref() == 0 => 0,
        Some(a) => even_games(a, "confirm.aa_games", loc)?,
    };
    let confirm_plies = match &c.plies {
        None => plies as u32,
        Some(p) => {
            let v = *p.get_ref();
            if !(0..=200).contains(&v) {
                return Err(loc.on(
                    p,
                    "confirm.plies",
                    format!("plies is {v}; allowed: 0..=200"),
                ));
            }
            v as u32
        }
    };
    if let (Some(g), Some(total)) = (&b.games, games)
        && total <= confirm_games + aa_games
    {
        return Err(loc.on(
            g,
            "budget.games",
            format!(
                "budget.games = {total} leaves nothing for tuning after the confirmation ({confirm_games} games) and the A/A match ({aa_games})"
            ),
        ));
    }

    // Parameters: names checked against the game's features below (regression: every
    // feature, filled in there).
    if raw.param.is_empty() && method != Method::Regression {
        return Err(loc.on(
            &raw.engine,
            "param",
            "no [[param]] tables: name the features to tune, each with min, max and step",
        ));
    }
    let mut params = Vec::new();
    for (i, p) in raw.param.iter().enumerate() {
        let r = p.get_ref();
        let key = |k: &str| format!("param[{}].{k}", i + 1);
        let n = r.name.get_ref().trim().to_string();
        if params.iter().any(|q: &Param| q.name == n) {
            return Err(loc.on(
                &r.name,
                &key("name"),
                format!("'{n}' is tuned twice; each feature may appear once"),
            ));
        }
        for (v, k) in [(&r.min, "min"), (&r.max, "max"), (&r.step, "step")] {
            // The tuned weights must stay weights joute accepts.
            crate::eval::weights::check_weight(*v.get_ref()).map_err(|e| loc.on(v, &key(k), e))?;
        }
        let (min, max, step) = (*r.min.get_ref(), *r.max.get_ref(), *r.step.get_ref());
        if min >= max {
            return Err(loc.on(
                &r.max,
                &key("max"),
                format!(
                    "parameter '{n}': min ({}) must be less than max ({})",
                    loc.written(&r.min),
                    loc.written(&r.max)
                ),
            ));
        }
        if step <= 0.0 || step > max - min {
            return Err(loc.on(
                &r.step,
                &key("step"),
                format!(
                    "parameter '{n}': step is {}; allowed: above 0, at most max - min = {}",
                    loc.written(&r.step),
                    number_text(max - min)
                ),
            ));
        }
        let mut param = Param::new(n.clone(), 0.0, min, max, step);
        for (v, k, slot) in [
            (&r.c_end, "c_end", &mut param.c_end),
            (&r.r_end, "r_end", &mut param.r_end),
        ] {
            if let Some(v) = v {
                let x = *v.get_ref();
                // c_end is a perturbation of the parameter, r_end a learning rate.
                let most = if k == "c_end" { max - min } else { 1.0 };
                if !(x.is_finite() && x > 0.0 && x <= most) {
                    return Err(loc.on(
                        v,
                        &key(k),
                        format!(
                            "parameter '{n}': {k} is {}; allowed: above 0, at most {}",
                            loc.written(v),
                            number_text(most)
                        ),
                    ));
                }
                if method != Method::Spsa {
                    return Err(loc.on(v, &key(k), format!("{k} belongs to method = \"spsa\"")));
                }
                *slot = Some(x);
            }
        }
        params.push(param);
    }
    // An outside engine's parameters are its options, its games on a clock of the spec's.
    let (clock, options) = resolve_outside(&raw, &engine, method, &kind, &mut params, loc)?;
    let (params, option_params) = if outside {
        (Vec::new(), params)
    } else {
        (params, Vec::new())
    };

    // What needs the game: weights (engine, pool) and the parameters' features and starts.
    struct Resolve<'a, 'b> {
        raw: &'b RawTuneSpec,
        loc: &'b Locator<'a>,
        engine: ResolvedEngine,
        pool: Vec<ResolvedEngine>,
        params: Vec<Param>,
        /// The opening lengths to check: (plies, where, key).
        openings: Vec<(u32, usize, &'static str)>,
        seed: u64,
        balance: Balance,
        /// Regression: every feature is a parameter.
        regression: bool,
    }
    type Resolved = (ResolvedEngine, Vec<ResolvedEngine>, Vec<Param>, Vec<usize>);
    impl FeaturesVisitor for Resolve<'_, '_> {
        type Output = Result<Resolved, SpecError>;
        fn visit<G: Features>(mut self, start: G) -> Self::Output {
            let names: Vec<String> = start.features().iter().map(|f| f.name.clone()).collect();
            let w = resolve_weights(
                &start,
                self.raw.engine.get_ref().weights_value(),
                "engine.weights",
                self.loc,
            )?;
            if w.endgame.is_some() {
                return Err(self.loc.on(
                    self.raw.engine.get_ref().weights_value().expect("a file"),
                    "engine.weights",
                    format!(
                        "{} is tapered ([endgame]); tuning starts from one weight vector (method = \"regression\" with [regression] taper = true fits a taper)",
                        w.origin
                    ),
                ));
            }
            self.engine.weights_origin = w.origin.clone();
            self.engine.weights = names.iter().cloned().zip(w.values.clone()).collect();
            default_exact(&start, self.raw.engine.get_ref(), &mut self.engine);
            for (i, e) in self.raw.pool.iter().enumerate() {
                default_exact(&start, e.get_ref(), &mut self.pool[i]);
                let key = format!("pool[{}].weights", i + 1);
                let pw = resolve_weights(&start, e.get_ref().weights_value(), &key, self.loc)?;
                self.pool[i].weights_origin = pw.origin.clone();
                self.pool[i].weights = names.iter().cloned().zip(pw.values).collect();
            }
            let mut features = Vec::new();
            if self.regression {
                // Every feature, within the bounds weights files allow.
                let most = crate::eval::weights::MAX_WEIGHT;
                self.params = names
                    .iter()
                    .zip(&w.values)
                    .map(|(n, &v)| Param::new(n.clone(), v, -most, most, 1.0))
                    .collect();
                features = (0..names.len()).collect();
            }
            for (i, p) in self
                .params
                .iter_mut()
                .enumerate()
                .filter(|_| !self.regression)
            {
                let at = &self.raw.param[i].get_ref().name;
                let Some(f) = names.iter().position(|n| *n == p.name) else {
                    return Err(self.loc.on(
                        at,
                        &format!("param[{}].name", i + 1),
                        format!(
                            "'{}' is not a feature of {}; allowed: {}",
                            p.name,
                            start.name(),
                            names.join(", ")
                        ),
                    ));
                };
                let value = w.values[f];
                if value < p.min || value > p.max {
                    return Err(self.loc.on(
                        at,
                        &format!("param[{}].name", i + 1),
                        format!(
                            "the start weights ({}) give '{}' = {}, outside [min, max] = [{}, {}]; widen the bounds",
                            w.origin,
                            p.name,
                            number_text(value),
                            number_text(p.min),
                            number_text(p.max)
                        ),
                    ));
                }
                p.value = value;
                features.push(f);
            }
            // Tuning plays every pair from a fresh opening: the plies must give many.
            for (plies, span, key) in self.openings {
                let mut stream = OpeningStream::new(start, plies, self.seed, self.balance.clone());
                for found in 0..MIN_OPENINGS {
                    if stream.next_opening().is_err() {
                        return Err(self.loc.at(
                            span,
                            key,
                            format!(
                                "plies = {plies} gives only {found} distinct playable openings of {}; tuning needs a fresh one for every pair: choose plies that give thousands (6 to 10)",
                                start.name()
                            ),
                        ));
                    }
                }
            }
            Ok((self.engine, self.pool, self.params, features))
        }
    }
    let (mut resolved_engine, pool, mut params, features) = crate::eval::dispatch(
        &kind,
        Resolve {
            raw: &raw,
            loc,
            engine,
            pool,
            params,
            openings: {
                let o = raw.openings.get_ref();
                let mut list = vec![(plies as u32, o.plies.span().start, "openings.plies")];
                if let Some(p) = &raw.confirm.get_ref().plies
                    && confirm_plies != plies as u32
                {
                    list.push((confirm_plies, p.span().start, "confirm.plies"));
                }
                list
            },
            seed,
            balance: balance.clone(),
            regression: method == Method::Regression,
        },
    )?;
    if outside {
        // No weights of joute's: the program evaluates for itself.
        resolved_engine.weights.clear();
        resolved_engine.weights_origin.clear();
        params = option_params;
    }

    let spec = ResolvedTuneSpec {
        name,
        game: kind.to_string(),
        seed,
        method,
        weights_out,
        engine: resolved_engine,
        params,
        features,
        pool,
        plies: plies as u32,
        balance,
        iterations,
        games,
        hill,
        spsa,
        regression,
        confirm: Confirm {
            games: confirm_games,
            aa_games,
            plies: confirm_plies,
        },
        clock,
        options,
    };
    Ok(spec)
}

/// What an outside engine (`[engine]` with `command`) adds to a tuning spec, and what a
/// built-in engine refuses: the clock (`tc`, `st`, `timemargin`, as in tournaments) and each
/// parameter's option — its start from `start`, else from the engine's `options` (required one
/// way or the other), rounded when `integer = true`. Sets the parameters' values (the start).
fn resolve_outside(
    raw: &RawTuneSpec,
    engine: &ResolvedEngine,
    method: Method,
    kind: &GameKind,
    params: &mut [Param],
    loc: &Locator<'_>,
) -> Result<(Option<ResolvedClock>, Vec<TunedOption>), SpecError> {
    let clock_keys = [
        ("tc", &raw.tc),
        ("st", &raw.st),
        ("timemargin", &raw.timemargin),
    ];
    let Some(program) = &engine.outside else {
        if let Some((k, Some(v))) = clock_keys.iter().find(|(_, v)| v.is_some()) {
            return Err(loc.on(
                v,
                k,
                format!("{k} is the clock of an outside engine's games (command = ...); a built-in engine is tuned at its own budget: depth, nodes or time in [engine]"),
            ));
        }
        for (i, p) in raw.param.iter().enumerate() {
            let r = p.get_ref();
            if let Some(v) = &r.start {
                return Err(loc.on(
                    v,
                    &format!("param[{}].start", i + 1),
                    "start belongs to an outside engine's option (command = ...); a built-in engine's parameters start at its weights (engine.weights)",
                ));
            }
            if let Some(v) = &r.integer {
                return Err(loc.on(
                    v,
                    &format!("param[{}].integer", i + 1),
                    "integer belongs to an outside engine's option (command = ...); a built-in engine's weights are any numbers",
                ));
            }
        }
        return Ok((None, Vec::new()));
    };
    if !matches!(method, Method::HillClimb | Method::Spsa) {
        return Err(loc.on(
            &raw.method,
            "method",
            format!(
                "an outside engine's options are tuned by hill-climb or spsa; method = \"{}\" fits joute's own evaluation weights",
                method.name()
            ),
        ));
    }
    fn text(v: &Option<Spanned<String>>) -> Option<&str> {
        v.as_ref().map(|v| v.get_ref().as_str())
    }
    let at = |key: &str| {
        let given = clock_keys.iter().find(|(k, _)| *k == key);
        given
            .and_then(|(_, v)| v.as_ref())
            .map_or(0, |v| v.span().start)
    };
    let clock = crate::arena::spec::clock_of(text(&raw.tc), text(&raw.st), text(&raw.timemargin));
    let clock = clock.map_err(|(key, m)| loc.at(at(key), key, m))?;
    struct FeatureNames;
    impl FeaturesVisitor for FeatureNames {
        type Output = Vec<String>;
        fn visit<G: Features>(self, start: G) -> Vec<String> {
            start.features().iter().map(|f| f.name.clone()).collect()
        }
    }
    let features = crate::eval::dispatch(kind, FeatureNames);
    let mut options = Vec::new();
    for (i, p) in params.iter_mut().enumerate() {
        let r = raw.param[i].get_ref();
        let key = |k: &str| format!("param[{}].{k}", i + 1);
        let n = p.name.clone();
        crate::arena::spec::check_option(program.protocol, &n, "0")
            .map_err(|m| loc.on(&r.name, &key("name"), m))?;
        let value = match (&r.start, program.options.get(&n)) {
            (Some(v), _) => *v.get_ref(),
            (None, Some(text)) => text.trim().parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| {
                loc.on(
                    &raw.engine,
                    &format!("engine.options.{n}"),
                    format!("option '{n}' is '{text}', not a number, so it cannot be tuned from there; give param[{}].start = N", i + 1),
                )
            })?,
            (None, None) if features.contains(&n) => {
                return Err(loc.on(
                    &r.name,
                    &key("name"),
                    format!("'{n}' is a feature of joute's own evaluation of {kind}, which an outside program does not use; an outside engine's parameters are its options: name one, with start = N or its value in engine.options"),
                ));
            }
            (None, None) => {
                return Err(loc.on(
                    &r.name,
                    &key("name"),
                    format!("option '{n}' has no start: give start = N, or its value in the engine's options = {{ {n} = N }}"),
                ));
            }
        };
        if value < p.min || value > p.max {
            let (at, k) = match &r.start {
                Some(v) => (v.span().start, "start"),
                None => (r.name.span().start, "name"),
            };
            return Err(loc.at(
                at,
                &key(k),
                format!(
                    "option '{n}' starts at {}, outside [min, max] = [{}, {}]; widen the bounds",
                    number_text(value),
                    number_text(p.min),
                    number_text(p.max)
                ),
            ));
        }
        p.value = value;
        options.push(TunedOption {
            name: n,
            integer: r.integer.as_ref().is_some_and(|b| *b.get_ref()),
        });
    }
    Ok((clock, options))
}

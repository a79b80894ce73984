//! Stage 2's product: the validated run in canonical form ([`ResolvedSpec`], written to
//! `run.json` and hashed), its engines and its openings.

use super::*;

// ---------------------------------------------------------------------------------------------
// Stage 2: the validated run.

/// Where the openings come from, as resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum OpeningSource {
    /// `count` random openings of `plies` plies, drawn from the spec's seed and filtered.
    Random {
        /// Plies of every opening.
        plies: u32,
        /// Openings wanted.
        count: u32,
        /// The filter against lopsided openings.
        balance: Balance,
        /// Set when the board has fewer distinct openings than wanted and the user allowed
        /// repeats (`joute match --repeat-openings`): this many distinct ones, played in turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        distinct: Option<u32>,
    },
    /// Move sequences read from a file, one per line.
    File {
        /// The file as given.
        path: String,
        /// Openings used per round.
        count: u32,
        /// The order the file's openings are taken in.
        #[serde(default, skip_serializing_if = "FileOrder::is_sequential")]
        order: FileOrder,
        /// Openings of the file skipped before the first one used (in file order).
        #[serde(default, skip_serializing_if = "is_zero")]
        start: u32,
    },
}

/// The order a spec takes an openings file's openings in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileOrder {
    /// The file's order, from `start` on.
    #[default]
    Sequential,
    /// A shuffle of the file's openings (after `start`), drawn from the spec's seed.
    Random,
}

impl FileOrder {
    /// Whether this is the default order (not written in `run.json`, so specs without the key
    /// keep their hash).
    pub fn is_sequential(&self) -> bool {
        *self == FileOrder::Sequential
    }
}

impl OpeningSource {
    /// For a run's header line: `random, 8 plies, 5000 openings` (`…, 12 distinct, repeated`
    /// when they repeat), or `file openings.txt, 50 openings from 1 (random order)`.
    pub fn describe(&self) -> String {
        match self {
            OpeningSource::Random {
                plies,
                count,
                distinct,
                ..
            } => {
                let mut text = format!("random, {plies} plies, {count} openings");
                if let Some(d) = distinct {
                    text.push_str(&format!(" ({d} distinct, repeated)"));
                }
                text
            }
            OpeningSource::File {
                path,
                count,
                order,
                start,
            } => format!(
                "file {path}, {count} openings from {}{}",
                start + 1,
                if order.is_sequential() {
                    ""
                } else {
                    " (random order)"
                }
            ),
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

pub(super) fn default_tree_mib() -> usize {
    crate::search::DEFAULT_TREE_MIB
}

pub(super) fn is_default_tree_mib(mib: &usize) -> bool {
    *mib == crate::search::DEFAULT_TREE_MIB
}

/// A pattern weights file an engine evaluates with: recorded by its path and a digest of its
/// weights (so that the spec's hash changes when the file does), and kept loaded.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PatternsFile {
    /// The path as the spec gives it.
    pub path: String,
    /// Phases in the file.
    pub phases: usize,
    /// A hash of the phases and the weights' bits, in hex.
    pub digest: String,
    /// The loaded evaluation (absent in a form read back from `run.json`).
    #[serde(skip)]
    pub loaded: Option<crate::arena::engine::SharedPatterns>,
}

impl PartialEq for PatternsFile {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.phases == other.phases && self.digest == other.digest
    }
}

impl PatternsFile {
    /// The record of `weights` loaded from `path` as `loaded`.
    pub fn new(
        path: &str,
        weights: &crate::eval::pattern::PatternWeights,
        loaded: crate::arena::engine::SharedPatterns,
    ) -> Self {
        let mut h = crate::games::hash::combine(0x7061_7474, weights.phases as u64);
        for v in &weights.values {
            h = crate::games::hash::combine(h, v.to_bits() as u64);
        }
        PatternsFile {
            path: path.to_string(),
            phases: weights.phases,
            digest: format!("{h:016x}"),
            loaded: Some(loaded),
        }
    }
}

/// One engine as resolved: everything that decides how it plays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolvedEngine {
    /// Name in tables and logs.
    pub name: String,
    /// Algorithm name.
    pub algorithm: String,
    /// Depth limit.
    pub depth: Option<u32>,
    /// Node budget (mcts: playouts).
    pub nodes: Option<u64>,
    /// Time per move, milliseconds (results then depend on the machine).
    pub time_ms: Option<f64>,
    /// mcts playouts per move.
    pub playouts: u64,
    /// alphabeta move order.
    pub ordering: MoveOrder,
    /// alphabeta fail-soft.
    pub fail_soft: bool,
    /// mtdf/pvs table size, MiB.
    pub tt_mib: usize,
    /// bisection tolerance.
    pub tolerance: i32,
    /// mcts exploration constant.
    pub exploration: f64,
    /// mcts tree memory cap, MiB (left out of `run.json` at its default, so that specs written
    /// before it existed keep their hash).
    #[serde(
        default = "default_tree_mib",
        skip_serializing_if = "is_default_tree_mib"
    )]
    pub tree_mib: usize,
    /// Random choice among equal best root moves.
    pub tie_break: bool,
    /// Solve exactly from this many empty squares (cells) on; 0: never (left out of
    /// `run.json` when 0, so that specs from before the key keep their hash and read back as
    /// the engines played then; see [`crate::search::endgame`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub exact: u32,
    /// `pvs`, `mtdf`: search only the cells within this many of a mark (Morpion); 0: every
    /// move (left out of `run.json` when 0, so that specs from before the key keep their
    /// hash; [`SearchOptions::near`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub near: u32,
    /// `pvs`, `mtdf` in the k-in-a-row games: the threat search ([`SearchOptions::threats`];
    /// left out of `run.json` when off, so that specs from before the key keep their hash).
    #[serde(default, skip_serializing_if = "is_false")]
    pub threats: bool,
    /// With `threats`: each leaf's VCF search's nodes ([`SearchOptions::vcf`]; left out of
    /// `run.json` when 0).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub vcf: u64,
    /// With `threats`: each VCT search's nodes at the root ([`SearchOptions::vct`]; left out
    /// of `run.json` when 0).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub vct: u64,
    /// With `threats`: late move reductions ([`SearchOptions::lmr`]; left out of `run.json`
    /// when off).
    #[serde(default, skip_serializing_if = "is_false")]
    pub lmr: bool,
    /// The cores the engine may use: its exact endgame's threads ([`SearchOptions::threads`];
    /// left out of `run.json` when 1, so that specs from before the key keep their hash).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub threads: u32,
    /// Where the weights came from (a path, `inline`, or `built-in default`).
    pub weights_origin: String,
    /// The weights, feature by feature, in the game's feature order.
    pub weights: Vec<(String, f64)>,
    /// A tapered evaluation's endgame weights, in the same order (left out of `run.json`
    /// when the weights have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endgame: Option<Vec<(String, f64)>>,
    /// Othello's pattern evaluation, which then replaces the linear one (left out of
    /// `run.json` when not used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patterns: Option<PatternsFile>,
    /// An outside program (its `algorithm` is then `outside`, and the search fields keep
    /// their defaults); left out of `run.json` for built-in engines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside: Option<OutsideSpec>,
    /// A hosted engine: the key of the function the program running the spec supplies (its
    /// `algorithm` is then `hosted`, and the search fields keep their defaults); left out of
    /// `run.json` for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosted: Option<String>,
    /// The engine's own clock (`tc`/`st`/`timemargin` in its table: time odds), in place of the
    /// spec's; left out of `run.json` when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ResolvedClock>,
}

/// The `algorithm` an outside engine is recorded with.
pub const OUTSIDE: &str = "outside";

impl ResolvedEngine {
    /// An engine called `name` searching with `algorithm` under the default options, with no
    /// budget and no weights yet.
    pub fn with_defaults(name: &str, algorithm: &str) -> ResolvedEngine {
        let defaults = SearchOptions::default();
        ResolvedEngine {
            name: name.to_string(),
            algorithm: algorithm.to_string(),
            depth: None,
            nodes: None,
            time_ms: None,
            playouts: defaults.playouts,
            ordering: defaults.ordering,
            fail_soft: defaults.fail_soft,
            tt_mib: defaults.tt_mib,
            tolerance: defaults.tolerance,
            exploration: defaults.exploration,
            tree_mib: defaults.tree_mib,
            tie_break: defaults.tie_break,
            exact: defaults.exact,
            near: defaults.near,
            threats: defaults.threats,
            vcf: defaults.vcf,
            vct: defaults.vct,
            lmr: defaults.lmr,
            threads: defaults.threads,
            weights_origin: String::new(),
            weights: Vec::new(),
            endgame: None,
            patterns: None,
            outside: None,
            hosted: None,
            clock: None,
        }
    }

    /// Sets the engine's linear weights (and endgame weights) to `w`, features named as the
    /// game of `start` names them.
    pub fn set_weights<G: crate::eval::Features>(&mut self, start: &G, w: &Weights) {
        let names = start.features();
        let named = |values: &[f64]| -> Vec<(String, f64)> {
            names
                .iter()
                .map(|f| f.name.clone())
                .zip(values.iter().copied())
                .collect()
        };
        self.weights_origin = w.origin.clone();
        self.weights = named(&w.values);
        self.endgame = w.endgame.as_deref().map(named);
    }

    /// An outside engine called `name` (the search fields keep their defaults).
    pub fn outside(name: &str, spec: OutsideSpec) -> ResolvedEngine {
        ResolvedEngine {
            depth: spec.depth,
            nodes: spec.nodes,
            outside: Some(spec),
            ..ResolvedEngine::with_defaults(name, OUTSIDE)
        }
    }

    /// A hosted engine called `name`, supplied under `key` by the program running the spec.
    pub fn hosted(name: &str, key: &str) -> ResolvedEngine {
        ResolvedEngine {
            hosted: Some(key.to_string()),
            ..ResolvedEngine::with_defaults(name, super::HOSTED)
        }
    }

    /// The search configuration (the seed is set per game) of a built-in engine.
    pub fn config(&self) -> SearchConfig {
        let algorithm: Algorithm = self
            .algorithm
            .parse()
            .expect("a resolved engine names a known algorithm");
        SearchConfig {
            algorithm,
            limits: Limits {
                depth: self.depth,
                nodes: self.nodes,
                time: self
                    .time_ms
                    .map(|ms| std::time::Duration::from_secs_f64(ms / 1000.0)),
            },
            options: SearchOptions {
                ordering: self.ordering,
                fail_soft: self.fail_soft,
                tt_mib: self.tt_mib,
                tolerance: self.tolerance,
                exploration: self.exploration,
                playouts: self.playouts,
                tree_mib: self.tree_mib,
                tie_break: self.tie_break,
                exact: self.exact,
                near: self.near,
                threats: self.threats,
                vcf: self.vcf,
                vct: self.vct,
                lmr: self.lmr,
                threads: self.threads,
                seed: 0,
            },
        }
    }

    /// When `new` is this engine (as an earlier run recorded it) but for `exact` alone: why
    /// the run cannot go on, and how to go on as the games were played. Runs from before the
    /// key recorded none, which reads as 0, while the same spec now takes the game's default.
    pub fn exact_changed(&self, new: &ResolvedEngine) -> Option<String> {
        if self.exact == new.exact
            || *self
                != (ResolvedEngine {
                    exact: self.exact,
                    ..new.clone()
                })
        {
            return None;
        }
        Some(format!(
            "engine '{}' played its games here with exact = {} and would now play with exact = {} (the default solves endgames exactly; runs started before the key played without): add exact = {} to its table in the spec (on the command line, :exact={} after its budget) to go on as it played",
            self.name, self.exact, new.exact, self.exact, self.exact
        ))
    }

    /// A one-line description: `alphabeta depth 4, weights weights/othello.toml`, or
    /// `gtp engine: edax -gtp -l 4`.
    pub fn describe(&self) -> String {
        if let Some(key) = &self.hosted {
            return format!("hosted engine '{key}' (supplied by the program running the run)");
        }
        if let Some(o) = &self.outside {
            let mut text = o.describe();
            if let Some(d) = o.depth {
                text.push_str(&format!(", depth {d}"));
            }
            if let Some(n) = o.nodes {
                text.push_str(&format!(", {n} nodes"));
            }
            return text;
        }
        let mut budget = Vec::new();
        if let Some(d) = self.depth {
            budget.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            budget.push(format!("{n} nodes"));
        }
        if let Some(t) = self.time_ms {
            budget.push(format!("{t} ms/move"));
        }
        if self.algorithm == "mcts" && self.nodes.is_none() {
            budget.push(format!("{} playouts", self.playouts));
        }
        let mut text = self.algorithm.clone();
        if !budget.is_empty() {
            text.push(' ');
            text.push_str(&budget.join(", "));
        }
        if self.exact > 0 {
            text.push_str(&format!(", exact from {} empties", self.exact));
        }
        if self.near > 0 {
            text.push_str(&format!(", moves within {} of a mark", self.near));
        }
        if self.threats {
            text.push_str(", threat search");
            if self.vcf > 0 {
                text.push_str(&format!(" (VCF of {} nodes at the leaves)", self.vcf));
            }
            if self.vct > 0 {
                text.push_str(&format!(" (VCT of {} nodes at the root)", self.vct));
            }
            if self.lmr {
                text.push_str(" (late move reductions)");
            }
        }
        if self.algorithm != "random" {
            text.push_str(&format!(", weights {}", self.weights_origin));
        }
        text
    }
}

/// The anchor of the rating scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Anchor {
    /// The engine whose rating is fixed.
    pub engine: String,
    /// Its rating.
    pub elo: f64,
}

/// The rating model of a run's reports (`[ratings]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingsModel {
    /// Fit a first-move advantage with the ratings, or leave it out.
    #[serde(default)]
    pub first_move: FirstMove,
}

impl RatingsModel {
    /// The default model (fit the first-move advantage).
    pub fn is_default(&self) -> bool {
        *self == RatingsModel::default()
    }
}

/// A spec in canonical form: what `run.json` records and what the spec hash covers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolvedSpec {
    /// Run name.
    pub name: String,
    /// Game name, canonical spelling.
    pub game: String,
    /// The seed.
    pub seed: u64,
    /// `round-robin` or `gauntlet`.
    pub format: String,
    /// Gauntlet challengers (empty for a round robin).
    pub challengers: Vec<String>,
    /// Where the openings came from.
    pub openings: OpeningSource,
    /// Every opening, its moves separated by spaces (one string each: runs hold up to a
    /// million openings).
    pub opening_moves: Vec<String>,
    /// Times each pairing plays every opening pair.
    pub rounds: u32,
    /// The engines.
    pub engines: Vec<ResolvedEngine>,
    /// The anchor, if any.
    pub anchor: Option<Anchor>,
    /// The rating model (`[ratings]`; left out of `run.json` and the hash when it is the
    /// default, so that runs from before it keep their hash).
    #[serde(default, skip_serializing_if = "RatingsModel::is_default")]
    pub ratings: RatingsModel,
    /// The sequential test, for two-engine runs.
    pub sprt: Option<Sprt>,
    /// The clock of every engine that has none of its own, when games are played on one (left
    /// out of `run.json` otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ResolvedClock>,
    /// Perfect-knowledge adjudication by the game's solver (`[adjudication]`; left out of
    /// `run.json` and the hash when off, so that runs from before it keep their hash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<crate::arena::adjudication::AdjudicationRules>,
    /// The game records the run writes in its folder (`[output] records`: format names, as
    /// `joute export --format` takes them). An output, not what is played: left out of the
    /// hash.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<String>,
    /// The cap of each outside engine's stderr log in MiB (`[output] engine_log_mib`; `None`:
    /// the default, 64). An output, left out of the hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_log_mib: Option<u64>,
    /// A run that gained engines: the shapes it had before, oldest first (written by the
    /// session that grew it, not by the spec's author). Their games keep their ids
    /// ([`Schedule::grown`]); left out of the hash, which is the spec's as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grown: Vec<EarlierShape>,
    /// Each concurrent game on cores of its own, both its engines with it (`affinity`;
    /// [`crate::arena::affinity`]). How the games are run, not which: left out of the hash.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub affinity: bool,
}

/// An earlier shape of a run that gained engines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EarlierShape {
    /// The engines it had, in their order.
    pub engines: Vec<String>,
    /// Its gauntlet challengers (empty for a round robin).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub challengers: Vec<String>,
    /// Its openings, all rounds together.
    pub openings: u64,
}

impl ResolvedSpec {
    /// The clock engine `index` plays on: its own, else the spec's.
    pub fn engine_clock(&self, index: usize) -> Option<ResolvedClock> {
        self.engines[index].clock.or(self.clock)
    }

    /// Whether any engine plays on a clock.
    pub fn has_clock(&self) -> bool {
        self.clock.is_some() || self.engines.iter().any(|e| e.clock.is_some())
    }

    /// Whether any engine's moves depend on the time it gets: a clock, or a built-in engine's
    /// time limit. A machine short of cores then changes the games, not only their timings.
    pub fn on_time(&self) -> bool {
        self.has_clock() || self.engines.iter().any(|e| e.time_ms.is_some())
    }

    /// The hash of the canonical JSON form: 16 hex digits (FNV-1a, 64 bits), stable across
    /// platforms and versions as long as the form is.
    pub fn hash(&self) -> String {
        if self.records.is_empty()
            && self.engine_log_mib.is_none()
            && self.grown.is_empty()
            && !self.affinity
        {
            hash_json(self)
        } else {
            hash_json(&ResolvedSpec {
                records: Vec::new(),
                engine_log_mib: None,
                grown: Vec::new(),
                affinity: false,
                ..self.clone()
            })
        }
    }

    /// The cap of each outside engine's stderr log, in bytes.
    pub fn engine_log_cap(&self) -> u64 {
        self.engine_log_mib
            .map_or(crate::arena::engine_log::DEFAULT_CAP, |m| m << 20)
    }

    /// Checks what the rest of the code takes for granted of a resolved spec read back from a
    /// `run.json` (which a person may have edited): the game and algorithms exist, at least two
    /// engines with unique names, challengers and anchor among them, openings for every round,
    /// finite weights.
    pub fn check(&self) -> Result<(), String> {
        GameKind::parse(&self.game).map_err(|e| e.to_string())?;
        if self.engines.len() < 2 || self.engines.len() > MAX_ENGINES {
            return Err(format!(
                "{} engines; allowed 2..={MAX_ENGINES}",
                self.engines.len()
            ));
        }
        for (i, e) in self.engines.iter().enumerate() {
            if self.engines[..i].iter().any(|f| f.name == e.name) {
                return Err(format!("two engines are called '{}'", e.name));
            }
            if e.outside.is_some() != (e.algorithm == OUTSIDE) {
                return Err(format!(
                    "engine '{}': an outside engine is recorded as algorithm '{OUTSIDE}' with its program",
                    e.name
                ));
            }
            if e.hosted.is_some() != (e.algorithm == super::HOSTED) {
                return Err(format!(
                    "engine '{}': a hosted engine is recorded as algorithm '{}' with its key",
                    e.name,
                    super::HOSTED
                ));
            }
            if e.hosted.is_some() {
            } else if let Some(o) = &e.outside {
                if let Some(why) = o
                    .protocol
                    .refuses(&GameKind::parse(&self.game).map_err(|e| e.to_string())?)
                {
                    return Err(format!("engine '{}': {why}", e.name));
                }
            } else {
                e.algorithm
                    .parse::<Algorithm>()
                    .map_err(|err| format!("engine '{}': {err}", e.name))?;
            }
            if e.weights
                .iter()
                .any(|(_, w)| crate::eval::weights::check_weight(*w).is_err())
                || e.tt_mib == 0
                || e.tt_mib > 1024
            {
                return Err(format!(
                    "engine '{}': invalid weights or table size",
                    e.name
                ));
            }
        }
        match self.format.as_str() {
            "round-robin" if self.challengers.is_empty() => {}
            "gauntlet"
                if !self.challengers.is_empty()
                    && self.challengers.len() < self.engines.len()
                    && self
                        .challengers
                        .iter()
                        .all(|c| self.engine_index(c).is_some()) => {}
            _ => {
                return Err(format!(
                    "format '{}' with challengers {:?} is not valid",
                    self.format, self.challengers
                ));
            }
        }
        if let Some(a) = &self.anchor
            && self.engine_index(&a.engine).is_none()
        {
            return Err(format!("the anchor '{}' is not an engine", a.engine));
        }
        let openings = self.opening_moves.len() as u64;
        if self.rounds == 0
            || openings == 0
            || !openings.is_multiple_of(self.rounds as u64)
            || openings > MAX_OPENINGS
        {
            return Err(format!(
                "{openings} openings cannot make {} round(s)",
                self.rounds
            ));
        }
        self.stages()?;
        if self.schedule().games() > MAX_GAMES {
            return Err(format!("more than {MAX_GAMES} games"));
        }
        Ok(())
    }

    /// The pairings of a run of these engines and challengers (the spec's format), as names.
    fn pairings_of<'a>(
        &self,
        engines: &'a [String],
        challengers: &'a [String],
    ) -> Vec<(&'a str, &'a str)> {
        let indices = |names: &[String]| -> Vec<usize> {
            (names.iter())
                .filter_map(|c| engines.iter().position(|e| e == c))
                .collect()
        };
        let format = if self.format == "gauntlet" {
            Format::Gauntlet {
                challengers: indices(challengers),
            }
        } else {
            Format::RoundRobin
        };
        let schedule = Schedule::new(&format, engines.len(), 0, 1);
        (schedule.pairings.iter())
            .map(|&(a, b)| (engines[a].as_str(), engines[b].as_str()))
            .collect()
    }

    /// The earlier shapes of a grown run as schedule stages: every earlier pairing must be
    /// one of the spec's (the same engines, in the same roles and order) and no shape may have
    /// more openings than the next.
    pub fn stages(&self) -> Result<Vec<Stage>, String> {
        if self.grown.is_empty() {
            return Ok(Vec::new());
        }
        let names = self.engine_names();
        let present = self.pairings_of(&names, &self.challengers);
        let mut stages = Vec::new();
        let mut openings_before = 0;
        for (i, shape) in self.grown.iter().enumerate() {
            if let Some(c) = (shape.challengers.iter()).find(|c| !shape.engines.contains(c)) {
                return Err(format!(
                    "grown[{i}]: the challenger '{c}' is not one of its engines"
                ));
            }
            let mut pairings = Vec::new();
            for (a, b) in self.pairings_of(&shape.engines, &shape.challengers) {
                let at = present.iter().position(|&p| p == (a, b)).ok_or_else(|| {
                    format!("grown[{i}]: the pairing {a}-{b} is not one of the spec's")
                })?;
                pairings.push(at);
            }
            let later = self
                .grown
                .get(i + 1)
                .map_or(self.opening_moves.len() as u64, |s| s.openings);
            if shape.openings < openings_before || shape.openings > later {
                return Err(format!(
                    "grown[{i}]: its {} openings do not lead up to the spec's",
                    shape.openings
                ));
            }
            openings_before = shape.openings;
            stages.push(Stage {
                pairings,
                openings: shape.openings,
            });
        }
        Ok(stages)
    }

    /// The game.
    pub fn game_kind(&self) -> GameKind {
        GameKind::parse(&self.game).expect("a resolved spec names a known game")
    }

    /// The schedule of games.
    pub fn schedule(&self) -> Schedule {
        let format = if self.format == "gauntlet" {
            Format::Gauntlet {
                challengers: self
                    .challengers
                    .iter()
                    .map(|c| self.engine_index(c).expect("challengers are engines"))
                    .collect(),
            }
        } else {
            Format::RoundRobin
        };
        Schedule::new(
            &format,
            self.engines.len(),
            self.opening_moves.len() as u64,
            self.rounds,
        )
        .grown(
            &self
                .stages()
                .expect("a resolved spec's earlier shapes are checked"),
        )
    }

    /// The index of the engine called `name`.
    pub fn engine_index(&self, name: &str) -> Option<usize> {
        self.engines.iter().position(|e| e.name == name)
    }

    /// The engine names, in spec order.
    pub fn engine_names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }

    /// The anchor as (engine index, Elo).
    pub fn anchor_index(&self) -> Option<(usize, f64)> {
        self.anchor
            .as_ref()
            .and_then(|a| Some((self.engine_index(&a.engine)?, a.elo)))
    }
}

//! Tournament specs (`tournaments/*.toml`; every key in `docs/spec.md`), read in two stages:
//!
//! 1. [`RawSpec`]: the TOML structure as written, every value with its span, unknown keys
//!    refused (serde's `deny_unknown_fields`), types checked by the deserialiser;
//! 2. [`TournamentSpec`]: the validated run — game resolved, engines built with their weights
//!    loaded and checked against the game's features, openings generated or read, the
//!    schedule's size checked — together with its canonical form ([`ResolvedSpec`], written to
//!    `run.json`) and that form's hash, which a resumed run and a merge of shards compare.
//!
//! Every error is a [`SpecError`]: `FILE:LINE:COLUMN: key 'KEY': what is wrong; what is
//! allowed`. The keys:
//!
//! ```toml
//! name = "othello-depths"     # required; the default output folder is reports/NAME/
//! game = "othello"            # required; othello, connect4, morpion, morpion-RxC-K, random-tree-BxD
//! seed = 2026                 # required; every random choice of the run derives from it
//! format = "round-robin"      # or "gauntlet" (then `challengers` is required)
//! challengers = ["ab-6"]      # gauntlet: these engines play every other engine, and only them
//! openings = { plies = 6, count = 50 }   # random openings; or { file = "path", count = N }
//!                             # random openings also take balance_depth (default 2) and
//!                             # max_imbalance (in weight units; see openings.rs)
//! games = 100                 # optional: games per pairing = 2 × count × rounds
//! rounds = 1                  # optional: rounds, each with `count` openings of its own
//! anchor = "random"           # optional: this engine's Elo is fixed (at anchor_elo, default 0)
//! anchor_elo = 0
//! [sprt]                      # optional, two engines only: stop when the GSPRT decides
//! elo0 = 0
//! elo1 = 10
//! alpha = 0.05                # default 0.05
//! beta = 0.05                 # default 0.05
//! model = "logistic"          # or "normalized" (bounds in nElo)
//!
//! [[engine]]                  # two or more
//! name = "ab-4"               # required, unique
//! algorithm = "alphabeta"     # required: minimax, negamax, alphabeta, bisection, mtdf, pvs, mcts, random
//! depth = 4                   # a budget: depth, nodes, time ("200ms", "0.5s") or, for mcts, playouts
//! weights = "weights/othello.toml"      # or an inline table { discs = 1.0, mobility = 8 }
//! # search options: ordering ("natural", "evaluation", "perfect"), fail_soft, tt_mib,
//! # tolerance (bisection), exploration (mcts), tie_break
//! ```
//!
//! Paths (weights, opening files) are relative to the spec file's folder (the current folder
//! for a spec that is no file, such as the embedded quickstart), and recorded as written.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::engine::{EngineSpec, parse_time};
use super::openings::{self, Balance};
use super::schedule::{Format, Schedule};
use crate::eval::weights::line_col;
use crate::eval::{Features, FeaturesVisitor, Weights};
use crate::games::GameKind;
use crate::search::{
    Algorithm, Limits, MAX_DEPTH, MAX_NODES, MAX_PLAYOUTS, MAX_TREE_MIB, MoveOrder, SearchConfig,
    SearchOptions,
};
use crate::stats::sprt::{EloModel, Sprt};

/// The most engines a spec may name.
pub const MAX_ENGINES: usize = 64;
/// The largest anchor rating, in absolute value: ratings of real engines span a few thousand.
pub const MAX_ANCHOR_ELO: f64 = 10_000.0;
/// The longest engine or run name, in characters (names head table columns and folders).
pub const MAX_NAME_CHARS: usize = 64;
/// The most games a run may schedule.
pub const MAX_GAMES: u64 = 10_000_000;
/// The most openings a run may use (all rounds together).
pub const MAX_OPENINGS: u64 = 1_000_000;

/// Why a spec was refused: where, which key, what is wrong and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SpecError {
    /// The spec file (or `(embedded quickstart)`, `(command line)`).
    pub file: String,
    /// 1-based line (0 when the error has no place in the file, e.g. an unreadable file).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The key at fault, as a path (`engine[2].depth`), or empty.
    pub key: String,
    /// What is wrong, and what is allowed.
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        } else {
            write!(f, "{}: ", self.file)?;
        }
        if !self.key.is_empty() {
            write!(f, "key '{}': ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

/// Builds [`SpecError`]s that point into one spec's text, and resolves the paths it names.
pub(crate) struct Locator<'a> {
    pub(crate) file: &'a str,
    pub(crate) text: &'a str,
    /// The spec file's folder: relative paths in the spec are relative to it (`None` for a
    /// spec that is no file, such as the embedded quickstart: the current folder).
    pub(crate) base: Option<&'a Path>,
}

impl Locator<'_> {
    /// A path written in the spec, as the process opens it: relative to the spec's folder.
    pub(crate) fn path(&self, written: &str) -> PathBuf {
        let path = Path::new(written);
        match self.base {
            Some(base) if path.is_relative() => base.join(path),
            _ => path.to_path_buf(),
        }
    }
}

impl Locator<'_> {
    /// An error at byte `offset` of the text.
    pub(crate) fn at(&self, offset: usize, key: &str, message: impl Into<String>) -> SpecError {
        let (line, column) = line_col(self.text, offset);
        SpecError {
            file: self.file.to_string(),
            line,
            column,
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// An error at a spanned value.
    pub(crate) fn on<T>(
        &self,
        value: &Spanned<T>,
        key: &str,
        message: impl Into<String>,
    ) -> SpecError {
        self.at(value.span().start, key, message)
    }
}

// ---------------------------------------------------------------------------------------------
// Stage 1: the TOML structure.

/// A spec as written: what the TOML deserialiser checks (key names, types).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    name: Spanned<String>,
    game: Spanned<String>,
    seed: Spanned<u64>,
    format: Option<Spanned<String>>,
    challengers: Option<Spanned<Vec<Spanned<String>>>>,
    openings: Spanned<RawOpenings>,
    games: Option<Spanned<i64>>,
    rounds: Option<Spanned<i64>>,
    anchor: Option<Spanned<String>>,
    anchor_elo: Option<Spanned<f64>>,
    sprt: Option<Spanned<RawSprt>>,
    #[serde(default)]
    engine: Vec<Spanned<RawEngine>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOpenings {
    plies: Option<Spanned<i64>>,
    count: Option<Spanned<i64>>,
    file: Option<Spanned<String>>,
    balance_depth: Option<Spanned<i64>>,
    max_imbalance: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSprt {
    elo0: Spanned<f64>,
    elo1: Spanned<f64>,
    alpha: Option<Spanned<f64>>,
    beta: Option<Spanned<f64>>,
    model: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEngine {
    /// Required in a tournament; a tuning spec's tuned engine has none.
    name: Option<Spanned<String>>,
    algorithm: Spanned<String>,
    depth: Option<Spanned<i64>>,
    nodes: Option<Spanned<i64>>,
    time: Option<Spanned<String>>,
    playouts: Option<Spanned<i64>>,
    weights: Option<Spanned<toml::Value>>,
    ordering: Option<Spanned<String>>,
    fail_soft: Option<Spanned<bool>>,
    tt_mib: Option<Spanned<i64>>,
    tolerance: Option<Spanned<i64>>,
    exploration: Option<Spanned<f64>>,
    tree_mib: Option<Spanned<i64>>,
    tie_break: Option<Spanned<bool>>,
}

impl RawEngine {
    /// The `name` key, when given.
    pub(crate) fn name(&self) -> Option<&Spanned<String>> {
        self.name.as_ref()
    }

    /// The `weights` key, when given.
    pub(crate) fn weights_value(&self) -> Option<&Spanned<toml::Value>> {
        self.weights.as_ref()
    }
}

/// The two kinds of spec, told apart by the keys only one of them has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecKind {
    /// A tournament (`joute run`): `[[engine]]` tables, `format`, `anchor`, ...
    Tournament,
    /// A tuning run (`joute tune`): `method`, `[engine]`, `[[param]]`, `[budget]`, ...
    Tuning,
}

impl SpecKind {
    /// Judges a spec's text; `None` when it is not TOML or has none of the telling keys.
    pub fn of(text: &str) -> Option<SpecKind> {
        let table: toml::Table = toml::from_str(text).ok()?;
        const TUNING: [&str; 9] = [
            "method",
            "weights_out",
            "opponent",
            "pool",
            "budget",
            "hill",
            "spsa",
            "confirm",
            "param",
        ];
        const TOURNAMENT: [&str; 5] = ["format", "challengers", "rounds", "anchor", "anchor_elo"];
        let tuning = TUNING.iter().filter(|k| table.contains_key(**k)).count()
            + usize::from(table.get("engine").is_some_and(toml::Value::is_table));
        let tournament = TOURNAMENT
            .iter()
            .filter(|k| table.contains_key(**k))
            .count()
            + usize::from(table.get("engine").is_some_and(toml::Value::is_array));
        match tuning.cmp(&tournament) {
            std::cmp::Ordering::Greater => Some(SpecKind::Tuning),
            std::cmp::Ordering::Less => Some(SpecKind::Tournament),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// The error for a spec of this kind given to the other command.
    pub fn wrong_command(self, file: &str) -> SpecError {
        let (what, command) = match self {
            SpecKind::Tournament => ("a tournament spec", "joute run"),
            SpecKind::Tuning => ("a tuning spec", "joute tune"),
        };
        SpecError {
            file: file.to_string(),
            line: 0,
            column: 0,
            key: String::new(),
            message: format!("this is {what}: run it with `{command} {file}`"),
        }
    }
}

impl RawSpec {
    /// Reads the TOML structure of a spec; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<RawSpec, SpecError> {
        toml::from_str(text).map_err(|e| {
            if SpecKind::of(text) == Some(SpecKind::Tuning) {
                return SpecKind::Tuning.wrong_command(file);
            }
            let loc = Locator {
                file,
                text,
                base: None,
            };
            let offset = e.span().map_or(0, |s| s.start);
            let (key, message) = plain_serde_message(e.message(), text, offset);
            loc.at(offset, &key, message)
        })
    }
}

/// Rewrites the deserialiser's message in the project's words: the key it is about, and what
/// is wrong.
pub(crate) fn plain_serde_message(message: &str, text: &str, offset: usize) -> (String, String) {
    let message = message.trim();
    let ticks = |s: &str| s.replace('`', "'");
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (key, allowed) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed = allowed
            .trim_start_matches(", expected one of ")
            .trim_start_matches(", expected ")
            .replace('`', "");
        return (
            key.to_string(),
            format!("unknown key; allowed keys here: {allowed}"),
        );
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let key = rest.trim_end_matches('`');
        return (
            key.to_string(),
            format!("missing key '{key}' (required here)"),
        );
    }
    let key = crate::eval::weights::key_on_line(text, offset);
    // serde names the Rust type it wanted ("expected struct RawSprt"): say what it is in TOML.
    let mut message = ticks(message);
    while let Some(at) = message.find("struct Raw") {
        let end = message[at + 7..]
            .find(|c: char| !c.is_alphanumeric())
            .map_or(message.len(), |e| at + 7 + e);
        message.replace_range(at..end, "a table");
    }
    (if key == "(none)" { String::new() } else { key }, message)
}

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
        /// Openings used (the first lines of the file).
        count: u32,
    },
}

fn default_tree_mib() -> usize {
    crate::search::DEFAULT_TREE_MIB
}

fn is_default_tree_mib(mib: &usize) -> bool {
    *mib == crate::search::DEFAULT_TREE_MIB
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
    /// Where the weights came from (a path, `inline`, or `built-in default`).
    pub weights_origin: String,
    /// The weights, feature by feature, in the game's feature order.
    pub weights: Vec<(String, f64)>,
}

impl ResolvedEngine {
    /// The search configuration (the seed is set per game).
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
                seed: 0,
            },
        }
    }

    /// A one-line description: `alphabeta depth 4, weights weights/othello.toml`.
    pub fn describe(&self) -> String {
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
    /// The sequential test, for two-engine runs.
    pub sprt: Option<Sprt>,
}

impl ResolvedSpec {
    /// The hash of the canonical JSON form: 16 hex digits (FNV-1a, 64 bits), stable across
    /// platforms and versions as long as the form is.
    pub fn hash(&self) -> String {
        hash_json(self)
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
            e.algorithm
                .parse::<Algorithm>()
                .map_err(|err| format!("engine '{}': {err}", e.name))?;
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
        if self.schedule().games() > MAX_GAMES {
            return Err(format!("more than {MAX_GAMES} games"));
        }
        Ok(())
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

/// The hash of a value's JSON form: 16 hex digits (FNV-1a, 64 bits).
pub fn hash_json(value: &impl Serialize) -> String {
    let json = serde_json::to_string(value).expect("a resolved spec serialises");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in json.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A validated spec, ready to run.
#[derive(Clone, Debug)]
pub struct TournamentSpec {
    /// The canonical form.
    pub resolved: ResolvedSpec,
    /// Its hash.
    pub hash: String,
    /// The engines, ready to build.
    pub engines: Vec<(EngineSpec, Weights)>,
}

impl TournamentSpec {
    /// Reads and validates the spec file at `path`.
    pub fn load(path: &Path) -> Result<TournamentSpec, SpecError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SpecError {
            file: file.clone(),
            line: 0,
            column: 0,
            key: String::new(),
            message: format!("cannot read the spec: {e}"),
        })?;
        let raw = RawSpec::parse(&text, &file)?;
        let loc = Locator {
            file: &file,
            text: &text,
            base: Some(path.parent().unwrap_or(Path::new(""))),
        };
        validate(raw, &loc)
    }

    /// Validates the text of a spec; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<TournamentSpec, SpecError> {
        let raw = RawSpec::parse(text, file)?;
        let loc = Locator {
            file,
            text,
            base: None,
        };
        validate(raw, &loc)
    }

    /// Builds the spec from its canonical form (as `run.json` records it), reloading nothing
    /// from disk: the weights are in the form.
    pub fn from_resolved(resolved: ResolvedSpec) -> TournamentSpec {
        let engines = resolved
            .engines
            .iter()
            .map(|e| {
                (
                    EngineSpec {
                        name: e.name.clone(),
                        config: e.config(),
                        weights: None,
                    },
                    Weights {
                        game: resolved.game.clone(),
                        values: e.weights.iter().map(|(_, v)| *v).collect(),
                        origin: e.weights_origin.clone(),
                    },
                )
            })
            .collect();
        TournamentSpec {
            hash: resolved.hash(),
            resolved,
            engines,
        }
    }
}

/// Validates a spec's `name` (a folder name) and `game`.
pub(crate) fn name_and_game(
    name: &Spanned<String>,
    game: &Spanned<String>,
    loc: &Locator<'_>,
) -> Result<(String, GameKind), SpecError> {
    let text = name.get_ref().trim().to_string();
    if text.is_empty()
        || text
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_control())
        || text == "."
        || text == ".."
        || text.chars().count() > MAX_NAME_CHARS
    {
        return Err(loc.on(
            name,
            "name",
            format!("the name must be non-empty, at most {MAX_NAME_CHARS} characters and usable as a folder name (no '/', '\\' or control characters)"),
        ));
    }
    let kind = GameKind::parse(game.get_ref()).map_err(|e| loc.on(game, "game", e.to_string()))?;
    Ok((text, kind))
}

fn validate(raw: RawSpec, loc: &Locator<'_>) -> Result<TournamentSpec, SpecError> {
    let (name, kind) = name_and_game(&raw.name, &raw.game, loc)?;

    // Engines: names, count, algorithms and budgets (weights need the game: below).
    if raw.engine.len() < 2 {
        let at = raw.engine.first().map_or(0, |e| e.span().start);
        return Err(loc.at(
            at,
            "engine",
            format!(
                "a tournament needs at least two [[engine]] tables; found {}",
                raw.engine.len()
            ),
        ));
    }
    if raw.engine.len() > MAX_ENGINES {
        return Err(loc.on(
            &raw.engine[MAX_ENGINES],
            "engine",
            format!("at most {MAX_ENGINES} engines"),
        ));
    }
    let mut names: Vec<String> = Vec::new();
    for (i, e) in raw.engine.iter().enumerate() {
        let engine = e.get_ref();
        let key = format!("engine[{}].name", i + 1);
        let Some(name) = &engine.name else {
            return Err(loc.on(e, &key, "missing key 'name' (required here)"));
        };
        let n = name.get_ref().trim();
        if n.is_empty()
            || n.chars().any(|c| c.is_control() || c == ',')
            || n.chars().count() > MAX_NAME_CHARS
        {
            return Err(loc.on(
                name,
                &key,
                format!("an engine name must be non-empty, at most {MAX_NAME_CHARS} characters, without commas or control characters"),
            ));
        }
        if let Some(first) = names.iter().position(|m| m == n) {
            return Err(loc.on(
                name,
                &key,
                format!(
                    "two engines are called '{n}' (engines {} and {}); names must be unique",
                    first + 1,
                    i + 1
                ),
            ));
        }
        names.push(n.to_string());
    }

    // Format.
    let format = match raw.format.as_ref().map(|f| f.get_ref().as_str()) {
        None | Some("round-robin") => "round-robin",
        Some("gauntlet") => "gauntlet",
        Some(other) => {
            return Err(loc.on(
                raw.format.as_ref().expect("present"),
                "format",
                format!("unknown format '{other}'; allowed: round-robin, gauntlet"),
            ));
        }
    };
    let mut challengers = Vec::new();
    match (&raw.challengers, format) {
        (Some(list), "gauntlet") => {
            if list.get_ref().is_empty() {
                return Err(loc.on(
                    list,
                    "challengers",
                    "a gauntlet needs at least one challenger",
                ));
            }
            for c in list.get_ref() {
                let n = c.get_ref().trim();
                if !names.iter().any(|m| m == n) {
                    return Err(loc.on(
                        c,
                        "challengers",
                        format!("'{n}' is not an engine; engines: {}", names.join(", ")),
                    ));
                }
                if challengers.iter().any(|m| m == n) {
                    return Err(loc.on(c, "challengers", format!("'{n}' is listed twice")));
                }
                challengers.push(n.to_string());
            }
            if challengers.len() == names.len() {
                return Err(loc.on(
                    list,
                    "challengers",
                    "every engine is a challenger, so nobody is left to play them; use format = \"round-robin\" or list fewer challengers",
                ));
            }
        }
        (None, "gauntlet") => {
            return Err(loc.on(
                raw.format.as_ref().expect("gauntlet is written"),
                "challengers",
                "a gauntlet needs challengers = [\"NAME\", ...]: the engines that play all the others",
            ));
        }
        (Some(list), _) => {
            return Err(loc.on(
                list,
                "challengers",
                "challengers belong to format = \"gauntlet\"",
            ));
        }
        (None, _) => {}
    }

    // Rounds and the game count.
    let rounds = match &raw.rounds {
        None => 1,
        Some(r) => {
            let v = *r.get_ref();
            if !(1..=10_000).contains(&v) {
                return Err(loc.on(r, "rounds", format!("rounds is {v}; allowed: 1..=10000")));
            }
            v as u32
        }
    };
    let games = match &raw.games {
        None => None,
        Some(g) => {
            let v = *g.get_ref();
            if v <= 0 || v % 2 != 0 {
                return Err(loc.on(
                    g,
                    "games",
                    format!(
                        "games is {v}; it must be a positive even number (games per pairing: every opening is played twice, colours swapped)"
                    ),
                ));
            }
            if v % (2 * rounds as i64) != 0 {
                return Err(loc.on(
                    g,
                    "games",
                    format!(
                        "games is {v}; with rounds = {rounds} it must be a multiple of {}",
                        2 * rounds
                    ),
                ));
            }
            Some((g, (v / 2 / rounds as i64) as u64))
        }
    };

    // Openings: random or from a file.
    let raw_openings = raw.openings.get_ref();
    let count = match &raw_openings.count {
        None => None,
        Some(c) => {
            let v = *c.get_ref();
            if v <= 0 || v as u64 > MAX_OPENINGS {
                return Err(loc.on(
                    c,
                    "openings.count",
                    format!("count is {v}; allowed: 1..={MAX_OPENINGS}"),
                ));
            }
            Some(v as u64)
        }
    };
    let count = match (count, games) {
        (Some(c), Some((g, from_games))) if c != from_games => {
            return Err(loc.on(
                g,
                "games",
                format!(
                    "games = {} does not match openings.count = {c} × 2 colours × {rounds} round(s) = {}; give one of them",
                    g.get_ref(),
                    c * 2 * rounds as u64
                ),
            ));
        }
        (Some(c), _) => Some(c),
        (None, Some((_, from_games))) => Some(from_games),
        (None, None) => None,
    };
    let opening_request = match (&raw_openings.file, &raw_openings.plies) {
        (Some(_), Some(p)) => {
            return Err(loc.on(
                p,
                "openings.plies",
                "give either plies (random openings) or file, not both",
            ));
        }
        (Some(f), None) => {
            for (key, present) in [
                (
                    "openings.balance_depth",
                    raw_openings.balance_depth.as_ref().map(|s| s.span()),
                ),
                (
                    "openings.max_imbalance",
                    raw_openings.max_imbalance.as_ref().map(|s| s.span()),
                ),
            ] {
                if let Some(span) = present {
                    return Err(loc.at(
                        span.start,
                        key,
                        "applies to random openings only; an openings file is used as it is",
                    ));
                }
            }
            OpeningRequest::File {
                path: f.get_ref().clone(),
                count,
                span: f.span().start,
            }
        }
        (None, Some(p)) => {
            let plies = *p.get_ref();
            if !(0..=200).contains(&plies) {
                return Err(loc.on(
                    p,
                    "openings.plies",
                    format!("plies is {plies}; allowed: 0..=200"),
                ));
            }
            let Some(count) = count else {
                return Err(loc.on(
                    &raw.openings,
                    "openings.count",
                    "say how many openings: openings = { plies = 6, count = 50 }, or games = N at the top level",
                ));
            };
            let mut balance = Balance::default_for(kind);
            if let Some(d) = &raw_openings.balance_depth {
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
            if let Some(m) = &raw_openings.max_imbalance {
                let v = *m.get_ref();
                if v.is_nan() || v <= 0.0 {
                    return Err(loc.on(m, "openings.max_imbalance", format!("max_imbalance is {v}; it must be a positive number (in weight units) or inf")));
                }
                balance.max_imbalance = v.is_finite().then_some(v);
            }
            // The size of the run, before any opening is generated.
            let schedule_format = if format == "gauntlet" {
                Format::Gauntlet {
                    challengers: challengers
                        .iter()
                        .map(|c| names.iter().position(|n| n == c).expect("checked above"))
                        .collect(),
                }
            } else {
                Format::RoundRobin
            };
            let pairings = Schedule::new(&schedule_format, names.len(), 0, 1)
                .pairings
                .len() as u64;
            let openings = count * rounds as u64;
            if openings > MAX_OPENINGS || pairings * openings * 2 > MAX_GAMES {
                return Err(loc.on(
                    &raw.openings,
                    "openings",
                    format!(
                        "{openings} openings ({count} × {rounds} round(s)) for {pairings} pairing(s) make {} games; at most {MAX_OPENINGS} openings and {MAX_GAMES} games",
                        pairings * openings * 2
                    ),
                ));
            }
            OpeningRequest::Random {
                plies: plies as u32,
                count: count as u32,
                balance,
                span: raw.openings.span().start,
            }
        }
        (None, None) => {
            return Err(loc.on(
                &raw.openings,
                "openings",
                "say where the openings come from: { plies = 6, count = 50 } or { file = \"openings.txt\" }",
            ));
        }
    };

    // Anchor.
    let anchor = match (&raw.anchor, &raw.anchor_elo) {
        (Some(a), elo) => {
            let n = a.get_ref().trim();
            if !names.iter().any(|m| m == n) {
                return Err(loc.on(
                    a,
                    "anchor",
                    format!("'{n}' is not an engine; engines: {}", names.join(", ")),
                ));
            }
            let elo_value = elo.as_ref().map_or(0.0, |e| *e.get_ref());
            if !(-MAX_ANCHOR_ELO..=MAX_ANCHOR_ELO).contains(&elo_value) {
                return Err(loc.on(
                    elo.as_ref().expect("given"),
                    "anchor_elo",
                    format!(
                        "anchor_elo is {elo_value}; allowed: -{MAX_ANCHOR_ELO}..={MAX_ANCHOR_ELO}"
                    ),
                ));
            }
            Some(Anchor {
                engine: n.to_string(),
                elo: elo_value,
            })
        }
        (None, Some(e)) => {
            return Err(loc.on(e, "anchor_elo", "anchor_elo needs anchor = \"ENGINE\""));
        }
        (None, None) => None,
    };

    // SPRT.
    let sprt = match &raw.sprt {
        None => None,
        Some(s) => {
            if names.len() != 2 {
                return Err(loc.on(
                    s,
                    "sprt",
                    format!(
                        "an SPRT compares exactly two engines; this spec has {}",
                        names.len()
                    ),
                ));
            }
            Some(resolve_sprt(s, "sprt", loc)?)
        }
    };

    // Engines: algorithm, budget, options (weights below, with the game).
    let mut engines = Vec::new();
    for (i, e) in raw.engine.iter().enumerate() {
        engines.push(engine_budget(
            e,
            &format!("engine[{}]", i + 1),
            &names[i],
            loc,
        )?);
    }

    // What needs the game's type: weights and openings.
    struct Resolve<'a, 'b> {
        raw: &'b RawSpec,
        loc: &'b Locator<'a>,
        engines: Vec<ResolvedEngine>,
        request: OpeningRequest,
        seed: u64,
        rounds: u32,
    }
    impl FeaturesVisitor for Resolve<'_, '_> {
        type Output = Result<(Vec<ResolvedEngine>, OpeningSource, Vec<String>), SpecError>;
        fn visit<G: Features>(mut self, start: G) -> Self::Output {
            for (i, e) in self.raw.engine.iter().enumerate() {
                let key = format!("engine[{}].weights", i + 1);
                let w = resolve_weights(&start, e.get_ref().weights.as_ref(), &key, self.loc)?;
                self.engines[i].weights_origin = w.origin.clone();
                self.engines[i].weights = start
                    .features()
                    .iter()
                    .map(|f| f.name.clone())
                    .zip(w.values)
                    .collect();
            }
            let (source, moves) =
                resolve_openings(&start, &self.request, self.seed, self.rounds, self.loc)?;
            Ok((self.engines, source, moves))
        }
    }
    let seed = *raw.seed.get_ref();
    let (engines, source, opening_moves) = crate::eval::dispatch(
        &kind,
        Resolve {
            raw: &raw,
            loc,
            engines,
            request: opening_request,
            seed,
            rounds,
        },
    )?;

    let resolved = ResolvedSpec {
        name,
        game: kind.to_string(),
        seed,
        format: format.to_string(),
        challengers,
        openings: source,
        opening_moves,
        rounds,
        engines,
        anchor,
        sprt,
    };
    let total = resolved.schedule().games();
    if total > MAX_GAMES {
        return Err(loc.on(
            &raw.openings,
            "openings",
            format!("the run would play {total} games; at most {MAX_GAMES}"),
        ));
    }
    Ok(TournamentSpec::from_resolved(resolved))
}

/// Validates an `[sprt]` table; `prefix` is its key path in errors.
pub(crate) fn resolve_sprt(
    s: &Spanned<RawSprt>,
    prefix: &str,
    loc: &Locator<'_>,
) -> Result<Sprt, SpecError> {
    let r = s.get_ref();
    let finite = |v: &Spanned<f64>, key: &str| {
        if v.get_ref().is_finite() {
            Ok(*v.get_ref())
        } else {
            Err(loc.on(v, key, "must be a finite number"))
        }
    };
    let elo0 = finite(&r.elo0, &format!("{prefix}.elo0"))?;
    let elo1 = finite(&r.elo1, &format!("{prefix}.elo1"))?;
    check_sprt_bounds(elo0, elo1).map_err(|m| loc.on(&r.elo1, &format!("{prefix}.elo1"), m))?;
    if elo0 >= elo1 {
        return Err(loc.on(
            &r.elo1,
            &format!("{prefix}.elo1"),
            format!("elo1 ({elo1}) must be greater than elo0 ({elo0})"),
        ));
    }
    let rate = |v: &Option<Spanned<f64>>, key: &str| match v {
        None => Ok(0.05),
        Some(v) if *v.get_ref() > 0.0 && *v.get_ref() < 0.5 => Ok(*v.get_ref()),
        Some(v) => Err(loc.on(
            v,
            key,
            format!(
                "{} is out of range; allowed: between 0 and 0.5 (e.g. 0.05)",
                v.get_ref()
            ),
        )),
    };
    let alpha = rate(&r.alpha, &format!("{prefix}.alpha"))?;
    let beta = rate(&r.beta, &format!("{prefix}.beta"))?;
    let model = match r.model.as_ref().map(|m| m.get_ref().as_str()) {
        None | Some("logistic") => EloModel::Logistic,
        Some("normalized" | "normalised") => EloModel::Normalized,
        Some(other) => {
            return Err(loc.on(
                r.model.as_ref().expect("given"),
                &format!("{prefix}.model"),
                format!("unknown model '{other}'; allowed: logistic, normalized"),
            ));
        }
    };
    Ok(Sprt {
        elo0,
        elo1,
        alpha,
        beta,
        model,
    })
}

/// SPRT bounds must be scores strictly inside (0, 1) with room to spare.
fn check_sprt_bounds(elo0: f64, elo1: f64) -> Result<(), String> {
    if elo0.abs() > 1000.0 || elo1.abs() > 1000.0 {
        return Err(format!(
            "SPRT bounds [{elo0}, {elo1}] are out of range; allowed: -1000..=1000 Elo"
        ));
    }
    if elo0 >= elo1 {
        return Err(format!("elo1 ({elo1}) must be greater than elo0 ({elo0})"));
    }
    Ok(())
}

/// The opening source as requested, before it is generated or read.
enum OpeningRequest {
    Random {
        plies: u32,
        count: u32,
        balance: Balance,
        span: usize,
    },
    File {
        path: String,
        count: Option<u64>,
        span: usize,
    },
}

/// Generates or reads the openings: `count` per round, every round its own.
fn resolve_openings<G: Features>(
    start: &G,
    request: &OpeningRequest,
    seed: u64,
    rounds: u32,
    loc: &Locator<'_>,
) -> Result<(OpeningSource, Vec<String>), SpecError> {
    match request {
        OpeningRequest::Random {
            plies,
            count,
            balance,
            span,
        } => {
            let wanted = count
                .checked_mul(rounds)
                .ok_or_else(|| loc.at(*span, "openings", "count × rounds is too large"))?;
            let list = openings::random_openings(*start, *plies, wanted, seed, balance)
                .map_err(|e| loc.at(*span, "openings", e))?;
            Ok((
                OpeningSource::Random {
                    plies: *plies,
                    count: *count,
                    balance: balance.clone(),
                    distinct: None,
                },
                openings::notation(start, &list),
            ))
        }
        OpeningRequest::File { path, count, span } => {
            let list = openings::read_openings_file(*start, &loc.path(path))
                .map_err(|e| loc.at(*span, "openings.file", e))?;
            let available = list.len() as u64;
            let used = count.unwrap_or(available / rounds as u64);
            if used == 0 || used * rounds as u64 > available {
                return Err(loc.at(
                    *span,
                    "openings.file",
                    format!(
                        "{path} holds {available} openings, fewer than the {} asked for ({} per round × {rounds} round(s); every round plays openings of its own)",
                        used.max(1) * rounds as u64,
                        used.max(1)
                    ),
                ));
            }
            let list = &list[..(used * rounds as u64) as usize];
            Ok((
                OpeningSource::File {
                    path: path.clone(),
                    count: used as u32,
                },
                openings::notation(start, list),
            ))
        }
    }
}

/// Validates an engine's algorithm, budget and options; `prefix` is its key path in errors
/// (`engine[2]`). The weights are resolved separately ([`resolve_weights`]).
pub(crate) fn engine_budget(
    e: &Spanned<RawEngine>,
    prefix: &str,
    name: &str,
    loc: &Locator<'_>,
) -> Result<ResolvedEngine, SpecError> {
    let raw = e.get_ref();
    let key = |k: &str| format!("{prefix}.{k}");
    let algorithm: Algorithm = raw.algorithm.get_ref().trim().parse().map_err(|err| {
        loc.on(
            &raw.algorithm,
            &key("algorithm"),
            format!("engine '{name}': {err}"),
        )
    })?;
    let defaults = SearchOptions::default();
    let mut resolved = ResolvedEngine {
        name: name.to_string(),
        algorithm: algorithm.name().to_string(),
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
        weights_origin: String::new(),
        weights: Vec::new(),
    };
    if let Some(d) = &raw.depth {
        let v = *d.get_ref();
        if algorithm == Algorithm::Mcts || algorithm == Algorithm::Random {
            return Err(loc.on(d, &key("depth"), format!("engine '{name}': {algorithm} takes no depth; mcts takes playouts or nodes, random nothing")));
        }
        if !(1..=MAX_DEPTH as i64).contains(&v) {
            return Err(loc.on(
                d,
                &key("depth"),
                format!("engine '{name}': depth {v} is out of range; allowed: 1..={MAX_DEPTH}"),
            ));
        }
        resolved.depth = Some(v as u32);
    }
    if let Some(n) = &raw.nodes {
        let v = *n.get_ref();
        if !(1..=MAX_NODES as i64).contains(&v) {
            return Err(loc.on(
                n,
                &key("nodes"),
                format!("engine '{name}': nodes is {v}; allowed: 1..={MAX_NODES} (ten billion positions: minutes a move)"),
            ));
        }
        resolved.nodes = Some(v as u64);
    }
    if let Some(p) = &raw.playouts {
        let v = *p.get_ref();
        if algorithm != Algorithm::Mcts {
            return Err(loc.on(
                p,
                &key("playouts"),
                format!("engine '{name}': playouts belongs to mcts, not {algorithm}"),
            ));
        }
        if !(1..=MAX_PLAYOUTS as i64).contains(&v) {
            return Err(loc.on(
                p,
                &key("playouts"),
                format!("engine '{name}': playouts is {v}; allowed: 1..={MAX_PLAYOUTS}"),
            ));
        }
        resolved.playouts = v as u64;
    }
    if let Some(t) = &raw.time {
        match parse_time(t.get_ref().trim()) {
            Some(Ok(d)) => resolved.time_ms = Some(d.as_secs_f64() * 1000.0),
            Some(Err(reason)) => {
                return Err(loc.on(t, &key("time"), format!("engine '{name}': {reason}")));
            }
            None => {
                return Err(loc.on(
                    t,
                    &key("time"),
                    format!(
                        "engine '{name}': time '{}' needs a unit: \"0.5s\" or \"200ms\"",
                        t.get_ref()
                    ),
                ));
            }
        }
    }
    let budgeted = resolved.depth.is_some()
        || resolved.nodes.is_some()
        || resolved.time_ms.is_some()
        || raw.playouts.is_some();
    if !budgeted && algorithm != Algorithm::Random {
        return Err(loc.on(
            e,
            &key("depth"),
            format!("engine '{name}': {algorithm} needs a budget: depth = N, nodes = N, time = \"200ms\"{}", if algorithm == Algorithm::Mcts { " or playouts = N" } else { "" }),
        ));
    }
    if let Some(o) = &raw.ordering {
        resolved.ordering = match o.get_ref().as_str() {
            "natural" => MoveOrder::Natural,
            "evaluation" => MoveOrder::Evaluation,
            "perfect" => MoveOrder::Perfect,
            other => {
                return Err(loc.on(o, &key("ordering"), format!("engine '{name}': unknown ordering '{other}'; allowed: natural, evaluation, perfect")));
            }
        };
    }
    if let Some(f) = &raw.fail_soft {
        resolved.fail_soft = *f.get_ref();
    }
    if let Some(t) = &raw.tt_mib {
        let v = *t.get_ref();
        if !(1..=1024).contains(&v) {
            return Err(loc.on(
                t,
                &key("tt_mib"),
                format!("engine '{name}': tt_mib is {v}; allowed: 1..=1024 (every game builds its engines afresh, for reproducibility)"),
            ));
        }
        resolved.tt_mib = v as usize;
    }
    if let Some(t) = &raw.tolerance {
        let v = *t.get_ref();
        if !(0..=1_000_000).contains(&v) {
            return Err(loc.on(
                t,
                &key("tolerance"),
                format!("engine '{name}': tolerance is {v}; allowed: 0..=1000000"),
            ));
        }
        resolved.tolerance = v as i32;
    }
    if let Some(x) = &raw.exploration {
        let v = *x.get_ref();
        if !(0.0..=100.0).contains(&v) {
            return Err(loc.on(
                x,
                &key("exploration"),
                format!("engine '{name}': exploration is {v}; allowed: 0..=100"),
            ));
        }
        resolved.exploration = v;
    }
    if let Some(t) = &raw.tree_mib {
        let v = *t.get_ref();
        if algorithm != Algorithm::Mcts {
            return Err(loc.on(
                t,
                &key("tree_mib"),
                format!("engine '{name}': tree_mib belongs to mcts, not {algorithm}"),
            ));
        }
        if !(1..=MAX_TREE_MIB as i64).contains(&v) {
            return Err(loc.on(
                t,
                &key("tree_mib"),
                format!("engine '{name}': tree_mib is {v}; allowed: 1..={MAX_TREE_MIB} (MiB; a full tree stops growing, the search goes on)"),
            ));
        }
        resolved.tree_mib = v as usize;
    }
    if let Some(t) = &raw.tie_break {
        resolved.tie_break = *t.get_ref();
    }
    Ok(resolved)
}

/// Loads an engine's weights (a file name or an inline table; the game's defaults when absent);
/// `key` is the key path in errors (`engine[2].weights`).
pub(crate) fn resolve_weights<G: Features>(
    start: &G,
    value: Option<&Spanned<toml::Value>>,
    key: &str,
    loc: &Locator<'_>,
) -> Result<Weights, SpecError> {
    let Some(value) = value else {
        return Ok(Weights::default_for(start));
    };
    match value.get_ref() {
        toml::Value::String(path) => {
            // Recorded as written (run.json and the hash do not depend on the current folder).
            let mut weights = Weights::load(start, &loc.path(path))
                .map_err(|e| loc.on(value, key, e.to_string()))?;
            weights.origin = path.clone();
            Ok(weights)
        }
        toml::Value::Table(table) => {
            let features = start.features();
            let mut values = vec![0.0; features.len()];
            let named: BTreeMap<&String, &toml::Value> = table.iter().collect();
            for (feature, v) in named {
                let Some(i) = features.iter().position(|f| &f.name == feature) else {
                    return Err(loc.on(
                        value,
                        &format!("{key}.{feature}"),
                        format!(
                            "'{feature}' is not a feature of {}; allowed: {}",
                            start.name(),
                            features
                                .iter()
                                .map(|f| f.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                };
                let x = match v {
                    toml::Value::Integer(n) => *n as f64,
                    toml::Value::Float(x) => *x,
                    other => {
                        return Err(loc.on(value, &format!("{key}.{feature}"), format!("expected a number, found a {}", other.type_str())));
                    }
                };
                values[i] = crate::eval::weights::check_weight(x)
                    .map_err(|e| loc.on(value, &format!("{key}.{feature}"), e))?;
            }
            Ok(Weights {
                game: start.name(),
                values,
                origin: "inline".into(),
            })
        }
        other => Err(loc.on(
            value,
            key,
            format!(
                "expected a weights file name (\"weights/{}.toml\") or an inline table {{ feature = number, ... }}, found a {}",
                start.name(),
                other.type_str()
            ),
        )),
    }
}

/// An error in a command-line argument of `joute match`, named by its flag.
fn command_line_error(key: &str, message: String) -> SpecError {
    SpecError {
        file: "(command line)".into(),
        line: 0,
        column: 0,
        key: key.into(),
        message,
    }
}

/// How `joute match` gets its openings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchOpenings {
    /// Plies of every opening; `None`: the game's default, grown until the board has enough
    /// distinct openings.
    pub plies: Option<u32>,
    /// When the board has fewer distinct openings than pairs: play them in turn (engines with
    /// random choices then still play different games) instead of refusing.
    pub repeat: bool,
}

/// The plies `joute match` starts from when none are given: the fewest that usually give
/// `count` distinct balanced openings.
fn default_match_plies(kind: &GameKind, count: u64) -> u32 {
    match kind {
        GameKind::Othello if count <= 2000 => 6,
        GameKind::Othello => 8,
        GameKind::Connect4 if count <= 400 => 4,
        GameKind::Connect4 => 6,
        GameKind::Morpion { .. } | GameKind::RandomTree { .. } => 2,
    }
}

/// How many plies `joute match` adds at a time, and at most, when the board has too few
/// distinct openings of the default length.
const PLIES_STEP: u32 = 2;
const PLIES_GROWTH: u32 = 8;

/// A two-engine spec from the command line (`joute match`), with a note for the user when the
/// openings were lengthened or repeat.
#[allow(clippy::too_many_arguments)]
pub fn match_spec(
    kind: GameKind,
    engines: [EngineSpec; 2],
    games: u64,
    openings: MatchOpenings,
    seed: u64,
    sprt: Option<Sprt>,
) -> Result<(TournamentSpec, Option<String>), SpecError> {
    let err = command_line_error;
    if games > MAX_GAMES || games / 2 > MAX_OPENINGS {
        return Err(err(
            "--games",
            format!(
                "--games is {games}; at most {}",
                MAX_GAMES.min(2 * MAX_OPENINGS)
            ),
        ));
    }
    if let Some(plies) = openings.plies
        && plies > 200
    {
        return Err(err(
            "--openings",
            format!("--openings is {plies}; allowed: 0..=200 plies"),
        ));
    }
    if let Some(test) = &sprt {
        check_sprt_bounds(test.elo0, test.elo1).map_err(|m| err("--sprt", m))?;
    }
    if games == 0 || !games.is_multiple_of(2) {
        return Err(err(
            "--games",
            format!(
                "--games is {games}; it must be a positive even number (openings are played twice, colours swapped)"
            ),
        ));
    }
    struct Build {
        engines: [EngineSpec; 2],
        games: u64,
        openings: MatchOpenings,
        seed: u64,
        sprt: Option<Sprt>,
    }
    impl FeaturesVisitor for Build {
        type Output = Result<(ResolvedSpec, Option<String>), SpecError>;
        fn visit<G: Features>(self, start: G) -> Self::Output {
            let err = command_line_error;
            let mut names: Vec<String> = self.engines.iter().map(|e| e.name.clone()).collect();
            if names[0] == names[1] {
                names[0].push_str("#1");
                names[1].push_str("#2");
            }
            let mut resolved = Vec::new();
            for (e, name) in self.engines.iter().zip(&names) {
                let w = e
                    .load_weights(&start)
                    .map_err(|x| err("ENGINE", x.to_string()))?;
                let c = &e.config;
                resolved.push(ResolvedEngine {
                    name: name.clone(),
                    algorithm: c.algorithm.name().to_string(),
                    depth: c.limits.depth,
                    nodes: c.limits.nodes,
                    time_ms: c.limits.time.map(|t| t.as_secs_f64() * 1000.0),
                    playouts: c.options.playouts,
                    ordering: c.options.ordering,
                    fail_soft: c.options.fail_soft,
                    tt_mib: c.options.tt_mib,
                    tolerance: c.options.tolerance,
                    exploration: c.options.exploration,
                    tree_mib: c.options.tree_mib,
                    tie_break: c.options.tie_break,
                    weights_origin: w.origin.clone(),
                    weights: start
                        .features()
                        .iter()
                        .map(|f| f.name.clone())
                        .zip(w.values)
                        .collect(),
                });
            }
            let kind = GameKind::parse(&start.name()).expect("own name");
            let balance = Balance::default_for(kind);
            let count = (self.games / 2) as u32;
            let (plies, list, distinct, note) =
                match_openings(start, kind, count, self.openings, self.seed, &balance)?;
            Ok((
                ResolvedSpec {
                    name: format!("match-{}-vs-{}", names[0], names[1]),
                    game: start.name(),
                    seed: self.seed,
                    format: "round-robin".into(),
                    challengers: Vec::new(),
                    openings: OpeningSource::Random {
                        plies,
                        count,
                        balance,
                        distinct,
                    },
                    opening_moves: openings::notation(&start, &list),
                    rounds: 1,
                    engines: resolved,
                    anchor: None,
                    sprt: self.sprt,
                },
                note,
            ))
        }
    }
    let (resolved, note) = crate::eval::dispatch(
        &kind,
        Build {
            engines,
            games,
            openings,
            seed,
            sprt,
        },
    )?;
    Ok((TournamentSpec::from_resolved(resolved), note))
}

/// The openings of a match: `count` distinct ones of the given plies, or of the default grown
/// by [`PLIES_STEP`] up to [`PLIES_GROWTH`] more when the board has too few; with `repeat`,
/// the distinct ones found, in turn. Returns the plies, the list, the number of distinct
/// openings when they repeat, and a note saying what was changed.
#[allow(clippy::type_complexity)]
fn match_openings<G: Features>(
    start: G,
    kind: GameKind,
    count: u32,
    request: MatchOpenings,
    seed: u64,
    balance: &Balance,
) -> Result<(u32, Vec<Vec<G::Move>>, Option<u32>, Option<String>), SpecError> {
    let err = command_line_error;
    let first = request
        .plies
        .unwrap_or_else(|| default_match_plies(&kind, count as u64));
    let last = if request.plies.is_some() {
        first
    } else {
        first + PLIES_GROWTH
    };
    let mut best: (u32, Vec<Vec<G::Move>>) = (first, Vec::new());
    let mut plies = first;
    loop {
        let mut stream = openings::OpeningStream::new(start, plies, seed, balance.clone());
        let mut list = Vec::with_capacity(count as usize);
        while list.len() < count as usize {
            match stream.next_opening() {
                Ok((moves, _)) => list.push(moves),
                Err(_) => break,
            }
        }
        if list.len() == count as usize {
            let note = (plies != first).then(|| {
                format!(
                    "openings: {plies} plies ({} give only {} distinct openings, {count} needed)",
                    first,
                    best.1.len()
                )
            });
            return Ok((plies, list, None, note));
        }
        // Keep the longest list found (the first one on a tie: the shortest openings).
        if plies == first || list.len() > best.1.len() {
            best = (plies, list);
        }
        if plies + PLIES_STEP > last {
            break;
        }
        plies += PLIES_STEP;
    }
    let (plies, distinct) = best;
    if distinct.is_empty() {
        return Err(err(
            "--openings",
            format!(
                "no playable opening of {plies} plies on {}: choose fewer plies with --openings",
                start.name()
            ),
        ));
    }
    if !request.repeat {
        let tried = if last > first {
            format!("{first} to {last} plies")
        } else {
            format!("{first} plies")
        };
        return Err(err(
            "--openings",
            format!(
                "{} has only {} distinct playable openings ({tried}), fewer than the {count} pairs of --games {}: ask for --games {} or fewer, or add --repeat-openings to play them in turn (engines with random choices still play different games)",
                start.name(),
                distinct.len(),
                2 * count as u64,
                2 * distinct.len()
            ),
        ));
    }
    let found = distinct.len();
    let list: Vec<Vec<G::Move>> = distinct
        .iter()
        .cycle()
        .take(count as usize)
        .cloned()
        .collect();
    let note = format!(
        "openings: {} has only {found} distinct openings of {plies} plies; each is played {} times (--repeat-openings)",
        start.name(),
        (count as usize).div_ceil(found)
    );
    Ok((plies, list, Some(found as u32), Some(note)))
}

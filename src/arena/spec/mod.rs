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
//! challengers = ["ab-6"]      # gauntlet: these play every engine but one another
//! openings = { plies = 6, count = 50 }   # random openings; or { file = "path", count = N }
//!                             # random openings also take balance_depth (default 2) and
//!                             # max_imbalance (in weight units; see openings.rs); a file
//!                             # also takes order = "sequential"|"random" and start = N
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
//! # tolerance (bisection), exploration (mcts), tie_break, exact (solve from N empties on),
//! # near (pvs, mtdf: only the cells within N of a mark)
//! ```
//!
//! Paths (weights, opening files) are relative to the spec file's folder (the current folder
//! for a spec that is no file, such as the embedded quickstart), and recorded as written.
//!
//! The files: `raw` (stage 1), `validate` (stage 2: one small function per section — name and
//! game, engines' names, format and challengers, games and rounds, anchor, ratings, SPRT,
//! adjudication, output — with `engines` (a built-in engine's algorithm, budget, search options
//! and weights), `outside` (an outside program's table, part by part, and the clock),
//! `opening_source` (the openings section, its random openings' plies and balance shared with
//! tuning specs, and the openings generated or read) and `sprt` for the parts tuning specs
//! share), `keys` (the checks every section repeats, written once: an integer or a float in its
//! range, a choice among names, a duration, a folder beside the spec, a key that does not
//! belong, an engine's name), `resolved` (the canonical form), `command` (`joute match`'s spec
//! from the command line); this file holds the error type, the limits and [`TournamentSpec`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::engine::{EngineSpec, MAX_NEAR, MAX_VCF_NODES, MAX_VCT_NODES, parse_time};
use super::openings::{self, Balance};
use super::outside::OutsideSpec;
use super::schedule::{Format, Schedule, Stage};
use crate::arena::adjudication::{AdjudicationRules, DrawRule, ResignRule};
use crate::eval::weights::line_col;
use crate::eval::{Features, FeaturesVisitor, Weights};
use crate::games::GameKind;
use crate::search::{
    Algorithm, Limits, MAX_DEPTH, MAX_NODES, MAX_PLAYOUTS, MAX_TREE_MIB, MoveOrder, SearchConfig,
    SearchOptions,
};
use crate::stats::ratings::FirstMove;
use crate::stats::sprt::{EloModel, Sprt};

mod command;
mod engines;
mod guard;
mod hosted;
mod keys;
mod opening_source;
mod outside;
mod raw;
mod resolved;
mod sprt;
mod validate;

pub use command::*;
pub(crate) use engines::*;
pub use guard::{check_cpu, check_processes, check_restart, check_size};
pub(crate) use guard::{outside_table_used, resolve_guard};
pub use hosted::HOSTED;
pub(crate) use keys::*;
use opening_source::*;
pub(crate) use opening_source::{opening_balance, opening_plies};
pub use outside::*;
pub use raw::*;
pub use resolved::*;
pub(crate) use sprt::*;
pub(crate) use validate::*;

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

    /// A value as the spec writes it (`1e308`, not its 309 digits), for messages that echo it.
    pub(crate) fn written<T>(&self, value: &Spanned<T>) -> &str {
        self.text.get(value.span()).map_or("?", str::trim)
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

/// The hash of a value's JSON form: 16 hex digits (FNV-1a, 64 bits).
pub fn hash_json(value: &impl Serialize) -> String {
    let json = serde_json::to_string(value).expect("a resolved spec serialises");
    format!("{:016x}", crate::outputs::fnv1a(json.as_bytes()))
}

/// One engine of a run, ready to build: a built-in engine with its weights, or an outside
/// program.
#[derive(Clone, Debug)]
pub enum Entrant {
    /// A built-in engine.
    BuiltIn(EngineSpec, Weights),
    /// An outside program.
    Outside(OutsideSpec),
    /// A hosted engine: the key of the function the program running the spec supplies
    /// ([`TournamentSpec::hosts`]).
    Hosted(String),
}

/// A validated spec, ready to run.
#[derive(Clone, Debug)]
pub struct TournamentSpec {
    /// The canonical form.
    pub resolved: ResolvedSpec,
    /// Its hash.
    pub hash: String,
    /// The engines, ready to build, in the spec's order.
    pub engines: Vec<Entrant>,
    /// The hosted engines' functions, by key, which the program running the spec supplies
    /// ([`TournamentSpec::with_hosts`]); none for a spec the command line reads.
    pub hosts: crate::arena::hosted::Hosts,
}

/// The text of the spec file at `path` (a tournament's or a tuning run's), read as an input
/// ([`crate::inputs`]: never endless), with its name for errors.
pub fn read_spec_file(path: &Path) -> Result<(String, String), SpecError> {
    let file = path.display().to_string();
    let text =
        crate::inputs::read_to_string(path, crate::inputs::Input::Spec).map_err(|e| SpecError {
            file: file.clone(),
            line: 0,
            column: 0,
            key: String::new(),
            message: format!("cannot read the spec: {e}"),
        })?;
    Ok((text, file))
}

impl TournamentSpec {
    /// Reads and validates the spec file at `path`.
    pub fn load(path: &Path) -> Result<TournamentSpec, SpecError> {
        let (text, file) = read_spec_file(path)?;
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

    /// The spec with the hosted engines' functions: each hosted engine's key must be among
    /// `hosts`. Refused, naming the engine, when one is missing.
    pub fn with_hosts(
        mut self,
        hosts: crate::arena::hosted::Hosts,
    ) -> Result<TournamentSpec, String> {
        self.hosts = hosts;
        self.check_hosts()?;
        Ok(self)
    }

    /// Every hosted engine has its function: else the error naming the first without.
    pub fn check_hosts(&self) -> Result<(), String> {
        for (entrant, e) in self.engines.iter().zip(&self.resolved.engines) {
            if let Entrant::Hosted(key) = entrant
                && self.hosts.get(key).is_none()
            {
                return Err(format!(
                    "engine '{}' is hosted ('{key}'): a function the program running the spec supplies (in Python, joute.run(spec, bots={{'{key}': function}})); {}",
                    e.name,
                    if self.hosts.is_empty() {
                        "this program supplies none (the command line cannot play it)".to_string()
                    } else {
                        "none was given under that key".to_string()
                    }
                ));
            }
        }
        Ok(())
    }

    /// Whether a hosted engine plays in the run.
    pub fn has_hosted(&self) -> bool {
        self.engines.iter().any(|e| matches!(e, Entrant::Hosted(_)))
    }

    /// Whether an outside program plays in the run.
    pub fn has_outside(&self) -> bool {
        self.engines
            .iter()
            .any(|e| matches!(e, Entrant::Outside(_)))
    }

    /// Builds the spec from its canonical form, reloading nothing from disk: the weights are
    /// in the form (outside programs are found as `resolved` names them, from the current
    /// folder, unless the form came from a spec file that found them).
    pub fn from_resolved(resolved: ResolvedSpec) -> TournamentSpec {
        let engines = resolved
            .engines
            .iter()
            .map(|e| match (&e.outside, &e.hosted) {
                (_, Some(key)) => Entrant::Hosted(key.clone()),
                (Some(o), None) => Entrant::Outside(o.clone()),
                (None, None) => Entrant::BuiltIn(
                    EngineSpec {
                        name: e.name.clone(),
                        config: e.config(),
                        weights: None,
                        patterns: e.patterns.as_ref().and_then(|p| p.loaded.clone()),
                        exact: Some(e.exact),
                    },
                    Weights {
                        game: resolved.game.clone(),
                        values: e.weights.iter().map(|(_, v)| *v).collect(),
                        endgame: e
                            .endgame
                            .as_ref()
                            .map(|w| w.iter().map(|(_, v)| *v).collect()),
                        origin: e.weights_origin.clone(),
                    },
                ),
            })
            .collect();
        TournamentSpec {
            hash: resolved.hash(),
            resolved,
            engines,
            hosts: Default::default(),
        }
    }
}

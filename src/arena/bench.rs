//! `joute bench`: searches measured on positions, engine by engine.
//!
//! [`fixed`] is the fixed benchmark: a set of positions per game searched by a few engines with
//! the default weights, whose total node count is the search's fingerprint (it changes only
//! when a search or an evaluation does). Every position is searched by a fresh engine seeded
//! with [`ENGINE_SEED`]: no table carries over from one position to the next, so each count is
//! the count of a plain search of that position ([`Engine::new`] then [`Engine::choose`]).

use super::engine::{Engine, EngineError, EngineSpec};
use crate::eval::{Features, Weights};
use crate::games::{Connect4, Morpion, Othello};

/// The seed of every engine built for one position (only `mcts` and `random` use it).
pub const ENGINE_SEED: u64 = 1;

/// Why a benchmark cannot run: every one is the input's (an engine word, its weights, the
/// positions or the options).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// An engine word refused, or its weights file.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The positions or the options: what is wrong and what is allowed (a file's errors start
    /// `FILE:LINE:COLUMN:`).
    #[error("{0}")]
    Input(String),
}

/// One engine's search of one position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Searched {
    /// Positions visited ([`crate::search::SearchStats::nodes`]).
    pub nodes: u64,
    /// The deepest completed iteration (`mcts`: its principal variation's length).
    pub depth: u32,
    /// The selective depth where the algorithm has one (`mcts`: its deepest tree node), else 0.
    pub seldepth: u32,
    /// The search's wall-clock time (building the engine is not counted).
    pub seconds: f64,
    /// The search was cut by its time budget.
    pub timed_out: bool,
}

/// `nodes / seconds`, a zero time counted as a nanosecond.
pub fn nodes_per_second(nodes: u64, seconds: f64) -> f64 {
    nodes as f64 / seconds.max(1e-9)
}

/// The engines with their evaluations loaded once (a pattern file is megabytes; every
/// position's fresh engine shares it).
fn loaded<G: Features>(
    start: &G,
    specs: Vec<EngineSpec>,
) -> Result<Vec<(EngineSpec, Weights)>, BenchError> {
    specs
        .into_iter()
        .map(|mut spec| {
            let (weights, _) = spec.load_evaluation(start).map_err(EngineError::from)?;
            Ok((spec, weights))
        })
        .collect()
}

/// Every position searched by a fresh engine of `spec` (see the module documentation).
fn search_each<G: Features>(
    start: &G,
    positions: &[G],
    spec: &EngineSpec,
    weights: &Weights,
) -> Vec<Searched> {
    positions
        .iter()
        .map(|pos| {
            let mut engine = Engine::with_weights(spec, start, weights.clone(), ENGINE_SEED);
            let stats = engine.choose(pos).stats;
            Searched {
                nodes: stats.nodes,
                depth: stats.depth,
                seldepth: stats.seldepth,
                seconds: stats.seconds,
                timed_out: stats.timed_out,
            }
        })
        .collect()
}

/// One line of the fixed benchmark: an engine over its game's positions.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedRow {
    /// The game's name.
    pub game: String,
    /// The engine word.
    pub engine: String,
    /// Positions searched.
    pub positions: usize,
    /// Nodes, all positions together.
    pub nodes: u64,
    /// Seconds of search.
    pub seconds: f64,
}

/// The fixed benchmark (see the module documentation): per game, its positions (the moves from
/// the start) and the engines that search them.
pub fn fixed() -> Result<Vec<FixedRow>, BenchError> {
    let mut rows = fixed_game(
        Othello::start(),
        &[
            "",
            "f5d6c3d3c4",
            "f5f6e6f4e3",
            "c4e3f6e6f5c5",
            "f5d6c5f4e3f6",
        ],
        &["alphabeta:8", "bisection:6", "mtdf:9", "pvs:9"],
    )?;
    rows.extend(fixed_game(
        Connect4::start(),
        &["", "4453", "444444", "3435", "12345671"],
        &["alphabeta:10", "mtdf:14", "pvs:14"],
    )?);
    rows.extend(fixed_game(
        Morpion::start(3, 3, 3),
        &["", "b2"],
        &["minimax:9", "alphabeta:9"],
    )?);
    rows.extend(fixed_game(
        Morpion::start(7, 7, 4),
        &["", "d4 c3"],
        &["pvs:5"],
    )?);
    Ok(rows)
}

/// The fixed benchmark's rows of one game.
fn fixed_game<G: Features>(
    start: G,
    openings: &[&str],
    engines: &[&str],
) -> Result<Vec<FixedRow>, BenchError> {
    let positions: Vec<G> = openings
        .iter()
        .map(|o| start.play_sequence(o))
        .collect::<Result<_, _>>()
        .map_err(|e| BenchError::Input(e.to_string()))?;
    let specs = engines
        .iter()
        .map(|e| EngineSpec::parse(e))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(loaded(&start, specs)?
        .iter()
        .map(|(spec, weights)| {
            let searches = search_each(&start, &positions, spec, weights);
            FixedRow {
                game: start.name(),
                engine: spec.name.clone(),
                positions: positions.len(),
                nodes: searches.iter().map(|s| s.nodes).sum(),
                seconds: searches.iter().map(|s| s.seconds).sum(),
            }
        })
        .collect())
}

//! `joute bench`: searches measured on positions, engine by engine.
//!
//! Two uses. [`fixed`] is the fixed benchmark: a set of positions per game searched by a few
//! engines with the default weights, whose total node count is the search's fingerprint (it
//! changes only when a search or an evaluation does). [`compare`] searches the same positions
//! with every engine a user names — positions read from a file or reached by seeded random
//! plies — and keeps each search's nodes, depth, selective depth and time.
//!
//! Every position is searched by a fresh engine seeded with [`ENGINE_SEED`]: no table carries
//! over from one position to the next, so each count is the count of a plain search of that
//! position ([`Engine::new`] then [`Engine::choose`]) and the same command gives the same counts
//! on every machine — except for engines on a time budget, whose counts depend on the machine
//! (they are marked [`EngineRun::time_limited`]).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::engine::{Engine, EngineError, EngineSpec, parse_time};
use super::openings::{Balance, OpeningStream, read_openings_file};
use crate::eval::{Features, FeaturesVisitor, Weights, dispatch};
use crate::games::{Connect4, Game, GameKind, Morpion, Othello};
use crate::search::Algorithm;
use crate::search::solver::connect4::parse_suite_line;
use crate::search::solver::othello::parse_ffo_line;

/// The seed of every engine built for one position (only `mcts` and `random` use it).
pub const ENGINE_SEED: u64 = 1;

/// The seed of `--random` positions when none is given.
pub const DEFAULT_SEED: u64 = 1;

/// The most random positions one comparison may ask for.
pub const MAX_RANDOM: u32 = 1_000_000;

/// The most random plies: more than any game joute plays lasts.
pub const MAX_PLIES: u32 = 1000;

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

/// Where the positions of a comparison come from.
#[derive(Clone, Debug, PartialEq)]
pub enum PositionSource {
    /// A file, one position per line: an openings file (each line's moves from the start, as
    /// [`read_openings_file`] reads them) or a test suite as `joute solve --file` takes it
    /// (Othello's FFO lines, Connect 4's `MOVES SCORE`; the values are not used).
    File(PathBuf),
    /// `count` distinct positions reached by `plies` uniformly random moves drawn from `seed`
    /// (an [`OpeningStream`] without its balance check): attempts in which the game ends, or
    /// that repeat an earlier position, are skipped.
    Random {
        /// How many positions.
        count: u32,
        /// Random plies from the start to each position.
        plies: u32,
        /// The seed of the plies.
        seed: u64,
    },
}

/// A comparison: the engines, the positions, and the depth given to engines without a budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Engine words, `ALGORITHM[:BUDGET][:KEY=VALUE]...[:WEIGHTS]` ([`EngineSpec::parse`]).
    pub engines: Vec<String>,
    /// The positions every engine searches.
    pub positions: PositionSource,
    /// The depth of every engine written without a budget (see [`engine_word`]).
    pub depth: Option<u32>,
}

/// What a comparison tells as it goes (for a progress display); `()` tells nothing.
pub trait Progress {
    /// The engines and positions are read: `searches` searches follow.
    fn starting(&mut self, _searches: u64) {}
    /// One more search is done.
    fn searched(&mut self) {}
}

impl Progress for () {}

/// One engine's search of one position.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
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

/// One engine over every position, in the positions' order.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineRun {
    /// The engine word as searched (after [`engine_word`]: `pvs` with a depth of 6 is `pvs:6`).
    pub engine: String,
    /// Its budget is a time: its counts depend on the machine.
    pub time_limited: bool,
    /// One search per position.
    pub searches: Vec<Searched>,
}

/// An engine's figures over its positions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Totals {
    /// Positions searched.
    pub positions: usize,
    /// Nodes, all positions together.
    pub nodes: u64,
    /// Mean nodes per position.
    pub mean_nodes: f64,
    /// Median nodes per position (the mean of the middle two for an even count).
    pub median_nodes: f64,
    /// Mean depth completed.
    pub mean_depth: f64,
    /// Smallest depth completed.
    pub min_depth: u32,
    /// Largest depth completed.
    pub max_depth: u32,
    /// Mean selective depth (0 for the algorithms without one).
    pub mean_seldepth: f64,
    /// Largest selective depth.
    pub max_seldepth: u32,
    /// Seconds of search, all positions together.
    pub seconds: f64,
    /// Nodes per second of search.
    pub nps: f64,
    /// Searches cut by their time budget.
    pub timed_out: usize,
}

impl EngineRun {
    /// The engine's figures over its positions.
    pub fn totals(&self) -> Totals {
        let n = self.searches.len();
        let per = |sum: f64| if n == 0 { 0.0 } else { sum / n as f64 };
        let nodes: u64 = self.searches.iter().map(|s| s.nodes).sum();
        let seconds: f64 = self.searches.iter().map(|s| s.seconds).sum();
        let mut sorted: Vec<u64> = self.searches.iter().map(|s| s.nodes).collect();
        sorted.sort_unstable();
        let median_nodes = match n {
            0 => 0.0,
            _ if n % 2 == 1 => sorted[n / 2] as f64,
            _ => (sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0,
        };
        let depths = || self.searches.iter().map(|s| s.depth);
        Totals {
            positions: n,
            nodes,
            mean_nodes: per(nodes as f64),
            median_nodes,
            mean_depth: per(depths().map(f64::from).sum()),
            min_depth: depths().min().unwrap_or(0),
            max_depth: depths().max().unwrap_or(0),
            mean_seldepth: per(self.searches.iter().map(|s| f64::from(s.seldepth)).sum()),
            max_seldepth: self.searches.iter().map(|s| s.seldepth).max().unwrap_or(0),
            seconds,
            nps: nodes_per_second(nodes, seconds),
            timed_out: self.searches.iter().filter(|s| s.timed_out).count(),
        }
    }
}

/// `nodes / seconds`, a zero time counted as a nanosecond.
pub fn nodes_per_second(nodes: u64, seconds: f64) -> f64 {
    nodes as f64 / seconds.max(1e-9)
}

/// The form of a positions file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileForm {
    /// An openings file: each line's moves from the start.
    Openings,
    /// A test suite of `joute solve --file`.
    Suite,
}

/// A comparison's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The game's name.
    pub game: String,
    /// The form of the positions file (`None` for random positions).
    pub form: Option<FileForm>,
    /// The positions as text: the moves from the start, separated by spaces (what an openings
    /// file and `joute play --opening` read), or for a suite's positions the position in the
    /// game's notation (what `joute solve GAME POSITION` reads).
    pub positions: Vec<String>,
    /// Each engine's searches, in the order the engines were given.
    pub engines: Vec<EngineRun>,
}

/// `word` as searched under `--depth depth`: a word without a budget gets the depth after its
/// algorithm (`pvs` → `pvs:6`, `pvs:exact=20` → `pvs:6:exact=20`); a word with a node or time
/// budget, `mcts` with its playouts and `random` keep theirs. Refused: a word with a depth of
/// its own (two depths for one engine), and `mcts` without playouts (its budget is playouts,
/// not a depth). Without `depth` the word is unchanged.
pub fn engine_word(word: &str, depth: Option<u32>) -> Result<String, BenchError> {
    let Some(depth) = depth else {
        return Ok(word.to_string());
    };
    let (name, rest) = word
        .split_once(':')
        .map_or((word, None), |(n, r)| (n, Some(r)));
    // An unknown algorithm is left to the engine's own parser, which names the known ones.
    let Ok(algorithm) = name.parse::<Algorithm>() else {
        return Ok(word.to_string());
    };
    let budget = rest.map(|r| r.split(':').next().unwrap_or(""));
    let is_budget = |b: &str| {
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
        digits(b) || b.strip_prefix('n').is_some_and(digits) || parse_time(b).is_some()
    };
    match (algorithm, budget) {
        (Algorithm::Random, _) => Ok(word.to_string()),
        (Algorithm::Mcts, Some(b)) if is_budget(b) => Ok(word.to_string()),
        (Algorithm::Mcts, _) => Err(BenchError::Input(format!(
            "engine '{word}': mcts's budget is playouts, not a depth; give it its own, e.g. mcts:2000"
        ))),
        (_, Some(b)) if b.bytes().all(|c| c.is_ascii_digit()) && !b.is_empty() => {
            Err(BenchError::Input(format!(
                "engine '{word}' has a depth of its own and --depth {depth} gives another; write it {name}{} or leave out --depth",
                rest.and_then(|r| r.split_once(':'))
                    .map_or(String::new(), |(_, after)| format!(":{after}"))
            )))
        }
        (_, Some(b)) if is_budget(b) => Ok(word.to_string()),
        (_, None) => Ok(format!("{name}:{depth}")),
        (_, Some(_)) => Ok(format!("{name}:{depth}:{}", rest.unwrap_or(""))),
    }
}

/// Searches the positions of `request` with each of its engines, in the game `kind` (see the
/// module documentation). Every engine word, weights file and position is read before the first
/// search, so a mistake costs no time.
pub fn compare(
    kind: GameKind,
    request: &Request,
    progress: &mut dyn Progress,
) -> Result<Comparison, BenchError> {
    if request.engines.is_empty() {
        return Err(BenchError::Input(
            "no engine to compare; name one or more after the game, e.g. alphabeta:5 pvs:5".into(),
        ));
    }
    let words = request
        .engines
        .iter()
        .map(|w| engine_word(w, request.depth))
        .collect::<Result<Vec<_>, _>>()?;
    let specs = words
        .iter()
        .map(|w| EngineSpec::parse(w))
        .collect::<Result<Vec<_>, _>>()?;
    if let PositionSource::Random { count, plies, .. } = request.positions {
        if !(1..=MAX_RANDOM).contains(&count) {
            return Err(BenchError::Input(format!(
                "--random {count}: the number of positions must be in 1..={MAX_RANDOM}"
            )));
        }
        if plies > MAX_PLIES {
            return Err(BenchError::Input(format!(
                "--plies {plies}: at most {MAX_PLIES} random plies"
            )));
        }
    }
    let suite = match &request.positions {
        PositionSource::File(path) => suite_positions(kind, path)?,
        PositionSource::Random { .. } => None,
    };
    dispatch(
        &kind,
        CompareVisitor {
            request,
            specs,
            suite,
            progress,
        },
    )
}

/// The positions of a suite file, as `(line, position text)`, when the file is a test suite of
/// the game (its first position line reads as one; then every line must); `None` when it is
/// not, to be read as an openings file. Only Othello and Connect 4 have suites.
fn suite_positions(
    kind: GameKind,
    path: &Path,
) -> Result<Option<Vec<(usize, String)>>, BenchError> {
    let file = path.display();
    // Read here whatever the game, so that a missing file is reported the same way for all.
    let text = crate::inputs::read_to_string(path, crate::inputs::Input::Positions)
        .map_err(|e| BenchError::Input(format!("cannot read the positions file {file}: {e}")))?;
    if !matches!(kind, GameKind::Othello | GameKind::Connect4) {
        return Ok(None);
    }
    // As `check_suite` reads a suite: lines trimmed, blank lines and `#` comments skipped.
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let read = |line: &str| match kind {
        GameKind::Othello => parse_ffo_line(line).map(|e| e.position.to_board_string()),
        _ => parse_suite_line(line).map(|_| line.split_whitespace().next().unwrap_or("").into()),
    };
    if lines.first().is_none_or(|(_, l)| read(l).is_err()) {
        return Ok(None);
    }
    lines
        .iter()
        .map(|&(n, l)| {
            read(l)
                .map(|position| (n, position))
                .map_err(|e| BenchError::Input(format!("{file}:{n}: {e}")))
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// [`compare`] once the game's type is known.
struct CompareVisitor<'a> {
    request: &'a Request,
    specs: Vec<EngineSpec>,
    suite: Option<Vec<(usize, String)>>,
    progress: &'a mut dyn Progress,
}

impl FeaturesVisitor for CompareVisitor<'_> {
    type Output = Result<Comparison, BenchError>;

    fn visit<G: Features>(self, start: G) -> Result<Comparison, BenchError> {
        let engines = loaded(&start, self.specs)?;
        let (form, positions) = match (&self.request.positions, self.suite) {
            (PositionSource::File(path), Some(lines)) => {
                (Some(FileForm::Suite), suite_file(&start, path, lines)?)
            }
            (PositionSource::File(path), None) => (
                Some(FileForm::Openings),
                read_openings_file(start, path)
                    .map_err(BenchError::Input)?
                    .iter()
                    .map(|moves| played(&start, moves))
                    .collect(),
            ),
            (&PositionSource::Random { count, plies, seed }, _) => {
                (None, random_positions(start, count, plies, seed)?)
            }
        };
        let (texts, positions): (Vec<String>, Vec<G>) = positions.into_iter().unzip();
        self.progress
            .starting(positions.len() as u64 * engines.len() as u64);
        let engines = engines
            .iter()
            .map(|(spec, weights)| EngineRun {
                engine: spec.name.clone(),
                time_limited: spec.config.limits.time.is_some(),
                searches: search_each(&start, &positions, spec, weights, self.progress),
            })
            .collect();
        Ok(Comparison {
            game: start.name(),
            form,
            positions: texts,
            engines,
        })
    }
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

/// The position after `moves` from `start`, with its text: the moves separated by spaces.
fn played<G: Game>(start: &G, moves: &[G::Move]) -> (String, G) {
    let mut pos = *start;
    let mut text = Vec::with_capacity(moves.len());
    for &mv in moves {
        text.push(pos.format_move(mv));
        pos = pos.play(mv);
    }
    (text.join(" "), pos)
}

/// A suite's positions read in the game's notation; a finished one is refused.
fn suite_file<G: Game>(
    start: &G,
    path: &Path,
    lines: Vec<(usize, String)>,
) -> Result<Vec<(String, G)>, BenchError> {
    let file = path.display();
    lines
        .into_iter()
        .map(|(n, text)| {
            let pos = start
                .parse_position(&text)
                .map_err(|e| BenchError::Input(format!("{file}:{n}: {e}")))?;
            if pos.outcome().is_some() {
                return Err(BenchError::Input(format!(
                    "{file}:{n}:1: the game is over in this position; a position to search must leave a move to play"
                )));
            }
            Ok((text, pos))
        })
        .collect()
}

/// `count` distinct positions after `plies` random plies drawn from `seed`
/// ([`PositionSource::Random`]).
fn random_positions<G: Features>(
    start: G,
    count: u32,
    plies: u32,
    seed: u64,
) -> Result<Vec<(String, G)>, BenchError> {
    let no_check = Balance {
        depth: 0,
        max_imbalance: None,
    };
    let mut stream = OpeningStream::new(start, plies, seed, no_check);
    (0..count)
        .map(|_| {
            stream
                .next_opening()
                .map(|(moves, _)| played(&start, &moves))
                .map_err(|_| {
                    let found = stream.given();
                    BenchError::Input(format!(
                        "--random {count} --plies {plies}: found only {found} distinct position{} where the game goes on after {plies} random plies, in {} attempts; ask for fewer or change --plies",
                        if found == 1 { "" } else { "s" },
                        stream.attempts()
                    ))
                })
        })
        .collect()
}

/// Every position searched by a fresh engine of `spec` (see the module documentation).
fn search_each<G: Features>(
    start: &G,
    positions: &[G],
    spec: &EngineSpec,
    weights: &Weights,
    progress: &mut dyn Progress,
) -> Vec<Searched> {
    positions
        .iter()
        .map(|pos| {
            let mut engine = Engine::with_weights(spec, start, weights.clone(), ENGINE_SEED);
            let stats = engine.choose(pos).stats;
            progress.searched();
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
            let searches = search_each(&start, &positions, spec, weights, &mut ());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_depth_goes_to_the_engines_without_a_budget() {
        let word = |w: &str| engine_word(w, Some(6)).map_err(|e| e.to_string());
        assert_eq!(word("pvs").unwrap(), "pvs:6");
        assert_eq!(word("pvs:exact=20").unwrap(), "pvs:6:exact=20");
        assert_eq!(word("pvs:w.toml").unwrap(), "pvs:6:w.toml");
        assert_eq!(word("pvs:n5000").unwrap(), "pvs:n5000");
        assert_eq!(word("alphabeta:200ms").unwrap(), "alphabeta:200ms");
        assert_eq!(word("mcts:2000").unwrap(), "mcts:2000");
        assert_eq!(word("random").unwrap(), "random");
        assert!(word("pvs:8").unwrap_err().contains("write it pvs or"));
        assert!(
            word("pvs:8:exact=20")
                .unwrap_err()
                .contains("write it pvs:exact=20")
        );
        assert!(word("mcts").unwrap_err().contains("playouts"));
        assert_eq!(engine_word("pvs:8", None).unwrap(), "pvs:8");
    }

    #[test]
    fn totals_take_the_median_of_an_even_count_as_the_middle_twos_mean() {
        let search = |nodes, depth| Searched {
            nodes,
            depth,
            seldepth: 0,
            seconds: 0.5,
            timed_out: false,
        };
        let run = EngineRun {
            engine: "pvs:3".into(),
            time_limited: false,
            searches: vec![search(10, 3), search(40, 3), search(20, 2), search(1000, 4)],
        };
        let t = run.totals();
        assert_eq!((t.positions, t.nodes), (4, 1070));
        assert_eq!(t.median_nodes, 30.0);
        assert_eq!((t.min_depth, t.max_depth, t.mean_depth), (2, 4, 3.0));
        assert_eq!(t.seconds, 2.0);
        assert_eq!(t.nps, 535.0);
    }
}

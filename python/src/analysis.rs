//! `joute.perft` and `joute.solve`: counting and solving from Python, the interpreter free
//! meanwhile (`docs/python.md`, section Games).

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use joute::games::GameKind;
use joute::games::perft::perft_parallel;
use joute::search::solver::position::{Limits, Solved, solve_position};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::game::{Game, on, side_index, value_error};

/// The deepest perft: beyond it a count takes hours in any of joute's games.
pub const MAX_PERFT_DEPTH: i64 = 20;
/// The largest `nodes` of a solve, as `joute solve --nodes` allows.
const MAX_SOLVE_NODES: u64 = 1_000_000_000_000_000;
/// The largest `hash_mib` of a solve, as `joute solve --hash` allows.
const MAX_HASH_MIB: u64 = 8192;
/// The longest `time` of a solve, seconds: one day, as `joute solve --time` allows.
const MAX_SOLVE_SECONDS: f64 = 86_400.0;

/// The game `game` names (a `Game`, or a game's name with `position` in its notation).
fn game_of(game: &Bound<'_, PyAny>, position: Option<&str>) -> PyResult<Game> {
    if let Ok(g) = game.extract::<PyRef<'_, Game>>() {
        if position.is_some() {
            return Err(value_error(
                "position= goes with a game's name; a Game is counted from its current position",
            ));
        }
        return Ok(g.clone());
    }
    let Ok(name) = game.extract::<Cow<'_, str>>() else {
        return Err(value_error(format!(
            "game must be a game's name or a joute.Game, not {}",
            game.get_type().name()?
        )));
    };
    Game::new(name, position.map(Cow::Borrowed), None)
}

/// `perft(game, depth, position=None)`: the number of move sequences of exactly `depth`
/// plies from the position (an Othello pass counts as a ply).
#[pyfunction]
#[pyo3(signature = (game, depth, position=None))]
fn perft(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    depth: i64,
    position: Option<Cow<'_, str>>,
) -> PyResult<u64> {
    if !(0..=MAX_PERFT_DEPTH).contains(&depth) {
        return Err(value_error(format!(
            "depth is {depth}; allowed: 0..={MAX_PERFT_DEPTH}"
        )));
    }
    let game = game_of(game, position.as_deref())?;
    let depth = depth as u32;
    Ok(on!(game.played(), h => {
        let pos = *h.current();
        py.detach(move || perft_parallel(&pos, depth))
    }))
}

/// `solve(game, position=None, *, nodes=None, time=None, hash_mib=None)`: the exact value of
/// the position with best play, by the game's solver (`joute solve`), as a dict.
#[pyfunction]
#[pyo3(signature = (game, position=None, *, nodes=None, time=None, hash_mib=None))]
fn solve<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    position: Option<Cow<'_, str>>,
    nodes: Option<u64>,
    time: Option<f64>,
    hash_mib: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    if let Some(n) = nodes
        && !(1..=MAX_SOLVE_NODES).contains(&n)
    {
        return Err(value_error(format!(
            "nodes is {n}; allowed: 1..={MAX_SOLVE_NODES}"
        )));
    }
    if let Some(h) = hash_mib
        && !(1..=MAX_HASH_MIB).contains(&h)
    {
        return Err(value_error(format!(
            "hash_mib is {h}; allowed: 1..={MAX_HASH_MIB}"
        )));
    }
    let time = match time {
        None => None,
        Some(t) if (0.001..=MAX_SOLVE_SECONDS).contains(&t) => Some(Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(value_error(format!(
                "time is {t} seconds; allowed: 0.001 to {MAX_SOLVE_SECONDS} (one day)"
            )));
        }
    };
    let game = game_of(game, position.as_deref())?;
    let kind = GameKind::parse(&game.game_name()).map_err(value_error)?;
    let text = game.position_text().ok_or_else(|| {
        value_error("this game's position is unknown (it started at a position reached by moves joute was not given)")
    })?;
    let limits = Limits {
        nodes,
        time,
        hash_mib,
        threads: 1,
    };
    let clock = Instant::now();
    let solved = py
        .detach(move || {
            let progress = Arc::new(AtomicU64::new(0));
            solve_position(kind, Some(&text), &limits, &progress)
        })
        // The library's words name the command line's flags; here they are arguments.
        .map_err(|e| value_error(e.replace("--time or --nodes", "time= or nodes=")))?;
    let seconds = clock.elapsed().as_secs_f64();
    let Solved {
        name,
        text,
        side,
        solution,
        explain,
    } = solved;
    let d = PyDict::new(py);
    d.set_item("game", name)?;
    d.set_item("position", text)?;
    d.set_item("turn", side_index(side))?;
    let exact = solution.stopped.is_none();
    d.set_item("exact", exact)?;
    let (value, score, lower, upper) = match solution.stopped {
        None => (
            Some(verdict(solution.score)),
            Some(solution.score),
            solution.score,
            solution.score,
        ),
        Some(s) => (None, None, s.lower, s.upper),
    };
    d.set_item("value", value)?;
    d.set_item("score", score)?;
    d.set_item("lower", lower)?;
    d.set_item("upper", upper)?;
    d.set_item("best_move", solution.best_moves.first())?;
    d.set_item("best_moves", &solution.best_moves)?;
    d.set_item("nodes", solution.nodes)?;
    d.set_item("seconds", seconds)?;
    d.set_item("explain", explain)?;
    d.set_item("stopped_by", solution.stopped.map(|s| s.reason.as_str()))?;
    d.set_item("depth", solution.stopped.map(|s| s.depth))?;
    Ok(d)
}

/// `win`, `draw` or `loss` for the side to move.
fn verdict(score: i32) -> &'static str {
    match score.signum() {
        1 => "win",
        -1 => "loss",
        _ => "draw",
    }
}

/// Adds `perft` and `solve` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    Ok(())
}

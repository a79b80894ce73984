//! Tournaments and matches from Python: a spec (a path, a TOML text, or a dict the package
//! turns into TOML) or two engines, Python bots as hosted engines, played by joute's own
//! session in its run folder; the run's summary comes back as `joute run --json` prints it.
//!
//! The session plays on a thread of its own while the calling thread, detached from the
//! interpreter, waits for its games: every tenth of a second it attaches to hear the
//! progress callback and to let Python run its signal handlers, so that Ctrl-C (a
//! `KeyboardInterrupt`) cancels the run as the command line's does: no new game starts, the
//! games played are logged and reported, and the folder can be resumed.

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use joute::arena::CancelToken;
use joute::arena::PlayerError;
use joute::arena::hosted::{HostedAnswer, HostedClock, HostedEngine, HostedPlayer, Hosts};
use joute::arena::log::GameLine;
use joute::arena::spec::{MatchEngine, MatchOpenings, TournamentSpec, clock_of, match_spec};
use joute::games::{GameKind, Outcome, Side};
use joute::report::Summary;
use joute::report::load::summarize_logs;
use joute::report::records::counted_games;
use joute::report::run::{SessionTiming, summary_json};
use joute::report::table::{RatingScale, rating_rows};
use joute::stats::sprt::Sprt;
use joute::tournament::{Ending, Observer, Options, Session, SessionError};

use crate::game::Game;
use crate::wait::wait_detached;

/// A Python bot as a hosted engine: the package's `_Bot` wrapper, whose `player()` makes each
/// game's `_Seat` (`new_game(state, side, seed)`, `think(state, clock)` → `(move, info)`,
/// `game_over(points)`).
struct PyBot {
    bot: Arc<Py<PyAny>>,
    describe: String,
}

impl HostedEngine for PyBot {
    fn player(&self) -> Box<dyn HostedPlayer> {
        Box::new(PyBotPlayer {
            bot: self.bot.clone(),
            seat: None,
        })
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }
}

/// One game of a Python bot: its seat, made when the game begins.
struct PyBotPlayer {
    bot: Arc<Py<PyAny>>,
    seat: Option<Py<PyAny>>,
}

impl PyBotPlayer {
    /// The game's seat (made at `new_game`).
    fn seat(&self) -> Result<&Py<PyAny>, PlayerError> {
        self.seat
            .as_ref()
            .ok_or_else(|| PlayerError::Failed("asked to move before its game began".into()))
    }
}

/// What a Python exception says in a game's detail: the traceback's last line
/// (`ValueError: boom`), and where it was raised (`bot.py:12 in choose`) when known.
fn failure(py: Python<'_>, err: PyErr) -> PlayerError {
    let last_line = err.to_string();
    let place = err.traceback(py).and_then(|tb| {
        // The innermost frame: the traceback's last entry.
        let mut tb = tb;
        while let Ok(Some(next)) = tb
            .getattr("tb_next")
            .and_then(|n| Ok(n.extract::<Option<Bound<'_, pyo3::types::PyTraceback>>>()?))
        {
            tb = next;
        }
        let frame = tb.getattr("tb_frame").ok()?;
        let code = frame.getattr("f_code").ok()?;
        let file: String = code.getattr("co_filename").ok()?.extract().ok()?;
        let name: String = code.getattr("co_name").ok()?.extract().ok()?;
        let line: u32 = tb.getattr("tb_lineno").ok()?.extract().ok()?;
        let file = Path::new(&file)
            .file_name()
            .map_or(file.clone(), |f| f.to_string_lossy().into_owned());
        Some(format!("{file}:{line} in {name}"))
    });
    PlayerError::Failed(match place {
        Some(place) => format!("python bot raised {last_line} ({place})"),
        None => format!("python bot raised {last_line}"),
    })
}

/// The Python `Game` of a hosted player's history.
fn state(py: Python<'_>, history: &dyn Any) -> Result<Py<Game>, PlayerError> {
    let game = Game::from_history(history)
        .ok_or_else(|| PlayerError::Failed("a game the Python package does not know".into()))?;
    Py::new(py, game).map_err(|e| failure(py, e))
}

/// Seconds of a duration, for Python.
fn seconds(d: Option<Duration>) -> Option<f64> {
    d.map(|d| d.as_secs_f64())
}

impl HostedPlayer for PyBotPlayer {
    fn new_game(&mut self, history: &dyn Any, side: Side, seed: u64) -> Result<(), PlayerError> {
        Python::attach(|py| {
            let state = state(py, history)?;
            let seat = self
                .bot
                .call_method0(py, "player")
                .map_err(|e| failure(py, e))?;
            let begun = seat.call_method1(py, "new_game", (state, side as u8, seed));
            self.seat = Some(seat);
            begun.map(drop).map_err(|e| failure(py, e))
        })
    }

    fn think(
        &mut self,
        history: &dyn Any,
        clock: &HostedClock,
    ) -> Result<HostedAnswer, PlayerError> {
        Python::attach(|py| {
            let state = state(py, history)?;
            let fail = |e| failure(py, e);
            let times = PyDict::new(py);
            let set = |k: &str, v: Option<f64>| times.set_item(k, v);
            set("budget", seconds(clock.budget)).map_err(fail)?;
            set("time_left", seconds(clock.time_left)).map_err(fail)?;
            set("opponent_time_left", seconds(clock.opponent_time_left)).map_err(fail)?;
            set("increment", Some(clock.increment.as_secs_f64())).map_err(fail)?;
            set("move_time", seconds(clock.move_time)).map_err(fail)?;
            set("deadline", seconds(clock.deadline)).map_err(fail)?;
            times
                .set_item("moves_to_go", clock.moves_to_go)
                .map_err(fail)?;
            let answer = self
                .seat()?
                .call_method1(py, "think", (state, times))
                .map_err(fail)?;
            answer_of(answer.bind(py)).map_err(fail)
        })
    }

    fn game_over(&mut self, outcome: &Outcome) {
        let Some(seat) = self.seat.take() else {
            return;
        };
        Python::attach(|py| {
            // A failure here loses nothing: the game is over. It is Python's to print.
            if let Err(e) = seat.call_method1(py, "game_over", (outcome.first_player_points(),)) {
                e.print(py);
            }
        });
    }
}

/// The bot wrapper's answer `(move, info)`: the move as text (the wrapper writes what is no
/// text as its `repr`, which then reads as no legal move), `info` a dict with `score`,
/// `depth`, `seldepth`, `nodes`, each optional.
fn answer_of(answer: &Bound<'_, PyAny>) -> PyResult<HostedAnswer> {
    let tuple = answer.cast::<PyTuple>()?;
    let mv: String = tuple.get_item(0)?.cast::<PyString>()?.to_string();
    let info = tuple.get_item(1)?;
    let mut hosted = HostedAnswer {
        mv,
        ..HostedAnswer::default()
    };
    if let Ok(info) = info.cast::<PyDict>() {
        let get = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
            Ok(info.get_item(k)?.filter(|v| !v.is_none()))
        };
        if let Some(v) = get("score")? {
            hosted.score = Some(v.extract()?);
        }
        if let Some(v) = get("depth")? {
            hosted.depth = v.extract()?;
        }
        if let Some(v) = get("seldepth")? {
            hosted.seldepth = v.extract()?;
        }
        if let Some(v) = get("nodes")? {
            hosted.nodes = Some(v.extract()?);
        }
    }
    Ok(hosted)
}

/// The hosted engines of `bots` (`{key: (wrapper, description)}`).
fn hosts_of(bots: &Bound<'_, PyDict>) -> PyResult<Hosts> {
    let mut hosts = Hosts::none();
    for (key, value) in bots.iter() {
        let key: String = key.extract()?;
        let (bot, describe): (Py<PyAny>, String) = value.extract()?;
        hosts.insert(
            &key,
            Arc::new(PyBot {
                bot: Arc::new(bot),
                describe,
            }),
        );
    }
    Ok(hosts)
}

/// What a session tells the waiting thread.
enum Heard {
    Started { scheduled: u64, remaining: u64 },
    Game { done: u64 },
}

/// The session's observer: it passes what it hears to the waiting thread.
struct Relay {
    tx: mpsc::Sender<Heard>,
    done: u64,
}

impl Observer for Relay {
    fn started(&mut self, scheduled: u64, remaining: u64) {
        self.done = scheduled - remaining;
        let _ = self.tx.send(Heard::Started {
            scheduled,
            remaining,
        });
    }

    fn game_finished(&mut self, _: &GameLine, _: &Summary) {
        self.done += 1;
        let _ = self.tx.send(Heard::Game { done: self.done });
    }
}

/// A session's error as Python's: the input's as `ValueError`, the rest as `RuntimeError`.
fn session_error(e: SessionError) -> PyErr {
    if e.is_input() {
        PyValueError::new_err(e.to_string())
    } else {
        PyRuntimeError::new_err(e.to_string())
    }
}

/// How a run is played, as the package passes it.
#[derive(FromPyObject)]
pub struct RunOptions {
    /// The run's folder.
    out: PathBuf,
    /// Games at once.
    threads: usize,
    /// Extend a run the folder holds with a spec that extends it (`--resume`).
    resume: bool,
    /// Write into a folder of other files (`--force`).
    force: bool,
    /// Start afresh (`--fresh`).
    fresh: bool,
    /// Go on with games sharing cores, or hosted engines sharing the interpreter, on a clock.
    oversubscribe: bool,
}

/// Plays `spec` in `options.out` with `progress(done, total)` called as games finish (or
/// `None`), and returns `joute run --json`'s summary as JSON text. A KeyboardInterrupt stops
/// the run (its games played are logged and reported) and is raised again.
fn play(
    py: Python<'_>,
    spec: TournamentSpec,
    options: RunOptions,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let threads = options.threads.max(1);
    let open = Options {
        threads,
        shard: None,
        extend: options.resume,
        force: options.force,
        fresh: options.fresh,
        anchor: None,
        oversubscribe: options.oversubscribe,
    };
    let out = options.out;
    let session = Session::open(&spec, &out, open).map_err(session_error)?;
    let cancel = CancelToken::new();
    let (tx, rx) = mpsc::channel();
    let mut total = 0;
    let (reported, interrupted) = wait_detached(
        py,
        rx,
        &cancel,
        || {
            let mut relay = Relay { tx, done: 0 };
            session.play_and_report(&mut relay, &cancel, true)
        },
        |py, heard| {
            let done = match *heard {
                Heard::Started {
                    scheduled,
                    remaining,
                } => {
                    total = scheduled;
                    scheduled - remaining
                }
                Heard::Game { done } => done,
            };
            // A progress display that fails stops the run as Ctrl-C does.
            match &progress {
                Some(f) => f.call1(py, (done, total)).map(drop),
                None => Ok(()),
            }
        },
    );
    let reported = reported.map_err(session_error)?;
    if let Some(e) = interrupted {
        return Err(e);
    }
    let outcome = &reported.outcome;
    let timing = SessionTiming {
        played: outcome.played,
        seconds: outcome.seconds,
        threads,
    };
    let page = reported.page.clone();
    let written = page.as_deref().map(|p| (out.as_path(), p));
    let mut json = summary_json(
        &outcome.summary,
        &reported.rows,
        &reported.scale,
        Some(timing),
        &outcome.info,
        written,
    );
    json["ending"] = outcome.ending.as_str().into();
    if outcome.ending == Ending::Interrupted {
        return Err(PyKeyboardInterrupt::new_err(format!(
            "the run stopped after {} games this session; its folder {} can be resumed",
            outcome.played,
            out.display()
        )));
    }
    Ok(json.to_string())
}

/// `joute.run`'s native part: the spec as a path (`path`) or a TOML text (`text`), with the
/// hosted engines `bots` (`{key: (wrapper, description)}`).
#[pyfunction]
#[pyo3(signature = (path, text, bots, options, progress=None))]
pub fn run_spec(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    bots: &Bound<'_, PyDict>,
    options: RunOptions,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let spec = spec_of(path, text)?
        .with_hosts(hosts_of(bots)?)
        .map_err(PyValueError::new_err)?;
    play(py, spec, options, progress)
}

/// The spec at `path`, or of the TOML `text`; its error as a `ValueError`.
fn spec_of(path: Option<PathBuf>, text: Option<String>) -> PyResult<TournamentSpec> {
    match (path, text) {
        (Some(path), _) => TournamentSpec::load(&path),
        (None, Some(text)) => TournamentSpec::parse(&text, "(spec)"),
        (None, None) => return Err(PyValueError::new_err("a spec is needed")),
    }
    .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The spec's name, for the default run folder (`reports/NAME`).
#[pyfunction]
#[pyo3(signature = (path, text))]
pub fn spec_name(path: Option<PathBuf>, text: Option<String>) -> PyResult<String> {
    Ok(joute::outputs::file_name(
        &spec_of(path, text)?.resolved.name,
        "",
    ))
}

/// One engine of `joute.match` as the package passes it: `("word", "alphabeta:4")` or
/// `("hosted", name, key)`.
fn match_engine(engine: &Bound<'_, PyTuple>) -> PyResult<MatchEngine> {
    let kind: String = engine.get_item(0)?.extract()?;
    match kind.as_str() {
        "word" => {
            let text: String = engine.get_item(1)?.extract()?;
            MatchEngine::parse(&text).map_err(|e| PyValueError::new_err(e.to_string()))
        }
        _ => Ok(MatchEngine::Hosted {
            name: engine.get_item(1)?.extract()?,
            key: engine.get_item(2)?.extract()?,
            clock: Default::default(),
        }),
    }
}

/// `joute.match`'s native part: `game`, two engines ([`match_engine`]), `games` games from
/// the match's openings (`plies`, the game's default when `None`), `seed`, an optional clock
/// for both (`tc` a game clock `40/60+0.6`, `st` a time per move `100ms`), an SPRT as
/// `--sprt` writes it, and the hosted engines `bots`.
#[pyfunction]
#[pyo3(signature = (game, engines, games, seed, plies, tc, st, sprt, bots, options, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn run_match(
    py: Python<'_>,
    game: &str,
    engines: (Bound<'_, PyTuple>, Bound<'_, PyTuple>),
    games: u64,
    seed: u64,
    plies: Option<u32>,
    tc: Option<String>,
    st: Option<String>,
    sprt: Option<String>,
    bots: &Bound<'_, PyDict>,
    options: RunOptions,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let kind = GameKind::parse(game).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let engines = [match_engine(&engines.0)?, match_engine(&engines.1)?];
    let clock = clock_of(tc.as_deref(), st.as_deref(), None)
        .map_err(|(key, m)| PyValueError::new_err(format!("{key}: {m}")))?;
    let openings = MatchOpenings {
        plies,
        repeat: false,
    };
    let sprt = (sprt.as_deref())
        .map(Sprt::parse)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("sprt {e}")))?;
    let (spec, _) = match_spec(kind, engines, games, openings, seed, sprt, clock)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let spec = spec
        .with_hosts(hosts_of(bots)?)
        .map_err(PyValueError::new_err)?;
    play(py, spec, options, progress)
}

/// The games a run plays at once when not told: one per core.
#[pyfunction]
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The games of the run in `folder` as `joute export --format csv` writes them (every game its
/// log counts, by id), for the package's `games` table.
#[pyfunction]
pub fn games_csv(py: Python<'_>, folder: PathBuf) -> PyResult<String> {
    py.detach(|| {
        let logs = [folder.join("games.jsonl")];
        let (_, summary, _) = summarize_logs(&logs).map_err(PyValueError::new_err)?;
        let games =
            counted_games(&logs, &summary).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let bytes = joute::report::files::games_csv(&games)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    })
}

/// The summary of the run in `folder` from its log, as `joute report --json` prints it (no
/// file written), for `joute.load`.
#[pyfunction]
pub fn report_json(py: Python<'_>, folder: PathBuf) -> PyResult<String> {
    py.detach(|| {
        let logs = [folder.join("games.jsonl")];
        let (info, summary, _) = summarize_logs(&logs).map_err(PyValueError::new_err)?;
        let ratings = summary.ratings();
        let rows = rating_rows(&summary, &ratings);
        let scale = RatingScale::of(&summary, &ratings);
        Ok(summary_json(&summary, &rows, &scale, None, &info, None).to_string())
    })
}

/// Adds this module's functions to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_spec, m)?)?;
    m.add_function(wrap_pyfunction!(run_match, m)?)?;
    m.add_function(wrap_pyfunction!(spec_name, m)?)?;
    m.add_function(wrap_pyfunction!(default_threads, m)?)?;
    m.add_function(wrap_pyfunction!(games_csv, m)?)?;
    m.add_function(wrap_pyfunction!(report_json, m)?)?;
    Ok(())
}

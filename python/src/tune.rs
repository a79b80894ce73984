//! Tuning runs and ratings from Python: `joute.tune` runs a tuning spec as `joute tune` does
//! (`joute::tune::session::TuneSession`), and `joute.rate` rates record files and games logs
//! as `joute rate` does (`joute::report::load::rated_games`, then the same fit).
//!
//! A tuning run plays on a thread of its own while the calling thread, detached from the
//! interpreter, waits for what its observer tells: every tenth of a second it attaches to pass
//! the events to the Python callback and to let Python run its signal handlers, so that Ctrl-C
//! (a `KeyboardInterrupt`) stops the run as the command line's does: the checkpoint (or the
//! match's games) saved, the folder resumable.

use crate::wait::wait_detached;
use std::path::PathBuf;
use std::sync::mpsc;

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde_json::{Value, json};

use joute::arena::CancelToken;
use joute::arena::log::GameLine;
use joute::report::Summary;
use joute::stats::ratings::{FirstMove, FitOptions, fit};
use joute::tournament::Observer;
use joute::tune::checkpoint::{Checkpoint, MatchKind, Stage, TuneError, read_history};
use joute::tune::record::HistoryLine;
use joute::tune::session::{Finished, PlayedMatch, TuneObserver, TuneOptions, TuneSession};
use joute::tune::spec::{ResolvedTuneSpec, load, parse};

/// A tuning spec from a path or a TOML text (its relative paths then relative to the current
/// folder), its errors as `ValueError` (`file:line:column: key: message`).
fn tune_spec(path: Option<&PathBuf>, text: Option<&str>) -> PyResult<ResolvedTuneSpec> {
    match (path, text) {
        (Some(path), _) => load(path),
        (None, Some(text)) => parse(text, "(spec)"),
        (None, None) => return Err(PyValueError::new_err("a spec is needed")),
    }
    .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The tuning spec's name, for the default run folder (`reports/NAME`, as `joute tune` has it).
#[pyfunction]
#[pyo3(signature = (path, text))]
pub fn tune_spec_name(path: Option<PathBuf>, text: Option<String>) -> PyResult<String> {
    let spec = tune_spec(path.as_ref(), text.as_deref())?;
    Ok(joute::outputs::file_name(&spec.name, ""))
}

/// The stage an event belongs to: `tuning`, `confirm` or `aa`.
fn stage_name(kind: Option<MatchKind>) -> &'static str {
    kind.map_or("tuning", MatchKind::folder)
}

/// Parameter names paired with values, as a JSON object.
fn named(names: &[String], values: &[f64]) -> Value {
    Value::Object(
        names
            .iter()
            .zip(values)
            .map(|(n, &v)| (n.clone(), json!(v)))
            .collect(),
    )
}

/// The games tuning may play (`None`: no cap, the candidates planned bound it).
fn planned_games(ck: &Checkpoint) -> Option<u64> {
    (ck.plan.tuning != u64::MAX).then_some(ck.plan.tuning)
}

/// The observer of a match's games: its progress, passed on.
struct MatchRelay {
    tx: mpsc::Sender<Heard>,
    kind: MatchKind,
    total: u64,
    done: u64,
}

impl Observer for MatchRelay {
    fn started(&mut self, scheduled: u64, remaining: u64) {
        self.total = scheduled;
        self.done = scheduled - remaining;
        self.send();
    }

    fn game_finished(&mut self, _: &GameLine, _: &Summary) {
        self.done += 1;
        self.send();
    }
}

impl MatchRelay {
    fn send(&self) {
        let stage = stage_name(Some(self.kind));
        let _ = self.tx.send(Heard {
            event: json!({
                "kind": "match_progress", "stage": stage, "match": stage,
                "done": self.done, "total": self.total,
            }),
            _answer: None,
        });
    }
}

/// The tuning run's observer: every event as a JSON object with its `kind`, passed to the
/// waiting thread.
struct TuneRelay {
    tx: mpsc::Sender<Heard>,
    names: Vec<String>,
    matches: MatchRelay,
}

/// An event for the waiting thread, with the sender of the answer the run waits for (the
/// answer: the sender dropped once the callback has heard the event).
struct Heard {
    event: Value,
    _answer: Option<mpsc::Sender<()>>,
}

impl TuneRelay {
    fn send(&self, event: Value) {
        let _ = self.tx.send(Heard {
            event,
            _answer: None,
        });
    }

    /// Sends `event` and waits until the callback has heard it: a callback that stops the
    /// run on a candidate stops it right after that candidate, whatever the timing.
    fn send_and_wait(&self, event: Value) {
        let (done, heard) = mpsc::channel();
        if self
            .tx
            .send(Heard {
                event,
                _answer: Some(done),
            })
            .is_ok()
        {
            let _ = heard.recv();
        }
    }
}

impl TuneObserver for TuneRelay {
    fn step(&mut self, line: &HistoryLine, ck: &Checkpoint) {
        let mut event = json!({
            "kind": "step", "stage": "tuning",
            "candidate": line.k,
            "weights": named(&self.names, &line.theta),
            "tested": named(&self.names, &line.candidate),
            "opponent": named(&self.names, &line.opponent),
            "candidates": ck.candidates,
            "planned_candidates": ck.spec.iterations,
            "games_total": ck.games,
            "planned_games": planned_games(ck),
            "seconds_total": ck.seconds,
        });
        // The history line's own fields as the file has them (`k`, `theta`, `elo`, `fit`…).
        if let (Some(e), Value::Object(h)) = (event.as_object_mut(), json!(line)) {
            for (k, v) in h {
                e.entry(k).or_insert(v);
            }
        }
        self.send_and_wait(event);
    }

    fn waiting(&mut self, what: &str) {
        self.send(json!({"kind": "waiting", "stage": "tuning", "what": what}));
    }

    fn tuned(&mut self, ck: &Checkpoint, history: &[HistoryLine]) -> std::io::Result<()> {
        self.send(json!({
            "kind": "tuned", "stage": "tuning",
            "candidates": history.len(),
            "accepted": history.iter().filter(|h| h.accepted).count(),
            "games": ck.games,
            "seconds": ck.seconds,
            "weights": named(&self.names, ck.state.theta()),
        }));
        Ok(())
    }

    fn match_starting(&mut self, kind: MatchKind, games: u64) -> std::io::Result<()> {
        let stage = stage_name(Some(kind));
        self.send(json!({
            "kind": "match_starting", "stage": stage, "match": stage, "games": games,
        }));
        self.matches = MatchRelay {
            tx: self.tx.clone(),
            kind,
            total: games,
            done: 0,
        };
        Ok(())
    }

    fn match_skipped(&mut self, kind: MatchKind, reason: &str) -> std::io::Result<()> {
        let stage = stage_name(Some(kind));
        self.send(json!({
            "kind": "match_skipped", "stage": stage, "match": stage, "reason": reason,
        }));
        Ok(())
    }

    fn games(&mut self) -> &mut dyn Observer {
        &mut self.matches
    }

    fn match_played(&mut self, kind: MatchKind, played: &PlayedMatch) -> std::io::Result<()> {
        let stage = stage_name(Some(kind));
        self.send(json!({
            "kind": "match_played", "stage": stage, "match": stage,
            "result": played.result,
            "ratings": played.rows,
            "check": played.check,
        }));
        Ok(())
    }
}

/// A tuning error as Python's: the input's as `ValueError`, the rest as `RuntimeError`.
fn tune_error(e: TuneError) -> PyErr {
    if e.is_input() {
        PyValueError::new_err(e.to_string())
    } else {
        PyRuntimeError::new_err(e.to_string())
    }
}

/// How a tuning run is opened, as the package passes it.
#[derive(FromPyObject)]
pub struct TuneRunOptions {
    /// The run's folder.
    out: PathBuf,
    /// Games at once.
    threads: usize,
    /// Continue the run the folder holds (`--resume`).
    resume: bool,
    /// Write into a folder of other files (`--force`).
    force: bool,
    /// Start afresh (`--fresh`).
    fresh: bool,
}

/// The `start` event of a tuning run opened at checkpoint `ck`, its parameters `names`.
fn start_event(ck: &Checkpoint, names: &[String]) -> Value {
    json!({
        "kind": "start", "stage": "tuning",
        "method": ck.spec.method.name(),
        "params": names,
        "weights": named(names, ck.state.theta()),
        "candidates": ck.candidates,
        "games_total": ck.games,
        "planned_candidates": ck.spec.iterations,
        "planned_games": planned_games(ck),
        "confirm_games": ck.plan.confirm,
        "aa_games": ck.plan.aa,
        "resumed": ck.candidates > 0,
    })
}

/// `joute.tune`'s native part: runs the tuning spec (a path, or a TOML text) in
/// `options.out`, calling `events(event_json)` with every observer event (JSON text), and
/// returns `summary.json`'s object as JSON text. A KeyboardInterrupt stops the run resumably
/// and is raised again.
#[pyfunction]
#[pyo3(signature = (path, text, options, events=None))]
pub fn run_tune(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    options: TuneRunOptions,
    events: Option<Py<PyAny>>,
) -> PyResult<String> {
    let spec = tune_spec(path.as_ref(), text.as_deref())?;
    let threads = options.threads.max(1);
    let out = options.out;
    let open = TuneOptions {
        resume: options.resume,
        budget: None,
        write_weights: None,
        force: options.force,
        fresh: options.fresh,
        inputs: path.iter().cloned().collect(),
    };
    let spec_path = path.unwrap_or_else(|| PathBuf::from("(spec)"));
    let mut session = py
        .detach(|| TuneSession::open(spec, &out, &open))
        .map_err(tune_error)?;
    let names: Vec<String> = session
        .ck
        .spec
        .params
        .iter()
        .map(|p| p.name.clone())
        .collect();
    let (tx, rx) = mpsc::channel();
    let _ = tx.send(Heard {
        event: start_event(&session.ck, &names),
        _answer: None,
    });
    let cancel = CancelToken::new();
    let ((finished, session), interrupted) = wait_detached(
        py,
        rx,
        &cancel,
        || {
            let mut relay = TuneRelay {
                tx: tx.clone(),
                names,
                matches: MatchRelay {
                    tx,
                    kind: MatchKind::Confirm,
                    total: 0,
                    done: 0,
                },
            };
            let finished = session.run(&spec_path, threads, &mut relay, &cancel);
            (finished, session)
        },
        // A step waits until its event is heard (its answer dropped with it); a callback that
        // fails stops the run as Ctrl-C does.
        |py, Heard { event, .. }| match &events {
            Some(f) => f.call1(py, (event.to_string(),)).map(drop),
            None => Ok(()),
        },
    );
    outcome(py, finished, interrupted, &session, &out)
}

/// What `joute.tune` returns of a run that `finished` (or not), with the Python error met
/// while waiting (`interrupted`): `summary.json`'s text, the error, or a KeyboardInterrupt
/// saying where the run stopped and that its folder `out` resumes.
fn outcome(
    py: Python<'_>,
    finished: Result<Finished, TuneError>,
    interrupted: Option<PyErr>,
    session: &TuneSession,
    out: &std::path::Path,
) -> PyResult<String> {
    match finished {
        Ok(finished) => {
            if let Some(e) = interrupted {
                return Err(e);
            }
            Ok(finished.summary.to_string())
        }
        Err(TuneError::Interrupted(stage)) => {
            if let Some(e) = interrupted
                && !e.is_instance_of::<PyKeyboardInterrupt>(py)
            {
                return Err(e);
            }
            let when = match stage {
                Stage::Tuning => format!(
                    "after candidate {} ({} games)",
                    session.ck.candidates, session.ck.games
                ),
                Stage::Match(kind) => format!("during the {} match", kind.folder()),
            };
            Err(PyKeyboardInterrupt::new_err(format!(
                "the tuning run stopped {when}; its folder {} can be resumed (resume=True)",
                out.display()
            )))
        }
        Err(e) => Err(interrupted.unwrap_or_else(|| tune_error(e))),
    }
}

/// The history of the tuning run in `folder` (the candidates its checkpoint counts), as a
/// JSON array of `history.jsonl`'s lines.
#[pyfunction]
pub fn tune_history(folder: PathBuf) -> PyResult<String> {
    let ck = Checkpoint::load(&folder.join("checkpoint.json"))
        .map_err(|e| PyValueError::new_err(format!("{}: {e}", folder.display())))?;
    let history = read_history(&folder.join("history.jsonl"), ck.candidates)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(json!(history).to_string())
}

/// A TOML file (tuned weights or options) as JSON text.
#[pyfunction]
pub fn toml_file(path: PathBuf) -> PyResult<String> {
    let text = std::fs::read_to_string(&path)
        .map_err(|e| PyValueError::new_err(format!("{}: cannot read: {e}", path.display())))?;
    let table: toml::Table = toml::from_str(&text)
        .map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?;
    serde_json::to_string(&table).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// `joute.rate`'s native part: the ratings of the games in `paths` (result PGN, WThor, GGF,
/// joute's games logs) as `joute rate` computes them: `{"games", "ratings", "scale", "runs"}`
/// as JSON text, the ratings as `ratings.csv`'s text. `first_move`: `"fit"` (the default) or
/// `"ignore"`; `anchor`: an engine's name and its Elo, else the ratings average 0.
#[pyfunction]
#[pyo3(signature = (paths, first_move=None, anchor=None))]
pub fn rate_files(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    first_move: Option<String>,
    anchor: Option<(String, f64)>,
) -> PyResult<String> {
    let first_move = match first_move.as_deref() {
        None | Some("fit") => FirstMove::Fit,
        Some("ignore") => FirstMove::Ignore,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "first_move: '{other}'; allowed: 'fit', 'ignore'"
            )));
        }
    };
    py.detach(|| {
        let read = joute::report::load::rated_games(&paths).map_err(PyValueError::new_err)?;
        let games: usize = read.games.iter().map(Vec::len).sum();
        let (results, draws) =
            joute::arena::records::rating_inputs(&read.games).map_err(PyValueError::new_err)?;
        let anchor = match anchor {
            None => None,
            Some((name, elo)) => {
                let i = results
                    .names
                    .iter()
                    .position(|n| *n == name)
                    .ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "anchor: '{name}' is not among the rated engines: {}",
                            results.names.join(", ")
                        ))
                    })?;
                if !elo.is_finite() {
                    return Err(PyValueError::new_err("anchor: the Elo must be a number"));
                }
                Some((i, elo))
            }
        };
        let ratings = fit(
            &results,
            &FitOptions {
                first_move,
                anchor,
                ..FitOptions::default()
            },
        );
        let rows = joute::report::table::rows_of(&ratings, &draws);
        let scale = joute::report::table::RatingScale::new(&ratings, anchor, first_move);
        let runs: Vec<Value> = (read.runs.iter())
            .map(|(name, n)| json!({"name": name, "games": n}))
            .collect();
        // The ratings as `ratings.csv` has them: the same table as a run's.
        let csv = joute::report::files::ratings_csv(&rows)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let csv = String::from_utf8(csv).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(json!({"games": games, "ratings": csv, "scale": scale, "runs": runs}).to_string())
    })
}

/// Adds this module's functions to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_tune, m)?)?;
    m.add_function(wrap_pyfunction!(tune_spec_name, m)?)?;
    m.add_function(wrap_pyfunction!(tune_history, m)?)?;
    m.add_function(wrap_pyfunction!(toml_file, m)?)?;
    m.add_function(wrap_pyfunction!(rate_files, m)?)?;
    Ok(())
}

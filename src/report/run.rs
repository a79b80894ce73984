//! The report of a tournament run in its folder: the CSV files, the charts and `index.html`
//! written together, and the run's outcome as one JSON object (`joute run --json`).

use std::path::{Path, PathBuf};

use serde_json::json;

use super::cost::{CostRow, cost_rows};
use super::summary::{FAILURES, Summary};
use super::table::{self, RatingRow, RatingScale};
use super::{charts, files, html};
use crate::arena::game::Termination;
use crate::arena::log::RunInfo;
use crate::stats::sprt::Decision;

/// Why the report could not be written; each names the folder. The message says the cause
/// once: it is part of the message, not a `source()` (a caller that prints the chain of
/// causes would print it twice).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// `ratings.csv`, `scale.csv`, `crosstable.csv`, `pairs.csv`, `terminations.csv`,
    /// `cost.csv` or `cost-by-ply.csv`.
    #[error("cannot write the CSV files in {}: {cause}", dir.display())]
    Csv {
        /// The folder.
        dir: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// A chart.
    #[error("cannot write the charts in {}: {cause}", dir.display())]
    Charts {
        /// The folder.
        dir: PathBuf,
        /// The cause.
        cause: charts::ChartError,
    },
    /// A record file of `[output] records`.
    #[error("cannot write the game records: {0}")]
    Records(super::records::RecordsError),
    /// `index.html`.
    #[error("cannot write the HTML report in {}: {cause}", dir.display())]
    Html {
        /// The folder.
        dir: PathBuf,
        /// The cause.
        cause: html::HtmlError,
    },
}

impl From<super::records::RecordsError> for ReportError {
    fn from(e: super::records::RecordsError) -> Self {
        ReportError::Records(e)
    }
}

/// What [`write_run_report`] wrote.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The rating table's rows, best first.
    pub rows: Vec<RatingRow>,
    /// The cost table's rows, in the same order.
    pub costs: Vec<CostRow>,
    /// What the ratings mean.
    pub scale: RatingScale,
    /// `index.html`.
    pub page: PathBuf,
}

/// The records of the spec's `[output] records`, rewritten whole from `logs` in game-id order
/// (what [`super::records::LiveRecords`] appended while the games were played included).
fn write_spec_records(
    summary: &Summary,
    out: &Path,
    run: &RunInfo,
    logs: &[PathBuf],
) -> Result<(), ReportError> {
    use super::records::{RecordsError, counted_games, write_records};
    use crate::arena::records::Format;
    if run.spec.records.is_empty() {
        return Ok(());
    }
    let kind = crate::games::GameKind::parse(&run.spec.game)
        .map_err(|e| RecordsError::Format(e.to_string()))?;
    let games = counted_games(logs, summary)?;
    for name in &run.spec.records {
        let format = Format::parse(name).map_err(RecordsError::Format)?;
        write_records(
            format,
            &kind,
            &run.spec.name,
            &games,
            &out.join(format.default_name()),
        )?;
    }
    Ok(())
}

/// Checks the folder a report of `run`'s logs is to be written into: new, empty, a run folder
/// of that same run, or a report joute wrote; a folder holding another run, or other files
/// without `force`, is refused (its `index.html` and CSV files would be replaced).
pub fn check_report_folder(out: &Path, run: &RunInfo, force: bool) -> Result<(), String> {
    crate::outputs::check_output_folder(out, force)?;
    let record = out.join("run.json");
    if record.exists()
        && let Ok(other) = RunInfo::load(&record)
        && other.spec_hash != run.spec_hash
        && !other.extends.contains(&run.spec_hash)
    {
        return Err(format!(
            "{} holds the run of another spec ('{}', hash {}), whose report this would replace; choose another --out",
            out.display(),
            other.spec.name,
            other.spec_hash
        ));
    }
    Ok(())
}

/// Games played, seconds spent and the last session's threads, over every session of a run. A
/// session still playing counts up to `now` (Unix seconds) when given — a live page's — and
/// not at all otherwise (a killed session's end is not known).
pub fn run_timing(info: &RunInfo, now: Option<f64>) -> (u64, f64, usize) {
    (
        info.sessions.iter().map(|s| s.games_played).sum(),
        // From +0.0: an empty f64 sum is -0.0, which prints as "-0.0 s".
        info.sessions
            .iter()
            .filter_map(|s| Some((s.finished_unix.or(now)? - s.started_unix).max(0.0)))
            .fold(0.0, |a, b| a + b),
        info.sessions.last().map_or(1, |s| s.threads),
    )
}

/// The page's timing section of a run: [`run_timing`] and the engines' reported names.
pub fn page_timing(run: &RunInfo, now: Option<f64>) -> html::Timing {
    let (games, seconds, threads) = run_timing(run, now);
    html::Timing {
        games,
        seconds,
        threads,
        sessions: run.sessions.clone(),
        reported_names: run.reported_names.clone(),
        engines_held: run.engines_held.clone(),
    }
}

/// Writes the report of the games in `logs` (summarised in `summary`, timed by the run's record
/// `run`) into `out`: `ratings.csv`, `scale.csv`, `crosstable.csv`, `pairs.csv`, `terminations.csv`, the
/// charts and `index.html`.
pub fn write_run_report(
    summary: &Summary,
    out: &Path,
    run: &RunInfo,
    logs: &[PathBuf],
) -> Result<RunReport, ReportError> {
    let ratings = summary.ratings();
    let rows = table::rating_rows(summary, &ratings);
    let scale = RatingScale::of(summary, &ratings);
    let costs = cost_rows(summary, &rows);
    files::write_ratings(out, &rows)
        .and_then(|_| files::write_scale(out, &scale))
        .and_then(|_| files::write_crosstable(out, summary, &ratings, &rows))
        .and_then(|_| files::write_crosstable_long(out, summary, &rows))
        .and_then(|_| files::write_pairs(out, summary))
        .and_then(|_| files::write_terminations(out, summary))
        .and_then(|_| files::write_cost(out, &costs))
        .and_then(|_| files::write_cost_by_ply(out, summary))
        .map_err(|cause| ReportError::Csv {
            dir: out.to_path_buf(),
            cause,
        })?;
    write_spec_records(summary, out, run, logs)?;
    let svgs = charts::write_charts(summary, &ratings, out)
        .map_err(|cause| ReportError::Charts {
            dir: out.to_path_buf(),
            cause,
        })?
        .svgs;
    let timing = page_timing(run, None);
    let page =
        html::write_report(summary, &ratings, &svgs, logs, Some(timing), out).map_err(|cause| {
            ReportError::Html {
                dir: out.to_path_buf(),
                cause,
            }
        })?;
    Ok(RunReport {
        rows,
        costs,
        scale,
        page,
    })
}

/// What this session did: games played, seconds, threads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SessionTiming {
    /// Games played.
    pub played: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
}

/// Engine `i`'s games that ended by adjudication and those it lost by each failure:
/// `{"adjudicated": 0, "timeout": 0, "stall": 0, "illegal-move": 1, "crash": 0, "limit": 0}`.
fn engine_terminations(summary: &Summary, i: usize) -> serde_json::Value {
    let counts = &summary.failures[i].counts;
    let mut object = serde_json::Map::new();
    object.insert("adjudicated".into(), json!(summary.adjudicated[i]));
    object.extend(
        FAILURES
            .iter()
            .zip(counts)
            .map(|(name, &count)| (name.to_string(), json!(count))),
    );
    serde_json::Value::Object(object)
}

/// Engine `i`'s cost figures ([`crate::stats::cost::CostFigures`]) with the moves its time
/// limit cut: `{"moves": 312, "nodes_mean": 455.2, …, "cut": 0}`.
fn engine_cost(summary: &Summary, i: usize) -> serde_json::Value {
    let mut cost = json!(summary.costs[i].figures());
    cost["cut"] = json!(summary.timeouts[i]);
    cost
}

/// The run's outcome as one JSON object: name, game, games, the rating rows (each with the
/// engine's `terminations`: its adjudicated games and games lost per failure; and its `cost`:
/// nodes, depth, time and CPU per move), what they mean (`scale`), the games per termination, the head-to-head
/// figures of a two-engine run, the SPRT's state, this session's timing (`session`: none for a
/// report of logs), every session of the run, and the folder and page when they were written.
pub fn summary_json(
    summary: &Summary,
    rows: &[RatingRow],
    scale: &RatingScale,
    session: Option<SessionTiming>,
    run: &RunInfo,
    written: Option<(&Path, &Path)>,
) -> serde_json::Value {
    let ratings: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let mut row = json!(r);
            if let Some(i) = summary.spec.engine_index(&r.name) {
                row["terminations"] = engine_terminations(summary, i);
                row["cost"] = engine_cost(summary, i);
            }
            row
        })
        .collect();
    let terminations: serde_json::Map<String, serde_json::Value> = Termination::NAMES
        .iter()
        .zip(summary.terminations)
        .map(|(name, count)| (name.to_string(), json!(count)))
        .collect();
    let mut object = json!({
        "name": summary.spec.name,
        "game": summary.spec.game,
        "games": summary.games,
        "ratings": ratings,
        "scale": scale,
        "terminations": terminations,
    });
    if summary.spec.engines.len() == 2
        && let Some(p) = summary.pairings.first()
    {
        let e = table::finite_estimate(p);
        object["head_to_head"] = json!({
            "bound": e.bound,
            "a": summary.spec.engines[p.a].name,
            "b": summary.spec.engines[p.b].name,
            "games": p.wdl.games(),
            "wins": p.wdl.wins, "draws": p.wdl.draws, "losses": p.wdl.losses,
            "points": p.wdl.points(),
            "draw_ratio": if p.pentanomial.pairs() > 0 {
                (p.win_loss_pairs + p.draw_draw_pairs) as f64 / p.pentanomial.pairs() as f64
            } else {
                p.wdl.draw_ratio()
            },
            "game_draw_ratio": p.wdl.draw_ratio(),
            "score": e.score, "elo": e.elo, "error": e.error, "nelo": e.nelo, "los": e.los,
            "pentanomial": p.pentanomial.0,
        });
    }
    if let Some(test) = &summary.sprt {
        let decided = summary.decision();
        let t = test.test();
        object["sprt"] = json!({
            "model": t.model,
            "alpha": t.alpha,
            "beta": t.beta,
            "elo0": t.elo0,
            "elo1": t.elo1,
            "llr": decided.map_or(test.llr(), |d| d.llr),
            "lower": t.lower(),
            "upper": t.upper(),
            "decision": decided.map(|d| d.decision),
            // What a script tests: "H1", "H0" or "undecided" (the game cap or an interruption).
            "result": match decided.map(|d| d.decision) {
                Some(Decision::H1) => "H1",
                Some(Decision::H0) => "H0",
                _ => "undecided",
            },
            "pairs": decided.map_or(test.counts().pairs(), |d| d.pairs),
        });
    }
    if let Some(s) = session {
        object["played"] = json!(s.played);
        object["seconds"] = json!(s.seconds);
        object["threads"] = json!(s.threads);
    }
    object["sessions"] = json!(run.sessions);
    if let Some((out, page)) = written {
        object["out"] = json!(out.display().to_string());
        object["report"] = json!(page.display().to_string());
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::test_games::{mixed, summary};

    #[test]
    fn a_run_in_flight_is_timed_to_now_and_never_to_minus_zero() {
        let (spec, _) = mixed();
        let session =
            |started: f64, finished: Option<f64>, games: u64| crate::arena::log::Session {
                started_unix: started,
                started: String::new(),
                finished_unix: finished,
                finished: None,
                threads: 2,
                games_played: games,
                peak_rss_kib: None,
                ended: None,
            };
        let mut run = RunInfo {
            joute_version: "test".into(),
            spec_hash: spec.hash.clone(),
            seed: 1,
            shard: None,
            games_scheduled: 8,
            sessions: vec![session(100.0, None, 0)],
            extends: Vec::new(),
            additions: Vec::new(),
            files: Vec::new(),
            reported_names: Default::default(),
            engines_held: Default::default(),
            spec: spec.resolved.clone(),
        };
        // The live page's "21 games in -0.0 s": no session finished, an empty sum.
        let (_, seconds, _) = run_timing(&run, None);
        assert!(seconds == 0.0 && seconds.is_sign_positive(), "{seconds}");
        assert_eq!(format!("{seconds:.1}"), "0.0");
        assert_eq!(run_timing(&run, Some(112.5)).1, 12.5);
        run.sessions.insert(0, session(10.0, Some(40.0), 5));
        assert_eq!(run_timing(&run, None), (5, 30.0, 2));
        assert_eq!(run_timing(&run, Some(112.5)), (5, 42.5, 2));
        // A clock set back never makes a negative time.
        assert_eq!(run_timing(&run, Some(90.0)).1, 30.0);
    }

    #[test]
    fn the_json_object_counts_terminations_per_engine_and_per_run() {
        let (spec, games) = mixed();
        let s = summary(&spec, &games);
        let run = RunInfo {
            joute_version: "test".into(),
            spec_hash: spec.hash.clone(),
            seed: 1,
            shard: None,
            games_scheduled: 8,
            sessions: Vec::new(),
            extends: Vec::new(),
            additions: Vec::new(),
            files: Vec::new(),
            reported_names: Default::default(),
            engines_held: Default::default(),
            spec: spec.resolved.clone(),
        };
        let ratings = s.ratings();
        let rows = table::rating_rows(&s, &ratings);
        let scale = RatingScale::of(&s, &ratings);
        let object = summary_json(&s, &rows, &scale, None, &run, None);
        assert_eq!(object["scale"]["scale"], "logistic");
        assert_eq!(object["scale"]["first_move"], "fit");
        assert_eq!(
            object["terminations"],
            json!({"normal": 2, "adjudication": 1, "timeout": 1, "stall": 1,
                   "illegal-move": 2, "crash": 1, "limit": 0})
        );
        let of = |name: &str| {
            object["ratings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == name)
                .unwrap()["terminations"]
                .clone()
        };
        assert_eq!(
            of("edax"),
            json!({"adjudicated": 1, "timeout": 0, "stall": 0, "illegal-move": 1, "crash": 1, "limit": 0})
        );
        assert_eq!(
            of("ab-4"),
            json!({"adjudicated": 1, "timeout": 1, "stall": 0, "illegal-move": 1, "crash": 0, "limit": 0})
        );
        // Each row's cost: these hand-made games have no moves, so nothing but zeros and nulls.
        for row in object["ratings"].as_array().unwrap() {
            let cost = &row["cost"];
            assert_eq!(cost["moves"], 0, "{row}");
            assert_eq!(cost["nodes_mean"], serde_json::Value::Null, "{row}");
            assert_eq!(cost["cut"], 0, "{row}");
        }
    }
}

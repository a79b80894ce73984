//! The live page of a tuning run (`joute tune --serve`, `joute serve` on a tuning run's
//! folder): the tuning report's page ([`crate::tune::report::render_tune_live`]) and its record
//! ([`crate::tune::session::record_in_folder`]) as the folder holds them now, rebuilt when its
//! files change.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::arena::log::ReadLock;
use crate::tune::checkpoint::Checkpoint;
use crate::tune::report::{render_tune_live, tune_svg_charts};
use crate::tune::session::record_in_folder;

/// A tuning run's folder, as the server follows it.
#[derive(Clone, Debug)]
pub struct TuneFolder {
    /// The run's folder.
    pub dir: PathBuf,
    /// The run's state before it saved a checkpoint (`joute tune --serve` knows it from the
    /// start); `None`: the folder must hold one.
    pub start: Option<Checkpoint>,
}

/// The files whose changes the page follows, in the run's folder.
const WATCHED: [&str; 5] = [
    "checkpoint.json",
    "history.jsonl",
    "summary.json",
    "confirm/games.jsonl",
    "aa/games.jsonl",
];

/// Whether `dir` holds a tuning run (its checkpoint, and no games log of a tournament run).
pub fn is_tune_folder(dir: &Path) -> bool {
    dir.join("checkpoint.json").is_file() && !dir.join("games.jsonl").exists()
}

impl TuneFolder {
    /// What changes when the run records something: the watched files' lengths and times of
    /// change (a checkpoint rewritten may keep its length).
    pub(super) fn key(&self) -> Vec<u64> {
        WATCHED
            .iter()
            .flat_map(|name| {
                let meta = std::fs::metadata(self.dir.join(name)).ok();
                let nanos = meta
                    .as_ref()
                    .and_then(|m| m.modified().ok())
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos() as u64);
                [meta.map_or(0, |m| m.len()), nanos]
            })
            .collect()
    }

    /// The page and `/summary.json`'s text: the record with `progress` added.
    pub(super) fn build(&self) -> Result<(String, String), String> {
        let (record, ck) =
            record_in_folder(&self.dir, self.start.as_ref()).map_err(|e| e.to_string())?;
        let svgs = tune_svg_charts(&record).map_err(|e| e.to_string())?;
        let page = render_tune_live(&record, &svgs).map_err(|e| e.to_string())?;
        let mut object = serde_json::to_value(&record).map_err(|e| e.to_string())?;
        object["progress"] = self.progress(&ck, record.confirmation.is_some());
        Ok((page, object.to_string()))
    }

    /// Where the run is: its stage, whether a process is playing it now, its games against
    /// the plan, its rate and the ETA of tuning.
    fn progress(&self, ck: &Checkpoint, finished: bool) -> serde_json::Value {
        let locked = |name: &str| ReadLock::new(&self.dir.join(name)).is_ok_and(|l| l.live);
        let (stage, folder, planned) = if finished {
            ("finished", None, 0)
        } else if !ck.tuning_done {
            ("tuning", None, 0)
        } else if self.dir.join("aa/games.jsonl").exists() {
            ("aa", Some("aa"), ck.plan.aa)
        } else {
            ("confirm", Some("confirm"), ck.plan.confirm)
        };
        let playing = ["history.jsonl", "confirm/games.jsonl", "aa/games.jsonl"]
            .into_iter()
            .any(locked);
        let match_games = folder.map_or(0, |f| lines(&self.dir.join(f).join("games.jsonl")));
        let rate = (ck.seconds > 0.0 && ck.games > 0).then(|| ck.games as f64 / ck.seconds);
        let tuning_planned = (ck.plan.tuning != u64::MAX).then_some(ck.plan.tuning);
        // Left to play: games under a cap, else iterations at the run's pace so far.
        let eta = match (stage, tuning_planned, ck.spec.iterations, rate) {
            ("tuning", Some(cap), _, Some(rate)) => {
                Some(cap.saturating_sub(ck.games) as f64 / rate)
            }
            ("tuning", None, Some(n), _) if ck.candidates > 0 => {
                Some(n.saturating_sub(ck.candidates) as f64 * ck.seconds / ck.candidates as f64)
            }
            _ => None,
        };
        json!({
            "stage": stage,
            "playing": playing && !finished,
            "candidates": ck.candidates,
            "iterations": ck.spec.iterations,
            "tuning_games": ck.games,
            "tuning_planned": tuning_planned,
            "match_games": match_games,
            "match_planned": planned,
            "games_per_second": rate,
            "eta_seconds": eta,
        })
    }
}

/// Whole lines in `path` (0 when it cannot be read).
fn lines(path: &Path) -> u64 {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count() as u64)
}

//! A summary from games logs: one run's `games.jsonl`, or the logs of its shards, merged.
//!
//! Each log is read with the `run.json` beside it. Logs of different specs (different hashes)
//! are refused, and so is a game id found twice. For an SPRT run a first pass finds where the
//! test decided, on the prefix of pairs in pair order, so that the second pass leaves out the
//! same games whatever order the logs list them in.

use std::path::{Path, PathBuf};

use super::summary::Summary;
use crate::arena::log::{GameLine, IdSet, RunInfo, scan_log};
use crate::stats::sequential::SequentialSprt;

/// The `run.json` beside a log.
pub fn run_info_for(log: &Path) -> Result<RunInfo, String> {
    let dir = log.parent().unwrap_or(Path::new("."));
    let path = dir.join("run.json");
    if !path.exists() {
        return Err(format!(
            "{}: no run.json beside this log; joute report needs the run record the run wrote next to games.jsonl",
            log.display()
        ));
    }
    RunInfo::load(&path)
}

/// What reading the logs found besides the games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// Games read (all logs, before any SPRT cut).
    pub games_read: u64,
    /// Games the (unsharded) run schedules.
    pub games_scheduled: u64,
    /// Logs that ended with a torn line (ignored).
    pub torn: Vec<PathBuf>,
}

/// Reads `logs` (one run, or the shards of one run) into a summary.
pub fn summarize_logs(logs: &[PathBuf]) -> Result<(RunInfo, Summary, Loaded), String> {
    let first = logs.first().ok_or("no log given")?;
    let info = run_info_for(first)?;
    for log in &logs[1..] {
        let other = run_info_for(log)?;
        if other.spec_hash != info.spec_hash || other.extends != info.extends {
            return Err(format!(
                "{} belongs to spec {} ('{}'), but {} to spec {} ('{}'); only logs of one run merge",
                log.display(),
                other.spec_hash,
                other.spec.name,
                first.display(),
                info.spec_hash,
                info.spec.name
            ));
        }
    }
    let scheduled = info.spec.schedule().games();
    let mut loaded = Loaded {
        games_scheduled: scheduled,
        ..Loaded::default()
    };

    // Pass 1: duplicates, foreign games, and where an SPRT decided.
    let mut seen = IdSet::new(scheduled);
    let mut sprt = info.spec.sprt.map(SequentialSprt::new);
    let schedule = info.spec.schedule();
    for log in logs {
        let scan = scan_log(log, |game: GameLine| {
            if game.spec != info.spec_hash && !info.extends.contains(&game.spec) {
                return Err(format!(
                    "game {} belongs to spec {}, not {}",
                    game.id, game.spec, info.spec_hash
                ));
            }
            game.check(&info.spec, &schedule)?;
            seen.insert(game.id)
                .map_err(|e| format!("{e} (a log given twice, or shards that overlap)"))?;
            if let Some(test) = &mut sprt {
                let colour = (game.id % 2) as u8;
                let score_a = if colour == 0 {
                    game.score
                } else {
                    1.0 - game.score
                };
                test.add_game(game.pair, colour, score_a);
            }
            Ok(())
        })?;
        loaded.games_read += scan.games;
        if scan.torn {
            loaded.torn.push(log.clone());
        }
    }

    // Pass 2: the statistics.
    let mut summary = Summary::new(&info.spec, &info.spec_hash);
    summary.accept_earlier(&info.extends);
    summary.set_cutoff(sprt.and_then(|t| t.decided()).map(|d| d.pairs));
    for log in logs {
        scan_log(log, |game| summary.add(&game).map(|_| ()).map_err(|e| e.0))?;
    }
    Ok((info, summary, loaded))
}

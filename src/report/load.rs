//! A summary from games logs: one run's `games.jsonl`, or the logs of its shards, merged.
//!
//! Each log is read with the `run.json` beside it. Logs of different specs (different hashes)
//! are refused, and so is a log given twice. The first pass reads every line through the
//! checked reader ([`crate::arena::reader`]: each line a game of the run, replayed to its
//! result; a game found again with the same line skipped and said, with another refused) and,
//! for an SPRT run, finds where the test decided, on the prefix of pairs in pair order, so that
//! the second pass (the lines the first one checked, read again) leaves out the same games
//! whatever order the logs list them in.

use std::path::{Path, PathBuf};

use super::summary::Summary;
use crate::arena::log::{IdSet, RunInfo, scan_log_prefix};
use crate::arena::reader::{Duplicate, RunLines, read_log};
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
    /// Games logged again with the same line (skipped), one entry per log.
    pub duplicates: Vec<Duplicate>,
}

/// Reads `logs` (one run, or the shards of one run) into a summary.
pub fn summarize_logs(logs: &[PathBuf]) -> Result<(RunInfo, Summary, Loaded), String> {
    let first = logs.first().ok_or("no log given")?;
    let info = run_info_for(first)?;
    for (i, log) in logs.iter().enumerate() {
        if let Some(earlier) = logs[..i].iter().find(|l| crate::outputs::same_file(l, log)) {
            return Err(format!(
                "{} is given twice (also as {}); give each log once",
                log.display(),
                earlier.display()
            ));
        }
    }
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

    // Pass 1: every line checked, and where an SPRT decided.
    let mut hashes = vec![info.spec_hash.clone()];
    hashes.extend(info.extends.iter().cloned());
    let mut run = RunLines::new(&info.spec, hashes);
    let mut sprt = info.spec.sprt.map(SequentialSprt::new);
    let mut checked = Vec::new();
    for log in logs {
        let scan = read_log(log, &mut run, |game| {
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
        checked.push(scan.good_bytes);
    }
    loaded.duplicates = run.duplicates().to_vec();

    // Pass 2: the statistics, from the lines pass 1 checked (a live log may have grown since),
    // each game once.
    let mut summary = Summary::new(&info.spec, &info.spec_hash);
    summary.accept_earlier(&info.extends);
    summary.set_cutoff(sprt.and_then(|t| t.decided()).map(|d| d.pairs));
    let mut added = IdSet::new(scheduled);
    for (log, &bytes) in logs.iter().zip(&checked) {
        scan_log_prefix(log, bytes, |game| {
            if added.insert(game.id).is_err() {
                return Ok(());
            }
            summary.add(&game).map(|_| ()).map_err(|e| e.0)
        })?;
    }
    Ok((info, summary, loaded))
}

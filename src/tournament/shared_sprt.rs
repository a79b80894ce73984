//! The SPRT of a sharded run, with no server: the shards of a run share a folder (NFS, a
//! Kubernetes volume, the Slurm working directory), each appends to its own log
//! (`shard-I-of-N/games.jsonl`), and each reads the others' as they grow. The games of every
//! shard feed one [`Summary`], whose test counts the pairs in pair order — the prefix that
//! every shard has finished — so the run is decided at the pair one machine would decide it
//! at, and every shard stops scheduling pairs from there on. A shard that has not started yet,
//! or is down, holds the prefix back: the others go on with their own pairs until it catches
//! up (or until they have played them all).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::arena::reader::{Duplicate, LogReader, RunLines};
use crate::arena::schedule::Shard;
use crate::arena::spec::TournamentSpec;
use crate::report::Summary;
use crate::stats::sequential::Decided;

/// How often the other shards' logs are read while games finish.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// The run-wide SPRT of one shard: the summary of every shard's games read so far.
pub struct SharedSprt {
    summary: Summary,
    /// Every shard's log, this one's included, read through the checked reader: a line that
    /// is no game of the run, or a game logged twice with two lines, stops the shard; the same
    /// line twice is skipped (and said once per log).
    logs: Vec<LogReader>,
    lines: RunLines,
    /// The duplicates already said.
    said: usize,
    last_look: Option<Instant>,
}

impl SharedSprt {
    /// The shared test of `shard`, whose folder is `out`: the logs of all the run's shards,
    /// this one's included, in `out`'s parent folder as `shard-J-of-N/games.jsonl`.
    pub fn new(spec: &TournamentSpec, out: &Path, shard: Shard) -> SharedSprt {
        let parent = out.parent().unwrap_or(Path::new("."));
        let logs = (0..shard.count)
            .map(|index| {
                let folder = parent.join(Shard { index, ..shard }.folder_name());
                LogReader::new(&folder.join("games.jsonl")).missing_ok()
            })
            .collect();
        SharedSprt {
            summary: Summary::new(&spec.resolved, &spec.hash),
            logs,
            lines: RunLines::new(&spec.resolved, vec![spec.hash.clone()]),
            said: 0,
            last_look: None,
        }
    }

    /// Reads what the shards' logs gained since the last look (at most every
    /// [`LOOK_EVERY`] unless `now`), and returns the run's decision once there is one.
    pub fn look(&mut self, now: bool) -> Result<Option<Decided>, String> {
        if self.summary.decision().is_none()
            && (now || self.last_look.is_none_or(|t| t.elapsed() >= LOOK_EVERY))
        {
            self.last_look = Some(Instant::now());
            let summary = &mut self.summary;
            for log in &mut self.logs {
                log.read(&mut self.lines, |game| {
                    summary.add(&game).map(|_| ()).map_err(|e| e.0)
                })
                .map_err(|e| {
                    format!(
                        "{e} (the shards of an SPRT run must be of one spec, each in its own shard-I-of-N folder)"
                    )
                })?;
            }
        }
        Ok(self.summary.decision())
    }

    /// The logs found since the last call to hold a game logged twice with the same line
    /// (skipped): each log said once.
    pub fn new_duplicates(&mut self) -> Vec<Duplicate> {
        let all = self.lines.duplicates();
        let new = all[self.said..].to_vec();
        self.said = all.len();
        new
    }

    /// The run's decision as last read.
    pub fn decision(&self) -> Option<Decided> {
        self.summary.decision()
    }

    /// The pairs the run-wide test has counted so far.
    pub fn pairs_counted(&self) -> u64 {
        self.summary.sprt.as_ref().map_or(0, |t| t.counts().pairs())
    }
}

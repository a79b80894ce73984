//! The SPRT of a sharded run, with no server: the shards of a run share a folder (NFS, a
//! Kubernetes volume, the Slurm working directory), each appends to its own log
//! (`shard-I-of-N/games.jsonl`), and each reads the others' as they grow. The games of every
//! shard feed one [`Summary`], whose test counts the pairs in pair order — the prefix that
//! every shard has finished — so the run is decided at the pair one machine would decide it
//! at, and every shard stops scheduling pairs from there on. A shard that has not started yet,
//! or is down, holds the prefix back: the others go on with their own pairs until it catches
//! up (or until they have played them all).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::arena::log::GameLine;
use crate::arena::schedule::Shard;
use crate::arena::spec::TournamentSpec;
use crate::report::Summary;
use crate::stats::sequential::Decided;

/// How often the other shards' logs are read while games finish.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// One shard's log, read as it grows: only whole lines, each once.
struct LogTail {
    path: PathBuf,
    /// Bytes of the log read so far (up to a line end).
    offset: u64,
    /// Lines read so far.
    lines: u64,
}

impl LogTail {
    /// The games appended since the last call (none while the file does not exist).
    fn new_games(&mut self) -> Result<Vec<GameLine>, String> {
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("{}: cannot read: {e}", self.path.display())),
        };
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(self.offset))
            .and_then(|_| file.read_to_end(&mut bytes))
            .map_err(|e| format!("{}: cannot read: {e}", self.path.display()))?;
        // A line being written (or torn by a kill) waits for its end.
        let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
            return Ok(Vec::new());
        };
        let mut games = Vec::new();
        for line in bytes[..end].split(|&b| b == b'\n') {
            self.lines += 1;
            let game = std::str::from_utf8(line)
                .map_err(|e| e.to_string())
                .and_then(|l| serde_json::from_str::<GameLine>(l).map_err(|e| e.to_string()))
                .map_err(|e| format!("{}:{}: {e}", self.path.display(), self.lines))?;
            games.push(game);
        }
        self.offset += end as u64 + 1;
        Ok(games)
    }
}

/// The run-wide SPRT of one shard: the summary of every shard's games read so far.
pub struct SharedSprt {
    summary: Summary,
    tails: Vec<LogTail>,
    last_look: Option<Instant>,
}

impl SharedSprt {
    /// The shared test of `shard`, whose folder is `out`: the logs of all the run's shards,
    /// this one's included, in `out`'s parent folder as `shard-J-of-N/games.jsonl`.
    pub fn new(spec: &TournamentSpec, out: &Path, shard: Shard) -> SharedSprt {
        let parent = out.parent().unwrap_or(Path::new("."));
        let tails = (0..shard.count)
            .map(|index| LogTail {
                path: parent
                    .join(Shard { index, ..shard }.folder_name())
                    .join("games.jsonl"),
                offset: 0,
                lines: 0,
            })
            .collect();
        SharedSprt {
            summary: Summary::new(&spec.resolved, &spec.hash),
            tails,
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
            for tail in &mut self.tails {
                for game in tail.new_games()? {
                    self.summary.add(&game).map_err(|e| {
                        format!(
                            "{}: {} (the shards of an SPRT run must be of one spec, each in its own shard-I-of-N folder)",
                            tail.path.display(),
                            e.0
                        )
                    })?;
                }
            }
        }
        Ok(self.summary.decision())
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

//! The one checked reader of a run's games logs: `joute report` and `joute export`, the sharded
//! SPRT reading its siblings' logs as they grow, a run resumed on its own log. Each line must
//! be a game of the run (its spec's hash, its place in the schedule) and replay to the result
//! and margin it claims ([`super::replay`]); a game found twice is skipped when the line is the
//! same (a copied shard folder, a line written twice: said once per file) and refused when it
//! is not; a torn last line (a writer killed, or still writing) is left for later. Errors name
//! the file and the line. Lines are parsed and replayed in parallel (rayon) a batch at a time
//! and taken in file order.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::log::{GameLine, Scan};
use super::schedule::Schedule;
use super::spec::ResolvedSpec;
use crate::games::GameKind;
use crate::outputs::fnv1a;

/// Bytes read and checked at a time: a few thousand lines, parsed and replayed in parallel.
const BATCH_BYTES: usize = 2 << 20;

/// A game found again, exactly as it was, in a log: skipped, and said once per file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The log.
    pub path: PathBuf,
    /// The first such line (from 1).
    pub line: u64,
    /// Its game's id.
    pub game: u64,
    /// How many such lines the file holds so far.
    pub count: u64,
}

impl Duplicate {
    /// What to tell the user.
    pub fn describe(&self) -> String {
        format!(
            "{}:{}: game {} is logged again, the same line (a line written twice, or a copied shard folder); {} such line{} skipped",
            self.path.display(),
            self.line,
            self.game,
            self.count,
            if self.count == 1 { "" } else { "s" }
        )
    }
}

/// What the lines of a run's logs must be, and the games read so far (over every log).
pub struct RunLines {
    spec: ResolvedSpec,
    kind: GameKind,
    schedule: Schedule,
    /// The spec hashes whose games belong to the run (its own; those it extends).
    hashes: Vec<String>,
    /// Per game id, the fingerprint of the line read for it (0: none yet): 32 bits, 40 MB for
    /// the largest run; two lines of one game that differ pass for the same with odds of
    /// 2^-32, and the second is then skipped instead of refused (the first still counts).
    seen: Vec<u32>,
    duplicates: Vec<Duplicate>,
}

impl RunLines {
    /// The lines of a run of `spec` whose games carry one of `hashes` (its hash, then the
    /// hashes of the specs it extends).
    pub fn new(spec: &ResolvedSpec, hashes: Vec<String>) -> RunLines {
        let schedule = spec.schedule();
        RunLines {
            kind: spec.game_kind(),
            seen: vec![0; schedule.games() as usize],
            schedule,
            spec: spec.clone(),
            hashes,
            duplicates: Vec::new(),
        }
    }

    /// The exact duplicates found so far, one entry per file.
    pub fn duplicates(&self) -> &[Duplicate] {
        &self.duplicates
    }

    /// Whether game `id` has been read.
    pub fn contains(&self, id: u64) -> bool {
        self.seen.get(id as usize).is_some_and(|&f| f != 0)
    }

    /// Parses and checks one line (pure: run in parallel): the game and the line's
    /// fingerprint, `None` for a blank line.
    fn check(
        &self,
        path: &Path,
        number: u64,
        bytes: &[u8],
    ) -> Result<Option<(GameLine, u32)>, String> {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        let game = super::log::parse_line(path, number, text)?;
        let at = |e: String| format!("{}:{number}: {e}", path.display());
        if !self.hashes.contains(&game.spec) {
            return Err(at(format!(
                "game {} belongs to spec {}, not to this run's spec {}",
                game.id, game.spec, self.hashes[0]
            )));
        }
        game.check(&self.spec, &self.schedule).map_err(at)?;
        super::replay::check_game(&self.kind, &game).map_err(at)?;
        let hash = fnv1a(text.as_bytes());
        Ok(Some((game, ((hash >> 32) as u32 ^ hash as u32).max(1))))
    }

    /// Takes a checked game in file order: `false` for an exact duplicate (recorded), an error
    /// for a game read before with another line.
    fn take(
        &mut self,
        path: &Path,
        number: u64,
        id: u64,
        fingerprint: u32,
    ) -> Result<bool, String> {
        let slot = &mut self.seen[id as usize];
        if *slot == 0 {
            *slot = fingerprint;
            return Ok(true);
        }
        if *slot != fingerprint {
            return Err(format!(
                "{}:{number}: game {id} was read before with other content (a log edited, or shards that overlap); a game is logged once",
                path.display()
            ));
        }
        match self.duplicates.iter_mut().find(|d| d.path == path) {
            Some(d) => d.count += 1,
            None => self.duplicates.push(Duplicate {
                path: path.to_path_buf(),
                line: number,
                game: id,
                count: 1,
            }),
        }
        Ok(false)
    }
}

/// One log, read as it grows: whole lines only, each once.
pub struct LogReader {
    path: PathBuf,
    /// Bytes read so far, up to a line end.
    offset: u64,
    /// Lines read so far.
    lines: u64,
    /// A missing file reads as empty (a shard that has not started), instead of an error.
    missing_ok: bool,
}

impl LogReader {
    /// A reader of the log at `path`, from its start.
    pub fn new(path: &Path) -> LogReader {
        LogReader {
            path: path.to_path_buf(),
            offset: 0,
            lines: 0,
            missing_ok: false,
        }
    }

    /// A reader for which a missing file holds no game yet.
    pub fn missing_ok(mut self) -> LogReader {
        self.missing_ok = true;
        self
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the whole lines added since the last call, checks each against `run`, and hands
    /// every game read for the first time to `each`, in file order. The scan counts the games
    /// handed over, the bytes up to the last line end, and whether a torn line follows. An
    /// error (a line that is no game of the run, a conflicting duplicate, an error of `each`)
    /// names the file and the line.
    pub fn read(
        &mut self,
        run: &mut RunLines,
        mut each: impl FnMut(GameLine) -> Result<(), String>,
    ) -> Result<Scan, String> {
        let path = self.path.clone();
        let cannot = |e: std::io::Error| format!("{}: cannot read the log: {e}", path.display());
        let mut file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if self.missing_ok && e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Scan::default());
            }
            Err(e) => return Err(cannot(e)),
        };
        let length = file.metadata().map_err(cannot)?.len();
        if length < self.offset {
            return Err(format!(
                "{}: the log is shorter than the {} bytes read before; a log only grows",
                path.display(),
                self.offset
            ));
        }
        file.seek(SeekFrom::Start(self.offset)).map_err(cannot)?;
        let mut scan = Scan::default();
        let mut pending: Vec<u8> = Vec::new();
        let mut chunk = vec![0u8; BATCH_BYTES];
        loop {
            let n = file.read(&mut chunk).map_err(cannot)?;
            if n == 0 {
                break;
            }
            pending.extend_from_slice(&chunk[..n]);
            let Some(end) = pending.iter().rposition(|&b| b == b'\n') else {
                continue;
            };
            self.take_lines(&pending[..=end], run, &mut each, &mut scan)?;
            pending.drain(..=end);
        }
        scan.torn = !pending.is_empty();
        scan.good_bytes = self.offset;
        Ok(scan)
    }

    /// Checks the complete lines of `bytes` in parallel, then takes them in order.
    fn take_lines(
        &mut self,
        bytes: &[u8],
        run: &mut RunLines,
        each: &mut impl FnMut(GameLine) -> Result<(), String>,
        scan: &mut Scan,
    ) -> Result<(), String> {
        let first = self.lines + 1;
        let lines: Vec<&[u8]> = bytes[..bytes.len() - 1].split(|&b| b == b'\n').collect();
        let shared: &RunLines = run;
        let checked: Vec<Result<Option<(GameLine, u32)>, String>> = lines
            .par_iter()
            .enumerate()
            .map(|(i, line)| shared.check(&self.path, first + i as u64, line))
            .collect();
        for ((i, result), line) in checked.into_iter().enumerate().zip(&lines) {
            let number = first + i as u64;
            if let Some((game, fingerprint)) = result?
                && run.take(&self.path, number, game.id, fingerprint)?
            {
                each(game).map_err(|e| format!("{}:{number}: {e}", self.path.display()))?;
                scan.games += 1;
            }
            self.lines = number;
            self.offset += line.len() as u64 + 1;
        }
        Ok(())
    }
}

/// Reads the whole log at `path` once against `run` ([`LogReader::read`]).
pub fn read_log(
    path: &Path,
    run: &mut RunLines,
    each: impl FnMut(GameLine) -> Result<(), String>,
) -> Result<Scan, String> {
    LogReader::new(path).read(run, each)
}

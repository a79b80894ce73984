//! The games log (`games.jsonl`) and the run record (`run.json`) of an output folder.
//!
//! The log is append-only: one JSON object per finished game ([`GameLine`]), written with one
//! `write` and flushed as the game finishes, so a killed run loses at most the games in flight.
//! A run killed in the middle of a write leaves a torn last line (no newline at its end): readers
//! ignore it and a resumed run cuts it off before appending. A complete line that does not parse
//! is corruption, reported with its line number.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::schedule::{Schedule, Shard};
use super::spec::ResolvedSpec;

/// One finished game, as a line of `games.jsonl` (the default: an empty line, for tests to fill).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    /// Game id (see the schedule).
    pub id: u64,
    /// Opening pair id: `id / 2`.
    pub pair: u64,
    /// Round, from 0.
    pub round: u32,
    /// Index of the opening in the run's list.
    pub opening_index: u64,
    /// The opening's moves.
    pub opening: Vec<String>,
    /// The engine that moved first.
    pub first: String,
    /// The engine that moved second.
    pub second: String,
    /// Points of `first`: 1, 0.5 or 0.
    pub score: f64,
    /// `1-0`, `1/2-1/2` or `0-1`, from `first`'s side.
    pub result: String,
    /// The game's final score from `first`'s point of view (Othello: disc difference).
    pub margin: i32,
    /// How the game ended: `normal` (by the rules), `adjudication`, or the failure of the
    /// side that lost: `timeout` (its clock), `stall` (no answer off the clock), `illegal-move`
    /// (an answer that is no legal move), `crash` (its program ended or broke its protocol).
    pub termination: String,
    /// What happened, when the game did not end by the rules: the adjudicator's reason, the
    /// failure, or the line the engine wrote instead of a legal move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The solver's verdict when the game ended by perfect-knowledge adjudication (spec
    /// `[adjudication]`): its value, the position solved and its ply (absent otherwise, and in
    /// logs written before adjudication existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<super::adjudication::AdjudicationLine>,
    /// The engines' moves after the opening.
    pub moves: Vec<String>,
    /// Plies the engines played (`moves.len()`).
    pub plies: usize,
    /// Positions searched by `first` and by `second`.
    pub nodes: [u64; 2],
    /// Some move was cut by a time limit, or a side lost on time (`termination: "timeout"`):
    /// the game depends on the machine.
    pub timed_out: bool,
    /// Moves cut by a time limit, of `first` and of `second` (logs written before joute
    /// counted them read as none).
    #[serde(default)]
    pub timeouts: [u32; 2],
    /// Microseconds each move took, as the referee measured them: every move of every game
    /// (wall-clock time: it differs between identical runs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_us: Vec<u64>,
    /// Milliseconds each move took, in logs written before `move_us` (games on a clock only);
    /// [`GameLine::move_micros`] reads either.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_ms: Vec<u64>,
    /// Positions each move's search visited, as its engine counted them (`null`: it did not
    /// say); absent when no move has a count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_nodes: Vec<Option<u64>>,
    /// Depth of each move's deepest completed iteration (0: the engine did not say).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_depth: Vec<u32>,
    /// Selective depth of each move (0: none), present when some move of the game has one
    /// (`mcts`, an outside program that reports it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_seldepth: Vec<u32>,
    /// CPU microseconds the mover used during each move — a built-in engine's thread, an
    /// outside program's process group — or `null` where it was not measured; absent when no
    /// move was (wall-clock time: it differs between identical runs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_cpu_us: Vec<Option<u64>>,
    /// Milliseconds left on the mover's clock after each move, increment added (games on a
    /// game clock).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock_ms: Vec<u64>,
    /// The score each move came with, from its mover's point of view in the engine's own
    /// units (`null` for none), when the spec adjudicates on scores
    /// (`[adjudication.resign]`, `[adjudication.draw]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scores: Vec<Option<i32>>,
    /// Why the game may not replay move for move from its seed: `clock`, `time limit` (a
    /// built-in engine's search was cut by its time), `outside program 'NAME'` (it is
    /// reproducible only if the program is deterministic at a fixed depth or node count).
    /// Empty: it replays bit for bit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_reproducible: Vec<String>,
    /// The game's seed.
    pub seed: u64,
    /// Hash of the spec the game belongs to.
    pub spec: String,
    /// Wall-clock seconds (the one field that differs between identical runs).
    pub seconds: f64,
}

impl GameLine {
    /// The fields that hold the machine's timings: they differ between identical runs, and
    /// everything else replays bit for bit.
    pub const TIMING_FIELDS: [&'static str; 3] = ["seconds", "move_us", "move_cpu_us"];

    /// The per-move arrays: one entry per element of `moves` each, when present (`move_ms` in
    /// logs written before `move_us`).
    pub const PER_MOVE_FIELDS: [&'static str; 6] = [
        "move_us",
        "move_ms",
        "move_nodes",
        "move_depth",
        "move_seldepth",
        "move_cpu_us",
    ];

    /// The line without the machine's timings ([`GameLine::TIMING_FIELDS`] emptied): what
    /// replays bit for bit.
    pub fn untimed(mut self) -> GameLine {
        self.seconds = 0.0;
        self.move_us.clear();
        self.move_cpu_us.clear();
        self
    }

    /// Microseconds of each move, from `move_us`, or from `move_ms` in older logs; empty when
    /// the log has neither.
    pub fn move_micros(&self) -> Vec<u64> {
        if self.move_us.is_empty() {
            self.move_ms
                .iter()
                .map(|ms| ms.saturating_mul(1000))
                .collect()
        } else {
            self.move_us.clone()
        }
    }

    /// Checks the line against the run it claims to belong to: the id within the schedule, and
    /// the pair, round, opening, engines and colours the schedule gives that id; a score of 1,
    /// ½ or 0; as many plies as moves. A log edited by hand, or one of another run, is refused
    /// here rather than counted wrongly.
    pub fn check(&self, spec: &ResolvedSpec, schedule: &Schedule) -> Result<(), String> {
        let total = schedule.games();
        if self.id >= total {
            return Err(format!(
                "game id {} is beyond the run's {total} games",
                self.id
            ));
        }
        let slot = schedule.slot(self.id);
        let bad = |what: &str| {
            Err(format!(
                "game {}: {what} does not match the run's schedule",
                self.id
            ))
        };
        if self.pair != slot.pair {
            return bad("pair");
        }
        if self.round != slot.round || self.opening_index != slot.opening {
            return bad("round or opening_index");
        }
        let opening = spec.opening_moves.get(slot.opening as usize);
        if !opening.is_some_and(|o| {
            super::openings::moves_of(o).eq(self.opening.iter().map(String::as_str))
        }) {
            return bad("opening");
        }
        if self.first != spec.engines[slot.first].name
            || self.second != spec.engines[slot.second].name
        {
            return bad("first or second engine");
        }
        if !crate::arena::game::Termination::NAMES.contains(&self.termination.as_str()) {
            return Err(format!(
                "game {}: termination '{}' is not one of {}",
                self.id,
                self.termination,
                crate::arena::game::Termination::NAMES.join(", ")
            ));
        }
        if ![0.0, 0.5, 1.0].contains(&self.score) {
            return Err(format!(
                "game {}: score {} is not 1, 0.5 or 0",
                self.id, self.score
            ));
        }
        if self.timeouts.iter().map(|&t| t as usize).sum::<usize>() > self.plies {
            return Err(format!(
                "game {}: timeouts {:?} exceed its {} plies",
                self.id, self.timeouts, self.plies
            ));
        }
        if self.plies != self.moves.len() {
            return Err(format!(
                "game {}: plies {} but {} moves",
                self.id,
                self.plies,
                self.moves.len()
            ));
        }
        let lengths = [
            self.move_us.len(),
            self.move_ms.len(),
            self.move_nodes.len(),
            self.move_depth.len(),
            self.move_seldepth.len(),
            self.move_cpu_us.len(),
        ];
        let per_move = Self::PER_MOVE_FIELDS.iter().zip(lengths);
        if let Some((key, n)) = per_move
            .into_iter()
            .find(|(_, n)| *n != 0 && *n != self.plies)
        {
            return Err(format!(
                "game {}: {key} has {n} entries for {} moves",
                self.id, self.plies
            ));
        }
        Ok(())
    }
}

/// The ids of the games a log (or a set of logs) holds, one bit each, for catching a game
/// recorded twice.
#[derive(Clone, Debug)]
pub struct IdSet {
    words: Vec<u64>,
}

impl IdSet {
    /// An empty set for the ids `0..games`.
    pub fn new(games: u64) -> IdSet {
        IdSet {
            words: vec![0; games.div_ceil(64) as usize],
        }
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: u64) -> bool {
        self.words
            .get((id / 64) as usize)
            .is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    /// Adds `id`; an error when it is there already or beyond the set's range.
    pub fn insert(&mut self, id: u64) -> Result<(), String> {
        let Some(word) = self.words.get_mut((id / 64) as usize) else {
            return Err(format!("game id {id} is beyond the run's games"));
        };
        if *word >> (id % 64) & 1 == 1 {
            return Err(format!("game id {id} appears twice"));
        }
        *word |= 1 << (id % 64);
        Ok(())
    }
}

/// One invocation of `joute run` on an output folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Start, Unix seconds.
    pub started_unix: f64,
    /// Start, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub started: String,
    /// End, Unix seconds; `None` while running (or when killed).
    pub finished_unix: Option<f64>,
    /// End, UTC.
    pub finished: Option<String>,
    /// Worker threads.
    pub threads: usize,
    /// Games this session played.
    pub games_played: u64,
    /// Peak resident memory of the process, KiB (Linux).
    pub peak_rss_kib: Option<u64>,
    /// How the session ended: `complete` (every game played), `decided` (the SPRT stopped
    /// it), `interrupted` (Ctrl-C or a termination signal); absent while it runs or when it
    /// was killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

/// `run.json`: the resolved spec, its hash, joute's version, the seed and the sessions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// joute's version.
    pub joute_version: String,
    /// Hash of the resolved spec.
    pub spec_hash: String,
    /// The seed.
    pub seed: u64,
    /// The shard this folder holds, if the run was split.
    pub shard: Option<Shard>,
    /// Games scheduled in this folder (the shard's share).
    pub games_scheduled: u64,
    /// Every invocation, first to last.
    pub sessions: Vec<Session>,
    /// Hashes of earlier specs of this folder that the current spec extends (more openings
    /// or rounds, nothing else changed): their games are this run's games too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extends: Vec<String>,
    /// Every change of spec that kept the run's games, oldest first: what it added, when.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additions: Vec<Addition>,
    /// The files of the folder joute wrote, relative to it (what `--fresh` removes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// The names outside engines gave themselves at their handshake (GTP `name`, NBoard `set
    /// myname`, Gomocup `ABOUT`, the line protocol's `ok name=`), by the spec's engine name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reported_names: BTreeMap<String, String>,
    /// What held each outside engine at the run's start, by the spec's engine name, one line
    /// each: its confinement and limits as the machine applied them, pausing, restarts
    /// (`docs/protocols.md`, "Untrusted programs").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub engines_held: BTreeMap<String, Vec<String>>,
    /// The resolved spec.
    pub spec: ResolvedSpec,
}

/// A spec that carried on a run and added to it (engines, openings or rounds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Addition {
    /// When the run was opened with it: Unix seconds.
    pub at_unix: f64,
    /// The same, as `YYYY-MM-DDTHH:MM:SSZ`.
    pub at: String,
    /// The spec's hash before.
    pub from: String,
    /// The spec's hash after.
    pub to: String,
    /// The engines it added (none: openings or rounds).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<String>,
    /// The games it added to the schedule.
    pub games: u64,
}

impl RunInfo {
    /// Reads `run.json`.
    pub fn load(path: &Path) -> Result<RunInfo, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read the run record: {e}", path.display()))?;
        let info: RunInfo = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}:{}:{}: not a joute run record: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        })?;
        // The record must be what the run wrote: its spec intact, hashing to the recorded hash.
        info.spec
            .check()
            .map_err(|e| format!("{}: key 'spec': {e}", path.display()))?;
        let hash = info.spec.hash();
        if hash != info.spec_hash {
            return Err(format!(
                "{}: key 'spec_hash': the recorded spec hashes to {hash}, not {}; the file was edited",
                path.display(),
                info.spec_hash
            ));
        }
        Ok(info)
    }

    /// Writes `run.json` atomically (a temporary file renamed over it), its list of files
    /// brought up to date with those this process wrote in the folder.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new(""));
        let record = RunInfo {
            files: crate::outputs::written_under(dir, &self.files),
            ..self.clone()
        };
        let text = serde_json::to_string_pretty(&record).expect("a run record serialises");
        crate::outputs::write_atomically(path, text.as_bytes())
    }
}

/// Creates a run's output folder `out` and its parents (nothing when it exists); the refusal
/// names the folder.
pub fn create_out_folder(out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out)
        .map_err(|e| format!("{}: cannot create the output folder: {e}", out.display()))
}

/// What a scan of a log found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scan {
    /// Complete lines read.
    pub games: u64,
    /// Bytes up to the end of the last complete line.
    pub good_bytes: u64,
    /// A torn last line (no newline) was found and ignored.
    pub torn: bool,
}

/// One line of the log at `path` (line `number`) as a game; an error names the file, the line
/// and the column.
pub(crate) fn parse_line(path: &Path, number: u64, text: &str) -> Result<GameLine, String> {
    serde_json::from_str(text).map_err(|e| {
        format!(
            "{}:{number}:{}: not a game record: {e}",
            path.display(),
            e.column()
        )
    })
}

/// Reads the log at `path`, handing every game to `each` in file order, unchecked (the run's
/// logs are read through [`super::reader`], which checks every line); a torn last line is
/// ignored (and reported in [`Scan::torn`]). Memory stays bounded by one line.
pub fn scan_log(
    path: &Path,
    each: impl FnMut(GameLine) -> Result<(), String>,
) -> Result<Scan, String> {
    scan_log_prefix(path, u64::MAX, each)
}

/// [`scan_log`] over the first `limit` bytes of the log: the lines a checked read covered,
/// read again.
pub fn scan_log_prefix(
    path: &Path,
    limit: u64,
    mut each: impl FnMut(GameLine) -> Result<(), String>,
) -> Result<Scan, String> {
    use std::io::Read;
    let file =
        File::open(path).map_err(|e| format!("{}: cannot read the log: {e}", path.display()))?;
    let mut reader = BufReader::new(file.take(limit));
    let mut scan = Scan::default();
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("{}: cannot read the log: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        number += 1;
        if line.last() != Some(&b'\n') {
            scan.torn = true;
            break;
        }
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            scan.good_bytes += n as u64;
            continue;
        }
        let game = parse_line(path, number, &text)?;
        each(game).map_err(|e| format!("{}:{number}: {e}", path.display()))?;
        scan.games += 1;
        scan.good_bytes += n as u64;
    }
    Ok(scan)
}

/// A log held for reading: a shared lock that keeps a new writer from starting while it is
/// read, or, when a run is writing it now, no lock and [`ReadLock::live`] set (readers then
/// see a consistent prefix: whole lines, a torn last one ignored).
pub struct ReadLock {
    _file: File,
    /// A run was writing the log when it was opened.
    pub live: bool,
}

impl ReadLock {
    /// Opens `path` and takes a shared lock on it if no writer holds it.
    pub fn new(path: &Path) -> std::io::Result<ReadLock> {
        let file = File::open(path)?;
        let live = match file.try_lock_shared() {
            Ok(()) => false,
            Err(std::fs::TryLockError::WouldBlock) => true,
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        };
        Ok(ReadLock { _file: file, live })
    }
}

/// Appends games to a log, one flushed line each.
pub struct LogWriter {
    file: File,
    buffer: Vec<u8>,
}

impl LogWriter {
    /// Opens `path` for appending (creating it when missing) and takes an exclusive lock on it,
    /// so that two processes never append to one log (a requeued cluster task racing its
    /// predecessor, say). `Err` with kind `WouldBlock` when another process holds the lock.
    pub fn lock(path: &Path) -> std::io::Result<LogWriter> {
        let file = crate::outputs::open_append(path)?;
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                format!("another process is writing to {}", path.display()),
            ),
            std::fs::TryLockError::Error(e) => e,
        })?;
        Ok(LogWriter {
            file,
            buffer: Vec::with_capacity(4096),
        })
    }

    /// Cuts the log to `keep_bytes` (dropping a torn last line) before appending.
    pub fn cut(&mut self, keep_bytes: u64) -> std::io::Result<()> {
        if self.file.metadata()?.len() > keep_bytes {
            self.file.set_len(keep_bytes)?;
        }
        Ok(())
    }

    /// Appends one game and flushes it to the operating system.
    pub fn append(&mut self, game: &GameLine) -> std::io::Result<()> {
        self.append_json(game)
    }

    /// Appends any value as one JSON line and flushes it (the tuning history uses this).
    pub fn append_json(&mut self, value: &impl serde::Serialize) -> std::io::Result<()> {
        self.buffer.clear();
        serde_json::to_writer(&mut self.buffer, value).expect("a log line serialises");
        self.buffer.push(b'\n');
        self.file.write_all(&self.buffer)?;
        self.file.flush()
    }
}

/// Now, as Unix seconds and as a UTC timestamp `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now() -> (f64, String) {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    (unix, utc(unix))
}

/// A Unix time as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian calendar).
pub fn utc(unix: f64) -> String {
    let secs = unix.floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Peak resident memory of this process in KiB, from `/proc/self/status` (`None` elsewhere).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    fn line(id: u64) -> GameLine {
        GameLine {
            id,
            pair: id / 2,
            round: 0,
            opening_index: 0,
            opening: vec!["d3".into()],
            first: "a".into(),
            second: "b".into(),
            score: 0.5,
            result: "1/2-1/2".into(),
            margin: 0,
            termination: "normal".into(),
            moves: vec![],
            plies: 0,
            nodes: [1, 2],
            timed_out: false,
            timeouts: [0, 0],
            detail: None,
            adjudication: None,
            move_us: Vec::new(),
            move_ms: Vec::new(),
            move_nodes: Vec::new(),
            move_depth: Vec::new(),
            move_seldepth: Vec::new(),
            move_cpu_us: Vec::new(),
            clock_ms: Vec::new(),
            scores: Vec::new(),
            not_reproducible: Vec::new(),
            seed: 9,
            spec: "x".into(),
            seconds: 0.1,
        }
    }

    #[test]
    fn utc_matches_known_dates() {
        assert_eq!(utc(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400.0), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_795_219_199.0), "2026-11-20T23:59:59Z");
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_cut_on_append() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let path = dir.join("games.jsonl");
        let _ = std::fs::remove_file(&path);
        let mut w = LogWriter::lock(&path).unwrap();
        w.append(&line(0)).unwrap();
        w.append(&line(1)).unwrap();
        drop(w);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"id\":2,\"pa").unwrap();
        drop(f);
        let mut ids = vec![];
        let scan = scan_log(&path, |g| {
            ids.push(g.id);
            Ok(())
        })
        .unwrap();
        assert_eq!(ids, vec![0, 1]);
        assert!(scan.torn);
        let mut w = LogWriter::lock(&path).unwrap();
        assert!(
            LogWriter::lock(&path).is_err(),
            "a second writer must be refused"
        );
        w.cut(scan.good_bytes).unwrap();
        w.append(&line(2)).unwrap();
        drop(w);
        let mut ids = vec![];
        let scan = scan_log(&path, |g| {
            ids.push(g.id);
            Ok(())
        })
        .unwrap();
        assert_eq!(ids, vec![0, 1, 2]);
        assert!(!scan.torn);
        // A broken complete line is corruption.
        std::fs::write(&path, "{\"id\":0}\n").unwrap();
        let err = scan_log(&path, |_| Ok(())).unwrap_err();
        assert!(err.contains("games.jsonl:1:"), "{err}");
    }
}

//! An outside engine's stderr log (`engines/NAME.log`), capped: a program may write gigabytes
//! of stderr, and the log keeps what matters — its start (how the program came up, the first
//! complaints) and its end (what it said before it failed) — at most [`EngineLog::cap`] bytes in
//! all, with one line between the two saying how many bytes were dropped there:
//!
//! ```text
//! [4242] engine starting
//! ...                                  the first half of the cap
//! [joute] ...  1234567 bytes of stderr dropped here ...
//! ...                                  the last lines, at most half the cap
//! ```
//!
//! Every process of one engine in a run (one a worker, restarted after a failure) writes to the
//! same log through one writer, a line at a time. The log is opened without following a link,
//! and a resumed run goes on with the log as it was (its marker found again).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// The default cap of an engine's log: 64 MiB.
pub const DEFAULT_CAP: u64 = 64 << 20;

/// The smallest cap, 1 MiB: room for the marker and some of the longest lines an engine may
/// write on each side.
pub const MIN_CAP: u64 = 1 << 20;

/// How far back from the head's cap a line end (or the marker) is looked for: more than the
/// longest line an engine may write (`process::MAX_LINE`, 64 KiB; a test there checks it).
pub const LOOK_BACK: u64 = (64 << 10) + 64;

/// The start of the marker line.
const MARKER_START: &[u8] = b"[joute] ";

/// Where an engine's stderr goes, and the most the file may hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineLog {
    /// The file.
    pub path: PathBuf,
    /// Its cap in bytes (at least [`MIN_CAP`]).
    pub cap: u64,
}

impl EngineLog {
    /// The log at `path`, with the default cap.
    pub fn new(path: PathBuf) -> EngineLog {
        EngineLog {
            path,
            cap: DEFAULT_CAP,
        }
    }

    /// The writer of this log, shared by every process writing to it in this run: opened (or
    /// created) at the first call.
    pub fn open(&self) -> std::io::Result<Arc<Mutex<CappedLog>>> {
        static OPEN: OnceLock<Mutex<HashMap<PathBuf, Weak<Mutex<CappedLog>>>>> = OnceLock::new();
        let mut open = OPEN
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        open.retain(|_, w| w.strong_count() > 0);
        if let Some(log) = open.get(&self.path).and_then(Weak::upgrade) {
            return Ok(log);
        }
        let log = Arc::new(Mutex::new(CappedLog::open(&self.path, self.cap)?));
        open.insert(self.path.clone(), Arc::downgrade(&log));
        Ok(log)
    }
}

/// The writer of a capped log.
pub struct CappedLog {
    file: File,
    /// The file's length (the writer is the only one).
    size: u64,
    head_cap: u64,
    tail_cap: u64,
    /// The marker's offset and the tail's start, once the head is full.
    marker: Option<(u64, u64)>,
    /// Bytes dropped between the head and the tail.
    dropped: u64,
}

impl CappedLog {
    /// Opens (or creates) the log at `path`, refusing a symbolic link, and finds where a
    /// previous session left it.
    pub fn open(path: &Path, cap: u64) -> std::io::Result<CappedLog> {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW);
        }
        let file = options.open(path)?;
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        let cap = cap.max(MIN_CAP);
        let mut log = CappedLog {
            size: file.metadata()?.len(),
            file,
            head_cap: cap / 2,
            tail_cap: cap - cap / 2 - marker_line(0).len() as u64,
            marker: None,
            dropped: 0,
        };
        log.find_marker()?;
        if log.marker.is_none() && log.size > log.head_cap {
            // A log written with a larger cap (or by an earlier joute): cut to this one.
            let head_end = log.line_end_before(log.head_cap)?;
            log.start_tail(head_end)?;
        }
        log.compact_if_full()?;
        Ok(log)
    }

    /// Appends one line (its end included), keeping the file within the cap.
    pub fn write_line(&mut self, line: &[u8]) -> std::io::Result<()> {
        if self.marker.is_none() && self.size + line.len() as u64 > self.head_cap {
            self.start_tail(self.size)?;
        }
        self.file.write_all_at(line, self.size)?;
        self.size += line.len() as u64;
        self.compact_if_full()
    }

    /// Bytes dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Ends the head at `head_end` with the marker; the tail is what followed it.
    fn start_tail(&mut self, head_end: u64) -> std::io::Result<()> {
        let marker = marker_line(0);
        let tail = head_end + marker.len() as u64;
        if self.size > head_end {
            // What followed the head's end (an old log cut to this cap): its last lines become
            // the tail.
            let from =
                (head_end + marker.len() as u64).max(self.size.saturating_sub(self.tail_cap / 2));
            let keep_from = self.line_start_after(from.min(self.size))?;
            self.dropped += keep_from - head_end;
            self.move_tail(keep_from, tail)?;
        } else {
            self.size = tail;
        }
        self.marker = Some((head_end, tail));
        self.write_marker()
    }

    /// Drops the oldest half of the tail when the tail passes its cap.
    fn compact_if_full(&mut self) -> std::io::Result<()> {
        let Some((_, tail)) = self.marker else {
            return Ok(());
        };
        if self.size - tail <= self.tail_cap {
            return Ok(());
        }
        let keep_from = self.line_start_after(self.size - self.tail_cap / 2)?;
        self.dropped += keep_from - tail;
        self.move_tail(keep_from, tail)?;
        self.write_marker()
    }

    /// Moves the bytes from `from` to the end down to `to`, and ends the file there.
    fn move_tail(&mut self, from: u64, to: u64) -> std::io::Result<()> {
        let mut kept = vec![0u8; (self.size - from) as usize];
        self.file.read_exact_at(&mut kept, from)?;
        self.file.write_all_at(&kept, to)?;
        self.size = to + kept.len() as u64;
        self.file.set_len(self.size)
    }

    fn write_marker(&mut self) -> std::io::Result<()> {
        let (at, _) = self.marker.expect("a marker");
        self.file.write_all_at(&marker_line(self.dropped), at)
    }

    /// The offset just after the last line end at or before `limit` (0 when there is none).
    fn line_end_before(&self, limit: u64) -> std::io::Result<u64> {
        let from = limit.saturating_sub(LOOK_BACK);
        let mut bytes = vec![0u8; (limit - from) as usize];
        self.file.read_exact_at(&mut bytes, from)?;
        Ok(bytes
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(from, |i| from + i as u64 + 1))
    }

    /// The start of the first whole line at or after `at` (the end of the file when none).
    fn line_start_after(&self, at: u64) -> std::io::Result<u64> {
        if at == 0 {
            return Ok(0);
        }
        let mut previous = [0u8];
        self.file.read_exact_at(&mut previous, at - 1)?;
        if previous[0] == b'\n' {
            return Ok(at);
        }
        let mut chunk = vec![0u8; 64 << 10];
        let mut offset = at;
        while offset < self.size {
            let n = chunk.len().min((self.size - offset) as usize);
            self.file.read_exact_at(&mut chunk[..n], offset)?;
            if let Some(i) = chunk[..n].iter().position(|&b| b == b'\n') {
                return Ok(offset + i as u64 + 1);
            }
            offset += n as u64;
        }
        Ok(self.size)
    }

    /// Finds the marker a previous session wrote: it starts at the head's end, a line end
    /// within a line's length of the head's cap.
    fn find_marker(&mut self) -> std::io::Result<()> {
        let width = marker_line(0).len() as u64;
        let from = self.head_cap.saturating_sub(LOOK_BACK);
        let to = (self.head_cap + width).min(self.size);
        if to <= from {
            return Ok(());
        }
        let mut bytes = vec![0u8; (to - from) as usize];
        self.file.read_exact_at(&mut bytes, from)?;
        let starts = (0..bytes.len()).filter(|&i| i == 0 || bytes[i - 1] == b'\n');
        for i in starts {
            let at = from + i as u64;
            if at + width > self.size {
                break;
            }
            let mut line = vec![0u8; width as usize];
            self.file.read_exact_at(&mut line, at)?;
            if let Some(dropped) = parse_marker(&line) {
                self.marker = Some((at, at + width));
                self.dropped = dropped;
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The marker line, of one width whatever the count.
fn marker_line(dropped: u64) -> Vec<u8> {
    format!(
        "[joute] {dropped:>20} bytes of stderr dropped here: the log keeps the program's first and last lines (spec [output] engine_log_mib)\n"
    )
    .into_bytes()
}

/// The count of a marker line, if `line` is one.
fn parse_marker(line: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(line.strip_prefix(MARKER_START)?).ok()?;
    let (count, rest) = text.trim_start().split_once(' ')?;
    (rest.starts_with("bytes of stderr dropped here") && line.len() == marker_line(0).len())
        .then(|| count.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(i: usize) -> Vec<u8> {
        format!("[{}] line {i:06} {}\n", 100 + i % 3, "x".repeat(i % 200)).into_bytes()
    }

    #[test]
    fn a_flood_keeps_its_start_and_its_end_within_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.log");
        let cap = MIN_CAP;
        let mut log = CappedLog::open(&path, cap).unwrap();
        let lines: Vec<Vec<u8>> = (0..30_000).map(line).collect();
        let total: usize = lines.iter().map(Vec::len).sum();
        for l in &lines {
            log.write_line(l).unwrap();
            assert!(log.size <= cap, "{} > {cap}", log.size);
        }
        let text = std::fs::read(&path).unwrap();
        assert_eq!(text.len() as u64, log.size);
        assert!(text.len() as u64 <= cap && text.len() as u64 > cap / 2);
        // The start, whole lines, then the marker with the count, then the end.
        assert!(text.starts_with(&lines[0]));
        assert!(text.ends_with(&lines[lines.len() - 1]));
        let text = String::from_utf8(text).unwrap();
        let markers: Vec<&str> = text.lines().filter(|l| l.starts_with("[joute]")).collect();
        assert_eq!(markers.len(), 1);
        let kept = text.len() - markers[0].len() - 1;
        assert_eq!(log.dropped() as usize, total - kept);
        assert!(markers[0].contains(&format!(" {} bytes of stderr dropped here", total - kept)));
        // Every other line is a line written, in order.
        let written: Vec<String> = lines
            .iter()
            .map(|l| String::from_utf8_lossy(&l[..l.len() - 1]).into_owned())
            .collect();
        let mut at = 0;
        for l in text.lines().filter(|l| !l.starts_with("[joute]")) {
            at += 1 + written[at..]
                .iter()
                .position(|w| w == l)
                .expect("a line written");
        }
        // A resumed run goes on from the marker.
        drop(log);
        let mut again = CappedLog::open(&path, cap).unwrap();
        assert_eq!(again.dropped() as usize, total - kept);
        for l in &lines[..5000] {
            again.write_line(l).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().filter(|l| l.starts_with("[joute]")).count(), 1);
        assert!(text.len() as u64 <= cap);
        assert!(text.starts_with(std::str::from_utf8(&lines[0]).unwrap()));
    }

    #[test]
    fn a_small_log_is_left_alone_and_a_large_old_one_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.log");
        let mut log = CappedLog::open(&path, MIN_CAP).unwrap();
        log.write_line(b"[1] hello\n").unwrap();
        drop(log);
        let mut log = CappedLog::open(&path, MIN_CAP).unwrap();
        log.write_line(b"[2] again\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[1] hello\n[2] again\n"
        );
        // A log that an earlier joute let grow: cut to the cap when opened.
        let big: Vec<u8> = (0..30_000).flat_map(line).collect();
        std::fs::write(&path, &big).unwrap();
        let log = CappedLog::open(&path, MIN_CAP).unwrap();
        let text = std::fs::read(&path).unwrap();
        assert!(text.len() as u64 <= MIN_CAP);
        assert!(text.starts_with(&line(0)) && text.ends_with(&line(29_999)));
        assert_eq!(
            log.dropped() as usize,
            big.len() - text.len() + marker_line(0).len()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "mine").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("e.log")).unwrap();
        assert!(CappedLog::open(&dir.path().join("e.log"), MIN_CAP).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
    }
}

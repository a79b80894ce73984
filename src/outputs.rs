//! The files joute writes, written so that nothing of the user's is harmed: every file but a
//! log goes through a temporary file created exclusively beside it (never through a name
//! someone planted, a symbolic link included) and renamed over it; logs and lock files are
//! opened without following a symbolic link; only joute's own temporaries are ever removed; and
//! an output is checked before anything is written: never one of the command's inputs, never a
//! file of a run folder, never an existing file without `--force`, never a folder of other files
//! without `--force`.
//!
//! The lowest layer: everything else writes through it.

use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The end of every temporary file's name: `.NAME.PID.RANDOM.joute-tmp`, so that a stale one is
/// known for joute's by its name, and the process that wrote it by its number.
pub const TEMPORARY_SUFFIX: &str = ".joute-tmp";

/// The longest file name most file systems take, in bytes.
pub const MAX_FILE_NAME_BYTES: usize = 255;

/// The files that make a folder a run's: a tournament's record and log, a tuning run's
/// checkpoint and history. None of them is ever an output of another command.
pub const RUN_FILES: [&str; 4] = [
    "run.json",
    "games.jsonl",
    "checkpoint.json",
    "history.jsonl",
];

/// What the HTML pages joute writes carry in their head, so that a folder holding one is known
/// for a joute report's.
pub const GENERATOR_META: &str = r#"<meta name="generator" content="joute">"#;

/// FNV-1a, 64 bits, of `bytes`: the spec hash's function, and a line's fingerprint.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Writes `bytes` to `path` through a temporary file synced to disk and renamed over it, so that
/// readers see the old content or the new, never a mix.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, true, |out| out.write_all(bytes))
}

/// Writes `path` through a temporary file beside it: created exclusively (`O_CREAT|O_EXCL`: a
/// name that exists, a symbolic link included, is never opened, and another name is drawn),
/// filled by `write`, synced when `sync` (a file rewritten many times a second may skip it: a
/// killed process loses nothing, a power cut the last versions), and renamed over `path`
/// (which replaces a symbolic link there, never its target). On failure the temporary file is
/// removed.
pub fn write_with(
    path: &Path,
    sync: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let tmp = write_temporary(path, sync, write)?;
    tmp.persist(path).map_err(|e| e.error)?;
    note_written(path);
    Ok(())
}

/// Creates `path` holding `bytes` if no file is there, whole or not at all (a temporary file
/// linked to the name, which fails when the name exists: two processes racing to create one
/// file find one winner, and readers never see it half written). `Ok(false)` when `path`
/// exists (it is left alone).
pub fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    let tmp = write_temporary(path, true, |out| out.write_all(bytes))?;
    match tmp.persist_noclobber(path) {
        Ok(_) => {
            note_written(path);
            Ok(true)
        }
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e.error),
    }
}

/// A temporary file beside `path` (see [`write_with`]) filled by `write`, synced when `sync`.
fn write_temporary(
    path: &Path,
    sync: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The name is cut so that the temporary's stays within the file system's limit.
    let base = cut_bytes(&base, MAX_FILE_NAME_BYTES - 40);
    let prefix = format!(".{base}.{}.", std::process::id());
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(&prefix)
        .suffix(TEMPORARY_SUFFIX)
        .rand_bytes(6);
    // A temporary file is created 0600; the output it becomes is the user's to share: created
    // 0666 less the umask, as any program's file (a report copied to a web folder must be
    // readable there).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder
        .tempfile_in(dir)
        .map_err(|e| temporary_error(e, dir))?;
    let mut out = BufWriter::new(tmp);
    write(&mut out)?;
    let tmp = out.into_inner().map_err(|e| e.into_error())?;
    if sync {
        tmp.as_file().sync_all()?;
    }
    Ok(tmp)
}

/// The error of creating a temporary file in `dir`, said of the user's folder and never of the
/// temporary's name (which the user never gave): "folder D/ does not exist" when it is missing,
/// else the system's own cause without the `at path ".NAME.PID.RANDOM.joute-tmp"` `tempfile`
/// adds.
fn temporary_error(e: std::io::Error, dir: &Path) -> std::io::Error {
    if !dir.is_dir() {
        return std::io::Error::new(e.kind(), missing_folder(dir));
    }
    let kind = e.kind();
    // `tempfile` wraps the system's error with the temporary's path; its source is the cause.
    let cause = e
        .get_ref()
        .and_then(|inner| inner.source())
        .map(ToString::to_string);
    match cause {
        Some(cause) => std::io::Error::new(kind, cause),
        None => e,
    }
}

/// "folder D/ does not exist" (or "D is not a folder") for a missing output folder `dir`.
fn missing_folder(dir: &Path) -> String {
    let shown = dir.display().to_string();
    let slash = if shown.ends_with('/') { "" } else { "/" };
    if dir.exists() {
        format!("{shown} is not a folder")
    } else {
        format!("folder {shown}{slash} does not exist")
    }
}

/// Opens `path` for appending, creating it when missing, refusing a symbolic link
/// (`O_NOFOLLOW`) or anything but a regular file: logs and lock files.
pub fn open_append(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let file = options.open(path).map_err(|e| {
        if path.is_symlink() {
            std::io::Error::new(
                e.kind(),
                "it is a symbolic link, and joute writes no log through one",
            )
        } else {
            e
        }
    })?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    note_written(path);
    Ok(file)
}

/// The files this process wrote (through [`write_with`], [`write_new`], [`open_append`]): a
/// run record lists those of its folder ([`written_under`]), which is what `--fresh` removes.
static WRITTEN: std::sync::Mutex<std::collections::BTreeSet<PathBuf>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

fn note_written(path: &Path) {
    if let Ok(mut written) = WRITTEN.lock() {
        written.insert(path.to_path_buf());
    }
}

/// The files under `dir` this process wrote, relative to it, joined to `listed` (a record's
/// earlier list): what a run record saved in `dir` lists.
pub fn written_under(dir: &Path, listed: &[String]) -> Vec<String> {
    let mut all: std::collections::BTreeSet<String> = listed.iter().cloned().collect();
    if let Ok(written) = WRITTEN.lock() {
        for path in written.iter() {
            if let Ok(relative) = path.strip_prefix(dir)
                && let Some(text) = relative.to_str()
                && !text.is_empty()
            {
                all.insert(text.to_string());
            }
        }
    }
    all.into_iter().collect()
}

/// What [`remove_run_files`] did.
#[derive(Debug, Default)]
pub struct Removed {
    /// Files removed.
    pub files: usize,
    /// Files left in the folder: not joute's, or not listed by its record.
    pub kept: Vec<String>,
}

/// Starts `dir` afresh (`--fresh`): removes the files its run record lists (`listed`, relative
/// paths inside `dir`; anything else is ignored), the run's own files ([`RUN_FILES`]) and the
/// temporaries of dead joute processes, then the folders left empty; every other file stays
/// and is named in [`Removed::kept`]. The caller has made sure no other process runs there
/// (it holds the run's lock, on a file named in `except`, which it empties itself).
pub fn remove_run_files(
    dir: &Path,
    listed: &[String],
    except: &[&str],
) -> std::io::Result<Removed> {
    let mut removed = Removed::default();
    let names = (RUN_FILES.iter().map(|f| f.to_string())).chain(listed.iter().cloned());
    for name in names.filter(|n| !except.contains(&n.as_str())) {
        let relative = Path::new(&name);
        // Only plain relative names inside the folder: a record edited to say `../x` or `/x`
        // removes nothing outside it.
        let inside = relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            continue;
        }
        let path = dir.join(relative);
        match path.symlink_metadata() {
            Ok(m) if m.is_file() || m.file_type().is_symlink() => {
                std::fs::remove_file(&path)?;
                removed.files += 1;
            }
            _ => {}
        }
    }
    removed.files += remove_stale_temporaries(dir).len();
    remove_empty_folders(dir, true);
    let mut kept = Vec::new();
    list_files(dir, Path::new(""), &mut kept);
    kept.retain(|k| !except.contains(&k.as_str()));
    kept.sort();
    removed.kept = kept;
    Ok(removed)
}

/// Removes the empty folders under `dir` (and `dir` itself unless `keep`), deepest first.
fn remove_empty_folders(dir: &Path, keep: bool) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_folders(&entry.path(), false);
            }
        }
    }
    if !keep {
        let _ = std::fs::remove_dir(dir);
    }
}

/// The files under `dir`, as paths relative to it (`prefix` joined).
fn list_files(dir: &Path, prefix: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = prefix.join(entry.file_name());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            list_files(&entry.path(), &name, out);
        } else {
            out.push(name.to_string_lossy().into_owned());
        }
    }
}

/// Removes the temporary files a killed joute left in `dir`: regular files (not links) named
/// `.NAME.PID.RANDOM.joute-tmp`, of this user, whose process `PID` is neither this one nor
/// alive. Nothing else is touched. Returns the files removed.
pub fn remove_stale_temporaries(dir: &Path) -> Vec<PathBuf> {
    let own = std::process::id();
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_owner) else {
            continue;
        };
        if pid == own || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_file() && owned_by_us(&meta) && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

#[cfg(unix)]
fn owned_by_us(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    meta.uid() == unsafe { libc::geteuid() }
}

#[cfg(not(unix))]
fn owned_by_us(_: &std::fs::Metadata) -> bool {
    true
}

/// The process that wrote a temporary file called `name`, if the name is one of joute's
/// (`.NAME.PID.RANDOM.joute-tmp`).
fn temporary_owner(name: &str) -> Option<u32> {
    let stem = name.strip_prefix('.')?.strip_suffix(TEMPORARY_SUFFIX)?;
    let (rest, random) = stem.rsplit_once('.')?;
    let (base, pid) = rest.rsplit_once('.')?;
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    if base.is_empty() || random.len() != 6 || !digits {
        return None;
    }
    pid.parse().ok()
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn cut_bytes(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A file name made of a user's `name` (an engine's, a run's) and `suffix` (`.log`, or none for
/// a folder): valid on every file system joute writes to. Separators and control characters
/// become `_`, a leading dot too (no hidden file, no `..`); a name whose bytes would pass
/// [`MAX_FILE_NAME_BYTES`] is cut at a character and given 16 hex digits of its hash, so that
/// two long names that start alike still get two files.
pub fn file_name(name: &str, suffix: &str) -> String {
    let mut safe: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if safe.is_empty() || safe.starts_with('.') {
        safe.insert(0, '_');
    }
    if safe.len() + suffix.len() > MAX_FILE_NAME_BYTES {
        let hash = format!("-{:016x}", fnv1a(name.as_bytes()));
        let keep = MAX_FILE_NAME_BYTES - suffix.len() - hash.len();
        safe = format!("{}{hash}", cut_bytes(&safe, keep));
    }
    safe.push_str(suffix);
    safe
}

/// `text` with every control character written as an escape (`\e`, `\n`, `\t`, `\u{9b}`): user
/// text echoed in a message or a file can then neither drive a terminal (move the cursor,
/// clear the screen, ring) nor break a line.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\u{1b}' => out.push_str("\\e"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A number as a message echoes it: as Rust writes it when that is short (`0.5`, `-12`,
/// `inf`), in scientific notation otherwise (`1e308`, not its 309 digits; `1.5e-300`).
pub fn number_text(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 16 {
        plain
    } else {
        format!("{x:e}")
    }
}

/// Whether `dir` holds a run: a tournament's `run.json` or `games.jsonl`, or a tuning run's
/// checkpoint or history.
pub fn is_run_folder(dir: &Path) -> bool {
    RUN_FILES.iter().any(|f| dir.join(f).exists())
}

/// Whether `dir` holds the shards of a run (`shard-I-of-N` run folders): the merge's report
/// goes there.
fn is_shards_folder(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name();
        let shard = name
            .to_str()
            .and_then(|n| n.strip_prefix("shard-"))
            .and_then(|n| {
                let (i, n) = n.split_once("-of-")?;
                Some(i.parse::<u64>().is_ok() && n.parse::<u64>().is_ok())
            });
        shard == Some(true) && is_run_folder(&e.path())
    })
}

/// Whether `dir` holds a report joute wrote: an `index.html` with joute's generator mark in its
/// first kilobytes.
fn is_report_folder(dir: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = File::open(dir.join("index.html")) else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(4096).read_to_end(&mut head).is_err() {
        return false;
    }
    String::from_utf8_lossy(&head).contains(GENERATOR_META)
}

/// Checks a folder that a command is to fill with its files (a run's, a report's): it may be new,
/// empty, a run folder, the folder of a run's shards, or a folder of a report joute wrote; an
/// existing folder of other files is refused unless `force` (joute would replace its
/// `index.html`, `ratings.csv`, …).
pub fn check_output_folder(dir: &Path, force: bool) -> Result<(), String> {
    if !dir.exists() {
        return Ok(());
    }
    if !dir.is_dir() {
        return Err(format!(
            "{}: a file, not a folder; --out names the folder the files go in",
            dir.display()
        ));
    }
    if force || is_run_folder(dir) || is_report_folder(dir) || is_shards_folder(dir) {
        return Ok(());
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot read the folder: {e}", dir.display()))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        // Another joute's temporary file (a shard writing shards.json) is no one else's file.
        .filter(|name| !name.ends_with(TEMPORARY_SUFFIX))
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    names.sort();
    let shown: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
    Err(format!(
        "{} holds other files ({}{}) and no joute run or report: choose a new or empty folder, or add --force to write joute's files among them",
        dir.display(),
        shown.join(", "),
        if names.len() > 3 { ", …" } else { "" }
    ))
}

/// Whether two paths name the same existing file (the same device and inode: through a link,
/// `..` or another spelling).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (a.canonicalize(), b.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// Checks that the folder of `out`, a file the user named, exists: one error naming the user's
/// path, before anything is written (a command whose `--out` is a folder it creates does not
/// ask).
pub fn check_output_parent(out: &Path) -> Result<(), String> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if parent.is_dir() {
        return Ok(());
    }
    Err(format!(
        "cannot write {}: {}; create it, or name a file in a folder that exists",
        out.display(),
        missing_folder(parent)
    ))
}

/// Checks a file a command is to write: never one of its `inputs`, never a run's own file
/// ([`RUN_FILES`] in a folder that holds a run), never a folder, and an existing file only with
/// `force` — unless `joutes` (the command's default name in a run folder, a file joute writes
/// and rewrites there).
pub fn check_output_file(
    out: &Path,
    inputs: &[&Path],
    force: bool,
    joutes: bool,
) -> Result<(), String> {
    if let Some(input) = inputs.iter().find(|i| same_file(out, i)) {
        return Err(format!(
            "{}: this is an input of the command ({}); name another file for the output",
            out.display(),
            input.display()
        ));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = out.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if RUN_FILES.contains(&name) && is_run_folder(parent) {
        return Err(format!(
            "{}: a file of the run in {}; name a file that is not the run's record",
            out.display(),
            parent.display()
        ));
    }
    if out.is_dir() {
        return Err(format!(
            "{}: a folder; name the file to write",
            out.display()
        ));
    }
    if (out.exists() || out.is_symlink()) && !force && !joutes {
        return Err(format!(
            "{} exists; add --force to replace it, or name another file",
            out.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_never_leads_a_write_to_its_target() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let victim = dir.join("victim.txt");
        std::fs::write(&victim, "the user's").unwrap();
        // Every name the old scheme used, and the final name itself, planted as links.
        for name in [
            format!("run.json.tmp{}", std::process::id()),
            format!(".run.json.{}.aaaaaa.joute-tmp", std::process::id()),
        ] {
            std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
        }
        write_atomically(&dir.join("run.json"), b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the user's");
        assert_eq!(std::fs::read_to_string(dir.join("run.json")).unwrap(), "{}");
        // A link at the final name is replaced, its target untouched.
        std::os::unix::fs::symlink(&victim, dir.join("ratings.csv")).unwrap();
        write_atomically(&dir.join("ratings.csv"), b"rank").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the user's");
        assert!(!dir.join("ratings.csv").is_symlink());
        // Logs and locks refuse a link.
        std::os::unix::fs::symlink(&victim, dir.join("games.jsonl")).unwrap();
        let err = open_append(&dir.join("games.jsonl")).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the user's");
    }

    #[test]
    fn write_errors_name_the_users_folder_never_the_temporary() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let missing = dir.join("share");
        let err = write_atomically(&missing.join("x.ggf"), b"x").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("folder {}/ does not exist", missing.display())
        );
        // A folder that cannot be written in: the system's cause, no temporary's name.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::create_dir(&missing).unwrap();
            std::fs::set_permissions(&missing, std::fs::Permissions::from_mode(0o500)).unwrap();
            let written = write_atomically(&missing.join("x.ggf"), b"x");
            std::fs::set_permissions(&missing, std::fs::Permissions::from_mode(0o700)).unwrap();
            // Root writes anywhere: then there is no error to check.
            if let Err(err) = written {
                assert!(!err.to_string().contains(TEMPORARY_SUFFIX), "{err}");
                assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied, "{err}");
            }
        }
        let err = check_output_parent(&missing.join("a/b.pgn")).unwrap_err();
        assert!(
            err.starts_with(&format!(
                "cannot write {}: folder {}/ does not exist;",
                missing.join("a/b.pgn").display(),
                missing.join("a").display()
            )),
            "{err}"
        );
    }

    #[test]
    fn a_failed_write_leaves_no_temporary() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let err = write_with(&dir.join("x.csv"), false, |_| {
            Err(std::io::Error::other("no"))
        });
        assert!(err.is_err());
        assert!(names(dir).is_empty(), "{:?}", names(dir));
    }

    #[test]
    fn only_joutes_own_stale_temporaries_are_removed() {
        assert_eq!(
            temporary_owner(".run.json.4242.AbC12z.joute-tmp"),
            Some(4242)
        );
        assert_eq!(temporary_owner("run.json.tmp4242"), None);
        assert_eq!(temporary_owner("thesis.tmp999999999"), None);
        assert_eq!(temporary_owner(".x.12.abc.joute-tmp"), None);
        assert_eq!(temporary_owner("..12.abcdef.joute-tmp"), None);
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        // No process has a PID this large (Linux caps PIDs at 2^22).
        let dead = 4_000_000_000u32;
        let own = std::process::id();
        for name in [
            format!(".run.json.{dead}.a1b2c3.joute-tmp"),
            format!(".ratings.csv.{own}.a1b2c3.joute-tmp"),
            format!("thesis.tmp{dead}"),
            format!("run.json.tmp{dead}"),
            "keep.txt".to_string(),
        ] {
            std::fs::write(dir.join(name), "x").unwrap();
        }
        let removed: Vec<String> = remove_stale_temporaries(dir)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(removed, [format!(".run.json.{dead}.a1b2c3.joute-tmp")]);
        assert_eq!(names(dir).len(), 4);
    }

    #[test]
    fn file_names_of_any_valid_name_fit_the_file_system() {
        assert_eq!(file_name("pvs-8", ".log"), "pvs-8.log");
        assert_eq!(file_name("../x/y", ".log"), "_.._x_y.log");
        assert_eq!(file_name("a\u{1b}b", ""), "a_b");
        // 64 four-byte characters: 256 bytes before the suffix.
        let long = "\u{1d11e}".repeat(64);
        let a = file_name(&long, ".log");
        assert!(a.len() <= MAX_FILE_NAME_BYTES, "{}", a.len());
        assert!(a.ends_with(".log") && a.starts_with('\u{1d11e}'));
        let other = format!("{}x", "\u{1d11e}".repeat(63));
        assert_ne!(file_name(&other, ".log"), a);
        // Such a file can be created.
        let scratch = tempfile::tempdir().unwrap();
        std::fs::write(scratch.path().join(&a), "").unwrap();
    }

    #[test]
    fn controls_are_escaped_and_numbers_short() {
        assert_eq!(escape_controls("a\u{1b}[2J\u{7}b"), "a\\e[2J\\u{7}b");
        assert!(matches!(escape_controls("plain"), Cow::Borrowed(_)));
        assert_eq!(number_text(1e308), "1e308");
        assert_eq!(number_text(-1.5e-300), "-1.5e-300");
        assert_eq!(number_text(0.5), "0.5");
        assert_eq!(number_text(-12.0), "-12");
        assert_eq!(number_text(f64::INFINITY), "inf");
    }

    #[test]
    fn outputs_are_checked_against_inputs_runs_and_other_files() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let run = dir.join("run");
        std::fs::create_dir(&run).unwrap();
        let log = run.join("games.jsonl");
        std::fs::write(&log, "").unwrap();
        std::fs::write(run.join("run.json"), "{}").unwrap();
        // The input, through another spelling.
        let spelled = run.join("..").join("run").join("games.jsonl");
        let err = check_output_file(&spelled, &[&log], true, true).unwrap_err();
        assert!(err.contains("an input of the command"), "{err}");
        let err = check_output_file(&run.join("run.json"), &[&log], true, false).unwrap_err();
        assert!(err.contains("a file of the run"), "{err}");
        assert!(check_output_file(&run.join("games.pgn"), &[&log], false, false).is_ok());
        std::fs::write(run.join("games.pgn"), "").unwrap();
        let err = check_output_file(&run.join("games.pgn"), &[&log], false, false).unwrap_err();
        assert!(err.contains("add --force"), "{err}");
        assert!(check_output_file(&run.join("games.pgn"), &[&log], true, false).is_ok());
        assert!(check_output_file(&run.join("games.pgn"), &[&log], false, true).is_ok());
        assert!(check_output_file(&run, &[&log], true, false).is_err());
        // Folders: new, empty, a run, a joute report; other files need --force.
        assert!(check_output_folder(&dir.join("new"), false).is_ok());
        assert!(check_output_folder(&run, false).is_ok());
        let mine = dir.join("mine");
        std::fs::create_dir(&mine).unwrap();
        assert!(check_output_folder(&mine, false).is_ok());
        // Another joute's temporary file being written there is none of the user's.
        let tmp = mine.join(format!(".shards.json.4242.abcdef{TEMPORARY_SUFFIX}"));
        std::fs::write(&tmp, "{").unwrap();
        assert!(check_output_folder(&mine, false).is_ok());
        std::fs::remove_file(&tmp).unwrap();
        std::fs::write(mine.join("index.html"), "<html>my page").unwrap();
        std::fs::write(mine.join("thesis.tmp999999999"), "").unwrap();
        let err = check_output_folder(&mine, false).unwrap_err();
        assert!(err.contains("index.html, thesis.tmp999999999"), "{err}");
        assert!(check_output_folder(&mine, true).is_ok());
        let report = dir.join("report");
        std::fs::create_dir(&report).unwrap();
        std::fs::write(
            report.join("index.html"),
            format!("<!doctype html>\n<head>{GENERATOR_META}</head>"),
        )
        .unwrap();
        assert!(check_output_folder(&report, false).is_ok());
        // The parent of a run's shards: the merge's report goes there.
        let shards = dir.join("shards");
        std::fs::create_dir_all(shards.join("shard-0-of-2")).unwrap();
        std::fs::write(shards.join("notes.txt"), "").unwrap();
        assert!(check_output_folder(&shards, false).is_err());
        std::fs::write(shards.join("shard-0-of-2/run.json"), "{}").unwrap();
        assert!(check_output_folder(&shards, false).is_ok());
        assert!(check_output_folder(&log, false).is_err());
    }
}

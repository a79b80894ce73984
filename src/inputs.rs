//! The files joute reads whole — specs, weights, openings, positions, other tools' records —
//! read so that no input can make it read without end: a regular file no larger than its kind's
//! cap (checked before a byte is read), or a pipe (`<(…)`, `/dev/stdin`) read up to the cap; a
//! device (`/dev/zero`, a terminal), a socket or anything else is refused. A folder gets the
//! system's own error. The caps are far above any real input (docs/files.md lists them).
//!
//! Games logs are not read whole: `arena::reader` reads them a batch at a time.

use std::fs::File;
use std::io::{Error, ErrorKind, Read};
use std::path::Path;

/// What kind of file is read, for its cap and its name in an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A tournament or tuning spec (TOML): 16 MiB.
    Spec,
    /// An evaluation's weights, text or binary pattern weights: 256 MiB.
    Weights,
    /// Openings, positions, test suites, scores files: 1 GiB.
    Positions,
    /// Other tools' game records (PGN, GGF, WThor): 1 GiB.
    Records,
}

impl Input {
    /// The most bytes a file of this kind may hold.
    pub const fn cap(self) -> u64 {
        match self {
            Input::Spec => 16 << 20,
            Input::Weights => 256 << 20,
            Input::Positions | Input::Records => 1 << 30,
        }
    }

    /// The kind's name in an error.
    pub const fn noun(self) -> &'static str {
        match self {
            Input::Spec => "a spec",
            Input::Weights => "a weights file",
            Input::Positions => "a positions file",
            Input::Records => "a records file",
        }
    }
}

/// The cap in words: `16 MiB`, `1 GiB`.
fn size_words(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

fn too_large(kind: Input) -> Error {
    Error::new(
        ErrorKind::InvalidData,
        format!(
            "larger than the {} {} may hold",
            size_words(kind.cap()),
            kind.noun()
        ),
    )
}

/// Reads the file at `path` whole, as `kind` allows (see the module's documentation). The
/// errors are `std::io::Error`s, so that callers name the file as they name any other.
pub fn read(path: &Path, kind: Input) -> std::io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    let kind_of_file = meta.file_type();
    #[cfg(unix)]
    let is_pipe = {
        use std::os::unix::fs::FileTypeExt;
        kind_of_file.is_fifo()
    };
    #[cfg(not(unix))]
    let is_pipe = false;
    if kind_of_file.is_file() {
        if meta.len() > kind.cap() {
            return Err(too_large(kind));
        }
    } else if !is_pipe && !kind_of_file.is_dir() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "not a regular file (a device or a socket, which may never end); give a file",
        ));
    }
    let mut bytes = Vec::new();
    // One byte more than the cap tells a pipe that holds too much (or a file that grew).
    file.take(kind.cap() + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > kind.cap() {
        return Err(too_large(kind));
    }
    Ok(bytes)
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(path: &Path, kind: Input) -> std::io::Result<String> {
    String::from_utf8(read(path, kind)?)
        .map_err(|_| Error::new(ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_is_refused_before_anything_is_read() {
        let e = read(Path::new("/dev/zero"), Input::Spec).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }

    #[test]
    fn a_file_over_its_cap_is_refused_and_one_at_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.toml");
        let file = File::create(&path).unwrap();
        // A sparse file: its length is what counts, not its blocks.
        file.set_len(Input::Spec.cap() + 1).unwrap();
        let e = read(&path, Input::Spec).unwrap_err();
        assert_eq!(e.to_string(), "larger than the 16 MiB a spec may hold");
        file.set_len(Input::Spec.cap()).unwrap();
        assert_eq!(read(&path, Input::Spec).unwrap().len() as u64, 16 << 20);
    }

    #[test]
    fn a_pipe_is_read_up_to_its_cap() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "head -c 17000000 /dev/zero"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let fd = {
            use std::os::fd::AsRawFd;
            child.stdout.as_ref().unwrap().as_raw_fd()
        };
        let path = format!("/proc/self/fd/{fd}");
        let e = read(Path::new(&path), Input::Spec).unwrap_err();
        assert_eq!(e.to_string(), "larger than the 16 MiB a spec may hold");
        drop(child.stdout.take());
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn a_folder_gets_the_systems_error_and_text_must_be_utf8() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path(), Input::Spec).is_err());
        let path = dir.path().join("latin1.txt");
        std::fs::write(&path, b"caf\xe9").unwrap();
        assert!(read_to_string(&path, Input::Positions).is_err());
        std::fs::write(&path, "café").unwrap();
        assert_eq!(read_to_string(&path, Input::Positions).unwrap(), "café");
    }
}

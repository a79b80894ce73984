//! Helpers shared by the command-line test suites.
#![allow(dead_code)] // Each suite uses its own subset.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// A fresh folder under the system's temporary directory, unique to the test process.
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("joute-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs joute with `args`, expects success, and returns its standard output.
pub fn joute_ok(args: &[&str]) -> String {
    let out = Command::cargo_bin("joute")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Writes `text` as `dir/spec.toml`, runs it quietly into `dir/out`, and returns `dir/out`.
pub fn run_spec(dir: &Path, text: &str) -> PathBuf {
    let spec = dir.join("spec.toml");
    std::fs::write(&spec, text).unwrap();
    let out = dir.join("out");
    joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    out
}

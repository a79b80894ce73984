//! The search and evaluation commands from the command line: play, solve, analyze, bench,
//! features, and the errors for bad engines, weights and positions.

use assert_cmd::Command;
use predicates::prelude::*;

fn joute() -> Command {
    Command::cargo_bin("joute").unwrap()
}

/// Runs joute with `args`, expects exit code 2 and a one-line error containing every piece of
/// `expected`.
fn refuses(args: &[&str], expected: &[&str]) {
    let out = joute().args(args).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for piece in expected {
        assert!(
            stderr.contains(piece),
            "{args:?}: '{piece}' not in {stderr}"
        );
    }
}

fn weights_file(dir: &tempdir::Dir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

mod tempdir {
    /// A folder under the system's temporary folder, removed when dropped.
    pub struct Dir(std::path::PathBuf);
    impl Dir {
        pub fn new(tag: &str) -> Dir {
            let path =
                std::env::temp_dir().join(format!("joute-test-{tag}-{}", std::process::id()));
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }
        pub fn path(&self) -> &std::path::Path {
            &self.0
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[test]
fn play_shows_every_move_and_the_result() {
    joute()
        .args(["play", "morpion", "alphabeta:9", "minimax:9"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1. alphabeta:9 (first) plays"))
        .stdout(predicate::str::contains("result: draw"));
    let out = joute()
        .args([
            "play",
            "connect4",
            "pvs:6",
            "random",
            "--opening",
            "44",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["opening"], "44");
    assert_eq!(v["winner"], "first", "{v}");
    assert!(
        v["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["nodes"].is_u64())
    );
}

#[test]
fn bad_engines_are_refused() {
    refuses(
        &["play", "othello", "alphabeat:4", "random"],
        &["unknown algorithm 'alphabeat'", "minimax"],
    );
    refuses(
        &["play", "othello", "alphabeta:0", "random"],
        &["depth 0", "between 1 and 64"],
    );
    refuses(
        &["play", "othello", "alphabeta:65", "random"],
        &["depth 65", "between 1 and 64"],
    );
    refuses(
        &["play", "othello", "alphabeta", "random"],
        &["needs a budget"],
    );
}

#[test]
fn bad_weights_files_are_refused_with_file_line_and_key() {
    let dir = tempdir::Dir::new("weights");
    let cases = [
        (
            "unknown.toml",
            "game = \"othello\"\n[weights]\nmobility = 1\nfrobs = 2\n",
            vec!["unknown.toml:4:", "frobs"],
        ),
        (
            "other.toml",
            "game = \"connect4\"\n[weights]\ncentre = 1\n",
            vec!["other.toml:1:", "connect4"],
        ),
        (
            "nan.toml",
            "game = \"othello\"\n[weights]\ncorners = nan\n",
            vec!["nan.toml:3:", "corners"],
        ),
        (
            "missing.toml",
            "game = \"othello\"\n[weights]\nmobility = \n",
            vec!["missing.toml:3:", "mobility"],
        ),
    ];
    for (name, text, expected) in cases {
        let path = weights_file(&dir, name, text);
        let engine = format!("alphabeta:2:{path}");
        refuses(&["play", "othello", &engine, "random"], &expected);
    }
    refuses(
        &[
            "play",
            "othello",
            "alphabeta:2:/no/such/weights.toml",
            "random",
        ],
        &["/no/such/weights.toml"],
    );
}

#[test]
fn positions_that_cannot_be_are_refused() {
    let empty = "-".repeat(64);
    refuses(
        &["play", "othello", "random", "random", "--opening", "f5f5"],
        &["f5", "not legal"],
    );
    refuses(
        &["perft", "othello", "1", "--position", &empty],
        &["no disc"],
    );
    refuses(
        &["perft", "connect4", "1", "--position", "12121212"],
        &["already won"],
    );
    refuses(
        &["perft", "connect4", "1", "--position", "4444444"],
        &["column 4 is full"],
    );
    refuses(
        &["perft", "morpion", "1", "--position", "XX./X../..."],
        &["X has 3 marks and O has 0"],
    );
}

#[test]
fn analyze_prints_measured_theory_and_ratio() {
    let out = joute()
        .args([
            "analyze",
            "random-tree",
            "--branching",
            "3",
            "--depth",
            "4",
            "--trees",
            "20",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let minimax = rows.iter().find(|r| r["algorithm"] == "minimax").unwrap();
    assert_eq!(minimax["measured"], 81.0);
    assert_eq!(minimax["theory"], 81.0);
    assert_eq!(minimax["ratio"], 1.0);
    refuses(&["analyze", "trees"], &["unknown subject 'trees'"]);
    refuses(
        &["analyze", "random-tree", "--branching", "1"],
        &["--branching 1"],
    );
}

#[test]
fn bench_node_count_is_stable() {
    let run = || {
        let out = joute().args(["bench", "--json"]).output().unwrap();
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            v["nodes"].as_u64().unwrap(),
            v["rows"].as_array().unwrap().len(),
        )
    };
    let (a, rows) = run();
    assert!(a > 1_000_000 && rows >= 8);
    assert_eq!(run().0, a);
}

#[test]
fn features_lists_names_meanings_and_defaults() {
    joute()
        .args(["features", "othello"])
        .assert()
        .success()
        .stdout(predicate::str::contains("mobility"))
        .stdout(predicate::str::contains("corners"));
    let out = joute()
        .args(["features", "morpion-15x15-5", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["features"].as_array().unwrap().len(), 9);
}

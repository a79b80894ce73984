//! The search and evaluation commands from the command line: play, solve, analyze, features,
//! and the errors for bad engines, weights and positions (bench: `bench.rs`).

use predicates::prelude::*;

use crate::common::{self, joute};

fn weights_file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
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
    // pvs (first, after an even opening: every other move from the first) counts its nodes
    // and its depth; random searches nothing and says so with null.
    for (i, r) in v["records"].as_array().unwrap().iter().enumerate() {
        if i % 2 == 0 {
            assert!(r["nodes"].is_u64() && r["depth"].as_u64() > Some(0), "{r}");
        } else {
            assert!(r["nodes"].is_null() && r["depth"] == 0, "{r}");
        }
        // At a fixed depth no CPU clock is read (the moves do not depend on it).
        assert!(r["cpu_seconds"].is_null(), "{r}");
    }
}

#[test]
fn bad_engines_are_refused() {
    common::refused(
        &["play", "othello", "alphabeat:4", "random"],
        &["unknown algorithm 'alphabeat'", "minimax"],
    );
    common::refused(
        &["play", "othello", "alphabeta:0", "random"],
        &["depth 0", "between 1 and 64"],
    );
    common::refused(
        &["play", "othello", "alphabeta:65", "random"],
        &["depth 65", "between 1 and 64"],
    );
    common::refused(
        &["play", "othello", "alphabeta", "random"],
        &["needs a budget"],
    );
}

#[test]
fn bad_weights_files_are_refused_with_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
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
            "foreign.toml",
            "game = \"othello\"\n[weights]\ncentre = 3\n",
            vec!["foreign.toml:3:", "centre"],
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
        common::refused(&["play", "othello", &engine, "random"], &expected);
    }
    common::refused(
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
    common::refused(
        &["play", "othello", "random", "random", "--opening", "f5f5"],
        &["f5", "f5 is taken"],
    );
    common::refused(
        &["perft", "othello", "1", "--position", &empty],
        &["no disc"],
    );
    common::refused(
        &["perft", "connect4", "1", "--position", "12121212"],
        &["already won"],
    );
    common::refused(
        &["perft", "connect4", "1", "--position", "4444444"],
        &["column 4 is full"],
    );
    common::refused(
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
    common::refused(&["analyze", "trees"], &["unknown subject 'trees'"]);
    common::refused(
        &["analyze", "random-tree", "--branching", "1"],
        &["--branching 1"],
    );
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
    assert_eq!(v["features"].as_array().unwrap().len(), 23);
}

#[test]
fn solve_gives_the_known_values_of_small_games() {
    let value = |args: &[&str]| {
        let out = joute().args(args).arg("--json").output().unwrap();
        assert!(out.status.success(), "{args:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let v = value(&["solve", "morpion"]);
    assert_eq!(v["value"], "draw");
    assert_eq!(v["best_moves"].as_array().unwrap().len(), 9);
    let v = value(&["solve", "morpion-4x4-3"]);
    assert_eq!(v["value"], "win");
    assert_eq!(v["score"], 5, "a win in 5 plies");
    let v = value(&["solve", "morpion-4x4-4"]);
    assert_eq!(v["value"], "draw");
    let v = value(&["solve", "morpion", "XX./OO./..."]);
    assert_eq!(v["value"], "win");
    assert_eq!(v["best_moves"], serde_json::json!(["c1"]));
    // A position a third of a second from its end (4444441, seven plies in, took seconds).
    let v = value(&["solve", "connect4", "44444413333"]);
    assert!(v["score"].is_i64());
    assert!(v["nodes"].as_u64().unwrap() > 0);
}

#[test]
fn solve_on_two_threads_gives_the_one_thread_value_and_moves() {
    // 16 empties: a parallel solve (from 12), a fraction of a second.
    let pos = "OXOOOOOXXOOOOOOXOOXXOOOXOOXOOOXXOOOOOOXXO--OOOOX----O--X-------- X";
    let solve = |threads: &str, file: Option<&std::path::Path>| {
        let mut cmd = joute();
        cmd.args(["solve", "othello", "--threads", threads, "--json"]);
        match file {
            Some(f) => cmd.arg("--file").arg(f),
            None => cmd.arg(pos),
        };
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let (one, two) = (solve("1", None), solve("2", None));
    assert_eq!(one["score"], two["score"]);
    assert_eq!(one["best_moves"], two["best_moves"]);
    assert!(two["nodes"].as_u64().unwrap() > 0);
    // A suite line with that value and those moves is correct on two threads too.
    let moves: Vec<&str> = one["best_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let (board, side) = pos.split_once(' ').unwrap();
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.txt");
    std::fs::write(
        &suite,
        format!(
            "1\t{board}\t{side}\t{:+}\t{}\n",
            one["score"].as_i64().unwrap(),
            moves.join(",")
        ),
    )
    .unwrap();
    let v = solve("2", Some(&suite));
    assert_eq!(
        (v["positions"].as_u64(), v["correct"].as_u64()),
        (Some(1), Some(1))
    );
    // Other games' solvers run on one thread.
    let out = joute()
        .args(["solve", "connect4", "4453", "--threads", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--threads"));
}

#[test]
fn solve_refuses_what_it_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let bad = weights_file(&dir, "bad.txt", "4453 1\n4453 x\n");
    common::refused(&["solve", "connect4", "--file", &bad], &["bad.txt:2:"]);
    common::refused(
        &["solve", "connect4", "--file", "/no/such/suite.txt"],
        &["/no/such/suite.txt"],
    );
    common::refused(
        &["solve", "morpion", "--file", &bad],
        &["no test-suite format for morpion"],
    );
    common::refused(&["solve", "othello"], &["60 empty squares", "at most 30"]);
    common::refused(&["solve", "morpion-15x15-5"], &["225 empty cells"]);
    common::refused(&["solve", "connect4", "12121212"], &["already won"]);
    common::refused(&["solve", "othello", &"-".repeat(64)], &["no disc"]);
    common::refused(
        &["solve", "morpion", "XXX/.../..."],
        &["X has 3 marks and O has 0"],
    );
    common::refused(
        &["solve", "morpion", "XX./.../..."],
        &["X has 2 marks and O has 0"],
    );
}

/// `joute solve ARGS --json` as JSON.
fn solve_json(args: &[&str]) -> serde_json::Value {
    let out = joute()
        .arg("solve")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_limited_solve_stops_and_reports_the_bounds_it_proved() {
    // The empty Connect 4 board is a first-player win with the 21st stone: score +1, which
    // takes minutes; two million nodes prove only a bracket around it.
    let a = solve_json(&["connect4", "--nodes", "2000000"]);
    assert_eq!(a["exact"], false, "{a}");
    assert_eq!(a["stopped_by"], "nodes");
    assert_eq!(a["nodes"], 2_000_000);
    let (lower, upper) = (a["lower"].as_i64().unwrap(), a["upper"].as_i64().unwrap());
    assert!(lower <= 1 && 1 <= upper && lower < upper, "{a}");
    // A node limit is deterministic: the same bracket again.
    let b = solve_json(&["connect4", "--nodes", "2000000"]);
    assert_eq!(
        (a["lower"].clone(), a["upper"].clone()),
        (b["lower"].clone(), b["upper"].clone())
    );

    // A time limit stops about then, on every game, beyond the sizes solved without one.
    for game in ["connect4", "othello", "morpion-15x15-5"] {
        let clock = std::time::Instant::now();
        let out = joute()
            .args(["solve", game, "--time", "300ms"])
            .output()
            .unwrap();
        let seconds = clock.elapsed().as_secs_f64();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{game}: {out:?}");
        assert!(
            stdout.contains("NOT SOLVED: stopped by the time limit"),
            "{game}: {stdout}"
        );
        assert!(seconds < 20.0, "{game}: {seconds} s");
    }

    // A limit the solve does not reach changes nothing, nor does the table's size.
    let exact = solve_json(&["connect4", "2252576253462244111563365343671351441"]);
    for extra in [
        &["--nodes", "1000000000"][..],
        &["--hash", "16"][..],
        &["--time", "3600s"][..],
    ] {
        let mut args = vec!["connect4", "2252576253462244111563365343671351441"];
        args.extend_from_slice(extra);
        let r = solve_json(&args);
        assert_eq!(r["exact"], true, "{extra:?}: {r}");
        assert_eq!(
            (r["score"].clone(), r["best_moves"].clone()),
            (exact["score"].clone(), exact["best_moves"].clone())
        );
    }

    common::refused(
        &["solve", "connect4", "--time", "0s"],
        &["--time", "from 1ms to one day"],
    );
    common::refused(
        &["solve", "connect4", "--time", "2d"],
        &["--time", "needs a unit"],
    );
    common::refused(&["solve", "connect4", "--nodes", "0"], &["--nodes is 0"]);
    common::refused(&["solve", "connect4", "--hash", "0"], &["--hash is 0 MiB"]);
    common::refused(
        &["solve", "connect4", "--hash", "100000"],
        &["--hash is 100000 MiB"],
    );
}

/// An empty suite is solved in no time: 0, never "-0" (an empty f64 sum is -0.0 in Rust).
#[test]
fn an_empty_suite_prints_no_negative_zero() {
    let dir = common::scratch("empty-suite");
    std::fs::write(dir.join("empty.txt"), "").unwrap();
    for json in [false, true] {
        let mut args = vec!["solve", "connect4", "--file", "empty.txt"];
        if json {
            args.push("--json");
        }
        let out = joute().current_dir(&*dir).args(&args).output().unwrap();
        assert!(out.status.success());
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("0 positions") || stdout.contains("\"positions\":0"),
            "{stdout}"
        );
        assert!(!stdout.contains("-0"), "{stdout}");
    }
}

/// The long suites: ignored by a plain `cargo test`, run by CI (`.ci/run`) and by
/// `cargo test --test it -- --ignored ::long::`.
mod long {
    use super::*;

    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn solve_checks_whole_suites() {
        let out = joute()
            .args([
                "solve",
                "connect4",
                "--file",
                "tests/data/connect4/Test_L3_R1.txt",
                "--json",
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["positions"], 1000);
        assert_eq!(v["correct"], 1000);
        assert_eq!(v["wrong"], serde_json::json!([]));
        assert!(v["mean_seconds"].as_f64().unwrap() > 0.0);

        // FFO #40 alone, as a one-line suite.
        let dir = tempfile::tempdir().unwrap();
        let ffo = std::fs::read_to_string("tests/data/othello-ffo-40-59.txt").unwrap();
        let line40 = ffo.lines().find(|l| l.starts_with("40\t")).unwrap();
        let suite = weights_file(&dir, "ffo40.txt", &format!("# FFO 40\n{line40}\n"));
        joute()
            .args(["solve", "othello", "--file", &suite])
            .assert()
            .success()
            .stdout(predicate::str::contains("correct: 1/1"))
            // Its own line: id, empties, the known and the found value, the move, nodes.
            .stdout(
                predicate::str::is_match(r"(?m)^\s+40\s+20\s+\+38\s+\+38\s+a2\s+[1-9]\d*\s")
                    .unwrap(),
            );
        let out = joute()
            .args(["solve", "othello", "--file", &suite, "--json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let each = &v["each"][0];
        assert_eq!(
            (each["id"].as_str(), each["empties"].as_u64()),
            (Some("40"), Some(20))
        );
        assert_eq!(
            (each["got"].as_i64(), each["correct"].as_bool()),
            (Some(38), Some(true))
        );
        assert_eq!(each["nodes"], v["nodes"]);
        // A suite with a wrong expected score reports the position as wrong.
        let wrong = weights_file(&dir, "wrong.txt", "4453 5\n");
        joute()
            .args(["solve", "connect4", "--file", &wrong])
            .assert()
            .success()
            .stdout(predicate::str::contains("correct: 0/1"))
            .stdout(predicate::str::contains("wrong at line 1"));
    }
}

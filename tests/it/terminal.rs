//! How joute behaves toward the terminal: a reader that goes away (`| head`), Ctrl-C once
//! (stop, report, say how to resume) and twice (quit at once), and nothing left in the
//! temporary folder.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

use common::bin;

/// Runs joute with its stdout a pipe whose reader is closed at once, and `TMPDIR` a private
/// folder; returns the exit status and stderr.
fn with_closed_stdout(args: &[&str], tmp: &Path) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(bin())
        .args(args)
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away, as `| head -0` or `| true` does
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_pipe_ends_quietly_and_leaves_nothing_behind() {
    let dir = common::scratch("pipe");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = dir.join("run");
    let cases: Vec<Vec<&str>> = vec![
        vec!["features", "othello"],
        vec!["perft", "othello", "6"],
        vec!["match", "connect4", "random", "random", "--games", "10"],
        vec![
            "match", "connect4", "random", "random", "--games", "10", "--json",
        ],
        vec!["play", "connect4", "random", "random"],
        vec!["solve", "morpion-3x3-3"],
        // One shard of the quickstart: the whole of it was most of this test's time.
        vec!["run", "--out", out.to_str().unwrap(), "--shard", "0/16"],
    ];
    for args in &cases {
        let (status, stderr) = with_closed_stdout(args, &tmp);
        assert!(status.success(), "{args:?}: {status:?}\n{stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
    // A match without --out plays in a scratch folder of its own, removed on every way out.
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}

/// Starts `joute run SPEC --out OUT`, waits until its log holds `games` games, sends it SIGINT
/// `signals` times (50 ms apart), and returns its exit code, stdout and stderr.
fn interrupt(spec: &Path, out: &Path, games: usize, signals: usize) -> (i32, String, String) {
    let child = Command::new(bin())
        .args([
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "2",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = out.join("games.jsonl");
    let clock = Instant::now();
    while common::lines_in(&log) < games && clock.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(2));
    }
    for _ in 0..signals {
        let sent = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn ctrl_c_stops_the_run_prints_the_table_and_the_resume_command() {
    let dir = common::scratch("sigint");
    let spec = common::slow_spec(&dir);
    let whole = dir.join("whole");
    common::joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
        "--quiet",
    ]);
    let expected = common::games_by_id(&[whole.join("games.jsonl")]);
    assert_eq!(expected.len(), 360);

    let out = dir.join("interrupted");
    let (code, stdout, stderr) = interrupt(&spec, &out, 40, 1);
    assert_eq!(code, 130, "{stdout}\n{stderr}");
    assert!(stderr.contains("no new game starts"), "{stderr}");
    assert!(stdout.contains("Rank Name"), "the table so far: {stdout}");
    let logged = common::lines_in(&out.join("games.jsonl"));
    assert!((40..360).contains(&logged), "{logged} games logged");
    let line = common::resume_line(&stdout, logged, 360);
    // run.json says what happened.
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let session = &record["sessions"][0];
    assert_eq!(session["games_played"], logged as u64);
    assert_eq!(session["ended"], "interrupted");
    assert!(session["finished"].is_string());

    // The command it printed finishes the run: the same games as one that never stopped.
    let command = line.split("run: ").nth(1).unwrap();
    let words: Vec<&str> = command.split_whitespace().collect();
    let resumed = Command::new(words[0]).args(&words[1..]).output().unwrap();
    assert!(resumed.status.success(), "{resumed:?}");
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(
        stdout.contains(&format!("{} games played", 360 - logged))
            && stdout.contains("the run: 360 games")
            && stdout.contains("over 2 sessions"),
        "{stdout}"
    );
    assert_eq!(common::games_by_id(&[out.join("games.jsonl")]), expected);
    assert_eq!(
        std::fs::read_to_string(out.join("ratings.csv")).unwrap(),
        std::fs::read_to_string(whole.join("ratings.csv")).unwrap()
    );
    // The report times the whole run, both sessions listed.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("360 games in ") && html.contains("over 2 sessions"));
    let sessions = &html[html.find("id=\"sessions\"").expect("a sessions table")..];
    let sessions = &sessions[..sessions.find("</table>").unwrap()];
    assert!(
        sessions.contains(&format!("<td>{logged}</td>")),
        "{sessions}"
    );
    assert!(sessions.contains("<td>interrupted</td>") && sessions.contains("<td>complete</td>"));
}

#[test]
fn a_second_ctrl_c_quits_at_once_and_the_log_stays_valid() {
    let dir = common::scratch("sigint2");
    let spec = common::slow_spec(&dir);
    let out = dir.join("run");
    let (code, _, stderr) = interrupt(&spec, &out, 20, 2);
    assert_eq!(code, 130, "{stderr}");
    assert!(stderr.contains("quitting now"), "{stderr}");
    // Every line of the log is a whole game, and the run can be finished.
    let logged = common::games_by_id(&[out.join("games.jsonl")]);
    assert!(logged.len() >= 20);
    common::joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--resume",
    ]);
    let all = common::games_by_id(&[out.join("games.jsonl")]);
    assert_eq!(all.len(), 360);
    for (id, game) in logged {
        assert_eq!(all[&id], game);
    }
}

#[test]
fn echoed_input_cannot_drive_the_terminal_or_flood_it() {
    let dir = common::scratch("escapes");
    let line = common::refused_in(
        Some(&dir),
        &["match", "connect4", "random\u{1b}[31m", "random"],
        &[],
    );
    assert!(line.contains("random\\e[31m"), "{line}");
    // (clap's own messages drop escape sequences; `refused` checks none is left raw.)
    common::refused_in(
        Some(&dir),
        &["perft", "othello\u{1b}]0;pwned\u{7}", "3"],
        &[],
    );

    // A spec value with an escape sequence, and a 70,000-character engine name.
    let spec = dir.join("spec.toml");
    std::fs::write(
        &spec,
        "name = \"x\"\ngame = \"connect4\"\nseed = 1\nopenings = { plies = 2, count = 2 }\n[[engine]]\nname = \"a\"\nalgorithm = \"random\\u001b[2J\"\n[[engine]]\nname = \"b\"\nalgorithm = \"random\"\n",
    )
    .unwrap();
    let line = common::refused_in(Some(&dir), &["run", "spec.toml", "--out", "o"], &[]);
    assert!(line.contains("random\\e[2J"), "{line}");
    std::fs::write(
        &spec,
        format!(
            "name = \"x\"\ngame = \"connect4\"\nseed = 1\nopenings = {{ plies = 2, count = 2 }}\n[[engine]]\nname = \"{}\"\nalgorithm = \"random\"\n[[engine]]\nname = \"b\"\nalgorithm = \"random\"\n",
            "n".repeat(70_000)
        ),
    )
    .unwrap();
    let line = common::refused_in(Some(&dir), &["run", "spec.toml", "--out", "o"], &[]);
    assert!(line.contains("at most 64 characters"), "{line}");
    // A 400-digit depth echoed back is cut in the middle.
    let depth = format!("alphabeta:{}", "9".repeat(400));
    let line = common::refused_in(Some(&dir), &["play", "connect4", &depth, "random"], &[]);
    assert!(line.contains('…'), "{line}");
    assert!(
        !dir.join("o").exists(),
        "nothing is written for a refused spec"
    );
}

#[test]
fn a_run_that_cannot_finish_is_announced_before_its_first_game() {
    use std::io::{BufRead, BufReader};
    // Killed below: its scratch folder goes into a temporary folder of the test's own.
    let tmp = common::scratch("workload");
    let mut child = Command::new(bin())
        .args([
            "match",
            "morpion-15x15-5",
            "minimax:4",
            "random",
            "--games",
            "2",
        ])
        .env("TMPDIR", &*tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let mut warning = None;
    while let Ok(line) = receive.recv_timeout(Duration::from_secs(30)) {
        if line.starts_with("warning:") {
            warning = Some(line);
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let warning = warning.expect("no warning within 30 s");
    assert!(
        warning.contains("minimax") && warning.contains("a game"),
        "{warning}"
    );
}

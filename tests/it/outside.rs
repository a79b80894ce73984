//! Outside engines end to end, through `joute run SPEC --out DIR` (and `joute match`, `joute
//! report`, `joute engine check`): the fake engine of `tests/engines/fake.py` plays each
//! protocol against a built-in engine, misbehaves in every way it can (each failure loses its
//! game with the right termination and the run goes on), is refused at spec time and at run
//! start with one clear line, leaves no process behind however joute ends, and resumes; the
//! Python example engine plays a tournament and passes `joute engine check`.
//!
//! Linux only: the engines are `python3` scripts, and the orphan checks read `/proc`.
#![cfg(target_os = "linux")]

use crate::common;

use common::{bin, manifest, running_with};

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The fake engine, by absolute path.
pub(crate) fn fake() -> String {
    manifest("tests/engines/fake.py")
}

/// `text` as a TOML string (a JSON string is one).
pub(crate) fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// A spec of `game` with random openings of 2 plies (the fake's first move is then its
/// move 2: it counts the opening's moves), `count` of them, the lines `top` at the top, the fake
/// named `fake` speaking `protocol` with `flags` and the lines `engine` in its table, and
/// `alphabeta` at depth 2 named `ab`.
pub(crate) fn spec(
    game: &str,
    count: u32,
    top: &str,
    protocol: &str,
    flags: &[&str],
    engine: &str,
) -> String {
    let mut args = vec![fake(), "--protocol".into(), protocol.into()];
    args.extend(["--game".to_string(), game.to_string()]);
    args.extend(flags.iter().map(|f| f.to_string()));
    let args: Vec<String> = args.iter().map(|a| quoted(a)).collect();
    format!(
        "name = \"t\"\ngame = \"{game}\"\nseed = 1\nopenings = {{ plies = 2, count = {count} }}\n{top}\n\n\
         [[engine]]\nname = \"fake\"\ncommand = \"python3\"\nargs = [{}]\nprotocol = \"{protocol}\"\n{engine}\n\n\
         [[engine]]\nname = \"ab\"\nalgorithm = \"alphabeta\"\ndepth = 2\n",
        args.join(", ")
    )
}

/// Writes `text` as `dir/spec.toml` and runs `joute run spec.toml --out out EXTRA` in `dir`
/// (the spec named without a folder: its programs run in `dir`).
pub(crate) fn run(dir: &Path, text: &str, extra: &[&str]) -> Output {
    std::fs::write(dir.join("spec.toml"), text).unwrap();
    let mut args = vec!["run", "spec.toml", "--out", "out"];
    args.extend_from_slice(extra);
    common::joute_in(dir, &args)
}

/// As [`run`], expecting success; returns stdout and stderr.
pub(crate) fn run_ok(dir: &Path, text: &str, extra: &[&str]) -> (String, String) {
    let out = run(dir, text, extra);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{:?}\n{stdout}\n{stderr}", out.status);
    (stdout, stderr)
}

/// The games of the log in `out`, by id.
pub(crate) fn games(out: &Path) -> Vec<Value> {
    let mut all = common::jsonl(&out.join("games.jsonl"));
    all.sort_by_key(|g| g["id"].as_u64().unwrap());
    all
}

fn spec_hash(out: &Path) -> String {
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    record["spec_hash"].as_str().unwrap().to_string()
}

pub(crate) fn termination(game: &Value) -> &str {
    game["termination"].as_str().unwrap()
}

pub(crate) fn detail(game: &Value) -> &str {
    game["detail"].as_str().unwrap_or("")
}

/// Whether the fake lost `game`.
pub(crate) fn fake_lost(game: &Value) -> bool {
    let expected = if game["first"] == "fake" {
        "0-1"
    } else {
        "1-0"
    };
    game["result"] == expected
}

/// The row of `engine` in the terminal's Terminations table: games, timeout, stall,
/// illegal-move, crash, limit.
pub(crate) fn termination_row(stdout: &str, engine: &str) -> [u64; 6] {
    let table = &stdout[stdout
        .find("Terminations  games  timeout  stall  illegal-move  crash  limit")
        .unwrap_or_else(|| panic!("no Terminations table in {stdout}"))..];
    let row = table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(engine))
        .unwrap_or_else(|| panic!("no row for {engine} in {table}"));
    let numbers: Vec<u64> = row
        .split_whitespace()
        .skip(1)
        .map(|n| n.parse().unwrap())
        .collect();
    numbers.try_into().unwrap()
}

/// The stderr lines of `out/engines/NAME.log`, each `(pid, text)`.
pub(crate) fn engine_log(out: &Path, name: &str) -> Vec<(u32, String)> {
    let path = out.join("engines").join(format!("{name}.log"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| {
            let (pid, rest) = l
                .strip_prefix('[')
                .and_then(|l| l.split_once("] "))
                .unwrap_or_else(|| panic!("not [PID] TEXT: {l}"));
            (pid.parse().unwrap(), rest.to_string())
        })
        .collect()
}

/// A marker no other process carries: passed to the fake as `--name`, it shows in
/// `/proc/PID/cmdline`.
fn marker(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("MARKER-{test}-{}-{nanos}", std::process::id())
}

/// Waits up to 2 s for every process carrying `marker` to be gone.
fn assert_all_gone(marker: &str, when: &str) {
    let clock = Instant::now();
    loop {
        let left = common::running_with(marker);
        if left.is_empty() {
            return;
        }
        assert!(
            clock.elapsed() < Duration::from_secs(2),
            "{when}: engine processes {left:?} still run 2 s later"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let clock = Instant::now();
    while !done() {
        assert!(clock.elapsed() < limit, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

// ---------------------------------------------------------------- 1. normal play

/// The fake speaking `protocol` plays `game` against alphabeta: every game ends normally, its
/// stderr goes to `engines/fake.log`, the log says the games are not reproducible, the
/// terminal names the program and shows a Terminations table without failures.
fn plays_normally(protocol: &str, game: &str) {
    let dir = common::scratch(protocol);
    let text = spec(
        game,
        3,
        "",
        protocol,
        &["--stderr-lines", "2"],
        "stall_timeout = \"10s\"",
    );
    let (stdout, stderr) = run_ok(&dir, &text, &[]);
    let out = dir.join("out");
    let all = games(&out);
    assert_eq!(all.len(), 6);
    for g in &all {
        assert_eq!(termination(g), "normal", "{g}");
        assert!(g.get("detail").is_none(), "{g}");
        let reasons: Vec<&str> = g["not_reproducible"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert_eq!(reasons, ["outside program 'fake'"], "{g}");
        assert_eq!(g["spec"].as_str().unwrap(), spec_hash(&out));
    }
    // Every process of the fake (the handshake check's, then the workers') wrote its two lines.
    let log = engine_log(&out, "fake");
    let pids: BTreeSet<u32> = log.iter().map(|(pid, _)| *pid).collect();
    assert!(!pids.is_empty());
    for pid in &pids {
        let lines: Vec<&str> = log
            .iter()
            .filter(|(p, _)| p == pid)
            .map(|(_, l)| l.as_str())
            .collect();
        assert_eq!(
            lines,
            ["fake stderr line 1", "fake stderr line 2"],
            "{log:?}"
        );
    }
    assert_eq!(
        termination_row(&stdout, "fake"),
        [6, 0, 0, 0, 0, 0],
        "{stdout}"
    );
    assert_eq!(
        termination_row(&stdout, "ab"),
        [6, 0, 0, 0, 0, 0],
        "{stdout}"
    );
    assert!(
        stdout.contains("(normal 6, adjudication 0 of 6 games)"),
        "{stdout}"
    );
    // Every move of the program had its CPU time measured (its process group's); the built-in
    // engine at a fixed depth none (its moves do not depend on it).
    for g in &all {
        let cpu = g["move_cpu_us"].as_array().unwrap_or_else(|| panic!("{g}"));
        assert_eq!(cpu.len(), g["moves"].as_array().unwrap().len(), "{g}");
        let fake: Vec<usize> = fake_moves(g).into_iter().map(|(_, i)| i).collect();
        for (i, c) in cpu.iter().enumerate() {
            assert_eq!(c.is_u64(), fake.contains(&i), "move {i}: {g}");
        }
    }
    assert!(
        stderr.contains(&format!("fake: {protocol} engine: python3 {}", fake()))
            && stderr.contains("(stderr in out/engines/fake.log)"),
        "{stderr}"
    );
}

#[test]
fn the_line_protocol_plays_connect4() {
    plays_normally("line", "connect4");
}

#[test]
fn gtp_plays_othello() {
    plays_normally("gtp", "othello");
}

#[test]
fn nboard_plays_othello() {
    plays_normally("nboard", "othello");
}

#[test]
fn gomocup_plays_morpion_9x9_5() {
    plays_normally("gomocup", "morpion-9x9-5");
}

#[test]
fn the_spec_hash_does_not_depend_on_where_the_run_is_started() {
    let dir = common::scratch("hash");
    let text = spec("connect4", 2, "", "line", &[], "stall_timeout = \"10s\"");
    // From the spec's folder, the spec named without a folder (its program runs there: an
    // empty folder name once made every start fail) ...
    run_ok(&dir, &text, &["--quiet"]);
    // ... and from elsewhere, by absolute path.
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let spec_path = dir.join("spec.toml");
    let second = dir.join("second");
    let out = common::joute_in(
        &elsewhere,
        &[
            "run",
            spec_path.to_str().unwrap(),
            "--out",
            second.to_str().unwrap(),
            "--quiet",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let hash = spec_hash(&dir.join("out"));
    assert_eq!(spec_hash(&second), hash);
    for g in games(&dir.join("out")).iter().chain(&games(&second)) {
        assert_eq!(g["spec"].as_str().unwrap(), hash);
        assert_eq!(termination(g), "normal");
    }
}

/// The fake over the line protocol as `joute match` and `joute play` take an engine, called
/// `name`, with `flags` (`,arg=--crash-at,arg=3`).
pub(crate) fn line_fake(name: &str, flags: &str) -> String {
    format!(
        "cmd=python3,proto=line,name={name},arg={},arg=--protocol,arg=line{flags}",
        fake()
    )
}

/// `joute match connect4 ENGINE alphabeta:2 --games GAMES --threads 1 EXTRA` in `dir`.
pub(crate) fn match_fake(dir: &Path, engine: &str, games: &str, extra: &[&str]) -> Output {
    let mut args = vec!["match", "connect4", engine, "alphabeta:2", "--games", games];
    args.extend(["--threads", "1"]);
    args.extend(extra);
    common::joute_in(dir, &args)
}

#[test]
fn joute_match_without_out_says_why_an_engine_failed() {
    // A student's first command: no --out, an engine that raises at its first move (the
    // fake counts the 4 opening plies). The table is followed by the engine's first failure,
    // with the end of its stderr.
    let dir = common::scratch("match-failure");
    let engine = line_fake("student", ",arg=--crash-at,arg=3");
    let out = match_fake(&dir, &engine, "2", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("first failure of student: crash in game 0: "))
        .unwrap_or_else(|| panic!("no first failure in {stdout}"));
    // (The head names the script; a long path may be cut in the middle.)
    assert!(
        line.ends_with("(it exited: exit status: 3); its stderr ended: fake: crashing at move 3"),
        "{line}"
    );
    assert!(
        stdout.contains("a match without --out keeps nothing"),
        "{stdout}"
    );
}

#[test]
fn joute_play_plays_an_outside_engine_move_by_move() {
    let dir = common::scratch("play");
    let engine = |flags: &str| line_fake("mine", flags);
    let out = common::joute_in(&dir, &["play", "connect4", &engine(""), "alphabeta:1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains("1. mine (first) plays "), "{stdout}");
    assert!(stdout.contains("\nresult: "), "{stdout}");
    // A failure says how the game ended.
    let out = common::joute_in(
        &dir,
        &[
            "play",
            "connect4",
            &engine(",arg=--crash-at,arg=2"),
            "alphabeta:1",
            "--json",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["termination"], "crash", "{value}");
    assert_eq!(value["winner"], "second", "{value}");
    assert_eq!(value["plies"], 2, "{value}");
    assert!(
        value["detail"]
            .as_str()
            .unwrap()
            .contains("fake: crashing at move 2"),
        "{value}"
    );
    // No clock in joute play.
    let out = common::joute_in(
        &dir,
        &["play", "connect4", &engine(",st=1s"), "alphabeta:1"],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("joute play keeps no clock"));
}

#[test]
fn joute_match_takes_an_outside_engine_on_the_command_line() {
    let dir = common::scratch("match");
    let engine = line_fake("fake", ",arg=--stderr-lines,arg=1");
    let out = match_fake(&dir, &engine, "4", &["--out", "m"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    let all = games(&dir.join("m"));
    assert_eq!(all.len(), 4);
    assert!(all.iter().all(|g| termination(g) == "normal"));
    assert_eq!(termination_row(&stdout, "fake"), [4, 0, 0, 0, 0, 0]);
    assert!(
        engine_log(&dir.join("m"), "fake")
            .iter()
            .any(|(_, l)| l == "fake stderr line 1")
    );

    // A failure through `joute match`: a hang on a time per move loses on time.
    let engine = format!(
        "cmd=python3,proto=line,name=fake,arg={},arg=--protocol,arg=line,arg=--hang-at,arg=2",
        fake()
    );
    let out = common::joute_in(
        &dir,
        &[
            "match",
            "connect4",
            &engine,
            "alphabeta:2",
            "--games",
            "2",
            "--openings",
            "2",
            "--st",
            "300ms",
            "--out",
            "h",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let all = games(&dir.join("h"));
    assert_eq!(all.len(), 2);
    for g in &all {
        assert_eq!(termination(g), "timeout", "{g}");
        assert_eq!(detail(g), "no move within 300 ms", "{g}");
        assert_eq!(
            g["timed_out"], true,
            "a game lost on time depends on the machine: {g}"
        );
        assert!(fake_lost(g), "{g}");
    }
}

// ---------------------------------------------------------------- 2. failures

/// Runs the fake with `flags` against alphabeta (`count` openings), expecting every game lost
/// by the fake with `expected` termination; returns the games and stdout.
pub(crate) fn every_game_fails(
    protocol: &str,
    game: &str,
    top: &str,
    flags: &[&str],
    engine: &str,
    expected: &str,
) -> (Vec<Value>, String) {
    let dir = common::scratch(expected);
    let count = 2;
    let text = spec(game, count, top, protocol, flags, engine);
    let (stdout, _) = run_ok(&dir, &text, &[]);
    let all = games(&dir.join("out"));
    assert_eq!(
        all.len(),
        2 * count as usize,
        "the run went on after failures"
    );
    for g in &all {
        assert_eq!(termination(g), expected, "{g}");
        assert!(fake_lost(g), "{g}");
    }
    let n = all.len() as u64;
    let mut row = [n, 0, 0, 0, 0, 0];
    let column = ["timeout", "stall", "illegal-move", "crash", "limit"]
        .iter()
        .position(|&t| t == expected)
        .unwrap();
    row[1 + column] = n;
    assert_eq!(termination_row(&stdout, "fake"), row, "{stdout}");
    assert_eq!(
        termination_row(&stdout, "ab"),
        [n, 0, 0, 0, 0, 0],
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("(normal 0, adjudication 0 of {n} games)")),
        "{stdout}"
    );
    (all, stdout)
}

#[test]
fn a_crash_loses_the_game_with_its_exit_status_and_last_words() {
    let (all, _) = every_game_fails(
        "line",
        "connect4",
        "",
        &["--crash-at", "2"],
        "stall_timeout = \"10s\"",
        "crash",
    );
    for g in &all {
        let d = detail(g);
        assert!(d.contains("its output closed"), "{d}");
        assert!(d.contains("exit status: 3"), "{d}");
        assert!(d.contains("fake: crashing at move 2"), "{d}");
    }
}

#[test]
fn a_hang_on_a_time_per_move_loses_on_time() {
    let (all, _) = every_game_fails(
        "line",
        "connect4",
        "st = \"300ms\"",
        &["--hang-at", "2"],
        "stall_timeout = \"10s\"",
        "timeout",
    );
    for g in &all {
        assert_eq!(detail(g), "no move within 300 ms", "{g}");
    }
}

#[test]
fn a_hang_without_a_clock_stalls() {
    let clock = Instant::now();
    let (all, _) = every_game_fails(
        "line",
        "connect4",
        "",
        &["--hang-at", "2"],
        // Long enough for Python to start and shake hands on a loaded machine (the limit
        // covers the start-up too), short enough that four hangs end well within the bound.
        "stall_timeout = \"2s\"",
        "stall",
    );
    for g in &all {
        let detail = detail(g);
        assert!(
            detail.starts_with("no answer to 'move game=connect4 moves=")
                && detail.ends_with("' within 2 s"),
            "{g}"
        );
    }
    // A hang without a limit would never end; four 2 s stalls on two threads take ~4 s.
    assert!(clock.elapsed() < Duration::from_secs(60));
}

/// The squares of Othello occupied after `game`'s opening and moves: the four of the start
/// and every square played (a flipped disc was on the board already).
fn occupied(game: &Value) -> BTreeSet<String> {
    let mut squares: BTreeSet<String> = ["d4", "e4", "d5", "e5"].map(String::from).into();
    for list in ["opening", "moves"] {
        for m in game[list].as_array().unwrap() {
            squares.insert(m.as_str().unwrap().to_lowercase());
        }
    }
    squares
}

#[test]
fn an_illegal_move_loses_and_is_kept_in_the_log() {
    // The line protocol: the move itself; GTP: the answer line, `= e3`.
    for (protocol, prefix) in [("line", ""), ("gtp", "= ")] {
        let (all, _) = every_game_fails(
            protocol,
            "othello",
            "",
            &["--illegal-at", "2"],
            "stall_timeout = \"10s\"",
            "illegal-move",
        );
        for g in &all {
            let d = detail(g);
            let (said, why) = d.split_once(": ").unwrap_or_else(|| panic!("{g}"));
            let square = said.strip_prefix(prefix).unwrap_or_else(|| panic!("{g}"));
            // The fake's illegal move is an occupied square, and the detail says so.
            assert!(occupied(g).contains(square), "{protocol}: {d} in {g}");
            let taken = format!("{square} is taken; legal moves: ");
            assert!(why.starts_with(&taken), "{protocol}: {d}");
        }
    }
}

#[test]
fn garbage_is_an_illegal_move_with_the_line_kept() {
    let (all, _) = every_game_fails(
        "line",
        "connect4",
        "",
        &["--garbage-at", "2"],
        "stall_timeout = \"10s\"",
        "illegal-move",
    );
    for g in &all {
        assert_eq!(detail(g), "banana9: a move is a column 1..7", "{g}");
    }
}

#[test]
fn a_flood_loses_without_holding_the_run() {
    // Every protocol passes over lines that are no answer (a flood's are not shaped as a
    // move), up to 1000: then the program stalls, its first lines named.
    for (protocol, game) in [("line", "connect4"), ("gtp", "othello")] {
        let (all, _) = every_game_fails(
            protocol,
            game,
            "",
            &["--flood-at", "2"],
            "stall_timeout = \"10s\"",
            "stall",
        );
        for g in &all {
            let detail = detail(g);
            assert!(
                detail.contains("fake.py: more than 1000 lines without the answer expected")
                    && detail.contains("(passed over): 'flood flood flood"),
                "{g}"
            );
        }
    }
}

#[test]
fn chatter_is_passed_over() {
    for (protocol, game) in [("line", "connect4"), ("gomocup", "morpion-9x9-5")] {
        let dir = common::scratch("chatter");
        let text = spec(
            game,
            2,
            "",
            protocol,
            &["--chatter", "5", "--log", "received.txt"],
            "stall_timeout = \"10s\"",
        );
        let (stdout, _) = run_ok(&dir, &text, &[]);
        let all = games(&dir.join("out"));
        assert_eq!(all.len(), 4);
        assert!(all.iter().all(|g| termination(g) == "normal"), "{all:?}");
        // The fake did play (it was asked for moves), with chatter before each answer.
        assert!(all.iter().any(|g| g["moves"].as_array().unwrap().len() > 2));
        assert_eq!(termination_row(&stdout, "fake"), [4, 0, 0, 0, 0, 0]);
        // It ran in the spec's folder (its --log is relative).
        assert!(dir.join("received.txt").is_file());
    }
}

#[test]
fn lines_that_are_no_answer_are_passed_over_in_every_protocol() {
    // A debug print on stdout before every answer: the games go on, as under GTP before.
    for (protocol, game) in [
        ("line", "connect4"),
        ("gtp", "othello"),
        ("nboard", "othello"),
        ("gomocup", "morpion-9x9-5"),
    ] {
        let dir = common::scratch("stray");
        // NBoard programs give their name when told a depth.
        let depth = if protocol == "nboard" {
            "depth = 1"
        } else {
            ""
        };
        let text = spec(game, 1, "", protocol, &["--stray", "2"], depth);
        let (stdout, _) = run_ok(&dir, &text, &[]);
        let all = games(&dir.join("out"));
        assert!(
            all.iter().all(|g| termination(g) == "normal"),
            "{protocol}: {all:?}"
        );
        assert_eq!(termination_row(&stdout, "fake")[1..], [0, 0, 0, 0, 0]);
        // The first ones are copied to the engine's log.
        let log = engine_log(&dir.join("out"), "fake");
        assert!(
            log.iter()
                .any(|(_, l)| l == "stdout, no answer, passed over: thinking... 1 moves so far"),
            "{protocol}: {log:?}"
        );
        // The name the program gave itself at its handshake is kept, and shown in the report.
        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("out/run.json")).unwrap())
                .unwrap();
        let own = format!("fake-{protocol}");
        assert_eq!(record["reported_names"]["fake"], own.as_str(), "{protocol}");
        let page = std::fs::read_to_string(dir.join("out/index.html")).unwrap();
        let shown = page
            .find("<td>fake (calls itself ")
            .map(|at| &page[at..at + 60])
            .unwrap_or_else(|| panic!("{protocol}: no reported name in the page"));
        assert!(shown.contains(&own), "{protocol}: {shown}");
    }
    // A Gomocup program that never ends its answer to ABOUT's line (as PentaZen does) plays,
    // its name kept, and the open line prefixes no later answer.
    let dir = common::scratch("about-unended");
    let text = spec("morpion-9x9-5", 1, "", "gomocup", &["--about-unended"], "");
    let (stdout, _) = run_ok(&dir, &text, &[]);
    let all = games(&dir.join("out"));
    assert!(all.iter().all(|g| termination(g) == "normal"), "{all:?}");
    assert_eq!(termination_row(&stdout, "fake")[1..], [0, 0, 0, 0, 0]);
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/run.json")).unwrap()).unwrap();
    assert_eq!(record["reported_names"]["fake"], "fake-gomocup");
    // When no answer comes at all, the stall names what the program wrote instead.
    let dir = common::scratch("stray-hang");
    let text = spec(
        "connect4",
        1,
        "",
        "line",
        &["--stray", "2", "--hang-at", "2"],
        "stall_timeout = \"1s\"",
    );
    run_ok(&dir, &text, &[]);
    let all = games(&dir.join("out"));
    assert!(all.iter().all(|g| termination(g) == "stall"), "{all:?}");
    assert!(
        detail(&all[0]).starts_with("no answer to 'move game=connect4 moves=")
            && detail(&all[0]).ends_with(
                "within 1 s; it wrote 2 lines that are no answer (passed over): 'thinking... 1 moves so far', 'thinking... 2 moves so far'"
            ),
        "{}",
        detail(&all[0])
    );
}

/// The fake misbehaves (`flags`) once across all its processes, on one thread: the first game
/// fails with `expected`, the program is started again, the next games are normal.
fn misbehaves_once(
    flags: &[&str],
    engine: &str,
    expected: &str,
) -> (Vec<Value>, Vec<(u32, String)>) {
    let dir = common::scratch("once");
    let once = dir.join("once");
    let mut all_flags = vec!["--once", once.to_str().unwrap(), "--stderr-lines", "1"];
    all_flags.extend_from_slice(flags);
    let text = spec("connect4", 3, "", "line", &all_flags, engine);
    let (stdout, _) = run_ok(&dir, &text, &["--threads", "1"]);
    let all = games(&dir.join("out"));
    assert_eq!(all.len(), 6);
    assert_eq!(termination(&all[0]), expected, "{}", all[0]);
    assert!(fake_lost(&all[0]));
    for g in &all[1..] {
        assert_eq!(termination(g), "normal", "the game after the failure: {g}");
    }
    let mut row = [6, 0, 0, 0, 0, 0];
    let column = ["timeout", "stall", "illegal-move", "crash", "limit"]
        .iter()
        .position(|&t| t == expected)
        .unwrap();
    row[1 + column] = 1;
    assert_eq!(termination_row(&stdout, "fake"), row, "{stdout}");
    // Two processes in the log: the one that misbehaved, and its replacement (the handshake
    // check of a fresh run runs before its folder exists: its stderr is kept only for errors).
    let log = engine_log(&dir.join("out"), "fake");
    let starts: Vec<u32> = log
        .iter()
        .filter(|(_, l)| l == "fake stderr line 1")
        .map(|(pid, _)| *pid)
        .collect();
    assert_eq!(starts.len(), 2, "{log:?}");
    let misbehaved: u32 = std::fs::read_to_string(once.join("misbehaved"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(starts[0], misbehaved, "{log:?}");
    assert_ne!(starts[1], misbehaved, "{log:?}");
    assert!(
        !common::alive(misbehaved),
        "the program that failed still runs"
    );
    (all, log)
}

#[test]
fn after_a_crash_the_program_is_started_again_and_the_next_games_are_normal() {
    let (_, log) = misbehaves_once(&["--crash-at", "2"], "stall_timeout = \"10s\"", "crash");
    let crash = log
        .iter()
        .position(|(_, l)| l == "fake: crashing at move 2")
        .expect("the crash in the log");
    let restart = log
        .iter()
        .rposition(|(_, l)| l == "fake stderr line 1")
        .unwrap();
    assert!(restart > crash, "{log:?}");
    assert_ne!(log[restart].0, log[crash].0);
}

#[test]
fn after_a_hang_the_program_is_killed_and_started_again() {
    misbehaves_once(&["--hang-at", "2"], "stall_timeout = \"1s\"", "stall");
}

#[test]
fn after_garbage_the_program_is_started_again() {
    let (all, _) = misbehaves_once(
        &["--garbage-at", "2"],
        "stall_timeout = \"10s\"",
        "illegal-move",
    );
    assert_eq!(detail(&all[0]), "banana9: a move is a column 1..7");
}

#[test]
fn a_slow_start_within_the_stall_timeout_plays_and_one_beyond_it_is_refused() {
    let dir = common::scratch("slow");
    let text = spec(
        "connect4",
        2,
        "",
        "line",
        &["--slow-start", "300"],
        "stall_timeout = \"2s\"",
    );
    run_ok(&dir, &text, &["--quiet"]);
    let all = games(&dir.join("out"));
    assert_eq!(all.len(), 4);
    assert!(all.iter().all(|g| termination(g) == "normal"), "{all:?}");

    let dir = common::scratch("slow2");
    let text = spec(
        "connect4",
        2,
        "",
        "line",
        &["--slow-start", "1500"],
        "stall_timeout = \"200ms\"",
    );
    let out = run(&dir, &text, &["--quiet"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: engine 'fake' (python3 ")
            && stderr.contains("did not start: no answer to 'joute 1 game=connect4' within 200 ms"),
        "{stderr}"
    );
}

#[test]
fn a_slow_engine_on_a_game_clock_loses_on_time_and_the_clocks_are_logged() {
    let dir = common::scratch("clock");
    let text = spec(
        "connect4",
        6,
        "tc = \"0.2+0\"",
        "line",
        &["--sleep-ms", "50"],
        "stall_timeout = \"5s\"",
    );
    let (stdout, stderr) = run_ok(&dir, &text, &[]);
    assert!(
        stderr.contains("clock: 0.2 for every engine, margin 0 ms"),
        "{stderr}"
    );
    let all = games(&dir.join("out"));
    assert_eq!(all.len(), 12);
    let timeouts: Vec<&Value> = all.iter().filter(|g| termination(g) == "timeout").collect();
    assert!(!timeouts.is_empty(), "no loss on time in {all:?}");
    for g in &all {
        assert!(["normal", "timeout"].contains(&termination(g)), "{g}");
        assert!(
            g["not_reproducible"]
                .as_array()
                .unwrap()
                .contains(&Value::from("clock")),
            "{g}"
        );
        // A time and a clock reading for every move played.
        let plies = g["moves"].as_array().unwrap().len();
        let move_us = g["move_us"].as_array().unwrap();
        let clock_ms = g["clock_ms"].as_array().unwrap();
        assert_eq!(move_us.len(), plies, "{g}");
        assert_eq!(clock_ms.len(), plies, "{g}");
        // The fake's moves: at least its 50 ms each, its clock running down from 200 ms.
        let fake_moves_first = g["first"] == "fake";
        let mut last = 200;
        for (i, (took, left)) in move_us.iter().zip(clock_ms).enumerate() {
            if (i % 2 == 0) == fake_moves_first {
                let (took, left) = (took.as_u64().unwrap(), left.as_u64().unwrap());
                assert!(took >= 50_000, "{g}");
                assert!(left < last, "{g}");
                last = left;
            }
        }
    }
    for g in &timeouts {
        assert!(fake_lost(g), "{g}");
        let d = detail(g);
        assert!(
            d.starts_with("no move within ") || d.starts_with("the move took "),
            "{g}"
        );
    }
    let row = termination_row(&stdout, "fake");
    assert_eq!(row, [12, timeouts.len() as u64, 0, 0, 0, 0], "{stdout}");
}

// ---------------------------------------------------------------- 3. bad input

/// A spec with an outside engine that is never started (every case is refused first).
const BAD_BASE: &str = r#"name = "t"
game = "connect4"
seed = 1
openings = { plies = 2, count = 2 }

[[engine]]
name = "a"
command = "sh"
args = ["-c", "exit 0"]
protocol = "line"

[[engine]]
name = "b"
algorithm = "alphabeta"
depth = 1
"#;

/// Runs `args` in `dir`, expects exit 2 and one stderr line holding every piece of
/// `expected`, and nothing written but what was there.
fn refused_in(dir: &Path, args: &[&str], expected: &[&str]) {
    let listing = || {
        let mut all: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        all.sort();
        all
    };
    let before = listing();
    common::refused_in(Some(dir), args, expected);
    assert_eq!(before, listing(), "{args:?} wrote files");
}

#[test]
fn bad_outside_engines_are_refused_on_one_line_naming_the_place_and_key() {
    let dir = common::scratch("bad");
    let othello = BAD_BASE.replace("connect4", "othello");
    // (spec, old, new, place and key, what the message says)
    let cases: Vec<(&str, &str, &str, &str, &str)> = vec![
        (
            BAD_BASE,
            "command = \"sh\"",
            "command = \"./no-such-engine\"",
            "spec.toml:8:11: key 'engine[1].command'",
            "no program /",
        ),
        (
            BAD_BASE,
            "command = \"sh\"",
            "command = \"no-such-engine-joute\"",
            "spec.toml:8:11: key 'engine[1].command'",
            "program 'no-such-engine-joute' is not in PATH",
        ),
        (
            BAD_BASE,
            "command = \"sh\"",
            "command = \"./spec.toml\"",
            "spec.toml:8:11: key 'engine[1].command'",
            "is not an executable file",
        ),
        (
            BAD_BASE,
            "command = \"sh\"",
            "command = \"\"",
            "spec.toml:8:11: key 'engine[1].command'",
            "the command is empty",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"uci\"",
            "spec.toml:10:12: key 'engine[1].protocol'",
            "unknown protocol 'uci'; joute speaks line, gtp, nboard, gomocup",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "",
            "spec.toml:6:1: key 'engine[1].protocol'",
            "an outside program needs protocol =",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"gtp\"",
            "spec.toml:10:12: key 'engine[1].protocol'",
            "the gtp protocol plays othello, not connect4",
        ),
        (
            &othello,
            "protocol = \"line\"",
            "protocol = \"gomocup\"",
            "spec.toml:10:12: key 'engine[1].protocol'",
            "the gomocup protocol plays five in a row",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"line\"\noptions = { hash = [1, 2] }",
            "spec.toml:11:11: key 'engine[1].options.hash'",
            "an option is a string, number or boolean, not an array",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"line\"\noptions = { hash = { mib = 1 } }",
            "spec.toml:11:11: key 'engine[1].options.hash'",
            "not a table",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"line\"\noptions = { book = \"a b\" }",
            "spec.toml:11:11: key 'engine[1].options.book'",
            "white space",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"line\"\noptions = { \"a b\" = 1 }",
            "spec.toml:11:11: key 'engine[1].options.a b'",
            "option name 'a b' may hold",
        ),
        (
            BAD_BASE,
            "seed = 1",
            "seed = 1\ntc = \"ten\"",
            "spec.toml:4:6: key 'tc'",
            "time control 'ten'",
        ),
        (
            BAD_BASE,
            "seed = 1",
            "seed = 1\ntc = \"-1\"",
            "spec.toml:4:6: key 'tc'",
            "time control '-1'",
        ),
        (
            BAD_BASE,
            "seed = 1",
            "seed = 1\ntc = \"5/\"",
            "spec.toml:4:6: key 'tc'",
            "time control '5/'",
        ),
        (
            BAD_BASE,
            "seed = 1",
            "seed = 1\nst = \"100\"",
            "spec.toml:4:6: key 'st'",
            "needs a unit",
        ),
        (
            BAD_BASE,
            "seed = 1",
            "seed = 1\ntc = \"10+0.1\"\nst = \"100ms\"",
            "spec.toml:5:6: key 'st'",
            "not both",
        ),
        (
            BAD_BASE,
            "seed = 1",
            "seed = 1\ntimemargin = \"50ms\"",
            "spec.toml:4:14: key 'timemargin'",
            "timemargin goes with a clock",
        ),
        (
            &othello,
            "protocol = \"line\"",
            "protocol = \"gtp\"\ndepth = 3",
            "spec.toml:11:9: key 'engine[1].depth'",
            "the gtp protocol cannot pass a depth",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"line\"\ntime = \"1s\"",
            "spec.toml:11:8: key 'engine[1].time'",
            "time belongs to built-in engines",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"line\"\nalgorithm = \"alphabeta\"",
            "spec.toml:11:13: key 'engine[1].algorithm'",
            "algorithm belongs to built-in engines",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"line\"\nnear = 2",
            "spec.toml:11:8: key 'engine[1].near'",
            "near belongs to built-in engines",
        ),
        (
            BAD_BASE,
            "depth = 1",
            "depth = 1\nprotocol = \"line\"",
            "spec.toml:16:12: key 'engine[2].protocol'",
            "protocol belongs to outside programs",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"line\"\nstall_timeout = \"5\"",
            "spec.toml:11:17: key 'engine[1].stall_timeout'",
            "needs a unit",
        ),
        (
            BAD_BASE,
            "depth = 1",
            "depth = 1\ntc = \"fast\"",
            "spec.toml:16:6: key 'engine[2].tc'",
            "engine 'b': time control 'fast'",
        ),
        (
            BAD_BASE,
            "protocol = \"line\"",
            "protocol = \"line\"\ntc = \"10\"\nst = \"1s\"",
            "spec.toml:12:6: key 'engine[1].st'",
            "not both",
        ),
        (
            BAD_BASE,
            "depth = 1",
            "depth = 1\ntimemargin = \"50ms\"",
            "spec.toml:16:14: key 'engine[2].timemargin'",
            "timemargin goes with a clock",
        ),
    ];
    for (base, old, new, place, message) in cases {
        assert!(base.contains(old), "{old}");
        std::fs::write(dir.join("spec.toml"), base.replacen(old, new, 1)).unwrap();
        refused_in(
            &dir,
            &["run", "spec.toml", "--out", "out"],
            &[&format!("error: {place}: "), message],
        );
    }
    // joute match: the engine's words.
    for (engine, message) in [
        ("proto=line,name=x", "cmd=PROGRAM is missing"),
        ("cmd=sh,proto=uci", "unknown protocol 'uci'"),
        ("cmd=sh", "proto=PROTOCOL is missing"),
        ("cmd=sh,proto=line,colour=red", "unknown key 'colour'"),
        ("cmd=sh,proto=line,option.book=a b", "white space"),
        ("cmd=sh,proto=gtp,option.book=a\nb", "a control character"),
        (
            "cmd=./no-such-engine,proto=line",
            "/no-such-engine (./no-such-engine from /",
        ),
        (
            "cmd=sh,proto=gtp",
            "the gtp protocol plays othello, not connect4",
        ),
        (
            "cmd=sh,proto=line,st=5",
            "st: time per move '5' needs a unit",
        ),
        (
            "alphabeta:2,colour=red",
            "unknown key 'colour'; keys after a built-in engine",
        ),
        ("alphabeta:2,timemargin=1s", "timemargin goes with a clock"),
    ] {
        refused_in(
            &dir,
            &["match", "connect4", engine, "random"],
            &["error: (command line): key 'ENGINE'", message],
        );
    }
    // joute engine check: the options too.
    refused_in(
        &dir,
        &[
            "engine",
            "check",
            "connect4",
            "--protocol",
            "line",
            "--option",
            "book=a b",
            "--",
            "sh",
        ],
        &["--option: option 'book' has a value with white space"],
    );
}

/// A program that fails at the start of the run is refused before the first game, on one
/// line naming the engine and saying why; the run folder keeps its stderr and can be used
/// again once the spec is fixed.
fn refused_at_start(protocol: &str, game: &str, flag: &str, stall: &str, why: &str) {
    let dir = common::scratch("start");
    let stall = format!("stall_timeout = \"{stall}\"");
    let text = spec(game, 2, "", protocol, &[flag], &stall);
    // --quiet: the error alone.
    let out = run(&dir, &text, &["--quiet"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let expected_start = format!(
        "error: engine 'fake' (python3 {} --protocol {protocol} --game {game} {flag}) did not start: ",
        fake()
    );
    assert!(stderr.starts_with(&expected_start), "{stderr}");
    assert!(
        stderr.contains(why),
        "{protocol} {flag}: '{why}' not in {stderr}"
    );
    assert!(out.stdout.is_empty());
    // Nothing is written: the programs are checked before the run's folder is made (the
    // program's last stderr lines are in the error).
    let out_dir = dir.join("out");
    assert!(!out_dir.exists(), "a refused run left its folder");

    // Without --quiet, the notes on the engines come first: one error line still, and no
    // "playing N games" before it.
    let out = run(&dir, &text, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("playing "), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].starts_with(&expected_start), "{stderr}");

    // The spec fixed, the same folder plays the run.
    let fixed = spec(game, 2, "", protocol, &[], "stall_timeout = \"5s\"");
    run_ok(&dir, &fixed, &["--quiet"]);
    assert_eq!(games(&out_dir).len(), 4);
}

#[test]
fn a_program_that_exits_at_once_is_refused_with_its_stderr() {
    for (protocol, game) in [
        ("line", "connect4"),
        ("gtp", "othello"),
        ("nboard", "othello"),
        ("gomocup", "morpion-9x9-5"),
    ] {
        refused_at_start(
            protocol,
            game,
            "--exit-at-start",
            "10s",
            "its output closed (it exited: exit status: 1); its stderr ended: fake: refusing to start",
        );
    }
}

#[test]
fn a_failed_handshake_is_refused_with_the_answer() {
    // A limit a loaded machine's Python start-up cannot reach where the program answers.
    refused_at_start(
        "line",
        "connect4",
        "--bad-handshake",
        "10s",
        "handshake: it answered 'error nope' to 'joute 1', not 'ok'",
    );
    refused_at_start("gtp", "othello", "--bad-handshake", "10s", "'? no'");
    refused_at_start(
        "gomocup",
        "morpion-9x9-5",
        "--bad-handshake",
        "10s",
        "it answered 'ERROR no' to 'START 9', not 'OK'",
    );
    // NBoard's fake never answers `ping`: the stall limit decides.
    refused_at_start(
        "nboard",
        "othello",
        "--bad-handshake",
        "1s",
        "no answer to 'ping 1' within 1 s",
    );
}

// ---------------------------------------------------------------- 4 and 5. no orphans, resume

#[test]
fn no_engine_outlives_a_finished_run() {
    let dir = common::scratch("orphans");
    let mark = marker("finished");
    let text = spec(
        "connect4",
        2,
        "",
        "line",
        &["--name", &mark],
        "stall_timeout = \"5s\"",
    );
    run_ok(&dir, &text, &["--quiet"]);
    assert_eq!(games(&dir.join("out")).len(), 4);
    assert_all_gone(&mark, "after a finished run");
}

#[test]
fn ctrl_c_leaves_no_engine_and_the_run_resumes_to_the_end() {
    let dir = common::scratch("sigint");
    let mark = marker("sigint");
    let text = spec(
        "connect4",
        12,
        "",
        "line",
        &["--name", &mark, "--sleep-ms", "30"],
        "stall_timeout = \"5s\"",
    );
    std::fs::write(dir.join("spec.toml"), &text).unwrap();
    let out = dir.join("out");
    let child = Command::new(bin())
        .args(["run", "spec.toml", "--out", "out", "--threads", "2"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = out.join("games.jsonl");
    wait_for("2 games", Duration::from_secs(60), || {
        common::lines_in(&log) >= 2
    });
    assert!(
        !common::running_with(&mark).is_empty(),
        "no fake running mid-run"
    );
    // SAFETY: kill(2) on the child's pid, which it still is (the child is not reaped yet).
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stdout}\n{stderr}");
    assert_all_gone(&mark, "after Ctrl-C");
    let logged = common::lines_in(&log);
    assert!((2..24).contains(&logged), "{logged} games logged");
    common::resume_line(&stdout, logged, 24);
    let hash = spec_hash(&out);

    let (stdout, _) = run_ok(&dir, &text, &["--resume"]);
    assert!(stdout.contains("the run: 24 games"), "{stdout}");
    assert_all_gone(&mark, "after the resumed run");
    let all = games(&out);
    let ids: Vec<u64> = all.iter().map(|g| g["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, (0..24).collect::<Vec<u64>>());
    assert_eq!(spec_hash(&out), hash);
    for g in &all {
        assert_eq!(g["spec"].as_str().unwrap(), hash);
        assert_eq!(termination(g), "normal", "{g}");
    }
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let ended: Vec<&str> = record["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["ended"].as_str().unwrap())
        .collect();
    assert_eq!(ended, ["interrupted", "complete"]);
}

#[test]
fn killing_joute_kills_a_hanging_engine_and_the_run_resumes() {
    let dir = common::scratch("sigkill");
    let mark = marker("sigkill");
    let once = dir.join("once");
    // The first process to reach its move 2 hangs; the stall limit is far away.
    let text = spec(
        "connect4",
        3,
        "",
        "line",
        &[
            "--name",
            &mark,
            "--hang-at",
            "2",
            "--once",
            once.to_str().unwrap(),
        ],
        "stall_timeout = \"60s\"",
    );
    std::fs::write(dir.join("spec.toml"), &text).unwrap();
    let mut child = Command::new(bin())
        .args([
            "run",
            "spec.toml",
            "--out",
            "out",
            "--threads",
            "1",
            "--quiet",
        ])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let misbehaved = once.join("misbehaved");
    wait_for("the hang", Duration::from_secs(60), || {
        std::fs::read_to_string(&misbehaved).is_ok_and(|t| t.ends_with('\n'))
    });
    let hanging: u32 = std::fs::read_to_string(&misbehaved)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(common::alive(hanging));
    assert_eq!(common::running_with(&mark), [hanging]);
    child.kill().unwrap(); // SIGKILL: no exit path of joute's runs
    child.wait().unwrap();
    assert_all_gone(&mark, "after SIGKILL of joute");

    // The same spec resumed: the hang was once, every game is played.
    let out = dir.join("out");
    let hash = spec_hash(&out);
    assert_eq!(common::lines_in(&out.join("games.jsonl")), 0);
    run_ok(&dir, &text, &["--resume", "--quiet"]);
    assert_all_gone(&mark, "after the resumed run");
    let all = games(&out);
    assert_eq!(all.len(), 6);
    assert!(all.iter().all(|g| termination(g) == "normal"), "{all:?}");
    assert_eq!(spec_hash(&out), hash);
}

#[test]
fn shards_of_a_run_with_an_outside_engine_merge_in_a_report() {
    let dir = common::scratch("shards");
    let text = spec("connect4", 3, "", "line", &[], "stall_timeout = \"5s\"");
    std::fs::write(dir.join("spec.toml"), &text).unwrap();
    // One --out for both: each shard plays into its shard-I-of-N folder there.
    for shard in ["0/2", "1/2"] {
        let out = common::joute_in(
            &dir,
            &[
                "run",
                "spec.toml",
                "--out",
                "s",
                "--shard",
                shard,
                "--quiet",
            ],
        );
        assert!(out.status.success(), "{out:?}");
    }
    let (a, b) = (
        games(&dir.join("s/shard-0-of-2")),
        games(&dir.join("s/shard-1-of-2")),
    );
    assert_eq!(a.len() + b.len(), 6);
    assert!(!a.is_empty() && !b.is_empty());
    assert_eq!(
        spec_hash(&dir.join("s/shard-0-of-2")),
        spec_hash(&dir.join("s/shard-1-of-2"))
    );
    let ids: BTreeSet<u64> = a
        .iter()
        .chain(&b)
        .map(|g| g["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, (0..6).collect());
    let out = common::joute_in(
        &dir,
        &[
            "report",
            "s/shard-0-of-2/games.jsonl",
            "s/shard-1-of-2/games.jsonl",
            "--out",
            "merged",
            "--json",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["games"], 6);
    assert_eq!(report["terminations"]["normal"], 6);
    let fake = report["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "fake")
        .unwrap();
    assert_eq!(fake["games"], 6);
    assert!(dir.join("merged/index.html").is_file());
    // Run folders given for logs: the line says which file is meant.
    refused_in(
        &dir,
        &["report", "s/shard-0-of-2", "s/shard-1-of-2"],
        &["s/shard-0-of-2 is a folder", "s/shard-0-of-2/games.jsonl"],
    );
}

// ---------------------------------------------------------------- 6 and 7. the Python example

#[test]
fn the_python_example_plays_a_tournament_with_no_failure() {
    let example = manifest("examples/engines/connect4.py");
    let lines = std::fs::read_to_string(&example).unwrap().lines().count();
    assert!(lines < 40, "{example} has {lines} lines");
    let dir = common::scratch("example");
    let text = format!(
        "name = \"example\"\ngame = \"connect4\"\nseed = 1\nopenings = {{ plies = 4, count = 10 }}\n\n\
         [[engine]]\nname = \"connect4-py\"\ncommand = \"python3\"\nargs = [{}]\nprotocol = \"line\"\nstall_timeout = \"10s\"\n\n\
         [[engine]]\nname = \"ab\"\nalgorithm = \"alphabeta\"\ndepth = 2\n",
        quoted(&example)
    );
    let (stdout, _) = run_ok(&dir, &text, &[]);
    let all = games(&dir.join("out"));
    assert_eq!(all.len(), 20);
    for g in &all {
        assert_eq!(termination(g), "normal", "{g}");
    }
    assert_eq!(termination_row(&stdout, "connect4-py"), [20, 0, 0, 0, 0, 0]);
}

/// One rule for a relative program, `engine check --dir` and `match "cmd=…,dir=…"` alike: it is
/// looked up from the current folder, and `dir` is only the folder it runs in; a program that is
/// missing there but inside `dir` is named in the error with the path to write.
#[test]
fn a_relative_program_is_found_from_the_current_folder_whatever_its_dir() {
    let dir = common::scratch("relative-program");
    std::fs::create_dir_all(dir.join("eng/bin")).unwrap();
    std::fs::create_dir_all(dir.join("eng/run")).unwrap();
    // The program runs in eng/run: it writes its working folder where the test can read it.
    let program = dir.join("eng/bin/fake");
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\npwd > \"$0.cwd\"\nexec python3 {} \"$@\"\n",
            fake()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let cwd_of = || {
        let text = std::fs::read_to_string(dir.join("eng/bin/fake.cwd")).unwrap();
        std::fs::remove_file(dir.join("eng/bin/fake.cwd")).unwrap();
        std::path::PathBuf::from(text.trim())
    };
    let run = dir.join("eng/run").canonicalize().unwrap();
    let check = [
        "engine",
        "check",
        "connect4",
        "--protocol",
        "line",
        "--dir",
        "eng/run",
        "--",
        "eng/bin/fake",
        "--protocol",
        "line",
    ];
    let out = common::joute_in(&dir, &check);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(cwd_of(), run);
    let out = common::joute_in(
        &dir,
        &[
            "match",
            "connect4",
            "cmd=eng/bin/fake,proto=line,dir=eng/run,arg=--protocol,arg=line",
            "random",
            "--games",
            "2",
            "--quiet",
            "--threads",
            "1",
            "--out",
            "m",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(cwd_of(), run);
    // Written relative to the working folder: not found, the full path tried and the advice.
    let full = dir.canonicalize().unwrap().join("bin/fake");
    let here = dir.canonicalize().unwrap();
    let said = common::refused_in(
        Some(&dir),
        &[
            "engine",
            "check",
            "connect4",
            "--protocol",
            "line",
            "--dir",
            "eng",
            "--",
            "bin/fake",
        ],
        &[
            &format!(
                "no program {} (bin/fake from {}): not a file",
                full.display(),
                here.display()
            ),
            "found in --dir eng: write eng/bin/fake",
        ],
    );
    assert!(!said.contains("eng/bin/fake from"), "{said}");
    common::refused_in(
        Some(&dir),
        &[
            "match",
            "connect4",
            "cmd=bin/fake,proto=line,dir=eng",
            "random",
        ],
        // Longer (the engine's words come first): its paths may be cut to fit the line.
        &[
            "no program /",
            "(bin/fake from /",
            "): not a file; found in dir=eng: write eng/bin/fake (dir is only the folder it runs in)",
        ],
    );
}

#[test]
fn engine_check_passes_the_example_and_fails_garbage() {
    let dir = common::scratch("check");
    let example = manifest("examples/engines/connect4.py");
    let out = common::joute_in(
        &dir,
        &[
            "engine",
            "check",
            "connect4",
            "--protocol",
            "line",
            "--",
            "python3",
            &example,
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let steps: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("ok ") || l.starts_with("FAIL "))
        .collect();
    assert!(steps.len() >= 5, "{stdout}");
    assert!(steps.iter().all(|l| l.starts_with("ok ")), "{stdout}");
    assert!(
        stdout.contains(&format!("{0} of {0} steps passed", steps.len())),
        "{stdout}"
    );

    let fake = fake();
    let out = common::joute_in(
        &dir,
        &[
            "engine",
            "check",
            "connect4",
            "--protocol",
            "line",
            "--",
            "python3",
            &fake,
            "--protocol",
            "line",
            "--garbage-at",
            "1",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("FAIL ") && l.contains("banana9")),
        "{stdout}"
    );
    assert!(stdout.lines().any(|l| l.starts_with("ok ")), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("does not pass the line check"), "{stderr}");
}

/// `engine check --games N`: whole games against a random mover after the steps, each on a
/// line; a failed one with why and the moves before it in `joute play`'s notation; exit 1 when
/// one failed. Without `--games`, a line says that one exchange proves little.
#[test]
fn engine_check_plays_whole_games_and_names_the_failures() {
    let dir = common::scratch("check-games");
    let fake = fake();
    let check = |extra: &[&str], flags: &[&str]| {
        let mut args = vec!["engine", "check", "othello", "--protocol", "line"];
        args.extend(extra);
        args.extend(["--", "python3", &fake, "--protocol", "line"]);
        args.extend(flags);
        let out = common::joute_in(&dir, &args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // An occupied square at its 6th move of every game.
    let (code, stdout, stderr) = check(&["--games", "2"], &["--illegal-at", "6"]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("does not pass the line check"), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    for (number, side, before) in [(1, "first", 10), (2, "second", 11)] {
        let head = format!(
            "FAIL game {number}, it {side}: it lost by illegal-move after {before} moves: "
        );
        let at = lines
            .iter()
            .position(|l| l.starts_with(&head))
            .unwrap_or_else(|| panic!("no '{head}' in {stdout}"));
        assert!(
            lines[at].contains(" is taken; legal moves: "),
            "{}",
            lines[at]
        );
        let moves = lines[at + 1]
            .strip_prefix("     moves (joute play --opening): ")
            .unwrap_or_else(|| panic!("no moves after {}", lines[at]));
        assert_eq!(moves.split(' ').count(), before, "{moves}");
    }
    assert!(
        stdout.contains("2 of 2 games against a random mover failed (illegal-move 2)"),
        "{stdout}"
    );
    // A compliant program passes every game, its colour alternating.
    let (code, stdout, stderr) = check(&["--games", "2", "--seed", "3"], &[]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("ok   game 1, it first: ")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("ok   game 2, it second: ")),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 games against a random mover, all ended by the rules"),
        "{stdout}"
    );
    assert!(!stdout.contains("proves little"), "{stdout}");
    // Without --games: the steps only, and a line saying what they do not prove.
    let (code, stdout, _) = check(&[], &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(!stdout.contains(" game 1,"), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("one exchange proves little") && l.contains("--games 20")),
        "{stdout}"
    );
}

#[test]
fn engine_check_warns_of_debug_prints_and_suspects_the_protocol() {
    let dir = common::scratch("check-stray");
    let fake = fake();
    let check = |protocol: &str, game: &str, flags: &[&str]| {
        let mut args = vec!["engine", "check", game, "--protocol", protocol];
        args.extend(["--timeout", "1", "--", "python3", &fake]);
        args.extend(flags);
        let out = common::joute_in(&dir, &args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // Debug prints pass (exit 0), with a warning naming them.
    let (code, stdout) = check("gtp", "othello", &["--protocol", "gtp", "--stray", "1"]);
    assert_eq!(code, Some(0), "{stdout}");
    let warn = stdout
        .lines()
        .find(|l| l.starts_with("warn "))
        .unwrap_or_else(|| panic!("no warning in {stdout}"));
    assert!(
        warn.contains("nothing on stdout but answers")
            && warn.contains("that are no answer (passed over): 'thinking... 1 moves so far'")
            && warn.contains("write debug output to stderr"),
        "{warn}"
    );
    assert!(stdout.contains("steps passed"), "{stdout}");
    // A clean program gets no warning.
    let (code, stdout) = check("gtp", "othello", &["--protocol", "gtp"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(!stdout.contains("warn "), "{stdout}");
    // A line-protocol program checked as GTP: the command left unanswered is named, with the
    // protocol as the suspect.
    let (code, stdout) = check("gtp", "othello", &["--protocol", "line"]);
    assert_eq!(code, Some(1), "{stdout}");
    let fail = stdout
        .lines()
        .find(|l| l.starts_with("FAIL 1 "))
        .unwrap_or_else(|| panic!("no failed handshake in {stdout}"));
    assert!(
        fail.contains("no answer to 'protocol_version' within 1 s")
            && fail.contains("does the program speak the gtp protocol?"),
        "{fail}"
    );
}

#[test]
fn engine_check_takes_a_tournaments_limits_and_working_folder() {
    let dir = common::scratch("check-limits");
    let fake = fake();
    let log = dir.join("said.txt");
    let log = log.to_str().unwrap();
    // A budget and a folder: the program is told the budget and runs in the folder (the
    // log's relative path lands there).
    std::fs::create_dir(dir.join("data")).unwrap();
    let out = common::joute_in(
        &dir,
        &[
            "engine",
            "check",
            "morpion-9x9-5",
            "--protocol",
            "gomocup",
            "--nodes",
            "5000",
            "--depth",
            "4",
            "--dir",
            "data",
            "--",
            "python3",
            &fake,
            "--protocol",
            "gomocup",
            "--log",
            "said.txt",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let said = std::fs::read_to_string(dir.join("data/said.txt")).unwrap();
    assert!(said.contains("INFO max_node 5000\n"), "{said}");
    assert!(said.contains("INFO max_depth 4\n"), "{said}");
    // A clock: one more step, the game on it; a program that refuses GTP's time commands
    // fails the check (it passes without the clock).
    let out = common::joute_in(
        &dir,
        &[
            "engine",
            "check",
            "othello",
            "--protocol",
            "gtp",
            "--tc",
            "20+0.1",
            "--",
            "python3",
            &fake,
            "--protocol",
            "gtp",
            "--log",
            log,
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("ok   7 a whole game on the clock (20 s + 100 ms a move)"),
        "{stdout}"
    );
    assert!(stdout.contains("9 of 9 steps passed"), "{stdout}");
    assert!(
        std::fs::read_to_string(log)
            .unwrap()
            .contains("time_settings 20 0 0")
    );
    let out = common::joute_in(
        &dir,
        &[
            "engine",
            "check",
            "othello",
            "--protocol",
            "gtp",
            "--st",
            "1s",
            "--",
            "python3",
            &fake,
            "--protocol",
            "gtp",
            "--no-clock",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("FAIL 2") && l.contains("time_settings")),
        "{stdout}"
    );
    // Limits a protocol cannot pass, and bad words, exit 2 with one line.
    for (args, expect) in [
        (
            vec!["--protocol", "gtp", "--nodes", "10"],
            "cannot pass a node budget",
        ),
        (vec!["--protocol", "gtp", "--tc", "fast"], "--tc: "),
        (
            vec!["--protocol", "gtp", "--timemargin", "1s"],
            "timemargin goes with a clock",
        ),
        (
            vec!["--protocol", "gtp", "--dir", "no-such-folder"],
            "--dir: no folder 'no-such-folder'",
        ),
    ] {
        let mut all = vec!["engine", "check", "othello"];
        all.extend(args);
        all.extend(["--", "python3", &fake, "--protocol", "gtp"]);
        let out = common::joute_in(&dir, &all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expect), "{all:?}: {stderr}");
    }
}

#[test]
fn each_engine_may_keep_its_own_clock() {
    let dir = common::scratch("own-clock");
    let fake = fake();
    let log = dir.join("said.txt");
    // The outside program on its own time per move, the built-in engine on the match's
    // clock: each is told its own, the report says which is which.
    let program = format!(
        "cmd=python3,arg={fake},arg=--protocol,arg=line,arg=--log,arg={},proto=line,name=prog,st=700ms,timemargin=400ms",
        log.display()
    );
    let out = common::joute_in(
        &dir,
        &[
            "match",
            "connect4",
            &program,
            "alphabeta:30,name=ab",
            "--games",
            "2",
            "--tc",
            "30+1",
            "--timemargin",
            "500ms",
            "--out",
            "m",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("clock: 30+1 for the engines without a clock of their own, margin 500 ms"),
        "{stderr}"
    );
    assert!(
        stderr.contains("clock of prog: 700 ms/move, margin 400 ms"),
        "{stderr}"
    );
    let said = std::fs::read_to_string(&log).unwrap();
    let requests: Vec<&str> = said.lines().filter(|l| l.starts_with("move ")).collect();
    assert!(!requests.is_empty(), "{said}");
    assert!(
        requests
            .iter()
            .all(|l| l.contains("movetime=700") && !l.contains("time=30")),
        "{said}"
    );
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("m/run.json")).unwrap()).unwrap();
    let engines = run["spec"]["engines"].as_array().unwrap();
    assert_eq!(engines[0]["clock"]["margin_ms"], 400, "{run}");
    assert!(engines[1].get("clock").is_none(), "{run}");
    assert_eq!(run["spec"]["clock"]["margin_ms"], 500);
    // The built-in engine's moves are on the game clock (a reading after each), the
    // program's are not.
    let games = std::fs::read_to_string(dir.join("m/games.jsonl")).unwrap();
    for line in games.lines() {
        let g: Value = serde_json::from_str(line).unwrap();
        assert_eq!(g["termination"], "normal", "{g}");
        let ab_moves = g["moves"].as_array().unwrap().len() / 2;
        let readings = g["clock_ms"].as_array().unwrap().len();
        assert!(readings.abs_diff(ab_moves) <= 1, "{g}");
    }
}

// ---------------------------------------------------------------- file names of long names

/// Names are limited to 64 characters, and 64 four-byte characters are 256 bytes: the engine's
/// log and the run's default folder still get valid file names (cut, with a hash), and the run
/// plays.
#[test]
fn a_name_of_64_four_byte_characters_makes_valid_file_names() {
    let dir = common::scratch("long-name");
    let long = "\u{1d11e}".repeat(64);
    let text = spec("connect4", 1, "", "line", &[], "stall_timeout = \"5s\"")
        .replace("name = \"fake\"", &format!("name = \"{long}\""))
        .replace("name = \"t\"", &format!("name = \"{long}\""));
    std::fs::write(dir.join("spec.toml"), text).unwrap();
    let out = common::joute_in(&dir, &["run", "spec.toml", "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<_> = std::fs::read_dir(dir.join("reports"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(reports.len(), 1);
    let folder = &reports[0];
    let name = folder.file_name().unwrap().to_str().unwrap();
    assert!(name.len() <= 255 && name.starts_with('\u{1d11e}'), "{name}");
    assert_eq!(games(folder).len(), 2);
    let logs: Vec<String> = std::fs::read_dir(folder.join("engines"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(
        logs[0].len() <= 255 && logs[0].ends_with(".log"),
        "{logs:?}"
    );
}

// ---------------------------------------------------------------- daemons and floods

/// A program that leaves a process behind the way a daemon does (a double fork and `setsid`:
/// out of its process group), with joute's mark in its environment or without: nothing of it
/// survives a finished run, a run refused at the handshake, or a Ctrl-C, and `engine check`
/// says so and fails.
#[test]
fn a_daemon_that_leaves_the_group_does_not_outlive_joute() {
    for flag in ["--daemon", "--daemon-clean-env"] {
        let dir = common::scratch("daemon");
        let mark = marker("daemon");
        let text = spec(
            "connect4",
            2,
            "",
            "line",
            &["--name", &mark, flag],
            "stall_timeout = \"5s\"",
        );
        run_ok(&dir, &text, &["--quiet"]);
        assert_eq!(games(&dir.join("out")).len(), 4);
        assert_all_gone(&mark, &format!("{flag}: after a finished run"));

        // Refused at the handshake: joute ends with an error after the program started.
        let mark = marker("daemon-refused");
        let text = spec(
            "connect4",
            2,
            "",
            "line",
            &["--name", &mark, flag, "--bad-handshake"],
            "stall_timeout = \"5s\"",
        );
        std::fs::write(dir.join("spec.toml"), &text).unwrap();
        let out = common::joute_in(&dir, &["run", "spec.toml", "--out", "refused"]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert_all_gone(&mark, &format!("{flag}: after a refused run"));

        // Ctrl-C in the middle of the run.
        let mark = marker("daemon-sigint");
        let text = spec(
            "connect4",
            12,
            "",
            "line",
            &["--name", &mark, flag, "--sleep-ms", "30"],
            "stall_timeout = \"5s\"",
        );
        std::fs::write(dir.join("spec.toml"), &text).unwrap();
        let child = Command::new(bin())
            .args([
                "run",
                "spec.toml",
                "--out",
                "stopped",
                "--threads",
                "2",
                "--quiet",
            ])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let log = dir.join("stopped/games.jsonl");
        wait_for("2 games", Duration::from_secs(60), || {
            common::lines_in(&log) >= 2
        });
        assert!(!running_with(&mark).is_empty(), "no fake running mid-run");
        // SAFETY: kill(2) on the child's pid, which it still is (the child is not reaped yet).
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(130));
        assert_all_gone(&mark, &format!("{flag}: after Ctrl-C"));

        // engine check: the process left behind fails the last step.
        let mark = marker("daemon-check");
        let fake = fake();
        let check = |extra: &[&str]| {
            let mut args = vec!["engine", "check", "connect4", "--protocol", "line", "--"];
            args.extend(["python3", &fake, "--protocol", "line"]);
            args.extend(extra);
            common::joute_in(&dir, &args)
        };
        let out = check(&[]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let out = check(&["--name", &mark, flag]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        let failed: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL ")).collect();
        assert_eq!(failed.len(), 1, "{stdout}");
        assert!(
            failed[0].contains("it left in") && failed[0].contains(" behind after "),
            "{stdout}"
        );
        assert_all_gone(&mark, &format!("{flag}: after engine check"));
    }
}

/// A program flooding its stderr: `engines/NAME.log` stays within `[output] engine_log_mib`,
/// with the program's first lines, a line saying how much was dropped, and its last lines.
#[test]
fn a_stderr_flood_is_capped_keeping_its_start_and_its_end() {
    let dir = common::scratch("stderr-flood");
    // 2 MiB of stderr before each of the fake's moves, a 1 MiB cap.
    let text = spec(
        "connect4",
        2,
        "[output]\nengine_log_mib = 1",
        "line",
        &["--stderr-lines", "1", "--stderr-flood", "2048"],
        "stall_timeout = \"20s\"",
    );
    run_ok(&dir, &text, &["--quiet", "--threads", "1"]);
    let out = dir.join("out");
    let path = out.join("engines/fake.log");
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size <= 1 << 20, "{size} bytes");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with("] fake stderr line 1"), "{}", lines[0]);
    let markers: Vec<&&str> = lines.iter().filter(|l| l.starts_with("[joute] ")).collect();
    assert_eq!(markers.len(), 1);
    let dropped: u64 = markers[0]
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    // The fake's moves, each 2 MiB of stderr: all but the cap was dropped.
    let moves: u64 = games(&out)
        .iter()
        .map(|g| {
            let plies = g["moves"].as_array().unwrap().len() as u64;
            // The opening is 2 plies: the first player's moves are the even ones after it.
            if g["first"] == "fake" {
                plies.div_ceil(2)
            } else {
                plies / 2
            }
        })
        .sum();
    assert!(moves > 4, "{moves} moves");
    let flood = moves * (2048 * 1024 / 100) * 100;
    assert!(
        dropped + size >= flood && dropped < flood + moves * 1_000_000,
        "{dropped} of {flood}"
    );
    // The end of the log is the end of the last flood.
    let last = lines.last().unwrap();
    assert!(
        last.contains("fake flood move")
            && last.contains(&format!("line {:>6}", 2048 * 1024 / 100 - 1)),
        "{last}"
    );
}

// ---------------------------------------------------------------- what a move cost

/// The fake's moves of `game` (the games' openings are 2 plies long, or any length): for each,
/// its ply (moves before it, the opening's included) and its index in the game's arrays.
fn fake_moves(game: &Value) -> Vec<(usize, usize)> {
    let opening = game["opening"].as_array().unwrap().len();
    let fake = common::moves_by(game, "fake");
    fake.into_iter().map(|i| (opening + i, i)).collect()
}

/// `game[field][i]` as a number; 0 when the field is absent (the log leaves out a field no
/// move has) or the entry is `null` (a count the engine did not say).
fn figure(game: &Value, field: &str, i: usize) -> u64 {
    game.get(field).map_or(0, |v| {
        if v[i].is_null() {
            return 0;
        }
        v[i].as_u64()
            .unwrap_or_else(|| panic!("{field}[{i}] in {game}"))
    })
}

/// The fake's CPU and wall microseconds over `games`, every move's CPU time measured.
fn fake_cost(games: &[Value]) -> (Vec<u64>, u64, u64) {
    let mut cpu = Vec::new();
    let mut wall = 0;
    for g in games {
        for (_, i) in fake_moves(g) {
            cpu.push(
                g["move_cpu_us"][i]
                    .as_u64()
                    .unwrap_or_else(|| panic!("move {i} has no CPU time: {g}")),
            );
            wall += g["move_us"][i].as_u64().unwrap();
        }
    }
    assert!(cpu.len() >= 4, "{} moves of the fake", cpu.len());
    let total = cpu.iter().sum();
    (cpu, total, wall)
}

#[test]
fn a_moves_cpu_time_counts_the_programs_children_and_not_its_sleep() {
    // Each way a program may spend 40 ms of CPU on a move: itself, a child started for the
    // move and reaped (a wrapper running one engine process per move), a child kept for the
    // whole run; and one that sleeps 40 ms instead. The fake burns CPU time, not wall time, so
    // what a move used does not depend on the machine's load, while its share of the move's
    // wall time does (a 40 ms burn took 90 to 190 ms of wall time here at a load of 9 on 2
    // cores): the burners are held to their CPU time, the sleeper to its share.
    for (flags, burns) in [
        (["--burn-ms", "40"], true),
        (["--child-burn-ms", "40"], true),
        (["--worker-burn-ms", "40"], true),
        (["--sleep-ms", "40"], false),
    ] {
        let dir = common::scratch("cpu");
        let text = spec("connect4", 1, "", "line", &flags, "stall_timeout = \"20s\"");
        run_ok(&dir, &text, &["--quiet"]);
        let all = games(&dir.join("out"));
        assert!(all.iter().all(|g| termination(g) == "normal"), "{all:?}");
        let (cpu, total, wall) = fake_cost(&all);
        if burns {
            // 40 ms of CPU a move at least (a reaped child's time is in clock ticks of 10 ms:
            // a move may be a tick short).
            assert!(cpu.iter().all(|&us| us >= 30_000), "{flags:?}: {cpu:?} µs");
        } else {
            // A fifth of its 40 ms sleep at most, each move and all of them.
            assert!(cpu.iter().all(|&us| us <= 8_000), "{flags:?}: {cpu:?} µs");
            assert!(
                total as f64 <= 0.2 * wall as f64,
                "{flags:?}: CPU {total} µs of {wall} µs"
            );
        }
    }
}

#[test]
fn what_programs_say_of_their_search_is_logged_in_each_protocol() {
    // The fake says it as each protocol's engines do (tests/engines/README.md, --report): the
    // line protocol's `depth= seldepth= nodes=`, NBoard's `nodestats` and `search` lines
    // (Edax's, NTest's), Gomocup's MESSAGE lines (Rapfi's, PentaZen's), each after a smaller
    // report that the last one replaces; GTP has no way to say it.
    for (protocol, game) in [
        ("line", "connect4"),
        ("nboard", "othello"),
        ("gomocup", "morpion-9x9-5"),
        ("gtp", "othello"),
    ] {
        let dir = common::scratch("report");
        let depth = if protocol == "nboard" {
            "depth = 1"
        } else {
            ""
        };
        let text = spec(game, 2, "", protocol, &["--report"], depth);
        run_ok(&dir, &text, &["--quiet"]);
        let all = games(&dir.join("out"));
        assert!(all.iter().all(|g| termination(g) == "normal"), "{all:?}");
        let mut moves = 0;
        let mut abbreviated = 0;
        for g in &all {
            for (ply, i) in fake_moves(g) {
                moves += 1;
                let (depth, seldepth, nodes) =
                    (ply as u64 + 1, ply as u64 + 4, 1000 * (ply as u64 + 1) + 7);
                let expected = match protocol {
                    "line" => (depth, seldepth, nodes),
                    // NBoard says no selective depth.
                    "nboard" => (depth, 0, nodes),
                    // Rapfi's form at even plies writes 10000 nodes and more in thousands,
                    // PentaZen's at odd plies from 1000: recorded as the least they mean.
                    "gomocup" if ply.is_multiple_of(2) && nodes < 10_000 => {
                        (depth, seldepth, nodes)
                    }
                    "gomocup" => {
                        abbreviated += 1;
                        (depth, seldepth, nodes / 1000 * 1000)
                    }
                    _ => (0, 0, 0),
                };
                let logged = (
                    figure(g, "move_depth", i),
                    figure(g, "move_seldepth", i),
                    figure(g, "move_nodes", i),
                );
                assert_eq!(logged, expected, "{protocol}: ply {ply} of {g}");
            }
        }
        assert!(moves >= 8, "{protocol}: {moves} moves");
        if protocol == "gomocup" {
            assert!(abbreviated >= 2, "{abbreviated} abbreviated counts");
        }
    }
}

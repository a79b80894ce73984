//! A sharded SPRT with no server (issue #16): shard processes sharing a folder each append to
//! their own log and read the others'; the run is decided on the prefix of pairs every shard
//! has finished, at the pair one machine decides it at, and every shard stops there — one of
//! them killed (SIGKILL) and resumed on the way.

use crate::common;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use common::{bin, joute_ok, scratch};
use joute::arena::log::GameLine;
use serde_json::Value;

/// Connect 4, depth 7 against depth 6: H1 of [0, 10] is accepted after about 340 of the 3000
/// pairs, a couple of seconds of games.
const SPEC: &str = r#"
name = "sharded-sprt"
game = "connect4"
seed = 11
openings = { plies = 6, count = 3000 }

[sprt]
elo0 = 0
elo1 = 10

[[engine]]
name = "ab-7"
algorithm = "alphabeta"
depth = 7

[[engine]]
name = "ab-6"
algorithm = "alphabeta"
depth = 6
"#;

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// Shard `i` of 3 of the spec into `dir/shard-i-of-3`, on one thread.
fn shard(spec: &Path, dir: &Path, i: usize) -> Child {
    let out = dir.join(format!("shard-{i}-of-3"));
    std::process::Command::new(bin())
        .args(["run", spec.to_str().unwrap(), "--shard", &format!("{i}/3")])
        .args([
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "1",
            "--quiet",
            "--resume",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn shards_decide_the_sprt_where_one_machine_does_and_stop_there() {
    let dir = scratch("decide");
    let spec = dir.join("spec.toml");
    std::fs::write(&spec, SPEC).unwrap();

    // One machine.
    let whole: Value = serde_json::from_str(&joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        dir.join("whole").to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(whole["sprt"]["decision"], "h1", "{whole}");
    let pairs = whole["sprt"]["pairs"].as_u64().unwrap();
    assert!((100..2000).contains(&pairs), "{pairs}");

    // Three shards at once, sharing `shards/`; shard 1 is killed once it has logged 20 games
    // and started again at once.
    let shards = dir.join("shards");
    let mut running: Vec<Child> = (0..3).map(|i| shard(&spec, &shards, i)).collect();
    let log1 = shards.join("shard-1-of-3/games.jsonl");
    while running[1].try_wait().unwrap().is_none() && lines(&log1) < 20 {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        running[1].try_wait().unwrap().is_none(),
        "shard 1 ended before the kill"
    );
    running[1].kill().unwrap();
    running[1].wait().unwrap();
    let killed_at = lines(&log1);
    running[1] = shard(&spec, &shards, 1);
    let outputs: Vec<String> = running
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        })
        .collect();
    eprintln!("shard 1 killed with {killed_at} games logged");

    let logs: Vec<_> = (0..3)
        .map(|i| shards.join(format!("shard-{i}-of-3/games.jsonl")))
        .collect();
    for (i, log) in logs.iter().enumerate() {
        let mine = common::game_lines(log);
        // Whole pairs, dealt out by pair number.
        assert!(mine.iter().all(|g| g.pair % 3 == i as u64), "shard {i}");
        // It stopped scheduling once the run was decided: far fewer than its 2000 games, and
        // no pair started long after the decision (the pairs in flight and those the shard
        // played before the slowest shard caught up aside).
        assert!(mine.len() < 2000 / 2, "shard {i}: {} games", mine.len());
        // Each says the run's decision.
        assert!(
            outputs[i].contains(&format!("H1 accepted after {pairs} pairs")),
            "shard {i}: {}",
            outputs[i]
        );
    }
    // Every pair before the decision was played, both games, by exactly one shard.
    let all: Vec<GameLine> = logs.iter().flat_map(|l| common::game_lines(l)).collect();
    for pair in 0..pairs {
        assert_eq!(
            all.iter().filter(|g| g.pair == pair).count(),
            2,
            "pair {pair}"
        );
    }

    // The merge decides as the single machine did, with the same LLR, and the games it counts
    // are the single machine's.
    let mut args = vec!["report".to_string()];
    args.extend(logs.iter().map(|l| l.display().to_string()));
    args.extend([
        "--out".into(),
        dir.join("merged").display().to_string(),
        "--json".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let merged: Value = serde_json::from_str(&joute_ok(&args)).unwrap();
    for key in ["decision", "pairs", "llr"] {
        assert_eq!(merged["sprt"][key], whole["sprt"][key], "{key}: {merged}");
    }
    let by_id = |mut games: Vec<GameLine>| {
        games.retain(|g| g.pair < pairs);
        games.sort_by_key(|g| g.id);
        games
            .into_iter()
            .map(|g| (g.id, g.moves, g.score))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        by_id(all),
        by_id(common::game_lines(&dir.join("whole/games.jsonl")))
    );
}

#[test]
fn a_shard_of_an_earlier_version_is_not_resumed_but_still_merges() {
    let dir = scratch("old");
    let spec = dir.join("spec.toml");
    std::fs::write(
        &spec,
        SPEC.replace("[sprt]\nelo0 = 0\nelo1 = 10\n", "")
            .replace("3000", "12"),
    )
    .unwrap();
    let out = dir.join("shard-0-of-2");
    joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--shard",
        "0/2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    // Made to look like an earlier joute's shard: dealt out by game id, no `unit`.
    let run = out.join("run.json");
    let mut info: Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    info["shard"].as_object_mut().unwrap().remove("unit");
    std::fs::write(&run, info.to_string()).unwrap();
    let refused = std::process::Command::new(bin())
        .args([
            "run",
            spec.to_str().unwrap(),
            "--shard",
            "0/2",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("dealt out by game id"), "{stderr}");
    // Its log still reads in a report.
    joute_ok(&[
        "report",
        out.join("games.jsonl").to_str().unwrap(),
        "--json",
    ]);
}

/// The scenarios of the fault injection: what is done to shard 1's log, and the piece of the
/// one error line when the readers must refuse it (`None`: tolerated).
type Fault = (&'static str, fn(&str) -> String, Option<&'static str>);

/// The lines of a log as JSON values.
fn values(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A decisive game of the log, its result flipped (moves and spec hash untouched).
fn forged(text: &str) -> String {
    let mut games = values(text);
    let g = games
        .iter_mut()
        .find(|g| g["score"] != 0.5 && g["termination"] == "normal")
        .unwrap();
    let score = g["score"].as_f64().unwrap();
    g["score"] = (1.0 - score).into();
    g["result"] = if score == 1.0 { "0-1" } else { "1-0" }.into();
    g["margin"] = (-g["margin"].as_i64().unwrap()).into();
    games.iter().map(|g| format!("{g}\n")).collect()
}

/// The readers of shard logs, fed a sibling's log damaged five ways: an exact duplicate line
/// and a torn last line are tolerated (the duplicate said once) and leave the run's decision
/// as it was; a conflicting line, a forged result and another spec's log are refused with the
/// file and the line; never a panic. Each reader: a shard resuming (it reads its siblings'
/// logs at once) and `joute report` over both logs.
#[test]
fn a_damaged_sibling_log_is_refused_or_tolerated_and_never_changes_the_decision() {
    let dir = scratch("faults");
    let spec = dir.join("spec.toml");
    std::fs::write(&spec, SPEC).unwrap();
    // Two shards played at once to the decision.
    let shards = dir.join("shards");
    let two = |i: usize| {
        std::process::Command::new(bin())
            .args(["run", spec.to_str().unwrap(), "--shard", &format!("{i}/2")])
            .args([
                "--out",
                shards.join(format!("shard-{i}-of-2")).to_str().unwrap(),
            ])
            .args(["--threads", "1", "--quiet"])
            .output()
            .unwrap()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| two(0));
        let b = s.spawn(|| two(1));
        (a.join().unwrap(), b.join().unwrap())
    });
    for out in [&a, &b] {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let decided = |stdout: &str| -> String {
        let at = stdout
            .find("the run's SPRT (every shard's log): ")
            .unwrap_or_else(|| panic!("no decision in {stdout}"));
        stdout[at..].lines().next().unwrap().to_string()
    };
    let reference = decided(&String::from_utf8_lossy(&a.stdout));
    assert!(reference.contains("H1 accepted after"), "{reference}");
    let merged = |logs: &[&Path], json: bool| -> std::process::Output {
        let mut args = vec!["report".to_string()];
        args.extend(logs.iter().map(|l| l.display().to_string()));
        args.extend(["--out".into(), dir.join("merged").display().to_string()]);
        if json {
            args.push("--json".into());
        }
        std::process::Command::new(bin())
            .args(&args)
            .output()
            .unwrap()
    };
    let sprt_of = |out: &std::process::Output| -> Value {
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["sprt"].clone()
    };
    let log0 = shards.join("shard-0-of-2/games.jsonl");
    let log1 = shards.join("shard-1-of-2/games.jsonl");
    let clean = merged(&[&log0, &log1], true);
    assert!(clean.status.success());
    let reference_sprt = sprt_of(&clean);

    // Another spec's log, for the last fault.
    let other = dir.join("other.toml");
    std::fs::write(
        &other,
        SPEC.replace("seed = 11", "seed = 12").replace("3000", "4"),
    )
    .unwrap();
    joute_ok(&[
        "run",
        other.to_str().unwrap(),
        "--shard",
        "1/2",
        "--out",
        dir.join("other/shard-1-of-2").to_str().unwrap(),
        "--quiet",
    ]);
    let other_log = std::fs::read_to_string(dir.join("other/shard-1-of-2/games.jsonl")).unwrap();
    static OTHER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    OTHER.set(other_log).unwrap();

    let faults: [Fault; 5] = [
        (
            "a duplicated line",
            |t| format!("{t}{}\n", t.lines().nth(2).unwrap()),
            None,
        ),
        ("a torn last line", |t| format!("{t}{{\"id\":7,\"pa"), None),
        (
            "a conflicting line",
            |t| {
                let mut g = values(t).remove(2);
                g["seconds"] = 123.5.into();
                format!("{t}{g}\n")
            },
            Some("was read before with other content"),
        ),
        ("a forged result", forged, Some("the moves end in")),
        (
            "another spec's log",
            |_| OTHER.get().unwrap().clone(),
            Some("belongs to spec"),
        ),
    ];
    let text1 = std::fs::read_to_string(&log1).unwrap();
    for (k, (what, damage, refusal)) in faults.iter().enumerate() {
        let case = dir.join(format!("case-{k}"));
        for i in 0..2 {
            let from = shards.join(format!("shard-{i}-of-2"));
            let to = case.join(format!("shard-{i}-of-2"));
            std::fs::create_dir_all(&to).unwrap();
            for f in ["games.jsonl", "run.json"] {
                std::fs::copy(from.join(f), to.join(f)).unwrap();
            }
        }
        let damaged = case.join("shard-1-of-2/games.jsonl");
        std::fs::write(&damaged, damage(&text1)).unwrap();
        // Shard 0 resumed: it reads shard 1's log before anything else.
        let resumed = std::process::Command::new(bin())
            .args([
                "run",
                spec.to_str().unwrap(),
                "--shard",
                "0/2",
                "--resume",
                "--quiet",
            ])
            .args(["--out", case.join("shard-0-of-2").to_str().unwrap()])
            .output()
            .unwrap();
        let own = case.join("shard-0-of-2/games.jsonl");
        let logs: [&Path; 2] = [&own, &damaged];
        let report = merged(&logs, false);
        for (reader, out) in [("the resumed shard", &resumed), ("the report", &report)] {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{what}, {reader}: {stderr}");
            match refusal {
                Some(piece) => {
                    assert_eq!(out.status.code(), Some(2), "{what}, {reader}: {stderr}");
                    assert_eq!(stderr.lines().count(), 1, "{what}, {reader}: {stderr}");
                    assert!(
                        stderr.contains(piece) && stderr.contains("shard-1-of-2/games.jsonl:"),
                        "{what}, {reader}: {stderr}"
                    );
                }
                None => {
                    assert!(out.status.success(), "{what}, {reader}: {stderr}");
                    let said = stderr.matches("is logged again, the same line").count();
                    assert_eq!(said, usize::from(k == 0), "{what}, {reader}: {stderr}");
                }
            }
        }
        if refusal.is_none() {
            let stdout = String::from_utf8_lossy(&resumed.stdout);
            assert_eq!(decided(&stdout), reference, "{what}");
            assert_eq!(sprt_of(&merged(&logs, true)), reference_sprt, "{what}");
        }
    }
}

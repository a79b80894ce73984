//! The corpus of hostile inputs (`tests/hostile/cases.toml`, written by `generate.py`): every
//! command, every key of tournament, tuning and weights files, openings files, board strings,
//! damaged logs and run records. Each case must be refused with exit code 2 within seconds,
//! with exactly one line on stderr of at most 300 characters, no raw control character, no
//! panic, and nothing written but the case's own inputs (the command runs in a scratch folder
//! of its own, with TMPDIR inside it).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use assert_cmd::Command;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Corpus {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    args: Vec<String>,
    /// A piece the error line must hold.
    expect: Option<String>,
    spec: Option<String>,
    spec_hex: Option<String>,
    weights: Option<String>,
    weights_hex: Option<String>,
    openings: Option<String>,
    openings_hex: Option<String>,
    suite: Option<String>,
    log: Option<String>,
    /// A real run's folder `run/`, damaged this way.
    damage: Option<String>,
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out
}

/// The finished runs of the damage cases' specs, each played once and copied for every case
/// (the corpus damages one spec's run 117 ways; playing it each time was a third of the test).
struct FinishedRuns {
    home: common::Scratch,
    by_spec: Mutex<BTreeMap<String, PathBuf>>,
}

impl FinishedRuns {
    fn new() -> Self {
        FinishedRuns {
            home: common::scratch("finished"),
            by_spec: Mutex::new(BTreeMap::new()),
        }
    }

    /// The finished run of `spec`, played in a folder of the same shape as a case's
    /// (`spec.toml` beside `run/`): its files name only relative paths, so a copy is the run
    /// playing it in the case's folder would have written.
    fn of(&self, spec: &str) -> PathBuf {
        let mut runs = self.by_spec.lock().unwrap();
        if let Some(played) = runs.get(spec) {
            return played.clone();
        }
        let folder = self.home.join(runs.len().to_string());
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("spec.toml"), spec).unwrap();
        let out = Command::cargo_bin("joute")
            .unwrap()
            .current_dir(&folder)
            .args(["run", "spec.toml", "--out", "run", "--quiet"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        runs.insert(spec.to_string(), folder.join("run"));
        folder.join("run")
    }
}

/// Copies the folder `from` (files and folders only) to `to`.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A finished run of `dir/spec.toml` in `dir/run`, then damaged as `how` says.
fn damaged_run(dir: &Path, how: &str, finished: &FinishedRuns) {
    let spec = std::fs::read_to_string(dir.join("spec.toml")).unwrap();
    let played = finished.of(&spec);
    let run = dir.join("run");
    copy_folder(&played, &run);
    for generated in [
        "index.html",
        "ratings.csv",
        "scale.csv",
        "crosstable.csv",
        "pairs.csv",
        "terminations.csv",
    ] {
        let _ = std::fs::remove_file(run.join(generated));
    }
    for entry in std::fs::read_dir(&run).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "png" || e == "svg") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let record = run.join("run.json");
    let log = run.join("games.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let first = text.lines().next().unwrap().to_string();
    let edit_line = |from: &str, to: &str| {
        assert!(first.contains(from), "{how}: {from} not in {first}");
        let changed = first.replacen(from, to, 1);
        std::fs::write(&log, text.replacen(&first, &changed, 1)).unwrap();
    };
    // The first line's id, as written.
    let first_id = {
        let rest = first.split("\"id\":").nth(1).unwrap();
        format!("\"id\":{},", &rest[..rest.find(',').unwrap()])
    };
    match how {
        "truncated run.json" => {
            let r = std::fs::read_to_string(&record).unwrap();
            std::fs::write(&record, &r[..r.len() / 2]).unwrap();
        }
        "run.json edited spec" => {
            let r = std::fs::read_to_string(&record).unwrap();
            std::fs::write(&record, r.replacen("\"depth\": 1", "\"depth\": 2", 1)).unwrap();
        }
        "run.json not json" => std::fs::write(&record, "not json at all").unwrap(),
        "run.json empty" => std::fs::write(&record, "").unwrap(),
        "games.jsonl line not json" => std::fs::write(&log, format!("{text}{{oops\n")).unwrap(),
        "games.jsonl foreign spec" => {
            let hash = first.split("\"spec\":\"").nth(1).unwrap()[..16].to_string();
            edit_line(&hash, "0000000000000000");
        }
        "games.jsonl id beyond" => edit_line(&first_id, "\"id\":999999,"),
        // The same game again with other content (the same line again is skipped, and said).
        "games.jsonl duplicate id" => {
            let again = first.replacen("\"seconds\":", "\"seconds\":1", 1);
            std::fs::write(&log, format!("{text}{again}\n")).unwrap()
        }
        "games.jsonl forged result" => edit_game(&log, &text, |g| {
            let score = g["score"].as_f64().unwrap();
            let flipped = if score == 0.5 { 1.0 } else { 1.0 - score };
            g["score"] = flipped.into();
            g["result"] = if flipped == 1.0 { "1-0" } else { "0-1" }.into();
            g["margin"] = (if flipped == 1.0 { 1 } else { -1 }).into();
        }),
        "games.jsonl result text" => edit_game(&log, &text, |g| {
            g["result"] = if g["result"] == "1-0" { "0-1" } else { "1-0" }.into();
        }),
        "games.jsonl margin" => edit_game(&log, &text, |g| {
            g["margin"] = (g["margin"].as_i64().unwrap() + 7).into();
        }),
        "games.jsonl illegal move" => edit_game(&log, &text, |g| {
            g["moves"][0] = "8".into();
        }),
        "games.jsonl escape in a move" => edit_game(&log, &text, |g| {
            let mv = g["moves"][0].as_str().unwrap().to_string();
            g["moves"][0] = format!("{mv}\u{1b}[2J").into();
        }),
        "games.jsonl unfinished" => edit_game(&log, &text, |g| {
            let moves = g["moves"].as_array_mut().unwrap();
            moves.pop();
            let plies = moves.len();
            // The last move's figures go with it: the line is whole but for the game's end.
            for key in joute::arena::log::GameLine::PER_MOVE_FIELDS {
                if let Some(figures) = g.get_mut(key).and_then(|v| v.as_array_mut()) {
                    figures.pop();
                }
            }
            g["plies"] = plies.into();
            g["timeouts"] = serde_json::json!([0, 0]);
        }),
        "games.jsonl another termination" => edit_game(&log, &text, |g| {
            g["termination"] = "timeout".into();
        }),
        "games.jsonl bad score" => {
            let score = first.split("\"score\":").nth(1).unwrap();
            let score = &score[..score.find(',').unwrap()];
            edit_line(&format!("\"score\":{score},"), "\"score\":0.7,");
        }
        "games.jsonl plies mismatch" => {
            let plies = first.split("\"plies\":").nth(1).unwrap();
            let plies = &plies[..plies.find(',').unwrap()];
            edit_line(&format!("\"plies\":{plies},"), "\"plies\":999,");
        }
        "games.jsonl timeouts exceed plies" => {
            edit_line("\"timeouts\":[0,0]", "\"timeouts\":[4000000000,0]")
        }
        "games.jsonl wrong engine" => {
            let name = first.split("\"first\":\"").nth(1).unwrap();
            let name = &name[..name.find('"').unwrap()];
            edit_line(
                &format!("\"first\":\"{name}\""),
                "\"first\":\"\\u001b[2Jintruder\"",
            );
        }
        "games.jsonl binary" => {
            let mut bytes = text.into_bytes();
            bytes.extend_from_slice(&[0xff, 0xfe, 0x00, b'\n']);
            std::fs::write(&log, bytes).unwrap();
        }
        "games.jsonl huge number" => edit_line(&first_id, "\"id\":1e400,"),
        "games.jsonl negative id" => edit_line(&first_id, "\"id\":-1,"),
        // A sound run, for cases whose fault is in the command line.
        "intact" => {}
        other => panic!("unknown damage '{other}'"),
    }
}

/// Rewrites the log with its first game edited by `edit`.
fn edit_game(log: &Path, text: &str, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut game: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    edit(&mut game);
    lines[0] = game.to_string();
    std::fs::write(log, lines.join("\n") + "\n").unwrap();
}

/// Runs one case in a fresh scratch folder; returns a description of what went wrong, if
/// anything did.
fn check(case: &Case, finished: &FinishedRuns) -> Option<String> {
    let scratch = common::scratch("case");
    let dir: &Path = &scratch;
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    };
    if let Some(t) = &case.spec {
        write("spec.toml", t.as_bytes());
    }
    if let Some(h) = &case.spec_hex {
        write("spec.toml", &hex(h));
    }
    if let Some(t) = &case.weights {
        write("w.toml", t.as_bytes());
    }
    if let Some(h) = &case.weights_hex {
        write("w.toml", &hex(h));
    }
    if let Some(t) = &case.openings {
        write("o.txt", t.as_bytes());
    }
    if let Some(h) = &case.openings_hex {
        write("o.txt", &hex(h));
    }
    if let Some(t) = &case.suite {
        write("suite.txt", t.as_bytes());
    }
    if let Some(t) = &case.log {
        write("run/games.jsonl", t.as_bytes());
    }
    if let Some(how) = &case.damage {
        damaged_run(dir, how, finished);
    }
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let before = files(dir);
    let out = Command::cargo_bin("joute")
        .unwrap()
        .current_dir(dir)
        .env("TMPDIR", &tmp)
        .args(&case.args)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let mut problems = Vec::new();
    if out.status.code() != Some(2) {
        problems.push(format!("exit {:?}", out.status.code()));
    }
    if stderr.contains("panicked") {
        problems.push("a panic".into());
    }
    let lines: Vec<&str> = stderr.lines().collect();
    if lines.len() != 1 {
        problems.push(format!("{} lines on stderr", lines.len()));
    }
    if let Some(line) = lines.first() {
        if line.chars().count() > 300 {
            problems.push(format!("a line of {} characters", line.chars().count()));
        }
        if line.chars().any(char::is_control) {
            problems.push("a raw control character".into());
        }
        if let Some(piece) = &case.expect
            && !line.contains(piece.as_str())
        {
            problems.push(format!("'{piece}' not in the error"));
        }
    }
    let written: Vec<_> = files(dir).difference(&before).cloned().collect();
    if !written.is_empty() {
        problems.push(format!("files written: {written:?}"));
    }
    (!problems.is_empty()).then(|| {
        format!(
            "{}: {} — stderr: {}",
            case.name,
            problems.join(", "),
            stderr.chars().take(400).collect::<String>()
        )
    })
}

#[test]
fn every_hostile_input_is_refused_on_one_clear_line_and_writes_nothing() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/cases.toml"),
    )
    .unwrap();
    let corpus: Corpus = toml::from_str(&text).unwrap();
    assert!(corpus.case.len() >= 600, "{} cases", corpus.case.len());
    // Two threads of cases: the machine has two cores.
    let (left, right) = corpus.case.split_at(corpus.case.len() / 2);
    let finished = FinishedRuns::new();
    let check = |case| check(case, &finished);
    let failures: Vec<String> = std::thread::scope(|s| {
        let a = s.spawn(|| left.iter().filter_map(check).collect::<Vec<_>>());
        let b = s.spawn(|| right.iter().filter_map(check).collect::<Vec<_>>());
        let mut all = a.join().unwrap();
        all.extend(b.join().unwrap());
        all
    });
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        corpus.case.len(),
        failures.join("\n")
    );
}

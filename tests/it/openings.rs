//! Opening suites: `joute openings` is reproducible, the shipped suites in `openings/` are what
//! their headers say (same lines when regenerated, exact Connect 4 scores, no two Othello
//! openings symmetric images), and a spec's `order` and `start` keys.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::common::joute;

use joute::arena::TournamentSpec;
use joute::arena::openings::read_openings_file;
use joute::arena::suites::{self, connect4_suite, header_values, othello_canonical, othello_suite};
use joute::eval::Weights;
use joute::games::{Connect4, Game, Othello};
use joute::search::solver::connect4::Connect4Solver;

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("openings")
        .join(name)
}

/// The header's `key: value` lines and the suite's lines (comments dropped).
fn suite_file(name: &str) -> (Vec<(String, String)>, Vec<String>) {
    let text = std::fs::read_to_string(shipped(name)).unwrap();
    let lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    (header_values(&text), lines)
}

/// The `key=value` parameters of the header's `parameters:` line.
fn parameters(header: &[(String, String)]) -> Vec<(String, String)> {
    let line = &header.iter().find(|(k, _)| k == "parameters").unwrap().1;
    line.split_whitespace()
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect()
}

fn param<T: std::str::FromStr>(params: &[(String, String)], key: &str) -> T {
    params
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or_else(|| panic!("no parameter {key}"))
}

fn seed(header: &[(String, String)]) -> u64 {
    header
        .iter()
        .find(|(k, _)| k == "seed")
        .unwrap()
        .1
        .parse()
        .unwrap()
}

#[test]
fn the_same_command_gives_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str], out: &str| {
        let path = dir.path().join(out);
        // The same command again, on a fresh file: an existing one is replaced only with --force
        // (which would change the command the file records).
        let _ = std::fs::remove_file(&path);
        joute()
            .arg("openings")
            .args(args)
            .arg("--out")
            .arg(&path)
            .assert()
            .success();
        std::fs::read_to_string(path).unwrap()
    };
    let args = ["othello", "--count", "12", "--depth", "4", "--seed", "5"];
    let a = run(&args, "a.txt");
    let b = run(&args, "a.txt");
    assert_eq!(a, b);
    assert!(a.contains("# command: joute openings othello --count 12 --depth 4 --seed 5 --out"));
    assert!(a.contains(&format!("# joute-version: {}", env!("CARGO_PKG_VERSION"))));
    assert!(a.contains("# seed: 5"));
    assert!(a.contains("# parameters: plies=8 count=12 depth=4 max_score=8"));
    let c = run(
        &["othello", "--count", "12", "--depth", "4", "--seed", "6"],
        "c.txt",
    );
    assert_ne!(
        a.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>(),
        c.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
    );
    // Connect 4, every score kept: the first candidates, solved.
    let args = [
        "connect4",
        "--plies",
        "8",
        "--count",
        "2",
        "--max-score",
        "22",
    ];
    assert_eq!(run(&args, "c4.txt"), run(&args, "c4.txt"));
    // The file reads back as an openings file.
    let list = read_openings_file(Othello::start(), &dir.path().join("a.txt")).unwrap();
    assert_eq!(list.len(), 12);
    let list = read_openings_file(Connect4::start(), &dir.path().join("c4.txt")).unwrap();
    assert_eq!(list.len(), 2);
    assert!(list.iter().all(|m| m.len() == 8));
}

#[test]
fn json_output_lists_the_openings() {
    let out = joute()
        .args([
            "openings", "othello", "--count", "3", "--depth", "2", "--json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(value["openings"].as_array().unwrap().len(), 3);
    assert_eq!(value["seed"], 1);
}

/// Checks the shipped Connect 4 suite: a prefix of `prefix` lines regenerated from the
/// header's parameters gives the same lines; every `step`-th stored score is the solver's and
/// within the narrow bound; no two openings are the same position or mirror images.
fn check_connect4_suite(prefix: u32, step: usize) {
    let (header, lines) = suite_file("connect4-6ply.txt");
    let params = parameters(&header);
    let plies: u32 = param(&params, "plies");
    let max_score: i32 = param(&params, "max_score");
    assert_eq!(lines.len(), param::<usize>(&params, "count"));
    // The progress heard counts the openings up to the last.
    let mut heard = Vec::new();
    let again = connect4_suite(plies, prefix, seed(&header), max_score, &mut |n| {
        heard.push(n)
    })
    .unwrap();
    assert_eq!(heard, (1..=prefix).collect::<Vec<_>>());
    let again: Vec<String> = again.lines.iter().map(|l| l.to_line()).collect();
    assert_eq!(again, lines[..prefix as usize]);
    let start = Connect4::start();
    let mut seen = HashSet::new();
    let mut solver = Connect4Solver::new();
    for (i, line) in lines.iter().enumerate() {
        let (moves, score) = line.split_once(" ; ").unwrap();
        assert_eq!(moves.len(), plies as usize, "{line}");
        let pos = start.play_sequence(moves).unwrap();
        let score: i32 = score.parse().unwrap();
        assert!(score.abs() <= max_score, "{line}");
        assert!(
            seen.insert(pos),
            "{line} repeats or mirrors an earlier opening"
        );
        seen.insert(suites::connect4_mirror(&pos));
        if i % step == 0 {
            assert_eq!(solver.score(&pos), score, "{line}");
        }
    }
    // The openings-file reader takes the file, scores and all.
    let list = read_openings_file(start, &shipped("connect4-6ply.txt")).unwrap();
    assert_eq!(list.len(), lines.len());
}

/// Every score solved: about a minute (`cargo test --test it openings:: -- --ignored`).
#[test]
#[ignore = "solves all 20 openings of 6 plies: about a minute"]
fn every_score_of_the_shipped_connect4_suite_is_exact() {
    check_connect4_suite(3, 1);
}

#[test]
fn the_shipped_othello_suite_regenerates_and_has_no_symmetric_pair() {
    let (header, lines) = suite_file("othello-8move.txt");
    let params = parameters(&header);
    let plies: u32 = param(&params, "plies");
    let depth: u32 = param(&params, "depth");
    let max_score: f64 = param(&params, "max_score");
    assert_eq!(lines.len(), param::<usize>(&params, "count"));
    let start = Othello::start();
    let prefix = othello_suite(
        plies,
        10,
        seed(&header),
        depth,
        max_score,
        &Weights::default_for(&start),
        &mut |_| {},
    )
    .unwrap();
    let again: Vec<String> = prefix.lines.iter().map(|l| l.to_line()).collect();
    assert_eq!(again, lines[..10]);
    let mut canonical = HashSet::new();
    for line in &lines {
        assert_eq!(line.len(), 16, "{line}: the XOT format is 16 characters");
        let pos = start.play_sequence(line).unwrap();
        assert!(
            canonical.insert(othello_canonical(&pos)),
            "{line} is a symmetric image of an earlier opening"
        );
    }
    let list = read_openings_file(start, &shipped("othello-8move.txt")).unwrap();
    assert_eq!(list.len(), lines.len());
    assert!(list.iter().all(|m| m.len() == 8));
}

#[test]
fn the_shipped_morpion_suite_regenerates_in_the_gomocup_format() {
    let (header, lines) = suite_file("morpion-15x15-4move.txt");
    let params = parameters(&header);
    let start = joute::games::Morpion::start(15, 15, 5);
    let again = suites::morpion_suite(
        start,
        param(&params, "plies"),
        param(&params, "count"),
        seed(&header),
        param(&params, "depth"),
        &mut |_| {},
    )
    .unwrap();
    let again: Vec<String> = again.lines.iter().map(|l| l.to_line()).collect();
    assert_eq!(again, lines);
    assert!(
        lines[0].contains(", ") && lines[0].split(',').count() == 8,
        "{}",
        lines[0]
    );
    let list = read_openings_file(start, &shipped("morpion-15x15-4move.txt")).unwrap();
    assert_eq!(list.len(), lines.len());
}

const SPEC: &str = r#"name = "t"
game = "connect4"
seed = 3
openings = OPENINGS
rounds = 1

[[engine]]
name = "a"
algorithm = "random"

[[engine]]
name = "b"
algorithm = "random"
"#;

fn spec(dir: &Path, openings: &str) -> Result<TournamentSpec, String> {
    let path = dir.join("spec.toml");
    std::fs::write(&path, SPEC.replace("OPENINGS", openings)).unwrap();
    TournamentSpec::load(&path).map_err(|e| e.to_string())
}

#[test]
fn a_spec_takes_a_file_in_order_from_start_or_shuffled_from_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let file: Vec<String> = (0..10)
        .map(|i| format!("{}{}", i % 7 + 1, i / 7 + 1))
        .collect();
    std::fs::write(dir.path().join("o.txt"), file.join("\n") + "\n").unwrap();
    let moves = |s: &TournamentSpec| {
        s.resolved
            .opening_moves
            .iter()
            .map(|m| m.replace(' ', ""))
            .collect::<Vec<_>>()
    };

    let plain = spec(dir.path(), r#"{ file = "o.txt", count = 4 }"#).unwrap();
    assert_eq!(moves(&plain), file[..4]);
    // The defaults written out keep the hash: run.json leaves them out.
    let explicit = spec(
        dir.path(),
        r#"{ file = "o.txt", count = 4, order = "sequential", start = 0 }"#,
    )
    .unwrap();
    assert_eq!(explicit.hash, plain.hash);
    let json = serde_json::to_string(&plain.resolved).unwrap();
    assert!(
        !json.contains("\"order\"") && !json.contains("\"start\""),
        "{json}"
    );

    let started = spec(dir.path(), r#"{ file = "o.txt", count = 4, start = 5 }"#).unwrap();
    assert_eq!(moves(&started), file[5..9]);
    assert_ne!(started.hash, plain.hash);

    let shuffled = spec(
        dir.path(),
        r#"{ file = "o.txt", count = 6, order = "random" }"#,
    )
    .unwrap();
    let again = spec(
        dir.path(),
        r#"{ file = "o.txt", count = 6, order = "random" }"#,
    )
    .unwrap();
    assert_eq!(moves(&shuffled), moves(&again));
    assert_ne!(moves(&shuffled), file[..6]);
    let distinct: HashSet<_> = moves(&shuffled).into_iter().collect();
    assert_eq!(distinct.len(), 6, "no opening repeats within a run");
    assert!(distinct.iter().all(|m| file.contains(m)));

    // Asking for more than the file holds after start is an error naming the key.
    let err = spec(dir.path(), r#"{ file = "o.txt", count = 4, start = 7 }"#).unwrap_err();
    assert!(
        err.contains("spec.toml:4:") && err.contains("after start = 7"),
        "{err}"
    );
    let err = spec(dir.path(), r#"{ file = "o.txt", start = 10 }"#).unwrap_err();
    assert!(err.contains("openings.start"), "{err}");
    let err = spec(dir.path(), r#"{ file = "o.txt", order = "shuffle" }"#).unwrap_err();
    assert!(
        err.contains("spec.toml:4:") && err.contains("openings.order"),
        "{err}"
    );
    let err = spec(dir.path(), r#"{ plies = 2, count = 2, order = "random" }"#).unwrap_err();
    assert!(err.contains("openings.order"), "{err}");
}

#[test]
fn an_illegal_move_in_an_openings_file_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("o.txt"), "# suite\n4453 ; 0\n4458 ; 1\n").unwrap();
    std::fs::write(
        dir.path().join("spec.toml"),
        SPEC.replace("OPENINGS", r#"{ file = "o.txt", count = 1 }"#),
    )
    .unwrap();
    let out = joute()
        .current_dir(dir.path())
        .args(["run", "spec.toml", "--out", "out"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(err.contains("o.txt:3:4:") && err.contains("'8'"), "{err}");
}

/// The long suites: ignored by a plain `cargo test`, run by CI (`.ci/run`) and by
/// `cargo test --test it -- --ignored ::long::`.
mod long {
    use super::*;

    /// Every 5th score solved (a 6-ply solve takes one to two seconds).
    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn the_shipped_connect4_suite_regenerates_and_its_scores_are_exact() {
        check_connect4_suite(1, 5);
    }
}

//! Real engines no one in this project wrote (`../shared/peers`, see its README): Edax plays
//! Othello tournaments over GTP and over NBoard and passes `joute engine check`; Pascal Pons'
//! Connect 4 solver plays through `examples/engines/c4solver.py` (the line protocol) and never
//! loses a game it starts from a won or drawn position, by joute's own solver.
//!
//! They need the peers built: `bash ../shared/peers/build.sh target/peers`, then
//! `JOUTE_PEERS=$PWD/target/peers cargo test --test peers`. Without `JOUTE_PEERS` the tests
//! pass, the suite saying it skipped them (a user's clone has no `../shared`), unless
//! `JOUTE_REQUIRE_PEERS=1`: CI (`.ci/run`) builds the peers and sets both, so there the tests
//! cannot skip silently.
//!
//! Linux only: the peers are built for Linux, and the adapter is a `python3` script.
#![cfg(target_os = "linux")]

mod common;

use common::{bin, manifest};

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The peers' programs, as `build.sh` lays them out in its OUTDIR.
struct Peers {
    /// Edax's binary (`edax-reversi/bin/lEdax-ARCH`).
    edax: PathBuf,
    /// Its evaluation weights (all zero: `make-zero-eval.py`).
    eval: PathBuf,
    /// Pons' solver (`connect4-pons/c4solver`).
    c4solver: PathBuf,
}

/// The peers of `JOUTE_PEERS`; `None` (the test skips, saying so) when it is unset, a failure
/// when `JOUTE_REQUIRE_PEERS=1` or when the folder lacks a program.
fn peers() -> Option<Peers> {
    let Some(dir) = std::env::var_os("JOUTE_PEERS").filter(|d| !d.is_empty()) else {
        assert!(
            std::env::var("JOUTE_REQUIRE_PEERS").as_deref() != Ok("1"),
            "JOUTE_REQUIRE_PEERS=1 but JOUTE_PEERS is not set: build the peers with \
             `bash ../shared/peers/build.sh target/peers` and set JOUTE_PEERS=$PWD/target/peers"
        );
        // Once for the suite, in one write past the test harness's capture: a skip is said
        // even when the tests pass.
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            let line = "tests/peers.rs: skipped, JOUTE_PEERS is not set (to run it: bash \
                        ../shared/peers/build.sh target/peers && \
                        JOUTE_PEERS=$PWD/target/peers cargo test --test peers)\n";
            let _ = std::io::stderr().write_all(line.as_bytes());
        });
        return None;
    };
    // Absolute: the runs start in scratch folders.
    let dir = std::path::absolute(PathBuf::from(dir)).unwrap();
    let bin = dir.join("edax-reversi/bin");
    let edax = std::fs::read_dir(&bin)
        .unwrap_or_else(|e| panic!("JOUTE_PEERS: no Edax folder {}: {e}", bin.display()))
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.is_file()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("Edax"))
        })
        .unwrap_or_else(|| panic!("JOUTE_PEERS: no Edax binary in {}", bin.display()));
    let peers = Peers {
        edax,
        eval: bin.join("data/eval.dat"),
        c4solver: dir.join("connect4-pons/c4solver"),
    };
    for p in [&peers.eval, &peers.c4solver] {
        assert!(p.is_file(), "JOUTE_PEERS: {} is missing", p.display());
    }
    Some(peers)
}

fn text(p: &Path) -> String {
    p.display().to_string()
}

/// `items` as a TOML array of strings (a JSON string is a TOML string).
fn array(items: &[String]) -> String {
    serde_json::to_string(items).unwrap()
}

/// Runs `joute ARGS` in `dir` (the programs' stray files, such as Edax's book, land there).
fn joute_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn ok(out: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Writes `spec` in `dir` and runs it into `dir/out` on 2 threads; checks the run's summary
/// and the log (read back by `joute report`, which checks every line against the run's
/// schedule): `games` games, every one ended by the rules. Returns the games.
fn run_clean(dir: &Path, spec: &str, games: u64) -> Vec<Value> {
    std::fs::write(dir.join("spec.toml"), spec).unwrap();
    let summary = ok(
        &joute_in(
            dir,
            &[
                "run",
                "spec.toml",
                "--out",
                "out",
                "--threads",
                "2",
                "--json",
            ],
        ),
        "joute run",
    );
    let summary: Value = serde_json::from_str(&summary).unwrap();
    let log = dir.join("out/games.jsonl");
    let all: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let failed: Vec<String> = all
        .iter()
        .filter(|g| g["termination"] != "normal")
        .map(|g| format!("game {}: {} {}", g["id"], g["termination"], g["detail"]))
        .collect();
    assert!(
        failed.is_empty(),
        "games not ended by the rules:\n{}",
        failed.join("\n")
    );
    assert_eq!(all.len() as u64, games, "{summary}");
    let report = ok(
        &joute_in(
            dir,
            &["report", "out/games.jsonl", "--out", "report", "--json"],
        ),
        "joute report",
    );
    let report: Value = serde_json::from_str(&report).unwrap();
    for s in [&summary, &report] {
        assert_eq!(s["games"], games, "{s}");
        assert_eq!(s["terminations"]["normal"], games, "{s}");
    }
    all
}

/// Edax over GTP (`-l 6`) and over NBoard (started at `-l 2`, then `set depth 6`) against
/// joute's PVS at depth 3, from 8-ply openings: every game ends by the rules, and the two
/// protocols' games are move for move the same (one thread and no book make Edax deterministic,
/// and it clears its tables at each new game) — the NBoard depth reached Edax, and both
/// dialects kept the position as Edax did.
#[test]
fn edax_plays_over_gtp_and_nboard() {
    let Some(peers) = peers() else {
        return;
    };
    let dir = common::scratch("peers", "edax");
    let args = |protocol: &str, level: &str| {
        array(&[
            protocol.into(),
            "-n".into(),
            "1".into(),
            "-l".into(),
            level.into(),
            "-book-usage".into(),
            "off".into(),
            "-eval-file".into(),
            text(&peers.eval),
        ])
    };
    let edax = serde_json::to_string(&text(&peers.edax)).unwrap();
    let spec = format!(
        "name = \"peers-edax\"\ngame = \"othello\"\nseed = 3\nformat = \"gauntlet\"\n\
         challengers = [\"edax-gtp\", \"edax-nboard\"]\nopenings = {{ plies = 8, count = 4 }}\n\n\
         [[engine]]\nname = \"edax-gtp\"\ncommand = {edax}\nargs = {}\nprotocol = \"gtp\"\n\n\
         [[engine]]\nname = \"edax-nboard\"\ncommand = {edax}\nargs = {}\nprotocol = \"nboard\"\n\
         protocol_version = 1\ndepth = 6\n\n\
         [[engine]]\nname = \"pvs-3\"\nalgorithm = \"pvs\"\ndepth = 3\n",
        args("-gtp", "6"),
        args("-nboard", "2"),
    );
    let games = run_clean(&dir, &spec, 16);
    // Each opening and colour: Edax's game over GTP and over NBoard.
    let mut pairs: BTreeMap<(u64, bool), BTreeMap<String, &Value>> = BTreeMap::new();
    for g in &games {
        let edax_first = g["first"].as_str().unwrap().starts_with("edax");
        let edax = if edax_first {
            &g["first"]
        } else {
            &g["second"]
        };
        let key = (g["opening_index"].as_u64().unwrap(), edax_first);
        pairs
            .entry(key)
            .or_default()
            .insert(edax.as_str().unwrap().to_string(), g);
    }
    assert_eq!(pairs.len(), 8);
    for ((opening, edax_first), by) in &pairs {
        let (gtp, nboard) = (by["edax-gtp"], by["edax-nboard"]);
        assert_eq!(
            (&gtp["moves"], &gtp["result"]),
            (&nboard["moves"], &nboard["result"]),
            "opening {opening} (Edax first: {edax_first}): GTP game {} and NBoard game {} differ",
            gtp["id"],
            nboard["id"]
        );
    }
}

/// Pons' solver (through the adapter) against alpha-beta at depth 4 and MCTS from 12-ply
/// openings (its slowest move there is about a second without an opening book): every game
/// ends by the rules, and from every start that joute's solver finds won for Pons it wins,
/// from every drawn one it does not lose.
#[test]
fn pons_never_loses_a_won_or_drawn_start() {
    let Some(peers) = peers() else {
        return;
    };
    let dir = common::scratch("peers", "pons");
    let pons_args = array(&[
        manifest("examples/engines/c4solver.py"),
        text(&peers.c4solver),
    ]);
    let spec = format!(
        "name = \"peers-pons\"\ngame = \"connect4\"\nseed = 5\nformat = \"gauntlet\"\n\
         challengers = [\"pons\"]\nopenings = {{ plies = 12, count = 8 }}\n\n\
         [[engine]]\nname = \"pons\"\ncommand = \"python3\"\nargs = {pons_args}\nprotocol = \"line\"\n\n\
         [[engine]]\nname = \"alphabeta-4\"\nalgorithm = \"alphabeta\"\ndepth = 4\n\n\
         [[engine]]\nname = \"pvs-10\"\nalgorithm = \"pvs\"\ndepth = 10\n\n\
         [[engine]]\nname = \"mcts-1000\"\nalgorithm = \"mcts\"\nplayouts = 1000\n"
    );
    let games = run_clean(&dir, &spec, 48);
    // The value of each opening for the side to move there, by joute's solver.
    let mut values: BTreeMap<String, (i64, bool)> = BTreeMap::new();
    let (mut won, mut drawn, mut lost) = (0, 0, 0);
    for g in &games {
        let opening: Vec<&str> = g["opening"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let moves = g["moves"].as_array().unwrap().len();
        let position = opening.concat();
        let (score, first_to_move) = *values.entry(position.clone()).or_insert_with(|| {
            let out = joute_in(&dir, &["solve", "connect4", &position, "--json"]);
            let v: Value = serde_json::from_str(&ok(&out, "joute solve")).unwrap();
            assert_eq!(v["exact"], true, "{v}");
            (v["score"].as_i64().unwrap(), v["side_to_move"] == "first")
        });
        // `first` is the engine playing the side that moved first in the game, the opening's
        // moves included (they are the game's first plies).
        assert_eq!(first_to_move, opening.len().is_multiple_of(2));
        let pons_first = g["first"] == "pons";
        let first_points = g["score"].as_f64().unwrap();
        // In Connect 4 the last move wins: a decisive game's winner made it.
        if first_points != 0.5 {
            let last_by_first = !(opening.len() + moves).is_multiple_of(2);
            assert_eq!(first_points == 1.0, last_by_first, "game {}", g["id"]);
        }
        let pons_points = if pons_first {
            first_points
        } else {
            1.0 - first_points
        };
        let value = if pons_first == first_to_move {
            score
        } else {
            -score
        };
        let line = format!(
            "game {} from {position}: Pons ({}) scored {pons_points} from a start worth {value} to it",
            g["id"],
            if pons_first { "first" } else { "second" }
        );
        if value > 0 {
            won += 1;
            assert_eq!(pons_points, 1.0, "{line}");
        } else if value == 0 {
            drawn += 1;
            assert!(pons_points >= 0.5, "{line}");
        } else {
            lost += 1;
        }
    }
    // Each opening is played from both sides: half the games at least start won or drawn.
    println!("Pons started {won} games won, {drawn} drawn, {lost} lost (by joute's solver)");
    assert!(won + drawn >= 24, "won {won}, drawn {drawn}");
    // The seed's openings include drawn ones (by joute's solver): the draw case is tested.
    assert!(
        drawn > 0,
        "no game started drawn: pick a seed whose openings include one"
    );
}

/// Edax passes the compliance check over GTP and over NBoard.
#[test]
fn edax_passes_engine_check() {
    let Some(peers) = peers() else {
        return;
    };
    let dir = common::scratch("peers", "check");
    let (edax, eval) = (text(&peers.edax), text(&peers.eval));
    let common_args = [
        "-n",
        "1",
        "-l",
        "4",
        "-book-usage",
        "off",
        "-eval-file",
        &eval,
    ];
    for (protocol, flags) in [("gtp", vec!["-gtp"]), ("nboard", vec!["-nboard"])] {
        let mut args = vec!["engine", "check", "othello", "--protocol", protocol];
        if protocol == "nboard" {
            args.extend(["--protocol-version", "1", "--depth", "4"]);
        }
        args.extend(["--timeout", "30", "--", &edax]);
        args.extend(flags);
        args.extend(common_args);
        let out = joute_in(&dir, &args);
        let stdout = ok(&out, &format!("joute engine check ({protocol})"));
        assert!(stdout.contains("steps passed"), "{stdout}");
    }
}

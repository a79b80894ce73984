//! Real engines no one in this project wrote (`../shared/peers`, see its README): Edax plays
//! Othello tournaments over GTP and over NBoard and passes `joute engine check`; Pascal Pons'
//! Connect 4 solver plays through `examples/engines/c4solver.py` (the line protocol) and never
//! loses a game it starts from a won or drawn position, by joute's own solver.
//!
//! They need the peers built, so `cargo test` reports them ignored, with that reason. To run
//! them: `bash ../shared/peers/build.sh target/peers` (the project's copies of the sources), or
//! from the public sources — Edax from <https://github.com/abulmo/edax-reversi> (`cd src &&
//! mkdir -p ../bin && make build CC=gcc ARCH=x86-64-v3 OS=linux`, into
//! `target/peers/edax-reversi/bin/`, with an `eval.dat` in `bin/data/`: the tests were written
//! against the all-zero weights `make-zero-eval.py` writes, as the trained ones are not in the
//! repository), Pons' solver from <https://github.com/PascalPons/connect4> (`make`, into
//! `target/peers/connect4-pons/c4solver`) — then `JOUTE_PEERS=$PWD/target/peers cargo test
//! --test it peers:: -- --include-ignored`. Run so without `JOUTE_PEERS` they pass, saying they
//! skipped, unless `JOUTE_REQUIRE_PEERS=1`: CI (`.ci/run`) builds the peers and sets both, so
//! there the tests cannot skip silently.
//!
//! Linux only: the peers are built for Linux, and the adapter is a `python3` script.
#![cfg(target_os = "linux")]

use crate::common;

use common::manifest;

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
            let line = "tests/it/peers.rs: skipped, JOUTE_PEERS is not set (Edax and Pons' \
                        solver built as the file's header says, from github.com/abulmo/edax-reversi \
                        and github.com/PascalPons/connect4, then JOUTE_PEERS=$PWD/target/peers \
                        cargo test --test it peers:: -- --include-ignored)\n";
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

/// Writes `spec` in `dir` as `NAME.toml` and runs it into `dir/NAME` on 2 threads. Returns
/// the run's `--json` summary and its games, sorted by id.
fn run_named(dir: &Path, name: &str, spec: &str) -> (Value, Vec<Value>) {
    let file = format!("{name}.toml");
    std::fs::write(dir.join(&file), spec).unwrap();
    let summary = ok(
        &common::joute_in(
            dir,
            &["run", &file, "--out", name, "--threads", "2", "--json"],
        ),
        "joute run",
    );
    let summary: Value = serde_json::from_str(&summary).unwrap();
    let log = dir.join(name).join("games.jsonl");
    let mut all: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    all.sort_by_key(|g| g["id"].as_u64().unwrap());
    (summary, all)
}

/// Writes `spec` in `dir` and runs it into `dir/out` on 2 threads; checks the run's summary
/// and the log (read back by `joute report`, which checks every line against the run's
/// schedule): `games` games, every one ended by the rules. Returns the games.
fn run_clean(dir: &Path, spec: &str, games: u64) -> Vec<Value> {
    let (summary, all) = run_named(dir, "out", spec);
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
        &common::joute_in(
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
#[ignore = "needs Edax and Pons' solver built: JOUTE_PEERS (tests/it/peers.rs says how)"]
fn edax_plays_over_gtp_and_nboard() {
    let Some(peers) = peers() else {
        return;
    };
    let dir = common::scratch("edax");
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
        // What Edax says of its search: over NBoard a `nodestats NODES SECONDS` line as it
        // searches (the nodes; no depth), over GTP nothing. Every move's CPU time is there.
        for (game, protocol) in [(gtp, "gtp"), (nboard, "nboard")] {
            let opening = game["opening"].as_array().unwrap().len();
            let plies = game["moves"].as_array().unwrap().len();
            let mine = (0..plies).filter(|i| (opening + i).is_multiple_of(2) == *edax_first);
            // `null`: a count Edax did not say.
            let field =
                |name: &str, i: usize| game.get(name).map_or(0, |v| v[i].as_u64().unwrap_or(0));
            let (mut moves, mut counted) = (0, 0);
            for i in mine {
                moves += 1;
                assert!(
                    game["move_cpu_us"][i].is_u64(),
                    "{protocol}: move {i} of {game}"
                );
                assert_eq!(
                    (field("move_depth", i), field("move_seldepth", i)),
                    (0, 0),
                    "{protocol}: move {i} of {game}"
                );
                let nodes = field("move_nodes", i);
                assert!(protocol == "nboard" || nodes == 0, "move {i} of {game}");
                counted += usize::from(nodes > 0);
            }
            if protocol == "nboard" {
                assert!(counted * 10 >= moves * 9, "{counted} of {moves}: {game}");
            }
        }
    }
}

/// Pons' solver (through the adapter) against alpha-beta at depth 4 and MCTS from 12-ply
/// openings (its slowest move there is about a second without an opening book): every game
/// ends by the rules, and from every start that joute's solver finds won for Pons it wins,
/// from every drawn one it does not lose.
#[test]
#[ignore = "needs Edax and Pons' solver built: JOUTE_PEERS (tests/it/peers.rs says how)"]
fn pons_never_loses_a_won_or_drawn_start() {
    let Some(peers) = peers() else {
        return;
    };
    let dir = common::scratch("pons");
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
            let out = common::joute_in(&dir, &["solve", "connect4", &position, "--json"]);
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
#[ignore = "needs Edax and Pons' solver built: JOUTE_PEERS (tests/it/peers.rs says how)"]
fn edax_passes_engine_check() {
    let Some(peers) = peers() else {
        return;
    };
    let dir = common::scratch("check");
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
        let out = common::joute_in(&dir, &args);
        let stdout = ok(&out, &format!("joute engine check ({protocol})"));
        assert!(stdout.contains("steps passed"), "{stdout}");
    }
}

/// An `[[engine]]` table for Edax over `protocol` (`gtp`: `-l level`; `nboard`: `set depth
/// level`), one thread, no book, the zero weights.
fn edax_engine(peers: &Peers, name: &str, protocol: &str, level: u32) -> String {
    let args = array(&[
        format!("-{protocol}"),
        "-n".into(),
        "1".into(),
        "-l".into(),
        level.to_string(),
        "-book-usage".into(),
        "off".into(),
        "-eval-file".into(),
        text(&peers.eval),
    ]);
    let command = serde_json::to_string(&text(&peers.edax)).unwrap();
    let mut table = format!(
        "[[engine]]\nname = \"{name}\"\ncommand = {command}\nargs = {args}\nprotocol = \"{protocol}\"\n"
    );
    if protocol == "nboard" {
        table += &format!("protocol_version = 1\ndepth = {level}\n");
    }
    table
}

/// Runs `spec` without adjudication and again with `adjudication` appended (an
/// `[adjudication]` table), and checks that adjudication changed no game's outcome: the same
/// games (ids, openings, engines), each adjudicated game's moves a prefix of the played-out
/// game's (the engines are deterministic), the same `score`, `result` and `margin`, and the
/// solver's `value` agreeing with the played-out margin — equal to it when `exact_margin`
/// (Othello's value is the disc difference), of its sign otherwise (Connect 4). The runs are
/// `dir/off` and `dir/on`; returns the games of `on`, sorted by id.
fn adjudication_agrees(
    dir: &Path,
    spec: &str,
    adjudication: &str,
    games: u64,
    exact_margin: bool,
) -> Vec<Value> {
    let (off_summary, off) = run_named(dir, "off", spec);
    let (on_summary, on) = run_named(dir, "on", &format!("{spec}\n{adjudication}"));
    assert_eq!(off.len() as u64, games, "{off_summary}");
    assert_eq!(on.len() as u64, games, "{on_summary}");
    let (mut adjudicated, mut plies_off, mut plies_on) = (0, 0, 0);
    for (a, b) in off.iter().zip(&on) {
        let game = format!("game {} (off: {a}\non: {b})", a["id"]);
        for key in ["id", "opening", "first", "second"] {
            assert_eq!(a[key], b[key], "{key}: {game}");
        }
        assert_eq!(a["termination"], "normal", "{game}");
        let (moves_off, moves_on) = (
            a["moves"].as_array().unwrap(),
            b["moves"].as_array().unwrap(),
        );
        assert!(moves_off.starts_with(moves_on), "moves: {game}");
        plies_off += moves_off.len();
        plies_on += moves_on.len();
        // The outcome, margin included, is the played-out one.
        for key in ["score", "result", "margin"] {
            assert_eq!(a[key], b[key], "{key}: {game}");
        }
        match b["termination"].as_str().unwrap() {
            "normal" => assert_eq!(moves_on, moves_off, "{game}"),
            "adjudication" => {
                adjudicated += 1;
                let adj = &b["adjudication"];
                let plies = b["opening"].as_array().unwrap().len() + moves_on.len();
                assert_eq!(adj["plies"], plies as u64, "{game}");
                let value = adj["value"].as_i64().unwrap();
                let for_first = if adj["to_move"] == "first" {
                    value
                } else {
                    -value
                };
                let margin = a["margin"].as_i64().unwrap();
                if exact_margin {
                    assert_eq!(for_first, margin, "the solver's value: {game}");
                } else {
                    assert_eq!(for_first.signum(), margin.signum(), "the value: {game}");
                }
            }
            other => panic!("termination {other}: {game}"),
        }
    }
    assert_eq!(
        on_summary["terminations"]["adjudication"], adjudicated as u64,
        "{on_summary}"
    );
    println!(
        "{adjudicated} of {games} games adjudicated; plies after the openings: {plies_off} \
         played out, {plies_on} with adjudication; {} s off, {} s on",
        off_summary["seconds"], on_summary["seconds"]
    );
    on
}

/// Perfect-knowledge adjudication against a real program whose endgame is exact: Edax at GTP
/// level 8 (it solves the last 16 empties exactly, `-l` up to 10 solving the last 2L) against
/// Edax over NBoard at depth 9 (the last 18), from 8-ply openings. With `othello_empties = 16`
/// a game is adjudicated at its first position with 16 empties or fewer, from where both sides
/// play perfectly: the played-out game (the spec without adjudication) ends with the same
/// result and the same disc margin, which is the solver's value. Edax also reads the adjudicated
/// games' GGF records: loaded, each is the position joute's solver settled (`adjudication`'s
/// `position`, side to move included).
#[test]
#[ignore = "needs Edax and Pons' solver built: JOUTE_PEERS (tests/it/peers.rs says how)"]
fn edax_adjudication_keeps_the_played_out_results() {
    let Some(peers) = peers() else {
        return;
    };
    let dir = common::scratch("edax-adjudication");
    let spec = format!(
        "name = \"peers-edax-adjudication\"\ngame = \"othello\"\nseed = 3\n\
         format = \"round-robin\"\nopenings = {{ plies = 8, count = 4 }}\n\n{}\n{}",
        edax_engine(&peers, "edax-gtp-l8", "gtp", 8),
        edax_engine(&peers, "edax-nboard-9", "nboard", 9),
    );
    let on = adjudication_agrees(
        &dir,
        &spec,
        "[adjudication]\nothello_empties = 16\n",
        8,
        true,
    );
    // No game of these openings ends before 16 empties.
    assert!(on.iter().all(|g| g["termination"] == "adjudication"));
    let files = ggf_files(&dir, "on", &on);
    let mut edax = EdaxGtp::start(&peers, &dir);
    for (g, file) in on.iter().zip(&files) {
        let (shown, rows, to_move) = edax.load(file);
        let ours: Vec<Vec<u8>> = othello_board(&all_moves(g))
            .iter()
            .map(|r| r.to_vec())
            .collect();
        let position = g["adjudication"]["position"].as_str().unwrap();
        let (squares, side) = position.split_once(' ').unwrap();
        let solved: Vec<Vec<u8>> = squares
            .as_bytes()
            .chunks(8)
            .map(|row| {
                row.iter()
                    .map(|&b| if b == b'X' { b'*' } else { b })
                    .collect()
            })
            .collect();
        let what = format!("game {}: {position}\n{shown}", g["id"]);
        assert_eq!(rows, ours, "{what}");
        assert_eq!(rows, solved, "{what}");
        assert_eq!(to_move, if side == "X" { b'*' } else { b'O' }, "{what}");
    }
    edax.quit();
}

/// The same with Pascal Pons' solver (a perfect player, through the adapter) against itself
/// from 12-ply openings, with a budget of 1,000,000 nodes for joute's solver: every game's
/// adjudicated result is its played-out one, and the solver's value has the played-out sign.
#[test]
#[ignore = "needs Edax and Pons' solver built: JOUTE_PEERS (tests/it/peers.rs says how)"]
fn pons_adjudication_keeps_the_played_out_results() {
    let Some(peers) = peers() else {
        return;
    };
    let dir = common::scratch("pons-adjudication");
    let pons_args = array(&[
        manifest("examples/engines/c4solver.py"),
        text(&peers.c4solver),
    ]);
    let pons = |name: &str| {
        format!(
            "[[engine]]\nname = \"{name}\"\ncommand = \"python3\"\nargs = {pons_args}\n\
             protocol = \"line\"\n"
        )
    };
    let spec = format!(
        "name = \"peers-pons-adjudication\"\ngame = \"connect4\"\nseed = 5\n\
         format = \"round-robin\"\nopenings = {{ plies = 12, count = 5 }}\n\n{}\n{}",
        pons("pons"),
        pons("pons-2"),
    );
    let on = adjudication_agrees(
        &dir,
        &spec,
        "[adjudication]\nconnect4_nodes = 1000000\n",
        10,
        false,
    );
    assert!(
        on.iter().any(|g| g["termination"] == "adjudication"),
        "no game was adjudicated"
    );
}

/// Othello's position after `moves` (`pass` included) from the start, by a few lines of rules
/// of this test's own (not joute's): rows 1–8 top to bottom, columns a–h, `*` black, `O` white,
/// `-` empty.
fn othello_board(moves: &[String]) -> [[u8; 8]; 8] {
    let mut board = [[b'-'; 8]; 8];
    (board[3][3], board[4][4], board[3][4], board[4][3]) = (b'O', b'O', b'*', b'*');
    let mut mover = b'*';
    for m in moves {
        let other = if mover == b'*' { b'O' } else { b'*' };
        if m != "pass" {
            let m = m.as_bytes();
            let (col, row) = ((m[0] - b'a') as i32, (m[1] - b'1') as i32);
            assert_eq!(board[row as usize][col as usize], b'-', "{m:?} is taken");
            let mut flipped = 0;
            for (dr, dc) in crate::slow::DIRECTIONS {
                let (mut r, mut c, mut run) = (row + dr, col + dc, Vec::new());
                while (0..8).contains(&r)
                    && (0..8).contains(&c)
                    && board[r as usize][c as usize] == other
                {
                    run.push((r as usize, c as usize));
                    (r, c) = (r + dr, c + dc);
                }
                if (0..8).contains(&r)
                    && (0..8).contains(&c)
                    && board[r as usize][c as usize] == mover
                {
                    flipped += run.len();
                    for (r, c) in run {
                        board[r][c] = mover;
                    }
                }
            }
            assert!(flipped > 0, "{} flips nothing", String::from_utf8_lossy(m));
            board[row as usize][col as usize] = mover;
        }
        mover = other;
    }
    board
}

/// Edax over GTP, one command at a time, each answer awaited before the next command (Edax
/// reads its stdin in a thread of its own: a conversation that runs ahead or closes early can
/// hang it).
struct EdaxGtp {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    answers: std::sync::mpsc::Receiver<String>,
}

/// A failing test leaves no Edax behind.
impl Drop for EdaxGtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl EdaxGtp {
    fn start(peers: &Peers, dir: &Path) -> EdaxGtp {
        let mut child = Command::new(&peers.edax)
            .args([
                "-gtp",
                "-n",
                "1",
                "-l",
                "1",
                "-book-usage",
                "off",
                "-eval-file",
            ])
            .arg(&peers.eval)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        EdaxGtp {
            child,
            stdin: Some(stdin),
            answers,
        }
    }

    /// Sends `command` and returns its answer (`=` or `?` up to the blank line that ends it).
    fn ask(&mut self, command: &str) -> String {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
        let mut answer = String::new();
        loop {
            let line = self
                .answers
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("Edax, after {command:?}: {e} (so far: {answer:?})"));
            // A failure's message may end with a newline of its own: blank lines before an
            // answer are the end of the previous one.
            if line.trim().is_empty() {
                if answer.is_empty() {
                    continue;
                }
                return answer;
            }
            answer += &line;
            answer.push('\n');
        }
    }

    /// Loads the first game of the GGF file `file` (`loadsgf`, Edax's regression command: its
    /// `play_load`, as the console's `load`, the format told by the `.ggf` extension) and
    /// returns Edax's `showboard`: its text, the rows (1–8, squares a–h: `*` black, `O` white,
    /// `-` empty; Edax's `.`, an empty square the mover may play, read as `-`) and the side to
    /// move (`*` or `O`).
    fn load(&mut self, file: &Path) -> (String, Vec<Vec<u8>>, u8) {
        let answer = self.ask(&format!("loadsgf {}", file.display()));
        assert!(
            answer.starts_with('='),
            "Edax refused {}: {answer}",
            file.display()
        );
        let shown = self.ask("showboard");
        // `1 * O - . … 1`, and `* to move` after row 2.
        let rows: Vec<Vec<u8>> = shown
            .lines()
            .filter(|l| {
                l.as_bytes()
                    .first()
                    .is_some_and(|b| (b'1'..=b'8').contains(b))
            })
            .map(|l| {
                (0..8)
                    .map(|c| match l.as_bytes()[2 + 2 * c] {
                        b'.' => b'-',
                        b => b,
                    })
                    .collect()
            })
            .collect();
        let to_move = shown
            .split(" to move")
            .next()
            .and_then(|head| head.bytes().last())
            .unwrap();
        (shown, rows, to_move)
    }

    fn quit(mut self) {
        self.ask("quit");
        drop(self.stdin.take());
        assert!(self.child.wait().unwrap().success());
    }
}

/// The opening's moves then the game's, as strings.
fn all_moves(g: &Value) -> Vec<String> {
    g["opening"]
        .as_array()
        .unwrap()
        .iter()
        .chain(g["moves"].as_array().unwrap())
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// Exports the run in `dir/NAME` to GGF (`joute export --format ggf`, one game a line) and
/// checks the line of each game of `games` (sorted by id, as the export) names its players;
/// returns each line written to a file of its own, `dir/NAME-ID.ggf` (Edax loads the first
/// game of a file).
fn ggf_files(dir: &Path, name: &str, games: &[Value]) -> Vec<PathBuf> {
    let log = format!("{name}/games.jsonl");
    ok(
        &common::joute_in(dir, &["export", &log, "--format", "ggf"]),
        "joute export",
    );
    let ggf = std::fs::read_to_string(dir.join(name).join("games.ggf")).unwrap();
    let lines: Vec<&str> = ggf.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), games.len(), "{ggf}");
    games
        .iter()
        .zip(lines)
        .map(|(g, line)| {
            let players = format!(
                "PB[{}]PW[{}]",
                g["first"].as_str().unwrap(),
                g["second"].as_str().unwrap()
            );
            assert!(line.contains(&players), "game {}: {line}", g["id"]);
            let file = dir.join(format!("{name}-{}.ggf", g["id"]));
            std::fs::write(&file, format!("{line}\n")).unwrap();
            file
        })
        .collect()
}

/// Edax reads the GGF games joute writes. A small Othello run (Edax level 4 against PVS at
/// depth 2, Edax's endgame beating PVS by wide margins, passes included) is exported with
/// `joute export --format ggf`; Edax loads each game over GTP (`EdaxGtp::load`), and its
/// `showboard` must be the game's final position as this test's own rules replay the log's
/// moves, its disc count the log's margin.
#[test]
#[ignore = "needs Edax and Pons' solver built: JOUTE_PEERS (tests/it/peers.rs says how)"]
fn edax_loads_joute_ggf_games() {
    let Some(peers) = peers() else {
        return;
    };
    let dir = common::scratch("ggf");
    let spec = format!(
        "name = \"peers-ggf\"\ngame = \"othello\"\nseed = 11\nformat = \"round-robin\"\n\
         openings = {{ plies = 8, count = 4 }}\n\n{}\n\
         [[engine]]\nname = \"pvs-2\"\nalgorithm = \"pvs\"\ndepth = 2\n",
        edax_engine(&peers, "edax-l4", "gtp", 4),
    );
    let games = run_clean(&dir, &spec, 8);
    let files = ggf_files(&dir, "out", &games);
    let mut edax = EdaxGtp::start(&peers, &dir);
    let mut passes = 0;
    for (g, file) in games.iter().zip(&files) {
        let (shown, rows, _) = edax.load(file);
        let moves = all_moves(g);
        passes += moves.iter().filter(|m| *m == "pass").count();
        let ours: Vec<Vec<u8>> = othello_board(&moves).iter().map(|r| r.to_vec()).collect();
        let line = std::fs::read_to_string(file).unwrap();
        assert_eq!(
            rows, ours,
            "game {}: Edax's position (left) is not the log's\n{shown}\n{line}",
            g["id"]
        );
        let count = |d: u8| ours.iter().flatten().filter(|&&s| s == d).count() as i64;
        let (black, white) = (count(b'*'), count(b'O'));
        let empty = 64 - black - white;
        let margin = (black - white) + (black - white).signum() * empty;
        assert_eq!(g["margin"], margin, "game {}: {shown}", g["id"]);
        // Edax's own count, on the board's `discs =` lines.
        for (disc, n) in [('*', black), ('O', white)] {
            assert!(
                shown.contains(&format!("{disc}: discs = {n:2}")),
                "game {}: {shown}",
                g["id"]
            );
        }
    }
    edax.quit();
    println!(
        "Edax loaded {} joute GGF games ({passes} passes)",
        games.len()
    );
}

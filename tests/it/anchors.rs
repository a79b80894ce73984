//! The anchors: six strong public programs others wrote and trained (`../shared/peers`, README
//! there), each played over its own protocol with joute's own keys — NTest (NBoard, `depth`,
//! its working folder), Egaroucid (GTP through its small front end), Zebra (the line protocol
//! through its adapter), Rapfi (Gomocup, `nodes`), PentaZen (Gomocup on a clock), Velena (the
//! line protocol through its adapter). Each passes `joute engine check` and plays a short
//! match that ends by the rules; NTest's and Egaroucid's fixed-depth matches replay move for
//! move.
//!
//! They need the anchors built, so `cargo test` reports them ignored, with that reason. To run
//! them: `bash ../shared/peers/build-anchors.sh target/anchors` (the project's copies of the
//! public repositories its README names: weltyc/ntest, Nyanyan/Egaroucid, lk16/zebra,
//! dhbloo/rapfi, sun-yuliang/PentaZen, rchastain/velena), then
//! `JOUTE_ANCHORS=$PWD/target/anchors cargo test --test it anchors:: -- --include-ignored`.
//! Run so without `JOUTE_ANCHORS` the tests pass, saying once that they skipped, unless
//! `JOUTE_REQUIRE_ANCHORS=1` (CI sets both). The adapters (Zebra's, Velena's) are read from `../shared/peers/adapters`, or from
//! `JOUTE_ANCHOR_ADAPTERS`.
#![cfg(target_os = "linux")]

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{self, manifest};

/// Where `build-anchors.sh` put the programs, and the adapters' folder.
struct Anchors {
    dir: PathBuf,
    adapters: PathBuf,
}

impl Anchors {
    fn path(&self, relative: &str) -> String {
        let path = self.dir.join(relative);
        assert!(
            path.exists(),
            "JOUTE_ANCHORS: {} is missing",
            path.display()
        );
        path.display().to_string()
    }

    fn adapter(&self, name: &str) -> String {
        let path = self.adapters.join(name);
        assert!(path.is_file(), "no adapter {}", path.display());
        path.display().to_string()
    }
}

/// The anchors of `JOUTE_ANCHORS`; `None` (the test skips, saying so once) when it is unset, a
/// failure when `JOUTE_REQUIRE_ANCHORS=1`.
fn anchors() -> Option<Anchors> {
    let Some(dir) = std::env::var_os("JOUTE_ANCHORS").filter(|d| !d.is_empty()) else {
        assert!(
            std::env::var("JOUTE_REQUIRE_ANCHORS").as_deref() != Ok("1"),
            "JOUTE_REQUIRE_ANCHORS=1 but JOUTE_ANCHORS is not set: build them with \
             `bash ../shared/peers/build-anchors.sh target/anchors` and set \
             JOUTE_ANCHORS=$PWD/target/anchors"
        );
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            let line = "tests/it/anchors.rs: skipped, JOUTE_ANCHORS is not set (the six anchor \
                        engines are built from ../shared/peers: bash \
                        ../shared/peers/build-anchors.sh target/anchors && \
                        JOUTE_ANCHORS=$PWD/target/anchors cargo test --test it anchors::)\n";
            let _ = std::io::stderr().write_all(line.as_bytes());
        });
        return None;
    };
    let adapters = std::env::var_os("JOUTE_ANCHOR_ADAPTERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(manifest("../shared/peers/adapters")));
    Some(Anchors {
        dir: std::path::absolute(PathBuf::from(dir)).unwrap(),
        adapters: std::path::absolute(adapters).unwrap(),
    })
}

/// One anchor: its game, what `joute engine check` is given (flags, then the program and its
/// arguments) and its `joute match` engine word.
struct Anchor {
    name: &'static str,
    game: &'static str,
    check: Vec<String>,
    word: String,
    /// joute's built-in opponent in the short match.
    opponent: &'static str,
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn all(a: &Anchors) -> Vec<Anchor> {
    let ntest = a.path("ntest/build/ntest");
    let ntest_dir = a.path("ntest/run");
    let egaroucid = a.path("egaroucid/egaroucid-gtp");
    let zebra = a.path("zebra/zebra");
    let zebra_dir = a.path("zebra");
    let zebra_py = a.adapter("zebra.py");
    let rapfi = a.path("rapfi/build/pbrain-rapfi");
    let pentazen = a.path("pentazen/pbrain-pentazen");
    let velena = a.path("velena/velena");
    let velena_dir = a.path("velena");
    let velena_py = a.adapter("velena.py");
    vec![
        Anchor {
            name: "ntest",
            game: "othello",
            check: strings(&[
                "--protocol",
                "nboard",
                "--depth",
                "4",
                "--dir",
                &ntest_dir,
                "--",
                &ntest,
            ]),
            word: format!("cmd={ntest},proto=nboard,dir={ntest_dir},depth=4,name=ntest-4"),
            opponent: "pvs:4",
        },
        Anchor {
            name: "egaroucid",
            game: "othello",
            check: strings(&["--protocol", "gtp", "--", &egaroucid, "-l", "4"]),
            word: format!("cmd={egaroucid},proto=gtp,args=-l 4,name=egaroucid-4"),
            opponent: "pvs:4",
        },
        Anchor {
            name: "zebra",
            game: "othello",
            check: strings(&[
                "--protocol",
                "line",
                "--dir",
                &zebra_dir,
                "--",
                "python3",
                &zebra_py,
                &zebra,
                "2",
            ]),
            word: format!(
                "cmd=python3,arg={zebra_py},arg={zebra},arg=2,proto=line,dir={zebra_dir},name=zebra-2"
            ),
            opponent: "pvs:4",
        },
        Anchor {
            name: "rapfi",
            game: "morpion-15x15-5",
            check: strings(&["--protocol", "gomocup", "--nodes", "10000", "--", &rapfi]),
            word: format!("cmd={rapfi},proto=gomocup,nodes=10000,name=rapfi-10k"),
            opponent: "alphabeta:2",
        },
        Anchor {
            name: "pentazen",
            // PentaZen plays renju whatever it is told: its games are judged by renju's rules.
            game: "renju",
            check: strings(&[
                "--protocol",
                "gomocup",
                "--tc",
                "20+0.2",
                "--timemargin",
                "1s",
                "--",
                &pentazen,
            ]),
            word: format!("cmd={pentazen},proto=gomocup,tc=20+0.2,timemargin=1s,name=pentazen"),
            opponent: "alphabeta:2",
        },
        Anchor {
            name: "velena",
            game: "connect4",
            check: strings(&[
                "--protocol",
                "line",
                "--dir",
                &velena_dir,
                "--",
                "python3",
                &velena_py,
                &velena,
                "b",
            ]),
            word: format!(
                "cmd=python3,arg={velena_py},arg={velena},arg=b,proto=line,dir={velena_dir},name=velena-b"
            ),
            opponent: "alphabeta:4",
        },
    ]
}

/// One anchor test at a time: PentaZen times its moves by CPU time, so a loaded machine makes
/// it overrun its clock; the anchors' own tests should not be that load.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `joute match GAME WORD OPPONENT` for `games` games into `dir/out` (on one thread for a
/// program on a clock): every game ended by the rules; the games, sorted by id.
fn short_match(dir: &Path, anchor: &Anchor, out: &str, games: u32) -> Vec<Value> {
    let games_text = games.to_string();
    let threads = if anchor.word.contains(",tc=") {
        "1"
    } else {
        "2"
    };
    let run = common::joute_in(
        dir,
        &[
            "match",
            anchor.game,
            &anchor.word,
            anchor.opponent,
            "--games",
            &games_text,
            "--seed",
            "5",
            "--threads",
            threads,
            "--out",
            out,
            "--quiet",
        ],
    );
    assert!(
        run.status.success(),
        "{}: {:?}\n{}\n{}",
        anchor.name,
        run.status,
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let log = std::fs::read_to_string(dir.join(out).join("games.jsonl")).unwrap();
    let mut all: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    all.sort_by_key(|g| g["id"].as_u64().unwrap());
    assert_eq!(all.len(), games as usize, "{}", anchor.name);
    for g in &all {
        assert_eq!(
            g["termination"], "normal",
            "{}: game {} ended by {}: {}",
            anchor.name, g["id"], g["termination"], g["detail"]
        );
    }
    all
}

#[test]
#[ignore = "needs the six anchor engines built: JOUTE_ANCHORS (tests/it/anchors.rs says how)"]
fn every_anchor_passes_engine_check_with_joutes_own_keys() {
    let Some(a) = anchors() else {
        return;
    };
    let _alone = one_at_a_time();
    let dir = common::scratch("check");
    for anchor in all(&a) {
        let mut args = vec!["engine", "check", anchor.game];
        args.extend(anchor.check.iter().map(String::as_str));
        let out = common::joute_in(&dir, &args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {stdout}\n{}",
            anchor.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let steps = (stdout.lines())
            .filter(|l| l.starts_with("ok ") || l.starts_with("warn "))
            .count();
        assert!(
            steps >= 6 && stdout.contains(&format!("{steps} of {steps} steps passed")),
            "{}: {stdout}",
            anchor.name
        );
    }
}

#[test]
#[ignore = "needs the six anchor engines built: JOUTE_ANCHORS (tests/it/anchors.rs says how)"]
fn every_anchor_plays_a_short_match_to_the_end() {
    let Some(a) = anchors() else {
        return;
    };
    let _alone = one_at_a_time();
    let dir = common::scratch("match");
    for anchor in all(&a) {
        short_match(&dir, &anchor, anchor.name, 4);
    }
}

/// What a move cost, as logged.
#[derive(Debug)]
struct Cost {
    depth: u64,
    seldepth: u64,
    nodes: u64,
    cpu_us: u64,
}

/// Move `i`'s cost; a field the log left out (no move has it) is 0. Every move's CPU time is
/// measured.
fn cost(game: &Value, i: usize) -> Cost {
    // `null`: a count the engine did not say.
    let field = |name: &str| game.get(name).map_or(0, |v| v[i].as_u64().unwrap_or(0));
    Cost {
        depth: field("move_depth"),
        seldepth: field("move_seldepth"),
        nodes: field("move_nodes"),
        cpu_us: game["move_cpu_us"][i]
            .as_u64()
            .unwrap_or_else(|| panic!("move {i} has no CPU time: {game}")),
    }
}

/// Empty squares before move `i` of an Othello game: 60 less the discs played (passes aside).
fn empties(game: &Value, i: usize) -> u64 {
    let played = (game["opening"].as_array().unwrap().iter())
        .chain(&game["moves"].as_array().unwrap()[..i])
        .filter(|m| m.as_str() != Some("pass"))
        .count();
    60 - played as u64
}

/// What each anchor prints of its search is what its games record, and every move's CPU time
/// is there: NTest's `search ... 0 HEIGHT` lines give its depth (4, or the empties when it
/// searches to the end) and no nodes; Rapfi's `MESSAGE ... Depth D-S ... Node N` and PentaZen's
/// `MESSAGE Dep D-S ... Nd N` their depth, selective depth and nodes; Egaroucid (GTP) and the
/// adapters of Zebra and Velena say nothing. Zebra's adapter runs one Zebra process per move
/// and Velena's keeps one Velena running: their CPU time is counted (the adapters alone use a
/// millisecond or two a move).
#[test]
#[ignore = "needs the six anchor engines built: JOUTE_ANCHORS (tests/it/anchors.rs says how)"]
fn every_anchor_records_what_it_prints_and_its_cpu_time() {
    let Some(a) = anchors() else {
        return;
    };
    let _alone = one_at_a_time();
    let dir = common::scratch("cost");
    for anchor in all(&a) {
        let games = short_match(&dir, &anchor, &format!("{}-cost", anchor.name), 2);
        let name = anchor.word.rsplit("name=").next().unwrap();
        let mut moves = Vec::new();
        for g in &games {
            for i in common::moves_by(g, name) {
                moves.push((g, i, cost(g, i)));
            }
        }
        assert!(moves.len() >= 6, "{}: {} moves", anchor.name, moves.len());
        let said = |test: &dyn Fn(&Cost) -> bool| {
            moves.iter().filter(|(_, _, c)| test(c)).count() as f64 / moves.len() as f64
        };
        let all_moves = format!(
            "{}: {:?}",
            anchor.name,
            moves.iter().map(|(_, _, c)| c).collect::<Vec<_>>()
        );
        match anchor.name {
            "ntest" => {
                for (g, i, c) in &moves {
                    let searched = [0, 4, empties(g, *i)].contains(&c.depth);
                    assert!(searched && c.seldepth == 0 && c.nodes == 0, "{all_moves}");
                }
                assert!(said(&|c| c.depth > 0) >= 0.9, "{all_moves}");
            }
            "rapfi" => {
                // 10,000 nodes a move: `Node 10K` and more, recorded as 10,000 at least.
                assert!(said(&|c| c.depth > 0 && c.nodes > 0) >= 0.7, "{all_moves}");
                assert!(
                    moves.iter().any(|(_, _, c)| c.nodes >= 10_000),
                    "{all_moves}"
                );
            }
            "pentazen" => {
                assert!(
                    said(&|c| c.depth > 0 && c.seldepth > 0) >= 0.8,
                    "{all_moves}"
                );
                assert!(said(&|c| c.nodes > 0) >= 0.5, "{all_moves}");
            }
            _ => assert!(
                moves
                    .iter()
                    .all(|(_, _, c)| c.depth + c.seldepth + c.nodes == 0),
                "{all_moves}"
            ),
        }
        let cpu: Vec<u64> = moves.iter().map(|(_, _, c)| c.cpu_us).collect();
        match anchor.name {
            // A Zebra process a move, reaped by the adapter: 30 to 60 ms each here.
            "zebra" => {
                for (g, i, c) in &moves {
                    assert!(
                        g["moves"][*i] == "pass" || c.cpu_us >= 10_000,
                        "{all_moves}"
                    );
                }
            }
            "velena" => assert!(cpu.iter().sum::<u64>() >= 20_000, "{all_moves}"),
            _ => assert!(cpu.iter().any(|&us| us > 0), "{all_moves}"),
        }
    }
}

/// NTest and Egaroucid at a fixed depth are deterministic, and so is joute's PVS: the same
/// match twice is the same games, move for move — the protocols kept the positions exactly.
#[test]
#[ignore = "needs the six anchor engines built: JOUTE_ANCHORS (tests/it/anchors.rs says how)"]
fn fixed_depth_othello_anchors_replay_move_for_move() {
    let Some(a) = anchors() else {
        return;
    };
    let _alone = one_at_a_time();
    let dir = common::scratch("replay");
    for anchor in all(&a)
        .into_iter()
        .filter(|x| ["ntest", "egaroucid"].contains(&x.name))
    {
        let first = short_match(&dir, &anchor, &format!("{}-1", anchor.name), 6);
        let second = short_match(&dir, &anchor, &format!("{}-2", anchor.name), 6);
        for (x, y) in first.iter().zip(&second) {
            assert_eq!(x["moves"], y["moves"], "{}: game {}", anchor.name, x["id"]);
            assert_eq!(x["result"], y["result"]);
        }
        // Not a trivial replay: the anchor won some of its games.
        assert!(
            first.iter().any(|g| g["result"] != "1/2-1/2"),
            "{}: every game drawn",
            anchor.name
        );
    }
}

/// The shipped ladders (`tournaments/anchors-*.toml`) start every outside engine as written:
/// each plays one opening pair against `random`, its command, working folder and arguments
/// exactly as the spec gives them (args are passed as written to a program that runs in its
/// working folder, which is how a path relative to the spec instead of the working folder went
/// unnoticed once). Needs the anchors built where the specs look: `target/anchors`.
#[test]
fn the_shipped_ladders_start_every_outside_engine_as_written() {
    let Some(a) = anchors() else {
        return;
    };
    let built = PathBuf::from(manifest("target/anchors"));
    if std::fs::canonicalize(&built).ok() != std::fs::canonicalize(&a.dir).ok() {
        assert!(
            std::env::var("JOUTE_REQUIRE_ANCHORS").as_deref() != Ok("1"),
            "the shipped ladders look for the anchors in {}, JOUTE_ANCHORS is {}",
            built.display(),
            a.dir.display()
        );
        eprintln!(
            "tests/it/anchors.rs: the ladders' engines not started: the anchors are not in target/anchors"
        );
        return;
    }
    let _alone = one_at_a_time();
    let dir = common::scratch("ladders");
    let specs = PathBuf::from(manifest("tournaments"));
    for ladder in ["anchors-othello", "anchors-connect4", "anchors-gomoku"] {
        let text = std::fs::read_to_string(specs.join(format!("{ladder}.toml"))).unwrap();
        let spec: toml::Table = toml::from_str(&text).unwrap();
        let game = spec["game"].as_str().unwrap();
        // The spec's outside engines, command and working folder made absolute from the spec's
        // folder (as joute resolves them), args untouched; one built-in opponent.
        let mut engines = Vec::new();
        for engine in spec["engine"].as_array().unwrap() {
            let mut engine = engine.as_table().unwrap().clone();
            let Some(command) = engine.get("command").and_then(|c| c.as_str()) else {
                continue;
            };
            if command.contains('/') {
                let absolute = specs.join(command).display().to_string();
                engine.insert("command".into(), absolute.into());
            }
            // Without working_dir a program runs in the spec's folder: keep it there.
            let folder = engine
                .get("working_dir")
                .and_then(|d| d.as_str())
                .unwrap_or(".");
            let absolute = specs.join(folder).display().to_string();
            engine.insert("working_dir".into(), absolute.into());
            engines.push(toml::Value::Table(engine));
        }
        let names: Vec<String> = engines
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect();
        assert!(names.len() >= 3, "{ladder}: {names:?}");
        let mut random = toml::Table::new();
        random.insert("name".into(), "random".into());
        random.insert("algorithm".into(), "random".into());
        engines.push(toml::Value::Table(random));
        let mut mini = toml::Table::new();
        mini.insert("name".into(), ladder.into());
        mini.insert("game".into(), game.into());
        mini.insert("seed".into(), 3.into());
        mini.insert("format".into(), "gauntlet".into());
        mini.insert(
            "challengers".into(),
            vec![toml::Value::from("random")].into(),
        );
        // The ladder's own openings (Pons' solver needs minutes from shallow ones), the first.
        let mut openings = spec["openings"].as_table().unwrap().clone();
        openings.insert("count".into(), 1.into());
        if let Some(file) = openings.get("file").and_then(|f| f.as_str()) {
            let absolute = specs.join(file).display().to_string();
            openings.insert("file".into(), absolute.into());
        }
        mini.insert("openings".into(), openings.into());
        mini.insert("engine".into(), engines.into());
        let path = dir.join(format!("{ladder}.toml"));
        std::fs::write(&path, toml::to_string(&mini).unwrap()).unwrap();
        let out_dir = dir.join(ladder);
        let run = common::joute_in(
            &dir,
            &[
                "run",
                path.to_str().unwrap(),
                "--out",
                out_dir.to_str().unwrap(),
                "--threads",
                "1",
                "--quiet",
            ],
        );
        assert!(
            run.status.success(),
            "{ladder}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let log = std::fs::read_to_string(out_dir.join("games.jsonl")).unwrap();
        let games: Vec<Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(games.len(), 2 * names.len(), "{ladder}");
        for g in &games {
            // Every game played to its end by the rules: a program that did not start, or
            // could not find its files, loses by a crash.
            assert_eq!(
                g["termination"], "normal",
                "{ladder}: {} against {}: {} ({})",
                g["first"], g["second"], g["termination"], g["detail"]
            );
        }
    }
}

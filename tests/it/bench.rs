//! `joute bench`: engines compared on the same positions, checked against plain searches made
//! here through the library (a fresh `Engine` per position), and the fixed benchmark's output
//! as it was before its logic moved into `arena::bench`.

use std::path::Path;

use serde_json::Value;

use crate::common;
use joute::arena::bench::ENGINE_SEED;
use joute::arena::{Engine, EngineSpec};
use joute::eval::Features;
use joute::games::{Connect4, Game, Othello};
use joute::search::solver::connect4::parse_suite_line;
use joute::search::solver::othello::parse_ffo_line;

/// Nodes, depth and selective depth of one search.
type Figures = (u64, u32, u32);

/// Each position searched by a fresh engine of `word`, as the library does it for a player.
fn plain<G: Features>(start: &G, positions: &[G], word: &str) -> Vec<Figures> {
    let spec = EngineSpec::parse(word).unwrap();
    positions
        .iter()
        .map(|pos| {
            let stats = Engine::new(&spec, start, ENGINE_SEED)
                .unwrap()
                .choose(pos)
                .stats;
            (stats.nodes, stats.depth, stats.seldepth)
        })
        .collect()
}

/// Each engine's name and per-position figures in the bench's JSON.
fn benched(v: &Value) -> Vec<(String, Vec<Figures>)> {
    v["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let searches = e["searches"].as_array().unwrap();
            let figures = searches
                .iter()
                .map(|s| {
                    let n = |key: &str| s[key].as_u64().unwrap();
                    (n("nodes"), n("depth") as u32, n("seldepth") as u32)
                })
                .collect();
            (e["engine"].as_str().unwrap().to_string(), figures)
        })
        .collect()
}

fn bench_json(args: &[&str]) -> Value {
    let mut all = vec!["bench"];
    all.extend_from_slice(args);
    all.push("--json");
    serde_json::from_str(&common::joute_ok(&all)).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn counts_equal_plain_searches_of_an_openings_files_positions() {
    let dir = common::scratch("openings");
    let lines = ["4453", "3 4 4", "1234567", "", "7,7,1"];
    let file = write(
        &dir,
        "c4.txt",
        &format!("# an openings file\n{}\n", lines.join("\n")),
    );
    let engines = ["minimax:4", "alphabeta:5", "pvs:6", "mcts:300"];
    let mut args = engines.to_vec();
    args.extend(["--positions", &file]);
    let v = bench_json(&[&["connect4"], &args[..]].concat());
    let start = Connect4::start();
    let positions: Vec<Connect4> = lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| start.play_sequence(l).unwrap())
        .collect();
    let got = benched(&v);
    assert_eq!(got.len(), engines.len());
    for ((name, figures), word) in got.iter().zip(engines) {
        assert_eq!(name, word);
        assert_eq!(figures, &plain(&start, &positions, word), "{word}");
    }
    // mcts has a selective depth, the depth-first searches none.
    assert!(got[3].1.iter().all(|f| f.2 > 0));
    assert!(got[1].1.iter().all(|f| f.2 == 0));
    assert_eq!(v["source"]["form"], "openings");
    // The positions as text are the moves, which read back as the same positions.
    let texts: Vec<&str> = v["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(texts, ["4 4 5 3", "3 4 4", "1 2 3 4 5 6 7", "7 7 1"]);
}

#[test]
fn counts_equal_plain_searches_of_a_suites_positions() {
    let dir = common::scratch("suites");
    // Othello: FFO lines as `joute solve --file` reads them.
    let ffo: Vec<&str> = include_str!("../data/othello-ffo-40-59.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(2)
        .collect();
    let file = write(&dir, "ffo.txt", &format!("# two\n\n{}\n", ffo.join("\n")));
    let v = bench_json(&["othello", "pvs:4", "alphabeta:3", "--positions", &file]);
    assert_eq!(v["source"]["form"], "suite");
    let positions: Vec<Othello> = ffo
        .iter()
        .map(|l| parse_ffo_line(l).unwrap().position)
        .collect();
    for (name, figures) in benched(&v) {
        assert_eq!(
            figures,
            plain(&Othello::start(), &positions, &name),
            "{name}"
        );
    }
    // Connect 4: Pons' `MOVES SCORE` lines; a score such as 4 would be a move in an openings
    // file, so the file is read as a suite.
    let pons: Vec<&str> = include_str!("../data/connect4/Test_L2_R1.txt")
        .lines()
        .take(3)
        .collect();
    let file = write(&dir, "pons.txt", &format!("{}\n", pons.join("\n")));
    let v = bench_json(&["connect4", "alphabeta:6", "--positions", &file]);
    let positions: Vec<Connect4> = pons
        .iter()
        .map(|l| parse_suite_line(l).unwrap().0)
        .collect();
    assert_eq!(
        benched(&v)[0].1,
        plain(&Connect4::start(), &positions, "alphabeta:6")
    );
    assert_eq!(v["positions"][0], pons[0].split(' ').next().unwrap());
}

#[test]
fn random_positions_are_reproducible_from_their_seed() {
    let args = |seed: &str| {
        bench_json(&[
            "connect4",
            "minimax:3",
            "alphabeta:4",
            "--random",
            "12",
            "--plies",
            "6",
            "--seed",
            seed,
        ])
    };
    let (a, again, other) = (args("5"), args("5"), args("6"));
    assert_eq!(a["positions"], again["positions"]);
    assert_eq!(benched(&a), benched(&again));
    assert_ne!(a["positions"], other["positions"]);
    // Twelve distinct positions, six plies each, and the counts of plain searches of them.
    let texts: Vec<&str> = a["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 12);
    let start = Connect4::start();
    let positions: Vec<Connect4> = texts
        .iter()
        .map(|t| {
            assert_eq!(t.split(' ').count(), 6, "{t}");
            start.play_sequence(t).unwrap()
        })
        .collect();
    let distinct: std::collections::HashSet<_> = positions.iter().collect();
    assert_eq!(distinct.len(), 12);
    assert!(positions.iter().all(|p| p.outcome().is_none()));
    for (name, figures) in benched(&a) {
        assert_eq!(figures, plain(&start, &positions, &name), "{name}");
    }
    // The default seed is 1.
    let default = bench_json(&["connect4", "minimax:1", "--random", "3", "--plies", "4"]);
    let one = bench_json(&[
        "connect4",
        "minimax:1",
        "--random",
        "3",
        "--plies",
        "4",
        "--seed",
        "1",
    ]);
    assert_eq!(default["positions"], one["positions"]);
    assert_eq!(default["source"]["seed"], 1);
}

#[test]
fn the_json_holds_the_positions_and_each_engines_figures_and_totals() {
    let v = bench_json(&[
        "connect4",
        "alphabeta",
        "pvs:exact=0",
        "mcts:200",
        "--depth",
        "4",
        "--random",
        "5",
        "--plies",
        "4",
    ]);
    assert_eq!(v["game"], "connect4");
    assert_eq!(v["depth"], 4);
    assert_eq!(
        v["source"],
        serde_json::json!({"random": 5, "plies": 4, "seed": 1})
    );
    assert_eq!(v["positions"].as_array().unwrap().len(), 5);
    let engines = v["engines"].as_array().unwrap();
    // --depth went to the engines without a budget; mcts kept its playouts.
    let names: Vec<&str> = engines
        .iter()
        .map(|e| e["engine"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alphabeta:4", "pvs:4:exact=0", "mcts:200"]);
    for e in engines {
        let searches = e["searches"].as_array().unwrap();
        assert_eq!(searches.len(), 5);
        for s in searches {
            let mut keys: Vec<&str> = s.as_object().unwrap().keys().map(|k| k.as_str()).collect();
            keys.sort_unstable();
            assert_eq!(keys, ["depth", "nodes", "seconds", "seldepth", "timed_out"]);
        }
        let nodes: Vec<u64> = searches
            .iter()
            .map(|s| s["nodes"].as_u64().unwrap())
            .collect();
        let depths: Vec<u64> = searches
            .iter()
            .map(|s| s["depth"].as_u64().unwrap())
            .collect();
        let total: u64 = nodes.iter().sum();
        assert_eq!(e["positions"], 5);
        assert_eq!(e["nodes"], total);
        assert_eq!(e["mean_nodes"], total as f64 / 5.0);
        let mut sorted = nodes.clone();
        sorted.sort_unstable();
        assert_eq!(e["median_nodes"], sorted[2] as f64);
        assert_eq!(e["min_depth"], *depths.iter().min().unwrap());
        assert_eq!(e["max_depth"], *depths.iter().max().unwrap());
        assert_eq!(e["time_limited"], false);
        assert_eq!(e["timed_out"], 0);
        for key in [
            "mean_depth",
            "mean_seldepth",
            "max_seldepth",
            "seconds",
            "nps",
        ] {
            assert!(e[key].is_number(), "{key}: {e}");
        }
    }
    let start = Connect4::start();
    let positions: Vec<Connect4> = v["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| start.play_sequence(t.as_str().unwrap()).unwrap())
        .collect();
    for (name, figures) in benched(&v) {
        assert_eq!(figures, plain(&start, &positions, &name), "{name}");
    }
    // The table names the same engines, one row each.
    let text = common::joute_ok(&[
        "bench",
        "connect4",
        "alphabeta",
        "pvs",
        "--depth",
        "3",
        "--random",
        "4",
        "--plies",
        "2",
        "--each",
    ]);
    assert!(
        text.starts_with("connect4: 4 positions after 2 random plies (seed 1)"),
        "{text}"
    );
    assert!(text.contains("(node counts reproducible)"), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("alphabeta:3 "))
            .count(),
        1
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("pvs:3 ")).count(), 1);
    // --each: a row per position, ending with its moves.
    assert_eq!(
        text.lines()
            .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .count(),
        4,
        "{text}"
    );
}

#[test]
fn the_fixed_benchmark_is_unchanged() {
    // Its rows and node total before its logic moved into the library (`joute bench` at
    // 97471b2): a change of the total is a change of a search or an evaluation.
    let rows = [
        ("othello", "alphabeta:8", 5, 174058),
        ("othello", "bisection:6", 5, 187508),
        ("othello", "mtdf:9", 5, 421921),
        ("othello", "pvs:9", 5, 450400),
        ("connect4", "alphabeta:10", 5, 221914),
        ("connect4", "mtdf:14", 5, 8724584),
        ("connect4", "pvs:14", 5, 5894299),
        ("morpion", "minimax:9", 2, 605451),
        ("morpion", "alphabeta:9", 2, 2243),
        ("morpion-7x7-4", "pvs:5", 2, 203285),
    ];
    let text = common::joute_ok(&["bench"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "game           engine         positions        nodes   seconds      nodes/s"
    );
    assert_eq!(lines.len(), rows.len() + 2, "{text}");
    for (line, (game, engine, positions, nodes)) in lines[1..].iter().zip(rows) {
        let start = format!("{game:<14} {engine:<14} {positions:>9} {nodes:>12} ");
        assert!(line.starts_with(&start), "{line:?} is not {start:?}...");
    }
    assert!(
        lines[rows.len() + 1].starts_with("total: 16885663 nodes in "),
        "{text}"
    );
    let v = bench_json(&[]);
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["nodes", "nps", "rows", "seconds"]);
    assert_eq!(v["nodes"], 16885663);
    let json_rows: Vec<(&str, &str, u64, u64)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["game"].as_str().unwrap(),
                r["engine"].as_str().unwrap(),
                r["positions"].as_u64().unwrap(),
                r["nodes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(json_rows, rows);
}

/// `bench HEAD... TAIL...`.
fn with<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    [&["bench"], head, tail].concat()
}

#[test]
fn bad_input_is_refused_on_one_line() {
    let dir = common::scratch("refused");
    let random = ["--random", "3", "--plies", "2"];
    common::refused(
        &with(&["chess", "pvs:3"], &random),
        &["unknown game 'chess'"],
    );
    common::refused(
        &with(&["connect4", "pvs:0"], &random),
        &["invalid engine 'pvs:0'", "between 1 and 64"],
    );
    common::refused(
        &with(&["connect4", "alphabeta:5:order=natural"], &random),
        &["unknown option 'order'", "ordering"],
    );
    common::refused(
        &with(&["connect4", "pvs:3:missing.toml"], &random),
        &["missing.toml"],
    );
    common::refused(&with(&["connect4"], &random), &["no engine to compare"]);
    common::refused(
        &["bench", "connect4", "pvs:3"],
        &["no positions", "--positions FILE or --random N"],
    );
    // The options of a comparison without its game.
    common::refused(&with(&[], &random), &["GAME"]);
    common::refused(&["bench", "--depth", "4"], &["GAME"]);
    common::refused(
        &[
            "bench", "connect4", "pvs:3", "--random", "0", "--plies", "2",
        ],
        &["--random 0"],
    );
    common::refused(
        &[
            "bench", "connect4", "pvs:3", "--random", "-2", "--plies", "2",
        ],
        &["-2"],
    );
    common::refused(
        &[
            "bench",
            "connect4",
            "pvs:3",
            "--positions",
            "x.txt",
            "--random",
            "3",
            "--plies",
            "2",
        ],
        &["--positions", "--random"],
    );
    common::refused(
        &[
            "bench",
            "connect4",
            "pvs:3",
            "--positions",
            "x.txt",
            "--plies",
            "2",
        ],
        &["--plies", "--positions"],
    );
    common::refused(
        &["bench", "connect4", "pvs:3", "--plies", "2"],
        &["--random <N>"],
    );
    common::refused(
        &["bench", "connect4", "pvs:3", "--random", "3"],
        &["--plies"],
    );
    common::refused(
        &[
            "bench",
            "morpion",
            "alphabeta:3",
            "--random",
            "20",
            "--plies",
            "1",
        ],
        &["found only 9 distinct positions"],
    );
    // --depth beside an engine's own depth, and mcts without playouts.
    common::refused(
        &with(&["connect4", "pvs:5:exact=0", "--depth", "4"], &random),
        &["pvs:5:exact=0", "write it pvs:exact=0"],
    );
    common::refused(
        &with(&["connect4", "mcts", "--depth", "4"], &random),
        &["playouts"],
    );
    common::refused(
        &with(&["connect4", "pvs", "--depth", "0"], &random),
        &["depth 0"],
    );
    // Files: missing, a move that does not read (file:line:column), a finished game in
    // either form, a suite's bad line (file:line).
    let missing = dir.join("missing.txt").display().to_string();
    common::refused(
        &["bench", "connect4", "pvs:3", "--positions", &missing],
        &["cannot read the positions file", "missing.txt"],
    );
    let bad = write(&dir, "bad.txt", "4453\n44x\n");
    common::refused(
        &["bench", "connect4", "pvs:3", "--positions", &bad],
        &[&format!("{bad}:2:3:")],
    );
    let over = write(&dir, "over.txt", "# one\n4545454\n");
    common::refused(
        &["bench", "connect4", "pvs:3", "--positions", &over],
        &[&format!("{over}:2:1:"), "the game is over"],
    );
    let over = write(&dir, "over-suite.txt", "4453 0\n4545454 0\n");
    common::refused(
        &["bench", "connect4", "pvs:3", "--positions", &over],
        &[&format!("{over}:2:1:"), "the game is over"],
    );
    let suite = write(&dir, "suite.txt", "4453 0\n44 53 3\n");
    common::refused(
        &["bench", "connect4", "pvs:3", "--positions", &suite],
        &[&format!("{suite}:2:"), "after the score"],
    );
    let ffo = include_str!("../data/othello-ffo-40-59.txt")
        .lines()
        .find(|l| !l.starts_with('#'))
        .unwrap();
    let suite = write(&dir, "ffo.txt", &format!("{ffo}\n40\tXO\tX\t+1\ta1\n"));
    common::refused(
        &["bench", "othello", "pvs:3", "--positions", &suite],
        &[&format!("{suite}:2:"), "board"],
    );
}

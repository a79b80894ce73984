//! Strength at what cost: every move's nodes, depth and time in the games log, and each
//! engine's cost in every output — the terminal table, `cost.csv`, `cost-by-ply.csv`, `--json`,
//! the HTML page, `joute rate` across runs — each figure checked against the log itself,
//! computed here from its per-move arrays.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{self, joute_ok, scratch};

/// One move as the log holds it: (nodes, depth, microseconds, CPU microseconds).
type Move = (u64, u64, u64, Option<u64>);

/// Each engine's moves as the log holds them, the mover told by the opening's parity.
fn moves_by_engine(log: &Path) -> BTreeMap<String, Vec<Move>> {
    let mut by = BTreeMap::<String, Vec<_>>::new();
    for g in common::jsonl(log) {
        let opening = g["opening"].as_array().unwrap().len();
        let plies = g["plies"].as_u64().unwrap() as usize;
        for i in 0..plies {
            let mover = if (opening + i) % 2 == 0 {
                &g["first"]
            } else {
                &g["second"]
            };
            let at = |key: &str| g[key][i].as_u64();
            by.entry(mover.as_str().unwrap().to_string())
                .or_default()
                .push((
                    at("move_nodes").unwrap_or(0),
                    at("move_depth").unwrap(),
                    at("move_us").unwrap(),
                    at("move_cpu_us"),
                ));
        }
    }
    by
}

/// `cost.csv` as rows keyed by engine name, each a map from column to cell.
fn cost_csv(dir: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir.join("cost.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            let row: BTreeMap<String, String> = header
                .iter()
                .zip(&cells)
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect();
            (row["name"].clone(), row)
        })
        .collect()
}

/// The `⌈n/2⌉`-th smallest of `values`.
fn lower_median(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values[values.len().div_ceil(2) - 1]
}

/// A shipped spec's text with other openings (the same engines).
fn smaller(spec: &str, openings: &str) -> String {
    let text = std::fs::read_to_string(common::manifest(spec)).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("openings ="))
        .unwrap()
        .to_string();
    text.replace(&line, openings)
}

#[test]
fn the_course_comparison_reports_each_engines_nodes_per_move_as_the_log_sums_them() {
    // The course's seven searches at depth 5 on Connect 4 (tournaments/connect4-depth5.toml),
    // on fewer openings.
    let dir = scratch("course");
    let spec = dir.join("spec.toml");
    std::fs::write(
        &spec,
        smaller(
            "tournaments/connect4-depth5.toml",
            "openings = { plies = 4, count = 3 }",
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let text = joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let moves = moves_by_engine(&out.join("games.jsonl"));
    let csv = cost_csv(&out);
    let json: Value = serde_json::from_str(&joute_ok(&[
        "report",
        out.join("games.jsonl").to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(moves.len(), 7);
    for (name, list) in &moves {
        let nodes: u64 = list.iter().map(|m| m.0).sum();
        let mean = nodes as f64 / list.len() as f64;
        let row = &csv[name];
        // The CSV: the log's own sums and means, exactly.
        assert_eq!(row["moves"], list.len().to_string(), "{name}");
        assert_eq!(row["nodes"], nodes.to_string(), "{name}");
        assert_eq!(row["nodes_mean"], format!("{mean:.2}"), "{name}");
        let median = lower_median(&mut list.iter().map(|m| m.0).collect::<Vec<_>>()) as f64;
        let csv_median: f64 = row["nodes_median"].parse().unwrap();
        assert!(
            (csv_median - median).abs() <= median * 1e-3,
            "{name}: {csv_median} vs {median}"
        );
        let wall: u64 = list.iter().map(|m| m.2).sum();
        let csv_total: f64 = row["ms_total"].parse().unwrap();
        assert!((csv_total - wall as f64 / 1000.0).abs() < 1e-3, "{name}");
        // --json: the same figure in the engine's rating row.
        let rated = json["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name.as_str())
            .unwrap();
        assert!(
            (rated["cost"]["nodes_mean"].as_f64().unwrap() - mean).abs() < 1e-9,
            "{name}"
        );
        assert_eq!(rated["cost"]["nodes"].as_u64(), Some(nodes), "{name}");
        // The terminal: the mean, rounded, in the engine's row of the cost table.
        let line = text
            .lines()
            .skip_while(|l| !l.starts_with("Rank Cost of"))
            .find(|l| l.split_whitespace().nth(1) == Some(name.as_str()))
            .unwrap_or_else(|| panic!("no cost row of {name} in:\n{text}"));
        assert!(
            line.split_whitespace().nth(2) == Some(format!("{mean:.0}").as_str()),
            "{name}: {line} vs {mean}"
        );
        // Fixed-depth searches without an exact endgame reach depth 5 on every move.
        if !name.starts_with("pvs") && !name.starts_with("mtdf") {
            assert!(list.iter().all(|m| m.1 == 5), "{name}");
            assert_eq!(
                (row["depth_min"].as_str(), row["depth_max"].as_str()),
                ("5", "5")
            );
        }
        // At a fixed depth no CPU clock is read: the moves do not depend on it.
        assert!(list.iter().all(|m| m.3.is_none()), "{name}");
        assert_eq!(row["cpu_moves"], "0", "{name}");
    }
    assert!(
        !text.contains("starved"),
        "no CPU column without a CPU time:\n{text}"
    );
    // The course's lesson, in the costs: pruning visits fewer nodes for the same depth-5
    // value, and ordering makes pruning work.
    let mean = |name: &str| csv[name]["nodes_mean"].parse::<f64>().unwrap();
    assert_eq!(csv["minimax-5"]["nodes"], csv["negamax-5"]["nodes"]);
    assert!(mean("alphabeta-5") < mean("alphabeta-5-natural"));
    assert!(mean("alphabeta-5-natural") < mean("minimax-5"));
    // cost-by-ply.csv: the nodes by ply sum to each engine's nodes.
    let by_ply = std::fs::read_to_string(out.join("cost-by-ply.csv")).unwrap();
    let mut sums = BTreeMap::<String, u64>::new();
    for l in by_ply.lines().skip(1) {
        let cells: Vec<&str> = l.split(',').collect();
        *sums.entry(cells[0].to_string()).or_default() += cells[3].parse::<u64>().unwrap();
    }
    for (name, row) in &csv {
        assert_eq!(sums[name].to_string(), row["nodes"], "{name}");
    }
    // The page has the table, every engine in it.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("id=\"cost-section\""));
    let table = &html[html.find("id=\"cost\"").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    for name in moves.keys() {
        assert!(table.contains(&format!(">{name}<")), "{name}");
    }
}

#[test]
fn under_a_node_budget_the_report_shows_the_depth_each_algorithm_reaches() {
    // tournaments/connect4-algorithms.toml: every engine may visit 20,000 positions a move.
    let dir = scratch("budget");
    let out = common::run_spec(
        &dir,
        &smaller(
            "tournaments/connect4-algorithms.toml",
            "openings = { plies = 4, count = 2 }",
        ),
    );
    let moves = moves_by_engine(&out.join("games.jsonl"));
    let csv = cost_csv(&out);
    let depth = |name: &str| -> f64 {
        let list = &moves[name];
        let mean = list.iter().map(|m| m.1).sum::<u64>() as f64 / list.len() as f64;
        let reported: f64 = csv[name]["depth_mean"].parse().unwrap();
        assert!(
            (reported - mean).abs() < 1e-3,
            "{name}: {reported} vs {mean}"
        );
        mean
    };
    // The same budget, different depths: pruning sees deeper than minimax.
    let (minimax, alphabeta, pvs) = (depth("minimax"), depth("alphabeta"), depth("pvs"));
    assert!(minimax < alphabeta, "{minimax} vs {alphabeta}");
    assert!(minimax < pvs, "{minimax} vs {pvs}");
    assert!(minimax >= 1.0);
    // MCTS has a selective depth beside its principal variation's length.
    assert!(!csv["mcts"]["seldepth_max"].is_empty());
    assert!(csv["minimax"]["seldepth_max"].is_empty());
}

#[test]
fn a_log_written_before_moves_were_recorded_one_by_one_still_reports_its_mean_nodes() {
    let dir = scratch("old-log");
    let out = common::run_spec(
        &dir,
        "name = \"t\"\ngame = \"connect4\"\nseed = 3\nopenings = { plies = 3, count = 2 }\n\
         [[engine]]\nname = \"a\"\nalgorithm = \"alphabeta\"\ndepth = 3\n\
         [[engine]]\nname = \"b\"\nalgorithm = \"pvs\"\ndepth = 2\n",
    );
    let log = out.join("games.jsonl");
    let before = cost_csv(&out);
    // The log as an earlier joute wrote it: the games' node totals, no per-move arrays.
    let old: Vec<String> = common::jsonl(&log)
        .into_iter()
        .map(|mut g| {
            for key in joute::arena::log::GameLine::PER_MOVE_FIELDS {
                g.as_object_mut().unwrap().remove(key);
            }
            g.to_string()
        })
        .collect();
    std::fs::write(&log, old.join("\n") + "\n").unwrap();
    joute_ok(&["report", log.to_str().unwrap()]);
    let after = cost_csv(&out);
    for name in ["a", "b"] {
        assert_eq!(
            after[name]["nodes_mean"], before[name]["nodes_mean"],
            "{name}"
        );
        assert_eq!(after[name]["moves"], before[name]["moves"], "{name}");
        assert_eq!(after[name]["nodes_median"], "", "{name}");
        assert_eq!(after[name]["depth_mean"], "", "{name}");
    }
}

/// Othello on a clock of 1 s + 20 ms, at depths no move reaches: every move uses its time.
const CLOCKED_MATCH: [&str; 6] = [
    "match",
    "othello",
    "pvs:64",
    "alphabeta:64",
    "--tc",
    "1+0.02",
];

#[test]
fn clocked_games_at_twice_the_cores_are_warned_of_and_their_starved_moves_counted() {
    // Two games per core, every engine on a clock: each game's engine gets about half a core,
    // so its moves run under the 75% a starved move is judged by (and last 5 ms or more).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = (2 * cores).to_string();
    let games = (4 * cores).max(8).to_string();
    let dir = scratch("starved");
    let out = dir.join("m");
    let output = common::joute()
        .args(CLOCKED_MATCH)
        .args(["--games", &games, "--threads", &threads, "--out"])
        .arg(&out)
        .args(["--cost"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "warning: {threads} games at once on {cores} cores, and engines play on time"
        )),
        "{stderr}"
    );
    let csv = cost_csv(&out);
    let starved: u64 = csv
        .values()
        .map(|r| r["starved"].parse::<u64>().unwrap())
        .sum();
    let judged: u64 = csv
        .values()
        .map(|r| r["judged"].parse::<u64>().unwrap())
        .sum();
    assert!(judged > 0, "{stdout}");
    assert!(
        starved * 2 > judged,
        "{starved} of {judged} starved:\n{stdout}"
    );
    assert!(stdout.contains("moves starved of CPU"), "{stdout}");
    // The starved count is the log's own: moves of 5 ms or more under 75% of a core.
    let moves = moves_by_engine(&out.join("games.jsonl"));
    assert!(
        moves.values().flatten().all(|m| m.3.is_some()),
        "on a clock every move's CPU"
    );
    let from_log: u64 = moves
        .values()
        .flatten()
        .filter(|m| m.2 >= 5_000 && (m.3.unwrap() as f64) < 0.75 * m.2 as f64)
        .count() as u64;
    assert_eq!(from_log, starved);
    // One game per core draws no warning (whatever the machine's load does to the moves).
    let output = common::joute()
        .args(CLOCKED_MATCH)
        .args(["--games", "2", "--threads", &cores.to_string()])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(!String::from_utf8_lossy(&output.stderr).contains("games at once"));
}

#[test]
fn rate_sums_each_engines_costs_over_the_runs() {
    let dir = scratch("rate");
    let run = |name: &str, other: &str| {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        common::run_spec(
            &sub,
            &format!(
                "name = \"{name}\"\ngame = \"connect4\"\nseed = 4\nopenings = {{ plies = 2, count = 3 }}\n\
                 [[engine]]\nname = \"ab-3\"\nalgorithm = \"alphabeta\"\ndepth = 3\n\
                 [[engine]]\nname = \"{other}\"\nalgorithm = \"pvs\"\ndepth = 2\n"
            ),
        )
    };
    let (one, two) = (run("one", "pvs-2"), run("two", "pvs-2b"));
    let logs = [one.join("games.jsonl"), two.join("games.jsonl")];
    let mut nodes = 0;
    let mut count = 0;
    for log in &logs {
        let list = &moves_by_engine(log)["ab-3"];
        nodes += list.iter().map(|m| m.0).sum::<u64>();
        count += list.len() as u64;
    }
    let args: Vec<&str> = std::iter::once("rate")
        .chain(logs.iter().map(|l| l.to_str().unwrap()))
        .chain(["--json"])
        .collect();
    let json: Value = serde_json::from_str(&joute_ok(&args)).unwrap();
    let ab = json["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "ab-3")
        .unwrap();
    assert_eq!(ab["cost"]["nodes"].as_u64(), Some(nodes));
    assert_eq!(ab["cost"]["moves"].as_u64(), Some(count));
    // The table too.
    let args: Vec<&str> = std::iter::once("rate")
        .chain(logs.iter().map(|l| l.to_str().unwrap()))
        .collect();
    let text = joute_ok(&args);
    assert!(text.contains("Rank Cost of"), "{text}");
}

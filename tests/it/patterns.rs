//! Othello's pattern evaluation from the command line: `joute fit --patterns` writes a weights
//! file that engines play with, in matches and in tournament specs, and bad pattern files are
//! refused with a clear error.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A games log of `games` Othello games between two depth-2 engines, in `dir/NAME`.
fn play(dir: &Path, name: &str, games: u32) -> PathBuf {
    let out = dir.join(name);
    common::joute_ok(&[
        "match",
        "othello",
        "alphabeta:2",
        "alphabeta:1",
        "--games",
        &games.to_string(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    out.join("games.jsonl")
}

#[test]
fn fitted_pattern_weights_play_in_matches_and_specs() {
    let dir = common::scratch("fit");
    let log = play(&dir, "games", 200);
    let weights = dir.join("p.jpw");
    let text = common::joute_ok(&[
        "fit",
        log.to_str().unwrap(),
        "--patterns",
        "--phases",
        "4",
        "--out",
        weights.to_str().unwrap(),
        "--json",
    ]);
    let fit: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(fit["phases"], 4, "{fit}");
    assert!(fit["loss"].as_f64().unwrap() < fit["start_loss"].as_f64().unwrap());
    let bytes = std::fs::read(&weights).unwrap();
    assert!(bytes.starts_with(b"JOUTEPAT"));

    // A fit from those weights (a generation refined by more games), in twice the phases
    // that share the positions within 2 empty squares of their ranges: it starts where the
    // first fit ended (each new phase from the old one holding its middle), never from zero.
    let more = play(&dir, "more", 40);
    let refined = dir.join("refined.jpw");
    let text = common::joute_ok(&[
        "fit",
        more.to_str().unwrap(),
        "--patterns",
        "--weights",
        weights.to_str().unwrap(),
        "--phases",
        "8",
        "--phase-overlap",
        "2",
        "--out",
        refined.to_str().unwrap(),
        "--json",
    ]);
    let again: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(
        (again["phases"].clone(), again["phase_overlap"].clone()),
        (8.into(), 2.into())
    );
    let per_phase: u64 = again["per_phase"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    // Positions near a phase's bounds count in two.
    assert!(per_phase > again["positions"].as_u64().unwrap(), "{again}");
    let ln2 = std::f64::consts::LN_2;
    assert!(
        again["start_loss"].as_f64().unwrap() < ln2 - 0.01,
        "{again}"
    );
    assert!(again["loss"].as_f64().unwrap() < again["start_loss"].as_f64().unwrap());
    common::refused(
        &[
            "fit",
            more.to_str().unwrap(),
            "--patterns",
            "--phase-overlap",
            "61",
        ],
        &["--phase-overlap", "0..=60"],
    );
    common::refused(
        &[
            "fit",
            more.to_str().unwrap(),
            "--patterns",
            "--weights",
            more.to_str().unwrap(),
        ],
        &["--weights", "games.jsonl"],
    );

    // A short fit that holds the count weights: each phase stops at 3 iterations at most, and
    // the readable file has no non-zero count weight (the patterns' are there).
    let held = dir.join("held.csv");
    let text = common::joute_ok(&[
        "fit",
        log.to_str().unwrap(),
        "--patterns",
        "--phases",
        "3",
        "--max-iterations",
        "3",
        "--hold-counts",
        "--csv",
        "--out",
        held.to_str().unwrap(),
        "--json",
    ]);
    let short: Value = serde_json::from_str(text.trim()).unwrap();
    let iterations = short["iterations"].as_array().unwrap();
    assert_eq!(iterations.len(), 3, "{short}");
    assert!(
        iterations
            .iter()
            .all(|i| (1..=3).contains(&i.as_u64().unwrap()))
    );
    assert_eq!(short["converged"].as_array().unwrap().len(), 3);
    assert_eq!(short["hold_counts"], true);
    let rows = std::fs::read_to_string(&held).unwrap();
    let pattern = |line: &str| line.split(',').nth(1).map(str::to_owned);
    let kinds: Vec<String> = rows.lines().skip(2).filter_map(pattern).collect();
    assert!(kinds.iter().any(|k| k == "corner3x3"), "{}", &rows[..200]);
    for count in [
        "mobility",
        "opp_mobility",
        "potential",
        "opp_potential",
        "parity",
    ] {
        assert!(!kinds.iter().any(|k| k == count), "{count} fitted");
    }
    common::refused(
        &[
            "fit",
            log.to_str().unwrap(),
            "--patterns",
            "--max-iterations",
            "0",
        ],
        &["--max-iterations", "1..=100000"],
    );
    common::refused(
        &["fit", log.to_str().unwrap(), "--hold-counts"],
        &["--hold-counts", "--patterns"],
    );

    // Labels by the final disc difference: other weights from the same positions and options,
    // said in the JSON; a scale out of range, or the linear fit, refused.
    let fit_to = |name: &str, extra: &[&str]| -> (Value, Vec<u8>) {
        let out = dir.join(name);
        let mut args = vec![
            "fit",
            log.to_str().unwrap(),
            "--patterns",
            "--phases",
            "2",
            "--max-iterations",
            "5",
            "--out",
            out.to_str().unwrap(),
            "--json",
        ];
        args.extend_from_slice(extra);
        let json = serde_json::from_str(common::joute_ok(&args).trim()).unwrap();
        (json, std::fs::read(&out).unwrap())
    };
    let (by_result, result_weights) = fit_to("result.jpw", &[]);
    let (by_margin, margin_weights) = fit_to("margin.jpw", &["--margin-labels", "8"]);
    assert_eq!(by_result["margin_labels"], Value::Null);
    assert_eq!(by_margin["margin_labels"], 8.0);
    assert_eq!(by_margin["positions"], by_result["positions"]);
    assert_ne!(margin_weights, result_weights);
    common::refused(
        &[
            "fit",
            log.to_str().unwrap(),
            "--patterns",
            "--margin-labels",
            "0",
        ],
        &["--margin-labels 0", "above 0, at most 64"],
    );
    common::refused(
        &["fit", log.to_str().unwrap(), "--margin-labels", "8"],
        &["--margin-labels", "--patterns"],
    );

    // The CSV form of the same fit is another file the engines read.
    let csv = dir.join("p.csv");
    common::joute_ok(&[
        "fit",
        log.to_str().unwrap(),
        "--patterns",
        "--phases",
        "4",
        "--csv",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read_to_string(&csv)
            .unwrap()
            .starts_with("# joute pattern weights")
    );

    // A match with either file is the same match: the same games (in id order: the log keeps
    // the order they finished in, which the load decides).
    let games = |file: &Path, name: &str| -> Vec<Value> {
        let out = dir.join(name);
        let tuned = format!("alphabeta:2:{}", file.display());
        common::match_quietly(&out, &["othello", &tuned, "alphabeta:2", "--games", "6"]);
        let mut games = std::fs::read_to_string(out.join("games.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let mut v = common::untimed(serde_json::from_str(l).unwrap());
                for k in ["spec", "first", "second"] {
                    v.as_object_mut().unwrap().remove(k);
                }
                v
            })
            .collect::<Vec<Value>>();
        games.sort_by_key(|g| g["id"].as_u64());
        games
    };
    let binary = games(&weights, "m1");
    assert_eq!(binary, games(&csv, "m2"));
    // The patterns decide the moves: the default linear evaluation plays other games.
    let linear = {
        let out = dir.join("m3");
        common::joute_ok(&[
            "match",
            "othello",
            "alphabeta:2",
            "alphabeta:2",
            "--games",
            "6",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        std::fs::read_to_string(out.join("games.jsonl")).unwrap()
    };
    assert!(
        binary
            .iter()
            .any(|g| !linear.contains(&g["moves"].to_string())),
        "the pattern engine played the linear engine's games"
    );

    // In a spec: run.json records the file by path and digest, and a changed file blocks a
    // resume.
    let spec = dir.join("spec.toml");
    std::fs::write(
        &spec,
        format!(
            r#"name = "p"
game = "othello"
seed = 3
[openings]
plies = 6
count = 3
[[engine]]
name = "patterns"
algorithm = "alphabeta"
depth = 2
weights = "{}"
[[engine]]
name = "linear"
algorithm = "alphabeta"
depth = 2
"#,
            weights.display()
        ),
    )
    .unwrap();
    let out = dir.join("run");
    common::joute_to("run", &spec, &out, &["--quiet"]);
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let recorded = &run["spec"]["engines"][0]["patterns"];
    assert_eq!(recorded["phases"], 4, "{run}");
    assert_eq!(recorded["digest"].as_str().unwrap().len(), 16);
    common::joute_ok(&[
        "fit",
        log.to_str().unwrap(),
        "--patterns",
        "--phases",
        "2",
        "--out",
        weights.to_str().unwrap(),
        // Replacing the file the run's engine reads: an existing file needs --force.
        "--force",
    ]);
    common::refused(
        &[
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--resume",
        ],
        &["another spec", "engine 'patterns' changed"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_pattern_files_are_refused() {
    let dir = common::scratch("bad");
    // The right header, the wrong number of weights.
    let mut bytes = b"JOUTEPAT".to_vec();
    for v in [1u32, 2, 167_266] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes.extend_from_slice(&[0u8; 400]);
    let short = dir.join("short.jpw");
    std::fs::write(&short, &bytes).unwrap();
    common::refused(
        &[
            "match",
            "othello",
            &format!("pvs:2:{}", short.display()),
            "random",
            "--out",
            dir.join("o").to_str().unwrap(),
        ],
        &["short.jpw", "2 phases"],
    );
    // A pattern file for another game.
    let log = play(&dir, "games", 20);
    let good = dir.join("good.jpw");
    common::joute_ok(&[
        "fit",
        log.to_str().unwrap(),
        "--patterns",
        "--out",
        good.to_str().unwrap(),
    ]);
    common::refused(
        &[
            "match",
            "connect4",
            &format!("pvs:2:{}", good.display()),
            "random",
            "--out",
            dir.join("o").to_str().unwrap(),
        ],
        &["good.jpw", "Othello"],
    );
    // --patterns for another game's log.
    let c4 = dir.join("c4");
    common::joute_ok(&[
        "match",
        "connect4",
        "alphabeta:2",
        "random",
        "--games",
        "4",
        "--out",
        c4.to_str().unwrap(),
        "--quiet",
    ]);
    common::refused(
        &[
            "fit",
            c4.join("games.jsonl").to_str().unwrap(),
            "--patterns",
        ],
        &["--patterns", "othello"],
    );
    common::refused(
        &["fit", log.to_str().unwrap(), "--patterns", "--phases", "61"],
        &["--phases", "1..=60"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

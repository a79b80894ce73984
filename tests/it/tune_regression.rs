//! `joute tune` with `method = "regression"`: self-play rounds and fits end to end, resume after
//! SIGKILL to the same weights, and bad specs.

use crate::common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// An Othello regression spec (alphabeta depth 2 from the defaults); `regression` is the body
/// of its `[regression]` table.
pub(crate) fn spec_text(regression: &str) -> String {
    format!(
        r#"name = "r"
game = "othello"
seed = 11
method = "regression"

[engine]
algorithm = "alphabeta"
depth = 2
weights = "{}/weights/othello.toml"

[openings]
plies = 8

[regression]
{regression}

[confirm]
games = 200
aa_games = 40
"#,
        env!("CARGO_MANIFEST_DIR")
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Writes `text` as `dir/spec.toml` and tunes it into `dir/out` with `extra` arguments:
/// the output folder and stdout.
fn tune(dir: &Path, text: &str, extra: &[&str]) -> (PathBuf, String) {
    let spec = write(dir, "spec.toml", text);
    let out = dir.join("out");
    let mut args = vec![
        "tune",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let stdout = common::joute_ok(&args);
    (out, stdout)
}

/// The self-play games of a round without their timings.
fn selfplay(out: &Path, round: u32) -> Vec<Value> {
    common::untimed_games(&out.join(format!("selfplay/round-{round}.jsonl")))
}

/// An engine plays with the weights file `weights` (a short match into `out`).
fn plays(weights: &Path, out: &Path) {
    let engine = format!("alphabeta:1:{}", weights.display());
    common::match_quietly(out, &["othello", &engine, "random", "--games", "2"]);
}

#[test]
fn rounds_of_self_play_and_fits_are_logged_confirmed_and_written() {
    let dir = common::scratch("rounds");
    let (out, stdout) = tune(&dir, &spec_text("games = 300\nrounds = 2"), &[]);
    assert!(
        stdout.contains("confirmed") || stdout.contains("NOT confirmed"),
        "{stdout}"
    );

    let lines = common::history(&out);
    assert_eq!(lines.len(), 2, "one history line per round");
    for (r, line) in lines.iter().enumerate() {
        assert_eq!(line["method"], "regression");
        assert_eq!(line["k"], r as u64 + 1);
        assert_eq!(line["games"], 300);
        let fit = &line["fit"];
        // Each round fits the games of every round so far.
        assert_eq!(fit["games"], 300 * (r as u64 + 1));
        assert!(fit["positions"].as_u64().unwrap() > 300 * 20, "{fit}");
        // The fit starts from the round's weights: it can only lower the loss it minimises
        // (less the ridge, which is tiny at the default λ).
        assert!(
            fit["loss"].as_f64().unwrap() <= fit["start_loss"].as_f64().unwrap() + 1e-9,
            "{fit}"
        );
        assert!(fit["k"].as_f64().unwrap() > 0.0);
        let w: u64 = ["wins", "draws", "losses"]
            .iter()
            .map(|k| line[*k].as_u64().unwrap())
            .sum();
        assert_eq!(w, 300);
    }
    // Round 2 played with round 1's weights, and started from them.
    assert_eq!(lines[1]["opponent"], lines[0]["theta"]);

    // Every self-play game from an opening of its own, none of them a held-out one.
    let mut openings = HashSet::new();
    for round in [1, 2] {
        let games = selfplay(&out, round);
        assert_eq!(games.len(), 300);
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g["id"], i as u64);
            assert_eq!(g["first"], "selfplay");
            assert!(openings.insert(g["opening"].to_string()), "{g}");
        }
    }
    for held in ["confirm", "aa"] {
        for g in common::jsonl(&out.join(held).join("games.jsonl")) {
            assert!(!openings.contains(&g["opening"].to_string()), "{g}");
        }
    }

    // The tuned weights are the last round's fit, and an engine can play them.
    let tuned = out.join("tuned-weights.toml");
    let text = std::fs::read_to_string(&tuned).unwrap();
    let theta = lines[1]["theta"].as_array().unwrap();
    let mobility = theta[1].as_f64().unwrap();
    let written: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("mobility = "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (written - mobility).abs() <= 1e-9 * mobility.abs().max(1.0),
        "{text}"
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["method"], "regression", "{summary}");
    assert_eq!(
        summary["confirmation"]["games"], 200,
        "the confirmation was played: {summary}"
    );
    plays(&tuned, &dir.join("m"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tapered_fit_is_written_and_confirmed() {
    let dir = common::scratch("taper");
    let (out, stdout) = tune(&dir, &spec_text("games = 300\ntaper = true"), &["--quiet"]);
    // The terminal's table shows both vectors, as summary.json does.
    let header = stdout.lines().next().unwrap_or_default();
    let words: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(
        words,
        ["feature", "start", "opening", "endgame"],
        "{stdout}"
    );
    let mobility = stdout.lines().find(|l| l.starts_with("mobility "));
    let mobility = mobility.unwrap_or_else(|| panic!("no mobility row in {stdout}"));
    assert_eq!(mobility.split_whitespace().count(), 4, "{mobility}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let params = summary["params"].as_array().unwrap();
    assert!(
        params.iter().all(|p| p["tuned_endgame"].is_f64()),
        "{summary}"
    );
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains("<th>Tuned (endgame)</th>"),
        "no endgame column"
    );
    let text = std::fs::read_to_string(out.join("tuned-weights.toml")).unwrap();
    let table = |name: &str| -> Vec<String> {
        text.split(&format!("[{name}]\n"))
            .nth(1)
            .unwrap_or_else(|| panic!("no [{name}] in {text}"))
            .lines()
            .take_while(|l| !l.starts_with('['))
            .filter(|l| l.contains('='))
            .map(str::to_string)
            .collect()
    };
    // Two vectors, and the fit made them differ (mobility matters more late in the game).
    assert_eq!(table("weights").len(), table("endgame").len());
    assert_ne!(table("weights"), table("endgame"));
    // The confirmation played the tapered weights: its run records the endgame vector.
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("confirm/run.json")).unwrap())
            .unwrap();
    let tuned = &run["spec"]["engines"][0];
    assert_eq!(tuned["name"], "tuned");
    assert_eq!(
        tuned["endgame"].as_array().map(Vec::len),
        tuned["weights"].as_array().map(Vec::len),
        "{tuned}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn exact_labels_change_the_fit_and_the_spec_hash() {
    let dir = common::scratch("tune-regression-exact");
    let tune = |name: &str, regression: &str| -> (String, Value) {
        let spec = write(&dir, &format!("{name}.toml"), &spec_text(regression));
        let out = dir.join(name);
        common::joute_ok(&[
            "tune",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        let checkpoint: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("checkpoint.json")).unwrap())
                .unwrap();
        (
            common::weights_lines(&out.join("tuned-weights.toml")).join("\n"),
            checkpoint,
        )
    };
    let (by_results, plain) = tune("results", "games = 120");
    let (by_solver, exact) = tune("solver", "games = 120\nexact_labels = 8");
    // The same games (the labels do not change the self-play of the first round), other
    // labels for their last positions: other weights.
    assert_ne!(by_results, by_solver);
    assert_eq!(
        exact["spec"]["regression"]["exact_labels"], 8,
        "{}",
        exact["spec"]
    );
    assert!(plain["spec"]["regression"].get("exact_labels").is_none());
    assert_ne!(plain["spec_hash"], exact["spec_hash"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_regression_run_resumes_to_the_same_weights() {
    let dir = common::scratch("resume");
    // Depth 3 and 2,000 games a round: slow enough to be killed during self-play.
    let text = spec_text("games = 2000\nrounds = 2").replace("depth = 2", "depth = 3");
    let spec = write(&dir, "spec.toml", &text);
    let spec = spec.to_str().unwrap();
    let whole = dir.join("whole");
    common::joute_ok(&["tune", spec, "--out", whole.to_str().unwrap(), "--quiet"]);

    let killed = dir.join("killed");
    let mut kills = Vec::new();
    // Kill in round 1's self-play, then in round 2's.
    for (log, target) in [("round-1.jsonl", 700), ("round-2.jsonl", 300)] {
        let log = killed.join("selfplay").join(log);
        let mut args = vec!["tune", spec, "--out", killed.to_str().unwrap(), "--quiet"];
        if killed.join("checkpoint.json").exists() {
            args.push("--resume");
        }
        kills.extend(common::kill_at_lines(&args, &log, target));
    }
    eprintln!("killed with {kills:?} self-play games logged");
    assert_eq!(kills.len(), 2, "the run finished before it could be killed");
    common::joute_ok(&[
        "tune",
        spec,
        "--out",
        killed.to_str().unwrap(),
        "--quiet",
        "--resume",
    ]);
    assert_eq!(
        common::weights_lines(&killed.join("tuned-weights.toml")),
        common::weights_lines(&whole.join("tuned-weights.toml"))
    );
    assert_eq!(common::history(&killed), common::history(&whole));
    for round in [1, 2] {
        assert_eq!(selfplay(&killed, round), selfplay(&whole, round));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `joute tune` on `text` and expects one clear line naming `expected`, exit 2.
fn refused(dir: &Path, text: &str, expected: &[&str]) {
    common::refused_spec(dir, "tune", text, &[], expected);
    assert!(
        !dir.join("out").exists(),
        "nothing is written for a bad spec"
    );
}

#[test]
fn bad_regression_specs_get_a_clear_error() {
    let dir = common::scratch("bad");
    let good = spec_text("games = 300");
    let cases: Vec<(String, Vec<&str>)> =
        vec![
        (
            good.replace("[regression]\ngames = 300\n", ""),
            vec!["bad.toml:4:10", "regression", "needs a [regression] table"],
        ),
        (
            good.replace("games = 300", "games = 0"),
            vec!["bad.toml:15:9", "regression.games", "allowed: 1..="],
        ),
        (
            good.replace("games = 300", "games = 300\nlambda = -1"),
            vec!["bad.toml:16:10", "regression.lambda", "lambda is -1"],
        ),
        (
            good.replace("games = 300", "games = 300\nexact_labels = 0"),
            vec![
                "bad.toml:16:16",
                "regression.exact_labels",
                "allowed: 1..=24",
            ],
        ),
        (
            good.replace("games = 300", "games = 300\nexact_labels = 25"),
            vec!["regression.exact_labels", "allowed: 1..=24"],
        ),
        (
            good.replace("game = \"othello\"", "game = \"random-tree-4x6\"")
                .replace("games = 300", "games = 300\nexact_labels = 8")
                .replace("weights = ", "# weights = "),
            vec![
                "bad.toml:16:16",
                "regression.exact_labels",
                "no exact solver",
            ],
        ),
        (
            good.replace("games = 300", "games = 300\nrounds = 0"),
            vec!["regression.rounds", "allowed: 1..=100"],
        ),
        (
            good.replace("games = 300", "games = 300\nphases = 3"),
            vec!["bad.toml:16", "phases"],
        ),
        (
            format!("{good}\n[[param]]\nname = \"mobility\"\nmin = 0\nmax = 10\nstep = 1\n"),
            vec!["param", "fits every feature"],
        ),
        (
            format!("{good}\n[budget]\niterations = 5\n"),
            vec!["budget.iterations", "regression plays no candidates"],
        ),
        (
            format!("{good}\n[sprt]\nelo0 = 0\nelo1 = 5\n"),
            vec!["sprt", "belongs to another method"],
        ),
        (
            format!("{good}\n[budget]\ngames = 3000\n")
                .replace("method = \"regression\"", "method = \"hill-climb\""),
            vec![
                "bad.toml:14:1",
                "[regression] belongs to method = \"regression\"",
            ],
        ),
        (
            good.replace("method = \"regression\"", "method = \"texel\""),
            vec!["bad.toml:4:10", "unknown method 'texel'", "regression"],
        ),
        (
            good.replace("games = 300", "games = 300\nevaluation = \"nnue\""),
            vec![
                "bad.toml:16:14",
                "regression.evaluation",
                "unknown evaluation 'nnue'",
            ],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\nphases = 61",
            ),
            vec!["bad.toml:17:10", "regression.phases", "allowed: 1..=60"],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\nlambda = 1",
            ),
            vec!["regression.lambda", "regression.ridge"],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\ntaper = true",
            ),
            vec!["regression.taper", "phases instead"],
        ),
        (
            good.replace("games = 300", "games = 300\nsearch_labels = 6"),
            vec!["bad.toml:16:17", "regression.search_labels", "evaluation = \"patterns\""],
        ),
        (
            good.replace("games = 300", "games = 300\ncounts = false"),
            vec!["bad.toml:16:10", "regression.counts", "evaluation = \"patterns\""],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\ncounts = \"no\"",
            ),
            vec!["bad.toml:17:10", "regression.counts"],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\nfit_iterations = 0",
            ),
            vec!["bad.toml:17:18", "regression.fit_iterations", "1..=100000"],
        ),
        (
            good.replace("games = 300", "games = 300\nfit_iterations = 50"),
            vec!["bad.toml:16:18", "regression.fit_iterations", "evaluation = \"patterns\""],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\nmargin_labels = 0",
            ),
            vec!["bad.toml:17:17", "regression.margin_labels", "at most 64"],
        ),
        (
            good.replace("games = 300", "games = 300\nmargin_labels = 8"),
            vec!["bad.toml:16:17", "regression.margin_labels", "evaluation = \"patterns\""],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\nsearch_mix = 0.5",
            ),
            vec!["bad.toml:17:14", "regression.search_mix", "give search_labels"],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\nsearch_labels = 6\nsearch_mix = 1.5",
            ),
            vec!["bad.toml:18:14", "regression.search_mix", "search_mix is 1.5"],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\nsearch_labels = 0",
            ),
            vec!["bad.toml:17:17", "regression.search_labels", "allowed: 1..=64"],
        ),
        (
            good.replace(
                "games = 300",
                "games = 300\nevaluation = \"patterns\"\nridge = -2",
            ),
            vec!["regression.ridge", "ridge is -2"],
        ),
        (
            good.replace(
                "games = 300",
                &format!(
                    "games = 300\nevaluation = \"patterns\"\nstart = \"{}/weights/othello.toml\"",
                    env!("CARGO_MANIFEST_DIR")
                ),
            ),
            vec![
                "bad.toml:17:9",
                "regression.start",
                "not a pattern weights file",
            ],
        ),
        (
            good.replace("games = 300", "games = 300\nevaluation = \"patterns\"")
                .replace(
                    "method = \"regression\"",
                    "method = \"regression\"\nweights_out = \"w.toml\"",
                ),
            vec!["weights_out", "ending in .jpw"],
        ),
        (
            good.replace("game = \"othello\"", "game = \"connect4\"")
                .replace("games = 300", "games = 300\nevaluation = \"patterns\"")
                .replace("weights = ", "# weights = "),
            vec!["regression.evaluation", "Othello's, not connect4's"],
        ),
    ];
    for (text, expected) in cases {
        refused(&dir, &text, &expected);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pattern_rounds_play_fit_confirm_and_write_pattern_weights() {
    let dir = common::scratch("patterns");
    let body = "games = 40\nrounds = 2\nevaluation = \"patterns\"\nphases = 2\nphase_overlap = 3";
    let text = spec_text(body).replace("games = 200\naa_games = 40", "games = 20\naa_games = 10");
    let spec = write(&dir, "spec.toml", &text);
    let out = dir.join("out");
    let copy = dir.join("copy.jpw");
    let stdout = common::joute_ok(&[
        "tune",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--write-weights",
        copy.to_str().unwrap(),
    ]);
    assert!(stdout.contains("pattern weights fitted: "), "{stdout}");
    let lines = common::history(&out);
    assert_eq!(lines.len(), 2, "one history line per round");
    for (r, line) in lines.iter().enumerate() {
        let fit = &line["fit"];
        assert_eq!(fit["games"], 40 * (r as u64 + 1), "{fit}");
        assert!(
            fit["loss"].as_f64().unwrap() < fit["start_loss"].as_f64().unwrap(),
            "{fit}"
        );
    }
    // Round 1 fitted from zeros: its start loss is ln 2.
    let first = lines[0]["fit"]["start_loss"].as_f64().unwrap();
    assert!((first - std::f64::consts::LN_2).abs() < 1e-9, "{first}");

    // The result is round 2's weights, in the folder and the copy.
    let round2 = std::fs::read(out.join("patterns/round-2.jpw")).unwrap();
    assert!(round2.starts_with(b"JOUTEPAT"));
    assert_eq!(
        std::fs::read(out.join("tuned-weights.jpw")).unwrap(),
        round2
    );
    assert_eq!(std::fs::read(&copy).unwrap(), round2);
    assert!(!out.join("tuned-weights.toml").exists());
    let checkpoint: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("checkpoint.json")).unwrap())
            .unwrap();
    assert_eq!(
        checkpoint["state"]["patterns"]["path"], "patterns/round-2.jpw",
        "{checkpoint}"
    );
    assert_eq!(checkpoint["spec"]["regression"]["patterns"]["phases"], 2);

    // The confirmation played the pattern weights against the linear start; the A/A match
    // the start against itself.
    let engines = |folder: &str| -> Vec<Value> {
        let run: Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(folder).join("run.json")).unwrap(),
        )
        .unwrap();
        run["spec"]["engines"].as_array().unwrap().clone()
    };
    let confirm = engines("confirm");
    assert_eq!(confirm[0]["name"], "tuned");
    assert_eq!(confirm[0]["patterns"]["path"], "patterns/round-2.jpw");
    assert!(confirm[1].get("patterns").is_none(), "{:?}", confirm[1]);
    assert!(engines("aa").iter().all(|e| e.get("patterns").is_none()));

    // A copy that is not a .jpw file is refused before any game.
    let refused = common::joute_in(
        &dir,
        &[
            "tune",
            spec.to_str().unwrap(),
            "--out",
            dir.join("other").to_str().unwrap(),
            "--write-weights",
            dir.join("copy.toml").to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("name a .jpw file"), "{stderr}");
    assert!(
        !dir.join("other/selfplay").exists(),
        "no game before the refusal"
    );
    // An engine plays the result.
    plays(&copy, &dir.join("m"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pattern_start_plays_round_one_and_is_the_confirmations_opponent() {
    let dir = common::scratch("patterns-start");
    let start = format!(
        "{}/weights/othello-patterns.jpw",
        env!("CARGO_MANIFEST_DIR")
    );
    let body = format!("games = 30\nevaluation = \"patterns\"\nstart = \"{start}\"");
    let text = spec_text(&body).replace("games = 200\naa_games = 40", "games = 10");
    let (out, _) = tune(&dir, &text, &["--quiet"]);
    // A warm fit: it starts from the start's loss, below a fit from zeros'.
    let lines = common::history(&out);
    assert!(lines[0]["fit"]["start_loss"].as_f64().unwrap() < std::f64::consts::LN_2);
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("confirm/run.json")).unwrap())
            .unwrap();
    let engines = run["spec"]["engines"].as_array().unwrap();
    assert_eq!(engines[1]["name"], "start");
    assert_eq!(engines[1]["patterns"]["path"], start);
    assert_eq!(engines[0]["patterns"]["path"], "patterns/round-1.jpw");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn search_labels_score_the_rounds_games_and_joute_fit_makes_the_same_weights() {
    let dir = common::scratch("search-labels");
    let start = format!(
        "{}/weights/othello-patterns.jpw",
        env!("CARGO_MANIFEST_DIR")
    );
    let body = format!("games = 16\nevaluation = \"patterns\"\nstart = \"{start}\"");
    let text = spec_text(&body).replace("games = 200\naa_games = 40", "games = 4");
    let labelled = text.replace(
        "evaluation = \"patterns\"",
        "evaluation = \"patterns\"\nsearch_labels = 2",
    );
    let run = |name: &str, text: &str| {
        let spec = write(&dir, &format!("{name}.toml"), text);
        let out = dir.join(name);
        common::joute_ok(&[
            "tune",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        out
    };
    let plain = run("plain", &text);
    let searched = run("searched", &labelled);
    // The labels change the fit, not the games.
    let log = searched.join("selfplay/round-1.jsonl");
    let moves = |path: &Path| -> Vec<Value> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["moves"].clone())
            .collect()
    };
    assert!(
        moves(&log) == moves(&plain.join("selfplay/round-1.jsonl")),
        "the games differ"
    );
    assert!(!plain.join("selfplay/round-1.scores.jsonl").exists());
    let fitted = std::fs::read(searched.join("patterns/round-1.jpw")).unwrap();
    assert_ne!(
        fitted,
        std::fs::read(plain.join("patterns/round-1.jpw")).unwrap()
    );
    // One scores line per game, in the log's order, each with scores.
    let scores = std::fs::read_to_string(searched.join("selfplay/round-1.scores.jsonl")).unwrap();
    let ids: Vec<u64> = scores
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(!v["scores"].as_array().unwrap().is_empty(), "{l}");
            v["id"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(ids, (0..16).collect::<Vec<_>>());

    // `joute fit` with the same labelling search (the run's engine at depth 2, its exact
    // setting) and the fit's settings writes the round's weights byte for byte.
    let checkpoint: Value =
        serde_json::from_str(&std::fs::read_to_string(searched.join("checkpoint.json")).unwrap())
            .unwrap();
    let exact = checkpoint["spec"]["engine"]["exact"].as_u64().unwrap_or(0);
    let out = dir.join("fit.jpw");
    let word = format!("alphabeta:2:exact={exact}:{start}");
    common::joute_ok(&[
        "fit",
        log.to_str().unwrap(),
        "--game",
        "othello",
        "--patterns",
        "--weights",
        &start,
        "--seed",
        "11",
        "--search-labels",
        &word,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read(&out).unwrap() == fitted,
        "joute fit's weights differ from the round's"
    );

    // Margin labels: the same games, other weights, and `joute fit --margin-labels` makes them.
    let margins = run(
        "margins",
        &text.replace(
            "evaluation = \"patterns\"",
            "evaluation = \"patterns\"\nmargin_labels = 8",
        ),
    );
    let by_margin = std::fs::read(margins.join("patterns/round-1.jpw")).unwrap();
    assert_ne!(
        by_margin,
        std::fs::read(plain.join("patterns/round-1.jpw")).unwrap()
    );
    let margin_log = margins.join("selfplay/round-1.jsonl");
    assert!(moves(&margin_log) == moves(&log), "the games differ");
    let out = dir.join("margins.jpw");
    common::joute_ok(&[
        "fit",
        margin_log.to_str().unwrap(),
        "--game",
        "othello",
        "--patterns",
        "--weights",
        &start,
        "--seed",
        "11",
        "--margin-labels",
        "8",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read(&out).unwrap() == by_margin,
        "joute fit --margin-labels' weights differ from the round's"
    );

    // Search labels need a pattern evaluation searched to a fixed depth.
    let x = dir.join("x.jpw");
    for (args, expected) in [
        (
            vec!["--search-labels", "alphabeta:2"],
            "--search-labels needs --patterns",
        ),
        (
            vec!["--patterns", "--search-labels", "alphabeta:2"],
            "evaluates with linear weights",
        ),
        (
            vec![
                "--patterns",
                "--search-labels",
                &format!("pvs:100ms:{start}"),
            ],
            "needs a depth and no other budget",
        ),
    ] {
        let mut all = vec!["fit", log.to_str().unwrap(), "--game", "othello"];
        all.extend(args);
        all.extend(["--out", x.to_str().unwrap()]);
        let refused = common::joute_in(&dir, &all);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `openings.min_plies`: the self-play openings' lengths spread from it to `plies`, each
/// opening still fresh; the confirmation's openings keep `plies`.
#[test]
fn self_play_openings_of_varied_lengths() {
    let dir = common::scratch("varied");
    let text = spec_text("games = 120")
        .replace("plies = 8", "plies = 20\nmin_plies = 2")
        .replace("games = 200\naa_games = 40", "games = 4\naa_games = 0");
    let (out, _) = tune(&dir, &text, &[]);
    let games = selfplay(&out, 1);
    assert_eq!(games.len(), 120);
    let lengths: Vec<usize> = games
        .iter()
        .map(|g| g["opening"].as_array().unwrap().len())
        .collect();
    assert!(lengths.iter().all(|l| (2..=20).contains(l)), "{lengths:?}");
    assert!(
        lengths.iter().filter(|&&l| l < 8).count() >= 20,
        "{lengths:?}"
    );
    assert!(
        lengths.iter().filter(|&&l| l > 14).count() >= 20,
        "{lengths:?}"
    );
    let openings: HashSet<String> = games.iter().map(|g| g["opening"].to_string()).collect();
    assert_eq!(openings.len(), 120);
    for g in common::jsonl(&out.join("confirm/games.jsonl")) {
        assert_eq!(g["opening"].as_array().unwrap().len(), 20, "{g}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

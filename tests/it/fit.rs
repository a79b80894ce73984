//! `joute fit`: evaluation weights fitted to games logs by logistic regression (issue #17),
//! then played with; and its bad input.

use crate::common;

use common::{joute_ok, scratch};

/// A small match of `game` into `dir/NAME`; returns its log.
fn play(dir: &std::path::Path, name: &str, game: &str, engines: [&str; 2], games: &str) -> String {
    let args = [
        game, engines[0], engines[1], "--games", games, "--seed", "5",
    ];
    common::match_log(&dir.join(name), &args)
}

#[test]
fn fitted_weights_are_written_and_play() {
    let dir = scratch("plays");
    let log = play(
        &dir,
        "data",
        "connect4",
        ["alphabeta:3", "alphabeta:3"],
        "400",
    );
    let weights = dir.join("fitted.toml").display().to_string();
    let json: serde_json::Value = serde_json::from_str(&joute_ok(&[
        "fit",
        &log,
        "--skip-plies",
        "4",
        "--out",
        &weights,
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["game"], "connect4");
    let (start, fitted) = (
        json["start_loss"].as_f64().unwrap(),
        json["loss"].as_f64().unwrap(),
    );
    assert!(fitted <= start && fitted > 0.0, "{json}");
    assert!(json["positions"].as_u64().unwrap() > 400 * 10, "{json}");
    assert_eq!(
        (json["games"].as_u64(), json["skipped_games"].as_u64()),
        (Some(400), Some(0))
    );
    // Games lost by a failure are left out, and the count says so.
    let failed = dir.join("failed");
    std::fs::create_dir_all(&failed).unwrap();
    let source = std::path::Path::new(&log);
    std::fs::copy(source.with_file_name("run.json"), failed.join("run.json")).unwrap();
    let text = std::fs::read_to_string(source).unwrap();
    let lines: Vec<String> = (text.lines().enumerate())
        .map(|(i, l)| match i < 39 {
            true => crashed_before_the_end(l),
            false => l.to_string(),
        })
        .collect();
    assert_eq!(lines.iter().filter(|l| l.contains("\"crash\"")).count(), 39);
    let failed_log = failed.join("games.jsonl");
    std::fs::write(&failed_log, lines.join("\n") + "\n").unwrap();
    let failed_log = failed_log.display().to_string();
    let failed_weights = dir.join("failed.toml").display().to_string();
    let stdout = joute_ok(&["fit", &failed_log, "--out", &failed_weights]);
    assert!(
        stdout.contains("from 361 games; 39 games lost by a failure (timeout, stall, illegal move, crash) left out"),
        "{stdout}"
    );
    // The weights file is the game's, with full-precision numbers: a run with it resumes and
    // reports (its spec hash survives run.json's round trip).
    let engine = format!("alphabeta:3:{weights}");
    let out = dir.join("with-fitted").display().to_string();
    for _ in 0..2 {
        joute_ok(&[
            "match",
            "connect4",
            &engine,
            "alphabeta:3",
            "--games",
            "20",
            "--quiet",
            "--out",
            &out,
        ]);
    }
    joute_ok(&["report", &format!("{out}/games.jsonl"), "--json"]);
}

/// A Connect 4 game line (a game played to its end) as if the side to move had crashed
/// before the last move: a line the log's reader replays and accepts.
fn crashed_before_the_end(line: &str) -> String {
    let mut game: serde_json::Value = serde_json::from_str(line).unwrap();
    let mut moves: Vec<serde_json::Value> = game["moves"].as_array().unwrap().clone();
    moves.pop().expect("a game with moves");
    let plies = moves.len();
    for key in ["move_ms", "clock_ms", "scores"] {
        if let Some(list) = game.get_mut(key).and_then(|v| v.as_array_mut()) {
            list.truncate(plies);
        }
    }
    // Sides alternate: after an even number of plies in all, the first player was to move.
    let first_failed = (game["opening"].as_array().unwrap().len() + plies).is_multiple_of(2);
    let (score, margin, result) = if first_failed {
        (0.0, -1, "0-1")
    } else {
        (1.0, 1, "1-0")
    };
    game["moves"] = moves.into();
    game["plies"] = plies.into();
    game["score"] = score.into();
    game["margin"] = margin.into();
    game["result"] = result.into();
    game["termination"] = "crash".into();
    game["detail"] = "its output closed".into();
    game.to_string()
}

#[test]
fn tapered_weights_are_fitted_written_and_play() {
    let dir = scratch("taper");
    let log = play(
        &dir,
        "data",
        "connect4",
        ["alphabeta:3", "alphabeta:3"],
        "200",
    );
    let fit = |out: &str, extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["fit", &log, "--skip-plies", "4", "--out", out, "--json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&joute_ok(&args)).unwrap()
    };
    let tapered = dir.join("tapered.toml").display().to_string();
    let flat = dir.join("flat.toml").display().to_string();
    let t = fit(&tapered, &["--taper"]);
    let f = fit(&flat, &[]);
    assert_eq!(
        (t["tapered"].as_bool(), f["tapered"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(t["positions"], f["positions"]);
    // The same start, the same K; two vectors fit the training positions at least as well.
    assert!((t["start_loss"].as_f64().unwrap() - f["start_loss"].as_f64().unwrap()).abs() < 1e-9);
    assert!(
        t["loss"].as_f64().unwrap() <= f["loss"].as_f64().unwrap(),
        "{t} {f}"
    );
    let text = std::fs::read_to_string(&tapered).unwrap();
    assert!(
        text.contains("\n[weights]\n") && text.contains("\n[endgame]\n"),
        "{text}"
    );
    assert!(text.contains("tapered"), "{text}");
    assert!(
        !std::fs::read_to_string(&flat)
            .unwrap()
            .contains("[endgame]")
    );

    // The file plays: one game shown move by move, and a match that resumes and reports.
    let engine = format!("alphabeta:3:{tapered}");
    joute_ok(&["play", "connect4", &engine, "alphabeta:3", "--json"]);
    let out = dir.join("with-tapered").display().to_string();
    for _ in 0..2 {
        joute_ok(&[
            "match",
            "connect4",
            &engine,
            "alphabeta:3",
            "--games",
            "10",
            "--quiet",
            "--out",
            &out,
        ]);
    }
    joute_ok(&["report", &format!("{out}/games.jsonl"), "--json"]);
    // The run's spec records the endgame weights: the match played them.
    let run = std::fs::read_to_string(format!("{out}/run.json")).unwrap();
    assert!(run.contains("\"endgame\""), "{run}");

    // Tapered start weights: fitted tapered again, and refused for a fit of one vector.
    let again = dir.join("again.toml").display().to_string();
    let a = fit(&again, &["--taper", "--weights", &tapered]);
    assert_eq!(a["tapered"].as_bool(), Some(true));
    let stderr = common::refused(&["fit", &log, "--weights", &tapered], &[]);
    assert!(
        stderr.contains("tapered") && stderr.contains("--taper"),
        "{stderr}"
    );
    // A taper with phases (those of the pattern fit, the CLI's only phases) is refused.
    let othello = play(&dir, "othello", "othello", ["random", "random"], "2");
    let stderr = common::refused(
        &["fit", &othello, "--taper", "--patterns", "--phases", "2"],
        &[],
    );
    assert!(stderr.contains("--taper"), "{stderr}");
}

#[test]
fn bad_fits_are_refused() {
    let dir = scratch("bad");
    let c4 = play(&dir, "c4", "connect4", ["random", "random"], "4");
    let mo = play(&dir, "mo", "morpion", ["random", "random"], "4");
    let stderr = common::refused(&["fit", &c4, &mo], &[]);
    assert!(
        stderr.contains("mo") && stderr.contains("connect4"),
        "{stderr}"
    );
    // No position: every ply skipped.
    let stderr = common::refused(&["fit", &c4, "--skip-plies", "200"], &[]);
    assert!(stderr.contains("no positions"), "{stderr}");
    // A log without its run record.
    let lone = dir.join("lone.jsonl");
    std::fs::copy(&c4, &lone).unwrap();
    let stderr = common::refused(&["fit", lone.to_str().unwrap()], &[]);
    assert!(stderr.contains("run.json"), "{stderr}");
    // Start weights of another game.
    let stderr = common::refused(
        &[
            "fit",
            &c4,
            "--weights",
            &common::manifest("weights/othello.toml"),
        ],
        &[],
    );
    assert!(stderr.contains("othello.toml"), "{stderr}");
    let stderr = common::refused(&["fit", &c4, "--lambda", "-1"], &[]);
    assert!(stderr.contains("--lambda"), "{stderr}");
}

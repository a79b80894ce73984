//! `joute fit`: evaluation weights fitted to games logs by logistic regression (issue #17),
//! then played with; and its bad input.

mod common;

use assert_cmd::Command;
use common::{joute_ok, scratch};

/// A small match of `game` into `dir/NAME`; returns its log.
fn play(dir: &std::path::Path, name: &str, game: &str, engines: [&str; 2], games: &str) -> String {
    let out = dir.join(name).display().to_string();
    joute_ok(&[
        "match", game, engines[0], engines[1], "--games", games, "--seed", "5", "--quiet", "--out",
        &out,
    ]);
    format!("{out}/games.jsonl")
}

fn refused(args: &[&str]) -> String {
    let out = Command::cargo_bin("joute")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn fitted_weights_are_written_and_play() {
    let dir = scratch("fit", "plays");
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

#[test]
fn bad_fits_are_refused() {
    let dir = scratch("fit", "bad");
    let c4 = play(&dir, "c4", "connect4", ["random", "random"], "4");
    let mo = play(&dir, "mo", "morpion", ["random", "random"], "4");
    let stderr = refused(&["fit", &c4, &mo]);
    assert!(
        stderr.contains("mo") && stderr.contains("connect4"),
        "{stderr}"
    );
    // No position: every ply skipped.
    let stderr = refused(&["fit", &c4, "--skip-plies", "200"]);
    assert!(stderr.contains("no positions"), "{stderr}");
    // A log without its run record.
    let lone = dir.join("lone.jsonl");
    std::fs::copy(&c4, &lone).unwrap();
    let stderr = refused(&["fit", lone.to_str().unwrap()]);
    assert!(stderr.contains("run.json"), "{stderr}");
    // Start weights of another game.
    let stderr = refused(&[
        "fit",
        &c4,
        "--weights",
        &common::manifest("weights/othello.toml"),
    ]);
    assert!(stderr.contains("othello.toml"), "{stderr}");
    let stderr = refused(&["fit", &c4, "--lambda", "-1"]);
    assert!(stderr.contains("--lambda"), "{stderr}");
}

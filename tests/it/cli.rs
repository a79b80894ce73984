//! The command line, run as a user runs it.

use predicates::prelude::*;

use crate::common::{self, joute};

#[test]
fn perft_prints_every_depth_with_its_count_time_and_rate() {
    joute()
        .args(["perft", "othello", "5"])
        .assert()
        .success()
        .stdout(predicate::str::contains("leaves/s"))
        .stdout(predicate::str::is_match(r"(?m)^\s+4\s+244\s+\d+\.\d+\s+\d+$").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^\s+5\s+1396\s").unwrap());
}

#[test]
fn perft_json_is_one_object_with_the_counts() {
    let out = joute()
        .args(["perft", "connect4", "6", "--json", "--threads", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["game"], "connect4");
    assert_eq!(value["depth"], 6);
    assert_eq!(
        value["counts"],
        serde_json::json!([7, 49, 343, 2401, 16807, 117649])
    );
    assert!(value["seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn perft_divide_lists_each_first_move() {
    let out = joute()
        .args(["perft", "morpion", "4", "--divide", "--json"])
        .output()
        .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let parts = value["divide"].as_array().unwrap();
    assert_eq!(parts.len(), 9);
    assert_eq!(parts[0]["move"], "a1");
    let total: u64 = parts.iter().map(|p| p["count"].as_u64().unwrap()).sum();
    assert_eq!(total, 3024);
    joute()
        .args(["perft", "othello", "3", "--divide"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"(?m)^\s+d3\s+14$").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^\s+total\s+56$").unwrap());
}

#[test]
fn perft_from_a_given_position() {
    joute()
        .args(["perft", "connect4", "2", "--position", "444444", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"counts\":[6,36]"));
}

#[test]
fn bad_games_and_depths_are_refused_with_what_is_allowed() {
    common::refused(
        &["perft", "chess", "3"],
        &["unknown game 'chess'", "othello", "connect4"],
    );
    common::refused(
        &["perft", "othello", "-1"],
        &["depth -1", "between 1 and 64"],
    );
    common::refused(&["perft", "othello", "65"], &["between 1 and 64"]);
    common::refused(&["perft", "othello", "three"], &["whole number"]);
    common::refused(
        &["perft", "morpion-0x3-3", "3"],
        &["morpion-0x3-3", "between 1 and 15"],
    );
    common::refused(
        &["perft", "morpion-3x3-9", "3"],
        &["k = 9", "between 1 and 3"],
    );
    common::refused(&["perft", "othello", "3", "--threads", "0"], &["threads"]);
}

#[test]
fn bad_positions_are_refused_with_what_is_wrong() {
    let short = "-".repeat(27) + "OX" + &"-".repeat(6) + "XO" + &"-".repeat(26);
    assert_eq!(short.len(), 63);
    common::refused(
        &["perft", "othello", "1", "--position", &short],
        &["63 characters", "exactly 64"],
    );
    let with_z = "-".repeat(27) + "OX" + &"-".repeat(6) + "XZ" + &"-".repeat(27);
    common::refused(
        &["perft", "othello", "1", "--position", &with_z],
        &["'Z'", "X for black, O for white"],
    );
    common::refused(
        &["perft", "connect4", "1", "--position", "44444444"],
        &["move 7", "column 4 is full"],
    );
    common::refused(
        &["perft", "morpion", "1", "--position", "XX./.X./..."],
        &["X has 3 marks and O has 0"],
    );
}

#[test]
fn tune_without_a_readable_spec_exits_2() {
    common::refused(&["tune", "x.toml"], &["x.toml", "cannot read the spec"]);
}

#[test]
fn every_subcommand_has_help() {
    for command in [
        "run", "match", "tune", "report", "perft", "solve", "play", "analyze", "features", "bench",
    ] {
        joute()
            .args([command, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Usage: joute"));
    }
}

#[test]
fn features_lists_a_game() {
    joute()
        .args(["features", "othello", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"game\":\"othello\""));
}

/// An Othello spec of two engines whose openings come from `openings.txt` in `dir`.
fn othello_spec_with_openings_file(dir: &std::path::Path, openings: &str) {
    std::fs::write(dir.join("openings.txt"), openings).unwrap();
    std::fs::write(
        dir.join("spec.toml"),
        "name = \"xot\"\ngame = \"othello\"\nseed = 3\nopenings = { file = \"openings.txt\" }\n\
         [[engine]]\nname = \"a\"\nalgorithm = \"alphabeta\"\ndepth = 1\n\
         [[engine]]\nname = \"b\"\nalgorithm = \"random\"\n",
    )
    .unwrap();
}

#[test]
fn openings_files_take_moves_run_together_and_xot_lines() {
    let dir = tempfile::tempdir().unwrap();
    othello_spec_with_openings_file(
        dir.path(),
        "# two XOT lines and a short one\nf5d6c4d3c2b3b4b5\nF5D6C3D3C4F4C5B3\nf5d6c3\n",
    );
    joute()
        .current_dir(dir.path())
        .args(["run", "spec.toml", "--out", "out", "--quiet"])
        .assert()
        .success();
    let log = std::fs::read_to_string(dir.path().join("out/games.jsonl")).unwrap();
    let mut openings: Vec<String> = log
        .lines()
        .map(|line| {
            let game: serde_json::Value = serde_json::from_str(line).unwrap();
            let moves: Vec<&str> = game["opening"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            moves.join(" ")
        })
        .collect();
    openings.sort();
    openings.dedup();
    assert_eq!(
        openings,
        [
            "f5 d6 c3",
            "f5 d6 c3 d3 c4 f4 c5 b3",
            "f5 d6 c4 d3 c2 b3 b4 b5"
        ]
    );
    assert_eq!(log.lines().count(), 6, "three openings, each played twice");
}

#[test]
fn a_bad_move_run_together_in_an_openings_file_is_located() {
    let dir = tempfile::tempdir().unwrap();
    othello_spec_with_openings_file(dir.path(), "f5d6c3\nf5d6c9d3\n");
    let out = joute()
        .current_dir(dir.path())
        .args(["run", "spec.toml", "--out", "out"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("openings.txt:2:5: invalid othello move 'c9'"),
        "{stderr}"
    );
}

#[test]
fn an_othello_board_may_have_its_side_to_move_glued_on() {
    // The start after f5: black on d5 e4 e5 f5, white on d4; white to move has d6, f4 and f6.
    let mut board = vec!['-'; 64];
    for (sq, c) in [(27, 'O'), (28, 'X'), (35, 'X'), (36, 'X'), (37, 'X')] {
        board[sq] = c;
    }
    let board: String = board.into_iter().collect();
    for position in [
        format!("{board} O"),
        format!("{board}O"),
        format!("{board}w"),
    ] {
        joute()
            .args(["perft", "othello", "1", "--position", &position, "--json"])
            .assert()
            .success()
            .stdout(predicate::str::contains("\"counts\":[3]"));
    }
    common::refused(
        &["perft", "othello", "1", "--position", &format!("{board}Q")],
        &["65 characters", "'Q', is not a side to move"],
    );
}

/// A Connect 4 game played from `2 7 3 6 4`, where the side to move loses in 2 plies.
const FORCED_WIN: [&str; 6] = [
    "play",
    "connect4",
    "alphabeta:4",
    "alphabeta:4",
    "--opening",
    "27364",
];

#[test]
fn play_names_forced_results_in_plies_and_ends_with_the_result() {
    // After 2 7 3 6 4, X holds columns 2-4 of the bottom row with 1 and 5 open: O, to move,
    // can block one end only, and X completes four on the other.
    let out = joute().args(FORCED_WIN).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        predicate::str::is_match(
            r"(?m)^1\. alphabeta:4 \(second\) plays [15]: loss in 2 plies, depth 4,"
        )
        .unwrap()
        .eval(&stdout),
        "{stdout}"
    );
    assert!(
        predicate::str::is_match(
            r"(?m)^2\. alphabeta:4 \(first\) plays [15]: win in 1 ply, depth 4,"
        )
        .unwrap()
        .eval(&stdout),
        "{stdout}"
    );
    assert!(!stdout.contains("score 1677"), "{stdout}");
    // The board after the winning move says the game is over, not whose move it is.
    let last_board = stdout.rsplit("\n2. ").next().unwrap();
    assert!(last_board.contains("game over, X wins"), "{stdout}");
    assert!(!last_board.contains("to move"), "{stdout}");

    let out = joute().args(FORCED_WIN).arg("--json").output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["score"], -((1 << 24) - 2));
    assert_eq!(records[0]["score_text"], "loss in 2 plies");
    assert_eq!(records[1]["score"], (1 << 24) - 1);
    assert_eq!(records[1]["score_text"], "win in 1 ply");
}

#[test]
fn play_keeps_ordinary_scores_as_numbers() {
    let out = joute()
        .args(["play", "othello", "alphabeta:1", "random", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &v["records"][0];
    // One ply deep from the start nothing is forced: the evaluation, as a number and as text.
    let score = first["score"].as_i64().unwrap();
    assert!(score.abs() < 1 << 20, "{first}");
    assert_eq!(first["score_text"], score.to_string());
    joute()
        .args(["play", "othello", "alphabeta:1", "random"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "1. alphabeta:1 (first) plays {}: score {score}, depth 1,",
            first["move"].as_str().unwrap()
        )))
        .stdout(predicate::str::contains("  X to move\n"))
        .stdout(predicate::str::is_match(r"game over, (X wins|O wins|draw)\n\nresult: ").unwrap());
}

/// `joute match` on Connect 4 with `extra` arguments, as JSON.
fn match_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "match", "connect4", "mcts:20", "random", "--games", "4", "--json",
    ];
    args.extend_from_slice(extra);
    let out = joute().args(&args).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn cutechess_and_fastchess_names_are_aliases() {
    // --concurrency is --threads (3 is not the default on this 2-core machine, nor 1).
    assert_eq!(match_json(&["--concurrency", "3"])["threads"], 3);
    joute()
        .args(["perft", "othello", "4", "--concurrency", "3", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"counts\":[4,12,56,244]"))
        .stdout(predicate::str::contains("\"threads\":3"));
    // --srand is --seed: every game's seed in the log follows it.
    let dir = tempfile::tempdir().unwrap();
    let game_seeds = |flag: &str, seed: &str| -> Vec<u64> {
        let out = dir.path().join(format!("{flag}{seed}"));
        match_json(&[flag, seed, "--out", out.to_str().unwrap()]);
        let log = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
        let mut seeds: Vec<(u64, u64)> = log
            .lines()
            .map(|l| {
                let g: serde_json::Value = serde_json::from_str(l).unwrap();
                (g["id"].as_u64().unwrap(), g["seed"].as_u64().unwrap())
            })
            .collect();
        seeds.sort();
        seeds.into_iter().map(|(_, s)| s).collect()
    };
    let seeded = game_seeds("--seed", "7");
    assert_eq!(game_seeds("--srand", "7"), seeded);
    assert_ne!(game_seeds("--srand", "8"), seeded);
    for command in ["run", "match", "tune", "perft"] {
        joute()
            .args([command, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("--concurrency"));
    }
}

#[test]
fn near_misses_and_foreign_habits_get_one_line_naming_the_flag_meant() {
    let game = ["match", "othello", "random", "random"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        game.iter().chain(extra).copied().collect()
    };
    // cutechess-cli and fastchess write long options with one dash.
    common::refused(
        &with(&["-concurrency", "4"]),
        &["'-concurrency'", "two dashes: '--concurrency'"],
    );
    common::refused(&with(&["-games", "20"]), &["'-games'", "'--games'"]);
    common::refused(
        &with(&["-c", "4"]),
        &["'-c'", "did you mean '--concurrency' or '--cost'?"],
    );
    common::refused(
        &with(&["--thread", "2"]),
        &["'--thread'", "did you mean '--threads'?"],
    );
    common::refused(
        &with(&["--concurency", "2"]),
        &["did you mean '--concurrency'?"],
    );
    common::refused(
        &with(&["-rounds", "50", "-games", "2", "-repeat"]),
        &["'-rounds'", "--games N plays N/2 openings"],
    );
    common::refused(&with(&["-repeat"]), &["already played twice"]);
    common::refused(
        &with(&["-each", "tc=10+0.1"]),
        &["ALGORITHM[:BUDGET][:exact=N][:WEIGHTS.toml]", "--tc 10+0.1"],
    );
    common::refused(&with(&["-tc", "40/60"]), &["'-tc'", "write --tc 10+0.1"]);
    common::refused(
        &with(&["-recover"]),
        &["started again for the next", "--resume"],
    );
    common::refused(&with(&["--depth", "6"]), &["pvs:6 (depth)"]);
    common::refused(&with(&["-sprt", "elo0=0", "elo1=5"]), &["--sprt 0,5"]);
    common::refused(
        &with(&["-pgnout", "games.pgn"]),
        &["--out DIR --records pgn", "games.jsonl", "joute export"],
    );
    common::refused(&["matc", "othello"], &["'matc'", "did you mean 'match'?"]);
    common::refused(
        &["--threads", "2", "run"],
        &["after the command", "run --threads"],
    );
    common::refused(
        &["perft", "othello", "3", "4"],
        &["'4'", "see 'joute perft --help'"],
    );
    // A negative number for a flag that takes a count: one line saying what it must be.
    common::refused(
        &with(&["--games", "-5"]),
        &["--games is -5; it must be a positive number"],
    );
    common::refused(
        &["run", "--threads", "-1"],
        &["--threads is -1; it must be a positive number"],
    );
    // Never clap's tip to pass the flag as a value after '--'.
    let out = joute().args(with(&["-concurrency", "4"])).output().unwrap();
    assert!(!String::from_utf8(out.stderr).unwrap().contains("-- -c"));
}

/// What `joute ARGS` prints on stdout (help goes there).
fn stdout_of(args: &[&str]) -> String {
    let out = joute().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn help_texts_give_the_engine_syntax_the_games_and_the_files() {
    for command in ["match", "play"] {
        let help = stdout_of(&[command, "--help"]);
        for algorithm in [
            "minimax",
            "negamax",
            "alphabeta",
            "bisection",
            "mtdf",
            "pvs",
            "mcts",
            "random",
        ] {
            assert!(
                help.contains(algorithm),
                "{command}: {algorithm} missing\n{help}"
            );
        }
        for piece in [
            "ALGORITHM[:BUDGET][:exact=N][:WEIGHTS.toml]",
            "nN",
            "200ms",
            "1..=64",
        ] {
            assert!(help.contains(piece), "{command}: {piece} missing\n{help}");
        }
    }
    for command in ["match", "play", "solve", "features", "perft"] {
        let help = stdout_of(&[command, "--help"]);
        assert!(
            help.contains("othello, connect4, morpion") && help.contains("random-tree-BxD"),
            "{command}: the games are not listed\n{help}"
        );
        assert!(!help.contains("Game name"), "{command}\n{help}");
    }
    let perft = stdout_of(&["perft", "--help"]);
    assert!(!perft.contains("(default 1)"), "{perft}");
    assert!(perft.contains("[default: 1]"), "{perft}");
    let matches = stdout_of(&["match", "--help"]);
    for file in [
        "games.jsonl",
        "run.json",
        "ratings.csv",
        "crosstable.csv",
        "pairs.csv",
        "charts",
        "index.html",
    ] {
        assert!(
            matches.contains(file),
            "match --out: {file} missing\n{matches}"
        );
    }
    for command in ["run", "tune"] {
        assert!(
            stdout_of(&[command, "--help"]).contains("docs/spec.md"),
            "{command}"
        );
    }
    assert!(stdout_of(&["--help"]).contains("docs/"));
}

#[test]
fn features_count_their_features_in_good_english() {
    assert!(
        stdout_of(&["features", "random-tree-2x2"]).starts_with("random-tree-2x2: 1 feature (")
    );
    assert!(stdout_of(&["features", "connect4"]).starts_with("connect4: 10 features ("));
}

#[test]
fn gomoku_rules_are_game_names_and_renju_forbids_a_double_three() {
    // Black to move; h8 makes two open threes (g8 h8 i8, h6 h7 h8).
    let mut rows = vec!["..............."; 15];
    rows[0] = "O.O.O.O........";
    rows[5] = ".......X.......";
    rows[6] = ".......X.......";
    rows[7] = "......X.X......";
    let board = rows.join("/");
    for (game, h8_legal) in [
        ("renju", false),
        ("morpion-15x15-5-renju", false),
        ("morpion-15x15-5-exact", true),
        ("morpion-15x15-5", true),
    ] {
        let out = joute()
            .args([
                "perft",
                game,
                "1",
                "--divide",
                "--json",
                "--position",
                &board,
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{game}");
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let parts = value["divide"].as_array().unwrap();
        let h8 = parts.iter().any(|p| p["move"] == "h8");
        assert_eq!(h8, h8_legal, "{game}");
        assert_eq!(parts.len(), 217 - usize::from(!h8_legal), "{game}");
    }
    common::refused(
        &["perft", "morpion-15x15-4-renju", "1"],
        &["renju is five in a row"],
    );
    common::refused(
        &["perft", "morpion-15x15-5-caro", "1"],
        &["unknown rule 'caro'"],
    );
}

/// The threat search's engine words reach the engine and its record: `run.json` holds
/// `threats`, `vcf`, `vct` and `lmr` for the engine that set them and none for the one that did not (so
/// that runs from before the keys keep their hash), and the match plays.
#[test]
fn the_threat_search_words_play_and_are_recorded_only_when_set() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let (a, b) = (
        "pvs:3:near=2:threats=1:vcf=100:vct=2000:lmr=1",
        "pvs:3:near=2",
    );
    let run = joute()
        .args(["match", "morpion-9x9-5", a, b, "--games", "4", "--json"])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let engines = spec["spec"]["engines"]
        .as_array()
        .unwrap_or_else(|| panic!("{spec}"));
    let engine = |name: &str| engines.iter().find(|e| e["name"] == name).unwrap().clone();
    assert_eq!(engine(a)["threats"], true);
    assert_eq!(engine(a)["vcf"], 100);
    assert_eq!(engine(a)["vct"], 2000);
    assert_eq!(engine(a)["lmr"], true);
    assert!(
        ["threats", "vcf", "vct", "lmr"]
            .iter()
            .all(|key| engine(b).get(key).is_none())
    );
    let log = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 4);
}

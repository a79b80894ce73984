//! `joute tune` from the command line: a small run end to end, resume after SIGKILL, and bad
//! input.

use crate::common::tune_spec_text as spec_text;
use crate::common::{self, scratch};

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

fn write(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("spec.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The A/A match's games: id, engine moving first, moves and result.
fn aa_games(out: &Path) -> Vec<(u64, String, Vec<String>, String)> {
    let mut games: Vec<_> = std::fs::read_to_string(out.join("aa/games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let g: Value = serde_json::from_str(l).unwrap();
            let text = |k: &str| g[k].as_str().unwrap().to_string();
            let moves = g["moves"].as_array().unwrap();
            (
                g["id"].as_u64().unwrap(),
                text("first"),
                moves
                    .iter()
                    .map(|m| m.as_str().unwrap().to_string())
                    .collect(),
                text("result"),
            )
        })
        .collect();
    games.sort();
    assert!(!games.is_empty());
    games
}

#[test]
fn a_small_run_tunes_confirms_and_writes_everything() {
    let dir = scratch("small");
    let spec = write(&dir, &spec_text(&dir, "hill-climb", "games = 3000", ""));
    let out = dir.join("out");
    let summary = common::joute_json("tune", &spec, &out);
    // Every game within the budget: tuning's, the confirmation's and the A/A match's.
    let games = summary["games"].as_u64().unwrap();
    assert!(games <= 3000, "{summary}");
    assert_eq!(summary["confirmation"]["games"], 200);
    assert_eq!(summary["aa"]["games"], 40);
    // What each side of the confirmation paid: the nodes its match's own log sums.
    let mut nodes = std::collections::BTreeMap::<String, u64>::new();
    for g in common::jsonl(&out.join("confirm/games.jsonl")) {
        for (side, key) in ["first", "second"].iter().enumerate() {
            *nodes.entry(g[key].as_str().unwrap().into()).or_default() +=
                g["nodes"][side].as_u64().unwrap();
        }
    }
    let sides = summary["confirmation"]["cost"].as_array().unwrap();
    assert_eq!(sides.len(), 2, "{summary}");
    for side in sides {
        let engine = side["engine"].as_str().unwrap();
        assert_eq!(side["nodes"].as_u64(), Some(nodes[engine]), "{engine}");
        assert!(side["ms_mean"].as_f64().is_some(), "{engine}");
    }
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains("id=\"confirmation-cost\""),
        "no cost on the tuning page"
    );
    // The A/A match is a real test: its two copies play different games (ties among equal
    // moves broken at random), so its interval has a width, and it is judged.
    let check = &summary["aa"]["check"];
    assert_eq!(check["verdict"], "pass", "{summary}");
    assert_eq!(check["pairs"], 20);
    assert!(check["distinct_pairs"].as_u64().unwrap() >= 10, "{summary}");
    assert!(summary["aa"]["error"].as_f64().unwrap() > 0.0, "{summary}");
    let h = common::history(&out);
    assert_eq!(h.len() as u64, summary["candidates"].as_u64().unwrap());
    let tuning: u64 = h.iter().map(|l| l["games"].as_u64().unwrap()).sum();
    assert_eq!(tuning + 240, games);
    assert_eq!(h.last().unwrap()["games_total"].as_u64().unwrap(), tuning);
    // Every candidate's pentanomial counts its pairs, and W/D/L its games.
    for l in &h {
        let p: u64 = l["pentanomial"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum();
        assert_eq!(p, l["pairs"].as_u64().unwrap());
        let wdl = l["wins"].as_u64().unwrap()
            + l["draws"].as_u64().unwrap()
            + l["losses"].as_u64().unwrap();
        assert_eq!(wdl, l["games"].as_u64().unwrap());
    }
    // The checkpoint says tuning is over; the matches have their own logs and reports.
    let ck: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("checkpoint.json")).unwrap())
            .unwrap();
    assert_eq!(ck["tuning_done"], true);
    for m in ["confirm", "aa"] {
        assert!(out.join(m).join("games.jsonl").is_file());
        assert!(out.join(m).join("index.html").is_file());
    }
    // The confirmation's openings are none of the tuning's.
    let confirm_log = std::fs::read_to_string(out.join("confirm/games.jsonl")).unwrap();
    assert_eq!(confirm_log.lines().count(), 200);
    // The tuned weights: a weights file with its provenance, read back by a match.
    let weights = std::fs::read_to_string(dir.join("tuned.toml")).unwrap();
    assert!(weights.starts_with("# Tuned by joute"), "{weights}");
    assert!(weights.contains("Confirmed against the start on 200 held-out games"));
    let engine = format!("alphabeta:2:{}", dir.join("tuned.toml").display());
    common::joute_ok(&[
        "match",
        "connect4",
        &engine,
        "alphabeta:2",
        "--games",
        "4",
        "--quiet",
    ]);
    assert!(out.join("summary.json").is_file());
    // The report: the page and the charts of a hill climb.
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("own_threes") && page.contains("own_immediate"));
    for chart in ["tune-elo", "tune-weights", "tune-steps", "tune-llr"] {
        assert!(out.join(format!("{chart}.png")).is_file(), "{chart}");
        assert!(
            page.contains(&format!("<figcaption>{chart}</figcaption>")),
            "{chart} not inlined"
        );
    }
    // A second run into the same folder is refused without --resume.
    let again = Command::cargo_bin("joute")
        .unwrap()
        .args([
            "tune",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn spsa_runs_its_iterations() {
    let dir = scratch("spsa");
    let spec = write(
        &dir,
        &spec_text(&dir, "spsa", "iterations = 60", "\n[spsa]\npairs = 2\n"),
    );
    let out = dir.join("out");
    let summary = common::joute_json("tune", &spec, &out);
    assert_eq!(summary["candidates"], 60);
    let h = common::history(&out);
    // No iteration is "accepted": every one moves θ by its estimate.
    assert!(h.iter().all(|l| l["pairs"] == 2 && l["accepted"] == false));
    assert_eq!(summary["games"], 60 * 4 + 240);
    // On the terminal (here a pipe) an iteration reads as θ+ against θ− and where θ went.
    let shown = Command::cargo_bin("joute")
        .unwrap()
        .args([
            "tune",
            spec.to_str().unwrap(),
            "--out",
            dir.join("shown").to_str().unwrap(),
            "--force",
        ])
        .output()
        .unwrap();
    assert!(shown.status.success());
    let stderr = String::from_utf8_lossy(&shown.stderr);
    assert!(stderr.contains("iteration 1: θ+ vs θ− "), "{stderr}");
    let stdout = String::from_utf8_lossy(&shown.stdout);
    let aa = (stdout.lines())
        .find(|l| l.starts_with("A/A: start vs start "))
        .unwrap_or_default();
    assert!(aa.contains(" — pass: the 95% interval"), "{stdout}");
    assert!(
        !stderr.contains("accepted") && !stderr.contains("Elo"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_run_resumes_to_the_same_weights() {
    let dir = scratch("resume");
    // Depth 4: slow enough to be killed between candidates.
    let text = spec_text(&dir, "hill-climb", "games = 14000", "").replace("depth = 2", "depth = 4");
    let spec = write(&dir, &text);
    let spec = spec.to_str().unwrap();
    let whole = dir.join("whole");
    common::joute_ok(&["tune", spec, "--out", whole.to_str().unwrap(), "--quiet"]);
    let expected_weights = common::weights_lines(&dir.join("tuned.toml"));
    let expected_history = common::history(&whole);
    std::fs::remove_file(dir.join("tuned.toml")).unwrap();

    let killed = dir.join("killed");
    let log = killed.join("history.jsonl");
    let mut kills = Vec::new();
    for target in [2usize, 5, 9] {
        let mut args = vec!["tune", spec, "--out", killed.to_str().unwrap(), "--quiet"];
        if killed.join("checkpoint.json").exists() {
            args.push("--resume");
        }
        kills.extend(common::kill_at_lines(&args, &log, target));
    }
    eprintln!("killed with {kills:?} candidates in the history");
    assert!(
        kills.len() >= 2,
        "the run finished before it could be killed: {kills:?}"
    );
    // What a kill in the middle of an atomic write leaves (no live process has this PID),
    // beside a file of the user's named alike.
    let stale = killed.join(".tune-weights.png.4000000000.Ab12Cd.joute-tmp");
    std::fs::write(&stale, "").unwrap();
    std::fs::write(killed.join("notes.tmp4000000000"), "mine").unwrap();
    common::joute_ok(&[
        "tune",
        spec,
        "--out",
        killed.to_str().unwrap(),
        "--quiet",
        "--resume",
    ]);
    assert!(!stale.exists(), "the resume left a stale temporary file");
    assert!(killed.join("notes.tmp4000000000").exists());
    assert_eq!(
        common::weights_lines(&dir.join("tuned.toml")),
        expected_weights
    );
    assert_eq!(common::history(&killed), expected_history);
    // The A/A match's games, random choices included, replay from the seed.
    assert_eq!(aa_games(&killed), aa_games(&whole));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_tuning_specs_get_a_clear_error() {
    let dir = scratch("bad");
    let good = spec_text(&dir, "hill-climb", "games = 3000", "");
    let cases: Vec<(String, Vec<&str>)> = vec![
        // A parameter that is not a feature of the game: line and column of its name.
        (
            good.replace("name = \"own_threes\"", "name = \"corners\""),
            vec![
                "bad.toml:23:8",
                "param[1].name",
                "'corners' is not a feature of connect4",
                "allowed: centre",
            ],
        ),
        (
            good.replace("min = -20\nmax = 40", "min = 50\nmax = 40"),
            vec![
                "bad.toml:",
                "param[1].max",
                "min (50) must be less than max (40)",
            ],
        ),
        (
            good.replace("step = 4", "step = 0"),
            vec!["param[1].step", "step is 0; allowed: above 0"],
        ),
        (
            good.replace("games = 3000", "games = 0"),
            vec!["budget.games", "a budget of 0 plays nothing"],
        ),
        // Opening lengths that give (almost) no distinct openings, found when the spec is read.
        (
            good.replace("plies = 6", "plies = 0"),
            vec!["bad.toml:13:9", "openings.plies", "gives only 1 distinct"],
        ),
        (
            good.replace("plies = 6", "plies = 100"),
            vec!["bad.toml:13:9", "openings.plies", "gives only 0 distinct"],
        ),
        // A tournament spec given to joute tune says which command it is for.
        (
            std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tournaments/quickstart.toml"),
            )
            .unwrap(),
            vec!["this is a tournament spec", "joute run"],
        ),
        (
            good.replace("games = 3000", "iterations = 0"),
            vec!["budget.iterations", "a budget of 0"],
        ),
        (
            good.replace("games = 3000", ""),
            vec!["budget", "give iterations = N"],
        ),
        (
            good.replace("weights_out", "opponent = \"pool\"\nweights_out"),
            vec!["pool", "needs one or more [[pool]] engines"],
        ),
        // An opponent pool of another game: its weights file is Othello's.
        (
            format!(
                "{}\n[[pool]]\nname = \"p\"\nalgorithm = \"alphabeta\"\ndepth = 2\nweights = \"{}/weights/othello.toml\"\n",
                good.replace("weights_out", "opponent = \"pool\"\nweights_out"),
                env!("CARGO_MANIFEST_DIR")
            ),
            vec!["pool[1].weights", "othello", "connect4"],
        ),
        (
            good.replace("method = \"hill-climb\"", "method = \"annealing\""),
            vec!["bad.toml:4:", "method", "allowed: hill-climb, spsa"],
        ),
        (
            good.replace("games = 3000", "games = 240"),
            vec!["budget.games", "leaves nothing for tuning"],
        ),
        (
            good.replace("[confirm]\ngames = 200", "[confirm]\ngames = 201"),
            vec!["confirm.games", "must be even"],
        ),
        (
            good.replace("seed = 5", "seed = 5\ncolour = 1"),
            vec!["colour", "unknown key"],
        ),
        (
            good.replace("method = \"hill-climb\"", "method = \"spsa\""),
            vec!["budget.iterations", "spsa needs iterations"],
        ),
        (
            format!("{good}\n[sprt]\nelo0 = 5\nelo1 = 0\n"),
            vec!["sprt.elo1", "must be greater than elo0"],
        ),
        (
            good.replace("min = -20\nmax = 100", "min = 10\nmax = 100"),
            vec![
                "param[2].name",
                "own_immediate' = 0, outside [min, max] = [10, 100]",
            ],
        ),
    ];
    for (text, expected) in &cases {
        common::refused_spec(&dir, "tune", text, &[], expected);
    }
    // --budget 0, and a budget too small for the confirmation.
    common::refused_spec(
        &dir,
        "tune",
        &good,
        &["--budget", "0"],
        &["--budget 0 plays nothing"],
    );
    common::refused_spec(
        &dir,
        "tune",
        &good,
        &["--budget", "4"],
        &["leaves nothing for tuning"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_example_tuning_specs_are_valid() {
    // A budget too small to be useful still validates each spec; --budget caps the run.
    for entry in std::fs::read_dir("tournaments").unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("tune-") || !path.is_file() {
            continue;
        }
        joute::tune::spec::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// `git` in `dir`, expecting success; returns stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=joute",
            "-c",
            "user.email=joute@example.org",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_tune_from_a_copy_of_the_repository_changes_no_tracked_file() {
    // The repository's specs and weights as a fresh repository: what a user's clone holds.
    let dir = scratch("clone");
    let repo = dir.join("repo");
    for folder in ["tournaments", "weights"] {
        std::fs::create_dir_all(repo.join(folder)).unwrap();
        for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(folder)).unwrap()
        {
            let path = entry.unwrap().path();
            if !path.is_file() {
                continue; // tournaments/tune-compare/: specs of the comparison script
            }
            std::fs::copy(&path, repo.join(folder).join(path.file_name().unwrap())).unwrap();
        }
    }
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "--quiet", "-m", "a clone"]);
    let out = dir.join("out");
    let run = Command::cargo_bin("joute")
        .unwrap()
        .current_dir(&repo)
        .args([
            "tune",
            "tournaments/tune-connect4.toml",
            "--out",
            out.to_str().unwrap(),
            "--budget",
            "400",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");
    let tuned = std::fs::read_to_string(out.join("tuned-weights.toml")).unwrap();
    assert!(tuned.contains("Tuned by joute"), "{tuned}");
}

#[test]
fn a_weights_copy_replaces_a_file_only_with_force_and_is_checked_before_any_game() {
    let dir = scratch("copy");
    let spec = write(
        &dir,
        &spec_text(&dir, "hill-climb", "games = 300", "").replace(
            &format!("weights_out = \"{}\"\n", dir.join("tuned.toml").display()),
            "",
        ),
    );
    let existing = dir.join("mine.toml");
    std::fs::write(&existing, "game = \"connect4\"\n[weights]\ncentre = 1\n").unwrap();
    let tune = |out: &str, extra: &[&str]| {
        let mut args = vec!["tune", spec.to_str().unwrap(), "--out", out, "--quiet"];
        args.extend_from_slice(extra);
        Command::cargo_bin("joute")
            .unwrap()
            .args(&args)
            .output()
            .unwrap()
    };
    // An existing file: refused at once, nothing played.
    let a = dir.join("a");
    let refused = tune(
        a.to_str().unwrap(),
        &["--write-weights", existing.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("exists") && stderr.contains("--force"),
        "{stderr}"
    );
    assert!(!a.join("history.jsonl").exists(), "a game was played");
    // A folder that does not exist: refused at once too.
    let nowhere = dir.join("no-such-folder").join("w.toml");
    let refused = tune(
        a.to_str().unwrap(),
        &["--write-weights", nowhere.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(!a.join("history.jsonl").exists());
    // With --force the file is replaced by the tuned weights, also kept in the run's folder.
    let b = dir.join("b");
    let forced = tune(
        b.to_str().unwrap(),
        &["--write-weights", existing.to_str().unwrap(), "--force"],
    );
    assert!(forced.status.success(), "{forced:?}");
    let copy = std::fs::read_to_string(&existing).unwrap();
    assert!(copy.contains("Tuned by joute"), "{copy}");
    assert_eq!(
        copy,
        std::fs::read_to_string(b.join("tuned-weights.toml")).unwrap()
    );
}

#[test]
fn a_resume_accepts_a_spec_whose_only_change_is_its_output_path() {
    let dir = scratch("moved");
    let text = spec_text(&dir, "hill-climb", "games = 300", "");
    let spec = write(&dir, &text);
    let out = dir.join("out");
    let tune = |extra: &[&str]| {
        let mut args = vec![
            "tune",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        Command::cargo_bin("joute")
            .unwrap()
            .args(&args)
            .output()
            .unwrap()
    };
    assert!(tune(&[]).status.success());
    assert!(dir.join("tuned.toml").is_file());
    // The copy goes elsewhere now: the run is the same, so --resume takes it.
    let moved = dir.join("moved.toml");
    std::fs::write(
        &spec,
        text.replace(
            &dir.join("tuned.toml").display().to_string(),
            &moved.display().to_string(),
        ),
    )
    .unwrap();
    let resumed = tune(&["--resume"]);
    assert!(resumed.status.success(), "{resumed:?}");
    assert_eq!(
        std::fs::read_to_string(&moved).unwrap(),
        std::fs::read_to_string(out.join("tuned-weights.toml")).unwrap()
    );
}

#[test]
fn ctrl_c_in_the_confirmation_stops_it_and_the_printed_command_finishes_the_run() {
    let dir = scratch("sigint-confirm");
    // Tuning ends quickly; the confirmation (depth 4, 2,000 games) is long enough to interrupt.
    let text = spec_text(&dir, "hill-climb", "games = 12000\niterations = 3", "")
        .replace("depth = 2", "depth = 4")
        .replace("games = 200\n", "games = 2000\n");
    let spec = write(&dir, &text);
    let out = dir.join("run");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("joute"))
        .args([
            "tune",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--quiet", "--threads", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = out.join("confirm").join("games.jsonl");
    let lines =
        |p: &Path| std::fs::read(p).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    let clock = std::time::Instant::now();
    while lines(&log) < 20 && clock.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("interrupted during the confirm match"))
        .unwrap_or_else(|| panic!("no resume line in {stdout}"));
    assert!(line.ends_with("--resume"), "{line}");
    let logged = lines(&log);
    assert!((20..2000).contains(&logged), "{logged} games logged");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("confirm/run.json")).unwrap())
            .unwrap();
    assert_eq!(record["sessions"][0]["ended"], "interrupted");
    assert!(
        !out.join("summary.json").exists(),
        "no summary before the end"
    );

    // The printed command finishes the confirmation where it stopped, and the run.
    let command = line.split("run: ").nth(1).unwrap();
    let words: Vec<&str> = command.split_whitespace().collect();
    let resumed = std::process::Command::new(words[0])
        .args(&words[1..])
        .output()
        .unwrap();
    assert!(resumed.status.success(), "{resumed:?}");
    assert!(String::from_utf8_lossy(&resumed.stdout).contains("confirmed: tuned vs start"));
    assert_eq!(lines(&log), 2000);
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["confirmation"]["games"], 2000);
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("confirm/run.json")).unwrap())
            .unwrap();
    assert_eq!(record["sessions"].as_array().unwrap().len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_plan_the_board_cannot_supply_with_openings_is_refused_before_any_game() {
    let dir = scratch("supply");
    // Connect 4 has 1,042 distinct balanced openings of 4 plies: a budget of 3,000 games wants
    // more for tuning alone. The refusal keeps its advice, and no folder is left.
    let text = spec_text(&dir, "hill-climb", "games = 3000", "").replace("plies = 6", "plies = 4");
    let spec = write(&dir, &text);
    let out = dir.join("out");
    let line = common::refused(
        &[
            "tune",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[
            "the plan needs",
            "distinct playable openings of 4 plies",
            "change plies",
        ],
    );
    assert!(line.ends_with("loosen max_imbalance"), "{line}");
    assert!(!out.exists());
    // A budget the board can supply starts.
    let text = spec_text(&dir, "hill-climb", "games = 600", "").replace("plies = 6", "plies = 4");
    let spec = write(&dir, &text);
    common::joute_ok(&[
        "tune",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fresh_starts_a_tuning_folder_afresh_removing_only_the_files_joute_wrote() {
    let dir = scratch("tune-fresh");
    let spec = write(&dir, &spec_text(&dir, "spsa", "iterations = 4", ""));
    let out = dir.join("out");
    let (s, o) = (spec.to_str().unwrap(), out.to_str().unwrap());
    common::joute_ok(&["tune", s, "--out", o, "--quiet"]);
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("checkpoint.json")).unwrap())
            .unwrap();
    let listed: Vec<&str> = (record["files"].as_array().unwrap().iter())
        .map(|f| f.as_str().unwrap())
        .collect();
    for name in [
        "history.jsonl",
        "index.html",
        "confirm/games.jsonl",
        "aa/run.json",
    ] {
        assert!(listed.contains(&name), "{name} not in {listed:?}");
    }
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    // The folder's run is refused without --resume, and the refusal names --fresh.
    common::refused(
        &["tune", s, "--out", o],
        &["already holds a tuning run", "--fresh"],
    );
    // A fixed spec starts afresh: the earlier run's files go, the user's stay. The weights
    // copy outside the folder is not the run's to remove: replacing it still takes --force,
    // and the refusal leaves the folder as it was.
    let fixed = spec_text(&dir, "spsa", "iterations = 3", "");
    std::fs::write(&spec, fixed).unwrap();
    common::refused(
        &["tune", s, "--out", o, "--fresh"],
        &["tuned.toml exists", "--force"],
    );
    assert!(out.join("checkpoint.json").is_file() && dir.join("tuned.toml").is_file());
    let again = Command::cargo_bin("joute")
        .unwrap()
        .args(["tune", s, "--out", o, "--fresh", "--force", "--json"])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let summary: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(summary["candidates"], 3);
    assert_eq!(common::history(&out).len(), 3);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    common::refused(
        &["tune", s, "--out", o, "--fresh", "--resume"],
        &["--fresh"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

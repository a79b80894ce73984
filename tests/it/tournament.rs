//! Tournaments from the command line: reproducibility across threads and shards, resuming
//! after SIGKILL, SPRT runs, `joute match`, `joute report`, and the bad-input errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::common::{self, joute, scratch, specs};
use serde_json::Value;

/// A small Connect 4 round robin: 4 engines, 6 pairings, `count` openings, 12·count games.
fn small_spec(dir: &Path, count: u32) -> PathBuf {
    let path = dir.join("small.toml");
    let text = specs::spec("small", "connect4", 11, 4, count)
        .engines(&["random", "ab-1", "ab-3", "mcts-50"]);
    std::fs::write(&path, text.text()).unwrap();
    path
}

#[test]
fn games_are_identical_across_threads_and_shards() {
    let dir = scratch("repro");
    let spec = small_spec(&dir, 5);
    let spec = spec.to_str().unwrap();
    let one = dir.join("t1");
    let two = dir.join("t2");
    common::joute_ok(&[
        "run",
        spec,
        "--out",
        one.to_str().unwrap(),
        "--threads",
        "1",
        "--quiet",
    ]);
    common::joute_ok(&[
        "run",
        spec,
        "--out",
        two.to_str().unwrap(),
        "--threads",
        "2",
        "--quiet",
    ]);
    // Every shard is given the same --out: each plays into its own shard-I-of-N folder there.
    let mut shard_logs = Vec::new();
    let shards = dir.join("shards");
    for i in 0..3 {
        let out = &shards;
        common::joute_ok(&[
            "run",
            spec,
            "--out",
            out.to_str().unwrap(),
            "--shard",
            &format!("{i}/3"),
            "--threads",
            "2",
            "--quiet",
        ]);
        shard_logs.push(out.join(format!("shard-{i}-of-3/games.jsonl")));
    }
    let a = common::games_by_id(&[one.join("games.jsonl")]);
    assert_eq!(a.len(), 60);
    assert_eq!(a, common::games_by_id(&[two.join("games.jsonl")]));
    assert_eq!(a, common::games_by_id(&shard_logs));

    // The merge renders exactly what the unsharded run rendered.
    let merged = dir.join("merged");
    let mut args = vec!["report".to_string()];
    args.extend(shard_logs.iter().map(|p| p.display().to_string()));
    args.extend(["--out".into(), merged.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = common::joute_ok(&args);
    let single = common::joute_ok(&[
        "report",
        one.join("games.jsonl").to_str().unwrap(),
        "--out",
        dir.join("r1").to_str().unwrap(),
    ]);
    assert_eq!(report.lines().next(), single.lines().next());
    for file in ["ratings.csv", "crosstable.csv", "pairs.csv"] {
        assert_eq!(
            std::fs::read_to_string(merged.join(file)).unwrap(),
            std::fs::read_to_string(one.join(file)).unwrap(),
            "{file}"
        );
    }
    // The costs too, all but the clocks' figures: moves, nodes (mean and median), depths.
    let counts = |dir: &Path| -> Vec<String> {
        std::fs::read_to_string(dir.join("cost.csv"))
            .unwrap()
            .lines()
            .map(|l| l.split(',').take(11).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(counts(&merged), counts(&one));
    assert!(
        counts(&one)[0].ends_with("seldepth_max"),
        "{:?}",
        counts(&one)
    );
    // The terminal table too (all lines but the one naming the folder, and the cost table's
    // times).
    let strip = |s: &str| {
        common::without_cost_table(s)
            .lines()
            .filter(|l| !l.starts_with("files:") && !l.starts_with("report:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&report), strip(&single));
    // A log given twice is refused.
    let out = joute()
        .args([
            "report",
            shard_logs[0].to_str().unwrap(),
            shard_logs[0].to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("given twice"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_run_resumes_without_losing_or_repeating_games() {
    let dir = scratch("resume");
    let spec = common::slow_spec(&dir);
    let spec = spec.to_str().unwrap();
    let whole = dir.join("whole");
    common::joute_ok(&[
        "run",
        spec,
        "--out",
        whole.to_str().unwrap(),
        "--threads",
        "2",
        "--quiet",
    ]);
    let expected = common::games_by_id(&[whole.join("games.jsonl")]);
    assert_eq!(expected.len(), 360);

    // Kill (SIGKILL) the run once its log holds 30, 120, 200 and 300 games, resuming each time.
    let killed = dir.join("killed");
    let log = killed.join("games.jsonl");
    let mut kills = Vec::new();
    for target in [30usize, 120, 200, 300] {
        let mut args = vec![
            "run",
            spec,
            "--out",
            killed.to_str().unwrap(),
            "--threads",
            "2",
            "--quiet",
        ];
        if log.exists() {
            args.push("--resume");
        }
        kills.extend(common::kill_at_lines(&args, &log, target));
    }
    eprintln!("killed with {kills:?} games in the log");
    assert!(
        kills.len() >= 3,
        "the run finished before it could be killed: {kills:?}"
    );
    // What a SIGKILL in the middle of an atomic write leaves (no live process has this PID).
    std::fs::write(killed.join(".run.json.4000000000.a1B2c3.joute-tmp"), "{").unwrap();
    std::fs::write(killed.join(".elo.png.4000000000.zZ9y8x.joute-tmp"), "").unwrap();
    common::joute_ok(&[
        "run",
        spec,
        "--out",
        killed.to_str().unwrap(),
        "--threads",
        "2",
        "--quiet",
        "--resume",
    ]);
    let resumed = common::games_by_id(&[log]);
    assert_eq!(resumed.len(), expected.len());
    // Each killed session's games were counted from the log by the next start.
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(killed.join("run.json")).unwrap()).unwrap();
    let sessions = record["sessions"].as_array().unwrap();
    let counted: u64 = sessions
        .iter()
        .map(|s| s["games_played"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 360, "{sessions:?}");
    assert!(
        sessions
            .iter()
            .all(|s| s["games_played"].as_u64() > Some(0)),
        "{sessions:?}"
    );
    assert_eq!(resumed, expected);
    let stale: Vec<_> = std::fs::read_dir(&killed)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(stale.is_empty(), "temporary files left: {stale:?}");
    assert_eq!(
        std::fs::read_to_string(killed.join("ratings.csv")).unwrap(),
        std::fs::read_to_string(whole.join("ratings.csv")).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_report_beside_a_running_run_covers_what_is_logged_and_says_so() {
    let dir = scratch("live-report");
    let spec = common::slow_spec(&dir);
    let out = dir.join("run");
    let log = out.join("games.jsonl");
    let mut child = common::start_until_lines(
        &[
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        &log,
        20,
    );
    let report = joute()
        .args([
            "report",
            log.to_str().unwrap(),
            "--out",
            dir.join("report").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let running = child.try_wait().unwrap().is_none();
    child.kill().ok();
    child.wait().unwrap();
    assert!(report.status.success(), "{report:?}");
    let stderr = String::from_utf8_lossy(&report.stderr);
    if running {
        assert!(stderr.contains("still writing"), "{stderr}");
    }
    assert!(dir.join("report").join("index.html").is_file());
}

#[test]
fn a_torn_last_line_is_cut_and_the_game_replayed() {
    let dir = scratch("torn");
    let spec = small_spec(&dir, 3);
    let spec = spec.to_str().unwrap();
    let out = dir.join("run");
    common::joute_ok(&["run", spec, "--out", out.to_str().unwrap(), "--quiet"]);
    let log = out.join("games.jsonl");
    let full = common::games_by_id(std::slice::from_ref(&log));
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Keep 20 lines and half of the 21st.
    let mut torn = lines[..20].join("\n");
    torn.push('\n');
    torn.push_str(&lines[20][..lines[20].len() / 2]);
    std::fs::write(&log, torn).unwrap();
    common::joute_ok(&[
        "run",
        spec,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--resume",
    ]);
    assert_eq!(common::games_by_id(&[log]), full);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_table_and_head_to_head_look_like_ordo_and_fastchess() {
    let out = common::joute_ok(&[
        "match",
        "connect4",
        "alphabeta:4",
        "alphabeta:1",
        "--games",
        "40",
        "--seed",
        "3",
        "--threads",
        "2",
    ]);
    assert!(out.contains("Rank Name"), "{out}");
    assert!(
        out.contains("Results of alphabeta:4 vs alphabeta:1"),
        "{out}"
    );
    for piece in [
        "Elo: ",
        "nElo: ",
        "LOS: ",
        "DrawRatio: ",
        "PairsRatio: ",
        "Games: 40",
        "Ptnml(0-2): [",
    ] {
        assert!(out.contains(piece), "'{piece}' missing:\n{out}");
    }
    let json: Value = serde_json::from_str(&common::joute_ok(&[
        "match",
        "connect4",
        "alphabeta:4",
        "alphabeta:1",
        "--games",
        "40",
        "--seed",
        "3",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["head_to_head"]["games"], 40);
    let penta: u64 = json["head_to_head"]["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(penta, 20);
    assert_eq!(json["ratings"].as_array().unwrap().len(), 2);
}

#[test]
fn an_sprt_stops_as_soon_as_it_decides() {
    // Depth 4 against random: H1 [0, 50] is accepted long before the cap of 2000 games.
    let json: Value = serde_json::from_str(&common::joute_ok(&[
        "match",
        "connect4",
        "alphabeta:4",
        "random",
        "--sprt",
        "0,50",
        "--games",
        "2000",
        "--json",
        "--threads",
        "2",
    ]))
    .unwrap();
    assert_eq!(json["sprt"]["decision"], "h1", "{json}");
    let pairs = json["sprt"]["pairs"].as_u64().unwrap();
    assert!(pairs < 100, "{pairs}");
    assert_eq!(json["games"].as_u64().unwrap(), 2 * pairs);
    assert!(json["sprt"]["llr"].as_f64().unwrap() >= 2.94);
    // Equal engines: H0 [0, 200] at the 5% level is accepted.
    let json: Value = serde_json::from_str(&common::joute_ok(&[
        "match",
        "connect4",
        "alphabeta:2",
        "alphabeta:2",
        "--sprt",
        "0,200",
        "--games",
        "2000",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["sprt"]["decision"], "h0", "{json}");
}

#[test]
fn an_engine_that_wins_everything_gets_a_finite_marked_rating() {
    let out = common::joute_ok(&[
        "match",
        "connect4",
        "alphabeta:6",
        "random",
        "--games",
        "20",
        "--threads",
        "2",
    ]);
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("1 alphabeta:6"))
        .unwrap();
    assert!(row.contains('>'), "{out}");
    let elo = out.lines().find(|l| l.starts_with("Elo: ")).unwrap();
    assert!(elo.starts_with("Elo: > "), "{elo}");
    for text in [row, elo] {
        assert!(
            !text.contains("inf") && !text.to_lowercase().contains("nan"),
            "{text}"
        );
    }
    let json: Value = serde_json::from_str(&common::joute_ok(&[
        "match",
        "connect4",
        "alphabeta:6",
        "random",
        "--games",
        "20",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["head_to_head"]["bound"], ">");
    assert!(json["head_to_head"]["elo"].as_f64().unwrap() > 200.0);
    assert_eq!(json["ratings"][0]["bound"], "lower");
    assert_eq!(json["ratings"][0]["error"], Value::Null);
    assert!(json["ratings"][0]["elo"].as_f64().unwrap().is_finite());
}

/// A class's round robin where one engine loses every game: the table says in words what the
/// bound means and names an engine to anchor on; `--anchor` on `joute run` rates the field
/// against it (a shift of the same fit) without changing the run, which resumes with another.
#[test]
fn a_bound_is_said_in_words_and_the_run_takes_an_anchor() {
    let dir = scratch("class-anchor");
    let spec = dir.join("class.toml");
    std::fs::write(
        &spec,
        "name = \"class\"\ngame = \"connect4\"\nseed = 1\nopenings = { plies = 2, count = 6 }\n\
         [[engine]]\nname = \"alice\"\nalgorithm = \"pvs\"\ndepth = 6\n\
         [[engine]]\nname = \"bob\"\nalgorithm = \"alphabeta\"\ndepth = 3\n\
         [[engine]]\nname = \"carol\"\nalgorithm = \"alphabeta\"\ndepth = 2\n\
         [[engine]]\nname = \"dave\"\nalgorithm = \"random\"\n",
    )
    .unwrap();
    let (spec, out) = (spec.to_str().unwrap(), dir.join("out"));
    let out = out.to_str().unwrap();
    let table = common::joute_ok(&["run", spec, "--out", out]);
    let ratings = |out: &str| -> BTreeMap<String, Value> {
        let text = std::fs::read_to_string(Path::new(out).join("ratings.csv")).unwrap();
        text.lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[1].to_string(), Value::from(f[2].parse::<f64>().ok()))
            })
            .collect()
    };
    let dave = table
        .lines()
        .find(|l| l.trim_start().starts_with("dave <"))
        .unwrap();
    assert!(
        dave.contains(
            "lost every game against alice, bob and carol: weaker than the engines it met"
        ),
        "{table}"
    );
    // The suggestion names an engine rated with an interval, most played (all played 36).
    let hint = table.lines().find(|l| l.contains("give --anchor")).unwrap();
    let named = hint
        .split("--anchor ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert!(["alice", "bob", "carol"].contains(&named), "{hint}");
    let mean = ratings(out);
    // The same run, anchored on bob: nothing played, every estimate shifted by bob's.
    let anchored = common::joute_ok(&["run", spec, "--out", out, "--anchor", "bob"]);
    assert!(!anchored.contains("give --anchor"), "{anchored}");
    assert!(anchored.contains("bob fixed at 0.0"), "{anchored}");
    let by_bob = ratings(out);
    let f = |m: &BTreeMap<String, Value>, k: &str| m[k].as_f64().unwrap();
    assert_eq!(f(&by_bob, "bob"), 0.0);
    for name in ["alice", "carol"] {
        let shifted = f(&mean, name) - f(&mean, "bob");
        assert!(
            (f(&by_bob, name) - shifted).abs() < 0.02,
            "{name}: {by_bob:?} {mean:?}"
        );
    }
    let back = common::joute_ok(&["run", spec, "--out", out, "--anchor", "mean"]);
    assert!(back.contains("give --anchor"), "{back}");
    assert_eq!(ratings(out), mean);
    common::refused(
        &["run", spec, "--out", out, "--anchor", "zed"],
        &["--anchor zed", "'zed' is not among the rated engines"],
    );
}

#[test]
fn running_a_finished_spec_again_renders_it_again_and_another_spec_is_refused() {
    let dir = scratch("exists");
    let spec = small_spec(&dir, 1);
    let out = dir.join("run");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        joute().args(&args).output().unwrap()
    };
    assert!(run(&["--quiet"]).status.success());
    let ratings = std::fs::read_to_string(out.join("ratings.csv")).unwrap();
    let record = std::fs::read_to_string(out.join("run.json")).unwrap();
    std::fs::remove_file(out.join("index.html")).unwrap();
    // The README's first command, run a second time: harmless, and the report is back.
    let again = run(&[]);
    assert!(again.status.success(), "{again:?}");
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("nothing to play"), "{stderr}");
    assert!(out.join("index.html").is_file());
    assert_eq!(
        std::fs::read_to_string(out.join("ratings.csv")).unwrap(),
        ratings
    );
    // Nothing was played, so no session was added to the record.
    assert_eq!(
        std::fs::read_to_string(out.join("run.json")).unwrap(),
        record
    );
    // --resume on a finished run is as harmless.
    assert!(run(&["--quiet", "--resume"]).status.success());

    // Another spec (an engine changed) is refused, with or without --resume, and says why.
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("depth = 3", "depth = 2");
    std::fs::write(&spec, text).unwrap();
    for extra in [&[][..], &["--resume"][..]] {
        let refused = run(extra);
        assert_eq!(refused.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("another spec")
                && stderr.contains("engine 'ab-3' changed")
                && stderr.contains("--out"),
            "{stderr}"
        );
    }
}

/// The games of a log by id, with the two fields that differ between an extended run and a
/// fresh one removed: the timing and the spec hash each game was played under.
fn games_without_hash(log: &Path) -> BTreeMap<u64, Value> {
    let mut all = common::games_by_id(&[log.to_path_buf()]);
    for v in all.values_mut() {
        v.as_object_mut().unwrap().remove("spec");
    }
    all
}

#[test]
fn a_finished_run_extended_with_more_openings_plays_only_the_new_games() {
    let dir = scratch("extend");
    let out = dir.join("run");
    let run = |count: u32, extra: &[&str]| {
        let spec = small_spec(&dir, count);
        let mut args = vec![
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        joute().args(&args).output().unwrap()
    };
    assert!(run(2, &[]).status.success());
    let before = games_without_hash(&out.join("games.jsonl"));
    assert_eq!(before.len(), 24);

    // Without --resume the user is told how to keep the games.
    let refused = run(4, &[]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("extends") && stderr.contains("--resume"),
        "{stderr}"
    );

    let extended = run(4, &["--resume", "--json"]);
    assert!(extended.status.success(), "{extended:?}");
    let json: Value = serde_json::from_slice(&extended.stdout).unwrap();
    assert_eq!(json["played"], 24, "only the new games are played");
    assert_eq!(json["games"], 48);
    let after = games_without_hash(&out.join("games.jsonl"));
    for (id, game) in &before {
        assert_eq!(&after[id], game, "game {id} changed");
    }
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(record["extends"].as_array().unwrap().len(), 1);

    // The same games, and the same ratings, as a run of the larger spec from scratch.
    let fresh = dir.join("fresh");
    let spec = small_spec(&dir, 4);
    common::joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        fresh.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(after, games_without_hash(&fresh.join("games.jsonl")));
    assert_eq!(
        std::fs::read_to_string(out.join("ratings.csv")).unwrap(),
        std::fs::read_to_string(fresh.join("ratings.csv")).unwrap()
    );
    // joute report reads the extended log as one run.
    let report = common::joute_json("report", &out.join("games.jsonl"), &dir.join("again"));
    assert_eq!(report["games"], 48);

    // More openings in the middle of a two-round schedule move played games: refused.
    let spec = small_spec(&dir, 4);
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("count = 4 }", "count = 4 }\nrounds = 2");
    std::fs::write(&spec, text).unwrap();
    let two_rounds = dir.join("rounds");
    common::joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        two_rounds.to_str().unwrap(),
        "--quiet",
    ]);
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("count = 4 }", "count = 6 }");
    std::fs::write(&spec, text).unwrap();
    let moved = joute()
        .args([
            "run",
            spec.to_str().unwrap(),
            "--out",
            two_rounds.to_str().unwrap(),
            "--resume",
        ])
        .output()
        .unwrap();
    assert_eq!(moved.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&moved.stderr);
    assert!(stderr.contains("cannot extend"), "{stderr}");
}

/// A Connect 4 spec of deterministic engines (alpha-beta at the depths named), `count`
/// openings, in `format` (a TOML line, or empty for a round robin), written as `dir/NAME.toml`.
fn grow_spec(dir: &Path, name: &str, format: &str, depths: &[u32], count: u32) -> PathBuf {
    let mut text = format!(
        "name = \"grow\"\ngame = \"connect4\"\nseed = 3\n{format}\nopenings = {{ plies = 4, count = {count} }}\n"
    );
    for d in depths {
        text.push_str(&format!(
            "[[engine]]\nname = \"ab-{d}\"\nalgorithm = \"alphabeta\"\ndepth = {d}\n"
        ));
    }
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_round_robin_and_a_gauntlet_grow_by_new_engines_playing_only_their_games() {
    let dir = scratch("grow");
    // `joute run SPEC --out OUT EXTRA --json`, its summary.
    let played = |spec: &Path, out: &Path, extra: &[&str]| -> Value {
        let extra = [extra, &["--json"]].concat();
        serde_json::from_str(&common::joute_to("run", spec, out, &extra)).unwrap()
    };
    let file = |dir: &Path, name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let out = dir.join("run");
    // Three engines on three openings: 3 pairings, 18 games.
    let three = grow_spec(&dir, "three", "", &[1, 2, 3], 3);
    assert_eq!(played(&three, &out, &[])["played"], 18);
    let before = games_without_hash(&out.join("games.jsonl"));

    // A late engine, listed among the others: without --resume the user is told what to do.
    let four = grow_spec(&dir, "four", "", &[1, 4, 2, 3], 3);
    common::refused(
        &[
            "run",
            four.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &["add --resume", "'ab-4'", "--fresh"],
    );
    let grown = played(&four, &out, &["--resume"]);
    assert_eq!(grown["played"], 18, "only ab-4's three pairings: {grown}");
    assert_eq!(grown["games"], 36);
    let after = games_without_hash(&out.join("games.jsonl"));
    for (id, game) in &before {
        assert_eq!(&after[id], game, "game {id} changed");
    }
    for (id, game) in after.iter().filter(|(id, _)| !before.contains_key(id)) {
        let names = [&game["first"], &game["second"]];
        assert!(names.contains(&&Value::from("ab-4")), "game {id}: {game}");
    }
    let record: Value = serde_json::from_str(&file(&out, "run.json")).unwrap();
    let added = &record["additions"][0];
    assert_eq!(added["engines"], serde_json::json!(["ab-4"]));
    assert_eq!(added["games"], 18);
    assert!(added["at"].as_str().unwrap().ends_with('Z'), "{added}");
    assert_eq!(
        record["spec"]["grown"][0]["engines"],
        serde_json::json!(["ab-1", "ab-2", "ab-3"])
    );
    // Deterministic engines: the same games per pairing and opening as the four-engine run
    // played from scratch, hence the same tables.
    let fresh = dir.join("fresh");
    played(&four, &fresh, &[]);
    for name in ["ratings.csv", "pairs.csv", "crosstable.csv"] {
        assert_eq!(file(&out, name), file(&fresh, name), "{name}");
    }
    // Then more openings for everyone; then the same spec again plays nothing.
    let more = grow_spec(&dir, "more", "", &[1, 4, 2, 3], 4);
    let extended = played(&more, &out, &["--resume"]);
    assert_eq!(extended["played"], 12);
    let fresh_more = dir.join("fresh-more");
    played(&more, &fresh_more, &[]);
    assert_eq!(file(&out, "ratings.csv"), file(&fresh_more, "ratings.csv"));
    assert_eq!(played(&more, &out, &[])["played"], 0);
    // joute report reads the grown log as one run.
    let report = common::joute_ok(&[
        "report",
        out.join("games.jsonl").to_str().unwrap(),
        "--out",
        dir.join("report").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(serde_json::from_str::<Value>(&report).unwrap()["games"], 48);

    // What cannot grow is refused, naming the change and --fresh.
    let refuse = |spec: &Path, expected: &[&str]| {
        let mut args = vec![
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.push("--resume");
        common::refused(&args, expected);
    };
    let lost = grow_spec(&dir, "lost", "", &[1, 4, 3], 4);
    refuse(&lost, &["engine 'ab-2' is not in the new spec", "--fresh"]);
    let moved = grow_spec(&dir, "moved", "", &[2, 1, 4, 3], 4);
    refuse(&moved, &["order changed", "--fresh"]);

    // A gauntlet gains an opponent: only the challenger's games against it are played.
    let gauntlet = dir.join("gauntlet");
    let challenger = "format = \"gauntlet\"\nchallengers = [\"ab-3\"]";
    let g3 = grow_spec(&dir, "g3", challenger, &[1, 2, 3], 3);
    assert_eq!(played(&g3, &gauntlet, &[])["played"], 12);
    let g4 = grow_spec(&dir, "g4", challenger, &[1, 2, 3, 4], 3);
    assert_eq!(played(&g4, &gauntlet, &["--resume"])["played"], 6);
    let fresh_gauntlet = dir.join("fresh-gauntlet");
    played(&g4, &fresh_gauntlet, &[]);
    assert_eq!(
        file(&gauntlet, "ratings.csv"),
        file(&fresh_gauntlet, "ratings.csv")
    );
    // An earlier opponent made a challenger changes who played whom.
    let roles = grow_spec(
        &dir,
        "roles",
        "format = \"gauntlet\"\nchallengers = [\"ab-3\", \"ab-1\"]",
        &[1, 2, 3, 4],
        3,
    );
    let args = [
        "run",
        roles.to_str().unwrap(),
        "--out",
        gauntlet.to_str().unwrap(),
        "--resume",
    ];
    common::refused(&args, &["the challengers changed", "--fresh"]);

    // A shard cannot grow on its own: the other shards' schedule would move.
    let sharded = dir.join("sharded");
    played(&three, &sharded, &["--shard", "0/2"]);
    let args = [
        "run",
        four.to_str().unwrap(),
        "--out",
        sharded.to_str().unwrap(),
        "--shard",
        "0/2",
        "--resume",
    ];
    common::refused(&args, &["a sharded run cannot gain engines", "'ab-4'"]);
}

#[test]
fn fresh_starts_a_folder_afresh_removing_only_the_files_joute_wrote() {
    let dir = scratch("fresh");
    let out = dir.join("run");
    let one = grow_spec(&dir, "one", "", &[1, 2], 2);
    let o = out.to_str().unwrap();
    common::joute_ok(&["run", one.to_str().unwrap(), "--out", o, "--quiet"]);
    let listed: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let listed: Vec<&str> = listed["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    for name in [
        "games.jsonl",
        "index.html",
        "ratings.csv",
        "run.json",
        "elo.png",
    ] {
        assert!(listed.contains(&name), "{name} not in {listed:?}");
    }
    // The user's own files in the folder, and a file of the earlier run's the next run does
    // not write.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::create_dir(out.join("mine")).unwrap();
    std::fs::write(out.join("mine/data.csv"), "1,2").unwrap();
    // Another spec is refused, and the refusal names --fresh.
    let other = grow_spec(&dir, "other", "", &[2, 3], 2);
    let s = other.to_str().unwrap();
    common::refused(&["run", s, "--out", o], &["another spec", "--fresh"]);
    common::refused(&["run", s, "--out", o, "--fresh", "--resume"], &["--fresh"]);
    let fresh = joute()
        .args(["run", s, "--out", o, "--fresh"])
        .output()
        .unwrap();
    assert!(
        fresh.status.success(),
        "{}",
        String::from_utf8_lossy(&fresh.stderr)
    );
    assert_eq!(common::lines_in(&out.join("games.jsonl")), 4);
    let stderr = String::from_utf8_lossy(&fresh.stderr);
    assert!(stderr.contains("started afresh"), "{stderr}");
    assert!(
        stderr.contains("kept 2 files") && stderr.contains("notes.txt"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("mine/data.csv")).unwrap(),
        "1,2"
    );
    // Only the new spec's games, and a folder just like a run of it into an empty folder
    // (besides the user's files).
    for game in common::jsonl(&out.join("games.jsonl")) {
        assert_ne!(game["first"], "ab-1", "{game}");
        assert_ne!(game["second"], "ab-1", "{game}");
    }
    let clean = dir.join("clean");
    common::joute_ok(&["run", s, "--out", clean.to_str().unwrap(), "--quiet"]);
    let names = |d: &Path| -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "notes.txt" && n != "mine")
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&out), names(&clean));
    // --fresh on a folder that holds no run is a plain run; `match --fresh` needs --out.
    let empty = dir.join("empty");
    common::joute_ok(&[
        "run",
        s,
        "--out",
        empty.to_str().unwrap(),
        "--fresh",
        "--quiet",
    ]);
    let refused = joute()
        .args([
            "match",
            "connect4",
            "alphabeta:1",
            "alphabeta:2",
            "--games",
            "2",
            "--fresh",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn moves_cut_by_a_time_limit_are_counted_per_engine() {
    let dir = scratch("timeouts");
    let out = dir.join("m");
    let text = common::joute_ok(&[
        "match",
        "connect4",
        "pvs:1ms",
        "random",
        "--games",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    // Count the cut moves of each engine from the log itself.
    let mut cut = BTreeMap::<String, u64>::new();
    for line in std::fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(line).unwrap();
        for (side, key) in ["first", "second"].iter().enumerate() {
            *cut.entry(v[key].as_str().unwrap().to_string()).or_default() +=
                v["timeouts"][side].as_u64().unwrap();
        }
    }
    assert!(cut["pvs:1ms"] > 0, "{cut:?}");
    assert_eq!(cut["random"], 0);
    // The cost table's `cut` column: the engine's cut moves of its moves, and none for the
    // engine without a time limit.
    let header = text
        .lines()
        .find(|l| l.starts_with("Rank Cost of"))
        .unwrap_or_else(|| panic!("no cost table in:\n{text}"));
    assert!(header.trim_end().ends_with("cut"), "{header}");
    let row = |name: &str| {
        text.lines()
            .skip_while(|l| !l.starts_with("Rank Cost of"))
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no cost row of {name} in:\n{text}"))
            .to_string()
    };
    assert!(
        row("pvs:1ms").contains(&format!(" {} of ", cut["pvs:1ms"])),
        "{text} vs {cut:?}"
    );
    assert!(row("random").contains(" 0 of "), "{text}");
    assert!(
        text.contains("cut: moves cut short by the engine's time limit"),
        "{text}"
    );
    // The report says it too: the count in the engine's row of the cost table.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("id=\"cost\""), "no cost table");
    assert!(
        html.contains(&format!(">{} of ", cut["pvs:1ms"])),
        "no per-engine count"
    );
}

/// The repository: specs written into scratch folders name its weights files absolutely.
const REPO: &str = env!("CARGO_MANIFEST_DIR");

const HEAD: &str =
    "name = \"t\"\ngame = \"connect4\"\nseed = 1\nopenings = { plies = 2, count = 2 }\n";
const TWO: &str = "[[engine]]\nname = \"a\"\nalgorithm = \"alphabeta\"\ndepth = 1\n\n[[engine]]\nname = \"b\"\nalgorithm = \"random\"\n";

#[test]
fn bad_specs_get_a_clear_error_with_file_line_and_column() {
    let dir = scratch("bad");
    // A tuning spec given to joute run says which command it is for.
    common::refused_spec(
        &dir,
        "run",
        &std::fs::read_to_string(Path::new(REPO).join("tournaments/tune-connect4.toml")).unwrap(),
        &[],
        &["this is a tuning spec", "joute tune"],
    );
    // Absurd numbers are refused with their key's range.
    let ranged = |from: &str, to: &str, expected: &[&str]| {
        common::refused_spec(
            &dir,
            "run",
            &format!("{HEAD}{TWO}").replace(from, to),
            &[],
            expected,
        );
    };
    ranged(
        "seed = 1\n",
        "seed = 1\nanchor = \"a\"\nanchor_elo = 1e308\n",
        &["key 'anchor_elo'", "-10000..=10000"],
    );
    ranged(
        "depth = 1",
        "time = \"1e-300s\"",
        &["engine[1].time", "from 1ms to one day"],
    );
    ranged(
        "depth = 1",
        "nodes = 9223372036854775807",
        &["engine[1].nodes", "1..=10000000000"],
    );
    ranged(
        "algorithm = \"alphabeta\"\ndepth = 1",
        "algorithm = \"mcts\"\nplayouts = 9223372036854775807",
        &["engine[1].playouts", "1..=100000000"],
    );
    ranged(
        "algorithm = \"alphabeta\"\ndepth = 1",
        "algorithm = \"mcts\"\nplayouts = 10\ntree_mib = 0",
        &["engine[1].tree_mib", "1..=4096"],
    );
    ranged(
        "depth = 1",
        "depth = 1\ntree_mib = 64",
        &["engine[1].tree_mib", "belongs to mcts"],
    );
    ranged(
        "depth = 1",
        "depth = 1\nnear = 2",
        &["engine[1].near", "belongs to pvs and mtdf, not alphabeta"],
    );
    ranged(
        "algorithm = \"alphabeta\"\ndepth = 1",
        "algorithm = \"pvs\"\ndepth = 1\nnear = 16",
        &["engine[1].near", "0..=15"],
    );
    ranged(
        "algorithm = \"alphabeta\"\ndepth = 1",
        "algorithm = \"mcts\"\nplayouts = 10\nexploration = 1e9",
        &["engine[1].exploration", "0..=100"],
    );
    // The spec is written as `bad.toml` and run: refused, naming what is wrong.
    let bad =
        |text: &str, expected: &[&str]| common::refused_spec(&dir, "run", text, &[], expected);
    bad("name = \"t\"\ngame = \n", &["bad.toml:2:"]);
    bad(
        &format!("{HEAD}{TWO}").replace("seed = 1\n", ""),
        &["bad.toml:1:1:", "missing key 'seed'"],
    );
    bad(
        &format!("{HEAD}seeed = 3\n{TWO}"),
        &["bad.toml:5:1:", "key 'seeed'", "unknown key", "seed"],
    );
    bad(
        &format!("{HEAD}{TWO}depht = 3\n"),
        &[
            "bad.toml:13:1:",
            "key 'engine[2].depht'",
            "unknown key; did you mean 'depth'?",
        ],
    );
    bad(
        &format!("{HEAD}{TWO}protocl = \"gtp\"\n"),
        &[
            "key 'engine[2].protocl'",
            "unknown key; did you mean 'protocol'?",
        ],
    );
    // TOML's trap: a spec-wide key below the last [[engine]] table is that table's.
    bad(
        &format!("{HEAD}{TWO}anchor = \"a\"\n"),
        &[
            "bad.toml:13:1:",
            "key 'engine[2].anchor'",
            "'anchor' belongs at the top of the spec, above the first [[engine]] table",
        ],
    );
    bad(
        &format!("{HEAD}{TWO}sprt = {{ elo0 = 0, elo1 = 10 }}\n"),
        &["key 'engine[2].sprt'", "belongs at the top of the spec"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("connect4", "chess"),
        &["bad.toml:2:8:", "key 'game'", "chess", "othello"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("alphabeta", "alphabeat"),
        &["bad.toml:7:13:", "engine[1].algorithm", "alphabeat"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("name = \"b\"", "name = \"a\""),
        &["bad.toml:11:8:", "two engines are called 'a'"],
    );
    bad(
        &format!("{HEAD}[[engine]]\nname = \"a\"\nalgorithm = \"random\"\n"),
        &["bad.toml:5:", "at least two"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("count = 2 }", "count = 2 }\ngames = 7"),
        &["bad.toml:5:9:", "key 'games'", "even"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("count = 2 }", "count = 2 }\ngames = 0"),
        &["key 'games'", "positive even"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("depth = 1", "depth = 1\nweights = \"weights/nope.toml\""),
        &[
            "bad.toml:9:11:",
            "engine[1].weights",
            "nope.toml",
            "cannot read",
        ],
    );
    bad(
        &format!("{HEAD}{TWO}").replace(
            "depth = 1",
            &format!("depth = 1\nweights = \"{REPO}/weights/othello.toml\""),
        ),
        &["engine[1].weights", "othello", "connect4"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace(
            "depth = 1",
            "depth = 1\nweights = { centre = 1, mobilty = 2 }",
        ),
        &["engine[1].weights.mobilty", "not a feature"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("depth = 1", "depth = 99"),
        &["bad.toml:8:9:", "engine[1].depth", "1..=64"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("depth = 1\n", ""),
        &["engine[1]", "needs a budget"],
    );
    bad(
        &format!("{HEAD}format = \"gauntlet\"\n{TWO}"),
        &["key 'challengers'"],
    );
    bad(
        &format!("{HEAD}format = \"gauntlet\"\nchallengers = [\"z\"]\n{TWO}"),
        &["'z' is not an engine"],
    );
    bad(
        &format!(
            "{HEAD}{TWO}[[engine]]\nname = \"c\"\nalgorithm = \"random\"\n[sprt]\nelo0 = 0\nelo1 = 5\n"
        ),
        &["key 'sprt'", "exactly two"],
    );
    bad(
        &format!("{HEAD}{TWO}[sprt]\nelo0 = 5\nelo1 = 0\n"),
        &["sprt.elo1", "greater"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("plies = 2, count = 2", "plies = 1, count = 8"),
        &["key 'openings'", "found only 7"],
    );
    bad(
        &format!("{HEAD}{TWO}").replace("plies = 2, count = 2", "file = \"nope.txt\""),
        &["openings.file", "nope.txt"],
    );
    bad(
        &format!(
            "name = \"t\"\ngame = \"othello\"\nseed = 1\nopenings = {{ plies = 2, count = 2 }}\n[[engine]]\nname = \"a\"\nalgorithm = \"alphabeta\"\ndepth = 1\nweights = \"{REPO}/weights/connect4.toml\"\n[[engine]]\nname = \"b\"\nalgorithm = \"random\"\n"
        ),
        &["engine[1].weights", "connect4", "othello"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_command_lines_get_a_clear_error() {
    let dir = scratch("badcli");
    let spec = small_spec(&dir, 1);
    let spec = spec.to_str().unwrap();
    let refuse = |args: &[&str], piece: &str| {
        let out = joute().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(piece),
            "{args:?}: '{piece}' not in {stderr}"
        );
        assert!(!stderr.contains("panicked"));
    };
    let out = dir.join("o");
    refuse(
        &[
            "run",
            spec,
            "--shard",
            "3/3",
            "--out",
            out.to_str().unwrap(),
        ],
        "shard '3/3'",
    );
    refuse(
        &[
            "run",
            spec,
            "--shard",
            "0/0",
            "--out",
            out.to_str().unwrap(),
        ],
        "shard '0/0'",
    );
    refuse(&["run", "nope.toml"], "nope.toml");
    refuse(
        &["match", "connect4", "alphabeta:2", "random", "--games", "7"],
        "even",
    );
    refuse(
        &["match", "connect4", "alphabeta:2", "random", "--games", "0"],
        "even",
    );
    refuse(&["match", "connect4", "alphabeat:2", "random"], "alphabeat");
    refuse(
        &[
            "match",
            "connect4",
            "alphabeta:2",
            "random",
            "--sprt",
            "5,0",
        ],
        "--sprt",
    );
    refuse(
        &["report", dir.join("missing.jsonl").to_str().unwrap()],
        "no such games log",
    );
    // An output folder that cannot be written: a path under a regular file.
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    refuse(
        &["run", spec, "--out", file.join("sub").to_str().unwrap()],
        "cannot create the output folder",
    );
    // --resume against the log of another spec.
    common::joute_ok(&["run", spec, "--out", out.to_str().unwrap(), "--quiet"]);
    let other = dir.join("other.toml");
    std::fs::write(
        &other,
        std::fs::read_to_string(spec)
            .unwrap()
            .replace("seed = 11", "seed = 12"),
    )
    .unwrap();
    refuse(
        &[
            "run",
            other.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--resume",
        ],
        "another spec",
    );
    // Logs of different specs do not merge.
    let out2 = dir.join("o2");
    common::joute_ok(&[
        "run",
        other.to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
        "--quiet",
    ]);
    refuse(
        &[
            "report",
            out.join("games.jsonl").to_str().unwrap(),
            out2.join("games.jsonl").to_str().unwrap(),
        ],
        "only logs of one run merge",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn paths_in_a_spec_are_relative_to_the_spec_file() {
    // The gauntlet names ../weights/othello-discs.toml: it runs from its own folder, and
    // from the repository's root. One shard of ten is enough to see the same games (the whole
    // gauntlet, twice, was 20 s of the suite).
    let dir = scratch("relative");
    for (cwd, spec, out) in [
        ("tournaments", "gauntlet.toml", "from-tournaments"),
        (".", "tournaments/gauntlet.toml", "from-root"),
    ] {
        let run = joute()
            .current_dir(Path::new(REPO).join(cwd))
            .args([
                "run",
                spec,
                "--out",
                dir.join(out).to_str().unwrap(),
                "--shard",
                "0/10",
                "--quiet",
            ])
            .output()
            .unwrap();
        assert!(run.status.success(), "{cwd}: {run:?}");
    }
    // Both ran the same spec: the same hash, the same games.
    let games =
        |out: &str| common::games_by_id(&[dir.join(out).join("shard-0-of-10").join("games.jsonl")]);
    assert!(!games("from-root").is_empty());
    assert_eq!(games("from-tournaments"), games("from-root"));
    // An openings file beside a spec in another folder.
    let elsewhere = dir.join("specs");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("openings.txt"), "4453\n3344\n").unwrap();
    std::fs::write(
        elsewhere.join("spec.toml"),
        format!("{HEAD}{TWO}").replace("plies = 2, count = 2", "file = \"openings.txt\""),
    )
    .unwrap();
    common::joute_ok(&[
        "run",
        elsewhere.join("spec.toml").to_str().unwrap(),
        "--out",
        dir.join("file-openings").to_str().unwrap(),
        "--quiet",
    ]);
}

#[test]
fn the_example_specs_are_valid() {
    // Each example parses and validates; the quickstart also runs (it is the README's main job).
    for entry in std::fs::read_dir("tournaments").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml")
            && !path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tune-")
        {
            let spec = joute::arena::TournamentSpec::load(&path);
            // Specs that play the peers (Edax, Pons' solver) or the anchors need them built
            // into target/peers and target/anchors (tests/it/peers.rs and anchors.rs play
            // them, and must not skip in CI); their only acceptable failure before that is the
            // missing program or folder.
            if let Err(e) = &spec
                && (e.key.ends_with(".command") || e.key.ends_with(".working_dir"))
                && [
                    ("../target/peers/", "JOUTE_PEERS"),
                    ("../target/anchors/", "JOUTE_ANCHORS"),
                ]
                .iter()
                .any(|(folder, built)| {
                    e.message.contains(folder) && std::env::var_os(built).is_none()
                })
            {
                eprintln!(
                    "{}: skipped, its programs are not built: {e}",
                    path.display()
                );
                continue;
            }
            assert!(spec.is_ok(), "{}: {}", path.display(), spec.unwrap_err());
        }
    }
    let embedded = include_str!("../../tournaments/quickstart.toml");
    assert!(joute::arena::TournamentSpec::parse(embedded, "quickstart").is_ok());
}

#[test]
fn the_cluster_scripts_run_shards_and_merge_them() {
    // deploy/run-shard.sh as a Slurm array task (SLURM_ARRAY_TASK_ID) and as a Kubernetes
    // Indexed Job pod (JOB_COMPLETION_INDEX), then deploy/merge.sh, against an unsharded run.
    let dir = scratch("cluster");
    let spec = small_spec(&dir, 4);
    let bin = assert_cmd::cargo::cargo_bin("joute");
    let out = dir.join("cluster");
    for (i, var) in [
        (0, "SLURM_ARRAY_TASK_ID"),
        (1, "JOB_COMPLETION_INDEX"),
        (2, "SHARD_INDEX"),
    ] {
        let status = std::process::Command::new("bash")
            .arg("deploy/run-shard.sh")
            .env("SPEC", &spec)
            .env("SHARD_COUNT", "3")
            .env("OUT", &out)
            .env("JOUTE", &bin)
            .env("THREADS", "1")
            .env(var, i.to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }
    let merged = std::process::Command::new("bash")
        .arg("deploy/merge.sh")
        .env("SPEC", &spec)
        .env("SHARD_COUNT", "3")
        .env("OUT", &out)
        .env("JOUTE", &bin)
        .output()
        .unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let whole = dir.join("whole");
    common::joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(
        std::fs::read_to_string(out.join("ratings.csv")).unwrap(),
        std::fs::read_to_string(whole.join("ratings.csv")).unwrap()
    );
    // A missing shard stops the merge.
    std::fs::remove_dir_all(out.join("shard-1-of-3")).unwrap();
    let merged = std::process::Command::new("bash")
        .arg("deploy/merge.sh")
        .env("SPEC", &spec)
        .env("SHARD_COUNT", "3")
        .env("OUT", &out)
        .env("JOUTE", &bin)
        .output()
        .unwrap();
    assert!(!merged.status.success());
    assert!(String::from_utf8_lossy(&merged.stderr).contains("shard 1 has not run"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ratings_of_a_log_equal_an_independent_maximum_likelihood_fit_with_and_without_the_first_move() {
    let dir = scratch("mle");
    let spec = dir.join("mle.toml");
    let text =
        specs::spec("mle", "connect4", 3, 4, 15).engines(&["ab-1", "ab-2", "ab-4", "mcts-100"]);
    std::fs::write(&spec, text.text()).unwrap();
    let out = dir.join("run");
    let json: Value = serde_json::from_str(&common::joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    let names = ["ab-1", "ab-2", "ab-4", "mcts-100"];
    let games: Vec<(usize, usize, f64)> = common::games_by_id(&[out.join("games.jsonl")])
        .values()
        .map(|g| {
            let index = |key: &str| {
                names
                    .iter()
                    .position(|n| *n == g[key].as_str().unwrap())
                    .unwrap()
            };
            (
                index("first"),
                index("second"),
                g["score"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(games.len(), 180);
    // Gradient ascent on the Bradley–Terry log-likelihood (draws half a win), the first mover
    // scoring L(r_first + w - r_second), mean fixed at 0, until the gradient vanishes.
    let direct = |with_w: bool| {
        let (mut r, mut w) = ([0.0f64; 4], 0.0f64);
        for _ in 0..400_000 {
            let (mut grad, mut grad_w) = ([0.0f64; 4], 0.0);
            for &(a, b, s) in &games {
                let p = 1.0 / (1.0 + 10f64.powf((r[b] - r[a] - w) / 400.0));
                grad[a] += s - p;
                grad[b] -= s - p;
                grad_w += s - p;
            }
            for i in 0..4 {
                r[i] += 2.0 * grad[i];
            }
            if with_w {
                w += 1.0 * grad_w;
            }
            let mean = r.iter().sum::<f64>() / 4.0;
            r.iter_mut().for_each(|x| *x -= mean);
            if grad.iter().all(|g| g.abs() < 1e-9) && (!with_w || grad_w.abs() < 1e-9) {
                break;
            }
        }
        (r, w)
    };
    let check = |json: &Value, r: &[f64; 4], shift: f64| {
        for row in json["ratings"].as_array().unwrap() {
            let i = names
                .iter()
                .position(|n| *n == row["name"].as_str().unwrap())
                .unwrap();
            let elo = row["elo"].as_f64().unwrap();
            assert!(
                (elo - r[i] - shift).abs() < 0.01,
                "{}: joute {elo}, direct {}",
                names[i],
                r[i] + shift
            );
            assert_eq!(row["bound"], Value::Null);
        }
    };
    let (r, w) = direct(true);
    check(&json, &r, 0.0);
    let fitted = json["scale"]["first_move_elo"].as_f64().unwrap();
    assert!(
        (fitted - w).abs() < 0.01,
        "first mover: joute {fitted}, direct {w}"
    );
    assert_eq!(json["scale"]["first_move"], "fit");
    assert_eq!(json["scale"]["anchor"], Value::Null);

    // The report re-anchors a finished run and can leave the advantage out.
    let log = out.join("games.jsonl");
    let report = |extra: &[&str]| -> Value {
        let mut args = vec!["report", log.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&common::joute_ok(&args)).unwrap()
    };
    let anchored = report(&["--anchor", "ab-1=1000"]);
    check(&anchored, &r, 1000.0 - r[0]);
    assert_eq!(anchored["scale"]["anchor"], "ab-1");
    assert_eq!(anchored["scale"]["anchor_elo"], 1000.0);
    let (r0, _) = direct(false);
    let ignored = report(&["--first-move", "ignore"]);
    check(&ignored, &r0, 0.0);
    assert_eq!(ignored["scale"]["first_move"], "ignore");
    assert_eq!(ignored["scale"]["first_move_elo"], Value::Null);
    // The terminal states the model and the origin.
    let text = common::joute_ok(&["report", log.to_str().unwrap(), "--anchor", "ab-4"]);
    assert!(text.contains("first mover: "), "{text}");
    assert!(text.contains("ab-4 fixed at 0.0"), "{text}");
    // So does scale.csv.
    let scale = std::fs::read_to_string(out.join("scale.csv")).unwrap();
    assert!(scale.contains("anchor,ab-4\n"), "{scale}");
    assert!(scale.contains("first_move,fit\n"), "{scale}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn morpion_runs_report_and_resume() {
    // Morpion has no imbalance limit by default: run.json must still read back.
    let dir = scratch("morpion");
    let spec = dir.join("m.toml");
    std::fs::write(
        &spec,
        "name = \"m\"\ngame = \"morpion\"\nseed = 1\nopenings = { plies = 2, count = 6 }\nrounds = 2\n\
         [[engine]]\nname = \"a\"\nalgorithm = \"alphabeta\"\ndepth = 3\n\
         [[engine]]\nname = \"b\"\nalgorithm = \"alphabeta\"\ndepth = 1\n",
    )
    .unwrap();
    let out = dir.join("run");
    common::joute_to("run", &spec, &out, &["--quiet"]);
    common::joute_to("run", &spec, &out, &["--quiet", "--resume"]);
    common::joute_ok(&["report", out.join("games.jsonl").to_str().unwrap()]);
    // Every round plays openings of its own: 12 distinct openings for 24 games.
    let log = common::games_by_id(&[out.join("games.jsonl")]);
    assert_eq!(log.len(), 24);
    let openings: std::collections::HashSet<String> =
        log.values().map(|g| g["opening"].to_string()).collect();
    assert_eq!(openings.len(), 12);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn edited_logs_and_records_are_refused_not_miscounted() {
    let dir = scratch("edited");
    let out = dir.join("run");
    let args: Vec<&str> = "connect4 alphabeta:2 alphabeta:1 --games 10 --sprt 0,50"
        .split(' ')
        .collect();
    common::match_quietly(&out, &args);
    let log = out.join("games.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let refuse = |args: &[&str], piece: &str| {
        let o = joute().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(piece), "'{piece}' not in {stderr}");
    };
    // A line whose pair does not match its id.
    let edited = text.replacen("\"pair\":1", "\"pair\":0", 1);
    assert_ne!(edited, text);
    std::fs::write(&log, &edited).unwrap();
    refuse(&["report", log.to_str().unwrap()], "pair does not match");
    // A score that is not a game result.
    std::fs::write(&log, text.replacen("\"score\":1.0", "\"score\":0.7", 1)).unwrap();
    refuse(&["report", log.to_str().unwrap()], "score 0.7");
    // An edited run record.
    std::fs::write(&log, &text).unwrap();
    let record = std::fs::read_to_string(out.join("run.json")).unwrap();
    std::fs::write(
        out.join("run.json"),
        record.replacen("\"depth\": 2", "\"depth\": 3", 1),
    )
    .unwrap();
    refuse(&["report", log.to_str().unwrap()], "was edited");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_process_cannot_append_to_a_running_log() {
    let dir = scratch("lock");
    let spec = common::slow_spec(&dir);
    let out = dir.join("run");
    let bin = assert_cmd::cargo::cargo_bin("joute");
    let mut first = std::process::Command::new(&bin)
        .args([
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--threads",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while common::lines_in(&out.join("games.jsonl")) < 2 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let second = joute()
        .args([
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--resume",
        ])
        .output()
        .unwrap();
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(second.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&second.stderr).contains("another joute run"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn limits_are_checked_before_anything_is_played() {
    let refuse = |args: &[&str], piece: &str| {
        let o = joute().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(piece), "'{piece}' not in {stderr}");
        assert!(!stderr.contains("panicked"));
    };
    refuse(
        &["match", "connect4", "alphabeta:1e20s", "random"],
        "from 1ms to one day",
    );
    refuse(
        &[
            "match",
            "connect4",
            "alphabeta:2",
            "random",
            "--games",
            "8589934592",
        ],
        "at most",
    );
    refuse(
        &[
            "match",
            "connect4",
            "alphabeta:2",
            "random",
            "--openings",
            "999",
        ],
        "0..=200",
    );
    refuse(
        &[
            "match",
            "connect4",
            "alphabeta:2",
            "random",
            "--sprt",
            "0,7000",
        ],
        "out of range",
    );
    let dir = scratch("limits");
    common::refused_spec(
        &dir,
        "run",
        &format!("{HEAD}{TWO}").replace("count = 2 }", "count = 1000001 }"),
        &[],
        &["1..=1000000"],
    );
    common::refused_spec(
        &dir,
        "run",
        &format!("{HEAD}{TWO}").replace("count = 2 }", "count = 1000 }\nrounds = 5000"),
        &[],
        &["at most 1000000 openings"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_match_grows_its_openings_or_says_which_flag_repeats_them() {
    // Connect 4 has 14,114 distinct balanced openings of 6 plies: 15,000 pairs need 8.
    let out = joute()
        .args([
            "match", "connect4", "random", "random", "--games", "30000", "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["games"], 30000);
    let out = joute()
        .args(["match", "connect4", "random", "random", "--games", "30000"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("openings: 8 plies (6 give only 14114 distinct openings, 15000 needed)"),
        "{stderr}"
    );

    // Three-in-a-row on 3×3 has a few hundred: the error names both ways out.
    let refused = joute()
        .args(["match", "morpion", "random", "random", "--games", "3000"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--repeat-openings") && stderr.contains("or fewer"),
        "{stderr}"
    );
    let dir = scratch("repeat");
    let out = dir.join("m");
    let played = joute()
        .args([
            "match",
            "morpion",
            "random",
            "random",
            "--games",
            "3000",
            "--repeat-openings",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(played.status.success(), "{played:?}");
    let stderr = String::from_utf8_lossy(&played.stderr);
    assert!(stderr.contains("each is played"), "{stderr}");
    // The openings repeat, the games (seeded by their id) do not all repeat.
    let log = common::games_by_id(&[out.join("games.jsonl")]);
    assert_eq!(log.len(), 3000);
    let openings: std::collections::BTreeSet<String> =
        log.values().map(|g| g["opening"].to_string()).collect();
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let distinct = record["spec"]["openings"]["distinct"].as_u64().unwrap();
    assert_eq!(openings.len() as u64, distinct);
    assert!(distinct < 1500);
    let moves: std::collections::BTreeSet<String> = log
        .values()
        .map(|g| format!("{}{}", g["opening"], g["moves"]))
        .collect();
    assert!(moves.len() > openings.len() * 2, "{} games", moves.len());
}

#[test]
fn zero_reads_as_zero_never_minus_zero() {
    // Two identical deterministic engines: every pair is a win each, every Elo exactly 0 —
    // which the fits and estimates can return as -0.
    let dir = scratch("zero");
    let out = dir.join("m");
    let text = common::joute_ok(&[
        "match",
        "connect4",
        "alphabeta:3",
        "alphabeta:3",
        "--games",
        "20",
        "--out",
        out.to_str().unwrap(),
    ]);
    // Every pair a win each: no spread to measure, so no interval (it read +/- 0.00).
    assert!(
        text.contains("Elo: 0.00 +/- n/a (every pair scored the same: no spread to measure)"),
        "{text}"
    );
    let mut files = vec![("stdout".to_string(), text)];
    for name in ["ratings.csv", "crosstable.csv", "pairs.csv", "index.html"] {
        files.push((
            name.to_string(),
            std::fs::read_to_string(out.join(name)).unwrap(),
        ));
    }
    for (name, text) in files {
        for (i, _) in text.match_indices("-0.0") {
            // A number that merely starts -0.0 (like -0.05) is fine; a minus zero is not.
            let rest: String = text[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            assert!(
                rest.chars().any(|c| c.is_ascii_digit() && c != '0'),
                "{name}: a minus zero near {:?}",
                &text[i.saturating_sub(40)..(i + 20).min(text.len())]
            );
        }
    }
}

#[test]
fn the_rating_model_is_a_spec_choice_that_leaves_the_hash_of_older_specs_alone() {
    let dir = scratch("model");
    // 6 openings: with 2, ab-1 loses every game it starts against ab-3, and the advantage is
    // (rightly) not estimated.
    let spec = small_spec(&dir, 6);
    let text = std::fs::read_to_string(&spec).unwrap();
    let run = |name: &str, extra: &str| -> (Value, String) {
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, format!("{text}\n{extra}")).unwrap();
        let out = dir.join(name);
        let json: Value = serde_json::from_str(&common::joute_ok(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]))
        .unwrap();
        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
        (json, record["spec_hash"].as_str().unwrap().to_string())
    };
    let (plain, plain_hash) = run("plain", "");
    let (fit, fit_hash) = run("fit", "[ratings]\nfirst_move = \"fit\"\n");
    let (ignore, ignore_hash) = run("ignore", "[ratings]\nfirst_move = \"ignore\"\n");
    // "fit" is the default: the same spec, the same hash as before the key existed.
    assert_eq!(plain_hash, fit_hash);
    assert_ne!(plain_hash, ignore_hash);
    assert_eq!(
        common::untimed_costs(plain["ratings"].clone()),
        common::untimed_costs(fit["ratings"].clone())
    );
    assert_eq!(plain["scale"]["first_move"], "fit");
    assert!(plain["scale"]["first_move_elo"].as_f64().is_some());
    assert_eq!(ignore["scale"]["first_move"], "ignore");
    assert_eq!(ignore["scale"]["first_move_elo"], Value::Null);
    assert_ne!(plain["ratings"], ignore["ratings"]);
}

/// Plays `joute match connect4 pvs:8 alphabeta:4` with `games` and `seed` into a folder;
/// returns the folder, the terminal's text and the JSON of `joute report` on its log.
fn small_match(dir: &Path, games: u32, seed: u32) -> (PathBuf, String, Value) {
    let out = dir.join(format!("m{games}-{seed}"));
    let text = common::joute_ok(&[
        "match",
        "connect4",
        "pvs:8",
        "alphabeta:4",
        "--games",
        &games.to_string(),
        "--seed",
        &seed.to_string(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let log = out.join("games.jsonl");
    let json: Value = serde_json::from_str(&common::joute_ok(&[
        "report",
        log.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    (out, text, json)
}

/// Every rating row of the JSON is an estimate with an interval of at least 0.5 Elo within
/// ±2,000 Elo, a bound without an interval, or no estimate with a reason; returns the rows by
/// name.
fn honest_rows(json: &Value) -> BTreeMap<String, Value> {
    let mut rows = BTreeMap::new();
    for row in json["ratings"].as_array().unwrap() {
        match (
            row["elo"].as_f64(),
            row["error"].as_f64(),
            row["bound"].as_str(),
        ) {
            (Some(elo), Some(error), None) => {
                assert!(error >= 0.5 && elo.abs() <= 2000.0, "{row}");
            }
            (Some(_), None, Some("lower" | "upper")) => assert!(row["reason"].is_string()),
            (None, None, None) => assert!(row["reason"].is_string(), "{row}"),
            (Some(_), None, None) => assert!(row["reason"].is_string(), "{row}"),
            _ => panic!("a row neither estimate, bound nor 'no estimate': {row}"),
        }
        rows.insert(row["name"].as_str().unwrap().to_string(), row.clone());
    }
    rows
}

/// The terminal table's rows: (name, Elo column, +/- column).
fn table_rows(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .skip_while(|l| !l.starts_with("Rank "))
        .skip(1)
        .take_while(|l| !l.starts_with("  "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[1].to_string(), f[2].to_string(), f[3].to_string())
        })
        .collect()
}

#[test]
fn small_matches_print_no_finite_number_where_the_games_identify_none() {
    // Issue #27's cases, each once the way a new user meets it.
    let dir = scratch("small-matches");
    // 8 games, seed 4: pvs:8 won the 4 games it started and split the other 4. It printed
    // 1617.9 ± 0.0 and a first mover of +3235.8.
    let (_, text, json) = small_match(&dir, 8, 4);
    assert!(text.contains("Wins: 6, Losses: 2, Draws: 0"), "{text}");
    assert!(
        text.contains("first mover: not estimated — pvs:8 won every game it moved first against alphabeta:4 (4 games), which no finite advantage explains; the ratings are fitted without it"),
        "{text}"
    );
    let rows = honest_rows(&json);
    // Without the advantage, the difference is the Elo of the score 6/8 (a two-engine fit).
    let d = rows["pvs:8"]["elo"].as_f64().unwrap() - rows["alphabeta:4"]["elo"].as_f64().unwrap();
    assert!((d - common::elo_of_score(0.75)).abs() < 0.01, "{d}");
    assert_eq!(json["scale"]["first_move_elo"], Value::Null);
    assert_eq!(json["scale"]["first_move_error"], Value::Null);
    assert!(
        json["scale"]["first_move_reason"]
            .as_str()
            .unwrap()
            .starts_with("pvs:8 won every game it moved first")
    );
    for (name, elo, error) in table_rows(&text) {
        let error: f64 = error.parse().unwrap_or_else(|_| panic!("{name}: {error}"));
        let elo: f64 = elo.parse().unwrap();
        assert!(error >= 0.5 && elo.abs() <= 2000.0, "{text}");
    }
    // A ratio with a zero denominator is not available.
    assert!(
        text.contains("PairsRatio: n/a") && text.contains("WL/DD Ratio: n/a"),
        "{text}"
    );
    assert!(!text.contains("inf"), "{text}");

    // Seed 5: the first mover lost every game alphabeta:4 started (-3308.0 before).
    let (_, text, json) = small_match(&dir, 8, 5);
    assert!(
        text.contains("first mover: not estimated — alphabeta:4 lost every game it moved first against pvs:8 (4 games)"),
        "{text}"
    );
    let rows = honest_rows(&json);
    let d = rows["pvs:8"]["elo"].as_f64().unwrap() - rows["alphabeta:4"]["elo"].as_f64().unwrap();
    let points = json["head_to_head"]["points"].as_f64().unwrap();
    assert!((d - common::elo_of_score(points / 8.0)).abs() < 0.01, "{d}");

    // 4 games whose first mover lost every game (-17580.7 +/- 0.0 before).
    let (_, text, json) = small_match(&dir, 4, 27);
    assert!(
        text.contains("first mover: not estimated — the first mover lost every game (4 games)"),
        "{text}"
    );
    let rows = honest_rows(&json);
    assert!(
        rows.values()
            .all(|r| r["elo"].as_f64().unwrap().abs() < 1e-9)
    );
}

#[test]
fn a_two_game_match_has_wide_intervals_and_the_true_reasons() {
    let dir = scratch("two-games");
    // Seed 8: pvs:8 won the game it started, the other was drawn. It printed 1617.9 ± 0.0,
    // LOS 100%, a first mover of +3235.8 +/- 0.0, and Elo: 190.85 +/- 0.00 head to head.
    let (out, text, json) = small_match(&dir, 2, 8);
    assert!(text.contains("Wins: 1, Losses: 0, Draws: 1"), "{text}");
    assert!(
        text.contains("first mover: not estimated — pvs:8 won every game it moved first against alphabeta:4 (1 game)"),
        "{text}"
    );
    let rows = honest_rows(&json);
    let (a, b) = (&rows["pvs:8"], &rows["alphabeta:4"]);
    let d = a["elo"].as_f64().unwrap() - b["elo"].as_f64().unwrap();
    assert!((d - common::elo_of_score(0.75)).abs() < 0.01, "{d}");
    // One pair: the interval is the model's alone, on few degrees of freedom: hundreds of
    // Elo, not zero.
    assert!(a["error"].as_f64().unwrap() > 150.0, "{a}");
    // Head to head: one pair has no spread to measure.
    assert!(
        text.contains("Elo: 190.85 +/- n/a (one pair: no spread to measure), nElo: n/a"),
        "{text}"
    );
    assert!(text.contains("LOS: n/a"), "{text}");
    assert_eq!(json["head_to_head"]["error"], Value::Null);
    assert_eq!(json["head_to_head"]["los"], Value::Null);
    let pairs = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    assert!(
        pairs.lines().nth(1).unwrap().contains(",190.85,,,,"),
        "{pairs}"
    );
    // Without the advantage in the model (95.4 ± 0.0 before): the same difference, an interval.
    let log = out.join("games.jsonl");
    let ignored: Value = serde_json::from_str(&common::joute_ok(&[
        "report",
        log.to_str().unwrap(),
        "--json",
        "--first-move",
        "ignore",
    ]))
    .unwrap();
    let rows = honest_rows(&ignored);
    assert!(
        (rows["pvs:8"]["elo"].as_f64().unwrap() - 0.5 * common::elo_of_score(0.75)).abs() < 0.01
    );
    assert!(rows["pvs:8"]["error"].as_f64().unwrap() > 150.0);
    assert_eq!(ignored["scale"]["first_move_reason"], Value::Null);

    // Seed 2: both engines played both colours; the advantage is not estimated because the
    // results are separated, not because "no engine played both colours".
    let (_, text, _) = small_match(&dir, 2, 2);
    assert!(
        text.contains("first mover: not estimated — alphabeta:4 lost every game it moved first against pvs:8 (1 game)"),
        "{text}"
    );
    assert!(!text.contains("played both colours"), "{text}");

    // Seed 4: pvs:8 won both games: bounds, and the two kinds of > read differently.
    let (_, text, json) = small_match(&dir, 2, 4);
    assert!(text.contains("Wins: 2, Losses: 0, Draws: 0"), "{text}");
    let rows = honest_rows(&json);
    assert_eq!(rows["pvs:8"]["bound"], "lower");
    assert_eq!(rows["alphabeta:4"]["bound"], "upper");
    assert!(text.contains("not a 95% bound"), "{text}");
    assert!(
        text.contains("a one-sided 95% bound, unlike the table's > and <"),
        "{text}"
    );
    assert!(
        text.contains(
            "first mover: not estimated — pvs:8 won every game, so the ratings are bounds"
        ),
        "{text}"
    );
}

#[test]
fn a_gauntlet_s_unbeaten_opponents_share_a_rank_in_every_table() {
    // Two opponents that win every game against the challenger (alpha-beta at depth 6 against
    // a random mover), one that loses some (another random mover): nothing orders the first
    // two, whose bounds say only that each won every game against `rnd`.
    let dir = scratch("gauntlet-ties");
    let engine = |name: &str, algorithm: &str, depth: &str| {
        format!("[[engine]]\nname = \"{name}\"\nalgorithm = \"{algorithm}\"\n{depth}\n")
    };
    let text = format!(
        "name = \"t\"\ngame = \"connect4\"\nseed = 1\nopenings = {{ plies = 2, count = 8 }}\nformat = \"gauntlet\"\nchallengers = [\"rnd\"]\n{}{}{}{}",
        engine("rnd", "random", ""),
        engine("ab-b", "alphabeta", "depth = 6"),
        engine("ab-a", "alphabeta", "depth = 6"),
        engine("rnd-2", "random", ""),
    );
    let out = common::run_spec(&dir, &text);
    // The premise, from the log: each opponent's points against the challenger.
    let mut points: BTreeMap<String, (f64, u64)> = BTreeMap::new();
    for g in common::jsonl(&out.join("games.jsonl")) {
        let (first, second) = (g["first"].as_str().unwrap(), g["second"].as_str().unwrap());
        let result = g["result"].as_str().unwrap();
        let first_points = match result {
            "1-0" => 1.0,
            "0-1" => 0.0,
            _ => 0.5,
        };
        let (opponent, p) = if first == "rnd" {
            (second, 1.0 - first_points)
        } else {
            (first, first_points)
        };
        let e = points.entry(opponent.to_string()).or_default();
        e.0 += p;
        e.1 += 1;
    }
    assert_eq!(points["ab-a"], (16.0, 16), "{points:?}");
    assert_eq!(points["ab-b"], (16.0, 16), "{points:?}");
    assert!(
        points["rnd-2"].0 > 0.0 && points["rnd-2"].0 < 16.0,
        "{points:?}"
    );

    // ratings.csv: the two share rank 1, in the spec's order; the next rank is 3.
    let csv = std::fs::read_to_string(out.join("ratings.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let ranked: Vec<(&str, &str)> = rows.iter().map(|r| (r[0], r[1])).collect();
    assert_eq!(&ranked[..2], &[("1", "ab-b"), ("1", "ab-a")], "{csv}");
    assert_eq!(
        ranked[2..].iter().map(|r| r.0).collect::<Vec<_>>(),
        ["3", "4"],
        "{csv}"
    );
    assert!(
        rows[0]
            .iter()
            .any(|c| c.contains("won every game against rnd")),
        "{csv}"
    );

    // The terminal table: `=1` and the shared rank said in words.
    let table = common::joute_ok(&["report", out.join("games.jsonl").to_str().unwrap()]);
    let line = |name: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no row {name} in {table}"))
            .to_string()
    };
    assert!(line("ab-b").trim_start().starts_with("=1 "), "{table}");
    assert!(line("ab-a").trim_start().starts_with("=1 "), "{table}");
    assert!(
        line("rnd").trim_start().starts_with("3 ") || line("rnd-2").trim_start().starts_with("3 "),
        "{table}"
    );
    assert!(table.contains("=1: ab-b and ab-a share a rank"), "{table}");
    // --json: `tied`.
    let json: Value = serde_json::from_str(&common::joute_ok(&[
        "report",
        out.join("games.jsonl").to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    let tied: Vec<(&str, bool)> = json["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["tied"].as_bool().unwrap()))
        .collect();
    assert_eq!(tied[..2], [("ab-b", true), ("ab-a", true)], "{json}");
    assert!(!tied[2].1 && !tied[3].1, "{json}");
    // The page's table.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    for name in ["ab-b", "ab-a"] {
        assert!(
            html.contains(&format!(
                "<td data-v=\"1\">=1</td><td class=\"name\">{name}</td>"
            )),
            "{name}"
        );
    }
}

#[test]
fn a_spec_with_a_hosted_engine_is_refused_by_the_command_line_naming_it_and_its_keys_checked() {
    let dir = tempfile::tempdir().unwrap();
    let spec = |engine: &str| {
        format!(
            "name = \"h\"\ngame = \"connect4\"\nseed = 1\nopenings = {{ plies = 2, count = 2 }}\n\n\
             [[engine]]\nname = \"mine\"\n{engine}\n\n[[engine]]\nname = \"ab\"\nalgorithm = \"alphabeta\"\ndepth = 2\n"
        )
    };
    // A hosted engine is a function of the program running the spec: the command line has none.
    let line = crate::common::refused_spec(
        dir.path(),
        "run",
        &spec("hosted = \"negamax\""),
        &[],
        &[
            "engine 'mine' is hosted ('negamax')",
            "the command line cannot play it",
        ],
    );
    assert!(line.contains("joute.run"), "{line}");
    assert!(!dir.path().join("out").join("games.jsonl").exists());
    // Nothing of a built-in engine or a program beside it: the key is named where it is.
    crate::common::refused_spec(
        dir.path(),
        "run",
        &spec("hosted = \"negamax\"\ndepth = 4"),
        &[],
        &[
            "bad.toml:9:9: key 'engine[1].depth'",
            "depth does not go with hosted",
        ],
    );
    crate::common::refused_spec(
        dir.path(),
        "run",
        &spec("hosted = \"\""),
        &[],
        &["key 'engine[1].hosted'", "hosted must be a key of 1 to"],
    );
}

#[test]
fn an_engine_solving_on_several_threads_is_logged_as_not_reproducible() {
    // Two Othello engines solving their endgames exactly, one of them on two threads: each
    // game names that engine's parallel solve, and no other reason.
    let dir = scratch("threads-not-reproducible");
    let text = "name = \"t\"\ngame = \"othello\"\nseed = 3\nopenings = { plies = 4, count = 1 }\n\
        [[engine]]\nname = \"two\"\nalgorithm = \"pvs\"\ndepth = 1\nexact = 12\nthreads = 2\n\
        [[engine]]\nname = \"one\"\nalgorithm = \"pvs\"\ndepth = 1\nexact = 12\n";
    let out = common::run_spec(&dir, text);
    let games = common::jsonl(&out.join("games.jsonl"));
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(
            g["not_reproducible"],
            serde_json::json!(["parallel solve of 'two' (2 threads)"]),
            "{g}"
        );
    }
}

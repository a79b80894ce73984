//! `joute tune SPEC --shard I/N`: a regression run played by shard processes sharing its
//! folder ends with the unsharded run's weights, history and round logs, a killed shard
//! resumed included; bad uses get a clear error.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// An Othello regression spec at alpha-beta depth `depth` with short matches, `regression` the
/// body of its `[regression]` table.
fn spec_text(depth: u32, regression: &str) -> String {
    let text = crate::tune_regression::spec_text(regression);
    let short = "[confirm]\ngames = 20\naa_games = 10\n";
    assert!(
        text.contains("depth = 2\n") && text.contains("[confirm]\ngames = 200\naa_games = 40\n")
    );
    text.replace("depth = 2\n", &format!("depth = {depth}\n"))
        .replace("[confirm]\ngames = 200\naa_games = 40\n", short)
}

fn write_spec(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// `joute tune SPEC --out OUT --shard SHARD --threads 1 --quiet EXTRA`, started.
fn shard(spec: &str, out: &Path, shard: &str, extra: &[&str]) -> Child {
    Command::new(common::bin())
        .args([
            "tune",
            spec,
            "--out",
            out.to_str().unwrap(),
            "--shard",
            shard,
        ])
        .args(["--threads", "1", "--quiet"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for a shard and expects it to succeed.
fn succeeds(child: Child) {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "a shard failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Waits for shards played at once and expects every one to succeed; the first that fails
/// ends the others (which would wait for it for ever) and the test.
fn all_succeed(mut children: Vec<Child>) {
    while !children.is_empty() {
        let mut i = 0;
        while i < children.len() {
            match children[i].try_wait().unwrap() {
                Some(status) if !status.success() => {
                    for other in &mut children {
                        let _ = other.kill();
                        let _ = other.wait();
                    }
                    let mut stderr = String::new();
                    use std::io::Read;
                    let _ = children[i]
                        .stderr
                        .take()
                        .unwrap()
                        .read_to_string(&mut stderr);
                    panic!("a shard failed ({status}): {stderr}");
                }
                Some(_) => succeeds(children.swap_remove(i)),
                None => i += 1,
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The unsharded run of `spec` into `out`.
fn whole(spec: &str, out: &Path) {
    let out = out.to_str().unwrap();
    common::joute_ok(&["tune", spec, "--out", out, "--threads", "1", "--quiet"]);
}

/// The lines of a self-play log without the games' timings.
fn selfplay(log: &Path) -> Vec<Value> {
    common::untimed_games(log)
}

/// The sharded run in `sharded` ended with the unsharded run's (`whole`) history, round logs
/// (`rounds` of them), tuned weights and confirmation.
fn same_run(sharded: &Path, whole: &Path, rounds: u32) {
    assert_eq!(common::history(sharded), common::history(whole));
    for round in 1..=rounds {
        let log = PathBuf::from(format!("selfplay/round-{round}.jsonl"));
        assert_eq!(
            selfplay(&sharded.join(&log)),
            selfplay(&whole.join(&log)),
            "round {round}"
        );
    }
    let confirmation = |dir: &Path| {
        let summary: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        common::untimed_costs(summary["confirmation"].clone())
    };
    assert_eq!(confirmation(sharded), confirmation(whole));
    assert!(confirmation(whole)["games"].as_u64().unwrap() > 0);
}

#[test]
fn two_shards_end_with_the_unsharded_runs_weights_and_history() {
    let dir = common::scratch("two");
    let spec = write_spec(&dir, "spec.toml", &spec_text(2, "games = 90\nrounds = 3"));
    whole(&spec, &dir.join("whole"));
    let sharded = dir.join("sharded");
    let shards = [
        shard(&spec, &sharded, "0/2", &[]),
        shard(&spec, &sharded, "1/2", &[]),
    ];
    all_succeed(shards.into());
    same_run(&sharded, &dir.join("whole"), 3);
    assert_eq!(
        common::weights_lines(&sharded.join("tuned-weights.toml")),
        common::weights_lines(&dir.join("whole/tuned-weights.toml"))
    );
    // Each shard logged its own games: ids ≡ I mod 2, 45 each a round.
    for index in 0..2u64 {
        let log = sharded.join(format!("shard-{index}-of-2/selfplay/round-2.jsonl"));
        let ids: Vec<u64> = common::jsonl(&log)
            .iter()
            .map(|g| g["id"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, (index..90).step_by(2).collect::<Vec<_>>());
    }
}

#[test]
fn three_shards_of_a_pattern_run_write_the_unsharded_runs_pattern_weights() {
    let dir = common::scratch("patterns");
    let regression = "games = 40\nrounds = 2\nevaluation = \"patterns\"\nphases = 2";
    let spec = write_spec(&dir, "spec.toml", &spec_text(1, regression));
    whole(&spec, &dir.join("whole"));
    let sharded = dir.join("sharded");
    let shards: Vec<Child> = (0..3)
        .map(|i| shard(&spec, &sharded, &format!("{i}/3"), &[]))
        .collect();
    all_succeed(shards);
    same_run(&sharded, &dir.join("whole"), 2);
    for file in [
        "patterns/round-1.jpw",
        "patterns/round-2.jpw",
        "tuned-weights.jpw",
    ] {
        assert_eq!(
            std::fs::read(sharded.join(file)).unwrap(),
            std::fs::read(dir.join("whole").join(file)).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn a_killed_shard_resumes_and_the_run_ends_as_the_unsharded_one() {
    let dir = common::scratch("killed");
    let spec = write_spec(&dir, "spec.toml", &spec_text(2, "games = 600\nrounds = 2"));
    whole(&spec, &dir.join("whole"));
    let sharded = dir.join("sharded");
    let other = shard(&spec, &sharded, "0/2", &[]);
    let own = sharded.join("shard-1-of-2/selfplay");
    let out = sharded.to_str().unwrap();
    let mut kills = Vec::new();
    // Shard 1 killed in round 1's self-play, then in round 2's, then resumed to the end.
    for (log, target) in [("round-1.jsonl", 100), ("round-2.jsonl", 100)] {
        let mut args = vec![
            "tune",
            &spec,
            "--out",
            out,
            "--shard",
            "1/2",
            "--threads",
            "1",
        ];
        if sharded.join("shard-1-of-2/shard.json").exists() {
            args.push("--resume");
        }
        kills.extend(common::kill_at_lines(&args, &own.join(log), target));
    }
    assert_eq!(kills.len(), 2, "shard 1 finished before it could be killed");
    succeeds(shard(&spec, &sharded, "1/2", &["--resume"]));
    succeeds(other);
    same_run(&sharded, &dir.join("whole"), 2);
}

#[test]
fn the_shard_a_fit_lock_names_fits_and_the_others_wait_for_it() {
    // A fitter killed after taking round 1's lock left it naming shard 1: shard 0 must wait
    // for shard 1's fit, and shard 1 must fit (as it does when resumed).
    let dir = common::scratch("lock");
    let spec = write_spec(&dir, "spec.toml", &spec_text(1, "games = 60\nrounds = 2"));
    whole(&spec, &dir.join("whole"));
    let sharded = dir.join("sharded");
    std::fs::create_dir_all(sharded.join("selfplay")).unwrap();
    std::fs::write(sharded.join("shards.json"), "{\"shards\":2}\n").unwrap();
    std::fs::write(sharded.join("selfplay/round-1.fit"), "1\n").unwrap();
    all_succeed(vec![
        shard(&spec, &sharded, "0/2", &[]),
        shard(&spec, &sharded, "1/2", &[]),
    ]);
    same_run(&sharded, &dir.join("whole"), 2);
}

#[test]
fn bad_uses_of_shard_get_a_clear_error() {
    let dir = common::scratch("bad");
    let spec = write_spec(&dir, "spec.toml", &spec_text(1, "games = 20\nrounds = 1"));
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let hill = common::tune_spec_text(&dir, "hill-climb", "games = 2000", "");
    let hill = write_spec(&dir, "hill.toml", &hill);
    common::refused(
        &["tune", &hill, "--out", out, "--shard", "0/2"],
        &["only method = \"regression\"", "hill-climb"],
    );
    common::refused(
        &["tune", &spec, "--out", out, "--shard", "2/2"],
        &["--shard", "2/2"],
    );
    assert!(!dir.join("out").exists(), "nothing written for a refusal");

    // A run of one shard, finished; then every use that does not fit it.
    common::joute_ok(&["tune", &spec, "--out", out, "--shard", "0/1", "--quiet"]);
    let args = |extra: &[&'static str], spec: &str| {
        let mut a = vec!["tune".to_string(), spec.into(), "--out".into(), out.into()];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let refused = |args: Vec<String>, expected: &[&str]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::refused(&args, expected);
    };
    refused(
        args(&["--shard", "1/2", "--resume"], &spec),
        &["1 shard", "not 2"],
    );
    let other = write_spec(&dir, "other.toml", &spec_text(1, "games = 20\nrounds = 2"));
    refused(
        args(&["--shard", "0/1", "--resume"], &other),
        &["another spec", "same spec"],
    );
    refused(args(&["--shard", "0/1"], &spec), &["add --resume"]);
    refused(args(&["--resume"], &spec), &["--shard I/1"]);
    // The finished run resumed is done at once.
    common::joute_ok(&[
        "tune", &spec, "--out", out, "--shard", "0/1", "--resume", "--quiet",
    ]);

    // A shard on an unsharded run's folder.
    let plain = dir.join("plain");
    let plain = plain.to_str().unwrap();
    common::joute_ok(&["tune", &spec, "--out", plain, "--quiet"]);
    common::refused(
        &["tune", &spec, "--out", plain, "--shard", "0/2", "--resume"],
        &["without --shard"],
    );
}

#[test]
fn the_cluster_script_runs_a_tuning_runs_shards() {
    // deploy/run-shard.sh with COMMAND=tune as two Slurm array tasks at once, then re-run as a
    // requeued task would be (it finds the run finished), against the unsharded run.
    let dir = common::scratch("script");
    let spec = write_spec(&dir, "spec.toml", &spec_text(1, "games = 40\nrounds = 2"));
    whole(&spec, &dir.join("whole"));
    let out = dir.join("cluster");
    let task = |index: u64| {
        Command::new("bash")
            .arg("deploy/run-shard.sh")
            .env("COMMAND", "tune")
            .env("SPEC", &spec)
            .env("SHARD_COUNT", "2")
            .env("OUT", &out)
            .env("JOUTE", common::bin())
            .env("THREADS", "1")
            .env("SLURM_ARRAY_TASK_ID", index.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    all_succeed(vec![task(0), task(1)]);
    same_run(&out, &dir.join("whole"), 2);
    let history = std::fs::read(out.join("history.jsonl")).unwrap();
    succeeds(task(1));
    assert_eq!(std::fs::read(out.join("history.jsonl")).unwrap(), history);
}

#[test]
fn a_failed_fit_stops_the_shards_waiting_for_it() {
    // No position past skip_plies: the fit of round 1 fails, and the shard waiting for it
    // says so and stops instead of waiting for ever.
    let dir = common::scratch("failed");
    let regression = "games = 20\nrounds = 2\nskip_plies = 200";
    let spec = write_spec(&dir, "spec.toml", &spec_text(1, regression));
    let out = dir.join("out");
    let shards = [
        shard(&spec, &out, "0/2", &[]),
        shard(&spec, &out, "1/2", &[]),
    ];
    let errors: Vec<String> = shards
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(1));
            String::from_utf8_lossy(&out.stderr).into_owned()
        })
        .collect();
    assert!(
        errors.iter().all(|e| e.contains("no positions to fit")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("fit of round 1 failed")),
        "{errors:?}"
    );
}

/// Copies the folder `from` (files and folders, no links) to `to`.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_folder(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

/// Waits for a shard at most `seconds`: one still running then is killed and the test fails
/// (it would have waited for ever).
fn ends_within(mut child: Child, seconds: u64) -> std::process::Output {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "a shard still ran after {seconds} s: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A fresh run folder `out` of two shards (`shards.json` written, as the first shard does).
fn two_shard_folder(out: &Path) {
    std::fs::create_dir_all(out.join("selfplay")).unwrap();
    std::fs::write(out.join("shards.json"), "{\"shards\":2}\n").unwrap();
}

#[test]
fn a_shard_log_of_another_run_or_a_forged_line_is_refused_naming_its_file_and_line() {
    let dir = common::scratch("foreign");
    let text = spec_text(1, "games = 20\nrounds = 1");
    assert!(text.contains("seed = 11\n"));
    let spec = write_spec(&dir, "spec.toml", &text);
    let theirs = write_spec(
        &dir,
        "theirs.toml",
        &text.replace("seed = 11\n", "seed = 12\n"),
    );
    whole(&spec, &dir.join("whole"));
    for (spec, out) in [(&spec, "ours"), (&theirs, "theirs")] {
        let out = dir.join(out);
        all_succeed(vec![
            shard(spec, &out, "0/2", &[]),
            shard(spec, &out, "1/2", &[]),
        ]);
    }
    let log = "shard-1-of-2/selfplay/round-1.jsonl";
    let lines = |run: &str| -> Vec<String> {
        let text = std::fs::read_to_string(dir.join(run).join(log)).unwrap();
        text.lines().map(str::to_string).collect()
    };
    // A run whose shard 1 is `lines` in `from`'s shard 1 folder (progress and all), for shard
    // 0 of our run to play with.
    let beside = |name: &str, from: &str, lines: &[String]| -> PathBuf {
        let out = dir.join(name);
        two_shard_folder(&out);
        copy_folder(
            &dir.join(from).join("shard-1-of-2"),
            &out.join("shard-1-of-2"),
        );
        std::fs::write(out.join(log), lines.join("\n") + "\n").unwrap();
        out
    };
    let shard_0 = |out: &Path| -> Vec<String> {
        let out = out.to_str().unwrap();
        [
            "tune",
            &spec,
            "--out",
            out,
            "--shard",
            "0/2",
            "--threads",
            "1",
            "--quiet",
        ]
        .map(str::to_string)
        .into()
    };
    let refused = |out: &Path, expected: &[&str]| {
        let args = shard_0(out);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::refused(&args, expected);
        // Nothing of it fitted.
        assert!(!out.join("selfplay/round-1.jsonl").exists());
        assert!(!out.join("tuned-weights.toml").exists());
        assert_eq!(common::lines_in(&out.join("history.jsonl")), 0);
    };

    // Our own shard 1 copied: the run ends as the unsharded one (the copy is no foreign body).
    let copied = beside("copied", "ours", &lines("ours"));
    let args = shard_0(&copied);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::joute_ok(&args);
    same_run(&copied, &dir.join("whole"), 1);

    // The shard folder of a run of another seed (another spec hash, other openings).
    let foreign = beside("foreign", "theirs", &lines("theirs"));
    refused(&foreign, &[log, "line 1", "spec hash"]);

    // One line of it, id and spec hash made ours, among our own.
    let ours = lines("ours");
    let hash = serde_json::from_str::<Value>(&ours[0]).unwrap()["spec"].clone();
    let mut forged: Value = serde_json::from_str(&lines("theirs")[2]).unwrap();
    let own: Value = serde_json::from_str(&ours[2]).unwrap();
    assert_eq!(forged["id"], own["id"]);
    forged["spec"] = hash;
    let mut edited = ours.clone();
    edited[2] = forged.to_string();
    let forged = beside("forged", "ours", &edited);
    refused(&forged, &[log, "line 3", "game 5"]);
}

#[test]
fn a_fit_lock_naming_a_shard_the_run_has_not_is_refused() {
    let dir = common::scratch("range");
    let spec = write_spec(&dir, "spec.toml", &spec_text(1, "games = 20\nrounds = 1"));
    let out = dir.join("out");
    two_shard_folder(&out);
    std::fs::write(out.join("selfplay/round-1.fit"), "7\n").unwrap();
    for child in [
        shard(&spec, &out, "0/2", &[]),
        shard(&spec, &out, "1/2", &[]),
    ] {
        let ended = ends_within(child, 60);
        let stderr = String::from_utf8_lossy(&ended.stderr);
        assert_eq!(ended.status.code(), Some(2), "{stderr}");
        for piece in ["selfplay/round-1.fit", "shard 7", "2 shards"] {
            assert!(stderr.contains(piece), "'{piece}' not in {stderr}");
        }
    }
}

#[test]
fn a_failed_fit_is_retried_by_a_resumed_shard_alone_or_by_shards_resumed_at_once() {
    let dir = common::scratch("retry");
    let spec = write_spec(&dir, "spec.toml", &spec_text(1, "games = 40\nrounds = 2"));
    whole(&spec, &dir.join("whole"));
    // Both shards of a run in `out` whose fit of round `round` fails (the round's merged log
    // cannot be written: a folder holds its name, as a full disk would refuse it); then the
    // way cleared, as freed space would.
    let failing = |out: &Path, round: u32| {
        two_shard_folder(out);
        let blocked = out.join(format!("selfplay/round-{round}.jsonl"));
        std::fs::create_dir_all(blocked.join("in-the-way")).unwrap();
        for child in [shard(&spec, out, "0/2", &[]), shard(&spec, out, "1/2", &[])] {
            let ended = ends_within(child, 120);
            let stderr = String::from_utf8_lossy(&ended.stderr);
            assert_eq!(ended.status.code(), Some(1), "{stderr}");
        }
        assert!(out.join(format!("selfplay/round-{round}.failed")).exists());
        std::fs::remove_dir_all(blocked).unwrap();
    };

    // Round 1's fit failed; the shard that did not fit it, resumed alone, fits it and plays
    // round 2 (it does not stop on the old failure); the fitter resumed later joins it.
    let alone = dir.join("alone");
    failing(&alone, 1);
    let fitter: u64 = std::fs::read_to_string(alone.join("selfplay/round-1.fit"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let other = shard(&spec, &alone, &format!("{}/2", 1 - fitter), &["--resume"]);
    let mut other = Some(other);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while common::lines_in(&alone.join("history.jsonl")) < 1 {
        if let Some(status) = other.as_mut().unwrap().try_wait().unwrap() {
            let out = other.take().unwrap().wait_with_output().unwrap();
            panic!(
                "shard {}/2 resumed stopped ({status}) before fitting round 1: {}",
                1 - fitter,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert!(std::time::Instant::now() < deadline, "round 1 never fitted");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let late = shard(&spec, &alone, &format!("{fitter}/2"), &["--resume"]);
    all_succeed(vec![other.unwrap(), late]);
    same_run(&alone, &dir.join("whole"), 2);

    // Round 2's fit failed; both shards resumed at once: one of them takes the fit's next
    // attempt, the other waits for it.
    let at_once = dir.join("at-once");
    failing(&at_once, 2);
    all_succeed(vec![
        shard(&spec, &at_once, "0/2", &["--resume"]),
        shard(&spec, &at_once, "1/2", &["--resume"]),
    ]);
    same_run(&at_once, &dir.join("whole"), 2);
    let retry = std::fs::read_to_string(at_once.join("selfplay/round-2.retry-1.fit")).unwrap();
    assert!(["0\n", "1\n"].contains(&retry.as_str()), "{retry:?}");
}

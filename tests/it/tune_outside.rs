//! `joute tune` of an outside engine's option (issue #17): the Python engine
//! `examples/engines/connect4_tunable.py` plays a random move with probability noise/100, so its
//! best noise is 0; tuning starts it at 60. SPSA end to end, hill climbing killed and resumed,
//! a pool of built-in engines, and bad specs.
//!
//! Linux only (the orphan check reads `/proc`); needs `python3`.

use crate::common::{self, scratch};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

/// The Python interpreter itself: `python3` may be a launcher script (pyenv's shims start in a
/// tenth of a second), and every candidate starts its programs afresh.
fn python() -> String {
    std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "python3".into())
}

/// A copy of the tunable engine in `dir`, under a name no other process carries (the orphan
/// check looks for it in `/proc/PID/cmdline`).
fn engine_copy(dir: &Path, test: &str) -> PathBuf {
    let name = format!("c4tunable-{test}-{}.py", std::process::id());
    let path = dir.join(name);
    std::fs::copy(
        common::manifest("examples/engines/connect4_tunable.py"),
        &path,
    )
    .unwrap();
    path
}

/// A tuning spec of the engine's `noise` option, from 60 in [0, 100]; `method` and `extra`
/// (method tables, more keys) vary. `-S`: without the site packages Python starts in 20 ms.
fn spec_text(engine: &Path, method: &str, budget: &str, extra: &str) -> String {
    format!(
        r#"name = "t"
game = "connect4"
seed = 5
method = "{method}"

[engine]
command = "{}"
args = ["-S", "{}"]
protocol = "line"
options = {{ noise = 60, seed = 1 }}

[openings]
plies = 6

[budget]
{budget}

[confirm]
games = 200

[[param]]
name = "noise"
min = 0
max = 100
step = 10
{extra}"#,
        python(),
        engine.display()
    )
}

fn write(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("spec.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// P(X ≥ k) for X ~ Binomial(n, 1/2).
fn binomial_tail(n: u64, k: u64) -> f64 {
    let mut choose = 1.0f64; // C(n, i)
    let mut tail = 0.0;
    for i in 0..=n {
        if i >= k {
            tail += choose;
        }
        choose = choose * (n - i) as f64 / (i + 1) as f64;
    }
    tail / 2f64.powi(n as i32)
}

#[test]
fn spsa_tunes_an_outside_option_toward_its_optimum_and_writes_usable_options() {
    let dir = scratch("spsa");
    let engine = engine_copy(&dir, "spsa");
    let spec = write(
        &dir,
        &spec_text(
            &engine,
            "spsa",
            "iterations = 40",
            "r_end = 0.02\n\n[spsa]\npairs = 16\n",
        )
        .replace("games = 200", "games = 200\naa_games = 20"),
    );
    let out = dir.join("out");
    let clock = Instant::now();
    let stdout = common::joute_ok(&[
        "tune",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    eprintln!(
        "40 SPSA iterations of 16 pairs: {:.1} s",
        clock.elapsed().as_secs_f64()
    );
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["candidates"], 40);
    assert_eq!(summary["games"], 40 * 32 + 200 + 20, "{summary}");
    let tuned = summary["params"][0]["tuned"].as_f64().unwrap();
    assert_eq!(summary["params"][0]["start"], 60.0);

    // Why this cannot be chance. Each iteration plays θ+ = θ + c·Δ against θ− = θ − c·Δ (Δ = ±1
    // from the seed) and moves θ by R·c·(W − L)·Δ: down when sign(W − L)·Δ < 0. If noise made
    // no difference, θ+ and θ− would be the same engine: W − L of each pair would be
    // symmetric about 0 whatever Δ, so among the iterations with W ≠ L each would move θ down
    // or up with probability ½, independently of the others (Δ is fresh each time) — a fair
    // coin. Downs that a fair coin gives with probability below 1e-6 reject that. (Measured:
    // noise 40 scores 62% against noise 60, so nearly every iteration points down.)
    let h = common::history(&out);
    let (mut down, mut moved) = (0, 0);
    for l in &h {
        let delta =
            (l["candidate"][0].as_f64().unwrap() - l["opponent"][0].as_f64().unwrap()).signum();
        let w_l = l["wins"].as_i64().unwrap() - l["losses"].as_i64().unwrap();
        if w_l != 0 && delta != 0.0 {
            moved += 1;
            if (w_l as f64) * delta < 0.0 {
                down += 1;
            }
        }
    }
    let p = binomial_tail(moved, down);
    eprintln!(
        "θ moved down in {down} of {moved} iterations (p = {p:.2e} by chance); tuned noise {tuned}"
    );
    assert!(p < 1e-6, "{down} of {moved} down, p = {p}");
    // And far: from 60 to within 20 of the optimum (the steps' size is the spec's r_end).
    assert!(tuned <= 20.0, "tuned noise {tuned}");
    // The held-out confirmation: at least 4.9 standard errors above the start (± is 1.96 of
    // them), a one-sided chance below 1e-6.
    let c = &summary["confirmation"];
    let (elo, error) = (c["elo"].as_f64().unwrap(), c["error"].as_f64().unwrap());
    assert!(elo > 2.5 * error, "{c}");

    // The summary and the outputs say options, and that the results are not reproducible.
    let reasons = summary["not_reproducible"].as_array().unwrap();
    assert!(
        reasons[0]
            .as_str()
            .unwrap()
            .starts_with("outside program '"),
        "{summary}"
    );
    let options = summary["options"].as_str().unwrap();
    assert!(
        options.starts_with("options = { noise = ") && options.ends_with(", seed = 1 }"),
        "{options}"
    );
    let file = out.join("tuned-options.toml");
    assert_eq!(summary["options_file"], file.display().to_string());
    assert!(!out.join("tuned-weights.toml").exists());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("# Tuned by joute"), "{text}");
    assert!(text.contains("# Results not reproducible: the games depend on outside program"));
    assert_eq!(text.lines().last().unwrap(), options);
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("Final options") && page.contains("not reproducible"));
    assert!(out.join("engines/candidate.log").is_file());
    // The A/A match of a deterministic program: each pair one game played twice.
    assert_eq!(
        summary["aa"]["check"]["verdict"], "not-meaningful",
        "{summary}"
    );

    // Usable: the options line pasted into a tournament spec's engine, against the start.
    let tournament = format!(
        r#"name = "check"
game = "connect4"
seed = 9
openings = {{ plies = 6, count = 20 }}

[[engine]]
name = "tuned"
command = "{python}"
args = ["-S", "{engine}"]
protocol = "line"
{options}

[[engine]]
name = "start"
command = "{python}"
args = ["-S", "{engine}"]
protocol = "line"
options = {{ noise = 60, seed = 1 }}
"#,
        python = python(),
        engine = engine.display()
    );
    std::fs::create_dir(dir.join("check")).unwrap();
    let played = common::run_spec(&dir.join("check"), &tournament);
    let log = std::fs::read_to_string(played.join("games.jsonl")).unwrap();
    let mut points = 0.0;
    for line in log.lines() {
        let g: Value = serde_json::from_str(line).unwrap();
        let s = g["score"].as_f64().unwrap();
        points += if g["first"] == "tuned" { s } else { 1.0 - s };
    }
    assert_eq!(log.lines().count(), 40);
    assert!(
        points > 26.0,
        "tuned scored {points} of 40 against the start"
    );
}

#[test]
fn a_killed_outside_run_leaves_no_program_and_resumes_to_the_same_history() {
    let dir = scratch("resume");
    let engine = engine_copy(&dir, "resume");
    let marker = engine.file_name().unwrap().to_str().unwrap().to_string();
    let text = spec_text(
        &engine,
        "hill-climb",
        "iterations = 40",
        "\n[hill]\npairs = 12\n",
    );
    let spec = write(&dir, &text);
    let spec = spec.to_str().unwrap();
    let whole = dir.join("whole");
    common::joute_ok(&["tune", spec, "--out", whole.to_str().unwrap(), "--quiet"]);
    let expected = common::history(&whole);
    assert_eq!(expected.len(), 40);
    // Hill climbing went down from 60: each accepted candidate had less noise.
    let accepted: Vec<f64> = (expected.iter())
        .filter(|l| l["accepted"] == true)
        .map(|l| l["candidate"][0].as_f64().unwrap())
        .collect();
    assert!(
        !accepted.is_empty() && accepted.windows(2).all(|w| w[1] < w[0]),
        "{accepted:?}"
    );
    assert!(accepted[0] < 60.0);

    let killed = dir.join("killed");
    let log = killed.join("history.jsonl");
    let mut kills = Vec::new();
    for target in [3usize, 15] {
        let mut args = vec!["tune", spec, "--out", killed.to_str().unwrap(), "--quiet"];
        if killed.join("checkpoint.json").exists() {
            args.push("--resume");
        }
        kills.extend(common::kill_at_lines(&args, &log, target));
        // The programs die with joute (their parent-death signal), at once.
        let since = Instant::now();
        while !common::running_with(&marker).is_empty() && since.elapsed() < Duration::from_secs(5)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            common::running_with(&marker),
            Vec::<u32>::new(),
            "orphans after a kill"
        );
    }
    eprintln!("killed with {kills:?} candidates in the history");
    assert!(
        !kills.is_empty(),
        "the run finished before it could be killed"
    );
    let ck: Value =
        serde_json::from_str(&std::fs::read_to_string(killed.join("checkpoint.json")).unwrap())
            .unwrap();
    assert_eq!(ck["spec"]["options"][0]["name"], "noise");
    common::joute_ok(&[
        "tune",
        spec,
        "--out",
        killed.to_str().unwrap(),
        "--quiet",
        "--resume",
    ]);
    // The program is deterministic (its random draws are seeded from its options and the
    // moves) and plays without a clock: here the resumed run replays the uninterrupted one.
    assert_eq!(common::history(&killed), expected);
    assert_eq!(
        std::fs::read_to_string(killed.join("tuned-options.toml"))
            .unwrap()
            .lines()
            .last(),
        std::fs::read_to_string(whole.join("tuned-options.toml"))
            .unwrap()
            .lines()
            .last()
    );
    assert_eq!(common::running_with(&marker), Vec::<u32>::new());
}

#[test]
fn candidates_play_a_pool_of_built_in_engines_on_a_clock() {
    let dir = scratch("pool");
    let engine = engine_copy(&dir, "pool");
    let text = spec_text(&engine, "spsa", "iterations = 4", "\n[spsa]\npairs = 3\n")
        .replace(
            "seed = 5\n",
            "seed = 5\nopponent = \"pool\"\nst = \"100ms\"\n",
        )
        .replace("games = 200", "games = 20\naa_games = 4")
        + "\n[[pool]]\nname = \"ab1\"\nalgorithm = \"alphabeta\"\ndepth = 1\n";
    let spec = write(&dir, &text);
    let out = dir.join("out");
    let stdout = common::joute_ok(&[
        "tune",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    // Both vectors play the pool engine from each opening: four games a pair. When θ+ and θ−
    // scored alike against the pool every time, θ never moved: the tuned program is the start
    // program and the confirmation is not played.
    let confirmation = &summary["confirmation"];
    let confirmed = if confirmation["skipped"].is_string() {
        assert_eq!(summary["params"][0]["tuned"], 60.0, "{summary}");
        0
    } else {
        20
    };
    assert_eq!(confirmation["games"], confirmed, "{summary}");
    assert_eq!(summary["games"], 4 * 3 * 4 + confirmed + 4, "{summary}");
    for l in common::history(&out) {
        assert_eq!(l["games"], 12);
        assert_eq!(l["pairs"], 3);
    }
    assert_eq!(summary["not_reproducible"][1], "clock", "{summary}");
    // The matches' games were played on the clock, and say so.
    let folders: &[&str] = if confirmed > 0 {
        &["confirm", "aa"]
    } else {
        &["aa"]
    };
    for folder in folders {
        let log = std::fs::read_to_string(out.join(folder).join("games.jsonl")).unwrap();
        let first: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
        assert_eq!(first["not_reproducible"][0], "clock", "{folder}: {first}");
    }
}

/// An integer option whose SPSA schedule cannot move it by one step: warned of before the
/// first game; the tuned value, as sent, is the start's, said before the confirmation, which
/// is not played (the record says why); the options file is a table a spec reads, the value
/// as sent with the estimate in a comment; and no `± 0.0` anywhere.
#[test]
fn an_option_that_does_not_move_as_sent_is_not_confirmed_against_itself() {
    let dir = scratch("unmoved");
    let engine = engine_copy(&dir, "unmoved");
    let spec = write(
        &dir,
        &spec_text(
            &engine,
            "spsa",
            "iterations = 2",
            "integer = true\nr_end = 0.0001\n",
        )
        .replace("games = 200", "games = 20\naa_games = 4"),
    );
    let out = dir.join("out");
    let run = Command::cargo_bin("joute")
        .unwrap()
        .args([
            "tune",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("warning: option 'noise' is sent as a whole number, but SPSA's schedule moves it by at most"),
        "{stderr}"
    );
    let skipped = stdout
        .find("confirmation skipped: the tuned options as sent equal the start's (noise: sent 60")
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        !stdout[skipped..].contains("confirmation: tuned against start"),
        "{stdout}"
    );
    assert!(stdout.contains("confirmation not played: "), "{stdout}");
    assert!(!stdout.contains("± 0.0"), "{stdout}");
    assert!(!out.join("confirm").exists());
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let confirmation = &summary["confirmation"];
    assert_eq!(confirmation["games"], 0, "{summary}");
    assert!(
        confirmation["skipped"]
            .as_str()
            .unwrap()
            .starts_with("the tuned options as sent equal the start's"),
        "{summary}"
    );
    assert_eq!(summary["games"], 2 * 2 + 4, "{summary}");
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains("not played: the tuned options as sent"),
        "the page"
    );
    assert!(!page.contains("± 0.0"));
    // The options file: pasted into a tournament spec, the tuned program as it was sent.
    let text = std::fs::read_to_string(out.join("tuned-options.toml")).unwrap();
    assert!(
        text.contains("# Not confirmed, no match played: "),
        "{text}"
    );
    assert!(text.contains("#   noise: sent 60"), "{text}");
    let tournament = format!(
        "name = \"check\"\ngame = \"connect4\"\nseed = 9\nopenings = {{ plies = 2, count = 2 }}\n\n{text}\n[[engine]]\nname = \"r\"\nalgorithm = \"random\"\n"
    );
    let read = joute::arena::spec::TournamentSpec::parse(&tournament, "check.toml")
        .unwrap_or_else(|e| panic!("{e}\n{tournament}"));
    let o = read.resolved.engines[0].outside.as_ref().unwrap();
    assert_eq!(o.options["noise"], "60");
    assert_eq!(o.args, ["-S", engine.to_str().unwrap()]);
}

#[test]
fn bad_outside_tuning_specs_get_a_clear_error() {
    let dir = scratch("bad");
    let engine = engine_copy(&dir, "bad");
    let good = spec_text(&engine, "spsa", "iterations = 10", "");
    let cases: Vec<(String, Vec<&str>)> = vec![
        // A feature of joute's evaluation named for an outside engine: line and column of it.
        (
            good.replace("name = \"noise\"", "name = \"own_threes\""),
            vec![
                "bad.toml:22:8",
                "key 'param[1].name'",
                "'own_threes' is a feature of joute's own evaluation of connect4",
            ],
        ),
        // No start: neither `start` nor a value in the engine's options.
        (
            good.replace("noise = 60, seed = 1", "seed = 1"),
            vec![
                "bad.toml:22:8",
                "param[1].name",
                "option 'noise' has no start",
            ],
        ),
        (
            good.replace("noise = 60,", "noise = \"high\","),
            vec!["bad.toml:", "engine.options.noise", "'high', not a number"],
        ),
        (
            good.replace("step = 10", "step = 10\nstart = 120"),
            vec![
                "bad.toml:26:9",
                "param[1].start",
                "starts at 120, outside [min, max]",
            ],
        ),
        (
            good.replace("name = \"noise\"", "name = \"no ise\"\nstart = 3"),
            vec!["param[1].name", "letters, digits"],
        ),
        (
            good.replace("seed = 5", "seed = 5\nst = \"fast\""),
            vec!["bad.toml:4:6", "key 'st'", "needs a unit"],
        ),
        (
            good.replace(
                "protocol = \"line\"",
                "protocol = \"line\"\ndepth = 3\ntie_break = true",
            ),
            vec!["engine.tie_break", "belongs to built-in engines"],
        ),
        (
            good.replace("protocol = \"line\"", "protocol = \"gtp\""),
            vec!["engine.protocol", "plays othello, not connect4"],
        ),
        // A pool engine must be built in.
        (
            format!(
                "{}\n[[pool]]\nname = \"p\"\ncommand = \"python3\"\nprotocol = \"line\"\n",
                good.replace("seed = 5", "seed = 5\nopponent = \"pool\"")
            ),
            vec!["pool[1].command", "a pool engine is built in"],
        ),
    ];
    for (text, expected) in &cases {
        common::refused_spec(&dir, "tune", text, &[], expected);
    }
    // A program that does not answer the handshake: refused before any game (after the lines
    // that say what the run is), exit 2.
    let path = dir.join("silent.toml");
    let text = good.replace(
        "args = [\"-S\"",
        "args = [\"-c\", \"print('hello')\", \"-S\"",
    );
    std::fs::write(&path, text).unwrap();
    let out = Command::cargo_bin("joute")
        .unwrap()
        .args(["tune", path.to_str().unwrap(), "--out"])
        .arg(dir.join("silent"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let last = stderr.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with("error: engine 'tuned' (")
            && last.contains("did not start: ")
            && last.contains("it wrote 1 line that is no answer (passed over): 'hello'"),
        "{stderr}"
    );
    assert!(
        !dir.join("silent/history.jsonl").is_file()
            || common::history(&dir.join("silent")).is_empty()
    );
    // A built-in engine refuses the outside engine's keys: an option start, a clock.
    let built_in = good
        .replace("command = ", "# command = ")
        .replace("args = ", "# args = ")
        .replace("protocol = ", "# protocol = ")
        .replace("options = ", "# options = ")
        .replace(
            "[engine]\n",
            "[engine]\nalgorithm = \"alphabeta\"\ndepth = 2\n",
        );
    let features = built_in.replace("name = \"noise\"", "name = \"own_threes\"");
    common::refused_spec(
        &dir,
        "tune",
        &features.replace("step = 10", "step = 10\nstart = 3"),
        &[],
        &[
            "param[1].start",
            "start belongs to an outside engine's option",
        ],
    );
    common::refused_spec(
        &dir,
        "tune",
        &features.replace("step = 10", "step = 10\ninteger = true"),
        &[],
        &[
            "param[1].integer",
            "integer belongs to an outside engine's option",
        ],
    );
    common::refused_spec(
        &dir,
        "tune",
        &features.replace("seed = 5", "seed = 5\ntc = \"10+0.1\""),
        &[],
        &[
            "bad.toml:4:6",
            "key 'tc'",
            "the clock of an outside engine's games",
        ],
    );
    // An option name given to a built-in engine is no feature of its game.
    common::refused_spec(
        &dir,
        "tune",
        &built_in,
        &[],
        &["param[1].name", "'noise' is not a feature of connect4"],
    );
}

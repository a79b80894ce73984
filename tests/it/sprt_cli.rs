//! The SPRT from the command line: `--sprt`'s forms and refusals, the `--json` object a script
//! reads, `--sprt-exit-code`, the head-to-head block every `--report-every` games, the words of
//! an interrupted test, and the openings a match says it lengthened.

use crate::common::{self, bin, joute};
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `joute match connect4 random random --games GAMES --json --sprt SPRT EXTRA`: its exit code
/// and JSON object.
fn json_match(sprt: &str, games: &str, extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec![
        "match", "connect4", "random", "random", "--games", games, "--json", "--sprt", sprt,
    ];
    args.extend(extra);
    let out = joute().args(&args).output().unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}

#[test]
fn every_form_of_sprt_is_accepted_and_named_in_the_json() {
    // (form, model, alpha, beta, elo0, elo1)
    let forms = [
        ("0,10", "logistic", 0.05, 0.05, 0.0, 10.0),
        ("-5,5", "logistic", 0.05, 0.05, -5.0, 5.0),
        ("0,10,normalized", "normalized", 0.05, 0.05, 0.0, 10.0),
        ("0, 10, normalised", "normalized", 0.05, 0.05, 0.0, 10.0),
        ("elo0=0,elo1=10", "logistic", 0.05, 0.05, 0.0, 10.0),
        (
            "elo0=0,elo1=10,alpha=0.05,beta=0.05,model=normalized",
            "normalized",
            0.05,
            0.05,
            0.0,
            10.0,
        ),
        (
            "model=logistic,beta=0.2,elo1=3.5,alpha=0.1,elo0=-1",
            "logistic",
            0.1,
            0.2,
            -1.0,
            3.5,
        ),
    ];
    for (form, model, alpha, beta, elo0, elo1) in forms {
        let (code, json) = json_match(form, "4", &[]);
        assert_eq!(code, Some(0), "{form}: {json}");
        let s = &json["sprt"];
        assert_eq!(s["model"], model, "{form}: {s}");
        assert_eq!(s["alpha"].as_f64(), Some(alpha), "{form}: {s}");
        assert_eq!(s["beta"].as_f64(), Some(beta), "{form}: {s}");
        assert_eq!(s["elo0"].as_f64(), Some(elo0), "{form}: {s}");
        assert_eq!(s["elo1"].as_f64(), Some(elo1), "{form}: {s}");
        // Wald's bounds, computed here.
        let (lower, upper) = ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln());
        assert!((s["lower"].as_f64().unwrap() - lower).abs() < 1e-12, "{s}");
        assert!((s["upper"].as_f64().unwrap() - upper).abs() < 1e-12, "{s}");
        // Two pairs of random play cannot reach ±2.9 (nor ±1.5 for α = 0.1, β = 0.2 with
        // bounds 4.5 Elo apart): undecided at the cap.
        assert_eq!(s["result"], "undecided", "{form}: {s}");
        assert_eq!(s["decision"], Value::Null, "{form}: {s}");
        assert!(
            s["llr"].as_f64().unwrap().abs() < lower.abs().min(upper),
            "{s}"
        );
    }
}

#[test]
fn a_wrong_sprt_is_refused_naming_what_is_wrong() {
    let with =
        |sprt: &str| ["match", "connect4", "random", "random", "--sprt", sprt].map(String::from);
    let cases: [(&str, &[&str]); 12] = [
        ("0", &["--sprt '0'", "not two bounds", "elo0=E0,elo1=E1"]),
        ("0,10,20,30", &["not two bounds"]),
        (
            "0,10,probit",
            &["unknown model 'probit'", "logistic, normalized"],
        ),
        ("a,b", &["ELO0 'a' is not a number"]),
        ("10,0", &["elo1 (0) must be greater than elo0 (10)"]),
        ("0,inf", &["ELO1 'inf' is not a number"]),
        (
            "elo0=0,elo1=10,alfa=0.05",
            &["unknown key 'alfa'", "did you mean 'alpha'?"],
        ),
        (
            "elo0=0,elo1=10,gamma=1",
            &[
                "unknown key 'gamma'",
                "keys: elo0, elo1, alpha, beta, model",
            ],
        ),
        ("elo0=0", &["elo1 is missing"]),
        (
            "elo0=0,elo1=10,alpha=0.5",
            &["alpha 0.5 is out of range", "between 0 and 0.5"],
        ),
        ("elo0=0,elo1=10,beta=0", &["beta 0 is out of range"]),
        ("elo0=0,elo0=1,elo1=3", &["elo0 is given twice"]),
    ];
    for (sprt, expected) in cases {
        let args = with(sprt);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::refused(&args, expected);
    }
    common::refused(
        &with("elo0=0,10").each_ref().map(String::as_str),
        &["'10' is not KEY=VALUE"],
    );
    common::refused(
        &with("elo0=0,elo1=10,model=probit")
            .each_ref()
            .map(String::as_str),
        &["unknown model 'probit'"],
    );
    // The spec's range rule still holds on the command line.
    common::refused(
        &with("elo0=0,elo1=5000").each_ref().map(String::as_str),
        &["out of range", "-1000..=1000"],
    );
}

/// `joute match connect4 A B --sprt SPRT --games 2000 --json --sprt-exit-code EXTRA`: its exit
/// code and its JSON.
fn exit_coded(engines: [&str; 2], sprt: &str, extra: &[&str]) -> (Option<i32>, Value) {
    let out = joute()
        .args(["match", "connect4", engines[0], engines[1], "--sprt", sprt])
        .args(["--games", "2000", "--json", "--sprt-exit-code"])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

#[test]
fn sprt_exit_code_tells_h0_from_h1_and_undecided() {
    // Depth 4 against random: H1 of [0, 50] within a few dozen pairs (an_sprt_stops_as_soon_as_it_decides).
    let (code, json) = exit_coded(
        ["alphabeta:4", "random"],
        "elo0=0,elo1=50",
        &["--threads", "2"],
    );
    assert_eq!(json["sprt"]["result"], "H1", "{json}");
    assert_eq!(code, Some(0));
    // Equal engines against [0, 200]: H0.
    let (code, json) = exit_coded(["alphabeta:2", "alphabeta:2"], "0,200", &[]);
    assert_eq!(json["sprt"]["result"], "H0", "{json}");
    assert_eq!(code, Some(10));
    // The cap first: undecided, 11; the same run without the flag exits 0.
    let (code, json) = json_match("0,10", "4", &["--sprt-exit-code"]);
    assert_eq!(json["sprt"]["result"], "undecided", "{json}");
    assert_eq!(code, Some(11));
    assert_eq!(json_match("0,10", "4", &[]).0, Some(0));
    // Not in text mode either: the report is printed, then the code.
    let out = joute()
        .args([
            "match",
            "connect4",
            "random",
            "random",
            "--games",
            "4",
            "--sprt",
            "0,10",
            "--sprt-exit-code",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(11));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("SPRT: no decision within the game cap of 4 games"),
        "{stdout}"
    );
}

/// The pentanomial count of pairs `0..pairs` of a log, computed here from its games: pair `k`
/// is games `2k` and `2k + 1`; `a` is the engine whose points count.
fn pentanomial(log: &std::path::Path, a: &str, pairs: u64) -> [u64; 5] {
    let mut points = vec![[None::<f64>; 2]; pairs as usize];
    for g in common::jsonl(log) {
        let id = g["id"].as_u64().unwrap();
        if id >= 2 * pairs {
            continue;
        }
        let first_is_a = g["first"] == a;
        let score = g["score"].as_f64().unwrap();
        points[(id / 2) as usize][(id % 2) as usize] =
            Some(if first_is_a { score } else { 1.0 - score });
    }
    let mut counts = [0; 5];
    for [x, y] in points {
        counts[((x.unwrap() + y.unwrap()) * 2.0).round() as usize] += 1;
    }
    counts
}

#[test]
fn the_block_is_printed_every_n_games_while_the_run_plays() {
    let dir = common::scratch("report-every");
    let out = dir.join("m");
    // Random against random with normalised bounds 10 nElo apart: 20 pairs move the LLR by a
    // few tenths, nowhere near ±2.94, so the test cannot decide before the end.
    let output = joute()
        .args(["match", "connect4", "random", "random", "--games", "40"])
        .args([
            "--report-every",
            "10",
            "--sprt",
            "0,10,normalized",
            "--threads",
            "1",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    // At 10, 20 and 30 games on stderr; at 40 the final block on stdout says it all.
    let blocks: Vec<&str> = stderr.split("Results of ").skip(1).collect();
    let log = out.join("games.jsonl");
    assert_eq!(blocks.len(), 3, "{stderr}");
    for (k, block) in blocks.iter().enumerate() {
        let games = 10 * (k as u64 + 1);
        assert!(
            block.starts_with(&format!(
                "random#1 vs random#2 (connect4, {games} games, seed 1)"
            )),
            "{block}"
        );
        let counts = pentanomial(&log, "random#1", games / 2);
        let text = counts.map(|c| c.to_string()).join(", ");
        assert!(block.contains(&format!("Ptnml(0-2): [{text}]")), "{block}");
        assert!(
            block.contains("LLR: ") && block.contains("[0.00, 10.00] normalized"),
            "{block}"
        );
        assert!(
            block.contains(&format!(
                "SPRT: undecided after {} pairs ({games} of at most 40 games)",
                games / 2
            )),
            "{block}"
        );
    }
    assert!(!stdout.contains("SPRT: undecided after"), "{stdout}");
    assert!(
        stdout.contains("SPRT: no decision within the game cap of 40 games"),
        "{stdout}"
    );
    // The header line names the openings.
    assert!(
        stderr.contains("playing up to 40 games on 1 thread"),
        "{stderr}"
    );
    assert!(
        stderr.contains("openings: random, 4 plies, 20 openings"),
        "{stderr}"
    );

    // 0 turns it off, --quiet and --json print none.
    for extra in [
        ["--report-every", "0"],
        ["--quiet", "--report-every"],
        ["--json", "--report-every"],
    ] {
        let mut args = vec![
            "match",
            "connect4",
            "random",
            "random",
            "--games",
            "20",
            "--threads",
            "1",
        ];
        args.extend(extra);
        if extra[1] == "--report-every" {
            args.push("2");
        }
        let output = joute().args(&args).output().unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("Results of"), "{args:?}: {stderr}");
        if extra[0] == "--json" {
            let _: Value = serde_json::from_slice(&output.stdout).unwrap();
        }
    }
}

#[test]
fn an_interrupted_sprt_says_it_was_interrupted_undecided() {
    let dir = common::scratch("sprt-interrupted");
    let out = dir.join("m");
    // Close engines and narrow bounds: hundreds of pairs before a decision.
    let child = Command::new(bin())
        .args(["match", "connect4", "pvs:7", "alphabeta:6", "--sprt", "0,5"])
        .args(["--games", "2000", "--threads", "2", "--out"])
        .arg(&out)
        .args(["--report-every", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = out.join("games.jsonl");
    let clock = Instant::now();
    while common::lines_in(&log) < 8 && clock.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: kill(2) on the child's pid, which it still is (the child is not reaped yet).
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{stdout}");
    let logged = common::lines_in(&log) as u64;
    let pairs = (0..)
        .take_while(|&k| {
            let ids: Vec<u64> = common::jsonl(&log)
                .iter()
                .map(|g| g["id"].as_u64().unwrap())
                .collect();
            ids.contains(&(2 * k)) && ids.contains(&(2 * k + 1))
        })
        .count();
    let line = stdout
        .lines()
        .find(|l| l.starts_with("SPRT: "))
        .unwrap_or_else(|| panic!("no SPRT line in {stdout}"));
    assert!(
        line.starts_with(&format!(
            "SPRT: interrupted undecided after {pairs} pairs ({logged} of at most 2000 games): the LLR "
        )),
        "{line}"
    );
    assert!(
        line.ends_with("is between its bounds (-2.94, 2.94)"),
        "{line}"
    );
    assert!(
        !stdout.contains("no decision within the game cap"),
        "{stdout}"
    );
}

/// 4200 games of random against random at Othello: more distinct openings than 6 plies give.
const RANDOM_OTHELLO_4200: [&str; 6] = ["match", "othello", "random", "random", "--games", "4200"];

#[test]
fn a_match_says_when_it_lengthens_its_openings_and_names_them() {
    // 2100 pairs: Othello's openings are 8 plies, not 6.
    let output = joute()
        .args(RANDOM_OTHELLO_4200)
        .args(["--threads", "2"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("rather than the usual"))
        .collect();
    assert_eq!(
        said,
        [
            "openings: 8 plies rather than the usual 6, for 2100 distinct openings (4200 games; 6 plies seldom give that many balanced ones); --openings PLIES chooses"
        ],
        "{stderr}"
    );
    assert!(
        stderr.contains("; openings: random, 8 plies, 2100 openings"),
        "{stderr}"
    );
    // Not in --json's stdout.
    let output = joute()
        .args(RANDOM_OTHELLO_4200)
        .arg("--json")
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["games"], 4200);
    // The usual 6 plies: nothing to say but the header.
    let output = joute()
        .args(["match", "othello", "random", "random", "--games", "100"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("rather than the usual"), "{stderr}");
    assert!(
        stderr.contains("; openings: random, 6 plies, 50 openings"),
        "{stderr}"
    );
    // Plies the user chose are not remarked on.
    let output = joute()
        .args(RANDOM_OTHELLO_4200)
        .args(["--openings", "10"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("rather than the usual"), "{stderr}");
    assert!(
        stderr.contains("; openings: random, 10 plies, 2100 openings"),
        "{stderr}"
    );
}

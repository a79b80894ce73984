//! Helpers shared by the command-line test suites.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub mod devtools;
pub mod specs;

/// A small Othello tournament of four algorithms at several depths (60 games, a few seconds):
/// their costs differ by orders of magnitude, random counts no nodes and loses every game.
pub const OTHELLO_COSTS: &str = r#"
name = "othello-costs"
game = "othello"
seed = 11
openings = { plies = 4, count = 3 }

[[engine]]
name = "random"
algorithm = "random"

[[engine]]
name = "alphabeta-2"
algorithm = "alphabeta"
depth = 2

[[engine]]
name = "mtdf-3"
algorithm = "mtdf"
depth = 3

[[engine]]
name = "pvs-5"
algorithm = "pvs"
depth = 5

[[engine]]
name = "mcts-400"
algorithm = "mcts"
playouts = 400
"#;

/// The joute binary under test.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("joute")
}

/// `path` (relative to the repository's root) as an absolute path.
pub fn manifest(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

/// A fresh folder under the system's temporary directory, removed with everything in it when
/// the value is dropped (a failing test included): `cargo test` leaves nothing behind.
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// A fresh scratch folder named after the calling suite's file (`tune.rs`: `joute-tune-NAME-…`)
/// and `name`.
#[track_caller]
pub fn scratch(name: &str) -> Scratch {
    let file = std::panic::Location::caller().file();
    let suite = Path::new(file)
        .file_stem()
        .map_or("test".into(), |s| s.to_string_lossy());
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("joute-{suite}-{name}-"))
            .tempdir()
            .unwrap(),
    )
}

/// The joute binary, ready to take arguments.
pub fn joute() -> Command {
    Command::cargo_bin("joute").unwrap()
}

/// Runs joute with `args`, expects success, and returns its standard output.
pub fn joute_ok(args: &[&str]) -> String {
    let out = Command::cargo_bin("joute")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `joute COMMAND INPUT --out OUT EXTRA…`, expects success, and returns its standard
/// output: a run, report or tune of one file into one folder.
pub fn joute_to(command: &str, input: &Path, out: &Path, extra: &[&str]) -> String {
    let (input, out) = (input.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec![command, input, "--out", out];
    args.extend(extra);
    joute_ok(&args)
}

/// [`joute_to`] with `--json`, its output parsed.
pub fn joute_json(command: &str, input: &Path, out: &Path) -> serde_json::Value {
    serde_json::from_str(&joute_to(command, input, out, &["--json"])).unwrap()
}

/// Runs `joute match ARGS --out OUT --quiet` and expects success.
pub fn match_quietly(out: &Path, args: &[&str]) {
    let mut args = [&["match"], args].concat();
    args.extend(["--out", out.to_str().unwrap(), "--quiet"]);
    joute_ok(&args);
}

/// [`match_quietly`], returning the path of the games log it wrote.
pub fn match_log(out: &Path, args: &[&str]) -> String {
    match_quietly(out, args);
    format!("{}/games.jsonl", out.display())
}

/// The `interrupted: …` line of an interrupted run's `stdout`, checked to count `logged` of
/// `total` games and to end with the command that resumes the run.
#[track_caller]
pub fn resume_line(stdout: &str, logged: usize, total: usize) -> String {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("interrupted: "))
        .unwrap_or_else(|| panic!("no resume line in {stdout}"));
    assert!(
        line.contains(&format!("{logged} of {total} games")) && line.ends_with("--resume"),
        "{line}"
    );
    line.to_string()
}

/// The indices, in `game`'s `moves`, of the moves `engine` made (the opening's length says
/// who moved first after it).
pub fn moves_by(game: &serde_json::Value, engine: &str) -> Vec<usize> {
    let opening = game["opening"].as_array().unwrap().len();
    let plies = game["moves"].as_array().unwrap().len();
    (0..plies)
        .filter(|i| {
            let mover = if (opening + i).is_multiple_of(2) {
                &game["first"]
            } else {
                &game["second"]
            };
            mover.as_str().unwrap() == engine
        })
        .collect()
}

/// Runs `joute ARGS` in `dir` (the programs a spec names run there too), without input.
pub fn joute_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// Writes `text` as `dir/spec.toml`, runs it quietly into `dir/out`, and returns `dir/out`.
pub fn run_spec(dir: &Path, text: &str) -> PathBuf {
    let spec = dir.join("spec.toml");
    std::fs::write(&spec, text).unwrap();
    let out = dir.join("out");
    joute_to("run", &spec, &out, &["--quiet"]);
    out
}

/// Lines in the file at `path` (0 when it cannot be read).
pub fn lines_in(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

/// Starts `joute ARGS` (its output dropped) and returns once `log` holds `target` lines or the
/// run has ended.
pub fn start_until_lines(args: &[&str], log: &Path, target: usize) -> std::process::Child {
    let mut child = std::process::Command::new(bin())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() && lines_in(log) < target {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    child
}

/// Runs `joute ARGS` and SIGKILLs it as soon as `log` holds `target` lines; returns the lines
/// the log held then, or `None` when the run ended before (it is waited for either way).
pub fn kill_at_lines(args: &[&str], log: &Path, target: usize) -> Option<usize> {
    let mut child = start_until_lines(args, log, target);
    let killed = child.try_wait().unwrap().is_none().then(|| {
        child.kill().unwrap(); // SIGKILL on Unix: no exit path of joute's runs
        lines_in(log)
    });
    child.wait().unwrap();
    killed
}

/// A weights file's lines but its comments (whose header carries a run's time and paths).
pub fn weights_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The lines of a JSON Lines file, read.
pub fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A tuning run's `history.jsonl` in `dir` without its wall-clock times (the run's, and a
/// regression round's fit's), the one thing that differs between runs.
pub fn history(dir: &Path) -> Vec<serde_json::Value> {
    jsonl(&dir.join("history.jsonl"))
        .into_iter()
        .map(|mut v| {
            let o = v.as_object_mut().unwrap();
            o.remove("seconds");
            if let Some(fit) = o.get_mut("fit").and_then(|f| f.as_object_mut()) {
                fit.remove("seconds");
            }
            v
        })
        .collect()
}

/// A game line without the machine's timings (`GameLine::TIMING_FIELDS`: its wall-clock
/// seconds, each move's wall and CPU time): what replays bit for bit.
pub fn untimed(mut game: serde_json::Value) -> serde_json::Value {
    let object = game.as_object_mut().unwrap();
    for field in joute::arena::log::GameLine::TIMING_FIELDS {
        object.remove(field);
    }
    game
}

/// `value` without the cost figures that come from the machine's clocks
/// (`CostFigures::TIMING_FIELDS`), in every `cost` object at any depth: what replays bit for bit.
pub fn untimed_costs(mut value: serde_json::Value) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                for (key, inner) in map.iter_mut() {
                    if key == "cost" {
                        let sides = match inner {
                            serde_json::Value::Array(a) => a.iter_mut().collect(),
                            other => vec![other],
                        };
                        for side in sides.into_iter().filter_map(|s| s.as_object_mut()) {
                            for field in joute::stats::cost::CostFigures::TIMING_FIELDS {
                                side.remove(field);
                            }
                        }
                    } else {
                        strip(inner);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut value);
    value
}

/// A command's terminal output without its cost table (whose times differ between identical
/// runs): the lines from `Rank Cost of` to the legend under it.
pub fn without_cost_table(text: &str) -> String {
    let mut inside = false;
    text.lines()
        .filter(|l| {
            if l.starts_with("Rank Cost of") {
                inside = true;
            }
            let keep = !inside;
            if inside && l.starts_with("  per move:") {
                inside = false;
            }
            keep && !l.starts_with("moves starved of CPU")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The games of a log in file order, without the machine's timings ([`untimed`]).
pub fn untimed_games(log: &Path) -> Vec<serde_json::Value> {
    jsonl(log).into_iter().map(untimed).collect()
}

/// The games of `logs` by id, without the machine's timings ([`untimed`]); a game logged twice
/// fails.
pub fn games_by_id(logs: &[PathBuf]) -> std::collections::BTreeMap<u64, serde_json::Value> {
    let mut all = std::collections::BTreeMap::new();
    for log in logs {
        for v in untimed_games(log) {
            let id = v["id"].as_u64().unwrap();
            assert!(all.insert(id, v).is_none(), "game {id} twice");
        }
    }
    all
}

/// The games of a log as the library reads them, by id.
pub fn game_lines(log: &Path) -> Vec<joute::arena::log::GameLine> {
    let mut games = Vec::new();
    joute::arena::log::scan_log(log, |g| {
        games.push(g);
        Ok(())
    })
    .unwrap();
    games.sort_by_key(|g| g.id);
    games
}

/// Runs `joute ARGS` (in `dir`, when given) and checks that it refused its input as every
/// refusal must: exit code 2, nothing on stdout, one line on stderr of at most 300 characters
/// that starts `error: ` and holds no raw control character (and no panic), with every piece
/// of `expected` in it. Returns that line.
pub fn refused_in(dir: Option<&Path>, args: &[&str], expected: &[&str]) -> String {
    let mut command = std::process::Command::new(bin());
    command.args(args).stdin(std::process::Stdio::null());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.ends_with('\n'), "{args:?}: {stderr:?}");
    let line = stderr.trim_end_matches('\n');
    assert!(line.starts_with("error: "), "{args:?}: {line}");
    assert!(line.chars().count() <= 300, "{} chars: {line}", line.len());
    assert!(
        !line.chars().any(char::is_control),
        "a raw control character in: {line:?}"
    );
    for piece in expected {
        assert!(line.contains(piece), "{args:?}: '{piece}' not in {line}");
    }
    assert!(
        out.stdout.is_empty(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    line.to_string()
}

/// [`refused_in`] the current folder.
pub fn refused(args: &[&str], expected: &[&str]) -> String {
    refused_in(None, args, expected)
}

/// Writes `text` as `dir/bad.toml`, runs `joute COMMAND dir/bad.toml --out dir/out EXTRA` and
/// checks that it is refused ([`refused_in`]).
pub fn refused_spec(
    dir: &Path,
    command: &str,
    text: &str,
    extra: &[&str],
    expected: &[&str],
) -> String {
    let path = dir.join("bad.toml");
    std::fs::write(&path, text).unwrap();
    let out = dir.join("out");
    let mut args = vec![
        command,
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    refused_in(None, &args, expected)
}

/// A Connect 4 run slow enough to be killed in the middle (3 pairings × 120 games), written as
/// `dir/slow.toml`.
pub fn slow_spec(dir: &Path) -> PathBuf {
    let path = dir.join("slow.toml");
    let text = specs::spec("slow", "connect4", 5, 4, 60).engines(&["ab-4", "ab-6", "pvs-7"]);
    std::fs::write(&path, text.text()).unwrap();
    path
}

/// Whether process `pid` runs (a zombie does not).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
    })
}

/// The running processes whose command line holds `marker` (Linux: read from `/proc`; a
/// zombie is not running): the orphan checks of the outside-engine suites.
pub fn running_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let holds = cmdline
            .windows(marker.len())
            .any(|w| w == marker.as_bytes());
        if holds && alive(pid) {
            found.push(pid);
        }
    }
    found
}

/// The Elo of a score, written again for the tests: `-400 log10(1/s - 1)`.
pub fn elo_of_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// A Chromium on PATH (`chromium`, `chromium-browser` or `google-chrome`), if any.
#[allow(dead_code)]
pub fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Loads `url` in headless `browser` with `budget_ms` of virtual time and returns the JSON
/// the report page's self-test wrote into its `<pre id="selftest">`.
#[allow(dead_code)]
pub fn page_selftest(browser: &Path, url: &str, budget_ms: u32) -> serde_json::Value {
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            &format!("--virtual-time-budget={budget_ms}"),
            "--dump-dom",
            url,
        ])
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"selftest\" hidden=\"\">")
        .unwrap_or_else(|| {
            panic!(
                "no self-test in the DOM; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let rest = &dom[start..];
    let text = &rest[rest.find('>').unwrap() + 1..rest.find("</pre>").unwrap()];
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("self-test is not JSON ({e}): {text}"))
}

/// A Connect 4 tuning spec writing its weights into `dir`; `extra` is appended (method
/// settings, more keys).
pub fn tune_spec_text(dir: &Path, method: &str, budget: &str, extra: &str) -> String {
    format!(
        r#"name = "t"
game = "connect4"
seed = 5
method = "{method}"
weights_out = "{}"

[engine]
algorithm = "alphabeta"
depth = 2
weights = "{}/weights/connect4-centre.toml"

[openings]
plies = 6

[budget]
{budget}

[confirm]
games = 200
aa_games = 40

[[param]]
name = "own_threes"
min = -20
max = 40
step = 4

[[param]]
name = "own_immediate"
min = -20
max = 100
step = 10
{extra}"#,
        dir.join("tuned.toml").display(),
        env!("CARGO_MANIFEST_DIR")
    )
}

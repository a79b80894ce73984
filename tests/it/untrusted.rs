//! Untrusted programs held fairly and safely (`docs/protocols.md`, "Untrusted programs"):
//! resource limits met and lost by `limit`, confinement, programs paused off their turn,
//! restarted for every game, pinned to cores. The programs are the fake engine of
//! `tests/engines/fake.py` (misbehaving on request) and the example Connect 4 engine of
//! `examples/engines/connect4.py` (deterministic).
//!
//! Linux only: the engines are `python3` scripts, and the checks read `/proc`.
#![cfg(target_os = "linux")]

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::manifest;
use crate::outside::{engine_log, games, quoted, run, run_ok};

/// A spec of Connect 4 with `count` random openings of 2 plies, the lines `top` at its top,
/// the example engine (started by `sh`, which first writes `start` to stderr: `$$` is the
/// engine's own process id, as `exec` keeps it) with the lines `engine` in its table, and
/// alphabeta at depth 3.
fn example_spec(count: u32, top: &str, start: &str, engine: &str) -> String {
    let script = format!(
        "{start} >&2; exec python3 {}",
        manifest("examples/engines/connect4.py")
    );
    format!(
        "name = \"t\"\ngame = \"connect4\"\nseed = 3\nopenings = {{ plies = 2, count = {count} }}\n{top}\n\n\
         [[engine]]\nname = \"example\"\ncommand = \"sh\"\nargs = [\"-c\", {}]\nprotocol = \"line\"\n{engine}\n\n\
         [[engine]]\nname = \"ab\"\nalgorithm = \"alphabeta\"\ndepth = 3\n",
        quoted(&script)
    )
}

/// The games of `out` as (id, first, result, moves): what a game is, whatever its timings.
fn played(out: &Path) -> Vec<(u64, String, String, String)> {
    games(out)
        .iter()
        .map(|g| {
            (
                g["id"].as_u64().unwrap(),
                g["first"].as_str().unwrap().to_string(),
                g["result"].as_str().unwrap().to_string(),
                g["moves"].to_string(),
            )
        })
        .collect()
}

#[test]
fn restart_per_game_starts_a_fresh_process_for_every_game_and_changes_no_game() {
    let dir = tempfile::tempdir().unwrap();
    let kept = example_spec(3, "", "echo \"pid $$\"", "");
    run_ok(dir.path(), &kept, &["--threads", "1"]);
    let restarted = example_spec(3, "", "echo \"pid $$\"", "restart = \"game\"");
    std::fs::rename(dir.path().join("out"), dir.path().join("kept")).unwrap();
    run_ok(dir.path(), &restarted, &["--threads", "1"]);
    let pids = |out: &str| -> Vec<u32> {
        engine_log(&dir.path().join(out), "example")
            .into_iter()
            .filter(|(_, text)| text.starts_with("pid "))
            .map(|(pid, text)| {
                assert_eq!(text, format!("pid {pid}"), "the log's pid is the process's");
                pid
            })
            .collect()
    };
    let games_played = games(&dir.path().join("out")).len();
    assert_eq!(games_played, 6);
    // One process per game, all different (the check before a fresh run logs nowhere).
    let fresh = pids("out");
    assert_eq!(fresh.len(), games_played, "{fresh:?}");
    assert_eq!(fresh.iter().collect::<BTreeSet<_>>().len(), fresh.len());
    // Kept: one process for all the games.
    assert_eq!(pids("kept").len(), 1);
    assert_eq!(
        played(&dir.path().join("out")),
        played(&dir.path().join("kept"))
    );
}

/// The CPU sets the example engine's processes reported at start (`Cpus_allowed_list` of
/// `/proc/self/status`, read by the `sh` that then becomes the engine).
fn reported_cpu_sets(out: &Path) -> Vec<String> {
    engine_log(out, "example")
        .into_iter()
        .filter_map(|(_, text)| {
            text.strip_prefix("Cpus_allowed_list:")
                .map(|s| s.trim().to_string())
        })
        .collect()
}

#[test]
fn affinity_pins_each_game_and_its_program_to_cores_of_its_own() {
    let cores = joute::arena::affinity::cpus().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let report = "grep Cpus_allowed_list /proc/self/status";
    let threads = cores.len().min(4);
    let text = example_spec(4, "affinity = true", report, "restart = \"game\"");
    run_ok(dir.path(), &text, &["--threads", &threads.to_string()]);
    let sets = reported_cpu_sets(&dir.path().join("out"));
    // Every game's process runs on its worker's block (the check before a fresh run, from the
    // main thread, logs nowhere).
    let blocks = joute::arena::affinity::partition(&cores, threads);
    let texts: BTreeSet<String> = blocks
        .iter()
        .map(|b| joute::arena::affinity::list_text(b))
        .collect();
    let all = joute::arena::affinity::list_text(&cores);
    assert_eq!(sets.len(), games(&dir.path().join("out")).len());
    for set in &sets {
        assert!(
            texts.contains(set),
            "{set} is no worker's block of {texts:?}"
        );
    }
    if threads > 1 {
        assert!(sets.iter().collect::<BTreeSet<_>>().len() > 1, "{sets:?}");
    }
    // Without affinity, every process may run anywhere.
    let free = example_spec(2, "", report, "restart = \"game\"");
    std::fs::remove_dir_all(dir.path().join("out")).unwrap();
    run_ok(dir.path(), &free, &["--threads", &threads.to_string()]);
    for set in reported_cpu_sets(&dir.path().join("out")) {
        assert_eq!(set, all);
    }
}

#[test]
fn affinity_refuses_more_games_than_cores_on_a_clock_unless_told_to_oversubscribe() {
    let cores = joute::arena::affinity::cpus().unwrap().len();
    let dir = tempfile::tempdir().unwrap();
    let text = example_spec(2, "affinity = true\nst = \"50ms\"", "true", "");
    let too_many = (cores + 1).to_string();
    let out = run(dir.path(), &text, &["--threads", &too_many]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{too_many} games at once on {cores} cores"))
            && stderr.contains("--oversubscribe"),
        "{stderr}"
    );
    assert!(!dir.path().join("out").join("games.jsonl").exists());
    run_ok(
        dir.path(),
        &text,
        &["--threads", &too_many, "--oversubscribe"],
    );
    // Off the clock, games may share cores.
    let unclocked = example_spec(2, "affinity = true", "true", "");
    std::fs::remove_dir_all(dir.path().join("out")).unwrap();
    run_ok(dir.path(), &unclocked, &["--threads", &too_many]);
}

/// `joute run` on `text` in a fresh folder: exit status 2 and its stderr.
fn refused(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), text, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    stderr
}

#[test]
fn bad_guard_keys_are_refused_with_their_place() {
    let e = |engine: &str| refused(&example_spec(1, "", "true", engine));
    let s = e("memory_limit = \"5 parsecs\"");
    assert!(
        s.contains("engine[1].memory_limit") && s.contains("'5 parsecs'"),
        "{s}"
    );
    let s = e("process_limit = 0");
    assert!(
        s.contains("engine[1].process_limit") && s.contains("allowed: 1 to"),
        "{s}"
    );
    let s = e("cpu_limit = \"10\"");
    assert!(s.contains("cpu_limit '10' needs a unit"), "{s}");
    let s = e("restart = \"sometimes\"");
    assert!(s.contains("unknown restart 'sometimes'"), "{s}");
    let s = e("readable = [\"/\"]");
    assert!(s.contains("goes with confine = true"), "{s}");
    let s = e("confine = true\nreadable = [\"no/such/folder\"]");
    assert!(
        s.contains("engine[1].readable") && s.contains("no file or folder at 'no/such/folder'"),
        "{s}"
    );
    let s = refused(&example_spec(
        1,
        "[outside]\nwrite_limit = \"0\"",
        "true",
        "",
    ));
    assert!(
        s.contains("outside.write_limit") && s.contains("write_limit is 0"),
        "{s}"
    );
    // A built-in engine is no program to hold.
    let text = example_spec(1, "", "true", "").replace("depth = 3", "depth = 3\npause = true");
    let s = refused(&text);
    assert!(
        s.contains("engine[2].pause") && s.contains("belongs to outside programs"),
        "{s}"
    );
    // [outside] with no outside engine.
    let built_in = "name = \"t\"\ngame = \"connect4\"\nseed = 1\nopenings = { plies = 2, count = 1 }\n\
                    [outside]\npause = true\n[[engine]]\nname = \"a\"\nalgorithm = \"random\"\n\
                    [[engine]]\nname = \"b\"\nalgorithm = \"random\"\n";
    let s = refused(built_in);
    assert!(
        s.contains("'outside'") && s.contains("this spec has none"),
        "{s}"
    );
}

/// The system's own Python: a version manager's shim (pyenv's, in the home folder) is out of a
/// confined program's reach unless listed in `readable`.
fn system_python() -> Option<&'static str> {
    ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
}

/// The stderr lines `fake: ...` of the fake's processes in the run `out`.
fn fake_says(out: &Path) -> Vec<String> {
    engine_log(out, "fake")
        .into_iter()
        .map(|(_, text)| text)
        .filter(|t| t.starts_with("fake: "))
        .collect()
}

#[test]
fn a_confined_program_is_refused_what_is_not_its_own_and_plays_every_game() {
    if joute::arena::confine::landlock_abi().is_none() {
        eprintln!("skipped: this kernel has no Landlock");
        return;
    }
    let Some(python) = system_python() else {
        eprintln!("skipped: no system python3");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let secret = elsewhere.path().join("secret.txt");
    std::fs::write(&secret, "another engine's book").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let into_run = dir.path().join("out").join("stolen.txt");
    let flags = [
        "--try-read",
        secret.to_str().unwrap(),
        "--try-write",
        into_run.to_str().unwrap(),
        "--try-connect",
        &format!("127.0.0.1:{port}"),
    ];
    let play = |engine: &str| {
        let text = crate::outside::spec("connect4", 2, "", "line", &flags, engine).replace(
            "command = \"python3\"",
            &format!("command = {}", quoted(python)),
        );
        let _ = std::fs::remove_dir_all(dir.path().join("out"));
        let (stdout, _) = run_ok(dir.path(), &text, &["--threads", "1"]);
        let all = games(&dir.path().join("out"));
        assert_eq!(all.len(), 4);
        for g in &all {
            assert_eq!(g["termination"], "normal", "{g}");
        }
        (fake_says(&dir.path().join("out")), stdout)
    };
    // Unconfined, every call succeeds: the test can fail.
    let (free, _) = play("");
    let secret_line = format!("fake: read {}: ", secret.display());
    let write_line = format!("fake: write {}: ", into_run.display());
    let connect_line = format!("fake: connect 127.0.0.1:{port}: ");
    for line in [&secret_line, &write_line, &connect_line] {
        assert!(free.contains(&format!("{line}ok")), "{line} in {free:?}");
    }
    std::fs::remove_file(&into_run).ok();
    // Confined, each fails at that call, with the error the program got.
    let (held, _) = play("confine = true");
    assert!(!into_run.exists());
    for line in [&secret_line, &write_line, &connect_line] {
        let got = held
            .iter()
            .find(|l| l.starts_with(line.as_str()))
            .unwrap_or_else(|| panic!("{line} in {held:?}"));
        assert!(got.contains("denied (PermissionError"), "{got}");
    }
    // What held it is in run.json.
    let run: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out").join("run.json")).unwrap(),
    )
    .unwrap();
    let lines = run["engines_held"]["fake"].as_array().unwrap();
    let text = serde_json::to_string(lines).unwrap();
    assert!(
        text.contains("Landlock ABI") && text.contains("network"),
        "{text}"
    );
}

/// The fake with `flags` under the limits `engine` loses every game by `limit`, the run goes
/// on, its opponent fails nothing; each game's detail names the limit met.
fn every_game_over(flags: &[&str], engine: &str, limit: &str) -> Vec<String> {
    let (all, _) = crate::outside::every_game_fails("line", "connect4", "", flags, engine, "limit");
    all.iter()
        .map(|g| {
            let d = crate::outside::detail(g).to_string();
            assert!(d.contains(limit), "{limit} in {d}");
            d
        })
        .collect()
}

/// Whether joute may make memory and pids cgroups here: without them a memory limit bounds
/// the address space (the program fails to allocate, which no one can tell from a crash) and
/// root has no process limit at all (`docs/protocols.md`).
fn cgroups_here() -> bool {
    let limits = joute::arena::limits::Limits {
        memory: Some(64 << 20),
        processes: Some(16),
        cpu: None,
        write: None,
    };
    let lines = joute::arena::limits::prepare(&limits, "probe").map(|b| b.applied().lines());
    let held = lines.is_ok_and(|l| l.iter().filter(|l| l.contains("cgroup")).count() == 2);
    if !held {
        eprintln!("skipped: joute may make no memory and pids cgroups here");
    }
    held
}

#[test]
fn an_engine_allocating_without_end_loses_by_the_memory_limit_and_the_run_goes_on() {
    if !cgroups_here() {
        return;
    }
    let details = every_game_over(
        &["--alloc-forever"],
        "memory_limit = \"64MiB\"",
        "memory limit 64 MiB met",
    );
    // The memory never went past the limit (where a cgroup bounds it, its peak is said).
    for d in &details {
        if let Some(at) = d.find("(peak ") {
            let peak: f64 = d[at + 6..].split(' ').next().unwrap().parse().unwrap();
            assert!(peak <= 64.5, "{d}");
        }
    }
}

#[test]
fn a_fork_bomb_loses_by_the_process_limit_and_leaves_nothing() {
    if !cgroups_here() {
        return;
    }
    let marker = format!("bomb-{}", std::process::id());
    every_game_over(
        &["--fork-bomb", "--name", &marker],
        "process_limit = 16\nstall_timeout = \"5s\"",
        "process limit 16 met",
    );
    // Every process of the bombs was killed with its program.
    let left = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(&marker))
        .count();
    assert_eq!(left, 0);
}

#[test]
fn an_engine_writing_without_end_loses_by_the_write_limit() {
    every_game_over(
        &["--write-forever", "endless.bin"],
        "write_limit = \"8MiB\"\nstall_timeout = \"10s\"",
        "write limit 8 MiB",
    );
}

#[test]
fn an_engine_over_its_cpu_time_in_a_game_loses_by_the_cpu_limit() {
    every_game_over(
        &["--burn-ms", "1500"],
        "cpu_limit = \"1s\"",
        "cpu limit 1s per game met",
    );
}

mod long {
    //! Measured on the machine: slow, and run with the long suites
    //! (`cargo test --test it -- --include-ignored ::long::`).

    use super::*;

    /// The nodes per second of the built-in engine `pvs` (a 60 ms time budget a move) over
    /// `games` Connect 4 games against the fake with `fake_flags` and the lines `engine` in its
    /// table: its nodes over its moves' wall time, from the games log.
    fn pvs_speed(dir: &Path, fake_flags: &[&str], engine: &str, games_count: u32) -> f64 {
        let mut args = vec![crate::outside::fake(), "--protocol".into(), "line".into()];
        args.extend(fake_flags.iter().map(|f| f.to_string()));
        let args: Vec<String> = args.iter().map(|a| quoted(a)).collect();
        let text = format!(
            "name = \"t\"\ngame = \"connect4\"\nseed = 5\nopenings = {{ plies = 2, count = {games_count} }}\n\n\
             [[engine]]\nname = \"fake\"\ncommand = \"python3\"\nargs = [{}]\nprotocol = \"line\"\n{engine}\n\n\
             [[engine]]\nname = \"pvs\"\nalgorithm = \"pvs\"\ntime = \"60ms\"\n",
            args.join(", ")
        );
        let _ = std::fs::remove_dir_all(dir.join("out"));
        run_ok(dir, &text, &["--threads", "1"]);
        let (mut nodes, mut us) = (0u64, 0u64);
        for g in games(&dir.join("out")) {
            let moves = g["move_nodes"].as_array().unwrap();
            for (n, t) in moves.iter().zip(g["move_us"].as_array().unwrap()) {
                // The fake reports no nodes: the moves with nodes are pvs's.
                if let Some(n) = n.as_u64() {
                    nodes += n;
                    us += t.as_u64().unwrap();
                }
            }
        }
        nodes as f64 / (us as f64 / 1e6)
    }

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    #[test]
    #[ignore = "long: measures search speeds on the machine"]
    fn a_paused_busy_engine_leaves_its_opponents_speed_alone() {
        let cores = joute::arena::affinity::cpus().map_or(2, |c| c.len());
        let busy = cores.to_string();
        let dir = tempfile::tempdir().unwrap();
        let (mut alone, mut paused, mut free) = (Vec::new(), Vec::new(), Vec::new());
        // Interleaved, so that the machine's load falls on all three alike.
        for _ in 0..5 {
            alone.push(pvs_speed(dir.path(), &[], "", 2));
            paused.push(pvs_speed(dir.path(), &["--busy", &busy], "pause = true", 2));
            free.push(pvs_speed(dir.path(), &["--busy", &busy], "", 2));
        }
        let (alone, paused, free) = (median(alone), median(paused), median(free));
        eprintln!(
            "pvs nodes/s: alone {alone:.0}, against a busy engine paused {paused:.0} ({:.3}), not paused {free:.0} ({:.3})",
            paused / alone,
            free / alone
        );
        // Spinning on every core, the unpaused engine takes a share of pvs's core (about half on
        // 2 cores); paused, it takes nothing. The bound leaves room for a shared machine's noise:
        // CI once measured 0.862 paused (and 0.509 not paused), where 0.9 was asked.
        assert!(
            paused / alone > 0.8,
            "paused: {paused:.0} against {alone:.0} alone"
        );
        assert!(
            free / paused < 0.85,
            "not paused: {free:.0} against {paused:.0} paused"
        );
    }
}

#[test]
fn the_class_tournament_runs_every_program_held() {
    if joute::arena::confine::landlock_abi().is_none() || !cgroups_here() {
        eprintln!("skipped: tournaments/class-connect4.toml needs Landlock and cgroups");
        return;
    }
    if system_python() != Some("/usr/bin/python3") {
        eprintln!("skipped: the class tournament runs /usr/bin/python3");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("class");
    let spec = manifest("tournaments/class-connect4.toml");
    let out_text = out.to_str().unwrap();
    let output = crate::common::joute_in(
        dir.path(),
        &["run", &spec, "--out", out_text, "--threads", "2"],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let all = games(&out);
    assert_eq!(all.len(), 120);
    assert!(all.iter().all(|g| g["termination"] == "normal"));
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    for student in ["alice", "bob"] {
        let held = serde_json::to_string(&run["engines_held"][student]).unwrap();
        for what in [
            "Landlock",
            "memory 256 MiB",
            "processes 16",
            "paused",
            "restarted",
        ] {
            assert!(held.contains(what), "{student}: {what} in {held}");
        }
    }
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains(">Held</th>") && page.contains("cgroup v1"));
}

#[test]
fn joute_match_and_engine_check_take_the_same_settings_as_words_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    // A word that cannot be had is refused before anything is played.
    let word = crate::outside::line_fake("f", ",restart=sometimes");
    let out = crate::outside::match_fake(dir.path(), &word, "2", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown restart 'sometimes'"), "{stderr}");
    // Paused and restarted for every game, on pinned cores: it plays.
    let word = crate::outside::line_fake("f", ",pause=true,restart=game,cpu_limit=1m");
    let out = crate::outside::match_fake(dir.path(), &word, "4", &["--affinity"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("4 games played"), "{stdout}");
    // --oversubscribe goes with --affinity only.
    let out = crate::outside::match_fake(dir.path(), &word, "2", &["--oversubscribe"]);
    assert_eq!(out.status.code(), Some(2));
    // engine check says what holds the program in its first step.
    if let Some(python) = system_python()
        && joute::arena::confine::landlock_abi().is_some()
    {
        let fake = crate::outside::fake();
        let out = crate::common::joute_in(
            dir.path(),
            &[
                "engine",
                "check",
                "connect4",
                "--protocol",
                "line",
                "--confine",
                "--pause",
                "--cpu-limit",
                "30s",
                "--",
                python,
                &fake,
                "--protocol",
                "line",
            ],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        let first = stdout.lines().nth(1).unwrap();
        assert!(
            first.starts_with("ok   1 start and handshake: held: files: Landlock ABI")
                && first.contains("cpu 30s per game")
                && first.contains("paused off its turn"),
            "{first}"
        );
    }
}

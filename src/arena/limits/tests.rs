//! Tests of the limits (Linux): small `python3 -c` programs under them. Where this machine
//! offers no cgroup joute may create, the cgroup tests say why and return; the resource-limit
//! ones run everywhere.

use super::*;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::Arc;

use crate::arena::cpu::GroupCpu;

const MIB: u64 = 1 << 20;

/// A running test program: the child, its output's lines, its stdin.
struct Program {
    child: Child,
    out: BufReader<ChildStdout>,
}

impl Program {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one line (the programs wait for one before each step).
    fn go(&mut self) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(b"go\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line of its output ("" at its end).
    fn line(&mut self) -> String {
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        line.trim().to_string()
    }
}

/// Starts `python3 -c script` in `dir` under `bounds`, in its own process group, as
/// `EngineProcess::spawn` does; the bounds come back once the command (and its clone of them)
/// is gone.
fn spawn(bounds: Bounds, script: &str, dir: Option<&Path>) -> (Program, Bounds) {
    let bounds = Arc::new(bounds);
    let child = {
        let mut command = Command::new("python3");
        command
            .arg("-c")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let shared = Arc::clone(&bounds);
        // SAFETY: the hook runs between fork and exec and calls only `Bounds::enter`, which is
        // async-signal-safe and allocates nothing.
        unsafe {
            command.pre_exec(move || shared.enter());
        }
        // Registered as joute's own child, as every program is: a test of the compliance check
        // running at the same time kills every child of joute's it does not know (`descendants`).
        crate::arena::descendants::spawn(&mut command)
            .expect("python3 starts")
            .0
    };
    let bounds = Arc::try_unwrap(bounds).expect("the command is gone");
    let mut child = child;
    let out = BufReader::new(child.stdout.take().unwrap());
    (Program { child, out }, bounds)
}

/// The bounds of `limits` with cgroups, or `None` (said on stderr) where the limit `kind`
/// has no cgroup here.
fn with_cgroup(limits: &Limits, kind: &str) -> Option<Bounds> {
    let bounds = prepare_with(limits, "test", true).expect("prepared");
    let line = bounds
        .applied()
        .lines()
        .into_iter()
        .find(|l| l.starts_with(kind))
        .unwrap();
    if line.contains(": cgroup ") {
        Some(bounds)
    } else {
        eprintln!("skipped: {line}");
        None
    }
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat[stat.rfind(')').unwrap() + 2..]
            .split(' ')
            .next()
            .unwrap();
        state != "Z" && state != "X"
    })
}

/// The first figure before `unit` in `text`, e.g. 64.0 in "(peak 64.0 MiB)".
fn figure_before(text: &str, unit: &str) -> f64 {
    let end = text.rfind(unit).unwrap();
    let start = text[..end].trim_end().rfind([' ', '(']).unwrap() + 1;
    text[start..end].trim().parse().unwrap()
}

const ALLOC: &str = "import sys\nsys.stdin.readline()\nheld = []\nwhile True:\n    \
                     held.append(b'\\1' * (10 << 20))\n";

#[test]
fn a_program_over_its_memory_cgroup_is_killed_and_ended_says_memory() {
    let limits = Limits {
        memory: Some(64 * MIB),
        ..Limits::default()
    };
    let Some(bounds) = with_cgroup(&limits, "memory") else {
        return;
    };
    let dir = bounds.inner.groups[bounds.inner.memory.unwrap()]
        .dir
        .clone();
    let (mut program, mut bounds) = spawn(bounds, ALLOC, None);
    bounds.new_game(program.pid(), None);
    program.go();
    let status = program.child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
    let breach = bounds.ended(program.pid(), Some(status)).expect("a breach");
    assert_eq!(breach.limit, LimitKind::Memory);
    assert!(
        breach
            .to_string()
            .starts_with("memory limit 64 MiB met (peak ")
    );
    // The machine's memory was never at risk: the cgroup's own peak is the limit's at most.
    let file = if bounds.inner.groups[0].v2 {
        "memory.peak"
    } else {
        "memory.max_usage_in_bytes"
    };
    let peak: u64 = std::fs::read_to_string(dir.join(file))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(peak <= 64 * MIB + MIB, "peak {peak}");
    assert!(
        peak >= 48 * MIB,
        "peak {peak}: the program was killed early"
    );
    let said = figure_before(&breach.detail, "MiB)");
    assert!(
        (said - peak as f64 / MIB as f64).abs() < 0.06,
        "{breach} vs {peak}"
    );
}

#[test]
fn without_cgroups_a_memory_limit_bounds_the_address_space() {
    let limits = Limits {
        memory: Some(64 * MIB),
        ..Limits::default()
    };
    let bounds = prepare_with(&limits, "test", false).unwrap();
    let lines = bounds.applied().lines();
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with("memory 64 MiB: RLIMIT_AS, the address space"),
        "{lines:?}"
    );
    assert!(lines[0].contains("JOUTE_NO_CGROUP=1"), "{lines:?}");
    let (mut program, _bounds) = spawn(bounds, ALLOC, None);
    program.go();
    let output = program.child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("MemoryError"));
}

#[test]
fn the_defaults_without_cgroups_say_what_is_not_applied() {
    let bounds = prepare_with(&DEFAULT, "test", false).unwrap();
    let lines = bounds.applied().lines();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        lines[0],
        "memory: not limited (no cgroup joute may create here: JOUTE_NO_CGROUP=1; \
         memory_limit would bound the address space)"
    );
    // SAFETY: geteuid(2) cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        assert!(lines[1].starts_with("processes: not limited"), "{lines:?}");
        assert!(lines[1].ends_with("RLIMIT_NPROC does not bind root)"));
        // An explicit process limit that cannot be had is refused.
        let explicit = Limits {
            processes: Some(64),
            ..Limits::default()
        };
        let error = prepare_with(&explicit, "test", false).unwrap_err();
        assert!(
            error.starts_with("process_limit 64 cannot be had here"),
            "{error}"
        );
    } else {
        assert!(lines[1].starts_with("processes 256: RLIMIT_NPROC over the user's "));
    }
    assert_eq!(
        lines[2],
        "cpu 1h per game: RLIMIT_CPU of the program's process, raised at each game, and the \
         group's CPU read after its exchanges (at most every 50 ms)"
    );
    assert_eq!(
        lines[3],
        "writes 1 GiB per game: RLIMIT_FSIZE per file, and the process group's write_bytes \
         read after its exchanges (at most every 50 ms)"
    );
}

#[test]
fn a_fork_bomb_stays_under_its_pids_cgroup_and_kill_all_ends_it() {
    let limits = Limits {
        processes: Some(16),
        ..Limits::default()
    };
    let Some(bounds) = with_cgroup(&limits, "processes") else {
        return;
    };
    let dir = bounds.inner.groups[bounds.inner.pids.unwrap()].dir.clone();
    let script = "import os, sys, time\nsys.stdin.readline()\nwhile True:\n    try:\n        \
                  if os.fork() == 0:\n            time.sleep(60)\n            os._exit(0)\n    \
                  except OSError:\n        time.sleep(0.001)\n";
    let (mut program, mut bounds) = spawn(bounds, script, None);
    bounds.new_game(program.pid(), None);
    assert_eq!(bounds.check(program.pid(), None), None);
    program.go();
    let mut breach = None;
    for _ in 0..2000 {
        breach = bounds.check(program.pid(), None);
        if breach.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let breach = breach.expect("the fork bomb met its limit");
    assert_eq!(breach.limit, LimitKind::Processes);
    assert_eq!(breach.detail, "process limit 16 met (a fork failed)");
    let members: Vec<u32> = std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert!(members.len() > 1 && members.len() <= 16, "{members:?}");
    if let Ok(peak) = std::fs::read_to_string(dir.join("pids.peak")) {
        assert!(peak.trim().parse::<u32>().unwrap() <= 16, "peak {peak}");
    }
    bounds.kill_all();
    program.child.wait().unwrap();
    for pid in members {
        assert!(!alive(pid), "process {pid} survived kill_all");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("cgroup.procs")).unwrap(),
        ""
    );
}

#[test]
fn a_busy_program_dies_by_sigxcpu_and_ended_says_cpu() {
    let limits = Limits {
        cpu: Some(Duration::from_secs(1)),
        ..Limits::default()
    };
    let bounds = prepare_with(&limits, "test", false).unwrap();
    let (mut program, mut bounds) = spawn(bounds, "while True: pass", None);
    let status = program.child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGXCPU), "{status:?}");
    let breach = bounds.ended(program.pid(), Some(status)).unwrap();
    assert_eq!(breach.limit, LimitKind::Cpu);
    assert_eq!(
        breach.detail,
        "cpu limit 1s per game met (killed by SIGXCPU)"
    );
}

const BURN: &str = "import signal, sys, time\n\
    signal.signal(signal.SIGXCPU, signal.SIG_IGN if 'ignore' in sys.argv else signal.SIG_DFL)\n\
    def burn(s):\n    t = time.process_time()\n    while time.process_time() - t < s: pass\n\
    for step in range(3):\n    sys.stdin.readline()\n    burn(float(sys.argv[1]))\n    \
    print('done', flush=True)\n\
    sys.stdin.readline()\n";

/// `python3 -c BURN SECONDS [ignore]`.
fn spawn_burn(bounds: Bounds, seconds: &str, ignore: bool) -> (Program, Bounds) {
    let script = format!(
        "import sys\nsys.argv[1:] = ['{seconds}'{}]\n{BURN}",
        if ignore { ", 'ignore'" } else { "" }
    );
    spawn(bounds, &script, None)
}

#[test]
fn the_cpu_limit_counts_from_each_new_game() {
    // Three games of 0.6 s each: 1.8 s in all, never 1 s within a game (the first game's
    // 0.6 s leave room for Python's start on a loaded machine). RLIMIT_CPU counts whole
    // seconds from the program's start: without the raises, the second game would pass 1 s.
    let limits = Limits {
        cpu: Some(Duration::from_secs(1)),
        ..Limits::default()
    };
    let bounds = prepare_with(&limits, "test", false).unwrap();
    let (mut program, mut bounds) = spawn_burn(bounds, "0.6", false);
    let mut meter = GroupCpu::new(program.pid());
    for _ in 0..3 {
        bounds.new_game(program.pid(), meter.read());
        program.go();
        assert_eq!(program.line(), "done");
        assert_eq!(bounds.check(program.pid(), meter.read()), None);
    }
    let total = meter.read().unwrap();
    assert!(total > Duration::from_millis(1800), "{total:?}");
    program.go();
    let status = program.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(bounds.ended(program.pid(), Some(status)), None);
}

#[test]
fn check_says_cpu_when_a_game_used_more_than_the_limit() {
    // The program ignores SIGXCPU: the group's CPU read at the move finds it.
    let limits = Limits {
        cpu: Some(Duration::from_secs(1)),
        ..Limits::default()
    };
    let bounds = prepare_with(&limits, "test", false).unwrap();
    let (mut program, mut bounds) = spawn_burn(bounds, "1.3", true);
    let mut meter = GroupCpu::new(program.pid());
    let start = meter.read().unwrap();
    bounds.new_game(program.pid(), Some(start));
    program.go();
    assert_eq!(program.line(), "done");
    let now = meter.read().unwrap();
    let breach = bounds
        .check(program.pid(), Some(now))
        .expect("over the limit");
    assert_eq!(breach.limit, LimitKind::Cpu);
    let used = (now - start).as_secs_f64();
    assert!(used > 1.3);
    assert_eq!(
        breach.detail,
        format!("cpu limit 1s per game met ({used:.2} s used this game)")
    );
    program.child.kill().unwrap();
    program.child.wait().unwrap();
}

/// A folder on the disk (target/), where writes are counted as `write_bytes`; `None` (said)
/// where this machine does not count them there.
fn disk_folder() -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target"))
        .or_else(|_| tempfile::tempdir())
        .unwrap();
    let probe = "import sys\nwith open(sys.argv[1], 'wb') as f: f.write(b'x' * (1 << 20))\n\
                 print([l for l in open('/proc/self/io') if l.startswith('write_bytes')][0])";
    let out = Command::new("python3")
        .args(["-c", probe, "probe"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let bytes: u64 = text
        .trim()
        .strip_prefix("write_bytes: ")
        .and_then(|b| b.parse().ok())
        .unwrap_or(0);
    if bytes < MIB {
        eprintln!(
            "skipped: writes to {} are not counted ({text})",
            dir.path().display()
        );
        return None;
    }
    Some(dir)
}

#[test]
fn a_program_writing_one_file_dies_by_sigxfsz_and_ended_says_write() {
    let Some(dir) = disk_folder() else {
        return;
    };
    let limits = Limits {
        write: Some(8 * MIB),
        ..Limits::default()
    };
    let bounds = prepare_with(&limits, "test", false).unwrap();
    // Python ignores SIGXFSZ (its writes then fail): the program restores it, as C programs
    // have it.
    let script = "import signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_DFL)\n\
                  with open('out', 'wb') as f:\n    while True:\n        \
                  f.write(b'x' * (1 << 20))\n        f.flush()\n";
    let (mut program, mut bounds) = spawn(bounds, script, Some(dir.path()));
    let status = program.child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGXFSZ), "{status:?}");
    assert_eq!(
        std::fs::metadata(dir.path().join("out")).unwrap().len(),
        8 * MIB
    );
    let breach = bounds.ended(program.pid(), Some(status)).unwrap();
    assert_eq!(breach.limit, LimitKind::Write);
    assert_eq!(
        breach.detail,
        "write limit 8 MiB per game met (killed by SIGXFSZ: a file reached it)"
    );
}

#[test]
fn check_says_write_when_many_small_files_pass_the_limit() {
    let Some(dir) = disk_folder() else {
        return;
    };
    // With a pids cgroup where there is one (its processes are counted), and without (the
    // process group's).
    for cgroups in [true, false] {
        let limits = Limits {
            processes: cgroups.then_some(64),
            write: Some(8 * MIB),
            ..Limits::default()
        };
        let bounds = prepare_with(&limits, "test", cgroups).unwrap();
        if cgroups && bounds.inner.groups.is_empty() {
            eprintln!("skipped with cgroups: {:?}", bounds.applied().lines());
            continue;
        }
        let folder = dir.path().join(format!("cgroups-{cgroups}"));
        std::fs::create_dir(&folder).unwrap();
        let script = "import sys\nsys.stdin.readline()\nfor i in range(12):\n    \
                      with open('f%d' % i, 'wb') as f: f.write(b'x' * (1 << 20))\n\
                      print('done', flush=True)\nsys.stdin.readline()\n";
        let (mut program, mut bounds) = spawn(bounds, script, Some(&folder));
        bounds.new_game(program.pid(), None);
        assert_eq!(bounds.check(program.pid(), None), None);
        program.go();
        assert_eq!(program.line(), "done");
        let breach = bounds.check(program.pid(), None).expect("over the limit");
        assert_eq!(breach.limit, LimitKind::Write);
        // What is on the disk, counted here: 12 files of 1 MiB.
        let on_disk: u64 = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        assert_eq!(on_disk, 12 * MIB);
        assert!(
            breach
                .detail
                .starts_with("write limit 8 MiB per game met ("),
            "{breach}"
        );
        let said = figure_before(&breach.detail, "MiB written");
        assert!((12.0..12.2).contains(&said), "{breach}");
        program.go();
        assert!(program.child.wait().unwrap().success());
    }
}

#[test]
fn drop_kills_the_programs_and_removes_the_cgroups() {
    let limits = Limits {
        memory: Some(256 * MIB),
        processes: Some(32),
        ..Limits::default()
    };
    let Some(bounds) = with_cgroup(&limits, "processes") else {
        return;
    };
    let dirs: Vec<PathBuf> = bounds.inner.groups.iter().map(|g| g.dir.clone()).collect();
    assert!(dirs.iter().all(|d| d.is_dir()));
    let name = dirs[0].file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name.starts_with(&format!("joute-{}-", std::process::id())) && name.ends_with("-test"),
        "{name}"
    );
    let (mut program, bounds) = spawn(bounds, "import time\ntime.sleep(60)", None);
    drop(bounds);
    assert_eq!(program.child.wait().unwrap().signal(), Some(libc::SIGKILL));
    for dir in dirs {
        assert!(!dir.exists(), "{} is left", dir.display());
    }
}

#[test]
fn prepare_removes_the_cgroups_of_a_dead_joute() {
    let limits = Limits {
        processes: Some(8),
        ..Limits::default()
    };
    let Some(bounds) = with_cgroup(&limits, "processes") else {
        return;
    };
    let base = bounds.inner.groups[0].dir.parent().unwrap().to_path_buf();
    // A pid no process has now (a child that ended), and one of a live process (this one's
    // parent, pid 1 or another).
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let stale = base.join(format!("joute-{dead}-0-stale"));
    let live = base.join(format!(
        "joute-{}-0-live",
        std::os::unix::process::parent_id()
    ));
    std::fs::create_dir(&stale).unwrap();
    std::fs::create_dir(&live).unwrap();
    let again = prepare_with(&limits, "test", true).unwrap();
    assert!(!stale.exists());
    assert!(live.exists());
    std::fs::remove_dir(&live).unwrap();
    drop(again);
}

#[test]
fn sizes_are_read_with_their_units() {
    assert_eq!(parse_size("512MiB"), Ok(512 * MIB));
    assert_eq!(parse_size("1GiB"), Ok(1 << 30));
    assert_eq!(parse_size("100MB"), Ok(100_000_000));
    assert_eq!(parse_size("64KiB"), Ok(65536));
    assert_eq!(parse_size("1048576"), Ok(1048576));
    assert_eq!(parse_size(" 2 gb "), Ok(2_000_000_000));
    assert_eq!(parse_size("3m"), Ok(3 * MIB));
    assert_eq!(parse_size("7B"), Ok(7));
    assert_eq!(
        parse_size("16EiB").unwrap_err(),
        "size '16EiB' has an unknown unit 'EiB' (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB; K, M, G, T are KiB, MiB, GiB, TiB)"
    );
    assert_eq!(parse_size("-5MiB").unwrap_err(), "size '-5MiB' is negative");
    assert!(parse_size("MiB").unwrap_err().contains("has no number"));
    assert!(parse_size("").unwrap_err().contains("has no number"));
    assert!(
        parse_size("5 parsecs")
            .unwrap_err()
            .starts_with("size '5 parsecs' has an unknown unit 'parsecs'")
    );
    assert!(
        parse_size("1.5GiB")
            .unwrap_err()
            .contains("not a whole number")
    );
    assert!(
        parse_size("18446744073709551616")
            .unwrap_err()
            .contains("too large")
    );
    assert!(
        parse_size("17179869184GiB")
            .unwrap_err()
            .contains("too large")
    );
    assert_eq!(parse_size("17179869183GiB"), Ok(17179869183 << 30));
}

#[test]
fn sizes_are_written_for_people() {
    assert_eq!(format_size(0), "0 B");
    assert_eq!(format_size(1000), "1000 B");
    assert_eq!(format_size(1024), "1 KiB");
    assert_eq!(format_size(512 * MIB), "512 MiB");
    assert_eq!(format_size(10 * MIB + 4 * MIB / 10), "10.4 MiB");
    assert_eq!(format_size(4 << 30), "4 GiB");
    assert_eq!(format_size(3 << 40), "3 TiB");
    assert_eq!(format_size(u64::MAX), "16777216.0 TiB");
    for text in ["512MiB", "1GiB", "64KiB", "3TiB"] {
        let bytes = parse_size(text).unwrap();
        assert_eq!(parse_size(&format_size(bytes)), Ok(bytes));
    }
}

#[test]
fn bounds_may_be_shared_with_the_pre_exec_hook() {
    fn shared<T: Send + Sync>(_: &T) {}
    shared(&prepare_with(&Limits::default(), "x", false).unwrap());
}

#[test]
fn zero_limits_and_names_are_refused_or_made_safe() {
    for (limits, error) in [
        (
            Limits {
                memory: Some(0),
                ..Limits::default()
            },
            "memory_limit must be more than 0",
        ),
        (
            Limits {
                processes: Some(0),
                ..Limits::default()
            },
            "process_limit must be at least 1",
        ),
        (
            Limits {
                cpu: Some(Duration::ZERO),
                ..Limits::default()
            },
            "cpu_limit must be more than 0",
        ),
        (
            Limits {
                write: Some(0),
                ..Limits::default()
            },
            "write_limit must be more than 0",
        ),
    ] {
        assert_eq!(prepare_with(&limits, "x", false).unwrap_err(), error);
    }
    assert_eq!(linux::sanitise("edax 4.4/../x"), "edax_4.4_.._x");
    assert_eq!(linux::sanitise(".."), "engine..");
    assert_eq!(linux::sanitise(""), "engine");
    assert_eq!(format_limit_duration(Duration::from_millis(1500)), "1500ms");
    assert_eq!(format_limit_duration(Duration::from_secs(600)), "10m");
    assert_eq!(format_limit_duration(Duration::from_secs(90)), "90s");
}

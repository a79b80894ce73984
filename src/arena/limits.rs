//! Resource limits per outside program (issue #43): memory, processes (threads count), CPU time
//! per game and bytes written per game. [`prepare`] picks how each limit is had on this
//! machine — a cgroup where joute may create one, else a resource limit (`setrlimit`) — and
//! says so ([`Applied`]); [`Bounds::enter`] puts the program under them between fork and exec;
//! [`Bounds::check`] and [`Bounds::ended`] tell which limit it met, if any.
//!
//! Linux only: elsewhere a limit asked for explicitly is refused by [`prepare`], and the
//! defaults are reported as not applied.
//!
//! Cgroups are made under joute's own cgroup of each hierarchy (cgroup v1 `memory` and `pids`
//! first, else cgroup v2 where those controllers are delegated), one per program, named
//! `joute-<joute's pid>-<n>-<label>`, and removed when the [`Bounds`] is dropped; those a dead
//! joute left (killed by SIGKILL) are removed by the next [`prepare`]. The environment variable
//! `JOUTE_NO_CGROUP=1` makes joute use no cgroup (resource limits only).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The limits asked for one program (`None`: not limited).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Memory, bytes (`memory_limit`).
    pub memory: Option<u64>,
    /// Processes and threads together (`process_limit`).
    pub processes: Option<u32>,
    /// CPU time per game (`cpu_limit`).
    pub cpu: Option<Duration>,
    /// Bytes written per game (`write_limit`).
    pub write: Option<u64>,
}

const GIB: u64 = 1 << 30;

/// The defaults, which a normal engine never meets: memory 4 GiB (only where a cgroup bounds
/// it: an address-space limit that large would still stop programs that reserve much more than
/// they use), 256 processes and threads, 1 hour of CPU per game, 1 GiB written per game. A
/// limit equal to its default is applied where it can be and otherwise reported as not applied;
/// any other value must be had, or [`prepare`] refuses it.
pub const DEFAULT: Limits = Limits {
    memory: Some(4 * GIB),
    processes: Some(256),
    cpu: Some(Duration::from_secs(3600)),
    write: Some(GIB),
};

/// Which limit a program met.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LimitKind {
    /// `memory_limit`.
    Memory,
    /// `process_limit`.
    Processes,
    /// `cpu_limit`.
    Cpu,
    /// `write_limit`.
    Write,
}

impl LimitKind {
    /// Its name in reports: `memory`, `processes`, `cpu`, `write`.
    pub fn name(self) -> &'static str {
        match self {
            LimitKind::Memory => "memory",
            LimitKind::Processes => "processes",
            LimitKind::Cpu => "cpu",
            LimitKind::Write => "write",
        }
    }
}

/// A limit met: which one, and the figures, e.g. `memory limit 64 MiB met (peak 64.0 MiB)`,
/// `process limit 16 met (a fork failed)`, `cpu limit 2s per game met (2.03 s used this game)`,
/// `write limit 10 MiB per game met (10.4 MiB written)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breach {
    /// Which limit.
    pub limit: LimitKind,
    /// The whole sentence, figures included (what `Display` writes).
    pub detail: String,
}

impl std::fmt::Display for Breach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

/// How each limit is enforced here, one line per limit, for `engine check`, `run.json` and the
/// report, e.g. `processes 64: cgroup v1 pids.max`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    lines: Vec<String>,
}

impl Applied {
    /// The lines: memory, processes, cpu, writes (those asked for).
    pub fn lines(&self) -> Vec<String> {
        self.lines.clone()
    }
}

/// The units [`parse_size`] knows, in the order its errors list them.
const UNITS: [(&str, u64); 13] = [
    ("b", 1),
    ("kb", 1000),
    ("mb", 1000 * 1000),
    ("gb", 1000 * 1000 * 1000),
    ("tb", 1000 * 1000 * 1000 * 1000),
    ("kib", 1 << 10),
    ("mib", 1 << 20),
    ("gib", 1 << 30),
    ("tib", 1 << 40),
    ("k", 1 << 10),
    ("m", 1 << 20),
    ("g", 1 << 30),
    ("t", 1 << 40),
];

/// A size in bytes: a whole number, then optionally a unit (any case, a space allowed):
/// `B`, `KB` `MB` `GB` `TB` (powers of 1000), `KiB` `MiB` `GiB` `TiB` and `K` `M` `G` `T`
/// (powers of 1024), e.g. `512MiB`, `1GiB`, `100MB`, `1048576`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(format!("size '{text}' is negative"));
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(format!(
            "size '{text}' has no number (write e.g. 512MiB, 1GiB, 100MB or 1048576)"
        ));
    }
    let (number, unit) = t.split_at(digits);
    let unit = unit.trim_start();
    if unit.starts_with(['.', ',']) {
        return Err(format!(
            "size '{text}' is not a whole number (write it in a smaller unit, e.g. 1536MiB)"
        ));
    }
    let scale = if unit.is_empty() {
        1
    } else {
        let lower = unit.to_ascii_lowercase();
        match UNITS.iter().find(|(name, _)| *name == lower) {
            Some(&(_, scale)) => scale,
            None => {
                return Err(format!(
                    "size '{text}' has an unknown unit '{unit}' (B, KB, MB, GB, TB, KiB, MiB, \
                     GiB, TiB; K, M, G, T are KiB, MiB, GiB, TiB)"
                ));
            }
        }
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("size '{text}' is too large (at most {} bytes)", u64::MAX))
}

/// A size for people: `512 MiB` when it is a whole number of the largest binary unit it
/// reaches, else one decimal, `10.4 MiB`; under 1 KiB, `N B`.
pub fn format_size(bytes: u64) -> String {
    const NAMES: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut unit = 0;
    while unit + 1 < NAMES.len() && bytes >= 1u64 << (10 * (unit + 1)) {
        unit += 1;
    }
    let scale = 1u64 << (10 * unit);
    if bytes.is_multiple_of(scale) {
        format!("{} {}", bytes / scale, NAMES[unit])
    } else {
        format!("{:.1} {}", bytes as f64 / scale as f64, NAMES[unit])
    }
}

/// A CPU limit as written in specs: `1h`, `10m`, `2s`, or `1500ms`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn format_limit_duration(d: Duration) -> String {
    let s = d.as_secs();
    if d.subsec_nanos() != 0 || s == 0 {
        format!("{}ms", d.as_millis())
    } else if s.is_multiple_of(3600) {
        format!("{}h", s / 3600)
    } else if s.is_multiple_of(60) {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

/// Prepares the limits of one program (`label`: its name, for the cgroups' names): creates
/// its cgroups where it can (see the module's documentation) and picks the mechanism of each
/// limit; errors name the limit that cannot be had (a limit equal to its [`DEFAULT`] is
/// reported as not applied instead). A memory limit with no cgroup bounds the address space
/// (`RLIMIT_AS`), the default memory limit with no cgroup is not applied. Also removes the
/// cgroups of dead joutes (`joute-<pid>-*` whose pid is gone).
pub fn prepare(limits: &Limits, label: &str) -> Result<Bounds, String> {
    let cgroups = std::env::var_os("JOUTE_NO_CGROUP").is_none_or(|v| v != "1");
    prepare_with(limits, label, cgroups)
}

/// [`prepare`], with the cgroups allowed or not (`JOUTE_NO_CGROUP`; tests ask directly, as
/// the environment is shared by the tests running at once).
fn prepare_with(limits: &Limits, label: &str, cgroups: bool) -> Result<Bounds, String> {
    if limits.memory == Some(0) {
        return Err("memory_limit must be more than 0".into());
    }
    if limits.processes == Some(0) {
        return Err("process_limit must be at least 1".into());
    }
    if limits.cpu == Some(Duration::ZERO) {
        return Err("cpu_limit must be more than 0".into());
    }
    if limits.write == Some(0) {
        return Err("write_limit must be more than 0".into());
    }
    imp::prepare(limits, label, cgroups)
}

/// What was read at the start of the game, and last.
#[derive(Clone, Debug, Default)]
struct Readings {
    /// The group's CPU time at the start of the game.
    cpu_base: Option<Duration>,
    /// The CPU time used this game, last read.
    cpu_used: Option<Duration>,
    /// The bytes written by the program's processes at the start of the game.
    write_base: u64,
    /// The memory cgroup's OOM kills (or failures) at the start of the game.
    oom_base: u64,
    /// The pids cgroup's failed forks at the start of the game.
    forks_base: u64,
    /// Where there is no cgroup, the processes of the program's process group, as last found
    /// in `/proc`: its leader, the processes, when.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    members: Option<(u32, Vec<u32>, std::time::Instant)>,
}

/// The limits of one program, ready: its cgroups (removed on drop) and resource limits.
/// `Send + Sync`: shared with the `pre_exec` hook through an `Arc`.
#[derive(Debug)]
pub struct Bounds {
    limits: Limits,
    applied: Applied,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    inner: imp::Inner,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    readings: Readings,
}

impl Bounds {
    /// How each limit is enforced.
    pub fn applied(&self) -> &Applied {
        &self.applied
    }

    /// The limits asked for.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// For the child between fork and exec (a `pre_exec` hook): joins the cgroups (its pid
    /// written to each `cgroup.procs`) and sets the resource limits chosen. Async-signal-safe:
    /// no allocation, no lock (the paths were made by [`prepare`]).
    pub fn enter(&self) -> std::io::Result<()> {
        imp::enter(&self.inner)
    }

    /// A new game begins for the program `pid`, whose process group has used `group_cpu` so
    /// far: the CPU, write and cgroup counters count from here, and the program's
    /// `RLIMIT_CPU` is raised to the CPU time it used plus the limit.
    pub fn new_game(&mut self, pid: u32, group_cpu: Option<Duration>) {
        imp::new_game(self, pid, group_cpu);
    }

    /// Read at each move (and after a failure): the first limit met this game, if any — CPU
    /// (`group_cpu` less that of the game's start), bytes written (`write_bytes` of the
    /// cgroup's processes, or of process group `pid`'s where there is no cgroup), the memory
    /// cgroup's OOM kills, the pids cgroup's failed forks (a fork bomb whose forks fail never
    /// dies by itself).
    pub fn check(&mut self, pid: u32, group_cpu: Option<Duration>) -> Option<Breach> {
        imp::check(self, pid, group_cpu)
    }

    /// After the program ended with `status`: a limit it met, if any — death by SIGXCPU (cpu),
    /// SIGXFSZ (write), SIGKILL after an OOM kill in its memory cgroup (memory), else what
    /// [`check`](Self::check) finds (the CPU as last read).
    pub fn ended(&mut self, pid: u32, status: Option<std::process::ExitStatus>) -> Option<Breach> {
        imp::ended(self, pid, status)
    }

    /// Kills every process left in its cgroups (those that left the process group too).
    pub fn kill_all(&self) {
        imp::kill_all(&self.inner);
    }

    /// The processes in its cgroups now (none without cgroups).
    pub fn members(&self) -> Vec<u32> {
        imp::members_of(&self.inner)
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn memory_breach(&self, peak: Option<u64>) -> Breach {
        let limit = self.limits.memory.unwrap_or(0);
        let peak = peak.map_or(String::new(), |p| {
            format!(" (peak {:.1} MiB)", p as f64 / (1 << 20) as f64)
        });
        Breach {
            limit: LimitKind::Memory,
            detail: format!("memory limit {} met{peak}", format_size(limit)),
        }
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn processes_breach(&self) -> Breach {
        Breach {
            limit: LimitKind::Processes,
            detail: format!(
                "process limit {} met (a fork failed)",
                self.limits.processes.unwrap_or(0)
            ),
        }
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn cpu_breach(&self, how: String) -> Breach {
        let limit = self.limits.cpu.unwrap_or_default();
        Breach {
            limit: LimitKind::Cpu,
            detail: format!(
                "cpu limit {} per game met ({how})",
                format_limit_duration(limit)
            ),
        }
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn write_breach(&self, how: String) -> Breach {
        Breach {
            limit: LimitKind::Write,
            detail: format!(
                "write limit {} per game met ({how})",
                format_size(self.limits.write.unwrap_or(0))
            ),
        }
    }
}

impl Drop for Bounds {
    /// Kills what is left in the cgroups, then removes them (retrying briefly while the
    /// killed tasks die).
    fn drop(&mut self) {
        imp::remove(&self.inner);
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    //! Elsewhere: nothing can be had; explicit limits are refused.
    use super::{Applied, Bounds, Breach, DEFAULT, Limits, Readings};
    use std::time::Duration;

    #[derive(Debug)]
    pub(super) struct Inner;

    pub(super) fn prepare(limits: &Limits, _label: &str, _cgroups: bool) -> Result<Bounds, String> {
        let mut lines = Vec::new();
        for (name, asked, default) in [
            (
                "memory",
                limits.memory.is_some(),
                limits.memory == DEFAULT.memory,
            ),
            (
                "processes",
                limits.processes.is_some(),
                limits.processes == DEFAULT.processes,
            ),
            ("cpu", limits.cpu.is_some(), limits.cpu == DEFAULT.cpu),
            (
                "writes",
                limits.write.is_some(),
                limits.write == DEFAULT.write,
            ),
        ] {
            if asked && !default {
                return Err(format!(
                    "{name} limit: resource limits of outside engines are implemented on Linux only"
                ));
            }
            if asked {
                lines.push(format!("{name}: not limited (Linux only)"));
            }
        }
        Ok(Bounds {
            limits: limits.clone(),
            applied: Applied { lines },
            inner: Inner,
            readings: Readings::default(),
        })
    }

    pub(super) fn enter(_inner: &Inner) -> std::io::Result<()> {
        Ok(())
    }

    pub(super) fn new_game(_b: &mut Bounds, _pid: u32, _cpu: Option<Duration>) {}

    pub(super) fn check(_b: &mut Bounds, _pid: u32, _cpu: Option<Duration>) -> Option<Breach> {
        None
    }

    pub(super) fn ended(
        _b: &mut Bounds,
        _pid: u32,
        _status: Option<std::process::ExitStatus>,
    ) -> Option<Breach> {
        None
    }

    pub(super) fn kill_all(_inner: &Inner) {}

    pub(super) fn members_of(_inner: &Inner) -> Vec<u32> {
        Vec::new()
    }

    pub(super) fn remove(_inner: &Inner) {}
}

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as imp;

#[cfg(all(test, target_os = "linux"))]
mod tests;

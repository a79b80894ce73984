//! The limits on Linux: cgroups (v1 `memory` and `pids` first, else v2), resource limits, and
//! the counters of `/proc` and of the cgroups.
//!
//! Cgroup control files are written in place with `std::fs::write`: they are the kernel's
//! interface, not outputs (no temporary file and rename, as `outputs.rs` does for files).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{
    Applied, Bounds, Breach, DEFAULT, Limits, Readings, format_limit_duration, format_size,
};

/// Numbers the cgroups of one joute (`joute-<pid>-<n>-<label>`).
static NEXT: AtomicU64 = AtomicU64::new(0);

/// How long the processes of a program without a cgroup are trusted before `/proc` is scanned
/// again for new ones.
const RESCAN: Duration = Duration::from_millis(200);

/// How long [`remove`] keeps trying to remove a cgroup whose tasks are dying.
const REMOVE_PATIENCE: Duration = Duration::from_secs(2);

/// A resource limit `enter` sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resource {
    AddressSpace,
    FileSize,
    Cpu,
    Processes,
}

impl Resource {
    fn id(self) -> libc::__rlimit_resource_t {
        match self {
            Resource::AddressSpace => libc::RLIMIT_AS,
            Resource::FileSize => libc::RLIMIT_FSIZE,
            Resource::Cpu => libc::RLIMIT_CPU,
            Resource::Processes => libc::RLIMIT_NPROC,
        }
    }
}

/// One cgroup made for the program.
#[derive(Debug)]
pub(super) struct Group {
    pub(super) dir: PathBuf,
    /// `dir/cgroup.procs`, ready for the child (no allocation between fork and exec).
    procs: CString,
    pub(super) v2: bool,
}

/// The Linux part of a [`Bounds`].
#[derive(Debug, Default)]
pub(super) struct Inner {
    pub(super) groups: Vec<Group>,
    /// Index in `groups` of the one with the memory limit.
    pub(super) memory: Option<usize>,
    /// Index in `groups` of the one with the pids limit.
    pub(super) pids: Option<usize>,
    /// What `enter` sets: resource, soft, hard.
    rlimits: Vec<(Resource, u64, u64)>,
}

/// Where joute's own cgroup of one controller is.
struct Base {
    dir: PathBuf,
    v2: bool,
}

/// The cgroup mounts: file system type, root, mount point, super options.
fn mounts() -> Vec<(String, String, PathBuf, String)> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let left: Vec<&str> = left.split(' ').collect();
            let mut right = right.split(' ');
            let fstype = right.next()?;
            let _source = right.next()?;
            let options = right.next().unwrap_or("");
            if fstype != "cgroup" && fstype != "cgroup2" {
                return None;
            }
            Some((
                fstype.to_string(),
                left.get(3)?.to_string(),
                PathBuf::from(left.get(4)?),
                options.to_string(),
            ))
        })
        .collect()
}

/// Joute's own cgroups (`/proc/self/cgroup`): hierarchy id, controllers, path.
fn own_cgroups() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            Some((
                parts.next()?.to_string(),
                parts.next()?.to_string(),
                parts.next()?.to_string(),
            ))
        })
        .collect()
}

/// `path` (a cgroup's, as `/proc/self/cgroup` says it) under a mount of root `root` at `point`.
fn under(point: &Path, root: &str, path: &str) -> PathBuf {
    let relative = if root == "/" {
        path
    } else {
        path.strip_prefix(root).unwrap_or(path)
    };
    point.join(relative.trim_start_matches('/'))
}

/// Joute's own cgroup of `controller`: cgroup v1 where that hierarchy is mounted, else v2
/// where it offers the controller; else why not.
fn base_for(controller: &str) -> Result<Base, String> {
    let mounts = mounts();
    let own = own_cgroups();
    for (_, controllers, path) in &own {
        if !controllers.split(',').any(|c| c == controller) {
            continue;
        }
        let mount = mounts
            .iter()
            .find(|m| m.0 == "cgroup" && m.3.split(',').any(|o| o == controller));
        if let Some((_, root, point, _)) = mount {
            return Ok(Base {
                dir: under(point, root, path),
                v2: false,
            });
        }
    }
    let unified = own.iter().find(|c| c.0 == "0" && c.1.is_empty());
    let mount = mounts.iter().find(|m| m.0 == "cgroup2");
    match (unified, mount) {
        (Some((_, _, path)), Some((_, root, point, _))) => {
            let dir = under(point, root, path);
            let offered =
                std::fs::read_to_string(dir.join("cgroup.controllers")).unwrap_or_default();
            if offered.split_whitespace().any(|c| c == controller) {
                Ok(Base { dir, v2: true })
            } else {
                Err(format!(
                    "cgroup v2 {} does not offer the {controller} controller",
                    dir.display()
                ))
            }
        }
        _ => Err(format!("no {controller} cgroup is mounted")),
    }
}

/// The label as a cgroup name may hold it.
pub(super) fn sanitise(label: &str) -> String {
    let name: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    if name.is_empty() || name.starts_with('.') {
        format!("engine{name}")
    } else {
        name
    }
}

/// The live processes of a cgroup.
fn members(dir: &Path) -> Vec<u32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Kills every process of the cgroup at `dir`, again while new ones appear (forks racing the
/// kills), until the cgroup is empty (a task leaves it as it exits) or [`REMOVE_PATIENCE`]
/// has passed.
fn kill_group(dir: &Path, v2: bool) {
    if v2 {
        // Linux 5.14 and later: the whole cgroup at once, forks included.
        let _ = std::fs::write(dir.join("cgroup.kill"), "1");
    }
    let start = Instant::now();
    loop {
        let pids = members(dir);
        if pids.is_empty() || start.elapsed() > REMOVE_PATIENCE {
            return;
        }
        for pid in pids {
            // SAFETY: kill(2) sends a signal and touches no memory; the pids are the cgroup's.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
        }
        // The killed tasks take a moment to exit.
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// Removes the cgroup at `dir`: kills its processes, then retries `rmdir` while they die.
fn remove_dir(dir: &Path, v2: bool) {
    let start = Instant::now();
    loop {
        kill_group(dir, v2);
        match std::fs::remove_dir(dir) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(_) if start.elapsed() < REMOVE_PATIENCE => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(_) => return,
        }
    }
}

/// Removes the cgroups under `base` that a joute now dead left (`joute-<pid>-*`, no such pid).
fn remove_stale(base: &Base) {
    let Ok(entries) = std::fs::read_dir(&base.dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("joute-")) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            remove_dir(&entry.path(), base.v2);
        }
    }
}

impl Inner {
    /// The cgroup `name` of `controller` (made, or the one already made in the same v2
    /// directory), with the controller on; its index in `groups`.
    fn group(&mut self, name: &str, controller: &str) -> Result<usize, String> {
        let base = base_for(controller)?;
        remove_stale(&base);
        let dir = base.dir.join(name);
        let index = match self.groups.iter().position(|g| g.dir == dir) {
            Some(i) => i,
            None => {
                std::fs::create_dir(&dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes())
                    .map_err(|_| format!("cgroup path {} holds a NUL byte", dir.display()))?;
                self.groups.push(Group {
                    dir: dir.clone(),
                    procs,
                    v2: base.v2,
                });
                self.groups.len() - 1
            }
        };
        if base.v2 {
            let on = |dir: &Path| {
                std::fs::read_to_string(dir.join("cgroup.controllers"))
                    .is_ok_and(|c| c.split_whitespace().any(|c| c == controller))
            };
            if !on(&dir) {
                // Fails (busy) where joute's own cgroup holds processes, joute among them:
                // cgroup v2 keeps controllers to cgroups without processes of their own.
                std::fs::write(
                    base.dir.join("cgroup.subtree_control"),
                    format!("+{controller}"),
                )
                .map_err(|e| {
                    format!(
                        "cannot enable {controller} in {}: {e}",
                        base.dir.join("cgroup.subtree_control").display()
                    )
                })?;
                if !on(&dir) {
                    return Err(format!("{controller} is not enabled in {}", dir.display()));
                }
            }
        }
        Ok(index)
    }

    fn write(&self, index: usize, file: &str, value: &str) -> Result<(), String> {
        let path = self.groups[index].dir.join(file);
        std::fs::write(&path, value).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    fn read(&self, index: usize, file: &str) -> Option<String> {
        std::fs::read_to_string(self.groups[index].dir.join(file)).ok()
    }

    /// A counter `key N` of a flat keyed file (`memory.events`, `pids.events`, ...).
    fn counter(&self, index: usize, file: &str, key: &str) -> Option<u64> {
        let text = self.read(index, file)?;
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(' ')?;
            (k == key).then(|| v.trim().parse().ok())?
        })
    }

    /// The memory cgroup's OOM kills (v1 without that counter: its failures to charge).
    fn oom_kills(&self) -> u64 {
        let Some(i) = self.memory else { return 0 };
        if self.groups[i].v2 {
            self.counter(i, "memory.events", "oom_kill").unwrap_or(0)
        } else {
            self.counter(i, "memory.oom_control", "oom_kill")
                .or_else(|| self.read(i, "memory.failcnt")?.trim().parse().ok())
                .unwrap_or(0)
        }
    }

    /// The memory cgroup's peak usage, bytes, where the kernel tells it.
    pub(super) fn memory_peak(&self) -> Option<u64> {
        let i = self.memory?;
        let file = if self.groups[i].v2 {
            "memory.peak"
        } else {
            "memory.max_usage_in_bytes"
        };
        self.read(i, file)?.trim().parse().ok()
    }

    /// The pids cgroup's failed forks.
    fn failed_forks(&self) -> u64 {
        self.pids
            .and_then(|i| self.counter(i, "pids.events", "max"))
            .unwrap_or(0)
    }
}

/// Soft and hard values of one resource limit of process `pid` (0: joute's own).
fn get_rlimit(pid: u32, resource: Resource) -> (u64, u64) {
    let mut old = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: prlimit(2) with no new value writes the rlimit it is given and nothing else.
    let r = unsafe {
        libc::prlimit(
            pid as libc::pid_t,
            resource.id(),
            std::ptr::null(),
            &mut old,
        )
    };
    if r == 0 {
        (old.rlim_cur, old.rlim_max)
    } else {
        (libc::RLIM_INFINITY, libc::RLIM_INFINITY)
    }
}

/// The tasks (threads) of processes whose real user is joute's, as `RLIMIT_NPROC` counts them.
fn user_tasks() -> u64 {
    // SAFETY: getuid(2) cannot fail and touches no memory.
    let uid = unsafe { libc::getuid() }.to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter(|status| {
            status.lines().any(|l| {
                l.strip_prefix("Uid:")
                    .and_then(|ids| ids.split_whitespace().next())
                    .is_some_and(|real| real == uid)
            })
        })
        .map(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Threads:")?.trim().parse::<u64>().ok())
                .unwrap_or(1)
        })
        .sum()
}

/// The CPU time of process `pid` itself (every thread, `utime + stime`), as `RLIMIT_CPU`
/// counts it.
fn own_cpu(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // After the name: state is field 3 of the line, utime 14 and stime 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf(3) reads a configuration value and touches no memory.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as u64 } else { 100 };
    Some(Duration::from_nanos((utime + stime) * 1_000_000_000 / hz))
}

/// `write_bytes` of `/proc/PID/io` (what the process, and its reaped children, dirtied or
/// wrote to storage).
fn write_bytes(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/io"))
        .ok()
        .and_then(|io| {
            io.lines()
                .find_map(|l| l.strip_prefix("write_bytes:")?.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The bytes written by the program's processes: those of its cgroup, else of process group
/// `pid`, found by a scan of `/proc` at most every [`RESCAN`] (a scan costs about 1 ms where
/// reading the known processes costs microseconds; `cpu::GroupCpu` does the same).
fn written(inner: &Inner, readings: &mut Readings, pid: u32) -> u64 {
    let pids = match inner.groups.first() {
        Some(g) => members(&g.dir),
        None => {
            let fresh = readings
                .members
                .as_ref()
                .is_some_and(|(group, _, when)| *group == pid && when.elapsed() < RESCAN);
            if !fresh {
                let pids = crate::arena::descendants::processes()
                    .into_iter()
                    .filter(|p| p.group == pid && !p.zombie)
                    .map(|p| p.pid)
                    .collect();
                readings.members = Some((pid, pids, Instant::now()));
            }
            readings
                .members
                .as_ref()
                .map_or(Vec::new(), |m| m.1.clone())
        }
    };
    pids.into_iter().map(write_bytes).sum()
}

/// Why no cgroup, for the lines of [`Applied`].
fn no_cgroup(reason: &str) -> String {
    format!("no cgroup joute may create here: {reason}")
}

pub(super) fn prepare(limits: &Limits, label: &str, cgroups: bool) -> Result<Bounds, String> {
    let name = format!(
        "joute-{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        sanitise(label)
    );
    // Made first, so that an error below removes the cgroups made (Drop).
    let mut bounds = Bounds {
        limits: limits.clone(),
        applied: Applied::default(),
        inner: Inner::default(),
        readings: Readings::default(),
    };
    let mut lines = Vec::new();
    let inner = &mut bounds.inner;
    let group = |inner: &mut Inner, controller: &str| {
        if cgroups {
            inner.group(&name, controller)
        } else {
            Err("JOUTE_NO_CGROUP=1".to_string())
        }
    };

    if let Some(memory) = limits.memory {
        let line = memory_limit(inner, memory, limits.memory == DEFAULT.memory, &group);
        lines.push(line);
    }
    if let Some(processes) = limits.processes {
        let default = limits.processes == DEFAULT.processes;
        lines.push(process_limit(inner, processes, default, &group)?);
    }
    if let Some(cpu) = limits.cpu {
        let (_, hard) = get_rlimit(0, Resource::Cpu);
        // Whole seconds, rounded up; the hard limit stays joute's, so that `new_game` may
        // raise the soft one (a signal at the soft limit, SIGKILL at the hard one).
        let soft = cpu.as_secs() + u64::from(cpu.subsec_nanos() > 0);
        inner.rlimits.push((Resource::Cpu, soft.min(hard), hard));
        lines.push(format!(
            "cpu {} per game: RLIMIT_CPU of the program's process, raised at each game, and \
             the group's CPU read after its exchanges (at most every 50 ms)",
            format_limit_duration(cpu)
        ));
    }

    if let Some(write) = limits.write {
        let (_, hard) = get_rlimit(0, Resource::FileSize);
        let value = write.min(hard);
        inner.rlimits.push((Resource::FileSize, value, value));
        let whose = if inner.groups.is_empty() {
            "the process group's"
        } else {
            "the cgroup's processes'"
        };
        lines.push(format!(
            "writes {} per game: RLIMIT_FSIZE per file, and {whose} write_bytes read after its \
             exchanges (at most every 50 ms)",
            format_size(write)
        ));
    }
    bounds.applied = Applied { lines };
    Ok(bounds)
}

/// Makes a cgroup of a controller for the program (or says why not).
type MakeGroup<'a> = dyn Fn(&mut Inner, &str) -> Result<usize, String> + 'a;

/// The memory limit: the memory cgroup's, else the address space's for a limit asked for
/// (none for the default); the line that says which.
fn memory_limit(inner: &mut Inner, memory: u64, default: bool, group: &MakeGroup<'_>) -> String {
    let made = group(inner, "memory").and_then(|i| memory_cgroup(inner, i, memory).map(|l| (i, l)));
    match made {
        Ok((i, line)) => {
            inner.memory = Some(i);
            line
        }
        Err(why) if default => format!(
            "memory: not limited ({}; memory_limit would bound the address space)",
            no_cgroup(&why)
        ),
        Err(why) => {
            let (_, hard) = get_rlimit(0, Resource::AddressSpace);
            let value = memory.min(hard);
            inner.rlimits.push((Resource::AddressSpace, value, value));
            format!(
                "memory {}: RLIMIT_AS, the address space, not the memory used ({})",
                format_size(memory),
                no_cgroup(&why)
            )
        }
    }
}

/// Sets the memory cgroup `i`'s limit (swap included where the machine counts it); the line.
fn memory_cgroup(inner: &mut Inner, i: usize, memory: u64) -> Result<String, String> {
    let size = format_size(memory);
    if inner.groups[i].v2 {
        inner.write(i, "memory.max", &memory.to_string())?;
        // No swap: memory.max then bounds all the program holds.
        let swap = inner.write(i, "memory.swap.max", "0").is_ok();
        return Ok(if swap {
            format!("memory {size}: cgroup v2 memory.max, memory.swap.max 0")
        } else {
            format!("memory {size}: cgroup v2 memory.max (swap not counted here)")
        });
    }
    inner.write(i, "memory.limit_in_bytes", &memory.to_string())?;
    let swap = inner.groups[i]
        .dir
        .join("memory.memsw.limit_in_bytes")
        .exists()
        && inner
            .write(i, "memory.memsw.limit_in_bytes", &memory.to_string())
            .is_ok();
    Ok(if swap {
        format!(
            "memory {size}: cgroup v1 memory.limit_in_bytes and \
             memory.memsw.limit_in_bytes (swap included)"
        )
    } else {
        format!("memory {size}: cgroup v1 memory.limit_in_bytes (swap not counted here)")
    })
}

/// The process limit: the pids cgroup's, else `RLIMIT_NPROC` over the user's processes (not
/// for root: refused when asked for, not applied for the default); the line that says which.
fn process_limit(
    inner: &mut Inner,
    processes: u32,
    default: bool,
    group: &MakeGroup<'_>,
) -> Result<String, String> {
    let made = group(inner, "pids").and_then(|i| {
        inner.write(i, "pids.max", &processes.to_string())?;
        Ok(i)
    });
    let why = match made {
        Ok(i) => {
            inner.pids = Some(i);
            let v = if inner.groups[i].v2 { "v2" } else { "v1" };
            return Ok(format!("processes {processes}: cgroup {v} pids.max"));
        }
        Err(why) => why,
    };
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    if root && default {
        return Ok(format!(
            "processes: not limited ({}; RLIMIT_NPROC does not bind root)",
            no_cgroup(&why)
        ));
    }
    if root {
        return Err(format!(
            "process_limit {processes} cannot be had here: {}, and RLIMIT_NPROC does not bind \
             root",
            no_cgroup(&why)
        ));
    }
    // RLIMIT_NPROC counts all the user's tasks: the program may add its limit to those
    // running now.
    let others = user_tasks();
    let (_, hard) = get_rlimit(0, Resource::Processes);
    let value = (others + u64::from(processes)).min(hard);
    inner.rlimits.push((Resource::Processes, value, value));
    Ok(format!(
        "processes {processes}: RLIMIT_NPROC over the user's {others} processes ({})",
        no_cgroup(&why)
    ))
}

/// Writes `pid` in decimal into `buf`; the number of bytes.
fn format_pid(mut pid: u32, buf: &mut [u8; 12]) -> usize {
    let mut digits = [0u8; 12];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (pid % 10) as u8;
        n += 1;
        pid /= 10;
        if pid == 0 {
            break;
        }
    }
    for i in 0..n {
        buf[i] = digits[n - 1 - i];
    }
    n
}

pub(super) fn enter(inner: &Inner) -> std::io::Result<()> {
    let mut buf = [0u8; 12];
    // SAFETY: getpid(2) cannot fail and touches no memory.
    let pid = unsafe { libc::getpid() };
    let n = format_pid(pid as u32, &mut buf);
    for group in &inner.groups {
        // SAFETY: open, write and close on a NUL-terminated path made before the fork and a
        // stack buffer: async-signal-safe calls, no allocation.
        unsafe {
            let fd = libc::open(group.procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let written = libc::write(fd, buf.as_ptr().cast(), n);
            let error = std::io::Error::last_os_error();
            libc::close(fd);
            if written < 0 {
                return Err(error);
            }
        }
    }
    for &(resource, soft, hard) in &inner.rlimits {
        let limit = libc::rlimit {
            rlim_cur: soft,
            rlim_max: hard,
        };
        // SAFETY: setrlimit(2) reads the rlimit it is given; async-signal-safe.
        if unsafe { libc::setrlimit(resource.id(), &limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

pub(super) fn new_game(bounds: &mut Bounds, pid: u32, group_cpu: Option<Duration>) {
    let inner = &bounds.inner;
    let readings = &mut bounds.readings;
    readings.cpu_base = group_cpu;
    readings.cpu_used = group_cpu.map(|_| Duration::ZERO);
    if bounds.limits.write.is_some() {
        readings.write_base = written(inner, readings, pid);
    }
    readings.oom_base = inner.oom_kills();
    readings.forks_base = inner.failed_forks();
    if let Some(cpu) = bounds.limits.cpu
        && inner.rlimits.iter().any(|r| r.0 == Resource::Cpu)
        && let Some(used) = own_cpu(pid)
    {
        let (_, hard) = get_rlimit(pid, Resource::Cpu);
        let until = used + cpu;
        let soft = until.as_secs() + u64::from(until.subsec_nanos() > 0);
        let limit = libc::rlimit {
            rlim_cur: soft.min(hard),
            rlim_max: hard,
        };
        // SAFETY: prlimit(2) reads the new rlimit it is given, writes no old one (null).
        unsafe {
            libc::prlimit(
                pid as libc::pid_t,
                Resource::Cpu.id(),
                &limit,
                std::ptr::null_mut(),
            );
        }
    }
}

pub(super) fn check(bounds: &mut Bounds, pid: u32, group_cpu: Option<Duration>) -> Option<Breach> {
    let inner = &bounds.inner;
    if inner.memory.is_some() && inner.oom_kills() > bounds.readings.oom_base {
        return Some(bounds.memory_breach(inner.memory_peak()));
    }
    if inner.pids.is_some() && inner.failed_forks() > bounds.readings.forks_base {
        return Some(bounds.processes_breach());
    }
    if let (Some(limit), Some(now)) = (bounds.limits.cpu, group_cpu) {
        let used = now.saturating_sub(bounds.readings.cpu_base.unwrap_or_default());
        bounds.readings.cpu_used = Some(used);
        if used > limit {
            return Some(bounds.cpu_breach(format!("{:.2} s used this game", used.as_secs_f64())));
        }
    }
    if let Some(limit) = bounds.limits.write {
        let bytes = written(&bounds.inner, &mut bounds.readings, pid)
            .saturating_sub(bounds.readings.write_base);
        if bytes > limit {
            return Some(bounds.write_breach(format!("{} written", format_size(bytes))));
        }
    }
    None
}

pub(super) fn ended(
    bounds: &mut Bounds,
    pid: u32,
    status: Option<std::process::ExitStatus>,
) -> Option<Breach> {
    match status.and_then(|s| s.signal()) {
        Some(libc::SIGXCPU) if bounds.limits.cpu.is_some() => {
            let how = match bounds.readings.cpu_used {
                Some(used) => format!(
                    "killed by SIGXCPU; {:.2} s used this game at the last reading",
                    used.as_secs_f64()
                ),
                None => "killed by SIGXCPU".to_string(),
            };
            return Some(bounds.cpu_breach(how));
        }
        Some(libc::SIGXFSZ) if bounds.limits.write.is_some() => {
            return Some(bounds.write_breach("killed by SIGXFSZ: a file reached it".into()));
        }
        _ => {}
    }
    check(bounds, pid, None)
}

pub(super) fn kill_all(inner: &Inner) {
    for group in &inner.groups {
        kill_group(&group.dir, group.v2);
    }
}

pub(super) fn members_of(inner: &Inner) -> Vec<u32> {
    let mut pids: Vec<u32> = inner.groups.iter().flat_map(|g| members(&g.dir)).collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

pub(super) fn remove(inner: &Inner) {
    for group in &inner.groups {
        remove_dir(&group.dir, group.v2);
    }
}

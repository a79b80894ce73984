//! Every process an outside program starts, followed to its end (Linux). A program runs in a
//! process group of its own, which joute kills; but a descendant may leave the group (a daemon's
//! double fork and `setsid`), and once its parent is gone the kernel gives it to init — out of
//! joute's reach. So joute makes itself a *child subreaper* (`PR_SET_CHILD_SUBREAPER`): an
//! orphaned descendant comes back to joute as its child. Each program is started with
//! `JOUTE_ENGINE=TOKEN` in its environment, which its descendants inherit; when joute kills the
//! program it also kills (and reaps) every adopted process carrying that token, and when joute
//! itself ends ([`kill_all`], called on every exit path of the command line) every process it
//! adopted, token or not, and every program still running with its group.
//!
//! What remains out of reach: after a SIGKILL of joute nothing of joute's runs; its direct
//! children die by their death signal (`PR_SET_PDEATHSIG`), but a descendant of theirs — in
//! their group or not — goes to init. Only a PID namespace or a cgroup (what Slurm and
//! Kubernetes put each task in) would take those too.

use std::collections::HashSet;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The environment variable that marks a program's descendants.
pub const TOKEN_VAR: &str = "JOUTE_ENGINE";

/// A process a program left running, as `engine check` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leftover {
    /// Its process id.
    pub pid: u32,
    /// Its command name (`/proc/PID/comm`).
    pub name: String,
}

impl std::fmt::Display for Leftover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.pid, self.name)
    }
}

/// The programs joute started and has not reaped: its own children, never adopted ones.
fn started() -> &'static Mutex<HashSet<u32>> {
    static STARTED: OnceLock<Mutex<HashSet<u32>>> = OnceLock::new();
    STARTED.get_or_init(Default::default)
}

fn lock() -> std::sync::MutexGuard<'static, HashSet<u32>> {
    started().lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts `command` with a fresh token in its environment, joute a subreaper from then on;
/// returns the child and its token. No sweep sees the child before it is known as joute's.
pub(crate) fn spawn(command: &mut Command) -> std::io::Result<(Child, String)> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    become_subreaper();
    let token = format!(
        "{}.{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    command.env(TOKEN_VAR, &token);
    let mut started = lock();
    let child = command.spawn()?;
    started.insert(child.id());
    Ok((child, token))
}

/// The program `pid` was reaped: it is no longer joute's.
pub(crate) fn forget(pid: u32) {
    lock().remove(&pid);
}

/// Makes joute a child subreaper (once; Linux only).
fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        static DONE: OnceLock<()> = OnceLock::new();
        DONE.get_or_init(|| {
            // SAFETY: prctl(2) with integer arguments; it touches no memory. A failure leaves
            // joute as it was (orphans then go to init, as without this).
            unsafe {
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            }
        });
    }
}

/// What `/proc/PID/stat` says of a process: its parent, group and whether it is a zombie.
pub(crate) struct Stat {
    /// Its process id.
    pub(crate) pid: u32,
    /// Its parent's.
    pub(crate) parent: u32,
    /// Its process group's.
    pub(crate) group: u32,
    /// Dead, not yet reaped.
    pub(crate) zombie: bool,
}

/// Every process of the system, as far as `/proc` shows them (a scan of every process's
/// `stat`: what finds a program's processes, here and for the CPU meter of `cpu`).
pub(crate) fn processes() -> Vec<Stat> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // The command name is in parentheses and may hold anything: read after the last.
            let rest = &stat[stat.rfind(')')? + 2..];
            let mut fields = rest.split(' ');
            let state = fields.next()?;
            let parent = fields.next()?.parse().ok()?;
            let group = fields.next()?.parse().ok()?;
            Some(Stat {
                pid,
                parent,
                group,
                zombie: state == "Z" || state == "X",
            })
        })
        .collect()
}

/// Whether process `pid` carries `token` in its environment.
fn carries(pid: u32, token: &str) -> bool {
    let wanted = format!("{TOKEN_VAR}={token}");
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == wanted.as_bytes()))
}

pub(crate) fn name_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map_or_else(|_| "?".into(), |n| n.trim().to_string())
}

/// The live processes of group `group` (a program's), the program itself aside.
pub(crate) fn group_members(group: u32) -> Vec<Leftover> {
    processes()
        .into_iter()
        .filter(|p| p.group == group && p.pid != group && !p.zombie)
        .map(|p| Leftover {
            pid: p.pid,
            name: name_of(p.pid),
        })
        .collect()
}

/// The lock of [`started`], waited for a moment at most: the ways out (a panic included) must
/// not hang on a lock held where they were called.
fn lock_briefly() -> Option<std::sync::MutexGuard<'static, HashSet<u32>>> {
    let deadline = Instant::now() + Duration::from_millis(200);
    loop {
        match started().try_lock() {
            Ok(guard) => return Some(guard),
            Err(std::sync::TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(std::sync::TryLockError::WouldBlock) => return None,
        }
    }
}

/// The live processes joute adopted that carry `token` (any, for `None`).
fn adopted(token: Option<&str>) -> Vec<Leftover> {
    let me = std::process::id();
    let Some(started) = lock_briefly() else {
        return Vec::new();
    };
    processes()
        .into_iter()
        .filter(|p| p.parent == me && !p.zombie && !started.contains(&p.pid))
        .filter(|p| token.is_none_or(|t| carries(p.pid, t)))
        .map(|p| Leftover {
            pid: p.pid,
            name: name_of(p.pid),
        })
        .collect()
}

/// Kills `pid` and the group it leads (if it leads one), and waits briefly for it.
fn kill_and_reap(pid: u32) {
    // SAFETY: kill(2) and waitpid(2) on a process joute adopted (its child): no memory is
    // touched. A negative pid signals the group the process leads; if it leads none the call
    // fails harmlessly.
    unsafe {
        libc::kill(-(pid as i32), libc::SIGKILL);
        libc::kill(pid as i32, libc::SIGKILL);
    }
    reap(&[pid]);
}

/// Reaps those of `pids` that are joute's children and end within a moment (zombies now).
pub(crate) fn reap(pids: &[u32]) {
    let deadline = Instant::now() + Duration::from_millis(500);
    let mut left: Vec<u32> = pids.to_vec();
    while !left.is_empty() {
        left.retain(|&pid| {
            let mut status = 0;
            // SAFETY: waitpid(2) on one process id with a valid status pointer.
            let r = unsafe { libc::waitpid(pid as i32, &mut status, libc::WNOHANG) };
            // 0: a child still running; -1: not (or no longer) a child of joute's.
            r == 0
        });
        if left.is_empty() || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// After a program (token `token`) was killed with its group (`group`: its members then) and
/// reaped: reaps what of its group came back to joute, and kills every adopted process
/// carrying its token, until none is left (a killed daemon's own children come back in turn).
/// Returns those killed.
pub(crate) fn after_kill(token: &str, group: &[u32]) -> Vec<Leftover> {
    reap(group);
    sweep(Some(token))
}

/// Kills and reaps the adopted processes carrying `token` (all of them for `None`), round after
/// round until none is left.
fn sweep(token: Option<&str>) -> Vec<Leftover> {
    let mut killed = Vec::new();
    for _ in 0..50 {
        let found = adopted(token);
        if found.is_empty() {
            break;
        }
        for p in &found {
            kill_and_reap(p.pid);
        }
        killed.extend(found);
    }
    killed
}

/// Kills and reaps every process joute adopted, whatever its mark (`engine check`, which runs
/// one program: whatever came back to joute is that program's). Returns those killed.
pub fn kill_adopted() -> Vec<Leftover> {
    sweep(None)
}

/// Kills every program joute started that still runs, with its group, and every process joute
/// adopted: what the command line calls on each way out (a normal end, an error, a second
/// Ctrl-C). Returns the adopted processes killed.
pub fn kill_all() -> Vec<Leftover> {
    let programs: Vec<u32> = lock_briefly().map_or_else(Vec::new, |s| s.iter().copied().collect());
    for pid in &programs {
        // SAFETY: kill(2) of the group each program leads (made by `process_group(0)`).
        unsafe {
            libc::kill(-(*pid as i32), libc::SIGKILL);
        }
    }
    sweep(None)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_are_read_whatever_the_command_name() {
        let me = std::process::id();
        let all = processes();
        let own = all.iter().find(|p| p.pid == me).expect("this process");
        assert!(!own.zombie);
        assert_eq!(own.parent, std::os::unix::process::parent_id());
    }
}

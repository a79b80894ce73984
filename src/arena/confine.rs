//! Confinement of an outside program (issue #43): Linux's Landlock for the file system, TCP and
//! signals, plus a seccomp filter that refuses IP and packet sockets, all without root.
//!
//! Everything that allocates or may fail in an interesting way happens in joute's process in
//! [`prepare`]: the Landlock ruleset is built there (with the `landlock` crate) and kept as an
//! open file descriptor, and the seccomp program is assembled there. The child, between fork and
//! exec, only makes three system calls in [`Prepared::enter`]: a forked child of a threaded
//! process must not allocate or take locks (another thread may have held the allocator's lock at
//! the fork).

use std::path::PathBuf;

/// What a confined program may reach beyond the system's own folders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confinement {
    /// Folders it may read, write and run programs from (its working folder, its own temporary folder).
    pub own: Vec<PathBuf>,
    /// Files or folders it may read and run (the program itself or its folder, the spec's `readable` list).
    pub readable: Vec<PathBuf>,
}

/// A confinement made ready in joute's process, to be entered by the child.
///
/// One `Prepared` can be entered by any number of children (it is shared, e.g. in an `Arc`, by
/// the `pre_exec` closures of every spawn of one engine).
#[derive(Debug)]
pub struct Prepared {
    /// The Landlock ruleset, created and filled in joute's process (close-on-exec: a child drops
    /// it when it runs its program, after entering it).
    #[cfg(target_os = "linux")]
    ruleset: std::os::fd::OwnedFd,
    /// The seccomp program; empty on an architecture the filter does not know.
    #[cfg(target_os = "linux")]
    filter: Vec<libc::sock_filter>,
    /// What is applied, for [`Prepared::applied`].
    applied: Vec<String>,
}

// `Prepared` goes into `pre_exec` closures shared between threads.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Prepared>();
};

/// The error of [`prepare`] where there is no Landlock at all.
const NOT_LINUX: &str = "confine needs Linux's Landlock (kernel 5.13 or later)";

/// The Landlock ABI of this kernel (None where there is none: not Linux, disabled).
pub fn landlock_abi() -> Option<i32> {
    linux::abi_query().ok()
}

/// Builds the confinement `c` in joute's process, for children to enter with
/// [`Prepared::enter`]. Errors (sentences for the user): not Linux, Landlock absent or disabled,
/// a path of `own` or `readable` that does not exist.
pub fn prepare(c: &Confinement) -> Result<Prepared, String> {
    linux::prepare(c)
}

impl Prepared {
    /// Called in the child between fork and exec: async-signal-safe, NO allocation, no locks
    /// (only syscalls: prctl(PR_SET_NO_NEW_PRIVS), landlock_restrict_self, seccomp).
    pub fn enter(&self) -> std::io::Result<()> {
        linux::enter(self)
    }

    /// What is applied, one short line per part, for `engine check` and run.json, e.g.
    /// "files: Landlock ABI 7, read-only outside 2 own folders, 1 readable path",
    /// "network: TCP bind/connect refused (Landlock), IPv4/IPv6 sockets refused (seccomp)",
    /// "signals: only to its own processes (Landlock scope)".
    pub fn applied(&self) -> Vec<String> {
        self.applied.clone()
    }
}

#[cfg(not(target_os = "linux"))]
mod linux {
    use super::{Confinement, NOT_LINUX, Prepared};

    pub(super) fn abi_query() -> Result<i32, i32> {
        Err(0)
    }

    pub(super) fn prepare(_c: &Confinement) -> Result<Prepared, String> {
        Err(NOT_LINUX.to_string())
    }

    pub(super) fn enter(_p: &Prepared) -> std::io::Result<()> {
        // Unreachable in practice: `prepare` never makes a `Prepared` here.
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use super::{Confinement, NOT_LINUX, Prepared};
    use landlock::{
        ABI, Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr,
        RulesetCreatedAttr, Scope, path_beneath_rules,
    };
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::path::Path;

    /// The system's folders a program (Python, shared libraries, its configuration) needs to
    /// read and run; those that exist get read + execute.
    const SYSTEM: [&str; 13] = [
        "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
        "/snap", "/proc", "/sys",
    ];

    /// `LANDLOCK_CREATE_RULESET_VERSION`: the flag that makes landlock_create_ruleset answer
    /// the ABI version.
    const CREATE_RULESET_VERSION: libc::c_uint = 1;

    /// The kernel's Landlock ABI, or the errno of the query.
    pub(super) fn abi_query() -> Result<i32, i32> {
        // SAFETY: the documented version query: a null attribute, size 0, only the version
        // flag; the kernel reads no memory.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                CREATE_RULESET_VERSION,
            )
        };
        if v > 0 {
            Ok(v as i32)
        } else {
            Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
        }
    }

    /// Name of an errno the ABI query can answer, for the error sentence.
    fn errno_name(e: i32) -> &'static str {
        match e {
            libc::ENOSYS => "ENOSYS: the kernel has no Landlock",
            libc::EOPNOTSUPP => {
                "EOPNOTSUPP: Landlock is built in but disabled (it is not in the `lsm=` boot \
                 parameter; /sys/kernel/security/lsm lists the active ones)"
            }
            libc::EPERM => "EPERM: a seccomp filter around joute forbids it",
            _ => "unexpected",
        }
    }

    pub(super) fn prepare(c: &Confinement) -> Result<Prepared, String> {
        let abi_n = abi_query().map_err(|e| {
            format!(
                "{NOT_LINUX}, and this kernel has none enabled: the ABI query \
                 (landlock_create_ruleset) failed with errno {e} ({})",
                errno_name(e)
            )
        })?;
        for (list, paths) in [("own", &c.own), ("readable", &c.readable)] {
            for p in paths.iter() {
                if !p.exists() {
                    return Err(format!(
                        "confine: the {list} path {} does not exist",
                        p.display()
                    ));
                }
                if list == "own" && !p.is_dir() {
                    return Err(format!(
                        "confine: the own path {} is not a folder",
                        p.display()
                    ));
                }
            }
        }
        // The crate caps an ABI newer than it knows at its newest: every right it handles then
        // exists in the kernel, so the ruleset is enforced fully.
        let abi = ABI::from(abi_n);
        let ruleset = build_ruleset(c, abi, abi_n).map_err(|e| {
            format!("confine: could not build the Landlock ruleset (ABI {abi_n}): {e}")
        })?;
        let filter = seccomp_filter();
        let applied = describe(c, abi_n, !filter.is_empty());
        Ok(Prepared {
            ruleset,
            filter,
            applied,
        })
    }

    /// Creates and fills the ruleset; returns its file descriptor (close-on-exec).
    fn build_ruleset(c: &Confinement, abi: ABI, abi_n: i32) -> Result<OwnedFd, String> {
        let e = |e: landlock::RulesetError| e.to_string();
        let all = AccessFs::from_all(abi);
        let read = AccessFs::from_read(abi); // execute, read files, read folders
        // /dev: read and write files (/dev/null, /dev/urandom, ttys and their ioctls), no nodes.
        let dev = read | AccessFs::WriteFile | (all & (AccessFs::Truncate | AccessFs::IoctlDev));
        let mut ruleset = Ruleset::default().handle_access(all).map_err(e)?;
        if abi_n >= 4 {
            // Handled with no port allowed: no TCP bind or connect at all.
            ruleset = ruleset.handle_access(AccessNet::from_all(abi)).map_err(e)?;
        }
        if abi_n >= 6 {
            ruleset = ruleset.scope(Scope::from_all(abi)).map_err(e)?;
        }
        let system: Vec<&str> = SYSTEM
            .iter()
            .copied()
            .filter(|p| Path::new(p).exists())
            .collect();
        let mut created = ruleset
            .create()
            .map_err(e)?
            .add_rules(path_beneath_rules(system, read))
            .map_err(e)?;
        if Path::new("/dev").is_dir() {
            let fd = PathFd::new("/dev").map_err(|err| format!("/dev: {err}"))?;
            created = created.add_rule(PathBeneath::new(fd, dev)).map_err(e)?;
        }
        // Own folders get every right; readable paths read + execute (path_beneath_rules keeps
        // to the rights a plain file can have when a path is a file).
        created = created
            .add_rules(path_beneath_rules(&c.own, all))
            .map_err(e)?
            .add_rules(path_beneath_rules(&c.readable, read))
            .map_err(e)?;
        Option::<OwnedFd>::from(created)
            .ok_or_else(|| "the kernel refused to create a ruleset".to_string())
    }

    /// "1 thing" / "2 things".
    fn count(n: usize, one: &str, many: &str) -> String {
        format!("{n} {}", if n == 1 { one } else { many })
    }

    /// The lines of [`Prepared::applied`].
    fn describe(c: &Confinement, abi_n: i32, seccomp: bool) -> Vec<String> {
        // Rights this kernel cannot restrict (handled from a later ABI).
        let unrestricted: Vec<&str> = [(3, "truncation (ABI 3)"), (5, "device ioctls (ABI 5)")]
            .iter()
            .filter(|(from, _)| abi_n < *from)
            .map(|(_, what)| *what)
            .collect();
        let mut enforced = if unrestricted.is_empty() {
            "fully enforced".to_string()
        } else {
            format!("partially enforced (not: {})", unrestricted.join(", "))
        };
        if abi_n < 2 {
            // ABI 1 cannot allow it, so it refuses it everywhere: stricter, not weaker.
            enforced.push_str(", moves between folders always refused (ABI 1)");
        }
        let files = format!(
            "files: Landlock ABI {abi_n}, {enforced}, read-only outside {}, {}",
            count(c.own.len(), "own folder", "own folders"),
            count(c.readable.len(), "readable path", "readable paths"),
        );
        let tcp = if abi_n >= 4 {
            "TCP bind/connect refused (Landlock)"
        } else {
            "TCP not restricted by Landlock (ABI < 4)"
        };
        let sockets = if seccomp {
            "IPv4/IPv6/packet sockets and io_uring refused (seccomp)"
        } else {
            "no seccomp filter (unknown architecture)"
        };
        let signals = if abi_n >= 6 {
            "signals and abstract unix sockets: only to its own processes (Landlock scope)"
        } else {
            "signals and abstract unix sockets: not scoped (Landlock ABI < 6)"
        };
        vec![
            files,
            format!("network: {tcp}, {sockets}"),
            signals.to_string(),
        ]
    }

    /// `AUDIT_ARCH_*` of the architectures the filter knows (linux/audit.h).
    #[cfg(target_arch = "x86_64")]
    pub(super) const ARCH: Option<u32> = Some(0xC000_003E);
    #[cfg(target_arch = "aarch64")]
    pub(super) const ARCH: Option<u32> = Some(0xC000_00B7);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub(super) const ARCH: Option<u32> = None;

    /// x86_64's x32 system calls carry this bit; they would reach `socket` by another number.
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;

    // Offsets in `struct seccomp_data`: nr, arch, then args[6] as u64 (low half first on these
    // little-endian architectures).
    const OFF_NR: u32 = 0;
    const OFF_ARCH: u32 = 4;
    const OFF_ARG0: u32 = 16;

    const LD_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JEQ: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const JGE: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
    const RET: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

    fn stmt(code: u16, k: u32) -> libc::sock_filter {
        libc::sock_filter {
            code,
            jt: 0,
            jf: 0,
            k,
        }
    }

    fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
        libc::sock_filter { code, jt, jf, k }
    }

    /// The seccomp program: `socket(AF_INET | AF_INET6 | AF_PACKET, ..)` fails with EACCES,
    /// `io_uring_setup` with ENOSYS (io_uring can make sockets without the `socket` call), and
    /// so does any call of another architecture or ABI (i386 or x32 calls would reach `socket`
    /// under other numbers); everything else is allowed. Empty on an unknown architecture.
    pub(super) fn seccomp_filter() -> Vec<libc::sock_filter> {
        let Some(arch) = ARCH else {
            return Vec::new();
        };
        let allow = libc::SECCOMP_RET_ALLOW;
        let eacces = libc::SECCOMP_RET_ERRNO | libc::EACCES as u32;
        let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
        // Jump offsets count instructions after the jump; the layout is fixed below.
        vec![
            /* 0 */ stmt(LD_ABS, OFF_ARCH),
            /* 1 */ jump(JEQ, arch, 1, 0),
            /* 2 */ stmt(RET, enosys), // a foreign architecture's call
            /* 3 */ stmt(LD_ABS, OFF_NR),
            /* 4 */ jump(JGE, X32_SYSCALL_BIT, 9, 0), // -> 14: ENOSYS
            /* 5 */ jump(JEQ, libc::SYS_io_uring_setup as u32, 8, 0), // -> 14: ENOSYS
            /* 6 */ jump(JEQ, libc::SYS_socket as u32, 1, 0), // -> 8
            /* 7 */ stmt(RET, allow),
            /* 8 */ stmt(LD_ABS, OFF_ARG0), // the domain (an int: the low half)
            /* 9 */ jump(JEQ, libc::AF_INET as u32, 3, 0), // -> 13: EACCES
            /* 10 */ jump(JEQ, libc::AF_INET6 as u32, 2, 0),
            /* 11 */ jump(JEQ, libc::AF_PACKET as u32, 1, 0),
            /* 12 */ stmt(RET, allow),
            /* 13 */ stmt(RET, eacces),
            /* 14 */ stmt(RET, enosys),
        ]
    }

    pub(super) fn enter(p: &Prepared) -> std::io::Result<()> {
        let err = std::io::Error::last_os_error; // an errno: no allocation
        // SAFETY: prctl with integer arguments only.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(err());
        }
        // SAFETY: the ruleset descriptor is open for as long as `p` lives; flags 0.
        let r = unsafe {
            libc::syscall(
                libc::SYS_landlock_restrict_self,
                p.ruleset.as_raw_fd(),
                0 as libc::c_uint,
            )
        };
        if r != 0 {
            return Err(err());
        }
        if !p.filter.is_empty() {
            let prog = libc::sock_fprog {
                len: p.filter.len() as libc::c_ushort,
                filter: p.filter.as_ptr().cast_mut(),
            };
            // SAFETY: `prog` points at `p.filter`, alive and unchanged during the call; the
            // kernel copies the program and only reads it.
            let r = unsafe {
                libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER as libc::c_ulong,
                    &prog as *const libc::sock_fprog,
                )
            };
            if r != 0 {
                return Err(err());
            }
        }
        Ok(())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    use std::path::Path;
    use std::process::{Command, Stdio};
    use std::sync::Arc;

    /// The system's Python: a `python3` found on PATH may be a shim under the user's home
    /// (pyenv), which a confined program cannot read.
    const PYTHON: &str = "/usr/bin/python3";

    /// Why these tests cannot run here, if they cannot.
    fn skip_reason() -> Option<String> {
        if landlock_abi().is_none() {
            return Some("this kernel has no Landlock".to_string());
        }
        if !Path::new(PYTHON).exists() {
            return Some(format!("{PYTHON} is missing"));
        }
        None
    }

    macro_rules! skip_unless_ready {
        () => {
            if let Some(why) = skip_reason() {
                eprintln!("skipped: {why}");
                return;
            }
        };
    }

    /// Runs `python3 -c script args..` in `cwd`, confined by `prepared` if given; returns its
    /// standard output, trimmed (the script prints one word), and fails on a non-zero exit.
    fn python(prepared: Option<&Arc<Prepared>>, cwd: &Path, script: &str, args: &[&str]) -> String {
        let mut cmd = Command::new(PYTHON);
        cmd.arg("-c")
            .arg(script)
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(p) = prepared {
            let p = Arc::clone(p);
            // SAFETY: `enter` only makes system calls (no allocation, no locks).
            unsafe {
                cmd.pre_exec(move || p.enter());
            }
        }
        // Registered as joute's own child, as every program is: a test of the compliance check
        // running at the same time kills every child of joute's it does not know.
        let (mut child, _) = crate::arena::descendants::spawn(&mut cmd).expect("spawn python3");
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        crate::arena::descendants::forget(child.id());
        assert!(status.success(), "python3 failed: {status}\n{err}");
        out.trim().to_string()
    }

    /// Tries `expr` (Python, may use `a` = argv[1], `b` = argv[2]) and prints `ok` or the
    /// exception's class (an errno's too, for OSError).
    fn attempt(expr: &str) -> String {
        format!(
            "import sys, socket, errno\n\
             a = sys.argv[1] if len(sys.argv) > 1 else ''\n\
             b = sys.argv[2] if len(sys.argv) > 2 else ''\n\
             try:\n    {expr}\n    print('ok')\n\
             except OSError as e:\n    print(type(e).__name__ + ':' + errno.errorcode.get(e.errno, '?'))\n"
        )
    }

    /// A confinement with an own folder and a folder of secrets it is not given, plus one
    /// readable file in a third folder.
    struct Setup {
        own: tempfile::TempDir,
        secrets: tempfile::TempDir,
        shared: tempfile::TempDir,
        prepared: Arc<Prepared>,
    }

    fn setup() -> Setup {
        let own = tempfile::tempdir().unwrap();
        let secrets = tempfile::tempdir().unwrap();
        let shared = tempfile::tempdir().unwrap();
        std::fs::write(secrets.path().join("secret.txt"), "secret").unwrap();
        std::fs::write(shared.path().join("book.txt"), "opening book").unwrap();
        let c = Confinement {
            own: vec![own.path().to_path_buf()],
            readable: vec![shared.path().join("book.txt")],
        };
        let prepared = Arc::new(prepare(&c).expect("prepare"));
        Setup {
            own,
            secrets,
            shared,
            prepared,
        }
    }

    fn path(p: &Path) -> &str {
        p.to_str().unwrap()
    }

    #[test]
    fn python_starts_confined() {
        skip_unless_ready!();
        let s = setup();
        let out = python(Some(&s.prepared), s.own.path(), "print('started')", &[]);
        assert_eq!(out, "started");
    }

    #[test]
    fn reading_an_unlisted_file_is_refused() {
        skip_unless_ready!();
        let s = setup();
        let secret = s.secrets.path().join("secret.txt");
        let script = attempt("open(a).read()");
        let free = python(None, s.own.path(), &script, &[path(&secret)]);
        assert_eq!(free, "ok");
        let confined = python(Some(&s.prepared), s.own.path(), &script, &[path(&secret)]);
        assert_eq!(confined, "PermissionError:EACCES");
    }

    #[test]
    fn writing_outside_own_is_refused_and_inside_allowed() {
        skip_unless_ready!();
        let s = setup();
        let script = attempt("open(a, 'w').write('x')");
        let outside = s.secrets.path().join("dropped.txt");
        let free = python(None, s.own.path(), &script, &[path(&outside)]);
        assert_eq!(free, "ok");
        std::fs::remove_file(&outside).unwrap();
        let confined = python(Some(&s.prepared), s.own.path(), &script, &[path(&outside)]);
        assert_eq!(confined, "PermissionError:EACCES");
        assert!(!outside.exists());

        let inside = s.own.path().join("sub/notes.txt");
        let script = attempt("import os; os.mkdir(os.path.dirname(a)); open(a, 'w').write('x')");
        let confined = python(Some(&s.prepared), s.own.path(), &script, &[path(&inside)]);
        assert_eq!(confined, "ok");
        assert_eq!(std::fs::read_to_string(&inside).unwrap(), "x");
    }

    #[test]
    fn a_readable_file_is_readable_but_not_writable() {
        skip_unless_ready!();
        let s = setup();
        let book = s.shared.path().join("book.txt");
        let read = attempt("assert open(a).read() == 'opening book'");
        assert_eq!(
            python(Some(&s.prepared), s.own.path(), &read, &[path(&book)]),
            "ok"
        );
        let write = attempt("open(a, 'a').write('x')");
        assert_eq!(python(None, s.own.path(), &write, &[path(&book)]), "ok");
        assert_eq!(
            python(Some(&s.prepared), s.own.path(), &write, &[path(&book)]),
            "PermissionError:EACCES"
        );
        // Its folder is not listed: a sibling stays out of reach.
        let sibling = s.shared.path().join("other.txt");
        std::fs::write(&sibling, "y").unwrap();
        let read_any = attempt("open(a).read()");
        assert_eq!(
            python(
                Some(&s.prepared),
                s.own.path(),
                &read_any,
                &[path(&sibling)]
            ),
            "PermissionError:EACCES"
        );
    }

    #[test]
    fn dev_null_is_writable() {
        skip_unless_ready!();
        let s = setup();
        let script =
            attempt("open('/dev/null', 'w').write('x'); open('/dev/urandom', 'rb').read(8)");
        assert_eq!(python(Some(&s.prepared), s.own.path(), &script, &[]), "ok");
    }

    #[test]
    fn tcp_connect_is_refused() {
        skip_unless_ready!();
        let s = setup();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port().to_string();
        let script = attempt("socket.create_connection(('127.0.0.1', int(a)), timeout=5).close()");
        assert_eq!(python(None, s.own.path(), &script, &[&port]), "ok");
        assert_eq!(
            python(Some(&s.prepared), s.own.path(), &script, &[&port]),
            "PermissionError:EACCES"
        );
    }

    #[test]
    fn tcp_connect_is_refused_by_landlock_alone() {
        skip_unless_ready!();
        if landlock_abi() < Some(4) {
            eprintln!("skipped: Landlock ABI < 4 has no network rights");
            return;
        }
        let mut s = setup();
        // Without the seccomp filter, the socket is made and Landlock refuses the connection.
        Arc::get_mut(&mut s.prepared).unwrap().filter.clear();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port().to_string();
        let script = attempt("socket.create_connection(('127.0.0.1', int(a)), timeout=5).close()");
        assert_eq!(
            python(Some(&s.prepared), s.own.path(), &script, &[&port]),
            "PermissionError:EACCES"
        );
        let udp = attempt("socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()");
        assert_eq!(python(Some(&s.prepared), s.own.path(), &udp, &[]), "ok");
    }

    #[test]
    fn signals_reach_only_its_own_processes() {
        skip_unless_ready!();
        if landlock_abi() < Some(6) {
            eprintln!("skipped: Landlock ABI < 6 has no signal scope");
            return;
        }
        let s = setup();
        // Signal 0 to joute (the parent) only checks the right to signal it.
        let script = attempt("import os; os.kill(os.getppid(), 0)");
        assert_eq!(python(None, s.own.path(), &script, &[]), "ok");
        assert_eq!(
            python(Some(&s.prepared), s.own.path(), &script, &[]),
            "PermissionError:EPERM"
        );
        let own = attempt("import os; os.kill(os.getpid(), 0)");
        assert_eq!(python(Some(&s.prepared), s.own.path(), &own, &[]), "ok");
    }

    #[test]
    fn udp_and_ipv6_sockets_are_refused_unix_ones_allowed() {
        skip_unless_ready!();
        let s = setup();
        let udp = attempt("socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()");
        assert_eq!(python(None, s.own.path(), &udp, &[]), "ok");
        assert_eq!(
            python(Some(&s.prepared), s.own.path(), &udp, &[]),
            "PermissionError:EACCES"
        );
        let v6 = attempt("socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close()");
        assert_eq!(
            python(Some(&s.prepared), s.own.path(), &v6, &[]),
            "PermissionError:EACCES"
        );
        // The filter refuses only those domains: a socket pair (what pipes between a wrapper
        // and its engine may use) still works.
        let pair = attempt("[x.close() for x in socket.socketpair()]");
        assert_eq!(python(Some(&s.prepared), s.own.path(), &pair, &[]), "ok");
    }

    #[test]
    fn a_missing_path_is_named() {
        skip_unless_ready!();
        let own = tempfile::tempdir().unwrap();
        let missing = own.path().join("no-such-book.txt");
        let c = Confinement {
            own: vec![own.path().to_path_buf()],
            readable: vec![missing.clone()],
        };
        let err = prepare(&c).unwrap_err();
        assert!(err.contains(path(&missing)), "{err}");
        assert!(err.contains("readable"), "{err}");
        let c = Confinement {
            own: vec![missing.clone()],
            readable: vec![],
        };
        let err = prepare(&c).unwrap_err();
        assert!(err.contains(path(&missing)) && err.contains("own"), "{err}");
    }

    #[test]
    fn applied_names_the_abi() {
        skip_unless_ready!();
        let s = setup();
        let abi = landlock_abi().unwrap();
        let lines = s.prepared.applied();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[0].starts_with(&format!("files: Landlock ABI {abi}, ")),
            "{lines:?}"
        );
        assert!(
            lines[0].ends_with("1 own folder, 1 readable path"),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("network: "), "{lines:?}");
        assert_eq!(lines[2].contains("Landlock scope"), abi >= 6, "{lines:?}");
    }

    /// Runs a classic-BPF seccomp program on one call, the way the kernel does (only the
    /// instructions the filter uses: absolute word loads, jeq/jge with a constant, return).
    fn run_filter(prog: &[libc::sock_filter], arch: u32, nr: u32, arg0: u32) -> u32 {
        let word = |off: u32| match off {
            0 => nr,
            4 => arch,
            16 => arg0,
            _ => panic!("load at {off}"),
        };
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let ins = prog[pc];
            pc += 1;
            match ins.code {
                0x20 => acc = word(ins.k),
                0x15 | 0x35 => {
                    let taken = if ins.code == 0x15 {
                        acc == ins.k
                    } else {
                        acc >= ins.k
                    };
                    pc += usize::from(if taken { ins.jt } else { ins.jf });
                }
                0x06 => return ins.k,
                code => panic!("instruction {code:#x}"),
            }
        }
    }

    #[test]
    fn the_seccomp_filter_refuses_ip_sockets_and_io_uring_only() {
        let prog = linux::seccomp_filter();
        let Some(arch) = linux::ARCH else {
            assert!(prog.is_empty());
            return;
        };
        // Constants from linux/seccomp.h and the socket/io_uring_setup numbers of the
        // architecture, written out here rather than taken from the module.
        let (allow, eacces, enosys) = (0x7fff_0000, 0x0005_0000 | 13, 0x0005_0000 | 38);
        let (socket, io_uring_setup, read) = if cfg!(target_arch = "x86_64") {
            (41, 425, 0)
        } else {
            (198, 425, 63)
        };
        let (af_unix, af_inet, af_inet6, af_netlink, af_packet) = (1, 2, 10, 16, 17);
        assert_eq!(run_filter(&prog, arch, socket, af_inet), eacces);
        assert_eq!(run_filter(&prog, arch, socket, af_inet6), eacces);
        assert_eq!(run_filter(&prog, arch, socket, af_packet), eacces);
        assert_eq!(run_filter(&prog, arch, socket, af_unix), allow);
        assert_eq!(run_filter(&prog, arch, socket, af_netlink), allow);
        assert_eq!(run_filter(&prog, arch, io_uring_setup, 0), enosys);
        assert_eq!(run_filter(&prog, arch, read, af_inet), allow);
        // An x32 call, and any call of another architecture (i386: 0x40000003).
        assert_eq!(
            run_filter(&prog, arch, 0x4000_0000 | socket, af_inet),
            enosys
        );
        assert_eq!(run_filter(&prog, 0x4000_0003, 102, 1), enosys);
    }
}

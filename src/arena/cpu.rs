//! CPU time, where the machine can tell it, read before and after each move by the referee:
//! the calling thread's ([`thread_time`]: a built-in engine searches on the thread that asks it
//! for a move), and an outside program's process group's ([`GroupCpu`], Linux).

use std::time::Duration;

/// CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`: nanoseconds, every Unix);
/// `None` where the machine has no such clock.
pub fn thread_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime(2) writes the timespec it is given and nothing else.
        let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        (r == 0 && ts.tv_sec >= 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// How long a group's list of processes is trusted before `/proc` is scanned again for new ones.
/// A scan reads every process's `stat` (0.6 to 1.2 ms for 65 processes on a loaded machine, more
/// on a desktop) where a reading of the processes already known costs microseconds: scanning at
/// every game made a match of two instant engines ten times slower (`benches/outside.rs`).
#[cfg(target_os = "linux")]
const RESCAN: Duration = Duration::from_millis(200);

/// Scans take at most this share of the time (1/100): where the last one took longer than a
/// hundredth of [`RESCAN`] (many processes), the next waits a hundred times as long as it took.
#[cfg(target_os = "linux")]
const RESCAN_SHARE: u32 = 100;

/// The most processes of one group followed at once (each holds an open file): a program that
/// runs more at a time is counted for the first ones found.
#[cfg(target_os = "linux")]
const MAX_MEMBERS: usize = 64;

/// The CPU time an outside program has used: every thread of every live process of its
/// process group (nanoseconds, `clock_getcpuclockid` and `clock_gettime`; the clock ticks of
/// `/proc/PID/stat` where that clock cannot be read), plus what each of them holds of its
/// reaped children (`cutime + cstime`, in clock ticks of 10 ms: the kernel keeps no finer
/// figure), so that a wrapper running one engine process per move is counted whole. Linux only:
/// elsewhere every reading is `None`.
///
/// The group's processes are looked for in `/proc` at the first reading (a program started
/// again has a new meter), then at a reading 200 ms or more after the last look (a hundred
/// times the last look's cost, if that is longer) — the first reading of a new game included,
/// when that much time has passed; in between only the processes known are read. Each reading
/// is the last one plus what every known process used since (never less: the figure only
/// grows, so no move's CPU time is negative):
/// - a process that ends is usually reaped by its parent in the group, whose children's time
///   then grows by all that process used; what was already counted of it is taken off that
///   growth (processes are read parents first, so a reaping between two reads is not counted
///   twice). One reaped outside the group (by joute, which adopts orphans) loses what it used
///   since the last reading;
/// - a process found by a later scan counts whole when it started after the last reading (all
///   its time is since), and from its discovery otherwise: its past is not poured into one
///   move, at the price of what it used between the last reading and the scan that found it;
/// - a process that leaves the group (`setsid`) counts up to its last reading in the group.
#[derive(Debug)]
pub struct GroupCpu {
    #[cfg(target_os = "linux")]
    inner: linux::Group,
}

impl GroupCpu {
    /// A meter of process group `group` (the id of the process that leads it).
    pub fn new(group: u32) -> GroupCpu {
        #[cfg(not(target_os = "linux"))]
        let _ = group;
        GroupCpu {
            #[cfg(target_os = "linux")]
            inner: linux::Group::new(group),
        }
    }

    /// The group's CPU time so far (see the type's documentation), `None` where it cannot be
    /// measured.
    pub fn read(&mut self) -> Option<Duration> {
        #[cfg(target_os = "linux")]
        {
            Some(self.inner.read())
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::fs::File;
    use std::os::unix::fs::FileExt;
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    use super::{MAX_MEMBERS, RESCAN, RESCAN_SHARE};
    use crate::arena::descendants;

    /// What `/proc/PID/stat` says of a process, as far as its CPU time goes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(super) struct Stat {
        pub(super) parent: u32,
        pub(super) group: u32,
        /// `utime + stime`, clock ticks: every thread's, the dead ones' included.
        pub(super) own: u64,
        /// `cutime + cstime`, clock ticks: the children it reaped, and theirs.
        pub(super) children: u64,
        /// When it started, clock ticks since boot.
        pub(super) start: u64,
    }

    /// Reads a `stat` line; `None` for anything else. The command name is in parentheses and
    /// may hold anything (spaces, parentheses): the fields follow the last `)`.
    pub(super) fn parse_stat(text: &[u8]) -> Option<Stat> {
        let close = text.iter().rposition(|&b| b == b')')?;
        let rest = std::str::from_utf8(text.get(close + 2..)?).ok()?;
        let mut fields = rest.split(' ');
        let _state = fields.next()?;
        let parent = fields.next()?.parse().ok()?;
        let group = fields.next()?.parse().ok()?;
        // session, tty, tpgid, flags, minflt, cminflt, majflt, cmajflt; then utime.
        let mut fields = fields.skip(8);
        let mut tick = || fields.next()?.parse::<i64>().ok().map(|t| t.max(0) as u64);
        let (utime, stime, cutime, cstime) = (tick()?, tick()?, tick()?, tick()?);
        // priority, nice, num_threads, itrealvalue; then starttime.
        let start = fields.nth(4)?.parse().ok()?;
        Some(Stat {
            parent,
            group,
            own: utime.saturating_add(stime),
            children: cutime.saturating_add(cstime),
            start,
        })
    }

    /// Clock ticks a second (`sysconf(_SC_CLK_TCK)`, 100 nearly everywhere).
    fn ticks_per_second() -> u64 {
        static TICKS: OnceLock<u64> = OnceLock::new();
        *TICKS.get_or_init(|| {
            // SAFETY: sysconf(3) reads a constant of the system.
            let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
            if t > 0 { t as u64 } else { 100 }
        })
    }

    pub(super) fn ticks(n: u64) -> Duration {
        Duration::from_nanos(n.saturating_mul(1_000_000_000 / ticks_per_second()))
    }

    /// Clock ticks since boot, as `/proc` dates a process's start.
    fn boot_ticks() -> Option<u64> {
        let now = clock(libc::CLOCK_BOOTTIME)?;
        Some((now.as_nanos() / u128::from(1_000_000_000 / ticks_per_second())) as u64)
    }

    /// The time of `clock`, if it can be read.
    fn clock(clock: libc::clockid_t) -> Option<Duration> {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime(2) writes the timespec it is given and nothing else.
        let r = unsafe { libc::clock_gettime(clock, &mut ts) };
        (r == 0 && ts.tv_sec >= 0 && (0..1_000_000_000).contains(&ts.tv_nsec))
            .then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }

    /// The CPU clock of process `pid` (all its threads), where the kernel gives one.
    fn cpu_clock(pid: u32) -> Option<libc::clockid_t> {
        let mut id: libc::clockid_t = 0;
        // SAFETY: clock_getcpuclockid(3) writes the clock id it is given and nothing else.
        let r = unsafe { libc::clock_getcpuclockid(pid as libc::pid_t, &mut id) };
        (r == 0).then_some(id)
    }

    /// One process of the group, and what has been counted of it.
    #[derive(Debug)]
    struct Member {
        pid: u32,
        /// When it started (clock ticks since boot): parents come before their children.
        start: u64,
        /// Its `/proc/PID/stat`, kept open: it reads this process or fails, whoever gets its
        /// pid later.
        stat: File,
        clock: Option<libc::clockid_t>,
        /// Its parent at the last reading.
        parent: u32,
        /// Its own CPU time counted (all its threads).
        own: Duration,
        /// Its reaped children's time counted.
        children: Duration,
        /// Time of members it reaped that was counted already while they lived: taken off
        /// the next growth of `children`.
        owed: Duration,
    }

    /// One reading of a member.
    #[derive(Clone, Copy, Debug)]
    struct Now {
        stat: Stat,
        own: Duration,
    }

    impl Member {
        fn open(pid: u32, buffer: &mut [u8]) -> Option<(Member, Now)> {
            let stat = File::open(format!("/proc/{pid}/stat")).ok()?;
            let mut member = Member {
                pid,
                start: 0,
                stat,
                clock: cpu_clock(pid),
                parent: 0,
                own: Duration::ZERO,
                children: Duration::ZERO,
                owed: Duration::ZERO,
            };
            let now = member.read(buffer)?;
            member.start = now.stat.start;
            member.parent = now.stat.parent;
            Some((member, now))
        }

        /// Reads it now; `None` once it is gone (reaped). The stat first: read after it, the
        /// clock is of the same process (a pid is not reused before its process is reaped,
        /// and a reaped process's clock cannot be read).
        fn read(&self, buffer: &mut [u8]) -> Option<Now> {
            let n = self.stat.read_at(buffer, 0).ok()?;
            let stat = parse_stat(&buffer[..n])?;
            let own = self
                .clock
                .and_then(clock)
                .unwrap_or_else(|| ticks(stat.own));
            Some(Now { stat, own })
        }
    }

    /// The state of [`super::GroupCpu`].
    #[derive(Debug)]
    pub(super) struct Group {
        group: u32,
        members: Vec<Member>,
        /// The last reading: it only grows.
        total: Duration,
        /// When `/proc` was last looked at (`None`: never, the next reading does).
        scanned: Option<Instant>,
        /// How long until the next look (at least [`RESCAN`]).
        rescan: Duration,
        /// When the last reading was taken, in clock ticks since boot.
        last_reading: Option<u64>,
        /// Each member's reading, reused from reading to reading.
        now: Vec<Option<Now>>,
    }

    /// Room for a `stat` line (52 numbers and a name of at most 64 bytes).
    const STAT_BYTES: usize = 2048;

    impl Group {
        pub(super) fn new(group: u32) -> Group {
            Group {
                group,
                members: Vec::new(),
                total: Duration::ZERO,
                scanned: None,
                rescan: RESCAN,
                last_reading: None,
                now: Vec::new(),
            }
        }

        pub(super) fn read(&mut self) -> Duration {
            let mut buffer = [0u8; STAT_BYTES];
            if self.scanned.is_none_or(|at| at.elapsed() >= self.rescan) {
                self.scan(&mut buffer);
            }
            // Parents before children (the members are kept in order of their start): a
            // process reaped between its parent's reading and its own is missing here, and its
            // parent's children's time has not grown yet.
            self.now.clear();
            for m in &self.members {
                self.now.push(m.read(&mut buffer));
            }
            // What the members gone since the last reading were counted for is owed by their
            // parent, whose children's time grows by all they used once it reaps them.
            for i in 0..self.members.len() {
                if self.now[i].is_some() {
                    continue;
                }
                let (parent, counted) = {
                    let m = &self.members[i];
                    (m.parent, m.own + m.children)
                };
                let reaper = (0..self.members.len())
                    .find(|&j| self.members[j].pid == parent && self.now[j].is_some());
                if let Some(j) = reaper {
                    let owed = &mut self.members[j].owed;
                    *owed = owed.saturating_add(counted);
                }
            }
            for (m, now) in self.members.iter_mut().zip(&self.now) {
                let Some(now) = now.filter(|n| n.stat.group == self.group) else {
                    continue;
                };
                m.parent = now.stat.parent;
                self.total += now.own.saturating_sub(m.own);
                m.own = m.own.max(now.own);
                let children = ticks(now.stat.children);
                let grown = children.saturating_sub(m.children);
                m.children = m.children.max(children);
                let repaid = grown.min(m.owed);
                m.owed -= repaid;
                self.total += grown - repaid;
            }
            // The gone, and those that left the group, are followed no more.
            let mut i = 0;
            self.members.retain(|_| {
                let keep = self.now[i].is_some_and(|n| n.stat.group == self.group);
                i += 1;
                keep
            });
            self.last_reading = boot_ticks();
            self.total
        }

        /// Looks for the group's processes in `/proc`, and starts following the new ones.
        fn scan(&mut self, buffer: &mut [u8]) {
            let began = Instant::now();
            self.scanned = Some(began);
            for p in descendants::processes() {
                if p.group != self.group
                    || self.members.len() >= MAX_MEMBERS
                    || self.members.iter().any(|m| m.pid == p.pid)
                {
                    continue;
                }
                let Some((mut member, now)) = Member::open(p.pid, buffer) else {
                    continue;
                };
                if now.stat.group != self.group {
                    continue;
                }
                // Started since the last reading: all its time is since, count it whole.
                // Already there (found late): count it from now on, not its past in one move.
                let whole = self.last_reading.is_none_or(|at| now.stat.start >= at);
                if !whole {
                    member.own = now.own;
                    member.children = ticks(now.stat.children);
                }
                self.members.push(member);
            }
            self.members.sort_by_key(|m| (m.start, m.pid));
            self.rescan = RESCAN.max(began.elapsed() * RESCAN_SHARE);
        }
    }

    #[cfg(test)]
    mod tests {
        use std::os::unix::process::CommandExt;
        use std::process::{Child, Command, Stdio};
        use std::time::{Duration, Instant};

        use super::*;

        /// Python burning `seconds` of its own CPU time, whatever the machine's load.
        fn burn(seconds: f64) -> String {
            format!(
                "python3 -c 'import time\nt=time.process_time()\nwhile time.process_time()-t<{seconds}: pass'"
            )
        }

        /// `sh -c script` in a process group of its own, killed with it when dropped.
        struct Program(Child);

        impl Program {
            fn start(script: &str) -> Program {
                let child = Command::new("sh")
                    .args(["-c", script])
                    .stdin(Stdio::piped())
                    .process_group(0)
                    .spawn()
                    .unwrap();
                Program(child)
            }

            fn id(&self) -> u32 {
                self.0.id()
            }

            /// Lets the script's `read` go on.
            fn go(&mut self) {
                use std::io::Write;
                let stdin = self.0.stdin.as_mut().unwrap();
                stdin.write_all(b"go\n").unwrap();
                stdin.flush().unwrap();
            }

            /// The processes of its group that run `name`.
            fn running(&self, name: &str) -> Vec<u32> {
                descendants::processes()
                    .into_iter()
                    .filter(|p| p.group == self.id() && !p.zombie)
                    .filter(|p| {
                        std::fs::read_to_string(format!("/proc/{}/comm", p.pid))
                            .is_ok_and(|c| c.trim().starts_with(name))
                    })
                    .map(|p| p.pid)
                    .collect()
            }
        }

        impl Drop for Program {
            fn drop(&mut self) {
                // SAFETY: kill(2) of the group the test started.
                unsafe {
                    libc::kill(-(self.0.id() as i32), libc::SIGKILL);
                }
                let _ = self.0.wait();
            }
        }

        fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
            let clock = Instant::now();
            while !done() {
                assert!(clock.elapsed() < Duration::from_secs(30), "{what}");
                std::thread::sleep(Duration::from_millis(10));
            }
        }

        fn ms(d: Duration) -> f64 {
            d.as_secs_f64() * 1000.0
        }

        #[test]
        fn stat_lines_are_read_whatever_the_command_name() {
            let line = b"4242 (a) b) (c) R 17 4242 4242 0 -1 4194560 100 0 0 0 \
                         250 30 12 -3 20 0 3 0 98765 1000 100 18446744073709551615";
            let stat = parse_stat(line).unwrap();
            assert_eq!(
                stat,
                Stat {
                    parent: 17,
                    group: 4242,
                    own: 280,
                    children: 12,
                    start: 98765
                }
            );
            assert_eq!(parse_stat(b"4242 (x) R 17"), None);
            assert_eq!(parse_stat(b"no parenthesis"), None);
            assert_eq!(parse_stat(b"1 (x)"), None);
            let mut own = [0u8; STAT_BYTES];
            let me = File::open("/proc/self/stat").unwrap();
            let n = me.read_at(&mut own, 0).unwrap();
            let stat = parse_stat(&own[..n]).unwrap();
            assert_eq!(stat.parent, std::os::unix::process::parent_id());
        }

        proptest::proptest! {
            /// A `stat` line cut anywhere, or any bytes, is read or refused without failing.
            #[test]
            fn no_stat_text_fails_the_reading(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400), cut in 0usize..200) {
                parse_stat(&bytes);
                let line = b"4242 (a) b) (c) R 17 4242 4242 0 -1 4194560 100 0 0 0 250 30 12 -3 20 0 3 0 98765 1000";
                // Cut before its start time (the last field read, ` 98765`), it is refused.
                let start = line.windows(6).position(|w| w == b" 98765").unwrap();
                let cut = cut.min(line.len());
                if cut <= start + 1 {
                    proptest::prop_assert_eq!(parse_stat(&line[..cut]), None);
                } else {
                    proptest::prop_assert!(parse_stat(&line[..cut]).is_some());
                }
            }
        }

        #[test]
        fn a_child_that_burns_is_counted_and_readings_never_go_back() {
            // The program waits, its child burns: the group's CPU time grows by what the child
            // burns, read live (its own clock) and then once its parent reaped it.
            let mut program = Program::start(&format!("read x; {}; read y", burn(0.4)));
            let mut meter = Group::new(program.id());
            let first = meter.read();
            program.go();
            let mut last = first;
            let mut seen = false;
            loop {
                meter.scanned = None;
                let now = meter.read();
                assert!(now >= last, "{now:?} after {last:?}");
                last = now;
                seen |= meter.members.len() >= 2;
                let gone = seen && program.running("python").is_empty();
                if gone && meter.members.len() == 1 {
                    break;
                }
                assert!(ms(last - first) < 5000.0, "{last:?}");
                std::thread::sleep(Duration::from_millis(20));
            }
            let used = ms(meter.read() - first);
            // 400 ms burnt and Python's start (tens of ms), counted once: not twice, though it
            // was read live and again in its parent's children's time.
            assert!((380.0..750.0).contains(&used), "{used} ms");
        }

        #[test]
        fn a_process_found_late_counts_from_then_not_its_past() {
            let mut program = Program::start(&format!("read x; {} & read y", burn(30.0)));
            let mut meter = Group::new(program.id());
            let first = meter.read();
            assert_eq!(meter.members.len(), 1);
            program.go();
            // The child burns 100 ms or more before the next reading, which scans nothing.
            let mut child = Vec::new();
            wait_for("the child", || {
                child = program.running("python");
                child.len() == 1
            });
            wait_for("the child's first 100 ms", || {
                let stat = std::fs::read(format!("/proc/{}/stat", child[0])).unwrap();
                parse_stat(&stat).is_some_and(|s| ticks(s.own) >= Duration::from_millis(100))
            });
            meter.scanned = Some(Instant::now());
            let before = meter.read();
            assert_eq!(meter.members.len(), 1);
            // Found by the next scan: it began before the last reading, so it counts from now.
            meter.scanned = None;
            let found = meter.read();
            assert_eq!(meter.members.len(), 2);
            assert!(ms(found - before) < 50.0, "{found:?} after {before:?}");
            // From then on it counts: the readings grow with its burning (waited for, not
            // timed: a loaded machine gives the child its CPU late).
            wait_for("the found child's next 60 ms", || {
                let later = meter.read();
                assert!(later >= found, "{later:?} after {found:?}");
                ms(later - found) >= 60.0
            });
            assert!(before >= first);
        }

        #[test]
        fn a_process_started_since_the_last_reading_counts_whole() {
            // The child burns far longer than the test waits: it is alive when counted, however
            // slowly a loaded machine runs it.
            let mut program = Program::start(&format!("read x; {} & read y", burn(30.0)));
            let mut meter = Group::new(program.id());
            let first = meter.read();
            program.go();
            wait_for("the child to burn its time", || {
                let children = program.running("python");
                children.len() == 1 && {
                    let stat = std::fs::read(format!("/proc/{}/stat", children[0]));
                    stat.ok()
                        .and_then(|s| parse_stat(&s))
                        .is_some_and(|s| ticks(s.own) >= Duration::from_millis(150))
                }
            });
            meter.scanned = None;
            let found = meter.read();
            assert!(ms(found - first) >= 150.0, "{found:?} after {first:?}");
        }

        #[test]
        fn a_sleeping_program_uses_next_to_nothing() {
            let program = Program::start("sleep 30");
            let mut meter = Group::new(program.id());
            let first = meter.read();
            std::thread::sleep(Duration::from_millis(300));
            let later = meter.read();
            assert!(ms(later - first) < 20.0, "{later:?} after {first:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_works_gains_cpu_time_and_one_that_sleeps_does_not() {
        let Some(start) = thread_time() else {
            return;
        };
        // Work until the thread's own clock has gained 20 ms: however busy the machine, it
        // gets there (a wall-clock bound only stops a clock that never moves).
        let wall = std::time::Instant::now();
        let mut x = 1u64;
        while thread_time().unwrap() - start < Duration::from_millis(20) {
            for _ in 0..10_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            assert!(
                wall.elapsed() < Duration::from_secs(60),
                "the clock does not move"
            );
        }
        std::hint::black_box(x);
        // Sleeping uses no CPU, whatever else runs.
        let before = thread_time().unwrap();
        std::thread::sleep(Duration::from_millis(30));
        let slept = thread_time().unwrap() - before;
        assert!(slept < Duration::from_millis(5), "{slept:?}");
    }
}

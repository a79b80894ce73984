//! An outside engine's process, held at arm's length: started in a process group of its own,
//! spoken to one line at a time, every read under a time limit (`poll(2)` on its output, read
//! by the thread that asks, so an answer costs no hop between threads), its lines capped in
//! length and read only as they are wanted (a flooding engine waits on its pipe instead of
//! filling joute's memory), its stderr appended to a log with the last lines kept for error
//! messages, and the whole group killed on every way out (quit, error, drop; and with joute
//! itself on Linux, even by SIGKILL).
//!
//! The protocols (GTP, NBoard, Gomocup, joute's line protocol) are built on this.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::confine::Confinement;
use super::cpu::GroupCpu;
use super::descendants::{self, Leftover};
use super::engine_log::{CappedLog, EngineLog};
use super::game::{PassedOver, PlayerError, Unanswered};
use super::limits::{Bounds, Limits};

/// The longest line an engine may write, in bytes.
pub const MAX_LINE: usize = 64 * 1024;
/// How often, at most, a running program's limits are read ([`EngineProcess::limit_met`]).
const LIMITS_READ: Duration = Duration::from_millis(50);
/// Lines of stderr kept for error messages.
const STDERR_LINES: usize = 5;
/// What comes before those lines in a message.
const STDERR_ENDED: &str = "; its stderr ended: ";
/// Lines that are no answer copied to the engine's log, per process (the rest are counted).
const PASSED_OVER_LOGGED: u64 = 10;

/// What a line an engine wrote is to the exchange waiting for its answer: every protocol
/// passes over what is not the answer (up to a cap), the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// The answer awaited.
    Answer,
    /// A line its protocol lets a program write before an answer (a comment, a status line,
    /// an empty line): passed over.
    Aside,
    /// Any other line (a debug print on stdout): passed over, counted, the first few kept for
    /// messages and copied to the engine's log.
    Stray,
}

/// Interpreters whose first argument that is no option is the engine (`python3 engine.py`).
const INTERPRETERS: [&str; 15] = [
    "python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "julia",
    "Rscript", "java", "sh", "bash",
];

/// The engine's name for messages: the script an interpreter runs (`engine.py`, as written:
/// its first argument that is a file in `dir`, or else that is no option), else the program's
/// file name (not the folder it was found in, nor a version manager's shim).
pub fn program_name(command: &std::path::Path, args: &[String], dir: Option<&Path>) -> String {
    let file = command.file_name().map_or_else(
        || command.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    if !is_interpreter(command) {
        return file;
    }
    let is_file = |a: &&String| dir.map_or_else(|| Path::new(a).is_file(), |d| d.join(a).is_file());
    let script = (args.iter().find(is_file)).or_else(|| args.iter().find(|a| !a.starts_with('-')));
    script.map_or(file, |script| crate::arena::game::cut(script, 80))
}

/// Whether `command` is an interpreter ([`INTERPRETERS`], a version number allowed after it:
/// `python3.12`).
fn is_interpreter(command: &Path) -> bool {
    let file = command
        .file_name()
        .map(|f| f.to_string_lossy())
        .unwrap_or_default();
    INTERPRETERS.iter().any(|i| {
        file.strip_prefix(i)
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
    })
}

/// The script an interpreter runs (`python3 engine.py`): its first argument that is a file
/// (relative to `dir`, the folder it runs in, when given); `None` for a program that is no
/// interpreter.
pub fn script_of(command: &Path, args: &[String], dir: Option<&Path>) -> Option<PathBuf> {
    if !is_interpreter(command) {
        return None;
    }
    args.iter()
        .map(|a| dir.map_or_else(|| PathBuf::from(a), |d| d.join(a)))
        .find(|p| p.is_file())
}

/// How to start an outside engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessSpec {
    /// The program.
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working folder (joute's when `None`).
    pub working_dir: Option<PathBuf>,
    /// The log its stderr is appended to, line by line, capped (kept only in memory when
    /// `None`).
    pub stderr_log: Option<EngineLog>,
    /// Confined ([`crate::arena::confine`]): what it may reach beyond the system's folders. A
    /// temporary folder of its own is added (its `TMPDIR` and `HOME`, and its working folder
    /// when it has none).
    pub confine: Option<Confinement>,
    /// Its resource limits ([`crate::arena::limits`]; `None`: none at all).
    pub limits: Option<Limits>,
}

/// The last lines of an engine's stderr, and whether it has closed.
#[derive(Default)]
struct StderrTail {
    lines: VecDeque<String>,
    closed: bool,
}

/// The engine's output as it is read: the bytes read but not yet taken as lines.
struct Output {
    pipe: ChildStdout,
    buffer: Vec<u8>,
    /// Where to look for the next line end (the bytes before it have none).
    scanned: usize,
    /// A line too long is being passed over up to its end.
    skipping: bool,
}

/// What one read of the output gave.
enum Got {
    Line(String),
    TooLong,
    End,
    Timeout,
}

impl Output {
    /// The next line within `deadline`.
    fn next(&mut self, deadline: Instant) -> std::io::Result<Got> {
        loop {
            if let Some(at) = self.buffer[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + at;
                let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
                self.scanned = 0;
                if std::mem::take(&mut self.skipping) {
                    return Ok(Got::TooLong);
                }
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if line.len() > MAX_LINE {
                    return Ok(Got::TooLong);
                }
                return Ok(Got::Line(String::from_utf8_lossy(&line).into_owned()));
            }
            self.scanned = self.buffer.len();
            if self.buffer.len() > MAX_LINE {
                // No end in sight: drop what was read and pass over the rest of the line.
                self.buffer.clear();
                self.scanned = 0;
                self.skipping = true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if !wait_readable(&self.pipe, left)? {
                return Ok(Got::Timeout);
            }
            let mut chunk = [0u8; 8192];
            match self.pipe.read(&mut chunk) {
                Ok(0) => return Ok(Got::End),
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// What was read of a line whose end has not come (none once a line too long is being
    /// passed over), taken out of the buffer.
    fn take_unended(&mut self) -> Option<String> {
        if self.skipping || self.buffer.is_empty() {
            return None;
        }
        let mut text = std::mem::take(&mut self.buffer);
        self.scanned = 0;
        if text.last() == Some(&b'\r') {
            text.pop();
        }
        Some(String::from_utf8_lossy(&text).into_owned())
    }
}

/// What the child does between fork and exec: a process group of its own (a kill reaches
/// whatever it starts too), death with joute (Linux), its cgroups and resource limits, then its
/// confinement.
fn hold_in_child(
    command: &mut Command,
    bounds: Option<Arc<Bounds>>,
    confined: Option<Arc<super::confine::Prepared>>,
) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // prctl(2), `Bounds::enter` and `Prepared::enter` (system calls on what the parent made
        // ready, no allocation, no lock); it touches no memory of the parent's beyond reading
        // those.
        unsafe {
            command.pre_exec(move || {
                // Killed with joute, even by SIGKILL, which no exit path of joute's sees.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // Its cgroups and resource limits, before the confinement, which would refuse
                // the writes that join a cgroup.
                if let Some(b) = &bounds {
                    b.enter()?;
                }
                // Last: once confined, nothing more of joute's may be done to it.
                if let Some(c) = &confined {
                    c.enter()?;
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (bounds, confined);
}

/// Makes the program's output non-blocking: a read takes what is there, and poll(2) does the
/// waiting.
fn set_nonblocking(stdout: &ChildStdout) {
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl(2) on the pipe's own descriptor, which stays open with `stdout`.
    unsafe {
        let fd = stdout.as_raw_fd();
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

/// Reads the stderr of process `pid` on a thread of its own until it closes: each line to
/// `log` (with the pid), the last ones kept in `tail` for error messages.
fn read_stderr(
    pipe: std::process::ChildStderr,
    log: Option<Arc<Mutex<CappedLog>>>,
    tail: Arc<Mutex<StderrTail>>,
    pid: u32,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("joute-engine-stderr".into())
        .spawn(move || {
            let mut reader = BufReader::new(pipe);
            while let Ok(Some(line)) = read_capped(&mut reader) {
                if let (Some(log), Some(text)) = (log.as_ref(), line.as_deref()) {
                    // One line at a time through the log's one writer: the lines of several
                    // processes of one engine interleave whole, each with its process id.
                    let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
                    let _ = log.write_line(format!("[{pid}] {text}\n").as_bytes());
                }
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                if tail.lines.len() == STDERR_LINES {
                    tail.lines.pop_front();
                }
                let line = line.unwrap_or_else(|| "(a line too long to keep)".into());
                tail.lines.push_back(line);
            }
            tail.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        })
        .map(|_| ())
}

/// Makes `c` ready for `command`, with a fresh temporary folder of the program's own (its
/// `TMPDIR` and `HOME`, and its working folder when `spec` gives none): outside the run folder,
/// removed when the program is done with.
fn confine_in_own_folder(
    c: &Confinement,
    command: &mut Command,
    spec: &ProcessSpec,
) -> Result<(super::confine::Prepared, tempfile::TempDir), String> {
    let folder = tempfile::Builder::new()
        .prefix("joute-engine-")
        .tempdir()
        .map_err(|e| format!("no temporary folder of its own ({e})"))?;
    let mut c = c.clone();
    c.own.push(folder.path().to_path_buf());
    command
        .env("TMPDIR", folder.path())
        .env("HOME", folder.path());
    if spec.working_dir.is_none() {
        command.current_dir(folder.path());
    }
    Ok((super::confine::prepare(&c)?, folder))
}

/// Waits until `pipe` has something to read (or its writer closed it): `false` when `wait`
/// passed first.
fn wait_readable(pipe: &ChildStdout, wait: Duration) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let mut fd = libc::pollfd {
        fd: pipe.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let spec = libc::timespec {
        tv_sec: wait.as_secs() as libc::time_t,
        tv_nsec: wait.subsec_nanos() as libc::c_long,
    };
    loop {
        // SAFETY: one valid pollfd for the length given, a valid timespec, no signal mask.
        let n = unsafe { libc::ppoll(&mut fd, 1, &spec, std::ptr::null()) };
        match n {
            0 => return Ok(false),
            n if n > 0 => return Ok(true),
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// A running outside engine. Dropping it kills its process group.
pub struct EngineProcess {
    name: String,
    /// Where its stderr goes (lines that are no answer are copied there too).
    log: Option<Arc<Mutex<CappedLog>>>,
    /// Every line it wrote that was no answer, passed over, since it started.
    passed_over: PassedOver,
    child: Child,
    stdin: Option<ChildStdin>,
    /// The line being written, reused.
    out: Vec<u8>,
    output: Output,
    stderr: Arc<Mutex<StderrTail>>,
    ended: bool,
    /// The mark its descendants carry ([`descendants`]).
    token: String,
    /// Killed and reaped already.
    killed: bool,
    /// The CPU time of its process group.
    cpu: GroupCpu,
    /// Stopped (SIGSTOP to its group) until it is next spoken to.
    paused: bool,
    /// What holds it, one line each (its confinement, its limits).
    held: Vec<String>,
    /// The temporary folder of its own a confined program gets, removed with it.
    _own_folder: Option<tempfile::TempDir>,
    /// Its resource limits (its cgroups removed when it is dropped, after it is killed).
    bounds: Option<Bounds>,
    /// How it exited, once known.
    exit: Option<std::process::ExitStatus>,
    /// When its limits' counters were last read.
    checked_at: Option<Instant>,
}

impl EngineProcess {
    /// Starts `spec` in a new process group, its stdin and stdout piped, its stderr kept;
    /// confined when `spec.confine` says so.
    pub fn spawn(spec: &ProcessSpec) -> Result<EngineProcess, PlayerError> {
        let name = program_name(&spec.command, &spec.args, spec.working_dir.as_deref());
        let mut command = Command::new(&spec.command);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.working_dir {
            command.current_dir(dir);
        }
        let cannot = |what: &str, e: String| {
            PlayerError::Failed(format!(
                "cannot start {} {what}: {e}",
                spec.command.display()
            ))
        };
        let (confined, own_folder) = match &spec.confine {
            None => (None, None),
            Some(c) => {
                let (prepared, folder) = confine_in_own_folder(c, &mut command, spec)
                    .map_err(|e| cannot("confined", e))?;
                (Some(Arc::new(prepared)), Some(folder))
            }
        };
        let bounds = match &spec.limits {
            Some(limits) => {
                let label = name.clone();
                Some(Arc::new(
                    super::limits::prepare(limits, &label).map_err(|e| cannot("", e))?,
                ))
            }
            None => None,
        };
        let mut held = confined.as_ref().map_or_else(Vec::new, |c| c.applied());
        if let Some(b) = &bounds {
            held.extend(b.applied().lines());
        }
        hold_in_child(&mut command, bounds.clone(), confined);
        let (mut child, token) = descendants::spawn(&mut command).map_err(|e| {
            PlayerError::Failed(format!("cannot start {}: {e}", spec.command.display()))
        })?;
        drop(command); // the hook with it: the ruleset's descriptor, the limits' other owner
        let bounds = bounds.map(|b| Arc::try_unwrap(b).expect("the spawn hook is gone"));
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        set_nonblocking(&stdout);
        let stderr = Arc::new(Mutex::new(StderrTail::default()));
        let tail = stderr.clone();
        let log = match &spec.stderr_log {
            Some(log) => Some(log.open().map_err(|e| {
                PlayerError::Failed(format!(
                    "cannot write the engine log {}: {e}",
                    log.path.display()
                ))
            })?),
            None => None,
        };
        let pid = child.id();
        let passed_over_log = log.clone();
        read_stderr(stderr_pipe, log, tail, pid)
            .map_err(|e| PlayerError::Failed(format!("cannot read {name}: {e}")))?;
        Ok(EngineProcess {
            name,
            log: passed_over_log,
            passed_over: PassedOver::default(),
            stdin: child.stdin.take(),
            out: Vec::new(),
            child,
            output: Output {
                pipe: stdout,
                buffer: Vec::new(),
                scanned: 0,
                skipping: false,
            },
            stderr,
            ended: false,
            token,
            killed: false,
            cpu: GroupCpu::new(pid),
            paused: false,
            held,
            _own_folder: own_folder,
            bounds,
            exit: None,
            checked_at: None,
        })
    }

    /// Writes `line` and a newline, flushed.
    pub fn send(&mut self, line: &str) -> Result<(), PlayerError> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| PlayerError::Failed(format!("{}: its input is closed", self.name)))?;
        // One write for the line and its end: the program wakes once, with the whole line.
        self.out.clear();
        self.out.extend_from_slice(line.as_bytes());
        self.out.push(b'\n');
        let written = stdin.write_all(&self.out).and_then(|_| stdin.flush());
        written.map_err(|e| self.failure(&format!("cannot write to it ({e})")))
    }

    /// The next line it writes (without its line end), waiting at most `timeout`.
    pub fn read_line(&mut self, timeout: Duration) -> Result<String, PlayerError> {
        if self.ended {
            return Err(self.failure("its output is closed"));
        }
        match self.output.next(Instant::now() + timeout) {
            Ok(Got::Line(line)) => Ok(line),
            Ok(Got::TooLong) => {
                Err(self.failure(&format!("it wrote a line longer than {MAX_LINE} bytes")))
            }
            Ok(Got::End) => {
                self.ended = true;
                Err(self.failure("its output closed"))
            }
            Err(e) => {
                self.ended = true;
                Err(self.failure(&format!("its output cannot be read ({e})")))
            }
            Ok(Got::Timeout) => Err(PlayerError::NoAnswer(timeout, self.unanswered())),
        }
    }

    /// What it has written of a line it has not ended yet, taken as read: for a program that
    /// leaves an answer's line open (PentaZen answers `ABOUT` so), once its time has passed.
    pub fn take_unended(&mut self) -> Option<String> {
        self.output.take_unended()
    }

    /// What is unanswered now: the last line sent.
    fn unanswered(&self) -> Unanswered {
        let sent = String::from_utf8_lossy(&self.out);
        let sent = sent.trim_end();
        Unanswered {
            request: (!sent.is_empty()).then(|| sent.to_string()),
            passed_over: PassedOver::default(),
        }
    }

    /// Reads lines until `heard` says one is the answer, all within `timeout`, passing over at
    /// most `max_skipped` others ([`Heard::Aside`] and [`Heard::Stray`] lines): an engine that
    /// talks forever without answering fails ([`PlayerError::Chatter`]) instead of holding the
    /// game. Stray lines are counted ([`EngineProcess::passed_over`]), the first ones copied
    /// to the engine's log, and named in the error when no answer comes.
    pub fn read_until(
        &mut self,
        timeout: Duration,
        max_skipped: usize,
        mut heard: impl FnMut(&str) -> Heard,
    ) -> Result<String, PlayerError> {
        let deadline = Instant::now() + timeout;
        let mut strays = PassedOver::default();
        for _ in 0..=max_skipped {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.read_line(left).map_err(|e| match e {
                PlayerError::NoAnswer(_, mut unanswered) => {
                    unanswered.passed_over = strays.clone();
                    PlayerError::NoAnswer(timeout, unanswered)
                }
                // What it wrote before it went is a clue (`hello` from a wrong program), told
                // before its stderr, whose end matters most.
                PlayerError::Failed(text) if strays.count > 0 => {
                    let at = text.find(STDERR_ENDED).unwrap_or(text.len());
                    PlayerError::Failed(format!("{}{strays}{}", &text[..at], &text[at..]))
                }
                other => other,
            })?;
            match heard(&line) {
                Heard::Answer => return Ok(line),
                Heard::Aside => {}
                Heard::Stray => {
                    strays.note(&line);
                    self.pass_over(&line);
                }
            }
        }
        Err(PlayerError::Chatter(format!(
            "{}: more than {max_skipped} lines without the answer expected{strays}",
            self.name
        )))
    }

    /// Counts a line that is no answer and copies the first ones to the engine's log.
    fn pass_over(&mut self, line: &str) {
        self.passed_over.note(line);
        if self.passed_over.count > PASSED_OVER_LOGGED {
            return;
        }
        if let Some(log) = &self.log {
            let last = if self.passed_over.count == PASSED_OVER_LOGGED {
                " (the last copied here; later ones are only counted)"
            } else {
                ""
            };
            let text = crate::arena::game::cut(line, 200);
            let pid = self.child.id();
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            let _ = log.write_line(
                format!("[{pid}] stdout, no answer, passed over{last}: {text}\n").as_bytes(),
            );
        }
    }

    /// The lines it wrote that were no answer, passed over, since it started.
    pub fn passed_over(&self) -> &PassedOver {
        &self.passed_over
    }

    /// Ends the engine: sends `goodbye` (when given), waits up to `grace` for it to exit, then
    /// kills its process group and its descendants. Returns its exit status when it exited by
    /// itself.
    pub fn quit(&mut self, goodbye: Option<&str>, grace: Duration) -> Option<i32> {
        self.quit_and_list(goodbye, grace).0
    }

    /// [`EngineProcess::quit`], and the processes of the program still running once it has
    /// gone (left in its group, or left the group: a daemon), killed with it.
    pub fn quit_and_list(
        &mut self,
        goodbye: Option<&str>,
        grace: Duration,
    ) -> (Option<i32>, Vec<Leftover>) {
        // A stopped program would not hear its goodbye.
        self.resume();
        if let Some(line) = goodbye {
            let _ = self.send(line);
        }
        // Closing its input tells a well-behaved engine to stop as well.
        self.stdin = None;
        let deadline = Instant::now() + grace;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status.code(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => break None,
            }
        };
        (status, self.kill())
    }

    /// Stops every process of its group (SIGSTOP) until [`EngineProcess::resume`]: an engine
    /// paused while its opponent thinks cannot take the opponent's CPU. A process that left the
    /// group (a daemon) is not stopped. Unix only: elsewhere nothing happens.
    pub fn pause(&mut self) {
        if self.paused || self.killed {
            return;
        }
        self.paused = true;
        #[cfg(unix)]
        // SAFETY: kill(2) with a negative pid signals the group the engine leads; no memory.
        unsafe {
            libc::kill(-(self.child.id() as i32), libc::SIGSTOP);
        }
    }

    /// Lets a paused engine run again (SIGCONT to its group); nothing when it is not paused.
    pub fn resume(&mut self) {
        if !std::mem::take(&mut self.paused) || self.killed {
            return;
        }
        #[cfg(unix)]
        // SAFETY: as in `pause`.
        unsafe {
            libc::kill(-(self.child.id() as i32), libc::SIGCONT);
        }
    }

    /// A new game begins: its CPU time and bytes written count from here for its limits —
    /// unless its limits were read less than [`LIMITS_READ`] ago: games that short are counted
    /// together, from the first of them (reading the counters costs as much as such a game).
    pub fn new_game(&mut self) {
        if self.checked_at.is_some_and(|at| at.elapsed() < LIMITS_READ) {
            return;
        }
        self.checked_at = Some(Instant::now());
        let cpu = self.cpu_time();
        let pid = self.child.id();
        if let Some(b) = &mut self.bounds {
            b.new_game(pid, cpu);
        }
    }

    /// The limit it met, if any, said with its figures ([`crate::arena::limits::Breach`]):
    /// read after each move and after a failure (when it has exited: how, as SIGXCPU tells a
    /// CPU limit met).
    pub fn limit_met(&mut self) -> Option<String> {
        self.bounds.as_ref()?;
        if self.exit.is_none() && !self.killed {
            self.exit = self.child.try_wait().ok().flatten();
        }
        // The counters are read at most every LIMITS_READ while it runs (reading them costs
        // tens of microseconds, as much as a fast program's whole move): the kernel holds
        // memory, processes, each file's size and the CPU time meanwhile, and a failure is
        // always read.
        let now = Instant::now();
        if self.exit.is_none()
            && self
                .checked_at
                .is_some_and(|at| now.duration_since(at) < LIMITS_READ)
        {
            return None;
        }
        self.checked_at = Some(now);
        let cpu = self.cpu_time();
        let pid = self.child.id();
        let bounds = self.bounds.as_mut()?;
        let breach = match self.exit {
            Some(status) => bounds.ended(pid, Some(status)),
            None => bounds.check(pid, cpu),
        };
        breach.map(|b| format!("{}: {b}", self.name))
    }

    /// What holds it, one line each: its confinement as the kernel enforces it, its limits.
    pub fn held(&self) -> &[String] {
        &self.held
    }

    /// The operating system's id of its process (and of its group).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The CPU time its process group has used so far: its threads, its children and the
    /// children they reaped ([`GroupCpu`]; Linux, `None` elsewhere and once it is killed).
    pub fn cpu_time(&mut self) -> Option<Duration> {
        if self.killed {
            return None;
        }
        self.cpu.read()
    }

    /// Kills the whole process group and reaps the engine, then every descendant that left
    /// the group; returns the processes that were still running besides the engine.
    fn kill(&mut self) -> Vec<Leftover> {
        if std::mem::replace(&mut self.killed, true) {
            return Vec::new();
        }
        let pid = self.child.id();
        let mut left = descendants::group_members(pid);
        // SAFETY: kill(2) with a negative pid signals the process group the engine leads
        // (made by `process_group(0)`); it touches no memory.
        unsafe {
            libc::kill(-(pid as i32), libc::SIGKILL);
        }
        let _ = self.child.kill();
        if let Ok(status) = self.child.wait() {
            self.exit.get_or_insert(status);
        }
        descendants::forget(pid);
        // What left the group but not its cgroups (a daemon, its mark dropped or not), named
        // before it is killed.
        let in_cgroup: Vec<Leftover> = (self.bounds.iter().flat_map(Bounds::members))
            .filter(|&p| p != pid)
            .map(|p| Leftover {
                pid: p,
                name: descendants::name_of(p),
            })
            .collect();
        let group: Vec<u32> = left.iter().map(|l| l.pid).collect();
        left.extend(descendants::after_kill(&self.token, &group));
        if let Some(b) = &self.bounds {
            b.kill_all();
        }
        let reaped: Vec<u32> = in_cgroup.iter().map(|l| l.pid).collect();
        descendants::reap(&reaped);
        for l in in_cgroup {
            if !left.iter().any(|k| k.pid == l.pid) {
                left.push(l);
            }
        }
        left
    }

    /// A failure of the engine: what happened, its exit status when it has exited, and the last
    /// lines of its stderr.
    fn failure(&mut self, what: &str) -> PlayerError {
        let mut text = format!("{}: {what}", self.name);
        // Give a dying process a moment, so that its status and last words are known (its
        // stderr is read by another thread: wait for that to reach the end too, briefly, as a
        // process it started may hold the pipe open).
        let mut exited = false;
        for _ in 0..100 {
            if !exited && let Ok(Some(status)) = self.child.try_wait() {
                text.push_str(&format!(" (it exited: {status})"));
                self.exit = Some(status);
                exited = true;
            }
            let closed = self.stderr.lock().unwrap_or_else(|e| e.into_inner()).closed;
            if exited && closed {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        if !tail.lines.is_empty() {
            let lines: Vec<&str> = tail.lines.iter().map(String::as_str).collect();
            text.push_str(&format!("{STDERR_ENDED}{}", lines.join(" | ")));
        }
        PlayerError::Failed(text)
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

/// Reads one line of at most [`MAX_LINE`] bytes: `Some(Some(line))`, `Some(None)` for a line
/// too long (its rest passed over), `None` at the end of the stream. Invalid UTF-8 is replaced.
fn read_capped(reader: &mut impl BufRead) -> std::io::Result<Option<Option<String>>> {
    let mut buf = Vec::new();
    let n = reader
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') && buf.len() > MAX_LINE {
        // Pass over the rest of the line, a bounded chunk at a time.
        loop {
            buf.clear();
            let n = reader
                .by_ref()
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut buf)?;
            if n == 0 || buf.last() == Some(&b'\n') {
                return Ok(Some(None));
            }
        }
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    Ok(Some(Some(String::from_utf8_lossy(&buf).into_owned())))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn answer_if(yes: bool) -> Heard {
        if yes { Heard::Answer } else { Heard::Stray }
    }

    fn sh(script: &str) -> EngineProcess {
        EngineProcess::spawn(&ProcessSpec {
            command: "sh".into(),
            args: vec!["-c".into(), script.into()],
            working_dir: None,
            stderr_log: None,
            confine: None,
            limits: None,
        })
        .unwrap()
    }

    /// Whether process `pid` runs (a zombie, dead but not yet reaped by whoever adopted it,
    /// does not).
    fn alive(pid: i32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // The state follows the command name in parentheses.
            Ok(stat) => stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
            Err(_) => false,
        }
    }

    #[test]
    fn lines_go_in_and_come_out() {
        let mut p = sh("while read l; do echo \"got $l\"; done");
        p.send("hello").unwrap();
        assert_eq!(p.read_line(Duration::from_secs(5)).unwrap(), "got hello");
        p.send("a b").unwrap();
        let line = p
            .read_until(Duration::from_secs(5), 0, |l| {
                answer_if(l.starts_with("got"))
            })
            .unwrap();
        assert_eq!(line, "got a b");
        assert_eq!(p.quit(None, Duration::from_secs(5)), Some(0));
    }

    #[test]
    fn a_silent_engine_times_out_and_its_whole_group_is_killed() {
        // The shell starts a grandchild and says its pid, then says nothing more.
        let mut p = sh("sleep 30 & echo $!; wait");
        let grandchild: i32 = p
            .read_line(Duration::from_secs(5))
            .unwrap()
            .parse()
            .unwrap();
        let clock = Instant::now();
        let err = p.read_line(Duration::from_millis(100)).unwrap_err();
        assert_eq!(
            err,
            PlayerError::NoAnswer(Duration::from_millis(100), Unanswered::default())
        );
        assert!(clock.elapsed() < Duration::from_secs(2));
        assert!(alive(grandchild));
        drop(p);
        // Killed with the group (reaped by init once its parent is gone).
        let clock = Instant::now();
        while alive(grandchild) && clock.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!alive(grandchild), "the grandchild outlived the engine");
    }

    #[test]
    fn the_engine_log_looks_back_further_than_the_longest_line() {
        assert!(MAX_LINE as u64 + 64 <= crate::arena::engine_log::LOOK_BACK);
    }

    #[test]
    fn a_daemon_that_leaves_the_group_is_killed_with_the_engine() {
        // A process in a session of its own (out of the engine's group), its parent gone: it
        // comes back to joute, a subreaper, and dies with the engine.
        let mut p = sh("(setsid sh -c 'echo $$; exec sleep 30' &); read x");
        let daemon: i32 = p
            .read_line(Duration::from_secs(5))
            .unwrap()
            .parse()
            .unwrap();
        assert!(alive(daemon));
        let group = std::fs::read_to_string(format!("/proc/{daemon}/stat")).unwrap();
        let group: i32 = group
            .rsplit_once(") ")
            .unwrap()
            .1
            .split(' ')
            .nth(2)
            .unwrap()
            .parse()
            .unwrap();
        assert_ne!(group as u32, p.id(), "the daemon left the engine's group");
        drop(p);
        let clock = Instant::now();
        while alive(daemon) && clock.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!alive(daemon), "the daemon outlived the engine");
    }

    #[test]
    fn a_crash_is_reported_with_its_status_and_last_words() {
        let mut p = sh("read l; echo 'segfault near e4' >&2; exit 3");
        p.send("go").unwrap();
        let err = p.read_line(Duration::from_secs(5)).unwrap_err().to_string();
        assert!(err.contains("its output closed"), "{err}");
        assert!(err.contains("exit status: 3"), "{err}");
        assert!(err.contains("segfault near e4"), "{err}");
        // Writing to it now fails cleanly too.
        assert!(p.send("again").is_err() || p.read_line(Duration::from_millis(10)).is_err());
    }

    #[test]
    fn a_flooding_engine_fails_without_eating_memory() {
        // An endless line with no newline, then endless chatter.
        let mut p = sh("head -c 200000 /dev/zero | tr '\\0' x; echo; yes chatter");
        let err = p
            .read_line(Duration::from_secs(10))
            .unwrap_err()
            .to_string();
        assert!(err.contains("longer than 65536 bytes"), "{err}");
        let err = p
            .read_until(Duration::from_secs(10), 100, |l| answer_if(l == "= e6"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("more than 100 lines"), "{err}");
        assert!(
            err.contains("it wrote 101 lines that are no answer (passed over): 'chatter', 'chatter', 'chatter', ..."),
            "{err}"
        );
    }

    #[test]
    fn an_interpreted_engine_is_named_by_its_script() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let name = |c: &str, a: &[&str]| program_name(std::path::Path::new(c), &args(a), None);
        assert_eq!(
            name("/home/u/.pyenv/shims/python3", &["engine.py"]),
            "engine.py"
        );
        assert_eq!(
            name("python3.12", &["-u", "src/engine.py", "--x"]),
            "src/engine.py"
        );
        assert_eq!(name("/usr/bin/java", &["-jar", "bot.jar"]), "bot.jar");
        assert_eq!(
            name("/opt/edax/bin/lEdax-x86-64-v3", &["-gtp"]),
            "lEdax-x86-64-v3"
        );
        assert_eq!(name("pythonic-engine", &["x"]), "pythonic-engine");
        assert_eq!(name("python3", &[]), "python3");
        // `-c CODE` is no script; the file after it is.
        let script = tempfile::NamedTempFile::new().unwrap();
        let path = script.path().to_str().unwrap();
        assert_eq!(name("python3", &["-c", "print('hello')", "-S", path]), path);
    }

    #[test]
    fn lines_that_are_no_answer_are_counted_and_copied_to_the_log() {
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut p = EngineProcess::spawn(&ProcessSpec {
            command: "sh".into(),
            args: vec![
                "-c".into(),
                "read l; echo 'thinking 1'; echo '# aside'; echo 'thinking 2'; sleep 5".into(),
            ],
            working_dir: None,
            stderr_log: Some(EngineLog::new(log.path().to_path_buf())),
            confine: None,
            limits: None,
        })
        .unwrap();
        p.send("genmove b").unwrap();
        let heard = |l: &str| {
            if l.starts_with('#') {
                Heard::Aside
            } else {
                Heard::Stray
            }
        };
        let err = p
            .read_until(Duration::from_millis(500), 100, heard)
            .unwrap_err();
        let PlayerError::NoAnswer(_, unanswered) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(unanswered.request.as_deref(), Some("genmove b"));
        assert_eq!(unanswered.passed_over.first, ["thinking 1", "thinking 2"]);
        assert_eq!(
            err.to_string(),
            "no answer to 'genmove b' within 500 ms; it wrote 2 lines that are no answer (passed over): 'thinking 1', 'thinking 2'"
        );
        assert_eq!(p.passed_over().count, 2);
        let logged = std::fs::read_to_string(log.path()).unwrap();
        assert!(
            logged.contains("] stdout, no answer, passed over: thinking 2\n"),
            "{logged}"
        );
        assert!(!logged.contains("aside"), "{logged}");
    }

    #[test]
    fn a_missing_program_is_named() {
        let err = EngineProcess::spawn(&ProcessSpec {
            command: "/no/such/engine".into(),
            args: Vec::new(),
            working_dir: None,
            stderr_log: None,
            confine: None,
            limits: None,
        })
        .err()
        .unwrap()
        .to_string();
        assert!(err.starts_with("cannot start /no/such/engine:"), "{err}");
    }
}

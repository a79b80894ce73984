//! Outside engines: third-party programs that play over the protocols their authors already
//! speak — GTP (Othello dialect), NBoard, Gomocup (piskvork) and joute's own line protocol
//! (`docs/protocols.md`).
//!
//! An [`OutsidePlayer`] is a [`Player`] like a built-in engine. It starts its program
//! ([`EngineProcess`]: a process group of its own, every read under a time limit) at the first
//! game, speaks the protocol's handshake, tells the program each new game and asks it for a
//! move on each turn. After any failure — a crash, a hang, garbage — the program is killed and
//! started again for the next game, so one bad game costs one game.
//!
//! A protocol is a [`Dialect`]: what to say at the start, at a new game and on a turn, and how
//! to read the answer. The dialects know only text: moves go out and come in through the game's
//! own notation ([`Game::format_move`], [`Game::parse_move`]), translated where a protocol
//! writes them otherwise (Gomocup's `x,y`, NBoard's capitals).
//!
//! **Lines that are no answer**, one rule for every protocol ([`answer_by`]): each dialect says
//! what its answers look like, and which other lines its protocol allows (comments, status
//! lines: [`Heard::Aside`]). Every other line before the answer — a debug print on stdout — is
//! passed over too ([`Heard::Stray`]): counted, the first ones copied to the engine's log and
//! named in the game's `detail` if no answer comes, and reported by `joute engine check`. At
//! most [`MAX_CHATTER`] lines of either kind are passed over before one answer; beyond that the
//! program has stalled. An answer that has the shape of one but is no legal move loses the game
//! as an illegal move.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::confine::Confinement;
use super::engine_log::EngineLog;
use super::game::{Opening, PassedOver, Player, PlayerError, Thought, TimeControl, Turn};
use super::limits::Limits;
pub use super::process::Heard;
use super::process::{EngineProcess, ProcessSpec};
use crate::games::{Game, GameKind, Outcome};

pub mod check;
mod gomocup;
mod gtp;
mod line;
mod nboard;

/// Lines an engine may write before the answer expected (comments, status, stray lines).
pub const MAX_CHATTER: usize = 1000;
/// How long a program may take to leave after `quit` before its group is killed.
const QUIT_GRACE: Duration = Duration::from_millis(300);

/// The protocols joute speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// The Go Text Protocol's Othello dialect, as Edax (`-gtp`) speaks it.
    Gtp,
    /// NBoard's engine protocol, as Edax (`-nboard`, version 1) and NTest (version 2) speak it.
    Nboard,
    /// The Gomocup (piskvork) protocol, for five in a row on square boards.
    Gomocup,
    /// joute's own line protocol: one line in, one line out (`docs/protocols.md`).
    Line,
}

impl Protocol {
    /// Every protocol, in the order messages list them.
    pub const ALL: [Protocol; 4] = [
        Protocol::Line,
        Protocol::Gtp,
        Protocol::Nboard,
        Protocol::Gomocup,
    ];

    /// The name specs write.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Gtp => "gtp",
            Protocol::Nboard => "nboard",
            Protocol::Gomocup => "gomocup",
            Protocol::Line => "line",
        }
    }

    /// Reads a protocol name.
    pub fn parse(text: &str) -> Result<Protocol, String> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.name() == text.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
                format!(
                    "unknown protocol '{text}'; joute speaks {}",
                    names.join(", ")
                )
            })
    }

    /// Why this protocol cannot play `game`, if it cannot: GTP and NBoard are Othello's,
    /// Gomocup is five in a row's on a square board; the line protocol plays every game.
    pub fn refuses(self, game: &GameKind) -> Option<String> {
        match (self, game) {
            (Protocol::Line, _) => None,
            (Protocol::Gtp | Protocol::Nboard, GameKind::Othello) => None,
            (Protocol::Gtp | Protocol::Nboard, _) => Some(format!(
                "the {} protocol plays othello, not {}; use protocol = \"line\"",
                self.name(),
                game
            )),
            (Protocol::Gomocup, GameKind::Morpion { rows, cols, k, .. })
                if rows == cols && *k == 5 && *rows >= 5 =>
            {
                None
            }
            (Protocol::Gomocup, _) => Some(format!(
                "the gomocup protocol plays five in a row on a square board (morpion-NxN-5, -exact or -renju, N from 5 to 15; renju), not {}; use protocol = \"line\"",
                game
            )),
        }
    }

    /// Whether the protocol can pass a search depth to the program.
    pub fn passes_depth(self) -> bool {
        matches!(self, Protocol::Nboard | Protocol::Line | Protocol::Gomocup)
    }

    /// Whether the protocol can pass a node budget to the program.
    pub fn passes_nodes(self) -> bool {
        matches!(self, Protocol::Line | Protocol::Gomocup)
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to run an outside engine, as a spec resolves it. The command and folder are recorded
/// as written (`run.json` and the spec's hash do not depend on where the run is started); the
/// program and folder found for them travel beside, unrecorded.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OutsideSpec {
    /// The program, as it is started (a path, or a name looked up in `PATH`).
    pub command: PathBuf,
    /// Its arguments, as written.
    pub args: Vec<String>,
    /// The folder it runs in (`None`: joute's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<PathBuf>,
    /// The protocol it speaks.
    pub protocol: Protocol,
    /// NBoard's protocol version (1 for Edax, 2 for NTest); `None` for other protocols.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<u32>,
    /// The user's settings for the program, passed the protocol's way (GTP: a command each;
    /// NBoard: `set NAME VALUE`; Gomocup: `INFO NAME VALUE`; line: `NAME=VALUE` on the
    /// handshake).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
    /// A search depth passed to the program (NBoard, line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// A node budget passed to the program (line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// How long the program may be silent when no clock is running (start-up, a new game, a
    /// move of a game without a clock) before it has stalled, in milliseconds.
    pub stall_ms: u64,
    /// The program found for `command` (`None`: `command` as it is).
    #[serde(skip)]
    pub program: Option<PathBuf>,
    /// The folder found for `working_dir` (`None`: `working_dir`, or joute's).
    #[serde(skip)]
    pub folder: Option<PathBuf>,
    /// How the program is held: limits, confinement, pausing, restarts (recorded only where
    /// the spec asked for something, so specs from before keep their hash).
    #[serde(flatten)]
    pub guard: Guard,
}

/// When an outside program is started afresh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Restart {
    /// After a game it failed (a crash, a hang, a limit met): the default.
    #[default]
    Failure,
    /// For every game (fastchess's `restart=on`): for programs that carry state between games.
    Game,
}

impl Restart {
    /// The name specs write.
    pub fn name(self) -> &'static str {
        match self {
            Restart::Failure => "failure",
            Restart::Game => "game",
        }
    }
}

/// How an untrusted program is held (`docs/protocols.md`, "Untrusted programs"): its resource
/// limits (`None`: the default of [`crate::arena::limits`]), its confinement, whether it is
/// paused while its opponent thinks, and when it is started afresh. Each field is what the spec
/// wrote, recorded only when it differs from the default.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Guard {
    /// The memory its processes may hold, in bytes (`memory_limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<u64>,
    /// The processes and threads it may run at once (`process_limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_limit: Option<u32>,
    /// The CPU time its processes may use in one game, in milliseconds (`cpu_limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_limit_ms: Option<u64>,
    /// The bytes its processes may write to files in one game (`write_limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_limit: Option<u64>,
    /// Confined: the file system read-only but for its own folders, no network (`confine`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub confine: bool,
    /// What a confined program may read besides the system's folders and its own, as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub readable: Vec<PathBuf>,
    /// Stopped while its opponent thinks and between games (`pause`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pause: bool,
    /// When it is started afresh (`restart`).
    #[serde(default, skip_serializing_if = "is_default_restart")]
    pub restart: Restart,
    /// The paths found for `readable` (absolute), unrecorded.
    #[serde(skip)]
    pub readable_found: Vec<PathBuf>,
}

impl Guard {
    /// What the spec asked for, in a few words (`None` for nothing but the defaults):
    /// `confined, paused off its turn, memory 512 MiB, cpu 2m a game`.
    pub fn describe(&self) -> Option<String> {
        let size = crate::arena::limits::format_size;
        let mut words = Vec::new();
        if self.confine {
            words.push("confined".to_string());
        }
        if self.pause {
            words.push("paused off its turn".into());
        }
        if self.restart == Restart::Game {
            words.push("restarted for every game".into());
        }
        if let Some(m) = self.memory_limit {
            words.push(format!("memory {}", size(m)));
        }
        if let Some(p) = self.process_limit {
            words.push(format!("{p} processes"));
        }
        if let Some(ms) = self.cpu_limit_ms {
            let cpu = crate::arena::game::seconds_text(Duration::from_millis(ms));
            words.push(format!("cpu {cpu} a game"));
        }
        if let Some(w) = self.write_limit {
            words.push(format!("writes {} a game", size(w)));
        }
        (!words.is_empty()).then(|| words.join(", "))
    }
}

fn is_default_restart(r: &Restart) -> bool {
    *r == Restart::Failure
}

impl PartialEq for Guard {
    /// Equal when recorded alike: where the readable paths were found does not count.
    fn eq(&self, other: &Self) -> bool {
        self.memory_limit == other.memory_limit
            && self.process_limit == other.process_limit
            && self.cpu_limit_ms == other.cpu_limit_ms
            && self.write_limit == other.write_limit
            && self.confine == other.confine
            && self.readable == other.readable
            && self.pause == other.pause
            && self.restart == other.restart
    }
}

impl PartialEq for OutsideSpec {
    /// Equal when recorded alike: where the program was found does not count.
    fn eq(&self, other: &Self) -> bool {
        self.command == other.command
            && self.args == other.args
            && self.working_dir == other.working_dir
            && self.protocol == other.protocol
            && self.protocol_version == other.protocol_version
            && self.options == other.options
            && self.depth == other.depth
            && self.nodes == other.nodes
            && self.stall_ms == other.stall_ms
            && self.guard == other.guard
    }
}

impl OutsideSpec {
    /// The stall limit.
    pub fn stall(&self) -> Duration {
        Duration::from_millis(self.stall_ms)
    }

    /// The command line as a person would type it, for messages.
    pub fn command_line(&self) -> String {
        let mut text = self.command.display().to_string();
        for a in &self.args {
            text.push(' ');
            text.push_str(a);
        }
        text
    }

    /// How to start the program, its stderr to `stderr_log`.
    pub fn process(&self, stderr_log: Option<EngineLog>) -> ProcessSpec {
        let args = self.passed_args();
        ProcessSpec {
            command: self.program.clone().unwrap_or_else(|| self.command.clone()),
            confine: self.confinement_with(&args),
            args,
            working_dir: self.working_folder(),
            stderr_log,
            limits: Some(self.limits()),
        }
    }

    /// Its resource limits: the spec's, else the defaults ([`crate::arena::limits::DEFAULT`]).
    pub fn limits(&self) -> Limits {
        let g = &self.guard;
        let d = crate::arena::limits::DEFAULT;
        Limits {
            memory: g.memory_limit.or(d.memory),
            processes: g.process_limit.or(d.processes),
            cpu: g.cpu_limit_ms.map(Duration::from_millis).or(d.cpu),
            write: g.write_limit.or(d.write),
        }
    }

    /// The arguments as passed: as written, except that a confined program running in a
    /// folder of its own (no `working_dir`) gets those naming a file or folder of the folder
    /// it would have run in (`engine.py`, beside the spec) as absolute paths.
    fn passed_args(&self) -> Vec<String> {
        if !(self.guard.confine && self.working_dir.is_none()) {
            return self.args.clone();
        }
        let base = self.folder.clone().unwrap_or_else(|| PathBuf::from("."));
        self.args
            .iter()
            .map(|a| {
                let path = base.join(a);
                match std::path::absolute(&path) {
                    Ok(full) if Path::new(a).is_relative() && !a.is_empty() && path.exists() => {
                        full.display().to_string()
                    }
                    _ => a.clone(),
                }
            })
            .collect()
    }

    /// The folder the program runs in: its `working_dir`, else the spec's folder, except for a
    /// confined program, which without a `working_dir` runs in a temporary folder of its own
    /// (the spec's folder may hold other engines and the run's folder).
    fn working_folder(&self) -> Option<PathBuf> {
        if self.guard.confine && self.working_dir.is_none() {
            return None;
        }
        self.folder.clone().or_else(|| self.working_dir.clone())
    }

    /// What a confined program may reach besides the system's folders (`None` unconfined):
    /// its `working_dir`, when the spec gives one, to read and write; the program's folder,
    /// an interpreter's script's folder (`python3 engine.py`: the script and its modules),
    /// and the spec's `readable` paths, to read.
    pub fn confinement(&self) -> Option<Confinement> {
        self.confinement_with(&self.passed_args())
    }

    /// [`OutsideSpec::confinement`], the arguments as passed being `args`.
    fn confinement_with(&self, args: &[String]) -> Option<Confinement> {
        if !self.guard.confine {
            return None;
        }
        let working = self.working_folder();
        let program = self.program.clone().unwrap_or_else(|| self.command.clone());
        let script = super::process::script_of(&program, args, working.as_deref());
        let mut readable: Vec<PathBuf> = [Some(program), script]
            .into_iter()
            .flatten()
            .filter_map(|p| {
                std::path::absolute(&p)
                    .ok()?
                    .parent()
                    .map(Path::to_path_buf)
            })
            .collect();
        readable.extend(self.guard.readable_found.iter().cloned());
        readable.retain(|p| !p.as_os_str().is_empty());
        readable.sort();
        readable.dedup();
        Some(Confinement {
            own: working.into_iter().collect(),
            readable,
        })
    }

    /// Why a confined program could reach the run's `folder` (its working folder or a folder
    /// it may read holds it), if it could: a run refuses that, as confinement promises the
    /// program sees no run folder.
    pub fn reaches_run_folder(&self, folder: &Path) -> Option<String> {
        let c = self.confinement()?;
        let folder = std::path::absolute(folder).ok()?;
        let inside = |p: &PathBuf| folder.starts_with(p);
        if let Some(p) = c.own.iter().find(|p| inside(p)) {
            return Some(format!(
                "it is confined, but the run's folder {} is inside its working folder {}, which it may write: give the run another --out, or the program a working_dir of its own",
                folder.display(),
                p.display()
            ));
        }
        c.readable.iter().find(|p| inside(p)).map(|p| {
            format!(
                "it is confined, but the run's folder {} is inside {}, which it may read (its program's folder, a script's or a readable path): give the run another --out",
                folder.display(),
                p.display()
            )
        })
    }

    /// A one-line description: `gtp: edax -gtp -l 4`.
    pub fn describe(&self) -> String {
        format!("{} engine: {}", self.protocol, self.command_line())
    }
}

/// What a dialect knows of the match: the game and the limits it may pass on.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The game.
    pub game: GameKind,
    /// The engine's configuration.
    pub spec: OutsideSpec,
    /// The clock the referee keeps, if any.
    pub clock: Option<TimeControl>,
}

/// The whole game so far: the position the game began at and every move since, the opening's
/// included (some protocols are told the moves from the start, others only the new ones).
pub struct History<'a, G: Game> {
    /// The position the game began at (before the opening).
    pub initial: &'a G,
    /// Every move since, opening and players' moves alike.
    pub moves: &'a [G::Move],
}

impl<G: Game> History<'_, G> {
    /// Each move in the game's notation.
    pub fn names(&self) -> Vec<String> {
        self.notated().into_iter().map(|(_, mv)| mv).collect()
    }

    /// Each move in the game's notation, with the position it was played in.
    pub fn notated(&self) -> Vec<(G, String)> {
        let mut pos = *self.initial;
        self.moves
            .iter()
            .map(|&mv| {
                let before = pos;
                pos = pos.play(mv);
                (before, before.format_move(mv))
            })
            .collect()
    }
}

/// Reads the program's answer by `deadline`: `heard` says which line is the answer and which
/// of the others its protocol allows; every other line is passed over too, up to
/// [`MAX_CHATTER`] in all (the rule of every protocol: the module's documentation). A timeout
/// names `wait`, the limit the exchange was given, rather than what was left of it.
pub(crate) fn answer_by(
    io: &mut EngineProcess,
    deadline: Instant,
    wait: Duration,
    heard: impl FnMut(&str) -> Heard,
) -> Result<String, PlayerError> {
    let left = deadline.saturating_duration_since(Instant::now());
    io.read_until(left, MAX_CHATTER, heard)
        .map_err(|e| match e {
            PlayerError::NoAnswer(_, unanswered) => PlayerError::NoAnswer(wait, unanswered),
            e => e,
        })
}

/// [`Heard::Answer`] when `yes`; else an empty line is an aside, and any other a stray.
pub(crate) fn answer_if(yes: bool, line: &str) -> Heard {
    if yes {
        Heard::Answer
    } else if line.trim().is_empty() {
        Heard::Aside
    } else {
        Heard::Stray
    }
}

/// The moves of `now` that a program holding `told` has not been told yet, or `None` when it
/// holds another game (it is then set up afresh): within a game the history only grows.
pub(crate) fn untold<'a>(told: &[String], now: &'a [String]) -> Option<&'a [String]> {
    now.starts_with(told).then(|| &now[told.len()..])
}

/// One protocol, spoken to one program: the conversation's steps.
pub(crate) trait Dialect<G: Game> {
    /// The conversation's opening, right after the program started: the handshake, the
    /// options, the limits. A program that does not answer as the protocol says fails here.
    fn handshake(&mut self, io: &mut EngineProcess, setup: &Setup) -> Result<(), PlayerError>;

    /// A new game begins at `history` (the initial position and the opening's moves).
    fn new_game(
        &mut self,
        io: &mut EngineProcess,
        setup: &Setup,
        history: &History<'_, G>,
    ) -> Result<(), PlayerError>;

    /// The program's move on `turn`, the game so far being `history`; `wait` is how long its
    /// answer may take.
    fn think(
        &mut self,
        io: &mut EngineProcess,
        setup: &Setup,
        history: &History<'_, G>,
        turn: &Turn<'_, G>,
        wait: Duration,
    ) -> Result<Thought<G::Move>, PlayerError>;

    /// The line that asks the program to leave.
    fn goodbye(&self) -> &'static str;

    /// The name the program gave itself (line: `ok name=...`; GTP: `name`; NBoard:
    /// `set myname`; Gomocup: `ABOUT`), once it has.
    fn reported_name(&self) -> Option<&str>;
}

/// The dialect of `protocol`.
fn dialect<G: Game>(protocol: Protocol) -> Box<dyn Dialect<G>> {
    match protocol {
        Protocol::Gtp => Box::new(gtp::Gtp::default()),
        Protocol::Nboard => Box::new(nboard::Nboard::default()),
        Protocol::Gomocup => Box::new(gomocup::Gomocup::default()),
        Protocol::Line => Box::new(line::Line::default()),
    }
}

/// Reads a move the program wrote, in the game's notation, in `pos`: a line that is no legal
/// move there is the program's bad answer, kept whole for the log.
pub(crate) fn read_move<G: Game>(pos: &G, text: &str, line: &str) -> Result<G::Move, PlayerError> {
    pos.parse_move(text.trim())
        .map_err(|e| PlayerError::BadAnswer {
            line: line.to_string(),
            why: crate::arena::game::why_illegal(e),
        })
}

/// An outside program playing as a [`Player`].
pub struct OutsidePlayer<G: Game> {
    setup: Setup,
    process: ProcessSpec,
    dialect: Box<dyn Dialect<G>>,
    io: Option<EngineProcess>,
    /// Where the game began, and every move since.
    initial: Option<G>,
    moves: Vec<G::Move>,
    /// Moves of the opening, at the head of `moves`.
    opening_len: usize,
    /// Times the program was started.
    starts: u32,
    /// Lines that were no answer, of the programs that ran before the one running now.
    passed_over: PassedOver,
    /// The name the program gave itself, kept across restarts.
    name: Option<String>,
    /// What held the program at its last start ([`EngineProcess::held`]).
    held: Vec<String>,
}

impl<G: Game> OutsidePlayer<G> {
    /// A player for the engine `setup.spec`; `stderr_log` receives the program's stderr. The
    /// program starts at the first game (or at [`OutsidePlayer::start`]).
    pub fn new(setup: Setup, stderr_log: Option<EngineLog>) -> OutsidePlayer<G> {
        let process = setup.spec.process(stderr_log);
        OutsidePlayer {
            dialect: dialect(setup.spec.protocol),
            setup,
            process,
            io: None,
            initial: None,
            moves: Vec::new(),
            opening_len: 0,
            starts: 0,
            passed_over: PassedOver::default(),
            name: None,
            held: Vec::new(),
        }
    }

    /// Starts the program, when it is not running, and speaks the handshake.
    pub fn start(&mut self) -> Result<(), PlayerError> {
        if self.io.is_some() {
            return Ok(());
        }
        let mut io = EngineProcess::spawn(&self.process)?;
        self.starts += 1;
        self.held = io.held().to_vec();
        self.dialect = dialect(self.setup.spec.protocol);
        let shaken = self.dialect.handshake(&mut io, &self.setup);
        if let Some(name) = self.dialect.reported_name() {
            self.name = Some(name.to_string());
        }
        if shaken.is_err() {
            self.passed_over.absorb(io.passed_over());
        }
        shaken?;
        self.io = Some(io);
        Ok(())
    }

    /// Every line the program wrote that was no answer (passed over), over all its starts.
    pub fn passed_over(&self) -> PassedOver {
        let mut all = self.passed_over.clone();
        if let Some(io) = &self.io {
            all.absorb(io.passed_over());
        }
        all
    }

    /// The name the program gave itself, if it did.
    pub fn reported_name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Forgets the running program (killed when dropped), keeping what it said.
    fn drop_io(&mut self) {
        if let Some(io) = self.io.take() {
            self.passed_over.absorb(io.passed_over());
        }
    }

    /// What holds the program, one line each: its confinement and limits as the machine
    /// applied them (at its last start), whether it is paused off its turn and restarted for
    /// every game.
    pub fn held(&self) -> Vec<String> {
        let mut lines = self.held.clone();
        if self.setup.spec.guard.pause {
            lines.push("paused off its turn: its process group stopped (SIGSTOP) while the opponent thinks and between games".into());
        }
        if self.setup.spec.guard.restart == Restart::Game {
            lines.push("restarted for every game".into());
        }
        lines
    }

    /// Times the program was started (a restart after each failed game).
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// Asks the program to leave, and kills its process group after a short grace.
    pub fn quit(&mut self) {
        if let Some(mut io) = self.io.take() {
            io.quit(Some(self.dialect.goodbye()), QUIT_GRACE);
            self.passed_over.absorb(io.passed_over());
        }
    }

    /// Runs `step` on the running program (resumed if it was paused, paused again after it
    /// with `pause = true`: it waits for its next turn stopped); a failure kills it (it starts
    /// again at the next game).
    fn with_io<T>(
        &mut self,
        step: impl FnOnce(&mut dyn Dialect<G>, &mut EngineProcess, &Setup) -> Result<T, PlayerError>,
    ) -> Result<T, PlayerError> {
        let io = self
            .io
            .as_mut()
            .ok_or_else(|| PlayerError::Failed("the program is not running".into()))?;
        io.resume();
        let mut result = step(self.dialect.as_mut(), io, &self.setup);
        // A limit met is the failure, whatever else went wrong with it (a program killed by
        // the kernel for its memory closes its output); one met with an answer given still
        // loses the game, once the program is stopped.
        if let Some(breach) = io.limit_met() {
            result = Err(PlayerError::Limit(breach));
        }
        if self.setup.spec.guard.pause && result.is_ok() {
            io.pause();
        }
        if let Some(name) = self.dialect.reported_name() {
            self.name = Some(name.to_string());
        }
        if result.is_err() {
            // Its state is unknown now (still thinking, half an answer written): start afresh.
            self.drop_io();
        }
        result
    }
}

impl<G: Game> Player<G> for OutsidePlayer<G> {
    fn new_game(&mut self, opening: &Opening<'_, G>) -> Result<(), PlayerError> {
        self.initial = Some(opening.initial);
        self.moves.clear();
        self.moves.extend_from_slice(opening.moves);
        self.opening_len = opening.moves.len();
        if let Err(e) = self.start() {
            self.drop_io();
            return Err(e);
        }
        if let Some(io) = &mut self.io {
            io.new_game();
        }
        let initial = opening.initial;
        let moves = std::mem::take(&mut self.moves);
        let result = self.with_io(|dialect, io, setup| {
            let history = History {
                initial: &initial,
                moves: &moves,
            };
            dialect.new_game(io, setup, &history)
        });
        self.moves = moves;
        result
    }

    fn think(&mut self, turn: &Turn<'_, G>) -> Result<Thought<G::Move>, PlayerError> {
        let initial = self
            .initial
            .ok_or_else(|| PlayerError::Failed("asked for a move before a game".into()))?;
        self.moves.truncate(self.opening_len);
        self.moves.extend_from_slice(turn.moves);
        let wait = turn.deadline.unwrap_or_else(|| self.setup.spec.stall());
        let moves = std::mem::take(&mut self.moves);
        let result = self.with_io(|dialect, io, setup| {
            let history = History {
                initial: &initial,
                moves: &moves,
            };
            dialect.think(io, setup, &history, turn, wait)
        });
        self.moves = moves;
        result
    }

    /// With `restart = "game"`, the program leaves now: the next game starts a fresh one.
    fn game_over(&mut self, _outcome: &Outcome) {
        if self.setup.spec.guard.restart == Restart::Game {
            self.quit();
        }
    }

    /// Its program's process group's CPU time ([`EngineProcess::cpu_time`]): `None` when no
    /// program runs, or off Linux.
    fn cpu_time(&mut self) -> Option<Duration> {
        self.io.as_mut()?.cpu_time()
    }
}

impl<G: Game> Drop for OutsidePlayer<G> {
    fn drop(&mut self) {
        self.quit();
    }
}

/// What a program said of its search while it thought, in the lines before its answer
/// (NBoard's `nodestats` and `search`, Gomocup's `MESSAGE`): each figure the last one said, 0
/// where it said none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Said {
    /// The depth of its search.
    pub(crate) depth: u32,
    /// Its selective depth (the deepest line followed).
    pub(crate) seldepth: u32,
    /// The nodes it searched, when it said.
    pub(crate) nodes: Option<u64>,
}

impl Said {
    /// `thought` with what was said.
    pub(crate) fn told<M>(self, mut thought: Thought<M>) -> Thought<M> {
        thought.depth = self.depth;
        thought.seldepth = self.seldepth;
        thought.nodes = self.nodes;
        thought
    }
}

/// Builds a move's [`Thought`] when the program says nothing of its search.
pub(crate) fn bare<M>(mv: M) -> Thought<M> {
    Thought {
        mv,
        score: None,
        depth: 0,
        seldepth: 0,
        nodes: None,
        timed_out: false,
    }
}

/// A program's line for a message: control characters escaped, cut to 200 characters.
pub(crate) fn quote(line: &str) -> String {
    crate::arena::game::cut(line, 200)
}

/// Finds the program `written`, one rule for specs and command lines: a path (with a `/`) is
/// relative to `base` (the spec's folder; `None`: the current folder) and never to the folder
/// the program runs in; a bare name is looked up in `PATH`. It must be an executable file.
/// `base_name` says what `base` is in the advice ("the spec's folder"); `dir` is the working
/// folder as the user wrote it after its key (`("--dir ", "ntest/run")`, `("dir=", …)`), named in the error when
/// a relative program missing from `base` is there instead. The errors name the full path tried.
pub fn find_program(
    written: &str,
    base: Option<&Path>,
    base_name: &str,
    dir: Option<(&str, &str)>,
) -> Result<PathBuf, String> {
    let executable = |p: &Path| -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        }
        #[cfg(not(unix))]
        {
            p.is_file()
        }
    };
    if written.contains('/') || written.contains('\\') {
        let path = match base {
            Some(b) if Path::new(written).is_relative() => b.join(written),
            _ => PathBuf::from(written),
        };
        if executable(&path) {
            return Ok(path);
        }
        let full = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
        let from = if Path::new(written).is_relative() {
            let folder = base
                .filter(|b| !b.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
            format!(" ({written} from {})", folder.display())
        } else {
            String::new()
        };
        if path.exists() {
            return Err(format!(
                "{}{from} is not an executable file",
                full.display()
            ));
        }
        // The program is where it would be were it relative to the working folder: the rule
        // of another tool, or of joute's older `engine check --dir`.
        let inside = dir
            .filter(|_| Path::new(written).is_relative())
            .and_then(|(key, d)| {
                let there = match base {
                    Some(b) if Path::new(d).is_relative() => b.join(d),
                    _ => PathBuf::from(d),
                }
                .join(written);
                executable(&there).then(|| {
                    format!(
                        "; found in {key}{d}: write {} ({} is only the folder it runs in)",
                        Path::new(d).join(written).display(),
                        key.trim_end_matches(['=', ' '])
                    )
                })
            });
        return Err(format!(
            "no program {}{from}: not a file{}",
            full.display(),
            inside.unwrap_or_default()
        ));
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path_var)
        .map(|dir| dir.join(written))
        .find(|p| executable(p))
        .ok_or_else(|| {
            format!("program '{written}' is not in PATH; give its path (\"./{written}\" is relative to {base_name})")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gomocup_refuses_what_is_not_five_in_a_row_on_a_square_board() {
        let game = |name: &str| GameKind::parse(name).unwrap();
        assert_eq!(Protocol::Gomocup.refuses(&game("morpion-15x15-5")), None);
        assert_eq!(Protocol::Gomocup.refuses(&game("renju")), None);
        let why = Protocol::Gomocup.refuses(&game("connect4")).unwrap();
        // Words, not Rust's range syntax.
        assert!(
            why.contains("N from 5 to 15") && !why.contains("..="),
            "{why}"
        );
    }
}

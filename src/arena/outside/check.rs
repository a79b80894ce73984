//! The compliance check of an outside program (`joute engine check`), in the spirit of
//! fastchess's `--compliance`: a scripted conversation through [`OutsidePlayer`] — the code
//! path of a real match — step by step, each passed or failed with what happened.
//!
//! 1. the program starts and answers the handshake;
//! 2. a new game at the start position, and a legal move there;
//! 3. a new game after a short random opening, and a legal move;
//! 4. Othello: the program must pass (it answers `pass`), then it moves after its opponent's
//!    pass; other games: a position a few moves before the end of a random game;
//! 5. a whole game from the start against a random mover, every move of the program legal;
//! 6. with a clock (`--tc`, `--st`): a whole game on that clock, the program first, every move
//!    within its time — the protocol's time commands accepted;
//! 7. the program leaves within 2 s of the protocol's goodbye, and leaves no process behind
//!    (on Linux: none of its process group, no daemon that left the group);
//! 8. it wrote nothing but answers and the lines its protocol allows on stdout: lines that are
//!    no answer (debug prints) are passed over in a tournament, but they are a warning here.
//!
//! With a clock, the moves of steps 2 to 4 are asked on a fresh clock too (the time per move,
//! or the whole base time) and must come within it, margin included.
//!
//! One exchange proves little: a program can pass every step and still lose games by illegal
//! moves. With [`CheckConfig::games`], the steps are followed by that many whole games against
//! a random mover, the program first in odd games and second in even ones, played as a
//! tournament plays them: one [`OutsidePlayer`] (started again after a failed game) and the
//! referee ([`play_game`]), which checks every move, on the check's clock if it has one (else
//! each answer within the program's stall limit). Each game says how it ended and, when the
//! program failed, why and the moves up to the failure.
//!
//! Every random choice comes from one seed: the same seed gives the same conversation, and the
//! same games (the games' random movers draw from a stream of their own, so the steps do not
//! shift them).

use std::path::Path;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{MAX_CHATTER, OutsidePlayer, OutsideSpec, Protocol, Setup};
use crate::arena::game::{
    Opening, PassedOver, Player, PlayerError, Referee, Thought, TimeControl, Turn, play_game,
    seconds_text,
};
use crate::arena::process::{EngineProcess, ProcessSpec};
use crate::games::{Game, GameKind, GameVisitor, MoveList, Outcome, Side};

/// How long a program may take to leave after the goodbye.
pub const QUIT_LIMIT: Duration = Duration::from_secs(2);

/// The ChaCha stream of the games' random movers (the steps draw from stream 0).
const GAMES_STREAM: u64 = 1;

/// What to check: the game, the program (its `stall_ms` is the time each answer may take, its
/// `depth` and `nodes` the budget it is given), the clock it is checked on, and the seed of the
/// random choices.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// The game.
    pub game: GameKind,
    /// The program and its protocol.
    pub spec: OutsideSpec,
    /// The clock the program is told and must keep to, with the margin forgiven on each move
    /// (`None`: no clock; each answer within the stall limit).
    pub clock: Option<(TimeControl, Duration)>,
    /// The seed of the openings, the positions and the random movers.
    pub seed: u64,
    /// Whole games against a random mover played after the steps (0: none).
    pub games: usize,
}

/// What the check found: its steps, then its games.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// Every step, in order.
    pub steps: Vec<CheckStep>,
    /// Every game played, in order.
    pub games: Vec<CheckGame>,
    /// Why the games asked for were not played (the handshake failed).
    pub games_skipped: Option<String>,
}

/// What the check has just done, for progress.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// A step ended.
    Step(&'a CheckStep),
    /// A game ended.
    Game(&'a CheckGame),
}

/// How a game ended for the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// It won.
    Won,
    /// It lost (by the rules, or by failing).
    Lost,
    /// A draw.
    Drawn,
}

/// A game that did not end by the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFailure {
    /// Whether the program failed (else the random mover did).
    pub by_program: bool,
    /// The games log's name of the termination: `illegal-move`, `crash`, `timeout`, `stall`.
    pub termination: &'static str,
    /// What happened: the illegal move and why it is one, the end of a crash's stderr, ...
    pub detail: String,
}

/// One whole game against the random mover.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckGame {
    /// Its number, from 1.
    pub number: usize,
    /// The side the program played: first in odd games, second in even ones.
    pub program: Side,
    /// How it ended for the program.
    pub result: GameResult,
    /// Why it did not end by the rules, if it did not.
    pub failure: Option<GameFailure>,
    /// The moves played, in the game's notation (what `joute play --opening` reads): up to
    /// the failure, if one ended the game.
    pub moves: Vec<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl CheckGame {
    /// Whether a side failed (so the game did not end by the rules).
    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }
}

/// How a step went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepResult {
    /// Passed; what the program did (its move), possibly empty.
    Passed(String),
    /// Failed: what happened.
    Failed(String),
    /// Passed with a warning: what is wrong, though games can be played.
    Warned(String),
    /// Not run: why.
    Skipped(String),
}

/// One step of the check.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckStep {
    /// Its number, from 1.
    pub number: usize,
    /// What it checks.
    pub name: String,
    /// How it went.
    pub result: StepResult,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl CheckStep {
    /// Whether the step passed (perhaps with a warning).
    pub fn passed(&self) -> bool {
        matches!(self.result, StepResult::Passed(_) | StepResult::Warned(_))
    }

    /// Whether the step failed (a skipped step did neither).
    pub fn failed(&self) -> bool {
        matches!(self.result, StepResult::Failed(_))
    }
}

/// Why a program cannot be checked at all: the protocol cannot play the game, or there is no
/// such program.
pub fn refuse(config: &CheckConfig) -> Option<String> {
    resolved(config).err()
}

/// `config` with its program found ([`super::find_program`]: a relative program from the
/// current folder, never from `--dir`, the folder it runs in) and both made absolute, since
/// the program starts in its working folder; `Err` as [`refuse`].
fn resolved(config: &CheckConfig) -> Result<CheckConfig, String> {
    if let Some(why) = config.spec.protocol.refuses(&config.game) {
        return Err(why);
    }
    let spec = &config.spec;
    let program = match &spec.program {
        Some(p) => p.clone(),
        None => {
            let dir = spec.working_dir.as_ref().and_then(|d| d.to_str());
            super::find_program(
                &spec.command.to_string_lossy(),
                None,
                "the current folder",
                dir.map(|d| ("--dir ", d)),
            )?
        }
    };
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut config = config.clone();
    config.spec.program = Some(absolute(&program));
    config.spec.folder = spec
        .folder
        .clone()
        .or_else(|| spec.working_dir.as_deref().map(absolute));
    Ok(config)
}

/// Runs the check, calling `report` after each step and each game (for progress), and returns
/// them all; `Err` when the program cannot be checked at all ([`refuse`]).
pub fn run_check(
    config: &CheckConfig,
    report: &mut dyn FnMut(Progress<'_>),
) -> Result<CheckReport, String> {
    let config = &resolved(config)?;
    Ok(config.game.dispatch(Check { config, report }))
}

/// The check, run for the game's type.
struct Check<'a> {
    config: &'a CheckConfig,
    report: &'a mut dyn FnMut(Progress<'_>),
}

impl GameVisitor for Check<'_> {
    type Output = CheckReport;

    fn visit<G: Game>(self, start: G) -> CheckReport {
        Steps::new(self.config, start, self.report).run()
    }
}

/// The steps' shared state: the player under test and the steps so far.
struct Steps<'a, G: Game> {
    config: &'a CheckConfig,
    start: G,
    report: &'a mut dyn FnMut(Progress<'_>),
    player: OutsidePlayer<G>,
    rng: ChaCha8Rng,
    steps: Vec<CheckStep>,
}

impl<'a, G: Game> Steps<'a, G> {
    fn new(config: &'a CheckConfig, start: G, report: &'a mut dyn FnMut(Progress<'_>)) -> Self {
        Steps {
            config,
            start,
            report,
            player: OutsidePlayer::new(setup(config), None),
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            steps: Vec::new(),
        }
    }

    /// Records a step that ran from `clock`.
    fn record(&mut self, name: String, result: StepResult, clock: Instant) {
        let step = CheckStep {
            number: self.steps.len() + 1,
            name,
            result,
            seconds: clock.elapsed().as_secs_f64(),
        };
        (self.report)(Progress::Step(&step));
        self.steps.push(step);
    }

    /// Runs `step` as the next step, or skips it when the handshake failed.
    fn step(
        &mut self,
        name: impl Into<String>,
        skip: bool,
        step: impl FnOnce(&mut Self) -> Result<String, String>,
    ) {
        let name = name.into();
        let clock = Instant::now();
        let result = if skip {
            StepResult::Skipped("the handshake failed".into())
        } else {
            match step(self) {
                Ok(what) => StepResult::Passed(what),
                Err(why) => StepResult::Failed(why),
            }
        };
        self.record(name, result, clock);
    }

    fn run(mut self) -> CheckReport {
        let clock = Instant::now();
        let protocol = self.config.spec.protocol;
        let started = self.player.start().map_err(|e| match e {
            PlayerError::NoAnswer(..) => format!(
                "{e}: does the program speak the {protocol} protocol? (a program slow to start needs a longer --timeout)"
            ),
            e => e.to_string(),
        });
        let skip = started.is_err();
        self.record(
            "start and handshake".into(),
            match started {
                // What holds the program, as the machine applied it (`engine check --confine`
                // says here what confinement the kernel enforced).
                Ok(()) => StepResult::Passed(format!("held: {}", self.player.held().join("; "))),
                Err(e) => StepResult::Failed(e),
            },
            clock,
        );
        let start = self.start;
        self.step("a new game and a move at the start position", skip, |s| {
            s.ask(&[], &[]).map(|mv| start.format_move(mv))
        });
        let opening = self.random_opening(4);
        let shown = notation(&start, &opening).join(" ");
        self.step(
            format!("a new game after the opening {shown} and a move"),
            skip,
            |s| {
                s.ask(&opening, &[])
                    .map(|mv| s.after(&opening).format_move(mv))
            },
        );
        if self.config.game == GameKind::Othello {
            let line = self.random_pass();
            let name = "a position where the program must pass";
            let name_after = "a move after the opponent's pass";
            match line {
                Some(line) => {
                    let pos = self.after(&line);
                    let mut legal = MoveList::new();
                    pos.legal_moves(&mut legal);
                    let pass = legal[0];
                    let shown = format!("after {} random moves", line.len());
                    self.step(format!("{name} ({shown})"), skip, |s| {
                        s.ask(&line, &[]).map(|mv| pos.format_move(mv))
                    });
                    self.step(format!("{name_after} ({shown} and a pass)"), skip, |s| {
                        s.ask(&line, &[pass])
                            .map(|mv| pos.play(pass).format_move(mv))
                    });
                }
                None => {
                    for n in [name, name_after] {
                        let clock = Instant::now();
                        let why = "no random game of the seed reached a pass".to_string();
                        self.record(n.into(), StepResult::Skipped(why), clock);
                    }
                }
            }
        } else {
            let line = self.near_the_end(3);
            self.step(
                format!(
                    "a position 3 moves before the end of a random game (after {} moves) and a move",
                    line.len()
                ),
                skip,
                |s| s.ask(&line, &[]).map(|mv| s.after(&line).format_move(mv)),
            );
        }
        self.step(
            "a whole game against a random mover (the program second)",
            skip,
            |s| s.whole_game(None),
        );
        if let Some((clock, margin)) = self.config.clock {
            self.step(
                format!(
                    "a whole game on the clock ({}), the program first, every move in time",
                    clock_text(&clock)
                ),
                skip,
                |s| s.whole_game(Some((clock, margin))),
            );
        }
        self.player.quit();
        self.step(
            format!(
                "it leaves within {} of the goodbye",
                seconds_text(QUIT_LIMIT)
            ),
            skip,
            |s| s.leaves(),
        );
        let clock = Instant::now();
        let result = if skip {
            StepResult::Skipped("the handshake failed".into())
        } else {
            strays_result(&self.player.passed_over(), protocol)
        };
        self.record("nothing on stdout but answers".into(), result, clock);
        let (games, games_skipped) = match self.config.games {
            0 => (Vec::new(), None),
            _ if skip => (Vec::new(), Some("the handshake failed".to_string())),
            n => (self.games(n), None),
        };
        CheckReport {
            steps: self.steps,
            games,
            games_skipped,
        }
    }

    /// `n` whole games against a random mover, as a tournament plays them: one player for all
    /// (started again after a failed game), the referee checking every move, the program on
    /// the check's clock if it has one; the program first in odd games.
    fn games(&mut self, n: usize) -> Vec<CheckGame> {
        let mut player = OutsidePlayer::<G>::new(setup(self.config), None);
        let mut seeds = ChaCha8Rng::seed_from_u64(self.config.seed);
        seeds.set_stream(GAMES_STREAM);
        let mut games = Vec::with_capacity(n);
        for number in 1..=n {
            let program = if number % 2 == 1 {
                Side::First
            } else {
                Side::Second
            };
            let mut random = RandomMover {
                rng: ChaCha8Rng::seed_from_u64(seeds.random()),
            };
            let mut referee = Referee::default();
            if let Some((control, margin)) = self.config.clock {
                // Only the program is on the clock: the random mover answers at once.
                referee.clocks[program as usize] = Some(control);
                referee.margins[program as usize] = margin;
            }
            let players: [&mut dyn Player<G>; 2] = match program {
                Side::First => [&mut player, &mut random],
                Side::Second => [&mut random, &mut player],
            };
            let record = play_game(&Opening::none(self.start), players, &mut referee, |_, _| {});
            let moves: Vec<G::Move> = record.moves.iter().map(|m| m.mv).collect();
            let game = CheckGame {
                number,
                program,
                result: match record.outcome.winner {
                    Some(side) if side == program => GameResult::Won,
                    Some(_) => GameResult::Lost,
                    None => GameResult::Drawn,
                },
                failure: record.termination.failed().map(|side| GameFailure {
                    by_program: side == program,
                    termination: record.termination.name(),
                    detail: record.termination.detail().unwrap_or("").to_string(),
                }),
                moves: notation(&record.start, &moves),
                seconds: record.seconds,
            };
            (self.report)(Progress::Game(&game));
            games.push(game);
        }
        player.quit();
        games
    }

    /// The position after `moves` from the start.
    fn after(&self, moves: &[G::Move]) -> G {
        moves.iter().fold(self.start, |pos, &mv| pos.play(mv))
    }

    /// A new game after `opening`, the players' `moves` since, and the program's move then:
    /// a legal move, or what went wrong.
    fn ask(&mut self, opening: &[G::Move], moves: &[G::Move]) -> Result<G::Move, String> {
        let opening = Opening {
            initial: self.start,
            moves: opening,
        };
        self.player
            .new_game(&opening)
            .map_err(|e| format!("at the new game: {}", describe(&e)))?;
        let pos = moves
            .iter()
            .fold(opening.position(), |pos, &mv| pos.play(mv));
        let turn = fresh_turn(&pos, moves, self.config.clock);
        let asked = Instant::now();
        let thought = self.player.think(&turn).map_err(|e| {
            let mut text = match (&e, turn.deadline) {
                (PlayerError::NoAnswer(_, unanswered), Some(limit)) => format!(
                    "no move within the clock's {}{}",
                    seconds_text(limit),
                    unanswered.passed_over
                ),
                _ => describe(&e),
            };
            if let PlayerError::BadAnswer { .. } = e {
                text.push_str(&format!(
                    ", no legal move here (legal: {})",
                    legal_list(&pos)
                ));
            }
            text
        })?;
        let took = asked.elapsed();
        if let Some(limit) = turn.deadline
            && took > limit
        {
            return Err(format!(
                "it answered after {} with {} allowed by the clock",
                seconds_text(took),
                seconds_text(limit)
            ));
        }
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        if !legal.contains(&thought.mv) {
            return Err(format!(
                "it played {}, no legal move here (legal: {})",
                pos.format_move(thought.mv),
                legal_list(&pos)
            ));
        }
        Ok(thought.mv)
    }

    /// A random opening of `plies` moves (fewer when every try ends the game first) that leaves
    /// a game to play.
    fn random_opening(&mut self, plies: usize) -> Vec<G::Move> {
        for plies in (0..=plies).rev() {
            for _ in 0..100 {
                let line = random_line(self.start, plies, &mut self.rng);
                if line.len() == plies && self.after(&line).outcome().is_none() {
                    return line;
                }
            }
        }
        Vec::new()
    }

    /// The moves of a random game up to a position where the side to move must pass, if one
    /// of a thousand random games reaches one.
    fn random_pass(&mut self) -> Option<Vec<G::Move>> {
        for _ in 0..1000 {
            let mut pos = self.start;
            let mut line = Vec::new();
            let mut legal = MoveList::new();
            loop {
                legal.clear();
                pos.legal_moves(&mut legal);
                if legal.is_empty() {
                    break;
                }
                if legal.len() == 1 && pos.format_move(legal[0]) == "pass" {
                    return Some(line);
                }
                let mv = legal[self.rng.random_range(0..legal.len())];
                line.push(mv);
                pos = pos.play(mv);
            }
        }
        None
    }

    /// The moves of a random game but its last `plies`.
    fn near_the_end(&mut self, plies: usize) -> Vec<G::Move> {
        let mut line = random_line(self.start, usize::MAX, &mut self.rng);
        line.truncate(line.len().saturating_sub(plies));
        line
    }

    /// A whole game from the start against a random mover: off the clock the program plays
    /// second; on `clock` (with its margin) it plays first, the referee keeping its time.
    fn whole_game(&mut self, clock: Option<(TimeControl, Duration)>) -> Result<String, String> {
        let mut random = RandomMover {
            rng: ChaCha8Rng::seed_from_u64(self.rng.random()),
        };
        let mut referee = Referee::default();
        let (players, program): ([&mut dyn Player<G>; 2], Side) = match clock {
            None => ([&mut random, &mut self.player], Side::Second),
            Some((control, margin)) => {
                // Only the program is on the clock: the random mover answers at once.
                referee.clocks[0] = Some(control);
                referee.margins[0] = margin;
                ([&mut self.player, &mut random], Side::First)
            }
        };
        let record = play_game(&Opening::none(self.start), players, &mut referee, |_, _| {});
        let plies = record.moves.len();
        if let Some(side) = record.termination.failed() {
            let who = if side == program {
                "it"
            } else {
                "the random mover"
            };
            return Err(format!(
                "{who} lost by {} after {}: {}",
                record.termination.name(),
                moves_text(plies),
                record.termination.detail().unwrap_or("")
            ));
        }
        Ok(format!(
            "{}, {}",
            moves_text(plies),
            match record.outcome.winner {
                Some(side) if side == program => "it won",
                Some(_) => "it lost",
                None => "a draw",
            }
        ))
    }

    /// A fresh start of the program, its handshake, then the goodbye: it must leave by itself
    /// within [`QUIT_LIMIT`].
    fn leaves(&mut self) -> Result<String, String> {
        let setup = setup(self.config);
        let mut io = EngineProcess::spawn(&process_spec(&setup.spec)).map_err(|e| e.to_string())?;
        let mut dialect = super::dialect::<G>(setup.spec.protocol);
        dialect
            .handshake(&mut io, &setup)
            .map_err(|e| format!("at the handshake: {}", describe(&e)))?;
        let goodbye = dialect.goodbye();
        let clock = Instant::now();
        let (status, mut left) = io.quit_and_list(Some(goodbye), QUIT_LIMIT);
        // Whatever else came back to joute is the program's too (a daemon that dropped
        // joute's mark from its environment, of this start or an earlier one).
        left.extend(crate::arena::descendants::kill_adopted());
        let took = seconds_text(clock.elapsed());
        // Nothing of a program may outlive it: joute kills what is left, but a daemon of the
        // program run elsewhere would stay.
        let listed: Vec<String> = left.iter().map(ToString::to_string).collect();
        let processes = match left.len() {
            1 => "a process".to_string(),
            n => format!("{n} processes"),
        };
        match status {
            None if left.is_empty() => Err(format!(
                "it was still running {} after '{goodbye}' (killed)",
                seconds_text(QUIT_LIMIT)
            )),
            None => Err(format!(
                "it was still running {} after '{goodbye}', with {processes} of its own: {} (all killed)",
                seconds_text(QUIT_LIMIT),
                listed.join(", ")
            )),
            Some(_) if !left.is_empty() => Err(format!(
                "it left in {took}, but left {processes} behind after '{goodbye}': {} (killed)",
                listed.join(", ")
            )),
            Some(0) => Ok(format!("it left in {took}")),
            Some(code) => Ok(format!("it left in {took} with exit status {code}")),
        }
    }
}

/// The last step's verdict on the lines the program wrote that were no answer.
fn strays_result(passed_over: &PassedOver, protocol: Protocol) -> StepResult {
    if passed_over.count == 0 {
        return StepResult::Passed(String::new());
    }
    let allowed = match protocol {
        Protocol::Line => " or as '# ...' comments",
        Protocol::Gomocup => " or as 'MESSAGE ...' lines",
        Protocol::Nboard => " or as 'status ...' lines",
        Protocol::Gtp => "",
    };
    let lines = passed_over.to_string();
    StepResult::Warned(format!(
        "{}: joute passes such lines over (up to {MAX_CHATTER} before an answer), but one shaped like an answer would be read as one; write debug output to stderr{allowed}",
        lines.trim_start_matches("; "),
    ))
}

/// The match setup of the check: the check's clock, if any (the program's stall limit bounds
/// each answer off the clock).
fn setup(config: &CheckConfig) -> Setup {
    Setup {
        game: config.game,
        spec: config.spec.clone(),
        clock: config.clock.map(|(control, _)| control),
    }
}

/// `10+0.1 s`, `0.5 s a move`: a clock for a step's name.
fn clock_text(clock: &TimeControl) -> String {
    match *clock {
        TimeControl::Move { time } => format!("{} a move", seconds_text(time)),
        TimeControl::Game {
            base,
            increment,
            moves,
        } => {
            let period = moves.map(|m| format!("{m} moves in ")).unwrap_or_default();
            let plus = if increment.is_zero() {
                String::new()
            } else {
                format!(" + {} a move", seconds_text(increment))
            };
            format!("{period}{}{plus}", seconds_text(base))
        }
    }
}

/// How to start the program of `spec`.
fn process_spec(spec: &OutsideSpec) -> ProcessSpec {
    spec.process(None)
}

/// `1 move`, `12 moves`.
fn moves_text(n: usize) -> String {
    format!("{n} move{}", if n == 1 { "" } else { "s" })
}

/// A turn on a fresh `clock` (the time per move, or the whole base time for both sides), or
/// off the clock; the deadline is the clock's time and margin.
fn fresh_turn<'a, G: Game>(
    position: &'a G,
    moves: &'a [G::Move],
    clock: Option<(TimeControl, Duration)>,
) -> Turn<'a, G> {
    let mut turn = Turn {
        position,
        moves,
        time_left: None,
        opponent_time_left: None,
        increment: Duration::ZERO,
        moves_to_go: None,
        move_time: None,
        deadline: None,
    };
    match clock {
        None => {}
        Some((TimeControl::Move { time }, margin)) => {
            turn.move_time = Some(time);
            turn.deadline = Some(time + margin);
        }
        Some((
            TimeControl::Game {
                base,
                increment,
                moves,
            },
            margin,
        )) => {
            turn.time_left = Some(base);
            turn.opponent_time_left = Some(base);
            turn.increment = increment;
            turn.moves_to_go = moves;
            turn.deadline = Some(base + margin);
        }
    }
    turn
}

/// A failure in words.
fn describe(e: &PlayerError) -> String {
    match e {
        PlayerError::BadAnswer { line, why } if why.is_empty() => {
            format!("it answered '{}'", super::quote(line))
        }
        PlayerError::BadAnswer { line, why } => {
            format!("it answered '{}' ({why})", super::quote(line))
        }
        e => e.to_string(),
    }
}

/// The legal moves of `pos`, in its notation.
fn legal_list<G: Game>(pos: &G) -> String {
    let mut legal = MoveList::new();
    pos.legal_moves(&mut legal);
    let names: Vec<String> = legal.iter().map(|&m| pos.format_move(m)).collect();
    names.join(" ")
}

/// `moves` from `start` in the game's notation.
fn notation<G: Game>(start: &G, moves: &[G::Move]) -> Vec<String> {
    let mut pos = *start;
    moves
        .iter()
        .map(|&mv| {
            let text = pos.format_move(mv);
            pos = pos.play(mv);
            text
        })
        .collect()
}

/// Up to `plies` random moves from `start` (fewer when the game ends first).
fn random_line<G: Game>(start: G, plies: usize, rng: &mut ChaCha8Rng) -> Vec<G::Move> {
    let mut pos = start;
    let mut line = Vec::new();
    let mut legal = MoveList::new();
    while line.len() < plies {
        legal.clear();
        pos.legal_moves(&mut legal);
        if legal.is_empty() {
            break;
        }
        let mv = legal[rng.random_range(0..legal.len())];
        line.push(mv);
        pos = pos.play(mv);
    }
    line
}

/// A player that answers a uniformly random legal move.
struct RandomMover {
    rng: ChaCha8Rng,
}

impl<G: Game> Player<G> for RandomMover {
    fn new_game(&mut self, _: &Opening<'_, G>) -> Result<(), PlayerError> {
        Ok(())
    }

    fn think(&mut self, turn: &Turn<'_, G>) -> Result<Thought<G::Move>, PlayerError> {
        let mut legal = MoveList::new();
        turn.position.legal_moves(&mut legal);
        if legal.is_empty() {
            return Err(PlayerError::Failed("no legal move".into()));
        }
        Ok(super::bare(legal[self.rng.random_range(0..legal.len())]))
    }

    fn game_over(&mut self, _: &Outcome) {}
}

/// Helpers for the outside dialects' tests: the fake engine of `tests/engines/fake.py`, and
/// games between outside players.
#[cfg(all(test, target_os = "linux"))]
pub(crate) mod testing {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use super::super::{OutsidePlayer, OutsideSpec, Protocol, Setup};
    use crate::arena::game::{GameRecord, Opening, Referee, TimeControl, play_game};
    use crate::games::{Game, GameKind};

    /// The fake engine speaking `protocol` for `game`, with more of its flags.
    pub fn fake(protocol: Protocol, game: &str, flags: &[&str]) -> OutsideSpec {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/fake.py");
        let mut args = vec![
            script.to_string(),
            "--protocol".into(),
            protocol.name().into(),
            "--game".into(),
            game.into(),
        ];
        args.extend(flags.iter().map(|f| f.to_string()));
        OutsideSpec {
            command: "python3".into(),
            args,
            working_dir: None,
            protocol,
            protocol_version: None,
            options: BTreeMap::new(),
            depth: None,
            nodes: None,
            stall_ms: 20_000,
            program: None,
            folder: None,
            guard: Default::default(),
        }
    }

    /// What every protocol must turn into a lost game: the second player's program crashing
    /// at its second move (the exit status in the detail), and the first player's hanging on
    /// a 200 ms time per move (`timeout`). `spec` gives the protocol's fake with more flags.
    pub fn crash_and_hang_lose<G: Game>(start: G, spec: impl Fn(&[&str]) -> OutsideSpec) {
        use crate::arena::game::Termination;
        use crate::games::Side;
        let record = play(start, "", [spec(&[]), spec(&["--crash-at", "2"])], None);
        match &record.termination {
            Termination::Crash(Side::Second, why) => {
                assert!(why.contains("exit status: 3"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        let clock = TimeControl::Move {
            time: Duration::from_millis(200),
        };
        let record = play(
            start,
            "",
            [spec(&["--hang-at", "1"]), spec(&[])],
            Some(clock),
        );
        assert_eq!(record.termination.name(), "timeout");
        assert_eq!(record.termination.failed(), Some(Side::First));
    }

    /// A game between the programs of `specs` (the first player first) after `opening` (in the
    /// game's notation) from `start`, on `clock` with a margin of 300 ms.
    pub fn play<G: Game>(
        start: G,
        opening: &str,
        specs: [OutsideSpec; 2],
        clock: Option<TimeControl>,
    ) -> GameRecord<G> {
        let game = GameKind::parse(&start.name()).unwrap();
        let [a, b] = specs.map(|spec| OutsidePlayer::<G>::new(Setup { game, spec, clock }, None));
        let (mut a, mut b) = (a, b);
        let moves = start.parse_sequence(opening).unwrap();
        let mut referee = Referee::on_clock(clock, Duration::from_millis(300));
        play_game(
            &Opening {
                initial: start,
                moves: &moves,
            },
            [&mut a, &mut b],
            &mut referee,
            |_, _| {},
        )
    }

    /// A file under the temporary folder for a fake's `--log`, removed with the value.
    pub fn log_file() -> tempfile::NamedTempFile {
        tempfile::NamedTempFile::new().unwrap()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::testing::fake;
    use super::*;
    use crate::arena::outside::Protocol;

    fn check(game: &str, spec: OutsideSpec) -> Vec<CheckStep> {
        let config = CheckConfig {
            game: GameKind::parse(game).unwrap(),
            spec,
            clock: None,
            seed: 7,
            games: 0,
        };
        let mut reported = 0;
        let report = run_check(&config, &mut |_| reported += 1).unwrap();
        assert_eq!(reported, report.steps.len());
        assert!(report.games.is_empty() && report.games_skipped.is_none());
        report.steps
    }

    /// The check of `spec` with `games` games after the steps, on `clock` (margin 100 ms);
    /// every game reported as it ended.
    fn check_games(
        game: &str,
        spec: OutsideSpec,
        games: usize,
        seed: u64,
        clock: Option<TimeControl>,
    ) -> CheckReport {
        let config = CheckConfig {
            game: GameKind::parse(game).unwrap(),
            spec,
            clock: clock.map(|c| (c, Duration::from_millis(100))),
            seed,
            games,
        };
        let mut reported = Vec::new();
        let report = run_check(&config, &mut |p| {
            if let Progress::Game(g) = p {
                reported.push(g.clone())
            }
        })
        .unwrap();
        assert_eq!(reported, report.games);
        assert_eq!(report.games.len(), games);
        report
    }

    #[test]
    fn a_compliant_program_passes_every_game_its_colour_alternating() {
        let report = check_games(
            "connect4",
            fake(Protocol::Line, "connect4", &[]),
            4,
            7,
            None,
        );
        assert!(report.steps.iter().all(CheckStep::passed));
        for (i, game) in report.games.iter().enumerate() {
            assert_eq!(game.number, i + 1);
            let first = if i % 2 == 0 {
                Side::First
            } else {
                Side::Second
            };
            assert_eq!(game.program, first, "{game:?}");
            assert_eq!(game.failure, None, "{game:?}");
            // Every game played to its end by the rules.
            let start = crate::games::connect4::Connect4::start();
            let end = start.play_sequence(&game.moves.join(" ")).unwrap();
            let outcome = end.outcome().unwrap();
            let result = match outcome.winner {
                Some(side) if side == game.program => GameResult::Won,
                Some(_) => GameResult::Lost,
                None => GameResult::Drawn,
            };
            assert_eq!(game.result, result, "{game:?}");
        }
    }

    #[test]
    fn every_game_catches_an_illegal_move_with_the_moves_before_it() {
        // An occupied square at its 6th move of every game.
        let spec = fake(Protocol::Line, "othello", &["--illegal-at", "6"]);
        let report = check_games("othello", spec, 2, 7, None);
        for game in &report.games {
            let failure = game.failure.as_ref().expect("a failed game");
            assert!(failure.by_program, "{game:?}");
            assert_eq!(failure.termination, "illegal-move");
            assert_eq!(game.result, GameResult::Lost);
            // Its 6th move: 10 moves before it when first, 11 when second.
            let before = if game.program == Side::First { 10 } else { 11 };
            assert_eq!(game.moves.len(), before, "{game:?}");
            // The moves replay to the position where it played, the reason says why not.
            let start = crate::games::othello::Othello::start();
            let pos = start.play_sequence(&game.moves.join(" ")).unwrap();
            assert_eq!(pos.side_to_move(), game.program);
            let (_, why) = failure.detail.split_once(": ").unwrap();
            assert!(why.contains(" is taken; legal moves: "), "{failure:?}");
            let square = why.split(' ').next().unwrap();
            let refused = pos.parse_move(square).unwrap_err();
            assert_eq!(crate::arena::game::why_illegal(refused), why);
        }
    }

    #[test]
    fn a_crash_and_a_stall_in_the_games_say_what_happened_and_the_next_game_restarts() {
        let spec = fake(Protocol::Line, "connect4", &["--crash-at", "2"]);
        let report = check_games("connect4", spec, 2, 7, None);
        for game in &report.games {
            let failure = game.failure.as_ref().expect("a failed game");
            assert_eq!(failure.termination, "crash", "{game:?}");
            assert!(
                failure.detail.contains("exit status: 3")
                    && failure.detail.contains("fake: crashing at move 2"),
                "{failure:?}"
            );
        }
        let mut spec = fake(Protocol::Line, "connect4", &["--hang-at", "4"]);
        // Long enough for Python to start on a loaded machine.
        spec.stall_ms = 2000;
        let report = check_games("connect4", spec, 1, 7, None);
        let failure = report.games[0].failure.as_ref().unwrap();
        assert_eq!(failure.termination, "stall", "{failure:?}");
        // On a clock, the same hang is a timeout.
        let spec = fake(Protocol::Line, "connect4", &["--hang-at", "4"]);
        let clock = TimeControl::Move {
            time: Duration::from_millis(200),
        };
        let report = check_games("connect4", spec, 1, 7, Some(clock));
        let failure = report.games[0].failure.as_ref().unwrap();
        assert_eq!(failure.termination, "timeout", "{failure:?}");
    }

    #[test]
    fn the_same_seed_gives_the_same_games() {
        let moves = |seed| {
            let spec = fake(Protocol::Line, "connect4", &[]);
            let report = check_games("connect4", spec, 2, seed, None);
            report
                .games
                .into_iter()
                .map(|g| g.moves)
                .collect::<Vec<_>>()
        };
        let seven = moves(7);
        assert_eq!(seven, moves(7));
        assert_ne!(seven, moves(8));
    }

    #[test]
    fn no_games_are_played_when_the_handshake_fails() {
        let spec = fake(Protocol::Line, "connect4", &["--exit-at-start"]);
        let config = CheckConfig {
            game: GameKind::Connect4,
            spec,
            clock: None,
            seed: 1,
            games: 3,
        };
        let report = run_check(&config, &mut |_| {}).unwrap();
        assert!(report.games.is_empty());
        assert_eq!(
            report.games_skipped.as_deref(),
            Some("the handshake failed")
        );
    }

    fn summary(steps: &[CheckStep]) -> Vec<String> {
        steps
            .iter()
            .map(|s| match &s.result {
                StepResult::Passed(_) => format!("{} ok", s.number),
                StepResult::Warned(why) => format!("{} warn {why}", s.number),
                StepResult::Failed(why) => format!("{} FAIL {why}", s.number),
                StepResult::Skipped(_) => format!("{} skip", s.number),
            })
            .collect()
    }

    #[test]
    fn compliant_programs_pass_every_step() {
        for (protocol, game) in [
            (Protocol::Gtp, "othello"),
            (Protocol::Nboard, "othello"),
            (Protocol::Gomocup, "morpion-7x7-5"),
            (Protocol::Line, "connect4"),
        ] {
            let steps = check(game, fake(protocol, game, &[]));
            let expected = if game == "othello" { 8 } else { 7 };
            assert_eq!(steps.len(), expected, "{protocol}");
            assert!(
                steps.iter().all(CheckStep::passed),
                "{protocol}: {:?}",
                summary(&steps)
            );
        }
    }

    #[test]
    fn the_othello_steps_include_both_passes() {
        let steps = check("othello", fake(Protocol::Gtp, "othello", &[]));
        assert!(
            steps[3]
                .name
                .starts_with("a position where the program must pass")
        );
        assert_eq!(steps[3].result, StepResult::Passed("pass".into()));
        assert!(
            steps[4]
                .name
                .starts_with("a move after the opponent's pass")
        );
    }

    #[test]
    fn an_illegal_move_fails_its_steps() {
        let steps = check(
            "othello",
            fake(Protocol::Nboard, "othello", &["--illegal-at", "1"]),
        );
        let lines = summary(&steps);
        assert_eq!(lines[0], "1 ok");
        assert!(
            lines[1].starts_with("2 FAIL it answered '=== ") && lines[1].contains("legal: "),
            "{lines:?}"
        );
        assert!(
            lines[5].starts_with("6 FAIL it lost by illegal-move"),
            "{lines:?}"
        );
        assert_eq!(lines[6], "7 ok");
    }

    #[test]
    fn a_failed_handshake_skips_the_rest() {
        let mut spec = fake(Protocol::Gomocup, "morpion-9x9-5", &["--bad-handshake"]);
        spec.stall_ms = 2000;
        let steps = check("morpion-9x9-5", spec);
        let lines = summary(&steps);
        assert!(
            lines[0].contains("it answered 'ERROR no' to 'START 9'"),
            "{lines:?}"
        );
        assert!(lines[1..].iter().all(|l| l.ends_with("skip")), "{lines:?}");
        let steps = check(
            "connect4",
            fake(Protocol::Line, "connect4", &["--exit-at-start"]),
        );
        let lines = summary(&steps);
        assert!(lines[0].contains("refusing to start"), "{lines:?}");
    }

    #[test]
    fn a_program_that_does_not_leave_fails_the_last_step() {
        // Answers the handshake, then ignores everything, its input's end included.
        let script = "while :; do if read l; then case \"$l\" in joute*) echo ok;; esac; \
                      else sleep 5; fi; done";
        let mut spec = fake(Protocol::Line, "connect4", &[]);
        spec.command = "sh".into();
        spec.args = vec!["-c".into(), script.into()];
        spec.stall_ms = 200;
        let steps = check("connect4", spec);
        let lines = summary(&steps);
        assert_eq!(lines[0], "1 ok");
        assert!(
            lines[1].starts_with("2 FAIL no answer to 'move game=connect4 moves=")
                && lines[1].ends_with("within 200 ms"),
            "{lines:?}"
        );
        assert!(
            lines[5].starts_with("6 FAIL it was still running 2 s after 'quit'"),
            "{lines:?}"
        );
    }

    fn check_on(game: &str, spec: OutsideSpec, clock: TimeControl) -> Vec<CheckStep> {
        let config = CheckConfig {
            game: GameKind::parse(game).unwrap(),
            spec,
            clock: Some((clock, Duration::from_millis(100))),
            seed: 7,
            games: 0,
        };
        run_check(&config, &mut |_| {}).unwrap().steps
    }

    #[test]
    fn on_a_clock_a_program_that_refuses_the_time_commands_fails() {
        let clock = TimeControl::Game {
            base: Duration::from_secs(5),
            increment: Duration::ZERO,
            moves: None,
        };
        // Off the clock it passes every step: its fault only shows on the clock.
        let steps = check("othello", fake(Protocol::Gtp, "othello", &["--no-clock"]));
        assert!(steps.iter().all(CheckStep::passed), "{:?}", summary(&steps));
        let steps = check_on(
            "othello",
            fake(Protocol::Gtp, "othello", &["--no-clock"]),
            clock,
        );
        let lines = summary(&steps);
        assert_eq!(steps.len(), 9, "{lines:?}");
        assert!(
            lines[1].starts_with("2 FAIL at the new game") && lines[1].contains("time_settings"),
            "{lines:?}"
        );
        assert!(
            steps[6]
                .name
                .starts_with("a whole game on the clock (5 s), the program first"),
            "{:?}",
            steps[6].name
        );
        assert!(lines[6].starts_with("7 FAIL it lost by crash"), "{lines:?}");
        // A program that keeps the clock passes it.
        let steps = check_on("othello", fake(Protocol::Gtp, "othello", &[]), clock);
        assert!(steps.iter().all(CheckStep::passed), "{:?}", summary(&steps));
    }

    #[test]
    fn on_a_clock_a_move_over_its_time_fails() {
        let clock = TimeControl::Move {
            time: Duration::from_millis(100),
        };
        let slow = fake(Protocol::Line, "connect4", &["--sleep-ms", "400"]);
        let lines = summary(&check_on("connect4", slow, clock));
        assert_eq!(lines[1], "2 FAIL no move within the clock's 200 ms");
        assert!(
            lines[5].starts_with("6 FAIL it lost by timeout"),
            "{lines:?}"
        );
        let quick = fake(Protocol::Line, "connect4", &[]);
        let steps = check_on("connect4", quick, clock);
        assert!(steps.iter().all(CheckStep::passed), "{:?}", summary(&steps));
    }

    #[test]
    fn what_cannot_be_checked_is_refused() {
        let config = |game: &str, spec| CheckConfig {
            game: GameKind::parse(game).unwrap(),
            spec,
            clock: None,
            seed: 1,
            games: 0,
        };
        let why = refuse(&config("connect4", fake(Protocol::Gtp, "othello", &[]))).unwrap();
        assert!(why.contains("plays othello"), "{why}");
        let mut spec = fake(Protocol::Line, "connect4", &[]);
        spec.command = "/no/such/program".into();
        let why = refuse(&config("connect4", spec.clone())).unwrap();
        assert_eq!(why, "no program /no/such/program: not a file");
        spec.command = "no-such-program-anywhere".into();
        let why = refuse(&config("connect4", spec)).unwrap();
        assert!(
            why.starts_with("program 'no-such-program-anywhere' is not in PATH"),
            "{why}"
        );
        assert_eq!(
            refuse(&config("connect4", fake(Protocol::Line, "connect4", &[]))),
            None
        );
    }
}

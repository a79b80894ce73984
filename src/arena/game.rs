//! One game between two players: the [`Player`] interface every engine implements (today's
//! built-in [`Engine`]s, tomorrow outside programs), and [`play_game`], the one place where a
//! game is refereed — moves checked for legality, time accounted, adjudication asked, the game
//! recorded.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::engine::Engine;
use crate::eval::Features;
use crate::games::{Game, MoveList, Outcome, Side};
use crate::search::Algorithm;

/// Why a player could not give a move: it crashed, broke its protocol, did not answer, talked
/// without answering, or answered something that is no move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// The player failed (a process that exited or could not start, a broken protocol), said
    /// in a line.
    #[error("{0}")]
    Failed(String),
    /// The player gave no answer within this long: to what, and what it wrote instead.
    #[error("no answer{} within {}{}", .1.to_request(), seconds_text(*.0), .1.passed_over)]
    NoAnswer(Duration, Unanswered),
    /// The player wrote line after line without the answer expected.
    #[error("{0}")]
    Chatter(String),
    /// The player's answer is no legal move here: the line it wrote, and why it is none
    /// (`column 4 is full`, `d3 flips nothing`; empty when there is nothing to say).
    #[error("{}", illegal_detail(.line, .why))]
    BadAnswer {
        /// The line, whole.
        line: String,
        /// Why it is no legal move.
        why: String,
    },
    /// The player's program met one of its resource limits (memory, processes, CPU time,
    /// bytes written): which, with its figures.
    #[error("{0}")]
    Limit(String),
}

/// An illegal move's detail: the move (or the line) and why it is none, `4: column 4 is full`.
pub fn illegal_detail(line: &str, why: &str) -> String {
    if why.is_empty() {
        line.to_string()
    } else {
        format!("{line}: {why}")
    }
}

/// Why the game refused a move, in its own words (`column 4 is full`).
pub fn why_illegal(e: crate::games::GameError) -> String {
    match e {
        crate::games::GameError::BadMove { reason, .. } => reason,
        e => e.to_string(),
    }
}

/// What a player left unanswered: the request (when known) and the lines it wrote meanwhile
/// that were no answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unanswered {
    /// The line the answer was due to (`boardsize 8`), when the player was sent one.
    pub request: Option<String>,
    /// The lines it wrote that are no answer, passed over.
    pub passed_over: PassedOver,
}

impl Unanswered {
    /// ` to 'boardsize 8'`, or nothing: for messages.
    fn to_request(&self) -> String {
        match &self.request {
            Some(r) => format!(" to '{}'", cut(r, 60)),
            None => String::new(),
        }
    }
}

/// Lines a program wrote that were no answer of its protocol (a debug print on stdout), passed
/// over: how many, and the first few, kept for messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassedOver {
    /// How many.
    pub count: u64,
    /// The first [`PassedOver::KEPT`] of them (each cut to 80 characters).
    pub first: Vec<String>,
}

impl PassedOver {
    /// Lines kept for messages.
    pub const KEPT: usize = 3;

    /// Counts `line`, keeping it if it is among the first.
    pub fn note(&mut self, line: &str) {
        self.count += 1;
        if self.first.len() < Self::KEPT {
            self.first.push(cut(line, 80));
        }
    }

    /// Adds `other`'s lines after these.
    pub fn absorb(&mut self, other: &PassedOver) {
        self.count += other.count;
        for line in &other.first {
            if self.first.len() < Self::KEPT {
                self.first.push(line.clone());
            }
        }
    }
}

/// `; it wrote 2 lines that are no answer (passed over): 'thinking...', 'x'`, or nothing.
impl std::fmt::Display for PassedOver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.count == 0 {
            return Ok(());
        }
        let quoted: Vec<String> = self.first.iter().map(|l| format!("'{l}'")).collect();
        let more = if self.count > self.first.len() as u64 {
            ", ..."
        } else {
            ""
        };
        write!(
            f,
            "; it wrote {} line{} that {} no answer (passed over): {}{more}",
            self.count,
            if self.count == 1 { "" } else { "s" },
            if self.count == 1 { "is" } else { "are" },
            quoted.join(", ")
        )
    }
}

/// `text` with control characters escaped, cut to `max` characters (`…` marks a cut).
pub fn cut(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .take(max)
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

/// A duration for messages: `2.5 s`, `150 ms`.
pub fn seconds_text(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} s", (d.as_secs_f64() * 1000.0).round() / 1000.0)
    }
}

/// How a game begins: a position to set up (usually the game's start) and the opening moves
/// played from it.
#[derive(Clone, Copy, Debug)]
pub struct Opening<'a, G: Game> {
    /// The position set up before the opening (usually the game's start).
    pub initial: G,
    /// The opening's moves, legal from `initial`; the players start after them.
    pub moves: &'a [G::Move],
}

impl<'a, G: Game> Opening<'a, G> {
    /// No opening: the game starts at `initial`.
    pub fn none(initial: G) -> Opening<'static, G> {
        Opening {
            initial,
            moves: &[],
        }
    }

    /// The position after the opening.
    pub fn position(&self) -> G {
        self.moves
            .iter()
            .fold(self.initial, |pos, &mv| pos.play(mv))
    }
}

/// What a player is asked on its turn.
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a, G: Game> {
    /// The position to move in.
    pub position: &'a G,
    /// The players' moves since the game began after the opening, both sides', in order.
    pub moves: &'a [G::Move],
    /// Time left on this player's clock, when the game is played on a game clock.
    pub time_left: Option<Duration>,
    /// Time left on the opponent's clock.
    pub opponent_time_left: Option<Duration>,
    /// Time added to the clock after each move.
    pub increment: Duration,
    /// Moves this player has to make before its clock is filled again (`40/60` time controls).
    pub moves_to_go: Option<u32>,
    /// The fixed time for this move, when the game is played at a time per move.
    pub move_time: Option<Duration>,
    /// The referee's limit for this answer, margin included: a player still thinking then has
    /// lost on time. `None`: no clock (the player keeps its own limits).
    pub deadline: Option<Duration>,
}

impl<G: Game> Turn<'_, G> {
    /// The time a player on this turn should spend at most, when the game is played on a
    /// clock: the time per move, or a share of the time left (`moves_to_go`, else a guess of
    /// 30 moves) plus most of the increment, never more than half the time left.
    pub fn budget(&self) -> Option<Duration> {
        if let Some(t) = self.move_time {
            return Some(t);
        }
        let left = self.time_left?;
        let share = left / self.moves_to_go.unwrap_or(30).max(1) + self.increment * 3 / 4;
        Some(share.min(left / 2).max(Duration::from_millis(1)))
    }
}

/// A player's answer: the move, and what it says of its search (the referee measures time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thought<M> {
    /// The move.
    pub mv: M,
    /// Its score from the player's point of view, when the player gives one.
    pub score: Option<i32>,
    /// Depth of the deepest completed iteration (0 when unknown).
    pub depth: u32,
    /// Selective depth: the deepest line the search followed, where the player has one beside
    /// its depth (`mcts`'s deepest tree node, an outside program's `seldepth`); 0 when none.
    pub seldepth: u32,
    /// Positions visited, when the player says (a built-in engine always does, but `random`,
    /// which searches nothing).
    pub nodes: Option<u64>,
    /// The player's own time limit cut its search (the move depends on the machine).
    pub timed_out: bool,
}

/// Something that plays a game: told when a game begins, asked for a move on each of its turns,
/// told when the game is over. Built-in engines implement it ([`Engine`]); an outside program
/// implements it over its protocol ([`crate::arena::outside::OutsidePlayer`]).
pub trait Player<G: Game> {
    /// A new game begins from `opening` (its position and the moves that reached it).
    fn new_game(&mut self, opening: &Opening<'_, G>) -> Result<(), PlayerError>;
    /// The move to play on `turn`.
    fn think(&mut self, turn: &Turn<'_, G>) -> Result<Thought<G::Move>, PlayerError>;
    /// The game is over (the player may release what it holds).
    fn game_over(&mut self, _outcome: &Outcome) {}
    /// The CPU time the player has used so far, where the machine can tell: the referee reads
    /// it just before and just after each move, outside the move's timing, and records the
    /// difference. A built-in engine on a clock or a time limit gives its thread's time (it
    /// searches on the thread that asks it), an outside program its process group's; `None`:
    /// not measured.
    fn cpu_time(&mut self) -> Option<Duration> {
        None
    }
}

impl<G: Features> Player<G> for Engine<G> {
    fn new_game(&mut self, _: &Opening<'_, G>) -> Result<(), PlayerError> {
        // A built-in engine is built fresh for each game: nothing to forget.
        Ok(())
    }

    fn think(&mut self, turn: &Turn<'_, G>) -> Result<Thought<G::Move>, PlayerError> {
        // On a clock, iterative deepening stops at the turn's share of the time (or at the
        // engine's own limit, when that comes first).
        let result = match turn.budget() {
            Some(budget) => self.choose_within(turn.position, budget),
            None => self.choose(turn.position),
        };
        let mv = result.best_move.ok_or_else(|| {
            PlayerError::Failed("the search returned no move in an unfinished game".into())
        })?;
        Ok(Thought {
            mv,
            score: Some(result.score),
            depth: result.stats.depth,
            seldepth: result.stats.seldepth,
            nodes: (self.spec.config.algorithm != Algorithm::Random).then_some(result.stats.nodes),
            timed_out: result.stats.timed_out,
        })
    }

    fn cpu_time(&mut self) -> Option<Duration> {
        if self.times_cpu() {
            super::cpu::thread_time()
        } else {
            None
        }
    }
}

/// How the referee times a game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TimeControl {
    /// A game clock: `base` for each side, `increment` added after each move, and — when
    /// `moves` is set — `base` added again every `moves` moves (`40/60+0.5`).
    Game {
        /// Each side's time for the game (or for each period of `moves` moves).
        #[serde(with = "millis")]
        base: Duration,
        /// Added after each move.
        #[serde(with = "millis")]
        increment: Duration,
        /// Moves per period, when the clock is filled again after them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moves: Option<u32>,
    },
    /// A fixed time for every move.
    Move {
        /// The time per move.
        #[serde(with = "millis")]
        time: Duration,
    },
}

/// Durations as whole milliseconds in `run.json`.
mod millis {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

impl TimeControl {
    /// The longest time control joute takes, per game or per move: one day.
    pub const MAX: Duration = Duration::from_secs(86_400);

    /// Reads a game clock as cutechess and fastchess write it: `[MOVES/]TIME[+INCREMENT]`,
    /// TIME in seconds (`10`, `0.5`) or minutes and seconds (`1:30`), INCREMENT in seconds:
    /// `10+0.1`, `40/60`, `1:00+1`.
    pub fn parse_game(text: &str) -> Result<TimeControl, String> {
        let bad = |why: &str| {
            format!(
                "time control '{text}' {why}; expected [MOVES/]SECONDS[+INCREMENT] such as \"10+0.1\", \"40/60\" or \"1:30+1\""
            )
        };
        let (moves, rest) = match text.trim().split_once('/') {
            Some((m, rest)) => {
                let m: u32 = m
                    .trim()
                    .parse()
                    .ok()
                    .filter(|m| (1..=1000).contains(m))
                    .ok_or_else(|| bad("has a move count that is not a whole number 1..=1000"))?;
                (Some(m), rest)
            }
            None => (None, text.trim()),
        };
        let (base, increment) = match rest.split_once('+') {
            Some((b, i)) => (b, Some(i)),
            None => (rest, None),
        };
        let seconds = |t: &str| -> Option<f64> {
            let t = t.trim();
            let v = match t.split_once(':') {
                Some((m, s)) => m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?,
                None => t.parse::<f64>().ok()?,
            };
            (v.is_finite() && v >= 0.0 && v <= Self::MAX.as_secs_f64()).then_some(v)
        };
        let base = seconds(base).ok_or_else(|| bad("has no time in seconds up to one day"))?;
        let increment = match increment {
            Some(i) => seconds(i).ok_or_else(|| bad("has an increment that is not seconds"))?,
            None => 0.0,
        };
        if base < 0.001 {
            return Err(bad("gives no time (at least 1 ms)"));
        }
        Ok(TimeControl::Game {
            base: Duration::from_secs_f64(base),
            increment: Duration::from_secs_f64(increment),
            moves,
        })
    }

    /// `10+0.1`, `40/60`, `100ms/move`: how the control reads in tables.
    pub fn describe(&self) -> String {
        match *self {
            TimeControl::Game {
                base,
                increment,
                moves,
            } => {
                let mut text = String::new();
                if let Some(m) = moves {
                    text.push_str(&format!("{m}/"));
                }
                text.push_str(&trim_seconds(base));
                if !increment.is_zero() {
                    text.push('+');
                    text.push_str(&trim_seconds(increment));
                }
                text
            }
            TimeControl::Move { time } => format!("{} ms/move", time.as_millis()),
        }
    }
}

/// Seconds without trailing zeros: `10`, `0.1`.
fn trim_seconds(d: Duration) -> String {
    let text = format!("{:.3}", d.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Ends a game early when its result is clear: asked after every move.
pub trait Adjudicator<G: Game> {
    /// The result to record now, with the reason, or `None` to play on.
    fn adjudicate(
        &mut self,
        position: &G,
        moves: &[MoveRecord<G::Move>],
    ) -> Option<(Outcome, String)>;
}

/// The rules beyond the game's own: each side's clock and an adjudicator, all optional.
pub struct Referee<'a, G: Game> {
    /// The first and the second player's clocks (time odds: each its own); `None`: that
    /// player keeps its own limits (built-in engines' budgets).
    pub clocks: [Option<TimeControl>; 2],
    /// Overrun forgiven on every move of the first and the second player (process start-up,
    /// scheduling, pipes).
    pub margins: [Duration; 2],
    /// Asked after every move.
    pub adjudicator: Option<&'a mut dyn Adjudicator<G>>,
}

impl<G: Game> Default for Referee<'_, G> {
    fn default() -> Self {
        Referee {
            clocks: [None; 2],
            margins: [Duration::ZERO; 2],
            adjudicator: None,
        }
    }
}

impl<G: Game> Referee<'_, G> {
    /// A referee with one clock and margin for both sides, and no adjudicator.
    pub fn on_clock(clock: Option<TimeControl>, margin: Duration) -> Self {
        Referee {
            clocks: [clock; 2],
            margins: [margin; 2],
            adjudicator: None,
        }
    }
}

/// One move of a game, as a player chose it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRecord<M> {
    /// The move.
    pub mv: M,
    /// Who played it.
    pub side: Side,
    /// The player's score for it, from its own point of view, when it gave one.
    pub score: Option<i32>,
    /// Depth of the player's deepest completed iteration.
    pub depth: u32,
    /// The player's selective depth (0: none).
    pub seldepth: u32,
    /// Positions the player visited, when it says.
    pub nodes: Option<u64>,
    /// Wall-clock seconds, as the referee measured them.
    pub seconds: f64,
    /// CPU time the player used during the move ([`Player::cpu_time`]), where measured.
    pub cpu: Option<Duration>,
    /// The player's own time limit cut its search.
    pub timed_out: bool,
    /// The time left on the mover's game clock after the move (increment added).
    pub clock_left: Option<Duration>,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// By the rules of the game.
    Normal,
    /// By the adjudicator, for this reason.
    Adjudicated(String),
    /// `side` overran its clock (what happened).
    Timeout(Side, String),
    /// `side` did not answer within its stall limit, or talked without answering (what
    /// happened).
    Stall(Side, String),
    /// `side` answered with something that is no legal move here (the line it wrote).
    IllegalMove(Side, String),
    /// `side` crashed, could not start or broke its protocol (what happened).
    Crash(Side, String),
    /// `side`'s program met one of its resource limits (which, with its figures).
    Limit(Side, String),
}

impl Termination {
    /// Every name the games log's `termination` field takes, in the order tables show them.
    pub const NAMES: [&'static str; 7] = [
        "normal",
        "adjudication",
        "timeout",
        "stall",
        "illegal-move",
        "crash",
        "limit",
    ];

    /// The name of the games log's `termination` field: one of [`Termination::NAMES`].
    pub fn name(&self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Adjudicated(_) => "adjudication",
            Termination::Timeout(..) => "timeout",
            Termination::Stall(..) => "stall",
            Termination::IllegalMove(..) => "illegal-move",
            Termination::Crash(..) => "crash",
            Termination::Limit(..) => "limit",
        }
    }

    /// What happened, for the log: the adjudicator's reason, the failure, the offending line.
    pub fn detail(&self) -> Option<&str> {
        match self {
            Termination::Normal => None,
            Termination::Adjudicated(d)
            | Termination::Timeout(_, d)
            | Termination::Stall(_, d)
            | Termination::IllegalMove(_, d)
            | Termination::Crash(_, d)
            | Termination::Limit(_, d) => Some(d),
        }
    }

    /// The side that lost by failing, if one did.
    pub fn failed(&self) -> Option<Side> {
        match self {
            Termination::Normal | Termination::Adjudicated(_) => None,
            Termination::Timeout(s, _)
            | Termination::Stall(s, _)
            | Termination::IllegalMove(s, _)
            | Termination::Crash(s, _)
            | Termination::Limit(s, _) => Some(*s),
        }
    }

    /// The termination for `side`'s failure `error` on a turn with the referee's `deadline`.
    fn of_failure(side: Side, error: PlayerError, deadline: Option<Duration>) -> Termination {
        match error {
            PlayerError::Failed(e) => Termination::Crash(side, e),
            PlayerError::Limit(e) => Termination::Limit(side, e),
            PlayerError::NoAnswer(d, unanswered) if deadline.is_some() => Termination::Timeout(
                side,
                format!(
                    "no move within {}{}",
                    seconds_text(d),
                    unanswered.passed_over
                ),
            ),
            e @ PlayerError::NoAnswer(..) => Termination::Stall(side, e.to_string()),
            PlayerError::Chatter(e) => Termination::Stall(side, e),
            PlayerError::BadAnswer { line, why } => {
                Termination::IllegalMove(side, illegal_detail(&line, &why))
            }
        }
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord<G: Game> {
    /// The position the players started from (after the opening).
    pub start: G,
    /// The players' moves.
    pub moves: Vec<MoveRecord<G::Move>>,
    /// The final position.
    pub last: G,
    /// How it ended.
    pub outcome: Outcome,
    /// Why it ended.
    pub termination: Termination,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Plays `players[0]` (the first player) against `players[1]` after `opening` — the side to move
/// there picks the player — to the end of the game, under `referee`, calling `observer` after
/// every move with the new position. A player that fails, answers with an illegal move or
/// overruns its clock loses the game.
pub fn play_game<G: Game>(
    opening: &Opening<'_, G>,
    mut players: [&mut dyn Player<G>; 2],
    referee: &mut Referee<'_, G>,
    mut observer: impl FnMut(&G, &MoveRecord<G::Move>),
) -> GameRecord<G> {
    let clock = Instant::now();
    let start = opening.position();
    let mut pos = start;
    let mut moves: Vec<MoveRecord<G::Move>> = Vec::new();
    let mut played: Vec<G::Move> = Vec::new();
    // Each side's game clock (base, increment, moves per period), and the time it has left.
    let game_clocks = referee.clocks.map(|clock| match clock {
        Some(TimeControl::Game {
            base,
            increment,
            moves,
        }) => Some((base, increment, moves)),
        _ => None,
    });
    let mut time_left = game_clocks.map(|c| c.map(|(base, ..)| base));
    let mut moves_made = [0u32; 2];
    let mut legal = MoveList::new();
    let lost = |side: Side| Outcome::win(side.opponent());
    // A player that cannot start the game loses it before the first move.
    let end = [Side::First, Side::Second]
        .into_iter()
        .zip(players.iter_mut())
        .find_map(|(side, player)| {
            let e = player.new_game(opening).err()?;
            Some((lost(side), Termination::of_failure(side, e, None)))
        });
    let (outcome, termination) = loop {
        if let Some(end) = end {
            break end;
        }
        if let Some(outcome) = pos.outcome() {
            break (outcome, Termination::Normal);
        }
        let side = pos.side_to_move();
        let me = side as usize;
        let move_time = match referee.clocks[me] {
            Some(TimeControl::Move { time }) => Some(time),
            _ => None,
        };
        let moves_to_go = game_clocks[me]
            .and_then(|(_, _, period)| period)
            .map(|period| period - moves_made[me] % period);
        let time_left_now = time_left[me];
        let deadline = move_time.or(time_left_now).map(|t| t + referee.margins[me]);
        let turn = Turn {
            position: &pos,
            moves: &played,
            time_left: time_left_now,
            opponent_time_left: time_left[1 - me],
            increment: game_clocks[me].map_or(Duration::ZERO, |(_, inc, _)| inc),
            moves_to_go,
            move_time,
            deadline,
        };
        // The CPU readings stay outside the timed span: reading a process group's time costs
        // what it costs, and a clock must not charge it to the player.
        let cpu_before = players[me].cpu_time();
        let asked = Instant::now();
        let answer = players[me].think(&turn);
        let took = asked.elapsed();
        let cpu = match (cpu_before, players[me].cpu_time()) {
            (Some(before), Some(after)) => after.checked_sub(before),
            _ => None,
        };
        let thought = match answer {
            Ok(t) => t,
            Err(e) => break (lost(side), Termination::of_failure(side, e, deadline)),
        };
        if let Some(limit) = deadline
            && took > limit
        {
            let why = format!(
                "the move took {} with {} allowed",
                seconds_text(took),
                seconds_text(limit)
            );
            break (lost(side), Termination::Timeout(side, why));
        }
        moves_made[me] += 1;
        let mut clock_left = None;
        if let (Some((base, increment, period)), Some(t)) = (game_clocks[me], &mut time_left[me]) {
            *t = t.saturating_sub(took) + increment;
            if period.is_some_and(|p| moves_made[me].is_multiple_of(p)) {
                *t += base;
            }
            clock_left = Some(*t);
        }
        legal.clear();
        pos.legal_moves(&mut legal);
        if !legal.as_slice().contains(&thought.mv) {
            let text = pos.format_move(thought.mv);
            let why = pos
                .parse_move(&text)
                .err()
                .map(why_illegal)
                .unwrap_or_default();
            break (
                lost(side),
                Termination::IllegalMove(side, illegal_detail(&text, &why)),
            );
        }
        let record = MoveRecord {
            mv: thought.mv,
            side,
            score: thought.score,
            depth: thought.depth,
            seldepth: thought.seldepth,
            nodes: thought.nodes,
            seconds: took.as_secs_f64(),
            cpu,
            timed_out: thought.timed_out,
            clock_left,
        };
        pos = pos.play(thought.mv);
        played.push(thought.mv);
        observer(&pos, &record);
        moves.push(record);
        if let Some(a) = referee.adjudicator.as_deref_mut()
            && let Some((outcome, reason)) = a.adjudicate(&pos, &moves)
        {
            break (outcome, Termination::Adjudicated(reason));
        }
    };
    for player in players.iter_mut() {
        player.game_over(&outcome);
    }
    let outcome = match outcome.winner {
        Some(side) if outcome.score == side.sign() => Outcome {
            winner: Some(side),
            score: side.sign() * G::MARGIN_OF_A_WIN_OFF_THE_BOARD,
        },
        _ => outcome,
    };
    GameRecord {
        start,
        moves,
        last: pos,
        outcome,
        termination,
        seconds: clock.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::EngineSpec;
    use crate::games::connect4::Connect4;
    use crate::games::othello::{Othello, OthelloMove};

    type C4Move = <Connect4 as Game>::Move;

    /// An Othello player that plays the first legal move, or fails at its first turn.
    struct FirstOrFail(bool);

    impl Player<Othello> for FirstOrFail {
        fn new_game(&mut self, _: &Opening<'_, Othello>) -> Result<(), PlayerError> {
            Ok(())
        }

        fn think(&mut self, turn: &Turn<'_, Othello>) -> Result<Thought<OthelloMove>, PlayerError> {
            if self.0 {
                return Err(PlayerError::Failed("gone".into()));
            }
            let mut legal = MoveList::new();
            turn.position.legal_moves(&mut legal);
            Ok(Thought {
                mv: legal.as_slice()[0],
                score: None,
                depth: 0,
                seldepth: 0,
                nodes: None,
                timed_out: false,
            })
        }
    }

    #[test]
    fn an_othello_game_lost_by_a_failure_has_the_whole_board_as_its_margin() {
        // The margin GGF gives such a game, whatever the board shows (after one move: 4 to 1).
        for (fails, margin) in [([true, false], -64), ([false, true], 64)] {
            let [mut a, mut b] = fails.map(FirstOrFail);
            let record = play_game(
                &Opening {
                    initial: Othello::start(),
                    moves: &[],
                },
                [&mut a, &mut b],
                &mut Referee::default(),
                |_, _| {},
            );
            assert_eq!(record.outcome.score, margin, "{fails:?}");
            assert!(matches!(record.termination, Termination::Crash(..)));
        }
    }

    /// A player that answers from a script: a move name, `NAME!` (the move of that name on the
    /// empty board, whether legal here or not), `fail`, or `sleep:MS` then the first legal move;
    /// past the script, the first legal move.
    struct Scripted {
        script: Vec<&'static str>,
        told: Vec<String>,
        /// Each turn's clock as the referee gave it: move time, own and opponent's time left.
        clocks: Vec<[Option<Duration>; 3]>,
        over: Option<Outcome>,
    }

    impl Scripted {
        fn new(script: &[&'static str]) -> Scripted {
            Scripted {
                script: script.iter().rev().copied().collect(),
                told: Vec::new(),
                clocks: Vec::new(),
                over: None,
            }
        }
    }

    impl Player<Connect4> for Scripted {
        fn new_game(&mut self, opening: &Opening<'_, Connect4>) -> Result<(), PlayerError> {
            let names = opening
                .moves
                .iter()
                .map(|&m| opening.initial.format_move(m));
            self.told
                .push(format!("new {}", names.collect::<Vec<_>>().join(" ")));
            Ok(())
        }

        fn think(&mut self, turn: &Turn<'_, Connect4>) -> Result<Thought<C4Move>, PlayerError> {
            self.told.push(format!("turn after {}", turn.moves.len()));
            self.clocks
                .push([turn.move_time, turn.time_left, turn.opponent_time_left]);
            let mut legal = MoveList::new();
            turn.position.legal_moves(&mut legal);
            let mv = match self.script.pop() {
                Some("fail") => return Err(PlayerError::Failed("crashed".into())),
                Some(s) if s.starts_with("sleep:") => {
                    std::thread::sleep(Duration::from_millis(s[6..].parse().unwrap()));
                    legal.as_slice()[0]
                }
                Some(name) if name.ends_with('!') => Connect4::start()
                    .parse_move(&name[..name.len() - 1])
                    .unwrap(),
                Some(name) => turn.position.parse_move(name).unwrap(),
                None => legal.as_slice()[0],
            };
            Ok(Thought {
                mv,
                score: None,
                depth: 0,
                seldepth: 0,
                nodes: None,
                timed_out: false,
            })
        }

        fn game_over(&mut self, outcome: &Outcome) {
            self.over = Some(*outcome);
        }
    }

    fn play(
        a: &mut Scripted,
        b: &mut Scripted,
        referee: &mut Referee<'_, Connect4>,
    ) -> GameRecord<Connect4> {
        let initial = Connect4::start();
        let opening = [initial.parse_move("4").unwrap()];
        play_game(
            &Opening {
                initial,
                moves: &opening,
            },
            [a, b],
            referee,
            |_, _| {},
        )
    }

    #[test]
    fn scripted_players_play_by_the_rules_and_are_told_the_game() {
        // After the opening 4 the second player moves: column 1 always, against column 2
        // always; the second player fills column 1 first and wins vertically.
        let mut a = Scripted::new(&["2", "2", "2", "2"]);
        let mut b = Scripted::new(&["1", "1", "1", "1"]);
        let record = play(&mut a, &mut b, &mut Referee::default());
        assert_eq!(record.termination, Termination::Normal);
        assert_eq!(record.outcome.winner, Some(Side::Second));
        assert_eq!(record.moves.len(), 7);
        assert_eq!(a.told[0], "new 4");
        assert_eq!(b.told[..3], ["new 4", "turn after 0", "turn after 2"]);
        assert_eq!(a.over, record.outcome.into());
        assert_eq!(b.over, record.outcome.into());
    }

    #[test]
    fn an_illegal_move_or_a_failure_loses_the_game() {
        // Column 4 holds one disc after the opening; five more fill it, the sixth is illegal.
        let mut a = Scripted::new(&["4", "4", "4!"]);
        let mut b = Scripted::new(&["4", "4", "4"]);
        let record = play(&mut a, &mut b, &mut Referee::default());
        assert_eq!(
            record.termination,
            Termination::IllegalMove(Side::First, "4: column 4 is full".into())
        );
        assert_eq!(record.outcome.winner, Some(Side::Second));
        assert_eq!(record.moves.len(), 5);

        let mut a = Scripted::new(&[]);
        let mut b = Scripted::new(&["1", "fail"]);
        let record = play(&mut a, &mut b, &mut Referee::default());
        assert_eq!(
            record.termination,
            Termination::Crash(Side::Second, "crashed".into())
        );
        assert_eq!(record.outcome.winner, Some(Side::First));
        assert_eq!(record.moves.len(), 2);
    }

    #[test]
    fn each_side_keeps_its_own_clock() {
        // Time odds: the first player on a game clock, the second on a time per move.
        let game = TimeControl::Game {
            base: Duration::from_millis(500),
            increment: Duration::from_millis(20),
            moves: None,
        };
        let per_move = TimeControl::Move {
            time: Duration::from_millis(80),
        };
        let mut a = Scripted::new(&["sleep:30"]);
        let mut b = Scripted::new(&[]);
        let mut referee = Referee {
            clocks: [Some(game), Some(per_move)],
            margins: [Duration::ZERO, Duration::from_millis(5)],
            adjudicator: None,
        };
        let record = play(&mut a, &mut b, &mut referee);
        assert_eq!(record.termination, Termination::Normal);
        // The first player is told its time left and no time per move; the second has no
        // game clock, so the first is told none for it.
        assert_eq!(a.clocks[0], [None, Some(Duration::from_millis(500)), None]);
        let left = a.clocks[1][1].unwrap();
        assert!(left <= Duration::from_millis(490) && left > Duration::from_millis(400));
        // The second (to move after the opening) is told its time per move and the first
        // player's time left, which runs once the first has moved.
        assert_eq!(
            b.clocks[0],
            [
                Some(Duration::from_millis(80)),
                None,
                Some(Duration::from_millis(500))
            ]
        );
        assert!(b.clocks[1][2].is_some_and(|t| t < Duration::from_millis(500)));
        // Only the first player's moves leave a clock reading.
        for m in &record.moves {
            assert_eq!(m.clock_left.is_some(), m.side == Side::First, "{m:?}");
        }
        // An overrun loses for the side whose clock it is, whatever the other's.
        let mut a = Scripted::new(&[]);
        let mut b = Scripted::new(&["sleep:120"]);
        let mut referee = Referee {
            clocks: [None, Some(per_move)],
            margins: [Duration::ZERO, Duration::from_millis(5)],
            adjudicator: None,
        };
        let record = play(&mut a, &mut b, &mut referee);
        assert_eq!(record.termination.failed(), Some(Side::Second));
        assert_eq!(record.termination.name(), "timeout");
    }

    #[test]
    fn the_clock_is_kept_by_the_referee_and_an_overrun_loses() {
        let clock = TimeControl::Game {
            base: Duration::from_millis(150),
            increment: Duration::from_millis(10),
            moves: None,
        };
        // Three sleeps of 60 ms: 150 - 60 + 10 = 100, 100 - 60 + 10 = 50, then 60 > 50 + 5.
        let mut a = Scripted::new(&[]);
        let mut b = Scripted::new(&["sleep:60", "sleep:60", "sleep:60"]);
        let mut referee = Referee::on_clock(Some(clock), Duration::from_millis(5));
        let record = play(&mut a, &mut b, &mut referee);
        assert_eq!(record.termination.name(), "timeout");
        assert_eq!(record.termination.failed(), Some(Side::Second));
        assert_eq!(record.outcome.winner, Some(Side::First));
        assert_eq!(record.moves.len(), 4, "the overrunning move is not played");
        assert!(record.moves[0].seconds >= 0.06);
    }

    #[test]
    fn an_adjudicator_ends_the_game_with_its_reason() {
        struct Draw;
        impl Adjudicator<Connect4> for Draw {
            fn adjudicate(
                &mut self,
                _: &Connect4,
                moves: &[MoveRecord<C4Move>],
            ) -> Option<(Outcome, String)> {
                (moves.len() == 3).then(|| (Outcome::DRAW, "three moves".into()))
            }
        }
        let mut a = Scripted::new(&[]);
        let mut b = Scripted::new(&[]);
        let mut draw = Draw;
        let mut referee = Referee {
            adjudicator: Some(&mut draw),
            ..Referee::default()
        };
        let record = play(&mut a, &mut b, &mut referee);
        assert_eq!(
            record.termination,
            Termination::Adjudicated("three moves".into())
        );
        assert_eq!(record.termination.name(), "adjudication");
        assert_eq!(record.outcome, Outcome::DRAW);
        assert_eq!(record.moves.len(), 3);
    }

    #[test]
    fn built_in_engines_are_players() {
        let start = Connect4::start();
        let spec = EngineSpec::parse("alphabeta:3").unwrap();
        let mut a = Engine::new(&spec, &start, 1).unwrap();
        let mut b = Engine::new(&spec, &start, 2).unwrap();
        let record = play_game(
            &Opening::none(start),
            [&mut a, &mut b],
            &mut Referee::default(),
            |_, _| {},
        );
        assert_eq!(record.termination, Termination::Normal);
        assert_eq!(record.last.outcome(), Some(record.outcome));
        assert!(
            record
                .moves
                .iter()
                .all(|m| m.score.is_some() && m.nodes.is_some_and(|n| n > 0))
        );
    }
}

//! The Go Text Protocol's Othello dialect, as Edax (`edax -gtp`) speaks it.
//!
//! ```text
//! → protocol_version            (optional: any answer will do)
//! ← = 2
//! ←
//! → name                        (optional: the name it gives itself, kept in run.json)
//! ← = Edax
//! ←
//! → boardsize 8
//! ← =
//! ←
//! → NAME VALUE                  (each of the user's options)
//! → time_settings 10 0 0        (a game clock: whole seconds, no byo-yomi)
//! → clear_board
//! → play b f5                   (each move so far; a pass is `play w pass`)
//! → time_left w 9.870 0         (before each move on a game clock)
//! → genmove w
//! ← = f6
//! ←
//! → quit
//! ```
//!
//! Every answer is `= RESULT` (success) or `? MESSAGE` (failure), optionally with a number
//! right after the sign, and ends with an empty line, which is read too. Other lines before an
//! answer are passed over (the rule of every protocol, [`super`]). A failure answer to a
//! command the conversation needs (`boardsize`, `clear_board`, `play`, the clock's commands, the
//! user's options) fails the program; to `genmove`, any answer that is not `= MOVE` with a legal
//! move is its bad answer. The colour to play is black (`b`) for the first player.
//!
//! The clock: GTP knows main time and Canadian byo-yomi, in whole seconds.
//! - A game clock (`base`, `increment`, `moves`) is sent as `time_settings BASE 0 0` (absolute
//!   time; BASE rounded down, at least 1 — the increment and the periods cannot be said), and
//!   before every `genmove` the real time left, `time_left COLOUR SECONDS 0` with decimals.
//! - A time per move is sent as `time_settings 0 SECONDS 1`: no main time, SECONDS for every
//!   stone, SECONDS being the time per move rounded down (the program is not told more than it
//!   has), but at least 1: under a second it is told 1 s, and the referee holds it to the real
//!   limit.
//!
//! GTP has no standard way to say what a search did (no depth, no node count, no score in
//! `genmove`'s answer), so nothing of it is recorded: a GTP move's log has its time and CPU
//! time only.
//!
//! Edax reads `time_settings M B S` with `S > 0` as "M seconds a move", so a time per move
//! reaches it as no time at all (it then searches about 0.1 s, its floor, to its `-l` level);
//! and `time_left` switches it to level 60, time alone bounding its search.

use std::time::{Duration, Instant};

use super::{Dialect, History, MAX_CHATTER, Setup, answer_by, answer_if, quote, read_move, untold};
use crate::arena::game::{PlayerError, Thought, TimeControl, Turn};
use crate::arena::process::EngineProcess;
use crate::games::{Game, Side};

/// The GTP conversation: what the program has been told of the game.
#[derive(Default)]
pub(crate) struct Gtp {
    /// The `play` arguments the program's board holds since `clear_board` (`b f5`, `w pass`),
    /// its own moves included (`genmove` plays the move it answers).
    told: Vec<String>,
    /// Its answer to `name`.
    name: Option<String>,
}

/// GTP's name for a colour: the first player is black.
fn colour(side: Side) -> &'static str {
    match side {
        Side::First => "b",
        Side::Second => "w",
    }
}

/// A response: `=` or `?`, its text (after the sign and an id), and its first line whole.
struct Response {
    ok: bool,
    text: String,
    line: String,
}

/// Time left until `deadline`.
fn left(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

/// Reads a response by `deadline`: its first line (passing over lines before it), then the
/// lines up to the empty line that ends it. `wait` names the limit in a timeout.
fn response(
    io: &mut EngineProcess,
    deadline: Instant,
    wait: Duration,
) -> Result<Response, PlayerError> {
    let line = answer_by(io, deadline, wait, |l| {
        answer_if(l.starts_with('=') || l.starts_with('?'), l)
    })?;
    let ok = line.starts_with('=');
    let text = line[1..]
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim()
        .to_string();
    // The empty line that ends the response (after more lines, for a multi-line answer). It
    // follows the first line at once: a few milliseconds are allowed even at the deadline.
    let mut more = 0;
    loop {
        let wait_end = left(deadline).max(Duration::from_millis(20));
        match io.read_line(wait_end) {
            Ok(l) if l.trim().is_empty() => break,
            Ok(_) if more < MAX_CHATTER => more += 1,
            Ok(_) => {
                return Err(PlayerError::Chatter(format!(
                    "more than {MAX_CHATTER} lines in the answer '{}'",
                    quote(&line)
                )));
            }
            Err(PlayerError::NoAnswer(..)) => {
                return Err(PlayerError::Failed(format!(
                    "it answered '{}' without the empty line that ends a GTP response",
                    quote(&line)
                )));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(Response { ok, text, line })
}

/// Sends `command` and requires a success answer by `deadline`: a failure answer fails the
/// program.
fn required(
    io: &mut EngineProcess,
    command: &str,
    deadline: Instant,
    wait: Duration,
) -> Result<String, PlayerError> {
    io.send(command)?;
    let answer = response(io, deadline, wait)?;
    if answer.ok {
        Ok(answer.text)
    } else {
        Err(PlayerError::Failed(format!(
            "it refused '{}': '{}'",
            quote(command),
            quote(&answer.line)
        )))
    }
}

/// The `time_settings` command for `clock`.
fn time_settings(clock: &TimeControl) -> String {
    match *clock {
        TimeControl::Game { base, .. } => format!("time_settings {} 0 0", base.as_secs().max(1)),
        TimeControl::Move { time } => format!("time_settings 0 {} 1", time.as_secs().max(1)),
    }
}

impl Gtp {
    /// The `play` arguments of every move of `history`.
    fn plays<G: Game>(history: &History<'_, G>) -> Vec<String> {
        history
            .notated()
            .into_iter()
            .map(|(pos, mv)| format!("{} {mv}", colour(pos.side_to_move())))
            .collect()
    }

    /// Clears the program's board and plays `plays` on it.
    fn set_up(
        &mut self,
        io: &mut EngineProcess,
        plays: &[String],
        deadline: Instant,
        wait: Duration,
    ) -> Result<(), PlayerError> {
        self.told.clear();
        required(io, "clear_board", deadline, wait)?;
        self.tell(io, plays, deadline, wait)
    }

    /// Plays on the program's board the moves of `plays` it does not hold yet.
    fn tell(
        &mut self,
        io: &mut EngineProcess,
        plays: &[String],
        deadline: Instant,
        wait: Duration,
    ) -> Result<(), PlayerError> {
        for play in &plays[self.told.len()..] {
            required(io, &format!("play {play}"), deadline, wait)?;
            self.told.push(play.clone());
        }
        Ok(())
    }
}

impl<G: Game> Dialect<G> for Gtp {
    fn handshake(&mut self, io: &mut EngineProcess, setup: &Setup) -> Result<(), PlayerError> {
        let wait = setup.spec.stall();
        let deadline = Instant::now() + wait;
        // Optional: a program that does not know it says so, which is answer enough.
        io.send("protocol_version")?;
        response(io, deadline, wait)?;
        io.send("name")?;
        let name = response(io, deadline, wait)?;
        self.name = (name.ok && !name.text.is_empty()).then(|| quote(&name.text));
        required(io, "boardsize 8", deadline, wait)?;
        for (name, value) in &setup.spec.options {
            required(io, &format!("{name} {value}"), deadline, wait)?;
        }
        Ok(())
    }

    fn new_game(
        &mut self,
        io: &mut EngineProcess,
        setup: &Setup,
        history: &History<'_, G>,
    ) -> Result<(), PlayerError> {
        let wait = setup.spec.stall();
        let deadline = Instant::now() + wait;
        if let Some(clock) = &setup.clock {
            required(io, &time_settings(clock), deadline, wait)?;
        }
        self.set_up(io, &Self::plays(history), deadline, wait)
    }

    fn think(
        &mut self,
        io: &mut EngineProcess,
        setup: &Setup,
        history: &History<'_, G>,
        turn: &Turn<'_, G>,
        wait: Duration,
    ) -> Result<Thought<G::Move>, PlayerError> {
        let deadline = Instant::now() + wait;
        let plays = Self::plays(history);
        if untold(&self.told, &plays).is_some() {
            self.tell(io, &plays, deadline, wait)?;
        } else {
            self.set_up(io, &plays, deadline, wait)?;
        }
        let me = colour(turn.position.side_to_move());
        if let (Some(TimeControl::Game { .. }), Some(t)) = (setup.clock, turn.time_left) {
            let command = format!("time_left {me} {:.3} 0", t.as_secs_f64());
            required(io, &command, deadline, wait)?;
        }
        io.send(&format!("genmove {me}"))?;
        let answer = response(io, deadline, wait)?;
        if !answer.ok {
            return Err(PlayerError::BadAnswer {
                line: answer.line,
                why: "an error answer ('?') to genmove".into(),
            });
        }
        let word = answer.text.split_whitespace().next().unwrap_or("");
        let mv = read_move(turn.position, word, &answer.line)?;
        // `genmove` plays the move on the program's board.
        self.told
            .push(format!("{me} {}", turn.position.format_move(mv)));
        Ok(super::bare(mv))
    }

    fn goodbye(&self) -> &'static str {
        "quit"
    }

    fn reported_name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::time::Duration;

    use super::super::Protocol;
    use super::super::check::testing::{crash_and_hang_lose, fake, log_file, play};
    use crate::arena::game::{Termination, TimeControl};
    use crate::games::{Game, Othello, Side};

    fn gtp(flags: &[&str]) -> super::super::OutsideSpec {
        fake(Protocol::Gtp, "othello", flags)
    }

    #[test]
    fn two_programs_play_a_whole_game_on_a_game_clock() {
        let log = log_file();
        let path = log.path().to_str().unwrap();
        let clock = TimeControl::Game {
            base: Duration::from_millis(30_500),
            increment: Duration::from_millis(100),
            moves: None,
        };
        let record = play(
            Othello::start(),
            "f5 d6",
            [gtp(&["--seed", "3", "--log", path]), gtp(&["--seed", "4"])],
            Some(clock),
        );
        assert_eq!(record.termination, Termination::Normal);
        assert!(record.last.outcome().is_some());
        assert!(record.moves.len() > 20);
        let said = std::fs::read_to_string(log.path()).unwrap();
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(lines[..3], ["protocol_version", "name", "boardsize 8"]);
        assert_eq!(
            lines[3..7],
            [
                "time_settings 30 0 0",
                "clear_board",
                "play b f5",
                "play w d6"
            ]
        );
        assert!(lines[7].starts_with("time_left b 30."), "{}", lines[7]);
        assert_eq!(lines[8], "genmove b");
        // The program's own moves are not played back to it; the opponent's are.
        assert!(lines[9].starts_with("play w "), "{}", lines[9]);
        assert_eq!(lines.last(), Some(&"quit"));
    }

    #[test]
    fn a_time_per_move_is_whole_seconds_and_a_pass_is_played() {
        let log = log_file();
        let path = log.path().to_str().unwrap();
        let clock = TimeControl::Move {
            time: Duration::from_millis(1500),
        };
        // Seeds chosen so that the game has a pass.
        let mut passes = 0;
        for seed in 1..20 {
            let seed = seed.to_string();
            let record = play(
                Othello::start(),
                "",
                [
                    gtp(&["--seed", &seed, "--log", path]),
                    gtp(&["--seed", &seed]),
                ],
                Some(clock),
            );
            assert_eq!(record.termination, Termination::Normal);
            let said = std::fs::read_to_string(log.path()).unwrap();
            assert!(said.contains("time_settings 0 1 1\n"), "{said}");
            assert!(!said.contains("time_left"), "{said}");
            passes = said.matches(" pass\n").count();
            if passes > 0 {
                break;
            }
            std::fs::write(log.path(), "").unwrap();
        }
        assert!(passes > 0, "no game with a pass");
    }

    #[test]
    fn garbage_is_an_illegal_move_with_its_line() {
        let record = play(
            Othello::start(),
            "",
            [gtp(&["--garbage-at", "2"]), gtp(&[])],
            None,
        );
        assert_eq!(
            record.termination,
            Termination::IllegalMove(
                Side::First,
                "= banana split: a move is a square a1..h8 (column a-h, row 1-8 from the top) or 'pass'"
                    .into()
            )
        );
        assert_eq!(record.moves.len(), 2);
        let record = play(
            Othello::start(),
            "",
            [gtp(&[]), gtp(&["--illegal-at", "1"])],
            None,
        );
        match &record.termination {
            Termination::IllegalMove(Side::Second, line) => {
                assert!(line.starts_with("= "), "{line}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_crash_and_a_hang_lose() {
        crash_and_hang_lose(Othello::start(), gtp);
    }

    #[test]
    fn a_refused_boardsize_fails_the_start() {
        let record = play(
            Othello::start(),
            "",
            [gtp(&[]), gtp(&["--bad-handshake"])],
            None,
        );
        match &record.termination {
            Termination::Crash(Side::Second, why) => {
                assert!(why.contains("it refused 'boardsize 8': '? no'"), "{why}")
            }
            other => panic!("{other:?}"),
        }
    }
}

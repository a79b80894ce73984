//! joute's line protocol (`docs/protocols.md`): one request line in, one answer line out.
//!
//! ```text
//! → joute 1 game=connect4 [NAME=VALUE ...]
//! ← ok [name=NAME ...]
//! → move game=connect4 moves=4,4,5 [time=MS inc=MS movetime=MS depth=N nodes=N]
//! ← 3 [score=S depth=N seldepth=N nodes=N]
//! → quit
//! ```
//!
//! The moves are every move from the game's start, in the game's notation, so a program keeps
//! no state between requests. Lines a program writes starting with `#` are comments. The answer
//! to the handshake is the line whose first word is `ok`; to a move, the line whose first word
//! is written as a move (letters and digits with a digit among them — `f5`, `h8`, `4` — or
//! `pass`, legal or not) and whose other words are `KEY=VALUE`. `error MESSAGE` answers either
//! as a refusal. Any other line is passed over (the rule of every protocol, [`super`]).
//!
//! What the answer says of the search goes to the log: `score`, `depth`, `seldepth` (the
//! deepest line followed, where it differs from the depth) and `nodes`, each as written; a
//! value that is no number is left out (0: not said), other keys are ignored.

use std::fmt::Write;
use std::time::{Duration, Instant};

use super::{Dialect, Heard, History, Setup, answer_by, quote, read_move};
use crate::arena::game::{PlayerError, Thought, Turn};
use crate::arena::process::EngineProcess;
use crate::games::Game;

/// The line protocol's conversation.
#[derive(Default)]
pub(crate) struct Line {
    /// The `name=` of the program's `ok`.
    name: Option<String>,
}

/// Whether an engine's line is a comment (or empty), to be passed over.
fn is_comment(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || line.starts_with('#')
}

/// Whether `line` is a refusal: `error MESSAGE`.
fn is_error(line: &str) -> bool {
    line.split_whitespace()
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case("error"))
}

/// What a line is, in answer to the handshake.
fn hello_heard(line: &str) -> Heard {
    if is_comment(line) {
        Heard::Aside
    } else if line.split_whitespace().next() == Some("ok") || is_error(line) {
        Heard::Answer
    } else {
        Heard::Stray
    }
}

/// Whether `word` is written as a move: letters and digits with a digit among them (`f5`,
/// `h8`, `4`), or `pass`.
fn move_shaped(word: &str) -> bool {
    word.eq_ignore_ascii_case("pass")
        || (word.chars().all(|c| c.is_ascii_alphanumeric())
            && word.chars().any(|c| c.is_ascii_digit()))
}

/// What a line is, in answer to a move request: `MOVE [KEY=VALUE ...]` or `error ...` is the
/// answer; `thinking... 5 moves so far` is not.
fn move_heard(line: &str) -> Heard {
    if is_comment(line) {
        return Heard::Aside;
    }
    let mut words = line.split_whitespace();
    let shaped = words.next().is_some_and(move_shaped) && words.all(|w| w.contains('='));
    if shaped || is_error(line) {
        Heard::Answer
    } else {
        Heard::Stray
    }
}

/// Reads the `KEY=VALUE` words after an answer's move: `score`, `depth`, `seldepth`, `nodes`
/// (a value that is no number counts as not said; other keys are for the program's own use).
fn read_search<'a, M>(words: impl Iterator<Item = &'a str>, thought: &mut Thought<M>) {
    for word in words {
        match word.split_once('=') {
            Some(("score", v)) => thought.score = v.parse().ok(),
            Some(("depth", v)) => thought.depth = v.parse().unwrap_or(0),
            Some(("seldepth", v)) => thought.seldepth = v.parse().unwrap_or(0),
            Some(("nodes", v)) => thought.nodes = v.parse().ok(),
            _ => {}
        }
    }
}

/// Reads the engine's answer within `wait`.
fn answer(
    io: &mut EngineProcess,
    wait: Duration,
    heard: fn(&str) -> Heard,
) -> Result<String, PlayerError> {
    answer_by(io, Instant::now() + wait, wait, heard)
}

impl<G: Game> Dialect<G> for Line {
    fn handshake(&mut self, io: &mut EngineProcess, setup: &Setup) -> Result<(), PlayerError> {
        let mut hello = format!("joute 1 game={}", setup.game);
        for (name, value) in &setup.spec.options {
            let _ = write!(hello, " {name}={value}");
        }
        io.send(&hello)?;
        let reply = answer(io, setup.spec.stall(), hello_heard)?;
        if is_error(&reply) {
            return Err(PlayerError::Failed(format!(
                "handshake: it answered '{}' to 'joute 1', not 'ok'",
                quote(&reply)
            )));
        }
        self.name = reply
            .split_whitespace()
            .find_map(|w| w.strip_prefix("name="))
            .filter(|n| !n.is_empty())
            .map(quote);
        Ok(())
    }

    fn new_game(
        &mut self,
        _: &mut EngineProcess,
        _: &Setup,
        _: &History<'_, G>,
    ) -> Result<(), PlayerError> {
        // Every request carries the whole game: nothing to say.
        Ok(())
    }

    fn think(
        &mut self,
        io: &mut EngineProcess,
        setup: &Setup,
        history: &History<'_, G>,
        turn: &Turn<'_, G>,
        wait: Duration,
    ) -> Result<Thought<G::Move>, PlayerError> {
        let mut request = format!("move game={} moves=", setup.game);
        for (i, (_, mv)) in history.notated().iter().enumerate() {
            if i > 0 {
                request.push(',');
            }
            request.push_str(mv);
        }
        if let Some(t) = turn.time_left {
            let _ = write!(request, " time={}", t.as_millis());
            let _ = write!(request, " inc={}", turn.increment.as_millis());
        }
        if let Some(n) = turn.moves_to_go {
            let _ = write!(request, " movestogo={n}");
        }
        if let Some(t) = turn.move_time {
            let _ = write!(request, " movetime={}", t.as_millis());
        }
        if let Some(d) = setup.spec.depth {
            let _ = write!(request, " depth={d}");
        }
        if let Some(n) = setup.spec.nodes {
            let _ = write!(request, " nodes={n}");
        }
        io.send(&request)?;
        let line = answer(io, wait, move_heard)?;
        if is_error(&line) {
            return Err(PlayerError::Failed(format!(
                "it answered '{}' to 'move'",
                quote(&line)
            )));
        }
        let mut words = line.split_whitespace();
        let mv = read_move(turn.position, words.next().unwrap_or(""), &line)?;
        let mut thought = super::bare(mv);
        read_search(words, &mut thought);
        Ok(thought)
    }

    fn goodbye(&self) -> &'static str {
        "quit"
    }

    fn reported_name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn answers_are_told_from_debug_prints() {
        for answer in [
            "4",
            "f5 score=3 depth=4",
            "pass",
            "PASS",
            "h12",
            "z9",
            "error no",
        ] {
            assert_eq!(move_heard(answer), Heard::Answer, "{answer}");
        }
        for stray in [
            "thinking... 5 moves so far",
            "5 moves so far",
            "Searching",
            "depth=5",
            "bestmove 3",
            "f5 d6 c3",
        ] {
            assert_eq!(move_heard(stray), Heard::Stray, "{stray}");
        }
        for aside in ["# info", "", "   "] {
            assert_eq!(move_heard(aside), Heard::Aside, "{aside:?}");
        }
        assert_eq!(hello_heard("ok name=mine"), Heard::Answer);
        assert_eq!(hello_heard("error unknown game"), Heard::Answer);
        assert_eq!(
            hello_heard("Connect 4 engine v1, by a student"),
            Heard::Stray
        );
        assert_eq!(hello_heard("okay"), Heard::Stray);
    }

    #[test]
    fn the_answer_says_its_score_depth_seldepth_and_nodes() {
        let read = |line: &str| {
            let mut thought = crate::arena::outside::bare(());
            read_search(line.split_whitespace().skip(1), &mut thought);
            // 0: no count said.
            (
                thought.score,
                thought.depth,
                thought.seldepth,
                thought.nodes.unwrap_or(0),
            )
        };
        assert_eq!(
            read("f5 score=-3 depth=8 seldepth=14 nodes=123456"),
            (Some(-3), 8, 14, 123456)
        );
        // In any order, unknown keys ignored, each key as written.
        assert_eq!(read("4 nodes=9 pv=4,4,5 seldepth=2"), (None, 0, 2, 9));
        // What is no number is not said; nothing panics on garbage.
        assert_eq!(
            read("4 depth=-1 seldepth=99999999999 nodes=1e6 score=x"),
            (None, 0, 0, 0)
        );
        assert_eq!(read("4 seldepth= depth==3 ="), (None, 0, 0, 0));
    }

    proptest::proptest! {
        /// Whatever follows the move, reading it does not fail, and keys other than the four
        /// change nothing.
        #[test]
        fn no_answer_fails_the_reading(words in "[ -~]{0,200}") {
            let mut thought = crate::arena::outside::bare(());
            read_search(words.split_whitespace(), &mut thought);
            let known = ["score=", "depth=", "seldepth=", "nodes="];
            if !words.split_whitespace().any(|w| known.iter().any(|k| w.starts_with(k))) {
                proptest::prop_assert_eq!(thought, crate::arena::outside::bare(()));
            }
        }
    }
}

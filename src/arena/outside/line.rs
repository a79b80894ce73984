//! joute's line protocol (`docs/protocols.md`): one request line in, one answer line out.
//!
//! ```text
//! → joute 1 game=connect4 [NAME=VALUE ...]
//! ← ok [name=NAME ...]
//! → move game=connect4 moves=4,4,5 [time=MS inc=MS movetime=MS depth=N nodes=N]
//! ← 3 [score=S depth=N nodes=N]
//! → quit
//! ```
//!
//! The moves are every move from the game's start, in the game's notation, so a program keeps
//! no state between requests. Lines a program writes starting with `#` are comments.

use std::fmt::Write;
use std::time::Duration;

use super::{Dialect, History, MAX_CHATTER, Setup, read_move};
use crate::arena::game::{PlayerError, Thought, Turn};
use crate::arena::process::EngineProcess;
use crate::games::Game;

/// The line protocol's conversation.
#[derive(Default)]
pub(crate) struct Line;

/// Whether an engine's line is a comment (or empty), to be passed over.
fn is_comment(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || line.starts_with('#')
}

/// Reads the engine's next line that is no comment.
fn answer(io: &mut EngineProcess, wait: Duration) -> Result<String, PlayerError> {
    io.read_until(wait, MAX_CHATTER, |l| !is_comment(l))
}

impl<G: Game> Dialect<G> for Line {
    fn handshake(&mut self, io: &mut EngineProcess, setup: &Setup) -> Result<(), PlayerError> {
        let mut hello = format!("joute 1 game={}", setup.game);
        for (name, value) in &setup.spec.options {
            let _ = write!(hello, " {name}={value}");
        }
        io.send(&hello)?;
        let reply = answer(io, setup.spec.stall())?;
        if reply.split_whitespace().next() != Some("ok") {
            return Err(PlayerError::Failed(format!(
                "handshake: it answered '{}' to 'joute 1', not 'ok'",
                super::quote(&reply)
            )));
        }
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
        let line = answer(io, wait)?;
        let mut words = line.split_whitespace();
        let mv = read_move(turn.position, words.next().unwrap_or(""), &line)?;
        let mut thought = super::bare(mv);
        for word in words {
            match word.split_once('=') {
                Some(("score", v)) => thought.score = v.parse().ok(),
                Some(("depth", v)) => thought.depth = v.parse().unwrap_or(0),
                Some(("nodes", v)) => thought.nodes = v.parse().unwrap_or(0),
                _ => {}
            }
        }
        Ok(thought)
    }

    fn goodbye(&self) -> &'static str {
        "quit"
    }
}

//! The NBoard protocol, as Edax (`edax -nboard`, version 1) and NTest (version 2) speak it.
//!
//! ```text
//! → nboard 2                     (the spec's protocol_version; 2 unless it says otherwise)
//! → set depth 6                  (when the spec gives a depth)
//! → set NAME VALUE               (each of the user's options)
//! → ping 1
//! ← set myname Edax6             (lines before the pong are passed over)
//! ← pong 1
//! → set depth 6                  (again at every new game: NTest starts it afresh)
//! → set game (;GM[Othello]PC[joute]...BO[8 ---...--- *]B[F5]W[D6];)
//! → ping 2
//! ← pong 2
//! → move C3                      (each move the program has not been told; a pass is PA)
//! → go
//! ← status Edax is thinking      (passed over; other lines too, counted)
//! ← nodestats 1133319 0.00       (Edax: the nodes searched so far; passed over)
//! ← search D3  -1.30 0   6       (NTest: a move, its value, the depth; passed over)
//! ← === D3/-1.00/0.2             (NBoard's form; Edax writes `=== d3 -1.00 0.2`)
//! → quit
//! ```
//!
//! The program does not play the move it answers to `go` (the GUI may not play it): it is told
//! the move with the others, `move D3`, before its next `go`. The evaluation after the move is
//! in discs from the mover's point of view; its rounding is the thought's score.
//!
//! What the program says of its search before its answer goes to the log: the nodes of its
//! last `nodestats NODES SECONDS` line (Edax sends one as its search reports progress; the
//! last is a lower bound of the search's count), and the depth of its last `search PV EVAL 0
//! HEIGHT` line (NTest: HEIGHT is the depth reached, `  6`, or for a search to the end of the
//! game at some probability `100%W`, ` 60% `, whose depth is then the position's empties;
//! NBoard's own example `22@60%` is depth 22). Neither says a selective depth.
//!
//! NBoard has no clock command: a game on a clock relies on the referee's deadline alone (the
//! program keeps its own limits: a depth, its options or its arguments). NTest answers `go`
//! only once it has been given a depth (`set depth`, the spec's `depth`).

use std::any::Any;
use std::time::{Duration, Instant};

use super::{Dialect, Heard, History, Said, Setup, answer_by, quote, read_move, untold};
use crate::arena::game::{PlayerError, Thought, Turn};
use crate::arena::process::EngineProcess;
use crate::games::{Game, Othello, Side};

/// The NBoard conversation: what the program has been told of the game.
#[derive(Default)]
pub(crate) struct Nboard {
    /// The moves of the game the program holds, in the game's notation.
    told: Vec<String>,
    /// The last `ping` number sent.
    pings: u32,
    /// The name of its last `set myname`.
    name: Option<String>,
}

/// What NBoard lets a program write besides its answers: status and search reports, its name,
/// an older `pong`, empty lines.
const ASIDES: [&str; 8] = [
    "status",
    "nodestats",
    "set",
    "search",
    "learned",
    "hint",
    "book",
    "pong",
];

impl Nboard {
    /// What `line` is, `answer` saying whether it is the one awaited; a `set myname` is kept.
    fn heard(&mut self, line: &str, answer: bool) -> Heard {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if first == "set" && words.next() == Some("myname") {
            let name = line.trim().splitn(3, ' ').nth(2).unwrap_or("").trim();
            self.name = (!name.is_empty()).then(|| quote(name));
        }
        if answer {
            Heard::Answer
        } else if first.is_empty() || ASIDES.contains(&first) {
            Heard::Aside
        } else {
            Heard::Stray
        }
    }
}

/// A move in NBoard's notation: capitals, a pass `PA`.
fn nboard_move(notation: &str) -> String {
    if notation.eq_ignore_ascii_case("pass") {
        "PA".to_string()
    } else {
        notation.to_ascii_uppercase()
    }
}

/// A move the program wrote, in the game's notation (`PA`, `ps` and `pass` are the pass).
fn from_nboard(word: &str) -> String {
    if ["pa", "ps", "pass"]
        .iter()
        .any(|p| word.eq_ignore_ascii_case(p))
    {
        "pass".to_string()
    } else {
        word.to_ascii_lowercase()
    }
}

/// The game so far in GGF, as `set game` takes it: the position the game began at (the 64
/// squares from a1 row by row, `-` empty, `*` black, `O` white, then the side to move) and every
/// move since.
fn ggf<G: Game>(history: &History<'_, G>) -> Result<String, PlayerError> {
    let initial = (history.initial as &dyn Any)
        .downcast_ref::<Othello>()
        .ok_or_else(|| PlayerError::Failed("the nboard protocol plays othello only".into()))?;
    // `X`, `O`, `-` for the 64 squares, a space, the side to move.
    let board: String = initial
        .to_board_string()
        .chars()
        .map(|c| match c {
            'X' => '*',
            c => c,
        })
        .collect();
    let mut text =
        format!("(;GM[Othello]PC[joute]PB[black]PW[white]RE[?]TI[0:00//0:00]TY[8]BO[8 {board}]");
    for (pos, mv) in history.notated() {
        let who = if pos.side_to_move() == Side::First {
            'B'
        } else {
            'W'
        };
        text.push_str(&format!("{who}[{}]", nboard_move(&mv)));
    }
    text.push_str(";)");
    Ok(text)
}

impl Nboard {
    /// `ping N`, then waits for `pong N` within `wait`, passing over other lines: the program
    /// has then read everything before the ping.
    fn sync(&mut self, io: &mut EngineProcess, wait: Duration) -> Result<(), PlayerError> {
        self.pings += 1;
        let pong = format!("pong {}", self.pings);
        io.send(&format!("ping {}", self.pings))?;
        answer_by(io, Instant::now() + wait, wait, |l| {
            self.heard(l, l.trim() == pong)
        })?;
        Ok(())
    }

    /// Sets the program's game to `history`.
    fn set_game<G: Game>(
        &mut self,
        io: &mut EngineProcess,
        history: &History<'_, G>,
    ) -> Result<(), PlayerError> {
        io.send(&format!("set game {}", ggf(history)?))?;
        self.told = history.names();
        Ok(())
    }
}

/// The empty squares of `pos`, an Othello position: the depth of a search to the game's end.
fn empties<G: Game>(pos: &G) -> Option<u32> {
    let pos = (pos as &dyn Any).downcast_ref::<Othello>()?;
    Some(64 - (pos.black() | pos.white()).count_ones())
}

/// Reads what `line`, written before the answer to `go`, says of the search into `said`:
/// `nodestats NODES SECONDS` gives the nodes, `search PV EVAL 0 HEIGHT` the depth ([`height`]).
/// Anything else, or a figure that is no number, says nothing.
fn read_report(line: &str, empties: Option<u32>, said: &mut Said) {
    let mut words = line.split_whitespace();
    match words.next() {
        Some("nodestats") => {
            if let Some(nodes) = words.next().and_then(|n| n.parse::<u64>().ok()) {
                said.nodes = Some(nodes);
            }
        }
        Some("search") => {
            if let Some(depth) = words.nth(3).and_then(|h| height(h, empties)) {
                said.depth = depth;
            }
        }
        _ => {}
    }
}

/// The depth of a `search` line's HEIGHT: `6`; `22@60%` (a depth at a probability); `100%W`,
/// `60%` (NTest: a search to the end at that probability, `W` for win-loss-draw only: the
/// position's `empties`).
fn height(text: &str, empties: Option<u32>) -> Option<u32> {
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, rest) = text.split_at(digits);
    let number: u32 = number.parse().ok()?;
    match rest.chars().next() {
        None | Some('@') => Some(number),
        Some('%') => empties,
        Some(_) => None,
    }
}

/// Reads the answer to `go`: the first word after `===` (its parts split on `/` or spaces: the
/// move, then the evaluation).
fn read_go<G: Game>(pos: &G, line: &str) -> Result<Thought<G::Move>, PlayerError> {
    let rest = line.trim_start().trim_start_matches("===");
    let mut parts = rest
        .split(|c: char| c == '/' || c.is_whitespace())
        .filter(|p| !p.is_empty());
    let word = parts.next().unwrap_or("");
    let mv = read_move(pos, &from_nboard(word), line)?;
    let mut thought = super::bare(mv);
    thought.score = parts
        .next()
        .and_then(|e| e.parse::<f64>().ok())
        .filter(|e| e.is_finite() && e.abs() < 1e6)
        .map(|e| e.round() as i32);
    Ok(thought)
}

impl<G: Game> Dialect<G> for Nboard {
    fn handshake(&mut self, io: &mut EngineProcess, setup: &Setup) -> Result<(), PlayerError> {
        let version = setup.spec.protocol_version.unwrap_or(2);
        io.send(&format!("nboard {version}"))?;
        if let Some(depth) = setup.spec.depth {
            io.send(&format!("set depth {depth}"))?;
        }
        for (name, value) in &setup.spec.options {
            io.send(&format!("set {name} {value}"))?;
        }
        self.sync(io, setup.spec.stall())
    }

    fn new_game(
        &mut self,
        io: &mut EngineProcess,
        setup: &Setup,
        history: &History<'_, G>,
    ) -> Result<(), PlayerError> {
        // The depth again at every game: NTest then makes a fresh computer (new search tables),
        // so a game does not depend on the games the program played before — which differ
        // with the thread a game lands on — and a fixed-depth match replays.
        if let Some(depth) = setup.spec.depth {
            io.send(&format!("set depth {depth}"))?;
        }
        self.set_game(io, history)?;
        self.sync(io, setup.spec.stall())
    }

    fn think(
        &mut self,
        io: &mut EngineProcess,
        _: &Setup,
        history: &History<'_, G>,
        turn: &Turn<'_, G>,
        wait: Duration,
    ) -> Result<Thought<G::Move>, PlayerError> {
        let deadline = Instant::now() + wait;
        let moves = history.names();
        match untold(&self.told, &moves) {
            Some(new) => {
                for mv in new {
                    io.send(&format!("move {}", nboard_move(mv)))?;
                }
                self.told = moves;
            }
            None => self.set_game(io, history)?,
        }
        io.send("go")?;
        let empties = empties(turn.position);
        let mut said = Said::default();
        let line = answer_by(io, deadline, wait, |l| {
            let answer = l.trim_start().starts_with("===");
            if !answer {
                read_report(l, empties, &mut said);
            }
            self.heard(l, answer)
        })?;
        // The program has not played its move: it is told with the next ones.
        Ok(said.told(read_go(turn.position, &line)?))
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
    fn the_search_is_read_from_nodestats_and_search_lines_as_edax_and_ntest_write_them() {
        let read = |lines: &[&str], empties| {
            let mut said = Said::default();
            for line in lines {
                read_report(line, empties, &mut said);
            }
            said
        };
        // 0: no count said.
        let said = |depth, nodes: u64| Said {
            depth,
            seldepth: 0,
            nodes: (nodes > 0).then_some(nodes),
        };
        // Edax 4.6 (-nboard): its search's nodes so far (the seconds are garbage: a %.2f of an
        // integer).
        assert_eq!(
            read(&["nodestats 1133319 0.00"], Some(40)),
            said(0, 1133319)
        );
        // NTest: the last `search` line's height, here 6 (its answers `  6 (60 empty)...` are
        // no report).
        let ntest = [
            "status Thinking",
            "search D3       -0.81 0   1",
            "search D3       -1.39 0   2",
            "search D3       -1.30 0   6",
            "  6 (60 empty)\tD3/-1.30\t\t0.000517s elapsed",
            "status",
        ];
        assert_eq!(read(&ntest, Some(60)), said(6, 0));
        // NTest near the end: a search to the game's end, at 50% to 100% certainty.
        let solving = [
            "search F8       -2.00 0   8",
            "search F8       -2.00 0  50%W",
            "search F8       -4.00 0  50% ",
            "search G8       +2.00 0 100%W",
        ];
        assert_eq!(read(&solving, Some(17)), said(17, 0));
        assert_eq!(read(&solving, None), said(8, 0));
        // NBoard's own example, and a pass before the move.
        assert_eq!(
            read(
                &["search F5-D6 +1.00 0 22@60%", "search PA-F5 -0.50 0 9"],
                Some(40)
            )
            .depth,
            9
        );
        assert_eq!(read(&["search F5 +1.00 0 22@60%"], Some(40)).depth, 22);
        // Garbage says nothing, and overwrites nothing.
        let garbage = [
            "nodestats 1000 0.1",
            "search",
            "search D3",
            "search D3 -1 0",
            "search D3 -1 0 deep",
            "search D3 -1 0 4294967296",
            "search D3 -1 0 -3",
            "nodestats",
            "nodestats -5 0.1",
            "nodestats 99999999999999999999999 0.1",
            "nodestats 1e9",
            "nodestatsx 5",
        ];
        assert_eq!(read(&garbage, Some(40)), said(0, 1000));
    }

    proptest::proptest! {
        /// Whatever a program writes, and however a real report is cut or garbled, reading it
        /// does not fail; a line that is no `nodestats` or `search` says nothing.
        #[test]
        fn no_line_fails_the_reading(line in ".{0,200}", cut in 0usize..30, junk in "[ -~]{0,16}") {
            let mut said = Said::default();
            read_report(&line, Some(20), &mut said);
            let first = line.split_whitespace().next().unwrap_or("");
            if first != "nodestats" && first != "search" {
                proptest::prop_assert_eq!(said, Said::default());
            }
            for real in ["search G8       +2.00 0 100%W", "nodestats 1133319 0.00"] {
                let at = cut.min(real.len());
                read_report(&format!("{}{junk}{}", &real[..at], &real[at..]), None, &mut said);
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::time::Duration;

    use super::super::check::testing::{crash_and_hang_lose, fake, log_file, play};
    use super::super::{History, Protocol};
    use super::*;
    use crate::arena::game::{Termination, TimeControl};

    fn nboard(flags: &[&str]) -> super::super::OutsideSpec {
        fake(Protocol::Nboard, "othello", flags)
    }

    #[test]
    fn the_game_is_written_in_ggf() {
        let start = Othello::start();
        let moves = start.parse_sequence("f5 d6").unwrap();
        let history = History {
            initial: &start,
            moves: &moves,
        };
        assert_eq!(
            ggf(&history).unwrap(),
            "(;GM[Othello]PC[joute]PB[black]PW[white]RE[?]TI[0:00//0:00]TY[8]\
             BO[8 ---------------------------O*------*O--------------------------- *]\
             B[F5]W[D6];)"
        );
        assert_eq!(nboard_move("pass"), "PA");
        assert_eq!(from_nboard("PA"), "pass");
        let pos = start.play_sequence("f5").unwrap();
        let t = read_go(&pos, "=== D6/-1.60/0.2").unwrap();
        assert_eq!((pos.format_move(t.mv), t.score), ("d6".into(), Some(-2)));
        let t = read_go(&pos, "=== f6 0.00 0.0").unwrap();
        assert_eq!((pos.format_move(t.mv), t.score), ("f6".into(), Some(0)));
        let t = read_go(&pos, "=== f4").unwrap();
        assert_eq!(t.score, None);
        match read_go(&pos, "=== a1/0").unwrap_err() {
            PlayerError::BadAnswer { line, why } => {
                assert_eq!(line, "=== a1/0");
                assert_eq!(why, "a1 flips nothing; legal moves: f4 d6 f6");
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn two_programs_play_a_whole_game() {
        let log = log_file();
        let path = log.path().to_str().unwrap();
        let mut first = nboard(&["--seed", "5", "--log", path, "--chatter", "3"]);
        first.depth = Some(4);
        first.protocol_version = Some(1);
        first.options.insert("contempt".into(), "0".into());
        let record = play(
            Othello::start(),
            "f5",
            [first, nboard(&["--seed", "6"])],
            Some(TimeControl::Game {
                base: Duration::from_secs(30),
                increment: Duration::ZERO,
                moves: None,
            }),
        );
        assert_eq!(record.termination, Termination::Normal);
        assert!(record.last.outcome().is_some());
        assert!(record.moves.iter().all(|m| m.score.is_some()));
        let said = std::fs::read_to_string(log.path()).unwrap();
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(
            lines[..4],
            ["nboard 1", "set depth 4", "set contempt 0", "ping 1"]
        );
        // The depth again at the new game (a fresh search in NTest), then the game.
        assert_eq!(lines[4], "set depth 4");
        assert!(
            lines[5].starts_with("set game (;GM[Othello]"),
            "{}",
            lines[5]
        );
        assert!(lines[5].ends_with("B[F5];)"), "{}", lines[5]);
        assert_eq!(lines[6], "ping 2");
        // White moved after the opening: black is told its move, then asked.
        assert!(lines[7].starts_with("move "), "{}", lines[7]);
        assert_eq!(lines[8], "go");
        // Its own move is told back to it with the opponent's.
        assert!(lines[9].starts_with("move ") && lines[10].starts_with("move "));
        assert_eq!(lines.last(), Some(&"quit"));
    }

    #[test]
    fn garbage_a_crash_and_a_hang_lose() {
        let record = play(
            Othello::start(),
            "",
            [nboard(&["--garbage-at", "1"]), nboard(&[])],
            None,
        );
        assert_eq!(
            record.termination,
            Termination::IllegalMove(
                Side::First,
                "=== banana: a move is a square a1..h8 (column a-h, row 1-8 from the top) or 'pass'"
                    .into()
            )
        );
        crash_and_hang_lose(Othello::start(), nboard);
    }

    #[test]
    fn no_pong_is_a_stall_at_the_start() {
        let mut spec = nboard(&["--bad-handshake"]);
        spec.stall_ms = 300;
        let record = play(Othello::start(), "", [spec, nboard(&[])], None);
        assert_eq!(record.termination.name(), "stall");
        assert_eq!(record.termination.failed(), Some(Side::First));
    }
}

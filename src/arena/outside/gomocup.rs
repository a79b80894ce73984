//! The Gomocup (piskvork) protocol, for five in a row on a square board (`morpion-NxN-5`, with
//! `-exact` or `-renju`, and `renju`).
//!
//! ```text
//! → START 15
//! ← OK
//! → ABOUT                        (once, at the handshake: the name it gives itself)
//! ← name="pbrain-x", version="1.0", author="..."
//! → INFO timeout_turn 1000       (from the clock, or the default; no answer)
//! → INFO timeout_match 0
//! → INFO max_node 10000          (a budget, when the spec gives one)
//! → INFO max_memory 0
//! → INFO game_type 1
//! → INFO rule 0
//! → INFO NAME VALUE              (each of the user's options)
//! → BEGIN                        (the program opens the game on an empty board)
//! ← 7,7
//! → TURN 8,7                     (the opponent's move; the program answers its own)
//! ← 8,8
//! → BOARD                        (a game it does not hold: every stone in the order played,
//! → 7,7,1                         1 its own, 2 its opponent's)
//! → 8,7,2
//! → DONE
//! ← 9,9
//! → END
//! ```
//!
//! A move is `X,Y`: X the column from 0, Y the row from 0 at the top, so joute's cell `a1` is
//! `0,0` and `c2` is `2,1`: an answer to a move request is a line of two words around a comma.
//! Lines starting with `MESSAGE`, `DEBUG` or `UNKNOWN` (a program's answer to an `INFO` it does
//! not know) are passed over, and so is any other line that is no answer (the rule of every
//! protocol, [`super`]); `ERROR ...` in answer to a move request fails the program.
//!
//! The limits: a time per move is `timeout_turn` = that time and `timeout_match` = 0 (no limit
//! for the match); a game clock is `timeout_match` = `timeout_turn` = its base time, with the
//! real time left (`INFO time_left MS`) before every move. A depth or node budget goes as
//! `INFO max_depth N` / `INFO max_node N` (the Yixin-Board extension, which Rapfi and most
//! engines of the Gomocup era read), with the stall limit as `timeout_turn`. With no clock and
//! no budget the program gets [`DEFAULT_TURN`] a move: `timeout_match 0` alone means "no
//! limit", and some programs then never answer. `INFO rule` is the game's rule as the protocol
//! numbers it (a bit set): 0 freestyle (five or more in a row win: `morpion-NxN-5`), 1 exactly
//! five (`morpion-NxN-5-exact`), 4 renju (`renju`, `morpion-NxN-5-renju`). Under renju the
//! referee judges black's forbidden points: a program that plays one loses by an illegal move.
//!
//! What a program says of its search goes to the log, from the last `MESSAGE` (or `DEBUG`) line
//! before its move that says it, in the forms real engines write: Rapfi's report at the end
//! of a search, `MESSAGE Speed 235K | Depth 12-23 | Eval 91 | Node 20K | Time 85ms` (and its
//! `depth 12-23 ... n 20K` of UCI-like messages, depth only), PentaZen's `MESSAGE Dep  8-10
//! Ev +44    Nd   1m    Tm 950    Sp 1456`: `D-S` is the depth and the selective depth, the
//! count the nodes. Both abbreviate large counts by integer division (Rapfi `K`, `M`, `G`,
//! `T`; PentaZen `k`, `m`, `g`), so `20K` is recorded as 20,000, the least it can mean. A
//! report made while pondering (Rapfi's `[Pondering] ...`) is not the move's; a message that
//! says none of this, or says it garbled, records nothing.
//!
//! Every game starts with `START N` rather than `RESTART`: START is one of the mandatory
//! commands, so every program answers it, and it clears the board as RESTART does (RESTART is
//! optional: a program may answer `UNKNOWN`, and the manager must then start it again).

use std::time::{Duration, Instant};

use super::{Dialect, Heard, History, Said, Setup, answer_by, quote, read_move, untold};
use crate::arena::game::{PlayerError, Thought, TimeControl, Turn};
use crate::arena::process::EngineProcess;
use crate::games::{Game, GameKind};

/// The Gomocup conversation: what the program has been told of the game.
#[derive(Default)]
pub(crate) struct Gomocup {
    /// The stones on the program's board since its last `START`, its own included, in the
    /// game's notation, in the order played.
    told: Vec<String>,
    /// The handshake's `START` has cleared the board and no game has used it yet.
    fresh: bool,
    /// The `name="..."` of its answer to `ABOUT`.
    name: Option<String>,
}

/// Whether a line the program wrote is no answer: a message, a debug line, an `UNKNOWN` (to an
/// `INFO` it does not know), an empty line.
fn is_aside(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    first.is_empty()
        || ["MESSAGE", "DEBUG", "UNKNOWN"]
            .iter()
            .any(|w| first.eq_ignore_ascii_case(w))
}

/// Whether `line` starts with `word` (any case).
fn starts_with_word(line: &str, word: &str) -> bool {
    line.split_whitespace()
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case(word))
}

/// Whether a line is written as a move: two words around one comma (`7,7`, ` 14 , 14 `), a
/// cell or not.
fn move_shaped(line: &str) -> bool {
    line.split_once(',').is_some_and(|(x, y)| {
        [x, y].iter().all(|w| {
            let w = w.trim();
            !w.is_empty() && !w.contains(char::is_whitespace) && !w.contains(',')
        })
    })
}

/// What a line is: an answer when `answer` says so, an aside when the protocol allows it, any
/// other line a stray.
fn heard(line: &str, answer: fn(&str) -> bool) -> Heard {
    if is_aside(line) {
        Heard::Aside
    } else if answer(line) {
        Heard::Answer
    } else {
        Heard::Stray
    }
}

/// The answer to `START`: `OK` or `ERROR ...`.
fn start_answer(line: &str) -> bool {
    starts_with_word(line, "OK") || starts_with_word(line, "ERROR")
}

/// The answer to a move request: a move or `ERROR ...`.
fn move_answer(line: &str) -> bool {
    move_shaped(line) || starts_with_word(line, "ERROR")
}

/// Reads what a `MESSAGE` or `DEBUG` line says of the search into `said` (the module's
/// documentation: `Depth D-S` or `Dep D-S`, `Node N` or `Nd N`; words apart by spaces or `|`).
/// Any other line, and a figure that is no number, says nothing.
fn read_message(line: &str, said: &mut Said) {
    let mut words = line
        .split(|c: char| c.is_whitespace() || c == '|')
        .filter(|w| !w.is_empty())
        .peekable();
    match words.next() {
        Some(w) if w.eq_ignore_ascii_case("MESSAGE") || w.eq_ignore_ascii_case("DEBUG") => {}
        _ => return,
    }
    // Rapfi's reports while it ponders on the opponent's time are no move's.
    if words.peek().is_some_and(|w| w.starts_with('[')) {
        return;
    }
    let is = |word: &str, names: &[&str]| names.iter().any(|n| word.eq_ignore_ascii_case(n));
    while let Some(word) = words.next() {
        if is(word, &["depth", "dep"]) {
            let Some(text) = words.next() else { break };
            // `12-23`; PentaZen pads to two places: `Dep  8- 9` is the words `8-` and `9`.
            let (depth, seldepth) = match text.split_once('-') {
                Some((depth, "")) => {
                    let seldepth = words.next_if(|w| w.parse::<u32>().is_ok());
                    (depth, seldepth)
                }
                Some((depth, seldepth)) => (depth, Some(seldepth)),
                None => (text, None),
            };
            if let Ok(depth) = depth.parse() {
                said.depth = depth;
                said.seldepth = seldepth.and_then(|s| s.parse().ok()).unwrap_or(0);
            }
        } else if is(word, &["node", "nodes", "nd"])
            && let Some(nodes) = words.next().and_then(count)
        {
            said.nodes = Some(nodes);
        }
    }
}

/// A count as engines write it: `23`, or abbreviated by integer division, `23K` (thousands;
/// `M` millions, `G`, `T`, either case): the least it can mean, `23000`.
fn count(text: &str) -> Option<u64> {
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits);
    let number: u64 = number.parse().ok()?;
    let unit: u64 = match suffix {
        "" => 1,
        "k" | "K" => 1_000,
        "m" | "M" => 1_000_000,
        "g" | "G" => 1_000_000_000,
        "t" | "T" => 1_000_000_000_000,
        _ => return None,
    };
    number.checked_mul(unit)
}

/// Reads the program's next answer by `deadline`; `wait` names the limit in a timeout.
fn answer(
    io: &mut EngineProcess,
    deadline: Instant,
    wait: Duration,
    is_answer: fn(&str) -> bool,
) -> Result<String, PlayerError> {
    answer_by(io, deadline, wait, |l| heard(l, is_answer))
}

/// How long an answer to `ABOUT` may leave its line open before what it wrote is taken as the
/// answer.
const ABOUT_LINE_END: Duration = Duration::from_secs(1);

/// The `name` of an answer to `ABOUT` (`name="pbrain-x", version="1.0"`).
fn about_name(line: &str) -> Option<String> {
    let rest = &line[line.find("name=")? + 5..];
    let rest = rest.trim_start().trim_start_matches('"');
    let name = rest.split(['"', ',']).next()?.trim();
    (!name.is_empty()).then(|| quote(name))
}

/// The board's side, for a square five-in-a-row game.
fn board_size(game: &GameKind) -> Result<u8, PlayerError> {
    match *game {
        GameKind::Morpion {
            rows, cols, k: 5, ..
        } if rows == cols => Ok(rows),
        _ => Err(PlayerError::Failed(format!(
            "the gomocup protocol plays five in a row on a square board, not {game}"
        ))),
    }
}

/// The protocol's `INFO rule` for the game: 0 freestyle (five or more win), 1 exactly five,
/// 4 renju (its bit set also has 2, a continuous game, and 8, caro, which joute does not play).
fn rule(game: &GameKind) -> u32 {
    match *game {
        GameKind::Morpion { rule, .. } => rule.gomocup(),
        _ => 0,
    }
}

/// A cell name (`c2`) as Gomocup's `X,Y` (`2,1`).
fn to_xy(name: &str) -> Option<(u32, u32)> {
    let mut chars = name.chars();
    let letter = chars.next()?.to_ascii_lowercase();
    let x = (letter as u32)
        .checked_sub('a' as u32)
        .filter(|&x| x < 26)?;
    let y = chars.as_str().parse::<u32>().ok()?.checked_sub(1)?;
    Some((x, y))
}

/// Gomocup's `X,Y` as a cell name, when the column has a letter.
fn from_xy(x: u32, y: u32) -> Option<String> {
    let letter = char::from_u32('a' as u32 + x).filter(|_| x < 26)?;
    Some(format!("{letter}{}", y.checked_add(1)?))
}

/// Reads `X,Y` (spaces allowed around the numbers) as a cell name.
fn read_xy(line: &str) -> Option<String> {
    let (x, y) = line.trim().split_once(',')?;
    from_xy(x.trim().parse().ok()?, y.trim().parse().ok()?)
}

/// `X,Y` of a move in the game's notation.
fn xy(name: &str) -> Result<String, PlayerError> {
    let (x, y) =
        to_xy(name).ok_or_else(|| PlayerError::Failed(format!("the move '{name}' is no cell")))?;
    Ok(format!("{x},{y}"))
}

/// The time per move a program is given when neither a clock nor a budget limits it: the
/// protocol's `timeout_match 0` alone means "no limit", and programs that read it so (Rapfi,
/// PentaZen) then think until they are killed. Five seconds, as Gomocup's fast games; never more
/// than the program's stall limit, so that it answers before joute gives up on it.
pub const DEFAULT_TURN: Duration = Duration::from_secs(5);

/// The `INFO` lines for `setup`: the limits, the rules, then the user's options.
///
/// Every program gets a finite limit. On a clock, the clock's (`timeout_turn`, `timeout_match`,
/// and `time_left` before each move). With a budget (`depth`, `nodes`), the Yixin-Board
/// extension most engines read (`INFO max_depth N`, `INFO max_node N`) and the stall limit as
/// `timeout_turn`, a backstop the budget should never reach. With neither, [`DEFAULT_TURN`].
fn infos(setup: &Setup) -> Vec<String> {
    let mut lines = Vec::new();
    let budget = setup.spec.depth.is_some() || setup.spec.nodes.is_some();
    match setup.clock {
        Some(TimeControl::Move { time }) => {
            lines.push(format!("INFO timeout_turn {}", time.as_millis()));
            lines.push("INFO timeout_match 0".to_string());
        }
        Some(TimeControl::Game { base, .. }) => {
            lines.push(format!("INFO timeout_turn {}", base.as_millis()));
            lines.push(format!("INFO timeout_match {}", base.as_millis()));
        }
        None => {
            let stall = setup.spec.stall();
            let turn = if budget {
                stall
            } else {
                DEFAULT_TURN.min(stall)
            };
            lines.push(format!("INFO timeout_turn {}", turn.as_millis()));
            lines.push("INFO timeout_match 0".to_string());
        }
    }
    if let Some(depth) = setup.spec.depth {
        lines.push(format!("INFO max_depth {depth}"));
    }
    if let Some(nodes) = setup.spec.nodes {
        lines.push(format!("INFO max_node {nodes}"));
    }
    lines.push("INFO max_memory 0".to_string());
    lines.push("INFO game_type 1".to_string());
    lines.push(format!("INFO rule {}", rule(&setup.game)));
    for (name, value) in &setup.spec.options {
        lines.push(format!("INFO {name} {value}"));
    }
    lines
}

impl Gomocup {
    /// `START N` (answered `OK`), then the `INFO` lines: an empty board and the limits.
    fn start(
        &mut self,
        io: &mut EngineProcess,
        setup: &Setup,
        deadline: Instant,
        wait: Duration,
    ) -> Result<(), PlayerError> {
        let start = format!("START {}", board_size(&setup.game)?);
        io.send(&start)?;
        let reply = answer(io, deadline, wait, start_answer)?;
        if !starts_with_word(&reply, "OK") {
            return Err(PlayerError::Failed(format!(
                "it answered '{}' to '{start}', not 'OK'",
                quote(&reply)
            )));
        }
        for line in infos(setup) {
            io.send(&line)?;
        }
        self.told.clear();
        Ok(())
    }
}

impl<G: Game> Dialect<G> for Gomocup {
    fn handshake(&mut self, io: &mut EngineProcess, setup: &Setup) -> Result<(), PlayerError> {
        let wait = setup.spec.stall();
        let deadline = Instant::now() + wait;
        self.start(io, setup, deadline, wait)?;
        // ABOUT is one of the protocol's mandatory commands: any answer but a message will do.
        io.send("ABOUT")?;
        let heard = |l: &str| {
            let message = ["MESSAGE", "DEBUG"].iter().any(|w| starts_with_word(l, w));
            if l.trim().is_empty() || message {
                Heard::Aside
            } else {
                Heard::Answer
            }
        };
        // Some programs (PentaZen) never end the answer's line: what they wrote of it after a
        // short wait is the answer, taken out so that it cannot prefix the next one.
        let ask = |io: &mut EngineProcess, by: Instant| match answer_by(io, by, wait, heard) {
            Err(e @ PlayerError::NoAnswer(..)) => io.take_unended().ok_or(e),
            answer => answer,
        };
        let about = match ask(io, deadline.min(Instant::now() + ABOUT_LINE_END)) {
            Err(PlayerError::NoAnswer(..)) => ask(io, deadline)?,
            about => about?,
        };
        self.name = about_name(&about);
        self.fresh = true;
        Ok(())
    }

    fn new_game(
        &mut self,
        io: &mut EngineProcess,
        setup: &Setup,
        _: &History<'_, G>,
    ) -> Result<(), PlayerError> {
        // The opening's stones go with the first request (BOARD).
        if !std::mem::take(&mut self.fresh) {
            let wait = setup.spec.stall();
            self.start(io, setup, Instant::now() + wait, wait)?;
        }
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
        let deadline = Instant::now() + wait;
        self.fresh = false;
        let me = turn.position.side_to_move();
        let stones = history.notated();
        let names: Vec<String> = stones.iter().map(|(_, mv)| mv.clone()).collect();
        let mut request = Vec::new();
        if let Some([last]) = untold(&self.told, &names) {
            request.push(format!("TURN {}", xy(last)?));
        } else if names.is_empty() && self.told.is_empty() {
            request.push("BEGIN".to_string());
        } else {
            if !self.told.is_empty() {
                // Not the game the program holds: a new board first.
                self.start(io, setup, deadline, wait)?;
            }
            request.push("BOARD".to_string());
            for (pos, name) in &stones {
                let whose = if pos.side_to_move() == me { 1 } else { 2 };
                request.push(format!("{},{whose}", xy(name)?));
            }
            request.push("DONE".to_string());
        }
        if let (Some(TimeControl::Game { .. }), Some(t)) = (setup.clock, turn.time_left) {
            io.send(&format!("INFO time_left {}", t.as_millis()))?;
        }
        for line in &request {
            io.send(line)?;
        }
        let mut said = Said::default();
        let line = answer_by(io, deadline, wait, |l| {
            let heard = heard(l, move_answer);
            if heard == Heard::Aside {
                read_message(l, &mut said);
            }
            heard
        })?;
        if starts_with_word(&line, "ERROR") {
            return Err(PlayerError::Failed(format!(
                "it answered '{}' to {}",
                quote(&line),
                request[0]
            )));
        }
        let name = read_xy(&line).ok_or_else(|| PlayerError::BadAnswer {
            line: line.clone(),
            why: "a move is X,Y (column and row from 0)".into(),
        })?;
        let mv = read_move(turn.position, &name, &line)?;
        self.told = names;
        self.told.push(turn.position.format_move(mv));
        Ok(said.told(super::bare(mv)))
    }

    fn goodbye(&self) -> &'static str {
        "END"
    }

    fn reported_name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn cells_are_columns_then_rows_from_zero() {
        assert_eq!(to_xy("a1"), Some((0, 0)));
        assert_eq!(to_xy("c2"), Some((2, 1)));
        assert_eq!(to_xy("o15"), Some((14, 14)));
        assert_eq!(read_xy("2,1").as_deref(), Some("c2"));
        assert_eq!(read_xy(" 14 , 14 ").as_deref(), Some("o15"));
        assert_eq!(read_xy("2;1"), None);
        assert_eq!(read_xy("-1,0"), None);
        assert_eq!(read_xy("1,2,3"), None);
    }

    #[test]
    fn moves_are_told_from_debug_prints_and_about_gives_the_name() {
        for answer in ["7,7", " 14 , 14 ", "banana,split", "0,4369", "ERROR no"] {
            assert_eq!(heard(answer, move_answer), Heard::Answer, "{answer}");
        }
        for stray in [
            "thinking... 5 moves so far",
            "depth 5, score 30",
            "1,2,3",
            "7",
        ] {
            assert_eq!(heard(stray, move_answer), Heard::Stray, "{stray}");
        }
        for aside in ["MESSAGE hi", "DEBUG x", "UNKNOWN INFO foo", ""] {
            assert_eq!(heard(aside, move_answer), Heard::Aside, "{aside}");
        }
        assert_eq!(
            about_name(r#"name="pbrain-rapfi", version="1.0", author="x""#).as_deref(),
            Some("pbrain-rapfi")
        );
        assert_eq!(
            about_name("name=plain, version=2").as_deref(),
            Some("plain")
        );
        assert_eq!(about_name("UNKNOWN"), None);
    }

    #[test]
    fn the_search_is_read_from_rapfis_and_pentazens_messages() {
        let read = |lines: &[&str]| {
            let mut said = Said::default();
            for line in lines {
                read_message(line, &mut said);
            }
            // 0: no count said.
            (said.depth, said.seldepth, said.nodes.unwrap_or(0))
        };
        // Rapfi (BRIEF, its default), at the end of a search; its best line after it.
        assert_eq!(
            read(&[
                "MESSAGE Speed 235K | Depth 12-23 | Eval 91 | Node 20K | Time 85ms",
                "MESSAGE Bestline I7 G9",
            ]),
            (12, 23, 20_000)
        );
        assert_eq!(
            read(&["MESSAGE Speed 5000 | Depth 3-5 | Eval 12 | Node 9999 | Time 1ms"]),
            (3, 5, 9999)
        );
        assert_eq!(
            read(&["MESSAGE Speed 1M | Depth 20-31 | Eval -3 | Node 12M | Time 10s"]),
            (20, 31, 12_000_000)
        );
        // Rapfi's NORMAL messages: a line per depth, then the end of the search.
        assert_eq!(
            read(&[
                "MESSAGE Depth 9-14 | Eval 40 | Time 20ms | H8 I7 G9",
                "MESSAGE Depth 10-16 | Eval 48 | Time 23ms | H8 I7 G9",
            ]),
            (10, 16, 0)
        );
        // Its UCI-like messages: `n` is no keyword read.
        assert_eq!(
            read(&["MESSAGE depth 10-14 ev 48 n 23K n/ms 235 tm 85 pv h8 i7"]),
            (10, 14, 0)
        );
        // While pondering: not the move's.
        assert_eq!(
            read(&[
                "MESSAGE [Pondering] Speed 235K | Depth 12-23 | Eval 91 | Node 20K | Time 85ms"
            ]),
            (0, 0, 0)
        );
        // PentaZen: two-place depths, three-place counts with k, m or g.
        assert_eq!(
            read(&["MESSAGE Dep  8-10    Ev +44    Nd   1m    Tm 950    Sp 1456"]),
            (8, 10, 1_000_000)
        );
        assert_eq!(
            read(&["MESSAGE Dep  4- 6    Ev -12    Nd 123k    Tm 12    Sp 10"]),
            (4, 6, 123_000)
        );
        assert_eq!(
            read(&["MESSAGE Dep 11-17    Ev +V9    Nd   2g    Tm 9000    Sp 300"]),
            (11, 17, 2_000_000_000)
        );
        assert_eq!(read(&["MESSAGE Dep  1- 1    "]), (1, 1, 0));
        assert_eq!(
            read(&["MESSAGE Dep  7-12    Ev +3    Nd 512     Tm 3    Sp 170"]),
            (7, 12, 512)
        );
        // DEBUG lines too; the last figure said wins, each on its own.
        assert_eq!(
            read(&[
                "DEBUG Depth 5-7 Node 100",
                "MESSAGE Node 300",
                "message depth 6"
            ]),
            (6, 0, 300)
        );
        // Garbage says nothing, and nothing panics.
        let garbage = [
            "MESSAGE fake chatter 1",
            "MESSAGE Depth",
            "MESSAGE Depth of field",
            "MESSAGE Depth -5",
            "MESSAGE Depth 4294967296-1",
            "MESSAGE Node",
            "MESSAGE Node 12X",
            "MESSAGE Node 99999999999T",
            "MESSAGE Nd -3k",
            "MESSAGE Node 1.5M",
            "MESSAGE |||| Depth | | Node |",
            "MESSAGEDepth 5-5",
            "UNKNOWN Depth 5-5 Node 5",
            "7,7 Depth 5-5",
            "",
        ];
        assert_eq!(read(&garbage), (0, 0, 0));
    }

    proptest::proptest! {
        /// Whatever a program writes, and however a real report is cut or garbled, reading it
        /// does not fail; a line that is no MESSAGE or DEBUG says nothing.
        #[test]
        fn no_line_fails_the_reading(line in ".{0,200}", cut in 0usize..90, junk in "[ -~]{0,24}") {
            let mut said = Said::default();
            read_message(&line, &mut said);
            let first = line
                .split(|c: char| c.is_whitespace() || c == '|')
                .find(|w| !w.is_empty())
                .unwrap_or("");
            if !["MESSAGE", "DEBUG"].iter().any(|w| first.eq_ignore_ascii_case(w)) {
                proptest::prop_assert_eq!(said, Said::default());
            }
            for real in [
                "MESSAGE Speed 235K | Depth 12-23 | Eval 91 | Node 20K | Time 85ms",
                "MESSAGE Dep  8-10    Ev +44    Nd   1m    Tm 950    Sp 1456",
            ] {
                let mangled = format!("{}{junk}{}", &real[..cut.min(real.len())], &real[cut.min(real.len())..]);
                read_message(&mangled, &mut said);
            }
        }
    }

    #[test]
    fn the_rule_is_the_protocols_number() {
        for (name, number) in [
            ("morpion-15x15-5", 0),
            ("morpion-15x15-5-exact", 1),
            ("renju", 4),
            ("morpion-9x9-5-renju", 4),
        ] {
            assert_eq!(rule(&GameKind::parse(name).unwrap()), number, "{name}");
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::time::Duration;

    use super::super::Protocol;
    use super::super::check::testing::{crash_and_hang_lose, fake, log_file, play};
    use crate::arena::game::{Termination, TimeControl};
    use crate::games::{Game, Morpion, Rule, Side};

    fn gomocup(flags: &[&str]) -> super::super::OutsideSpec {
        fake(Protocol::Gomocup, "morpion-9x9-5", flags)
    }

    fn board() -> Morpion {
        Morpion::start(9, 9, 5)
    }

    #[test]
    fn two_programs_play_games_with_and_without_an_opening() {
        let log = log_file();
        let path = log.path().to_str().unwrap();
        let clock = TimeControl::Game {
            base: Duration::from_secs(20),
            increment: Duration::from_millis(50),
            moves: None,
        };
        let mut first = gomocup(&["--seed", "7", "--log", path, "--chatter", "2"]);
        first.options.insert("max_memory".into(), "1000000".into());
        let record = play(
            board(),
            "",
            [first.clone(), gomocup(&["--seed", "8"])],
            Some(clock),
        );
        assert_eq!(record.termination, Termination::Normal);
        assert!(record.last.outcome().is_some());
        let said = std::fs::read_to_string(log.path()).unwrap();
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(
            lines[..9],
            [
                "START 9",
                "INFO timeout_turn 20000",
                "INFO timeout_match 20000",
                "INFO max_memory 0",
                "INFO game_type 1",
                "INFO rule 0",
                "INFO max_memory 1000000",
                "ABOUT",
                "INFO time_left 20000",
            ]
        );
        assert_eq!(lines[9], "BEGIN");
        assert!(lines[10].starts_with("INFO time_left "), "{}", lines[10]);
        assert!(lines[11].starts_with("TURN "), "{}", lines[11]);
        assert_eq!(lines.last(), Some(&"END"));

        // The second player after an opening: the stones, in order, own ones 1.
        std::fs::write(log.path(), "").unwrap();
        let record = play(
            board(),
            "a1 c2 e5",
            [gomocup(&["--seed", "9"]), first],
            Some(TimeControl::Move {
                time: Duration::from_millis(1500),
            }),
        );
        assert_eq!(record.termination, Termination::Normal);
        let said = std::fs::read_to_string(log.path()).unwrap();
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(
            lines[..3],
            ["START 9", "INFO timeout_turn 1500", "INFO timeout_match 0"]
        );
        let board_at = lines.iter().position(|l| *l == "BOARD").unwrap();
        assert_eq!(
            lines[board_at..board_at + 5],
            ["BOARD", "0,0,2", "2,1,1", "4,4,2", "DONE"]
        );
        assert!(lines[board_at + 5].starts_with("TURN "));
        assert!(!said.contains("time_left"));
    }

    /// The `INFO` lines a program is told before its first game, from its log.
    fn told_limits(spec: super::super::OutsideSpec, clock: Option<TimeControl>) -> Vec<String> {
        let log = log_file();
        let mut spec = spec;
        spec.args
            .extend(["--log".to_string(), log.path().display().to_string()]);
        let record = play(board(), "", [spec, gomocup(&["--seed", "3"])], clock);
        assert_eq!(record.termination, Termination::Normal);
        let said = std::fs::read_to_string(log.path()).unwrap();
        said.lines()
            .skip(1)
            .take_while(|l| l.starts_with("INFO"))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn every_program_gets_a_finite_limit_and_its_budget() {
        // No clock, no budget: five seconds a move (never more than the stall limit), not the
        // protocol's "no limit".
        let plain = gomocup(&["--seed", "4"]);
        assert_eq!(
            told_limits(plain.clone(), None)[..2],
            ["INFO timeout_turn 5000", "INFO timeout_match 0"]
        );
        let mut hasty = plain.clone();
        hasty.stall_ms = 1500;
        assert_eq!(told_limits(hasty, None)[0], "INFO timeout_turn 1500");
        // A budget: the Yixin-Board extension, with the stall limit as a backstop.
        let mut budget = plain.clone();
        budget.depth = Some(6);
        budget.nodes = Some(20_000);
        let lines = told_limits(budget.clone(), None);
        let backstop = format!("INFO timeout_turn {}", budget.stall_ms);
        assert_eq!(
            lines[..4],
            [
                backstop.as_str(),
                "INFO timeout_match 0",
                "INFO max_depth 6",
                "INFO max_node 20000"
            ]
        );
        // On a clock the clock decides the time, and the budget still goes.
        let lines = told_limits(
            budget,
            Some(TimeControl::Move {
                time: Duration::from_millis(800),
            }),
        );
        assert_eq!(
            lines[..4],
            [
                "INFO timeout_turn 800",
                "INFO timeout_match 0",
                "INFO max_depth 6",
                "INFO max_node 20000"
            ]
        );
    }

    #[test]
    fn renju_is_told_and_a_forbidden_point_loses() {
        // The fake plays random empty points: sooner or later one of black's is forbidden.
        let log = log_file();
        let path = log.path().to_str().unwrap();
        let renju = Morpion::with_rule(9, 9, 5, Rule::Renju);
        let mut forfeits = 0;
        for seed in 1..=12 {
            let seed = seed.to_string();
            let black = fake(
                Protocol::Gomocup,
                "morpion-9x9-5",
                &["--seed", &seed, "--log", path],
            );
            let white = fake(Protocol::Gomocup, "morpion-9x9-5", &["--seed", "99"]);
            let record = play(renju, "", [black, white], None);
            match &record.termination {
                Termination::Normal => assert!(record.last.outcome().is_some()),
                Termination::IllegalMove(Side::First, line) => {
                    // The last position, black to move, and the point it named is forbidden.
                    let (said, why) = line.split_once(": ").unwrap();
                    assert!(why.contains("is a forbidden point"), "{line}");
                    let (x, y) = said.trim().split_once(',').unwrap();
                    let (x, y): (usize, usize) = (x.parse().unwrap(), y.parse().unwrap());
                    assert!(record.last.is_forbidden(y * 9 + x), "{line}");
                    forfeits += 1;
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(forfeits > 0, "no forbidden point was played");
        let said = std::fs::read_to_string(log.path()).unwrap();
        assert!(said.lines().any(|l| l == "INFO rule 4"), "{said}");
        assert!(!said.lines().any(|l| l == "INFO rule 0"), "{said}");
    }

    #[test]
    fn garbage_a_crash_and_a_hang_lose() {
        let record = play(
            board(),
            "",
            [gomocup(&[]), gomocup(&["--garbage-at", "2"])],
            None,
        );
        assert_eq!(
            record.termination,
            Termination::IllegalMove(
                Side::Second,
                "banana,split: a move is X,Y (column and row from 0)".into()
            )
        );
        let record = play(
            board(),
            "",
            [gomocup(&["--illegal-at", "2"]), gomocup(&[])],
            None,
        );
        match &record.termination {
            Termination::IllegalMove(Side::First, line) => assert!(line.contains(','), "{line}"),
            other => panic!("{other:?}"),
        }
        crash_and_hang_lose(board(), gomocup);
    }

    #[test]
    fn an_error_to_start_fails_the_start() {
        let record = play(
            board(),
            "",
            [gomocup(&[]), gomocup(&["--bad-handshake"])],
            None,
        );
        match &record.termination {
            Termination::Crash(Side::Second, why) => {
                assert!(why.contains("it answered 'ERROR no' to 'START 9'"), "{why}")
            }
            other => panic!("{other:?}"),
        }
    }
}

//! A logged game replayed: every move legal from the game's start, written in the game's own
//! notation, and the result, margin and termination what the moves say. A log whose result was
//! flipped, whose moves were edited or that belongs to another game is refused here, by every
//! reader of logs (`joute report`, the sharded SPRT, a resumed run, `joute export`, `joute
//! fit`), rather than counted.
//!
//! What the referee (`arena::game::play_game`) can have written, and so what is accepted:
//! - `normal`: the moves end the game, and the score and margin are the final position's;
//! - `adjudication`: the moves do not end the game; with the solver's verdict (`adjudication`
//!   in the line) the margin is its value's, seen from the first player; with a score rule,
//!   a win off the board or a draw (margin ±[`Game::MARGIN_OF_A_WIN_OFF_THE_BOARD`] or 0);
//! - a failure (`timeout`, `stall`, `illegal-move`, `crash`): the moves do not end the game, the
//!   side that failed lost off the board (margin ±[`Game::MARGIN_OF_A_WIN_OFF_THE_BOARD`]:
//!   Othello's 64), and after a move it is the side to move (before the first move either side
//!   may fail to start);
//! - a win off the board by one (margin ±1) is accepted in every game: an earlier joute wrote
//!   Othello's so;
//! - in every case the score is 1, ½ or 0 as the margin's sign says, and `result` agrees.

use super::log::GameLine;
use super::records::result_text;
use crate::games::{Game, GameKind, GameVisitor, Side};

/// Replays `game` from `start`: the opening's moves, then the engines'. `each` sees every
/// position from the end of the opening to the last (before each engine's move, then the
/// final one) with its ply from the start. Returns the final position; an error names the move
/// that cannot be played.
pub fn replay<G: Game>(
    start: G,
    game: &GameLine,
    mut each: impl FnMut(&G, usize),
) -> Result<G, String> {
    let bad_move = |n: usize, text: &str, why: String| {
        format!(
            "game {}: move {n} '{text}' cannot be played in {}: {why} (is this a log of another game?)",
            game.id,
            start.name()
        )
    };
    let mut pos = start;
    let opening = game.opening.len();
    for (i, text) in game.opening.iter().chain(&game.moves).enumerate() {
        if i >= opening {
            each(&pos, i);
        }
        let mv = pos
            .parse_move(text)
            .map_err(|e| bad_move(i + 1, text, e.to_string()))?;
        // The game's own spelling only: what a report, a record or a terminal shows is then
        // what joute wrote (no case games, no stray bytes).
        let written = pos.format_move(mv);
        if written != *text {
            return Err(bad_move(
                i + 1,
                text,
                format!("joute writes this move '{written}'"),
            ));
        }
        pos = pos.play(mv);
    }
    each(&pos, opening + game.moves.len());
    Ok(pos)
}

/// Checks the result, margin and termination of `game` against `end`, the position its moves
/// reach (see the module's documentation).
pub fn check_result<G: Game>(game: &GameLine, end: &G) -> Result<(), String> {
    let id = game.id;
    let sign = match game.score {
        1.0 => 1,
        0.0 => -1,
        0.5 => 0,
        s => return Err(format!("game {id}: score {s} is not 1, 0.5 or 0")),
    };
    if game.result != result_text(game.score) {
        return Err(format!(
            "game {id}: result '{}' but score {}",
            game.result, game.score
        ));
    }
    if game.margin.signum() != sign {
        return Err(format!(
            "game {id}: margin {} but score {}: the result contradicts the margin",
            game.margin, game.score
        ));
    }
    let over = end.outcome();
    match game.termination.as_str() {
        "normal" => {
            let Some(outcome) = over else {
                return Err(format!(
                    "game {id}: ended 'normal', but its moves do not end the game"
                ));
            };
            if outcome.first_player_points() != game.score || outcome.score != game.margin {
                return Err(format!(
                    "game {id}: the moves end in {} for the first player (margin {}), but the log says score {} and margin {}",
                    outcome.first_player_points(),
                    outcome.score,
                    game.score,
                    game.margin
                ));
            }
        }
        termination => {
            if over.is_some() {
                return Err(format!(
                    "game {id}: its moves end the game by the rules, but it ended by '{termination}'"
                ));
            }
            if termination == "adjudication" {
                return check_adjudication(game, end);
            }
            if !is_off_the_board::<G>(game.margin) {
                return Err(format!(
                    "game {id}: lost by '{termination}' with margin {}; a failure loses by {}",
                    game.margin,
                    G::MARGIN_OF_A_WIN_OFF_THE_BOARD
                ));
            }
            let loser = if sign > 0 { Side::Second } else { Side::First };
            if !game.moves.is_empty() && end.side_to_move() != loser {
                return Err(format!(
                    "game {id}: the side that lost by '{termination}' is not the side to move after the last move"
                ));
            }
        }
    }
    Ok(())
}

/// Whether `margin` is a win off the board in `G` (a failure, a score rule): the game's
/// [`Game::MARGIN_OF_A_WIN_OFF_THE_BOARD`], or 1 as an earlier joute wrote it.
fn is_off_the_board<G: Game>(margin: i32) -> bool {
    margin.abs() == G::MARGIN_OF_A_WIN_OFF_THE_BOARD || margin.abs() == 1
}

/// An adjudicated game: the solver's verdict on the final position, or a score rule's win off
/// the board or draw.
fn check_adjudication<G: Game>(game: &GameLine, end: &G) -> Result<(), String> {
    let id = game.id;
    let Some(verdict) = &game.adjudication else {
        return if game.margin == 0 || is_off_the_board::<G>(game.margin) {
            Ok(())
        } else {
            Err(format!(
                "game {id}: adjudicated by a score rule with margin {}; such a game is won by {} or drawn",
                game.margin,
                G::MARGIN_OF_A_WIN_OFF_THE_BOARD
            ))
        };
    };
    let to_move = match end.side_to_move() {
        Side::First => "first",
        Side::Second => "second",
    };
    let plies = game.opening.len() + game.moves.len();
    if verdict.to_move != to_move || verdict.plies != plies {
        return Err(format!(
            "game {id}: the solver's verdict is for the {} player at ply {}, but the game ends with the {to_move} player to move at ply {plies}",
            verdict.to_move, verdict.plies
        ));
    }
    // The value is the mover's: the margin itself in Othello, its sign elsewhere.
    let mover = if end.name() == "othello" {
        verdict.value
    } else {
        verdict.value.signum()
    };
    let first = if to_move == "first" { mover } else { -mover };
    if first != game.margin {
        return Err(format!(
            "game {id}: the solver's value {:+} for the {to_move} player means margin {first}, but the log says {}",
            verdict.value, game.margin
        ));
    }
    Ok(())
}

/// Replays `game` as a game of `kind` and checks its result ([`replay`], [`check_result`]).
pub fn check_game(kind: &GameKind, game: &GameLine) -> Result<(), String> {
    struct Check<'a>(&'a GameLine);
    impl GameVisitor for Check<'_> {
        type Output = Result<(), String>;
        fn visit<G: Game>(self, start: G) -> Result<(), String> {
            let end = replay(start, self.0, |_, _| {})?;
            check_result(self.0, &end)
        }
    }
    kind.dispatch(Check(game))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::adjudication::AdjudicationLine;
    use crate::games::{Connect4, Othello};

    /// A line of `moves` (the first two the opening) scored as its end says, as the referee
    /// writes one.
    fn line<G: Game>(start: G, moves: &str, termination: &str) -> GameLine {
        let moves: Vec<String> = moves.split_whitespace().map(String::from).collect();
        let end = moves
            .iter()
            .fold(start, |p, m| p.play(p.parse_move(m).unwrap()));
        let (score, margin) = match end.outcome() {
            Some(o) => (o.first_player_points(), o.score),
            // The side to move failed.
            None if end.side_to_move() == Side::First => (0.0, -1),
            None => (1.0, 1),
        };
        GameLine {
            id: 3,
            pair: 1,
            opening: moves[..2].to_vec(),
            first: "a".into(),
            second: "b".into(),
            score,
            result: result_text(score).into(),
            margin,
            termination: termination.into(),
            plies: moves.len() - 2,
            moves: moves[2..].to_vec(),
            seed: 1,
            spec: "x".into(),
            ..GameLine::default()
        }
    }

    /// A Connect 4 game the first player wins in the first column.
    const WIN: &str = "1 2 1 2 1 2 1";

    fn refused(game: &GameLine, piece: &str) {
        let err = check_game(&GameKind::Connect4, game).unwrap_err();
        assert!(err.contains(piece), "{err}");
    }

    #[test]
    fn the_referees_lines_pass() {
        let c4 = GameKind::Connect4;
        check_game(&c4, &line(Connect4::start(), WIN, "normal")).unwrap();
        for failure in ["timeout", "stall", "illegal-move", "crash", "limit"] {
            check_game(&c4, &line(Connect4::start(), "4 4 3", failure)).unwrap();
        }
        // Before the first move either side may fail to start.
        let mut g = line(Connect4::start(), "4 4", "crash");
        check_game(&c4, &g).unwrap();
        (g.score, g.margin, g.result) = (1.0, 1, "1-0".into());
        check_game(&c4, &g).unwrap();
        // A score rule's draw and win.
        let mut g = line(Connect4::start(), "4 4 3 3", "adjudication");
        (g.score, g.margin, g.result) = (0.5, 0, "1/2-1/2".into());
        check_game(&c4, &g).unwrap();
        // Othello's win off the board is by 64 (by 1 from an earlier joute), never by another.
        let othello = GameKind::Othello;
        for termination in ["crash", "adjudication"] {
            let mut g = line(Othello::start(), "f5 d6 c3 d3", termination);
            for margin in [-64, -1] {
                g.margin = margin;
                check_game(&othello, &g).unwrap();
            }
            g.margin = -6;
            let err = check_game(&othello, &g).unwrap_err();
            assert!(err.contains("by 64"), "{err}");
        }
        // The solver's verdict: Othello's margin is the value.
        let moves = "f5 d6 c3 d3 c4 f4";
        let mut g = line(Othello::start(), moves, "adjudication");
        g.adjudication = Some(AdjudicationLine {
            value: -6,
            to_move: "first".into(),
            position: String::new(),
            plies: 6,
        });
        (g.score, g.margin, g.result) = (0.0, -6, "0-1".into());
        check_game(&GameKind::Othello, &g).unwrap();
        g.margin = -8;
        let err = check_game(&GameKind::Othello, &g).unwrap_err();
        assert!(err.contains("means margin -6"), "{err}");
    }

    #[test]
    fn a_result_that_contradicts_the_moves_is_refused() {
        let won = line(Connect4::start(), WIN, "normal");
        let mut flipped = won.clone();
        (flipped.score, flipped.result, flipped.margin) = (0.0, "0-1".into(), -1);
        refused(&flipped, "the moves end in 1 for the first player");
        let mut g = won.clone();
        g.result = "0-1".into();
        refused(&g, "result '0-1' but score 1");
        let mut g = won.clone();
        g.margin = -1;
        refused(&g, "contradicts the margin");
        let mut g = won.clone();
        g.termination = "timeout".into();
        refused(&g, "end the game by the rules");
        let mut g = line(Connect4::start(), "4 4 3", "normal");
        (g.score, g.margin, g.result) = (0.5, 0, "1/2-1/2".into());
        refused(&g, "do not end the game");
        // The side to move failed: the other cannot be the loser.
        let mut g = line(Connect4::start(), "4 4 3", "crash");
        (g.score, g.margin, g.result) = (0.0, -1, "0-1".into());
        refused(&g, "not the side to move");
        let mut g = line(Connect4::start(), "4 4 3", "stall");
        g.margin *= 5;
        refused(&g, "a failure loses by 1");
    }

    #[test]
    fn moves_must_be_legal_and_written_as_joute_writes_them() {
        let mut g = line(Connect4::start(), WIN, "normal");
        g.moves[0] = "8".into();
        refused(&g, "move 3 '8' cannot be played in connect4");
        let mut g = line(Connect4::start(), WIN, "normal");
        g.moves[0] = " 1".into();
        refused(&g, "joute writes this move '1'");
        let mut g = line(Othello::start(), "f5 d6 c3", "crash");
        g.moves[0] = "C3\u{1b}".into();
        let err = check_game(&GameKind::Othello, &g).unwrap_err();
        assert!(err.contains("cannot be played"), "{err}");
        g.moves[0] = "C3".into();
        let err = check_game(&GameKind::Othello, &g).unwrap_err();
        assert!(err.contains("joute writes this move 'c3'"), "{err}");
        // The positions seen: from the end of the opening to the last.
        let g = line(Connect4::start(), WIN, "normal");
        let mut plies = Vec::new();
        replay(Connect4::start(), &g, |_, ply| plies.push(ply)).unwrap();
        assert_eq!(plies, [2, 3, 4, 5, 6, 7]);
    }
}

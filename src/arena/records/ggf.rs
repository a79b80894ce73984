//! GGF, the Generic Game Format of GGS, NBoard and Edax, for Othello:
//! `(;GM[Othello]PC[joute]DT[..]PB[black]PW[white]RE[+12.000]TY[8]BO[8 <8 rows> *]B[f5]W[d6]..;)`,
//! one game a line. Passes are written `PA` by the side that passes. `RE` is the final disc
//! difference from black's side (empty squares to the winner); a game that did not end by
//! the rules has `:t` (lost on time or by stalling) or `:r` (a crash or an illegal move: the
//! loser resigned, in GGS's words) after it, and ±64 when the board does not show the result.

use super::Record;
use crate::games::{Game, Othello, Side};

/// The start position as `BO` writes it: row 1 first, `*` black, `O` white, side to move last.
pub const START_BOARD: &str =
    "8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *";

/// Keeps a value inside its brackets.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '[' => '(',
            ']' => ')',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// The `RE` value of a record.
fn result_value(r: &Record) -> String {
    let sign_of_score = if r.score > 0.5 {
        1
    } else if r.score < 0.5 {
        -1
    } else {
        0
    };
    let margin = match r.margin {
        Some(m) if m.signum() == sign_of_score => m,
        _ => 64 * sign_of_score,
    };
    let suffix = match r.termination.as_str() {
        "timeout" | "stall" => ":t",
        "crash" | "illegal-move" | "limit" => ":r",
        _ => "",
    };
    if margin == 0 {
        format!("0.000{suffix}")
    } else {
        format!("{margin:+}.000{suffix}")
    }
}

/// The games as GGF, one a line.
pub fn write(records: &[Record]) -> String {
    let (y, m, d) = super::today();
    let mut out = String::new();
    for r in records {
        out.push_str(&format!(
            "(;GM[Othello]PC[joute]DT[{y:04}.{m:02}.{d:02}]PB[{}]PW[{}]RE[{}]TY[8]BO[{START_BOARD}]",
            clean(&r.first),
            clean(&r.second),
            result_value(r)
        ));
        for (i, mv) in r.moves.iter().enumerate() {
            let colour = if i % 2 == 0 { 'B' } else { 'W' };
            let text = if mv.eq_ignore_ascii_case("pass") {
                "PA".to_string()
            } else {
                mv.to_ascii_lowercase()
            };
            out.push_str(&format!("{colour}[{text}]"));
        }
        out.push_str(";)\n");
    }
    out
}

/// Reads the start position of a `BO` value.
fn board(value: &str) -> Result<Othello, String> {
    let mut tokens: Vec<&str> = value.split_whitespace().collect();
    if tokens.first() != Some(&"8") {
        return Err(format!(
            "BO[{value}] is not an 8x8 board; joute reads 8x8 Othello only"
        ));
    }
    tokens.remove(0);
    let side = tokens.pop().unwrap_or("");
    let cells: String = tokens.concat();
    let side = match side {
        "*" | "B" | "b" => "X",
        "O" | "o" | "W" | "w" => "O",
        _ => return Err(format!("BO[{value}]: the side to move is not * or O")),
    };
    if cells.chars().count() != 64 || !cells.chars().all(|c| matches!(c, '*' | 'O' | 'o' | '-')) {
        return Err(format!(
            "BO[{value}]: expected 64 squares of *, O or - then the side to move"
        ));
    }
    let cells: String = cells
        .chars()
        .map(|c| {
            if c == '*' {
                'X'
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect();
    Othello::start()
        .parse_position(&format!("{cells} {side}"))
        .map_err(|e| format!("BO[{value}]: {e}"))
}

/// Reads an `RE` value: the disc difference from black's side, then an optional `:t`, `:r` or
/// `:s`. Returns black's points and the margin.
fn result(value: &str) -> Option<(f64, i32)> {
    let number = value.split(':').next()?.trim();
    let x: f64 = number.parse().ok()?;
    if !x.is_finite() || x.abs() > 64.0 {
        return None;
    }
    let score = if x > 0.0 {
        1.0
    } else if x < 0.0 {
        0.0
    } else {
        0.5
    };
    Some((score, x.round() as i32))
}

/// Reads every game `(;..;)` of a GGF text (text between games is ignored, as GGS's game
/// counts are). A game without `RE`, with a board or game that is not 8x8 Othello, a move that
/// is not legal, or a tag that is not `NAME[value]` is refused with its number.
pub fn read(text: &str) -> Result<Vec<Record>, String> {
    let mut records = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("(;") {
        let n = records.len() + 1;
        let body_start = start + 2;
        let end = rest[body_start..]
            .find(";)")
            .ok_or_else(|| format!("game {n}: no ';)' closes the game"))?
            + body_start;
        records.push(read_game(&rest[body_start..end]).map_err(|e| format!("game {n}: {e}"))?);
        rest = &rest[end + 2..];
    }
    Ok(records)
}

/// One game's tags, between `(;` and `;)`.
fn read_game(body: &str) -> Result<Record, String> {
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let open = rest
            .find('[')
            .ok_or_else(|| format!("'{}' is not a tag NAME[value]", shorten(rest)))?;
        let name = &rest[..open];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_uppercase()) {
            return Err(format!("'{}' is not a tag NAME[value]", shorten(rest)));
        }
        let close = rest[open..]
            .find(']')
            .ok_or_else(|| format!("tag {name} has no closing ']'"))?
            + open;
        tags.push((name.to_string(), rest[open + 1..close].to_string()));
        rest = rest[close + 1..].trim_start();
    }
    let get = |name: &str| {
        tags.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if let Some(game) = get("GM")
        && !game.eq_ignore_ascii_case("othello")
    {
        return Err(format!("GM[{game}] is not Othello"));
    }
    let mut pos = match get("BO") {
        Some(value) => board(value)?,
        None => Othello::start(),
    };
    let re = get("RE").ok_or("no result (RE tag)")?;
    let (score, margin) =
        result(re).ok_or_else(|| format!("RE[{re}] is not a disc difference such as +12.000"))?;
    let termination = if re.ends_with(":t") {
        "timeout"
    } else if re.ends_with(":r") {
        "crash"
    } else {
        "normal"
    };
    let mut moves = Vec::new();
    for (k, (name, value)) in tags.iter().enumerate() {
        let side = match name.as_str() {
            "B" => Side::First,
            "W" => Side::Second,
            _ => continue,
        };
        let text = value.split('/').next().unwrap_or("").trim();
        let text = if text.eq_ignore_ascii_case("pa") {
            "pass"
        } else {
            text
        };
        // A pass left out: the side to move has none but a pass.
        if pos.side_to_move() != side && text != "pass" {
            let pass = pos.parse_move("pass");
            if let Ok(pass) = pass {
                moves.push("pass".to_string());
                pos = pos.play(pass);
            }
        }
        if pos.side_to_move() != side {
            return Err(format!(
                "tag {} ({name}[{value}]): it is {}'s turn",
                k + 1,
                if side == Side::First {
                    "white"
                } else {
                    "black"
                }
            ));
        }
        let mv = pos
            .parse_move(text)
            .map_err(|e| format!("move {} ({name}[{value}]): {e}", moves.len() + 1))?;
        moves.push(pos.format_move(mv));
        pos = pos.play(mv);
    }
    Ok(Record {
        id: None,
        pair: None,
        round: None,
        first: get("PB").unwrap_or("").to_string(),
        second: get("PW").unwrap_or("").to_string(),
        score,
        margin: Some(margin),
        termination: termination.into(),
        moves,
    })
}

/// The start of `text`, for messages.
fn shorten(text: &str) -> String {
    text.chars().take(20).collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::record;
    use super::*;

    #[test]
    fn the_start_board_reads_as_the_start() {
        assert_eq!(board(START_BOARD).unwrap(), Othello::start());
    }

    #[test]
    fn writes_and_reads_a_game_with_passes() {
        // A game that ends with black wiping white out in 9 moves? Use a short legal game and
        // a pass-free one; passes are tested on a board where white must pass.
        let mut r = record("edax [x]", "pvs-4", 0.0, "f5 d6 c3 d3 c4 f4 f6 f3 e6 e7");
        r.margin = Some(-4);
        let text = write(&[r.clone()]);
        assert!(text.starts_with("(;GM[Othello]PC[joute]DT["), "{text}");
        assert!(
            text.contains("PB[edax (x)]PW[pvs-4]RE[-4.000]TY[8]BO[8 -------- "),
            "{text}"
        );
        assert!(text.contains("B[f5]W[d6]B[c3]"), "{text}");
        assert!(text.ends_with("W[e7];)\n"), "{text}");
        let back = read(&text).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].moves, r.moves);
        assert_eq!(back[0].first, "edax (x)");
        assert_eq!(back[0].score, 0.0);
        assert_eq!(back[0].margin, Some(-4));
    }

    #[test]
    fn reads_ggs_style_moves_and_refuses_bad_games() {
        let text = format!(
            "1 (;GM[Othello]PB[a]PW[b]RE[+2.000:t]BO[{START_BOARD}]B[F5//1.2]W[d6/0.5/3];)"
        );
        let back = read(&text).unwrap();
        assert_eq!(back[0].moves, ["f5", "d6"]);
        assert_eq!(back[0].score, 1.0);
        assert_eq!(back[0].termination, "timeout");
        let err = read("(;GM[Othello]PB[a]PW[b]B[f5];)").unwrap_err();
        assert_eq!(err, "game 1: no result (RE tag)");
        let err = read("(;GM[Othello]RE[0]B[a1];)").unwrap_err();
        assert!(err.starts_with("game 1: move 1 (B[a1])"), "{err}");
        let err = read("(;GM[Othello]RE[0]B[f5]").unwrap_err();
        assert!(err.contains("no ';)'"), "{err}");
        let err = read("(;GM[Othello]RE[0]BO[10 x *];)").unwrap_err();
        assert!(err.contains("not an 8x8 board"), "{err}");
        let err = read("(;GM[Othello]RE[0]b[f5];)").unwrap_err();
        assert!(err.contains("not a tag"), "{err}");
    }
}

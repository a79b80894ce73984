//! SGF for Morpion boards as gomoku (`GM[4]`): `(;GM[4]FF[4]CA[UTF-8]AP[joute]SZ[15]PB[..]PW[..]RE[B+];B[hh];W[ih]..)`,
//! one game tree a game in one collection. Black is the side that moved first (X). A cell's
//! coordinates are its column then its row, letters from `a` at the top left (joute's `b3` is
//! `bc`). A board that is not square has `SZ[columns:rows]`. `RE` is `B+`, `W+` or `0` (a
//! draw), with `T` for a game lost on time and `F` for a forfeit (a crash, an illegal move).
//! The number in a row needed to win is not an SGF property: it is in `GN[morpion-RxC-K]`.

use super::Record;

/// Keeps a text value valid: `]` and `\` escaped, control characters blanked.
fn text(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace(']', "\\]")
}

/// A Morpion cell `b3` as SGF `bc`.
fn point(cell: &str) -> Option<String> {
    let mut chars = cell.chars();
    let col = chars.next()?.to_ascii_lowercase();
    let row: u32 = chars.as_str().parse().ok()?;
    let row = char::from_u32('a' as u32 + row.checked_sub(1)?)?;
    Some(format!("{col}{row}"))
}

/// The games as one SGF collection on a `rows` × `cols` board; `game` names the variant.
pub fn write(records: &[Record], game: &str, rows: u8, cols: u8) -> String {
    let size = if rows == cols {
        rows.to_string()
    } else {
        format!("{cols}:{rows}")
    };
    let mut out = String::new();
    for r in records {
        let winner = if r.score > 0.5 {
            "B+"
        } else if r.score < 0.5 {
            "W+"
        } else {
            "0"
        };
        let how = match (winner, r.termination.as_str()) {
            ("0", _) => "",
            (_, "timeout" | "stall") => "T",
            (_, "crash" | "illegal-move" | "limit") => "F",
            _ => "",
        };
        out.push_str(&format!(
            "(;GM[4]FF[4]CA[UTF-8]AP[joute]GN[{}]SZ[{size}]PB[{}]PW[{}]RE[{winner}{how}]",
            text(game),
            text(&r.first),
            text(&r.second)
        ));
        for (i, mv) in r.moves.iter().enumerate() {
            let colour = if i % 2 == 0 { 'B' } else { 'W' };
            let p = point(mv).unwrap_or_default();
            out.push_str(&format!(";{colour}[{p}]"));
        }
        out.push_str(")\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::record;
    use super::*;

    #[test]
    fn gomoku_trees() {
        let text = write(
            &[record("x]1", "o", 1.0, "h8 i8 b12")],
            "morpion-15x15-5",
            15,
            15,
        );
        assert_eq!(
            text,
            "(;GM[4]FF[4]CA[UTF-8]AP[joute]GN[morpion-15x15-5]SZ[15]PB[x\\]1]PW[o]RE[B+];B[hh];W[ih];B[bl])\n"
        );
        let text = write(&[record("a", "b", 0.5, "a1")], "morpion-3x4-3", 3, 4);
        assert!(
            text.contains("SZ[4:3]") && text.contains("RE[0];B[aa])"),
            "{text}"
        );
    }
}

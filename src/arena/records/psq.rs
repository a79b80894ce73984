//! PSQ, Piskvork's game record, one file a game: `Piskvorky CxR, 11:11, 0` (the board's columns
//! and rows, the two players' levels, 0 for "the first player began": the header Piskvork
//! writes and reads back), one `x,y,time` line a move (column and row from 1 at the top left,
//! time in milliseconds: joute writes the referee's measure when the game was on a clock, else
//! 0), then the first and second player's names and the result from the first player's side.
//! PSQ has no field for the rule (freestyle, exactly five, renju): it is the run's game name.

use super::Record;

/// One game as PSQ; `move_ms` the time of each move (0 when absent).
pub fn write(record: &Record, rows: u8, cols: u8, move_ms: &[u64]) -> String {
    let mut out = format!("Piskvorky {cols}x{rows}, 11:11, 0\n");
    for (i, mv) in record.moves.iter().enumerate() {
        let mut chars = mv.chars();
        let col = chars
            .next()
            .map_or(0, |c| c.to_ascii_lowercase() as u32 - 'a' as u32 + 1);
        let row: u32 = chars.as_str().parse().unwrap_or(0);
        // The opening's moves have no time; the engines' moves follow them.
        let skip = record.moves.len().saturating_sub(move_ms.len());
        let ms = if i >= skip { move_ms[i - skip] } else { 0 };
        out.push_str(&format!("{col},{row},{ms}\n"));
    }
    out.push_str(&format!(
        "{}\n{}\n{}\n",
        record.first,
        record.second,
        record.result()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::record;
    use super::*;

    #[test]
    fn one_line_a_move() {
        let text = write(&record("a", "b", 0.0, "h8 i8 c10"), 15, 15, &[5, 7]);
        assert_eq!(
            text,
            "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,8,5\n3,10,7\na\nb\n0-1\n"
        );
    }
}

//! Connect 4 move lists: one game a line, its columns as digits 1..7 from the empty board (the
//! positions Pascal Pons' solver reads), a space, and the result from the first player's side
//! (`1-0`, `0-1`, `1/2-1/2`; cut it off with `cut -d' ' -f1`). The solver reads positions, not
//! finished games: a line that ends in a win is a record, not a position to solve.

use super::Record;

/// The games as move lists, one a line.
pub fn write(records: &[Record]) -> String {
    records
        .iter()
        .map(|r| format!("{} {}\n", r.moves.concat(), r.result()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::record;
    use super::*;

    #[test]
    fn one_line_a_game() {
        let text = write(&[record("a", "b", 1.0, "4 4 5 3"), record("b", "a", 0.5, "1")]);
        assert_eq!(text, "4453 1-0\n1 1/2-1/2\n");
    }
}

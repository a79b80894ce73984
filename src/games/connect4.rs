//! Connect 4, 7 columns × 6 rows, on one `u64`.
//!
//! Column `c` (0-based, notation `c + 1`) owns bits `7c` (bottom) to `7c + 5` (top); bit `7c + 6`
//! is a sentinel that stays empty, so shifting a line of stones never wraps into the next column.
//! A position keeps the stones of the player to move and the mask of all stones; the stones of
//! the player who just moved are `current ^ mask`.

use super::hash::mix64;
use super::{Game, GameError, MoveList, Outcome, Side};

/// Number of columns.
pub const WIDTH: u32 = 7;
/// Number of rows.
pub const HEIGHT: u32 = 6;
/// Bits per column: `HEIGHT` cells and the empty sentinel above them.
pub const H1: u32 = HEIGHT + 1;

/// The bottom cell of every column.
pub const BOTTOM_ROW: u64 = {
    let mut b = 0;
    let mut c = 0;
    while c < WIDTH {
        b |= 1 << (c * H1);
        c += 1;
    }
    b
};
/// The top cell of every column.
pub const TOP_ROW: u64 = BOTTOM_ROW << (HEIGHT - 1);
/// Every cell of the board (no sentinel).
pub const BOARD: u64 = BOTTOM_ROW * ((1 << HEIGHT) - 1);

/// A Connect 4 move: the column, 0-based (written 1..7).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Column(pub u8);

/// A Connect 4 position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Connect4 {
    /// Stones of the player to move.
    pub current: u64,
    /// All stones.
    pub mask: u64,
}

/// Whether `stones` hold four in a row in any direction.
#[inline]
pub fn has_four(stones: u64) -> bool {
    // Horizontal, the two diagonals, vertical.
    for shift in [H1, H1 - 1, H1 + 1, 1] {
        let pairs = stones & (stones >> shift);
        if pairs & (pairs >> (2 * shift)) != 0 {
            return true;
        }
    }
    false
}

#[inline]
const fn bottom_of(col: u32) -> u64 {
    1 << (col * H1)
}

#[inline]
const fn top_of(col: u32) -> u64 {
    1 << (col * H1 + HEIGHT - 1)
}

impl Connect4 {
    /// The empty board, first player to move.
    pub fn start() -> Connect4 {
        Connect4 {
            current: 0,
            mask: 0,
        }
    }

    /// Number of stones on the board.
    #[inline]
    pub fn stones(&self) -> u32 {
        self.mask.count_ones()
    }

    /// Whether a stone can still go into column `col` (0-based).
    #[inline]
    pub fn can_play(&self, col: u32) -> bool {
        self.mask & top_of(col) == 0
    }

    /// Whether the player who just moved has four in a row.
    #[inline]
    pub fn last_move_won(&self) -> bool {
        has_four(self.current ^ self.mask)
    }

    /// The stones of one side.
    pub fn stones_of(&self, side: Side) -> u64 {
        if side == self.side_to_move() {
            self.current
        } else {
            self.current ^ self.mask
        }
    }

    /// Plays from this position the moves of a digit string such as `4453`, reporting a full
    /// column, a move after the game is won, or a character that is not a column, by its place.
    pub fn play_digits(&self, digits: &str) -> Result<Connect4, GameError> {
        let mut pos = *self;
        for (i, c) in digits.chars().enumerate() {
            let bad = |reason: String| GameError::BadPosition {
                game: "connect4".into(),
                reason: format!("move {} ('{c}') of '{digits}': {reason}", i + 1),
            };
            let col = match c.to_digit(10) {
                Some(d @ 1..=7) => d - 1,
                _ => return Err(bad("a move is a column 1..7".into())),
            };
            if pos.last_move_won() {
                return Err(bad("the game is already won".into()));
            }
            if !pos.can_play(col) {
                return Err(bad(format!("column {} is full", col + 1)));
            }
            pos = pos.play(Column(col as u8));
        }
        Ok(pos)
    }
}

impl Game for Connect4 {
    type Move = Column;

    fn name(&self) -> String {
        "connect4".into()
    }

    #[inline]
    fn side_to_move(&self) -> Side {
        if self.stones().is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        }
    }

    #[inline]
    fn legal_moves(&self, moves: &mut MoveList<Column>) {
        if self.last_move_won() {
            return;
        }
        for col in 0..WIDTH {
            if self.can_play(col) {
                // At most 7 moves.
                unsafe { moves.push_unchecked(Column(col as u8)) };
            }
        }
    }

    #[inline]
    fn move_count(&self) -> usize {
        if self.last_move_won() {
            0
        } else {
            (WIDTH - (self.mask & TOP_ROW).count_ones()) as usize
        }
    }

    #[inline]
    fn play(&self, mv: Column) -> Connect4 {
        Connect4 {
            current: self.current ^ self.mask,
            mask: self.mask | (self.mask + bottom_of(mv.0 as u32)),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.last_move_won() {
            Some(Outcome::win(self.side_to_move().opponent()))
        } else if self.mask == BOARD {
            Some(Outcome::DRAW)
        } else {
            None
        }
    }

    #[inline]
    fn hash_key(&self) -> u64 {
        // current + mask is unique per position (the classic Connect 4 key).
        mix64(self.current + self.mask)
    }

    fn parse_move(&self, text: &str) -> Result<Column, GameError> {
        let bad = |reason: String| GameError::BadMove {
            game: "connect4".into(),
            text: text.into(),
            reason,
        };
        let col = match text.trim().parse::<u32>() {
            Ok(c @ 1..=7) => c - 1,
            _ => return Err(bad("a move is a column 1..7".into())),
        };
        if self.last_move_won() {
            return Err(bad("the game is already won".into()));
        }
        if !self.can_play(col) {
            return Err(bad(format!("column {} is full", col + 1)));
        }
        Ok(Column(col as u8))
    }

    #[inline]
    fn move_index(&self, mv: Column) -> usize {
        mv.0 as usize
    }

    fn format_move(&self, mv: Column) -> String {
        (mv.0 + 1).to_string()
    }

    /// A position is the digit string of the columns played from the empty board (`4453`);
    /// an empty string is the start.
    fn parse_position(&self, text: &str) -> Result<Connect4, GameError> {
        Connect4::start().play_digits(text.trim())
    }

    fn render(&self) -> String {
        let first = self.stones_of(Side::First);
        let second = self.stones_of(Side::Second);
        let mut out = String::new();
        for row in (0..HEIGHT).rev() {
            for col in 0..WIDTH {
                let bit = 1u64 << (col * H1 + row);
                out.push(if first & bit != 0 {
                    'X'
                } else if second & bit != 0 {
                    'O'
                } else {
                    '.'
                });
                out.push(' ');
            }
            out.pop();
            out.push('\n');
        }
        out.push_str("1 2 3 4 5 6 7\n");
        out.push_str(super::to_move_or_result(self));
        out.push('\n');
        out
    }

    /// A move is one digit (`4453`).
    fn first_move_len(&self, run: &str) -> usize {
        run.chars().next().map_or(0, char::len_utf8)
    }

    fn play_sequence(&self, text: &str) -> Result<Connect4, GameError> {
        let digits: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ',')
            .collect();
        self.play_digits(&digits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_in_a_row_in_every_direction_ends_the_game() {
        for (moves, winner) in [
            ("1212121", Side::First),     // vertical
            ("1122334", Side::First),     // horizontal
            ("12234334454", Side::First), // diagonal /
            ("76654554434", Side::First), // diagonal \
            ("12121252", Side::Second),   // vertical for the second player
        ] {
            let pos = Connect4::start().play_digits(moves).unwrap();
            assert_eq!(pos.outcome(), Some(Outcome::win(winner)), "{moves}");
            assert_eq!(pos.move_count(), 0);
        }
        let pos = Connect4::start().play_digits("123456712").unwrap();
        assert_eq!(pos.outcome(), None);
    }

    #[test]
    fn a_full_column_and_play_after_a_win_are_refused() {
        let err = Connect4::start()
            .play_digits("4444444")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("move 7") && err.contains("column 4 is full"),
            "{err}"
        );
        let err = Connect4::start()
            .play_digits("12121212")
            .unwrap_err()
            .to_string();
        assert!(err.contains("already won"), "{err}");
        let err = Connect4::start().play_digits("18").unwrap_err().to_string();
        assert!(err.contains("column 1..7"), "{err}");
    }

    #[test]
    fn full_board_without_four_is_a_draw() {
        // Random playouts until one fills the board with nobody aligning four.
        let mut state = 7u64;
        let drawn = (0..100_000).find_map(|_| {
            let mut pos = Connect4::start();
            loop {
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    return (pos.outcome() == Some(Outcome::DRAW)).then_some(pos);
                }
                state = mix64(state);
                pos = pos.play(moves[(state % moves.len() as u64) as usize]);
            }
        });
        let pos = drawn.expect("some random game ends in a draw");
        assert_eq!(pos.stones(), 42);
        assert!(!pos.last_move_won());
    }
}

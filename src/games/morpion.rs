//! The m,n,k game ("morpion"): `rows` × `cols` cells, `k` marks in a row win. 3×3 with k = 3 is
//! tic-tac-toe; 15×15 with k = 5 is gomoku. A [`Rule`] says which lines win: `k` or more
//! (freestyle, the default), exactly `k` (standard gomoku), or renju's (exactly five for the
//! first player, who may not make an overline, a double four or a double three; five or more
//! for the second; see [`super::renju`]).
//!
//! Cell `row * cols + col` is one bit of a 256-bit set (four `u64` words); X moves first (black
//! in gomoku and renju).

use super::hash::combine;
use super::padded::{STRIDE, padded, shift_left, shift_right};
use super::renju;
use super::{Game, GameError, MoveList, Outcome, Side};

/// The largest number of rows or columns.
pub const MAX_SIDE: u8 = 15;

/// A set of cells.
type Cells = [u64; 4];

#[inline]
fn has(cells: &Cells, i: usize) -> bool {
    cells[i >> 6] >> (i & 63) & 1 == 1
}

/// Which lines win and what a player may not do: the gomoku rules Gomocup plays.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `k` or more in a row win, for both players (freestyle gomoku; every m,n,k game).
    #[default]
    Freestyle,
    /// Exactly `k` in a row win, for both players; a longer line wins nothing (standard
    /// gomoku).
    Exact,
    /// Renju (`k` = 5): the first player (black, X) wins with exactly five and may not make an
    /// overline, a double four or a double three (unless the move also makes a five); the
    /// second wins with five or more and may play anywhere.
    Renju,
}

impl Rule {
    /// The rule's name in game names (`morpion-15x15-5-exact`): `freestyle`, `exact`, `renju`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Exact => "exact",
            Rule::Renju => "renju",
        }
    }

    /// The Gomocup protocol's number for the rule (`INFO rule`, a bit set: 1 exactly five,
    /// 4 renju).
    pub fn gomocup(self) -> u32 {
        match self {
            Rule::Freestyle => 0,
            Rule::Exact => 1,
            Rule::Renju => 4,
        }
    }

    /// Whether `side` wins only with exactly `k` in a row.
    #[inline]
    fn exact_for(self, side: Side) -> bool {
        match self {
            Rule::Freestyle => false,
            Rule::Exact => true,
            Rule::Renju => side == Side::First,
        }
    }
}

/// A Morpion move: the cell index `row * cols + col`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cell(pub u8);

/// A Morpion position, carrying its board size and `k`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Morpion {
    marks: [Cells; 2],
    rows: u8,
    cols: u8,
    k: u8,
    rule: Rule,
    plies: u8,
    winner: Option<Side>,
}

impl Morpion {
    /// The empty board of the given size, freestyle (`k` or more in a row win); the arguments
    /// must satisfy the bounds that [`super::GameKind::parse`] checks.
    pub fn start(rows: u8, cols: u8, k: u8) -> Morpion {
        Morpion::with_rule(rows, cols, k, Rule::Freestyle)
    }

    /// The empty board of the given size under `rule` (renju needs `k` = 5).
    pub fn with_rule(rows: u8, cols: u8, k: u8, rule: Rule) -> Morpion {
        assert!((1..=MAX_SIDE).contains(&rows) && (1..=MAX_SIDE).contains(&cols));
        assert!(k >= 1 && k <= rows.max(cols));
        assert!(rule != Rule::Renju || k == 5, "renju is five in a row");
        Morpion {
            marks: [[0; 4]; 2],
            rows,
            cols,
            k,
            rule,
            plies: 0,
            winner: None,
        }
    }

    /// Which lines win.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Number of rows.
    pub fn rows(&self) -> u8 {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> u8 {
        self.cols
    }

    /// Marks in a row needed to win.
    pub fn k(&self) -> u8 {
        self.k
    }

    /// The cells marked by `side`, as a 256-bit set: cell `i` is bit `i % 64` of word `i / 64`.
    #[inline]
    pub fn marks(&self, side: Side) -> [u64; 4] {
        self.marks[side as usize]
    }

    /// Number of cells.
    #[inline]
    pub fn cells(&self) -> usize {
        self.rows as usize * self.cols as usize
    }

    /// Whether `side` has a mark on cell `i`.
    #[inline]
    pub fn mark_at(&self, i: usize) -> Option<Side> {
        if has(&self.marks[0], i) {
            Some(Side::First)
        } else if has(&self.marks[1], i) {
            Some(Side::Second)
        } else {
            None
        }
    }

    /// Whether the mark of `side` on `cell` belongs to a winning line: at least `k` marks of
    /// `side`, or exactly `k` where the rule says so.
    #[inline]
    fn completes_line(&self, side: Side, cell: usize) -> bool {
        let own = &self.marks[side as usize];
        let (rows, cols) = (self.rows as i32, self.cols as i32);
        let (r0, c0) = (
            (cell / self.cols as usize) as i32,
            (cell % self.cols as usize) as i32,
        );
        let run = |dr: i32, dc: i32| {
            let (mut r, mut c, mut n) = (r0 + dr, c0 + dc, 0);
            while r >= 0 && r < rows && c >= 0 && c < cols && has(own, (r * cols + c) as usize) {
                n += 1;
                r += dr;
                c += dc;
            }
            n
        };
        let lines = [(0, 1), (1, 0), (1, 1), (1, -1)];
        let k = self.k as i32;
        if self.rule.exact_for(side) {
            lines
                .iter()
                .any(|&(dr, dc)| 1 + run(dr, dc) + run(-dr, -dc) == k)
        } else {
            lines
                .iter()
                .any(|&(dr, dc)| 1 + run(dr, dc) + run(-dr, -dc) >= k)
        }
    }

    /// Whether renju's forbidden points apply to the side to move: black (X) to move under
    /// renju with at least four stones down (every forbidden shape needs four besides the new
    /// one).
    #[inline]
    fn forbids(&self) -> bool {
        self.rule == Rule::Renju && self.plies >= 8 && self.plies.is_multiple_of(2)
    }

    /// The empty cells where the side to move may not play (renju's forbidden points for black;
    /// none otherwise), as a set of cells.
    pub fn forbidden(&self) -> [u64; 4] {
        if !self.forbids() || self.winner.is_some() {
            return [0; 4];
        }
        self.forbidden_points()
    }

    /// Renju's forbidden points for black, out of line: the freestyle paths that test for
    /// them stay small.
    #[inline(never)]
    fn forbidden_points(&self) -> [u64; 4] {
        renju::forbidden_points(
            &self.marks[0],
            &self.marks[1],
            self.rows as usize,
            self.cols as usize,
        )
    }

    /// Whether the empty `cell` is one of renju's forbidden points for the side to move.
    pub fn is_forbidden(&self, cell: usize) -> bool {
        self.forbids()
            && self.mark_at(cell).is_none()
            && renju::is_forbidden(
                &self.marks[0],
                &self.marks[1],
                self.rows as usize,
                self.cols as usize,
                cell,
            )
    }

    /// Appends the empty cells not in `forbidden`, in cell order.
    #[inline(always)]
    fn push_moves(&self, moves: &mut MoveList<Cell>, forbidden: [u64; 4]) {
        let n = self.cells();
        for (w, (&x, &o)) in self.marks[0].iter().zip(&self.marks[1]).enumerate() {
            let base = w * 64;
            if base >= n {
                break;
            }
            let valid = if n - base >= 64 {
                u64::MAX
            } else {
                (1u64 << (n - base)) - 1
            };
            let mut empty = !(x | o | forbidden[w]) & valid;
            while empty != 0 {
                // At most 225 cells, below MoveList's capacity.
                unsafe {
                    moves.push_unchecked(Cell((base + empty.trailing_zeros() as usize) as u8))
                };
                empty &= empty - 1;
            }
        }
    }

    fn cell_name(&self, cell: usize) -> String {
        let cols = self.cols as usize;
        format!(
            "{}{}",
            (b'a' + (cell % cols) as u8) as char,
            cell / cols + 1
        )
    }

    fn position_error(&self, reason: String) -> GameError {
        GameError::BadPosition {
            game: self.name(),
            reason,
        }
    }
}

impl Game for Morpion {
    type Move = Cell;

    fn name(&self) -> String {
        super::GameKind::Morpion {
            rows: self.rows,
            cols: self.cols,
            k: self.k,
            rule: self.rule,
        }
        .to_string()
    }

    #[inline]
    fn side_to_move(&self) -> Side {
        if self.plies.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        }
    }

    /// The cells within `radius` of a mark: the marks' board grown one cell in the eight
    /// directions `radius` times, on the padded board (its zero column keeps rows apart).
    fn retain_near(&self, moves: &mut MoveList<Cell>, radius: u32) {
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        let all = [
            self.marks[0][0] | self.marks[1][0],
            self.marks[0][1] | self.marks[1][1],
            self.marks[0][2] | self.marks[1][2],
            self.marks[0][3] | self.marks[1][3],
        ];
        if all == [0; 4] || radius == 0 {
            return;
        }
        let on_board = padded(&[!0; 4], rows, cols);
        let mut near = padded(&all, rows, cols);
        for _ in 0..radius.min(MAX_SIDE as u32) {
            let (left, right) = (shift_left(&near, 1), shift_right(&near, 1, 4));
            let row: [u64; 4] =
                std::array::from_fn(|w| (near[w] | left[w] | right[w]) & on_board[w]);
            let (down, up) = (shift_left(&row, STRIDE), shift_right(&row, STRIDE, 4));
            near = std::array::from_fn(|w| (row[w] | down[w] | up[w]) & on_board[w]);
        }
        let at = |cell: usize| {
            let bit = cell / cols * STRIDE + cell % cols;
            near[bit >> 6] >> (bit & 63) & 1 == 1
        };
        if moves.iter().any(|m| at(m.0 as usize)) {
            moves.retain(|m| at(m.0 as usize));
        }
    }

    fn legal_moves(&self, moves: &mut MoveList<Cell>) {
        if self.winner.is_some() {
            return;
        }
        // Freestyle and exact stay on the plain path: one test of the rule.
        if self.forbids() {
            self.push_moves(moves, self.forbidden_points());
        } else {
            self.push_moves(moves, [0; 4]);
        }
    }

    #[inline]
    fn move_count(&self) -> usize {
        if self.winner.is_some() {
            0
        } else if self.forbids() {
            let forbidden: u32 = self.forbidden_points().iter().map(|w| w.count_ones()).sum();
            self.cells() - self.plies as usize - forbidden as usize
        } else {
            self.cells() - self.plies as usize
        }
    }

    #[inline]
    fn play(&self, mv: Cell) -> Morpion {
        let side = self.side_to_move();
        let i = mv.0 as usize;
        let mut next = *self;
        next.marks[side as usize][i >> 6] |= 1 << (i & 63);
        next.plies += 1;
        if next.completes_line(side, i) {
            next.winner = Some(side);
        }
        next
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.winner {
            Some(side) => Some(Outcome::win(side)),
            None if self.plies as usize == self.cells() => Some(Outcome::DRAW),
            // Black with every empty point forbidden can neither move nor make five: a draw,
            // as on a full board.
            None if self.forbids()
                && !renju::has_allowed_point(
                    &self.marks[0],
                    &self.marks[1],
                    self.rows as usize,
                    self.cols as usize,
                ) =>
            {
                Some(Outcome::DRAW)
            }
            None => None,
        }
    }

    #[inline]
    fn hash_key(&self) -> u64 {
        // Freestyle is rule 0, so its keys are those of the game before rules existed.
        let mut h = combine(
            self.rows as u64,
            (self.rule as u64) << 16 | (self.cols as u64) << 8 | self.k as u64,
        );
        for w in 0..4 {
            h = combine(h, self.marks[0][w]);
            h = combine(h, self.marks[1][w]);
        }
        h
    }

    /// A cell is a column letter and the row's digits (`a1b2c10`).
    fn first_move_len(&self, run: &str) -> usize {
        let letter = run.chars().next().map_or(0, char::len_utf8);
        letter + run[letter..].bytes().take_while(u8::is_ascii_digit).count()
    }

    fn parse_move(&self, text: &str) -> Result<Cell, GameError> {
        let bad = |reason: String| GameError::BadMove {
            game: self.name(),
            text: text.into(),
            reason,
        };
        let last_col = (b'a' + self.cols - 1) as char;
        let shape = || {
            bad(format!(
                "a move is a cell a1..{last_col}{} (column letter, row number from the top)",
                self.rows
            ))
        };
        let mut chars = text.trim().chars();
        let col = chars
            .next()
            .map(|c| c.to_ascii_lowercase() as i32 - 'a' as i32)
            .ok_or_else(shape)?;
        let row = chars.as_str().parse::<i32>().map_err(|_| shape())? - 1;
        if !(0..self.cols as i32).contains(&col) || !(0..self.rows as i32).contains(&row) {
            return Err(shape());
        }
        let cell = (row * self.cols as i32 + col) as usize;
        if self.outcome().is_some() {
            return Err(bad("the game is over".into()));
        }
        if self.mark_at(cell).is_some() {
            return Err(bad(format!("{} is taken", self.cell_name(cell))));
        }
        if self.is_forbidden(cell) {
            return Err(bad(format!(
                "{} is a forbidden point: renju forbids X (black) an overline, a double four and a double three",
                self.cell_name(cell)
            )));
        }
        Ok(Cell(cell as u8))
    }

    #[inline]
    fn move_index(&self, mv: Cell) -> usize {
        mv.0 as usize
    }

    fn format_move(&self, mv: Cell) -> String {
        self.cell_name(mv.0 as usize)
    }

    /// A position is the board, row by row from the top: `X`, `O`, and `.` or `-` for an empty
    /// cell, rows optionally separated by `/` or white space (`X.O/.X./...`). The side to move
    /// follows from the counts: X moves first.
    fn parse_position(&self, text: &str) -> Result<Morpion, GameError> {
        let mut pos = Morpion::with_rule(self.rows, self.cols, self.k, self.rule);
        let mut counts = [0usize; 2];
        let mut cell = 0usize;
        for c in text.chars().filter(|c| !c.is_whitespace() && *c != '/') {
            let side = match c {
                'X' | 'x' => Some(Side::First),
                'O' | 'o' => Some(Side::Second),
                '.' | '-' | '_' => None,
                _ => {
                    return Err(pos.position_error(format!(
                        "character '{c}' is not allowed; use X, O, and . or - for an empty cell"
                    )));
                }
            };
            if cell >= pos.cells() {
                cell += 1;
                continue;
            }
            if let Some(side) = side {
                pos.marks[side as usize][cell >> 6] |= 1 << (cell & 63);
                counts[side as usize] += 1;
            }
            cell += 1;
        }
        if cell != pos.cells() {
            return Err(pos.position_error(format!(
                "the board has {cell} cells; a {}x{} board needs {}",
                self.rows,
                self.cols,
                pos.cells()
            )));
        }
        let (x, o) = (counts[0], counts[1]);
        if x != o && x != o + 1 {
            return Err(pos.position_error(format!(
                "X has {x} marks and O has {o}; X moves first, so X has as many marks as O or one more"
            )));
        }
        pos.plies = (x + o) as u8;
        let won = |side: Side| {
            (0..pos.cells())
                .any(|i| has(&pos.marks[side as usize], i) && pos.completes_line(side, i))
        };
        let (first, second) = (won(Side::First), won(Side::Second));
        if self.rule == Rule::Renju
            && !first
            && renju::has_overline(&pos.marks[0], pos.rows as usize, pos.cols as usize)
        {
            return Err(pos.position_error(
                "X has six or more in a row, an overline, which renju forbids X".into(),
            ));
        }
        match (first, second) {
            (true, true) => {
                return Err(pos.position_error("both X and O have a line".into()));
            }
            (true, false) if x != o + 1 => {
                return Err(pos.position_error(
                    "X has a line but O has moved since; X's line must be the last move".into(),
                ));
            }
            (false, true) if x != o => {
                return Err(pos.position_error(
                    "O has a line but X has moved since; O's line must be the last move".into(),
                ));
            }
            (true, false) => pos.winner = Some(Side::First),
            (false, true) => pos.winner = Some(Side::Second),
            (false, false) => {}
        }
        Ok(pos)
    }

    fn render(&self) -> String {
        let cols = self.cols as usize;
        let mut out = String::from("   ");
        for c in 0..cols {
            out.push(' ');
            out.push((b'a' + c as u8) as char);
        }
        out.push('\n');
        for r in 0..self.rows as usize {
            out.push_str(&format!("{:>3}", r + 1));
            for c in 0..cols {
                out.push(' ');
                out.push(match self.mark_at(r * cols + c) {
                    Some(Side::First) => 'X',
                    Some(Side::Second) => 'O',
                    None => '.',
                });
            }
            out.push('\n');
        }
        out.push_str(super::to_move_or_result(self));
        if self.outcome().is_none() {
            out.push_str(&match self.rule {
                Rule::Freestyle => format!(", {} in a row wins", self.k),
                Rule::Exact => format!(", exactly {} in a row wins", self.k),
                Rule::Renju => ", renju rules".to_string(),
            });
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_may_run_together() {
        let start = Morpion::start(15, 15, 5);
        let cut: Vec<&str> = crate::games::split_run(&start, "a1o15b10")
            .into_iter()
            .map(|(_, m)| m)
            .collect();
        assert_eq!(cut, ["a1", "o15", "b10"]);
        let run = start.play_sequence("h8i9 a10").unwrap();
        let spaced = start.play_sequence("h8 i9 a10").unwrap();
        assert_eq!(run, spaced);
        assert_eq!(run.mark_at(7 * 15 + 7), Some(Side::First));
        assert_eq!(run.mark_at(8 * 15 + 8), Some(Side::Second));
        assert_eq!(run.mark_at(9 * 15), Some(Side::First));
        let err = start.play_sequence("h8h8").unwrap_err().to_string();
        assert!(err.contains("'h8': h8 is taken"), "{err}");
    }

    #[test]
    fn three_in_a_row_wins_and_ends_the_game() {
        let pos = Morpion::start(3, 3, 3)
            .play_sequence("a1 a2 b1 b2 c1")
            .unwrap();
        assert_eq!(pos.outcome(), Some(Outcome::win(Side::First)));
        assert_eq!(pos.move_count(), 0);
        let diag = Morpion::start(3, 3, 3)
            .play_sequence("c1 a1 b2 a2 a3")
            .unwrap();
        assert_eq!(diag.outcome(), Some(Outcome::win(Side::First)));
    }

    #[test]
    fn near_moves_are_the_cells_a_kings_walk_from_a_mark() {
        for (rows, cols, sequence) in [
            (15, 15, "h8 a1 o15 g7"),
            (15, 15, "a15 o1"),
            (7, 9, "i7 a1 e4"),
            (3, 3, ""),
        ] {
            let pos = Morpion::start(rows, cols, 5.min(rows.max(cols)))
                .play_sequence(sequence)
                .unwrap();
            let mut all = MoveList::new();
            pos.legal_moves(&mut all);
            for radius in 0..4i32 {
                let mut near = all.clone();
                pos.retain_near(&mut near, radius as u32);
                // Cell by cell: a mark within `radius` rows and columns.
                let c = cols as i32;
                let marked: Vec<i32> = (0..pos.cells() as i32)
                    .filter(|&i| pos.mark_at(i as usize).is_some())
                    .collect();
                let slow: Vec<Cell> = all
                    .iter()
                    .copied()
                    .filter(|m| {
                        let (r0, c0) = (m.0 as i32 / c, m.0 as i32 % c);
                        radius == 0
                            || marked.is_empty()
                            || marked.iter().any(|&i| {
                                (i / c - r0).abs() <= radius && (i % c - c0).abs() <= radius
                            })
                    })
                    .collect();
                assert_eq!(
                    near.to_vec(),
                    slow,
                    "{rows}x{cols} '{sequence}' radius {radius}"
                );
            }
        }
        // h8 alone: the 24 cells around it within 2.
        let pos = Morpion::start(15, 15, 5).play_sequence("h8").unwrap();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        pos.retain_near(&mut moves, 2);
        assert_eq!(moves.len(), 24);
    }

    #[test]
    fn cells_are_named_by_column_letter_and_row_from_the_top() {
        let pos = Morpion::start(15, 15, 5);
        let mv = pos.parse_move("o15").unwrap();
        assert_eq!(mv, Cell(224));
        assert_eq!(pos.format_move(mv), "o15");
        assert!(pos.parse_move("p1").is_err());
        assert!(pos.parse_move("a16").is_err());
    }

    #[test]
    fn boards_are_read_with_their_side_to_move() {
        let start = Morpion::start(3, 3, 3);
        let pos = start.parse_position("X.O/.X./...").unwrap();
        assert_eq!(pos.side_to_move(), Side::Second);
        let err = start.parse_position("XX./.X./...").unwrap_err().to_string();
        assert!(err.contains("X has 3 marks and O has 0"), "{err}");
        let err = start.parse_position("X.O/.X.").unwrap_err().to_string();
        assert!(err.contains("needs 9"), "{err}");
        let won = start.parse_position("XXX/OO./...").unwrap();
        assert_eq!(won.outcome(), Some(Outcome::win(Side::First)));
    }
}

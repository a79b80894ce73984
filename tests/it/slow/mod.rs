//! Deliberately plain implementations of the three games (arrays of cells, loops over every
//! direction, no bit tricks), written independently of `src/games/` to check its move
//! generation, perft counts and outcomes.

#![allow(dead_code)] // Each game's reference is complete (moves by name, play); suites use subsets.

pub mod renju;

/// 0 empty, 1 the first player (black, X), 2 the second.
pub type CellValue = u8;

fn other(p: CellValue) -> CellValue {
    3 - p
}

/// The eight directions of a board, as (row, column) steps.
pub const DIRECTIONS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// Othello on an 8×8 array; `board[row][col]`, row 0 is row 1 of the notation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SlowOthello {
    pub board: [[CellValue; 8]; 8],
    pub to_move: CellValue,
}

impl SlowOthello {
    pub fn start() -> Self {
        let mut board = [[0; 8]; 8];
        board[3][3] = 2; // d4 white
        board[4][4] = 2; // e5 white
        board[4][3] = 1; // d5 black
        board[3][4] = 1; // e4 black
        SlowOthello { board, to_move: 1 }
    }

    fn flips_for(&self, player: CellValue, r: usize, c: usize) -> Vec<(usize, usize)> {
        if self.board[r][c] != 0 {
            return vec![];
        }
        let mut all = vec![];
        for (dr, dc) in DIRECTIONS {
            let mut run = vec![];
            let (mut rr, mut cc) = (r as i32 + dr, c as i32 + dc);
            while (0..8).contains(&rr) && (0..8).contains(&cc) {
                let v = self.board[rr as usize][cc as usize];
                if v == other(player) {
                    run.push((rr as usize, cc as usize));
                } else {
                    if v == player && !run.is_empty() {
                        all.extend(run);
                    }
                    break;
                }
                rr += dr;
                cc += dc;
            }
        }
        all
    }

    fn squares_for(&self, player: CellValue) -> Vec<(usize, usize)> {
        let mut out = vec![];
        for r in 0..8 {
            for c in 0..8 {
                if !self.flips_for(player, r, c).is_empty() {
                    out.push((r, c));
                }
            }
        }
        out
    }

    /// Legal moves as square names, `pass` when only a pass is legal, none when the game is over.
    pub fn moves(&self) -> Vec<String> {
        let own = self.squares_for(self.to_move);
        if !own.is_empty() {
            return own
                .iter()
                .map(|&(r, c)| format!("{}{}", (b'a' + c as u8) as char, r + 1))
                .collect();
        }
        if !self.squares_for(other(self.to_move)).is_empty() {
            return vec!["pass".into()];
        }
        vec![]
    }

    pub fn play(&self, mv: &str) -> Self {
        let mut next = self.clone();
        if mv != "pass" {
            let b = mv.as_bytes();
            let (c, r) = ((b[0] - b'a') as usize, (b[1] - b'1') as usize);
            for (fr, fc) in self.flips_for(self.to_move, r, c) {
                next.board[fr][fc] = self.to_move;
            }
            next.board[r][c] = self.to_move;
        }
        next.to_move = other(self.to_move);
        next
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves()
            .iter()
            .map(|m| self.play(m).perft(depth - 1))
            .sum()
    }

    /// The 64-character board string and the side to move, as endgame suites write them.
    pub fn board_string(&self) -> String {
        let mut s = String::new();
        for row in &self.board {
            for &v in row {
                s.push(match v {
                    1 => 'X',
                    2 => 'O',
                    _ => '-',
                });
            }
        }
        s.push(' ');
        s.push(if self.to_move == 1 { 'X' } else { 'O' });
        s
    }

    /// Final disc difference for black, empties to the winner, once nobody can move.
    pub fn final_score(&self) -> Option<i32> {
        if !self.moves().is_empty() {
            return None;
        }
        let count = |p| self.board.iter().flatten().filter(|&&v| v == p).count() as i32;
        let (b, w) = (count(1), count(2));
        let e = 64 - b - w;
        Some(if b > w {
            b - w + e
        } else if w > b {
            b - w - e
        } else {
            0
        })
    }
}

/// Connect 4 on a 7×6 grid: `grid[col][row]`, row 0 at the bottom.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SlowConnect4 {
    pub grid: [[CellValue; 6]; 7],
    pub to_move: CellValue,
    pub winner: CellValue,
}

impl SlowConnect4 {
    pub fn start() -> Self {
        SlowConnect4 {
            grid: [[0; 6]; 7],
            to_move: 1,
            winner: 0,
        }
    }

    fn height(&self, col: usize) -> usize {
        self.grid[col].iter().take_while(|&&v| v != 0).count()
    }

    pub fn full(&self) -> bool {
        (0..7).all(|c| self.height(c) == 6)
    }

    /// Legal columns 1..=7.
    pub fn moves(&self) -> Vec<usize> {
        if self.winner != 0 {
            return vec![];
        }
        (0..7)
            .filter(|&c| self.height(c) < 6)
            .map(|c| c + 1)
            .collect()
    }

    fn four_of(&self, p: CellValue) -> bool {
        for c in 0..7i32 {
            for r in 0..6i32 {
                for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    if (0..4).all(|i| {
                        let (cc, rr) = (c + dc * i, r + dr * i);
                        (0..7).contains(&cc)
                            && (0..6).contains(&rr)
                            && self.grid[cc as usize][rr as usize] == p
                    }) {
                        return true;
                    }
                }
            }
        }
        false
    }

    pub fn play(&self, col: usize) -> Self {
        let mut next = self.clone();
        let h = self.height(col - 1);
        next.grid[col - 1][h] = self.to_move;
        if next.four_of(self.to_move) {
            next.winner = self.to_move;
        }
        next.to_move = other(self.to_move);
        next
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves()
            .iter()
            .map(|&m| self.play(m).perft(depth - 1))
            .sum()
    }
}

/// The m,n,k game on a vector of cells, row by row.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SlowMnk {
    pub rows: usize,
    pub cols: usize,
    pub k: usize,
    pub cells: Vec<CellValue>,
    pub to_move: CellValue,
    pub winner: CellValue,
}

impl SlowMnk {
    pub fn start(rows: usize, cols: usize, k: usize) -> Self {
        SlowMnk {
            rows,
            cols,
            k,
            cells: vec![0; rows * cols],
            to_move: 1,
            winner: 0,
        }
    }

    fn empty_cells(&self) -> Vec<usize> {
        if self.winner != 0 {
            return vec![];
        }
        (0..self.cells.len())
            .filter(|&i| self.cells[i] == 0)
            .collect()
    }

    /// Legal cells as names `a1`.. (column letter, row from the top).
    pub fn moves(&self) -> Vec<String> {
        self.empty_cells()
            .into_iter()
            .map(|i| {
                format!(
                    "{}{}",
                    (b'a' + (i % self.cols) as u8) as char,
                    i / self.cols + 1
                )
            })
            .collect()
    }

    fn has_line(&self, p: CellValue) -> bool {
        let (rows, cols, k) = (self.rows as i32, self.cols as i32, self.k as i32);
        for r in 0..rows {
            for c in 0..cols {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    if (0..k).all(|i| {
                        let (rr, cc) = (r + dr * i, c + dc * i);
                        (0..rows).contains(&rr)
                            && (0..cols).contains(&cc)
                            && self.cells[(rr * cols + cc) as usize] == p
                    }) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn play_cell(&self, cell: usize) -> Self {
        let mut next = self.clone();
        next.cells[cell] = self.to_move;
        if next.has_line(self.to_move) {
            next.winner = self.to_move;
        }
        next.to_move = other(self.to_move);
        next
    }

    pub fn play(&self, mv: &str) -> Self {
        let b = mv.as_bytes();
        let col = (b[0] - b'a') as usize;
        let row: usize = mv[1..].parse::<usize>().unwrap() - 1;
        self.play_cell(row * self.cols + col)
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.empty_cells()
            .into_iter()
            .map(|i| self.play_cell(i).perft(depth - 1))
            .sum()
    }
}

//! A plain referee of five in a row under the three Gomocup rules — freestyle (five or more
//! win), exact (exactly five win) and renju — written from the RIF definitions, independently
//! of `src/games/renju.rs`: a grid of rows, whole lines walked cell by cell, fours and threes
//! found by trying every empty point of the line and comparing the stones of the fives they
//! make, no windows, no bit tricks, no candidate filter.

use super::CellValue;

/// The rule played.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SlowRule {
    Freestyle,
    Exact,
    Renju,
}

const LINES: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// A position: `grid[row][col]`, 0 empty, 1 black (X, first), 2 white.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SlowFive {
    pub rows: usize,
    pub cols: usize,
    pub rule: SlowRule,
    pub grid: Vec<Vec<CellValue>>,
    pub to_move: CellValue,
    pub winner: CellValue,
    pub over: bool,
}

/// A set of stones, sorted.
type Stones = Vec<(i32, i32)>;

impl SlowFive {
    pub fn start(rows: usize, cols: usize, rule: SlowRule) -> Self {
        SlowFive {
            rows,
            cols,
            rule,
            grid: vec![vec![0; cols]; rows],
            to_move: 1,
            winner: 0,
            over: false,
        }
    }

    /// A position from a board text (`X`, `O`, `.`, rows from the top, `/` or white space
    /// between rows), black to move when the counts are equal.
    pub fn from_board(rows: usize, cols: usize, rule: SlowRule, text: &str) -> Self {
        let mut pos = SlowFive::start(rows, cols, rule);
        let marks: Vec<char> = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '/')
            .collect();
        assert_eq!(marks.len(), rows * cols);
        let (mut x, mut o) = (0, 0);
        for (i, m) in marks.into_iter().enumerate() {
            pos.grid[i / cols][i % cols] = match m {
                'X' => {
                    x += 1;
                    1
                }
                'O' => {
                    o += 1;
                    2
                }
                _ => 0,
            };
        }
        pos.to_move = if x == o { 1 } else { 2 };
        pos
    }

    fn on(&self, r: i32, c: i32) -> bool {
        r >= 0 && c >= 0 && (r as usize) < self.rows && (c as usize) < self.cols
    }

    fn at(&self, r: i32, c: i32) -> CellValue {
        if self.on(r, c) {
            self.grid[r as usize][c as usize]
        } else {
            3
        }
    }

    /// The stones of `color` in an unbroken row through (r, c) along a line, (r, c) included.
    fn row_through(&self, r: i32, c: i32, (dr, dc): (i32, i32), color: CellValue) -> Stones {
        let mut row = vec![(r, c)];
        for sign in [1, -1] {
            let (mut rr, mut cc) = (r + sign * dr, c + sign * dc);
            while self.at(rr, cc) == color {
                row.push((rr, cc));
                rr += sign * dr;
                cc += sign * dc;
            }
        }
        row.sort();
        row
    }

    /// Every point of the line through (r, c), the board's edge to edge.
    fn line_points(&self, r: i32, c: i32, (dr, dc): (i32, i32)) -> Vec<(i32, i32)> {
        let (mut r0, mut c0) = (r, c);
        while self.on(r0 - dr, c0 - dc) {
            r0 -= dr;
            c0 -= dc;
        }
        let mut points = Vec::new();
        while self.on(r0, c0) {
            points.push((r0, c0));
            r0 += dr;
            c0 += dc;
        }
        points
    }

    fn with(&self, r: i32, c: i32, color: CellValue) -> SlowFive {
        let mut next = self.clone();
        next.grid[r as usize][c as usize] = color;
        next
    }

    /// The longest unbroken row of black through (r, c), black there.
    fn longest(&self, r: i32, c: i32) -> usize {
        LINES
            .iter()
            .map(|&l| self.row_through(r, c, l, 1).len())
            .max()
            .unwrap()
    }

    /// The fours black has along a line through `holding[0]`, holding every stone of
    /// `holding`: for each empty point of the line that makes an unbroken row of exactly five
    /// holding them, that row without the point. A straight four is listed twice (two points
    /// make fives of the same four stones).
    fn fours(&self, holding: &[(i32, i32)], line: (i32, i32)) -> Vec<Stones> {
        let (r, c) = holding[0];
        let mut found: Vec<Stones> = Vec::new();
        for (er, ec) in self.line_points(r, c, line) {
            if self.at(er, ec) != 0 {
                continue;
            }
            let after = self.with(er, ec, 1);
            let five = after.row_through(er, ec, line, 1);
            if five.len() == 5 && holding.iter().all(|p| five.contains(p)) {
                found.push(five.into_iter().filter(|&p| p != (er, ec)).collect());
            }
        }
        found
    }

    /// The number of different fours in `fours`.
    fn distinct(mut fours: Vec<Stones>) -> usize {
        fours.sort();
        fours.dedup();
        fours.len()
    }

    /// Whether black has a straight four along the line holding every stone of `holding`.
    fn straight_four(&self, holding: &[(i32, i32)], line: (i32, i32)) -> bool {
        let fours = self.fours(holding, line);
        Self::distinct(fours.clone()) < fours.len()
    }

    /// Whether a black stone on the empty (r, c) makes a five.
    fn black_five(&self, r: i32, c: i32) -> bool {
        let after = self.with(r, c, 1);
        LINES
            .iter()
            .any(|&l| after.row_through(r, c, l, 1).len() == 5)
    }

    /// Whether black may not play on the empty (r, c) under renju.
    pub fn forbidden(&self, r: i32, c: i32) -> bool {
        if self.black_five(r, c) {
            return false;
        }
        let after = self.with(r, c, 1);
        if after.longest(r, c) >= 6 {
            return true;
        }
        let fours: Vec<usize> = LINES
            .iter()
            .map(|&l| Self::distinct(after.fours(&[(r, c)], l)))
            .collect();
        if fours.iter().sum::<usize>() >= 2 {
            return true;
        }
        let mut threes = 0;
        for (i, &line) in LINES.iter().enumerate() {
            if fours[i] > 0 {
                continue;
            }
            let three = after.line_points(r, c, line).into_iter().any(|(qr, qc)| {
                after.at(qr, qc) == 0
                    && !after.black_five(qr, qc)
                    && after
                        .with(qr, qc, 1)
                        .straight_four(&[(r, c), (qr, qc)], line)
                    && !after.forbidden(qr, qc)
            });
            if three {
                threes += 1;
            }
        }
        threes >= 2
    }

    /// The legal moves, as names (`a1`: column letter, row from the top), in cell order.
    pub fn moves(&self) -> Vec<String> {
        if self.over {
            return vec![];
        }
        let mut out = Vec::new();
        for r in 0..self.rows as i32 {
            for c in 0..self.cols as i32 {
                if self.at(r, c) != 0 {
                    continue;
                }
                if self.rule == SlowRule::Renju && self.to_move == 1 && self.forbidden(r, c) {
                    continue;
                }
                out.push(format!("{}{}", (b'a' + c as u8) as char, r + 1));
            }
        }
        out
    }

    /// Plays a legal move given by name; the game ends on a win, a full board, or (renju)
    /// black to move with every empty point forbidden.
    pub fn play(&self, mv: &str) -> Self {
        let c = (mv.as_bytes()[0] - b'a') as i32;
        let r = mv[1..].parse::<i32>().unwrap() - 1;
        let color = self.to_move;
        let mut next = self.with(r, c, color);
        let exact = match self.rule {
            SlowRule::Freestyle => false,
            SlowRule::Exact => true,
            SlowRule::Renju => color == 1,
        };
        let won = LINES.iter().any(|&l| {
            let n = next.row_through(r, c, l, color).len();
            if exact { n == 5 } else { n >= 5 }
        });
        next.to_move = 3 - color;
        if won {
            next.winner = color;
            next.over = true;
        } else if next.moves().is_empty() {
            next.over = true;
        }
        next
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|m| self.play(m).perft(depth - 1)).sum()
    }
}

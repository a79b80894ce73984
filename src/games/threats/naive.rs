//! Slow, plain judgements of the same threats, for the tests of this module and of the threat
//! searches: stones placed in a list beside the position, every line walked cell by cell.
//! Renju's forbidden points come from [`renju::is_forbidden`] (tested on its own).

use super::super::morpion::{Morpion, Rule};
use super::super::renju;
use super::super::{Game, Side};
use super::{Cells, insert};

/// The four directions.
pub(crate) const DIRS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// Whether `side` holds `cell`, on the board or among `extra`.
fn own(pos: &Morpion, side: Side, extra: &[usize], cell: usize) -> bool {
    pos.mark_at(cell) == Some(side) || extra.contains(&cell)
}

/// Whether `cell` is empty with `extra` placed.
pub(crate) fn empty(pos: &Morpion, extra: &[usize], cell: usize) -> bool {
    pos.mark_at(cell).is_none() && !extra.contains(&cell)
}

/// The cell `t` steps from `cell` along `dir`, if on the board.
pub(crate) fn step(pos: &Morpion, cell: usize, (dr, dc): (i32, i32), t: i32) -> Option<usize> {
    let (rows, cols) = (pos.rows() as i32, pos.cols() as i32);
    let (r, c) = (cell as i32 / cols + dr * t, cell as i32 % cols + dc * t);
    (r >= 0 && c >= 0 && r < rows && c < cols).then_some((r * cols + c) as usize)
}

/// The own stones run along `dir` through `cell` (own): steps back and forward.
fn extent(pos: &Morpion, side: Side, extra: &[usize], cell: usize, dir: (i32, i32)) -> (i32, i32) {
    let walk = |sign: i32| {
        let mut t = 1;
        while step(pos, cell, dir, sign * t).is_some_and(|c| own(pos, side, extra, c)) {
            t += 1;
        }
        t - 1
    };
    (walk(-1), walk(1))
}

/// Whether a run of `len` wins for `side`.
fn wins(pos: &Morpion, side: Side, len: i32) -> bool {
    let k = pos.k() as i32;
    let exact = match pos.rule() {
        Rule::Freestyle => false,
        Rule::Exact => true,
        Rule::Renju => side == Side::First,
    };
    if exact { len == k } else { len >= k }
}

/// Whether, with `extra` placed, the run along `dir` through `e` wins and holds `must`.
fn wins_holding(
    pos: &Morpion,
    side: Side,
    extra: &[usize],
    e: usize,
    dir: (i32, i32),
    must: usize,
) -> bool {
    let (back, fwd) = extent(pos, side, extra, e, dir);
    wins(pos, side, back + fwd + 1) && (-back..=fwd).any(|t| step(pos, e, dir, t) == Some(must))
}

/// Whether a stone of `side` on the empty `cell` makes a five.
pub(crate) fn five(pos: &Morpion, side: Side, extra: &[usize], cell: usize) -> bool {
    let with: Vec<usize> = extra.iter().copied().chain([cell]).collect();
    DIRS.iter()
        .any(|&d| wins_holding(pos, side, &with, cell, d, cell))
}

/// Whether black may not take `cell` with `extra` black stones placed.
pub(crate) fn forbidden(pos: &Morpion, extra: &[usize], cell: usize) -> bool {
    let mut black = pos.marks(Side::First);
    for &x in extra {
        black[x >> 6] |= 1 << (x & 63);
    }
    let white = pos.marks(Side::Second);
    renju::is_forbidden(
        &black,
        &white,
        pos.rows() as usize,
        pos.cols() as usize,
        cell,
    )
}

/// Whether renju binds `side`.
pub(crate) fn bound(pos: &Morpion, side: Side) -> bool {
    pos.rule() == Rule::Renju && side == Side::First
}

/// The cells along `dir` (every one, on the board) completing a five through `cell` after a
/// stone of `side` on it.
fn completing_along(pos: &Morpion, side: Side, cell: usize, dir: (i32, i32)) -> Vec<usize> {
    let n = pos.rows().max(pos.cols()) as i32;
    (-n..=n)
        .filter_map(|t| step(pos, cell, dir, t))
        .filter(|&e| e != cell && empty(pos, &[cell], e))
        .filter(|&e| wins_holding(pos, side, &[cell, e], e, dir, cell))
        .collect()
}

/// The completing cells of the fours a stone of `side` makes on `cell`.
pub(crate) fn four(pos: &Morpion, side: Side, cell: usize) -> Cells {
    let mut out = [0; 4];
    if five(pos, side, &[], cell) || (bound(pos, side) && forbidden(pos, &[], cell)) {
        return out;
    }
    for d in DIRS {
        for e in completing_along(pos, side, cell, d) {
            insert(&mut out, e);
        }
    }
    out
}

/// Whether, with `extra` placed (holding `cell`), the unbroken run along `dir` through `cell`
/// is k − 1 long and both its ends are empty cells completing a five through `cell`.
fn straight_along(
    pos: &Morpion,
    side: Side,
    extra: &[usize],
    cell: usize,
    dir: (i32, i32),
) -> bool {
    let (back, fwd) = extent(pos, side, extra, cell, dir);
    if back + fwd + 1 != pos.k() as i32 - 1 {
        return false;
    }
    [
        step(pos, cell, dir, -back - 1),
        step(pos, cell, dir, fwd + 1),
    ]
    .iter()
    .all(|end| {
        end.is_some_and(|a| {
            let with: Vec<usize> = extra.iter().copied().chain([a]).collect();
            empty(pos, extra, a) && wins_holding(pos, side, &with, a, dir, cell)
        })
    })
}

/// Whether a stone of `side` on `cell` makes a straight four.
pub(crate) fn straight_four(pos: &Morpion, side: Side, cell: usize) -> bool {
    four(pos, side, cell) != [0; 4]
        && DIRS
            .iter()
            .any(|&d| straight_along(pos, side, &[cell], cell, d))
}

/// Whether a stone of `side` on `cell` makes an open three: in a line with no four through
/// it, a point `q` making a straight four there (renju's black: `q` neither a five nor
/// forbidden with the stone placed).
pub(crate) fn open_three(pos: &Morpion, side: Side, cell: usize) -> bool {
    if five(pos, side, &[], cell) || (bound(pos, side) && forbidden(pos, &[], cell)) {
        return false;
    }
    let n = pos.rows().max(pos.cols()) as i32;
    DIRS.iter().any(|&d| {
        completing_along(pos, side, cell, d).is_empty()
            && (-n..=n)
                .filter_map(|t| step(pos, cell, d, t))
                .filter(|&q| q != cell && empty(pos, &[cell], q))
                .any(|q| {
                    straight_along(pos, side, &[cell, q], cell, d)
                        && (!bound(pos, side)
                            || (!five(pos, side, &[cell], q) && !forbidden(pos, &[cell], q)))
                })
    })
}

/// The empty cells of the board where a stone of `side` makes a five.
pub(crate) fn fives(pos: &Morpion, side: Side) -> Vec<usize> {
    (0..pos.cells())
        .filter(|&c| empty(pos, &[], c) && five(pos, side, &[], c))
        .collect()
}

/// Whether the side to move of `pos` wins by continuous fours within `depth` fours: the
/// fours-only tree searched exhaustively, the threats judged by playing and walking lines.
pub(crate) fn vcf(pos: &Morpion, depth: u32) -> bool {
    let me = pos.side_to_move();
    let them = me.opponent();
    if pos.outcome().is_some() {
        return false;
    }
    if !fives(pos, me).is_empty() {
        return true;
    }
    let theirs = fives(pos, them);
    if depth == 0 || theirs.len() >= 2 {
        return false;
    }
    let moves: Vec<usize> = if theirs.len() == 1 {
        theirs
    } else {
        (0..pos.cells()).filter(|&c| empty(pos, &[], c)).collect()
    };
    moves.into_iter().any(|m| {
        if bound(pos, me) && pos.is_forbidden(m) {
            return false;
        }
        let next = pos.play(super::super::morpion::Cell(m as u8));
        if next.outcome().is_some() {
            return false;
        }
        let mine = fives(&next, me);
        match mine.len() {
            0 => false,
            1 => {
                let c = mine[0];
                if bound(&next, them) && next.is_forbidden(c) {
                    return true;
                }
                let after = next.play(super::super::morpion::Cell(c as u8));
                after.outcome().is_none() && vcf(&after, depth - 1)
            }
            _ => true,
        }
    })
}

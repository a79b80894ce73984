//! The threat search in play for the k-in-a-row games ([`Morpion`]: gomoku, renju), switched on
//! by [`super::SearchOptions::threats`] for `pvs` and `mtdf`:
//!
//! - **forced answers to a four**: a side whose opponent has a five to play must block it; with
//!   two to block (or renju's black whose only block is a forbidden point) it has lost, and the
//!   node returns that without a search;
//! - **the extension**: a node whose only move is such a block does not count a ply, so a
//!   line of fours and blocks is followed to its end, at the horizon as well;
//! - **forced answers to an open three**: at nodes above the horizon, a side whose opponent
//!   can make a straight four next plays only the cells that leave it none and its own fours
//!   ([`threats::three_defences`]); with neither it has lost. (A renju subtlety is left out: a
//!   white stone far from black's three can, by making one of black's points no longer a
//!   three's extension, turn black's straight-four point into a forbidden one; that move is
//!   not tried.)
//! - **threat-first ordering**: at nodes of depth 2 and more, the fours of the side to move are
//!   tried right after the table's move;
//! - **VCF at the root**: before the search, a win by continuous fours ([`super::vcf`]) is
//!   played at once;
//! - **VCF at the leaves**: a horizon node whose side to move wins by continuous fours within
//!   [`super::SearchOptions::vcf`] nodes scores that win;
//! - **late move reductions** ([`super::SearchOptions::lmr`]): at nodes of depth 3 and more
//!   that no threat forces, a move tried after the first three, neither the table's move nor a
//!   killer, on no cell of a threat of either side ([`Tactics::threat_cells`]: the side to
//!   move's fours and open threes, and the opponent's, which a stone there spoils), is
//!   searched a ply shallower with a null window first, and at full depth only when it beats
//!   the best so far;
//! - **VCT at the root** ([`super::SearchOptions::vct`] nodes, when not 0): a win by continuous
//!   threes and fours ([`super::vct`]) is played at once; otherwise the move the search chose
//!   is checked against the opponent's VCT, and one that loses to it is left out of the root
//!   and the search run again, a few times at most ([`Tactics::skip_at_root`]).
//!
//! Knowing the fives on the board costs four window scans a node, not a scan of the board:
//! a node whose side to move has a five wins at once, and a node that must block does, so the
//! only fives the side to move can face are those the opponent's last stone made possible
//! ([`threats::five_moves_through`]). Only the root, which has no last move, scans the board.
//!
//! The nodes of the VCF searches count in the engine's node budget.

use std::any::{Any, TypeId};

use super::WIN;
use super::vcf::{Vcf, VcfSearch};
use super::vct::{Vct, VctSearch};
use crate::games::morpion::Cell;
use crate::games::threats::{self, Cells};
use crate::games::{Game, Morpion};

/// The VCF at the root: at most this many four moves deep.
const ROOT_VCF_DEPTH: u32 = 40;

/// The VCF at the root: at most this many nodes (and half of a node budget).
pub(super) const ROOT_VCF_NODES: u64 = 100_000;

/// The VCF at the leaves: at most this many four moves deep.
const LEAF_VCF_DEPTH: u32 = 20;

/// The VCF table's size, 2^bits entries of 16 bytes (1 MiB).
const VCF_TABLE_BITS: u32 = 16;

/// The VCTs at the root: at most this many attacker moves deep.
const ROOT_VCT_DEPTH: u32 = 12;

/// The searches run again at most, each time the move chosen lost to the opponent's VCT.
pub(super) const VCT_RETRIES: u32 = 4;

/// What the threats on the board leave the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Forced<M> {
    /// Any move: no five to block.
    Free,
    /// One move only: the block of the opponent's five (or, at the root, the side's own five).
    Only(M),
    /// Lost, whatever it plays: this is its score.
    Lost(i32),
}

/// A win by continuous threats found at the root: its score and its line (a VCF's: the
/// attacker's fours and the forced answers, to the five or to a four that cannot be stopped; a
/// VCT's: its first move).
pub(super) struct ThreatWin<M> {
    /// The win's score, `WIN` less the plies to the five from the root.
    pub score: i32,
    /// The line.
    pub line: Vec<M>,
}

/// The threat search's state, kept by a searcher from move to move.
pub(super) struct Tactics {
    vcf: VcfSearch,
    vct: VctSearch,
    /// The root's moves left out: each lost to the opponent's VCT (set by
    /// [`Tactics::skip_at_root`]).
    root_skip: Cells,
}

impl Tactics {
    /// The state for a searcher of the game `G`, when it is a k-in-a-row game.
    pub fn for_game<G: Game>() -> Option<Tactics> {
        (TypeId::of::<G>() == TypeId::of::<Morpion>()).then(|| Tactics {
            vcf: VcfSearch::new(VCF_TABLE_BITS),
            vct: VctSearch::new(VCF_TABLE_BITS),
            root_skip: [0; 4],
        })
    }

    /// What the fives on the board leave the side to move of `pos` (unfinished), `ply` plies
    /// from the root, the opponent's last stone `last` (`None` at the root: the whole board is
    /// scanned, and a five of the side to move is its only move).
    pub fn forced<G: Game>(&self, pos: &G, last: Option<G::Move>, ply: u32) -> Forced<G::Move> {
        let Some(board) = morpion(pos) else {
            return Forced::Free;
        };
        let me = board.side_to_move();
        let them = me.opponent();
        let theirs: Cells = match last {
            Some(m) => threats::five_moves_through(board, them, cell_of::<G>(m)),
            None => {
                if let Some(five) = threats::first(&threats::five_moves(board, me)) {
                    return Forced::Only(move_of::<G>(five));
                }
                threats::five_moves(board, them)
            }
        };
        let lost = -(WIN - ply as i32 - 2);
        match threats::count(&theirs) {
            0 => Forced::Free,
            1 => {
                let block = threats::first(&theirs).unwrap_or(0);
                // Renju's black may not block on a forbidden point (the side to move's).
                if board.is_forbidden(block) {
                    Forced::Lost(lost)
                } else {
                    Forced::Only(move_of::<G>(block))
                }
            }
            _ => Forced::Lost(lost),
        }
    }

    /// The opponent's fives the side to move of `pos` may block (renju's black: not on a
    /// forbidden point), in cell order.
    pub fn blocks<G: Game>(&self, pos: &G) -> Vec<G::Move> {
        let Some(board) = morpion(pos) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        threats::for_each(
            &threats::five_moves(board, board.side_to_move().opponent()),
            |c| {
                if !board.is_forbidden(c) {
                    out.push(move_of::<G>(c));
                }
            },
        );
        out
    }

    /// The cells where the side to move of `pos` makes a four, for the threat-first ordering.
    pub fn fours<G: Game>(&self, pos: &G) -> Cells {
        morpion(pos).map_or([0; 4], |board| {
            threats::four_moves(board, board.side_to_move())
        })
    }

    /// Against an open three of the opponent's (a straight four to make next), the moves that
    /// do not lose to it: its defences and the side to move's own fours; `None` when there is
    /// none ([`threats::three_defences`]).
    pub fn against_threes<G: Game>(&self, pos: &G) -> Option<Cells> {
        let board = morpion(pos)?;
        let defences = threats::three_defences(board)?;
        let fours = threats::four_moves(board, board.side_to_move());
        Some(std::array::from_fn(|w| defences[w] | fours[w]))
    }

    /// The cells of either side's threats in `pos`: where the side to move makes a four or an
    /// open three, and where the opponent would (a stone of the side to move there spoils
    /// it). Late move reductions leave these moves at full depth.
    pub fn threat_cells<G: Game>(&self, pos: &G) -> Cells {
        morpion(pos).map_or([0; 4], |board| {
            let me = board.side_to_move();
            let them = me.opponent();
            let sets = [
                threats::four_moves(board, me),
                threats::three_moves(board, me),
                threats::four_moves(board, them),
                threats::three_moves(board, them),
            ];
            std::array::from_fn(|w| sets.iter().fold(0, |cells, set| cells | set[w]))
        })
    }

    /// Whether the move `mv` is one of `cells`.
    pub fn holds<G: Game>(cells: &Cells, mv: G::Move) -> bool {
        threats::contains(cells, cell_of::<G>(mv))
    }

    /// The score of a win by continuous fours of the side to move of `pos`, `ply` plies from
    /// the root, found within `nodes` nodes (their count is the second value), with its line.
    pub fn vcf<G: Game>(
        &mut self,
        pos: &G,
        ply: u32,
        nodes: u64,
        root: bool,
    ) -> (Option<ThreatWin<G::Move>>, u64) {
        let Some(board) = morpion(pos) else {
            return (None, 0);
        };
        let depth = if root { ROOT_VCF_DEPTH } else { LEAF_VCF_DEPTH };
        let found = self.vcf.search(board, depth, nodes);
        let win = match found.vcf {
            Vcf::Win(line) => {
                // The line ends with a five, or with a four that cannot be stopped: the five
                // then comes two plies later.
                let end = line.iter().fold(*board, |p, &c| p.play(c));
                let plies = line.len() as i32 + if end.outcome().is_some() { 0 } else { 2 };
                let score = WIN - ply as i32 - plies;
                Some(ThreatWin {
                    score,
                    line: line.iter().map(|c| move_of::<G>(c.0 as usize)).collect(),
                })
            }
            Vcf::None | Vcf::Unknown => None,
        };
        (win, found.nodes)
    }

    /// A win by continuous threats of the side to move of `pos` (the root), found within
    /// `nodes` nodes (their count is the second value): its score, with the plies to the five
    /// taken at their bound, and its first move as the line.
    pub fn vct<G: Game>(&mut self, pos: &G, nodes: u64) -> (Option<ThreatWin<G::Move>>, u64) {
        let Some(board) = morpion(pos) else {
            return (None, 0);
        };
        let found = self.vct.search(board, ROOT_VCT_DEPTH, nodes);
        let win = match found.vct {
            Vct::Win { first, plies } => Some(ThreatWin {
                score: WIN - plies as i32,
                line: vec![move_of::<G>(first.0 as usize)],
            }),
            Vct::None | Vct::Unknown => None,
        };
        (win, found.nodes)
    }

    /// Whether the opponent wins by continuous threats after the side to move of `pos` (the
    /// root) plays `mv`, found within `nodes` nodes (their count is the second value).
    pub fn loses_to_vct<G: Game>(&mut self, pos: &G, mv: G::Move, nodes: u64) -> (bool, u64) {
        let Some(board) = morpion(pos) else {
            return (false, 0);
        };
        let after = board.play(Cell(cell_of::<G>(mv) as u8));
        if after.outcome().is_some() {
            return (false, 0);
        }
        let found = self.vct.search(&after, ROOT_VCT_DEPTH, nodes);
        (matches!(found.vct, Vct::Win { .. }), found.nodes)
    }

    /// Leaves the move `mv` out of the root's search from now on (until [`Tactics::clear_root`]).
    pub fn skip_at_root<G: Game>(&mut self, mv: G::Move) {
        threats::insert(&mut self.root_skip, cell_of::<G>(mv));
    }

    /// The root's moves left out by [`Tactics::skip_at_root`].
    pub fn root_skip(&self) -> &Cells {
        &self.root_skip
    }

    /// Forgets the root's moves left out (before searching another root).
    pub fn clear_root(&mut self) {
        self.root_skip = [0; 4];
    }
}

/// The position as a k-in-a-row board, when it is one.
#[inline(always)]
fn morpion<G: Game>(pos: &G) -> Option<&Morpion> {
    (pos as &dyn Any).downcast_ref::<Morpion>()
}

/// A cell as the game's move type (which is [`Cell`] wherever a board was found).
#[inline(always)]
fn move_of<G: Game>(cell: usize) -> G::Move {
    let c = Cell(cell as u8);
    *(&c as &dyn Any)
        .downcast_ref::<G::Move>()
        .expect("a k-in-a-row game's move is a cell")
}

/// The cell of a move of a k-in-a-row game.
#[inline(always)]
fn cell_of<G: Game>(mv: G::Move) -> usize {
    (&mv as &dyn Any)
        .downcast_ref::<Cell>()
        .expect("a k-in-a-row game's move is a cell")
        .0 as usize
}

#[cfg(test)]
mod tests;

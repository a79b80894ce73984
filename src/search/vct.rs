//! VCT, "victory by continuous threats": does the side to move of a k-in-a-row position
//! ([`Morpion`]: gomoku, renju, any m,n,k) win by playing only fours and open threes?
//!
//! The tree, an AND-OR tree:
//! - **attacker nodes** (the side to move at the root): a five wins; a win by continuous fours
//!   ([`super::vcf`]) wins; otherwise the attacker plays a four or an open three
//!   ([`threats::four_moves`], [`threats::three_moves`]; renju's black never on a forbidden
//!   point). When the defender has a five to play, the attacker's only move is its block
//!   (whatever it makes: the threats already on the board may still win); two such fives, or
//!   a block on a forbidden point, and there is no VCT;
//! - **defender nodes**: against a four, the block of its five (two fives, or renju's black
//!   whose only block is forbidden: the attacker wins); against an open three, every move
//!   that leaves the attacker no straight four ([`threats::three_defences`]) and every four of
//!   the defender's own. Any other move lets the straight four come, which no four of the
//!   defender's can answer (the attacker would just make its five), so it loses. A defender
//!   with a five to play wins. The attacker wins the node when every answer loses.
//!
//! A win proved here is a win in the game: every defender move left out loses to a straight
//! four or a five. The converse does not hold: a win needing a quiet move, or a threat of
//! another kind, is not found.
//!
//! Depth is counted in the attacker's moves (threes, fours and forced blocks); the VCF at each
//! attacker node has a depth and node limit of its own (a longer VCF is not looked for), and
//! its nodes count. The table keeps failures, a position's key with the depth it has no VCT
//! within; searches cut by the node limit store nothing.

use super::vcf::{Failures, Vcf, VcfSearch};
use crate::games::morpion::Cell;
use crate::games::threats::{self, Cells};
use crate::games::{Game, Morpion, Outcome};

/// The VCF searched at each attacker node: at most this many fours deep.
pub const VCF_DEPTH: u32 = 20;

/// The VCF searched at each attacker node: at most this many nodes.
pub const VCF_NODES: u64 = 200;

/// The answer of a VCT search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vct {
    /// The side to move wins by continuous threats: the first move, and an upper bound on the
    /// plies to the five (the longest line of the proof).
    Win {
        /// The attacker's first move.
        first: Cell,
        /// The plies to the five, at most.
        plies: u32,
    },
    /// No VCT within the depth.
    None,
    /// The node limit cut the search before it found either.
    Unknown,
}

/// A VCT search's answer and the positions it visited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VctResult {
    /// The answer.
    pub vct: Vct,
    /// Positions searched, the VCF searches' included.
    pub nodes: u64,
}

/// How one node's search ended; a win carries the plies to the five.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Proof {
    Win(u32),
    Fail,
    Aborted,
}

/// The VCT searcher, with its table of failures and a VCF searcher, both kept across searches
/// of the same game.
pub struct VctSearch {
    failures: Failures,
    vcf: VcfSearch,
    /// The bounds of the VCF at each attacker node: fours deep, nodes.
    vcf_depth: u32,
    vcf_nodes: u64,
    nodes: u64,
    node_limit: u64,
    /// The attacker's first move of the win found at the root.
    first: Option<Cell>,
}

impl VctSearch {
    /// A searcher with tables of `2^table_bits` entries (allocated here, once), its VCF at
    /// each attacker node bounded by [`VCF_DEPTH`] and [`VCF_NODES`].
    pub fn new(table_bits: u32) -> VctSearch {
        VctSearch::with_vcf(table_bits, VCF_DEPTH, VCF_NODES)
    }

    /// A searcher whose VCF at each attacker node goes at most `vcf_depth` fours deep and
    /// visits at most `vcf_nodes` positions.
    pub fn with_vcf(table_bits: u32, vcf_depth: u32, vcf_nodes: u64) -> VctSearch {
        VctSearch {
            failures: Failures::new(table_bits),
            vcf: VcfSearch::new(table_bits),
            vcf_depth,
            vcf_nodes,
            nodes: 0,
            node_limit: 0,
            first: None,
        }
    }

    /// Forgets the proven failures (before searching another game).
    pub fn clear(&mut self) {
        self.failures.clear();
        self.vcf.clear();
    }

    /// Whether the side to move of `pos` wins by continuous threats within `depth` attacker
    /// moves, visiting at most `nodes` positions. The depths are searched in turn from 0 (the
    /// VCF alone), so that a short win is not missed for a long line the budget cannot finish.
    pub fn search(&mut self, pos: &Morpion, depth: u32, nodes: u64) -> VctResult {
        self.nodes = 0;
        self.node_limit = nodes;
        let mut vct = Vct::None;
        for d in 0..=depth {
            self.first = None;
            vct = match self.attack(pos, d, true) {
                Proof::Win(plies) => match self.first {
                    Some(first) => Vct::Win { first, plies },
                    None => Vct::Unknown,
                },
                Proof::Fail => Vct::None,
                Proof::Aborted => Vct::Unknown,
            };
            if vct != Vct::None {
                break;
            }
        }
        VctResult {
            vct,
            nodes: self.nodes,
        }
    }

    /// The attacker to move in `pos` with `depth` moves left; `root` records the first move.
    fn attack(&mut self, pos: &Morpion, depth: u32, root: bool) -> Proof {
        if self.nodes >= self.node_limit {
            return Proof::Aborted;
        }
        self.nodes += 1;
        if pos.outcome().is_some() {
            return Proof::Fail;
        }
        let me = pos.side_to_move();
        if let Some(five) = threats::first(&threats::five_moves(pos, me)) {
            self.won_with(root, five);
            return Proof::Win(1);
        }
        let theirs = threats::five_moves(pos, me.opponent());
        if threats::count(&theirs) > 1 {
            return Proof::Fail;
        }
        let key = pos.hash_key();
        if self.failures.fails(key, depth) {
            return Proof::Fail;
        }
        let budget = self.vcf_nodes.min(self.node_limit - self.nodes);
        let found = self.vcf.search(pos, self.vcf_depth, budget);
        self.nodes += found.nodes;
        // A VCF beyond its bounds is not looked for: `Unknown` counts as none.
        if let Vcf::Win(line) = found.vcf {
            self.won_with(root, line[0].0 as usize);
            return Proof::Win(line.len() as u32 + 2);
        }
        if depth == 0 {
            return Proof::Fail;
        }
        let moves: Cells = match threats::first(&theirs) {
            Some(block) if pos.is_forbidden(block) => return Proof::Fail,
            // The block alone: `theirs` holds that one cell.
            Some(_) => theirs,
            None => {
                let fours = threats::four_moves(pos, me);
                let threes = threats::three_moves(pos, me);
                std::array::from_fn(|w| fours[w] | threes[w])
            }
        };
        let mut proof = Proof::Fail;
        let mut aborted = false;
        threats::for_each(&moves, |m| {
            if matches!(proof, Proof::Win(_)) {
                return;
            }
            match self.defend(&pos.play(Cell(m as u8)), depth - 1) {
                Proof::Win(plies) => {
                    self.won_with(root, m);
                    proof = Proof::Win(plies + 1);
                }
                Proof::Aborted => aborted = true,
                Proof::Fail => {}
            }
        });
        if proof == Proof::Fail {
            if aborted {
                return Proof::Aborted;
            }
            self.failures.store(key, depth);
        }
        proof
    }

    /// The defender to move in `pos`, after the attacker's threat; `depth` attacker moves left.
    fn defend(&mut self, pos: &Morpion, depth: u32) -> Proof {
        if let Some(outcome) = pos.outcome() {
            let attacker = pos.side_to_move().opponent();
            return if outcome == Outcome::win(attacker) {
                Proof::Win(0)
            } else {
                Proof::Fail
            };
        }
        let me = pos.side_to_move();
        if threats::five_moves(pos, me) != [0; 4] {
            return Proof::Fail;
        }
        let fives = threats::five_moves(pos, me.opponent());
        let answers: Cells = match threats::count(&fives) {
            0 => {
                let Some(defences) = threats::three_defences(pos) else {
                    // No straight four to make: the attacker's move threatened nothing.
                    return Proof::Fail;
                };
                let fours = threats::four_moves(pos, me);
                std::array::from_fn(|w| defences[w] | fours[w])
            }
            1 => {
                let block = threats::first(&fives).unwrap_or(0);
                if pos.is_forbidden(block) {
                    return Proof::Win(2);
                }
                fives
            }
            _ => return Proof::Win(2),
        };
        // With no answer at all, any move, the straight four, a block, the five.
        let mut proof = Proof::Win(4);
        threats::for_each(&answers, |a| {
            if let Proof::Win(longest) = proof {
                proof = match self.attack(&pos.play(Cell(a as u8)), depth, false) {
                    Proof::Win(plies) => Proof::Win(longest.max(plies + 1)),
                    other => other,
                };
            }
        });
        proof
    }

    /// Records the root's winning move.
    fn won_with(&mut self, root: bool, cell: usize) {
        if root {
            self.first = Some(Cell(cell as u8));
        }
    }
}

/// Whether the side to move of `pos` wins by continuous threats within `depth` attacker moves
/// and `nodes` positions, with tables of 2^16 entries of its own.
pub fn vct(pos: &Morpion, depth: u32, nodes: u64) -> VctResult {
    VctSearch::new(16).search(pos, depth, nodes)
}

#[cfg(test)]
mod tests;

//! VCF, "victory by continuous fours": does the side to move of a k-in-a-row position
//! ([`Morpion`]: gomoku, renju, any m,n,k) win by playing only fours?
//!
//! The tree, as the usual definition has it:
//! - the attacker (the side to move at the root) wins at once with a five;
//! - otherwise it plays only moves making a four ([`threats::four_moves`]; renju's black never
//!   on a forbidden point). When the defender has a four on the board (a five to play), the
//!   attacker must block it, and only a block that is itself a four keeps the search going;
//!   two such fives cannot be blocked: no VCF;
//! - the defender's answer is forced to the four's completing cell; a four with two completing
//!   cells (a straight four, or a double four) cannot be stopped, and neither can one whose
//!   only completing cell is forbidden for a defending renju black: the attacker wins. A
//!   defender who could make a five instead wins, so that four fails. The forced answer may
//!   make a four of the defender's: the attacker must then block it, as above.
//!
//! Since the defender's answer is forced, the tree is an OR tree: one winning four move proves
//! the node, and a win found anywhere is the root's. The transposition table therefore keeps
//! failures only: a position (its [`Game::hash_key`]) with the depth to which it has no VCF,
//! which holds for every smaller depth. Searches cut by the node limit store nothing.
//!
//! Depth is counted in the attacker's four moves; the final five is not counted.
//!
//! Move order: at each attacker node the fours the defender cannot stop are tried first,
//! without a dive; then the others, in cell order.

use crate::games::morpion::Cell;
use crate::games::threats::{self, Cells};
use crate::games::{Game, Morpion, Side};

/// The answer of a VCF search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Vcf {
    /// The side to move wins by continuous fours: the line, the attacker's moves and the
    /// defender's forced answers in turn, ending with the attacker's five, or with its last
    /// four where the defender cannot block it (two completing cells; renju's black forced
    /// onto a forbidden point).
    Win(Vec<Cell>),
    /// No VCF within the depth.
    None,
    /// The node limit cut the search before it found either.
    Unknown,
}

/// A VCF search's answer and the positions it visited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VcfResult {
    /// The answer.
    pub vcf: Vcf,
    /// Attacker's positions searched (transposition hits included).
    pub nodes: u64,
}

/// How one node's search ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Proof {
    Win,
    Fail,
    Aborted,
}

/// A failure entry: the position's key and the depth + 1 it has no win within (0: empty).
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    depth: u32,
}

/// The proven failures of a threat search (this module's, and [`super::vct`]'s): for a
/// position's key, the depth it has no win within, which holds for every smaller depth. One
/// entry a slot, the last failure stored replacing the slot's.
pub(super) struct Failures {
    table: Vec<Entry>,
}

impl Failures {
    /// A table of `2^bits` entries (allocated here, once).
    pub fn new(bits: u32) -> Failures {
        Failures {
            table: vec![Entry::default(); 1 << bits.min(30)],
        }
    }

    /// Forgets every failure.
    pub fn clear(&mut self) {
        self.table.fill(Entry::default());
    }

    /// Whether the position of `key` is known to have no win within `depth`.
    #[inline]
    pub fn fails(&self, key: u64, depth: u32) -> bool {
        let entry = self.table[self.slot(key)];
        entry.key == key && entry.depth > depth
    }

    /// Records that the position of `key` has no win within `depth`.
    #[inline]
    pub fn store(&mut self, key: u64, depth: u32) {
        let slot = self.slot(key);
        self.table[slot] = Entry {
            key,
            depth: depth + 1,
        };
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.table.len() - 1)
    }
}

/// The VCF searcher: its table of failures lives across searches (of the same game), so that a
/// caller searching many positions of one game reuses what it proved.
pub struct VcfSearch {
    failures: Failures,
    nodes: u64,
    node_limit: u64,
    /// The winning line, last move first, built as the recursion returns.
    line: Vec<Cell>,
}

impl VcfSearch {
    /// A searcher with a table of `2^table_bits` entries (allocated here, once).
    pub fn new(table_bits: u32) -> VcfSearch {
        VcfSearch {
            failures: Failures::new(table_bits),
            nodes: 0,
            node_limit: 0,
            line: Vec::new(),
        }
    }

    /// Forgets the proven failures (before searching another game).
    pub fn clear(&mut self) {
        self.failures.clear();
    }

    /// Whether the side to move of `pos` wins by continuous fours within `depth` four moves,
    /// visiting at most `nodes` positions.
    pub fn search(&mut self, pos: &Morpion, depth: u32, nodes: u64) -> VcfResult {
        self.nodes = 0;
        self.node_limit = nodes;
        self.line.clear();
        let vcf = match self.attack(pos, depth, None) {
            Proof::Win => {
                let mut line = std::mem::take(&mut self.line);
                line.reverse();
                Vcf::Win(line)
            }
            Proof::Fail => Vcf::None,
            Proof::Aborted => Vcf::Unknown,
        };
        VcfResult {
            vcf,
            nodes: self.nodes,
        }
    }

    /// The attacker to move in `pos`, with `depth` four moves left; `answer`: the defender's
    /// forced answer that led here (none at the root).
    ///
    /// Below the root the fives are known without a scan of the board: the attacker has none
    /// (its four had one completing cell, which the answer took, and it had no five before),
    /// and the defender's are those its answer made (it had at most one before, and the four
    /// blocked it), all on the answer's four lines.
    fn attack(&mut self, pos: &Morpion, depth: u32, answer: Option<usize>) -> Proof {
        if self.nodes >= self.node_limit {
            return Proof::Aborted;
        }
        self.nodes += 1;
        if pos.outcome().is_some() {
            return Proof::Fail;
        }
        let me = pos.side_to_move();
        if answer.is_none() {
            let fives = threats::five_moves(pos, me);
            if let Some(five) = threats::first(&fives) {
                self.line.push(Cell(five as u8));
                return Proof::Win;
            }
        }
        if depth == 0 {
            return Proof::Fail;
        }
        let key = pos.hash_key();
        if self.failures.fails(key, depth) {
            return Proof::Fail;
        }
        let theirs = match answer {
            None => threats::five_moves(pos, me.opponent()),
            Some(c) => threats::five_moves_through(pos, me.opponent(), c),
        };
        let moves: Cells = match threats::count(&theirs) {
            0 => threats::four_moves(pos, me),
            1 => {
                let fours = threats::four_moves(pos, me);
                std::array::from_fn(|w| fours[w] & theirs[w])
            }
            _ => [0; 4],
        };
        // Threats first: a four the defender cannot stop ends the search without a dive.
        let mut proof = Proof::Fail;
        for dive in [false, true] {
            threats::for_each(&moves, |m| {
                if proof == Proof::Fail {
                    proof = self.four(pos, me, m, depth, dive);
                }
            });
        }
        if proof == Proof::Fail {
            self.failures.store(key, depth);
        }
        proof
    }

    /// The attacker `me` plays the four `m` in `pos` (the defender has no five left); without
    /// `dive`, only a four the defender cannot stop is a win, and nothing is searched.
    fn four(&mut self, pos: &Morpion, me: Side, m: usize, depth: u32, dive: bool) -> Proof {
        let next = pos.play(Cell(m as u8));
        if next.outcome().is_some() {
            return Proof::Fail;
        }
        // The attacker had no five: every five it has now runs through `m`.
        let completing = threats::five_moves_through(&next, me, m);
        let them = me.opponent();
        let win = match threats::count(&completing) {
            0 => return Proof::Fail,
            1 => {
                let c = threats::first(&completing).unwrap_or(0);
                // Renju's black cannot take a forbidden point: the five follows.
                if them == Side::First && next.is_forbidden(c) {
                    Proof::Win
                } else if !dive {
                    return Proof::Fail;
                } else {
                    let after = next.play(Cell(c as u8));
                    if after.outcome().is_some() {
                        return Proof::Fail;
                    }
                    let proof = self.attack(&after, depth - 1, Some(c));
                    if proof == Proof::Win {
                        self.line.push(Cell(c as u8));
                    }
                    proof
                }
            }
            _ => Proof::Win,
        };
        if win == Proof::Win {
            self.line.push(Cell(m as u8));
        }
        win
    }
}

/// Whether the side to move of `pos` wins by continuous fours within `depth` four moves and
/// `nodes` positions, with a table of 2^16 entries of its own.
pub fn vcf(pos: &Morpion, depth: u32, nodes: u64) -> VcfResult {
    VcfSearch::new(16).search(pos, depth, nodes)
}

#[cfg(test)]
mod tests;

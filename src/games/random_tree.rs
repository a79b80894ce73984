//! A synthetic game: a uniform tree of branching `b` and depth `d` whose leaf values are drawn,
//! lazily and reproducibly, from the seed and the path to the leaf. It is the laboratory for the
//! algorithm experiments (`joute analyze random-tree`): nothing is stored, any tree size is free.

use super::hash::{combine, mix64};
use super::{Game, GameError, MoveList, Outcome, Side};

/// The largest branching factor.
pub const MAX_BRANCHING: u8 = 64;
/// The largest depth.
pub const MAX_DEPTH: u8 = 32;
/// Leaf values are uniform integers in `-LEAF_RANGE..=LEAF_RANGE`: wide, so ties are rare.
pub const LEAF_RANGE: i32 = 1 << 20;

/// A node of a random tree.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RandomTree {
    seed: u64,
    path: u64,
    ply: u8,
    branching: u8,
    depth: u8,
}

/// A move of the random tree: the index of a child, 0-based.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Child(pub u8);

impl RandomTree {
    /// The root of the tree with this shape and seed.
    pub fn new(branching: u8, depth: u8, seed: u64) -> RandomTree {
        assert!((1..=MAX_BRANCHING).contains(&branching) && (1..=MAX_DEPTH).contains(&depth));
        RandomTree {
            seed,
            path: mix64(seed ^ 0x5eed),
            ply: 0,
            branching,
            depth,
        }
    }

    /// Children of every inner node.
    pub fn branching(&self) -> u8 {
        self.branching
    }

    /// Plies from the root to the leaves.
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// The seed of the tree.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Plies from the root to this node.
    pub fn ply(&self) -> u8 {
        self.ply
    }

    /// Whether this node is a leaf.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.ply == self.depth
    }

    /// A pseudo-random value of this node from the first player's point of view, uniform in
    /// `-LEAF_RANGE..=LEAF_RANGE`; at a leaf it is the leaf's value.
    #[inline]
    pub fn value(&self) -> i32 {
        let span = 2 * LEAF_RANGE as u64 + 1;
        ((mix64(self.path) % span) as i64 - LEAF_RANGE as i64) as i32
    }
}

impl Game for RandomTree {
    type Move = Child;

    fn name(&self) -> String {
        super::GameKind::RandomTree {
            branching: self.branching,
            depth: self.depth,
            seed: self.seed,
        }
        .to_string()
    }

    #[inline]
    fn side_to_move(&self) -> Side {
        if self.ply.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        }
    }

    #[inline]
    fn legal_moves(&self, moves: &mut MoveList<Child>) {
        if !self.is_leaf() {
            for i in 0..self.branching {
                unsafe { moves.push_unchecked(Child(i)) };
            }
        }
    }

    #[inline]
    fn move_count(&self) -> usize {
        if self.is_leaf() {
            0
        } else {
            self.branching as usize
        }
    }

    #[inline]
    fn play(&self, mv: Child) -> RandomTree {
        RandomTree {
            path: combine(self.path, mv.0 as u64),
            ply: self.ply + 1,
            ..*self
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.is_leaf().then(|| {
            let score = self.value();
            Outcome {
                winner: match score.signum() {
                    1 => Some(Side::First),
                    -1 => Some(Side::Second),
                    _ => None,
                },
                score,
            }
        })
    }

    #[inline]
    fn hash_key(&self) -> u64 {
        combine(self.path, self.ply as u64)
    }

    fn parse_move(&self, text: &str) -> Result<Child, GameError> {
        let bad = |reason: String| GameError::BadMove {
            game: self.name(),
            text: text.into(),
            reason,
        };
        if self.is_leaf() {
            return Err(bad("this node is a leaf".into()));
        }
        match text.trim().parse::<u8>() {
            Ok(i) if i < self.branching => Ok(Child(i)),
            _ => Err(bad(format!(
                "a move is a child index 0..{}",
                self.branching - 1
            ))),
        }
    }

    const SCORED_LEAVES: bool = true;

    #[inline]
    fn move_index(&self, mv: Child) -> usize {
        mv.0 as usize
    }

    fn format_move(&self, mv: Child) -> String {
        mv.0.to_string()
    }

    /// A position is the path from the root: child indices separated by spaces or commas.
    fn parse_position(&self, text: &str) -> Result<RandomTree, GameError> {
        RandomTree::new(self.branching, self.depth, self.seed).play_sequence(text)
    }

    fn render(&self) -> String {
        format!(
            "random tree b={} d={} seed={}: node at ply {}{}\n",
            self.branching,
            self.depth,
            self.seed,
            self.ply,
            if self.is_leaf() {
                format!(", leaf value {}", self.value())
            } else {
                String::new()
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_are_reproducible_and_spread() {
        let root = RandomTree::new(4, 3, 11);
        let leaf = root.play_sequence("1 2 3").unwrap();
        assert!(leaf.is_leaf());
        assert_eq!(leaf.value(), root.play_sequence("1,2,3").unwrap().value());
        let other = RandomTree::new(4, 3, 12).play_sequence("1 2 3").unwrap();
        assert_ne!(leaf.value(), other.value());
        let values: Vec<i32> = (0..4)
            .map(|i| root.play_sequence(&format!("0 0 {i}")).unwrap().value())
            .collect();
        assert!(values.iter().all(|v| v.abs() <= LEAF_RANGE));
        assert!(values.windows(2).any(|w| w[0] != w[1]));
        assert!(root.play_sequence("1 2 3 0").is_err());
    }
}

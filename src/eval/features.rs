//! Named evaluation features: the [`Features`] trait, the [`Weights`] vector that gives each
//! feature its number (read and written by [`super::weights`], which needs the features' names,
//! so the type lives here, below it), and the trait's implementation for the random tree (the
//! board games have theirs in [`super::othello`], [`super::connect4`] and [`super::morpion`]).
//!
//! A feature value is a small integer computed from one position, always from the point of view
//! of the side to move. Most features are *antisymmetric*: handing the move to the other player
//! with the same board (the opponent's view) negates them. Each game's module says which of its
//! features are not (Othello's `parity`, the `own_*`/`opp_*` pairs of Connect 4 and Morpion,
//! which swap instead of negating).

use crate::games::random_tree::{LEAF_RANGE, RandomTree};
use crate::games::{Connect4, Game, GameKind, Morpion, Othello};

use super::EVAL_LIMIT;

/// The most features any game has (Morpion 15×15 with k = 15 has 29); [`super::LinearEval`]
/// keeps its feature buffer on the stack with this capacity.
pub const MAX_FEATURES: usize = 64;

/// One named evaluation feature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feature {
    /// The name weight files use (`mobility`).
    pub name: String,
    /// One line saying what the value counts, for `joute features GAME`.
    pub meaning: String,
}

impl Feature {
    /// A feature from its name and meaning.
    pub fn new(name: impl Into<String>, meaning: impl Into<String>) -> Feature {
        Feature {
            name: name.into(),
            meaning: meaning.into(),
        }
    }
}

/// The origin of built-in default weights.
pub const BUILT_IN: &str = "built-in default";

/// A weight vector for one game: one number per feature, in the game's feature order.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// The game's name as the file gives it (`othello`, `morpion-15x15-5`).
    pub game: String,
    /// One weight per feature, in the order of [`Features::features`]: the opening weights
    /// when [`Weights::endgame`] is set.
    pub values: Vec<f64>,
    /// Tapered weights: the weights at the end of the game (the file's `[endgame]` table), one
    /// per feature like `values`. [`super::LinearEval`] interpolates between `values` and these
    /// by the game's progress ([`Features::progress`]). `None` (a file without `[endgame]`): one
    /// weight vector for the whole game.
    pub endgame: Option<Vec<f64>>,
    /// Where the weights came from: a file path, or `"built-in default"`.
    pub origin: String,
}

/// Games with named features.
pub trait Features: Game {
    /// This game's features (this variant's: Morpion's depend on k), in a fixed order.
    fn features(&self) -> Vec<Feature>;

    /// The feature values of this position from the side to move's point of view;
    /// `out.len() == features().len()`. No allocation.
    fn feature_values(&self, out: &mut [i32]);

    /// [`Self::feature_values`] where only the first `used` values will be read: a game may
    /// leave the others unwritten when they cost a pass of their own (Morpion's threat
    /// features, when every weight of theirs is 0). `out.len() == features().len()`.
    #[inline]
    fn leading_feature_values(&self, out: &mut [i32], used: usize) {
        let _ = used;
        self.feature_values(out);
    }

    /// For each feature, in order, an upper bound on the magnitude of its value over every
    /// position of this variant. [`super::LinearEval`] derives its [`super::Evaluator::bound`]
    /// from these. The provided default says nothing useful ([`EVAL_LIMIT`] each).
    fn feature_bounds(&self) -> Vec<i32> {
        vec![EVAL_LIMIT; self.features().len()]
    }

    /// The hand-set default weights of this variant ([`Weights::default_for`] returns them).
    /// The provided default weighs every feature 0.
    fn default_weights(&self) -> Weights {
        Weights {
            game: self.name(),
            values: vec![0.0; self.features().len()],
            endgame: None,
            origin: BUILT_IN.to_string(),
        }
    }

    /// How far the game has gone, as `(t, T)` with `0 ≤ t ≤ T` and `T ≥ 1`: `t = 0` at the start
    /// position, `t = T` when the board is full. A pure function of the position (not of the
    /// moves that led to it); `T` depends only on the variant. Tapered weights
    /// ([`Weights::endgame`]) interpolate between the opening weights (t = 0) and the endgame
    /// weights (t = T): weight (T − t)/T on the first, t/T on the second.
    ///
    /// - Othello: the discs on the board minus 4, of T = 60 (a pass does not move it);
    /// - Connect 4: the stones on the board, of T = 42;
    /// - Morpion R×C: the marks on the board, of T = R·C;
    /// - the random tree: the node's ply, of T = the tree's depth.
    ///
    /// The provided default, `(0, 1)`, says nothing: tapered weights then evaluate as their
    /// opening weights.
    #[inline]
    fn progress(&self) -> (u32, u32) {
        (0, 1)
    }
}

/// Code to run once for whichever game the user named, with its features available: the
/// counterpart of [`crate::games::GameVisitor`] for code that evaluates positions.
pub trait FeaturesVisitor {
    /// What the visit returns.
    type Output;
    /// Runs the visitor on a game whose start position is `start`.
    fn visit<G: Features>(self, start: G) -> Self::Output;
}

/// Calls `visitor` with the start position of `kind`, monomorphised for its type (every game
/// joute plays has features).
pub fn dispatch<V: FeaturesVisitor>(kind: &GameKind, visitor: V) -> V::Output {
    match *kind {
        GameKind::Othello => visitor.visit(Othello::start()),
        GameKind::Connect4 => visitor.visit(Connect4::start()),
        GameKind::Morpion {
            rows,
            cols,
            k,
            rule,
        } => visitor.visit(Morpion::with_rule(rows, cols, k, rule)),
        GameKind::RandomTree {
            branching,
            depth,
            seed,
        } => visitor.visit(RandomTree::new(branching, depth, seed)),
    }
}

/// The random tree has one feature, `value`: the node's pseudo-random value
/// ([`RandomTree::value`]) from the side to move's point of view. It is antisymmetric by
/// construction. Default weight 1. Its progress is the node's ply of the tree's depth.
impl Features for RandomTree {
    fn features(&self) -> Vec<Feature> {
        vec![Feature::new(
            "value",
            "the node's pseudo-random value, from the side to move's point of view",
        )]
    }

    #[inline]
    fn feature_values(&self, out: &mut [i32]) {
        let v = self.value();
        out[0] = if self.side_to_move() == crate::games::Side::First {
            v
        } else {
            -v
        };
    }

    fn feature_bounds(&self) -> Vec<i32> {
        vec![LEAF_RANGE]
    }

    fn default_weights(&self) -> Weights {
        Weights {
            game: self.name(),
            values: vec![1.0],
            endgame: None,
            origin: BUILT_IN.to_string(),
        }
    }

    /// The node's ply, of the tree's depth.
    #[inline]
    fn progress(&self) -> (u32, u32) {
        (self.ply() as u32, self.depth() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_tree_value_is_seen_from_the_side_to_move() {
        let root = RandomTree::new(3, 4, 5);
        let mut out = [0];
        root.feature_values(&mut out);
        assert_eq!(out[0], root.value());
        let child = root.play_sequence("2").unwrap();
        child.feature_values(&mut out);
        assert_eq!(out[0], -child.value());
        assert_eq!(root.features().len(), 1);
        assert_eq!(root.feature_bounds(), vec![LEAF_RANGE]);
    }

    #[test]
    fn every_game_dispatches_with_its_features() {
        struct Names;
        impl FeaturesVisitor for Names {
            type Output = (String, Vec<String>);
            fn visit<G: Features>(self, start: G) -> Self::Output {
                let features = start.features();
                assert_eq!(start.feature_bounds().len(), features.len());
                assert_eq!(Weights::default_for(&start).values.len(), features.len());
                (start.name(), features.into_iter().map(|f| f.name).collect())
            }
        }
        for (name, count) in [
            ("othello", 18),
            ("connect4", 10),
            ("morpion", 5),
            ("morpion-15x15-5", 23),
            ("random-tree-4x3", 1),
        ] {
            let kind = GameKind::parse(name).unwrap();
            let (game, features) = dispatch(&kind, Names);
            assert_eq!(game, name);
            assert_eq!(features.len(), count, "{name}: {features:?}");
        }
    }
}

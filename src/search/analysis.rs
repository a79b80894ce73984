//! The algorithms measured on uniform random trees against the closed forms of the literature
//! (`joute analyze random-tree`):
//!
//! - minimax and negamax evaluate every leaf: `b^d`;
//! - alpha-beta on a perfectly ordered tree evaluates `b^⌈d/2⌉ + b^⌊d/2⌋ − 1` leaves (Knuth and
//!   Moore, 1975);
//! - the bisection test at a threshold `x` where a leaf fails its parent's test with
//!   probability `p` evaluates on average `N = ∏ v_i` leaves, with `u_1 = p`,
//!   `u_{i+1} = 1 − u_i^b`, `v_i = (1 − u_i^b) / (1 − u_i)`; its worst case is the `p_b` with
//!   `p_b = 1 − p_b^b`, where `N = (p_b / (1 − p_b))^d`.
//!
//! A leaf "fails its parent's test" when the parent, looking for a satisfying move, must go on
//! to the next child.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::{Algorithm, MoveOrder, SearchConfig, Searcher, bisection_test};
use crate::eval::Evaluator;
use crate::games::random_tree::LEAF_RANGE;
use crate::games::{Game, RandomTree, Side};

/// The static value of a random-tree node (its pseudo-random value, side to move's view), with
/// the leaf range as its bound. The analysis searches to the leaves, where the leaf values
/// themselves are used: the bound is what matters, to the bisection's dichotomy.
pub struct NodeValue;

impl Evaluator<RandomTree> for NodeValue {
    fn evaluate(&self, pos: &RandomTree) -> i32 {
        if pos.side_to_move() == Side::First {
            pos.value()
        } else {
            -pos.value()
        }
    }
    fn bound(&self) -> i32 {
        LEAF_RANGE
    }
}

/// One line of the analysis table.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Row {
    /// What was measured (`alphabeta (perfect order)`, `bisection test p=0.81`...).
    pub algorithm: String,
    /// Mean leaves evaluated per tree.
    pub measured: f64,
    /// Mean nodes visited per tree.
    pub nodes: f64,
    /// The closed form, where there is one.
    pub theory: Option<f64>,
    /// `measured / theory`.
    pub ratio: Option<f64>,
    /// Number of trees measured.
    pub trees: u32,
}

/// The whole analysis.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Analysis {
    /// Children per inner node.
    pub branching: u8,
    /// Plies to the leaves.
    pub depth: u8,
    /// Seed of the first tree (tree `i` has seed `seed + i`).
    pub seed: u64,
    /// The table.
    pub rows: Vec<Row>,
}

/// `b^⌈d/2⌉ + b^⌊d/2⌋ − 1`: leaves alpha-beta evaluates on a perfectly ordered uniform tree.
pub fn knuth_moore(branching: u32, depth: u32) -> f64 {
    let b = branching as f64;
    b.powi(depth.div_ceil(2) as i32) + b.powi((depth / 2) as i32) - 1.0
}

/// The mean leaves the bisection test evaluates when a leaf fails its parent's test with
/// probability `p`: `∏ v_i` over the `depth` levels.
pub fn bisection_theory(branching: u32, depth: u32, p: f64) -> f64 {
    let n = branching as i32;
    let mut u = p;
    let mut product = 1.0;
    for _ in 0..depth {
        let un = u.powi(n);
        // v = 1 + u + … + u^(n-1), written as a sum to stay exact at u = 1.
        let v: f64 = (0..n).map(|j| u.powi(j)).sum();
        product *= v;
        u = 1.0 - un;
    }
    product
}

/// The worst-case probability `p_b`, the root of `p = 1 − p^b` in (0, 1), by bisection.
pub fn worst_case_p(branching: u32) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mid < 1.0 - mid.powi(branching as i32) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The test threshold `x` at which a leaf of a depth-`depth` random tree fails its parent's test
/// with probability closest to `p`, and that exact probability. Leaf values are uniform
/// integers in `-R..=R` from the first player's view; the leaf's parent is the first player when
/// `depth` is odd (it fails when the value is below `x`) and the second otherwise (it fails
/// when the value is at least `x`).
pub fn threshold_for(p: f64, depth: u32) -> (i32, f64) {
    let r = LEAF_RANGE as f64;
    let span = 2.0 * r + 1.0;
    if depth % 2 == 1 {
        // P(L < x) = (x + R) / span
        let x = (p * span - r).round();
        (x as i32, (x + r) / span)
    } else {
        // P(L >= x) = (R - x + 1) / span
        let x = (r + 1.0 - p * span).round();
        (x as i32, (r - x + 1.0) / span)
    }
}

/// Runs the analysis over `trees` random trees (seeds `seed`, `seed + 1`, …) in parallel; the
/// result does not depend on the number of threads. The perfectly ordered alpha-beta, whose
/// ordering costs a full search per node, runs on the first `min(trees, 50)` trees.
pub fn analyze(branching: u8, depth: u8, trees: u32, seed: u64) -> Analysis {
    analyze_counting(branching, depth, trees, seed, &AtomicU64::new(0))
}

/// [`analyze`], adding one to `done` as each tree is finished (for a progress display).
pub fn analyze_counting(
    branching: u8,
    depth: u8,
    trees: u32,
    seed: u64,
    done: &AtomicU64,
) -> Analysis {
    let (b, d) = (branching as u32, depth as u32);
    let p_worst = worst_case_p(b);
    let probabilities = [p_worst, 0.5, 0.9];
    let thresholds: Vec<(i32, f64)> = probabilities.iter().map(|&p| threshold_for(p, d)).collect();

    let specs = row_specs(b, d, trees, &thresholds);
    // Per tree: (leaves, nodes) for every spec, or None where the spec skips that tree.
    let per_tree: Vec<Vec<Option<(u64, u64)>>> = (0..trees)
        .into_par_iter()
        .map(|i| {
            let root = RandomTree::new(branching, depth, seed.wrapping_add(i as u64));
            let out = count_tree(&root, d, i < trees.min(50), &thresholds);
            done.fetch_add(1, Ordering::Relaxed);
            out
        })
        .collect();
    Analysis {
        branching,
        depth,
        seed,
        rows: rows(specs, &per_tree),
    }
}

/// One row of the analysis before it is measured: what it counts, its theory, and over how
/// many trees.
struct RowSpec {
    /// The algorithm (and its test threshold or ordering).
    name: String,
    /// The leaves the theory expects, where there is one.
    theory: Option<f64>,
    /// The trees it runs on.
    trees: u32,
}

/// The analysis's rows, in the order [`count_tree`] counts them, for `trees` random trees of
/// branching `b` and depth `d`, with the bisection tests at `thresholds` (the worst case
/// first).
fn row_specs(b: u32, d: u32, trees: u32, thresholds: &[(i32, f64)]) -> Vec<RowSpec> {
    let mut specs = vec![
        RowSpec {
            name: "minimax".into(),
            theory: Some((b as f64).powi(d as i32)),
            trees,
        },
        RowSpec {
            name: "negamax".into(),
            theory: Some((b as f64).powi(d as i32)),
            trees,
        },
        RowSpec {
            name: "alphabeta (perfect order)".into(),
            theory: Some(knuth_moore(b, d)),
            trees: trees.min(50),
        },
        RowSpec {
            name: "alphabeta (natural order)".into(),
            theory: None,
            trees,
        },
    ];
    for (i, &(_, p)) in thresholds.iter().enumerate() {
        let label = if i == 0 {
            format!("p={p:.4} = p_b, worst case")
        } else {
            format!("p={p:.4}")
        };
        specs.push(RowSpec {
            name: format!("bisection test {label}"),
            theory: Some(bisection_theory(b, d, p)),
            trees,
        });
    }
    for name in ["bisection (full dichotomy)", "mtdf", "pvs"] {
        specs.push(RowSpec {
            name: name.into(),
            theory: None,
            trees,
        });
    }
    specs
}

/// The search of depth `d` the analysis runs with `algorithm` and `ordering` (a small table).
fn analysis_config(algorithm: Algorithm, ordering: MoveOrder, d: u32) -> SearchConfig {
    let mut c = SearchConfig::new(algorithm, d);
    c.options.ordering = ordering;
    c.options.tt_mib = 1;
    c
}

/// Every row's (leaves, nodes) on the tree `root` of depth `d`, in the order of
/// [`row_specs`]; `None` for the perfectly ordered alpha-beta unless `perfect` (it costs a
/// full search per node).
fn count_tree(
    root: &RandomTree,
    d: u32,
    perfect: bool,
    thresholds: &[(i32, f64)],
) -> Vec<Option<(u64, u64)>> {
    let config =
        |algorithm: Algorithm, ordering: MoveOrder| analysis_config(algorithm, ordering, d);
    let run = |c: SearchConfig| {
        let r = Searcher::new(c).search(root, &NodeValue);
        Some((r.stats.leaves, r.stats.nodes))
    };
    let mut out = vec![
        run(config(Algorithm::Minimax, MoveOrder::Natural)),
        run(config(Algorithm::Negamax, MoveOrder::Natural)),
        if perfect {
            run(config(Algorithm::AlphaBeta, MoveOrder::Perfect))
        } else {
            None
        },
        run(config(Algorithm::AlphaBeta, MoveOrder::Natural)),
    ];
    for &(x, _) in thresholds {
        let (_, stats) = bisection_test(root, d, x, &NodeValue);
        out.push(Some((stats.leaves, stats.nodes)));
    }
    out.push(run(config(Algorithm::Bisection, MoveOrder::Natural)));
    out.push(run(config(Algorithm::Mtdf, MoveOrder::Natural)));
    out.push(run(config(Algorithm::Pvs, MoveOrder::Natural)));
    out
}

/// The rows of `specs`, each with the mean leaves and nodes over the trees of `per_tree` it
/// ran on.
fn rows(specs: Vec<RowSpec>, per_tree: &[Vec<Option<(u64, u64)>>]) -> Vec<Row> {
    specs
        .into_iter()
        .enumerate()
        .map(|(k, spec)| {
            let measured: Vec<(u64, u64)> = per_tree.iter().filter_map(|t| t[k]).collect();
            let n = measured.len().max(1) as f64;
            let leaves = measured.iter().map(|m| m.0 as f64).sum::<f64>() / n;
            let nodes = measured.iter().map(|m| m.1 as f64).sum::<f64>() / n;
            Row {
                algorithm: spec.name,
                measured: leaves,
                nodes,
                theory: spec.theory,
                ratio: spec.theory.map(|t| leaves / t),
                trees: spec.trees,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms() {
        assert_eq!(knuth_moore(8, 6), 1023.0);
        assert_eq!(knuth_moore(3, 3), 9.0 + 3.0 - 1.0);
        let p = worst_case_p(8);
        assert!((p - (1.0 - p.powi(8))).abs() < 1e-12);
        // At the fixed point every level has u = p_b, so N = (p/(1-p))^d.
        let expected = (p / (1.0 - p)).powi(6);
        assert!((bisection_theory(8, 6, p) / expected - 1.0).abs() < 1e-9);
        // One level: the expected number of children examined before the first success.
        assert!((bisection_theory(2, 1, 0.5) - 1.5).abs() < 1e-12);
    }

    #[test]
    fn thresholds_give_the_asked_probability() {
        for depth in [5, 6] {
            let (_, p) = threshold_for(0.3, depth);
            assert!((p - 0.3).abs() < 1e-5);
        }
    }
}

//! The theory of the seeds, reproduced on random trees: the Knuth–Moore count of alpha-beta on a
//! perfectly ordered tree, exactly, and the bisection test's mean leaf count within 3% of the
//! closed form over 2000 trees.

use joute::games::RandomTree;
use joute::search::analysis::{
    NodeValue, analyze, bisection_theory, knuth_moore, threshold_for, worst_case_p,
};
use joute::search::{Algorithm, MoveOrder, SearchConfig, Searcher, bisection_test};
use rayon::prelude::*;

#[test]
fn alphabeta_on_a_perfectly_ordered_tree_evaluates_the_knuth_moore_count() {
    for (b, d, trees) in [(8u8, 6u8, 10u64), (3, 7, 30), (5, 4, 30), (4, 5, 30)] {
        let mut config = SearchConfig::new(Algorithm::AlphaBeta, d as u32);
        config.options.ordering = MoveOrder::Perfect;
        for seed in 0..trees {
            let root = RandomTree::new(b, d, seed);
            let result = Searcher::new(config.clone()).search(&root, &NodeValue);
            assert_eq!(
                result.stats.leaves as f64,
                knuth_moore(b as u32, d as u32),
                "b={b} d={d} seed={seed}"
            );
        }
    }
}

#[test]
fn the_bisection_test_matches_its_closed_form_within_3_percent() {
    let (n, k, trees) = (8u8, 6u8, 2000u64);
    for p in [worst_case_p(n as u32), 0.5, 0.9] {
        let (x, p_exact) = threshold_for(p, k as u32);
        let total: u64 = (0..trees)
            .into_par_iter()
            .map(|seed| {
                bisection_test(&RandomTree::new(n, k, seed), k as u32, x, &NodeValue)
                    .1
                    .leaves
            })
            .sum();
        let measured = total as f64 / trees as f64;
        let theory = bisection_theory(n as u32, k as u32, p_exact);
        let ratio = measured / theory;
        assert!(
            (ratio - 1.0).abs() < 0.03,
            "p={p_exact}: measured {measured}, theory {theory}, ratio {ratio}"
        );
    }
}

#[test]
fn the_analysis_table_shows_measured_theory_and_ratio() {
    let analysis = analyze(3, 4, 40, 7);
    let row = |name: &str| {
        analysis
            .rows
            .iter()
            .find(|r| r.algorithm.starts_with(name))
            .unwrap()
    };
    assert_eq!(row("minimax").measured, 81.0);
    assert_eq!(row("minimax").ratio, Some(1.0));
    assert_eq!(row("negamax").measured, 81.0);
    assert_eq!(row("alphabeta (perfect order)").measured, knuth_moore(3, 4));
    let natural = row("alphabeta (natural order)").measured;
    assert!(natural >= knuth_moore(3, 4) && natural <= 81.0);
    assert!(
        analysis
            .rows
            .iter()
            .any(|r| r.algorithm.contains("worst case"))
    );
    assert!(row("mtdf").theory.is_none());
}

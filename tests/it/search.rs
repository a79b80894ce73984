//! Search behaviour beyond agreement: node counts, budgets, determinism, the non-exact engines.

use std::time::Duration;

use joute::eval::Evaluator;
use joute::games::{Connect4, Game, Morpion, Othello};
use joute::search::{Algorithm, Limits, SearchConfig, Searcher, WIN};

/// Evaluates every unfinished position as even: the search sees only wins and losses.
struct Even;

impl<G: Game> Evaluator<G> for Even {
    fn evaluate(&self, _: &G) -> i32 {
        0
    }
    fn bound(&self) -> i32 {
        0
    }
}

/// Disc difference for Othello, a small smooth evaluation.
struct Discs;

impl Evaluator<Othello> for Discs {
    fn evaluate(&self, pos: &Othello) -> i32 {
        pos.player.count_ones() as i32 - pos.opponent.count_ones() as i32
    }
    fn bound(&self) -> i32 {
        64
    }
}

#[test]
fn minimax_visits_the_whole_tic_tac_toe_tree_and_finds_the_draw() {
    let config = SearchConfig::new(Algorithm::Minimax, 9);
    let result = Searcher::new(config).search(&Morpion::start(3, 3, 3), &Even);
    assert_eq!(result.stats.nodes, 549_946);
    assert_eq!(result.stats.leaves, 255_168);
    assert_eq!(result.score, 0);
}

#[test]
fn every_exact_algorithm_solves_tic_tac_toe_and_a_won_4x4() {
    for algorithm in Algorithm::EXACT {
        let r =
            Searcher::new(SearchConfig::new(algorithm, 9)).search(&Morpion::start(3, 3, 3), &Even);
        assert_eq!(r.score, 0, "{algorithm}");
    }
    // 4x4, three in a row: the first player wins by an open two on move 2, on ply 5.
    for algorithm in [Algorithm::AlphaBeta, Algorithm::Mtdf, Algorithm::Pvs] {
        let r =
            Searcher::new(SearchConfig::new(algorithm, 16)).search(&Morpion::start(4, 4, 3), &Even);
        assert_eq!(r.score, WIN - 5, "{algorithm}");
    }
}

#[test]
fn a_node_budget_is_deterministic_and_respected() {
    for algorithm in [
        Algorithm::AlphaBeta,
        Algorithm::Pvs,
        Algorithm::Mtdf,
        Algorithm::Negamax,
    ] {
        let mut config = SearchConfig::new(algorithm, 1);
        config.limits = Limits {
            depth: None,
            nodes: Some(20_000),
            time: None,
        };
        let a = Searcher::new(config.clone()).search(&Othello::start(), &Discs);
        let b = Searcher::new(config).search(&Othello::start(), &Discs);
        assert_eq!(a, with_seconds_of(b.clone(), &a), "{algorithm}");
        assert!(a.stats.nodes <= 20_001, "{algorithm}: {}", a.stats.nodes);
        assert!(
            a.stats.depth >= 3,
            "{algorithm} reached depth {}",
            a.stats.depth
        );
        assert!(!a.stats.timed_out);
    }
}

/// `b` with the wall-clock seconds of `a`, so results compare on everything else.
fn with_seconds_of<M: Clone>(
    mut b: joute::search::SearchResult<M>,
    a: &joute::search::SearchResult<M>,
) -> joute::search::SearchResult<M> {
    b.stats.seconds = a.stats.seconds;
    b
}

#[test]
fn a_time_limit_is_flagged_as_not_reproducible() {
    let mut config = SearchConfig::new(Algorithm::Pvs, 1);
    config.limits = Limits {
        depth: Some(60),
        nodes: None,
        time: Some(Duration::from_millis(50)),
    };
    let r = Searcher::new(config).search(&Othello::start(), &Discs);
    assert!(r.stats.timed_out);
    assert!(r.best_move.is_some());
    assert!(r.stats.seconds < 2.0);
}

#[test]
fn mcts_is_seeded_and_takes_an_immediate_win() {
    // X has three in the bottom row (columns 1-3) and wins with column 4.
    let pos = Connect4::start().play_digits("112233").unwrap();
    let mut config = SearchConfig::new(Algorithm::Mcts, 1);
    config.options.playouts = 3000;
    config.options.seed = 5;
    let a = Searcher::new(config.clone()).search(&pos, &Even);
    let b = Searcher::new(config).search(&pos, &Even);
    assert_eq!(a.best_move, b.best_move);
    assert_eq!(a.score, b.score);
    assert_eq!(pos.format_move(a.best_move.unwrap()), "4");
    assert!(a.score > 500, "mean result {}", a.score);
}

#[test]
fn a_full_mcts_tree_stops_growing_and_the_search_goes_on() {
    // 1 MiB holds some twenty thousand nodes of Connect 4; 100,000 playouts from the start
    // would grow the tree far beyond.
    let pos = Connect4::start();
    let mut config = SearchConfig::new(Algorithm::Mcts, 1);
    config.options.playouts = 100_000;
    config.options.tree_mib = 1;
    config.options.seed = 5;
    let small = Searcher::new(config.clone()).search(&pos, &Even);
    assert!(small.best_move.is_some());
    // Every playout was made although the tree stopped growing: the same number of
    // simulations as with room to spare, and fewer tree nodes created.
    config.options.tree_mib = 256;
    let large = Searcher::new(config).search(&pos, &Even);
    assert_eq!(small.stats.leaves, 100_000);
    assert_eq!(large.stats.leaves, 100_000);
    assert!(
        small.stats.depth < large.stats.depth,
        "{:?} vs {:?}",
        small.stats,
        large.stats
    );
}

#[test]
fn random_moves_are_legal_and_seeded() {
    let mut config = SearchConfig::new(Algorithm::Random, 1);
    config.options.seed = 11;
    let play = |config: SearchConfig| {
        let mut searcher = Searcher::new(config);
        let mut pos = Othello::start();
        let mut moves = vec![];
        while let Some(mv) = searcher.search(&pos, &Even).best_move {
            moves.push(pos.format_move(mv));
            pos = pos.play(mv);
        }
        (moves, pos.outcome().is_some())
    };
    let (a, finished) = play(config.clone());
    assert!(finished);
    assert_eq!(a, play(config.clone()).0);
    config.options.seed = 12;
    assert_ne!(a, play(config).0);
}

#[test]
fn tie_breaking_chooses_among_equal_moves_by_seed() {
    // From the Othello start every move is equivalent by symmetry: all four score alike.
    let mut chosen = std::collections::BTreeSet::new();
    for seed in 0..24 {
        let mut config = SearchConfig::new(Algorithm::AlphaBeta, 3);
        config.options.tie_break = true;
        config.options.seed = seed;
        let r = Searcher::new(config.clone()).search(&Othello::start(), &Discs);
        let again = Searcher::new(config).search(&Othello::start(), &Discs);
        assert_eq!(r.best_move, again.best_move);
        chosen.insert(Othello::start().format_move(r.best_move.unwrap()));
    }
    assert_eq!(chosen.len(), 4, "{chosen:?}");
}

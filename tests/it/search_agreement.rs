//! The exact algorithms agree: on random positions of every game, minimax, negamax, alphabeta
//! (with and without ordering, fail-soft and fail-hard), bisection, mtdf and pvs return the same
//! root value as an independent negamax written here, and each returns a move that achieves it.

use joute::eval::Evaluator;
use joute::games::hash::mix64;
use joute::games::{Connect4, Game, Morpion, MoveList, Othello, RandomTree, Side, random_position};
use joute::search::{Algorithm, MoveOrder, SearchConfig, Searcher, WIN};

/// A deterministic, pseudo-random evaluation in -1000..=1000: irregular values stress the
/// pruning and the transposition tables more than a smooth evaluation would.
struct HashEval;

impl<G: Game> Evaluator<G> for HashEval {
    fn evaluate(&self, pos: &G) -> i32 {
        (mix64(pos.hash_key()) % 2001) as i32 - 1000
    }
    fn bound(&self) -> i32 {
        1000
    }
}

/// Plain negamax with joute's scoring rules (a win `p` plies away scores `2^24 − p`), for reference.
fn reference<G: Game>(pos: &G, depth: u32, ply: u32) -> i32 {
    if let Some(outcome) = pos.outcome() {
        let side = pos.side_to_move();
        if G::SCORED_LEAVES {
            return if side == Side::First {
                outcome.score
            } else {
                -outcome.score
            };
        }
        return match outcome.winner {
            None => 0,
            Some(w) if w == side => WIN - ply as i32,
            Some(_) => -(WIN - ply as i32),
        };
    }
    if depth == 0 {
        return <HashEval as Evaluator<G>>::evaluate(&HashEval, pos);
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves
        .iter()
        .map(|&mv| -reference(&pos.play(mv), depth - 1, ply + 1))
        .max()
        .unwrap()
}

fn configs() -> Vec<(String, SearchConfig)> {
    let mut out = vec![];
    for algorithm in Algorithm::EXACT {
        out.push((
            algorithm.name().to_string(),
            SearchConfig::new(algorithm, 1),
        ));
    }
    for (ordering, fail_soft) in [
        (MoveOrder::Natural, true),
        (MoveOrder::Natural, false),
        (MoveOrder::Evaluation, false),
        (MoveOrder::Perfect, true),
    ] {
        let mut config = SearchConfig::new(Algorithm::AlphaBeta, 1);
        config.options.ordering = ordering;
        config.options.fail_soft = fail_soft;
        out.push((
            format!("alphabeta ordering={ordering:?} fail-soft={fail_soft}"),
            config,
        ));
    }
    out
}

/// Searches `count` random positions of `start`'s game, at depths cycling through
/// `1..=max_depth`, with every exact configuration; all must agree with the reference.
fn agree<G: Game>(start: G, count: usize, max_depth: u32, seed: u64) {
    let configs = configs();
    let mut searchers: Vec<(String, Searcher<G>, SearchConfig)> = configs
        .into_iter()
        .map(|(name, config)| (name, Searcher::new(config.clone()), config))
        .collect();
    let mut state = seed;
    let mut checked = 0;
    while checked < count {
        // A random position: a random number of random moves from the start.
        state = mix64(state);
        let pos = random_position(start, (state % 60) as usize, state);
        if pos.outcome().is_some() {
            continue;
        }
        let depth = 1 + (checked as u32 % max_depth);
        let expected = reference(&pos, depth, 0);
        for (name, searcher, config) in &mut searchers {
            // Each searcher keeps its tables from position to position, as in a game.
            let mut config = config.clone();
            config.limits.depth = Some(depth);
            searcher.set_limits(config.limits.clone());
            let mut results = vec![searcher.search(&pos, &HashEval)];
            if matches!(config.algorithm, Algorithm::Mtdf | Algorithm::Pvs) {
                // With a fresh table too: stale entries must not change the answer.
                results.push(Searcher::new(config).search(&pos, &HashEval));
            }
            for r in &results {
                assert_eq!(
                    r.score,
                    expected,
                    "{name} at depth {depth} on {}: {:?}",
                    pos.name(),
                    pos
                );
                let mv = r.best_move.expect("a move");
                let achieved = -reference(&pos.play(mv), depth - 1, 1);
                assert_eq!(
                    achieved,
                    expected,
                    "{name}: move {} does not reach the value",
                    pos.format_move(mv)
                );
                assert_eq!(
                    r.pv.first(),
                    Some(&mv),
                    "{name}: the PV starts with the move"
                );
            }
        }
        checked += 1;
    }
}

#[test]
fn exact_algorithms_agree_on_morpion() {
    agree(Morpion::start(3, 3, 3), 1000, 7, 3);
    agree(Morpion::start(4, 4, 3), 300, 4, 4);
}

#[test]
fn exact_algorithms_agree_on_random_trees() {
    agree(RandomTree::new(5, 7, 9), 300, 7, 5);
}

/// The long suites: ignored by a plain `cargo test`, run by CI (`.ci/run`) and by
/// `cargo test --test it -- --ignored ::long::`.
mod long {
    use super::*;

    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn exact_algorithms_agree_on_othello() {
        agree(Othello::start(), 1000, 5, 1);
    }

    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn exact_algorithms_agree_on_connect4() {
        agree(Connect4::start(), 1000, 7, 2);
    }
}

//! Exact values of positions of any game by full-depth search: principal variation search with
//! a large transposition table, deepening until the game's end (every leaf a finished game).
//! The games without a dedicated solver (Morpion, random trees) are solved with it.

use crate::eval::Evaluator;
use crate::games::{Game, MoveList};
use crate::search::{Algorithm, Limits, MAX_PLY, SearchConfig, Searcher, WIN_THRESHOLD};

use super::Solution;

/// Scores every unfinished position 0: at full depth only finished games are scored.
struct Unknown;

impl<G: Game> Evaluator<G> for Unknown {
    fn evaluate(&self, _: &G) -> i32 {
        0
    }
    fn bound(&self) -> i32 {
        0
    }
}

/// The exact value of `pos` for the side to move, in the search's convention (`WIN - plies`
/// for a win, `-(WIN - plies)` for a loss, 0 for a draw; a random tree's leaf value), with every
/// best move. `plies_left` bounds the game's remaining length (Morpion: the empty cells).
pub fn solve<G: Game>(pos: &G, plies_left: u32, tt_mib: usize) -> Solution<G::Move> {
    solve_within(pos, plies_left, tt_mib, None, None)
}

/// [`solve`] within a node budget and a time: the search deepens one ply at a time, and a
/// limit reached before the last ply stops it with the deepest iteration it finished
/// ([`Solution::stopped`]: its depth, its best move; its score proves nothing then).
pub fn solve_within<G: Game>(
    pos: &G,
    plies_left: u32,
    tt_mib: usize,
    nodes: Option<u64>,
    time: Option<std::time::Duration>,
) -> Solution<G::Move> {
    let depth = plies_left.clamp(1, MAX_PLY as u32 - 2);
    let clock = std::time::Instant::now();
    let mut config = SearchConfig::new(Algorithm::Pvs, depth);
    config.options.tt_mib = tt_mib;
    config.limits.nodes = nodes;
    config.limits.time = time;
    let mut searcher = Searcher::new(config);
    let root = searcher.search(pos, &Unknown);
    let mut spent = root.stats.nodes;
    // What is left of the limits for the next search.
    let remaining = |spent: u64| Limits {
        depth: None,
        nodes: nodes.map(|n| n.saturating_sub(spent).max(1)),
        time: time.map(|t| t.saturating_sub(clock.elapsed())),
    };
    let cut = |r: &crate::search::SearchResult<G::Move>, wanted: u32| {
        r.stats.depth < wanted || r.stats.timed_out
    };
    let stop_reason = || {
        if time.is_some_and(|t| clock.elapsed() >= t) {
            super::StopReason::Time
        } else {
            super::StopReason::Nodes
        }
    };
    let limited = nodes.is_some() || time.is_some();
    if limited && cut(&root, depth) {
        return Solution {
            score: root.score,
            best_moves: root.best_move.into_iter().collect(),
            nodes: spent,
            stopped: Some(super::Stopped {
                reason: stop_reason(),
                lower: -crate::search::WIN,
                upper: crate::search::WIN,
                depth: root.stats.depth,
            }),
        };
    }
    let mut best_moves = Vec::new();
    let mut stopped = None;
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.len() == 1 {
        best_moves.push(moves[0]);
    } else {
        for &mv in &moves {
            // Each child is searched to the same horizon, one ply shorter, with the same table.
            let child = pos.play(mv);
            let wanted = (depth - 1).max(1);
            searcher.set_limits(Limits {
                depth: Some(wanted),
                ..remaining(spent)
            });
            let r = searcher.search(&child, &Unknown);
            spent += r.stats.nodes;
            if limited && cut(&r, wanted) {
                // The score is exact; the list of best moves is not complete.
                stopped = Some(super::Stopped {
                    reason: stop_reason(),
                    lower: root.score,
                    upper: root.score,
                    depth,
                });
                break;
            }
            if -one_ply_later(r.score) == root.score {
                best_moves.push(mv);
            }
        }
    }
    Solution {
        score: root.score,
        best_moves,
        nodes: spent,
        stopped,
    }
}

/// A score found from a child, as it counts one ply further from the root: wins and losses
/// come one ply later.
fn one_ply_later(score: i32) -> i32 {
    if score >= WIN_THRESHOLD {
        score - 1
    } else if score <= -WIN_THRESHOLD {
        score + 1
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Morpion;
    use crate::search::WIN;

    #[test]
    fn small_boards_have_their_known_values() {
        // Tic-tac-toe is a draw and every first move draws.
        let s = solve(&Morpion::start(3, 3, 3), 9, 4);
        assert_eq!(s.score, 0);
        assert_eq!(s.best_moves.len(), 9);
        // 4x4, three in a row: a first-player win, in 5 plies.
        let s = solve(&Morpion::start(4, 4, 3), 16, 16);
        assert_eq!(s.score, WIN - 5);
        assert!(!s.best_moves.is_empty());
        // From a won-in-one position the winning move is the only best move.
        let pos = Morpion::start(3, 3, 3)
            .play_sequence("a1 b1 a2 b2")
            .unwrap();
        let s = solve(&pos, 5, 1);
        assert_eq!(s.score, WIN - 1);
        assert_eq!(s.best_moves, vec![pos.parse_move("a3").unwrap()]);
    }
}

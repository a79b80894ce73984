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
    let depth = plies_left.clamp(1, MAX_PLY as u32 - 2);
    let mut config = SearchConfig::new(Algorithm::Pvs, depth);
    config.options.tt_mib = tt_mib;
    let mut searcher = Searcher::new(config);
    let root = searcher.search(pos, &Unknown);
    let mut nodes = root.stats.nodes;
    let mut best_moves = Vec::new();
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.len() == 1 {
        best_moves.push(moves[0]);
    } else {
        for &mv in &moves {
            // Each child is searched to the same horizon, one ply shorter, with the same table.
            let child = pos.play(mv);
            searcher.set_limits(Limits::depth((depth - 1).max(1)));
            let r = searcher.search(&child, &Unknown);
            nodes += r.stats.nodes;
            if -one_ply_later(r.score) == root.score {
                best_moves.push(mv);
            }
        }
    }
    Solution {
        score: root.score,
        best_moves,
        nodes,
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

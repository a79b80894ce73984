//! Perft: the number of move sequences of exactly `depth` plies from a position. An Othello pass
//! is a ply; a finished game contributes nothing below its own depth. The last ply is counted
//! without being played (bulk counting), through [`Game::move_count`].

use rayon::prelude::*;

use super::{Game, MoveList};

/// Counts the move sequences of exactly `depth` plies from `pos`, on the current thread.
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.move_count() as u64,
        // The hot loop: every child of a node two plies above the leaves, counted in place.
        2 => {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            moves
                .iter()
                .map(|&mv| pos.play(mv).move_count() as u64)
                .sum()
        }
        _ => {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            moves
                .iter()
                .map(|&mv| perft(&pos.play(mv), depth - 1))
                .sum()
        }
    }
}

/// Below this many plies a subtree is counted on one thread: splitting it would cost more than
/// it saves.
const SPLIT_MIN_DEPTH: u32 = 5;

/// Like [`perft`], but the first plies are spread over the current rayon thread pool. The count
/// is the same whatever the number of threads.
pub fn perft_parallel<G: Game>(pos: &G, depth: u32) -> u64 {
    perft_split(pos, depth, 2)
}

fn perft_split<G: Game>(pos: &G, depth: u32, split_plies: u32) -> u64 {
    if split_plies == 0 || depth < SPLIT_MIN_DEPTH {
        return perft(pos, depth);
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves
        .par_iter()
        .map(|&mv| perft_split(&pos.play(mv), depth - 1, split_plies - 1))
        .sum()
}

/// The count under each legal first move, in move-generation order (`perft --divide`).
pub fn divide<G: Game>(pos: &G, depth: u32, parallel: bool) -> Vec<(G::Move, u64)> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let count = |mv: &G::Move| {
        let child = pos.play(*mv);
        let below = depth.saturating_sub(1);
        let n = if parallel {
            perft_split(&child, below, 1)
        } else {
            perft(&child, below)
        };
        (*mv, n)
    };
    if parallel {
        moves.par_iter().map(count).collect()
    } else {
        moves.iter().map(count).collect()
    }
}

/// One depth of a perft run: the count, the seconds it took and the leaves per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerftRow {
    /// The depth, in plies.
    pub depth: u32,
    /// Move sequences of that many plies.
    pub count: u64,
    /// Wall-clock seconds of the count.
    pub seconds: f64,
    /// `count / seconds` (0 when too fast to time).
    pub rate: f64,
}

/// A perft run as `joute perft` makes it: every depth from 1, timed, and optionally the last
/// depth divided by first move.
pub struct PerftRun<G: Game> {
    /// One row per depth, 1 to the deepest.
    pub rows: Vec<PerftRow>,
    /// The count under each first move at the deepest depth (empty unless asked for).
    pub divide: Vec<(G::Move, u64)>,
    /// Seconds of every count, the division included.
    pub seconds: f64,
}

/// Counts every depth from 1 to `depth` from `pos` on `threads` threads (more than one: the
/// first plies are spread over them), telling `on_row` of each as it is counted, then, with
/// `divided`, divides the deepest count by first move. Fails only when the threads cannot start.
pub fn perft_run<G: Game>(
    pos: &G,
    depth: u32,
    threads: usize,
    divided: bool,
    mut on_row: impl FnMut(&PerftRow) -> std::io::Result<()>,
) -> std::io::Result<PerftRun<G>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(std::io::Error::other)?;
    let parallel = threads > 1;
    let mut rows = Vec::new();
    let mut seconds = 0.0;
    for depth in 1..=depth {
        let clock = std::time::Instant::now();
        let count = if parallel {
            pool.install(|| perft_parallel(pos, depth))
        } else {
            perft(pos, depth)
        };
        let took = clock.elapsed().as_secs_f64();
        seconds += took;
        let rate = if took > 0.0 { count as f64 / took } else { 0.0 };
        let row = PerftRow {
            depth,
            count,
            seconds: took,
            rate,
        };
        on_row(&row)?;
        rows.push(row);
    }
    let divide = if divided {
        let clock = std::time::Instant::now();
        let parts = pool.install(|| divide(pos, depth, parallel));
        seconds += clock.elapsed().as_secs_f64();
        parts
    } else {
        Vec::new()
    };
    Ok(PerftRun {
        rows,
        divide,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Connect4, Morpion, Othello, RandomTree};

    #[test]
    fn othello_start_counts() {
        let expected = [4, 12, 56, 244, 1396, 8200, 55092];
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&Othello::start(), d as u32 + 1), n);
        }
    }

    #[test]
    fn parallel_and_divide_agree_with_serial() {
        let pos = Connect4::start();
        let serial = perft(&pos, 7);
        assert_eq!(serial, 823536);
        assert_eq!(perft_parallel(&pos, 7), serial);
        let parts = divide(&pos, 7, true);
        assert_eq!(parts.len(), 7);
        assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), serial);
    }

    #[test]
    fn small_games_and_trees() {
        assert_eq!(perft(&Morpion::start(3, 3, 3), 9), 127872);
        assert_eq!(perft(&RandomTree::new(3, 4, 1), 4), 81);
        assert_eq!(perft(&RandomTree::new(3, 4, 1), 5), 0);
    }
}

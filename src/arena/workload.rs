//! A rough, optimistic estimate of the work each engine of a run does, to warn before a run
//! whose games cannot finish in any reasonable time (minimax at depth 4 on a 15×15 board).
//!
//! The estimate is a lower bound, so a warning means the run is clearly infeasible: positions
//! per move are `b^d` for minimax and negamax and Knuth and Moore's best case
//! `b^⌈d/2⌉ + b^⌊d/2⌋ − 1` for the pruning searches (`b` the mean number of legal moves after the
//! openings, of those within `near` of a mark for an engine that searches only these), a node
//! budget itself, or playouts times the moves left for `mcts`; searched at
//! [`POSITIONS_PER_SECOND`], faster than joute's searches run on one core.

use super::openings;
use super::spec::{ResolvedEngine, ResolvedSpec};
use crate::eval::{Features, FeaturesVisitor};
use crate::games::{MoveList, random_game};
use crate::search::Algorithm;

/// The search speed the estimate assumes (optimistic: `joute bench` measures about half).
pub const POSITIONS_PER_SECOND: f64 = 2e7;

/// A game longer than this, by the estimate, gets a warning.
pub const WARN_SECONDS_PER_GAME: f64 = 600.0;

/// Openings sampled for the estimate.
const SAMPLE: usize = 64;

/// The warning for a run whose engines play on time (a clock, a time limit) with more games
/// at once than the machine has cores (`threads` workers): each game's engines then share a core
/// with another game's, get less CPU than their time allows, and play weaker by the machine's
/// doing. `None` when the run plays at a fixed depth or node count, or has a core a game.
pub fn oversubscribed(spec: &ResolvedSpec, threads: usize) -> Option<String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    oversubscribed_on(spec, threads, cores)
}

/// [`oversubscribed`] on a machine of `cores` cores.
pub fn oversubscribed_on(spec: &ResolvedSpec, threads: usize, cores: usize) -> Option<String> {
    (spec.on_time() && threads > cores).then(|| {
        format!(
            "warning: {threads} games at once on {cores} cores, and engines play on time (a clock or a time limit): they share cores and get less CPU than their time allows, which changes the games; the cost table counts the moves starved of CPU (use --threads {cores} or fewer)"
        )
    })
}

/// Why a run whose hosted engine plays on a clock cannot play `threads` games at once, unless
/// `oversubscribe` says to go on: hosted engines (Python functions) share one interpreter,
/// which runs one of them at a time, so a bot's clock would run while it waits for another
/// game's bot.
pub fn hosted_refusal(spec: &ResolvedSpec, threads: usize, oversubscribe: bool) -> Option<String> {
    if threads <= 1 || oversubscribe {
        return None;
    }
    let (_, e) = spec
        .engines
        .iter()
        .enumerate()
        .find(|(i, e)| e.hosted.is_some() && spec.engine_clock(*i).is_some())?;
    Some(format!(
        "engine '{}' is hosted (a function of the program running the spec) and plays on a clock, with {threads} games at once: hosted engines share one interpreter, which runs one of them at a time (Python's GIL), so its clock would run while it waits for another game's; play one game at a time (threads = 1), or pass oversubscribe to go on",
        e.name
    ))
}

/// Why a run whose built-in engines may use several threads (`threads`) cannot play `games`
/// games at once on the machine's cores, unless `oversubscribe` says to go on: on time (a
/// clock or a time limit) `games × the most threads of an engine` above the cores would have
/// threads wait for a core while their clock runs, which changes the games.
pub fn threads_refusal(spec: &ResolvedSpec, games: usize, oversubscribe: bool) -> Option<String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    threads_refusal_on(spec, games, cores, oversubscribe)
}

/// [`threads_refusal`] on a machine of `cores` cores.
pub fn threads_refusal_on(
    spec: &ResolvedSpec,
    games: usize,
    cores: usize,
    oversubscribe: bool,
) -> Option<String> {
    let e = spec.engines.iter().max_by_key(|e| e.threads)?;
    let wanted = games.saturating_mul(e.threads as usize);
    (e.threads > 1 && spec.on_time() && wanted > cores && !oversubscribe).then(|| {
        format!(
            "engine '{}' may use threads = {} and engines play on time (a clock or a time limit): {games} games at once (--threads) need {wanted} cores, and this machine has {cores}; threads would wait for a core while their clock runs, which changes the games: lower --threads or the engine's threads, or pass --oversubscribe to go on",
            e.name, e.threads
        )
    })
}

/// Why a run asking for pinned cores (`affinity`) cannot have them with `threads` games at
/// once, if it cannot: the machine cannot pin (not Linux), or more games than cores on a clock
/// (two games' engines would then share a core and its time, which changes the games) unless
/// `oversubscribe` says to go on.
pub fn affinity_refusal(
    spec: &ResolvedSpec,
    threads: usize,
    oversubscribe: bool,
) -> Option<String> {
    if !spec.affinity {
        return None;
    }
    let Some(cpus) = super::affinity::cpus() else {
        return Some("affinity = true needs Linux, where joute pins each game's thread and programs to cores; remove it".into());
    };
    affinity_refusal_on(spec, threads, cpus.len(), oversubscribe)
}

/// [`affinity_refusal`] on a machine where joute may use `cores` cores.
pub fn affinity_refusal_on(
    spec: &ResolvedSpec,
    threads: usize,
    cores: usize,
    oversubscribe: bool,
) -> Option<String> {
    (spec.affinity && spec.on_time() && threads > cores && !oversubscribe).then(|| {
        format!(
            "affinity = true gives each game cores of its own, and {threads} games at once on {cores} cores would share them while engines play on time (a clock or a time limit), which changes the games: use --threads {cores} or fewer, or --oversubscribe to share cores anyway"
        )
    })
}

/// One line per engine whose games would take more than [`WARN_SECONDS_PER_GAME`] each.
pub fn warnings(spec: &ResolvedSpec) -> Vec<String> {
    crate::eval::dispatch(&spec.game_kind(), Estimate { spec })
}

struct Estimate<'a> {
    spec: &'a ResolvedSpec,
}

impl FeaturesVisitor for Estimate<'_> {
    type Output = Vec<String>;
    fn visit<G: Features>(self, start: G) -> Vec<String> {
        let sample = &self.spec.opening_moves[..self.spec.opening_moves.len().min(SAMPLE)];
        let Ok(positions) = openings::positions(&start, sample) else {
            return Vec::new();
        };
        if positions.is_empty() {
            return Vec::new();
        }
        // The mean number of plies left after the openings (random games to the end: a fair
        // idea of a game's length).
        let n = positions.len() as f64;
        let left = positions
            .iter()
            .enumerate()
            .map(|(k, pos)| {
                let (line, _) = random_game(*pos, usize::MAX, self.spec.seed ^ k as u64);
                (line.len() - 1) as f64
            })
            .sum::<f64>();
        let left = (left / n).max(1.0);
        // The mean number of moves an engine chooses from after the openings: the legal ones,
        // or those within `near` of a mark for an engine that searches only these.
        let branching = |near: u32| {
            let mut moves = MoveList::new();
            let sum: usize = positions
                .iter()
                .map(|pos| {
                    moves.clear();
                    pos.legal_moves(&mut moves);
                    if near > 0 {
                        pos.retain_near(&mut moves, near);
                    }
                    moves.len()
                })
                .sum();
            (sum as f64 / n).max(1.0)
        };
        // An engine on a clock stops when its time is up: the clock bounds its games.
        (0..self.spec.engines.len())
            .filter(|&i| self.spec.engine_clock(i).is_none())
            .filter_map(|i| {
                let e = &self.spec.engines[i];
                warning(e, &start.name(), branching(e.near), left)
            })
            .collect()
    }
}

/// The warning for engine `e`, if its games would be too long.
fn warning(e: &ResolvedEngine, game: &str, branching: f64, plies_left: f64) -> Option<String> {
    let moves_per_game = (plies_left / 2.0).max(1.0);
    let per_move = if let Some(ms) = e.time_ms {
        ms / 1000.0
    } else {
        positions_per_move(e, branching, plies_left)? / POSITIONS_PER_SECOND
    };
    let per_game = per_move * moves_per_game;
    (per_game > WARN_SECONDS_PER_GAME).then(|| {
        format!(
            "warning: engine '{}' ({}) on {game}: about {} a move, {} a game even at {} M positions/s ({:.0} moves to choose from, {:.0} plies a game); give it a smaller budget (depth, nodes = N or time = \"1s\")",
            e.name,
            e.describe(),
            readable(per_move),
            readable(per_game),
            POSITIONS_PER_SECOND / 1e6,
            branching,
            plies_left
        )
    })
}

/// Positions a move, at least; `None` for an engine that does no search (random).
fn positions_per_move(e: &ResolvedEngine, b: f64, plies_left: f64) -> Option<f64> {
    let algorithm: Algorithm = e.algorithm.parse().ok()?;
    if algorithm == Algorithm::Random {
        return None;
    }
    if algorithm == Algorithm::Mcts {
        let playouts = e.nodes.unwrap_or(e.playouts) as f64;
        return Some(playouts * plies_left.max(1.0));
    }
    if let Some(nodes) = e.nodes {
        return Some(nodes as f64);
    }
    let d = e.depth? as i32;
    Some(match algorithm {
        Algorithm::Minimax | Algorithm::Negamax => b.powi(d),
        _ => b.powi((d + 1) / 2) + b.powi(d / 2) - 1.0,
    })
}

/// Seconds as `40 s`, `12 min`, `3.5 h`, `9 days`.
fn readable(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else if seconds < 172_800.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else {
        format!("{:.0} days", seconds / 86_400.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::spec::TournamentSpec;

    fn spec(game: &str, engine: &str) -> ResolvedSpec {
        TournamentSpec::parse(
            &format!(
                "name = \"w\"\ngame = \"{game}\"\nseed = 1\nopenings = {{ plies = 2, count = 4 }}\n[[engine]]\nname = \"big\"\n{engine}\n[[engine]]\nname = \"r\"\nalgorithm = \"random\"\n"
            ),
            "w.toml",
        )
        .unwrap()
        .resolved
    }

    #[test]
    fn minimax_four_plies_deep_on_fifteen_by_fifteen_is_flagged() {
        let w = warnings(&spec(
            "morpion-15x15-5",
            "algorithm = \"minimax\"\ndepth = 4",
        ));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("engine 'big'") && w[0].contains("a game"),
            "{w:?}"
        );
    }

    #[test]
    fn moves_near_the_marks_are_what_a_near_engine_chooses_from() {
        // Depth 7 over every one of the ~220 cells is flagged; over the cells within 2 of the
        // opening's marks (at most 5 × 5 around each of 2) it is not.
        let everywhere = warnings(&spec("renju", "algorithm = \"pvs\"\ndepth = 7"));
        assert_eq!(everywhere.len(), 1, "{everywhere:?}");
        let near = warnings(&spec("renju", "algorithm = \"pvs\"\ndepth = 7\nnear = 2"));
        assert!(near.is_empty(), "{near:?}");
        // Depth 12 is flagged even so.
        let deep = warnings(&spec("renju", "algorithm = \"pvs\"\ndepth = 12\nnear = 2"));
        assert_eq!(deep.len(), 1, "{deep:?}");
        assert!(deep[0].contains("moves to choose from"), "{deep:?}");
    }

    #[test]
    fn ordinary_engines_are_not_flagged() {
        for (game, engine) in [
            ("othello", "algorithm = \"alphabeta\"\ndepth = 8"),
            ("connect4", "algorithm = \"pvs\"\ndepth = 12"),
            ("connect4", "algorithm = \"mcts\"\nplayouts = 10000"),
            ("morpion-15x15-5", "algorithm = \"alphabeta\"\ndepth = 2"),
            ("othello", "algorithm = \"pvs\"\ntime = \"1s\""),
        ] {
            assert!(warnings(&spec(game, engine)).is_empty(), "{game} {engine}");
        }
        // A time limit of an hour a move is flagged.
        assert_eq!(
            warnings(&spec("othello", "algorithm = \"pvs\"\ntime = \"3600s\"")).len(),
            1
        );
    }

    #[test]
    fn engine_threads_beyond_the_cores_on_time_are_refused() {
        let on_time = spec(
            "othello",
            "algorithm = \"pvs\"\ntime = \"100ms\"\nthreads = 2",
        );
        // 2 games × 2 threads on 4 cores fit; on 3 they do not, unless oversubscribed.
        assert_eq!(threads_refusal_on(&on_time, 2, 4, false), None);
        let why = threads_refusal_on(&on_time, 2, 3, false).unwrap();
        assert!(
            why.contains("engine 'big'")
                && why.contains("threads = 2")
                && why.contains("--threads")
                && why.contains("need 4 cores")
                && why.contains("--oversubscribe"),
            "{why}"
        );
        assert_eq!(threads_refusal_on(&on_time, 2, 3, true), None);
        // At a fixed depth the games do not depend on the CPU they get; one thread is today's.
        let fixed = spec("othello", "algorithm = \"pvs\"\ndepth = 4\nthreads = 8");
        assert_eq!(threads_refusal_on(&fixed, 4, 2, false), None);
        let one = spec("othello", "algorithm = \"pvs\"\ntime = \"100ms\"");
        assert_eq!(threads_refusal_on(&one, 4, 2, false), None);
    }

    #[test]
    fn engine_threads_enter_the_hash_only_above_one() {
        let plain = spec("othello", "algorithm = \"pvs\"\ndepth = 4");
        let one = spec("othello", "algorithm = \"pvs\"\ndepth = 4\nthreads = 1");
        let two = spec("othello", "algorithm = \"pvs\"\ndepth = 4\nthreads = 2");
        assert_eq!(plain.hash(), one.hash());
        assert_ne!(plain.hash(), two.hash());
        assert_eq!(two.engines[0].config().options.threads, 2);
        assert_eq!(plain.engines[0].config().options.threads, 1);
    }

    #[test]
    fn durations_read_in_the_largest_fitting_unit() {
        assert_eq!(readable(40.0), "40 s");
        assert_eq!(readable(720.0), "12 min");
        assert_eq!(readable(12_600.0), "3.5 h");
        assert_eq!(readable(9.0 * 86_400.0), "9 days");
    }
}

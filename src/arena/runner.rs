//! The parallel runner: plays a list of scheduled games on a rayon pool and hands each finished
//! game to one consumer (the log writer, the statistics, the progress display) on the calling
//! thread.
//!
//! Workers take game ids from a shared counter in ascending order, so the games finished at any
//! moment are close to a prefix of the run (the running table stays balanced, and a sequential
//! test decides early). A game depends only on the spec and its id ([`play_slot`]): engines are
//! built fresh for every game, seeded from the game's seed, so results are bit-identical
//! whatever the thread count.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::cancel::CancelToken;
use super::engine::Engine;
use super::game::{Opening, Referee, play_game};
use super::log::GameLine;
use super::schedule::{Schedule, Slot, game_seed};
use super::spec::TournamentSpec;
use crate::eval::Features;
use crate::games::Side;
use crate::games::hash::combine;

/// Plays game `slot` of `spec` after `opening` (the moves of the slot's opening from `start`).
pub fn play_slot<G: Features>(
    spec: &TournamentSpec,
    start: &G,
    opening: &[G::Move],
    slot: &Slot,
) -> GameLine {
    let resolved = &spec.resolved;
    let seed = game_seed(resolved.seed, slot.id);
    let build = |index: usize, side: u64| {
        let (engine, weights) = &spec.engines[index];
        Engine::with_weights(engine, start, weights.clone(), combine(seed, side))
    };
    let [mut first, mut second] = [build(slot.first, 0), build(slot.second, 1)];
    let opening = Opening {
        initial: *start,
        moves: opening,
    };
    let record = play_game(
        &opening,
        [&mut first, &mut second],
        &mut Referee::default(),
        |_, _| {},
    );
    let score = record.outcome.first_player_points();
    let mut nodes = [0u64; 2];
    let mut timeouts = [0u32; 2];
    let mut pos = record.start;
    let mut moves = Vec::with_capacity(record.moves.len());
    for m in &record.moves {
        nodes[m.side as usize] += m.nodes;
        timeouts[m.side as usize] += u32::from(m.timed_out);
        moves.push(pos.format_move(m.mv));
        pos = pos.play(m.mv);
    }
    GameLine {
        id: slot.id,
        pair: slot.pair,
        round: slot.round,
        opening_index: slot.opening,
        opening: super::openings::moves_of(&resolved.opening_moves[slot.opening as usize])
            .map(str::to_string)
            .collect(),
        first: resolved.engines[slot.first].name.clone(),
        second: resolved.engines[slot.second].name.clone(),
        score,
        result: match record.outcome.winner {
            Some(Side::First) => "1-0",
            Some(Side::Second) => "0-1",
            None => "1/2-1/2",
        }
        .into(),
        margin: record.outcome.score,
        termination: record.termination.name().into(),
        plies: moves.len(),
        moves,
        nodes,
        timed_out: timeouts != [0, 0],
        timeouts,
        seed,
        spec: spec.hash.clone(),
        seconds: record.seconds,
    }
}

/// Plays the games `todo` (ids, ascending) of `spec` on `threads` workers and hands each
/// finished game to `consume`, in order of completion, on the calling thread. Games of pairs
/// at or beyond `stop_pair` are not started (a consumer lowers it when a sequential test has
/// decided), and no game starts once `cancel` is raised: the games in flight finish and are
/// handed over. A consumer error stops scheduling, lets the games in flight finish (they are
/// dropped) and is returned.
#[allow(clippy::too_many_arguments)]
pub fn run_games<G: Features, E>(
    spec: &TournamentSpec,
    start: G,
    openings: &[Vec<G::Move>],
    todo: &[u64],
    threads: usize,
    stop_pair: &AtomicU64,
    cancel: &CancelToken,
    mut consume: impl FnMut(GameLine) -> Result<(), E>,
) -> Result<(), E> {
    let schedule: Schedule = spec.resolved.schedule();
    let next = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("joute-worker-{i}"))
        .build()
        .expect("the worker pool starts");
    // Bounded: when games finish faster than the consumer writes them, workers wait instead of
    // piling finished games up in memory.
    let (sender, receiver) = mpsc::sync_channel::<GameLine>(4 * threads.max(1));
    let mut outcome = Ok(());
    pool.in_place_scope(|scope| {
        for _ in 0..threads.max(1) {
            let sender = sender.clone();
            let (next, schedule, start) = (&next, &schedule, &start);
            scope.spawn(move |_| {
                loop {
                    if cancel.is_cancelled() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&id) = todo.get(i) else { break };
                    let slot = schedule.slot(id);
                    if slot.pair >= stop_pair.load(Ordering::Relaxed) {
                        continue;
                    }
                    let line = play_slot(spec, start, &openings[slot.opening as usize], &slot);
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for line in receiver.iter() {
            if outcome.is_ok()
                && let Err(e) = consume(line)
            {
                stop_pair.store(0, Ordering::Relaxed);
                outcome = Err(e);
            }
        }
    });
    outcome
}

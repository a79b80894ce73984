//! The parallel runner: plays a list of scheduled games on a rayon pool and hands each finished
//! game to one consumer (the log writer, the statistics, the progress display) on the calling
//! thread.
//!
//! Workers take game ids from a shared counter in ascending order, so the games finished at any
//! moment are close to a prefix of the run (the running table stays balanced, and a sequential
//! test decides early). A game depends only on the spec and its id ([`play_slot`]): built-in
//! engines are built fresh for every game, seeded from the game's seed, so results are
//! bit-identical whatever the thread count. Outside programs are the exception: each worker
//! keeps its own running ([`Seats`]), and what they play is theirs to make reproducible.

use super::engine_log::EngineLog;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use super::adjudication::{AdjudicationLine, GameAdjudicator, Solvers, Verdict, position_text};
use super::cancel::CancelToken;
use super::engine::Engine;
use super::game::{
    Adjudicator, GameRecord, MoveRecord, Opening, Player, Referee, Termination, play_game,
};
use super::hosted::HostedSeat;
use super::log::GameLine;
use super::outside::{OutsidePlayer, OutsideSpec, Setup};
use super::schedule::{Schedule, Slot, game_seed};
use super::spec::{Entrant, TournamentSpec};
use crate::eval::Features;
use crate::games::hash::combine;
use crate::games::{Game, Side};

/// The outside programs one worker keeps running between games, by engine index, the folder
/// their stderr goes to (`engines/NAME.log`), and the solvers of its adjudications.
pub struct Seats<G: Game> {
    kept: Vec<Option<OutsidePlayer<G>>>,
    logs: Option<PathBuf>,
    solvers: Solvers,
}

impl<G: Game> Seats<G> {
    /// No program running yet; stderr goes to files in `logs` (kept in memory when `None`).
    pub fn new(spec: &TournamentSpec, logs: Option<&Path>) -> Seats<G> {
        Seats {
            kept: spec.engines.iter().map(|_| None).collect(),
            logs: logs.map(Path::to_path_buf),
            solvers: Solvers::default(),
        }
    }

    /// The player of outside engine `index`, made on first use (its program starts with its
    /// first game).
    fn take(&mut self, spec: &TournamentSpec, index: usize) -> Option<OutsidePlayer<G>> {
        let Entrant::Outside(outside) = &spec.engines[index] else {
            return None;
        };
        let kept = self.kept[index].take();
        Some(kept.unwrap_or_else(|| {
            let log = self.logs.as_ref().map(|dir| EngineLog {
                path: engine_log(dir, &spec.resolved.engines[index].name),
                cap: spec.resolved.engine_log_cap(),
            });
            OutsidePlayer::new(setup(spec, index, outside), log)
        }))
    }
}

/// What outside engine `index` of `spec` is told of the match: the game, and its own clock.
fn setup(spec: &TournamentSpec, index: usize, outside: &OutsideSpec) -> Setup {
    Setup {
        game: spec.resolved.game_kind(),
        spec: outside.clone(),
        clock: spec.resolved.engine_clock(index).map(|c| c.control),
    }
}

/// The file an engine's stderr goes to in the folder `dir`: `NAME.log`, the name made into a
/// valid file name whatever its length in bytes ([`crate::outputs::file_name`]).
pub fn engine_log(dir: &Path, name: &str) -> PathBuf {
    dir.join(crate::outputs::file_name(name, ".log"))
}

/// What starting an outside program once told of it ([`check_outside`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The spec's name of the engine.
    pub engine: String,
    /// The name the program gave itself, if it did.
    pub reported_name: Option<String>,
    /// What holds it, one line each ([`OutsidePlayer::held`]).
    pub held: Vec<String>,
}

/// Starts every outside program of `spec` once and speaks its handshake, so that a program
/// that is missing or does not speak its protocol is an error before the first game, naming
/// the engine. Returns, for each program, the name it gave itself and what holds it.
pub fn check_outside<G: Game>(
    spec: &TournamentSpec,
    logs: Option<&Path>,
) -> Result<Vec<Checked>, String> {
    let mut checked = Vec::new();
    for (i, entrant) in spec.engines.iter().enumerate() {
        if let Entrant::Outside(outside) = entrant {
            let name = &spec.resolved.engines[i].name;
            let log = logs.map(|dir| EngineLog {
                path: engine_log(dir, name),
                cap: spec.resolved.engine_log_cap(),
            });
            let mut player: OutsidePlayer<G> = OutsidePlayer::new(setup(spec, i, outside), log);
            player.start().map_err(|e| {
                format!(
                    "engine '{name}' ({}) did not start: {e}",
                    outside.command_line()
                )
            })?;
            checked.push(Checked {
                engine: name.clone(),
                reported_name: player.reported_name().map(str::to_string),
                held: player.held(),
            });
            player.quit();
        }
    }
    Ok(checked)
}

/// Plays game `slot` of `spec` after `opening` (the moves of the slot's opening from `start`),
/// with the outside programs `seats` keeps.
pub fn play_slot<G: Features>(
    spec: &TournamentSpec,
    start: &G,
    opening: &[G::Move],
    slot: &Slot,
    seats: &mut Seats<G>,
) -> GameLine {
    let resolved = &spec.resolved;
    let seed = game_seed(resolved.seed, slot.id);
    let mut own = built_in_engines(spec, start, slot, seed);
    let mut kept = [seats.take(spec, slot.first), seats.take(spec, slot.second)];
    let mut hosted = hosted_seats(spec, start, slot, seed);
    let opening = Opening {
        initial: *start,
        moves: opening,
    };
    let mut solver = resolved.adjudication.map(|rules| {
        seats.solvers.new_game(start);
        GameAdjudicator::new(rules, &mut seats.solvers, opening.moves.len())
    });
    let clocks = [slot.first, slot.second].map(|i| resolved.engine_clock(i));
    let mut referee = Referee {
        clocks: clocks.map(|c| c.map(|c| c.control)),
        margins: clocks.map(|c| c.map_or(std::time::Duration::ZERO, |c| c.margin())),
        adjudicator: solver.as_mut().map(|a| a as &mut dyn Adjudicator<G>),
    };
    let record = {
        let [own_first, own_second] = &mut own;
        let [kept_first, kept_second] = &mut kept;
        let [hosted_first, hosted_second] = &mut hosted;
        let first: &mut dyn Player<G> = match (kept_first, hosted_first) {
            (Some(p), _) => p,
            (None, Some(p)) => p,
            (None, None) => own_first.as_mut().expect("a built-in engine"),
        };
        let second: &mut dyn Player<G> = match (kept_second, hosted_second) {
            (Some(p), _) => p,
            (None, Some(p)) => p,
            (None, None) => own_second.as_mut().expect("a built-in engine"),
        };
        play_game(&opening, [first, second], &mut referee, |_, _| {})
    };
    let verdict = solver.and_then(|a| a.verdict);
    let [kept_first, kept_second] = kept;
    seats.kept[slot.first] = kept_first;
    seats.kept[slot.second] = kept_second;
    let clocked = clocks.iter().any(Option::is_some);
    game_line(spec, slot, seed, &record, verdict, clocked)
}

/// The games log's line of game `slot`, played as `record`: ended by the adjudicator's
/// `verdict` if any, and `clocked` when a side played on a clock.
fn game_line<G: Game>(
    spec: &TournamentSpec,
    slot: &Slot,
    seed: u64,
    record: &GameRecord<G>,
    verdict: Option<Verdict>,
    clocked: bool,
) -> GameLine {
    let resolved = &spec.resolved;
    let score = record.outcome.first_player_points();
    let costs = MoveCosts::of(&record.moves);
    let scored = resolved
        .adjudication
        .is_some_and(|r| r.resign.is_some() || r.draw.is_some());
    let MoveTally {
        nodes,
        timeouts,
        moves,
        clock_ms,
        scores,
    } = MoveTally::of(record, scored);
    let opening_text: Vec<String> =
        super::openings::moves_of(&resolved.opening_moves[slot.opening as usize])
            .map(str::to_string)
            .collect();
    let adjudication = verdict
        .filter(|_| record.termination.name() == "adjudication")
        .map(|v| adjudication_line(&v, &record.last, &opening_text, &moves));
    let not_reproducible = not_reproducible(spec, slot, clocked, timeouts);
    GameLine {
        id: slot.id,
        pair: slot.pair,
        round: slot.round,
        opening_index: slot.opening,
        opening: opening_text,
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
        detail: record.termination.detail().map(str::to_string),
        adjudication,
        plies: moves.len(),
        moves,
        nodes,
        // A game lost on time depends on the machine as much as one with a move cut short.
        timed_out: timeouts != [0, 0] || matches!(record.termination, Termination::Timeout(..)),
        timeouts,
        move_us: costs.micros,
        move_ms: Vec::new(),
        move_nodes: costs.nodes,
        move_depth: costs.depth,
        move_seldepth: costs.seldepth,
        move_cpu_us: costs.cpu_micros,
        clock_ms,
        scores,
        not_reproducible,
        seed,
        spec: spec.hash.clone(),
        seconds: record.seconds,
    }
}

/// The built-in engines of game `slot` (`None` for an outside one), built fresh and seeded from
/// the game's `seed`, each side its own stream.
fn built_in_engines<G: Features>(
    spec: &TournamentSpec,
    start: &G,
    slot: &Slot,
    seed: u64,
) -> [Option<Engine<G>>; 2] {
    let build = |index: usize, side: u64| match &spec.engines[index] {
        Entrant::BuiltIn(engine, weights) => Some(Engine::with_weights(
            engine,
            start,
            weights.clone(),
            combine(seed, side),
        )),
        Entrant::Outside(_) | Entrant::Hosted(_) => None,
    };
    let mut own = [build(slot.first, 0), build(slot.second, 1)];
    // An engine on a clock depends on the CPU it gets: its moves' CPU time is read.
    for (engine, index) in own.iter_mut().zip([slot.first, slot.second]) {
        if let Some(engine) = engine
            && spec.resolved.engine_clock(index).is_some()
        {
            engine.on_clock();
        }
    }
    own
}

/// The hosted engines' players of game `slot` (`None` for the others), made fresh for the game
/// and given its seed, each side its own stream (as built-in engines are).
fn hosted_seats<G: Game>(
    spec: &TournamentSpec,
    start: &G,
    slot: &Slot,
    seed: u64,
) -> [Option<HostedSeat<G>>; 2] {
    let seat = |index: usize, side: Side| match &spec.engines[index] {
        Entrant::Hosted(key) => {
            let engine = spec
                .hosts
                .get(key)
                .expect("hosted engines checked at the start");
            Some(HostedSeat::new(
                engine.as_ref(),
                *start,
                side,
                combine(seed, side as u64),
            ))
        }
        _ => None,
    };
    [
        seat(slot.first, Side::First),
        seat(slot.second, Side::Second),
    ]
}

/// What the games log gathers from a game's moves besides their costs.
struct MoveTally {
    /// Nodes searched, by side.
    nodes: [u64; 2],
    /// Moves cut short by a time limit, by side.
    timeouts: [u32; 2],
    /// The moves as text.
    moves: Vec<String>,
    /// The mover's clock after each move, in milliseconds (moves without a clock skipped).
    clock_ms: Vec<u64>,
    /// Each move's score (empty unless `scored`).
    scores: Vec<Option<i32>>,
}

impl MoveTally {
    /// Tallies the moves of `record`, keeping their scores when `scored`.
    fn of<G: Game>(record: &GameRecord<G>, scored: bool) -> MoveTally {
        let mut tally = MoveTally {
            nodes: [0; 2],
            timeouts: [0; 2],
            moves: Vec::with_capacity(record.moves.len()),
            clock_ms: Vec::new(),
            scores: Vec::new(),
        };
        let mut pos = record.start;
        for m in &record.moves {
            tally.nodes[m.side as usize] += m.nodes.unwrap_or(0);
            tally.timeouts[m.side as usize] += u32::from(m.timed_out);
            tally.moves.push(pos.format_move(m.mv));
            pos = pos.play(m.mv);
            if let Some(left) = m.clock_left {
                tally.clock_ms.push(left.as_millis() as u64);
            }
            if scored {
                tally.scores.push(m.score);
            }
        }
        tally
    }
}

/// The games log's account of an adjudication by `verdict`: the final position `last` after
/// the opening's and the game's moves.
fn adjudication_line<G: Game>(
    verdict: &Verdict,
    last: &G,
    opening: &[String],
    moves: &[String],
) -> AdjudicationLine {
    let history: Vec<String> = opening.iter().chain(moves).cloned().collect();
    AdjudicationLine {
        value: verdict.value,
        to_move: match verdict.to_move {
            Side::First => "first",
            Side::Second => "second",
        }
        .into(),
        position: position_text(last, &history),
        plies: history.len(),
    }
}

/// Why game `slot` may not replay the same: a clock, a move cut short by a time limit, an
/// outside program, a hosted engine, a built-in engine solving on several threads.
fn not_reproducible(
    spec: &TournamentSpec,
    slot: &Slot,
    clocked: bool,
    timeouts: [u32; 2],
) -> Vec<String> {
    let mut why = Vec::new();
    if clocked {
        why.push("clock".to_string());
    }
    if timeouts != [0, 0] && !clocked {
        why.push("time limit".to_string());
    }
    for index in [slot.first, slot.second] {
        let name = &spec.resolved.engines[index].name;
        match &spec.engines[index] {
            Entrant::Outside(_) => why.push(format!("outside program '{name}'")),
            // A function joute does not see into: it may use its own randomness.
            Entrant::Hosted(_) => why.push(format!("hosted engine '{name}'")),
            // Its solve's helpers race for the shared table: nodes vary, and with them
            // which of several best moves a later solve of the game finds first.
            Entrant::BuiltIn(engine, _) if engine.config.options.threads > 1 => why.push(format!(
                "parallel solve of '{name}' ({} threads)",
                engine.config.options.threads
            )),
            Entrant::BuiltIn(..) => {}
        }
    }
    why
}

/// What each move of a game cost, as the games log's per-move arrays hold it.
struct MoveCosts {
    micros: Vec<u64>,
    /// Empty when no move has a count.
    nodes: Vec<Option<u64>>,
    depth: Vec<u32>,
    /// Empty when no move has a selective depth.
    seldepth: Vec<u32>,
    /// Empty when no move's CPU time was measured.
    cpu_micros: Vec<Option<u64>>,
}

impl MoveCosts {
    fn of<M>(moves: &[MoveRecord<M>]) -> MoveCosts {
        let micros = |d: Duration| d.as_micros().min(u64::MAX as u128) as u64;
        let seldepth: Vec<u32> = moves.iter().map(|m| m.seldepth).collect();
        let cpu_micros: Vec<Option<u64>> = moves.iter().map(|m| m.cpu.map(micros)).collect();
        let nodes: Vec<Option<u64>> = moves.iter().map(|m| m.nodes).collect();
        MoveCosts {
            micros: moves
                .iter()
                .map(|m| (m.seconds * 1e6).round() as u64)
                .collect(),
            nodes: if nodes.iter().any(Option::is_some) {
                nodes
            } else {
                Vec::new()
            },
            depth: moves.iter().map(|m| m.depth).collect(),
            seldepth: if seldepth.iter().any(|&d| d > 0) {
                seldepth
            } else {
                Vec::new()
            },
            cpu_micros: if cpu_micros.iter().any(Option::is_some) {
                cpu_micros
            } else {
                Vec::new()
            },
        }
    }
}

/// Plays the games `todo` (ids, ascending) of `spec` on `threads` workers and hands each
/// finished game to `consume`, in order of completion, on the calling thread. Games of pairs
/// at or beyond `stop_pair` are not started (a consumer lowers it when a sequential test has
/// decided), and no game starts once `cancel` is raised: the games in flight finish and are
/// handed over. A consumer error stops scheduling, lets the games in flight finish (they are
/// dropped) and is returned. Outside programs' stderr goes to `engine_logs` (when given).
#[allow(clippy::too_many_arguments)]
pub fn run_games<G: Features, E>(
    spec: &TournamentSpec,
    start: G,
    openings: &[Vec<G::Move>],
    todo: &[u64],
    threads: usize,
    stop_pair: &AtomicU64,
    cancel: &CancelToken,
    engine_logs: Option<&Path>,
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
    // Pinned cores: each worker its block, which its built-in engines search on and its
    // outside programs inherit (`affinity`; the run refused it where it cannot be had).
    let cores = match spec.resolved.affinity {
        true => super::affinity::cpus().map(|cpus| super::affinity::partition(&cpus, threads)),
        false => None,
    };
    pool.in_place_scope(|scope| {
        for worker in 0..threads.max(1) {
            let sender = sender.clone();
            let (next, schedule, start) = (&next, &schedule, &start);
            let cores = cores.as_ref().map(|c| c[worker].clone());
            scope.spawn(move |_| {
                if let Some(cores) = cores {
                    // Refused before the run where the machine cannot pin (off Linux); a
                    // failure here leaves the worker unpinned, as without `affinity`.
                    let _ = super::affinity::pin_current_thread(&cores);
                }
                // This worker's outside programs, kept running from game to game (quit when
                // the worker ends).
                let mut seats = Seats::new(spec, engine_logs);
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
                    let line = play_slot(
                        spec,
                        start,
                        &openings[slot.opening as usize],
                        &slot,
                        &mut seats,
                    );
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

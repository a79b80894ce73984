//! What joute adds to an outside engine's move, and how games with outside engines scale.
//! `cargo bench --bench outside`.
//!
//! The engines are this benchmark's own binary, started again with `--joute-bench-engine
//! ROLE`: `echo` answers every line with `4`, `line` is an instant line-protocol Connect 4
//! engine (the first legal move, found with joute's own rules), `line-1ms` the same after a
//! millisecond of busy work. So every figure is the harness and the pipes (and that fixed
//! millisecond), never an engine's thinking:
//! - `pipe/bare round trip`: a line written to the echo program and its answer read, with
//!   nothing but std's pipes — the floor any harness pays;
//! - `pipe/joute move`: one move asked of the line engine through `OutsidePlayer::think` (the
//!   request built from the game, sent, the answer read under a deadline and checked);
//! - `pipe/joute move, CPU read`: the same with the referee's two readings of the program's CPU
//!   time around it (`Player::cpu_time`: its process group's, Linux);
//! - `cpu/reading`: one such reading of a program whose processes are known (a scan of `/proc`
//!   for new ones every 200 ms included, as in play); `cpu/reading with a scan`: the first
//!   reading of a program just started, which looks for its processes in `/proc` (the scan
//!   dominates: starting the program is outside the timing);
//! - `games/threads N`: a 40-game Connect 4 match between two instant engines on N workers;
//! - `referee/40 games, CPU read` and `referee/40 games, CPU not read`: the same games played
//!   by `play_game` on one thread, the players' CPU time read around every move or hidden from
//!   the referee: what measuring costs a match of instant engines; `... of 1 ms moves`: the
//!   same with engines that work a millisecond a move (`line-1ms`). Those two variants run one
//!   after the other; `cargo bench --bench outside -- --referee-ab 21` plays them in turn, 21
//!   rounds each, and prints the medians and the median ratio, which a shared machine's drift
//!   between two criterion runs does not blur.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use criterion::Criterion;
use joute::arena::outside::{OutsidePlayer, OutsideSpec, Protocol, Setup};
use joute::arena::runner::run_games;
use joute::arena::{
    CancelToken, Opening, Player, PlayerError, Referee, Thought, TournamentSpec, Turn, openings,
    play_game,
};
use joute::games::{Connect4, Game, GameKind, MoveList, Outcome};

/// The engine roles of this binary.
fn engine(role: &str) {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let reply = match role {
            "echo" => "4".to_string(),
            _ if line.starts_with("joute ") => "ok name=instant".into(),
            _ if line.starts_with("move ") => {
                if role == "line-1ms" {
                    // A program that thinks: a millisecond of work a move.
                    let clock = std::time::Instant::now();
                    while clock.elapsed() < Duration::from_millis(1) {
                        std::hint::spin_loop();
                    }
                }
                let moves = line
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("moves="))
                    .unwrap_or("");
                let pos = Connect4::start()
                    .play_sequence(moves)
                    .expect("joute sends legal moves");
                let mut legal = MoveList::new();
                pos.legal_moves(&mut legal);
                pos.format_move(legal[0])
            }
            _ if line == "quit" => return,
            _ => continue,
        };
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            return;
        }
    }
}

fn outside(role: &str) -> OutsideSpec {
    OutsideSpec {
        command: std::env::current_exe().expect("the benchmark's own path"),
        args: vec!["--joute-bench-engine".into(), role.into()],
        working_dir: None,
        protocol: Protocol::Line,
        protocol_version: None,
        options: Default::default(),
        depth: None,
        nodes: None,
        stall_ms: 10_000,
        program: None,
        folder: None,
        guard: Default::default(),
    }
}

fn round_trips(c: &mut Criterion) {
    let mut group = c.benchmark_group("pipe");
    // The request joute sends at the start position, so both sides move the same bytes, in
    // one write as joute does.
    let request = b"move game=connect4 moves=\n";
    let mut echo = Command::new(std::env::current_exe().unwrap())
        .args(["--joute-bench-engine", "echo"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the echo engine starts");
    let mut to = echo.stdin.take().unwrap();
    let mut from = BufReader::new(echo.stdout.take().unwrap());
    let mut answer = String::new();
    group.bench_function("bare round trip", |b| {
        b.iter(|| {
            to.write_all(request).unwrap();
            answer.clear();
            from.read_line(&mut answer).unwrap();
        })
    });
    drop(to);
    let _ = echo.wait();

    let setup = Setup {
        game: GameKind::Connect4,
        spec: outside("line"),
        clock: None,
    };
    let mut player: OutsidePlayer<Connect4> = OutsidePlayer::new(setup, None);
    let start = Connect4::start();
    player.new_game(&Opening::none(start)).unwrap();
    let turn = Turn {
        position: &start,
        moves: &[],
        time_left: None,
        opponent_time_left: None,
        increment: Duration::ZERO,
        moves_to_go: None,
        move_time: None,
        deadline: Some(Duration::from_secs(10)),
    };
    group.bench_function("joute move", |b| {
        b.iter(|| player.think(&turn).unwrap());
    });
    group.bench_function("joute move, CPU read", |b| {
        b.iter(|| {
            let before = player.cpu_time().unwrap();
            player.think(&turn).unwrap();
            player.cpu_time().unwrap() - before
        });
    });
    group.finish();

    let mut group = c.benchmark_group("cpu");
    group.bench_function("reading", |b| {
        b.iter(|| player.cpu_time().unwrap());
    });
    group.finish();

    let mut group = c.benchmark_group("cpu");
    // A program started for each reading (outside the timing): fewer samples.
    group.sample_size(20);
    group.bench_function("reading with a scan", |b| {
        b.iter_batched_ref(
            || {
                let mut fresh = OutsidePlayer::<Connect4>::new(
                    Setup {
                        game: GameKind::Connect4,
                        spec: outside("line"),
                        clock: None,
                    },
                    None,
                );
                fresh.start().unwrap();
                fresh
            },
            |fresh| fresh.cpu_time().unwrap(),
            criterion::BatchSize::PerIteration,
        );
    });
    group.finish();
}

/// A player whose CPU time the referee is told or not (`None`, as a player that cannot measure
/// it): the same games, the same programs, with or without the readings.
struct Metered<P> {
    player: P,
    on: bool,
}

impl<G: Game, P: Player<G>> Player<G> for Metered<P> {
    fn new_game(&mut self, opening: &Opening<'_, G>) -> Result<(), PlayerError> {
        self.player.new_game(opening)
    }

    fn think(&mut self, turn: &Turn<'_, G>) -> Result<Thought<G::Move>, PlayerError> {
        self.player.think(turn)
    }

    fn game_over(&mut self, outcome: &Outcome) {
        self.player.game_over(outcome)
    }

    fn cpu_time(&mut self) -> Option<Duration> {
        if self.on {
            self.player.cpu_time()
        } else {
            None
        }
    }
}

/// The referee's games: 40 Connect 4 openings of 4 plies, each played once.
struct Games {
    start: Connect4,
    list: Vec<Vec<<Connect4 as Game>::Move>>,
}

impl Games {
    fn new() -> Games {
        let start = Connect4::start();
        let spec = TournamentSpec::parse(
            "name = \"r\"\ngame = \"connect4\"\nseed = 3\nopenings = { plies = 4, count = 40 }\n\
             [[engine]]\nname = \"a\"\nalgorithm = \"random\"\n[[engine]]\nname = \"b\"\nalgorithm = \"random\"\n",
            "bench.toml",
        )
        .expect("the bench spec is valid");
        let list = openings::parse_all(&start, &spec.resolved.opening_moves).unwrap();
        Games { start, list }
    }

    /// The line engine `role` as a player, its CPU time read at first.
    fn player(role: &str) -> Metered<OutsidePlayer<Connect4>> {
        let setup = Setup {
            game: GameKind::Connect4,
            spec: outside(role),
            clock: None,
        };
        Metered {
            player: OutsidePlayer::new(setup, None),
            on: true,
        }
    }

    /// Plays every game, `a` first; returns the moves played.
    fn play(&self, a: &mut dyn Player<Connect4>, b: &mut dyn Player<Connect4>) -> usize {
        let mut plies = 0;
        for moves in &self.list {
            let opening = Opening {
                initial: self.start,
                moves,
            };
            let record = play_game(
                &opening,
                [&mut *a, &mut *b],
                &mut Referee::default(),
                |_, _| {},
            );
            plies += record.moves.len();
        }
        plies
    }
}

/// The referee's games between two line engines, their CPU time read around every move or not.
fn referee(c: &mut Criterion) {
    let games = Games::new();
    let mut group = c.benchmark_group("referee");
    group.sample_size(10);
    for (role, what) in [("line", ""), ("line-1ms", " of 1 ms moves")] {
        let (mut a, mut b) = (Games::player(role), Games::player(role));
        group.bench_function(format!("40 games{what}, CPU read"), |bench| {
            bench.iter(|| games.play(&mut a, &mut b))
        });
        (a.on, b.on) = (false, false);
        group.bench_function(format!("40 games{what}, CPU not read"), |bench| {
            bench.iter(|| games.play(&mut a, &mut b))
        });
    }
    group.finish();
}

/// `--referee-ab ROUNDS`: the referee's games with and without the CPU readings in turn (the
/// order alternating), ROUNDS times each, for each engine role, by the same two programs;
/// prints the medians and the median of the rounds' ratios. Criterion's groups run one variant
/// after the other, and on a shared machine the drift between them can be larger than the
/// difference measured.
fn referee_ab(rounds: usize) {
    let games = Games::new();
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for role in ["line", "line-1ms"] {
        let (mut a, mut b) = (Games::player(role), Games::player(role));
        // Warm-up: the programs started, the files cached.
        let plies = games.play(&mut a, &mut b);
        let (mut read, mut not_read, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let mut timed = |metered: bool| {
                (a.on, b.on) = (metered, metered);
                let clock = std::time::Instant::now();
                games.play(&mut a, &mut b);
                clock.elapsed().as_secs_f64() * 1000.0
            };
            let (r, n) = if round % 2 == 0 {
                let r = timed(true);
                (r, timed(false))
            } else {
                let n = timed(false);
                (timed(true), n)
            };
            read.push(r);
            not_read.push(n);
            ratios.push(r / n);
        }
        let (r, n) = (median(&mut read), median(&mut not_read));
        println!(
            "referee A/B, {role}: {plies} moves a round, {rounds} rounds; medians: CPU read {r:.2} ms, not read {n:.2} ms, {:.1} µs a move more; ratio read/not read, median of the rounds' {:.3} (from {:.3} to {:.3})",
            (r - n) * 1000.0 / plies as f64,
            median(&mut ratios),
            ratios[0],
            ratios[ratios.len() - 1],
        );
    }
}

fn games(c: &mut Criterion) {
    let command = |role: &str| {
        let spec = outside(role);
        format!(
            "command = {:?}\nargs = [\"--joute-bench-engine\", \"{role}\"]\nprotocol = \"line\"\n",
            spec.command.display().to_string()
        )
    };
    let text = format!(
        "name = \"b\"\ngame = \"connect4\"\nseed = 3\nopenings = {{ plies = 4, count = 20 }}\n[[engine]]\nname = \"a\"\n{}[[engine]]\nname = \"b\"\n{}",
        command("line"),
        command("line")
    );
    let spec = TournamentSpec::parse(&text, "bench.toml").expect("the bench spec is valid");
    let start = Connect4::start();
    let list = openings::parse_all(&start, &spec.resolved.opening_moves).unwrap();
    let todo: Vec<u64> = (0..spec.resolved.schedule().games()).collect();
    let mut group = c.benchmark_group("games");
    group.sample_size(10);
    for threads in [1, 2] {
        group.bench_function(format!("threads {threads}"), |b| {
            b.iter(|| {
                let stop = AtomicU64::new(u64::MAX);
                let mut played = 0;
                run_games(
                    &spec,
                    start,
                    &list,
                    &todo,
                    threads,
                    &stop,
                    &CancelToken::new(),
                    None,
                    |_| {
                        played += 1;
                        Ok::<(), ()>(())
                    },
                )
                .unwrap();
                assert_eq!(played, todo.len());
            })
        });
    }
    group.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--joute-bench-engine") {
        return engine(args.get(at + 1).map_or("line", String::as_str));
    }
    if let Some(at) = args.iter().position(|a| a == "--referee-ab") {
        let rounds = args.get(at + 1).and_then(|r| r.parse().ok()).unwrap_or(21);
        return referee_ab(rounds);
    }
    let mut c = Criterion::default().configure_from_args();
    round_trips(&mut c);
    referee(&mut c);
    games(&mut c);
    c.final_summary();
}

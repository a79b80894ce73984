//! What joute adds to an outside engine's move, and how games with outside engines scale.
//! `cargo bench --bench outside`.
//!
//! The engines are this benchmark's own binary, started again with `--joute-bench-engine
//! ROLE`: `echo` answers every line with `4`, `line` is an instant line-protocol Connect 4
//! engine (the first legal move, found with joute's own rules). So every figure is the harness
//! and the pipes, never an engine's thinking:
//! - `pipe/bare round trip`: a line written to the echo program and its answer read, with
//!   nothing but std's pipes — the floor any harness pays;
//! - `pipe/joute move`: one move asked of the line engine through `OutsidePlayer::think` (the
//!   request built from the game, sent, the answer read under a deadline and checked);
//! - `games/threads N`: a 40-game Connect 4 match between two instant engines on N workers.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use criterion::Criterion;
use joute::arena::outside::{OutsidePlayer, OutsideSpec, Protocol, Setup};
use joute::arena::runner::run_games;
use joute::arena::{CancelToken, Opening, Player, TournamentSpec, Turn, openings};
use joute::games::{Connect4, Game, GameKind, MoveList};

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
    group.finish();
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
    let mut c = Criterion::default().configure_from_args();
    round_trips(&mut c);
    games(&mut c);
    c.final_summary();
}

//! A check of the hand-set defaults against the simplest evaluations: a plain fixed-depth
//! alpha-beta (test-only, independent of the search layer) plays both colours of seeded random
//! openings. Ignored by default (seconds in release); run with
//! `cargo test --lib eval::strength -- --ignored --nocapture`. The same command prints the cost
//! of one evaluation per game.

use super::{Evaluator, Features, LinearEval, Weights};
use crate::games::hash::mix64;
use crate::games::{Connect4, Morpion, MoveList, Othello};

const WIN: i32 = 1 << 24;

fn negamax<G: Features>(
    pos: &G,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    eval: &LinearEval<G>,
) -> i32 {
    if let Some(outcome) = pos.outcome() {
        return match outcome.winner {
            None => 0,
            Some(s) if s == pos.side_to_move() => WIN,
            Some(_) => -WIN,
        };
    }
    if depth == 0 {
        return eval.evaluate(pos);
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut best = -WIN - 1;
    for &mv in &moves {
        let score = -negamax(&pos.play(mv), depth - 1, -beta, -alpha, eval);
        if score > best {
            best = score;
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

fn best_move<G: Features>(pos: &G, depth: u32, eval: &LinearEval<G>) -> G::Move {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let (mut best, mut best_score) = (moves[0], -WIN - 1);
    for &mv in &moves {
        let score = -negamax(&pos.play(mv), depth - 1, -WIN - 1, -best_score, eval);
        if score > best_score {
            best = mv;
            best_score = score;
        }
    }
    best
}

/// Points of `a` (1 per win, 1/2 per draw) over both colours of `openings` random openings.
fn match_score<G: Features>(
    start: G,
    a: &Weights,
    b: &Weights,
    depth: u32,
    openings: u64,
    plies: usize,
) -> (f64, u64) {
    let (ea, eb) = (LinearEval::new(&start, a), LinearEval::new(&start, b));
    let mut points = 0.0;
    let mut games = 0;
    for seed in 0..openings {
        let mut opening = start;
        let mut state = mix64(seed + 1);
        for _ in 0..plies {
            let mut moves = MoveList::new();
            opening.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            state = mix64(state);
            opening = opening.play(moves[(state % moves.len() as u64) as usize]);
        }
        if opening.outcome().is_some() {
            continue;
        }
        for a_first in [true, false] {
            let mut pos = opening;
            let a_side = if a_first {
                pos.side_to_move()
            } else {
                pos.side_to_move().opponent()
            };
            while pos.outcome().is_none() {
                let mv = if pos.side_to_move() == a_side {
                    best_move(&pos, depth, &ea)
                } else {
                    best_move(&pos, depth, &eb)
                };
                pos = pos.play(mv);
            }
            points += match pos.outcome().unwrap().winner {
                None => 0.5,
                Some(s) if s == a_side => 1.0,
                Some(_) => 0.0,
            };
            games += 1;
        }
    }
    (points, games)
}

fn report<G: Features>(
    label: &str,
    start: G,
    simple: &str,
    depth: u32,
    openings: u64,
    plies: usize,
) -> f64 {
    let defaults = Weights::default_for(&start);
    let simple = Weights::parse(&start, simple, "simple").unwrap();
    let (points, games) = match_score(start, &defaults, &simple, depth, openings, plies);
    let score = points / games as f64;
    println!(
        "{label} depth {depth}: defaults score {points}/{games} = {:.1}%",
        100.0 * score
    );
    score
}

#[test]
#[ignore]
fn defaults_beat_the_simplest_evaluations() {
    let discs = include_str!("../../weights/othello-discs.toml");
    let centre = include_str!("../../weights/connect4-centre.toml");
    for depth in [1, 2, 3, 4] {
        report("othello vs discs", Othello::start(), discs, depth, 100, 4);
    }
    for depth in [1, 2, 4, 6] {
        report(
            "connect4 vs centre",
            Connect4::start(),
            centre,
            depth,
            100,
            2,
        );
    }
    let m = Morpion::start(3, 3, 3);
    for depth in [1, 2, 4] {
        report(
            "morpion vs centre",
            m,
            "game = \"morpion\"\n[weights]\ncentre = 1\n",
            depth,
            20,
            1,
        );
    }
    let m = Morpion::start(7, 7, 4);
    for depth in [1, 2, 3] {
        report(
            "morpion-7x7-4 vs centre",
            m,
            "game = \"morpion-7x7-4\"\n[weights]\ncentre = 1\n",
            depth,
            50,
            2,
        );
    }
    let m = Morpion::start(9, 9, 5);
    for depth in [1, 2] {
        report(
            "morpion-9x9-5 vs centre",
            m,
            "game = \"morpion-9x9-5\"\n[weights]\ncentre = 1\n",
            depth,
            50,
            2,
        );
    }
}

/// Nanoseconds per [`LinearEval::evaluate`] with the default weights, over positions of random
/// games (a rough timing on a loaded machine, not a benchmark).
#[test]
#[ignore]
fn evaluation_cost() {
    fn time<G: Features>(label: &str, start: G) {
        let mut positions = Vec::new();
        for seed in 0..200u64 {
            let mut pos = start;
            let mut state = mix64(seed);
            for _ in 0..(mix64(seed) % 40) {
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                state = mix64(state);
                let next = pos.play(moves[(state % moves.len() as u64) as usize]);
                if next.outcome().is_some() {
                    break;
                }
                pos = next;
            }
            positions.push(pos);
        }
        let eval = LinearEval::new(&start, &Weights::default_for(&start));
        let reps = 5000;
        let t = std::time::Instant::now();
        let mut sum = 0i64;
        for _ in 0..reps {
            for p in &positions {
                sum += eval.evaluate(std::hint::black_box(p)) as i64;
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / (reps * positions.len()) as f64;
        println!("{label}: {ns:.1} ns per evaluation ({sum})");
    }
    time("othello", Othello::start());
    time("connect4", Connect4::start());
    time("morpion", Morpion::start(3, 3, 3));
    time("morpion-15x15-5", Morpion::start(15, 15, 5));
    time("random-tree", crate::games::RandomTree::new(8, 30, 1));
}

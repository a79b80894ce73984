//! The default weights play clearly better than the simplest evaluations: at equal depth, with
//! the search layer's alpha-beta, over 200 games from 100 distinct random openings, each played
//! twice with colours swapped.

use std::collections::HashSet;

use joute::arena::{Engine, EngineSpec, Opening, Referee, play_game};
use joute::eval::Features;
use joute::games::{Connect4, Game, Othello, Side, random_position};

/// 100 distinct positions reached by `plies` random moves, none of them finished.
fn openings<G: Game>(start: G, plies: usize, seed: u64) -> Vec<G> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for attempt in 0..100_000u64 {
        if out.len() == 100 {
            break;
        }
        let pos = random_position(start, plies, seed.wrapping_add(attempt));
        if pos.outcome().is_none() && seen.insert(pos) {
            out.push(pos);
        }
    }
    assert_eq!(out.len(), 100, "too few distinct openings of {plies} plies");
    out
}

/// The points of `a` (1 win, ½ draw) over both colours of every opening, as a fraction.
fn score<G: Features>(start: G, a: &str, b: &str, plies: usize) -> f64 {
    let (a, b) = (EngineSpec::parse(a).unwrap(), EngineSpec::parse(b).unwrap());
    let mut points = 0.0;
    let mut games = 0;
    for opening in openings(start, plies, 2026) {
        for a_first in [true, false] {
            let (first, second) = if a_first { (&a, &b) } else { (&b, &a) };
            let mut first = Engine::new(first, &start, 1).unwrap();
            let mut second = Engine::new(second, &start, 2).unwrap();
            let record = play_game(
                &Opening::none(opening),
                [&mut first, &mut second],
                &mut Referee::default(),
                |_, _| {},
            );
            // engines[0] plays the first player, engines[1] the second.
            let a_side = if a_first { Side::First } else { Side::Second };
            points += match record.outcome.winner {
                Some(w) if w == a_side => 1.0,
                None => 0.5,
                Some(_) => 0.0,
            };
            games += 1;
        }
    }
    assert_eq!(games, 200);
    points / games as f64
}

/// Checks that the default weights (`defaults`) score at least 65% against `weaker` (the
/// weights `what` names) from `start`, on `plies`-ply openings, and prints the score.
fn defaults_beat<G: Features>(start: G, [defaults, weaker]: [&str; 2], plies: usize, what: &str) {
    let s = score(start, defaults, weaker, plies);
    println!("{what}: defaults score {:.1}%", 100.0 * s);
    assert!(s >= 0.65, "defaults scored {s}");
}

#[test]
fn othello_defaults_beat_disc_difference_at_depth_4() {
    let engines = ["alphabeta:4", "alphabeta:4:weights/othello-discs.toml"];
    defaults_beat(Othello::start(), engines, 6, "othello, against discs only");
}

#[test]
fn connect4_defaults_beat_centre_only_at_depth_6() {
    let engines = ["alphabeta:6", "alphabeta:6:weights/connect4-centre.toml"];
    defaults_beat(
        Connect4::start(),
        engines,
        4,
        "connect4, against centre only",
    );
}

//! Perfect-knowledge adjudication (spec `[adjudication]`): adjudicated games end with the exact
//! value of the position the solver settled, checked here independently — the log's moves
//! replayed to the recorded position, that position solved again with the library's solvers,
//! and (Othello) played out to the end by perfect players — and the report counts them per
//! engine.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use joute::arena::log::GameLine;
use joute::games::connect4::Connect4;
use joute::games::othello::Othello;
use joute::games::{Game, Morpion, Side};
use joute::search::solver::connect4::Connect4Solver;
use joute::search::solver::generic;
use joute::search::solver::othello::OthelloSolver;

use crate::common::{scratch, specs};

/// A two-engine spec of `game` with `extra` (an `[adjudication]` table, or nothing).
fn spec(dir: &Path, file: &str, game: &str, plies: u32, count: u32, extra: &str) -> PathBuf {
    let path = dir.join(file);
    let text = specs::spec("adj", game, 7, plies, count).engines(&["ab-1", "ab-3"]);
    std::fs::write(&path, text.with(&format!("{extra}\n")).text()).unwrap();
    path
}

/// Runs the spec into `out` and returns (stdout, the games sorted by id).
fn run(spec: &Path, out: &Path) -> (String, Vec<GameLine>) {
    let output = Command::cargo_bin("joute")
        .unwrap()
        .args([
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--threads", "2"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let mut games: Vec<GameLine> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    games.sort_by_key(|g| g.id);
    (String::from_utf8(output.stdout).unwrap(), games)
}

/// The position after the game's opening and moves, replayed from `start`.
fn replay<G: Game>(start: G, game: &GameLine) -> G {
    game.opening
        .iter()
        .chain(&game.moves)
        .fold(start, |pos, m| pos.play(pos.parse_move(m).unwrap()))
}

/// Checks what every adjudicated game of `games` says of itself: its position is where its
/// moves lead, the value belongs to the side to move there, and the result is the value's.
/// Returns each adjudicated game with its replayed position.
fn adjudicated<G: Game>(start: G, games: &[GameLine]) -> Vec<(&GameLine, G)> {
    let mut found = Vec::new();
    for g in games {
        if g.termination != "adjudication" {
            assert!(g.adjudication.is_none(), "game {}", g.id);
            continue;
        }
        let a = g
            .adjudication
            .as_ref()
            .expect("an adjudicated game keeps the verdict");
        let pos = replay(start, g);
        assert!(
            pos.outcome().is_none(),
            "game {}: adjudicated after its end",
            g.id
        );
        assert_eq!(a.plies, g.opening.len() + g.moves.len(), "game {}", g.id);
        let mover = match pos.side_to_move() {
            Side::First => "first",
            Side::Second => "second",
        };
        assert_eq!(a.to_move, mover, "game {}", g.id);
        // The result, from the first player's side, is the sign of the mover's value.
        let first = if mover == "first" {
            a.value.signum()
        } else {
            -a.value.signum()
        };
        let expected = match first {
            1 => "1-0",
            -1 => "0-1",
            _ => "1/2-1/2",
        };
        assert_eq!(g.result, expected, "game {}: {:?}", g.id, a);
        assert!(g.detail.as_deref().unwrap().starts_with("solver: "));
        found.push((g, pos));
    }
    found
}

/// The terminations row of `engine` in the terminal table: its counts.
fn terminations_row(stdout: &str, engine: &str) -> Vec<u64> {
    let table = stdout
        .split("Terminations")
        .nth(1)
        .expect("a terminations table");
    let line = table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(engine))
        .expect("a row for the engine");
    line.split_whitespace()
        .skip(1)
        .map(|n| n.parse().unwrap())
        .collect()
}

#[test]
fn connect4_adjudicated_games_end_with_the_solvers_exact_value() {
    let dir = scratch("connect4");
    let on = spec(
        &dir,
        "on.toml",
        "connect4",
        4,
        12,
        "\n[adjudication]\nconnect4_nodes = 200000\n",
    );
    let off = spec(&dir, "off.toml", "connect4", 4, 12, "");
    let (stdout, games) = run(&on, &dir.join("on"));
    let (off_stdout, off_games) = run(&off, &dir.join("off"));
    assert_eq!(games.len(), 24);
    assert_eq!(off_games.len(), 24);
    assert!(off_games.iter().all(|g| g.termination == "normal"));
    assert!(!off_stdout.contains("Terminations"), "{off_stdout}");

    let found = adjudicated(Connect4::start(), &games);
    assert!(found.len() > games.len() / 2, "{} adjudicated", found.len());
    let mut solver = Connect4Solver::with_table_bits(22);
    for (g, pos) in &found {
        let a = g.adjudication.as_ref().unwrap();
        let digits: String = g.opening.iter().chain(&g.moves).cloned().collect();
        assert_eq!(a.position, digits);
        assert_eq!(solver.score(pos), a.value, "game {}: {}", g.id, a.position);
        assert_eq!(
            g.margin,
            if g.score == 0.5 {
                0
            } else {
                (2.0 * g.score - 1.0) as i32
            }
        );
    }
    // The same games up to the adjudication: the engines' moves are those of the run without
    // it (built-in engines are reproducible), cut where the solver settled the position.
    for (g, off) in games.iter().zip(&off_games) {
        assert_eq!(g.id, off.id);
        assert!(off.moves.starts_with(&g.moves), "game {}", g.id);
    }
    // The report counts them per engine: every game of this two-engine run is each engine's.
    let adjudicated = found.len() as u64;
    assert!(
        stdout.contains(&format!("adjudication {adjudicated} of 24 games")),
        "{stdout}"
    );
    for engine in ["ab-1", "ab-3"] {
        assert_eq!(terminations_row(&stdout, engine)[..2], [24, adjudicated]);
    }
    let html = std::fs::read_to_string(dir.join("on").join("index.html")).unwrap();
    assert!(html.contains("adjudicated"));
}

#[test]
fn connect4_adjudication_is_the_same_on_one_thread_or_two() {
    let dir = scratch("threads");
    let on = spec(&dir, "on.toml", "connect4", 4, 6, "\n[adjudication]\n");
    let strip = |games: Vec<GameLine>| games.into_iter().map(GameLine::untimed).collect::<Vec<_>>();
    let (_, two) = run(&on, &dir.join("two"));
    let output = Command::cargo_bin("joute")
        .unwrap()
        .args(["run", on.to_str().unwrap(), "--out"])
        .arg(dir.join("one"))
        .args(["--threads", "1"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = std::fs::read_to_string(dir.join("one").join("games.jsonl")).unwrap();
    let mut one: Vec<GameLine> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    one.sort_by_key(|g| g.id);
    assert_eq!(strip(one), strip(two));
}

#[test]
fn othello_adjudicated_games_end_with_the_result_of_perfect_play() {
    let dir = scratch("othello");
    let on = spec(
        &dir,
        "on.toml",
        "othello",
        6,
        4,
        "\n[adjudication]\nothello_empties = 12\n",
    );
    let off = spec(&dir, "off.toml", "othello", 6, 4, "");
    let (stdout, games) = run(&on, &dir.join("on"));
    let (_, off_games) = run(&off, &dir.join("off"));
    assert_eq!(games.len(), off_games.len());
    let found = adjudicated(Othello::start(), &games);
    assert!(!found.is_empty());
    let mut solver = OthelloSolver::new();
    for (g, pos) in &found {
        let a = g.adjudication.as_ref().unwrap();
        assert_eq!(a.position, pos.to_board_string(), "game {}", g.id);
        let empties = 64 - (pos.player | pos.opponent).count_ones();
        assert!(empties <= 12, "game {}: {empties} empties", g.id);
        // Solved again, and played out to the end by two perfect players.
        let solution = solver.solve(pos);
        assert_eq!(solution.score, a.value, "game {}", g.id);
        let mut p = *pos;
        while p.outcome().is_none() {
            let mv = solver.solve(&p).best_moves[0];
            p = p.play(mv);
        }
        let end = p.outcome().unwrap();
        assert_eq!(end.score, g.margin, "game {}: the play-out's margin", g.id);
        let first = if a.to_move == "first" {
            a.value
        } else {
            -a.value
        };
        assert_eq!(first, g.margin, "game {}", g.id);
    }
    let n = found.len() as u64;
    for engine in ["ab-1", "ab-3"] {
        assert_eq!(terminations_row(&stdout, engine)[1], n);
    }
}

#[test]
fn small_morpion_boards_are_adjudicated_by_the_generic_solver() {
    let dir = scratch("morpion");
    let on = spec(
        &dir,
        "on.toml",
        "morpion-4x4-3",
        2,
        4,
        "\n[adjudication]\nmorpion_nodes = 100000\n",
    );
    let (_, games) = run(&on, &dir.join("on"));
    let start = Morpion::start(4, 4, 3);
    let found = adjudicated(start, &games);
    assert!(!found.is_empty());
    for (g, pos) in &found {
        let a = g.adjudication.as_ref().unwrap();
        assert_eq!(
            start.parse_position(&a.position).unwrap(),
            *pos,
            "game {}",
            g.id
        );
        let empties = (0..pos.cells())
            .filter(|&i| pos.mark_at(i).is_none())
            .count() as u32;
        let exact = generic::solve(pos, empties, 4).score;
        assert_eq!(exact.signum(), a.value.signum(), "game {}", g.id);
    }
}

#[test]
fn logs_without_the_adjudication_field_still_read() {
    let line = r#"{"id":0,"pair":0,"round":0,"opening_index":0,"opening":["4"],"first":"a","second":"b","score":1.0,"result":"1-0","margin":1,"termination":"normal","moves":["4"],"plies":1,"nodes":[0,0],"timed_out":false,"seed":1,"spec":"x","seconds":0.1}"#;
    let g: GameLine = serde_json::from_str(line).unwrap();
    assert_eq!(g.adjudication, None);
    assert!(!serde_json::to_string(&g).unwrap().contains("adjudication"));
}

/// The first prefix of `scores` (moves alternating from `first_mover`, 0 for the first player)
/// after which cutechess' rules hold, judged here without the library: (plies, rule, loser).
/// Resign: the mover's last `rc` scores all ≤ −`rs`. Draw: from full move `dn` (counting
/// `opening` plies too), each player's last `dc` scores all within ±`ds`.
fn first_rule(
    scores: &[Option<i32>],
    first_mover: usize,
    opening: usize,
    (rc, rs): (usize, i32),
    (dn, dc, ds): (usize, usize, i32),
) -> Option<(usize, &'static str, usize)> {
    for k in 1..=scores.len() {
        let side_of = |i: usize| (first_mover + i) % 2;
        let own = |side: usize, count: usize| -> Option<Vec<i32>> {
            let mine: Vec<Option<i32>> = (0..k)
                .rev()
                .filter(|&i| side_of(i) == side)
                .take(count)
                .map(|i| scores[i])
                .collect();
            (mine.len() == count).then_some(())?;
            mine.into_iter().collect()
        };
        let mover = side_of(k - 1);
        if own(mover, rc).is_some_and(|s| s.iter().all(|&v| v <= -rs)) {
            return Some((k, "resign", mover));
        }
        let within = |side| own(side, dc).is_some_and(|s| s.iter().all(|v| v.abs() <= ds));
        if opening + k >= 2 * dn && within(0) && within(1) {
            return Some((k, "draw", 2));
        }
    }
    None
}

#[test]
fn score_rules_end_games_where_the_logged_scores_first_meet_them() {
    let dir = scratch("score-rules");
    let rules = "\n[adjudication]\nsolver = false\nresign = { move_count = 4, score = 1000 }\n\
                 draw = { move_number = 15, move_count = 2, score = 200 }\n";
    let on = spec(&dir, "on.toml", "othello", 6, 30, rules);
    let off = spec(&dir, "off.toml", "othello", 6, 30, "");
    let (stdout, games) = run(&on, &dir.join("on"));
    let (_, off_games) = run(&off, &dir.join("off"));
    let (mut resigned, mut drawn) = (0, 0);
    for (g, off) in games.iter().zip(&off_games) {
        assert_eq!(
            g.scores.len(),
            g.moves.len(),
            "game {}: a score per move",
            g.id
        );
        assert!(
            off.scores.is_empty(),
            "no scores logged without score rules"
        );
        // Built-in engines play the same moves with or without the rules, up to the end.
        assert!(off.moves.starts_with(&g.moves), "game {}", g.id);
        // Othello's first mover after the opening: the opening's plies alternate (no passes
        // in 6 plies from the start).
        let first_mover = g.opening.len() % 2;
        let fired = first_rule(
            &g.scores,
            first_mover,
            g.opening.len(),
            (4, 1000),
            (15, 2, 200),
        );
        if g.termination == "adjudication" {
            let (k, rule, loser) =
                fired.unwrap_or_else(|| panic!("game {} adjudicated: {g:?}", g.id));
            assert_eq!(
                k,
                g.moves.len(),
                "game {} ends where the rule first holds",
                g.id
            );
            let detail = g.detail.as_deref().unwrap();
            assert!(detail.starts_with(rule), "game {}: {detail}", g.id);
            match loser {
                2 => {
                    assert_eq!(g.score, 0.5);
                    drawn += 1;
                }
                l => {
                    assert_eq!(g.score, if l == 0 { 0.0 } else { 1.0 }, "game {}", g.id);
                    resigned += 1;
                }
            }
        } else {
            assert_eq!(g.termination, "normal");
            assert!(fired.is_none(), "game {}: a rule held at {fired:?}", g.id);
            assert_eq!(g.moves, off.moves);
        }
    }
    // All three endings happen (44 resigned, 11 drawn, 5 played out when written).
    assert!(resigned > 10, "{resigned} resigned");
    assert!(drawn > 0, "{drawn} drawn");
    assert!(resigned + drawn < 60, "some games are played out");
    let adjudicated = (resigned + drawn) as u64;
    assert!(
        stdout.contains(&format!("adjudication {adjudicated} of 60 games")),
        "{stdout}"
    );
}

#[test]
fn score_rules_are_checked_in_the_spec() {
    let dir = scratch("score-rules-bad");
    for (table, field) in [
        (
            "resign = { move_count = 0, score = 300 }",
            "adjudication.resign.move_count",
        ),
        (
            "resign = { move_count = 3, score = -1 }",
            "adjudication.resign.score",
        ),
        (
            "draw = { move_count = 2, score = 10, move_number = 1001 }",
            "adjudication.draw.move_number",
        ),
        ("draw = { move_count = 2 }", "score"),
        ("draw = { move_count = 2, score = 1, plies = 3 }", "plies"),
    ] {
        let path = spec(
            &dir,
            "bad.toml",
            "connect4",
            2,
            2,
            &format!("\n[adjudication]\n{table}\n"),
        );
        let out = Command::cargo_bin("joute")
            .unwrap()
            .args(["run", path.to_str().unwrap(), "--out"])
            .arg(dir.join("out"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{table}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("bad.toml:") && stderr.contains(field),
            "{table}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

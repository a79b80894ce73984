//! The threat search against independent judgements: the fives on the board scanned whole
//! ([`threats::five_moves`], itself checked against plain line walks), exact values by the
//! generic full-depth solver, and the plain full-width search's wins.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::eval::{LinearEval, Weights};
use crate::games::morpion::Rule;
use crate::games::{MoveList, Side};
use crate::search::solver::generic;
use crate::search::{Algorithm, SearchConfig, Searcher, WIN_THRESHOLD};

/// A random line of play on `start` within the central `spread` cells, `plies` long at most,
/// stopped before a move that ends the game; every position of it (the start first) with the
/// move that led to it.
fn random_line(
    rng: &mut ChaCha8Rng,
    start: Morpion,
    plies: usize,
    spread: u8,
) -> Vec<(Morpion, Option<Cell>)> {
    let (rows, cols) = (start.rows(), start.cols());
    let (r0, c0) = ((rows - spread) / 2, (cols - spread) / 2);
    let mut line = vec![(start, None)];
    let mut pos = start;
    for _ in 0..plies * 4 {
        if line.len() > plies {
            break;
        }
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let cell = Cell(
            ((r0 + rng.random_range(0..spread)) as usize * cols as usize
                + (c0 + rng.random_range(0..spread)) as usize) as u8,
        );
        if !moves.contains(&cell) {
            continue;
        }
        let next = pos.play(cell);
        if next.outcome().is_some() {
            break;
        }
        pos = next;
        line.push((pos, Some(cell)));
    }
    line
}

/// Along random lines of play that leave no five to play unanswered (as the search's lines
/// do), what the last stone's lines tell agrees with the whole board's fives: the side to
/// move facing none is free, facing one blocks it (or has lost, renju's black on a forbidden
/// point), facing two has lost.
#[test]
fn forced_answers_agree_with_the_fives_on_the_whole_board() {
    let tactics = Tactics::for_game::<Morpion>().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(4646);
    let mut met = [0usize; 3];
    for rule in [Rule::Freestyle, Rule::Exact, Rule::Renju] {
        for _ in 0..300 {
            let start = Morpion::with_rule(9, 9, 5, rule);
            for (pos, last) in random_line(&mut rng, start, 40, 6) {
                let me = pos.side_to_move();
                let mine = threats::five_moves(&pos, me);
                let theirs = threats::five_moves(&pos, me.opponent());
                let forced = tactics.forced(&pos, last, 3);
                let expected = match threats::count(&theirs) {
                    0 => Forced::Free,
                    1 => {
                        let c = threats::first(&theirs).unwrap();
                        if pos.is_forbidden(c) {
                            Forced::Lost(-(WIN - 5))
                        } else {
                            Forced::Only(Cell(c as u8))
                        }
                    }
                    _ => Forced::Lost(-(WIN - 5)),
                };
                assert_eq!(forced, expected, "{rule:?}, {last:?} in\n{}", pos.render());
                met[match expected {
                    Forced::Free => 0,
                    Forced::Only(_) => 1,
                    Forced::Lost(_) => 2,
                }] += 1;
                // The search's lines go on only where the side to move has no five and
                // answers a five it faces: this line stops where they would not.
                let answered = threats::count(&theirs) == 0;
                if threats::count(&mine) > 0 || !answered {
                    break;
                }
            }
        }
    }
    assert!(met.iter().all(|&n| n >= 20), "free, only, lost: {met:?}");
}

/// At the root the whole board is read: a five of the side to move is its only move.
#[test]
fn at_the_root_a_five_of_ones_own_comes_first() {
    let tactics = Tactics::for_game::<Morpion>().unwrap();
    let start = Morpion::start(15, 15, 5);
    // X has h8..h11 (a five at h7 or h12), O has b2..b5 (a five at b1 or b6); X to move.
    let pos = start.play_sequence("h8 b2 h9 b3 h10 b4 h11 b5").unwrap();
    match tactics.forced(&pos, None, 0) {
        Forced::Only(c) => assert!(["h7", "h12"].contains(&pos.format_move(c).as_str())),
        other => panic!("{other:?}"),
    }
    // Without the root's scan (a last move given), only the opponent's fives are read: O's
    // two are beyond blocking.
    assert_eq!(
        // b5: column b (1), row 5 (index 4) of 15.
        tactics.forced(&pos, Some(Cell(4 * 15 + 1)), 1),
        Forced::Lost(-(WIN - 3))
    );
}

/// The search configuration: `pvs` to `depth`, the threat search on or off.
fn config(depth: u32, threats: bool, vcf: u64) -> SearchConfig {
    let mut config = SearchConfig::new(Algorithm::Pvs, depth);
    config.options.threats = threats;
    config.options.vcf = vcf;
    config
}

/// [`config`] with the VCT at the root within `vct` nodes.
fn config_vct(depth: u32, vcf: u64, vct: u64) -> SearchConfig {
    let mut config = config(depth, true, vcf);
    config.options.vct = vct;
    config
}

/// Every win or loss the threat search reports is one: checked by the generic exact solver on
/// small boards of every rule (its own values are full-depth minimax).
#[test]
fn the_wins_and_losses_it_reports_are_exact() {
    let mut rng = ChaCha8Rng::seed_from_u64(46);
    let mut decided = 0;
    for (rows, cols, k, rule) in [
        (6u8, 6u8, 4u8, Rule::Freestyle),
        (6, 6, 4, Rule::Exact),
        (7, 6, 5, Rule::Freestyle),
        (7, 7, 5, Rule::Renju),
    ] {
        let start = Morpion::with_rule(rows, cols, k, rule);
        let eval = LinearEval::new(&start, &Weights::default_for(&start));
        let cells = rows as usize * cols as usize;
        for _ in 0..40 {
            let line = random_line(&mut rng, start, cells - 13, rows.min(cols));
            let (pos, _) = *line.last().unwrap();
            let empties = cells
                - (threats::count(&pos.marks(Side::First))
                    + threats::count(&pos.marks(Side::Second))) as usize;
            if empties > 14 {
                // The line met a five early: too many empty cells to solve here.
                continue;
            }
            let exact = generic::solve(&pos, empties as u32, 4);
            for (vcf, vct) in [(0, 0), (200, 0), (0, 5000)] {
                let found = Searcher::new(config_vct(3, vcf, vct)).search(&pos, &eval);
                let at = || {
                    format!(
                        "{rule:?} vcf {vcf} vct {vct}: {} against {}, pv {:?}\n{}",
                        found.score,
                        exact.score,
                        found
                            .pv
                            .iter()
                            .map(|&m| pos.format_move(m))
                            .collect::<Vec<_>>(),
                        pos.render()
                    )
                };
                if found.score >= WIN_THRESHOLD {
                    assert!(exact.score >= WIN_THRESHOLD, "a win that is not: {}", at());
                    // The move it plays wins as well.
                    let mv = found.best_move.unwrap();
                    let after = pos.play(mv);
                    let reply = generic::solve(&after, empties as u32, 4);
                    assert!(
                        after.outcome().is_some() || reply.score <= -WIN_THRESHOLD,
                        "{}",
                        at()
                    );
                    decided += 1;
                } else if found.score <= -WIN_THRESHOLD {
                    assert!(
                        exact.score <= -WIN_THRESHOLD,
                        "a loss that is not: {}",
                        at()
                    );
                    decided += 1;
                }
            }
        }
    }
    assert!(decided >= 20, "{decided} positions decided");
}

/// Every forced win the plain full-width search finds within its depth, the threat search finds
/// at the same depth: it prunes only moves that lose at once and searches every line it keeps
/// at least as deep.
#[test]
fn it_finds_every_win_the_full_width_search_finds() {
    let mut rng = ChaCha8Rng::seed_from_u64(64);
    let mut wins = 0;
    for rule in [Rule::Freestyle, Rule::Exact, Rule::Renju] {
        let start = Morpion::with_rule(9, 9, 5, rule);
        let eval = LinearEval::new(&start, &Weights::default_for(&start));
        for _ in 0..60 {
            let plies = rng.random_range(10..40);
            let line = random_line(&mut rng, start, plies, 7);
            let (pos, _) = *line.last().unwrap();
            let plain = Searcher::new(config(3, false, 0)).search(&pos, &eval);
            let threat = Searcher::new(config(3, true, 0)).search(&pos, &eval);
            let at = || {
                format!(
                    "{rule:?}: {} against {}\n{}",
                    threat.score,
                    plain.score,
                    pos.render()
                )
            };
            if plain.score >= WIN_THRESHOLD {
                assert!(threat.score >= WIN_THRESHOLD, "{}", at());
                assert!(threat.score >= plain.score, "a slower win: {}", at());
                wins += 1;
            }
            if threat.score <= -WIN_THRESHOLD {
                // A loss it reports, the full-width search cannot escape either at its depth
                // or does not see: it never sees a win there.
                assert!(plain.score < WIN_THRESHOLD, "{}", at());
            }
        }
    }
    assert!(wins >= 10, "{wins} wins");
}

/// Late move reductions search fewer nodes and still find every short win: on random 9×9
/// positions of every rule, each forced win the threat search finds at depth 3 the search with
/// reductions finds at depth 5 (a reduction takes a ply from one move's line, and neither the
/// root's moves nor nodes under depth 3 are reduced: every line is searched 4 plies at least),
/// and in all it visits fewer nodes at depth 5 than the same search without them.
#[test]
fn late_move_reductions_keep_the_short_wins_and_cut_nodes() {
    let mut rng = ChaCha8Rng::seed_from_u64(47);
    let (mut wins, mut full_nodes, mut reduced_nodes) = (0, 0, 0);
    for rule in [Rule::Freestyle, Rule::Exact, Rule::Renju] {
        let start = Morpion::with_rule(9, 9, 5, rule);
        let eval = LinearEval::new(&start, &Weights::default_for(&start));
        for _ in 0..25 {
            let plies = rng.random_range(10..40);
            let line = random_line(&mut rng, start, plies, 7);
            let (pos, _) = *line.last().unwrap();
            let near = |mut config: SearchConfig, lmr: bool| {
                config.options.near = 2;
                config.options.lmr = lmr;
                Searcher::new(config).search(&pos, &eval)
            };
            let short = near(config(3, true, 0), false);
            let full = near(config(5, true, 0), false);
            let reduced = near(config(5, true, 0), true);
            if short.score >= WIN_THRESHOLD {
                assert!(
                    reduced.score >= short.score,
                    "{rule:?}: {} against {}\n{}",
                    reduced.score,
                    short.score,
                    pos.render()
                );
                wins += 1;
            }
            full_nodes += full.stats.nodes;
            reduced_nodes += reduced.stats.nodes;
        }
    }
    assert!(wins >= 5, "{wins} wins");
    assert!(
        reduced_nodes < full_nodes,
        "{reduced_nodes} nodes with reductions, {full_nodes} without"
    );
}

/// A win by continuous fours beyond the depth is played at once: on random 15×15 positions
/// where the VCF search proves a win of at least 5 plies, which the plain search at depth 1
/// cannot see, the threat search at depth 1 plays its first move.
#[test]
fn a_win_by_fours_beyond_the_depth_is_found() {
    let mut rng = ChaCha8Rng::seed_from_u64(4600);
    let mut at_root = 0;
    for rule in [Rule::Freestyle, Rule::Renju] {
        let start = Morpion::with_rule(15, 15, 5, rule);
        let eval = LinearEval::new(&start, &Weights::default_for(&start));
        for _ in 0..400 {
            let plies = rng.random_range(20..60);
            let line = random_line(&mut rng, start, plies, 7);
            let (pos, _) = *line.last().unwrap();
            let Vcf::Win(win) = crate::search::vcf::vcf(&pos, 20, 100_000).vcf else {
                continue;
            };
            if win.len() < 5 {
                continue;
            }
            let found = Searcher::new(config(1, true, 0)).search(&pos, &eval);
            assert!(
                found.score >= WIN_THRESHOLD,
                "{}\n{}",
                found.score,
                pos.render()
            );
            assert_eq!(found.pv.first(), win.first());
            let plain = Searcher::new(config(1, false, 0)).search(&pos, &eval);
            assert!(plain.score < WIN_THRESHOLD);
            at_root += 1;
        }
    }
    assert!(at_root >= 5, "{at_root} wins by fours found at the root");
}

/// With `vct`, the move played does not lose to the opponent's VCT unless the move chosen
/// without it does too (every move the search then tried lost): on random 15×15 positions,
/// each move checked by a VCT search of its own. Some positions must show the move changed.
#[test]
fn with_vct_the_move_played_stops_the_opponents_vct() {
    const NODES: u64 = 20_000;
    let mut rng = ChaCha8Rng::seed_from_u64(4649);
    let mut met = [0usize; 3];
    let loses = |pos: &Morpion, mv: Cell| {
        let after = pos.play(mv);
        after.outcome().is_none()
            && matches!(
                crate::search::vct::vct(&after, 12, NODES).vct,
                crate::search::vct::Vct::Win { .. }
            )
    };
    for rule in [Rule::Freestyle, Rule::Renju] {
        let start = Morpion::with_rule(15, 15, 5, rule);
        let eval = LinearEval::new(&start, &Weights::default_for(&start));
        for _ in 0..70 {
            let plies = rng.random_range(8..24);
            let line = random_line(&mut rng, start, plies, 9);
            let (pos, _) = *line.last().unwrap();
            let mut near = config_vct(2, 0, 0);
            near.options.near = 2;
            let plain = Searcher::new(near.clone()).search(&pos, &eval);
            near.options.vct = NODES;
            let guarded = Searcher::new(near).search(&pos, &eval);
            let (Some(m0), Some(m)) = (plain.best_move, guarded.best_move) else {
                continue;
            };
            if guarded.score >= WIN_THRESHOLD {
                continue;
            }
            if loses(&pos, m) {
                assert!(loses(&pos, m0), "{}\n{}", pos.format_move(m), pos.render());
            }
            met[0] += 1;
            met[1] += (m != m0 && loses(&pos, m0) && !loses(&pos, m)) as usize;
            met[2] += loses(&pos, m0) as usize;
        }
    }
    assert!(
        met[1] >= 3,
        "positions, moves changed to stop a VCT, first choices lost to one: {met:?}"
    );
}

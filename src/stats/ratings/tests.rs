//! The fit's checks: an independent maximiser, hand computations and seeded simulations.

use super::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// Every engine's Elo (each must have one).
fn elos(x: &Ratings) -> Vec<f64> {
    x.ratings
        .iter()
        .map(|r| r.elo.expect("an estimate"))
        .collect()
}

/// A game as a log has it: who moved first, who second, the first mover's score, and the
/// opening pair it belongs to (`None`: a game alone).
#[derive(Clone, Copy, Debug)]
struct Game {
    first: usize,
    second: usize,
    score: f64,
    pair: Option<u64>,
}

/// The games into [`Results`]: pairs as pairs (in the order their games come), the others
/// alone.
fn results_of(n: usize, games: &[Game]) -> Results {
    let mut results = Results::new((0..n).map(|i| format!("e{i}")).collect());
    let mut waiting: BTreeMap<u64, Game> = BTreeMap::new();
    for &game in games {
        match game.pair {
            None => results.add_game(game.first, game.second, game.score),
            Some(pair) => match waiting.remove(&pair) {
                None => {
                    waiting.insert(pair, game);
                }
                Some(earlier) => {
                    assert_eq!((earlier.first, earlier.second), (game.second, game.first));
                    results.add_pair(
                        earlier.first,
                        earlier.second,
                        earlier.score,
                        1.0 - game.score,
                    );
                }
            },
        }
    }
    for game in waiting.values() {
        results.add_game(game.first, game.second, game.score);
    }
    results
}

/// The log-likelihood of the games at ratings `r` and advantage `w`, game by game, written
/// from the model: the first mover scores L(r_f + w - r_s).
fn log_likelihood_of_games(games: &[Game], r: &[f64], w: f64) -> f64 {
    games
        .iter()
        .map(|g| {
            let e = 1.0 / (1.0 + 10f64.powf(-(r[g.first] + w - r[g.second]) / 400.0));
            g.score * e.ln() + (1.0 - g.score) * (1.0 - e).ln()
        })
        .sum()
}

/// A slow, independent maximiser: coordinate-wise golden-section search on the
/// log-likelihood of the games, summed per (first, second) so that it runs in seconds,
/// windows narrowing as it goes, recentred to mean 0. With `with_w`, the advantage is one
/// more coordinate.
fn slow_fit(n: usize, games: &[Game], with_w: bool) -> (Vec<f64>, f64) {
    let mut grouped: BTreeMap<(usize, usize), Game> = BTreeMap::new();
    let mut weights: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for g in games {
        let e = grouped
            .entry((g.first, g.second))
            .or_insert(Game { score: 0.0, ..*g });
        e.score += g.score;
        *weights.entry((g.first, g.second)).or_default() += 1.0;
    }
    let ll = |r: &[f64], w: f64| -> f64 {
        grouped
            .iter()
            .map(|(key, g)| {
                let count = weights[key];
                let e = 1.0 / (1.0 + 10f64.powf(-(r[g.first] + w - r[g.second]) / 400.0));
                g.score * e.ln() + (count - g.score) * (1.0 - e).ln()
            })
            .sum()
    };
    let mut r = vec![0.0; n];
    let mut w = 0.0;
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    let mut window = 800.0;
    for _ in 0..300 {
        for coordinate in 0..n + usize::from(with_w) {
            let at = |x: f64| -> f64 {
                let mut rr = r.clone();
                if coordinate < n {
                    rr[coordinate] = x;
                    ll(&rr, w)
                } else {
                    ll(&r, x)
                }
            };
            let centre = if coordinate < n { r[coordinate] } else { w };
            let (mut lo, mut hi) = (centre - window, centre + window);
            for _ in 0..100 {
                let (a, b) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
                if at(a) < at(b) {
                    lo = a;
                } else {
                    hi = b;
                }
            }
            if coordinate < n {
                r[coordinate] = 0.5 * (lo + hi);
            } else {
                w = 0.5 * (lo + hi);
            }
        }
        let mean = r.iter().sum::<f64>() / n as f64;
        r.iter_mut().for_each(|e| *e -= mean);
        window = (window * 0.9).max(20.0);
    }
    (r, w)
}

/// One game of expected score `e` for the first mover: draws `draw` of the time, fewer
/// near 0 or 1 so that the win and loss probabilities stay non-negative.
fn play(e: f64, draw: f64, rng: &mut ChaCha8Rng) -> f64 {
    crate::stats::simulated_result(rng.random_range(0.0..1.0), e, draw)
}

/// A round robin with a first-move advantage `w`: `openings` colour-swapped pairs per
/// pairing, each opening giving the first mover a bias of its own on top of `w` (uniform,
/// mean 0, within the room the model's scores leave), `draw` the draw rate.
fn round_robin(truth: &[f64], w: f64, openings: usize, draw: f64, seed: u64) -> Vec<Game> {
    let n = truth.len();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut games = Vec::new();
    let mut pair = 0;
    for i in 0..n {
        for j in i + 1..n {
            let (ei, ej) = (
                expected(truth[i] + w - truth[j]),
                expected(truth[j] + w - truth[i]),
            );
            let room = ei.min(1.0 - ei).min(ej).min(1.0 - ej);
            for _ in 0..openings {
                let bias = rng.random_range(-room..room);
                games.push(Game {
                    first: i,
                    second: j,
                    score: play(ei + bias, draw, &mut rng),
                    pair: Some(pair),
                });
                games.push(Game {
                    first: j,
                    second: i,
                    score: play(ej + bias, draw, &mut rng),
                    pair: Some(pair),
                });
                pair += 1;
            }
        }
    }
    games
}

fn fit_with(results: &Results, first_move: FirstMove) -> Ratings {
    fit(
        results,
        &FitOptions {
            first_move,
            ..FitOptions::default()
        },
    )
}

#[test]
fn the_fit_with_an_advantage_is_the_maximum_likelihood_of_an_independent_optimiser() {
    // A fixed log with a strong colour bias (+180 Elo for the first mover), some games
    // unpaired (a run cut short).
    let truth = [-120.0, -40.0, 10.0, 60.0, 90.0];
    let mut games = round_robin(&truth, 180.0, 30, 0.3, 7);
    games.truncate(games.len() - 7);
    let results = results_of(5, &games);
    let fast = fit_with(&results, FirstMove::Fit);
    let (slow, w) = slow_fit(5, &games, true);
    assert!(fast.converged, "{} iterations", fast.iterations);
    for (r, s) in elos(&fast).iter().zip(&slow) {
        assert!((r - s).abs() < 0.05, "{r} vs {s}");
    }
    let advantage = fast.first_move.expect("fitted");
    assert!((advantage.elo - w).abs() < 0.05, "{} vs {w}", advantage.elo);
    eprintln!(
        "first mover: {:+.2} (independent fit {w:+.2}); ratings {:?}",
        advantage.elo,
        elos(&fast)
    );
    // The maximum: the likelihood of the games, computed game by game, is lower anywhere
    // near it.
    let r = elos(&fast);
    let best = log_likelihood_of_games(&games, &r, advantage.elo);
    for (k, delta) in [(0, 1.0), (3, -1.0), (5, 1.0), (5, -1.0)] {
        let (mut rr, mut ww) = (r.clone(), advantage.elo);
        if k < 5 {
            rr[k] += delta;
        } else {
            ww += delta;
        }
        assert!(log_likelihood_of_games(&games, &rr, ww) < best);
    }

    // Without the advantage, the independent fit without it; the differences shrink.
    let ignored = fit_with(&results, FirstMove::Ignore);
    let (slow, _) = slow_fit(5, &games, false);
    assert!(ignored.first_move.is_none() && ignored.first_move_reason.is_none());
    for (r, s) in elos(&ignored).iter().zip(&slow) {
        assert!((r - s).abs() < 0.05, "{r} vs {s}");
    }
    let spread = |x: &Ratings| elos(x)[4] - elos(x)[0];
    assert!(
        spread(&ignored) < spread(&fast),
        "{} vs {}",
        spread(&ignored),
        spread(&fast)
    );
}

#[test]
fn a_perfect_record_gets_a_converged_bound_that_no_iteration_budget_moves() {
    // e3 loses every game; the others play a colour-biased round robin among themselves.
    let truth = [-60.0, 0.0, 70.0, -900.0];
    let mut games = round_robin(&truth, 150.0, 25, 0.3, 99);
    for g in &mut games {
        if g.first == 3 {
            g.score = 0.0;
        } else if g.second == 3 {
            g.score = 1.0;
        }
    }
    let results = results_of(4, &games);
    let budgets = [1, 10, 100, 1000].map(|max_iterations| {
        fit(
            &results,
            &FitOptions {
                max_iterations,
                ..FitOptions::default()
            },
        )
    });
    let ratings = &budgets[2];
    assert!(ratings.converged);
    assert_eq!(ratings.ratings[3].bound, Some(Bound::Upper));
    assert_eq!(
        ratings.ratings[3].reason.as_deref(),
        Some("lost every game")
    );
    assert_eq!(ratings.ratings[0].bound, None);
    // The same value at 10× the budget, to the last bit.
    assert_eq!(budgets[2], budgets[3]);
    // The others are the fit of their own games, e3 left out.
    let without: Vec<Game> = games
        .iter()
        .copied()
        .filter(|g| g.first != 3 && g.second != 3)
        .collect();
    let (slow, w) = slow_fit(3, &without, true);
    for (r, s) in elos(ratings).iter().zip(&slow) {
        assert!((r - s).abs() < 0.05, "{r} vs {s}");
    }
    assert!((ratings.first_move.unwrap().elo - w).abs() < 0.05);
    // The bound: its perfect record is as likely as not, computed game by game.
    let r = elos(ratings);
    let w = ratings.first_move.unwrap().elo;
    let ln_chance: f64 = games
        .iter()
        .filter(|g| g.first == 3 || g.second == 3)
        .map(|g| {
            let e = 1.0 / (1.0 + 10f64.powf(-(r[g.first] + w - r[g.second]) / 400.0));
            if g.first == 3 { (1.0 - e).ln() } else { e.ln() }
        })
        .sum();
    assert!((ln_chance - 0.5f64.ln()).abs() < 1e-6, "{ln_chance}");
    eprintln!("the engine that lost every game: <{:.1}", r[3]);
    assert!(r[3] < r[0] - 300.0);
    assert_eq!(ratings.ratings[3].error, None);
    assert_eq!(ratings.los(3, 0), None);
}

#[test]
fn sweeps_between_two_engines_and_chains_stay_finite() {
    // Two engines, one won everything.
    let mut results = Results::new(vec!["a".into(), "b".into()]);
    for _ in 0..10 {
        results.add_pair(0, 1, 1.0, 1.0);
    }
    let r = fit(&results, &FitOptions::default());
    assert_eq!(r.ratings[0].bound, Some(Bound::Lower));
    assert_eq!(r.ratings[1].bound, Some(Bound::Upper));
    let e = elos(&r);
    assert!(e.iter().all(|x| x.is_finite()) && e[0] > e[1]);
    assert!((e[0] + e[1]).abs() < 1e-9);
    // 20 wins are as likely as not at L(d)^20 = ½.
    let d = e[0] - e[1];
    assert!((20.0 * expected(d).ln() - 0.5f64.ln()).abs() < 1e-9, "{d}");
    assert!(r.first_move.is_none());
    assert_eq!(
        r.first_move_reason.as_deref(),
        Some("a won every game, so the ratings are bounds")
    );

    // A chain: a beats b beats c, every game.
    let mut chain = Results::new(vec!["a".into(), "b".into(), "c".into()]);
    for _ in 0..5 {
        chain.add_pair(0, 1, 1.0, 1.0);
        chain.add_pair(1, 2, 1.0, 1.0);
    }
    let r = fit(&chain, &FitOptions::default());
    let e = elos(&r);
    assert!(e.iter().all(|x| x.is_finite()));
    assert!(e[0] > e[1] && e[1] > e[2]);
    let bounds: Vec<Option<Bound>> = r.ratings.iter().map(|x| x.bound).collect();
    assert_eq!(
        bounds,
        [Some(Bound::Lower), Some(Bound::Upper), Some(Bound::Upper)]
    );
}

/// Coverage of the 95% intervals over 2000 simulated round robins with a known first-move
/// advantage: ratings (after the same mean-0 shift as the truth), differences, and the
/// advantage itself.
#[test]
fn intervals_with_the_advantage_cover_the_truth_about_95_percent_of_the_time() {
    let truth = [-150.0, -70.0, 0.0, 60.0, 160.0];
    let w_true = 200.0;
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    // 2000 runs: the advantage's coverage has a sampling error of 0.5% (1% at 500 runs).
    let runs = 2000;
    let (mut ratings, mut differences, mut advantage) = ([0usize; 2], [0usize; 2], [0usize; 2]);
    let mut width = 0.0;
    let mut compressed = 0.0;
    for t in 0..runs {
        let games = round_robin(&truth, w_true, 60, 0.3, 5000 + t);
        let results = results_of(truth.len(), &games);
        let r = fit_with(&results, FirstMove::Fit);
        let e = elos(&r);
        for ((x, elo), t) in r.ratings.iter().zip(&e).zip(truth) {
            ratings[1] += 1;
            let error = x.error.expect("an interval");
            width += error;
            if (elo - (t - mean)).abs() <= error {
                ratings[0] += 1;
            }
        }
        for i in 0..truth.len() {
            for j in i + 1..truth.len() {
                let se = r.difference_error(i, j).unwrap();
                differences[1] += 1;
                if (e[i] - e[j] - (truth[i] - truth[j])).abs() <= r.quantile() * se {
                    differences[0] += 1;
                }
            }
        }
        let a = r.first_move.expect("fitted");
        advantage[1] += 1;
        if (a.elo - w_true).abs() <= a.error.unwrap() {
            advantage[0] += 1;
        }
        let ignored = elos(&fit_with(&results, FirstMove::Ignore));
        compressed += (ignored[4] - ignored[0]) / (e[4] - e[0]);
    }
    let rate = |c: [usize; 2]| c[0] as f64 / c[1] as f64;
    eprintln!(
        "first move fitted, {runs} round robins: ratings coverage {:.4}, differences {:.4}, \
         advantage {:.4}; mean ± {:.1} Elo; without the advantage the spread is {:.3} of it",
        rate(ratings),
        rate(differences),
        rate(advantage),
        width / ratings[1] as f64,
        compressed / runs as f64
    );
    for c in [ratings, differences, advantage] {
        assert!((0.93..=0.97).contains(&rate(c)), "coverage {}", rate(c));
    }
}

/// A round robin of `openings` opening pairs per pairing without a first-move advantage
/// but with a colour bias per opening.
fn paired_round_robin(truth: &[f64], openings: usize, seed: u64) -> Results {
    results_of(truth.len(), &round_robin(truth, 0.0, openings, 0.3, seed))
}

/// The same games with every game its own cluster: the per-game spread of the sandwich.
fn unpaired(results: &Results) -> Results {
    let mut single = Results::new(results.names.clone());
    for ((i, j), m) in results.meetings() {
        let lone = |count: f64, points: f64, squares: f64| Meeting {
            lone: count,
            lone_points: points,
            lone_squares: squares,
            ..Meeting::default()
        };
        let mut other = Results::new(results.names.clone());
        other.add_meeting(
            i,
            j,
            lone(m.lone + m.pairs, m.lone_points + m.x, m.lone_squares + m.xx),
        );
        // The second game of the pair: j moved first and scored 1 - y.
        other.add_meeting(
            j,
            i,
            lone(m.pairs, m.pairs - m.y, m.pairs - 2.0 * m.y + m.yy),
        );
        single.merge(&other);
    }
    single
}

#[test]
fn paired_intervals_cover_the_truth_about_95_percent_of_the_time() {
    let truth = [-150.0, -70.0, 0.0, 60.0, 160.0];
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    let runs = 500;
    // [per-game K, clustered K] × [ratings covered, differences covered].
    let mut covered = [[0usize; 2]; 2];
    let (mut ratings_total, mut differences_total) = (0, 0);
    let mut width = [0.0; 2];
    for t in 0..runs {
        let paired = paired_round_robin(&truth, 80, 5000 + t);
        let fits = [
            fit_with(&unpaired(&paired), FirstMove::Fit),
            fit_with(&paired, FirstMove::Fit),
        ];
        ratings_total += truth.len();
        differences_total += truth.len() * (truth.len() - 1) / 2;
        for (k, r) in fits.iter().enumerate() {
            let e = elos(r);
            for ((x, elo), t) in r.ratings.iter().zip(&e).zip(truth) {
                let error = x.error.expect("an interval");
                width[k] += error;
                if (elo - (t - mean)).abs() <= error {
                    covered[k][0] += 1;
                }
            }
            for i in 0..truth.len() {
                for j in i + 1..truth.len() {
                    let se = r.difference_error(i, j).unwrap();
                    if (e[i] - e[j] - (truth[i] - truth[j])).abs() <= r.quantile() * se {
                        covered[k][1] += 1;
                    }
                }
            }
        }
    }
    let rate = |k: usize, what: usize| {
        covered[k][what] as f64 / [ratings_total, differences_total][what] as f64
    };
    for (k, name) in ["per-game K", "clustered K"].iter().enumerate() {
        eprintln!(
            "paired round robins, {name}: ratings coverage {:.4}, differences coverage \
             {:.4}, mean ± {:.1} Elo",
            rate(k, 0),
            rate(k, 1),
            width[k] / ratings_total as f64
        );
    }
    // Only the clustered K is asserted: the per-game one is printed for comparison.
    for what in 0..2 {
        let r = rate(1, what);
        assert!((0.93..=0.97).contains(&r), "clustered coverage {r}");
    }
}

#[test]
fn a_pair_counts_as_two_games_of_either_colour() {
    let mut paired = Results::new(vec!["a".into(), "b".into(), "c".into()]);
    for (a, b, x, y) in [(0, 1, 1.0, 0.5), (2, 0, 0.0, 0.0), (1, 2, 0.5, 1.0)] {
        paired.add_pair(a, b, x, y);
    }
    assert_eq!(paired.games(0, 1), 2.0);
    assert_eq!(paired.points(0, 1), 1.5);
    assert_eq!(paired.points(1, 0), 0.5);
    assert_eq!(paired.first_games(0, 1), 1.0);
    assert_eq!(paired.first_points(0, 1), 1.0);
    // b moved first in the second game of (a, b) and scored 1 - ½.
    assert_eq!(paired.first_points(1, 0), 0.5);
    assert_eq!(paired.points(0, 2), 2.0);
    assert_eq!(paired.first_points(0, 2), 1.0);
    // The same games give the same ratings; only the error bars see the pairing.
    let (p, s) = (
        fit_with(&paired, FirstMove::Fit),
        fit_with(&unpaired(&paired), FirstMove::Fit),
    );
    for (x, y) in elos(&p).iter().zip(&elos(&s)) {
        assert!((x - y).abs() < 1e-9);
    }
}

#[test]
fn merged_shards_equal_one_log() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut games = Vec::new();
    for k in 0..200u64 {
        let a = rng.random_range(0..4usize);
        let b = (a + rng.random_range(1..4usize)) % 4;
        let (x, y) = (play(0.5, 0.3, &mut rng), play(0.5, 0.3, &mut rng));
        let pair = (k % 3 != 0).then_some(k);
        games.push(Game {
            first: a,
            second: b,
            score: x,
            pair,
        });
        if pair.is_some() {
            games.push(Game {
                first: b,
                second: a,
                score: y,
                pair,
            });
        }
    }
    let whole = results_of(4, &games);
    let halves: Vec<Results> = [0, 1]
        .iter()
        .map(|&h| {
            let part: Vec<Game> = games
                .iter()
                .copied()
                .filter(|g| g.pair.map_or(g.score == 0.5, |p| p % 2 == 0) == (h == 0))
                .collect();
            results_of(4, &part)
        })
        .collect();
    let mut merged = Results::new(whole.names.clone());
    merged.merge(&halves[0]);
    merged.merge(&halves[1]);
    assert_eq!(merged, whole);
    assert_eq!(
        fit_with(&merged, FirstMove::Fit),
        fit_with(&whole, FirstMove::Fit)
    );
}

#[test]
#[should_panic(expected = "different engines")]
fn merging_other_engines_panics() {
    let mut a = Results::new(vec!["a".into(), "b".into()]);
    a.merge(&Results::new(vec!["b".into(), "a".into()]));
}

#[test]
fn an_anchor_fixes_one_engine() {
    let results = results_of(3, &round_robin(&[-50.0, 0.0, 50.0], 100.0, 40, 0.3, 3));
    let free = fit(&results, &FitOptions::default());
    let anchored = fit(
        &results,
        &FitOptions {
            anchor: Some((1, 1500.0)),
            ..FitOptions::default()
        },
    );
    assert_eq!(anchored.ratings[1].elo, Some(1500.0));
    assert_eq!(anchored.ratings[1].error, None);
    let (f, a) = (elos(&free), elos(&anchored));
    assert!((f[2] - f[0] - (a[2] - a[0])).abs() < 1e-9);
    // The difference's interval does not depend on the origin.
    let (x, y) = (
        free.difference_error(2, 0).unwrap(),
        anchored.difference_error(2, 0).unwrap(),
    );
    assert!((x - y).abs() < 1e-9, "{x} vs {y}");
    let (a, b) = (free.first_move.unwrap(), anchored.first_move.unwrap());
    assert!((a.elo - b.elo).abs() < 1e-9);
    assert!((a.error.unwrap() - b.error.unwrap()).abs() < 1e-9);
}

/// The coverage simulation of small and large matches: for two engines and a four-engine round
/// robin, 400 seeded matches at each of 8, 20, 100 and 1,000 games (per pairing), the share of
/// printed 95% intervals of the differences and of the first-move advantage that hold the
/// truth, for joute's intervals and the alternatives it was chosen over. The truth: 200 Elo
/// between the two engines (ratings 0, 100, 200, 300 in the round robin), +100 for the first
/// mover, 10% draws, colour-swapped opening pairs each with a bias of its own.
mod coverage {
    use super::*;

    /// One method's tally at one size.
    #[derive(Default, Clone, Copy)]
    struct Tally {
        /// Differences with an interval, and those holding the truth.
        differences: usize,
        covered: usize,
        /// Summed half-widths of the differences' intervals.
        width: f64,
        /// Advantages with an interval, and those holding the truth.
        advantages: usize,
        advantage_covered: usize,
        /// Differences with a bound or no estimate; advantages not estimated.
        bounds: usize,
        not_estimated: usize,
        /// Estimates with an interval under 0.5 Elo or beyond 2,000 Elo.
        absurd: usize,
    }

    impl Tally {
        fn rate(a: usize, b: usize) -> f64 {
            if b == 0 {
                f64::NAN
            } else {
                a as f64 / b as f64
            }
        }
    }

    /// A match's games: two engines, or four in a round robin.
    fn simulate(truth: &[f64], games_per_pairing: usize, seed: u64) -> Vec<Game> {
        round_robin(truth, 100.0, games_per_pairing / 2, 0.1, seed)
    }

    /// The tally of one fit: every difference between engines with estimates and intervals,
    /// and the advantage.
    fn count(r: &Ratings, truth: &[f64], tally: &mut Tally) {
        for x in &r.ratings {
            if let (Some(elo), Some(error)) = (x.elo, x.error)
                && (error < 0.5 || elo.abs() > 2000.0)
            {
                tally.absurd += 1;
            }
        }
        for i in 0..truth.len() {
            for j in i + 1..truth.len() {
                let (a, b) = (&r.ratings[i], &r.ratings[j]);
                let se = r.difference_error(i, j);
                match (a.elo, b.elo, a.bound, b.bound, se) {
                    (Some(x), Some(y), None, None, Some(se)) => {
                        let half = r.quantile() * se;
                        tally.differences += 1;
                        tally.width += half;
                        if (x - y - (truth[i] - truth[j])).abs() <= half {
                            tally.covered += 1;
                        }
                    }
                    _ => tally.bounds += 1,
                }
            }
        }
        match r.first_move {
            Some(Advantage {
                elo,
                error: Some(error),
            }) => {
                tally.advantages += 1;
                if error < 0.5 || elo.abs() > 2000.0 {
                    tally.absurd += 1;
                }
                if (elo - 100.0).abs() <= error {
                    tally.advantage_covered += 1;
                }
            }
            _ => tally.not_estimated += 1,
        }
    }

    /// Two engines' games as the alternatives below read them: games and points of engine 0
    /// moving first, games and points of engine 1 moving first.
    #[derive(Clone, Copy)]
    struct Cells {
        n1: f64,
        p1: f64,
        n2: f64,
        p2: f64,
    }

    fn cells_of(results: &Results) -> Cells {
        Cells {
            n1: results.first_games(0, 1),
            p1: results.first_points(0, 1),
            n2: results.first_games(1, 0),
            p2: results.first_points(1, 0),
        }
    }

    /// ln L(x), written again: the first mover's chance of scoring at predictor x.
    fn ln_l(x: f64) -> f64 {
        -(1.0 + 10f64.powf(-x / 400.0)).ln()
    }

    /// The log-likelihood of the two cells at difference d (engine 0 minus engine 1) and
    /// advantage w.
    fn log_likelihood(c: Cells, d: f64, w: f64) -> f64 {
        c.p1 * ln_l(d + w)
            + (c.n1 - c.p1) * ln_l(-(d + w))
            + c.p2 * ln_l(w - d)
            + (c.n2 - c.p2) * ln_l(d - w)
    }

    /// The largest value of a concave function on [-4000, 4000] (golden section).
    fn maximum(f: impl Fn(f64) -> f64) -> (f64, f64) {
        let phi = (5f64.sqrt() - 1.0) / 2.0;
        let (mut lo, mut hi) = (-4000.0, 4000.0);
        for _ in 0..90 {
            let (a, b) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
            if f(a) < f(b) {
                lo = a;
            } else {
                hi = b;
            }
        }
        let x = 0.5 * (lo + hi);
        (x, f(x))
    }

    /// The profile-likelihood 95% interval of d (the advantage maximised out, or 0), from the
    /// likelihood ratio's χ²₁ quantile 3.8415; an end that never reaches it is infinite.
    fn profile_interval(c: Cells, with_w: bool) -> (f64, f64) {
        let profile = |d: f64| {
            if with_w {
                maximum(|w| log_likelihood(c, d, w)).1
            } else {
                log_likelihood(c, d, 0.0)
            }
        };
        let (d_hat, best) = maximum(profile);
        let inside = |d: f64| 2.0 * (best - profile(d)) <= 3.8415;
        let end = |direction: f64| {
            let far = d_hat + direction * 4000.0;
            if inside(far) {
                return direction * f64::INFINITY;
            }
            let (mut a, mut b) = (d_hat, far);
            for _ in 0..60 {
                let m = 0.5 * (a + b);
                if inside(m) {
                    a = m;
                } else {
                    b = m;
                }
            }
            0.5 * (a + b)
        };
        (end(-1.0), end(1.0))
    }

    /// BayesElo's way: two virtual draws between the engines (one of each colour here), the
    /// maximum of the posterior, and the interval of its curvature (normal quantile).
    fn prior_interval(c: Cells, with_w: bool) -> (f64, f64) {
        let c = Cells {
            n1: c.n1 + 1.0,
            p1: c.p1 + 0.5,
            n2: c.n2 + 1.0,
            p2: c.p2 + 0.5,
        };
        let slope = (10f64).ln() / 400.0;
        let h = |n: f64, x: f64| {
            let l = 1.0 / (1.0 + 10f64.powf(-x / 400.0));
            n * l * (1.0 - l) * slope * slope
        };
        let (d, var) = if with_w {
            let (d, _) = maximum(|d| maximum(|w| log_likelihood(c, d, w)).1);
            let (w, _) = maximum(|w| log_likelihood(c, d, w));
            (d, (1.0 / h(c.n1, d + w) + 1.0 / h(c.n2, w - d)) / 4.0)
        } else {
            let (d, _) = maximum(|d| log_likelihood(c, d, 0.0));
            (d, 1.0 / (h(c.n1, d) + h(c.n2, -d)))
        };
        let half = 1.959_964 * var.sqrt();
        (d - half, d + half)
    }

    fn methods() -> Vec<(&'static str, Intervals)> {
        vec![
            ("sandwich, z (before)", Intervals::Sandwich),
            ("sandwich G/(G-1), t(G-1)", Intervals::ClusteredT),
            (
                "pooled d0=1",
                Intervals::Pooled {
                    prior_clusters: 1.0,
                },
            ),
            (
                "pooled d0=2",
                Intervals::Pooled {
                    prior_clusters: 2.0,
                },
            ),
            ("pooled d0=4 (joute)", Intervals::default()),
            (
                "pooled d0=8",
                Intervals::Pooled {
                    prior_clusters: 8.0,
                },
            ),
        ]
    }

    /// The long one: ignored by a plain `cargo test`, run by CI (`.ci/run`).
    mod long {
        use super::*;

        #[test]
        #[ignore = "long (CI runs it): cargo test --lib -- --ignored ::long::"]
        fn small_and_large_matches_keep_the_nominal_coverage() {
            let sizes = [8usize, 20, 100, 1000];
            let setups: [(&str, &[f64]); 2] = [
                ("two engines", &[200.0, 0.0]),
                ("round robin of four", &[0.0, 100.0, 200.0, 300.0]),
            ];
            let runs = 400;
            let methods = methods();
            eprintln!(
                "{:<20} {:>5} {:<26} {:>9} {:>8} {:>9} {:>8} {:>8} {:>6}",
                "setup",
                "games",
                "method",
                "diff cov",
                "mean ±",
                "adv. cov",
                "bounds",
                "adv. n/e",
                "absurd"
            );
            for (setup, truth) in setups {
                for &size in &sizes {
                    let mut tallies = vec![Tally::default(); methods.len()];
                    // Profile likelihood and BayesElo's prior, on the matches joute gives an
                    // interval (two engines only): [covered, total, summed half-widths].
                    let mut alternatives = [[0.0f64; 3]; 2];
                    for run in 0..runs {
                        let seed = 90_000 + 1_000 * size as u64 + run;
                        let results = results_of(truth.len(), &simulate(truth, size, seed));
                        for ((_, intervals), tally) in methods.iter().zip(&mut tallies) {
                            let r = fit(
                                &results,
                                &FitOptions {
                                    intervals: *intervals,
                                    ..FitOptions::default()
                                },
                            );
                            count(&r, truth, tally);
                            if truth.len() == 2
                                && *intervals == Intervals::default()
                                && r.difference_error(0, 1).is_some()
                            {
                                let c = cells_of(&results);
                                let with_w = r.first_move.is_some();
                                let d = truth[0] - truth[1];
                                for (k, (lo, hi)) in
                                    [profile_interval(c, with_w), prior_interval(c, with_w)]
                                        .into_iter()
                                        .enumerate()
                                {
                                    alternatives[k][1] += 1.0;
                                    alternatives[k][2] += ((hi - lo) / 2.0).min(4000.0);
                                    if lo <= d && d <= hi {
                                        alternatives[k][0] += 1.0;
                                    }
                                }
                            }
                        }
                    }
                    for ((name, intervals), t) in methods.iter().zip(&tallies) {
                        let pairs = truth.len() * (truth.len() - 1) / 2 * runs as usize;
                        eprintln!(
                            "{setup:<20} {size:>5} {name:<26} {:>9.3} {:>8.1} {:>9.3} {:>7.1}% {:>7.1}% {:>6}",
                            Tally::rate(t.covered, t.differences),
                            t.width / t.differences.max(1) as f64,
                            Tally::rate(t.advantage_covered, t.advantages),
                            100.0 * t.bounds as f64 / pairs as f64,
                            100.0 * t.not_estimated as f64 / runs as f64,
                            t.absurd
                        );
                        if *intervals == Intervals::default() {
                            if truth.len() == 2 {
                                for (k, name) in ["profile likelihood", "prior: 2 draws (BayesElo)"]
                                    .iter()
                                    .enumerate()
                                {
                                    let [c, n, w] = alternatives[k];
                                    eprintln!(
                                        "{setup:<20} {size:>5} {name:<26} {:>9.3} {:>8.1}",
                                        c / n,
                                        w / n
                                    );
                                }
                            }
                            let cov = Tally::rate(t.covered, t.differences);
                            assert!(cov >= 0.90, "{setup}, {size} games: coverage {cov}");
                            if t.advantages >= 40 {
                                let adv = Tally::rate(t.advantage_covered, t.advantages);
                                assert!(adv >= 0.90, "{setup}, {size} games: advantage {adv}");
                            }
                            assert_eq!(t.absurd, 0, "{setup}, {size} games");
                            // Large matches: the sandwich's interval, widened by at most 2%.
                            if size >= 1000 {
                                let before = tallies[0].width / tallies[0].differences as f64;
                                let ratio = t.width / t.differences as f64 / before;
                                assert!((1.0..1.02).contains(&ratio), "{setup}: {ratio}");
                            }
                        }
                    }
                }
            }
        }
    }
}

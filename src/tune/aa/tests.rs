use super::*;

/// A game of pair `pair`, `first` moving first and scoring `score`, with `moves`.
fn game(pair: u64, colour: u64, first: &str, score: f64, moves: &[&str]) -> GameLine {
    let second = if first == "a" { "b" } else { "a" };
    GameLine {
        id: 2 * pair + colour,
        pair,
        round: 0,
        opening_index: pair,
        opening: Vec::new(),
        first: first.into(),
        second: second.into(),
        score,
        result: String::new(),
        margin: 0,
        termination: "normal".into(),
        detail: None,
        adjudication: None,
        moves: moves.iter().map(|m| m.to_string()).collect(),
        plies: moves.len(),
        nodes: [0, 0],
        timed_out: false,
        timeouts: [0, 0],
        move_us: Vec::new(),
        move_ms: Vec::new(),
        move_nodes: Vec::new(),
        move_depth: Vec::new(),
        move_seldepth: Vec::new(),
        move_cpu_us: Vec::new(),
        clock_ms: Vec::new(),
        scores: Vec::new(),
        not_reproducible: Vec::new(),
        seed: 0,
        spec: String::new(),
        seconds: 0.0,
    }
}

/// `pairs` pairs of `a` against `b` on the schedule's colours: `a_scores` gives a's two
/// scores in pair `i`, `mirrored` whether its two games are the same moves.
fn tally(
    pairs: u64,
    a_scores: impl Fn(u64) -> [f64; 2],
    mirrored: impl Fn(u64) -> bool,
) -> AaTally {
    let mut t = AaTally::default();
    for i in 0..pairs {
        let [s0, s1] = a_scores(i);
        let other: &[&str] = if mirrored(i) { &["x"] } else { &["y"] };
        t.add(game(i, 0, "a", s0, &["x"]), "a").unwrap();
        // Colour 1: b moves first, and scores 1 - a's score.
        t.add(game(i, 1, "b", 1.0 - s1, other), "a").unwrap();
    }
    t
}

#[test]
fn games_are_credited_by_name_and_pairs_compared_move_for_move() {
    let t = tally(
        4,
        |i| [[1.0, 0.0], [1.0, 1.0], [0.5, 0.5], [0.0, 0.5]][i as usize],
        |i| i == 0,
    );
    assert_eq!(t.pairs, 4);
    assert_eq!(t.distinct_pairs, 3);
    assert_eq!(t.decisive_games, 5);
    // [LL, LD, WL+DD, WD, WW]: WL, WW, DD, LD.
    assert_eq!(t.pentanomial, [0, 1, 2, 0, 1]);
    let mut t = AaTally::default();
    assert!(t.add(game(0, 0, "a", 1.0, &[]), "c").is_err());
}

#[test]
fn the_verdict_says_why() {
    let verdict = |t: &AaTally, summary| judge(t, summary).verdict;
    let reason = |t: &AaTally| judge(t, None).reason;
    // Every pair the same game with colours swapped: 0 ± 0, but nothing was tested.
    let mirrored = tally(
        50,
        |i| if i % 3 == 0 { [0.5; 2] } else { [1.0, 0.0] },
        |_| true,
    );
    assert_eq!(mirrored.pentanomial, [0, 0, 50, 0, 0]);
    let check = judge(&mirrored, Some(mirrored.pentanomial));
    assert_eq!(check.verdict, AaVerdict::NotMeaningful);
    assert!(check.reason.contains("same moves"), "{}", check.reason);
    // Every game drawn.
    let drawn = tally(50, |_| [0.5; 2], |_| false);
    assert_eq!(verdict(&drawn, None), AaVerdict::NotMeaningful);
    assert!(reason(&drawn).contains("drawn"), "{}", reason(&drawn));
    // Different games, but every pair split (the side moving first always wins).
    let split = tally(50, |_| [1.0, 0.0], |_| false);
    assert_eq!(verdict(&split, None), AaVerdict::NotMeaningful);
    assert!(
        reason(&split).contains("only 0 of the 50"),
        "{}",
        reason(&split)
    );
    // Nine uneven pairs are too few, ten are enough.
    let uneven = |k: u64| {
        let t = tally(
            50,
            |i| match i {
                i if i < k && i % 2 == 0 => [1.0, 0.5],
                i if i < k => [0.0, 0.5],
                _ => [1.0, 0.0],
            },
            |_| false,
        );
        assert_eq!(judge(&t, None).uneven_pairs, k);
        judge(&t, None).verdict
    };
    assert_eq!(MIN_UNEVEN_PAIRS, 10);
    assert_eq!(uneven(9), AaVerdict::NotMeaningful);
    assert_eq!(uneven(10), AaVerdict::Pass);
    // No pair at all.
    assert_eq!(verdict(&AaTally::default(), None), AaVerdict::NotMeaningful);
    // Balanced noise passes; a side favoured fails.
    let scores =
        |i: u64| [[1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.5, 1.0], [0.5, 0.0]][i as usize % 5];
    let balanced = tally(200, scores, |_| false);
    let (elo, error) = pentanomial_elo(balanced.pentanomial);
    assert!(elo.abs() < 1e-9 && error > 10.0, "{elo} ± {error}");
    assert_eq!(
        verdict(&balanced, Some(balanced.pentanomial)),
        AaVerdict::Pass
    );
    let favoured = tally(
        200,
        |i| if i % 4 == 0 { [1.0, 1.0] } else { scores(i) },
        |_| false,
    );
    assert_eq!(verdict(&favoured, None), AaVerdict::Fail);
    assert!(reason(&favoured).contains("excludes 0"));
    // Mirrored games seated wrongly (one copy first in both): the same game scored twice for
    // the same side, uneven pairs, a fail.
    let seated = tally(
        50,
        |i| [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [0.5, 0.5]][i as usize % 4],
        |_| true,
    );
    assert_eq!(verdict(&seated, None), AaVerdict::Fail);
    // The log and the summary disagree: fail, even where the games alone say nothing.
    let mut other = mirrored.pentanomial;
    other[2] -= 1;
    other[4] += 1;
    let check = judge(&mirrored, Some(other));
    assert_eq!(check.verdict, AaVerdict::Fail);
    assert!(check.reason.contains("wrong side"), "{}", check.reason);
}

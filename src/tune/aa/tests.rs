use super::*;
use crate::arena::CancelToken;
use crate::arena::TournamentSpec;
use crate::arena::openings::parse_all;
use crate::arena::runner::{Seats, play_slot};
use crate::eval::{Features, FeaturesVisitor};
use crate::tune::run::{held_out_openings, opening_stream};
use crate::tune::session::{MatchKind, TuneOptions, TuneSession, match_tournament};
use crate::tune::spec::{ResolvedTuneSpec, parse};

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
        move_ms: Vec::new(),
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

/// A tuning spec of Morpion 5×5, four in a row, at depth 2: after its 2-ply openings the side
/// that moved first scores about 65% (+110 to +140 Elo), the advantage a broken seating hands
/// one copy. Only its A/A match (200 pairs) is played.
const SPEC: &str = r#"name = "aa"
game = "morpion-5x5-4"
seed = 2026
method = "hill-climb"

[engine]
algorithm = "alphabeta"
depth = 2

[openings]
plies = 2

[budget]
iterations = 1

[confirm]
games = 2
aa_games = 400

[[param]]
name = "centre"
min = -10
max = 10
step = 1
"#;

/// [`SPEC`] under `seed`, and `count` held-out openings as its tuning run draws them.
fn spec_and_openings(seed: u64, count: u64) -> (ResolvedTuneSpec, Vec<String>) {
    struct Held<'a>(&'a ResolvedTuneSpec, u64);
    impl FeaturesVisitor for Held<'_> {
        type Output = Vec<String>;
        fn visit<G: Features>(self, start: G) -> Vec<String> {
            let used = opening_stream(start, self.0, 0).unwrap();
            held_out_openings(start, self.0, &used, 0, self.1).unwrap()
        }
    }
    let text = SPEC.replace("seed = 2026", &format!("seed = {seed}"));
    let spec = parse(&text, "aa.toml").unwrap();
    let openings = crate::eval::dispatch(&spec.game_kind(), Held(&spec, count));
    (spec, openings)
}

/// Every game of `tournament`, played one by one by the arena's own game player
/// ([`play_slot`]: the engines the spec resolves, seeded by the game's id and the side), each
/// seated as the schedule says — or, the pipeline deliberately broken, with the pairing's first
/// engine moving first in every game (`a_first`).
fn play_every_game(tournament: &TournamentSpec, a_first: bool) -> Vec<GameLine> {
    struct Play<'a>(&'a TournamentSpec, bool);
    impl FeaturesVisitor for Play<'_> {
        type Output = Vec<GameLine>;
        fn visit<G: Features>(self, start: G) -> Vec<GameLine> {
            let Play(spec, a_first) = self;
            let openings = parse_all(&start, &spec.resolved.opening_moves).unwrap();
            let schedule = spec.resolved.schedule();
            let mut seats = Seats::new(spec, None);
            (0..schedule.games())
                .map(|id| {
                    let mut slot = schedule.slot(id);
                    if a_first {
                        (slot.first, slot.second) = schedule.pairings[slot.pairing];
                    }
                    let opening = &openings[slot.opening as usize];
                    play_slot(spec, &start, opening, &slot, &mut seats)
                })
                .collect()
        }
    }
    crate::eval::dispatch(&tournament.resolved.game_kind(), Play(tournament, a_first))
}

/// The tally of `games`, the first copy credited.
fn tally_of(games: &[GameLine]) -> AaTally {
    let mut t = AaTally::default();
    for g in games {
        t.add(g.clone(), "start-a").unwrap();
    }
    t
}

/// What the tests print of a match.
fn describe(what: &str, t: &AaTally, check: &AaCheck) -> String {
    let (elo, error) = pentanomial_elo(t.pentanomial);
    format!(
        "{what}: {elo:+.1} ± {error:.1} Elo, pairs {:?}, {} of {} pairs distinct: {} ({})",
        t.pentanomial,
        t.distinct_pairs,
        t.pairs,
        check.verdict.name(),
        check.reason
    )
}

#[test]
fn the_aa_check_passes_the_real_pipeline_and_fails_one_that_always_gives_a_the_first_move() {
    let (spec, openings) = spec_and_openings(2026, 200);
    let dir = tempfile::tempdir().unwrap();
    let session = TuneSession::open(spec.clone(), dir.path(), &TuneOptions::default()).unwrap();

    // The real pipeline: the A/A match as `joute tune` plays it, a tournament session.
    let played = session
        .play_match(
            MatchKind::Aa,
            openings.clone(),
            2,
            &mut (),
            &CancelToken::new(),
        )
        .unwrap()
        .expect("the plan has an A/A match");
    let check = played.check.expect("the A/A match is judged");
    let logged: Vec<GameLine> = std::fs::read_to_string(dir.path().join("aa/games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let real = tally_of(&logged);
    eprintln!("{}", describe("real A/A", &real, &check));
    assert_eq!(played.result.games, 400);
    assert_eq!(check.verdict, AaVerdict::Pass, "{}", check.reason);
    assert!(
        played.result.error > 0.0 && check.distinct_pairs >= 150,
        "{check:?}"
    );

    // The same games played one by one, as the schedule seats them: move for move the log's.
    let theta = session.ck.state.theta();
    let tournament = match_tournament(&spec, MatchKind::Aa, theta, None, openings, true);
    let mut replayed = play_every_game(&tournament, false);
    let mut logged = logged;
    logged.sort_by_key(|g| g.id);
    replayed.sort_by_key(|g| g.id);
    let key = |g: &GameLine| (g.id, g.first.clone(), g.moves.clone(), g.score.to_bits());
    assert!(logged.iter().map(key).eq(replayed.iter().map(key)));

    // Broken: start-a moves first in every game. Same engines, same seeds, same openings.
    let broken_games = play_every_game(&tournament, true);
    assert!(broken_games.iter().all(|g| g.first == "start-a"));
    let broken = tally_of(&broken_games);
    let check = judge(&broken, None);
    eprintln!(
        "{}",
        describe("broken A/A (start-a always first)", &broken, &check)
    );
    assert_eq!(check.verdict, AaVerdict::Fail, "{}", check.reason);
    let (elo, error) = pentanomial_elo(broken.pentanomial);
    assert!(elo - error > 0.0, "{elo} ± {error}");
}

#[test]
fn an_aa_match_without_random_choices_is_not_meaningful_unless_it_fails() {
    // What the A/A match was before it broke ties at random: alpha-beta is deterministic, so
    // each pair is one game played twice with colours swapped, exactly 0 ± 0.
    let (spec, openings) = spec_and_openings(2026, 40);
    let dir = tempfile::tempdir().unwrap();
    let session = TuneSession::open(spec.clone(), dir.path(), &TuneOptions::default()).unwrap();
    let played = session
        .play_match_with(
            MatchKind::Aa,
            openings.clone(),
            2,
            &mut (),
            &CancelToken::new(),
            false,
        )
        .unwrap()
        .unwrap();
    let check = played.check.unwrap();
    assert_eq!((played.result.elo, played.result.error), (0.0, 0.0));
    assert_eq!((check.pairs, check.distinct_pairs), (40, 0));
    assert_eq!(check.verdict, AaVerdict::NotMeaningful, "{}", check.reason);
    // Seated wrongly, the same deterministic copies fail: the copy moving first in both games
    // of a pair plays one game twice and scores it twice.
    let theta = session.ck.state.theta();
    let tournament = match_tournament(&spec, MatchKind::Aa, theta, None, openings, false);
    let broken = tally_of(&play_every_game(&tournament, true));
    let check = judge(&broken, None);
    eprintln!(
        "{}",
        describe("deterministic, start-a always first", &broken, &check)
    );
    assert_eq!(broken.distinct_pairs, 0);
    assert_eq!(check.verdict, AaVerdict::Fail, "{}", check.reason);
}

/// The false alarms of the check on real games, and its power against the broken seating, over
/// many seeds (a minute on two cores; `cargo test --release --lib tune::aa -- --ignored
/// --nocapture`). Measured: 10 false alarms in 200 seeds (5.0%; 240 other seeds gave 10), and
/// the broken seating caught in every seed tried, at +108 to +136 Elo (± 26 to 28).
#[test]
#[ignore]
fn the_aa_check_fails_about_1_honest_run_in_20_and_every_broken_one() {
    let (seeds, broken_seeds) = (200, 20);
    let (mut false_alarms, mut caught) = (0, 0);
    for seed in 0..seeds {
        let (spec, openings) = spec_and_openings(seed, 200);
        let theta: Vec<f64> = spec.params.iter().map(|p| p.value).collect();
        let tournament = match_tournament(&spec, MatchKind::Aa, &theta, None, openings, true);
        let real = tally_of(&play_every_game(&tournament, false));
        let check = judge(&real, None);
        assert_ne!(check.verdict, AaVerdict::NotMeaningful, "{}", check.reason);
        false_alarms += u64::from(check.verdict == AaVerdict::Fail);
        if seed < broken_seeds {
            let broken = tally_of(&play_every_game(&tournament, true));
            caught += u64::from(judge(&broken, None).verdict == AaVerdict::Fail);
        }
    }
    eprintln!(
        "false alarms: {false_alarms} of {seeds} honest A/A matches; broken seating caught in {caught} of {broken_seeds}"
    );
    // Binomial(200, 5%): 10 ± 3.1.
    assert!((3..=18).contains(&false_alarms), "{false_alarms}");
    assert_eq!(caught, broken_seeds);
}

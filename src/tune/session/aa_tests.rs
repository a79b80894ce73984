//! The A/A check on the real pipeline: a tuning session's A/A match, judged, and the same
//! games replayed with a broken seating (these need the session, so they live beside it rather
//! than in `tune::aa`, which the session uses).

use crate::arena::CancelToken;
use crate::arena::TournamentSpec;
use crate::arena::log::GameLine;
use crate::arena::openings::parse_all;
use crate::arena::runner::{Seats, play_slot};
use crate::eval::{Features, FeaturesVisitor};
use crate::tune::aa::{AaCheck, AaTally, AaVerdict, judge, pentanomial_elo};
use crate::tune::checkpoint::MatchKind;
use crate::tune::checkpoint::{held_out_openings, opening_stream};
use crate::tune::session::{TuneOptions, TuneSession, match_tournament};
use crate::tune::spec::{ResolvedTuneSpec, parse};

/// A tuning spec of Morpion 5×5, four in a row, at depth 2: after its 2-ply openings the side
/// that moved first scores about 65% (+110 to +140 Elo), the advantage a broken seating hands
/// one copy. Only its A/A match (200 pairs) is played.
pub(super) const SPEC: &str = r#"name = "aa"
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
/// many seeds (a minute on two cores; `cargo test --release --lib tune::session -- --ignored
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

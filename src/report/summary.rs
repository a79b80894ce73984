//! The summary of a run's games: what the tables, CSV files and charts are made of.
//!
//! A [`Summary`] is fed games one at a time, in any order ([`Summary::add`]), and keeps only
//! counts — per engine pair W/D/L, pentanomial pair counts, the rating fit's inputs — plus the
//! first game of each opening pair until its partner arrives. Feeding the same set of games in
//! another order gives the same summary, which is why the merge of shard logs renders exactly
//! what the unsharded run does.
//!
//! For an SPRT run the decision is taken on the prefix of pairs in pair order (see
//! [`crate::stats::sequential::SequentialSprt`]); games of pairs after the decision point are played
//! only because they were in flight, and are left out of every statistic.

use std::collections::{BTreeMap, HashMap};

use crate::arena::game::Termination;
use crate::arena::log::{GameLine, IdSet};
use crate::arena::schedule::Schedule;
use crate::arena::spec::ResolvedSpec;
use crate::stats::cost::{Cost, MoveCost};
use crate::stats::ratings::{FitOptions, Ratings, Results, fit};
use crate::stats::sequential::{Decided, SequentialSprt};
use crate::stats::summary::{EloEstimate, Pentanomial, Trinomial};

/// The games between two engines, from A's point of view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairingStats {
    /// Engine index of A.
    pub a: usize,
    /// Engine index of B.
    pub b: usize,
    /// A's wins, draws and losses.
    pub wdl: Trinomial,
    /// A's opening-pair results.
    pub pentanomial: Pentanomial,
    /// Pairs won once and lost once (part of the middle pentanomial count).
    pub win_loss_pairs: u64,
    /// Pairs drawn twice (the rest of the middle count).
    pub draw_draw_pairs: u64,
}

impl PairingStats {
    /// Score, Elo ± 95%, nElo and LOS of A from the opening pairs (the pentanomial model), or
    /// from single games when no pair is complete yet.
    pub fn estimate(&self) -> EloEstimate {
        if self.pentanomial.pairs() > 0 {
            self.pentanomial.estimate()
        } else {
            self.wdl.estimate()
        }
    }
}

/// The ways a game can end by one engine's failure, as the games log names them, in the order
/// the tables show them: the side that lost the game is the engine that failed.
pub const FAILURES: [&str; 5] = ["timeout", "stall", "illegal-move", "crash", "limit"];

/// The longest example of a failure kept, in characters: enough to see what an engine wrote,
/// short enough for a table cell.
pub const DETAIL_CHARS: usize = 120;

/// One engine's failure of one kind: the game it happened in and what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureExample {
    /// The game's id.
    pub game: u64,
    /// The log's `detail`, control characters blanked and cut to [`DETAIL_CHARS`] (empty when
    /// the log has none).
    pub detail: String,
}

/// The games one engine lost by failing, per kind of [`FAILURES`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Failures {
    /// Games lost, per kind, in the order of [`FAILURES`].
    pub counts: [u64; FAILURES.len()],
    /// Per kind, the failure of the lowest game id: the same whatever order the games arrive
    /// in (shards merge in any order), and the first that happened in a run in id order.
    pub examples: [Option<FailureExample>; FAILURES.len()],
}

impl Failures {
    /// Games lost by any failure.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The first failure of any kind (lowest game id): its kind and example.
    pub fn first(&self) -> Option<(&'static str, &FailureExample)> {
        FAILURES
            .iter()
            .zip(&self.examples)
            .filter_map(|(kind, x)| Some((*kind, x.as_ref()?)))
            .min_by_key(|(_, x)| x.game)
    }
}

/// `detail` fit for a table cell: control characters (an engine's stray newline or escape
/// sequence) become spaces, and it is cut to [`DETAIL_CHARS`] characters, `…` in the middle:
/// the head says what happened, the tail holds the last lines of the program's stderr, where
/// an interpreter writes its error (Python's `KeyError: ...` after the traceback).
fn short_detail(detail: &str) -> String {
    let clean: Vec<char> = detail
        .trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if clean.len() <= DETAIL_CHARS {
        return clean.into_iter().collect();
    }
    let head = DETAIL_CHARS / 3;
    let tail = DETAIL_CHARS - head - 1;
    let mut text: String = clean[..head].iter().collect();
    text.push('…');
    text.extend(&clean[clean.len() - tail..]);
    text
}

/// `name` in at most `width` characters: cut, with `…`, when longer.
pub(super) fn cut(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        name.to_string()
    } else {
        let mut short: String = name.chars().take(width.saturating_sub(1)).collect();
        short.push('…');
        short
    }
}

/// Everything the reports of a run need, accumulated game by game.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The run's spec.
    pub spec: ResolvedSpec,
    /// The spec's hash.
    pub hash: String,
    /// Inputs of the rating fit.
    pub results: Results,
    /// Per engine pair that met, keyed by the pair of indices (A < B in spec order for a
    /// round robin; the challenger first in a gauntlet).
    pub pairings: Vec<PairingStats>,
    /// Games counted.
    pub games: u64,
    /// Draws per engine.
    pub draws: Vec<u64>,
    /// Points scored by the side that moves first in the game (colour advantage).
    pub first_side_points: f64,
    /// Histogram of plies per game (opening included).
    pub lengths: BTreeMap<usize, u64>,
    /// Histogram of the final score margin from the first side's point of view (Othello: disc
    /// difference; games without a margin score +1, 0, -1), of the games played to their end.
    pub margins: BTreeMap<i32, u64>,
    /// Games not played to their end (a failure, an adjudication), left out of `margins`.
    pub margins_apart: u64,
    /// Wall-clock seconds summed over games.
    pub game_seconds: f64,
    /// Moves each engine played (openings excluded).
    pub moves: Vec<u64>,
    /// Moves of each engine that its time limit cut short (results then depend on the
    /// machine).
    pub timeouts: Vec<u64>,
    /// Games counted per termination, in the order of [`Termination::NAMES`].
    pub terminations: [u64; Termination::NAMES.len()],
    /// Per engine, the games it lost by failing (timeout, stall, illegal move, crash).
    pub failures: Vec<Failures>,
    /// Per engine, what its moves cost: nodes, depth, time, CPU, by move number too.
    pub costs: Vec<Cost>,
    /// Per engine, its games that ended by adjudication (spec `[adjudication]`), whatever
    /// their result.
    pub adjudicated: Vec<u64>,
    /// Games of pairs after an SPRT decision, left out.
    pub after_decision: u64,
    /// The SPRT's state, for a run that has one.
    pub sprt: Option<SequentialSprt>,
    /// The first game of each opening pair whose partner has not arrived: (A's score, pairing,
    /// the game's place in its pair: 0 when A moved first).
    pending: HashMap<u64, (f64, usize, u8)>,
    /// The run's schedule.
    schedule: Schedule,
    /// The decision's pair count, once known: pairs at or after it are left out.
    cutoff: Option<u64>,
    /// Hashes of earlier specs this run extends: their games count too (see
    /// [`Summary::accept_earlier`]).
    earlier: Vec<String>,
    /// The ids of the games added (counted or after the decision): a game is added once.
    added: IdSet,
}

/// Why a game cannot be counted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SummaryError(pub String);

impl Summary {
    /// An empty summary of a run of `spec` (whose hash is `hash`).
    pub fn new(spec: &ResolvedSpec, hash: &str) -> Summary {
        let names = spec.engine_names();
        let n = names.len();
        let schedule = spec.schedule();
        let pairings: Vec<PairingStats> = schedule
            .pairings
            .iter()
            .map(|&(a, b)| PairingStats {
                a,
                b,
                ..PairingStats::default()
            })
            .collect();
        Summary {
            spec: spec.clone(),
            hash: hash.to_string(),
            results: Results::new(names),
            pairings,
            games: 0,
            draws: vec![0; n],
            first_side_points: 0.0,
            lengths: BTreeMap::new(),
            margins: BTreeMap::new(),
            margins_apart: 0,
            game_seconds: 0.0,
            moves: vec![0; n],
            timeouts: vec![0; n],
            terminations: [0; Termination::NAMES.len()],
            failures: vec![Failures::default(); n],
            costs: vec![Cost::default(); n],
            adjudicated: vec![0; n],
            after_decision: 0,
            sprt: spec.sprt.map(SequentialSprt::new),
            pending: HashMap::new(),
            added: IdSet::new(schedule.games()),
            schedule,
            cutoff: None,
            earlier: Vec::new(),
        }
    }

    /// Accepts the games of earlier specs that this run's spec extends (more openings or
    /// rounds, the same engines): the caller has checked that every such game keeps its place
    /// in this spec's schedule, which [`Summary::add`] checks again game by game.
    pub fn accept_earlier(&mut self, hashes: &[String]) {
        self.earlier = hashes.to_vec();
    }

    /// The pairs the statistics count (an SPRT's decision), if cut.
    pub fn cutoff(&self) -> Option<u64> {
        self.cutoff
    }

    /// Tells the summary where an SPRT decided (from a first pass over the log), so that games
    /// after it are left out whatever order they come in.
    pub fn set_cutoff(&mut self, pairs: Option<u64>) {
        self.cutoff = pairs;
    }

    /// Games the run schedules.
    pub fn schedule_games(&self) -> u64 {
        self.schedule.games()
    }

    /// Whether game `id` was added (counted, or left out after the SPRT's decision).
    pub fn has_game(&self, id: u64) -> bool {
        self.added.contains(id)
    }

    /// Counts one game (refused when its id was added before). Returns the SPRT's decision if
    /// this game completed it.
    pub fn add(&mut self, game: &GameLine) -> Result<Option<Decided>, SummaryError> {
        if game.spec != self.hash && !self.earlier.contains(&game.spec) {
            return Err(SummaryError(format!(
                "game {} belongs to spec {}, not to this run's spec {}",
                game.id, game.spec, self.hash
            )));
        }
        game.check(&self.spec, &self.schedule)
            .map_err(SummaryError)?;
        // A game added twice would be counted twice (and the SPRT's pairs with it).
        self.added.insert(game.id).map_err(SummaryError)?;
        let slot = self.schedule.slot(game.id);
        let (a, b) = self.schedule.pairings[slot.pairing];
        let index_in_pair = slot.colour;
        let score_a = if index_in_pair == 0 {
            game.score
        } else {
            1.0 - game.score
        };
        if let Some(cutoff) = self.cutoff
            && game.pair >= cutoff
        {
            self.after_decision += 1;
            return Ok(None);
        }
        let p = slot.pairing;
        self.games += 1;
        let stats = &mut self.pairings[p];
        match score_a {
            1.0 => stats.wdl.wins += 1,
            0.0 => stats.wdl.losses += 1,
            _ => {
                stats.wdl.draws += 1;
                self.draws[a] += 1;
                self.draws[b] += 1;
            }
        }
        self.first_side_points += game.score;
        *self
            .lengths
            .entry(game.opening.len() + game.plies)
            .or_default() += 1;
        if game.termination == "normal" {
            *self.margins.entry(game.margin).or_default() += 1;
        } else {
            self.margins_apart += 1;
        }
        self.game_seconds += game.seconds;
        // Sides alternate (a pass is a move), so the opening's parity says who moved first.
        let by_first = if game.opening.len().is_multiple_of(2) {
            game.plies.div_ceil(2)
        } else {
            game.plies / 2
        } as u64;
        let (first, second) = (slot.first, slot.second);
        self.moves[first] += by_first;
        self.moves[second] += game.plies as u64 - by_first;
        self.timeouts[first] += u64::from(game.timeouts[0]);
        self.timeouts[second] += u64::from(game.timeouts[1]);
        self.count_costs(game, first, second, by_first);
        self.count_termination(game, first, second);
        match self.pending.remove(&game.pair) {
            None => {
                self.pending.insert(game.pair, (score_a, p, index_in_pair));
            }
            Some((other, _, _)) => {
                let stats = &mut self.pairings[p];
                stats.pentanomial.add_pair(other, score_a);
                if other + score_a == 1.0 {
                    if other == 0.5 {
                        stats.draw_draw_pairs += 1;
                    } else {
                        stats.win_loss_pairs += 1;
                    }
                }
                let (s0, s1) = if index_in_pair == 0 {
                    (score_a, other)
                } else {
                    (other, score_a)
                };
                self.results.add_pair(a, b, s0, s1);
            }
        }
        let decided = match &mut self.sprt {
            Some(test) if test.decided().is_none() => {
                test.add_game(game.pair, index_in_pair, score_a)
            }
            _ => None,
        };
        Ok(decided)
    }

    /// Counts what each move of `game` cost its engine: the players' moves alternate, the
    /// first of them `first`'s when the opening has an even length. A log written before moves
    /// were recorded one by one gives each side's node total only (and times on a clock).
    fn count_costs(&mut self, game: &GameLine, first: usize, second: usize, by_first: u64) {
        if game.move_nodes.is_empty() && game.plies > 0 {
            let by_second = game.plies as u64 - by_first;
            self.costs[first].add_node_totals(by_first, game.nodes[0]);
            self.costs[second].add_node_totals(by_second, game.nodes[1]);
        }
        let micros = game.move_micros();
        let opening = game.opening.len();
        for i in 0..game.plies {
            let engine = if (opening + i).is_multiple_of(2) {
                first
            } else {
                second
            };
            let cost = MoveCost {
                nodes: game.move_nodes.get(i).copied().flatten(),
                depth: game.move_depth.get(i).copied().unwrap_or(0),
                seldepth: game.move_seldepth.get(i).copied().unwrap_or(0),
                micros: micros.get(i).copied(),
                cpu_micros: game.move_cpu_us.get(i).copied().flatten(),
            };
            self.costs[engine].add(opening + i + 1, &cost);
        }
    }

    /// Counts how `game` ended and, for a failure, charges it to the side that lost (`first`
    /// scored 0, or `second` when `first` scored 1; a drawn failure is charged to no one).
    fn count_termination(&mut self, game: &GameLine, first: usize, second: usize) {
        let name = game.termination.as_str();
        if let Some(k) = Termination::NAMES.iter().position(|&n| n == name) {
            self.terminations[k] += 1;
        }
        if name == "adjudication" {
            self.adjudicated[first] += 1;
            self.adjudicated[second] += 1;
        }
        let Some(kind) = FAILURES.iter().position(|&n| n == name) else {
            return;
        };
        let loser = match game.score {
            0.0 => first,
            1.0 => second,
            _ => return,
        };
        let failures = &mut self.failures[loser];
        failures.counts[kind] += 1;
        let example = &mut failures.examples[kind];
        if example.as_ref().is_none_or(|e| game.id < e.game) {
            *example = Some(FailureExample {
                game: game.id,
                detail: game.detail.as_deref().map_or(String::new(), short_detail),
            });
        }
    }

    /// Games counted that ended as `name` (one of [`Termination::NAMES`]; 0 for another name).
    pub fn games_ended(&self, name: &str) -> u64 {
        Termination::NAMES
            .iter()
            .position(|&n| n == name)
            .map_or(0, |k| self.terminations[k])
    }

    /// Games counted that engine `i` played.
    pub fn games_of(&self, i: usize) -> u64 {
        self.pairings
            .iter()
            .filter(|p| p.a == i || p.b == i)
            .map(|p| p.wdl.games())
            .sum()
    }

    /// Whether the reports show the terminations table: some game did not end by the rules,
    /// or an outside program plays (its clean record is then worth showing too).
    pub fn shows_terminations(&self) -> bool {
        self.games_ended("normal") < self.games
            || self.spec.engines.iter().any(|e| e.outside.is_some())
    }

    /// Every game counted: complete pairs as pairs, unpaired games on their own.
    pub fn all_results(&self) -> Results {
        let mut results = self.results.clone();
        for &(score_a, p, index_in_pair) in self.pending.values() {
            let (a, b) = (self.pairings[p].a, self.pairings[p].b);
            if index_in_pair == 0 {
                results.add_game(a, b, score_a);
            } else {
                results.add_game(b, a, 1.0 - score_a);
            }
        }
        results
    }

    /// The ratings of [`Summary::all_results`].
    pub fn ratings(&self) -> Ratings {
        fit(
            &self.all_results(),
            &FitOptions {
                first_move: self.spec.ratings.first_move,
                anchor: self.spec.anchor_index(),
                ..FitOptions::default()
            },
        )
    }

    /// Games whose pair partner is missing (a run in progress, or an SPRT cut).
    pub fn unpaired(&self) -> usize {
        self.pending.len()
    }

    /// The SPRT decision, if the run has one and it was reached.
    pub fn decision(&self) -> Option<Decided> {
        self.sprt.as_ref().and_then(|t| t.decided())
    }
}

/// Hand-made games for the report tests: a spec and the log lines of its schedule.
#[cfg(test)]
pub(crate) mod test_games {
    use super::Summary;
    use crate::arena::TournamentSpec;
    use crate::arena::log::GameLine;
    use crate::arena::openings::moves_of;

    /// A round robin of `names` (each a depth-1 alpha-beta) on Connect 4, 4 openings, so each
    /// pairing plays 8 games.
    pub fn spec(names: &[&str]) -> TournamentSpec {
        let mut text = String::from(
            "name = \"t\"\ngame = \"connect4\"\nseed = 1\nopenings = { plies = 2, count = 4 }\n",
        );
        for name in names {
            text.push_str(&format!(
                "\n[[engine]]\nname = \"{name}\"\nalgorithm = \"alphabeta\"\ndepth = 1\n"
            ));
        }
        TournamentSpec::parse(&text, "test").unwrap()
    }

    /// Game `id` of `spec`'s schedule ending as `termination`, lost by `loser` (an engine
    /// name; `None`: drawn).
    pub fn game(
        spec: &TournamentSpec,
        id: u64,
        termination: &str,
        loser: Option<&str>,
        detail: Option<&str>,
    ) -> GameLine {
        let r = &spec.resolved;
        let slot = r.schedule().slot(id);
        let (first, second) = (&r.engines[slot.first].name, &r.engines[slot.second].name);
        let score = match loser {
            None => 0.5,
            Some(l) if l == first => 0.0,
            Some(l) => {
                assert_eq!(l, second, "game {id}: {l} does not play in it");
                1.0
            }
        };
        GameLine {
            id,
            pair: slot.pair,
            round: slot.round,
            opening_index: slot.opening,
            opening: moves_of(&r.opening_moves[slot.opening as usize])
                .map(String::from)
                .collect(),
            first: first.clone(),
            second: second.clone(),
            score,
            result: ["0-1", "1/2-1/2", "1-0"][(score * 2.0) as usize].into(),
            margin: 0,
            termination: termination.into(),
            detail: detail.map(String::from),
            adjudication: None,
            moves: Vec::new(),
            plies: 0,
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
            spec: spec.hash.clone(),
            seconds: 0.0,
        }
    }

    /// A summary of `games`, fed in the order given.
    pub fn summary(spec: &TournamentSpec, games: &[GameLine]) -> Summary {
        let mut summary = Summary::new(&spec.resolved, &spec.hash);
        for g in games {
            summary.add(g).unwrap();
        }
        summary
    }

    /// Two engines, `edax` and `ab-4`, 8 games: `edax` loses game 1 by an illegal move and
    /// game 6 by a crash, `ab-4` game 2 by a timeout and game 3 by an illegal move, game 5 is
    /// adjudicated, game 7 a drawn stall; the rest end normally (lost by `ab-4`).
    pub fn mixed() -> (TournamentSpec, Vec<GameLine>) {
        let spec = spec(&["edax", "ab-4"]);
        let games = vec![
            game(&spec, 0, "normal", Some("ab-4"), None),
            game(&spec, 1, "illegal-move", Some("edax"), Some("e9 <b>")),
            game(
                &spec,
                2,
                "timeout",
                Some("ab-4"),
                Some("no move in 1000 ms"),
            ),
            game(&spec, 3, "illegal-move", Some("ab-4"), None),
            game(&spec, 4, "normal", Some("ab-4"), None),
            game(&spec, 5, "adjudication", Some("edax"), Some("score")),
            game(&spec, 6, "crash", Some("edax"), Some("exit status 1")),
            game(&spec, 7, "stall", None, Some("silent")),
        ];
        (spec, games)
    }
}

#[cfg(test)]
mod tests {
    use super::test_games::{game, mixed, spec, summary};
    use super::*;

    #[test]
    fn a_limit_met_is_a_failure_of_its_own_charged_to_the_engine_over_it() {
        let spec = spec(&["edax", "ab-4"]);
        let detail = "memory limit 64 MiB met";
        let games = [game(&spec, 0, "limit", Some("edax"), Some(detail))];
        let s = summary(&spec, &games);
        let edax = spec.resolved.engine_index("edax").unwrap();
        assert_eq!(s.failures[edax].counts, [0, 0, 0, 0, 1]);
        assert_eq!(s.failures[1 - edax].counts, [0, 0, 0, 0, 0]);
        assert_eq!(s.games_ended("limit"), 1);
        assert_eq!(s.terminations, [0, 0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn failures_are_charged_to_the_engine_that_lost() {
        let (spec, games) = mixed();
        let s = summary(&spec, &games);
        let index = |name: &str| spec.resolved.engine_index(name).unwrap();
        // timeout, stall, illegal-move, crash, limit.
        assert_eq!(s.failures[index("edax")].counts, [0, 0, 1, 1, 0]);
        assert_eq!(s.failures[index("ab-4")].counts, [1, 0, 1, 0, 0]);
        // normal, adjudication, timeout, stall, illegal-move, crash, limit.
        assert_eq!(s.terminations, [2, 1, 1, 1, 2, 1, 0]);
        assert_eq!(s.games_ended("stall"), 1);
        assert_eq!(s.games_ended("no such"), 0);
        assert_eq!(s.games_of(0) + s.games_of(1), 16);
        let edax = &s.failures[index("edax")].examples;
        assert_eq!(
            edax[2],
            Some(FailureExample {
                game: 1,
                detail: "e9 <b>".into()
            })
        );
        assert_eq!(edax[3].as_ref().map(|x| x.game), Some(6));
        assert_eq!(edax[0], None);
        // A failure without a detail keeps its game, with an empty detail.
        assert_eq!(
            s.failures[index("ab-4")].examples[2],
            Some(FailureExample {
                game: 3,
                detail: String::new()
            })
        );
        assert!(s.shows_terminations());
    }

    #[test]
    fn the_example_is_the_lowest_game_id_whatever_the_order() {
        let spec = spec(&["a", "b"]);
        let long = format!("{}\u{1b}[31m\n{}", "x".repeat(100), "y".repeat(100));
        let games: Vec<GameLine> = (0..4)
            .map(|id| {
                let detail = if id == 2 {
                    long.clone()
                } else {
                    format!("game {id}")
                };
                game(&spec, id, "crash", Some("a"), Some(&detail))
            })
            .collect();
        let forward = summary(&spec, &games);
        let mut reversed = games.clone();
        reversed.reverse();
        let backward = summary(&spec, &reversed);
        assert_eq!(forward.failures, backward.failures);
        assert_eq!(forward.failures[0].counts, [0, 0, 0, 4, 0]);
        let x = forward.failures[0].examples[3].as_ref().unwrap();
        assert_eq!((x.game, x.detail.as_str()), (0, "game 0"));
        // Alone, game 2's detail is cut, its escape and newline blanked.
        let cut = summary(&spec, &games[2..3]).failures[0].examples[3]
            .clone()
            .unwrap()
            .detail;
        assert_eq!(cut.chars().count(), DETAIL_CHARS);
        assert!(
            cut.starts_with("xxx") && cut.contains('…') && !cut.chars().any(char::is_control),
            "{cut}"
        );
        // The end is kept: where a program's stderr says what went wrong.
        assert!(cut.ends_with(&"y".repeat(50)), "{cut}");
    }

    #[test]
    fn failures_name_termination_names_and_the_table_hides_for_clean_runs() {
        assert_eq!(
            Termination::NAMES[..2],
            ["normal", "adjudication"],
            "the tables list normal and adjudication apart from the failures"
        );
        assert_eq!(Termination::NAMES[2..], FAILURES);
        let spec = spec(&["a", "b"]);
        let games: Vec<GameLine> = (0..8)
            .map(|id| game(&spec, id, "normal", None, None))
            .collect();
        let s = summary(&spec, &games);
        assert_eq!(s.terminations, [8, 0, 0, 0, 0, 0, 0]);
        assert!(s.failures.iter().all(|f| f.total() == 0));
        assert!(!s.shows_terminations());
    }
}

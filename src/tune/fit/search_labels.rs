//! Search labels: regression positions labelled by a deeper search's score instead of their
//! game's result alone (`[regression] search_labels`, `joute fit --search-labels`).
//!
//! A game's result is a noisy label for its early positions: one blunder forty plies later
//! flips it. A search of depth D from the position itself says what the evaluation, looking D
//! plies ahead, expects of it. With its score s (the side to move's, in the evaluation's
//! units) the label is
//!
//! > λ·σ(c·s) + (1 − λ)·r
//!
//! r the label the position had (its game's result), λ the *mix* (1: the search alone), c
//! the evaluation's logits per unit. Only an evaluation whose units are logits has a fixed c:
//! Othello's pattern evaluation (c = 1/[`crate::eval::pattern::SCALE`], its model is σ of its
//! sum), so search labels are for pattern fits. A search that reaches the end of the game
//! (the engine's exact solve, or a finished line) scores beyond every evaluation, and σ makes
//! it 1 or 0; an exact draw scores 0, ½. Positions the exact solver labels
//! ([`CollectOptions::exact_labels`]) keep its label and are not searched.
//!
//! The scores are computed once per games log and kept beside it as a *scores file*: one
//! JSON line per game, in the log's order, `{"id": N, "scores": [...]}` with the score of each
//! of the game's sampled positions that the search labels, in ply order. A regression tuning
//! run appends them in chunks ([`crate::tune::regression::pattern_round::score_log`]) and resumes where a killed run stopped (every line is a pure
//! function of the game, the engine and the seed).

use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::regression::{CollectOptions, Collector, sigmoid};
use crate::arena::engine::{Engine, EngineSpec};
use crate::arena::log::{GameLine, scan_log};
use crate::eval::{Features, Weights};
use crate::search::endgame::empties;

/// The search scores of one game's sampled positions (a line of a scores file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreLine {
    /// The game's id in its log.
    pub id: u64,
    /// The side to move's search score of each sampled position the search labels, in ply
    /// order.
    pub scores: Vec<i32>,
}

/// Search scores for the positions of one or more games logs, and how they make labels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchScores {
    /// λ: the share of the search's label (the rest is the game's result).
    pub mix: f64,
    /// c: the evaluation's logits per unit of score.
    pub logit_per_unit: f64,
    /// One scores file's lines per games log, in the order the logs are read; `None`: the
    /// log's positions keep their results (a regression round played with linear weights).
    pub logs: Vec<Option<Vec<ScoreLine>>>,
}

impl SearchScores {
    /// The label of a position of result label `result` whose search scored `score`.
    pub fn label(&self, score: i32, result: f64) -> f64 {
        self.mix * sigmoid(self.logit_per_unit * score as f64) + (1.0 - self.mix) * result
    }

    /// Relabels the positions `sampled` of game `game` (read from the `log`-th log, the
    /// `index`-th game of it): those the search labels take [`SearchScores::label`] of their
    /// score. An error when the scores file is not the log's (another game, another count).
    pub fn relabel<G: Features>(
        &self,
        log: usize,
        index: usize,
        game: &GameLine,
        exact_labels: u32,
        sampled: &mut [(G, usize, f64)],
    ) -> Result<(), String> {
        let Some(lines) = self.logs.get(log).and_then(Option::as_ref) else {
            return Ok(());
        };
        let line = lines.get(index).ok_or_else(|| {
            format!(
                "game {}: the scores file has no line for it (game {} of the log)",
                game.id,
                index + 1
            )
        })?;
        if line.id != game.id {
            return Err(format!(
                "game {}: the scores file's line {} is of game {}: it is not this log's",
                game.id,
                index + 1,
                line.id
            ));
        }
        let mut scores = line.scores.iter();
        for (pos, ply, label) in sampled.iter_mut() {
            if searched(pos, exact_labels) {
                let &score = scores.next().ok_or_else(|| {
                    format!(
                        "game {}: no score for ply {ply} in the scores file",
                        game.id
                    )
                })?;
                *label = self.label(score, *label);
            }
        }
        if scores.next().is_some() {
            return Err(format!(
                "game {}: the scores file has more scores than the game has positions to label",
                game.id
            ));
        }
        Ok(())
    }
}

/// Whether the search labels `pos` (the exact solver does when it has at most `exact_labels`
/// empty squares).
pub fn searched<G: Features>(pos: &G, exact_labels: u32) -> bool {
    !matches!(empties(pos), Some(n) if n <= exact_labels)
}

/// The search scores of `games`' sampled positions (chosen by `collect`, as the fit chooses
/// them), each game searched by its own `engine` built with `weights` and seeded by `seed_of`
/// its id, in parallel on the current rayon pool.
pub fn score_games<G: Features>(
    start: G,
    games: &[GameLine],
    collect: &CollectOptions,
    engine: &EngineSpec,
    weights: &Weights,
    seed_of: impl Fn(u64) -> u64 + Sync,
) -> Result<Vec<ScoreLine>, String> {
    // The sample is replayed here (cheap) and searched in parallel; the solver's labels are
    // not needed, only which positions they cover.
    let mut collector = Collector::new(
        start,
        CollectOptions {
            exact_labels: 0,
            ..collect.clone()
        },
    );
    let mut work: Vec<(u64, Vec<G>)> = Vec::with_capacity(games.len());
    for game in games {
        let positions = if collector.sample(game)? {
            collector
                .sampled()
                .iter()
                .filter(|(pos, _, _)| searched(pos, collect.exact_labels))
                .map(|&(pos, _, _)| pos)
                .collect()
        } else {
            Vec::new()
        };
        work.push((game.id, positions));
    }
    Ok(work
        .par_iter()
        .map(|(id, positions)| {
            let mut searcher = Engine::with_weights(engine, &start, weights.clone(), seed_of(*id));
            ScoreLine {
                id: *id,
                scores: positions
                    .iter()
                    .map(|pos| searcher.choose(pos).score)
                    .collect(),
            }
        })
        .collect())
}

/// Reads a scores file.
pub fn read_scores(path: &Path) -> Result<Vec<ScoreLine>, String> {
    let text = crate::inputs::read_to_string(path, crate::inputs::Input::Positions)
        .map_err(|e| format!("{}: cannot read the search scores: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Games per batch of [`score_logs`]: read, then searched in parallel.
const BATCH: usize = 1024;

/// The search scores of the positions of the Othello games logs `paths` (chosen by
/// `collect`), each game searched by `engine` — a pattern evaluation at a fixed depth — for
/// labels of share `mix`, on the current rayon pool. What `joute fit --search-labels` fits
/// with; the scores stay in memory.
pub fn score_logs(
    paths: &[&Path],
    collect: &CollectOptions,
    engine: &EngineSpec,
    mix: f64,
) -> Result<SearchScores, String> {
    use crate::games::Othello;
    if !(mix > 0.0 && mix <= 1.0) {
        return Err(format!(
            "the search labels' mix is {mix}; allowed: above 0 and at most 1"
        ));
    }
    let limits = &engine.config.limits;
    if limits.depth.is_none() || limits.nodes.is_some() || limits.time.is_some() {
        return Err(format!(
            "the labelling engine {} needs a depth and no other budget (a node or time budget makes labels that depend on the machine or the order)",
            engine.name
        ));
    }
    let mut engine = engine.clone();
    let start = Othello::start();
    let (weights, patterns) = engine
        .load_evaluation(&start)
        .map_err(|e| format!("the labelling engine: {e}"))?;
    if patterns.is_none() {
        return Err(format!(
            "the labelling engine {} evaluates with linear weights, whose scores are no logits; give it a pattern weights file (.jpw)",
            engine.name
        ));
    }
    let seed = collect.seed;
    let mut logs = Vec::with_capacity(paths.len());
    for path in paths {
        let mut lines = Vec::new();
        let mut batch = Vec::with_capacity(BATCH);
        let mut flush = |batch: &mut Vec<GameLine>| -> Result<(), String> {
            lines.extend(score_games(
                start,
                batch,
                collect,
                &engine,
                &weights,
                |id| crate::games::hash::combine(seed ^ 0x6c61_6265, id),
            )?);
            batch.clear();
            Ok(())
        };
        scan_log(path, |line| {
            batch.push(line);
            if batch.len() == BATCH {
                flush(&mut batch)?;
            }
            Ok(())
        })?;
        flush(&mut batch)?;
        logs.push(Some(lines));
    }
    Ok(SearchScores {
        mix,
        logit_per_unit: 1.0 / crate::eval::pattern::SCALE,
        logs,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::arena::engine::SharedPatterns;
    use crate::eval::pattern::{PatternEval, PatternWeights, SCALE};
    use crate::games::{Game, MoveList, Othello};
    use crate::tune::fit::regression::tests::random_lines;
    use rand::{RngExt, SeedableRng};
    use std::sync::Arc;

    /// Pattern weights drawn at random (a few hundred logits per position, so that depth-1
    /// choices differ), as a depth-1 `pvs` engine that never solves.
    pub(crate) fn engine(depth: u32) -> (EngineSpec, Arc<PatternEval>) {
        let mut weights = PatternWeights::zeros(2);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for w in weights.values.iter_mut() {
            *w = rng.random_range(-0.5..0.5);
        }
        let eval = Arc::new(PatternEval::new(&weights));
        let mut spec = EngineSpec::parse(&format!("pvs:{depth}:exact=0")).unwrap();
        spec.patterns = Some(SharedPatterns(eval.clone()));
        (spec, eval)
    }

    #[test]
    fn depth_one_scores_are_the_best_child_by_the_evaluation() {
        use crate::eval::Evaluator;
        let games = random_lines(Othello::start(), 12, 70, 3, 4);
        let collect = CollectOptions {
            exact_labels: 14,
            ..CollectOptions::default()
        };
        let (spec, eval) = engine(1);
        let weights = Weights::default_for(&Othello::start());
        let lines =
            score_games(Othello::start(), &games, &collect, &spec, &weights, |id| id).unwrap();
        assert_eq!(lines.len(), games.len());
        let mut compared = 0;
        for (game, line) in games.iter().zip(&lines) {
            assert_eq!(line.id, game.id);
            // The positions, replayed here: every one after the opening with the game not
            // over, more than 14 empty squares.
            let mut pos = Othello::start();
            let mut expected = Vec::new();
            for (ply, m) in game.opening.iter().chain(&game.moves).enumerate() {
                if ply >= game.opening.len()
                    && pos.outcome().is_none()
                    && (!(pos.player | pos.opponent)).count_ones() > 14
                {
                    let mut moves = MoveList::new();
                    pos.legal_moves(&mut moves);
                    let children: Vec<Othello> = moves.iter().map(|&m| pos.play(m)).collect();
                    // A move that ends the game scores beyond the evaluation: left out.
                    expected.push(
                        children
                            .iter()
                            .all(|c| c.outcome().is_none())
                            .then(|| children.iter().map(|c| -eval.evaluate(c)).max().unwrap()),
                    );
                }
                pos = pos.play(pos.parse_move(m).unwrap());
            }
            assert_eq!(line.scores.len(), expected.len(), "game {}", game.id);
            for (got, want) in line.scores.iter().zip(&expected) {
                if let Some(want) = want {
                    assert_eq!(got, want, "game {}", game.id);
                    compared += 1;
                }
            }
        }
        assert!(compared > 200, "{compared} positions compared");
    }

    #[test]
    fn labels_mix_the_search_and_the_result_and_leave_solved_positions() {
        let scores = SearchScores {
            mix: 0.75,
            logit_per_unit: 1.0 / SCALE,
            logs: vec![
                None,
                Some(vec![ScoreLine {
                    id: 7,
                    scores: vec![2048, -512],
                }]),
            ],
        };
        let sigma = |z: f64| 1.0 / (1.0 + (-z).exp());
        let game = |id| GameLine {
            id,
            ..random_lines(Othello::start(), 1, 10, 1, 2).remove(0)
        };
        // Two positions with many empty squares and one of 10.
        let few = Othello {
            player: 0x0000_FFFF_FFFF_FFFF,
            opponent: 0x3F << 48,
            side: crate::games::Side::First,
        };
        assert_eq!(empties(&few), Some(10));
        let mut sampled = vec![
            (Othello::start(), 4, 1.0),
            (few, 50, 0.5),
            (Othello::start(), 6, 0.0),
        ];
        // The first log has no scores: nothing changes.
        let before = sampled.clone();
        scores.relabel(0, 0, &game(7), 12, &mut sampled).unwrap();
        assert_eq!(sampled, before);
        scores.relabel(1, 0, &game(7), 12, &mut sampled).unwrap();
        assert!((sampled[0].2 - (0.75 * sigma(2.0) + 0.25)).abs() < 1e-12);
        assert_eq!(sampled[1].2, 0.5, "the solver's label stays");
        assert!((sampled[2].2 - 0.75 * sigma(-0.5)).abs() < 1e-12);
        // Another game's line, or a count that does not match, is refused.
        let err = scores
            .relabel(1, 0, &game(8), 12, &mut sampled)
            .unwrap_err();
        assert!(err.contains("is of game 7"), "{err}");
        let err = scores
            .relabel(1, 0, &game(7), 60, &mut sampled)
            .unwrap_err();
        assert!(err.contains("more scores"), "{err}");
        let mut three = before.clone();
        three.push((Othello::start(), 8, 1.0));
        let err = scores.relabel(1, 0, &game(7), 12, &mut three).unwrap_err();
        assert!(err.contains("no score for ply 8"), "{err}");
        let err = scores
            .relabel(1, 1, &game(7), 12, &mut sampled)
            .unwrap_err();
        assert!(err.contains("no line for it"), "{err}");
    }
}

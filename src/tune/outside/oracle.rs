//! The [`PairOracle`] of an outside engine: candidates are sets of the program's options,
//! played through the arena's outside-engine games ([`run_games`]: its workers, its process
//! handling, its referee and clock) on the run's fresh openings.
//!
//! Each call is a small tournament of its own: the program under the candidate's options
//! (`candidate`) and under the opponent's (`opponent`), on the call's openings, each pair's
//! two games with colours swapped; against a pool, both play opening `j`'s pool engine (the
//! pool in turn, counted over the run's openings, as [`crate::tune::optimise::oracle::EngineOracle`] does).
//! Options reach a program at its start, so every call starts its programs afresh (each worker
//! its own copy, started at its first game) and ends them when its games are done; the arena
//! kills every program's process group on every way out, a killed joute included.
//!
//! The programs get no seed from joute: what they play is theirs to make reproducible, and on
//! a clock nothing is (see [`super::not_reproducible`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

use crate::arena::CancelToken;
use crate::arena::openings::{self, OpeningStream};
use crate::arena::runner::{check_outside, run_games};
use crate::arena::spec::{OpeningSource, ResolvedSpec, TournamentSpec};
use crate::eval::Features;
use crate::tune::optimise::objective::{PairOracle, Trial};
use crate::tune::optimise::oracle::{EngineOracle, fresh_openings};
use crate::tune::spec::ResolvedTuneSpec;

/// The names the program goes by in a call's games (and its stderr logs, `engines/NAME.log`).
const CANDIDATE: &str = "candidate";
const OPPONENT: &str = "opponent";

/// Candidates of an outside engine's options, played on real games.
pub struct OutsideOracle<G: Features> {
    start: G,
    spec: ResolvedTuneSpec,
    openings: OpeningStream<G>,
    threads: usize,
    logs: PathBuf,
    cancel: CancelToken,
}

impl<G: Features> OutsideOracle<G> {
    /// An oracle for the outside engine of `spec` on the game of `start`, its programs' stderr
    /// in `logs` (created), games on `threads` workers; no game starts once `cancel` is raised
    /// (the call then fails, and says so). The program is started once with the start's
    /// options and must answer its handshake: an error names it.
    pub fn new(
        start: G,
        spec: &ResolvedTuneSpec,
        openings: OpeningStream<G>,
        threads: usize,
        logs: &Path,
        cancel: &CancelToken,
    ) -> Result<Self, String> {
        std::fs::create_dir_all(logs)
            .map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
        let oracle = OutsideOracle {
            start,
            spec: spec.clone(),
            openings,
            threads: threads.max(1),
            logs: logs.to_path_buf(),
            cancel: cancel.clone(),
        };
        let start_values = crate::tune::optimise::params::values(&spec.params);
        let mut check = oracle.tournament(&start_values, &start_values, Vec::new(), 0);
        // One program is enough, under the name the spec gives it.
        check.engines.truncate(1);
        check.resolved.engines.truncate(1);
        check.resolved.engines[0].name = "tuned".into();
        check_outside::<G>(&check, Some(logs))?;
        Ok(oracle)
    }

    /// The run's opening stream (its positions are excluded from the held-out openings).
    pub fn openings(&self) -> &OpeningStream<G> {
        &self.openings
    }

    /// The run's opening stream, the oracle done with.
    pub fn into_openings(self) -> OpeningStream<G> {
        self.openings
    }

    /// The tournament of one call: the program under `candidate`'s and `opponent`'s options
    /// (engines 0 and 1) and the pool (2…), on `openings`; against a pool, a gauntlet of the
    /// first two.
    fn tournament(
        &self,
        candidate: &[f64],
        opponent: &[f64],
        openings: Vec<String>,
        seed: u64,
    ) -> TournamentSpec {
        let spec = &self.spec;
        let mut engines = vec![
            spec.outside_engine_with(CANDIDATE, candidate),
            spec.outside_engine_with(OPPONENT, opponent),
        ];
        engines.extend(spec.pool.iter().cloned());
        let pooled = !spec.pool.is_empty();
        TournamentSpec::from_resolved(ResolvedSpec {
            name: format!("{}-tuning", spec.name),
            game: spec.game.clone(),
            seed,
            format: if pooled { "gauntlet" } else { "round-robin" }.into(),
            challengers: if pooled {
                vec![CANDIDATE.into(), OPPONENT.into()]
            } else {
                Vec::new()
            },
            openings: OpeningSource::Random {
                plies: spec.plies,
                count: openings.len() as u32,
                balance: spec.balance.clone(),
                distinct: None,
            },
            opening_moves: openings,
            rounds: 1,
            engines,
            anchor: None,
            ratings: Default::default(),
            sprt: None,
            clock: spec.clock,
            adjudication: None,
            records: Vec::new(),
            engine_log_mib: None,
            grown: Vec::new(),
            affinity: false,
        })
    }
}

impl<G: Features> PairOracle for OutsideOracle<G> {
    fn play_pairs(
        &mut self,
        candidate: &[f64],
        opponent: &[f64],
        pairs: u64,
        seed: u64,
    ) -> Result<Trial, String> {
        let first = self.openings.given();
        let moves = fresh_openings(&mut self.openings, pairs)?;
        let text = openings::notation(&self.start, &moves);
        let tournament = self.tournament(candidate, opponent, text, seed);
        // Game ids (the schedule's): id = (opening · pairings + pairing) · 2 + colour, colour
        // 0 with the pairing's first engine (the candidate, or the opponent against a pool)
        // moving first. Directly: one pairing. Against a pool of n: pairings (0, 2 + p) and
        // (1, 2 + p) at p and n + p; opening j plays pool engine (first + j) mod n.
        let n = self.spec.pool.len() as u64;
        let pairings = tournament.resolved.schedule().pairings.len() as u64;
        let mut todo = Vec::new();
        for j in 0..pairs {
            let ids = |pairing: u64| [0, 1].map(|colour| (j * pairings + pairing) * 2 + colour);
            if n == 0 {
                todo.extend(ids(0));
            } else {
                let p = (first + j) % n;
                todo.extend(ids(p));
                todo.extend(ids(n + p));
            }
        }
        // The score of the engine moving first in each game, by id.
        let mut scores = BTreeMap::new();
        let never = AtomicU64::new(u64::MAX);
        run_games(
            &tournament,
            self.start,
            &moves,
            &todo,
            self.threads,
            &never,
            &self.cancel,
            Some(&self.logs),
            |line| {
                scores.insert(line.id, line.score);
                Ok::<(), String>(())
            },
        )?;
        if scores.len() < todo.len() {
            return Err(if self.cancel.is_cancelled() {
                "interrupted".to_string()
            } else {
                format!(
                    "{} of the candidate's {} games were not played",
                    todo.len() - scores.len(),
                    todo.len()
                )
            });
        }
        // The two games of a pair, from the side of the engine whose pairing it is: moving
        // first, then second.
        let pair = |id: u64| [scores[&id], 1.0 - scores[&(id + 1)]];
        let mut trial = Trial::default();
        for (j, chunk) in todo.chunks(if n == 0 { 2 } else { 4 }).enumerate() {
            debug_assert_eq!(chunk[0] % 2, 0, "pair {j} starts at an even id");
            let [first, second] = pair(chunk[0]);
            if n == 0 {
                trial.add_direct(first, second);
            } else {
                trial.add_pooled([first, second], pair(chunk[2]));
            }
        }
        Ok(trial)
    }
}

/// The oracle of a tuning run: the built-in engine's, or an outside program's.
pub enum RunOracle<G: Features> {
    /// A built-in engine's weights, played in-process.
    Engine(Box<EngineOracle<G>>),
    /// An outside program's options.
    Outside(Box<OutsideOracle<G>>),
}

impl<G: Features> RunOracle<G> {
    /// The run's opening stream.
    pub fn openings(&self) -> &OpeningStream<G> {
        match self {
            RunOracle::Engine(o) => o.openings(),
            RunOracle::Outside(o) => o.openings(),
        }
    }

    /// The run's opening stream, the oracle done with.
    pub fn into_openings(self) -> OpeningStream<G> {
        match self {
            RunOracle::Engine(o) => (*o).into_openings(),
            RunOracle::Outside(o) => (*o).into_openings(),
        }
    }
}

impl<G: Features> PairOracle for RunOracle<G> {
    fn play_pairs(
        &mut self,
        candidate: &[f64],
        opponent: &[f64],
        pairs: u64,
        seed: u64,
    ) -> Result<Trial, String> {
        match self {
            RunOracle::Engine(o) => o.play_pairs(candidate, opponent, pairs, seed),
            RunOracle::Outside(o) => o.play_pairs(candidate, opponent, pairs, seed),
        }
    }
}

//! Engine configurations: a search algorithm with its limits and options, and the weights of
//! its evaluation. On the command line an engine is
//! `ALGORITHM[:BUDGET][:KEY=VALUE]...[:WEIGHTS.toml]`.

use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::eval::pattern::{PatternEval, PatternWeights};
use crate::eval::{EvalError, EvalState, Evaluator, Features, LinearEval, Weights};
use crate::games::Othello;
use crate::search::{
    Algorithm, Limits, MAX_DEPTH, MAX_NODES, MAX_PLAYOUTS, MoveOrder, SearchConfig, SearchError,
    SearchOptions, SearchResult, Searcher,
};

/// Why an engine description was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// The text does not have the shape `ALGORITHM[:BUDGET][:KEY=VALUE]...[:WEIGHTS.toml]`.
    #[error("invalid engine '{text}': {reason}")]
    Syntax {
        /// The engine as written.
        text: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// An algorithm or depth that cannot be.
    #[error("invalid engine '{text}': {source}")]
    Search {
        /// The engine as written.
        text: String,
        /// The search layer's reason.
        source: SearchError,
    },
    /// The weights file is wrong.
    #[error(transparent)]
    Weights(#[from] EvalError),
}

/// An engine as configured: what to search with, and the weights file (the game's built-in
/// defaults when `None`).
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// The name the engine goes by in tables and logs.
    pub name: String,
    /// Algorithm, limits and options.
    pub config: SearchConfig,
    /// The weights file.
    pub weights: Option<PathBuf>,
    /// The pattern evaluation (Othello), loaded: when set it replaces the linear one.
    pub patterns: Option<SharedPatterns>,
    /// Solve exactly from this many empties on ([`SearchOptions::exact`]); `None`: the
    /// game's default for the algorithm ([`crate::search::endgame::default_exact`]), set
    /// when the engine is built for a game.
    pub exact: Option<u32>,
}

/// A loaded pattern evaluation shared by every engine that uses it (its table is megabytes);
/// two are equal when they are the same load.
#[derive(Clone, Debug)]
pub struct SharedPatterns(pub Arc<PatternEval>);

impl PartialEq for SharedPatterns {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl SharedPatterns {
    /// Loads a pattern weights file.
    pub fn load(path: &std::path::Path) -> Result<(SharedPatterns, PatternWeights), EvalError> {
        let weights = PatternWeights::load(path)?;
        Ok((
            SharedPatterns(Arc::new(PatternEval::new(&weights))),
            weights,
        ))
    }
}

/// What a built-in engine evaluates with: the linear evaluation of its weights, or Othello's
/// pattern evaluation.
#[derive(Clone, Debug)]
pub enum EngineEval<G> {
    /// Σ wᵢ·fᵢ.
    Linear(LinearEval<G>),
    /// Patterns (only ever built for Othello).
    Patterns(Arc<PatternEval>),
}

impl<G: Features> Evaluator<G> for EngineEval<G> {
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        match self {
            EngineEval::Linear(e) => e.evaluate(pos),
            // The type test folds away once `G` is known.
            EngineEval::Patterns(p) => match (pos as &dyn Any).downcast_ref::<Othello>() {
                Some(o) => p.evaluate(o),
                None => 0,
            },
        }
    }

    fn bound(&self) -> i32 {
        match self {
            EngineEval::Linear(e) => e.bound(),
            EngineEval::Patterns(p) => p.bound(),
        }
    }

    #[inline]
    fn tracks(&self) -> bool {
        matches!(self, EngineEval::Patterns(_))
    }

    #[inline]
    fn track(&self, pos: &G, state: &mut EvalState) {
        if let (EngineEval::Patterns(p), Some(o)) = (self, (pos as &dyn Any).downcast_ref()) {
            p.track(o, state);
        }
    }

    #[inline]
    fn track_move(&self, parent: &G, child: &G, state: &EvalState, out: &mut EvalState) {
        let (parent, child) = (parent as &dyn Any, child as &dyn Any);
        if let (EngineEval::Patterns(p), Some(parent), Some(child)) =
            (self, parent.downcast_ref(), child.downcast_ref())
        {
            p.track_move(parent, child, state, out);
        }
    }

    #[inline]
    fn evaluate_tracked(&self, pos: &G, state: &EvalState) -> i32 {
        match self {
            EngineEval::Linear(e) => e.evaluate(pos),
            EngineEval::Patterns(p) => match (pos as &dyn Any).downcast_ref::<Othello>() {
                Some(o) => p.evaluate_tracked(o, state),
                None => 0,
            },
        }
    }
}

/// The options an engine word may set between its budget and its weights.
pub const ENGINE_WORD_KEYS: &str = "exact, lmr, near, ordering, threads, threats, vcf, vct";

/// The most nodes a leaf's VCF search may be given (`vcf`).
pub const MAX_VCF_NODES: u64 = 1_000_000;

/// The most nodes each VCT search at the root may be given (`vct`).
pub const MAX_VCT_NODES: u64 = 100_000_000;

/// The largest `near` radius: the widest board.
pub const MAX_NEAR: u32 = crate::games::morpion::MAX_SIDE as u32;

/// What the `KEY=VALUE` words of an engine set ([`ENGINE_WORD_KEYS`]).
struct EngineWords {
    /// `exact=N`.
    exact: Option<u32>,
    /// `near=N`.
    near: u32,
    /// `ordering=...`.
    ordering: MoveOrder,
    /// `threads=N`.
    threads: u32,
    /// `threats=0|1`.
    threats: bool,
    /// `vcf=N`.
    vcf: u64,
    /// `vct=N`.
    vct: u64,
    /// `lmr=0|1`.
    lmr: bool,
}

/// The syntax error of the engine written `text`.
fn syntax(text: &str, reason: String) -> EngineError {
    EngineError::Syntax {
        text: text.to_string(),
        reason,
    }
}

/// Reads the `KEY=VALUE` words at the head of `rest` (what follows the budget), checking each
/// belongs to `algorithm`; returns them with what follows them: the weights file.
fn parse_words<'a>(
    text: &str,
    algorithm: Algorithm,
    mut rest: Option<&'a str>,
) -> Result<(EngineWords, Option<&'a str>), EngineError> {
    // Options are `KEY=VALUE` words (a key of letters and underscores); what follows them
    // is the weights file, colons and all.
    let mut words = EngineWords {
        exact: None,
        near: 0,
        ordering: SearchOptions::default().ordering,
        threads: 1,
        threats: false,
        vcf: 0,
        vct: 0,
        lmr: false,
    };
    while let Some(r) = rest {
        let (word, after) = r.split_once(':').map_or((r, None), |(w, a)| (w, Some(a)));
        let Some((key, value)) = word.split_once('=').filter(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        }) else {
            break;
        };
        set_word(text, algorithm, key, value, &mut words)?;
        rest = after;
    }
    Ok((words, rest))
}

/// `value` read as a number of at most `most`.
fn at_most<T: std::str::FromStr + PartialOrd>(value: &str, most: T) -> Option<T> {
    value.parse().ok().filter(|n| *n <= most)
}

/// Sets the option `key` to `value` in `words`, if it is one that `algorithm` takes.
fn set_word(
    text: &str,
    algorithm: Algorithm,
    key: &str,
    value: &str,
    words: &mut EngineWords,
) -> Result<(), EngineError> {
    let syntax = |reason: String| syntax(text, reason);
    match key {
        "exact" => {
            let n = at_most(value, MAX_DEPTH).ok_or_else(|| {
                syntax(format!(
                    "exact={value} is not a number of empty squares in 0..={MAX_DEPTH} (0: never solve)"
                ))
            })?;
            if algorithm == Algorithm::Random {
                return Err(syntax(
                    "random plays at random and solves nothing; exact belongs to the searching algorithms".into(),
                ));
            }
            words.exact = Some(n);
        }
        "near" => {
            words.near = at_most(value, MAX_NEAR).ok_or_else(|| {
                syntax(format!(
                    "near={value} is not a number of cells in 0..={MAX_NEAR} (0: every move)"
                ))
            })?;
            if !matches!(algorithm, Algorithm::Pvs | Algorithm::Mtdf) {
                return Err(syntax(format!(
                    "near belongs to pvs and mtdf, not {algorithm}"
                )));
            }
        }
        "threats" | "lmr" | "vcf" | "vct" => {
            if !matches!(algorithm, Algorithm::Pvs | Algorithm::Mtdf) {
                return Err(syntax(format!(
                    "{key} belongs to pvs and mtdf, not {algorithm}"
                )));
            }
            if key == "threats" || key == "lmr" {
                let (slot, what) = if key == "lmr" {
                    (&mut words.lmr, "late move reductions in the threat search")
                } else {
                    (
                        &mut words.threats,
                        "the threat search of the k-in-a-row games",
                    )
                };
                *slot = match value {
                    "1" => true,
                    "0" => false,
                    _ => {
                        return Err(syntax(format!("{key}={value} is not 0 or 1 (1: {what})")));
                    }
                };
            } else {
                let (most, none, slot) = if key == "vct" {
                    (MAX_VCT_NODES, "no VCT search at the root", &mut words.vct)
                } else {
                    (MAX_VCF_NODES, "no VCF search at the leaves", &mut words.vcf)
                };
                *slot = at_most(value, most).ok_or_else(|| {
                    syntax(format!(
                        "{key}={value} is not a number of nodes in 0..={most} (0: {none})"
                    ))
                })?;
            }
        }
        "ordering" => {
            words.ordering = match value {
                "natural" => MoveOrder::Natural,
                "evaluation" => MoveOrder::Evaluation,
                "perfect" => MoveOrder::Perfect,
                _ => {
                    return Err(syntax(format!(
                        "ordering={value} is not a move order; allowed: natural, evaluation, perfect"
                    )));
                }
            };
            if algorithm != Algorithm::AlphaBeta {
                return Err(syntax(format!(
                    "ordering belongs to alphabeta, not {algorithm} (the others order their moves themselves)"
                )));
            }
        }
        "threads" => {
            let most = crate::search::solver::othello::MAX_THREADS as u32;
            words.threads = value
                .parse()
                .ok()
                .filter(|n| (1..=most).contains(n))
                .ok_or_else(|| {
                    syntax(format!(
                        "threads={value} is not a number of threads in 1..={most} (the cores the engine may use: its exact endgame's threads)"
                    ))
                })?;
        }
        other => {
            return Err(syntax(format!(
                "unknown option '{other}'; allowed between the budget and the weights: {ENGINE_WORD_KEYS}"
            )));
        }
    }
    Ok(())
}

/// Reads the budget of `algorithm` (see [`EngineSpec::parse`]) into `limits` (depth, nodes or
/// time) or, for `mcts`, `options.playouts`; `random` must have none, the others one.
fn parse_budget(
    text: &str,
    algorithm: Algorithm,
    budget: Option<&str>,
    limits: &mut Limits,
    options: &mut SearchOptions,
) -> Result<(), EngineError> {
    let syntax = |reason: String| syntax(text, reason);
    match (algorithm, budget) {
        (Algorithm::Random, None) => {}
        (Algorithm::Random, Some(budget)) => {
            return Err(syntax(format!(
                "random plays a uniform random move and takes no budget (':{budget}'); write it alone: random"
            )));
        }
        (_, None | Some("")) => {
            return Err(syntax(format!(
                "{algorithm} needs a budget: ALGORITHM:DEPTH (1..={MAX_DEPTH}), :nNODES or :SECONDSs, e.g. {algorithm}:6"
            )));
        }
        (_, Some(budget)) => {
            if let Some(nodes) = budget.strip_prefix('n') {
                let nodes: u64 = nodes
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_NODES).contains(n))
                    .ok_or_else(|| {
                        syntax(format!(
                            "node budget '{budget}' is not nN with N a whole number in 1..={MAX_NODES}"
                        ))
                    })?;
                limits.nodes = Some(nodes);
            } else if let Some(time) = parse_time(budget) {
                let time = time.map_err(syntax)?;
                limits.time = Some(time);
            } else {
                let n: i64 = budget.parse().map_err(|_| {
                    syntax(format!(
                        "budget '{budget}' is not a depth (1..={MAX_DEPTH}), nNODES or a time such as 0.5s or 200ms"
                    ))
                })?;
                if algorithm == Algorithm::Mcts {
                    if !(1..=MAX_PLAYOUTS as i64).contains(&n) {
                        return Err(syntax(format!(
                            "mcts playouts {n} are out of range; allowed: 1..={MAX_PLAYOUTS}"
                        )));
                    }
                    options.playouts = n as u64;
                } else {
                    if !(1..=MAX_DEPTH as i64).contains(&n) {
                        return Err(EngineError::Search {
                            text: text.to_string(),
                            source: SearchError::BadDepth(n),
                        });
                    }
                    limits.depth = Some(n as u32);
                }
            }
        }
    }
    Ok(())
}

impl EngineSpec {
    /// Reads `ALGORITHM[:BUDGET][:KEY=VALUE]...[:WEIGHTS.toml]`. BUDGET is a depth `1..=64`
    /// (for `mcts`, a number of playouts), `nN` a node budget (for `mcts`, playouts), or `Ns`
    /// / `Nms` a time per move. `random` needs no budget; every other algorithm does. The
    /// options ([`ENGINE_WORD_KEYS`]): `exact=N`, solve exactly from N empties on (0: never;
    /// default: the game's, see [`crate::search::endgame::default_exact`]); `near=N` (`pvs`
    /// and `mtdf`), search only the cells within N of a mark ([`SearchOptions::near`]; 0:
    /// every move, the default); `ordering=natural|evaluation|perfect` (`alphabeta`), the order
    /// it tries moves in (the spec's `ordering`); `threads=N`, the cores the engine may use
    /// (its exact endgame's threads, [`SearchOptions::threads`]; 1 by default); `threats=1`
    /// (`pvs` and `mtdf` in the k-in-a-row games), the threat search
    /// ([`SearchOptions::threats`]), and with it `vcf=N`, a VCF search of at most N nodes at
    /// each leaf ([`SearchOptions::vcf`]), and `vct=N`, the VCT searches at the root of at
    /// most N nodes each ([`SearchOptions::vct`]), and `lmr=1`, late move reductions
    /// ([`SearchOptions::lmr`]). Examples:
    /// `alphabeta:6`, `pvs:8:weights/othello.toml`, `pvs:8:exact=20:weights/othello.toml`,
    /// `pvs:6:near=2:weights/renju.toml`, `pvs:5:near=2:threats=1:vcf=50:weights/renju.toml`,
    /// `pvs:8:near=2:threats=1:lmr=1:weights/renju.toml`,
    /// `alphabeta:5:ordering=natural`,
    /// `mcts:2000`, `pvs:n200000`, `random`.
    pub fn parse(text: &str) -> Result<EngineSpec, EngineError> {
        let mut parts = text.splitn(3, ':');
        let algorithm: Algorithm =
            parts
                .next()
                .unwrap_or("")
                .parse()
                .map_err(|source| EngineError::Search {
                    text: text.to_string(),
                    source,
                })?;
        let budget = parts.next();
        let (words, rest) = parse_words(text, algorithm, parts.next())?;
        let weights = rest.map(PathBuf::from);
        let mut limits = Limits::default();
        let mut options = SearchOptions {
            near: words.near,
            ordering: words.ordering,
            threads: words.threads,
            threats: words.threats,
            vcf: words.vcf,
            vct: words.vct,
            lmr: words.lmr,
            ..SearchOptions::default()
        };
        for (key, set, what) in [
            ("vcf", options.vcf > 0, "VCF at the leaves"),
            ("vct", options.vct > 0, "VCT at the root"),
            ("lmr", options.lmr, "late move reductions"),
        ] {
            if set && !options.threats {
                return Err(syntax(
                    text,
                    format!("{key} is the threat search's {what}: add threats=1 before it"),
                ));
            }
        }
        parse_budget(text, algorithm, budget, &mut limits, &mut options)?;
        if let Some(path) = &weights
            && path.as_os_str().is_empty()
        {
            return Err(syntax(text, "the weights file name is empty".into()));
        }
        Ok(EngineSpec {
            name: text.to_string(),
            config: SearchConfig {
                algorithm,
                limits,
                options,
            },
            weights,
            patterns: None,
            exact: words.exact,
        })
    }

    /// The weights this engine evaluates with, for the game of `start`.
    pub fn load_weights<G: Features>(&self, start: &G) -> Result<Weights, EvalError> {
        match &self.weights {
            Some(path) => Weights::load(start, path),
            None => Ok(Weights::default_for(start)),
        }
    }

    /// Loads what the engine evaluates with for the game of `start`: a pattern weights file
    /// (told by its first bytes; Othello only) into [`EngineSpec::patterns`], with the game's
    /// default linear weights beside it, or else the linear weights.
    pub fn load_evaluation<G: Features>(
        &mut self,
        start: &G,
    ) -> Result<(Weights, Option<PatternWeights>), EvalError> {
        let Some(path) = self
            .weights
            .clone()
            .filter(|p| PatternWeights::is_pattern_file(p))
        else {
            return self.load_weights(start).map(|w| (w, None));
        };
        let file = path.display().to_string();
        if start.name() != "othello" {
            return Err(EvalError::PatternFile {
                file,
                reason: format!(
                    "a pattern weights file evaluates Othello, not {}",
                    start.name()
                ),
            });
        }
        let (shared, weights) = SharedPatterns::load(&path)?;
        self.patterns = Some(shared);
        let mut linear = Weights::default_for(start);
        linear.origin = file;
        Ok((linear, Some(weights)))
    }
}

/// The longest time per move an engine may be given: one day.
const MAX_MOVE_SECONDS: f64 = 86_400.0;
/// The shortest: a millisecond (less is no search at all).
const MIN_MOVE_SECONDS: f64 = 0.001;

/// `Ns`, `N.Ns` or `Nms`: `None` when `text` has neither suffix.
pub fn parse_time(text: &str) -> Option<Result<Duration, String>> {
    let (number, scale) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 1e-3)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1.0)
    } else {
        return None;
    };
    Some(
        number
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && (MIN_MOVE_SECONDS..=MAX_MOVE_SECONDS).contains(&(v * scale)))
            .map(|v| Duration::from_secs_f64(v * scale))
            .ok_or_else(|| format!("time '{text}' is not a number of seconds (0.5s) or milliseconds (200ms) from 1ms to one day")),
    )
}

/// An engine ready to play one game: its searcher (tables, seeded random generator) and its
/// evaluator.
pub struct Engine<G: Features> {
    /// The configuration it was built from.
    pub spec: EngineSpec,
    /// The weights in use.
    pub weights: Weights,
    searcher: Searcher<G>,
    eval: EngineEval<G>,
    /// Its moves' CPU time is read ([`Engine::on_clock`], a time limit of its own).
    times_cpu: bool,
}

impl<G: Features> Engine<G> {
    /// Builds the engine for the game of `start`; `seed` seeds its random choices.
    pub fn new(spec: &EngineSpec, start: &G, seed: u64) -> Result<Engine<G>, EngineError> {
        let mut spec = spec.clone();
        let (weights, _) = spec.load_evaluation(start)?;
        Ok(Engine::with_weights(&spec, start, weights, seed))
    }

    /// Builds the engine with weights already loaded (the linear weights are unused when the
    /// spec carries a pattern evaluation).
    pub fn with_weights(spec: &EngineSpec, start: &G, weights: Weights, seed: u64) -> Engine<G> {
        let mut config = spec.config.clone();
        config.options.seed = seed;
        config.options.exact = spec.exact.unwrap_or_else(|| {
            crate::search::endgame::default_exact(start, config.algorithm, config.limits.depth)
        });
        Engine {
            spec: spec.clone(),
            eval: match &spec.patterns {
                Some(p) if start.name() == "othello" => EngineEval::Patterns(p.0.clone()),
                _ => EngineEval::Linear(LinearEval::new(start, &weights)),
            },
            weights,
            times_cpu: config.limits.time.is_some(),
            searcher: Searcher::new(config),
        }
    }

    /// The engine plays on a clock: its moves then depend on the CPU it gets, which is read
    /// (and recorded) for each of them. At a fixed depth or node count it is not: the moves do
    /// not depend on it, and reading a thread's CPU clock costs a system call (about 2 µs on
    /// the project's machine, as much as a depth-2 Connect 4 move).
    pub fn on_clock(&mut self) {
        self.times_cpu = true;
    }

    /// Whether its moves' CPU time is read.
    pub fn times_cpu(&self) -> bool {
        self.times_cpu
    }

    /// The engine's choice in `pos`.
    pub fn choose(&mut self, pos: &G) -> SearchResult<G::Move> {
        self.searcher.search(pos, &self.eval)
    }

    /// The engine's choice in `pos` within `budget` of time (or its own limits, when they come
    /// first): iterative deepening stopped by a game clock.
    pub fn choose_within(&mut self, pos: &G, budget: Duration) -> SearchResult<G::Move> {
        let own = self.spec.config.limits.clone();
        let mut limits = own.clone();
        limits.time = Some(own.time.map_or(budget, |t| t.min(budget)));
        self.searcher.set_limits(limits);
        let result = self.searcher.search(pos, &self.eval);
        self.searcher.set_limits(own);
        result
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &EngineEval<G> {
        &self.eval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_parse_with_budgets_and_weights() {
        let e = EngineSpec::parse("alphabeta:6").unwrap();
        assert_eq!(e.config.algorithm, Algorithm::AlphaBeta);
        assert_eq!(e.config.limits.depth, Some(6));
        let e = EngineSpec::parse("pvs:8:weights/othello.toml").unwrap();
        assert_eq!(e.weights, Some(PathBuf::from("weights/othello.toml")));
        assert_eq!(
            EngineSpec::parse("mcts:2000")
                .unwrap()
                .config
                .options
                .playouts,
            2000
        );
        assert_eq!(
            EngineSpec::parse("pvs:n5000").unwrap().config.limits.nodes,
            Some(5000)
        );
        assert_eq!(
            EngineSpec::parse("pvs:250ms").unwrap().config.limits.time,
            Some(Duration::from_millis(250))
        );
        assert!(EngineSpec::parse("random").is_ok());
    }

    #[test]
    fn bad_engines_say_what_is_allowed() {
        let err = |t: &str| EngineSpec::parse(t).unwrap_err().to_string();
        assert!(err("alphabeat:4").contains("unknown algorithm 'alphabeat'"));
        assert!(err("alphabeta:0").contains("between 1 and 64"));
        assert!(err("alphabeta:65").contains("between 1 and 64"));
        assert!(err("alphabeta").contains("needs a budget"));
        assert!(err("pvs:deep").contains("is not a depth"));
        assert!(err("pvs:n0").contains("node budget"));
        assert!(err("pvs:-1s").contains("time"));
        assert!(err("pvs:8:exact=65").contains("0..=64"));
        assert!(err("pvs:8:exact=x:w.toml").contains("exact=x"));
        assert!(err("pvs:8:deep=3:w.toml").contains("unknown option 'deep'"));
        assert!(err("random:exact=3").contains("takes no budget"));
    }

    #[test]
    fn option_words_sit_between_the_budget_and_the_weights() {
        let e = EngineSpec::parse("pvs:8:exact=20:weights/othello-patterns.jpw").unwrap();
        assert_eq!(e.exact, Some(20));
        assert_eq!(e.config.limits.depth, Some(8));
        assert_eq!(
            e.weights,
            Some(PathBuf::from("weights/othello-patterns.jpw"))
        );
        let e = EngineSpec::parse("pvs:6:near=2:exact=0:w.toml").unwrap();
        assert_eq!(e.config.options.near, 2);
        assert_eq!(e.exact, Some(0));
        assert_eq!(e.weights, Some(PathBuf::from("w.toml")));
        assert_eq!(EngineSpec::parse("pvs:6").unwrap().config.options.near, 0);
        let err = |t: &str| EngineSpec::parse(t).unwrap_err().to_string();
        assert!(err("pvs:6:near=16").contains("0..=15"));
        assert!(err("alphabeta:6:near=2").contains("near belongs to pvs and mtdf"));
        let e = EngineSpec::parse("pvs:8:threads=2:exact=20").unwrap();
        assert_eq!((e.config.options.threads, e.exact), (2, Some(20)));
        assert_eq!(
            EngineSpec::parse("pvs:8").unwrap().config.options.threads,
            1
        );
        assert!(err("pvs:8:threads=0").contains("1..=256"));
        assert!(err("pvs:8:threads=257").contains("1..=256"));
        let natural = EngineSpec::parse("alphabeta:5:ordering=natural").unwrap();
        assert_eq!(natural.config.options.ordering, MoveOrder::Natural);
        assert_eq!(
            EngineSpec::parse("alphabeta:5")
                .unwrap()
                .config
                .options
                .ordering,
            MoveOrder::Evaluation
        );
        assert!(err("alphabeta:5:ordering=best").contains("natural, evaluation, perfect"));
        assert!(err("pvs:5:ordering=natural").contains("ordering belongs to alphabeta"));
        let e = EngineSpec::parse("pvs:8:exact=0").unwrap();
        assert_eq!((e.exact, e.weights), (Some(0), None));
        // Without the option the game decides, when the engine is built.
        assert_eq!(EngineSpec::parse("pvs:8").unwrap().exact, None);
        // A weights file may hold colons and, behind a folder, an equals sign.
        let e = EngineSpec::parse("pvs:8:exact=12:./a=b:c.toml").unwrap();
        assert_eq!(e.weights, Some(PathBuf::from("./a=b:c.toml")));
        let start = Othello::start();
        let built = |text: &str| Engine::new(&EngineSpec::parse(text).unwrap(), &start, 1);
        let exact = |text: &str| built(text).unwrap().searcher.config().options.exact;
        assert_eq!(exact("pvs:8"), crate::search::endgame::OTHELLO_EXACT);
        assert_eq!(exact("pvs:5"), 14);
        assert_eq!(exact("pvs:n100000"), crate::search::endgame::OTHELLO_EXACT);
        assert_eq!(exact("alphabeta:8"), 0);
        assert_eq!(exact("pvs:8:exact=0"), 0);
        assert_eq!(exact("alphabeta:4:exact=14"), 14);
    }
}

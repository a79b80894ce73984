//! The tuning layer: optimisers that search weight vectors by playing candidates against each
//! other, as pure, deterministic code independent of the games (`docs/statistics.md`, "Tuning").
//!
//! - [`optimise`]: the optimisers that play candidates against each other: the tuned
//!   parameters (`params`), what an optimiser asks of the outside world and a synthetic
//!   objective with a known optimum (`objective`), simultaneous-perturbation stochastic
//!   approximation with the schedule the large engine-testing frameworks use (`spsa`), hill
//!   climbing with each neighbour accepted by a pentanomial SPRT (`hill`), and the built-in
//!   engines' games (`oracle`).
//! - [`fit`]: regression on labelled positions (Texel's method): positions collected from games
//!   logs, the scale K and then the weights fitted by logistic regression (Newton's method;
//!   `regression`), labels from a deeper search (`search_labels`), the pattern evaluation's fit
//!   (`pattern_fit`); `joute fit` and each round of a regression run use them.
//! - [`regression`]: `method = "regression"`, rounds of self-play games and fits as a
//!   resumable tuning run (`run`), and the rounds of the pattern evaluation (`pattern_round`).
//! - [`outside`]: tuning an outside program's options (`[engine]` with `command`, each
//!   `[[param]]` an option; `tuned-options.toml`); its `oracle`: its candidates played
//!   through the arena's outside-engine games (not reproducible: the programs and clocks decide).
//! - The run's bookkeeping: [`spec`], the tuning spec read and resolved; [`record`]: what a run
//!   records (`history.jsonl`) and what its report is drawn from; [`checkpoint`]: what a run
//!   keeps between sessions (its plan, the optimiser's state, `checkpoint.json`, the history
//!   read back, its opening streams) and [`checkpoint::TuneError`]; [`run`]: the resumable
//!   tuning loop; [`session`]: a tuning run in its folder, with its confirmation and A/A
//!   matches and its outputs, and (`session::shard`) a regression run played by N processes
//!   sharing its folder (`joute tune --shard I/N`), with no server, to the unsharded run's
//!   weights; [`aa`]: the A/A match's verdict (pass, fail, or not meaningful).
//! - [`report`]: the report of a tuning run, its charts and its own `index.html` (beside the
//!   tuning code, so that `crate::report` never reads tuning's types).
//!
//! Every random choice comes from a seed derived from `(seed, stream, k)` by [`derive_seed`],
//! so a state saved after step k and resumed replays the same trajectory.

pub mod aa;
pub mod checkpoint;
pub mod fit;
pub mod optimise;
pub mod outside;
pub mod record;
pub mod regression;
pub mod report;
pub mod run;
pub mod session;
pub mod spec;

/// A seed for draw `k` of `stream` under a run's `seed`: SplitMix64 finalisers over the three,
/// so that neighbouring `k` give unrelated seeds and no two (stream, k) reuse one in practice.
pub fn derive_seed(seed: u64, stream: u64, k: u64) -> u64 {
    fn mix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    mix(mix(mix(seed) ^ stream) ^ k)
}

#[cfg(test)]
mod tests {
    use super::derive_seed;

    #[test]
    fn derived_seeds_differ() {
        let mut seen = std::collections::HashSet::new();
        for stream in 0..4 {
            for k in 0..1000 {
                assert!(seen.insert(derive_seed(7, stream, k)));
            }
        }
        assert_ne!(derive_seed(1, 0, 0), derive_seed(2, 0, 0));
    }
}

//! The tuning layer: optimisers that search weight vectors by playing candidates against each
//! other, as pure, deterministic code independent of the games (`docs/statistics.md`, "Tuning").
//!
//! - [`params`]: the tuned parameters, their bounds and step sizes.
//! - [`objective`]: what an optimiser asks of the outside world (play colour-swapped pairs of
//!   two weight vectors and return pentanomial counts), and a synthetic objective with a known
//!   optimum for testing.
//! - [`spsa`]: simultaneous-perturbation stochastic approximation with the schedule the large
//!   engine-testing frameworks use.
//! - [`hill`]: hill climbing, each neighbour accepted by a pentanomial SPRT.
//! - [`record`]: what a run records (`history.jsonl`) and what its report is drawn from.
//! - [`checkpoint`]: what a run keeps between sessions (its plan, the optimiser's state,
//!   `checkpoint.json`, the history read back, its opening streams) and [`checkpoint::TuneError`].
//! - [`run`]: the resumable tuning loop; [`session`]: a tuning run in its folder, with its
//!   confirmation and A/A matches and its outputs; [`aa`]: the A/A match's verdict (pass,
//!   fail, or not meaningful).
//! - [`outside`]: tuning an outside program's options (`[engine]` with `command`, each
//!   `[[param]]` an option; `tuned-options.toml`); [`outside_oracle`]: its candidates played
//!   through the arena's outside-engine games (not reproducible: the programs and clocks decide).
//! - [`regression`]: regression tuning (Texel's method): labelled positions collected from games
//!   logs, the scale K and then the weights fitted by logistic regression (Newton's method);
//!   [`regression_run`]: `method = "regression"`, rounds of self-play games and fits as a
//!   resumable tuning run; [`regression_shard`]: such a run played by N processes sharing its
//!   folder (`joute tune --shard I/N`), with no server, to the unsharded run's weights.
//! - [`report`]: the report of a tuning run, its charts and its own `index.html` (beside the
//!   tuning code, so that `crate::report` never reads tuning's types).
//!
//! Every random choice comes from a seed derived from `(seed, stream, k)` by [`derive_seed`],
//! so a state saved after step k and resumed replays the same trajectory.

pub mod aa;
pub mod checkpoint;
pub mod hill;
pub mod objective;
pub mod oracle;
pub mod outside;
pub mod outside_oracle;
pub mod params;
pub mod pattern_fit;
pub mod pattern_round;
pub mod record;
pub mod regression;
pub mod regression_run;
pub mod regression_shard;
pub mod report;
pub mod run;
pub mod search_labels;
pub mod session;
pub mod spec;
pub mod spsa;

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

//! How much memory and time Othello's pattern fit takes on the positions of games logs: collects
//! every position of the logs (after their openings) as `joute fit --patterns --phases 6
//! --phase-overlap 3` does, fits a few L-BFGS iterations from zeros, and prints the positions,
//! the collect's seconds, the seconds per iteration and the process's peak resident memory
//! (Linux's `VmHWM`), whose growth with the positions gives the memory a position costs.
//!
//! `cargo run --release --example pattern_fit_scale -- ITERATIONS LOG...`

use std::path::{Path, PathBuf};
use std::time::Instant;

use joute::eval::PatternWeights;
use joute::tune::fit::pattern_fit::{PatternFitOptions, collect_patterns, fit_patterns};
use joute::tune::fit::regression::CollectOptions;

/// The process's peak resident memory in KiB, from `/proc/self/status` (0 elsewhere).
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: pattern_fit_scale ITERATIONS LOG...";
    let iterations: usize = args.next().and_then(|a| a.parse().ok()).ok_or(usage)?;
    let logs: Vec<PathBuf> = args.map(PathBuf::from).collect();
    if logs.is_empty() {
        return Err(usage.into());
    }
    let paths: Vec<&Path> = logs.iter().map(PathBuf::as_path).collect();
    let clock = Instant::now();
    let (data, games, _, _) = collect_patterns(&paths, &CollectOptions::default(), 6, 3, None)?;
    let collect_seconds = clock.elapsed().as_secs_f64();
    let collected_kib = peak_rss_kib();
    let clock = Instant::now();
    let options = PatternFitOptions {
        max_iterations: iterations,
        ..PatternFitOptions::default()
    };
    let fit = fit_patterns(&data, &PatternWeights::zeros(6), &options)?;
    let fit_seconds = clock.elapsed().as_secs_f64();
    // Each phase is fitted on its own; their iterations together took the time.
    let iterations: usize = fit.iterations.iter().sum();
    println!(
        "{} positions ({} with the overlaps) of {games} games; collect {collect_seconds:.1} s, peak {collected_kib} KiB after it; {iterations} phase iterations ({:?}) in {fit_seconds:.1} s ({:.2} s each, the start passes included); loss {:.6} → {:.6}; peak {} KiB",
        data.distinct(),
        data.len(),
        fit.iterations,
        fit_seconds / iterations.max(1) as f64,
        fit.start_loss,
        fit.loss,
        peak_rss_kib()
    );
    Ok(())
}

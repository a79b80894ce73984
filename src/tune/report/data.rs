//! The series the charts draw, prepared from a run's history.

use super::*;

/// The incumbent's Elo over the start as a step line of (games played, Elo): the running sum
/// of the accepted candidates' Elo (non-finite estimates left out), from (0, 0) to the last
/// candidate's games.
pub(super) fn running_elo(history: &[HistoryLine]) -> Vec<(f64, f64)> {
    let mut sum = 0.0;
    let mut path = vec![(0.0, 0.0)];
    for h in history.iter().filter(|h| h.accepted && h.elo.is_finite()) {
        let x = h.games_total as f64;
        path.push((x, sum));
        sum += h.elo;
        path.push((x, sum));
    }
    let last = history.last().map_or(0.0, |h| h.games_total as f64);
    path.push((last, sum));
    path
}

/// The rolling acceptance rate after each candidate, (k, percent accepted among the last
/// [`WINDOW`] candidates).
pub(super) fn rolling_acceptance(history: &[HistoryLine]) -> Vec<(f64, f64)> {
    history
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let window = &history[(i + 1).saturating_sub(WINDOW)..=i];
            let accepted = window.iter().filter(|h| h.accepted).count();
            (h.k as f64, 100.0 * accepted as f64 / window.len() as f64)
        })
        .collect()
}

/// `x` as a percentage of `param`'s range (0 for an empty range).
pub(super) fn of_range(param: &Param, x: f64) -> f64 {
    if param.range() > 0.0 {
        100.0 * x / param.range()
    } else {
        0.0
    }
}

/// Where `x` lies in `param`'s range, 0 at `min` to 100 at `max` (50 for an empty range).
pub(super) fn in_range(param: &Param, x: f64) -> f64 {
    if param.range() > 0.0 {
        of_range(param, x - param.min)
    } else {
        50.0
    }
}

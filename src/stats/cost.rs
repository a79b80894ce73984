//! What an engine paid for its moves: nodes, depth, wall time and CPU time per move, gathered
//! move by move in any order (the shards of a run merge to the same figures), and the
//! strength-against-cost frontier.
//!
//! Means and sums are exact. Medians and percentiles come from a histogram that keeps three
//! significant digits (HdrHistogram): exact below 2,048, within 0.1% above. A quantile `q` is
//! the value of the `⌈q·n⌉`-th smallest move (the median of an even count is the lower middle
//! one).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// A move whose CPU time is under this share of its wall time was starved: its engine did not
/// get the core it was waiting for (or waited on something else). 0.75: a single-threaded
/// engine alone on a core gets nearly 1; two games sharing one core get about ½ each.
pub const STARVED_SHARE: f64 = 0.75;

/// Moves shorter than this (microseconds) are not judged starved or not: a pipe's round trip and
/// the scheduler's granularity weigh too much in them.
pub const JUDGED_MICROS: u64 = 5_000;

/// Significant digits the histograms keep.
const SIGFIG: u8 = 3;

/// Records `value`, the histogram growing to hold it (to 2⁶² and saturating beyond).
fn record(histogram: &mut Histogram<u64>, value: u64) {
    if histogram.record(value).is_err() {
        histogram.saturating_record(value);
    }
}

/// One move's cost, as the games log holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveCost {
    /// Positions visited, when the engine said.
    pub nodes: Option<u64>,
    /// Depth of the deepest completed iteration (0: not said).
    pub depth: u32,
    /// Selective depth (0: none).
    pub seldepth: u32,
    /// Wall-clock microseconds, when measured.
    pub micros: Option<u64>,
    /// CPU microseconds the mover used, when measured.
    pub cpu_micros: Option<u64>,
}

/// Sums per move number (the game's ply, the opening's counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PlyCost {
    /// Moves played at this ply.
    pub moves: u64,
    /// Of them, moves with a node count, and their nodes.
    pub counted: u64,
    /// Nodes of the counted moves.
    pub nodes: u64,
    /// Moves with a wall time, and their microseconds.
    pub timed: u64,
    /// Microseconds of the timed moves.
    pub micros: u64,
}

impl PlyCost {
    /// Mean nodes of a move at this ply, when some move was counted.
    pub fn mean_nodes(&self) -> Option<f64> {
        (self.counted > 0).then(|| self.nodes as f64 / self.counted as f64)
    }

    /// Mean milliseconds of a move at this ply, when some move was timed.
    pub fn mean_ms(&self) -> Option<f64> {
        (self.timed > 0).then(|| self.micros as f64 / self.timed as f64 / 1000.0)
    }
}

/// One engine's costs, gathered move by move.
#[derive(Clone, Debug)]
pub struct Cost {
    moves: u64,
    /// Moves with a node count: in `nodes` one by one, or only in `nodes_sum` (a log written
    /// before moves were recorded one by one: its games' totals).
    counted: u64,
    nodes_sum: u128,
    nodes: Histogram<u64>,
    /// Wall microseconds of the counted moves that were timed, and their nodes (nodes per
    /// second).
    speed_micros: u128,
    speed_nodes: u128,
    /// Moves per depth (index: the depth; 0 unused).
    depths: Vec<u64>,
    seldepth_moves: u64,
    seldepth_sum: u64,
    seldepth_max: u32,
    micros_sum: u128,
    micros: Histogram<u64>,
    /// Moves with a CPU time, their CPU and their wall microseconds.
    cpu_moves: u64,
    cpu_sum: u128,
    cpu_wall: u128,
    judged: u64,
    starved: u64,
    by_ply: Vec<PlyCost>,
}

impl Default for Cost {
    fn default() -> Self {
        Cost {
            moves: 0,
            counted: 0,
            nodes_sum: 0,
            nodes: Histogram::new(SIGFIG).expect("three significant digits are allowed"),
            speed_micros: 0,
            speed_nodes: 0,
            depths: Vec::new(),
            seldepth_moves: 0,
            seldepth_sum: 0,
            seldepth_max: 0,
            micros_sum: 0,
            micros: Histogram::new(SIGFIG).expect("three significant digits are allowed"),
            cpu_moves: 0,
            cpu_sum: 0,
            cpu_wall: 0,
            judged: 0,
            starved: 0,
            by_ply: Vec::new(),
        }
    }
}

impl Cost {
    /// Counts one move played at `ply` (the game's move number, from 1, the opening's moves
    /// counted).
    pub fn add(&mut self, ply: usize, m: &MoveCost) {
        self.moves += 1;
        let at = self.ply(ply);
        at.moves += 1;
        if let Some(n) = m.nodes {
            at.counted += 1;
            at.nodes += n;
        }
        if let Some(us) = m.micros {
            at.timed += 1;
            at.micros += us;
        }
        if let Some(n) = m.nodes {
            self.counted += 1;
            self.nodes_sum += u128::from(n);
            record(&mut self.nodes, n);
            if let Some(us) = m.micros {
                self.speed_micros += u128::from(us);
                self.speed_nodes += u128::from(n);
            }
        }
        if m.depth > 0 {
            let d = m.depth as usize;
            if self.depths.len() <= d {
                self.depths.resize(d + 1, 0);
            }
            self.depths[d] += 1;
        }
        if m.seldepth > 0 {
            self.seldepth_moves += 1;
            self.seldepth_sum += u64::from(m.seldepth);
            self.seldepth_max = self.seldepth_max.max(m.seldepth);
        }
        if let Some(us) = m.micros {
            self.micros_sum += u128::from(us);
            record(&mut self.micros, us);
        }
        if let (Some(cpu), Some(us)) = (m.cpu_micros, m.micros) {
            self.cpu_moves += 1;
            self.cpu_sum += u128::from(cpu);
            self.cpu_wall += u128::from(us);
            if us >= JUDGED_MICROS {
                self.judged += 1;
                if (cpu as f64) < STARVED_SHARE * us as f64 {
                    self.starved += 1;
                }
            }
        }
    }

    /// Counts the node total `nodes` of `moves` moves already counted by [`Cost::add`] without
    /// their nodes (a games log written before moves were recorded one by one holds each
    /// side's total only): the mean stays exact, the median is then unknown.
    pub fn add_node_totals(&mut self, moves: u64, nodes: u64) {
        if nodes > 0 {
            self.counted += moves;
            self.nodes_sum += u128::from(nodes);
        }
    }

    fn ply(&mut self, ply: usize) -> &mut PlyCost {
        if self.by_ply.len() < ply {
            self.by_ply.resize(ply, PlyCost::default());
        }
        &mut self.by_ply[ply.max(1) - 1]
    }

    /// Adds another engine's (or another run's) costs to these.
    pub fn merge(&mut self, other: &Cost) {
        self.moves += other.moves;
        self.counted += other.counted;
        self.nodes_sum += other.nodes_sum;
        // Both histograms resize themselves: adding cannot fail for want of range.
        let _ = self.nodes.add(&other.nodes);
        self.speed_micros += other.speed_micros;
        self.speed_nodes += other.speed_nodes;
        if self.depths.len() < other.depths.len() {
            self.depths.resize(other.depths.len(), 0);
        }
        for (d, n) in other.depths.iter().enumerate() {
            self.depths[d] += n;
        }
        self.seldepth_moves += other.seldepth_moves;
        self.seldepth_sum += other.seldepth_sum;
        self.seldepth_max = self.seldepth_max.max(other.seldepth_max);
        self.micros_sum += other.micros_sum;
        let _ = self.micros.add(&other.micros);
        self.cpu_moves += other.cpu_moves;
        self.cpu_sum += other.cpu_sum;
        self.cpu_wall += other.cpu_wall;
        self.judged += other.judged;
        self.starved += other.starved;
        if self.by_ply.len() < other.by_ply.len() {
            self.by_ply.resize(other.by_ply.len(), PlyCost::default());
        }
        for (mine, theirs) in self.by_ply.iter_mut().zip(&other.by_ply) {
            mine.moves += theirs.moves;
            mine.counted += theirs.counted;
            mine.nodes += theirs.nodes;
            mine.timed += theirs.timed;
            mine.micros += theirs.micros;
        }
    }

    /// Moves counted.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// Sums by move number: entry `k` is ply `k + 1`.
    pub fn by_ply(&self) -> &[PlyCost] {
        &self.by_ply
    }

    /// The figures the reports show.
    pub fn figures(&self) -> CostFigures {
        let known_depths: u64 = self.depths.iter().sum();
        let depth_sum: u64 = self
            .depths
            .iter()
            .enumerate()
            .map(|(d, n)| d as u64 * n)
            .sum();
        let timed = self.micros.len();
        CostFigures {
            moves: self.moves,
            nodes: self.nodes_sum.min(u128::from(u64::MAX)) as u64,
            nodes_mean: (self.counted > 0).then(|| self.nodes_sum as f64 / self.counted as f64),
            nodes_median: (self.counted > 0 && self.nodes.len() == self.counted)
                .then(|| self.nodes.value_at_quantile(0.5)),
            depth_mean: (known_depths > 0).then(|| depth_sum as f64 / known_depths as f64),
            depth_min: self.depths.iter().position(|&n| n > 0).map(|d| d as u32),
            depth_max: self.depths.iter().rposition(|&n| n > 0).map(|d| d as u32),
            seldepth_mean: (self.seldepth_moves > 0)
                .then(|| self.seldepth_sum as f64 / self.seldepth_moves as f64),
            seldepth_max: (self.seldepth_moves > 0).then_some(self.seldepth_max),
            ms_mean: (timed > 0).then(|| self.micros_sum as f64 / timed as f64 / 1000.0),
            ms_p95: (timed > 0).then(|| self.micros.value_at_quantile(0.95) as f64 / 1000.0),
            ms_total: self.micros_sum as f64 / 1000.0,
            nodes_per_second: (self.speed_micros > 0)
                .then(|| self.speed_nodes as f64 * 1e6 / self.speed_micros as f64),
            cpu_ms_mean: (self.cpu_moves > 0)
                .then(|| self.cpu_sum as f64 / self.cpu_moves as f64 / 1000.0),
            cpu_share: (self.cpu_wall > 0).then(|| self.cpu_sum as f64 / self.cpu_wall as f64),
            cpu_moves: self.cpu_moves,
            judged: self.judged,
            starved: self.starved,
        }
    }
}

impl CostFigures {
    /// The figures that come from the machine's clocks: they differ between identical runs,
    /// and the others (moves, nodes, depths) replay bit for bit.
    pub const TIMING_FIELDS: [&'static str; 9] = [
        "ms_mean",
        "ms_p95",
        "ms_total",
        "nodes_per_second",
        "cpu_ms_mean",
        "cpu_share",
        "cpu_moves",
        "judged",
        "starved",
    ];
}

/// One engine's cost figures (`None`: nothing to say it from).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CostFigures {
    /// Moves counted.
    pub moves: u64,
    /// Nodes of every move that has a count.
    pub nodes: u64,
    /// Mean nodes of a move, over the moves with a count.
    pub nodes_mean: Option<f64>,
    /// Median nodes of a move (unknown when some counts are only games' totals).
    pub nodes_median: Option<u64>,
    /// Mean depth reached, over the moves that say one.
    pub depth_mean: Option<f64>,
    /// Shallowest depth reached.
    pub depth_min: Option<u32>,
    /// Deepest depth reached.
    pub depth_max: Option<u32>,
    /// Mean selective depth, over the moves that have one.
    pub seldepth_mean: Option<f64>,
    /// Deepest selective depth.
    pub seldepth_max: Option<u32>,
    /// Mean wall-clock milliseconds of a move.
    pub ms_mean: Option<f64>,
    /// The 95th percentile of a move's wall-clock milliseconds.
    pub ms_p95: Option<f64>,
    /// Wall-clock milliseconds of every timed move.
    pub ms_total: f64,
    /// Nodes per second of wall-clock time, over the moves with both.
    pub nodes_per_second: Option<f64>,
    /// Mean CPU milliseconds of a move, over the moves measured.
    pub cpu_ms_mean: Option<f64>,
    /// CPU time ÷ wall time over the moves measured (1: one core all the time).
    pub cpu_share: Option<f64>,
    /// Moves whose CPU time was measured.
    pub cpu_moves: u64,
    /// Of them, moves long enough to judge ([`JUDGED_MICROS`]).
    pub judged: u64,
    /// Of those, moves under [`STARVED_SHARE`] of a core.
    pub starved: u64,
}

/// The engines on the frontier of strength against cost: those that no other engine beats at
/// a lower or equal cost (a higher Elo for no more, or the same Elo for less). `points` are
/// (cost, Elo) pairs, `None` for an engine without a cost; the indices are returned by
/// increasing cost.
pub fn frontier(points: &[Option<(f64, f64)>]) -> Vec<usize> {
    let mut on: Vec<usize> = (0..points.len())
        .filter(|&i| {
            let Some((cost, elo)) = points[i] else {
                return false;
            };
            !points.iter().enumerate().any(|(j, p)| {
                j != i && p.is_some_and(|(c, e)| (c <= cost && e > elo) || (c < cost && e >= elo))
            })
        })
        .collect();
    on.sort_by(|&a, &b| points[a].unwrap().0.total_cmp(&points[b].unwrap().0));
    on
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(nodes: u64, depth: u32, micros: u64, cpu: Option<u64>) -> MoveCost {
        MoveCost {
            nodes: Some(nodes),
            depth,
            seldepth: 0,
            micros: Some(micros),
            cpu_micros: cpu,
        }
    }

    /// The `⌈q·n⌉`-th smallest of `values`, computed plainly.
    fn quantile(values: &[u64], q: f64) -> u64 {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let k = ((q * sorted.len() as f64).ceil() as usize).max(1);
        sorted[k - 1]
    }

    #[test]
    fn figures_are_the_plain_computations_over_the_moves() {
        // A spread of node counts and times, some above the histogram's exact range.
        let mut cost = Cost::default();
        let mut nodes = Vec::new();
        let mut micros = Vec::new();
        let mut x = 12345u64;
        for i in 0..1001u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let n = 1 + (x >> 33) % 200_000;
            let us = 10 + (x >> 20) % 90_000;
            nodes.push(n);
            micros.push(us);
            cost.add(
                1 + (i % 40) as usize,
                &mv(n, 1 + (i % 7) as u32, us, Some(us * 9 / 10)),
            );
        }
        let f = cost.figures();
        assert_eq!(f.moves, 1001);
        assert_eq!(f.nodes, nodes.iter().sum::<u64>());
        let mean = nodes.iter().sum::<u64>() as f64 / 1001.0;
        assert!((f.nodes_mean.unwrap() - mean).abs() < 1e-9);
        let median = quantile(&nodes, 0.5) as f64;
        let got = f.nodes_median.unwrap() as f64;
        assert!((got - median).abs() <= median * 1e-3, "{got} vs {median}");
        let p95 = quantile(&micros, 0.95) as f64 / 1000.0;
        assert!((f.ms_p95.unwrap() - p95).abs() <= p95 * 1e-3);
        let ms_mean = micros.iter().sum::<u64>() as f64 / 1001.0 / 1000.0;
        assert!((f.ms_mean.unwrap() - ms_mean).abs() < 1e-9);
        assert_eq!((f.depth_min, f.depth_max), (Some(1), Some(7)));
        let depth_mean = (0..1001).map(|i| 1 + i % 7).sum::<u64>() as f64 / 1001.0;
        assert!((f.depth_mean.unwrap() - depth_mean).abs() < 1e-12);
        let nps = nodes.iter().sum::<u64>() as f64 * 1e6 / micros.iter().sum::<u64>() as f64;
        assert!((f.nodes_per_second.unwrap() - nps).abs() < 1e-6 * nps);
        // CPU at 90% of the wall: none starved; the judged are the moves of 5 ms or more.
        let share = f.cpu_share.unwrap();
        assert!((share - 0.9).abs() < 1e-3, "{share}");
        assert_eq!(f.starved, 0);
        assert_eq!(
            f.judged,
            micros.iter().filter(|&&us| us >= JUDGED_MICROS).count() as u64
        );
        // Below 2,048 the median is exact.
        let mut small = Cost::default();
        for n in [5, 1, 9, 3, 2000, 7] {
            small.add(1, &mv(n, 0, 1, None));
        }
        assert_eq!(small.figures().nodes_median, Some(5));
        assert_eq!(small.figures().depth_mean, None);
        assert_eq!(small.figures().cpu_share, None);
    }

    #[test]
    fn starved_moves_are_those_under_the_share_and_long_enough_to_judge() {
        let mut cost = Cost::default();
        cost.add(1, &mv(1, 1, 10_000, Some(7_400))); // starved
        cost.add(2, &mv(1, 1, 10_000, Some(7_600))); // not
        cost.add(3, &mv(1, 1, 4_000, Some(100))); // too short to judge
        cost.add(4, &mv(1, 1, 10_000, None)); // not measured
        let f = cost.figures();
        assert_eq!((f.cpu_moves, f.judged, f.starved), (3, 2, 1));
        assert!((f.cpu_share.unwrap() - 15_100.0 / 24_000.0).abs() < 1e-12);
    }

    #[test]
    fn merging_in_any_order_gives_the_same_figures() {
        let moves: Vec<(usize, MoveCost)> = (0..300u64)
            .map(|i| {
                let cost = MoveCost {
                    nodes: (i % 13 != 0).then_some((i * 7919) % 5000),
                    depth: (i % 5) as u32,
                    seldepth: (i % 3) as u32 * 4,
                    micros: (i % 11 != 0).then_some(i * 37 % 20_000),
                    cpu_micros: (i % 2 == 0).then_some(i * 31 % 20_000),
                };
                ((i % 60) as usize + 1, cost)
            })
            .collect();
        let mut whole = Cost::default();
        for (ply, m) in &moves {
            whole.add(*ply, m);
        }
        let (mut a, mut b) = (Cost::default(), Cost::default());
        for (k, (ply, m)) in moves.iter().enumerate().rev() {
            if k % 3 == 0 { &mut a } else { &mut b }.add(*ply, m);
        }
        b.merge(&a);
        assert_eq!(whole.figures(), b.figures());
        assert_eq!(whole.by_ply(), b.by_ply());
        // Ply sums add up to the whole.
        let by_ply_nodes: u64 = whole.by_ply().iter().map(|p| p.nodes).sum();
        assert_eq!(by_ply_nodes, whole.figures().nodes);
        assert_eq!(whole.figures().seldepth_max, Some(8));
    }

    #[test]
    fn totals_of_old_logs_keep_the_mean_and_drop_the_median() {
        let mut cost = Cost::default();
        cost.add(1, &mv(100, 2, 1000, None));
        for ply in 2..5 {
            let uncounted = MoveCost {
                nodes: None,
                ..mv(0, 0, 1000, None)
            };
            cost.add(ply, &uncounted);
        }
        cost.add_node_totals(3, 900);
        let f = cost.figures();
        assert_eq!(f.moves, 4);
        assert_eq!(f.nodes_mean, Some(250.0));
        assert_eq!(f.nodes_median, None);
    }

    #[test]
    fn the_frontier_keeps_the_engines_no_other_beats_for_less() {
        let points = [
            Some((100.0, 0.0)),   // cheapest
            Some((200.0, 50.0)),  // on
            Some((300.0, 40.0)),  // beaten by 1 for less
            None,                 // no cost
            Some((1000.0, 80.0)), // on
            Some((200.0, 50.0)),  // tied with 1: both on
            Some((100.0, -5.0)),  // beaten by 0 at the same cost
        ];
        assert_eq!(frontier(&points), vec![0, 1, 5, 4]);
        assert!(frontier(&[]).is_empty());
    }
}

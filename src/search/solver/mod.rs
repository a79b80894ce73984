//! Exact solvers specialised for one game, the strongest machinery `joute solve` has: they use
//! the game's bitboards directly instead of the generic [`crate::games::Game`] interface.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub mod connect4;
pub mod generic;
pub mod othello;
pub mod position;
pub mod suite;

/// The value of a position: exact, or the bounds a stopped solve proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution<M> {
    /// The score for the side to move under perfect play, in the game's own convention
    /// (Othello: final disc difference; Connect 4: the convention of the test suites). For a
    /// stopped solve, the best estimate it had (see [`Solution::stopped`]).
    pub score: i32,
    /// Moves that achieve the score (at least one unless the game is over); for a stopped
    /// solve, the best move found so far, if any.
    pub best_moves: Vec<M>,
    /// Positions visited.
    pub nodes: u64,
    /// Set when a limit stopped the solve before it was exact.
    pub stopped: Option<Stopped>,
}

/// What a stopped solve proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// The limit that stopped it.
    pub reason: StopReason,
    /// The score is at least this...
    pub lower: i32,
    /// ...and at most this.
    pub upper: i32,
    /// Full-width iterations completed (the generic solver's depth; 0 for the others).
    pub depth: u32,
}

/// Which limit stopped a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The node budget was spent.
    Nodes,
    /// The time ran out.
    Time,
}

impl StopReason {
    /// `nodes` or `time`.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Nodes => "nodes",
            StopReason::Time => "time",
        }
    }
}

/// Nodes between two looks at the clock (and updates of the progress counter).
const CHECK_EVERY: u64 = 1 << 16;

/// A solve's limits: a node budget, a deadline, and a counter a progress display may watch.
/// The searches call [`Stop::poll`] once per node: a comparison, and every [`CHECK_EVERY`]
/// nodes a look at the clock.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    max_nodes: Option<u64>,
    time: Option<Duration>,
    deadline: Option<Instant>,
    next_check: u64,
    reason: Option<StopReason>,
    progress: Option<Arc<AtomicU64>>,
}

impl Stop {
    /// No limit.
    pub fn unlimited() -> Stop {
        Stop {
            next_check: CHECK_EVERY,
            ..Stop::default()
        }
    }

    /// Stops after `nodes` positions or `time`, whichever comes first; `progress` (if any) is
    /// kept near the number of positions visited.
    pub fn new(
        nodes: Option<u64>,
        time: Option<Duration>,
        progress: Option<Arc<AtomicU64>>,
    ) -> Stop {
        Stop {
            max_nodes: nodes,
            time,
            progress,
            ..Stop::unlimited()
        }
    }

    /// Starts the clock: called when a solve begins.
    pub(crate) fn start(&mut self) {
        self.deadline = self.time.map(|t| Instant::now() + t);
        self.reason = None;
        self.next_check = self.max_nodes.map_or(CHECK_EVERY, |m| m.min(CHECK_EVERY));
    }

    /// Whether the search must stop, given the positions it has visited so far.
    #[inline(always)]
    pub(crate) fn poll(&mut self, nodes: u64) -> bool {
        nodes >= self.next_check && self.check(nodes)
    }

    /// The limit that stopped the search, if one did.
    #[inline(always)]
    pub(crate) fn stopped(&self) -> bool {
        self.reason.is_some()
    }

    /// Why the search stopped.
    pub(crate) fn reason(&self) -> Option<StopReason> {
        self.reason
    }

    #[cold]
    fn check(&mut self, nodes: u64) -> bool {
        if self.reason.is_some() {
            return true;
        }
        if let Some(p) = &self.progress {
            p.store(nodes, Ordering::Relaxed);
        }
        if self.max_nodes.is_some_and(|m| nodes >= m) {
            self.reason = Some(StopReason::Nodes);
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.reason = Some(StopReason::Time);
        }
        if self.reason.is_some() {
            // Every later poll answers at once.
            self.next_check = 0;
            return true;
        }
        let next = nodes + CHECK_EVERY;
        self.next_check = self.max_nodes.map_or(next, |m| m.min(next));
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_budget_stops_exactly_at_its_count() {
        let mut stop = Stop::new(Some(100_000), None, None);
        stop.start();
        let first = (1..=200_000u64).find(|&n| stop.poll(n)).unwrap();
        assert_eq!(first, 100_000);
        assert_eq!(stop.reason(), Some(StopReason::Nodes));
        assert!(stop.poll(1), "once stopped, every poll says so");
    }

    #[test]
    fn a_deadline_stops_and_no_limit_never_does() {
        let mut stop = Stop::new(None, Some(Duration::ZERO), None);
        stop.start();
        assert!(stop.poll(CHECK_EVERY));
        assert_eq!(stop.reason(), Some(StopReason::Time));
        let counter = Arc::new(AtomicU64::new(0));
        let mut free = Stop::new(None, None, Some(counter.clone()));
        free.start();
        assert!(!(1..=10 * CHECK_EVERY).any(|n| free.poll(n)));
        assert!(counter.load(Ordering::Relaxed) >= 9 * CHECK_EVERY);
    }
}

//! Exact solvers specialised for one game, the strongest machinery `joute solve` has: they use
//! the game's bitboards directly instead of the generic [`crate::games::Game`] interface.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

/// The same in a parallel solve, shorter: a helper then also looks whether the solve is over,
/// and a short solve (a game's) should not wait long for its helpers to see it.
const CHECK_EVERY_SHARED: u64 = 1 << 12;

/// What the threads of one parallel solve share of its limits.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    /// Nodes of the node budget handed out to the threads so far, in chunks (it may count past
    /// the budget; the chunks handed out never do).
    granted: AtomicU64,
    /// Nodes the threads have reported so far, for the progress counter.
    counted: AtomicU64,
    /// Set when the solve is over (its main thread done or stopped): the helpers stop.
    halt: AtomicBool,
}

impl Shared {
    /// Tells every thread of the solve to stop at its next look.
    pub(crate) fn halt(&self) {
        self.halt.store(true, Ordering::Relaxed);
    }
}

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
    /// In a parallel solve, what its threads share; `None` for a solve on one thread.
    shared: Option<Arc<Shared>>,
    /// In a parallel solve under a node budget, the nodes this thread was handed so far.
    granted: u64,
    /// In a parallel solve, the nodes this thread has reported to [`Shared::counted`].
    reported: u64,
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

    /// Makes this (started) stop the main thread's of a parallel solve, and returns what its
    /// threads share: the node budget then holds for all of them together, the deadline is
    /// the same for all, and [`Shared::halt`] stops them. [`Stop::unshare`] ends it.
    pub(crate) fn share(&mut self) -> Arc<Shared> {
        let shared = Arc::new(Shared::default());
        self.shared = Some(shared.clone());
        (self.granted, self.reported, self.next_check) = (0, 0, 0);
        shared
    }

    /// A helper thread's stop for the parallel solve [`Stop::share`] began.
    pub(crate) fn helper(&self) -> Stop {
        Stop {
            reason: None,
            granted: 0,
            reported: 0,
            next_check: 0,
            ..self.clone()
        }
    }

    /// Back to a solve on one thread (keeping why the parallel one stopped, if it did).
    pub(crate) fn unshare(&mut self) {
        self.shared = None;
    }

    #[cold]
    fn check(&mut self, nodes: u64) -> bool {
        if self.reason.is_some() {
            return true;
        }
        if let Some(shared) = self.shared.clone() {
            return self.check_shared(&shared, nodes);
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

    /// [`Stop::check`] for one thread of a parallel solve. Under a node budget each thread
    /// runs on chunks of it handed out one at a time (an eighth of what is left, at most
    /// [`CHECK_EVERY_SHARED`]): the chunks never add up to more than the budget, so neither
    /// do the threads' nodes.
    fn check_shared(&mut self, shared: &Shared, nodes: u64) -> bool {
        let delta = nodes - self.reported;
        self.reported = nodes;
        let total = shared.counted.fetch_add(delta, Ordering::Relaxed) + delta;
        if let Some(p) = &self.progress {
            p.fetch_max(total, Ordering::Relaxed);
        }
        if shared.halt.load(Ordering::Relaxed) {
            // A helper told that the solve is over; its result is not used.
            self.reason = Some(StopReason::Nodes);
        } else if let Some(max) = self.max_nodes
            && nodes >= self.granted
        {
            // What this thread already spent beyond its chunks is charged too.
            let left = max.saturating_sub(shared.granted.load(Ordering::Relaxed));
            let chunk = nodes - self.granted + (left / 8).clamp(1, CHECK_EVERY_SHARED);
            let before = shared.granted.fetch_add(chunk, Ordering::Relaxed);
            self.granted += chunk.min(max.saturating_sub(before));
            if nodes >= self.granted {
                self.reason = Some(StopReason::Nodes);
            }
        }
        if self.reason.is_none() && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.reason = Some(StopReason::Time);
        }
        if self.reason.is_some() {
            self.next_check = 0;
            return true;
        }
        let next = nodes + CHECK_EVERY_SHARED;
        self.next_check = if self.max_nodes.is_some() {
            next.min(self.granted)
        } else {
            next
        };
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
    fn a_shared_budget_holds_for_all_threads_together() {
        let mut main = Stop::new(Some(100_000), None, None);
        main.start();
        let shared = main.share();
        let mut helper = main.helper();
        // Two threads taking turns, each polling its own node count, as the searches do.
        let (mut a, mut b) = (0u64, 0u64);
        loop {
            let (sa, sb) = (main.poll(a + 1), helper.poll(b + 1));
            if !sa {
                a += 1;
            }
            if !sb {
                b += 1;
            }
            if sa && sb {
                break;
            }
        }
        assert!(a + b <= 100_000, "{a} + {b}");
        assert!(a + b >= 99_990, "{a} + {b}: the budget was not used");
        assert!(a > 10_000 && b > 10_000, "{a} {b}: both threads ran");
        assert_eq!(main.reason(), Some(StopReason::Nodes));
        // Halting stops a helper with budget to spare.
        let mut free = Stop::unlimited();
        free.start();
        let shared_free = free.share();
        let mut helper = free.helper();
        assert!(!helper.poll(1));
        shared_free.halt();
        assert!(helper.poll(CHECK_EVERY_SHARED + 1));
        assert!(
            !free.stopped(),
            "the main thread halts its helpers, not itself"
        );
        drop(shared);
        free.unshare();
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

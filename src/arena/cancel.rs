//! Cancellation of a run in progress: a flag that the caller raises (the command line on
//! Ctrl-C, a library user on its own terms) and that the runner reads before it starts each
//! game. Games already started finish; none is cut short, so every game in the log is whole.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A shared flag: clones observe the same cancellation.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Asks every holder of the token to stop starting work.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag() {
        let token = CancelToken::new();
        let clone = token.clone();
        assert!(!clone.is_cancelled());
        token.cancel();
        assert!(clone.is_cancelled());
    }
}

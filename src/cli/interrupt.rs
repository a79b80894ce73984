//! Ctrl-C and termination signals (SIGINT, SIGTERM, SIGHUP) during a run.
//!
//! The first signal raises the run's [`CancelToken`]: no new game starts, the games in flight
//! finish and are logged, `run.json` records the session, and the command prints the table so
//! far and how to resume (as fastchess does). A second signal exits at once with status 130;
//! the log stays valid (every line is one write), and a scratch folder registered with
//! [`set_scratch`] is removed first.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use joute::arena::CancelToken;

/// The exit status of a run stopped by a signal (128 + SIGINT, as shells report Ctrl-C).
pub const EXIT_INTERRUPTED: u8 = 130;

struct State {
    token: CancelToken,
    signals: AtomicU32,
    scratch: Mutex<Option<PathBuf>>,
}

static STATE: OnceLock<State> = OnceLock::new();

fn state() -> &'static State {
    STATE.get_or_init(|| State {
        token: CancelToken::new(),
        signals: AtomicU32::new(0),
        scratch: Mutex::new(None),
    })
}

/// The token that signals raise, with the handler installed on first use.
pub fn token() -> CancelToken {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // If a handler cannot be installed the run still works; signals then kill it as
        // before, and the log stays valid.
        let _ = ctrlc::set_handler(on_signal);
    });
    state().token.clone()
}

/// Registers a folder to remove if a second signal ends the process at once (a match's
/// scratch folder); `None` when it is gone.
pub fn set_scratch(path: Option<PathBuf>) {
    if let Ok(mut slot) = state().scratch.lock() {
        *slot = path;
    }
}

fn on_signal() {
    let state = state();
    if state.signals.fetch_add(1, Ordering::SeqCst) == 0 {
        state.token.cancel();
        note!(
            "\ninterrupted: no new game starts; the games in flight finish and are logged (press Ctrl-C again to quit at once)"
        );
    } else {
        if let Ok(slot) = state.scratch.lock()
            && let Some(dir) = slot.as_ref()
        {
            let _ = std::fs::remove_dir_all(dir);
        }
        note!("interrupted again: quitting now; the games log is intact");
        joute::arena::descendants::kill_all();
        std::process::exit(EXIT_INTERRUPTED.into());
    }
}

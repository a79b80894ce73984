//! Ctrl-C and termination signals (SIGINT, SIGTERM, SIGHUP) during a run.
//!
//! The first signal raises the run's [`CancelToken`]: no new game starts, the games in flight
//! finish and are logged, `run.json` records the session, and the command prints the table so
//! far and how to resume (as fastchess does). A second signal exits at once with status 130;
//! the log stays valid (every line is one write), and a scratch folder registered with
//! [`set_scratch`] is removed first. `joute serve`, which plays nothing, takes its token from
//! [`server_token`]: a signal then says that the server stops.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use joute::arena::CancelToken;

/// The exit status of a run stopped by a signal (128 + SIGINT, as shells report Ctrl-C).
pub const EXIT_INTERRUPTED: u8 = 130;

struct State {
    token: CancelToken,
    signals: AtomicU32,
    scratch: Mutex<Option<PathBuf>>,
    /// The command only serves a page (`joute serve`): no game to finish, no log to resume.
    server: AtomicBool,
}

static STATE: OnceLock<State> = OnceLock::new();

fn state() -> &'static State {
    STATE.get_or_init(|| State {
        token: CancelToken::new(),
        signals: AtomicU32::new(0),
        scratch: Mutex::new(None),
        server: AtomicBool::new(false),
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

/// [`token`] for a command that only serves a page: the signal's message says the server
/// stops, not that games finish.
pub fn server_token() -> CancelToken {
    state().server.store(true, Ordering::SeqCst);
    token()
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
    let server = state.server.load(Ordering::SeqCst);
    if state.signals.fetch_add(1, Ordering::SeqCst) == 0 {
        state.token.cancel();
        if server {
            note!("\ninterrupted: stopping the server (press Ctrl-C again to quit at once)");
        } else {
            note!(
                "\ninterrupted: no new game starts; the games in flight finish and are logged (press Ctrl-C again to quit at once)"
            );
        }
    } else if server {
        note!("interrupted again: quitting now");
        std::process::exit(EXIT_INTERRUPTED.into());
    } else {
        if let Ok(slot) = state.scratch.lock()
            && let Some(dir) = slot.as_ref()
        {
            let _ = std::fs::remove_dir_all(dir);
        }
        let scratch = state.scratch.lock().ok().and_then(|s| s.clone());
        match scratch {
            Some(_) => note!(
                "interrupted again: quitting now; a match without --out keeps nothing, so it cannot be resumed"
            ),
            None => note!(
                "interrupted again: quitting now; the games log is intact; to play the rest, run: {}",
                resume_command()
            ),
        }
        joute::arena::descendants::kill_all();
        std::process::exit(EXIT_INTERRUPTED.into());
    }
}

/// This command line again, with `--resume` (which also works when nothing needs extending).
pub fn resume_command() -> String {
    let mut args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--resume") {
        args.push("--resume".into());
    }
    args.iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=,@%+".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_quote("tournaments/a.toml"), "tournaments/a.toml");
        assert_eq!(shell_quote("pvs:20ms"), "pvs:20ms");
        assert_eq!(shell_quote("my run"), "'my run'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}

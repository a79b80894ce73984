//! Waiting for work that runs on a thread of its own (a tournament's session, a tuning run)
//! while the calling thread, detached from the interpreter, hears what it sends: every tenth
//! of a second it attaches, hands the messages waiting to `hear` (progress bars, callbacks) and
//! lets Python run its signal handlers. Ctrl-C (a `KeyboardInterrupt`) or an error of `hear`
//! raises the cancel token, as the command line's Ctrl-C does; the work then ends resumably.

use std::sync::mpsc;
use std::time::Duration;

use pyo3::prelude::*;

use joute::arena::CancelToken;

/// Runs `work` on a thread of its own until it returns, calling `hear` on this thread with
/// each message it sends on the channel `rx` is the end of, while Python may run; each
/// message is dropped after it is heard and, on an error, after `cancel` is raised. Returns what
/// `work` returned and the first Python error met (a KeyboardInterrupt, or `hear`'s), after
/// which `cancel` was raised and later messages were dropped unheard.
pub fn wait_detached<T: Send, M: Send>(
    py: Python<'_>,
    rx: mpsc::Receiver<M>,
    cancel: &CancelToken,
    work: impl FnOnce() -> T + Send,
    mut hear: impl FnMut(Python<'_>, &M) -> PyResult<()> + Send,
) -> (T, Option<PyErr>) {
    py.detach(move || {
        let mut interrupted: Option<PyErr> = None;
        let done = std::thread::scope(|scope| {
            let working = scope.spawn(work);
            loop {
                let heard = rx.recv_timeout(Duration::from_millis(100));
                let ended = matches!(heard, Err(mpsc::RecvTimeoutError::Disconnected));
                // Every message waiting, at once: a burst of games costs one attach.
                let mut batch: Vec<M> = heard.into_iter().collect();
                batch.extend(rx.try_iter());
                Python::attach(|py| {
                    // The messages are dropped only after the token is raised: a sender that
                    // waits for its message to be heard (a tuning step) must not go on first.
                    for message in &batch {
                        if interrupted.is_none()
                            && let Err(e) = hear(py, message)
                        {
                            cancel.cancel();
                            interrupted = Some(e);
                        }
                    }
                    if let Err(e) = py.check_signals()
                        && interrupted.is_none()
                    {
                        cancel.cancel();
                        interrupted = Some(e);
                    }
                });
                if ended {
                    break;
                }
            }
            working.join().expect("the worker thread does not panic")
        });
        (done, interrupted)
    })
}

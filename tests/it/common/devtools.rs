//! A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
//! JSON messages ended by a NUL byte, read by the browser on fd 3 and written on fd 4), in
//! real time: for pages that keep a request open (an event stream), where `--dump-dom` with
//! a virtual-time budget waits for ever (virtual time stands still while a request is open).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// What a page showed: its self-test's JSON, the errors the browser's console received
/// (exceptions, `console.error`, and the browser's own errors: refused loads, failed
/// requests, CSP violations), and how many times the page was navigated to (a reload is one
/// more).
pub struct Seen {
    pub selftest: Value,
    pub console_errors: Vec<String>,
    pub navigations: usize,
}

/// A browser process and its pipes; killed (with its process group) when dropped.
struct Browser {
    child: Child,
    to: File,
    from: mpsc::Receiver<Value>,
    next_id: u64,
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

/// Two pipes' ends as raw fds: (read, write), close-on-exec.
fn pipe() -> (i32, i32) {
    let mut fds = [0i32; 2];
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    (fds[0], fds[1])
}

impl Browser {
    fn launch(program: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let (their_in, our_out) = pipe();
        let (our_in, their_out) = pipe();
        let mut command = Command::new(program);
        command
            .args([
                "--headless",
                "--disable-gpu",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        // In the child: the pipe's ends on fds 3 and 4, by way of fds above both (so that
        // one end already on 3 or 4 is not overwritten before it is moved); dup2 clears
        // close-on-exec on the copies. Only async-signal-safe calls.
        unsafe {
            command.pre_exec(move || {
                let a = libc::fcntl(their_in, libc::F_DUPFD, 10);
                let b = libc::fcntl(their_out, libc::F_DUPFD, 10);
                if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().unwrap();
        unsafe {
            libc::close(their_in);
            libc::close(their_out);
        }
        let to = unsafe { File::from_raw_fd(our_out) };
        let reader = unsafe { File::from_raw_fd(our_in) };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            let mut message = Vec::new();
            while reader.read_until(0, &mut message).is_ok_and(|n| n > 0) {
                message.pop_if(|b| *b == 0);
                if let Ok(value) = serde_json::from_slice(&message)
                    && tx.send(value).is_err()
                {
                    break;
                }
                message.clear();
            }
        });
        Browser {
            child,
            to,
            from: rx,
            next_id: 1,
            events: Vec::new(),
            _profile: profile,
        }
    }

    /// Sends `method` (to `session`, if any) and waits for its result; events that come
    /// meanwhile are kept.
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        self.to.write_all(&bytes).unwrap();
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let got = self
                .from
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer from the browser to {method}"));
            if got["id"] == id {
                assert!(got.get("error").is_none(), "{method}: {got}");
                return got["result"].clone();
            }
            self.events.push(got);
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self
            .to
            .write_all(b"{\"id\":0,\"method\":\"Browser.close\"}\0");
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// The console errors among the protocol's events.
fn console_errors(events: &[Value]) -> Vec<String> {
    let mut errors = Vec::new();
    for event in events {
        let params = &event["params"];
        match event["method"].as_str() {
            Some("Runtime.exceptionThrown") => errors.push(params["exceptionDetails"].to_string()),
            Some("Runtime.consoleAPICalled") if params["type"] == "error" => {
                errors.push(params["args"].to_string())
            }
            Some("Log.entryAdded") if params["entry"]["level"] == "error" => {
                errors.push(params["entry"].to_string())
            }
            _ => {}
        }
    }
    errors
}

/// Opens `url` in headless `program` and waits, in real time and at most `limit`, until the
/// page's self-test has written its `<pre id="selftest">`; the browser is closed (its
/// process group killed) on every path.
pub fn watch_selftest(program: &Path, url: &str, limit: Duration) -> Seen {
    let mut browser = Browser::launch(program);
    let target = browser.call(None, "Target.createTarget", json!({"url": "about:blank"}));
    let attached = browser.call(
        None,
        "Target.attachToTarget",
        json!({"targetId": target["targetId"], "flatten": true}),
    );
    let session = attached["sessionId"].as_str().unwrap().to_string();
    let session = Some(session.as_str());
    for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
        browser.call(session, domain, json!({}));
    }
    browser.events.clear();
    browser.call(session, "Page.navigate", json!({"url": url}));
    let until = Instant::now() + limit;
    let text = loop {
        let got = browser.call(
            session,
            "Runtime.evaluate",
            json!({
                "expression": "(function () { var e = document.getElementById('selftest'); return e ? e.textContent : ''; })()",
                "returnByValue": true,
            }),
        );
        let text = got["result"]["value"].as_str().unwrap_or("").to_string();
        if !text.is_empty() {
            break text;
        }
        assert!(
            Instant::now() < until,
            "no self-test from {url} within {limit:?}; console: {:?}",
            console_errors(&browser.events)
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    // Whatever the console received meanwhile (events come before later answers).
    browser.call(session, "Runtime.evaluate", json!({"expression": "1"}));
    let navigations = browser
        .events
        .iter()
        .filter(|e| {
            e["method"] == "Page.frameNavigated" && e["params"]["frame"]["parentId"].is_null()
        })
        .count();
    Seen {
        selftest: serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("self-test is not JSON ({e}): {text}")),
        console_errors: console_errors(&browser.events),
        navigations,
    }
}

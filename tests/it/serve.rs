//! The live page (`joute run --serve`, `joute serve DIR`): what it serves, what it refuses
//! (paths that climb, encoded paths, other methods, other hosts, malformed requests: the
//! corpus of issue #40's hostile-input campaign, each with its status), that clients which never
//! read slow neither the run nor other clients, that Ctrl-C stops the run (exit 130,
//! resumable) and the server with it, and — with a Chromium — that the page redraws itself
//! in a real browser as games finish, without a reload and without an error.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use crate::common::specs::spec;

/// Connect 4, four engines: 144 games that take a few seconds on one thread, so that a page
/// sees them arrive.
fn slow() -> String {
    spec("live", "connect4", 11, 4, 12)
        .engines(&["ab-2", "ab-4", "pvs-7", "mcts-300"])
        .text()
}

/// A joute process with a live server: the child, its URL's address, and its stderr lines.
struct Live {
    child: Child,
    addr: SocketAddr,
    stderr: mpsc::Receiver<String>,
}

impl Live {
    /// Starts `joute ARGS` and waits for the URL it prints.
    fn start(args: &[&str]) -> Live {
        let mut child = Process::new(common::bin())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let addr = loop {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    if let Some(url) = line.split("live page: http://").nth(1) {
                        break url.split('/').next().and_then(|a| a.parse().ok());
                    }
                }
                Err(_) => break None,
            }
        };
        let Some(addr) = addr else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no URL printed by joute {args:?}");
        };
        Live {
            child,
            addr,
            stderr: rx,
        }
    }

    /// Sends SIGINT (Ctrl-C) and waits; returns the exit code and the rest of stderr.
    fn interrupt(mut self) -> (Option<i32>, String) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let code = wait_for(&mut self.child, Duration::from_secs(60));
        (code, self.stderr.try_iter().collect::<Vec<_>>().join("\n"))
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `child` at most `limit`; its exit code (None: killed after the limit).
fn wait_for(child: &mut Child, limit: Duration) -> Option<i32> {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// An HTTP answer: status, headers (lower-case names), body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `request` as written (no client normalises its path) and reads the whole answer.
fn send(addr: SocketAddr, request: &str) -> Answer {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    // Read to the end of the body its Content-Length announces (or to the end of the stream):
    // a HEAD answer has the length and no body.
    let mut raw = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let text = String::from_utf8_lossy(&raw);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head.lines().find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse::<usize>().ok())?
            });
            let head_only = request.starts_with("HEAD ");
            if length.is_some_and(|n| head_only || body.len() >= n) {
                break;
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&chunk[..n]),
            Err(e) => panic!(
                "{request:?}: {e}; read so far: {:?}",
                String::from_utf8_lossy(&raw)
            ),
        }
    }
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

/// `METHOD path` for this server's own address.
fn request(addr: SocketAddr, method: &str, path: &str) -> Answer {
    send(
        addr,
        &format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    )
}

/// `joute run SPEC --out OUT --threads 1 --serve`: one thread, so that games come one by one.
fn served_run(spec: &Path, out: &Path) -> Vec<String> {
    let (spec, out) = (spec.display().to_string(), out.display().to_string());
    ["run", &spec, "--out", &out, "--threads", "1", "--serve"]
        .map(String::from)
        .to_vec()
}

/// Writes `text` as `dir/spec.toml`, runs it into `dir/out` with its live server, and waits
/// for the first game event: the run's folder, its arguments, the process and the event stream.
fn served_until_a_game(
    dir: &Path,
    text: &str,
) -> (PathBuf, Vec<String>, Live, BufReader<TcpStream>) {
    let spec = dir.join("spec.toml");
    std::fs::write(&spec, text).unwrap();
    let out = dir.join("out");
    let args = served_run(&spec, &out);
    let live = Live::start(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let mut stream = events(live.addr);
    assert!(
        wait_event(&mut stream, "game", Duration::from_secs(60)),
        "no game event"
    );
    (out, args, live, stream)
}

/// `/summary.json`, parsed.
fn summary(addr: SocketAddr) -> Value {
    let got = request(addr, "GET", "/summary.json");
    assert_eq!(got.status, 200, "{}", got.body);
    serde_json::from_str(&got.body).unwrap()
}

/// A finished run of `slow()` on 2 openings: 24 games.
fn finished_run(dir: &Path) -> PathBuf {
    common::run_spec(dir, &slow().replace("count = 12", "count = 2"))
}

#[test]
fn a_finished_run_is_served_read_only() {
    let dir = common::scratch("read-only");
    let out = finished_run(&dir);
    let live = Live::start(&["serve", out.to_str().unwrap()]);
    let addr = live.addr;

    // The page, marked live, closed to anything outside it.
    let page = request(addr, "GET", "/");
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert!(page.body.contains("<body data-live"), "not the live page");
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("connect-src 'self'"));
    assert_eq!(request(addr, "GET", "/index.html").body, page.body);

    // The summary is the object `joute report --json` prints for the same log, plus progress.
    let live_summary = summary(addr);
    let report = common::joute_json("report", &out.join("games.jsonl"), &dir.join("report"));
    assert_eq!(report["games"], 24);
    for key in ["name", "games", "ratings", "scale", "terminations"] {
        assert_eq!(live_summary[key], report[key], "{key}");
    }
    assert_eq!(live_summary["progress"]["logged"], 24);
    assert_eq!(live_summary["progress"]["scheduled"], 24);
    assert_eq!(live_summary["progress"]["playing"], false);

    // What it refuses, path by path, host by host, method by method:
    // `hostile_requests_get_their_statuses_and_nothing_outside_the_two_answers`.

    // Idle clients hold only their own connections: event streams nobody reads, page
    // requests whose answers are never read (on keep-alive connections), connections that
    // send nothing and requests never finished. Opened in bursts (a burst of connections once
    // left the next one queued behind them, unanswered), each burst followed by requests that
    // must all be answered at once.
    let mut idle = Vec::new();
    for burst in 0..4 {
        for path in ["/events", "/events", "/", "/", "/summary.json", "", "half"] {
            let mut s = TcpStream::connect(addr).unwrap();
            match path {
                "" => {}
                "half" => write!(s, "GET /summary.json HTTP/1.1\r\nHo").unwrap(),
                _ => write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap(),
            }
            idle.push(s);
        }
        for _ in 0..3 {
            let started = Instant::now();
            assert_eq!(request(addr, "GET", "/").status, 200, "burst {burst}");
            assert_eq!(summary(addr)["games"], 24, "burst {burst}");
            let took = started.elapsed();
            assert!(took < Duration::from_secs(5), "burst {burst}: {took:?}");
        }
    }

    // Ctrl-C stops it, idle clients or not, saying so: no game is played here.
    let (code, err) = live.interrupt();
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("interrupted: stopping the server"), "{err}");
    assert!(!err.contains("game"), "{err}");
    drop(idle);
}

/// What a request sent as raw bytes gets: its status (`None`: the connection closed without
/// an answer) and everything the server sent. With `close`, the client's side is closed after
/// the request (so that the server sees its end).
fn exchange(addr: SocketAddr, raw: &[u8], close: bool) -> (Option<u16>, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    // A server that answers before reading everything may close under the rest: not an error.
    let _ = stream.write_all(raw);
    if close {
        let _ = stream.shutdown(std::net::Shutdown::Write);
    }
    let mut got = Vec::new();
    let mut chunk = [0u8; 65536];
    while let Ok(n) = stream.read(&mut chunk)
        && n > 0
    {
        got.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok());
    assert!(
        status.is_some() || text.is_empty(),
        "not an answer: {text:?}"
    );
    (status, text)
}

/// The hostile-input campaign of issue #40, kept: every path, `Host`, method and malformed
/// request it tried gets the same status as then, and no answer carries anything but the page,
/// the summary or one of the server's own short messages — nothing of the run folder's files,
/// nothing of the machine's.
#[test]
fn hostile_requests_get_their_statuses_and_nothing_outside_the_two_answers() {
    let dir = common::scratch("hostile");
    let out = finished_run(&dir);
    let live = Live::start(&["serve", out.to_str().unwrap()]);
    let addr = live.addr;
    let page = request(addr, "GET", "/").body;
    let summary = request(addr, "GET", "/summary.json").body;
    assert!(page.contains("<body data-live") && summary.contains("\"progress\""));
    let run_json = std::fs::read_to_string(out.join("run.json")).unwrap();
    let first_game = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let first_game = first_game.lines().next().unwrap().to_string();

    // (what, raw request, close after it, expected status; None: closed without an answer)
    let mut cases: Vec<(String, Vec<u8>, bool, Option<u16>)> = Vec::new();
    let get = |target: &str| format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\n\r\n").into_bytes();

    // Paths: nothing names a file; only `/`, `/index.html`, `/summary.json` and `/events`
    // exist, matched whole once the query is cut.
    let paths: [(&str, u16); 46] = [
        ("/../run.json", 404),
        ("/../../etc/passwd", 404),
        ("/../../../../../../../../etc/passwd", 404),
        ("/%2e%2e/run.json", 404),
        ("/%2e%2e/%2e%2e/etc/passwd", 404),
        ("/%2E%2E/run.json", 404),
        ("/.%2e/run.json", 404),
        ("/%2e./run.json", 404),
        ("/%2e/run.json", 404),
        ("/..%2frun.json", 404),
        ("/..%2f..%2fetc%2fpasswd", 404),
        ("/%2f..%2f..%2fetc%2fpasswd", 404),
        ("/%2F..%2F..%2Fetc%2Fpasswd", 404),
        ("//etc/passwd", 404),
        ("///etc/passwd", 404),
        ("/..\\run.json", 404),
        ("/..%5crun.json", 404),
        ("/%5c..%5c..%5cetc%5cpasswd", 404),
        ("/C:\\Windows\\win.ini", 404),
        ("/run.json%00", 404),
        ("/run.json%00.html", 404),
        ("/index.html%00/../run.json", 404),
        ("/%00", 404),
        ("/%c0%ae%c0%ae/run.json", 404),
        ("/%c0%af..%c0%afrun.json", 404),
        ("/%e0%80%ae%e0%80%ae/run.json", 404),
        ("/%252e%252e/run.json", 404),
        ("/%252e%252e%252frun.json", 404),
        ("/..%252frun.json", 404),
        ("/run.json", 404),
        ("/games.jsonl", 404),
        ("/ratings.csv", 404),
        ("/elo.svg", 404),
        ("/.git/config", 404),
        ("/index.html/../run.json", 404),
        ("/summary.json/../run.json", 404),
        ("/events/../run.json", 404),
        ("/./index.html", 404),
        ("/index.html/", 404),
        ("/SUMMARY.JSON", 404),
        ("/summary.json;/../run.json", 404),
        ("/file:///etc/passwd", 404),
        ("*", 404),
        ("/?../run.json", 200),
        ("/index.html?file=../../etc/passwd", 200),
        ("/summary.json#/../run.json", 200),
    ];
    for (path, status) in paths {
        cases.push((format!("path {path}"), get(path), false, Some(status)));
    }

    // Host: on loopback, only the server's own address, by the names it has.
    let port = addr.port();
    let hosts: [(&str, String, u16); 16] = [
        ("none", String::new(), 400),
        ("other", "Host: evil.example\r\n".into(), 400),
        (
            "other, own port",
            format!("Host: evil.example:{port}\r\n"),
            400,
        ),
        ("empty", "Host: \r\n".into(), 400),
        ("userinfo", format!("Host: user@127.0.0.1:{port}\r\n"), 400),
        (
            "own then userinfo",
            format!("Host: 127.0.0.1:{port}@evil.example\r\n"),
            400,
        ),
        ("IPv6 loopback", format!("Host: [::1]:{port}\r\n"), 200),
        (
            "IPv6 long form",
            format!("Host: [0:0:0:0:0:0:0:1]:{port}\r\n"),
            400,
        ),
        (
            "IPv4-mapped",
            format!("Host: [::ffff:127.0.0.1]:{port}\r\n"),
            400,
        ),
        ("trailing dot", format!("Host: localhost.:{port}\r\n"), 400),
        ("uppercase", format!("Host: LOCALHOST:{port}\r\n"), 200),
        (
            "other port",
            format!("Host: 127.0.0.1:{}\r\n", port.wrapping_add(1)),
            400,
        ),
        ("no port", "Host: 127.0.0.1\r\n".into(), 400),
        ("short form", format!("Host: 127.1:{port}\r\n"), 400),
        ("with a path", format!("Host: 127.0.0.1:{port}/x\r\n"), 400),
        (
            "two, own first",
            format!("Host: 127.0.0.1:{port}\r\nHost: evil.example\r\n"),
            400,
        ),
    ];
    for (what, header, status) in hosts {
        let raw = format!("GET /summary.json HTTP/1.1\r\n{header}\r\n");
        cases.push((
            format!("host {what}"),
            raw.into_bytes(),
            false,
            Some(status),
        ));
    }

    // Methods: GET only (HEAD included: a 405, as every other).
    let long = "A".repeat(10_000);
    let methods = [
        "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "HEAD", "get", "BREW",
        &long,
    ];
    for method in methods {
        let raw =
            format!("{method} /summary.json HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n");
        let what = format!("method {}", &method[..method.len().min(12)]);
        cases.push((what, raw.into_bytes(), false, Some(405)));
    }

    // Malformed or oversized.
    let own = format!("Host: {addr}");
    let with = |rest: &str| format!("GET /summary.json HTTP/1.1\r\n{own}\r\n{rest}").into_bytes();
    let many: String = (0..100).map(|i| format!("X-{i}: {i}\r\n")).collect();
    let big = format!("X-Big: {}\r\n\r\n", "a".repeat(20_000));
    let second = format!("GET /run.json HTTP/1.1\r\n{own}\r\n\r\n");
    let smuggled =
        format!("Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n{second}");
    let tls = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n";
    let line = |line: &str| format!("{line}\r\n{own}\r\n\r\n").into_bytes();
    let malformed: [(&str, Vec<u8>, bool, Option<u16>); 21] = [
        (
            "no line end",
            b"GET /summary.json HTTP/1.1".to_vec(),
            true,
            None,
        ),
        ("cut in a header", with("X-A"), true, None),
        (
            "bare LF",
            format!("GET /summary.json HTTP/1.1\n{own}\n\n").into_bytes(),
            false,
            Some(200),
        ),
        (
            "bare CR",
            format!("GET / HTTP/1.1\r{own}\r\r").into_bytes(),
            false,
            Some(400),
        ),
        ("a 20 KB header", with(&big), false, Some(431)),
        (
            "100 headers",
            with(&format!("{many}\r\n")),
            false,
            Some(431),
        ),
        (
            "a 100 KB path",
            get(&format!("/{}", "a".repeat(100_000))),
            false,
            Some(431),
        ),
        (
            "HTTP/0.9",
            b"GET /summary.json\r\n\r\n".to_vec(),
            false,
            Some(400),
        ),
        (
            "HTTP/2 preface",
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec(),
            false,
            Some(400),
        ),
        (
            "lower-case version",
            line("GET / http/1.1"),
            false,
            Some(400),
        ),
        (
            "HTTP/1.0 without Host",
            b"GET / HTTP/1.0\r\n\r\n".to_vec(),
            false,
            Some(400),
        ),
        (
            "absolute form",
            line(&format!("GET http://{addr}/ HTTP/1.1")),
            false,
            Some(404),
        ),
        ("NUL in the path", get("/\0run.json"), false, Some(400)),
        (
            "tabs for spaces",
            line("GET\t/summary.json\tHTTP/1.1"),
            false,
            Some(400),
        ),
        (
            "header without a colon",
            with("X-A b\r\n\r\n"),
            false,
            Some(400),
        ),
        (
            "folded header",
            with("X-A: b\r\n c\r\n\r\n"),
            false,
            Some(400),
        ),
        ("not HTTP (TLS)", tls.to_vec(), false, Some(400)),
        ("chunked and a length", with(&smuggled), false, Some(200)),
        (
            "a body on GET",
            with("Content-Length: 5\r\n\r\nhello"),
            false,
            Some(200),
        ),
        (
            "two requests at once",
            with(&format!("\r\n{second}")),
            false,
            Some(200),
        ),
        (
            "not UTF-8 in the path",
            [
                &b"GET /\xff\xfe HTTP/1.1\r\n"[..],
                own.as_bytes(),
                b"\r\n\r\n",
            ]
            .concat(),
            false,
            Some(400),
        ),
    ];
    cases.extend(
        malformed
            .into_iter()
            .map(|(w, r, c, s)| (format!("malformed: {w}"), r, c, s)),
    );
    assert_eq!(cases.len(), 46 + 16 + 11 + 21);

    let mut wrong = Vec::new();
    for (what, raw, close, expected) in &cases {
        let (status, text) = exchange(addr, raw, *close);
        if status != *expected {
            wrong.push(format!("{what}: {status:?}, not {expected:?}"));
            continue;
        }
        // One answer per connection: a second request in the same bytes is never answered.
        assert!(text.matches("HTTP/1.1 ").count() <= 1, "{what}: {text}");
        let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body);
        match status {
            Some(200) => assert!(body == page || body == summary, "{what}: {body}"),
            _ => assert!(
                body.len() < 100
                    && !body.contains(&run_json)
                    && !body.contains(&first_game)
                    && !body.contains("root:"),
                "{what}: {body}"
            ),
        }
        if *expected == Some(405) {
            assert!(text.contains("\r\nAllow: GET\r\n"), "{what}: {text}");
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(live.interrupt().0, Some(0));
}

#[test]
fn serve_refuses_a_folder_that_holds_no_run() {
    let dir = common::scratch("no-run");
    let out = assert_cmd::Command::cargo_bin("joute")
        .unwrap()
        .args(["serve", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a run folder"), "{err}");
    let out = assert_cmd::Command::cargo_bin("joute")
        .unwrap()
        .args(["run", "--serve", "nowhere.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("put the spec before --serve"), "{err}");
}

/// Reads an event stream until `event: NAME` or the limit; whether it came.
fn wait_event(stream: &mut BufReader<TcpStream>, name: &str, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    let mut line = String::new();
    while Instant::now() < until {
        line.clear();
        match stream.read_line(&mut line) {
            Ok(0) => return false,
            Ok(_) if line.trim_end() == format!("event: {name}") => return true,
            Ok(_) => {}
            Err(_) => {}
        }
    }
    false
}

fn events(addr: SocketAddr) -> BufReader<TcpStream> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    write!(s, "GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    BufReader::new(s)
}

/// Ctrl-C: the run stops as interrupted (exit 130), and its server with it, after telling the
/// page listening on `stream` that the run ended.
fn interrupt_with_its_server(live: Live, stream: &mut BufReader<TcpStream>) {
    let addr = live.addr;
    let (code, err) = live.interrupt();
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(
        wait_event(stream, "end", Duration::from_secs(5)),
        "no end event"
    );
    assert!(
        TcpStream::connect(addr).is_err(),
        "the server outlived the run"
    );
}

#[test]
fn ctrl_c_stops_the_run_and_its_server_and_the_run_resumes() {
    let dir = common::scratch("ctrl-c");
    let (out, args, live, mut stream) = served_until_a_game(&dir, &slow());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let addr = live.addr;
    // A client that never reads its stream does not hold the run up.
    let mut deaf = TcpStream::connect(addr).unwrap();
    write!(deaf, "GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let first = summary(addr);
    assert_eq!(first["progress"]["playing"], true);
    assert_eq!(first["progress"]["scheduled"], 144);
    interrupt_with_its_server(live, &mut stream);
    assert!(common::lines_in(&out.join("games.jsonl")) < 144);
    // Resumable as any interrupted run.
    let mut resume = args[..6].to_vec();
    resume.extend(["--resume", "--quiet"]);
    common::joute_ok(&resume);
    assert_eq!(common::lines_in(&out.join("games.jsonl")), 144);
    drop(deaf);
}

/// While a run plays, its live page gives a rate from the first game logged and the time so
/// far (it read "21 games in -0.0 s" and `games_per_second: null` for the first seconds).
#[test]
fn a_live_page_times_the_run_from_its_first_game() {
    let dir = common::scratch("live-timing");
    // 20 ms a move: a game takes about half a second, so the run is still playing when asked.
    let (_, _, live, _events) =
        served_until_a_game(&dir, &slow().replace("depth = 4", "time = \"20ms\""));
    let addr = live.addr;
    let now = summary(addr);
    assert_eq!(now["progress"]["playing"], true, "{now}");
    let rate = now["progress"]["games_per_second"].as_f64();
    assert!(rate.is_some_and(|r| r > 0.0), "{now}");
    let page = request(addr, "GET", "/").body;
    let timing = &page[page.find("id=\"timing\"").unwrap()..];
    let timing = &timing[..timing.find("</td>").unwrap()];
    assert!(
        !timing.contains("-0") && timing.contains(" s on "),
        "{timing}"
    );
    let (code, err) = live.interrupt();
    assert_eq!(code, Some(130), "{err}");
}

/// Opens the page served at `addr` in headless Chromium, in real time (driven over its DevTools
/// pipe), with the self-test `#test=TEST`, and returns the self-test's report once the page
/// wrote it (within `limit`), checked to have run without an error, in the browser's console
/// or its own, and without a reload.
fn in_browser(addr: SocketAddr, test: &str, limit: Duration) -> Value {
    in_browser_at(addr, "/", test, limit)
}

/// [`in_browser`] on the page at `path` (`/?view=ratings`).
fn in_browser_at(addr: SocketAddr, path: &str, test: &str, limit: Duration) -> Value {
    let browser =
        common::browser().expect("no chromium, chromium-browser or google-chrome on PATH");
    let url = format!("http://{addr}{path}#test={test}");
    let seen = common::devtools::watch_selftest(&browser, &url, limit);
    let test = &seen.selftest;
    assert_eq!(test["ok"], true, "{test}");
    assert_eq!(test["errors"], serde_json::json!([]), "{test}");
    assert_eq!(seen.console_errors, Vec::<String>::new(), "{test}");
    assert_eq!(seen.navigations, 1, "the page reloaded: {test}");
    seen.selftest
}

#[test]
#[ignore = "needs a headless Chromium (Debian: apt-get install chromium); run it with: cargo test --test it serve:: -- --include-ignored"]
fn the_live_page_redraws_itself_in_a_browser() {
    let dir = common::scratch("browser");
    let spec = dir.join("spec.toml");
    // 480 longer games: the page redraws itself while they are played (about 10 s in the
    // test profile on one thread).
    let slower = slow()
        .replace("count = 12", "count = 40")
        .replace("playouts = 300", "playouts = 3000");
    std::fs::write(&spec, slower).unwrap();
    let out = dir.join("out");
    let args = served_run(&spec, &out);
    let mut live = Live::start(&args.iter().map(String::as_str).collect::<Vec<_>>());
    // In real time (the browser driven over its DevTools pipe): the page redraws itself three
    // times, at most once a second, as games finish.
    let test = &in_browser(live.addr, "live:3", Duration::from_secs(120));
    let counts: Vec<u64> = test["live"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert!(counts.len() >= 3, "{test}");
    assert!(
        counts.windows(2).all(|w| w[0] <= w[1]) && counts[0] < counts[counts.len() - 1],
        "the game count did not grow: {test}"
    );
    assert!(
        counts[counts.len() - 1] < 480,
        "the run ended before the page redrew itself: {test}"
    );
    // The rating table was drawn again with other numbers, and the viewer has the new games:
    // at least those the summary counted a redraw earlier (a redraw fetches the summary and
    // the page side by side, so the page may be a little older than the summary beside it).
    let tables = test["live"]["tables"].as_array().unwrap();
    assert_ne!(tables[0], tables[tables.len() - 1], "{test}");
    // The cost table redraws with the ratings: each engine's nodes and time per move as the
    // games come in.
    let costs = test["live"]["costs"].as_array().unwrap();
    assert_eq!(costs.len(), tables.len(), "{test}");
    assert_ne!(costs[0], costs[costs.len() - 1], "{test}");
    assert!(
        !costs[costs.len() - 1].as_str().unwrap().is_empty(),
        "{test}"
    );
    let games_drawn = test["games"].as_u64().unwrap();
    assert!(
        games_drawn >= counts[counts.len() - 2] && games_drawn > counts[0],
        "{test}"
    );
    assert_eq!(wait_for(&mut live.child, Duration::from_secs(300)), Some(0));

    // The same page for the finished run: drawn once from the server, its stream left open
    // (the run is over; nothing more will come).
    let done = Live::start(&["serve", out.to_str().unwrap()]);
    let test = &in_browser(done.addr, "live:1", Duration::from_secs(60));
    assert_eq!(test["games"], 480, "{test}");
    assert_eq!(test["live"]["counts"], serde_json::json!([480]), "{test}");
    assert_eq!(test["projector"], false, "{test}");
    // Its projector view: still the projector view once redrawn, the ratings and the progress
    // shown, the rest hidden.
    let test = &in_browser_at(
        done.addr,
        "/?view=ratings",
        "live:1",
        Duration::from_secs(60),
    );
    assert_eq!(test["live"]["redraws"], 1, "{test}");
    assert_eq!(test["projector"], true, "{test}");
    assert_eq!(test["progress"], "480 of 480 games played", "{test}");
    for (id, shown) in [
        ("ratings-section", true),
        ("progress-section", true),
        ("spec", false),
        ("charts", false),
    ] {
        assert_eq!(test["shown"][id], shown, "{id}: {test}");
    }
    assert_eq!(done.interrupt().0, Some(0));
}

/// A Connect 4 hill climb of `candidates` candidates of 4 opening pairs each at `depth`, and
/// small matches (at depth 8, about 0.2 s a candidate on one thread in the test profile, on the
/// shared 2-core machine; at depth 6, 0.05 s).
fn tune_spec(dir: &Path, candidates: u64, depth: u32) -> PathBuf {
    let budget = format!("iterations = {candidates}");
    let text = common::tune_spec_text(dir, "hill-climb", &budget, "\n[hill]\npairs = 4\n")
        .replace("depth = 2", &format!("depth = {depth}"))
        .replace("games = 200\naa_games = 40", "games = 40\naa_games = 20");
    let path = dir.join("tune.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `joute tune SPEC --out OUT --threads 1 --serve`.
fn served_tune(spec: &Path, out: &Path) -> Vec<String> {
    let (spec, out) = (spec.display().to_string(), out.display().to_string());
    ["tune", &spec, "--out", &out, "--threads", "1", "--serve"]
        .map(String::from)
        .to_vec()
}

/// Candidates in a tuning summary's history.
fn candidates(summary: &Value) -> usize {
    summary["history"].as_array().unwrap().len()
}

#[test]
fn a_tuning_run_is_served_live_stopped_by_ctrl_c_and_served_finished() {
    let dir = common::scratch("tune");
    let spec = tune_spec(&dir, 400, 6);
    let out = dir.join("out");
    let args = served_tune(&spec, &out);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let live = Live::start(&args);
    let addr = live.addr;
    let mut stream = events(addr);

    // The record as it is now (from the start, before any checkpoint is written), then
    // growing: each change said on the stream.
    let first = summary(addr);
    assert_eq!(first["name"], "t");
    assert_eq!(first["method"], "hill-climb");
    assert_eq!(first["confirmation"], Value::Null);
    assert_eq!(first["progress"]["stage"], "tuning");
    assert_eq!(first["progress"]["iterations"], 400);
    let mut seen = vec![candidates(&first)];
    while seen.len() < 4 {
        assert!(
            wait_event(&mut stream, "change", Duration::from_secs(60)),
            "no change event; candidates seen: {seen:?}"
        );
        let now = summary(addr);
        assert_eq!(now["progress"]["playing"], true, "{}", now["progress"]);
        // The history and the current weights agree with the progress.
        let n = candidates(&now);
        assert_eq!(now["progress"]["candidates"], n as u64);
        if n > 0 {
            assert_eq!(now["tuned"], now["history"][n - 1]["theta"]);
            assert_eq!(now["progress"]["tuning_games"], now["games"]);
        }
        seen.push(n);
    }
    assert!(
        seen.windows(2).all(|w| w[0] <= w[1]) && seen[0] < seen[3],
        "the history did not grow: {seen:?}"
    );

    // The tuning page, live, its weights the current ones; nothing else is served.
    let page = request(addr, "GET", "/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<body data-live"), "not the live page");
    assert!(
        page.body.contains("<h2>Current weights (after "),
        "{}",
        page.body
    );
    assert!(page.body.contains("id=\"tune-weights\"") || page.body.contains("tune-weights"));
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("default-src 'none'"));
    for path in [
        "/checkpoint.json",
        "/history.jsonl",
        "/tune.toml",
        "/../checkpoint.json",
        "/%2e%2e/tune.toml",
        "/confirm/games.jsonl",
    ] {
        let got = request(addr, "GET", path);
        assert_eq!(got.status, 404, "{path}");
        assert!(!got.body.contains("spec_hash"), "{path}");
    }
    assert_eq!(request(addr, "POST", "/summary.json").status, 405);

    // Ctrl-C stops the run (resumable, exit 130) and the server with it.
    interrupt_with_its_server(live, &mut stream);
    let tuned = common::history(&out).len();
    assert!(tuned < 400, "{tuned}");

    // Resumed to a shorter end (the budget cut), then served by `joute serve`: the record the
    // run wrote, confirmation and A/A match included.
    let mut resume = args[..6].to_vec();
    let budget = format!("{}", (tuned as u64 + 2) * 8 + 60);
    resume.extend(["--resume", "--quiet", "--budget", &budget]);
    common::joute_ok(&resume);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let done = Live::start(&["serve", out.to_str().unwrap()]);
    let last = summary(done.addr);
    assert_eq!(last["progress"]["stage"], "finished");
    assert_eq!(last["progress"]["playing"], false);
    for key in ["games", "seconds", "confirmation", "weights_file"] {
        assert_eq!(last[key], written[key], "{key}");
    }
    assert_eq!(last["aa"]["games"], written["aa"]["games"]);
    assert_eq!(last["aa_check"], written["aa"]["check"]);
    assert_eq!(
        candidates(&last) as u64,
        written["candidates"].as_u64().unwrap()
    );
    let tuned: Vec<&Value> = written["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["tuned"])
        .collect();
    assert_eq!(
        last["tuned"].as_array().unwrap().iter().collect::<Vec<_>>(),
        tuned
    );
    let page = request(done.addr, "GET", "/").body;
    assert!(page.contains("<h2>Final weights</h2>"), "{page}");
    assert!(page.contains("class=\"verdict "), "no confirmation verdict");
    // The page on disk is the same report, not live.
    let on_disk = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!on_disk.contains("data-live") && !on_disk.contains("<script"));
    assert_eq!(done.interrupt().0, Some(0));
}

#[test]
#[ignore = "needs a headless Chromium (Debian: apt-get install chromium); run it with: cargo test --test it serve:: -- --include-ignored"]
fn the_live_tuning_page_redraws_itself_in_a_browser_to_the_end() {
    let dir = common::scratch("tune-browser");
    let spec = tune_spec(&dir, 40, 8);
    let out = dir.join("out");
    let args = served_tune(&spec, &out);
    let mut live = Live::start(&args.iter().map(String::as_str).collect::<Vec<_>>());
    // In real time, to the run's end: the page redraws itself as candidates finish (at most
    // once a second), then once more when the server says the run ended.
    let test = &in_browser(live.addr, "live:100000", Duration::from_secs(240));
    let run = &test["live"];
    assert_eq!(run["final"], true, "{test}");
    let counts: Vec<u64> = (run["candidates"].as_array().unwrap().iter())
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert!(counts.len() >= 3, "{test}");
    assert!(
        counts.windows(2).all(|w| w[0] <= w[1]) && counts[0] < 40,
        "{test}"
    );
    assert_eq!(counts[counts.len() - 1], 40, "{test}");
    // The history table and the charts were drawn again with more in them.
    let rows = run["histories"].as_array().unwrap();
    assert!(rows[0].as_u64() < rows[rows.len() - 1].as_u64(), "{test}");
    let charts = run["charts"].as_array().unwrap();
    assert_ne!(charts[0], charts[charts.len() - 1], "{test}");
    // The last redraw is the finished run's page: confirmed, its weights final.
    assert_eq!(run["stages"][counts.len() - 1], "finished", "{test}");
    assert_eq!(test["confirmed"], true, "{test}");
    assert_eq!(test["heading"], "Final weights", "{test}");
    assert_eq!(wait_for(&mut live.child, Duration::from_secs(60)), Some(0));

    // The same page for the finished run, from `joute serve`.
    let done = Live::start(&["serve", out.to_str().unwrap()]);
    let test = &in_browser(done.addr, "live:1", Duration::from_secs(60));
    assert_eq!(
        test["live"]["candidates"],
        serde_json::json!([40]),
        "{test}"
    );
    assert_eq!(test["confirmed"], true, "{test}");
    assert_eq!(done.interrupt().0, Some(0));
}

#[test]
fn serve_on_every_interface_prints_a_url_that_opens() {
    let dir = common::scratch("wildcard");
    let out = finished_run(&dir);
    let live = Live::start(&["serve", out.to_str().unwrap(), "--addr", "0.0.0.0:0"]);
    assert!(live.addr.ip().is_loopback(), "live page: {}", live.addr);
    let note = live.stderr.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(note.contains("listening on every interface"), "{note}");
    // Then the machine's other addresses with the port, each a URL that parses and is not
    // loopback; or, on a machine with none, the port to use with one.
    let port = live.addr.port();
    let urls: Vec<&str> = note
        .split_whitespace()
        .filter(|w| w.starts_with("http://"))
        .collect();
    if urls.is_empty() {
        assert!(note.contains(&format!("port {port}")), "{note}");
    }
    for url in urls {
        let addr: std::net::SocketAddr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap_or_else(|e| panic!("{url} in '{note}': {e}"));
        assert!(!addr.ip().is_loopback(), "{note}");
        assert_eq!(addr.port(), port, "{note}");
    }
    assert_eq!(request(live.addr, "GET", "/summary.json").status, 200);
    assert_eq!(live.interrupt().0, Some(0));
}

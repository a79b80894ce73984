//! A live window on a run: a small read-only HTTP server over one run folder (or the folders of
//! its shards), for `joute run --serve`, `joute match --serve` and `joute serve DIR…`, or over
//! a tuning run's folder ([`tune`]: `joute tune --serve`, `joute serve` on its folder).
//!
//! It serves three things and nothing else, all read from the folders' `run.json` and games
//! logs as they are now (so it follows a run played by this process or another one; a tuning
//! run's page and record are read from its checkpoint, history and matches alike):
//!
//! - `GET /` (or `/index.html`): the run's report page ([`crate::report::html::render`], the
//!   same page `index.html` is, with its charts inline), marked live: its script listens to
//!   `/events` and redraws its tables and games from `/summary.json` and the page itself.
//! - `GET /summary.json`: the object `joute run --json` prints (with `games`), plus `progress`:
//!   games logged and scheduled, whether a run is writing the log now, games per second since
//!   the server started, and the ETA. A tuning run: its record (`TuneRecord`), plus its own
//!   `progress` (stage, candidates, games against the plan, rate, ETA).
//! - `GET /events`: server-sent events: `game` when the logs grew (a tuning run: `change` when
//!   its files changed), `end` when the server stops.
//!
//! No URL reaches the file system: paths are matched whole against these three (anything
//! else, `/../etc/passwd` or `/%2e%2e/` alike, is a 404), only `GET` is answered (405
//! otherwise), and on a loopback address a request must name that address in its one `Host`
//! header (400 otherwise), so that a web page elsewhere cannot read the run through a
//! rebound DNS name. The page asks for nothing outside itself, and says so in its
//! Content-Security-Policy.
//!
//! The run is never slowed by its viewers beyond one rebuild at a time: the page and the
//! summary are built once per change of the logs, shared by every client, and rebuilt at most
//! once per [`MIN_REBUILD`] or four times the last build's cost, whichever is longer. Each
//! connection is answered on its own thread and closed after one answer, with timeouts on its
//! reads and writes and a cap on connections and event streams (503 past them, the former
//! without waiting for the request): see [`http`] and [`Limits`]. A client that never reads,
//! or never finishes its request, holds only its own thread, and that for a bounded time.

mod http;
mod tune;

pub use http::Limits;
pub use tune::{TuneFolder, is_tune_folder};

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::arena::log::ReadLock;
use crate::report::html;
use crate::report::load::summarize_logs;
use crate::report::run::{page_timing, summary_json};
use crate::report::{charts, table};

/// The shortest time between two rebuilds of the page and summary.
pub const MIN_REBUILD: Duration = Duration::from_millis(500);
/// How often the logs are looked at for new games.
const WATCH_EVERY: Duration = Duration::from_millis(200);
/// A comment on an idle event stream this often, so that a dead client is noticed (and
/// proxies keep the stream open).
const KEEPALIVE: Duration = Duration::from_secs(15);
/// How often an idle event stream looks whether its client closed the connection, so that a
/// page closed gives its stream's place back soon.
const LOOK_EVERY: Duration = Duration::from_secs(1);
/// How long a connection refused past the cap is kept after its 503, for its client to send
/// its request and close: what it sends is read and dropped, so that closing does not reset
/// the connection under the answer.
const REFUSED_KEPT: Duration = Duration::from_secs(1);
/// Refused connections kept at once (each an open file); past them one is closed right after
/// its 503.
const REFUSED_HELD: usize = 256;
/// How often the refused connections kept are read.
const REFUSED_LOOK: Duration = Duration::from_millis(50);
/// How long [`LiveServer::stop`] keeps answering after telling the pages the run ended, so
/// that they can fetch its last state.
const LINGER: Duration = Duration::from_millis(3000);
/// How long it waits before it looks whether those fetches are done: a page on a loaded
/// machine may take most of a second to hear the end and ask (at 300 ms, a browser test saw
/// the server gone before the page's last fetch, under a load of 4 on 2 cores).
const FIRST_LOOK: Duration = Duration::from_millis(1000);

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("--serve {addr}: cannot listen there: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
    /// A folder is not a run's.
    #[error("{0}")]
    Folder(String),
    /// A thread of the server could not be started.
    #[error("cannot start the live server: {0}")]
    Start(String),
}

/// A running live server; [`LiveServer::stop`] (or dropping it) ends it.
pub struct LiveServer {
    addr: SocketAddr,
    /// [`LiveServer::urls_elsewhere`].
    elsewhere: Vec<String>,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

/// What a server shows.
#[derive(Clone, Debug)]
pub enum Source {
    /// A tournament run: its games logs (one run's, or its shards').
    Run(Vec<PathBuf>),
    /// A tuning run's folder.
    Tune(Box<TuneFolder>),
}

impl Source {
    /// What grows or changes as the run goes on: the logs' lengths, or the tuning files'.
    fn key(&self) -> Vec<u64> {
        match self {
            Source::Run(logs) => sizes(logs),
            Source::Tune(folder) => folder.key(),
        }
    }

    /// The event that says the page may have changed.
    fn event(&self) -> &'static str {
        match self {
            Source::Run(_) => "game",
            Source::Tune(_) => "change",
        }
    }
}

/// What the connection threads share.
struct Shared {
    source: Source,
    /// The `Host` values accepted (loopback only; empty: any).
    hosts: Vec<String>,
    limits: Limits,
    bell: Mutex<Bell>,
    rang: Condvar,
    view: Mutex<Option<View>>,
    /// Connections open, event streams included.
    connections: AtomicUsize,
    streams: AtomicUsize,
    stopping: AtomicBool,
    /// Games logged when the server first looked, and when: the rate's origin.
    origin: Mutex<Option<(Instant, u64)>>,
}

/// What the watcher saw last.
#[derive(Clone, Copy, Debug, Default)]
struct Bell {
    /// Rises each time the logs grow.
    generation: u64,
    /// The server is stopping.
    ended: bool,
}

/// The page and summary of the logs at one size.
struct View {
    key: Vec<u64>,
    built: Instant,
    cost: Duration,
    page: Arc<String>,
    summary: Arc<String>,
}

/// What `joute serve DIR…` shows: a tuning run's folder, or run folders (one run, or its
/// shards) by their games logs, each checked to be there with the `run.json` beside it.
pub fn source_of(dirs: &[PathBuf]) -> Result<Source, ServeError> {
    if dirs.is_empty() {
        return Err(ServeError::Folder("no run folder given".into()));
    }
    if let [dir] = dirs
        && is_tune_folder(dir)
    {
        return Ok(Source::Tune(Box::new(TuneFolder {
            dir: dir.clone(),
            start: None,
        })));
    }
    dirs.iter()
        .map(|dir| {
            let (dir, log) = if dir.is_file() {
                (
                    dir.parent().unwrap_or(Path::new(".")).to_path_buf(),
                    dir.clone(),
                )
            } else {
                (dir.clone(), dir.join("games.jsonl"))
            };
            if !dir.join("run.json").is_file() || !log.is_file() {
                return Err(ServeError::Folder(format!(
                    "{}: not a run folder (no run.json and games.jsonl in it, nor a tuning run's checkpoint.json)",
                    dir.display()
                )));
            }
            Ok(log)
        })
        .collect::<Result<_, _>>()
        .map(Source::Run)
}

/// Whether `addr` is reachable from this machine only: a loopback address, IPv4 or IPv6, or
/// an IPv4 loopback address written as IPv6 (`[::ffff:127.0.0.1]`).
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().to_canonical().is_loopback()
}

impl LiveServer {
    /// Starts serving `source` on `addr` (port 0: a free one).
    pub fn start(addr: SocketAddr, source: Source) -> Result<LiveServer, ServeError> {
        LiveServer::start_with(addr, source, Limits::default())
    }

    /// [`LiveServer::start`] with other limits on connections.
    pub fn start_with(
        addr: SocketAddr,
        source: Source,
        limits: Limits,
    ) -> Result<LiveServer, ServeError> {
        let (listener, bound) =
            http::bind(addr).map_err(|source| ServeError::Bind { addr, source })?;
        let elsewhere = http::reachable_urls(
            bound,
            http::dual_stack(&listener),
            &http::interface_addresses(),
        );
        let hosts = if is_loopback(&bound) {
            let port = bound.port();
            vec![
                bound.to_string(),
                format!("localhost:{port}"),
                format!("127.0.0.1:{port}"),
                format!("[::1]:{port}"),
            ]
        } else {
            Vec::new()
        };
        let shared = Arc::new(Shared {
            source,
            hosts,
            limits,
            bell: Mutex::new(Bell::default()),
            rang: Condvar::new(),
            view: Mutex::new(None),
            connections: AtomicUsize::new(0),
            streams: AtomicUsize::new(0),
            stopping: AtomicBool::new(false),
            origin: Mutex::new(None),
        });
        let accept = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("joute-serve".into())
                .spawn(move || accept(&listener, &shared))
                .map_err(|e| ServeError::Start(e.to_string()))?
        };
        let watch = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("joute-watch".into())
                .spawn(move || watch(&shared))
                .map_err(|e| ServeError::Start(e.to_string()))?
        };
        Ok(LiveServer {
            addr: bound,
            elsewhere,
            shared,
            threads: vec![accept, watch],
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL on this machine: on a wildcard address (see
    /// [`LiveServer::on_every_interface`]) its loopback one, since `http://0.0.0.0:PORT/` is
    /// not an address a browser can open.
    pub fn url(&self) -> String {
        format!("http://{}/", http::local_address(self.addr))
    }

    /// On a wildcard address, the page's URLs through this machine's other addresses (its
    /// interfaces' when the server started, loopback and IPv6 link-local left out), for other
    /// machines; empty otherwise, or when the system lists none.
    pub fn urls_elsewhere(&self) -> &[String] {
        &self.elsewhere
    }

    /// Whether it listens on every interface of the machine (a wildcard address).
    pub fn on_every_interface(&self) -> bool {
        self.addr.ip().is_unspecified()
    }

    /// Tells the pages the run ended, answers their last requests for a moment, and stops.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if self.threads.is_empty() {
            return;
        }
        let watching = self.shared.streams.load(Ordering::SeqCst) > 0;
        if let Ok(mut bell) = self.shared.bell.lock() {
            bell.ended = true;
        }
        self.shared.rang.notify_all();
        if watching {
            // The pages fetch the final state once they hear `end`.
            let until = Instant::now() + LINGER;
            std::thread::sleep(FIRST_LOOK);
            while Instant::now() < until
                && self.shared.connections.load(Ordering::SeqCst)
                    > self.shared.streams.load(Ordering::SeqCst)
            {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        self.shared.stopping.store(true, Ordering::SeqCst);
        let mut threads = std::mem::take(&mut self.threads);
        // The accept loop sees the flag on its next connection: this one. Should it not come
        // through, the thread is left behind (it serves nothing more: the flag is up).
        let accept = threads.remove(0);
        if http::wake(self.addr) {
            let _ = accept.join();
        }
        for thread in threads {
            let _ = thread.join();
        }
    }
}

impl Drop for LiveServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The accept loop: each connection on its own thread, counted (a 503 past the limit), until
/// the server stops; the listener is closed when it returns. Refused connections are kept by a
/// thread of their own ([`keep_refused`]), which this one waits for.
fn accept(listener: &TcpListener, shared: &Arc<Shared>) {
    let held = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let (to_keep, kept) = mpsc::channel();
        let keeper = std::thread::Builder::new()
            .name("joute-refused".into())
            .spawn_scoped(scope, || keep_refused(kept, &held));
        // Without that thread, a refused connection is closed right after its 503.
        let refused = Refused {
            keeper: keeper.is_ok().then_some(to_keep),
            held: &held,
        };
        accept_loop(listener, shared, refused);
    });
}

/// Where the accept loop puts the connections it refuses.
struct Refused<'a> {
    /// To the thread that keeps them until their clients close.
    keeper: Option<mpsc::Sender<TcpStream>>,
    /// Connections that thread holds.
    held: &'a AtomicUsize,
}

/// Accepts connections until the server stops: see [`accept`].
fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>, refused: Refused) {
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            break;
        }
        let stream = match stream {
            Ok(stream) => stream,
            Err(_) => {
                // Out of file descriptors, or the client left before it was accepted.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        if http::prepare(&stream, &shared.limits).is_err() {
            continue;
        }
        if shared.connections.fetch_add(1, Ordering::SeqCst) >= shared.limits.connections {
            shared.connections.fetch_sub(1, Ordering::SeqCst);
            refuse(stream, "too many connections at once", &refused);
            continue;
        }
        let mine = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("joute-request".into())
            .spawn(move || {
                connection(&mine, stream);
                mine.connections.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            // No thread to spare: the connection is dropped (closed).
            shared.connections.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// A 503 past the connection cap, sent without waiting for the request: the accepting thread
/// never waits on a client (waiting 100 ms for each request once served 400 refusals one by one,
/// in 5 s). The answer goes into the fresh socket's empty buffer, without blocking; the
/// connection is then handed to [`keep_refused`], which reads what the client sends until it
/// closes, so that the close does not reset the connection under the answer.
fn refuse(stream: TcpStream, why: &str, refused: &Refused) {
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    let body = format!("{why}\n");
    let head = http::head(
        503,
        &[("Content-Type", "text/plain; charset=utf-8")],
        Some(body.len()),
    );
    let _ = (&stream).write_all(format!("{head}{body}").as_bytes());
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let Some(keeper) = &refused.keeper else {
        return;
    };
    if drained(&stream) {
        return;
    }
    // Past REFUSED_HELD (or should the keeper be gone), closed here and now.
    if refused.held.fetch_add(1, Ordering::SeqCst) >= REFUSED_HELD || keeper.send(stream).is_err() {
        refused.held.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Reads what a non-blocking `stream` holds, up to 64 KB, and drops it; whether the stream is
/// done with (its client closed it, it broke, or it sent too much).
fn drained(stream: &TcpStream) -> bool {
    let (mut reader, mut sink, mut taken) = (stream, [0u8; 4096], 0);
    loop {
        match reader.read(&mut sink) {
            Ok(0) => return true,
            Ok(n) if taken + n > 64 * 1024 => return true,
            Ok(n) => taken += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return e.kind() != std::io::ErrorKind::WouldBlock,
        }
    }
}

/// Keeps refused connections (their 503 sent) until their clients close them or
/// [`REFUSED_KEPT`] has passed, reading and dropping what they send; a look every
/// [`REFUSED_LOOK`], never blocking on a client. Ends, closing those it holds, when the
/// accept loop ends.
fn keep_refused(incoming: mpsc::Receiver<TcpStream>, held: &AtomicUsize) {
    let mut kept: Vec<(TcpStream, Instant)> = Vec::new();
    let mut looked = Instant::now();
    loop {
        let next = if kept.is_empty() {
            incoming
                .recv()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected)
        } else {
            incoming.recv_timeout(REFUSED_LOOK.saturating_sub(looked.elapsed()))
        };
        match next {
            Ok(stream) => kept.push((stream, Instant::now() + REFUSED_KEPT)),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        // Looked at together, not at each arrival (hundreds may come at once).
        if looked.elapsed() >= REFUSED_LOOK {
            looked = Instant::now();
            let before = kept.len();
            kept.retain(|(stream, until)| looked < *until && !drained(stream));
            held.fetch_sub(before - kept.len(), Ordering::SeqCst);
        }
    }
    held.fetch_sub(kept.len(), Ordering::SeqCst);
}

/// Rings the bell when a log grows, until the server stops.
fn watch(shared: &Shared) {
    let mut last = shared.source.key();
    while !shared.stopping.load(Ordering::SeqCst) {
        std::thread::sleep(WATCH_EVERY);
        let now = shared.source.key();
        if now != last {
            last = now;
            if let Ok(mut bell) = shared.bell.lock() {
                bell.generation += 1;
            }
            shared.rang.notify_all();
        }
    }
}

/// The logs' lengths in bytes (0 for one that cannot be read).
fn sizes(logs: &[PathBuf]) -> Vec<u64> {
    logs.iter()
        .map(|log| std::fs::metadata(log).map_or(0, |m| m.len()))
        .collect()
}

/// What the page may load: itself only (inline styles, scripts and SVG), and fetches to this
/// server.
const CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'";

/// The routes, as [`connection`] matches them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    Page,
    Summary,
    Events,
}

/// What a request for `method target` with `host` gets: a route, or an error status and
/// message.
fn route(
    method: &str,
    target: &str,
    host: Option<&str>,
    hosts: &[String],
) -> Result<Route, (u16, &'static str)> {
    if !hosts.is_empty() && !host.is_some_and(|h| hosts.iter().any(|x| x.eq_ignore_ascii_case(h))) {
        return Err((400, "this server answers requests for its own address only"));
    }
    if method != "GET" {
        return Err((405, "this server is read-only: GET only"));
    }
    // The path alone, matched whole: nothing in it is ever a file name.
    let path = target.split(['?', '#']).next().unwrap_or("");
    match path {
        "/" | "/index.html" => Ok(Route::Page),
        "/summary.json" => Ok(Route::Summary),
        "/events" => Ok(Route::Events),
        _ => Err((
            404,
            "not found: this server has /, /summary.json and /events",
        )),
    }
}

/// One connection: one request read, answered, and the connection closed.
fn connection(shared: &Arc<Shared>, mut stream: TcpStream) {
    let request = match http::read_request(&mut stream, &shared.limits) {
        Ok(request) => request,
        Err(Some(status)) => {
            return http::answer_text(stream, status, "a request this server cannot read", &[]);
        }
        Err(None) => return,
    };
    let chosen = route(
        &request.method,
        &request.target,
        request.host.as_deref(),
        &shared.hosts,
    );
    const PLAIN: [(&str, &str); 2] = [
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
    ];
    match chosen {
        Err((405, message)) => http::answer_text(stream, 405, message, &[("Allow", "GET")]),
        Err((status, message)) => http::answer_text(stream, status, message, &[]),
        Ok(Route::Events) => stream_events(shared, stream),
        Ok(route) => match current_view(shared) {
            Ok((page, summary)) => {
                let (body, kind) = match route {
                    Route::Page => (page, "text/html; charset=utf-8"),
                    _ => (summary, "application/json"),
                };
                let mut headers = vec![("Content-Type", kind), ("Content-Security-Policy", CSP)];
                headers.extend_from_slice(&PLAIN);
                http::answer(stream, 200, &headers, body.as_bytes());
            }
            Err(message) => http::answer_text(stream, 503, &message, &PLAIN),
        },
    }
}

/// `/events`: `game` each time the logs grow, a comment when idle, `end` when the server
/// stops; the stream ends when the client goes, or stops reading for the write timeout.
fn stream_events(shared: &Arc<Shared>, mut out: TcpStream) {
    if shared.streams.fetch_add(1, Ordering::SeqCst) >= shared.limits.streams {
        shared.streams.fetch_sub(1, Ordering::SeqCst);
        return http::answer_text(out, 503, "too many event streams at once", &[]);
    }
    let mut seen = shared.bell.lock().map(|b| b.generation).unwrap_or(0);
    let head = http::head(
        200,
        &[
            ("Content-Type", "text/event-stream"),
            ("Cache-Control", "no-store"),
        ],
        None,
    );
    let mut ok = send(&mut out, &format!("{head}retry: 2000\n\n"));
    let mut written = Instant::now();
    while ok {
        let Ok(bell) = shared.bell.lock() else { break };
        let Ok((bell, _)) = shared
            .rang
            .wait_timeout_while(bell, LOOK_EVERY, |b| b.generation == seen && !b.ended)
        else {
            break;
        };
        let now = *bell;
        drop(bell);
        if now.ended {
            send(&mut out, "event: end\ndata: {}\n\n");
            break;
        }
        ok = if now.generation != seen {
            seen = now.generation;
            written = Instant::now();
            let event = shared.source.event();
            send(&mut out, &format!("event: {event}\ndata: {seen}\n\n"))
        } else if written.elapsed() >= KEEPALIVE {
            written = Instant::now();
            send(&mut out, ": idle\n\n")
        } else {
            !http::client_closed(&out)
        };
    }
    shared.streams.fetch_sub(1, Ordering::SeqCst);
    http::close(out);
}

/// Writes `text` to an event stream; whether it went.
fn send(out: &mut TcpStream, text: &str) -> bool {
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_ok()
}

/// The page and summary of the logs as they are now: the cached ones when the logs have not
/// grown, else built again (once for every waiting client, and not sooner than the rebuild
/// interval after the last build).
fn current_view(shared: &Shared) -> Result<(Arc<String>, Arc<String>), String> {
    let mut slot = shared
        .view
        .lock()
        .map_err(|_| "the server failed".to_string())?;
    let key = shared.source.key();
    if let Some(view) = slot.as_ref() {
        if view.key == key {
            return Ok((view.page.clone(), view.summary.clone()));
        }
        let gap = MIN_REBUILD.max(view.cost * 4);
        let since = view.built.elapsed();
        if since < gap {
            std::thread::sleep(gap - since);
        }
    }
    let started = Instant::now();
    let (page, summary) = build(shared)?;
    let view = View {
        // What was read is at least this much: a later request sees any growth since.
        key,
        built: Instant::now(),
        cost: started.elapsed(),
        page: Arc::new(page),
        summary: Arc::new(summary),
    };
    let got = (view.page.clone(), view.summary.clone());
    *slot = Some(view);
    Ok(got)
}

/// Whether a run is writing `log` now (it holds the writer's lock).
fn is_playing(log: &Path) -> bool {
    ReadLock::new(log).is_ok_and(|lock| lock.live)
}

/// Renders the page and the summary object from the logs (or the tuning run's files).
fn build(shared: &Shared) -> Result<(String, String), String> {
    match &shared.source {
        Source::Run(logs) => build_run(shared, logs),
        Source::Tune(folder) => folder.build(),
    }
}

/// A tournament run's page and summary.
fn build_run(shared: &Shared, logs: &[PathBuf]) -> Result<(String, String), String> {
    let (info, summary, loaded) = summarize_logs(logs)?;
    let ratings = summary.ratings();
    let rows = table::rating_rows(&summary, &ratings);
    let scale = table::RatingScale::of(&summary, &ratings);
    let svgs = charts::svg_charts(&summary, &ratings).map_err(|e| e.to_string())?;
    let playing = logs.iter().any(|log| is_playing(log));
    let now = crate::arena::log::now().0;
    let timing = page_timing(&info, playing.then_some(now));
    let page = html::render(&summary, &ratings, &svgs, logs, Some(timing), true)
        .map_err(|e| e.to_string())?;
    let mut object = summary_json(&summary, &rows, &scale, None, &info, None);
    let logged = loaded.games_read;
    // One run folder playing: its session in flight gives the rate from its first game, however
    // late the server started; shards (one record each) are timed from the server's start.
    let in_flight = info
        .sessions
        .last()
        .filter(|s| playing && logs.len() == 1 && s.finished_unix.is_none());
    let rate = if let Some(session) = in_flight {
        let before: u64 = info
            .sessions
            .iter()
            .rev()
            .skip(1)
            .map(|s| s.games_played)
            .sum();
        let played = logged.saturating_sub(before);
        let elapsed = now - session.started_unix;
        (played > 0 && elapsed > 0.0).then(|| played as f64 / elapsed)
    } else {
        let mut origin = shared.origin.lock().map_err(|_| "the server failed")?;
        let (t0, n0) = *origin.get_or_insert((Instant::now(), logged));
        let elapsed = t0.elapsed().as_secs_f64();
        (logged > n0 && elapsed > 0.0).then(|| (logged - n0) as f64 / elapsed)
    };
    let left = loaded.games_scheduled.saturating_sub(logged);
    let decided = summary.decision().is_some();
    object["progress"] = json!({
        "scheduled": loaded.games_scheduled,
        "logged": logged,
        "playing": playing && !decided,
        "games_per_second": rate,
        "eta_seconds": rate.filter(|_| playing && !decided).map(|r| left as f64 / r),
    });
    Ok((page, object.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `GET path` and reads the answer's first line (a stream's included).
    fn status_line(addr: SocketAddr, path: &str) -> (TcpStream, String) {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        // In one write (`write!` would send it in pieces).
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n");
        s.write_all(request.as_bytes()).expect(path);
        let mut got = Vec::new();
        let mut byte = [0u8];
        while !got.ends_with(b"\r\n") && s.read(&mut byte).expect(path) == 1 {
            got.push(byte[0]);
        }
        (s, String::from_utf8_lossy(&got).trim_end().to_string())
    }

    #[test]
    fn streams_and_connections_past_their_caps_get_a_503_at_once() {
        let limits = Limits {
            connections: 4,
            streams: 2,
            ..Limits::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let server = LiveServer::start_with(
            "127.0.0.1:0".parse().unwrap(),
            Source::Run(vec![dir.path().join("games.jsonl")]),
            limits,
        )
        .unwrap();
        let addr = server.addr();
        let (a, first) = status_line(addr, "/events");
        let (b, second) = status_line(addr, "/events");
        assert_eq!(
            (first.as_str(), second.as_str()),
            ("HTTP/1.1 200 OK", "HTTP/1.1 200 OK")
        );
        assert_eq!(
            status_line(addr, "/events").1,
            "HTTP/1.1 503 Service Unavailable"
        );
        // The refused stream's connection counts until its thread has closed it: wait for
        // that, or a silent connection below could be refused in its place.
        let open = || server.shared.connections.load(Ordering::SeqCst);
        let waited = Instant::now();
        while open() != 2 && waited.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(open(), 2);
        // Two streams and two silent connections: the fifth connection is refused at once.
        let silent: Vec<_> = (0..2).map(|_| TcpStream::connect(addr).unwrap()).collect();
        let waited = Instant::now();
        while open() != 4 && waited.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(open(), 4);
        let started = Instant::now();
        assert_eq!(
            status_line(addr, "/nowhere").1,
            "HTTP/1.1 503 Service Unavailable"
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        // A stream's place is given back when its client goes.
        drop((a, silent));
        std::thread::sleep(LOOK_EVERY + Duration::from_millis(500));
        let (_c, again) = status_line(addr, "/events");
        assert_eq!(again, "HTTP/1.1 200 OK");
        drop(b);
        server.stop();
    }

    /// A server on `addr` with `limits` over a folder with no run in it (its page is a 503;
    /// what these tests look at comes before).
    fn empty_server(addr: &str, limits: Limits) -> (LiveServer, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let source = Source::Run(vec![dir.path().join("games.jsonl")]);
        let server = LiveServer::start_with(addr.parse().unwrap(), source, limits).unwrap();
        (server, dir)
    }

    #[test]
    fn a_stream_whose_client_sent_a_byte_and_closed_gives_its_place_back_within_a_second() {
        let limits = Limits {
            streams: 1,
            ..Limits::default()
        };
        let (server, _dir) = empty_server("127.0.0.1:0", limits);
        let addr = server.addr();
        let (mut first, line) = status_line(addr, "/events");
        assert_eq!(line, "HTTP/1.1 200 OK");
        // Everything the server sent read (so that closing sends no reset), then one stray
        // byte and the client's side closed.
        let mut got = Vec::new();
        let mut byte = [0u8];
        while !got.ends_with(b"retry: 2000\n\n") && first.read(&mut byte).unwrap() == 1 {
            got.push(byte[0]);
        }
        first.write_all(b"x").unwrap();
        first.shutdown(std::net::Shutdown::Write).unwrap();
        let closed = Instant::now();
        let again = loop {
            let (_s, line) = status_line(addr, "/events");
            if line == "HTTP/1.1 200 OK" || closed.elapsed() > Duration::from_secs(5) {
                break line;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let took = closed.elapsed();
        assert_eq!(again, "HTTP/1.1 200 OK", "after {took:?}");
        assert!(took < LOOK_EVERY + Duration::from_secs(1), "{took:?}");
        drop(first);
        server.stop();
    }

    /// Raises this process's soft limit on open files to `want` (or its hard limit); the limit
    /// now.
    fn raise_open_files(want: u64) -> u64 {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit only read and write the struct given.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return 0;
            }
            if limit.rlim_cur < want {
                limit.rlim_cur = want.min(limit.rlim_max);
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
                }
            }
        }
        limit.rlim_cur
    }

    #[test]
    fn past_hundreds_of_silent_connections_a_fresh_request_is_answered_within_half_a_second() {
        // 256 silent connections hold every place, 400 more wait to be refused: both ends
        // of each are in this process, with the server's threads.
        let (cap, extra) = (Limits::default().connections, 400);
        let open_files = raise_open_files(4096);
        assert!(
            open_files >= 2 * (cap + extra) as u64 + 256,
            "this test needs about {} open files; the hard limit is {open_files}",
            2 * (cap + extra) + 256
        );
        let (server, _dir) = empty_server("127.0.0.1:0", Limits::default());
        let addr = server.addr();
        let silent: Vec<TcpStream> = (0..cap + extra)
            .map(|_| TcpStream::connect(addr).unwrap())
            .collect();
        let started = Instant::now();
        let (_s, line) = status_line(addr, "/nowhere");
        let took = started.elapsed();
        assert!(
            line.starts_with("HTTP/1.1 503 ") || line.starts_with("HTTP/1.1 404 "),
            "{line}"
        );
        assert!(took < Duration::from_millis(500), "answered after {took:?}");
        drop(silent);
        server.stop();
    }

    #[test]
    fn an_ipv4_mapped_loopback_address_is_loopback_and_checks_the_host() {
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:8000".parse().unwrap();
        assert!(is_loopback(&mapped));
        assert!(!is_loopback(&"[::ffff:10.1.2.3]:8000".parse().unwrap()));
        let (server, _dir) = empty_server("[::ffff:127.0.0.1]:0", Limits::default());
        let addr = server.addr();
        let port = addr.port();
        let ask = |host: &str| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let request = format!("GET /nowhere HTTP/1.1\r\nHost: {host}\r\n\r\n");
            s.write_all(request.as_bytes()).unwrap();
            let mut got = String::new();
            let _ = s.read_to_string(&mut got);
            got.lines().next().unwrap_or("").to_string()
        };
        assert_eq!(ask("evil.example"), "HTTP/1.1 400 Bad Request");
        assert_eq!(ask(&format!("127.0.0.1:{port}")), "HTTP/1.1 404 Not Found");
        assert_eq!(ask(&addr.to_string()), "HTTP/1.1 404 Not Found");
        server.stop();
    }

    #[test]
    fn a_wildcard_address_is_shown_as_a_loopback_url() {
        let (server, _dir) = empty_server("0.0.0.0:0", Limits::default());
        let port = server.addr().port();
        assert_eq!(server.url(), format!("http://127.0.0.1:{port}/"));
        assert!(server.on_every_interface());
        server.stop();
        let (server, _dir) = empty_server("127.0.0.1:0", Limits::default());
        assert_eq!(server.url(), format!("http://{}/", server.addr()));
        assert!(!server.on_every_interface());
        server.stop();
    }

    fn hosts() -> Vec<String> {
        vec!["127.0.0.1:8000".into(), "localhost:8000".into()]
    }

    #[test]
    fn only_the_three_paths_are_served_and_nothing_else_reaches_a_file() {
        let h = hosts();
        let get = |url: &str| route("GET", url, Some("127.0.0.1:8000"), &h);
        assert_eq!(get("/"), Ok(Route::Page));
        assert_eq!(get("/index.html?x=1"), Ok(Route::Page));
        assert_eq!(get("/summary.json"), Ok(Route::Summary));
        assert_eq!(get("/events"), Ok(Route::Events));
        for url in [
            "/../../etc/passwd",
            "/%2e%2e/%2e%2e/etc/passwd",
            "/..%2f..%2fetc%2fpasswd",
            "//etc/passwd",
            "/games.jsonl",
            "/run.json",
            "/index.html/../run.json",
            "/summary.json/",
            "",
        ] {
            assert_eq!(get(url).map_err(|e| e.0), Err(404), "{url}");
        }
    }

    #[test]
    fn only_get_for_this_host_is_answered() {
        let h = hosts();
        for method in ["POST", "PUT", "DELETE", "HEAD", "get"] {
            let got = route(method, "/", Some("localhost:8000"), &h);
            assert_eq!(got.map_err(|e| e.0), Err(405), "{method}");
        }
        for host in [None, Some("evil.example:8000"), Some("127.0.0.1:8001")] {
            let got = route("GET", "/", host, &h);
            assert_eq!(got.map_err(|e| e.0), Err(400), "{host:?}");
        }
        // Bound elsewhere than loopback: any host (the user chose to publish it).
        assert_eq!(route("GET", "/", None, &[]), Ok(Route::Page));
    }
}

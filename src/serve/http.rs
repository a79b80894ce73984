//! The HTTP/1.1 under the live server: one thread per connection, one request per connection.
//!
//! Every answer is sent with `Connection: close` and the connection closed after it, so no
//! idle keep-alive socket holds a thread; every socket has a read and a write timeout, so a
//! client that never finishes its request or never reads its answer holds its thread for a
//! bounded time; and connections are counted, so that past [`Limits::connections`] a new one
//! gets a 503 at once instead of waiting in a queue behind idle ones. (tiny_http, used before,
//! hands connections to a pool whose bookkeeping can leave a new connection queued behind
//! long-lived ones — idle keep-alive sockets and event streams — and sets no socket timeout.)
//! The request's head is parsed by `httparse`; a request's body is never read.

use std::io::{Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// How much a connection may hold, and for how long.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Time for a client to send its request's head, from connecting.
    pub read: Duration,
    /// Time any one write to a client may block (a client that does not read).
    pub write: Duration,
    /// Connections open at once, event streams included; more get a 503.
    pub connections: usize,
    /// Event streams open at once; more get a 503.
    pub streams: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            read: Duration::from_secs(10),
            write: Duration::from_secs(10),
            connections: 256,
            streams: 128,
        }
    }
}

/// The longest request head read.
const MAX_HEAD: usize = 16 * 1024;
/// The most headers a request may have.
const MAX_HEADERS: usize = 64;
/// How long a closed answer waits for the client to close its side, so that unread bytes
/// of the request do not turn the close into a reset that loses the answer.
const DRAIN: Duration = Duration::from_millis(200);

/// A request's head: what routing needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, … as sent.
    pub method: String,
    /// The request target as sent (path and query).
    pub target: String,
    /// The `Host` header, if any (a request with two is refused).
    pub host: Option<String>,
}

/// Reads one request's head from `stream` within `limits.read` of now. `Err(None)`: the
/// client went or sent nothing in time (close without answering); `Err(Some(status))`:
/// answer that status.
pub fn read_request(stream: &mut TcpStream, limits: &Limits) -> Result<Request, Option<u16>> {
    let deadline = Instant::now() + limits.read;
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Err((!head.is_empty()).then_some(408));
        }
        let n = match stream.read(&mut chunk) {
            Ok(0) => return Err(None),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if is_timeout(&e) => return Err((!head.is_empty()).then_some(408)),
            Err(_) => return Err(None),
        };
        head.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Request::new(&mut headers);
        match parsed.parse(&head) {
            Ok(httparse::Status::Complete(_)) => {
                let mut hosts = (parsed.headers.iter())
                    .filter(|h| h.name.eq_ignore_ascii_case("host"))
                    .map(|h| String::from_utf8_lossy(h.value).into_owned());
                let host = hosts.next();
                // Two hosts: which one a proxy in front went by is anyone's guess (RFC 9112
                // §3.2: a 400).
                if hosts.next().is_some() {
                    return Err(Some(400));
                }
                return Ok(Request {
                    method: parsed.method.unwrap_or("").to_string(),
                    target: parsed.path.unwrap_or("").to_string(),
                    host,
                });
            }
            Ok(httparse::Status::Partial) if head.len() < MAX_HEAD => {}
            Ok(httparse::Status::Partial) | Err(httparse::Error::TooManyHeaders) => {
                return Err(Some(431));
            }
            Err(_) => return Err(Some(400)),
        }
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// The reason phrase of the statuses this server sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

/// The status line and headers of an answer, `Connection: close` among them; with a
/// `Content-Length` when the body's length is given.
pub fn head(status: u16, headers: &[(&str, &str)], length: Option<usize>) -> String {
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(length) = length {
        out.push_str(&format!("Content-Length: {length}\r\n"));
    }
    out.push_str("Connection: close\r\n\r\n");
    out
}

/// Sends a whole answer on `stream` and closes it.
pub fn answer(mut stream: TcpStream, status: u16, headers: &[(&str, &str)], body: &[u8]) {
    let sent = stream
        .write_all(head(status, headers, Some(body.len())).as_bytes())
        .and_then(|()| stream.write_all(body))
        .and_then(|()| stream.flush());
    if sent.is_ok() {
        close(stream);
    }
}

/// A plain-text answer.
pub fn answer_text(stream: TcpStream, status: u16, message: &str, extra: &[(&str, &str)]) {
    let mut headers = vec![("Content-Type", "text/plain; charset=utf-8")];
    headers.extend_from_slice(extra);
    answer(stream, status, &headers, format!("{message}\n").as_bytes());
}

/// Closes `stream` after an answer: our side first, then whatever the client still sends is
/// read (briefly) and dropped.
pub fn close(mut stream: TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let until = Instant::now() + DRAIN;
    let mut sink = [0u8; 4096];
    let mut drained = 0;
    while drained < 64 * 1024 {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            break;
        }
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

/// The most an event stream's client may send after its request before it is taken as gone.
const MAX_STRAY: usize = 64 * 1024;

/// Whether the client of `stream` has closed its side (or the connection broke), without
/// waiting. What it sent since its request is read and dropped: a peek would stop at the first
/// stray byte and never see the close behind it, so that a client that sent one byte and left
/// would keep its place until a write failed. A client that sends more than [`MAX_STRAY`] is
/// taken as gone (an event stream's client has nothing to say).
pub fn client_closed(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let (mut reader, mut sink, mut taken) = (stream, [0u8; 4096], 0);
    let closed = loop {
        match reader.read(&mut sink) {
            Ok(0) => break true,
            Ok(n) if taken + n > MAX_STRAY => break true,
            Ok(n) => taken += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break !is_timeout(&e),
        }
    };
    closed || stream.set_nonblocking(false).is_err()
}

/// A socket freshly accepted, its write timeout set.
pub fn prepare(stream: &TcpStream, limits: &Limits) -> std::io::Result<()> {
    stream.set_write_timeout(Some(limits.write))?;
    stream.set_nodelay(true)
}

/// Where this machine reaches a listener bound on `bound`: there, or for a wildcard address
/// (`0.0.0.0`, `[::]`, which no one can connect to) through loopback.
pub fn local_address(bound: SocketAddr) -> SocketAddr {
    let mut addr = bound;
    if bound.ip().is_unspecified() {
        addr.set_ip(match bound {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    addr
}

/// The addresses of this machine's interfaces that are up, as the system lists them
/// (`getifaddrs`, through `libc`, already a dependency: no crate added for one call, and,
/// unlike reading `/proc/net`, it gives IPv4 and IPv6 alike on every Unix); empty elsewhere
/// or when the system cannot say.
pub fn interface_addresses() -> Vec<IpAddr> {
    let mut out = Vec::new();
    #[cfg(unix)]
    {
        let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
        // SAFETY: `getifaddrs` fills `list` with a list this function frees below, once.
        if unsafe { libc::getifaddrs(&mut list) } != 0 {
            return out;
        }
        let mut at = list;
        while !at.is_null() {
            // SAFETY: `at` is a node of the list `getifaddrs` returned, not yet freed.
            let node = unsafe { &*at };
            at = node.ifa_next;
            let up = node.ifa_flags & libc::IFF_UP as libc::c_uint != 0;
            if !up || node.ifa_addr.is_null() {
                continue;
            }
            // SAFETY: `ifa_addr` points to a socket address whose family says its type.
            let family = i32::from(unsafe { (*node.ifa_addr).sa_family });
            if family == libc::AF_INET {
                // SAFETY: an `AF_INET` address is a `sockaddr_in`.
                let a = unsafe { &*node.ifa_addr.cast::<libc::sockaddr_in>() };
                // `s_addr` holds the address's bytes in network order, as they are in memory.
                out.push(IpAddr::from(a.sin_addr.s_addr.to_ne_bytes()));
            } else if family == libc::AF_INET6 {
                // SAFETY: an `AF_INET6` address is a `sockaddr_in6`.
                let a = unsafe { &*node.ifa_addr.cast::<libc::sockaddr_in6>() };
                out.push(IpAddr::from(a.sin6_addr.s6_addr));
            }
        }
        // SAFETY: the list `getifaddrs` returned, freed once, no node used after.
        unsafe { libc::freeifaddrs(list) };
    }
    out
}

/// The URLs by which other machines may reach a listener bound on the wildcard address
/// `bound`, given the machine's interface `addresses`: each non-loopback address of the
/// bound family (an IPv6 wildcard that also takes IPv4, `dual_stack`, adds the IPv4 ones),
/// in the order given, each once. IPv6 link-local addresses are left out: a browser needs
/// their interface's name to use them. Empty when `bound` is not a wildcard.
pub fn reachable_urls(bound: SocketAddr, dual_stack: bool, addresses: &[IpAddr]) -> Vec<String> {
    if !bound.ip().is_unspecified() {
        return Vec::new();
    }
    let mut urls: Vec<String> = Vec::new();
    for ip in addresses {
        let ip = ip.to_canonical();
        let wanted = match ip {
            IpAddr::V4(_) => bound.is_ipv4() || dual_stack,
            IpAddr::V6(v6) => bound.is_ipv6() && !v6.is_unicast_link_local(),
        };
        if !wanted || ip.is_loopback() || ip.is_unspecified() || ip.is_multicast() {
            continue;
        }
        let url = format!("http://{}/", SocketAddr::new(ip, bound.port()));
        if !urls.contains(&url) {
            urls.push(url);
        }
    }
    urls
}

/// Whether an IPv6 `listener` takes IPv4 connections too (`IPV6_V6ONLY` off, Linux's
/// default); false for an IPv4 one or when the system cannot say.
pub fn dual_stack(listener: &TcpListener) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        if listener.local_addr().is_ok_and(|a| a.is_ipv6()) {
            let mut only: libc::c_int = 1;
            let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
            // SAFETY: reads one int option of a socket this function borrows into `only`,
            // whose size `len` says.
            let got = unsafe {
                libc::getsockopt(
                    listener.as_raw_fd(),
                    libc::IPPROTO_IPV6,
                    libc::IPV6_V6ONLY,
                    (&raw mut only).cast(),
                    &mut len,
                )
            };
            return got == 0 && only == 0;
        }
    }
    let _ = listener;
    false
}

/// Unblocks `listener`'s pending `accept` (its owner checks a stop flag after each one).
pub fn wake(bound: SocketAddr) -> bool {
    TcpStream::connect_timeout(&local_address(bound), Duration::from_secs(2)).is_ok()
}

/// Connections the system queues for the accept loop. std listens with 128: past them, in a
/// burst of hundreds (idle connections opened at once), a connection's first packet was
/// dropped and sent again a second later, a fresh request's among them. The system may cap it
/// lower (Linux: `net.core.somaxconn`, 4096 by default since 5.4).
const BACKLOG: i32 = 1024;

/// Binds `addr`, with room for [`BACKLOG`] connections waiting to be accepted.
pub fn bind(addr: SocketAddr) -> std::io::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(addr)?;
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // Listening again on a listening socket only sets its backlog; should it fail,
        // std's stays.
        // SAFETY: `listen` on a socket this function owns, open for the call's length.
        let _ = unsafe { libc::listen(listener.as_raw_fd(), BACKLOG) };
    }
    let bound = listener.local_addr()?;
    Ok((listener, bound))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connected pair of sockets: (client, server side).
    fn pair() -> (TcpStream, TcpStream) {
        let (listener, bound) = bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let client = TcpStream::connect(bound).unwrap();
        let (server, _) = listener.accept().unwrap();
        (client, server)
    }

    fn limits(read_ms: u64) -> Limits {
        Limits {
            read: Duration::from_millis(read_ms),
            ..Limits::default()
        }
    }

    #[test]
    fn a_request_head_is_read_whole_even_in_pieces() {
        let (mut client, mut server) = pair();
        let writer = std::thread::spawn(move || {
            for part in [
                "GET /summary.json?x=1 HT",
                "TP/1.1\r\nhOsT: 127.0.0.1:80",
                "\r\n\r\n",
            ] {
                client.write_all(part.as_bytes()).unwrap();
                std::thread::sleep(Duration::from_millis(30));
            }
            client
        });
        let got = read_request(&mut server, &limits(5000)).unwrap();
        assert_eq!(
            got,
            Request {
                method: "GET".into(),
                target: "/summary.json?x=1".into(),
                host: Some("127.0.0.1:80".into()),
            }
        );
        drop(writer.join().unwrap());
    }

    #[test]
    fn silent_slow_garbled_and_huge_requests_end_within_the_limit() {
        // Silent: closed without an answer once the read limit is spent.
        let (_client, mut server) = pair();
        let started = Instant::now();
        assert_eq!(read_request(&mut server, &limits(300)), Err(None));
        assert!(started.elapsed() < Duration::from_secs(3));
        // Half a request, then nothing: 408, within the limit counted from the start.
        let (mut client, mut server) = pair();
        client.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
        let started = Instant::now();
        assert_eq!(read_request(&mut server, &limits(300)), Err(Some(408)));
        assert!(started.elapsed() < Duration::from_secs(3));
        // Not HTTP.
        let (mut client, mut server) = pair();
        client.write_all(b"\x16\x03\x01 hello\r\n\r\n").unwrap();
        assert_eq!(read_request(&mut server, &limits(2000)), Err(Some(400)));
        // A head that never ends.
        let (mut client, mut server) = pair();
        let filler = std::thread::spawn(move || {
            let _ = client.write_all(b"GET / HTTP/1.1\r\n");
            let line = format!("X-Pad: {}\r\n", "a".repeat(1000));
            for _ in 0..40 {
                if client.write_all(line.as_bytes()).is_err() {
                    break;
                }
            }
            client
        });
        assert_eq!(read_request(&mut server, &limits(5000)), Err(Some(431)));
        drop(server);
        drop(filler.join().unwrap());
    }

    #[test]
    fn a_client_that_sent_bytes_and_closed_is_seen_closed() {
        let (mut client, server) = pair();
        assert!(!client_closed(&server), "silent and open");
        // A stray byte after the request: still open.
        client.write_all(b"x").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        assert!(!client_closed(&server), "a byte sent, still open");
        // Another, then the client's side closed: closed, whatever came before.
        client.write_all(b"y").unwrap();
        client.shutdown(Shutdown::Write).unwrap();
        let started = Instant::now();
        while !client_closed(&server) && started.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(client_closed(&server), "closed after sending data");
    }

    #[test]
    fn a_request_with_two_hosts_is_refused() {
        let (mut client, mut server) = pair();
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\nhost: evil.example\r\n\r\n")
            .unwrap();
        assert_eq!(read_request(&mut server, &limits(2000)), Err(Some(400)));
    }

    #[test]
    fn a_burst_of_connections_waits_to_be_accepted_without_a_retry() {
        let (listener, bound) = bind("127.0.0.1:0".parse().unwrap()).unwrap();
        // None accepted yet: past the queue's length, a connection's first packet is dropped
        // and sent again a second later.
        let burst: Vec<TcpStream> = (0..300)
            .map(|i| {
                TcpStream::connect_timeout(&bound, Duration::from_millis(500))
                    .unwrap_or_else(|e| panic!("connection {i}: {e}"))
            })
            .collect();
        drop((burst, listener));
    }

    #[test]
    fn an_answer_says_its_length_and_closes() {
        let (mut client, server) = pair();
        answer_text(server, 404, "not here", &[("Allow", "GET")]);
        let mut got = String::new();
        client.read_to_string(&mut got).unwrap();
        assert!(got.starts_with("HTTP/1.1 404 Not Found\r\n"), "{got}");
        assert!(got.contains("\r\nAllow: GET\r\n"), "{got}");
        assert!(got.contains("\r\nContent-Length: 9\r\n"), "{got}");
        assert!(
            got.contains("\r\nConnection: close\r\n\r\nnot here\n"),
            "{got}"
        );
    }

    #[test]
    fn a_wildcard_listener_is_reached_through_loopback() {
        let v4: SocketAddr = "0.0.0.0:8123".parse().unwrap();
        assert_eq!(local_address(v4), "127.0.0.1:8123".parse().unwrap());
        let v6: SocketAddr = "[::]:8123".parse().unwrap();
        assert_eq!(local_address(v6), "[::1]:8123".parse().unwrap());
        let own: SocketAddr = "127.0.0.2:8123".parse().unwrap();
        assert_eq!(local_address(own), own);
    }

    #[test]
    fn the_machine_s_addresses_elsewhere_leave_out_loopback_and_link_local() {
        let ips: Vec<IpAddr> = [
            "127.0.0.1",
            "192.168.1.20",
            "::1",
            "fe80::1",
            "2001:db8::7",
            "10.0.0.3",
            "192.168.1.20",
            "::ffff:172.16.0.4",
        ]
        .iter()
        .map(|t| t.parse().unwrap())
        .collect();
        let v4: SocketAddr = "0.0.0.0:8004".parse().unwrap();
        assert_eq!(
            reachable_urls(v4, false, &ips),
            [
                "http://192.168.1.20:8004/",
                "http://10.0.0.3:8004/",
                "http://172.16.0.4:8004/"
            ]
        );
        let v6: SocketAddr = "[::]:8004".parse().unwrap();
        assert_eq!(
            reachable_urls(v6, false, &ips),
            ["http://[2001:db8::7]:8004/"]
        );
        assert_eq!(reachable_urls(v6, true, &ips).len(), 4);
        // Not a wildcard: the one address bound is the URL already.
        assert!(reachable_urls("192.168.1.20:8004".parse().unwrap(), true, &ips).is_empty());
    }

    #[test]
    fn the_machine_s_own_addresses_are_listed_as_urls_that_parse() {
        let ips = interface_addresses();
        // Every Unix machine this runs on has its loopback interface up.
        #[cfg(unix)]
        assert!(ips.iter().any(IpAddr::is_loopback), "{ips:?}");
        for (bound, dual) in [("0.0.0.0:8004", false), ("[::]:8004", true)] {
            for url in reachable_urls(bound.parse().unwrap(), dual, &ips) {
                let addr: SocketAddr = url
                    .strip_prefix("http://")
                    .and_then(|u| u.strip_suffix('/'))
                    .unwrap()
                    .parse()
                    .unwrap_or_else(|e| panic!("{url}: {e}"));
                assert!(!addr.ip().is_loopback() && addr.port() == 8004, "{url}");
                assert!(ips.iter().any(|ip| ip.to_canonical() == addr.ip()), "{url}");
            }
        }
        let (v4, _) = bind("127.0.0.1:0".parse().unwrap()).unwrap();
        assert!(!dual_stack(&v4));
        // Linux's default (net.ipv6.bindv6only = 0) takes IPv4 on an IPv6 wildcard.
        if let Ok((v6, _)) = bind("[::]:0".parse().unwrap())
            && std::fs::read_to_string("/proc/sys/net/ipv6/bindv6only")
                .is_ok_and(|t| t.trim() == "0")
        {
            assert!(dual_stack(&v6));
        }
    }
}

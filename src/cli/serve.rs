//! `--serve [ADDR]` of `joute run`, `joute match` and `joute tune`, and `joute serve DIR…`: the
//! address parsed, the library's live server started and its URL printed.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use joute::serve::{LiveServer, Source, is_loopback, source_of};

use super::InputError;
use super::interrupt;

/// `--serve` without an address: loopback, a free port.
pub const DEFAULT_ADDR: &str = "127.0.0.1:0";

/// Arguments of `joute serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Run folders (or their games.jsonl): one run, or the shards of one run, merged; or one
    /// tuning run's folder.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Address to listen on (default 127.0.0.1 on a free port; the URL is printed).
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_ADDR)]
    pub addr: String,
}

/// `HOST:PORT` (or `PORT` alone, on 127.0.0.1) as an address, with a warning when it is not
/// loopback: anyone who reaches it sees the run.
pub(super) fn address(text: &str) -> Result<SocketAddr, InputError> {
    let bad = |why: String| {
        InputError(format!(
            "--serve '{text}': {why}; write HOST:PORT (127.0.0.1:8000, or 127.0.0.1:0 for a free port), and put the spec before --serve"
        ))
    };
    let full = if text.parse::<u16>().is_ok() {
        format!("127.0.0.1:{text}")
    } else {
        text.to_string()
    };
    let addr = full
        .to_socket_addrs()
        .map_err(|e| bad(e.to_string()))?
        .next()
        .ok_or_else(|| bad("no such address".into()))?;
    if !is_loopback(&addr) {
        note!(
            "warning: serving on {addr}, which is not a loopback address: anyone who can reach it can watch this run (the page is read-only)"
        );
    }
    Ok(addr)
}

/// Starts the live server of the run in `out` when `--serve` was given, and says where.
pub(super) fn start(serve: Option<&str>, out: &Path) -> anyhow::Result<Option<LiveServer>> {
    let Some(text) = serve else { return Ok(None) };
    let source = Source::Run(vec![out.join("games.jsonl")]);
    serve_on(address(text)?, source).map(Some)
}

/// Starts the live server of `source` on `addr`, and says where.
pub(super) fn serve_on(addr: SocketAddr, source: Source) -> anyhow::Result<LiveServer> {
    let server = LiveServer::start(addr, source).map_err(|e| InputError(e.to_string()))?;
    say_where(&server, "");
    Ok(server)
}

/// Prints the page's URL (followed by `after`), and on a wildcard address the URLs through
/// this machine's other addresses, for other machines (or, when none is known, that it is
/// reached through one of them): the first URL is the loopback one, known to work here.
fn say_where(server: &LiveServer, after: &str) {
    note!("live page: {}{after}", server.url());
    if server.on_every_interface() {
        let elsewhere = server.urls_elsewhere();
        if elsewhere.is_empty() {
            note!(
                "listening on every interface ({}): from another machine, open this machine's address with port {}",
                server.addr(),
                server.addr().port()
            );
        } else {
            note!(
                "listening on every interface ({}): from another machine, open {}",
                server.addr(),
                elsewhere.join(" or ")
            );
        }
    }
}

/// `joute serve DIR…`: serves until Ctrl-C.
pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    let source = source_of(&args.dirs).map_err(|e| InputError(e.to_string()))?;
    let server =
        LiveServer::start(address(&args.addr)?, source).map_err(|e| InputError(e.to_string()))?;
    say_where(&server, " (Ctrl-C stops it)");
    let stop = interrupt::server_token();
    while !stop.is_cancelled() {
        std::thread::sleep(Duration::from_millis(100));
    }
    server.stop();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_read_as_written() {
        assert_eq!(address("127.0.0.1:0").unwrap().port(), 0);
        assert_eq!(address("8123").unwrap(), "127.0.0.1:8123".parse().unwrap());
        assert_eq!(
            address("[::1]:9000").unwrap(),
            "[::1]:9000".parse().unwrap()
        );
        let e = address("quickstart.toml").unwrap_err().0;
        assert!(e.contains("put the spec before --serve"), "{e}");
    }
}

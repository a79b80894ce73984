//! How untrusted programs are held: the `[outside]` table and the same keys in an outside
//! engine's table (`memory_limit`, `process_limit`, `cpu_limit`, `write_limit`, `confine`,
//! `readable`, `pause`, `restart`), checked and resolved into an [`OutsideSpec`]'s [`Guard`].
//! An engine's own key wins over the table's; its `readable` paths add to the table's.

use super::raw::RawGuard;
use super::*;
use crate::arena::outside::{Guard, Restart};

/// The most memory, bytes written or CPU time a limit may name (beyond: no limit at all).
const MAX_SIZE: u64 = 1 << 50;
/// The most processes a limit may name.
const MAX_PROCESSES: i64 = 1 << 20;
/// The longest CPU time per game a limit may name: a week.
const MAX_CPU: Duration = Duration::from_secs(7 * 24 * 3600);

/// The guard keys of one table, borrowed: the `[outside]` table's or an engine's.
#[derive(Clone, Copy, Default)]
pub(crate) struct GuardKeys<'r> {
    memory_limit: Option<&'r Spanned<String>>,
    process_limit: Option<&'r Spanned<i64>>,
    cpu_limit: Option<&'r Spanned<String>>,
    write_limit: Option<&'r Spanned<String>>,
    confine: Option<&'r Spanned<bool>>,
    readable: Option<&'r Spanned<Vec<Spanned<String>>>>,
    pause: Option<&'r Spanned<bool>>,
    restart: Option<&'r Spanned<String>>,
}

/// The guard keys of a table that has them all, by name (`RawGuard`, `RawEngine`).
macro_rules! guard_keys_of {
    ($table:expr) => {
        GuardKeys {
            memory_limit: $table.memory_limit.as_ref(),
            process_limit: $table.process_limit.as_ref(),
            cpu_limit: $table.cpu_limit.as_ref(),
            write_limit: $table.write_limit.as_ref(),
            confine: $table.confine.as_ref(),
            readable: $table.readable.as_ref(),
            pause: $table.pause.as_ref(),
            restart: $table.restart.as_ref(),
        }
    };
}

impl RawGuard {
    /// Its keys.
    pub(crate) fn keys(&self) -> GuardKeys<'_> {
        guard_keys_of!(self)
    }
}

impl RawEngine {
    /// Its guard keys.
    pub(crate) fn guard_keys(&self) -> GuardKeys<'_> {
        guard_keys_of!(self)
    }

    /// The first guard key given, with its name (a built-in engine refuses them).
    pub(crate) fn first_guard_key(&self) -> Option<(&'static str, usize)> {
        let k = self.guard_keys();
        [
            ("memory_limit", k.memory_limit.map(|v| v.span().start)),
            ("process_limit", k.process_limit.map(|v| v.span().start)),
            ("cpu_limit", k.cpu_limit.map(|v| v.span().start)),
            ("write_limit", k.write_limit.map(|v| v.span().start)),
            ("confine", k.confine.map(|v| v.span().start)),
            ("readable", k.readable.map(|v| v.span().start)),
            ("pause", k.pause.map(|v| v.span().start)),
            ("restart", k.restart.map(|v| v.span().start)),
        ]
        .into_iter()
        .find_map(|(key, at)| at.map(|at| (key, at)))
    }
}

/// Where a guard key is written, for its errors: `engine[2].memory_limit` or
/// `outside.memory_limit`, and the engine's name when it is an engine's.
struct At<'a, 'b> {
    prefix: &'a str,
    name: Option<&'a str>,
    loc: &'a Locator<'b>,
}

impl At<'_, '_> {
    fn fail<T>(&self, v: &Spanned<T>, key: &str, message: String) -> SpecError {
        let message = match self.name {
            Some(name) => format!("engine '{name}': {message}"),
            None => message,
        };
        self.loc.on(v, &format!("{}.{key}", self.prefix), message)
    }
}

/// The guard of an outside engine from its own keys (`prefix`, `name`: its table) over the
/// `[outside]` table's (`shared`, `None` for a tuning spec, which has no such table).
pub(crate) fn resolve_guard(
    own: GuardKeys<'_>,
    prefix: &str,
    name: &str,
    shared: Option<&RawGuard>,
    loc: &Locator<'_>,
) -> Result<Guard, SpecError> {
    let engine = At {
        prefix,
        name: Some(name),
        loc,
    };
    let table = At {
        prefix: "outside",
        name: None,
        loc,
    };
    let shared = shared.map(RawGuard::keys).unwrap_or_default();
    // Each key: the engine's, else the table's, each checked where it is written.
    macro_rules! pick {
        ($key:ident, $check:expr) => {
            match (own.$key, shared.$key) {
                (Some(v), _) => Some($check(&engine, v)?),
                (None, Some(v)) => Some($check(&table, v)?),
                (None, None) => None,
            }
        };
    }
    let size = |key: &'static str| {
        move |at: &At, v: &Spanned<String>| {
            check_size(key, v.get_ref()).map_err(|m| at.fail(v, key, m))
        }
    };
    let memory_limit = pick!(memory_limit, size("memory_limit"));
    let write_limit = pick!(write_limit, size("write_limit"));
    let process_limit = pick!(process_limit, |at: &At, v: &Spanned<i64>| {
        check_processes(*v.get_ref()).map_err(|m| at.fail(v, "process_limit", m))
    });
    let cpu_limit_ms = pick!(cpu_limit, |at: &At, v: &Spanned<String>| {
        check_cpu(v.get_ref()).map_err(|m| at.fail(v, "cpu_limit", m))
    });
    let confine = own.confine.or(shared.confine).is_some_and(|v| *v.get_ref());
    let pause = own.pause.or(shared.pause).is_some_and(|v| *v.get_ref());
    let restart = pick!(restart, |at: &At, v: &Spanned<String>| {
        check_restart(v.get_ref()).map_err(|m| at.fail(v, "restart", m))
    })
    .unwrap_or_default();
    let mut readable = Vec::new();
    let mut readable_found = Vec::new();
    for (at, list) in [(&table, shared.readable), (&engine, own.readable)] {
        for v in list.map(|l| l.get_ref().as_slice()).unwrap_or_default() {
            let written = v.get_ref().trim();
            let found = loc.path(written);
            if written.is_empty() || !found.exists() {
                return Err(at.fail(
                    v,
                    "readable",
                    format!(
                        "no file or folder at '{written}' ({})",
                        absolute(&found).display()
                    ),
                ));
            }
            readable.push(PathBuf::from(written));
            readable_found.push(absolute(&found));
        }
    }
    if !readable.is_empty() && !confine {
        let v = own.readable.or(shared.readable).expect("a readable list");
        let at = if own.readable.is_some() {
            &engine
        } else {
            &table
        };
        return Err(at.fail(
            v,
            "readable",
            "readable lists what a confined program may read: it goes with confine = true".into(),
        ));
    }
    Ok(Guard {
        memory_limit,
        process_limit,
        cpu_limit_ms,
        write_limit,
        confine,
        readable,
        pause,
        restart,
        readable_found,
    })
}

/// A size limit as written (`"512MiB"`): more than 0, at most [`MAX_SIZE`]; the error names
/// `key`.
pub fn check_size(key: &str, text: &str) -> Result<u64, String> {
    match crate::arena::limits::parse_size(text) {
        Ok(0) => Err(format!("{key} is 0; give a size such as \"512MiB\"")),
        Ok(n) if n <= MAX_SIZE => Ok(n),
        Ok(_) => Err(format!("{key} '{text}' is more than 1 PiB")),
        Err(m) => Err(format!("{key}: {m}")),
    }
}

/// A process limit: 1 to [`MAX_PROCESSES`].
pub fn check_processes(n: i64) -> Result<u32, String> {
    if (1..=MAX_PROCESSES).contains(&n) {
        Ok(n as u32)
    } else {
        Err(format!(
            "process_limit is {n}; allowed: 1 to {MAX_PROCESSES} processes and threads at once"
        ))
    }
}

/// A CPU time per game as written: `"10m"`, `"1h"`, `"30s"`, `"500ms"` (minutes and hours
/// too, as CPU limits are long), in milliseconds: more than 0, at most a week.
pub fn check_cpu(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (number, seconds) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600.0)
    } else {
        return Err(format!(
            "cpu_limit '{text}' needs a unit: \"10m\", \"1h\", \"30s\" or \"500ms\" of CPU time per game"
        ));
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * seconds <= MAX_CPU.as_secs_f64() => {
            Ok(((v * seconds * 1000.0).round() as u64).max(1))
        }
        _ => Err(format!(
            "cpu_limit '{text}' is not a time from 1ms to a week (\"168h\")"
        )),
    }
}

/// When a program is started afresh, as written.
pub fn check_restart(text: &str) -> Result<Restart, String> {
    match text.trim() {
        "game" => Ok(Restart::Game),
        "failure" => Ok(Restart::Failure),
        other => Err(format!(
            "unknown restart '{other}'; allowed: \"game\" (a fresh process for every game), \"failure\" (the default: after a failed game)"
        )),
    }
}

/// Refuses `[outside]` in a spec with no outside engine: its keys would hold nothing.
pub(crate) fn outside_table_used(raw: &RawSpec, loc: &Locator<'_>) -> Result<(), SpecError> {
    match &raw.outside {
        Some(t) if !raw.engine.iter().any(|e| e.get_ref().is_outside()) => Err(loc.on(
            t,
            "outside",
            "[outside] holds the settings of outside programs (command = ...), and this spec has none",
        )),
        _ => Ok(()),
    }
}

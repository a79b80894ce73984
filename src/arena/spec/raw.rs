//! Stage 1 of a spec: the TOML structure as written ([`RawSpec`]), every value with its span,
//! and serde's messages made plain.

use super::*;

// ---------------------------------------------------------------------------------------------
// Stage 1: the TOML structure.

/// A spec as written: what the TOML deserialiser checks (key names, types).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub(super) name: Spanned<String>,
    pub(super) game: Spanned<String>,
    pub(super) seed: Spanned<u64>,
    pub(super) format: Option<Spanned<String>>,
    pub(super) challengers: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) openings: Spanned<RawOpenings>,
    pub(super) games: Option<Spanned<i64>>,
    pub(super) rounds: Option<Spanned<i64>>,
    pub(super) anchor: Option<Spanned<String>>,
    pub(super) anchor_elo: Option<Spanned<f64>>,
    pub(super) sprt: Option<Spanned<RawSprt>>,
    pub(super) ratings: Option<Spanned<RawRatings>>,
    pub(super) tc: Option<Spanned<String>>,
    pub(super) st: Option<Spanned<String>>,
    pub(super) timemargin: Option<Spanned<String>>,
    pub(super) adjudication: Option<Spanned<RawAdjudication>>,
    pub(super) output: Option<Spanned<RawOutput>>,
    /// `[outside]`: how every outside program is held (its engines' own keys win).
    pub(super) outside: Option<Spanned<RawGuard>>,
    /// Each concurrent game on its own cores.
    pub(super) affinity: Option<Spanned<bool>>,
    #[serde(default)]
    pub(super) engine: Vec<Spanned<RawEngine>>,
}

/// `[outside]`, and the same keys in an outside engine's table: how an untrusted program is
/// held (`spec::guard`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawGuard {
    pub(super) memory_limit: Option<Spanned<String>>,
    pub(super) process_limit: Option<Spanned<i64>>,
    pub(super) cpu_limit: Option<Spanned<String>>,
    pub(super) write_limit: Option<Spanned<String>>,
    pub(super) confine: Option<Spanned<bool>>,
    pub(super) readable: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) pause: Option<Spanned<bool>>,
    pub(super) restart: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOpenings {
    pub(super) plies: Option<Spanned<i64>>,
    pub(super) count: Option<Spanned<i64>>,
    pub(super) file: Option<Spanned<String>>,
    pub(super) balance_depth: Option<Spanned<i64>>,
    pub(super) max_imbalance: Option<Spanned<f64>>,
    pub(super) order: Option<Spanned<String>>,
    pub(super) start: Option<Spanned<i64>>,
}

/// `[adjudication]`: perfect-knowledge adjudication by the game's solver, and the score rules.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAdjudication {
    pub(super) solver: Option<Spanned<bool>>,
    pub(super) othello_empties: Option<Spanned<i64>>,
    pub(super) connect4_nodes: Option<Spanned<i64>>,
    pub(super) morpion_nodes: Option<Spanned<i64>>,
    pub(super) draw: Option<Spanned<RawDrawRule>>,
    pub(super) resign: Option<Spanned<RawResignRule>>,
}

/// `[output]`: files the run writes besides its report.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOutput {
    pub(super) records: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) engine_log_mib: Option<Spanned<i64>>,
}

/// `[adjudication.draw]`: cutechess' `-draw`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDrawRule {
    pub(super) move_number: Option<Spanned<i64>>,
    pub(super) move_count: Spanned<i64>,
    pub(super) score: Spanned<i64>,
}

/// `[adjudication.resign]`: cutechess' `-resign`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawResignRule {
    pub(super) move_count: Spanned<i64>,
    pub(super) score: Spanned<i64>,
    pub(super) two_sided: Option<Spanned<bool>>,
}

/// `[ratings]`: the rating model.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRatings {
    pub(super) first_move: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSprt {
    pub(super) elo0: Spanned<f64>,
    pub(super) elo1: Spanned<f64>,
    pub(super) alpha: Option<Spanned<f64>>,
    pub(super) beta: Option<Spanned<f64>>,
    pub(super) model: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEngine {
    /// Required in a tournament; a tuning spec's tuned engine has none.
    pub(super) name: Option<Spanned<String>>,
    /// Required for a built-in engine; an outside engine has `command` instead.
    pub(super) algorithm: Option<Spanned<String>>,
    pub(super) command: Option<Spanned<String>>,
    /// A hosted engine: the key of a function the program running the spec supplies.
    pub(super) hosted: Option<Spanned<String>>,
    pub(super) args: Option<Spanned<Vec<String>>>,
    pub(super) protocol: Option<Spanned<String>>,
    pub(super) protocol_version: Option<Spanned<i64>>,
    pub(super) working_dir: Option<Spanned<String>>,
    pub(super) options: Option<Spanned<toml::Table>>,
    pub(super) stall_timeout: Option<Spanned<String>>,
    pub(super) depth: Option<Spanned<i64>>,
    pub(super) nodes: Option<Spanned<i64>>,
    pub(super) time: Option<Spanned<String>>,
    pub(super) playouts: Option<Spanned<i64>>,
    pub(super) weights: Option<Spanned<toml::Value>>,
    pub(super) ordering: Option<Spanned<String>>,
    pub(super) fail_soft: Option<Spanned<bool>>,
    pub(super) tt_mib: Option<Spanned<i64>>,
    pub(super) tolerance: Option<Spanned<i64>>,
    pub(super) exploration: Option<Spanned<f64>>,
    pub(super) tree_mib: Option<Spanned<i64>>,
    pub(super) tie_break: Option<Spanned<bool>>,
    pub(super) exact: Option<Spanned<i64>>,
    pub(super) near: Option<Spanned<i64>>,
    /// The threat search of the k-in-a-row games (`pvs`, `mtdf`).
    pub(super) threats: Option<Spanned<bool>>,
    /// With `threats`: the nodes of each leaf's VCF search.
    pub(super) vcf: Option<Spanned<i64>>,
    /// With `threats`: the nodes of the VCT searches at the root.
    pub(super) vct: Option<Spanned<i64>>,
    /// With `threats`: late move reductions.
    pub(super) lmr: Option<Spanned<bool>>,
    /// The cores the engine may use (today: its exact endgame's threads).
    pub(super) threads: Option<Spanned<i64>>,
    /// The engine's own clock (time odds), in place of the spec's.
    pub(super) tc: Option<Spanned<String>>,
    pub(super) st: Option<Spanned<String>>,
    pub(super) timemargin: Option<Spanned<String>>,
    // How the program is held (`RawGuard`'s keys: serde's `flatten` cannot go with
    // `deny_unknown_fields`, so they are repeated here).
    pub(super) memory_limit: Option<Spanned<String>>,
    pub(super) process_limit: Option<Spanned<i64>>,
    pub(super) cpu_limit: Option<Spanned<String>>,
    pub(super) write_limit: Option<Spanned<String>>,
    pub(super) confine: Option<Spanned<bool>>,
    pub(super) readable: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) pause: Option<Spanned<bool>>,
    pub(super) restart: Option<Spanned<String>>,
}

impl RawEngine {
    /// The `name` key, when given.
    pub(crate) fn name(&self) -> Option<&Spanned<String>> {
        self.name.as_ref()
    }

    /// The `weights` key, when given.
    pub(crate) fn weights_value(&self) -> Option<&Spanned<toml::Value>> {
        self.weights.as_ref()
    }

    /// Whether the table is an outside program's (`command` given).
    pub(crate) fn is_outside(&self) -> bool {
        self.command.is_some()
    }
}

/// The two kinds of spec, told apart by the keys only one of them has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecKind {
    /// A tournament (`joute run`): `[[engine]]` tables, `format`, `anchor`, ...
    Tournament,
    /// A tuning run (`joute tune`): `method`, `[engine]`, `[[param]]`, `[budget]`, ...
    Tuning,
}

impl SpecKind {
    /// Judges a spec's text; `None` when it is not TOML or has none of the telling keys.
    pub fn of(text: &str) -> Option<SpecKind> {
        let table: toml::Table = toml::from_str(text).ok()?;
        const TOURNAMENT: [&str; 10] = [
            "adjudication",
            "format",
            "ratings",
            "challengers",
            "rounds",
            "anchor",
            "anchor_elo",
            "tc",
            "st",
            "timemargin",
        ];
        let tuning = TUNING_KEYS
            .iter()
            .filter(|k| table.contains_key(**k))
            .count()
            + usize::from(table.get("engine").is_some_and(toml::Value::is_table));
        let tournament = TOURNAMENT
            .iter()
            .filter(|k| table.contains_key(**k))
            .count()
            + usize::from(table.get("engine").is_some_and(toml::Value::is_array));
        match tuning.cmp(&tournament) {
            std::cmp::Ordering::Greater => Some(SpecKind::Tuning),
            std::cmp::Ordering::Less => Some(SpecKind::Tournament),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// The error for a spec of this kind given to the other command.
    pub fn wrong_command(self, file: &str) -> SpecError {
        let (what, command) = match self {
            SpecKind::Tournament => ("a tournament spec", "joute run"),
            SpecKind::Tuning => ("a tuning spec", "joute tune"),
        };
        SpecError {
            file: file.to_string(),
            line: 0,
            column: 0,
            key: String::new(),
            message: format!("this is {what}: run it with `{command} {file}`"),
        }
    }
}

impl RawSpec {
    /// Reads the TOML structure of a spec; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<RawSpec, SpecError> {
        toml::from_str(text).map_err(|e| {
            if SpecKind::of(text) == Some(SpecKind::Tuning) {
                return SpecKind::Tuning.wrong_command(file);
            }
            let loc = Locator {
                file,
                text,
                base: None,
            };
            let offset = e.span().map_or(0, |s| s.start);
            let (key, message) = plain_serde_message(e.message(), text, offset);
            loc.at(offset, &key, message)
        })
    }
}

/// Keys only a tuning spec has at its top level.
const TUNING_KEYS: [&str; 9] = [
    "method",
    "weights_out",
    "opponent",
    "pool",
    "budget",
    "hill",
    "spsa",
    "confirm",
    "param",
];

/// Keys of a spec's top level that no engine table has, besides [`TUNING_KEYS`]: written below
/// an engine's table header, they land in that table.
const TOP_LEVEL_ONLY: [&str; 16] = [
    "game",
    "seed",
    "format",
    "challengers",
    "openings",
    "games",
    "rounds",
    "anchor",
    "anchor_elo",
    "sprt",
    "ratings",
    "adjudication",
    "output",
    "regression",
    "outside",
    "affinity",
];

/// The table the byte `offset` of `text` lies in, as a key path — `engine[2]` in the second
/// `[[engine]]` table, `openings` below `[openings]`, `None` at the top level — and whether the
/// offset's line is that table's header. Read from the header lines (`[name]`, `[[name]]`).
fn table_at(text: &str, offset: usize) -> (Option<String>, bool) {
    let header = |line: &str| -> Option<(String, bool)> {
        let line = line.split('#').next().unwrap_or("").trim();
        let (inner, array) = match line.strip_prefix("[[") {
            Some(rest) => (rest.strip_suffix("]]")?, true),
            None => (line.strip_prefix('[')?.strip_suffix(']')?, false),
        };
        let inner = inner.trim();
        let is_key = inner.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '"')
            && inner
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.\" '".contains(c));
        is_key.then(|| (inner.replace(['"', ' '], ""), array))
    };
    let offset = (0..=offset.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let end_of_line = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let mut found = None;
    let mut on_header = false;
    let mut counts: std::collections::HashMap<String, usize> = Default::default();
    for line in text[..end_of_line].lines() {
        on_header = false;
        if let Some((name, array)) = header(line) {
            on_header = true;
            found = Some(if array {
                let n = counts.entry(name.clone()).or_default();
                *n += 1;
                format!("{name}[{n}]")
            } else {
                name
            });
        }
    }
    (found, on_header)
}

/// Rewrites the deserialiser's message in the project's words: the key it is about (as a path:
/// `engine[1].st`), and what is wrong.
pub(crate) fn plain_serde_message(message: &str, text: &str, offset: usize) -> (String, String) {
    let (key, message) = plain_serde_message_of_key(message, text, offset);
    let key = match table_at(text, offset) {
        _ if key.is_empty() => key,
        (Some(table), true) => table,
        (Some(table), false) => format!("{table}.{key}"),
        (None, _) => key,
    };
    (key, message)
}

fn plain_serde_message_of_key(message: &str, text: &str, offset: usize) -> (String, String) {
    let message = message.trim();
    let ticks = |s: &str| s.replace('`', "'");
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (key, allowed) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed = allowed
            .trim_start_matches(", expected one of ")
            .trim_start_matches(", expected ")
            .replace('`', "");
        // TOML's trap: a spec-wide key written below an engine's table header is that table's.
        let in_engine = allowed.split(", ").any(|k| k == "algorithm");
        if in_engine && (TOP_LEVEL_ONLY.contains(&key) || TUNING_KEYS.contains(&key)) {
            return (
                key.to_string(),
                format!(
                    "unknown key in an engine's table; '{key}' belongs at the top of the spec, above the first [[engine]] table (in TOML every key below a table's header is that table's)"
                ),
            );
        }
        // A misspelling gets the key meant (as the command line does), not the whole list.
        let closest = allowed
            .split(", ")
            .map(|k| (strsim::damerau_levenshtein(key, k), k))
            .filter(|(d, k)| *d <= 2 && *d < k.len())
            .min();
        return (
            key.to_string(),
            match closest {
                Some((_, meant)) => format!("unknown key; did you mean '{meant}'?"),
                None => format!("unknown key; allowed keys here: {allowed}"),
            },
        );
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let key = rest.trim_end_matches('`');
        return (
            key.to_string(),
            format!("missing key '{key}' (required here)"),
        );
    }
    let key = crate::eval::weights::key_on_line(text, offset);
    // serde names the Rust type it wanted ("expected struct RawSprt"): say what it is in TOML.
    let mut message = ticks(message);
    while let Some(at) = message.find("struct Raw") {
        let end = message[at + 7..]
            .find(|c: char| !c.is_alphanumeric())
            .map_or(message.len(), |e| at + 7 + e);
        message.replace_range(at..end, "a table");
    }
    (if key == "(none)" { String::new() } else { key }, message)
}

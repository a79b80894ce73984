//! Tuning an outside engine's options, as fishtest and OpenBench let an engine's author tune
//! their own parameters: `[engine]` is an outside program (`command`, `protocol`, `options`, …
//! as in tournaments) and each `[[param]]` names one of its options. The candidates are played
//! by [`self::oracle::OutsideOracle`] through the arena's outside-engine games; the
//! confirmation and A/A matches play the program with the tuned options against the start's;
//! the result is `tuned-options.toml`, an `options = { ... }` table a tournament spec can paste.
//!
//! Games of outside programs are theirs to make reproducible (and games on a clock never are):
//! [`not_reproducible`] says what a run's results depend on, and the summary, the report, the
//! terminal and the options file repeat it.

use super::optimise::params::values;
use super::optimise::spsa::SpsaState;
use super::record::OutsideRecord;
use super::spec::{ResolvedTuneSpec, option_text};

pub mod oracle;

/// The tuned options in the run's folder (instead of `tuned-weights.toml`).
pub const TUNED_OPTIONS: &str = "tuned-options.toml";

/// What the results of a run depend on besides its spec and seed: empty for a built-in engine
/// at a depth or node budget; the outside program, the clock, and pool engines' time limits.
pub fn not_reproducible(spec: &ResolvedTuneSpec) -> Vec<String> {
    let mut reasons = Vec::new();
    if let Some(o) = &spec.engine.outside {
        reasons.push(format!("outside program '{}'", o.command_line()));
    }
    if spec.clock.is_some() {
        reasons.push("clock".to_string());
    }
    for e in &spec.pool {
        if e.time_ms.is_some() {
            reasons.push(format!("time limit of pool engine '{}'", e.name));
        }
    }
    reasons
}

/// The sentence the summary, the report and the terminal say about [`not_reproducible`].
pub fn not_reproducible_note(reasons: &[String]) -> Option<String> {
    (!reasons.is_empty()).then(|| {
        format!(
            "not reproducible: the games depend on {}; the same spec and seed play the same openings and schedule, but another run may not get the same results",
            reasons.join(", ")
        )
    })
}

/// The record's part of an outside engine's run (`None` for a built-in engine).
pub fn record(spec: &ResolvedTuneSpec, theta: &[f64]) -> Option<OutsideRecord> {
    spec.is_outside().then(|| OutsideRecord {
        options: options_table(spec, theta),
        not_reproducible: not_reproducible(spec),
        sent: (spec.options.iter().zip(theta))
            .map(|(o, &x)| option_text(x, o.integer))
            .collect(),
    })
}

/// Why the confirmation is not worth playing, if so: every tuned option, as sent (an integer
/// option rounded), is the start's, so the tuned program is the start program.
pub fn unchanged(spec: &ResolvedTuneSpec, theta: &[f64]) -> Option<String> {
    let start = values(&spec.params);
    (spec.is_outside() && spec.options_with(theta) == spec.options_with(&start)).then(|| {
        format!(
            "the tuned options as sent equal the start's ({}): the tuned program is the start program",
            sent_lines(spec, theta).join(", ")
        )
    })
}

/// Warnings before an SPSA run of an outside engine: each integer option that the schedule
/// cannot move by one whole step even if θ+ won every game ([`SpsaState::max_travel`]).
pub fn schedule_warnings(spec: &ResolvedTuneSpec) -> Vec<String> {
    let Some(config) = spec.spsa.clone().filter(|_| spec.is_outside()) else {
        return Vec::new();
    };
    let state = SpsaState::new(spec.params.clone(), config.clone());
    spec.options
        .iter()
        .zip(&spec.params)
        .enumerate()
        .filter(|(_, (o, _))| o.integer)
        .filter_map(|(i, (o, p))| {
            let travel = state.max_travel(i);
            (travel < 1.0).then(|| {
                format!(
                    "option '{}' is sent as a whole number, but SPSA's schedule moves it by at most {} in all ({} iterations of {} pair{}, c_end {}, r_end {}, every game won): less than one step, so it may never change as sent; raise r_end or the iterations",
                    o.name,
                    estimate_text(travel),
                    config.iterations,
                    config.pairs,
                    if config.pairs == 1 { "" } else { "s" },
                    estimate_text(p.c_end()),
                    p.r_end()
                )
            })
        })
        .collect()
}

/// A TOML key: bare when it can be, quoted otherwise (a `.` would make it a dotted key).
fn toml_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        name.to_string()
    } else {
        toml::Value::String(name.to_string()).to_string()
    }
}

/// An option's value as TOML that a spec reads back as the same text: a number or boolean
/// bare when it reads back as written, a string otherwise.
fn toml_value(text: &str) -> String {
    let bare = match text {
        "true" | "false" => true,
        _ => {
            text.parse::<i64>().is_ok_and(|i| i.to_string() == text)
                || text
                    .parse::<f64>()
                    .is_ok_and(|x| x.is_finite() && x.to_string() == text && text.contains('.'))
        }
    };
    if bare {
        text.to_string()
    } else {
        toml::Value::String(text.to_string()).to_string()
    }
}

/// The engine's options with the tuned ones set to `theta`, as a tournament spec writes them:
/// `options = { noise = 3, seed = 1 }`.
pub fn options_table(spec: &ResolvedTuneSpec, theta: &[f64]) -> String {
    let entries: Vec<String> = spec
        .options_with(theta)
        .iter()
        .map(|(k, v)| format!("{} = {}", toml_key(k), toml_value(v)))
        .collect();
    format!("options = {{ {} }}", entries.join(", "))
}

/// Each tuned option as sent and, when rounding changed it, the real-valued estimate behind it:
/// `level: sent 7 (estimate 7.4707)`, `noise: sent 12.5`.
pub fn sent_lines(spec: &ResolvedTuneSpec, theta: &[f64]) -> Vec<String> {
    spec.options
        .iter()
        .zip(theta)
        .map(|(o, &x)| {
            let sent = option_text(x, o.integer);
            if sent.parse::<f64>().is_ok_and(|v| v == x) {
                format!("{}: sent {sent}", o.name)
            } else {
                format!("{}: sent {sent} (estimate {})", o.name, estimate_text(x))
            }
        })
        .collect()
}

/// A real-valued estimate, to four decimals at most (7.4707, 60).
pub fn estimate_text(x: f64) -> String {
    let text = format!("{x:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

/// The text of `tuned-options.toml`: `header` as comments (with what the results depend on and
/// each tuned option's estimate), then the program's `[[engine]]` table with its options as
/// sent, pasted whole into a tournament spec: its program found (absolute when written as a
/// path), its arguments, protocol, working folder and budget as the tuning ran it.
pub fn options_file(spec: &ResolvedTuneSpec, theta: &[f64], header: &str) -> String {
    let mut text = String::new();
    for line in header.lines() {
        text.push_str(&format!("# {line}\n"));
    }
    if let Some(note) = not_reproducible_note(&not_reproducible(spec)) {
        text.push_str(&format!("# Results {note}.\n"));
    }
    text.push_str(
        "# The program with its options as sent (whole numbers as the program gets them); paste\n# this table into a tournament spec. Tuned:\n",
    );
    for line in sent_lines(spec, theta) {
        text.push_str(&format!("#   {line}\n"));
    }
    let Some(o) = &spec.engine.outside else {
        text.push_str(&options_table(spec, theta));
        text.push('\n');
        return text;
    };
    let quoted = |t: &str| toml::Value::String(t.to_string()).to_string();
    // A path is made absolute: the table is pasted into a spec elsewhere; a name stays a name,
    // looked up in PATH.
    let written = o.command.to_string_lossy();
    let command = match &o.program {
        Some(p) if written.contains('/') || written.contains('\\') => p.display().to_string(),
        _ => written.into_owned(),
    };
    text.push_str("[[engine]]\n");
    text.push_str(&format!(
        "name = {}\n",
        quoted(&format!("{}-tuned", spec.name))
    ));
    text.push_str(&format!("command = {}\n", quoted(&command)));
    if !o.args.is_empty() {
        let args: Vec<String> = o.args.iter().map(|a| quoted(a)).collect();
        text.push_str(&format!("args = [{}]\n", args.join(", ")));
    }
    text.push_str(&format!("protocol = {}\n", quoted(o.protocol.name())));
    if let Some(v) = o.protocol_version {
        text.push_str(&format!("protocol_version = {v}\n"));
    }
    if o.working_dir.is_some()
        && let Some(folder) = o.folder.as_ref().or(o.working_dir.as_ref())
    {
        text.push_str(&format!(
            "working_dir = {}\n",
            quoted(&folder.display().to_string())
        ));
    }
    if let Some(d) = o.depth {
        text.push_str(&format!("depth = {d}\n"));
    }
    if let Some(n) = o.nodes {
        text.push_str(&format!("nodes = {n}\n"));
    }
    text.push_str(&options_table(spec, theta));
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::optimise::spsa::{A_RATIO, ALPHA, GAMMA};

    /// An SPSA spec of an outside program's integer option `level`, from `start`, with the
    /// parameter's `extra` keys.
    fn level_spec(start: u32, iterations: u64, extra: &str) -> ResolvedTuneSpec {
        let text = format!(
            r#"name = "t"
game = "connect4"
seed = 5
method = "spsa"

[engine]
command = "python3"
args = ["-S", "engine.py", "--flag", "with space"]
protocol = "line"
depth = 3
options = {{ level = {start}, "hash.mb" = 16, mode = "fast" }}

[openings]
plies = 6

[budget]
iterations = {iterations}

[confirm]
games = 200

[[param]]
name = "level"
min = 0
max = 20
step = 2
integer = true
{extra}"#
        );
        crate::tune::spec::parse(&text, "t.toml").unwrap()
    }

    #[test]
    fn the_options_file_is_an_engine_table_a_tournament_spec_reads_as_sent() {
        let spec = level_spec(11, 20, "");
        let text = options_file(&spec, &[7.4707], "Tuned by joute\nsecond line");
        assert!(
            text.starts_with("# Tuned by joute\n# second line\n"),
            "{text}"
        );
        assert!(
            text.contains("#   level: sent 7 (estimate 7.4707)\n"),
            "{text}"
        );
        // Pasted whole into a tournament spec beside another engine, it reads back as the
        // program the tuning ran, its options as sent.
        let tournament = format!(
            "name = \"c\"\ngame = \"connect4\"\nseed = 1\nopenings = {{ plies = 2, count = 2 }}\n\n{text}\n[[engine]]\nname = \"r\"\nalgorithm = \"random\"\n"
        );
        let read = crate::arena::spec::TournamentSpec::parse(&tournament, "c.toml")
            .unwrap_or_else(|e| panic!("{e}\n{tournament}"));
        let engine = &read.resolved.engines[0];
        assert_eq!(engine.name, "t-tuned");
        let o = engine.outside.as_ref().unwrap();
        let tuned = spec.engine.outside.as_ref().unwrap();
        assert_eq!(o.command, tuned.command);
        assert_eq!(o.args, tuned.args);
        assert_eq!(o.protocol, tuned.protocol);
        assert_eq!(o.depth, Some(3));
        let sent: Vec<(&str, &str)> = o
            .options
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(sent, [("hash.mb", "16"), ("level", "7"), ("mode", "fast")]);
        assert_eq!(
            text.lines().last().unwrap(),
            options_table(&spec, &[7.4707])
        );
    }

    #[test]
    fn unchanged_compares_the_options_as_sent() {
        let spec = level_spec(11, 20, "");
        // 10.70 is sent as 11: the start's value.
        let why = unchanged(&spec, &[10.70]).unwrap();
        assert!(why.contains("level: sent 11 (estimate 10.7)"), "{why}");
        assert_eq!(unchanged(&spec, &[10.49]), None);
        assert_eq!(unchanged(&spec, &[11.5]), None);
        let record = record(&spec, &[10.49]).unwrap();
        assert_eq!(record.sent, ["10"]);
    }

    #[test]
    fn a_schedule_that_cannot_move_an_integer_option_by_one_is_warned_of() {
        // The most θ can move, computed here from docs/statistics.md's schedule: every
        // iteration θ+ wins all of its pairs (W - L = 2 pairs, one pair by default).
        let travel = |n: u64, c_end: f64, r_end: f64| -> f64 {
            let nf = n as f64;
            let big_a = A_RATIO * nf;
            let a = r_end * c_end * c_end * (big_a + nf).powf(ALPHA);
            let c = c_end * nf.powf(GAMMA);
            (1..=n)
                .map(|k| {
                    let c_k = c / (k as f64).powf(GAMMA);
                    a / (big_a + k as f64).powf(ALPHA) / c_k * 2.0
                })
                .sum()
        };
        let spec = level_spec(11, 20, "");
        let expected = travel(20, 2.0, 0.002);
        assert!(expected < 1.0, "{expected}");
        let warnings = schedule_warnings(&spec);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with(&format!(
                "option 'level' is sent as a whole number, but SPSA's schedule moves it by at most {} in all (20 iterations of 1 pair, c_end 2, r_end 0.002",
                estimate_text(expected)
            )),
            "{}",
            warnings[0]
        );
        // A learning rate that can move it: no warning.
        let spec = level_spec(11, 20, "r_end = 0.2");
        assert!(travel(20, 2.0, 0.2) >= 1.0);
        assert!(schedule_warnings(&spec).is_empty());
    }

    #[test]
    fn values_are_sent_and_written_so_that_a_spec_reads_them_back_alike() {
        assert_eq!(option_text(12.6, true), "13");
        assert_eq!(option_text(-0.4, true), "0");
        assert_eq!(option_text(12.5, false), "12.5");
        assert_eq!(option_text(3.0, false), "3");
        assert_eq!(option_text(-0.0, false), "0");
        assert_eq!(toml_value("13"), "13");
        assert_eq!(toml_value("12.5"), "12.5");
        assert_eq!(toml_value("true"), "true");
        // Written bare, 1.0 would read back as "1": a string keeps what the program gets.
        assert_eq!(toml_value("1.0"), "\"1.0\"");
        assert_eq!(toml_value("007"), "\"007\"");
        assert_eq!(toml_value("fast mode"), "\"fast mode\"");
        assert_eq!(toml_key("noise"), "noise");
        assert_eq!(toml_key("hash.mb"), "\"hash.mb\"");
        // Every bare or quoted value reads back as the text sent.
        for text in ["13", "12.5", "true", "1.0", "007", "-3", "0.000001", "1e5"] {
            let table: toml::Table = format!("v = {}", toml_value(text)).parse().unwrap();
            let back = match &table["v"] {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(x) => x.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => panic!("{other:?}"),
            };
            assert_eq!(back, text);
        }
    }
}

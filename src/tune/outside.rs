//! Tuning an outside engine's options, as fishtest and OpenBench let an engine's author tune
//! their own parameters: `[engine]` is an outside program (`command`, `protocol`, `options`, …
//! as in tournaments) and each `[[param]]` names one of its options. The candidates are played
//! by [`super::outside_oracle::OutsideOracle`] through the arena's outside-engine games; the
//! confirmation and A/A matches play the program with the tuned options against the start's;
//! the result is `tuned-options.toml`, an `options = { ... }` table a tournament spec can paste.
//!
//! Games of outside programs are theirs to make reproducible (and games on a clock never are):
//! [`not_reproducible`] says what a run's results depend on, and the summary, the report, the
//! terminal and the options file repeat it.

use super::record::OutsideRecord;
use super::spec::ResolvedTuneSpec;

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
    })
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

/// The text of `tuned-options.toml`: `header` as comments (with what the results depend on),
/// then the options table to paste into the engine's table of a tournament spec.
pub fn options_file(spec: &ResolvedTuneSpec, theta: &[f64], header: &str) -> String {
    let mut text = String::new();
    for line in header.lines() {
        text.push_str(&format!("# {line}\n"));
    }
    if let Some(note) = not_reproducible_note(&not_reproducible(spec)) {
        text.push_str(&format!("# Results {note}.\n"));
    }
    text.push_str(&format!(
        "# The program's options, tuned ones included; paste the line below into its [[engine]]\n# table (command = \"{}\", protocol = \"{}\").\n",
        spec.engine
            .outside
            .as_ref()
            .map_or(String::new(), |o| o.command_line()),
        spec.engine
            .outside
            .as_ref()
            .map_or("", |o| o.protocol.name()),
    ));
    text.push_str(&options_table(spec, theta));
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::spec::option_text;

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

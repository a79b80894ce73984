//! One-line errors for command lines clap refuses with an unknown argument or subcommand, naming
//! the flag meant: a typo's nearest flag, a long option written with one dash (`-concurrency`, the
//! cutechess-cli and fastchess habit), or what joute has instead of their other options.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, Error, ErrorKind};
use clap::{Command, CommandFactory};

use super::Cli;

/// Options of cutechess-cli and fastchess that `joute match` has no flag of the same meaning for,
/// and what to write instead.
const FOREIGN_MATCH_OPTIONS: &[(&[&str], &str)] = &[
    (
        &["rounds"],
        "joute match counts games: --games N plays N/2 openings, each twice with colours swapped (like -rounds N/2 -games 2 -repeat)",
    ),
    (
        &["repeat"],
        "every opening is already played twice, colours swapped: leave it out",
    ),
    (
        &["tc", "st"],
        "write --tc 10+0.1 (a game clock for every engine: [MOVES/]SECONDS[+INCREMENT]) or --st 100ms (a time per move), with --timemargin 50ms; an engine's own clock goes in its argument: pvs:30,tc=10+0.1",
    ),
    (
        &["engine", "each", "fcp", "scp", "both"],
        "an engine is one argument, ALGORITHM[:BUDGET][:exact=N][:WEIGHTS.toml] (pvs:6) or cmd=PROGRAM,proto=PROTOCOL,...; the clock of every engine is --tc 10+0.1 or --st 100ms; see 'joute match --help'",
    ),
    (
        &["nodes", "depth", "plies"],
        "an engine and its budget are one argument, ALGORITHM[:BUDGET][:exact=N][:WEIGHTS.toml]: pvs:6 (depth), pvs:n100000 (nodes), pvs:200ms (time per move); see 'joute match --help'",
    ),
    (
        &["sprt"],
        "write --sprt ELO0,ELO1[,MODEL] (--sprt 0,5: logistic Elo, alpha = beta = 5%) or one argument with commas, --sprt elo0=0,elo1=5,alpha=0.05,beta=0.05,model=normalized",
    ),
    (
        &["openings", "book"],
        "--openings PLIES draws random openings of that many plies; an openings file goes in a tournament spec (openings = { file = \"FILE\" }) for joute run SPEC.toml",
    ),
    (
        &["pgnout", "epdout", "pgn"],
        "--out DIR --records pgn writes DIR/games.pgn as the games are played (also ggf, wtb, moves, psq, sgf), beside DIR/games.jsonl with every game; 'joute export' turns a log into records later",
    ),
    (
        &["recover"],
        "joute always recovers: an engine that crashes, hangs or answers nonsense loses that game and is started again for the next; leave it out (--resume continues an interrupted match from its --out folder)",
    ),
    (
        &["tournament"],
        "joute match plays two engines; a round robin or a gauntlet of more is a spec for joute run SPEC.toml",
    ),
];

/// The one line (`error: …`, no newline) that replaces clap's report of an unknown argument or
/// subcommand in the command line `args` (the program name first).
pub fn unknown_argument(err: &Error, args: &[OsString]) -> String {
    let cli = Cli::command();
    // joute takes no option before its command, so the first word is the command.
    let command = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find(|a| !a.starts_with('-'))
        .and_then(|name| cli.find_subcommand(name));
    let help = match command {
        Some(c) => format!("see 'joute {} --help'", c.get_name()),
        None => "see 'joute --help'".to_string(),
    };
    if err.kind() == ErrorKind::InvalidSubcommand {
        let name = text(err, ContextKind::InvalidSubcommand).unwrap_or_default();
        let advice = match err.get(ContextKind::SuggestedSubcommand) {
            Some(ContextValue::Strings(names)) if !names.is_empty() => {
                format!("did you mean '{}'?", names.join("' or '"))
            }
            _ => help,
        };
        return format!("error: unrecognized subcommand '{name}'; {advice}");
    }
    let invalid = text(err, ContextKind::InvalidArg).unwrap_or_default();
    // `--games -5`, `--shard -1/2`: clap takes a value starting with a minus for flags (`-1`
    // of `-1/2`); name the option it was given to, found before the word the user wrote.
    let words: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
    let given =
        words.iter().enumerate().skip(1).find(|(_, w)| {
            **w == invalid || (!w.starts_with("--") && w.starts_with(invalid.as_str()))
        });
    if let Some((at, word)) = given
        && word.len() > 1
        && word[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && let Some(flag) = words.get(at - 1).filter(|a| a.starts_with("--"))
    {
        return if word.parse::<f64>().is_ok() {
            format!("error: {flag} is {word}; it must be a positive number")
        } else {
            format!(
                "error: {flag} is {word}; it cannot be negative; see 'joute {} --help'",
                command.map_or("", |c| c.get_name())
            )
        };
    }
    let (shown, mut advice) = advise(&invalid, command, err, args);
    if command.is_none() {
        // clap's "'run --threads' exists" for an option written before the command.
        advice = advice.map(|a| format!("options go after the command: {a}"));
    }
    format!(
        "error: unexpected argument '{shown}' found; {}",
        advice.unwrap_or(help)
    )
}

/// The argument as the user wrote it and what to write instead, when something better than the
/// help can be said.
fn advise(
    invalid: &str,
    command: Option<&Command>,
    err: &Error,
    args: &[OsString],
) -> (String, Option<String>) {
    let foreign = |name: &str| {
        command
            .filter(|c| c.get_name() == "match")
            .and_then(|_| {
                FOREIGN_MATCH_OPTIONS
                    .iter()
                    .find(|(names, _)| names.contains(&name))
            })
            .map(|(_, hint)| hint.to_string())
    };
    if let Some(long) = invalid.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or(long);
        let advice = foreign(name)
            .or_else(|| match err.get(ContextKind::SuggestedArg) {
                Some(ContextValue::String(flag)) => Some(format!("did you mean '{flag}'?")),
                _ => None,
            })
            .or_else(|| clap_suggestion(err));
        return (invalid.to_string(), advice);
    }
    let Some(short) = invalid.strip_prefix('-').filter(|s| s.chars().count() == 1) else {
        return (invalid.to_string(), clap_suggestion(err));
    };
    let longs = command.map(long_names).unwrap_or_default();
    // clap reads `-concurrency` as the short flags -c -o -n …: find the word the user wrote.
    let word = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find(|a| a.starts_with(invalid) && a.len() > 2 && !a.starts_with("--"));
    if let Some(word) = word {
        let name = word[1..].split('=').next().unwrap_or(&word[1..]);
        let advice = foreign(name).or_else(|| {
            longs
                .iter()
                .any(|l| l == name)
                .then(|| format!("joute's long options take two dashes: '--{name}'"))
        });
        if advice.is_some() {
            return (word.to_string(), advice);
        }
    }
    let shown = word.unwrap_or(invalid).to_string();
    // A short flag: joute has none but -h and -V; name the long options it may stand for.
    let starting: Vec<String> = longs
        .iter()
        .filter(|l| l.starts_with(short))
        .map(|l| format!("'--{l}'"))
        .collect();
    let advice = match starting.as_slice() {
        [] => None,
        [one] => Some(format!("did you mean {one}?")),
        [rest @ .., last] => Some(format!("did you mean {} or {last}?", rest.join(", "))),
    };
    (shown, advice)
}

/// The long names and visible aliases of a command's options, without the dashes.
fn long_names(command: &Command) -> Vec<String> {
    command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .flat_map(|a| a.get_long_and_visible_aliases().unwrap_or_default())
        .map(str::to_string)
        .collect()
}

/// clap's own suggestion (`'run --threads' exists`), leaving out its tip to pass a flag as a
/// value after `--`, which never fits joute's arguments.
fn clap_suggestion(err: &Error) -> Option<String> {
    match err.get(ContextKind::Suggested) {
        Some(ContextValue::StyledStrs(tips)) => tips
            .iter()
            .map(|t| t.to_string())
            .find(|t| !t.starts_with("to pass")),
        _ => None,
    }
}

/// A context value of the error as plain text.
fn text(err: &Error, kind: ContextKind) -> Option<String> {
    match err.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(s) => s.first().cloned(),
        other => Some(other.to_string()),
    }
}

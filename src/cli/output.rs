//! Writing to the terminal without panicking.
//!
//! `println!` panics when stdout is a pipe whose reader has gone (`joute features othello |
//! head -1`). Results go through [`say!`] instead, which returns the write's `io::Result`: a
//! closed pipe travels up as `BrokenPipe`, which `main` turns into a quiet exit after every
//! destructor on the way has run (a match's scratch folder is removed). Notes and progress go
//! through [`note!`] to stderr, where a failed write is dropped: a missing note is no reason to
//! stop a run.

use std::borrow::Cow;
use std::fmt;
use std::io::Write;

/// The longest error line joute prints: an echoed input (a 70,000-character name, a 309-digit
/// number) is cut in the middle to fit.
pub const MAX_ERROR_CHARS: usize = 300;

/// Writes formatted text to stdout, every control character but the line breaks escaped.
pub fn write_out(args: fmt::Arguments) -> std::io::Result<()> {
    let text = args.to_string();
    std::io::stdout()
        .lock()
        .write_all(lines_for_terminal(&text).as_bytes())
}

/// Writes formatted text to stderr, every control character but the line breaks escaped,
/// ignoring a failure.
pub fn write_err(args: fmt::Arguments) {
    let text = args.to_string();
    let _ = std::io::stderr()
        .lock()
        .write_all(lines_for_terminal(&text).as_bytes());
}

/// `text` with every control character written as an escape (`\e`, `\n`, `\t`, `\u{9b}`):
/// user text echoed in a message can then neither move the cursor, clear the screen, retitle
/// the terminal nor break the message onto several lines.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    joute::outputs::escape_controls(text)
}

/// [`for_terminal`] line by line: the text's own line breaks stay.
fn lines_for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.split('\n')
            .map(for_terminal)
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// `text` cut to at most `max` characters: the longest words lose their middle first,
/// replaced by `…` — a path before anything else (a long location is worth less than the reason
/// after it), then an echoed value — so the message's start, its reason and its advice at the
/// end stay.
pub fn shorten(text: &str, max: usize) -> String {
    let mut words: Vec<String> = text.split(' ').map(str::to_string).collect();
    let length = |words: &[String]| -> usize {
        words.iter().map(|w| w.chars().count()).sum::<usize>() + words.len().saturating_sub(1)
    };
    for paths_only in [true, false] {
        while length(&words) > max {
            let Some((i, longest)) = words
                .iter()
                .enumerate()
                .filter(|(_, w)| !paths_only || is_path(w))
                .map(|(i, w)| (i, w.chars().count()))
                .max_by_key(|&(_, n)| n)
                .filter(|&(_, n)| n > 24)
            else {
                break;
            };
            let excess = length(&words) - max;
            let keep = longest.saturating_sub(excess + 1).max(20);
            let chars: Vec<char> = words[i].chars().collect();
            let (head, tail) = (keep / 2, keep - keep / 2);
            words[i] = chars[..head]
                .iter()
                .chain(std::iter::once(&'…'))
                .chain(&chars[chars.len() - tail..])
                .collect();
        }
    }
    if length(&words) > max {
        let text = words.join(" ");
        // Only short words left. What to do comes last, after the last "; " or ". ": keep it
        // whole and cut what comes before it (the echoed input, the values), never the advice.
        if let Some(at) = text.rfind("; ").max(text.rfind(". ")) {
            let advice = &text[at..];
            let room = max.saturating_sub(advice.chars().count() + 1);
            if room >= 40 {
                let head: String = text[..at].chars().take(room).collect();
                return format!("{head}…{advice}");
            }
        }
        let cut: String = text.chars().take(max.saturating_sub(1)).collect();
        return format!("{cut}…");
    }
    words.join(" ")
}

/// Whether a word of a message is a path (or a location `FILE:LINE:COLUMN:`).
fn is_path(word: &str) -> bool {
    word.contains('/') || word.contains('\\') || (word.ends_with(':') && word.contains('.'))
}

/// `println!` that returns `std::io::Result<()>` instead of panicking on a closed stdout.
macro_rules! say {
    () => {
        $crate::cli::output::write_out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` that never panics: a note that cannot be written is dropped.
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::cli::output::write_err(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` of text that already ends in a newline (tables), returning `std::io::Result<()>`.
macro_rules! say_text {
    ($text:expr) => {
        $crate::cli::output::write_out(format_args!("{}", $text))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(for_terminal("random\u{1b}[31m"), "random\\e[31m");
        assert_eq!(for_terminal("a\nb\tc\u{7}\u{9b}"), "a\\nb\\tc\\u{7}\\u{9b}");
        assert_eq!(for_terminal("plain é ✓"), "plain é ✓");
        assert_eq!(lines_for_terminal("one\u{1b}\ntwo\n"), "one\\e\ntwo\n");
    }

    #[test]
    fn long_messages_lose_the_middle_of_their_longest_word() {
        let name = "x".repeat(70_000);
        let text = format!(
            "error: spec.toml:3:8: key 'engine[1].name': '{name}' is too long; at most 64 characters"
        );
        let short = shorten(&text, MAX_ERROR_CHARS);
        assert!(short.chars().count() <= MAX_ERROR_CHARS, "{}", short.len());
        assert!(short.starts_with("error: spec.toml:3:8: key 'engine[1].name': 'xxx"));
        assert!(short.ends_with("is too long; at most 64 characters"));
        assert!(short.contains('…'));
        assert_eq!(shorten("short text", 300), "short text");
        let words = "word ".repeat(100);
        assert!(shorten(&words, 50).chars().count() <= 50);
    }

    #[test]
    fn the_advice_after_the_last_semicolon_is_never_cut() {
        // Many short words (openings echoed back) and the advice last: the middle goes.
        let listed = (1..=80)
            .map(|i| format!("{i}-{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let advice = "; raise openings.plies, or lower the games per candidate (budget)";
        let text = format!("error: found only 600 distinct playable openings: {listed}{advice}");
        assert!(text.chars().count() > MAX_ERROR_CHARS);
        let short = shorten(&text, MAX_ERROR_CHARS);
        assert!(short.chars().count() <= MAX_ERROR_CHARS, "{short}");
        assert!(short.ends_with(advice), "{short}");
        assert!(
            short.starts_with("error: found only 600 distinct"),
            "{short}"
        );
        assert!(short.contains('…'), "{short}");
    }

    #[test]
    fn the_path_is_cut_before_the_reason() {
        let reason = format!(
            "key 'anchor_elo': anchor_elo is {}; allowed: -10000..=10000",
            "9".repeat(120)
        );
        for depth in [10, 100, 2000] {
            let path = "deep/".repeat(depth) + "spec.toml:6:14:";
            let short = shorten(&format!("error: {path} {reason}"), MAX_ERROR_CHARS);
            assert!(short.chars().count() <= MAX_ERROR_CHARS, "{short}");
            assert!(short.ends_with(&reason), "{short}");
            assert!(short.starts_with("error: deep/"), "{short}");
        }
    }
}

//! Writing to the terminal without panicking.
//!
//! `println!` panics when stdout is a pipe whose reader has gone (`joute features othello |
//! head -1`). Results go through [`say!`] instead, which returns the write's `io::Result`: a
//! closed pipe travels up as `BrokenPipe`, which `main` turns into a quiet exit after every
//! destructor on the way has run (a match's scratch folder is removed). Notes and progress go
//! through [`note!`] to stderr, where a failed write is dropped: a missing note is no reason to
//! stop a run.

use std::fmt;
use std::io::Write;

/// Writes formatted text to stdout.
pub fn write_out(args: fmt::Arguments) -> std::io::Result<()> {
    std::io::stdout().lock().write_fmt(args)
}

/// Writes formatted text to stderr, ignoring a failure.
pub fn write_err(args: fmt::Arguments) {
    let _ = std::io::stderr().lock().write_fmt(args);
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

//! The `joute` binary: parses the command line, runs it, and maps errors to exit codes
//! (0 success, 1 the run failed, 2 the input is wrong).

mod cli;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

fn main() -> ExitCode {
    // No outside program, nor anything it started, outlives joute: not even on a panic.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        joute::arena::descendants::kill_all();
        report(info);
    }));
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match cli::Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => match err.kind() {
            // A value refused by its parser: the parser's message already names the value and
            // what is allowed, so one line says it all.
            ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
                let text = err.to_string();
                print_error(text.lines().next().unwrap_or("error: invalid value"));
                return ExitCode::from(2);
            }
            // A flag or command joute does not have: one line with the one meant.
            ErrorKind::UnknownArgument | ErrorKind::InvalidSubcommand => {
                print_error(&cli::usage::unknown_argument(&err, &args));
                return ExitCode::from(2);
            }
            // Help and version: clap's own rendering (exit 0), as for a bare `joute`.
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => err.exit(),
            // Any other usage error (a missing argument, a flag given twice): clap's message
            // on one line, without its usage block.
            _ => {
                print_error(&one_line(&err.to_string(), &args));
                return ExitCode::from(2);
            }
        },
    };
    let result = cli::run(cli);
    // Every program joute started and every process it adopted (a daemon that left its
    // program's group), on every way out.
    joute::arena::descendants::kill_all();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Stopped by a signal after printing the table so far and how to resume.
        Err(err) if err.downcast_ref::<cli::Interrupted>().is_some() => {
            ExitCode::from(cli::EXIT_INTERRUPTED)
        }
        // --sprt-exit-code: the report is printed; the code says the verdict.
        Err(ref err) if let Some(verdict) = err.downcast_ref::<cli::SprtVerdict>() => {
            ExitCode::from(verdict.0)
        }
        Err(err) => {
            // A reader that stopped reading (`joute play … | head`) is not a failure.
            if err
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            print_error(&format!("error: {err:#}"));
            if cli::refused_input(&err) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Prints an error on one line of at most [`cli::output::MAX_ERROR_CHARS`] characters, control
/// characters escaped (an echoed input cannot drive the terminal), never panicking (stderr may
/// be closed too).
fn print_error(text: &str) {
    use cli::output::{MAX_ERROR_CHARS, for_terminal, shorten};
    let line = shorten(&for_terminal(text), MAX_ERROR_CHARS);
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// clap's multi-line report as one line: its message lines before the usage block, joined, and
/// where to look for help.
fn one_line(text: &str, args: &[std::ffi::OsString]) -> String {
    let message: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| {
            !l.is_empty() && !l.starts_with("tip:") && !l.starts_with("For more information")
        })
        .collect();
    let command = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find(|a| !a.starts_with('-'));
    let help = match command {
        Some(c) => format!("see 'joute {c} --help'"),
        None => "see 'joute --help'".to_string(),
    };
    format!("{}; {help}", message.join(" "))
}

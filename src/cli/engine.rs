//! `joute engine`: commands about outside programs. `joute engine check` runs the compliance
//! check (`joute::arena::outside::check`) and prints one line a step.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::{GAME_HELP, InputError, parse_game};
use joute::arena::outside::check::{
    CheckConfig, CheckStep, Progress, StepResult, refuse, run_check,
};
use joute::arena::outside::{OutsideSpec, Protocol};
use joute::arena::spec::{check_option, clock_of};
use joute::games::GameKind;

/// Arguments of `joute engine`.
#[derive(Args, Debug)]
pub struct EngineArgs {
    /// What to do with the program.
    #[command(subcommand)]
    pub command: EngineCommand,
}

/// The subcommands of `joute engine`.
#[derive(Subcommand, Debug)]
pub enum EngineCommand {
    /// Check that a program speaks its protocol: a handshake, moves in chosen positions, a
    /// whole game against a random mover, and quitting; one line a step. Exit 0 when every
    /// step passed, 1 when one failed.
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),
}

const CHECK_HELP: &str = "Example: joute engine check othello --protocol gtp -- edax -gtp -l 2\n\
    Protocols: gtp and nboard play othello; gomocup plays morpion-NxN-5 (-exact, -renju) and renju; line plays every game.";

/// Arguments of `joute engine check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The game.
    #[arg(value_parser = parse_game, help = GAME_HELP)]
    pub game: GameKind,
    /// The protocol the program speaks: line, gtp, nboard or gomocup.
    #[arg(long, value_parser = parse_protocol)]
    pub protocol: Protocol,
    /// Seconds each answer of the program may take (at most a day).
    #[arg(long, default_value = "10", value_parser = parse_seconds, value_name = "SECONDS")]
    pub timeout: Duration,
    /// A setting passed to the program the protocol's way (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = parse_option)]
    pub options: Vec<(String, String)>,
    /// NBoard's protocol version (1 for Edax, 2 for NTest; default 2).
    #[arg(long, value_name = "V")]
    pub protocol_version: Option<u32>,
    /// A search depth passed to the program (nboard: set depth; gomocup: INFO max_depth; line).
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// A node budget passed to the program (gomocup: INFO max_node; line).
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// Check on a game clock, as specs write it: [MOVES/]TIME[+INCREMENT] in seconds (10+0.1):
    /// the program is told it the protocol's way and must move within it.
    #[arg(long, value_name = "TC", conflicts_with = "st")]
    pub tc: Option<String>,
    /// Check on a fixed time per move (0.5s, 200ms).
    #[arg(long, value_name = "TIME")]
    pub st: Option<String>,
    /// Overrun forgiven on each move with --tc or --st (default 0; 50ms, 0.1s).
    #[arg(long, value_name = "TIME")]
    pub timemargin: Option<String>,
    /// The folder the program runs in (programs that read their data from it: NTest, Zebra).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Seed of the openings, the positions and the random mover.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

fn parse_protocol(text: &str) -> Result<Protocol, String> {
    Protocol::parse(text)
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "timeout '{text}' is not a number of seconds above 0, up to 86400"
        )),
    }
}

fn parse_option(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.to_string()))
        }
        _ => Err(format!("option '{text}' is not NAME=VALUE")),
    }
}

/// Runs `joute engine`.
pub(super) fn run(args: &EngineArgs) -> anyhow::Result<()> {
    match &args.command {
        EngineCommand::Check(check) => run_check_command(check),
    }
}

/// The check `args` ask for, every argument checked against the protocol.
fn check_config(args: &CheckArgs) -> anyhow::Result<CheckConfig> {
    let input = |text: String| anyhow::Error::from(InputError(text));
    let protocol = args.protocol;
    if args.protocol_version.is_some() && protocol != Protocol::Nboard {
        return Err(input(format!(
            "--protocol-version is nboard's; the {protocol} protocol has none"
        )));
    }
    if args.depth.is_some() && !protocol.passes_depth() {
        return Err(input(format!(
            "the {protocol} protocol cannot pass a search depth; give it in the program's arguments or as an --option"
        )));
    }
    if args.nodes.is_some() && !protocol.passes_nodes() {
        return Err(input(format!(
            "the {protocol} protocol cannot pass a node budget; give it in the program's arguments or as an --option"
        )));
    }
    let clock = clock_of(
        args.tc.as_deref(),
        args.st.as_deref(),
        args.timemargin.as_deref(),
    )
    .map_err(|(key, m)| input(format!("--{key}: {m}")))?;
    if let Some(dir) = &args.dir
        && !dir.is_dir()
    {
        return Err(input(format!("--dir: no folder '{}'", dir.display())));
    }
    for (name, value) in &args.options {
        check_option(protocol, name, value).map_err(|m| input(format!("--option: {m}")))?;
    }
    let (command, program_args) = args
        .command
        .split_first()
        .ok_or_else(|| input("no program: give it after --".into()))?;
    let config = CheckConfig {
        game: args.game,
        spec: OutsideSpec {
            command: PathBuf::from(command),
            args: program_args.to_vec(),
            working_dir: args.dir.clone(),
            protocol,
            protocol_version: args.protocol_version,
            options: args.options.iter().cloned().collect::<BTreeMap<_, _>>(),
            depth: args.depth,
            nodes: args.nodes,
            stall_ms: args.timeout.as_millis() as u64,
            program: None,
            folder: None,
        },
        clock: clock.map(|c| (c.control, c.margin())),
        seed: args.seed,
        games: 0,
    };
    if let Some(why) = refuse(&config) {
        return Err(input(why.replace("protocol = \"line\"", "--protocol line")));
    }
    Ok(config)
}

fn run_check_command(args: &CheckArgs) -> anyhow::Result<()> {
    let config = check_config(args)?;
    let input = |text: String| anyhow::Error::from(InputError(text));
    let protocol = config.spec.protocol;
    say!(
        "checking {} for {} (each answer within {} s, seed {})",
        config.spec.describe(),
        config.game,
        args.timeout.as_secs_f64(),
        config.seed
    )?;
    let mut broken_pipe = None;
    let report = run_check(&config, &mut |progress| {
        if let Progress::Step(step) = progress
            && broken_pipe.is_none()
            && let Err(e) = say!("{}", step_line(step))
        {
            broken_pipe = Some(e);
        }
    })
    .map_err(input)?;
    let steps = report.steps;
    if let Some(e) = broken_pipe {
        return Err(e.into());
    }
    let failed = steps.iter().filter(|s| s.failed()).count();
    let passed = steps.iter().filter(|s| s.passed()).count();
    let skipped = steps.len() - failed - passed;
    let mut summary = format!("{passed} of {} steps passed", steps.len());
    if failed > 0 {
        summary.push_str(&format!(", {failed} failed"));
    }
    if skipped > 0 {
        summary.push_str(&format!(", {skipped} skipped"));
    }
    say!("{summary}")?;
    std::io::stdout().flush()?;
    if failed > 0 || skipped > 0 {
        anyhow::bail!(
            "{} does not pass the {} check",
            config.spec.command_line(),
            protocol
        );
    }
    Ok(())
}

/// `ok   2 a new game and a move at the start position: f5 (0.01 s)`, `FAIL 2 ...: why`.
fn step_line(step: &CheckStep) -> String {
    let head = format!("{} {}", step.number, step.name);
    match &step.result {
        StepResult::Passed(what) if what.is_empty() => {
            format!("ok   {head} ({:.2} s)", step.seconds)
        }
        StepResult::Passed(what) => format!("ok   {head}: {what} ({:.2} s)", step.seconds),
        StepResult::Failed(why) => format!("FAIL {head}: {why}"),
        StepResult::Warned(why) => format!("warn {head}: {why}"),
        StepResult::Skipped(why) => format!("skip {head}: {why}"),
    }
}

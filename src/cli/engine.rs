//! `joute engine`: commands about outside programs. `joute engine check` runs the compliance
//! check (`joute::arena::outside::check`) and prints one line a step.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::{GAME_HELP, InputError, parse_game};
use joute::arena::outside::check::{
    CheckConfig, CheckGame, CheckStep, GameResult, Progress, StepResult, refuse, run_check,
};
use joute::arena::outside::{Guard, OutsideSpec, Protocol, Restart};
use joute::arena::spec::{
    check_cpu, check_option, check_processes, check_restart, check_size, clock_of,
};
use joute::games::GameKind;
use joute::games::Side;

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
    /// whole game against a random mover, and quitting; one line a step. With --games N, N
    /// whole games against a random mover follow, one line a game. Exit 0 when every step
    /// passed and every game ended by the rules, 1 otherwise.
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),
}

const CHECK_HELP: &str = "Example: joute engine check othello --protocol gtp -- edax -gtp -l 2\n\
    Protocols: gtp and nboard play othello; gomocup plays morpion-NxN-5 (-exact, -renju) and renju; line plays every game.\n\
    One exchange proves little: --games 20 plays 20 whole games against a random mover, every move checked.";

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
    /// Seed of the openings, the positions and the random movers: the same seed plays the
    /// same games against the same program.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// After the steps, play N whole games against a random mover (the program first in odd
    /// games), as a tournament plays them: every move checked by the referee, on the --tc or
    /// --st clock if given, else each answer within --timeout. A failed game is printed with
    /// why and its moves up to the failure (1 to 10000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub games: Option<u32>,
    /// The memory the program's processes may hold (512MiB, 2GiB), as a spec's memory_limit.
    #[arg(long, value_name = "SIZE")]
    pub memory_limit: Option<String>,
    /// The processes and threads it may run at once, as a spec's process_limit.
    #[arg(long, value_name = "N")]
    pub process_limit: Option<i64>,
    /// The CPU time it may use in one game (10m, 30s), as a spec's cpu_limit.
    #[arg(long, value_name = "TIME")]
    pub cpu_limit: Option<String>,
    /// The bytes it may write to files in one game (100MiB), as a spec's write_limit.
    #[arg(long, value_name = "SIZE")]
    pub write_limit: Option<String>,
    /// Confine the program: the file system read-only but for its own folders, no network.
    #[arg(long)]
    pub confine: bool,
    /// A file or folder a confined program may read (repeatable).
    #[arg(long, value_name = "PATH", requires = "confine")]
    pub readable: Vec<PathBuf>,
    /// Stop the program's processes while its opponent thinks.
    #[arg(long)]
    pub pause: bool,
    /// Start the program afresh for every game (game) or only after a failed one (failure).
    #[arg(long, value_name = "WHEN", value_parser = check_restart)]
    pub restart: Option<Restart>,
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
            guard: guard_of(args)?,
        },
        clock: clock.map(|c| (c.control, c.margin())),
        seed: args.seed,
        games: args.games.unwrap_or(0) as usize,
    };
    if let Some(why) = refuse(&config) {
        return Err(input(why.replace("protocol = \"line\"", "--protocol line")));
    }
    Ok(config)
}

/// The guard the flags ask for, each checked as a spec's key is.
fn guard_of(args: &CheckArgs) -> anyhow::Result<Guard> {
    let input =
        |text: String| anyhow::Error::from(InputError(format!("--{}", text.replace('_', "-"))));
    let size = |key: &str, v: &Option<String>| {
        v.as_deref()
            .map(|t| check_size(key, t).map_err(input))
            .transpose()
    };
    let mut readable_found = Vec::new();
    for path in &args.readable {
        if !path.exists() {
            return Err(input(format!(
                "readable: no file or folder at '{}'",
                path.display()
            )));
        }
        readable_found.push(std::path::absolute(path).unwrap_or_else(|_| path.clone()));
    }
    Ok(Guard {
        memory_limit: size("memory_limit", &args.memory_limit)?,
        process_limit: args
            .process_limit
            .map(|n| check_processes(n).map_err(input))
            .transpose()?,
        cpu_limit_ms: args
            .cpu_limit
            .as_deref()
            .map(|t| check_cpu(t).map_err(input))
            .transpose()?,
        write_limit: size("write_limit", &args.write_limit)?,
        confine: args.confine,
        readable: args.readable.clone(),
        pause: args.pause,
        restart: args.restart.unwrap_or_default(),
        readable_found,
    })
}

fn run_check_command(args: &CheckArgs) -> anyhow::Result<()> {
    let config = check_config(args)?;
    let input = |text: String| anyhow::Error::from(InputError(text));
    let protocol = config.spec.protocol;
    let games = match config.games {
        0 => String::new(),
        n => format!(", then {n} games against a random mover"),
    };
    say!(
        "checking {} for {} (each answer within {} s, seed {}{games})",
        config.spec.describe(),
        config.game,
        args.timeout.as_secs_f64(),
        config.seed
    )?;
    let mut broken_pipe = None;
    let report = run_check(&config, &mut |progress| {
        let text = match progress {
            Progress::Step(step) => step_line(step),
            Progress::Game(game) => game_lines(game),
        };
        if broken_pipe.is_none()
            && let Err(e) = say!("{text}")
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
    let games_failed = report.games.iter().filter(|g| g.failed()).count();
    if let Some(why) = &report.games_skipped {
        say!("{} games not played: {why}", config.games)?;
    } else if config.games > 0 {
        say!("{}", games_summary(&report.games))?;
    } else {
        say!(
            "one exchange proves little: --games 20 plays 20 whole games against a random mover, every move checked"
        )?;
    }
    std::io::stdout().flush()?;
    if failed > 0 || skipped > 0 || games_failed > 0 || report.games_skipped.is_some() {
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

/// `ok   game 1, it first: it won after 23 moves (0.41 s)`; a failed game, `FAIL game 2, it
/// second: it lost by illegal-move after 12 moves: why`, and on a second line its moves up to
/// the failure, as `joute play --opening` reads them.
fn game_lines(game: &CheckGame) -> String {
    let side = match game.program {
        Side::First => "first",
        Side::Second => "second",
    };
    let head = format!("game {}, it {side}", game.number);
    let plies = game.moves.len();
    let moves = format!("{plies} move{}", if plies == 1 { "" } else { "s" });
    match &game.failure {
        None => {
            let result = match game.result {
                GameResult::Won => "it won",
                GameResult::Lost => "it lost",
                GameResult::Drawn => "a draw",
            };
            format!(
                "ok   {head}: {result} after {moves} ({:.2} s)",
                game.seconds
            )
        }
        Some(failure) => {
            let who = if failure.by_program {
                "it lost"
            } else {
                "the random mover lost"
            };
            format!(
                "FAIL {head}: {who} by {} after {moves}: {}\n     moves (joute play --opening): {}",
                failure.termination,
                failure.detail,
                game.moves.join(" ")
            )
        }
    }
}

/// `20 games against a random mover, all ended by the rules (it won 12, lost 6, drew 2)`, or
/// `2 of 20 games against a random mover failed (illegal-move 2); ...`.
fn games_summary(games: &[CheckGame]) -> String {
    let mut failures: BTreeMap<&str, usize> = BTreeMap::new();
    for failure in games.iter().filter_map(|g| g.failure.as_ref()) {
        *failures.entry(failure.termination).or_default() += 1;
    }
    let count = |r: GameResult| {
        games
            .iter()
            .filter(|g| !g.failed() && g.result == r)
            .count()
    };
    let results = format!(
        "it won {}, lost {}, drew {}",
        count(GameResult::Won),
        count(GameResult::Lost),
        count(GameResult::Drawn)
    );
    let failed: usize = failures.values().sum();
    if failed == 0 {
        return format!(
            "{} games against a random mover, all ended by the rules ({results})",
            games.len()
        );
    }
    let listed: Vec<String> = failures.iter().map(|(t, n)| format!("{t} {n}")).collect();
    format!(
        "{failed} of {} games against a random mover failed ({}); {} ended by the rules ({results})",
        games.len(),
        listed.join(", "),
        games.len() - failed
    )
}

//! `joute fit`: evaluation weights fitted to games logs by logistic regression (Texel's method,
//! [`joute::tune::fit::regression`]), written as a weights file of the game.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{FitArgs, InputError};
use joute::arena::log::RunInfo;
use joute::games::GameKind;
use joute::outputs::{check_output_file, check_output_parent, number_text, write_atomically};
use joute::tune::fit::regression::{CollectOptions, FitOptions, MAX_MARGIN_SCALE, fit_logs};

/// Runs `joute fit`.
pub fn run(args: &FitArgs) -> anyhow::Result<()> {
    let _locks = super::run::open_logs(&args.logs, false)?;
    let kind = logs_game(args)?;
    let out = output_file(args)?;
    if args.patterns {
        return fit_patterns(args, kind, &out);
    }
    if args.margin_labels.is_some() {
        return Err(InputError(
            "--margin-labels needs --patterns: the linear fit reads results only (a win, a draw or a loss)".into(),
        )
        .into());
    }
    if args.search_labels.is_some() {
        return Err(InputError(
            "--search-labels needs --patterns: a search's score becomes a label through the pattern evaluation's logits; linear weights have no fixed scale".into(),
        )
        .into());
    }
    if args.hold_counts || args.max_iterations.is_some() {
        return Err(InputError(
            "--hold-counts and --max-iterations are for --patterns: the linear fit is Newton's method on a few features, to convergence".into(),
        )
        .into());
    }
    if !(0.0..=joute::tune::fit::regression::MAX_LAMBDA).contains(&args.lambda) {
        return Err(InputError(format!(
            "--lambda {} is out of range; allowed: 0 (no ridge) to 1e6",
            number_text(args.lambda)
        ))
        .into());
    }
    let logs: Vec<&Path> = args.logs.iter().map(PathBuf::as_path).collect();
    let collect = collect_options(args)?;
    let options = FitOptions {
        lambda: args.lambda,
        taper: args.taper,
        ..FitOptions::default()
    };
    let fitted =
        fit_logs(&kind, &logs, args.weights.as_deref(), &collect, &options).map_err(InputError)?;
    write_atomically(&out, fitted.toml.as_bytes())
        .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", out.display()))?;
    let f = &fitted.fit;
    if args.json {
        say!(
            "{}",
            json!({
                "game": kind.to_string(), "positions": f.positions, "k": f.k,
                "start_loss": f.start_loss, "loss": f.loss, "iterations": f.iterations,
                "converged": f.converged, "weights": out.display().to_string(),
                "tapered": f.taper.is_some(), "games": fitted.games,
                "skipped_games": fitted.skipped_games,
            })
        )?;
    } else {
        say!(
            "{} positions of {kind}{}: K = {:.4e} logit per unit; mean log loss {:.5} with the start weights, {:.5} fitted ({} Newton steps{})",
            f.positions,
            match f.taper {
                Some(t) => format!(", tapered (progress of {t})"),
                None => String::new(),
            },
            f.k,
            f.start_loss,
            f.loss,
            f.iterations,
            if f.converged { "" } else { ", not converged" }
        )?;
        say!("{}", games_line(fitted.games, fitted.skipped_games))?;
        say!("weights: {}", out.display())?;
    }
    Ok(())
}

/// How many games the positions came from, and how many were left out and why.
fn games_line(games: u64, skipped: u64) -> String {
    let mut line = format!("from {games} games");
    if skipped > 0 {
        line.push_str(&format!(
            "; {skipped} games lost by a failure (timeout, stall, illegal move, crash) left out: their result says nothing of their positions"
        ));
    }
    line
}

/// The file the fit goes to (`--out`, or a default name beside the first log), checked: never
/// an input, a run's own file, or (named by the user) an existing file without `--force`.
fn output_file(args: &FitArgs) -> Result<PathBuf, InputError> {
    let default_name = match (args.patterns, args.csv) {
        (false, _) => "fitted-weights.toml",
        (true, true) => "fitted-patterns.csv",
        (true, false) => "fitted-patterns.jpw",
    };
    let out = args.out.clone().unwrap_or_else(|| {
        args.logs[0]
            .parent()
            .unwrap_or(Path::new("."))
            .join(default_name)
    });
    let inputs: Vec<&Path> = args
        .logs
        .iter()
        .map(PathBuf::as_path)
        .chain(args.weights.as_deref())
        .collect();
    check_output_parent(&out).map_err(InputError)?;
    check_output_file(&out, &inputs, args.force, args.out.is_none()).map_err(InputError)?;
    Ok(out)
}

/// The game of the logs: `--game`, or else each log's run record's, one game for all.
fn logs_game(args: &FitArgs) -> anyhow::Result<GameKind> {
    let mut kind: Option<GameKind> = args.game;
    for log in args.logs.iter().filter(|_| args.game.is_none()) {
        let record = log.parent().unwrap_or(Path::new(".")).join("run.json");
        let info = RunInfo::load(&record).map_err(InputError)?;
        let game = GameKind::parse(&info.spec.game)?;
        match kind {
            Some(k) if k != game => {
                return Err(InputError(format!(
                    "{}: a log of {game} games; the first log's are {k}",
                    log.display()
                ))
                .into());
            }
            _ => kind = Some(game),
        }
    }
    Ok(kind.expect("at least one log"))
}

/// Which positions of the logs a fit reads, and how they are labelled.
fn collect_options(args: &FitArgs) -> Result<CollectOptions, InputError> {
    let max = joute::tune::spec::MAX_EXACT_LABELS as u32;
    if args.exact_labels > max {
        return Err(InputError(format!(
            "--exact-labels {} is out of range; allowed: 0 (never) to {max}",
            args.exact_labels
        )));
    }
    let margin_scale = match args.margin_labels {
        None => 0.0,
        Some(scale) if scale > 0.0 && scale <= MAX_MARGIN_SCALE => scale,
        Some(scale) => {
            return Err(InputError(format!(
                "--margin-labels {} is out of range; allowed: above 0, at most {} (discs)",
                number_text(scale),
                number_text(MAX_MARGIN_SCALE)
            )));
        }
    };
    Ok(CollectOptions {
        skip_plies: args.skip_plies,
        max_per_game: args.max_per_game,
        seed: args.seed,
        include_failures: false,
        exact_labels: args.exact_labels,
        margin_scale,
    })
}

/// The arguments `--patterns` refuses: another game's logs, phases out of range, a negative
/// ridge, and the linear features' options.
fn check_pattern_args(args: &FitArgs, kind: GameKind) -> Result<(), InputError> {
    use joute::eval::pattern::MAX_PHASES;
    use joute::tune::fit::pattern_fit::MAX_ITERATIONS;
    if kind != GameKind::Othello {
        return Err(InputError(format!(
            "--patterns fits Othello's pattern evaluation; these are logs of {kind} games, not othello"
        )));
    }
    if !(1..=MAX_PHASES).contains(&args.phases) {
        return Err(InputError(format!(
            "--phases {} is out of range; allowed: 1..={MAX_PHASES}",
            args.phases
        )));
    }
    if !(args.ridge.is_finite() && args.ridge >= 0.0) {
        return Err(InputError(format!(
            "--ridge {} is not 0 or more",
            number_text(args.ridge)
        )));
    }
    if args.taper {
        return Err(InputError(
            "--patterns fits one weight table per phase: --taper is for linear features".into(),
        ));
    }
    if let Some(n) = args
        .max_iterations
        .filter(|n| !(1..=MAX_ITERATIONS).contains(n))
    {
        return Err(InputError(format!(
            "--max-iterations {n} is out of range; allowed: 1..={MAX_ITERATIONS}"
        )));
    }
    if args.phase_overlap > 60 {
        return Err(InputError(format!(
            "--phase-overlap {} is out of range; allowed: 0..=60 empty squares",
            args.phase_overlap
        )));
    }
    Ok(())
}

/// How `--patterns` fits: the ridge, each phase's most iterations, and the count weights fitted
/// or held.
fn pattern_fit_options(args: &FitArgs) -> joute::tune::fit::pattern_fit::PatternFitOptions {
    use joute::tune::fit::pattern_fit::{DEFAULT_MAX_ITERATIONS, PatternFitOptions};
    PatternFitOptions {
        ridge: args.ridge,
        max_iterations: args.max_iterations.unwrap_or(DEFAULT_MAX_ITERATIONS),
        counts: !args.hold_counts,
        ..PatternFitOptions::default()
    }
}

/// `joute fit --patterns`: Othello's pattern weights fitted to the logs.
fn fit_patterns(args: &FitArgs, kind: GameKind, out: &Path) -> anyhow::Result<()> {
    use joute::arena::engine::EngineSpec;
    use joute::eval::pattern::PatternWeights;
    use joute::tune::fit::pattern_fit::{collect_patterns, fit_patterns};
    use joute::tune::fit::search_labels::score_logs;
    check_pattern_args(args, kind)?;
    let logs: Vec<&Path> = args.logs.iter().map(PathBuf::as_path).collect();
    let collect = collect_options(args)?;
    let start = match &args.weights {
        Some(path) => PatternWeights::load(path)
            .map_err(|e| InputError(format!("--weights: {e}")))?
            .in_phases(args.phases),
        None => PatternWeights::zeros(args.phases),
    };
    let scores = match &args.search_labels {
        Some(word) => {
            let engine = EngineSpec::parse(word)
                .map_err(|e| InputError(format!("--search-labels {word}: {e}")))?;
            Some(score_logs(&logs, &collect, &engine, args.search_mix).map_err(InputError)?)
        }
        None => None,
    };
    let (data, games, skipped, solved) = collect_patterns(
        &logs,
        &collect,
        args.phases,
        args.phase_overlap,
        scores.as_ref(),
    )
    .map_err(InputError)?;
    if data.is_empty() {
        return Err(InputError(format!(
            "no positions to fit in {} log(s) ({games} games read, {skipped} skipped)",
            logs.len()
        ))
        .into());
    }
    let fit = fit_patterns(&data, &start, &pattern_fit_options(args)).map_err(InputError)?;
    let written = if args.csv {
        fit.weights.write_csv(out)
    } else {
        fit.weights.write_binary(out)
    };
    written.map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", out.display()))?;
    if args.json {
        say!(
            "{}",
            json!({
                "game": "othello", "positions": data.distinct(), "games": games,
                "skipped_games": skipped,
                "phases": args.phases, "phase_overlap": args.phase_overlap,
                "per_phase": fit.per_phase, "ridge": args.ridge,
                "solved": solved, "search_labels": args.search_labels,
                "margin_labels": args.margin_labels,
                "search_mix": scores.as_ref().map(|s| s.mix),
                "start_loss": fit.start_loss, "loss": fit.loss, "iterations": fit.iterations,
                "converged": fit.converged, "hold_counts": args.hold_counts,
                "weights": out.display().to_string(),
            })
        )?;
    } else {
        say_pattern_fit(args, &fit, (games, skipped, solved), out)?;
    }
    Ok(())
}

/// `joute fit --patterns`' lines for a reader: the fit, the games, and how the positions were
/// labelled.
fn say_pattern_fit(
    args: &FitArgs,
    fit: &joute::tune::fit::pattern_fit::PatternFit,
    (games, skipped, solved): (u64, u64, u64),
    out: &Path,
) -> anyhow::Result<()> {
    say!("{}", fit.summary())?;
    say!("{}", games_line(games, skipped))?;
    if args.exact_labels > 0 {
        say!(
            "{solved} positions of at most {} empty squares labelled by the exact solver",
            args.exact_labels
        )?;
    }
    if let Some(scale) = args.margin_labels {
        say!(
            "labels: σ(final margin / {}) for the side to move",
            number_text(scale)
        )?;
    }
    if let Some(word) = &args.search_labels {
        say!(
            "the other positions labelled by {word}'s search (share {})",
            number_text(args.search_mix)
        )?;
    }
    say!("weights: {}", out.display())?;
    Ok(())
}

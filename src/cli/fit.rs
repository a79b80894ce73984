//! `joute fit`: evaluation weights fitted to games logs by logistic regression (Texel's method,
//! [`joute::tune::regression`]), written as a weights file of the game.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{FitArgs, InputError};
use joute::arena::log::{RunInfo, write_atomically};
use joute::games::GameKind;
use joute::tune::regression::{CollectOptions, FitOptions, fit_logs};

/// Runs `joute fit`.
pub fn run(args: &FitArgs) -> anyhow::Result<()> {
    let _locks = super::run::open_logs(&args.logs, false)?;
    // The game, from each log's run record: one game for all.
    let mut kind: Option<GameKind> = None;
    for log in &args.logs {
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
    let kind = kind.expect("at least one log");
    if !(args.lambda.is_finite() && args.lambda >= 0.0) {
        return Err(InputError(format!(
            "--lambda {} is not a ridge (0 or more)",
            args.lambda
        ))
        .into());
    }
    let logs: Vec<&Path> = args.logs.iter().map(PathBuf::as_path).collect();
    let collect = CollectOptions {
        skip_plies: args.skip_plies,
        max_per_game: args.max_per_game,
        seed: args.seed,
        include_failures: false,
    };
    let options = FitOptions {
        lambda: args.lambda,
        ..FitOptions::default()
    };
    let fitted =
        fit_logs(&kind, &logs, args.weights.as_deref(), &collect, &options).map_err(InputError)?;
    let out = args.out.clone().unwrap_or_else(|| {
        args.logs[0]
            .parent()
            .unwrap_or(Path::new("."))
            .join("fitted-weights.toml")
    });
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
            })
        )?;
    } else {
        say!(
            "{} positions of {kind}: K = {:.4e} logit per unit; mean log loss {:.5} with the start weights, {:.5} fitted ({} Newton steps{})",
            f.positions,
            f.k,
            f.start_loss,
            f.loss,
            f.iterations,
            if f.converged { "" } else { ", not converged" }
        )?;
        say!("weights: {}", out.display())?;
    }
    Ok(())
}

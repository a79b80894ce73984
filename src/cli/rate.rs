//! `joute rate`: ratings of games from other tools' records — a result PGN (White moved first),
//! a WThor games file or a GGF file — with joute's statistics (the joint maximum-likelihood
//! fit of `joute report`). Games of an opening pair (joute's PGN tag `JoutePair`, the two games
//! with colours swapped) are one cluster for the error bars; every other game is on its own.
//! A game without a result (`*`), or anything malformed, is refused with the file and the
//! game's number. joute's own games logs (`games.jsonl`, with the `run.json` beside each) of
//! one or more runs rate together too: a ladder grown run by run, engines matched by name
//! (`joute::report::load::rated_games`, which reads every file).

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{InputError, RateArgs};
use joute::arena::records;
use joute::outputs::check_output_file;
use joute::report::{cost, files, table};
use joute::stats::ratings::{FirstMove, FitOptions, fit};

/// Runs `joute rate`.
pub fn run(args: &RateArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.out {
        let inputs: Vec<&Path> = args.files.iter().map(PathBuf::as_path).collect();
        for name in ["ratings.csv", "scale.csv", "cost.csv"] {
            check_output_file(&dir.join(name), &inputs, args.force, false).map_err(InputError)?;
        }
    }
    let read = joute::report::load::rated_games(&args.files).map_err(InputError)?;
    let (files, runs, costs) = (read.games, read.runs, read.costs);
    let games: usize = files.iter().map(Vec::len).sum();
    let (results, draws) = records::rating_inputs(&files).map_err(InputError)?;
    let first_move = match args.first_move.as_deref() {
        Some("ignore") => FirstMove::Ignore,
        _ => FirstMove::Fit,
    };
    let anchor = match &args.anchor {
        None => None,
        Some(text) => super::run::parse_anchor(text, &results.names)?
            .map(|a| (results.names.iter().position(|n| *n == a.engine), a.elo))
            .and_then(|(i, elo)| Some((i?, elo))),
    };
    let ratings = fit(
        &results,
        &FitOptions {
            first_move,
            anchor,
            ..FitOptions::default()
        },
    );
    let rows = table::rows_of(&ratings, &draws);
    let scale = table::RatingScale::new(&ratings, anchor, first_move);
    let cost_rows =
        cost::cost_rows_by_name(&rows, |name| costs.get(name).map(|(c, cut)| (c, *cut)));
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| InputError(format!("{}: cannot create: {e}", dir.display())))?;
        files::write_ratings(dir, &rows)
            .and_then(|_| files::write_scale(dir, &scale))
            .and_then(|_| {
                if cost_rows.is_empty() {
                    Ok(())
                } else {
                    files::write_cost(dir, &cost_rows)
                }
            })
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", dir.display()))?;
    }
    if args.json {
        let ratings: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let mut row = json!(r);
                if let Some(c) = cost_rows.iter().find(|c| c.name == r.name) {
                    row["cost"] = json!(c.figures);
                    row["cost"]["cut"] = json!(c.cut);
                }
                row
            })
            .collect();
        say!(
            "{}",
            json!({"games": games, "ratings": ratings, "scale": scale, "runs": runs.iter().map(|(name, n)| json!({"name": name, "games": n})).collect::<Vec<_>>()})
        )?;
        return Ok(());
    }
    say_text!(table::rating_table(&rows))?;
    say_text!(scale.lines())?;
    if let Some(block) = cost::cost_table(&cost_rows, args.cost) {
        say_text!(block)?;
    }
    say!("{games} games, {} players", results.names.len())?;
    if runs.len() > 1 {
        let each: Vec<String> = runs
            .iter()
            .map(|(name, n)| format!("{name} ({n})"))
            .collect();
        say!("from {} runs: {}", runs.len(), each.join(", "))?;
    }
    Ok(())
}

//! `joute openings`: generates an opening suite (the logic is in `joute::arena::suites`).

use std::io::Write;
use std::time::Instant;

use serde_json::json;

use super::meter::Meter;
use super::{InputError, OpeningsArgs};
use joute::arena::suites::{self, SuiteRequest};

/// Runs `joute openings`.
pub(super) fn run(args: &OpeningsArgs) -> anyhow::Result<()> {
    if let Some(path) = &args.out {
        joute::outputs::check_output_parent(path).map_err(InputError)?;
        joute::outputs::check_output_file(path, &[], args.force, false).map_err(InputError)?;
    }
    let started = Instant::now();
    let request = SuiteRequest {
        plies: args.plies,
        count: args.count,
        seed: args.seed,
        max_score: args.max_score,
        depth: args.depth,
    };
    // A suite of 100 Connect 4 openings takes minutes: a bar with the time left.
    let template = "{bar:30} {pos}/{len} openings, {elapsed} elapsed, about {eta} left";
    let mut meter = Meter::new(!args.json, args.count.into(), 0, template, false);
    let count = args.count;
    let suite = suites::generate(&args.game, &request, &mut |n| {
        let note = || format!("{n}/{count} openings");
        meter.show(n.into(), false, String::new, note);
    });
    meter.finish();
    let suite = suite.map_err(InputError)?;
    let command = std::iter::once("joute".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let text = suite.to_file(&command, args.seed);
    if let Some(path) = &args.out {
        joute::outputs::write_atomically(path, text.as_bytes())
            .map_err(|e| InputError(format!("cannot write {}: {e}", path.display())))?;
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let value = json!({
            "game": args.game.to_string(),
            "seed": args.seed,
            "method": suite.method,
            "candidates": suite.candidates,
            "openings": suite.lines.iter().map(|l| json!({"moves": l.moves, "score": l.score})).collect::<Vec<_>>(),
            "out": args.out.as_ref().map(|p| p.display().to_string()),
            "seconds": started.elapsed().as_secs_f64(),
        });
        writeln!(stdout, "{value}")?;
    } else if let Some(path) = &args.out {
        eprintln!(
            "wrote {} openings ({} candidates) to {} in {:.1} s",
            suite.lines.len(),
            suite.candidates,
            path.display(),
            started.elapsed().as_secs_f64()
        );
    } else {
        write!(stdout, "{text}")?;
    }
    Ok(())
}

//! `joute perft`: counts for every depth, with times and rates, or divided by first move.

use std::io::Write;

use serde_json::json;

use super::{InputError, PerftArgs};
use joute::games::perft::{PerftRow, perft_run};
use joute::games::{Game, GameVisitor};

/// `joute perft`, run for the game the user named.
pub(super) struct PerftCommand {
    pub args: PerftArgs,
}

impl GameVisitor for PerftCommand {
    type Output = anyhow::Result<()>;

    fn visit<G: Game>(self, start: G) -> anyhow::Result<()> {
        let args = self.args;
        let pos = match &args.position {
            Some(text) => start
                .parse_position(text)
                .map_err(|e| InputError(e.to_string()))?,
            None => start,
        };
        let mut stdout = std::io::stdout().lock();
        if !args.json {
            writeln!(
                stdout,
                "perft {} from {}, {} thread{}",
                pos.name(),
                if args.position.is_some() {
                    "the given position"
                } else {
                    "the start"
                },
                args.threads,
                if args.threads == 1 { "" } else { "s" }
            )?;
            writeln!(
                stdout,
                "{:>5} {:>15} {:>10} {:>14}",
                "depth", "count", "seconds", "leaves/s"
            )?;
        }
        let run = perft_run(&pos, args.depth, args.threads, args.divide, |row| {
            if !args.json {
                let PerftRow {
                    depth,
                    count: n,
                    seconds,
                    rate,
                } = *row;
                writeln!(stdout, "{depth:>5} {n:>15} {seconds:>10.3} {rate:>14.0}")?;
                stdout.flush()?;
            }
            Ok(())
        })?;
        let (rows, parts, total_seconds) = (&run.rows, &run.divide, run.seconds);
        if args.json {
            let value = json!({
                "game": pos.name(),
                "depth": args.depth,
                "threads": args.threads,
                "counts": rows.iter().map(|r| r.count).collect::<Vec<_>>(),
                "seconds": total_seconds,
                "rows": rows.iter().map(|r| json!({
                    "depth": r.depth, "count": r.count, "seconds": r.seconds, "leaves_per_second": r.rate,
                })).collect::<Vec<_>>(),
                "divide": parts.iter().map(|&(mv, n)| json!({
                    "move": pos.format_move(mv), "count": n,
                })).collect::<Vec<_>>(),
            });
            writeln!(stdout, "{value}")?;
        } else if args.divide {
            writeln!(stdout, "divide at depth {}:", args.depth)?;
            for &(mv, n) in parts {
                writeln!(stdout, "{:>6} {n:>15}", pos.format_move(mv))?;
            }
            writeln!(
                stdout,
                "{:>6} {:>15}",
                "total",
                parts.iter().map(|p| p.1).sum::<u64>()
            )?;
        }
        Ok(())
    }
}

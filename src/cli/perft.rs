//! `joute perft`: counts for every depth, with times and rates, or divided by first move.

use std::io::Write;
use std::time::Instant;

use serde_json::json;

use super::{InputError, PerftArgs};
use joute::games::perft::{divide, perft, perft_parallel};
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
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads)
            .build()?;
        let parallel = args.threads > 1;
        let count = |depth: u32| {
            if parallel {
                pool.install(|| perft_parallel(&pos, depth))
            } else {
                perft(&pos, depth)
            }
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
        let mut rows = Vec::new();
        let mut total_seconds = 0.0;
        for depth in 1..=args.depth {
            let clock = Instant::now();
            let n = count(depth);
            let seconds = clock.elapsed().as_secs_f64();
            total_seconds += seconds;
            let rate = if seconds > 0.0 {
                n as f64 / seconds
            } else {
                0.0
            };
            if !args.json {
                writeln!(stdout, "{depth:>5} {n:>15} {seconds:>10.3} {rate:>14.0}")?;
                stdout.flush()?;
            }
            rows.push((depth, n, seconds, rate));
        }
        let parts = if args.divide {
            let clock = Instant::now();
            let parts = pool.install(|| divide(&pos, args.depth, parallel));
            total_seconds += clock.elapsed().as_secs_f64();
            parts
        } else {
            Vec::new()
        };
        if args.json {
            let value = json!({
                "game": pos.name(),
                "depth": args.depth,
                "threads": args.threads,
                "counts": rows.iter().map(|r| r.1).collect::<Vec<_>>(),
                "seconds": total_seconds,
                "rows": rows.iter().map(|&(depth, count, seconds, rate)| json!({
                    "depth": depth, "count": count, "seconds": seconds, "leaves_per_second": rate,
                })).collect::<Vec<_>>(),
                "divide": parts.iter().map(|&(mv, n)| json!({
                    "move": pos.format_move(mv), "count": n,
                })).collect::<Vec<_>>(),
            });
            writeln!(stdout, "{value}")?;
        } else if args.divide {
            writeln!(stdout, "divide at depth {}:", args.depth)?;
            for &(mv, n) in &parts {
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

//! `joute bench`: engines compared on the same positions, or the fixed benchmark
//! ([`joute::arena::bench`]), rendered as a table or JSON.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use super::meter::Watch;
use super::{BenchArgs, InputError};
use joute::arena::bench::{
    self, Comparison, DEFAULT_SEED, FileForm, PositionSource, Progress, Request, Totals,
    nodes_per_second,
};

/// The help after the options: what the comparison does, with examples.
pub(super) fn help() -> String {
    format!(
        "Every engine searches every position, each with a fresh engine (no table carries over):
the node counts are reproducible, except under a time budget (pvs:200ms).
Examples:
  joute bench connect4 minimax:5 alphabeta:5 pvs:5 --random 100 --plies 6
  joute bench connect4 minimax alphabeta mtdf pvs --depth 6 --random 50 --plies 4 --each
  joute bench othello pvs:8 pvs:8:exact=20 --positions openings/othello-8move.txt --json
  joute bench             (the fixed benchmark)

{}",
        super::engine_help()
    )
}

pub(super) fn run(args: &BenchArgs) -> anyhow::Result<()> {
    let Some(game) = args.game else {
        return fixed(args.json);
    };
    let positions = match (&args.positions, args.random) {
        (Some(file), _) => PositionSource::File(file.clone()),
        (None, Some(count)) => PositionSource::Random {
            count,
            // clap requires --plies with --random.
            plies: args.plies.unwrap_or(0),
            seed: args.seed.unwrap_or(DEFAULT_SEED),
        },
        (None, None) => {
            return Err(InputError(
                "no positions to search; give --positions FILE or --random N --plies P".into(),
            )
            .into());
        }
    };
    let request = Request {
        engines: args.engines.clone(),
        positions,
        depth: args.depth,
    };
    let mut shown = Shown {
        done: Arc::new(AtomicU64::new(0)),
        watch: None,
        show: !args.json,
    };
    let compared =
        bench::compare(game, &request, &mut shown).map_err(|e| InputError(e.to_string()))?;
    if let Some(watch) = shown.watch.take() {
        watch.finish();
    }
    if args.json {
        return say!("{}", comparison_json(&request, &compared)).map_err(Into::into);
    }
    table(&request, &compared)?;
    if args.each {
        each(&compared)?;
    }
    Ok(())
}

/// The progress bar of a comparison (on a terminal, without --json).
struct Shown {
    done: Arc<AtomicU64>,
    watch: Option<Watch>,
    show: bool,
}

impl Progress for Shown {
    fn starting(&mut self, searches: u64) {
        self.watch = Some(Watch::count(
            self.done.clone(),
            searches,
            "searches",
            self.show,
        ));
    }

    fn searched(&mut self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
}

/// Where the positions came from, in words.
fn source(request: &Request, compared: &Comparison) -> String {
    match &request.positions {
        PositionSource::File(path) => format!(
            "from {} ({})",
            path.display(),
            match compared.form {
                Some(FileForm::Suite) => "a test suite",
                _ => "an openings file",
            }
        ),
        PositionSource::Random { plies, seed, .. } => {
            format!("after {plies} random plies (seed {seed})")
        }
    }
}

fn comparison_json(request: &Request, compared: &Comparison) -> Value {
    let source = match &request.positions {
        PositionSource::File(path) => {
            json!({"file": path.display().to_string(), "form": compared.form})
        }
        PositionSource::Random { count, plies, seed } => {
            json!({"random": count, "plies": plies, "seed": seed})
        }
    };
    let engines: Vec<Value> = compared
        .engines
        .iter()
        .map(|run| {
            let mut row = serde_json::to_value(run.totals()).unwrap_or_default();
            row["engine"] = json!(run.engine);
            row["time_limited"] = json!(run.time_limited);
            row["searches"] = json!(run.searches);
            row
        })
        .collect();
    json!({
        "game": compared.game,
        "source": source,
        "depth": request.depth,
        "positions": compared.positions,
        "engines": engines,
    })
}

/// The table of the engines' figures.
fn table(request: &Request, compared: &Comparison) -> anyhow::Result<()> {
    let n = compared.positions.len();
    say!(
        "{}: {n} position{} {}, each searched by a fresh engine{}",
        compared.game,
        if n == 1 { "" } else { "s" },
        source(request, compared),
        if compared.engines.iter().any(|e| e.time_limited) {
            ""
        } else {
            " (node counts reproducible)"
        }
    )?;
    let totals: Vec<Totals> = compared.engines.iter().map(|e| e.totals()).collect();
    let width = compared
        .engines
        .iter()
        .map(|e| e.engine.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    // Only mcts has a selective depth: its columns appear when an engine has one.
    let seldepth = totals.iter().any(|t| t.max_seldepth > 0);
    say!(
        "{:<width$} {:>9} {:>13} {:>12} {:>12} {:>6} {:>4} {:>4}{} {:>9} {:>12}",
        "engine",
        "positions",
        "nodes",
        "nodes/pos",
        "median",
        "depth",
        "min",
        "max",
        if seldepth { "  seldepth   max" } else { "" },
        "seconds",
        "nodes/s"
    )?;
    for (run, t) in compared.engines.iter().zip(&totals) {
        say!(
            "{:<width$} {:>9} {:>13} {:>12.1} {:>12.1} {:>6.2} {:>4} {:>4}{} {:>9.3} {:>12.0}",
            run.engine,
            t.positions,
            t.nodes,
            t.mean_nodes,
            t.median_nodes,
            t.mean_depth,
            t.min_depth,
            t.max_depth,
            if seldepth {
                format!(" {:>9.2} {:>5}", t.mean_seldepth, t.max_seldepth)
            } else {
                String::new()
            },
            t.seconds,
            t.nps
        )?;
    }
    for (run, t) in compared.engines.iter().zip(&totals) {
        if run.time_limited {
            say!(
                "{}: a time budget, its counts depend on the machine ({} of {} searches cut by time)",
                run.engine,
                t.timed_out,
                t.positions
            )?;
        }
    }
    Ok(())
}

/// Each position's nodes, one column per engine, the position last.
fn each(compared: &Comparison) -> anyhow::Result<()> {
    let widths: Vec<usize> = compared
        .engines
        .iter()
        .map(|e| e.engine.chars().count().max(10))
        .collect();
    let mut header = format!("\n{:>5}", "#");
    for (run, w) in compared.engines.iter().zip(&widths) {
        header += &format!(" {:>w$}", run.engine);
    }
    say!("{header}  position")?;
    for (i, text) in compared.positions.iter().enumerate() {
        let mut line = format!("{:>5}", i + 1);
        for (run, w) in compared.engines.iter().zip(&widths) {
            let s = run.searches[i];
            let mark = if s.timed_out { "*" } else { "" };
            line += &format!(" {:>w$}", format!("{}{mark}", s.nodes));
        }
        say!("{line}  {}", if text.is_empty() { "start" } else { text })?;
    }
    if compared
        .engines
        .iter()
        .any(|e| e.searches.iter().any(|s| s.timed_out))
    {
        say!("* cut by its time budget")?;
    }
    Ok(())
}

/// The fixed benchmark, as it has always been printed.
fn fixed(as_json: bool) -> anyhow::Result<()> {
    let rows = bench::fixed()?;
    let nodes: u64 = rows.iter().map(|r| r.nodes).sum();
    let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
    let nps = nodes_per_second;
    if as_json {
        say!(
            "{}",
            json!({
                "nodes": nodes,
                "seconds": seconds,
                "nps": nps(nodes, seconds),
                "rows": rows.iter().map(|r| json!({
                    "game": r.game, "engine": r.engine, "positions": r.positions,
                    "nodes": r.nodes, "seconds": r.seconds, "nps": nps(r.nodes, r.seconds),
                })).collect::<Vec<_>>(),
            })
        )?;
        return Ok(());
    }
    say!(
        "{:<14} {:<14} {:>9} {:>12} {:>9} {:>12}",
        "game",
        "engine",
        "positions",
        "nodes",
        "seconds",
        "nodes/s"
    )?;
    for r in &rows {
        say!(
            "{:<14} {:<14} {:>9} {:>12} {:>9.3} {:>12.0}",
            r.game,
            r.engine,
            r.positions,
            r.nodes,
            r.seconds,
            nps(r.nodes, r.seconds)
        )?;
    }
    say!(
        "total: {nodes} nodes in {seconds:.3} s, {:.0} nodes/s",
        nps(nodes, seconds)
    )?;
    Ok(())
}

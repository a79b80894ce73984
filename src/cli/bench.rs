//! `joute bench`: a fixed set of positions per game and algorithm, searched with the default
//! weights. The total node count is the search's fingerprint: it changes only when the search
//! or the evaluation changes.

use std::io::Write;
use std::time::Instant;

use serde_json::json;

use super::BenchArgs;
use joute::arena::{Engine, EngineSpec};
use joute::eval::Features;
use joute::games::{Connect4, Morpion, Othello};

/// One line of the benchmark.
struct Row {
    game: String,
    engine: String,
    positions: usize,
    nodes: u64,
    seconds: f64,
}

/// Searches every position reached by `openings` from `start` with every engine in `engines`.
fn bench_game<G: Features>(
    start: G,
    openings: &[&str],
    engines: &[&str],
) -> anyhow::Result<Vec<Row>> {
    let positions: Vec<G> = openings
        .iter()
        .map(|o| start.play_sequence(o))
        .collect::<Result<_, _>>()?;
    let mut rows = Vec::new();
    for &text in engines {
        let spec = EngineSpec::parse(text)?;
        let mut nodes = 0;
        let clock = Instant::now();
        for pos in &positions {
            // A fresh engine per position: no table carries over, so the count is stable.
            let mut engine = Engine::new(&spec, &start, 1)?;
            nodes += engine.choose(pos).stats.nodes;
        }
        rows.push(Row {
            game: start.name(),
            engine: text.to_string(),
            positions: positions.len(),
            nodes,
            seconds: clock.elapsed().as_secs_f64(),
        });
    }
    Ok(rows)
}

pub(super) fn run(args: &BenchArgs) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    rows.extend(bench_game(
        Othello::start(),
        &[
            "",
            "f5d6c3d3c4",
            "f5f6e6f4e3",
            "c4e3f6e6f5c5",
            "f5d6c5f4e3f6",
        ],
        &["alphabeta:8", "bisection:6", "mtdf:9", "pvs:9"],
    )?);
    rows.extend(bench_game(
        Connect4::start(),
        &["", "4453", "444444", "3435", "12345671"],
        &["alphabeta:10", "mtdf:14", "pvs:14"],
    )?);
    rows.extend(bench_game(
        Morpion::start(3, 3, 3),
        &["", "b2"],
        &["minimax:9", "alphabeta:9"],
    )?);
    rows.extend(bench_game(
        Morpion::start(7, 7, 4),
        &["", "d4 c3"],
        &["pvs:5"],
    )?);

    let nodes: u64 = rows.iter().map(|r| r.nodes).sum();
    let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
    let nps = |n: u64, s: f64| n as f64 / s.max(1e-9);
    if args.json {
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
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<14} {:<14} {:>9} {:>12} {:>9} {:>12}",
        "game", "engine", "positions", "nodes", "seconds", "nodes/s"
    )?;
    for r in &rows {
        writeln!(
            out,
            "{:<14} {:<14} {:>9} {:>12} {:>9.3} {:>12.0}",
            r.game,
            r.engine,
            r.positions,
            r.nodes,
            r.seconds,
            nps(r.nodes, r.seconds)
        )?;
    }
    writeln!(
        out,
        "total: {nodes} nodes in {seconds:.3} s, {:.0} nodes/s",
        nps(nodes, seconds)
    )?;
    Ok(())
}

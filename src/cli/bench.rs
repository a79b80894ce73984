//! `joute bench`: the fixed benchmark ([`joute::arena::bench::fixed`]), rendered as a table or
//! JSON.

use serde_json::json;

use super::BenchArgs;
use joute::arena::bench::{self, nodes_per_second};

pub(super) fn run(args: &BenchArgs) -> anyhow::Result<()> {
    fixed(args.json)
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

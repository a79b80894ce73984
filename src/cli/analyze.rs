//! `joute analyze random-tree`: the algorithms measured against their closed forms.

use serde_json::json;

use super::{AnalyzeArgs, InputError};
use joute::games::random_tree::{MAX_BRANCHING, MAX_DEPTH};
use joute::search::analysis::analyze_counting;

pub(super) fn run(args: &AnalyzeArgs) -> anyhow::Result<()> {
    if args.subject != "random-tree" {
        return Err(InputError(format!(
            "unknown subject '{}'; joute analyzes: random-tree",
            args.subject
        ))
        .into());
    }
    let branching = args.branching.unwrap_or(8);
    let depth = args.depth.unwrap_or(6);
    let trees = args.trees.unwrap_or(200);
    if !(2..=MAX_BRANCHING as u32).contains(&branching) {
        return Err(InputError(format!(
            "--branching {branching} is out of range; it must be between 2 and {MAX_BRANCHING}"
        ))
        .into());
    }
    if !(1..=MAX_DEPTH as u32).contains(&depth) {
        return Err(InputError(format!(
            "--depth {depth} is out of range; it must be between 1 and {MAX_DEPTH}"
        ))
        .into());
    }
    if (branching as f64).powi(depth as i32) > 1e8 {
        return Err(InputError(format!(
            "a tree of branching {branching} and depth {depth} has {:.3e} leaves; minimax would take too long: keep branching^depth at most 1e8",
            (branching as f64).powi(depth as i32)
        ))
        .into());
    }
    if trees == 0 {
        return Err(InputError("--trees must be at least 1".into()).into());
    }
    let done = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let watch = super::meter::Watch::count(done.clone(), trees as u64, "trees", !args.json);
    let analysis = analyze_counting(
        branching as u8,
        depth as u8,
        trees,
        args.seed.unwrap_or(1),
        &done,
    );
    watch.finish();
    if args.json {
        say!("{}", json!(analysis))?;
        return Ok(());
    }
    say!(
        "random trees: branching {branching}, depth {depth}, {trees} trees from seed {}",
        analysis.seed
    )?;
    say!(
        "{:<42} {:>6} {:>14} {:>14} {:>14} {:>8}",
        "algorithm",
        "trees",
        "leaves",
        "nodes",
        "theory",
        "ratio"
    )?;
    for row in &analysis.rows {
        say!(
            "{:<42} {:>6} {:>14.1} {:>14.1} {:>14} {:>8}",
            row.algorithm,
            row.trees,
            row.measured,
            row.nodes,
            row.theory.map_or("-".into(), |t| format!("{t:.1}")),
            row.ratio.map_or("-".into(), |r| format!("{r:.4}")),
        )?;
    }
    Ok(())
}

//! What each engine paid for its rating: the cost table beside the ratings (terminal, CSV,
//! `--json`, the HTML page), in the rating table's order.
//!
//! The figures are [`crate::stats::cost`]'s, per engine: nodes per move (mean, median), depth
//! reached (mean, min, max; the selective depth where there is one), wall time per move (mean,
//! 95th percentile), nodes per second, CPU time and its share of the wall time, moves starved of
//! CPU, and moves cut short by the engine's own time limit.

use std::fmt::Write;

use serde::Serialize;

use super::summary::{Summary, cut};
use super::table::{MAX_NAME_COLUMN, RatingRow};
use crate::stats::cost::{Cost, CostFigures, JUDGED_MICROS, STARVED_SHARE};

/// One engine's row of the cost table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CostRow {
    /// The rating table's rank.
    pub rank: usize,
    /// Engine name.
    pub name: String,
    /// The figures.
    #[serde(flatten)]
    pub figures: CostFigures,
    /// Moves its own time limit cut short (the games then depend on the machine).
    pub cut: u64,
    /// Whether it has a time limit of its own: `cut` is then worth showing even at 0.
    pub time_limited: bool,
}

/// The rows of a run's cost table, in the order of its rating `rows`.
pub fn cost_rows(summary: &Summary, rows: &[RatingRow]) -> Vec<CostRow> {
    rows.iter()
        .filter_map(|r| {
            let i = summary.spec.engine_index(&r.name)?;
            Some(CostRow {
                rank: r.rank,
                name: r.name.clone(),
                figures: summary.costs[i].figures(),
                cut: summary.timeouts[i],
                time_limited: summary.spec.engines[i].time_ms.is_some(),
            })
        })
        .collect()
}

/// The rows of engines known only by name (`joute rate` across runs: each name's costs merged
/// over the runs), in the order of the rating `rows`; an engine without costs (a record file's
/// player) has none.
pub fn cost_rows_by_name<'a>(
    rows: &[RatingRow],
    costs: impl Fn(&str) -> Option<(&'a Cost, u64)>,
) -> Vec<CostRow> {
    rows.iter()
        .filter_map(|r| {
            let (cost, cut) = costs(&r.name)?;
            Some(CostRow {
                rank: r.rank,
                name: r.name.clone(),
                figures: cost.figures(),
                cut,
                time_limited: false,
            })
        })
        .collect()
}

/// A count as the tables print it: whole up to a million (`455`, `10243`, `7.5` below ten),
/// then `1.23M`, `12.3M`, `123M`, `1.23G`.
pub fn count_text(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    if x < 10.0 {
        return format!("{x:.1}");
    }
    if x < 1e6 {
        return format!("{x:.0}");
    }
    let (value, unit) = if x < 1e9 {
        (x / 1e6, "M")
    } else {
        (x / 1e9, "G")
    };
    let digits = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.digits$}{unit}")
}

/// Milliseconds as the tables print them: three significant digits or whole (`0.052`, `1.25`,
/// `12.5`, `125`, `4210`).
pub fn ms_text(ms: f64) -> String {
    if !ms.is_finite() {
        return "-".into();
    }
    let digits = if ms < 1.0 {
        3
    } else if ms < 10.0 {
        2
    } else if ms < 100.0 {
        1
    } else {
        0
    };
    format!("{ms:.digits$}")
}

/// A share as a percentage: `98%`.
pub fn share_text(share: f64) -> String {
    format!("{:.0}%", 100.0 * share)
}

/// Starved moves as the tables print them: `3 of 120`, or `-` when no move was long enough
/// to judge.
pub fn starved_text(f: &CostFigures) -> String {
    if f.judged == 0 {
        "-".into()
    } else {
        format!("{} of {}", f.starved, f.judged)
    }
}

/// Moves cut by the time limit: `12 of 300 (4.0%)`.
pub fn cut_text(row: &CostRow) -> String {
    let moves = row.figures.moves;
    let share = if moves > 0 {
        100.0 * row.cut as f64 / moves as f64
    } else {
        0.0
    };
    format!("{} of {moves} ({share:.1}%)", row.cut)
}

/// The depth column: `5`, `4.6 (3-7)` when it varies, with the selective depth `/ 12.3` where
/// there is one; `-` when no move said.
pub fn depth_text(f: &CostFigures) -> String {
    let mut text = match (f.depth_mean, f.depth_min, f.depth_max) {
        (Some(_), Some(lo), Some(hi)) if lo == hi => format!("{lo}"),
        (Some(mean), Some(lo), Some(hi)) => format!("{mean:.1} ({lo}-{hi})"),
        _ => "-".into(),
    };
    if let Some(sel) = f.seldepth_mean {
        let _ = write!(text, " / {sel:.1}");
    }
    text
}

/// Whether any row's moves were cut by a time limit, or any engine has one: the table then
/// shows the `cut` column.
fn shows_cut(rows: &[CostRow]) -> bool {
    rows.iter().any(|r| r.cut > 0 || r.time_limited)
}

/// Whether any row's CPU time was measured.
fn shows_cpu(rows: &[CostRow]) -> bool {
    rows.iter().any(|r| r.figures.cpu_moves > 0)
}

/// One cell of the cost table: its text and its sort key (`-inf` for `-`).
#[derive(Clone, Debug, PartialEq)]
pub struct CostCell {
    /// As printed.
    pub text: String,
    /// The number behind it, for sorting.
    pub key: f64,
}

/// One column of the cost table: its header and each row's cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CostColumn {
    /// The header.
    pub header: &'static str,
    /// Each row's cell.
    pub cells: Vec<CostCell>,
}

/// The cost table's columns, the same for the terminal and the HTML page. Compact: nodes,
/// depth and time per move, the CPU share and the starved moves; `full`: every figure. The
/// moves cut by a time limit join them when any engine has one; the CPU columns appear when
/// some CPU time was measured.
pub fn cost_columns(rows: &[CostRow], full: bool) -> Vec<CostColumn> {
    let cell = |x: Option<f64>, text: fn(f64) -> String| CostCell {
        text: x.map_or("-".into(), text),
        key: x.unwrap_or(f64::NEG_INFINITY),
    };
    let mut columns: Vec<CostColumn> = Vec::new();
    let mut column = |header: &'static str, each: &dyn Fn(&CostRow) -> CostCell| {
        columns.push(CostColumn {
            header,
            cells: rows.iter().map(each).collect(),
        });
    };
    column("nodes/move", &|r| cell(r.figures.nodes_mean, count_text));
    if full {
        column("median", &|r| {
            cell(r.figures.nodes_median.map(|m| m as f64), count_text)
        });
    }
    column("depth", &|r| CostCell {
        text: depth_text(&r.figures),
        key: r.figures.depth_mean.unwrap_or(f64::NEG_INFINITY),
    });
    column("ms/move", &|r| cell(r.figures.ms_mean, ms_text));
    if full {
        column("p95 ms", &|r| cell(r.figures.ms_p95, ms_text));
        column("nodes/s", &|r| cell(r.figures.nodes_per_second, count_text));
    }
    if shows_cpu(rows) {
        if full {
            column("CPU ms", &|r| cell(r.figures.cpu_ms_mean, ms_text));
        }
        column("CPU", &|r| cell(r.figures.cpu_share, share_text));
        column("starved", &|r| CostCell {
            text: starved_text(&r.figures),
            key: r.figures.starved as f64,
        });
    }
    if shows_cut(rows) {
        column("cut", &|r| CostCell {
            text: cut_text(r),
            key: r.cut as f64,
        });
    }
    columns
}

/// The cost table for the terminal ([`cost_columns`]), with a line saying what its columns
/// mean. `None` when no engine's moves were counted.
pub fn cost_table(rows: &[CostRow], full: bool) -> Option<String> {
    if rows.iter().all(|r| r.figures.moves == 0) {
        return None;
    }
    const TITLE: &str = "Cost of";
    let width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(TITLE.len(), MAX_NAME_COLUMN);
    let columns = cost_columns(rows, full);
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| {
            c.cells
                .iter()
                .map(|x| x.text.chars().count())
                .max()
                .unwrap_or(0)
                .max(c.header.chars().count())
        })
        .collect();
    let mut out = format!("Rank {TITLE:<width$}");
    for (c, w) in columns.iter().zip(&widths) {
        let _ = write!(out, "  {:>w$}", c.header);
    }
    out.push('\n');
    for (k, r) in rows.iter().enumerate() {
        let _ = write!(out, "{:>4} {:<width$}", r.rank, cut(&r.name, width));
        for (c, w) in columns.iter().zip(&widths) {
            let _ = write!(out, "  {:>w$}", c.cells[k].text);
        }
        out.push('\n');
    }
    let _ = writeln!(out, "  {}", cost_legend(rows, full, true));
    Some(out)
}

/// What the cost table's columns mean, one line; `terminal`: with the flag that shows every
/// figure.
pub fn cost_legend(rows: &[CostRow], full: bool, terminal: bool) -> String {
    let mut parts = vec![if full {
        "per move: nodes (mean, median), depth reached (mean (min-max) / selective depth), wall ms (mean, 95th percentile); nodes/s over the wall time"
    } else {
        "per move: nodes (mean), depth reached (mean (min-max) / selective depth), wall ms (mean)"
    }
    .to_string()];
    if shows_cpu(rows) {
        parts.push(format!(
            "CPU: CPU time ÷ wall time; starved: moves of {} ms or more under {} of a core",
            JUDGED_MICROS / 1000,
            share_text(STARVED_SHARE)
        ));
    }
    if shows_cut(rows) {
        parts.push(
            "cut: moves cut short by the engine's time limit (results depend on the machine)"
                .into(),
        );
    }
    if terminal && !full {
        parts.push("--cost prints every figure".into());
    }
    parts.join("; ")
}

/// One line when some engine's moves were starved of CPU: how many, per engine, and what it
/// means for a run on a clock; `None` when none were.
pub fn starved_warning(rows: &[CostRow], clocked: bool) -> Option<String> {
    let starved: Vec<String> = rows
        .iter()
        .filter(|r| r.figures.starved > 0)
        .map(|r| format!("{} {}", r.name, starved_text(&r.figures)))
        .collect();
    if starved.is_empty() {
        return None;
    }
    let consequence = if clocked {
        "on a clock their engines had less time than the clock says"
    } else {
        "their times say more of the machine than of the engines"
    };
    Some(format!(
        "moves starved of CPU (under {} of a core): {}; {consequence} (fewer games at once than cores, or an idle machine, avoids it)",
        share_text(STARVED_SHARE),
        starved.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::cost::MoveCost;

    fn row(name: &str, rank: usize, moves: &[MoveCost], cut: u64) -> CostRow {
        let mut cost = Cost::default();
        for (k, m) in moves.iter().enumerate() {
            cost.add(k + 1, m);
        }
        CostRow {
            rank,
            name: name.into(),
            figures: cost.figures(),
            cut,
            time_limited: false,
        }
    }

    fn mv(nodes: u64, depth: u32, us: u64, cpu: Option<u64>) -> MoveCost {
        MoveCost {
            nodes: Some(nodes),
            depth,
            seldepth: 0,
            micros: Some(us),
            cpu_micros: cpu,
        }
    }

    #[test]
    fn the_compact_table_has_nodes_depth_time_and_cpu() {
        let rows = vec![
            row(
                "pvs-5",
                1,
                &[mv(400, 5, 900, Some(880)), mv(510, 5, 1100, Some(1000))],
                0,
            ),
            row("minimax-5", 2, &[mv(10243, 5, 20_000, Some(9_000))], 0),
        ];
        let text = cost_table(&rows, false).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].contains("nodes/move") && lines[0].contains("starved"),
            "{text}"
        );
        assert!(!lines[0].contains("median"), "{text}");
        // pvs-5: mean 455 nodes, depth 5, 1.00 ms, CPU 94%; no move of 5 ms or more.
        assert!(
            lines[1].contains(" 455 ") && lines[1].contains(" 1.00 "),
            "{text}"
        );
        assert!(
            lines[1].contains(" 94% ") && lines[1].trim_end().ends_with('-'),
            "{text}"
        );
        // minimax-5: one move of 20 ms at 45% of a core: starved.
        assert!(
            lines[2].contains("10243") && lines[2].contains("1 of 1"),
            "{text}"
        );
        assert!(text.contains("--cost prints every figure"), "{text}");
        let full = cost_table(&rows, true).unwrap();
        assert!(full.lines().next().unwrap().contains("median"), "{full}");
        assert!(!full.contains("--cost"), "{full}");
        let warning = starved_warning(&rows, true).unwrap();
        assert!(warning.contains("minimax-5 1 of 1") && !warning.contains("pvs-5"));
    }

    #[test]
    fn moves_cut_by_a_time_limit_join_the_table_and_empty_runs_have_none() {
        let rows = vec![row("ab", 1, &[mv(10, 2, 100, None); 4], 1)];
        let text = cost_table(&rows, false).unwrap();
        assert!(text.contains("1 of 4 (25.0%)"), "{text}");
        assert!(!text.contains("starved"), "no CPU measured: {text}");
        assert_eq!(cost_table(&[row("x", 1, &[], 0)], false), None);
        assert_eq!(starved_warning(&rows, false), None);
    }

    #[test]
    fn counts_and_times_read_at_a_glance() {
        assert_eq!(count_text(455.4), "455");
        assert_eq!(count_text(7.46), "7.5");
        assert_eq!(count_text(10243.0), "10243");
        assert_eq!(count_text(7_970_000.0), "7.97M");
        assert_eq!(count_text(123_400_000.0), "123M");
        assert_eq!(count_text(2.5e9), "2.50G");
        assert_eq!(ms_text(0.0523), "0.052");
        assert_eq!(ms_text(12.54), "12.5");
        assert_eq!(ms_text(4210.4), "4210");
        assert_eq!(share_text(0.981), "98%");
    }
}

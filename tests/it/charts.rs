//! Charts of real runs: a Connect 4 round robin (alphabeta at depths 1, 2, 3 and a random
//! engine) and a two-engine SPRT match (alphabeta against random), played by the `joute` binary into temporary folders,
//! loaded back with `summarize_logs`, and drawn as PNG and SVG; and the charts an Othello run
//! of several algorithms writes into its own folder (strength against cost, cost by ply).

use std::path::Path;
use std::sync::OnceLock;

use joute::report::Summary;

use crate::common::specs::spec;
use crate::common::{self, scratch};
use joute::report::charts::{chart_names, svg_charts, write_charts};
use joute::report::load::summarize_logs;

fn load(out: &Path) -> Summary {
    summarize_logs(&[out.join("games.jsonl")]).unwrap().1
}

/// A Connect 4 round robin: alphabeta at depths 1, 2 and 3, and random.
fn round_robin_spec() -> String {
    spec("charts", "connect4", 5, 4, 4)
        .engines(&["ab-1", "ab-2", "ab-3", "random"])
        .text()
}

/// The round robin's summary (played once per test binary).
fn round_robin() -> &'static Summary {
    static SUMMARY: OnceLock<Summary> = OnceLock::new();
    SUMMARY.get_or_init(|| {
        let dir = scratch("rr");
        let spec = dir.join("charts.toml");
        std::fs::write(&spec, round_robin_spec()).unwrap();
        let out = dir.join("out");
        common::joute_to("run", &spec, &out, &["--quiet"]);
        load(&out)
    })
}

/// An SPRT match's summary.
fn sprt_match() -> &'static Summary {
    static SUMMARY: OnceLock<Summary> = OnceLock::new();
    SUMMARY.get_or_init(|| {
        let dir = scratch("sprt");
        let out = dir.join("out");
        let args: Vec<&str> = "connect4 alphabeta:3 random --sprt 0,50 --games 400"
            .split(' ')
            .collect();
        common::match_quietly(&out, &args);
        load(&out)
    })
}

/// Width, height and the variance of the grey level of a PNG.
fn decode(path: &Path) -> (u32, u32, f64) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "{}", path.display());
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("{}: colour type {other:?}", path.display()),
    };
    let grey: Vec<f64> = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| (p[0] as f64 + p[1] as f64 + p[2] as f64) / 3.0)
        .collect();
    let mean = grey.iter().sum::<f64>() / grey.len() as f64;
    let variance = grey.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / grey.len() as f64;
    (info.width, info.height, variance)
}

/// A chart's size in SVG units (the PNG has twice as many pixels each way), for the runs of
/// this file (under 16 engines).
fn size_of(chart: &str) -> (u32, u32) {
    match chart {
        "crosstable" => (800, 800),
        "elo-by-nodes" | "elo-by-time" => (900, 560),
        _ => (900, 500),
    }
}

/// Writes the charts of `summary` and checks every PNG and SVG; returns the chart names.
fn check_charts(summary: &Summary, name: &str) -> Vec<String> {
    let dir = scratch(name);
    let ratings = summary.ratings();
    let written = write_charts(summary, &ratings, &dir).unwrap();
    let names = chart_names(summary);
    assert_eq!(written.paths.len(), 2 * names.len());
    assert_eq!(written.svgs, svg_charts(summary, &ratings).unwrap());
    let mut leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    leftovers.sort();
    let mut expected: Vec<String> = names
        .iter()
        .flat_map(|n| [format!("{n}.png"), format!("{n}.svg")])
        .collect();
    expected.sort();
    assert_eq!(leftovers, expected, "only the charts, no temporary files");

    for chart in &names {
        let (w, h, variance) = decode(&dir.join(format!("{chart}.png")));
        let size = size_of(chart);
        // The PNG is the SVG drawn at twice its size.
        assert_eq!((w, h), (2 * size.0, 2 * size.1), "{chart}");
        assert!(variance > 100.0, "{chart}: blank? grey variance {variance}");
        let svg = std::fs::read_to_string(dir.join(format!("{chart}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{chart}");
        assert!(
            svg.contains(&format!("width=\"{}\" height=\"{}\"", size.0, size.1)),
            "{chart}"
        );
        if matches!(
            *chart,
            "elo" | "crosstable" | "elo-by-nodes" | "elo-by-time"
        ) {
            for engine in &summary.spec.engines {
                // A label, a bound's label (`NAME (< -800)`) or a note of the engines left out.
                assert!(
                    svg.contains(&format!("{}\n</text>", engine.name))
                        || svg.contains(&format!("{} (", engine.name))
                        || svg.contains(&format!(": {}\n</text>", engine.name)),
                    "{chart}: no '{}'",
                    engine.name
                );
            }
        }
    }

    // The in-memory SVG are the same charts.
    let inline = svg_charts(summary, &ratings).unwrap();
    let inline_names: Vec<&str> = inline.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(inline_names, names);
    for (chart, svg) in &inline {
        assert_eq!(
            svg,
            &std::fs::read_to_string(dir.join(format!("{chart}.svg"))).unwrap()
        );
    }
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn a_round_robin_of_depths_has_an_elo_by_depth_chart_and_no_sprt() {
    let names = check_charts(round_robin(), "rr-charts");
    assert_eq!(
        names,
        [
            "elo",
            "crosstable",
            "elo-by-depth",
            "elo-by-nodes",
            "elo-by-time",
            "game-lengths",
            "nodes-by-ply",
            "time-by-ply"
        ],
        "{names:?}"
    );
}

#[test]
fn an_sprt_match_has_an_sprt_chart_and_no_elo_by_depth() {
    let summary = sprt_match();
    assert!(summary.sprt.as_ref().unwrap().history().len() > 1);
    let names = check_charts(summary, "sprt-charts");
    // Random reports no nodes: no Elo by nodes of one engine.
    assert_eq!(
        names,
        [
            "elo",
            "crosstable",
            "elo-by-time",
            "sprt",
            "game-lengths",
            "nodes-by-ply",
            "time-by-ply"
        ],
        "{names:?}"
    );
}

#[test]
fn the_sprt_chart_shows_both_bounds() {
    let summary = sprt_match();
    let test = summary.sprt.as_ref().unwrap().test();
    let charts = svg_charts(summary, &summary.ratings()).unwrap();
    let (_, svg) = charts.iter().find(|(n, _)| n == "sprt").unwrap();
    assert!(svg.contains(&format!("{:.2}", test.upper())), "{svg}");
    assert!(svg.contains(&format!("{:.2}", test.lower())), "{svg}");
}

#[test]
fn engines_of_one_algorithm_at_one_depth_draw_no_depth_chart() {
    let mut summary = round_robin().clone();
    for engine in &mut summary.spec.engines {
        if engine.depth.is_some() {
            engine.depth = Some(2);
        }
    }
    assert!(!chart_names(&summary).contains(&"elo-by-depth"));
}

#[test]
fn a_depth_line_joins_only_engines_that_differ_in_depth_alone() {
    // The gauntlet example's case: alphabeta 3 with the defaults and alphabeta 4 with other
    // weights are not one line (their difference is not a ply).
    let mut summary = round_robin().clone();
    let other = |e: &mut joute::arena::spec::ResolvedEngine| {
        e.weights_origin = "discs.toml".into();
        for (_, w) in &mut e.weights {
            *w = 0.0;
        }
        e.weights[0].1 = 1.0;
    };
    // Depths 1, 2, 3: give depth 3 other weights; 1 and 2 still make a line.
    let three = summary
        .spec
        .engines
        .iter()
        .position(|e| e.depth == Some(3))
        .unwrap();
    other(&mut summary.spec.engines[three]);
    assert!(chart_names(&summary).contains(&"elo-by-depth"));
    let charts = svg_charts(&summary, &summary.ratings()).unwrap();
    let (_, svg) = charts.iter().find(|(n, _)| n == "elo-by-depth").unwrap();
    // One line (one legend entry, the algorithm alone), whose points are depths 1 and 2.
    assert_eq!(svg.matches("\nalphabeta\n").count(), 1, "{svg}");
    assert!(!svg.contains("discs.toml"), "{svg}");
    // Depth 2 with other weights too: no two engines differ by depth alone, no chart.
    let two = summary
        .spec
        .engines
        .iter()
        .position(|e| e.depth == Some(2))
        .unwrap();
    summary.spec.engines[two].weights_origin = "other.toml".into();
    summary.spec.engines[two].weights[1].1 = 5.0;
    assert!(!chart_names(&summary).contains(&"elo-by-depth"));
}

#[test]
fn a_bound_rating_is_drawn_at_the_axis_edge_and_does_not_stretch_it() {
    let summary = round_robin();
    let mut ratings = summary.ratings();
    // The Morpion example's case: random lost everything and is rated near -1890.
    let elo = |r: &joute::stats::ratings::Rating| r.elo.unwrap();
    let weakest = (0..ratings.ratings.len())
        .min_by(|&a, &b| elo(&ratings.ratings[a]).total_cmp(&elo(&ratings.ratings[b])))
        .unwrap();
    ratings.ratings[weakest].elo = Some(-1890.0);
    ratings.ratings[weakest].error = None;
    ratings.ratings[weakest].bound = Some(joute::stats::ratings::Bound::Upper);
    let charts = svg_charts(summary, &ratings).unwrap();
    let (_, svg) = charts.iter().find(|(n, _)| n == "elo").unwrap();
    // Its bound is written beside it...
    assert!(svg.contains("&lt; -1890"), "{svg}");
    // ...and the axis spans the estimated engines only: no tick anywhere near -1890.
    let lowest_estimate = ratings
        .ratings
        .iter()
        .filter(|r| r.bound.is_none())
        .map(|r| elo(r) - r.error.unwrap())
        .fold(f64::INFINITY, f64::min);
    let ticks: Vec<f64> = svg
        .lines()
        .filter_map(|l| l.trim().parse::<f64>().ok())
        .collect();
    let lowest_tick = ticks.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(
        lowest_tick > lowest_estimate - 0.5 * (lowest_estimate.abs() + 100.0),
        "ticks {ticks:?}, lowest estimate {lowest_estimate}"
    );
    assert!(lowest_tick > -1000.0, "ticks {ticks:?}");
}

#[test]
fn an_engine_name_is_escaped_in_the_svg() {
    let mut summary = round_robin().clone();
    let evil = "<script>alert(1)</script>";
    summary.spec.engines[3].name = evil.to_string();
    summary.results.names[3] = evil.to_string();
    let mut ratings = summary.ratings();
    ratings.ratings[3].name = evil.to_string();
    for (chart, svg) in svg_charts(&summary, &ratings).unwrap() {
        assert!(!svg.contains("<script"), "{chart}: a script tag");
        if matches!(chart.as_str(), "elo" | "crosstable") {
            assert!(
                svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
                "{chart}: the name is not there, escaped"
            );
        }
    }
}

/// How long drawing every chart of a 20-engine round robin takes (PNG and SVG files, then the
/// SVG in memory). `cargo test --release --test it charts:: -- --ignored --nocapture`.
#[test]
#[ignore]
fn timing_of_twenty_engines() {
    let mut spec = String::from(
        "name = \"twenty\"\ngame = \"connect4\"\nseed = 9\nopenings = { plies = 4, count = 1 }\n",
    );
    for depth in 1..=5 {
        for algorithm in ["alphabeta", "pvs", "mtdf"] {
            spec += &format!(
                "[[engine]]\nname = \"{algorithm}-{depth}\"\nalgorithm = \"{algorithm}\"\ndepth = {depth}\n"
            );
        }
    }
    for k in 0..5 {
        spec += &format!("[[engine]]\nname = \"random-{k}\"\nalgorithm = \"random\"\n");
    }
    let dir = scratch("twenty");
    std::fs::write(dir.join("twenty.toml"), spec).unwrap();
    let out = dir.join("out");
    common::joute_ok(&[
        "run",
        dir.join("twenty.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let summary = load(&out);
    assert_eq!(summary.spec.engines.len(), 20);
    let ratings = summary.ratings();
    let charts = dir.join("charts");
    write_charts(&summary, &ratings, &charts).unwrap(); // warm-up (font registration)
    let runs = 5;
    let start = std::time::Instant::now();
    for _ in 0..runs {
        write_charts(&summary, &ratings, &charts).unwrap();
    }
    let files = start.elapsed() / runs;
    let start = std::time::Instant::now();
    for _ in 0..runs {
        svg_charts(&summary, &ratings).unwrap();
    }
    let inline = start.elapsed() / runs;
    println!(
        "20 engines, {} games, charts {:?}: write_charts {files:?}, svg_charts {inline:?}",
        summary.games,
        chart_names(&summary)
    );
}

#[test]
fn an_othello_match_has_a_margin_chart() {
    let dir = scratch("othello");
    let out = dir.join("out");
    common::match_quietly(&out, &["othello", "alphabeta:2", "random", "--games", "8"]);
    let names = check_charts(&load(&out), "othello-charts");
    assert_eq!(
        names,
        [
            "elo",
            "crosstable",
            "elo-by-time",
            "game-lengths",
            "margins",
            "nodes-by-ply",
            "time-by-ply"
        ],
        "{names:?}"
    );
}

#[test]
fn a_run_writes_its_cost_charts_as_png_and_svg() {
    let dir = scratch("costs");
    let out = common::run_spec(&dir, common::OTHELLO_COSTS);
    let summary = load(&out);
    for chart in ["elo-by-nodes", "elo-by-time", "nodes-by-ply", "time-by-ply"] {
        let (w, h, variance) = decode(&out.join(format!("{chart}.png")));
        let size = size_of(chart);
        assert_eq!((w, h), (2 * size.0, 2 * size.1), "{chart}");
        assert!(variance > 100.0, "{chart}: blank? grey variance {variance}");
        let svg = std::fs::read_to_string(out.join(format!("{chart}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{chart}");
        // Every engine is named: on the chart, in its legend, or in a note saying why not.
        for engine in summary.spec.engine_names() {
            assert!(svg.contains(&engine), "{chart}: no {engine}");
        }
    }
    let nodes = std::fs::read_to_string(out.join("elo-by-nodes.svg")).unwrap();
    assert!(
        nodes.contains("Left out (no node counts): random"),
        "random counts no nodes"
    );
    assert!(nodes.contains("frontier"));
    // The same charts as the report's own drawing of the log.
    let ratings = summary.ratings();
    let drawn = svg_charts(&summary, &ratings).unwrap();
    for (chart, svg) in drawn.iter().filter(|(n, _)| n.contains("-by-")) {
        let written = std::fs::read_to_string(out.join(format!("{chart}.svg"))).unwrap();
        assert_eq!(&written, svg, "{chart}");
    }
}

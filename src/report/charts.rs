//! Charts of a run, as PNG files and as SVG text (for the HTML report), drawn with plotters.
//!
//! - `elo`: every engine's Elo with its 95% interval, best at the top; an engine that won or lost
//!   every game has a bound, not an estimate, and is drawn without a bar, labelled `>` or `<`.
//! - `crosstable`: the score of each row engine against each column engine, in percent, on a
//!   red (0%) – white (50%) – green (100%) scale; empty where the two did not meet. Engines
//!   are in rating order, rows named `RANK. NAME`, columns numbered by rank.
//! - `elo-by-depth`: Elo against search depth, one line per algorithm, for the algorithms that
//!   appear at two depths or more (drawn only when there is one).
//! - `elo-by-nodes`, `elo-by-time`: strength against cost, each engine's Elo with its 95%
//!   interval (a vertical bar) against its mean nodes, or mean wall time, per move (log scale),
//!   labelled with its name, and the frontier: the line through the engines no other beats at
//!   a lower or equal cost ([`frontier`]). Engines without the figure (an outside engine that
//!   reports no nodes) or without a rating are left out and named in a note; a bound is drawn as
//!   in `elo`. Drawn when two engines have the figure.
//! - `sprt`: the log-likelihood ratio after each counted opening pair, with the two bounds
//!   (drawn only for an SPRT run).
//! - `game-lengths`: the histogram of plies per game, opening included (drawn once a game is in).
//! - `margins`: the histogram of final margins from the first side's point of view, for games
//!   that have one (Othello discs).
//! - `nodes-by-ply`, `time-by-ply`: each engine's mean nodes, or mean wall time, per move at
//!   each ply of the game (the opening's plies counted; log scale), one line per engine: where
//!   an engine spends (an exact endgame solver switching on shows as a jump). A ply where an
//!   engine made fewer than a tenth of the moves it made at its busiest ply is left out: a
//!   mean over the few longest games says little. Drawn when some engine has the figure.
//!
//! Text is drawn with DejaVu Sans, embedded in the binary (the `dejavu` crate) and registered with
//! plotters' `ab_glyph` renderer: nothing is read from the system's fonts. In the SVG text stays
//! text (`font-family="sans-serif"`), escaped, so an engine name cannot inject markup.
//!
//! PNG and SVG files are written atomically: drawn into a temporary file in the target folder,
//! then renamed over the final name, so a reader never sees half a chart.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use crate::outputs::write_atomically;
use crate::report::Summary;
use crate::stats::cost::{CostFigures, PlyCost, frontier};
use crate::stats::ratings::{Bound, Ratings};

/// Why charts could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The embedded font was refused (should not happen: it is compiled in).
    #[error("the embedded DejaVu font could not be registered: {0}")]
    Font(String),
    /// plotters failed while drawing a chart.
    #[error("drawing the '{chart}' chart failed: {message}")]
    Draw {
        /// The chart's name.
        chart: String,
        /// plotters' message.
        message: String,
    },
    /// A file or folder could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// The family every chart's text uses; registered with the embedded DejaVu Sans.
pub(crate) const FAMILY: &str = "sans-serif";

/// Registers the embedded fonts once per process.
pub(crate) fn register_fonts() -> Result<(), ChartError> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        register_font(FAMILY, FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| "DejaVu Sans".to_string())?;
        register_font(FAMILY, FontStyle::Bold, dejavu::sans::bold())
            .map_err(|_| "DejaVu Sans Bold".to_string())
    })
    .clone()
    .map_err(ChartError::Font)
}

/// The charts there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Elo,
    Crosstable,
    EloByDepth,
    EloByNodes,
    EloByTime,
    Sprt,
    Lengths,
    Margins,
    NodesByPly,
    TimeByPly,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Elo => "elo",
            Kind::Crosstable => "crosstable",
            Kind::EloByDepth => "elo-by-depth",
            Kind::EloByNodes => "elo-by-nodes",
            Kind::EloByTime => "elo-by-time",
            Kind::Sprt => "sprt",
            Kind::Lengths => "game-lengths",
            Kind::Margins => "margins",
            Kind::NodesByPly => "nodes-by-ply",
            Kind::TimeByPly => "time-by-ply",
        }
    }

    /// Width and height in pixels (the SVG's user units): 900×500 for the line charts; the Elo
    /// chart grows taller past 16 engines and the crosstable (square) past 16; the strength
    /// against cost charts are 900×560 (room for the names), taller past 20 engines; the cost
    /// by ply charts grow taller past 19 engines (their legend has a row per engine).
    fn size(self, engines: usize) -> (u32, u32) {
        let n = engines.min(100_000) as u32;
        match self {
            Kind::Elo => (900, 500.max(140 + 22 * n)),
            Kind::Crosstable => {
                let side = 800.max(220 + 36 * n);
                (side, side)
            }
            Kind::EloByNodes | Kind::EloByTime => (900, 560.max(240 + 16 * n)),
            Kind::NodesByPly | Kind::TimeByPly => (900, 500.max(150 + 18 * n)),
            _ => (900, 500),
        }
    }
}

/// The charts that apply to `summary`, in the order they are drawn.
fn kinds(summary: &Summary) -> Vec<Kind> {
    let mut kinds = vec![Kind::Elo, Kind::Crosstable];
    if !depth_groups(summary).is_empty() {
        kinds.push(Kind::EloByDepth);
    }
    for (measure, kind) in [
        (Measure::Nodes, Kind::EloByNodes),
        (Measure::Time, Kind::EloByTime),
    ] {
        if mean_costs(summary, measure).iter().flatten().count() >= 2 {
            kinds.push(kind);
        }
    }
    if summary.sprt.is_some() {
        kinds.push(Kind::Sprt);
    }
    if !summary.lengths.is_empty() {
        kinds.push(Kind::Lengths);
    }
    // Only games with a score margin (Othello discs): elsewhere a margin is just +1, 0 or -1.
    if summary.margins.keys().any(|m| m.abs() > 1) {
        kinds.push(Kind::Margins);
    }
    for (measure, kind) in [
        (Measure::Nodes, Kind::NodesByPly),
        (Measure::Time, Kind::TimeByPly),
    ] {
        if !ply_series(summary, measure).0.is_empty() {
            kinds.push(kind);
        }
    }
    kinds
}

/// The names of the charts that apply to `summary` (each written as NAME.png and NAME.svg).
pub fn chart_names(summary: &Summary) -> Vec<&'static str> {
    kinds(summary).into_iter().map(Kind::name).collect()
}

/// What [`write_charts`] wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChartFiles {
    /// Every file written, NAME.png then NAME.svg for each chart.
    pub paths: Vec<PathBuf>,
    /// The SVG text of each chart (name, svg), as written: for inlining in the HTML report
    /// without drawing the charts again.
    pub svgs: Vec<(String, String)>,
}

/// Writes every chart that applies to `summary` into `dir`, as NAME.png and NAME.svg (each to a
/// temporary file renamed into place).
pub fn write_charts(
    summary: &Summary,
    ratings: &Ratings,
    dir: &Path,
) -> Result<ChartFiles, ChartError> {
    std::fs::create_dir_all(dir).map_err(|source| ChartError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let svgs = svg_charts(summary, ratings)?;
    let mut paths = Vec::new();
    for (name, svg) in &svgs {
        paths.push(write_png(dir, name, svg)?);
        paths.push(write_svg(dir, name, svg)?);
    }
    Ok(ChartFiles { paths, svgs })
}

/// PNG pixels per SVG unit: the PNGs are drawn at twice the SVG's size, so that their text is
/// as even and as legible at 100% as the SVG's in a browser.
pub const PNG_SCALE: f32 = 2.0;

/// Writes a chart as `dir/NAME.png`: its SVG text rasterised (resvg, with the embedded DejaVu
/// fonts: nothing is read from the system) at [`PNG_SCALE`], written atomically.
pub(crate) fn write_png(dir: &Path, name: &str, svg: &str) -> Result<PathBuf, ChartError> {
    let bytes = rasterize(svg, PNG_SCALE).map_err(|message| ChartError::Draw {
        chart: name.to_string(),
        message,
    })?;
    let path = dir.join(format!("{name}.png"));
    write_atomically(&path, &bytes).map_err(|source| ChartError::Io {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// The embedded fonts, as the SVG rasteriser's font database (`sans-serif` is DejaVu Sans).
fn font_database() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static FONTS: OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = resvg::usvg::fontdb::Database::new();
            db.load_font_data(dejavu::sans::regular().to_vec());
            db.load_font_data(dejavu::sans::bold().to_vec());
            db.set_sans_serif_family("DejaVu Sans");
            std::sync::Arc::new(db)
        })
        .clone()
}

/// An SVG document as PNG bytes, `scale` pixels per SVG unit, on white.
pub fn rasterize(svg: &str, scale: f32) -> Result<Vec<u8>, String> {
    let options = resvg::usvg::Options {
        fontdb: font_database(),
        font_family: "DejaVu Sans".into(),
        ..resvg::usvg::Options::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &options).map_err(|e| e.to_string())?;
    let size = tree.size();
    let (w, h) = (
        (size.width() * scale).ceil() as u32,
        (size.height() * scale).ceil() as u32,
    );
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(w.max(1), h.max(1)).ok_or("the chart has no area")?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| e.to_string())
}

/// Writes a chart's SVG text to `dir/NAME.svg`, atomically.
pub(crate) fn write_svg(dir: &Path, name: &str, svg: &str) -> Result<PathBuf, ChartError> {
    let path = dir.join(format!("{name}.svg"));
    write_atomically(&path, svg.as_bytes()).map_err(|source| ChartError::Io {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// Draws one chart as SVG text of `size` user units. `draw` fills the whole area.
pub(crate) fn svg_text(
    name: &str,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Drawn,
) -> Result<String, ChartError> {
    let mut svg = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(&root).and_then(|()| root.present().map_err(text))
    };
    drawn.map_err(|message| ChartError::Draw {
        chart: name.to_string(),
        message,
    })?;
    Ok(svg)
}

/// The same charts as SVG text in memory (name, svg), for inlining in the HTML report.
pub fn svg_charts(
    summary: &Summary,
    ratings: &Ratings,
) -> Result<Vec<(String, String)>, ChartError> {
    register_fonts()?;
    kinds(summary)
        .into_iter()
        .map(|kind| Ok((kind.name().to_string(), render_svg(kind, summary, ratings)?)))
        .collect()
}

fn render_svg(kind: Kind, summary: &Summary, ratings: &Ratings) -> Result<String, ChartError> {
    svg_text(kind.name(), kind.size(summary.spec.engines.len()), |root| {
        draw(kind, summary, ratings, root)
    })
}

/// plotters' errors, as text.
pub(crate) fn text<E: std::fmt::Display>(error: E) -> String {
    error.to_string()
}

/// What a drawing function returns: plotters' error as text.
pub(crate) type Drawn = Result<(), String>;

fn draw<DB: DrawingBackend>(
    kind: Kind,
    summary: &Summary,
    ratings: &Ratings,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
    root.fill(&WHITE).map_err(text)?;
    match kind {
        Kind::Elo => draw_elo(summary, ratings, root),
        Kind::Crosstable => draw_crosstable(summary, ratings, root),
        Kind::EloByDepth => draw_elo_by_depth(summary, ratings, root),
        Kind::EloByNodes => draw_elo_by_cost(summary, ratings, Measure::Nodes, root),
        Kind::EloByTime => draw_elo_by_cost(summary, ratings, Measure::Time, root),
        Kind::Sprt => draw_sprt(summary, root),
        Kind::Lengths => draw_lengths(summary, root),
        Kind::Margins => draw_margins(summary, root),
        Kind::NodesByPly => draw_cost_by_ply(summary, Measure::Nodes, root),
        Kind::TimeByPly => draw_cost_by_ply(summary, Measure::Time, root),
    }
}

/// Font size of a chart's caption.
pub(crate) const TITLE: u32 = 22;
/// Font size of an axis description.
pub(crate) const AXIS: u32 = 16;
/// Font size of tick labels, legends and point labels.
pub(crate) const LABEL: u32 = 13;
/// The colour of estimates (points, lines).
pub(crate) const POINT: RGBColor = RGBColor(31, 90, 170);
/// The colour of bounds (and of what stands apart from the estimates).
pub(crate) const BOUND: RGBColor = RGBColor(200, 90, 20);

/// Black text of `size` pixels in the embedded family.
pub(crate) fn font(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&BLACK)
}

/// Pixels for a column of names in the label font (DejaVu Sans is about 0.6 em per character).
fn name_width(names: &[&str]) -> u32 {
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(4) as u32;
    (longest * LABEL * 62 / 100 + 16).clamp(50, 320)
}

/// `n` rows (or columns) for a categorical axis: plotters' integer ranges include their end,
/// so `0..n - 1` has the n segments `0..=n - 1`.
fn rows(
    n: usize,
) -> plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordusize> {
    (0..n.saturating_sub(1)).into_segmented()
}

/// Elo axis ticks: whole numbers.
pub(crate) fn whole(x: &f64) -> String {
    format!("{x:.0}")
}

/// A finite error, 0 for an engine without games.
pub(crate) fn error_of(error: f64) -> f64 {
    if error.is_finite() { error } else { 0.0 }
}

/// A range around `lo..hi` with a margin, never empty.
pub(crate) fn padded(lo: f64, hi: f64, fraction: f64) -> std::ops::Range<f64> {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() && lo <= hi {
        (lo, hi)
    } else {
        (0.0, 0.0)
    };
    let span = (hi - lo).max(1.0);
    (lo - span * fraction)..(hi + span * fraction)
}

/// What is written next to an engine's point: its Elo ± its interval, or `> elo` / `< elo` for
/// a bound.
fn elo_label(ratings: &Ratings, i: usize) -> String {
    let r = &ratings.ratings[i];
    let elo = r.elo.unwrap_or(0.0);
    match (r.bound, r.error) {
        (Some(bound), _) => format!("{} {elo:.0}", bound.mark()),
        (None, Some(error)) => format!("{elo:.0} ± {:.0}", error_of(error)),
        (None, None) => format!("{elo:.0}"),
    }
}

/// The half-width drawn around an engine's point: 0 for a bound or an estimate without one.
fn drawn_error(r: &crate::stats::ratings::Rating) -> f64 {
    if r.bound.is_some() {
        0.0
    } else {
        r.error.map_or(0.0, error_of)
    }
}

fn elo_axis(summary: &Summary) -> String {
    match &summary.spec.anchor {
        Some(anchor) => format!("Elo ({} fixed at {:.0})", anchor.engine, anchor.elo),
        None => "Elo (mean 0)".to_string(),
    }
}

fn draw_elo<DB: DrawingBackend>(
    summary: &Summary,
    ratings: &Ratings,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
    // Engines without an estimate have nothing to draw. Worst first: row 0 is at the bottom,
    // the best engine at the top.
    let elo = |i: usize| ratings.ratings[i].elo.unwrap_or(0.0);
    let mut order: Vec<usize> = (0..ratings.ratings.len())
        .filter(|&i| ratings.ratings[i].elo.is_some())
        .collect();
    order.sort_by(|&a, &b| elo(a).total_cmp(&elo(b)));
    let n = order.len();
    let names: Vec<&str> = order
        .iter()
        .map(|&i| ratings.ratings[i].name.as_str())
        .collect();
    // The axis fits the estimated engines: a bound (an engine that won or lost everything,
    // rated a thousand Elo away) would squash them; it is drawn at the edge, pointing out.
    let bounded = |i: usize| ratings.ratings[i].bound.is_some();
    let any_estimated = order.iter().any(|&i| !bounded(i));
    let in_range = |i: &&usize| !any_estimated || !bounded(**i);
    let lo = order
        .iter()
        .filter(in_range)
        .map(|&i| elo(i) - drawn_error(&ratings.ratings[i]))
        .fold(f64::INFINITY, f64::min);
    let hi = order
        .iter()
        .filter(in_range)
        .map(|&i| elo(i) + drawn_error(&ratings.ratings[i]))
        .fold(f64::NEG_INFINITY, f64::max);
    // Room on both sides: the labels on the right, an arrow on the left.
    let x_range = {
        let r = padded(lo, hi, 0.08);
        let span = r.end - r.start;
        (r.start - span * 0.06)..(r.end + span * 0.22)
    };
    let (left, right) = (x_range.start, x_range.end);
    // Where a bound is drawn: at its value, or just inside the edge it lies beyond.
    let shown_at = |elo: f64| -> (f64, i8) {
        let margin = (right - left) * 0.02;
        if elo < left + margin {
            (left + margin, -1)
        } else if elo > right - margin {
            (right - margin, 1)
        } else {
            (elo, 0)
        }
    };

    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("{}: Elo with 95% intervals", summary.spec.name),
            font(TITLE),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(name_width(&names))
        .build_cartesian_2d(x_range, rows(n))
        .map_err(text)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(elo_axis(summary))
        .axis_desc_style(font(AXIS))
        .label_style(font(LABEL))
        .x_label_formatter(&whole)
        .y_labels(n.max(1))
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(row) => {
                names.get(*row).map(|s| s.to_string()).unwrap_or_default()
            }
            _ => String::new(),
        })
        .draw()
        .map_err(text)?;

    let estimated: Vec<(usize, usize)> = order
        .iter()
        .enumerate()
        .filter(|&(_, &i)| !bounded(i))
        .map(|(row, &i)| (row, i))
        .collect();
    let bounds: Vec<(usize, usize)> = order
        .iter()
        .enumerate()
        .filter(|&(_, &i)| bounded(i))
        .map(|(row, &i)| (row, i))
        .collect();

    chart
        .draw_series(estimated.iter().map(|&(row, i)| {
            let e = drawn_error(&ratings.ratings[i]);
            PathElement::new(
                vec![
                    (elo(i) - e, SegmentValue::CenterOf(row)),
                    (elo(i) + e, SegmentValue::CenterOf(row)),
                ],
                POINT.stroke_width(2),
            )
        }))
        .map_err(text)?;
    chart
        .draw_series(estimated.iter().flat_map(|&(row, i)| {
            let e = drawn_error(&ratings.ratings[i]);
            [elo(i) - e, elo(i) + e].map(|x| {
                EmptyElement::at((x, SegmentValue::CenterOf(row)))
                    + PathElement::new(vec![(0, -5), (0, 5)], POINT.stroke_width(2))
            })
        }))
        .map_err(text)?;
    chart
        .draw_series(estimated.iter().map(|&(row, i)| {
            EmptyElement::at((elo(i), SegmentValue::CenterOf(row)))
                + Circle::new((0, 0), 5, POINT.filled())
        }))
        .map_err(text)?
        .label("Elo, 95% interval")
        .legend(|(x, y)| {
            EmptyElement::at((x, y))
                + PathElement::new(vec![(-8, 0), (8, 0)], POINT.stroke_width(2))
                + Circle::new((0, 0), 5, POINT.filled())
        });
    if !bounds.is_empty() {
        chart
            .draw_series(bounds.iter().map(|&(row, i)| {
                let (x, side) = shown_at(elo(i));
                // An arrow pointing the way the bound goes (off the axis, or its sign).
                let direction = if side != 0 {
                    side as i32
                } else if ratings.ratings[i].bound == Some(crate::stats::ratings::Bound::Lower) {
                    1
                } else {
                    -1
                };
                let d = 8 * direction;
                EmptyElement::at((x, SegmentValue::CenterOf(row)))
                    + Polygon::new(vec![(d, 0), (-d, -7), (-d, 7)], BOUND.filled())
            }))
            .map_err(text)?
            .label("bound: perfect records only (off the axis: at its edge)")
            .legend(|(x, y)| {
                Polygon::new(
                    vec![(x + 8, y), (x - 8, y - 7), (x - 8, y + 7)],
                    BOUND.filled(),
                )
            });
    }
    chart
        .draw_series(order.iter().enumerate().map(|(row, &i)| {
            let right = if bounded(i) {
                shown_at(elo(i)).0
            } else {
                elo(i) + drawn_error(&ratings.ratings[i])
            };
            EmptyElement::at((right, SegmentValue::CenterOf(row)))
                + Text::new(
                    elo_label(ratings, i),
                    (12, 0),
                    font(LABEL).pos(Pos::new(HPos::Left, VPos::Center)),
                )
        }))
        .map_err(text)?;
    chart
        .configure_series_labels()
        .label_font(font(LABEL))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(text)
}

/// The heatmap colour of a score in 0..=1: red, white at ½, green.
fn heat(score: f64) -> RGBColor {
    let lerp = |a: u8, b: u8, t: f64| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
    let (from, to, t) = if score < 0.5 {
        ((220, 70, 60), (255, 255, 255), score / 0.5)
    } else {
        ((255, 255, 255), (50, 160, 80), (score - 0.5) / 0.5)
    };
    RGBColor(
        lerp(from.0, to.0, t),
        lerp(from.1, to.1, t),
        lerp(from.2, to.2, t),
    )
}

fn draw_crosstable<DB: DrawingBackend>(
    summary: &Summary,
    ratings: &Ratings,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
    let results = summary.all_results();
    let n = results.names.len();
    // Best first, top to bottom and left to right.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        let elo = |i: usize| ratings.ratings.get(i).and_then(|r| r.elo).unwrap_or(0.0);
        elo(b).total_cmp(&elo(a))
    });
    let names: Vec<&str> = order.iter().map(|&i| results.names[i].as_str()).collect();
    let label_width = name_width(&names);

    let mut chart = ChartBuilder::on(root)
        .caption(
            format!(
                "{}: score of the row engine against the column engine (%)",
                summary.spec.name
            ),
            font(TITLE),
        )
        .margin(15)
        .x_label_area_size(label_width + 40)
        .y_label_area_size(label_width + 25)
        .build_cartesian_2d(rows(n), rows(n))
        .map_err(text)?;
    // Rows and columns are named "RANK. NAME", the columns' names written upwards.
    // Row r of the picture (counted from the top) is at y = n - 1 - r.
    let row_name = |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(y) if *y < n => format!("{}. {}", n - *y, names[n - 1 - *y]),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .label_style(font(LABEL))
        .x_desc("opponent")
        .axis_desc_style(font(AXIS))
        .x_labels(n.max(1))
        .y_labels(n.max(1))
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&row_name)
        .draw()
        .map_err(text)?;
    // The columns' names, written upwards below each column (the mesh centres its labels on
    // the tick, which would put half of a turned name inside the chart).
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let column = (xs.end - xs.start) as f64 / n.max(1) as f64;
    for (c, name) in names.iter().enumerate() {
        let x = xs.start + (column * (c as f64 + 0.5)) as i32;
        root.draw(&Text::new(
            format!("{}. {name}", c + 1),
            (x, ys.end + 8),
            font(LABEL)
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(text)?;
    }

    let (width, height) = chart.plotting_area().dim_in_pixel();
    let (w, h) = (
        (width as f64 / n.max(1) as f64) as i32,
        (height as f64 / n.max(1) as f64) as i32,
    );
    let size = ((h as f64 * 0.32) as u32).clamp(8, 15);
    let mut cells = Vec::new();
    for (r, &i) in order.iter().enumerate() {
        for (c, &j) in order.iter().enumerate() {
            let at = (SegmentValue::CenterOf(c), SegmentValue::CenterOf(n - 1 - r));
            let games = results.games(i, j);
            let (fill, label) = if i == j {
                (RGBColor(200, 200, 200), String::new())
            } else if games > 0.0 {
                let score = results.points(i, j) / games;
                (heat(score), format!("{:.0}", score * 100.0))
            } else {
                (WHITE, String::new())
            };
            cells.push(
                EmptyElement::at(at)
                    + Rectangle::new([(-w / 2, -h / 2), (w - w / 2, h - h / 2)], fill.filled())
                    + Rectangle::new(
                        [(-w / 2, -h / 2), (w - w / 2, h - h / 2)],
                        RGBColor(160, 160, 160).stroke_width(1),
                    )
                    + Text::new(
                        label,
                        (0, 0),
                        font(size).pos(Pos::new(HPos::Center, VPos::Center)),
                    ),
            );
        }
    }
    chart.draw_series(cells).map_err(text)?;
    Ok(())
}

/// Engines that differ in their depth alone, for the groups that have two depths or more:
/// (label, engine indices by depth). Engines of one algorithm with other weights or options
/// are other lines: a line must show what a ply buys, nothing else.
fn depth_groups(summary: &Summary) -> Vec<(String, Vec<(u32, usize)>)> {
    use crate::arena::spec::ResolvedEngine;
    // Everything that decides how an engine plays, but its depth (and name).
    let key = |e: &ResolvedEngine| ResolvedEngine {
        name: String::new(),
        depth: None,
        ..e.clone()
    };
    let mut groups: Vec<(ResolvedEngine, Vec<(u32, usize)>)> = Vec::new();
    for (i, engine) in summary.spec.engines.iter().enumerate() {
        let Some(depth) = engine.depth else { continue };
        let k = key(engine);
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, members)) => members.push((depth, i)),
            None => groups.push((k, vec![(depth, i)])),
        }
    }
    groups.retain(|(_, members)| members.iter().any(|&(d, _)| d != members[0].0));
    // A line is named by its algorithm, and by its weights and options when another line of
    // the same algorithm needs telling apart.
    let labels: Vec<String> = groups
        .iter()
        .map(|(g, _)| {
            let twins = groups
                .iter()
                .filter(|(h, _)| h.algorithm == g.algorithm)
                .count();
            if twins > 1 {
                let mut label = format!("{}, weights {}", g.algorithm, g.weights_origin);
                if groups.iter().any(|(h, _)| {
                    h.algorithm == g.algorithm && h.weights_origin == g.weights_origin && h != g
                }) {
                    label.push_str(", other options");
                }
                label
            } else {
                g.algorithm.clone()
            }
        })
        .collect();
    groups
        .into_iter()
        .zip(labels)
        .map(|((_, mut members), label)| {
            members.sort();
            (label, members)
        })
        .collect()
}

fn draw_elo_by_depth<DB: DrawingBackend>(
    summary: &Summary,
    ratings: &Ratings,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
    // Engines without an estimate have no point; bounds have no bar.
    let groups: Vec<(String, Vec<(u32, usize)>)> = depth_groups(summary)
        .into_iter()
        .map(|(label, members)| {
            let kept = members
                .into_iter()
                .filter(|&(_, i)| ratings.ratings[i].elo.is_some())
                .collect();
            (label, kept)
        })
        .collect();
    let all = || groups.iter().flat_map(|(_, m)| m.iter().copied());
    let dmin = all().map(|(d, _)| d).min().unwrap_or(0) as i32;
    let dmax = all().map(|(d, _)| d).max().unwrap_or(1) as i32;
    let elo = |i: usize| ratings.ratings[i].elo.unwrap_or(0.0);
    let bar = |i: usize| drawn_error(&ratings.ratings[i]);
    let lo = all()
        .map(|(_, i)| elo(i) - bar(i))
        .fold(f64::INFINITY, f64::min);
    let hi = all()
        .map(|(_, i)| elo(i) + bar(i))
        .fold(f64::NEG_INFINITY, f64::max);

    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("{}: Elo by search depth", summary.spec.name),
            font(TITLE),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((dmin - 1)..(dmax + 1), padded(lo, hi, 0.08))
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("depth (plies)")
        .y_desc(elo_axis(summary))
        .axis_desc_style(font(AXIS))
        .label_style(font(LABEL))
        .y_label_formatter(&whole)
        .x_labels(((dmax - dmin + 3) as usize).min(30))
        .draw()
        .map_err(text)?;

    for (g, (algorithm, members)) in groups.iter().enumerate() {
        let colour = Palette99::pick(g).to_rgba();
        let points: Vec<(i32, f64)> = members.iter().map(|&(d, i)| (d as i32, elo(i))).collect();
        chart
            .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
            .map_err(text)?
            .label(algorithm.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x - 8, y), (x + 8, y)], colour.stroke_width(2))
            });
        chart
            .draw_series(members.iter().map(|&(d, i)| {
                let e = bar(i);
                PathElement::new(
                    vec![(d as i32, elo(i) - e), (d as i32, elo(i) + e)],
                    colour.stroke_width(1),
                )
            }))
            .map_err(text)?;
        chart
            .draw_series(members.iter().flat_map(|&(d, i)| {
                let e = bar(i);
                [elo(i) - e, elo(i) + e].map(|y| {
                    EmptyElement::at((d as i32, y))
                        + PathElement::new(vec![(-4, 0), (4, 0)], colour.stroke_width(1))
                })
            }))
            .map_err(text)?;
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 4, colour.filled())))
            .map_err(text)?;
    }
    chart
        .configure_series_labels()
        .label_font(font(LABEL))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(text)
}

fn draw_sprt<DB: DrawingBackend>(summary: &Summary, root: &DrawingArea<DB, Shift>) -> Drawn {
    let Some(sprt) = &summary.sprt else {
        return Ok(());
    };
    let test = sprt.test();
    let history = sprt.history();
    let (lower, upper) = (test.lower(), test.upper());
    let lo = history.iter().copied().fold(lower, f64::min);
    let hi = history.iter().copied().fold(upper, f64::max);
    let pairs = history.len().max(1) as f64;
    let names = summary.spec.engine_names();
    let verdict = match summary.decision() {
        Some(d) => format!("{:?} accepted after {} pairs", d.decision, d.pairs),
        None => format!("no decision after {} pairs", history.len()),
    };

    let mut chart = ChartBuilder::on(root)
        .caption(
            format!(
                "{}: SPRT [{}, {}] of {}, {verdict}",
                summary.spec.name,
                test.elo0,
                test.elo1,
                names.first().map(String::as_str).unwrap_or("?"),
            ),
            font(TITLE - 4),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..pairs, padded(lo, hi, 0.08))
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("opening pairs counted")
        .y_desc("log-likelihood ratio")
        .axis_desc_style(font(AXIS))
        .label_style(font(LABEL))
        .x_label_formatter(&whole)
        .draw()
        .map_err(text)?;

    let green = RGBColor(40, 150, 70);
    let red = RGBColor(200, 50, 40);
    chart
        .draw_series(LineSeries::new(
            [(0.0, upper), (pairs, upper)],
            green.stroke_width(2),
        ))
        .map_err(text)?
        .label(format!(
            "upper bound {upper:.2}: accept H1 (elo1 = {})",
            test.elo1
        ))
        .legend(move |(x, y)| {
            PathElement::new(vec![(x - 8, y), (x + 8, y)], green.stroke_width(2))
        });
    chart
        .draw_series(LineSeries::new(
            [(0.0, lower), (pairs, lower)],
            red.stroke_width(2),
        ))
        .map_err(text)?
        .label(format!(
            "lower bound {lower:.2}: accept H0 (elo0 = {})",
            test.elo0
        ))
        .legend(move |(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], red.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(
            std::iter::once((0.0, 0.0)).chain(
                history
                    .iter()
                    .enumerate()
                    .map(|(k, &llr)| ((k + 1) as f64, llr)),
            ),
            POINT.stroke_width(2),
        ))
        .map_err(text)?
        .label("LLR")
        .legend(|(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], POINT.stroke_width(2)));
    chart
        .configure_series_labels()
        .label_font(font(LABEL))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(text)
}

fn draw_lengths<DB: DrawingBackend>(summary: &Summary, root: &DrawingArea<DB, Shift>) -> Drawn {
    let bars: Vec<(i32, u64)> = summary
        .lengths
        .iter()
        .map(|(&k, &v)| (k as i32, v))
        .collect();
    let games: u64 = bars.iter().map(|b| b.1).sum();
    let mean = bars.iter().map(|&(k, v)| k as f64 * v as f64).sum::<f64>() / games.max(1) as f64;
    draw_histogram(
        root,
        &bars,
        &format!(
            "{}: game length ({games} games, mean {mean:.1} plies)",
            summary.spec.name
        ),
        "plies per game (opening included)",
    )
}

fn draw_margins<DB: DrawingBackend>(summary: &Summary, root: &DrawingArea<DB, Shift>) -> Drawn {
    let bars: Vec<(i32, u64)> = summary.margins.iter().map(|(&k, &v)| (k, v)).collect();
    let games: u64 = bars.iter().map(|b| b.1).sum();
    let mean = bars.iter().map(|&(k, v)| k as f64 * v as f64).sum::<f64>() / games.max(1) as f64;
    let apart = match summary.margins_apart {
        0 => String::new(),
        n => format!("; {n} not played to the end left out"),
    };
    draw_histogram(
        root,
        &bars,
        &format!(
            "{}: final margin ({games} games played to the end, mean {mean:+.1} for the side moving first{apart})",
            summary.spec.name
        ),
        "final score of the side moving first (Othello: discs)",
    )
}

/// Bars of `counts` (value, games), in value order.
fn draw_histogram<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    counts: &[(i32, u64)],
    title: &str,
    x_desc: &str,
) -> Drawn {
    let (Some(&(lo, _)), Some(&(hi, _))) = (counts.first(), counts.last()) else {
        return Ok(());
    };
    let top = counts.iter().map(|c| c.1).max().unwrap_or(1);
    let mut chart = ChartBuilder::on(root)
        .caption(title, font(TITLE))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((lo..hi + 1).into_segmented(), 0u64..(top + top / 10 + 1))
        .map_err(text)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(x_desc)
        .y_desc("games")
        .axis_desc_style(font(AXIS))
        .label_style(font(LABEL))
        .x_labels(((hi - lo + 2) as usize).min(25))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(x) => x.to_string(),
            _ => String::new(),
        })
        .draw()
        .map_err(text)?;
    // Bars drawn in value order (plotters' Histogram goes through a hash map, which would
    // make the SVG differ from one drawing to the next).
    chart
        .draw_series(counts.iter().map(|&(k, v)| {
            let mut bar = Rectangle::new(
                [(SegmentValue::Exact(k), v), (SegmentValue::Exact(k + 1), 0)],
                POINT.filled(),
            );
            bar.set_margin(0, 0, 1, 1);
            bar
        }))
        .map_err(text)?;
    Ok(())
}

/// What a cost chart measures a move by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Measure {
    /// Nodes searched.
    Nodes,
    /// Wall-clock milliseconds.
    Time,
}

impl Measure {
    /// An engine's mean per move.
    fn mean(self, figures: &CostFigures) -> Option<f64> {
        match self {
            Measure::Nodes => figures.nodes_mean,
            Measure::Time => figures.ms_mean,
        }
    }

    /// The mean per move at one ply, and the moves it is the mean of.
    fn at_ply(self, ply: &PlyCost) -> Option<(f64, u64)> {
        match self {
            Measure::Nodes => ply.mean_nodes().map(|m| (m, ply.counted)),
            Measure::Time => ply.mean_ms().map(|m| (m, ply.timed)),
        }
    }

    /// The least value a log axis shows: one node; one microsecond, the log's resolution (a
    /// mean under it, the moves of a random mover, is drawn there and said so).
    fn floor(self) -> f64 {
        match self {
            Measure::Nodes => 1.0,
            Measure::Time => 0.001,
        }
    }

    /// What the axis shows.
    fn axis(self) -> &'static str {
        match self {
            Measure::Nodes => "mean nodes per move (log scale)",
            Measure::Time => "mean wall time per move (log scale)",
        }
    }

    /// Why an engine is not on the chart.
    fn lacking(self) -> &'static str {
        match self {
            Measure::Nodes => "no node counts",
            Measure::Time => "no timed moves",
        }
    }

    /// A tick's text: `500`, `20k`, `3M` nodes; `2 µs`, `50 ms`, `1 s`.
    fn tick(self, value: f64) -> String {
        match self {
            Measure::Nodes => short_number(value),
            Measure::Time if value < 1.0 => format!("{} µs", short_number(value * 1000.0)),
            Measure::Time if value < 1000.0 => format!("{} ms", short_number(value)),
            Measure::Time => format!("{} s", short_number(value / 1000.0)),
        }
    }
}

/// A positive number in at most three significant digits, with k, M, G, T for thousands,
/// millions…: `0.5`, `20`, `1.5k`, `300M`.
fn short_number(value: f64) -> String {
    if !value.is_finite() {
        return "?".to_string();
    }
    // Past a thousand T, and under a thousandth: a power of ten.
    if value.abs() >= 0.9995e15 || (value != 0.0 && value.abs() < 0.000_999_5) {
        let text = format!("{value:.0e}");
        return text.replace("e0", "");
    }
    let (scaled, unit) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|&(unit, _)| value.abs() >= unit * 0.9995)
        .map_or((value, ""), |(unit, name)| (value / unit, name));
    // Three significant digits, trailing zeros dropped.
    let decimals = if scaled.abs() >= 99.95 {
        0
    } else if scaled.abs() >= 9.995 {
        1
    } else if scaled.abs() >= 0.9995 {
        2
    } else {
        // Below 1 only for times under a microsecond or nodes under one: not drawn, but safe.
        4
    };
    let text = format!("{scaled:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    format!("{text}{unit}")
}

/// Ticks of a log axis over `lo..hi` (log10 of the values): the powers of ten inside it, with
/// 2× and 5× between them when fewer than three powers fit, and every second or fifth power
/// when more than twelve would.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return Vec::new();
    }
    // Exponents past ±400 are not f64 values: the axis is never that wide.
    let (lo, hi) = (lo.max(-400.0), hi.min(400.0));
    let first = lo.ceil() as i32;
    let last = hi.floor() as i32;
    let powers = (last - first + 1).max(0);
    let mut ticks: Vec<f64> = if powers >= 3 {
        let step = match powers {
            ..=12 => 1,
            13..=24 => 2,
            _ => 5 * (powers / 60 + 1),
        };
        (first..=last)
            .filter(|k| k.rem_euclid(step) == 0)
            .map(f64::from)
            .collect()
    } else {
        ((lo.floor() as i32)..=(hi.ceil() as i32))
            .flat_map(|k| [1.0, 2.0, 5.0].map(|m: f64| f64::from(k) + m.log10()))
            .filter(|&t| t >= lo - 1e-9 && t <= hi + 1e-9)
            .collect()
    };
    ticks.dedup();
    ticks
}

/// A log axis: the range (log10 of the values, padded) and its ticks. `values` are positive
/// and finite; an empty list gives one decade around 1.
fn log_axis(values: impl Iterator<Item = f64>) -> (std::ops::Range<f64>, Vec<f64>) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(f64::log10)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (0.0, 0.0) };
    // At least one decade wide, so that a tick falls inside.
    let widen = (1.0 - (hi - lo)).max(0.0) / 2.0;
    let (lo, hi) = (lo - widen, hi + widen);
    let pad = (hi - lo) * 0.07;
    let range = (lo - pad)..(hi + pad);
    let ticks = log_ticks(range.start, range.end);
    (range, ticks)
}

/// A log axis: the log10 of the values on a linear scale, with ticks chosen by [`log_ticks`]
/// (plotters' own log axis picks its ticks itself, and its ticks over one decade or twenty are
/// not sane).
struct LogAxis {
    linear: plotters::coord::types::RangedCoordf64,
    ticks: Vec<f64>,
}

impl LogAxis {
    fn new((range, ticks): (std::ops::Range<f64>, Vec<f64>)) -> LogAxis {
        LogAxis {
            linear: range.into(),
            ticks,
        }
    }
}

impl Ranged for LogAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.linear.map(value, limit)
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // The ticks are the bold lines; no light lines between them.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.linear.range()
    }
}

/// Each engine's mean cost per move by `measure`, in spec order: `None` when it has none (or
/// it is not a number).
fn mean_costs(summary: &Summary, measure: Measure) -> Vec<Option<f64>> {
    (0..summary.spec.engines.len())
        .map(|i| {
            let cost = summary.costs.get(i)?;
            measure
                .mean(&cost.figures())
                .filter(|v| v.is_finite() && *v >= 0.0)
        })
        .collect()
}

/// A ply's mean is drawn when the engine made at least this share of the moves it made at its
/// busiest ply: the last plies of a game are reached by few games, whose mean says little.
const PLY_SHARE: u64 = 10;

/// One engine's line of a cost by ply chart: (engine, [(ply, mean)]).
type PlyLine = (usize, Vec<(i32, f64)>);

/// Each engine's mean cost per move at each ply it has enough moves at ([`PLY_SHARE`]):
/// (engine, [(ply, mean)]) for the engines with a point, and how many (engine, ply) means
/// were left out for want of moves.
fn ply_series(summary: &Summary, measure: Measure) -> (Vec<PlyLine>, usize) {
    let mut series = Vec::new();
    let mut left_out = 0;
    for (i, cost) in summary
        .costs
        .iter()
        .enumerate()
        .take(summary.spec.engines.len())
    {
        let means: Vec<(i32, f64, u64)> = cost
            .by_ply()
            .iter()
            .enumerate()
            .filter_map(|(k, p)| {
                let (mean, moves) = measure.at_ply(p)?;
                let ply = i32::try_from(k + 1).ok()?;
                (mean.is_finite() && mean >= 0.0).then_some((ply, mean, moves))
            })
            .collect();
        let busiest = means.iter().map(|m| m.2).max().unwrap_or(0);
        let kept: Vec<(i32, f64)> = means
            .iter()
            .filter(|m| m.2.saturating_mul(PLY_SHARE) >= busiest)
            .map(|m| (m.0, m.1))
            .collect();
        left_out += means.len() - kept.len();
        if !kept.is_empty() {
            series.push((i, kept));
        }
    }
    (series, left_out)
}

/// The colour and dash of engine `i`'s line: the palette's colours that stand out on white
/// (its pale ones left out), solid, then dashed, then dotted for the next engines.
fn engine_style(i: usize) -> (RGBColor, Option<(u32, u32)>) {
    let colours: Vec<RGBColor> = Palette99::COLORS
        .iter()
        .map(|&(r, g, b)| RGBColor(r, g, b))
        .filter(|c| {
            // Relative luminance: pale yellows, cyans and pinks vanish on white.
            let luminance = 0.2126 * c.0 as f64 + 0.7152 * c.1 as f64 + 0.0722 * c.2 as f64;
            luminance < 170.0
        })
        .collect();
    let colour = colours[i % colours.len()];
    let dash = match (i / colours.len()) % 3 {
        0 => None,
        1 => Some((9, 5)),
        _ => Some((2, 4)),
    };
    (colour, dash)
}

/// Names joined for a note, `and N more` past `room` characters.
fn name_list(names: &[&str], room: usize) -> String {
    let mut text = String::new();
    for (k, name) in names.iter().enumerate() {
        let piece = if k == 0 {
            name.to_string()
        } else {
            format!(", {name}")
        };
        if k > 0 && text.chars().count() + piece.chars().count() > room {
            return format!("{text} and {} more", names.len() - k);
        }
        text.push_str(&piece);
    }
    text
}

/// A rectangle in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rect {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
}

impl Rect {
    /// The box of half-sizes `(w, h)` around `(x, y)`.
    fn around((x, y): (f64, f64), (w, h): (f64, f64)) -> Rect {
        Rect {
            left: x - w,
            top: y - h,
            right: x + w,
            bottom: y + h,
        }
    }

    fn area(&self) -> f64 {
        (self.right - self.left).max(0.0) * (self.bottom - self.top).max(0.0)
    }

    /// The area both cover.
    fn overlap(&self, other: &Rect) -> f64 {
        let w = self.right.min(other.right) - self.left.max(other.left);
        let h = self.bottom.min(other.bottom) - self.top.max(other.top);
        w.max(0.0) * h.max(0.0)
    }

    /// The point of the rectangle nearest to `(x, y)`.
    fn nearest(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (
            x.clamp(self.left, self.right),
            y.clamp(self.top, self.bottom),
        )
    }
}

/// Where each point's label goes: the label's box, the side of the point it is on (x and y:
/// -1, 0 or 1), and whether it stands away from its point (then a leader line joins them).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Placed {
    rect: Rect,
    side: (i8, i8),
    leader: bool,
}

impl Placed {
    /// Where its text is anchored, and how: at the box's edge nearest the point, so that a
    /// text a little wider than estimated grows away from the point, not over it.
    fn anchor(&self) -> ((i32, i32), Pos) {
        let (x, h) = match self.side.0 {
            1 => (self.rect.left + 1.0, HPos::Left),
            -1 => (self.rect.right - 1.0, HPos::Right),
            _ => ((self.rect.left + self.rect.right) / 2.0, HPos::Center),
        };
        let y = (self.rect.top + self.rect.bottom) / 2.0;
        (
            (x.round() as i32, y.round() as i32),
            Pos::new(h, VPos::Center),
        )
    }
}

/// Places a label of size `sizes[i]` beside each of `points` (pixels), inside `area`, where it
/// covers as little as it can of the labels placed before it and of the `obstacles` (each with
/// the weight of a pixel of it covered): beside the point first (right, left, the diagonals,
/// above, below), then farther away on a leader line, which should cross no other leader,
/// label, point or one of the thin `bars` (a leader along an interval's bar would lengthen
/// it). The most crowded points choose first.
fn place_labels(
    points: &[(f64, f64)],
    sizes: &[(f64, f64)],
    obstacles: &[(Rect, f64)],
    bars: &[Rect],
    area: Rect,
) -> Vec<Placed> {
    // Distances from the point to the label's near edge (the first: beside it).
    const GAPS: [f64; 7] = [7.0, 16.0, 28.0, 42.0, 60.0, 82.0, 110.0];
    const DIRECTIONS: [(i8, i8); 8] = [
        (1, 0),
        (-1, 0),
        (1, -1),
        (1, 1),
        (-1, -1),
        (-1, 1),
        (0, -1),
        (0, 1),
    ];
    let n = points.len().min(sizes.len());
    let crowd = |i: usize| {
        let (x, y) = points[i];
        points
            .iter()
            .filter(|&&(a, b)| (a - x).abs() < 80.0 && (b - y).abs() < 40.0)
            .count()
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(crowd(i)), i));
    let mut placed: Vec<Option<Placed>> = vec![None; n];
    // The leader lines drawn so far (from the point to the label).
    let mut leaders: Vec<((f64, f64), (f64, f64))> = Vec::new();
    for &i in &order {
        let (x, y) = points[i];
        let (w, h) = sizes[i];
        let mut best: Option<(f64, Placed)> = None;
        'rings: for (ring, &gap) in GAPS.iter().enumerate() {
            for &(dx, dy) in &DIRECTIONS {
                // On a diagonal the label's corner is nearest the point: as far as the first
                // gap at least, so that it clears the marker.
                let d = if dx != 0 && dy != 0 {
                    (gap * 0.7).max(GAPS[0])
                } else {
                    gap
                };
                let left = match dx {
                    1 => x + d,
                    -1 => x - d - w,
                    _ => x - w / 2.0,
                };
                let top = match dy {
                    1 => y + d,
                    -1 => y - d - h,
                    _ => y - h / 2.0,
                };
                let rect = Rect {
                    left,
                    top,
                    right: left + w,
                    bottom: top + h,
                };
                let mut penalty = 1000.0 * (rect.area() - rect.overlap(&area));
                for other in placed.iter().flatten() {
                    penalty += 20.0 * rect.overlap(&other.rect);
                }
                for (obstacle, weight) in obstacles {
                    penalty += weight * rect.overlap(obstacle);
                }
                // A leader line that crosses another, or runs through a label or a point,
                // misleads: it costs as much as a label half hidden.
                const CROSSING: f64 = 400.0;
                for &(a, b) in &leaders {
                    if segment_meets_rect(a, b, &rect) {
                        penalty += CROSSING;
                    }
                }
                if ring > 0 {
                    let (a, b) = leader_line((x, y), &rect);
                    for &(c, d) in &leaders {
                        if segments_cross(a, b, c, d) {
                            penalty += CROSSING;
                        }
                    }
                    for other in placed.iter().flatten() {
                        if segment_meets_rect(a, b, &other.rect) {
                            penalty += CROSSING;
                        }
                    }
                    for (j, &q) in points.iter().enumerate() {
                        if j != i && segment_meets_rect(a, b, &Rect::around(q, (6.0, 6.0))) {
                            penalty += CROSSING;
                        }
                    }
                    for bar in bars {
                        if segment_meets_rect(a, b, bar) {
                            penalty += CROSSING;
                        }
                    }
                }
                // Nearer is better, by a little: a clear spot far away beats a crowded one.
                let score = penalty + 40.0 * ring as f64;
                let candidate = Placed {
                    rect,
                    side: (dx, dy),
                    leader: ring > 0,
                };
                if best.is_none_or(|(s, _)| score < s) {
                    best = Some((score, candidate));
                }
                if penalty == 0.0 {
                    break 'rings;
                }
            }
        }
        if let Some((_, p)) = best
            && p.leader
        {
            leaders.push(leader_line((x, y), &p.rect));
        }
        placed[i] = best.map(|(_, p)| p);
    }
    placed
        .into_iter()
        .map(|p| {
            p.unwrap_or(Placed {
                rect: Rect::around((0.0, 0.0), (0.0, 0.0)),
                side: (1, 0),
                leader: false,
            })
        })
        .collect()
}

/// The leader line from a point to its label's box, as drawn: from the edge of the point's
/// marker (7 pixels out) to the box's nearest point.
fn leader_line(point: (f64, f64), rect: &Rect) -> ((f64, f64), (f64, f64)) {
    let end = rect.nearest(point);
    let (dx, dy) = (end.0 - point.0, end.1 - point.1);
    let length = dx.hypot(dy).max(1.0);
    let start = (point.0 + dx / length * 7.0, point.1 + dy / length * 7.0);
    (start, end)
}

/// Whether the segment `a`–`b` meets `rect` (Liang and Barsky's clipping).
fn segment_meets_rect(a: (f64, f64), b: (f64, f64), rect: &Rect) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.0 - rect.left),
        (dx, rect.right - a.0),
        (-dy, a.1 - rect.top),
        (dy, rect.bottom - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    t0 <= t1
}

/// Whether the segments `a`–`b` and `c`–`d` cross (touching ends do not count).
fn segments_cross(a: (f64, f64), b: (f64, f64), c: (f64, f64), d: (f64, f64)) -> bool {
    let side = |p: (f64, f64), q: (f64, f64), r: (f64, f64)| {
        (q.0 - p.0) * (r.1 - p.1) - (q.1 - p.1) * (r.0 - p.0)
    };
    let (d1, d2) = (side(c, d, a), side(c, d, b));
    let (d3, d4) = (side(a, b, c), side(a, b, d));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// The frontier's colour.
const FRONTIER: RGBColor = RGBColor(40, 150, 70);
/// The colour of notes and leader lines.
const NOTE: RGBColor = RGBColor(90, 90, 90);

/// What a legend entry of a strength-against-cost chart shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sample {
    /// A point with its interval.
    Interval,
    /// A bound's triangle.
    Bound,
    /// The frontier's line.
    Frontier,
}

/// A row of legend entries centred in `root`, its middle `y` pixels from the top.
fn legend_row<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    y: i32,
    entries: &[(Sample, String)],
) -> Drawn {
    let style = font(LABEL).pos(Pos::new(HPos::Left, VPos::Center));
    let mut widths = Vec::new();
    for (_, label) in entries {
        widths.push(root.estimate_text_size(label, &style).map_err(text)?.0 as i32);
    }
    let total: i32 = widths.iter().map(|w| 26 + w + 24).sum::<i32>() - 24;
    let (width, _) = root.dim_in_pixel();
    let mut at = ((width as i32 - total) / 2).max(10);
    for ((sample, label), w) in entries.iter().zip(widths) {
        let c = (at + 10, y);
        match sample {
            Sample::Interval => {
                root.draw(&PathElement::new(
                    vec![(c.0, c.1 - 8), (c.0, c.1 + 8)],
                    POINT.stroke_width(2),
                ))
                .map_err(text)?;
                root.draw(&Circle::new(c, 5, POINT.filled()))
                    .map_err(text)?;
            }
            Sample::Bound => root
                .draw(&Polygon::new(
                    vec![(c.0, c.1 - 8), (c.0 - 7, c.1 + 7), (c.0 + 7, c.1 + 7)],
                    BOUND.filled(),
                ))
                .map_err(text)?,
            Sample::Frontier => root
                .draw(&PathElement::new(
                    vec![(c.0 - 10, c.1), (c.0 + 10, c.1)],
                    FRONTIER.mix(0.8).stroke_width(3),
                ))
                .map_err(text)?,
        }
        root.draw(&Text::new(label.clone(), (at + 26, y), style.clone()))
            .map_err(text)?;
        at += 26 + w + 24;
    }
    Ok(())
}

/// Bold black text of `size` pixels in the embedded family.
fn bold(size: u32) -> TextStyle<'static> {
    (FAMILY, size)
        .into_font()
        .style(FontStyle::Bold)
        .color(&BLACK)
}

/// One engine on a strength-against-cost chart.
struct CostPoint {
    engine: usize,
    /// The cost, as measured (0 included).
    cost: f64,
    elo: f64,
    /// Half-width of the drawn interval (0 for a bound).
    error: f64,
    bound: Option<Bound>,
}

fn draw_elo_by_cost<DB: DrawingBackend>(
    summary: &Summary,
    ratings: &Ratings,
    measure: Measure,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
    let names = summary.spec.engine_names();
    let costs = mean_costs(summary, measure);
    let mut points = Vec::new();
    let (mut no_cost, mut no_rating) = (Vec::new(), Vec::new());
    for (i, name) in names.iter().enumerate() {
        let rating = ratings.ratings.get(i);
        match (
            costs[i],
            rating.and_then(|r| r.elo).filter(|e| e.is_finite()),
        ) {
            (None, _) => no_cost.push(name.as_str()),
            (Some(_), None) => no_rating.push(name.as_str()),
            (Some(cost), Some(elo)) => {
                let rating = rating.expect("an Elo comes from a rating");
                points.push(CostPoint {
                    engine: i,
                    cost,
                    elo,
                    error: drawn_error(rating),
                    bound: rating.bound,
                })
            }
        }
    }
    let floor = measure.floor();
    let below_floor: Vec<&str> = points
        .iter()
        .filter(|p| p.cost < floor)
        .map(|p| names[p.engine].as_str())
        .collect();
    let on_frontier = {
        let mut pairs = vec![None; names.len()];
        for p in &points {
            pairs[p.engine] = Some((p.cost, p.elo));
        }
        frontier(&pairs)
    };

    // The Elo axis fits the estimates with their intervals; a bound outside it is drawn at
    // its edge, pointing out (as in the `elo` chart).
    let any_estimated = points.iter().any(|p| p.bound.is_none());
    let fitted = || {
        points
            .iter()
            .filter(move |p| !any_estimated || p.bound.is_none())
    };
    let lo = fitted()
        .map(|p| p.elo - p.error)
        .fold(f64::INFINITY, f64::min);
    let hi = fitted()
        .map(|p| p.elo + p.error)
        .fold(f64::NEG_INFINITY, f64::max);
    let y_range = padded(lo, hi, 0.1);
    let (bottom, top) = (y_range.start, y_range.end);
    let shown_at = |elo: f64| -> (f64, i8) {
        let margin = (top - bottom) * 0.03;
        if elo < bottom + margin {
            (bottom + margin, -1)
        } else if elo > top - margin {
            (top - margin, 1)
        } else {
            (elo, 0)
        }
    };
    let (x_range, ticks) = log_axis(points.iter().map(|p| p.cost.max(floor)));
    let x_of = |p: &CostPoint| p.cost.max(floor).log10();
    let y_of = |p: &CostPoint| {
        if p.bound.is_some() {
            shown_at(p.elo).0
        } else {
            p.elo
        }
    };

    let what = match measure {
        Measure::Nodes => "mean nodes per move",
        Measure::Time => "mean wall time per move",
    };
    let area = root
        .titled(
            &format!("{}: Elo against {what}", summary.spec.name),
            font(TITLE),
        )
        .map_err(text)?;
    // Below the title, the legend; at the bottom, the notes.
    let mut notes = Vec::new();
    if !no_cost.is_empty() {
        notes.push(format!(
            "Left out ({}): {}",
            measure.lacking(),
            name_list(&no_cost, 90)
        ));
    }
    if !no_rating.is_empty() {
        notes.push(format!(
            "Left out (no rating): {}",
            name_list(&no_rating, 90)
        ));
    }
    if !below_floor.is_empty() {
        notes.push(format!(
            "Under 1 µs a move (the log's resolution), drawn at 1 µs: {}",
            name_list(&below_floor, 70)
        ));
    }
    let note_height = 18 * notes.len() as i32;
    let (legend_area, rest) = area.split_vertically(26);
    let chart_area = rest.margin(0, 8 + note_height, 15, 20);

    let mut chart = ChartBuilder::on(&chart_area)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(LogAxis::new((x_range, ticks)), y_range.clone())
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc(measure.axis())
        .y_desc(elo_axis(summary))
        .axis_desc_style(font(AXIS))
        .label_style(font(LABEL))
        .x_label_formatter(&|t| measure.tick(10f64.powf(*t)))
        .y_label_formatter(&whole)
        .max_light_lines(1)
        .draw()
        .map_err(text)?;

    // The frontier under everything else.
    let frontier_points: Vec<(f64, f64)> = on_frontier
        .iter()
        .filter_map(|&i| points.iter().find(|p| p.engine == i))
        .map(|p| (x_of(p), y_of(p)))
        .collect();
    if frontier_points.len() >= 2 {
        chart
            .draw_series(LineSeries::new(
                frontier_points.clone(),
                FRONTIER.mix(0.8).stroke_width(3),
            ))
            .map_err(text)?;
    }
    // Intervals, then points and bounds.
    chart
        .draw_series(points.iter().filter(|p| p.error > 0.0).map(|p| {
            let (x, y) = (x_of(p), p.elo);
            PathElement::new(
                vec![(x, y - p.error), (x, y + p.error)],
                POINT.stroke_width(2),
            )
        }))
        .map_err(text)?;
    chart
        .draw_series(points.iter().filter(|p| p.error > 0.0).flat_map(|p| {
            let x = x_of(p);
            [p.elo - p.error, p.elo + p.error].map(|y| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(-4, 0), (4, 0)], POINT.stroke_width(2))
            })
        }))
        .map_err(text)?;
    chart
        .draw_series(
            points.iter().filter(|p| p.bound.is_none()).map(|p| {
                EmptyElement::at((x_of(p), p.elo)) + Circle::new((0, 0), 5, POINT.filled())
            }),
        )
        .map_err(text)?;
    chart
        .draw_series(points.iter().filter(|p| p.bound.is_some()).map(|p| {
            let (y, side) = shown_at(p.elo);
            // Pointing the way the bound goes: off the axis, or up for "at least".
            let up = if side != 0 {
                side > 0
            } else {
                p.bound == Some(Bound::Lower)
            };
            let d = if up { -8 } else { 8 };
            EmptyElement::at((x_of(p), y))
                + Polygon::new(vec![(0, d), (-7, -d), (7, -d)], BOUND.filled())
        }))
        .map_err(text)?;

    // The names, placed clear of each other, of the points and of the bars.
    let pixel = |p: &CostPoint| {
        let (x, y) = chart.backend_coord(&(x_of(p), y_of(p)));
        (f64::from(x), f64::from(y))
    };
    let label_of = |p: &CostPoint| match p.bound {
        Some(bound) => format!("{} ({} {:.0})", names[p.engine], bound.mark(), p.elo),
        None => names[p.engine].clone(),
    };
    let style_of = |p: &CostPoint| {
        if on_frontier.contains(&p.engine) {
            bold(LABEL)
        } else {
            font(LABEL)
        }
    };
    let anchors: Vec<(f64, f64)> = points.iter().map(pixel).collect();
    let mut sizes = Vec::new();
    for p in &points {
        let (w, h) = root
            .estimate_text_size(&label_of(p), &style_of(p))
            .map_err(text)?;
        sizes.push((f64::from(w) + 2.0, f64::from(h) + 2.0));
    }
    let mut obstacles: Vec<(Rect, f64)> = anchors
        .iter()
        .map(|&a| (Rect::around(a, (7.0, 7.0)), 10.0))
        .collect();
    let mut bars = Vec::new();
    for p in points.iter().filter(|p| p.error > 0.0) {
        let x = f64::from(chart.backend_coord(&(x_of(p), p.elo)).0);
        let (_, y0) = chart.backend_coord(&(x_of(p), p.elo + p.error));
        let (_, y1) = chart.backend_coord(&(x_of(p), p.elo - p.error));
        let rect = Rect {
            left: x - 5.0,
            top: f64::from(y0) - 2.0,
            right: x + 5.0,
            bottom: f64::from(y1) + 2.0,
        };
        obstacles.push((rect, 10.0));
        // For leader lines, the bar itself (its line is 2 pixels wide).
        bars.push(Rect {
            left: x - 2.0,
            right: x + 2.0,
            ..rect
        });
    }
    // The frontier, as small boxes along it: a name across the line is legible, but less so.
    for w in frontier_points.windows(2) {
        let a = chart.backend_coord(&w[0]);
        let b = chart.backend_coord(&w[1]);
        let (a, b) = (
            (f64::from(a.0), f64::from(a.1)),
            (f64::from(b.0), f64::from(b.1)),
        );
        let steps = ((b.0 - a.0).hypot(b.1 - a.1) / 6.0)
            .ceil()
            .clamp(1.0, 500.0) as usize;
        for s in 0..=steps {
            let t = s as f64 / steps as f64;
            let at = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            obstacles.push((Rect::around(at, (3.0, 3.0)), 1.0));
        }
    }
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let plot = Rect {
        left: f64::from(xs.start) + 2.0,
        top: f64::from(ys.start) + 2.0,
        right: f64::from(xs.end) - 2.0,
        bottom: f64::from(ys.end) - 2.0,
    };
    let placed = place_labels(&anchors, &sizes, &obstacles, &bars, plot);
    for ((p, anchor), spot) in points.iter().zip(&anchors).zip(&placed) {
        if spot.leader {
            let (start, end) = leader_line(*anchor, &spot.rect);
            root.draw(&PathElement::new(
                vec![
                    (start.0.round() as i32, start.1.round() as i32),
                    (end.0.round() as i32, end.1.round() as i32),
                ],
                NOTE.stroke_width(1),
            ))
            .map_err(text)?;
        }
        let (at, pos) = spot.anchor();
        root.draw(&Text::new(label_of(p), at, style_of(p).pos(pos)))
            .map_err(text)?;
    }

    // The legend, under the title.
    let mut entries = vec![(Sample::Interval, "Elo, 95% interval".to_string())];
    if points.iter().any(|p| p.bound.is_some()) {
        entries.push((Sample::Bound, "bound (won or lost every game)".to_string()));
    }
    entries.push((
        Sample::Frontier,
        "frontier (names in bold): no other engine is stronger at a lower or equal cost"
            .to_string(),
    ));
    legend_row(&legend_area, 12, &entries)?;

    for (k, note) in notes.iter().enumerate() {
        let (_, height) = root.dim_in_pixel();
        let y = height as i32 - note_height - 4 + 18 * k as i32;
        root.draw(&Text::new(
            note.clone(),
            (20, y),
            font(LABEL)
                .color(&NOTE)
                .pos(Pos::new(HPos::Left, VPos::Top)),
        ))
        .map_err(text)?;
    }
    Ok(())
}

fn draw_cost_by_ply<DB: DrawingBackend>(
    summary: &Summary,
    measure: Measure,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
    let names = summary.spec.engine_names();
    let (series, left_out) = ply_series(summary, measure);
    let floor = measure.floor();
    let all = || series.iter().flat_map(|(_, s)| s.iter());
    let first = all().map(|p| p.0).min().unwrap_or(1);
    let last = all().map(|p| p.0).max().unwrap_or(1);
    let (y_range, ticks) = log_axis(all().map(|p| p.1.max(floor)));
    let floored = all().any(|p| p.1 < floor);

    let what = match measure {
        Measure::Nodes => "mean nodes per move",
        Measure::Time => "mean wall time per move",
    };
    let area = root
        .titled(
            &format!("{}: {what}, by move number", summary.spec.name),
            font(TITLE),
        )
        .map_err(text)?;
    let mut notes = Vec::new();
    let lacking: Vec<&str> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| !series.iter().any(|(j, _)| j == i))
        .map(|(_, name)| name.as_str())
        .collect();
    if !lacking.is_empty() {
        notes.push(format!(
            "Left out ({}): {}",
            measure.lacking(),
            name_list(&lacking, 90)
        ));
    }
    if left_out > 0 {
        notes.push(format!(
            "Not drawn: {left_out} point(s) with under 1/{PLY_SHARE} of the moves of the engine's busiest ply (few games last that long)"
        ));
    }
    if floored {
        notes.push(match measure {
            Measure::Time => "Means under 1 µs a move (the log's resolution) drawn at 1 µs".into(),
            Measure::Nodes => {
                "Means under 1 node a move (solved or forced moves) drawn at 1".to_string()
            }
        });
    }
    let note_height = 18 * notes.len() as i32;
    let shown: Vec<&str> = series.iter().map(|(i, _)| names[*i].as_str()).collect();
    let legend_width = name_width(&shown) as i32 + 40;
    let (width, _) = area.dim_in_pixel();
    let (plot_area, legend_area) = area
        .margin(0, 8 + note_height, 15, 10)
        .split_horizontally((width as i32 - 25 - legend_width).max(100));

    let mut chart = ChartBuilder::on(&plot_area)
        .x_label_area_size(45)
        .y_label_area_size(75)
        .margin_right(10)
        .build_cartesian_2d((first - 1)..(last + 1), LogAxis::new((y_range, ticks)))
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("ply (move number in the game, the opening's plies counted)")
        .y_desc(measure.axis())
        .axis_desc_style(font(AXIS))
        .label_style(font(LABEL))
        .x_labels(((last - first + 3) as usize).clamp(2, 20))
        .y_label_formatter(&|t| measure.tick(10f64.powf(*t)))
        .draw()
        .map_err(text)?;

    for (i, points) in &series {
        let (colour, dash) = engine_style(*i);
        let line: Vec<(i32, f64)> = points
            .iter()
            .map(|&(x, v)| (x, v.max(floor).log10()))
            .collect();
        let style = colour.stroke_width(2);
        match dash {
            None => chart
                .draw_series(LineSeries::new(line.clone(), style))
                .map_err(text)?,
            Some((on, off)) => chart
                .draw_series(DashedLineSeries::new(line.clone(), on, off, style))
                .map_err(text)?,
        };
        if line.len() == 1 {
            chart
                .draw_series(line.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                .map_err(text)?;
        }
    }

    // The legend: one row per engine, its line's style and its name.
    for (row, (i, _)) in series.iter().enumerate() {
        let (colour, dash) = engine_style(*i);
        let y = 10 + 18 * row as i32;
        let sample: Vec<(i32, i32)> = vec![(4, y), (30, y)];
        let style = colour.stroke_width(2);
        match dash {
            None => legend_area
                .draw(&PathElement::new(sample, style))
                .map_err(text)?,
            Some((on, off)) => legend_area
                .draw(&plotters::element::DashedPathElement::new(
                    sample, on, off, style,
                ))
                .map_err(text)?,
        }
        legend_area
            .draw(&Text::new(
                names[*i].clone(),
                (36, y),
                font(LABEL).pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(text)?;
    }

    for (k, note) in notes.iter().enumerate() {
        let (_, height) = root.dim_in_pixel();
        let y = height as i32 - note_height - 4 + 18 * k as i32;
        root.draw(&Text::new(
            note.clone(),
            (20, y),
            font(LABEL)
                .color(&NOTE)
                .pos(Pos::new(HPos::Left, VPos::Top)),
        ))
        .map_err(text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::log::GameLine;
    use crate::report::summary::test_games::{game, spec, summary};
    use crate::stats::cost::{Cost, MoveCost};

    /// A round robin of `names` whose results give every engine an estimate (of each pair's
    /// games, a quarter drawn, a quarter won by the first in spec order, half by the other),
    /// and no costs.
    fn played(names: &[&str]) -> Summary {
        let spec = spec(names);
        let r = &spec.resolved;
        let schedule = r.schedule();
        let games: Vec<GameLine> = (0..schedule.games())
            .map(|id| {
                let slot = schedule.slot(id);
                let (a, b) = (slot.first.min(slot.second), slot.first.max(slot.second));
                let loser = match id % 4 {
                    0 => None,
                    1 => Some(r.engines[b].name.as_str()),
                    _ => Some(r.engines[a].name.as_str()),
                };
                game(&spec, id, "normal", loser, None)
            })
            .collect();
        summary(&spec, &games)
    }

    /// `moves` moves at each of `plies`, each of `nodes` nodes (0: not counted) and `micros`.
    fn cost(plies: std::ops::Range<usize>, moves: u64, nodes: u64, micros: Option<u64>) -> Cost {
        let mut cost = Cost::default();
        for ply in plies {
            for _ in 0..moves {
                let m = MoveCost {
                    nodes: (nodes > 0).then_some(nodes),
                    micros,
                    ..MoveCost::default()
                };
                cost.add(ply, &m);
            }
        }
        cost
    }

    fn names_of(summary: &Summary) -> Vec<&'static str> {
        chart_names(summary)
    }

    const COST_CHARTS: [&str; 4] = ["elo-by-nodes", "elo-by-time", "nodes-by-ply", "time-by-ply"];

    fn cost_charts(summary: &Summary) -> Vec<&'static str> {
        names_of(summary)
            .into_iter()
            .filter(|n| COST_CHARTS.contains(n))
            .collect()
    }

    /// The text elements of an SVG: (attributes, text), the text as written (escaped).
    fn texts(svg: &str) -> Vec<(&str, &str)> {
        svg.split("<text ")
            .skip(1)
            .filter_map(|rest| {
                let (attributes, rest) = rest.split_once('>')?;
                let (body, _) = rest.split_once("</text>")?;
                Some((attributes, body.trim()))
            })
            .collect()
    }

    fn svg_of(summary: &Summary, ratings: &Ratings, chart: &str) -> String {
        register_fonts().unwrap();
        let kind = kinds(summary)
            .into_iter()
            .find(|k| k.name() == chart)
            .unwrap_or_else(|| panic!("no {chart} chart"));
        render_svg(kind, summary, ratings).unwrap()
    }

    #[test]
    fn each_cost_chart_appears_exactly_when_its_figures_exist() {
        // No costs (a log from before moves were measured): none.
        let mut s = played(&["a", "b", "c"]);
        assert!(cost_charts(&s).is_empty(), "{:?}", names_of(&s));
        // One engine with node counts: its line by ply, but no strength chart of one point.
        s.costs[0] = cost(5..30, 4, 100, None);
        assert_eq!(cost_charts(&s), ["nodes-by-ply"]);
        // Two: the strength chart too.
        s.costs[1] = cost(5..30, 4, 1000, None);
        assert_eq!(cost_charts(&s), ["elo-by-nodes", "nodes-by-ply"]);
        // Times without nodes (outside engines that report none): the time charts only.
        let mut s = played(&["a", "b", "c"]);
        s.costs[0] = cost(5..30, 4, 0, Some(2000));
        assert_eq!(cost_charts(&s), ["time-by-ply"]);
        s.costs[2] = cost(5..30, 4, 0, Some(100));
        assert_eq!(cost_charts(&s), ["elo-by-time", "time-by-ply"]);
        // Everything, and in the report's order (strength charts after Elo by depth).
        s.costs[1] = cost(5..30, 4, 50, Some(10));
        s.costs[2] = cost(5..30, 4, 70, Some(100));
        let names = names_of(&s);
        assert_eq!(
            names,
            [
                "elo",
                "crosstable",
                "elo-by-nodes",
                "elo-by-time",
                "game-lengths",
                "nodes-by-ply",
                "time-by-ply"
            ]
        );
        let charts = svg_charts(&s, &s.ratings()).unwrap();
        assert_eq!(charts.len(), names.len());
    }

    #[test]
    fn strength_charts_name_every_engine_escaped_and_bold_the_frontier() {
        let names = ["cheap <weak>", "mid & 'fast'", "dear", "waste", "outside"];
        let mut s = played(&names);
        // Nodes per move: 100, 1,000, 100,000, 200,000; the outside engine reports none.
        for (i, nodes) in [100, 1000, 100_000, 200_000, 0].into_iter().enumerate() {
            s.costs[i] = cost(3..40, 3, nodes, Some(10 * (i as u64 + 1)));
        }
        let mut ratings = s.ratings();
        // `waste` pays more than `dear` for less: off the frontier.
        for (i, elo) in [-100.0, 0.0, 100.0, 50.0, 20.0].into_iter().enumerate() {
            ratings.ratings[i].elo = Some(elo);
            ratings.ratings[i].error = Some(20.0);
            ratings.ratings[i].bound = None;
        }
        let svg = svg_of(&s, &ratings, "elo-by-nodes");
        let texts = texts(&svg);
        let escaped = |name: &str| {
            name.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('\'', "&apos;")
        };
        assert!(!svg.contains("<weak>"), "an unescaped name");
        let bold: Vec<&str> = texts
            .iter()
            .filter(|(a, _)| a.contains("font-weight=\"bold\""))
            .map(|t| t.1)
            .collect();
        let frontier: Vec<String> = names[..3].iter().map(|n| escaped(n)).collect();
        assert_eq!(
            bold, frontier,
            "the frontier's names in bold, and only them"
        );
        assert!(texts.iter().any(|t| t.1 == escaped("waste")), "{texts:?}");
        // The outside engine is named in a note, not drawn.
        assert!(
            texts
                .iter()
                .any(|t| t.1 == "Left out (no node counts): outside"),
            "{texts:?}"
        );
        assert!(
            texts.iter().any(|t| t.1.starts_with("frontier")),
            "{texts:?}"
        );
        // By time every engine has a figure (10, 20 … 50 µs): all five drawn, no note; the
        // frontier is `cheap`, `mid` and `dear` again (`outside`, at 50 µs, is weaker).
        let svg = svg_of(&s, &ratings, "elo-by-time");
        let texts = super::tests::texts(&svg);
        for name in names {
            assert!(
                texts.iter().any(|t| t.1 == escaped(name)),
                "{name}: {texts:?}"
            );
        }
        assert!(
            !texts.iter().any(|t| t.1.starts_with("Left out")),
            "{texts:?}"
        );
        let bold: Vec<&str> = texts
            .iter()
            .filter(|(a, _)| a.contains("font-weight=\"bold\""))
            .map(|t| t.1)
            .collect();
        assert_eq!(bold, frontier);
        // Every name's text is in the by-ply legends too, and the engine without nodes in a
        // note.
        for chart in ["nodes-by-ply", "time-by-ply"] {
            let svg = svg_of(&s, &ratings, chart);
            let texts = super::tests::texts(&svg);
            for name in &names[..4] {
                assert!(
                    texts.iter().any(|t| t.1 == escaped(name)),
                    "{chart}: {name}"
                );
            }
        }
        let svg = svg_of(&s, &ratings, "nodes-by-ply");
        assert!(
            super::tests::texts(&svg)
                .iter()
                .any(|t| t.1 == "Left out (no node counts): outside"),
            "{svg}"
        );
    }

    #[test]
    fn a_bound_is_drawn_with_its_mark_and_does_not_stretch_the_elo_axis() {
        let mut s = played(&["a", "b", "c", "random"]);
        for (i, nodes) in [10, 100, 1000, 1].into_iter().enumerate() {
            s.costs[i] = cost(3..20, 2, nodes, Some(5));
        }
        let mut ratings = s.ratings();
        let last = ratings.ratings.len() - 1;
        ratings.ratings[last].elo = Some(-1890.0);
        ratings.ratings[last].error = None;
        ratings.ratings[last].bound = Some(Bound::Upper);
        let svg = svg_of(&s, &ratings, "elo-by-nodes");
        let texts = texts(&svg);
        assert!(
            texts.iter().any(|t| t.1 == "random (&lt; -1890)"),
            "{texts:?}"
        );
        assert!(texts.iter().any(|t| t.1.starts_with("bound")), "{texts:?}");
        // The Elo ticks span the estimates only.
        let ticks: Vec<f64> = texts.iter().filter_map(|t| t.1.parse().ok()).collect();
        assert!(!ticks.is_empty());
        assert!(ticks.iter().all(|&t| t > -1000.0), "{ticks:?}");
    }

    #[test]
    fn log_ticks_are_sane_from_tiny_to_huge() {
        let cases = [
            (1.0, 1.0),
            (1.0, 1.5),
            (3.0, 4.0),
            (1.0, 1e15),
            (1.0, 1.8e19),
            (0.001, 0.0011),
            (0.001, 1e7),
            (1e-300, 1e300),
        ];
        for (lo, hi) in cases {
            let (range, ticks) = log_axis([lo, hi].into_iter());
            assert!(range.start < range.end, "{lo}..{hi}");
            assert!(
                (2..=13).contains(&ticks.len()),
                "{lo}..{hi}: {} ticks {ticks:?}",
                ticks.len()
            );
            assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
            assert!(
                ticks
                    .iter()
                    .all(|t| range.start - 1e-9 <= *t && *t <= range.end + 1e-9),
                "{lo}..{hi}: {ticks:?} outside {range:?}"
            );
            for measure in [Measure::Nodes, Measure::Time] {
                let labels: Vec<String> =
                    ticks.iter().map(|t| measure.tick(10f64.powf(*t))).collect();
                let mut unique = labels.clone();
                unique.dedup();
                assert_eq!(unique, labels, "{lo}..{hi}: the same label twice");
                assert!(
                    labels
                        .iter()
                        .all(|l| !l.contains("NaN") && !l.contains("inf") && l.len() < 12),
                    "{labels:?}"
                );
            }
        }
        // What the labels look like.
        let nodes: Vec<String> = [1.0, 20.0, 500.0, 1000.0, 2e4, 5e6, 1e9]
            .map(|v| Measure::Nodes.tick(v))
            .to_vec();
        assert_eq!(nodes, ["1", "20", "500", "1k", "20k", "5M", "1G"]);
        let times: Vec<String> = [0.001, 0.02, 0.5, 1.0, 50.0, 1000.0, 2e5]
            .map(|v| Measure::Time.tick(v))
            .to_vec();
        assert_eq!(
            times,
            ["1 µs", "20 µs", "500 µs", "1 ms", "50 ms", "1 s", "200 s"]
        );
        // A decade or less: its 2× and 5× too.
        assert_eq!(log_ticks(2.0, 3.0).len(), 4, "{:?}", log_ticks(2.0, 3.0));
        assert!(log_ticks(f64::NAN, 1.0).is_empty());
        assert!(log_ticks(2.0, 2.0).is_empty());
    }

    #[test]
    fn tiny_huge_and_zero_costs_draw_without_nan() {
        let mut s = played(&["instant", "huge", "middle"]);
        s.costs[0] = cost(1..10, 5, 1, Some(0));
        s.costs[1] = cost(1..10, 5, 1_000_000_000_000_000, Some(3_600_000_000));
        s.costs[2] = cost(1..10, 5, 1000, Some(0));
        let ratings = s.ratings();
        for chart in COST_CHARTS {
            let svg = svg_of(&s, &ratings, chart);
            assert!(
                !svg.contains("NaN") && !svg.contains("inf"),
                "{chart}: {svg}"
            );
            let texts = texts(&svg);
            if chart.starts_with("time") || chart == "elo-by-time" {
                // Zero times are drawn at the log's resolution, and said to be.
                assert!(
                    texts.iter().any(|t| t.1.contains("drawn at 1 µs")),
                    "{chart}: {texts:?}"
                );
                assert!(
                    texts.iter().any(|t| t.1 == "1 s" || t.1 == "1k s"),
                    "{chart}: {texts:?}"
                );
            }
            if chart.starts_with("nodes") || chart == "elo-by-nodes" {
                assert!(texts.iter().any(|t| t.1 == "1T"), "{chart}: {texts:?}");
            }
        }
    }

    #[test]
    fn one_engine_with_figures_draws_its_lines_and_no_strength_chart() {
        let mut s = played(&["alone", "silent"]);
        s.costs[0] = cost(1..60, 1, 300, Some(1500));
        assert_eq!(cost_charts(&s), ["nodes-by-ply", "time-by-ply"]);
        let charts = svg_charts(&s, &s.ratings()).unwrap();
        assert!(charts.iter().all(|(_, svg)| !svg.contains("NaN")));
        // One ply only: a point, not a line of one.
        s.costs[0] = cost(7..8, 1, 300, Some(1500));
        let svg = svg_of(&s, &s.ratings(), "nodes-by-ply");
        assert!(svg.contains("<circle"), "{svg}");
        // A summary of one engine (a spec has two at least; the charts do not rely on it).
        s.spec.engines.truncate(1);
        s.costs.truncate(1);
        assert_eq!(cost_charts(&s), ["nodes-by-ply", "time-by-ply"]);
        let ratings = s.ratings();
        for kind in [
            Kind::EloByNodes,
            Kind::EloByTime,
            Kind::NodesByPly,
            Kind::TimeByPly,
        ] {
            let svg = render_svg(kind, &s, &ratings).unwrap();
            assert!(!svg.contains("NaN"), "{}", kind.name());
        }
    }

    #[test]
    fn plies_with_few_moves_are_left_out_and_said_to_be() {
        let mut s = played(&["a", "b"]);
        let mut c = cost(5..40, 20, 1000, Some(100));
        // Ply 50 reached by one game only.
        c.add(
            50,
            &MoveCost {
                nodes: Some(10),
                micros: Some(1),
                ..MoveCost::default()
            },
        );
        s.costs[0] = c;
        let (series, left_out) = ply_series(&s, Measure::Nodes);
        assert_eq!(series.len(), 1);
        assert_eq!(series[0].1.len(), 35);
        assert!(series[0].1.iter().all(|&(ply, _)| (5..40).contains(&ply)));
        assert_eq!(left_out, 1);
        let svg = svg_of(&s, &s.ratings(), "nodes-by-ply");
        assert!(
            svg.contains("Not drawn: 1 point(s) with under 1/10"),
            "{svg}"
        );
    }

    #[test]
    fn labels_do_not_overlap_where_there_is_room() {
        // Thirty labels in a crowded band across a 900×500 chart.
        let points: Vec<(f64, f64)> = (0..30)
            .map(|k| {
                let k = k as f64;
                (80.0 + 25.0 * k, 250.0 + 60.0 * (k * 1.7).sin())
            })
            .collect();
        let sizes: Vec<(f64, f64)> = (0..30)
            .map(|k| (60.0 + (k % 4) as f64 * 10.0, 15.0))
            .collect();
        let obstacles: Vec<(Rect, f64)> = points
            .iter()
            .map(|&p| (Rect::around(p, (7.0, 7.0)), 10.0))
            .collect();
        let area = Rect {
            left: 40.0,
            top: 40.0,
            right: 880.0,
            bottom: 460.0,
        };
        let placed = place_labels(&points, &sizes, &obstacles, &[], area);
        assert_eq!(placed.len(), 30);
        for (i, a) in placed.iter().enumerate() {
            assert_eq!(a.rect.overlap(&area), a.rect.area(), "{i} outside");
            for (j, b) in placed.iter().enumerate().skip(i + 1) {
                assert_eq!(a.rect.overlap(&b.rect), 0.0, "labels {i} and {j} overlap");
            }
            for (j, (o, _)) in obstacles.iter().enumerate() {
                assert_eq!(a.rect.overlap(o), 0.0, "label {i} covers point {j}");
            }
        }
        // No room at all: still one place per label, inside the area.
        let crowded = vec![(100.0, 100.0); 50];
        let placed = place_labels(&crowded, &vec![(80.0, 15.0); 50], &[], &[], area);
        assert!(
            placed
                .iter()
                .all(|p| p.rect.overlap(&area) == p.rect.area())
        );
    }

    #[test]
    fn leader_lines_cross_what_they_cross() {
        let r = Rect {
            left: 10.0,
            top: 10.0,
            right: 20.0,
            bottom: 20.0,
        };
        assert!(segment_meets_rect((0.0, 0.0), (30.0, 30.0), &r));
        assert!(segment_meets_rect((15.0, 15.0), (15.0, 16.0), &r));
        assert!(!segment_meets_rect((0.0, 0.0), (30.0, 0.0), &r));
        assert!(!segment_meets_rect((0.0, 0.0), (9.0, 9.0), &r));
        assert!(!segment_meets_rect((0.0, 25.0), (25.0, 40.0), &r));
        assert!(segments_cross(
            (0.0, 0.0),
            (10.0, 10.0),
            (0.0, 10.0),
            (10.0, 0.0)
        ));
        assert!(!segments_cross(
            (0.0, 0.0),
            (10.0, 10.0),
            (20.0, 0.0),
            (30.0, 10.0)
        ));
        assert!(!segments_cross(
            (0.0, 0.0),
            (10.0, 0.0),
            (0.0, 1.0),
            (10.0, 1.0)
        ));
    }

    #[test]
    fn two_hundred_engines_and_nan_figures_do_not_panic() {
        // A spec holds 64 engines at most: the other 136 are copies, renamed.
        let names: Vec<String> = (0..64).map(|i| format!("engine-{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut s = summary(&spec(&refs), &[]);
        let mut ratings = s.ratings();
        for i in 64..200 {
            let mut engine = s.spec.engines[i % 64].clone();
            engine.name = format!("engine-{i}");
            s.spec.engines.push(engine);
            let mut rating = ratings.ratings[i % 64].clone();
            rating.name = format!("engine-{i}");
            ratings.ratings.push(rating);
        }
        s.costs = (0..200)
            .map(|i| cost(1..5, 1, 1 + i as u64 * 37, Some(i as u64)))
            .collect();
        for (i, r) in ratings.ratings.iter_mut().enumerate() {
            r.elo = match i % 7 {
                0 => None,
                1 => Some(f64::NAN),
                _ => Some((i as f64 * 0.37).sin() * 300.0),
            };
            r.error = if i % 5 == 0 {
                Some(f64::INFINITY)
            } else {
                Some(30.0)
            };
            r.bound = (i % 11 == 0).then_some(Bound::Lower);
        }
        register_fonts().unwrap();
        for kind in [
            Kind::EloByNodes,
            Kind::EloByTime,
            Kind::NodesByPly,
            Kind::TimeByPly,
        ] {
            let svg = render_svg(kind, &s, &ratings).unwrap();
            assert!(!svg.contains("NaN"), "{}", kind.name());
            if matches!(kind, Kind::EloByNodes | Kind::EloByTime) {
                assert!(
                    svg.contains("Left out (no rating): engine-0, engine-1, engine-7"),
                    "{}",
                    kind.name()
                );
            }
        }
    }
}

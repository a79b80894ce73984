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
//! The cost charts and their log axes are drawn in `cost`; where their points' names go, in
//! `labels`.
//!
//! Text is drawn with DejaVu Sans, embedded in the binary (the `dejavu` crate) and registered with
//! plotters' `ab_glyph` renderer: nothing is read from the system's fonts. In the SVG text stays
//! text (`font-family="sans-serif"`), escaped, so an engine name cannot inject markup.
//!
//! PNG and SVG files are written atomically: drawn into a temporary file in the target folder,
//! then renamed over the final name, so a reader never sees half a chart.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
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
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        cause: std::io::Error,
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
    std::fs::create_dir_all(dir).map_err(|cause| ChartError::Io {
        path: dir.to_path_buf(),
        cause,
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
    write_atomically(&path, &bytes).map_err(|cause| ChartError::Io {
        path: path.clone(),
        cause,
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
    write_atomically(&path, svg.as_bytes()).map_err(|cause| ChartError::Io {
        path: path.clone(),
        cause,
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

/// The chart's mesh with the house fonts for its axis descriptions and tick labels, for the
/// caller to finish (descriptions, formatters, which lines) and draw.
pub(crate) fn mesh<'a, 'b, DB, X, Y, XT, YT>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> MeshStyle<'a, 'b, X, Y, DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
{
    let mut mesh = chart.configure_mesh();
    mesh.axis_desc_style(font(AXIS)).label_style(font(LABEL));
    mesh
}

/// Draws the legend of the chart's labelled series at `position`, in the house style: tick
/// label font, on a white, framed background that lets the plot show through a little.
pub(crate) fn draw_legend<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    position: SeriesLabelPosition,
) -> Drawn {
    chart
        .configure_series_labels()
        .label_font(font(LABEL))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(position)
        .draw()
        .map_err(text)
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

/// Where a bound at `value` is drawn on an axis from `low` to `high`: at its value, or just
/// inside the edge it lies beyond (`margin` of the axis's span in); with the side it is off
/// the axis on (-1 below, 1 above, 0 on it).
pub(crate) fn edge_position(value: f64, low: f64, high: f64, margin: f64) -> (f64, i8) {
    let margin = (high - low) * margin;
    if value < low + margin {
        (low + margin, -1)
    } else if value > high - margin {
        (high - margin, 1)
    } else {
        (value, 0)
    }
}

fn elo_axis(summary: &Summary) -> String {
    match &summary.spec.anchor {
        Some(anchor) => format!("Elo ({} fixed at {:.0})", anchor.engine, anchor.elo),
        None => "Elo (mean 0)".to_string(),
    }
}

/// The engines the `elo` chart draws, worst first: row 0 is at the bottom, the best engine at
/// the top. Engines without an estimate have nothing to draw.
fn rated_worst_first(ratings: &Ratings) -> Vec<usize> {
    let elo = |i: usize| ratings.ratings[i].elo.unwrap_or(0.0);
    let mut order: Vec<usize> = (0..ratings.ratings.len())
        .filter(|&i| ratings.ratings[i].elo.is_some())
        .collect();
    order.sort_by(|&a, &b| elo(a).total_cmp(&elo(b)));
    order
}

/// The Elo axis of the `elo` chart, for the engines of `order`. It fits the estimated engines:
/// a bound (an engine that won or lost everything, rated a thousand Elo away) would squash them;
/// it is drawn at the edge, pointing out. Room on both sides: the labels on the right, an arrow
/// on the left.
fn elo_chart_range(ratings: &Ratings, order: &[usize]) -> std::ops::Range<f64> {
    let elo = |i: usize| ratings.ratings[i].elo.unwrap_or(0.0);
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
    let r = padded(lo, hi, 0.08);
    let span = r.end - r.start;
    (r.start - span * 0.06)..(r.end + span * 0.22)
}

fn draw_elo<DB: DrawingBackend>(
    summary: &Summary,
    ratings: &Ratings,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
    let elo = |i: usize| ratings.ratings[i].elo.unwrap_or(0.0);
    let order = rated_worst_first(ratings);
    let n = order.len();
    let names: Vec<&str> = order
        .iter()
        .map(|&i| ratings.ratings[i].name.as_str())
        .collect();
    let bounded = |i: usize| ratings.ratings[i].bound.is_some();
    let x_range = elo_chart_range(ratings, &order);
    let (left, right) = (x_range.start, x_range.end);
    let shown_at = |elo: f64| edge_position(elo, left, right, 0.02);

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
    mesh(&mut chart)
        .disable_y_mesh()
        .x_desc(elo_axis(summary))
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

    draw_estimates(&mut chart, ratings, &estimated)?;
    if !bounds.is_empty() {
        draw_bound_arrows(&mut chart, ratings, &bounds, &shown_at)?;
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
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight)
}

/// The rows of the `elo` chart, as plotted: Elo across, one row per engine.
type EloRows = Cartesian2d<
    plotters::coord::types::RangedCoordf64,
    plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordusize>,
>;

/// Draws the estimates of the `elo` chart, `(row, engine)`: each one's 95% interval (a bar
/// with end ticks) and point, with its legend entry.
fn draw_estimates<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, EloRows>,
    ratings: &Ratings,
    estimated: &[(usize, usize)],
) -> Drawn {
    let elo = |i: usize| ratings.ratings[i].elo.unwrap_or(0.0);
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
    Ok(())
}

/// Draws the bounds of the `elo` chart, `(row, engine)`: an arrow at `shown_at` pointing the
/// way the bound goes, with its legend entry.
fn draw_bound_arrows<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, EloRows>,
    ratings: &Ratings,
    bounds: &[(usize, usize)],
    shown_at: &dyn Fn(f64) -> (f64, i8),
) -> Drawn {
    chart
        .draw_series(bounds.iter().map(|&(row, i)| {
            let (x, side) = shown_at(ratings.ratings[i].elo.unwrap_or(0.0));
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
    Ok(())
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
    mesh(&mut chart)
        .disable_mesh()
        .x_desc("opponent")
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
    mesh(&mut chart)
        .x_desc("depth (plies)")
        .y_desc(elo_axis(summary))
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
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)
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
    mesh(&mut chart)
        .x_desc("opening pairs counted")
        .y_desc("log-likelihood ratio")
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
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight)
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
    mesh(&mut chart)
        .disable_x_mesh()
        .x_desc(x_desc)
        .y_desc("games")
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

mod cost;
mod labels;

use cost::*;

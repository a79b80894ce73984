//! The report of a tuning run (`joute tune`): its charts, as PNG and SVG, and one
//! self-contained `index.html`, all drawn from a [`TuneRecord`].
//!
//! - `tune-elo` (hill climbing only): the Elo of the incumbent over the start against games
//!   played, as a step line: the running sum of the Elo of the accepted candidates. That sum
//!   over-estimates (the accepted candidates are the winners of a noisy selection), so the
//!   confirmation match's Elo is drawn at the last point with its 95% error bar. SPSA has no
//!   per-step Elo gain and gets no such chart.
//! - `tune-weights`: each parameter's value (the incumbent, or SPSA's θ) after each candidate,
//!   from its start at k = 0, as a percentage of its `[min, max]` range (the parameters' scales
//!   differ too much for one axis of raw values).
//! - `tune-steps`: hill climbing: each parameter's step size after each candidate, as a
//!   percentage of its range, above the rolling acceptance rate (the last 20 candidates). SPSA:
//!   each parameter's perturbation `c_k`, as a percentage of its range.
//! - `tune-llr` (hill climbing, when candidates were tested by SPRT): each candidate's final
//!   log-likelihood ratio, accepted ones green and rejected ones grey, with the test's bounds.
//!
//! A chart that does not apply is neither drawn nor written. The charts are drawn like a run's
//! charts ([`super::charts`]: the embedded DejaVu font, the same colours, PNG and SVG written
//! atomically), and every text in them is escaped by plotters' SVG backend.
//!
//! The page is an askama template (`templates/tune.html`) with the run report's stylesheet
//! (`templates/report.css`, plus `templates/tune.css`) inlined: it opens from disk with no
//! network request. Every string from the record (run name, parameter names, engine) goes
//! through askama's HTML escaping; the charts' SVG text is inlined as drawn.

use std::path::{Path, PathBuf};

use askama::Template;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::charts::{
    AXIS, BOUND, ChartError, Drawn, LABEL, POINT, TITLE, error_of, font, padded, register_fonts,
    svg_text, text, whole, write_png, write_svg,
};
use crate::arena::log::write_atomically;
use crate::tune::params::Param;
use crate::tune::record::{HistoryLine, MatchResult, TuneRecord};

/// Why the tuning report could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum TuneReportError {
    /// A chart could not be drawn or written.
    #[error(transparent)]
    Chart(#[from] ChartError),
    /// The page's template failed to render.
    #[error("cannot render the tuning report: {0}")]
    Render(#[from] askama::Error),
    /// A file or folder could not be written.
    #[error("{}: cannot write the tuning report: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// The candidates the rolling acceptance rate is taken over.
const WINDOW: usize = 20;
/// The candidates the page's history table shows (the newest).
const HISTORY_ROWS: usize = 200;
/// Parameter names longer than this are cut in the charts' legends.
const LEGEND_NAME: usize = 40;

const GREEN: RGBColor = RGBColor(40, 150, 70);
const RED: RGBColor = RGBColor(200, 50, 40);
const GREY: RGBColor = RGBColor(150, 150, 150);
const DARK: RGBColor = RGBColor(40, 40, 40);

/// The optimiser of a run, from [`TuneRecord::method`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Hill,
    Spsa,
    /// A method this report does not know: only the weights are drawn.
    Other,
}

fn method(record: &TuneRecord) -> Method {
    match record.method.as_str() {
        "hill-climb" => Method::Hill,
        "spsa" => Method::Spsa,
        _ => Method::Other,
    }
}

/// The charts there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Elo,
    Weights,
    Steps,
    Llr,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Elo => "tune-elo",
            Kind::Weights => "tune-weights",
            Kind::Steps => "tune-steps",
            Kind::Llr => "tune-llr",
        }
    }

    /// Width and height in pixels (the SVG's user units): 900×500, the charts with a legend
    /// column wider for long parameter names and taller for many parameters; the stacked
    /// steps chart of hill climbing 600 high.
    fn size(self, record: &TuneRecord) -> (u32, u32) {
        match self {
            Kind::Elo | Kind::Llr => (900, 500),
            Kind::Weights | Kind::Steps => {
                let labels = legend_labels(self, record);
                let width = 640 + legend_width(&labels);
                let least = if self == Kind::Steps && method(record) == Method::Hill {
                    600
                } else {
                    500
                };
                (width, least.max(80 + 20 * labels.len() as u32))
            }
        }
    }
}

/// The charts that apply to `record`, in the order they are drawn.
fn kinds(record: &TuneRecord) -> Vec<Kind> {
    let method = method(record);
    let mut kinds = Vec::new();
    if method == Method::Hill {
        kinds.push(Kind::Elo);
    }
    if !record.params.is_empty() {
        kinds.push(Kind::Weights);
        if method == Method::Hill || (method == Method::Spsa && !record.history.is_empty()) {
            kinds.push(Kind::Steps);
        }
    }
    if method == Method::Hill && record.history.iter().any(|h| h.llr.is_some()) {
        kinds.push(Kind::Llr);
    }
    kinds
}

/// The names of the charts that apply to `record` (each written as NAME.png and NAME.svg).
pub fn tune_chart_names(record: &TuneRecord) -> Vec<&'static str> {
    kinds(record).into_iter().map(Kind::name).collect()
}

/// Writes every tuning chart that applies to `record` (NAME.png and NAME.svg, each atomically)
/// into `dir`, then `dir/index.html`; returns the paths written, NAME.png then NAME.svg for
/// each chart, `index.html` last.
pub fn write_tune_report(record: &TuneRecord, dir: &Path) -> Result<Vec<PathBuf>, TuneReportError> {
    std::fs::create_dir_all(dir).map_err(|source| TuneReportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let svgs = tune_svg_charts(record)?;
    let mut paths = Vec::new();
    for (name, svg) in &svgs {
        paths.push(write_png(dir, name, svg)?);
        paths.push(write_svg(dir, name, svg)?);
    }
    let html = render_tune(record, &svgs)?;
    let path = dir.join("index.html");
    write_atomically(&path, html.as_bytes()).map_err(|source| TuneReportError::Io {
        path: path.clone(),
        source,
    })?;
    paths.push(path);
    Ok(paths)
}

/// The charts that apply to `record` as SVG text in memory, (name, svg), in the order they are
/// drawn. The same record gives the same bytes.
pub fn tune_svg_charts(record: &TuneRecord) -> Result<Vec<(String, String)>, ChartError> {
    register_fonts()?;
    kinds(record)
        .into_iter()
        .map(|kind| {
            let svg = svg_text(kind.name(), kind.size(record), |root| {
                draw(kind, record, root)
            })?;
            Ok((kind.name().to_string(), svg))
        })
        .collect()
}

fn draw<DB: DrawingBackend>(
    kind: Kind,
    record: &TuneRecord,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
    root.fill(&WHITE).map_err(text)?;
    match kind {
        Kind::Elo => draw_elo(record, root),
        Kind::Weights => draw_weights(record, root),
        Kind::Steps => draw_steps(record, root),
        Kind::Llr => draw_llr(record, root),
    }
}

/// The incumbent's Elo over the start as a step line of (games played, Elo): the running sum
/// of the accepted candidates' Elo (non-finite estimates left out), from (0, 0) to the last
/// candidate's games.
fn running_elo(history: &[HistoryLine]) -> Vec<(f64, f64)> {
    let mut sum = 0.0;
    let mut path = vec![(0.0, 0.0)];
    for h in history.iter().filter(|h| h.accepted && h.elo.is_finite()) {
        let x = h.games_total as f64;
        path.push((x, sum));
        sum += h.elo;
        path.push((x, sum));
    }
    let last = history.last().map_or(0.0, |h| h.games_total as f64);
    path.push((last, sum));
    path
}

/// The rolling acceptance rate after each candidate, (k, percent accepted among the last
/// [`WINDOW`] candidates).
fn rolling_acceptance(history: &[HistoryLine]) -> Vec<(f64, f64)> {
    history
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let window = &history[(i + 1).saturating_sub(WINDOW)..=i];
            let accepted = window.iter().filter(|h| h.accepted).count();
            (h.k as f64, 100.0 * accepted as f64 / window.len() as f64)
        })
        .collect()
}

/// `x` as a percentage of `param`'s range (0 for an empty range).
fn of_range(param: &Param, x: f64) -> f64 {
    if param.range() > 0.0 {
        100.0 * x / param.range()
    } else {
        0.0
    }
}

/// Where `x` lies in `param`'s range, 0 at `min` to 100 at `max` (50 for an empty range).
fn in_range(param: &Param, x: f64) -> f64 {
    if param.range() > 0.0 {
        of_range(param, x - param.min)
    } else {
        50.0
    }
}

/// Distinct colours for the parameters' lines (Tableau 10, readable on white).
const PARAM_COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The colour of parameter `i`, the same in every chart: Tableau 10, then plotters' palette.
fn colour(i: usize) -> RGBColor {
    PARAM_COLOURS.get(i).copied().unwrap_or_else(|| {
        let (r, g, b) = Palette99::pick(i).rgb();
        RGBColor(r, g, b)
    })
}

/// A parameter's name for a legend, cut to [`LEGEND_NAME`] characters.
fn short_name(name: &str) -> String {
    if name.chars().count() > LEGEND_NAME {
        let cut: String = name.chars().take(LEGEND_NAME - 1).collect();
        format!("{cut}…")
    } else {
        name.to_string()
    }
}

/// The legend column of the weights and steps charts: `name (min..max)` per parameter, and the
/// acceptance rate's line for hill climbing's steps.
fn legend_labels(kind: Kind, record: &TuneRecord) -> Vec<String> {
    let mut labels: Vec<String> = record
        .params
        .iter()
        .map(|p| format!("{} ({}..{})", short_name(&p.name), num(p.min), num(p.max)))
        .collect();
    if kind == Kind::Steps && method(record) == Method::Hill {
        labels.push(format!("acceptance, last {WINDOW}"));
    }
    labels
}

/// Pixels for the legend column (DejaVu Sans is about 0.6 em per character, plus the key).
fn legend_width(labels: &[String]) -> u32 {
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as u32;
    (longest * LABEL * 62 / 100 + 50).clamp(160, 380)
}

/// Draws a legend column into `area`: a key line (colour, width) and a label per entry.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, RGBColor, u32)],
) -> Drawn {
    for (i, (label, colour, width)) in entries.iter().enumerate() {
        let y = 56 + 20 * i as i32;
        area.draw(&PathElement::new(
            vec![(6, y), (28, y)],
            colour.stroke_width(*width),
        ))
        .map_err(text)?;
        area.draw(&Text::new(
            label.clone(),
            (34, y),
            font(LABEL).pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(text)?;
    }
    Ok(())
}

/// The last candidate's number, at least 1 (the end of a k axis).
fn last_k(record: &TuneRecord) -> f64 {
    record.history.last().map_or(1.0, |h| h.k.max(1) as f64)
}

fn draw_elo<DB: DrawingBackend>(record: &TuneRecord, root: &DrawingArea<DB, Shift>) -> Drawn {
    let path = running_elo(&record.history);
    let last = path.last().map_or(0.0, |p| p.0);
    let confirmation = record.confirmation.as_ref().filter(|c| c.elo.is_finite());
    let mut lo = path.iter().map(|p| p.1).fold(0.0, f64::min);
    let mut hi = path.iter().map(|p| p.1).fold(0.0, f64::max);
    if let Some(c) = confirmation {
        lo = lo.min(c.elo - error_of(c.error));
        hi = hi.max(c.elo + error_of(c.error));
    }
    // Room on the right of the last point, and a little on the left of 0, so that the
    // confirmation's bar stays clear of the axes even with no history.
    let x_end = (last * 1.05).max(10.0);
    let x_start = -0.01 * x_end;

    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("{}: Elo of the incumbent over the start", record.name),
            font(TITLE),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(x_start..x_end, padded(lo, hi, 0.1))
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("games played (confirmation excluded)")
        .y_desc("Elo over the start")
        .axis_desc_style(font(AXIS))
        .label_style(font(LABEL))
        .x_label_formatter(&whole)
        .y_label_formatter(&whole)
        .draw()
        .map_err(text)?;

    chart
        .draw_series(LineSeries::new(
            [(x_start, 0.0), (x_end, 0.0)],
            GREY.stroke_width(1),
        ))
        .map_err(text)?;
    chart
        .draw_series(LineSeries::new(path, POINT.stroke_width(2)))
        .map_err(text)?
        .label("sum of accepted candidates' Elo: over-estimates (winners of noisy selection)")
        .legend(|(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], POINT.stroke_width(2)));
    if let Some(c) = confirmation {
        let e = error_of(c.error);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(last, c.elo - e), (last, c.elo + e)],
                BOUND.stroke_width(2),
            )))
            .map_err(text)?;
        chart
            .draw_series([c.elo - e, c.elo + e].map(|y| {
                EmptyElement::at((last, y))
                    + PathElement::new(vec![(-6, 0), (6, 0)], BOUND.stroke_width(2))
            }))
            .map_err(text)?;
        chart
            .draw_series(std::iter::once(Circle::new(
                (last, c.elo),
                5,
                BOUND.filled(),
            )))
            .map_err(text)?
            .label(format!(
                "confirmed {:.1} ± {:.1} (95%, held-out openings)",
                c.elo, c.error
            ))
            .legend(|(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, -7), (0, 7)], BOUND.stroke_width(2))
                    + Circle::new((0, 0), 5, BOUND.filled())
            });
    }
    chart
        .configure_series_labels()
        .label_font(font(LABEL))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        // The line rises from the lower left; with no history the confirmation is on the left.
        .position(if record.history.is_empty() {
            SeriesLabelPosition::UpperRight
        } else {
            SeriesLabelPosition::UpperLeft
        })
        .draw()
        .map_err(text)
}

/// One line per parameter on `area`: `series[i]` for parameter `i`, a dot on each line's first
/// point (so that a line of one point still shows); y ticks with `y_decimals` decimals.
#[allow(clippy::too_many_arguments)]
fn draw_param_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: String,
    caption_size: u32,
    x_desc: &str,
    y_desc: &str,
    y_range: std::ops::Range<f64>,
    x_end: f64,
    y_decimals: usize,
    series: Vec<Vec<(f64, f64)>>,
) -> Drawn {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, font(caption_size))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..x_end, y_range)
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .axis_desc_style(font(AXIS))
        .label_style(font(LABEL))
        .x_label_formatter(&whole)
        .y_label_formatter(&|y| format!("{y:.y_decimals$}"))
        .draw()
        .map_err(text)?;
    for (i, points) in series.into_iter().enumerate() {
        let c = colour(i);
        if let Some(&first) = points.first() {
            chart
                .draw_series(std::iter::once(Circle::new(first, 3, c.filled())))
                .map_err(text)?;
        }
        chart
            .draw_series(LineSeries::new(points, c.stroke_width(2)))
            .map_err(text)?;
    }
    Ok(())
}

/// The legend entries of the parameters: label, colour, line width.
fn param_entries(kind: Kind, record: &TuneRecord) -> Vec<(String, RGBColor, u32)> {
    legend_labels(kind, record)
        .into_iter()
        .enumerate()
        .map(|(i, label)| {
            if i < record.params.len() {
                (label, colour(i), 2)
            } else {
                (label, DARK, 4)
            }
        })
        .collect()
}

fn draw_weights<DB: DrawingBackend>(record: &TuneRecord, root: &DrawingArea<DB, Shift>) -> Drawn {
    let (width, _) = root.dim_in_pixel();
    let entries = param_entries(Kind::Weights, record);
    let labels: Vec<String> = entries.iter().map(|e| e.0.clone()).collect();
    let (main, side) = root.split_horizontally(width - legend_width(&labels));
    let series = record
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            std::iter::once((0.0, in_range(p, p.value)))
                .chain(
                    record
                        .history
                        .iter()
                        .filter_map(|h| h.theta.get(i).map(|&x| (h.k as f64, in_range(p, x)))),
                )
                .collect()
        })
        .collect();
    draw_param_lines(
        &main,
        format!("{}: weights (% of each range)", record.name),
        TITLE,
        "candidate k",
        "% of range",
        -3.0..103.0,
        last_k(record),
        0,
        series,
    )?;
    draw_legend(&side, &entries)
}

fn draw_steps<DB: DrawingBackend>(record: &TuneRecord, root: &DrawingArea<DB, Shift>) -> Drawn {
    let hill = method(record) == Method::Hill;
    let (width, height) = root.dim_in_pixel();
    let entries = param_entries(Kind::Steps, record);
    let labels: Vec<String> = entries.iter().map(|e| e.0.clone()).collect();
    let (main, side) = root.split_horizontally(width - legend_width(&labels));
    let series: Vec<Vec<(f64, f64)>> = record
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // Hill climbing starts from the parameters' initial steps; SPSA's c_k is only
            // known from its first iteration on.
            let start = hill.then(|| (0.0, of_range(p, p.step)));
            start
                .into_iter()
                .chain(
                    record
                        .history
                        .iter()
                        .filter_map(|h| h.steps.get(i).map(|&s| (h.k as f64, of_range(p, s)))),
                )
                .filter(|&(_, y)| y.is_finite())
                .collect()
        })
        .collect();
    let top = series
        .iter()
        .flatten()
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(1e-9);
    let x_end = last_k(record);
    if hill {
        let (upper, lower) = main.split_vertically(height * 58 / 100);
        draw_param_lines(
            &upper,
            format!("{}: step sizes (% of each range)", record.name),
            TITLE,
            "",
            "step, % of range",
            0.0..top * 1.1,
            x_end,
            1,
            series,
        )?;
        let mut chart = ChartBuilder::on(&lower)
            .caption(
                format!("acceptance rate over the last {WINDOW} candidates"),
                font(AXIS),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..x_end, 0f64..100.0)
            .map_err(text)?;
        chart
            .configure_mesh()
            .x_desc("candidate k")
            .y_desc("accepted (%)")
            .axis_desc_style(font(AXIS))
            .label_style(font(LABEL))
            .x_label_formatter(&whole)
            .y_label_formatter(&whole)
            .draw()
            .map_err(text)?;
        chart
            .draw_series(LineSeries::new(
                rolling_acceptance(&record.history),
                DARK.stroke_width(4),
            ))
            .map_err(text)?;
    } else {
        draw_param_lines(
            &main,
            format!("{}: SPSA perturbation c_k (% of each range)", record.name),
            TITLE,
            "iteration k",
            "c_k, % of range",
            0.0..top * 1.1,
            x_end,
            1,
            series,
        )?;
    }
    draw_legend(&side, &entries)
}

fn draw_llr<DB: DrawingBackend>(record: &TuneRecord, root: &DrawingArea<DB, Shift>) -> Drawn {
    let points: Vec<(f64, f64, bool)> = record
        .history
        .iter()
        .filter_map(|h| {
            h.llr
                .filter(|l| l.is_finite())
                .map(|l| (h.k as f64, l, h.accepted))
        })
        .collect();
    let bounds = record.sprt.map(|s| (s.lower(), s.upper()));
    let mut lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let mut hi = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    if let Some((lower, upper)) = bounds {
        lo = lo.min(lower);
        hi = hi.max(upper);
    }
    let x_end = last_k(record) + 1.0;
    // Headroom above the points and the upper bound for the legend.
    let y_range = {
        let r = padded(lo, hi, 0.08);
        r.start..(r.end + (r.end - r.start) * 0.3)
    };
    let caption = match &record.sprt {
        Some(s) => format!(
            "{}: final LLR of each candidate, SPRT [{}, {}]",
            record.name, s.elo0, s.elo1
        ),
        None => format!("{}: final LLR of each candidate", record.name),
    };

    let mut chart = ChartBuilder::on(root)
        .caption(caption, font(TITLE))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..x_end, y_range)
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc("candidate k")
        .y_desc("log-likelihood ratio")
        .axis_desc_style(font(AXIS))
        .label_style(font(LABEL))
        .x_label_formatter(&whole)
        .draw()
        .map_err(text)?;

    if let Some((lower, upper)) = bounds {
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, upper), (x_end, upper)],
                10,
                6,
                GREEN.stroke_width(2),
            ))
            .map_err(text)?
            .label(format!("upper bound {upper:.2}: accept"))
            .legend(|(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], GREEN.stroke_width(2)));
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, lower), (x_end, lower)],
                10,
                6,
                RED.stroke_width(2),
            ))
            .map_err(text)?
            .label(format!("lower bound {lower:.2}: reject"))
            .legend(|(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], RED.stroke_width(2)));
    }
    let rejected = points.iter().filter(|p| !p.2).count();
    chart
        .draw_series(
            points
                .iter()
                .filter(|p| !p.2)
                .map(|&(k, llr, _)| Circle::new((k, llr), 3, GREY.filled())),
        )
        .map_err(text)?
        .label(format!("rejected ({rejected})"))
        .legend(|(x, y)| Circle::new((x, y), 3, GREY.filled()));
    chart
        .draw_series(
            points
                .iter()
                .filter(|p| p.2)
                .map(|&(k, llr, _)| Circle::new((k, llr), 5, GREEN.filled())),
        )
        .map_err(text)?
        .label(format!("accepted ({})", points.len() - rejected))
        .legend(|(x, y)| Circle::new((x, y), 5, GREEN.filled()));
    chart
        .configure_series_labels()
        .label_font(font(LABEL))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(text)
}

// ---------------------------------------------------------------------------------------------
// The page.

/// A confirmation or A/A match, formatted.
struct MatchView {
    elo: String,
    los: String,
    wins: u64,
    draws: u64,
    losses: u64,
    penta: String,
    games: u64,
    verdict: String,
    /// `good`, `bad` or `warn`: the verdict's colour.
    class: &'static str,
    /// The link to the match's own report, when it is a relative path.
    report: Option<String>,
}

/// One row of the final weights table.
struct WeightView {
    name: String,
    min: String,
    max: String,
    start: String,
    tuned: String,
    change: String,
    /// `at bound (min)`, `at bound (max)` or empty.
    flag: &'static str,
}

/// One row of the history table.
struct HistoryView {
    k: u64,
    /// Hill climbing: the parameters moved. SPSA: θ after the iteration, with each change.
    moved: String,
    pairs: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    elo: String,
    llr: String,
    accepted: bool,
}

/// One inlined chart.
struct ChartView {
    name: String,
    svg: String,
}

#[derive(Template)]
#[template(path = "tune.html")]
struct TunePage<'a> {
    /// SPSA: the history shows θ, not candidates and verdicts.
    spsa: bool,
    name: &'a str,
    game: &'a str,
    method: &'a str,
    engine: &'a str,
    opponent: &'a str,
    seed: u64,
    candidates: usize,
    accepted: Option<String>,
    games: u64,
    time: String,
    weights_file: &'a str,
    confirmation: Option<MatchView>,
    aa: Option<MatchView>,
    weights: Vec<WeightView>,
    charts: Vec<ChartView>,
    history: Vec<HistoryView>,
    history_note: String,
    style: &'static str,
}

const STYLE: &str = concat!(
    include_str!("../../templates/report.css"),
    include_str!("../../templates/tune.css")
);

/// A weight or bound: whole numbers as such, others with up to 4 decimals.
fn num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// A change of weight, signed.
fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", num(x))
    } else {
        num(x)
    }
}

/// An Elo estimate and its 95% half-width: `+12.3 ± 4.5`.
fn elo_text(elo: f64, error: f64) -> String {
    format!("{elo:+.1} ± {error:.1}")
}

/// Seconds, for a person: `42.0 s`, `12 min 05 s`, `3 h 04 min`, `2 d 03 h 04 min`.
fn duration(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return "unknown".into();
    }
    if seconds < 60.0 {
        return format!("{seconds:.1} s");
    }
    let s = seconds.round() as u64;
    let (d, h, m) = (s / 86_400, s / 3600 % 24, s / 60 % 60);
    if s < 3600 {
        format!("{m} min {:02} s", s % 60)
    } else if d == 0 {
        format!("{h} h {m:02} min")
    } else {
        format!("{d} d {h:02} h {m:02} min")
    }
}

/// A report path worth a link: relative, with no scheme (`javascript:` and the like).
fn relative_link(path: &str) -> Option<String> {
    let scheme = path
        .split('/')
        .next()
        .is_some_and(|first| first.contains(':'));
    (!path.is_empty() && !scheme && !path.starts_with("//")).then(|| path.to_string())
}

/// `m` formatted; `aa` picks the A/A verdict (consistent with 0) over the confirmation's
/// (above 0).
fn match_view(m: &MatchResult, aa: bool) -> MatchView {
    let (verdict, class) = if aa {
        if m.elo.abs() <= m.error {
            (
                "consistent with 0: the 95% interval of start against itself contains 0.".into(),
                "good",
            )
        } else {
            (
                "warning: start against itself is not consistent with 0 (the 95% interval \
                 excludes 0); the setup may favour one side, or this is the 1-in-20 chance."
                    .into(),
                "warn",
            )
        }
    } else if m.elo - m.error > 0.0 {
        (
            "confirmed: the 95% interval is above 0.".to_string(),
            "good",
        )
    } else if m.elo + m.error < 0.0 {
        (
            "not confirmed: the 95% interval is below 0, the tuned weights are weaker.".into(),
            "bad",
        )
    } else {
        ("not confirmed: the 95% interval contains 0.".into(), "warn")
    };
    let [ll, ld, even, wd, ww] = m.pentanomial;
    MatchView {
        elo: elo_text(m.elo, m.error),
        los: format!("{:.1}%", 100.0 * m.los),
        wins: m.wins,
        draws: m.draws,
        losses: m.losses,
        penta: format!("LL {ll}, LD {ld}, WL+DD {even}, WD {wd}, WW {ww}"),
        games: m.games,
        verdict,
        class,
        report: relative_link(&m.report),
    }
}

/// The final weights table; a parameter with no tuned value shows `-`.
fn weight_views(record: &TuneRecord) -> Vec<WeightView> {
    record
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let tuned = record.tuned.get(i).copied();
            let near = |bound: f64, t: f64| (t - bound).abs() <= 1e-9 * p.range().abs();
            let flag = match tuned {
                Some(t) if near(p.max, t) => "at bound (max)",
                Some(t) if near(p.min, t) => "at bound (min)",
                _ => "",
            };
            WeightView {
                name: p.name.clone(),
                min: num(p.min),
                max: num(p.max),
                start: num(p.value),
                tuned: tuned.map_or("-".into(), num),
                change: tuned.map_or("-".into(), |t| signed(t - p.value)),
                flag,
            }
        })
        .collect()
}

/// The parameters a candidate moved, by name (`all` for SPSA's every-parameter moves).
/// θ after an SPSA iteration, each parameter with its change: `mobility 4.2 (+0.31), …`.
fn theta_moves(record: &TuneRecord, before: &[f64], after: &[f64]) -> String {
    record
        .params
        .iter()
        .zip(after.iter().zip(before))
        .map(|(p, (&now, &was))| format!("{} {now:.2} ({:+.2})", p.name, now - was))
        .collect::<Vec<_>>()
        .join(", ")
}

fn moved_names(record: &TuneRecord, h: &HistoryLine) -> String {
    if record.params.len() > 1 && h.moved.len() == record.params.len() {
        return "all".into();
    }
    h.moved
        .iter()
        .map(|&i| {
            record
                .params
                .get(i)
                .map_or(format!("#{i}"), |p| p.name.clone())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The page's text (what [`write_tune_report`] writes as `index.html`); `charts` are (name,
/// svg text) pairs to inline, as [`tune_svg_charts`] gives them (may be empty).
pub fn render_tune(
    record: &TuneRecord,
    charts: &[(String, String)],
) -> Result<String, TuneReportError> {
    let candidates = record.history.len();
    let accepted = (method(record) == Method::Hill).then(|| {
        let n = record.history.iter().filter(|h| h.accepted).count();
        let rate = if candidates > 0 {
            format!(" ({:.1}%)", 100.0 * n as f64 / candidates as f64)
        } else {
            String::new()
        };
        format!("{n} of {candidates}{rate}")
    });
    let spsa = method(record) == Method::Spsa;
    let start: Vec<f64> = record.params.iter().map(|p| p.value).collect();
    let history: Vec<HistoryView> = record
        .history
        .iter()
        .enumerate()
        .rev()
        .take(HISTORY_ROWS)
        .map(|(i, h)| HistoryView {
            k: h.k,
            moved: if spsa {
                let before = if i == 0 {
                    &start
                } else {
                    &record.history[i - 1].theta
                };
                theta_moves(record, before, &h.theta)
            } else {
                moved_names(record, h)
            },
            pairs: h.pairs,
            wins: h.wins,
            draws: h.draws,
            losses: h.losses,
            elo: elo_text(h.elo, h.elo_error),
            llr: h.llr.map_or(String::new(), |l| format!("{l:.2}")),
            accepted: h.accepted,
        })
        .collect();
    let history_note = if candidates == 0 {
        "No candidate has been tested yet.".to_string()
    } else if spsa {
        format!(
            "{}Every iteration plays θ+ = θ + c·Δ against θ− = θ − c·Δ (W/D/L: θ+'s) and moves θ \
             by that result: nothing is accepted or rejected, and one iteration's score is noise; \
             the trend of θ is the result.",
            if candidates > HISTORY_ROWS {
                format!(
                    "The last {HISTORY_ROWS} of {candidates} iterations, newest first (all in history.jsonl). "
                )
            } else {
                format!("All {candidates} iterations, newest first (also in history.jsonl). ")
            }
        )
    } else if candidates > HISTORY_ROWS {
        format!(
            "The last {HISTORY_ROWS} of {candidates} candidates, newest first; the {} earlier \
             ones are in history.jsonl. Elo: the candidate against what it played, 95% interval.",
            candidates - HISTORY_ROWS
        )
    } else {
        format!(
            "All {candidates} candidates, newest first (also in history.jsonl). Elo: the \
             candidate against what it played, 95% interval."
        )
    };
    let page = TunePage {
        spsa,
        name: &record.name,
        game: &record.game,
        method: &record.method,
        engine: &record.engine,
        opponent: &record.opponent,
        seed: record.seed,
        candidates,
        accepted,
        games: record.games,
        time: duration(record.seconds),
        weights_file: &record.weights_file,
        confirmation: record.confirmation.as_ref().map(|m| match_view(m, false)),
        aa: record.aa.as_ref().map(|m| match_view(m, true)),
        weights: weight_views(record),
        charts: charts
            .iter()
            .map(|(name, svg)| ChartView {
                name: name.clone(),
                svg: svg.clone(),
            })
            .collect(),
        history,
        history_note,
        style: STYLE,
    };
    Ok(page.render()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sprt::Sprt;

    /// A fresh, empty scratch folder, removed when dropped (even when a check fails).
    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("joute-tune-report-{name}-"))
            .tempdir()
            .unwrap()
    }

    fn params(hostile: bool) -> Vec<Param> {
        vec![
            Param::new("corners", 30.0, 0.0, 60.0, 4.0),
            Param::new(
                if hostile {
                    "<script>alert(1)</script>"
                } else {
                    "mobility"
                },
                5.0,
                0.0,
                20.0,
                1.0,
            ),
            Param::new("parity & \"edges\"", 3.0, 0.0, 6.0, 0.5),
        ]
    }

    fn confirmation(elo: f64, error: f64) -> MatchResult {
        MatchResult {
            games: 400,
            wins: 170,
            draws: 90,
            losses: 140,
            pentanomial: [12, 40, 70, 50, 28],
            elo,
            error,
            los: 0.987,
            report: "confirmation/index.html".into(),
        }
    }

    /// A hill climb of 60 candidates, every 7th accepted; the last parameter ends at its max.
    fn hill_record(hostile: bool) -> TuneRecord {
        let params = params(hostile);
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
            model: Default::default(),
        };
        let mut theta: Vec<f64> = params.iter().map(|p| p.value).collect();
        let mut steps: Vec<f64> = params.iter().map(|p| p.step).collect();
        let mut history = Vec::new();
        let mut games_total = 0;
        for k in 1..=60u64 {
            let i = (k as usize) % params.len();
            let accepted = k.is_multiple_of(7);
            let mut candidate = theta.clone();
            candidate[i] = params[i].clamp(candidate[i] + steps[i]);
            let opponent = theta.clone();
            if accepted {
                theta = candidate.clone();
                steps[i] *= 1.25;
            } else if k.is_multiple_of(5) {
                steps[i] *= 0.5;
            }
            let pairs = 20 + k % 13;
            games_total += 2 * pairs;
            history.push(HistoryLine {
                k,
                method: "hill-climb".into(),
                candidate,
                opponent,
                moved: vec![i],
                pairs,
                games: 2 * pairs,
                wins: pairs / 2 + pairs / 4 + k % 3,
                draws: pairs / 2,
                losses: 2 * pairs - pairs / 2 - (pairs / 2 + pairs / 4 + k % 3),
                pentanomial: [1, 3, pairs - 9, 3, 2],
                llr: Some(if accepted {
                    3.1
                } else {
                    -3.0 + (k % 11) as f64 * 0.4
                }),
                elo: if accepted {
                    15.0 + k as f64 / 10.0
                } else {
                    -4.0
                },
                elo_error: 12.5,
                accepted,
                theta: theta.clone(),
                steps: steps.clone(),
                games_total,
                seconds: k as f64 * 2.5,
            });
        }
        let mut tuned = theta;
        tuned[2] = params[2].max;
        TuneRecord {
            name: if hostile {
                "<script>alert(1)</script>".into()
            } else {
                "othello-hill".into()
            },
            game: "othello".into(),
            method: "hill-climb".into(),
            engine: "alphabeta depth 3".into(),
            opponent: "incumbent".into(),
            seed: 42,
            params,
            tuned,
            sprt: Some(sprt),
            history,
            confirmation: Some(confirmation(23.4, 11.2)),
            aa: Some(confirmation(1.5, 9.0)),
            weights_file: "weights/othello-tuned.toml".into(),
            games: games_total + 400 + 400,
            seconds: 3725.0,
        }
    }

    /// An SPSA run of 30 iterations, no confirmation yet.
    fn spsa_record() -> TuneRecord {
        let params = params(false);
        let mut theta: Vec<f64> = params.iter().map(|p| p.value).collect();
        let mut history = Vec::new();
        for k in 1..=30u64 {
            let c: Vec<f64> = params
                .iter()
                .map(|p| p.step * 2.0 / (k as f64).powf(0.101))
                .collect();
            for (j, (x, p)) in theta.iter_mut().zip(&params).enumerate() {
                *x = p.clamp(
                    *x + if (k + j as u64).is_multiple_of(3) {
                        -0.4
                    } else {
                        0.3
                    },
                );
            }
            history.push(HistoryLine {
                k,
                method: "spsa".into(),
                candidate: theta.iter().zip(&c).map(|(x, c)| x + c).collect(),
                opponent: theta.iter().zip(&c).map(|(x, c)| x - c).collect(),
                moved: (0..params.len()).collect(),
                pairs: 8,
                games: 16,
                wins: 6,
                draws: 4,
                losses: 6,
                pentanomial: [1, 1, 4, 1, 1],
                llr: None,
                elo: 0.0,
                elo_error: 60.0,
                accepted: false,
                theta: theta.clone(),
                steps: c,
                games_total: 16 * k,
                seconds: k as f64,
            });
        }
        TuneRecord {
            name: "othello-spsa".into(),
            game: "othello".into(),
            method: "spsa".into(),
            engine: "alphabeta depth 2".into(),
            opponent: "pool: random, alphabeta depth 1".into(),
            seed: 7,
            tuned: theta,
            params,
            sprt: None,
            history,
            confirmation: None,
            aa: None,
            weights_file: "weights/spsa.toml".into(),
            games: 480,
            seconds: 42.0,
        }
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

    /// Writes the report of `record` into a scratch folder and checks every file: the charts
    /// `expected`, each PNG decoding at its size and not blank, each SVG as in memory, no
    /// temporary file left. Returns index.html's text.
    fn check_report(record: &TuneRecord, expected: &[&str], name: &str) -> String {
        let scratch = scratch(name);
        let dir = scratch.path().to_path_buf();
        let written = write_tune_report(record, &dir).unwrap();
        assert_eq!(tune_chart_names(record), expected);
        let mut want: Vec<PathBuf> = expected
            .iter()
            .flat_map(|c| [dir.join(format!("{c}.png")), dir.join(format!("{c}.svg"))])
            .collect();
        want.push(dir.join("index.html"));
        assert_eq!(written, want);
        let mut on_disk: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        on_disk.sort();
        want.sort();
        assert_eq!(on_disk, want, "only the report's files, no temporary ones");

        let svgs = tune_svg_charts(record).unwrap();
        let names: Vec<&str> = svgs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, expected);
        for (kind, (chart, svg)) in kinds(record).into_iter().zip(&svgs) {
            let (w, h, variance) = decode(&dir.join(format!("{chart}.png")));
            let (sw, sh) = kind.size(record);
            assert_eq!(
                (w, h),
                (2 * sw, 2 * sh),
                "{chart}: the SVG at twice its size"
            );
            assert!(variance > 100.0, "{chart}: blank? grey variance {variance}");
            let on_disk = std::fs::read_to_string(dir.join(format!("{chart}.svg"))).unwrap();
            assert_eq!(
                &on_disk, svg,
                "{chart}: the SVG written is the one in memory"
            );
            assert!(svg.starts_with("<svg"), "{chart}");
        }
        let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert_eq!(html, render_tune(record, &svgs).unwrap());
        html
    }

    /// How plotters' SVG backend writes `s` in a text element.
    fn svg_escaped(s: &str) -> String {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&apos;")
    }

    #[test]
    fn hill_climb_charts_files_and_page() {
        let record = hill_record(false);
        let html = check_report(
            &record,
            &["tune-elo", "tune-weights", "tune-steps", "tune-llr"],
            "hill",
        );
        // Summary and confirmation.
        assert!(html.contains("<title>joute tuning — othello-hill</title>"));
        assert!(html.contains("alphabeta depth 3"));
        assert!(html.contains("8 of 60 (13.3%)"), "accepted");
        assert!(html.contains("1 h 02 min"), "time");
        assert!(html.contains("Elo <b>+23.4 ± 11.2</b> (95%), LOS 98.7%, W/D/L 170/90/140"));
        assert!(html.contains("LL 12, LD 40, WL+DD 70, WD 50, WW 28, 400 games"));
        assert!(html.contains("confirmed: the 95% interval is above 0."));
        assert!(html.contains(r#"<a href="confirmation/index.html">"#));
        assert!(html.contains("consistent with 0"), "A/A verdict");
        // Every parameter's row, the last one flagged at its max.
        for p in &record.params {
            let name = askama_escaped(&p.name);
            assert!(
                html.contains(&format!("<td class=\"name\">{name}</td>")),
                "{name}"
            );
        }
        assert_eq!(html.matches("at bound (max)").count(), 1);
        assert!(html.contains("<td class=\"flag\">at bound (max)</td>"));
        // History: all 60, newest first, with the moved parameter by name.
        let newest = html.find("<td>60</td>").unwrap();
        let oldest = html.find("<tr><td>1</td>").unwrap();
        assert!(newest < oldest);
        assert!(html.contains("All 60 candidates"));
        // Charts inlined, every parameter named in the weights and steps charts.
        let svgs = tune_svg_charts(&record).unwrap();
        for (chart, svg) in &svgs {
            assert!(html.contains(svg.as_str()), "{chart} inlined");
            if chart == "tune-weights" || chart == "tune-steps" {
                for p in &record.params {
                    assert!(svg.contains(&svg_escaped(&p.name)), "{chart}: {}", p.name);
                }
            }
        }
        let llr = &svgs[3].1;
        let sprt = record.sprt.unwrap();
        assert!(llr.contains(&format!("{:.2}", sprt.upper())));
        assert!(llr.contains(&format!("{:.2}", sprt.lower())));
        assert!(svgs[0].1.contains("confirmed 23.4 ± 11.2"));
        assert!(svgs[0].1.contains("over-estimates"));
    }

    /// How askama writes `s` in text.
    fn askama_escaped(s: &str) -> String {
        s.replace('&', "&#38;")
            .replace('<', "&#60;")
            .replace('>', "&#62;")
            .replace('"', "&#34;")
            .replace('\'', "&#39;")
    }

    #[test]
    fn spsa_charts_files_and_page() {
        let record = spsa_record();
        let html = check_report(&record, &["tune-weights", "tune-steps"], "spsa");
        assert!(html.contains("No confirmation match has been played."));
        // An iteration is no candidate: no Elo, no verdict, but θ and where it moved.
        for header in ["<th>Accepted</th>", "<th>Elo</th>", "<th>LLR</th>"] {
            assert!(!html.contains(header), "{header} in an SPSA history");
        }
        assert!(html.contains("<th>θ after (change)</th>"));
        assert!(html.contains("nothing is accepted or rejected"));
        // The newest iteration's θ with the change from the one before, computed here.
        let last = &record.history[29];
        let before = &record.history[28];
        let expected = record
            .params
            .iter()
            .zip(last.theta.iter().zip(&before.theta))
            .map(|(p, (now, was))| {
                format!("{} {now:.2} ({:+.2})", askama_escaped(&p.name), now - was)
            })
            .collect::<Vec<_>>()
            .join(", ");
        assert!(html.contains(&expected), "{expected}");
        for (chart, svg) in tune_svg_charts(&record).unwrap() {
            for p in &record.params {
                assert!(svg.contains(&svg_escaped(&p.name)), "{chart}: {}", p.name);
            }
        }
    }

    #[test]
    fn svg_is_byte_stable() {
        let record = hill_record(false);
        assert_eq!(
            tune_svg_charts(&record).unwrap(),
            tune_svg_charts(&record).unwrap()
        );
    }

    #[test]
    fn hostile_names_are_escaped() {
        let record = hill_record(true);
        let svgs = tune_svg_charts(&record).unwrap();
        for (chart, svg) in &svgs {
            assert!(!svg.contains("<script"), "{chart}");
            assert!(!svg.contains("parity & "), "{chart}: a bare &");
        }
        let html = render_tune(&record, &svgs).unwrap();
        assert!(!html.contains("<script"), "no script at all in the page");
        assert!(!html.contains("parity & "));
        let hostile = askama_escaped("<script>alert(1)</script>");
        assert_eq!(hostile, "&#60;script&#62;alert(1)&#60;/script&#62;");
        assert!(html.contains(&format!("<title>joute tuning — {hostile}</title>")));
        assert!(html.contains(&format!("<td class=\"name\">{hostile}</td>")));
        assert!(html.contains(&format!("<td class=\"moved\">{hostile}</td>")));
        assert!(html.contains(&askama_escaped("parity & \"edges\"")));
        assert!(svgs[1].1.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    #[test]
    fn empty_history_and_no_confirmation() {
        let mut record = hill_record(false);
        record.history.clear();
        record.confirmation = None;
        record.aa = None;
        record.tuned = record.params.iter().map(|p| p.value).collect();
        let html = check_report(
            &record,
            &["tune-elo", "tune-weights", "tune-steps"],
            "empty",
        );
        assert!(html.contains("No confirmation match has been played."));
        assert!(html.contains("No candidate has been tested yet."));
        assert!(html.contains("0 of 0"));
        assert!(!html.contains("class=\"flag\">at bound"));
        assert!(!html.contains("class=\"at-bound\""));

        let mut spsa = spsa_record();
        spsa.history.clear();
        check_report(&spsa, &["tune-weights"], "empty-spsa");

        // A confirmation without history: the point at 0 games.
        record.confirmation = Some(confirmation(-30.0, 12.0));
        let html = check_report(
            &record,
            &["tune-elo", "tune-weights", "tune-steps"],
            "confirmed-only",
        );
        assert!(html.contains("not confirmed: the 95% interval is below 0"));
    }

    #[test]
    fn long_history_shows_the_newest_200() {
        let mut record = hill_record(false);
        let template = record.history[0].clone();
        record.history = (1..=250u64)
            .map(|k| HistoryLine {
                k,
                ..template.clone()
            })
            .collect();
        let html = render_tune(&record, &[]).unwrap();
        assert!(html.contains("The last 200 of 250 candidates"));
        assert!(html.contains("the 50 earlier ones are in history.jsonl"));
        assert!(html.contains("<td>250</td>"));
        assert!(html.contains("<td>51</td>"));
        assert!(!html.contains("<td>50</td>"));
        assert!(html.contains("No charts."));
    }

    #[test]
    fn running_sum_and_acceptance() {
        let record = hill_record(false);
        let path = running_elo(&record.history);
        let sum: f64 = record
            .history
            .iter()
            .filter(|h| h.accepted)
            .map(|h| h.elo)
            .sum();
        assert_eq!(path.first(), Some(&(0.0, 0.0)));
        let last = path.last().unwrap();
        assert_eq!(last.0, record.history.last().unwrap().games_total as f64);
        assert!((last.1 - sum).abs() < 1e-9);
        // Steps only: x never decreases.
        assert!(path.windows(2).all(|w| w[0].0 <= w[1].0));
        assert_eq!(running_elo(&[]), vec![(0.0, 0.0), (0.0, 0.0)]);

        let rates = rolling_acceptance(&record.history);
        assert_eq!(rates.len(), 60);
        assert_eq!(rates[6], (7.0, 100.0 / 7.0));
        // Candidates 41..=60: 42, 49, 56 accepted.
        assert_eq!(rates[59], (60.0, 15.0));
    }

    #[test]
    fn formatting() {
        assert_eq!(num(30.0), "30");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1.0 / 3.0), "0.3333");
        assert_eq!(signed(1.5), "+1.5");
        assert_eq!(signed(-2.0), "-2");
        assert_eq!(signed(0.0), "0");
        assert_eq!(duration(42.0), "42.0 s");
        assert_eq!(duration(725.0), "12 min 05 s");
        assert_eq!(duration(3725.0), "1 h 02 min");
        assert_eq!(duration(2.0 * 86_400.0 + 3725.0), "2 d 01 h 02 min");
        assert_eq!(
            relative_link("confirm/index.html").as_deref(),
            Some("confirm/index.html")
        );
        assert_eq!(relative_link("javascript:alert(1)"), None);
        assert_eq!(relative_link("//evil.example/x"), None);
        assert_eq!(relative_link(""), None);
    }
}

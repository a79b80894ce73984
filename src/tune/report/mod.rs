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
//! charts ([`crate::report::charts`]: the embedded DejaVu font, the same colours, PNG and SVG written
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

use crate::outputs::write_atomically;
use crate::report::charts::{
    AXIS, BOUND, ChartError, Drawn, LABEL, POINT, TITLE, error_of, font, padded, register_fonts,
    svg_text, text, whole, write_png, write_svg,
};
use crate::tune::aa::AaVerdict;
use crate::tune::optimise::params::Param;
use crate::tune::record::{HistoryLine, MatchResult, SideCost, TuneRecord};

mod data;
mod draw;
mod page;

use data::*;
use draw::*;
use page::*;
pub use page::{render_tune, render_tune_live};

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
    #[error("{}: cannot write the tuning report: {cause}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        cause: std::io::Error,
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
    std::fs::create_dir_all(dir).map_err(|cause| TuneReportError::Io {
        path: dir.to_path_buf(),
        cause,
    })?;
    let svgs = tune_svg_charts(record)?;
    let mut paths = Vec::new();
    for (name, svg) in &svgs {
        paths.push(write_png(dir, name, svg)?);
        paths.push(write_svg(dir, name, svg)?);
    }
    let html = render_tune(record, &svgs)?;
    let path = dir.join("index.html");
    write_atomically(&path, html.as_bytes()).map_err(|cause| TuneReportError::Io {
        path: path.clone(),
        cause,
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

#[cfg(test)]
mod tests;

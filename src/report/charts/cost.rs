//! The cost charts: strength against cost (`elo-by-nodes`, `elo-by-time`: each engine's Elo
//! against its mean nodes or time per move, log scale, the frontier drawn) and cost by move
//! number (`nodes-by-ply`, `time-by-ply`), with their log axes.

use super::labels::*;
use super::*;

/// What a cost chart measures a move by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Measure {
    /// Nodes searched.
    Nodes,
    /// Wall-clock milliseconds.
    Time,
}

impl Measure {
    /// An engine's mean per move.
    pub(super) fn mean(self, figures: &CostFigures) -> Option<f64> {
        match self {
            Measure::Nodes => figures.nodes_mean,
            Measure::Time => figures.ms_mean,
        }
    }

    /// The mean per move at one ply, and the moves it is the mean of.
    pub(super) fn at_ply(self, ply: &PlyCost) -> Option<(f64, u64)> {
        match self {
            Measure::Nodes => ply.mean_nodes().map(|m| (m, ply.counted)),
            Measure::Time => ply.mean_ms().map(|m| (m, ply.timed)),
        }
    }

    /// The least value a log axis shows: one node; one microsecond, the log's resolution (a
    /// mean under it, the moves of a random mover, is drawn there and said so).
    pub(super) fn floor(self) -> f64 {
        match self {
            Measure::Nodes => 1.0,
            Measure::Time => 0.001,
        }
    }

    /// What the axis shows.
    pub(super) fn axis(self) -> &'static str {
        match self {
            Measure::Nodes => "mean nodes per move (log scale)",
            Measure::Time => "mean wall time per move (log scale)",
        }
    }

    /// Why an engine is not on the chart.
    pub(super) fn lacking(self) -> &'static str {
        match self {
            Measure::Nodes => "no node counts",
            Measure::Time => "no timed moves",
        }
    }

    /// A tick's text: `500`, `20k`, `3M` nodes; `2 µs`, `50 ms`, `1 s`.
    pub(super) fn tick(self, value: f64) -> String {
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
pub(super) fn short_number(value: f64) -> String {
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
pub(super) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
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
pub(super) fn log_axis(values: impl Iterator<Item = f64>) -> (std::ops::Range<f64>, Vec<f64>) {
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
pub(super) struct LogAxis {
    pub(super) linear: plotters::coord::types::RangedCoordf64,
    pub(super) ticks: Vec<f64>,
}

impl LogAxis {
    pub(super) fn new((range, ticks): (std::ops::Range<f64>, Vec<f64>)) -> LogAxis {
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
pub(super) fn mean_costs(summary: &Summary, measure: Measure) -> Vec<Option<f64>> {
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
pub(super) const PLY_SHARE: u64 = 10;

/// One engine's line of a cost by ply chart: (engine, [(ply, mean)]).
pub(super) type PlyLine = (usize, Vec<(i32, f64)>);

/// Each engine's mean cost per move at each ply it has enough moves at ([`PLY_SHARE`]):
/// (engine, [(ply, mean)]) for the engines with a point, and how many (engine, ply) means
/// were left out for want of moves.
pub(super) fn ply_series(summary: &Summary, measure: Measure) -> (Vec<PlyLine>, usize) {
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
pub(super) fn engine_style(i: usize) -> (RGBColor, Option<(u32, u32)>) {
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
pub(super) fn name_list(names: &[&str], room: usize) -> String {
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

/// The frontier's colour.
pub(super) const FRONTIER: RGBColor = RGBColor(40, 150, 70);
/// The colour of notes and leader lines.
pub(super) const NOTE: RGBColor = RGBColor(90, 90, 90);

/// What a legend entry of a strength-against-cost chart shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sample {
    /// A point with its interval.
    Interval,
    /// A bound's triangle.
    Bound,
    /// The frontier's line.
    Frontier,
}

/// A row of legend entries centred in `root`, its middle `y` pixels from the top.
pub(super) fn legend_row<DB: DrawingBackend>(
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
pub(super) fn bold(size: u32) -> TextStyle<'static> {
    (FAMILY, size)
        .into_font()
        .style(FontStyle::Bold)
        .color(&BLACK)
}

/// One engine on a strength-against-cost chart.
pub(super) struct CostPoint {
    pub(super) engine: usize,
    /// The cost, as measured (0 included).
    pub(super) cost: f64,
    pub(super) elo: f64,
    /// Half-width of the drawn interval (0 for a bound).
    pub(super) error: f64,
    pub(super) bound: Option<Bound>,
}

pub(super) fn draw_elo_by_cost<DB: DrawingBackend>(
    summary: &Summary,
    ratings: &Ratings,
    measure: Measure,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
    let names = summary.spec.engine_names();
    let costs = mean_costs(summary, measure);
    let (points, no_cost, no_rating) = cost_points(&names, &costs, ratings);
    let floor = measure.floor();
    let below_floor: Vec<&str> = points
        .iter()
        .filter(|p| p.cost < floor)
        .map(|p| names[p.engine].as_str())
        .collect();
    let on_frontier = cost_frontier(&points, names.len());

    // The Elo axis fits the estimates with their intervals; a bound outside it is drawn at
    // its edge, pointing out (as in the `elo` chart).
    let y_range = elo_range(&points);
    let (bottom, top) = (y_range.start, y_range.end);
    let shown_at = |elo: f64| edge_position(elo, bottom, top, 0.03);
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
    let notes = cost_notes(measure, &no_cost, &no_rating, &below_floor);
    let note_height = 18 * notes.len() as i32;
    let (legend_area, rest) = area.split_vertically(26);
    let chart_area = rest.margin(0, 8 + note_height, 15, 20);

    let mut chart = ChartBuilder::on(&chart_area)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(LogAxis::new((x_range, ticks)), y_range.clone())
        .map_err(text)?;
    mesh(&mut chart)
        .x_desc(measure.axis())
        .y_desc(elo_axis(summary))
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
    draw_cost_marks(&mut chart, &points, &x_of, &shown_at)?;

    // The names, placed clear of each other, of the points and of the bars.
    draw_cost_labels(
        root,
        &chart,
        &points,
        &names,
        &on_frontier,
        &frontier_points,
        &x_of,
        &y_of,
    )?;

    // The legend, under the title.
    let entries = cost_legend_entries(&points);
    legend_row(&legend_area, 12, &entries)?;

    draw_notes(root, &notes, note_height)
}

/// The engines (indices below `engines`) on the frontier of `points` ([`frontier`]), by
/// increasing cost.
fn cost_frontier(points: &[CostPoint], engines: usize) -> Vec<usize> {
    let mut pairs = vec![None; engines];
    for p in points {
        pairs[p.engine] = Some((p.cost, p.elo));
    }
    frontier(&pairs)
}

/// The Elo axis of a strength-against-cost chart: it fits the estimates with their intervals
/// (or the bounds, when every point is one), padded.
fn elo_range(points: &[CostPoint]) -> std::ops::Range<f64> {
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
    padded(lo, hi, 0.1)
}

/// The engines' names on a strength-against-cost chart, placed clear of each other, of the
/// points, of the bars and of the frontier, bold on the frontier; a bound's name says its
/// value. `x_of`, `y_of`: a point's place in the chart's coordinates.
#[allow(clippy::too_many_arguments)]
fn draw_cost_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, Cartesian2d<LogAxis, plotters::coord::types::RangedCoordf64>>,
    points: &[CostPoint],
    names: &[String],
    on_frontier: &[usize],
    frontier_points: &[(f64, f64)],
    x_of: &dyn Fn(&CostPoint) -> f64,
    y_of: &dyn Fn(&CostPoint) -> f64,
) -> Drawn {
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
    for p in points {
        let (w, h) = root
            .estimate_text_size(&label_of(p), &style_of(p))
            .map_err(text)?;
        sizes.push((f64::from(w) + 2.0, f64::from(h) + 2.0));
    }
    let (obstacles, bars) = label_obstacles(
        points,
        &anchors,
        frontier_points,
        |(p, elo)| chart.backend_coord(&(x_of(p), elo)),
        |xy| chart.backend_coord(&xy),
    );
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let plot = PixelRect {
        left: f64::from(xs.start) + 2.0,
        top: f64::from(ys.start) + 2.0,
        right: f64::from(xs.end) - 2.0,
        bottom: f64::from(ys.end) - 2.0,
    };
    let placed = place_labels(&anchors, &sizes, &obstacles, &bars, plot);
    draw_placed_labels(root, points, &anchors, &placed, &label_of, &style_of)
}

/// The marks of a strength-against-cost chart: each estimate's interval (a bar with end
/// ticks) and point, and each bound's arrow, at `shown_at` on the Elo axis, pointing the way
/// the bound goes. `x_of`: a point's place on the (log) cost axis.
fn draw_cost_marks<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<LogAxis, plotters::coord::types::RangedCoordf64>>,
    points: &[CostPoint],
    x_of: &dyn Fn(&CostPoint) -> f64,
    shown_at: &dyn Fn(f64) -> (f64, i8),
) -> Drawn {
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
    Ok(())
}

/// Draws each point's name in the spot placed for it, with a leader line from the point when
/// the spot is away from it.
fn draw_placed_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    points: &[CostPoint],
    anchors: &[(f64, f64)],
    placed: &[Placed],
    label_of: &dyn Fn(&CostPoint) -> String,
    style_of: &dyn Fn(&CostPoint) -> TextStyle<'static>,
) -> Drawn {
    for ((p, anchor), spot) in points.iter().zip(anchors).zip(placed) {
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

    Ok(())
}

/// The engines a strength-against-cost chart draws, with both a cost and a finite Elo, and
/// the names of those left out: without a cost, and with a cost but no rating.
fn cost_points<'a>(
    names: &'a [String],
    costs: &[Option<f64>],
    ratings: &Ratings,
) -> (Vec<CostPoint>, Vec<&'a str>, Vec<&'a str>) {
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
    (points, no_cost, no_rating)
}

/// The notes at the foot of a strength-against-cost chart: the engines left out (without a
/// cost, without a rating) and those drawn at the floor of the log's resolution.
fn cost_notes(
    measure: Measure,
    no_cost: &[&str],
    no_rating: &[&str],
    below_floor: &[&str],
) -> Vec<String> {
    let mut notes = Vec::new();
    if !no_cost.is_empty() {
        notes.push(format!(
            "Left out ({}): {}",
            measure.lacking(),
            name_list(no_cost, 90)
        ));
    }
    if !no_rating.is_empty() {
        notes.push(format!(
            "Left out (no rating): {}",
            name_list(no_rating, 90)
        ));
    }
    if !below_floor.is_empty() {
        notes.push(format!(
            "Under 1 µs a move (the log's resolution), drawn at 1 µs: {}",
            name_list(below_floor, 70)
        ));
    }
    notes
}

/// What the names on a strength-against-cost chart keep clear of, with how much each costs a
/// name over it: the points (`anchors`, in pixels), the interval bars and small boxes along the
/// frontier; and the bars themselves, for leader lines. `pixel_of((point, elo))`: where the
/// point's cost at that Elo is drawn.
fn label_obstacles(
    points: &[CostPoint],
    anchors: &[(f64, f64)],
    frontier_points: &[(f64, f64)],
    pixel_of: impl Fn((&CostPoint, f64)) -> (i32, i32),
    frontier_pixel: impl Fn((f64, f64)) -> (i32, i32),
) -> (Vec<(PixelRect, f64)>, Vec<PixelRect>) {
    let mut obstacles: Vec<(PixelRect, f64)> = anchors
        .iter()
        .map(|&a| (PixelRect::around(a, (7.0, 7.0)), 10.0))
        .collect();
    let mut bars = Vec::new();
    for p in points.iter().filter(|p| p.error > 0.0) {
        let x = f64::from(pixel_of((p, p.elo)).0);
        let (_, y0) = pixel_of((p, p.elo + p.error));
        let (_, y1) = pixel_of((p, p.elo - p.error));
        let rect = PixelRect {
            left: x - 5.0,
            top: f64::from(y0) - 2.0,
            right: x + 5.0,
            bottom: f64::from(y1) + 2.0,
        };
        obstacles.push((rect, 10.0));
        // For leader lines, the bar itself (its line is 2 pixels wide).
        bars.push(PixelRect {
            left: x - 2.0,
            right: x + 2.0,
            ..rect
        });
    }
    // The frontier, as small boxes along it: a name across the line is legible, but less so.
    for w in frontier_points.windows(2) {
        let a = frontier_pixel(w[0]);
        let b = frontier_pixel(w[1]);
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
            obstacles.push((PixelRect::around(at, (3.0, 3.0)), 1.0));
        }
    }
    (obstacles, bars)
}

/// The legend of a strength-against-cost chart: intervals, bounds if any is drawn, the frontier.
fn cost_legend_entries(points: &[CostPoint]) -> Vec<(Sample, String)> {
    let mut entries = vec![(Sample::Interval, "Elo, 95% interval".to_string())];
    if points.iter().any(|p| p.bound.is_some()) {
        entries.push((Sample::Bound, "bound (won or lost every game)".to_string()));
    }
    entries.push((
        Sample::Frontier,
        "frontier (names in bold): no other engine is stronger at a lower or equal cost"
            .to_string(),
    ));
    entries
}

/// Writes `notes` at the foot of `root`, one line each, in the `note_height` pixels kept for
/// them.
pub(super) fn draw_notes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    notes: &[String],
    note_height: i32,
) -> Drawn {
    let (_, height) = root.dim_in_pixel();
    for (k, note) in notes.iter().enumerate() {
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

pub(super) fn draw_cost_by_ply<DB: DrawingBackend>(
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
    let notes = ply_notes(&names, &series, measure, left_out, floored);
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
    mesh(&mut chart)
        .x_desc("ply (move number in the game, the opening's plies counted)")
        .y_desc(measure.axis())
        .x_labels(((last - first + 3) as usize).clamp(2, 20))
        .y_label_formatter(&|t| measure.tick(10f64.powf(*t)))
        .draw()
        .map_err(text)?;

    draw_ply_lines(&mut chart, &series, floor)?;

    draw_ply_legend(&legend_area, &series, &names)?;

    draw_notes(root, &notes, note_height)
}

/// The notes under a cost by ply chart: the engines left out, the points not drawn, the
/// means drawn at the floor.
fn ply_notes(
    names: &[String],
    series: &[PlyLine],
    measure: Measure,
    left_out: usize,
    floored: bool,
) -> Vec<String> {
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
    notes
}

/// Each engine's line of a cost by ply chart in its colour and dash (a lone point as a dot),
/// means under `floor` drawn at it.
fn draw_ply_lines<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<plotters::coord::types::RangedCoordi32, LogAxis>>,
    series: &[PlyLine],
    floor: f64,
) -> Drawn {
    for (i, points) in series {
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
    Ok(())
}

/// The legend of a cost by ply chart: one row per engine, its line's style and its name.
fn draw_ply_legend<DB: DrawingBackend>(
    legend_area: &DrawingArea<DB, Shift>,
    series: &[PlyLine],
    names: &[String],
) -> Drawn {
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
        let obstacles: Vec<(PixelRect, f64)> = points
            .iter()
            .map(|&p| (PixelRect::around(p, (7.0, 7.0)), 10.0))
            .collect();
        let area = PixelRect {
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
        let r = PixelRect {
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

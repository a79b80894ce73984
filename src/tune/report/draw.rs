//! The charts of a tuning run, drawn with plotters.

use super::*;

pub(super) fn draw<DB: DrawingBackend>(
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

/// Distinct colours for the parameters' lines (Tableau 10, readable on white).
pub(super) const PARAM_COLOURS: [RGBColor; 10] = [
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
pub(super) fn colour(i: usize) -> RGBColor {
    PARAM_COLOURS.get(i).copied().unwrap_or_else(|| {
        let (r, g, b) = Palette99::pick(i).rgb();
        RGBColor(r, g, b)
    })
}

/// A parameter's name for a legend, cut to [`LEGEND_NAME`] characters.
pub(super) fn short_name(name: &str) -> String {
    if name.chars().count() > LEGEND_NAME {
        let cut: String = name.chars().take(LEGEND_NAME - 1).collect();
        format!("{cut}…")
    } else {
        name.to_string()
    }
}

/// The legend column of the weights and steps charts: `name (min..max)` per parameter, and the
/// acceptance rate's line for hill climbing's steps.
pub(super) fn legend_labels(kind: Kind, record: &TuneRecord) -> Vec<String> {
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
pub(super) fn legend_width(labels: &[String]) -> u32 {
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as u32;
    (longest * LABEL * 62 / 100 + 50).clamp(160, 380)
}

/// Draws a legend column into `area`: a key line (colour, width) and a label per entry.
pub(super) fn draw_legend<DB: DrawingBackend>(
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
pub(super) fn last_k(record: &TuneRecord) -> f64 {
    record.history.last().map_or(1.0, |h| h.k.max(1) as f64)
}

pub(super) fn draw_elo<DB: DrawingBackend>(
    record: &TuneRecord,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
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
pub(super) fn draw_param_lines<DB: DrawingBackend>(
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
pub(super) fn param_entries(kind: Kind, record: &TuneRecord) -> Vec<(String, RGBColor, u32)> {
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

pub(super) fn draw_weights<DB: DrawingBackend>(
    record: &TuneRecord,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
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
        format!(
            "{}: {} (% of each range)",
            record.name,
            if record.outside.is_some() {
                "options"
            } else {
                "weights"
            }
        ),
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

pub(super) fn draw_steps<DB: DrawingBackend>(
    record: &TuneRecord,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
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

pub(super) fn draw_llr<DB: DrawingBackend>(
    record: &TuneRecord,
    root: &DrawingArea<DB, Shift>,
) -> Drawn {
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

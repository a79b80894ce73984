//! The page of a tuning run: the record formatted for the askama template `tune.html`.

use super::*;
use crate::report::html::ChartView;

/// A confirmation or A/A match, formatted.
pub(super) struct MatchView {
    /// The Elo with its interval, or why it has none ([`MatchResult::elo_text`]).
    pub(super) elo: String,
    /// The Elo has a 95% interval.
    pub(super) interval: bool,
    /// The match was not played: the verdict says why.
    pub(super) skipped: bool,
    pub(super) los: String,
    pub(super) wins: u64,
    pub(super) draws: u64,
    pub(super) losses: u64,
    pub(super) penta: String,
    pub(super) games: u64,
    pub(super) verdict: String,
    /// `good`, `bad` or `warn`: the verdict's colour.
    pub(super) class: &'static str,
    /// The link to the match's own report, when it is a relative path.
    pub(super) report: Option<String>,
    /// What each side's moves cost, one line each: `tuned: 455 nodes/move, depth 4, …`.
    pub(super) cost: Vec<String>,
}

/// One side's cost in words: `pvs-4-tuned: 455 nodes/move, depth 4, 0.52 ms/move, CPU 98%`.
fn side_cost_text(side: &SideCost) -> String {
    use crate::report::cost::{count_text, depth_text, ms_text, share_text};
    let f = &side.figures;
    let mut parts = Vec::new();
    if let Some(n) = f.nodes_mean {
        parts.push(format!("{} nodes/move", count_text(n)));
    }
    if f.depth_mean.is_some() {
        parts.push(format!("depth {}", depth_text(f)));
    }
    if let Some(ms) = f.ms_mean {
        parts.push(format!("{} ms/move", ms_text(ms)));
    }
    if let Some(nps) = f.nodes_per_second {
        parts.push(format!("{} nodes/s", count_text(nps)));
    }
    if let Some(share) = f.cpu_share {
        parts.push(format!("CPU {}", share_text(share)));
    }
    if f.starved > 0 {
        parts.push(format!(
            "{} of {} moves starved of CPU",
            f.starved, f.judged
        ));
    }
    format!("{}: {}", side.engine, parts.join(", "))
}

/// One row of the final weights table.
pub(super) struct WeightView {
    pub(super) name: String,
    pub(super) min: String,
    pub(super) max: String,
    pub(super) start: String,
    pub(super) tuned: String,
    pub(super) change: String,
    /// A tapered fit's endgame weight (`tuned` is then the opening's).
    pub(super) endgame: Option<String>,
    /// `at bound (min)`, `at bound (max)` or empty.
    pub(super) flag: &'static str,
}

/// One row of the history table.
pub(super) struct HistoryView {
    pub(super) k: u64,
    /// Hill climbing: the parameters moved. SPSA: θ after the iteration, with each change.
    pub(super) moved: String,
    pub(super) pairs: u64,
    pub(super) wins: u64,
    pub(super) draws: u64,
    pub(super) losses: u64,
    pub(super) elo: String,
    pub(super) llr: String,
    pub(super) accepted: bool,
}

#[derive(Template)]
#[template(path = "tune.html")]
pub(super) struct TunePage<'a> {
    /// SPSA: the history shows θ, not candidates and verdicts.
    pub(super) spsa: bool,
    pub(super) name: &'a str,
    pub(super) game: &'a str,
    pub(super) method: &'a str,
    pub(super) engine: &'a str,
    pub(super) opponent: &'a str,
    pub(super) seed: u64,
    pub(super) candidates: usize,
    pub(super) accepted: Option<String>,
    pub(super) games: u64,
    pub(super) time: String,
    pub(super) weights_file: &'a str,
    /// An outside program's tuned options, as a tournament spec's table.
    pub(super) options_table: Option<&'a str>,
    /// What an outside program's results depend on, in a sentence.
    pub(super) not_reproducible: Option<String>,
    pub(super) confirmation: Option<MatchView>,
    pub(super) aa: Option<MatchView>,
    pub(super) weights: Vec<WeightView>,
    /// The weights are tapered: `tuned` is the opening vector, `endgame` the other.
    pub(super) tapered: bool,
    pub(super) charts: Vec<ChartView>,
    pub(super) history: Vec<HistoryView>,
    pub(super) history_note: String,
    pub(super) style: &'static str,
    /// The page a live server serves: it follows the run (`templates/tune.js`).
    pub(super) live: bool,
    /// The weights table's heading: `Final weights`, or the current ones of a run under way.
    pub(super) weights_heading: String,
    /// The summary's row of the weights file: `weights written`, or where they will be.
    pub(super) weights_label: String,
    /// The live page's script.
    pub(super) script: &'static str,
}

pub(super) const STYLE: &str = concat!(
    include_str!("../../../templates/report.css"),
    include_str!("../../../templates/tune.css")
);

/// A weight or bound: whole numbers as such, others with up to 4 decimals.
pub(super) fn num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// A change of weight, signed.
pub(super) fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", num(x))
    } else {
        num(x)
    }
}

/// An Elo estimate and its 95% half-width: `+12.3 ± 4.5`.
pub(super) fn elo_text(elo: f64, error: f64) -> String {
    crate::tune::record::elo_interval_text(elo, error)
}

/// Seconds, for a person: `42.0 s`, `12 min 05 s`, `3 h 04 min`, `2 d 03 h 04 min`.
pub(super) fn duration(seconds: f64) -> String {
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
pub(super) fn relative_link(path: &str) -> Option<String> {
    let scheme = path
        .split('/')
        .next()
        .is_some_and(|first| first.contains(':'));
    (!path.is_empty() && !scheme && !path.starts_with("//")).then(|| path.to_string())
}

/// `m` formatted; `aa` picks the A/A verdict (consistent with 0) over the confirmation's
/// (above 0).
pub(super) fn match_view(m: &MatchResult, aa: bool) -> MatchView {
    let (verdict, class) = if let Some(reason) = &m.skipped {
        (format!("not played: {reason}."), "warn")
    } else if !m.has_interval() {
        (
            "no interval: every game pair scored alike (as identical programs do), so the \
             match measures nothing."
                .into(),
            "warn",
        )
    } else if aa {
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
            "not confirmed: the 95% interval is below 0, the tuned values are weaker.".into(),
            "bad",
        )
    } else {
        ("not confirmed: the 95% interval contains 0.".into(), "warn")
    };
    let [ll, ld, even, wd, ww] = m.pentanomial;
    MatchView {
        elo: m.elo_text(),
        interval: m.has_interval(),
        skipped: m.skipped.is_some(),
        los: format!("{:.1}%", 100.0 * m.los),
        wins: m.wins,
        draws: m.draws,
        losses: m.losses,
        penta: format!("LL {ll}, LD {ld}, WL+DD {even}, WD {wd}, WW {ww}"),
        games: m.games,
        verdict,
        class,
        report: relative_link(&m.report),
        cost: m.cost.iter().map(side_cost_text).collect(),
    }
}

/// The final weights table; a parameter with no tuned value shows `-`.
pub(super) fn weight_views(record: &TuneRecord) -> Vec<WeightView> {
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
                // An option: what the program got, and the estimate behind it.
                tuned: match (tuned, record.outside.as_ref().and_then(|o| o.sent.get(i))) {
                    (Some(t), Some(sent)) => crate::tune::record::sent_text(sent, t),
                    (t, _) => t.map_or("-".into(), num),
                },
                change: tuned.map_or("-".into(), |t| signed(t - p.value)),
                endgame: (record.tuned_endgame.as_ref())
                    .map(|e| e.get(i).map_or("-".into(), |&e| num(e))),
                flag,
            }
        })
        .collect()
}

/// The parameters a candidate moved, by name (`all` for SPSA's every-parameter moves).
/// θ after an SPSA iteration, each parameter with its change: `mobility 4.2 (+0.31), …`.
pub(super) fn theta_moves(record: &TuneRecord, before: &[f64], after: &[f64]) -> String {
    record
        .params
        .iter()
        .zip(after.iter().zip(before))
        .map(|(p, (&now, &was))| format!("{} {now:.2} ({:+.2})", p.name, now - was))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn moved_names(record: &TuneRecord, h: &HistoryLine) -> String {
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

/// The live page's script, and the follower it shares with the run's live page.
const SCRIPT: &str = concat!(
    include_str!("../../../templates/tune.js"),
    include_str!("../../../templates/live.js")
);

/// The page's text (what [`write_tune_report`] writes as `index.html`); `charts` are (name,
/// svg text) pairs to inline, as [`tune_svg_charts`] gives them (may be empty).
pub fn render_tune(
    record: &TuneRecord,
    charts: &[(String, String)],
) -> Result<String, TuneReportError> {
    render_page(record, charts, false)
}

/// The page a live server serves for a tuning run ([`render_tune`]'s, marked live, with its
/// script): it listens to `/events` and redraws itself from the page fetched again. A record
/// without a confirmation is a run under way: its weights are the current ones.
pub fn render_tune_live(
    record: &TuneRecord,
    charts: &[(String, String)],
) -> Result<String, TuneReportError> {
    render_page(record, charts, true)
}

/// The page of a tuning run: its summary, its confirmation and A/A matches, its weights, its
/// charts and its latest candidates; `live`: served by `joute serve`, with its script.
fn render_page(
    record: &TuneRecord,
    charts: &[(String, String)],
    live: bool,
) -> Result<String, TuneReportError> {
    let candidates = record.history.len();
    let accepted = accepted_text(record);
    let spsa = method(record) == Method::Spsa;
    let history = history_views(record, spsa);
    let history_note = history_note(candidates, spsa);
    let (weights_heading, weights_label) = weights_headings(record, live, candidates);
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
        options_table: record.outside.as_ref().map(|o| o.options.as_str()),
        not_reproducible: record
            .outside
            .as_ref()
            .and_then(|o| crate::tune::outside::not_reproducible_note(&o.not_reproducible)),
        confirmation: record.confirmation.as_ref().map(|m| match_view(m, false)),
        aa: aa_view(record),
        weights: weight_views(record),
        tapered: record.tuned_endgame.is_some(),
        charts: ChartView::all(charts),
        history,
        history_note,
        style: STYLE,
        live,
        weights_heading,
        weights_label,
        script: SCRIPT,
    };
    Ok(page.render()?)
}

/// For a hill climb: how many candidates were accepted, of how many (with the rate).
fn accepted_text(record: &TuneRecord) -> Option<String> {
    let candidates = record.history.len();
    (method(record) == Method::Hill).then(|| {
        let n = record.history.iter().filter(|h| h.accepted).count();
        let rate = if candidates > 0 {
            format!(" ({:.1}%)", 100.0 * n as f64 / candidates as f64)
        } else {
            String::new()
        };
        format!("{n} of {candidates}{rate}")
    })
}

/// The table of the latest candidates ([`HISTORY_ROWS`]), newest first: for SPSA, what each
/// iteration moved θ by; otherwise what each candidate changed.
fn history_views(record: &TuneRecord, spsa: bool) -> Vec<HistoryView> {
    let start: Vec<f64> = record.params.iter().map(|p| p.value).collect();
    record
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
        .collect()
}

/// What the table of candidates shows, and what its columns mean.
fn history_note(candidates: usize, spsa: bool) -> String {
    if candidates == 0 {
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
    }
}

/// The heading and label of the tuned weights (or options): current ones while a `live` run
/// is under way, final ones after.
fn weights_headings(record: &TuneRecord, live: bool, candidates: usize) -> (String, String) {
    let tuned_what = if record.outside.is_some() {
        "options"
    } else {
        "weights"
    };
    let under_way = live && record.confirmation.is_none();
    if under_way {
        (
            format!(
                "Current {tuned_what} (after {candidates} candidate{}; final when the run ends)",
                if candidates == 1 { "" } else { "s" }
            ),
            format!("{tuned_what} to be written"),
        )
    } else {
        (
            format!("Final {tuned_what}"),
            format!("{tuned_what} written"),
        )
    }
}

/// The A/A match, with the verdict of its check when the run judged it.
fn aa_view(record: &TuneRecord) -> Option<MatchView> {
    record.aa.as_ref().map(|m| {
        let mut view = match_view(m, true);
        // The verdict of the A/A check, when the run judged it (older runs: the interval).
        if let Some(check) = &record.aa_check {
            let (word, class) = match check.verdict {
                AaVerdict::Pass => ("pass", "good"),
                AaVerdict::Fail => ("fail", "bad"),
                AaVerdict::NotMeaningful => ("not meaningful", "warn"),
            };
            view.verdict = format!("{word}: {}", check.reason);
            view.class = class;
        }
        view
    })
}

//! The self-contained HTML report of a run: `index.html`, one file with its styles, scripts,
//! charts (inline SVG) and games inside, so that it opens from disk with no network request.
//!
//! The page is an askama template (`templates/report.html`); its stylesheet and script are plain
//! files (`templates/report.css`, `templates/report.js`) embedded at compile time. Every string
//! that comes from a spec or a log goes through askama's HTML escaping, except the games, which
//! travel as one JSON document in a `<script type="application/json">` block where every `<` is
//! written `\u003c` (so no `</script>` or `<!--` can end or confuse the block). The charts' SVG
//! text is inlined as given: it is produced by joute's own chart code, not read from a log.
//!
//! The script draws the game viewer (Othello, Connect 4, Morpion boards replayed move by move),
//! sorts the tables on a header click, and runs a self-test when the URL fragment asks for one
//! (`index.html#test=game:5,plies:10,sort:elo`), writing its findings as JSON into the hidden
//! `<pre id="selftest">` so that a headless browser's `--dump-dom` can be checked.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use askama::Template;

use super::cost::{cost_columns, cost_legend, cost_rows, starved_warning};
use super::summary::{FAILURES, Summary};
use super::table::{
    RatingRow, RatingScale, finite_estimate, fixed, rating_rows, terminations_footer,
};
use crate::arena::log::{IdSet, scan_log};
use crate::arena::spec::{OpeningSource, ResolvedSpec};
use crate::games::GameKind;
use crate::stats::ratings::Ratings;

/// What the run's record (`run.json`) adds to its logs: how long the run took, for the
/// report's timing line (the totals over every session, and the sessions themselves when there
/// was more than one: a resumed or extended run), and the names outside engines gave themselves.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// Games played.
    pub games: u64,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// Worker threads (the last session's).
    pub threads: usize,
    /// Every session, first to last (may be empty).
    pub sessions: Vec<crate::arena::log::Session>,
    /// The names outside engines gave themselves, by the spec's engine name.
    pub reported_names: std::collections::BTreeMap<String, String>,
    /// What held each outside engine (its confinement, limits, pausing, restarts), by the
    /// spec's engine name, one line each.
    pub engines_held: std::collections::BTreeMap<String, Vec<String>>,
}

/// One session of the run, for the timing table.
struct SessionView {
    started: String,
    games: u64,
    seconds: String,
    threads: usize,
    ended: String,
}

/// The sequential test's section.
struct SprtView {
    elo0: String,
    elo1: String,
    bounds: String,
    alpha: String,
    beta: String,
    model: &'static str,
    llr: String,
    llr_bounds: String,
    pairs: u64,
    verdict: String,
    class: &'static str,
    /// The state in a few words, for the progress line.
    short: String,
}

/// Why the report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    /// Reading a log failed.
    #[error("{0}")]
    Log(String),
    /// The template failed to render.
    #[error("cannot render the HTML report: {0}")]
    Render(#[from] askama::Error),
    /// Writing the file failed.
    #[error("{path}: cannot write the HTML report: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        cause: std::io::Error,
    },
}

/// One engine of the spec, for the spec table.
struct EngineView {
    name: String,
    algorithm: String,
    depth: String,
    budget: String,
    /// When a built-in engine's solver takes over (`from 20 empties`, `never`); empty for an
    /// outside program: its own business.
    exact: String,
    weights: String,
    describe: String,
    /// What held an outside program, one line each (empty for a built-in engine).
    held: Vec<String>,
}

/// One row of the rating table, numbers already formatted (`v_*`: the sort keys).
struct RatingView {
    rank: usize,
    /// `2`, or `=2` for a shared rank.
    rank_text: String,
    name: String,
    elo: String,
    v_elo: f64,
    error: String,
    /// Why there is no estimate, no interval, or only a bound.
    reason: String,
    games: u64,
    points: String,
    score: String,
    draws: String,
    los: String,
    v_los: f64,
}

/// The cost table: every figure, in rating order ([`super::cost::cost_columns`]), what its
/// columns mean, and the moves starved of CPU.
struct CostView {
    headers: Vec<&'static str>,
    rows: Vec<CostRowView>,
    legend: String,
    starved: Option<String>,
}

/// One engine's row of the cost table, with its rating beside (what it paid for).
struct CostRowView {
    rank: usize,
    name: String,
    elo: String,
    v_elo: f64,
    cells: Vec<Cell>,
}

/// The cost section of `summary`'s page, its rows in the order of the rating `rows`.
fn cost_view(summary: &Summary, rows: &[super::table::RatingRow]) -> CostView {
    let mut costs = cost_rows(summary, rows);
    if costs.iter().all(|r| r.figures.moves == 0) {
        costs.clear();
    }
    let columns = cost_columns(&costs, true);
    CostView {
        headers: columns.iter().map(|c| c.header).collect(),
        rows: costs
            .iter()
            .enumerate()
            .map(|(k, r)| CostRowView {
                rank: r.rank,
                name: r.name.clone(),
                elo: rows
                    .iter()
                    .find(|x| x.name == r.name)
                    .map_or("-".into(), |x| x.elo_text()),
                v_elo: rows
                    .iter()
                    .find(|x| x.name == r.name)
                    .and_then(|x| x.elo)
                    .unwrap_or(f64::NEG_INFINITY)
                    .max(-1e9),
                cells: columns
                    .iter()
                    .map(|c| Cell {
                        text: c.cells[k].text.clone(),
                        v: c.cells[k].key.max(-1e300),
                        class: "",
                    })
                    .collect(),
            })
            .collect(),
        legend: cost_legend(&costs, true, false),
        starved: starved_warning(&costs, summary.spec.on_time()),
    }
}

/// A cell of the crosstable or LOS matrix: text and sort key.
struct Cell {
    text: String,
    v: f64,
    class: &'static str,
}

/// A row of a matrix.
struct MatrixRow {
    name: String,
    cells: Vec<Cell>,
}

/// One pairing of the head-to-head table.
struct PairView {
    a: String,
    b: String,
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    penta: [u64; 5],
    score: String,
    v_score: f64,
    elo: String,
    v_elo: f64,
    los: String,
    v_los: f64,
}

/// The terminations section: the terminal table's rows, and an example of each engine's
/// failures.
struct TerminationsView {
    /// The count columns: `games`, `adjudicated` (when some game was), then the failures.
    headers: Vec<&'static str>,
    rows: Vec<TerminationRow>,
    footer: String,
    examples: Vec<FailureView>,
}

/// One engine's row of the terminations table.
struct TerminationRow {
    name: String,
    counts: Vec<u64>,
}

/// One engine's failure of one kind: how many, and the first of them.
struct FailureView {
    engine: String,
    kind: &'static str,
    count: u64,
    game: u64,
    detail: String,
}

/// One inlined chart, as the run's page and the tuning page (`tune::report`) show it.
pub struct ChartView {
    /// Its name (the file name without `.svg`).
    pub name: String,
    /// The SVG, inlined.
    pub svg: String,
}

impl ChartView {
    /// The views of `charts`, each `(name, svg)`.
    pub fn all(charts: &[(String, String)]) -> Vec<ChartView> {
        charts
            .iter()
            .map(|(name, svg)| ChartView {
                name: name.clone(),
                svg: svg.clone(),
            })
            .collect()
    }
}

#[derive(Template)]
#[template(path = "report.html")]
struct Page<'a> {
    title: &'a str,
    game: &'a str,
    seed: u64,
    format: &'a str,
    rounds: u32,
    openings: String,
    clock: Option<String>,
    hash: &'a str,
    games: u64,
    /// The run's progress in one line: games rated of those scheduled, and the SPRT's state.
    progress: String,
    engines: Vec<EngineView>,
    /// Whether any engine was held (the engines table then has a column for it).
    held_shown: bool,
    ratings: Vec<RatingView>,
    first_move: String,
    origin: String,
    names_by_rank: Vec<String>,
    crosstable: Vec<MatrixRow>,
    los: Vec<MatrixRow>,
    pairs: Vec<PairView>,
    cost: CostView,
    charts: Vec<ChartView>,
    timing: Option<String>,
    sessions: Vec<SessionView>,
    sprt: Option<SprtView>,
    terminations: Option<TerminationsView>,
    game_count: usize,
    /// Served by `joute run --serve` or `joute serve`: the script follows the run.
    live: bool,
    style: &'static str,
    script: &'static str,
    data: String,
}

const STYLE: &str = include_str!("../../templates/report.css");
/// The page's script, and the live pages' follower (`jouteFollow`, shared with the tuning page).
const SCRIPT: &str = concat!(
    include_str!("../../templates/report.js"),
    include_str!("../../templates/live.js")
);

fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The SPRT section of a run that has a test: its bounds and error rates, the LLR and where
/// it stands, and the verdict.
fn sprt_view(summary: &Summary) -> Option<SprtView> {
    let test = summary.spec.sprt?;
    let decided = summary.decision();
    let llr = decided
        .map(|d| d.llr)
        .or_else(|| summary.sprt.as_ref().map(|t| t.llr()))
        .unwrap_or(0.0);
    let pairs = decided.map_or_else(
        || summary.sprt.as_ref().map_or(0, |t| t.counts().pairs()),
        |d| d.pairs,
    );
    let (a, b) = summary.pairings.first().map_or(("A", "B"), |p| {
        (
            summary.spec.engines[p.a].name.as_str(),
            summary.spec.engines[p.b].name.as_str(),
        )
    });
    let short = match decided.map(|d| d.decision) {
        Some(crate::stats::sprt::Decision::H1) => format!("SPRT: H1 accepted after {pairs} pairs"),
        Some(crate::stats::sprt::Decision::H0) => format!("SPRT: H0 accepted after {pairs} pairs"),
        _ => format!(
            "SPRT undecided after {pairs} pairs: LLR {} in ({}, {})",
            fixed(llr, 2),
            fixed(test.lower(), 2),
            fixed(test.upper(), 2)
        ),
    };
    let (verdict, class) = match decided.map(|d| d.decision) {
        Some(crate::stats::sprt::Decision::H1) => (
            format!(
                "H1 accepted after {pairs} pairs (the LLR reached its upper bound): the games favour {a} being {} Elo better than {b} over {}; a false H1 has probability α = {}",
                fixed(test.elo1, 1),
                fixed(test.elo0, 1),
                test.alpha
            ),
            "good",
        ),
        Some(crate::stats::sprt::Decision::H0) => (
            format!(
                "H0 accepted after {pairs} pairs (the LLR reached its lower bound): the games favour {a} being {} Elo better than {b} over {}; a false H0 has probability β = {}",
                fixed(test.elo0, 1),
                fixed(test.elo1, 1),
                test.beta
            ),
            "bad",
        ),
        _ => (
            format!("undecided after {pairs} pairs: the LLR is between its bounds"),
            "",
        ),
    };
    Some(SprtView {
        elo0: fixed(test.elo0, 2),
        elo1: fixed(test.elo1, 2),
        bounds: format!("[{}, {}]", fixed(test.elo0, 2), fixed(test.elo1, 2)),
        alpha: format!("{}", test.alpha),
        beta: format!("{}", test.beta),
        model: match test.model {
            crate::stats::sprt::EloModel::Logistic => "logistic Elo",
            crate::stats::sprt::EloModel::Normalized => "normalized Elo",
        },
        llr: fixed(llr, 2),
        llr_bounds: format!("({}, {})", fixed(test.lower(), 2), fixed(test.upper(), 2)),
        pairs,
        verdict,
        class,
        short,
    })
}

/// The terminations section, shown when the terminal prints its table
/// ([`Summary::shows_terminations`]); engines in spec order.
fn terminations_view(summary: &Summary) -> Option<TerminationsView> {
    if !summary.shows_terminations() {
        return None;
    }
    let engines = &summary.spec.engines;
    // The games each engine saw adjudicated, when some were.
    let adjudicated = summary.games_ended("adjudication") > 0;
    let rows = engines
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut counts = vec![summary.games_of(i)];
            if adjudicated {
                counts.push(summary.adjudicated[i]);
            }
            counts.extend(summary.failures[i].counts);
            TerminationRow {
                name: e.name.clone(),
                counts,
            }
        })
        .collect();
    let examples = engines
        .iter()
        .zip(&summary.failures)
        .flat_map(|(e, f)| {
            FAILURES
                .iter()
                .zip(f.counts.iter().zip(&f.examples))
                .filter_map(|(&kind, (&count, x))| {
                    let x = x.as_ref()?;
                    Some(FailureView {
                        engine: e.name.clone(),
                        kind,
                        count,
                        game: x.game,
                        detail: x.detail.clone(),
                    })
                })
        })
        .collect();
    Some(TerminationsView {
        headers: std::iter::once("games")
            .chain(adjudicated.then_some("adjudicated"))
            .chain(FAILURES)
            .collect(),
        rows,
        footer: terminations_footer(summary),
        examples,
    })
}

/// The openings line of the spec section.
fn openings_text(source: &OpeningSource) -> String {
    match source {
        OpeningSource::Random { plies, count, .. } => {
            format!("{count} random openings of {plies} plies")
        }
        OpeningSource::File { path, count, .. } => format!("{count} openings from {path}"),
    }
}

/// The board the viewer draws: `othello`, `connect4` or `morpion` with its size.
fn board_json(kind: &GameKind) -> serde_json::Value {
    match *kind {
        GameKind::Othello => serde_json::json!({"kind": "othello", "rows": 8, "cols": 8, "k": 0}),
        GameKind::Connect4 => {
            serde_json::json!({"kind": "connect4", "rows": 6, "cols": 7, "k": 4})
        }
        GameKind::Morpion {
            rows,
            cols,
            k,
            rule,
        } => {
            serde_json::json!({"kind": "morpion", "rows": rows, "cols": cols, "k": k, "rule": rule.name()})
        }
        GameKind::RandomTree { .. } => serde_json::json!({"kind": "none"}),
    }
}

/// The games of the logs, one compact array per game, sorted by id:
/// `[id, first, second, result, opening, moves]` where `first` and `second` are engine indices
/// and the moves are joined by spaces; a game that did not end by the rules adds its
/// `termination` and `detail` (cut to 300 characters, `""` when the log has none).
fn games_json(summary: &Summary, logs: &[PathBuf]) -> Result<(String, usize), HtmlError> {
    let names = summary.spec.engine_names();
    let index = |name: &str| -> Result<usize, String> {
        names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| format!("engine '{name}' is not in the run's spec"))
    };
    let mut games: Vec<(u64, String)> = Vec::new();
    // The games the summary read, each once.
    let mut taken = IdSet::new(summary.schedule_games());
    for log in logs {
        scan_log(log, |g| {
            if !summary.has_game(g.id) || taken.insert(g.id).is_err() {
                return Ok(());
            }
            let mut row = serde_json::json!([
                g.id,
                index(&g.first)?,
                index(&g.second)?,
                g.result,
                g.opening.join(" "),
                g.moves.join(" "),
            ]);
            if g.termination != "normal"
                && let Some(row) = row.as_array_mut()
            {
                let detail = g.detail.as_deref().unwrap_or("");
                row.push(g.termination.as_str().into());
                row.push(crate::arena::game::cut(detail, 300).into());
            }
            games.push((g.id, row.to_string()));
            Ok(())
        })
        .map_err(HtmlError::Log)?;
    }
    games.sort_by_key(|g| g.0);
    let count = games.len();
    let mut out = String::with_capacity(games.iter().map(|g| g.1.len() + 2).sum::<usize>() + 256);
    let head = serde_json::json!({
        "board": board_json(&summary.spec.game_kind()),
        "engines": names,
    })
    .to_string();
    // `{...}` without its closing brace, then the games.
    out.push_str(&head[..head.len() - 1]);
    out.push_str(",\"games\":[");
    for (i, (_, g)) in games.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str(g);
    }
    out.push_str("]}");
    Ok((script_safe(&out), count))
}

/// JSON made safe inside a `<script>` element: `<` only occurs inside JSON strings, where
/// `\u003c` means the same character.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// Renders the report of a run to `dir/index.html` (written to a temp file and renamed);
/// `charts` are (name, svg text) pairs to inline (may be empty); `logs` are the games logs to
/// embed in the viewer.
pub fn write_report(
    summary: &Summary,
    ratings: &Ratings,
    charts: &[(String, String)],
    logs: &[PathBuf],
    timing: Option<Timing>,
    dir: &Path,
) -> Result<PathBuf, HtmlError> {
    let html = render(summary, ratings, charts, logs, timing, false)?;
    let path = dir.join("index.html");
    crate::outputs::write_atomically(&path, html.as_bytes()).map_err(|cause| HtmlError::Io {
        path: path.clone(),
        cause,
    })?;
    Ok(path)
}

/// The page's text (what [`write_report`] writes); `live`: the page a live server serves, whose
/// script follows the run (`/events`, `/summary.json`) and redraws itself as games finish.
pub fn render(
    summary: &Summary,
    ratings: &Ratings,
    charts: &[(String, String)],
    logs: &[PathBuf],
    timing: Option<Timing>,
    live: bool,
) -> Result<String, HtmlError> {
    let spec = &summary.spec;
    let names = spec.engine_names();
    let engines = engine_views(spec, timing.as_ref());
    let held_shown = engines.iter().any(|e| !e.held.is_empty());
    let rows = rating_rows(summary, ratings);
    let scale = RatingScale::of(summary, ratings);
    let rating_views = rows.iter().map(rating_view).collect();
    // Matrices in rating order.
    let order: Vec<usize> = rows
        .iter()
        .map(|r| names.iter().position(|n| *n == r.name).unwrap_or(0))
        .collect();
    let crosstable = crosstable(summary, &names, &order);
    let los = los_matrix(ratings, &names, &order);
    let pairs = pair_views(summary, &names);
    let sessions = session_views(timing.as_ref());
    let timing = timing.as_ref().map(timing_text);
    let sprt = sprt_view(summary);
    let progress = progress_text(summary, sprt.as_ref());
    let (data, game_count) = games_json(summary, logs)?;
    let page = Page {
        title: &spec.name,
        game: &spec.game,
        seed: spec.seed,
        format: &spec.format,
        rounds: spec.rounds,
        openings: openings_text(&spec.openings),
        clock: clock_text(spec),
        hash: &summary.hash,
        games: summary.games,
        progress,
        engines,
        held_shown,
        ratings: rating_views,
        first_move: scale.first_move_text("±"),
        origin: scale.origin(),
        names_by_rank: rows.iter().map(|r| r.name.clone()).collect(),
        crosstable,
        los,
        pairs,
        cost: cost_view(summary, &rows),
        charts: ChartView::all(charts),
        timing,
        sessions,
        sprt,
        terminations: terminations_view(summary),
        game_count,
        live,
        style: STYLE,
        script: SCRIPT,
        data,
    };
    Ok(page.render()?)
}

/// The engines table: each engine's algorithm, depth, budget, exact endgame and weights, under
/// the name an outside engine gave itself when it differs from the spec's.
fn engine_views(spec: &ResolvedSpec, timing: Option<&Timing>) -> Vec<EngineView> {
    spec.engines
        .iter()
        .map(|e| {
            let mut budget = Vec::new();
            if let Some(nodes) = e.nodes {
                budget.push(format!("{nodes} nodes"));
            }
            if let Some(t) = e.time_ms {
                budget.push(format!("{t} ms/move"));
            }
            if e.algorithm == "mcts" && e.nodes.is_none() {
                budget.push(format!("{} playouts", e.playouts));
            }
            if let Some(c) = e.clock {
                budget.push(format!(
                    "its own clock: {}, margin {} ms",
                    c.control.describe(),
                    c.margin_ms
                ));
            }
            let reported = timing.and_then(|t| t.reported_names.get(&e.name));
            EngineView {
                name: match reported {
                    Some(own) if *own != e.name => format!("{} (calls itself '{own}')", e.name),
                    _ => e.name.clone(),
                },
                algorithm: match &e.outside {
                    Some(o) => format!("{} program", o.protocol),
                    None => e.algorithm.clone(),
                },
                depth: e.depth.map_or(String::new(), |d| d.to_string()),
                budget: budget.join(", "),
                exact: match (&e.outside, e.exact) {
                    (Some(_), _) => String::new(),
                    _ if e.algorithm == "random" || e.hosted.is_some() => String::new(),
                    (None, 0) => "never".into(),
                    (None, n) => format!("from {n} empties"),
                },
                weights: if e.algorithm == "random" || e.hosted.is_some() {
                    String::new()
                } else {
                    e.weights_origin.clone()
                },
                describe: e.describe(),
                held: timing
                    .and_then(|t| t.engines_held.get(&e.name))
                    .cloned()
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// One line of the ratings table.
fn rating_view(r: &RatingRow) -> RatingView {
    RatingView {
        rank: r.rank,
        rank_text: r.rank_text(),
        name: r.name.clone(),
        elo: r.elo_text(),
        v_elo: r.elo.unwrap_or(f64::NEG_INFINITY).max(-1e9),
        error: r.error_text(),
        reason: r.reason.clone().unwrap_or_default(),
        games: r.games,
        points: format!("{}", r.points),
        score: format!("{:.1}%", r.score),
        draws: format!("{:.1}%", r.draws),
        los: r.los_next.map_or(String::new(), percent),
        v_los: r.los_next.unwrap_or(-1.0),
    }
}

/// The crosstable in `order` (rating order): the W/D/L of each engine against each other,
/// coloured by who scored more.
fn crosstable(summary: &Summary, names: &[String], order: &[usize]) -> Vec<MatrixRow> {
    let n = names.len();
    // W/D/L of i against j.
    let mut wdl = vec![vec![None::<(u64, u64, u64)>; n]; n];
    for p in &summary.pairings {
        let (w, d, l) = (p.wdl.wins, p.wdl.draws, p.wdl.losses);
        let add = |cell: &mut Option<(u64, u64, u64)>, (w, d, l): (u64, u64, u64)| {
            let c = cell.get_or_insert((0, 0, 0));
            c.0 += w;
            c.1 += d;
            c.2 += l;
        };
        add(&mut wdl[p.a][p.b], (w, d, l));
        add(&mut wdl[p.b][p.a], (l, d, w));
    }
    order
        .iter()
        .map(|&i| MatrixRow {
            name: names[i].clone(),
            cells: order
                .iter()
                .map(|&j| match wdl[i][j] {
                    _ if i == j => Cell {
                        text: String::new(),
                        v: -1.0,
                        class: "self",
                    },
                    Some((w, d, l)) if w + d + l > 0 => Cell {
                        text: format!("+{w} ={d} -{l}"),
                        v: (w as f64 + d as f64 / 2.0) / (w + d + l) as f64,
                        class: if w > l {
                            "good"
                        } else if w < l {
                            "bad"
                        } else {
                            ""
                        },
                    },
                    _ => Cell {
                        text: String::new(),
                        v: -1.0,
                        class: "none",
                    },
                })
                .collect(),
        })
        .collect()
}

/// The likelihood-of-superiority matrix in `order` (rating order); `-` where the ratings give
/// no estimate.
fn los_matrix(ratings: &Ratings, names: &[String], order: &[usize]) -> Vec<MatrixRow> {
    order
        .iter()
        .map(|&i| MatrixRow {
            name: names[i].clone(),
            cells: order
                .iter()
                .map(|&j| {
                    if i == j {
                        Cell {
                            text: String::new(),
                            v: -1.0,
                            class: "self",
                        }
                    } else {
                        match ratings.los(i, j) {
                            Some(l) => Cell {
                                text: percent(l),
                                v: l,
                                class: if l >= 0.95 {
                                    "good"
                                } else if l <= 0.05 {
                                    "bad"
                                } else {
                                    ""
                                },
                            },
                            // A bound or no estimate: no likelihood of superiority.
                            None => Cell {
                                text: "-".into(),
                                v: -1.0,
                                class: "none",
                            },
                        }
                    }
                })
                .collect(),
        })
        .collect()
}

/// The pairs table: every pairing that played, with its score, Elo difference and LOS.
fn pair_views(summary: &Summary, names: &[String]) -> Vec<PairView> {
    summary
        .pairings
        .iter()
        .filter(|p| p.wdl.games() > 0)
        .map(|p| {
            let e = finite_estimate(p);
            let elo = match (e.bound, e.error) {
                ("", Some(error)) => format!("{} ± {}", fixed(e.elo, 1), fixed(error, 1)),
                ("", None) => format!("{} ± n/a", fixed(e.elo, 1)),
                (mark, _) => format!("{mark} {} (one-sided 95%)", fixed(e.elo, 1)),
            };
            PairView {
                a: names[p.a].clone(),
                b: names[p.b].clone(),
                games: p.wdl.games(),
                wins: p.wdl.wins,
                draws: p.wdl.draws,
                losses: p.wdl.losses,
                penta: p.pentanomial.0,
                score: percent(e.score),
                v_score: e.score,
                elo,
                v_elo: e.elo,
                los: e.los.map_or_else(|| "n/a".into(), percent),
                v_los: e.los.unwrap_or(-1.0),
            }
        })
        .collect()
}

/// The sessions table, shown only when the run had more than one session (resumed or extended).
fn session_views(timing: Option<&Timing>) -> Vec<SessionView> {
    match timing {
        Some(t) if t.sessions.len() > 1 => t
            .sessions
            .iter()
            .map(|x| SessionView {
                started: x.started.clone(),
                games: x.games_played,
                seconds: x
                    .finished_unix
                    .map_or("-".into(), |f| format!("{:.1}", f - x.started_unix)),
                threads: x.threads,
                ended: x.ended.clone().unwrap_or_else(|| {
                    if x.finished.is_some() {
                        "finished".into()
                    } else {
                        "killed".into()
                    }
                }),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The timing line: games, seconds, threads, the rate and the number of sessions.
fn timing_text(t: &Timing) -> String {
    let mut s = format!(
        "{} games in {:.1} s on {} thread{}",
        t.games,
        t.seconds,
        t.threads,
        if t.threads == 1 { "" } else { "s" }
    );
    if t.seconds > 0.0 {
        let _ = write!(s, " ({:.1} games/s)", t.games as f64 / t.seconds);
    }
    if t.sessions.len() > 1 {
        let _ = write!(s, ", over {} sessions", t.sessions.len());
    }
    s
}

/// The progress line: games played of the schedule's, and the SPRT's short state if any.
fn progress_text(summary: &Summary, sprt: Option<&SprtView>) -> String {
    let mut progress = format!(
        "{} of {} games played",
        summary.games,
        summary.schedule_games()
    );
    if let Some(t) = sprt {
        let _ = write!(progress, " · {}", t.short);
    }
    progress
}

/// The spec's clock, said in words, if the games were on one.
fn clock_text(spec: &ResolvedSpec) -> Option<String> {
    spec.clock.map(|c| {
        let own = if spec.engines.iter().any(|e| e.clock.is_some()) {
            " for the engines without a clock of their own"
        } else {
            ""
        };
        format!(
            "{}, margin {} ms{own} (games on a clock do not replay bit for bit)",
            c.control.describe(),
            c.margin_ms
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::test_games::{game, mixed, spec, summary};

    /// The text of the section with id `id`, if the page has it.
    fn section<'a>(html: &'a str, id: &str) -> Option<&'a str> {
        let start = html.find(&format!("<section id=\"{id}\""))?;
        let rest = &html[start..];
        Some(&rest[..rest.find("</section>")?])
    }

    #[test]
    fn the_terminations_section_shows_counts_and_escaped_examples() {
        let (spec, games) = mixed();
        let s = summary(&spec, &games);
        let html = render(&s, &s.ratings(), &[], &[], None, false).unwrap();
        let t = section(&html, "terminations-section").expect("a terminations section");
        for piece in [
            "<th>games</th><th>adjudicated</th><th>timeout</th><th>stall</th><th>illegal-move</th><th>crash</th>",
            "<td class=\"name\">edax</td><td data-v=\"8\">8</td><td data-v=\"1\">1</td><td data-v=\"0\">0</td><td data-v=\"0\">0</td><td data-v=\"1\">1</td><td data-v=\"1\">1</td>",
            "<td class=\"name\">ab-4</td><td data-v=\"8\">8</td><td data-v=\"1\">1</td><td data-v=\"1\">1</td>",
            "normal 2, adjudication 1 of 8 games",
            "<td>edax</td><td>crash</td><td>1</td><td>6</td><td class=\"detail\"><code>exit status 1</code>",
            "<td>ab-4</td><td>timeout</td><td>1</td><td>2</td><td class=\"detail\"><code>no move in 1000 ms</code>",
        ] {
            assert!(t.contains(piece), "'{piece}' not in {t}");
        }
        // The line an engine wrote is escaped, never markup.
        assert!(!t.contains("e9 <b>"), "{t}");
        assert!(
            t.contains("e9 &#60;b&#62;") || t.contains("e9 &lt;b&gt;"),
            "{t}"
        );
        // An engine that never failed has no example row; a drawn failure has none either.
        assert_eq!(t.matches("<td class=\"detail\">").count(), 4, "{t}");
    }

    #[test]
    fn the_viewer_gets_how_a_game_ended_when_not_by_the_rules() {
        let (spec, games) = mixed();
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("games.jsonl");
        let lines: Vec<String> = games
            .iter()
            .map(|g| serde_json::to_string(g).unwrap() + "\n")
            .collect();
        std::fs::write(&log, lines.concat()).unwrap();
        let (data, count) = games_json(&summary(&spec, &games), &[log]).unwrap();
        assert_eq!(count, games.len());
        let data: serde_json::Value = serde_json::from_str(&data).unwrap();
        let rows = data["games"].as_array().unwrap();
        // A normal game has the six fields; a crash adds its termination and detail.
        assert_eq!(rows[0].as_array().unwrap().len(), 6, "{}", rows[0]);
        assert_eq!(rows[6][6], "crash");
        assert_eq!(rows[6][7], "exit status 1");
        assert_eq!(rows[5][6], "adjudication");
    }

    #[test]
    fn no_terminations_section_when_every_game_ended_by_the_rules() {
        let spec = spec(&["a", "b"]);
        let s = summary(&spec, &[game(&spec, 0, "normal", Some("b"), None)]);
        let html = render(&s, &s.ratings(), &[], &[], None, false).unwrap();
        assert!(section(&html, "ratings-section").is_some());
        assert_eq!(section(&html, "terminations-section"), None);
    }

    #[test]
    fn json_in_a_script_cannot_close_it() {
        let s = script_safe(r#"["</script><script>alert(1)</script>","<!--"]"#);
        assert!(!s.contains('<'));
        let v: Vec<String> = serde_json::from_str(&s).unwrap();
        assert_eq!(v[0], "</script><script>alert(1)</script>");
        assert_eq!(v[1], "<!--");
    }

    #[test]
    fn the_ratings_come_first_and_the_projector_view_is_one_link_away() {
        let spec = spec(&["a", "b"]);
        let s = summary(&spec, &[game(&spec, 0, "normal", Some("b"), None)]);
        let html = render(&s, &s.ratings(), &[], &[], None, false).unwrap();
        let at = |id: &str| html.find(&format!("<section id=\"{id}\"")).unwrap();
        assert!(at("progress-section") < at("ratings-section"));
        assert!(at("ratings-section") < at("spec"));
        assert!(html.contains("<a href=\"?view=ratings\" id=\"to-projector\">projector view</a>"));
        let progress = section(&html, "progress-section").unwrap();
        assert!(
            progress.contains(&format!("1 of {} games played", s.schedule_games())),
            "{progress}"
        );
    }
}

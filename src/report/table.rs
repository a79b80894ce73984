//! Terminal output: the Ordo-style rating table, the head-to-head block fastchess users know,
//! and the SPRT line.

use std::f64::consts::LN_10;
use std::fmt::Write;

use super::summary::{FAILURES, PairingStats, Summary, cut};
use crate::stats::Z95;
use crate::stats::ratings::{Bound, Ratings};
use crate::stats::sprt::Decision;

/// One row of the rating table (and of `ratings.csv` and `--json`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RatingRow {
    /// 1 for the highest rating (engines without an estimate last); engines that share a rank
    /// ([`RatingRow::tied`]) have the same one, and the next rank skips theirs (1, 2, 2, 4).
    pub rank: usize,
    /// Shares its rank with the rows next to it: bounds of the same direction with no game
    /// between them, which nothing orders ([`rating_rows`]).
    pub tied: bool,
    /// Engine name.
    pub name: String,
    /// Elo (mean 0, or relative to the anchor); `null` when there is no estimate.
    pub elo: Option<f64>,
    /// Half-width of the 95% interval; `null` for a bound, no estimate, the anchor, or a fit
    /// too large for its covariance.
    pub error: Option<f64>,
    /// Games played.
    pub games: u64,
    /// Points scored.
    pub points: f64,
    /// Score, percent.
    pub score: f64,
    /// Draws, percent of games.
    pub draws: f64,
    /// `lower` when the Elo is a lower bound (`>`), `upper` for an upper bound (`<`), `null`
    /// for an estimate.
    pub bound: Option<Bound>,
    /// Why there is no estimate, no interval, or only a bound (`null` for an estimate with its
    /// interval).
    pub reason: Option<String>,
    /// Likelihood that this engine is stronger than the one ranked just below it, when both
    /// have estimates with intervals.
    pub los_next: Option<f64>,
}

impl RatingRow {
    /// The rank as the tables print it: `2`, or `=2` for a shared one.
    pub fn rank_text(&self) -> String {
        if self.tied {
            format!("={}", self.rank)
        } else {
            self.rank.to_string()
        }
    }

    /// The Elo as the tables print it: `>640.7`, `-12.5`, or `-` without an estimate.
    pub fn elo_text(&self) -> String {
        match self.elo {
            Some(elo) => format!("{}{}", self.bound.map_or("", Bound::mark), fixed(elo, 1)),
            None => "-".into(),
        }
    }

    /// The interval's half-width as the tables print it, `-` without one.
    pub fn error_text(&self) -> String {
        self.error.map_or_else(|| "-".into(), |e| fixed(e, 1))
    }
}

/// The rows of the rating table of a run, best first; a bound from a perfect record names the
/// engines it was won (or lost) against, and bounds that nothing orders share a rank.
///
/// Two engines with bounds of the same direction (`>` and `>`) that never played each other
/// are not ordered by their games: in a gauntlet, two opponents that won every game against the
/// challengers. Their bound values differ only by how many games they played (or not at all,
/// on an anchored scale), so consecutive rows like these share the rank of the first, `=2`,
/// and are listed in the spec's order. The order between a bound and an estimate stands: an
/// opponent that won every game against the challengers scored more against them than one
/// that did not, which is the gauntlet's head-to-head order.
pub fn rating_rows(summary: &Summary, ratings: &Ratings) -> Vec<RatingRow> {
    let mut rows = rows_of(ratings, &summary.draws);
    let names = summary.spec.engine_names();
    let index: std::collections::HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    // Whom each engine played, sorted: looked up per row, not by scanning the pairings (a
    // rating run may have thousands of engines).
    let mut opponents: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for p in summary.pairings.iter().filter(|p| p.wdl.games() > 0) {
        if p.a != p.b && p.a < names.len() && p.b < names.len() {
            opponents[p.a].push(p.b);
            opponents[p.b].push(p.a);
        }
    }
    for o in &mut opponents {
        o.sort_unstable();
        o.dedup();
    }
    // The perfect record's opponents, in words.
    for r in &mut rows {
        let Some(&i) = index.get(r.name.as_str()) else {
            continue;
        };
        if r.bound.is_some()
            && let Some(reason) = &mut r.reason
            && matches!(reason.as_str(), "won every game" | "lost every game")
        {
            let against: Vec<&str> = opponents[i].iter().map(|&j| names[j].as_str()).collect();
            reason.push_str(" against ");
            reason.push_str(&words_list(&against));
        }
    }
    // Runs of bounds of one direction, none of which played another: shared rank, spec order.
    let mut in_run = vec![false; names.len()];
    let mut start = 0;
    while start < rows.len() {
        let mut members = Vec::new();
        if let Some(&i) = index.get(rows[start].name.as_str()) {
            in_run[i] = true;
            members.push(i);
        }
        let mut end = start + 1;
        while end < rows.len()
            && rows[start].bound.is_some()
            && rows[end].bound == rows[start].bound
        {
            let Some(&j) = index.get(rows[end].name.as_str()) else {
                break;
            };
            if in_run[j] || opponents[j].iter().any(|&k| in_run[k]) {
                break;
            }
            in_run[j] = true;
            members.push(j);
            end += 1;
        }
        for k in members {
            in_run[k] = false;
        }
        if end - start > 1 {
            let rank = rows[start].rank;
            rows[start..end].sort_by_key(|r| index.get(r.name.as_str()).copied());
            for r in &mut rows[start..end] {
                r.rank = rank;
                r.tied = true;
                r.los_next = None;
            }
        }
        start = end;
    }
    rows
}

/// `a`, `a and b`, `a, b and c`; past five names, the first four and how many more.
fn words_list(names: &[&str]) -> String {
    match names {
        [] => "no one".into(),
        [one] => (*one).into(),
        _ if names.len() > 5 => format!("{} and {} more", names[..4].join(", "), names.len() - 4),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The rows of the rating table, best first (engines without an estimate last, in index
/// order), from the fit and each engine's draws.
pub fn rows_of(ratings: &Ratings, draws: &[u64]) -> Vec<RatingRow> {
    let mut order: Vec<usize> = (0..ratings.ratings.len()).collect();
    let key = |i: usize| ratings.ratings[i].elo.unwrap_or(f64::NEG_INFINITY);
    order.sort_by(|&i, &j| {
        let (a, b) = (&ratings.ratings[i], &ratings.ratings[j]);
        b.elo
            .is_some()
            .cmp(&a.elo.is_some())
            .then(key(j).total_cmp(&key(i)))
            .then(i.cmp(&j))
    });
    order
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let r = &ratings.ratings[i];
            let games = r.games.round() as u64;
            let percent = |x: f64| {
                if games > 0 {
                    100.0 * x / games as f64
                } else {
                    0.0
                }
            };
            RatingRow {
                rank: rank + 1,
                tied: false,
                name: r.name.clone(),
                elo: r.elo,
                error: r.error,
                games,
                points: r.points,
                score: percent(r.points),
                draws: percent(draws.get(i).copied().unwrap_or(0) as f64),
                bound: r.bound,
                reason: r.reason.clone(),
                los_next: order.get(rank + 1).and_then(|&j| ratings.los(i, j)),
            }
        })
        .collect()
}

/// The progress line's leader: `leader NAME +123`, or `leader NAME >+640` when the best rating
/// is a bound (an engine that won every game has no estimate, only the bound the table prints);
/// empty before any engine is rated.
pub fn leader(ratings: &Ratings) -> String {
    ratings
        .ratings
        .iter()
        .filter_map(|r| Some((r, r.elo?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(String::new(), |(best, elo)| {
            format!(
                "leader {} {}{elo:+.0}",
                best.name,
                best.bound.map_or("", Bound::mark)
            )
        })
}

/// `x` with `digits` decimals, never `-0.00`: a value that rounds to zero reads as zero
/// whatever its sign (terminal, CSV and HTML all format through this).
pub fn fixed(x: f64, digits: usize) -> String {
    let text = format!("{x:.digits$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => text,
    }
}

/// The widest name column of the terminal table, in characters.
pub const MAX_NAME_COLUMN: usize = 40;

/// The most engines whose missing estimate or interval is explained below the table, one line
/// each (the CSV files and `--json` have every reason).
const REASONS_SHOWN: usize = 10;

/// The rating table: `Rank Name Elo +/- Games Score Draw LOS`, then what its marks mean and
/// why an engine has no estimate or no interval.
pub fn rating_table(rows: &[RatingRow]) -> String {
    let mut out = String::new();
    write_rating_rows(&mut out, rows);
    let bounded: Vec<&RatingRow> = rows.iter().filter(|r| r.bound.is_some()).collect();
    write_bounds(&mut out, &bounded);
    write_shared_ranks(&mut out, rows);
    if bounded.len() > REASONS_SHOWN {
        let _ = writeln!(
            out,
            "  … and {} more bounds (the CSV files and --json give every reason)",
            bounded.len() - REASONS_SHOWN
        );
    }
    if !bounded.is_empty() {
        write_anchor_hint(&mut out, rows);
    }
    out.push_str("  Elo: joint maximum likelihood; +/-: 95% interval; LOS: likelihood of superiority over the next engine\n");
    write_missing_reasons(&mut out, rows);
    out
}

/// The rating table's head and one line per engine.
fn write_rating_rows(out: &mut String, rows: &[RatingRow]) {
    // A name column as wide as the longest name, up to a limit: longer names are cut (the
    // CSV files and the HTML report have them whole).
    let width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, MAX_NAME_COLUMN);
    let _ = writeln!(
        out,
        "Rank {:<width$} {:>8} {:>6} {:>7} {:>7} {:>6} {:>6}",
        "Name", "Elo", "+/-", "Games", "Score", "Draw", "LOS"
    );
    for r in rows {
        let los = r
            .los_next
            .map_or(String::new(), |l| format!("{:.1}%", 100.0 * l));
        let _ = writeln!(
            out,
            "{:>4} {:<width$} {:>8} {:>6} {:>7} {:>6.1}% {:>5.1}% {:>6}",
            r.rank_text(),
            cut(&r.name, width),
            r.elo_text(),
            r.error_text(),
            r.games,
            r.score,
            r.draws,
            los
        );
    }
}

/// What the `>`/`<` marks of the `bounded` rows mean, and each bound in words (the first
/// [`REASONS_SHOWN`]).
fn write_bounds(out: &mut String, bounded: &[&RatingRow]) {
    if !bounded.is_empty() {
        out.push_str(
            "  > or <: a bound, not an estimate: the rating at which the engine's perfect record is as likely as not (Ordo's), not a 95% bound\n",
        );
    }
    // Each bound in words, for whoever reads the table aloud.
    for r in bounded.iter().take(REASONS_SHOWN) {
        let more = if matches!(r.bound, Some(Bound::Lower)) {
            "stronger"
        } else {
            "weaker"
        };
        let _ = writeln!(
            out,
            "  {} {}: {}: {more} than the engines it met, by more than these games can measure ({} is where that record is as likely as not)",
            cut(&r.name, MAX_NAME_COLUMN),
            r.elo_text(),
            r.reason.as_deref().unwrap_or("a perfect record"),
            r.elo.map_or("-".into(), |e| fixed(e, 1)),
        );
    }
}

/// The engines that share a rank, said once per rank.
fn write_shared_ranks(out: &mut String, rows: &[RatingRow]) {
    let mut shared: Vec<(usize, Vec<&str>)> = Vec::new();
    for r in rows.iter().filter(|r| r.tied) {
        match shared.last_mut() {
            Some((rank, names)) if *rank == r.rank => names.push(&r.name),
            _ => shared.push((r.rank, vec![&r.name])),
        }
    }
    for (rank, names) in &shared {
        let names: Vec<String> = names.iter().map(|n| cut(n, MAX_NAME_COLUMN)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let _ = writeln!(
            out,
            "  ={rank}: {} share a rank: bounds of one direction and no game between them, so nothing orders them (listed in the spec's order)",
            words_list(&names)
        );
    }
}

/// Under a table with a bound: the engine to anchor the others to, unless one is already.
fn write_anchor_hint(out: &mut String, rows: &[RatingRow]) {
    // A perfect record pulls the mean the others are rated against: a fixed engine steadies
    // them, and the table names one (the most played engine with an estimate and an interval).
    let anchored = rows
        .iter()
        .any(|r| r.reason.as_deref() == Some(ANCHOR_REASON));
    let steady = rows
        .iter()
        .filter(|r| r.bound.is_none() && r.elo.is_some() && r.error.is_some())
        .max_by(|a, b| {
            (a.games, -a.elo.unwrap_or(0.0).abs())
                .partial_cmp(&(b.games, -b.elo.unwrap_or(0.0).abs()))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    if !anchored && let Some(steady) = steady {
        let _ = writeln!(
            out,
            "  the others are rated against the field's mean, which a perfect record moves; to rate them against one engine, give --anchor {} (joute run, match or report)",
            shell_word(&steady.name)
        );
    }
}

/// Why an engine has no estimate, or an estimate without an interval (the anchor aside): a
/// reason shared by many engines once, then each other engine's (the first [`REASONS_SHOWN`]).
fn write_missing_reasons(out: &mut String, rows: &[RatingRow]) {
    let unexplained: Vec<&RatingRow> = rows
        .iter()
        .filter(|r| r.bound.is_none() && (r.elo.is_none() || r.error.is_none()))
        .filter(|r| r.reason.as_deref() != Some(ANCHOR_REASON))
        .collect();
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for r in &unexplained {
        let text = r.reason.clone().unwrap_or_default();
        match reasons.iter_mut().find(|(t, _)| *t == text) {
            Some((_, count)) => *count += 1,
            None => reasons.push((text, 1)),
        }
    }
    // A reason shared by many engines (a fit too large for its covariance) is said once.
    for (text, count) in reasons.iter().filter(|(_, c)| *c > 1) {
        let _ = writeln!(out, "  {count} engines: {text}");
    }
    let single: Vec<&&RatingRow> = unexplained
        .iter()
        .filter(|r| {
            let text = r.reason.clone().unwrap_or_default();
            reasons.iter().any(|(t, c)| *t == text && *c == 1)
        })
        .collect();
    for r in single.iter().take(REASONS_SHOWN) {
        let _ = writeln!(
            out,
            "  {}: {} — {}",
            cut(&r.name, MAX_NAME_COLUMN),
            if r.elo.is_none() {
                "no estimate"
            } else {
                "no interval"
            },
            r.reason.as_deref().unwrap_or("")
        );
    }
    if single.len() > REASONS_SHOWN {
        let _ = writeln!(
            out,
            "  … and {} more (the CSV files and --json give every reason)",
            single.len() - REASONS_SHOWN
        );
    }
}

/// `name` as a shell reads it back: quoted unless it is one plain word.
fn shell_word(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:+=/".contains(c))
    {
        name.to_string()
    } else {
        format!("'{}'", cut(name, MAX_NAME_COLUMN).replace('\'', "'\\''"))
    }
}

/// The reason an anchor has no interval (it is not explained below the table: the origin's
/// line says it).
pub const ANCHOR_REASON: &str = crate::stats::ratings::ANCHOR_REASON;

/// What a rating table's numbers mean: the scale, the origin and the first-move model, stated
/// with every table (terminal, `scale.csv`, `--json`, the HTML report).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RatingScale {
    /// `logistic`: an Elo difference `e` expects the score `1 / (1 + 10^(-e/400))`.
    pub scale: &'static str,
    /// The engine whose rating is fixed, if one is; otherwise the engines of the joint fit
    /// have mean `anchor_elo` (0).
    pub anchor: Option<String>,
    /// The anchor's rating, or the mean's.
    pub anchor_elo: f64,
    /// `fit` or `ignore` (spec `[ratings] first_move`).
    pub first_move: &'static str,
    /// The first mover's fitted advantage, Elo (`null`: the model has none, or the games do
    /// not identify it).
    pub first_move_elo: Option<f64>,
    /// Half-width of its 95% interval.
    pub first_move_error: Option<f64>,
    /// Why the model's advantage is not estimated (`null` when it is, or with `ignore`).
    pub first_move_reason: Option<String>,
}

impl RatingScale {
    /// The scale of `ratings`, fitted from `summary`'s games.
    pub fn of(summary: &Summary, ratings: &Ratings) -> RatingScale {
        RatingScale::new(
            ratings,
            summary.spec.anchor_index(),
            summary.spec.ratings.first_move,
        )
    }

    /// The scale of `ratings`, fitted with this anchor (engine index, Elo) and first-move
    /// model.
    pub fn new(
        ratings: &Ratings,
        anchor: Option<(usize, f64)>,
        first_move: crate::stats::ratings::FirstMove,
    ) -> RatingScale {
        RatingScale {
            scale: "logistic",
            anchor: anchor.map(|(i, _)| ratings.ratings[i].name.clone()),
            anchor_elo: anchor.map_or(0.0, |(_, elo)| elo),
            first_move: first_move.as_str(),
            first_move_elo: ratings.first_move.map(|a| a.elo),
            first_move_error: ratings.first_move.and_then(|a| a.error),
            first_move_reason: ratings.first_move_reason.clone(),
        }
    }

    /// The origin in words: `mean 0 over the engines of the fit` or `ENGINE fixed at ELO`.
    pub fn origin(&self) -> String {
        match &self.anchor {
            Some(name) => format!("{name} fixed at {}", fixed(self.anchor_elo, 1)),
            None => "mean 0 over the engines of the joint fit".into(),
        }
    }

    /// The first-move model in words: `first mover: +188.2 +/- 20.1 Elo (fitted with the
    /// ratings)`, or why there is no figure.
    pub fn first_move_text(&self, plus_minus: &str) -> String {
        let signed = |x: f64| format!("{}{}", if x >= 0.0 { "+" } else { "" }, fixed(x, 1));
        match (self.first_move, self.first_move_elo, self.first_move_error) {
            ("ignore", _, _) => {
                "first mover: no advantage in the model ([ratings] first_move = \"ignore\")".into()
            }
            (_, Some(elo), Some(error)) => format!(
                "first mover: {} {plus_minus} {} Elo (fitted with the ratings)",
                signed(elo),
                fixed(error, 1)
            ),
            (_, Some(elo), None) => format!(
                "first mover: {} Elo (fitted with the ratings; no interval: the joint fit is too large for its covariance)",
                signed(elo)
            ),
            _ => format!(
                "first mover: not estimated — {}; the ratings are fitted without it",
                self.first_move_reason
                    .as_deref()
                    .unwrap_or("the games do not identify it")
            ),
        }
    }

    /// The terminal's lines below the rating table.
    pub fn lines(&self) -> String {
        format!(
            "{}\nElo scale: logistic (a difference e expects the score 1/(1+10^(-e/400))), {}\n",
            self.first_move_text("+/-"),
            self.origin()
        )
    }
}

/// When a head-to-head block is printed: its last line words an undecided test by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// While the run plays (`--report-every`).
    Playing,
    /// The run was stopped by Ctrl-C or a signal.
    Interrupted,
    /// The run ended (or a report of its logs).
    Ended,
}

/// The head-to-head block of a two-engine run, as fastchess prints it, at `stage`.
pub fn head_to_head(summary: &Summary, stage: Stage) -> Option<String> {
    if summary.spec.engines.len() != 2 || summary.pairings.len() != 1 {
        return None;
    }
    let p = &summary.pairings[0];
    if p.wdl.games() == 0 {
        return None;
    }
    let names = summary.spec.engine_names();
    let e = finite_estimate(p);
    let games = p.wdl.games();
    let mut out = String::new();
    let rule = "-".repeat(50);
    let _ = writeln!(out, "{rule}");
    let _ = writeln!(
        out,
        "Results of {} vs {} ({}, {} games, seed {}):",
        names[p.a], names[p.b], summary.spec.game, games, summary.spec.seed
    );
    write_head_to_head_elo(&mut out, p, &e);
    write_head_to_head_counts(&mut out, p, &e);
    if let Some(line) = sprt_line(summary) {
        out.push_str(&line);
    }
    let _ = writeln!(out, "{rule}");
    write_sprt_outcome(&mut out, summary, stage);
    Some(out)
}

/// The head-to-head block's `Elo: ... nElo: ...` line: the estimate `e` of pairing `p` with its
/// interval, or why it has none, or the bound of a perfect record.
fn write_head_to_head_elo(out: &mut String, p: &PairingStats, e: &FiniteEstimate) {
    let pairs = p.pentanomial.pairs();
    let nelo_error = if pairs > 0 {
        Z95 / (2.0 * pairs as f64).sqrt() * 800.0 / LN_10
    } else {
        f64::NAN
    };
    match (e.bound, e.error, e.nelo) {
        ("", Some(error), Some(nelo)) => {
            let _ = writeln!(
                out,
                "Elo: {} +/- {}, nElo: {} +/- {}",
                fixed(e.elo, 2),
                fixed(error, 2),
                fixed(nelo, 2),
                fixed(nelo_error, 2)
            );
        }
        ("", _, _) => {
            let _ = writeln!(
                out,
                "Elo: {} +/- n/a ({}), nElo: n/a",
                fixed(e.elo, 2),
                unmeasured_spread(p).unwrap_or("no spread to measure")
            );
        }
        (mark, _, _) => {
            let _ = writeln!(
                out,
                "Elo: {mark} {} (every game {}: a one-sided 95% bound, unlike the table's > and <), nElo: n/a",
                fixed(e.elo, 2),
                if mark == ">" { "won" } else { "lost" }
            );
        }
    }
}

/// The head-to-head block's counts of pairing `p`: LOS and draw ratios, games and points, the
/// pentanomial.
fn write_head_to_head_counts(out: &mut String, p: &PairingStats, e: &FiniteEstimate) {
    let pairs = p.pentanomial.pairs();
    let games = p.wdl.games();
    let [ll, ld, _, wd, ww] = p.pentanomial.0;
    // A ratio whose denominator is 0 is not available (fastchess prints inf).
    let pairs_ratio = if ll + ld > 0 {
        format!("{:.2}", (ww + wd) as f64 / (ll + ld) as f64)
    } else {
        "n/a".into()
    };
    // fastchess's DrawRatio is the share of drawn pairs (WL + DD) when it reports pairs; the
    // share of drawn games follows under its own name.
    let game_draws = if games > 0 {
        100.0 * p.wdl.draws as f64 / games as f64
    } else {
        0.0
    };
    let _ = writeln!(
        out,
        "LOS: {}, DrawRatio: {:.2} %, PairsRatio: {pairs_ratio}, GameDrawRatio: {game_draws:.2} %",
        e.los
            .map_or_else(|| "n/a".into(), |l| format!("{:.2} %", 100.0 * l)),
        if pairs > 0 {
            100.0 * (p.win_loss_pairs + p.draw_draw_pairs) as f64 / pairs as f64
        } else {
            game_draws
        }
    );
    let _ = writeln!(
        out,
        "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({:.2} %)",
        p.wdl.wins,
        p.wdl.losses,
        p.wdl.draws,
        p.wdl.points(),
        if games > 0 {
            100.0 * p.wdl.points() / games as f64
        } else {
            0.0
        }
    );
    let wl_dd = if p.draw_draw_pairs > 0 {
        format!("{:.2}", p.win_loss_pairs as f64 / p.draw_draw_pairs as f64)
    } else {
        "n/a".into()
    };
    let _ = writeln!(
        out,
        "Ptnml(0-2): [{}], WL/DD Ratio: {wl_dd}",
        p.pentanomial
            .0
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// The head-to-head block's last line when the run has a sequential test: what it decided, or
/// why it has not, worded by `stage`.
fn write_sprt_outcome(out: &mut String, summary: &Summary, stage: Stage) {
    if let (Some(test), Some(decided)) = (summary.spec.sprt, summary.decision()) {
        let _ = writeln!(
            out,
            "SPRT ([{}, {}]) completed - {} was accepted after {} pairs",
            fixed(test.elo0, 2),
            fixed(test.elo1, 2),
            match decided.decision {
                Decision::H0 => "H0",
                Decision::H1 => "H1",
                Decision::Continue => "nothing",
            },
            decided.pairs
        );
    } else if let (Some(test), Some(state)) = (summary.spec.sprt, &summary.sprt) {
        let pairs = state.counts().pairs();
        let between = format!(
            "the LLR {} is between its bounds ({}, {})",
            fixed(state.llr(), 2),
            fixed(test.lower(), 2),
            fixed(test.upper(), 2)
        );
        let logged = summary.games + summary.after_decision;
        let cap = summary.schedule_games();
        let _ = match stage {
            Stage::Playing => writeln!(
                out,
                "SPRT: undecided after {pairs} pairs ({logged} of at most {cap} games): {between}"
            ),
            Stage::Interrupted => writeln!(
                out,
                "SPRT: interrupted undecided after {pairs} pairs ({logged} of at most {cap} games): {between}"
            ),
            Stage::Ended if logged < cap => writeln!(
                out,
                "SPRT: undecided after {pairs} pairs: the logs hold {logged} of the run's {cap} games and {between}"
            ),
            Stage::Ended => writeln!(
                out,
                "SPRT: no decision within the game cap of {cap} games (H0 and H1 both still open): {between}"
            ),
        };
    }
}

/// A two-engine run's estimate for the progress line: `Elo +8.1 ± 12.0, nElo +10.2 ± 15.3`
/// (A's, the first engine's); `None` with more engines, before a game, or while the spread is
/// unmeasured.
pub fn progress_estimate(summary: &Summary) -> Option<String> {
    if summary.spec.engines.len() != 2 || summary.pairings.len() != 1 {
        return None;
    }
    let p = &summary.pairings[0];
    if p.wdl.games() == 0 {
        return None;
    }
    let e = finite_estimate(p);
    let (Some(error), Some(nelo)) = (e.error, e.nelo) else {
        return None;
    };
    let name = &summary.spec.engines[p.a].name;
    Some(format!(
        "{name} Elo {:+.1} ± {error:.1}, nElo {nelo:+.1}",
        e.elo
    ))
}

/// A head-to-head estimate with finite numbers: for a pairing where A won (or lost) every game,
/// the Elo is the one-sided 95% bound of [`perfect_score_bound`], marked in `bound`; where every
/// pair (or, before a pair is complete, every game) scored the same, the spread cannot be
/// measured, and the interval, nElo and LOS are not available (`None`, `null` in JSON) rather
/// than a zero-width interval.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FiniteEstimate {
    /// A's score.
    pub score: f64,
    /// Elo (a bound when `bound` is not empty).
    pub elo: f64,
    /// Half-width of the 95% interval.
    pub error: Option<f64>,
    /// Normalised Elo.
    pub nelo: Option<f64>,
    /// Likelihood of superiority.
    pub los: Option<f64>,
    /// `>`, `<` or empty.
    pub bound: &'static str,
}

/// Why a pairing's estimate has no interval: every unit (pair, or game before a pair is
/// complete) scored the same, so their spread is unmeasured.
pub fn unmeasured_spread(p: &super::summary::PairingStats) -> Option<&'static str> {
    let kinds = if p.pentanomial.pairs() > 0 {
        p.pentanomial.0.iter().filter(|&&c| c > 0).count()
    } else {
        [p.wdl.wins, p.wdl.draws, p.wdl.losses]
            .iter()
            .filter(|&&c| c > 0)
            .count()
    };
    match (kinds, p.pentanomial.pairs()) {
        (1, 1) => Some("one pair: no spread to measure"),
        (1, 0) if p.wdl.games() == 1 => Some("one game: no spread to measure"),
        (1, 0) => Some("every game scored the same: no spread to measure"),
        (1, _) => Some("every pair scored the same: no spread to measure"),
        _ => None,
    }
}

/// [`FiniteEstimate`] of a pairing.
pub fn finite_estimate(p: &super::summary::PairingStats) -> FiniteEstimate {
    let e = p.estimate();
    match perfect_score_bound(p) {
        Some((mark, elo)) => FiniteEstimate {
            score: e.score,
            elo,
            error: None,
            nelo: None,
            los: None,
            bound: mark,
        },
        None if unmeasured_spread(p).is_some() => FiniteEstimate {
            score: e.score,
            elo: e.elo,
            error: None,
            nelo: None,
            los: None,
            bound: "",
        },
        None => FiniteEstimate {
            score: e.score,
            elo: e.elo,
            error: Some(e.error),
            nelo: Some(e.nelo),
            los: Some(e.los),
            bound: "",
        },
    }
}

/// For A with every game won (or lost), where the Elo of the score is infinite: `>` (or `<`)
/// and the one-sided 95% bound of the Elo, from the exact binomial bound on the score,
/// `0.05^(1/games)` (a run of n wins is that unlikely for any score below it).
pub fn perfect_score_bound(p: &super::summary::PairingStats) -> Option<(&'static str, f64)> {
    let games = p.wdl.games();
    if games == 0 {
        return None;
    }
    let bound = crate::stats::elo(0.05f64.powf(1.0 / games as f64));
    if p.wdl.wins == games {
        Some((">", bound))
    } else if p.wdl.losses == games {
        Some(("<", -bound))
    } else {
        None
    }
}

/// `LLR: 2.95 (-2.94, 2.94) [0.00, 5.00]` for a run with an SPRT.
pub fn sprt_line(summary: &Summary) -> Option<String> {
    let test = summary.spec.sprt?;
    let llr = summary
        .decision()
        .map(|d| d.llr)
        .or_else(|| summary.sprt.as_ref().map(|t| t.llr()))?;
    Some(format!(
        "LLR: {} ({}, {}) [{}, {}] {}\n",
        fixed(llr, 2),
        fixed(test.lower(), 2),
        fixed(test.upper(), 2),
        fixed(test.elo0, 2),
        fixed(test.elo1, 2),
        match test.model {
            crate::stats::sprt::EloModel::Logistic => "logistic",
            crate::stats::sprt::EloModel::Normalized => "normalized",
        }
    ))
}

/// How the games that no engine's failure ended went, for the foot of the terminations table:
/// `normal 78, adjudication 0 of 80 games`, and the failures of drawn games (which are charged
/// to no engine) when there are any.
pub fn terminations_footer(summary: &Summary) -> String {
    let (normal, adjudication) = (
        summary.games_ended("normal"),
        summary.games_ended("adjudication"),
    );
    let mut text = format!(
        "normal {normal}, adjudication {adjudication} of {} games",
        summary.games
    );
    let failed: u64 = FAILURES.iter().map(|k| summary.games_ended(k)).sum();
    let charged: u64 = summary.failures.iter().map(|f| f.total()).sum();
    if failed > charged {
        let _ = write!(
            text,
            "; {} drawn after a failure, charged to no engine",
            failed - charged
        );
    }
    text
}

/// The terminations table, as fastchess counts timeouts, disconnects and illegal moves: per
/// engine (in spec order) the games it played and those it lost by each failure of
/// [`FAILURES`], then how the other games ended. `None` when
/// [`Summary::shows_terminations`] says there is nothing worth showing.
pub fn terminations(summary: &Summary) -> Option<String> {
    if !summary.shows_terminations() {
        return None;
    }
    const TITLE: &str = "Terminations";
    // The games each engine saw adjudicated, when some were.
    let adjudicated = summary.games_ended("adjudication") > 0;
    let rows: Vec<(&str, Vec<u64>)> = summary
        .spec
        .engines
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut counts = vec![summary.games_of(i)];
            if adjudicated {
                counts.push(summary.adjudicated[i]);
            }
            counts.extend(summary.failures[i].counts);
            (e.name.as_str(), counts)
        })
        .collect();
    let width = rows
        .iter()
        .map(|(name, _)| name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(TITLE.len(), MAX_NAME_COLUMN);
    let headers: Vec<&str> = std::iter::once("games")
        .chain(adjudicated.then_some("adjudicated"))
        .chain(FAILURES)
        .collect();
    // Each column as wide as its header or its widest number, so large counts stay aligned.
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(c, h)| {
            rows.iter()
                .map(|(_, counts)| counts[c].to_string().len())
                .max()
                .unwrap_or(0)
                .max(h.len())
        })
        .collect();
    let mut out = format!("{TITLE:<width$}");
    for (h, w) in headers.iter().zip(&widths) {
        let _ = write!(out, "  {h:>w$}");
    }
    out.push('\n');
    for (name, counts) in &rows {
        let _ = write!(out, "{:<width$}", cut(name, width));
        for (count, w) in counts.iter().zip(&widths) {
            let _ = write!(out, "  {count:>w$}");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "  ({})", terminations_footer(summary));
    // What happened, where an engine author looks first (a match without --out keeps no file).
    for (e, failures) in summary.spec.engines.iter().zip(&summary.failures) {
        if let Some((kind, x)) = failures.first() {
            let _ = writeln!(
                out,
                "first failure of {}: {kind} in game {}: {}",
                e.name, x.game, x.detail
            );
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str) -> RatingRow {
        RatingRow {
            rank: 1,
            tied: false,
            name: name.to_string(),
            elo: Some(12.5),
            error: Some(3.0),
            games: 10,
            points: 5.0,
            score: 50.0,
            draws: 10.0,
            bound: None,
            reason: None,
            los_next: None,
        }
    }

    #[test]
    fn the_table_takes_any_name_without_panicking() {
        // A 70,000-character name once made the width argument overflow and abort.
        let long = "n".repeat(70_000);
        let table = rating_table(&[row(&long), row("ab-1")]);
        let widest = table.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest < 120, "{widest}");
        assert!(table.contains(&format!("{}…", "n".repeat(MAX_NAME_COLUMN - 1))));
        assert!(table.contains("ab-1"));
    }

    #[test]
    fn the_terminations_table_counts_each_engines_failures() {
        use crate::report::summary::test_games::{mixed, summary};
        let (spec, games) = mixed();
        let table = terminations(&summary(&spec, &games)).unwrap();
        let expected = "\
Terminations  games  adjudicated  timeout  stall  illegal-move  crash  limit
edax              8            1        0      0             1      1      0
ab-4              8            1        1      0             1      0      0
  (normal 2, adjudication 1 of 8 games; 1 drawn after a failure, charged to no engine)
first failure of edax: illegal-move in game 1: e9 <b>
first failure of ab-4: timeout in game 2: no move in 1000 ms
";
        assert_eq!(table, expected);
    }

    #[test]
    fn the_terminations_table_cuts_names_and_widens_for_large_counts() {
        use crate::report::summary::test_games::{game, spec, summary};
        let long = "n".repeat(crate::arena::spec::MAX_NAME_CHARS);
        let spec = spec(&[&long, "b"]);
        let games = [game(&spec, 0, "crash", Some("b"), Some("gone"))];
        let mut s = summary(&spec, &games);
        s.failures[0].counts[1] = 12_345_678;
        let table = terminations(&s).unwrap();
        let lines: Vec<&str> = table.lines().collect();
        let cut = format!("{}…", "n".repeat(MAX_NAME_COLUMN - 1));
        assert!(lines[1].starts_with(&cut), "{table}");
        assert!(
            lines[1].ends_with("  12345678             0      0      0"),
            "{table}"
        );
        assert!(lines[2].ends_with("  1      0"), "{table}");
        // Header and rows are equally wide: every count sits under its header.
        let widths: Vec<usize> = lines[..3].iter().map(|l| l.chars().count()).collect();
        assert_eq!(widths, [widths[0]; 3], "{table}");
        assert_eq!(lines[3], "  (normal 0, adjudication 0 of 1 games)");
        assert_eq!(lines[4], "first failure of b: crash in game 0: gone");
    }

    #[test]
    fn no_terminations_table_when_every_game_ended_by_the_rules() {
        use crate::report::summary::test_games::{game, spec, summary};
        let spec = spec(&["a", "b"]);
        let games = [game(&spec, 0, "normal", Some("a"), None)];
        assert_eq!(terminations(&summary(&spec, &games)), None);
    }

    #[test]
    fn the_leader_of_a_sweep_is_a_bound_not_an_estimate() {
        use crate::stats::ratings::{FitOptions, Results, fit};
        // ab-2 won all 6 games: the old progress line read +17581 (a diverging fit).
        let mut results = Results::new(vec!["ab-2".into(), "random".into()]);
        for _ in 0..3 {
            results.add_pair(0, 1, 1.0, 1.0);
        }
        let ratings = fit(&results, &FitOptions::default());
        let line = leader(&ratings);
        let elo: f64 = line
            .strip_prefix("leader ab-2 >+")
            .unwrap_or_else(|| panic!("{line}"))
            .parse()
            .unwrap();
        // Six wins are as likely as not at L(d)^6 = ½, d twice the leader's rating (mean 0).
        let d = 2.0 * elo;
        let chance = (1.0 / (1.0 + 10f64.powf(-d / 400.0))).powi(6);
        assert!((chance - 0.5).abs() < 0.01, "{line}: {chance}");
        // Before any game, no leader.
        let empty = fit(
            &Results::new(vec!["a".into(), "b".into()]),
            &FitOptions::default(),
        );
        assert_eq!(leader(&empty), "");
    }

    #[test]
    fn fixed_never_prints_minus_zero() {
        assert_eq!(fixed(-0.0, 2), "0.00");
        assert_eq!(fixed(-0.004, 2), "0.00");
        assert_eq!(fixed(-0.005, 1), "0.0");
        assert_eq!(fixed(-0.05, 1), "-0.1");
        assert_eq!(fixed(-12.5, 1), "-12.5");
        assert_eq!(fixed(3.0, 0), "3");
    }

    #[test]
    fn a_list_of_names_reads_as_words() {
        assert_eq!(words_list(&["a"]), "a");
        assert_eq!(words_list(&["a", "b"]), "a and b");
        assert_eq!(words_list(&["a", "b", "c"]), "a, b and c");
        assert_eq!(
            words_list(&["a", "b", "c", "d", "e", "f"]),
            "a, b, c, d and 2 more"
        );
    }

    #[test]
    fn shared_ranks_print_with_an_equals_sign_and_are_said_once() {
        let mut rows = vec![row("a"), row("b"), row("c")];
        for r in &mut rows[..2] {
            r.tied = true;
            r.bound = Some(Bound::Lower);
        }
        rows[2].rank = 3;
        let table = rating_table(&rows);
        assert!(table.lines().any(|l| l.starts_with("  =1 a ")), "{table}");
        assert!(table.lines().any(|l| l.starts_with("  =1 b ")), "{table}");
        assert!(table.lines().any(|l| l.starts_with("   3 c ")), "{table}");
        assert_eq!(table.matches("share a rank").count(), 1, "{table}");
        assert!(table.contains("=1: a and b share a rank"), "{table}");
    }
}

//! The CSV files of a run: `ratings.csv`, `scale.csv`, `crosstable.csv`, `crosstable-long.csv`, `pairs.csv`,
//! `terminations.csv`, `cost.csv`, `cost-by-ply.csv`, each written to a temporary file and renamed. Every cell goes through
//! [`csv_cell`]: names from foreign records and engines' own words are text, never a
//! spreadsheet formula nor bytes that drive a terminal.

use std::borrow::Cow;
use std::path::Path;

use super::cost::CostRow;
use super::summary::{FAILURES, Summary};
use super::table::{RatingRow, RatingScale};
use crate::outputs::write_atomically;
use crate::stats::ratings::{Bound, Ratings};

/// A cell as joute writes it: control characters escaped as the terminal shows them (`\e`,
/// `\u{7}`), and text a spreadsheet would take for a formula (starting with `=`, `+`, `-` or
/// `@`) quoted with a leading `'`, as OWASP advises. Numbers (`-12.50`) stay numbers.
pub fn csv_cell(text: &str) -> Cow<'_, str> {
    let text = crate::outputs::escape_controls(text);
    let formula = text.starts_with(['=', '+', '-', '@']) && text.parse::<f64>().is_err();
    if formula {
        Cow::Owned(format!("'{text}"))
    } else {
        text
    }
}

/// `rows` as CSV bytes, each cell through [`csv_cell`].
fn csv_bytes(header: &[&str], rows: &[Vec<String>]) -> std::io::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header).map_err(std::io::Error::other)?;
    for row in rows {
        w.write_record(row.iter().map(|cell| csv_cell(cell).into_owned()))
            .map_err(std::io::Error::other)?;
    }
    w.into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))
}

/// Writes `rows` as CSV to `path` atomically, each cell through [`csv_cell`].
fn write_csv(path: &Path, header: &[&str], rows: &[Vec<String>]) -> std::io::Result<()> {
    write_atomically(path, &csv_bytes(header, rows)?)
}

/// The columns of [`games_csv`].
pub const GAMES_CSV_HEADER: [&str; 23] = [
    "id",
    "round",
    "pair",
    "first",
    "second",
    "result",
    "score",
    "margin",
    "plies",
    "termination",
    "opening",
    "first_moves",
    "first_nodes",
    "first_depth_mean",
    "first_ms",
    "first_cpu_ms",
    "second_moves",
    "second_nodes",
    "second_depth_mean",
    "second_ms",
    "second_cpu_ms",
    "detail",
    "moves",
];

/// `joute export --format csv`: one row per game ([`GAMES_CSV_HEADER`]) — who played, the
/// result as the log has it and the first engine's score, the margin, the plies the engines
/// played, how it ended, the opening's moves joined by spaces, then for each side (first,
/// second) what its moves cost from the log's per-move arrays: its moves, their nodes (empty
/// when it gave no count), the mean depth of the moves that say one, wall milliseconds (empty in
/// a log without move times) and CPU milliseconds (empty when none was measured); last, what
/// happened when the game did not end by the rules (`detail`) and the engines' moves joined by
/// spaces.
pub fn games_csv(games: &[crate::arena::log::GameLine]) -> std::io::Result<Vec<u8>> {
    let table: Vec<Vec<String>> = games
        .iter()
        .map(|g| {
            let micros = g.move_micros();
            let mut row = vec![
                g.id.to_string(),
                g.round.to_string(),
                g.pair.to_string(),
                g.first.clone(),
                g.second.clone(),
                g.result.clone(),
                f(g.score, 1),
                g.margin.to_string(),
                g.plies.to_string(),
                g.termination.clone(),
                g.opening.join(" "),
            ];
            for side in 0..2 {
                // The engines alternate from the first ply after the opening, whose parity
                // says who moves (as the report counts costs).
                let plies: Vec<usize> = (0..g.plies)
                    .filter(|i| (g.opening.len() + i) % 2 == side)
                    .collect();
                let nodes: Vec<u64> = plies
                    .iter()
                    .filter_map(|&i| g.move_nodes.get(i).copied().flatten())
                    .collect();
                // A log of joute before per-move arrays has each side's total only.
                let old_log = g.move_nodes.is_empty() && micros.is_empty();
                let nodes = if old_log && !plies.is_empty() {
                    g.nodes[side].to_string()
                } else if nodes.is_empty() {
                    String::new()
                } else {
                    nodes.iter().sum::<u64>().to_string()
                };
                let depths: Vec<u32> = plies
                    .iter()
                    .filter_map(|&i| g.move_depth.get(i).copied())
                    .filter(|&d| d > 0)
                    .collect();
                let depth = if depths.is_empty() {
                    String::new()
                } else {
                    f(
                        depths.iter().map(|&d| f64::from(d)).sum::<f64>() / depths.len() as f64,
                        3,
                    )
                };
                let ms = if micros.is_empty() {
                    String::new()
                } else {
                    let us: u64 = plies.iter().filter_map(|&i| micros.get(i)).sum();
                    f(us as f64 / 1000.0, 3)
                };
                let cpu: Vec<u64> = plies
                    .iter()
                    .filter_map(|&i| g.move_cpu_us.get(i).copied().flatten())
                    .collect();
                let cpu = if cpu.is_empty() {
                    String::new()
                } else {
                    f(cpu.iter().sum::<u64>() as f64 / 1000.0, 3)
                };
                row.extend([plies.len().to_string(), nodes, depth, ms, cpu]);
            }
            row.push(g.detail.clone().unwrap_or_default());
            row.push(g.moves.join(" "));
            row
        })
        .collect();
    csv_bytes(&GAMES_CSV_HEADER, &table)
}

use super::table::fixed as f;

/// The columns of `ratings.csv` ([`ratings_csv`]).
const RATINGS_CSV_HEADER: [&str; 10] = [
    "rank", "name", "elo", "error", "games", "points", "score", "draws", "bound", "reason",
];

/// The rows of `ratings.csv`.
fn ratings_cells(rows: &[RatingRow]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| {
            vec![
                r.rank.to_string(),
                r.name.clone(),
                r.elo.map_or(String::new(), |e| f(e, 2)),
                r.error.map_or(String::new(), |e| f(e, 2)),
                r.games.to_string(),
                f(r.points, 1),
                f(r.score, 2),
                f(r.draws, 2),
                r.bound.map_or("", Bound::mark).to_string(),
                r.reason.clone().unwrap_or_default(),
            ]
        })
        .collect()
}

/// `ratings.csv`'s text ([`write_ratings`]), for those who want it without the file (the
/// Python package's `joute.rate`).
pub fn ratings_csv(rows: &[RatingRow]) -> std::io::Result<Vec<u8>> {
    csv_bytes(&RATINGS_CSV_HEADER, &ratings_cells(rows))
}

/// `ratings.csv`: `rank,name,elo,error,games,points,score,draws,bound,reason` (score and
/// draws in percent; bound `>`/`<` when the Elo is a bound, not an estimate; elo empty when
/// there is no estimate, error empty when there is no interval; reason why, when either is
/// missing or the Elo is a bound).
pub fn write_ratings(dir: &Path, rows: &[RatingRow]) -> std::io::Result<()> {
    write_csv(
        &dir.join("ratings.csv"),
        &RATINGS_CSV_HEADER,
        &ratings_cells(rows),
    )
}

/// `scale.csv`: what the ratings mean, one `key,value` row each — the scale, the anchor (or
/// the mean the ratings are relative to), the first-move model, its fitted advantage, and why
/// it is not estimated when it is not.
pub fn write_scale(dir: &Path, scale: &RatingScale) -> std::io::Result<()> {
    let opt = |x: Option<f64>| x.map_or(String::new(), |x| f(x, 2));
    let rows = vec![
        vec!["scale".into(), scale.scale.into()],
        vec!["anchor".into(), scale.anchor.clone().unwrap_or_default()],
        vec!["anchor_elo".into(), f(scale.anchor_elo, 2)],
        vec!["first_move".into(), scale.first_move.into()],
        vec!["first_move_elo".into(), opt(scale.first_move_elo)],
        vec!["first_move_error".into(), opt(scale.first_move_error)],
        vec![
            "first_move_reason".into(),
            scale.first_move_reason.clone().unwrap_or_default(),
        ],
    ];
    write_csv(&dir.join("scale.csv"), &["key", "value"], &rows)
}

/// `crosstable.csv`: one row per engine in rating order, its points against each opponent as
/// `points/games` (empty where they did not meet), then its LOS over each opponent (empty
/// unless both have estimates with intervals).
pub fn write_crosstable(
    dir: &Path,
    summary: &Summary,
    ratings: &Ratings,
    rows: &[RatingRow],
) -> std::io::Result<()> {
    let order: Vec<usize> = rows
        .iter()
        .map(|r| {
            summary
                .spec
                .engine_index(&r.name)
                .expect("rated engines are in the spec")
        })
        .collect();
    let names: Vec<String> = order
        .iter()
        .map(|&i| summary.spec.engines[i].name.clone())
        .collect();
    let mut header = vec!["engine".to_string()];
    header.extend(names.iter().cloned());
    header.extend(names.iter().map(|n| format!("los:{n}")));
    let res = &summary.all_results();
    let table: Vec<Vec<String>> = order
        .iter()
        .map(|&i| {
            let mut row = vec![summary.spec.engines[i].name.clone()];
            for &j in &order {
                let games = res.games(i, j);
                row.push(if i == j || games == 0.0 {
                    String::new()
                } else {
                    format!("{}/{}", res.points(i, j), games)
                });
            }
            for &j in &order {
                row.push(if i == j {
                    String::new()
                } else {
                    ratings.los(i, j).map_or(String::new(), |l| f(l, 4))
                });
            }
            row
        })
        .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    write_csv(&dir.join("crosstable.csv"), &header, &table)
}

/// `crosstable-long.csv`: the cross table in long form, for data tools — one row per ordered
/// pair of engines that played (engines and opponents in rating order, as `crosstable.csv`),
/// `engine,opponent,games,wins,draws,losses,points,score`, from the engine's side, score in
/// percent: numbers only, where `crosstable.csv` writes `points/games`. The games are those of
/// `pairs.csv`.
pub fn write_crosstable_long(
    dir: &Path,
    summary: &Summary,
    rows: &[RatingRow],
) -> std::io::Result<()> {
    let order: Vec<usize> = rows
        .iter()
        .filter_map(|r| summary.spec.engine_index(&r.name))
        .collect();
    let names = summary.spec.engine_names();
    let mut table = Vec::new();
    for &i in &order {
        for &j in &order {
            // The pairing of i and j, its W/D/L turned to i's side.
            let wdl = summary.pairings.iter().find_map(|p| match (p.a, p.b) {
                (a, b) if (a, b) == (i, j) => Some((p.wdl.wins, p.wdl.draws, p.wdl.losses)),
                (a, b) if (a, b) == (j, i) => Some((p.wdl.losses, p.wdl.draws, p.wdl.wins)),
                _ => None,
            });
            let Some((wins, draws, losses)) = wdl else {
                continue;
            };
            let games = wins + draws + losses;
            if i == j || games == 0 {
                continue;
            }
            let points = wins as f64 + 0.5 * draws as f64;
            table.push(vec![
                names[i].clone(),
                names[j].clone(),
                games.to_string(),
                wins.to_string(),
                draws.to_string(),
                losses.to_string(),
                f(points, 1),
                f(100.0 * points / games as f64, 2),
            ]);
        }
    }
    write_csv(
        &dir.join("crosstable-long.csv"),
        &[
            "engine", "opponent", "games", "wins", "draws", "losses", "points", "score",
        ],
        &table,
    )
}

/// `pairs.csv`: one row per engine pair that met, from A's point of view: games, W/D/L,
/// points, score, Elo ± and LOS from the opening pairs, the pentanomial counts, then `bound`
/// (`>`/`<` when the Elo is a one-sided bound, as in `ratings.csv`) and `reason` (why error,
/// nElo and LOS are empty: a bound, or every pair scored the same). The Elo is a bare number,
/// so that the column loads as numbers.
pub fn write_pairs(dir: &Path, summary: &Summary) -> std::io::Result<()> {
    let names = summary.spec.engine_names();
    let rows: Vec<Vec<String>> = summary
        .pairings
        .iter()
        .filter(|p| p.wdl.games() > 0)
        .map(|p| {
            let e = super::table::finite_estimate(p);
            let mut row = vec![
                names[p.a].clone(),
                names[p.b].clone(),
                p.wdl.games().to_string(),
                p.wdl.wins.to_string(),
                p.wdl.draws.to_string(),
                p.wdl.losses.to_string(),
                f(p.wdl.points(), 1),
                f(100.0 * e.score, 2),
                f(e.elo, 2),
                e.error.map_or(String::new(), |x| f(x, 2)),
                e.nelo.map_or(String::new(), |x| f(x, 2)),
                e.los.map_or(String::new(), |x| f(x, 4)),
                p.pentanomial.pairs().to_string(),
            ];
            row.extend(p.pentanomial.0.iter().map(|c| c.to_string()));
            row.push(e.bound.to_string());
            row.push(match e.bound {
                ">" => "A won every game: a one-sided 95% bound".to_string(),
                "<" => "A lost every game: a one-sided 95% bound".to_string(),
                _ => super::table::unmeasured_spread(p)
                    .unwrap_or_default()
                    .to_string(),
            });
            row
        })
        .collect();
    write_csv(
        &dir.join("pairs.csv"),
        &[
            "a", "b", "games", "wins", "draws", "losses", "points", "score", "elo", "error",
            "nelo", "los", "pairs", "ll", "ld", "wl_dd", "wd", "ww", "bound", "reason",
        ],
        &rows,
    )
}

/// `terminations.csv`: one row per engine in spec order, `name,games,adjudicated,timeout,stall,
/// illegal-move,crash,example` — the games it played, those of them that ended by adjudication,
/// those it lost by each failure, and its first failure (lowest game id) as
/// `KIND in game ID: DETAIL` (empty when it never failed).
pub fn write_terminations(dir: &Path, summary: &Summary) -> std::io::Result<()> {
    let rows: Vec<Vec<String>> = summary
        .spec
        .engines
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let failures = &summary.failures[i];
            let mut row = vec![
                e.name.clone(),
                summary.games_of(i).to_string(),
                summary.adjudicated[i].to_string(),
            ];
            row.extend(failures.counts.iter().map(u64::to_string));
            row.push(failures.first().map_or(String::new(), |(kind, x)| {
                format!("{kind} in game {}: {}", x.game, x.detail)
            }));
            row
        })
        .collect();
    let mut header = vec!["name", "games", "adjudicated"];
    header.extend(FAILURES);
    header.push("example");
    write_csv(&dir.join("terminations.csv"), &header, &rows)
}

/// `cost.csv`: one row per engine in rating order, what its moves cost —
/// `rank,name,moves,nodes,nodes_mean,nodes_median,depth_mean,depth_min,depth_max,seldepth_mean,
/// seldepth_max,ms_mean,ms_p95,ms_total,nodes_per_second,cpu_ms_mean,cpu_share,cpu_moves,judged,
/// starved,cut` (empty where nothing says it: an engine that reports no nodes, moves without a
/// CPU time).
pub fn write_cost(dir: &Path, rows: &[CostRow]) -> std::io::Result<()> {
    let opt = |x: Option<f64>, digits: usize| x.map_or(String::new(), |x| f(x, digits));
    let whole = |x: Option<u64>| x.map_or(String::new(), |x| x.to_string());
    let small = |x: Option<u32>| x.map_or(String::new(), |x| x.to_string());
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let c = &r.figures;
            vec![
                r.rank.to_string(),
                r.name.clone(),
                c.moves.to_string(),
                c.nodes.to_string(),
                opt(c.nodes_mean, 2),
                whole(c.nodes_median),
                opt(c.depth_mean, 3),
                small(c.depth_min),
                small(c.depth_max),
                opt(c.seldepth_mean, 3),
                small(c.seldepth_max),
                opt(c.ms_mean, 3),
                opt(c.ms_p95, 3),
                f(c.ms_total, 3),
                opt(c.nodes_per_second, 0),
                opt(c.cpu_ms_mean, 3),
                opt(c.cpu_share, 4),
                c.cpu_moves.to_string(),
                c.judged.to_string(),
                c.starved.to_string(),
                r.cut.to_string(),
            ]
        })
        .collect();
    write_csv(
        &dir.join("cost.csv"),
        &[
            "rank",
            "name",
            "moves",
            "nodes",
            "nodes_mean",
            "nodes_median",
            "depth_mean",
            "depth_min",
            "depth_max",
            "seldepth_mean",
            "seldepth_max",
            "ms_mean",
            "ms_p95",
            "ms_total",
            "nodes_per_second",
            "cpu_ms_mean",
            "cpu_share",
            "cpu_moves",
            "judged",
            "starved",
            "cut",
        ],
        &table,
    )
}

/// `cost-by-ply.csv`: what moves cost by move number, one row per engine and ply it played
/// (the game's ply from 1, the opening counted), engines in spec order —
/// `name,ply,moves,nodes,nodes_mean,ms_total,ms_mean` (`nodes_mean` over the moves with a
/// count, `ms_mean` over the timed ones).
pub fn write_cost_by_ply(dir: &Path, summary: &Summary) -> std::io::Result<()> {
    let mut table = Vec::new();
    for (engine, cost) in summary.spec.engines.iter().zip(&summary.costs) {
        for (k, ply) in cost.by_ply().iter().enumerate() {
            if ply.moves == 0 {
                continue;
            }
            table.push(vec![
                engine.name.clone(),
                (k + 1).to_string(),
                ply.moves.to_string(),
                ply.nodes.to_string(),
                ply.mean_nodes().map_or(String::new(), |x| f(x, 2)),
                f(ply.micros as f64 / 1000.0, 3),
                ply.mean_ms().map_or(String::new(), |x| f(x, 3)),
            ]);
        }
    }
    write_csv(
        &dir.join("cost-by-ply.csv"),
        &[
            "name",
            "ply",
            "moves",
            "nodes",
            "nodes_mean",
            "ms_total",
            "ms_mean",
        ],
        &table,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::test_games::{mixed, summary};

    #[test]
    fn terminations_csv_has_a_row_per_engine_with_its_first_failure() {
        let (spec, games) = mixed();
        let scratch = tempfile::tempdir().unwrap();
        write_terminations(scratch.path(), &summary(&spec, &games)).unwrap();
        let text = std::fs::read_to_string(scratch.path().join("terminations.csv")).unwrap();
        assert_eq!(
            text,
            "name,games,adjudicated,timeout,stall,illegal-move,crash,limit,example\n\
             edax,8,1,0,0,1,1,0,illegal-move in game 1: e9 <b>\n\
             ab-4,8,1,1,0,1,0,0,timeout in game 2: no move in 1000 ms\n"
        );
    }

    /// Every cell of `columns` in the CSV `text`: a number or empty.
    fn assert_numeric(text: &str, columns: &[&str]) {
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let header = r.headers().unwrap().clone();
        for row in r.records() {
            let row = row.unwrap();
            for c in columns {
                let i = header.iter().position(|h| h == *c).expect(c);
                let cell = &row[i];
                assert!(
                    cell.is_empty() || cell.parse::<f64>().is_ok(),
                    "{c}: {cell:?} in {text}"
                );
            }
        }
    }

    #[test]
    fn pairs_csv_writes_a_bound_beside_the_elo_not_in_it() {
        use crate::report::summary::test_games::{game, spec};
        // a wins all 8 against b; b and c draw all 8.
        let spec = spec(&["a", "b", "c"]);
        let schedule = spec.resolved.schedule();
        let games: Vec<_> = (0..schedule.games())
            .filter_map(|id| {
                let slot = schedule.slot(id);
                let names =
                    [slot.first, slot.second].map(|i| spec.resolved.engines[i].name.as_str());
                match names {
                    ["a", "b"] | ["b", "a"] => Some(game(&spec, id, "normal", Some("b"), None)),
                    ["b", "c"] | ["c", "b"] => Some(game(&spec, id, "normal", None, None)),
                    _ => None,
                }
            })
            .collect();
        assert_eq!(games.len(), 16);
        let scratch = tempfile::tempdir().unwrap();
        write_pairs(scratch.path(), &summary(&spec, &games)).unwrap();
        let text = std::fs::read_to_string(scratch.path().join("pairs.csv")).unwrap();
        assert_numeric(
            &text,
            &[
                "games", "wins", "draws", "losses", "points", "score", "elo", "error", "nelo",
                "los", "pairs", "ll", "ld", "wl_dd", "wd", "ww",
            ],
        );
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let header = r.headers().unwrap().clone();
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let last: Vec<&str> = header.iter().skip(header.len() - 2).collect();
        assert_eq!(last, ["bound", "reason"]);
        let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        let ab = rows.iter().find(|r| &r[0] == "a" || &r[1] == "a").unwrap();
        // A's side: the winner's bound is a lower one, the loser's an upper one.
        let (mark, sign) = if &ab[0] == "a" {
            (">", 1.0)
        } else {
            ("<", -1.0)
        };
        assert_eq!(&ab[col("bound")], mark);
        // The one-sided 95% bound of 8 wins in 8: the score 0.05^(1/8), as Elo.
        let p = 0.05f64.powf(1.0 / 8.0);
        let elo = sign * -400.0 * (1.0 / p - 1.0).log10();
        let written: f64 = ab[col("elo")].parse().unwrap();
        assert!((written - elo).abs() < 0.006, "{written} {elo}");
        assert!(!ab[col("reason")].is_empty());
        let bc = rows.iter().find(|r| &r[0] != "a" && &r[1] != "a").unwrap();
        assert_eq!(&bc[col("bound")], "");
        assert_eq!(bc[col("elo")].parse::<f64>().unwrap(), 0.0);
        assert_eq!(&bc[col("error")], "");
        assert!(bc[col("reason")].contains("no spread"), "{:?}", &bc);
    }

    #[test]
    fn crosstable_long_has_both_sides_of_every_pairing_in_numbers() {
        let (spec, games) = mixed();
        let s = summary(&spec, &games);
        let rows: Vec<RatingRow> = ["ab-4", "edax"]
            .iter()
            .enumerate()
            .map(|(rank, n)| RatingRow {
                rank: rank + 1,
                tied: false,
                name: n.to_string(),
                elo: None,
                error: None,
                games: 8,
                points: 0.0,
                score: 0.0,
                draws: 0.0,
                bound: None,
                reason: None,
                los_next: None,
            })
            .collect();
        let scratch = tempfile::tempdir().unwrap();
        write_crosstable_long(scratch.path(), &s, &rows).unwrap();
        let text = std::fs::read_to_string(scratch.path().join("crosstable-long.csv")).unwrap();
        // Counted from the games: each engine's wins, draws and losses against the other.
        let mut expected = String::from("engine,opponent,games,wins,draws,losses,points,score\n");
        for (me, other) in [("ab-4", "edax"), ("edax", "ab-4")] {
            let mut wdl = [0u32; 3];
            for g in &games {
                let mine = if g.first == me {
                    g.score
                } else {
                    1.0 - g.score
                };
                wdl[if mine == 1.0 {
                    0
                } else if mine == 0.5 {
                    1
                } else {
                    2
                }] += 1;
            }
            let points = wdl[0] as f64 + 0.5 * wdl[1] as f64;
            expected.push_str(&format!(
                "{me},{other},8,{},{},{},{points:.1},{:.2}\n",
                wdl[0],
                wdl[1],
                wdl[2],
                points / 8.0 * 100.0
            ));
        }
        assert_eq!(text, expected);
        assert_numeric(
            &text,
            &["games", "wins", "draws", "losses", "points", "score"],
        );
    }

    #[test]
    fn games_csv_gives_each_side_its_own_moves_costs() {
        use crate::arena::log::GameLine;
        // An opening of one move: the second engine plays the first move after it. An old
        // log's move_ms, a count missing, a depth not said, one CPU time.
        let g = GameLine {
            id: 3,
            pair: 1,
            round: 2,
            opening: vec!["4".into()],
            first: "=cmd|x".into(),
            second: "b\u{1b}[2J".into(),
            score: 0.5,
            result: "1/2-1/2".into(),
            margin: 0,
            termination: "adjudication".into(),
            detail: Some("=both scores within 10".into()),
            moves: vec!["1".into(), "2".into(), "3".into()],
            plies: 3,
            move_ms: vec![2, 4, 6],
            move_nodes: vec![Some(10), None, Some(5)],
            move_depth: vec![3, 0, 5],
            move_cpu_us: vec![None, Some(1500), None],
            ..GameLine::default()
        };
        let text = String::from_utf8(games_csv(&[g]).unwrap()).unwrap();
        // Second: moves 0 and 2 (nodes 15, depths 3 and 5, 2 + 6 ms, no CPU time); first:
        // move 1 (no count, no depth, 4 ms, 1.5 CPU ms).
        assert_eq!(
            text,
            format!(
                "{}\n3,2,1,'=cmd|x,b\\e[2J,1/2-1/2,0.5,0,3,adjudication,4,\
                 1,,,4.000,1.500,2,15,4.000,8.000,,'=both scores within 10,1 2 3\n",
                GAMES_CSV_HEADER.join(",")
            )
        );
    }

    #[test]
    fn no_cell_is_a_formula_or_a_terminal_escape() {
        for (cell, written) in [
            ("=cmd|'/C calc'!A0", "'=cmd|'/C calc'!A0"),
            ("+1+1", "'+1+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("b\u{1b}[2Jx\u{7}", "b\\e[2Jx\\u{7}"),
            ("=\u{1b}", "'=\\e"),
            ("-12.50", "-12.50"),
            ("+3", "+3"),
            ("pvs-8", "pvs-8"),
            ("", ""),
        ] {
            assert_eq!(csv_cell(cell), written, "{cell:?}");
        }
        let scratch = tempfile::tempdir().unwrap();
        let path = scratch.path().join("x.csv");
        write_csv(
            &path,
            &["name"],
            &[vec!["=1+1".into()], vec!["\u{1b}]0;pwned\u{7}".into()]],
        )
        .unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !bytes.iter().any(|b| b.is_ascii_control() && *b != b'\n'),
            "{bytes:?}"
        );
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "name\n'=1+1\n\\e]0;pwned\\u{7}\n"
        );
    }
}

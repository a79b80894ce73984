//! A summary from games logs: one run's `games.jsonl`, or the logs of its shards, merged.
//!
//! Each log is read with the `run.json` beside it. Logs of different specs (different hashes)
//! are refused, and so is a log given twice. The first pass reads every line through the
//! checked reader ([`crate::arena::reader`]: each line a game of the run, replayed to its
//! result; a game found again with the same line skipped and said, with another refused) and,
//! for an SPRT run, finds where the test decided, on the prefix of pairs in pair order, so that
//! the second pass (the lines the first one checked, read again) leaves out the same games
//! whatever order the logs list them in.

use std::path::{Path, PathBuf};

use super::summary::Summary;
use crate::arena::log::{GameLine, IdSet, RunInfo, scan_log, scan_log_prefix};
use crate::arena::reader::{Duplicate, RunLines, read_log};
use crate::stats::sequential::SequentialSprt;

/// The `run.json` beside a log.
pub fn run_info_for(log: &Path) -> Result<RunInfo, String> {
    let dir = log.parent().unwrap_or(Path::new("."));
    let path = dir.join("run.json");
    if !path.exists() {
        return Err(format!(
            "{}: no run.json beside this log; joute reads a games log with the run record the run wrote next to it",
            log.display()
        ));
    }
    RunInfo::load(&path)
}

/// What reading the logs found besides the games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// Games read (all logs, before any SPRT cut).
    pub games_read: u64,
    /// Games the (unsharded) run schedules.
    pub games_scheduled: u64,
    /// Logs that ended with a torn line (ignored).
    pub torn: Vec<PathBuf>,
    /// Games logged again with the same line (skipped), one entry per log.
    pub duplicates: Vec<Duplicate>,
}

/// Reads `logs` (one run, or the shards of one run) into a summary.
pub fn summarize_logs(logs: &[PathBuf]) -> Result<(RunInfo, Summary, Loaded), String> {
    let first = logs.first().ok_or("no log given")?;
    let info = run_info_for(first)?;
    for (i, log) in logs.iter().enumerate() {
        if let Some(earlier) = logs[..i].iter().find(|l| crate::outputs::same_file(l, log)) {
            return Err(format!(
                "{} is given twice (also as {}); give each log once",
                log.display(),
                earlier.display()
            ));
        }
    }
    for log in &logs[1..] {
        let other = run_info_for(log)?;
        if other.spec_hash != info.spec_hash || other.extends != info.extends {
            return Err(format!(
                "{} belongs to spec {} ('{}'), but {} to spec {} ('{}'); only logs of one run merge (joute rate rates logs of different runs jointly)",
                log.display(),
                other.spec_hash,
                other.spec.name,
                first.display(),
                info.spec_hash,
                info.spec.name
            ));
        }
    }
    let scheduled = info.spec.schedule().games();
    let mut loaded = Loaded {
        games_scheduled: scheduled,
        ..Loaded::default()
    };

    // Pass 1: every line checked, and where an SPRT decided.
    let mut hashes = vec![info.spec_hash.clone()];
    hashes.extend(info.extends.iter().cloned());
    let mut run = RunLines::new(&info.spec, hashes);
    let mut sprt = info.spec.sprt.map(SequentialSprt::new);
    let mut checked = Vec::new();
    for log in logs {
        let scan = read_log(log, &mut run, |game| {
            if let Some(test) = &mut sprt {
                let colour = (game.id % 2) as u8;
                let score_a = if colour == 0 {
                    game.score
                } else {
                    1.0 - game.score
                };
                test.add_game(game.pair, colour, score_a);
            }
            Ok(())
        })?;
        loaded.games_read += scan.games;
        if scan.torn {
            loaded.torn.push(log.clone());
        }
        checked.push(scan.good_bytes);
    }
    loaded.duplicates = run.duplicates().to_vec();

    // Pass 2: the statistics, from the lines pass 1 checked (a live log may have grown since),
    // each game once.
    let mut summary = Summary::new(&info.spec, &info.spec_hash);
    summary.accept_earlier(&info.extends);
    summary.set_cutoff(sprt.and_then(|t| t.decided()).map(|d| d.pairs));
    let mut added = IdSet::new(scheduled);
    for (log, &bytes) in logs.iter().zip(&checked) {
        scan_log_prefix(log, bytes, |game| {
            if added.insert(game.id).is_err() {
                return Ok(());
            }
            summary.add(&game).map(|_| ()).map_err(|e| e.0)
        })?;
    }
    Ok((info, summary, loaded))
}

/// The games of logs of one or more runs, as `joute rate` rates them jointly: a ladder grown
/// run by run. Logs are grouped by run (spec hash; the shards of one run form one group), each
/// group read and checked as [`summarize_logs`] reads one run (its games against its schedule,
/// no game twice, an SPRT's games after its decision left out); engines are matched across runs
/// by name, and two runs that give one name to different configurations are refused, naming
/// both run records and the first key that differs.
pub struct Runs {
    /// Each group's games, in log order: the two games of an opening pair are one cluster
    /// within their group.
    pub games: Vec<Vec<crate::arena::records::RatedGame>>,
    /// Each group's run name and the games rated from it.
    pub runs: Vec<(String, usize)>,
    /// What each engine's moves cost over every run, by name, with the moves its time limit
    /// cut.
    pub costs: std::collections::BTreeMap<String, (crate::stats::cost::Cost, u64)>,
}

/// Reads `logs` of one or more runs of one game ([`Runs`]).
pub fn rated_games_of_runs(logs: &[PathBuf]) -> Result<Runs, String> {
    use crate::arena::records::RatedGame;
    use std::collections::BTreeMap;

    // Group the logs by run, keeping the order the runs were first named.
    let mut groups: Vec<(RunInfo, Vec<PathBuf>)> = Vec::new();
    for log in logs {
        let info = run_info_for(log)?;
        match groups
            .iter_mut()
            .find(|(other, _)| other.spec_hash == info.spec_hash)
        {
            Some((_, members)) => members.push(log.clone()),
            None => groups.push((info, vec![log.clone()])),
        }
    }
    let Some((first, first_logs)) = groups.first() else {
        return Err("no log given".into());
    };
    // One game, and one configuration per name, across the runs.
    let mut engines: BTreeMap<String, (serde_json::Value, &Path)> = BTreeMap::new();
    for (info, members) in &groups {
        if info.spec.game != first.spec.game {
            return Err(format!(
                "{} is a run of {}, but {} of {}; only runs of one game rate together",
                members[0].display(),
                info.spec.game,
                first_logs[0].display(),
                first.spec.game
            ));
        }
        for engine in &info.spec.engines {
            let config = configuration(engine);
            match engines.get(&engine.name) {
                None => {
                    engines.insert(engine.name.clone(), (config, &members[0]));
                }
                Some((known, other)) if *known != config => {
                    return Err(format!(
                        "engine '{}' is not the same engine in {} and {} ({}); give one of them another name",
                        engine.name,
                        run_record(other).display(),
                        run_record(&members[0]).display(),
                        first_difference(known, &config)
                    ));
                }
                Some(_) => {}
            }
        }
    }
    let mut runs = Runs {
        games: Vec::new(),
        runs: Vec::new(),
        costs: BTreeMap::new(),
    };
    for (info, members) in &groups {
        // The checks and the SPRT's cut of one run, as joute report reads it.
        let (_, summary, _) = summarize_logs(members)?;
        for (i, engine) in info.spec.engines.iter().enumerate() {
            let (cost, cut) = runs.costs.entry(engine.name.clone()).or_default();
            cost.merge(&summary.costs[i]);
            *cut += summary.timeouts[i];
        }
        let cutoff = summary.cutoff();
        let mut games = Vec::new();
        // The games the summary read (checked and replayed, each once): a game logged twice
        // is rated once, and lines a running log gained since are left out.
        let mut taken = IdSet::new(summary.schedule_games());
        for log in members {
            scan_log(log, |game: GameLine| {
                if summary.has_game(game.id)
                    && cutoff.is_none_or(|pairs| game.pair < pairs)
                    && taken.insert(game.id).is_ok()
                {
                    games.push(RatedGame {
                        first: game.first,
                        second: game.second,
                        score: game.score,
                        pair: Some(game.pair.to_string()),
                    });
                }
                Ok(())
            })?;
        }
        runs.runs.push((info.spec.name.clone(), games.len()));
        runs.games.push(games);
    }
    Ok(runs)
}

/// The games of the files `joute rate` rates, read by their extension: result PGN (`.pgn`,
/// White moved first; a `JoutePair` tag makes the two games of an opening pair one cluster),
/// WThor (`.wtb`, with the players' names from the `.jou` beside it when there is one), GGF
/// (`.ggf`), and joute's games logs (`.jsonl`, read together by [`rated_games_of_runs`]).
/// The record files come first in `games`, one group each in the order given, then the logs'
/// runs; `runs` and `costs` are the logs' (empty without logs). Errors name the file.
pub fn rated_games(paths: &[PathBuf]) -> Result<Runs, String> {
    let is_log = |p: &&PathBuf| p.extension().is_some_and(|e| e == "jsonl");
    let logs: Vec<PathBuf> = paths.iter().filter(is_log).cloned().collect();
    let mut games = paths
        .iter()
        .filter(|p| !is_log(p))
        .map(|path| rated_games_of_records(path))
        .collect::<Result<Vec<_>, _>>()?;
    let mut runs = Runs {
        games: Vec::new(),
        runs: Vec::new(),
        costs: std::collections::BTreeMap::new(),
    };
    if !logs.is_empty() {
        runs = rated_games_of_runs(&logs)?;
    }
    games.append(&mut runs.games);
    runs.games = games;
    Ok(runs)
}

/// The games of one record file (PGN, WThor or GGF), by its extension ([`rated_games`]).
pub fn rated_games_of_records(
    path: &Path,
) -> Result<Vec<crate::arena::records::RatedGame>, String> {
    use crate::arena::records::{self, RatedGame};
    use crate::inputs::{self, Input};
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let fail = |e: String| format!("{}: {e}", path.display());
    let bytes =
        inputs::read(path, Input::Records).map_err(|e| fail(format!("cannot read: {e}")))?;
    let text = || String::from_utf8_lossy(&bytes).into_owned();
    let from_records = |rs: Vec<records::Record>| {
        rs.into_iter()
            .map(|r| RatedGame {
                first: r.first,
                second: r.second,
                score: r.score,
                pair: None,
            })
            .collect()
    };
    Ok(match ext.as_str() {
        "pgn" => records::pgn::read(&text()).map_err(fail)?,
        "ggf" => from_records(records::ggf::read(&text()).map_err(fail)?),
        "wtb" => {
            let jou = path.with_extension("jou");
            let players = if jou.is_file() {
                let b = inputs::read(&jou, Input::Records)
                    .map_err(|e| format!("{}: cannot read: {e}", jou.display()))?;
                Some(
                    records::wthor::read_players(&b)
                        .map_err(|e| format!("{}: {e}", jou.display()))?,
                )
            } else {
                None
            };
            from_records(records::wthor::read(&bytes, players.as_deref()).map_err(fail)?)
        }
        _ => {
            return Err(fail(
                "unknown record file; expected .pgn (results), .wtb (WThor), .ggf or a joute games log (.jsonl)".into(),
            ));
        }
    })
}

/// The `run.json` beside `log`, for messages.
fn run_record(log: &Path) -> PathBuf {
    log.parent().unwrap_or(Path::new(".")).join("run.json")
}

/// What makes an engine the engine it is, for comparing runs: everything `run.json` records
/// but its name, where its weights were read from, and its own clock (time odds are a
/// condition of the games, not of the engine).
fn configuration(engine: &crate::arena::spec::ResolvedEngine) -> serde_json::Value {
    let mut value = serde_json::to_value(engine).expect("an engine serialises");
    if let Some(map) = value.as_object_mut() {
        for key in ["name", "weights_origin", "clock"] {
            map.remove(key);
        }
    }
    value
}

/// `depth: 8 against 6`: the first key whose value differs.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value) -> String {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return "their records differ".into();
    };
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let shown = |v: Option<&serde_json::Value>| {
        let text = v.map_or("none".to_string(), |v| v.to_string());
        if text.chars().count() > 40 {
            format!("{}…", text.chars().take(40).collect::<String>())
        } else {
            text
        }
    };
    keys.into_iter()
        .find(|k| a.get(*k) != b.get(*k))
        .map_or("their records differ".into(), |k| {
            format!("{k}: {} against {}", shown(a.get(k)), shown(b.get(k)))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_files_are_read_by_extension_in_the_order_given() {
        let dir = tempfile::tempdir().unwrap();
        let game = |w: &str, b: &str, r: &str| {
            format!("[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"{r}\"]\n\n{r}\n\n")
        };
        let a = dir.path().join("a.PGN");
        std::fs::write(&a, game("x", "y", "1-0") + &game("y", "x", "1/2-1/2")).unwrap();
        let b = dir.path().join("b.pgn");
        std::fs::write(&b, game("y", "z", "0-1")).unwrap();
        let read = rated_games(&[a, b]).unwrap();
        let scores: Vec<Vec<(String, String, f64)>> = (read.games.iter())
            .map(|g| {
                g.iter()
                    .map(|g| (g.first.clone(), g.second.clone(), g.score))
                    .collect()
            })
            .collect();
        let t = |f: &str, s: &str, x: f64| (f.to_string(), s.to_string(), x);
        assert_eq!(
            scores,
            [
                vec![t("x", "y", 1.0), t("y", "x", 0.5)],
                vec![t("y", "z", 0.0)]
            ]
        );
        assert!(read.runs.is_empty() && read.costs.is_empty());
    }

    #[test]
    fn an_unknown_extension_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.txt");
        std::fs::write(&path, "").unwrap();
        let Err(e) = rated_games(std::slice::from_ref(&path)) else {
            panic!("a .txt file was read")
        };
        assert!(e.starts_with(&path.display().to_string()), "{e}");
        assert!(e.contains("unknown record file"), "{e}");
    }
}

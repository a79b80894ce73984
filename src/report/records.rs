//! A run's games as records other tools read (PGN, GGF, WThor, Connect 4 move lists, PSQ,
//! SGF; the formats are in [`crate::arena::records`]): for `joute export`, for a run whose
//! spec has `[output] records`, both from the logs in game-id order, and game by game while
//! the run plays ([`LiveRecords`]).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::Summary;
use crate::arena::log::{GameLine, IdSet, scan_log};
use crate::arena::records::{self, Format, Record};
use crate::games::GameKind;
use crate::outputs::write_atomically;

/// The milliseconds PSQ gives each move: the referee's measure when the game was on a clock
/// (its time then matters), else none (0 in the file).
fn psq_times(game: &GameLine) -> Vec<u64> {
    if game.not_reproducible.iter().any(|r| r == "clock") {
        game.move_micros()
            .iter()
            .map(|us| (us + 500) / 1000)
            .collect()
    } else {
        Vec::new()
    }
}

/// The record of one logged game.
pub fn record_of(game: &GameLine) -> Record {
    Record {
        id: Some(game.id),
        pair: Some(game.pair),
        round: Some(game.round),
        first: game.first.clone(),
        second: game.second.clone(),
        score: game.score,
        margin: Some(game.margin),
        termination: game.termination.clone(),
        moves: game.opening.iter().chain(&game.moves).cloned().collect(),
    }
}

/// Why records could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RecordsError {
    /// A log could not be read.
    #[error("{0}")]
    Log(String),
    /// The games do not fit the format.
    #[error("{0}")]
    Format(String),
    /// A file could not be written.
    #[error("{}: cannot write: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
}

/// The games the report counts, in id order: those of `logs` (shards of one run), without the
/// games played after an SPRT decision.
pub fn counted_games(logs: &[PathBuf], summary: &Summary) -> Result<Vec<GameLine>, RecordsError> {
    let cutoff = summary.decision().map(|d| d.pairs);
    let mut games = Vec::new();
    // The games the summary read (checked, each once): a game logged twice is written once,
    // and lines a running log gained since are left for the next report.
    let mut taken = IdSet::new(summary.schedule_games());
    for log in logs {
        scan_log(log, |game| {
            if summary.has_game(game.id)
                && cutoff.is_none_or(|c| game.pair < c)
                && taken.insert(game.id).is_ok()
            {
                games.push(game);
            }
            Ok(())
        })
        .map_err(RecordsError::Log)?;
    }
    games.sort_by_key(|g| g.id);
    Ok(games)
}

/// The board of Morpion games, (0, 0) for the others.
fn board(kind: &GameKind) -> (u8, u8) {
    match *kind {
        GameKind::Morpion { rows, cols, .. } => (rows, cols),
        _ => (0, 0),
    }
}

/// Checks where `joute export` is to write `format`: `out` (and the `.jou` beside a WThor
/// file) is none of the `logs` nor their run records, no run's own file, and no existing file
/// unless `force` or `default` (the format's default name beside the log, joute's own file);
/// a PSQ folder is no run's folder, and an existing one of other files needs `force` too.
pub fn check_records_out(
    format: Format,
    out: &Path,
    logs: &[PathBuf],
    force: bool,
    default: bool,
) -> Result<(), String> {
    use crate::outputs::{check_output_file, is_run_folder};
    let records: Vec<PathBuf> = logs
        .iter()
        .map(|l| l.parent().unwrap_or(Path::new(".")).join("run.json"))
        .collect();
    let inputs: Vec<&Path> = logs.iter().chain(&records).map(PathBuf::as_path).collect();
    if format != Format::Psq {
        crate::outputs::check_output_parent(out)?;
    }
    match format {
        Format::Psq => {
            if is_run_folder(out) || inputs.iter().any(|i| crate::outputs::same_file(out, i)) {
                return Err(format!(
                    "{}: a run's folder or an input; PSQ records go in a folder of their own",
                    out.display()
                ));
            }
            let holds_files = std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some());
            if out.exists() && !out.is_dir() || holds_files && !force && !default {
                return Err(format!(
                    "{} exists; add --force to write the PSQ files in it, or name a new folder",
                    out.display()
                ));
            }
            Ok(())
        }
        Format::Wtb => {
            check_output_file(out, &inputs, force, default)?;
            check_output_file(&out.with_extension("jou"), &inputs, force, default)
        }
        _ => check_output_file(out, &inputs, force, default),
    }
}

/// Writes `games` of a `kind` run named `event` as `format` to `out` (a file; for PSQ a folder
/// of `ID.psq` files), each file replaced whole; returns the files.
pub fn write_records(
    format: Format,
    kind: &GameKind,
    event: &str,
    games: &[GameLine],
    out: &Path,
) -> Result<Vec<PathBuf>, RecordsError> {
    format.check_game(kind).map_err(RecordsError::Format)?;
    // Every format gets only games that replay, as WThor's writer demands: no illegal move,
    // no stray byte in a move, no result the moves contradict.
    for game in games {
        crate::arena::replay::check_game(kind, game).map_err(RecordsError::Format)?;
    }
    let put = |path: &Path, bytes: &[u8]| -> Result<PathBuf, RecordsError> {
        write_atomically(path, bytes).map_err(|cause| RecordsError::Io {
            path: path.to_path_buf(),
            cause,
        })?;
        Ok(path.to_path_buf())
    };
    let records: Vec<Record> = games.iter().map(record_of).collect();
    let (rows, cols) = board(kind);
    Ok(match format {
        Format::Wtb => {
            let w = records::wthor::write(&records).map_err(RecordsError::Format)?;
            vec![
                put(out, &w.games)?,
                put(&out.with_extension("jou"), &w.players)?,
            ]
        }
        Format::Psq => {
            std::fs::create_dir_all(out).map_err(|cause| RecordsError::Io {
                path: out.to_path_buf(),
                cause,
            })?;
            let mut files = Vec::new();
            for (r, g) in records.iter().zip(games) {
                let text = records::psq::write(r, rows, cols, &psq_times(g));
                files.push(put(&out.join(format!("{}.psq", g.id)), text.as_bytes())?);
            }
            files
        }
        Format::Csv => {
            let bytes = super::files::games_csv(games).map_err(|cause| RecordsError::Io {
                path: out.to_path_buf(),
                cause,
            })?;
            vec![put(out, &bytes)?]
        }
        _ => vec![put(out, text(format, kind, event, &records).as_bytes())?],
    })
}

/// The text of `records` in a text format that holds many games in one file.
fn text(format: Format, kind: &GameKind, event: &str, records: &[Record]) -> String {
    let (rows, cols) = board(kind);
    match format {
        Format::Pgn => records::pgn::write(records, event),
        Format::Ggf => records::ggf::write(records),
        Format::Moves => records::movelist::write(records),
        Format::Sgf => records::sgf::write(records, &kind.to_string(), rows, cols),
        Format::Wtb | Format::Psq | Format::Csv => {
            unreachable!("not a text format of many games")
        }
    }
}

/// A run's records as its games finish (`[output] records`): each game appended to the text
/// formats' files, written as one file for PSQ; WThor, whose header counts the games, waits for
/// [`write_records`] at the end of the session, which also rewrites every file in game-id
/// order. A file cut short by a crash is thus rewritten whole by the next session's end.
pub struct LiveRecords {
    kind: GameKind,
    event: String,
    out: PathBuf,
    formats: Vec<Format>,
    /// The open text files, by format.
    files: Vec<(Format, File)>,
}

impl LiveRecords {
    /// Ready to append `formats` in the run folder `out`, under their default names.
    pub fn new(kind: GameKind, event: &str, out: &Path, formats: &[Format]) -> LiveRecords {
        LiveRecords {
            kind,
            event: event.to_string(),
            out: out.to_path_buf(),
            formats: formats.to_vec(),
            files: Vec::new(),
        }
    }

    /// Adds `game` to every format that takes games one at a time.
    pub fn append(&mut self, game: &GameLine) -> Result<(), RecordsError> {
        let record = [record_of(game)];
        for &format in &self.formats {
            let path = self.out.join(format.default_name());
            let io = |cause| RecordsError::Io {
                path: path.clone(),
                cause,
            };
            match format {
                // WThor's header counts the games; a CSV's rows come from the whole log.
                Format::Wtb | Format::Csv => {}
                Format::Psq => {
                    let (rows, cols) = board(&self.kind);
                    std::fs::create_dir_all(&path).map_err(io)?;
                    let file = path.join(format!("{}.psq", game.id));
                    let text = records::psq::write(&record[0], rows, cols, &psq_times(game));
                    write_atomically(&file, text.as_bytes())
                        .map_err(|cause| RecordsError::Io { path: file, cause })?;
                }
                _ => {
                    let text = text(format, &self.kind, &self.event, &record);
                    let i = match self.files.iter().position(|(f, _)| *f == format) {
                        Some(i) => i,
                        None => {
                            let file = crate::outputs::open_append(&path).map_err(io)?;
                            self.files.push((format, file));
                            self.files.len() - 1
                        }
                    };
                    self.files[i].1.write_all(text.as_bytes()).map_err(io)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game cut short: lost by the side to move's crash, or adjudicated.
    fn game(id: u64, moves: &[&str], score: f64, termination: &str) -> GameLine {
        let line = format!(
            r#"{{"id":{id},"pair":{},"round":0,"opening_index":0,"opening":[],"first":"a","second":"b","score":{score},"result":"{}","margin":{},"termination":"{termination}","moves":{},"plies":{},"nodes":[0,0],"timed_out":false,"seed":1,"spec":"x","seconds":0.0}}"#,
            id / 2,
            crate::arena::records::result_text(score),
            (2.0 * score - 1.0) as i32,
            serde_json::to_string(moves).unwrap(),
            moves.len()
        );
        serde_json::from_str(&line).unwrap()
    }

    #[test]
    fn appended_games_read_as_the_whole_file_written_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let games = [
            game(0, &["4", "4", "3"], 1.0, "crash"),
            game(1, &["3", "4"], 0.5, "adjudication"),
            game(2, &["1"], 0.0, "adjudication"),
        ];
        let kind = GameKind::Connect4;
        let mut live = LiveRecords::new(kind, "e", dir.path(), &[Format::Moves, Format::Pgn]);
        for g in &games {
            live.append(g).unwrap();
        }
        let appended =
            |f: Format| std::fs::read_to_string(dir.path().join(f.default_name())).unwrap();
        let (moves, pgn) = (appended(Format::Moves), appended(Format::Pgn));
        assert_eq!(moves, "443 1-0\n34 1/2-1/2\n1 0-1\n");
        for format in [Format::Moves, Format::Pgn] {
            let whole = dir.path().join(format!("whole.{}", format.name()));
            write_records(format, &kind, "e", &games, &whole).unwrap();
            let expected = std::fs::read_to_string(&whole).unwrap();
            assert_eq!(
                if format == Format::Moves {
                    &moves
                } else {
                    &pgn
                },
                &expected
            );
        }
    }

    #[test]
    fn no_format_takes_a_game_that_does_not_replay() {
        let dir = tempfile::tempdir().unwrap();
        let othello = GameKind::Othello;
        let mut bad = game(0, &["f5", "d6", "c3"], 1.0, "crash");
        write_records(
            Format::Ggf,
            &othello,
            "e",
            &[bad.clone()],
            &dir.path().join("a.ggf"),
        )
        .unwrap();
        for (moves, piece) in [
            (["f5", "f5", "c3"], "cannot be played"),
            (["f5", "d6", "c3\u{1b}[2J"], "cannot be played"),
            (["F5", "d6", "c3"], "joute writes this move 'f5'"),
        ] {
            bad.moves = moves.iter().map(|m| m.to_string()).collect();
            for format in [Format::Ggf, Format::Wtb, Format::Pgn] {
                let out = dir.path().join(format!("b.{}", format.name()));
                let err = write_records(format, &othello, "e", &[bad.clone()], &out).unwrap_err();
                assert!(err.to_string().contains(piece), "{format:?}: {err}");
                assert!(!out.exists());
            }
        }
    }
}

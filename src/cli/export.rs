//! `joute export`: a run's games as records other tools read (PGN, GGF, WThor, Connect 4 move
//! lists, PSQ, SGF). The games are those `joute report` counts: logs of one run (shards
//! merge), sorted by id, the games after an SPRT decision left out.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{ExportArgs, InputError};
use joute::arena::log::{GameLine, scan_log, write_atomically};
use joute::arena::records::{self, Format, Record};
use joute::games::GameKind;
use joute::report::load::summarize_logs;

/// Runs `joute export`.
pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let format = Format::parse(&args.format).map_err(InputError)?;
    let _locks = super::run::open_logs(&args.logs, false)?;
    let (info, summary, _) = summarize_logs(&args.logs).map_err(InputError)?;
    let kind = GameKind::parse(&info.spec.game)?;
    format.check_game(&kind).map_err(InputError)?;
    let cutoff = summary.decision().map(|d| d.pairs);
    let mut games: Vec<GameLine> = Vec::new();
    for log in &args.logs {
        scan_log(log, |game| {
            if cutoff.is_none_or(|c| game.pair < c) {
                games.push(game);
            }
            Ok(())
        })
        .map_err(InputError)?;
    }
    games.sort_by_key(|g| g.id);
    let records: Vec<Record> = games.iter().map(Record::from_line).collect();
    let out = args.out.clone().unwrap_or_else(|| {
        args.logs[0]
            .parent()
            .unwrap_or(Path::new("."))
            .join(format.default_name())
    });
    let written = write(format, &kind, &info.spec.name, &records, &games, &out)?;
    if args.json {
        let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        say!(
            "{}",
            json!({"format": format.name(), "games": records.len(), "files": files})
        )?;
    } else {
        say!(
            "{} games of '{}' as {}: {}",
            records.len(),
            info.spec.name,
            format.name(),
            out.display()
        )?;
    }
    Ok(())
}

/// Writes the records to `out` (a file; for PSQ a folder of `ID.psq` files); returns the files.
fn write(
    format: Format,
    kind: &GameKind,
    event: &str,
    records: &[Record],
    games: &[GameLine],
    out: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    let put = |path: &Path, bytes: &[u8]| -> anyhow::Result<PathBuf> {
        write_atomically(path, bytes)
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
        Ok(path.to_path_buf())
    };
    let (rows, cols) = match *kind {
        GameKind::Morpion { rows, cols, .. } => (rows, cols),
        _ => (0, 0),
    };
    Ok(match format {
        Format::Pgn => vec![put(out, records::pgn::write(records, event).as_bytes())?],
        Format::Ggf => vec![put(out, records::ggf::write(records).as_bytes())?],
        Format::Moves => vec![put(out, records::movelist::write(records).as_bytes())?],
        Format::Sgf => vec![put(
            out,
            records::sgf::write(records, &kind.to_string(), rows, cols).as_bytes(),
        )?],
        Format::Wtb => {
            let w = records::wthor::write(records).map_err(InputError)?;
            let players = out.with_extension("jou");
            vec![put(out, &w.games)?, put(&players, &w.players)?]
        }
        Format::Psq => {
            std::fs::create_dir_all(out)
                .map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", out.display()))?;
            let mut files = Vec::new();
            for (r, g) in records.iter().zip(games) {
                let text = records::psq::write(r, rows, cols, &g.move_ms);
                files.push(put(&out.join(format!("{}.psq", g.id)), text.as_bytes())?);
            }
            files
        }
    })
}

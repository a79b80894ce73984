//! `joute export`: a run's games as records other tools read (PGN, GGF, WThor, Connect 4 move
//! lists, PSQ, SGF). The games are those `joute report` counts: logs of one run (shards
//! merge), sorted by id, the games after an SPRT decision left out.

use std::path::Path;

use serde_json::json;

use super::{ExportArgs, InputError};
use joute::arena::records::Format;
use joute::games::GameKind;
use joute::report::load::summarize_logs;
use joute::report::records::{RecordsError, check_records_out, counted_games, write_records};

/// Runs `joute export`.
pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let format = Format::parse(&args.format).map_err(InputError)?;
    let _locks = super::run::open_logs(&args.logs, false)?;
    let (info, summary, _) = summarize_logs(&args.logs).map_err(InputError)?;
    let kind = GameKind::parse(&info.spec.game)?;
    format.check_game(&kind).map_err(InputError)?;
    let out = args.out.clone().unwrap_or_else(|| {
        args.logs[0]
            .parent()
            .unwrap_or(Path::new("."))
            .join(format.default_name())
    });
    check_records_out(format, &out, &args.logs, args.force, args.out.is_none())
        .map_err(InputError)?;
    let games = counted_games(&args.logs, &summary).map_err(|e| InputError(e.to_string()))?;
    let written =
        write_records(format, &kind, &info.spec.name, &games, &out).map_err(|e| match e {
            RecordsError::Io { .. } => anyhow::Error::new(e),
            other => InputError(other.to_string()).into(),
        })?;
    if args.json {
        let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        say!(
            "{}",
            json!({"format": format.name(), "games": games.len(), "files": files})
        )?;
    } else {
        say!(
            "{} games of '{}' as {}: {}",
            games.len(),
            info.spec.name,
            format.name(),
            out.display()
        )?;
    }
    Ok(())
}

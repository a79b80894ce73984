//! A tournament run from a program, without the command line: a spec from a string, a session
//! in a scratch folder, an observer that prints every tenth game, then the report and the table.
//!
//! `cargo run --release --example session`

use joute::arena::log::GameLine;
use joute::arena::{CancelToken, TournamentSpec};
use joute::report::{Summary, table, write_run_report};
use joute::tournament::{Observer, Options, Session};

const SPEC: &str = r#"
name = "library-example"
game = "connect4"
seed = 7
openings = { plies = 4, count = 20 }

[[engine]]
name = "alphabeta-2"
algorithm = "alphabeta"
depth = 2

[[engine]]
name = "alphabeta-4"
algorithm = "alphabeta"
depth = 4
"#;

/// Hears every finished game (on the calling thread, in the order games finish).
struct EveryTenth;

impl Observer for EveryTenth {
    fn started(&mut self, scheduled: u64, remaining: u64) {
        println!("{remaining} of {scheduled} games to play");
    }

    fn game_finished(&mut self, game: &GameLine, summary: &Summary) {
        if summary.games.is_multiple_of(10) {
            println!(
                "{} games: last was {} vs {}, {}",
                summary.games, game.first, game.second, game.result
            );
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = TournamentSpec::parse(SPEC, "(example)")?;
    let folder = tempfile::tempdir()?;
    let options = Options {
        threads: 2,
        shard: None,
        extend: false,
        force: false,
        fresh: false,
        anchor: None,
        oversubscribe: false,
    };
    let session = Session::open(&spec, folder.path(), options)?;
    // A token the caller may raise (from another thread, a signal handler) to stop scheduling.
    let cancel = CancelToken::new();
    let outcome = session.play(&mut EveryTenth, &cancel)?;
    let log = folder.path().join("games.jsonl");
    let report = write_run_report(&outcome.summary, folder.path(), &outcome.info, &[log])?;
    print!("{}", table::rating_table(&report.rows));
    println!("({} games in {:.1} s)", outcome.played, outcome.seconds);
    Ok(())
}

//! A tuning run from a program, without the command line: a spec from a string, a tuning
//! session in a scratch folder, an observer that prints each candidate and each match, then the
//! tuned weights and the confirmation's verdict.
//!
//! `cargo run --release --example tune`

use joute::arena::CancelToken;
use joute::tournament::Observer;
use joute::tune::checkpoint::{Checkpoint, MatchKind};
use joute::tune::record::HistoryLine;
use joute::tune::session::{PlayedMatch, TuneObserver, TuneOptions, TuneSession};

/// Two Connect 4 weights tuned by hill climbing for a few candidates, at depth 2.
const SPEC: &str = r#"
name = "library-tune-example"
game = "connect4"
seed = 11
method = "hill-climb"

[engine]
algorithm = "alphabeta"
depth = 2

[openings]
plies = 8

[budget]
iterations = 6

[hill]
batch = 8
max_pairs = 64

[confirm]
games = 200
aa_games = 0

[[param]]
name = "centre"
min = -10
max = 20
step = 4

[[param]]
name = "own_threes"
min = -20
max = 40
step = 8
"#;

/// Prints what the run does (on the calling thread).
struct Printer;

impl TuneObserver for Printer {
    fn step(&mut self, line: &HistoryLine, ck: &Checkpoint) {
        println!(
            "candidate {}: {:?} {} ({} games so far)",
            line.k,
            line.candidate,
            if line.accepted {
                "accepted"
            } else {
                "rejected"
            },
            ck.games
        );
    }

    fn match_starting(&mut self, kind: MatchKind, games: u64) -> std::io::Result<()> {
        println!("{} match: {games} games", kind.folder());
        Ok(())
    }

    fn games(&mut self) -> &mut dyn Observer {
        // The match's games one by one: this example does not listen.
        self
    }

    fn match_played(&mut self, kind: MatchKind, played: &PlayedMatch) -> std::io::Result<()> {
        let r = &played.result;
        println!(
            "{}: {:+.1} ± {:.1} Elo over {} games",
            kind.folder(),
            r.elo,
            r.error,
            r.games
        );
        Ok(())
    }
}

/// The match's games are not listened to.
impl Observer for Printer {
    fn game_finished(&mut self, _: &joute::arena::log::GameLine, _: &joute::report::Summary) {}
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = joute::tune::spec::parse(SPEC, "(example)")?;
    let folder = tempfile::tempdir()?;
    let mut session = TuneSession::open(spec, folder.path(), &TuneOptions::default())?;
    // A token the caller may raise (from another thread, a signal handler) to stop the run.
    let cancel = CancelToken::new();
    let finished = session.run(std::path::Path::new("(example)"), 2, &mut Printer, &cancel)?;
    let record = &finished.record;
    for (param, tuned) in record.params.iter().zip(&record.tuned) {
        println!("{}: {} -> {tuned}", param.name, param.value);
    }
    // The folder (tuned weights, summary.json, the report) is removed when `folder` drops.
    println!("{} games in all, {:.1} s", record.games, record.seconds);
    Ok(())
}

//! The record of a run read back from its folder ([`record_in_folder`], what a live page
//! shows) against the run itself: after every candidate, and once it has finished, against
//! the record [`TuneSession::finish`] reported.

use std::path::{Path, PathBuf};

use crate::arena::CancelToken;
use crate::tournament::Observer;
use crate::tune::checkpoint::Checkpoint;
use crate::tune::record::HistoryLine;
use crate::tune::session::{TuneObserver, TuneOptions, TuneSession, record_in_folder};
use crate::tune::spec::parse;

/// The A/A tests' Morpion 5×5 spec with four candidates of 4 pairs and two small matches.
fn spec_text() -> String {
    let spec = super::aa_tests::SPEC
        .replace("iterations = 1", "iterations = 4")
        .replace("games = 2\naa_games = 400", "games = 8\naa_games = 4");
    format!("{spec}\n[hill]\npairs = 4\n")
}

/// Reads the record from the folder after every candidate and compares it with the run's.
struct Follow {
    out: PathBuf,
    steps: usize,
    ignore: (),
}

impl TuneObserver for Follow {
    fn step(&mut self, line: &HistoryLine, ck: &Checkpoint) {
        let (record, read) = record_in_folder(&self.out, None).unwrap();
        assert_eq!(&read, ck);
        assert_eq!(record.history.len() as u64, line.k);
        assert_eq!(record.history.last(), Some(line));
        assert_eq!(record.tuned, ck.state.theta());
        assert_eq!((record.games, record.seconds), (ck.games, ck.seconds));
        assert!(record.confirmation.is_none() && record.aa.is_none());
        self.steps += 1;
    }

    fn games(&mut self) -> &mut dyn Observer {
        &mut self.ignore
    }
}

#[test]
fn the_record_read_from_the_folder_is_the_runs_own_at_every_step_and_at_the_end() {
    let spec = parse(&spec_text(), "record.toml").unwrap();
    let start: Vec<f64> = spec.params.iter().map(|p| p.value).collect();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut session = TuneSession::open(spec, &out, &TuneOptions::default()).unwrap();
    // No checkpoint yet: refused, unless the run's start state is given.
    assert!(record_in_folder(&out, None).is_err());
    let (fresh, _) = record_in_folder(&out, Some(&session.ck)).unwrap();
    assert!(fresh.history.is_empty() && fresh.confirmation.is_none());
    assert_eq!((fresh.tuned, fresh.games), (start, 0));
    assert_eq!(
        fresh.weights_file,
        out.join("tuned-weights.toml").display().to_string()
    );

    let mut follow = Follow {
        out: out.clone(),
        steps: 0,
        ignore: (),
    };
    let finished = session
        .run(
            Path::new("record.toml"),
            1,
            &mut follow,
            &CancelToken::new(),
        )
        .unwrap();
    assert_eq!(follow.steps, 4);
    let (read, _) = record_in_folder(&out, None).unwrap();
    assert!(read.confirmation.is_some() && read.aa_check.is_some());
    assert_eq!(read, finished.record);

    // A summary written for another state (a run resumed for more candidates) is not its end.
    let summary = out.join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    let mut object: serde_json::Value = serde_json::from_str(&text).unwrap();
    object["candidates"] = serde_json::json!(3);
    std::fs::write(&summary, object.to_string()).unwrap();
    let (stale, _) = record_in_folder(&out, None).unwrap();
    assert!(stale.confirmation.is_none());
    assert_eq!(stale.history, finished.record.history);
    assert_eq!(stale.tuned, finished.record.tuned);
    // A summary that cannot be read is said so, with its path.
    std::fs::write(&summary, "{").unwrap();
    let e = record_in_folder(&out, None).unwrap_err().to_string();
    assert!(e.contains("summary.json"), "{e}");
}

//! Random and mutated input to every parser — tournament and tuning specs, weights files,
//! openings files, board strings, move lists, game logs and run records — must give an error
//! or a value, never a panic. Mutations start from valid inputs (so they reach deep into each
//! parser) and edit them: delete a span, insert or replace with characters from a hostile
//! alphabet (control bytes, quotes, brackets, digits, huge numbers, non-ASCII), duplicate a
//! line.

use std::sync::OnceLock;

use joute::arena::CancelToken;
use joute::arena::TournamentSpec;
use joute::arena::log::{RunInfo, scan_log};
use joute::eval::Weights;
use joute::games::{Connect4, Game, Morpion, Othello, RandomTree};
use joute::report::load::summarize_logs;
use joute::tournament::{Options, Session};
use proptest::prelude::*;

const SPEC: &str = r#"name = "t"
game = "connect4"
seed = 1
openings = { plies = 2, count = 3 }
anchor = "a"

[[engine]]
name = "a"
algorithm = "alphabeta"
depth = 1
weights = { centre = 3, own_threes = 4 }

[[engine]]
name = "b"
algorithm = "mcts"
playouts = 20
"#;

const TUNE: &str = r#"name = "t"
game = "connect4"
seed = 5
method = "hill-climb"

[engine]
algorithm = "alphabeta"
depth = 2

[openings]
plies = 6

[budget]
games = 3000

[hill]
batch = 8

[confirm]
games = 200
aa_games = 40

[[param]]
name = "own_threes"
min = -20
max = 40
step = 4
"#;

const WEIGHTS: &str =
    "game = \"othello\"\n[weights]\nmobility = 4.5\ncorners = 30\nx_squares = -12\n";
const OPENINGS: &str = "4453\n# a comment\n3 3 4 4\n12,21\n";
const ALPHABET: &[&str] = &[
    "\u{1b}",
    "\0",
    "\n",
    "\r",
    "\t",
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    "=",
    ",",
    "#",
    "\\",
    "-",
    "0",
    "9",
    ".",
    "e",
    "1e308",
    "-1e400",
    "nan",
    "inf",
    "9223372036854775807",
    "€",
    "é",
    "\u{202e}",
    "true",
    " ",
    "a1",
    "pass",
    "X",
    "O",
];

/// `text` edited by `edits`: each (where, what, which) deletes a span, inserts, replaces a
/// character or duplicates a line at a position given as a fraction of the length.
fn mutate(text: &str, edits: &[(u16, u8, u8)]) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for &(at, op, pick) in edits {
        let i = if s.is_empty() {
            0
        } else {
            at as usize % (s.len() + 1)
        };
        let piece: Vec<char> = ALPHABET[pick as usize % ALPHABET.len()].chars().collect();
        match op % 4 {
            0 => {
                let end = (i + 1 + pick as usize % 8).min(s.len());
                if i < end {
                    s.drain(i..end);
                }
            }
            1 => {
                s.splice(i..i, piece);
            }
            2 => {
                if i < s.len() {
                    s.splice(i..i + 1, piece);
                }
            }
            _ => {
                let start = s[..i].iter().rposition(|&c| c == '\n').map_or(0, |p| p + 1);
                let end = s[i..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(s.len(), |p| i + p + 1);
                let line: Vec<char> = s[start..end].to_vec();
                s.splice(end..end, line);
            }
        }
    }
    s.into_iter().collect()
}

/// A real run's `games.jsonl` and `run.json`, played once per test binary in-process.
fn run_files() -> &'static (String, String) {
    static FILES: OnceLock<(String, String)> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let spec = TournamentSpec::parse(SPEC, "spec.toml").unwrap();
        let options = Options {
            threads: 1,
            shard: None,
            extend: false,
            force: false,
            fresh: false,
            anchor: None,
            oversubscribe: false,
        };
        Session::open(&spec, dir.path(), options)
            .unwrap()
            .play(&mut (), &CancelToken::new())
            .unwrap();
        (
            std::fs::read_to_string(dir.path().join("games.jsonl")).unwrap(),
            std::fs::read_to_string(dir.path().join("run.json")).unwrap(),
        )
    })
}

fn edits() -> impl Strategy<Value = Vec<(u16, u8, u8)>> {
    prop::collection::vec(any::<(u16, u8, u8)>(), 1..6)
}

/// Every game's position and move-list parsers on `text`.
fn parse_everywhere(text: &str) {
    let _ = Othello::start().parse_position(text);
    let _ = Othello::start().play_sequence(text);
    let _ = Connect4::start().parse_position(text);
    let _ = Connect4::start().play_sequence(text);
    for (r, c, k) in [(3, 3, 3), (15, 15, 5), (4, 7, 4)] {
        let m = Morpion::start(r, c, k);
        let _ = m.parse_position(text);
        let _ = m.play_sequence(text);
    }
    let tree = RandomTree::new(3, 4, 1);
    let _ = tree.parse_position(text);
    let _ = tree.play_sequence(text);
    let _ = joute::games::GameKind::parse(text);
    let _ = joute::arena::EngineSpec::parse(text);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn mutated_tournament_specs_never_panic(e in edits()) {
        let _ = TournamentSpec::parse(&mutate(SPEC, &e), "spec.toml");
    }

    #[test]
    fn mutated_tuning_specs_never_panic(e in edits()) {
        let _ = joute::tune::spec::parse(&mutate(TUNE, &e), "tune.toml");
    }

    #[test]
    fn mutated_weights_files_never_panic(e in edits()) {
        let text = mutate(WEIGHTS, &e);
        let _ = Weights::parse(&Othello::start(), &text, "w.toml");
        let _ = Weights::parse(&Connect4::start(), &text, "w.toml");
        let _ = Weights::parse(&Morpion::start(15, 15, 5), &text, "w.toml");
    }

    #[test]
    fn mutated_openings_files_never_panic(e in edits()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.txt");
        std::fs::write(&path, mutate(OPENINGS, &e)).unwrap();
        let _ = joute::arena::openings::read_openings_file(Connect4::start(), &path);
        let _ = joute::arena::openings::read_openings_file(Othello::start(), &path);
        let _ = joute::arena::openings::read_openings_file(Morpion::start(3, 3, 3), &path);
    }

    #[test]
    fn random_and_mutated_positions_and_move_lists_never_panic(
        e in edits(),
        random in "\\PC{0,80}",
        bytes in prop::collection::vec(any::<u8>(), 0..80),
    ) {
        parse_everywhere(&random);
        parse_everywhere(&String::from_utf8_lossy(&bytes));
        let board = format!("{} X", Othello::start().to_board_string().split(' ').next().unwrap());
        parse_everywhere(&mutate(&board, &e));
        parse_everywhere(&mutate("f5 d6 c3 d3 c4", &e));
        parse_everywhere(&mutate("4453", &e));
        parse_everywhere(&mutate("XO./.X./..O", &e));
    }

    #[test]
    fn mutated_logs_and_run_records_never_panic(e in edits(), which in 0u8..3) {
        let (log, record) = run_files();
        let dir = tempfile::tempdir().unwrap();
        let (log, record) = match which {
            0 => (mutate(log, &e), record.clone()),
            1 => (log.clone(), mutate(record, &e)),
            _ => (mutate(log, &e), mutate(record, &e)),
        };
        let log_path = dir.path().join("games.jsonl");
        std::fs::write(&log_path, log).unwrap();
        std::fs::write(dir.path().join("run.json"), record).unwrap();
        let _ = RunInfo::load(&dir.path().join("run.json"));
        let _ = scan_log(&log_path, |_| Ok(()));
        if let Ok((_, summary, _)) = summarize_logs(std::slice::from_ref(&log_path)) {
            // A log that reads must also rate, and draw.
            let ratings = summary.ratings();
            let _ = joute::report::charts::svg_charts(&summary, &ratings);
        }
    }
}

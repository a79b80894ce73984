//! Game records other tools read: result-only PGN (Ordo, BayesElo), GGF and WThor for Othello
//! (NBoard, GGS, Edax, the French federation's database), move lists for Connect 4 (Pascal
//! Pons' solver), PSQ (Piskvork) and SGF (`GM[4]`) for Morpion boards; and the readers `joute
//! rate` needs (PGN, GGF, WThor).
//!
//! Every writer takes [`Record`]s, one per game, whose moves start from the game's start
//! position (the opening included). Readers refuse anything malformed with the game's number
//! (from 1) in the message; the caller adds the file's name.

pub mod ggf;
pub mod movelist;
pub mod pgn;
pub mod psq;
pub mod sgf;
pub mod wthor;

use crate::games::GameKind;

/// One game as the record formats see it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The game's id in the run (absent when read from a file that has none).
    pub id: Option<u64>,
    /// The opening pair the game belongs to (its two games have the same pair).
    pub pair: Option<u64>,
    /// The round, from 0.
    pub round: Option<u32>,
    /// The player who moved first (Othello black, Connect 4 and Morpion X).
    pub first: String,
    /// The other player.
    pub second: String,
    /// `first`'s points: 1, 0.5 or 0.
    pub score: f64,
    /// The final score from `first`'s side (Othello: disc difference), when known.
    pub margin: Option<i32>,
    /// How the game ended (`normal`, `adjudication`, `timeout`, ...; see games.jsonl).
    pub termination: String,
    /// Every move from the start position, the opening's included, in joute's notation
    /// (Othello `f5` or `pass`, Connect 4 `1`..`7`, Morpion `b2`).
    pub moves: Vec<String>,
}

impl Record {
    /// `1-0`, `1/2-1/2` or `0-1`, from `first`'s side.
    pub fn result(&self) -> &'static str {
        result_text(self.score)
    }
}

/// `1-0`, `1/2-1/2` or `0-1` for `first`'s points.
pub fn result_text(score: f64) -> &'static str {
    if score >= 1.0 {
        "1-0"
    } else if score <= 0.0 {
        "0-1"
    } else {
        "1/2-1/2"
    }
}

/// One game as `joute rate` reads it: who played, who moved first, the result.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedGame {
    /// The player who moved first.
    pub first: String,
    /// The other player.
    pub second: String,
    /// `first`'s points: 1, 0.5 or 0.
    pub score: f64,
    /// The opening pair, when the file says (joute's PGN tag `JoutePair`): the two games of a
    /// pair are one cluster for the error bars.
    pub pair: Option<String>,
}

/// A record format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Result-only PGN, any game.
    Pgn,
    /// Generic Game Format, Othello.
    Ggf,
    /// WThor database, Othello.
    Wtb,
    /// Column digits, Connect 4.
    Moves,
    /// Piskvork's PSQ, Morpion.
    Psq,
    /// SGF with `GM[4]`, Morpion.
    Sgf,
    /// One CSV row per game with its cost figures, any game (for data tools; no record
    /// another program replays).
    Csv,
}

impl Format {
    /// Every format, as `--format` names them.
    pub const NAMES: &'static str =
        "pgn and csv (any game), ggf and wtb (othello), moves (connect4), psq and sgf (morpion)";

    /// Reads a `--format` value.
    pub fn parse(text: &str) -> Result<Format, String> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "pgn" => Format::Pgn,
            "ggf" => Format::Ggf,
            "wtb" | "wthor" => Format::Wtb,
            "moves" => Format::Moves,
            "psq" => Format::Psq,
            "sgf" => Format::Sgf,
            "csv" => Format::Csv,
            _ => {
                return Err(format!(
                    "unknown record format '{text}'; expected {}",
                    Format::NAMES
                ));
            }
        })
    }

    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pgn => "pgn",
            Format::Ggf => "ggf",
            Format::Wtb => "wtb",
            Format::Moves => "moves",
            Format::Psq => "psq",
            Format::Sgf => "sgf",
            Format::Csv => "csv",
        }
    }

    /// The default file name in the run's folder (PSQ: a folder, one file per game).
    pub fn default_name(self) -> &'static str {
        match self {
            Format::Pgn => "games.pgn",
            Format::Ggf => "games.ggf",
            Format::Wtb => "games.wtb",
            Format::Moves => "games.moves",
            Format::Psq => "games-psq",
            Format::Sgf => "games.sgf",
            Format::Csv => "games.csv",
        }
    }

    /// Why the format cannot hold games of `kind`, if it cannot.
    pub fn check_game(self, kind: &GameKind) -> Result<(), String> {
        let fits = match self {
            Format::Pgn | Format::Csv => true,
            Format::Ggf | Format::Wtb => matches!(kind, GameKind::Othello),
            Format::Moves => matches!(kind, GameKind::Connect4),
            Format::Psq | Format::Sgf => matches!(kind, GameKind::Morpion { .. }),
        };
        if fits {
            Ok(())
        } else {
            Err(format!(
                "format {} does not fit {kind} games; formats: {}",
                self.name(),
                Format::NAMES
            ))
        }
    }
}

/// Today's date (UTC) as (year, month, day), from the system clock.
pub fn today() -> (i64, u32, u32) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_from_days((secs / 86_400) as i64)
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A game of [`rating_inputs`]: first's index, second's, first's points, and (file, pair).
type InputGame<'a> = (usize, usize, f64, Option<(usize, &'a str)>);
/// What `joute rate` fits: the players (in order of appearance), the games as rating inputs
/// and each player's draws. The two games of one opening pair of one file (the same
/// [`RatedGame::pair`], colours swapped) are one cluster for the error bars, as in
/// `joute report`; every other game is its own. `files` holds each file's games.
pub fn rating_inputs<'a>(
    files: &'a [Vec<RatedGame>],
) -> Result<(crate::stats::ratings::Results, Vec<u64>), String> {
    // Players by name: a map, so that reading grows with the games, not players² (a record
    // file may name 100,000 players).
    let mut names: Vec<String> = Vec::new();
    let mut known: std::collections::HashMap<&str, usize> = Default::default();
    let mut index = |name: &'a str| {
        *known.entry(name).or_insert_with(|| {
            names.push(name.to_string());
            names.len() - 1
        })
    };
    let mut games: Vec<InputGame> = Vec::new();
    for (f, file) in files.iter().enumerate() {
        for g in file {
            if g.first == g.second {
                return Err(format!(
                    "'{}' plays itself in a game; a rating needs two players",
                    g.first
                ));
            }
            let (a, b) = (index(&g.first), index(&g.second));
            games.push((a, b, g.score, g.pair.as_deref().map(|p| (f, p))));
        }
    }
    if games.is_empty() {
        return Err("no games in the files given".into());
    }
    let mut results = crate::stats::ratings::Results::new(names);
    let mut draws = vec![0u64; results.names.len()];
    let mut by_pair: std::collections::BTreeMap<(usize, &str), Vec<usize>> = Default::default();
    for (k, g) in games.iter().enumerate() {
        if g.2 == 0.5 {
            draws[g.0] += 1;
            draws[g.1] += 1;
        }
        if let Some(key) = g.3 {
            by_pair.entry(key).or_default().push(k);
        }
    }
    let mut paired = vec![false; games.len()];
    for ks in by_pair.values() {
        if let [i, j] = ks[..] {
            let (x, y) = (games[i], games[j]);
            if x.0 == y.1 && x.1 == y.0 {
                // x.0 moved first in x and second in y, where it scored 1 - y's first's points.
                results.add_pair(x.0, x.1, x.2, 1.0 - y.2);
                paired[i] = true;
                paired[j] = true;
            }
        }
    }
    for (k, g) in games.iter().enumerate() {
        if !paired[k] {
            results.add_game(g.0, g.1, g.2);
        }
    }
    Ok((results, draws))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A record for the readers' and writers' tests.
    pub fn record(first: &str, second: &str, score: f64, moves: &str) -> Record {
        Record {
            id: Some(0),
            pair: Some(0),
            round: Some(0),
            first: first.into(),
            second: second.into(),
            score,
            margin: None,
            termination: "normal".into(),
            moves: moves.split_whitespace().map(String::from).collect(),
        }
    }

    #[test]
    fn dates_from_day_counts() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
    }

    #[test]
    fn formats_fit_their_games() {
        assert!(Format::Ggf.check_game(&GameKind::Othello).is_ok());
        assert!(Format::Pgn.check_game(&GameKind::Connect4).is_ok());
        let err = Format::Wtb.check_game(&GameKind::Connect4).unwrap_err();
        assert!(err.contains("does not fit connect4"), "{err}");
        assert!(Format::parse("chess").is_err());
    }
}

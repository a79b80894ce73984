//! WThor, the French Othello federation's database format.
//!
//! A games file (`.wtb`) is a 16-byte header — century, year within it, month and day the file
//! was made; the number of games (4 bytes, little-endian); the number of records (2 bytes, 0 in
//! a games file); the year of the games (2 bytes); the board size (8; 0 in old files); the
//! game type (0); the depth of the theoretical score; a reserved byte — then one 68-byte record
//! a game: the tournament's number, black's and white's numbers (2 bytes each, little-endian),
//! the real score (black's discs, empty squares to the winner), the theoretical score, and 60
//! move bytes `10 * row + column` (both 1..=8; a1 = 11, h8 = 88), passes left out, 0 after the
//! last move. Player names are in a players file (`.jou`): the same header, its number of
//! records the number of players, then 20 bytes a name (NUL-terminated, at most 19 bytes).

use super::Record;
use crate::games::{Game, Othello};

/// Header bytes.
pub const HEADER: usize = 16;
/// Bytes of one game record.
pub const RECORD: usize = 68;
/// Bytes of one name in a players file.
pub const NAME: usize = 20;

/// A WThor games file and its players file.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    /// The `.wtb` bytes.
    pub games: Vec<u8>,
    /// The `.jou` bytes (player number `i` is the `i`-th name).
    pub players: Vec<u8>,
}

/// The 16-byte header.
fn header(games: u32, records: u16, game_year: u16, depth: u8) -> [u8; HEADER] {
    let (y, m, d) = super::today();
    let mut h = [0u8; HEADER];
    h[0] = (y / 100) as u8;
    h[1] = (y % 100) as u8;
    h[2] = m as u8;
    h[3] = d as u8;
    h[4..8].copy_from_slice(&games.to_le_bytes());
    h[8..10].copy_from_slice(&records.to_le_bytes());
    h[10..12].copy_from_slice(&game_year.to_le_bytes());
    h[12] = 8;
    h[13] = 0;
    h[14] = depth;
    h
}

/// Black's final discs as WThor counts them (empty squares to the winner), or the score the
/// result implies when the board does not show it (a game lost on time, adjudicated, ...):
/// 64 for a black win, 0 for a loss, 32 for a draw.
fn real_score(pos: &Othello, score: f64) -> u8 {
    let black = pos.black().count_ones() as i32;
    let white = pos.white().count_ones() as i32;
    let empty = 64 - black - white;
    let counted = match black.cmp(&white) {
        std::cmp::Ordering::Greater => black + empty,
        std::cmp::Ordering::Less => black,
        std::cmp::Ordering::Equal => black + empty / 2,
    };
    let shown = match counted.cmp(&32) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Less => 0.0,
        std::cmp::Ordering::Equal => 0.5,
    };
    if shown == score {
        counted as u8
    } else if score > 0.5 {
        64
    } else if score < 0.5 {
        0
    } else {
        32
    }
}

/// The games as a WThor games file and players file. Players are numbered in the order they
/// first appear; the tournament number is 0 (no tournaments file is written); the theoretical
/// score is the real score and the depth 0 (joute does not solve the endgames).
pub fn write(records: &[Record]) -> Result<Written, String> {
    let count = u32::try_from(records.len()).map_err(|_| "too many games for WThor")?;
    let mut names: Vec<String> = Vec::new();
    let mut number = |name: &str| -> Result<u16, String> {
        let i = match names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                names.push(name.to_string());
                names.len() - 1
            }
        };
        u16::try_from(i).map_err(|_| "more than 65535 players for WThor".to_string())
    };
    let (year, _, _) = super::today();
    let mut games = header(count, 0, year as u16, 0).to_vec();
    for (k, r) in records.iter().enumerate() {
        let mut rec = [0u8; RECORD];
        rec[2..4].copy_from_slice(&number(&r.first)?.to_le_bytes());
        rec[4..6].copy_from_slice(&number(&r.second)?.to_le_bytes());
        let mut pos = Othello::start();
        let mut slot = 8;
        for mv in &r.moves {
            let m = pos
                .parse_move(mv)
                .map_err(|e| format!("game {}: {e}", r.id.unwrap_or(k as u64)))?;
            if mv != "pass" {
                let sq = m.0;
                rec[slot] = 10 * (sq / 8 + 1) + sq % 8 + 1;
                slot += 1;
            }
            pos = pos.play(m);
        }
        // A game not played to its end has the margin the log gives it (±64 for a forfeit,
        // the solver's for an adjudication), as in GGF, not what its board shows.
        let sign = (r.score - 0.5).signum() as i32 * i32::from(r.score != 0.5);
        let score = match r.margin {
            Some(m) if r.termination != "normal" && m.signum() == sign => {
                ((64 + m.clamp(-64, 64)) / 2) as u8
            }
            _ => real_score(&pos, r.score),
        };
        rec[6] = score;
        rec[7] = score;
        games.extend_from_slice(&rec);
    }
    let mut players = header(0, names.len() as u16, 0, 0).to_vec();
    for name in &names {
        let mut field = [0u8; NAME];
        let bytes = truncate(name, NAME - 1);
        field[..bytes.len()].copy_from_slice(bytes);
        players.extend_from_slice(&field);
    }
    Ok(Written { games, players })
}

/// At most `max` bytes of `name`, cut at a character boundary.
fn truncate(name: &str, max: usize) -> &[u8] {
    let mut end = name.len().min(max);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name.as_bytes()[..end]
}

/// Reads a players file: the names, in number order.
pub fn read_players(bytes: &[u8]) -> Result<Vec<String>, String> {
    if bytes.len() < HEADER {
        return Err(format!(
            "{} bytes: shorter than the 16-byte header",
            bytes.len()
        ));
    }
    let n = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let want = HEADER + n * NAME;
    if bytes.len() != want {
        return Err(format!(
            "the header says {n} players ({want} bytes) but the file has {} bytes",
            bytes.len()
        ));
    }
    Ok(bytes[HEADER..]
        .chunks(NAME)
        .map(|c| {
            let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
            // Old files are in Latin-1: every byte is one character.
            c[..end].iter().map(|&b| b as char).collect()
        })
        .collect())
}

/// Reads a games file. Players are named by `players` (from a `.jou` file) or `player N`. A
/// header whose game count does not match the file's size (a truncated record), a board size
/// other than 8, a move byte that is not a square or not legal, or a real score above 64 is
/// refused with the record's number (from 1).
pub fn read(bytes: &[u8], players: Option<&[String]>) -> Result<Vec<Record>, String> {
    if bytes.len() < HEADER {
        return Err(format!(
            "{} bytes: shorter than the 16-byte WThor header",
            bytes.len()
        ));
    }
    let n = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    let records = u16::from_le_bytes([bytes[8], bytes[9]]);
    if records != 0 {
        return Err(format!(
            "the header lists {records} records: a players or tournaments file, not a games file"
        ));
    }
    if bytes[12] != 8 && bytes[12] != 0 {
        return Err(format!(
            "board size {} in the header; joute reads 8x8 games only",
            bytes[12]
        ));
    }
    let body = bytes.len() - HEADER;
    if body != n * RECORD {
        let whole = body / RECORD;
        return Err(if body > n * RECORD {
            format!(
                "the header says {n} games but the file holds {} bytes of records ({} whole records)",
                body, whole
            )
        } else {
            format!(
                "record {}: truncated ({} of 68 bytes); the header says {n} games",
                whole + 1,
                body % RECORD
            )
        });
    }
    let name = |i: u16| match players {
        Some(p) if (i as usize) < p.len() => p[i as usize].clone(),
        _ => format!("player {i}"),
    };
    let mut out = Vec::with_capacity(n);
    for (k, rec) in bytes[HEADER..].chunks(RECORD).enumerate() {
        let bad = |what: String| format!("record {}: {what}", k + 1);
        let black = u16::from_le_bytes([rec[2], rec[3]]);
        let white = u16::from_le_bytes([rec[4], rec[5]]);
        let real = rec[6];
        if real > 64 {
            return Err(bad(format!("real score {real} is above 64")));
        }
        let mut pos = Othello::start();
        let mut moves = Vec::new();
        for (j, &b) in rec[8..].iter().enumerate() {
            if b == 0 {
                if rec[8 + j..].iter().any(|&x| x != 0) {
                    return Err(bad(format!(
                        "a move after the 0 that ends the game (byte {})",
                        9 + j
                    )));
                }
                break;
            }
            let (row, col) = (b / 10, b % 10);
            if !(1..=8).contains(&row) || !(1..=8).contains(&col) {
                return Err(bad(format!(
                    "move {} is byte {b}, not a square 11..88",
                    j + 1
                )));
            }
            let text = format!("{}{}", (b'a' + col - 1) as char, row);
            if pos.parse_move(&text).is_err()
                && let Ok(pass) = pos.parse_move("pass")
            {
                moves.push("pass".to_string());
                pos = pos.play(pass);
            }
            let mv = pos
                .parse_move(&text)
                .map_err(|e| bad(format!("move {} ({text}): {e}", j + 1)))?;
            moves.push(text);
            pos = pos.play(mv);
        }
        let score = match real.cmp(&32) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Less => 0.0,
            std::cmp::Ordering::Equal => 0.5,
        };
        out.push(Record {
            id: None,
            pair: None,
            round: None,
            first: name(black),
            second: name(white),
            score,
            margin: Some(2 * i32::from(real) - 64),
            termination: "normal".into(),
            moves,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::tests::record;
    use super::*;

    #[test]
    fn a_forfeit_has_the_logs_margin_as_in_ggf_not_the_boards() {
        // After f5 the board shows black 4, white 1: 63 by WThor's count, but the game was won
        // by the opponent's crash, which the log and GGF record as +64.
        let mut won = record("alpha", "beta", 1.0, "f5");
        won.termination = "crash".into();
        won.margin = Some(64);
        let mut lost = won.clone();
        lost.score = 0.0;
        lost.margin = Some(-64);
        let w = write(&[won.clone(), lost]).unwrap();
        assert_eq!(w.games[HEADER + 6], 64);
        assert_eq!(w.games[HEADER + RECORD + 6], 0);
        assert!(super::super::ggf::write(&[won]).contains("RE[+64.000:r]"));
    }

    #[test]
    fn writes_and_reads_back() {
        let a = record("alpha", "beta", 1.0, "f5 d6 c3 d3 c4 f4 f6 f3 e6 e7");
        let b = record("beta", "alpha", 0.5, "f5 f6");
        let w = write(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(w.games.len(), HEADER + 2 * RECORD);
        assert_eq!(&w.games[4..8], &[2, 0, 0, 0]);
        assert_eq!(w.games[12], 8);
        // f5: row 5, column 6.
        assert_eq!(w.games[HEADER + 8], 56);
        // The first game is unfinished and black won: the score the result implies.
        assert_eq!(w.games[HEADER + 6], 64);
        assert_eq!(w.games[HEADER + RECORD + 6], 32);
        let names = read_players(&w.players).unwrap();
        assert_eq!(names, ["alpha", "beta"]);
        let back = read(&w.games, Some(&names)).unwrap();
        assert_eq!(back[0].moves, a.moves);
        assert_eq!(
            (back[0].first.as_str(), back[0].second.as_str()),
            ("alpha", "beta")
        );
        assert_eq!(back[0].score, 1.0);
        assert_eq!(back[1].score, 0.5);
        assert_eq!(back[1].first, "beta");
        let anonymous = read(&w.games, None).unwrap();
        assert_eq!(anonymous[1].first, "player 1");
    }

    #[test]
    fn refuses_bad_headers_and_records() {
        let w = write(&[record("a", "b", 1.0, "f5")]).unwrap();
        let err = read(&w.games[..HEADER + 30], None).unwrap_err();
        assert_eq!(
            err,
            "record 1: truncated (30 of 68 bytes); the header says 1 games"
        );
        let err = read(&w.games[..10], None).unwrap_err();
        assert!(err.contains("shorter than the 16-byte"), "{err}");
        let mut wrong = w.games.clone();
        wrong[12] = 10;
        assert!(read(&wrong, None).unwrap_err().contains("board size 10"));
        let mut wrong = w.games.clone();
        wrong[HEADER + 8] = 11;
        let err = read(&wrong, None).unwrap_err();
        assert!(err.starts_with("record 1: move 1 (a1)"), "{err}");
        assert!(
            read(&w.players, None)
                .unwrap_err()
                .contains("players or tournaments")
        );
    }
}

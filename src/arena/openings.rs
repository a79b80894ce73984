//! Openings: the positions games start from. Each opening is played twice, colours swapped,
//! and the two games form a pair.
//!
//! Random openings are drawn from the spec's seed: attempt `k` plays `plies` uniformly random
//! moves seeded by `(seed, k)` ([`crate::games::random_game`]), so the list depends on the seed
//! alone. A stream of varied lengths ([`OpeningStream::with_min_plies`]) draws attempt `k`'s
//! length uniformly between its shortest and `plies`, from `(seed, k)` as well. An attempt is
//! rejected when
//! - the game ends within the opening (fewer than `plies` moves, or the position is over);
//! - the position repeats an earlier opening's (two move orders reaching one position are one
//!   opening);
//! - a shallow search ([`Balance`]: alpha-beta at `depth` with the game's default weights)
//!   finds a forced result, or scores the position beyond `max_imbalance` for either side:
//!   such a pair measures the opening, not the engines.
//!
//! Opening files hold one opening per line, moves in the game's notation separated by spaces
//! or commas, or run together where the game's moves can be told apart without a separator
//! (Othello `f5d6c3` and the XOT lists' `f5d6c4d3c2b3b4b5`, Connect 4 `4453`, Morpion `a1b2`);
//! blank lines and lines starting with `#` are skipped, and whatever follows a `;` on a line is
//! ignored (the suites `joute openings` writes put a score there: `4453 ; 0`).

use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::eval::{Features, LinearEval, Weights};
use crate::games::hash::combine;
use crate::games::{Game, GameKind, random_game, split_run};
use crate::search::{Algorithm, SearchConfig, Searcher, WIN_THRESHOLD};

/// The filter against lopsided random openings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Balance {
    /// Depth of the alpha-beta search that scores each opening (0: no check).
    pub depth: u32,
    /// The largest score, in units of the default weights (for Othello one unit is worth a
    /// quarter of one move of mobility), either side may have after the opening.
    /// `None`: no limit (only forced results are rejected).
    pub max_imbalance: Option<f64>,
}

impl Balance {
    /// The default filter of a game: depth 2, and a threshold that rejects the most lopsided
    /// random openings — about 5% of 6-ply Othello openings (the 95th percentile of the
    /// score's magnitude is 37.5 units) and 7% of 4-ply Connect 4 openings (scores there are
    /// either within ±10 or beyond ±60: a threat) — measured by
    /// `openings::tests::default_thresholds_reject_few`. Morpion and the random tree only
    /// reject forced results.
    pub fn default_for(kind: GameKind) -> Balance {
        let max_imbalance = match kind {
            GameKind::Othello => Some(36.0),
            GameKind::Connect4 => Some(40.0),
            GameKind::Morpion { .. } | GameKind::RandomTree { .. } => None,
        };
        Balance {
            depth: 2,
            max_imbalance,
        }
    }
}

/// The score of `pos` by the balance search, in weight units, from the side to move's point
/// of view; `None` when the search finds a forced result.
pub fn balance_score<G: Features>(pos: &G, depth: u32, eval: &LinearEval<G>) -> Option<f64> {
    let mut searcher = Searcher::new(SearchConfig::new(Algorithm::AlphaBeta, depth));
    let score = searcher.search(pos, eval).score;
    (score.abs() < WIN_THRESHOLD).then(|| score as f64 / eval.scale())
}

/// Consecutive failed attempts after which the search for new openings gives up.
const EXHAUSTED: u64 = 100_000;

/// An endless source of distinct random openings (see the module documentation): attempt `k`
/// is drawn from `(seed, k)`, and a position already given (or [`OpeningStream::exclude`]d) is
/// never given again. The openings it gives depend on the seed and the excluded positions only,
/// so a stream rebuilt and advanced as far gives the same openings again.
pub struct OpeningStream<G: Features> {
    start: G,
    plies: u32,
    /// The shortest opening (`plies` unless [`OpeningStream::with_min_plies`] lowered it).
    min_plies: u32,
    seed: u64,
    balance: Balance,
    eval: LinearEval<G>,
    seen: HashSet<G>,
    attempt: u64,
    /// Rejections so far: the game ended, a repeated position, a lopsided one.
    rejected: (u64, u64, u64),
    given: u64,
}

impl<G: Features> OpeningStream<G> {
    /// A stream of `plies`-ply openings of the game of `start` drawn from `seed`.
    pub fn new(start: G, plies: u32, seed: u64, balance: Balance) -> Self {
        OpeningStream {
            eval: LinearEval::new(&start, &Weights::default_for(&start)),
            start,
            plies,
            min_plies: plies,
            seed,
            balance,
            seen: HashSet::new(),
            attempt: 0,
            rejected: (0, 0, 0),
            given: 0,
        }
    }

    /// Openings of varied lengths: each attempt's plies drawn uniformly from `min_plies` to
    /// `plies` (so that self-play covers every stage of the game from its first moves, not
    /// only the positions after one fixed length). Short lengths with few distinct positions
    /// run out and are rejected as repeats, which shifts later draws to longer ones. A
    /// `min_plies` at or above `plies` changes nothing: the stream stays the fixed-length one,
    /// opening for opening.
    pub fn with_min_plies(mut self, min_plies: u32) -> Self {
        self.min_plies = min_plies.min(self.plies);
        self
    }

    /// The plies of attempt `attempt`: `plies`, or a length drawn from `(seed, attempt)`.
    fn plies_of(&self, attempt: u64) -> u32 {
        if self.min_plies >= self.plies {
            return self.plies;
        }
        let span = u64::from(self.plies - self.min_plies) + 1;
        let draw = combine(self.seed ^ 0x706c_6965_735f_6c65, attempt);
        self.min_plies + (draw % span) as u32
    }

    /// Never gives `position` (for held-out openings: the positions another stream gave).
    pub fn exclude(&mut self, position: G) {
        self.seen.insert(position);
    }

    /// The positions given (and excluded) so far.
    pub fn seen(&self) -> impl Iterator<Item = &G> {
        self.seen.iter()
    }

    /// Openings given so far.
    pub fn given(&self) -> u64 {
        self.given
    }

    /// Candidates drawn so far (given or rejected).
    pub fn attempts(&self) -> u64 {
        self.attempt
    }

    /// The next opening (its moves, and the position after them), or an error when
    /// [`EXHAUSTED`] attempts in a row found none.
    pub fn next_opening(&mut self) -> Result<(Vec<G::Move>, G), String> {
        let mut since_last = 0u64;
        while since_last < EXHAUSTED {
            since_last += 1;
            let attempt = self.attempt;
            self.attempt += 1;
            let plies = self.plies_of(attempt) as usize;
            let (positions, moves) = random_game(
                self.start,
                plies,
                combine(self.seed ^ 0x6f70_656e_696e_6773, attempt),
            );
            let pos = *positions.last().expect("a random game holds its start");
            if moves.len() < plies || pos.outcome().is_some() {
                self.rejected.0 += 1;
                continue;
            }
            if self.seen.contains(&pos) {
                self.rejected.1 += 1;
                continue;
            }
            if self.balance.depth > 0 {
                match balance_score(&pos, self.balance.depth, &self.eval) {
                    Some(s) if self.balance.max_imbalance.is_none_or(|m| s.abs() <= m) => {}
                    _ => {
                        self.rejected.2 += 1;
                        continue;
                    }
                }
            }
            self.seen.insert(pos);
            self.given += 1;
            return Ok((moves, pos));
        }
        let (ended, repeated, lopsided) = self.rejected;
        let plies = if self.min_plies < self.plies {
            format!("{} to {}", self.min_plies, self.plies)
        } else {
            self.plies.to_string()
        };
        Err(format!(
            "found only {} distinct playable openings of {plies} plies in {} attempts ({ended} ended the game, {repeated} repeated an earlier one, {lopsided} were lopsided); ask for fewer, change plies, or loosen max_imbalance",
            self.given, self.attempt
        ))
    }
}

/// `count` distinct random openings of `plies` plies (see the module documentation): the first
/// `count` of an [`OpeningStream`]. Errors when too few can be found (a small board, or a
/// strict filter).
pub fn random_openings<G: Features>(
    start: G,
    plies: u32,
    count: u32,
    seed: u64,
    balance: &Balance,
) -> Result<Vec<Vec<G::Move>>, String> {
    let mut stream = OpeningStream::new(start, plies, seed, balance.clone());
    (0..count)
        .map(|_| stream.next_opening().map(|(moves, _)| moves))
        .collect()
}

/// Reads an openings file (see the module documentation). Errors name the file, the line, the
/// column of the move at fault and what is wrong; an opening the game ends in, and a position
/// that repeats an earlier line's, are errors too.
pub fn read_openings_file<G: Game>(start: G, path: &Path) -> Result<Vec<Vec<G::Move>>, String> {
    let file = path.display();
    let text = crate::inputs::read_to_string(path, crate::inputs::Input::Positions)
        .map_err(|e| format!("cannot read the openings file {file}: {e}"))?;
    // Files saved by some Windows editors start with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut openings = Vec::new();
    let mut seen: Vec<(G, usize)> = Vec::new();
    let mut index: HashSet<G> = HashSet::new();
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        // A score or note after ';' (the suites of `joute openings`).
        let line = line.split(';').next().unwrap_or_default();
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut pos = start;
        let mut moves = Vec::new();
        let gomocup = gomocup_cells(&start, line)
            .transpose()
            .map_err(|(column, e)| format!("{file}:{number}:{column}: {e}"))?;
        let tokens = match &gomocup {
            Some(cells) => cells.iter().map(|(c, n)| (*c, n.as_str())).collect(),
            None => tokens(line),
        };
        for (column, token) in tokens {
            for (offset, text) in split_run(&start, token) {
                let column = column + token[..offset].chars().count();
                if pos.outcome().is_some() {
                    return Err(format!(
                        "{file}:{number}:{column}: the game is over before move '{text}'"
                    ));
                }
                let mv = pos
                    .parse_move(text)
                    .map_err(|e| format!("{file}:{number}:{column}: {e}"))?;
                pos = pos.play(mv);
                moves.push(mv);
            }
        }
        if pos.outcome().is_some() {
            return Err(format!(
                "{file}:{number}:1: the game is over after this opening; an opening must leave a game to play"
            ));
        }
        if !index.insert(pos) {
            let first = seen.iter().find(|(p, _)| *p == pos).map_or(0, |(_, l)| *l);
            return Err(format!(
                "{file}:{number}:1: this opening reaches the same position as line {first}; each opening must be distinct"
            ));
        }
        seen.push((pos, number));
        openings.push(moves);
    }
    if openings.is_empty() {
        return Err(format!("{file}: no openings in the file"));
    }
    Ok(openings)
}

/// The centre of a Morpion board in Gomocup's `X,Y` (`X` the column, `Y` the row, from 0):
/// `(cols / 2, rows / 2)`, `7,7` (`h8`) on 15×15; `None` for other games.
pub fn gomocup_centre<G: Game>(start: &G) -> Option<(i64, i64, u8, u8)> {
    match GameKind::parse(&start.name()).ok()? {
        GameKind::Morpion { rows, cols, .. } => {
            Some((i64::from(cols / 2), i64::from(rows / 2), rows, cols))
        }
        _ => None,
    }
}

/// An error at a 1-based column of a line.
type ColumnError = (usize, String);

/// A Morpion line in the Gomocup openings format — `X,Y` offsets from the centre, every
/// number separated by commas (`0,0, 1,0, 1,1`; `X` the column, `Y` the row, as the Gomocup
/// protocol numbers them) — as cell names with the 1-based column of each `X`; `None` when the
/// game is not Morpion or the line is not of that form; an error (with its column) when an
/// offset has no partner or falls off the board.
fn gomocup_cells<G: Game>(
    start: &G,
    line: &str,
) -> Option<Result<Vec<(usize, String)>, ColumnError>> {
    let (cx, cy, rows, cols) = gomocup_centre(start)?;
    if !line.contains(',')
        || !line
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == ',' || c.is_whitespace())
    {
        return None;
    }
    let mut numbers = Vec::new();
    let mut offset = 0;
    for piece in line.split(',') {
        let column = offset + piece.len() - piece.trim_start().len() + 1;
        offset += piece.len() + 1;
        if piece.trim().is_empty() {
            continue;
        }
        match piece.trim().parse::<i64>() {
            Ok(n) => numbers.push((column, n)),
            Err(_) => {
                return Some(Err((
                    column,
                    format!("'{}' is not an offset", piece.trim()),
                )));
            }
        }
    }
    if numbers.len() % 2 == 1 {
        let (column, _) = numbers[numbers.len() - 1];
        return Some(Err((
            column,
            "a Gomocup offset needs its X,Y pair: this X has no Y".into(),
        )));
    }
    Some(
        numbers
            .chunks(2)
            .map(|pair| {
                let ((column, dx), (_, dy)) = (pair[0], pair[1]);
                let (x, y) = (cx + dx, cy + dy);
                if !(0..i64::from(cols)).contains(&x) || !(0..i64::from(rows)).contains(&y) {
                    return Err((
                        column,
                        format!("offset {dx},{dy} from the centre is off the {rows}×{cols} board"),
                    ));
                }
                Ok((column, format!("{}{}", (b'a' + x as u8) as char, y + 1)))
            })
            .collect(),
    )
}

/// A Morpion opening (cell names, `h8`) in the Gomocup openings format: `X,Y` offsets from
/// the centre, `0,0, 1,0, 1,1`; `None` for another game.
pub fn gomocup_line<G: Game>(start: &G, moves: &[G::Move]) -> Option<String> {
    let (cx, cy, _, _) = gomocup_centre(start)?;
    let parts: Vec<String> = moves
        .iter()
        .map(|&m| {
            let name = start.format_move(m);
            let x = i64::from(name.as_bytes()[0] - b'a');
            let y: i64 = name[1..].parse::<i64>().expect("a cell name") - 1;
            format!("{},{}", x - cx, y - cy)
        })
        .collect();
    Some(parts.join(", "))
}

/// The tokens of a line with their 1-based columns (in characters).
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        let sep = c.is_whitespace() || c == ',';
        match (sep, start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((line[..s].chars().count() + 1, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((line[..s].chars().count() + 1, &line[s..]));
    }
    out
}

/// The openings in the game's notation, each one string of space-separated moves.
pub fn notation<G: Game>(start: &G, openings: &[Vec<G::Move>]) -> Vec<String> {
    openings
        .iter()
        .map(|moves| {
            moves
                .iter()
                .map(|&m| start.format_move(m))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// The moves of an opening as a resolved spec stores it.
pub fn moves_of(opening: &str) -> impl Iterator<Item = &str> {
    opening.split(' ').filter(|m| !m.is_empty())
}

/// The moves of each opening (as a resolved spec stores them), each checked legal.
pub fn parse_all<G: Game>(start: &G, openings: &[String]) -> Result<Vec<Vec<G::Move>>, String> {
    openings
        .iter()
        .map(|text| {
            let mut pos = *start;
            let mut moves = Vec::new();
            for name in moves_of(text) {
                let mv = pos.parse_move(name).map_err(|e| e.to_string())?;
                let mut legal = crate::games::MoveList::new();
                pos.legal_moves(&mut legal);
                if !legal.contains(&mv) {
                    return Err(format!("'{name}' is not legal after '{}'", moves.len()));
                }
                moves.push(mv);
                pos = pos.play(mv);
            }
            Ok(moves)
        })
        .collect()
}

/// The position after each opening (as a resolved spec stores them).
pub fn positions<G: Game>(start: &G, openings: &[String]) -> Result<Vec<G>, String> {
    Ok(parse_all(start, openings)?
        .iter()
        .map(|moves| moves.iter().fold(*start, |pos, &mv| pos.play(mv)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connect4::Connect4;
    use crate::games::morpion::Morpion;
    use crate::games::othello::Othello;

    #[test]
    fn random_openings_are_distinct_playable_and_reproducible() {
        let start = Othello::start();
        let balance = Balance::default_for(GameKind::Othello);
        let a = random_openings(start, 6, 200, 7, &balance).unwrap();
        let b = random_openings(start, 6, 200, 7, &balance).unwrap();
        assert_eq!(a, b);
        let c = random_openings(start, 6, 200, 8, &balance).unwrap();
        assert_ne!(a, c);
        let mut seen = HashSet::new();
        for moves in &a {
            assert_eq!(moves.len(), 6);
            let pos = moves.iter().fold(start, |p, &m| p.play(m));
            assert!(pos.outcome().is_none());
            assert!(seen.insert(pos), "duplicate opening");
        }
    }

    #[test]
    fn openings_of_varied_lengths_cover_the_range_and_keep_the_fixed_stream() {
        let start = Othello::start();
        let balance = Balance::default_for(GameKind::Othello);
        let take = |mut s: OpeningStream<Othello>, n: usize| -> Vec<Vec<_>> {
            (0..n).map(|_| s.next_opening().unwrap().0).collect()
        };
        let varied = take(
            OpeningStream::new(start, 20, 5, balance.clone()).with_min_plies(2),
            600,
        );
        let again = take(
            OpeningStream::new(start, 20, 5, balance.clone()).with_min_plies(2),
            600,
        );
        assert_eq!(varied, again, "the lengths are drawn from the seed");
        let mut per_length = [0usize; 21];
        let mut seen = HashSet::new();
        for moves in &varied {
            assert!((2..=20).contains(&moves.len()), "{}", moves.len());
            per_length[moves.len()] += 1;
            let pos = moves.iter().fold(start, |p, &m| p.play(m));
            assert!(seen.insert(pos), "duplicate opening");
        }
        // Two plies give 12 positions (fewer after the filter); every length from 4 up is drawn
        // about 600/19 times: uniform, so none far from it.
        assert!(per_length[2] <= 12);
        for (len, &n) in per_length.iter().enumerate().skip(4) {
            assert!((10..=60).contains(&n), "{n} openings of {len} plies");
        }
        // A shortest length at or above plies is the fixed-length stream, opening for opening.
        let fixed = take(OpeningStream::new(start, 8, 5, balance.clone()), 50);
        let same = take(
            OpeningStream::new(start, 8, 5, balance).with_min_plies(8),
            50,
        );
        assert_eq!(fixed, same);
    }

    #[test]
    fn too_many_openings_for_a_small_board_is_an_error() {
        let start = Morpion::start(3, 3, 3);
        // 3×3 after one ply: 9 positions.
        let err = random_openings(
            start,
            1,
            10,
            1,
            &Balance::default_for(GameKind::Morpion {
                rows: 3,
                cols: 3,
                k: 3,
                rule: crate::games::Rule::Freestyle,
            }),
        )
        .unwrap_err();
        assert!(err.contains("found only 9 distinct"), "{err}");
        assert_eq!(
            random_openings(
                start,
                1,
                9,
                1,
                &Balance {
                    depth: 0,
                    max_imbalance: None
                }
            )
            .unwrap()
            .len(),
            9
        );
    }

    #[test]
    fn the_balance_filter_rejects_lopsided_openings() {
        let start = Connect4::start();
        let strict = Balance {
            depth: 2,
            max_imbalance: Some(5.0),
        };
        let list = random_openings(start, 6, 50, 3, &strict).unwrap();
        let eval = LinearEval::new(&start, &Weights::default_for(&start));
        for moves in &list {
            let pos = moves.iter().fold(start, |p, &m| p.play(m));
            let s = balance_score(&pos, 2, &eval).unwrap();
            assert!(s.abs() <= 5.0, "{s}");
        }
    }

    /// Measures the share of random openings the default thresholds reject (the figures in
    /// [`Balance::default_for`]'s documentation) and keeps it between 1% and 15%.
    #[test]
    fn default_thresholds_reject_few() {
        fn share<G: Features>(start: G, kind: GameKind, plies: usize) -> f64 {
            let balance = Balance::default_for(kind);
            let eval = LinearEval::new(&start, &Weights::default_for(&start));
            let (mut rejected, mut total) = (0, 0);
            for seed in 0..2000u64 {
                let (positions, moves) = random_game(start, plies, combine(99, seed));
                let pos = *positions.last().unwrap();
                if moves.len() < plies || pos.outcome().is_some() {
                    continue;
                }
                total += 1;
                match balance_score(&pos, balance.depth, &eval) {
                    Some(s) if balance.max_imbalance.is_none_or(|m| s.abs() <= m) => {}
                    _ => rejected += 1,
                }
            }
            rejected as f64 / total as f64
        }
        let othello = share(Othello::start(), GameKind::Othello, 6);
        let connect4 = share(Connect4::start(), GameKind::Connect4, 4);
        eprintln!("rejected by the default filter: othello {othello:.3}, connect4 {connect4:.3}");
        assert!((0.01..=0.15).contains(&othello), "{othello}");
        assert!((0.01..=0.15).contains(&connect4), "{connect4}");
    }

    #[test]
    fn opening_files_give_errors_with_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c4.txt");
        std::fs::write(&path, "# comment\n4453\n\n4 4, 3\n1 9\n").unwrap();
        let err = read_openings_file(Connect4::start(), &path).unwrap_err();
        assert!(err.contains("c4.txt:5:3:"), "{err}");
        std::fs::write(&path, "4453\n4 4 5 3\n").unwrap();
        let err = read_openings_file(Connect4::start(), &path).unwrap_err();
        assert!(err.contains(":2:1:") && err.contains("line 1"), "{err}");
        std::fs::write(&path, "4453\n4 4, 3\n").unwrap();
        let list = read_openings_file(Connect4::start(), &path).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[1].len(), 3);
    }

    /// Reads `text` as an openings file of the game of `start`, each opening as its move names.
    fn read<G: Game>(start: G, text: &str) -> Result<Vec<Vec<String>>, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("openings.txt");
        std::fs::write(&path, text).unwrap();
        let list = read_openings_file(start, &path)?;
        Ok(list
            .iter()
            .map(|moves| moves.iter().map(|&m| start.format_move(m)).collect())
            .collect())
    }

    #[test]
    fn othello_moves_may_run_together_as_in_the_xot_lists() {
        let list = read(
            Othello::start(),
            "# XOT style: 8 moves, 16 characters\n\
             f5d6c4d3c2b3b4b5\n\
             F5D6C3D3C4F4C5B3\n\
             f5 d6,c3d3 c4\n\
             f5d6c5, f4 e3\n",
        )
        .unwrap();
        assert_eq!(
            list,
            [
                vec!["f5", "d6", "c4", "d3", "c2", "b3", "b4", "b5"],
                vec!["f5", "d6", "c3", "d3", "c4", "f4", "c5", "b3"],
                vec!["f5", "d6", "c3", "d3", "c4"],
                vec!["f5", "d6", "c5", "f4", "e3"],
            ]
        );
    }

    #[test]
    fn a_bad_move_in_a_run_is_reported_at_its_own_column() {
        // c9 is off the board: the 5th character of the line.
        let err = read(Othello::start(), "f5d6c3\nf5d6c9\n").unwrap_err();
        assert!(
            err.contains("openings.txt:2:5: invalid othello move 'c9'"),
            "{err}"
        );
        // d6 again is not legal: the second move of the run that starts at column 6.
        let err = read(Othello::start(), "  f5 d6d6\n").unwrap_err();
        assert!(
            err.contains("openings.txt:1:8: invalid othello move 'd6'"),
            "{err}"
        );
        // A run with an odd character left over.
        let err = read(Othello::start(), "f5d6c\n").unwrap_err();
        assert!(
            err.contains("openings.txt:1:5: invalid othello move 'c'"),
            "{err}"
        );
        // Connect 4: the 8th stone of column 4 does not fit; it is the 7th digit of the run.
        let err = read(Connect4::start(), "1 4444444\n").unwrap_err();
        assert!(
            err.contains("openings.txt:1:9: invalid connect4 move '4'"),
            "{err}"
        );
        assert!(err.contains("column 4 is full"), "{err}");
        // Non-ASCII text is reported, not split inside a character.
        let err = read(Othello::start(), "f5é6\n").unwrap_err();
        assert!(
            err.contains("openings.txt:1:3: invalid othello move 'é6'"),
            "{err}"
        );
    }

    #[test]
    fn morpion_cells_may_run_together_and_files_may_have_windows_line_ends() {
        let list = read(Morpion::start(15, 15, 5), "\u{feff}h8i9\r\na10 b2c15\r\n").unwrap();
        assert_eq!(list, [vec!["h8", "i9"], vec!["a10", "b2", "c15"]]);
        let list = read(Connect4::start(), "4453\r\n").unwrap();
        assert_eq!(list, [vec!["4", "4", "5", "3"]]);
    }
}

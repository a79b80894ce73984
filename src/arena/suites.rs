//! Opening suites joute generates and ships (`joute openings`, the files in `openings/`).
//!
//! A suite is an openings file ([`super::openings::read_openings_file`] reads it) that starts
//! with a provenance header: `#` comment lines holding the exact command, joute's version, the
//! seed, the method and its parameters. The same command gives the same file: candidate `k` is
//! the random game of `plies` moves drawn from `(seed, k)` ([`crate::games::random_game`]), and
//! the candidates are judged in order.
//!
//! - **Connect 4** ([`connect4_suite`]): openings of 4–8 plies, each with its *exact* value
//!   from [`Connect4Solver`], written after the moves as `4453 ; 0`. The score is Pons'
//!   convention, from the side to move's point of view: 0 is a draw, `22 - k` a win with the
//!   winner's `k`-th stone (so 1 and 2 are wins with the 21st and 20th stone: the last moves of
//!   the game), negative a loss. A suite keeps the *narrow* openings, `|score| ≤ max_score`
//!   (default 2: draws and wins or losses decided at the very end of the game). Openings are
//!   distinct up to the left-right mirror.
//! - **Othello** ([`othello_suite`]): 8-move openings (the XOT length), written as the XOT
//!   lists write them, 16 characters without spaces (`f5d6c3d3c4f4f6f3`). An exact solve is out
//!   of reach at 52 empties, so each is scored by the built-in `pvs` at `depth` with the default
//!   weights (`weights/othello.toml`); the score is in the weights' units (one unit is a quarter
//!   of a move of mobility, not a disc), and a suite keeps `|score| ≤ max_score`. Openings are
//!   distinct up to the 8 symmetries of the board (each position's canonical form: the least of
//!   its 8 images).

use std::collections::HashSet;

use super::openings::{Balance, OpeningStream, gomocup_line};
use crate::eval::{LinearEval, Weights};
use crate::games::connect4::{Connect4, H1, WIDTH};
use crate::games::hash::combine;
use crate::games::morpion::Morpion;
use crate::games::othello::Othello;
use crate::games::{Game, GameKind, random_game};
use crate::search::solver::connect4::Connect4Solver;
use crate::search::{Algorithm, SearchConfig, Searcher, WIN_THRESHOLD};

/// Consecutive rejected candidates after which a suite gives up.
const EXHAUSTED: u64 = 200_000;

/// One opening of a suite: its moves as written and, when the method gives one, its score.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteLine {
    /// The moves, as the file writes them.
    pub moves: String,
    /// The score written after the moves (Connect 4: the exact score).
    pub score: Option<i32>,
}

impl SuiteLine {
    /// The line of the file.
    pub fn to_line(&self) -> String {
        match self.score {
            Some(s) => format!("{} ; {s}", self.moves),
            None => self.moves.clone(),
        }
    }
}

/// A suite: its method's description (for the header) and its openings.
#[derive(Clone, Debug)]
pub struct Suite {
    /// `key: value` lines describing the method and its parameters.
    pub method: Vec<String>,
    /// The openings.
    pub lines: Vec<SuiteLine>,
    /// Candidates judged.
    pub candidates: u64,
}

impl Suite {
    /// The file: the provenance header (`command` as given, the version, the seed, the
    /// method), then one opening a line.
    pub fn to_file(&self, command: &str, seed: u64) -> String {
        let mut out = String::new();
        out.push_str("# joute opening suite\n");
        out.push_str(&format!("# command: {command}\n"));
        out.push_str(&format!("# joute-version: {}\n", env!("CARGO_PKG_VERSION")));
        out.push_str(&format!("# seed: {seed}\n"));
        for line in &self.method {
            out.push_str(&format!("# {line}\n"));
        }
        out.push_str(&format!(
            "# openings: {} (of {} candidates)\n",
            self.lines.len(),
            self.candidates
        ));
        for line in &self.lines {
            out.push_str(&line.to_line());
            out.push('\n');
        }
        out
    }
}

/// The candidate openings: attempt `k` is the random game of `plies` moves drawn from
/// `(seed, k)`, skipped when the game ends within it.
fn candidates<G: Game>(start: G, plies: u32, seed: u64) -> impl Iterator<Item = (Vec<G::Move>, G)> {
    (0u64..).filter_map(move |attempt| {
        let (positions, moves) = random_game(
            start,
            plies as usize,
            combine(seed ^ 0x7375_6974_6573, attempt),
        );
        let pos = *positions.last().expect("a random game holds its start");
        (moves.len() == plies as usize && pos.outcome().is_none()).then_some((moves, pos))
    })
}

/// The first `count` candidates (see [`candidates`]) that `judge` keeps, with the number of
/// candidates judged; `judge` returns `None` to skip a candidate, or `Some(score)` to keep it
/// (the score written after `;`, if any). Fails, saying `what` it looked for, when
/// [`EXHAUSTED`] candidates in a row are skipped. `progress` hears the openings kept so far.
fn collect<G: Game>(
    start: G,
    plies: u32,
    count: u32,
    seed: u64,
    what: &str,
    progress: &mut dyn FnMut(u32),
    mut judge: impl FnMut(&[G::Move], &G) -> Option<Option<i32>>,
) -> Result<(Vec<SuiteLine>, u64), String> {
    let mut lines = Vec::new();
    let (mut judged, mut since) = (0u64, 0u64);
    for (moves, pos) in candidates(start, plies, seed) {
        if lines.len() == count as usize {
            break;
        }
        if since >= EXHAUSTED {
            return Err(format!(
                "found only {} {what} in {judged} candidates",
                lines.len()
            ));
        }
        judged += 1;
        since += 1;
        let Some(score) = judge(&moves, &pos) else {
            continue;
        };
        since = 0;
        lines.push(SuiteLine {
            moves: moves.iter().map(|&m| start.format_move(m)).collect(),
            score,
        });
        progress(lines.len() as u32);
    }
    Ok((lines, judged))
}

/// The Connect 4 position mirrored left to right.
pub fn connect4_mirror(pos: &Connect4) -> Connect4 {
    let mirror = |b: u64| {
        (0..WIDTH).fold(0u64, |acc, c| {
            let column = (b >> (c * H1)) & ((1 << H1) - 1);
            acc | (column << ((WIDTH - 1 - c) * H1))
        })
    };
    Connect4 {
        current: mirror(pos.current),
        mask: mirror(pos.mask),
    }
}

/// `count` Connect 4 openings of `plies` plies (4..=8) with `|exact score| ≤ max_score`,
/// distinct up to the mirror (see the module documentation). `progress` hears the openings
/// found so far.
pub fn connect4_suite(
    plies: u32,
    count: u32,
    seed: u64,
    max_score: i32,
    progress: &mut dyn FnMut(u32),
) -> Result<Suite, String> {
    if !(4..=8).contains(&plies) {
        return Err(format!("--plies is {plies}; Connect 4 suites take 4..=8"));
    }
    let start = Connect4::start();
    let mut solver = Connect4Solver::new();
    let mut seen: HashSet<Connect4> = HashSet::new();
    let what = format!("Connect 4 openings of {plies} plies with |score| ≤ {max_score}");
    let (lines, judged) = collect(start, plies, count, seed, &what, progress, |_, pos| {
        if !seen.insert(*pos) {
            return None;
        }
        seen.insert(connect4_mirror(pos));
        let score = solver.score(pos);
        (score.abs() <= max_score).then_some(Some(score))
    })?;
    Ok(Suite {
        method: vec![
            "game: connect4".into(),
            format!(
                "method: random openings of {plies} plies, solved exactly (Connect4Solver), kept when |score| <= {max_score}, distinct up to the mirror"
            ),
            format!("parameters: plies={plies} count={count} max_score={max_score}"),
            "score: after ';', Pons' convention for the side to move (0 draw, 22-k a win with the k-th stone)".into(),
        ],
        lines,
        candidates: judged,
    })
}

/// The canonical form of an Othello position: the least of its 8 symmetric images.
pub fn othello_canonical(pos: &Othello) -> Othello {
    *pos.symmetries()
        .iter()
        .min_by_key(|p| (p.player, p.opponent))
        .expect("eight images")
}

/// The default depth of the Othello suite's search.
pub const OTHELLO_DEPTH: u32 = 10;
/// The default largest score (in weight units) an Othello suite keeps.
pub const OTHELLO_MAX_SCORE: f64 = 8.0;

/// `count` Othello openings of `plies` moves whose score by `pvs` at `depth` with `weights`
/// is within `±max_score` weight units, distinct up to the board's symmetries (see the module
/// documentation). `progress` hears the openings found so far.
pub fn othello_suite(
    plies: u32,
    count: u32,
    seed: u64,
    depth: u32,
    max_score: f64,
    weights: &Weights,
    progress: &mut dyn FnMut(u32),
) -> Result<Suite, String> {
    if !(1..=20).contains(&plies) {
        return Err(format!("--plies is {plies}; Othello suites take 1..=20"));
    }
    let start = Othello::start();
    let eval = LinearEval::new(&start, weights);
    let mut seen: HashSet<Othello> = HashSet::new();
    let what = format!("Othello openings of {plies} moves within ±{max_score}");
    let (lines, judged) = collect(start, plies, count, seed, &what, progress, |moves, pos| {
        // A pass is not written in the XOT format.
        if moves.contains(&crate::games::othello::OthelloMove::PASS)
            || !seen.insert(othello_canonical(pos))
        {
            return None;
        }
        // A fresh searcher per opening: the score depends on the opening alone.
        let mut searcher = Searcher::new(SearchConfig::new(Algorithm::Pvs, depth));
        let score = searcher.search(pos, &eval).score;
        let balanced =
            score.abs() < WIN_THRESHOLD && (score as f64 / eval.scale()).abs() <= max_score;
        balanced.then_some(None)
    })?;
    Ok(Suite {
        method: vec![
            "game: othello".into(),
            format!(
                "method: random openings of {plies} moves, scored by pvs at depth {depth} with the weights '{}', kept when |score| <= {max_score} weight units (a unit is a quarter of a move of mobility), distinct up to the 8 board symmetries",
                weights.origin
            ),
            format!("parameters: plies={plies} count={count} depth={depth} max_score={max_score}"),
        ],
        lines,
        candidates: judged,
    })
}

/// `count` Morpion openings of `plies` moves on `start`'s board, in the Gomocup openings
/// format (`0,0, 1,0, 1,1`: offsets from the centre), balanced by a shallow search: the
/// [`OpeningStream`] of `plies`, `seed` and alpha-beta at `depth` with the default weights,
/// which rejects an opening with a forced result (and a repeated position; symmetric images
/// are not merged). `progress` hears the openings found so far.
pub fn morpion_suite(
    start: Morpion,
    plies: u32,
    count: u32,
    seed: u64,
    depth: u32,
    progress: &mut dyn FnMut(u32),
) -> Result<Suite, String> {
    if !(1..=20).contains(&plies) {
        return Err(format!("--plies is {plies}; Morpion suites take 1 to 20"));
    }
    let balance = Balance {
        depth,
        max_imbalance: None,
    };
    let mut stream = OpeningStream::new(start, plies, seed, balance);
    let mut lines = Vec::new();
    for _ in 0..count {
        let (moves, _) = stream.next_opening()?;
        lines.push(SuiteLine {
            moves: gomocup_line(&start, &moves).expect("a Morpion board"),
            score: None,
        });
        progress(lines.len() as u32);
    }
    Ok(Suite {
        method: vec![
            format!("game: {}", start.name()),
            format!(
                "method: random openings of {plies} moves, rejected when alpha-beta at depth {depth} with the default weights finds a forced result; Gomocup format (X,Y offsets from the centre)"
            ),
            format!("parameters: plies={plies} count={count} depth={depth}"),
        ],
        lines,
        candidates: stream.attempts(),
    })
}

/// What `joute openings` asks for; what it leaves out takes the game's default.
#[derive(Clone, Debug)]
pub struct SuiteRequest {
    /// Plies of every opening (default: Connect 4 6, Othello 8, Morpion 4).
    pub plies: Option<u32>,
    /// Openings in the suite.
    pub count: u32,
    /// Seed of the random candidates.
    pub seed: u64,
    /// Largest score kept (Connect 4 and Othello only).
    pub max_score: Option<f64>,
    /// Depth of the search that judges each opening (Othello and Morpion only).
    pub depth: Option<u32>,
}

/// The suite `request` asks for on the game `kind`, each option checked for that game (a
/// refusal names it as `joute openings` spells it). `progress` hears the openings found so far.
pub fn generate(
    kind: &GameKind,
    request: &SuiteRequest,
    progress: &mut dyn FnMut(u32),
) -> Result<Suite, String> {
    let SuiteRequest {
        plies,
        count,
        seed,
        max_score,
        depth,
    } = *request;
    if count == 0 || count > 100_000 {
        return Err(format!("--count is {count}; allowed: 1..=100000"));
    }
    match *kind {
        GameKind::Connect4 => {
            if depth.is_some() {
                return Err(
                    "--depth applies to othello only; Connect 4 openings are solved exactly".into(),
                );
            }
            let max_score = max_score.unwrap_or(2.0);
            if !(0.0..=22.0).contains(&max_score) || max_score.fract() != 0.0 {
                return Err(format!(
                    "--max-score is {}; for connect4 a whole number in 0..=22",
                    crate::outputs::number_text(max_score)
                ));
            }
            connect4_suite(plies.unwrap_or(6), count, seed, max_score as i32, progress)
        }
        GameKind::Othello => {
            let depth = depth.unwrap_or(OTHELLO_DEPTH);
            if !(1..=12).contains(&depth) {
                return Err(format!("--depth is {depth}; allowed: 1..=12"));
            }
            let max_score = max_score.unwrap_or(OTHELLO_MAX_SCORE);
            if max_score.is_nan() || max_score < 0.0 {
                return Err(format!(
                    "--max-score is {}; it must be 0 or more",
                    crate::outputs::number_text(max_score)
                ));
            }
            let start = Othello::start();
            let weights = Weights::default_for(&start);
            othello_suite(
                plies.unwrap_or(8),
                count,
                seed,
                depth,
                max_score,
                &weights,
                progress,
            )
        }
        GameKind::Morpion {
            rows,
            cols,
            k,
            rule,
        } => {
            if max_score.is_some() {
                return Err(
                    "--max-score applies to connect4 and othello; Morpion openings are rejected only when the search finds a forced result".into(),
                );
            }
            let depth = depth.unwrap_or(2);
            if !(0..=6).contains(&depth) {
                return Err(format!("--depth is {depth}; for morpion 0..=6"));
            }
            let start = Morpion::with_rule(rows, cols, k, rule);
            morpion_suite(start, plies.unwrap_or(4), count, seed, depth, progress)
        }
        ref other => Err(format!(
            "joute openings makes suites for connect4, othello and morpion; not for {other}"
        )),
    }
}

/// The `key: value` lines of a suite file's header.
pub fn header_values(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# "))
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gomocup_lines_round_trip() {
        let start = Morpion::start(15, 15, 5);
        let suite = morpion_suite(start, 3, 5, 1, 1, &mut |_| {}).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.txt");
        std::fs::write(&path, suite.to_file("test", 1)).unwrap();
        let list = super::super::openings::read_openings_file(start, &path).unwrap();
        assert_eq!(list.len(), 5);
        for (moves, line) in list.iter().zip(&suite.lines) {
            assert_eq!(gomocup_line(&start, moves).unwrap(), line.moves);
        }
        std::fs::write(&path, "0,0, 1,0, 1,1\n-7,-7, 7,7\n").unwrap();
        let list = super::super::openings::read_openings_file(start, &path).unwrap();
        let names: Vec<Vec<String>> = list
            .iter()
            .map(|m| m.iter().map(|&c| start.format_move(c)).collect())
            .collect();
        assert_eq!(names, [vec!["h8", "i8", "i9"], vec!["a1", "o15"]]);
        std::fs::write(&path, "0,0, 1,0, 8,1\n").unwrap();
        let err = super::super::openings::read_openings_file(start, &path).unwrap_err();
        assert!(err.contains("g.txt:1:11: offset 8,1"), "{err}");
        std::fs::write(&path, "0,0, 1\n").unwrap();
        let err = super::super::openings::read_openings_file(start, &path).unwrap_err();
        assert!(err.contains("g.txt:1:6:") && err.contains("no Y"), "{err}");
    }

    #[test]
    fn mirror_of_a_connect4_position() {
        let start = Connect4::start();
        let a = start.play_sequence("4453").unwrap();
        let b = start.play_sequence("4435").unwrap();
        assert_eq!(connect4_mirror(&a), b);
        assert_eq!(connect4_mirror(&connect4_mirror(&a)), a);
    }

    #[test]
    fn othello_canonical_is_shared_by_the_images() {
        let pos = Othello::start().play_sequence("f5d6c3").unwrap();
        let c = othello_canonical(&pos);
        for image in pos.symmetries() {
            assert_eq!(othello_canonical(&image), c);
        }
    }
}

//! The games layer: rules, move notation, hashing and perft for every game joute plays.
//!
//! Every game implements the small [`Game`] trait; positions are small `Copy` values and moves
//! are played by copy-make ([`Game::play`] returns the new position). The command line names a
//! game by a [`GameKind`] and dispatches once, through [`GameVisitor`], to code monomorphised
//! for that game.

pub mod connect4;
pub mod hash;
pub mod morpion;
pub mod othello;
pub mod padded;
pub mod perft;
pub mod random_tree;
pub mod renju;
pub mod threats;

use std::fmt;

use arrayvec::ArrayVec;

pub use connect4::Connect4;
pub use morpion::{Morpion, Rule};
pub use othello::Othello;
pub use random_tree::RandomTree;

/// The most legal moves any position of any supported game can have (a 15×15 Morpion board has
/// 225 cells; the random tree's branching is capped below this).
pub const MAX_MOVES: usize = 256;

/// A list of moves kept on the stack: generating moves never allocates.
pub type MoveList<M> = ArrayVec<M, MAX_MOVES>;

/// One of the two players. `First` moves first: black in Othello, X in Morpion.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The player who moves first from the start position.
    First,
    /// The player who moves second.
    Second,
}

impl Side {
    /// The other player.
    #[inline]
    pub fn opponent(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    /// +1 for the first player, -1 for the second: the sign of a score it wins by.
    pub fn sign(self) -> i32 {
        match self {
            Side::First => 1,
            Side::Second => -1,
        }
    }
}

/// How a finished game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Side>,
    /// The final score from the first player's point of view: the disc difference in Othello
    /// (empty squares to the winner), the leaf value of a random tree, and +1, 0 or -1 in games
    /// that have no margin.
    pub score: i32,
}

impl Outcome {
    /// A game won by `side`, scored +1 / -1 from the first player's point of view.
    pub fn win(side: Side) -> Outcome {
        Outcome {
            winner: Some(side),
            score: side.sign(),
        }
    }

    /// The first player's points: 1 for a win, ½ for a draw, 0 for a loss.
    pub fn first_player_points(&self) -> f64 {
        match self.winner {
            Some(Side::First) => 1.0,
            Some(Side::Second) => 0.0,
            None => 0.5,
        }
    }

    /// A drawn game.
    pub const DRAW: Outcome = Outcome {
        winner: None,
        score: 0,
    };
}

/// Why a game name, a position or a move was refused. Each message names what was wrong and
/// what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The game name is not one joute knows.
    #[error(
        "unknown game '{0}'; expected othello, connect4, morpion, morpion-RxC-K[-exact|-renju] (rows and columns 1..=15, 1 <= K <= max(rows, columns); renju: K = 5), renju or random-tree-BxD[-sSEED]"
    )]
    UnknownGame(String),
    /// The game name has the right shape but parameters out of range.
    #[error("invalid game '{name}': {reason}")]
    BadVariant {
        /// The name as given.
        name: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// A position string could not be read.
    #[error("invalid {game} position: {reason}")]
    BadPosition {
        /// The game's name.
        game: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// A move could not be read or is not legal in the position.
    #[error("invalid {game} move '{text}': {reason}")]
    BadMove {
        /// The game's name.
        game: String,
        /// The move as given.
        text: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
}

/// The rules of a two-player, zero-sum, perfect-information game, as the searches and the arena
/// see them. A value of the implementing type is one position.
pub trait Game: Copy + Send + Sync + fmt::Debug + Eq + std::hash::Hash + 'static {
    /// A move; small and `Copy`.
    type Move: Copy + Eq + fmt::Debug + Send + Sync + 'static;

    /// The game's name as specs and the command line write it (`othello`, `morpion-5x5-4`).
    fn name(&self) -> String;

    /// The player to move.
    fn side_to_move(&self) -> Side;

    /// Appends the legal moves to `moves`. A finished game has none; a position where only a
    /// pass is legal lists the pass.
    fn legal_moves(&self, moves: &mut MoveList<Self::Move>);

    /// Keeps, of the legal `moves`, those on a cell within `radius` cells (a king's walk) of a
    /// mark, where the game has marks on a grid (Morpion); every move when the board has no
    /// mark or no move is near one, and in the other games. The searches' `near` option
    /// ([`crate::search::SearchOptions::near`]) skips far cells this way.
    fn retain_near(&self, _moves: &mut MoveList<Self::Move>, _radius: u32) {}

    /// The number of legal moves; games override it with a cheaper count than generating them.
    fn move_count(&self) -> usize {
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        moves.len()
    }

    /// The position after `mv`, which must be legal here (copy-make).
    fn play(&self, mv: Self::Move) -> Self;

    /// `Some` once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// A 64-bit hash of the position: a function of the board and the side to move alone, so
    /// positions reached by different move orders hash alike.
    fn hash_key(&self) -> u64;

    /// Reads one move in this game's notation and checks that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, GameError>;

    /// Writes a move in this game's notation.
    fn format_move(&self, mv: Self::Move) -> String;

    /// A dense index of the move, below [`MAX_MOVES`] (for history tables and the like).
    fn move_index(&self, mv: Self::Move) -> usize;

    /// Whether finished positions are scored by their [`Outcome::score`] (the random tree's leaf
    /// values) rather than as a win, draw or loss.
    const SCORED_LEAVES: bool = false;

    /// The margin of a game won without one on the board (lost by a failure, adjudicated by
    /// the engines' scores): the largest the game has, Othello's 64 (as GGF records it), else
    /// 1. Such a game otherwise scores ±1, a margin no Othello game can end with.
    const MARGIN_OF_A_WIN_OFF_THE_BOARD: i32 = 1;

    /// Reads a position of the same game (the same variant as `self`) from its text form.
    fn parse_position(&self, text: &str) -> Result<Self, GameError>;

    /// A text diagram of the board for terminals.
    fn render(&self) -> String;

    /// The length in bytes of the first move of `run`, moves written together without
    /// separators (`f5d6c3`). Games whose notation lets moves run together (Othello squares,
    /// Connect 4 digits, Morpion cells) override it; by default a run is one move.
    fn first_move_len(&self, run: &str) -> usize {
        run.len()
    }

    /// Plays a sequence of moves in this game's notation from this position. Moves are
    /// separated by spaces or commas; games whose moves can be told apart without a separator
    /// (Othello `f5d6`, Connect 4 `4453`, Morpion `a1b2`) also read them run together.
    fn play_sequence(&self, text: &str) -> Result<Self, GameError> {
        Ok(self
            .parse_sequence(text)?
            .into_iter()
            .fold(*self, |pos, mv| pos.play(mv)))
    }

    /// The moves of a sequence in this game's notation from this position, as
    /// [`Game::play_sequence`] reads them.
    fn parse_sequence(&self, text: &str) -> Result<Vec<Self::Move>, GameError> {
        let mut pos = *self;
        let mut moves = Vec::new();
        for token in text.split(|c: char| c.is_whitespace() || c == ',') {
            for (_, mv) in split_run(self, token) {
                let mv = pos.parse_move(mv)?;
                moves.push(mv);
                pos = pos.play(mv);
            }
        }
        Ok(moves)
    }
}

/// The moves of `run`, moves written together without separators, each with its byte offset
/// in `run`, as [`Game::first_move_len`] cuts them (an empty run has none).
pub fn split_run<'a, G: Game>(game: &G, run: &'a str) -> Vec<(usize, &'a str)> {
    let mut moves = Vec::new();
    let mut offset = 0;
    while offset < run.len() {
        let rest = &run[offset..];
        // At least one character, so the loop ends whatever a game answers.
        let first = rest.chars().next().map_or(0, char::len_utf8);
        let len = game.first_move_len(rest).clamp(first, rest.len());
        let len = (len..=rest.len())
            .find(|&l| rest.is_char_boundary(l))
            .unwrap_or(rest.len());
        moves.push((offset, &rest[..len]));
        offset += len;
    }
    moves
}

/// The last words of a board diagram: `X to move` (X the first player, O the second), or once
/// the game is over `X wins`, `O wins` or `draw`.
pub(crate) fn to_move_or_result<G: Game>(pos: &G) -> &'static str {
    match (pos.outcome(), pos.side_to_move()) {
        (None, Side::First) => "X to move",
        (None, Side::Second) => "O to move",
        (Some(outcome), _) => match outcome.winner {
            Some(Side::First) => "game over, X wins",
            Some(Side::Second) => "game over, O wins",
            None => "game over, draw",
        },
    }
}

/// A random game: up to `plies` uniformly random legal moves from `start` (fewer when the game
/// ends first), drawn from a splitmix64 sequence seeded with `seed`, so the same seed gives the
/// same game everywhere. Returns every position along the way, `start` first, and the moves
/// between them.
pub fn random_game<G: Game>(start: G, plies: usize, seed: u64) -> (Vec<G>, Vec<G::Move>) {
    let mut state = seed;
    let mut positions = vec![start];
    let mut played = Vec::new();
    let mut pos = start;
    let mut moves = MoveList::new();
    for _ in 0..plies {
        moves.clear();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        state = hash::mix64(state);
        let mv = moves[(state % moves.len() as u64) as usize];
        pos = pos.play(mv);
        played.push(mv);
        positions.push(pos);
    }
    (positions, played)
}

/// The last position of [`random_game`]: where `plies` random moves from `start` lead.
pub fn random_position<G: Game>(start: G, plies: usize, seed: u64) -> G {
    let (positions, _) = random_game(start, plies, seed);
    *positions.last().expect("a random game holds its start")
}

/// A game named on the command line or in a spec, with its parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameKind {
    /// Othello 8×8.
    Othello,
    /// Connect 4, 7 columns × 6 rows.
    Connect4,
    /// The m,n,k game: `rows` × `cols`, `k` in a row wins (gomoku and renju among them).
    Morpion {
        /// Number of rows, 1..=15.
        rows: u8,
        /// Number of columns, 1..=15.
        cols: u8,
        /// Marks in a row needed to win, 1..=max(rows, cols); 5 under renju.
        k: u8,
        /// Which lines win and what is forbidden.
        rule: Rule,
    },
    /// A uniform synthetic tree with pseudo-random leaf values.
    RandomTree {
        /// Children of every inner node.
        branching: u8,
        /// Plies from the root to the leaves.
        depth: u8,
        /// Seed of the leaf values.
        seed: u64,
    },
}

impl GameKind {
    /// Reads a game name: `othello`, `connect4`, `morpion` (3×3, 3 in a row), `morpion-RxC-K`
    /// (K or more in a row win) with an optional `-exact` (exactly K) or `-renju` (renju's
    /// rules, K = 5), `renju` (`morpion-15x15-5-renju`), or `random-tree-BxD` with an optional
    /// `-sSEED`.
    pub fn parse(name: &str) -> Result<GameKind, GameError> {
        let unknown = || GameError::UnknownGame(name.to_string());
        let bad = |reason: String| GameError::BadVariant {
            name: name.to_string(),
            reason,
        };
        match name {
            "othello" => return Ok(GameKind::Othello),
            "connect4" => return Ok(GameKind::Connect4),
            "morpion" => {
                return Ok(GameKind::Morpion {
                    rows: 3,
                    cols: 3,
                    k: 3,
                    rule: Rule::Freestyle,
                });
            }
            "renju" => {
                return Ok(GameKind::Morpion {
                    rows: 15,
                    cols: 15,
                    k: 5,
                    rule: Rule::Renju,
                });
            }
            _ => {}
        }
        if let Some(rest) = name.strip_prefix("morpion-") {
            let (size, k) = rest.split_once('-').ok_or_else(unknown)?;
            let (k, rule) = match k.split_once('-') {
                None => (k, Rule::Freestyle),
                Some((k, "exact")) => (k, Rule::Exact),
                Some((k, "renju")) => (k, Rule::Renju),
                Some((_, other)) => {
                    return Err(bad(format!(
                        "unknown rule '{other}'; after morpion-RxC-K comes nothing (K or more in a row win), -exact (exactly K) or -renju"
                    )));
                }
            };
            let (rows, cols) = size.split_once('x').ok_or_else(unknown)?;
            let number = |s: &str| s.parse::<u32>().map_err(|_| unknown());
            let (rows, cols, k) = (number(rows)?, number(cols)?, number(k)?);
            if !(1..=15).contains(&rows) || !(1..=15).contains(&cols) {
                return Err(bad(format!(
                    "the board is {rows}x{cols}; rows and columns must be between 1 and 15"
                )));
            }
            let longest = rows.max(cols);
            if k < 1 || k > longest {
                return Err(bad(format!(
                    "k = {k} in a row cannot fit a {rows}x{cols} board; k must be between 1 and {longest}"
                )));
            }
            if rule == Rule::Renju && k != 5 {
                // Suggest only a name that exists: five must fit the board.
                let instead = if longest >= 5 {
                    format!("write morpion-{rows}x{cols}-5-renju")
                } else {
                    format!(
                        "five cannot fit a {rows}x{cols} board; renju needs 5 rows or columns or more (write renju for 15x15)"
                    )
                };
                return Err(bad(format!("renju is five in a row, not {k}: {instead}")));
            }
            return Ok(GameKind::Morpion {
                rows: rows as u8,
                cols: cols as u8,
                k: k as u8,
                rule,
            });
        }
        if let Some(rest) = name.strip_prefix("random-tree-") {
            let (shape, seed) = match rest.split_once("-s") {
                Some((shape, seed)) => (shape, seed.parse::<u64>().map_err(|_| unknown())?),
                None => (rest, 0),
            };
            let (b, d) = shape.split_once('x').ok_or_else(unknown)?;
            let b = b.parse::<u32>().map_err(|_| unknown())?;
            let d = d.parse::<u32>().map_err(|_| unknown())?;
            if !(1..=random_tree::MAX_BRANCHING as u32).contains(&b) {
                return Err(bad(format!(
                    "branching {b} is out of range; it must be between 1 and {}",
                    random_tree::MAX_BRANCHING
                )));
            }
            if !(1..=random_tree::MAX_DEPTH as u32).contains(&d) {
                return Err(bad(format!(
                    "depth {d} is out of range; it must be between 1 and {}",
                    random_tree::MAX_DEPTH
                )));
            }
            return Ok(GameKind::RandomTree {
                branching: b as u8,
                depth: d as u8,
                seed,
            });
        }
        Err(unknown())
    }

    /// Calls `visitor` with the start position of this game, monomorphised for its type.
    pub fn dispatch<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match *self {
            GameKind::Othello => visitor.visit(Othello::start()),
            GameKind::Connect4 => visitor.visit(Connect4::start()),
            GameKind::Morpion {
                rows,
                cols,
                k,
                rule,
            } => visitor.visit(Morpion::with_rule(rows, cols, k, rule)),
            GameKind::RandomTree {
                branching,
                depth,
                seed,
            } => visitor.visit(RandomTree::new(branching, depth, seed)),
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GameKind::Othello => f.write_str("othello"),
            GameKind::Connect4 => f.write_str("connect4"),
            GameKind::Morpion {
                rows: 3,
                cols: 3,
                k: 3,
                rule: Rule::Freestyle,
            } => f.write_str("morpion"),
            GameKind::Morpion {
                rows: 15,
                cols: 15,
                k: 5,
                rule: Rule::Renju,
            } => f.write_str("renju"),
            GameKind::Morpion {
                rows,
                cols,
                k,
                rule: Rule::Freestyle,
            } => write!(f, "morpion-{rows}x{cols}-{k}"),
            GameKind::Morpion {
                rows,
                cols,
                k,
                rule,
            } => write!(f, "morpion-{rows}x{cols}-{k}-{}", rule.name()),
            GameKind::RandomTree {
                branching,
                depth,
                seed: 0,
            } => write!(f, "random-tree-{branching}x{depth}"),
            GameKind::RandomTree {
                branching,
                depth,
                seed,
            } => write!(f, "random-tree-{branching}x{depth}-s{seed}"),
        }
    }
}

impl std::str::FromStr for GameKind {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameKind::parse(s)
    }
}

/// Code to run once for whichever game the user named: [`GameKind::dispatch`] calls
/// [`GameVisitor::visit`] with that game's start position, so the code is monomorphised per game.
pub trait GameVisitor {
    /// What the visit returns.
    type Output;
    /// Runs the visitor on a game whose start position is `start`.
    fn visit<G: Game>(self, start: G) -> Self::Output;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_player_scores_one_half_or_nothing() {
        assert_eq!(Outcome::win(Side::First).first_player_points(), 1.0);
        assert_eq!(Outcome::win(Side::Second).first_player_points(), 0.0);
        assert_eq!(Outcome::DRAW.first_player_points(), 0.5);
    }

    #[test]
    fn game_names_round_trip() {
        for name in [
            "othello",
            "connect4",
            "morpion",
            "morpion-15x15-5",
            "morpion-3x5-5",
            "morpion-15x15-5-exact",
            "morpion-4x7-3-exact",
            "renju",
            "morpion-9x9-5-renju",
            "morpion-15x13-5-renju",
            "random-tree-8x6",
            "random-tree-3x4-s9",
        ] {
            assert_eq!(GameKind::parse(name).unwrap().to_string(), name);
        }
        assert_eq!(
            GameKind::parse("morpion-3x3-3").unwrap().to_string(),
            "morpion"
        );
        assert_eq!(
            GameKind::parse("morpion-15x15-5-renju")
                .unwrap()
                .to_string(),
            "renju"
        );
    }

    #[test]
    fn bad_game_names_say_what_is_allowed() {
        let err = GameKind::parse("chess").unwrap_err().to_string();
        assert!(
            err.contains("unknown game 'chess'") && err.contains("othello"),
            "{err}"
        );
        let err = GameKind::parse("morpion-0x3-3").unwrap_err().to_string();
        assert!(err.contains("between 1 and 15"), "{err}");
        let err = GameKind::parse("morpion-3x3-9").unwrap_err().to_string();
        assert!(err.contains("k must be between 1 and 3"), "{err}");
        let err = GameKind::parse("morpion-16x3-3").unwrap_err().to_string();
        assert!(err.contains("between 1 and 15"), "{err}");
        assert!(GameKind::parse("morpion-3x3").is_err());
        let err = GameKind::parse("morpion-15x15-4-renju")
            .unwrap_err()
            .to_string();
        assert!(err.contains("renju is five in a row"), "{err}");
        // Every name an error tells the user to write is one that parses.
        for rows in 1..=7 {
            for cols in 1..=7 {
                for k in 1..=rows.max(cols) {
                    for rule in ["", "-exact", "-renju"] {
                        let name = format!("morpion-{rows}x{cols}-{k}{rule}");
                        let Err(err) = GameKind::parse(&name) else {
                            continue;
                        };
                        let err = err.to_string();
                        if let Some(at) = err.find("write ") {
                            let told = err[at + 6..].split([' ', ';', ',']).next().unwrap();
                            assert!(GameKind::parse(told).is_ok(), "{name}: {err}");
                        }
                    }
                }
            }
        }
        let err = GameKind::parse("morpion-3x3-3-renju")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("five cannot fit a 3x3 board") && !err.contains("morpion-3x3-5"),
            "{err}"
        );
        let err = GameKind::parse("morpion-15x15-5-caro")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown rule 'caro'") && err.contains("-exact"),
            "{err}"
        );
        assert!(GameKind::parse("random-tree-0x3").is_err());
    }
}

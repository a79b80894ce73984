//! Weight files (`weights/*.toml`; see `docs/files.md`): reading and writing the
//! [`Weights`] vector (defined in [`super::features`]).
//!
//! A weights file names its game and gives one number per feature, by name:
//!
//! ```toml
//! game = "othello"
//! [weights]
//! mobility = 4.0
//! corners = 30
//! ```
//!
//! Rules:
//! - `game` is required and must be the game the weights are loaded for. Names are compared
//!   after reading them as game names, so `morpion` (3×3, 3 in a row) and `morpion-3x3-3` are
//!   the same game, and `morpion-15x15-5` matches only that variant: the features of a Morpion
//!   variant depend on its k. A random tree's weights may say `random-tree` (any shape and
//!   seed) or name the exact tree.
//! - `[weights]` maps feature names to numbers (integers or floats). A feature the file does not
//!   mention weighs 0; a file without `[weights]` weighs every feature 0.
//! - `[endgame]` (optional) makes the weights *tapered*: `[weights]` then holds the opening
//!   weights and `[endgame]` the weights at the end of the game, same keys; a feature `[endgame]`
//!   leaves out takes its `[weights]` value. The evaluation interpolates by the game's progress
//!   t of T ([`Features::progress`]): weight (T − t)/T on the opening's, t/T on the endgame's
//!   ([`super::LinearEval`]). Without `[endgame]` ([`Weights::endgame`] is `None`) there is one
//!   weight vector for the whole game.
//! - Errors, each naming the file, line, column and key (`FILE:LINE:COLUMN: ... key 'x' ...`):
//!   text that is not TOML (a key without a value, `mobility = `, is one), a missing `game`, a
//!   different game, an unknown feature name (the message lists the allowed ones), a value that
//!   is not a number, a NaN or an infinity (TOML allows `nan` and `inf`), each in `[weights]`
//!   or `[endgame]`, and any top-level key other than `game`, `weights` and `endgame`. A file
//!   that cannot be read is reported with its path and the system's reason.
//!
//! The built-in defaults ([`Weights::default_for`]) are the files `weights/othello.toml`,
//! `weights/connect4.toml` and `weights/morpion.toml` compiled into the binary; other Morpion
//! variants get weights generated from their k ([`super::morpion::generated_defaults`]) and a
//! random tree weighs its one feature 1.

use std::path::Path;

use toml::de::{DeString, DeTable, DeValue};

use super::features::{BUILT_IN, Feature, Features, Weights};
use crate::games::GameKind;

/// Why a weights file was refused. Every message starts `FILE:LINE:COLUMN:` and names the key
/// at fault (an unreadable file, which has no line, names only the file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The file could not be read.
    #[error("{file}: cannot read the weights file: {reason}")]
    Io {
        /// The path.
        file: String,
        /// The system's reason.
        reason: String,
    },
    /// The text is not TOML.
    #[error("{file}:{line}:{column}: invalid TOML at key '{key}': {reason}")]
    Syntax {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// The key on the line at fault, as written, or `(none)`.
        key: String,
        /// The parser's message.
        reason: String,
    },
    /// The file does not say which game it is for.
    #[error(
        "{file}:{line}:{column}: missing key 'game'; a weights file starts with the game it is for, e.g. game = \"{expected}\""
    )]
    MissingGame {
        /// The file.
        file: String,
        /// 1-based line (1: the start of the file).
        line: usize,
        /// 1-based column.
        column: usize,
        /// The game the weights were loaded for.
        expected: String,
    },
    /// The file is for another game.
    #[error(
        "{file}:{line}:{column}: key 'game' is \"{found}\", but these weights are loaded for {expected}"
    )]
    WrongGame {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The game the file names.
        found: String,
        /// The game the weights were loaded for.
        expected: String,
    },
    /// A name under `[weights]` or `[endgame]` is not a feature of the game.
    #[error(
        "{file}:{line}:{column}: unknown feature: key '{key}' is not a feature of {game}; allowed: {allowed}"
    )]
    UnknownFeature {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The name as written.
        key: String,
        /// The game.
        game: String,
        /// The game's feature names, comma-separated.
        allowed: String,
    },
    /// A value has the wrong type or is not a finite number.
    #[error("{file}:{line}:{column}: key '{key}': {reason}")]
    BadValue {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The key (`weights.mobility`, `game`).
        key: String,
        /// What is wrong and what is expected.
        reason: String,
    },
    /// A pattern weights file ([`super::pattern`]) that is not one, or whose header, size or
    /// values are wrong.
    #[error("{file}: {reason}")]
    PatternFile {
        /// The file.
        file: String,
        /// What is wrong and what is expected.
        reason: String,
    },
    /// A line of a pattern weights CSV file ([`super::pattern`]).
    #[error("{file}:{line}: field '{field}': {reason}")]
    PatternCsv {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// The field at fault (`phase`, `pattern`, `config`, `weight`), `phases` on the first
        /// line, `header`, or `(line)` for the line as a whole.
        field: String,
        /// What is wrong and what is expected.
        reason: String,
    },
    /// A top-level key other than `game`, `weights` and `endgame`.
    #[error(
        "{file}:{line}:{column}: unknown key '{key}'; a weights file has only the key 'game' and the tables [weights] and [endgame]"
    )]
    UnknownKey {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The key as written.
        key: String,
    },
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// The key written on the line holding byte `offset`: the text before `=`, or a table header's
/// name; `(none)` when the line has neither.
pub(crate) fn key_on_line(text: &str, offset: usize) -> String {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[start..end].trim();
    let key = if let Some((key, _)) = line.split_once('=') {
        key
    } else if line.starts_with('[') {
        line.trim_matches(|c| c == '[' || c == ']')
    } else {
        line.split_whitespace().next().unwrap_or("")
    };
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
    if key.is_empty() {
        "(none)".into()
    } else {
        key.to_string()
    }
}

/// The parser's message, preceded by a plainer one when the line is `key =` with no value.
pub(crate) fn syntax_reason(text: &str, offset: usize, message: &str) -> String {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[start..end];
    let message = message.trim();
    match line.split_once('=') {
        Some((_, value)) if value.split('#').next().unwrap_or("").trim().is_empty() => {
            format!("the key has no value; expected a number after '=' ({message})")
        }
        _ => message.to_string(),
    }
}

/// A game name in its canonical spelling (`morpion-3x3-3` → `morpion`); unknown names as they
/// are.
fn canonical(name: &str) -> String {
    GameKind::parse(name.trim()).map_or_else(|_| name.trim().to_string(), |k| k.to_string())
}

/// Whether a file's `game` value names the game `expected` (a canonical name).
fn same_game(found: &str, expected: &str) -> bool {
    canonical(found) == expected
        || (found.trim() == "random-tree" && expected.starts_with("random-tree-"))
}

/// A TOML number as `f64`, or why it is not one.
fn number(value: &DeValue<'_>) -> Result<f64, String> {
    let x = match value {
        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
            .map(|v| v as f64)
            .map_err(|_| format!("the integer {i} is out of range"))?,
        DeValue::Float(f) => f
            .as_str()
            .parse::<f64>()
            .map_err(|_| format!("'{f}' is not a number"))?,
        other => {
            return Err(format!("expected a number, found a {}", other.type_str()));
        }
    };
    check_weight(x)
}

/// The largest weight magnitude joute accepts. Evaluations are integers below
/// [`crate::eval::EVAL_LIMIT`]; weights are scaled down together when their largest possible
/// sum would pass it, so one weight of 1e300 would round every other to 0 and leave an engine
/// that evaluates nothing. A million is far beyond any weight that plays.
pub const MAX_WEIGHT: f64 = 1e6;

/// A weight as read, or why it is refused: not a finite number, or beyond ±[`MAX_WEIGHT`].
pub fn check_weight(x: f64) -> Result<f64, String> {
    if x.is_nan() {
        Err("the weight is NaN; a weight must be a finite number".into())
    } else if x.is_infinite() {
        Err("the weight is infinite; a weight must be a finite number".into())
    } else if x.abs() > MAX_WEIGHT {
        Err(format!(
            "the weight {x:e} is too large; allowed: -1e6..=1e6 (weights scale together, so a huge one would round every other to 0)"
        ))
    } else {
        Ok(x)
    }
}

/// Parses embedded default weights, which the tests check parse.
pub(crate) fn embedded<G: Features>(start: &G, text: &str) -> Weights {
    Weights::parse(start, text, BUILT_IN)
        .unwrap_or_else(|e| panic!("the embedded default weights are broken: {e}"))
}

/// Checks the `game` entry of a weights file (text `text`, named `file`) names the game
/// `expected`.
fn check_game(
    text: &str,
    file: &str,
    game: Option<(&toml::Spanned<DeString<'_>>, &toml::Spanned<DeValue<'_>>)>,
    expected: &str,
) -> Result<(), EvalError> {
    let Some((game_key, game_value)) = game else {
        return Err(EvalError::MissingGame {
            file: file.to_string(),
            line: 1,
            column: 1,
            expected: expected.to_string(),
        });
    };
    let Some(found) = game_value.get_ref().as_str() else {
        let (line, column) = line_col(text, game_value.span().start);
        return Err(EvalError::BadValue {
            file: file.to_string(),
            line,
            column,
            key: "game".into(),
            reason: format!(
                "expected a game name in quotes (game = \"{expected}\"), found a {}",
                game_value.get_ref().type_str()
            ),
        });
    };
    if !same_game(found, expected) {
        let (line, column) = line_col(text, game_key.span().start);
        return Err(EvalError::WrongGame {
            file: file.to_string(),
            line,
            column,
            found: found.to_string(),
            expected: expected.to_string(),
        });
    }
    Ok(())
}

/// Reads the table `key` of a weights file (text `text`, named `file`) of the game `game` as
/// one optional value per feature of `features`, in file order.
fn read_table(
    text: &str,
    file: &str,
    features: &[Feature],
    game: &str,
    key: &str,
    value: &toml::Spanned<DeValue<'_>>,
) -> Result<Vec<Option<f64>>, EvalError> {
    let Some(table) = value.get_ref().as_table() else {
        let (line, column) = line_col(text, value.span().start);
        return Err(EvalError::BadValue {
            file: file.to_string(),
            line,
            column,
            key: key.into(),
            reason: format!(
                "expected a table of feature = number, found a {}",
                value.get_ref().type_str()
            ),
        });
    };
    let mut out = vec![None; features.len()];
    let mut named: Vec<_> = table.iter().collect();
    named.sort_by_key(|(k, _)| k.span().start);
    for (name, weight) in named {
        let name_str: &str = name.get_ref();
        let Some(index) = features.iter().position(|f| f.name == name_str) else {
            let (line, column) = line_col(text, name.span().start);
            return Err(EvalError::UnknownFeature {
                file: file.to_string(),
                line,
                column,
                key: name_str.to_string(),
                game: game.to_string(),
                allowed: features
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        out[index] = Some(number(weight.get_ref()).map_err(|reason| {
            let (line, column) = line_col(text, weight.span().start);
            EvalError::BadValue {
                file: file.to_string(),
                line,
                column,
                key: name_str.to_string(),
                reason,
            }
        })?);
    }
    Ok(out)
}

impl Weights {
    /// Reads a weights file for the game of `start` (whose variant fixes the features).
    pub fn load<G: Features>(start: &G, path: &Path) -> Result<Weights, EvalError> {
        let file = path.display().to_string();
        let text =
            crate::inputs::read_to_string(path, crate::inputs::Input::Weights).map_err(|e| {
                EvalError::Io {
                    file: file.clone(),
                    reason: e.to_string(),
                }
            })?;
        Weights::parse(start, &text, &file)
    }

    /// Reads weights from the text of a weights file; `origin` names the file in errors and
    /// becomes [`Weights::origin`].
    pub fn parse<G: Features>(start: &G, text: &str, origin: &str) -> Result<Weights, EvalError> {
        let file = origin.to_string();
        let at = |offset: usize| line_col(text, offset);
        let table = DeTable::parse(text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            let (line, column) = at(offset);
            EvalError::Syntax {
                file: file.clone(),
                line,
                column,
                key: key_on_line(text, offset),
                reason: syntax_reason(text, offset, e.message()),
            }
        })?;
        let expected = start.name();
        let features = start.features();

        let mut entries: Vec<_> = table.get_ref().iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);

        // The game first: with the wrong game every feature name would be unknown.
        let game = entries.iter().find(|(k, _)| k.get_ref() == "game").copied();
        check_game(text, &file, game, &expected)?;

        let read_table = |key: &str, value: &toml::Spanned<DeValue<'_>>| {
            read_table(text, &file, &features, &expected, key, value)
        };

        let mut values = vec![0.0; features.len()];
        let mut endgame = None;
        for (key, value) in &entries {
            match key.get_ref().as_ref() {
                "game" => {}
                "weights" => {
                    for (v, w) in values.iter_mut().zip(read_table("weights", value)?) {
                        *v = w.unwrap_or(0.0);
                    }
                }
                "endgame" => endgame = Some(read_table("endgame", value)?),
                other => {
                    let (line, column) = at(key.span().start);
                    return Err(EvalError::UnknownKey {
                        file,
                        line,
                        column,
                        key: other.to_string(),
                    });
                }
            }
        }
        // A feature `[endgame]` leaves out takes its `[weights]` value.
        let endgame = endgame.map(|e: Vec<Option<f64>>| {
            e.iter()
                .zip(&values)
                .map(|(e, &v)| e.unwrap_or(v))
                .collect()
        });
        Ok(Weights {
            game: expected,
            values,
            endgame,
            origin: file,
        })
    }

    /// The hand-set default weights of the game of `start` (see the module documentation),
    /// with origin `"built-in default"`.
    pub fn default_for<G: Features>(start: &G) -> Weights {
        start.default_weights()
    }

    /// The weights as the text of a weights file, every feature listed in order under a comment
    /// with its meaning, `header_comment` (any number of lines) as `#` comments on top.
    /// [`Weights::parse`] reads it back to the same values.
    pub fn to_toml<G: Features>(&self, start: &G, header_comment: &str) -> String {
        let mut out = String::new();
        for line in header_comment.lines() {
            if line.is_empty() {
                out.push_str("#\n");
            } else {
                out.push_str("# ");
                out.push_str(line);
                out.push('\n');
            }
        }
        if !header_comment.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("game = \"{}\"\n\n", start.name()));
        let features = start.features();
        if self.endgame.is_some() {
            out.push_str(
                "# Tapered: [weights] holds the opening weights, [endgame] those of the end of the\n\
                 # game; the evaluation interpolates between them by the game's progress.\n",
            );
        }
        out.push_str("# Features not listed weigh 0.\n[weights]\n");
        for (i, feature) in features.iter().enumerate() {
            let w = self.values.get(i).copied().unwrap_or(0.0);
            out.push_str(&format!(
                "# {}\n{} = {}\n",
                feature.meaning,
                feature.name,
                toml_float(w)
            ));
        }
        if let Some(endgame) = &self.endgame {
            out.push_str("\n# Features not listed take their [weights] value.\n[endgame]\n");
            for (i, feature) in features.iter().enumerate() {
                let w = endgame.get(i).copied().unwrap_or(0.0);
                out.push_str(&format!("{} = {}\n", feature.name, toml_float(w)));
            }
        }
        out
    }

    /// Whether the weights are tapered (have an endgame vector).
    pub fn is_tapered(&self) -> bool {
        self.endgame.is_some()
    }

    /// The weights at the end of the game: [`Weights::endgame`], or `values` when untapered.
    pub fn endgame_values(&self) -> &[f64] {
        self.endgame.as_deref().unwrap_or(&self.values)
    }
}

/// A float in TOML syntax that reads back to the same `f64`.
fn toml_float(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        // Debug prints the shortest text that reads back exactly, always with a `.` or an
        // exponent (`1.0`, `1e-7`, `1e21`), all valid TOML floats.
        format!("{x:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Connect4, Morpion, Othello, RandomTree};

    fn othello_error(text: &str) -> String {
        Weights::parse(&Othello::start(), text, "w.toml")
            .unwrap_err()
            .to_string()
    }

    /// The message names the file, the line and column, and the key.
    fn check(message: &str, line: usize, column: usize, key: &str) {
        let prefix = format!("w.toml:{line}:{column}: ");
        assert!(message.starts_with(&prefix), "{message}");
        assert!(message.contains(&format!("key '{key}'")), "{message}");
    }

    #[test]
    fn a_file_sets_the_named_features_and_zeroes_the_rest() {
        let w = Weights::parse(
            &Othello::start(),
            "game = \"othello\"\n[weights]\nmobility = 8\ncorners = 30.5\n",
            "w.toml",
        )
        .unwrap();
        assert_eq!(w.values.len(), 18);
        assert_eq!(w.values[1], 8.0);
        assert_eq!(w.values[3], 30.5);
        assert_eq!(w.values.iter().filter(|&&v| v != 0.0).count(), 2);
        assert_eq!(w.origin, "w.toml");
        assert_eq!(w.game, "othello");
        let only_game = Weights::parse(&Othello::start(), "game = 'othello'", "w.toml").unwrap();
        assert!(only_game.values.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn not_toml() {
        let e = othello_error("game = \"othello\"\n[weights\nmobility = 1\n");
        assert!(e.starts_with("w.toml:2:"), "{e}");
        assert!(
            e.contains("key 'weights'") && e.contains("invalid TOML"),
            "{e}"
        );
    }

    #[test]
    fn missing_value() {
        let e = othello_error("game = \"othello\"\n[weights]\nmobility = \ncorners = 1\n");
        assert!(e.starts_with("w.toml:3:"), "{e}");
        assert!(
            e.contains("key 'mobility'") && e.contains("no value"),
            "{e}"
        );
        let e = othello_error("game = \"othello\"\n[weights]\nmobility =");
        assert!(e.starts_with("w.toml:3:"), "{e}");
        assert!(
            e.contains("key 'mobility'") && e.contains("no value"),
            "{e}"
        );
        let e = othello_error("game = \"othello\"\n[weights]\nmobility = # soon\n");
        assert!(e.starts_with("w.toml:3:"), "{e}");
        assert!(
            e.contains("key 'mobility'") && e.contains("no value"),
            "{e}"
        );
    }

    #[test]
    fn missing_game() {
        let e = othello_error("[weights]\nmobility = 1\n");
        check(&e, 1, 1, "game");
        assert!(e.contains("game = \"othello\""), "{e}");
    }

    #[test]
    fn another_game() {
        let e = othello_error("# tuned\ngame = \"connect4\"\n[weights]\ncentre = 1\n");
        check(&e, 2, 1, "game");
        assert!(
            e.contains("\"connect4\"") && e.contains("loaded for othello"),
            "{e}"
        );
        let e = othello_error("game = 4\n");
        check(&e, 1, 8, "game");
    }

    #[test]
    fn unknown_feature_lists_the_allowed_ones() {
        let e = othello_error("game = \"othello\"\n[weights]\nmobility = 1\n  cornerz = 3\n");
        check(&e, 4, 3, "cornerz");
        assert!(
            e.contains("allowed: discs, mobility, potential_mobility"),
            "{e}"
        );
        assert!(e.contains("sq_d4"), "{e}");
    }

    #[test]
    fn non_numbers_nan_and_infinity() {
        let e = othello_error("game = \"othello\"\n[weights]\nmobility = \"high\"\n");
        check(&e, 3, 12, "mobility");
        assert!(e.contains("expected a number, found a string"), "{e}");
        let e = othello_error("game = \"othello\"\n[weights]\ncorners = nan\n");
        check(&e, 3, 11, "corners");
        assert!(e.contains("NaN"), "{e}");
        let e = othello_error("game = \"othello\"\n[weights]\ndiscs = -inf\n");
        check(&e, 3, 9, "discs");
        assert!(e.contains("infinite"), "{e}");
        let e = othello_error("game = \"othello\"\n[weights]\ndiscs = true\n");
        check(&e, 3, 9, "discs");
        let e = othello_error("game = \"othello\"\nweights = 3\n");
        check(&e, 2, 11, "weights");
    }

    #[test]
    fn weights_beyond_a_million_are_refused_with_the_bound() {
        // 3e307 would scale every other weight to 0: an engine that evaluates nothing.
        let e = othello_error("game = \"othello\"\n[weights]\nmobility = 2\ncorners = 3e307\n");
        check(&e, 4, 11, "corners");
        assert!(e.contains("too large") && e.contains("1e6"), "{e}");
        let e = othello_error("game = \"othello\"\n[weights]\ncorners = -1000001\n");
        check(&e, 3, 11, "corners");
        let w = Weights::parse(
            &Othello::start(),
            "game = \"othello\"\n[weights]\ncorners = -1e6\nmobility = 1e6\n",
            "w.toml",
        )
        .unwrap();
        assert!(w.values.contains(&-1e6) && w.values.contains(&1e6));
    }

    #[test]
    fn an_endgame_table_tapers_the_weights() {
        let w = Weights::parse(
            &Othello::start(),
            "game = \"othello\"\n[weights]\nmobility = 2\ncorners = 30\n[endgame]\nmobility = 16.5\ndiscs = 3\n",
            "w.toml",
        )
        .unwrap();
        assert!(w.is_tapered());
        assert_eq!((w.values[0], w.values[1], w.values[3]), (0.0, 2.0, 30.0));
        let e = w.endgame.as_ref().unwrap();
        assert_eq!(e.len(), 18);
        // Listed: its own value; left out: the [weights] value (0 when that is left out too).
        assert_eq!((e[0], e[1], e[3], e[2]), (3.0, 16.5, 30.0, 0.0));
        assert_eq!(w.endgame_values(), &e[..]);
        // The table may come first, and may be empty.
        let w = Weights::parse(
            &Othello::start(),
            "game = \"othello\"\n[endgame]\n[weights]\nmobility = 2\n",
            "w.toml",
        )
        .unwrap();
        assert_eq!(w.endgame.as_deref(), Some(&w.values[..]));
        // No [endgame]: not tapered.
        let w = Weights::parse(
            &Othello::start(),
            "game = \"othello\"\n[weights]\nmobility = 2\n",
            "w.toml",
        )
        .unwrap();
        assert_eq!(w.endgame, None);
        assert_eq!(w.endgame_values(), &w.values[..]);
        assert!(!w.is_tapered());
    }

    #[test]
    fn endgame_errors_say_where() {
        let head = "game = \"othello\"\n[weights]\nmobility = 1\n[endgame]\n";
        let e = othello_error(&format!("{head}mobilty = 2\n"));
        check(&e, 5, 1, "mobilty");
        assert!(
            e.contains("unknown feature") && e.contains("allowed: discs"),
            "{e}"
        );
        let e = othello_error(&format!("{head}corners = nan\n"));
        check(&e, 5, 11, "corners");
        assert!(e.contains("NaN"), "{e}");
        let e = othello_error(&format!("{head}corners = inf\n"));
        check(&e, 5, 11, "corners");
        let e = othello_error(&format!("{head}discs = \"lots\"\n"));
        check(&e, 5, 9, "discs");
        assert!(e.contains("expected a number, found a string"), "{e}");
        let e = othello_error(&format!("{head}discs = 2e6\n"));
        check(&e, 5, 9, "discs");
        assert!(e.contains("too large"), "{e}");
        let e = othello_error(&format!("{head}discs =\n"));
        assert!(
            e.starts_with("w.toml:5:") && e.contains("key 'discs'"),
            "{e}"
        );
        let e = othello_error("game = \"othello\"\nendgame = 3\n");
        check(&e, 2, 11, "endgame");
        assert!(e.contains("expected a table"), "{e}");
        let e = othello_error("game = \"othello\"\n[endgames]\nx = 1\n");
        check(&e, 2, 2, "endgames");
        assert!(e.contains("[endgame]"), "{e}");
    }

    #[test]
    fn tapered_weights_round_trip() {
        fn both<G: Features>(start: &G) {
            let mut w = Weights::default_for(start);
            let n = w.values.len();
            w.endgame = Some(
                (0..n)
                    .map(|i| (i as f64 - 3.7) * 1.000_000_000_1e-3 + 12_345.678_9 * (i % 3) as f64)
                    .collect(),
            );
            let text = w.to_toml(start, "tapered");
            assert!(text.contains("\n[endgame]\n"), "{text}");
            let back = Weights::parse(start, &text, "round-trip").unwrap();
            assert_eq!(back.values, w.values, "{text}");
            assert_eq!(back.endgame, w.endgame, "{text}");
            let plain = Weights::default_for(start).to_toml(start, "");
            assert!(!plain.contains("[endgame]"), "{plain}");
        }
        both(&Othello::start());
        both(&Connect4::start());
        both(&Morpion::start(15, 15, 5));
        both(&RandomTree::new(2, 3, 4));
    }

    #[test]
    fn unknown_top_level_keys() {
        let e = othello_error("game = \"othello\"\ndepth = 3\n[weights]\nmobility = 1\n");
        check(&e, 2, 1, "depth");
        let e = othello_error("game = \"othello\"\n[weights]\nmobility = 1\n[extra]\nx = 1\n");
        check(&e, 4, 2, "extra");
    }

    #[test]
    fn files_are_named_by_their_path() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let path = dir.join("bad.toml");
        std::fs::write(&path, "game = \"othello\"\n[weights]\nmobilty = 2\n").unwrap();
        let e = Weights::load(&Othello::start(), &path)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(&format!("{}:3:1: ", path.display())), "{e}");
        std::fs::write(&path, "game = \"othello\"\n[weights]\nmobility = 2\n").unwrap();
        let w = Weights::load(&Othello::start(), &path).unwrap();
        assert_eq!(w.origin, path.display().to_string());
        let missing = dir.join("missing.toml");
        let e = Weights::load(&Othello::start(), &missing)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("missing.toml") && e.contains("cannot read"),
            "{e}"
        );
    }

    fn round_trip<G: Features>(start: &G) {
        let w = Weights::default_for(start);
        assert_eq!(w.origin, BUILT_IN);
        assert_eq!(w.values.len(), start.features().len());
        assert!(w.values.iter().all(|v| v.is_finite()));
        let text = w.to_toml(start, "header line\n\nsecond line");
        let back = Weights::parse(start, &text, "round-trip").unwrap();
        assert_eq!(back.values, w.values, "{text}");
        assert_eq!(back.game, start.name());
    }

    #[test]
    fn defaults_load_and_round_trip() {
        round_trip(&Othello::start());
        round_trip(&Connect4::start());
        round_trip(&Morpion::start(3, 3, 3));
        round_trip(&Morpion::start(15, 15, 5));
        round_trip(&Morpion::start(4, 4, 1));
        round_trip(&RandomTree::new(4, 5, 6));
        let odd = Weights {
            game: "othello".into(),
            values: (0..18)
                .map(|i| (i as f64 - 7.3) * 1e-7 + 987_654.321_098_765 * (i % 2) as f64)
                .collect(),
            endgame: None,
            origin: "x".into(),
        };
        let back = Weights::parse(&Othello::start(), &odd.to_toml(&Othello::start(), ""), "x");
        assert_eq!(back.unwrap().values, odd.values);
    }

    #[test]
    fn the_simplest_files_parse() {
        let discs = include_str!("../../weights/othello-discs.toml");
        let w = Weights::parse(&Othello::start(), discs, "othello-discs.toml").unwrap();
        assert_eq!(w.values[0], 1.0);
        assert_eq!(w.values.iter().filter(|&&v| v != 0.0).count(), 1);
        let centre = include_str!("../../weights/connect4-centre.toml");
        let w = Weights::parse(&Connect4::start(), centre, "connect4-centre.toml").unwrap();
        assert_eq!(w.values[0], 1.0);
        assert_eq!(w.values.iter().filter(|&&v| v != 0.0).count(), 1);
    }

    #[test]
    fn morpion_variants_match_by_canonical_name() {
        let ttt = Morpion::start(3, 3, 3);
        let text = "game = \"morpion-3x3-3\"\n[weights]\nown_windows_2 = 5\n";
        assert_eq!(Weights::parse(&ttt, text, "w").unwrap().values[2], 5.0);
        let gomoku = Morpion::start(15, 15, 5);
        let e = Weights::parse(&gomoku, text, "w").unwrap_err().to_string();
        assert!(e.contains("loaded for morpion-15x15-5"), "{e}");
        let text = "game = \"morpion-15x15-5\"\n[weights]\nown_windows_4 = 5\n";
        assert_eq!(Weights::parse(&gomoku, text, "w").unwrap().values[4], 5.0);
        let e = Weights::parse(&ttt, text, "w").unwrap_err().to_string();
        assert!(e.contains("loaded for morpion"), "{e}");
        let tree = RandomTree::new(2, 3, 4);
        assert!(Weights::parse(&tree, "game = \"random-tree\"", "w").is_ok());
        assert!(Weights::parse(&tree, "game = \"random-tree-2x3-s4\"", "w").is_ok());
        assert!(Weights::parse(&tree, "game = \"random-tree-2x3\"", "w").is_err());
    }

    #[test]
    fn positions_are_counted_in_characters() {
        assert_eq!(line_col("ab\ncdé\nf", 0), (1, 1));
        assert_eq!(line_col("ab\ncdé\nf", 3), (2, 1));
        assert_eq!(line_col("ab\ncdé\nf", 7), (2, 4));
        assert_eq!(line_col("ab\ncdé\nf", 8), (3, 1));
        assert_eq!(key_on_line("a = 1\n  b =\n", 10), "b");
        assert_eq!(key_on_line("[table\n", 3), "table");
    }
}

//! Result-only PGN: the seven-tag roster and an empty movetext with the result, which Ordo and
//! BayesElo read. joute adds `JouteGame` (the game's id) and `JoutePair` (its opening pair) so
//! that `joute rate` can cluster the two games of a pair as `joute report` does, and a
//! `Termination` tag in PGN's words.

use super::{RatedGame, Record};

/// Escapes a PGN string tag value.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// PGN's `Termination` words for joute's terminations.
fn termination(kind: &str) -> &'static str {
    match kind {
        "normal" => "normal",
        "adjudication" => "adjudication",
        "timeout" | "stall" => "time forfeit",
        _ => "rules infraction",
    }
}

/// The games as PGN, `event` in every game's `Event` tag.
pub fn write(records: &[Record], event: &str) -> String {
    let (y, m, d) = super::today();
    let date = format!("{y:04}.{m:02}.{d:02}");
    let mut out = String::new();
    for r in records {
        let round = r.round.map_or("-".to_string(), |x| (x + 1).to_string());
        let mut tags = vec![
            ("Event", event.to_string()),
            ("Site", "joute".to_string()),
            ("Date", date.clone()),
            ("Round", round),
            ("White", r.first.clone()),
            ("Black", r.second.clone()),
            ("Result", r.result().to_string()),
            ("Termination", termination(&r.termination).to_string()),
        ];
        if let Some(id) = r.id {
            tags.push(("JouteGame", id.to_string()));
        }
        if let Some(pair) = r.pair {
            tags.push(("JoutePair", pair.to_string()));
        }
        for (name, value) in tags {
            out.push_str(&format!("[{name} {}]\n", quote(&value)));
        }
        out.push('\n');
        out.push_str(r.result());
        out.push_str("\n\n");
    }
    out
}

/// One tag line `[Name "value"]`, unescaped.
fn tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.trim_end().strip_suffix(']')?;
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let rest = rest.trim();
    let body = rest.strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            value.push(chars.next()?);
        } else {
            value.push(c);
        }
    }
    Some((name.to_string(), value))
}

/// Reads the games of a PGN file: White moved first, Black second, Result from White's side.
/// A game with no White or Black tag, a malformed tag line, or a result other than `1-0`,
/// `0-1` or `1/2-1/2` (`*`: unfinished) is refused with its number.
pub fn read(text: &str) -> Result<Vec<RatedGame>, String> {
    struct Pending {
        tags: Vec<(String, String)>,
        movetext: bool,
        line: usize,
    }
    let mut games = Vec::new();
    let mut current: Option<Pending> = None;
    let finish = |p: Pending, games: &mut Vec<RatedGame>| -> Result<(), String> {
        let n = games.len() + 1;
        let get = |name: &str| {
            p.tags
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let first =
            get("White").ok_or_else(|| format!("game {n} (line {}): no White tag", p.line))?;
        let second =
            get("Black").ok_or_else(|| format!("game {n} (line {}): no Black tag", p.line))?;
        let result = get("Result").unwrap_or_default();
        let score = match result.as_str() {
            "1-0" => 1.0,
            "0-1" => 0.0,
            "1/2-1/2" => 0.5,
            other => {
                return Err(format!(
                    "game {n} (line {}): result '{other}' is not 1-0, 0-1 or 1/2-1/2; games without a result cannot be rated",
                    p.line
                ));
            }
        };
        games.push(RatedGame {
            first,
            second,
            score,
            pair: get("JoutePair"),
        });
        Ok(())
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        if line.starts_with('[') {
            let (name, value) = tag(line).ok_or_else(|| {
                format!(
                    "game {} (line {}): malformed tag line; expected [Name \"value\"]",
                    games.len() + 1,
                    i + 1
                )
            })?;
            let new_game = match &current {
                None => true,
                Some(p) => p.movetext || p.tags.iter().any(|(k, _)| *k == name),
            };
            if new_game {
                if let Some(p) = current.take() {
                    finish(p, &mut games)?;
                }
                current = Some(Pending {
                    tags: Vec::new(),
                    movetext: false,
                    line: i + 1,
                });
            }
            if let Some(p) = &mut current {
                p.tags.push((name, value));
            }
        } else {
            match &mut current {
                Some(p) => p.movetext = true,
                None => {
                    return Err(format!(
                        "line {}: movetext before any tag; a game starts with its tags",
                        i + 1
                    ));
                }
            }
        }
    }
    if let Some(p) = current {
        finish(p, &mut games)?;
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::super::tests::record;
    use super::*;

    #[test]
    fn writes_and_reads_results() {
        let mut records = vec![
            record("a", "b", 1.0, ""),
            record("b", "a", 0.5, ""),
            record("a \"q\"", "c\\d", 0.0, ""),
        ];
        records[1].id = Some(1);
        let text = write(&records, "test");
        assert!(
            text.contains("[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]"),
            "{text}"
        );
        assert!(text.contains("\n1/2-1/2\n"), "{text}");
        let games = read(&text).unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].first, "a");
        assert_eq!(games[1].score, 0.5);
        assert_eq!(games[2].first, "a \"q\"");
        assert_eq!(games[2].second, "c\\d");
        assert_eq!(games[2].score, 0.0);
        assert_eq!(games[0].pair.as_deref(), Some("0"));
    }

    #[test]
    fn reads_games_without_movetext_and_refuses_unknown_results() {
        let text = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[White \"b\"]\n[Black \"a\"]\n[Result \"*\"]\n*\n";
        let err = read(text).unwrap_err();
        assert!(err.starts_with("game 2 (line 4): result '*'"), "{err}");
        let err = read("[White \"a\"]\n[Result \"1-0\"]\n1-0\n").unwrap_err();
        assert!(
            err.contains("game 1") && err.contains("no Black tag"),
            "{err}"
        );
        let err = read("[White a]\n").unwrap_err();
        assert!(err.contains("malformed tag"), "{err}");
    }
}

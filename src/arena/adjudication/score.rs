//! Score adjudication from the engines' own evaluations, as cutechess' and fastchess' `-draw`
//! and `-resign` options: a game both players have long scored as even is drawn, a game one
//! player has long scored as lost is lost. The rules read the scores the players gave with
//! their moves ([`MoveRecord::score`], from the mover's point of view, in its own units); a
//! move without a score breaks every run of moves, so engines that report none (GTP, Gomocup,
//! `random`) are never adjudicated this way.
//!
//! The judgement depends on the game's moves and scores alone: it keeps no state between
//! moves, so it cannot drift from what the log shows.

use serde::{Deserialize, Serialize};

use crate::arena::game::MoveRecord;
use crate::games::{Outcome, Side};

/// The draw rule (`[adjudication.draw]`): from full move `move_number` on, a game whose last
/// `move_count` moves of each player (2 × `move_count` plies) all came with a score within
/// ±`score` is a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawRule {
    /// The full move (a ply of each player, counted from the game's start, the opening's
    /// plies included) before which no game is drawn.
    pub move_number: u32,
    /// Moves of each player in a row within the window.
    pub move_count: u32,
    /// The window's half-width, in the engines' units.
    pub score: i64,
}

/// The resign rule (`[adjudication.resign]`): a player whose last `move_count` moves all came
/// with a score of −`score` or less loses; with `two_sided`, only when its opponent's last
/// `move_count` moves also all came with `score` or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignRule {
    /// Moves of the losing player in a row (and of its opponent, when two-sided).
    pub move_count: u32,
    /// The threshold, in the engines' units.
    pub score: i64,
    /// Both players must agree.
    pub two_sided: bool,
}

/// The last `count` scores `side` gave, newest first, when its last `count` moves all had one.
fn last_scores<M>(
    moves: &[MoveRecord<M>],
    side: Side,
    count: u32,
) -> Option<impl Iterator<Item = i64> + '_> {
    let mine = moves.iter().rev().filter(move |m| m.side == side);
    let n = mine.clone().take(count as usize).count();
    let all_scored = mine.clone().take(count as usize).all(|m| m.score.is_some());
    (n == count as usize && all_scored).then(|| {
        mine.take(count as usize)
            .map(|m| i64::from(m.score.expect("checked")))
    })
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::First => "first",
        Side::Second => "second",
    }
}

impl ResignRule {
    /// The result when the player who moved last (or, two-sided, either player) must resign
    /// after `moves`, with the reason.
    pub fn judge<M>(&self, moves: &[MoveRecord<M>]) -> Option<(Outcome, String)> {
        let mover = moves.last()?.side;
        let (s, c) = (self.score, self.move_count);
        let lost = |side: Side| last_scores(moves, side, c).is_some_and(|mut x| x.all(|v| v <= -s));
        let won = |side: Side| last_scores(moves, side, c).is_some_and(|mut x| x.all(|v| v >= s));
        // One-sided, only the mover's scores changed; two-sided, the mover's score may have
        // completed its opponent's resignation too.
        let loser = if self.two_sided {
            [mover, mover.opponent()]
                .into_iter()
                .find(|&side| lost(side) && won(side.opponent()))?
        } else {
            Some(mover).filter(|&side| lost(side))?
        };
        let agreed = if self.two_sided {
            format!(
                ", and the {} player {s} or more on each of its own",
                side_name(loser.opponent())
            )
        } else {
            String::new()
        };
        Some((
            Outcome::win(loser.opponent()),
            format!(
                "resign: the {} player scored -{s} or less on each of its last {c} moves{agreed}",
                side_name(loser)
            ),
        ))
    }
}

impl DrawRule {
    /// The draw, with the reason, when the rule holds after `moves` (the engines' moves,
    /// played after `opening_plies` plies of the opening).
    pub fn judge<M>(
        &self,
        opening_plies: usize,
        moves: &[MoveRecord<M>],
    ) -> Option<(Outcome, String)> {
        let plies = opening_plies + moves.len();
        if plies < 2 * self.move_number as usize {
            return None;
        }
        let (s, c) = (self.score, self.move_count);
        let within =
            |side: Side| last_scores(moves, side, c).is_some_and(|mut x| x.all(|v| v.abs() <= s));
        (within(Side::First) && within(Side::Second)).then(|| {
            (
                Outcome::DRAW,
                format!(
                    "draw: both players scored within +/-{s} on each of their last {c} moves (full move {} or later)",
                    plies / 2
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Moves alternating from the first player, with these scores.
    fn moves(scores: &[Option<i32>]) -> Vec<MoveRecord<u8>> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &score)| MoveRecord {
                mv: 0,
                side: if i % 2 == 0 {
                    Side::First
                } else {
                    Side::Second
                },
                score,
                depth: 0,
                seldepth: 0,
                nodes: None,
                seconds: 0.0,
                cpu: None,
                timed_out: false,
                clock_left: None,
            })
            .collect()
    }

    /// The plies after which a rule first fires, judged move by move as the referee does.
    fn first_firing(
        scores: &[Option<i32>],
        judge: impl Fn(&[MoveRecord<u8>]) -> bool,
    ) -> Option<usize> {
        let all = moves(scores);
        (1..=all.len()).find(|&n| judge(&all[..n]))
    }

    #[test]
    fn one_sided_resign_needs_the_losers_last_moves_all_at_or_below_the_threshold() {
        let rule = ResignRule {
            move_count: 3,
            score: 500,
            two_sided: false,
        };
        // The second player's scores: -600, -500, -700 on plies 2, 4, 6: it resigns at ply 6.
        // The first player's own +800s do not matter one-sided.
        let s = [
            Some(800),
            Some(-600),
            Some(800),
            Some(-500),
            Some(800),
            Some(-700),
        ];
        assert_eq!(first_firing(&s, |m| rule.judge(m).is_some()), Some(6));
        let (outcome, reason) = rule.judge(&moves(&s)).unwrap();
        assert_eq!(outcome, Outcome::win(Side::First));
        assert!(reason.contains("second player"), "{reason}");
        // -499 breaks the run; a move without a score breaks it too.
        for broken in [Some(-499), None] {
            let s = [
                Some(0),
                Some(-600),
                Some(0),
                broken,
                Some(0),
                Some(-700),
                Some(0),
                Some(-900),
            ];
            assert_eq!(
                first_firing(&s, |m| rule.judge(m).is_some()),
                None,
                "{broken:?}"
            );
        }
        // ... until three more in a row.
        let s = [
            Some(0),
            Some(-600),
            Some(0),
            None,
            Some(0),
            Some(-700),
            Some(0),
            Some(-900),
            Some(0),
            Some(-501),
        ];
        assert_eq!(first_firing(&s, |m| rule.judge(m).is_some()), Some(10));
    }

    #[test]
    fn two_sided_resign_needs_the_winner_to_agree() {
        let rule = ResignRule {
            move_count: 2,
            score: 300,
            two_sided: true,
        };
        // The second player gives up from ply 4 on, but the first player thought only +200 at
        // ply 3: its +350 and +320 at plies 5 and 7 complete it, and the second player loses.
        let s = [
            Some(300),
            Some(-400),
            Some(200),
            Some(-400),
            Some(350),
            Some(-400),
            Some(320),
        ];
        assert_eq!(first_firing(&s, |m| rule.judge(m).is_some()), Some(7));
        let (outcome, _) = rule.judge(&moves(&s)).unwrap();
        assert_eq!(outcome, Outcome::win(Side::First));
        // The first player losing, agreed on by both: the second player wins.
        let s = [Some(-300), Some(300), Some(-310), Some(320)];
        let (outcome, reason) = rule.judge(&moves(&s)).unwrap();
        assert_eq!(outcome, Outcome::win(Side::Second));
        assert!(reason.contains("the first player scored -300"), "{reason}");
        // One-sided, the same scores end the game as soon as the loser's own count is reached.
        let one = ResignRule {
            two_sided: false,
            ..rule
        };
        let s = [Some(300), Some(-400), Some(200), Some(-400)];
        assert_eq!(first_firing(&s, |m| one.judge(m).is_some()), Some(4));
    }

    #[test]
    fn the_draw_rule_waits_for_the_move_number_and_both_players() {
        let rule = DrawRule {
            move_number: 4,
            move_count: 2,
            score: 10,
        };
        // Every score is within the window from the start: the first chance is full move 4,
        // ply 8, counting the opening's 2 plies: the engines' 6th move.
        let s = [Some(0); 12];
        assert_eq!(first_firing(&s, |m| rule.judge(2, m).is_some()), Some(6));
        // Without an opening, ply 8.
        assert_eq!(first_firing(&s, |m| rule.judge(0, m).is_some()), Some(8));
        // Each player's last 2 moves within ±10 (10 included, 11 not): the second player's 11
        // at ply 2 is last in the window at ply 5.
        let s = [
            Some(0),
            Some(11),
            Some(10),
            Some(-10),
            Some(-10),
            Some(10),
            Some(5),
        ];
        assert_eq!(first_firing(&s, |m| rule.judge(8, m).is_some()), Some(6));
        let (outcome, reason) = rule.judge(8, &moves(&s[..6])).unwrap();
        assert_eq!(outcome, Outcome::DRAW);
        assert!(reason.starts_with("draw:"), "{reason}");
        // A missing score, or a score outside, restarts the count.
        let s = [
            Some(0),
            Some(0),
            None,
            Some(0),
            Some(0),
            Some(20),
            Some(0),
            Some(0),
            Some(0),
            Some(0),
        ];
        assert_eq!(first_firing(&s, |m| rule.judge(8, m).is_some()), Some(10));
    }
}

//! What the fit reads: the games between engines as sums per ordered pair of engines, stored
//! sparsely (only the pairs that met), so that memory grows with the games and the players, not
//! with the square of the players (`joute rate` reads record files of 100,000 players).

use std::collections::BTreeMap;

/// Sums over the games in which one engine (the first of the key) moved first against another
/// (the second): what the fit, its error bars and the tables need, in any order of arrival.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Meeting {
    /// Games recorded alone ([`Results::add_game`]).
    pub lone: f64,
    /// The first mover's points in them.
    pub lone_points: f64,
    /// The sum of the squares of those scores (a draw ¼).
    pub lone_squares: f64,
    /// Opening pairs ([`Results::add_pair`]) whose first game the row engine started; in the
    /// second the column engine moves first.
    pub pairs: f64,
    /// Σx: the row engine's points in the first games of those pairs.
    pub x: f64,
    /// Σy: its points in the second games.
    pub y: f64,
    /// Σx².
    pub xx: f64,
    /// Σy².
    pub yy: f64,
    /// Σxy.
    pub xy: f64,
}

impl Meeting {
    fn merge(&mut self, other: &Meeting) {
        self.lone += other.lone;
        self.lone_points += other.lone_points;
        self.lone_squares += other.lone_squares;
        self.pairs += other.pairs;
        self.x += other.x;
        self.y += other.y;
        self.xx += other.xx;
        self.yy += other.yy;
        self.xy += other.xy;
    }

    /// Clusters (opening pairs and lone games) in these sums.
    pub fn clusters(&self) -> f64 {
        self.lone + self.pairs
    }
}

/// The games of one engine moving first against another, either as a lone game or in a pair:
/// what the likelihood needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstMoveCell {
    /// The engine that moved first.
    pub first: usize,
    /// The other.
    pub second: usize,
    /// Games.
    pub games: f64,
    /// The first mover's points in them.
    pub points: f64,
}

impl FirstMoveCell {
    /// The first mover won every game.
    pub fn all_won(&self) -> bool {
        self.points >= self.games
    }

    /// The first mover lost every game.
    pub fn all_lost(&self) -> bool {
        self.points <= 0.0
    }
}

/// What the fit needs: for every ordered pair of engines that met, the games the first moved
/// first in, as sums ([`Meeting`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    /// Engine names, in index order.
    pub names: Vec<String>,
    /// `(i, j)`: the games in which i moved first against j (lone games, and pairs whose
    /// first game i started). Ordered, so that sums run in the same order on every machine.
    meetings: BTreeMap<(usize, usize), Meeting>,
}

impl Results {
    /// Empty results for these engines.
    pub fn new(names: Vec<String>) -> Results {
        Results {
            names,
            meetings: BTreeMap::new(),
        }
    }

    /// Records one game in which `first` moved first against `second` and scored
    /// `score_first` (1, ½ or 0), as its own cluster (use [`Results::add_pair`] for the two games
    /// of an opening pair).
    pub fn add_game(&mut self, first: usize, second: usize, score_first: f64) {
        let m = self.meetings.entry((first, second)).or_default();
        m.lone += 1.0;
        m.lone_points += score_first;
        m.lone_squares += score_first * score_first;
    }

    /// Records the two games of an opening pair between `a` and `b` (the same opening, colours
    /// swapped): `a` moved first in the game it scored `first` in, `b` in the game `a` scored
    /// `second` in. One cluster for the error bars.
    pub fn add_pair(&mut self, a: usize, b: usize, first: f64, second: f64) {
        let m = self.meetings.entry((a, b)).or_default();
        m.pairs += 1.0;
        m.x += first;
        m.y += second;
        m.xx += first * first;
        m.yy += second * second;
        m.xy += first * second;
    }

    /// Adds the sums `m` to the games of `i` moving first against `j` (a summary built
    /// elsewhere, such as the same games with every game its own cluster).
    pub fn add_meeting(&mut self, i: usize, j: usize, m: Meeting) {
        self.meetings.entry((i, j)).or_default().merge(&m);
    }

    /// Adds every count of `other` to these (results of the same engines logged in shards).
    ///
    /// # Panics
    ///
    /// If the two do not have the same engine names in the same order.
    pub fn merge(&mut self, other: &Results) {
        assert_eq!(
            self.names, other.names,
            "merging results of different engines"
        );
        for (key, m) in &other.meetings {
            self.meetings.entry(*key).or_default().merge(m);
        }
    }

    /// The sums of the games in which `i` moved first against `j` (zeros when none).
    pub fn meeting(&self, i: usize, j: usize) -> Meeting {
        self.meetings.get(&(i, j)).copied().unwrap_or_default()
    }

    /// Every ordered pair that met, with its sums, in index order.
    pub fn meetings(&self) -> impl Iterator<Item = ((usize, usize), &Meeting)> {
        self.meetings.iter().map(|(k, m)| (*k, m))
    }

    /// Games in which `i` moved first against `j`.
    pub fn first_games(&self, i: usize, j: usize) -> f64 {
        let (m, back) = (self.meeting(i, j), self.meeting(j, i));
        m.lone + m.pairs + back.pairs
    }

    /// `i`'s points in the games it moved first in against `j`.
    pub fn first_points(&self, i: usize, j: usize) -> f64 {
        let (m, back) = (self.meeting(i, j), self.meeting(j, i));
        m.lone_points + m.x + (back.pairs - back.y)
    }

    /// Games between `i` and `j`, either colour.
    pub fn games(&self, i: usize, j: usize) -> f64 {
        self.first_games(i, j) + self.first_games(j, i)
    }

    /// `i`'s points against `j`, either colour.
    pub fn points(&self, i: usize, j: usize) -> f64 {
        self.first_points(i, j) + self.first_games(j, i) - self.first_points(j, i)
    }

    /// The games per (first mover, second), in index order: a pair's first game counts for
    /// the engine that started it, its second for the other.
    pub fn cells(&self) -> Vec<FirstMoveCell> {
        let mut sums: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
        for (&(a, b), m) in &self.meetings {
            let forward = sums.entry((a, b)).or_default();
            forward.0 += m.lone + m.pairs;
            forward.1 += m.lone_points + m.x;
            if m.pairs > 0.0 {
                let back = sums.entry((b, a)).or_default();
                back.0 += m.pairs;
                back.1 += m.pairs - m.y;
            }
        }
        sums.into_iter()
            .filter(|(_, (games, _))| *games > 0.0)
            .map(|((first, second), (games, points))| FirstMoveCell {
                first,
                second,
                games,
                points,
            })
            .collect()
    }

    /// Each engine's games and points, in index order.
    pub fn totals(&self) -> (Vec<f64>, Vec<f64>) {
        let n = self.names.len();
        let (mut games, mut points) = (vec![0.0; n], vec![0.0; n]);
        for c in self.cells() {
            games[c.first] += c.games;
            games[c.second] += c.games;
            points[c.first] += c.points;
            points[c.second] += c.games - c.points;
        }
        (games, points)
    }
}

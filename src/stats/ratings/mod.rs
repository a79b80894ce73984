//! Ratings of many engines jointly: the Bradley–Terry model on the logistic Elo scale with a
//! first-move advantage, fitted by maximum likelihood over all games at once, a draw counting as
//! half a win and half a loss — after deciding which quantities the games can identify.
//!
//! **Model.** Engine `i` has a rating `r_i`; the side that moves first gets `w` more: when `f`
//! moves first against `s`, it scores `L(r_f + w - r_s)` on average, `L(e) = 1/(1 + 10^(-e/400))`.
//! This is the model of Ordo's `-W` and BayesElo's `advantage`. With [`FirstMove::Ignore`] `w`
//! is 0: the classic fit, for comparison with tools that have none.
//!
//! **Existence first** ([`existence`]). Before fitting, the games are split into *components*:
//! groups of engines with both points and losses among themselves (directly or around a cycle),
//! every game between two components being a perfect record (Ford's condition). Only the
//! differences within a component are finite; the largest component (or the anchor's) is *the
//! joint fit*, whose engines get estimates with intervals. The others get bounds: an engine
//! (or a whole component) above the joint fit by perfect records only gets `>` and the rating
//! at which its perfect record against the engines rated before it is as likely as not (for a
//! winner the `x` with `Π L(x ± w - r_opp) = ½` over its games, the sign by colour; for a loser
//! the same with `1 - L`: Ordo's value for its `>`/`<` players under this model); one below gets
//! `<`; one neither above nor below (or never connected to it) gets no estimate, with the
//! reason. The advantage is fitted only when it is identified: no direction of the ratings and
//! the advantage together is separated (the first mover won every game it started against
//! someone while the other colour's games split, the first mover lost every game, …), and some
//! engine played both colours against an opponent, directly or around a cycle. Otherwise, or
//! when its 95% interval is wider than ±[`MAX_FIRST_MOVE_ERROR`] Elo (too few games to say
//! anything), it is not estimated, the reason is given, and the ratings are fitted without it.
//!
//! **Error bars** ([`Intervals`]): the cluster-robust sandwich `I⁻¹ K I⁻¹` (`I` the
//! information, `K` the sum over clusters — opening pairs, lone games — of the outer product of
//! each cluster's score vector) pooled with the model's `I⁻¹` as if it were
//! [`PRIOR_CLUSTERS`] more clusters, and Student's t quantile on `d₀ + G - 1` degrees of freedom
//! (`G` clusters). With hundreds of clusters this is the sandwich (within 1%); with a handful the
//! sandwich alone is noise (one pair, or four pairs all won once and lost once, read 0) and the
//! model's curvature keeps the interval honest. `docs/statistics.md` compares it with the plain
//! sandwich, the sandwich with t quantiles, profile likelihood and BayesElo's prior on simulated
//! matches.

mod existence;
mod likelihood;
mod results;

pub use results::{FirstMoveCell, Meeting, Results};

use super::{student_t_cdf, student_t_quantile};
use likelihood::{Layout, expected, ln_expected};

/// The half-width (Elo) beyond which the first-move advantage's 95% interval says nothing: it
/// then spans more than a first mover scoring 9% to one scoring 91%. The advantage is then not
/// estimated and the ratings are fitted without it.
pub const MAX_FIRST_MOVE_ERROR: f64 = 400.0;

/// The model's curvature counts as this many clusters in the covariance (see [`Intervals`]).
pub const PRIOR_CLUSTERS: f64 = 4.0;

/// The most engines in the joint fit for which the covariance (the intervals and the LOS) is
/// computed: it is a dense matrix, memory in the square and time in the cube of the engines.
/// Above, the ratings are estimated without intervals, and the reason says so.
pub const MAX_COVARIANCE_ENGINES: usize = 1_000;

/// The reason the anchor has no interval.
pub const ANCHOR_REASON: &str = "the anchor: fixed by definition";

/// Whether the model has a first-move advantage (spec `[ratings] first_move`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FirstMove {
    /// Fit it jointly with the ratings (Ordo `-W`, BayesElo's `advantage`).
    #[default]
    Fit,
    /// Leave it out: the ratings of the colour-averaged performance.
    Ignore,
}

impl FirstMove {
    /// The spelling of specs and outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            FirstMove::Fit => "fit",
            FirstMove::Ignore => "ignore",
        }
    }
}

/// How the 95% intervals are computed (the default is joute's; the others are there to be
/// compared with it, in the tests and `docs/statistics.md`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Intervals {
    /// The sandwich with the normal quantile (joute before 0.2): consistent, but noise with few
    /// clusters.
    Sandwich,
    /// The sandwich scaled by `G / (G - 1)` with Student's t on `G - 1` degrees of freedom
    /// (the usual small-cluster correction); none with one cluster.
    ClusteredT,
    /// `(d₀ I⁻¹ + G · I⁻¹ K I⁻¹) / (d₀ + G - 1)` with Student's t on `d₀ + G - 1` degrees of
    /// freedom: the sandwich's spread pooled with the model's as `d₀` prior clusters.
    Pooled {
        /// `d₀`.
        prior_clusters: f64,
    },
}

impl Default for Intervals {
    fn default() -> Intervals {
        Intervals::Pooled {
            prior_clusters: PRIOR_CLUSTERS,
        }
    }
}

/// How to fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// With or without a first-move advantage.
    pub first_move: FirstMove,
    /// `Some((i, elo))`: engine i is fixed at `elo`; otherwise the engines of the joint fit
    /// have mean 0.
    pub anchor: Option<(usize, f64)>,
    /// The most Newton steps (the fit stops before, on its tolerance; 100 is ample: a concave
    /// likelihood converges in a handful).
    pub max_iterations: usize,
    /// The intervals' method.
    pub intervals: Intervals,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions {
            first_move: FirstMove::Fit,
            anchor: None,
            max_iterations: 100,
            intervals: Intervals::default(),
        }
    }
}

/// Which side of the joint fit a rating that is a bound lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// Above it by perfect records only: the rating is at least this (`>`).
    Lower,
    /// Below it: at most this (`<`).
    Upper,
}

impl Bound {
    /// `>` or `<`.
    pub fn mark(self) -> &'static str {
        match self {
            Bound::Lower => ">",
            Bound::Upper => "<",
        }
    }
}

/// One engine's rating.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Rating {
    /// The engine.
    pub name: String,
    /// Elo, shifted so the engines of the joint fit have mean 0 (or the anchor its value);
    /// `None`: no estimate ([`Rating::reason`] says why).
    pub elo: Option<f64>,
    /// Half-width of the 95% interval; `None` for a bound, no estimate, the anchor, or a fit
    /// too large for its covariance.
    pub error: Option<f64>,
    /// `Some` when `elo` is a bound, not an estimate.
    pub bound: Option<Bound>,
    /// Why there is no estimate, no interval, or only a bound.
    pub reason: Option<String>,
    /// Games played.
    pub games: f64,
    /// Points scored.
    pub points: f64,
}

/// The first mover's advantage, as fitted.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Advantage {
    /// Elo.
    pub elo: f64,
    /// Half-width of its 95% interval (`None`: a fit too large for its covariance).
    pub error: Option<f64>,
}

/// The fit of all engines.
#[derive(Clone, Debug, PartialEq)]
pub struct Ratings {
    /// One rating per engine, in index order.
    pub ratings: Vec<Rating>,
    /// The first mover's advantage, when the model has it and the games identify it.
    pub first_move: Option<Advantage>,
    /// Why the model's advantage is not estimated (`None` when it is, or when the model has
    /// none).
    pub first_move_reason: Option<String>,
    /// The engines of the joint fit, and the covariance of their Elo (the origin's constraint
    /// applied), when computed.
    joint: Vec<usize>,
    covariance: Option<Vec<Vec<f64>>>,
    /// Degrees of freedom of the intervals' t quantile.
    pub degrees_of_freedom: f64,
    /// Newton steps taken.
    pub iterations: usize,
    /// The steps reached the tolerance (always, unless the budget was cut very short).
    pub converged: bool,
}

impl Ratings {
    /// The engines of the joint fit (with estimates), in index order.
    pub fn joint(&self) -> &[usize] {
        &self.joint
    }

    /// The covariance of the Elo estimates of engines `i` and `j` (Elo²), when both are in the
    /// joint fit and it was computed.
    pub fn covariance(&self, i: usize, j: usize) -> Option<f64> {
        let cov = self.covariance.as_ref()?;
        let a = self.joint.binary_search(&i).ok()?;
        let b = self.joint.binary_search(&j).ok()?;
        Some(cov[a][b])
    }

    /// The likelihood of superiority of engine `i` over engine `j` (Student's t with the
    /// intervals' degrees of freedom), when both have estimates with a covariance.
    pub fn los(&self, i: usize, j: usize) -> Option<f64> {
        if i == j {
            return Some(0.5);
        }
        let var = self.covariance(i, i)? + self.covariance(j, j)? - 2.0 * self.covariance(i, j)?;
        let diff = self.ratings[i].elo? - self.ratings[j].elo?;
        if var <= 0.0 {
            return None;
        }
        Some(student_t_cdf(diff / var.sqrt(), self.degrees_of_freedom))
    }

    /// The standard error of `r_i - r_j` (Elo), when both are in the joint fit.
    pub fn difference_error(&self, i: usize, j: usize) -> Option<f64> {
        let var = self.covariance(i, i)? + self.covariance(j, j)? - 2.0 * self.covariance(i, j)?;
        (var >= 0.0).then(|| var.sqrt())
    }

    /// The 95% quantile the intervals are built with.
    pub fn quantile(&self) -> f64 {
        student_t_quantile(0.975, self.degrees_of_freedom)
    }
}

/// Fits the ratings of `results` (see the module's documentation for the model and the rules).
pub fn fit(results: &Results, options: &FitOptions) -> Ratings {
    let n = results.names.len();
    let cells = results.cells();
    let (games, points) = results.totals();
    let components = existence::rating_components(n, &cells);
    let inside: Vec<FirstMoveCell> = cells
        .iter()
        .copied()
        .filter(|c| components.of[c.first] == components.of[c.second])
        .collect();
    let joint_component = joint_component(&components, &inside, &games, options.anchor);
    let (solved, fit_w, reason) = solve_with_or_without_first_move(
        results,
        &cells,
        &inside,
        &components,
        joint_component,
        options,
    );
    let w = solved.w;
    let mut r = solved.r;

    // The other components, pass after pass from the engines rated before (so that the order
    // of the engines does not matter).
    let in_joint = |i: usize| joint_component == Some(components.of[i]) && games[i] > 0.0;
    let mut rated: Vec<bool> = (0..n).map(in_joint).collect();
    let reference = reference_engine(&mut rated, &games);
    place_components(&cells, &components, &mut r, w, &mut rated);

    // Above, below, or beside the joint fit.
    let base = joint_component.or(reference.map(|i| components.of[i]));
    let (above, below) = match base {
        Some(b) => reach(&components, b),
        None => (vec![false; components.count], vec![false; components.count]),
    };
    let joint: Vec<usize> = (0..n).filter(|&i| in_joint(i)).collect();
    let shift = shift_to_origin(&r, options.anchor, &joint, &rated, &games);

    let place = Placement {
        components: &components,
        games: &games,
        points: &points,
        joint_estimates: joint.len() >= 2,
        above: &above,
        below: &below,
        base,
        rated: &rated,
    };
    let mut ratings = place.ratings(&results.names, &r, shift, in_joint);

    let covariance = add_intervals(
        &mut ratings,
        solved.covariance.as_deref(),
        &solved.layout,
        solved.df,
        &joint,
        options.anchor,
    );
    let first_move = (fit_w && reason.is_none()).then_some(Advantage {
        elo: w,
        error: solved.w_error,
    });
    Ratings {
        ratings,
        first_move,
        first_move_reason: reason,
        joint,
        covariance,
        degrees_of_freedom: solved.df,
        iterations: solved.iterations,
        converged: solved.converged,
    }
}

/// The reference engine when no engine is in the joint fit (no component has games inside
/// it): the first engine with `games`, marked `rated` (at 0); `None` when some engine is rated
/// already or none has games.
fn reference_engine(rated: &mut [bool], games: &[f64]) -> Option<usize> {
    if rated.iter().any(|&x| x) {
        None
    } else {
        // No component has games inside it: the first engine with games is the reference, at 0.
        let first = (0..rated.len()).find(|&i| games[i] > 0.0);
        if let Some(first) = first {
            rated[first] = true;
        }
        first
    }
}

/// What is added to every rating of `r` so that the `anchor` has its value, or else the
/// origin's mean is 0: the origin is the `joint` fit's engines when it has two or more, else
/// every `rated` engine with `games`.
fn shift_to_origin(
    r: &[f64],
    anchor: Option<(usize, f64)>,
    joint: &[usize],
    rated: &[bool],
    games: &[f64],
) -> f64 {
    let origin: Vec<usize> = if joint.len() >= 2 {
        joint.to_vec()
    } else {
        (0..rated.len())
            .filter(|&i| rated[i] && games[i] > 0.0)
            .collect()
    };
    match anchor {
        Some((i, value)) => value - r[i],
        None => -origin.iter().map(|&i| r[i]).sum::<f64>() / origin.len().max(1) as f64,
    }
}

/// Gives the `joint` fit's `ratings` their intervals (the `anchor`, when in it, its reason)
/// from the solved fit's covariance `v` (parameters laid out by `layout`, `df` degrees of
/// freedom) or, when the fit has none, the reason why not; the joint fit's covariance in the
/// origin's terms.
fn add_intervals(
    ratings: &mut [Rating],
    v: Option<&[Vec<f64>]>,
    layout: &Layout,
    df: f64,
    joint: &[usize],
    anchor: Option<(usize, f64)>,
) -> Option<Vec<Vec<f64>>> {
    let mut covariance = None;
    let quantile = student_t_quantile(0.975, df);
    if let Some(v) = v {
        let anchored = anchor.map(|(a, _)| a).filter(|a| joint.contains(a));
        let cov = joint_covariance(v, layout, joint, anchored);
        for (a, &i) in joint.iter().enumerate() {
            if Some(i) == anchored {
                ratings[i].reason = Some(ANCHOR_REASON.into());
            } else {
                ratings[i].error = Some(quantile * cov[a][a].max(0.0).sqrt());
            }
        }
        covariance = Some(cov);
    } else if joint.len() >= 2 {
        for &i in joint {
            ratings[i].reason = Some(format!(
                "no interval: the joint fit has {} engines, over the {MAX_COVARIANCE_ENGINES} whose covariance joute computes",
                joint.len()
            ));
        }
    }
    covariance
}

/// Solves the fit with the first-move advantage when the options ask for it and it is
/// identified and informative, else without it: the solved fit, whether it fitted the
/// advantage, and why not (`None` when it did or was not asked to).
fn solve_with_or_without_first_move(
    results: &Results,
    cells: &[FirstMoveCell],
    inside: &[FirstMoveCell],
    components: &existence::Components,
    joint_component: Option<usize>,
    options: &FitOptions,
) -> (Solved, bool, Option<String>) {
    // The first move: identified, then informative?
    let mut reason = None;
    let mut fit_w = options.first_move == FirstMove::Fit;
    if fit_w {
        reason = advantage_not_identified(results, cells, inside, components);
        fit_w = reason.is_none();
    }
    let mut solved = solve(results, inside, components, joint_component, fit_w, options);
    if fit_w
        && let Some(error) = solved.w_error
        && error > MAX_FIRST_MOVE_ERROR
    {
        reason = Some(format!(
            "too few games: its 95% interval would be ±{} Elo (over ±{MAX_FIRST_MOVE_ERROR:.0})",
            round1(error)
        ));
        solved = solve(results, inside, components, joint_component, false, options);
    }
    (solved, fit_w, reason)
}

/// What [`Placement::say_where`] needs to say where an engine stands against the joint fit.
struct Placement<'a> {
    components: &'a existence::Components,
    games: &'a [f64],
    points: &'a [f64],
    /// The joint fit has two engines or more: its engines have estimates.
    joint_estimates: bool,
    /// The components above and below the base (the joint fit's, or the reference's).
    above: &'a [bool],
    below: &'a [bool],
    base: Option<usize>,
    /// The engines placed by the joint fit or by the passes from it.
    rated: &'a [bool],
}

impl Placement<'_> {
    /// Every engine's rating (of `names`): its estimate in `r` moved by `shift`, kept, made a
    /// bound or dropped by [`Placement::say_where`].
    fn ratings(
        &self,
        names: &[String],
        r: &[f64],
        shift: f64,
        in_joint: impl Fn(usize) -> bool,
    ) -> Vec<Rating> {
        (0..names.len())
            .map(|i| {
                let rating = Rating {
                    name: names[i].clone(),
                    elo: Some(r[i] + shift),
                    error: None,
                    bound: None,
                    reason: None,
                    games: self.games[i],
                    points: self.points[i],
                };
                self.say_where(rating, i, in_joint(i))
            })
            .collect()
    }

    /// Engine `i`'s rating with its estimate kept, made a bound or dropped, and the reason:
    /// an estimate in the joint fit, a bound above or below it, the reference of the bounds,
    /// or no rating.
    fn say_where(&self, mut rating: Rating, i: usize, in_joint: bool) -> Rating {
        let (games, points, base) = (self.games, self.points, self.base);
        let (above, below, rated) = (self.above, self.below, self.rated);
        let c = self.components.of[i];
        if games[i] == 0.0 {
            rating.elo = None;
            rating.reason = Some("no games".into());
        } else if self.joint_estimates && in_joint {
            // An estimate; its interval below.
        } else if above[c] || (Some(c) == base && points[i] >= games[i]) {
            rating.bound = Some(Bound::Lower);
            rating.reason = Some(if points[i] >= games[i] {
                "won every game".into()
            } else {
                "above the engines of the joint fit by perfect records only".into()
            });
        } else if below[c] || (Some(c) == base && points[i] <= 0.0) {
            rating.bound = Some(Bound::Upper);
            rating.reason = Some(if points[i] <= 0.0 {
                "lost every game".into()
            } else {
                "below the engines of the joint fit by perfect records only".into()
            });
        } else if Some(c) == base {
            rating.reason = Some(
                "the reference of the bounds: no other engine has results both ways against it"
                    .into(),
            );
        } else {
            rating.elo = None;
            rating.reason = Some(if rated[i] {
                "perfect records set it apart from the joint fit, neither above nor below it".into()
            } else {
                "no games connect it to the engines of the joint fit".into()
            });
        }
        rating
    }
}

/// The covariance of the joint engines' Elo, in `joint`'s order, from the covariance `v` of the
/// parameters: each joint engine's Elo is its parameter minus the anchor's (held at 0) or minus
/// the mean of the joint engines' parameters, u·θ: Cov(a, b) = V_ab - (Vu)_a - (Vu)_b + uᵀVu, a
/// held engine's terms 0.
fn joint_covariance(
    v: &[Vec<f64>],
    layout: &Layout,
    joint: &[usize],
    anchored: Option<usize>,
) -> Vec<Vec<f64>> {
    let k = v.len();
    let mut u = vec![0.0; k];
    if anchored.is_none() {
        for &j in joint {
            if let Some(p) = layout.param[j] {
                u[p] += 1.0 / joint.len() as f64;
            }
        }
    }
    let vu: Vec<f64> = v
        .iter()
        .map(|row| row.iter().zip(&u).map(|(a, b)| a * b).sum())
        .collect();
    let uvu: f64 = u.iter().zip(&vu).map(|(a, b)| a * b).sum();
    let params: Vec<Option<usize>> = joint.iter().map(|&i| layout.param[i]).collect();
    params
        .iter()
        .map(|&pa| {
            params
                .iter()
                .map(|&pb| {
                    let at = |p: Option<usize>, q: Option<usize>| match (p, q) {
                        (Some(p), Some(q)) => v[p][q],
                        _ => 0.0,
                    };
                    at(pa, pb) - pa.map_or(0.0, |p| vu[p]) - pb.map_or(0.0, |p| vu[p]) + uvu
                })
                .collect()
        })
        .collect()
}

/// `x` rounded to one decimal, never `-0.0`.
fn round1(x: f64) -> String {
    let text = format!("{x:.1}");
    if text == "-0.0" { "0.0".into() } else { text }
}

/// The component whose engines get estimates: the anchor's when it has games inside it,
/// otherwise the one with the most engines with games inside it (then the most games, then the
/// lowest engine); `None` when no component has games inside it.
fn joint_component(
    components: &existence::Components,
    inside: &[FirstMoveCell],
    games: &[f64],
    anchor: Option<(usize, f64)>,
) -> Option<usize> {
    let mut engines = vec![0usize; components.count];
    let mut played = vec![0.0; components.count];
    let mut lowest = vec![usize::MAX; components.count];
    let mut member = vec![false; games.len()];
    for c in inside {
        member[c.first] = true;
        member[c.second] = true;
        played[components.of[c.first]] += c.games;
    }
    for (i, &m) in member.iter().enumerate() {
        if m {
            let c = components.of[i];
            engines[c] += 1;
            lowest[c] = lowest[c].min(i);
        }
    }
    if let Some((a, _)) = anchor
        && member.get(a).copied().unwrap_or(false)
    {
        return Some(components.of[a]);
    }
    (0..components.count)
        .filter(|&c| engines[c] >= 2)
        .max_by(|&a, &b| {
            engines[a]
                .cmp(&engines[b])
                .then(played[a].total_cmp(&played[b]))
                .then(lowest[b].cmp(&lowest[a]))
        })
}

/// Why the games do not identify the first-move advantage, or `None` when they do.
fn advantage_not_identified(
    results: &Results,
    cells: &[FirstMoveCell],
    inside: &[FirstMoveCell],
    components: &existence::Components,
) -> Option<String> {
    let n = results.names.len();
    let name = |i: usize| results.names[i].as_str();
    let plural = |g: f64| if g == 1.0 { "game" } else { "games" };
    let total: f64 = cells.iter().map(|c| c.games).sum();
    if cells.iter().all(FirstMoveCell::all_won) {
        return Some(format!(
            "the first mover won every game ({total} {})",
            plural(total)
        ));
    }
    if cells.iter().all(FirstMoveCell::all_lost) {
        return Some(format!(
            "the first mover lost every game ({total} {})",
            plural(total)
        ));
    }
    let up = existence::separated_cells(n, cells, 1);
    let down = existence::separated_cells(n, cells, -1);
    if up.is_none() && down.is_none() && existence::advantage_identified(n, inside, |_| true) {
        return None;
    }
    // A witness of the separation along the advantage: a cell the ratings alone do not
    // separate.
    let witness = [up, down]
        .into_iter()
        .flatten()
        .flat_map(|s| {
            s.into_iter()
                .enumerate()
                .filter(|&(_, x)| x)
                .map(|(k, _)| k)
                .collect::<Vec<_>>()
        })
        .filter(|&k| components.of[cells[k].first] == components.of[cells[k].second])
        .max_by(|&a, &b| cells[a].games.total_cmp(&cells[b].games).then(b.cmp(&a)));
    Some(match witness {
        Some(k) => {
            let c = &cells[k];
            format!(
                "{} {} every game it moved first against {} ({} {}), which no finite advantage explains",
                name(c.first),
                if c.all_won() { "won" } else { "lost" },
                name(c.second),
                c.games,
                plural(c.games)
            )
        }
        None if inside.is_empty() => {
            let players: Vec<usize> = (0..n)
                .filter(|&i| cells.iter().any(|c| c.first == i || c.second == i))
                .collect();
            match players[..] {
                // Two engines: say who.
                [a, b] => {
                    let a_won = cells.iter().all(|c| {
                        (c.first == a && c.all_won()) || (c.second == a && c.all_lost())
                    });
                    format!(
                        "{} won every game, so the ratings are bounds",
                        name(if a_won { a } else { b })
                    )
                }
                _ => "no two engines have results both ways (every meeting is a perfect record)"
                    .into(),
            }
        }
        None => "the colours cannot be told from the ratings: no engine played both colours against an opponent, directly or around a cycle of opponents".into(),
    })
}

/// A solved fit: the ratings per engine (0 outside the fit), the advantage, the covariance of
/// the parameters and its degrees of freedom.
struct Solved {
    layout: Layout,
    r: Vec<f64>,
    w: f64,
    w_error: Option<f64>,
    covariance: Option<Vec<Vec<f64>>>,
    df: f64,
    iterations: usize,
    converged: bool,
}

/// Fits the games inside the components, one engine of each held at 0 (the anchor for its
/// component), with or without the advantage.
fn solve(
    results: &Results,
    inside: &[FirstMoveCell],
    components: &existence::Components,
    joint_component: Option<usize>,
    fit_w: bool,
    options: &FitOptions,
) -> Solved {
    let n = results.names.len();
    let mut member = vec![false; n];
    for c in inside {
        member[c.first] = true;
        member[c.second] = true;
    }
    let mut held = vec![usize::MAX; components.count];
    if let Some((a, _)) = options.anchor
        && member.get(a).copied().unwrap_or(false)
    {
        held[components.of[a]] = a;
    }
    let mut param = vec![None; n];
    let mut component = vec![None; n];
    let mut ratings = 0;
    let mut joint_size = 0;
    for i in (0..n).filter(|&i| member[i]) {
        let c = components.of[i];
        component[i] = Some(c);
        if Some(c) == joint_component {
            joint_size += 1;
        }
        if held[c] == usize::MAX {
            held[c] = i;
        }
        if held[c] != i {
            param[i] = Some(ratings);
            ratings += 1;
        }
    }
    let layout = Layout {
        param,
        component,
        ratings,
        fit_w,
    };
    let (r, w, iterations, converged) =
        likelihood::maximise(&layout, inside, n, options.max_iterations);
    let mut solved = Solved {
        w_error: None,
        covariance: None,
        df: f64::INFINITY,
        layout,
        r,
        w,
        iterations,
        converged,
    };
    if solved.layout.len() == 0 || joint_size > MAX_COVARIANCE_ENGINES {
        return solved;
    }
    let c = likelihood::covariance(&solved.layout, results, inside, &solved.r, solved.w);
    let (v, df) = interval_covariance(c, solved.layout.len(), options.intervals);
    if fit_w {
        let wi = solved.layout.ratings;
        solved.w_error = Some(student_t_quantile(0.975, df) * v[wi][wi].max(0.0).sqrt());
    }
    solved.covariance = Some(v);
    solved.df = df;
    solved
}

/// The covariance (of the `k` parameters) the intervals are built with, and its degrees of
/// freedom, from the fit's covariances `c` as `intervals` asks: the sandwich, the sandwich
/// scaled for clustered t intervals, or the model's and the sandwich's pooled.
fn interval_covariance(
    c: likelihood::Covariances,
    k: usize,
    intervals: Intervals,
) -> (Vec<Vec<f64>>, f64) {
    let g = c.clusters;
    match intervals {
        Intervals::Sandwich => (c.sandwich, f64::INFINITY),
        Intervals::ClusteredT => {
            let scale = if g > 1.0 { g / (g - 1.0) } else { f64::NAN };
            (
                c.sandwich
                    .iter()
                    .map(|row| row.iter().map(|x| x * scale).collect())
                    .collect(),
                g - 1.0,
            )
        }
        Intervals::Pooled { prior_clusters } => {
            let df = prior_clusters + g - 1.0;
            (
                (0..k)
                    .map(|i| {
                        (0..k)
                            .map(|j| (prior_clusters * c.model[i][j] + g * c.sandwich[i][j]) / df)
                            .collect()
                    })
                    .collect(),
                df,
            )
        }
    }
}

/// Places the components outside the joint fit, wave after wave: a component with games
/// against the engines rated before the wave is shifted as a block to where its record against
/// them is as likely as not (a perfect record), or to where its expected score against them is
/// its score (a mixed one), so that the order of the engines does not matter. `r` holds the
/// ratings within each component; `rated` grows.
fn place_components(
    cells: &[FirstMoveCell],
    components: &existence::Components,
    r: &mut [f64],
    w: f64,
    rated: &mut [bool],
) {
    let n = r.len();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); components.count];
    for i in 0..n {
        members[components.of[i]].push(i);
    }
    let mut against: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, c) in cells.iter().enumerate() {
        against[c.first].push(k);
        against[c.second].push(k);
    }
    let mut done: Vec<bool> = (0..components.count)
        .map(|c| members[c].iter().any(|&i| rated[i]))
        .collect();
    // The components next to the rated ones.
    let neighbours = |comps: &[usize], done: &[bool]| -> Vec<usize> {
        let mut next: Vec<usize> = comps
            .iter()
            .flat_map(|&c| members[c].iter())
            .flat_map(|&i| against[i].iter())
            .flat_map(|&k| [cells[k].first, cells[k].second])
            .map(|i| components.of[i])
            .filter(|&c| !done[c])
            .collect();
        next.sort_unstable();
        next.dedup();
        next
    };
    let start: Vec<usize> = (0..components.count).filter(|&c| done[c]).collect();
    let mut wave = neighbours(&start, &done);
    while !wave.is_empty() {
        let mut placed: Vec<(usize, f64)> = Vec::new();
        for &comp in &wave {
            // (games, the Elo to add to the block's shift, the block's points) per cell.
            let mut terms: Vec<(f64, f64, f64)> = Vec::new();
            for &i in &members[comp] {
                for &k in &against[i] {
                    let c = &cells[k];
                    if c.first == i && rated[c.second] {
                        terms.push((c.games, r[i] + w - r[c.second], c.points));
                    } else if c.second == i && rated[c.first] {
                        terms.push((c.games, r[i] - w - r[c.first], c.games - c.points));
                    }
                }
            }
            if let Some(shift) = block_shift(&terms) {
                placed.push((comp, shift));
            }
        }
        for &(comp, shift) in &placed {
            done[comp] = true;
            for &i in &members[comp] {
                r[i] += shift;
                rated[i] = true;
            }
        }
        let comps: Vec<usize> = placed.iter().map(|p| p.0).collect();
        wave = neighbours(&comps, &done);
    }
}

/// The shift `x` of a block with games `terms` (games, Elo offset, points) against rated
/// engines: for a perfect record the `x` at which it is as likely as not, otherwise the `x`
/// whose expected score is its score; bisection to machine precision. `None` without games.
fn block_shift(terms: &[(f64, f64, f64)]) -> Option<f64> {
    if terms.is_empty() {
        return None;
    }
    let games: f64 = terms.iter().map(|t| t.0).sum();
    let points: f64 = terms.iter().map(|t| t.2).sum();
    // Each function increases with x; bisect for its root.
    let f = |x: f64| -> f64 {
        if points == games {
            terms
                .iter()
                .map(|&(n, d, _)| n * ln_expected(x + d))
                .sum::<f64>()
                - 0.5f64.ln()
        } else if points == 0.0 {
            0.5f64.ln()
                - terms
                    .iter()
                    .map(|&(n, d, _)| n * ln_expected(-x - d))
                    .sum::<f64>()
        } else {
            terms
                .iter()
                .map(|&(n, d, _)| n * expected(x + d))
                .sum::<f64>()
                - points
        }
    };
    let (low, high) = terms
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
            (lo.min(-t.1), hi.max(-t.1))
        });
    // A perfect record over a million games is some 2300 Elo away from its opponents.
    let (mut lo, mut hi) = (low - 20_000.0, high + 20_000.0);
    while hi - lo > 1e-9 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The components above `base` (that reach it by perfect records, each won by the upper) and
/// those below it.
fn reach(components: &existence::Components, base: usize) -> (Vec<bool>, Vec<bool>) {
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); components.count];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); components.count];
    for &(upper, lower) in &components.dominance {
        up[lower].push(upper);
        down[upper].push(lower);
    }
    let walk = |edges: &[Vec<usize>]| {
        let mut seen = vec![false; components.count];
        let mut stack = vec![base];
        while let Some(c) = stack.pop() {
            for &to in &edges[c] {
                if !seen[to] && to != base {
                    seen[to] = true;
                    stack.push(to);
                }
            }
        }
        seen
    };
    (walk(&up), walk(&down))
}

#[cfg(test)]
mod tests;

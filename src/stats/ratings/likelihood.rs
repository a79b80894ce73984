//! The likelihood of the games inside the components, its maximum (Newton's method) and the
//! covariance of the estimates (the cluster-robust sandwich with its small-sample correction).
//!
//! The parameters are the ratings of the engines of the fit, one engine of each component held
//! at 0 (only differences within a component are identified), then the advantage when it is
//! fitted. The information matrix is a weighted graph Laplacian: its product with a vector runs
//! over the cells, so a fit of many engines (`joute rate` on large record files) solves its
//! Newton steps by conjugate gradients without ever holding a matrix; a small fit solves them
//! densely.

use super::results::{FirstMoveCell, Results};
use std::f64::consts::LN_10;

/// d ln L(e) / de = C (1 - L(e)): the logistic's slope per Elo, in natural-log units.
pub(super) const C: f64 = LN_10 / 400.0;

/// The most parameters whose Newton steps are solved densely (above, by conjugate gradients).
const DENSE_STEPS: usize = 200;

/// The expected score of an Elo difference: `L(e)`.
pub(super) fn expected(e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-e / 400.0))
}

/// `ln L(e)`, accurate far into both tails.
pub(super) fn ln_expected(e: f64) -> f64 {
    let t = C * e;
    if t >= 0.0 {
        -(-t).exp().ln_1p()
    } else {
        t - t.exp().ln_1p()
    }
}

/// The fit's layout: which engines have a parameter, and whether the advantage has one.
pub(super) struct Layout {
    /// The parameter of each engine (`None`: held at 0, or not in the fit).
    pub param: Vec<Option<usize>>,
    /// The component of each engine of the fit (`None`: not in the fit).
    pub component: Vec<Option<usize>>,
    /// Rating parameters.
    pub ratings: usize,
    /// The advantage is the last parameter.
    pub fit_w: bool,
}

impl Layout {
    /// Parameters in all.
    pub fn len(&self) -> usize {
        self.ratings + usize::from(self.fit_w)
    }

    fn w_index(&self) -> usize {
        self.ratings
    }

    /// The cell's design vector as (parameter, coefficient) pairs: `e_f - e_s (+ e_w)`.
    fn design(&self, c: &FirstMoveCell) -> [(Option<usize>, f64); 3] {
        [
            (self.param[c.first], 1.0),
            (self.param[c.second], -1.0),
            (self.fit_w.then_some(self.w_index()), 1.0),
        ]
    }
}

/// The log-likelihood of `cells` at ratings `r` (per engine) and advantage `w`.
fn log_likelihood(cells: &[FirstMoveCell], r: &[f64], w: f64) -> f64 {
    cells
        .iter()
        .map(|c| {
            let d = r[c.first] + w - r[c.second];
            c.points * ln_expected(d) + (c.games - c.points) * ln_expected(-d)
        })
        .sum()
}

/// The score vector over the parameters, and each cell's curvature weight `g e (1 - e) C²`.
fn gradient(layout: &Layout, cells: &[FirstMoveCell], r: &[f64], w: f64) -> (Vec<f64>, Vec<f64>) {
    let mut grad = vec![0.0; layout.len()];
    let mut weights = Vec::with_capacity(cells.len());
    for c in cells {
        let e = expected(r[c.first] + w - r[c.second]);
        let residual = C * (c.points - c.games * e);
        weights.push(c.games * e * (1.0 - e) * C * C);
        for (p, sign) in layout.design(c) {
            if let Some(p) = p {
                grad[p] += sign * residual;
            }
        }
    }
    (grad, weights)
}

/// The information matrix times `v`: Σ_c h_c x_c (x_c · v).
fn information_times(
    layout: &Layout,
    cells: &[FirstMoveCell],
    weights: &[f64],
    v: &[f64],
) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    for (c, h) in cells.iter().zip(weights) {
        let design = layout.design(c);
        let dot: f64 = design
            .iter()
            .filter_map(|&(p, s)| p.map(|p| s * v[p]))
            .sum();
        for (p, s) in design {
            if let Some(p) = p {
                out[p] += h * s * dot;
            }
        }
    }
    out
}

/// The information matrix, dense.
pub(super) fn information(
    layout: &Layout,
    cells: &[FirstMoveCell],
    weights: &[f64],
) -> Vec<Vec<f64>> {
    let k = layout.len();
    let mut info = vec![vec![0.0; k]; k];
    for (c, h) in cells.iter().zip(weights) {
        let design = layout.design(c);
        for &(p, s) in &design {
            for &(q, t) in &design {
                if let (Some(p), Some(q)) = (p, q) {
                    info[p][q] += h * s * t;
                }
            }
        }
    }
    info
}

/// Solves `info · x = b` by conjugate gradients with the diagonal as preconditioner, to a
/// relative residual of 1e-12.
fn conjugate_gradients(
    layout: &Layout,
    cells: &[FirstMoveCell],
    weights: &[f64],
    b: &[f64],
) -> Vec<f64> {
    let k = b.len();
    let mut diagonal = vec![0.0; k];
    for (c, h) in cells.iter().zip(weights) {
        for (p, s) in layout.design(c) {
            if let Some(p) = p {
                diagonal[p] += h * s * s;
            }
        }
    }
    let precondition = |r: &[f64]| -> Vec<f64> {
        r.iter()
            .zip(&diagonal)
            .map(|(x, d)| if *d > 0.0 { x / d } else { 0.0 })
            .collect()
    };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let mut x = vec![0.0; k];
    let mut r = b.to_vec();
    let mut z = precondition(&r);
    let mut p = z.clone();
    let mut rz = dot(&r, &z);
    let target = 1e-24 * dot(b, b);
    for _ in 0..10 * k.max(10) {
        if dot(&r, &r) <= target {
            break;
        }
        let q = information_times(layout, cells, weights, &p);
        let pq = dot(&p, &q);
        if pq <= 0.0 {
            break;
        }
        let alpha = rz / pq;
        for i in 0..k {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        z = precondition(&r);
        let next = dot(&r, &z);
        let beta = next / rz;
        rz = next;
        for i in 0..k {
            p[i] = z[i] + beta * p[i];
        }
    }
    x
}

/// The maximum of the likelihood of `cells`: the ratings per engine (0 for those without a
/// parameter) and the advantage, the Newton steps taken and whether they reached the tolerance.
pub(super) fn maximise(
    layout: &Layout,
    cells: &[FirstMoveCell],
    n: usize,
    max_iterations: usize,
) -> (Vec<f64>, f64, usize, bool) {
    let k = layout.len();
    let mut r = vec![0.0; n];
    let mut w = 0.0;
    let (mut iterations, mut converged) = (0, k == 0);
    while !converged && iterations < max_iterations {
        iterations += 1;
        let (grad, weights) = gradient(layout, cells, &r, w);
        let step = if k <= DENSE_STEPS {
            let inverse = invert(&information(layout, cells, &weights));
            multiply_vector(&inverse, &grad)
        } else {
            conjugate_gradients(layout, cells, &weights, &grad)
        };
        // Halve the step until the likelihood does not fall (Newton's full step almost always
        // does; far from the maximum it may overshoot).
        let before = log_likelihood(cells, &r, w);
        let mut t = 1.0;
        let (mut next_r, mut next_w) = (r.clone(), w);
        for _ in 0..60 {
            for (i, p) in layout.param.iter().enumerate() {
                if let Some(p) = p {
                    next_r[i] = r[i] + t * step[*p];
                }
            }
            next_w = if layout.fit_w {
                w + t * step[layout.w_index()]
            } else {
                0.0
            };
            if log_likelihood(cells, &next_r, next_w) >= before - 1e-12 * before.abs() {
                break;
            }
            t /= 2.0;
        }
        let largest = step.iter().fold(0.0f64, |acc, s| acc.max((t * s).abs()));
        r = next_r;
        w = next_w;
        converged = largest < 1e-9;
    }
    (r, w, iterations, converged)
}

/// The two estimates of the parameters' covariance at the maximum `(r, w)`: the model's, `I⁻¹`
/// (the curvature alone: every game a coin toss), and the cluster-robust sandwich `I⁻¹ K I⁻¹`,
/// `K` the sum over the clusters (opening pairs and lone games) of the outer product of each
/// cluster's score vector; with the number of clusters.
pub(super) struct Covariances {
    /// `I⁻¹`.
    pub model: Vec<Vec<f64>>,
    /// `I⁻¹ K I⁻¹`.
    pub sandwich: Vec<Vec<f64>>,
    /// Clusters in the fit.
    pub clusters: f64,
}

pub(super) fn covariance(
    layout: &Layout,
    results: &Results,
    cells: &[FirstMoveCell],
    r: &[f64],
    w: f64,
) -> Covariances {
    let k = layout.len();
    let (_, weights) = gradient(layout, cells, r, w);
    let inverse = invert(&information(layout, cells, &weights));
    let mut spread = vec![vec![0.0; k]; k];
    let mut clusters = 0.0;
    for ((a, b), cell) in results.meetings() {
        let (pa, pb) = (layout.param[a], layout.param[b]);
        // Only meetings within a component of the fit.
        if layout.component[a].is_none() || layout.component[a] != layout.component[b] {
            continue;
        }
        clusters += cell.clusters();
        // Lone games, a first: residual x - p1 along e_a - e_b + e_w.
        let p1 = expected(r[a] + w - r[b]);
        let lone = cell.lone_squares - 2.0 * p1 * cell.lone_points + cell.lone * p1 * p1;
        // Pairs, a first in the first game: the score vector is
        // u (e_a - e_b) + v e_w, u = x + y - 1 - p1 + p2, v = x - y + 1 - p1 - p2.
        let p2 = expected(r[b] + w - r[a]);
        let (alpha, beta) = (-1.0 - p1 + p2, 1.0 - p1 - p2);
        let (sum_plus, sum_minus) = (cell.x + cell.y, cell.x - cell.y);
        let plus2 = cell.xx + 2.0 * cell.xy + cell.yy;
        let minus2 = cell.xx - 2.0 * cell.xy + cell.yy;
        let uu = plus2 + 2.0 * alpha * sum_plus + cell.pairs * alpha * alpha;
        let vv = minus2 + 2.0 * beta * sum_minus + cell.pairs * beta * beta;
        let uv =
            (cell.xx - cell.yy) + beta * sum_plus + alpha * sum_minus + cell.pairs * alpha * beta;
        let (ee, ew, ww) = (
            (lone + uu) * C * C,
            (lone + uv) * C * C,
            (lone + vv) * C * C,
        );
        let rating = [(pa, 1.0), (pb, -1.0)];
        for &(p, s) in &rating {
            for &(q, t) in &rating {
                if let (Some(p), Some(q)) = (p, q) {
                    spread[p][q] += s * t * ee;
                }
            }
        }
        if layout.fit_w {
            let wi = layout.w_index();
            spread[wi][wi] += ww;
            for &(p, s) in &rating {
                if let Some(p) = p {
                    spread[p][wi] += s * ew;
                    spread[wi][p] += s * ew;
                }
            }
        }
    }
    let sandwich = multiply(&multiply(&inverse, &spread), &inverse);
    Covariances {
        model: inverse,
        sandwich,
        clusters,
    }
}

fn multiply_vector(m: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    m.iter()
        .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
        .collect()
}

/// The product of two small dense square matrices.
pub(super) fn multiply(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    let mut out = vec![vec![0.0; n]; n];
    for i in 0..n {
        for k in 0..n {
            let aik = a[i][k];
            if aik == 0.0 {
                continue;
            }
            for j in 0..n {
                out[i][j] += aik * b[k][j];
            }
        }
    }
    out
}

/// The inverse of a small dense matrix by Gauss–Jordan elimination with partial pivoting; a
/// singular matrix gives zeros where it has no information.
pub(super) fn invert(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = m.len();
    let mut a: Vec<Vec<f64>> = m.to_vec();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap_or(col);
        if a[pivot][col].abs() < 1e-300 {
            continue;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        for j in 0..n {
            a[col][j] /= d;
            inv[col][j] /= d;
        }
        for row in 0..n {
            if row != col {
                let f = a[row][col];
                if f != 0.0 {
                    for j in 0..n {
                        a[row][j] -= f * a[col][j];
                        inv[row][j] -= f * inv[col][j];
                    }
                }
            }
        }
    }
    inv
}

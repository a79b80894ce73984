//! Where the names of a strength-against-cost chart's points go: a greedy search, most crowded
//! points first, for a place beside each point (or farther out on a leader line) that overlaps
//! no other label, point or interval bar, and whose leader crosses no other.

use super::*;

/// A rectangle in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PixelRect {
    pub(super) left: f64,
    pub(super) top: f64,
    pub(super) right: f64,
    pub(super) bottom: f64,
}

impl PixelRect {
    /// The box of half-sizes `(w, h)` around `(x, y)`.
    pub(super) fn around((x, y): (f64, f64), (w, h): (f64, f64)) -> PixelRect {
        PixelRect {
            left: x - w,
            top: y - h,
            right: x + w,
            bottom: y + h,
        }
    }

    pub(super) fn area(&self) -> f64 {
        (self.right - self.left).max(0.0) * (self.bottom - self.top).max(0.0)
    }

    /// The area both cover.
    pub(super) fn overlap(&self, other: &PixelRect) -> f64 {
        let w = self.right.min(other.right) - self.left.max(other.left);
        let h = self.bottom.min(other.bottom) - self.top.max(other.top);
        w.max(0.0) * h.max(0.0)
    }

    /// The point of the rectangle nearest to `(x, y)`.
    pub(super) fn nearest(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (
            x.clamp(self.left, self.right),
            y.clamp(self.top, self.bottom),
        )
    }
}

/// Where each point's label goes: the label's box, the side of the point it is on (x and y:
/// -1, 0 or 1), and whether it stands away from its point (then a leader line joins them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Placed {
    pub(super) rect: PixelRect,
    pub(super) side: (i8, i8),
    pub(super) leader: bool,
}

impl Placed {
    /// Where its text is anchored, and how: at the box's edge nearest the point, so that a
    /// text a little wider than estimated grows away from the point, not over it.
    pub(super) fn anchor(&self) -> ((i32, i32), Pos) {
        let (x, h) = match self.side.0 {
            1 => (self.rect.left + 1.0, HPos::Left),
            -1 => (self.rect.right - 1.0, HPos::Right),
            _ => ((self.rect.left + self.rect.right) / 2.0, HPos::Center),
        };
        let y = (self.rect.top + self.rect.bottom) / 2.0;
        (
            (x.round() as i32, y.round() as i32),
            Pos::new(h, VPos::Center),
        )
    }
}

/// Places a label of size `sizes[i]` beside each of `points` (pixels), inside `area`, where it
/// covers as little as it can of the labels placed before it and of the `obstacles` (each with
/// the weight of a pixel of it covered): beside the point first (right, left, the diagonals,
/// above, below), then farther away on a leader line, which should cross no other leader,
/// label, point or one of the thin `bars` (a leader along an interval's bar would lengthen
/// it). The most crowded points choose first.
pub(super) fn place_labels(
    points: &[(f64, f64)],
    sizes: &[(f64, f64)],
    obstacles: &[(PixelRect, f64)],
    bars: &[PixelRect],
    area: PixelRect,
) -> Vec<Placed> {
    // Distances from the point to the label's near edge (the first: beside it).
    const GAPS: [f64; 7] = [7.0, 16.0, 28.0, 42.0, 60.0, 82.0, 110.0];
    const DIRECTIONS: [(i8, i8); 8] = [
        (1, 0),
        (-1, 0),
        (1, -1),
        (1, 1),
        (-1, -1),
        (-1, 1),
        (0, -1),
        (0, 1),
    ];
    let n = points.len().min(sizes.len());
    let crowd = |i: usize| {
        let (x, y) = points[i];
        points
            .iter()
            .filter(|&&(a, b)| (a - x).abs() < 80.0 && (b - y).abs() < 40.0)
            .count()
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(crowd(i)), i));
    let mut placed: Vec<Option<Placed>> = vec![None; n];
    // The leader lines drawn so far (from the point to the label).
    let mut leaders: Vec<Segment> = Vec::new();
    for &i in &order {
        let (x, y) = points[i];
        let (w, h) = sizes[i];
        let mut best: Option<(f64, Placed)> = None;
        'rings: for (ring, &gap) in GAPS.iter().enumerate() {
            for &(dx, dy) in &DIRECTIONS {
                // On a diagonal the label's corner is nearest the point: as far as the first
                // gap at least, so that it clears the marker.
                let d = if dx != 0 && dy != 0 {
                    (gap * 0.7).max(GAPS[0])
                } else {
                    gap
                };
                let rect = label_rect((x, y), (w, h), d, (dx, dy));
                let mut penalty = 1000.0 * (rect.area() - rect.overlap(&area));
                for other in placed.iter().flatten() {
                    penalty += 20.0 * rect.overlap(&other.rect);
                }
                for (obstacle, weight) in obstacles {
                    penalty += weight * rect.overlap(obstacle);
                }
                for &(a, b) in &leaders {
                    if segment_meets_rect(a, b, &rect) {
                        penalty += CROSSING;
                    }
                }
                if ring > 0 {
                    penalty =
                        add_leader_crossings(penalty, i, &rect, points, &placed, &leaders, bars);
                }
                // Nearer is better, by a little: a clear spot far away beats a crowded one.
                let score = penalty + 40.0 * ring as f64;
                let candidate = Placed {
                    rect,
                    side: (dx, dy),
                    leader: ring > 0,
                };
                if best.is_none_or(|(s, _)| score < s) {
                    best = Some((score, candidate));
                }
                if penalty == 0.0 {
                    break 'rings;
                }
            }
        }
        if let Some((_, p)) = best
            && p.leader
        {
            leaders.push(leader_line((x, y), &p.rect));
        }
        placed[i] = best.map(|(_, p)| p);
    }
    placed
        .into_iter()
        .map(|p| {
            p.unwrap_or(Placed {
                rect: PixelRect::around((0.0, 0.0), (0.0, 0.0)),
                side: (1, 0),
                leader: false,
            })
        })
        .collect()
}

/// What a leader line that crosses another, or runs through a label or a point, costs: it
/// misleads as much as a label half hidden.
const CROSSING: f64 = 400.0;

/// A line segment in pixels, from one end to the other.
type Segment = ((f64, f64), (f64, f64));

/// The box of a label of size `(w, h)` at distance `d` from `point`, on the side `(dx, dy)`
/// (each -1, 0 or 1; 0: centred on the point along that axis).
fn label_rect(point: (f64, f64), (w, h): (f64, f64), d: f64, (dx, dy): (i8, i8)) -> PixelRect {
    let (x, y) = point;
    let left = match dx {
        1 => x + d,
        -1 => x - d - w,
        _ => x - w / 2.0,
    };
    let top = match dy {
        1 => y + d,
        -1 => y - d - h,
        _ => y - h / 2.0,
    };
    PixelRect {
        left,
        top,
        right: left + w,
        bottom: top + h,
    }
}

/// `penalty` plus [`CROSSING`] for each leader, label, other point and bar that the leader line
/// from point `i` to `rect` crosses (added one at a time, so the sum rounds as it always has).
fn add_leader_crossings(
    mut penalty: f64,
    i: usize,
    rect: &PixelRect,
    points: &[(f64, f64)],
    placed: &[Option<Placed>],
    leaders: &[Segment],
    bars: &[PixelRect],
) -> f64 {
    let (a, b) = leader_line(points[i], rect);
    for &(c, d) in leaders {
        if segments_cross(a, b, c, d) {
            penalty += CROSSING;
        }
    }
    for other in placed.iter().flatten() {
        if segment_meets_rect(a, b, &other.rect) {
            penalty += CROSSING;
        }
    }
    for (j, &q) in points.iter().enumerate() {
        if j != i && segment_meets_rect(a, b, &PixelRect::around(q, (6.0, 6.0))) {
            penalty += CROSSING;
        }
    }
    for bar in bars {
        if segment_meets_rect(a, b, bar) {
            penalty += CROSSING;
        }
    }
    penalty
}

/// The leader line from a point to its label's box, as drawn: from the edge of the point's
/// marker (7 pixels out) to the box's nearest point.
pub(super) fn leader_line(point: (f64, f64), rect: &PixelRect) -> ((f64, f64), (f64, f64)) {
    let end = rect.nearest(point);
    let (dx, dy) = (end.0 - point.0, end.1 - point.1);
    let length = dx.hypot(dy).max(1.0);
    let start = (point.0 + dx / length * 7.0, point.1 + dy / length * 7.0);
    (start, end)
}

/// Whether the segment `a`–`b` meets `rect` (Liang and Barsky's clipping).
pub(super) fn segment_meets_rect(a: (f64, f64), b: (f64, f64), rect: &PixelRect) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.0 - rect.left),
        (dx, rect.right - a.0),
        (-dy, a.1 - rect.top),
        (dy, rect.bottom - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    t0 <= t1
}

/// Whether the segments `a`–`b` and `c`–`d` cross (touching ends do not count).
pub(super) fn segments_cross(a: (f64, f64), b: (f64, f64), c: (f64, f64), d: (f64, f64)) -> bool {
    let side = |p: (f64, f64), q: (f64, f64), r: (f64, f64)| {
        (q.0 - p.0) * (r.1 - p.1) - (q.1 - p.1) * (r.0 - p.0)
    };
    let (d1, d2) = (side(c, d, a), side(c, d, b));
    let (d3, d4) = (side(a, b, c), side(a, b, d));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

//! Which quantities the games identify, decided before any fit.
//!
//! The model is a logistic regression: the game of `f` moving first against `s` has the linear
//! predictor `r_f - r_s + w`. Its maximum-likelihood estimate exists (Albert and Anderson, 1984)
//! unless the results are *separated*: a direction `(δ, t)` of the ratings and the advantage
//! along which no game's likelihood falls — `δ_f - δ_s + t ≥ 0` for every cell (the games of one
//! first mover against one second) the first mover won entirely, `≤ 0` for every cell it lost
//! entirely, `= 0` for every cell with both points and losses — and some cell's rises. Along
//! such a direction the fit runs off to infinity; the cells that can rise are the *separated*
//! ones. Scaling `t` to −1, 0 or +1, each case is a system of difference constraints, decided
//! exactly with graphs:
//!
//! - `t = 0` (the ratings alone): a cell can rise iff its two engines are in different strongly
//!   connected components of the graph with an edge `a → b` when `a` must stay above `b` (Ford's
//!   condition for Bradley–Terry, 1957). Between components every game is a perfect record.
//! - `t = ±1` (the first move with the ratings): the constraints are shortest-path constraints
//!   with weights ±1; they have a solution iff the graph has no negative cycle (Bellman–Ford),
//!   and a cell is tight in every solution iff its edge lies on a zero-weight cycle (an edge of
//!   zero reduced cost inside a strongly connected component of such edges).
//!
//! What is left once the separated cells are set aside is the fit of the cells inside the
//! components; the advantage is identified there iff some component's games are *unbalanced*:
//! no potential `φ` has `φ_s = φ_f + 1` for every game, that is, some engine played both
//! colours against an opponent, directly or around a cycle of opponents.

use super::results::FirstMoveCell;

/// The constraint a cell puts on a direction of recession.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The first mover won every game: `δ_f - δ_s + t ≥ 0`.
    Won,
    /// It lost every game: `≤ 0`.
    Lost,
    /// Both: `= 0`.
    Mixed,
}

fn kind(c: &FirstMoveCell) -> Kind {
    if c.all_won() {
        Kind::Won
    } else if c.all_lost() {
        Kind::Lost
    } else {
        Kind::Mixed
    }
}

/// A directed graph in compressed rows.
struct Graph {
    start: Vec<usize>,
    targets: Vec<usize>,
    /// The edge's weight and its cell.
    labels: Vec<(i64, usize)>,
}

impl Graph {
    fn new(n: usize, edges: &[(usize, usize, i64, usize)]) -> Graph {
        let mut start = vec![0usize; n + 1];
        for e in edges {
            start[e.0 + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut targets = vec![0; edges.len()];
        let mut labels = vec![(0, 0); edges.len()];
        for &(u, v, w, c) in edges {
            targets[fill[u]] = v;
            labels[fill[u]] = (w, c);
            fill[u] += 1;
        }
        Graph {
            start,
            targets,
            labels,
        }
    }

    fn out(&self, u: usize) -> std::ops::Range<usize> {
        self.start[u]..self.start[u + 1]
    }
}

/// Strongly connected components of `graph` restricted to the edges `keep` accepts (by edge
/// index), by Tarjan's algorithm without recursion: a component number per node.
fn components(n: usize, graph: &Graph, keep: impl Fn(usize) -> bool) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack: Vec<usize> = Vec::new();
    // (node, next edge to look at).
    let mut calls: Vec<(usize, usize)> = Vec::new();
    let (mut counter, mut count) = (0usize, 0usize);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        calls.push((root, graph.start[root]));
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (u, ref mut next)) = calls.last_mut() {
            if *next < graph.start[u + 1] {
                let e = *next;
                *next += 1;
                if !keep(e) {
                    continue;
                }
                let v = graph.targets[e];
                if index[v] == UNSEEN {
                    index[v] = counter;
                    low[v] = counter;
                    counter += 1;
                    stack.push(v);
                    on_stack[v] = true;
                    calls.push((v, graph.start[v]));
                } else if on_stack[v] {
                    low[u] = low[u].min(index[v]);
                }
            } else {
                calls.pop();
                if let Some(&(parent, _)) = calls.last() {
                    low[parent] = low[parent].min(low[u]);
                }
                if low[u] == index[u] {
                    while let Some(v) = stack.pop() {
                        on_stack[v] = false;
                        component[v] = count;
                        if v == u {
                            break;
                        }
                    }
                    count += 1;
                }
            }
        }
    }
    component
}

/// The edges of the constraints of direction `t` (`x_v ≤ x_u + weight` for an edge `u → v`),
/// each with its cell.
fn constraint_edges(cells: &[FirstMoveCell], t: i64) -> Vec<(usize, usize, i64, usize)> {
    let mut edges = Vec::with_capacity(2 * cells.len());
    for (k, c) in cells.iter().enumerate() {
        let (f, s) = (c.first, c.second);
        let kind = kind(c);
        // δ_f - δ_s + t ≥ 0  ⇔  δ_s ≤ δ_f + t.
        if kind != Kind::Lost {
            edges.push((f, s, t, k));
        }
        // δ_f - δ_s + t ≤ 0  ⇔  δ_f ≤ δ_s - t.
        if kind != Kind::Won {
            edges.push((s, f, -t, k));
        }
    }
    edges
}

/// Shortest distances from a virtual source joined to every node by a zero edge, or `None`
/// when the graph has a negative cycle. Bellman–Ford in its queue form, with the cycle looked
/// for in the parent pointers every `n` relaxations (a cycle there is a negative cycle), which
/// finds one long before the textbook bound of `n` passes.
fn shortest_distances(n: usize, graph: &Graph) -> Option<Vec<i64>> {
    let mut dist = vec![0i64; n];
    let mut parent = vec![usize::MAX; n];
    let mut queued = vec![true; n];
    let mut queue: std::collections::VecDeque<usize> = (0..n).collect();
    let mut relaxations = 0usize;
    while let Some(u) = queue.pop_front() {
        queued[u] = false;
        for e in graph.out(u) {
            let v = graph.targets[e];
            let d = dist[u] + graph.labels[e].0;
            if d < dist[v] {
                dist[v] = d;
                parent[v] = u;
                relaxations += 1;
                if !queued[v] {
                    queued[v] = true;
                    queue.push_back(v);
                }
                if relaxations.is_multiple_of(n.max(16)) && has_cycle(&parent) {
                    return None;
                }
            }
        }
    }
    Some(dist)
}

/// Whether the parent pointers (`usize::MAX`: none) close a cycle.
fn has_cycle(parent: &[usize]) -> bool {
    // 0: not visited, 1: on the current walk, 2: done.
    let mut state = vec![0u8; parent.len()];
    let mut walk = Vec::new();
    for start in 0..parent.len() {
        let mut u = start;
        while u != usize::MAX && state[u] == 0 {
            state[u] = 1;
            walk.push(u);
            u = parent[u];
        }
        if u != usize::MAX && state[u] == 1 {
            return true;
        }
        for &w in &walk {
            state[w] = 2;
        }
        walk.clear();
    }
    false
}

/// The cells that some direction of recession with advantage component `t` (−1, 0 or +1)
/// makes rise, or `None` when no such direction exists. With `t = 0`, a direction always
/// exists (zero).
pub(super) fn separated_cells(n: usize, cells: &[FirstMoveCell], t: i64) -> Option<Vec<bool>> {
    let edges = constraint_edges(cells, t);
    let graph = Graph::new(n, &edges);
    let dist = if t == 0 {
        vec![0; n]
    } else {
        shortest_distances(n, &graph)?
    };
    // Edges of zero reduced cost; their components hold the always-tight constraints.
    let tight = |e: usize, u: usize| {
        let v = graph.targets[e];
        graph.labels[e].0 + dist[u] - dist[v] == 0
    };
    let mut source = vec![0usize; edges.len()];
    for u in 0..n {
        for e in graph.out(u) {
            source[e] = u;
        }
    }
    let component = components(n, &graph, |e| tight(e, source[e]));
    let mut separated = vec![false; cells.len()];
    for u in 0..n {
        for e in graph.out(u) {
            let (_, k) = graph.labels[e];
            let v = graph.targets[e];
            if kind(&cells[k]) != Kind::Mixed && !(tight(e, u) && component[u] == component[v]) {
                separated[k] = true;
            }
        }
    }
    Some(separated)
}

/// The components of the ratings alone (`t = 0`): a number per engine, such that the engines
/// of one component have both points and losses among themselves, directly or around a cycle,
/// and every game between two components is a perfect record. Also, per component pair, the
/// order: `above[a]` lists the components that component `a` won every game against.
pub(super) struct Components {
    /// The component of each engine.
    pub of: Vec<usize>,
    /// How many.
    pub count: usize,
    /// `(upper, lower)`: component `upper` won every game against `lower` (deduplicated).
    pub dominance: Vec<(usize, usize)>,
}

/// The components of the ratings alone.
pub(super) fn rating_components(n: usize, cells: &[FirstMoveCell]) -> Components {
    let edges = constraint_edges(cells, 0);
    let graph = Graph::new(n, &edges);
    let of = components(n, &graph, |_| true);
    let count = of.iter().map(|&c| c + 1).max().unwrap_or(0);
    let mut dominance: Vec<(usize, usize)> = edges
        .iter()
        .filter(|e| of[e.0] != of[e.1])
        // An edge u → v says δ_v ≤ δ_u: u's component is above v's.
        .map(|e| (of[e.0], of[e.1]))
        .collect();
    dominance.sort_unstable();
    dominance.dedup();
    Components {
        of,
        count,
        dominance,
    }
}

/// Whether the cells `inside` accepts (the games within components) identify the advantage:
/// some connected group of them admits no potential `φ` with `φ_s = φ_f + 1` for every cell.
pub(super) fn advantage_identified(
    n: usize,
    cells: &[FirstMoveCell],
    inside: impl Fn(&FirstMoveCell) -> bool,
) -> bool {
    let mut neighbours: Vec<Vec<(usize, i64)>> = vec![Vec::new(); n];
    for c in cells.iter().filter(|c| inside(c)) {
        neighbours[c.first].push((c.second, 1));
        neighbours[c.second].push((c.first, -1));
    }
    let mut potential: Vec<Option<i64>> = vec![None; n];
    let mut stack = Vec::new();
    for root in 0..n {
        if potential[root].is_some() || neighbours[root].is_empty() {
            continue;
        }
        potential[root] = Some(0);
        stack.push(root);
        while let Some(u) = stack.pop() {
            let pu = potential[u].expect("set before pushing");
            for &(v, step) in &neighbours[u] {
                match potential[v] {
                    None => {
                        potential[v] = Some(pu + step);
                        stack.push(v);
                    }
                    Some(pv) if pv != pu + step => return true,
                    Some(_) => {}
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(first: usize, second: usize, games: f64, points: f64) -> FirstMoveCell {
        FirstMoveCell {
            first,
            second,
            games,
            points,
        }
    }

    #[test]
    fn perfect_records_between_groups_are_separated_by_the_ratings_alone() {
        // a and b split their games; both beat c every time.
        let cells = [
            cell(0, 1, 2.0, 1.0),
            cell(1, 0, 2.0, 1.5),
            cell(0, 2, 1.0, 1.0),
            cell(2, 1, 1.0, 0.0),
        ];
        let c = rating_components(3, &cells);
        assert_eq!(c.of[0], c.of[1]);
        assert_ne!(c.of[0], c.of[2]);
        assert_eq!(c.dominance, vec![(c.of[0], c.of[2])]);
        let s = separated_cells(3, &cells, 0).unwrap();
        assert_eq!(s, [false, false, true, true]);
    }

    #[test]
    fn a_first_mover_that_won_every_game_is_separated_along_the_advantage() {
        // Both colours, the first mover won every game: w runs off to +∞.
        let cells = [cell(0, 1, 2.0, 2.0), cell(1, 0, 2.0, 2.0)];
        assert_eq!(separated_cells(2, &cells, 1).unwrap(), [true, true]);
        // Along t = -1 the constraints δ1 ≤ δ0 - 1 and δ0 ≤ δ1 - 1 have no solution.
        assert_eq!(separated_cells(2, &cells, -1), None);
        // No separation by the ratings alone: each won half.
        assert_eq!(separated_cells(2, &cells, 0).unwrap(), [false, false]);
    }

    #[test]
    fn a_sweep_of_one_colour_with_a_split_of_the_other_is_separated() {
        // pvs won all 4 games it started, split the 4 the other started: w = d → ∞.
        let cells = [cell(0, 1, 4.0, 4.0), cell(1, 0, 4.0, 2.0)];
        assert_eq!(separated_cells(2, &cells, 1).unwrap(), [true, false]);
        assert_eq!(separated_cells(2, &cells, -1), None);
        assert_eq!(separated_cells(2, &cells, 0).unwrap(), [false, false]);
    }

    #[test]
    fn mixed_results_both_ways_leave_nothing_separated() {
        let cells = [cell(0, 1, 3.0, 2.0), cell(1, 0, 3.0, 1.0)];
        for t in [-1, 1] {
            assert_eq!(separated_cells(2, &cells, t), None);
        }
        assert!(advantage_identified(2, &cells, |_| true));
    }

    #[test]
    fn one_colour_only_does_not_identify_the_advantage() {
        // Every game had engine 0 first: r0 + w - r1 is all the games say.
        let cells = [cell(0, 1, 6.0, 4.0)];
        assert!(!advantage_identified(2, &cells, |_| true));
        // A triangle where each engine moved first once: unbalanced, identified.
        let triangle = [
            cell(0, 1, 2.0, 1.0),
            cell(1, 2, 2.0, 1.0),
            cell(2, 0, 2.0, 1.0),
        ];
        assert!(advantage_identified(3, &triangle, |_| true));
        // A transitive orientation (0 first against both, 1 first against 2) is balanced? No:
        // φ1 = φ0 + 1, φ2 = φ1 + 1 and φ2 = φ0 + 1 contradict.
        let transitive = [
            cell(0, 1, 2.0, 1.0),
            cell(1, 2, 2.0, 1.0),
            cell(0, 2, 2.0, 1.0),
        ];
        assert!(advantage_identified(3, &transitive, |_| true));
        // A path is balanced.
        let path = [cell(0, 1, 2.0, 1.0), cell(2, 1, 2.0, 1.0)];
        assert!(!advantage_identified(3, &path, |_| true));
    }

    #[test]
    fn long_chains_need_no_recursion() {
        // 200,000 engines in a cycle of mixed results: one component, found without a deep
        // stack.
        let n = 200_000;
        let cells: Vec<FirstMoveCell> = (0..n).map(|i| cell(i, (i + 1) % n, 2.0, 1.0)).collect();
        let c = rating_components(n, &cells);
        assert_eq!(c.count, 1);
        // Around the cycle the first move would have to gain n: no direction with t = ±1.
        assert_eq!(separated_cells(n, &cells, 1), None);
        assert_eq!(separated_cells(n, &cells, -1), None);
    }
}

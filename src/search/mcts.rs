//! `mcts`: Monte Carlo tree search with UCT. Each playout walks down the tree by the UCT rule,
//! adds the children of the node it reaches, plays seeded random moves to the end of the game,
//! and credits the result back up. The move played is the most visited child of the root.

use rand::RngExt;

use super::context::Ctx;
use super::{SearchResult, SearchStats, Searcher};
use crate::eval::Evaluator;
use crate::games::{Game, MoveList, Side};

struct Node<G: Game> {
    pos: G,
    mv: Option<G::Move>,
    parent: u32,
    first_child: u32,
    children: u32,
    expanded: bool,
    visits: u32,
    /// Results of the playouts through this node for the player who moved into it (1 win,
    /// 0.5 draw, 0 loss).
    reward: f64,
}

/// The result of a finished game for `side`: 1 win, 0.5 draw, 0 loss.
fn reward_for<G: Game>(pos: &G, side: Side) -> f64 {
    match pos.outcome().and_then(|o| o.winner) {
        Some(w) if w == side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

/// A tree holding only `root`, with room for the nodes `playouts` playouts are likely to add
/// (at most `max_nodes`).
fn new_tree<G: Game>(root: &G, playouts: u64, max_nodes: usize) -> Vec<Node<G>> {
    let mut tree: Vec<Node<G>> =
        Vec::with_capacity((playouts.min(1 << 20) as usize * 4).min(max_nodes));
    tree.push(Node {
        pos: *root,
        mv: None,
        parent: u32::MAX,
        first_child: 0,
        children: 0,
        expanded: false,
        visits: 0,
        reward: 0.0,
    });
    tree
}

/// The selection step of a playout: from the root, follows the UCT rule (with `exploration`)
/// through expanded nodes to the node it reaches; that node and its depth.
#[inline]
fn select<G: Game>(tree: &[Node<G>], exploration: f64) -> (usize, u32) {
    let mut idx = 0usize;
    let mut depth = 0;
    while tree[idx].expanded && tree[idx].children > 0 {
        let parent_visits = tree[idx].visits.max(1) as f64;
        let log_n = parent_visits.ln();
        let first = tree[idx].first_child as usize;
        let mut best = first;
        let mut best_value = f64::NEG_INFINITY;
        let count = tree[idx].children as usize;
        for (c, child) in tree.iter().enumerate().skip(first).take(count) {
            let value = if child.visits == 0 {
                f64::INFINITY
            } else {
                child.reward / child.visits as f64
                    + exploration * (log_n / child.visits as f64).sqrt()
            };
            if value > best_value {
                best_value = value;
                best = c;
            }
        }
        idx = best;
        depth += 1;
    }
    (idx, depth)
}

/// The expansion step of a playout: the node `idx` reached gets its children (once it has been
/// visited), while the tree has room for them (at most `max_nodes`; a full tree stops growing
/// and the search goes on from there), each counted in `nodes`; its first child, when it got
/// any. `moves` is scratch space.
#[inline]
fn expand<G: Game>(
    tree: &mut Vec<Node<G>>,
    idx: usize,
    max_nodes: usize,
    moves: &mut MoveList<G::Move>,
    nodes: &mut u64,
) -> Option<usize> {
    let mut grow = false;
    if !tree[idx].expanded && (tree[idx].visits > 0 || idx == 0) {
        moves.clear();
        tree[idx].pos.legal_moves(moves);
        grow = idx == 0 || tree.len() + moves.len() <= max_nodes;
        tree[idx].expanded = grow;
    }
    if grow {
        let first = tree.len() as u32;
        let pos = tree[idx].pos;
        for &mv in moves.iter() {
            *nodes += 1;
            tree.push(Node {
                pos: pos.play(mv),
                mv: Some(mv),
                parent: idx as u32,
                first_child: 0,
                children: 0,
                expanded: false,
                visits: 0,
                reward: 0.0,
            });
        }
        tree[idx].first_child = first;
        tree[idx].children = moves.len() as u32;
        if !moves.is_empty() {
            return Some(first as usize);
        }
    }
    None
}

/// The backpropagation step of a playout that ended in `end`: each node from `idx` up to the
/// root is visited once more and credited for the player who moved into it.
#[inline]
fn backpropagate<G: Game>(tree: &mut [Node<G>], idx: usize, end: &G) {
    let mut cursor = idx;
    loop {
        let node = &mut tree[cursor];
        node.visits += 1;
        let mover = node.pos.side_to_move().opponent();
        node.reward += reward_for(end, mover);
        if node.parent == u32::MAX {
            break;
        }
        cursor = node.parent as usize;
    }
}

/// The root's most visited child (the first of the most visited), its move and its score
/// (the mean result scaled to ±1000; 0 without a child).
fn best_root_child<G: Game>(tree: &[Node<G>]) -> (Option<usize>, Option<G::Move>, i32) {
    let root_node = &tree[0];
    let first = root_node.first_child as usize;
    let best = (first..first + root_node.children as usize)
        .max_by_key(|&c| (tree[c].visits, std::cmp::Reverse(c)));
    let (best_move, score) = match best {
        Some(c) => {
            let n = &tree[c];
            let mean = if n.visits > 0 {
                n.reward / n.visits as f64
            } else {
                0.5
            };
            (n.mv, ((2.0 * mean - 1.0) * 1000.0).round() as i32)
        }
        None => (None, 0),
    };
    (best, best_move, score)
}

/// The principal variation from the root's child `best` (whose move is `best_move`): the most
/// visited child (the first of them), again and again, while it has been visited.
fn principal_variation<G: Game>(
    tree: &[Node<G>],
    best: Option<usize>,
    best_move: Option<G::Move>,
) -> Vec<G::Move> {
    let mut pv: Vec<G::Move> = best_move.into_iter().collect();
    let mut cursor = best;
    while let Some(c) = cursor {
        let node = &tree[c];
        let first = node.first_child as usize;
        cursor = (first..first + node.children as usize)
            .filter(|&k| tree[k].visits > 0)
            .max_by_key(|&k| (tree[k].visits, std::cmp::Reverse(k)));
        if let Some(k) = cursor {
            pv.extend(tree[k].mv);
        }
    }
    pv
}

/// How many nodes a tree of `mib` MiB holds (node indices are 32-bit).
pub(super) fn tree_capacity<G: Game>(mib: usize) -> usize {
    (mib.max(1) << 20)
        .checked_div(std::mem::size_of::<Node<G>>())
        .unwrap_or(usize::MAX)
        .min(u32::MAX as usize - 1)
}

/// Searches `root` by UCT for the playouts (or the time) the searcher's budget allows: the most
/// visited child of the root, its score and the principal variation.
pub(super) fn search<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<G>,
    root: &G,
    ctx: &mut Ctx<'_, G, E>,
) -> SearchResult<G::Move> {
    let playouts = s
        .config
        .limits
        .nodes
        .unwrap_or(s.config.options.playouts)
        .max(1);
    let exploration = s.config.options.exploration;
    let deadline = s.config.limits.time.map(|t| std::time::Instant::now() + t);
    let max_nodes = tree_capacity::<G>(s.config.options.tree_mib);
    let mut tree = new_tree(root, playouts, max_nodes);
    let mut max_depth = 0;
    let mut moves = MoveList::new();
    for done in 0..playouts {
        if let Some(deadline) = deadline
            && done > 0
            && done % 64 == 0
            && std::time::Instant::now() >= deadline
        {
            ctx.timed_out = true;
            break;
        }
        let (mut idx, mut depth) = select(&tree, exploration);
        if let Some(first) = expand(&mut tree, idx, max_nodes, &mut moves, &mut ctx.nodes) {
            idx = first;
            depth += 1;
        }
        max_depth = max_depth.max(depth);
        // Simulation: random moves to the end of the game.
        let mut pos = tree[idx].pos;
        loop {
            moves.clear();
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            ctx.nodes += 1;
            pos = pos.play(moves[s.rng.random_range(0..moves.len())]);
        }
        ctx.leaves += 1;
        backpropagate(&mut tree, idx, &pos);
    }
    let (best, best_move, score) = best_root_child(&tree);
    let pv = principal_variation(&tree, best, best_move);
    let depth = pv.len() as u32;
    SearchResult {
        best_move,
        score,
        pv,
        stats: SearchStats {
            depth,
            seldepth: max_depth,
            ..SearchStats::default()
        },
    }
}

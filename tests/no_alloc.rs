//! The depth-first searches allocate nothing while they search: a counting allocator sees
//! only the result's principal variation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use joute::eval::Evaluator;
use joute::games::{Connect4, Game, Othello};
use joute::search::{Algorithm, SearchConfig, Searcher};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

struct Discs;

impl Evaluator<Othello> for Discs {
    fn evaluate(&self, pos: &Othello) -> i32 {
        pos.player.count_ones() as i32 - pos.opponent.count_ones() as i32
    }
}

struct Centre;

impl Evaluator<Connect4> for Centre {
    fn evaluate(&self, pos: &Connect4) -> i32 {
        (pos.current & (0x3f << 21)).count_ones() as i32
    }
}

fn allocations_during<G: Game, E: Evaluator<G>>(
    algorithm: Algorithm,
    depth: u32,
    pos: &G,
    eval: &E,
) -> (usize, u64) {
    let mut searcher = Searcher::new(SearchConfig::new(algorithm, depth));
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let result = searcher.search(pos, eval);
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    (after - before, result.stats.nodes)
}

#[test]
fn depth_first_searches_do_not_allocate_per_node() {
    // One test function: the counter is global, so no other test may run beside it.
    for algorithm in Algorithm::EXACT {
        let depth = 7;
        let (allocations, nodes) = allocations_during(algorithm, depth, &Othello::start(), &Discs);
        assert!(nodes > 1_000, "{algorithm}: {nodes} nodes");
        // The PV vector of the result, once per completed iteration.
        assert!(
            allocations <= depth as usize + 1,
            "{algorithm}: {allocations} allocations for {nodes} nodes"
        );
        let (allocations, nodes) = allocations_during(algorithm, 7, &Connect4::start(), &Centre);
        assert!(
            allocations <= 8,
            "{algorithm}: {allocations} allocations for {nodes} nodes"
        );
    }
}

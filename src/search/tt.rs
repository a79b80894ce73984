//! The transposition table: a fixed-size, power-of-two array of entries indexed by the
//! position's hash key, allocated once per engine and reused across its searches.

use std::mem::MaybeUninit;

/// What an entry's value says about the position's true value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value is exact.
    Exact,
    /// The true value is at least the stored one (the search failed high).
    Lower,
    /// The true value is at most the stored one (the search failed low).
    Upper,
}

/// One stored search result.
#[derive(Copy, Clone, Debug)]
pub struct Entry<M> {
    /// The full hash key, to tell apart positions sharing a slot.
    pub key: u64,
    /// Remaining depth the value was searched to.
    pub depth: u16,
    /// What the value bounds.
    pub bound: Bound,
    /// The value, with win scores relative to this position (see [`crate::search`]).
    pub value: i32,
    /// The best or refuting move found, if any.
    pub best: Option<M>,
    generation: u16,
}

/// A transposition table of `Entry<M>`.
///
/// Creating or clearing a table touches only an occupancy bitset, one bit per slot: the slots
/// themselves are allocated uninitialised and written only by [`TranspositionTable::store`].
/// Engines are built afresh for every tournament game, so filling megabytes of empty slots up
/// front would cost each game more than a fast search does.
pub struct TranspositionTable<M> {
    /// Invariant: slot `i` is initialised whenever bit `i % 64` of `occupied[i / 64]` is set.
    entries: Box<[MaybeUninit<Entry<M>>]>,
    /// One bit per slot (`entries.len()` is a power of two of at least 1024, so a multiple of
    /// 64); zero-initialised, which the allocator serves from lazily zeroed or reused memory.
    occupied: Box<[u64]>,
    mask: usize,
    generation: u16,
}

impl<M: Copy> TranspositionTable<M> {
    /// A table of about `mib` mebibytes (at least 1024 entries), rounded down to a power of two.
    pub fn new(mib: usize) -> Self {
        // Sized by `Option<Entry<M>>`, the slot type of earlier versions, so that a given `mib`
        // keeps giving the same number of slots, hence the same replacements and searches.
        let entry = std::mem::size_of::<Option<Entry<M>>>().max(1);
        let wanted = (mib.max(1) << 20) / entry;
        let len = (wanted.next_power_of_two() / 2).max(1024);
        TranspositionTable {
            entries: Box::new_uninit_slice(len),
            occupied: vec![0; len / 64].into_boxed_slice(),
            mask: len - 1,
            generation: 0,
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table has no slots (never: kept for the usual pairing with `len`).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Marks every entry as stale, in O(1): stale entries still answer probes until replaced.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// Forgets everything, in O(len / 64): only the occupancy bits are reset.
    pub fn clear(&mut self) {
        self.occupied.fill(0);
    }

    /// The slot's entry, if one was ever stored there since creation or the last `clear`.
    #[inline]
    fn slot(&self, index: usize) -> Option<&Entry<M>> {
        if self.occupied[index / 64] & (1 << (index % 64)) == 0 {
            return None;
        }
        // SAFETY: bit `index` is set only at the end of `store`, after `entries[index].write`
        // has written a whole, valid `Entry<M>` there (nothing between them can panic, and the
        // bounds are checked by the indexing before either). Nothing de-initialises a slot
        // afterwards: `store` only overwrites it with another valid entry, `clear` resets bits
        // only, and the slots are never moved out of. So the slot is initialised.
        Some(unsafe { self.entries[index].assume_init_ref() })
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<&Entry<M>> {
        self.slot(key as usize & self.mask).filter(|e| e.key == key)
    }

    /// Stores a result; a slot holding another position is replaced unless it holds a deeper
    /// result of the current search.
    #[inline]
    pub fn store(&mut self, key: u64, depth: u32, bound: Bound, value: i32, best: Option<M>) {
        let index = key as usize & self.mask;
        if let Some(old) = self.slot(index)
            && old.key != key
            && old.generation == self.generation
            && old.depth as u32 > depth
        {
            return;
        }
        self.entries[index].write(Entry {
            key,
            depth: depth.min(u16::MAX as u32) as u16,
            bound,
            value,
            best,
            generation: self.generation,
        });
        self.occupied[index / 64] |= 1 << (index % 64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_probes_by_full_key() {
        let mut tt = TranspositionTable::<u8>::new(1);
        let n = tt.len() as u64;
        tt.store(5, 3, Bound::Exact, 42, Some(7));
        assert_eq!(tt.probe(5).unwrap().value, 42);
        assert!(tt.probe(5 + n).is_none());
        // A shallower result of another position does not evict a deeper one of this search.
        tt.store(5 + n, 1, Bound::Lower, 1, None);
        assert_eq!(tt.probe(5).unwrap().value, 42);
        tt.new_search();
        tt.store(5 + n, 1, Bound::Lower, 1, None);
        assert!(tt.probe(5).is_none());
        assert_eq!(tt.probe(5 + n).unwrap().bound, Bound::Lower);
    }

    #[test]
    fn clear_forgets_every_slot() {
        let mut tt = TranspositionTable::<u8>::new(1);
        let n = tt.len() as u64;
        // One entry per slot, with keys whose high bits tell them from their slot's other keys.
        let key = |i: u64| i | (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) << 32);
        for i in 0..n {
            tt.store(key(i), 5, Bound::Exact, i as i32, Some(i as u8));
        }
        for i in 0..n {
            let e = tt.probe(key(i)).expect("stored");
            assert_eq!(
                (e.key, e.depth, e.value, e.best),
                (key(i), 5, i as i32, Some(i as u8))
            );
            assert!(tt.probe(key(i) ^ (1 << 40)).is_none());
        }
        tt.clear();
        assert!((0..n).all(|i| tt.probe(key(i)).is_none()));
        // A cleared slot takes any store, as an empty one does: the deeper entry of this search
        // that was there before is gone.
        tt.store(key(3) ^ (1 << 40), 1, Bound::Upper, -1, None);
        assert!(tt.probe(key(3)).is_none());
        assert_eq!(tt.probe(key(3) ^ (1 << 40)).unwrap().bound, Bound::Upper);
        assert!(
            (0..n)
                .filter(|&i| i != 3)
                .all(|i| tt.probe(key(i)).is_none())
        );
    }

    #[test]
    fn a_fresh_table_is_empty_everywhere() {
        let tt = TranspositionTable::<u8>::new(16);
        // As many slots as when they were 24-byte `Option<Entry<u8>>`s: 16 MiB / 24,
        // rounded down to a power of two.
        assert_eq!(std::mem::size_of::<Option<Entry<u8>>>(), 24);
        assert_eq!(tt.len(), 1 << 19);
        let n = tt.len() as u64;
        assert!((0..n).all(|i| tt.probe(i).is_none() && tt.probe(!i).is_none()));
        let mut x = 1u64;
        for _ in 0..100_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            assert!(tt.probe(x).is_none());
        }
    }

    /// The time to create and drop a 16 MiB table, the engine default, as every game pays it:
    /// `cargo test --release --lib -- --ignored creation_time --nocapture`.
    #[test]
    #[ignore]
    fn creation_time() {
        use std::hint::black_box;
        use std::time::Instant;
        let mut times: Vec<f64> = (0..201)
            .map(|_| {
                let start = Instant::now();
                let tt = black_box(TranspositionTable::<u8>::new(16));
                drop(black_box(tt));
                start.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        let first = times.remove(0);
        times.sort_by(f64::total_cmp);
        let (q1, median, q3) = (times[50], times[100], times[150]);
        println!(
            "16 MiB table create+drop: first {first:.1} us, then median {median:.1} us \
             (quartiles {q1:.1}..{q3:.1}) over 200"
        );
    }
}

//! The transposition table: a fixed-size, power-of-two array of entries indexed by the
//! position's hash key, allocated once per engine and reused across its searches.

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
pub struct TranspositionTable<M> {
    entries: Vec<Option<Entry<M>>>,
    mask: usize,
    generation: u16,
}

impl<M: Copy> TranspositionTable<M> {
    /// A table of about `mib` mebibytes (at least 1024 entries), rounded down to a power of two.
    pub fn new(mib: usize) -> Self {
        let entry = std::mem::size_of::<Option<Entry<M>>>().max(1);
        let wanted = (mib.max(1) << 20) / entry;
        let len = (wanted.next_power_of_two() / 2).max(1024);
        TranspositionTable {
            entries: vec![None; len],
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

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = None);
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<&Entry<M>> {
        match &self.entries[key as usize & self.mask] {
            Some(e) if e.key == key => Some(e),
            _ => None,
        }
    }

    /// Stores a result; a slot holding another position is replaced unless it holds a deeper
    /// result of the current search.
    #[inline]
    pub fn store(&mut self, key: u64, depth: u32, bound: Bound, value: i32, best: Option<M>) {
        let slot = &mut self.entries[key as usize & self.mask];
        if let Some(old) = slot
            && old.key != key
            && old.generation == self.generation
            && old.depth as u32 > depth
        {
            return;
        }
        *slot = Some(Entry {
            key,
            depth: depth.min(u16::MAX as u32) as u16,
            bound,
            value,
            best,
            generation: self.generation,
        });
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
}

//! Hash mixing shared by the games: positions hash as a function of their bitboards, so the same
//! board reached by different move orders gets the same hash, with no incremental state to keep.

/// The splitmix64 finaliser: a bijective mix of 64 bits with good avalanche.
#[inline]
pub const fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Folds `value` into the running hash `h`; order matters.
#[inline]
pub const fn combine(h: u64, value: u64) -> u64 {
    mix64(h.rotate_left(23) ^ value.wrapping_add(0x9e37_79b9_7f4a_7c15))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_spreads_nearby_inputs() {
        let a = mix64(1);
        let b = mix64(2);
        assert!((a ^ b).count_ones() > 16);
        assert_ne!(combine(combine(0, 1), 2), combine(combine(0, 2), 1));
    }
}

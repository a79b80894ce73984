//! Benchmark placeholder, filled in with its layer.

fn main() {}

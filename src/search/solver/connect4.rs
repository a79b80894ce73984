//! Connect 4 solver.

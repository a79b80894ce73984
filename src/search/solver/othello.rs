//! Othello endgame solver.

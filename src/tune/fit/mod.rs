//! Weights fitted to labelled positions, as `joute fit` and each round of a regression run do:
//! the positions collected from games logs and the linear weights fitted by logistic
//! regression, Texel's method ([`regression`]); positions labelled by a deeper search instead
//! of their game's result alone ([`search_labels`]); and the pattern evaluation's fit
//! ([`pattern_fit`]).

pub mod pattern_fit;
pub mod regression;
pub mod search_labels;

//! The optimisers that tune by playing candidates against each other, and what they play
//! through: the tuned parameters ([`params`]), what an optimiser asks of the outside world and a
//! synthetic objective with a known optimum ([`objective`]), SPSA ([`spsa`]), hill climbing
//! ([`hill`]) and the built-in engines' games ([`oracle`]).

pub mod hill;
pub mod objective;
pub mod oracle;
pub mod params;
pub mod spsa;

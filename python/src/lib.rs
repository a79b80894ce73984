//! The native part of joute's Python package: see `docs/python.md`.

use pyo3::prelude::*;

mod analysis;
pub mod game;
mod run;
mod tune;
mod wait;

/// joute's native module, imported by `joute/__init__.py`.
#[pymodule]
fn _joute(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    game::register(m)?;
    analysis::register(m)?;
    run::register(m)?;
    tune::register(m)?;
    Ok(())
}

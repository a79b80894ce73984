//! The report layer: what a run's games say, as terminal tables, CSV files, charts and one
//! self-contained HTML page.
//!
//! - [`summary`]: the counts of a run, fed game by game in any order.
//! - [`table`]: the Ordo-style rating table and the fastchess-style head-to-head block.
//! - [`cost`]: what each engine paid for its rating: nodes, depth, time and CPU per move.
//! - [`files`]: `ratings.csv`, `crosstable.csv`, `pairs.csv`, `cost.csv`, `cost-by-ply.csv`, …
//! - [`load`]: a summary from one or more logs (shards merge).
//! - [`charts`]: the charts of a run, PNG and SVG.
//! - [`html`]: `index.html`, the self-contained report with its game viewer.
//! - [`records`]: the games as records other tools read (`joute export`, `[output] records`).
//! - [`run`]: a run folder's report (CSV, charts, page) written together, and its JSON object.

pub mod charts;
pub mod cost;
pub mod files;
pub mod html;
pub mod load;
pub mod records;
pub mod run;
pub mod summary;
pub mod table;

pub use run::write_run_report;
pub use summary::Summary;

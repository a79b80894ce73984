//! joute's integration tests, in one binary: each module was a test binary of its own, and
//! linking 31 binaries against the optimised library took most of a fresh `cargo test`.
//! Two suites stay apart for reasons their files give: `tests/no_alloc.rs` (a counting global
//! allocator would count every other test's allocations) and `tests/memory.rs` (it reads the
//! peak memory of every child the process waited for).
//!
//! One suite: `cargo test --test it MODULE::`; the browser tests of the report and live page:
//! `cargo test --test it -- --include-ignored html:: serve::`.

mod common;
mod slow;

mod adjudication;
mod analysis;
mod anchors;
mod bench;
mod charts;
mod cli;
mod cli_search;
mod cost;
mod fit;
mod fuzz;
mod hostile;
mod html;
mod launcher;
mod layers;
mod openings;
mod outputs;
mod outside;
mod patterns;
mod peers;
mod perft;
mod properties;
mod records;
mod search;
mod search_agreement;
mod serve;
mod sharded_sprt;
mod solve_connect4;
mod solve_othello;
mod sprt_cli;
mod strength;
mod terminal;
mod tournament;
mod tune;
mod tune_compare;
mod tune_outside;
mod tune_regression;
mod tune_shards;
mod untrusted;

/// Every Rust file under `tests/` is part of a test binary: a file left out of this list (or a
/// new `tests/*.rs` beside the two that stay apart) would compile into nothing, or into a binary
/// of its own, silently. As jj's runner checks, fail instead.
#[test]
fn no_test_file_is_forgotten() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let names = |dir: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".rs"))
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        names(&root),
        ["memory.rs", "no_alloc.rs"],
        "tests/*.rs: a new suite belongs in tests/it/ as a module of tests/it/main.rs"
    );
    let main = include_str!("main.rs");
    for name in names(&root.join("it")) {
        let module = name.trim_end_matches(".rs");
        assert!(
            name == "main.rs" || main.contains(&format!("\nmod {module};\n")),
            "tests/it/{name} is not declared in tests/it/main.rs (add `mod {module};`)"
        );
    }
}

//! The library's layers, read from its sources: every `crate::MODULE` path in a file of one
//! top-level module must name a module of a lower layer (docs/architecture.md draws the order).
//! A path in a comment does not count; a path in a unit test does, since a test module that
//! reaches up still ties the two together.

use std::collections::BTreeSet;
use std::path::Path;

/// The layers, lowest first, as docs/architecture.md lists them. `cli` is the binary's and
/// uses the library through `joute::`, so it is not in this list.
const LAYERS: [&str; 10] = [
    "games",
    "eval",
    "search",
    "stats",
    "arena",
    "report",
    "tournament",
    "tune",
    "serve",
    "lib",
];

/// The source without `//` comments (doc comments included), so that a link in a doc comment
/// to a higher layer is not an import.
fn without_comments(source: &str) -> String {
    source
        .lines()
        .map(|line| match line.find("//") {
            // A `//` inside a string literal ("http://…") is rare in this crate and would only
            // hide a path, never invent one.
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a source names: `crate::a::…` and the members of `crate::{a, b::…}`.
fn named_modules(source: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    let mut rest = source;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for member in group[..end].split(',') {
                let name: String = member
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    named.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !name.is_empty() {
                named.insert(name);
            }
        }
    }
    named
}

fn rust_files(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let top = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "cli" || top == "main" {
            continue; // the binary: it sees the library as `joute::`
        }
        let level = LAYERS
            .iter()
            .position(|layer| *layer == top)
            .unwrap_or_else(|| panic!("src/{top}: a new top-level module needs its layer here and in docs/architecture.md"));
        let source = without_comments(&std::fs::read_to_string(file).unwrap());
        for used in named_modules(&source) {
            if used == top {
                continue;
            }
            match LAYERS.iter().position(|layer| *layer == used) {
                Some(other) if other < level => {}
                _ => wrong.push(format!("src/{} uses crate::{used}", relative.display())),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that climb the layers {LAYERS:?}:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_sees_plain_and_grouped_paths_but_not_comments() {
    let source = "use crate::report::Summary;\nuse crate::{tune, arena::log};\n// crate::cli\n";
    let named = named_modules(&without_comments(source));
    assert_eq!(
        named.into_iter().collect::<Vec<_>>(),
        ["arena", "report", "tune"]
    );
}

//! The library's layers, read from its sources: every `crate::MODULE` path in a file of one
//! top-level module must name a module of a lower layer (docs/architecture.md draws the order),
//! and the modules inside a layer (`tune::run`, `tune::spec`, …) must not use each other in a
//! circle. A path in a comment does not count; a path in a unit test does, since a test module
//! that reaches up still ties the two together.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first, as docs/architecture.md lists them. `cli` is the binary's and
/// uses the library through `joute::`, so it is not in this list.
const LAYERS: [&str; 12] = [
    "inputs",
    "outputs",
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

/// The library's sources as (path below `src/`, text), the binary's (`main.rs`, `cli/`) left
/// out: it sees the library as `joute::`.
fn library_sources() -> Vec<(PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            (file.strip_prefix(&src).unwrap().to_path_buf(), text)
        })
        .filter(|(path, _)| !path.starts_with("cli") && !path.starts_with("main.rs"))
        .collect()
}

/// The module path of a file: `tune/run.rs` is `[tune, run]`, `arena/spec/mod.rs` is
/// `[arena, spec]`, `lib.rs` is `[]`.
fn module_of(path: &Path) -> Vec<String> {
    let mut parts: Vec<String> = path
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The paths a source writes, each as its segments up to the first one that is not a module
/// name (`crate::tune::run::{tune, Plan}` gives `[crate, tune, run, tune]` and
/// `[crate, tune, run, Plan]`), with the byte offset where it starts. Only paths that start
/// with `crate`, `super` or `self` are read: another path names an item already in scope.
fn written_paths(source: &str) -> Vec<(usize, Vec<String>)> {
    let bytes = source.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !source.is_char_boundary(at) {
            at += 1;
            continue;
        }
        let word_start =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        let root = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|root| word_start && source[at..].starts_with(root));
        match root {
            Some(root) => {
                let mut paths = Vec::new();
                let end = read_tree(
                    source,
                    at + root.len(),
                    vec![root.trim_end_matches("::").to_string()],
                    &mut paths,
                );
                found.extend(paths.into_iter().map(|p| (at, p)));
                at = end.max(at + 1);
            }
            None => at += 1,
        }
    }
    found
}

/// Reads the rest of a path from `at` (just after a `::`), below `prefix`: a name, a group
/// `{a, b::c, self}` or `*`. Returns where it stopped.
fn read_tree(
    source: &str,
    mut at: usize,
    prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let bytes = source.as_bytes();
    let skip_space = |mut at: usize| {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        at
    };
    at = skip_space(at);
    if at < bytes.len() && bytes[at] == b'{' {
        at += 1;
        loop {
            at = skip_space(at);
            if at >= bytes.len() {
                return at;
            }
            if bytes[at] == b'}' {
                return at + 1;
            }
            if bytes[at] == b',' {
                at += 1;
                continue;
            }
            let before = at;
            at = read_tree(source, at, prefix.clone(), out);
            if at == before {
                // Not a path: step over it rather than loop.
                at += source[at..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    let name_end = at
        + source[at..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(source.len() - at);
    let name = &source[at..name_end];
    if name.is_empty() {
        // `*` or anything else: the path names its prefix.
        out.push(prefix);
        return at;
    }
    let mut path = prefix;
    if name != "self" {
        path.push(name.to_string());
    }
    if source[name_end..].starts_with("::") && name != "self" {
        read_tree(source, name_end + 2, path, out)
    } else {
        out.push(path);
        name_end
    }
}

/// The inline modules (`mod tests { … }`) open at each line of a rustfmt-formatted source:
/// a module opens on a line `mod NAME {` and closes on the line of its indent and `}`.
fn inline_modules(source: &str) -> Vec<(usize, Vec<String>)> {
    let mut open: Vec<(String, String)> = Vec::new(); // (closing line, name)
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let text = line.trim_end();
        if open.last().is_some_and(|(close, _)| text == close) {
            open.pop();
        }
        starts.push((offset, open.iter().map(|(_, name)| name.clone()).collect()));
        let code = text.trim_start();
        let code = code.strip_prefix("pub ").unwrap_or(code);
        if let Some(name) = code.strip_prefix("mod ").and_then(|r| r.strip_suffix(" {")) {
            let indent = &text[..text.len() - text.trim_start().len()];
            open.push((format!("{indent}}}"), name.trim().to_string()));
        }
        offset += line.len();
    }
    starts
}

/// The library's module graph, one node per second-level module (`tune::run`, the files of
/// `arena/spec/` all in `arena::spec`): an edge for every path a file writes to another node,
/// with one place that writes it. A layer's own `mod.rs` (`crate::tune`) is not a node: it
/// declares the layer's modules, re-exports their items (a path through a re-export counts as
/// a path to the module that defines the item) and holds what they share.
struct Graph {
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

impl Graph {
    fn of(sources: &[(PathBuf, String)]) -> Graph {
        let modules: Vec<Vec<String>> = sources.iter().map(|(path, _)| module_of(path)).collect();
        // The second-level modules, and the items each layer's mod.rs re-exports.
        let nodes: BTreeSet<(String, String)> = modules
            .iter()
            .filter(|m| m.len() >= 2)
            .map(|m| (m[0].clone(), m[1].clone()))
            .collect();
        let mut reexports: BTreeMap<(String, String), String> = BTreeMap::new();
        for ((_, text), module) in sources.iter().zip(&modules) {
            if module.len() != 1 {
                continue;
            }
            let text = without_comments(text);
            let mut rest = text.as_str();
            while let Some(at) = rest.find("pub use ") {
                rest = &rest[at + "pub use ".len()..];
                let end = rest.find(';').unwrap_or(rest.len());
                let mut paths = Vec::new();
                read_tree(&rest[..end], 0, Vec::new(), &mut paths);
                for path in paths {
                    let path: Vec<&str> = path
                        .iter()
                        .map(String::as_str)
                        .skip_while(|s| *s == "self")
                        .collect();
                    if let [submodule, .., item] = path[..]
                        && nodes.contains(&(module[0].clone(), submodule.to_string()))
                    {
                        reexports.insert(
                            (module[0].clone(), item.to_string()),
                            format!("{}::{submodule}", module[0]),
                        );
                    }
                }
            }
        }
        let node_of = |path: &[String]| -> Option<String> {
            let (top, second) = (path.first()?, path.get(1)?);
            if nodes.contains(&(top.clone(), second.clone())) {
                Some(format!("{top}::{second}"))
            } else {
                reexports.get(&(top.clone(), second.clone())).cloned()
            }
        };
        let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for ((path, text), module) in sources.iter().zip(&modules) {
            let Some(from) = node_of(module) else {
                continue; // a layer's mod.rs, or lib.rs
            };
            let text = without_comments(text);
            let inline = inline_modules(&text);
            for (at, written) in written_paths(&text) {
                let line = inline.partition_point(|(start, _)| *start <= at) - 1;
                let mut here: Vec<String> = module.clone();
                here.extend(inline[line].1.iter().cloned());
                let mut segments = written.iter();
                let mut target: Vec<String> = match segments.next().map(String::as_str) {
                    Some("crate") => Vec::new(),
                    Some("self") => here,
                    _ => {
                        here.pop();
                        here
                    }
                };
                for segment in segments {
                    if segment == "super" {
                        target.pop();
                    } else {
                        target.push(segment.clone());
                    }
                }
                if let Some(to) = node_of(&target)
                    && to != from
                {
                    edges
                        .entry(from.clone())
                        .or_default()
                        .entry(to)
                        .or_insert_with(|| format!("src/{} line {}", path.display(), line + 1));
                }
            }
        }
        Graph { edges }
    }

    /// Circles of the graph, each as `a -> b (where a names b), b -> a (…)`: a shortest one
    /// through every module that is on any, a module already named in one not looked at again.
    fn cycles(&self) -> Vec<String> {
        let reach = |from: &str| -> BTreeSet<String> {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from.to_string()];
            while let Some(node) = todo.pop() {
                for next in self.edges.get(&node).into_iter().flat_map(|e| e.keys()) {
                    if seen.insert(next.clone()) {
                        todo.push(next.clone());
                    }
                }
            }
            seen
        };
        let mut reported: BTreeSet<String> = BTreeSet::new();
        let mut cycles = Vec::new();
        for node in self.edges.keys() {
            if reported.contains(node) || !reach(node).contains(node) {
                continue;
            }
            // A shortest way back to `node`, breadth first.
            let mut came_from: BTreeMap<String, String> = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([node.clone()]);
            'search: while let Some(at) = queue.pop_front() {
                for next in self.edges.get(&at).into_iter().flat_map(|e| e.keys()) {
                    if next == node {
                        came_from.insert(node.clone() + "'", at.clone());
                        break 'search;
                    }
                    if !came_from.contains_key(next) {
                        came_from.insert(next.clone(), at.clone());
                        queue.push_back(next.clone());
                    }
                }
            }
            let mut circle = vec![node.clone()];
            let mut at = came_from[&(node.clone() + "'")].clone();
            while &at != node {
                circle.push(at.clone());
                at = came_from[&at].clone();
            }
            circle.push(node.clone());
            circle.reverse();
            let arrows: Vec<String> = circle
                .windows(2)
                .map(|w| format!("{} -> {} ({})", w[0], w[1], self.edges[&w[0]][&w[1]]))
                .collect();
            reported.extend(circle);
            cycles.push(arrows.join(", "));
        }
        cycles
    }
}

#[test]
fn no_two_modules_use_each_other_even_through_others() {
    let graph = Graph::of(&library_sources());
    let cycles = graph.cycles();
    assert!(
        cycles.is_empty(),
        "modules that use each other (move what they share to the lower one, or to a small \
         module both use; docs/architecture.md, \"Inside a layer\"):\n{}",
        cycles.join("\n")
    );
    // The check reads the library: a dozen layers' worth of modules and arrows, not nothing.
    let arrows: usize = graph.edges.values().map(BTreeMap::len).sum();
    assert!(
        graph.edges.len() > 50 && arrows > 150,
        "{} modules, {arrows} arrows",
        graph.edges.len()
    );
}

/// Sources in memory for the checks of the check.
fn planted(files: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
    files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect()
}

#[test]
fn the_cycle_check_finds_a_planted_circle_through_any_kind_of_path() {
    let clean = [
        (
            "x/mod.rs",
            "pub mod a;\npub mod b;\npub mod c;\npub use c::Shared;\n",
        ),
        ("x/a.rs", "use super::b::Thing;\n"),
        (
            "x/b/mod.rs",
            "mod inner;\nuse crate::x::{c::{self, Other}};\n",
        ),
        ("x/b/inner.rs", "pub struct Thing;\n"),
        (
            "x/c.rs",
            "pub struct Shared;\n#[cfg(test)]\nmod tests {\n    use super::super::a;\n}\n",
        ),
    ];
    assert_eq!(
        Graph::of(&planted(&clean[..4])).cycles(),
        Vec::<String>::new(),
        "a -> b -> c is no circle"
    );
    // c's unit test reaches back up to a: a -> b -> c -> a.
    let cycles = Graph::of(&planted(&clean)).cycles();
    assert_eq!(
        cycles,
        [
            "x::a -> x::b (src/x/a.rs line 1), x::b -> x::c (src/x/b/mod.rs line 2), \
          x::c -> x::a (src/x/c.rs line 4)"
        ]
    );
    // Through a re-export of the layer's mod.rs, from a file below a module's folder, in a
    // multi-line group.
    let through_reexport = [
        clean[0],
        clean[1],
        ("x/b/mod.rs", "mod inner;\n"),
        ("x/b/inner.rs", "use crate::x::{\n    Shared,\n};\n"),
        (
            "x/c.rs",
            "fn f() { let _ = self::g(); let _ = crate::x::a::h(); }\n",
        ),
    ];
    let cycles = Graph::of(&planted(&through_reexport)).cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].starts_with("x::a -> x::b"), "{cycles:?}");
    // A path in a comment is not one.
    let commented = [
        clean[0],
        clean[1],
        ("x/b/mod.rs", "// use crate::x::a;\n"),
        clean[3],
    ];
    assert!(Graph::of(&planted(&commented)).cycles().is_empty());
}

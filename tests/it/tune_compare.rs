//! `scripts/tune-compare.py --smoke`: the three tuning methods and their common confirmation
//! tournament end to end with tiny budgets; the table, the CSV and the chart it writes, and
//! that it writes nothing outside its `--out` folder. Skipped (with the reason printed) when
//! `python3` is not installed.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

use assert_cmd::Command;

const METHODS: [&str; 3] = ["hill-climb", "spsa", "regression"];

fn python3() -> Option<PathBuf> {
    let ok = Std::new("python3")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok.then(|| PathBuf::from("python3"))
}

/// Every file and folder under `dir`, relative to it, with its length and modification time.
fn listing(dir: &Path) -> BTreeSet<(PathBuf, u64, Option<std::time::SystemTime>)> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
            }
            out.insert((
                path.strip_prefix(dir).unwrap().to_path_buf(),
                if meta.is_dir() { 0 } else { meta.len() },
                meta.modified().ok(),
            ));
        }
    }
    out
}

/// A number with a sign and a decimal point, as the table writes Elo (`+12.3`, `-4.0`).
fn has_elo(cell: &str) -> bool {
    let b = cell.as_bytes();
    (0..b.len()).any(|i| {
        (b[i] == b'+' || b[i] == b'-')
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
            && cell[i + 1..]
                .split(|c: char| !c.is_ascii_digit() && c != '.')
                .next()
                .is_some_and(|n| n.contains('.'))
    })
}

/// The long suites: ignored by a plain `cargo test`, run by CI (`.ci/run`) and by
/// `cargo test --test it -- --ignored ::long::`.
mod long {
    use super::*;

    #[test]
    #[ignore = "long (CI runs it): cargo test --test it -- --ignored ::long::"]
    fn smoke_comparison_writes_the_table_and_the_chart_inside_out() {
        let Some(python) = python3() else {
            eprintln!("skipped: python3 is not installed (scripts/tune-compare.py needs it)");
            return;
        };
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let script = root.join("scripts/tune-compare.py");
        let dir = common::scratch("smoke");
        let out = dir.join("out");
        // What the script must leave alone: the repository's files it reads, and its folder.
        let watched = [root.join("scripts"), root.join("tournaments/tune-compare")];
        let before: Vec<_> = watched.iter().map(PathBuf::as_path).map(listing).collect();
        let reports_before = root.join("reports/tune-compare").exists();

        let started = std::time::Instant::now();
        let output = Command::new(&python)
            .arg(&script)
            .args(["--smoke", "--joute"])
            .arg(common::bin())
            .arg("--out")
            .arg(&out)
            .current_dir(&*dir)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        eprintln!("smoke comparison: {:.1} s", started.elapsed().as_secs_f64());

        // The table: one row per method, with its CPU minutes and three Elo figures.
        let table = std::fs::read_to_string(out.join("table.md")).unwrap();
        for method in METHODS {
            let row = table
                .lines()
                .find(|l| l.starts_with(&format!("| {method} |")))
                .unwrap_or_else(|| panic!("no row for {method} in\n{table}"));
            let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 7, "{row}");
            assert!(cells[1].contains("games"), "{row}");
            for c in &cells[2..4] {
                assert!(c.parse::<f64>().is_ok_and(|x| x >= 0.0), "{row}");
            }
            for c in &cells[4..7] {
                assert!(has_elo(c), "no Elo in '{c}' of {row}");
            }
        }
        assert!(table.contains("| start"), "{table}");

        // The CSV: the same rows, numbers where the table has them.
        let csv = std::fs::read_to_string(out.join("table.csv")).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        for method in METHODS {
            let row = rows
                .iter()
                .find(|r| r[0] == method)
                .unwrap_or_else(|| panic!("no {method} in\n{csv}"));
            for name in [
                "games",
                "cpu_minutes",
                "wall_minutes",
                "confirm_elo",
                "vs_start_elo",
                "vs_pool_elo",
            ] {
                assert!(
                    row[col(name)].parse::<f64>().is_ok(),
                    "{method} {name}: '{}'",
                    row[col(name)]
                );
            }
            assert!(
                row[col("cpu_minutes")].parse::<f64>().unwrap() > 0.0,
                "{csv}"
            );
        }
        let regression = rows.iter().find(|r| r[0] == "regression").unwrap();
        assert!(
            regression[col("positions")].parse::<u64>().unwrap() > 0,
            "{csv}"
        );

        // The chart: an SVG document that parses, one marker and one legend entry per method.
        let svg = std::fs::read_to_string(out.join("elo-vs-cpu.svg")).unwrap();
        let trimmed = svg.trim();
        assert!(trimmed.starts_with("<svg"), "{svg}");
        assert!(trimmed.ends_with("</svg>"), "{svg}");
        assert_eq!(svg.matches("<circle").count(), METHODS.len(), "{svg}");
        for method in METHODS {
            assert!(svg.contains(&format!("data-method=\"{method}\"")), "{svg}");
            assert!(svg.contains(&format!(">{method}</text>")), "{svg}");
        }
        let tree = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default());
        assert!(tree.is_ok(), "the SVG does not parse: {:?}", tree.err());

        // Nothing outside --out: the scratch folder holds only it, the repository's files are as
        // they were, and no temporary file is left inside.
        let top: Vec<_> = std::fs::read_dir(&*dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(top, vec![std::ffi::OsString::from("out")]);
        for (d, b) in watched.iter().zip(&before) {
            assert_eq!(&listing(d), b, "{} changed", d.display());
        }
        assert_eq!(root.join("reports/tune-compare").exists(), reports_before);
        for (path, _, _) in listing(&out) {
            assert!(
                path.extension().is_none_or(|e| e != "tmp"),
                "left behind: {}",
                path.display()
            );
        }
    }
}

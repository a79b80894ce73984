//! Helpers shared by the command-line test suites.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The joute binary under test.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("joute")
}

/// `path` (relative to the repository's root) as an absolute path.
pub fn manifest(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

/// A fresh folder under the system's temporary directory, removed with everything in it when
/// the value is dropped (a failing test included): `cargo test` leaves nothing behind.
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// A fresh scratch folder named after the suite and the test.
pub fn scratch(suite: &str, name: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("joute-{suite}-{name}-"))
            .tempdir()
            .unwrap(),
    )
}

/// Runs joute with `args`, expects success, and returns its standard output.
pub fn joute_ok(args: &[&str]) -> String {
    let out = Command::cargo_bin("joute")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Writes `text` as `dir/spec.toml`, runs it quietly into `dir/out`, and returns `dir/out`.
pub fn run_spec(dir: &Path, text: &str) -> PathBuf {
    let spec = dir.join("spec.toml");
    std::fs::write(&spec, text).unwrap();
    let out = dir.join("out");
    joute_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    out
}

/// Lines in the file at `path` (0 when it cannot be read).
#[allow(dead_code)]
pub fn lines_in(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

/// Runs `joute ARGS` and SIGKILLs it as soon as `log` holds `target` lines; returns the lines
/// the log held then, or `None` when the run ended before (it is waited for either way).
#[allow(dead_code)]
pub fn kill_at_lines(args: &[&str], log: &Path, target: usize) -> Option<usize> {
    let mut child = std::process::Command::new(bin())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() && lines_in(log) < target {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let killed = child.try_wait().unwrap().is_none().then(|| {
        child.kill().unwrap(); // SIGKILL on Unix: no exit path of joute's runs
        lines_in(log)
    });
    child.wait().unwrap();
    killed
}

/// The Elo of a score, written again for the tests: `-400 log10(1/s - 1)`.
pub fn elo_of_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// A Chromium on PATH (`chromium`, `chromium-browser` or `google-chrome`), if any.
#[allow(dead_code)]
pub fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Loads `url` in headless `browser` with `budget_ms` of virtual time and returns the JSON
/// the report page's self-test wrote into its `<pre id="selftest">`.
#[allow(dead_code)]
pub fn page_selftest(browser: &Path, url: &str, budget_ms: u32) -> serde_json::Value {
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            &format!("--virtual-time-budget={budget_ms}"),
            "--dump-dom",
            url,
        ])
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"selftest\" hidden=\"\">")
        .unwrap_or_else(|| {
            panic!(
                "no self-test in the DOM; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let rest = &dom[start..];
    let text = &rest[rest.find('>').unwrap() + 1..rest.find("</pre>").unwrap()];
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("self-test is not JSON ({e}): {text}"))
}

//! The HTML report: what `index.html` contains, that it is safe against hostile names and makes
//! no network request, and — when a Chromium is installed — that the page works in a real
//! browser: the rating table, the chart containers, the game viewer's board after stepping
//! through an Othello game (checked against joute's own rules) and sorting by a header click;
//! and that the strength-against-cost charts of real runs are in the page and visible.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::Instant;

use joute::games::Game;
use joute::games::othello::Othello;
use joute::report::html::{Timing, write_report};
use joute::report::load::summarize_logs;
use serde_json::Value;

use crate::common::specs::spec;
use crate::common::{self, scratch};

const XSS: &str = "<script>alert(1)</script>";

/// Runs the spec `text` into `dir/out`; returns the log.
fn run(dir: &Path, text: &str) -> PathBuf {
    common::run_spec(dir, text).join("games.jsonl")
}

const SVG_CHART: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100"><rect x="10" y="10" width="80" height="80" fill="#4a90d9"/><text x="100" y="50">elo</text></svg>"##;

/// Runs `text`, writes its report with one chart; returns (html path, log).
/// The report of a run of `text`: the scratch folder (removed when dropped), the page, the log.
fn report(name: &str, text: &str) -> (common::Scratch, PathBuf, PathBuf) {
    let dir = scratch(name);
    let log = run(&dir, text);
    let (_, summary, _) = summarize_logs(std::slice::from_ref(&log)).unwrap();
    let ratings = summary.ratings();
    let charts = vec![("ratings".to_string(), SVG_CHART.to_string())];
    let timing = Some(Timing {
        games: summary.games,
        seconds: 1.5,
        threads: 2,
        sessions: Vec::new(),
        reported_names: Default::default(),
        engines_held: Default::default(),
    });
    let page = write_report(
        &summary,
        &ratings,
        &charts,
        std::slice::from_ref(&log),
        timing,
        &dir.join("out"),
    )
    .unwrap();
    (dir, page, log)
}

fn othello_spec() -> String {
    spec("othello <b>&amp;", "othello", 7, 4, 2)
        .engine(XSS, "random", "")
        .engines(&["ab-1", "ab-2"])
        .text()
}

fn connect4() -> String {
    spec("c4", "connect4", 3, 4, 3)
        .engines(&["random", "ab-1", "ab-3"])
        .text()
}

fn morpion() -> String {
    spec("morpion", "morpion-5x5-4", 5, 2, 3)
        .engines(&["random", "ab-2"])
        .text()
}

/// No resource is fetched from the network: no `src`, `href`, CSS `url()` or `@import` to
/// http(s). (The SVG namespace name `http://www.w3.org/2000/svg` is an identifier, not a fetch.)
fn assert_offline(html: &str) {
    let lower = html.to_ascii_lowercase();
    for bad in [
        "src=\"http",
        "src='http",
        "href=\"http",
        "href='http",
        "url(http",
        "url(\"http",
        "url('http",
        "@import",
        "src=\"//",
        "href=\"//",
    ] {
        assert!(
            !lower.contains(bad),
            "network reference {bad:?} in the page"
        );
    }
    let without_ns = lower.replace("http://www.w3.org/2000/svg", "");
    assert!(
        !without_ns.contains("http://") && !without_ns.contains("https://"),
        "an http(s) address in the page"
    );
}

#[test]
fn report_contains_every_engine_escaped_and_offline() {
    for (name, text) in [
        ("unit-othello", othello_spec()),
        ("unit-c4", connect4()),
        ("unit-morpion", morpion()),
    ] {
        let (_dir, page, _) = report(name, &text);
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(!page.with_extension("html.tmp").exists());
        for engine in ["random", "ab-1", "ab-2", "ab-3"] {
            if text.contains(&format!("\"{engine}\"")) {
                assert!(html.contains(engine), "{name}: {engine} missing");
            }
        }
        for id in [
            "id=\"ratings\"",
            "id=\"crosstable\"",
            "id=\"los\"",
            "id=\"pairs\"",
            "id=\"charts\"",
            "id=\"viewer\"",
            "class=\"chart-svg\"",
            "1.5 s on 2 threads",
        ] {
            assert!(html.contains(id), "{name}: {id} missing");
        }
        assert_offline(&html);
        // One `<script>` for the data and one for the code: no name opened another.
        assert_eq!(html.matches("<script").count(), 2, "{name}");
    }
    let (_dir, page, _) = report("unit-xss", &othello_spec());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains(XSS), "an engine name was not escaped");
    assert!(
        html.contains("&#60;script&#62;alert(1)&#60;/script&#62;")
            || html.contains("&lt;script&gt;alert(1)&lt;/script&gt;")
    );
    assert!(
        !html.contains("othello <b>&amp;"),
        "the run name was not escaped"
    );
}

/// The plain page opens on the run's progress and the ratings, above the spec; the projector
/// view is one link away and is drawn by the page's own script and style (no server needed).
#[test]
fn the_ratings_come_first_and_the_page_carries_the_projector_view() {
    let (_dir, page, log) = report("projector-markup", &connect4());
    let html = std::fs::read_to_string(&page).unwrap();
    let at = |piece: &str| {
        html.find(piece)
            .unwrap_or_else(|| panic!("{piece} not in the page"))
    };
    let order = [
        "<section id=\"progress-section\"",
        "<section id=\"ratings-section\"",
        "<section id=\"spec\"",
        "<table class=\"sortable\" id=\"engines\"",
        "<section id=\"cost-section\"",
        "<section id=\"crosstable-section\"",
        "<section id=\"charts\"",
        "<section id=\"viewer\"",
    ];
    for w in order.windows(2) {
        assert!(at(w[0]) < at(w[1]), "{} is not above {}", w[0], w[1]);
    }
    // Games played of scheduled: the log's lines, of 3 pairings × 3 openings × 2 colours.
    let played = common::lines_in(&log);
    assert!(
        html.contains(&format!(
            "<p id=\"progress\">{played} of 18 games played</p>"
        )),
        "{}",
        &html[at("<section id=\"progress-section\"")..at("<section id=\"ratings-section\"")]
    );
    assert!(html.contains("<a href=\"?view=ratings\" id=\"to-projector\">projector view</a>"));
    assert!(html.contains("id=\"to-full\">full report</a>"));
    assert!(html.contains(
        "body.projector section:not(#progress-section):not(#ratings-section) { display: none; }"
    ));
    assert!(html.contains("view=ratings($|[&#,])/.test(location.search + location.hash)"));
    assert_offline(&html);
}

/// The engines table says when each built-in engine's solver takes over, so that comparing
/// `pvs:5` with `alphabeta:5` in Connect 4 is seen to compare a solving engine with one that
/// never solves.
#[test]
fn the_engines_table_shows_each_engines_exact_endgame() {
    let spec = "name = \"exact\"\ngame = \"connect4\"\nseed = 3\nopenings = { plies = 4, count = 1 }\n\
                [[engine]]\nname = \"pvs-5\"\nalgorithm = \"pvs\"\ndepth = 5\n\
                [[engine]]\nname = \"ab-5\"\nalgorithm = \"alphabeta\"\ndepth = 5\n\
                [[engine]]\nname = \"pvs-5-off\"\nalgorithm = \"pvs\"\ndepth = 5\nexact = 0\n";
    let (_dir, page, _) = report("exact-column", spec);
    let html = std::fs::read_to_string(&page).unwrap();
    let table = &html[html.find("id=\"engines\"").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    assert!(table.contains(">Exact</th>"), "{table}");
    let row = |name: &str| {
        let at = table.find(&format!("<td>{name}</td>")).unwrap();
        table[at..at + table[at..].find("</tr>").unwrap()].to_string()
    };
    // Connect 4's default for pvs at depth 5: 2·5 + 4 empty cells.
    assert!(
        row("pvs-5").contains("<td>from 14 empties</td>"),
        "{}",
        row("pvs-5")
    );
    assert!(row("ab-5").contains("<td>never</td>"), "{}", row("ab-5"));
    assert!(
        row("pvs-5-off").contains("<td>never</td>"),
        "{}",
        row("pvs-5-off")
    );
}

#[test]
fn the_viewer_is_told_the_gomoku_rule() {
    for (game, rule) in [
        ("morpion-7x7-5-renju", "renju"),
        ("morpion-7x7-5-exact", "exact"),
        ("morpion-7x7-5", "freestyle"),
    ] {
        let (_dir, page, _) = report("unit-rule", &morpion().replace("morpion-5x5-4", game));
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.contains(&format!("\"rule\":\"{rule}\"")), "{game}");
        assert!(
            html.contains("may not make an overline"),
            "{game}: the viewer's rules"
        );
    }
}

/// The first browser binary on PATH.
#[test]
fn the_sprt_and_its_decision_are_on_the_page() {
    let text = spec("sprt", "connect4", 3, 4, 400)
        .engines(&["ab-5", "ab-3"])
        .with("\n[sprt]\nelo0 = 0\nelo1 = 50\nalpha = 0.05\nbeta = 0.1\n")
        .text();
    let (_dir, page, log) = report("unit-sprt", &text);
    let html = std::fs::read_to_string(&page).unwrap();
    let (_, summary, _) = summarize_logs(std::slice::from_ref(&log)).unwrap();
    let decided = summary
        .decision()
        .expect("the test decides well before 400 pairs");
    // The spec table names the test, the section gives every part of it.
    assert!(
        html.contains("<tr><th>sprt</th><td>elo0, elo1 = [0.00, 50.00], α = 0.05, β = 0.1, logistic Elo</td></tr>"),
        "spec table"
    );
    let section = &html[html.find("id=\"sprt-section\"").expect("an SPRT section")..];
    let section = &section[..section.find("</section>").unwrap()];
    let test = summary.spec.sprt.unwrap();
    for piece in [
        "H0: the first engine is 0.00 stronger; H1: it is 50.00 stronger (logistic Elo)",
        "α = 0.05 (false H1), β = 0.1 (false H0)",
        &format!(
            "{:.2}, bounds ({:.2}, {:.2})",
            decided.llr,
            ((0.1f64) / (1.0 - 0.05)).ln(),
            ((1.0f64 - 0.1) / 0.05).ln()
        ),
        &format!("<td>{}</td>", decided.pairs),
    ] {
        assert!(section.contains(piece), "'{piece}' not in {section}");
    }
    assert!((test.lower() - (0.1f64 / 0.95).ln()).abs() < 1e-12);
    let verdict = match decided.decision {
        joute::stats::sprt::Decision::H1 => "H1 accepted after",
        _ => "H0 accepted after",
    };
    assert!(section.contains(verdict), "{section}");
}

use common::browser;

/// Loads `page#fragment` headless and returns the self-test JSON the page wrote.
fn selftest(browser: &Path, page: &Path, fragment: &str) -> Value {
    let url = format!(
        "file://{}#{fragment}",
        page.canonicalize().unwrap().display()
    );
    common::page_selftest(browser, &url, 5000)
}

#[test]
#[ignore = "needs a headless Chromium (Debian: apt-get install chromium); run it with: cargo test --test it html:: -- --include-ignored"]
fn report_works_in_a_browser() {
    let Some(browser) = browser() else {
        panic!(
            "no chromium, chromium-browser or google-chrome on PATH: install one (Debian: apt-get install chromium) to run this test"
        );
    };
    let (_dir, page, log) = report("browser-othello", &othello_spec());
    let plies = 10;
    let game_id = 5;
    let t = selftest(
        &browser,
        &page,
        &format!("test=game:{game_id},plies:{plies},sort:elo"),
    );
    assert_eq!(t["ok"], true, "{t}");
    assert_eq!(
        t["errors"].as_array().unwrap().len(),
        0,
        "script errors: {t}"
    );

    // The rating table lists every engine.
    let ratings: Vec<&str> = t["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut sorted = ratings.clone();
    sorted.sort();
    assert_eq!(sorted, vec![XSS, "ab-1", "ab-2"]);
    // The chart container and its SVG.
    assert_eq!(t["charts"], 1);
    assert_eq!(t["chartSvgs"], 1);

    // The board after 10 plies of game 5, replayed independently with joute's rules.
    let mut game = None;
    joute::arena::log::scan_log(&log, |g| {
        if g.id == game_id {
            game = Some(g);
        }
        Ok(())
    })
    .unwrap();
    let game = game.expect("game 5 in the log");
    let moves: Vec<String> = game.opening.iter().chain(&game.moves).cloned().collect();
    let mut pos = Othello::start();
    for m in &moves[..plies] {
        pos = pos.play(pos.parse_move(m).unwrap());
    }
    let expected = &pos.to_board_string()[..64];
    assert_eq!(t["game"], game_id);
    assert_eq!(t["ply"], plies);
    assert_eq!(t["cells"].as_str().unwrap(), expected, "{t}");
    assert_eq!(t["openingPlies"], game.opening.len());
    assert!(t["openingMarks"].as_u64().unwrap() > 0, "{t}");

    // The viewer: the buttons draw SVG icons; 40 plies into a game the move list wraps in its
    // box, the page has no horizontal scrollbar, and the current move is in view.
    assert_eq!(t["iconButtons"], 5, "{t}");
    let deep = selftest(&browser, &page, &format!("test=game:{game_id},plies:40"));
    assert_eq!(deep["ok"], true, "{deep}");
    assert_eq!(deep["ply"], 40.min(moves.len()), "{deep}");
    assert_eq!(deep["movesWrap"], true, "{deep}");
    assert_eq!(deep["pageWide"], false, "{deep}");
    assert_eq!(deep["curVisible"], true, "{deep}");

    // Clicking the Elo header re-sorts the table (ascending; it was ranked best first).
    let keys: Vec<f64> = t["sortKeys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{t}");
    let before = t["sortBefore"].as_array().unwrap();
    let after = t["sortAfter"].as_array().unwrap();
    assert_eq!(before.len(), after.len());
    if keys.first() != keys.last() {
        assert_ne!(before, after, "the header click did not re-sort: {t}");
    }

    // The other boards load and step without script errors; and a screenshot for people.
    for (name, spec) in [("browser-c4", connect4()), ("browser-morpion", morpion())] {
        let (_dir, page, _) = report(name, &spec);
        let t = selftest(&browser, &page, "test=game:3,plies:6,sort:name");
        assert_eq!(t["ok"], true, "{name}: {t}");
        assert_eq!(t["errors"].as_array().unwrap().len(), 0, "{name}: {t}");
        let stones = t["cells"]
            .as_str()
            .unwrap()
            .chars()
            .filter(|&c| c != '-')
            .count();
        assert_eq!(stones, 6, "{name}: {t}");
        // Move numbers stand apart from the moves ("1. 4 6", not "1.4 6").
        assert_eq!(
            t["moveNumbers"],
            serde_json::json!(["1.", "2.", "3."]),
            "{name}: {t}"
        );
        assert!(
            t["moveTexts"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| !m.as_str().unwrap().contains('.')),
            "{name}: {t}"
        );
    }
    let shot = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report-screenshot.png");
    let status = screenshot(&browser, &page, "test=game:5,plies:10", 2000, &shot);
    assert!(status.status.success());
    assert!(shot.exists());
}

/// Loads the page file `page` at `#FRAGMENT` in headless `browser`, 1280 wide and `height`
/// high with 5 s of virtual time, and writes its screenshot to `shot`.
fn screenshot(
    browser: &Path,
    page: &Path,
    fragment: &str,
    height: u32,
    shot: &Path,
) -> std::process::Output {
    let url = format!(
        "file://{}#{fragment}",
        page.canonicalize().unwrap().display()
    );
    Process::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--virtual-time-budget=5000",
            &format!("--window-size=1280,{height}"),
        ])
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .unwrap()
}

/// Appended to a copy of a report page: after the page's own self-test, adds what each chart
/// looks like as drawn (its box, whether it is shown, its texts) to the self-test's JSON. With
/// `shot` in the address it then hides the page's other sections and the charts before
/// `elo-by-nodes`, so that a screenshot from the top shows the strength-against-cost charts as
/// the page lays them out (headless Chromium's `--screenshot` paints nothing once scrolled).
const CHART_PROBE: &str = r##"<script>
(function () {
  var pre = document.getElementById("selftest");
  var out = JSON.parse(pre.textContent || "{}");
  out.chartBoxes = {};
  var first = null;
  document.querySelectorAll("#charts figure").forEach(function (f) {
    var caption = f.querySelector("figcaption"), svg = f.querySelector("svg");
    if (!caption || !svg) return;
    var name = caption.textContent.trim(), box = svg.getBoundingClientRect();
    var style = getComputedStyle(svg);
    out.chartBoxes[name] = {
      width: box.width,
      height: box.height,
      shown: style.display !== "none" && style.visibility !== "hidden" && +style.opacity > 0,
      texts: Array.prototype.map.call(svg.querySelectorAll("text"), function (t) {
        return t.textContent.trim();
      })
    };
    if (name === "elo-by-nodes" && !first) first = f;
  });
  if (/shot/.test(location.hash) && first) {
    Array.prototype.forEach.call(document.body.children, function (e) {
      if (e.id !== "charts") e.style.display = "none";
    });
    for (var e = first.previousElementSibling; e; e = e.previousElementSibling) {
      if (e.tagName === "FIGURE") e.style.display = "none";
    }
  }
  pre.textContent = JSON.stringify(out);
})();
</script>
"##;

/// The variance of a PNG's grey levels (a blank picture has none).
fn grey_variance(path: &Path) -> f64 {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let grey: Vec<f64> = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| {
            p[..channels.min(3)].iter().map(|&c| c as f64).sum::<f64>() / channels.min(3) as f64
        })
        .collect();
    let mean = grey.iter().sum::<f64>() / grey.len().max(1) as f64;
    grey.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / grey.len().max(1) as f64
}

/// The strength-against-cost charts of the quickstart and of a small Othello tournament, run
/// by the binary, in the report as Chromium draws it: both charts are in the page, shown, of
/// their proportions and a readable size, with every engine's name (on the chart or in its
/// note). For people to look at, `target/cost-charts/` receives a screenshot of each page at
/// those charts (`NAME-page.png`) and the run's cost charts (`NAME-CHART.png`).
#[test]
#[ignore = "needs a headless Chromium (Debian: apt-get install chromium); run it with: cargo test --test it html:: -- --include-ignored"]
fn cost_charts_are_visible_in_a_browser() {
    let Some(browser) = browser() else {
        panic!(
            "no chromium, chromium-browser or google-chrome on PATH: install one (Debian: apt-get install chromium) to run this test"
        );
    };
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/cost-charts");
    std::fs::create_dir_all(&shots).unwrap();
    let quickstart = common::manifest("tournaments/quickstart.toml");
    for (name, spec) in [
        ("quickstart", std::fs::read_to_string(&quickstart).unwrap()),
        ("othello", common::OTHELLO_COSTS.to_string()),
    ] {
        let dir = scratch(name);
        let out = common::run_spec(&dir, &spec);
        let (_, summary, _) = summarize_logs(&[out.join("games.jsonl")]).unwrap();
        let html = std::fs::read_to_string(out.join("index.html")).unwrap();
        let end = html.rfind("</body>").expect("the page ends its body");
        let probe = out.join("probe.html");
        std::fs::write(
            &probe,
            format!("{}{CHART_PROBE}{}", &html[..end], &html[end..]),
        )
        .unwrap();

        let t = selftest(&browser, &probe, "test=charts");
        assert_eq!(t["ok"], true, "{name}: {t}");
        assert_eq!(t["errors"].as_array().unwrap().len(), 0, "{name}: {t}");
        let boxes = &t["chartBoxes"];
        for chart in ["elo-by-nodes", "elo-by-time"] {
            let b = &boxes[chart];
            assert!(
                b.is_object(),
                "{name}: no {chart} chart in the page: {boxes}"
            );
            assert_eq!(b["shown"], true, "{name}: {chart} hidden: {b}");
            let (w, h) = (b["width"].as_f64().unwrap(), b["height"].as_f64().unwrap());
            // Drawn at its size (900×560) or scaled down to the page, never squashed.
            assert!(w >= 600.0 && h >= 300.0, "{name}: {chart} is {w}×{h}");
            assert!(
                (w / h - 900.0 / 560.0).abs() < 0.02,
                "{name}: {chart} is {w}×{h}"
            );
            let texts: Vec<&str> = b["texts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            for engine in summary.spec.engine_names() {
                assert!(
                    texts.iter().any(|t| t.contains(engine.as_str())),
                    "{name}: {chart} does not name {engine}: {texts:?}"
                );
            }
            assert!(
                texts.iter().any(|t| t.starts_with("frontier")),
                "{name}: {chart}: {texts:?}"
            );
        }
        // The cost by ply charts are there too.
        for chart in ["nodes-by-ply", "time-by-ply"] {
            assert!(
                boxes[chart]["width"].as_f64().unwrap() > 0.0,
                "{name}: {chart}"
            );
        }

        let shot = shots.join(format!("{name}-page.png"));
        let _ = std::fs::remove_file(&shot);
        let status = screenshot(&browser, &probe, "test=charts,shot", 1300, &shot);
        assert!(status.status.success(), "{name}: {status:?}");
        let variance = grey_variance(&shot);
        assert!(
            variance > 100.0,
            "{name}: a blank screenshot? grey variance {variance}"
        );
        for chart in ["elo-by-nodes", "elo-by-time", "nodes-by-ply", "time-by-ply"] {
            std::fs::copy(
                out.join(format!("{chart}.png")),
                shots.join(format!("{name}-{chart}.png")),
            )
            .unwrap();
        }
    }
}

/// A 20,000-game report renders in under 5 s and stays under 10 MB (run with `--ignored`).
#[test]
#[ignore = "plays 20,000 games; run with --ignored to measure"]
fn large_report_is_fast_and_small() {
    let dir = scratch("large");
    let log = run(
        &dir,
        &spec("large", "connect4", 1, 8, 10000)
            .engines(&["ab-1", "random"])
            .text(),
    );
    let start = Instant::now();
    let (_, summary, _) = summarize_logs(std::slice::from_ref(&log)).unwrap();
    let ratings = summary.ratings();
    let page = write_report(
        &summary,
        &ratings,
        &[],
        std::slice::from_ref(&log),
        None,
        &dir.join("out"),
    )
    .unwrap();
    let seconds = start.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&page).unwrap().len();
    eprintln!(
        "20,000-game report: {} games, {seconds:.3} s (load + render + write), {bytes} bytes",
        summary.games
    );
    assert_eq!(summary.games, 20_000);
    assert!(seconds < 5.0, "{seconds} s");
    assert!(bytes < 10_000_000, "{bytes} bytes");
    // The last game is reachable in the viewer (past the list's first 2,000 entries).
    if let Some(browser) = browser() {
        let start = Instant::now();
        let t = selftest(&browser, &page, "test=game:19999,plies:10,sort:elo");
        eprintln!(
            "browser: page loaded, game 19999 stepped and table sorted in {:.2} s (whole headless run)",
            start.elapsed().as_secs_f64()
        );
        assert_eq!(t["ok"], true, "{t}");
        assert_eq!(t["errors"].as_array().unwrap().len(), 0, "{t}");
        assert_eq!(t["game"], 19999, "{t}");
        assert_eq!(t["games"], 20_000);
    }
}

/// Loads `url` headless at `width`×`height` and returns the self-test JSON.
fn selftest_at(browser: &Path, url: &str, width: u32, height: u32) -> Value {
    let out = Process::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--virtual-time-budget=5000",
            &format!("--window-size={width},{height}"),
            "--dump-dom",
            url,
        ])
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"selftest\" hidden=\"\">")
        .expect("a self-test");
    let rest = &dom[start..];
    let text = &rest[rest.find('>').unwrap() + 1..rest.find("</pre>").unwrap()];
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
#[ignore = "needs a headless Chromium (Debian: apt-get install chromium); run it with: cargo test --test it html:: -- --include-ignored"]
fn the_projector_view_shows_the_ratings_large_and_hides_the_rest() {
    let Some(browser) = browser() else {
        panic!(
            "no chromium, chromium-browser or google-chrome on PATH: install one (Debian: apt-get install chromium) to run this test"
        );
    };
    let (_dir, page, _) = report("projector-browser", &connect4());
    let file = format!("file://{}", page.canonicalize().unwrap().display());
    let plain = selftest_at(&browser, &format!("{file}#test=view"), 1920, 1080);
    assert_eq!(plain["ok"], true, "{plain}");
    assert_eq!(plain["projector"], false, "{plain}");
    for id in [
        "progress-section",
        "ratings-section",
        "spec",
        "charts",
        "viewer",
    ] {
        assert_eq!(plain["shown"][id], true, "{id}: {plain}");
    }
    let body = plain["bodyFontPx"].as_f64().unwrap();
    // The query, as the page's link writes it, and the fragment alike; on a projector and on
    // a small laptop's screen.
    for (url, width, height) in [
        (format!("{file}?view=ratings#test=view"), 1920, 1080),
        (format!("{file}#test=view&view=ratings"), 1920, 1080),
        (format!("{file}?view=ratings#test=view"), 1366, 768),
    ] {
        let t = selftest_at(&browser, &url, width, height);
        assert_eq!(t["ok"], true, "{url}: {t}");
        assert_eq!(t["errors"].as_array().unwrap().len(), 0, "{url}: {t}");
        assert_eq!(t["projector"], true, "{url}: {t}");
        for id in ["progress-section", "ratings-section"] {
            assert_eq!(t["shown"][id], true, "{url} {id}: {t}");
        }
        for id in [
            "spec",
            "cost-section",
            "crosstable-section",
            "charts",
            "viewer",
        ] {
            assert_eq!(t["shown"][id], false, "{url} {id}: {t}");
        }
        // Large type: at least twice the plain page's.
        let big = t["ratingsFontPx"].as_f64().unwrap();
        assert!(big >= 2.0 * body, "{url}: {big} px against {body} px");
        assert_eq!(t["overflow"], false, "{url}: {t}");
        assert_eq!(t["ratings"].as_array().unwrap().len(), 3, "{url}: {t}");
    }
    // Pictures to look at: target/projector-1920.png, target/projector-1366.png.
    for (width, height) in [(1920, 1080), (1366, 768)] {
        let shot =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("target/projector-{width}.png"));
        let status = Process::new(&browser)
            .args([
                "--headless",
                "--disable-gpu",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--virtual-time-budget=5000",
                &format!("--window-size={width},{height}"),
            ])
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("{file}?view=ratings"))
            .output()
            .unwrap();
        assert!(status.status.success());
        assert!(grey_variance(&shot) > 0.0, "{} is blank", shot.display());
    }
}

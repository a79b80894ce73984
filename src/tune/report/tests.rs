//! Tests of the tuning report: every chart decoded and checked, the page's text, hostile names.
use super::*;
use crate::stats::sprt::Sprt;

/// A fresh, empty scratch folder, removed when dropped (even when a check fails).
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("joute-tune-report-{name}-"))
        .tempdir()
        .unwrap()
}

fn params(hostile: bool) -> Vec<Param> {
    vec![
        Param::new("corners", 30.0, 0.0, 60.0, 4.0),
        Param::new(
            if hostile {
                "<script>alert(1)</script>"
            } else {
                "mobility"
            },
            5.0,
            0.0,
            20.0,
            1.0,
        ),
        Param::new("parity & \"edges\"", 3.0, 0.0, 6.0, 0.5),
    ]
}

fn confirmation(elo: f64, error: f64) -> MatchResult {
    MatchResult {
        games: 400,
        wins: 170,
        draws: 90,
        losses: 140,
        pentanomial: [12, 40, 70, 50, 28],
        elo,
        error,
        los: 0.987,
        report: "confirmation/index.html".into(),
        cost: Vec::new(),
        skipped: None,
    }
}

/// A hill climb of 60 candidates, every 7th accepted; the last parameter ends at its max.
fn hill_record(hostile: bool) -> TuneRecord {
    let params = params(hostile);
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
        model: Default::default(),
    };
    let mut theta: Vec<f64> = params.iter().map(|p| p.value).collect();
    let mut steps: Vec<f64> = params.iter().map(|p| p.step).collect();
    let mut history = Vec::new();
    let mut games_total = 0;
    for k in 1..=60u64 {
        let i = (k as usize) % params.len();
        let accepted = k.is_multiple_of(7);
        let mut candidate = theta.clone();
        candidate[i] = params[i].clamp(candidate[i] + steps[i]);
        let opponent = theta.clone();
        if accepted {
            theta = candidate.clone();
            steps[i] *= 1.25;
        } else if k.is_multiple_of(5) {
            steps[i] *= 0.5;
        }
        let pairs = 20 + k % 13;
        games_total += 2 * pairs;
        history.push(HistoryLine {
            k,
            method: "hill-climb".into(),
            candidate,
            opponent,
            moved: vec![i],
            pairs,
            games: 2 * pairs,
            wins: pairs / 2 + pairs / 4 + k % 3,
            draws: pairs / 2,
            losses: 2 * pairs - pairs / 2 - (pairs / 2 + pairs / 4 + k % 3),
            pentanomial: [1, 3, pairs - 9, 3, 2],
            llr: Some(if accepted {
                3.1
            } else {
                -3.0 + (k % 11) as f64 * 0.4
            }),
            elo: if accepted {
                15.0 + k as f64 / 10.0
            } else {
                -4.0
            },
            elo_error: 12.5,
            accepted,
            theta: theta.clone(),
            steps: steps.clone(),
            games_total,
            seconds: k as f64 * 2.5,
            fit: None,
        });
    }
    let mut tuned = theta;
    tuned[2] = params[2].max;
    TuneRecord {
        name: if hostile {
            "<script>alert(1)</script>".into()
        } else {
            "othello-hill".into()
        },
        game: "othello".into(),
        method: "hill-climb".into(),
        engine: "alphabeta depth 3".into(),
        opponent: "incumbent".into(),
        seed: 42,
        params,
        tuned,
        tuned_endgame: None,
        sprt: Some(sprt),
        history,
        confirmation: Some(confirmation(23.4, 11.2)),
        aa: Some(confirmation(1.5, 9.0)),
        aa_check: None,
        weights_file: "weights/othello-tuned.toml".into(),
        games: games_total + 400 + 400,
        seconds: 3725.0,
        outside: None,
    }
}

/// An SPSA run of 30 iterations, no confirmation yet.
fn spsa_record() -> TuneRecord {
    let params = params(false);
    let mut theta: Vec<f64> = params.iter().map(|p| p.value).collect();
    let mut history = Vec::new();
    for k in 1..=30u64 {
        let c: Vec<f64> = params
            .iter()
            .map(|p| p.step * 2.0 / (k as f64).powf(0.101))
            .collect();
        for (j, (x, p)) in theta.iter_mut().zip(&params).enumerate() {
            *x = p.clamp(
                *x + if (k + j as u64).is_multiple_of(3) {
                    -0.4
                } else {
                    0.3
                },
            );
        }
        history.push(HistoryLine {
            k,
            method: "spsa".into(),
            candidate: theta.iter().zip(&c).map(|(x, c)| x + c).collect(),
            opponent: theta.iter().zip(&c).map(|(x, c)| x - c).collect(),
            moved: (0..params.len()).collect(),
            pairs: 8,
            games: 16,
            wins: 6,
            draws: 4,
            losses: 6,
            pentanomial: [1, 1, 4, 1, 1],
            llr: None,
            elo: 0.0,
            elo_error: 60.0,
            accepted: false,
            theta: theta.clone(),
            steps: c,
            games_total: 16 * k,
            seconds: k as f64,
            fit: None,
        });
    }
    TuneRecord {
        name: "othello-spsa".into(),
        game: "othello".into(),
        method: "spsa".into(),
        engine: "alphabeta depth 2".into(),
        opponent: "pool: random, alphabeta depth 1".into(),
        seed: 7,
        tuned: theta,
        tuned_endgame: None,
        params,
        sprt: None,
        history,
        confirmation: None,
        aa: None,
        aa_check: None,
        weights_file: "weights/spsa.toml".into(),
        games: 480,
        seconds: 42.0,
        outside: None,
    }
}

/// Width, height and the variance of the grey level of a PNG.
fn decode(path: &Path) -> (u32, u32, f64) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "{}", path.display());
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("{}: colour type {other:?}", path.display()),
    };
    let grey: Vec<f64> = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| (p[0] as f64 + p[1] as f64 + p[2] as f64) / 3.0)
        .collect();
    let mean = grey.iter().sum::<f64>() / grey.len() as f64;
    let variance = grey.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / grey.len() as f64;
    (info.width, info.height, variance)
}

/// Writes the report of `record` into a scratch folder and checks every file: the charts
/// `expected`, each PNG decoding at its size and not blank, each SVG as in memory, no
/// temporary file left. Returns index.html's text.
fn check_report(record: &TuneRecord, expected: &[&str], name: &str) -> String {
    let scratch = scratch(name);
    let dir = scratch.path().to_path_buf();
    let written = write_tune_report(record, &dir).unwrap();
    assert_eq!(tune_chart_names(record), expected);
    let mut want: Vec<PathBuf> = expected
        .iter()
        .flat_map(|c| [dir.join(format!("{c}.png")), dir.join(format!("{c}.svg"))])
        .collect();
    want.push(dir.join("index.html"));
    assert_eq!(written, want);
    let mut on_disk: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    on_disk.sort();
    want.sort();
    assert_eq!(on_disk, want, "only the report's files, no temporary ones");

    let svgs = tune_svg_charts(record).unwrap();
    let names: Vec<&str> = svgs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, expected);
    for (kind, (chart, svg)) in kinds(record).into_iter().zip(&svgs) {
        let (w, h, variance) = decode(&dir.join(format!("{chart}.png")));
        let (sw, sh) = kind.size(record);
        assert_eq!(
            (w, h),
            (2 * sw, 2 * sh),
            "{chart}: the SVG at twice its size"
        );
        assert!(variance > 100.0, "{chart}: blank? grey variance {variance}");
        let on_disk = std::fs::read_to_string(dir.join(format!("{chart}.svg"))).unwrap();
        assert_eq!(
            &on_disk, svg,
            "{chart}: the SVG written is the one in memory"
        );
        assert!(svg.starts_with("<svg"), "{chart}");
    }
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert_eq!(html, render_tune(record, &svgs).unwrap());
    html
}

/// How plotters' SVG backend writes `s` in a text element.
fn svg_escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

#[test]
fn hill_climb_charts_files_and_page() {
    let record = hill_record(false);
    let html = check_report(
        &record,
        &["tune-elo", "tune-weights", "tune-steps", "tune-llr"],
        "hill",
    );
    // Summary and confirmation.
    assert!(html.contains("<title>joute tuning — othello-hill</title>"));
    assert!(html.contains("alphabeta depth 3"));
    assert!(html.contains("8 of 60 (13.3%)"), "accepted");
    assert!(html.contains("1 h 02 min"), "time");
    assert!(html.contains("Elo <b>+23.4 ± 11.2</b> (95%), LOS 98.7%, W/D/L 170/90/140"));
    assert!(html.contains("LL 12, LD 40, WL+DD 70, WD 50, WW 28, 400 games"));
    assert!(html.contains("confirmed: the 95% interval is above 0."));
    assert!(html.contains(r#"<a href="confirmation/index.html">"#));
    assert!(html.contains("consistent with 0"), "A/A verdict");
    // Every parameter's row, the last one flagged at its max.
    for p in &record.params {
        let name = askama_escaped(&p.name);
        assert!(
            html.contains(&format!("<td class=\"name\">{name}</td>")),
            "{name}"
        );
    }
    assert_eq!(html.matches("at bound (max)").count(), 1);
    assert!(html.contains("<td class=\"flag\">at bound (max)</td>"));
    // History: all 60, newest first, with the moved parameter by name.
    let newest = html.find("<td>60</td>").unwrap();
    let oldest = html.find("<tr><td>1</td>").unwrap();
    assert!(newest < oldest);
    assert!(html.contains("All 60 candidates"));
    // Charts inlined, every parameter named in the weights and steps charts.
    let svgs = tune_svg_charts(&record).unwrap();
    for (chart, svg) in &svgs {
        assert!(html.contains(svg.as_str()), "{chart} inlined");
        if chart == "tune-weights" || chart == "tune-steps" {
            for p in &record.params {
                assert!(svg.contains(&svg_escaped(&p.name)), "{chart}: {}", p.name);
            }
        }
    }
    let llr = &svgs[3].1;
    let sprt = record.sprt.unwrap();
    assert!(llr.contains(&format!("{:.2}", sprt.upper())));
    assert!(llr.contains(&format!("{:.2}", sprt.lower())));
    assert!(svgs[0].1.contains("confirmed 23.4 ± 11.2"));
    assert!(svgs[0].1.contains("over-estimates"));
}

/// How askama writes `s` in text.
fn askama_escaped(s: &str) -> String {
    s.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

#[test]
fn spsa_charts_files_and_page() {
    let record = spsa_record();
    let html = check_report(&record, &["tune-weights", "tune-steps"], "spsa");
    assert!(html.contains("No confirmation match has been played."));
    // An iteration is no candidate: no Elo, no verdict, but θ and where it moved.
    for header in ["<th>Accepted</th>", "<th>Elo</th>", "<th>LLR</th>"] {
        assert!(!html.contains(header), "{header} in an SPSA history");
    }
    assert!(html.contains("<th>θ after (change)</th>"));
    assert!(html.contains("nothing is accepted or rejected"));
    // The newest iteration's θ with the change from the one before, computed here.
    let last = &record.history[29];
    let before = &record.history[28];
    let expected = record
        .params
        .iter()
        .zip(last.theta.iter().zip(&before.theta))
        .map(|(p, (now, was))| format!("{} {now:.2} ({:+.2})", askama_escaped(&p.name), now - was))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(html.contains(&expected), "{expected}");
    for (chart, svg) in tune_svg_charts(&record).unwrap() {
        for p in &record.params {
            assert!(svg.contains(&svg_escaped(&p.name)), "{chart}: {}", p.name);
        }
    }
}

#[test]
fn svg_is_byte_stable() {
    let record = hill_record(false);
    assert_eq!(
        tune_svg_charts(&record).unwrap(),
        tune_svg_charts(&record).unwrap()
    );
}

#[test]
fn hostile_names_are_escaped() {
    let record = hill_record(true);
    let svgs = tune_svg_charts(&record).unwrap();
    for (chart, svg) in &svgs {
        assert!(!svg.contains("<script"), "{chart}");
        assert!(!svg.contains("parity & "), "{chart}: a bare &");
    }
    let html = render_tune(&record, &svgs).unwrap();
    assert!(!html.contains("<script"), "no script at all in the page");
    assert!(!html.contains("parity & "));
    let hostile = askama_escaped("<script>alert(1)</script>");
    assert_eq!(hostile, "&#60;script&#62;alert(1)&#60;/script&#62;");
    assert!(html.contains(&format!("<title>joute tuning — {hostile}</title>")));
    assert!(html.contains(&format!("<td class=\"name\">{hostile}</td>")));
    assert!(html.contains(&format!("<td class=\"moved\">{hostile}</td>")));
    assert!(html.contains(&askama_escaped("parity & \"edges\"")));
    assert!(svgs[1].1.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
}

#[test]
fn empty_history_and_no_confirmation() {
    let mut record = hill_record(false);
    record.history.clear();
    record.confirmation = None;
    record.aa = None;
    record.tuned = record.params.iter().map(|p| p.value).collect();
    let html = check_report(
        &record,
        &["tune-elo", "tune-weights", "tune-steps"],
        "empty",
    );
    assert!(html.contains("No confirmation match has been played."));
    assert!(html.contains("No candidate has been tested yet."));
    assert!(html.contains("0 of 0"));
    assert!(!html.contains("class=\"flag\">at bound"));
    assert!(!html.contains("class=\"at-bound\""));

    let mut spsa = spsa_record();
    spsa.history.clear();
    check_report(&spsa, &["tune-weights"], "empty-spsa");

    // A confirmation without history: the point at 0 games.
    record.confirmation = Some(confirmation(-30.0, 12.0));
    let html = check_report(
        &record,
        &["tune-elo", "tune-weights", "tune-steps"],
        "confirmed-only",
    );
    assert!(html.contains("not confirmed: the 95% interval is below 0"));
}

#[test]
fn long_history_shows_the_newest_200() {
    let mut record = hill_record(false);
    let template = record.history[0].clone();
    record.history = (1..=250u64)
        .map(|k| HistoryLine {
            k,
            ..template.clone()
        })
        .collect();
    let html = render_tune(&record, &[]).unwrap();
    assert!(html.contains("The last 200 of 250 candidates"));
    assert!(html.contains("the 50 earlier ones are in history.jsonl"));
    assert!(html.contains("<td>250</td>"));
    assert!(html.contains("<td>51</td>"));
    assert!(!html.contains("<td>50</td>"));
    assert!(html.contains("No charts."));
}

#[test]
fn the_live_page_is_the_report_with_its_script_and_the_current_weights() {
    let mut record = hill_record(false);
    let svgs = tune_svg_charts(&record).unwrap();
    let still = render_tune(&record, &svgs).unwrap();
    let live = render_tune_live(&record, &svgs).unwrap();
    assert!(!still.contains("data-live") && !still.contains("<script"));
    assert!(still.contains("<h2>Final weights</h2>") && still.contains("<th>weights written</th>"));
    // A finished run: the same page, marked live, with the script and its status line.
    assert!(live.contains("<body data-live>") && live.contains("id=\"live-status\""));
    assert!(live.contains("<h2>Final weights</h2>"));
    assert!(live.contains(include_str!("../../../templates/tune.js")));
    assert!(live.contains("function jouteFollow("));
    let strip = |page: &str| {
        let from = page.find("<pre id=\"selftest\"").unwrap();
        page[..from].replace(" data-live", "").replace(
            "<p class=\"live\" id=\"live-status\">live: waiting for the run</p>\n",
            "",
        )
    };
    assert_eq!(strip(&live), still[..still.find("</body>").unwrap()]);
    // A run under way (no confirmation yet): its weights are the current ones.
    record.confirmation = None;
    let live = render_tune_live(&record, &[]).unwrap();
    let n = record.history.len();
    assert!(
        live.contains(&format!(
            "<h2>Current weights (after {n} candidates; final when the run ends)</h2>"
        )),
        "{live}"
    );
    assert!(live.contains("<th>weights to be written</th>"));
    assert!(live.contains("No confirmation match has been played."));
    let still = render_tune(&record, &[]).unwrap();
    assert!(still.contains("<h2>Final weights</h2>"));
}

#[test]
fn running_sum_and_acceptance() {
    let record = hill_record(false);
    let path = running_elo(&record.history);
    let sum: f64 = record
        .history
        .iter()
        .filter(|h| h.accepted)
        .map(|h| h.elo)
        .sum();
    assert_eq!(path.first(), Some(&(0.0, 0.0)));
    let last = path.last().unwrap();
    assert_eq!(last.0, record.history.last().unwrap().games_total as f64);
    assert!((last.1 - sum).abs() < 1e-9);
    // Steps only: x never decreases.
    assert!(path.windows(2).all(|w| w[0].0 <= w[1].0));
    assert_eq!(running_elo(&[]), vec![(0.0, 0.0), (0.0, 0.0)]);

    let rates = rolling_acceptance(&record.history);
    assert_eq!(rates.len(), 60);
    assert_eq!(rates[6], (7.0, 100.0 / 7.0));
    // Candidates 41..=60: 42, 49, 56 accepted.
    assert_eq!(rates[59], (60.0, 15.0));
}

#[test]
fn formatting() {
    assert_eq!(num(30.0), "30");
    assert_eq!(num(-0.0), "0");
    assert_eq!(num(2.5), "2.5");
    assert_eq!(num(1.0 / 3.0), "0.3333");
    assert_eq!(signed(1.5), "+1.5");
    assert_eq!(signed(-2.0), "-2");
    assert_eq!(signed(0.0), "0");
    assert_eq!(duration(42.0), "42.0 s");
    assert_eq!(duration(725.0), "12 min 05 s");
    assert_eq!(duration(3725.0), "1 h 02 min");
    assert_eq!(duration(2.0 * 86_400.0 + 3725.0), "2 d 01 h 02 min");
    assert_eq!(
        relative_link("confirm/index.html").as_deref(),
        Some("confirm/index.html")
    );
    assert_eq!(relative_link("javascript:alert(1)"), None);
    assert_eq!(relative_link("//evil.example/x"), None);
    assert_eq!(relative_link(""), None);
}

#[test]
fn the_aa_verdict_of_the_run_is_the_page_s() {
    use crate::tune::aa::{AaCheck, AaVerdict};
    let mut record = hill_record(false);
    // A 0 ± 0 A/A match reads "consistent with 0" by its interval alone; the run's verdict
    // says it tested nothing.
    record.aa = Some(confirmation(0.0, 0.0));
    let check = |verdict, reason: &str| AaCheck {
        verdict,
        reason: reason.into(),
        pairs: 20,
        distinct_pairs: 0,
        uneven_pairs: 0,
        decisive_games: 40,
    };
    let svgs = tune_svg_charts(&record).unwrap();
    record.aa_check = Some(check(AaVerdict::NotMeaningful, "every pair mirrored"));
    let html = render_tune(&record, &svgs).unwrap();
    assert!(
        html.contains("not meaningful: every pair mirrored"),
        "verdict"
    );
    assert!(!html.contains("consistent with 0"));
    record.aa_check = Some(check(AaVerdict::Fail, "the interval excludes 0"));
    let html = render_tune(&record, &svgs).unwrap();
    assert!(html.contains("fail: the interval excludes 0"));
    record.aa_check = None;
    let html = render_tune(&record, &svgs).unwrap();
    // Without a verdict, a zero-width interval is no interval: it reads as nothing measured.
    assert!(
        html.contains("no interval: every game pair scored alike") && !html.contains("± 0.0"),
        "a record without a verdict"
    );
}

/// A match whose pairs all scored alike has no interval, and one not played says why: never a
/// `± 0.0` (docs/usage.md: no zero-width interval anywhere).
#[test]
fn a_zero_width_interval_is_never_shown() {
    let mut record = hill_record(false);
    let mut aa = confirmation(0.0, 0.0);
    aa.pentanomial = [0, 0, 200, 0, 0];
    record.aa = Some(aa);
    record.confirmation = Some(MatchResult::skipped(
        "the tuned options as sent equal the start's (level: sent 11 (estimate 10.7))".into(),
    ));
    record.outside = Some(crate::tune::record::OutsideRecord {
        options: "options = { level = 11 }".into(),
        not_reproducible: Vec::new(),
        sent: vec!["11".into(); record.params.len()],
    });
    let html = render_tune(&record, &[]).unwrap();
    assert!(!html.contains("± 0.0"), "a zero-width interval");
    assert!(html.contains("Elo <b>+0.0 (no interval: every pair scored alike)</b>, LOS"));
    assert!(html.contains("not played: the tuned options as sent equal the start&#39;s"));
    assert!(!html.contains("Tuned vs start on held-out openings"));
    // The options as sent, with the estimate behind each.
    let first = record.tuned[0];
    assert!(html.contains(&format!(
        "<td>{}</td>",
        crate::tune::record::sent_text("11", first)
    )));
    assert!(html.contains("Final options"));
}

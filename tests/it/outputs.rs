//! What joute writes, end to end: never over one of the command's inputs or a run's own file,
//! never over an existing file or into a folder of other files without `--force`, never through
//! a symbolic link someone planted, never deleting a file it did not create (`src/outputs.rs`).

use crate::common;

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;

const SPEC: &str = "name = \"t\"\ngame = \"connect4\"\nseed = 1\nopenings = { plies = 2, count = 3 }\n\
                    [[engine]]\nname = \"a\"\nalgorithm = \"random\"\n\
                    [[engine]]\nname = \"b\"\nalgorithm = \"alphabeta\"\ndepth = 2\n";

/// Runs joute in `dir`.
fn joute(dir: &Path, args: &[&str]) -> Output {
    Command::cargo_bin("joute")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// The one error line of a refused command (exit 2).
fn refused(dir: &Path, args: &[&str]) -> String {
    let out = joute(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = joute(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A finished run in `dir/run`.
fn finished_run(dir: &Path) {
    std::fs::write(dir.join("spec.toml"), SPEC).unwrap();
    ok(dir, &["run", "spec.toml", "--out", "run", "--quiet"]);
}

#[test]
fn no_output_replaces_an_input_or_a_run_record() {
    let dir = common::scratch("inputs");
    finished_run(&dir);
    let log = std::fs::read(dir.join("run/games.jsonl")).unwrap();
    let record = std::fs::read(dir.join("run/run.json")).unwrap();
    for args in [
        &[
            "export",
            "run/games.jsonl",
            "--format",
            "pgn",
            "--out",
            "run/games.jsonl",
        ][..],
        &[
            "export",
            "run/games.jsonl",
            "--format",
            "pgn",
            "--out",
            "run/../run/games.jsonl",
            "--force",
        ],
        &[
            "export",
            "run/games.jsonl",
            "--format",
            "moves",
            "--out",
            "run/run.json",
            "--force",
        ],
        &[
            "fit",
            "run/games.jsonl",
            "--out",
            "run/games.jsonl",
            "--force",
        ],
        &["fit", "run/games.jsonl", "--out", "run/run.json"],
    ] {
        let err = refused(&dir, args);
        assert!(
            err.contains("an input of the command") || err.contains("a file of the run"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read(dir.join("run/games.jsonl")).unwrap(), log);
    assert_eq!(std::fs::read(dir.join("run/run.json")).unwrap(), record);
    // An existing file the user named is replaced only with --force; joute's default name
    // beside the log is its own, rewritten freely.
    std::fs::write(dir.join("mine.pgn"), "the user's").unwrap();
    let err = refused(
        &dir,
        &[
            "export",
            "run/games.jsonl",
            "--format",
            "pgn",
            "--out",
            "mine.pgn",
        ],
    );
    assert!(err.contains("mine.pgn exists; add --force"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("mine.pgn")).unwrap(),
        "the user's"
    );
    ok(
        &dir,
        &[
            "export",
            "run/games.jsonl",
            "--format",
            "pgn",
            "--out",
            "mine.pgn",
            "--force",
        ],
    );
    assert!(
        std::fs::read_to_string(dir.join("mine.pgn"))
            .unwrap()
            .contains("[Result")
    );
    for _ in 0..2 {
        ok(&dir, &["export", "run/games.jsonl", "--format", "pgn"]);
    }
    std::fs::write(dir.join("w.toml"), "the user's").unwrap();
    let err = refused(&dir, &["fit", "run/games.jsonl", "--out", "w.toml"]);
    assert!(err.contains("add --force"), "{err}");
    std::fs::create_dir(dir.join("rated")).unwrap();
    std::fs::write(dir.join("rated/ratings.csv"), "the user's").unwrap();
    ok(
        &dir,
        &[
            "export",
            "run/games.jsonl",
            "--format",
            "pgn",
            "--out",
            "g.pgn",
        ],
    );
    let err = refused(&dir, &["rate", "g.pgn", "--out", "rated"]);
    assert!(err.contains("ratings.csv exists; add --force"), "{err}");
    let err = refused(&dir, &["rate", "g.pgn", "--out", "rated/../rated"]);
    assert!(err.contains("exists; add --force"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("rated/ratings.csv")).unwrap(),
        "the user's"
    );
}

#[test]
fn a_folder_of_other_files_is_refused_without_force_and_nothing_is_deleted() {
    let dir = common::scratch("folder");
    std::fs::write(dir.join("spec.toml"), SPEC).unwrap();
    let mine = dir.join("mine");
    std::fs::create_dir(&mine).unwrap();
    // A dead process's number, in the name the old temporaries had.
    let files = [
        ("index.html", "my page"),
        ("ratings.csv", "my ratings"),
        ("thesis.tmp999999999", "my thesis"),
        ("run.json.tmp999999999", "my notes"),
    ];
    for (name, text) in files {
        std::fs::write(mine.join(name), text).unwrap();
    }
    let err = refused(&dir, &["run", "spec.toml", "--out", "mine", "--quiet"]);
    assert!(
        err.contains("no joute run or report") && err.contains("--force"),
        "{err}"
    );
    let err = refused(
        &dir,
        &[
            "match", "connect4", "random", "random", "--games", "2", "--out", "mine",
        ],
    );
    assert!(err.contains("--force"), "{err}");
    finished_run(&dir);
    let err = refused(&dir, &["report", "run/games.jsonl", "--out", "mine"]);
    assert!(err.contains("--force"), "{err}");
    for (name, text) in files {
        assert_eq!(
            std::fs::read_to_string(mine.join(name)).unwrap(),
            text,
            "{name}"
        );
    }
    // A report folder joute wrote is its own: written again freely.
    ok(&dir, &["report", "run/games.jsonl", "--out", "merged"]);
    ok(&dir, &["report", "run/games.jsonl", "--out", "merged"]);
    // With --force joute writes among the user's files and deletes none of them.
    ok(
        &dir,
        &["run", "spec.toml", "--out", "mine", "--quiet", "--force"],
    );
    for (name, text) in &files[2..] {
        assert_eq!(
            std::fs::read_to_string(mine.join(name)).unwrap(),
            *text,
            "{name}"
        );
    }
    ok(&dir, &["run", "spec.toml", "--out", "mine", "--quiet"]);
    assert!(mine.join("thesis.tmp999999999").exists());
}

#[test]
fn a_report_is_not_written_over_another_runs_folder() {
    let dir = common::scratch("other-run");
    finished_run(&dir);
    std::fs::write(dir.join("other.toml"), SPEC.replace("seed = 1", "seed = 2")).unwrap();
    ok(&dir, &["run", "other.toml", "--out", "other", "--quiet"]);
    let page = std::fs::read(dir.join("other/index.html")).unwrap();
    let err = refused(&dir, &["report", "run/games.jsonl", "--out", "other"]);
    assert!(err.contains("holds the run of another spec"), "{err}");
    assert_eq!(std::fs::read(dir.join("other/index.html")).unwrap(), page);
}

/// Links planted where joute writes, before it starts (`exec` keeps the shell's process id,
/// so `$$` is joute's: the names its temporaries once had are known in advance).
#[cfg(unix)]
#[test]
fn planted_links_never_lead_joute_to_write_their_targets() {
    let dir = common::scratch("links");
    finished_run(&dir);
    std::fs::write(dir.join("victim.txt"), "the user's").unwrap();
    let victim = dir.join("victim.txt");
    let script = format!(
        "for f in run.json ratings.csv scale.csv index.html crosstable.csv; do ln -s {v} run/$f.tmp$$; done; exec {joute} report run/games.jsonl",
        v = victim.display(),
        joute = common::bin().display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the user's");
    // A log or lock planted as a link is refused, its target untouched.
    std::fs::create_dir(dir.join("fresh")).unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("fresh/games.jsonl")).unwrap();
    let err = refused(&dir, &["run", "spec.toml", "--out", "fresh", "--quiet"]);
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the user's");
}

/// Player names from foreign records reach `ratings.csv` as text: never a spreadsheet formula,
/// never a raw control byte.
#[test]
fn csv_files_hold_no_formula_and_no_control_byte() {
    let dir = common::scratch("csv");
    let game = |white: &str, black: &str, result: &str| {
        format!("[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n{result}\n\n")
    };
    let formula = "=cmd|' /C calc'!A0";
    let escape = "b\u{1b}[2Jx\u{7}";
    let pgn = [
        game(formula, escape, "1-0"),
        game(escape, formula, "0-1"),
        game("@SUM(A1:A9)", "+1+1", "1/2-1/2"),
        game("-2+3", formula, "1-0"),
    ]
    .concat();
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    ok(&dir, &["rate", "g.pgn", "--out", "rated"]);
    let bytes = std::fs::read(dir.join("rated/ratings.csv")).unwrap();
    assert!(
        !bytes.iter().any(|&b| b.is_ascii_control() && b != b'\n'),
        "a control byte in {bytes:?}"
    );
    let text = String::from_utf8(bytes).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let names: Vec<String> = reader
        .records()
        .map(|r| r.unwrap()[1].to_string())
        .collect();
    assert_eq!(names.len(), 5, "{text}");
    for name in &names {
        assert!(!name.starts_with(['=', '+', '-', '@']), "{text}");
    }
    assert!(text.contains("b\\e[2Jx\\u{7}"), "{text}");
    assert!(text.contains("'=cmd|' /C calc'!A0"), "{text}");
    assert!(text.contains("'@SUM(A1:A9)"), "{text}");
}

/// Every file and folder under `dir` with its permission bits, relative to `dir`.
#[cfg(unix)]
fn modes(dir: &Path) -> Vec<(String, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let name = path.strip_prefix(dir).unwrap().display().to_string();
            out.push((name, meta.permissions().mode() & 0o777));
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

/// joute run in `dir` under `umask`.
#[cfg(unix)]
fn joute_under_umask(dir: &Path, umask: u32, args: &[&str]) {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(common::bin());
    command.current_dir(dir).args(args);
    // SAFETY: umask is async-signal-safe and touches only the child's own state.
    unsafe {
        command.pre_exec(move || {
            libc::umask(umask as libc::mode_t);
            Ok(())
        });
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every file joute writes — records, logs, CSVs, charts, pages, tuned weights, through a
/// temporary file or not — is created as any program's: 0666 and 0777 less the umask, so that a
/// report copied to a web folder or shared on a cluster can be read there.
#[cfg(unix)]
#[test]
fn outputs_honour_the_umask() {
    let scratch = common::scratch("umask");
    let dir: &Path = &scratch;
    std::fs::write(dir.join("spec.toml"), SPEC).unwrap();
    for (umask, file_mode, dir_mode) in [(0o022, 0o644, 0o755), (0o027, 0o640, 0o750)] {
        let run = format!("run-{umask:o}");
        let tuned = format!("tuned-{umask:o}");
        std::fs::create_dir(dir.join(&tuned)).unwrap();
        let tune = common::tune_spec_text(
            &dir.join(&tuned),
            "hill-climb",
            "iterations = 2",
            "\n[hill]\npairs = 2\n",
        )
        .replace("games = 200\naa_games = 40", "games = 20\naa_games = 20");
        let tune_spec = format!("tune-{umask:o}.toml");
        std::fs::write(dir.join(&tune_spec), tune).unwrap();
        joute_under_umask(dir, umask, &["run", "spec.toml", "--out", &run, "--quiet"]);
        let log = format!("{run}/games.jsonl");
        joute_under_umask(dir, umask, &["export", &log, "--format", "pgn"]);
        let tune_out = format!("{tuned}/run");
        joute_under_umask(
            dir,
            umask,
            &["tune", &tune_spec, "--out", &tune_out, "--quiet"],
        );
        let mut seen = 0;
        for top in [&run, &tuned] {
            for (name, mode) in modes(&dir.join(top)) {
                let is_dir = dir.join(top).join(&name).is_dir();
                let want = if is_dir { dir_mode } else { file_mode };
                assert_eq!(mode, want, "{top}/{name}: {mode:o} under umask {umask:o}");
                seen += 1;
            }
        }
        for must in ["run.json", "index.html", "ratings.csv", "games.pgn"] {
            assert!(dir.join(&run).join(must).is_file(), "{run}/{must}");
        }
        for must in ["tuned.toml", "run/checkpoint.json", "run/index.html"] {
            assert!(dir.join(&tuned).join(must).is_file(), "{tuned}/{must}");
        }
        assert!(seen > 10, "{seen} files");
    }
}

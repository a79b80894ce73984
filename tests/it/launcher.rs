//! The launcher of the portable builds (`deploy/joute-launch.sh`, installed as `joute` next to
//! `joute-x86-64`, `joute-x86-64-v3` and `joute-x86-64-v4`): which build it picks for a
//! processor's flags (fake `/proc/cpuinfo` files), that it execs it with the arguments, stdin,
//! stdout and exit code unchanged, that on this machine it picks what the processor supports,
//! and (with `JOUTE_PORTABLE_DIR` set to the output of `deploy/build-portable.sh`) that every
//! build this machine can run gives the same results.
#![cfg(unix)]

use crate::common;

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{Scratch, manifest, scratch};

const LEVELS: [&str; 3] = ["x86-64", "x86-64-v3", "x86-64-v4"];

/// Flags of real processors, as their /proc/cpuinfo lists them.
const CORE2: &str = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 \
    clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx lm constant_tsc arch_perfmon \
    pebs bts rep_good nopl aperfmperf pni dtes64 monitor ds_cpl vmx est tm2 ssse3 cx16 xtpr \
    pdcm lahf_lm dtherm";
/// Sandy Bridge: POPCNT and AVX (x86-64-v2), no AVX2, BMI or LZCNT.
const SANDY_BRIDGE: &str = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat \
    pse36 clflush mmx fxsr sse sse2 ht syscall nx rdtscp lm constant_tsc rep_good nopl \
    xtopology nonstop_tsc cpuid pni pclmulqdq ssse3 cx16 pcid sse4_1 sse4_2 x2apic popcnt \
    tsc_deadline_timer aes xsave avx hypervisor lahf_lm pti fsgsbase tsc_adjust xsaveopt";
/// Zen 2 (EPYC Rome): x86-64-v3.
const ZEN2: &str = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 \
    clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc \
    rep_good nopl nonstop_tsc cpuid extd_apicid tsc_known_freq pni pclmulqdq ssse3 fma cx16 \
    sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm cmp_legacy \
    cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw topoext ssbd ibrs ibpb stibp vmmcall \
    fsgsbase tsc_adjust bmi1 avx2 smep bmi2 rdseed adx smap clflushopt clwb sha_ni xsaveopt \
    xsavec xgetbv1 clzero xsaveerptr rdpru wbnoinvd arat npt nrip_save umip rdpid";
/// Skylake-SP: x86-64-v4 (AVX-512 F, CD, BW, DQ, VL).
const SKYLAKE_SP: &str = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat \
    pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good \
    nopl xtopology nonstop_tsc cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 \
    sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm \
    abm 3dnowprefetch invpcid_single pti fsgsbase tsc_adjust bmi1 hle avx2 smep bmi2 erms \
    invpcid rtm mpx avx512f avx512dq rdseed adx smap clflushopt clwb avx512cd avx512bw \
    avx512vl xsaveopt xsavec xgetbv1 xsaves arat pku ospke";

/// A /proc/cpuinfo with one block per processor, each with its flags.
fn cpuinfo(processors: &[&str]) -> String {
    let mut text = String::new();
    for (i, flags) in processors.iter().enumerate() {
        let flags = flags.split_whitespace().collect::<Vec<_>>().join(" ");
        text.push_str(&format!(
            "processor\t: {i}\nvendor_id\t: GenuineIntel\nmodel name\t: test\n\
             flags\t\t: {flags}\nvmx flags\t: vnmi avx512f invvpid ept_x_only\n\
             bogomips\t: 4000.00\n\n"
        ));
    }
    text
}

/// The launcher, as `joute` in `dir`.
fn install_launcher(dir: &Path) {
    let text = fs::read_to_string(manifest("deploy/joute-launch.sh")).unwrap();
    write_executable(&dir.join("joute"), &text);
}

fn write_executable(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A folder with the launcher as `joute` and, for each of `levels`, a fake build that prints
/// its level and its arguments one a line, copies stdin when told, and exits with
/// `$FAKE_EXIT`.
fn fake_install(levels: &[&str]) -> Scratch {
    let dir = scratch("fake");
    install_launcher(&dir);
    for level in levels {
        write_executable(
            &dir.join(format!("joute-{level}")),
            &format!(
                "#!/bin/sh\necho 'level {level}'\nfor a in \"$@\"; do echo \"[$a]\"; done\n\
                 if [ -n \"${{FAKE_CAT:-}}\" ]; then cat; fi\nexit ${{FAKE_EXIT:-0}}\n"
            ),
        );
    }
    dir
}

/// Runs the launcher of `dir` with the given cpuinfo text (None: a file that does not exist).
fn launch(dir: &Path, info: Option<&str>, args: &[&str], env: &[(&str, &str)]) -> Output {
    let info_path = dir.join("cpuinfo");
    match info {
        Some(text) => fs::write(&info_path, text).unwrap(),
        None => {
            let _ = fs::remove_file(&info_path);
        }
    }
    let mut cmd = Command::new(dir.join("joute"));
    cmd.args(args)
        .env("JOUTE_CPUINFO", &info_path)
        .env_remove("JOUTE_VARIANT")
        .env_remove("JOUTE_VARIANT_DIR")
        .env_remove("JOUTE_LAUNCH_VERBOSE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The level the fake build that ran printed.
fn level_run(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "launcher failed: {:?}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("level "))
        .unwrap_or_else(|| panic!("no build ran: {stdout}"))
        .to_string()
}

#[test]
fn picks_the_highest_level_every_processor_supports() {
    let dir = fake_install(&LEVELS);
    let cases: [(&str, Option<String>, &str); 9] = [
        ("Core 2", Some(cpuinfo(&[CORE2, CORE2])), "x86-64"),
        (
            "Sandy Bridge (v2 only)",
            Some(cpuinfo(&[SANDY_BRIDGE])),
            "x86-64",
        ),
        (
            "Zen 2",
            Some(cpuinfo(&[ZEN2, ZEN2, ZEN2, ZEN2])),
            "x86-64-v3",
        ),
        (
            "Skylake-SP",
            Some(cpuinfo(&[SKYLAKE_SP, SKYLAKE_SP])),
            "x86-64-v4",
        ),
        // A processor without AVX-512 among them: what all of them run.
        ("mixed", Some(cpuinfo(&[SKYLAKE_SP, ZEN2])), "x86-64-v3"),
        // One flag of a level missing is enough to fall back.
        (
            "no LZCNT",
            Some(cpuinfo(&[&ZEN2.replace(" abm ", " ")])),
            "x86-64",
        ),
        (
            "no AVX-512 VL",
            Some(cpuinfo(&[&SKYLAKE_SP.replace(" avx512vl", " ")])),
            "x86-64-v3",
        ),
        // Nothing to read (not Linux, no /proc): the baseline, which runs anywhere.
        ("no cpuinfo", None, "x86-64"),
        ("empty cpuinfo", Some(String::new()), "x86-64"),
    ];
    for (name, info, want) in cases {
        let out = launch(&dir, info.as_deref(), &[], &[]);
        assert_eq!(level_run(&out), want, "{name}");
    }
}

#[test]
fn falls_back_to_a_lower_build_when_one_is_missing() {
    let dir = fake_install(&["x86-64", "x86-64-v3"]);
    let out = launch(&dir, Some(&cpuinfo(&[SKYLAKE_SP])), &[], &[]);
    assert_eq!(level_run(&out), "x86-64-v3");

    let dir = fake_install(&["x86-64"]);
    let out = launch(&dir, Some(&cpuinfo(&[SKYLAKE_SP])), &[], &[]);
    assert_eq!(level_run(&out), "x86-64");

    let dir = fake_install(&[]);
    let out = launch(&dir, Some(&cpuinfo(&[SKYLAKE_SP])), &[], &[]);
    assert_eq!(out.status.code(), Some(127));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no joute build to run")
            && stderr.contains("joute-x86-64-v4 joute-x86-64-v3 joute-x86-64)"),
        "{stderr}"
    );
}

#[test]
fn joute_variant_forces_a_build_and_verbose_names_it() {
    let dir = fake_install(&LEVELS);
    let info = cpuinfo(&[SKYLAKE_SP]);
    let out = launch(&dir, Some(&info), &[], &[("JOUTE_VARIANT", "x86-64")]);
    assert_eq!(level_run(&out), "x86-64");

    let out = launch(&dir, Some(&info), &[], &[("JOUTE_LAUNCH_VERBOSE", "1")]);
    assert_eq!(level_run(&out), "x86-64-v4");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim(),
        format!(
            "joute-launch: {}",
            dir.join("joute-x86-64-v4").to_str().unwrap()
        )
    );

    let out = launch(&dir, Some(&info), &[], &[("JOUTE_VARIANT", "native")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn execs_with_arguments_stdin_and_exit_code_unchanged() {
    let dir = fake_install(&LEVELS);
    let info = cpuinfo(&[ZEN2]);
    let args = [
        "run",
        "two words",
        "",
        "*",
        "$HOME",
        "--out=a b",
        "-",
        "'quoted'",
    ];
    let out = launch(&dir, Some(&info), &args, &[("FAKE_EXIT", "3")]);
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut want = String::from("level x86-64-v3\n");
    for a in args {
        want.push_str(&format!("[{a}]\n"));
    }
    assert_eq!(stdout, want);

    let mut child = Command::new(dir.join("joute"))
        .env("JOUTE_CPUINFO", dir.join("cpuinfo"))
        .env("FAKE_CAT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"line one\nline two\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "level x86-64-v3\nline one\nline two\n"
    );
}

#[test]
fn a_symbolic_link_to_the_launcher_finds_the_builds_beside_the_script() {
    let dir = fake_install(&LEVELS);
    fs::write(dir.join("cpuinfo"), cpuinfo(&[ZEN2])).unwrap();
    let bin = scratch("link");
    std::os::unix::fs::symlink(dir.join("joute"), bin.join("joute")).unwrap();
    let out = Command::new(bin.join("joute"))
        .env("JOUTE_CPUINFO", dir.join("cpuinfo"))
        .env_remove("JOUTE_VARIANT")
        .env_remove("JOUTE_VARIANT_DIR")
        .output()
        .unwrap();
    assert_eq!(level_run(&out), "x86-64-v3");
}

/// The x86-64 level this processor supports, by CPUID (std's detection).
#[cfg(target_arch = "x86_64")]
fn level_detected() -> &'static str {
    macro_rules! all {
        ($($f:tt),*) => { true $(&& std::is_x86_feature_detected!($f))* };
    }
    let v2 = all!("cmpxchg16b", "popcnt", "sse4.1", "sse4.2", "ssse3");
    let v3 = v2
        && all!(
            "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"
        );
    let v4 = v3 && all!("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl");
    if v4 {
        "x86-64-v4"
    } else if v3 {
        "x86-64-v3"
    } else {
        "x86-64"
    }
}

/// On this machine, the launcher reads the real /proc/cpuinfo to the level CPUID gives: it
/// never picks a build that would stop on an illegal instruction, nor a slower one than needed.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn on_this_machine_picks_what_the_processor_supports() {
    let dir = fake_install(&LEVELS);
    let out = Command::new(dir.join("joute"))
        .env_remove("JOUTE_CPUINFO")
        .env_remove("JOUTE_VARIANT")
        .output()
        .unwrap();
    assert_eq!(level_run(&out), level_detected());
}

/// The real joute through the launcher: the same output and exit codes as run directly, and
/// the launcher's name as argv[0] (what clap's usage lines and joute's resume hints print).
#[test]
fn runs_the_real_joute_unchanged() {
    let dir = scratch("real");
    install_launcher(&dir);
    std::os::unix::fs::symlink(common::bin(), dir.join("joute-x86-64")).unwrap();
    for args in [
        &["perft", "othello", "5", "--json"][..],
        &["perft", "chess", "3"],
        &["features", "connect4", "--json"],
        &["--help"],
        &["perft", "othello", "3", "--bogus"],
    ] {
        let direct = Command::new(common::bin()).args(args).output().unwrap();
        let launched = launch(&dir, None, args, &[]);
        assert_eq!(launched.status.code(), direct.status.code(), "{args:?}");
        // perft's --json holds timings: compare its counts.
        let strip = |out: &[u8]| -> String {
            let text = String::from_utf8_lossy(out);
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(v) if v.get("counts").is_some() => v["counts"].to_string(),
                _ => text.into_owned(),
            }
        };
        assert_eq!(strip(&launched.stdout), strip(&direct.stdout), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&launched.stderr),
            String::from_utf8_lossy(&direct.stderr),
            "{args:?}"
        );
    }
}

/// With `JOUTE_PORTABLE_DIR` pointing at the output of `deploy/build-portable.sh`: every build
/// that this processor runs counts Othello perft(9), solves FFO #40 and plays the quickstart
/// tournament exactly as this test's own build does (the games, by id, apart from their timings).
/// Skipped without it: `cargo test` does not build the three release binaries.
#[cfg(target_arch = "x86_64")]
#[test]
fn the_portable_builds_agree_with_this_one() {
    let Some(portable) = std::env::var_os("JOUTE_PORTABLE_DIR") else {
        eprintln!("skipped: set JOUTE_PORTABLE_DIR to the output of deploy/build-portable.sh");
        return;
    };
    let portable = PathBuf::from(portable);
    let runnable = &LEVELS[..=LEVELS.iter().position(|l| *l == level_detected()).unwrap()];
    let ffo40 = fs::read_to_string(manifest("tests/data/othello-ffo-40-59.txt"))
        .unwrap()
        .lines()
        .find(|l| l.starts_with("40\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            format!("{} {}", f[1], f[2])
        })
        .unwrap();
    let results = |bin: &Path| -> Vec<String> {
        let run = |args: &[&str]| -> String {
            let out = Command::new(bin).args(args).output().unwrap();
            assert!(out.status.success(), "{bin:?} {args:?}: {out:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        let perft: serde_json::Value =
            serde_json::from_str(&run(&["perft", "othello", "9", "--json"])).unwrap();
        let solve: serde_json::Value =
            serde_json::from_str(&run(&["solve", "othello", &ffo40, "--json"])).unwrap();
        let out = scratch("portable");
        let out_dir = out.join("quickstart");
        run(&[
            "run",
            &manifest("tournaments/quickstart.toml"),
            "--out",
            out_dir.to_str().unwrap(),
            "--threads",
            "2",
            "--quiet",
        ]);
        // Two workers finish games in any order: compare them by id.
        let mut games: Vec<(u64, String)> = fs::read_to_string(out_dir.join("games.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let g = common::untimed(serde_json::from_str(l).unwrap());
                (g["id"].as_u64().unwrap(), g.to_string())
            })
            .collect();
        games.sort();
        let games: Vec<String> = games.into_iter().map(|(_, g)| g).collect();
        let mut solve = solve;
        strip_timings(&mut solve);
        vec![
            perft["counts"].to_string(),
            solve.to_string(),
            games.join("\n"),
        ]
    };
    let want = results(&common::bin());
    for level in runnable {
        let bin = portable.join(format!("joute-{level}"));
        assert!(bin.exists(), "{bin:?} missing");
        let got = results(&bin);
        for (i, what) in ["perft", "solve", "games"].iter().enumerate() {
            assert!(got[i] == want[i], "joute-{level}: {what} differs");
        }
        eprintln!("joute-{level}: the same perft counts, solve and games");
    }
}

/// Removes the fields that hold times: `seconds` and rates at any depth.
fn strip_timings(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| {
                !(k.contains("seconds") || k.ends_with("_per_second") || k.ends_with("_ms"))
            });
            m.values_mut().for_each(strip_timings);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_timings),
        _ => {}
    }
}

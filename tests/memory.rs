//! `run.json`'s peak memory covers the whole command, the report included: measured here
//! against the kernel's own account of the child (getrusage). In a test binary of its own,
//! because RUSAGE_CHILDREN covers every child this process has waited for.

#[allow(dead_code)] // This suite uses one helper of the shared module.
#[path = "it/common/mod.rs"]
mod common;

/// The largest resident set of any child this process waited for, KiB (Linux's unit).
fn children_peak_kib() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_CHILDREN is a valid selector.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    assert_eq!(rc, 0);
    // SAFETY: initialised by the successful call above.
    unsafe { usage.assume_init() }.ru_maxrss as u64
}

#[test]
fn the_recorded_peak_memory_includes_the_report() {
    let dir = common::scratch("peak");
    let out = dir.join("m");
    // Many short games: the HTML report (every game embedded) needs more memory than playing.
    common::joute_ok(&[
        "match",
        "connect4",
        "random",
        "random",
        "--games",
        "20000",
        "--openings",
        "8",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let kernel = children_peak_kib();
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let recorded = record["sessions"][0]["peak_rss_kib"].as_u64().unwrap();
    assert!(
        recorded as f64 >= 0.97 * kernel as f64 && recorded <= kernel,
        "run.json says {recorded} KiB, the kernel {kernel} KiB"
    );
}

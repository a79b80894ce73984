//! The command line's progress displays, in one place. [`Meter`]: a bar on stderr when it is a
//! terminal (redrawn every 200 ms, its message cut to the terminal's width), a note every few
//! seconds when it is not; `joute run` and `joute match` (games) and `joute tune` (candidates)
//! each give only their line's text. [`Watch`]: a line a thread of its own redraws from a
//! counter, for computations that cannot call back (a solve, `joute analyze`).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a note repeats when stderr is not a terminal.
const NOTE_EVERY: Duration = Duration::from_secs(5);

/// A bar, or notes on a pipe.
pub(super) struct Meter {
    talk: bool,
    bar: Option<ProgressBar>,
    last_note: Option<Instant>,
}

impl Meter {
    /// A meter at `done` of `total`, drawn with `template` (indicatif's: `{bar:20} {pos}/{len}
    /// {wide_msg}`); silent unless `talk`. On a pipe the first note comes at once with
    /// `note_at_once`, else after the first few seconds.
    pub(super) fn new(
        talk: bool,
        total: u64,
        done: u64,
        template: &'static str,
        note_at_once: bool,
    ) -> Meter {
        let bar = (talk && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            // wide_msg takes what the terminal has left and is cut to it: one line whatever
            // the width.
            bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
            bar.set_position(done);
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Meter {
            talk,
            bar,
            last_note: (!note_at_once).then(Instant::now),
        }
    }

    /// Moves the bar to `done` with `message()` after it; on a pipe, notes `note()` when
    /// `now`, or when the last note is a few seconds old.
    pub(super) fn show(
        &mut self,
        done: u64,
        now: bool,
        message: impl FnOnce() -> String,
        note: impl FnOnce() -> String,
    ) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(done);
                bar.set_message(message());
            }
            None if self.talk
                && (now || self.last_note.is_none_or(|t| t.elapsed() >= NOTE_EVERY)) =>
            {
                self.last_note = Some(Instant::now());
                note!("{}", note());
            }
            None => {}
        }
    }

    /// A line printed above the bar, which stays on screen (nothing on a pipe: [`Meter::show`]
    /// notes it there).
    pub(super) fn above(&self, text: &str) {
        if let Some(bar) = &self.bar {
            bar.println(text);
        }
    }

    /// A line that stays: printed above the bar on a terminal, noted on a pipe.
    pub(super) fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None if self.talk => note!("{text}"),
            None => {}
        }
    }

    /// Clears the bar (again: nothing).
    pub(super) fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// A progress display for long computations that report through a counter (a solver's nodes,
/// trees analysed): a line redrawn by a thread of its own every 200 ms, on a terminal only —
/// nothing at all on a pipe or with `--json`. Stopped by [`Watch::finish`] or when dropped.
pub struct Watch {
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    /// Positions searched so far, the time and the rate.
    pub fn nodes(counter: std::sync::Arc<std::sync::atomic::AtomicU64>, show: bool) -> Watch {
        Watch::start(show, None, move |bar, started| {
            let n = counter.load(std::sync::atomic::Ordering::Relaxed);
            let seconds = started.elapsed().as_secs_f64();
            bar.set_message(format!(
                "solving: {n} nodes, {seconds:.0} s, {:.1} M nodes/s",
                n as f64 / seconds.max(1e-9) / 1e6
            ));
        })
    }

    /// `done` of `total` units (`trees`), with an ETA.
    pub fn count(
        counter: std::sync::Arc<std::sync::atomic::AtomicU64>,
        total: u64,
        unit: &'static str,
        show: bool,
    ) -> Watch {
        Watch::start(show, Some(total), move |bar, started| {
            let n = counter.load(std::sync::atomic::Ordering::Relaxed);
            bar.set_position(n.min(total));
            let elapsed = started.elapsed().as_secs_f64();
            let eta = eta_seconds(n, total.saturating_sub(n), elapsed);
            bar.set_message(format!("{unit}, ETA {}", short_duration(eta)));
        })
    }

    fn start(
        show: bool,
        total: Option<u64>,
        mut update: impl FnMut(&indicatif::ProgressBar, std::time::Instant) + Send + 'static,
    ) -> Watch {
        use std::io::IsTerminal;
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        if !show || !std::io::stderr().is_terminal() {
            return Watch { done, thread: None };
        }
        let bar = match total {
            Some(t) => {
                let bar = indicatif::ProgressBar::new(t);
                bar.set_style(
                    indicatif::ProgressStyle::with_template("{bar:20} {pos}/{len} {wide_msg}")
                        .expect("a valid template"),
                );
                bar
            }
            None => {
                let bar = indicatif::ProgressBar::new_spinner();
                bar.set_style(
                    indicatif::ProgressStyle::with_template("{spinner} {wide_msg}")
                        .expect("a valid template"),
                );
                bar
            }
        };
        let flag = done.clone();
        let thread = std::thread::spawn(move || {
            let started = std::time::Instant::now();
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                update(&bar, started);
                bar.tick();
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            bar.finish_and_clear();
        });
        Watch {
            done,
            thread: Some(thread),
        }
    }

    /// Clears the display.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Seconds until `remaining` more games are played at this session's rate (`played` in
/// `elapsed` seconds): games logged by earlier sessions say nothing about the rate now.
pub(super) fn eta_seconds(played: u64, remaining: u64, elapsed: f64) -> f64 {
    if played == 0 || elapsed <= 0.0 {
        return f64::INFINITY;
    }
    remaining as f64 * elapsed / played as f64
}

/// `42s`, `3m 20s`, `2h 05m`, or `?` when unknown.
pub(super) fn short_duration(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "?".into();
    }
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s / 60 % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_counts_only_this_sessions_games() {
        // 900 games logged before, 100 played now in 10 s, 1000 left: 100 s, not 10 s.
        assert_eq!(eta_seconds(100, 1000, 10.0), 100.0);
        assert_eq!(eta_seconds(0, 1000, 10.0), f64::INFINITY);
        assert_eq!(eta_seconds(50, 0, 5.0), 0.0);
    }

    #[test]
    fn durations_read_short() {
        assert_eq!(short_duration(41.6), "42s");
        assert_eq!(short_duration(200.0), "3m 20s");
        assert_eq!(short_duration(7500.0), "2h 05m");
        assert_eq!(short_duration(f64::INFINITY), "?");
    }
}

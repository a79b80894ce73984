//! CPU time, where the machine can tell it: the calling thread's (a built-in engine searches on
//! the thread that asks it for a move), read before and after each move by the referee.

use std::time::Duration;

/// CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`: nanoseconds, every Unix);
/// `None` where the machine has no such clock.
pub fn thread_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime(2) writes the timespec it is given and nothing else.
        let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        (r == 0 && ts.tv_sec >= 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_works_gains_cpu_time_and_one_that_sleeps_does_not() {
        let Some(start) = thread_time() else {
            return;
        };
        // Work until the thread's own clock has gained 20 ms: however busy the machine, it
        // gets there (a wall-clock bound only stops a clock that never moves).
        let wall = std::time::Instant::now();
        let mut x = 1u64;
        while thread_time().unwrap() - start < Duration::from_millis(20) {
            for _ in 0..10_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            assert!(
                wall.elapsed() < Duration::from_secs(60),
                "the clock does not move"
            );
        }
        std::hint::black_box(x);
        // Sleeping uses no CPU, whatever else runs.
        let before = thread_time().unwrap();
        std::thread::sleep(Duration::from_millis(30));
        let slept = thread_time().unwrap() - before;
        assert!(slept < Duration::from_millis(5), "{slept:?}");
    }
}

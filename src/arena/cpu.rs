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
        // Work until the wall clock says 30 ms passed: the thread was on a core for most of it
        // unless the machine is very busy, so ask only for a third.
        let wall = std::time::Instant::now();
        let mut x = 1u64;
        while wall.elapsed() < Duration::from_millis(30) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let worked = thread_time().unwrap() - start;
        assert!(worked >= Duration::from_millis(10), "{worked:?}");
        let before = thread_time().unwrap();
        std::thread::sleep(Duration::from_millis(30));
        let slept = thread_time().unwrap() - before;
        assert!(slept < Duration::from_millis(5), "{slept:?}");
    }
}

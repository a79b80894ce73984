//! Pinned cores (`affinity = true`): each concurrent game on cores of its own, both of its
//! engines with it. The runner pins each worker thread to its share of the cores joute may use
//! ([`partition`]); a built-in engine searches on that thread, and an outside program started by
//! it inherits the thread's set (a child's CPU set is its parent thread's), so nothing else is
//! needed for programs. A program may still widen its own set within joute's (the kernel lets a
//! process change its own affinity); only a cpuset cgroup would stop that. Linux only: elsewhere
//! [`cpus`] is `None` and the run refuses `affinity`.

/// The CPUs this process may run on, ascending; `None` where the machine cannot tell or set
/// affinity (not Linux).
pub fn cpus() -> Option<Vec<usize>> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity(2) writes at most
        // its size into it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let r =
            unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
        if r != 0 {
            return None;
        }
        let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `c` is below CPU_SETSIZE, the set's capacity.
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect();
        (!cpus.is_empty()).then_some(cpus)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The cores of each of `workers` workers: with as many workers as cores or fewer, each gets
/// a block of its own (`cpus.len() / workers` cores, the first ones one more when it does not
/// divide); with more, worker `w` gets core `w mod cores` (games share cores: the run refuses
/// that on a clock unless told to oversubscribe).
pub fn partition(cpus: &[usize], workers: usize) -> Vec<Vec<usize>> {
    let workers = workers.max(1);
    if cpus.is_empty() {
        return vec![Vec::new(); workers];
    }
    if workers > cpus.len() {
        return (0..workers).map(|w| vec![cpus[w % cpus.len()]]).collect();
    }
    let (each, extra) = (cpus.len() / workers, cpus.len() % workers);
    let mut at = 0;
    (0..workers)
        .map(|w| {
            let n = each + usize::from(w < extra);
            let block = cpus[at..at + n].to_vec();
            at += n;
            block
        })
        .collect()
}

/// Pins the calling thread (and what it starts from now on) to `cores`.
pub fn pin_current_thread(cores: &[usize]) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET is given indices below
        // CPU_SETSIZE (checked); sched_setaffinity(2) with 0 sets the calling thread's.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &c in cores.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
            unsafe { libc::CPU_SET(c, &mut set) };
        }
        let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cores;
        Err(std::io::Error::other("pinned cores need Linux"))
    }
}

/// The CPUs process `pid` may run on, from `/proc/PID/status` (`Cpus_allowed_list: 0-1,4`).
pub fn cpus_of(pid: u32) -> Option<Vec<usize>> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?;
    parse_list(list.trim())
}

/// A CPU list as the kernel writes it: `0-3,6,8-9`.
pub fn parse_list(text: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().ok()?..=b.parse::<usize>().ok()?),
            None => cpus.push(part.parse().ok()?),
        }
    }
    Some(cpus)
}

/// A CPU set in the kernel's words: `0-1,3`.
pub fn list_text(cpus: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_of_cores_cover_every_core_once_when_there_are_enough() {
        let cpus: Vec<usize> = vec![0, 1, 2, 3, 4, 6, 7];
        for workers in 1..=cpus.len() {
            let parts = partition(&cpus, workers);
            assert_eq!(parts.len(), workers);
            let mut all: Vec<usize> = parts.iter().flatten().copied().collect();
            all.sort();
            assert_eq!(all, cpus, "{workers} workers");
            let sizes: Vec<usize> = parts.iter().map(Vec::len).collect();
            assert!(
                sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
                "{sizes:?}"
            );
        }
        assert_eq!(
            partition(&[0, 1], 4),
            vec![vec![0], vec![1], vec![0], vec![1]]
        );
    }

    #[test]
    fn cpu_lists_read_and_write_the_kernels_form() {
        assert_eq!(parse_list("0-3,6,8-9"), Some(vec![0, 1, 2, 3, 6, 8, 9]));
        assert_eq!(list_text(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(parse_list("x"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pinned_thread_and_the_child_it_starts_stay_on_its_core() {
        let all = cpus().expect("Linux tells the CPU set");
        let core = *all.last().unwrap();
        let seen = std::thread::spawn(move || {
            pin_current_thread(&[core]).unwrap();
            let mut command = std::process::Command::new("sleep");
            command.arg("5");
            // Registered as joute's own child, as every program is (`descendants`).
            let (mut child, _) = crate::arena::descendants::spawn(&mut command).unwrap();
            let seen = cpus_of(child.id());
            child.kill().unwrap();
            child.wait().unwrap();
            crate::arena::descendants::forget(child.id());
            seen
        })
        .join()
        .unwrap();
        assert_eq!(seen, Some(vec![core]));
        // The thread's pin did not reach the process's other threads.
        assert_eq!(cpus(), Some(all));
    }
}

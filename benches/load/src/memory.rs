//! A process's memory from `/proc/<pid>/status`: the resident set (`VmRSS`) sampled over
//! time, and the kernel's own record of its peak (`VmHWM`), which catches spikes shorter than
//! the sampling interval.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};

/// One reading of a process's memory, in KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryReading {
    /// `VmRSS`: resident now.
    pub rss_kib: u64,
    /// `VmHWM`: the highest resident size since the process started.
    pub hwm_kib: u64,
}

impl MemoryReading {
    /// Reads `/proc/<pid>/status`.
    ///
    /// # Errors
    /// When the process is gone or the file lacks the two fields (not Linux).
    pub fn of(pid: u32) -> Result<Self> {
        let path = format!("/proc/{pid}/status");
        let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
        Self::parse(&text).ok_or_else(|| anyhow!("{path} has no VmRSS or VmHWM line"))
    }

    fn parse(status: &str) -> Option<Self> {
        let field = |name: &str| {
            status.lines().find_map(|line| {
                let value = line.strip_prefix(name)?.strip_prefix(':')?;
                value
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
        };
        Some(Self {
            rss_kib: field("VmRSS")?,
            hwm_kib: field("VmHWM")?,
        })
    }
}

/// What a sampler saw.
#[derive(Debug, Clone, Default)]
pub struct MemoryReport {
    /// `VmRSS` in KiB at each sample, with the time since sampling began.
    pub samples: Vec<(Duration, u64)>,
    /// The last `VmHWM` read, in KiB: the process's peak up to then.
    pub peak_kib: u64,
}

impl MemoryReport {
    /// The highest `VmRSS` sampled, in KiB.
    #[must_use]
    pub fn max_rss_kib(&self) -> u64 {
        self.samples.iter().map(|(_, kib)| *kib).max().unwrap_or(0)
    }

    /// The first `VmRSS` sampled, in KiB.
    #[must_use]
    pub fn first_rss_kib(&self) -> u64 {
        self.samples.first().map_or(0, |(_, kib)| *kib)
    }

    /// The last `VmRSS` sampled, in KiB.
    #[must_use]
    pub fn last_rss_kib(&self) -> u64 {
        self.samples.last().map_or(0, |(_, kib)| *kib)
    }

    /// `VmRSS` over time, at most `points` samples evenly picked, as `t=SECONDS:MiB` pairs.
    #[must_use]
    pub fn timeline(&self, points: usize) -> String {
        if self.samples.is_empty() || points == 0 {
            return String::new();
        }
        let step = self.samples.len().div_ceil(points).max(1);
        let mut picked: Vec<&(Duration, u64)> = self.samples.iter().step_by(step).collect();
        if let Some(last) = self.samples.last()
            && picked.last().is_none_or(|p| p.0 != last.0)
        {
            picked.push(last);
        }
        picked
            .iter()
            .map(|(t, kib)| format!("t={:.1}s:{:.1}", t.as_secs_f64(), mib(*kib)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// KiB as MiB.
#[must_use]
pub fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Samples a process's memory on a thread of its own until stopped.
#[derive(Debug)]
pub struct MemorySampler {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<MemoryReport>>,
}

impl MemorySampler {
    /// Starts sampling process `pid` every `interval`.
    #[must_use]
    pub fn start(pid: u32, interval: Duration) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let began = Instant::now();
            let mut report = MemoryReport::default();
            loop {
                // A process that has exited ends the sampling with what was seen.
                let Ok(reading) = MemoryReading::of(pid) else {
                    break;
                };
                report.samples.push((began.elapsed(), reading.rss_kib));
                report.peak_kib = report.peak_kib.max(reading.hwm_kib);
                if flag.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep(interval);
            }
            report
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }

    /// Takes a last sample, stops, and returns everything sampled.
    #[must_use]
    pub fn stop(mut self) -> MemoryReport {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for MemorySampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_status_file_gives_resident_and_peak_memory() {
        let status = "Name:\tinsights-server\nVmPeak:\t  900000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\nThreads:\t7\n";
        assert_eq!(
            MemoryReading::parse(status),
            Some(MemoryReading {
                rss_kib: 40960,
                hwm_kib: 51200
            })
        );
        assert_eq!(MemoryReading::parse("Name:\tx\n"), None);
    }

    #[test]
    fn this_process_can_be_sampled() {
        let sampler = MemorySampler::start(std::process::id(), Duration::from_millis(5));
        std::thread::sleep(Duration::from_millis(30));
        let report = sampler.stop();
        assert!(report.samples.len() >= 2, "{report:?}");
        assert!(report.peak_kib >= report.max_rss_kib(), "{report:?}");
        assert!(report.max_rss_kib() > 0);
        assert!(
            report.timeline(3).starts_with("t=0.0s:"),
            "{}",
            report.timeline(3)
        );
    }
}

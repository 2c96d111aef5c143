//! A fuzzing run: workers take input indices in turn, crashes are collected, and each crash
//! not already saved is shrunk and saved as a `; test fuzz` file test.

use crate::corpus::Corpus;
use crate::mutate::Mutator;
use crate::report::{Counts, Summary};
use crate::worker::{Crash, CrashKind, Worker};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// When a run stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Seconds(u64),
    Inputs(u64),
}

#[derive(Clone, Debug)]
pub struct Config {
    pub budget: Budget,
    pub seed: u64,
    pub workers: usize,
    /// An input without an answer after this long is a hang.
    pub timeout: Duration,
    /// Where the seeds are (the file tests, saved findings included).
    pub corpus: PathBuf,
    /// Where findings are saved.
    pub save: PathBuf,
    /// The worker executable (this binary).
    pub exe: PathBuf,
}

/// The line of a saved finding naming the crash's signature.
const TRIGGERED: &str = "; triggered: ";
/// Line deletions tried when shrinking one finding.
const MAX_SHRINK_TRIES: usize = 300;
/// How often a running fuzzer says how far it got.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

struct Finding {
    index: u64,
    input: String,
    crash: Crash,
}

pub fn run(config: &Config) -> Result<Summary, String> {
    let corpus = Corpus::load(&config.corpus)?;
    let run = Run {
        config,
        mutator: Mutator::new(&corpus),
        start: Instant::now(),
        next: AtomicU64::new(0),
        counts: Mutex::new(Counts::default()),
        findings: Mutex::new(Vec::new()),
    };
    let fed: Vec<Result<(), String>> = std::thread::scope(|s| {
        let feeders: Vec<_> = (0..config.workers.max(1))
            .map(|_| s.spawn(|| run.feed_one_worker()))
            .collect();
        let mut last = Instant::now();
        while !feeders.iter().all(|f| f.is_finished()) {
            std::thread::sleep(Duration::from_millis(100));
            if last.elapsed() >= PROGRESS_EVERY {
                last = Instant::now();
                let c = lock(&run.counts).clone();
                eprintln!(
                    "kosmos-fuzz: {:.0}s: {} inputs, {} verified, {} crashes",
                    run.start.elapsed().as_secs_f64(),
                    c.inputs,
                    c.verified,
                    c.crashes()
                );
            }
        }
        feeders
            .into_iter()
            .map(|f| f.join().expect("a feeder does not panic"))
            .collect()
    });
    fed.into_iter().collect::<Result<(), String>>()?;
    let elapsed = run.start.elapsed();
    let mut seen = known_signatures(&config.save);
    let mut saved = Vec::new();
    for finding in run.findings.into_inner().unwrap() {
        if seen.insert((finding.crash.kind, finding.crash.signature.clone())) {
            saved.push(save(config, &finding)?);
        }
    }
    Ok(Summary {
        seed: config.seed,
        workers: config.workers,
        elapsed,
        counts: run.counts.into_inner().unwrap(),
        new_findings: saved,
    })
}

/// What the threads feeding the workers share.
struct Run<'a> {
    config: &'a Config,
    mutator: Mutator<'a>,
    start: Instant,
    next: AtomicU64,
    counts: Mutex<Counts>,
    findings: Mutex<Vec<Finding>>,
}

impl Run<'_> {
    /// The next input's index, or `None` once the budget is spent.
    fn next_index(&self) -> Option<u64> {
        if let Budget::Seconds(s) = self.config.budget
            && self.start.elapsed() >= Duration::from_secs(s)
        {
            return None;
        }
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        match self.config.budget {
            Budget::Inputs(n) if index >= n => None,
            _ => Some(index),
        }
    }

    /// Feeds inputs to one worker process, replacing it whenever it crashes.
    fn feed_one_worker(&self) -> Result<(), String> {
        let spawn =
            || Worker::spawn(&self.config.exe).map_err(|e| format!("cannot start a worker: {e}"));
        let mut worker = spawn()?;
        while let Some(index) = self.next_index() {
            let input = self.mutator.input(self.config.seed, index);
            let result = worker.check(&input, self.config.timeout);
            lock(&self.counts).add(result.as_ref().copied().map_err(|c| c.kind));
            if let Err(crash) = result {
                lock(&self.findings).push(Finding {
                    index,
                    input,
                    crash,
                });
                worker = spawn()?;
            }
        }
        Ok(())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The crashes already saved under `dir` (none when it does not exist yet).
fn known_signatures(dir: &Path) -> BTreeSet<(CrashKind, String)> {
    let mut known = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return known;
    };
    for entry in entries.flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text.lines() {
            let Some((kind, signature)) = line
                .strip_prefix(TRIGGERED)
                .and_then(|t| t.split_once(": "))
            else {
                continue;
            };
            if let Some(kind) = CrashKind::ALL.into_iter().find(|k| k.name() == kind) {
                known.insert((kind, signature.to_string()));
            }
        }
    }
    known
}

/// Writes a finding, shrunk, as `<save>/<hash>.kir`; returns its path.
fn save(config: &Config, finding: &Finding) -> Result<String, String> {
    let crash = &finding.crash;
    let mut header = format!(
        "; test fuzz\n{TRIGGERED}{}: {}\n",
        crash.kind.name(),
        crash.signature
    );
    if !crash.message.is_empty() {
        header.push_str(&format!("; message: {}\n", crash.message));
    }
    header.push_str(&format!(
        "; found by kosmos-fuzz --seed {} (input {})\n",
        config.seed, finding.index
    ));
    // A `; expect:` line would end the file test's body; any other comment is inert.
    let input = finding
        .input
        .lines()
        .map(|l| if l.trim_end() == "; expect:" { ";" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    let body = shrink(config, &header, &input, crash);
    let text = format!("{header}{body}\n");
    std::fs::create_dir_all(&config.save)
        .map_err(|e| format!("cannot create {}: {e}", config.save.display()))?;
    let path = config
        .save
        .join(format!("{:016x}.kir", crate::hash(text.as_bytes())));
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path.display().to_string())
}

/// Deletes lines one at a time while the file still crashes the same way, in passes until a
/// pass deletes nothing (a line another one uses goes once that one has). Hangs are kept
/// whole: each try would cost a timeout.
fn shrink(config: &Config, header: &str, input: &str, crash: &Crash) -> String {
    let mut lines: Vec<&str> = input.lines().collect();
    if crash.kind == CrashKind::Hang {
        return lines.join("\n");
    }
    let Ok(mut worker) = Worker::spawn(&config.exe) else {
        return lines.join("\n");
    };
    let mut tries = 0;
    let mut shrunk = true;
    while shrunk && tries < MAX_SHRINK_TRIES {
        shrunk = false;
        let mut i = 0;
        while i < lines.len() && tries < MAX_SHRINK_TRIES {
            tries += 1;
            let mut fewer = lines.clone();
            fewer.remove(i);
            let text = format!("{header}{}\n", fewer.join("\n"));
            let Err(c) = worker.check(&text, config.timeout) else {
                i += 1;
                continue;
            };
            if c.kind == crash.kind && c.signature == crash.signature {
                lines = fewer;
                shrunk = true;
            } else {
                i += 1;
            }
            match Worker::spawn(&config.exe) {
                Ok(w) => worker = w,
                Err(_) => return lines.join("\n"),
            }
        }
    }
    lines.join("\n")
}

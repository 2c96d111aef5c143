//! Running inputs in a child process, so that an abort, a stack overflow or a hang ends the
//! child and not the fuzzer.
//!
//! The child (`kosmos-fuzz worker`) reads inputs from stdin, each as a little-endian `u32`
//! length and that many bytes of UTF-8, and answers each with a line `REPLY <bits>` on stdout
//! ([`Reached::to_bits`]); other output is ignored, so a stray print cannot desynchronise
//! the two. The parent sends one input and waits for its answer, so it always knows which
//! input was in flight when the child died or stopped answering. A panic on any thread prints
//! [`PANIC_LINE`] with its location and message to stderr and aborts the child: a panic that a
//! library would otherwise catch and turn into an `Err` (the CPU device does so for its worker
//! threads) is still found.

use crate::pipeline::{self, Reached};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Starts an answer on the child's stdout.
const REPLY: &str = "kosmos-fuzz:reply ";
/// Starts the child's report of a panic on its stderr.
pub const PANIC_LINE: &str = "kosmos-fuzz:panic ";
/// The child's stderr kept for a crash report (its end: the last words before dying).
const STDERR_TAIL_BYTES: usize = 16 * 1024;

/// The child side: answers inputs from stdin until it closes.
pub fn serve() -> io::Result<()> {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map_or_else(|| "?".to_string(), |l| l.to_string());
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(no message)");
        let message = message.lines().next().unwrap_or("");
        eprintln!("{PANIC_LINE}{at}: {message}");
        std::process::abort();
    }));
    let mut stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    loop {
        let mut len = [0u8; 4];
        match stdin.read_exact(&mut len) {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            r => r?,
        }
        let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
        stdin.read_exact(&mut bytes)?;
        let text =
            String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        let reached = pipeline::check(&text);
        writeln!(stdout, "{REPLY}{}", reached.to_bits())?;
        stdout.flush()?;
    }
}

/// What went wrong with an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CrashKind {
    Panic,
    /// Ended by a signal (abort, stack overflow) or an unexpected exit.
    Abort,
    /// No answer within the per-input timeout.
    Hang,
}

impl CrashKind {
    pub const ALL: [CrashKind; 3] = [CrashKind::Panic, CrashKind::Abort, CrashKind::Hang];

    pub fn name(self) -> &'static str {
        match self {
            CrashKind::Panic => "panic",
            CrashKind::Abort => "abort",
            CrashKind::Hang => "hang",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crash {
    pub kind: CrashKind,
    /// Where: a panic's location, the last line an aborting process printed, or the timeout;
    /// the same defect gives the same signature whatever the input.
    pub signature: String,
    /// A panic's message (its first line), a hang's timeout; empty for an abort.
    pub message: String,
}

/// The parent side: one child process.
pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<u8>,
    stderr: Option<JoinHandle<String>>,
}

impl Worker {
    pub fn spawn(exe: &Path) -> io::Result<Worker> {
        let mut child = Command::new(exe)
            .arg("worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (stdin, stdout, stderr) = (
            child.stdin.take().expect("piped"),
            child.stdout.take().expect("piped"),
            child.stderr.take().expect("piped"),
        );
        let (send, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let bits = line.strip_prefix(REPLY).and_then(|b| b.parse().ok());
                if bits.is_some_and(|b| send.send(b).is_err()) {
                    break;
                }
            }
        });
        // Drained all the time, so that a chatty child never blocks on a full pipe.
        let stderr = std::thread::spawn(move || {
            let mut tail = Vec::new();
            let mut reader = BufReader::new(stderr);
            while let Ok(buf) = reader.fill_buf() {
                if buf.is_empty() {
                    break;
                }
                tail.extend_from_slice(buf);
                let n = buf.len();
                reader.consume(n);
                if tail.len() > 2 * STDERR_TAIL_BYTES {
                    tail.drain(..tail.len() - STDERR_TAIL_BYTES);
                }
            }
            String::from_utf8_lossy(&tail).into_owned()
        });
        Ok(Worker {
            child,
            stdin,
            replies,
            stderr: Some(stderr),
        })
    }

    /// Runs one input. After an `Err` the child is gone: spawn another.
    pub fn check(&mut self, input: &str, timeout: Duration) -> Result<Reached, Crash> {
        let len = u32::try_from(input.len()).expect("inputs are far below 4 GiB");
        let sent = self
            .stdin
            .write_all(&len.to_le_bytes())
            .and_then(|()| self.stdin.write_all(input.as_bytes()))
            .and_then(|()| self.stdin.flush());
        if sent.is_ok() {
            match self.replies.recv_timeout(timeout) {
                Ok(bits) => return Ok(Reached::from_bits(bits)),
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.end();
                    return Err(Crash {
                        kind: CrashKind::Hang,
                        signature: "no answer".to_string(),
                        message: format!("nothing within {timeout:?}"),
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {}
            }
        }
        let status = self.end();
        let stderr = self.stderr.take().and_then(|h| h.join().ok());
        Err(died(status, stderr.as_deref().unwrap_or("")))
    }

    /// Kills the child (if still running) and reaps it.
    fn end(&mut self) -> io::Result<ExitStatus> {
        let _ = self.child.kill();
        self.child.wait()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.end();
    }
}

/// The crash a child's death shows: a panic when it reported one, else its signal or exit.
fn died(status: io::Result<ExitStatus>, stderr: &str) -> Crash {
    if let Some(panic) = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(PANIC_LINE))
    {
        // The location ends at the third colon: `file:line:col: message`.
        let split = panic
            .match_indices(": ")
            .next()
            .map_or(panic.len(), |(i, _)| i);
        return Crash {
            kind: CrashKind::Panic,
            signature: panic[..split].to_string(),
            message: panic[split..].trim_start_matches(": ").to_string(),
        };
    }
    let last_words = stderr.lines().rev().find(|l| !l.trim().is_empty());
    let how = match status {
        Ok(s) => match s.signal() {
            Some(signal) => format!("signal {signal}"),
            None => format!("{s}"),
        },
        Err(e) => format!("cannot reap the worker: {e}"),
    };
    Crash {
        kind: CrashKind::Abort,
        signature: match last_words {
            Some(words) => format!("{how}: {}", words.trim()),
            None => how,
        },
        message: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reported_panic_is_named_by_its_location() {
        let stderr = "noise\nkosmos-fuzz:panic src/a.rs:3:9: index 7 out of range: len 2\n";
        let crash = died(Ok(ExitStatus::from_raw(6)), stderr);
        assert_eq!(crash.kind, CrashKind::Panic);
        assert_eq!(crash.signature, "src/a.rs:3:9");
        assert_eq!(crash.message, "index 7 out of range: len 2");
    }

    #[test]
    fn a_signal_is_an_abort_with_the_last_words() {
        let stderr =
            "thread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n\n";
        let crash = died(Ok(ExitStatus::from_raw(6)), stderr);
        assert_eq!(crash.kind, CrashKind::Abort);
        assert_eq!(
            crash.signature,
            "signal 6: fatal runtime error: stack overflow"
        );
    }
}

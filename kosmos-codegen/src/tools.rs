//! External tools: `ld.lld` links AMD objects into HSACO code objects; the scratch directory
//! and tool runner here are shared with the binary checks (`check.rs`).

use crate::CodegenError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The linker: `KOSMOS_LD_LLD` when set, else `ld.lld-22` (Debian's lld-22 package).
fn ld_lld() -> PathBuf {
    if let Some(p) = std::env::var_os("KOSMOS_LD_LLD").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    llvm_tool("ld.lld")
}

/// An LLVM 22 tool: Debian's unversioned copy under /usr/lib/llvm-22/bin, else `<name>-22`.
pub(crate) fn llvm_tool(name: &str) -> PathBuf {
    let versioned = Path::new("/usr/lib/llvm-22/bin").join(name);
    if versioned.exists() {
        versioned
    } else {
        PathBuf::from(format!("{name}-22"))
    }
}

/// A file operation on `path` that failed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct IoError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// A tool that failed, could not run, or printed what its caller could not use; `repro` is
/// a command line that reproduces it.
#[derive(Debug, thiserror::Error)]
#[error("{tool} failed: {message}\n  repro: {repro}")]
pub struct ToolFailure {
    pub tool: String,
    pub message: String,
    pub repro: String,
}

/// A scratch directory, removed on drop unless kept for a repro command.
pub(crate) struct Scratch {
    pub path: PathBuf,
    keep: bool,
}

impl Scratch {
    pub fn new() -> Result<Scratch, IoError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("kosmos-codegen-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|source| IoError {
            path: path.clone(),
            source,
        })?;
        Ok(Scratch { path, keep: false })
    }

    /// Writes `bytes` to `<scratch>/<name>` and returns that path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, IoError> {
        let path = self.path.join(name);
        std::fs::write(&path, bytes).map_err(|source| IoError {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// Runs `tool args`; `accept` turns its stdout and stderr into the result. When the tool
    /// cannot start, exits with failure or `accept` refuses its output, the directory stays
    /// so that the repro command works.
    pub fn run<T>(
        &mut self,
        tool: &Path,
        args: &[OsString],
        accept: impl FnOnce(&str, &str) -> Result<T, String>,
    ) -> Result<T, ToolFailure> {
        let repro = std::iter::once(tool.as_os_str())
            .chain(args.iter().map(OsString::as_os_str))
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        let result = match Command::new(tool).args(args).output() {
            Ok(o) => {
                let stdout = String::from_utf8_lossy(&o.stdout);
                let stderr = String::from_utf8_lossy(&o.stderr);
                if o.status.success() {
                    accept(&stdout, &stderr)
                } else {
                    Err(format!("{}: {}", o.status, stderr.trim()))
                }
            }
            Err(e) => Err(format!(
                "cannot run {}: {e} (`cargo xtask setup` installs it)",
                tool.display()
            )),
        };
        result.map_err(|message| {
            self.keep = true;
            ToolFailure {
                tool: tool.file_name().map_or_else(
                    || tool.display().to_string(),
                    |n| n.to_string_lossy().into(),
                ),
                message,
                repro,
            }
        })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            // Best effort: a leftover temporary directory is harmless.
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Links an AMDGPU relocatable object into a shared code object (HSACO).
pub(crate) fn link_hsaco(object: &[u8], stem: &str) -> Result<Vec<u8>, CodegenError> {
    let mut scratch = Scratch::new()?;
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let obj = scratch.write(&format!("{stem}.o"), object)?;
    let out = scratch.path.join(format!("{stem}.hsaco"));
    let args = [
        "-shared".into(),
        "-o".into(),
        out.clone().into(),
        obj.into(),
    ];
    scratch.run(&ld_lld(), &args, |_, _| Ok(()))?;
    Ok(std::fs::read(&out).map_err(|source| IoError { path: out, source })?)
}

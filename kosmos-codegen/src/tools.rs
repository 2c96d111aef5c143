//! External tools: `ld.lld` links AMD objects into HSACO code objects.

use crate::CodegenError;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The linker: `KOSMOS_LD_LLD` when set, else `ld.lld-22` (Debian's lld-22 package).
fn ld_lld() -> PathBuf {
    if let Some(p) = std::env::var_os("KOSMOS_LD_LLD").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let versioned = Path::new("/usr/lib/llvm-22/bin/ld.lld");
    if versioned.exists() {
        versioned.to_path_buf()
    } else {
        PathBuf::from("ld.lld-22")
    }
}

/// A scratch directory, removed on drop unless kept for a repro command.
struct Scratch {
    path: PathBuf,
    keep: bool,
}

impl Scratch {
    fn new() -> Result<Scratch, CodegenError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("kosmos-codegen-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|source| CodegenError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(Scratch { path, keep: false })
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

fn io(path: &Path) -> impl Fn(std::io::Error) -> CodegenError + '_ {
    move |source| CodegenError::Io {
        path: path.to_path_buf(),
        source,
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
    let obj = scratch.path.join(format!("{stem}.o"));
    let out = scratch.path.join(format!("{stem}.hsaco"));
    std::fs::write(&obj, object).map_err(io(&obj))?;
    let linker = ld_lld();
    let repro = format!(
        "{} -shared -o {} {}",
        linker.display(),
        out.display(),
        obj.display()
    );
    let result = Command::new(&linker)
        .arg("-shared")
        .arg("-o")
        .arg(&out)
        .arg(&obj)
        .output();
    let failure = match result {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "{}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Some(format!("cannot run {}: {e}", linker.display())),
    };
    if let Some(message) = failure {
        // Keep the object so that the repro command works.
        scratch.keep = true;
        return Err(CodegenError::Tool {
            tool: "ld.lld".into(),
            message,
            repro,
        });
    }
    std::fs::read(&out).map_err(io(&out))
}

//! Compiling kernels in a build script, so that `cargo build` produces the GPU binaries and the
//! programs that launch them never link LLVM.
//!
//! ```no_run
//! // build.rs
//! let module = kosmos_ir::Module::default(); // kernels built with kosmos_ir::KernelBuilder
//! kosmos_build::Build::from_env()
//!     .module("reference", module)
//!     .compile()
//!     .unwrap_or_else(|e| panic!("{e}"));
//! ```
//! ```ignore
//! // lib.rs: `pub static REFERENCE: kosmos_runtime::EmbeddedModule`
//! include!(concat!(env!("OUT_DIR"), "/kosmos_modules.rs"));
//! ```
//!
//! Targets come from `KOSMOS_TARGETS` (comma-separated: `gfx942,gfx950,sm_90a`, the default).
//! The embedded module lists its binaries by target name (`EmbeddedModule::binaries`), so a
//! target the code generator gains needs nothing here. Each (module, target) binary is cached
//! in `OUT_DIR` under a hash of the module's text and the target, so a build that changes one
//! module recompiles only that module.
//!
//! Kernels written in Rust with `#[kernel]` are found in the crate's sources by
//! [`Build::rust_sources`] and lowered by `kosmos-frontend`, the same code the macro runs:
//! ```no_run
//! // build.rs: `pub static KERNELS` for a crate named `kernels`
//! kosmos_build::Build::from_env()
//!     .rust_sources(["src/ops.rs"])
//!     .compile()
//!     .unwrap_or_else(|e| panic!("{e}"));
//! ```
//! Those modules are cached per kernel instance rather than per module: each instance is
//! compiled alone (an AMD object, or PTX) under a hash of its own IR text and the target,
//! then the instances are linked into the module's binary (`ld.lld -shared` for HSACO, the
//! PTX texts joined under one header). Editing one kernel recompiles that kernel only.

use kosmos_codegen::{Emit, Options, TargetKind};
use kosmos_ir::{Module, VerifiedModule};
use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("KOSMOS_TARGETS: {0}")]
    Targets(#[from] kosmos_codegen::UnknownTarget),
    #[error("OUT_DIR is not set: kosmos-build runs inside a build script")]
    NoOutDir,
    #[error("module `{module}` does not verify:\n{errors}")]
    Verify {
        module: String,
        errors: kosmos_ir::VerifyErrors,
    },
    #[error("module `{module}` for {target}: {source}")]
    Codegen {
        module: String,
        target: TargetKind,
        source: kosmos_codegen::CodegenError,
    },
    /// `rust_sources` names the module after the crate, but `CARGO_PKG_NAME` is not set.
    #[error("CARGO_PKG_NAME is not set: call `rust_module` to name the module")]
    NoPackageName,
    /// `ld.lld` failed to link kernel objects into a code object.
    #[error("linking {output}: {message}\n  repro: {repro}")]
    Link {
        output: PathBuf,
        message: String,
        repro: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The modules of one crate and the targets to compile them for.
pub struct Build {
    modules: Vec<(String, Module)>,
    /// Modules of `#[kernel]` functions: name and source files.
    rust_modules: Vec<(Option<String>, Vec<PathBuf>)>,
    /// An unknown name in `KOSMOS_TARGETS` is kept here and reported by `compile`.
    targets: Result<Vec<TargetKind>, kosmos_codegen::UnknownTarget>,
    out_dir: Option<PathBuf>,
}

impl Build {
    /// Targets from `KOSMOS_TARGETS`, output into `OUT_DIR`; tells cargo to rerun when the
    /// target list changes.
    pub fn from_env() -> Build {
        println!("cargo:rerun-if-env-changed=KOSMOS_TARGETS");
        let targets = match std::env::var("KOSMOS_TARGETS") {
            Ok(list) if !list.trim().is_empty() => {
                list.split(',').map(|t| t.trim().parse()).collect()
            }
            _ => Ok(TargetKind::ALL.to_vec()),
        };
        Build {
            modules: Vec::new(),
            rust_modules: Vec::new(),
            targets,
            out_dir: std::env::var_os("OUT_DIR").map(PathBuf::from),
        }
    }

    /// Explicit targets (tests and tools).
    pub fn with_targets(mut self, targets: &[TargetKind]) -> Build {
        self.targets = Ok(targets.to_vec());
        self
    }

    /// Explicit output directory instead of `OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Build {
        self.out_dir = Some(dir.into());
        self
    }

    /// Adds a module; `name` becomes the upper-case name of its `EmbeddedModule` static.
    pub fn module(mut self, name: &str, module: Module) -> Build {
        self.modules.push((name.to_string(), module));
        self
    }

    /// Adds a module of every `#[kernel]` function (every declared instance) in `paths`
    /// (relative to the crate's directory), named after the crate (`CARGO_PKG_NAME`): its
    /// static is the upper-cased name (`kernels` -> `KERNELS`, `user-kernel` ->
    /// `USER_KERNEL`). Cargo reruns the build script when one of the files changes.
    pub fn rust_sources<P: Into<PathBuf>>(self, paths: impl IntoIterator<Item = P>) -> Build {
        self.add_rust_module(None, paths)
    }

    /// Like [`Build::rust_sources`], with the module's name given.
    pub fn rust_module<P: Into<PathBuf>>(
        self,
        name: &str,
        paths: impl IntoIterator<Item = P>,
    ) -> Build {
        self.add_rust_module(Some(name.to_string()), paths)
    }

    fn add_rust_module<P: Into<PathBuf>>(
        mut self,
        name: Option<String>,
        paths: impl IntoIterator<Item = P>,
    ) -> Build {
        self.rust_modules
            .push((name, paths.into_iter().map(Into::into).collect()));
        self
    }

    /// Compiles every module for every target (in parallel, one thread per target) and writes
    /// `kosmos_modules.rs` into the output directory.
    pub fn compile(self) -> Result<(), BuildError> {
        let targets = self.targets?;
        let out = self.out_dir.clone().ok_or(BuildError::NoOutDir)?;
        let mut modules: Vec<(String, Module, bool)> = self
            .modules
            .into_iter()
            .map(|(name, module)| (name, module, false))
            .collect();
        for (name, paths) in &self.rust_modules {
            let name = match name {
                Some(n) => n.clone(),
                None => std::env::var("CARGO_PKG_NAME").map_err(|_| BuildError::NoPackageName)?,
            };
            modules.push((name, lower_rust_sources(paths)?, true));
        }
        let mut generated = String::from("// Generated by kosmos-build. Do not edit.\n");
        for (name, module, per_kernel) in modules {
            let kir = kosmos_ir::print_module(&module);
            let module =
                &kosmos_ir::verify_module(module).map_err(|errors| BuildError::Verify {
                    module: name.clone(),
                    errors,
                })?;
            let (name, per_kernel) = (&name, &per_kernel);
            let kir_path = write(&out, &format!("{name}.kir"), kir.as_bytes())?;
            let (out, kir) = (&out, &kir);
            let binaries = std::thread::scope(|s| {
                let handles: Vec<_> = targets
                    .iter()
                    .map(|&t| {
                        s.spawn(move || {
                            // A module without kernels has nothing to link per kernel.
                            if *per_kernel && !module.kernels().is_empty() {
                                compile_per_kernel(out, name, module, t)
                            } else {
                                compile_cached(out, name, module, kir, t)
                            }
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("codegen thread panicked"))
                    .collect::<Result<Vec<_>, _>>()
            })?;
            let binaries: String = binaries
                .iter()
                .map(|(target, path)| {
                    format!(
                        "\n        ({:?}, include_bytes!({:?})),",
                        target.name(),
                        path.display().to_string()
                    )
                })
                .collect();
            writeln!(
                generated,
                "pub static {ident}: ::kosmos_runtime::EmbeddedModule = \
                 ::kosmos_runtime::EmbeddedModule {{\n    name: {name:?},\n    \
                 kir: include_str!({kir:?}),\n    binaries: &[{binaries}\n    ],\n}};",
                ident = name.to_uppercase().replace('-', "_"),
                kir = kir_path.display().to_string(),
            )
            .expect("writing to a String");
        }
        write(&out, "kosmos_modules.rs", generated.as_bytes())?;
        Ok(())
    }
}

/// Reads `paths` (relative to `CARGO_MANIFEST_DIR`) and lowers every `#[kernel]` instance
/// in them into one module.
fn lower_rust_sources(paths: &[PathBuf]) -> Result<Module, BuildError> {
    let root = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let mut module = Module::default();
    for path in paths {
        println!("cargo:rerun-if-changed={}", path.display());
        let full = match &root {
            Some(root) if path.is_relative() => root.join(path),
            _ => path.clone(),
        };
        let source = std::fs::read_to_string(&full).map_err(|source| BuildError::Io {
            path: full.clone(),
            source,
        })?;
        let (kernels, errors) =
            kosmos_frontend::lower_file_lenient(&path.display().to_string(), &source);
        // A kernel that does not lower is the user's mistake, which the `#[kernel]` macro
        // reports at its tokens when rustc compiles the crate: leave it out, note it, go on.
        for e in errors {
            let start = e.span().start();
            let message = e.to_string().replace('\n', " ");
            println!(
                "cargo:warning={}:{}:{}: left out of the module: {message}",
                path.display(),
                start.line,
                start.column + 1
            );
        }
        module.kernels.extend(kernels);
    }
    Ok(module)
}

/// A cache key for `text` compiled for `target` by this build of the toolchain.
fn content_hash(text: &str, target: TargetKind) -> u64 {
    let mut hasher = DefaultHasher::new();
    (text, target.name(), toolchain_stamp()).hash(&mut hasher);
    hasher.finish()
}

/// Which build of the code generator is running: the build script that links it is relinked
/// whenever the code generator changes, so its size and time stamp change with it (the crate
/// version alone would keep binaries of an older code generator).
fn toolchain_stamp() -> (&'static str, u64, u128) {
    let exe = std::env::current_exe().and_then(std::fs::metadata).ok();
    let len = exe.as_ref().map_or(0, |m| m.len());
    let modified = exe
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    (env!("CARGO_PKG_VERSION"), len, modified)
}

/// Compiles each kernel of `module` alone (cached by its own IR text) and links the results
/// into one binary for `target`.
fn compile_per_kernel(
    out: &Path,
    name: &str,
    module: &VerifiedModule,
    target: TargetKind,
) -> Result<(TargetKind, PathBuf), BuildError> {
    let mut parts = Vec::new();
    // A kernel with more shared memory than the target has stays out of its binary; the
    // runtime's launch of it there says why (it has the kernel's IR).
    for kernel in module.kernels().iter().filter(|k| target.fits(k)) {
        let kir = kosmos_ir::print_kernel(kernel);
        let single = VerifiedModule::from(kernel.clone());
        let ext = if target.is_amdgpu() { "o" } else { "ptx" };
        let file = format!(
            "{name}-{}-{target}-{:016x}.{ext}",
            kernel.name,
            content_hash(&kir, target)
        );
        let path = out.join(&file);
        if !path.exists() {
            let emit = if target.is_amdgpu() {
                Emit::Obj
            } else {
                Emit::Binary
            };
            let artifact = kosmos_codegen::compile_to(&single, target, emit, &Options::from_env())
                .map_err(|source| BuildError::Codegen {
                    module: format!("{name}::{}", kernel.name),
                    target,
                    source,
                })?;
            write(out, &file, &artifact.bytes)?;
        }
        parts.push(path);
    }
    let key: Vec<String> = parts.iter().map(|p| p.display().to_string()).collect();
    let ext = if target.is_amdgpu() { "hsaco" } else { "ptx" };
    let linked = out.join(format!(
        "{name}-{target}-{:016x}.{ext}",
        content_hash(&key.join("\n"), target)
    ));
    if !linked.exists() {
        if target.is_amdgpu() {
            link_hsaco(&parts, &linked)?;
        } else {
            let mut texts = Vec::new();
            for p in &parts {
                texts.push(std::fs::read_to_string(p).map_err(|source| BuildError::Io {
                    path: p.clone(),
                    source,
                })?);
            }
            let file = linked.file_name().unwrap().to_str().unwrap();
            write(out, file, join_ptx(&texts).as_bytes())?;
        }
    }
    Ok((target, linked))
}

/// PTX modules joined into one: the first keeps its header, the others lose theirs (every
/// module has the same `.version`/`.target`/`.address_size`; kernel and shared-memory symbols
/// carry their kernel's name, so they do not collide).
fn join_ptx(texts: &[String]) -> String {
    let mut joined = String::new();
    for (i, text) in texts.iter().enumerate() {
        for line in text.lines() {
            let header = [".version", ".target", ".address_size"]
                .iter()
                .any(|h| line.trim_start().starts_with(h));
            if i == 0 || !header {
                joined.push_str(line);
                joined.push('\n');
            }
        }
    }
    joined
}

/// Links AMD objects into a code object with `ld.lld -shared` (`KOSMOS_LD_LLD`, else LLVM
/// 22's), as kosmos-codegen links a whole module.
fn link_hsaco(objects: &[PathBuf], output: &Path) -> Result<(), BuildError> {
    let lld = match std::env::var_os("KOSMOS_LD_LLD").filter(|p| !p.is_empty()) {
        Some(p) => PathBuf::from(p),
        None if Path::new("/usr/lib/llvm-22/bin/ld.lld").exists() => {
            PathBuf::from("/usr/lib/llvm-22/bin/ld.lld")
        }
        None => PathBuf::from("ld.lld-22"),
    };
    let mut cmd = std::process::Command::new(&lld);
    cmd.arg("-shared").arg("-o").arg(output).args(objects);
    let repro = format!("{cmd:?}").replace('"', "");
    let fail = |message: String| BuildError::Link {
        output: output.to_path_buf(),
        message,
        repro: repro.clone(),
    };
    let result = cmd
        .output()
        .map_err(|e| fail(format!("cannot run {}: {e}", lld.display())))?;
    if !result.status.success() {
        return Err(fail(
            String::from_utf8_lossy(&result.stderr).trim().to_string(),
        ));
    }
    Ok(())
}

/// Compiles one module for one target unless a binary for the same text and target exists.
fn compile_cached(
    out: &Path,
    name: &str,
    module: &VerifiedModule,
    kir: &str,
    target: TargetKind,
) -> Result<(TargetKind, PathBuf), BuildError> {
    let ext = if target.is_amdgpu() { "hsaco" } else { "ptx" };
    let path = out.join(format!(
        "{name}-{target}-{:016x}.{ext}",
        content_hash(kir, target)
    ));
    if !path.exists() {
        let artifact =
            kosmos_codegen::compile(module, target, &Options::from_env()).map_err(|source| {
                BuildError::Codegen {
                    module: name.to_string(),
                    target,
                    source,
                }
            })?;
        write(
            out,
            path.file_name().unwrap().to_str().unwrap(),
            &artifact.bytes,
        )?;
    }
    Ok((target, path))
}

fn write(dir: &Path, file: &str, bytes: &[u8]) -> Result<PathBuf, BuildError> {
    let path = dir.join(file);
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, bytes))
        .map_err(|source| BuildError::Io {
            path: path.clone(),
            source,
        })?;
    Ok(path)
}

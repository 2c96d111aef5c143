//! Lowering of KOSMOS IR through LLVM 22 to AMDGPU code objects (gfx942, gfx950) and PTX
//! (sm_90a).
//!
//! Layout:
//! - `lower/`: the one lowering of IR to LLVM IR, written against the `Target` trait:
//!   `mod.rs` (kernel, values, dispatch per op), `control.rs` (regions, `if`/`for`/`loop`),
//!   `arith.rs` (arithmetic, conversions, vectors), `memory.rs` (loads, stores, atomics,
//!   fences, shared memory), `tile.rs` (fragments, `mma`).
//! - `target/`: `mod.rs` holds the `Target` trait (what differs between GPUs), [`TargetKind`]
//!   and the fragment layouts; `amdgpu.rs` and `nvptx.rs` implement it.
//! - `llvm.rs`: the LLVM building blocks both use (the function builder, intrinsic and
//!   inline-asm calls, atomics with a sync scope). Targets depend on it and on the trait,
//!   never on the lowering.
//! - `fatal.rs` turns LLVM's fatal errors into [`CodegenError::LlvmFatal`].
//! - `tools.rs` runs `ld.lld`; [`check`] reads binaries back.
//!
//! A compilation runs named stages, each dumpable to `KOSMOS_DUMP=<dir>`:
//! `0.kir`, `1-llvm.ll`, `2-opt.ll` (after `default<O3>`), `3-asm.s`, then `4.o` + `5.hsaco`
//! (AMD, linked by `ld.lld-22 -shared`) or `5.ptx` (NVIDIA).
//!
//! Semantics the GPU targets do not share with the CPU device: integer division or remainder
//! by zero is undefined behaviour on the GPUs (the CPU device reports it as an error).
//!
//! The entry points take only a [`VerifiedModule`] (from `kosmos_ir::verify_module`): the
//! verifier rejects everything the targets cannot express, so a verified module compiles for
//! every target. The lowering relies on what the verifier checked (asserting it in debug
//! builds); LLVM's verifier checks the lowered module before any pass runs. Should LLVM still
//! meet input it cannot handle, its fatal error (which would exit the process) becomes
//! [`CodegenError::LlvmFatal`] (`fatal.rs`).
//!
//! [`check`] reads the binaries back with ptxas and the LLVM 22 tools (registers, spills,
//! kernel metadata, disassembly) for tests and CI.

pub mod check;
mod fatal;
mod llvm;
mod lower;
mod target;
mod tools;

pub use target::{TargetKind, UnknownTarget};
pub use tools::{IoError, ToolFailure};

use fatal::LeakOnUnwind;
use inkwell::OptimizationLevel;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine,
    TargetTriple,
};
use kosmos_ir::VerifiedModule;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// Everything that can go wrong while compiling a module.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    /// The lowering cannot express an instruction for this target.
    #[error("{kernel}: {pos}: `{op}`: cannot lower for {target}: {message}")]
    Unsupported {
        target: TargetKind,
        kernel: String,
        pos: String,
        op: &'static str,
        message: String,
    },
    /// A kernel needs more shared memory than the target has.
    #[error("{kernel}: needs {bytes} bytes of shared memory; {target} has at most {limit}")]
    SharedMemory {
        target: TargetKind,
        kernel: String,
        bytes: u64,
        limit: u64,
    },
    /// LLVM rejected the lowered module or a pipeline step (a bug in the lowering).
    #[error("LLVM {stage}: {message}")]
    Llvm {
        stage: &'static str,
        message: String,
    },
    /// LLVM reported a fatal error (a backend that cannot handle the lowered module, e.g.
    /// an instruction it cannot select): a bug in the lowering, reported instead of the
    /// process exit LLVM would make.
    #[error("LLVM fatal error: {message}")]
    LlvmFatal { message: String },
    /// An external tool (ld.lld) failed.
    #[error(transparent)]
    Tool(#[from] ToolFailure),
    #[error(transparent)]
    Io(#[from] IoError),
}

/// How far to take a compilation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Emit {
    /// LLVM IR as lowered (`1-llvm.ll`).
    Llvm,
    /// LLVM IR after the O3 pipeline (`2-opt.ll`).
    OptLlvm,
    /// Target assembly (`3-asm.s`; PTX on NVIDIA).
    Asm,
    /// The relocatable object (`4.o`, AMD only).
    Obj,
    /// The loadable binary: HSACO on AMD (`5.hsaco`), PTX on NVIDIA (`5.ptx`).
    Binary,
}

impl Emit {
    pub fn from_name(name: &str) -> Option<Emit> {
        Some(match name {
            "llvm" => Emit::Llvm,
            "opt-llvm" => Emit::OptLlvm,
            "asm" => Emit::Asm,
            "obj" => Emit::Obj,
            "hsaco" | "ptx" | "binary" => Emit::Binary,
            _ => return None,
        })
    }
}

/// Compilation options.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Write every stage under this directory (`<dir>/<module>-<target>/<stage>`).
    pub dump_dir: Option<PathBuf>,
}

impl Options {
    /// Options from the environment: `KOSMOS_DUMP=<dir>` sets [`Options::dump_dir`].
    pub fn from_env() -> Options {
        Options {
            dump_dir: std::env::var_os("KOSMOS_DUMP")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from),
        }
    }
}

/// One named stage's output (`name` is its dump file name, e.g. `2-opt.ll`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    pub name: &'static str,
    pub data: Vec<u8>,
}

/// The result of a compilation: the final output and every stage produced on the way.
#[derive(Clone, Debug)]
pub struct Artifact {
    pub target: TargetKind,
    pub emit: Emit,
    /// The requested output: text for LLVM IR, assembly and PTX; bytes for objects and HSACO.
    pub bytes: Vec<u8>,
    pub stages: Vec<Stage>,
}

impl Artifact {
    /// The output as text, when it is text (LLVM IR, assembly, PTX).
    pub fn text(&self) -> Option<&str> {
        match self.emit {
            Emit::Obj => None,
            Emit::Binary if self.target.is_amdgpu() => None,
            _ => std::str::from_utf8(&self.bytes).ok(),
        }
    }

    pub fn stage(&self, name: &str) -> Option<&Stage> {
        self.stages.iter().find(|s| s.name == name)
    }
}

/// Compiles `module` for `target` into its loadable binary (HSACO or PTX).
pub fn compile(
    module: &VerifiedModule,
    target: TargetKind,
    opts: &Options,
) -> Result<Artifact, CodegenError> {
    compile_to(module, target, Emit::Binary, opts)
}

/// The lowered LLVM IR (before optimisation) as text.
pub fn emit_llvm_ir(module: &VerifiedModule, target: TargetKind) -> Result<String, CodegenError> {
    text_of(compile_to(module, target, Emit::Llvm, &Options::default())?)
}

/// The optimised LLVM IR as text.
pub fn emit_opt_llvm_ir(
    module: &VerifiedModule,
    target: TargetKind,
) -> Result<String, CodegenError> {
    text_of(compile_to(
        module,
        target,
        Emit::OptLlvm,
        &Options::default(),
    )?)
}

/// Target assembly (AMDGPU assembly or PTX) after optimisation.
pub fn emit_asm(module: &VerifiedModule, target: TargetKind) -> Result<String, CodegenError> {
    text_of(compile_to(module, target, Emit::Asm, &Options::default())?)
}

fn text_of(artifact: Artifact) -> Result<String, CodegenError> {
    String::from_utf8(artifact.bytes).map_err(|e| CodegenError::Llvm {
        stage: "output",
        message: format!("output is not UTF-8: {e}"),
    })
}

/// Compiles `module` for `target` up to `emit`, keeping each stage produced.
pub fn compile_to(
    module: &VerifiedModule,
    target: TargetKind,
    emit: Emit,
    opts: &Options,
) -> Result<Artifact, CodegenError> {
    if emit == Emit::Obj && !target.is_amdgpu() {
        return Err(CodegenError::Llvm {
            stage: "emit",
            message: format!("{target} has no object stage (its binary is PTX)"),
        });
    }
    if let Some(kernel) = module.kernels().iter().find(|k| !target.fits(k)) {
        return Err(CodegenError::SharedMemory {
            target,
            kernel: kernel.name.clone(),
            bytes: kernel.shared_layout().1,
            limit: target.max_shared_bytes(),
        });
    }
    let mut pipeline = Pipeline {
        target,
        stages: Vec::new(),
        dump: match &opts.dump_dir {
            Some(dir) => Some(dump_dir(dir, module, target)?),
            None => None,
        },
    };
    pipeline.stage(
        "0.kir",
        kosmos_ir::print_module(&module.to_module()).into_bytes(),
    )?;
    let bytes = fatal::catch(|| pipeline.run(module, emit))?;
    Ok(Artifact {
        target,
        emit,
        bytes,
        stages: pipeline.stages,
    })
}

fn dump_dir(
    root: &Path,
    module: &VerifiedModule,
    target: TargetKind,
) -> Result<PathBuf, CodegenError> {
    let dir = root.join(format!("{}-{target}", module_stem(module)));
    std::fs::create_dir_all(&dir).map_err(|source| IoError {
        path: dir.clone(),
        source,
    })?;
    Ok(dir)
}

struct Pipeline {
    target: TargetKind,
    stages: Vec<Stage>,
    dump: Option<PathBuf>,
}

fn llvm_err(stage: &'static str) -> impl Fn(inkwell::support::LLVMString) -> CodegenError {
    move |m| CodegenError::Llvm {
        stage,
        message: m.to_string(),
    }
}

fn init_llvm() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let config = InitializationConfig::default();
        LlvmTarget::initialize_amd_gpu(&config);
        LlvmTarget::initialize_nvptx(&config);
        fatal::install_handler();
    });
}

impl Pipeline {
    fn stage(&mut self, name: &'static str, data: Vec<u8>) -> Result<(), CodegenError> {
        if let Some(dir) = &self.dump {
            let path = dir.join(name);
            std::fs::write(&path, &data).map_err(|source| IoError { path, source })?;
        }
        self.stages.push(Stage { name, data });
        Ok(())
    }

    fn last(&self) -> Vec<u8> {
        self.stages
            .last()
            .map(|s| s.data.clone())
            .unwrap_or_default()
    }

    fn run(&mut self, module: &VerifiedModule, emit: Emit) -> Result<Vec<u8>, CodegenError> {
        let machine = self.target_machine()?;
        // Each compilation owns its context: compilations may run on several threads.
        let ctx = LeakOnUnwind::new(Context::create());
        let llvm = LeakOnUnwind::new(ctx.create_module(module_stem(module)));
        let target = self.target.target();
        llvm.set_triple(&machine.get_triple());
        llvm.set_data_layout(&machine.get_target_data().get_data_layout());
        target.configure_module(&llvm);
        lower::lower_kernels(&ctx, &llvm, target.as_ref(), module.kernels()).map_err(|e| {
            CodegenError::Unsupported {
                target: self.target,
                kernel: e.kernel,
                pos: e.pos,
                op: e.op,
                message: e.message,
            }
        })?;
        self.finish(&machine, &llvm, emit, module_stem(module))
    }

    fn target_machine(&self) -> Result<LeakOnUnwind<TargetMachine>, CodegenError> {
        init_llvm();
        let target = self.target.target();
        let triple = TargetTriple::create(target.triple());
        let llvm_target = LlvmTarget::from_triple(&triple).map_err(llvm_err("target lookup"))?;
        let machine = llvm_target
            .create_target_machine(
                &triple,
                target.cpu(),
                target.features(),
                OptimizationLevel::Aggressive,
                RelocMode::Default,
                CodeModel::Default,
            )
            .ok_or_else(|| CodegenError::Llvm {
                stage: "target machine",
                message: format!("cannot create a target machine for {}", self.target),
            })?;
        Ok(LeakOnUnwind::new(machine))
    }

    /// The stages after lowering: LLVM's verifier, `default<O3>`, code generation, linking.
    fn finish(
        &mut self,
        machine: &TargetMachine,
        llvm: &Module<'_>,
        emit: Emit,
        stem: &str,
    ) -> Result<Vec<u8>, CodegenError> {
        llvm.verify().map_err(llvm_err("verifier"))?;
        self.stage("1-llvm.ll", llvm.print_to_string().to_bytes().to_vec())?;
        if emit == Emit::Llvm {
            return Ok(self.last());
        }

        llvm.run_passes("default<O3>", machine, PassBuilderOptions::create())
            .map_err(llvm_err("default<O3>"))?;
        self.stage("2-opt.ll", llvm.print_to_string().to_bytes().to_vec())?;
        if emit == Emit::OptLlvm {
            return Ok(self.last());
        }

        let amd = self.target.target().links_object();
        // Assembly costs a second code generation on AMD: only when asked for or dumped.
        if emit == Emit::Asm || self.dump.is_some() || !amd {
            let asm = self.codegen(machine, llvm, FileType::Assembly)?;
            self.stage("3-asm.s", asm)?;
            if emit == Emit::Asm {
                return Ok(self.last());
            }
        }
        if !amd {
            self.stage("5.ptx", self.last())?;
            return Ok(self.last());
        }
        let object = self.codegen(machine, llvm, FileType::Object)?;
        self.stage("4.o", object.clone())?;
        if emit == Emit::Obj {
            return Ok(object);
        }
        let hsaco = tools::link_hsaco(&object, stem)?;
        self.stage("5.hsaco", hsaco.clone())?;
        Ok(hsaco)
    }

    fn codegen(
        &self,
        machine: &TargetMachine,
        llvm: &Module<'_>,
        file_type: FileType,
    ) -> Result<Vec<u8>, CodegenError> {
        // Code generation mutates the module: each artifact comes from a copy.
        let copy = LeakOnUnwind::new(llvm.clone());
        let buffer = machine
            .write_to_memory_buffer(&copy, file_type)
            .map_err(llvm_err("code generation"))?;
        Ok(buffer.as_slice().to_vec())
    }
}

fn module_stem(module: &VerifiedModule) -> &str {
    module
        .kernels()
        .first()
        .map_or("module", |k| k.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::memory_buffer::MemoryBuffer;

    /// A kernel NVPTX cannot compile: LLVM 22 reports the unknown sync scope as a fatal
    /// error ("NVPTX backend does not support syncscope").
    const UNKNOWN_SYNC_SCOPE: &str = r#"
define ptx_kernel void @bad_scope() {
  fence syncscope("no-such-scope") seq_cst
  ret void
}
"#;

    /// Compiles LLVM IR text for `target` as `compile_to` compiles a lowered module.
    fn compile_llvm_ir(target: TargetKind, ir: &str) -> Result<Vec<u8>, CodegenError> {
        let mut pipeline = Pipeline {
            target,
            stages: Vec::new(),
            dump: None,
        };
        fatal::catch(|| {
            let machine = pipeline.target_machine()?;
            let ctx = LeakOnUnwind::new(Context::create());
            let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "test.ll");
            let llvm = ctx
                .create_module_from_ir(buffer)
                .map_err(llvm_err("parse"))?;
            let llvm = LeakOnUnwind::new(llvm);
            llvm.set_triple(&machine.get_triple());
            llvm.set_data_layout(&machine.get_target_data().get_data_layout());
            pipeline.finish(&machine, &llvm, Emit::Binary, "test")
        })
    }

    fn compiles_everywhere() {
        let module = kosmos_ir::verify_module(kosmos_ir::Module {
            kernels: vec![kosmos_testkernels::vector_add()],
        })
        .expect("vector_add verifies");
        for target in TargetKind::ALL {
            compile(&module, target, &Options::default())
                .unwrap_or_else(|e| panic!("{target}: {e}"));
        }
    }

    #[test]
    fn an_llvm_fatal_error_is_an_error_and_llvm_works_on() {
        for _ in 0..2 {
            let err = compile_llvm_ir(TargetKind::Sm90a, UNKNOWN_SYNC_SCOPE)
                .expect_err("NVPTX has no sync scope `no-such-scope`");
            let CodegenError::LlvmFatal { message } = &err else {
                panic!("expected an LLVM fatal error, got {err}");
            };
            assert!(
                message.contains("syncscope") && message.contains("no-such-scope"),
                "{message}"
            );
            // The same thread and a fresh one compile again, with new LLVM objects.
            compiles_everywhere();
            std::thread::spawn(compiles_everywhere)
                .join()
                .expect("a compilation on another thread");
        }
    }
}

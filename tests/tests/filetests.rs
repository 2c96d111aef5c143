//! Runs every `.kir` file under `tests/filetests/` as one test (docs/ir.md, "File tests").
//!
//! A test kind is one function below; shared file handling lives in
//! `kosmos_tests::filetest`. Every `print` and `run` file that verifies also compiles for
//! every GPU target, with its binaries checked by ptxas and llvm-readelf; a `compile` file
//! holds the exact assembly it compiles to in files beside it.

use kosmos_codegen::{Options, TargetKind, check};
use kosmos_tests::filetest::{self, TestFile, diff};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let files = filetest::collect(&root).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            Trial::test(name, move || run_file(&path).map_err(Failed::from))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn run_file(path: &Path) -> Result<(), String> {
    let file = TestFile::read(path)?;
    match file.kind.as_str() {
        "print" => print(&file),
        "parse-error" => parse_error(&file),
        "verify" => verify(&file),
        "run" => run(&file),
        "compile" => compile(&file),
        "fuzz" => fuzz(&file),
        other => Err(format!(
            "unknown test kind '{other}' (expected print, parse-error, verify, run, compile or fuzz)"
        )),
    }
}

/// Parses, verifies, and prints back exactly the file's text after its `; test` line.
fn print(file: &TestFile) -> Result<(), String> {
    if file.expect.is_some() {
        return Err("a print test has no expect block: the file is its own expectation".into());
    }
    let module = kosmos_ir::parse_module(&file.body).map_err(|e| format!("parse error: {e}"))?;
    let printed = kosmos_ir::print_module(&module);
    let module = kosmos_ir::verify_module(module).map_err(|e| format!("verifier errors:\n{e}"))?;
    let expected = file.body_after_header();
    if printed != expected {
        return Err(format!(
            "printed text differs from the file\n{}",
            diff(expected, &printed)
        ));
    }
    compiles_for_every_target(&module)
}

/// Runs the file's kernel on the CPU device and compares the output; a file whose module
/// verifies must also compile for the GPUs.
fn run(file: &TestFile) -> Result<(), String> {
    let out = kosmos_tests::filerun::run(&file.body)?;
    file.check_expect(&out)?;
    match kosmos_ir::parse_module(&file.body).map(kosmos_ir::verify_module) {
        Ok(Ok(module)) => compiles_for_every_target(&module),
        _ => Ok(()),
    }
}

/// Compiles `module` for gfx942, gfx950 and sm_90a: ptxas must assemble the PTX and report
/// every kernel; each HSACO's notes must list every kernel with its `.kd` descriptor.
fn compiles_for_every_target(module: &kosmos_ir::VerifiedModule) -> Result<(), String> {
    for target in TargetKind::ALL {
        let artifact = kosmos_codegen::compile(module, target, &Options::default())
            .map_err(|e| format!("{target}: {e}"))?;
        let listed: Vec<String> = if target.is_amdgpu() {
            let summary =
                check::hsaco_summary(&artifact.bytes).map_err(|e| format!("{target}: {e}"))?;
            if !summary.target.ends_with(&format!("--{target}")) {
                return Err(format!("{target}: amdhsa.target is {}", summary.target));
            }
            let listed = summary
                .kernels
                .iter()
                .filter(|k| k.symbol == format!("{}.kd", k.name))
                .map(|k| k.name.clone());
            listed.collect()
        } else {
            let ptx = artifact.text().ok_or("sm_90a: the PTX is not UTF-8")?;
            let report = check::assemble_ptx(ptx).map_err(|e| format!("{target}: {e}"))?;
            report.kernels.into_iter().map(|k| k.name).collect()
        };
        for kernel in module.kernels() {
            if !listed.contains(&kernel.name) {
                return Err(format!(
                    "{target}: the binary does not list kernel {} (it lists {listed:?})",
                    kernel.name
                ));
            }
        }
    }
    Ok(())
}

/// The line of a `compile` file naming the targets it is compiled for.
const TARGETS_LINE: &str = "; targets:";

/// Compiles the module for each target on its `; targets:` line (every GPU target without
/// one) and compares the assembly with the file beside it, `<name>.<target>.s`, exactly:
/// compile files are for code whose instruction sequence is the point (orderings, fences,
/// matrix and async-copy instructions). ptxas must also assemble the PTX without spilling
/// and without a "Potential Performance Loss" (an ignored `setmaxnreg`, serialized wgmmas).
fn compile(file: &TestFile) -> Result<(), String> {
    if file.expect.is_some() {
        return Err("a compile test keeps its assembly beside it, not in an expect block".into());
    }
    let module = kosmos_ir::parse_module(&file.body).map_err(|e| format!("parse error: {e}"))?;
    let module = kosmos_ir::verify_module(module).map_err(|e| format!("verifier errors:\n{e}"))?;
    for target in compile_targets(file)? {
        let asm =
            kosmos_codegen::emit_asm(&module, target).map_err(|e| format!("{target}: {e}"))?;
        if !target.is_amdgpu() {
            let report = check::assemble_ptx(&asm).map_err(|e| format!("{target}: {e}"))?;
            if let Some(k) = report.kernels.iter().find(|k| k.spill_bytes() != 0) {
                return Err(format!("{target}: {} spills:\n{}", k.name, report.output));
            }
            if !report.performance_losses().is_empty() {
                return Err(format!(
                    "{target}: ptxas lost performance:\n{}",
                    report.output
                ));
            }
        }
        file.check_beside(&format!("{target}.s"), &asm)?;
    }
    Ok(())
}

/// The targets a `compile` file names, in its order.
fn compile_targets(file: &TestFile) -> Result<Vec<TargetKind>, String> {
    let Some(line) = file.body.lines().find_map(|l| l.strip_prefix(TARGETS_LINE)) else {
        return Ok(TargetKind::ALL.to_vec());
    };
    line.split_whitespace()
        .map(|name| {
            name.parse::<TargetKind>()
                .map_err(|e| format!("{TARGETS_LINE} {name}: {e}"))
        })
        .collect()
}

/// An input the fuzzer once crashed on: parse, verify, the CPU device and codegen must each
/// return, with a value or an error; a panic fails the test (an abort or a hang fails the
/// whole run, as it did the fuzzer's worker).
fn fuzz(file: &TestFile) -> Result<(), String> {
    if file.expect.is_some() {
        return Err("a fuzz test has no expect block: returning at all is the expectation".into());
    }
    kosmos_fuzz::pipeline::check(&file.text);
    Ok(())
}

/// Parsing fails with the error in the expect block.
fn parse_error(file: &TestFile) -> Result<(), String> {
    match kosmos_ir::parse_module(&file.body) {
        Ok(_) => Err("the file parsed, but a parse error was expected".into()),
        Err(e) => file.check_expect(&e.to_string()),
    }
}

/// Parsing succeeds and the verifier reports the errors in the expect block (none for an
/// empty block).
fn verify(file: &TestFile) -> Result<(), String> {
    let module = kosmos_ir::parse_module(&file.body).map_err(|e| format!("parse error: {e}"))?;
    let actual = match kosmos_ir::verify_module(module) {
        Ok(_) => String::new(),
        Err(errors) => errors.to_string(),
    };
    file.check_expect(&actual)
}

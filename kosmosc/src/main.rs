//! `kosmosc input.kir --target gfx942|gfx950|sm_90a [--emit llvm|opt-llvm|asm|obj|hsaco|ptx]
//! [-o out] [--dump-dir dir] [--disassemble]`

use kosmos_codegen::{Emit, Options, TargetKind, compile_to};
use std::path::PathBuf;
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: kosmosc INPUT.kir --target gfx942|gfx950|sm_90a \
[--emit llvm|opt-llvm|asm|obj|hsaco|ptx] [-o OUT] [--dump-dir DIR] [--disassemble]";

struct Args {
    input: PathBuf,
    target: TargetKind,
    emit: Emit,
    output: Option<PathBuf>,
    dump_dir: Option<PathBuf>,
    disassemble: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut input, mut target, mut emit, mut output, mut dump_dir) =
        (None, None, None, None, None);
    let mut disassemble = false;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--target" => {
                target = Some(
                    value("--target")?
                        .parse::<TargetKind>()
                        .map_err(|e| e.to_string())?,
                )
            }
            "--emit" => {
                let v = value("--emit")?;
                emit = Some(Emit::from_name(&v).ok_or(format!("unknown --emit `{v}`"))?);
            }
            "-o" => output = Some(PathBuf::from(value("-o")?)),
            "--dump-dir" => dump_dir = Some(PathBuf::from(value("--dump-dir")?)),
            "--disassemble" => disassemble = true,
            "-h" | "--help" => return Err(USAGE.to_string()),
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            s if input.is_none() => input = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument `{s}`")),
        }
    }
    let target = target.ok_or("--target is required")?;
    let emit = emit.unwrap_or(Emit::Binary);
    if disassemble && !(target.is_amdgpu() && emit == Emit::Binary) {
        return Err("--disassemble applies to HSACO output (an AMD target)".into());
    }
    Ok(Args {
        input: input.ok_or("no input file")?,
        target,
        emit,
        output,
        dump_dir: dump_dir.or_else(|| Options::from_env().dump_dir),
        disassemble,
    })
}

fn run(args: Args) -> Result<(), String> {
    let path = args.input.display().to_string();
    let text = std::fs::read_to_string(&args.input).map_err(|e| format!("{path}: {e}"))?;
    // Parse errors carry line:col; verifier errors name kernel and position.
    let module = kosmos_ir::parse_module(&text).map_err(|e| format!("{path}:{e}"))?;
    let module = kosmos_ir::verify_module(module)
        .map_err(|e| format!("{path}: the module does not verify:\n{e}"))?;
    let opts = Options {
        dump_dir: args.dump_dir,
    };
    let artifact =
        compile_to(&module, args.target, args.emit, &opts).map_err(|e| format!("{path}: {e}"))?;
    let output = args.output.unwrap_or_else(|| {
        let ext = match (args.emit, args.target.is_amdgpu()) {
            (Emit::Llvm, _) => "ll",
            (Emit::OptLlvm, _) => "opt.ll",
            (Emit::Asm, true) => "s",
            (Emit::Obj, _) => "o",
            (Emit::Binary, true) => "hsaco",
            (Emit::Asm | Emit::Binary, false) => "ptx",
        };
        args.input.with_extension(format!("{}.{ext}", args.target))
    });
    std::fs::write(&output, &artifact.bytes).map_err(|e| format!("{}: {e}", output.display()))?;
    if args.disassemble {
        let objdump = Command::new("llvm-objdump-22")
            .args(["-d", &format!("--mcpu={}", args.target)])
            .arg(&output)
            .status()
            .map_err(|e| format!("cannot run llvm-objdump-22: {e}"))?;
        if !objdump.success() {
            return Err(format!(
                "llvm-objdump-22 -d --mcpu={} {} failed",
                args.target,
                output.display()
            ));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)).and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("kosmosc: {message}");
            ExitCode::FAILURE
        }
    }
}

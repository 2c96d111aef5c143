//! Project tasks. `cargo xtask setup | test | demo | fuzz | ptxas | python | python-wheel |
//! device-bundle | bench-at`.
//!
//! std only: every step is an external command, run with inherited stdio, and a failing step
//! stops the task with a message naming the command.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// ptxas from PyPI, pinned to CUDA 13.0: the H200 machines' driver is CUDA 13.0 (PTX ISA <= 9.0),
/// so this ptxas rejects exactly the PTX versions that driver would reject.
const NVCC_WHEEL: &str = "nvidia-cuda-nvcc==13.0.88";

/// Debian packages for building against LLVM 22 (static linking wants the -dev libraries too).
const LLVM_PACKAGES: &[&str] = &[
    "llvm-22-dev",
    "lld-22",
    "libpolly-22-dev",
    "libzstd-dev",
    "zlib1g-dev",
    "libz3-dev",
    "libxml2-dev",
    "libffi-dev",
    "libncurses-dev",
];

/// What building the Python package (`python/`) and running its numpy tests needs, in its
/// own venv.
const PYTHON_PACKAGES: &[&str] = &["maturin>=1.7,<2", "numpy", "ml_dtypes", "pytest"];

/// What `cargo xtask test` adds to that venv: torch (PyPI's build, about 5 GB with CUDA
/// libraries that idle on a machine without a GPU) and jax run the tests of their arrays on
/// the CPU. The package itself imports neither unless asked to.
const PYTHON_TEST_PACKAGES: &[&str] = &["torch", "jax"];

/// Optional: lets `kosmos-runtime --features hip` build (HIP 5.2; build-only, not for running).
const HIP_PACKAGE: &str = "libamdhip64-dev";

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup().map(|_| ()),
        Some("test") => test(),
        Some("demo") => run_release(&["-p", "kosmos-tests", "--bin", "demo"], &args[1..]),
        Some("fuzz") => run_release(&["-p", "kosmos-fuzz"], &args[1..]),
        Some("ptxas") => ptxas().map(|p| println!("{}", p.display())),
        Some("python") => setup().and_then(|env| python_develop(&env)).map(|venv| {
            println!(
                "xtask: kosmos installed in {}: `{}/bin/python -c \"import kosmos\"`",
                venv.display(),
                venv.display()
            )
        }),
        Some("python-wheel") => setup().and_then(|env| python_wheel(&env)),
        Some("device-bundle") => {
            let dir = args
                .get(1)
                .map_or_else(|| root().join(".carry"), PathBuf::from);
            setup().and_then(|env| device_bundle(&env, &dir))
        }
        Some("bench-at") if args.len() >= 4 => {
            let (dir, bench) = (PathBuf::from(&args[1]), &args[2]);
            setup().and_then(|env| bench_at(&env, &dir, bench, &args[3..]))
        }
        _ => {
            eprintln!(
                "usage: cargo xtask <command>\n\n\
                 setup   install LLVM 22, lld 22, ptxas (and libamdhip64-dev when apt has it)\n\
                 test    setup, then fmt --check, clippy -D warnings, cargo test --workspace\n\
                 demo    setup, then run the demo (kosmos-tests --bin demo) in release mode\n\
                 fuzz    setup, then fuzz the IR pipeline in release mode (kosmos-fuzz):\n\
                 \x20       [--seconds N | --inputs N] [--seed S] [--workers N] (docs/fuzzing.md)\n\
                 ptxas   print the path of the ptxas that tests get as KOSMOS_PTXAS\n\
                 python  setup, then build the Python package into target/tools/python (a venv)\n\
                 python-wheel  setup, then build the abi3 wheel (Python 3.9+) into target/wheels\n\
                 device-bundle [DIR]  setup, then build what a GPU machine without Rust runs\n\
                 \x20       (benchmarks, GPU tests, demo, examples, the wheel) into\n\
                 \x20       DIR/bundle.tar.xz with bench/device_batch.sh (DIR: .carry)\n\
                 bench-at DIR BENCH REV...  setup, then build benchmark BENCH (tp, moe, gemm,\n\
                 \x20       ...) at each git revision into DIR/BENCH_<REV>.xz (`/` in REV as `-`):\n\
                 \x20       the baselines of device_batch.sh's ab-BENCH step"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What setup found or installed.
struct Env {
    ptxas: PathBuf,
    hip: bool,
}

fn setup() -> Result<Env> {
    let mut missing: Vec<&str> = LLVM_PACKAGES
        .iter()
        .copied()
        .filter(|p| !dpkg_installed(p))
        .collect();
    // LLVM installed some other way than Debian packages is fine too.
    if Path::new("/usr/lib/llvm-22/bin/llvm-config").exists() && on_path("ld.lld-22").is_some() {
        missing.retain(|p| !matches!(*p, "llvm-22-dev" | "lld-22" | "libpolly-22-dev"));
    }
    let want_hip = !dpkg_installed(HIP_PACKAGE);
    // The ptxas wheel and the Python package (`cargo xtask python`) each live in a venv.
    let want_venv = !python_has_venv();
    if want_venv {
        missing.push("python3-venv");
    }
    if !missing.is_empty() {
        apt(&["update", "-qq"])?;
        let mut args = vec!["install", "-y", "-qq"];
        args.extend(&missing);
        apt(&args)?;
    }
    if want_hip {
        // Optional: a failed update (e.g. offline) only means the hip checks are skipped.
        if missing.is_empty() && apt(&["update", "-qq"]).is_err() {
            eprintln!("xtask: warning: apt-get update failed; hip checks skipped");
        } else if apt_candidate(HIP_PACKAGE) {
            if let Err(e) = apt(&[
                "install",
                "-y",
                "-qq",
                "--no-install-recommends",
                HIP_PACKAGE,
            ]) {
                eprintln!("xtask: warning: {HIP_PACKAGE} not installed ({e}); hip checks skipped");
            }
        } else {
            eprintln!("xtask: note: apt has no {HIP_PACKAGE}; hip checks skipped");
        }
    }
    let ptxas = match ptxas() {
        Ok(p) => p,
        Err(e) if env::var_os("KOSMOS_PTXAS").is_some() => return Err(e),
        Err(_) => {
            install_ptxas()?;
            ptxas()?
        }
    };
    let version = output(Command::new(&ptxas).arg("--version")).unwrap_or_default();
    let version = version
        .lines()
        .find(|l| l.contains("release"))
        .unwrap_or("");
    println!("xtask: ptxas: {} ({})", ptxas.display(), version.trim());
    Ok(Env {
        ptxas,
        hip: dpkg_installed(HIP_PACKAGE),
    })
}

fn test() -> Result {
    let env = setup()?;
    cargo(&env, &["fmt", "--all", "--", "--check"])
        .map_err(|e| format!("{e}\n  formatting differs: run `cargo fmt --all`"))?;
    cargo(
        &env,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    if env.hip {
        cargo(
            &env,
            &[
                "clippy",
                "-p",
                "kosmos-runtime",
                "--features",
                "hip",
                "--",
                "-D",
                "warnings",
            ],
        )?;
    } else {
        println!(
            "xtask: skipping `clippy -p kosmos-runtime --features hip` ({HIP_PACKAGE} absent)"
        );
    }
    cargo(&env, &["test", "--workspace"])?;
    let venv = python_develop(&env)?;
    pip_install_missing(&venv, "torch, jax", PYTHON_TEST_PACKAGES)?;
    // -rs lists the skipped tests (the CUDA ones where there is no GPU) with their reasons.
    run(Command::new(venv.join("bin/python"))
        .args(["-m", "pytest", "-q", "-rs", "python/tests"])
        .current_dir(root()))?;
    println!("xtask: all checks passed");
    Ok(())
}

/// The Python package's venv with [`PYTHON_PACKAGES`] (made, or completed, on first use).
fn python_venv() -> Result<PathBuf> {
    let venv = root().join("target/tools/python");
    if !venv.join("bin/python").is_file() {
        run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    }
    if !venv.join("bin/maturin").is_file() || !imports(&venv, "numpy, ml_dtypes, pytest") {
        pip_install(&venv, PYTHON_PACKAGES)?;
    }
    Ok(venv)
}

/// Installs `packages` into `venv` unless its Python imports `modules` already.
fn pip_install_missing(venv: &Path, modules: &str, packages: &[&str]) -> Result {
    if !imports(venv, modules) {
        pip_install(venv, packages)?;
    }
    Ok(())
}

/// Whether `venv`'s Python imports `modules` (a comma-separated list).
fn imports(venv: &Path, modules: &str) -> bool {
    let import = format!("import {modules}");
    output(Command::new(venv.join("bin/python")).args(["-c", &import])).is_ok()
}

fn pip_install(venv: &Path, packages: &[&str]) -> Result {
    println!(
        "xtask: installing {} into {}",
        packages.join(" "),
        venv.display()
    );
    run(Command::new(venv.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(packages))
}

/// Builds the Python package (debug profile, sharing the workspace's build) and installs it
/// into the venv, editable; gives the venv.
fn python_develop(env: &Env) -> Result<PathBuf> {
    let venv = python_venv()?;
    let mut cmd = Command::new(venv.join("bin/maturin"));
    cmd.args(["develop", "--quiet"])
        .current_dir(root().join("python"))
        .env("VIRTUAL_ENV", &venv)
        .env("KOSMOS_PTXAS", &env.ptxas);
    println!("xtask: maturin develop (python/ into {})", venv.display());
    run(&mut cmd)?;
    Ok(venv)
}

/// Builds the release abi3 wheel (one for every Python from 3.9) into target/wheels.
fn python_wheel(env: &Env) -> Result {
    let venv = python_venv()?;
    let out = root().join("target/wheels");
    let mut cmd = Command::new(venv.join("bin/maturin"));
    cmd.args(["build", "--release", "--out"])
        .arg(&out)
        .current_dir(root().join("python"))
        .env("KOSMOS_PTXAS", &env.ptxas);
    println!(
        "xtask: maturin build --release (python/ into {})",
        out.display()
    );
    run(&mut cmd)
}

/// What a device bundle runs: the executables of release builds (cargo's JSON messages name
/// them), each as `bin/<name>`.
const BUNDLE_BUILDS: &[&[&str]] = &[
    &["bench", "-p", "kosmos-bench", "--no-run"],
    &[
        "test",
        "--release",
        "-p",
        "kernels",
        "--test",
        "tp_device",
        "--test",
        "ops",
        "--test",
        "moe",
        "--test",
        "tp",
        "--no-run",
    ],
    &[
        "test",
        "--release",
        "-p",
        "kosmos-runtime",
        "--test",
        "devices",
        "--no-run",
    ],
    &[
        "test",
        "--release",
        "-p",
        "kosmos-tests",
        "--test",
        "math",
        "--test",
        "tensor_stores",
        "--no-run",
    ],
    &[
        "test",
        "--release",
        "-p",
        "kosmos-sched-tests",
        "--test",
        "gpu_world",
        "--no-run",
    ],
    &["build", "--release", "-p", "kosmos-tests", "--bins"],
    &["build", "--release", "-p", "kernels", "--examples"],
];

/// The most a carried folder may hold (the device machine's limit).
const BUNDLE_LIMIT: u64 = 64 << 20;

/// Builds the GPU batch's executables (benchmarks as `bin/<name>`, tests as
/// `bin/test_<name>`, the demo and examples), the release wheel, and the scripts and Python
/// tests they use, into `dir/bundle.tar.xz` next to `bench/device_batch.sh`, which runs them
/// there (docs in the script).
fn device_bundle(env: &Env, dir: &Path) -> Result {
    python_wheel(env)?;
    let stage = root().join("target/device-bundle");
    if stage.exists() {
        std::fs::remove_dir_all(&stage).map_err(|e| format!("{}: {e}", stage.display()))?;
    }
    let bin = stage.join("bin");
    mkdir(&bin)?;
    for build in BUNDLE_BUILDS {
        let mut args = build.to_vec();
        args.push("--message-format=json-render-diagnostics");
        let built = executables(&cargo_output(env, &args)?);
        // Not the library's own test harness (`cargo bench` builds one).
        for (name, kind, exe) in built.into_iter().filter(|(_, kind, _)| kind != "lib") {
            let file = if kind == "test" {
                format!("test_{name}")
            } else {
                name
            };
            copy(Path::new(&exe), &bin.join(&file))?;
            // Debug information is most of a test binary's size.
            run(Command::new("strip").arg(bin.join(&file)))?;
        }
    }
    let wheel = std::fs::read_dir(root().join("target/wheels"))
        .map_err(|e| format!("target/wheels: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .ok_or("no wheel in target/wheels")?;
    mkdir(&stage.join("wheel"))?;
    copy(
        &wheel,
        &stage.join("wheel").join(wheel.file_name().expect("a file")),
    )?;
    // The benchmarks' scripts (PyTorch baselines) and the Python tests.
    let scripts = [
        "moe_h200.sh",
        "moe_torch.py",
        "tp_torch.py",
        "tp_multi_gpu.sh",
        "moe_ep_torch.py",
        "moe_multi_gpu.sh",
    ];
    let sources = scripts.map(|s| format!("bench/{s}"));
    run(Command::new("cp")
        .args(["-r", "--parents"])
        .args(&sources)
        .args(["python/tests", "python/benches"])
        .arg(&stage)
        .current_dir(root()))?;
    mkdir(dir)?;
    let tarball = dir.join("bundle.tar.xz");
    run(Command::new("tar")
        .args(["cJf"])
        .arg(&tarball)
        .arg("-C")
        .arg(&stage)
        .arg("."))?;
    copy(
        &root().join("bench/device_batch.sh"),
        &dir.join("device_batch.sh"),
    )?;
    let size = tarball.metadata().map_err(|e| e.to_string())?.len();
    if size > BUNDLE_LIMIT {
        return Err(format!(
            "{} is {} MiB, more than the {} MiB a carried folder may hold",
            tarball.display(),
            size >> 20,
            BUNDLE_LIMIT >> 20
        ));
    }
    println!(
        "xtask: {} ({} MiB) and device_batch.sh in {}: there, `bash {}/device_batch.sh OUT [step...]`",
        tarball.display(),
        size >> 20,
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// (target name, target kind, path) of every executable cargo's JSON messages report.
fn executables(messages: &str) -> Vec<(String, String, String)> {
    messages
        .lines()
        .filter(|l| l.contains("\"reason\":\"compiler-artifact\""))
        .filter_map(|l| {
            let exe = json_string(l, "executable")?;
            let target = &l[l.find("\"target\":{")?..];
            let name = json_string(target, "name")?;
            let kind = json_string(&target[target.find("\"kind\":[")? + 8..], "")?;
            Some((name, kind, exe))
        })
        .collect()
}

/// The string value after `"key":` in `json` (the first string when `key` is empty), without
/// escapes (paths and target names have none).
fn json_string(json: &str, key: &str) -> Option<String> {
    let rest = if key.is_empty() {
        json
    } else {
        let at = json.find(&format!("\"{key}\":"))? + key.len() + 3;
        &json[at..]
    };
    let rest = rest.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

fn mkdir(dir: &Path) -> Result {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))
}

fn copy(from: &Path, to: &Path) -> Result {
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

/// Builds benchmark `bench` at each git revision of `revs` (checked out in turn in a
/// scratch worktree, `target/bench-at`, built into this checkout's target directory, so
/// that only what differs compiles again — cargo names a workspace's artifacts by their
/// paths within it, so this checkout's own rebuild afterwards) and writes it
/// xz-compressed as `dir/<bench>_<rev>.xz` (`/` in `rev` as `-`): what the `ab-<bench>`
/// step of bench/device_batch.sh runs against the bundle's own.
fn bench_at(env: &Env, dir: &Path, bench: &str, revs: &[String]) -> Result {
    mkdir(dir)?;
    let tree = root().join("target/bench-at");
    let target = root().join("target");
    let git = |args: &[&str]| {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(root());
        cmd
    };
    for rev in revs {
        if tree.exists() {
            run(git(&["worktree", "remove", "--force"]).arg(&tree))?;
        }
        run(git(&["worktree", "add", "--detach"]).arg(&tree).arg(rev))?;
        let args = [
            "bench",
            "-p",
            "kosmos-bench",
            "--bench",
            bench,
            "--no-run",
            "--message-format=json-render-diagnostics",
        ];
        let built = cargo_output_in(env, &tree, Some(&target), &args);
        run(git(&["worktree", "remove", "--force"]).arg(&tree))?;
        let (.., exe) = executables(&built?)
            .into_iter()
            .find(|(name, kind, _)| name == bench && kind == "bench")
            .ok_or(format!("no benchmark `{bench}` at {rev}"))?;
        let out = dir.join(format!("{bench}_{}.xz", rev.replace('/', "-")));
        let file = std::fs::File::create(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        run(Command::new("xz")
            .args(["-T0", "-c"])
            .arg(&exe)
            .stdout(file))?;
        println!("xtask: {bench} at {rev} -> {}", out.display());
    }
    Ok(())
}

/// Runs `cargo <args>` as [`cargo`] does, and gives its stdout.
fn cargo_output(env: &Env, args: &[&str]) -> Result<String> {
    cargo_output_in(env, &root(), None, args)
}

/// [`cargo_output`] in the workspace at `dir`, building into `target` if given.
fn cargo_output_in(env: &Env, dir: &Path, target: Option<&Path>, args: &[&str]) -> Result<String> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    println!("xtask: cargo {}", args.join(" "));
    let mut cmd = Command::new(cargo);
    if let Some(target) = target {
        cmd.env("CARGO_TARGET_DIR", target);
    }
    let out = cmd
        .args(args)
        .current_dir(dir)
        .env("KOSMOS_PTXAS", &env.ptxas)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo {}` failed ({})",
            args.join(" "),
            out.status
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Setup, then `cargo run --release <what> -- <extra>`.
fn run_release(what: &[&str], extra: &[String]) -> Result {
    let env = setup()?;
    let mut args = vec!["run", "--release"];
    args.extend(what);
    if !extra.is_empty() {
        args.push("--");
        args.extend(extra.iter().map(String::as_str));
    }
    cargo(&env, &args)
}

/// Runs `cargo <args>` in the workspace root with KOSMOS_PTXAS (and HIP_PATH) set.
fn cargo(env: &Env, args: &[&str]) -> Result {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(args)
        .current_dir(root())
        .env("KOSMOS_PTXAS", &env.ptxas);
    if env.hip && env::var_os("HIP_PATH").is_none() {
        cmd.env("HIP_PATH", "/usr");
    }
    println!("xtask: cargo {}", args.join(" "));
    run(&mut cmd)
}

/// The ptxas tests use: $KOSMOS_PTXAS, else `ptxas` on PATH, else the one from the
/// `nvidia-cuda-nvcc` wheel (our venv under target/tools, or a `pip install --user`).
fn ptxas() -> Result<PathBuf> {
    if let Some(p) = env::var_os("KOSMOS_PTXAS") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("KOSMOS_PTXAS={} is not a file", p.display()))
        };
    }
    if let Some(p) = on_path("ptxas") {
        return Ok(p);
    }
    let mut site_dirs = Vec::new();
    if let Ok(lib) = venv_dir().join("lib").read_dir() {
        site_dirs.extend(lib.flatten().map(|d| d.path().join("site-packages")));
    }
    if let Ok(s) = output(Command::new("python3").args(["-m", "site", "--user-site"])) {
        site_dirs.push(PathBuf::from(s.trim()));
    }
    // The wheel puts it at nvidia/cu13/bin/ptxas (13.x) or nvidia/cuda_nvcc/bin/ptxas (12.x).
    for site in site_dirs {
        for sub in ["cu13", "cuda_nvcc"] {
            let p = site.join("nvidia").join(sub).join("bin/ptxas");
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    Err("ptxas not found: run `cargo xtask setup`".into())
}

fn install_ptxas() -> Result {
    let venv = venv_dir();
    println!("xtask: installing {NVCC_WHEEL} into {}", venv.display());
    if venv.exists() {
        std::fs::remove_dir_all(&venv).map_err(|e| format!("removing {}: {e}", venv.display()))?;
    }
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    run(Command::new(venv.join("bin/python")).args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        NVCC_WHEEL,
    ]))
}

/// Tools installed by setup live here, outside any cargo target dir cargo would clean per profile.
fn venv_dir() -> PathBuf {
    root().join("target/tools/cuda-nvcc")
}

/// The workspace root: from the `CARGO_MANIFEST_DIR` that `cargo run` sets, else the one this
/// binary was built in (checkouts sharing one target directory share this binary too).
fn root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

fn apt(args: &[&str]) -> Result {
    let mut cmd = if is_root() {
        Command::new("apt-get")
    } else {
        let mut c = Command::new("sudo");
        c.arg("apt-get");
        c
    };
    cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
    println!("xtask: apt-get {}", args.join(" "));
    run(&mut cmd)
}

fn apt_candidate(pkg: &str) -> bool {
    output(Command::new("apt-cache").args(["policy", pkg])).is_ok_and(|s| {
        s.lines()
            .any(|l| l.trim().starts_with("Candidate:") && !l.contains("(none)"))
    })
}

fn dpkg_installed(pkg: &str) -> bool {
    output(Command::new("dpkg-query").args(["-W", "-f=${Status}", pkg]))
        .is_ok_and(|s| s.contains("install ok installed"))
}

fn python_has_venv() -> bool {
    output(Command::new("python3").args(["-c", "import venv, ensurepip"])).is_ok()
}

fn is_root() -> bool {
    output(Command::new("id").arg("-u")).is_ok_and(|s| s.trim() == "0")
}

fn on_path(name: &str) -> Option<PathBuf> {
    env::split_paths(&env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Runs a command with inherited stdio; an error names the command.
fn run(cmd: &mut Command) -> Result {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", show(cmd)))
    }
}

/// Runs a command quietly and returns its stdout if it succeeded.
fn output(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("`{}` failed", show(cmd)))
    }
}

fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

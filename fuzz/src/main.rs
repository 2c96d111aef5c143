//! `kosmos-fuzz [--seconds N | --inputs N] [--seed S] [--workers N] [--timeout SECONDS]
//! [--corpus DIR] [--save DIR] [--summary FILE]`: fuzzes the IR pipeline, prints a table,
//! writes the JSON summary, and fails when it saved a new finding. `kosmos-fuzz worker` is
//! the child process the run starts.

use kosmos_fuzz::parent::{self, Budget, Config};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage: kosmos-fuzz [--seconds N | --inputs N] [--seed S] [--workers N] \
                     [--timeout SECONDS] [--corpus DIR] [--save DIR] [--summary FILE]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "worker") {
        return match kosmos_fuzz::worker::serve() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("kosmos-fuzz worker: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match fuzz(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("kosmos-fuzz: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Runs as `args` say; whether the run found nothing new.
fn fuzz(args: &[String]) -> Result<bool, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the fuzz crate lives one level below the workspace root");
    let mut config = Config {
        budget: Budget::Seconds(60),
        seed: rand::random(),
        workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
        timeout: Duration::from_secs(30),
        corpus: root.join("tests/filetests"),
        save: root.join("tests/filetests/fuzz"),
        exe: std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?,
    };
    let mut summary_path = root.join("target/fuzz-summary.json");
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value"))?
            .as_str();
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("{flag}: not a number: {value}"))
        };
        match flag.as_str() {
            "--seconds" => config.budget = Budget::Seconds(number()?),
            "--inputs" => config.budget = Budget::Inputs(number()?),
            "--seed" => config.seed = number()?,
            "--workers" => config.workers = number()?.max(1) as usize,
            "--timeout" => config.timeout = Duration::from_secs(number()?),
            "--corpus" => config.corpus = PathBuf::from(value),
            "--save" => config.save = PathBuf::from(value),
            "--summary" => summary_path = PathBuf::from(value),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    eprintln!(
        "kosmos-fuzz: seed {} ({:?}, {} workers; replay with --seed {})",
        config.seed, config.budget, config.workers, config.seed
    );
    let summary = parent::run(&config)?;
    print!("{summary}");
    if let Some(dir) = summary_path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let json = serde_json::to_string_pretty(&summary.to_json()).expect("JSON values serialise");
    std::fs::write(&summary_path, json + "\n")
        .map_err(|e| format!("cannot write {}: {e}", summary_path.display()))?;
    println!("summary: {}", summary_path.display());
    Ok(summary.new_findings.is_empty())
}

//! Runs the synthetic pipeline with tracing on and writes its timeline: Chrome/Perfetto
//! trace JSON to `KOSMOS_TRACE_JSON` (default `sched_trace.json`) and an SVG timeline to
//! `KOSMOS_TRACE_SVG` (default `sched_trace.svg`). `KOSMOS_DEVICE` picks the device,
//! `KOSMOS_TRACE_RANKS` the world size (default 4), `KOSMOS_TRACE_WGS` the workgroups per
//! rank (default 4).

use kosmos_runtime::Device;
use kosmos_sched::trace::{chrome_json, svg_timeline};
use kosmos_sched_tests::{RunConfig, load, run_pipeline, seed};
use std::process::ExitCode;

fn env_u32(name: &str, default: u32) -> Result<u32, String> {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{name}=`{v}` is not a number")),
        Err(_) => Ok(default),
    }
}

fn run() -> Result<(), String> {
    let device = Device::from_env().map_err(|e| e.to_string())?;
    let module = load(&device).map_err(|e| e.to_string())?;
    let ranks = env_u32("KOSMOS_TRACE_RANKS", 4)?;
    let wgs = env_u32("KOSMOS_TRACE_WGS", 4)?;
    let seed = seed();
    let mut cfg = RunConfig::small(ranks, Some(wgs), seed);
    cfg.pipeline.shape.blocks = 4;
    cfg.pipeline.shape.chunks_per_block = 2;
    cfg.pipeline.chunk_elems = 256;
    cfg.max_task_ns = 40_000;
    cfg.trace = true;
    cfg.trace_capacity = 4096;
    let mut out = run_pipeline(&device, &module, &cfg).map_err(|e| e.to_string())?;
    out.check.clone().map_err(|e| format!("seed {seed}: {e}"))?;
    let (events, dropped) = out.trace().map_err(|e| e.to_string())?;
    let json = std::env::var("KOSMOS_TRACE_JSON").unwrap_or_else(|_| "sched_trace.json".into());
    let svg = std::env::var("KOSMOS_TRACE_SVG").unwrap_or_else(|_| "sched_trace.svg".into());
    let title = format!(
        "synthetic pipeline on {device}: {ranks} ranks x {wgs} workgroups (blue compute, orange comm, grey wait)"
    );
    std::fs::write(&json, chrome_json(&events)).map_err(|e| format!("{json}: {e}"))?;
    std::fs::write(&svg, svg_timeline(&events, &title)).map_err(|e| format!("{svg}: {e}"))?;
    println!(
        "{} intervals ({dropped} dropped), seed {seed}: wrote {json} and {svg}",
        events.len()
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sched_trace: {e}");
            ExitCode::FAILURE
        }
    }
}

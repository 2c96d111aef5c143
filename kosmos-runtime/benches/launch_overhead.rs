//! Launch overhead: an empty kernel launched many times through kosmos-runtime, and on CUDA
//! the same PTX launched through plain cudarc as the baseline, both timed with events.
//!
//! Prints a table, and JSON to the file named by `KOSMOS_BENCH_JSON` when it is set.
//! `KOSMOS_BENCH_LAUNCHES` sets the launches per trial (default 10000).

use kosmos_ir::{KernelBuilder, Type};
use kosmos_runtime::{Device, DeviceKind, KernelArg, LaunchConfig, ModuleImage};
use std::time::Instant;

const TRIALS: usize = 7;
const BLOCK: u32 = 64;

/// PTX of the empty kernel, written by hand for the runtime's own measurements; its
/// signature matches [`empty_kernel_ir`].
const EMPTY_PTX: &str = r#"
.version 8.0
.target sm_90a
.address_size 64

.visible .entry empty(
    .param .u64 p,
    .param .u32 n
)
.maxntid 64, 1, 1
{
    ret;
}
"#;

fn empty_kernel_ir() -> kosmos_ir::VerifiedModule {
    let mut b = KernelBuilder::new("empty", BLOCK);
    b.param("p", Type::GLOBAL_PTR);
    b.param("n", Type::U32);
    b.ret();
    kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: vec![b.finish()],
    })
    .unwrap()
}

/// One measured figure: microseconds per launch, device-side (events) and host-side.
struct Figure {
    name: &'static str,
    event_us: f64,
    host_us: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `trial` (which launches `n` times and returns (event ms, host seconds)) TRIALS times
/// after a warm-up; returns median microseconds per launch, or the first error.
fn measure<E>(
    name: &'static str,
    n: usize,
    mut trial: impl FnMut() -> Result<(f64, f64), E>,
) -> Result<Figure, E> {
    trial()?;
    let (mut ev, mut host) = (Vec::new(), Vec::new());
    for _ in 0..TRIALS {
        let (ms, secs) = trial()?;
        ev.push(ms * 1e3 / n as f64);
        host.push(secs * 1e6 / n as f64);
    }
    Ok(Figure {
        name,
        event_us: median(ev),
        host_us: median(host),
    })
}

fn runtime_figure(device: &Device, n: usize) -> kosmos_runtime::Result<Figure> {
    let image = ModuleImage::new(empty_kernel_ir()).with_binary("sm_90a", EMPTY_PTX);
    let module = device.load_module(&image)?;
    let stream = device.stream()?;
    let buf = device.alloc::<u32>(BLOCK as usize)?;
    let cfg = LaunchConfig::linear(1, BLOCK);
    measure("kosmos-runtime", n, || {
        let start = stream.record_event()?;
        let t = Instant::now();
        for _ in 0..n {
            module.launch(
                &stream,
                "empty",
                cfg,
                &[KernelArg::from(&buf), KernelArg::from(BLOCK)],
            )?;
        }
        let host = t.elapsed().as_secs_f64();
        let end = stream.record_event()?;
        Ok((start.elapsed_ms(&end)? as f64, host))
    })
}

fn cudarc_figure(ordinal: usize, n: usize) -> Result<Figure, cudarc::driver::DriverError> {
    use cudarc::driver::{CudaContext, LaunchConfig as CuConfig, PushKernelArg, sys};
    let ctx = CudaContext::new(ordinal)?;
    let module = ctx.load_module(cudarc::nvrtc::Ptx::from_src(EMPTY_PTX))?;
    let func = module.load_function("empty")?;
    let stream = ctx.new_stream()?;
    let buf = stream.alloc_zeros::<u32>(BLOCK as usize)?;
    let cfg = CuConfig {
        grid_dim: (1, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    measure("cudarc", n, || {
        let start = stream.record_event(flags)?;
        let t = Instant::now();
        for _ in 0..n {
            let mut launch = stream.launch_builder(&func);
            launch.arg(&buf).arg(&BLOCK);
            unsafe { launch.launch(cfg) }?;
        }
        let host = t.elapsed().as_secs_f64();
        let end = stream.record_event(flags)?;
        Ok((start.elapsed_ms(&end)? as f64, host))
    })
}

fn main() {
    let n: usize = std::env::var("KOSMOS_BENCH_LAUNCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let device = Device::from_env().unwrap_or_else(|e| panic!("no device: {e}"));
    println!(
        "device: {device} ({}), {n} launches per trial, median of {TRIALS}",
        device.name()
    );

    let mut figures =
        vec![runtime_figure(&device, n).unwrap_or_else(|e| panic!("kosmos-runtime: {e}"))];
    if device.kind() == DeviceKind::Cuda {
        figures.push(cudarc_figure(device.ordinal(), n).unwrap_or_else(|e| panic!("cudarc: {e}")));
    }
    let baseline = figures.last().map(|f| f.host_us).unwrap_or(1.0);

    println!(
        "{:<16} {:>14} {:>14} {:>12}",
        "path", "event us/launch", "host us/launch", "host ratio"
    );
    for f in &figures {
        println!(
            "{:<16} {:>14.3} {:>14.3} {:>12.3}",
            f.name,
            f.event_us,
            f.host_us,
            f.host_us / baseline
        );
    }

    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        let rows: Vec<String> = figures
            .iter()
            .map(|f| {
                format!(
                    "    {{\"path\": \"{}\", \"event_us_per_launch\": {:.4}, \"host_us_per_launch\": {:.4}, \"host_ratio_to_baseline\": {:.4}}}",
                    f.name,
                    f.event_us,
                    f.host_us,
                    f.host_us / baseline
                )
            })
            .collect();
        let json = format!(
            "{{\n  \"bench\": \"launch_overhead\",\n  \"device\": \"{device}\",\n  \"device_name\": \"{}\",\n  \"launches_per_trial\": {n},\n  \"trials\": {TRIALS},\n  \"results\": [\n{}\n  ]\n}}\n",
            device.name().replace('"', "'"),
            rows.join(",\n")
        );
        std::fs::write(&path, json).unwrap_or_else(|e| panic!("writing {path}: {e}"));
    }
}

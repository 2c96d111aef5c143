//! A user crate with its own kernel: `build.rs` compiles it for every GPU target, and this
//! program launches it on the default device (`KOSMOS_DEVICE`, else the first GPU, else the
//! CPU device) and checks the result.

use kosmos::prelude::*;
use kosmos::runtime::Result;

// `pub static USER_KERNEL`, the module built from this file.
include!(concat!(env!("OUT_DIR"), "/kosmos_modules.rs"));

/// `y[i] = alpha * x[i] + y[i]`.
#[kernel]
fn saxpy(alpha: f32, x: &[f32], y: &mut [f32], n: u32) {
    let i = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
    if i < n {
        y[i] = alpha.mul_add(x[i], y[i]);
    }
}

fn main() -> Result<()> {
    let device = Device::from_env()?;
    let module = device.load_module(&USER_KERNEL.image()?)?;
    let stream = device.stream()?;
    let n = 1000;
    let x_host: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y_host: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    let x = Buffer::from_slice(&device, &x_host)?;
    let mut y = Buffer::from_slice(&device, &y_host)?;
    let cfg = LaunchConfig::for_elements(n, 256);
    saxpy::launch(&module, &stream, cfg, 3.0, &x, &mut y, n as u32)?;
    stream.synchronize()?;
    let got = y.download()?;
    let wrong = (0..n)
        .filter(|&i| (got[i] as f64 - (3.0 * x_host[i] as f64 + y_host[i] as f64)).abs() > 1e-4)
        .count();
    println!("saxpy on {device}: {n} elements, {wrong} wrong");
    if wrong > 0 {
        std::process::exit(1);
    }
    Ok(())
}

//! The `run` kind of `.kir` file tests: launches the file's kernel on the CPU device as its
//! `; run:` and `; arg` lines describe, then prints every buffer argument (or the error).
//!
//! ```text
//! ; run: grid 2 block 64            (dims as `x`, `x,y` or `x,y,z`; optional
//! ;                                  `watchdog <ms>` and `resident <workgroups>`)
//! ; arg %a = f32[130] iota          (0, 1, 2, ...)
//! ; arg %b = f32[130] fill 1.5
//! ; arg %c = u32[3] values 7 8 0x9
//! ; arg %m = u64[2] values %a 4     (%a: the device address of an earlier buffer argument)
//! ; arg %out = f32[130] poison      (NaN for floats, all ones for integers)
//! ; arg %n = u32 130                (a scalar)
//! ```
//! Output: for each buffer in parameter order, lines `%name[i]: v v v ...` of up to 16
//! values; or a single line `error: <message>` when the launch fails.

use kosmos_cpu::{Arg, CpuConfig, CpuDevice};
use kosmos_ir::{Constant, ScalarType};
use std::fmt::Write;
use std::time::Duration;

/// Values printed per output line.
const PER_LINE: usize = 16;

struct Launch {
    grid: [u32; 3],
    block: [u32; 3],
    config: CpuConfig,
}

enum Init {
    Iota,
    Fill(String),
    Poison,
    Values(Vec<String>),
}

enum ArgSpec {
    Buffer {
        ty: ScalarType,
        count: usize,
        init: Init,
    },
    Scalar(Constant),
}

fn dims(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("bad dimensions '{s}'"));
    }
    let mut out = [1u32; 3];
    for (o, p) in out.iter_mut().zip(&parts) {
        *o = p
            .trim()
            .parse()
            .map_err(|_| format!("bad dimension '{p}'"))?;
    }
    Ok(out)
}

fn parse_run(line: &str) -> Result<Launch, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut launch = Launch {
        grid: [0; 3],
        block: [0; 3],
        config: CpuConfig::default(),
    };
    let mut it = words.chunks(2);
    let (mut grid, mut block) = (false, false);
    for pair in &mut it {
        let [key, value] = pair else {
            return Err(format!("'; run:' expects key/value pairs, got '{line}'"));
        };
        match *key {
            "grid" => (launch.grid, grid) = (dims(value)?, true),
            "block" => (launch.block, block) = (dims(value)?, true),
            "watchdog" => {
                let ms = value.strip_suffix("ms").unwrap_or(value);
                let ms: u64 = ms.parse().map_err(|_| format!("bad watchdog '{value}'"))?;
                launch.config.watchdog = Duration::from_millis(ms);
            }
            "subgroup" => {
                launch.config.subgroup_size = value
                    .parse()
                    .map_err(|_| format!("bad subgroup size '{value}'"))?
            }
            "resident" => {
                launch.config.max_resident_workgroups = value
                    .parse()
                    .map_err(|_| format!("bad resident count '{value}'"))?
            }
            other => return Err(format!("unknown '; run:' key '{other}'")),
        }
    }
    if !grid || !block {
        return Err("'; run:' needs both grid and block".into());
    }
    Ok(launch)
}

/// Parses one value of type `ty` (decimal or 0x-hex integers, decimal floats, `nan`).
fn value(ty: ScalarType, s: &str) -> Result<Constant, String> {
    let bad = || format!("bad {ty} value '{s}'");
    if ty.is_float() {
        let v: f64 = s.parse().map_err(|_| bad())?;
        return Ok(Constant::float(ty, v));
    }
    let v = if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16).map_err(|_| bad())? as i64
    } else if ty.is_signed_int() {
        s.parse::<i64>().map_err(|_| bad())?
    } else {
        s.parse::<u64>().map_err(|_| bad())? as i64
    };
    Ok(Constant::int(ty, v))
}

fn parse_arg(spec: &str) -> Result<(String, ArgSpec), String> {
    let (name, rest) = spec
        .split_once('=')
        .ok_or_else(|| format!("'; arg' needs '=': '{spec}'"))?;
    let name = name
        .trim()
        .strip_prefix('%')
        .ok_or_else(|| format!("'; arg' name must start with %: '{spec}'"))?;
    let mut words = rest.split_whitespace();
    let ty = words.next().ok_or("'; arg' needs a type")?;
    if let Some((elem, count)) = ty.split_once('[') {
        let ty = ScalarType::from_name(elem).ok_or_else(|| format!("unknown type '{elem}'"))?;
        let count: usize = count
            .strip_suffix(']')
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| format!("bad buffer length in '{spec}'"))?;
        let init = match words.next() {
            Some("iota") => Init::Iota,
            Some("poison") => Init::Poison,
            Some("fill") => Init::Fill(words.next().ok_or("'fill' needs a value")?.to_string()),
            Some("values") => Init::Values(words.by_ref().map(str::to_string).collect()),
            other => return Err(format!("unknown buffer initializer {other:?}")),
        };
        Ok((name.to_string(), ArgSpec::Buffer { ty, count, init }))
    } else {
        let ty = ScalarType::from_name(ty).ok_or_else(|| format!("unknown type '{ty}'"))?;
        let v = words.next().ok_or("a scalar '; arg' needs a value")?;
        Ok((name.to_string(), ArgSpec::Scalar(value(ty, v)?)))
    }
}

/// The bytes of a buffer argument; `address` gives the device address of an earlier buffer
/// argument (named `%name` in `values`).
fn buffer_bytes(
    ty: ScalarType,
    count: usize,
    init: &Init,
    address: impl Fn(&str) -> Option<u64>,
) -> Result<Vec<u8>, String> {
    let size = ty.size_bytes() as usize;
    let mut out = Vec::with_capacity(count * size);
    for i in 0..count {
        let c = match init {
            Init::Iota if ty.is_float() => Constant::float(ty, i as f64),
            Init::Iota => Constant::int(ty, i as i64),
            Init::Poison if ty.is_float() => Constant::float(ty, f64::NAN),
            Init::Poison => Constant::int(ty, -1),
            Init::Fill(v) => value(ty, v)?,
            Init::Values(vs) => {
                let v = vs
                    .get(i)
                    .ok_or_else(|| format!("'values' lists {} of {count} elements", vs.len()))?;
                match v.strip_prefix('%') {
                    Some(name) => Constant::int(
                        ty,
                        address(name).ok_or_else(|| format!("no buffer argument %{name} before"))?
                            as i64,
                    ),
                    None => value(ty, v)?,
                }
            }
        };
        out.extend_from_slice(&c.bits.to_le_bytes()[..size]);
    }
    Ok(out)
}

fn show(ty: ScalarType, bits: u64) -> String {
    let c = Constant { ty, bits };
    if ty.is_float() {
        format!("{}", c.as_f64())
    } else {
        format!("{}", c.as_i64())
    }
}

/// Runs a `; test run` file's kernel; the output (buffers or error) for the expect block.
pub fn run(body: &str) -> Result<String, String> {
    let mut launch = None;
    let mut specs = Vec::new();
    for line in body.lines() {
        if let Some(r) = line.strip_prefix("; run:") {
            launch = Some(parse_run(r)?);
        } else if let Some(a) = line.strip_prefix("; arg ") {
            specs.push(parse_arg(a)?);
        }
    }
    let launch = launch.ok_or("a run test needs a '; run:' line")?;
    let module = kosmos_ir::parse_module(body).map_err(|e| format!("parse error: {e}"))?;
    let module = match kosmos_ir::verify_module(module) {
        Ok(module) => module,
        Err(e) => return Ok(format!("error: {e}")),
    };
    let [kernel] = module.kernels() else {
        return Err("a run test holds exactly one kernel".into());
    };
    let dev = CpuDevice::with_config(launch.config);
    let mut args = Vec::new();
    let mut buffers: Vec<(String, ScalarType, usize, u64)> = Vec::new();
    for p in &kernel.params {
        let name = kernel.value_name(*p).unwrap_or("");
        let (_, spec) = specs
            .iter()
            .find(|(n, _)| n == name)
            .ok_or_else(|| format!("no '; arg %{name}' line"))?;
        match spec {
            ArgSpec::Scalar(c) => args.push(Arg::Scalar(*c)),
            ArgSpec::Buffer { ty, count, init } => {
                let address = |name: &str| {
                    buffers
                        .iter()
                        .find(|(n, ..)| n == name)
                        .map(|(.., addr)| *addr)
                };
                let bytes = buffer_bytes(*ty, *count, init, address)?;
                let addr = dev.alloc(bytes.len() as u64).map_err(|e| e.to_string())?;
                dev.write(addr, &bytes).map_err(|e| e.to_string())?;
                args.push(Arg::Ptr(addr));
                buffers.push((name.to_string(), *ty, *count, addr));
            }
        }
    }
    if let Err(e) = dev.launch(kernel, launch.grid, launch.block, &args) {
        return Ok(format!("error: {e}"));
    }
    let mut out = String::new();
    for (name, ty, count, addr) in buffers {
        let size = ty.size_bytes() as usize;
        let mut bytes = vec![0u8; count * size];
        dev.read(addr, &mut bytes).map_err(|e| e.to_string())?;
        let vals: Vec<String> = bytes
            .chunks(size)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..size].copy_from_slice(c);
                show(ty, u64::from_le_bytes(b))
            })
            .collect();
        for (i, chunk) in vals.chunks(PER_LINE).enumerate() {
            let _ = writeln!(out, "%{name}[{}]: {}", i * PER_LINE, chunk.join(" "));
        }
    }
    Ok(out)
}

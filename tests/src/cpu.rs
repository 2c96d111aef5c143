//! Driving the CPU device directly: a replayable random seed, scalar arguments, and typed
//! copies to and from device memory.

use half::bf16;
use kosmos_cpu::{Arg, CpuDevice};
use kosmos_ir::{Constant, ScalarType};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// A generator with a random seed, printed so that a failing `test` can be replayed.
pub fn rng(test: &str) -> SmallRng {
    let seed: u64 = rand::rng().random();
    println!("{test}: seed {seed}");
    SmallRng::seed_from_u64(seed)
}

pub fn u32_arg(v: u32) -> Arg {
    Arg::Scalar(Constant::int(ScalarType::U32, v as i64))
}

/// Device memory holding `bytes`.
pub fn upload(dev: &CpuDevice, bytes: &[u8]) -> u64 {
    let p = dev.alloc(bytes.len() as u64).unwrap();
    dev.write(p, bytes).unwrap();
    p
}

pub fn upload_f32(dev: &CpuDevice, v: &[f32]) -> u64 {
    upload_le(dev, v.iter().map(|x| x.to_le_bytes()))
}

pub fn upload_u32(dev: &CpuDevice, v: &[u32]) -> u64 {
    upload_le(dev, v.iter().map(|x| x.to_le_bytes()))
}

pub fn upload_bf16(dev: &CpuDevice, v: &[bf16]) -> u64 {
    upload_le(dev, v.iter().map(|x| x.to_le_bytes()))
}

/// Device memory holding `elements`, each given as its little-endian bytes.
fn upload_le<const N: usize>(dev: &CpuDevice, elements: impl Iterator<Item = [u8; N]>) -> u64 {
    upload(dev, &elements.flatten().collect::<Vec<u8>>())
}

pub fn download_f32(dev: &CpuDevice, p: u64, n: usize) -> Vec<f32> {
    download_words(dev, p, n)
        .into_iter()
        .map(f32::from_le_bytes)
        .collect()
}

pub fn download_u32(dev: &CpuDevice, p: u64, n: usize) -> Vec<u32> {
    download_words(dev, p, n)
        .into_iter()
        .map(u32::from_le_bytes)
        .collect()
}

/// `n` 4-byte words from `p`.
fn download_words(dev: &CpuDevice, p: u64, n: usize) -> Vec<[u8; 4]> {
    let mut bytes = vec![0u8; n * 4];
    dev.read(p, &mut bytes).unwrap();
    bytes.chunks(4).map(|c| c.try_into().unwrap()).collect()
}

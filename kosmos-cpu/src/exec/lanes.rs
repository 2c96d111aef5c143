//! Per-lane access to slot values: one `u64` word per lane, two for 16-byte vectors, and
//! the element-wise maps the pure ops run over every lane.

use crate::arith::width_mask;
use crate::program::Slot;
use kosmos_ir::ScalarType;

/// The value of lane `l` of a slot, as up to 16 bytes.
#[inline(always)]
pub(crate) fn get(v: &[u64], l: usize, wide: bool) -> u128 {
    if wide {
        v[2 * l] as u128 | (v[2 * l + 1] as u128) << 64
    } else {
        v[l] as u128
    }
}

#[inline(always)]
pub(crate) fn set(v: &mut [u64], l: usize, wide: bool, x: u128) {
    if wide {
        v[2 * l] = x as u64;
        v[2 * l + 1] = (x >> 64) as u64;
    } else {
        v[l] = x as u64;
    }
}

#[inline(always)]
pub(crate) fn map1(vals: &mut [Vec<u64>], dst: Slot, a: Slot, f: impl Fn(u64) -> u64) {
    let mut d = std::mem::take(&mut vals[dst as usize]);
    for (o, x) in d.iter_mut().zip(&vals[a as usize]) {
        *o = f(*x);
    }
    vals[dst as usize] = d;
}

#[inline(always)]
pub(crate) fn map2(
    vals: &mut [Vec<u64>],
    dst: Slot,
    a: Slot,
    b: Slot,
    f: impl Fn(u64, u64) -> u64,
) {
    let mut d = std::mem::take(&mut vals[dst as usize]);
    for ((o, x), y) in d.iter_mut().zip(&vals[a as usize]).zip(&vals[b as usize]) {
        *o = f(*x, *y);
    }
    vals[dst as usize] = d;
}

#[inline(always)]
pub(crate) fn map3(
    vals: &mut [Vec<u64>],
    dst: Slot,
    a: Slot,
    b: Slot,
    c: Slot,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let mut d = std::mem::take(&mut vals[dst as usize]);
    for (((o, x), y), z) in d
        .iter_mut()
        .zip(&vals[a as usize])
        .zip(&vals[b as usize])
        .zip(&vals[c as usize])
    {
        *o = f(*x, *y, *z);
    }
    vals[dst as usize] = d;
}

#[inline(always)]
pub(crate) fn f32op(x: u64, y: u64, f: impl Fn(f32, f32) -> f32) -> u64 {
    f(f32::from_bits(x as u32), f32::from_bits(y as u32)).to_bits() as u64
}

/// Element `i` of a packed vector.
#[inline(always)]
pub(crate) fn elem_get(v: u128, elem: ScalarType, i: u32) -> u64 {
    let bits = elem.size_bytes() * 8;
    ((v >> (i * bits)) as u64) & width_mask(elem)
}

#[inline(always)]
pub(crate) fn elem_set(v: u128, elem: ScalarType, i: u32, x: u64) -> u128 {
    let bits = elem.size_bytes() * 8;
    let m = (width_mask(elem) as u128) << (i * bits);
    (v & !m) | (((x & width_mask(elem)) as u128) << (i * bits))
}

/// Active lanes of `mask`.
pub(crate) fn count(mask: &[bool]) -> usize {
    mask.iter().filter(|m| **m).count()
}

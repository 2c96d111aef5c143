//! Lowering tests: kernels run on the CPU device (so that carried values, results and
//! breaks are checked by what they compute), and errors checked by message and position.

use crate::lower_source;
use kosmos_ir::{
    ATile, BTile, Constant, FragRole, MmaLayout, Op, RegsDir, ScalarType, Type, Value,
};
use kosmos_runtime::{Buffer, Device, KernelArg, LaunchConfig, Module, ModuleImage};
use rand::{Rng, SeedableRng, rngs::SmallRng};
use std::collections::HashMap;

/// Lowers `src` and loads it on a fresh CPU device; returns the device, the module and the
/// name of its first kernel.
pub(crate) fn load_on_cpu(src: &str) -> (Device, Module, String) {
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    let name = kernels[0].name.clone();
    let device = Device::cpu().unwrap();
    let module = device
        .load_module(&ModuleImage::new(
            kosmos_ir::verify_module(kosmos_ir::Module { kernels }).unwrap(),
        ))
        .unwrap();
    (device, module, name)
}

/// Lowers `src`, runs its one kernel as `grid x block` on `args`, and returns the `u32`
/// buffer `out` afterwards.
fn run_u32(src: &str, len: usize, scalars: &[u32], grid: u32, block: u32) -> Vec<u32> {
    let (device, module, name) = load_on_cpu(src);
    let out = Buffer::<u32>::from_slice(&device, &vec![u32::MAX; len]).unwrap();
    let mut args = vec![KernelArg::from(&out)];
    args.extend(scalars.iter().map(|s| KernelArg::from(*s)));
    let stream = device.stream().unwrap();
    module
        .launch(&stream, &name, LaunchConfig::linear(grid, block), &args)
        .unwrap();
    out.download().unwrap()
}

/// `len` random `bf16`s in -1..1.
fn random_bf16(rng: &mut SmallRng, len: usize) -> Vec<half::bf16> {
    (0..len)
        .map(|_| half::bf16::from_f32(rng.random_range(-1.0..1.0)))
        .collect()
}

fn error(src: &str) -> (String, usize, usize) {
    let e = lower_source(src).expect_err("the kernel should not lower");
    let start = e.span().start();
    (e.to_string(), start.line, start.column)
}

/// `#[kernel]` over `body` fails with an error containing `message` that starts at byte
/// `column` of `body`.
fn assert_error_at(body: &str, message: &str, column: Option<usize>) {
    let (got, line, col) = error(&format!("#[kernel]\n{body}"));
    assert!(got.contains(message), "{body}: {got}");
    assert_eq!((line, Some(col)), (2, column), "{body}: {got}");
}

/// Lowers `src`, whose one kernel `k(x, y)` writes `y[t]` from `x[t]`, and runs it on the CPU
/// device over `x` (in blocks of 64), the output poisoned with `poison` first.
fn run_map<T: kosmos_runtime::DeviceScalar>(src: &str, x: &[T], poison: T) -> Vec<T> {
    let (device, module, _) = load_on_cpu(src);
    let dx = Buffer::from_slice(&device, x).unwrap();
    let dy = Buffer::from_slice(&device, &vec![poison; x.len()]).unwrap();
    let stream = device.stream().unwrap();
    let args = [KernelArg::from(&dx), KernelArg::from(&dy)];
    let blocks = x.len().div_ceil(64) as u32;
    module
        .launch(&stream, "k", LaunchConfig::linear(blocks, 64), &args)
        .unwrap();
    dy.download().unwrap()
}

#[test]
fn loops_carry_assigned_variables() {
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32], n: u32) {
            let lane = workitem_id_x();
            let mut sum = 0u32;
            let mut odd = 0u32;
            for i in 0..n {
                sum += i * lane;
                if i % 2 == 1 {
                    odd += 1;
                }
            }
            let mut j = 0u32;
            while j < 5 {
                j += 2;
            }
            let found = loop {
                if j > 20 {
                    break j;
                }
                j = j * 2;
            };
            out[lane * 4] = sum;
            out[lane * 4 + 1] = odd;
            out[lane * 4 + 2] = if lane == 0 { 7 } else { lane + 100 };
            out[lane * 4 + 3] = found;
        }
    "#;
    let out = run_u32(src, 16, &[9], 1, 4);
    for lane in 0..4u32 {
        let base = lane as usize * 4;
        assert_eq!(out[base], (0..9).sum::<u32>() * lane);
        assert_eq!(out[base + 1], 4);
        assert_eq!(out[base + 2], if lane == 0 { 7 } else { lane + 100 });
        // j: 0 -> 6 by the while, then 12, 24 by the loop.
        assert_eq!(out[base + 3], 24);
    }
}

#[test]
fn step_by_shared_arrays_atomics_and_const_generics() {
    let src = r#"
        #[kernel(max_workgroup_size = 64, instances(W = 8))]
        fn k<const W: u32>(out: &mut [u32], n: u32) {
            let tile = shared_array::<u32, { W * 2 }>();
            let lane = workitem_id_x();
            tile[lane] = lane * 3;
            barrier();
            let mut acc = 0u32;
            for i in (0..W * 2).step_by(W) {
                acc += tile[i];
            }
            atomic_add(&out[0], acc, Ordering::Relaxed, Scope::Agent);
            if lane == 0 {
                atomic_store(&out[1], n << 1u8, Ordering::Release, Scope::Agent);
            }
            return;
        }
    "#;
    let kernels = lower_source(src).unwrap();
    assert_eq!(kernels[0].name, "k__w8");
    let out = run_u32(src, 2, &[5], 1, 16);
    // out[0] starts at u32::MAX and wraps: 16 lanes each add tile[0] + tile[8] = 24.
    assert_eq!(out[0], u32::MAX.wrapping_add(16 * 24));
    assert_eq!(out[1], 10);
}

#[test]
fn literals_take_the_type_of_their_context() {
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32], n: u32) {
            let wide = n as u64 + 1;
            let x: f32 = 2.5;
            let y = (x * 2.0) as u32;
            out[0] = (wide * 3) as u32 + y.min(1) + max(n, 2);
        }
    "#;
    assert_eq!(run_u32(src, 1, &[4], 1, 1), vec![15 + 1 + 4]);
}

#[test]
fn errors_point_at_the_offending_tokens() {
    // (body, message, the token the error points at)
    let cases: &[(&str, &str, &str)] = &[
        (
            "fn k(out: &mut [u32]) { let x: u32 = 1.5; }",
            "expected u32, found floating-point literal",
            "1.5",
        ),
        (
            "fn k(a: &[u32]) { a[0] = 1; }",
            "`a` is a `&[u32]` and cannot be written",
            "a[0]",
        ),
        (
            "fn k(a: &mut [u64]) { let i: u64 = workitem_id_x(); }",
            "expected u64, found u32",
            "workitem_id_x()",
        ),
        (
            "fn k(a: &mut [u32]) { let x = 1u32; x = 2; }",
            "cannot assign twice to immutable variable `x`",
            "x = 2",
        ),
        (
            "fn k(a: &mut [u32]) { break; }",
            "`break` outside of a loop",
            "break",
        ),
        (
            "fn k(a: &mut [u32]) { for i in 0..4u32 { break; } }",
            "`break` cannot leave a `for` loop",
            "break",
        ),
        (
            "fn k(a: &mut [u32], n: u32) { a[0] = n[1]; }",
            "cannot index into `n`, a u32",
            "n[1]",
        ),
        (
            "fn k(a: &mut [u32], n: u32) { let t = shared_array::<u32, n>(); }",
            "must be a constant",
            "n",
        ),
        (
            "fn k(a: &mut [u32]) { a[0] = atomic_load(&a[0], Ordering::Release, Scope::Agent); }",
            "an atomic load cannot be `Release`",
            "Ordering::Release",
        ),
        (
            "fn k(a: &mut [u32]) { frob(); }",
            "cannot find function `frob` among the kernel intrinsics",
            "frob",
        ),
        (
            "fn k(a: &mut [u32]) { let v = Vec::new(); }",
            "`Vec::new` is not available in kernels: there is no heap on the GPU",
            "Vec::new",
        ),
        (
            "fn k(a: &mut [u32]) { let s = String::from(\"x\"); }",
            "`String::from` is not available in kernels: there is no heap on the GPU",
            "String::from",
        ),
        (
            "fn k(a: &mut [u32]) { a[0] = u32::from_le(a[1]); }",
            "`u32::from_le` is not available in kernels: kernels call intrinsics only",
            "u32::from_le",
        ),
        (
            "fn k(a: &mut [u32]) { a[0] = helper(a[1]); }",
            "cannot find function `helper` among the kernel intrinsics (they are listed",
            "helper",
        ),
        (
            "fn k(a: &mut [u32]) { fence(Ordering::SeqCst); }",
            "`fence` takes 2 argument(s)",
            "fence",
        ),
        (
            "fn k(a: &mut [u32], n: u32) { a[0] = a.len(1) as u32; }",
            "`len` takes no arguments",
            "a.len(1)",
        ),
        (
            "fn k(a: &mut [u32]) { if true { let t = shared_array::<u32, 4>(); } }",
            "top level only",
            "shared_array",
        ),
    ];
    for (body, message, token) in cases {
        let column = match *token {
            "break" if body.contains("for") => body.rfind(token),
            "n" => body.rfind(", n>").map(|c| c + 2),
            _ => body.find(token),
        };
        assert_error_at(body, message, column);
    }
}

#[test]
fn instances_are_checked() {
    let (e, ..) = error("#[kernel] fn k<const B: u32>(a: &mut [u32]) {}");
    assert!(e.contains("needs its instances"), "{e}");
    let (e, ..) = error("#[kernel(instances(C = 1))] fn k<const B: u32>(a: &mut [u32]) {}");
    assert!(e.contains("`C` is not a const generic"), "{e}");
    let (e, ..) =
        error("#[kernel(instances(B = 1), instances(B = 1))] fn k<const B: u32>(a: &mut [u32]) {}");
    assert!(e.contains("declared twice"), "{e}");
}

/// Fragments carried through a `for` loop and an `if`, vectors staged through shared memory,
/// and subgroup ids: `c = a x b` for one 16 x 32 by 32 x 16 product per subgroup, checked
/// exactly (small integers are exact in bf16 and f32).
#[test]
fn fragments_vectors_and_subgroups() {
    let src = r#"
        #[kernel(max_workgroup_size = 64)]
        fn k(a: &[bf16], b: &[bf16], c: &mut [f32], ids: &mut [u32], k: u32) {
            let lane = workitem_id_x();
            let a_tile = shared_array::<bf16, 512>();
            let zero: bf16 = 0.0;
            // 16 x 32 of a as 64 vectors; the second half of the lanes also zero-fills.
            if lane < 64 {
                let mut v = splat8(zero);
                if lane * 8 < 16 * k {
                    v = load_vec8(&a[lane * 8]);
                }
                store_vec8(&a_tile[lane * 8], v);
            }
            barrier();
            let mut acc = frag_zero();
            for k0 in (0..k).step_by(16) {
                let x = frag_load_a(&a_tile[k0], k);
                acc = mma(x, frag_load_b(&b[k0 * 16], 16), acc);
            }
            let mut out = acc;
            if k == 0 {
                out = frag_zero();
            }
            frag_store(&c[subgroup_id() * 256], out, 16);
            ids[lane] = subgroup_id() * 1000 + subgroup_size() * 10 + subgroup_lane() % 10;
        }
    "#;
    let (device, module, _) = load_on_cpu(src);
    let (m, n, kk) = (16usize, 16usize, 32usize);
    let a: Vec<half::bf16> = (0..m * kk)
        .map(|i| half::bf16::from_f32((i % 7) as f32 - 3.0))
        .collect();
    let bm: Vec<half::bf16> = (0..kk * n)
        .map(|i| half::bf16::from_f32((i % 5) as f32 - 2.0))
        .collect();
    let da = Buffer::from_slice(&device, &a).unwrap();
    let db = Buffer::from_slice(&device, &bm).unwrap();
    let dc = Buffer::from_slice(&device, &vec![f32::NAN; 2 * m * n]).unwrap();
    let ids = Buffer::<u32>::from_slice(&device, &[u32::MAX; 64]).unwrap();
    let stream = device.stream().unwrap();
    let args = [
        KernelArg::from(&da),
        KernelArg::from(&db),
        KernelArg::from(&dc),
        KernelArg::from(&ids),
        KernelArg::from(kk as u32),
    ];
    module
        .launch(&stream, "k", LaunchConfig::linear(1, 64), &args)
        .unwrap();
    let got = dc.download().unwrap();
    for sg in 0..2 {
        for i in 0..m {
            for j in 0..n {
                let want: f32 = (0..kk)
                    .map(|p| a[i * kk + p].to_f32() * bm[p * n + j].to_f32())
                    .sum();
                assert_eq!(got[sg * 256 + i * n + j], want, "subgroup {sg} ({i}, {j})");
            }
        }
    }
    // The CPU device's default subgroups have 32 lanes.
    let ids = ids.download().unwrap();
    for (lane, id) in ids.into_iter().enumerate() {
        let lane = lane as u32;
        assert_eq!(id, lane / 32 * 1000 + 320 + lane % 32 % 10);
    }
}

/// Four-lane vectors of 32-bit elements: loaded and stored whole, lanes read by `extract`
/// and put together by `vec4`, passed to a device function, loaded unchecked in an `unsafe`
/// block; a vector that runs past its slice, or lies off the vector's alignment, is reported.
#[test]
fn four_lane_vectors_move_32_bit_elements_whole() {
    let src = r#"
        #[device]
        fn total(v: Vec4<f32>) -> f32 {
            extract(v, 0) + extract(v, 1) + extract(v, 2) + extract(v, 3)
        }

        #[kernel(max_workgroup_size = 64)]
        fn k(a: &[f32], sums: &mut [f32], back: &mut [f32], halves: &mut [bf16], at: u32) {
            let lane = workitem_id_x();
            let v = load_vec4(&a[at + lane * 4]);
            let mut s = 0.0;
            s += total(v);
            sums[lane] = s;
            store_vec4(&back[lane * 4], vec4(extract(v, 3), extract(v, 2), extract(v, 1), extract(v, 0)));
            let first = unsafe { load_vec4(a.get_unchecked(0)) };
            let h = vec4(extract(v, 0) as bf16, 1.5 as bf16, s as bf16, extract(first, 1) as bf16);
            store_vec4(&halves[lane * 4], h);
        }
    "#;
    let (device, module, _) = load_on_cpu(src);
    let lanes = 8usize;
    let a: Vec<f32> = (0..36).map(|i| (i as f32) * 0.25 - 3.0).collect();
    let da = Buffer::from_slice(&device, &a).unwrap();
    let run = |at: u32| {
        let sums = Buffer::from_slice(&device, &vec![f32::NAN; lanes]).unwrap();
        let back = Buffer::from_slice(&device, &vec![f32::NAN; 4 * lanes]).unwrap();
        let halves = Buffer::from_slice(&device, &vec![half::bf16::NAN; 4 * lanes]).unwrap();
        let stream = device.stream().unwrap();
        let args = [
            KernelArg::from(&da),
            KernelArg::from(&sums),
            KernelArg::from(&back),
            KernelArg::from(&halves),
            KernelArg::from(at),
        ];
        module
            .launch(&stream, "k", LaunchConfig::linear(1, lanes as u32), &args)
            .and_then(|()| stream.synchronize())
            .map(|()| {
                (
                    sums.download().unwrap(),
                    back.download().unwrap(),
                    halves.download().unwrap(),
                )
            })
    };
    let (sums, back, halves) = run(0).unwrap();
    for lane in 0..lanes {
        let v = &a[4 * lane..4 * lane + 4];
        let sum = ((v[0] + v[1]) + v[2]) + v[3];
        assert_eq!(sums[lane], sum, "lane {lane}");
        let reversed: Vec<f32> = v.iter().rev().copied().collect();
        assert_eq!(back[4 * lane..4 * lane + 4], reversed[..], "lane {lane}");
        let want = [v[0], 1.5, sum, a[1]].map(half::bf16::from_f32);
        assert_eq!(halves[4 * lane..4 * lane + 4], want[..], "lane {lane}");
    }
    // One element off: every vector is 4 bytes past a 16-byte boundary.
    let e = run(1)
        .expect_err("a misaligned vector load must fail")
        .to_string();
    assert!(e.contains("is not aligned to 16"), "{e}");
    // Lane 7's vector at 36..40 runs past the 36 elements.
    let e = run(8)
        .expect_err("a vector past its slice must fail")
        .to_string();
    assert!(
        e.contains("index 39 is out of bounds for a slice of 36"),
        "{e}"
    );
}

/// `vec8` puts eight 16-bit scalars together (lane 0 first), each lane's from whatever
/// makes one (a vector's lane, a conversion, a literal); eight 32-bit lanes are refused.
#[test]
fn vec8_puts_eight_16_bit_lanes_together() {
    let src = r#"
        #[kernel(max_workgroup_size = 32)]
        fn k(a: &[bf16], out: &mut [bf16], x: f32) {
            let lane = workitem_id_x();
            let v = load_vec8(&a[lane * 8]);
            let w = vec8(
                extract(v, 7),
                extract(v, 6),
                extract(v, 5),
                extract(v, 4),
                (extract(v, 3) as f32 * x) as bf16,
                extract(v, 2),
                2.5 as bf16,
                extract(v, 0),
            );
            store_vec8(&out[lane * 8], w);
        }
    "#;
    let (device, module, _) = load_on_cpu(src);
    let lanes = 4usize;
    let a: Vec<half::bf16> = (0..8 * lanes)
        .map(|i| half::bf16::from_f32(i as f32 - 9.0))
        .collect();
    let da = Buffer::from_slice(&device, &a).unwrap();
    let out = Buffer::from_slice(&device, &vec![half::bf16::NAN; 8 * lanes]).unwrap();
    let stream = device.stream().unwrap();
    let args = [
        KernelArg::from(&da),
        KernelArg::from(&out),
        KernelArg::from(-0.5f32),
    ];
    module
        .launch(&stream, "k", LaunchConfig::linear(1, lanes as u32), &args)
        .and_then(|()| stream.synchronize())
        .unwrap();
    let got = out.download().unwrap();
    for lane in 0..lanes {
        let v = &a[8 * lane..8 * lane + 8];
        let scaled = half::bf16::from_f32(v[3].to_f32() * -0.5);
        let two_and_a_half = half::bf16::from_f32(2.5);
        let want = [v[7], v[6], v[5], v[4], scaled, v[2], two_and_a_half, v[0]];
        assert_eq!(got[8 * lane..8 * lane + 8], want[..], "lane {lane}");
    }
    let (e, ..) = error(
        "#[kernel] fn k(a: &mut [f32]) { let x = a[0]; store_vec8(&a[0], vec8(x, x, x, x, x, x, x, x)); }",
    );
    assert!(e.contains("vectors of 8 take 8- or 16-bit elements"), "{e}");
}

/// An `if` whose branches make tiles: a tile bound inside a branch, an `else if` chain, an
/// unchecked load in `unsafe`, and an outer variable the branch assigns, carried out.
#[test]
fn an_if_makes_a_tile_from_its_branches() {
    let src = r#"
        #[kernel(max_workgroup_size = 64)]
        fn k(a: &[f32], out: &mut [f32], taken: &mut [u32]) {
            let lane = workitem_id_x();
            let x = a[0];
            let mut count = 0u32;
            let v = if lane % 3 == 0 {
                count += 1;
                let w = load_vec4(&a[lane * 4]);
                w
            } else if lane % 3 == 1 {
                vec4(x, x + 1.0, x + 2.0, x + 3.0)
            } else {
                unsafe { load_vec4(a.get_unchecked(lane * 4 + 4)) }
            };
            store_vec4(&out[lane * 4], v);
            taken[lane] = count;
        }
    "#;
    let (device, module, _) = load_on_cpu(src);
    let lanes = 16usize;
    let a: Vec<f32> = (0..4 * lanes + 4).map(|i| i as f32 * 0.5 + 1.0).collect();
    let da = Buffer::from_slice(&device, &a).unwrap();
    let out = Buffer::from_slice(&device, &vec![f32::NAN; 4 * lanes]).unwrap();
    let taken = Buffer::from_slice(&device, &vec![u32::MAX; lanes]).unwrap();
    let stream = device.stream().unwrap();
    let args = [
        KernelArg::from(&da),
        KernelArg::from(&out),
        KernelArg::from(&taken),
    ];
    module
        .launch(&stream, "k", LaunchConfig::linear(1, lanes as u32), &args)
        .unwrap();
    let (out, taken) = (out.download().unwrap(), taken.download().unwrap());
    for lane in 0..lanes {
        let want: Vec<f32> = match lane % 3 {
            0 => a[4 * lane..4 * lane + 4].to_vec(),
            1 => (0..4).map(|j| a[0] + j as f32).collect(),
            _ => a[4 * lane + 4..4 * lane + 8].to_vec(),
        };
        assert_eq!(out[4 * lane..4 * lane + 4], want[..], "lane {lane}");
        assert_eq!(taken[lane], u32::from(lane % 3 == 0), "lane {lane}");
    }
}

#[test]
fn tile_misuse_is_an_error_at_its_tokens() {
    // (body, message, the token the error points at)
    let cases: &[(&str, &str, &str)] = &[
        (
            "fn k(t: &[bf16]) { let x = frag_load_a(&t[0], 16u32); let y = mma(x, x, frag_zero()); }",
            "expected a `b` fragment (from `frag_load_b`), found an `a` fragment",
            "x, frag_zero",
        ),
        (
            "fn k(c: &mut [f32]) { let x = frag_zero(); c[0] = x + 1.0; }",
            "`x` is an accumulator fragment (from `frag_zero` or `mma`), not a number",
            "x + 1.0",
        ),
        (
            "fn k(c: &mut [f32]) { let x = frag_zero() * 2.0; }",
            "`frag_zero` makes a fragment or vector, not a number",
            "frag_zero",
        ),
        (
            "fn k(t: &[f32]) { let x = frag_load_a(&t[0], 16u32); }",
            "`frag_load_a` reads bf16 elements, found f32",
            "&t[0]",
        ),
        (
            "fn k(c: &[f32]) { frag_store(&c[0], frag_zero(), 16u32); }",
            "`c` is a `&[f32]` and cannot be written",
            "c[0]",
        ),
        (
            "fn k(c: &mut [f32]) { frag_store(&c[0], 1.0, 16u32); }",
            "expected an accumulator (from `frag_zero`, `mma`, `wide_zero` or `mma_group`), found a scalar",
            "1.0",
        ),
        (
            "fn k(t: &mut [f32]) { let v = load_vec8(&t[0]); }",
            "vectors of 8 take 8- or 16-bit elements",
            "&t[0]",
        ),
        (
            "fn k(t: &mut [f64]) { let v = load_vec4(&t[0]); }",
            "vectors of 4 take 8-, 16- or 32-bit elements (16 bytes at most), found f64",
            "&t[0]",
        ),
        (
            "fn k(t: &mut [f32]) { let v = load_vec4(&t[0]); t[1] = extract(v, 4u32); }",
            "lane 4 of a vector of 4 f32: its lanes are 0..4",
            "4u32",
        ),
        (
            "fn k(t: &mut [f32]) { t[1] = extract(t[0], 0u32); }",
            "expected a vector, found a scalar",
            "t[0]",
        ),
        (
            "fn k(t: &mut [f32], u: &mut [u32]) { store_vec4(&t[0], load_vec4(&u[0])); }",
            "expected a vector of 4 f32, found a vector of 4 u32",
            "load_vec4(&u",
        ),
        (
            "fn k(t: &mut [f32], h: &[bf16], c: u32) { let x = t[0]; store_vec4(&t[0], if c > 1 { vec4(x, x, x, x) } else { load_vec8(&h[0]) }); }",
            "expected a vector of 4 f32, found a vector of 8 bf16",
            "load_vec8(&h",
        ),
        (
            "fn k(t: &mut [f32], c: u32) { let x = t[0]; let v = if c > 1 { vec4(x, x, x, x) }; }",
            "an `if` without `else` has no value: add an `else` branch making a vector of 4 f32",
            "{ vec4",
        ),
        (
            "fn k(t: &mut [bf16], u: &mut [u16]) { store_vec8(&t[0], load_vec8(&u[0])); }",
            "expected a vector of 8 bf16, found a vector of 8 u16",
            "load_vec8(&u",
        ),
        (
            "fn k(t: &mut [bf16]) { let mut x = frag_zero(); x += frag_zero(); }",
            "`x` is an accumulator fragment",
            "+=",
        ),
        (
            "fn k(t: &mut [bf16]) { frag_store(t, frag_zero(), 16u32); }",
            "`frag_store` takes an element reference: `&a[i]`",
            "t, frag",
        ),
        (
            "fn k(c: &mut [f32]) { frag_store_swizzled(&c[0], wide_zero(), 16u32); }",
            "`frag_store_swizzled` writes bf16 elements, found f32",
            "&c[0]",
        ),
    ];
    for (body, message, token) in cases {
        assert_error_at(body, message, body.find(token));
    }
}

#[test]
fn team_kernels_open_with_the_team_parameters() {
    let src = r#"
        #[kernel]
        fn k(team: &Team, x: &Sym<[bf16]>, out: &mut [u32]) {
            out[0] = x.len() as u32 + world_size();
        }
    "#;
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    let k = &kernels[0];
    let names: Vec<&str> = k.params.iter().filter_map(|p| k.value_name(*p)).collect();
    let mut want = kosmos_sched::abi::TEAM_PARAMS.to_vec();
    want.extend(["x", "x.len", "out"]);
    assert_eq!(names, want);
    // A symmetric buffer is its peer-table index and its length.
    let types: Vec<Type> = k.params[want.len() - 3..]
        .iter()
        .map(|p| k.ty(*p))
        .collect();
    assert_eq!(
        types,
        [Type::U32, Type::Scalar(ScalarType::U64), Type::GLOBAL_PTR]
    );
}

#[test]
fn peer_copies_are_found_through_the_peer_table_by_the_buffer_parameter() {
    let src = r#"
        #[kernel]
        fn k(team: &Team, x: &Sym<[f32]>) {
            x.peer(world_size() - 1)[0] = 1.0;
        }
    "#;
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    let k = &kernels[0];
    let param = |name: &str| {
        *k.params
            .iter()
            .find(|p| k.value_name(**p) == Some(name))
            .expect("a parameter")
    };
    let (peers, ranks, x) = (param("team_peers"), param("team_ranks"), param("x"));
    let defs = definitions(k);
    // `Team::peer_ptr`'s entry: `team_peers[x * team_ranks + rank]` (an `i64` offset).
    let entries: Vec<Value> = defs
        .values()
        .filter_map(|op| match *op {
            Op::PtrOffset {
                base,
                index,
                elem: Type::I64,
            } if base == peers => Some(index),
            _ => None,
        })
        .collect();
    let of_x = entries.iter().any(|slot| {
        let Some(Op::Binary { lhs: row, .. }) = defs.get(slot) else {
            return false;
        };
        matches!(defs.get(row), Some(Op::Binary { lhs, rhs, .. }) if (*lhs, *rhs) == (x, ranks))
    });
    assert!(of_x, "no peer-table entry of `x`: {entries:?}");
    // The store is checked against `x.len`.
    let mut checked = Vec::new();
    k.walk(|_, inst| {
        if let Op::BoundsFail { len, .. } = inst.op {
            checked.push(len);
        }
    });
    assert_eq!(checked, [param("x.len")]);
}

#[test]
fn scheduling_misuse_is_reported_at_its_tokens() {
    let cases = [
        (
            "fn k(out: &mut [u32]) { out[0] = team_rank(); }",
            "`team_rank` needs a world: make `team: &Team` the kernel's first parameter",
            "team_rank",
        ),
        (
            "fn k(out: &mut [u32]) { team_barrier(); out[0] = team_workgroup(); }",
            "`team_barrier` needs a world: make `team: &Team` the kernel's first parameter",
            "team_barrier",
        ),
        (
            "fn k(n: u32) { report_overflow(64, n); }",
            "`report_overflow` needs a world: make `team: &Team` the kernel's first parameter",
            "report_overflow",
        ),
        (
            "fn k(out: &mut [u32]) { out[1] = subgroup_claim(&out[0], 4); }",
            "`subgroup_claim` needs a world: make `team: &Team` the kernel's first parameter",
            "subgroup_claim",
        ),
        (
            "fn k(team: &Team, c: &mut [u32]) { subgroup_trace(Role::Busy, 0, clock()); }",
            "expected a role: `Role::Compute`, `Role::Comm` or `Role::Wait`",
            "Role::Busy",
        ),
        (
            "fn k(team: &Team, c: &mut [f32]) { subgroup_signal(&c[0], 1, Scope::System); }",
            "`subgroup_signal` takes a `u32` counter, found f32",
            "&c[0]",
        ),
        (
            "fn k(out: &mut [u32], team: &Team) { }",
            "`&Team` is the first parameter of a kernel",
            "&Team",
        ),
        (
            "fn k(team: &Team, c: &mut [f32]) { signal(&c[0], 1, Scope::System); }",
            "`signal` takes a `u32` counter, found f32",
            "&c[0]",
        ),
        (
            "fn k(team: &Team, c: &mut [u32]) { wait(c, 1, Scope::System, 0); }",
            "`wait` takes a counter: an element reference `&counters[i]`",
            "c, 1",
        ),
        (
            "fn k(c: &mut [u32], x: &Sym<[u32]>) { }",
            "symmetric buffers need a world: make `team: &Team` the kernel's first parameter",
            "&Sym",
        ),
        (
            "fn k(team: &Team, x: &mut Sym<[u32]>) { }",
            "write `&Sym<[T]>`, not `&mut Sym<[T]>`",
            "&mut Sym",
        ),
        (
            "fn k(team: &Team, x: &Sym<u32>) { }",
            "write `&Sym<[T]>`",
            "<u32>",
        ),
        (
            "fn k(team: &Team, x: &Sym<[Vec<u32>]>) { }",
            "unsupported symmetric buffer element type `Vec<u32>`",
            "Vec<u32>",
        ),
        (
            "fn k(team: &Team, x: &Sym<[bool]>) { }",
            "symmetric buffers of `bool` are not supported",
            "bool",
        ),
        (
            "fn k(team: &Team, x: &Sym<[u32]>) { x.peer(0, 1)[0] = 1; }",
            "`peer` takes 1 argument (rank), found 2",
            "x.peer(0, 1)",
        ),
        (
            "fn k(team: &Team, x: &Sym<[u32]>) { let a = x.local(0); }",
            "`local` takes no arguments, found 1",
            "x.local(0)",
        ),
        (
            "fn k(team: &Team, x: &Sym<[u32]>) { x[0] = 1; }",
            "cannot index into `x`, a symmetric buffer: index a rank's copy, `x.peer(rank)[i]`",
            "x[0]",
        ),
        (
            "fn k(team: &Team, x: &Sym<[u32]>) { let a = x.peer(0) + 1; }",
            "`x.peer(..)` is a slice: bind it with `let` or index it",
            "x.peer(0) +",
        ),
        (
            "fn k(team: &Team, x: &Sym<[u32]>) { let a = x.first(); }",
            "symmetric buffers have `.peer(rank)`, `.local()` and `.len()`, not `.first`",
            "first",
        ),
        (
            "fn k(team: &Team, x: &Sym<[u32]>) { let a = x + 1; }",
            "`x` is a symmetric buffer: take a rank's copy, `x.peer(rank)`",
            "x + 1",
        ),
        (
            "fn k(team: &Team, x: &Sym<[u32]>) { let a: u32 = x.peer(0); }",
            "a rank's copy of a symmetric buffer takes its type from it",
            "u32 =",
        ),
    ];
    for (body, message, token) in cases {
        assert_error_at(body, message, body.find(token));
    }
}

#[test]
fn world_kernels_reach_every_rank_copy_and_check_its_bounds() {
    use kosmos_runtime::{World, WorldError, WorldOptions};
    let src = r#"
        /// Writes `v` to element `at` of rank `rank`'s copy of `x`.
        #[device]
        fn put(x: &Sym<[u32]>, rank: u32, at: u32, v: u32) {
            x.peer(rank)[at] = v;
        }

        #[kernel]
        fn k(team: &Team, src: &Sym<[u32]>, dst: &Sym<[u32]>, past: u32) {
            start_barrier();
            let rank = team_rank();
            if workitem_id_x() == 0 {
                put(dst, (rank + 1) % world_size(), rank, src.local()[0] + rank);
                dst.local()[world_size()] = dst.len() as u32;
                if past > 0 {
                    dst.peer(0)[dst.len() as u32 + past - 1] = 7;
                }
            }
        }
    "#;
    let (device, module, name) = load_on_cpu(src);
    let mut rng = SmallRng::seed_from_u64(rand::random());
    let ranks = rng.random_range(1..=4u32);
    let mut world = World::emulated(&device, ranks, WorldOptions::default()).unwrap();
    let n = ranks as usize + 1;
    let source = world.alloc_symmetric::<u32>(1).unwrap();
    let dest = world.alloc_symmetric::<u32>(n).unwrap();
    let values: Vec<u32> = (0..ranks).map(|_| rng.random_range(0..1 << 30)).collect();
    for r in 0..ranks {
        source
            .rank(r)
            .unwrap()
            .upload(&[values[r as usize]])
            .unwrap();
        dest.rank(r).unwrap().upload(&vec![u32::MAX; n]).unwrap();
    }
    let mut launch = |past: u32| {
        let args = [
            KernelArg::from(source.index()),
            KernelArg::from(source.len() as u64),
            KernelArg::from(dest.index()),
            KernelArg::from(dest.len() as u64),
            KernelArg::from(past),
        ];
        world.launch(&module, &name, 1, 32, &args)
    };
    launch(0).unwrap();
    for d in 0..ranks {
        let mut want = vec![u32::MAX; n];
        let s = (d + ranks - 1) % ranks;
        want[s as usize] = values[s as usize] + s;
        want[ranks as usize] = n as u32;
        assert_eq!(dest.rank(d).unwrap().download().unwrap(), want, "rank {d}");
    }
    let past = rng.random_range(1..4);
    match launch(past) {
        Err(WorldError::Runtime(kosmos_runtime::Error::IndexOutOfBounds {
            origin, len, ..
        })) => {
            assert!(
                origin.ends_with("dst.peer(0)[dst.len() as u32 + past - 1]"),
                "{origin}"
            );
            assert_eq!(len, n as u64);
        }
        other => panic!("{past} past the end: {other:?}"),
    }
}

/// `scheduler_scratch = ring` makes the scheduler broadcast its claims through the ring's
/// last two words: no allocation of its own, every lane of a workgroup sees the same
/// ticket, and the rest of the ring keeps what the workgroup put there across the claims.
#[test]
fn the_scheduler_borrows_the_last_words_of_a_named_shared_array() {
    use kosmos_runtime::{World, WorldOptions};
    let src = r#"
        #[kernel(scheduler_scratch = ring)]
        fn k(team: &Team, heads: &Sym<[u32]>, seen: &Sym<[u32]>, n: u32) {
            let ring = shared_array::<u32, 64>();
            start_barrier();
            let lane = workitem_id_x();
            ring[lane] = lane * 3 + 1;
            barrier();
            let head = heads.local();
            let mut t = claim(&head[0], n);
            while t < n {
                seen.local()[t * 32 + lane] = ring[lane] + 1000 * t;
                t = claim(&head[0], n);
            }
        }
    "#;
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kernels[0].shared_layout(), (vec![0], 256));
    let (device, module, name) = load_on_cpu(src);
    let mut world = World::emulated(&device, 1, WorldOptions::default()).unwrap();
    let n = SmallRng::seed_from_u64(rand::random()).random_range(5..40u32);
    let heads = world.alloc_symmetric::<u32>(1).unwrap();
    heads.rank(0).unwrap().upload(&[0]).unwrap();
    let seen = world.alloc_symmetric::<u32>(32 * n as usize).unwrap();
    seen.rank(0)
        .unwrap()
        .upload(&vec![u32::MAX; 32 * n as usize])
        .unwrap();
    let args = [
        KernelArg::from(heads.index()),
        KernelArg::from(heads.len() as u64),
        KernelArg::from(seen.index()),
        KernelArg::from(seen.len() as u64),
        KernelArg::from(n),
    ];
    world.launch(&module, &name, 3, 32, &args).unwrap();
    let want: Vec<u32> = (0..n)
        .flat_map(|t| (0..32).map(move |lane| lane * 3 + 1 + 1000 * t))
        .collect();
    assert_eq!(seen.rank(0).unwrap().download().unwrap(), want);
}

/// `shared_view::<u16, N>(ring)` reads the ring's bytes as `u16`s: no allocation of its
/// own, the low half of each `u32` word first (little-endian, as on every target).
#[test]
fn a_shared_view_reads_an_arrays_bytes_as_another_type() {
    let src = r#"
        #[kernel(max_workgroup_size = 32)]
        fn k(out: &mut [u32]) {
            let ring = shared_array::<u32, 32>();
            let halves = shared_view::<u16, 48>(ring);
            let lane = workitem_id_x();
            ring[lane] = (lane + 1) * 65536 + lane;
            barrier();
            out[lane] = halves[lane] as u32;
            out[32 + lane] = halves[lane + 16] as u32;
        }
    "#;
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kernels[0].shared_layout(), (vec![0], 128));
    let got = run_u32(src, 64, &[], 1, 32);
    let half = |i: u32| i / 2 + i % 2;
    let want: Vec<u32> = (0..32).chain(16..48).map(half).collect();
    assert_eq!(got, want);
}

#[test]
fn shared_view_misuse_is_reported() {
    let cases = [
        (
            "fn k(out: &mut [u32]) { let v = shared_view::<u16, 4>(out); }",
            "`shared_view` takes a shared array by its name",
            "out)",
        ),
        (
            "fn k(out: &mut [u32]) { let r = shared_array::<u32, 4>(); let v = shared_view::<u16, 9>(r); }",
            "a view of 18 bytes over a shared array of 16",
            "shared_view::<u16, 9>",
        ),
    ];
    for (body, message, token) in cases {
        assert_error_at(body, message, body.find(token));
    }
}

#[test]
fn scheduler_scratch_misuse_is_reported() {
    let cases = [
        (
            "#[kernel(scheduler_scratch = ring)]\nfn k(out: &mut [u32]) { let ring = shared_array::<u32, 8>(); }",
            "`scheduler_scratch` lends shared memory to the scheduler of a world",
        ),
        (
            "#[kernel(scheduler_scratch = ring)]\nfn k(team: &Team) { let other = shared_array::<u32, 8>(); }",
            "`scheduler_scratch` names `ring`, but the kernel has no top-level `let ring = shared_array::<T, N>()`",
        ),
        (
            "#[kernel(scheduler_scratch = ring)]\nfn k(team: &Team) { start_barrier(); let ring = shared_array::<u32, 8>(); }",
            "`start_barrier` comes before `let ring = shared_array::<T, N>()`",
        ),
        (
            "#[kernel(scheduler_scratch = ring)]\nfn k(team: &Team) { let ring = shared_array::<u8, 6>(); }",
            "`scheduler_scratch` takes the last 2 4-byte words of `ring`, which holds 6 bytes",
        ),
    ];
    for (src, message) in cases {
        let (got, ..) = error(src);
        assert!(got.contains(message), "{src}: {got}");
    }
}

/// The instructions of `k` that define each value, by value index.
fn definitions(k: &kosmos_ir::Kernel) -> HashMap<Value, Op> {
    let mut defs = HashMap::new();
    k.walk(|_, inst| {
        for r in &inst.results {
            defs.insert(*r, inst.op.clone());
        }
    });
    defs
}

/// Each new tile intrinsic lowers to its op with the operands the DSL names: tiles and copy
/// destinations in the shared arrays, copy sources in the slice, bounds and predicates
/// from the kernel's values, the wait count from a const generic.
/// `mma_group_trans` and `mma_group_async_trans` give their tiles' layouts from constants
/// (here const generics), and `frag_store` into a `bf16` slice stores `bf16`s.
#[test]
fn transposed_tiles_and_bf16_stores_lower_to_their_attributes() {
    let src = r#"
        #[kernel(max_workgroup_size = 128, instances(TA = 1, TB = 0))]
        fn k<const TA: u32, const TB: u32>(c: &mut [bf16]) {
            let tiles = shared_array::<bf16, 12288>();
            let mut acc = mma_group_trans(&tiles[0], &tiles[4096], wide_zero(), TA, TB);
            acc = mma_group_async_trans(&tiles[0], &tiles[4096], acc, 0, 1 - TB);
            acc = mma_wait(0, acc);
            frag_store(&c[0], acc, 128);
        }
    "#;
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    let mut layouts = Vec::new();
    let mut elems = Vec::new();
    kernels[0].walk(|_, inst| match inst.op {
        Op::MmaGroup { layout, .. } | Op::MmaGroupAsync { layout, .. } => layouts.push(layout),
        Op::FragStore { elem, .. } => elems.push(elem),
        _ => {}
    });
    let laid = |a, b| MmaLayout { a, b };
    assert_eq!(
        layouts,
        [laid(ATile::KM, BTile::KN), laid(ATile::MK, BTile::NK)]
    );
    assert_eq!(elems, [ScalarType::BF16]);
    let bad = r#"
        #[kernel(max_workgroup_size = 128)]
        fn k(c: &mut [f32]) {
            let tiles = shared_array::<bf16, 12288>();
            let acc = mma_group_trans(&tiles[0], &tiles[4096], wide_zero(), 2, 0);
            frag_store(&c[0], acc, 128);
        }
    "#;
    let e = lower_source(bad).map(|_| ()).unwrap_err().to_string();
    assert!(
        e.contains("`a` is transposed (1) or not (0), found 2"),
        "{e}"
    );
}

#[test]
fn group_intrinsics_lower_to_their_ops() {
    let src = r#"
        #[kernel(max_workgroup_size = 512, max_subgroups = 8, instances(P = 3))]
        fn k<const P: u32>(a: &[bf16], c: &mut [f32], m: u32) {
            let a_tile = shared_array::<bf16, 4096>();
            let b_tile = shared_array::<bf16, 8192>();
            let lane = workitem_id_x();
            copy_async(&a_tile[lane * 8], &a[lane * 8], lane < m);
            async_commit();
            async_wait(P - 1);
            barrier();
            let mut acc = wide_zero();
            acc = mma_group(&a_tile[0], &b_tile[4096], acc);
            frag_store(&c[0], acc, 128);
            frag_store_within(&c[8192], acc, 128, m, 100);
        }
    "#;
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    let k = &kernels[0];
    assert_eq!((k.max_subgroups, k.max_workgroup_size), (Some(8), 512));
    assert!(k.uses_groups());
    let defs = definitions(k);
    let (a, c, m) = (k.params[0], k.params[1], k.params[2]);
    // The base of a pointer `ptr_offset(base, _)` and the op that made it.
    let base = |p: Value| match &defs[&p] {
        Op::PtrOffset { base, .. } => *base,
        op => panic!("{p:?} is made by {}, not ptr.offset", op.name()),
    };
    let mut allocs = Vec::new();
    let mut ops = Vec::new();
    k.walk(|_, inst| match &inst.op {
        Op::SharedAlloc { .. } => allocs.push(inst.results[0]),
        Op::FragZero { .. }
        | Op::MmaGroup { .. }
        | Op::FragStore { .. }
        | Op::CopyAsync { .. }
        | Op::AsyncCommit
        | Op::AsyncWait { .. } => ops.push((inst.op.clone(), inst.results.clone())),
        _ => {}
    });
    let names: Vec<&str> = ops.iter().map(|(op, _)| op.name()).collect();
    assert_eq!(
        names,
        [
            "copy.async",
            "async.commit",
            "async.wait",
            "frag.zero",
            "mma.group",
            "frag.store",
            "frag.store"
        ]
    );
    let Op::CopyAsync { dst, src, pred } = ops[0].0 else {
        unreachable!()
    };
    assert_eq!((base(dst), base(src)), (allocs[0], a));
    assert_eq!(k.ty(pred), Type::I1);
    assert!(matches!(defs[&pred], Op::Cmp { rhs, .. } if rhs == m));
    assert_eq!(ops[2].0, Op::AsyncWait { pending: 2 });
    assert_eq!(
        ops[3].0,
        Op::FragZero {
            role: FragRole::WideAcc
        }
    );
    let zero = ops[3].1[0];
    let Op::MmaGroup {
        a: ta,
        b: tb,
        acc,
        layout,
    } = ops[4].0
    else {
        unreachable!()
    };
    assert_eq!((base(ta), base(tb), acc), (allocs[0], allocs[1], zero));
    assert_eq!(layout, MmaLayout::DEFAULT);
    let wide = Type::Frag(FragRole::WideAcc);
    assert_eq!(k.ty(ops[4].1[0]), wide);
    let Op::FragStore {
        ptr,
        value,
        within,
        elem,
        ..
    } = ops[5].0
    else {
        unreachable!()
    };
    assert_eq!(elem, ScalarType::F32);
    // The product leaves the bounds checks of its two tiles as the result of their `if`.
    let sum = value;
    assert!(matches!(defs[&sum], Op::If { .. }) && k.ty(sum) == wide);
    assert_eq!((base(ptr), within), (c, None));
    let Op::FragStore {
        ptr,
        value,
        within: Some((rows, cols)),
        ..
    } = ops[6].0
    else {
        panic!("the second store is bounded: {:?}", ops[6].0)
    };
    assert_eq!((base(ptr), value, rows), (c, sum, m));
    assert_eq!(
        defs[&cols],
        Op::Const {
            value: Constant::int(ScalarType::U32, 100)
        }
    );
}

#[test]
fn group_misuse_is_an_error_at_its_tokens() {
    const TILES: &str =
        "let t = shared_array::<bf16, 8192>(); let u = shared_array::<f32, 4096>();";
    // (body after `TILES`, message, the token the error points at)
    let cases: &[(&str, &str, &str)] = &[
        (
            "let acc = mma_group(&a[0], &t[0], wide_zero());",
            "the `a` tile of `mma_group` must be in shared memory (an element of a `shared_array`), but `a` is a global slice",
            "&a[0]",
        ),
        (
            "let acc = mma_group(&t[0], &t[4096], frag_zero());",
            "expected a wide accumulator (from `wide_zero` or `mma_group`), found an accumulator fragment (from `frag_zero` or `mma`)",
            "frag_zero",
        ),
        (
            "let acc = mma_group(t, &t[0], wide_zero());",
            "`mma_group` takes an element reference: `&a[i]`",
            "t, &t",
        ),
        (
            "let x = frag_load_a(&t[0], 16u32); let y = frag_load_b(&t[0], 16u32); let acc = mma(x, y, wide_zero());",
            "expected an accumulator fragment (from `frag_zero` or `mma`), found a wide accumulator (from `wide_zero` or `mma_group`)",
            "wide_zero",
        ),
        (
            "let acc = wide_zero(); c[0] = acc * 2.0;",
            "`acc` is a wide accumulator (from `wide_zero` or `mma_group`), not a number: fragments only go to `mma`, `mma_group` and `frag_store`",
            "acc * 2.0",
        ),
        (
            "c[0] = wide_zero();",
            "`wide_zero` makes a fragment or vector, not a number",
            "wide_zero",
        ),
        (
            "frag_store(&c[0], frag_load_a(&t[0], 16u32), 16u32);",
            "expected an accumulator (from `frag_zero`, `mma`, `wide_zero` or `mma_group`), found an `a` fragment",
            "frag_load_a",
        ),
        (
            "frag_store_within(&c[0], wide_zero(), 128u32, 16u32);",
            "`frag_store_within` takes 5 argument(s) (&c[i], accumulator, stride, rows, cols), found 4",
            "frag_store_within",
        ),
        (
            "frag_store_within(&c[0], wide_zero(), 128u32, 1.5, 16u32);",
            "expected u32, found floating-point literal",
            "1.5",
        ),
        (
            "copy_async(&c[0], &a[0], true);",
            "the destination of `copy_async` must be in shared memory (an element of a `shared_array`), but `c` is a global slice",
            "&c[0]",
        ),
        (
            "copy_async(&u[0], &t[0], true);",
            "the source of `copy_async` must be in global memory (an element of a slice parameter), but `t` is a shared array",
            "&t[0]",
        ),
        (
            "copy_async(&t[0], &a[0], n);",
            "expected bool, found u32",
            "n)",
        ),
        (
            "copy_async(&t[0], a, true);",
            "`copy_async` takes an element reference: `&a[i]`",
            "a, true",
        ),
        (
            "async_wait(n);",
            "the count of `async_wait` must be a constant: literals, const generics and integer `const` items only",
            "n)",
        ),
        (
            "async_wait(1u64 << 40);",
            "the count of `async_wait` out of range for u32",
            "1u64",
        ),
        (
            "async_commit(n);",
            "`async_commit` takes 0 argument(s) (none), found 1",
            "async_commit",
        ),
        (
            "copy_tensor_wait_read(n);",
            "the count of `copy_tensor_wait_read` must be a constant: literals, const generics and integer `const` items only",
            "n)",
        ),
        (
            "copy_tensor_wait(1u64 << 40);",
            "the count of `copy_tensor_wait` out of range for u32",
            "1u64",
        ),
        (
            "copy_tensor_store(&a[0], 0, 0, &t[0]);",
            "expected `&map`, a `&TensorMap` parameter of the kernel",
            "&a[0], 0",
        ),
    ];
    for (body, message, token) in cases {
        let body = format!("fn k(a: &[bf16], c: &mut [f32], n: u32) {{ {TILES} {body} }}");
        let column = body[TILES.len()..].find(token).map(|c| c + TILES.len());
        assert_error_at(&body, message, column);
    }
}

/// `#[kernel(attr = N)]` takes N in 1..=32, rejecting others at the value; `valid` ends up
/// in the kernel (`field`), which is `None` without the attribute.
fn assert_count_attribute(attr: &str, valid: u32, field: fn(&kosmos_ir::Kernel) -> Option<u32>) {
    for bad in ["0", "33"] {
        let src = format!("#[kernel({attr} = {bad})]\nfn k(a: &mut [u32]) {{}}");
        let (got, line, col) = error(&src);
        assert_eq!(got, format!("{attr} must be in 1..=32"));
        assert_eq!((line, col), (1, format!("#[kernel({attr} = ").len()));
    }
    let src = format!("#[kernel({attr} = {valid})] fn k(a: &mut [u32]) {{}}");
    assert_eq!(field(&lower_source(&src).unwrap()[0]), Some(valid));
    let kernels = lower_source("#[kernel] fn k(a: &mut [u32]) {}").unwrap();
    assert_eq!(field(&kernels[0]), None);
}

#[test]
fn max_subgroups_is_checked_at_the_attribute() {
    assert_count_attribute("max_subgroups", 32, |k| k.max_subgroups);
    let (got, ..) = error("#[kernel(max_lanes = 4)] fn k(a: &mut [u32]) {}");
    assert!(got.contains("`max_subgroups = N`"), "{got}");
}

/// One 64x128 tile of `A x B` (K = 128) by a group of four subgroups: both 64-deep stages
/// copied into swizzled shared tiles with `copy_async` (rows of A from `m` on predicated
/// off, so zeros) and in flight together, each waited for before its `mma_group`; stored
/// whole with `frag_store` and clipped with `frag_store_within`. Against an f64 reference.
#[test]
fn group_gemm_with_async_copies_runs() {
    let src = r#"
        #[kernel(max_workgroup_size = 128, max_subgroups = 4)]
        fn k(a: &[bf16], b: &[bf16], c: &mut [f32], edge: &mut [f32], m: u32, rows: u32, cols: u32) {
            let a_tile = shared_array::<bf16, 8192>();
            let b_tile = shared_array::<bf16, 16384>();
            let lane = workitem_id_x();
            for s in 0..2u32 {
                let k0 = s * 64;
                // A(i, k) at element 64 i + 8 ((k / 8) ^ (i % 8)) + k % 8 of a stage.
                for t in 0..4u32 {
                    let q = lane + t * 128;
                    let i = q / 8;
                    let kc = q % 8;
                    let at = s * 4096 + i * 64 + (kc ^ (i % 8)) * 8;
                    copy_async(&a_tile[at], &a[i * 128 + k0 + kc * 8], i < m);
                }
                // B(k, n) at element 4096 (n / 64) + 64 k + 8 (((n % 64) / 8) ^ (k % 8)) + n % 8.
                for t in 0..8u32 {
                    let q = lane + t * 128;
                    let kk = q / 16;
                    let nc = q % 16;
                    let at = s * 8192 + (nc / 8) * 4096 + kk * 64 + ((nc % 8) ^ (kk % 8)) * 8;
                    copy_async(&b_tile[at], &b[(k0 + kk) * 128 + nc * 8], true);
                }
                async_commit();
            }
            let mut acc = wide_zero();
            async_wait(1);
            barrier();
            acc = mma_group(&a_tile[0], &b_tile[0], acc);
            async_wait(0);
            barrier();
            acc = mma_group(&a_tile[4096], &b_tile[8192], acc);
            let slab = subgroup_id() * 16 * 128;
            frag_store(&c[slab], acc, 128);
            frag_store_within(&edge[slab], acc, 128, rows, cols);
        }
    "#;
    let seed: u64 = rand::rng().random();
    println!("seed {seed}");
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mm, n, kk) = (64usize, 128usize, 128usize);
    let (m, rows, cols) = (
        rng.random_range(1..mm as u32),
        rng.random_range(1..16u32),
        rng.random_range(1..n as u32),
    );
    let mut random = |len: usize| random_bf16(&mut rng, len);
    let (a, bm) = (random(mm * kk), random(kk * n));
    let (device, module, _) = load_on_cpu(src);
    let da = Buffer::from_slice(&device, &a).unwrap();
    let db = Buffer::from_slice(&device, &bm).unwrap();
    let dc = Buffer::from_slice(&device, &vec![f32::NAN; mm * n]).unwrap();
    let de = Buffer::from_slice(&device, &vec![f32::NAN; mm * n]).unwrap();
    let args = [
        KernelArg::from(&da),
        KernelArg::from(&db),
        KernelArg::from(&dc),
        KernelArg::from(&de),
        KernelArg::from(m),
        KernelArg::from(rows),
        KernelArg::from(cols),
    ];
    let stream = device.stream().unwrap();
    module
        .launch(&stream, "k", LaunchConfig::linear(1, 128), &args)
        .unwrap();
    let (c, edge) = (dc.download().unwrap(), de.download().unwrap());
    for i in 0..mm {
        for j in 0..n {
            // Rows from `m` on were copied as zeros.
            let products = (0..kk).map(|p| {
                let x = if i < m as usize {
                    a[i * kk + p].to_f64()
                } else {
                    0.0
                };
                x * bm[p * n + j].to_f64()
            });
            let (want, scale) = products.fold((0.0, 0.0), |(s, t), x| (s + x, t + x.abs()));
            let got = c[i * n + j] as f64;
            // f32 sums of exact products: 128 roundings of at most 2^-24 of the running sum.
            assert!(
                (got - want).abs() <= 1e-5 * scale,
                "c({i}, {j}) = {got}, want {want} (seed {seed})"
            );
            let inside = (i % 16) < rows as usize && j < cols as usize;
            let e = edge[i * n + j];
            if inside {
                assert_eq!(e, c[i * n + j], "edge({i}, {j}) (seed {seed})");
            } else {
                assert!(e.is_nan(), "edge({i}, {j}) = {e} was written (seed {seed})");
            }
        }
    }
}

/// A GEMM main loop that keeps one `mma_group_async` in flight: step `ks` multiplies stage
/// `ks % 2` while the copies of step `ks + 1` land in the other stage; `mma_wait(1, ..)`
/// after each product lets the previous one finish (it read the stage the next copies
/// overwrite, after the barrier), and `mma_wait(0, ..)` ends the chain. One 64x128 tile,
/// K = 64 x (2..=6 random) steps, against an f64 reference on random bf16 inputs.
#[test]
fn group_gemm_with_one_product_in_flight_runs() {
    let src = r#"
        #[kernel(max_workgroup_size = 128, max_subgroups = 4)]
        fn k(a: &[bf16], b: &[bf16], c: &mut [f32], kk: u32) {
            let a_tile = shared_array::<bf16, 8192>();
            let b_tile = shared_array::<bf16, 16384>();
            let lane = workitem_id_x();
            let steps = kk / 64;
            stage_copies(a, b, a_tile, b_tile, kk, lane, 0, 0);
            async_commit();
            let mut acc = wide_zero();
            for ks in 0..steps {
                let s = ks % 2;
                async_wait(0);
                barrier();
                acc = mma_group_async(&a_tile[s * 4096], &b_tile[s * 8192], acc);
                acc = mma_wait(1, acc);
                // Every subgroup has waited for step ks - 1, which read the other stage.
                barrier();
                if ks + 1 < steps {
                    stage_copies(a, b, a_tile, b_tile, kk, lane, 1 - s, (ks + 1) * 64);
                }
                async_commit();
            }
            acc = mma_wait(0, acc);
            frag_store(&c[subgroup_id() * 16 * 128], acc, 128);
        }

        /// The copies of one 64-deep step from `k0` into stage `s`, swizzled: A(i, k) at
        /// element 64 i + 8 ((k / 8) ^ (i % 8)) + k % 8 of a stage, B(k, n) at
        /// 4096 (n / 64) + 64 k + 8 (((n % 64) / 8) ^ (k % 8)) + n % 8.
        #[device]
        fn stage_copies(a: &[bf16], b: &[bf16], a_tile: &mut [bf16], b_tile: &mut [bf16], kk: u32, lane: u32, s: u32, k0: u32) {
            for t in 0..4u32 {
                let q = lane + t * 128;
                let i = q / 8;
                let kc = q % 8;
                copy_async(&a_tile[s * 4096 + i * 64 + (kc ^ (i % 8)) * 8], &a[i * kk + k0 + kc * 8], true);
            }
            for t in 0..8u32 {
                let q = lane + t * 128;
                let r = q / 16;
                let nc = q % 16;
                let at = s * 8192 + (nc / 8) * 4096 + r * 64 + ((nc % 8) ^ (r % 8)) * 8;
                copy_async(&b_tile[at], &b[(k0 + r) * 128 + nc * 8], true);
            }
        }
    "#;
    let seed: u64 = rand::rng().random();
    println!("seed {seed}");
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mm, n, kk) = (64usize, 128usize, 64 * rng.random_range(2..=6usize));
    let mut random = |len: usize| random_bf16(&mut rng, len);
    let (a, bm) = (random(mm * kk), random(kk * n));
    let (device, module, _) = load_on_cpu(src);
    let da = Buffer::from_slice(&device, &a).unwrap();
    let db = Buffer::from_slice(&device, &bm).unwrap();
    let dc = Buffer::from_slice(&device, &vec![f32::NAN; mm * n]).unwrap();
    let args = [
        KernelArg::from(&da),
        KernelArg::from(&db),
        KernelArg::from(&dc),
        KernelArg::from(kk as u32),
    ];
    let stream = device.stream().unwrap();
    module
        .launch(&stream, "k", LaunchConfig::linear(1, 128), &args)
        .unwrap();
    let c = dc.download().unwrap();
    for i in 0..mm {
        for j in 0..n {
            let products = (0..kk).map(|p| a[i * kk + p].to_f64() * bm[p * n + j].to_f64());
            let (want, scale) = products.fold((0.0, 0.0), |(s, t), x| (s + x, t + x.abs()));
            let got = c[i * n + j] as f64;
            // f32 sums of exact products: kk roundings of at most 2^-24 of the running sum.
            assert!(
                (got - want).abs() <= kk as f64 * 2f64.powi(-24) * scale,
                "c({i}, {j}) = {got}, want {want} (K = {kk}, seed {seed})"
            );
        }
    }
}

/// A warp-specialised handoff: group 0 produces rows of `x` into a ring of two slots in
/// shared memory guarded by `full` and `empty` barrier objects, group 1 consumes them (each
/// lane reads what a lane of the other group wrote), over many rounds, so that each group
/// waits on the other in turn. Group 0 then meets the ended group 1 at `barrier`, which
/// counts it as arrived. Three workgroups run at once, each over its own rows.
#[test]
fn groups_hand_off_through_a_ring_of_barrier_objects() {
    let src = r#"
        #[kernel(max_workgroup_size = 256)]
        fn k(x: &[u32], out: &mut [u32], done: &mut [u32], rounds: u32) {
            let ring = shared_array::<u32, 256>();
            let full = shared_array::<u64, 2>();
            let empty = shared_array::<u64, 2>();
            let t = workitem_id_x();
            let lane = t % 128;
            let base = workgroup_id_x() * rounds * 128;
            if t == 0 {
                for s in 0..2u32 {
                    mbar_init(&full[s], 128);
                    mbar_init(&empty[s], 128);
                }
            }
            barrier();
            if subgroup_id() / 4 == 0 {
                for r in 0..rounds {
                    let s = r % 2;
                    // A fresh barrier counts its previous round as complete.
                    mbar_wait(&empty[s], ((r / 2) % 2) ^ 1);
                    ring[s * 128 + lane] = x[base + r * 128 + lane] + r;
                    mbar_arrive(&full[s]);
                }
                barrier();
                done[workgroup_id_x() * 128 + lane] = rounds;
            } else {
                for r in 0..rounds {
                    let s = r % 2;
                    mbar_wait(&full[s], (r / 2) % 2);
                    out[base + r * 128 + lane] = ring[s * 128 + (lane + 1) % 128];
                    mbar_arrive(&empty[s]);
                }
            }
        }
    "#;
    let seed: u64 = rand::rng().random();
    let mut rng = SmallRng::seed_from_u64(seed);
    let (grid, rounds) = (3usize, 100usize);
    let x: Vec<u32> = (0..grid * rounds * 128).map(|_| rng.random()).collect();
    let (device, module, _) = load_on_cpu(src);
    let dx = Buffer::from_slice(&device, &x).unwrap();
    let out = Buffer::from_slice(&device, &vec![u32::MAX; x.len()]).unwrap();
    let done = Buffer::from_slice(&device, &vec![u32::MAX; grid * 128]).unwrap();
    let args = [
        KernelArg::from(&dx),
        KernelArg::from(&out),
        KernelArg::from(&done),
        KernelArg::from(rounds as u32),
    ];
    let stream = device.stream().unwrap();
    module
        .launch(&stream, "k", LaunchConfig::linear(grid as u32, 256), &args)
        .unwrap();
    let got = out.download().unwrap();
    for (i, got) in got.iter().enumerate() {
        let (row, lane) = (i / 128, i % 128);
        let r = (row % rounds) as u32;
        let want = x[row * 128 + (lane + 1) % 128].wrapping_add(r);
        assert_eq!(*got, want, "out[{i}] (round {r}, seed {seed})");
    }
    assert_eq!(done.download().unwrap(), vec![rounds as u32; grid * 128]);
}

/// `mma_group_async`, `mma_wait`, `regs_inc` and `regs_dec` lower to their ops, with the
/// wait's accumulator the product's and the counts as written.
#[test]
fn async_group_intrinsics_lower_to_their_ops() {
    let src = r#"
        #[kernel(max_workgroup_size = 256)]
        fn k(c: &mut [f32]) {
            let t = shared_array::<bf16, 12288>();
            if subgroup_id() / 4 == 0 {
                regs_dec(24);
                return;
            }
            regs_inc(240);
            let acc = mma_wait(0, mma_group_async(&t[0], &t[4096], wide_zero()));
            frag_store(&c[0], acc, 128);
        }
    "#;
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    let k = &kernels[0];
    assert!(k.uses_groups());
    let mut ops = Vec::new();
    k.walk(|_, inst| match &inst.op {
        Op::RegsSet { .. } | Op::MmaGroupAsync { .. } | Op::MmaWait { .. } => {
            ops.push((inst.op.clone(), inst.results.clone()))
        }
        _ => {}
    });
    let names: Vec<&str> = ops.iter().map(|(op, _)| op.name()).collect();
    assert_eq!(
        names,
        ["regs.set", "regs.set", "mma.group.async", "mma.wait"]
    );
    assert_eq!(
        (&ops[0].0, &ops[1].0),
        (
            &Op::RegsSet {
                dir: RegsDir::Dec,
                count: 24
            },
            &Op::RegsSet {
                dir: RegsDir::Inc,
                count: 240
            }
        )
    );
    let Op::MmaWait { pending, accs } = &ops[3].0 else {
        unreachable!()
    };
    // The product leaves the bounds checks of its tiles as the result of their `if`.
    let defs = definitions(k);
    assert_eq!((*pending, accs.len()), (0, 1));
    assert!(matches!(defs[&accs[0]], Op::If { .. }));
    assert_eq!(k.ty(ops[3].1[0]), Type::Frag(FragRole::WideAcc));
}

#[test]
fn async_group_misuse_is_an_error_at_its_tokens() {
    let cases = [
        (
            "fn k(c: &mut [f32]) { let acc = mma_wait(8, wide_zero()); }",
            "`mma_wait` leaves at most 7 groups in flight, found 8",
            "8,",
        ),
        (
            "fn k(c: &mut [f32]) { let acc = mma_wait(0, frag_zero()); }",
            "expected a wide accumulator",
            "frag_zero",
        ),
        (
            "fn k(c: &mut [f32]) { regs_inc(20); }",
            "`regs_inc` takes a multiple of 8 in 24..=256 registers, found 20",
            "20",
        ),
        (
            "fn k(c: &mut [f32], n: u32) { regs_dec(n); }",
            "register count",
            "n)",
        ),
    ];
    for (body, message, token) in cases {
        assert_error_at(body, message, body.find(token));
    }
}

#[test]
fn min_resident_is_checked_at_the_attribute() {
    assert_count_attribute("min_resident", 2, |k| k.min_resident);
}

#[test]
fn subgroup_shuffle_sums_a_subgroup_by_butterfly() {
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32], seed: u32) {
            let t = workitem_id_x();
            let mut sum = (t * 2654435761) ^ seed;
            let mut off = subgroup_size() / 2;
            while off > 0 {
                sum += subgroup_shuffle(sum, subgroup_lane() ^ off);
                off /= 2;
            }
            out[t] = sum;
        }
    "#;
    let seed: u32 = rand::random();
    let got = run_u32(src, 96, &[seed], 1, 96);
    let value = |t: u32| t.wrapping_mul(2654435761) ^ seed;
    for (t, got) in got.iter().enumerate() {
        let first = t as u32 / 32 * 32;
        let want = (first..first + 32).fold(0u32, |s, l| s.wrapping_add(value(l)));
        assert_eq!(*got, want, "lane {t}, seed {seed}");
    }
}

#[test]
fn subgroup_barrier_shows_each_lane_the_others_shared_stores() {
    // Each lane stores a value, then reads the one its mirror lane stored; the second
    // barrier keeps the next round's stores after every read of this round.
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32], seed: u32) {
            let slab = shared_array::<u32, 64>();
            let t = workitem_id_x();
            let mut acc = 0u32;
            for round in 0..3u32 {
                slab[t] = (t + 1) * (seed + round);
                subgroup_barrier();
                acc += slab[t ^ 31];
                subgroup_barrier();
            }
            out[t] = acc;
        }
    "#;
    let seed: u32 = rand::random::<u32>() >> 8;
    let got = run_u32(src, 64, &[seed], 1, 64);
    for (t, got) in got.iter().enumerate() {
        let mirror = (t as u32 ^ 31) + 1;
        let want = (0..3u32).fold(0u32, |s, r| {
            s.wrapping_add(mirror.wrapping_mul(seed.wrapping_add(r)))
        });
        assert_eq!(*got, want, "lane {t}, seed {seed}");
    }
}

#[test]
fn subgroup_shuffle_types_by_its_value_not_its_lane() {
    // An unsuffixed value is i32 (Rust's default), whatever the u32 lane beside it.
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32]) {
            let v = subgroup_shuffle(-5, subgroup_lane());
            out[workitem_id_x()] = (v + 7) as u32;
        }
    "#;
    assert!(run_u32(src, 32, &[], 1, 32).iter().all(|x| *x == 2));
}

#[test]
fn fast_approximations_compute_their_functions() {
    // Exact on the CPU device (the GPUs' errors are checked by kosmos-tests' `math`).
    // (function, its f64 reference, the inputs' magnitude bound)
    let exp2: fn(f64) -> f64 = f64::exp2;
    let cases = [
        ("exp2_approx", exp2, 120.0f32),
        ("tanh_approx", f64::tanh, 12.0),
        ("rcp_approx", f64::recip, 1e4),
    ];
    let mut rng = SmallRng::seed_from_u64(rand::random());
    for (name, reference, range) in cases {
        let src = format!(
            "#[kernel]
            fn k(x: &[f32], y: &mut [f32]) {{
                let t = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
                y[t] = {name}(x[t]);
            }}"
        );
        let x: Vec<f32> = (0..256).map(|_| rng.random_range(-range..range)).collect();
        for (x, y) in x.iter().zip(run_map(&src, &x, f32::NAN)) {
            let want = reference(*x as f64);
            assert!(
                ((y as f64 - want) / want).abs() < 1e-6,
                "{name}({x}): {y}, want {want}"
            );
        }
        let body = format!("fn k(y: &mut [f32], n: u32) {{ y[0] = {name}(n); }}");
        let at = body.find("(n)").map(|i| i + 1);
        assert_error_at(&body, "expected f32, found u32", at);
    }
}

/// Runs the one kernel of `src` on the CPU device over `out` (a `u32` slice of `len` NaN-like
/// poison words), one workgroup of `block` lanes; returns the launch's result and `out`.
fn launch_u32(src: &str, len: usize, block: u32) -> (kosmos_runtime::Result<()>, Vec<u32>) {
    let (device, module, name) = load_on_cpu(src);
    let out = Buffer::<u32>::from_slice(&device, &vec![0xdead_beef; len]).unwrap();
    let stream = device.stream().unwrap();
    let config = LaunchConfig::linear(1, block);
    let result = module.launch(&stream, &name, config, &[KernelArg::from(&out)]);
    (result, out.download().unwrap())
}

#[test]
fn out_of_bounds_accesses_are_errors_naming_the_access() {
    let mut rng = SmallRng::seed_from_u64(rand::random());
    let len = rng.random_range(8..64usize);
    // (body, the access the error names)
    let cases = [
        ("out[t] = t;", "out[t]"),
        ("out[0] = out[t + 1];", "out[t + 1]"),
        ("out[t] += 1;", "out[t]"),
        (
            "atomic_add(&out[t * 2], 1, Ordering::Relaxed, Scope::Agent);",
            "&out[t * 2]",
        ),
        (
            "let s = shared_array::<f32, 256>(); frag_store(&s[241], frag_zero(), 16);",
            "&s[241]",
        ),
    ];
    for (body, access) in cases {
        let src = format!(
            "#[kernel]\nfn k(out: &mut [u32]) {{\n    let t = workitem_id_x();\n    {body}\n}}"
        );
        let (result, _) = launch_u32(&src, len, 64);
        let e = result.expect_err(body);
        let kosmos_runtime::Error::IndexOutOfBounds {
            origin, len: got, ..
        } = &e
        else {
            panic!("{body}: {e}")
        };
        let column = body.find(access).expect("the access is in the body") + 5;
        assert_eq!(origin, &format!("4:{column}: {access}"), "{body}");
        let want = if access == "&s[241]" { 256 } else { len as u64 };
        assert_eq!(*got, want, "{body}");
    }
}

#[test]
fn in_bounds_lanes_run_and_out_of_bounds_stores_do_not_happen() {
    let mut rng = SmallRng::seed_from_u64(rand::random());
    let len = rng.random_range(1..32usize);
    let src = "#[kernel] fn k(out: &mut [u32]) { let t = workitem_id_x(); out[t] = t + 1; }";
    let (result, out) = launch_u32(src, len, 64);
    assert!(result.is_err());
    // The CPU device ends the launch at the first failing workgroup; this one has only one,
    // which stored nothing out of bounds (the buffer would be corrupt) and, for the lanes
    // before the failure, nothing or its value.
    for (t, v) in out.iter().enumerate() {
        assert!(*v == t as u32 + 1 || *v == 0xdead_beef, "out[{t}] = {v:#x}");
    }
    let src = "#[kernel] fn k(out: &mut [u32]) { let t = workitem_id_x(); out[t] = t + 1; }";
    let (result, out) = launch_u32(src, 64, 64);
    result.unwrap();
    assert!(out.iter().enumerate().all(|(t, v)| *v == t as u32 + 1));
}

#[test]
fn get_unchecked_is_the_unchecked_form_inside_unsafe() {
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32]) {
            let t = workitem_id_x();
            unsafe {
                *out.get_unchecked_mut(t) = *out.get_unchecked(t) + t;
                atomic_add(out.get_unchecked_mut(0), 1, Ordering::Relaxed, Scope::Agent);
            }
        }
    "#;
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    let mut checks = 0;
    kernels[0].walk(|_, inst| checks += matches!(inst.op, Op::BoundsFail { .. }) as usize);
    assert_eq!(checks, 0, "unchecked accesses have no bounds checks");
    let (result, out) = launch_u32(src, 64, 64);
    result.unwrap();
    for (t, v) in out.iter().enumerate() {
        let want = 0xdead_beef_u32.wrapping_add(t as u32) + if t == 0 { 64 } else { 0 };
        assert_eq!(*v, want, "out[{t}]");
    }
    for (body, message) in [
        (
            "fn k(out: &mut [u32]) { out[0] = *out.get_unchecked(1); }",
            "call to unsafe method `get_unchecked` requires an `unsafe` block",
        ),
        (
            "fn k(out: &mut [u32]) { unsafe { *out.get_unchecked(0) = 1; } }",
            "writing through `get_unchecked` needs `get_unchecked_mut`",
        ),
        (
            "fn k(out: &mut [u32]) { unsafe { out[0] = out.get_unchecked(1); } }",
            "`get_unchecked` gives a reference: read the element with `*out.get_unchecked(i)`",
        ),
    ] {
        let (got, _, _) = error(&format!("#[kernel]\n{body}"));
        assert!(got.contains(message), "{body}: {got}");
    }
}

#[test]
fn exp2_and_log2_of_f64_run_in_f64() {
    // Both spellings of each; the full accuracy test is kosmos-tests' `math`.
    let src = r#"
        #[kernel]
        fn k(x: &[f64], y: &mut [f64]) {
            let t = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
            let v = x[t];
            y[t] = if t % 2 == 0 { v.exp2() + log2(v) } else { exp2(v) + v.log2() };
        }
    "#;
    let mut rng = SmallRng::seed_from_u64(rand::random());
    let x: Vec<f64> = (0..256).map(|_| rng.random_range(0.25..60.0)).collect();
    for (x, y) in x.iter().zip(run_map(src, &x, f64::NAN)) {
        let want = x.exp2() + x.log2();
        // Relative to the terms: their sum cancels near x = 0.4.
        let scale = x.exp2().abs() + x.log2().abs();
        assert!(
            (y - want).abs() < 4.0 * f64::EPSILON * scale,
            "2^{x} + log2 {x}: {y}, want {want}"
        );
    }
}

#[test]
fn len_is_the_launched_buffer_length() {
    let len = SmallRng::seed_from_u64(rand::random()).random_range(1..200usize);
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32]) {
            let tile = shared_array::<u16, 12>();
            let t = workitem_id_x() as u64;
            if t < out.len() {
                out[t] = (out.len() + tile.len()) as u32;
            }
        }
    "#;
    let (result, out) = launch_u32(src, len, 256);
    result.unwrap();
    assert!(out.iter().all(|v| *v as usize == len + 12), "{out:?}");
}

#[test]
fn run_time_errors_name_the_rust_source() {
    let src = "#[kernel]\nfn k(out: &mut [u32], d: u32) {\n    let t = workitem_id_x();\n    out[t] = t / d;\n}\n";
    let kernels = crate::lower_file("src/div.rs", src).unwrap_or_else(|e| panic!("{e}"));
    // Through the text format, as kosmos-build embeds it.
    let text = kosmos_ir::print_module(&kosmos_ir::Module { kernels });
    assert!(text.contains("source \"src/div.rs\""), "{text}");
    let module = kosmos_ir::parse_module(&text).unwrap();
    let device = Device::cpu().unwrap();
    let module = device
        .load_module(&ModuleImage::new(kosmos_ir::verify_module(module).unwrap()))
        .unwrap();
    let out = Buffer::<u32>::from_slice(&device, &[0; 32]).unwrap();
    let stream = device.stream().unwrap();
    let args = [KernelArg::from(&out), KernelArg::from(0u32)];
    let e = module
        .launch(&stream, "k", LaunchConfig::linear(1, 32), &args)
        .expect_err("a division by zero");
    let message = e.to_string();
    assert!(message.contains("kernel k (src/div.rs)"), "{message}");
    assert!(message.contains(": 4:14: "), "{message}");
}

#[test]
fn associated_constants_clamp_and_method_types_follow_rust() {
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32]) {
            let t = workitem_id_x();
            let x = (t as f32 - 3.0).clamp(-1.0, 1.0);
            let big = f32::MAX.min(f32::INFINITY);
            out[0] = u32::MAX - 1;
            out[1] = (i32::MIN as u32) + u16::MAX as u32;
            out[2] = (f32::EPSILON == 1.0f32 / 8388608.0) as u32;
            out[3] = (big == 3.4028235e38f32 && f32::NEG_INFINITY < f32::MIN) as u32;
            out[4] = 2.0f32.powi(10) as u32 + 7u32.clamp(2, 5);
            out[5] = (f32::consts::PI.sin().abs() < 1e-7 && std::f64::consts::LN_2 < 0.7) as u32;
            if t < 8 {
                out[8 + t] = (x + 1.0) as u32;
            }
        }
    "#;
    let out = run_u32(src, 16, &[], 1, 8);
    assert_eq!(
        out[..6],
        [u32::MAX - 1, (i32::MIN as u32) + 65535, 1, 1, 1024 + 5, 1]
    );
    assert_eq!(out[8..], [0, 0, 0, 1, 2, 2, 2, 2]);
    // (body, message, where the error starts)
    let cases = [
        (
            "fn k(y: &mut [u32], n: u32) { y[0] = n.exp(); }",
            "`exp` cannot be applied to u32",
            "n.exp()",
        ),
        (
            "fn k(y: &mut [f32], n: i32) { let v = sin(n); }",
            "`sin` cannot be applied to i32",
            "sin(n)",
        ),
        (
            "fn k(y: &mut [f32], x: f32, n: u32) { y[0] = x.powi(n); }",
            "expected i32, found u32",
            "n)",
        ),
        (
            "fn k(y: &mut [u32], n: u32) { y[0] = n.powi(2); }",
            "`powi` takes a float base",
            "n.powi(2)",
        ),
        (
            "fn k(y: &mut [f32]) { y[0] = f32::HUGE; }",
            "no associated constant `f32::HUGE`",
            "f32::HUGE",
        ),
        (
            "fn k(y: &mut [u32]) { y[0] = u32::EPSILON; }",
            "no associated constant `u32::EPSILON`",
            "u32::EPSILON",
        ),
        (
            "fn k(y: &mut [u32]) { y[0] = f32::MAX; }",
            "expected u32, found f32",
            "f32::MAX",
        ),
    ];
    for (body, message, at) in cases {
        assert_error_at(body, message, body.find(at));
    }
}

mod lang;
mod tensor_copy;

/// `mma_group_async_trans` in each layout on tiles that tensor copies bring in from `A` or
/// `A^T` and `B` or `B^T` (ragged: the copies fill zeros past the matrices), stored as
/// `f32` and as `bf16`, against an f64 reference.
#[test]
fn transposed_tiles_from_tensor_copies_match_reference() {
    use kosmos_runtime::{Swizzle, TensorMap, TensorShape};
    let mut rng = SmallRng::seed_from_u64(13);
    for (ta, tb) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let src = format!(
            r#"
            #[kernel(max_workgroup_size = 128)]
            fn k(a_map: &TensorMap, b_map: &TensorMap, c: &mut [f32], h: &mut [bf16], m: u32, n: u32) {{
                // The a tile (8 KiB) at word 0, the b tile (16 KiB) at word 2048.
                let tiles = shared_array::<u32, 6144>();
                let bar = shared_array::<u64, 1>();
                if workitem_id_x() == 0 {{
                    mbar_init(&bar[0], 1);
                }}
                barrier();
                if subgroup_id() == 0 {{
                    if subgroup_lane() == 0 {{
                        mbar_arrive_expect(&bar[0], 24576);
                    }}
                    copy_tensor(&tiles[0], &a_map, 0, 0, &bar[0]);
                    copy_tensor(&tiles[2048], &b_map, 0, 0, &bar[0]);
                    if {tb} == 0 {{
                        copy_tensor(&tiles[4096], &b_map, 64, 0, &bar[0]);
                    }}
                }}
                mbar_wait(&bar[0], 0);
                let acc = mma_group_async_trans(&tiles[0], &tiles[2048], wide_zero(), {ta}, {tb});
                let acc = mma_wait(0, acc);
                let row0 = (subgroup_id() % 4) * 16;
                if row0 < m {{
                    frag_store_within(&c[row0 * n], acc, n, m - row0, n);
                    frag_store_within(&h[row0 * n], acc, n, m - row0, n);
                }}
            }}
            "#
        );
        let (device, module, name) = load_on_cpu(&src);
        for (m, n, k) in [(56, 104, 48), (64, 128, 64)] {
            let (a_h, b_h) = (random_bf16(&mut rng, m * k), random_bf16(&mut rng, k * n));
            // Stored as given (`A` m x k, `B` k x n) or transposed.
            let stored = |x: &[half::bf16], rows: usize, cols: usize, t: bool| -> Vec<half::bf16> {
                if !t {
                    return x.to_vec();
                }
                (0..rows * cols)
                    .map(|e| x[(e % rows) * cols + e / rows])
                    .collect()
            };
            let a = Buffer::from_slice(&device, &stored(&a_h, m, k, ta == 1)).unwrap();
            let b = Buffer::from_slice(&device, &stored(&b_h, k, n, tb == 1)).unwrap();
            let map = |buf, rows: usize, cols: usize, box_rows| {
                let shape = TensorShape {
                    rows: rows as u64,
                    cols: cols as u64,
                    row_stride: cols as u64,
                    box_rows,
                    box_cols: 64,
                };
                TensorMap::tiled(buf, shape, Swizzle::B128).unwrap()
            };
            let a_map = if ta == 1 {
                map(&a, k, m, 64)
            } else {
                map(&a, m, k, 64)
            };
            let b_map = if tb == 1 {
                map(&b, n, k, 128)
            } else {
                map(&b, k, n, 64)
            };
            let c = Buffer::<f32>::from_slice(&device, &vec![f32::NAN; m * n]).unwrap();
            let nan = half::bf16::NAN;
            let h = Buffer::<half::bf16>::from_slice(&device, &vec![nan; m * n]).unwrap();
            let args = [
                KernelArg::from(&a_map),
                KernelArg::from(&b_map),
                KernelArg::from(&c),
                KernelArg::from(&h),
                KernelArg::from(m as u32),
                KernelArg::from(n as u32),
            ];
            let stream = device.stream().unwrap();
            module
                .launch(&stream, &name, LaunchConfig::linear(1, 128), &args)
                .unwrap();
            let (c, h) = (c.download().unwrap(), h.download().unwrap());
            for i in 0..m {
                for j in 0..n {
                    let (mut want, mut scale) = (0f64, 0f64);
                    for kk in 0..k {
                        let p = a_h[i * k + kk].to_f64() * b_h[kk * n + j].to_f64();
                        want += p;
                        scale += p.abs();
                    }
                    let (got, half) = (f64::from(c[i * n + j]), h[i * n + j].to_f64());
                    let at = format!("layout ({ta}, {tb}) {m}x{n}x{k} at ({i}, {j})");
                    assert!(
                        (got - want).abs() <= 1e-6 * scale + 1e-30,
                        "{at}: {got} vs {want}"
                    );
                    // bf16 keeps 8 significant bits: within half an ulp of the f32 result.
                    let ulp = (got.abs().max(f64::MIN_POSITIVE)).log2().floor().exp2() / 128.0;
                    assert!(
                        (half - got).abs() <= ulp / 2.0,
                        "{at}: bf16 {half} vs {got}"
                    );
                }
            }
        }
    }
}

//! The language as a Rust programmer writes it: literals typed by their uses, device
//! functions, `continue` and module-level constants, run on the CPU device.

use super::{assert_error_at, error, launch_u32, load_on_cpu, run_u32};
use crate::lower_source;
use kosmos_runtime::{Buffer, KernelArg, LaunchConfig};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// Runs the one kernel of `src`, `fn k(x: &[f32], out: &mut [f32], n: u32)`, as one
/// workgroup of `block` lanes; `out` (`out_len` elements) starts poisoned with NaN.
fn run_f32(src: &str, x: &[f32], out_len: usize, n: u32, block: u32) -> Vec<f32> {
    let (device, module, _) = load_on_cpu(src);
    let xs = Buffer::<f32>::from_slice(&device, x).unwrap();
    let out = Buffer::<f32>::from_slice(&device, &vec![f32::NAN; out_len]).unwrap();
    let args = [
        KernelArg::from(&xs),
        KernelArg::from(&out),
        KernelArg::from(n),
    ];
    let stream = device.stream().unwrap();
    module
        .launch(&stream, "k", LaunchConfig::linear(1, block), &args)
        .unwrap();
    out.download().unwrap()
}

fn random_inputs(len: usize) -> Vec<f32> {
    let mut rng = SmallRng::seed_from_u64(rand::random());
    (0..len).map(|_| rng.random_range(-2.0..2.0f32)).collect()
}

/// `got` is `want` within a relative error of `tol` (of the largest magnitude of `want`).
fn assert_close(got: &[f32], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(1e-30f64, |m, w| m.max(w.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let e = (f64::from(*g) - w).abs() / scale;
        assert!(
            e <= tol,
            "element {i}: {g} against {w} (relative error {e:e})"
        );
    }
}

#[test]
fn unannotated_literals_take_the_type_their_uses_demand() {
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32], n: u32) {
            // `k` is added to a u32: the range is a u32 range.
            let mut strided = 0;
            for k in (0..32).step_by(8) {
                strided += k + n;
            }
            // `off < n`: u32, doubled past n.
            let mut off = 1;
            while off < n {
                off *= 2;
            }
            // Used only as an index: a usize (u64 in kernels).
            let i = 0;
            let wide: u64 = i;
            out[i] = strided;
            out[1] = off;
            out[2] = wide as u32 + 9;
            // Constrained by nothing: i32, as in Rust.
            let z = -7;
            let signed: i32 = z;
            out[3] = (signed + 10) as u32;
        }
    "#;
    let mut rng = SmallRng::seed_from_u64(rand::random());
    let n = rng.random_range(1..1000u32);
    let out = run_u32(src, 4, &[n], 1, 1);
    assert_eq!(out, vec![48 + 4 * n, n.next_power_of_two(), 9, 3]);
}

#[test]
fn a_float_accumulator_takes_the_type_of_what_it_sums() {
    // `sum` meets `x[i]`, an f32: it is an f32, not an f64.
    let src = r#"
        #[kernel]
        fn k(x: &[f32], out: &mut [f32], n: u32) {
            let mut sum = 0.0;
            let mut scaled = 0.0;
            for i in 0..n {
                sum += x[i];
                scaled = scaled + 0.5 * x[i];
            }
            out[0] = sum;
            out[1] = scaled;
        }
    "#;
    let x = random_inputs(100);
    let sum: f64 = x.iter().map(|v| f64::from(*v)).sum();
    let out = run_f32(src, &x, 2, x.len() as u32, 1);
    assert_close(&out, &[sum, sum / 2.0], 1e-5);
}

#[test]
fn a_signed_index_is_an_error_and_a_negative_cast_one_a_bounds_error() {
    assert_error_at(
        "fn k(a: &mut [u32], n: i32) { a[n - 1] = 0; }",
        "the index is an i32: indices are unsigned",
        Some(32),
    );
    // Used as an index, `d` is a usize, which cannot be negative (as rustc says).
    assert_error_at(
        "fn k(a: &mut [u32]) { let d = -1; a[d] = 0; }",
        "cannot negate a u64",
        Some(30),
    );
    // Cast to usize, a negative index is out of bounds, as in Rust.
    let src = "#[kernel] fn k(out: &mut [u32]) { let t = workitem_id_x() as i32 - 1; out[t as usize] = 1; }";
    let (result, out) = launch_u32(src, 8, 1);
    assert!(
        matches!(result, Err(kosmos_runtime::Error::IndexOutOfBounds { .. })),
        "{result:?}"
    );
    assert!(out.iter().all(|v| *v == 0xdead_beef));
}

const DEVICE_FNS: &str = r#"
    const SCALE: f32 = 0.5;

    #[device]
    fn square(x: f32) -> f32 {
        x * x
    }

    /// Nested: calls `square`.
    #[device]
    fn sum_of_squares(x: &[f32], n: u32) -> f32 {
        let mut s = 0.0;
        for i in 0..n {
            s += square(x[i]);
        }
        s
    }

    #[device]
    fn put(out: &mut [f32], i: u32, mut v: f32) {
        v *= SCALE;
        out[i] = v;
    }
"#;

#[test]
fn device_functions_take_slices_shared_arrays_and_scalars_and_return_values() {
    let src = format!(
        r#"{DEVICE_FNS}
        #[kernel]
        fn k(x: &[f32], out: &mut [f32], n: u32) {{
            let lane = workitem_id_x();
            let tile = shared_array::<f32, 64>();
            tile[lane] = x[lane] * 2.0;
            barrier();
            if lane == 0 {{
                put(out, 0, sum_of_squares(x, n));
                put(out, 1, sum_of_squares(&tile, n));
            }}
            put(out, lane + 2, square(x[lane]));
        }}
    "#
    );
    let x = random_inputs(64);
    let squares: Vec<f64> = x.iter().map(|v| f64::from(*v).powi(2)).collect();
    let sum: f64 = squares.iter().sum();
    let mut want = vec![sum / 2.0, 4.0 * sum / 2.0];
    want.extend(squares.iter().map(|s| s / 2.0));
    let out = run_f32(&src, &x, 66, 64, 64);
    assert_close(&out, &want, 1e-5);
}

#[test]
fn accesses_in_device_functions_are_checked_against_the_callers_slices() {
    let src = r#"
#[device]
fn put(out: &mut [u32], i: u32) {
    out[i] = i;
}

#[kernel]
fn k(out: &mut [u32]) {
    put(out, workitem_id_x());
}
"#;
    let (result, _) = launch_u32(src, 8, 16);
    let Err(kosmos_runtime::Error::IndexOutOfBounds { origin, len, .. }) = result else {
        panic!("{result:?}")
    };
    assert_eq!((origin.as_str(), len), ("4:5: out[i]", 8));
}

/// `&x[k..]` and `&mut out[t..]` as device-function slices, and a subslice of a subslice:
/// `out[t] = x[t] + 2 x[t + 1] + 3 x[t + 2]`, against an f64 reference.
#[test]
fn device_functions_take_the_rest_of_a_slice() {
    let src = r#"
#[device]
fn first(x: &[f32]) -> f32 {
    x[0]
}

#[device]
fn weighted(x: &[f32]) -> f32 {
    first(x) + 2.0 * first(&x[1..]) + 3.0 * first(&x[2u32..])
}

#[device]
fn put(out: &mut [f32], v: f32) {
    out[0] = v;
}

#[kernel]
fn k(x: &[f32], out: &mut [f32], n: u32) {
    let t = workitem_id_x();
    if t < n {
        put(&mut out[t..], weighted(&x[t as usize..]));
    }
}
"#;
    let mut rng = SmallRng::seed_from_u64(rand::random());
    let n = rng.random_range(1..64usize);
    let x: Vec<f32> = (0..n + 2).map(|_| rng.random_range(-1.0..1.0)).collect();
    let want: Vec<f64> = (0..n)
        .map(|t| x[t] as f64 + 2.0 * x[t + 1] as f64 + 3.0 * x[t + 2] as f64)
        .collect();
    let out = run_f32(src, &x, n, n as u32, 64);
    assert_close(&out, &want, 1e-6);
}

/// A subslice's start may equal the slice's length (an empty rest) but not pass it; past it,
/// the error names the subslice, and nothing is written.
#[test]
fn a_subslice_starts_within_its_slice() {
    let src = |start: u32| {
        format!(
            "#[device]\nfn put(out: &mut [u32], v: u32) {{\n    if v == 0 {{ out[0] = 7; }}\n}}\n#[kernel]\nfn k(out: &mut [u32]) {{\n    put(&mut out[{start}u32..], 1);\n}}"
        )
    };
    let (result, out) = launch_u32(&src(8), 8, 1);
    result.unwrap();
    assert!(out.iter().all(|v| *v == 0xdead_beef));
    let (result, out) = launch_u32(&src(9), 8, 1);
    let Err(kosmos_runtime::Error::IndexOutOfBounds { origin, len, .. }) = result else {
        panic!("{result:?}")
    };
    assert_eq!((origin.as_str(), len), ("7:9: &mut out[9u32..]", 8));
    assert!(out.iter().all(|v| *v == 0xdead_beef));
}

#[test]
fn device_functions_take_fragments() {
    let src = r#"
        #[device]
        fn store_acc(c: &mut [f32], acc: FragAcc, stride: u32) {
            frag_store(&c[0], acc, stride);
        }

        #[kernel]
        fn k(c: &mut [f32]) {
            let acc = frag_zero();
            store_acc(c, acc, 16);
        }
    "#;
    lower_source(src).unwrap_or_else(|e| panic!("{e}"));
}

/// A main loop in a device function that takes and returns the accumulator, called twice:
/// `out = 2 a b` for a 16 x 32 `a` and a 32 x 16 `b` of small integers (exact in bf16 and
/// f32), against an f64 reference.
#[test]
fn device_functions_return_fragments() {
    let src = r#"
        #[device]
        fn accumulate(a: &[bf16], b: &[bf16], k: u32, acc: FragAcc) -> FragAcc {
            let mut sum = acc;
            for k0 in (0..k).step_by(16) {
                sum = mma(frag_load_a(&a[k0], k), frag_load_b(&b[k0 * 16], 16), sum);
            }
            sum
        }

        #[kernel(max_workgroup_size = 32)]
        fn k(x: &[f32], out: &mut [f32], n: u32) {
            let a = shared_array::<bf16, 512>();
            let b = shared_array::<bf16, 512>();
            let lane = workitem_id_x();
            for i in (lane..512).step_by(32) {
                a[i] = x[i] as bf16;
                b[i] = x[512 + i] as bf16;
            }
            barrier();
            let once = accumulate(&a, &b, n, frag_zero());
            let twice = accumulate(&a, &b, n, once);
            frag_store(&out[0], twice, 16);
        }
    "#;
    let mut rng = SmallRng::seed_from_u64(rand::random());
    let x: Vec<f32> = (0..1024).map(|_| rng.random_range(-3..=3) as f32).collect();
    let got = run_f32(src, &x, 256, 32, 32);
    let want: Vec<f64> = (0..256)
        .map(|ij| {
            let (i, j) = (ij / 16, ij % 16);
            let dot: f64 = (0..32)
                .map(|p| x[i * 32 + p] as f64 * x[512 + p * 16 + j] as f64)
                .sum();
            2.0 * dot
        })
        .collect();
    assert_close(&got, &want, 0.0);
}

/// An unassigned `u32` parameter passed a constant is a constant in the body: here the
/// length of a shared array, different at each call.
#[test]
fn constant_arguments_stay_constants_in_device_functions() {
    let src = r#"
        #[device]
        fn staged_len(n: u32) -> u32 {
            let tile = shared_array::<u32, { n }>();
            tile.len() as u32
        }

        #[kernel]
        fn k(out: &mut [u32]) {
            let eight = staged_len(8);
            let wide = staged_len(3 * 8);
            out[workitem_id_x()] = eight * 100 + wide;
        }
    "#;
    assert_eq!(run_u32(src, 4, &[], 1, 4), [824; 4]);
    let e = error(
        "#[device] fn f(n: u32) -> u32 { let t = shared_array::<u32, { n }>(); t.len() as u32 }\n#[kernel] fn k(out: &mut [u32], m: u32) { out[0] = f(m); }",
    );
    assert!(e.0.contains("constant"), "{e:?}");
}

#[test]
fn device_function_misuse_is_an_error_at_the_call() {
    let cases = [
        (
            "#[device] fn f(x: u32) -> u32 { g(x) }\n#[device] fn g(x: u32) -> u32 { f(x) }\n#[kernel] fn k(out: &mut [u32]) { out[0] = f(1); }",
            "`f` calls itself (f -> g -> f): device functions are inlined, so they cannot recurse",
            (2, 32),
        ),
        (
            "#[device] fn f(x: u32) -> u32 { x }\n#[kernel] fn k(out: &mut [u32], y: f32) { out[0] = f(y); }",
            "expected u32, found f32",
            (2, 53),
        ),
        (
            "#[device] fn f(x: &[f32]) -> f32 { x[0] }\n#[kernel] fn k(out: &mut [u32]) { f(out); }",
            "expected `&[f32]`, found a slice of u32",
            (2, 36),
        ),
        (
            "#[device] fn f(x: &mut [u32]) { x[0] = 1; }\n#[kernel] fn k(a: &[u32]) { f(a); }",
            "`a` is a `&[u32]` and cannot be written",
            (2, 30),
        ),
        (
            "#[device] fn f(x: u32) -> u32 { return x; }\n#[kernel] fn k(out: &mut [u32]) { out[0] = f(1); }",
            "`return` in device function `f`",
            (1, 32),
        ),
        (
            "#[device] fn f(x: u32) -> u32 { x }\n#[kernel] fn k(out: &mut [u32]) { out[0] = f(1, 2); }",
            "`f` takes 1 argument(s), found 2",
            (2, 43),
        ),
        (
            "#[device] fn f(x: &[f32]) -> f32 { x[0] }\n#[kernel] fn k(a: &[f32]) { f(&a[1..3]); }",
            "pass a slice parameter or a shared array by name, or the rest of one, `&a[k..]`",
            (2, 30),
        ),
        (
            "#[device] fn f(x: &[f32]) -> f32 { x[0] }\n#[kernel] fn k(a: &[f32], i: i32) { f(&a[i..]); }",
            "the index is an i32",
            (2, 41),
        ),
        (
            "#[device] fn f(x: &mut [u32]) { x[0] = 1; }\n#[kernel] fn k(a: &[u32]) { f(&mut a[1..]); }",
            "`a` is a `&[u32]` and cannot be written",
            (2, 30),
        ),
        (
            "#[device] fn f(a: FragAcc) -> FragAcc { a }\n#[kernel] fn k(c: &mut [f32]) { f(frag_zero()); }",
            "`f` returns a fragment or vector: bind it with `let`",
            (2, 32),
        ),
        (
            "#[device] fn f(a: FragAcc) -> FragAcc { let b = a; }\n#[kernel] fn k(c: &mut [f32]) { let x = f(frag_zero()); }",
            "`f` returns an accumulator fragment",
            (1, 38),
        ),
    ];
    for (src, message, at) in cases {
        let (got, line, column) = error(src);
        assert!(got.contains(message), "{src}: {got}");
        assert_eq!((line, column), at, "{src}: {got}");
    }
}

#[test]
fn continue_skips_the_rest_of_each_kind_of_loop() {
    let src = r#"
        #[kernel]
        fn k(out: &mut [u32], n: u32) {
            let mut not_threes = 0u32;
            for i in 0..n {
                if i % 3 == 0 {
                    continue;
                }
                not_threes += i;
            }
            let mut j = 0u32;
            let mut odd = 0u32;
            while j < n {
                j += 1;
                if j % 2 == 0 {
                    continue;
                }
                odd += j;
            }
            let mut m = 0u32;
            let mut fours = 0u32;
            loop {
                m += 1;
                if m > n {
                    break;
                }
                if m % 4 != 0 {
                    continue;
                }
                fours += 1;
            }
            // The inner `continue` leaves the inner loop's iteration only.
            let mut off_diagonal = 0u32;
            let mut rows = 0u32;
            for r in 0..n {
                for c in 0..n {
                    if c == r {
                        continue;
                    }
                    off_diagonal += 1;
                }
                if r % 2 == 1 {
                    continue;
                }
                rows += 1;
            }
            out[0] = not_threes;
            out[1] = odd;
            out[2] = fours;
            out[3] = off_diagonal;
            out[4] = rows;
        }
    "#;
    let mut rng = SmallRng::seed_from_u64(rand::random());
    let n = rng.random_range(1..40u32);
    let out = run_u32(src, 5, &[n], 1, 1);
    let want = [
        (0..n).filter(|i| i % 3 != 0).sum::<u32>(),
        (1..=n).filter(|j| j % 2 == 1).sum(),
        (1..=n).filter(|m| m % 4 == 0).count() as u32,
        n * n - n,
        (0..n).filter(|r| r % 2 == 0).count() as u32,
    ];
    assert_eq!(out, want, "n = {n}");
}

#[test]
fn continue_misuse_is_an_error_at_its_tokens() {
    assert_error_at(
        "fn k(a: &mut [u32]) { continue; }",
        "`continue` outside of a loop",
        Some(22),
    );
    assert_error_at(
        "fn k(a: &mut [u32]) { for i in 0..4u32 { continue; a[i] = 0; } }",
        "unreachable code after `break`, `continue` or `return`",
        Some(51),
    );
}

#[test]
fn module_constants_are_usable_anywhere_a_constant_is() {
    let src = r#"
        const TILE: u32 = 16;
        const HALF: u32 = TILE / 2;
        const SCALE: f32 = 0.25;

        #[device]
        fn scaled(x: f32) -> f32 {
            x * SCALE
        }

        #[kernel]
        fn k(x: &[f32], out: &mut [f32], n: u32) {
            let tile = shared_array::<f32, TILE>();
            let more = shared_array::<f32, { HALF * 2 }>();
            let lane = workitem_id_x();
            tile[lane] = x[lane];
            more[lane] = x[lane + TILE];
            barrier();
            if lane < HALF {
                out[lane] = scaled(tile[lane] + more[lane + HALF]);
            }
        }
    "#;
    let x = random_inputs(32);
    let want: Vec<f64> = (0..8)
        .map(|i| (f64::from(x[i]) + f64::from(x[i + 24])) * 0.25)
        .collect();
    let out = run_f32(src, &x, 8, 0, 16);
    assert_close(&out, &want, 1e-6);
    assert_error_at(
        "fn k(a: &mut [u32]) { LIMIT = 2; }\nconst LIMIT: u32 = 1;",
        "cannot assign to constant `LIMIT`",
        Some(22),
    );
}

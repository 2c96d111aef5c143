//! The `#[kernel]` Rust subset, shared by the `#[kernel]` macro (checks and launchers) and by
//! `kosmos-build` (GPU binaries), in the pattern of cxx's syntax crate: one parser, one
//! lowering, so that what the macro accepts is exactly what the build compiles.
//!
//! A kernel is a `fn` whose parameters are slices (`&[T]` read, `&mut [T]` written: global
//! pointers, with no length — pass lengths as scalars) and scalars (`u8`..`u64`, `i8`..`i64`,
//! `f16`, `bf16`, `f32`, `f64`, `bool`). Const generics (`<const BM: u32>`) are compile-time
//! constants; each instance named in the attribute is its own IR kernel,
//! `name__bm64_bn128`:
//!
//! ```text
//! #[kernel(max_workgroup_size = 256, instances(BM = 64, BN = 128), instances(BM = 128, BN = 128))]
//! pub fn gemm<const BM: u32, const BN: u32>(a: &[bf16], c: &mut [f32], n: u32) { ... }
//! ```
//!
//! `max_subgroups = N` (1..=32) bounds the workgroup in subgroups as well: a target's bound
//! is the smaller of `max_workgroup_size` and `N` subgroups of its width
//! (`kosmos_ir::Kernel::workgroup_bound`). `scheduler_scratch = ring` (a kernel with a
//! team) gives the scheduler's broadcast words the last two words of the top-level
//! `let ring = shared_array::<T, N>()` instead of an allocation of their own
//! (`kosmos_sched::Sched::with_scratch`).
//!
//! The body is a statement-level Rust subset, lowered by [`KernelDef::lower`]:
//! `let`/`let mut` (with optional scalar type annotations), assignment and compound assignment,
//! arithmetic, bit operations, comparisons, `&&`/`||` (both sides are evaluated: they are
//! the bitwise `and`/`or` of two `bool`s, so keep side effects out of them), `as` casts,
//! `if`/`else` (also as expressions), `for i in a..b` and `for i in (a..b).step_by(s)`,
//! `while`, `loop` with `break` (and `break value`), `continue` (in all three), `return`,
//! `a[i]` loads and `a[i] = v` / `a[i] += v` stores. Mutable variables assigned in a branch
//! or loop become the results and carried values of the structured IR ops. `break` leaves
//! `while` and `loop` only (an IR `for` has no early exit); `continue` sets a flag of the
//! iteration that the rest of the loop body runs under.
//!
//! Device functions are ordinary functions marked `#[device]`, in the kernel's file, that
//! kernels and other device functions call:
//!
//! ```text
//! #[device]
//! fn block_sum(scratch: &mut [f32], lane: u32, partial: f32) -> f32 { ... }
//! ```
//!
//! Their parameters are slices (`&[T]`, `&mut [T]`: a slice parameter, a shared array or a
//! rank's copy of a symmetric buffer, passed by name, keeping its bounds checks, or the rest
//! of one from an index, `&a[k..]` / `&mut a[k..]`, `k` checked to be at most `a`'s length),
//! scalars (`mut` allowed), symmetric buffers (`&Sym<[T]>`), and fragments and vectors
//! (`FragA`, `FragB`, `FragAcc`, `WideAcc`, `Vec8<T>`, `Vec4<T>`); they return a
//! scalar or nothing, as the body's last expression (not `return`). Each call is inlined:
//! the body is lowered there with its parameters bound to the arguments, seeing the file's
//! device functions and constants but not the caller's variables; recursion is an error at
//! the call. Module-level `const` items of scalar types (`const TILE: u32 = 64;`) are usable
//! anywhere a constant is: in expressions, of their declared type, and, integer ones, as
//! shared array lengths and other constant arguments. Device functions and constants are
//! file-wide (inline modules included; [`items_in_file`]).
//!
//! Slice accesses are bounds-checked as in Rust: `a[i]`, `a[i] = v` and the element
//! references intrinsics take (`&a[i]`, checked over every element the access reaches: 8 for
//! the vector intrinsics, the whole tile for fragments, 16 bytes for `copy_async`) run only
//! inside the slice; an access outside it does not happen, and the launch fails with
//! `Error::IndexOutOfBounds` naming the access as `file:line:column: a[i]` (docs/ir.md
//! "Bounds checks"). Shared arrays are checked against their length, slice parameters against
//! the buffer they were launched with (`a.len()`, a `u64`, is that length), a rank's copy of
//! a symmetric buffer against the buffer's length; the counters of the team intrinsics are
//! not checked. Checks that a loop bound already
//! guarantees (`for i in 0..a.len()`) are removed by the code generator
//! (`tests/filetests/compile/bounds_in_loop.kir`). The unchecked form, for measured hot loops,
//! is Rust's:
//! `unsafe { *a.get_unchecked(i) }`, `unsafe { *a.get_unchecked_mut(i) = v }`, and
//! `a.get_unchecked(i)` where an intrinsic takes `&a[i]`.
//!
//! Literals take the type their context needs (`x + 1` with `x: u64` makes `1` a `u64`), and
//! an unannotated `let` or `for` variable initialised by literals alone takes the type its
//! later uses demand, as rustc decides it: `let mut sum = 0.0; ... sum += x[i];` with `x: &[f32]`
//! is an `f32`; `let mut off = 1; while off < n` with `n: u32` a `u32`; `for k in
//! (0..32).step_by(8)` with `k` added to a `u32` a `u32` range (a unification over those
//! variables before lowering, `lower/infer.rs`). One used only as an index is a `usize`;
//! one that nothing constrains is `i32` or `f64`, as in Rust.
//!
//! `usize` is `u64` on every target (and `isize` `i64`): the devices address 64 bits, like
//! the hosts, and `a.len()` is a `u64`, so lengths and indices compare without casts. It is
//! accepted wherever a type is written (annotations, casts, parameters: a launcher takes a
//! `usize` as written). Indices are unsigned integers of any width: a signed index (`a[i - 1]`
//! with `i: i32`) is a compile error at the index, as in Rust, rather than a silent wrap; cast
//! it, `a[(i - 1) as usize]`, and a negative value is then out of bounds (the bounds error).
//!
//! Intrinsics (see [`intrinsic_names`]): `workitem_id_x()`, `workgroup_id_x()`,
//! `workgroup_size_x()`, `num_workgroups_x()` (and `_y`, `_z`), `barrier()`,
//! `fence(Ordering::Release, Scope::Agent)`, `sleep(ns)`, `clock()`,
//! `let tile = shared_array::<f32, 256>();` (top level only; the length is a constant
//! expression of literals, const generics and integer `const` items),
//! `let halves = shared_view::<u16, 512>(tile);` (the first 512 `u16`s of `tile`'s bytes),
//! atomics on an element `&a[i]` with an ordering
//! and a scope — `atomic_add`, `atomic_min`, `atomic_max`, `atomic_xchg`, `atomic_and`,
//! `atomic_or`, `atomic_load`, `atomic_store`, `atomic_cas` — and math (docs/math.md):
//! `sqrt`, `rsqrt`, `exp`, `exp2`, `ln`, `log2`, `sin`, `cos`, `tanh`, `erf`, `abs`, `min`,
//! `max`, `clamp(x, lo, hi)`, `fma(a, b, c)`, `powi(x, n)`, also as methods with Rust's types
//! (`x.exp()`, `x.min(y)`, `x.clamp(lo, hi)`, `a.mul_add(b, c)`, `x.powi(3)`: the result has
//! the receiver's type, `powi`'s exponent is an `i32`; integers get `abs`, `min`, `max` and
//! `clamp` only). The transcendental functions are accurate to about an ulp on `f32`, `f16`
//! and `bf16` (computed in `f32`) and `f64`, the same bits on every device.
//! `exp2_approx(x)`, `rcp_approx(x)` and `tanh_approx(x)` (`f32`) are the GPU's fast `2^x`,
//! `1 / x` and `tanh x` (a few ulp; about 1 ulp; about 11 bits). The associated constants of the number types are constants anywhere: `f32::MAX`,
//! `f32::MIN`, `f32::EPSILON`, `f32::MIN_POSITIVE`, `f32::INFINITY`, `f32::NEG_INFINITY`,
//! `f32::NAN` (and `f64`'s, `f16`'s, `bf16`'s), `u32::MAX`, `i8::MIN`, ... (every integer
//! type), and `f32::consts::PI`, `std::f64::consts::LN_2`, ...
//!
//! Tiles (docs/ir.md "Tiles"): `subgroup_size()`, `subgroup_id()`, `subgroup_lane()`;
//! fragments `let acc = frag_zero();`, `let x = frag_load_a(&tile[i], stride);` (and
//! `frag_load_b`, from bf16 elements), `acc = mma(x, y, acc);`,
//! `frag_store(&c[i], acc, stride);` (f32 elements) and
//! `frag_store_within(&c[i], acc, stride, rows, cols);` (only the elements in the first
//! `rows` x `cols`: ragged edges), `frag_store_swizzled(&c[i], acc, box_rows);` (bf16, as
//! the 128-byte-swizzled boxes of 64 columns and `box_rows` rows a tensor map lays out:
//! what `copy_tensor_store` reads); vectors of 8 lanes of 8- or 16-bit elements
//! `let v = load_vec8(&a[i]);`, `store_vec8(&tile[i], v);`, `splat8(x)`, `vec8(a, .., h)`,
//! and of 4 lanes of up to 32 bits `load_vec4`, `store_vec4`, `vec4(a, b, c, d)`, each
//! access aligned to the vector's size; `extract(v, lane)` reads a lane (a constant). An
//! `if` whose branches end in tiles of one type makes a tile. Groups of four
//! subgroups share one product: `let mut acc = wide_zero();` (a 16x128 slab per subgroup,
//! stored by the same `frag_store`s) and `acc = mma_group(&a_tile[i], &b_tile[j], acc);`,
//! whose 64x64 and 64x128 bf16 tiles start at elements of `shared_array`s, swizzled and
//! 1024-byte aligned as `mma.group` reads them (a shared array of 1 KiB or more starts
//! 1024-byte aligned). Asynchronous copies fill shared memory:
//! `copy_async(&tile[i], &a[j], pred);` (16 bytes per lane from a global slice into a
//! shared array, both 16-byte aligned; zeros when `pred` is false), `async_commit();`
//! (closes the lane's group of copies) and `async_wait(N);` (until at most `N` groups are in
//! flight; `N` a constant), then `barrier()` before other lanes read the data. Fragments
//! and vectors are values: `let mut` variables of them are carried through branches and
//! loops like scalars (an accumulator through the K loop), but only these intrinsics take
//! them — no arithmetic, no indexing, no type annotations.
//!
//! Scheduling (docs/scheduling.md "In the DSL"): a kernel whose first parameter is
//! `team: &Team` runs on a `kosmos_runtime::World`; the frontend expands that parameter to
//! the six team parameters (`kosmos_sched::Team::params`, so the IR signature is what
//! `World::launch` passes) and a `kosmos_sched::Sched`, and the launcher becomes
//! `launch(&mut world, &modules, per_rank, block, args...)` (queued; `run` also waits). Such a kernel (and a device
//! function it calls) may take symmetric buffers `x: &Sym<[T]>` (the launcher takes a
//! `&SymmetricBuffer<T>` of the world; the kernel receives its peer-table index and its
//! length): `x.peer(rank)` is rank `rank`'s copy as a writable slice of the buffer's length,
//! bounds-checked like every slice (bind it with `let`, or index it: `x.peer(r)[i]`),
//! `x.local()` this rank's, `x.len()` the length. Its intrinsics: `team_rank()`,
//! `world_size()`, `team_workgroup()` (the workgroup's index in its rank), `start_barrier()`
//! and `team_barrier()` (the world's barrier, reusable anywhere in uniform control flow),
//! `team_last_out()` (`true` in the world's last workgroup to leave the launch, which may
//! then reset what the workgroups shared; no wait), `team_one_launch()` (whether the whole
//! world runs in this launch: else a rank's launch ends at a team barrier, as its host may
//! reuse its buffers once it has ended),
//! and on `u32` counters `&c[i]`: `signal(&c[i], n, Scope::System)` (after a barrier, one
//! release add), `wait(&c[i], expected, Scope::System, task)` (bounded: on timeout the
//! workgroup records rank, workgroup, `task` and the counter's index `i`, and returns) and
//! `let t = claim(&head[i], len);` (a workgroup-wide ticket, `>= len` once drained);
//! `report_overflow(capacity, needed)` (`u32`s) records that a buffer is too small for the
//! launch (naming the call's source line) and raises the world's abort flag, without
//! leaving the kernel: the kernel skips the work itself. The
//! role switch `dispatch(&comm_head[i], n_comm, &compute_head[j], n_compute, Scope::System,
//! |t| (&ready[k], expected), |t| { comm }, |t| { compute })` lowers to
//! `kosmos_sched::Sched::dispatch_loop`; its closures are syntax only, lowered inline with
//! the task bound to their parameter, and the roles may not assign outer variables,
//! `break` out of the loop, `return` or nest a `dispatch`. These act once per workgroup
//! and contain barriers: call them in uniform control flow.
//!
//! Every misuse is a [`syn::Error`] at the user's own tokens.

mod items;
mod lower;
mod sig;

pub use items::{
    DeviceFn, DeviceParam, DeviceParamTy, DeviceRet, Items, ModuleConst, is_device_attr,
};
pub use lower::intrinsic_names;
pub use sig::{Instance, KernelDef, Param, ParamKind};
use std::rc::Rc;

/// Whether `attr` is a `#[kernel]` attribute (`#[kernel]`, `#[kosmos::kernel]`, ...).
pub fn is_kernel_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "kernel")
}

/// Whether `file` holds `f` (the same signature and body): whether the items of `file` are
/// those a macro expanding `f` sees (code included from elsewhere, such as doc tests, is not).
pub fn file_holds(file: &syn::File, f: &syn::ItemFn) -> bool {
    fns_in_file(file)
        .iter()
        .any(|g| g.sig == f.sig && g.block == f.block)
}

/// The functions of a source file, inline modules included, in file order.
fn fns_in_file(file: &syn::File) -> Vec<&syn::ItemFn> {
    fn walk<'a>(items: &'a [syn::Item], out: &mut Vec<&'a syn::ItemFn>) {
        for item in items {
            match item {
                syn::Item::Fn(f) => out.push(f),
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        walk(items, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut out);
    out
}

/// Every `#[kernel]` function of a source file, inline modules included, in file order,
/// with the file's [`items_in_file`].
pub fn kernels_in_file(file: &syn::File) -> syn::Result<Vec<KernelDef>> {
    let items = Rc::new(items_in_file(file)?);
    let mut out = Vec::new();
    for f in fns_in_file(file) {
        if let Some(attr) = f.attrs.iter().find(|a| is_kernel_attr(a)) {
            let args = match &attr.meta {
                syn::Meta::Path(_) => proc_macro2::TokenStream::new(),
                syn::Meta::List(list) => list.tokens.clone(),
                syn::Meta::NameValue(nv) => {
                    return Err(syn::Error::new_spanned(
                        nv,
                        "write `#[kernel]` or `#[kernel(...)]`",
                    ));
                }
            };
            let mut def = KernelDef::parse(args, f)?;
            def.items = items.clone();
            out.push(def);
        }
    }
    Ok(out)
}

/// The `#[device]` functions and scalar `const` items of a source file (inline modules
/// included: their names are file-wide), which its kernels may use.
pub fn items_in_file(file: &syn::File) -> syn::Result<Items> {
    fn consts(items: &[syn::Item], out: &mut Vec<ModuleConst>) {
        for item in items {
            match item {
                syn::Item::Const(c) => out.extend(ModuleConst::of(c)),
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        consts(items, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut items = Items::none();
    consts(&file.items, &mut items.consts);
    for f in fns_in_file(file) {
        if f.attrs.iter().any(is_device_attr) {
            items.devices.push(DeviceFn::parse(f)?);
        }
    }
    Ok(items)
}

/// Every instance of every `#[kernel]` of `source` (Rust source text), lowered and verified.
pub fn lower_source(source: &str) -> syn::Result<Vec<kosmos_ir::Kernel>> {
    lower_file("", source)
}

/// What the build step makes of the file at `path`: the kernels that lower, and the errors of
/// the others (or of the file, when it does not parse). The `#[kernel]` macro reports those
/// errors to rustc at their tokens, so the build step leaves their kernels out and goes on.
pub fn lower_file_lenient(path: &str, source: &str) -> (Vec<kosmos_ir::Kernel>, Vec<syn::Error>) {
    let defs = syn::parse_file(source).and_then(|file| kernels_in_file(&file));
    let defs = match defs {
        Ok(defs) => defs,
        Err(e) => return (Vec::new(), vec![e]),
    };
    let (mut kernels, mut errors) = (Vec::new(), Vec::new());
    for mut def in defs {
        def.file = path.to_string();
        match def.lower_all() {
            Ok(k) => kernels.extend(k),
            Err(e) => errors.push(e),
        }
    }
    (kernels, errors)
}

/// [`lower_source`] of the file at `path`, which bounds errors name with the line and
/// column of the access.
pub fn lower_file(path: &str, source: &str) -> syn::Result<Vec<kosmos_ir::Kernel>> {
    let (kernels, errors) = lower_file_lenient(path, source);
    match errors.into_iter().next() {
        Some(first) => Err(first),
        None => Ok(kernels),
    }
}

#[cfg(test)]
mod tests;

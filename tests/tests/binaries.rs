//! Static checks of the embedded binaries of the reference kernels ([`REFERENCE`]), the math
//! accuracy kernels ([`MATH`]) and the kernels crate ([`kernels::MODULE`]): the PTX assembles with ptxas for sm_90a without
//! spills; each HSACO's notes list every kernel without scratch and it disassembles;
//! instructions the kernels rely on are pinned.
//!
//! A binary that the build left out (`KOSMOS_TARGETS`) fails these tests by name: CI must
//! check every target.

use kosmos_codegen::TargetKind;
use kosmos_codegen::check::{
    assemble_ptx, disassemble_hsaco, disassembly_of, hsaco_summary, ptx_entry,
};
use kosmos_runtime::EmbeddedModule;
use kosmos_tests::{MATH, REFERENCE};

/// Every embedded module these checks cover.
const MODULES: [&EmbeddedModule; 3] = [&REFERENCE, &MATH, kernels::MODULE];

fn missing(module: &EmbeddedModule, binary: &str, target: TargetKind) -> String {
    format!(
        "{} has no {binary}: the build left {target} out of KOSMOS_TARGETS, \
         and these checks cover every target",
        module.name
    )
}

/// The kernels of `module` that `target`'s binary holds: those whose shared memory fits it.
fn kernel_names(module: &EmbeddedModule, target: TargetKind) -> Vec<String> {
    let ir = module.ir().expect("the embedded IR verifies");
    ir.kernels()
        .iter()
        .filter(|k| target.fits(k))
        .map(|k| k.name.clone())
        .collect()
}

fn ptx(module: &'static EmbeddedModule) -> &'static str {
    let ptx = module
        .binary(TargetKind::Sm90a.name())
        .unwrap_or_else(|| panic!("{}", missing(module, "PTX", TargetKind::Sm90a)));
    std::str::from_utf8(ptx).expect("PTX is text")
}

fn hsacos(module: &'static EmbeddedModule) -> [(TargetKind, &'static [u8]); 2] {
    [TargetKind::Gfx942, TargetKind::Gfx950].map(|target| {
        (
            target,
            module.binary(target.name()).unwrap_or_else(|| {
                panic!(
                    "{}",
                    missing(module, &format!("HSACO for {target}"), target)
                )
            }),
        )
    })
}

/// The PTX of one reference kernel.
fn ptx_of(name: &str) -> &'static str {
    module_ptx_of(&REFERENCE, name)
}

fn module_ptx_of(module: &'static EmbeddedModule, name: &str) -> &'static str {
    ptx_entry(ptx(module), name).unwrap_or_else(|| panic!("no .entry {name} in the PTX"))
}

/// The disassembly of one reference kernel on each AMD target.
fn amd_disassembly_of(name: &str) -> Vec<(TargetKind, String)> {
    module_amd_disassembly_of(&REFERENCE, name)
}

fn module_amd_disassembly_of(
    module: &'static EmbeddedModule,
    name: &str,
) -> Vec<(TargetKind, String)> {
    hsacos(module)
        .into_iter()
        .map(|(target, bytes)| {
            let dis = disassemble_hsaco(bytes, target).unwrap_or_else(|e| panic!("{e}"));
            let function = disassembly_of(&dis, name)
                .unwrap_or_else(|| panic!("{target}: no <{name}> in the disassembly"));
            (target, function.to_string())
        })
        .collect()
}

fn assert_has(text: &str, needles: &[&str], what: &str) {
    for needle in needles {
        assert!(text.contains(needle), "{what}: missing `{needle}`:\n{text}");
    }
}

/// Kernels (by name prefix) that may spill on sm_90a, and the most bytes of spill stores
/// and loads (and of stack): the fused ops run two workgroups per processor (128 registers
/// a lane), where the tile mainloop with the scheduling state beside it spills, and
/// measured faster so than one workgroup per processor without spills (bench/RESULTS.md:
/// the twentieth and twenty-first batches for the tensor-parallel ops; the twenty-second
/// for `moe_forward`, whose router, layout and fold code lives beside the tiles: 6.3 ms
/// at two workgroups per processor against 8.7 ms at one, Qwen3 proxy).
/// The any-shape `gemm` (two workgroups per processor as well) spills 24 bytes in its
/// persistent instance, which keeps its tile loop going across claims; `gemm_group`'s
/// persistent instance a word (with the test of `tile_product` that lets a group of
/// padding rows skip its products). `ag_gemm`'s bf16
/// instances spill 64 bytes more for the quad exchange of their bf16 tile
/// stores. `tp_pipeline`'s consumers take 200 registers a lane from the producer group
/// (`regs_inc`, `regs_dec`: 104 there), so its 128 x 256 instances spill at most 40 bytes
/// beside the two accumulators of a consumer lane, its bf16 reductions with wide tiles about
/// 0.6 KB of stores and loads (the bf16 tile store of a one-rank result beside the wide
/// accumulators; the producer hands each tile's place to its consumers, who used to work it
/// out and spilled twice that); the
/// 128 x 128 instances none. `moe_backward` holds six tile products (router, expert input and weight gradients) beside
/// its scheduling state. `moe_pipeline` (168 registers at 384 lanes; its consumers take 200
/// from the producer group, as `tp_pipeline`'s) spills in the router, layout and fold code
/// beside its expert tiles' two accumulators, and in their epilogues, none in the consumers'
/// step loop (the router's token masks, the layout's scans and the picks' key slabs added about
/// 0.3 KB of it there, as to `moe_forward`'s; its tile epilogues staging their slabs in
/// shared memory, `h` formed from the staged `z`, took it from about 3.5 to 1.9 KB);
/// `moe_backward_pipeline` likewise, with six kinds
/// of tile epilogue beside the accumulators (its consumers' step loop reloads one word a step;
/// with the products' descriptors built from 32-bit words its tile loops hold fewer spill
/// instructions, 77 stores and 40 loads before, 53 and 36 after, and the whole 0.2 KB more).
/// `moe_backward__staged0` (gfx942's instance, which stores its bf16 tiles from the
/// accumulators: never chosen on CUDA, where the staged one fits) spills about 10 KB here
/// (0.4 KB more since a weight-gradient block counts its steps and columns along instead of
/// dividing by a step count that is no constant: with the bf16 tile store's lanes moving by
/// constants, the backward on an H100 went 2-3% faster).
/// `moe_forward` (the group mainloop: HIP's forward, on CUDA a baseline) 3.6 KB: its trace
/// records' test of the world's trace bit, a parameter where a control word was loaded,
/// moved ptxas's choices by 50 bytes.
const SM90A_SPILL_ALLOWED: [(&str, u64); 10] = [
    ("gemm__persistent1", 64),
    ("gemm_group__persistent1", 8),
    ("ag_gemm", 160),
    ("tp_pipeline", 768),
    ("gemm_rs", 128),
    ("moe_forward", 3712),
    ("moe_pipeline", 2048),
    ("moe_backward_pipeline", 6656),
    ("moe_backward__staged0", 10752),
    ("moe_backward", 4352),
];

#[test]
fn ptx_assembles_for_sm_90a_without_spills() {
    for module in MODULES {
        ptx_assembles_without_spills(module);
    }
}

fn ptx_assembles_without_spills(module: &'static EmbeddedModule) {
    let ptx = ptx(module);
    assert!(ptx.contains(".target sm_90a"), "{ptx}");
    let report = assemble_ptx(ptx).unwrap_or_else(|e| panic!("{e}"));
    for name in kernel_names(module, TargetKind::Sm90a) {
        let k = report
            .kernel(&name)
            .unwrap_or_else(|| panic!("ptxas did not report {name}:\n{}", report.output));
        let allowed = SM90A_SPILL_ALLOWED
            .iter()
            .find_map(|&(prefix, most)| name.starts_with(prefix).then_some(most))
            .unwrap_or(0);
        assert!(
            k.spill_bytes() <= allowed && k.stack_frame_bytes <= allowed,
            "{name} spills or has a stack (at most {allowed} bytes allowed):\n{}",
            report.output
        );
    }
    assert_eq!(
        report.kernels.len(),
        kernel_names(module, TargetKind::Sm90a).len(),
        "{}",
        report.output
    );
}

/// Kernels (by name prefix) that may use a little scratch on AMD targets, and the most
/// bytes each may use: the fused tensor-parallel ops keep the scheduling loop's state next
/// to the 8-wave tile mainloop of `gemm_group`, whose 256 registers (two waves per SIMD) it
/// already fills (on gfx942 `gemm_rs`'s f32 instances spill 148 bytes, none on gfx950;
/// `moe_forward` 864 bytes there, its router and layout code beside the tiles;
/// `moe_backward` 2.0-2.6 KB; of these about 0.3 and 0.6 KB came with their expert tasks'
/// order in rounds of four row tiles, chunked as `moe_pipeline`'s, which on an H100 made
/// the backward pass 6-8% faster: bench/RESULTS.md, fortieth batch).
/// Their own AMD tile configuration (fewer waves) is open work; until then this bounds the
/// spill.
const AMD_SCRATCH_ALLOWED: [(&str, u64); 4] = [
    ("ag_gemm", 128),
    ("gemm_rs", 160),
    ("moe_forward", 896),
    ("moe_backward", 2688),
];

#[test]
fn hsaco_notes_list_every_kernel_without_scratch() {
    for (module, (target, bytes)) in MODULES.into_iter().flat_map(|m| hsacos(m).map(|h| (m, h))) {
        let summary = hsaco_summary(bytes).unwrap_or_else(|e| panic!("{target}: {e}"));
        let notes = &summary.notes;
        assert!(
            summary.target.starts_with("amdgcn-amd-amdhsa--")
                && summary.target.contains(target.name()),
            "{target}: amdhsa.target is {}",
            summary.target
        );
        for name in kernel_names(module, target) {
            let allowed = AMD_SCRATCH_ALLOWED
                .iter()
                .find(|(prefix, _)| name.starts_with(prefix));
            match (summary.clean_kernel(&name), allowed) {
                (Ok(_), _) => {}
                (Err(_), Some((_, most))) => {
                    let k = summary.kernel(&name).expect("listed");
                    assert!(
                        k.private_segment_fixed_size <= *most,
                        "{target}: {name} uses {} bytes of scratch, more than {most}:\n{notes}",
                        k.private_segment_fixed_size
                    );
                }
                (Err(e), None) => panic!("{target}: {e}:\n{notes}"),
            }
        }
        assert_eq!(
            summary.kernels.len(),
            kernel_names(module, target).len(),
            "{notes}"
        );
    }
}

#[test]
fn hsaco_disassembles_with_every_kernel() {
    for (module, (target, bytes)) in MODULES.into_iter().flat_map(|m| hsacos(m).map(|h| (m, h))) {
        let dis = disassemble_hsaco(bytes, target).unwrap_or_else(|e| panic!("{e}"));
        for name in kernel_names(module, target) {
            let function = disassembly_of(&dis, &name)
                .unwrap_or_else(|| panic!("{target}: no <{name}> in the disassembly:\n{dis}"));
            assert!(function.contains("s_endpgm"), "{target}: {function}");
        }
    }
}

/// Release store and acquire loads of the flag at agent scope: on gfx942/gfx950 the L2
/// write-back before the store and the cache invalidation after each load.
#[test]
fn handshake_orders_its_flag_accesses() {
    assert_has(
        ptx_of("handshake"),
        &["ld.acquire.gpu", "st.release.gpu", "bar.sync"],
        "sm_90a handshake",
    );
    for (target, dis) in amd_disassembly_of("handshake") {
        assert_has(
            &dis,
            &["buffer_inv sc1", "buffer_wbl2 sc1", "s_barrier"],
            &format!("{target} handshake"),
        );
    }
}

/// Tiles staged through shared memory between barriers.
#[test]
fn matmul_stages_tiles_in_shared_memory() {
    assert_has(
        ptx_of("matmul_bf16"),
        &["bar.sync", "st.shared", "ld.shared"],
        "sm_90a matmul_bf16",
    );
    for (target, dis) in amd_disassembly_of("matmul_bf16") {
        assert_has(
            &dis,
            &["s_barrier", "ds_write", "ds_read"],
            &format!("{target} matmul_bf16"),
        );
    }
    for (target, bytes) in hsacos(&REFERENCE) {
        let summary = hsaco_summary(bytes).unwrap_or_else(|e| panic!("{e}"));
        let k = summary
            .kernel("matmul_bf16")
            .expect("matmul_bf16 in the notes");
        assert!(
            k.group_segment_fixed_size > 0,
            "{target}: no LDS:\n{}",
            summary.notes
        );
    }
}

/// One relaxed atomic add per element, in global memory.
#[test]
fn histogram_uses_atomic_adds() {
    assert_has(
        ptx_of("histogram"),
        &["atom.relaxed.gpu.global.add.u32"],
        "sm_90a histogram",
    );
    for (target, dis) in amd_disassembly_of("histogram") {
        assert_has(&dis, &["global_atomic_add"], &format!("{target} histogram"));
    }
}

/// The kernels crate's any-shape gemm, both instances: group-wide matrix instructions on
/// elements staged one by one (2-byte global loads and shared stores), with the proxy fence
/// before the products on sm_90a.
#[test]
fn gemm_uses_matrix_instructions() {
    for name in kernels::ops::gemm::INSTANCES {
        assert_has(
            module_ptx_of(kernels::MODULE, name),
            &[
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
                "ld.global.b16",
                "st.shared.b16",
                "fence.proxy.async.shared::cta",
                "bar.sync",
            ],
            &format!("sm_90a {name}"),
        );
        for (target, dis) in module_amd_disassembly_of(kernels::MODULE, name) {
            assert_has(
                &dis,
                &[group_mfma(target), "ds_write_b16", "s_barrier"],
                &format!("{target} {name}"),
            );
        }
    }
}

/// The kernels crate's group gemm, both instances: `wgmma` fed by `cp.async` on sm_90a (with
/// the proxy fence between them), MFMAs fed by 16-byte loads on AMD.
#[test]
fn gemm_group_uses_group_matrix_instructions() {
    for name in kernels::ops::gemm_group::INSTANCES {
        assert_has(
            module_ptx_of(kernels::MODULE, name),
            &[
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
                "cp.async.cg.shared.global",
                "cp.async.wait_group",
                "fence.proxy.async.shared::cta",
                ".minnctapersm 2",
            ],
            &format!("sm_90a {name}"),
        );
        for (target, dis) in module_amd_disassembly_of(kernels::MODULE, name) {
            assert_has(
                &dis,
                &[group_mfma(target), "global_load_dwordx4", "s_barrier"],
                &format!("{target} {name}"),
            );
        }
    }
}

/// The kernels crate's pipelined gemm (192 KiB of shared memory) is in the PTX; the AMD
/// binaries (64 KiB of LDS on gfx942, 160 KiB on gfx950) leave it out and hold the rest.
#[test]
fn kernels_beyond_a_targets_shared_memory_are_left_out_of_its_binary() {
    let pipeline = |k: &str| k.starts_with("gemm_pipeline");
    assert!(ptx(kernels::MODULE).contains(".entry gemm_pipeline__wide1_ta0_tb0_bf160("));
    for (target, bytes) in hsacos(kernels::MODULE) {
        let summary = hsaco_summary(bytes).unwrap_or_else(|e| panic!("{target}: {e}"));
        let held: Vec<&str> = summary.kernels.iter().map(|k| k.name.as_str()).collect();
        let fits: Vec<String> = kernel_names(kernels::MODULE, target);
        assert_eq!(held, fits, "{target}");
        assert!(!held.iter().any(|k| pipeline(k)), "{target}: {held:?}");
    }
}

/// The group-mainloop kernels of the fused tensor-parallel ops and the MoE layer (their HIP
/// path) fill exactly gfx942's 64 KiB of LDS with their two-step ring, so they lend the
/// ring's last words to the scheduler (`scheduler_scratch`) instead of taking another
/// kilobyte: every AMD binary holds them. The MoE backward pass's instance with a bf16
/// staging tile beside the ring (34 KiB more) fits gfx950 only; gfx942 has the one that
/// stores from the accumulators.
#[test]
fn the_fused_group_kernels_fit_every_amd_target() {
    use kernels::ops::{ag_gemm, gemm_rs};
    let fused = ag_gemm::INSTANCES
        .iter()
        .chain(gemm_rs::INSTANCES)
        .chain(&["moe_forward", "moe_backward__staged0"]);
    for (target, bytes) in hsacos(kernels::MODULE) {
        let summary = hsaco_summary(bytes).unwrap_or_else(|e| panic!("{target}: {e}"));
        for name in fused.clone() {
            let k = summary
                .kernel(name)
                .unwrap_or_else(|| panic!("{target}: no {name}:\n{}", summary.notes));
            assert!(
                k.group_segment_fixed_size <= 64 << 10,
                "{target} {name}: {k:?}"
            );
        }
        let staged = summary.kernel("moe_backward__staged1").is_some();
        assert_eq!(staged, target == TargetKind::Gfx950, "{target}");
    }
}

/// The MFMA of `mma.group` on an AMD target: 32 deep where it has one (gfx950), else 16.
fn group_mfma(target: TargetKind) -> &'static str {
    match target {
        TargetKind::Gfx950 => "v_mfma_f32_16x16x32_bf16",
        _ => "v_mfma_f32_16x16x16_bf16",
    }
}

/// The group gemm's budget on AMD: no scratch, at most the 64 KiB of LDS both targets give a
/// workgroup, vector registers (VGPRs and AGPRs, one file) for at least two waves per SIMD
/// (one workgroup of 8 waves on the 4 SIMDs of a compute unit), and one kind of MFMA.
#[test]
fn gemm_group_fits_two_waves_per_simd_on_amd() {
    for (target, bytes) in hsacos(kernels::MODULE) {
        let summary = hsaco_summary(bytes).unwrap_or_else(|e| panic!("{target}: {e}"));
        for name in kernels::ops::gemm_group::INSTANCES {
            let k = summary
                .clean_kernel(name)
                .unwrap_or_else(|e| panic!("{target}: {e}:\n{}", summary.notes));
            let what = format!(
                "{target} {name}: {} VGPRs of which {} AGPRs, {} bytes of LDS",
                k.vgpr_count, k.agpr_count, k.group_segment_fixed_size
            );
            assert!(k.group_segment_fixed_size <= 64 << 10, "{what}");
            assert!(k.waves_per_simd_by_vgprs() >= 2, "{what}");
        }
    }
    for name in kernels::ops::gemm_group::INSTANCES {
        for (target, dis) in module_amd_disassembly_of(kernels::MODULE, name) {
            let mut mfmas: Vec<&str> = dis
                .lines()
                .filter_map(|line| line.split_whitespace().next())
                .filter(|op| op.starts_with("v_mfma"))
                .collect();
            mfmas.sort_unstable();
            mfmas.dedup();
            assert_eq!(mfmas, [group_mfma(target)], "{target} {name}");
        }
    }
}

/// One instruction of a function's disassembly: its byte offset in the function, its text
/// (`s_waitcnt vmcnt(0)`) and, for a branch, the offset it jumps to.
struct Instruction<'a> {
    offset: u64,
    text: &'a str,
    target: Option<u64>,
}

impl Instruction<'_> {
    fn is(&self, mnemonic_prefix: &str) -> bool {
        self.text.starts_with(mnemonic_prefix)
    }

    /// A wait for global (vector memory) loads.
    fn waits_for_loads(&self) -> bool {
        self.is("s_waitcnt") && self.text.contains("vmcnt")
    }
}

/// The instructions of `function` (a [`disassembly_of`] slice), from lines such as
/// `s_cbranch_scc0 64872   // 000000008774: BF84FD68 <name+0xb18>`.
fn instructions<'a>(function: &'a str, name: &str) -> Vec<Instruction<'a>> {
    let hex = |s: &str| u64::from_str_radix(s, 16).expect("a hexadecimal address");
    let mut start = None;
    function
        .lines()
        .filter_map(|line| {
            let (text, comment) = line.split_once("//")?;
            let address = hex(comment.trim().split(':').next()?);
            let start = *start.get_or_insert(address);
            let target = comment
                .split_once(&format!("<{name}+0x"))
                .map(|(_, rest)| hex(rest.trim().trim_end_matches('>')));
            Some(Instruction {
                offset: address - start,
                text: text.trim(),
                target,
            })
        })
        .collect()
}

/// The main loop of `name`'s disassembly as laid out, from the target of its back edge to
/// the back edge: the innermost loop that holds both global loads and MFMAs.
fn main_loop<'a>(function: &'a str, name: &str) -> Option<Vec<Instruction<'a>>> {
    let mut all = instructions(function, name);
    let holds = |body: &[Instruction], prefix: &str| body.iter().any(|i| i.is(prefix));
    let (head, back_edge) = all
        .iter()
        .enumerate()
        .filter_map(|(at, branch)| {
            let target = branch.target.filter(|t| *t < branch.offset)?;
            let head = all.iter().position(|i| i.offset == target)?;
            let body = &all[head..=at];
            (holds(body, "global_load") && holds(body, "v_mfma")).then_some((head, at))
        })
        .min_by_key(|(head, back_edge)| back_edge - head)?;
    all.truncate(back_edge + 1);
    Some(all.split_off(head))
}

/// Double-buffered LDS with the loads in flight on AMD: in the group gemm's main loop (read
/// in layout order, around the back edge), every global load is followed by an MFMA before
/// any wait for global loads, so the loads of step `s` land while the products of step
/// `s - 1` run (`copy.async` staged in registers until `async.wait`).
#[test]
fn gemm_group_keeps_its_loads_in_flight_across_the_mfmas_on_amd() {
    for name in kernels::ops::gemm_group::INSTANCES {
        for (target, dis) in module_amd_disassembly_of(kernels::MODULE, name) {
            let body = main_loop(&dis, name)
                .unwrap_or_else(|| panic!("{target} {name}: no loop of loads and MFMAs:\n{dis}"));
            let around: Vec<&Instruction> = body.iter().chain(&body).collect();
            for (at, load) in body.iter().enumerate().filter(|(_, i)| i.is("global_load")) {
                let next = around[at + 1..]
                    .iter()
                    .find(|i| i.is("v_mfma") || i.waits_for_loads())
                    .expect("the loop holds an MFMA");
                assert!(
                    next.is("v_mfma"),
                    "{target} {name}: `{}` at {:#x} waits for `{}` at {:#x} before any MFMA",
                    next.text,
                    next.offset,
                    load.text,
                    load.offset
                );
            }
        }
    }
}

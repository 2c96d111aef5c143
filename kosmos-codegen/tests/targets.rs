//! Every op on every target: checks on the emitted LLVM IR, assembly, PTX (assembled by
//! ptxas) and HSACO metadata.

mod common;

use common::*;
use kosmos_codegen::check::{CheckError, assemble_ptx, disassemble_hsaco, hsaco_summary};
use kosmos_codegen::{Options, TargetKind, compile, emit_asm, emit_llvm_ir};
use kosmos_ir::{Ordering, Scope};
use kosmos_testkernels::vector_add;

const AMD: [TargetKind; 2] = [TargetKind::Gfx942, TargetKind::Gfx950];

fn asm(kernel: kosmos_ir::Kernel, target: TargetKind) -> String {
    emit_asm(&module(kernel), target).unwrap_or_else(|e| panic!("{target}: {e}"))
}

/// The kernel's PTX, after ptxas has assembled it without spilling.
fn ptx(kernel: kosmos_ir::Kernel) -> String {
    let name = kernel.name.clone();
    let text = asm(kernel, TargetKind::Sm90a);
    let report = assemble_ptx(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    let k = report
        .kernel(&name)
        .unwrap_or_else(|| panic!("ptxas did not report {name}:\n{}", report.output));
    eprintln!("{name}: {} registers", k.registers);
    assert_eq!(k.spill_bytes(), 0, "{name} spills:\n{}", report.output);
    text
}

fn all_kernels() -> Vec<kosmos_ir::Kernel> {
    vec![
        vector_add(),
        all_rmw(),
        shared_reverse(),
        vectors(),
        casts(),
        arithmetic(),
        control_flow(),
    ]
}

#[test]
fn every_kernel_compiles_and_assembles_on_sm_90a() {
    for k in all_kernels() {
        let text = ptx(k);
        assert!(text.contains(".target sm_90a"), "{text}");
        assert!(text.contains(".entry"), "kernels must be .entry, not .func");
        assert!(
            !text.contains(".local"),
            "no local memory (spills) expected"
        );
    }
}

#[test]
fn every_kernel_links_to_hsaco_on_amd() {
    for target in AMD {
        for k in all_kernels() {
            let name = k.name.clone();
            let art = compile(&module(k), target, &Options::default()).unwrap();
            let summary = hsaco_summary(&art.bytes).unwrap();
            let notes = &summary.notes;
            let k = summary
                .kernel(&name)
                .unwrap_or_else(|| panic!("{name} not in the notes:\n{notes}"));
            assert_eq!(k.symbol, format!("{name}.kd"), "{notes}");
            assert_eq!(
                k.private_segment_fixed_size, 0,
                "{name}: scratch used:\n{notes}"
            );
            assert_eq!(
                summary.target,
                format!("amdgcn-amd-amdhsa--{target}"),
                "{notes}"
            );
            let dis = disassemble_hsaco(&art.bytes, target).unwrap();
            assert!(dis.contains(&format!("<{name}>:")), "{dis}");
            assert!(dis.contains("s_endpgm"), "{dis}");
        }
    }
}

#[test]
fn vector_add_ids_loads_and_launch_bounds() {
    let p = ptx(vector_add());
    for s in [
        "%tid.x",
        "%ctaid.x",
        "%ntid.x",
        "ld.global.b32",
        "st.global.b32",
        ".maxntid 256",
    ] {
        assert!(p.contains(s), "missing {s}:\n{p}");
    }
    for target in AMD {
        let a = asm(vector_add(), target);
        // The workgroup size comes from the dispatch packet (s_load), the lane from v0.
        assert!(a.contains("s_load_dword"), "{a}");
        assert!(a.contains("v0"), "{a}");
        assert!(a.contains("global_load_dword"), "{a}");
        assert!(a.contains(".amdhsa_kernel vector_add"), "{a}");
        let ll = emit_llvm_ir(&module(vector_add()), target).unwrap();
        assert!(
            ll.contains("amdgpu_kernel void @vector_add(ptr addrspace(1)"),
            "{ll}"
        );
        assert!(
            ll.contains("\"amdgpu-flat-work-group-size\"=\"1,256\""),
            "{ll}"
        );
        assert!(ll.contains("amdhsa_code_object_version\", i32 500"), "{ll}");
    }
}

#[test]
fn grid_size_reads_packet_on_amd_and_nctaid_on_nvptx() {
    let p = ptx(control_flow());
    for s in ["%tid.y", "%ctaid.z", "%ntid.y", "%nctaid.x", "%nctaid.z"] {
        assert!(p.contains(s), "missing {s}");
    }
    let ll = emit_llvm_ir(&module(control_flow()), TargetKind::Gfx942).unwrap();
    assert!(ll.contains("llvm.amdgcn.dispatch.ptr"), "{ll}");
    assert!(ll.contains("llvm.amdgcn.workitem.id.z"), "{ll}");
    assert!(ll.contains("llvm.amdgcn.workgroup.id.y"), "{ll}");
}

#[test]
fn agent_release_and_acquire_on_gfx942() {
    let store = asm(
        one_atomic("store", Ordering::Release, Scope::Agent),
        TargetKind::Gfx942,
    );
    assert!(store.contains("buffer_wbl2 sc1"), "{store}");
    let add = asm(
        one_atomic("add", Ordering::Release, Scope::Agent),
        TargetKind::Gfx942,
    );
    assert!(add.contains("buffer_wbl2 sc1"), "{add}");
    assert!(add.contains("global_atomic_add"), "{add}");
    let load = asm(
        one_atomic("load", Ordering::Acquire, Scope::Agent),
        TargetKind::Gfx942,
    );
    assert!(load.contains("buffer_inv sc1"), "{load}");
    let sys = asm(
        one_atomic("store", Ordering::Release, Scope::System),
        TargetKind::Gfx942,
    );
    assert!(sys.contains("buffer_wbl2 sc0 sc1"), "{sys}");
    let ll = emit_llvm_ir(
        &module(one_atomic("cas", Ordering::AcqRel, Scope::Workgroup)),
        TargetKind::Gfx950,
    )
    .unwrap();
    assert!(
        ll.contains("cmpxchg ptr addrspace(1)")
            && ll.contains("syncscope(\"workgroup\") acq_rel acquire"),
        "{ll}"
    );
}

#[test]
fn scoped_atomics_on_sm_90a() {
    let add = ptx(one_atomic("add", Ordering::Release, Scope::System));
    assert!(add.contains("atom.release.sys.global.add.u32"), "{add}");
    let add = ptx(one_atomic("add", Ordering::Relaxed, Scope::Workgroup));
    assert!(add.contains("atom.relaxed.cta.global.add.u32"), "{add}");
    let add = ptx(one_atomic("add", Ordering::SeqCst, Scope::Agent));
    assert!(
        add.contains("fence.sc.gpu;") && add.contains("atom.acq_rel.gpu.global.add.u32"),
        "{add}"
    );
    let load = ptx(one_atomic("load", Ordering::Acquire, Scope::System));
    assert!(load.contains("ld.acquire.sys"), "{load}");
    let store = ptx(one_atomic("store", Ordering::Release, Scope::Agent));
    assert!(store.contains("st.release.gpu"), "{store}");
    let cas = ptx(one_atomic("cas", Ordering::AcqRel, Scope::Agent));
    assert!(
        cas.contains("atom.acq_rel.gpu.global.cas.b32") || cas.contains("atom.acq_rel.gpu.cas.b32"),
        "{cas}"
    );
    let fence = ptx(one_atomic("fence", Ordering::AcqRel, Scope::System));
    assert!(fence.contains("fence.acq_rel.sys"), "{fence}");
    let ll = emit_llvm_ir(
        &module(one_atomic("load", Ordering::Acquire, Scope::Agent)),
        TargetKind::Sm90a,
    )
    .unwrap();
    assert!(
        ll.contains("syncscope(\"device\")") && !ll.contains("agent"),
        "{ll}"
    );
}

#[test]
fn every_rmw_op_on_every_target() {
    let p = ptx(all_rmw());
    for s in [
        "atom.acq_rel.gpu.global.add.u32",
        "atom.acq_rel.gpu.global.min.s32",
        "atom.acq_rel.gpu.global.max.u32",
        "atom.acq_rel.gpu.global.exch.b64",
        "atom.acq_rel.gpu.global.and.b64",
        "atom.acq_rel.gpu.global.or.b32",
        "atom.acq_rel.gpu.global.min.u64",
        "atom.acq_rel.gpu.global.max.s64",
        "atom.relaxed.sys.global.add.f32",
        "atom.release.cta.shared.add.u32",
        "atom.acq_rel.cta.global.exch.b32",
    ] {
        assert!(p.contains(s), "missing {s}:\n{p}");
    }
    for target in AMD {
        let a = asm(all_rmw(), target);
        for s in [
            "global_atomic_smin",
            "global_atomic_umax_x2",
            "global_atomic_swap",
            "global_atomic_and",
            "global_atomic_or_x2",
            "ds_add_rtn_u32",
            "global_atomic_cmpswap_x2",
        ] {
            assert!(a.contains(s), "{target}: missing {s}");
        }
    }
}

#[test]
fn barrier_and_shared_memory() {
    let p = ptx(shared_reverse());
    assert!(
        p.contains("bar.sync 	0") || p.contains("barrier.sync"),
        "{p}"
    );
    assert!(
        p.contains(".shared .align 16 .b8 shared_reverse_tile[1024]") || p.contains(".shared"),
        "{p}"
    );
    assert!(
        p.contains("st.shared.b32") && p.contains("ld.shared.b32"),
        "{p}"
    );
    for target in AMD {
        let a = asm(shared_reverse(), target);
        assert!(a.contains("s_barrier"), "{a}");
        assert!(
            a.contains("ds_write_b32") && a.contains("ds_read_b32"),
            "{a}"
        );
        assert!(a.contains(".amdhsa_group_segment_fixed_size 1024"), "{a}");
    }
}

#[test]
fn vector_memory_access() {
    let p = ptx(vectors());
    assert!(
        p.contains("ld.global.v4.b32") && p.contains("st.global.v4.b32"),
        "{p}"
    );
    for target in AMD {
        let a = asm(vectors(), target);
        assert!(
            a.contains("global_load_dwordx4") && a.contains("global_store_dwordx4"),
            "{a}"
        );
    }
}

#[test]
fn conversions() {
    let p = ptx(casts());
    for s in [
        "cvt.rn.bf16.f32",
        "cvt.rn.f16.f32",
        "cvt.f64.f32",
        "cvt.rzi.s32.f32",
    ] {
        assert!(p.contains(s), "missing {s}:\n{p}");
    }
    let ll = emit_llvm_ir(&module(casts()), TargetKind::Gfx942).unwrap();
    for s in [
        "fptrunc float",
        "to bfloat",
        "llvm.fptosi.sat.i32.f32",
        "llvm.fptoui.sat.i8.f32",
        "sext i32",
        "zext i8",
        "uitofp i8",
    ] {
        assert!(ll.contains(s), "missing {s}:\n{ll}");
    }
    let a = asm(casts(), TargetKind::Gfx950);
    assert!(
        a.contains("v_cvt_pk_bf16_f32"),
        "gfx950 converts to bf16 natively:\n{a}"
    );
}

#[test]
fn arithmetic_semantics_in_llvm_ir() {
    let ll = emit_llvm_ir(&module(arithmetic()), TargetKind::Sm90a).unwrap();
    for s in [
        "sdiv i8",
        "udiv i16",
        "srem i32",
        "urem i64",
        "llvm.smin.i32",
        "llvm.umax.u64",
        "ashr i64",
        "lshr i32",
        "llvm.minnum.f32",
        "llvm.maxnum.bf16",
        "llvm.fma.f16",
        "fcmp une",
        "fcmp olt",
        "icmp ult",
        "icmp sge",
        "llvm.abs.i64",
        "llvm.fabs.f64",
        "llvm.sqrt.f64",
        "llvm.nvvm.lg2.approx.f",
        "llvm.exp2.f32",
        "fneg half",
    ] {
        let s = s.replace("u64", "i64");
        assert!(ll.contains(&s), "missing {s}");
    }
    // Shift amounts are taken modulo the width.
    assert!(ll.contains("and i32 %") || ll.contains("and i32"), "{ll}");
    ptx(arithmetic());
}

#[test]
fn structured_control_flow_lowers_to_phis() {
    let ll = emit_llvm_ir(&module(control_flow()), TargetKind::Gfx942).unwrap();
    for s in [
        "for.header:",
        "loop:",
        "loop.exit:",
        "phi float",
        "phi i32",
        "ret void",
    ] {
        assert!(ll.contains(s), "missing {s}:\n{ll}");
    }
}

#[test]
fn stages_are_named_and_dumped() {
    let dir = std::env::temp_dir().join(format!("kosmos-codegen-dump-{}", std::process::id()));
    let opts = Options {
        dump_dir: Some(dir.clone()),
    };
    let amd = compile(&module(vector_add()), TargetKind::Gfx942, &opts).unwrap();
    let names: Vec<&str> = amd.stages.iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "0.kir",
            "1-llvm.ll",
            "2-opt.ll",
            "3-asm.s",
            "4.o",
            "5.hsaco"
        ]
    );
    assert!(
        std::str::from_utf8(&amd.stage("0.kir").unwrap().data)
            .unwrap()
            .contains("kernel @vector_add")
    );
    let nv = compile(&module(vector_add()), TargetKind::Sm90a, &opts).unwrap();
    assert!(nv.text().unwrap().contains(".entry vector_add"));
    for f in [
        "vector_add-gfx942/5.hsaco",
        "vector_add-gfx942/2-opt.ll",
        "vector_add-sm_90a/5.ptx",
    ] {
        assert!(dir.join(f).exists(), "{f} not dumped");
    }
    // Best effort: a leftover temporary directory is harmless.
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tool_failures_carry_a_repro_command() {
    // Each failure keeps its input, the repro command's last argument, for the command.
    let repro_of = |e: CheckError, input: &[u8]| match e {
        CheckError::Tool { repro, .. } => {
            let file = std::path::Path::new(repro.rsplit(' ').next().unwrap());
            assert_eq!(std::fs::read(file).unwrap(), input, "{repro}");
            std::fs::remove_dir_all(file.parent().unwrap()).unwrap();
            repro
        }
        other => panic!("expected a tool failure, got {other}"),
    };
    let repro = repro_of(assemble_ptx("not ptx").unwrap_err(), b"not ptx");
    assert!(repro.contains("ptxas -arch=sm_90a -v -o "), "{repro}");
    let junk = b"not an ELF file";
    let repro = repro_of(hsaco_summary(junk).unwrap_err(), junk);
    assert!(
        repro.contains("llvm-readelf --notes ") || repro.contains("llvm-readelf-22 --notes "),
        "{repro}"
    );
    let repro = repro_of(
        disassemble_hsaco(junk, TargetKind::Gfx942).unwrap_err(),
        junk,
    );
    assert!(repro.contains(" -d --mcpu=gfx942 "), "{repro}");
}

#[test]
fn target_names_parse() {
    for t in TargetKind::ALL {
        assert_eq!(t.name().parse::<TargetKind>().unwrap(), t);
    }
    assert!("sm_80".parse::<TargetKind>().is_err());
}

#[test]
fn sleep_backs_off_on_every_target() {
    let mut b = kosmos_ir::KernelBuilder::new("nap", 64);
    b.sleep(256);
    let kernel = b.finish();
    let p = ptx(kernel.clone());
    assert!(p.contains("nanosleep.u32"), "{p}");
    for target in AMD {
        let a = asm(kernel.clone(), target);
        // 256 ns at ~32 ns per s_sleep unit.
        assert!(a.contains("s_sleep 8"), "{a}");
    }
}

#[test]
fn clock_reads_a_device_wide_timer() {
    let mut b = kosmos_ir::KernelBuilder::new("stamp", 64);
    let out = b.param("out", kosmos_ir::Type::GLOBAL_PTR);
    let t = b.clock();
    b.store(out, t);
    let kernel = b.finish();
    let p = ptx(kernel.clone());
    assert!(p.contains("%globaltimer"), "{p}");
    for target in AMD {
        let a = asm(kernel.clone(), target);
        assert!(a.contains("s_memrealtime"), "{a}");
    }
}

#[test]
fn group_product_and_async_copies() {
    let p = ptx(group_product());
    for needle in [
        "cp.async.cg.shared.global",
        "cp.async.commit_group",
        "cp.async.wait_group",
        // Shared memory written by threads is fenced towards the async proxy wgmma reads.
        "fence.proxy.async.shared::cta",
        "wgmma.fence.sync.aligned",
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
        "wgmma.wait_group.sync.aligned 0",
        // One dynamic array (beyond CUDA's 48 KiB static limit), aligned for swizzled tiles.
        ".extern .shared .align 1024 .b8 kosmos_dynamic_shared[]",
        // Eight subgroups of warps: the register budget of 256 threads.
        ".maxntid 256",
    ] {
        assert!(p.contains(needle), "missing {needle}:\n{p}");
    }
    assert_eq!(p.matches("wgmma.mma_async").count(), 4, "{p}");
    // The occupancy hint: two resident workgroups.
    let mut resident = group_product();
    resident.min_resident = Some(2);
    let p = asm(resident.clone(), TargetKind::Sm90a);
    assert!(p.contains(".minnctapersm 2"), "{p}");
    // Not passed to AMD (it would cap registers and spill there).
    let ir = emit_llvm_ir(&module(resident), TargetKind::Gfx942).unwrap();
    assert!(!ir.contains("amdgpu-waves-per-eu"), "{ir}");
    for target in AMD {
        let a = asm(group_product(), target);
        // 4 steps of 16 deep x 8 column pieces of 16x16x16 MFMAs.
        assert_eq!(
            a.matches("v_mfma_f32_16x16x16").count(),
            32,
            "{target}:\n{a}"
        );
        assert!(a.contains(".amdhsa_group_segment_fixed_size 24576"), "{a}");
        assert!(a.contains(".amdhsa_private_segment_fixed_size 0"), "{a}");
        // Eight wave64 subgroups.
        assert!(
            a.contains("\"amdgpu-flat-work-group-size\"=\"1,512\"")
                || a.contains(".max_flat_workgroup_size: 512"),
            "{a}"
        );
    }
}

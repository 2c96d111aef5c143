//! Every op on every target: properties of the emitted LLVM IR, PTX (assembled by ptxas) and
//! HSACOs (metadata, no scratch). The exact instructions ops compile to are blessed in the
//! `compile` file tests, `tests/filetests/compile/`.

mod common;

use common::*;
use kosmos_codegen::check::{CheckError, assemble_ptx, disassemble_hsaco, hsaco_summary};
use kosmos_codegen::{Options, TargetKind, ToolFailure, compile, emit_asm, emit_llvm_ir};
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
            if let Err(e) = summary.clean_kernel(&name) {
                panic!("{e}:\n{notes}");
            }
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

/// The kernel ABI on AMD: its instructions are in `tests/filetests/compile/vector_add.kir`.
#[test]
fn vector_add_kernel_abi_in_llvm_ir() {
    for target in AMD {
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
fn grid_size_reads_the_dispatch_packet_on_amd() {
    let ll = emit_llvm_ir(&module(control_flow()), TargetKind::Gfx942).unwrap();
    assert!(ll.contains("llvm.amdgcn.dispatch.ptr"), "{ll}");
    assert!(ll.contains("llvm.amdgcn.workitem.id.z"), "{ll}");
    assert!(ll.contains("llvm.amdgcn.workgroup.id.y"), "{ll}");
}

/// Scopes as LLVM sync scopes; the instructions they become on each target are in
/// `tests/filetests/compile/scoped_atomics.kir` and `all_rmw.kir`.
#[test]
fn atomic_scopes_in_llvm_ir() {
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

/// Conversions in LLVM IR; the instructions they become are in
/// `tests/filetests/compile/casts.kir`.
#[test]
fn conversions_in_llvm_ir() {
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
        CheckError::Tool(ToolFailure { repro, .. }) => {
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

/// The occupancy hint reaches PTX but not AMD (it would cap registers and spill there); the
/// group product's instructions are in `tests/filetests/compile/group_product.kir`.
#[test]
fn min_resident_is_a_hint_on_sm_90a_only() {
    let mut resident = group_product();
    resident.min_resident = Some(2);
    let p = asm(resident.clone(), TargetKind::Sm90a);
    assert!(p.contains(".minnctapersm 2"), "{p}");
    let ir = emit_llvm_ir(&module(resident), TargetKind::Gfx942).unwrap();
    assert!(!ir.contains("amdgpu-waves-per-eu"), "{ir}");
}

/// A kernel with 100 KiB of shared memory: sm_90a and gfx950 take it, gfx942 (64 KiB of LDS)
/// refuses it naming what it needs.
#[test]
fn shared_memory_beyond_a_target_is_refused_by_it() {
    let mut b = kosmos_ir::KernelBuilder::new("big_tile", 64);
    b.shared_alloc("tile", kosmos_ir::ScalarType::U32, 25 * 1024);
    b.ret();
    let big = module(b.finish());
    for target in [TargetKind::Sm90a, TargetKind::Gfx950] {
        emit_asm(&big, target).unwrap_or_else(|e| panic!("{target}: {e}"));
    }
    let e = emit_asm(&big, TargetKind::Gfx942).unwrap_err();
    assert_eq!(
        e.to_string(),
        "big_tile: needs 102400 bytes of shared memory; gfx942 has at most 65536"
    );
}

//! `regs.set` becomes `setmaxnreg`, which ptxas honours only when it knows the kernel's
//! register count at entry: the `.maxntid` every kernel gets from its launch bound gives it
//! (65536 registers over that many threads). The `compile` file test
//! `warp_specialised.kir` pins the instructions and fails on any ptxas performance loss;
//! these tests show that loss is detected, and where the entry count comes from.

use kosmos_codegen::TargetKind;
use kosmos_codegen::check::assemble_ptx;

const WARP_SPECIALISED: &str = include_str!("../filetests/compile/warp_specialised.kir");

fn warp_specialised_ptx() -> String {
    let module = kosmos_ir::parse_module(WARP_SPECIALISED).expect("the file test parses");
    let module = kosmos_ir::verify_module(module).expect("the file test verifies");
    kosmos_codegen::emit_asm(&module, TargetKind::Sm90a).expect("it compiles for sm_90a")
}

#[test]
fn setmaxnreg_is_honoured_with_the_launch_bound() {
    let ptx = warp_specialised_ptx();
    assert!(ptx.contains(".maxntid 384"), "{ptx}");
    assert!(ptx.contains("setmaxnreg.inc.sync.aligned.u32 240;"));
    assert!(ptx.contains("setmaxnreg.dec.sync.aligned.u32 24;"));
    let report = assemble_ptx(&ptx).expect("ptxas assembles it");
    assert_eq!(report.performance_losses(), Vec::<&str>::new());
    let kernel = report
        .kernel("warp_specialised")
        .expect("ptxas reports the kernel");
    // 65536 / 384 threads, rounded down to a multiple of 8.
    assert_eq!(kernel.registers, 168, "{}", report.output);
    assert_eq!(kernel.spill_bytes(), 0);
}

#[test]
fn setmaxnreg_without_an_entry_register_count_is_reported() {
    let ptx = warp_specialised_ptx().replace(".maxntid 384", "");
    let report = assemble_ptx(&ptx).expect("ptxas assembles it");
    let losses = report.performance_losses();
    assert!(
        losses.iter().any(|l| l.contains("C7508")),
        "ptxas did not report the ignored setmaxnreg:\n{}",
        report.output
    );
}

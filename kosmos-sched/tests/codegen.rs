//! The exact instructions the protocol lowers to on every GPU target: signals are release
//! atomics at their scope, waits acquire loads with a sleep between polls, claims relaxed
//! device-scope atomics (no cache maintenance on the hot path).

use kosmos_codegen::TargetKind;
use kosmos_codegen::check::{disassemble_hsaco, disassembly_of, ptx_entry};
use kosmos_codegen::{Options, compile};
use kosmos_ir::Scope;
use kosmos_sched::latency;

fn module() -> kosmos_ir::VerifiedModule {
    kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: latency::kernels(),
    })
    .unwrap()
}

fn ptx() -> String {
    let art = compile(&module(), TargetKind::Sm90a, &Options::default()).unwrap();
    art.text().unwrap().to_string()
}

fn amd(target: TargetKind) -> String {
    let art = compile(&module(), target, &Options::default()).unwrap();
    disassemble_hsaco(&art.bytes, target).unwrap()
}

#[test]
fn sm_90a_signal_wait_and_claim() {
    let ptx = ptx();
    let sys = ptx_entry(&ptx, latency::pingpong(Scope::System)).unwrap();
    assert!(sys.contains("atom.release.sys.global.add.u32"), "{sys}");
    assert!(sys.contains("ld.acquire.sys.global.b32"), "{sys}");
    assert!(sys.contains("nanosleep.u32"), "{sys}");
    let agent = ptx_entry(&ptx, latency::pingpong(Scope::Agent)).unwrap();
    assert!(agent.contains("atom.release.gpu.global.add.u32"), "{agent}");
    assert!(agent.contains("ld.acquire.gpu.global.b32"), "{agent}");
    let claim = ptx_entry(&ptx, latency::CLAIM).unwrap();
    assert!(claim.contains("atom.relaxed.gpu.global.add.u32"), "{claim}");
    assert!(claim.contains("ld.relaxed.gpu.global.b32"), "{claim}");
    assert!(!claim.contains("fence"), "claims need no fences: {claim}");
}

fn check_amd(target: TargetKind) {
    let dis = amd(target);
    let sys = disassembly_of(&dis, latency::pingpong(Scope::System)).unwrap();
    // Release at system scope: write back L2, then the atomic; acquire: invalidate after.
    assert!(sys.contains("buffer_wbl2 sc0 sc1"), "{sys}");
    assert!(sys.contains("global_atomic_add"), "{sys}");
    assert!(sys.contains("buffer_inv sc0 sc1"), "{sys}");
    assert!(sys.contains("s_sleep"), "{sys}");
    let agent = disassembly_of(&dis, latency::pingpong(Scope::Agent)).unwrap();
    assert!(agent.contains("buffer_wbl2 sc1"), "{agent}");
    assert!(agent.contains("buffer_inv sc1"), "{agent}");
    let claim = disassembly_of(&dis, latency::CLAIM).unwrap();
    assert!(claim.contains("global_atomic_add"), "{claim}");
    assert!(
        !claim.contains("buffer_wbl2") && !claim.contains("buffer_inv"),
        "{claim}"
    );
}

#[test]
fn gfx942_signal_wait_and_claim() {
    check_amd(TargetKind::Gfx942);
}

#[test]
fn gfx950_signal_wait_and_claim() {
    check_amd(TargetKind::Gfx950);
}

//! The exact instructions the protocol lowers to on every GPU target: signals are release
//! atomics at their scope, waits acquire loads with a sleep between polls, claims relaxed
//! device-scope atomics (no cache maintenance on the hot path); the team barrier resets
//! itself with system-scope atomics; an overflow report raises the abort flag at system
//! scope.

use kosmos_codegen::TargetKind;
use kosmos_codegen::check::{assemble_ptx, disassemble_hsaco, disassembly_of, ptx_entry};
use kosmos_codegen::{Options, compile};
use kosmos_ir::Scope;
use kosmos_sched::{Sched, SchedOptions, Team, latency};

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

/// `code` holds every one of `needles`.
fn assert_contains(code: &str, needles: &[&str]) {
    for needle in needles {
        assert!(code.contains(needle), "no `{needle}` in {code}");
    }
}

#[test]
fn sm_90a_signal_wait_and_claim() {
    let ptx = ptx();
    let sys = ptx_entry(&ptx, latency::pingpong(Scope::System)).unwrap();
    assert_contains(
        sys,
        &[
            "atom.release.sys.global.add.u32",
            "ld.acquire.sys.global.b32",
            "nanosleep.u32",
        ],
    );
    let agent = ptx_entry(&ptx, latency::pingpong(Scope::Agent)).unwrap();
    assert_contains(
        agent,
        &[
            "atom.release.gpu.global.add.u32",
            "ld.acquire.gpu.global.b32",
        ],
    );
    let claim = ptx_entry(&ptx, latency::CLAIM).unwrap();
    assert_contains(
        claim,
        &[
            "atom.relaxed.gpu.global.add.u32",
            "ld.relaxed.gpu.global.b32",
        ],
    );
    assert!(!claim.contains("fence"), "claims need no fences: {claim}");
}

fn check_amd(target: TargetKind) {
    let dis = amd(target);
    let sys = disassembly_of(&dis, latency::pingpong(Scope::System)).unwrap();
    // Release at system scope: write back L2, then the atomic; acquire: invalidate after.
    assert_contains(
        sys,
        &[
            "buffer_wbl2 sc0 sc1",
            "global_atomic_add",
            "buffer_inv sc0 sc1",
            "s_sleep",
        ],
    );
    let agent = disassembly_of(&dis, latency::pingpong(Scope::Agent)).unwrap();
    assert_contains(agent, &["buffer_wbl2 sc1", "buffer_inv sc1"]);
    let claim = disassembly_of(&dis, latency::CLAIM).unwrap();
    assert_contains(claim, &["global_atomic_add"]);
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

#[test]
fn sm_90a_team_barrier_resets_itself_at_system_scope() {
    let mut b = kosmos_ir::KernelBuilder::new("barrier", 64);
    let team = Team::params(&mut b);
    Sched::new(&mut b, team, SchedOptions::default()).team_barrier(&mut b);
    let module = kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: vec![b.finish()],
    })
    .unwrap();
    let art = compile(&module, TargetKind::Sm90a, &Options::default()).unwrap();
    // Arrival (acq_rel), the last arriver's reset of the count and release of the new
    // generation, the others' acquire polls of it.
    assert_contains(
        art.text().unwrap(),
        &[
            "atom.acq_rel.sys.global.add.u32",
            "st.relaxed.sys.global.b32",
            "atom.release.sys.global.add.u32",
            "ld.acquire.sys.global.b32",
        ],
    );
}

/// A kernel that reports an overflow of `needed` rows past `capacity` (its parameters).
fn overflow_module() -> kosmos_ir::VerifiedModule {
    let mut b = kosmos_ir::KernelBuilder::new("overflow", 64);
    let team = Team::params(&mut b);
    let capacity = b.param("capacity", kosmos_ir::Type::U32);
    let needed = b.param("needed", kosmos_ir::Type::U32);
    Sched::new(&mut b, team, SchedOptions::default()).report_overflow(&mut b, capacity, needed, 7);
    kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: vec![b.finish()],
    })
    .unwrap()
}

#[test]
fn sm_90a_overflow_report_counts_its_record_and_raises_the_abort_flag() {
    let art = compile(&overflow_module(), TargetKind::Sm90a, &Options::default()).unwrap();
    let ptx = art.text().unwrap();
    assemble_ptx(ptx).unwrap();
    // The record's slot (relaxed, this rank's control buffer), the flag (rank 0's).
    assert_contains(
        ptx,
        &[
            "atom.relaxed.gpu.global.add.u32",
            "st.relaxed.sys.global.b32",
        ],
    );
}

#[test]
fn gfx942_overflow_report_counts_its_record_and_raises_the_abort_flag() {
    let art = compile(&overflow_module(), TargetKind::Gfx942, &Options::default()).unwrap();
    let dis = disassemble_hsaco(&art.bytes, TargetKind::Gfx942).unwrap();
    let overflow = disassembly_of(&dis, "overflow").unwrap();
    // The record's slot, then the flag (control word 4) stored at system scope.
    assert_contains(overflow, &["global_atomic_add", "offset:16 sc0 sc1"]);
}

/// A kernel whose subgroups each signal the counter at parameter `counter` after a store of
/// their own.
fn subgroup_signal_module() -> kosmos_ir::VerifiedModule {
    let mut b = kosmos_ir::KernelBuilder::new("subgroup_signal", 64);
    let team = Team::params(&mut b);
    let data = b.param("data", kosmos_ir::Type::GLOBAL_PTR);
    let counter = b.param("counter", kosmos_ir::Type::GLOBAL_PTR);
    let sched = Sched::new(&mut b, team, SchedOptions::default());
    let lane = b.workitem_id(kosmos_ir::Dim::X);
    let at = b.ptr_offset(data, lane, kosmos_ir::Type::U32);
    b.store(at, lane);
    let one = b.const_u32(1);
    sched.subgroup_signal(&mut b, counter, one, Scope::System);
    kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: vec![b.finish()],
    })
    .unwrap()
}

#[test]
fn sm_90a_subgroup_signal_fences_meets_then_releases() {
    let art = compile(
        &subgroup_signal_module(),
        TargetKind::Sm90a,
        &Options::default(),
    )
    .unwrap();
    let ptx = art.text().unwrap();
    assemble_ptx(ptx).unwrap();
    // Every lane's fence, the shuffle that lane 0 learns it is lane 0 from, then its release.
    let fence = ptx.find("fence.acq_rel.sys").expect("a system-scope fence");
    let meet = ptx.find("shfl.sync").expect("a shuffle");
    let add = ptx
        .find("atom.release.sys.global.add.u32")
        .expect("a release add");
    assert!(fence < meet && meet < add, "{ptx}");
}

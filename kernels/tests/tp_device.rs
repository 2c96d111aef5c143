//! The fused tensor-parallel ops on a GPU, opt-in (`KOSMOS_DEVICE=cuda:0 cargo test -p
//! kernels --test tp_device -- --include-ignored`): emulated worlds of 2, 4 and 8 ranks at
//! scaled-down Llama-3-70B TP=8 shapes against the unfused path on the same GPU (a gemm per
//! rank; for the reductions its partial products summed on the host), bitwise equal for
//! every workgroup count from 1 per rank to the resident limit; each op captured in a graph
//! once and replayed 100 times, equal to the eager calls; a planted missing signal reported
//! naming rank, workgroup and task.

use kernels::{Layout, Ops, TpOps};
use kosmos::bf16;
use kosmos::runtime::{Device, DeviceScalar, SymmetricBuffer, World, WorldError, WorldOptions};
use kosmos_testkernels::random_bf16;

fn device() -> Device {
    Device::from_env().unwrap_or_else(|e| panic!("KOSMOS_DEVICE: {e}"))
}

/// Largest difference relative to the largest magnitude of `want`; NaN counts as infinite.
fn rel_diff(got: &[f32], want: &[f64]) -> f64 {
    let scale = want.iter().fold(1e-30f64, |m, v| m.max(v.abs()));
    got.iter()
        .zip(want)
        .map(|(&g, w)| {
            if g.is_nan() {
                f64::INFINITY
            } else {
                (f64::from(g) - w).abs() / scale
            }
        })
        .fold(0.0, f64::max)
}

fn sym<T: DeviceScalar>(world: &mut World, data: &[Vec<T>]) -> SymmetricBuffer<T> {
    let b = world.alloc_symmetric::<T>(data[0].len()).unwrap();
    for (copy, d) in b.ranks().iter().zip(data) {
        copy.upload(d).unwrap();
    }
    b
}

fn download(y: &SymmetricBuffer<f32>) -> Vec<Vec<f32>> {
    y.ranks().iter().map(|b| b.download().unwrap()).collect()
}

/// The tests take turns on the GPU: a stream capture in one would otherwise see another's
/// host-to-device copies (which a capturing device refuses).
static GPU: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// One world with its ops and operands, and this test's turn on the GPU.
struct Setup {
    _turn: std::sync::MutexGuard<'static, ()>,
    world: World,
    ops: TpOps,
    local: Ops,
    x_all: Vec<bf16>,
    op: Operands,
}

/// An all-gather case (`x` gathered `m x k`, `w` `k x n`) and a reduction case (`xr`
/// `m x kr` per rank, `wr` `kr x n`), and the results of the three ops.
struct Operands {
    m: usize,
    n: usize,
    k: usize,
    kr: usize,
    x: SymmetricBuffer<bf16>,
    w: SymmetricBuffer<bf16>,
    xr: SymmetricBuffer<bf16>,
    wr: SymmetricBuffer<bf16>,
    /// `ag_gemm`'s, `gemm_rs`'s and `gemm_ar`'s results.
    y: SymmetricBuffer<f32>,
    ys: SymmetricBuffer<f32>,
    ya: SymmetricBuffer<f32>,
}

impl Operands {
    /// Queues `ag_gemm`, `gemm_rs` and `gemm_ar` on `world`.
    fn queue(&self, ops: &mut TpOps, world: &mut World) -> Result<(), WorldError> {
        let Operands { m, n, k, kr, .. } = *self;
        let (x, w, xr, wr) = (&self.x, &self.w, &self.xr, &self.wr);
        let world_error = |e| match e {
            kernels::Error::World(e) => e,
            e => panic!("{e}"),
        };
        ops.ag_gemm(world, x, w, Layout::N, &self.y, m, n, k)
            .and_then(|()| ops.gemm_rs(world, xr, wr, Layout::N, &self.ys, m, n, kr))
            .and_then(|()| ops.gemm_ar(world, xr, wr, &self.ya, m, n, kr))
            .map_err(world_error)
    }

    /// Poisons the three results.
    fn poison(&self) {
        for out in [&self.y, &self.ys, &self.ya] {
            out.ranks().iter().for_each(|b| b.fill(f32::NAN).unwrap());
        }
    }

    fn results(&self) -> [Vec<Vec<f32>>; 3] {
        [download(&self.y), download(&self.ys), download(&self.ya)]
    }
}

impl Setup {
    fn new(ranks: u32, options: WorldOptions) -> Setup {
        let turn = GPU
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let device = device();
        let mut world = World::emulated(&device, ranks, options).unwrap();
        let ops = TpOps::new(&world).unwrap();
        let r = ranks as usize;
        // Llama-3-70B's TP=8 QKV (k = 8192, n = 1280) and out-proj (k = 1024) per rank,
        // with 512 tokens per rank and k scaled down to keep the world within memory.
        let (m, n, k, kr) = (512 * r, 1280, 2048, 1024);
        let x_all = random_bf16(7, m * k);
        let own: Vec<Vec<bf16>> = (0..r)
            .map(|q| {
                let mut v = vec![bf16::NAN; m * k];
                let rows = q * m / r * k..(q + 1) * m / r * k;
                v[rows.clone()].copy_from_slice(&x_all[rows]);
                v
            })
            .collect();
        let x = sym(&mut world, &own);
        let ws: Vec<_> = (0..r).map(|q| random_bf16(100 + q as u64, k * n)).collect();
        let w = sym(&mut world, &ws);
        let xs: Vec<_> = (0..r)
            .map(|q| random_bf16(200 + q as u64, m * kr))
            .collect();
        let xr = sym(&mut world, &xs);
        let wrs: Vec<_> = (0..r)
            .map(|q| random_bf16(300 + q as u64, kr * n))
            .collect();
        let wr = sym(&mut world, &wrs);
        let y = world.alloc_symmetric::<f32>(m * n).unwrap();
        let ys = world.alloc_symmetric::<f32>(m / r * n).unwrap();
        let ya = world.alloc_symmetric::<f32>(m * n).unwrap();
        Setup {
            _turn: turn,
            world,
            ops,
            local: Ops::new(&device).unwrap(),
            x_all,
            op: Operands {
                m,
                n,
                k,
                kr,
                x,
                w,
                xr,
                wr,
                y,
                ys,
                ya,
            },
        }
    }

    /// Rank `r`'s `op(a) b` by the plain gemm, in f64.
    fn unfused(
        &self,
        a: &SymmetricBuffer<bf16>,
        b: &SymmetricBuffer<bf16>,
        k: usize,
    ) -> Vec<Vec<f64>> {
        let stream = self.world.rank_stream(0).unwrap();
        let device = stream.device();
        (0..self.world.ranks() as usize)
            .map(|r| {
                let (m, n) = (self.op.m, self.op.n);
                let mut c = device.alloc::<f32>(m * n).unwrap();
                let plan = self
                    .local
                    .gemm_plan(&a.ranks()[r], Layout::N, &b.ranks()[r], Layout::N, m, n, k)
                    .unwrap();
                plan.launch(stream, &mut c).unwrap();
                stream.synchronize().unwrap();
                c.download().unwrap().into_iter().map(f64::from).collect()
            })
            .collect()
    }
}

#[test]
#[ignore = "needs KOSMOS_DEVICE naming a GPU (cuda:0)"]
fn fused_ops_match_the_unfused_path_for_every_workgroup_count() {
    for ranks in [2, 4, 8] {
        let mut s = Setup::new(ranks, WorldOptions::default());
        let r = ranks as usize;
        let (m, n, k, kr) = (s.op.m, s.op.n, s.op.k, s.op.kr);
        // Every count up to the fewest the three ops keep resident is tried on all three.
        let resident = s.ops.max_workgroups_per_rank(&s.world).unwrap();
        let mut runs = Vec::new();
        for per_rank in [1, resident.div_ceil(2), resident] {
            s.ops.set_workgroups_per_rank(Some(per_rank));
            s.op.poison();
            s.op.queue(&mut s.ops, &mut s.world).unwrap();
            s.world
                .synchronize()
                .unwrap_or_else(|e| panic!("R={ranks} W={per_rank}: {e}"));
            runs.push(s.op.results());
        }
        for run in &runs[1..] {
            assert!(
                run == &runs[0],
                "R={ranks}: results differ between workgroup counts"
            );
        }
        let [ag, rs, ar] = &runs[0];
        for q in 0..r {
            let gathered = s.op.x.ranks()[q].download().unwrap();
            assert_eq!(gathered, s.x_all, "R={ranks} rank {q} gathered");
        }
        let want_ag = s.unfused(&s.op.x, &s.op.w, k);
        let partials = s.unfused(&s.op.xr, &s.op.wr, kr);
        let sum: Vec<f64> = (0..m * n)
            .map(|i| partials.iter().map(|p| p[i]).sum())
            .collect();
        for q in 0..r {
            let what = format!("R={ranks} rank {q}");
            assert!(rel_diff(&ag[q], &want_ag[q]) < 1e-3, "{what} ag_gemm");
            let rows = &sum[q * m / r * n..(q + 1) * m / r * n];
            assert!(rel_diff(&rs[q], rows) < 1e-3, "{what} gemm_rs");
            assert!(rel_diff(&ar[q], &sum) < 1e-3, "{what} gemm_ar");
        }
        println!(
            "R={ranks}: ok for 1, {}, {resident} workgroups per rank",
            resident.div_ceil(2)
        );
    }
}

#[test]
#[ignore = "needs KOSMOS_DEVICE naming a GPU (cuda:0)"]
fn captured_fused_ops_replay_100_times_as_eager_calls() {
    let mut s = Setup::new(4, WorldOptions::default());
    s.op.queue(&mut s.ops, &mut s.world).unwrap();
    s.world.synchronize().unwrap();
    let eager = s.op.results();
    s.op.poison();
    let graph = s
        .world
        .capture(|world| s.op.queue(&mut s.ops, world))
        .unwrap();
    for _ in 0..100 {
        // SAFETY: every buffer the ops read and write is a symmetric buffer alive in `s`,
        // and the workspace the eager calls allocated stays in `s.ops`.
        unsafe { graph.replay(&mut s.world) }.unwrap();
    }
    s.world.synchronize().unwrap();
    assert!(
        eager == s.op.results(),
        "replays differ from the eager calls"
    );
}

#[test]
#[ignore = "needs KOSMOS_DEVICE naming a GPU (cuda:0)"]
fn a_missing_signal_on_the_device_is_reported_not_hung() {
    let options = WorldOptions {
        wait_bound: Some(1 << 16),
        ..WorldOptions::default()
    };
    let mut s = Setup::new(8, options);
    let Operands { m, n, k, .. } = s.op;
    let (x, w, y) = (&s.op.x, &s.op.w, &s.op.y);
    s.ops.plant_missing_signal(3, 0);
    s.ops
        .ag_gemm(&mut s.world, x, w, Layout::N, y, m, n, k)
        .unwrap();
    match s.world.synchronize() {
        Err(WorldError::Timeout { records }) => {
            let text = records
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ");
            println!("{text}");
            assert!(records.iter().any(|r| r.rank == 3), "{text}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    s.ops.recover(&mut s.world).unwrap();
    s.ops
        .ag_gemm(&mut s.world, x, w, Layout::N, y, m, n, k)
        .unwrap();
    s.world.synchronize().unwrap();
}

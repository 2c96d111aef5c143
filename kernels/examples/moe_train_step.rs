//! Training steps of the MoE layer (`kernels::MoeLayer`): each step is one forward launch and
//! one backward launch per rank of an emulated expert-parallel world, then plain SGD on the
//! host. The layer (the student) learns to imitate another layer of the same shape with other
//! weights (the teacher) on fixed tokens; the loss, `0.5 |out - target|^2` per token, falls
//! from step to step.
//!
//! `cargo run --release -p kernels --example moe_train_step [-- steps]` (default 8): on the
//! first GPU, else (`KOSMOS_DEVICE=cpu`, or no GPU) on the CPU device.

use kernels::{MoeGradients, MoeLayer, MoeOptions, MoeShape, MoeWeights, Routing};
use kosmos::bf16;
use kosmos::runtime::{Device, SymmetricBuffer, World, WorldOptions};
use rand::{Rng, SeedableRng, rngs::StdRng};

const RANKS: u32 = 2;
const SHAPE: MoeShape = MoeShape {
    experts: 16,
    topk: 4,
    tokens: 256,
    hidden: 128,
    ffn: 64,
};
const OPTIONS: MoeOptions = MoeOptions {
    routing: Routing::Softmax { normalize: true },
    shared_expert: false,
    capacity: None,
};
/// The SGD step size.
const LEARNING_RATE: f32 = 0.5;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A layer's weights on the world.
struct Weights {
    router: SymmetricBuffer<bf16>,
    w1: SymmetricBuffer<bf16>,
    w2: SymmetricBuffer<bf16>,
}

impl Weights {
    /// Uniform in `±scale / sqrt(fan-in)`; the router the same on every rank.
    fn random(world: &mut World, rng: &mut StdRng) -> Result<Weights> {
        let (e, h, f) = (SHAPE.experts, SHAPE.hidden, SHAPE.ffn);
        let local = e / world.ranks() as usize;
        let router = random(rng, e * h, 4.0 / (h as f32).sqrt());
        let weights = Weights {
            router: upload(world, |_| router.clone())?,
            w1: upload(world, |_| {
                random(rng, local * 2 * f * h, 2.0 / (h as f32).sqrt())
            })?,
            w2: upload(world, |_| {
                random(rng, local * h * f, 2.0 / (f as f32).sqrt())
            })?,
        };
        Ok(weights)
    }

    fn args(&self) -> MoeWeights<'_> {
        MoeWeights {
            router: &self.router,
            bias: None,
            w1: &self.w1,
            w2: &self.w2,
            shared: None,
        }
    }
}

fn random(rng: &mut StdRng, len: usize, scale: f32) -> Vec<bf16> {
    (0..len)
        .map(|_| bf16::from_f32(rng.random_range(-scale..scale)))
        .collect()
}

/// A symmetric buffer holding `data(r)` on rank `r`.
fn upload(
    world: &mut World,
    mut data: impl FnMut(u32) -> Vec<bf16>,
) -> Result<SymmetricBuffer<bf16>> {
    let per_rank: Vec<Vec<bf16>> = (0..world.ranks()).map(&mut data).collect();
    let buffer = world.alloc_symmetric(per_rank[0].len())?;
    for (r, values) in (0..).zip(&per_rank) {
        buffer.rank(r)?.upload(values)?;
    }
    Ok(buffer)
}

/// `w -= LEARNING_RATE g`, rank by rank (`g` of the same size, bf16 or f32).
fn sgd<G: kosmos::runtime::DeviceScalar + Into<f32>>(
    w: &SymmetricBuffer<bf16>,
    g: &[Vec<G>],
) -> Result<()> {
    for (r, g) in g.iter().enumerate() {
        let rank = w.rank(r as u32)?;
        let updated: Vec<bf16> = rank
            .download()?
            .iter()
            .zip(g)
            .map(|(&w, &g)| bf16::from_f32(w.to_f32() - LEARNING_RATE * g.into()))
            .collect();
        rank.upload(&updated)?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let steps: usize = std::env::args().nth(1).map_or(Ok(8), |s| s.parse())?;
    let device = Device::from_env()?;
    let mut world = World::emulated(&device, RANKS, WorldOptions::default())?;
    let mut rng = StdRng::seed_from_u64(7);
    let (t, h) = (SHAPE.tokens, SHAPE.hidden);
    let x = upload(&mut world, |_| random(&mut rng, t * h, 1.0))?;
    let out = world.alloc_symmetric::<bf16>(t * h)?;

    // The teacher's outputs are the targets.
    let teacher = Weights::random(&mut world, &mut rng)?;
    let mut layer = MoeLayer::new(&mut world, SHAPE, OPTIONS)?;
    layer.forward(&mut world, &x, &teacher.args(), &out)?;
    world.synchronize()?;
    let target: Vec<Vec<bf16>> = out
        .ranks()
        .iter()
        .map(|b| b.download())
        .collect::<std::result::Result<_, _>>()?;

    let student = Weights::random(&mut world, &mut rng)?;
    let local = SHAPE.experts / RANKS as usize;
    let (e, f) = (SHAPE.experts, SHAPE.ffn);
    let dout = world.alloc_symmetric::<bf16>(t * h)?;
    let dx = world.alloc_symmetric::<bf16>(t * h)?;
    let router = world.alloc_symmetric::<f32>(e * h)?;
    let w1 = world.alloc_symmetric::<bf16>(local * 2 * f * h)?;
    let w2 = world.alloc_symmetric::<bf16>(local * h * f)?;
    let grads = MoeGradients {
        dx: &dx,
        router: &router,
        w1: &w1,
        w2: &w2,
        shared: None,
    };
    println!("{device}: {RANKS} ranks, {SHAPE:?}");
    for step in 0..steps {
        let pass = layer.forward(&mut world, &x, &student.args(), &out)?;
        world.synchronize()?;
        // The loss's gradient, per token.
        let tokens = (RANKS as usize * t) as f32;
        let mut loss = 0f32;
        for (r, target) in target.iter().enumerate() {
            let got = out.rank(r as u32)?.download()?;
            let diff: Vec<bf16> = got
                .iter()
                .zip(target)
                .map(|(o, y)| {
                    let d = o.to_f32() - y.to_f32();
                    loss += 0.5 * d * d / tokens;
                    bf16::from_f32(d / tokens)
                })
                .collect();
            dout.rank(r as u32)?.upload(&diff)?;
        }
        println!("step {step}: loss {loss:.6}");
        layer.backward(&mut world, &pass, &x, &dout, &student.args(), &grads)?;
        world.synchronize()?;
        let download = |b: &SymmetricBuffer<bf16>| -> Result<Vec<Vec<bf16>>> {
            Ok(b.ranks()
                .iter()
                .map(|b| b.download())
                .collect::<std::result::Result<_, _>>()?)
        };
        sgd(&student.w1, &download(&w1)?)?;
        sgd(&student.w2, &download(&w2)?)?;
        // The router is replicated: every rank takes the sum of the ranks' parts.
        let mut total = vec![0f32; e * h];
        for b in router.ranks() {
            for (s, v) in total.iter_mut().zip(b.download()?) {
                *s += v;
            }
        }
        sgd(&student.router, &vec![total; RANKS as usize])?;
    }
    Ok(())
}

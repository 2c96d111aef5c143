"""A world of two processes sharing one GPU, or on a GPU each where there are two
(`kosmos.torch.join_process_group` over a gloo process group; their symmetric buffers
mapped through CUDA IPC handles): the fused ops on
each rank's own CUDA tensors against float64 references of the whole world (staged, and on
symmetric arrays in place), the parallel
linear layers' forward and backward passes against torch autograd, the MoE layer's
against an emulated world on the same GPU (bitwise), and a `torch.compile` trace. Needs torch and a CUDA GPU; skipped, with the reason shown, elsewhere (the
same protocol runs on the CPU device with threads for processes in test_joined.py)."""

import os

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="needs a CUDA torch and a GPU")

RANKS = 2
F32_TOL, BF16_TOL = 1e-5, 2e-2


def _relerr(got, want):
    got, want = got.double().cpu(), want.double().cpu()
    assert torch.isfinite(got).all(), "non-finite values: an element was not written"
    return ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


def _check(what, got, want, tol):
    err = _relerr(got, want)
    assert err < tol, f"{what}: relative error {err:.3g} (tolerance {tol})"


def _worker(rank, init_file, seed, gpu_each):
    import torch.distributed as dist

    import kosmos
    import kosmos.torch as kt

    device = f"cuda:{rank if gpu_each else 0}"
    torch.cuda.set_device(device)
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank,
                            world_size=RANKS)
    world = kt.join_process_group(device=device)
    gen = torch.Generator().manual_seed(seed)  # the same inputs in every process

    def randn(*shape):
        return torch.randn(shape, generator=gen).to(torch.bfloat16)

    m, n, k = 384, 256, 320
    shard = m // RANKS
    xs, ws = randn(RANKS, m, k), randn(RANKS, k, n)
    own = slice(rank * shard, (rank + 1) * shard)
    x, w = xs[rank].cuda(), ws[rank].cuda()
    ref = [(xs[r].double() @ ws[r].double()) for r in range(RANKS)]

    y, gathered = world.ag_gemm(xs[0][own].cuda(), w, gathered=True)
    y_rs = world.gemm_rs(x, w, out_dtype="bfloat16")
    y_ar = world.gemm_ar(x, w)
    world.synchronize()
    assert torch.equal(gathered.cpu(), xs[0]), f"rank {rank}: the gathered input differs"
    _check(f"ag_gemm rank {rank}", y, xs[0].double() @ ws[rank].double(), F32_TOL)
    _check(f"gemm_rs rank {rank}", y_rs, sum(ref)[own], BF16_TOL)
    _check(f"gemm_ar rank {rank}", y_ar, sum(ref), F32_TOL)

    # Symmetric arrays used in place: ag_gemm gathers into the array whose rows this rank
    # filled, and reads the weight where it is.
    g_sym = torch.from_dlpack(world.empty((m, k)))
    g_sym[own].copy_(xs[0][own].cuda())
    w_sym = torch.from_dlpack(world.empty((k, n))).copy_(w)
    y_sym = world.ag_gemm(g_sym[own], w_sym)
    world.synchronize()
    assert torch.equal(g_sym.cpu(), xs[0]), f"rank {rank}: not gathered in place"
    _check(f"in-place ag_gemm rank {rank}", y_sym, xs[0].double() @ ws[rank].double(), F32_TOL)

    # A Megatron MLP block without the activation: column- then row-parallel (their
    # weights in symmetric memory).
    hidden = 2 * n
    torch.manual_seed(seed + 1 + rank)
    col = kt.ColumnParallelLinear(world, k, hidden).cuda()
    row = kt.RowParallelLinear(world, hidden, k).cuda()
    x_own = randn(m, k)[own].cuda().requires_grad_()
    out = row(col(x_own))
    grad = randn(m, k)
    (out.float() * grad[own].cuda().float()).sum().backward()
    torch.cuda.synchronize()
    world.synchronize()

    # The reference: every rank's weights, the whole sequence, float64 autograd.
    every = [None] * RANKS
    dist.all_gather_object(every, (col.weight.detach().cpu(), row.weight.detach().cpu(),
                                   x_own.detach().cpu()))
    w1 = torch.cat([e[0] for e in every], 1).double().requires_grad_()
    w2 = torch.cat([e[1] for e in every], 0).double().requires_grad_()
    x_all = torch.cat([e[2] for e in every], 0).double().requires_grad_()
    h = (x_all @ w1).to(torch.bfloat16).double()  # the layer keeps bf16 activations
    want = h @ w2
    (want * grad.double()).sum().backward()
    cols = slice(rank * (hidden // RANKS), (rank + 1) * (hidden // RANKS))
    _check(f"mlp out rank {rank}", out, want[own], BF16_TOL)
    _check(f"mlp dx rank {rank}", x_own.grad, x_all.grad[own], BF16_TOL)
    _check(f"mlp dw1 rank {rank}", col.weight.grad, w1.grad[:, cols], BF16_TOL)
    _check(f"mlp dw2 rank {rank}", row.weight.grad, w2.grad[cols], BF16_TOL)

    # The MoE layer, against an emulated world of the same ranks on this GPU (the same
    # kernels: bitwise), given every rank's weights and tokens.
    moe = kt.MoELayer(world, 256, 128, 8, 2, shared=True).cuda()
    with torch.no_grad():  # the replicated weights: rank 0's everywhere
        for p in (moe.router, moe.shared_w1, moe.shared_w2):
            held = p.detach().cpu()
            dist.broadcast(held, 0)
            p.copy_(held)
    tokens = randn(RANKS, 96, 256)
    grads = randn(RANKS, 96, 256)
    x_moe = tokens[rank].cuda().requires_grad_()
    out = moe(x_moe)
    (out.float() * grads[rank].cuda().float()).sum().backward()
    torch.cuda.synchronize()
    world.synchronize()
    every = [None] * RANKS
    dist.all_gather_object(every, (moe.w1.detach().cpu(), moe.w2.detach().cpu(),
                                   moe.router.grad.float().cpu()))
    shared = (moe.shared_w1.detach().cpu(), moe.shared_w2.detach().cpu())
    w1 = torch.stack([e[0] for e in every])
    w2 = torch.stack([e[1] for e in every])
    emulated = kosmos.World(RANKS, device)
    router = moe.router.detach().cpu()
    want = emulated.moe_forward(tokens, router, w1, w2, topk=2, shared=shared)
    want_grads = emulated.moe_backward(grads, tokens, router, w1, w2, topk=2, shared=shared)
    assert torch.equal(out.cpu(), want[rank]), f"rank {rank}: MoE output"
    assert torch.equal(x_moe.grad.cpu(), want_grads["x"][rank]), f"rank {rank}: MoE dx"
    assert torch.equal(moe.w1.grad.cpu(), want_grads["w1"][rank]), f"rank {rank}: MoE dw1"
    assert torch.equal(moe.w2.grad.cpu(), want_grads["w2"][rank]), f"rank {rank}: MoE dw2"
    # This rank's part of the replicated router's gradient (rounded to its bfloat16).
    _check("MoE d_router", sum(e[2] for e in every), want_grads["router"], BF16_TOL)

    compiled = torch.compile(lambda t: row(col(t)), fullgraph=True)
    with torch.no_grad():
        eager = row(col(x_own))
        traced = compiled(x_own)
    world.synchronize()
    assert torch.equal(eager, traced), f"rank {rank}: torch.compile and eager differ"
    world.close()  # the processes leave together
    dist.destroy_process_group()


def _spawn(tmp_path, gpu_each):
    import torch.multiprocessing as mp

    seed = int(os.environ.get("KOSMOS_SEED", torch.seed() % 2**32))
    print(f"seed {seed} (KOSMOS_SEED={seed} replays)")
    mp.spawn(_worker, args=(str(tmp_path / "init"), seed, gpu_each), nprocs=RANKS, join=True)


def test_two_processes_on_one_gpu(tmp_path):
    _spawn(tmp_path, gpu_each=False)


@pytest.mark.skipif(torch.cuda.device_count() < RANKS,
                    reason=f"needs {RANKS} GPUs (a process on each, as under torchrun)")
def test_two_processes_on_a_gpu_each(tmp_path):
    _spawn(tmp_path, gpu_each=True)

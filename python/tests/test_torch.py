"""The torch integration: custom ops against float64 references on CPU tensors (and CUDA
tensors where a CUDA torch is present), their fake implementations and autograd, a
`torch.compile` trace, and the parallel linear layers. Skipped, with the reason shown,
where torch is not installed."""

import os
import time

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (the numpy tests cover the ops)")
import kosmos  # noqa: E402
import kosmos.torch as kt  # noqa: E402

F32_TOL, BF16_TOL = 1e-5, 1e-2
HAS_CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA torch and a GPU")
DEVICES = ["cpu", pytest.param("cuda", marks=needs_cuda)]


@pytest.fixture
def gen():
    seed = int(os.environ.get("KOSMOS_SEED", np.random.SeedSequence().entropy % 2**32))
    print(f"seed {seed} (KOSMOS_SEED={seed} replays)")
    return torch.Generator().manual_seed(seed)


def randn(gen, *shape, device="cpu", scale=1.0):
    return (torch.randn(shape, generator=gen) * scale).to(torch.bfloat16).to(device)


def relerr(got, want):
    got, want = got.double().cpu(), want.double().cpu()
    assert torch.isfinite(got).all(), "non-finite values: an element was not written"
    return ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("a_t,b_t,bf16_out", [(False, False, False), (True, False, True),
                                              (False, True, False), (True, True, True)])
def test_gemm_op_every_layout(gen, device, a_t, b_t, bf16_out):
    m, n, k = 136, 72, 88
    a, b = randn(gen, m, k, device=device), randn(gen, k, n, device=device)
    sa = a.t().contiguous() if a_t else a
    sb = b.t().contiguous() if b_t else b
    got = torch.ops.kosmos.gemm(sa, sb, a_t, b_t, bf16_out)
    assert got.device == a.device
    assert got.dtype == (torch.bfloat16 if bf16_out else torch.float32)
    assert relerr(got, a.double() @ b.double()) < (BF16_TOL if bf16_out else F32_TOL)


@pytest.mark.parametrize("device", DEVICES)
def test_gemm_autograd_matches_the_float64_gradients(gen, device):
    m, n, k = 32, 48, 40
    for a_t, b_t in [(False, False), (True, True)]:
        a64 = randn(gen, m, k).double().requires_grad_()
        b64 = randn(gen, k, n).double().requires_grad_()
        dc = randn(gen, m, n)
        (a64 @ b64).backward(dc.double())
        sa = (a64.detach().t() if a_t else a64.detach()).contiguous()
        sb = (b64.detach().t() if b_t else b64.detach()).contiguous()
        a = sa.to(torch.bfloat16).to(device).requires_grad_()
        b = sb.to(torch.bfloat16).to(device).requires_grad_()
        kt.gemm(a, b, a_t, b_t).backward(dc.float().to(device))
        want_a = a64.grad.t() if a_t else a64.grad
        want_b = b64.grad.t() if b_t else b64.grad
        assert a.grad.dtype == torch.bfloat16 and a.grad.shape == a.shape
        assert relerr(a.grad, want_a) < BF16_TOL, (a_t, b_t)
        assert relerr(b.grad, want_b) < BF16_TOL, (a_t, b_t)


def test_gemm_op_passes_opcheck(gen):
    a, b = randn(gen, 16, 8), randn(gen, 8, 24)
    torch.library.opcheck(torch.ops.kosmos.gemm.default, (a, b, False, False, False),
                          test_utils=("test_schema", "test_faketensor",
                                      "test_autograd_registration"))


def test_gemm_traces_under_torch_compile(gen):
    a, b = randn(gen, 32, 16), randn(gen, 16, 24)

    @torch.compile(backend="aot_eager", fullgraph=True)
    def f(a, b):
        return kt.gemm(a, b) * 2.0

    assert relerr(f(a, b), 2.0 * (a.double() @ b.double())) < F32_TOL


def test_numpy_style_gemm_takes_torch_tensors(gen):
    a, b = randn(gen, 24, 16), randn(gen, 16, 8)
    out = torch.full((24, 8), float("nan"))
    assert kosmos.gemm(a, b, out=out) is out
    assert relerr(out, a.double() @ b.double()) < F32_TOL
    with pytest.raises(TypeError, match="a: expected bfloat16 elements, got float32"):
        kosmos.gemm(a.float(), b)
    with pytest.raises(ValueError, match="a: not C-contiguous"):
        kosmos.gemm(randn(gen, 16, 24).t(), b)


def test_tensors_without_memory_to_share_are_refused_in_one_line(gen):
    a, b = randn(gen, 8, 8), randn(gen, 8, 8)
    for tensor, why in [(torch.empty(8, 8, dtype=torch.bfloat16, device="meta"), "meta"),
                        (b.to_sparse(), "storage")]:
        with pytest.raises(TypeError, match="b: not a DLPack array") as info:
            kosmos.gemm(a, tensor)
        assert why in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("device", DEVICES)
def test_fused_ops_forward_and_backward_against_float64(gen, device):
    ranks, shard, k, n = 2, 16, 24, 32
    m = ranks * shard
    world_id = kt.register_world(kosmos.World(ranks, "cuda:0" if device == "cuda" else "cpu"))
    w = randn(gen, ranks, k, n, device=device).requires_grad_()
    x = randn(gen, ranks, shard, k, device=device).requires_grad_()
    y = kt.ag_gemm(world_id, x, w)
    assert y.device == x.device
    dy = randn(gen, ranks, m, n, device=device)
    y.backward(dy.float())
    x64, w64 = x.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    y64 = torch.stack([x64.reshape(m, k) @ w64[r] for r in range(ranks)])
    y64.backward(dy.double())
    assert relerr(y, y64) < F32_TOL
    assert relerr(x.grad, x64.grad) < BF16_TOL and relerr(w.grad, w64.grad) < BF16_TOL

    for op in (kt.gemm_rs, kt.gemm_ar):
        x = randn(gen, ranks, m, k, device=device).requires_grad_()
        w.grad = None
        y = op(world_id, x, w)
        dy = randn(gen, *y.shape, device=device)
        y.backward(dy.float())
        x64 = x.detach().double().requires_grad_()
        w64 = w.detach().double().requires_grad_()
        total = sum(x64[r] @ w64[r] for r in range(ranks))
        y64 = (torch.stack(list(total.split(shard))) if op is kt.gemm_rs
               else torch.stack([total] * ranks))
        y64.backward(dy.double())
        assert relerr(y, y64) < F32_TOL, op
        assert relerr(x.grad, x64.grad) < BF16_TOL, op
        assert relerr(w.grad, w64.grad) < BF16_TOL, op


def test_parallel_linear_layers_chain(gen):
    ranks, shard, hidden, ffn = 2, 8, 16, 32
    world = kosmos.World(ranks)
    up = kt.ColumnParallelLinear(world, hidden, ffn)
    down = kt.RowParallelLinear(world, ffn, hidden)
    x = randn(gen, ranks, shard, hidden).requires_grad_()
    y = down(up(x))
    assert y.shape == (ranks, shard, hidden) and y.dtype == torch.bfloat16
    # The same block, unsharded, in float64.
    xs = x.detach().double().reshape(ranks * shard, hidden)
    w_up = torch.cat(list(up.weight.detach().double()), dim=1)
    h = (xs @ w_up).to(torch.bfloat16).double()
    w_down = torch.cat(list(down.weight.detach().double()), dim=0)
    assert relerr(y.reshape(ranks * shard, hidden), h @ w_down) < 2 * BF16_TOL
    y.float().sum().backward()
    assert up.weight.grad.shape == up.weight.shape
    assert torch.isfinite(x.grad.float()).all() and x.grad.abs().sum() > 0


def test_moe_layer_module_runs_the_layer_and_its_gradients(gen):
    ranks, experts, tokens, hidden, ffn = 2, 8, 16, 32, 24
    world = kosmos.World(ranks)
    layer = kt.MoELayer(world, hidden, ffn, experts, 2, routing="sigmoid", groups=2,
                        scale=1.5, bias=True, shared=True)
    names = {n for n, _ in layer.named_parameters()}
    assert names == {"router", "w1", "w2", "shared_w1", "shared_w2"}
    assert layer.w1.shape == (ranks, experts // ranks, 2 * ffn, hidden)
    layer.bias.copy_(torch.randn(experts, generator=gen) * 0.05)
    x = randn(gen, ranks, tokens, hidden).requires_grad_()
    y = layer(x)
    assert y.shape == x.shape and y.dtype == torch.bfloat16
    shared = (layer.shared_w1.detach(), layer.shared_w2.detach())
    weights = [p.detach() for p in (x, layer.router, layer.w1, layer.w2)]
    options = dict(topk=2, routing="sigmoid", bias=layer.bias, groups=2, scale=1.5,
                   shared=shared)
    assert torch.equal(y.detach(), world.moe_forward(*weights, **options))
    dout = randn(gen, ranks, tokens, hidden)
    y.backward(dout)
    want = world.moe_backward(dout, *weights, **options)
    for p, w in [(x, want["x"]), (layer.router, want["router"]), (layer.w1, want["w1"]),
                 (layer.w2, want["w2"]), (layer.shared_w1, want["shared"][0]),
                 (layer.shared_w2, want["shared"][1])]:
        assert torch.equal(p.grad, w.to(p.dtype))
    with pytest.raises(ValueError, match="experts = 7 does not split over 2 ranks"):
        kt.MoELayer(world, hidden, ffn, 7, 2)


@pytest.mark.parametrize("device", DEVICES)
def test_moe_forward_op_matches_the_numpy_path_bitwise(gen, device):
    """The custom op on tensors of `device` against the numpy arrays' path of the same world
    (on a CUDA world: the tensors staged by device copies, the arrays by uploads)."""
    ranks, experts, tokens, hidden, ffn = 2, 8, 16, 32, 24
    world = kosmos.World(ranks, "cuda:0" if device == "cuda" else "cpu")
    args = (randn(gen, ranks, tokens, hidden), randn(gen, experts, hidden, scale=0.7),
            randn(gen, ranks, experts // ranks, 2 * ffn, hidden, scale=0.3),
            randn(gen, ranks, experts // ranks, hidden, ffn, scale=0.3))
    bias = torch.randn(experts, generator=gen) * 0.05
    got = torch.ops.kosmos.moe_forward(kt.register_world(world), *(a.to(device) for a in args),
                                       2, "sigmoid", True, bias.to(device), 2, 1, 1.5).cpu()
    assert got.dtype == torch.bfloat16 and got.shape == (ranks, tokens, hidden)
    want = world.moe_forward(*(a.view(torch.int16).numpy().view(kosmos._arrays.BFLOAT16)
                               for a in args), topk=2, routing="sigmoid", bias=bias.numpy(),
                             groups=2, topk_groups=1, scale=1.5)
    assert np.array_equal(got.view(torch.int16).numpy(), want.view(np.int16))
    with torch._subclasses.fake_tensor.FakeTensorMode():
        fake = torch.ops.kosmos.moe_forward(0, *(torch.empty(a.shape, dtype=a.dtype)
                                                 for a in args), 2)
    assert fake.shape == (ranks, tokens, hidden)


@pytest.mark.parametrize("shared", [False, True])
def test_moe_autograd_gives_the_gradients_of_moe_backward(gen, shared):
    ranks, experts, tokens, hidden, ffn = 2, 8, 16, 32, 24
    world = kosmos.World(ranks)
    params = [randn(gen, ranks, tokens, hidden), randn(gen, experts, hidden, scale=0.7),
              randn(gen, ranks, experts // ranks, 2 * ffn, hidden, scale=0.3),
              randn(gen, ranks, experts // ranks, hidden, ffn, scale=0.3)]
    if shared:
        params += [randn(gen, 2 * ffn, hidden, scale=0.3), randn(gen, hidden, ffn, scale=0.3)]
    for p in params:
        p.requires_grad_()
    x, router, w1, w2 = params[:4]
    shared_w = tuple(params[4:]) or (None, None)
    bias = torch.randn(experts, generator=gen) * 0.05
    options = (2, "sigmoid", True, bias, 2, 1, 1.5)
    out = kt.moe_forward(kt.register_world(world), x, router, w1, w2, *options, *shared_w)
    dout = randn(gen, ranks, tokens, hidden)
    out.backward(dout)
    want = world.moe_backward(dout, *(p.detach() for p in params[:4]), topk=2,
                              routing="sigmoid", bias=bias, groups=2, topk_groups=1, scale=1.5,
                              shared=tuple(p.detach() for p in params[4:]) or None)
    # The summed float32 gradients come back in their weights' type (bfloat16).
    wanted = [want["x"], want["router"], want["w1"], want["w2"], *want.get("shared", ())]
    assert len(wanted) == len(params)
    for i, (p, w) in enumerate(zip(params, wanted)):
        assert p.grad.dtype == p.dtype and torch.equal(p.grad, w.to(p.dtype)), i
        assert p.grad.float().abs().sum() > 0, i
    with torch._subclasses.fake_tensor.FakeTensorMode():
        fake = torch.ops.kosmos.moe_backward(
            0, *(torch.empty(t.shape, dtype=t.dtype) for t in [dout, *params[:4]]), 2)
    assert [(f.shape, f.dtype) for f in fake[:4]] == [(w.shape, w.dtype) for w in wanted[:4]]


@needs_cuda
def test_cuda_gemm_runs_on_the_current_stream_without_a_copy(gen):
    m, n, k = 256, 128, 192
    a, b = randn(gen, m, k, device="cuda"), randn(gen, k, n, device="cuda")
    out = torch.full((m, n), float("nan"), device="cuda")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        # Queued behind work of the side stream: the product must wait for b's update.
        b2 = b * 2
        got = kosmos.gemm(a, b2, out=out)
    side.synchronize()
    assert got.data_ptr() == out.data_ptr()
    assert relerr(out, a.double() @ (2 * b.double())) < F32_TOL


@needs_cuda
@pytest.mark.parametrize("a_t,b_t", [(False, False), (True, False)])
def test_cuda_gemm_with_known_operands_queues_without_waiting(gen, a_t, b_t):
    m, n, k = 512, 256, 384
    a, b = randn(gen, m, k, device="cuda"), randn(gen, k, n, device="cuda")
    sa = a.t().contiguous() if a_t else a
    out = torch.empty((m, n), device="cuda")
    kosmos.gemm(sa, b, a_transposed=a_t, out=out)  # makes and keeps the plan of a and b
    torch.cuda.synchronize()
    out.fill_(float("nan"))
    torch.cuda._sleep(1_000_000_000)  # about half a second of GPU time ahead on the stream
    start = time.perf_counter()
    kosmos.gemm(sa, b, a_transposed=a_t, out=out)
    queued = time.perf_counter() - start
    torch.cuda.synchronize()
    waited = time.perf_counter() - start
    assert queued < 0.1 < waited, (queued, waited)
    assert relerr(out, a.double() @ b.double()) < F32_TOL


@needs_cuda
def test_cuda_errors_name_the_device(gen):
    a = randn(gen, 16, 8, device="cuda")
    with pytest.raises(ValueError, match="every argument must be on the same device"):
        kosmos.gemm(a, randn(gen, 8, 16))
    world = kosmos.World(2)
    with pytest.raises(ValueError, match="x: in cuda:0, but the world runs on cpu"):
        world.ag_gemm(randn(gen, 2, 8, 16, device="cuda"), randn(gen, 2, 16, 8))

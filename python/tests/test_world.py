"""The fused tensor-parallel ops and the MoE layer on worlds of ranks emulated on the CPU
device, against float64 NumPy references of the whole world; a lost signal raises
KosmosError naming rank, workgroup and task, and the world recovers."""

import numpy as np
import pytest

import kosmos
from conftest import BF16, BF16_TOL, F32_TOL, bf16, f64, poisoned, relerr

# (ranks, rows per rank, n, k): n and k whole 16-byte rows, ragged row counts.
CASES = [(1, 40, 16, 24), (2, 24, 32, 16), (3, 8, 8, 40)]

# Worlds on the CPU device, and emulated on the first GPU where there is one.
DEVICES = ["cpu", pytest.param("cuda:0", marks=pytest.mark.skipif(
    kosmos.cuda_device_count() == 0, reason="no CUDA GPU"))]


def world(ranks, device="cpu"):
    return kosmos.World(ranks, device, workgroups_per_rank=3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ranks,shard,n,k", CASES)
@pytest.mark.parametrize("w_t,out_dtype", [(False, "float32"), (True, "bfloat16")])
def test_ag_gemm(rng, device, ranks, shard, n, k, w_t, out_dtype):
    x, w = bf16(rng, ranks, shard, k), bf16(rng, ranks, k, n)
    stored = np.ascontiguousarray(w.transpose(0, 2, 1)) if w_t else w
    dtype = np.float32 if out_dtype == "float32" else BF16
    y = poisoned((ranks, ranks * shard, n), dtype)
    assert world(ranks, device).ag_gemm(x, stored, w_transposed=w_t, out=y) is y
    gathered = f64(x).reshape(ranks * shard, k)
    tol = F32_TOL if out_dtype == "float32" else BF16_TOL
    for r in range(ranks):
        assert relerr(y[r], gathered @ f64(w[r])) < tol, f"rank {r}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ranks,shard,n,k", CASES)
@pytest.mark.parametrize("op", ["gemm_rs", "gemm_ar"])
def test_gemm_rs_and_gemm_ar(rng, device, ranks, shard, n, k, op):
    m = ranks * shard
    x, w = bf16(rng, ranks, m, k), bf16(rng, ranks, k, n)
    total = sum(f64(x[r]) @ f64(w[r]) for r in range(ranks))
    w_ = kosmos.World(ranks, device)
    if op == "gemm_rs":
        y = w_.gemm_rs(x, w, out=poisoned((ranks, shard, n), np.float32))
        for r in range(ranks):
            assert relerr(y[r], total[r * shard:(r + 1) * shard]) < F32_TOL, f"rank {r}"
    else:
        y = w_.gemm_ar(x, w, out=poisoned((ranks, m, n), np.float32))
        for r in range(ranks):
            assert relerr(y[r], total) < F32_TOL, f"rank {r}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ranks,shard,n,k", CASES[1:])
def test_backward_passes(rng, device, ranks, shard, n, k):
    m = ranks * shard
    w = bf16(rng, ranks, k, n)
    wd = world(ranks, device)
    # ag_gemm: Y = AllGather(X) W_r, with each rank's own dY.
    x, dy = bf16(rng, ranks, shard, k), bf16(rng, ranks, m, n)
    dx, dw = wd.ag_gemm_backward(dy, x, w, dx=poisoned(x.shape, np.float32),
                                 dw=poisoned(w.shape, np.float32))
    gathered = f64(x).reshape(m, k)
    dx_all = sum(f64(dy[r]) @ f64(w[r]).T for r in range(ranks))
    for r in range(ranks):
        assert relerr(dx[r], dx_all[r * shard:(r + 1) * shard]) < F32_TOL, f"dx rank {r}"
        assert relerr(dw[r], gathered.T @ f64(dy[r])) < F32_TOL, f"dw rank {r}"
    # gemm_rs: Y_r = ReduceScatter(X_r W_r), dY_r is each rank's rows of the gradient.
    x, dy = bf16(rng, ranks, m, k), bf16(rng, ranks, shard, n)
    dx, dw = wd.gemm_rs_backward(dy, x, w, dx=poisoned(x.shape, BF16),
                                 dx_dtype="bfloat16")
    dy_all = f64(dy).reshape(m, n)
    for r in range(ranks):
        assert relerr(dx[r], dy_all @ f64(w[r]).T) < BF16_TOL, f"dx rank {r}"
        assert relerr(dw[r], f64(x[r]).T @ dy_all) < F32_TOL, f"dw rank {r}"


def test_world_ops_refuse_bad_input(rng):
    wd = kosmos.World(2)
    x, w = bf16(rng, 2, 8, 16), bf16(rng, 2, 16, 8)
    with pytest.raises(ValueError, match="x: the leading axis holds the ranks: expected 2"):
        wd.ag_gemm(bf16(rng, 3, 8, 16), w)
    with pytest.raises(TypeError, match="w: expected bfloat16 elements, got float32"):
        wd.ag_gemm(x, w.astype(np.float32))
    with pytest.raises(ValueError, match="x: expected shape"):
        wd.ag_gemm(bf16(rng, 2, 8, 24), w)
    with pytest.raises(ValueError, match="n = 12 must be a multiple of 8"):
        wd.gemm_ar(bf16(rng, 2, 8, 16), bf16(rng, 2, 16, 12))
    with pytest.raises(ValueError, match="not C-contiguous"):
        wd.gemm_rs(bf16(rng, 2, 16, 32)[:, :, ::2], w)
    with pytest.raises(ValueError, match="do not split evenly over 2 ranks"):
        wd.gemm_rs(bf16(rng, 2, 7, 16), w)


def test_device_and_world_failures_are_kosmos_errors():
    missing = kosmos.cuda_device_count()
    with pytest.raises(kosmos.KosmosError, match=f"cuda:{missing}"):
        kosmos.World(2, f"cuda:{missing}")
    with pytest.raises(kosmos.KosmosError, match="tpu:0"):
        kosmos.World(2, "tpu:0")
    with pytest.raises(kosmos.KosmosError, match="rank"):
        kosmos.World(0)
    assert issubclass(kosmos.KosmosError, RuntimeError)


def test_a_lost_signal_raises_naming_rank_workgroup_and_task(rng):
    wd = kosmos.World(2, workgroups_per_rank=2, wait_bound=200)
    x, w = bf16(rng, 2, 40, 24), bf16(rng, 2, 24, 16)
    wd.plant_missing_signal(1, 0)
    with pytest.raises(kosmos.KosmosError) as info:
        wd.ag_gemm(x, w)
    message = str(info.value)
    assert "rank 1 workgroup" in message and "gave up waiting for task" in message, message
    wd.recover()
    wd.synchronize()  # nothing left to report
    y = wd.ag_gemm(x, w, out=poisoned((2, 80, 16), np.float32))
    gathered = f64(x).reshape(80, 24)
    for r in range(2):
        assert relerr(y[r], gathered @ f64(w[r])) < F32_TOL


def silu(v):
    return v / (1.0 + np.exp(-v))


def rounded(v):
    """`v` rounded to bfloat16, as the kernels round their intermediate values."""
    return np.asarray(v).astype(BF16).astype(np.float64)


def gates(logits, routing):
    """The experts' softmax probabilities or sigmoid scores: what the picks are weighted by."""
    if routing["routing"] == "softmax":
        p = np.exp(logits - logits.max())
        return p / p.sum()
    return 1.0 / (1.0 + np.exp(-logits))


def route(logits, topk, routing):
    """One token's picks and weights (docs/moe.md), and the margin by which they won: the gap
    to the next candidate (and, for sigmoid routing, to the next group)."""
    p = gates(logits, routing)
    if routing["routing"] == "softmax":
        order = np.argsort(-p, kind="stable")
        picks = order[:topk]
        weights = p[picks] / (p[picks].sum() if routing["normalize"] else 1.0)
        return picks, weights, p[order[topk - 1]] - p[order[topk]]
    key = p + routing["bias"]
    groups = key.reshape(routing["groups"], -1)
    group_score = np.sort(groups, axis=1)[:, -2:].sum(axis=1)
    group_order = np.argsort(-group_score, kind="stable")
    kept = routing["topk_groups"]
    gap = np.inf
    if kept < len(group_order):
        gap = group_score[group_order[kept - 1]] - group_score[group_order[kept]]
    eligible = np.full_like(key, -np.inf).reshape(groups.shape)
    eligible[group_order[:kept]] = groups[group_order[:kept]]
    eligible = eligible.reshape(-1)
    order = np.argsort(-eligible, kind="stable")
    picks = order[:topk]
    weights = p[picks] / (p[picks].sum() if routing["normalize"] else 1.0) * routing["scale"]
    return picks, weights, min(gap, eligible[order[topk - 1]] - eligible[order[topk]])


def expert_forward(row, w1, w2):
    """One SwiGLU expert on one token, rounded where the kernels round (docs/moe.md): the
    up projection `z` (gate, then up), `h = silu(gate) up` and the output `y`."""
    ffn = w1.shape[0] // 2
    z = rounded(w1 @ row)
    h = rounded(silu(z[:ffn]) * z[ffn:])
    return z, h, rounded(w2 @ h)


def moe_reference(x, router, w1, w2, topk, routing, shared):
    """The layer in float64 (docs/moe.md): routing, SwiGLU experts, the weighted sum of the
    picks plus the shared expert. Also gives each token's routing margin: tokens whose picks
    a rounding could change."""
    ranks, tokens, hidden = x.shape
    experts = router.shape[0]
    w1_all = f64(w1).reshape(experts, -1, hidden)
    w2_all = f64(w2).reshape(experts, hidden, -1)
    out = np.zeros((ranks, tokens, hidden))
    margins = np.zeros((ranks, tokens))
    for r in range(ranks):
        for t in range(tokens):
            row = f64(x[r, t])
            picks, weights, margins[r, t] = route(f64(router) @ row, topk, routing)
            for e, wgt in zip(picks, weights):
                out[r, t] += wgt * expert_forward(row, w1_all[e], w2_all[e])[2]
            if shared is not None:
                out[r, t] += expert_forward(row, f64(shared[0]), f64(shared[1]))[2]
    return out, margins


def expert_backward(row, dout, weight, w1, w2, dw1, dw2):
    """One expert's backward on one token whose output the layer adds `weight` times: adds
    its weights' gradients into `dw1`, `dw2` and gives its part of the token's gradient and
    the gradient of `weight`, `<dout, y>`. `dY` and `dz` are rounded, as the kernels hand
    them to their GEMMs in bfloat16."""
    ffn = w1.shape[0] // 2
    z, h, y = expert_forward(row, w1, w2)
    dy = rounded(weight * dout)
    dh = dy @ w2
    gate, up = z[:ffn], z[ffn:]
    s = 1.0 / (1.0 + np.exp(-gate))
    dz = rounded(np.concatenate([dh * up * s * (1.0 + gate * (1.0 - s)), dh * silu(gate)]))
    dw2 += np.outer(dy, h)
    dw1 += np.outer(dz, row)
    return dz @ w1, dout @ y


def logits_gradient(logits, picks, dweights, routing):
    """The router logits' gradient from that of the picks' weights (the picks fixed): back
    through the scale and normalization, then the softmax over all experts or each pick's
    sigmoid."""
    p = gates(logits, routing)
    raw, scale = p[picks], routing.get("scale", 1.0)
    if routing["normalize"]:
        total = raw.sum()
        draw = scale * (dweights - dweights @ raw / total) / total
    else:
        draw = scale * dweights
    if routing["routing"] == "softmax":
        dlogits = -p * (draw @ raw)
        dlogits[picks] += raw * draw
    else:
        dlogits = np.zeros_like(logits)
        dlogits[picks] = draw * raw * (1.0 - raw)
    return dlogits


def moe_backward_reference(x, dout, router, w1, w2, topk, routing, shared):
    """The layer's gradients in float64 (kosmos-testkernels/src/moe/backward.rs), keyed as
    `World.moe_backward`'s: the router's and the shared expert's summed over every rank's
    tokens. Also each token's routing margin (as `moe_reference`)."""
    ranks, tokens, hidden = x.shape
    experts = router.shape[0]
    router64 = f64(router)
    w1_all = f64(w1).reshape(experts, -1, hidden)
    w2_all = f64(w2).reshape(experts, hidden, -1)
    grads = {"x": np.zeros(x.shape), "router": np.zeros(router.shape),
             "w1": np.zeros(w1_all.shape), "w2": np.zeros(w2_all.shape)}
    if shared is not None:
        shared = (f64(shared[0]), f64(shared[1]))
        grads["shared"] = (np.zeros(shared[0].shape), np.zeros(shared[1].shape))
    margins = np.zeros((ranks, tokens))
    for r in range(ranks):
        for t in range(tokens):
            row, d = f64(x[r, t]), f64(dout[r, t])
            logits = router64 @ row
            picks, weights, margins[r, t] = route(logits, topk, routing)
            dweights = np.zeros(topk)
            for i, (e, wgt) in enumerate(zip(picks, weights)):
                dx, dweights[i] = expert_backward(row, d, wgt, w1_all[e], w2_all[e],
                                                  grads["w1"][e], grads["w2"][e])
                grads["x"][r, t] += dx
            if shared is not None:
                grads["x"][r, t] += expert_backward(row, d, 1.0, *shared, *grads["shared"])[0]
            dlogits = logits_gradient(logits, picks, dweights, routing)
            grads["x"][r, t] += dlogits @ router64
            grads["router"] += np.outer(dlogits, row)
    grads["w1"] = grads["w1"].reshape(w1.shape)
    grads["w2"] = grads["w2"].reshape(w2.shape)
    return grads, margins


ROUTINGS = {
    "softmax": dict(routing="softmax", normalize=True),
    "softmax-raw": dict(routing="softmax", normalize=False),
    "sigmoid": dict(routing="sigmoid", normalize=True, groups=4, topk_groups=2, scale=2.5),
}

# The MoE tests' layer: top-2 of 8 experts, 24 tokens per rank, hidden 64, ffn 48.
EXPERTS, TOPK, TOKENS, HIDDEN, FFN = 8, 2, 24, 64, 48


def moe_layer(rng, ranks, routing, shared):
    """Random tokens and weights (scaled so activations stay near 1), and the routing's
    options: `x, router, w1, w2, shared, options`."""
    local = EXPERTS // ranks
    x = bf16(rng, ranks, TOKENS, HIDDEN)
    router = bf16(rng, EXPERTS, HIDDEN, scale=4 / HIDDEN**0.5)
    w1 = bf16(rng, ranks, local, 2 * FFN, HIDDEN, scale=2 / HIDDEN**0.5)
    w2 = bf16(rng, ranks, local, HIDDEN, FFN, scale=2 / FFN**0.5)
    shared_w = (bf16(rng, 2 * FFN, HIDDEN, scale=2 / HIDDEN**0.5),
                bf16(rng, HIDDEN, FFN, scale=2 / FFN**0.5)) if shared else None
    options = dict(ROUTINGS[routing])
    if options["routing"] == "sigmoid":
        options["bias"] = (rng.standard_normal(EXPERTS) * 0.05).astype(np.float32)
    return x, router, w1, w2, shared_w, options


# Picks that won by less than this may be the f32 router's rounding's choice.
NEAR_TIE = 1e-4


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ranks,shared,routing", [(1, False, "softmax"), (2, True, "softmax-raw"),
                                                  (2, False, "sigmoid"), (2, True, "sigmoid")])
def test_moe_forward_matches_the_float64_reference(rng, device, ranks, shared, routing):
    x, router, w1, w2, shared_w, options = moe_layer(rng, ranks, routing, shared)
    out = kosmos.World(ranks, device).moe_forward(
        x, router, w1, w2, topk=TOPK, shared=shared_w, out=poisoned(x.shape, BF16), **options)
    want, margins = moe_reference(x, router, w1, w2, TOPK, options, shared_w)
    # Tokens whose picks a rounding could change are left out of the comparison.
    clear = margins > NEAR_TIE
    assert clear.mean() > 0.8
    assert relerr(out[clear], want[clear]) < 3e-2


@pytest.mark.parametrize("ranks", [1, 2])
@pytest.mark.parametrize("routing", ["softmax", "sigmoid"])
@pytest.mark.parametrize("shared", [False, True])
def test_moe_backward_matches_the_float64_reference(rng, ranks, routing, shared):
    x, router, w1, w2, shared_w, options = moe_layer(rng, ranks, routing, shared)
    dout = bf16(rng, *x.shape)
    # Every token adds to the weights' gradients, and a token whose picks a rounding could
    # change has other gradients: tokens are drawn again until every pick is clear.
    for _ in range(20):
        want, margins = moe_backward_reference(x, dout, router, w1, w2, TOPK, options, shared_w)
        if (margins > NEAR_TIE).all():
            break
        x = bf16(rng, *x.shape)
    else:
        pytest.fail("20 draws of tokens, each with a near-tie pick")
    out = {"x": poisoned(x.shape, BF16), "router": poisoned(router.shape, np.float32),
           "w1": poisoned(w1.shape, BF16), "w2": poisoned(w2.shape, BF16)}
    if shared:
        out["shared"] = tuple(poisoned(w.shape, np.float32) for w in shared_w)
    got = kosmos.World(ranks, workgroups_per_rank=3).moe_backward(
        dout, x, router, w1, w2, topk=TOPK, shared=shared_w, out=out, **options)
    assert got.keys() == want.keys()
    for name, grad in got.items():
        pairs = zip(grad, want[name]) if name == "shared" else [(grad, want[name])]
        for i, (g, w) in enumerate(pairs):
            assert g is (out[name][i] if name == "shared" else out[name]), name
            # Seen: at most 6e-3 (bfloat16 results, roundings the sums may take otherwise).
            assert relerr(g, w) < 2e-2, f"{name} {i}"


def test_moe_forward_refuses_bad_input(rng):
    wd = kosmos.World(2)
    x, router = bf16(rng, 2, 8, 64), bf16(rng, 8, 64)
    w1, w2 = bf16(rng, 2, 4, 96, 64), bf16(rng, 2, 4, 64, 48)
    with pytest.raises(ValueError, match="bias: sigmoid routing takes a selection bias"):
        wd.moe_forward(x, router, w1, w2, topk=2, routing="sigmoid")
    with pytest.raises(ValueError, match='routing = "top1"'):
        wd.moe_forward(x, router, w1, w2, topk=2, routing="top1")
    with pytest.raises(ValueError, match="w2: expected shape"):
        wd.moe_forward(x, router, w1, bf16(rng, 2, 4, 64, 40), topk=2)
    with pytest.raises(ValueError, match="topk = 9"):
        wd.moe_forward(x, router, w1, w2, topk=9)


def test_moe_backward_refuses_bad_input(rng):
    wd = kosmos.World(2)
    x, router, dout = bf16(rng, 2, 8, 64), bf16(rng, 8, 64), bf16(rng, 2, 8, 64)
    w1, w2 = bf16(rng, 2, 4, 96, 64), bf16(rng, 2, 4, 64, 48)
    with pytest.raises(ValueError, match=r"dout: expected shape \[2, 8, 64\] \(that of x\)"):
        wd.moe_backward(bf16(rng, 2, 8, 32), x, router, w1, w2, topk=2)
    # moe_forward's checks, shared.
    with pytest.raises(ValueError, match="w2: expected shape"):
        wd.moe_backward(dout, x, router, w1, bf16(rng, 2, 4, 64, 40), topk=2)
    with pytest.raises(ValueError, match="bias: only sigmoid routing takes a selection bias"):
        wd.moe_backward(dout, x, router, w1, w2, topk=2, bias=np.zeros(8, np.float32))
    with pytest.raises(ValueError, match="dw1: expected shape"):
        wd.moe_backward(dout, x, router, w1, w2, topk=2,
                        out={"w1": poisoned((2, 4, 96, 32), BF16)})
    with pytest.raises(TypeError, match="d_router: expected float32 elements"):
        wd.moe_backward(dout, x, router, w1, w2, topk=2, out={"router": poisoned((8, 64), BF16)})

"""Worlds whose ranks are processes (`kosmos.JoinedWorld`), with threads standing in for the
processes on the CPU device (whose memory is one process's): each rank passes its own
arrays, the ranks exchange through a threading all-gather, and every rank's results match
float64 NumPy references of the whole world. Bad input raises before any launch; ranks
that diverge raise naming the rank that differs; a lost signal raises naming rank,
workgroup and task on every rank, and the world recovers. The same ops on CUDA tensors in
two processes sharing a GPU: test_processes.py."""

import threading

import numpy as np
import pytest

import kosmos
from conftest import BF16, BF16_TOL, F32_TOL, bf16, f64, poisoned, relerr


class Board:
    """An all-gather between `ranks` threads: every call's messages, by rank."""

    def __init__(self, ranks):
        self.ranks, self.calls, self.cond = ranks, [], threading.Condition()

    def exchange(self, rank):
        count = [0]

        def all_gather(mine):
            with self.cond:
                call = count[0]
                while len(self.calls) <= call:
                    self.calls.append([None] * self.ranks)
                self.calls[call][rank] = bytes(mine)
                self.cond.notify_all()
                assert self.cond.wait_for(lambda: None not in self.calls[call], timeout=60)
                count[0] += 1
                return list(self.calls[call])

        return all_gather


def on_ranks(ranks, body, **options):
    """Runs `body(world, rank)` on `ranks` threads, each with its own joined world (closed
    after); gives their results by rank (re-raising the first exception)."""
    board, results, errors = Board(ranks), [None] * ranks, [None] * ranks

    def run(rank):
        try:
            with kosmos.JoinedWorld(rank, ranks, "cpu", board.exchange(rank),
                                    workgroups_per_rank=2, **options) as world:
                results[rank] = body(world, rank)
        except BaseException as e:  # handed to the test's thread
            errors[rank] = e

    threads = [threading.Thread(target=run, args=(r,)) for r in range(ranks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
        assert not t.is_alive(), "a rank did not finish"
    for e in errors:
        if e is not None:
            raise e
    return results


# (ranks, rows per rank, n, k): ragged row counts.
CASES = [(2, 24, 32, 16), (3, 8, 8, 40)]


@pytest.mark.parametrize("ranks,shard,n,k", CASES)
@pytest.mark.parametrize("w_t,out_dtype", [(False, "float32"), (True, "bfloat16")])
def test_fused_ops(rng, ranks, shard, n, k, w_t, out_dtype):
    m = ranks * shard
    xs, ws = bf16(rng, ranks, m, k), bf16(rng, ranks, k, n)
    dtype = np.float32 if out_dtype == "float32" else BF16
    tol = F32_TOL if out_dtype == "float32" else BF16_TOL

    def body(world, r):
        stored = np.ascontiguousarray(ws[r].T) if w_t else ws[r]
        y_ag = poisoned((m, n), dtype)
        got = world.ag_gemm(xs[0][r * shard:(r + 1) * shard], stored, w_transposed=w_t,
                            out=y_ag, gathered=True)
        assert got[0] is y_ag
        y_rs = world.gemm_rs(xs[r], stored, w_transposed=w_t,
                             out=poisoned((shard, n), dtype))
        y_ar = world.gemm_ar(xs[r], ws[r], out=poisoned((m, n), np.float32))
        return got[1], y_ag, y_rs, y_ar

    results = on_ranks(ranks, body)
    total = sum(f64(xs[r]) @ f64(ws[r]) for r in range(ranks))
    for r, (gathered, y_ag, y_rs, y_ar) in enumerate(results):
        assert (gathered.view(np.uint16) == xs[0].view(np.uint16)).all(), f"rank {r}"
        assert relerr(y_ag, f64(xs[0]) @ f64(ws[r])) < tol, f"ag_gemm rank {r}"
        assert relerr(y_rs, total[r * shard:(r + 1) * shard]) < tol, f"gemm_rs rank {r}"
        assert relerr(y_ar, total) < F32_TOL, f"gemm_ar rank {r}"
        assert (y_ar == results[0][3]).all(), "gemm_ar: ranks differ"


@pytest.mark.parametrize("ranks,shard,n,k", CASES)
def test_backward_passes(rng, ranks, shard, n, k):
    m = ranks * shard
    x, ws = bf16(rng, m, k), bf16(rng, ranks, k, n)
    dys = bf16(rng, ranks, m, n)

    def body(world, r):
        # ag_gemm: dx = ReduceScatter(dy_r w_r^T), dw_r = X^T dy_r.
        dx_ag, dw_ag = world.ag_gemm_backward(dys[r], x, ws[r],
                                              dx=poisoned((shard, k), np.float32),
                                              dw=poisoned((k, n), np.float32))
        # gemm_rs: dY = AllGather(dy rows); dx_r = dY w_r^T, dw_r = x_r^T dY.
        own = dys[0][r * shard:(r + 1) * shard]
        dx_rs, dw_rs = world.gemm_rs_backward(own, x, ws[r])
        return dx_ag, dw_ag, dx_rs, dw_rs

    results = on_ranks(ranks, body)
    dx_sum = sum(f64(dys[r]) @ f64(ws[r]).T for r in range(ranks))
    for r, (dx_ag, dw_ag, dx_rs, dw_rs) in enumerate(results):
        assert relerr(dx_ag, dx_sum[r * shard:(r + 1) * shard]) < F32_TOL, f"rank {r}"
        assert relerr(dw_ag, f64(x).T @ f64(dys[r])) < F32_TOL, f"rank {r}"
        assert relerr(dx_rs, f64(dys[0]) @ f64(ws[r]).T) < F32_TOL, f"rank {r}"
        assert relerr(dw_rs, f64(x).T @ f64(dys[0])) < F32_TOL, f"rank {r}"


@pytest.mark.parametrize("ranks,shard,n,k", CASES)
def test_symmetric_arrays_are_used_in_place(rng, ranks, shard, n, k):
    m = ranks * shard
    x, ws, dys = bf16(rng, m, k), bf16(rng, ranks, k, n), bf16(rng, ranks, m, n)

    def body(world, r):
        rows = slice(r * shard, (r + 1) * shard)
        # ag_gemm gathers into the symmetric input itself: its peers' rows arrive there.
        gathered = world.empty((m, k))
        own = gathered.rows(rows.start, rows.stop).copy_(x[rows])
        w = world.empty((k, n)).copy_(ws[r])
        y = world.empty((m, n), "float32").copy_(poisoned((m, n), np.float32))
        assert world.ag_gemm(own, w, out=y) is y
        # gemm_rs: symmetric input, weight and result.
        x_sym = world.empty((m, k)).copy_(x)
        y_rs = world.empty((shard, n), "bfloat16").copy_(poisoned((shard, n), BF16))
        world.gemm_rs(x_sym, w, out=y_rs)
        # gemm_rs's backward gathers dy into the symmetric array of which it gets a rank's rows.
        dy = world.empty((m, n))
        dy.rows(rows.start, rows.stop).copy_(dys[0][rows])
        dw = world.empty((k, n), "float32").copy_(poisoned((k, n), np.float32))
        dx, got = world.gemm_rs_backward(dy.rows(rows.start, rows.stop), x_sym, w, dw=dw)
        assert got is dw  # written in place by the rank's local GEMM
        return gathered.numpy(), y.numpy(), y_rs.numpy(), dy.numpy(), dx, dw.numpy()

    results = on_ranks(ranks, body)
    total = sum(f64(x) @ f64(ws[r]) for r in range(ranks))
    for r, (gathered, y, y_rs, dy, dx, dw) in enumerate(results):
        assert (gathered.view(np.uint16) == x.view(np.uint16)).all(), f"rank {r}"
        assert relerr(y, f64(x) @ f64(ws[r])) < F32_TOL, f"ag_gemm rank {r}"
        assert relerr(y_rs, total[r * shard:(r + 1) * shard]) < BF16_TOL, f"gemm_rs rank {r}"
        assert (dy.view(np.uint16) == dys[0].view(np.uint16)).all(), f"rank {r}"
        assert relerr(dx, f64(dys[0]) @ f64(ws[r]).T) < F32_TOL, f"dx rank {r}"
        assert relerr(dw, f64(x).T @ f64(dys[0])) < F32_TOL, f"dw rank {r}"


def test_symmetric_operands_sharing_memory_give_the_right_answer(rng):
    m, k = 256, 256  # several tiles, some reading rows others have written
    x, w = bf16(rng, m, k), bf16(rng, k, k)

    def body(world, r):
        a = world.empty((m, k)).copy_(x)
        # The result into the op's own input: staged, so the launch reads x unchanged.
        world.gemm_ar(a, world.empty((k, k)).copy_(w), out=a)
        return a.numpy()

    for r, y in enumerate(on_ranks(2, body)):
        assert relerr(y, 2 * (f64(x) @ f64(w))) < BF16_TOL, f"rank {r}"


def test_symmetric_arrays_refuse_misuse(rng):
    def body(world, r):
        a = world.empty((16, 24))
        messages = []
        for call, error in [
            (lambda: world.empty((4, 4), "float16"), ValueError),
            (lambda: a.rows(8, 20), ValueError),
            (lambda: a.copy_(bf16(rng, 16, 8)), ValueError),
            (lambda: world.gemm_ar(bf16(rng, 16, 24), world.empty((24, 8), "float32")),
             TypeError),
            (lambda: a.__dlpack__(), TypeError),
        ]:
            with pytest.raises(error) as info:
                call()
            messages.append(str(info.value))
        return messages, a

    results = on_ranks(2, body)
    for messages, _ in results:
        assert "float16" in messages[0], messages[0]
        assert "outside" in messages[1], messages[1]
        assert "shape" in messages[2], messages[2]
        assert messages[3].startswith("w: expected bfloat16"), messages[3]
        assert "interpreter" in messages[4], messages[4]

    # An array of one world is not an operand of another.
    def foreign(world, r):
        with pytest.raises(ValueError, match="another world"):
            world.gemm_ar(bf16(rng, 16, 24), results[r][1])
        return True

    assert on_ranks(2, foreign) == [True, True]


def test_bad_input_raises_before_launch(rng):
    x, w = bf16(rng, 16, 24), bf16(rng, 24, 16)

    def body(world, r):
        messages = []
        for call, error in [
            (lambda: world.gemm_rs(x.astype(np.float32), w), TypeError),
            (lambda: world.gemm_rs(x, w[:8]), ValueError),
            (lambda: world.gemm_rs(x[::2], w), ValueError),
            (lambda: world.ag_gemm(x, w, out=np.zeros((16, 16), np.float32)), ValueError),
            (lambda: world.gemm_rs(bf16(rng, 15, 24), w), ValueError),
        ]:
            with pytest.raises(error) as info:
                call()
            messages.append(str(info.value))
        return messages

    def closed(world, r):
        world.close()
        with pytest.raises(ValueError, match="closed"):
            world.gemm_rs(x, w)
        return repr(world)

    assert on_ranks(2, closed) == [f"JoinedWorld(rank {r} of 2 on cpu, closed)" for r in (0, 1)]
    for messages in on_ranks(2, body):
        assert "float32" in messages[0] and "x" in messages[0], messages[0]
        assert messages[1].startswith("x:") or messages[1].startswith("w:"), messages[1]
        assert "contiguous" in messages[2] or "stride" in messages[2], messages[2]
        assert messages[3].startswith("y:"), messages[3]
        assert "ranks" in messages[4], messages[4]


def test_ranks_that_diverge_raise_naming_the_rank(rng):
    w = bf16(rng, 24, 16)

    def body(world, r):
        # Rank 1 passes more rows than rank 0: their buffers differ.
        with pytest.raises(kosmos.KosmosError) as info:
            world.gemm_ar(bf16(rng, 16 + 8 * r, 24), w)
        return str(info.value)

    for r, message in enumerate(on_ranks(2, body)):
        assert f"rank {r}: rank {1 - r} differs (allocation)" in message, message


def test_a_lost_signal_raises_on_every_rank_and_the_world_recovers(rng):
    m, n, k = 80, 16, 24
    x, w = bf16(rng, m, k), bf16(rng, k, n)

    def body(world, r):
        shard = x[r * m // 2:(r + 1) * m // 2]
        world.plant_missing_signal(1, 0)
        with pytest.raises(kosmos.KosmosError) as info:
            world.ag_gemm(shard, w)
        world.recover()
        return str(info.value), world.ag_gemm(shard, w, out=poisoned((m, n), np.float32))

    results = on_ranks(2, body, wait_bound=200)
    assert "rank 1 workgroup" in results[1][0], results[1][0]
    for r, (_, y) in enumerate(results):
        assert relerr(y, f64(x) @ f64(w)) < F32_TOL, f"rank {r} after recover"


@pytest.mark.parametrize("in_place", [False, True], ids=["staged", "symmetric"])
def test_moe_layer_matches_an_emulated_world_bitwise(rng, in_place):
    from test_world import TOPK, moe_layer

    ranks = 2
    x, router, w1, w2, shared, options = moe_layer(rng, ranks, "sigmoid", True)
    dout = bf16(rng, *x.shape)
    emulated = kosmos.World(ranks, workgroups_per_rank=2)
    want_out = emulated.moe_forward(x, router, w1, w2, topk=TOPK, shared=shared, **options)
    want = emulated.moe_backward(dout, x, router, w1, w2, topk=TOPK, shared=shared, **options)

    def body(world, r):
        def put(a, dtype="bfloat16"):
            return world.empty(a.shape, dtype).copy_(a) if in_place else a

        layer = [put(x[r]), put(router), put(w1[r]), put(w2[r])]
        opts = dict(options, bias=put(options["bias"], "float32"))
        pair = (put(shared[0]), put(shared[1]))
        out = world.moe_forward(*layer, topk=TOPK, shared=pair,
                                out=put(poisoned(x[r].shape, BF16)), **opts)
        given = {"x": put(poisoned(x[r].shape, BF16)), "w1": put(poisoned(w1[r].shape, BF16)),
                 "router": put(poisoned(router.shape, np.float32), "float32")}
        grads = world.moe_backward(put(dout[r]), *layer, topk=TOPK, shared=pair, out=given,
                                   **opts)
        if in_place:  # the results are in the symmetric arrays
            out = out.numpy()
            grads = {k: v.numpy() if hasattr(v, "numpy") else v for k, v in grads.items()}
        return out, grads

    results = on_ranks(ranks, body)

    def bits(a):
        return a.view(np.uint16) if a.dtype == BF16 else a.view(np.uint32)

    for r, (out, grads) in enumerate(results):
        assert (bits(out) == bits(want_out[r])).all(), f"out, rank {r}"
        for name in ("x", "w1", "w2"):
            assert (bits(grads[name]) == bits(want[name][r])).all(), f"{name}, rank {r}"
    # The replicated weights' gradients: each rank's part, summed in rank order as the
    # emulated world sums them.
    router_sum = np.float32(0) + sum(g["router"] for _, g in results)
    assert (bits(router_sum) == bits(want["router"])).all(), "router"
    for i in range(2):
        part_sum = np.float32(0) + sum(g["shared"][i].astype(np.float32) for _, g in results)
        assert (bits(part_sum) == bits(want["shared"][i])).all(), f"shared {i}"


def test_a_failing_exchange_raises_naming_the_rank():
    def unreachable(mine):
        raise RuntimeError("the store is unreachable")

    with pytest.raises(kosmos.KosmosError, match=r"rank 0: the exchange of the world's "
                       r"processes failed \(join\): .*the store is unreachable"):
        kosmos.JoinedWorld(0, 2, "cpu", unreachable)
    with pytest.raises(kosmos.KosmosError, match="the exchange gave 1 messages for 2 ranks"):
        kosmos.JoinedWorld(1, 2, "cpu", lambda mine: [mine])
    with pytest.raises(kosmos.KosmosError, match="must return a list of bytes"):
        kosmos.JoinedWorld(0, 1, "cpu", lambda mine: 7)

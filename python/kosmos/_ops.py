"""The ops on numpy arrays and torch tensors: outputs allocated here, work done by the
native layer (kosmos._native). docs/python.md describes the API."""

from kosmos import _native
from kosmos._arrays import empty, native, stream_of


def _out(given, like, shape, dtype):
    """The caller's output array (checked by the native layer), else a new one."""
    return empty(like, shape, dtype) if given is None else given


def gemm(a, b, *, a_transposed=False, b_transposed=False, out=None, out_dtype="float32"):
    """`op(a) @ op(b)` with f32 accumulation: `a` is `m x k` (`k x m` if `a_transposed`),
    `b` `k x n` (`n x k` if `b_transposed`), both bfloat16; the result is `m x n`,
    `out_dtype` ("float32" or "bfloat16") or written into `out`. Host arrays run on the CPU
    device; CUDA tensors on their GPU, on the current stream, without a copy."""
    a_native, b_native = native(a, "a"), native(b, "b")
    m = a.shape[1] if a_transposed else a.shape[0]
    n = b.shape[0] if b_transposed else b.shape[1]
    out = _out(out, a, (m, n), out_dtype)
    _native.gemm(a_native, b_native, native(out, "c"), a_transposed, b_transposed,
                 stream_of(a, b, out))
    return out


def _moe_layer(x, router, w1, w2, topk, routing, normalize, bias, groups, topk_groups, scale,
               shared, capacity):
    """The MoE layer's inputs and options as the native methods take them: a dict."""
    shared_w1, shared_w2 = shared if shared is not None else (None, None)
    return dict(x=native(x, "x"), router=native(router, "router"), w1=native(w1, "w1"),
                w2=native(w2, "w2"), topk=topk, routing=routing, normalize=normalize,
                bias=None if bias is None else native(bias, "bias"), groups=groups,
                topk_groups=topk_groups, scale=scale,
                shared_w1=None if shared_w1 is None else native(shared_w1, "shared_w1"),
                shared_w2=None if shared_w2 is None else native(shared_w2, "shared_w2"),
                capacity=capacity)


def _moe_gradients(out, x, router, w1, w2, shared, shared_dtype):
    """The MoE backward pass's gradient arrays: the caller's (`out`, a dict) or new ones, the
    shared expert's in `shared_dtype`; and the shared expert's as the native layer takes
    them (None without one)."""
    out = out or {}
    grads = {"x": _out(out.get("x"), x, x.shape, "bfloat16"),
             "router": _out(out.get("router"), x, router.shape, "float32"),
             "w1": _out(out.get("w1"), x, w1.shape, "bfloat16"),
             "w2": _out(out.get("w2"), x, w2.shape, "bfloat16")}
    d_shared = (None, None)
    if shared is not None:
        grads["shared"] = tuple(_out(given, x, w.shape, shared_dtype)
                                for given, w in zip(out.get("shared", (None, None)), shared))
        d_shared = (native(grads["shared"][0], "d_shared_w1"),
                    native(grads["shared"][1], "d_shared_w2"))
    return grads, d_shared


def _moe_forward(world, x, router, w1, w2, topk, routing, normalize, bias, groups,
                 topk_groups, scale, shared, capacity, out):
    """`moe_forward` on a native world (either kind): the output allocated unless given."""
    out = _out(out, x, x.shape, "bfloat16")
    layer = _moe_layer(x, router, w1, w2, topk, routing, normalize, bias, groups, topk_groups,
                       scale, shared, capacity)
    world.moe_forward(layer, native(out, "out"), stream_of(x, w1, out))
    return out


def _moe_backward(world, dout, x, router, w1, w2, topk, routing, normalize, bias, groups,
                  topk_groups, scale, shared, capacity, out, shared_dtype):
    """`moe_backward` on a native world (either kind): the gradients as a dict, the shared
    expert's in `shared_dtype`."""
    grads, d_shared = _moe_gradients(out, x, router, w1, w2, shared, shared_dtype)
    layer = _moe_layer(x, router, w1, w2, topk, routing, normalize, bias, groups, topk_groups,
                       scale, shared, capacity)
    world.moe_backward(
        layer, native(dout, "dout"), native(grads["x"], "dx"),
        native(grads["router"], "d_router"), native(grads["w1"], "dw1"),
        native(grads["w2"], "dw2"), *d_shared, stream=stream_of(dout, x, w1))
    return grads


class World:
    """A world of `ranks` ranks emulated on one device ("cpu" or "cuda:N"), running the fused
    tensor-parallel ops and the MoE layer. Per-rank tensors are stacked over a leading axis
    of `ranks`: host arrays (numpy, torch CPU), or CUDA tensors on the world's GPU (staged by
    device copies on the current stream, through buffers the world keeps for the shapes);
    each call stages them in, runs and returns the results: new arrays of the inputs' kind,
    or the `out` (`dx`, `dw`) arrays given. Host results are copied back after waiting for
    the world (where a bounded wait that gave up raises KosmosError naming rank, workgroup
    and task); CUDA results are queued on the current stream without a host wait, and
    `synchronize` raises such failures (`moe_backward` waits: it sums the replicated
    weights' gradients on the host)."""

    def __init__(self, ranks, device="cpu", *, workgroups_per_rank=None, wait_bound=None,
                 host_wait_seconds=None):
        self._world = _native.World(ranks, device, workgroups_per_rank, wait_bound,
                                    host_wait_seconds)
        self.ranks = ranks

    def __repr__(self):
        return repr(self._world)

    @property
    def device(self):
        return self._world.device

    def ag_gemm(self, x, w, *, w_transposed=False, out=None, out_dtype="float32"):
        """`AllGather(x) @ op(w_r)`: `x` is `R x m/R x k` (each rank's rows), `w` `R x k x n`
        (`R x n x k` if `w_transposed`); gives `R x m x n` (the same product on every rank
        but for its own weights)."""
        n = w.shape[1] if w_transposed else w.shape[2]
        y = _out(out, x, (self.ranks, x.shape[1] * self.ranks, n), out_dtype)
        self._world.ag_gemm(native(x, "x"), native(w, "w"), native(y, "y"), w_transposed,
                            stream_of(x, w, y))
        return y

    def gemm_rs(self, x, w, *, w_transposed=False, out=None, out_dtype="float32"):
        """`ReduceScatter(x_r @ op(w_r))`: `x` is `R x m x k`, `w` `R x k x n` (`R x n x k`
        if `w_transposed`); gives `R x m/R x n`, summed over the ranks in rank order."""
        n = w.shape[1] if w_transposed else w.shape[2]
        y = _out(out, x, (self.ranks, x.shape[1] // self.ranks, n), out_dtype)
        self._world.gemm_rs(native(x, "x"), native(w, "w"), native(y, "y"), w_transposed,
                            stream_of(x, w, y))
        return y

    def gemm_ar(self, x, w, *, out=None, out_dtype="float32"):
        """`AllReduce(x_r @ w_r)`: `x` is `R x m x k`, `w` `R x k x n`; gives `R x m x n`."""
        y = _out(out, x, (self.ranks, x.shape[1], w.shape[2]), out_dtype)
        self._world.gemm_ar(native(x, "x"), native(w, "w"), native(y, "y"), stream_of(x, w, y))
        return y

    def ag_gemm_backward(self, dy, x, w, *, dx=None, dw=None, dx_dtype="float32"):
        """Gradients of `ag_gemm` (`w` as `R x k x n`): `dx` (`R x m/R x k`, reduce-scattered)
        and `dw` (`R x k x n`, float32) from `dy` (`R x m x n`)."""
        dx = _out(dx, x, x.shape, dx_dtype)
        dw = _out(dw, x, w.shape, "float32")
        self._world.ag_gemm_backward(native(dy, "dy"), native(x, "x"), native(w, "w"),
                                     native(dx, "dx"), native(dw, "dw"), stream_of(dy, x, w))
        return dx, dw

    def gemm_rs_backward(self, dy, x, w, *, dx=None, dw=None, dx_dtype="float32"):
        """Gradients of `gemm_rs` (`w` as `R x k x n`): `dx` (`R x m x k`) and `dw`
        (`R x k x n`, float32) from `dy` (`R x m/R x n`, each rank's rows)."""
        dx = _out(dx, x, x.shape, dx_dtype)
        dw = _out(dw, x, w.shape, "float32")
        self._world.gemm_rs_backward(native(dy, "dy"), native(x, "x"), native(w, "w"),
                                     native(dx, "dx"), native(dw, "dw"), stream_of(dy, x, w))
        return dx, dw

    def moe_forward(self, x, router, w1, w2, *, topk, routing="softmax", normalize=True,
                    bias=None, groups=1, topk_groups=1, scale=1.0, shared=None,
                    capacity=None, out=None):
        """The MoE layer's forward pass (kernels::MoeLayer), in PyTorch's `out x in` weight
        layout: `x` `R x tokens x hidden`, `router` `experts x hidden`, `w1`
        `R x experts/R x 2 ffn x hidden` (gate rows, then up rows), `w2`
        `R x experts/R x hidden x ffn`, all bfloat16; `bias` (`experts`, float32) for
        `routing="sigmoid"`; `shared` = (`2 ffn x hidden`, `hidden x ffn`) for a shared
        expert. Gives `R x tokens x hidden` bfloat16."""
        return _moe_forward(self._world, x, router, w1, w2, topk, routing, normalize, bias,
                            groups, topk_groups, scale, shared, capacity, out)

    def moe_backward(self, dout, x, router, w1, w2, *, topk, routing="softmax", normalize=True,
                     bias=None, groups=1, topk_groups=1, scale=1.0, shared=None,
                     capacity=None, out=None):
        """The gradients of `moe_forward` (the same arguments) from the output's gradient
        `dout` (`R x tokens x hidden` bfloat16), as a dict keyed by argument: `"x"`, `"w1"`,
        `"w2"` in their shapes, bfloat16; `"router"` (`experts x hidden`) and, with a shared
        expert, `"shared"` (a pair like `shared`), float32: the gradients of the weights
        every rank holds alike, summed over the ranks. The bias gets none (it only selects).
        Nothing is kept between calls: the forward pass runs again first. `out`: a dict of
        arrays to write (any of those keys) instead of new ones."""
        return _moe_backward(self._world, dout, x, router, w1, w2, topk, routing, normalize,
                             bias, groups, topk_groups, scale, shared, capacity, out, "float32")

    def plant_missing_signal(self, rank, task):
        """Makes the next `ag_gemm` lose one signal (a test of the bounded waits): it raises
        KosmosError naming rank, workgroup and task; then call `recover`."""
        self._world.plant_missing_signal(rank, task)

    def synchronize(self):
        """Waits for the world's queued work; raises KosmosError for what the kernels
        recorded (a wait that gave up names rank, workgroup and task). Calls on CUDA
        tensors do not wait: this is where their failures are reported."""
        self._world.synchronize()

    def recover(self):
        """Makes the ops usable again after a wait gave up."""
        self._world.recover()


class SymmetricArray:
    """This rank's part of a symmetric buffer of a `JoinedWorld` (`JoinedWorld.empty`): the
    fused ops use it in place, with no staging copy. On CUDA it is a DLPack producer:
    `torch.from_dlpack(a)` is a tensor on its memory (a layer's weight, say), and the ops
    recognise tensors on that memory too. On the CPU device its memory is the interpreter's:
    pass the array itself, and move data with `copy_` and `numpy`."""

    def __init__(self, symmetric):
        self._symmetric = symmetric

    def __repr__(self):
        return repr(self._symmetric)

    @property
    def shape(self):
        return tuple(self._symmetric.shape)

    @property
    def dtype(self):
        return self._symmetric.dtype

    @property
    def device(self):
        """"cpu" (the CPU device) or "cuda:N"."""
        return self._symmetric.device

    def __dlpack__(self, **kwargs):
        return self._symmetric.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._symmetric.__dlpack_device__()

    def rows(self, start, stop):
        """Rows `start:stop` of a 2-D array, on the same memory: e.g. this rank's rows of a
        gathered `ag_gemm` input, which the op then gathers in place."""
        return SymmetricArray(self._symmetric.rows(start, stop))

    def copy_(self, src):
        """Copies `src` (this shape and dtype, where the world runs) into the array; on CUDA
        queued on the current stream. Gives the array."""
        self._symmetric.copy_in(native(src, "src"), stream_of(src))
        return self

    def numpy(self):
        """The array's contents as a new host array (CPU-device worlds)."""
        out = empty(None, self.shape, self.dtype)
        self._symmetric.copy_out(native(out, "dst"), 0)
        return out


class JoinedWorld:
    """This process's rank `rank` of a world of `ranks` processes (one per GPU under
    `torchrun`, or several sharing a GPU), joined through `exchange`: a callable that takes
    this process's `bytes` and returns every rank's, in rank order (`kosmos.torch.
    join_process_group` passes `torch.distributed.all_gather_object`). The processes map each
    other's symmetric buffers (CUDA IPC); every process makes the same calls in the same
    order, and ends the world with `close` (or a `with` block) before it exits: peers read
    its memory until every process is done. The ops take this rank's arrays: CUDA tensors
    queue on the current stream without a host wait (`synchronize` raises what the kernels
    recorded); host arrays run on the CPU device (threads standing in for processes), each
    call waiting for the world."""

    def __init__(self, rank, ranks, device, exchange, *, workgroups_per_rank=None,
                 wait_bound=None, host_wait_seconds=None):
        self._world = _native.JoinedWorld(rank, ranks, device, exchange, workgroups_per_rank,
                                          wait_bound, host_wait_seconds)
        self.rank, self.ranks = rank, ranks

    def __repr__(self):
        return repr(self._world)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def device(self):
        return self._world.device

    def close(self):
        """Waits for this rank's work and for every process to close, then frees the world
        (collective); the ops refuse to run after."""
        self._world.close()

    def empty(self, shape, dtype="bfloat16"):
        """A `SymmetricArray` of `shape` and `dtype` ("bfloat16" or "float32"), zero-filled:
        operands the fused ops use in place. Collective: every process calls it alike; it
        waits for the world, and gives back the memory of arrays every rank has dropped."""
        return SymmetricArray(self._world.empty(list(shape), dtype))

    def ag_gemm(self, x, w, *, w_transposed=False, out=None, out_dtype="float32",
                gathered=False):
        """`AllGather(x) @ op(w)`: `x` is this rank's `m/R x k` rows, `w` `k x n` (`n x k` if
        `w_transposed`); gives `m x n`, and with `gathered=True` also the gathered input
        (`m x k` bfloat16, what `ag_gemm_backward` takes) as a pair."""
        n = w.shape[0] if w_transposed else w.shape[1]
        m = x.shape[0] * self.ranks
        y = _out(out, x, (m, n), out_dtype)
        g = empty(x, (m, x.shape[1]), "bfloat16") if gathered else None
        self._world.ag_gemm(native(x, "x"), native(w, "w"), native(y, "y"), w_transposed,
                            None if g is None else native(g, "gathered"), stream_of(x, w, y))
        return (y, g) if gathered else y

    def gemm_rs(self, x, w, *, w_transposed=False, out=None, out_dtype="float32"):
        """`ReduceScatter(x @ op(w))`: `x` `m x k`, `w` `k x n` (`n x k` if `w_transposed`);
        gives this rank's `m/R x n` rows of the sum over the ranks (in rank order)."""
        n = w.shape[0] if w_transposed else w.shape[1]
        y = _out(out, x, (x.shape[0] // self.ranks, n), out_dtype)
        self._world.gemm_rs(native(x, "x"), native(w, "w"), native(y, "y"), w_transposed,
                            stream_of(x, w, y))
        return y

    def gemm_ar(self, x, w, *, out=None, out_dtype="float32"):
        """`AllReduce(x @ w)`: `x` `m x k`, `w` `k x n`; gives `m x n`, the same on every
        rank."""
        y = _out(out, x, (x.shape[0], w.shape[1]), out_dtype)
        self._world.gemm_ar(native(x, "x"), native(w, "w"), native(y, "y"), stream_of(x, w, y))
        return y

    def ag_gemm_backward(self, dy, gathered, w, *, dx=None, dw=None, dx_dtype="float32"):
        """Gradients of `ag_gemm` (`w` as `k x n`) from `dy` (`m x n`) and the gathered input
        (`m x k`): `dx` (this rank's `m/R x k`, reduce-scattered) and `dw` (`k x n`,
        float32)."""
        dx = _out(dx, dy, (gathered.shape[0] // self.ranks, gathered.shape[1]), dx_dtype)
        dw = _out(dw, dy, w.shape, "float32")
        self._world.ag_gemm_backward(native(dy, "dy"), native(gathered, "x"), native(w, "w"),
                                     native(dx, "dx"), native(dw, "dw"),
                                     stream_of(dy, gathered, w))
        return dx, dw

    def gemm_rs_backward(self, dy, x, w, *, dx=None, dw=None, dx_dtype="float32"):
        """Gradients of `gemm_rs` (`w` as `k x n`) from `dy` (this rank's `m/R x n` rows) and
        the forward pass's `x` (`m x k`): `dx` (`m x k`) and `dw` (`k x n`, float32)."""
        dx = _out(dx, dy, x.shape, dx_dtype)
        dw = _out(dw, dy, w.shape, "float32")
        self._world.gemm_rs_backward(native(dy, "dy"), native(x, "x"), native(w, "w"),
                                     native(dx, "dx"), native(dw, "dw"), stream_of(dy, x, w))
        return dx, dw

    def moe_forward(self, x, router, w1, w2, *, topk, routing="softmax", normalize=True,
                    bias=None, groups=1, topk_groups=1, scale=1.0, shared=None,
                    capacity=None, out=None):
        """The MoE layer's forward pass on this rank, as `World.moe_forward` with this rank's
        arrays: `x` `tokens x hidden`, `w1` `experts/R x 2 ffn x hidden`, `w2`
        `experts/R x hidden x ffn`; `router`, `bias` and `shared` every rank's alike. Gives
        `tokens x hidden` bfloat16."""
        return _moe_forward(self._world, x, router, w1, w2, topk, routing, normalize, bias,
                            groups, topk_groups, scale, shared, capacity, out)

    def moe_backward(self, dout, x, router, w1, w2, *, topk, routing="softmax", normalize=True,
                     bias=None, groups=1, topk_groups=1, scale=1.0, shared=None,
                     capacity=None, out=None):
        """The gradients of `moe_forward` on this rank from `dout` (`tokens x hidden`
        bfloat16), as a dict: `"x"`, `"w1"`, `"w2"` (bfloat16, this rank's), and this rank's
        part of the gradients of the weights every rank holds, to be summed over the ranks
        like any replicated parameter's: `"router"` (float32) and, with a shared expert,
        `"shared"` (a bfloat16 pair). Runs the forward pass again first."""
        return _moe_backward(self._world, dout, x, router, w1, w2, topk, routing, normalize,
                             bias, groups, topk_groups, scale, shared, capacity, out, "bfloat16")

    def synchronize(self):
        """Waits for this rank's queued work; raises KosmosError for what the kernels
        recorded (a wait that gave up names rank, workgroup and task). Collective."""
        self._world.synchronize()

    def plant_missing_signal(self, rank, task):
        """Makes the next `ag_gemm` lose one signal of rank `rank` (a test of the bounded
        waits); every process calls it alike."""
        self._world.plant_missing_signal(rank, task)

    def recover(self):
        """Makes the ops usable again after a wait gave up (collective)."""
        self._world.recover()

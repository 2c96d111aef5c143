"""PyTorch integration: the ops as torch custom ops (`torch.ops.kosmos.*`, with fake
implementations so `torch.compile` traces them), autograd for `gemm`, the fused
tensor-parallel ops and the MoE layer, and drop-in modules (tensor-parallel linear layers, an
expert-parallel MoE layer). Importing this module needs torch; the rest of `kosmos` does not.

World ops take a world by the id `register_world` gives (custom ops take tensors and
scalars only): a `kosmos.World` of emulated ranks (tensors stacked by rank), or a
`kosmos.JoinedWorld`, this process's rank of a world of processes (this rank's tensors;
`join_process_group` makes one from a `torch.distributed` process group)."""

import itertools
from typing import Optional, Tuple

import torch
from torch import Tensor

from kosmos import _native
from kosmos._ops import JoinedWorld, World

__all__ = ["gemm", "ag_gemm", "ag_gemm_gathered", "gemm_rs", "gemm_ar", "moe_forward",
           "moe_backward", "register_world", "join_process_group", "ColumnParallelLinear",
           "RowParallelLinear", "MoELayer"]


def _stream(t):
    return torch.cuda.current_stream(t.device).cuda_stream if t.is_cuda else 0


def _out_dtype(bf16_out):
    return torch.bfloat16 if bf16_out else torch.float32


def _gemm_shape(a, b, a_transposed, b_transposed):
    m = a.shape[1] if a_transposed else a.shape[0]
    n = b.shape[0] if b_transposed else b.shape[1]
    return m, n


@torch.library.custom_op("kosmos::gemm", mutates_args=())
def gemm(a: Tensor, b: Tensor, a_transposed: bool = False, b_transposed: bool = False,
         bf16_out: bool = False) -> Tensor:
    """`op(a) @ op(b)` (see `kosmos.gemm`): bfloat16 operands, a float32 result (bfloat16
    with `bf16_out`). CUDA tensors run on their GPU on the current stream, without a copy."""
    out = torch.empty(_gemm_shape(a, b, a_transposed, b_transposed),
                      dtype=_out_dtype(bf16_out), device=a.device)
    _native.gemm(a.detach(), b.detach(), out, a_transposed, b_transposed, _stream(a))
    return out


@gemm.register_fake
def _(a, b, a_transposed=False, b_transposed=False, bf16_out=False):
    return a.new_empty(_gemm_shape(a, b, a_transposed, b_transposed),
                       dtype=_out_dtype(bf16_out))


def _gemm_setup(ctx, inputs, output):
    a, b, a_transposed, b_transposed, _ = inputs
    ctx.save_for_backward(a, b)
    ctx.transposed = (a_transposed, b_transposed)


def _gemm_backward(ctx, dc):
    """`dA = dC op(B)^T`, `dB = op(A)^T dC`, each in its operand's stored layout, as
    bfloat16 gemms (so the shapes need the pipelined kernel's multiples of 8)."""
    a, b = ctx.saved_tensors
    a_t, b_t = ctx.transposed
    dc = dc.to(torch.bfloat16).contiguous()
    if a_t:
        da = gemm(b, dc, b_t, True, True)
    else:
        da = gemm(dc, b, False, not b_t, True)
    if b_t:
        db = gemm(dc, a, True, a_t, True)
    else:
        db = gemm(a, dc, not a_t, False, True)
    return da, db, None, None, None


gemm.register_autograd(_gemm_backward, setup_context=_gemm_setup)


# Worlds by id: what the world ops' schemas can carry.
_WORLDS = {}
_NEXT_ID = itertools.count()


def register_world(world):
    """An id for `world` (a `kosmos.World` or `kosmos.JoinedWorld`) to pass to the world
    ops."""
    if not isinstance(world, (World, JoinedWorld)):
        raise TypeError(f"expected a kosmos.World or JoinedWorld, got {type(world).__name__}")
    world_id = next(_NEXT_ID)
    _WORLDS[world_id] = world
    return world_id


def join_process_group(group=None, *, device=None, **options):
    """This process's rank of a `kosmos.JoinedWorld` over the `torch.distributed` process
    group `group` (the default group if None): its processes exchange memory handles with
    `all_gather_object` (with the NCCL backend, set each process's CUDA device first).
    `device` defaults to the current CUDA device, else "cpu"; `options` are
    `JoinedWorld`'s."""
    import torch.distributed as dist

    rank, ranks = dist.get_rank(group), dist.get_world_size(group)
    if device is None:
        device = f"cuda:{torch.cuda.current_device()}" if torch.cuda.is_available() else "cpu"

    def exchange(mine):
        every = [None] * ranks
        dist.all_gather_object(every, mine, group=group)
        return every

    return JoinedWorld(rank, ranks, device, exchange, **options)


def _joined(world_id):
    return isinstance(_world(world_id), JoinedWorld)


def _world(world_id):
    try:
        return _WORLDS[world_id]
    except KeyError:
        raise ValueError(f"no kosmos.World registered as {world_id}") from None


def _dtype_name(bf16_out):
    return "bfloat16" if bf16_out else "float32"


@torch.library.custom_op("kosmos::ag_gemm", mutates_args=())
def ag_gemm(world_id: int, x: Tensor, w: Tensor, bf16_out: bool = False) -> Tensor:
    """`AllGather(x) @ w_r` on every rank (`World.ag_gemm`): `x` `R x m/R x k`, `w`
    `R x k x n` gives `R x m x n`."""
    return _world(world_id).ag_gemm(x.contiguous(), w.contiguous(),
                                    out_dtype=_dtype_name(bf16_out))


@ag_gemm.register_fake
def _(world_id, x, w, bf16_out=False):
    if _joined(world_id):
        ranks = _world(world_id).ranks
        return x.new_empty((ranks * x.shape[0], w.shape[1]), dtype=_out_dtype(bf16_out))
    ranks = x.shape[0]
    return x.new_empty((ranks, ranks * x.shape[1], w.shape[2]), dtype=_out_dtype(bf16_out))


@torch.library.custom_op("kosmos::ag_gemm_gathered", mutates_args=())
def ag_gemm_gathered(world_id: int, x: Tensor, w: Tensor,
                     bf16_out: bool = False) -> Tuple[Tensor, Tensor]:
    """`AllGather(x) @ w` on this rank of a `JoinedWorld`, and the gathered `x` (`m x k`,
    what the backward pass needs): `x` `m/R x k`, `w` `k x n` give (`m x n`, `m x k`)."""
    return _world(world_id).ag_gemm(x.contiguous(), w.contiguous(),
                                    out_dtype=_dtype_name(bf16_out), gathered=True)


@ag_gemm_gathered.register_fake
def _(world_id, x, w, bf16_out=False):
    m = _world(world_id).ranks * x.shape[0]
    return (x.new_empty((m, w.shape[1]), dtype=_out_dtype(bf16_out)),
            x.new_empty((m, x.shape[1])))


@torch.library.custom_op("kosmos::gemm_rs", mutates_args=())
def gemm_rs(world_id: int, x: Tensor, w: Tensor, bf16_out: bool = False) -> Tensor:
    """`ReduceScatter(x_r @ w_r)` (`World.gemm_rs`): `x` `R x m x k`, `w` `R x k x n` gives
    `R x m/R x n`."""
    return _world(world_id).gemm_rs(x.contiguous(), w.contiguous(),
                                    out_dtype=_dtype_name(bf16_out))


@gemm_rs.register_fake
def _(world_id, x, w, bf16_out=False):
    if _joined(world_id):
        ranks = _world(world_id).ranks
        return x.new_empty((x.shape[0] // ranks, w.shape[1]), dtype=_out_dtype(bf16_out))
    ranks = x.shape[0]
    return x.new_empty((ranks, x.shape[1] // ranks, w.shape[2]), dtype=_out_dtype(bf16_out))


@torch.library.custom_op("kosmos::gemm_ar", mutates_args=())
def gemm_ar(world_id: int, x: Tensor, w: Tensor, bf16_out: bool = False) -> Tensor:
    """`AllReduce(x_r @ w_r)` (`World.gemm_ar`): `x` `R x m x k`, `w` `R x k x n` gives
    `R x m x n`."""
    return _world(world_id).gemm_ar(x.contiguous(), w.contiguous(),
                                    out_dtype=_dtype_name(bf16_out))


@gemm_ar.register_fake
def _(world_id, x, w, bf16_out=False):
    return x.new_empty((*x.shape[:-1], w.shape[-1]), dtype=_out_dtype(bf16_out))


def _backward_op(name, method, joined_dx_rows):
    """The custom op `kosmos::<name>`: `(dx, dw)` of a fused op by `World.<method>`, `dx` in
    bfloat16 (the operands' type), `dw` float32. `dx` has `x`'s shape, but in a joined world
    `joined_dx_rows(rows of x, ranks)` rows."""

    @torch.library.custom_op(f"kosmos::{name}", mutates_args=())
    def op(world_id: int, dy: Tensor, x: Tensor, w: Tensor) -> Tuple[Tensor, Tensor]:
        world = _world(world_id)
        return getattr(world, method)(dy.contiguous(), x.contiguous(), w.contiguous(),
                                      dx_dtype="bfloat16")

    @op.register_fake
    def _(world_id, dy, x, w):
        shape = x.shape
        if _joined(world_id):
            shape = (joined_dx_rows(x.shape[0], _world(world_id).ranks), x.shape[1])
        return x.new_empty(shape), w.new_empty(w.shape, dtype=torch.float32)

    return op


# In a joined world `ag_gemm`'s backward takes the gathered input and gives this rank's rows.
ag_gemm_backward = _backward_op("ag_gemm_backward", "ag_gemm_backward",
                                lambda rows, ranks: rows // ranks)
gemm_rs_backward = _backward_op("gemm_rs_backward", "gemm_rs_backward",
                                lambda rows, ranks: rows)


@torch.library.custom_op("kosmos::gemm_ar_backward", mutates_args=())
def gemm_ar_backward(world_id: int, dy: Tensor, x: Tensor, w: Tensor) -> Tuple[Tensor, Tensor]:
    """Local gemms. In an emulated world every rank's copy of `Y = sum_r x_r w_r` feeds the
    one loss, so `dx_r = (sum_q dy_q) w_r^T` and `dw_r = x_r^T sum_q dy_q`; in a joined
    world each process's loss sees its own copy, whose gradient is every rank's (the
    all-reduce's backward is the identity): `dx = dy w^T`, `dw = x^T dy`."""
    if _joined(world_id):
        dy = dy.contiguous()
        return gemm(dy, w.contiguous(), False, True, True), gemm(x.contiguous(), dy, True)
    total = dy.float().sum(0).to(torch.bfloat16).contiguous()
    dx = torch.stack([gemm(total, w[r].contiguous(), False, True, True)
                      for r in range(x.shape[0])])
    dw = torch.stack([gemm(x[r].contiguous(), total, True, False, False)
                      for r in range(x.shape[0])])
    return dx, dw


@gemm_ar_backward.register_fake
def _(world_id, dy, x, w):
    return x.new_empty(x.shape), w.new_empty(w.shape, dtype=torch.float32)


def _fused_autograd(forward, backward):
    def setup(ctx, inputs, output):
        world_id, x, w, _ = inputs
        ctx.save_for_backward(x, w)
        ctx.world_id = world_id

    def grad(ctx, dy):
        if forward is ag_gemm and _joined(ctx.world_id):
            raise RuntimeError("kosmos::ag_gemm on a JoinedWorld keeps only this rank's rows; "
                               "differentiate kosmos::ag_gemm_gathered, which keeps the "
                               "gathered input the backward pass reads")
        x, w = ctx.saved_tensors
        dx, dw = backward(ctx.world_id, dy.to(torch.bfloat16), x, w)
        return None, dx, dw.to(w.dtype), None

    forward.register_autograd(grad, setup_context=setup)


_fused_autograd(ag_gemm, ag_gemm_backward)
_fused_autograd(gemm_rs, gemm_rs_backward)
_fused_autograd(gemm_ar, gemm_ar_backward)


def _gathered_setup(ctx, inputs, output):
    world_id, _, w, _ = inputs
    ctx.save_for_backward(output[1], w)
    ctx.world_id = world_id


def _gathered_grad(ctx, dy, _d_gathered):
    """The gathered input is saved, not differentiated: its gradient is ignored."""
    gathered, w = ctx.saved_tensors
    dx, dw = ag_gemm_backward(ctx.world_id, dy.to(torch.bfloat16), gathered, w)
    return None, dx, dw.to(w.dtype), None


ag_gemm_gathered.register_autograd(_gathered_grad, setup_context=_gathered_setup)


def _contiguous(t):
    return None if t is None else t.contiguous()


def _moe(method, world_id, tensors, topk, routing, normalize, bias, groups, topk_groups, scale,
         shared_w1, shared_w2, capacity):
    """`World.<method>` on the contiguous `tensors` with the MoE layer's options."""
    shared = None if shared_w1 is None else (shared_w1.contiguous(), _contiguous(shared_w2))
    return getattr(_world(world_id), method)(
        *(t.contiguous() for t in tensors), topk=topk, routing=routing, normalize=normalize,
        bias=_contiguous(bias), groups=groups, topk_groups=topk_groups, scale=scale,
        shared=shared, capacity=capacity)


@torch.library.custom_op("kosmos::moe_forward", mutates_args=())
def moe_forward(world_id: int, x: Tensor, router: Tensor, w1: Tensor, w2: Tensor, topk: int,
                routing: str = "softmax", normalize: bool = True,
                bias: Optional[Tensor] = None, groups: int = 1, topk_groups: int = 1,
                scale: float = 1.0, shared_w1: Optional[Tensor] = None,
                shared_w2: Optional[Tensor] = None, capacity: Optional[int] = None) -> Tensor:
    """The MoE layer's forward pass (`World.moe_forward`): `R x tokens x hidden` bfloat16.
    Differentiable in `x`, `router`, `w1`, `w2` and the shared expert's weights (by
    `moe_backward`)."""
    return _moe("moe_forward", world_id, (x, router, w1, w2), topk, routing, normalize, bias,
                groups, topk_groups, scale, shared_w1, shared_w2, capacity)


@moe_forward.register_fake
def _(world_id, x, router, w1, w2, topk, routing="softmax", normalize=True, bias=None,
      groups=1, topk_groups=1, scale=1.0, shared_w1=None, shared_w2=None, capacity=None):
    return x.new_empty(x.shape, dtype=torch.bfloat16)


@torch.library.custom_op("kosmos::moe_backward", mutates_args=())
def moe_backward(world_id: int, dout: Tensor, x: Tensor, router: Tensor, w1: Tensor,
                 w2: Tensor, topk: int, routing: str = "softmax", normalize: bool = True,
                 bias: Optional[Tensor] = None, groups: int = 1, topk_groups: int = 1,
                 scale: float = 1.0, shared_w1: Optional[Tensor] = None,
                 shared_w2: Optional[Tensor] = None, capacity: Optional[int] = None
                 ) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """The gradients of `moe_forward` from `dout` (`World.moe_backward`, which runs the
    forward pass again): `(dx, d_router, dw1, dw2, d_shared_w1, d_shared_w2)`, `dx`, `dw1`,
    `dw2` bfloat16, the router's and the shared expert's float32 summed over the ranks (empty
    tensors without a shared expert); on a joined world this rank's part of those (summed
    over the processes like any replicated parameter's gradient, e.g. by DDP)."""
    grads = _moe("moe_backward", world_id, (dout, x, router, w1, w2), topk, routing, normalize,
                 bias, groups, topk_groups, scale, shared_w1, shared_w2, capacity)
    # Outputs may not alias one another: two empty tensors. A joined world gives this rank's
    # part of the shared expert's gradients in bfloat16.
    d_shared_w1, d_shared_w2 = (g.float() for g in grads["shared"]) if "shared" in grads else (
        x.new_empty((0,), dtype=torch.float32), x.new_empty((0,), dtype=torch.float32))
    return grads["x"], grads["router"], grads["w1"], grads["w2"], d_shared_w1, d_shared_w2


@moe_backward.register_fake
def _(world_id, dout, x, router, w1, w2, topk, routing="softmax", normalize=True, bias=None,
      groups=1, topk_groups=1, scale=1.0, shared_w1=None, shared_w2=None, capacity=None):
    def summed(w):
        shape = (0,) if w is None else w.shape
        return x.new_empty(shape, dtype=torch.float32)

    return (x.new_empty(x.shape), summed(router), w1.new_empty(w1.shape), w2.new_empty(w2.shape),
            summed(shared_w1), summed(shared_w2))


def _moe_setup(ctx, inputs, output):
    (world_id, x, router, w1, w2, topk, routing, normalize, bias, groups, topk_groups, scale,
     shared_w1, shared_w2, capacity) = inputs
    ctx.save_for_backward(x, router, w1, w2, bias, shared_w1, shared_w2)
    ctx.options = (world_id, topk, routing, normalize, groups, topk_groups, scale, capacity)


def _moe_grad(ctx, dout):
    """`moe_backward` on the saved inputs; none for the selection bias (it only selects) and
    the options. The summed float32 gradients come back in their weights' type."""
    x, router, w1, w2, bias, shared_w1, shared_w2 = ctx.saved_tensors
    world_id, topk, routing, normalize, groups, topk_groups, scale, capacity = ctx.options
    dx, d_router, dw1, dw2, d_shared_w1, d_shared_w2 = moe_backward(
        world_id, dout.to(torch.bfloat16), x, router, w1, w2, topk, routing, normalize, bias,
        groups, topk_groups, scale, shared_w1, shared_w2, capacity)
    shared = shared_w1 is not None
    return (None, dx, d_router.to(router.dtype), dw1, dw2, None, None, None, None, None, None,
            None, d_shared_w1.to(shared_w1.dtype) if shared else None,
            d_shared_w2.to(shared_w2.dtype) if shared else None, None)


moe_forward.register_autograd(_moe_grad, setup_context=_moe_setup)


def _weight(world, shape, fan_in):
    """A bfloat16 parameter of `shape`, random with variance `1 / fan_in`; on a joined CUDA
    world in its symmetric memory, where the fused ops read it in place (moving the module
    to another device or dtype makes a plain copy, staged per call)."""
    weight = (torch.randn(shape) / fan_in**0.5).to(torch.bfloat16)
    if isinstance(world, JoinedWorld) and world.device != "cpu":
        weight = torch.from_dlpack(world.empty(shape)).copy_(weight)
    return torch.nn.Parameter(weight)


class _ParallelLinear(torch.nn.Module):
    def __init__(self, world, weight_shape, fan_in, bf16_out):
        super().__init__()
        self.world = world
        self.world_id = register_world(world)
        self.bf16_out = bf16_out
        self.weight = _weight(world, weight_shape, fan_in)


def _per_rank(world, shape):
    """A weight's shape: this rank's in a joined world, stacked by rank in an emulated one."""
    return shape if isinstance(world, JoinedWorld) else (world.ranks, *shape)


class ColumnParallelLinear(_ParallelLinear):
    """`y_r = AllGather(x) @ W_r`: the weight's columns (`out_features`) split over the
    ranks, `weight` `in x out/R` per rank; takes `x`, each rank's `m/R x in` rows of a
    sequence-parallel input, and gives `m x out/R` in one fused launch per rank. In an
    emulated `World` the ranks are stacked (`weight` `R x in x out/R`, `x` `R x m/R x in`,
    the result `R x m x out/R`); in a `JoinedWorld` the backward pass reads the gathered
    input, kept from the forward pass."""

    def __init__(self, world, in_features, out_features, *, bf16_out=True):
        if out_features % world.ranks:
            raise ValueError(f"out_features = {out_features} does not split over "
                             f"{world.ranks} ranks")
        super().__init__(world, _per_rank(world, (in_features, out_features // world.ranks)),
                         in_features, bf16_out)

    def forward(self, x):
        if isinstance(self.world, JoinedWorld):
            return ag_gemm_gathered(self.world_id, x, self.weight, self.bf16_out)[0]
        return ag_gemm(self.world_id, x, self.weight, self.bf16_out)


class RowParallelLinear(_ParallelLinear):
    """`y_r = ReduceScatter(x_r @ W_r)`: the weight's rows (`in_features`) split over the
    ranks, `weight` `in/R x out` per rank; takes `x` `m x in/R` and gives this rank's rows
    of the sum, `m/R x out`, in one fused launch per rank (stacked by rank in an emulated
    `World`, as `ColumnParallelLinear`)."""

    def __init__(self, world, in_features, out_features, *, bf16_out=True):
        if in_features % world.ranks:
            raise ValueError(f"in_features = {in_features} does not split over "
                             f"{world.ranks} ranks")
        super().__init__(world, _per_rank(world, (in_features // world.ranks, out_features)),
                         in_features, bf16_out)

    def forward(self, x):
        return gemm_rs(self.world_id, x, self.weight, self.bf16_out)


class MoELayer(torch.nn.Module):
    """An expert-parallel Mixture-of-Experts layer (`moe_forward`, one fused launch per rank
    and direction): `experts` SwiGLU experts of `ffn` features split over the world's ranks,
    `router` `experts x hidden`, `w1` `experts/R x 2 ffn x hidden` (gate rows, then up rows)
    and `w2` `experts/R x hidden x ffn` per rank, all bfloat16, and with `shared=True` a
    shared expert (`shared_w1` `2 ffn x hidden`, `shared_w2` `hidden x ffn`) every token also
    takes. Takes `x` `tokens x hidden` (the rank's tokens) and gives the layer's output in
    the same shape; in an emulated `World` `w1`, `w2` and `x` are stacked over a leading
    rank axis. The routing options are `moe_forward`'s; a `bias` (sigmoid routing's
    selection bias, float32) is a buffer, not a parameter: it only selects."""

    def __init__(self, world, hidden, ffn, experts, topk, *, routing="softmax", normalize=True,
                 groups=1, topk_groups=1, scale=1.0, bias=False, shared=False, capacity=None):
        super().__init__()
        if experts % world.ranks:
            raise ValueError(f"experts = {experts} does not split over {world.ranks} ranks")
        self.world = world
        self.world_id = register_world(world)
        self.options = dict(topk=topk, routing=routing, normalize=normalize, groups=groups,
                            topk_groups=topk_groups, scale=scale, capacity=capacity)

        def weight(*shape, fan_in):
            return _weight(world, shape, fan_in)

        local = experts // world.ranks
        self.router = weight(experts, hidden, fan_in=hidden)
        self.w1 = weight(*_per_rank(world, (local, 2 * ffn, hidden)), fan_in=hidden)
        self.w2 = weight(*_per_rank(world, (local, hidden, ffn)), fan_in=ffn)
        self.shared_w1 = weight(2 * ffn, hidden, fan_in=hidden) if shared else None
        self.shared_w2 = weight(hidden, ffn, fan_in=ffn) if shared else None
        self.register_buffer("bias", torch.zeros(experts) if bias else None)

    def forward(self, x):
        o = self.options
        return moe_forward(self.world_id, x, self.router, self.w1, self.w2, o["topk"],
                           o["routing"], o["normalize"], self.bias, o["groups"],
                           o["topk_groups"], o["scale"], self.shared_w1, self.shared_w2,
                           o["capacity"])

"""PyTorch baselines of the Mixture-of-Experts layer forward (and forward+backward) on one GPU
(one rank, EP=1):

  python bench/moe_torch.py [--proxy all] [--tokens 4096] [--shared] [--check]
                            [--backward] [--json moe_torch.json] [--dump DIR]

For each proxy (DeepSeek-V3: H=7168 E=256 K=8 F=2048, sigmoid routing with bias, groups 8/4,
normalize, scale 2.5; Qwen3-235B: H=4096 E=128 K=8 F=1536, softmax routing, normalize) it runs
the same layer two ways: router, top-k, permutation of the token rows into expert order, FC1
(gate+up), SwiGLU, FC2, unpermutation and the weighted fold in the routing order:
  * loop: a Python loop over experts, each expert's rows gathered with index_select, two matmuls;
  * grouped: one `torch._grouped_mm` per FC over all permuted rows (CUTLASS on sm_90/sm_100).
Times, with CUDA events (warm-up runs, then the median of the repeats): each whole forward, and
the grouped path's two grouped GEMMs alone. TFLOP/s count the routed expert GEMMs only,
6 T K H F. Routed experts only unless `--shared` (DeepSeek-V3's shared expert, F=2048).
The two paths' outputs are compared (relative error); `--check` also compares a few tokens with
a per-token float64 evaluation of the same math. Prints a table and writes `--json`.
`--backward` also times one training step of the layer on each path (rows `loop fwd+bwd`,
`grouped fwd+bwd`): the forward with autograd, then the gradients for a random dOut of x, the
router weights, w1 and w2 (and the shared expert's); the top-k choice is not differentiated, the
fold weights are. TFLOP/s count 3x the forward's, 18 T K H F; the two paths' gradients must
agree like their outputs. The grouped path's backward is `_grouped_mm`'s own derivative.
`--dump DIR` writes each proxy's inputs (and the grouped output) as raw little-endian files
under DIR/<proxy>/ with a header.json, for a benchmark of the same data elsewhere.
`--device cpu` with small `--hidden/--experts/--ffn/--tokens` runs everything on the CPU
(wall-clock timing) to test the script itself.
"""

import argparse
import dataclasses
import json
import math
import os
import statistics
import time

import torch
import torch.nn.functional as F


@dataclasses.dataclass(frozen=True)
class Proxy:
    name: str
    hidden: int
    experts: int
    topk: int
    ffn: int
    routing: str  # "sigmoid" (with selection bias) or "softmax"
    groups: int = 1
    topk_groups: int = 1
    normalize: bool = True
    scale: float = 1.0
    has_shared: bool = False


PROXIES = {
    p.name: p
    for p in [
        Proxy("deepseek-v3", 7168, 256, 8, 2048, "sigmoid", groups=8, topk_groups=4, scale=2.5,
              has_shared=True),
        Proxy("qwen3-235b", 4096, 128, 8, 1536, "softmax"),
    ]
}
# Relative error (Frobenius, per checked token) allowed between outputs that differ only in the
# accumulation order of their GEMMs: a few bf16 roundings of intermediates may flip by an ulp.
AGREEMENT_TOLERANCE = 1e-2


@dataclasses.dataclass
class Layer:
    """One rank's MoE layer at EP=1: weights in nn.Linear layout (out x in), bf16."""

    proxy: Proxy
    router: torch.Tensor  # E x H
    bias: torch.Tensor | None  # E, f32: the selection bias of sigmoid routing
    w1: torch.Tensor  # E x 2F x H: rows [0, F) gate, [F, 2F) up
    w2: torch.Tensor  # E x H x F
    shared: tuple | None  # (ws1 2F x H, ws2 H x F) or None


def make_inputs(proxy, tokens, shared, device, seed):
    """Seeded inputs: x ~ N(0, 1), each weight ~ N(0, 1) / sqrt(fan_in) so activations stay O(1)."""
    gen = torch.Generator(device=device).manual_seed(seed)

    def weight(*shape):
        w = torch.randn(*shape, generator=gen, device=device, dtype=torch.bfloat16)
        return w.mul_(1.0 / math.sqrt(shape[-1]))

    h, e, f = proxy.hidden, proxy.experts, proxy.ffn
    x = torch.randn(tokens, h, generator=gen, device=device, dtype=torch.bfloat16)
    router = weight(e, h)
    bias = None
    if proxy.routing == "sigmoid":
        # Small next to the spread of the sigmoid scores (~0.2): it reorders close picks but
        # leaves the load about even, as a trained balancing bias does (a bias of 0.1 sent up
        # to 9x the mean row count to one expert).
        bias = 0.01 * torch.randn(e, generator=gen, device=device, dtype=torch.float32)
    w1, w2 = weight(e, 2 * f, h), weight(e, h, f)
    shared_weights = (weight(2 * f, h), weight(h, f)) if shared else None
    return x, Layer(proxy, router, bias, w1, w2, shared_weights)


def router_logits(x, router):
    """T x E logits: bf16 inputs, f32 accumulation and result."""
    if x.is_cuda and not (x.requires_grad or router.requires_grad):
        return torch.mm(x, router.t(), out_dtype=torch.float32)
    # This torch's CPU mm has no out_dtype, and its out_dtype overload has no derivative.
    return torch.mm(x.float(), router.float().t())


def route(layer, x):
    """Top-K expert indices (T x K, descending key) and their fold weights (T x K, f32).
    torch.topk leaves the order of exact ties open (the float64 check breaks them by index)."""
    p = layer.proxy
    logits = router_logits(x, layer.router)
    if p.routing == "softmax":
        probs = torch.softmax(logits, dim=-1)
        weights, experts = probs.topk(p.topk, dim=-1)
    else:
        scores = torch.sigmoid(logits)
        keys = scores.detach() + layer.bias  # the choice is not differentiated, the weights are
        if p.groups > 1:
            grouped = keys.view(x.shape[0], p.groups, -1)
            group_scores = grouped.topk(min(2, grouped.shape[-1]), dim=-1).values.sum(-1)
            kept = group_scores.topk(p.topk_groups, dim=-1).indices
            eligible = torch.zeros_like(group_scores, dtype=torch.bool).scatter_(1, kept, True)
            keys = keys.masked_fill(~eligible.repeat_interleave(grouped.shape[-1], dim=1),
                                    float("-inf"))
        experts = keys.topk(p.topk, dim=-1).indices
        weights = scores.gather(1, experts)
    if p.normalize:
        weights = weights / weights.sum(-1, keepdim=True)
    return experts, weights * p.scale


def permute(experts, num_experts):
    """Expert order of the T*K (token, pick) rows: for each flat row t*K+k its permuted row, for
    each permuted row the token it reads, and the int32 end offset of each expert's rows."""
    sorted_experts, order = torch.sort(experts.view(-1), stable=True)
    # Unpermuting gathers through the inverse rather than scattering through `order`: CUDA's
    # index_select is the faster kernel (0.37 ms less for DeepSeek-V3's 32768 x 7168 rows).
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(order.numel(), device=order.device)
    # Ends found in the sorted keys rather than by bincount + cumsum: CUDA's bincount reads the
    # largest key back to the host to size its output, a synchronisation inside the forward.
    ends = torch.arange(1, num_experts + 1, device=experts.device)
    offsets = torch.searchsorted(sorted_experts, ends, out_int32=True)
    return inverse, order // experts.shape[1], offsets


def swiglu(z):
    """bf16(silu(gate) * up) in f32 on the bf16 gate and up halves of z: one rounding, where
    bf16 silu then a bf16 product would round twice."""
    gate, up = z.chunk(2, dim=-1)
    return F.silu(gate.float(), inplace=True).mul_(up).to(torch.bfloat16)


def grouped_experts(x_rows, layer, offsets):
    # nn.Linear weights viewed as E x K x N: column-major per group, the layout the CUTLASS
    # kernel reads without a copy (K-major B, like cuBLAS's TN GEMM).
    z = torch._grouped_mm(x_rows, layer.w1.transpose(1, 2), offs=offsets)
    return torch._grouped_mm(swiglu(z), layer.w2.transpose(1, 2), offs=offsets)


def loop_experts(x_rows, layer, offsets):
    # One split and one cat rather than a gather and an `out=` slice per expert: autograd then
    # returns x_rows' gradient whole, not one zero-filled copy of it per expert.
    counts = torch.diff(offsets, prepend=offsets.new_zeros(1)).tolist()
    return torch.cat([torch.mm(swiglu(torch.mm(rows, w1.t())), w2.t())
                      for rows, w1, w2 in zip(x_rows.split(counts), layer.w1, layer.w2)
                      if rows.shape[0]])


def fold(layer, x, y, inverse, weights):
    """out[t] = bf16(((w_0 y_0 + w_1 y_1) + ...) + w_{K-1} y_{K-1} [+ ys]) in f32, the picks in
    routing order: a fixed order of additions, so equal y give bitwise equal outputs."""
    t, k = weights.shape
    # unbind: one autograd node for the K picks, where indexing each would zero-fill a copy.
    picks = y.index_select(0, inverse).view(t, k, -1).unbind(1)
    acc = picks[0] * weights[:, :1]  # f32 by type promotion
    for i in range(1, k):
        acc.addcmul_(picks[i], weights[:, i:i + 1])
    if layer.shared is not None:
        ws1, ws2 = layer.shared
        acc += torch.mm(swiglu(torch.mm(x, ws1.t())), ws2.t())
    return acc.to(torch.bfloat16)


def forward(layer, x, path):
    experts, weights = route(layer, x)
    inverse, token_of_row, offsets = permute(experts, layer.proxy.experts)
    experts_of = grouped_experts if path == "grouped" else loop_experts
    y = experts_of(x.index_select(0, token_of_row), layer, offsets)
    return fold(layer, x, y, inverse, weights)


def trainable(layer, x, path):
    """(layer, x, {name: leaf or per-expert list of leaves}): x and the weights as leaves that
    require grad, sharing their storage. The loop path's experts are separate leaves (as in an
    nn.ModuleList of experts): one leaf indexed per expert would get a zero-filled E-expert
    gradient from every expert."""
    def leaf(t):
        return t.detach().requires_grad_()

    def expert_weights(w):
        return [leaf(we) for we in w] if path == "loop" else leaf(w)

    x = leaf(x)
    shared = tuple(map(leaf, layer.shared)) if layer.shared is not None else None
    layer = dataclasses.replace(layer, router=leaf(layer.router), w1=expert_weights(layer.w1),
                                w2=expert_weights(layer.w2), shared=shared)
    params = {"x": x, "router": layer.router, "w1": layer.w1, "w2": layer.w2}
    if shared is not None:
        params["ws1"], params["ws2"] = shared
    return layer, x, params


def train_step(layer, x, path, params, d_out):
    """Forward with autograd, then the gradients for d_out: {name: tensor, or per-expert list}.
    torch.autograd.grad rather than out.backward: the same graph walk, with no .grad to reset."""
    out = forward(layer, x, path)
    leaves = [t for p in params.values() for t in (p if isinstance(p, list) else [p])]
    grads = iter(torch.autograd.grad(out, leaves, d_out, materialize_grads=True))
    return {name: [next(grads) for _ in p] if isinstance(p, list) else next(grads)
            for name, p in params.items()}


def median_ms(fn, device, warmup, repeats):
    times = []
    for i in range(warmup + repeats):
        if device.type == "cuda":
            start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record()
            fn()
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
        else:
            begin = time.perf_counter()
            fn()
            ms = (time.perf_counter() - begin) * 1e3
        if i >= warmup:
            times.append(ms)
    return statistics.median(times)


def relative_error(a, b):
    """||a - b|| / ||b|| (Frobenius) in float64, converted a chunk at a time (weight gradients
    are GBs). Either may be a list of the other's leading slices (per-expert gradients)."""
    if isinstance(a, list) or isinstance(b, list):
        pairs = zip(list(a), list(b), strict=True)
    else:
        pairs = [(a, b)]
    diff = norm = 0.0
    for pa, pb in pairs:
        for ca, cb in zip(pa.reshape(-1).split(1 << 26), pb.reshape(-1).split(1 << 26)):
            cb = cb.double()
            diff += (ca.double() - cb).square().sum().item()
            norm += cb.square().sum().item()
    return math.sqrt(diff / norm) if norm else (math.inf if diff else 0.0)


def bf16(v):
    return v.to(torch.bfloat16).double()


def reference_token(layer, x, t):
    """Token t in float64, step by step, ties broken by the lower index: (experts, weights, out)."""
    p = layer.proxy
    xt = x[t].double()
    logits = layer.router.double() @ xt
    if p.routing == "softmax":
        keys = torch.softmax(logits, dim=0)
        scores = keys
    else:
        scores = torch.sigmoid(logits)
        keys = scores + layer.bias.double()
        if p.groups > 1:
            grouped = keys.view(p.groups, -1)
            top = torch.sort(grouped, dim=1, descending=True, stable=True).values
            group_scores = top[:, :2].sum(1) if grouped.shape[1] > 1 else top[:, 0]
            kept = torch.sort(group_scores, descending=True, stable=True).indices[:p.topk_groups]
            eligible = torch.zeros(p.groups, dtype=torch.bool, device=x.device)
            eligible[kept] = True
            keys = keys.masked_fill(~eligible.repeat_interleave(grouped.shape[1]), float("-inf"))
    experts = torch.sort(keys, descending=True, stable=True).indices[:p.topk]
    weights = scores[experts]
    if p.normalize:
        weights = weights / weights.sum()
    weights = weights * p.scale

    def expert(w1, w2):
        z = bf16(w1.double() @ xt)
        gate, up = z.chunk(2)
        return bf16(bf16(gate * torch.sigmoid(gate) * up) @ w2.double().t())

    acc = torch.zeros_like(xt)
    for e, w in zip(experts.tolist(), weights):
        acc = acc + w * expert(layer.w1[e], layer.w2[e])
    if layer.shared is not None:
        acc = acc + expert(*layer.shared)
    return experts, weights, bf16(acc)


def check_tokens(layer, x, out, count):
    """Compares `count` tokens of `out` and of the routing with the float64 evaluation."""
    experts, weights = route(layer, x)
    tokens = torch.linspace(0, x.shape[0] - 1, min(count, x.shape[0])).long().tolist()
    routing_mismatches, worst_weight, worst_out = [], 0.0, 0.0
    for t in tokens:
        ref_experts, ref_weights, ref_out = reference_token(layer, x, t)
        if not torch.equal(experts[t], ref_experts):
            # A near tie that f32 and f64 order differently: the outputs legitimately differ.
            routing_mismatches.append(t)
            continue
        worst_weight = max(worst_weight, relative_error(weights[t], ref_weights))
        worst_out = max(worst_out, relative_error(out[t], ref_out))
    return {"tokens": tokens, "routing_mismatches": routing_mismatches,
            "max_weight_rel_err": worst_weight, "max_out_rel_err": worst_out,
            "ok": worst_out <= AGREEMENT_TOLERANCE and len(routing_mismatches) <= len(tokens) // 4}


def write_bin(path, tensor):
    """Raw little-endian bytes, copied to the host one leading slice at a time (weights are GBs)."""
    with open(path, "wb") as f:
        for part in tensor.reshape(-1, *tensor.shape[-2:]) if tensor.dim() > 2 else [tensor]:
            host = part.contiguous().cpu()
            if host.dtype == torch.bfloat16:
                host = host.view(torch.int16)  # numpy has no bf16: the same 2 bytes
            array = host.numpy()
            f.write(array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes())


def dump(directory, layer, x, out, seed):
    p = layer.proxy
    os.makedirs(directory, exist_ok=True)
    files = {"x": x, "router": layer.router, "w1": layer.w1, "w2": layer.w2, "out": out}
    if layer.bias is not None:
        files["bias"] = layer.bias
    if layer.shared is not None:
        files["ws1"], files["ws2"] = layer.shared
    header = {"proxy": dataclasses.asdict(p), "tokens": x.shape[0], "seed": seed,
              "torch": torch.__version__, "byte_order": "little",
              "note": "out: the grouped path's output", "files": {}}
    for name, tensor in files.items():
        write_bin(os.path.join(directory, f"{name}.bin"), tensor)
        header["files"][name] = {"file": f"{name}.bin", "shape": list(tensor.shape),
                                 "dtype": str(tensor.dtype).removeprefix("torch.")}
    with open(os.path.join(directory, "header.json"), "w") as f:
        json.dump(header, f, indent=1)


def bench_proxy(proxy, args, device, seed):
    x, layer = make_inputs(proxy, args.tokens, args.shared and proxy.has_shared, device, seed)
    flop = 6 * args.tokens * proxy.topk * proxy.hidden * proxy.ffn

    def row(path, ms, path_flop=flop):
        return {"proxy": proxy.name, "path": path, "ms": ms, "tflops": path_flop / ms / 1e9}

    timing = (device, args.warmup, args.repeats)
    rows = [row(path, median_ms(lambda path=path: forward(layer, x, path), *timing))
            for path in ("loop", "grouped")]

    experts, _ = route(layer, x)
    _, token_of_row, offsets = permute(experts, proxy.experts)
    x_rows = x.index_select(0, token_of_row)
    h = swiglu(torch._grouped_mm(x_rows, layer.w1.transpose(1, 2), offs=offsets))
    rows.append(row("grouped GEMMs", median_ms(
        lambda: (torch._grouped_mm(x_rows, layer.w1.transpose(1, 2), offs=offsets),
                 torch._grouped_mm(h, layer.w2.transpose(1, 2), offs=offsets)), *timing)))

    out_loop, out_grouped = forward(layer, x, "loop"), forward(layer, x, "grouped")
    rows_per_expert = torch.diff(offsets, prepend=offsets.new_zeros(1))
    summary = {"proxy": dataclasses.asdict(proxy), "tokens": args.tokens,
               "shared": layer.shared is not None, "flop": flop, "seed": seed,
               "rows_per_expert": {"min": int(rows_per_expert.min()),
                                   "max": int(rows_per_expert.max())},
               "loop_vs_grouped_rel_err": relative_error(out_loop, out_grouped)}
    if args.backward:
        # dOut ~ N(0, 1), like the activations; its own generator leaves the inputs unchanged.
        gen = torch.Generator(device=device).manual_seed(seed)
        d_out = torch.randn(out_grouped.shape, generator=gen, device=device, dtype=torch.bfloat16)
        grads = {}
        for path in ("loop", "grouped"):
            step_layer, step_x, params = trainable(layer, x, path)

            def step():
                return train_step(step_layer, step_x, path, params, d_out)

            # The backward's GEMMs: each forward GEMM's input and weight gradients, 2x its FLOPs.
            rows.append(row(f"{path} fwd+bwd", median_ms(step, *timing), 3 * flop))
            grads[path] = step()
        summary["flop_fwd_bwd"] = 3 * flop
        summary["loop_vs_grouped_grad_rel_err"] = {
            name: relative_error(grads["loop"][name], g) for name, g in grads["grouped"].items()}
    if args.check:
        summary["check_grouped"] = check_tokens(layer, x, out_grouped, args.check_tokens)
        summary["check_loop"] = check_tokens(layer, x, out_loop, args.check_tokens)
    if args.dump:
        dump(os.path.join(args.dump, proxy.name), layer, x, out_grouped, seed)
    return rows, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proxy", choices=[*PROXIES, "all"], default="all")
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--hidden", type=int, help="overrides the proxies' H (tests)")
    parser.add_argument("--experts", type=int, help="overrides the proxies' E (tests)")
    parser.add_argument("--ffn", type=int, help="overrides the proxies' F (tests)")
    parser.add_argument("--shared", action="store_true", help="add DeepSeek-V3's shared expert")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true", help="compare tokens with float64")
    parser.add_argument("--check-tokens", type=int, default=8)
    parser.add_argument("--backward", action="store_true",
                        help="also time forward+backward with autograd and compare gradients")
    parser.add_argument("--json", default="moe_torch.json")
    parser.add_argument("--dump", metavar="DIR",
                        help="write each proxy's inputs to DIR/<proxy>/ (DeepSeek-V3: 23 GB)")
    args = parser.parse_args()

    device = torch.device(args.device)
    if not hasattr(torch, "_grouped_mm"):
        parser.error(f"torch {torch.__version__} has no torch._grouped_mm")
    overrides = {k: v for k, v in (("hidden", args.hidden), ("experts", args.experts),
                                   ("ffn", args.ffn)) if v is not None}
    names = list(PROXIES) if args.proxy == "all" else [args.proxy]
    proxies = [dataclasses.replace(PROXIES[n], **overrides) for n in names]
    for p in proxies:
        # The grouped GEMM's TMA loads need 16-byte row strides; groups must split E evenly.
        if p.hidden % 8 or p.ffn % 8 or p.experts % p.groups or p.topk > p.experts:
            parser.error(f"{p.name}: H and F must be multiples of 8, E a multiple of the "
                         f"groups and at least K; got {p}")
    if args.device == "cpu":
        print("CPU run: wall-clock times; torch._grouped_mm runs its per-group mm fallback")

    rows, summaries = [], []
    for i, proxy in enumerate(proxies):
        proxy_rows, summary = bench_proxy(proxy, args, device, args.seed + i)
        rows += proxy_rows
        summaries.append(summary)
        if device.type == "cuda":
            torch.cuda.empty_cache()  # the next proxy's weights take the space

    print(f"{'proxy':<12} {'path':<16} {'ms':>9} {'TFLOP/s':>8}")
    for r in rows:
        print(f"{r['proxy']:<12} {r['path']:<16} {r['ms']:>9.3f} {r['tflops']:>8.1f}")
    ok = True
    for s in summaries:
        name, err = s["proxy"]["name"], s["loop_vs_grouped_rel_err"]
        ok &= err <= AGREEMENT_TOLERANCE
        counts = s["rows_per_expert"]
        print(f"{name}: rows per expert {counts['min']}..{counts['max']}, "
              f"loop vs grouped relative error {err:.2e}")
        grad_errs = s.get("loop_vs_grouped_grad_rel_err")
        if grad_errs:
            ok &= max(grad_errs.values()) <= AGREEMENT_TOLERANCE
            print(f"{name}: loop vs grouped gradients, relative error: "
                  + ", ".join(f"{k} {v:.2e}" for k, v in grad_errs.items()))
        for path in ("grouped", "loop"):
            c = s.get(f"check_{path}")
            if c:
                ok &= c["ok"]
                print(f"{name}: {path} vs float64 on {len(c['tokens'])} tokens: out rel err "
                      f"<= {c['max_out_rel_err']:.2e}, weights <= {c['max_weight_rel_err']:.2e}, "
                      f"routing differs on tokens {c['routing_mismatches']} "
                      f"({'ok' if c['ok'] else 'FAIL'})")
    device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    with open(args.json, "w") as f:
        json.dump({"bench": "moe torch baselines", "torch": torch.__version__,
                   "cuda": torch.version.cuda, "device": device_name, "warmup": args.warmup,
                   "repeats": args.repeats, "results": rows, "layers": summaries}, f, indent=1)
    if not ok:
        raise SystemExit("outputs or gradients disagree beyond the tolerance")


if __name__ == "__main__":
    main()

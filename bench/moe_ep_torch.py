"""PyTorch's expert-parallel MoE layer on real GPUs, one process per GPU (EP = the GPUs):

  torchrun --nproc-per-node N bench/moe_ep_torch.py [--proxy all] [--tokens 4096]
                                                    [--backward] [--json moe_ep_torch.json]

The layer of `bench/moe_torch.py` (same proxies, inputs and math) with its E experts split
over the N ranks, E/N each, T tokens per rank, as an expert-parallel PyTorch model runs it:
router and top-k on the rank's tokens; the token rows permuted into expert order; the rows
per (rank, expert) exchanged with `all_to_all_single` (their counts read back to the host to
size the exchange); the rows sent with `all_to_all_single`; the local experts' FC1 -> SwiGLU
-> FC2 as `torch._grouped_mm`s; the results sent back with `all_to_all_single`; the weighted
fold in routing order. `--backward` also times a training step (autograd through the
functional collectives' `all_to_all_single_autograd`): the gradients of x, the router and the
local experts' weights for a random dOut.

Before timing, every rank checks its output (and with `--backward` its dx) against the same
layer at EP=1 on its own tokens (every expert's weights are made on every rank from one seed,
then cut to the local ones): relative error below `moe_torch.AGREEMENT_TOLERANCE`.
Times with CUDA events (warm-up runs, then the median of the repeats), the slowest rank's;
TFLOP/s count the routed experts' GEMMs of all ranks, 6 T K H F each (18 for a step).
Rank 0 prints a table and writes `--json`. `--device cpu` with small `--hidden/--experts/
--ffn/--tokens` runs it on CPU tensors over gloo (wall-clock times) to test the script itself.
"""

import argparse
import dataclasses
import json
import os
import sys

import torch
import torch.distributed as dist
from torch.distributed._functional_collectives import all_to_all_single_autograd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import moe_torch as one  # noqa: E402 - the single-GPU layer this one distributes


def exchange(rows, send_counts, recv_counts):
    """`rows` sent to the ranks by `send_counts` (rows per rank), the received rows returned:
    autograd-aware, so the backward pass sends the gradients back the same way."""
    return all_to_all_single_autograd(rows, recv_counts, send_counts, dist.group.WORLD)


def ep_forward(layer, local, x, rank, ranks):
    """The layer's output on this rank's tokens `x`, with `local` (a Layer of this rank's
    E/N experts' weights) the only expert weights used."""
    experts_total = layer.proxy.experts
    per_rank = experts_total // ranks
    experts, weights = one.route(layer, x)
    inverse, token_of_row, offsets = one.permute(experts, experts_total)
    rows = x.index_select(0, token_of_row)
    # Rows per global expert, in expert order: ranks own consecutive experts.
    counts = torch.diff(offsets, prepend=offsets.new_zeros(1))
    recv = torch.empty_like(counts)
    dist.all_to_all_single(recv, counts)
    # recv[s * per_rank + j]: rows from rank s for local expert j.
    send_counts = counts.view(ranks, per_rank).sum(1).tolist()
    recv_by_source = recv.view(ranks, per_rank)
    recv_counts = recv_by_source.sum(1).tolist()
    got = exchange(rows, send_counts, recv_counts)
    # From (source, expert) order to expert order for the grouped GEMMs, and back.
    local_expert = torch.repeat_interleave(
        torch.arange(per_rank, device=x.device).repeat(ranks), recv.long())
    order = torch.sort(local_expert, stable=True).indices
    back = torch.empty_like(order)
    back[order] = torch.arange(order.numel(), device=order.device)
    local_offsets = torch.cumsum(recv_by_source.sum(0), 0).to(torch.int32)
    y = one.grouped_experts(got.index_select(0, order), local, local_offsets)
    y = exchange(y.index_select(0, back), recv_counts, send_counts)
    return one.fold(layer, x, y, inverse, weights)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proxy", choices=[*one.PROXIES, "all"], default="all")
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--hidden", type=int, help="overrides the proxies' H (tests)")
    parser.add_argument("--experts", type=int, help="overrides the proxies' E (tests)")
    parser.add_argument("--ffn", type=int, help="overrides the proxies' F (tests)")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backward", action="store_true")
    parser.add_argument("--json", default="moe_ep_torch.json")
    args = parser.parse_args()

    dist.init_process_group("nccl" if args.device == "cuda" else "gloo")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    if args.device == "cuda":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
        device = torch.device("cuda", torch.cuda.current_device())
    else:
        device = torch.device("cpu")
    overrides = {k: v for k, v in (("hidden", args.hidden), ("experts", args.experts),
                                   ("ffn", args.ffn)) if v is not None}
    names = list(one.PROXIES) if args.proxy == "all" else [args.proxy]
    proxies = [dataclasses.replace(one.PROXIES[n], **overrides) for n in names]
    timing = (device, args.warmup, args.repeats)

    def slowest(ms):
        t = torch.tensor([ms], device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.item()

    rows, ok = [], True
    for i, proxy in enumerate(proxies):
        if proxy.experts % ranks:
            raise SystemExit(f"{proxy.name}: {proxy.experts} experts do not split over {ranks}")
        per_rank = proxy.experts // ranks
        # Every rank makes every weight from one seed (the router must be the same
        # everywhere), its tokens from a seed of its own.
        _, layer = one.make_inputs(proxy, 1, False, device, args.seed + i)
        x = torch.randn(args.tokens, proxy.hidden, device=device, dtype=torch.bfloat16,
                        generator=torch.Generator(device=device).manual_seed(1000 + rank))
        mine = slice(rank * per_rank, (rank + 1) * per_rank)
        local = dataclasses.replace(layer, w1=layer.w1[mine].clone(), w2=layer.w2[mine].clone())
        want = one.forward(layer, x, "grouped")
        out = ep_forward(layer, local, x, rank, ranks)
        err = one.relative_error(out, want)
        flop = 6 * args.tokens * proxy.topk * proxy.hidden * proxy.ffn * ranks
        row = {"proxy": proxy.name, "ranks": ranks, "tokens_per_rank": args.tokens,
               "rel_err_vs_ep1": slowest(err)}
        if args.backward:
            gen = torch.Generator(device=device).manual_seed(2000 + rank)
            d_out = torch.randn(out.shape, generator=gen, device=device, dtype=torch.bfloat16)
            ref_layer, ref_x, ref_params = one.trainable(layer, x, "grouped")
            want_dx = one.train_step(ref_layer, ref_x, "grouped", ref_params, d_out)["x"]
            del ref_layer, ref_params
            step_local = dataclasses.replace(local, w1=local.w1.detach().requires_grad_(),
                                             w2=local.w2.detach().requires_grad_())
            step_layer = dataclasses.replace(layer, router=layer.router.detach()
                                             .requires_grad_())
            step_x = x.detach().requires_grad_()
            leaves = [step_x, step_layer.router, step_local.w1, step_local.w2]

            def step():
                out = ep_forward(step_layer, step_local, step_x, rank, ranks)
                return torch.autograd.grad(out, leaves, d_out, materialize_grads=True)

            dx_err = one.relative_error(step()[0], want_dx)
            row["dx_rel_err_vs_ep1"] = slowest(dx_err)
        # The EP=1 layer's experts are no longer needed (the EP path reads `local`'s).
        layer = dataclasses.replace(layer, w1=None, w2=None)
        if args.backward:
            step_layer = dataclasses.replace(step_layer, w1=None, w2=None)
        del want
        if device.type == "cuda":
            torch.cuda.empty_cache()
        row["forward_ms"] = slowest(one.median_ms(
            lambda: ep_forward(layer, local, x, rank, ranks), *timing))
        row["forward_tflops"] = flop / row["forward_ms"] / 1e9
        if args.backward:
            row["train_step_ms"] = slowest(one.median_ms(step, *timing))
            row["train_step_tflops"] = 3 * flop / row["train_step_ms"] / 1e9
        ok &= row["rel_err_vs_ep1"] <= one.AGREEMENT_TOLERANCE
        ok &= row.get("dx_rel_err_vs_ep1", 0.0) <= one.AGREEMENT_TOLERANCE
        rows.append(row)
    if rank == 0:
        print(f"{'proxy':<12} {'ranks':>5} {'fwd ms':>9} {'fwd TF/s':>9} {'step ms':>9} "
              f"{'step TF/s':>9} {'rel err':>8}")
        for r in rows:
            step_ms, step_tf = r.get("train_step_ms"), r.get("train_step_tflops")
            print(f"{r['proxy']:<12} {r['ranks']:>5} {r['forward_ms']:>9.3f} "
                  f"{r['forward_tflops']:>9.1f} "
                  f"{'-' if step_ms is None else f'{step_ms:.3f}':>9} "
                  f"{'-' if step_tf is None else f'{step_tf:.1f}':>9} "
                  f"{max(r['rel_err_vs_ep1'], r.get('dx_rel_err_vs_ep1', 0.0)):>8.1e}")
        print("(rel err: output, and dx with --backward, against EP=1 on the same tokens)")
        with open(args.json, "w") as f:
            json.dump({"bench": "moe expert-parallel torch", "results": rows}, f, indent=1)
    # Every rank past its last collective before the group goes (gloo aborts a process
    # whose peer tears it down first).
    dist.barrier()
    dist.destroy_process_group()
    if not ok:
        print("a result differs from the EP=1 layer", file=sys.stderr)
    # Past the group's end, leave without the interpreter's finalisation: gloo's worker
    # threads can still hold tensors then, and destroying them there aborts the process
    # now and again ("terminate called without an active exception").
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0 if ok else 1)


if __name__ == "__main__":
    main()

"""Baselines of the fused tensor-parallel ops on real GPUs, one process per GPU:

  torchrun --nproc-per-node N bench/tp_torch.py [--tokens 1024,...] [--json out.json] [--ours tp_multi.json]

For each case of `bench/benches/tp.rs` (Llama-3-70B's tensor-parallel GEMMs at N-way tensor
parallelism, `m` the tokens over all ranks, bf16) and each token count of `--tokens` (default
8192) it times, with CUDA events (`--runs`: 3 warm-up runs, median of 20; the slowest rank's):
  * NCCL + cuBLAS: `all_gather_into_tensor` then `matmul` (all-gather cases), `matmul` then
    `reduce_scatter_tensor` or `all_reduce` (reductions);
  * PyTorch's async-TP: `torch.ops.symm_mem.fused_all_gather_matmul` and
    `fused_matmul_reduce_scatter` (symmetric memory), where this torch has them.
With `--ours` (the JSON of `KOSMOS_BENCH_GPUS=N ./tp`), each row also gives ours and the
ratios baseline time / our time. Also NCCL's `all_gather_into_tensor` of 256 MiB a rank alone,
as GB/s received a rank (the figure `bench/benches/links.rs` gives for a pull by workgroups).
Rank 0 prints a table and writes `--json`.
`--device cpu` runs the same steps on CPU tensors over gloo, timed by the wall clock: a check
of the script itself where no GPU is present, not a baseline.
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist

HIDDEN, QKV, FFN = 8192, 10240, 28672


def cases(tp, tokens):
    """Each rank's GEMMs, as `bench/benches/tp.rs` has them: (name, kind, m, n, k)."""
    return [
        ("qkv ag_gemm", "ag", tokens, QKV // tp, HIDDEN),
        ("fc1 ag_gemm", "ag", tokens, 2 * FFN // tp, HIDDEN),
        ("out-proj gemm_rs", "rs", tokens, HIDDEN, HIDDEN // tp),
        ("fc2 gemm_rs", "rs", tokens, HIDDEN, FFN // tp),
        ("fc2 gemm_ar", "ar", tokens, HIDDEN, FFN // tp),
    ]


def median_ms(fn, device, warmup, timed):
    times = []
    for i in range(warmup + timed):
        dist.barrier()
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
        else:
            t0 = time.perf_counter()
            fn()
            ms = (time.perf_counter() - t0) * 1e3
        if i >= warmup:
            times.append(ms)
    times.sort()
    return times[len(times) // 2]


def slowest(ms, device):
    """The slowest rank's time: a collective step ends when its last rank does."""
    t = torch.tensor([ms], device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def async_tp(kind, group_name, a, b):
    """PyTorch's fused op for `kind`, or None where this torch has none."""
    ops = getattr(torch.ops, "symm_mem", None)
    if ops is None:
        return None
    if kind == "ag" and hasattr(ops, "fused_all_gather_matmul"):
        return lambda: ops.fused_all_gather_matmul(a, [b], 0, group_name)
    if kind == "rs" and hasattr(ops, "fused_matmul_reduce_scatter"):
        return lambda: ops.fused_matmul_reduce_scatter(a, b, "sum", 0, group_name)
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--ours")
    parser.add_argument("--tokens", default="8192", help="comma-separated token counts")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--runs", default="3,20", help="warm-up and timed runs")
    args = parser.parse_args()
    warmup, timed = (int(r) for r in args.runs.split(","))
    device = args.device
    dist.init_process_group("nccl" if device == "cuda" else "gloo")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    group_name = dist.group.WORLD.group_name
    if device == "cuda":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
        try:
            from torch.distributed._symmetric_memory import enable_symm_mem_for_group

            enable_symm_mem_for_group(group_name)
        except Exception as e:  # noqa: BLE001 - an older or newer torch: async-TP is reported missing
            if rank == 0:
                print(f"symmetric memory unavailable: {e}")
    ours = {}
    if args.ours:
        with open(args.ours) as f:
            ours = {(r["case"], r["m"]): r["fused_ms"] for r in json.load(f)["results"]}
    torch.manual_seed(rank)
    rows = []
    token_counts = [int(t) for t in args.tokens.split(",")]
    for name, kind, m, n, k in [c for t in token_counts for c in cases(ranks, t)]:
        bf = dict(dtype=torch.bfloat16, device=device)
        w = torch.randn(k, n, **bf)
        if kind == "ag":
            shard = torch.randn(m // ranks, k, **bf)
            gathered = torch.empty(m, k, **bf)

            def unfused(shard=shard, gathered=gathered, w=w):
                dist.all_gather_into_tensor(gathered, shard)
                return gathered @ w

            fused = async_tp(kind, group_name, shard, w) if device == "cuda" else None
        else:
            x = torch.randn(m, k, **bf)
            out = torch.empty(m // ranks, n, **bf)

            def unfused(kind=kind, x=x, w=w, out=out):
                c = x @ w
                if kind == "rs":
                    dist.reduce_scatter_tensor(out, c)
                else:
                    dist.all_reduce(c)
                return c

            fused = async_tp(kind, group_name, x, w) if device == "cuda" else None
        nccl_ms = slowest(median_ms(unfused, device, warmup, timed), device)
        fused_ms = slowest(median_ms(fused, device, warmup, timed), device) if fused else None
        row = {"case": name, "m": m, "n": n, "k": k, "ranks": ranks,
               "nccl_cublas_ms": nccl_ms, "async_tp_ms": fused_ms}
        if (name, m) in ours:
            mine = ours[(name, m)]
            row["ours_ms"] = mine
            row["vs_nccl_cublas"] = nccl_ms / mine
            row["vs_async_tp"] = fused_ms / mine if fused_ms else None
        rows.append(row)
    # NCCL's all-gather alone: every rank receives the others' 256 MiB.
    piece = torch.empty((256 << 20) // 2, dtype=torch.bfloat16, device=device)
    whole = torch.empty(piece.numel() * ranks, dtype=torch.bfloat16, device=device)
    gather_ms = slowest(median_ms(lambda: dist.all_gather_into_tensor(whole, piece), device,
                                  warmup, timed), device)
    received_gbps = (ranks - 1) * piece.numel() * 2 / (gather_ms * 1e-3) / 1e9
    del piece, whole
    if rank == 0:
        print(f"NCCL all_gather_into_tensor, 256 MiB a rank: {gather_ms:.3f} ms, "
              f"{received_gbps:.1f} GB/s received a rank")
        fmt = lambda v, p=3: "-" if v is None else f"{v:.{p}f}"  # noqa: E731
        print(f"{'case':<18} {'m':>6} {'GPUs':>4} {'NCCL+cuBLAS ms':>15} {'async-TP ms':>12} "
              f"{'ours ms':>9} {'vs NCCL+cuBLAS':>15} {'vs async-TP':>12}")
        for r in rows:
            print(f"{r['case']:<18} {r['m']:>6} {r['ranks']:>4} {fmt(r['nccl_cublas_ms']):>15} "
                  f"{fmt(r['async_tp_ms']):>12} {fmt(r.get('ours_ms')):>9} "
                  f"{fmt(r.get('vs_nccl_cublas')):>15} {fmt(r.get('vs_async_tp')):>12}")
        print("(ratios: the baseline's time / ours; > 1: ours is faster)")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"bench": "tp torch baselines", "results": rows,
                           "nccl_all_gather_256mib_ms": gather_ms,
                           "nccl_all_gather_received_gbps": received_gbps}, f, indent=1)
    # Every rank past its last collective before the group goes (gloo aborts a process
    # whose peer tears it down first).
    dist.barrier()
    dist.destroy_process_group()
    # Past the group's end, leave without the interpreter's finalisation: gloo's worker
    # threads can still hold tensors then, and destroying them there aborts the process
    # now and again ("terminate called without an active exception").
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()

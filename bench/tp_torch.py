"""Baselines of the fused tensor-parallel ops on real GPUs, one process per GPU:

  torchrun --nproc-per-node N bench/tp_torch.py [--json out.json] [--ours tp_multi.json]

For each case of `bench/benches/tp.rs` (the Llama-3-70B TP=8 GEMMs, 8192 tokens; per-rank
`m x n x k` with `m` the tokens over all ranks) it times, with CUDA events (3 warm-up runs,
median of 20):
  * NCCL + cuBLAS: `all_gather_into_tensor` then `matmul` (all-gather cases), `matmul` then
    `reduce_scatter_tensor` or `all_reduce` (reductions);
  * PyTorch's async-TP: `torch.ops.symm_mem.fused_all_gather_matmul` and
    `fused_matmul_reduce_scatter` (symmetric memory), where this torch has them.
With `--ours` (the JSON of `KOSMOS_BENCH_GPUS=N ./tp`), each row also gives ours and the
ratios baseline time / our time. Rank 0 prints a table and writes `--json`.
"""

import argparse
import json
import os

import torch
import torch.distributed as dist

CASES = [
    ("qkv ag_gemm", "ag", 8192, 1280, 8192),
    ("fc1 ag_gemm", "ag", 8192, 7168, 8192),
    ("out-proj gemm_rs", "rs", 8192, 8192, 1024),
    ("fc2 gemm_rs", "rs", 8192, 8192, 3584),
    ("fc2 gemm_ar", "ar", 8192, 8192, 3584),
]
WARMUP, TIMED = 3, 20


def median_ms(fn):
    times = []
    for i in range(WARMUP + TIMED):
        dist.barrier()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        if i >= WARMUP:
            times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def slowest(ms):
    """The slowest rank's time: a collective step ends when its last rank does."""
    t = torch.tensor([ms], device="cuda")
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
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    group_name = dist.group.WORLD.group_name
    try:
        from torch.distributed._symmetric_memory import enable_symm_mem_for_group

        enable_symm_mem_for_group(group_name)
    except Exception as e:  # noqa: BLE001 - an older or newer torch: async-TP is reported missing
        if rank == 0:
            print(f"symmetric memory unavailable: {e}")
    ours = {}
    if args.ours:
        with open(args.ours) as f:
            ours = {r["case"]: r["fused_ms"] for r in json.load(f)["results"]}
    torch.manual_seed(rank)
    rows = []
    for name, kind, m, n, k in CASES:
        bf = dict(dtype=torch.bfloat16, device="cuda")
        w = torch.randn(k, n, **bf)
        if kind == "ag":
            shard = torch.randn(m // ranks, k, **bf)
            gathered = torch.empty(m, k, **bf)

            def unfused():
                dist.all_gather_into_tensor(gathered, shard)
                return gathered @ w

            fused = async_tp(kind, group_name, shard, w)
        else:
            x = torch.randn(m, k, **bf)
            out = torch.empty(m // ranks, n, **bf)

            def unfused(kind=kind, x=x, out=out):
                c = x @ w
                if kind == "rs":
                    dist.reduce_scatter_tensor(out, c)
                else:
                    dist.all_reduce(c)
                return c

            fused = async_tp(kind, group_name, x, w)
        nccl_ms = slowest(median_ms(unfused))
        fused_ms = slowest(median_ms(fused)) if fused else None
        row = {"case": name, "ranks": ranks, "nccl_cublas_ms": nccl_ms, "async_tp_ms": fused_ms}
        if name in ours:
            row["ours_ms"] = ours[name]
            row["vs_nccl_cublas"] = nccl_ms / ours[name]
            row["vs_async_tp"] = fused_ms / ours[name] if fused_ms else None
        rows.append(row)
    if rank == 0:
        fmt = lambda v, p=3: "-" if v is None else f"{v:.{p}f}"  # noqa: E731
        print(f"{'case':<18} {'GPUs':>4} {'NCCL+cuBLAS ms':>15} {'async-TP ms':>12} "
              f"{'ours ms':>9} {'vs NCCL+cuBLAS':>15} {'vs async-TP':>12}")
        for r in rows:
            print(f"{r['case']:<18} {r['ranks']:>4} {fmt(r['nccl_cublas_ms']):>15} "
                  f"{fmt(r['async_tp_ms']):>12} {fmt(r.get('ours_ms')):>9} "
                  f"{fmt(r.get('vs_nccl_cublas')):>15} {fmt(r.get('vs_async_tp')):>12}")
        print("(ratios: the baseline's time / ours; > 1: ours is faster)")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"bench": "tp torch baselines", "results": rows}, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

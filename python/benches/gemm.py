"""kosmos.gemm from PyTorch on a CUDA GPU against torch.matmul: TFLOP/s of bf16 x bf16 ->
f32 products (CUDA events, mean of 20 after 3 warm-ups) and the host time of one call with
a kept plan; and the fused all-reduce GEMM of a one-process JoinedWorld (the machinery of a
world of processes at world size 1) against kosmos.gemm, twice: on plain tensors (staged:
copies into its symmetric buffers, the persistent launch, the copy out) and on tensors in
its symmetric memory (used in place). Run: python3 python/benches/gemm.py [m n k ...]
(default 8192^3 and Llama-70B TP=8 shapes). Prints a table; writes JSON to
KOSMOS_BENCH_JSON when set."""

import json
import os
import sys
import time

import torch

import kosmos.torch  # noqa: F401  (registers torch.ops.kosmos)

shapes = [tuple(map(int, sys.argv[i:i + 3])) for i in range(1, len(sys.argv), 3)] or [
    (8192, 8192, 8192), (8192, 1280, 8192), (8192, 8192, 3584)]


def timed(f, reps=20):
    for _ in range(3):
        f()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        f()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / reps


world = kosmos.JoinedWorld(0, 1, "cuda:0", lambda mine: [mine])

rows = []
print(f"{'m x n x k':>18} {'gemm TF/s':>9} {'torch TF/s':>10} {'gemm/torch':>10} "
      f"{'host us':>7} {'staged TF/s':>11} {'/gemm':>5} {'in-place TF/s':>13} {'/gemm':>5}")
for m, n, k in shapes:
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
    out = torch.empty(m, n, device="cuda")
    ours = timed(lambda: kosmos.gemm(a, b, out=out))
    theirs = timed(lambda: torch.matmul(a, b))
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(100):
        kosmos.gemm(a, b, out=out)
    host_us = (time.perf_counter() - t0) / 100 * 1e6
    torch.cuda.synchronize()
    staged = timed(lambda: world.gemm_ar(a, b, out=out))
    world.synchronize()
    a_sym = torch.from_dlpack(world.empty((m, k))).copy_(a)
    b_sym = torch.from_dlpack(world.empty((k, n))).copy_(b)
    out_sym = torch.from_dlpack(world.empty((m, n), "float32"))
    in_place = timed(lambda: world.gemm_ar(a_sym, b_sym, out=out_sym))
    world.synchronize()
    assert torch.equal(out_sym, out), "in place and staged differ"
    del a_sym, b_sym, out_sym  # given back at the next world.empty
    tf = {name: 2 * m * n * k / ms / 1e9 for name, ms in
          [("gemm", ours), ("torch", theirs), ("staged", staged), ("in_place", in_place)]}
    rows.append({"m": m, "n": n, "k": k, "tflops": tf, "host_us_per_gemm_call": host_us,
                 "gemm_over_torch": theirs / ours, "staged_over_gemm": ours / staged,
                 "in_place_over_gemm": ours / in_place})
    print(f"{f'{m}x{n}x{k}':>18} {tf['gemm']:9.0f} {tf['torch']:10.0f} {theirs / ours:10.2f} "
          f"{host_us:7.0f} {tf['staged']:11.0f} {ours / staged:5.2f} {tf['in_place']:13.0f} "
          f"{ours / in_place:5.2f}")
world.close()
if os.environ.get("KOSMOS_BENCH_JSON"):
    with open(os.environ["KOSMOS_BENCH_JSON"], "w") as f:
        json.dump({"bench": "python-gemm", "rows": rows}, f, indent=1)

"""kosmos.gemm from PyTorch on a CUDA GPU against torch.matmul: TFLOP/s of bf16 x bf16 ->
f32 products (CUDA events, mean of 20 after 3 warm-ups) and the host time of one call with
a kept plan; and the fused all-reduce GEMM of a one-process JoinedWorld (the machinery of a
world of processes at world size 1: staging copies into its symmetric buffers, the
persistent launch, the copy out) against kosmos.gemm. Run: python3 python/benches/gemm.py
[m n k ...] (default 8192^3 and Llama-70B TP=8 shapes)."""

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
    joined = timed(lambda: world.gemm_ar(a, b, out=out))
    world.synchronize()
    flops = 2 * m * n * k
    print(f"{m}x{n}x{k}: kosmos.gemm {flops / ours / 1e9:.0f} TF/s, torch.matmul (bf16 out) "
          f"{flops / theirs / 1e9:.0f} TF/s, ratio {theirs / ours:.2f}; host per call {host_us:.0f} us; "
          f"JoinedWorld.gemm_ar (1 process) {flops / joined / 1e9:.0f} TF/s, {ours / joined:.2f}x "
          "of kosmos.gemm")

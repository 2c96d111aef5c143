#!/bin/bash
# The fused tensor-parallel ops on N real GPUs (one rank each, N-way tensor parallelism)
# against NCCL + cuBLAS and PyTorch's async-TP, in one run:
#   bench/tp_multi_gpu.sh N path/to/tp [out-dir]
# `path/to/tp` is the benchmark binary of `cargo bench -p kosmos-bench --no-run`
# (target/release/deps/tp-*); torch with NCCL must be importable by python3.
# KOSMOS_BENCH_TOKENS (comma-separated, default 1024,2048,4096,8192,16384) is the sweep of
# tokens, the GEMMs' `m`.
set -euo pipefail
# NVLink multicast stays off (NVLS in NCCL, symmetric memory's and NVSHMEM's multicast).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
gpus=${1:?number of GPUs}
tp=${2:?path to the tp benchmark binary}
out=${3:-.}
here=$(dirname "$0")
tokens=${KOSMOS_BENCH_TOKENS:-1024,2048,4096,8192,16384}
KOSMOS_BENCH_GPUS=$gpus KOSMOS_BENCH_TOKENS=$tokens KOSMOS_BENCH_JSON="$out/tp_multi.json" "$tp"
torchrun --nproc-per-node "$gpus" "$here/tp_torch.py" --tokens "$tokens" \
    --ours "$out/tp_multi.json" --json "$out/tp_torch.json"

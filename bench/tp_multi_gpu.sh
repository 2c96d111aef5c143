#!/bin/bash
# The fused tensor-parallel ops on N real GPUs (one rank each) against NCCL + cuBLAS and
# PyTorch's async-TP, in one run:
#   bench/tp_multi_gpu.sh N path/to/tp [out-dir]
# `path/to/tp` is the benchmark binary of `cargo bench -p kosmos-bench --no-run`
# (target/release/deps/tp-*); torch with NCCL must be importable by python3.
set -euo pipefail
gpus=${1:?number of GPUs}
tp=${2:?path to the tp benchmark binary}
out=${3:-.}
here=$(dirname "$0")
KOSMOS_BENCH_GPUS=$gpus KOSMOS_BENCH_JSON="$out/tp_multi.json" "$tp"
torchrun --nproc-per-node "$gpus" "$here/tp_torch.py" --ours "$out/tp_multi.json" --json "$out/tp_torch.json"

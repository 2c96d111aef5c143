#!/bin/bash
# The one-launch MoE layer on N real GPUs (one expert-parallel rank each), forward and one
# training step, against PyTorch's expert-parallel path (all_to_all_single + grouped GEMMs)
# at the same shapes, in one run, with the ratios:
#   bench/moe_multi_gpu.sh N path/to/moe [out-dir]
# `path/to/moe` is the benchmark binary of `cargo bench -p kosmos-bench --no-run`
# (target/release/deps/moe-*); torch with NCCL must be importable by python3.
# KOSMOS_BENCH_TOKENS (tokens per rank, default 4096) and KOSMOS_BENCH_SHAPE pass through.
set -euo pipefail
gpus=${1:?number of GPUs}
moe=${2:?path to the moe benchmark binary}
out=${3:-.}
here=$(dirname "$0")
tokens=${KOSMOS_BENCH_TOKENS:-4096}
# NVLink multicast stays off (NVLS in NCCL, symmetric memory's and NVSHMEM's multicast).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
torchrun --nproc-per-node "$gpus" "$here/moe_ep_torch.py" --tokens "$tokens" --backward \
    --json "$out/moe_ep_torch.json"
KOSMOS_BENCH_GPUS=$gpus KOSMOS_BENCH_TOKENS=$tokens KOSMOS_BENCH_BACKWARD=1 \
    KOSMOS_BENCH_JSON="$out/moe_multi.json" "$moe"
python3 - "$out/moe_multi.json" "$out/moe_ep_torch.json" <<'PY'
import json, sys
ours = {r["proxy"]: r for r in json.load(open(sys.argv[1]))["results"]}
theirs = json.load(open(sys.argv[2]))["results"]
print(f"{'proxy':<12} {'GPUs':>4} {'pass':<8} {'torch EP ms':>12} {'ours ms':>9} {'torch / ours':>13}")
for t in theirs:
    o = ours.get(t["proxy"])
    if o is None:
        continue
    for name, mine, path in (("forward", o["moe_forward_ms"], t["forward_ms"]),
                             ("fwd+bwd", o.get("train_step_ms"), t.get("train_step_ms"))):
        if mine and path:
            print(f"{t['proxy']:<12} {t['ranks']:>4} {name:<8} {path:>12.3f} {mine:>9.3f} "
                  f"{path / mine:>13.3f}")
PY

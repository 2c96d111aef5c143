#!/bin/bash
# The one-launch MoE layer forward, and one training step (forward + backward), against
# PyTorch's paths of the same layer on one GPU, in one run, with the ratios:
#   bench/moe_h200.sh path/to/moe [out-dir]
# `path/to/moe` is the benchmark binary of `cargo bench -p kosmos-bench --no-run`
# (target/release/deps/moe-*); torch must be importable by python3. Environment variables of
# the benchmark (KOSMOS_BENCH_TOKENS, KOSMOS_BENCH_SHAPE, KOSMOS_BENCH_RANKS) pass through.
set -euo pipefail
moe=${1:?path to the moe benchmark binary}
out=${2:-.}
here=$(dirname "$0")
tokens=${KOSMOS_BENCH_TOKENS:-4096}
python3 "$here/moe_torch.py" --tokens "$tokens" --backward --json "$out/moe_torch.json"
KOSMOS_BENCH_BACKWARD=1 KOSMOS_BENCH_JSON="$out/moe.json" "$moe"
python3 - "$out/moe.json" "$out/moe_torch.json" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["results"]
torch = json.load(open(sys.argv[2]))["results"]
print(f"{'proxy':<12} {'path':<22} {'ms':>9} {'ours ms':>9} {'ours / path speed':>18}")
for o in (r for r in ours if r["ranks"] == 1):
    for t in (t for t in torch if t["proxy"] == o["proxy"]):
        # A training step is compared with the paths' fwd+bwd rows, the forward with the rest.
        mine = o["train_step_ms"] if t["path"].endswith("fwd+bwd") else o["moe_forward_ms"]
        ratio = t["ms"] / mine
        print(f"{o['proxy']:<12} {t['path']:<22} {t['ms']:>9.3f} {mine:>9.3f} {ratio:>18.3f}")
PY

"""The PyTorch baselines of the benchmarks (`bench/*.py`), run on CPU tensors at small shapes:
the scripts that a machine of several GPUs runs only at times must still run when it comes.
Each runs as the benchmarks run it (`torchrun` for the multi-process ones, over gloo here),
and its JSON is checked: every row there, the paths agreeing. Skipped, with the reason shown,
where torch is not installed, and where a GPU is (its benchmark steps run them there)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
pytestmark = pytest.mark.skipif(
    torch.cuda.is_available(),
    reason="a GPU machine runs these scripts for real in its benchmark steps",
)

BENCH = Path(__file__).resolve().parents[2] / "bench"
SMALL = ["--hidden", "64", "--experts", "16", "--ffn", "48", "--tokens", "40"]


def run(args, tmp_path):
    """Runs `args` (a script and its arguments) to completion; its output on failure."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"


def torchrun(script, *args):
    return [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
            str(BENCH / script), "--device", "cpu", *args]


def test_moe_torch_runs_both_paths_and_checks_them(tmp_path):
    out = tmp_path / "moe.json"
    run([sys.executable, str(BENCH / "moe_torch.py"), "--device", "cpu", *SMALL,
         "--warmup", "0", "--repeats", "1", "--backward", "--check", "--json", str(out)],
        tmp_path)
    rows = json.loads(out.read_text())["results"]
    assert {r["path"] for r in rows} >= {"loop", "grouped", "loop fwd+bwd", "grouped fwd+bwd"}


def test_the_expert_parallel_baseline_matches_ep1(tmp_path):
    out = tmp_path / "ep.json"
    run(torchrun("moe_ep_torch.py", *SMALL, "--warmup", "0", "--repeats", "1", "--backward",
                 "--json", str(out)), tmp_path)
    rows = json.loads(out.read_text())["results"]
    assert [r["proxy"] for r in rows] == ["deepseek-v3", "qwen3-235b"]
    for r in rows:
        assert r["ranks"] == 2
        assert r["rel_err_vs_ep1"] < 1e-2 and r["dx_rel_err_vs_ep1"] < 1e-2, r
        assert r["forward_ms"] > 0 and r["train_step_ms"] > 0, r


def test_the_tensor_parallel_baselines_cover_every_case(tmp_path):
    out = tmp_path / "tp.json"
    ours = tmp_path / "ours.json"
    ours.write_text(json.dumps({"results": [{"case": "qkv ag_gemm", "m": 16, "fused_ms": 1.0}]}))
    run(torchrun("tp_torch.py", "--tokens", "16", "--runs", "0,1", "--ours", str(ours),
                 "--json", str(out)), tmp_path)
    doc = json.loads(out.read_text())
    rows = doc["results"]
    assert len(rows) == 5 and all(r["m"] == 16 and r["ranks"] == 2 for r in rows)
    # Llama-3-70B at TP=2: QKV's 10240 columns and the FFN's 28672 halved.
    assert [(r["n"], r["k"]) for r in rows] == [
        (5120, 8192), (28672, 8192), (8192, 4096), (8192, 14336), (8192, 14336)]
    assert rows[0]["ours_ms"] == 1.0 and rows[0]["vs_nccl_cublas"] > 0
    assert doc["nccl_all_gather_received_gbps"] > 0

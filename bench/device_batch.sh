#!/bin/bash
# The GPU batch, on a machine without Rust: unpacks bundle.tar.xz (made by `cargo xtask
# device-bundle DIR`, next to this script) and runs the named steps, each logged to
# OUT/<step>.log, then prints a line per step with its exit status and seconds.
#   bash DIR/device_batch.sh OUT [step...]
# KOSMOS_BATCH_SECONDS: a step starts only while the batch has run less than that many
# seconds (the rest are listed as skipped), so that a device command ends inside its limit.
# KOSMOS_BATCH_PACK=1: the steps' logs and JSON go into one archive, OUT/batch.tgz, beside
# OUT/summary.txt (the device machine gives back only a few files of OUT).
# Steps (default: tests python bench-gemm bench-tp; one device command has ten minutes, so
# a batch is usually several calls):
#   tests      the GPU tests: fused TP ops on emulated worlds, every op, the runtime's CUDA
#              tests, the math functions' accuracy, tensor stores, the scheduler's
#              emulated worlds
#   tests-worlds  the MoE layer's and the fused TP ops' test suites (those of CI) on emulated
#              worlds of the GPU (KOSMOS_TEST_DEVICE), one test at a time
#   sanitize   compute-sanitizer's memcheck, racecheck and synccheck on the GPU: the MoE
#              layer's wide-tile backward test (both passes, both mainloops) and the fused
#              TP MLP's forward and backward (all-gather and reduce-scatter pipelines)
#   profile    the MoE backward at EP=1 under Nsight Compute: throughput, memory and
#              warp-state sections, and the warp-state samples per SASS instruction
#              (OUT/profile_<shape>_sass.csv; KOSMOS_PROFILE_SHAPE qwen or deepseek)
#   demo       the demo (every op against its reference)
#   python     the wheel installed beside the machine's torch; the Python tests; kosmos.gemm
#              against torch.matmul (python/benches/gemm.py, JSON to OUT/python_gemm.json)
#   bench-gemm bench-tp bench-moe   the benchmarks (JSON to OUT/<step>.json; bench-moe runs
#              bench/moe_h200.sh: world sizes $KOSMOS_BENCH_RANKS, default 1,8, forward and
#              training step against PyTorch)
#   timelines  the fused TP MLP's and the MoE layer's timelines (SVGs in OUT)
#   bytes      each hot kernel's time and memory traffic under Nsight Compute (one launch
#              after warm-up, clocks left alone): the fused TP ops against our gemm at QKV's
#              and out-proj's shapes, the MoE forward and backward at both proxies (EP=1)
#   links      the signal round trip and pulls by workgroups against the driver's peer copy
#              (bench/benches/links.rs; on one GPU, two emulated ranks; JSON to OUT/links.json)
#   bench-tp-multi  on a machine of several GPUs: the links between them, then the fused TP
#              ops on all of them, a rank each, against NCCL + cuBLAS and PyTorch's async-TP
#              (bench/tp_multi_gpu.sh; KOSMOS_BENCH_TOKENS, default 1024..16384; JSON to
#              OUT/links.json, OUT/tp_multi.json and OUT/tp_torch.json)
#   ab-<bench> the benchmark <bench> (gemm, tp, moe, ...) of the bundle ("new") against each
#              <bench>_<label>.xz beside this script (the same benchmark built at another
#              commit: `cargo xtask bench-at DIR <bench> REV...` makes them),
#              alternating, AB_ROUNDS rounds (default 2), its environment passed through
#              (e.g. KOSMOS_BENCH_RANKS); a run that fails or outlives KOSMOS_STEP_SECONDS
#              is logged and the others go on; JSON to OUT/ab_<bench>_<label>_<round>.json
#   bench-moe-multi  on a machine of several GPUs: the MoE layer on all of them, a rank each,
#              forward and training step, against PyTorch's expert-parallel path
#              (bench/moe_multi_gpu.sh; JSON to OUT/moe_multi.json and OUT/moe_ep_torch.json)
set -uo pipefail
out=${1:?output folder}
shift
final=$out
if [ "${KOSMOS_BATCH_PACK:-0}" = 1 ]; then
    out=$(mktemp -d /tmp/kosmos-batch.XXXXXX)
fi
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests python bench-gemm bench-tp)
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/kosmos-bundle
mkdir -p "$out" "$final" "$work"
[ -x "$work/bin/demo" ] || tar xJf "$here/bundle.tar.xz" -C "$work" || exit 1
cd "$work"
export KOSMOS_DEVICE=${KOSMOS_DEVICE:-cuda:0}
# cuBLAS (the benchmarks' baseline) lives in the CUDA toolkit's lib64.
cublas=$(ls /usr/local/cuda*/lib64/libcublas.so.13 2>/dev/null | head -1)
[ -n "$cublas" ] && export LD_LIBRARY_PATH=$(dirname "$cublas")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# PyTorch's interpreter, where the image has one.
[ -d /opt/torch/.venv/bin ] && export PATH=/opt/torch/.venv/bin:$PATH

# Every command of a step gives up after KOSMOS_STEP_SECONDS (default 540: a device command
# has ten minutes), so that a hang still leaves the logs and the summary.
t() { timeout "${KOSMOS_STEP_SECONDS:-540}" "$@"; }

step() {
    case $1 in
    tests)
        t ./bin/test_tp_device --include-ignored --test-threads=1 &&
            t ./bin/test_ops --include-ignored &&
            KOSMOS_TEST_GPU=cuda t ./bin/test_devices --include-ignored cuda:: &&
            t ./bin/test_math --include-ignored --nocapture &&
            t ./bin/test_tensor_stores --nocapture &&
            t ./bin/test_gpu_world --include-ignored --test-threads=1 ;;
    tests-worlds)
        KOSMOS_TEST_DEVICE=$KOSMOS_DEVICE t ./bin/test_moe --test-threads=1 &&
            KOSMOS_TEST_DEVICE=$KOSMOS_DEVICE t ./bin/test_tp --test-threads=1 ;;
    sanitize)
        local failed=0 test bin name
        for tool in memcheck racecheck synccheck; do
            for test in "test_moe moe_backward_cuts_wide_tiles_at_every_edge" \
                "test_tp tp_mlp_forward_and_backward_match_the_reference"; do
                read -r bin name <<<"$test"
                echo "-- $tool $name"
                KOSMOS_TEST_DEVICE=$KOSMOS_DEVICE t compute-sanitizer --tool "$tool" \
                    --error-exitcode 1 "./bin/$bin" --test-threads=1 "$name" || failed=1
            done
        done
        return $failed ;;
    demo) t ./bin/demo ;;
    python)
        rm -rf /tmp/kpkg &&
            python3 -m pip install --quiet --no-index --no-deps --target /tmp/kpkg wheel/*.whl &&
            PYTHONPATH=/tmp/kpkg t python3 -m pytest -q -rs python/tests &&
            PYTHONPATH=/tmp/kpkg KOSMOS_BENCH_JSON="$out/python_gemm.json" \
                t python3 python/benches/gemm.py ;;
    bench-gemm) KOSMOS_BENCH_JSON="$out/bench-gemm.json" t ./bin/gemm ;;
    bench-tp) KOSMOS_BENCH_JSON="$out/bench-tp.json" t ./bin/tp ;;
    links) KOSMOS_BENCH_JSON="$out/links.json" t ./bin/links ;;
    bench-tp-multi)
        gpus=$(nvidia-smi -L | wc -l)
        KOSMOS_BENCH_GPUS=$gpus KOSMOS_BENCH_JSON="$out/links.json" t ./bin/links &&
            t bash bench/tp_multi_gpu.sh "$gpus" ./bin/tp "$out" ;;
    bench-moe-multi)
        t bash bench/moe_multi_gpu.sh "$(nvidia-smi -L | wc -l)" ./bin/moe "$out" ;;
    bench-moe)
        KOSMOS_BENCH_RANKS=${KOSMOS_BENCH_RANKS:-1,8} t bash bench/moe_h200.sh ./bin/moe "$out" ;;
    timelines)
        t ./bin/tp_timeline "$out/tp-timeline.svg" &&
            t ./bin/moe_timeline "$out/moe-timeline.svg" &&
            t ./bin/moe_timeline "$out/moe-backward-timeline.svg" backward ;;
    bytes)
        local metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
        metrics+=,lts__t_sector_hit_rate.pct
        # Our gemm at QKV's shape is two launches (wide and narrow tiles). The third launch
        # of each kernel: the moe benchmark times its fused forward first (one launch a
        # pass), before the unfused passes' launches of the same kernel by phase.
        for run in "tp qkv tp_pipeline 1" "tp qkv gemm_pipeline 2" \
            "tp out-proj tp_pipeline 1" "tp out-proj gemm_pipeline 1" \
            "moe qwen moe_pipeline 1" "moe deepseek moe_pipeline 1"; do
            set -- $run
            echo "-- $1 $2 $3"
            KOSMOS_BENCH_SHAPE=$2 KOSMOS_BENCH_RANKS=1 t ncu --clock-control none \
                -k "regex:$3" -s 2 -c "$4" --metrics "$metrics" "./bin/$1" |
                grep -E "^  [a-z_]+ \(|gpu__|dram__|lts__" || return 1
        done
        # The backward pass (the group mainloop at EP=1): four unfused launches by phase and
        # the checked fused one come first; the seventh is a timed fused launch.
        for shape in qwen deepseek; do
            echo "-- moe $shape moe_backward"
            KOSMOS_BENCH_SHAPE=$shape KOSMOS_BENCH_RANKS=1 KOSMOS_BENCH_BACKWARD=1 t ncu \
                --clock-control none -k regex:moe_backward__staged -s 6 -c 1 \
                --metrics "$metrics" ./bin/moe |
                grep -E "^  [a-z_]+ \(|gpu__|dram__|lts__" || return 1
        done ;;
    profile)
        # Where the MoE backward's (EP=1, the group mainloop) warps wait, per SASS
        # instruction: Nsight Compute's warp-state samples (KOSMOS_PROFILE_SHAPE: qwen or
        # deepseek, default qwen; the seventh launch, a timed fused one).
        local shape=${KOSMOS_PROFILE_SHAPE:-qwen}
        KOSMOS_BENCH_SHAPE=$shape KOSMOS_BENCH_RANKS=1 KOSMOS_BENCH_BACKWARD=1 t ncu \
            --clock-control none -k regex:moe_backward__staged -s 6 -c 1 \
            --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section SourceCounters -f -o /tmp/profile ./bin/moe \
            > /dev/null &&
            ncu -i /tmp/profile.ncu-rep --page details &&
            ncu -i /tmp/profile.ncu-rep --page source --csv --print-source sass \
                > "$out/profile_${shape}_sass.csv" ;;
    ab-*)
        local bench=${1#ab-} label f
        [ -x "bin/$bench" ] || { echo "no benchmark bin/$bench in the bundle" >&2; return 2; }
        local labels=()
        for f in "$here/${bench}"_*.xz; do
            [ -e "$f" ] || continue
            label=$(basename "$f" .xz)
            label=${label#"${bench}"_}
            xz -dc "$f" > "/tmp/ab_${bench}_$label" && chmod +x "/tmp/ab_${bench}_$label" || return 1
            labels+=("$label")
        done
        [ ${#labels[@]} -gt 0 ] || { echo "no ${bench}_<label>.xz beside $0" >&2; return 2; }
        cp "bin/$bench" "/tmp/ab_${bench}_new" && labels+=(new)
        for round in $(seq "${AB_ROUNDS:-2}"); do
            for label in "${labels[@]}"; do
                echo "== $bench $label, round $round"
                KOSMOS_BENCH_JSON="$out/ab_${bench}_${label}_$round.json" \
                    t "/tmp/ab_${bench}_$label" || echo "== $label failed: rc=$?"
            done
        done ;;
    *) echo "unknown step $1" >&2; return 2 ;;
    esac
}

summary=()
for s in "${steps[@]}"; do
    start=$SECONDS
    if [ -n "${KOSMOS_BATCH_SECONDS:-}" ] && [ "$SECONDS" -ge "$KOSMOS_BATCH_SECONDS" ]; then
        summary+=("$(printf '%-11s skipped at %ss' "$s" "$SECONDS")")
        continue
    fi
    echo "== $s" >&2
    step "$s" > "$out/$s.log" 2>&1
    rc=$?
    tail -25 "$out/$s.log"
    summary+=("$(printf '%-11s rc=%-3s %4ss' "$s" "$rc" $((SECONDS - start)))")
done
printf '%s\n' "${summary[@]}" | tee "$final/summary.txt"
if [ "$out" != "$final" ]; then
    tar czf "$final/batch.tgz" -C "$out" . && rm -rf "$out"
fi

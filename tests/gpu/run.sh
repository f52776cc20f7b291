#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU checks in one go, for a machine with an NVIDIA GPU, the CUDA toolkit, CMake, a compiler and
# no Qt: configures the engine with the CUDA back end, builds libhearth-cuda.so, hearth-gpu-check
# and hearth-hybrid-bench (and the tools end_to_end.sh uses), runs the check (every CUDA kernel against the CPU kernels) and the
# hybrid FFN benchmark (with hybrid placement against whole-layer offload at a budget of a quarter
# of the 7B shape's FFN weights), and leaves JSON results and a log in $OUT (default ./gpu-out).
#
# Exit status: 0 all checks passed; 1 a kernel disagrees with the CPU; 2 configure failed;
# 3 build failed; 4 a GPU is present but the back end would not open; 5 the benchmark failed;
# 6 a whole model failed on the CPU or the GPU (end_to_end.sh).
#
# Environment: OUT (results folder), HEARTH_GPU_BUILD (build folder, default build-gpu in the
# source tree), HEARTH_CUDA_ARCHS (CMAKE_CUDA_ARCHITECTURES, default the project's list),
# JOBS (parallel build jobs, default all cores), HEARTH_GPU_CMAKE_ARGS (extra configure arguments),
# HEARTH_GPU_BENCH_ARGS (extra benchmark arguments, e.g. --quick), HEARTH_E2E_SECTIONS (the parts
# of end_to_end.sh to run, e.g. "models moe"; default all).

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=${HEARTH_GPU_BUILD:-$ROOT/build-gpu}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
LOG="$OUT/gpu-run.log"
: > "$LOG"
exec > >(tee -a "$LOG") 2>&1

step() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }
started=$(date +%s)

step "machine"
uname -a
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version,compute_cap --format=csv || true
    gpu_present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
else
    echo "nvidia-smi not found"
    gpu_present=0
fi
command -v nvcc >/dev/null 2>&1 && nvcc --version | tail -n 2
"${CXX:-c++}" --version | head -n 1

step "configure"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
archs=()
[[ -n "${HEARTH_CUDA_ARCHS:-}" ]] && archs=(-DCMAKE_CUDA_ARCHITECTURES="$HEARTH_CUDA_ARCHS")
if [[ -z "${CUDACXX:-}" ]] && ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export CUDACXX=/usr/local/cuda/bin/nvcc
fi
if ! cmake -S "$ROOT" -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DHEARTH_BUILD_APP=OFF -DHEARTH_BUILD_TESTS=ON -DHEARTH_CUDA=ON "${archs[@]}" ${HEARTH_GPU_CMAKE_ARGS:-}; then
    echo "configure failed"
    exit 2
fi

step "build"
# Keep going past a failed file (ninja -k 0), so one run lists every error of a new compiler.
keep_going=()
[[ ${#generator[@]} -gt 0 ]] && keep_going=(-- -k 0)
if ! cmake --build "$BUILD" -j "$JOBS" --target hearth-cuda hearth-gpu-check hearth-hybrid-bench "${keep_going[@]}"; then
    echo "build failed"
    exit 3
fi
cmake --build "$BUILD" -j "$JOBS" --target hearth-synth hearth-cli hearth-bench hearth-profile hearth-perplexity \
    hearth-sparsify "${keep_going[@]}" \
    || echo "the tools did not build: no whole-model runs"
ls -l "$BUILD/lib/hearth/"

step "hearth-gpu-check"
"$BUILD/bin/hearth-gpu-check" --out "$OUT"
check=$?
if [[ $check -eq 0 ]] && grep -q '"status": "skipped"' "$OUT/gpu-check.json" 2>/dev/null; then
    if [[ "$gpu_present" -gt 0 ]]; then
        echo "a GPU is present but the CUDA back end did not open"
        check=4
    fi
fi

step "hybrid FFN benchmark, and hybrid against whole-layer offload"
bench=0
for type in q4_0 f16; do
    timeout 150 "$BUILD/bin/hearth-hybrid-bench" --type "$type" --tokens 64 --out "$OUT" ${HEARTH_GPU_BENCH_ARGS:-} || bench=5
    # A desktop's CPU share: 4 threads, where the hybrid plan's CPU half costs more.
    timeout 150 "$BUILD/bin/hearth-hybrid-bench" --type "$type" --tokens 64 --threads 4 --out "$OUT/threads-4" \
        ${HEARTH_GPU_BENCH_ARGS:-} || bench=5
done
for json in "$OUT"/hybrid-bench-*.json "$OUT"/threads-4/hybrid-bench-*.json; do
    [[ -f "$json" ]] || continue
    printf '%s: ' "${json#"$OUT"/}"
    grep -o '"whole_layer_tokens_per_s": [0-9.]*, "hybrid_tokens_per_s": [0-9.]*, "hybrid_speedup": [0-9.]*' "$json" \
        || grep -o '"whole_layer_comparison": {"error"[^}]*}' "$json" || echo "no comparison"
done

step "whole models: CPU against GPU, and hearth-bench"
end_to_end=0
# shellcheck disable=SC2086 # the sections are words
"$ROOT/tests/gpu/end_to_end.sh" "$BUILD" "$OUT" ${HEARTH_E2E_SECTIONS:-} || end_to_end=6

elapsed=$(( $(date +%s) - started ))
cat > "$OUT/summary.json" <<JSON
{"gpu_check_exit": $check, "bench_exit": $bench, "end_to_end_exit": $end_to_end, "gpu_present": $gpu_present, "seconds": $elapsed}
JSON
step "done in ${elapsed}s: gpu-check exit $check, benchmark exit $bench, whole models exit $end_to_end; results in $OUT"
grep -a 'FAIL' "$LOG" | head -n 40
if [[ $check -ne 0 ]]; then
    exit "$check"
fi
[[ $bench -ne 0 ]] && exit "$bench"
exit "$end_to_end"

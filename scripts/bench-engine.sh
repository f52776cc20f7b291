#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Engine benchmark: generates TinyLlama-1.1B-shaped synthetic models (F16 and Q4_0) once into
# a cache folder, runs hearth-bench on each and writes one JSON file per model plus a summary
# table (the one in docs/benchmarks.md).
#
#   scripts/bench-engine.sh [-b BUILD_DIR] [-c CACHE_DIR] [-o RESULTS_DIR] [-t THREADS]
#                           [-s SHAPE] [-T "f16 q4_0"] [-r REPS] [-p PROMPT] [-n GEN]
#
# Synthetic weights decode as fast as trained ones (every weight is read once per token either
# way), so no download is needed and every machine benchmarks the very same bytes.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HEARTH_BUILD_DIR:-$root/build}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/hearth/bench-models"
results=""
threads=2
shape="tinyllama-1.1b"
types="f16 q4_0"
reps=5
prompt=128
generate=64

usage() { sed -n '4,12p' "$0" | sed 's/^# \{0,1\}//'; }
while getopts "b:c:o:t:s:T:r:p:n:h" opt; do
    case "$opt" in
        b) build="$OPTARG" ;;
        c) cache="$OPTARG" ;;
        o) results="$OPTARG" ;;
        t) threads="$OPTARG" ;;
        s) shape="$OPTARG" ;;
        T) types="$OPTARG" ;;
        r) reps="$OPTARG" ;;
        p) prompt="$OPTARG" ;;
        n) generate="$OPTARG" ;;
        h) usage; exit 0 ;;
        *) usage >&2; exit 1 ;;
    esac
done

results="${results:-$build/bench-results}"
synth="$build/bin/hearth-synth"
bench="$build/bin/hearth-bench"
for tool in "$synth" "$bench"; do
    if [[ ! -x "$tool" ]]; then
        echo "bench-engine: $tool not found; build first (ninja -C $build hearth-synth hearth-bench) or pass -b BUILD_DIR" >&2
        exit 1
    fi
done
mkdir -p "$cache" "$results"

summary="$results/summary.md"
{
    echo "| model | type | threads | prefill tok/s | decode tok/s | GB/s | % of bandwidth | prefill/decode per token |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
} > "$summary"

for type in $types; do
    model="$cache/synth-$shape-$type.gguf"
    # hearth-synth writes FILE.part and renames it when complete, so an existing file is whole.
    if [[ -f "$model" ]]; then
        echo "bench-engine: reusing $model"
    else
        echo "bench-engine: generating $model"
        "$synth" --shape "$shape" --type "$type" --seed 42 -o "$model"
    fi

    out="$results/$shape-$type-t$threads.json"
    echo "bench-engine: hearth-bench $shape $type, $threads threads"
    "$bench" -m "$model" -t "$threads" -p "$prompt" -n "$generate" -r "$reps" --json > "$out"
    cat "$out"

    # One table row from the JSON, without depending on jq.
    python3 - "$out" "$shape" "$type" >> "$summary" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def f(v, fmt):
    return "n/a" if v is None else fmt.format(v)
print("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
    sys.argv[2], sys.argv[3].upper(), r["threads"],
    f(r["prefill_tokens_per_second"], "{:.2f}"), f(r["decode_tokens_per_second"], "{:.2f}"),
    f(r["achieved_gb_per_second"], "{:.2f}"),
    f(None if r["bandwidth_fraction"] is None else 100 * r["bandwidth_fraction"], "{:.0f}%"),
    f(r["prefill_over_decode"], "{:.1f}x")))
PY
done

echo
cat "$summary"

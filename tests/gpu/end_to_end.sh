#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Whole models on the GPU, after the kernel checks: synthetic models of each family and weight
# type generate greedily on the CPU alone (--vram-budget 0) and with the GPU (whole layers of dense
# files, hot neurons of sparse ones); the two texts are printed side by side with the number of
# leading characters they share (the GPU multiplies full-float activations, the CPU Q8 ones, so
# random models may part after a while, and a tiny model's near-even first choice may part at
# once), with the perplexity of each on the same text, which must agree closely (it is computed
# from every logit, so a wrong layer shows there even when the greedy texts agree); then
# a mixture of experts with its experts placed by use and layer by layer, and hearth-bench times
# decode and prefill with and without the GPU.
#
#   end_to_end.sh BUILD_DIR OUT_DIR [SECTION...]
#
# SECTION: models, moe, bench (default all three, in this order), to rerun one part alone.
#
# Exit status: 0 every model ran on both; 1 a model failed to load or generate.

set -uo pipefail
BUILD=$1
OUT=$2
shift 2
SECTIONS=${*:-models moe bench}
BIN=$BUILD/bin
for tool in hearth-synth hearth-cli hearth-bench hearth-profile hearth-perplexity hearth-sparsify; do
    [[ -x "$BIN/$tool" ]] || { echo "$BIN/$tool is missing"; exit 1; }
done
mkdir -p "$OUT"
MODELS=$(mktemp -d)
trap 'rm -rf "$MODELS"' EXIT
status=0
# A short text keeps the perplexity runs and hearth-profile's pass over a large mixture brief.
TEXT=$MODELS/text.txt
head -c 4000 "$(dirname "$0")/../../engine/src/convert/calibration.txt" >"$TEXT"

# Long enough to take the prompt path of quantized weights (16 tokens or more: F16 tiles, cuBLAS).
PROMPT="Once upon a time, in a small village by the sea, there lived an old fisherman who went out every morning"

generate() { # model budget [hearth-cli options]
    timeout 120 "$BIN/hearth-cli" -m "$1" -p "$PROMPT" -n 32 --temp 0 --repeat-penalty 1 --raw \
        --vram-budget "$2" "${@:3}" 2>"$MODELS/stderr"
}

perplexity() { # model budget
    timeout 120 "$BIN/hearth-perplexity" -m "$1" -f "$TEXT" -c 64 -b 64 --chunks 4 --json --vram-budget "$2" \
        2>"$MODELS/stderr" | grep -o '"perplexity":[0-9.e+-]*' | cut -d: -f2
}

shared_prefix() {
    local a=$1 b=$2 n=0
    while [[ $n -lt ${#a} && $n -lt ${#b} && "${a:n:1}" == "${b:n:1}" ]]; do n=$((n + 1)); done
    echo "$n"
}

section() { [[ " $SECTIONS " == *" $1 "* ]]; }

# Generates with @p file on the CPU and the GPU and compares their texts and perplexities; with
# "loose" the GPU computes something else by design (a magnitude-sparse file's whole device
# layers compute every neuron), so only the numbers are shown. The GPU runs again with the model
# guessing ahead for itself (speculative decoding: batched passes, device caches cut back); its
# text is shown beside the GPU's (a batched pass rounds differently from a decoded token, so a
# random model's near ties may part them, as they part the CPU's and the GPU's).
compare() { # name file [loose]
    local name=$1 file=$2 cpu gpu guessed ppl_cpu ppl_gpu verdict
    cpu=$(generate "$file" 0) || { echo "$name: CPU run failed: $(tail -n 3 "$MODELS/stderr")"; status=1; return; }
    guessed=$(generate "$file" 8 --draft "$file" --draft-p-min 0) \
        || { echo "$name: GPU run with guesses failed: $(tail -n 3 "$MODELS/stderr")"; status=1; return; }
    grep -m 1 "speculative" "$MODELS/stderr" | sed "s/^/    /"
    gpu=$(generate "$file" 8) || { echo "$name: GPU run failed: $(tail -n 3 "$MODELS/stderr")"; status=1; return; }
    grep -m 1 "placement" "$MODELS/stderr" | sed "s/^/    /"
    echo "    guessing ahead: $(shared_prefix "$guessed" "$gpu") of ${#gpu} characters as without"
    ppl_cpu=$(perplexity "$file" 0) && ppl_gpu=$(perplexity "$file" 8) && [[ -n "$ppl_cpu" && -n "$ppl_gpu" ]] \
        || { echo "$name: perplexity failed: $(tail -n 3 "$MODELS/stderr")"; status=1; return; }
    # Quantized weights meet Q8 activations on the CPU and full floats on the GPU: the mean
    # negative log-likelihoods (the logarithms) may part by about a percent, not more.
    verdict=$(awk -v a="$ppl_cpu" -v b="$ppl_gpu" \
        'BEGIN { d = log(a) - log(b); if (d < 0) d = -d; print (d > 0.02 + 0.01 * log(a) ? "DIFFERS" : "") }')
    [[ -n "${3:-}" ]] && verdict=""
    [[ -n "$verdict" ]] && status=1
    printf '%-44s %8d %8d %11.4g / %-11.4g %s %q | %q\n' "$name" "${#cpu}" "$(shared_prefix "$cpu" "$gpu")" \
        "$ppl_cpu" "$ppl_gpu" "$verdict" "${cpu:0:60}" "${gpu:0:60}"
}

section models && printf '%-44s %8s %8s %24s  %s\n' "model" "chars" "shared" "perplexity cpu / gpu" "cpu | gpu"
section models && for spec in "llama tinyllama-1.1b q4_k 4" "llama tinyllama-1.1b q4_0 4" "llama tiny-256 q6_k 0" \
            "llama tiny-256 q5_k 0" "qwen2 qwen2-tiny q4_0 0" "qwen3 qwen3-tiny q8_0 0" "gemma2 gemma2-tiny f16 0" \
            "gemma3 gemma3-tiny q8_0 0" "phi3 phi3-tiny q4_0 0" "falcon falcon-tiny f16 0" "opt opt-tiny f16 0" \
            "llama tinyllama-1.1b q4_0 4 sparse" "llama tinyllama-1.1b q4_k 4 sparse" \
            "qwen3moe qwen3moe-tiny q4_1 0" "qwen2moe qwen2moe-tiny q8_0 0" "smallthinker smallthinker-tiny q4_0 0" \
            "llama mixtral-tiny f16 0" "gpt-oss gpt-oss-tiny mxfp4 0"; do
    read -r arch shape type layers sparse <<<"$spec"
    name="$arch-$shape-$type${sparse:+-sparse}"
    file="$MODELS/$name.gguf"
    args=(--arch "$arch" --shape "$shape" --type "$type" -q -o "$file")
    [[ "$layers" != 0 ]] && args+=(--layers "$layers")
    [[ -n "${sparse:-}" ]] && args+=(--ffn reglu --sparsity 0.9)
    if ! "$BIN/hearth-synth" "${args[@]}"; then
        echo "$name: hearth-synth failed"
        status=1
        continue
    fi
    compare "$name" "$file"
    rm -f "$file" "$file".*
done

# Files hearth-sparsify made: ReLU models with fitted (linear) predictors, whose hybrid layers
# must compute what the CPU does (OPT's predictors read the LayerNorm's output and add a bias),
# and a SwiGLU model made sparse by magnitude, whose most kept neurons go to the GPU with their
# floors (the same text as the CPU's), then, without its statistics file, whose layers go to
# the GPU whole and compute every neuron there.
section models && for spec in "llama tinyllama-1.1b q4_0 reglu fitted" "opt opt-125m q8_0 relu fitted" \
            "llama tinyllama-1.1b q4_0 swiglu magnitude"; do
    read -r arch shape type ffn kind <<<"$spec"
    name="$arch-$shape-$type-$kind"
    dense="$MODELS/$name-dense.gguf"
    file="$MODELS/$name.gguf"
    args=(--arch "$arch" --shape "$shape" --layers 4 --type "$type" --ffn "$ffn" -q -o "$dense")
    [[ "$kind" == fitted ]] && args+=(--activation-sparsity 0.85)
    if ! "$BIN/hearth-synth" "${args[@]}" \
        || ! "$BIN/hearth-sparsify" -m "$dense" -o "$file" --tokens 2048 --max-perplexity-increase 1000 -q >/dev/null \
            2>"$MODELS/stderr"; then
        if grep -q "without Eigen" "$MODELS/stderr"; then
            echo "$name: skipped (this build cannot fit predictors: no Eigen)"
        else
            echo "$name: hearth-synth or hearth-sparsify failed: $(tail -n 3 "$MODELS/stderr")"
            status=1
        fi
        continue
    fi
    compare "$name" "$file"
    if [[ "$kind" == magnitude ]]; then
        rm -f "${file%.gguf}.hearth-stats.gguf" "$file".*
        compare "$name-layers" "$file" loose
    fi
    rm -f "$dense" "$dense".* "$file" "$file".* "${file%.gguf}".hearth-stats.gguf
done

if section moe; then
    for spec in "qwen3moe qwen3-30b-a3b q4_k" "gpt-oss gpt-oss-20b mxfp4"; do
        read -r arch shape type <<<"$spec"
        echo
        echo "Mixture of experts, $shape shape with 4 layers, $type, 4 threads: experts on the GPU by use"
        echo "(hearth-profile's statistics) against layer by layer (--experts-by-layer, llama.cpp's --n-cpu-moe)"
        file="$MODELS/$shape-4.gguf"
        if "$BIN/hearth-synth" --arch "$arch" --shape "$shape" --layers 4 --type "$type" -q -o "$file" \
            && timeout 300 "$BIN/hearth-profile" -m "$file" -f "$TEXT" \
                -o "${file%.gguf}.hearth-stats.gguf" -t "$(nproc)" -c 256 >/dev/null 2>"$MODELS/stderr"; then
            for run in "0" "0.75" "0.75 --experts-by-layer" "1.5" "1.5 --experts-by-layer" "8"; do
                read -r budget order <<<"$run"
                result=$(timeout 300 "$BIN/hearth-bench" -m "$file" -t 4 -r 2 -n 32 --json --no-bandwidth \
                    --vram-budget "$budget" $order 2>/dev/null) || { echo "bench $shape budget $run failed"; status=1; continue; }
                echo "$result" >>"$OUT/end-to-end-bench.json"
                printf '%s budget %-4s %-20s %s\n' "$shape" "$budget" "${order:-by use}" \
                    "$(grep -o '"[a-z_]*tokens_per_second":[0-9.]*\|"placement":"[^"]*"' <<<"$result" | tr '\n' ' ')"
            done
        else
            echo "$shape: hearth-synth or hearth-profile failed: $(tail -n 3 "$MODELS/stderr")"
            status=1
        fi
        rm -f "$MODELS/$shape"-4.*
    done
fi

section bench && echo
section bench && echo "hearth-bench, 1.1B shape with 8 layers: 2 threads on the CPU alone, 2 and all threads with the GPU"
section bench && for spec in "q4_0 dense" "q4_0 sparse" "q4_k dense" "f16 sparse"; do
    read -r type kind <<<"$spec"
    file="$MODELS/bench-$type-$kind.gguf"
    args=(--shape tinyllama-1.1b --layers 8 --type "$type" -q -o "$file")
    [[ "$kind" == sparse ]] && args+=(--ffn reglu --sparsity 0.9)
    "$BIN/hearth-synth" "${args[@]}" || { status=1; continue; }
    for budget in 0 8; do
        # All cores only with the GPU: the CPU's own speed is the 2-thread one (docs/benchmarks.md).
        threads_list=2
        [[ "$budget" != 0 ]] && threads_list="2 $(nproc)"
        for threads in $threads_list; do
            result=$(timeout 120 "$BIN/hearth-bench" -m "$file" -t "$threads" -r 2 -n 32 --json --no-bandwidth \
                --vram-budget "$budget" 2>/dev/null) || { echo "bench $type $kind budget $budget failed"; status=1; continue; }
            echo "$result" >>"$OUT/end-to-end-bench.json"
            printf '%-6s %-6s budget %-2s threads %-3s %s\n' "$type" "$kind" "$budget" "$threads" \
                "$(grep -o '"[a-z_]*tokens_per_second":[0-9.]*\|"placement":"[^"]*"' <<<"$result" | tr '\n' ' ')"
        done
    done
    rm -f "$file" "$file".*
done
exit "$status"

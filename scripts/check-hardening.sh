#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Hardening check for every parser of untrusted input (GGUF, safetensors and its index, zip,
# PyTorch pickles, JSON, config.json, SentencePiece, tokenizer.json, the tokenizers' encode and
# chat templates): builds their tests and libFuzzer targets with clang, AddressSanitizer,
# LeakSanitizer and UBSan, runs the tests, then fuzzes each target for the given number of
# seconds from its seeds (tests/fuzz/corpus/<target>/ and the binary seeds make_fuzz_seeds writes).
# Exits non-zero on any test failure or sanitizer/fuzzer finding; a finding's input is left in
# the work folder's artifacts/ to be added to the target's corpus once fixed.
#
# Usage: scripts/check-hardening.sh [seconds-per-target] [target...]   (default 20, all targets)
# Environment: HEARTH_HARDENING_BUILD_DIR (default <repo>/build-hardening), JOBS (default 2).

set -euo pipefail

seconds="${1:-20}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 [seconds-per-target] [target...]" >&2
    exit 2
fi
shift || true

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HEARTH_HARDENING_BUILD_DIR:-$repo/build-hardening}"
jobs="${JOBS:-2}"
all_targets=(gguf json safetensors safetensors_index zip torch hf_config sentencepiece tokenizer_json tokenize jinja)
targets=("${@:-${all_targets[@]}}")
# The tests of the same parsers, run under the sanitizers first.
tests=(tst_gguf tst_safetensors tst_torch_reader tst_tokenizer tst_chat_template tst_hostile_templates)

fail() {
    echo "check-hardening: $*" >&2
    exit 1
}

command -v clang >/dev/null && command -v clang++ >/dev/null \
    || fail "clang/clang++ not found (Debian: apt-get install clang)"
command -v cmake >/dev/null || fail "cmake not found"
generator=()
if command -v ninja >/dev/null; then
    generator=(-G Ninja)
fi

# The sanitizer and libFuzzer runtimes ship separately from clang on Debian; without them the
# link fails with an obscure message, so say what is missing up front.
resource_dir="$(clang++ -print-resource-dir)"
for runtime in asan ubsan_standalone fuzzer; do
    if ! ls "$resource_dir"/lib/linux/libclang_rt."$runtime"-x86_64.a >/dev/null 2>&1 \
        && ! ls "$resource_dir"/lib/*/libclang_rt."$runtime".a >/dev/null 2>&1; then
        clang_major="$(clang++ -dumpversion | cut -d. -f1)"
        fail "clang's $runtime runtime is missing under $resource_dir (Debian: apt-get install libclang-rt-${clang_major}-dev)"
    fi
done

echo "== configuring $build"
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$repo" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHEARTH_SANITIZE=ON -DHEARTH_FUZZ=ON -DHEARTH_BUILD_APP=OFF -DHEARTH_CUDA=OFF >"$build/configure.log" 2>&1 \
    || { cat "$build/configure.log" >&2; fail "configuration failed"; }

echo "== building ${tests[*]} and the fuzz targets"
cmake --build "$build" --parallel "$jobs" --target "${tests[@]}" hearth-fuzzers || fail "build failed"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export QT_QPA_PLATFORM=offscreen

for test in "${tests[@]}"; do
    echo "== $test under AddressSanitizer + UBSan"
    "$build/bin/$test" >"$build/$test.log" 2>&1 || { tail -50 "$build/$test.log" >&2; fail "$test failed under the sanitizers"; }
    grep "^Totals" "$build/$test.log"
done

work="$build/fuzz"
rm -rf "$work"
mkdir -p "$work/seeds" "$work/artifacts"
"$build/bin/make_fuzz_seeds" "$work/seeds" || fail "could not write the binary seeds"
# Small real files make good seeds too, when ../shared is there.
for f in "$repo/../shared/models/stories260K.gguf"; do
    if [[ -f "$f" && $(stat -c %s "$f") -lt 2000000 ]]; then
        cp "$f" "$work/seeds/gguf/"
    fi
done

[[ "$seconds" -gt 0 ]] || { echo "== hardening check passed (no fuzzing)"; exit 0; }
for target in "${targets[@]}"; do
    fuzzer="$build/bin/fuzz_$target"
    [[ -x "$fuzzer" ]] || fail "unknown fuzz target '$target' (known: ${all_targets[*]})"
    # New inputs go to the work folder; the kept corpus and the seeds are read only.
    mkdir -p "$work/$target"
    dirs=("$work/$target")
    for d in "$repo/tests/fuzz/corpus/$target" "$work/seeds/$target"; do
        [[ -d "$d" ]] && dirs+=("$d")
    done
    # Real chat templates from the tests are seeds of the template fuzzer too.
    [[ "$target" == jinja ]] && dirs+=("$repo/tests/engine/data/templates")
    case "$target" in
        json | hf_config | tokenizer_json | safetensors_index) dict_file="$repo/tests/fuzz/json.dict" ;;
        *) dict_file="$repo/tests/fuzz/$target.dict" ;;
    esac
    dict=()
    [[ -f "$dict_file" ]] && dict=(-dict="$dict_file")
    echo "== fuzz_$target for ${seconds}s"
    # -max_len keeps mutations small enough to be fast; -rss_limit_mb turns a huge allocation into a finding.
    "$fuzzer" "${dirs[@]}" "${dict[@]}" \
        -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
        -artifact_prefix="$work/artifacts/$target-" -print_final_stats=1 >"$work/$target.log" 2>&1 \
        || { tail -60 "$work/$target.log" >&2; fail "fuzz_$target found a problem; reproducer in $work/artifacts/"; }
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$work/$target.log" | tr '\n' ' '
    echo
    if compgen -G "$work/artifacts/$target-*" >/dev/null; then
        fail "fuzz_$target left artifacts in $work/artifacts/"
    fi
done

echo "== hardening check passed"

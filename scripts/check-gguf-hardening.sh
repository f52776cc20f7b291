#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Hardening check for the GGUF reader: builds tst_gguf and the libFuzzer target with clang,
# AddressSanitizer and UBSan, runs the tests, then fuzzes for the given number of seconds.
# Exits non-zero on any test failure or sanitizer/fuzzer finding.
#
# Usage: scripts/check-gguf-hardening.sh [seconds]   (default 60)
# Environment: HEARTH_HARDENING_BUILD_DIR (default <repo>/build-hardening), JOBS (default 2).

set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 [seconds]" >&2
    exit 2
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HEARTH_HARDENING_BUILD_DIR:-$repo/build-hardening}"
jobs="${JOBS:-2}"

fail() {
    echo "check-gguf-hardening: $*" >&2
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

echo "== building tst_gguf, fuzz_gguf, make_gguf_seeds"
cmake --build "$build" --parallel "$jobs" --target tst_gguf fuzz_gguf make_gguf_seeds \
    || fail "build failed"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export QT_QPA_PLATFORM=offscreen

echo "== tst_gguf under AddressSanitizer + UBSan"
"$build/bin/tst_gguf" || fail "tst_gguf failed under the sanitizers"

work="$build/fuzz-gguf"
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
"$build/bin/make_gguf_seeds" "$work/corpus" || fail "could not write the seed corpus"
# Small real files make good seeds too, when ../shared is there.
for f in "$repo/../shared/models/stories260K.gguf"; do
    if [[ -f "$f" && $(stat -c %s "$f") -lt 2000000 ]]; then
        cp "$f" "$work/corpus/"
    fi
done

if [[ "$seconds" -gt 0 ]]; then
    echo "== fuzz_gguf for ${seconds}s"
    # -max_len keeps mutations small enough to be fast; -rss_limit_mb turns a huge allocation into a finding.
    "$build/bin/fuzz_gguf" "$work/corpus" \
        -dict="$repo/tests/fuzz/gguf.dict" \
        -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 \
        -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
        || fail "fuzz_gguf found a problem; reproducer in $work/artifacts/"
    if compgen -G "$work/artifacts/*" >/dev/null; then
        fail "fuzz_gguf left artifacts in $work/artifacts/"
    fi
fi

echo "== GGUF hardening check passed"

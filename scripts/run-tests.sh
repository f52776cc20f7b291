#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole check, as CI runs it: dependencies, a warnings-as-errors build of everything, the
# test suite, the GGUF hardening run and the installed-package check. Non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

build_dir=${HEARTH_BUILD_DIR:-build}
# ccache keys on relative paths, so a fresh clone in another folder reuses earlier builds.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
jobs=${HEARTH_JOBS:-$(nproc)}
failures=()

step() { echo; echo "==== $*"; }

step "dependencies"
./scripts/setup-deps.sh || exit 1

step "configure ($build_dir)"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEARTH_WARNINGS_AS_ERRORS=ON \
    -DHEARTH_BUILD_APP=ON -DHEARTH_BUILD_TESTS=ON -DBUILD_TESTING=ON || exit 1

step "build"
cmake --build "$build_dir" --parallel "$jobs" || exit 1

step "openai npm package (the API server's test client)"
# Pinned, outside the source tree; tst_openai_client skips only where this could not run.
if ! npm install --prefix "$build_dir/npm" --no-audit --no-fund --loglevel=error openai@6.49.0; then
    failures+=("npm install openai")
fi

step "tests"
# The window test needs no display (offscreen); ctest prints its own summary line.
if ! (cd "$build_dir" && QT_QPA_PLATFORM=offscreen ctest --output-on-failure --parallel "$jobs" --timeout 600); then
    failures+=("ctest")
fi

if [ -x scripts/check-hardening.sh ]; then
    step "hardening: sanitizer tests and fuzzing of every parser"
    # Its own clang + sanitizer build of the parsers, their tests and fuzz targets.
    JOBS="$jobs" scripts/check-hardening.sh 20 || failures+=("check-hardening")
fi

step "package"
HEARTH_BUILD_DIR="$build_dir" scripts/check-package.sh || failures+=("check-package")

echo
if [ ${#failures[@]} -ne 0 ]; then
    echo "run-tests: FAILED: ${failures[*]}"
    exit 1
fi
echo "run-tests: all checks passed"

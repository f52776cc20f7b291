#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the dependencies, builds Hearth (Release) in build/ and starts it.
# Arguments go to the app: ./scripts/run-app.sh --model ~/models/model.gguf
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEARTH_BUILD_APP=ON
cmake --build build --parallel "${HEARTH_JOBS:-$(nproc)}" --target hearth
exec build/bin/hearth "$@"

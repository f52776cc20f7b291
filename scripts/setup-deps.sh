#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs everything the build, the app, the tests and the packaging need on Debian 12 or
# Ubuntu 22.04+. Safe to run again: apt-get skips what is already there.
set -euo pipefail

packages=(
    # toolchain
    build-essential cmake ninja-build ccache pkg-config clang file dpkg-dev
    # Qt 6: libraries, QML tooling, translations tools
    qt6-base-dev qt6-declarative-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools libgl-dev
    # run time: SQLite driver, platform plugins and every QML module the UI imports
    libqt6sql6-sqlite qt6-qpa-plugins
    qml6-module-qtqml qml6-module-qtqml-workerscript qml6-module-qtquick qml6-module-qtquick-controls
    qml6-module-qtquick-layouts qml6-module-qtquick-window qml6-module-qtquick-templates
    qml6-module-qtquick-dialogs qml6-module-qttest
    # code highlighting (out of process on distributions without a Qt 6 KSyntaxHighlighting)
    libkf5syntaxhighlighting-tools
    # headless UI tests and package checks
    xvfb xauth appstream desktop-file-utils
)

# clang's sanitizer/fuzzer runtime is packaged per clang version; take the default clang's.
clang_major=""
if command -v clang >/dev/null 2>&1; then
    clang_major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
fi
for candidate in ${clang_major:+libclang-rt-${clang_major}-dev} libclang-rt-14-dev libclang-rt-15-dev; do
    if apt-cache show "$candidate" >/dev/null 2>&1; then
        packages+=("$candidate")
        break
    fi
done

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo_cmd=(sudo)
    else
        echo "setup-deps: not root and no sudo; install these yourself: ${packages[*]}" >&2
        exit 1
    fi
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup-deps: all ${#packages[@]} packages are installed"
    exit 0
fi

echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"

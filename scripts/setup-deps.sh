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
    # the OpenAI-compatible API server's HTTP
    libcpp-httplib-dev
    # linear algebra for fitting predictors (hearth-sparsify; header-only)
    libeigen3-dev
    # run time: SQLite driver, platform plugins and every QML module the UI imports
    libqt6sql6-sqlite qt6-qpa-plugins
    qml6-module-qtqml qml6-module-qtqml-workerscript qml6-module-qtquick qml6-module-qtquick-controls
    qml6-module-qtquick-layouts qml6-module-qtquick-window qml6-module-qtquick-templates
    qml6-module-qtquick-dialogs qml6-module-qt-labs-folderlistmodel qml6-module-qttest
    # Qt's own strings (standard dialog buttons) in the interface languages, and a font with
    # Chinese characters for the Simplified Chinese interface
    qt6-translations-l10n fonts-wqy-microhei
    # code highlighting (out of process on distributions without a Qt 6 KSyntaxHighlighting)
    libkf5syntaxhighlighting-tools
    # headless UI tests and package checks
    xvfb xauth appstream desktop-file-utils
)
# The API server's test drives it with the official openai npm package; a Node.js that is
# already there (nvm, NodeSource) is used as it is.
if ! command -v npm >/dev/null 2>&1; then
    packages+=(nodejs npm)
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo_cmd=(sudo)
    else
        echo "setup-deps: not root and no sudo; as root run: apt-get install ${packages[*]}" >&2
        exit 1
    fi
fi

missing_of() { # prints the packages among "$@" that are not installed
    local package
    for package in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            echo "$package"
        fi
    done
}

updated=0
install_missing() {
    local missing
    mapfile -t missing < <(missing_of "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup-deps: installing ${missing[*]}"
    if [ "$updated" -eq 0 ]; then
        "${sudo_cmd[@]}" apt-get update
        updated=1
    fi
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

install_missing "${packages[@]}"

# clang's sanitizer/fuzzer runtime is packaged per clang version: take the installed clang's,
# once clang is there and the package lists are (a fresh machine has neither before).
clang_major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
runtime=""
for candidate in ${clang_major:+libclang-rt-${clang_major}-dev} libclang-rt-14-dev libclang-rt-15-dev; do
    if apt-cache show "$candidate" >/dev/null 2>&1; then
        runtime=$candidate
        break
    fi
done
if [ -z "$runtime" ] && [ "$updated" -eq 0 ]; then
    "${sudo_cmd[@]}" apt-get update
    updated=1
    for candidate in ${clang_major:+libclang-rt-${clang_major}-dev} libclang-rt-14-dev libclang-rt-15-dev; do
        if apt-cache show "$candidate" >/dev/null 2>&1; then
            runtime=$candidate
            break
        fi
    done
fi
if [ -n "$runtime" ]; then
    install_missing "$runtime"
else
    echo "setup-deps: no clang sanitizer runtime package found; the GGUF hardening check will fail" >&2
fi
echo "setup-deps: the ${#packages[@]} packages${runtime:+ and $runtime} are installed"

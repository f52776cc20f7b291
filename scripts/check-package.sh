#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the .deb and .tar.gz from an existing build, validates the desktop integration,
# installs the .deb, makes the INSTALLED /usr/bin/hearth answer a prompt with a tiny generated
# model, and removes the package again. Prints "check-package: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build_dir=$(cd "${HEARTH_BUILD_DIR:-build}" && pwd) || { echo "check-package: no build folder"; exit 1; }

passed=0
failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { # check "description" command...
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

work=$(mktemp -d)
installed=0
cleanup() {
    if [ "$installed" -eq 1 ]; then
        "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get remove -y hearth >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Desktop integration files, straight from the source tree.
check "desktop entry is valid" desktop-file-validate installer/linux/io.hearth.Hearth.desktop
check "AppStream metainfo is valid" appstreamcli validate --no-net installer/linux/io.hearth.Hearth.metainfo.xml

# Packages.
rm -f "$build_dir"/hearth_*.deb "$build_dir"/hearth-*.tar.gz
if (cd "$build_dir" && cpack -G DEB >"$work/cpack-deb.log" 2>&1); then
    pass "cpack -G DEB"
else
    fail "cpack -G DEB"
    tail -n 30 "$work/cpack-deb.log"
fi
deb=$(find "$build_dir" -maxdepth 1 -name "hearth_*.deb" | head -n 1)

if (cd "$build_dir" && cpack -G TGZ >"$work/cpack-tgz.log" 2>&1); then
    pass "cpack -G TGZ"
    tgz=$(find "$build_dir" -maxdepth 1 -name "hearth-*.tar.gz" | head -n 1)
    mkdir -p "$work/tgz" && tar -xzf "$tgz" -C "$work/tgz"
    app=$(find "$work/tgz" -path '*/bin/hearth' -type f | head -n 1)
    # shellcheck disable=SC2016 # a literal $ORIGIN
    if [ -n "$app" ] && readelf -d "$app" | grep -E 'R(UN)?PATH' | grep -q '\$ORIGIN/../lib'; then
        pass "tar.gz is relocatable (RUNPATH \$ORIGIN/../lib)"
    else
        fail "tar.gz is relocatable (RUNPATH \$ORIGIN/../lib)"
    fi
    if [ -n "$app" ] && QT_QPA_PLATFORM=offscreen "$app" --version >"$work/tgz-version.txt" 2>&1; then
        pass "hearth from the unpacked tar.gz runs"
    else
        fail "hearth from the unpacked tar.gz runs"
        cat "$work/tgz-version.txt" 2>/dev/null
    fi
else
    fail "cpack -G TGZ"
    tail -n 30 "$work/cpack-tgz.log"
fi

if [ -n "$deb" ]; then
    echo "package: $deb"
    dpkg-deb --info "$deb" | sed -n '/Package:/,$p'
    contents=$(dpkg-deb --contents "$deb")
    for f in ./usr/bin/hearth ./usr/share/applications/io.hearth.Hearth.desktop \
             ./usr/share/metainfo/io.hearth.Hearth.metainfo.xml \
             ./usr/share/icons/hicolor/scalable/apps/io.hearth.Hearth.svg \
             ./usr/share/icons/hicolor/256x256/apps/io.hearth.Hearth.png; do
        if grep -q " $f\$" <<<"$contents"; then pass "package contains $f"; else fail "package contains $f"; fi
    done
    depends=$(dpkg-deb --field "$deb" Depends)
    echo "Depends: $depends"
    for d in libqt6core6 qt6-qpa-plugins qml6-module-qtquick-controls qml6-module-qtquick-layouts \
             qml6-module-qtquick-dialogs qml6-module-qt-labs-folderlistmodel qt6-translations-l10n libqt6sql6-sqlite \
             libcpp-httplib; do
        if grep -q "$d" <<<"$depends"; then pass "Depends lists $d"; else fail "Depends lists $d"; fi
    done

    # Install with apt so the declared dependencies are resolved like on a user's machine.
    cp "$deb" "$work/"
    if (cd "$work" && "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "./$(basename "$deb")" \
            >"$work/apt-install.log" 2>&1); then
        installed=1
        pass "apt-get install ./$(basename "$deb")"
    else
        fail "apt-get install ./$(basename "$deb")"
        tail -n 30 "$work/apt-install.log"
    fi
else
    fail "a .deb was produced"
fi

if [ "$installed" -eq 1 ]; then
    check "installed hearth --version" env QT_QPA_PLATFORM=offscreen /usr/bin/hearth --version
    synth="$build_dir/bin/hearth-synth"
    model="$work/tiny.gguf"
    if [ -x "$synth" ] && "$synth" --shape tiny --type q8_0 -o "$model" >"$work/synth.log" 2>&1; then
        pass "hearth-synth made a tiny model"
        if QT_QPA_PLATFORM=offscreen timeout 300 /usr/bin/hearth --self-test --model "$model" >"$work/self-test.txt" 2>&1 \
                && grep -q "Self-test passed" "$work/self-test.txt"; then
            pass "installed hearth --self-test answered"
        else
            fail "installed hearth --self-test answered"
        fi
        cat "$work/self-test.txt"
        # The API server of the installed program answers over HTTP (no window, as on a server).
        QT_QPA_PLATFORM=offscreen /usr/bin/hearth --serve --port 0 --model "$model" --data-dir "$work/serve-data" \
            >"$work/serve.txt" 2>&1 &
        serve_pid=$!
        for _ in $(seq 1 150); do grep -q "Serving the OpenAI" "$work/serve.txt" && break; sleep 0.2; done
        port=$(grep -o 'http://127.0.0.1:[0-9]*/v1' "$work/serve.txt" | head -n 1 | sed 's|.*:\([0-9]*\)/v1|\1|')
        models=""
        if [ -n "$port" ] && exec 3<>"/dev/tcp/127.0.0.1/$port"; then
            printf 'GET /v1/models HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
            models=$(timeout 10 cat <&3)
            exec 3<&-
        fi
        kill "$serve_pid" 2>/dev/null
        wait "$serve_pid" 2>/dev/null
        if grep -q '"id":"tiny"' <<<"$models"; then
            pass "installed hearth --serve lists the model over HTTP"
        else
            fail "installed hearth --serve lists the model over HTTP"
            cat "$work/serve.txt"
        fi
    else
        fail "hearth-synth made a tiny model"
        cat "$work/synth.log" 2>/dev/null
    fi
    # Every dialog of the installed program opens, the file choosers included: they import QML
    # modules of their own, which the package must depend on (a missing one crashes Qt 6.4).
    if QT_QPA_PLATFORM=offscreen HEARTH_TEST_OPEN_DIALOGS=1 timeout 120 /usr/bin/hearth --data-dir "$work/dialogs-data" \
            >"$work/dialogs.txt" 2>&1 && grep -q "All dialogs opened" "$work/dialogs.txt"; then
        pass "installed hearth opens every dialog ($(grep -c '^opened ' "$work/dialogs.txt") dialogs)"
    else
        fail "installed hearth opens every dialog"
    fi
    grep -E '^(opened|FAILED) ' "$work/dialogs.txt"
    # A broken model is a message and exit code 1, never a crash.
    echo "not a model" >"$work/broken.gguf"
    QT_QPA_PLATFORM=offscreen /usr/bin/hearth --self-test --model "$work/broken.gguf" >"$work/broken.txt" 2>&1
    rc=$?
    if [ "$rc" -eq 1 ]; then pass "installed hearth rejects a broken model with exit code 1"; else fail "installed hearth rejects a broken model (exit code $rc)"; cat "$work/broken.txt"; fi

    if "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get remove -y hearth >"$work/apt-remove.log" 2>&1 \
            && [ ! -e /usr/bin/hearth ]; then
        installed=0
        pass "apt-get remove hearth"
        # Leave no "rc" entry behind in dpkg's database either.
        "${sudo_cmd[@]}" dpkg --purge hearth >/dev/null 2>&1 || true
    else
        fail "apt-get remove hearth"
    fi
fi

echo "check-package: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

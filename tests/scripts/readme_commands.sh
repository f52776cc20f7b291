#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's two setup commands work as root without sudo and as a user with sudo: they are
# not prefixed with sudo, and setup-deps.sh runs to the end on a PATH without sudo when root.
# Prints "readme-commands: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
passed=0
failed=0
check() {
    local what=$1
    shift
    if "$@"; then echo "PASS: $what"; passed=$((passed + 1)); else echo "FAIL: $what"; failed=$((failed + 1)); fi
}

commands=$(awk '/^```sh$/ { inside = 1; next } /^```$/ { if (inside) exit } inside' "$root/README.md")
first=$(sed -n 1p <<<"$commands")
second=$(sed -n 2p <<<"$commands")
check "README starts with the app command" grep -q '^\./scripts/run-app\.sh' <<<"$first"
check "README's second command runs the tests" grep -q '^\./scripts/run-tests\.sh' <<<"$second"
check "neither command needs sudo" test -z "$(grep -E '(^|[;&| ])sudo ' <<<"$commands")"
check ".ci/run calls the README's test command" grep -q 'scripts/run-tests\.sh' "$root/.ci/run"

# A PATH that has everything this machine has except sudo.
nosudo=$(mktemp -d)
trap 'rm -rf "$nosudo"' EXIT
for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
    [ -d "$dir" ] || continue
    for tool in "$dir"/*; do
        name=$(basename "$tool")
        [ "$name" = sudo ] || [ -e "$nosudo/$name" ] || ln -s "$tool" "$nosudo/$name"
    done
done
if [ "$(id -u)" -eq 0 ]; then
    check "setup-deps.sh as root without sudo" env PATH="$nosudo" "$root/scripts/setup-deps.sh"
else
    # Not root and no sudo: a clear message and a non-zero exit, not an attempt.
    out=$(env PATH="$nosudo" "$root/scripts/setup-deps.sh" 2>&1)
    rc=$?
    if grep -q "all .* installed\|are installed" <<<"$out"; then
        check "setup-deps.sh as a user: nothing missing" test "$rc" -eq 0
    else
        check "setup-deps.sh as a user without sudo says what to install" grep -q "not root and no sudo" <<<"$out"
    fi
fi

echo "readme-commands: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

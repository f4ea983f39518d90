#!/bin/sh
# SPDX-License-Identifier: MIT
# The hostile-input corpus: every tests/hostile/NAME.confpol must make
# `confpol check` exit 1 with exactly the stderr in NAME.err (run from the
# repository root), nothing on stdout, within 10 s and under a 2 GiB
# address-space cap.  The large inputs are generated at test time by
# tests/hostile/gen.py into a temporary directory and checked against the
# templates in tests/hostile/gen/NAME.err.  UPDATE=1 rewrites the expected
# files (read every change before committing it).
set -u
: "${CONFPOL:?}" "${TOP:?}"
cd "$TOP" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
# ASan reserves far more address space than any cap allows, and runs
# about three times slower.  HOSTILE_TIMEOUT overrides the limit (seconds)
# on a loaded machine.
cap=2097152 limit=10
[ -n "${CONFPOL_SANITIZER:-}" ] && cap=unlimited limit=40
limit=${HOSTILE_TIMEOUT:-$limit}

pass=0 fail=0
# run_case NAME INPUT EXPECTED DIR: runs `check INPUT` in DIR.
run_case() {
    name=$1 input=$2 expected=$3 dir=$4
    (cd "$dir" && ulimit -v "$cap" && exec timeout -s KILL "$limit" "$CONFPOL" check "$input") \
        </dev/null >"$tmp/out" 2>"$tmp/err"
    rc=$?
    why=""
    if [ $rc -ne 1 ]; then
        why="exit $rc, expected 1"
        [ $rc -eq 137 ] && why="killed after $limit s (hang?) or by the memory cap"
        [ $rc -gt 128 ] && [ $rc -ne 137 ] && why="died from signal $((rc - 128))"
    elif [ -s "$tmp/out" ]; then
        why="wrote to stdout"
    elif [ ! -s "$tmp/err" ]; then
        why="exit 1 without a diagnostic"
    elif ! grep -m 1 ': error: ' "$tmp/err" |
        grep -q '^[^ ].*:[0-9][0-9]*:[0-9][0-9]*: error: .* \[CP[0-9][0-9][0-9][0-9]\]$'; then
        why="first error is not located (FILE:LINE:COL: error: ... [CPnnnn])"
    fi
    if [ "${UPDATE:-}" = 1 ] && [ $rc -eq 1 ]; then
        cp "$tmp/err" "$expected.new" && mv "$expected.new" "$expected"
    fi
    if [ -z "$why" ] && ! cmp -s "$tmp/err" "$expected"; then
        why="stderr differs from $expected"
    fi
    if [ -n "$why" ]; then
        fail=$((fail + 1))
        echo "FAIL: $name: $why"
        if [ -f "$expected" ]; then
            diff -u "$expected" "$tmp/err" | cut -c1-300 | head -n 40
        else
            cut -c1-300 "$tmp/err" | head -n 20
        fi
    else
        pass=$((pass + 1))
    fi
}

for f in tests/hostile/*.confpol; do
    name=$(basename "$f" .confpol)
    run_case "$name" "$f" "tests/hostile/$name.err" "$TOP"
done

# Generated cases: run from the temporary directory so that the names in
# diagnostics are short; templates expand @DIR@ and @REP:HEX:N@.
gen="$tmp/gen"
mkdir -p "$gen" && python3 tests/hostile/gen.py "$gen" || exit 2
for name in $(python3 tests/hostile/gen.py --list); do
    tpl="tests/hostile/gen/$name.err"
    if [ "${UPDATE:-}" = 1 ]; then
        rm -f "$tmp/expected"
        run_case "$name" "$name.confpol" "$tmp/expected" "$gen"
        [ -s "$tmp/expected" ] &&
            python3 tests/hostile/gen.py --compress "$tmp/expected" "$gen" >"$tpl"
        continue
    fi
    if [ -f "$tpl" ]; then
        python3 tests/hostile/gen.py --expand "$tpl" "$gen" >"$tmp/expected"
    else
        : >"$tmp/expected"
    fi
    run_case "$name" "$name.confpol" "$tmp/expected" "$gen"
done

echo "hostile: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/bin/sh
# Front-end bad inputs: for every tests/bad/NAME.confpol, `confpol check`
# run from the top of the tree with the relative path must exit 1, print
# nothing on stdout, and print exactly tests/bad/NAME.err on stderr.
# UPDATE=1 rewrites the .err files from the current output.
set -u
: "${TOP:?}" "${CONFPOL:?}"
cd "$TOP" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0 fail=0
for f in tests/bad/*.confpol; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    exp=${f%.confpol}.err
    "$CONFPOL" check "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "${UPDATE:-}" = 1 ]; then
        cp "$tmp/err" "$exp"
    fi
    if [ $rc -ne 1 ]; then
        echo "FAIL $f: exit status $rc, expected 1"
        fail=$((fail + 1))
        continue
    fi
    if [ -s "$tmp/out" ]; then
        echo "FAIL $f: wrote to stdout:"
        head -n 5 "$tmp/out"
        fail=$((fail + 1))
        continue
    fi
    if [ ! -f "$exp" ]; then
        echo "FAIL $f: no $exp (run with UPDATE=1 and review it)"
        fail=$((fail + 1))
        continue
    fi
    if ! diff -u "$exp" "$tmp/err"; then
        echo "FAIL $f: stderr differs from $exp"
        fail=$((fail + 1))
    fi
done
if [ $n -lt 40 ]; then
    echo "FAIL only $n bad inputs; at least 40 expected"
    exit 1
fi
echo "$n bad inputs, $fail failed"
[ $fail -eq 0 ]

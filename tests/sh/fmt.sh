#!/bin/sh
# confpol fmt: idempotent (fmt of fmt output is unchanged) on every example
# and every test policy that parses, and `fmt --check` exit statuses.
set -u
: "${TOP:?}" "${CONFPOL:?}"
cd "$TOP" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0 n=0
for f in examples/*.confpol $(find tests -name '*.confpol' | LC_ALL=C sort); do
    [ -f "$f" ] || continue
    "$CONFPOL" fmt "$f" >"$tmp/once" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && continue          # does not parse: nothing to format
    if [ $rc -ne 0 ]; then
        echo "FAIL fmt $f: exit status $rc"; cat "$tmp/err"
        fail=$((fail + 1)); continue
    fi
    n=$((n + 1))
    cp "$tmp/once" "$tmp/x.confpol"
    "$CONFPOL" fmt "$tmp/x.confpol" >"$tmp/twice" 2>"$tmp/err" || {
        echo "FAIL fmt output of $f does not parse:"; cat "$tmp/err"
        fail=$((fail + 1)); continue
    }
    if ! cmp -s "$tmp/once" "$tmp/twice"; then
        echo "FAIL fmt is not idempotent on $f:"
        diff -u "$tmp/once" "$tmp/twice" | head -n 20
        fail=$((fail + 1))
    fi
    if ! "$CONFPOL" fmt --check "$tmp/x.confpol" 2>"$tmp/err"; then
        echo "FAIL fmt --check rejects the formatted $f"
        fail=$((fail + 1))
    fi
done
[ $n -ge 1 ] || { echo "FAIL no policy parsed"; exit 1; }

# --check: exit 1 and the file name on stderr when the layout would change,
# nothing on stdout, and the file itself left alone.
printf 'confpol 1\nwrite   /a\n' >"$tmp/ugly.confpol"
cp "$tmp/ugly.confpol" "$tmp/ugly.orig"
"$CONFPOL" fmt --check "$tmp/ugly.confpol" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || { echo "FAIL fmt --check on a changed file: exit $rc"; fail=$((fail + 1)); }
[ -s "$tmp/out" ] && { echo "FAIL fmt --check wrote to stdout"; fail=$((fail + 1)); }
[ "$(cat "$tmp/err")" = "$tmp/ugly.confpol" ] ||
    { echo "FAIL fmt --check stderr: $(cat "$tmp/err")"; fail=$((fail + 1)); }
cmp -s "$tmp/ugly.confpol" "$tmp/ugly.orig" || { echo "FAIL fmt --check changed the file"; fail=$((fail + 1)); }
# Formatted file: exit 0, silent.
printf 'confpol 1\nwrite /a\n' >"$tmp/ok.confpol"
"$CONFPOL" fmt --check "$tmp/ok.confpol" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] ||
    { echo "FAIL fmt --check on a formatted file: exit $rc"; fail=$((fail + 1)); }
# Syntax error: exit 1 with the diagnostic; missing file: exit 2.
printf 'confpol 1\nwrite\n' >"$tmp/bad.confpol"
"$CONFPOL" fmt --check "$tmp/bad.confpol" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'CP0203' "$tmp/err" ||
    { echo "FAIL fmt --check on a syntax error: exit $rc"; fail=$((fail + 1)); }
"$CONFPOL" fmt --check "$tmp/missing.confpol" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || { echo "FAIL fmt --check on a missing file: exit $rc"; fail=$((fail + 1)); }
# --write rewrites in place, then --check passes.
"$CONFPOL" fmt --write "$tmp/ugly.confpol" || { echo "FAIL fmt --write"; fail=$((fail + 1)); }
"$CONFPOL" fmt --check "$tmp/ugly.confpol" || { echo "FAIL fmt --check after --write"; fail=$((fail + 1)); }
[ "$(cat "$tmp/ugly.confpol")" = "$(printf 'confpol 1\nwrite /a')" ] ||
    { echo "FAIL fmt --write result"; fail=$((fail + 1)); }

echo "$n files formatted, $fail failures"
[ $fail -eq 0 ]

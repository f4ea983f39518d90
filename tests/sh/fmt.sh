#!/bin/sh
# confpol fmt: idempotent (fmt of fmt output is unchanged) on every example
# and every test policy that parses, and `fmt --check` exit statuses.
set -u
: "${TOP:?}" "${CONFPOL:?}"
cd "$TOP" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0 n=0
# Copies of every policy, formatted in place with one `fmt --write` run;
# a second run with --check must then find nothing to change, and exactly
# the files that did not parse the first time may fail to parse again.
mkdir "$tmp/all"
for f in examples/*.confpol $(find tests -name '*.confpol' | LC_ALL=C sort); do
    [ -f "$f" ] || continue
    n=$((n + 1))
    cp "$f" "$tmp/all/$n.confpol"
    echo "$n $f" >>"$tmp/names"
done
[ $n -ge 1 ] || { echo "FAIL no policy found"; exit 1; }
"$CONFPOL" fmt --write "$tmp"/all/*.confpol >/dev/null 2>"$tmp/err1"
rc=$?
[ $rc -le 1 ] || { echo "FAIL fmt --write: exit $rc"; cat "$tmp/err1"; fail=$((fail + 1)); }
"$CONFPOL" fmt --check "$tmp"/all/*.confpol >/dev/null 2>"$tmp/err2"
# Files with diagnostics (did not parse) in each run, and files listed as
# changing in the second run.
sed -n "s|^\($tmp/all/[0-9]*\.confpol\):[0-9].*|\1|p" "$tmp/err1" | sort -u >"$tmp/bad1"
sed -n "s|^\($tmp/all/[0-9]*\.confpol\):[0-9].*|\1|p" "$tmp/err2" | sort -u >"$tmp/bad2"
grep -x "$tmp/all/[0-9]*\.confpol" "$tmp/err2" >"$tmp/changed"
if ! cmp -s "$tmp/bad1" "$tmp/bad2"; then
    echo "FAIL fmt output does not parse (or parsing changed):"
    diff "$tmp/bad1" "$tmp/bad2" | head -n 20
    fail=$((fail + 1))
fi
while read -r c; do
    k=$(basename "$c" .confpol)
    echo "FAIL fmt is not idempotent on $(sed -n "s/^$k //p" "$tmp/names")"
    fail=$((fail + 1))
done <"$tmp/changed"
parsed=$((n - $(wc -l <"$tmp/bad1")))
[ $parsed -ge 1 ] || { echo "FAIL no policy parsed"; fail=$((fail + 1)); }

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

echo "$parsed of $n files formatted, $fail failures"
[ $fail -eq 0 ]

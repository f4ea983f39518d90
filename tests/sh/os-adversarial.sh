#!/bin/sh
# Injection: paths with quotes, backslashes, parentheses, semicolons,
# newlines, tabs, spaces, a leading '-', '--', non-ASCII UTF-8, '[1]' and
# regex metacharacters are compiled to SBPL and bwrap and read back: the
# SBPL reader gets the same strings and decides them as the policy does
# (a near-miss name is not matched), the .bwrap records split back into the
# same paths, and the --format shell command line parses back (sh) into
# exactly the argv of the records.  A control byte cannot be written in an
# SBPL string: the sbpl target refuses it (CP0701) and writes nothing.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
mkdir out sbout
python3 "$TOP/tests/golden/osmodel.py" adversarial-corpus "$tmp" || exit 1
fail=0

# bwrap: every name, control bytes included.
"$CONFPOL" build --target bwrap --expand-globs -o out all.confpol 2>err.txt ||
    { echo "FAIL: bwrap build"; cat err.txt; exit 1; }
python3 "$TOP/tests/golden/osmodel.py" adversarial-check-bwrap "$tmp" || fail=1

# shell form: parse it back with sh.
"$CONFPOL" build --target bwrap --expand-globs --format shell -o out all.confpol \
    >shell.txt 2>err.txt || { echo "FAIL: shell form"; cat err.txt; exit 1; }
HOME=/home/u PROJECT='/home/u/pro j' sh -c '
bwrap() { printf "%s\0" "$@"; }
. ./shell.txt' >shell.argv || { echo "FAIL: shell form does not run"; fail=1; }
python3 "$TOP/tests/golden/osmodel.py" adversarial-check-shell "$tmp" || fail=1

# sbpl: control bytes are refused, nothing is written.
if "$CONFPOL" build --target sbpl -o sbout all.confpol 2>err.txt; then
    echo "FAIL: sbpl accepted a control byte"; fail=1
fi
n=$(grep -c 'CP0701' err.txt)
[ "$n" -eq 3 ] || { echo "FAIL: expected 3 CP0701, got $n"; cat err.txt; fail=1; }
[ -z "$(ls -A sbout)" ] || { echo "FAIL: sbpl wrote a file"; fail=1; }

# sbpl: every other name reads back and decides right.
"$CONFPOL" build --target sbpl --expand-globs -o sbout printable.confpol \
    2>err.txt || { echo "FAIL: sbpl build"; cat err.txt; exit 1; }
python3 "$TOP/tests/golden/osmodel.py" adversarial-check-sbpl "$tmp" || fail=1
exit $fail

#!/bin/sh
# Decision test of the OS targets: for every example and every case of
# tests/golden/cases, each probe path is decided by `confpol explain` and by
# a reader of each artifact (an SBPL evaluator with last-match-wins, the
# bwrap record stream replayed on a model file system).  An artifact that
# allows what explain denies fails; a stricter answer must be announced by
# the target's fidelity report.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
cd "$TOP" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
helper="$tmp/decide_batch"
${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$TOP/util" -I"$TOP/compiler" -o "$helper" \
    "$TOP/tests/golden/decide_batch.c" "$TOP/$BUILD/libconfpol.a" \
    || { echo "cannot build the decision helper"; exit 1; }
for f in examples/*.confpol tests/golden/cases/*.confpol; do
    [ -f "$f" ] || continue
    stem=$(basename "$f" .confpol)
    case $stem in err-*) continue ;; esac   # cases that must fail to build
    out="$tmp/$stem"
    mkdir -p "$out"
    if ! "$CONFPOL" build --target sbpl --target bwrap --expand-globs \
            --fidelity -o "$out" "$f" >"$out/fidelity.txt" 2>"$out/stderr"; then
        echo "FAIL: build of $f"; cat "$out/stderr"; fail=1; continue
    fi
    python3 tests/golden/osmodel.py decide "$f" "$out" "$stem" "$CONFPOL" \
        "$out/fidelity.txt" "$helper" || fail=1
done

# The test must be able to fail: artifacts with a deny removed are looser.
f=tests/golden/cases/carveouts.confpol
out="$tmp/carveouts"
mkdir -p "$tmp/mutant"
python3 - "$out/carveouts.sb" "$tmp/mutant/carveouts.sb" <<'PY'
import sys
t = open(sys.argv[1]).read()
i = t.index('(deny file-write*\n')
j = t.index('\n(', i)
open(sys.argv[2], 'w').write(t[:i] + t[j + 1:])
PY
if python3 tests/golden/osmodel.py decide "$f" "$tmp/mutant" carveouts \
        "$CONFPOL" "$out/fidelity.txt" "$helper" >/dev/null; then
    echo "FAIL: an SBPL profile without its write denies passed"; fail=1
fi
rm -f "$tmp/mutant/carveouts.sb"
python3 - "$out/carveouts.bwrap" "$tmp/mutant/carveouts.bwrap" <<'PY'
import hashlib, sys
sys.path.insert(0, 'tests/golden')
import osmodel
recs = osmodel.bwrap_read(open(sys.argv[1], 'rb').read())
recs = [r for r in recs if r[0] != 'ro']
body = b''.join((r[0].encode() if isinstance(r[0], str) else r[0]) + b'\0' +
                b''.join(x + b'\0' for x in r[1:]) for r in recs)
end = b'end\0' + str(len(recs)).encode() + b'\0' + \
    hashlib.sha256(body).hexdigest().encode() + b'\0'
open(sys.argv[2], 'wb').write(body + end)
PY
if python3 tests/golden/osmodel.py decide "$f" "$tmp/mutant" carveouts \
        "$CONFPOL" "$out/fidelity.txt" "$helper" >/dev/null; then
    echo "FAIL: a bwrap artifact without its read-only binds passed"; fail=1
fi
exit $fail

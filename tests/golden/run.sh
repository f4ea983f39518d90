#!/bin/sh
# Golden files: every example (examples/*.confpol) and every case
# (tests/golden/cases/*.confpol) is built with
#   confpol build --target all --expand-globs -o OUT examples/NAME.confpol
# from the top of the tree, and each artifact is compared with diff -u to
# tests/golden/NAME.sb, NAME.bwrap.txt (the NUL-separated record stream
# rendered one field per line after its trailer was checked) and
# NAME.claude.json (its hook's --sha256 pin shown as @PIN@ after it was
# checked).  A golden file that does not exist means the target must
# write no file.  A build that fails is compared with NAME.err (its stderr)
# and must leave OUT empty.  The output directory's path is replaced by
# @OUT@ and its parent by @TMP@ (they are part of the implicit control
# plane).  UPDATE=1 rewrites the
# golden files (make golden).
set -u
# `make golden` runs it without the environment of tests/run.sh.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONFPOL=${CONFPOL:-$TOP/${BUILD:-build}/confpol}
cd "$TOP" || exit 1
g=tests/golden
# A fixed parent, so that the ancestors of the output directory (part of the
# implicit control plane) read the same in every run.
tmp=$(mktemp -d /tmp/confpol-golden.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
render_bwrap() { # FILE: check the trailer, then one field per line
    python3 - "$1" <<'PY' || return 1
import sys
sys.path.insert(0, 'tests/golden')
import osmodel
data = open(sys.argv[1], 'rb').read()
osmodel.bwrap_read(data)             # count and SHA-256 must match
fields = data[:-1].split(b'\0')
fields[-1] = b'@SHA256@'             # depends on @OUT@; checked above
sys.stdout.buffer.write(b'\n'.join(fields) + b'\n')
PY
}
render_claude() { # FILE: check the hook's pin, then show it as @PIN@
    python3 - "$1" <<'PY' || return 1
import hashlib, re, sys
data = open(sys.argv[1], 'rb').read()
# The pin is the SHA-256 of the file with every pin read as 64 zeros
# (spec/gate.md, "Integrity"); it depends on @OUT@, so it is checked here.
pat = re.compile(rb'(gate --sha256 )([0-9a-f]{64})')
zeroed = pat.sub(lambda m: m.group(1) + b'0' * 64, data)
digest = hashlib.sha256(zeroed).hexdigest().encode()
if any(m.group(2) != digest for m in pat.finditer(data)):
    sys.exit(1)
sys.stdout.buffer.write(pat.sub(rb'\1@PIN@', data))
PY
}
for f in examples/*.confpol $g/cases/*.confpol; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .confpol)
    out="$tmp/$name"
    mkdir -p "$out"
    "$CONFPOL" build --target all --expand-globs -o "$out" "$f" \
        >"$tmp/$name.stdout" 2>"$tmp/$name.stderr"
    rc=$?
    real=$(cd "$out" && pwd -P)
    norm() { sed -e "s|$real|@OUT@|g" -e "s|$out|@OUT@|g" -e "s|$tmp|@TMP@|g"; }
    if [ $rc -ne 0 ]; then
        norm <"$tmp/$name.stderr" >"$tmp/$name.err"
        if [ -n "$(ls -A "$out")" ]; then
            echo "FAIL: $f: failed build wrote files"; fail=1
        fi
    fi
    for kind in sb bwrap.txt claude.json err; do
        got="$tmp/$name.got.$kind"
        case $kind in
        sb) [ -f "$out/$name.sb" ] && norm <"$out/$name.sb" >"$got" ;;
        bwrap.txt) [ -f "$out/$name.bwrap" ] &&
                   { render_bwrap "$out/$name.bwrap" | norm >"$got" ||
                     { echo "FAIL: $f: invalid .bwrap trailer"; fail=1; }; } ;;
        claude.json) [ -f "$out/$name.claude.json" ] &&
                     { render_claude "$out/$name.claude.json" | norm >"$got" ||
                       { echo "FAIL: $f: the hook's --sha256 pin is not the artifact's digest"; fail=1; }; } ;;
        err) [ $rc -ne 0 ] && cp "$tmp/$name.err" "$got" ;;
        esac
        want="$g/$name.$kind"
        if [ "${UPDATE:-}" = 1 ]; then
            if [ -f "$got" ]; then cp "$got" "$want"; else rm -f "$want"; fi
            continue
        fi
        if [ -f "$got" ] && [ -f "$want" ]; then
            diff -u "$want" "$got" || { echo "FAIL: $f: $kind differs"; fail=1; }
        elif [ -f "$got" ]; then
            echo "FAIL: $f: unexpected $kind output (no $want)"; fail=1
            [ $kind = err ] && cat "$got"
        elif [ -f "$want" ]; then
            echo "FAIL: $f: expected $want, nothing produced"; fail=1
        fi
    done
done
exit $fail

#!/bin/sh
# build -o DIR where DIR is a write root: one error, at the write rule, and
# no cascade (no rule reported redundant next to the output directory's
# implicit deny, no expect failure that only the conflict causes).
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/proj"
cd "$w/proj" || exit 1
fail() { echo "not ok - $*"; exit 1; }
"$CONFPOL" init --claude >/dev/null 2>&1 || fail "init"
"$CONFPOL" build --target all -o . policy.confpol 2>err.txt && fail "build -o . succeeded"
grep -v '^ ' err.txt >got.txt
cat >want.txt <<'E'
policy.confpol:8:7: error: 'write ${PROJECT}' makes the build output directory writable: a confined process could rewrite its own sandbox [CP0503]
policy.confpol:8:7: note: choose -o outside the write roots
1 error
E
diff -u want.txt got.txt || fail "build -o . cascades"
ls ./*.sb ./*.bwrap ./*.claude.json 2>/dev/null && fail "build -o . wrote an artifact"
echo "ok - build -o . in a write root is one error"

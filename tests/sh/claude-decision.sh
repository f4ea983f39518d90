#!/bin/sh
# Decision test of the claude target: for every example and the cases of
# tests/claude/, probe paths are decided by `confpol explain` (HOME and
# PROJECT bound) and by a reader of the .claude.json artifact that models
# Claude Code on Linux (tests/claude/claudemodel.py: the Bash sandbox with
# its measured defaults, the Read/Edit deny rules of the file tools).  Any
# access the artifact lets through that explain denies fails the test
# unless the build announced that loss (CP0753, CP0756, CP0757, CP0758,
# CP0773, cooperative).
set -u
: "${CONFPOL:?}" "${TOP:?}" "${BUILD:=build}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
cd "$TOP" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
helper="$tmp/decide_batch"
# CFLAGS/LDFLAGS: under make check-asan the library is instrumented.
# shellcheck disable=SC2086
${CC:-cc} ${CFLAGS:-} -std=c11 -D_GNU_SOURCE -I"$TOP/util" -I"$TOP/compiler" -o "$helper" \
    "$TOP/tests/golden/decide_batch.c" "$TOP/$BUILD/libconfpol.a" ${LDFLAGS:-} \
    || { echo "FAIL: cannot build the decision helper"; exit 1; }
fail=0
for f in examples/*.confpol tests/claude/*.confpol; do
    [ -f "$f" ] || continue
    stem=$(basename "$f" .confpol)
    mkdir -p "$tmp/$stem"
    if ! "$CONFPOL" build --target claude -Wtarget-notes -o "$tmp/$stem" "$f" 2>"$tmp/$stem/stderr"; then
        echo "FAIL: build of $f"; cat "$tmp/$stem/stderr"; fail=1; continue
    fi
    python3 tests/claude/claudemodel.py decide "$f" "$tmp/$stem/$stem.claude.json" \
        "$tmp/$stem/stderr" "$helper" || fail=1
done
# The test must be able to fail: the confined example's artifact without
# its first write deny (in both places) is looser than explain.
f=examples/agentteams-confined.confpol
python3 - "$tmp/agentteams-confined/agentteams-confined.claude.json" "$tmp/mutant.claude.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
gone = d["sandbox"]["filesystem"]["denyWrite"].pop(0)
rule = gone[1:] if gone.startswith("./") else gone
d["permissions"]["deny"] = [r for r in d["permissions"]["deny"] if not r.startswith("Edit(" + rule)]
json.dump(d, open(sys.argv[2], "w"))
PY
if python3 tests/claude/claudemodel.py decide "$f" "$tmp/mutant.claude.json" \
        "$tmp/agentteams-confined/stderr" "$helper" >"$tmp/mutant.out"; then
    echo "FAIL: the model accepted an artifact with a write deny removed"
    fail=1
fi
grep -q 'explain denies write /home/u/proj/.claude' "$tmp/mutant.out" ||
    { cat "$tmp/mutant.out"; echo "FAIL: the mutant's looser answer was not named"; fail=1; }
# And a write root bound back beneath a deny-read tmpfs is readable: with
# its warning (CP0773) taken from the build's stderr, the loss is caught.
f=tests/claude/deny-read-write-root.confpol
grep -v CP0773 "$tmp/deny-read-write-root/stderr" > "$tmp/no-cp0773"
if python3 tests/claude/claudemodel.py decide "$f" \
        "$tmp/deny-read-write-root/deny-read-write-root.claude.json" \
        "$tmp/no-cp0773" "$helper" >"$tmp/bound.out"; then
    echo "FAIL: the model missed a write root bound back under a deny read"
    fail=1
fi
grep -q 'explain denies read /tmp/build/out, but Bash may read it' "$tmp/bound.out" ||
    { cat "$tmp/bound.out"; echo "FAIL: the bound-back read was not named"; fail=1; }
exit $fail

#!/bin/sh
# The gate's time bounds (spec/gate.md, "Deadline" and "Performance"): the
# regexes that took regexec quadratic time (x+y, curl.*[|].*sh, nested
# repetitions) answer on a command of nearly 1 MiB, on the policy and on
# the artifact, with the right verdict and well within the test's timeout;
# and a hook past its deadline (shortened with CONFPOL_GATE_DEADLINE_MS)
# answers deny with the deadline's reason and exit 2, under a fail-open
# policy too.  Times are not asserted (make bench-gate prints them).
set -u
: "${CONFPOL:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
cd "$tmp" || exit 1

cat >closed.confpol <<'P'
confpol 1
profile confined
gate ask re"x+y"
gate ask re"curl.*[|].*sh"
gate deny re"(x|xx)+z"
gate ask re"(.*x){20}w"
gate ask re"(a|b)*a(a|b){12}v"
P
sed 's/profile confined/profile cooperative/' closed.confpol >open.confpol
"$CONFPOL" build --target claude -o . closed.confpol >/dev/null 2>&1 ||
    fail "build of the artifact"

# mk NAME REPEAT TAIL: a Bash call whose command is REPEAT repeated to
# 1,040,000 bytes, then TAIL
mk() {
    python3 -c 'import json, sys
n = 1040000
c = (sys.argv[1] * n)[:n] + sys.argv[2]
print(json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": c}}))' "$2" "$3" >"$1.json"
}
mk plain x ''
mk ends-y x y
mk ends-z x z
mk curl 'curl ' ''
mk curl-sh 'curl ' '| sh'
mk ab ab ''
mk ab-v ab av

# hookrun TARGET: the hook on TARGET, with a limit; prog:ART is
# confpol-gate (the program installed settings run) on ART
G=$(dirname "$CONFPOL")/confpol-gate
hookrun() {
    case $1 in
    prog:*) timeout 30 "$G" "${1#prog:}" ;;
    *) timeout 30 "$CONFPOL" gate "$1" ;;
    esac
}

# decide NAME VERDICT
decide() {
    for t in closed.confpol closed.claude.json prog:closed.claude.json; do
        hookrun "$t" <"$1.json" >out 2>err
        rc=$?
        [ "$rc" = 124 ] && { fail "$1 ($t): no answer within 30 s"; continue; }
        got=allow
        grep -q '"permissionDecision": "ask"' out && got=ask
        grep -q '"permissionDecision": "deny"' out && got=deny
        [ "$got" = "$2" ] || fail "$1 ($t): $got (exit $rc), want $2: $(cat out err | cut -c1-200)"
    done
}
decide plain allow
decide ends-y ask
decide ends-z deny
decide curl allow
decide curl-sh ask
decide ab allow
decide ab-v ask

want='{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "confpol gate: no decision within 1 ms; denying (the hook'"'"'s deadline)"}}'
for t in closed.confpol closed.claude.json open.confpol prog:closed.claude.json; do
    CONFPOL_GATE_DEADLINE_MS=1 hookrun "$t" <ab.json >out 2>err
    rc=$?
    [ "$rc" = 2 ] || fail "deadline ($t): exit $rc, want 2"
    [ "$(cat out)" = "$want" ] || fail "deadline ($t): stdout $(cat out)"
    grep -q "no decision within 1 ms; denying (the hook's deadline)" err ||
        fail "deadline ($t): stderr $(cat err)"
done
# a longer deadline than the default is ignored (never later)
CONFPOL_GATE_DEADLINE_MS=99999999 timeout 30 "$CONFPOL" gate closed.confpol <ends-y.json >out 2>&1
grep -q '"ask"' out || fail "a too-long deadline changed the answer: $(cat out)"

[ "$fails" = 0 ] || exit 1
echo "gate-deadline: all passed"

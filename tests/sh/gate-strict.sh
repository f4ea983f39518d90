#!/bin/sh
# confpol gate on input that only a strict JSON reader refuses: a key twice
# anywhere, the escape \u0000 in a key, invalid UTF-8, nesting over 256
# levels, non-RFC numbers and whitespace, a byte order mark.  Each is
# malformed input with its exact reason: deny (exit 2) under a fail-closed
# policy or artifact, allow with the warning under a fail-open one; the
# same call written strictly is decided by the rules (spec/gate.md, "The
# reader").
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

printf 'confpol 1\nprofile confined\ngate deny "rm -rf *"\n' >closed.confpol
printf 'confpol 1\nprofile cooperative\ngate deny "rm -rf *"\n' >open.confpol
"$CONFPOL" build --target claude -o . closed.confpol >/dev/null 2>&1 ||
    fail "build of the closed artifact"

# case NAME REASON: the input is in NAME.json
n=0
case_() {
    n=$((n + 1))
    name=$1 why=$2
    for t in closed.confpol closed.claude.json; do
        timeout 10 "$CONFPOL" gate "$t" <"$name.json" >out 2>err
        rc=$?
        want="confpol gate: $why; denying (the policy fails closed)"
        [ "$rc" = 2 ] || fail "$name ($t): exit $rc, want 2"
        [ "$(cat out)" = "{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"$want\"}}" ] ||
            fail "$name ($t): stdout $(cat out)"
        [ "$(cat err)" = "$want" ] || fail "$name ($t): stderr $(cat err)"
    done
    timeout 10 "$CONFPOL" gate open.confpol <"$name.json" >out 2>err
    rc=$?
    [ "$rc" = 0 ] && [ ! -s out ] || fail "$name (open): exit $rc, stdout $(cat out)"
    [ "$(cat err)" = "confpol gate: warning: $why; allowing (the policy fails open)" ] ||
        fail "$name (open): stderr $(cat err)"
}

# The call itself, written strictly: denied by the rule.
printf '%s' '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "session_id": "s"}' >ok.json
for t in closed.confpol closed.claude.json open.confpol; do
    timeout 10 "$CONFPOL" gate "$t" <ok.json >out 2>err
    grep -q '"permissionDecision": "deny"' out || fail "strict call ($t): $(cat out)"
done

body='"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}'
printf '{%s, "session_id": "a", "session_id": "b"}' "$body" >dup-top.json
case_ dup-top "input has a duplicate key"
printf '{%s, "x": {"y": [{"k": 1, "k": 2}]}}' "$body" >dup-deep.json
case_ dup-deep "input has a duplicate key"
printf '{%s, "a\\u0000": 1}' "$body" >nul-key.json
case_ nul-key "input contains an escaped NUL character"
printf '{"tool_name": "Bash", "tool_input": {"command": "rm -rf /\377"}}' >utf8.json
case_ utf8 "input is not valid UTF-8"
printf '{"tool_name": "Bash", "tool_input": {"command": "rm -rf /\300\257"}}' >overlong.json
case_ overlong "input is not valid UTF-8"
python3 -c 'import sys; sys.stdout.write("{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"rm -rf /\", \"x\": " + "[" * 300 + "]" * 300 + "}}")' >deep.json
case_ deep "input is nested deeper than 256 levels"
printf '{%s, "timeout": +1}' "$body" >plus.json
case_ plus "input is not JSON"
printf '{%s, "timeout": 01}' "$body" >zero.json
case_ zero "input is not JSON"
printf '\v{%s}' "$body" >vtab.json
case_ vtab "input is not JSON"
printf '\357\273\277{%s}' "$body" >bom.json
case_ bom "input is not JSON"
printf '{"tool_name": "Bash", "tool_input": {"command": "rm -rf /\tx"}}' >ctl.json
case_ ctl "input is not JSON"

[ "$n" -ge 11 ] || fail "only $n cases ran"
[ "$fails" -eq 0 ] || exit 1
echo "ok: $n strict-reader inputs answered as malformed input"

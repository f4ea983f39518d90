#!/bin/sh
# confpol gate: the seed's gate table on sample commands (policy and
# artifact), fail-closed/open answers on malformed input, no hang on a stdin
# left open, and the hash-chained decision log (spec/gate.md).
set -u
: "${CONFPOL:?}" "${TOP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }

# ---- the seed gate table ---------------------------------------------------
seed="$TOP/tests/gate/seed-gates.confpol"
python3 "$TOP/tests/gate/seed-gates.py" emit | cmp -s - "$seed" ||
    fail "tests/gate/seed-gates.confpol is not what seed-gates.py emits"
python3 "$TOP/tests/gate/seed-gates.py" check 5000 >"$tmp/check.out" 2>&1 ||
    { cat "$tmp/check.out"; fail "the ERE translation is looser than the seed"; }
# every sample through the policy, and through the artifact that `confpol
# build` writes from it, which must answer byte for byte the same
mkdir "$tmp/built"
cp "$seed" "$tmp/built/seed.confpol"
if (cd "$tmp/built" && "$CONFPOL" build --target claude -o . seed.confpol) >"$tmp/build.out" 2>&1; then
    (cd "$tmp/built" && python3 "$TOP/tests/gate/seed-gates.py" gate "$CONFPOL" seed.confpol seed.claude.json) \
        >"$tmp/gate.out" 2>&1 || { cat "$tmp/gate.out"; fail "seed samples (policy, and built artifact vs policy)"; }
else
    cat "$tmp/build.out"
    fail "confpol build --target claude of the seed gate table"
    (cd "$TOP" && python3 tests/gate/seed-gates.py artifact tests/gate/seed-gates.confpol) \
        >"$tmp/seed.claude.json"
    (cd "$TOP" && python3 tests/gate/seed-gates.py gate "$CONFPOL" tests/gate/seed-gates.confpol "$tmp/seed.claude.json") \
        >"$tmp/gate.out" 2>&1 || { cat "$tmp/gate.out"; fail "seed samples (policy vs table)"; }
fi

# hook CMDLINE: the hook input for a Bash call
hook() {
    python3 -c 'import json,sys; print(json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": sys.argv[1]}}))' "$1"
}

# expect NAME WANT_RC WANT_STDOUT (exact, "" for none) -- stdin is the input
# of `confpol gate ARGS...` given after --
expect() {
    name=$1 want_rc=$2 want_out=$3
    shift 4
    timeout 10 "$CONFPOL" gate "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    out=$(cat "$tmp/out")
    [ "$rc" = "$want_rc" ] || fail "$name: exit $rc, want $want_rc (stderr: $(cat "$tmp/err"))"
    [ "$out" = "$want_out" ] || fail "$name: stdout
  got:  $out
  want: $want_out"
}

ans() { # ans ask|deny REASON
    printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "%s", "permissionDecisionReason": "%s"}}' "$1" "$2"
}

cd "$tmp" || exit 1
hook "sudo ls" >sudo.json
cp "$seed" seed.confpol
expect "exact ask answer" 0 "$(ans ask 'rule gate#1 (seed.confpol:8): re\"(^|[^[:alnum:]_])([sS]|ſ)[uU][dD][oO]([^[:alnum:]_]|$)|(^|[^[:alnum:]_])[dD][oO][aA]([sS]|ſ)([^[:alnum:]_]|$)\"')" \
    -- seed.confpol <sudo.json

# ---- word patterns, deny over ask, compound commands -----------------------
cat >words.confpol <<'EOF'
confpol 1
profile confined
gate ask "git push *"
gate deny "git push --force *"
gate deny re"rm[[:space:]]+-rf[[:space:]]+/"
write /tmp/gate-sh-writable
EOF
hook "git push origin main" >in1.json
expect "word ask" 0 "$(ans ask 'rule gate#1 (words.confpol:3): git push *')" -- words.confpol <in1.json
hook "make && git push --force origin main" >in2.json
expect "word deny in a compound command" 0 "$(ans deny 'rule gate#2 (words.confpol:4): git push --force *')" -- words.confpol <in2.json
hook "echo 'git push --force'" >in3.json
expect "quoted words are one argument" 0 "" -- words.confpol <in3.json
hook "cd / && rm -rf /" >in4.json
expect "regex over the whole line" 0 "$(ans deny 'rule gate#3 (words.confpol:5): re\"rm[[:space:]]+-rf[[:space:]]+/\"')" -- words.confpol <in4.json
printf '%s' '{"tool_name": "Write", "tool_input": {"file_path": "/tmp/gate-sh-writable/x", "content": "git push --force x"}}' >write.json
export CLAUDE_PROJECT_DIR="$tmp"
expect "what a Write writes is not a command line" 0 "" -- words.confpol <write.json
unset CLAUDE_PROJECT_DIR

# ---- fail closed / fail open ------------------------------------------------
mk() { # mk NAME PROFILE-LINES
    printf 'confpol 1\n%s\ngate ask re"sudo"\n' "$2" >"$1.confpol"
}
mk closed-confined "profile confined"
mk closed-exclusive "profile exclusive"
mk closed-explicit "profile confined
fail closed"
mk open-cooperative "profile cooperative"
mk open-defaulted ""
mk open-written "profile confined
fail open"
python3 - <<'EOF'
import json
for name, fc in (("closed-artifact", True), ("open-artifact", False)):
    with open(name + ".claude.json", "w") as f:
        json.dump({"permissions": {}, "confpol": {"version": 1, "stem": name, "failClosed": fc,
                   "gates": [{"id": "gate#1", "verdict": "ask", "kind": "regex",
                              "pattern": "sudo", "where": name + ".confpol:3"}]}}, f)
EOF
printf 'not json' >bad1.json
printf '[1, 2]' >bad2.json
printf '{"tool_name": "Bash", "tool_input": "sudo ls"}' >bad3.json
printf '{"tool_name": "Bash", "tool_input": {"command": 5}}' >bad4.json
printf '' >bad5.json
python3 -c 'import json; print(json.dumps({"tool_name": "Bash", "tool_input": {"command": "x" * (1 << 21)}}))' >bad6.json
why1="input is not JSON"
why2="input is not a JSON object"
why3="tool_input is missing or not an object"
why4="tool_input.command is missing or not a string"
why5="input is not JSON"
why6="input larger than 1 MiB"
for t in closed-confined.confpol closed-exclusive.confpol closed-explicit.confpol closed-artifact.claude.json; do
    where=$(basename "$t" | sed 's/\.claude\.json$//; s/\.confpol$//').confpol:3
    [ "$t" = closed-explicit.confpol ] && where=closed-explicit.confpol:4
    expect "$t: well-formed ask" 0 "$(ans ask "rule gate#1 ($where): re\\\"sudo\\\"")" -- "$t" <sudo.json
    for i in 1 2 3 4 5 6; do
        eval "why=\$why$i"
        expect "$t: malformed input $i" 2 "$(ans deny "confpol gate: $why; denying (the policy fails closed)")" -- "$t" <"bad$i.json"
        grep -qx "confpol gate: $why; denying (the policy fails closed)" "$tmp/err" ||
            fail "$t: malformed input $i: stderr $(cat "$tmp/err")"
    done
done
for t in open-cooperative.confpol open-defaulted.confpol open-written.confpol open-artifact.claude.json; do
    for i in 1 2 3 4 5 6; do
        eval "why=\$why$i"
        expect "$t: malformed input $i" 0 "" -- "$t" <"bad$i.json"
        grep -qx "confpol gate: warning: $why; allowing (the policy fails open)" "$tmp/err" ||
            fail "$t: malformed input $i: stderr $(cat "$tmp/err")"
    done
done

# no policy to decide with: deny whatever the input
expect "missing policy" 2 "$(ans deny "confpol gate: policy 'missing.confpol' does not compile; denying (no policy to decide with)")" -- missing.confpol <sudo.json
printf 'confpol 1\nprofile cooperative\ngate ask re"("\n' >broken.confpol
expect "policy with an error" 2 "$(ans deny "confpol gate: policy 'broken.confpol' does not compile; denying (no policy to decide with)")" -- broken.confpol <sudo.json
printf '{"confpol": {"version": 1}}' >broken.claude.json
expect "invalid artifact" 2 "$(ans deny "confpol gate: 'broken.claude.json': gate table has no \\\"stem\\\" string; denying (no policy to decide with)")" -- broken.claude.json <sudo.json
mkfifo fifo-policy.confpol fifo-policy.claude.json
expect "policy is a FIFO" 2 "$(ans deny "confpol gate: policy 'fifo-policy.confpol' is not a regular file; denying (no policy to decide with)")" -- fifo-policy.confpol <sudo.json
expect "artifact is a FIFO" 2 "$(ans deny "confpol gate: 'fifo-policy.claude.json' is not a regular file; denying (no policy to decide with)")" -- fifo-policy.claude.json <sudo.json
expect "no argument" 2 "$(ans deny "confpol gate: usage error in the hook command; denying (no policy to decide with)")" -- <sudo.json
# confpol-gate, the installed hook program, decides with an artifact only:
# a policy source, an option of confpol gate's, no argument: deny
G=$(dirname "$CONFPOL")/confpol-gate
for args in "closed-confined.confpol" "-D X=1 broken.claude.json" ""; do
    # shellcheck disable=SC2086 # the arguments, split
    timeout 10 "$G" $args <sudo.json >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 2 ] && [ "$(cat "$tmp/out")" = "$(ans deny "confpol gate: usage error in the hook command; denying (no policy to decide with)")" ] ||
        fail "confpol-gate $args: exit $rc, $(cat "$tmp/out" "$tmp/err")"
done
grep -q "see 'confpol-gate --help'" "$tmp/err" || fail "confpol-gate's usage error: $(cat "$tmp/err")"
timeout 10 "$G" closed-confined.confpol <sudo.json 2>&1 | grep -q "confpol gate: confpol-gate decides with an artifact (.json) only" ||
    fail "confpol-gate names why a policy source is refused"
timeout 10 "$G" --help | grep -q "^usage: confpol-gate \[--sha256 HEX\] ARTIFACT.claude.json" ||
    fail "confpol-gate --help"

# ---- stdin left open ----------------------------------------------------------
mkfifo fifo
# a complete object on a pipe that stays open: answered at once
(cat sudo.json; exec sleep 20) >fifo 2>/dev/null </dev/null &
writer=$!
start=$(date +%s)
expect "stdin left open after a complete object" 0 "$(ans ask 'rule gate#1 (closed-confined.confpol:3): re\"sudo\"')" -- closed-confined.confpol <fifo
[ $(($(date +%s) - start)) -le 2 ] || fail "answer waited for EOF"
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null
# an incomplete object and silence: deny after the read timeout, no hang
(printf '{"tool_name": "Bash"'; exec sleep 20) >fifo 2>/dev/null </dev/null &
writer=$!
start=$(date +%s)
expect "stdin left open, incomplete" 2 "$(ans deny "confpol gate: input incomplete after 3 s (stdin left open?); denying (the policy fails closed)")" -- closed-confined.confpol <fifo
el=$(($(date +%s) - start))
[ "$el" -ge 2 ] && [ "$el" -le 6 ] || fail "read timeout took ${el}s"
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null

# ---- decision log -------------------------------------------------------------
log="$tmp/gate.log"
hook "git status" >status.json
CONFPOL_GATE_LOG=$log "$CONFPOL" gate closed-confined.confpol <sudo.json >/dev/null || fail "log: ask"
CONFPOL_GATE_LOG=$log "$CONFPOL" gate closed-confined.confpol <status.json >/dev/null || fail "log: allow"
CONFPOL_GATE_LOG=$log "$CONFPOL" gate closed-confined.confpol <bad1.json >/dev/null 2>&1
CONFPOL_GATE_LOG=$log "$CONFPOL" gate closed-confined.confpol <write.json >/dev/null || fail "log: other tool"
[ "$(wc -l <"$log")" -eq 4 ] || fail "log has $(wc -l <"$log") lines, want 4"
grep -q 'sudo\|git status' "$log" && fail "the log holds a command line"
sha=$(printf '%s' "sudo ls" | sha256sum | cut -d' ' -f1)
head -n 1 "$log" | grep -q "\"decision\": \"ask\", \"rule\": \"gate#1\", \"cmd_sha256\": \"$sha\", \"prev\": \"0000000000000000000000000000000000000000000000000000000000000000\", \"tool\": \"Bash\"}$" ||
    fail "log line 1: $(head -n 1 "$log")"
prev=$(head -n 1 "$log" | tr -d '\n' | sha256sum | cut -d' ' -f1)
sed -n 2p "$log" | grep -q "\"decision\": \"allow\", \"rule\": null, .*\"prev\": \"$prev\"" ||
    fail "log line 2: $(sed -n 2p "$log")"
sed -n 3p "$log" | grep -q '"decision": "deny", "rule": null, "cmd_sha256": null, ' ||
    fail "log line 3: $(sed -n 3p "$log")"
"$CONFPOL" gate --verify-log "$log" >"$tmp/out" 2>"$tmp/err" || fail "verify-log of an intact log: $(cat "$tmp/err")"
grep -q "^$log: 4 lines, chain intact; last line sha256 [0-9a-f]\{64\}\$" "$tmp/out" || fail "verify-log output: $(cat "$tmp/out")"
# tamper: turn the ask of line 1 into an allow
sed '1s/"decision": "ask"/"decision": "allow"/' "$log" >"$tmp/tampered.log"
"$CONFPOL" gate --verify-log "$tmp/tampered.log" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "verify-log of a tampered log: want exit 1"
[ "$(cat "$tmp/err")" = "$tmp/tampered.log:2: \"prev\" does not match the SHA-256 of the line before (a line was changed, inserted or removed)" ] ||
    fail "verify-log message: $(cat "$tmp/err")"
# delete a line in the middle
sed 2d "$log" >"$tmp/cut.log"
"$CONFPOL" gate --verify-log "$tmp/cut.log" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^$tmp/cut.log:2: " "$tmp/err" || fail "verify-log of a log with a deleted line"
"$CONFPOL" gate --verify-log "$tmp/nonexistent.log" >/dev/null 2>&1
[ $? -eq 2 ] || fail "verify-log of a missing file: want exit 2"
# a relative log path is ignored with a warning; the decision stands
CONFPOL_GATE_LOG=rel.log "$CONFPOL" gate closed-confined.confpol <sudo.json >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q '"permissionDecision": "ask"' "$tmp/out" || fail "relative log path changed the decision"
[ ! -e rel.log ] || fail "relative log path was written"
grep -q "warning: CONFPOL_GATE_LOG='rel.log' is not an absolute path; not logging" "$tmp/err" || fail "relative log path: no warning"
# an unwritable log never changes the decision
CONFPOL_GATE_LOG=/nonexistent-dir/gate.log "$CONFPOL" gate closed-confined.confpol <sudo.json >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q '"permissionDecision": "ask"' "$tmp/out" || fail "unwritable log changed the decision"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "gate: all checks passed"

#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/run.sh bounds every script.  A script that ends but leaves a
# process holding its stdout (as an orphaned inner bwrap does) is reported
# when it ends, not when that process does; a script over its time limit
# is killed at the limit; and nothing either started is left running, also
# a process that left the script's process group with setsid.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d) || exit 2
probe="$T/probe-sleep"
cleanup() {
    # only the probes of this test: the copy of sleep under $T
    for p in $(pgrep -f "^$probe" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cp "$(command -v sleep)" "$probe" || exit 2
fails=0
fail() { echo "not ok - $*"; fails=$((fails + 1)); }
pass() { echo "ok - $*"; }

printf '%s\n' 'echo leaving' "\"$probe\" 300 &" "setsid \"$probe\" 301 &" \
    'exit 0' >"$T/leaves.sh"
printf '%s\n' 'echo hanging' "setsid \"$probe\" 302 &" "\"$probe\" 303" \
    >"$T/hangs.sh"

# Seconds taken by tests/run.sh on script $1 (limit $2), its output in
# $T/out and its exit status in $T/rc; the whole is bounded here too.
runner() {
    t0=$(date +%s)
    TEST_TIMEOUT=$2 timeout -k 5 60 sh "$TOP/tests/run.sh" "$1" >"$T/out" 2>&1
    echo $? >"$T/rc"
    echo $(($(date +%s) - t0))
}

secs=$(runner "$T/leaves.sh" 20)
if [ "$secs" -lt 15 ] && [ "$(cat "$T/rc")" = 0 ] && grep -q "^ok - .*leaves.sh" "$T/out"; then
    pass "a script leaving a process on its stdout is done when it ends (${secs}s)"
else
    fail "a script leaving a process on its stdout: ${secs}s, exit $(cat "$T/rc")"
    sed 's/^/#   /' "$T/out"
fi
sleep 1
if pgrep -f "^$probe" >/dev/null; then
    fail "processes the script left behind still run: $(pgrep -a -f "^$probe" | tr '\n' ' ')"
else
    pass "nothing the script left behind still runs"
fi

secs=$(runner "$T/hangs.sh" 3)
if [ "$secs" -lt 20 ] && grep -q "^not ok - .*hangs.sh (exit 124)" "$T/out" &&
    grep -q '^#   hanging' "$T/out"; then
    pass "a script over its limit is killed at the limit, its output shown (${secs}s)"
else
    fail "a script over its limit: ${secs}s, exit $(cat "$T/rc")"
    sed 's/^/#   /' "$T/out"
fi
sleep 1
if pgrep -f "^$probe" >/dev/null; then
    fail "processes of the killed script still run: $(pgrep -a -f "^$probe" | tr '\n' ' ')"
else
    pass "nothing of the killed script still runs, also not what called setsid"
fi
[ "$fails" -eq 0 ]

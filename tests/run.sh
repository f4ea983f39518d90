#!/bin/sh
# Runs every shell-level test: tests/sh/*.sh and tests/golden/run.sh.
# Each script exits 0 (pass), 77 (skip, with the reason on stdout) or
# anything else (fail).  Under CI=true a skip counts as a failure: CI must
# prove the denies, not skip them.  TEST_TIMEOUT (seconds, default 600)
# bounds each script.  Arguments name scripts to run instead of all
# (tests/run.sh tests/sh/gate.sh).
set -u
BUILD=${BUILD:-build}
export BUILD
top=$(cd "$(dirname "$0")/.." && pwd)
export CONFPOL="$top/$BUILD/confpol" CONFPOL_RUN="$top/$BUILD/confpol-run" TOP="$top"
# The gate library of this tree, also for helpers linked elsewhere.
export CONFPOL_LIBRARY="$top/gates"
# The npm tools of the tests (Claude Code, the sandbox runtime), installed
# into build/tools by .ci/deps.sh, come before any on the machine.
export CONFPOL_TOOLS="${CONFPOL_TOOLS:-$top/build/tools}"
export PATH="$CONFPOL_TOOLS/bin:$PATH"
pass=0 fail=0 skip=0
logdir=$(mktemp -d "${TMPDIR:-/tmp}/confpol-run-sh.XXXXXX") || exit 2
trap 'rm -rf "$logdir"' EXIT
trap 'exit 130' INT TERM
# Runs test script $1 with its output in $logdir/out; sets rc.  Every script
# has a time limit, so that no test can hang a run: a script over it is
# killed and counts as failed (exit 124 or 137).  The output goes to a file,
# not a pipe: a process the script leaves behind holding its stdout (an
# orphaned inner bwrap, a background sleeper) cannot keep the run waiting
# for an end of file.  timeout leads a process group of its own (it calls
# setpgid), so at the end the whole group is killed, and then every process
# still holding the output file open (one that left the group with setsid).
run_one() {
    : >"$logdir/out"
    timeout -k 10 "${TEST_TIMEOUT:-600}" sh "$1" >"$logdir/out" 2>&1 </dev/null &
    pid=$!
    wait "$pid"
    rc=$?
    kill -KILL -- "-$pid" 2>/dev/null
    if command -v fuser >/dev/null 2>&1; then
        fuser -s -k -KILL "$logdir/out" >/dev/null 2>&1
    fi
    return 0
}
[ $# -gt 0 ] || set -- "$top"/tests/golden/run.sh "$top"/tests/sh/*.sh
for t in "$@"; do
    case $t in /*) ;; *) t="$PWD/$t" ;; esac
    [ -f "$t" ] || { echo "no such test: $t"; fail=$((fail + 1)); continue; }
    name=${t#"$top"/}
    run_one "$t"
    out=$(cat "$logdir/out")
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); echo "ok - $name"
    elif [ $rc -eq 77 ] && [ "${CI:-}" != true ]; then
        skip=$((skip + 1)); echo "ok - $name # SKIP $(printf '%s' "$out" | tail -n 1)"
    else
        fail=$((fail + 1)); echo "not ok - $name (exit $rc)"
        # the failed cases first (a long script's tail may not hold them)
        printf '%s\n' "$out" | grep 'not ok' | sed 's/^/#   /'
        printf '%s\n' "$out" | sed 's/^/#   /' | tail -n 60
    fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]

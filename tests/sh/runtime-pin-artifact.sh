#!/bin/sh
# SPDX-License-Identifier: MIT
# Refusals of inconsistent artifacts, pinned under both enforcers: a sealed
# artifact whose records contradict each other (network records without
# the network namespace that makes them a boundary) is refused with 125
# and the command never runs, also with --allow-unenforced; the same
# artifact made consistent runs.  (spec/runtime.md §4, §14; the checks
# are those `make mutate` found unpinned.)
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
T=$(mktemp -d /var/tmp/confpol-pin.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$T"

enforcers=""
"$RUN" --enforcer bwrap --check >/dev/null 2>&1 && enforcers="bwrap"
"$RUN" --check 2>/dev/null | grep -q '^landlock: ABI [1-9]' && enforcers="$enforcers landlock"
[ -n "$enforcers" ] || { echo "no enforcer can run here"; exit 77; }

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# art NAME EXTRA-RECORD...: an artifact that binds / read-only, $T/w
# writable, plus the records given (one per argument).
art() {
    name=$1; shift
    {
        printf '%s\n' 'profile confined' 'fail closed' 'arg --ro-bind' 'arg /' 'arg /' \
            'arg --dev' 'arg /dev' 'arg --proc' 'arg /proc' "bind '' $T/w"
        for r in "$@"; do printf '%s\n' "$r"; done
    } >"$T/$name.txt"
    $MK "$T/$name.txt" "$T/$name.bwrap" || exit 2
}
mkdir -p "$T/w"
S=$T/agent.sock
art sock-no-ns "socket '' $S t.confpol:3"
art net-no-ns "net example.test:443 t.confpol:2"
art sock-ns 'arg --unshare-net' "socket '' $S t.confpol:3"
art net-ns 'arg --unshare-net' "net example.test:443 t.confpol:2"

# refused ENFORCER ARTIFACT [OPTION]: exit 125, the command did not run.
refused() {
    rm -f "$T/w/ran"
    timeout 60 "$RUN" --enforcer "$1" ${3:+"$3"} "$T/$2.bwrap" -- \
        sh -c "echo x > '$T/w/ran'" >"$T/out" 2>&1; rc=$?
    if [ $rc = 125 ] && [ ! -e "$T/w/ran" ]; then
        ok "$1: $2${3:+ $3} refused (125), the command did not run"
    else
        bad "$1: $2${3:+ $3}: exit $rc, ran: $([ -e "$T/w/ran" ] && echo yes || echo no): $(head -c 300 "$T/out")"
    fi
}
# runs ENFORCER ARTIFACT: exit 0 and the command ran.
runs() {
    rm -f "$T/w/ran"
    timeout 60 "$RUN" --enforcer "$1" "$T/$2.bwrap" -- \
        sh -c "echo x > '$T/w/ran'" >"$T/out" 2>&1; rc=$?
    if [ $rc = 0 ] && [ -e "$T/w/ran" ]; then
        ok "$1: $2 runs"
    else
        bad "$1: $2: exit $rc: $(head -c 300 "$T/out")"
    fi
}

for e in $enforcers; do
    refused "$e" sock-no-ns
    refused "$e" sock-no-ns --allow-unenforced
    runs "$e" sock-ns
done
# The Landlock enforcer lowers net allow-lists as net deny (stricter); the
# bwrap enforcer starts the proxy, which without a namespace is a detour.
case " $enforcers " in *" bwrap "*)
    refused bwrap net-no-ns
    refused bwrap net-no-ns --allow-unenforced
    runs bwrap net-ns
    ;;
esac
echo "$n checks, $fails failed"
[ "$fails" -eq 0 ]

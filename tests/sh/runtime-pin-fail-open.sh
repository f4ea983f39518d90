#!/bin/sh
# SPDX-License-Identifier: MIT
# Under `fail open` only what cannot be enforced (spec/runtime.md §8: bwrap
# missing or failing to set the sandbox up, the stage refusing) runs the
# command unconfined, with a warning.  A failure of the runtime's own
# preparation is an error (125), whatever the policy says: here the write
# of bwrap's argument file fails (strace fault injection on that one
# write, found by tracing a clean launch).  Were it ignored, bwrap would
# start with an empty argument file, fail, and the failure would be taken
# for one to run unconfined.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
command -v strace >/dev/null 2>&1 || { echo "strace is not installed"; exit 77; }
if [ -n "${CONFPOL_SANITIZER:-}" ]; then
    # the sanitizer runtime's own writes fail first under injection
    echo "# not run under $CONFPOL_SANITIZER: fault injection"
    exit 0
fi
"$RUN" --enforcer bwrap --check >/dev/null 2>&1 || { echo "bwrap cannot run here"; exit 77; }
T=$(mktemp -d /var/tmp/confpol-failopen.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$T"
mkdir -p "$T/w"
printf '%s\n' 'profile confined' 'fail open' 'arg --ro-bind' 'arg /' 'arg /' \
    'arg --dev' 'arg /dev' 'arg --proc' 'arg /proc' "bind '' $T/w" >"$T/a.txt"
$MK "$T/a.txt" "$T/a.bwrap" || exit 2

# The ordinal of the write to the argument file among the launcher's writes.
timeout 30 strace -qq -o "$T/trace" -e trace=write,memfd_create \
    "$RUN" --enforcer bwrap "$T/a.bwrap" -- true >/dev/null 2>&1
k=$(awk '/^memfd_create\("confpol-bwrap-args"/ { fd = $NF }
    /^write\(/ { n++; split($0, a, /[(,]/); if (a[2] == fd) { print n; exit } }' "$T/trace")
if [ -z "$k" ]; then
    echo "not ok 1 - no write to the argument file in a clean launch"
    sed 's/^/#   /' "$T/trace" | head -20
    exit 1
fi
timeout 30 strace -qq -o /dev/null -e trace=write -e inject=write:error=EIO:when="$k" \
    "$RUN" --enforcer bwrap "$T/a.bwrap" -- sh -c "touch '$T/ran'" >"$T/out" 2>&1
rc=$?
if [ $rc = 125 ] && [ ! -e "$T/ran" ] && grep -q "writing the bwrap arguments" "$T/out"; then
    echo "ok 1 - fail open: the argument file not written: refused (125), the command never ran"
else
    echo "not ok 1 - fail open: the argument file not written: exit $rc, ran: $([ -e "$T/ran" ] && echo yes || echo no)"
    sed 's/^/#   /' "$T/out" | head -10
    exit 1
fi
echo "1..1"

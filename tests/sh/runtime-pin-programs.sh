#!/bin/sh
# SPDX-License-Identifier: MIT
# The first checks of the janitor, the stage and the launcher programs, which every
# launch passes and so no launch tests (spec/runtime.md §8.1):
#   - descriptors 0-2 that are closed are opened on /dev/null, so that no
#     descriptor the program makes lands there, and when /dev/null cannot
#     be opened the program stops at once (strace fault injection: every
#     openat fails);
#   - the janitor runs only with a socket as descriptor 3 (started by
#     confpol-run), and stops when it cannot close every other descriptor
#     it inherited (close_range missing and /proc/self/fd unreadable:
#     strace fault injection), rather than hold the launcher's descriptors;
#     and the launcher in the same case refuses to launch.
#   - the launcher stops when it cannot find its own directory (where its
#     helpers are), every readlink of /proc/self/exe failing.
# The janitor is given one end of a socket pair whose other end is closed:
# it sees its launcher gone and ends with 0.  Exit 77 when strace cannot
# run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
BIN=$(dirname "$RUN")
JAN=$BIN/confpol-janitor STAGE=$BIN/confpol-stage
for p in "$JAN" "$STAGE"; do
    [ -x "$p" ] || { echo "not built: $p"; exit 1; }
done
for c in python3 strace; do
    command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; exit 77; }
done
strace -qq -o /dev/null true 2>/dev/null || { echo "strace cannot trace here"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/confpol-pin-programs.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
# want RC WHAT: the last run exited RC
want() {
    if [ "$rc" -eq "$1" ]; then
        ok "$2"
    else
        bad "$2: exit $rc (want $1): $(cat "$T/out")"
    fi
}

# with3 KIND CLOSE0 CMD...: runs CMD with descriptor 3 a socket (KIND
# sock; its peer closed) or a regular file (KIND file), and descriptor 0
# closed when CLOSE0 is 1; its output in $T/out, its status in $rc.
with3() {
    timeout -k 5 30 python3 -c '
import os, socket, subprocess, sys
kind, close0, cmd = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
a, b = socket.socketpair()
f = open("/dev/null", "rb")
src = {"sock": a, "file": f}[kind].fileno()
def pre():
    os.dup2(src, 3)
    os.set_inheritable(3, True)
    if close0:
        os.close(0)
p = subprocess.Popen(cmd, preexec_fn=pre, close_fds=False)
a.close()
b.close()
sys.exit(p.wait())' "$@" >"$T/out" 2>&1
    rc=$?
}
FAIL_OPEN="-e trace=openat,open -e inject=openat:error=EACCES -e inject=open:error=EACCES"
FAIL_CLOSE="-e trace=close_range,openat,open -e inject=close_range:error=ENOSYS -e inject=openat:error=EACCES -e inject=open:error=EACCES"
# A sanitizer build is linked dynamically and its runtime makes calls of
# its own at start-up: an injected failure stops the loader or the
# sanitizer before the program's own check (make check runs these cases on
# the static build).
injecting() {
    [ -z "${CONFPOL_SANITIZER:-}" ] && return 0
    echo "# $1: no fault injection under $CONFPOL_SANITIZER"
    return 1
}

with3 sock 0 "$JAN"
want 0 "janitor: started as confpol-run starts it, it ends with its launcher"

with3 file 0 "$JAN"
if [ "$rc" -eq 125 ] && grep -q 'started by confpol-run only' "$T/out"; then
    ok "janitor: descriptor 3 not a socket: refused"
else
    bad "janitor: descriptor 3 a regular file: exit $rc: $(cat "$T/out")"
fi

with3 sock 1 "$JAN"
want 0 "janitor: descriptor 0 closed: opened on /dev/null, it runs"

if injecting "janitor"; then
    # shellcheck disable=SC2086
    with3 sock 1 strace -f -qq -o /dev/null $FAIL_OPEN "$JAN"
    want 125 "janitor: descriptor 0 closed and /dev/null not opened: it stops"

    # shellcheck disable=SC2086
    with3 sock 0 strace -f -qq -o /dev/null $FAIL_CLOSE "$JAN"
    want 125 "janitor: inherited descriptors it cannot close (close_range and /proc/self/fd failing): it stops"
fi

# The launcher likewise: descriptor 0 closed and /dev/null that cannot be
# opened there stops it before anything it opens could land on 0.
with3 file 1 "$RUN" --version
want 0 "confpol-run: descriptor 0 closed: opened on /dev/null, it runs"
if injecting "confpol-run"; then
    # shellcheck disable=SC2086
    with3 file 1 strace -qq -o /dev/null $FAIL_OPEN "$RUN" --version
    want 125 "confpol-run: descriptor 0 closed and /dev/null not opened: it stops"
fi

# The stage without its three descriptors: it refuses its arguments once
# 0-2 are valid; before that it stops without a word.
timeout -k 5 30 "$STAGE" <&- >"$T/out" 2>&1
rc=$?
if [ "$rc" -eq 125 ] && grep -q 'stage: bad arguments' "$T/out"; then
    ok "stage: descriptor 0 closed: opened on /dev/null, it goes on to its arguments"
else
    bad "stage: descriptor 0 closed: exit $rc: $(cat "$T/out")"
fi
if injecting "stage"; then
    # shellcheck disable=SC2086
    timeout -k 5 30 strace -f -qq -o /dev/null $FAIL_OPEN "$STAGE" <&- >"$T/out" 2>&1
    rc=$?
    if [ "$rc" -eq 125 ] && ! grep -q 'stage:' "$T/out"; then
        ok "stage: descriptor 0 closed and /dev/null not opened: it stops first"
    else
        bad "stage: descriptor 0 closed, every open failing: exit $rc: $(cat "$T/out")"
    fi
fi

# The launcher that cannot find its own directory (every readlink of
# /proc/self/exe failing): refused (125) and named, before any helper is
# looked for.
printf '%s\n' 'profile confined' 'fail closed' 'arg --ro-bind' 'arg /' 'arg /' \
    'arg --unshare-net' >"$T/a.txt"
python3 "$TOP/tests/runtime/mkartifact.py" "$T/a.txt" "$T/a.bwrap" || exit 2
if injecting "launcher"; then
    out=$(timeout -k 5 30 strace -qq -o /dev/null -e trace=readlink -e inject=readlink:error=EIO \
        "$RUN" -q "$T/a.bwrap" -- echo ran 2>"$T/out")
    rc=$?
    if [ "$rc" -eq 125 ] && [ -z "$out" ] && grep -q 'cannot find its own directory' "$T/out"; then
        ok "launcher: its own directory unknown: refused"
    else
        bad "launcher: every readlink failing: exit $rc, '$out': $(cat "$T/out")"
    fi
fi

# The launcher that cannot close what it inherited (close_range missing and
# /proc/self/fd not opened) refuses, rather than hand the caller's
# descriptors to the sandbox, the proxy or the janitor (spec/runtime.md §6).
# The open of /proc/self/fd is found in a trace (open under musl, openat
# under glibc) and failed alone.
if injecting "launcher's inherited descriptors"; then
    strace -qq -o "$T/tr" -e trace=open,openat,close_range -e inject=close_range:error=ENOSYS \
        "$RUN" -q "$T/a.bwrap" -- true >/dev/null 2>&1
    sc=$(sed -n 's|^\(open[at]*\)(.*"/proc/self/fd".*|\1|p' "$T/tr" | head -n 1)
    k=${sc:+$(grep "^$sc(" "$T/tr" | grep -n '"/proc/self/fd"' | head -n 1 | cut -d: -f1)}
    if [ -z "$k" ]; then
        bad "launcher: no open of /proc/self/fd once close_range failed: $(head -c 300 "$T/tr")"
    else
        out=$(timeout -k 5 30 strace -qq -o /dev/null -e trace=open,openat,close_range \
            -e inject=close_range:error=ENOSYS -e "inject=$sc:error=EACCES:when=$k" \
            "$RUN" -q "$T/a.bwrap" -- echo ran 2>"$T/out")
        rc=$?
        if [ "$rc" -eq 126 ] && [ -z "$out" ] && grep -q 'cannot close the inherited descriptors' "$T/out"; then
            ok "launcher: inherited descriptors it cannot close: refused"
        else
            bad "launcher: close_range and /proc/self/fd failing: exit $rc, '$out': $(cat "$T/out")"
        fi
    fi
fi

echo "runtime-pin-programs: $((n - fails)) of $n passed"
[ "$fails" -eq 0 ]

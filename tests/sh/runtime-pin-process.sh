#!/bin/sh
# SPDX-License-Identifier: MIT
# The enforcer's child dies with the runtime even when the runtime dies
# before the child has asked for it: the child of a runtime killed between
# fork and the child's parent-death signal must not start bwrap, nor
# confine itself and run the command under Landlock (it would run the
# command unsupervised, its placeholders never removed).  strace holds
# the child's first prctl for two seconds; the runtime is killed in that
# window; the command must never run.  A control run without the kill
# shows the command runs under the same tracing.  And a runtime that
# cannot watch signals refuses instead of running the command deaf to
# SIGTERM, and under Landlock one that cannot become the session's
# subreaper refuses.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
command -v strace >/dev/null 2>&1 || { echo "strace is not installed"; exit 77; }
# LeakSanitizer cannot run under ptrace (it stops with a fatal error, which
# tests/sanitize.sh counts as a report): no leak check in the traced runs.
NOLEAK="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
"$RUN" --enforcer bwrap --check >/dev/null 2>&1 || { echo "bwrap cannot run here"; exit 77; }
T=$(mktemp -d /var/tmp/confpol-pin.XXXXXX) || exit 2
SPID=
cleanup() {
    [ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 755 "$T"
mkdir -p "$T/w"
printf '%s\n' 'profile confined' 'fail closed' 'arg --ro-bind' 'arg /' 'arg /' \
    'arg --dev' 'arg /dev' 'arg --proc' 'arg /proc' "bind '' $T/w" \
    'arg --unshare-net' >"$T/a.txt"
$MK "$T/a.txt" "$T/a.bwrap" || exit 2

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# held ENFORCER KILL: a launch whose first prctl in each process (in the
# enforcer's child: its parent-death signal) is held 2 s; with KILL=1 the
# runtime is killed while its child is held.
held() {
    rm -f "$T/w/ran"
    timeout -k 5 60 env ASAN_OPTIONS="$NOLEAK" strace -f -qq -o /dev/null -e trace=prctl \
        -e inject=prctl:delay_enter=2000000:when=1 \
        "$RUN" --enforcer "$1" -q "$T/a.bwrap" -- sh -c "echo x > '$T/w/ran'" \
        >"$T/out" 2>&1 &
    SPID=$!
    if [ "$2" = 1 ]; then
        # timeout, strace, the runtime, and its first child: the
        # enforcer's child, held in that prctl
        r= i=0
        while [ $i -lt 100 ]; do
            s=$(pgrep -P "$SPID" -x strace | head -n 1)
            r=${s:+$(pgrep -P "$s" | head -n 1)}
            [ -n "$r" ] && [ -n "$(pgrep -P "$r")" ] && break
            r=
            sleep 0.05
            i=$((i + 1))
        done
        if [ -n "$r" ]; then kill -KILL "$r"; else bad "$1: no child seen"; fi
    fi
    { wait "$SPID"; } 2>/dev/null
    SPID=
    sleep 3 # the held child goes on after 2 s: it must end, not run bwrap
}

enforcers=bwrap
"$RUN" --check 2>/dev/null | grep -q '^landlock: ABI [1-9]' && enforcers="bwrap landlock"
for e in $enforcers; do
    held "$e" 0
    if [ -e "$T/w/ran" ]; then ok "$e: control: the command runs under the held prctl"; else
        bad "$e: control: the command did not run: $(head -c 300 "$T/out")"; fi
    held "$e" 1
    if [ ! -e "$T/w/ran" ]; then ok "$e: the runtime killed before its child's prctl: the command never runs"; else
        bad "$e: the runtime killed before its child's prctl: the command ran"; fi
done
# The runtime watches signals through a descriptor (signalfd) while they
# are blocked: when it cannot make one it must refuse, not run the command
# deaf to SIGTERM.  The first signalfd4 fails; SIGTERM 2 s later must end
# the launch within 10 s (the command sleeps 30).
t0=$(date +%s)
timeout -k 5 60 env ASAN_OPTIONS="$NOLEAK" strace -qq -o /dev/null -e trace=signalfd4 \
    -e inject=signalfd4:error=EMFILE:when=1 \
    "$RUN" --enforcer bwrap -q "$T/a.bwrap" -- sleep 30 >"$T/out" 2>&1 &
SPID=$!
sleep 2
s=$(pgrep -P "$SPID" -x strace | head -n 1)
r=${s:+$(pgrep -P "$s" | head -n 1)}
[ -n "$r" ] && kill -TERM "$r"
{ wait "$SPID"; } 2>/dev/null
SPID=
secs=$(($(date +%s) - t0))
if [ "$secs" -lt 12 ]; then ok "no signalfd: the launch refuses or answers SIGTERM (${secs}s)"; else
    bad "no signalfd: the launch ignored SIGTERM for ${secs}s"; fi
# Under Landlock the runtime is the session's subreaper: what the command
# leaves behind is reparented to it and killed when the command ends
# (spec/runtime.md, process lifetime).  When it cannot become one (its
# first prctl fails) it must refuse, not run the command with detached
# descendants free to outlive it.
if "$RUN" --check 2>/dev/null | grep -q '^landlock: ABI [1-9]'; then
    rm -f "$T/w/ran"
    timeout -k 5 60 env ASAN_OPTIONS="$NOLEAK" strace -qq -o /dev/null -e trace=prctl \
        -e inject=prctl:error=EPERM:when=1 \
        "$RUN" --enforcer landlock -q "$T/a.bwrap" -- sh -c "touch '$T/w/ran'" >"$T/out" 2>&1
    rc=$?
    if [ "$rc" = 126 ] && [ ! -e "$T/w/ran" ] &&
        grep -q 'cannot supervise the command: Operation not permitted' "$T/out"; then
        ok "landlock: no subreaper: the launch refuses"
    else
        bad "landlock: no subreaper: exit $rc, ran: $([ -e "$T/w/ran" ] && echo yes || echo no): $(head -c 300 "$T/out")"
    fi
fi
echo "$n checks, $fails failed"
[ "$fails" -eq 0 ]

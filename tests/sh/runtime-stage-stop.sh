#!/bin/sh
# SPDX-License-Identifier: MIT
# A signal that reaches the launcher before it has read the stage's 'S'
# stops the launch: the launcher kills bwrap's setup and returns 128 +
# the signal.  bwrap's sandbox can outlive that kill (its parent-death
# signal is armed after it starts), and the stage no longer waits for
# the launcher on its way to the command: without the launcher's 'K' the
# stage of such a sandbox executed the command after confpol-run had
# decided to stop, unsupervised, holding the caller's output
# (spec/runtime.md §6, step 7).
#   stand-in: a bwrap on PATH that starts the real one in a session of its
#     own (out of reach of the kill, as the surviving sandbox is), 0.1 s
#     late, and sends SIGINT to the launcher first; the launcher's kill
#     returns 0.4 s late (strace), so that the stage checks while the
#     launcher still runs.  Without 'K': the command ran in each launch
#     and confpol-run said 137.
#   race: 200 launches, SIGTERM to the launcher 0-40 ms after it starts,
#     the real bwrap: a command must never run after confpol-run returned
#     with a signal's status (main: about 1 launch in 100).
# Exit 77 when bwrap cannot create its namespaces here.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
BWRAP=$(command -v bwrap) || { echo "bwrap is not installed"; exit 77; }
"$RUN" --enforcer bwrap --check >/dev/null 2>&1 ||
    { echo "bwrap cannot create its namespaces here"; exit 77; }
T=$(mktemp -d /var/tmp/confpol-stop.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$T"
mkdir -p "$T/proj" "$T/stand"
fail=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; fail=$((fail + 1)); }

python3 "$TOP/tests/runtime/mkartifact.py" - "$T/a.bwrap" <<EOF || { bad "cannot write the artifact"; exit 1; }
profile confined
fail closed
arg --ro-bind
arg /
arg /
arg --dev
arg /dev
arg --proc
arg /proc
arg --bind
arg $T/proj
arg $T/proj
EOF

if command -v strace >/dev/null 2>&1 && command -v setsid >/dev/null 2>&1 &&
    [ -z "${CONFPOL_SANITIZER:-}" ]; then
    # The launcher probes a bwrap binary for --ro-bind-fd by its bytes: the
    # last line, never read by the shell, names it.
    {
        printf '#!/bin/sh\n'
        printf 'setsid sh -c '\''sleep 0.1; "$0" "$@"; echo $? >"%s/bwrap-rc"'\'' %s "$@" &\n' "$T" "$BWRAP"
        printf 'sleep 0.03\nkill -INT $PPID\nwait\n'
        printf '# --ro-bind-fd\000\n'
    } >"$T/stand/bwrap"
    chmod 755 "$T/stand/bwrap"
    badn=0 rcs=
    for i in 1 2 3 4 5 6; do
        rm -f "$T/proj/mark" "$T/bwrap-rc"
        (cd "$T/proj" && PATH="$T/stand:$PATH" timeout -k 5 30 strace -qq -o /dev/null -e trace=kill \
            -e inject=kill:delay_exit=400000 "$RUN" -q --enforcer bwrap "$T/a.bwrap" -- \
            sh -c "touch $T/proj/mark") >"$T/out" 2>&1
        rc=$?
        # The sandbox ends on its own: wait for it (bounded).
        k=0
        while [ ! -e "$T/bwrap-rc" ] && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
        rcs="$rcs $rc"
        if [ -e "$T/proj/mark" ] || [ $rc != 130 ]; then
            badn=$((badn + 1))
        fi
    done
    [ $badn = 0 ] && ok "stand-in: SIGINT before 'S', the sandbox survives the kill: the command never ran, exit 130 in 6 launches" ||
        bad "stand-in: the command ran after the launcher stopped (or a wrong status) in $badn of 6 launches: exits$rcs"
else
    echo "ok - # SKIP strace or setsid is not installed (or a sanitizer build)"
fi

# The race with the real bwrap: SIGTERM (a background job's SIGINT may
# be ignored) at a random moment of the launch, to the launcher itself
# (timeout ignores a signal that comes before it forked: the whole script
# is bounded by tests/run.sh).  The command waits 0.2 s, then leaves a
# mark: a mark of a launch that returned a signal's status was left by a
# command that outlived confpol-run.
escaped=0 runs=0 started=0 fails=
while [ $runs -lt 200 ]; do
    runs=$((runs + 1))
    d=$(awk -v s="$runs" 'BEGIN { srand(s); printf "0.%03d", int(rand() * 40) }')
    (cd "$T/proj" && exec "$RUN" -q --enforcer bwrap "$T/a.bwrap" -- \
        sh -c "touch $T/proj/start.$runs; sleep 0.2; touch $T/proj/mark.$runs") >/dev/null 2>&1 &
    p=$!
    sleep "$d"
    kill -TERM $p 2>/dev/null
    wait $p
    rc=$?
    if [ $rc = 0 ]; then
        started=$((started + 1))
    else
        fails="$fails $runs"
    fi
done
sleep 0.5
for r in $fails; do
    [ -e "$T/proj/mark.$r" ] && escaped=$((escaped + 1))
done
cmds=$(ls "$T/proj" | grep -c '^start\.')
[ $escaped = 0 ] && ok "race: $runs launches, SIGTERM 0-40 ms in: no command ran after confpol-run returned ($cmds commands started, $started ran to the end)" ||
    bad "race: in $escaped of $runs launches the command ran after confpol-run returned with a signal's status"
echo "1..$n"
[ $fail = 0 ]

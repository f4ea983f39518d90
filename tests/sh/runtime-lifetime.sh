#!/bin/sh
# The process lifetime of a launch (spec/runtime.md §6, §12): when
# confpol-run returns, no process of the session is left, under either
# enforcer, a detached one (setsid, double fork) included; a SIGINT or
# SIGTERM for the runtime reaches the command's whole process group (a
# shell's foreground child too), so `sh -c 'sleep 30'` ends at once.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
CONFPOL=${CONFPOL:-$TOP/build/confpol}
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
T=$(mktemp -d /var/tmp/confpol-life.XXXXXX)
trap 'pkill -KILL -f "sleep 30[0-9][0-9]$$" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
chmod 755 "$T"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n' > "$T/p.confpol"
"$CONFPOL" build --target bwrap -o "$T" "$T/p.confpol" >"$T/build.out" 2>&1 ||
    { cat "$T/build.out"; exit 1; }

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
left() { pgrep -f "sleep $1$$" >/dev/null; }
# The live processes of this test's launches: their environment has the tag
# (other programs on the machine may run bwrap too); zombies are dead.
tagged() {
    for e in /proc/[0-9]*/environ; do
        p=${e#/proc/}; p=${p%/environ}
        grep -qa "CONFPOL_TEST_TAG=life$$" "$e" 2>/dev/null || continue
        [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] || echo "$p"
    done
}

for enf in bwrap landlock; do
    # A detached grandchild in a session of its own, and a double fork.
    (cd "$T" && timeout -k 5 20 "$RUN" --enforcer "$enf" --allow-partial -q "$T/p.bwrap" -- sh -c \
        "setsid sh -c 'sleep 3001$$' </dev/null >/dev/null 2>&1 &
         (sh -c 'sleep 3002$$' </dev/null >/dev/null 2>&1 &) ; sleep 0.3" 2>/dev/null)
    sleep 0.2
    if left 3001 || left 3002; then
        bad "$enf: detached processes outlive confpol-run"
        pkill -KILL -f "sleep 300[12]$$"
    else
        ok "$enf: no process of the session is left when confpol-run returns"
    fi
    for sig in INT TERM; do
        # An asynchronous command of a script ignores SIGINT: restore the
        # default, as a terminal's foreground job has it.
        (cd "$T" && exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$RUN" --enforcer "$enf" --allow-partial -q "$T/p.bwrap" -- \
            sh -c "sleep 3003$$; echo survived" >"$T/out" 2>/dev/null) &
        rp=$!
        sleep 1
        start=$(date +%s)
        kill -"$sig" "$rp" 2>/dev/null
        # bounded wait: at most 10 s
        i=0
        while kill -0 "$rp" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        if kill -0 "$rp" 2>/dev/null || grep -q survived "$T/out" || left 3003; then
            bad "$enf: SIG$sig for the runtime did not end the command's foreground child"
            kill -KILL "$rp" 2>/dev/null; pkill -KILL -f "sleep 3003$$"
        else
            ok "$enf: SIG$sig reaches the command's process group ($(($(date +%s) - start)) s)"
        fi
        wait "$rp" 2>/dev/null
    done
done
# A signal in the first milliseconds of a bwrap launch, before the command
# started: nothing of bwrap may be left behind (an inner bwrap blocked for
# ever would hold the caller's stdout and stderr).  50 launches, each
# signalled 0-20 ms after it started.
if "$RUN" --check | grep -q '^user namespaces: usable'; then
    k=0 orphans=0
    while [ $k -lt "${LIFE_LAUNCHES:-50}" ]; do
        k=$((k + 1))
        (cd "$T" && CONFPOL_TEST_TAG=life$$ exec "$RUN" --enforcer bwrap -q \
            "$T/p.bwrap" -- sleep 3004$$ >/dev/null 2>&1) &
        rp=$!
        python3 -c "import time, random; time.sleep(random.random() * 0.02)"
        kill -TERM "$rp" 2>/dev/null
        i=0
        while kill -0 "$rp" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
        kill -KILL "$rp" 2>/dev/null; wait "$rp" 2>/dev/null
        sleep 0.05
        if [ -n "$(tagged)" ]; then
            orphans=$((orphans + 1))
            for p in $(tagged); do kill -KILL "$p" 2>/dev/null; done
        fi
    done
    if [ $orphans = 0 ]; then ok "bwrap: a signal in the first 20 ms leaves nothing behind (${LIFE_LAUNCHES:-50} launches)"
    else bad "bwrap: a signal in the first 20 ms left processes behind in $orphans of ${LIFE_LAUNCHES:-50} launches"; fi
fi
echo "1..$n"
[ $fails = 0 ]

#!/bin/sh
# SPDX-License-Identifier: MIT
# What bwrap writes on stderr before the stage's check comes before
# anything the command writes, although the stage no longer waits for the
# launcher on every launch (spec/runtime.md §6, step 7): it asks ('W') only
# when bytes are still in bwrap's stderr pipe, or when the launcher said
# ('H') that it read and held some.  A stand-in bwrap on PATH writes a
# warning and stops the launcher (SIGSTOP, resumed 0.3 s later by a
# detached process), then is the real bwrap, so that the stage reaches its
# check while the launcher cannot relay anything:
#   unread: the launcher stopped first, the warning stays in the pipe;
#   held:   stopped 0.2 s after the warning, once the launcher has read it
#           (and, under --enforcer auto, held it; --enforcer bwrap relays
#           it at once);
#   read:   the launcher has read the warning, its write is delayed
#           (strace), so the pipe is empty when the stage counts.
# The command writes on stderr at once; the warning must come first, then
# the enforcer line (auto), then the command's line.  Without the wait the
# command's line comes first in each launch (the launcher is stopped).
# Exit 77 when bwrap cannot create its namespaces here.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
BWRAP=$(command -v bwrap) || { echo "bwrap is not installed"; exit 77; }
"$RUN" --check 2>/dev/null | grep -q '^enforcer auto: bwrap' ||
    { echo "bwrap cannot create its namespaces here"; exit 77; }
T=$(mktemp -d /var/tmp/confpol-go.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$T"
mkdir -p "$T/proj" "$T/unread" "$T/held"
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

# stand-in DIR FIRST THEN: runs the shell commands FIRST and THEN, then
# execs the real bwrap.  The launcher probes a bwrap binary for
# --ro-bind-fd by its bytes: the last line, never read by the shell, names
# it.
stand_in() {
    {
        printf '#!/bin/sh\np=$PPID\n%s\n%s\n' "$2" "$3"
        printf 'exec %s "$@"\n' "$BWRAP"
        printf '# --ro-bind-fd\000\n'
    } >"$1/bwrap"
    chmod 755 "$1/bwrap"
}
warn='echo "bwrap: warning from the stand-in" >&2'
stop='kill -STOP $p; (sleep 0.3; kill -CONT $p) >/dev/null 2>&1 </dev/null &'
stand_in "$T/unread" "$stop" "$warn"
stand_in "$T/held" "$warn" "sleep 0.2; $stop"

line='confpol-run: enforcer: bwrap (auto: bwrap can create its namespaces); mounts and namespaces as build --fidelity rates the bwrap target'
# in_order DESC ENF DIR LIMIT...: 6 launches with the stand-in of DIR
# first on PATH, each started by LIMIT... (a timeout, and strace where
# asked); bwrap's warning must come before the command's output in each.
in_order() {
    desc=$1 enf=$2 dir=$3
    shift 3
    if [ $enf = auto ]; then
        printf 'bwrap: warning from the stand-in\n%s\nCMD\n' "$line" >"$T/want"
    else
        printf 'bwrap: warning from the stand-in\nCMD\n' >"$T/want"
    fi
    badn=0
    for i in 1 2 3 4 5 6; do
        (cd "$T/proj" && PATH="$dir:$PATH" "$@" "$RUN" --enforcer $enf "$T/a.bwrap" -- \
            sh -c 'echo CMD >&2') 2>"$T/err" >/dev/null
        rc=$?
        if [ $rc != 0 ] || ! cmp -s "$T/want" "$T/err"; then
            badn=$((badn + 1))
            cp "$T/err" "$T/bad"
            echo "rc=$rc" >>"$T/bad"
        fi
    done
    [ $badn = 0 ] && ok "$desc, --enforcer $enf: bwrap's warning before the command's output in 6 launches" ||
        bad "$desc, --enforcer $enf: out of order in $badn of 6 launches: $(cat "$T/bad")"
}

for where in unread held; do
    for enf in auto bwrap; do
        in_order "$where" $enf "$T/$where" timeout -k 5 30
    done
done

# read: the launcher has read the warning but not yet written it (every
# write of the launcher delayed 0.3 s by strace, the launcher alone
# traced): the pipe is empty when the stage counts, so only an 'H' sent
# before that read, under either enforcer, keeps the command waiting.
# Without it the command's line came first under --enforcer bwrap in each
# launch.
if command -v strace >/dev/null 2>&1 && [ -z "${CONFPOL_SANITIZER:-}" ]; then
    mkdir -p "$T/read"
    stand_in "$T/read" "$warn" ":"
    for enf in auto bwrap; do
        in_order "read, not yet written" $enf "$T/read" timeout -k 5 60 strace -qq -e trace=write \
            -e signal=none -e inject=write:delay_enter=300000 -o /dev/null
    done
else
    echo "ok - # SKIP strace is not installed (or a sanitizer build)"
fi

# Without anything from bwrap the stage does not ask: no 'W', no 'G'.
if command -v strace >/dev/null 2>&1 && [ -z "${CONFPOL_SANITIZER:-}" ]; then
    (cd "$T/proj" && timeout 60 strace -f -qq -e trace=sendto,sendmsg,recvfrom -o "$T/trace" "$RUN" "$T/a.bwrap" -- true 2>/dev/null)
    if grep -q '"S"' "$T/trace" && ! grep -q '"[WG]"' "$T/trace"; then
        ok "a launch where bwrap says nothing makes no round trip to the launcher"
    else
        bad "a quiet launch: $(grep -c . "$T/trace") messages: $(grep -o '"[A-Z]"' "$T/trace" | tr '\n' ' ')"
    fi
else
    echo "ok - # SKIP strace is not installed (or a sanitizer build)"
fi
echo "1..$n"
[ $fail = 0 ]

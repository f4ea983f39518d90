#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-valgrind, third part: the runtime under valgrind memcheck, on
# the paths the front-end runs (tests/valgrind.sh) never reach:
#   bwrap enforcer   the launcher, its janitor, and the filtering proxy
#                    (a fork of the runtime that never execs, so memcheck
#                    follows it) serving an allowed and a denied request;
#                    and the in-sandbox stage: a `bwrap` first in PATH puts
#                    valgrind in front of the stage's word, so bwrap starts
#                    the stage under memcheck inside the sandbox;
#   Landlock         the Landlock enforcer and its supervisor of the
#                    process lifetime.
# The binaries are build/dynamic/: the same objects as the runtime's four
# programs, linked dynamically (memcheck replaces malloc only in a program
# that gets it from a shared libc), side by side so that the launcher finds
# the dynamic stage, janitor and proxy.  Every process memcheck followed must report no
# error and no definite or indirect leak (one log file per process).  A
# part valgrind cannot run here is reported as such and not counted as
# passing: Landlock needs a valgrind that knows its system calls (3.22 or
# later), which is said and skipped, not failed.  Each run has a limit of
# VALGRIND_RUN_TIMEOUT seconds (default 300).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
TOP=$top
. "$TOP/tests/lib/http.sh"
CONFPOL="$top/$BUILD/confpol"
RUN="$top/$BUILD/dynamic/confpol-run"
[ -x "$RUN" ] || { echo "valgrind-run.sh: $RUN not built"; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind-run.sh: valgrind not installed"; exit 2; }
for c in bwrap curl python3; do
    command -v $c >/dev/null 2>&1 || { echo "valgrind-run.sh: $c is not installed"; exit 2; }
done
LIMIT=${VALGRIND_RUN_TIMEOUT:-300}
T=$(mktemp -d /var/tmp/confpol-vgrun.XXXXXX) || exit 2
chmod 755 "$T"
SPID=
cleanup() {
    [ -n "$SPID" ] && kill "$SPID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --track-origins=yes"

# ---- a local server the proxy may reach ---------------------------------
# The logs are in the write root: the stage writes its own from inside.
mkdir -p "$T/www" "$T/proj/vg" "$T/proj/tmp" "$T/bin" "$T/proj/.git/hooks"
VGD=$T/proj/vg
echo hello >"$T/www/index.txt"
http_serve "$T/www" "$T/port"
SPID=$HTTP_PID
wait_nonempty "$T/port"
P=$(cat "$T/port")
[ -n "$P" ] || { echo "valgrind-run.sh: the test server did not start"; exit 2; }
printf '127.0.0.1 allowed.test denied.test\n' >"$T/hosts"
export CONFPOL_PROXY_HOSTS="$T/hosts"

cat >"$T/proj/net.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
net allow allowed.test:$P 127.0.0.1:$P
EOF
cat >"$T/proj/plain.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
deny write \${PROJECT}/.git/hooks
EOF
cd "$T/proj" || exit 2
for p in net plain; do
    mkdir -p "$T/out-$p"
    "$CONFPOL" build --target bwrap -o "$T/out-$p" "$p.confpol" >/dev/null 2>"$T/err" ||
        { echo "valgrind-run.sh: cannot build $p.confpol: $(cat "$T/err")"; exit 2; }
done

# A bwrap that runs the real one with valgrind in front of the stage: the
# word after bwrap's `--` is the stage's executable.  Valgrind's own
# temporary files go to TMPDIR, in the write root.
BWRAP=$(command -v bwrap)
cat >"$T/bin/bwrap" <<EOF
#!/bin/sh
n=\$#
i=0
while [ \$i -lt \$n ]; do
    a=\$1; shift; i=\$((i + 1))
    if [ "\$a" = -- ]; then
        set -- "\$@" -- $VG --log-file=$VGD/stage.%p
    else
        set -- "\$@" "\$a"
    fi
done
TMPDIR=$T/proj/tmp exec "$BWRAP" "\$@"
EOF
chmod 755 "$T/bin/bwrap"

# vgcheck NAME: every log of this run is empty (no error, no leak) but for
# valgrind's warnings about system calls it does not know (openat2,
# pidfd_open in 3.19): it answers them ENOSYS, and the runtime's fallback
# for an older kernel runs instead, which is listed.
vgcheck() {
    logs=$(find "$VGD" -type f | sort)
    if [ -z "$logs" ]; then
        bad "$1: no valgrind log was written"
        return
    fi
    dirty=""
    for f in $logs; do
        grep -o 'unhandled amd64-linux syscall: [0-9]*' "$f" >>"$T/unknown"
        grep -v -e 'WARNING: unhandled amd64-linux syscall' \
            -e 'You may be able to write your own handler' \
            -e 'Read the file README_MISSING_SYSCALL_OR_IOCTL' \
            -e 'Nevertheless we consider this a bug' \
            -e 'it at http://valgrind.org/support/bug_reports.html' \
            "$f" >"$f.rest"
        [ -s "$f.rest" ] && dirty="$dirty $f.rest"
        rm -f "$f"
    done
    if [ -n "$dirty" ]; then
        bad "$1: memcheck reported:"
        # shellcheck disable=SC2086
        head -n 40 $dirty | sed 's/^/#   /'
    else
        ok "$1: $(echo "$logs" | wc -l) processes, no error, no leak"
    fi
    rm -f "$VGD"/*
}

# ---- bwrap enforcer: launcher, janitor, proxy ----------------------------
# shellcheck disable=SC2086
out=$(timeout -k 10 "$LIMIT" $VG --log-file="$VGD/run.%p" "$RUN" \
    "$T/out-net/net.bwrap" -- sh -c \
    "curl -sS http://allowed.test:$P/index.txt; curl -sS -o /dev/null -w ' %{http_code}' http://denied.test:$P/" \
    2>"$T/err")
rc=$?
if [ $rc = 0 ] && [ "$out" = "hello
 403" ]; then
    ok "bwrap + proxy: allowed and denied request answered"
else
    bad "bwrap + proxy: exit $rc, output '$out': $(head -c 400 "$T/err")"
fi
vgcheck "bwrap + proxy"

# ---- bwrap enforcer: the stage inside the sandbox ------------------------
out=$(PATH="$T/bin:$PATH" timeout -k 10 "$LIMIT" "$RUN" "$T/out-plain/plain.bwrap" \
    -- sh -c 'echo ran; touch .git/hooks/x 2>/dev/null || echo denied' \
    2>"$T/err")
rc=$?
if [ $rc = 0 ] && [ "$out" = "ran
denied" ]; then
    ok "stage: the command ran, the deny held"
else
    bad "stage: exit $rc, output '$out': $(head -c 400 "$T/err")"
fi
if ls "$VGD"/stage.* >/dev/null 2>&1; then
    vgcheck "stage (inside bwrap)"
else
    bad "stage: valgrind did not run it (bwrap wrapper not used?)"
fi

# ---- Landlock enforcer ----------------------------------------------------
if ! "$RUN" --check 2>/dev/null | grep -q '^landlock: ABI [1-9]'; then
    echo "# SKIP Landlock: the kernel has no Landlock"
else
        # shellcheck disable=SC2086
        out=$(timeout -k 10 "$LIMIT" $VG --log-file="$VGD/ll.%p" "$RUN" \
        --enforcer landlock "$T/out-plain/plain.bwrap" -- sh -c 'echo ran' 2>"$T/err")
    rc=$?
    if [ $rc = 0 ] && [ "$out" = ran ]; then
        ok "landlock: the command ran"
        vgcheck "landlock"
    elif grep -q 'unhandled amd64-linux syscall: 44[4-6]' "$VGD"/ll.* 2>/dev/null; then
        # The runtime refused (Landlock looked unavailable): fail closed.
        echo "# SKIP Landlock: valgrind $(valgrind --version) does not know the landlock system calls (444-446); the enforcer refused (exit $rc)"
    else
        bad "landlock: exit $rc, output '$out': $(head -c 400 "$T/err")"
    fi
fi

[ -s "$T/unknown" ] && echo "# system calls valgrind answered ENOSYS (the runtime's fallback ran):" \
    "$(sed 's/.*: //' "$T/unknown" | sort -un | tr '\n' ' ')"
[ $fails = 0 ] || { echo "valgrind-run.sh: $fails of $n failed"; exit 1; }
echo "valgrind-run.sh: $n passed"

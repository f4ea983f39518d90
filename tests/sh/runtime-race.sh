#!/bin/sh
# Races on the paths the runtime grants, pins and masks (spec/runtime.md
# §5, "Descriptors, not paths"; spec/threat-model.md): another session of
# the same policy that shares a write root swaps a name the runtime
# checked for a symlink (renameat2 RENAME_EXCHANGE in a tight loop,
# tests/runtime/racer.c) while launches run.  Each case launches at least
# RACE_LAUNCHES times (default 200) or for RACE_SECONDS (default 20),
# whichever ends first, and fails if a single launch reached what every
# session is denied.  A launch may refuse (125: the path changed since it
# was planned; 126: a symlink a session can replace lies on a target's
# way); it may never let the command through.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
LAUNCHES=${RACE_LAUNCHES:-200}
SECONDS_MAX=${RACE_SECONDS:-20}
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }

T=$(mktemp -d /var/tmp/confpol-race.XXXXXX)
RPID=
cleanup() {
    [ -n "$RPID" ] && kill "$RPID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM
chmod 755 "$T"
cc -O2 -o "$T/racer" "$TOP/tests/runtime/racer.c" || exit 1

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# race DESC ENFORCER ARTIFACT DIR NAME1 NAME2 DWELL CHECK-COMMAND: launches
# the command under the racer; a launch whose output holds SECRET escaped.
race() {
    desc=$1 enf=$2 art=$3 dir=$4 n1=$5 n2=$6 dwell=$7 cmd=$8
    timeout -k 5 $((SECONDS_MAX + 30)) "$T/racer" "$dir" "$n1" "$n2" \
        $((SECONDS_MAX + 20)) "$dwell" &
    RPID=$!
    start=$(date +%s) i=0 esc=0 refused=0 ran=0
    while [ $i -lt "$LAUNCHES" ] && [ $(($(date +%s) - start)) -lt "$SECONDS_MAX" ]; do
        i=$((i + 1))
        timeout -k 5 20 "$RUN" --enforcer "$enf" --allow-partial -q -D PROJECT="$P" "$art" -- \
            sh -c "$cmd" >"$T/out" 2>&1
        rc=$?
        if grep -q SECRET "$T/out" || [ -n "$(ls -A "$OUTSIDE")" ] ||
            [ -e "$P/.git/hooks/pre-commit" ] || [ -e "$P/g2/hooks/pre-commit" ]; then
            esc=$((esc + 1))
            { cat "$T/out"; ls -lAR "$OUTSIDE" "$P"; } >"$T/escape.out" 2>&1
            rm -rf "$OUTSIDE"/* "$P"/*/hooks 2>/dev/null
        fi
        case $rc in 125|126) refused=$((refused + 1)) ;; *) ran=$((ran + 1)) ;; esac
    done
    kill "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null; RPID=
    # With the racer stopped, what an escape left behind is where it is.
    if [ -n "$(find "$P" "$OUTSIDE" -name pre-commit)" ] || [ -n "$(ls -A "$OUTSIDE")" ]; then
        esc=$((esc + 1))
        ls -lAR "$OUTSIDE" "$P" >"$T/escape.out" 2>&1
    fi
    echo "# $desc: $i launches in $(($(date +%s) - start)) s: $ran ran, $refused refused, $esc escaped"
    if [ $esc = 0 ] && [ $i -ge 20 ]; then
        ok "$desc"
    else
        bad "$desc"
        [ -f "$T/escape.out" ] && sed "s/^/#   /" "$T/escape.out" | head -40
    fi
}

# A racer wins only when its swap falls in the window between the plan and
# the use; these cases make it fall there for certain.  hold ENFORCER
# ARTIFACT SYSCALL SWAP COMMAND: the launcher is held in its first SYSCALL
# (strace's delay injection), which it makes after the plan looked at the
# paths and before it uses them; SWAP (shell text) runs while it waits;
# sets rc and held.
hold() {
    nr=$(printf '#include <sys/syscall.h>\nSYS_%s\n' "$3" | cc -E -P - | tail -n 1)
    # (LeakSanitizer cannot run under ptrace: a sanitizer build's leak
    # check is left to the other launches)
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        timeout -k 5 30 strace -qq -o /dev/null -e trace="$3" \
            -e inject="$3:delay_enter=3000000:when=1" \
            "$RUN" --enforcer "$1" --allow-partial -q -D PROJECT="$P" "$2" -- \
            sh -c "$5" >"$T/out" 2>&1 &
    spid=$! held= k=0 # timeout, its strace, the launcher
    while [ -z "$held" ] && [ $k -lt 200 ]; do
        for pid in $(pgrep -P "$(pgrep -P "$spid" | head -n 1)"); do
            [ "$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null)" = "$nr" ] && held=$pid
        done
        [ -n "$held" ] || sleep 0.05
        k=$((k + 1))
    done
    eval "$4"
    wait "$spid"
    rc=$?
}

# Class 2 in the window: the launcher is held in its first pipe2, after
# the plan looked at .git and before it opens .git to bind it by
# descriptor, and .git is swapped for a symlink out of the write roots.
# The launcher's own check refuses the launch (the path changed since it
# was planned), before bwrap or the stage could look at what is mounted;
# nothing is written anywhere.
window_bwrap() {
    command -v strace >/dev/null 2>&1 || { bad "window: strace is not installed"; return; }
    rm -rf "$P" && mkdir -p "$P/.git" "$OUTSIDE"
    hold bwrap "$T/bw.bwrap" pipe2 'mv "$P/.git" "$P/real.git" && ln -s "$OUTSIDE" "$P/.git"' \
        "echo planted > $P/.git/planted"
    if [ -z "$held" ]; then
        bad "window: the launcher was never seen held in pipe2"
    elif [ $rc != 125 ] || ! grep -q "'$P/.git' changed since the launch was planned" "$T/out" ||
        [ -n "$(ls -A "$OUTSIDE")" ] || [ -e "$P/real.git/planted" ]; then
        bad "window: .git swapped after the plan: exit $rc"
        sed 's/^/#   /' "$T/out" | head -5
        ls -lA "$OUTSIDE" "$P/real.git" | sed 's/^/#   /'
    else
        ok "window: .git swapped between the plan and its bind is refused by the launcher"
    fi
}

# Class 1 in the window: the Landlock launcher is held in its signalfd4,
# after the plan read the entries of a (split around the deny-read target
# a/private) and before its child opens them to grant them, and a is
# renamed away.  What vanished is granted nothing (an entry that is gone
# is not a replacement: the launch goes on), and the target stays
# unreadable under its new name.
window_landlock() {
    command -v strace >/dev/null 2>&1 || { bad "window: strace is not installed"; return; }
    rm -rf "$P" && mkdir -p "$P/a/private" "$P/a/x"
    echo SECRET > "$P/a/private/key"
    hold landlock "$T/ll.bwrap" signalfd4 'mv "$P/a" "$P/gone"' \
        "echo ran; cat $P/gone/private/key $P/gone/x/../private/key 2>&1; true"
    if [ -z "$held" ]; then
        bad "window: the Landlock launcher was never seen held in signalfd4"
    elif [ $rc != 0 ] || ! grep -q -x ran "$T/out" || grep -q SECRET "$T/out"; then
        bad "window: a split directory renamed after the plan: exit $rc"
        sed 's/^/#   /' "$T/out" | tail -5
    else
        ok "window: a split directory renamed between the plan and its grants is granted nothing"
    fi
}

P=$T/code OUTSIDE=$T/outside
mkdir -p "$P/a/private" "$P/a/x" "$OUTSIDE"
echo SECRET > "$P/a/private/key"
ln -s private "$P/a/y"

# Class 1: the Landlock enforcer splits the write root and the read grant
# around the deny-read target and grants each entry of code/a on its own.
# The racer swaps the entry x (a directory) with y (a symlink to the
# target): a grant opened by name after the plan looked at it would
# follow the link and grant the target.
if "$RUN" --check | grep -q '^landlock: ABI'; then
    cat > "$T/ll.txt" <<EOT
profile confined
fail closed
param PROJECT
arg --ro-bind
arg /
arg /
arg --dev
arg /dev
arg --proc
arg /proc
bind PROJECT ''
mask PROJECT /a/private
EOT
    $MK "$T/ll.txt" "$T/ll.bwrap" || exit 1
    race "landlock: a split grant swapped for a symlink to a deny-read target" \
        landlock "$T/ll.bwrap" "$P/a" x y 0 \
        "cat $P/a/x/key $P/a/y/key $P/a/private/key 2>/dev/null; echo planted >>$P/a/x/key 2>/dev/null; true"
    window_landlock
else
    echo "# Landlock unavailable: the Landlock case is not run"
fi

# Class 2: the bwrap enforcer pins .git (the ancestor of the missing
# deny-write target .git/hooks) with a writable self-bind and creates the
# placeholder .git/hooks.  The racer swaps .git with g2, a symlink to a
# directory outside every write root: a pin bound by name would mount
# that directory writable at .git, a placeholder made by name would land
# in it, and a target planned through the symlink would be left bare when
# the directory comes back.  Nothing may ever appear outside, and no hook
# may be written through the name .git/hooks.
if "$RUN" --check | grep -q '^user namespaces: usable'; then
    rm -rf "$P" && mkdir -p "$P/.git"
    ln -s "$OUTSIDE" "$P/g2"
    cat > "$T/bw.txt" <<EOT
profile confined
fail closed
param PROJECT
arg --ro-bind
arg /
arg /
arg --dev
arg /dev
arg --proc
arg /proc
bind PROJECT ''
ro PROJECT /.git/hooks
EOT
    $MK "$T/bw.txt" "$T/bw.bwrap" || exit 1
    race "bwrap: a pinned ancestor swapped for a symlink out of the write roots" \
        bwrap "$T/bw.bwrap" "$P" .git g2 3000 \
        "echo planted > $P/.git/planted 2>/dev/null; mkdir -p $P/.git/hooks 2>/dev/null; echo planted > $P/.git/hooks/pre-commit 2>/dev/null; ls $OUTSIDE"
    if [ -n "$(ls -A "$OUTSIDE")" ]; then
        bad "bwrap: nothing was created outside the write roots"
        ls -lA "$OUTSIDE" | sed 's/^/#   /'
    else
        ok "bwrap: nothing was created outside the write roots"
    fi
    window_bwrap
else
    echo "# bwrap unusable: the bwrap case is not run"
fi

echo "1..$n"
[ $fails = 0 ]

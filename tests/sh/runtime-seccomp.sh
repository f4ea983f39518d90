#!/bin/sh
# The seccomp filter both enforcers install (spec/runtime.md §6, §12.2):
# set-user-ID and set-group-ID bits cannot be set (chmod family, and a
# creating open or mknod), owners cannot be changed (chown family), and
# socket families the policy does not need (AF_VSOCK, AF_PACKET, ...) are
# refused, with and without `net deny`.  Each denied check is paired with
# an allowed one.  Run as root (as CI does): root owns the host's files, so
# `chmod 4755` on one of them is the attack.  Exit 77 when no enforcer can
# run here.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }

ENFS=
"$RUN" --check | grep -q '^landlock: ABI' && ENFS=landlock
command -v bwrap >/dev/null 2>&1 &&
    bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null &&
    ENFS="bwrap $ENFS"
[ -n "$ENFS" ] || { echo "neither bwrap nor Landlock can run here"; exit 77; }

T=$(mktemp -d /var/tmp/confpol-sc.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
P=$T/proj O=$T/outside
mkdir -p "$P" "$O"
chmod 755 "$T"
for net in open deny; do
    {
        echo 'profile confined'
        echo 'fail closed'
        echo 'param PROJECT'
        printf 'arg --ro-bind\narg /\narg /\narg --dev\narg /dev\narg --proc\narg /proc\n'
        printf 'arg --cap-drop\narg ALL\n'
        echo "bind PROJECT ''"
        [ $net = deny ] && echo 'arg --unshare-net'
    } > "$T/$net.txt"
    $MK "$T/$net.txt" "$T/$net.bwrap" || exit 1
done

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
# check ENFORCER NET DESC WANT(0|fail) PYTHON: the Python statements run
# confined; WANT fail means they must raise (exit 1, not a crash).
check() {
    e=$1 net=$2 d=$3 want=$4 code=$5
    timeout 30 "$RUN" --enforcer "$e" -q -D PROJECT="$P" "$T/$net.bwrap" -- \
        python3 -c "import os, socket, sys
try:
$code
except OSError as x:
    print('refused:', x); sys.exit(1)" >"$T/out" 2>&1
    rc=$?
    if { [ "$want" = 0 ] && [ $rc = 0 ]; } ||
        { [ "$want" = fail ] && [ $rc = 1 ] && grep -q '^refused:' "$T/out"; }; then
        ok "[$e, net $net] $d"
    else
        bad "[$e, net $net] $d: exit $rc: $(head -c 300 "$T/out")"
    fi
}
mode() { stat -c %a "$1"; }

for e in $ENFS; do
    for net in open deny; do
        : > "$P/f"; chmod 755 "$P/f"
        check "$e" $net "chmod 4755 in a write root refused" fail "    os.chmod('$P/f', 0o4755)"
        check "$e" $net "chmod 2755 in a write root refused" fail "    os.chmod('$P/f', 0o2755)"
        check "$e" $net "fchmod u+s refused" fail "    os.fchmod(os.open('$P/f', os.O_RDONLY), 0o4700)"
        check "$e" $net "fchmodat g+s refused" fail \
            "    os.chmod('f', 0o2700, dir_fd=os.open('$P', os.O_RDONLY))"
        [ "$(mode "$P/f")" = 755 ] && ok "[$e, net $net] the mode is unchanged" ||
            bad "[$e, net $net] the mode is $(mode "$P/f")"
        check "$e" $net "chmod 644 still works" 0 "    os.chmod('$P/f', 0o644)"
        [ "$(mode "$P/f")" = 644 ] && ok "[$e, net $net] chmod 644 took effect" ||
            bad "[$e, net $net] the mode is $(mode "$P/f"), want 644"
        check "$e" $net "chmod +x still works" 0 "    os.chmod('$P/f', 0o755)"
        check "$e" $net "chown refused (to its own owner too)" fail "    os.chown('$P/f', 0, 0)"
        check "$e" $net "fchown refused" fail "    os.fchown(os.open('$P/f', os.O_RDONLY), 0, 0)"
        check "$e" $net "lchown refused" fail "    os.lchown('$P/f', 0, 0)"
        check "$e" $net "fchownat refused" fail \
            "    os.chown('f', 0, 0, dir_fd=os.open('$P', os.O_RDONLY))"
        rm -f "$P/s" "$P/n"
        check "$e" $net "a set-user-ID file cannot be created (open O_CREAT 04755)" fail \
            "    os.open('$P/s', os.O_CREAT | os.O_WRONLY, 0o4755)"
        [ ! -e "$P/s" ] && ok "[$e, net $net] nothing was created" ||
            bad "[$e, net $net] created: $(ls -l "$P/s")"
        check "$e" $net "a set-group-ID file cannot be made (mknod 02755)" fail \
            "    os.mknod('$P/n', 0o102755)"
        check "$e" $net "a file can be created (open O_CREAT 0755)" 0 \
            "    os.close(os.open('$P/s', os.O_CREAT | os.O_WRONLY, 0o755))"
        check "$e" $net "socket(AF_VSOCK) refused" fail \
            "    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)"
        check "$e" $net "socket(AF_PACKET) refused" fail \
            "    socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM)"
        check "$e" $net "socketpair(AF_UNIX) works" 0 "    socket.socketpair()"
        check "$e" $net "io_uring_setup refused (it creates sockets of any family)" fail \
            "    import ctypes; r = ctypes.CDLL(None, use_errno=True).syscall(425, 4, bytes(120))
    if r < 0: raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))"
    done
    check "$e" open "socket(AF_INET) works without a network rule" 0 \
        "    socket.socket(socket.AF_INET, socket.SOCK_STREAM)"
    check "$e" open "socket(AF_INET6, SOCK_DGRAM) works without a network rule" 0 \
        "    socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)"
    check "$e" open "socket(AF_UNIX) works without a network rule" 0 "    socket.socket(socket.AF_UNIX)"
    # The attack: a host file root owns, outside every write root.  bwrap
    # mounts it read-only; Landlock has no right for the mode.
    : > "$O/host-bin"; chmod 755 "$O/host-bin"
    check "$e" open "chmod 4755 on a host file outside the write roots refused" fail \
        "    os.chmod('$O/host-bin', 0o4755)"
    [ "$(mode "$O/host-bin")" = 755 ] && ok "[$e] the host file is not set-user-ID" ||
        bad "[$e] the host file's mode is $(mode "$O/host-bin")"
done
# The one program of both enforcers: --dry-run names it.
"$RUN" --enforcer landlock --dry-run -D PROJECT="$P" "$T/open.bwrap" -- true >"$T/out" 2>&1
grep -q '^seccomp: .*set-ID bits and owner changes refused.*socket families' "$T/out" &&
    ok "--dry-run names the filter" || bad "--dry-run: $(grep seccomp "$T/out")"
echo "1..$n"
[ $fails = 0 ]

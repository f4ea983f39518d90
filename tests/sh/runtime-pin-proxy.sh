#!/bin/sh
# SPDX-License-Identifier: MIT
# The network side fails closed when its own system calls fail, pinned by
# strace fault injection in the proxy program and the runtime
# (spec/runtime.md §8.1; runtime-pin-faults.sh follows the runtime's own
# process only, up to the command):
#   - an accept of the proxy that fails for good (EINVAL) stops it: the
#     request is not served, and the launch still ends; a transient one
#     (ECONNABORTED, EINTR) is retried: it is served;
#   - the proxy's private directory that cannot be made (mkdir fails) is
#     refused with 126 and named, before anything runs;
#   - its listening socket that cannot be made (socket fails) or cannot
#     listen (bind fails), and its process that cannot be made (clone
#     fails), are refused with 125, each named.
# The test name is mapped to 127.0.0.1 for the proxy alone by the
# test-only CONFPOL_PROXY_HOSTS file.  Exit 77 when bwrap or strace
# cannot run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/http.sh"
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
for c in bwrap curl python3 strace; do
    command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; exit 77; }
done
"$RUN" --enforcer bwrap --check >/dev/null 2>&1 || { echo "bwrap cannot run here"; exit 77; }
T=$(mktemp -d /var/tmp/confpol-pin.XXXXXX) || exit 2
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

mkdir -p "$T/www" "$T/w"
echo hello >"$T/www/index.txt"
http_serve "$T/www" "$T/port"
SPID=$HTTP_PID
wait_nonempty "$T/port"
P=$(cat "$T/port")
[ -n "$P" ] || { echo "the test server did not start"; exit 1; }
printf '127.0.0.1 allowed.test\n' >"$T/hosts"
export CONFPOL_PROXY_HOSTS="$T/hosts"
printf '%s\n' 'profile confined' 'fail closed' 'arg --ro-bind' 'arg /' 'arg /' \
    'arg --dev' 'arg /dev' 'arg --proc' 'arg /proc' "bind '' $T/w" \
    'arg --unshare-net' "net allow.test:$P t.confpol:2" \
    "net 127.0.0.1:$P t.confpol:3" >"$T/a.txt"
sed "s/^net allow.test/net allowed.test/" "$T/a.txt" >"$T/b.txt"
$MK "$T/b.txt" "$T/net.bwrap" || exit 2

out=$(timeout -k 5 60 "$RUN" --enforcer bwrap -q "$T/net.bwrap" -- \
    sh -c "curl -sS --max-time 20 http://allowed.test:$P/index.txt || echo curl-failed" \
    2>"$T/err")
rc=$?
if [ $rc = 0 ] && [ "$out" = hello ]; then
    ok "a clean launch fetches the page through the proxy"
else
    bad "clean launch: exit $rc, '$out': $(head -c 300 "$T/err")"
fi

# A sanitizer build makes calls of its own whose failure the sanitizer
# reports as an error: the clean launch only.
if [ -n "${CONFPOL_SANITIZER:-}" ]; then
    echo "# no fault injection under $CONFPOL_SANITIZER"
    echo "$n checks, $fails failed"
    [ "$fails" -eq 0 ]
    exit
fi

# The proxy's accept4 fails once.  Only the proxy is traced (strace -p):
# inside the sandbox the seccomp filter kills a call strace skips (it
# becomes system call -1, which the filter's x32 check refuses), so the
# bridge cannot be given a failure this way.  The command waits for
# $T/w/go, made once strace has attached (the proxy's pending accept4
# restarts under it and is the call that fails).
for err in EINVAL ECONNABORTED EINTR; do
    rm -f "$T/w/go" "$T/trace"
    timeout -k 5 60 "$RUN" --enforcer bwrap -q "$T/net.bwrap" -- sh -c \
        "i=0; while [ ! -e '$T/w/go' ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
         curl -sS --max-time 20 http://allowed.test:$P/index.txt || echo curl-failed" \
        >"$T/out" 2>"$T/err" &
    rpid=$!
    px=
    i=0
    while [ -z "$px" ] && [ $i -lt 300 ]; do
        # a child of the runtime, itself a child of timeout
        for c in $(pgrep -P "$rpid"); do
            px=$px$(pgrep -P "$c" -x confpol-proxy | head -n 1)
        done
        [ -n "$px" ] || sleep 0.1
        i=$((i + 1))
    done
    spid=
    if [ -n "$px" ]; then
        timeout -k 5 60 strace -qq -p "$px" -o "$T/trace" -e trace=accept4 \
            -e inject=accept4:error=$err:when=1 &
        spid=$!
        i=0
        while ! grep -q INJECTED "$T/trace" 2>/dev/null && [ $i -lt 300 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    fi
    touch "$T/w/go"
    wait "$rpid"
    rc=$?
    [ -n "$spid" ] && { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }
    out=$(cat "$T/out")
    if [ -z "$px" ] || ! grep -q INJECTED "$T/trace" 2>/dev/null; then
        bad "accept4 failing with $err: the proxy was not found or not traced (exit $rc)"
        continue
    fi
    case $err in
    EINVAL)
        if [ "$out" = curl-failed ] && [ $rc != 124 ] && [ $rc != 137 ]; then
            ok "the proxy's accept4 failing with $err: not served, the launch ended (exit $rc)"
        else
            bad "the proxy's accept4 failing with $err: exit $rc, '$out' (served, or hung)"
        fi ;;
    *)
        if [ $rc = 0 ] && [ "$out" = hello ]; then
            ok "the proxy's accept4 failing with $err: retried, served"
        else
            bad "the proxy's accept4 failing with $err: exit $rc, '$out': $(head -c 300 "$T/err")"
        fi ;;
    esac
done

# The private directory of the proxy's socket: mkdir is the runtime's
# only directory creation in this launch (no deny target is missing).
out=$(timeout -k 5 60 strace -f -qq -o /dev/null -e trace=mkdir,mkdirat \
    -e inject=mkdir,mkdirat:error=EACCES "$RUN" --enforcer bwrap "$T/net.bwrap" -- \
    sh -c "echo ran" 2>"$T/err")
rc=$?
if [ $rc != 0 ] && [ -z "$out" ] &&
    grep -q "proxy: cannot create a private directory in .*: Permission denied" "$T/err"; then
    ok "mkdir of the proxy's directory failing: refused (exit $rc) and named"
else
    bad "mkdir failing: exit $rc, '$out': $(head -c 300 "$T/err")"
fi

# The proxy's listening socket and its process: the launcher's only
# socket() and bind() in this launch, and its first clone() (strace
# without -f: the launcher's own calls).  Refused, each failure named: no
# socket, one that cannot listen, no process.
for c in "socket:EMFILE:cannot create its socket" \
    "bind:EADDRINUSE:cannot listen on .*: Address .*in use" \
    "clone:EAGAIN:fork: Resource temporarily unavailable"; do
    call=${c%%:*} rest=${c#*:}
    err=${rest%%:*} why=${rest#*:}
    out=$(timeout -k 5 60 strace -qq -o /dev/null -e trace="$call" \
        -e inject="$call":error="$err" "$RUN" --enforcer bwrap "$T/net.bwrap" -- \
        sh -c "echo ran" 2>"$T/err")
    rc=$?
    if [ $rc = 125 ] && [ -z "$out" ] && grep -q "proxy: $why" "$T/err"; then
        ok "the proxy's $call failing: refused (125) and named"
    else
        bad "the proxy's $call failing: exit $rc, '$out': $(head -c 300 "$T/err")"
    fi
done

# The proxy's program is found beside the launcher: the launch's last
# readlink of /proc/self/exe (found in a trace) failing is refused, named.
k=$(strace -qq -o /dev/stdout -e trace=readlink,readlinkat "$RUN" --enforcer bwrap -q \
    "$T/net.bwrap" -- true 2>/dev/null | grep -c '/proc/self/exe')
out=$(timeout -k 5 60 strace -qq -o /dev/null -e trace=readlink,readlinkat \
    -e "inject=readlink,readlinkat:error=EIO:when=$k" "$RUN" --enforcer bwrap "$T/net.bwrap" -- \
    sh -c "echo ran" 2>"$T/err")
rc=$?
if [ "$k" -ge 1 ] && [ $rc = 125 ] && [ -z "$out" ] &&
    grep -q "proxy: cannot find the runtime's own executable" "$T/err"; then
    ok "the proxy's program not found (readlink $k failing): refused (125) and named"
else
    bad "readlink $k failing: exit $rc, '$out': $(head -c 300 "$T/err")"
fi

echo "$n checks, $fails failed"
[ "$fails" -eq 0 ]

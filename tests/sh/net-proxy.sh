#!/bin/sh
# The network under `confpol run` (spec/runtime.md, "Network"): real
# clients (curl, python's urllib, git over HTTP, SOCKS5) inside the sandbox
# reach an allowed local server by an allowed name through the filtering
# proxy, get 403 naming the deciding rule for a denied name, cannot reach
# anything directly, nor a Unix socket listening outside, nor an abstract
# socket; malformed, oversized, slow and surplus requests are refused; a
# proxy that dies leaves the sandbox without network.
# The test names are mapped to 127.0.0.1 for the proxy alone by the
# test-only CONFPOL_PROXY_HOSTS file.  Exit 77 when bwrap cannot run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONFPOL=${CONFPOL:-$TOP/build/confpol}
PROBE="python3 $TOP/tests/lib/net_probe.py"
. "$TOP/tests/lib/http.sh"

for c in bwrap curl git python3; do
    command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; exit 77; }
done
bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null ||
    { echo "bwrap cannot create namespaces here"; exit 77; }

T=$(mktemp -d /var/tmp/confpol-net.XXXXXX)
SPID= UPID= APID= RPID=
cleanup() {
    for p in $SPID $UPID $APID $RPID; do kill "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect NAME WANT GOT
expect() { [ "$3" = "$2" ] || fail "$1: expected '$2', got '$3'"; }

# ---- servers outside the sandbox --------------------------------------------
mkdir -p "$T/www" "$T/proj" "$T/src"
echo hello > "$T/www/index.txt"
http_git_repo "$T/www" "$T/src" || { echo "cannot prepare the git repository"; exit 1; }
http_serve "$T/www" "$T/port"
SPID=$HTTP_PID
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
while True:
    c, _ = s.accept(); c.sendall(b"hi"); c.close()' "$T/agent.sock" &
UPID=$!
ABS=confpol-net-test-$$
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1]); s.listen(8)
time.sleep(600)' "$ABS" &
APID=$!
wait_nonempty "$T/port"
i=0
while [ ! -S "$T/agent.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
P=$(cat "$T/port")
[ -n "$P" ] || { echo "the test server did not start"; exit 1; }
printf '127.0.0.1 allowed.test denied.test\n' > "$T/hosts"
export CONFPOL_PROXY_HOSTS="$T/hosts"

# The servers are reachable from outside: every "cannot reach" below is
# the sandbox's doing.
expect "outside: http" hello "$(curl -sS --noproxy '*' "http://127.0.0.1:$P/index.txt")"
expect "outside: unix" "unix: connected hi" "$($PROBE unix "$T/agent.sock")"
grep -q "@$ABS" /proc/net/unix || fail "outside: the abstract socket is not listed"

cat > "$T/proj/allow.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
net allow allowed.test:$P 127.0.0.1:$P
EOF
cat > "$T/proj/public-only.confpol" <<EOF
confpol 1
profile confined
net allow allowed.test:$P
EOF
cat > "$T/proj/localhost.confpol" <<EOF
confpol 1
profile confined
net allow localhost:$P
EOF
cat > "$T/proj/deny.confpol" <<EOF
confpol 1
profile confined
net deny
EOF
cd "$T/proj" || exit 1
run() { pol=$1; shift; timeout 60 "$CONFPOL" run "$pol" -- "$@" 2> "$T/err"; }

# ---- allowed and denied names --------------------------------------------------
expect "curl allowed" hello "$(run allow.confpol curl -sS "http://allowed.test:$P/index.txt")"
out=$(run allow.confpol curl -sS -D - -o /dev/null "http://denied.test:$P/index.txt" | tr -d '\r')
printf '%s\n' "$out" | grep -q '^HTTP/1.1 403' || fail "curl denied: no 403: $out"
printf '%s\n' "$out" | grep -qx 'X-Confpol-Rule: no rule' || fail "curl denied: rule header: $out"
expect "denied: one log line" 1 "$(grep -c "proxy: deny HTTP denied.test:$P (no rule)" "$T/err")"
expect "curl CONNECT denied" 403 "$(run allow.confpol curl -sS -o /dev/null -w '%{http_connect}' "https://denied.test:$P/" 2>/dev/null)"
expect "curl CONNECT allowed" 200 "$(run allow.confpol curl -sS -o /dev/null -w '%{http_connect}' "https://allowed.test:$P/" 2>/dev/null)"
# A port not named by the rule.
expect "other port" 403 "$(run allow.confpol curl -sS -o /dev/null -w '%{http_code}' "http://allowed.test:1/")"
# The deciding rule of an allow names its file and line (log file variable).
expect "urllib allowed" "urllib: hello" "$(run allow.confpol $PROBE urllib "http://allowed.test:$P/index.txt")"
expect "urllib denied" "urllib: HTTP 403 no rule" "$(run allow.confpol $PROBE urllib "http://denied.test:$P/index.txt")"
expect "SOCKS5 allowed" hello "$(run allow.confpol sh -c 'curl -sS -x "$ALL_PROXY" "$1"' sh "http://allowed.test:$P/index.txt")"
run allow.confpol sh -c 'curl -sS -x "$ALL_PROXY" "$1"' sh "http://denied.test:$P/index.txt" >/dev/null 2>&1 &&
    fail "SOCKS5 denied name connected"
grep -q "proxy: deny SOCKS5 denied.test:$P (no rule)" "$T/err" || fail "SOCKS5 denied: no log line"
# IP literals: allowed when a rule names them; "127.1" is 127.0.0.1.
expect "IP literal" hello "$(run allow.confpol curl -sS "http://127.1:$P/index.txt")"
expect "IP literal, other port" 403 "$(run allow.confpol curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.2:$P/")"
# git over dumb HTTP.
rm -rf "$T/proj/clone"
run allow.confpol git clone -q "http://allowed.test:$P/repo.git" clone || fail "git clone: $(cat "$T/err")"
expect "git clone content" repo-content "$(cat "$T/proj/clone/file" 2>/dev/null)"
run allow.confpol git clone -q "http://denied.test:$P/repo.git" clone2 && fail "git clone of a denied name succeeded"
grep -q "403" "$T/err" || fail "git clone denied: no 403 in '$(cat "$T/err")'"
# A log file instead of stderr.
CONFPOL_PROXY_LOG="$T/proxy.log" run allow.confpol curl -sS -o /dev/null "http://denied.test:$P/"
expect "log file" 1 "$(grep -c "deny HTTP denied.test:$P (no rule)" "$T/proxy.log" 2>/dev/null)"
grep -q "proxy: deny" "$T/err" && fail "log file: the line also went to stderr"

# ---- anti-rebinding: a public-name rule does not reach loopback ------------
expect "rebinding" 403 "$(run public-only.confpol curl -sS -o /dev/null -w '%{http_code}' "http://allowed.test:$P/index.txt")"
grep -q "resolves to an address that no rule allows: loopback" "$T/err" || fail "rebinding: reason not logged"

# localhost names the host's loopback, through the proxy, at the port named.
expect "localhost" hello "$(run localhost.confpol sh -c 'curl -sS -x "$HTTP_PROXY" "$1"' sh "http://localhost:$P/index.txt")"
expect "localhost, IP literal" 403 "$(run localhost.confpol sh -c 'curl -sS -o /dev/null -w "%{http_code}" -x "$HTTP_PROXY" "$1"' sh "http://127.0.0.1:$P/")"
expect "IP literal without a rule" 403 "$(run public-only.confpol curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P/")"

# Other spellings of an address are decided as the address they denote: an
# IPv4-mapped IPv6 literal is an IPv6 address no rule names.
expect "IPv4-mapped IPv6" 403 "$(run allow.confpol sh -c 'curl -sS -o /dev/null -w "%{http_code}" -x "$HTTP_PROXY" "$1"' sh "http://[::ffff:127.0.0.1]:$P/")"
expect "hex IPv4" hello "$(run allow.confpol sh -c 'curl -sS -x "$HTTP_PROXY" "$1"' sh "http://0x7f.1:$P/index.txt")"
# The proxy's socket is read-only inside: the sandbox cannot put its own
# in its place.
# Its directory lies in a writable place here (XDG_RUNTIME_DIR inside the
# project): a file next to it can be removed, the socket cannot.
mkdir -m 700 "$T/proj/xdg" && : > "$T/proj/xdg/other"
expect "proxy socket read-only" "removed-other kept-socket" "$(XDG_RUNTIME_DIR="$T/proj/xdg" run allow.confpol sh -c '
    rm "$XDG_RUNTIME_DIR/other" && printf removed-other
    rm -f "$XDG_RUNTIME_DIR"/confpol-net.*/proxy.sock 2>/dev/null || printf " kept-socket"')"

# ---- nothing direct -------------------------------------------------------------
expect "direct loopback" "direct: error ConnectionRefusedError" "$(run allow.confpol $PROBE direct "127.0.0.1:$P")"
HOSTIP=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect(("192.0.2.1", 9)); print(s.getsockname()[0])' 2>/dev/null)
if [ -n "$HOSTIP" ] && [ "$HOSTIP" != 0.0.0.0 ]; then
    expect "direct host address" "direct: error OSError" "$(run allow.confpol $PROBE direct "$HOSTIP:$P")"
fi
expect "curl no proxy" 7 "$(run allow.confpol curl -sS --noproxy '*' -o /dev/null "http://127.0.0.1:$P/" 2>/dev/null; echo $?)"

# ---- Unix sockets --------------------------------------------------------------------
for pol in allow.confpol deny.confpol; do
    expect "$pol: unix" "unix: error PermissionError" "$(run $pol $PROBE unix "$T/agent.sock")"
    expect "$pol: abstract" "abstract: error PermissionError" "$(run $pol $PROBE abstract "$ABS")"
    expect "$pol: socketpair" "socketpair: x" "$(run $pol $PROBE socketpair)"
    # The namespace alone already hides abstract sockets: the kernel lists
    # only this namespace's Unix sockets.
    run $pol grep -q "@$ABS" /proc/net/unix && fail "$pol: the abstract socket is visible inside"
done

# ---- bad input --------------------------------------------------------------------------
expect "malformed" "malformed: HTTP/1.1 400 Bad Request" "$(run allow.confpol $PROBE malformed)"
expect "NUL byte" "nullbyte: HTTP/1.1 400 Bad Request" "$(run allow.confpol $PROBE nullbyte)"
# A method is a token (RFC 9110): one with a '-' is passed on to the
# server, which answers it (501 here), not refused by the proxy (400).
expect "a method with a '-'" 501 "$(run allow.confpol curl -sS -o /dev/null -w '%{http_code}' -X M-SEARCH "http://allowed.test:$P/index.txt" 2>/dev/null)"
expect "a method with lower case and a digit" 501 "$(run allow.confpol curl -sS -o /dev/null -w '%{http_code}' -X m-search2 "http://allowed.test:$P/index.txt" 2>/dev/null)"
for m in 'GE{T' 'GE@T' 'GE:T'; do # not token characters
    expect "a method with a byte outside the token set ($m)" 400 "$(run allow.confpol curl -sS -o /dev/null -w '%{http_code}' -X "$m" "http://allowed.test:$P/index.txt" 2>/dev/null)"
done
expect "https URI" "https-uri: HTTP/1.1 400 Bad Request" "$(run allow.confpol $PROBE https-uri)"
expect "headers over the limit" "huge: HTTP/1.1 431 Request Header Fields Too Large" "$(run allow.confpol $PROBE huge)"
expect "SOCKS5 BIND" "socks-bind: reply 7" "$(run allow.confpol $PROBE socks-bind)"
expect "SOCKS5 request of another version" "socks-version: reply none" "$(run allow.confpol $PROBE socks-version "allowed.test:$P")"
# A CONNECT the rules allow that cannot be made is answered with its
# failure, never as connected: a closed port (5), a name that does not
# resolve (4).
Q=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'confpol 1\nprofile confined\nnet allow allowed.test:%s 127.0.0.1:%s nosuch.test:%s\n' "$Q" "$Q" "$P" >socks.confpol
expect "SOCKS5 greeting without 'no authentication'" "socks-auth: reply 05ff" "$(run allow.confpol $PROBE socks-auth)"
expect "SOCKS5 greeting without methods" "socks-nomethods: reply none" "$(run allow.confpol $PROBE socks-nomethods)"
expect "SOCKS5 CONNECT allowed" "socks-connect: reply 0" "$(run allow.confpol $PROBE socks-connect "allowed.test:$P")"
expect "SOCKS5 CONNECT to a closed port" "socks-connect: reply 5" "$(run socks.confpol $PROBE socks-connect "allowed.test:$Q")"
expect "SOCKS5 CONNECT to a name that does not resolve" "socks-connect: reply 4" "$(run socks.confpol $PROBE socks-connect "nosuch.test:$P")"
# The test resolver's file missing: names are looked up as without it
# (allowed.test does not resolve here), and the proxy answers, never dies.
got=$(CONFPOL_PROXY_HOSTS="$T/no-such-hosts" run allow.confpol curl -sS -o /dev/null -w '%{http_code}' "http://allowed.test:$P/index.txt" 2>/dev/null)
case $got in 5??) ;; *) fail "no hosts file: expected a 5xx answer, got '$got'" ;; esac
start=$(date +%s)
expect "slow client" "slow: HTTP/1.1 408 Request Timeout" "$(CONFPOL_PROXY_HEADER_MS=500 run allow.confpol $PROBE slow)"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "slow client: took too long"
expect "slow SOCKS5 client" "socks-slow: closed" "$(CONFPOL_PROXY_HEADER_MS=500 run allow.confpol $PROBE socks-slow)"
expect "silent client" "silent: HTTP/1.1 408 Request Timeout" "$(CONFPOL_PROXY_HEADER_MS=500 run allow.confpol $PROBE silent)"
expect "client that stops writing" "halfclose: HTTP/1.1 400 Bad Request in time" "$(CONFPOL_PROXY_HEADER_MS=5000 run allow.confpol $PROBE halfclose)"
# The proxy's socket takes from the bridge a connected TCP stream only: a
# Unix stream handed over instead (by a process of the user's, outside)
# is closed, never served.
mkdir -m 700 "$T/xdg-h"
XDG_RUNTIME_DIR="$T/xdg-h" timeout 60 "$CONFPOL" run allow.confpol -- sleep 10 2>/dev/null &
RUNPID=$!
i=0
while [ -z "$(ls "$T"/xdg-h/confpol-net.*/proxy.sock 2>/dev/null)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect "a Unix stream handed over" "closed" "$(timeout 20 python3 - "$(ls "$T"/xdg-h/confpol-net.*/proxy.sock 2>/dev/null | head -n 1)" "$P" <<'PYEOF'
import socket, sys
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
u.connect(sys.argv[1])
a, b = socket.socketpair()
socket.send_fds(u, [b"F"], [a.fileno()])
a.close()
b.settimeout(5)
try:
    b.sendall(b"GET http://allowed.test:%s/index.txt HTTP/1.1\r\nHost: a\r\n\r\n" % sys.argv[2].encode())
    print("answered" if b.recv(100) else "closed")
except socket.timeout:
    print("no answer")
except (BrokenPipeError, ConnectionResetError):
    print("closed")
PYEOF
)"
kill "$RUNPID" 2>/dev/null; wait "$RUNPID" 2>/dev/null
expect "too many connections" "toomany: HTTP/1.1 503 Service Unavailable" "$(CONFPOL_PROXY_MAX_CONNS=3 CONFPOL_PROXY_HEADER_MS=5000 run allow.confpol $PROBE toomany 3)"

# ---- the proxy dies: the sandbox keeps no network ----------------------------------
cat > "$T/proj/dies.sh" <<EOF
curl -sS "http://allowed.test:$P/index.txt"
: > "$T/proj/ready"
i=0; while [ ! -e "$T/proj/killed" ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
curl -sS --max-time 5 "http://allowed.test:$P/index.txt" || echo after-kill-failed
curl -sS --max-time 5 --noproxy '*' "http://127.0.0.1:$P/index.txt" || echo direct-failed
EOF
rm -f "$T/proj/ready" "$T/proj/killed"
timeout 60 "$CONFPOL" run allow.confpol -- sh "$T/proj/dies.sh" > "$T/dies.out" 2> "$T/dies.err" &
RPID=$!
i=0; while [ ! -e "$T/proj/ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
# The proxy is the runtime's child named confpol-proxy.
descendants() {
    for c in $(cat /proc/$1/task/*/children 2>/dev/null); do echo "$c"; descendants "$c"; done
}
PX=
for c in $(descendants $RPID); do
    [ "$(cat /proc/$c/comm 2>/dev/null)" = confpol-proxy ] && PX=$c
done
if [ -n "$PX" ]; then kill -9 "$PX"; else fail "proxy dies: no confpol-proxy child of $RPID"; fi
: > "$T/proj/killed"
wait $RPID
RPID=
expect "proxy dies" "hello
after-kill-failed
direct-failed" "$(cat "$T/dies.out")"

# ---- the runtime ends: the proxy and its directory go with it -----------------------
mkdir -m 700 "$T/xdg"
XDG_RUNTIME_DIR="$T/xdg" run allow.confpol sh -c 'ls -d "$XDG_RUNTIME_DIR"/confpol-net.*/proxy.sock' > "$T/xdg.out"
grep -q "^$T/xdg/confpol-net\..*/proxy.sock\$" "$T/xdg.out" || fail "XDG_RUNTIME_DIR: proxy socket not there: $(cat "$T/xdg.out")"
expect "proxy directory removed" "" "$(ls -A "$T/xdg")"

# Without XDG_RUNTIME_DIR, a tmpfs /dev/shm holds it (not /tmp's disk file
# system: its inode allocation was a third of the allow-list launch).
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -k /dev/shm ]; then
    env -u XDG_RUNTIME_DIR timeout 60 "$CONFPOL" run allow.confpol -- sh -c 'ls -d /dev/shm/confpol-net.*/proxy.sock' > "$T/shm.out" 2>/dev/null
    grep -q '^/dev/shm/confpol-net\..*/proxy.sock$' "$T/shm.out" || fail "no XDG_RUNTIME_DIR: proxy socket not in /dev/shm: $(cat "$T/shm.out")"
    d=$(dirname "$(head -1 "$T/shm.out")")
    [ ! -s "$T/shm.out" ] || [ ! -e "$d" ] || fail "no XDG_RUNTIME_DIR: $d left behind"
fi

# The runtime killed with SIGKILL: the proxy, told by its parent-death
# signal, removes its socket and directory before it goes.
mkdir -m 700 "$T/xdg2"
# Nothing of it may hold this script's output open afterwards.
XDG_RUNTIME_DIR="$T/xdg2" "$CONFPOL" run allow.confpol -- sleep 30 >/dev/null 2>&1 &
RPID=$!
i=0; while [ -z "$(ls -A "$T/xdg2")" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -n "$(ls -A "$T/xdg2")" ] || fail "kill -9: the proxy directory never appeared"
# bwrap does not die with a SIGKILLed runtime (its parent-death signal is
# cleared when it changes credentials): the test ends it by id afterwards.
left=
for c in $(descendants $RPID); do
    [ "$(cat /proc/$c/comm 2>/dev/null)" = confpol-proxy ] || left="$left $c"
done
kill -9 $RPID; wait $RPID 2>/dev/null; RPID=
i=0; while [ -n "$(ls -A "$T/xdg2")" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
expect "kill -9 of the runtime: proxy directory removed" "" "$(ls -A "$T/xdg2")"
for c in $left; do kill -9 "$c" 2>/dev/null; done

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "net-proxy: all passed"

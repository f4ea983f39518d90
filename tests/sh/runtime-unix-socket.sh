#!/bin/sh
# Named Unix sockets under `confpol run` (spec/runtime.md §14.5): with
# `net socket` rules the sandbox reaches exactly the named sockets outside
# (curl --unix-socket to an HTTP server, ssh-add against a real ssh-agent,
# a C probe), and no other socket: not another one in the same directory,
# not through a symlink it makes, not by a relative path, not the host's
# abstract sockets, not with a datagram socket, not by racing the address
# buffer or the descriptor against the supervisor's check, not by tracing
# the supervisor or stacking a listener of its own; a killed supervisor
# leaves every connect failing.  IP through the bridge still works under a
# `net allow` list; without `socket` records nothing changed; the Landlock
# enforcer keeps the named sockets closed and says so.  Exit 77 when bwrap
# cannot run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/http.sh"
CONFPOL=${CONFPOL:-$TOP/build/confpol}

for c in bwrap curl python3 cc; do
    command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; exit 77; }
done
bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null ||
    { echo "bwrap cannot create namespaces here"; exit 77; }

T=$(mktemp -d /var/tmp/confpol-us.XXXXXX)
SPID= WPID= AGENT1= AGENT2=
cleanup() {
    for p in $SPID $WPID $AGENT1 $AGENT2; do kill "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect NAME WANT GOT
expect() { [ "$3" = "$2" ] || fail "$1: expected '$2', got '$3'"; }

cc -O2 -pthread -o "$T/probe" "$TOP/tests/lib/unix_probe.c" ||
    { echo "cannot compile the probe"; exit 1; }
PROBE=$T/probe

# ---- servers outside the sandbox ------------------------------------------------
# ok.sock and no.sock answer each connection with their name and log it;
# http.sock and http-no.sock are HTTP servers; one abstract socket.
mkdir -p "$T/srv" "$T/proj" "$T/www"
ABS=confpol-us-test-$$
python3 - "$T/srv" "$ABS" <<'EOF' &
import http.server, os, socket, socketserver, sys, threading
d, abstract = sys.argv[1], sys.argv[2]
def name_server(name):
    s = socket.socket(socket.AF_UNIX)
    s.bind(f"{d}/{name}.sock")
    s.listen(128)
    def loop():
        while True:
            c, _ = s.accept()
            with open(f"{d}/{name}.log", "a") as f:
                f.write("connection\n")
            try:
                c.sendall(name.encode())
            except OSError:
                pass
            c.close()
    threading.Thread(target=loop, daemon=True).start()
for n in ("ok", "no"):
    name_server(n)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"hello over unix\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
    def address_string(self):
        return "unix"
class U(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
for n in ("http", "http-no"):
    srv = U(f"{d}/{n}.sock", H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
a = socket.socket(socket.AF_UNIX)
a.bind("\0" + abstract)
a.listen(4)
open(f"{d}/ready", "w").close()
threading.Event().wait()
EOF
SPID=$!
# An HTTP server on the host's loopback, reached through the proxy.
echo hello-ip > "$T/www/index.txt"
http_serve "$T/www" "$T/port"
WPID=$HTTP_PID
for i in $(seq 100); do
    [ -f "$T/srv/ready" ] && [ -s "$T/port" ] && break
    sleep 0.1
done
[ -f "$T/srv/ready" ] && [ -s "$T/port" ] || { echo "the servers did not start"; exit 1; }
P=$(cat "$T/port")
echo "127.0.0.1 web.test" > "$T/hosts"
export CONFPOL_PROXY_HOSTS="$T/hosts"
HAVE_AGENT=
if command -v ssh-agent >/dev/null 2>&1 && command -v ssh-add >/dev/null 2>&1; then
    AGENT1=$(ssh-agent -a "$T/agent.sock" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
    AGENT2=$(ssh-agent -a "$T/agent2.sock" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
    [ -n "$AGENT1" ] && [ -n "$AGENT2" ] && HAVE_AGENT=1
fi

S=$T/srv
cat > "$T/proj/named.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
net deny
net socket $S/ok.sock $S/http.sock $T/agent.sock
EOF
cat > "$T/proj/allow.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
net allow web.test:$P 127.0.0.1:$P
net socket $S/ok.sock
EOF
cat > "$T/proj/closed.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
net deny
EOF
cat > "$T/proj/param.confpol" <<EOF
confpol 1
profile confined
param SOCK
net deny
net socket \${SOCK}
EOF
cd "$T/proj" || exit 1
run() { pol=$1; shift; timeout 120 "$CONFPOL" run -q "$pol" -- "$@" 2> "$T/err"; }

# ---- the named socket, and no other ----------------------------------------------
expect "curl named" "hello over unix" \
    "$(run named.confpol curl -sS --unix-socket "$S/http.sock" http://x/)"
out=$(run named.confpol curl -sS --unix-socket "$S/http-no.sock" http://x/)
expect "curl refused: exit 7" 7 $?
grep -qx "confpol run: socket: deny $S/http-no.sock: not a named socket" "$T/err" ||
    fail "curl refused: no denial line ($(cat "$T/err"))"
expect "probe named" "ok ok" "$(run named.confpol $PROBE connect "$S/ok.sock")"
expect "probe refused" "err EACCES" "$(run named.confpol $PROBE connect "$S/no.sock")"
grep -qx "confpol run: socket: deny $S/no.sock: not a named socket" "$T/err" ||
    fail "probe refused: no denial line ($(cat "$T/err"))"
# --explain-denials names the rule behind a supervisor's denial line, and
# says when the policy allows the socket but the runtime keeps it closed
expect "explain: probe refused" "err EACCES" \
    "$(timeout 120 "$CONFPOL" run -q --explain-denials named.confpol -- $PROBE connect "$S/no.sock" 2> "$T/err")"
grep -qx "confpol run: denied: socket $S/no.sock: by 'net deny' at named.confpol:4:1" "$T/err" ||
    fail "explain: refused socket not explained ($(cat "$T/err"))"
expect "explain: missing at launch" "err EACCES" \
    "$(timeout 60 "$CONFPOL" run -q --explain-denials -D SOCK="$S/later.sock" param.confpol -- $PROBE connect "$S/later.sock" 2> "$T/err")"
grep -qx "confpol run: denied: $S/later.sock: the policy allows it; the enforcer is stricter here (--dry-run lists its notes)" "$T/err" ||
    fail "explain: stricter socket not explained ($(cat "$T/err"))"
expect "python named" "ok" "$(run named.confpol python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(9).decode())' "$S/ok.sock")"
expect "python refused" "PermissionError" "$(run named.confpol python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print(type(e).__name__)' "$S/no.sock")"
# symlinks the sandbox makes in its write root, to each socket
expect "symlink to the refused socket" "err EACCES" \
    "$(run named.confpol sh -c "ln -s '$S/no.sock' link-no && exec $PROBE connect link-no")"
expect "symlink to the named socket" "ok ok" \
    "$(run named.confpol sh -c "ln -s '$S/ok.sock' link-ok && exec $PROBE connect '$T/proj/link-ok'")"
# relative paths, after chdir
expect "relative" "ok ok
err EACCES
err EACCES" "$(run named.confpol sh -c "cd '$S' && $PROBE connect ok.sock && $PROBE connect no.sock && $PROBE connect ./../srv/no.sock")"
# a socket missing at launch: a warning, and it stays closed
expect "param socket missing" "err EACCES" \
    "$(timeout 60 "$CONFPOL" run -q -D SOCK="$S/later.sock" param.confpol -- $PROBE connect "$S/later.sock" 2> "$T/err")"
grep -qx "confpol run: warning: socket '$S/later.sock' (param.confpol:5): No such file or directory; it stays closed (stricter)" "$T/err" ||
    fail "missing socket: no warning ($(cat "$T/err"))"
# confpol-run given a socket param whose directory is missing too: it
# cannot be made canonical, so it is refused and named (125)
mkdir -p "$T/pb"
"$CONFPOL" build --target bwrap -o "$T/pb" param.confpol 2>/dev/null || fail "build of param.confpol"
timeout 60 "${CONFPOL_RUN:-$TOP/build/confpol-run}" -D SOCK="$S/nodir/x.sock" -D PROJECT="$T/proj" \
    -D HOME="$HOME" "$T/pb/param.bwrap" -- true 2> "$T/err"
expect "confpol-run: param socket in a missing directory: exit" 125 "$?"
grep -q "param SOCK: '$S/nodir/x.sock': No such file or directory" "$T/err" ||
    fail "confpol-run: param socket in a missing directory: $(cat "$T/err")"
expect "param socket" "ok ok" \
    "$(timeout 60 "$CONFPOL" run -q -D SOCK="$S/ok.sock" param.confpol -- $PROBE connect "$S/ok.sock" 2> "$T/err")"
# the host's abstract socket: another network namespace
expect "abstract" "ConnectionRefusedError" "$(run named.confpol python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0" + sys.argv[1]); print("connected")
except OSError as e:
    print(type(e).__name__)' "$ABS")"
# datagram sockets can send to a path without connect: refused
expect "datagram" "dgram EACCES raw EACCES pair-dgram EACCES pair-stream 0" \
    "$(run named.confpol $PROBE dgram)"

# ---- attacks on the check --------------------------------------------------------
expect "address race" "reached 1 refused-hit 0" \
    "$(run named.confpol $PROBE race-addr "$S/ok.sock" "$S/no.sock" 3000)"
expect "descriptor race" "refused-hit 0" \
    "$(run named.confpol $PROBE race-fd "$S/no.sock" "$P" 3000)"
expect "a listener of its own" "err EACCES" "$(run named.confpol $PROBE listener)"
expect "ptrace the supervisor" "err EPERM" "$(run named.confpol $PROBE ptrace-sup)"
expect "ptrace bwrap's init" "err EPERM" "$(run named.confpol $PROBE ptrace-sup bwrap)"
expect "closed: ptrace bwrap's init" "err EPERM" "$(run closed.confpol $PROBE ptrace-sup bwrap)"
expect "ptrace the bridge" "err EPERM" "$(run allow.confpol $PROBE ptrace-sup confpol)"
expect "supervisor killed" "err ENOSYS" "$(run named.confpol $PROBE kill-sup "$S/ok.sock")"
[ ! -s "$S/no.log" ] || fail "the refused socket was reached $(wc -l < "$S/no.log") times"

# ---- a real ssh-agent ------------------------------------------------------------
if [ -n "$HAVE_AGENT" ]; then
    out=$(SSH_AUTH_SOCK="$T/agent.sock" run named.confpol ssh-add -l 2>&1)
    expect "ssh-add, named agent (exit 1: no identities)" "1 The agent has no identities." "$? $out"
    out=$(SSH_AUTH_SOCK="$T/agent2.sock" run named.confpol ssh-add -l 2>&1)
    expect "ssh-add, other agent (exit 2)" 2 $?
    grep -qx "confpol run: socket: deny $T/agent2.sock: not a named socket" "$T/err" ||
        fail "ssh-add other agent: no denial line ($(cat "$T/err"))"
else
    echo "# SKIP ssh-agent: openssh-client is not installed"
fi

# ---- IP through the bridge, with a named socket beside it ---------------------
expect "curl through the proxy" hello-ip "$(run allow.confpol curl -sS "http://web.test:$P/index.txt")"
expect "socket under an allow list" "ok ok" "$(run allow.confpol $PROBE connect "$S/ok.sock")"

# ---- without socket records: as before ------------------------------------------
expect "closed: no socket" "err EACCES" "$(run closed.confpol $PROBE connect "$S/ok.sock")"
expect "closed: socketpair" "dgram EACCES raw EACCES pair-dgram EACCES pair-stream 0" \
    "$(run closed.confpol $PROBE dgram)"
expect "closed: no supervisor" "no supervisor" "$(run closed.confpol $PROBE ptrace-sup)"

# ---- the Landlock enforcer: closed, and said ------------------------------------
out=$(timeout 60 "$CONFPOL" run --enforcer landlock --allow-unenforced named.confpol -- $PROBE connect "$S/ok.sock" 2> "$T/err")
expect "landlock: closed" "err EACCES" "$out"
grep -q "warning: landlock: network: the Unix socket named at named.confpol:5 stays closed (stricter)" "$T/err" ||
    fail "landlock: no warning ($(cat "$T/err"))"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "runtime-unix-socket: all passed"

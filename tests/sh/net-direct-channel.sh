#!/bin/sh
# The direct path's connections to the proxy (spec/runtime.md 14.8): the
# supervisor keeps its connection to the proxy for the next connect
# instead of opening one per connect (30 connects in a row: one
# connection, held by the proxy besides its listening and resolver
# sockets), opens more only while every one it has waits for an answer
# (12 connects at once to a server whose backlog is full: all 12 wait for
# the connect deadline side by side and are refused together, not one
# after the other), and keeps at most 4 idle afterwards (the proxy counts
# each as an open connection); connects keep working after the burst.
# Exit 77 when bwrap cannot run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONFPOL=${CONFPOL:-$TOP/$BUILD/confpol}
PROXY=$(dirname "$CONFPOL")/confpol-proxy

for c in bwrap python3; do
    command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; exit 77; }
done
bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null ||
    { echo "bwrap cannot create namespaces here"; exit 77; }

T=$(mktemp -d /var/tmp/confpol-chan.XXXXXX)
PIDS=
cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() { [ "$3" = "$2" ] || fail "$1: expected '$2', got '$3'"; }

# A server answering "hello", and one whose accept queue is full (it
# never accepts; its queue filled here): a connect to it waits for the
# proxy's connect deadline.
python3 -c '
import socket, sys, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(0)
fill = []
for _ in range(4):
    c = socket.socket(); c.setblocking(False)
    try:
        c.connect(t.getsockname())
    except BlockingIOError:
        pass
    fill.append(c)
print(s.getsockname()[1], t.getsockname()[1], flush=True)
def one(c):
    c.recv(4096); c.sendall(b"HTTP/1.0 200 OK\r\n\r\nhello\n"); c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=one, args=(c,), daemon=True).start()' > "$T/ports" &
PIDS="$PIDS $!"
i=0
while [ ! -s "$T/ports" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
read -r P Q < "$T/ports" || { echo "the test servers did not start"; exit 1; }
printf '127.0.0.1 chan.test tar.test\n' > "$T/hosts"
mkdir -p "$T/proj"
cat > "$T/proj/p.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
net allow chan.test:$P tar.test:$Q 127.0.0.1:$P 127.0.0.1:$Q
EOF
cat > "$T/proj/client.py" <<'EOF'
import errno, os, socket, sys, threading, time
P, Q = int(sys.argv[1]), int(sys.argv[2])
def wait(name):
    open(name, "w").close()
    for _ in range(500):
        if os.path.exists("go-" + name):
            return
        time.sleep(0.02)
    sys.exit("no go for " + name)
def get():
    s = socket.create_connection(("chan.test", P), timeout=10)
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    d = b""
    while True:
        x = s.recv(4096)
        if not x:
            break
        d += x
    s.close()
    return d.endswith(b"hello\n")
print("sequential", sum(get() for _ in range(30)))
wait("one")
addr = socket.gethostbyname("tar.test")
res = []
def tar():
    s = socket.socket()
    try:
        s.connect((addr, Q))
        res.append("connected")
    except OSError as e:
        res.append(errno.errorcode.get(e.errno, str(e.errno)))
    s.close()
ths = [threading.Thread(target=tar) for _ in range(12)]
t0 = time.monotonic()
for t in ths:
    t.start()
for t in ths:
    t.join()
took = time.monotonic() - t0
print("burst", len(res), " ".join(sorted(set(res))),
      "together" if took < 2 * 1.5 else "one after another (%.1f s)" % took)
wait("two")
print("after", sum(get() for _ in range(5)))
EOF
cd "$T/proj" || exit 1
CONFPOL_PROXY_HOSTS="$T/hosts" CONFPOL_PROXY_CONNECT_MS=1500 \
    timeout 60 "$CONFPOL" run p.confpol -- env -u HTTP_PROXY -u http_proxy \
    python3 client.py "$P" "$Q" > "$T/out" 2> "$T/err" &
RPID=$!
PIDS="$PIDS $RPID"

# The proxy of this run (its parent is the runtime under timeout), and
# the number of its sockets once the client reaches a step.
X=
for _ in $(seq 1 200); do
    for c in $(pgrep -x confpol-proxy 2>/dev/null); do
        [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$(readlink -f "$PROXY")" ] || continue
        pp=$(awk '{print $4}' "/proc/$c/stat" 2>/dev/null)
        [ -n "$pp" ] && [ "$(awk '{print $4}' "/proc/$pp/stat" 2>/dev/null)" = "$RPID" ] && X=$c
    done
    [ -n "$X" ] && break
    sleep 0.05
done
[ -n "$X" ] || { echo "no process of $PROXY under the run"; exit 1; }
sockets() {
    n=0
    for f in /proc/$X/fd/*; do
        case $(readlink "$f" 2>/dev/null) in socket:*) n=$((n + 1)) ;; esac
    done
    echo $n
}
step() {
    i=0
    while [ ! -e "$T/proj/$1" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
    [ -e "$T/proj/$1" ] || { fail "the client did not reach '$1': $(cat "$T/err")"; return; }
    sleep 0.2 # the last answer's connection back in the supervisor's hands
    got=$(sockets)
    touch "$T/proj/go-$1"
}
# listening + resolver + the one connection of the supervisor
step one
expect "30 connects in a row: one connection to the proxy" 3 "$got"
step two
case $got in
    3 | 4 | 5 | 6) ;;
    *) fail "after 12 connects at once: $got sockets, expected 3-6 (at most 4 kept)" ;;
esac
wait "$RPID"
expect "30 connects in a row" "sequential 30" "$(sed -n 's/^sequential/&/p' "$T/out")"
expect "12 connects at once" "burst 12 ECONNREFUSED together" "$(sed -n 's/^burst/&/p' "$T/out")"
expect "connects after the burst" "after 5" "$(sed -n 's/^after/&/p' "$T/out")"
[ $fails -eq 0 ] || { echo "stderr of the run:"; cat "$T/err"; exit 1; }
echo ok

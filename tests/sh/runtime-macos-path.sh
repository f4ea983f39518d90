#!/bin/sh
# The macOS path of confpol-run (runtime/seatbelt.c, spec/runtime.md 14.7)
# run on Linux: build/confpol-run-portable is built with CP_RT_PORTABLE,
# the proxy code macOS runs (no splice, pipe2, accept4, SOCK_CLOEXEC,
# prctl or SCM_RIGHTS: the recv/send relay, and a pipe whose end stops
# the proxy instead of the parent-death signal), and runs a stand-in for
# sandbox-exec that records its argv and environment and then runs the
# command (unconfined: the profile itself is played by tests/sh/sbpl-net.sh).
# The proxy starts in TCP mode, its port is bound as confpol:proxy-port and
# the proxy variables point at it; curl reaches an allowed local server by
# name (plain HTTP, CONNECT, SOCKS5; 4 MB each way through the relay) and
# gets 403 for a denied name; the proxy is gone when the command ends, and
# when the runtime is killed; a proxy that cannot start refuses the run;
# the proxy's Unix mode, which needs Linux, is refused.
set -u
: "${TOP:?}"
RUN=$TOP/${BUILD:-build}/confpol-run-portable
CONFPOL=${CONFPOL:-$TOP/build/confpol}
for c in curl python3; do
    command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; exit 77; }
done
[ -x "$RUN" ] || { echo "FAIL: $RUN is not built"; exit 1; }
T=$(mktemp -d) || exit 1
SPID= RPID=
cleanup() {
    for p in $SPID $RPID; do kill "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() { [ "$3" = "$2" ] || fail "$1: expected '$2', got '$3'"; }
# Does anything accept on 127.0.0.1:$1?  "open" or "closed".
probe() {
    python3 -c '
import socket, sys
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("127.0.0.1", int(sys.argv[1]))); print("open")
except OSError:
    print("closed")' "$1"
}

mkdir -p "$T/www" "$T/proj"
echo hello > "$T/www/index.txt"
head -c 4194304 /dev/urandom > "$T/www/big.bin"
BIG=$(cksum < "$T/www/big.bin")
UP=$(sha256sum < "$T/www/big.bin" | cut -d' ' -f1)
(cd "$T/www" && exec python3 -c '
import hashlib, http.server
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_PUT(self):  # answers the SHA-256 of the body: uploads checked
        n = int(self.headers["Content-Length"])
        h = hashlib.sha256()
        while n:
            b = self.rfile.read(min(n, 65536))
            if not b:
                break
            h.update(b)
            n -= len(b)
        out = h.hexdigest().encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()' > "$T/port") &
SPID=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
P=$(cat "$T/port")
[ -n "$P" ] || { echo "the test server did not start"; exit 1; }
printf '127.0.0.1 allowed.test denied.test\n' > "$T/hosts"
export CONFPOL_PROXY_HOSTS="$T/hosts"

cat > "$T/proj/p.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
net allow allowed.test:$P 127.0.0.1:$P
EOF
"$CONFPOL" build --target sbpl -o "$T" "$T/proj/p.confpol" 2>/dev/null ||
    { echo "FAIL: build"; exit 1; }
cat > "$T/sandbox-exec" <<EOF
#!/bin/sh
# A stand-in for sandbox-exec: records argv and environment, runs CMD.
printf '%s\n' "\$@" > "$T/argv"
echo \$\$ > "$T/cmdpid"
env > "$T/env"
while [ \$# -gt 0 ] && [ "\$1" != -- ]; do shift; done
shift
exec "\$@"
EOF
chmod +x "$T/sandbox-exec"
export CONFPOL_TEST_SANDBOX_EXEC="$T/sandbox-exec"
cd "$T/proj" || exit 1
# Inherited proxy settings must not survive.
run() {
    HTTP_PROXY=http://bogus.invalid:1 NO_PROXY='*' all_proxy=socks5://x:1 \
        timeout 60 "$RUN" "$T/p.sb" -- "$@" 2> "$T/err"
}

# ---- a profile without a net allow-list: no proxy, the caller's environment ----
cat > "$T/proj/nonet.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
EOF
"$CONFPOL" build --target sbpl -o "$T" "$T/proj/nonet.confpol" 2>/dev/null || fail "build nonet"
expect "no net: runs, environment kept" "ran FOO=bar" \
    "$(FOO=bar timeout 60 "$RUN" "$T/nonet.sb" -- sh -c 'echo ran FOO=$FOO' 2>"$T/err")"
grep -q '^confpol:proxy-port=' "$T/argv" && fail "no net: a proxy port passed: $(tr '\n' ' ' < "$T/argv")"

# ---- argv, environment, allowed and denied names ------------------------------
expect "curl allowed" hello "$(run sh -c "curl -sS http://allowed.test:$P/index.txt")"
X=$(sed -n 's/^confpol:proxy-port=//p' "$T/argv")
[ -n "$X" ] || fail "no -D confpol:proxy-port in: $(tr '\n' ' ' < "$T/argv")"
A=$(tr '\n' ' ' < "$T/argv")
case $A in
"-f $T/p.sb "*" -D PROJECT=$T/proj "*" -D confpol:proxy-port=$X -- sh -c curl "*) ;;
*) fail "argv: $A" ;;
esac
for v in HTTP_PROXY HTTPS_PROXY http_proxy https_proxy; do
    expect "$v" "$v=http://127.0.0.1:$X" "$(grep "^$v=" "$T/env")"
done
for v in ALL_PROXY all_proxy; do
    expect "$v" "$v=socks5h://127.0.0.1:$X" "$(grep "^$v=" "$T/env")"
done
expect "NO_PROXY" "NO_PROXY= no_proxy=" "$(grep -E '^(NO_PROXY|no_proxy)=' "$T/env" | sort | tr '\n' ' ' | sed 's/ $//')"
expect "proxy stopped after the command" closed "$(probe "$X")"

out=$(run sh -c "curl -sS -D - -o /dev/null http://denied.test:$P/index.txt" | tr -d '\r')
printf '%s\n' "$out" | grep -q '^HTTP/1.1 403' || fail "denied: no 403: $out"
printf '%s\n' "$out" | grep -qx 'X-Confpol-Rule: no rule' || fail "denied: rule header: $out"
expect "denied: one log line" 1 "$(grep -c "proxy: deny HTTP denied.test:$P (no rule)" "$T/err")"
expect "CONNECT denied" 403 "$(run sh -c "curl -sS -o /dev/null -w '%{http_connect}' -p http://denied.test:$P/" 2>/dev/null)"

# ---- the relay: 4 MB by plain HTTP, through CONNECT, through SOCKS5 ------------
expect "HTTP 4 MB" "$BIG" "$(run sh -c "curl -sS http://allowed.test:$P/big.bin | cksum")"
expect "CONNECT 4 MB" "$BIG" "$(run sh -c "curl -sS -p http://allowed.test:$P/big.bin | cksum")"
expect "SOCKS5 4 MB" "$BIG" "$(run sh -c "curl -sS -x \"\$ALL_PROXY\" http://allowed.test:$P/big.bin | cksum")"
expect "HTTP upload 4 MB" "$UP" "$(run sh -c "curl -sS -T $T/www/big.bin http://allowed.test:$P/up")"
expect "CONNECT upload 4 MB" "$UP" "$(run sh -c "curl -sS -p -T $T/www/big.bin http://allowed.test:$P/up")"
expect "SOCKS5 denied" 97 "$(run sh -c "curl -sS -o /dev/null -x \"\$ALL_PROXY\" http://denied.test:$P/; echo \$?" 2>/dev/null)"

# ---- the runtime killed: the proxy sees its pipe end and goes ---------------------
rm -f "$T/env"
# Not through the test's output: a proxy that outlived the runtime would
# hold it open and hang the harness.
"$RUN" "$T/p.sb" -- sleep 30 >/dev/null 2>&1 &
RPID=$!
i=0
while [ ! -s "$T/env" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
X=$(sed -n 's/^HTTP_PROXY=http:\/\/127.0.0.1://p' "$T/env")
expect "proxy up while the command runs" open "$(probe "$X")"
kill -9 "$RPID"
i=0
while [ "$(probe "$X")" = open ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$(probe "$X")" = open ]; then
    fail "proxy still up after kill -9 of the runtime"
    # End it (by its pid, found by its port).
    pid=$(ss -Htlnp "sport = :$X" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p')
    [ -n "$pid" ] && kill "$pid"
fi
kill "$(cat "$T/cmdpid")" 2>/dev/null
RPID=

# ---- a proxy that cannot start: the run is refused, CMD never runs -------------
CONFPOL_PROXY_LOG="$T" timeout 60 "$RUN" "$T/p.sb" -- touch "$T/ran" 2> "$T/err"
expect "no proxy: exit" 125 "$?"
[ -e "$T/ran" ] && fail "no proxy: the command ran"
grep -q "refusing to run" "$T/err" || fail "no proxy: message: $(cat "$T/err")"
# Its listening socket and its life pipe that cannot be made (socket()
# and pipe() failing in the runtime; strace without -f: the runtime's own
# calls): refused and named.  (Not under a sanitizer, whose runtime's own
# calls at start-up fail first; make check runs it on the static build.)
if [ -n "${CONFPOL_SANITIZER:-}" ]; then
    echo "# no socket, no pipe: no fault injection under $CONFPOL_SANITIZER"
elif command -v strace >/dev/null 2>&1; then
    for c in "socket:cannot listen on 127.0.0.1: Too many open files" \
        "pipe,pipe2:pipe: Too many open files"; do
        call=${c%%:*} why=${c#*:}
        rm -f "$T/ran"
        timeout 60 strace -qq -o /dev/null -e trace="$call" -e inject="$call":error=EMFILE \
            "$RUN" "$T/p.sb" -- touch "$T/ran" 2> "$T/err"
        expect "no $call: exit" 125 "$?"
        [ -e "$T/ran" ] && fail "no $call: the command ran"
        grep -q "proxy: $why" "$T/err" || fail "no $call: message: $(cat "$T/err")"
    done
    # The portable build has no SOCK_CLOEXEC: the listening socket is made
    # close-on-exec by fcntl at once, and a failure there is a failure to
    # listen (else sandbox-exec and CMD inherit the proxy's socket).  The
    # fcntl to fail is the first F_SETFD after the socket, by its ordinal.
    timeout 60 strace -qq -o "$T/trace" -e trace=socket,fcntl "$RUN" "$T/p.sb" -- true 2>/dev/null
    k=$(awk '/^fcntl/ { n++ } /^socket\(AF_INET/ { s = 1 }
        s && /^fcntl\([0-9]+, F_SETFD, FD_CLOEXEC\)/ { print n; exit }' "$T/trace")
    if [ -z "$k" ]; then
        fail "no fcntl F_SETFD after the proxy's socket: $(head -c 600 "$T/trace")"
    else
        rm -f "$T/ran"
        timeout 60 strace -qq -o /dev/null -e trace=fcntl -e inject=fcntl:error=EBADF:when="$k" \
            "$RUN" "$T/p.sb" -- touch "$T/ran" 2> "$T/err"
        expect "socket not close-on-exec: exit" 125 "$?"
        [ -e "$T/ran" ] && fail "socket not close-on-exec: the command ran"
        grep -q "proxy: cannot listen on 127.0.0.1: Bad file descriptor" "$T/err" ||
            fail "socket not close-on-exec: message: $(cat "$T/err")"
    fi
    rm -f "$T/ran"
    # The portable proxy stops when its life pipe ends (the runtime killed),
    # which a thread of its own watches: a proxy that cannot make that
    # thread must not serve, or it outlives a killed runtime (strace -f,
    # which waits for every process it traces, would then not return).
    # The command may run: without its proxy it reaches nothing.
    t0=$(date +%s)
    timeout -k 2 20 strace -f -qq -o /dev/null -e trace=clone3 \
        -e inject=clone3:error=EAGAIN:when=1 "$RUN" "$T/p.sb" -- sleep 3 2> "$T/err" &
    spid=$!
    sleep 1.5
    s=$(pgrep -P "$spid" -x strace | head -n 1)
    r=${s:+$(pgrep -P "$s" | head -n 1)}
    kids=${r:+$(pgrep -P "$r")}
    [ -n "$r" ] && kill -KILL "$r"
    wait "$spid"
    # (the runtime's SIGKILL is strace's status, 137: the time tells)
    secs=$(($(date +%s) - t0))
    # (a proxy left behind is this test's to end)
    [ -n "$kids" ] && kill -KILL $kids 2>/dev/null
    if [ -z "$r" ]; then
        fail "no life watcher: the runtime was not found to kill"
    elif [ "$secs" -ge 15 ]; then
        fail "no life watcher: the proxy outlived the killed runtime (${secs}s)"
    fi
fi

mkdir -p "$T/q"
# A profile that cannot be read: refused and named (125), never a crash.
timeout 60 "$RUN" "$T/q/missing.sb" -- touch "$T/ran" 2> "$T/err"
expect "a missing profile: exit" 125 "$?"
grep -q "cannot read '$T/q/missing.sb': No such file or directory" "$T/err" ||
    fail "a missing profile: message: $(cat "$T/err")"
# A profile param left unbound: refused, named.
printf 'confpol 1\nprofile confined\nparam CACHE\nwrite ${PROJECT}\nwrite ${CACHE}\n' >"$T/proj/q.confpol"
"$CONFPOL" build --target sbpl -o "$T/q" "$T/proj/q.confpol" 2>/dev/null || fail "build of q.confpol"
timeout 60 "$RUN" "$T/q/q.sb" -- touch "$T/ran" 2> "$T/err"
expect "an unbound param: exit" 125 "$?"
[ -e "$T/ran" ] && fail "an unbound param: the command ran"
grep -q "param CACHE is unbound; pass -D CACHE=DIR" "$T/err" || fail "an unbound param: message: $(cat "$T/err")"

# The port is the runtime's to bind: -D cannot name another proxy.
timeout 60 "$RUN" -D confpol:proxy-port=3128 "$T/p.sb" -- touch "$T/ran" 2> "$T/err"
expect "-D confpol:proxy-port: exit" 125 "$?"
[ -e "$T/ran" ] && fail "-D confpol:proxy-port: the command ran"

# The proxy's Unix mode (the bwrap launch's bridge hands each connection
# over with SCM_RIGHTS) is Linux's: the portable build refuses a .bwrap
# artifact with network records rather than start it.
mkdir -p "$T/w"
printf '%s\n' 'profile confined' 'fail closed' 'arg --ro-bind' 'arg /' 'arg /' \
    'arg --dev' 'arg /dev' 'arg --proc' 'arg /proc' "bind '' $T/w" \
    'arg --unshare-net' 'net example.test:443 t.confpol:2' >"$T/net.txt"
python3 "$TOP/tests/runtime/mkartifact.py" "$T/net.txt" "$T/net.bwrap" || exit 1
if command -v bwrap >/dev/null 2>&1; then
    timeout 60 "$RUN" --enforcer bwrap "$T/net.bwrap" -- touch "$T/w/ran" 2> "$T/err"
    expect "portable, Unix mode: exit" 125 "$?"
    [ -e "$T/w/ran" ] && fail "portable, Unix mode: the command ran"
    grep -q "proxy: a Unix socket (the bridge's hand-over) needs Linux" "$T/err" ||
        fail "portable, Unix mode: message: $(cat "$T/err")"
fi

[ $fails -eq 0 ] || exit 1
echo "all passed"

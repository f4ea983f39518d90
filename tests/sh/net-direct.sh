#!/bin/sh
# The direct path (spec/runtime.md 14.8): under `confpol run` with a
# `net allow` list, clients that ignore the proxy variables (Node's fetch,
# curl --noproxy, python's socket and urllib without proxies, git) resolve
# an allowed name through the sandbox's resolver to an address of
# 198.18.0.0/16 and get one kernel connection to the server, connected
# outside by the proxy; a denied name does not resolve, an allowed name at
# a port no rule names is refused (EACCES) and logged.  The attacker's
# cases: an address of the range that no name has, another name's address
# at this name's port, an IPv4-mapped IPv6 address, a non-blocking connect
# (stays non-blocking), close-on-exec kept, a second connect (EISCONN), a
# UDP socket (EACCES), sendto with MSG_FASTOPEN (no way out), a thread
# flipping the address buffer between an allowed destination and a host
# service (never reached), a forged DNS server inside (cannot bind port
# 53), the 'D' hand-over replayed, a malformed DNS query (the resolver
# keeps answering), an allowed name whose address no rule allows (EACCES,
# logged), a question without its type and class (FORMERR, not
# the type of the query before it).  CONFPOL_NET_DIRECT=0: Node's fetch fails as before.
# The test names are mapped to 127.0.0.1 for the proxy alone by the
# test-only CONFPOL_PROXY_HOSTS file.  Exit 77 when bwrap cannot run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONFPOL=${CONFPOL:-$TOP/build/confpol}
. "$TOP/tests/lib/http.sh"

for c in bwrap curl git python3 node cc getent; do
    command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; exit 77; }
done
bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null ||
    { echo "bwrap cannot create namespaces here"; exit 77; }

T=$(mktemp -d /var/tmp/confpol-direct.XXXXXX)
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

cc -O2 -pthread -o "$T/probe" "$TOP/tests/lib/direct_probe.c" || { echo "cannot build the probe"; exit 1; }

# ---- servers outside the sandbox ------------------------------------------------
mkdir -p "$T/www" "$T/src" "$T/proj"
echo hello > "$T/www/index.txt"
http_git_repo "$T/www" "$T/src" || { echo "cannot prepare the git repository"; exit 1; }
http_serve "$T/www" "$T/port"
PIDS="$PIDS $HTTP_PID"
# A host service no rule allows: counts the connections it gets.
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
n = 0
while True:
    c, _ = s.accept(); n += 1; open(sys.argv[1], "w").write(str(n)); c.close()' "$T/hits" > "$T/qport" &
PIDS="$PIDS $!"
wait_nonempty "$T/port" "$T/qport"
P=$(cat "$T/port") Q=$(cat "$T/qport")
[ -n "$P" ] && [ -n "$Q" ] || { echo "the test servers did not start"; exit 1; }
printf '127.0.0.1 allowed.test x.wild.test denied.test other.test\n10.9.9.9 private.test\n' > "$T/hosts"
export CONFPOL_PROXY_HOSTS="$T/hosts"
expect "outside: http" hello "$(curl -sS --noproxy '*' "http://127.0.0.1:$P/index.txt")"

cat > "$T/proj/allow.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}
net allow allowed.test:$P *.wild.test:$P other.test:$Q 127.0.0.1:$P 127.0.0.1:$Q private.test:$P
EOF
cd "$T/proj" || exit 1
# Every client below runs without the proxy variables.
NOPX="env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy -u ALL_PROXY -u all_proxy"
run() { timeout 60 "$CONFPOL" run allow.confpol -- $NOPX "$@" 2>> "$T/err"; }
: > "$T/err"

# ---- real clients ------------------------------------------------------------------
FETCH='fetch(process.argv[1]).then(r => r.text()).then(t => console.log(t.trim()), e => console.log("error " + ((e.cause && e.cause.code) || e)))'
expect "node fetch" hello "$(run node -e "$FETCH" "http://allowed.test:$P/index.txt")"
expect "node fetch, wildcard" hello "$(run node -e "$FETCH" "http://x.wild.test:$P/index.txt")"
expect "node fetch, denied name" "error ENOTFOUND" "$(run node -e "$FETCH" "http://denied.test:$P/index.txt")"
[ "$(grep -c "proxy: deny DNS denied.test (no rule)" "$T/err")" = 1 ] ||
    fail "denied name: not one log line: $(grep -c "deny DNS denied.test" "$T/err")"
# A resolver that asks for IPv4 alone has its denial logged as well (one
# line per name: of the pair resolvers ask, the AAAA question is not).
run python3 -c 'import socket, sys
try:
    socket.getaddrinfo(sys.argv[1], 80, socket.AF_INET)
except OSError as e:
    print("error", e.errno)' denied4.test >/dev/null
grep -q "proxy: deny DNS denied4.test (no rule)" "$T/err" ||
    fail "a denied name asked for IPv4 alone: no log line"
expect "curl --noproxy" hello "$(run curl -sS --noproxy '*' "http://allowed.test:$P/index.txt")"
expect "python urllib" hello "$(run python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode().strip())' "http://allowed.test:$P/index.txt")"
run git clone -q "http://allowed.test:$P/repo.git" clone || fail "git clone: $(tail -3 "$T/err")"
expect "git clone content" repo-content "$(cat "$T/proj/clone/file" 2>/dev/null)"
RES='import socket, sys
for fam in (socket.AF_INET, socket.AF_INET6):
    try:
        print(sorted({a[4][0] for a in socket.getaddrinfo(sys.argv[1], 80, fam, socket.SOCK_STREAM)}))
    except socket.gaierror as e:
        print("gaierror")'
expect "resolver: A, no AAAA" "['198.18.0.1'] gaierror" "$(run python3 -c "$RES" allowed.test | tr '\n' ' ' | sed 's/ $//')"
expect "resolver: denied" 2 "$(run getent hosts denied.test >/dev/null; echo $?)"
# An allowed name whose address no rule allows (private.test resolves to
# 10.9.9.9 for the proxy): refused, and the log says why.
expect "allowed name, private address" "error EACCES" "$(run python3 -c '
import errno, socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10); print("connected")
except OSError as e:
    print("error", errno.errorcode.get(e.errno, e))' private.test "$P")"
grep -q "proxy: deny DIRECT private.test:$P (no rule): resolves to an address that no rule allows" "$T/err" ||
    fail "private address: no log line"
grep -q "proxy: deny DIRECT allowed.test" "$T/err" && fail "an allowed connect was logged as denied"

# ---- the attacker's cases ----------------------------------------------------------------
# In one run, so that the mapping is fixed: allowed.test first (.1), then
# other.test (.2).
run sh -c '
X=$1 P=$2 Q=$3
getent hosts allowed.test >/dev/null; getent hosts other.test >/dev/null
echo "port: $($X get 198.18.0.1 9)"
echo "unmapped: $($X get 198.18.0.99 $P)"
echo "other name: $($X get 198.18.0.1 $Q)"
echo "other ok: $($X get 198.18.0.2 $Q)"
echo "v6: $($X v6 198.18.0.1 $P)"
echo "v6 port: $($X v6 198.18.0.1 9)"
echo "nonblock: $($X nonblock 198.18.0.1 $P)"
echo "cloexec: $($X cloexec 198.18.0.1 $P)"
echo "twice: $($X twice 198.18.0.1 $P)"
echo "udp: $($X udp 198.18.0.1 $P)"
echo "fastopen: $($X fastopen 198.18.0.1 $P)"
echo "race: $($X race 198.18.0.1 $P 127.0.0.1 $Q 300)"
echo "race2: $($X race 198.18.0.1 $P 198.18.0.1 $Q 300)"
' sh "$T/probe" "$P" "$Q" > "$T/att"
got() { sed -n "s/^$1: //p" "$T/att"; }
expect "allowed name, other port" "err EACCES" "$(got port)"
grep -q "proxy: deny DIRECT allowed.test:9 (no rule)" "$T/err" || fail "other port: no log line"
expect "an address no name has" "err ENETUNREACH" "$(got unmapped)"
expect "another name's address at a port of its own" "err EACCES" "$(got 'other name')"
grep -q "proxy: deny DIRECT allowed.test:$Q (no rule)" "$T/err" || fail "other name: no log line"
expect "IPv4-mapped" "ok hello" "$(got v6)"
expect "IPv4-mapped, other port" "err EACCES" "$(got 'v6 port')"
expect "non-blocking" "ok hello nonblock" "$(got nonblock)"
expect "close-on-exec kept" "cloexec 1 0" "$(got cloexec)"
expect "second connect" "err EISCONN" "$(got twice)"
expect "UDP" "err EACCES" "$(got udp)"
expect "MSG_FASTOPEN" "err ENETUNREACH" "$(got fastopen)"
case $(got race) in "reached "*" other 0 failed "*) ;; *) fail "race: $(got race)" ;; esac
case $(got race2) in "reached "*" other 0 failed "*) ;; *) fail "race2: $(got race2)" ;; esac
# The host service at Q: reached once, by "other ok" (it answers nothing);
# never by the races.
expect "other ok" "err noanswer" "$(got 'other ok')"
expect "host service: connections" 1 "$(cat "$T/hits" 2>/dev/null)"

# A resolver of the sandbox's own: port 53 is not the sandbox's to bind.
expect "forged resolver" "err PermissionError" "$(run python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.bind(("127.0.0.1", 53)); print("bound")
except OSError as e:
    print("err", type(e).__name__)')"
# The command cannot reach the proxy's socket (no Unix socket is its to
# make) to replay the resolver hand-over; garbage sent to the resolver is
# answered or dropped, and it keeps answering.
run python3 -c '
import socket
try:
    socket.socket(socket.AF_UNIX); print("unix socket")
except OSError as e:
    print("unix", type(e).__name__)
q = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); q.settimeout(5)
for junk in (b"\x00" * 11, b"\x12\x34" + b"\xff" * 40,
             b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x40" + b"a" * 64 + b"\x00\x00\x01\x00\x01",
             b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\xc0\x0c\x00\x01\x00\x01",
             b"\x12\x34\x81\x00" + b"\x00" * 20):
    q.sendto(junk, ("127.0.0.1", 53))
q.sendto(b"\xab\xcd\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07allowed\x04test\x00\x00\x01\x00\x01", ("127.0.0.1", 53))
while True:
    a = q.recv(600)
    if a[:2] == b"\xab\xcd":
        print("answer", ".".join(str(b) for b in a[-4:])); break
# a label holding a dot is not two labels
q.sendto(b"\x56\x78\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x0callowed.test\x00\x00\x01\x00\x01", ("127.0.0.1", 53))
while True:
    a = q.recv(600)
    if a[:2] == b"\x56\x78":
        print("dot in a label: rcode", a[3] & 15, "answers", a[7]); break
# a question that ends after its name (no type, no class), sent after a
# whole one of the same name: what the last query left in a buffer is
# not its type and class
full = b"\x9a\xbc\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07allowed\x04test\x00\x00\x01\x00\x01"
for qid, qry in ((b"\x9a\xbc", full), (b"\x9a\xbd", b"\x9a\xbd" + full[2:-4])):
    q.sendto(qry, ("127.0.0.1", 53))
    while True:
        a = q.recv(600)
        if a[:2] == qid:
            break
print("truncated question: rcode", a[3] & 15, "answers", a[7])
# a label over 63 bytes, a name over 253: refused (FORMERR), never read
for qid, what, name in ((b"\x11\x11", "label of 64", b"\x40" + b"a" * 64),
                        (b"\x22\x22", "name of 319", (b"\x3f" + b"a" * 63) * 5)):
    q.sendto(qid + b"\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00" + name +
             b"\x00\x00\x01\x00\x01", ("127.0.0.1", 53))
    while True:
        a = q.recv(600)
        if a[:2] == qid:
            break
    print(what + ": rcode", a[3] & 15, "answers", a[7])
' > "$T/dns"
expect "no way to the proxy's socket" "unix PermissionError" "$(sed -n 1p "$T/dns")"
expect "resolver after garbage" "answer 198.18.0.1" "$(sed -n 2p "$T/dns")"
expect "a dot in a label" "dot in a label: rcode 1 answers 0" "$(sed -n 3p "$T/dns")"
expect "a question without type and class" "truncated question: rcode 1 answers 0" "$(sed -n 4p "$T/dns")"
expect "a label of 64 bytes" "label of 64: rcode 1 answers 0" "$(sed -n 5p "$T/dns")"
expect "a name of 319 bytes" "name of 319: rcode 1 answers 0" "$(sed -n 6p "$T/dns")"

# ---- without the direct path: as before ---------------------------------------------
expect "CONFPOL_NET_DIRECT=0" "error EAI_AGAIN" "$(CONFPOL_NET_DIRECT=0 run node -e "$FETCH" "http://allowed.test:$P/index.txt")"

[ "$fails" = 0 ] || { echo "--- proxy log"; tail -20 "$T/err"; exit 1; }
echo "ok"

#!/bin/sh
# The proxy's address decision against a hostile resolver (spec/runtime.md
# 14.3): inside a network and mount namespace of the test's own, a DNS
# server of the test (tests/lib/dns_server.py on 127.0.0.1:53, named by a
# resolv.conf bound over /etc/resolv.conf, with a `search` line) gives
# allowed names the answers an attacker's DNS would: IPv4-mapped,
# NAT64, 6to4 and IPv4-compatible forms of loopback and private
# addresses, cloud metadata addresses, special-purpose ranges, and the
# host's own address (11.22.33.44 on lo, a service bound to 0.0.0.0).
# Real clients inside `confpol run` (curl over CONNECT, plain HTTP and
# SOCKS5; python for raw requests) must be refused with 403 / SOCKS5
# reply 2 and the row named in the log.  Also: names are resolved fully
# qualified (the DNS log never sees a search domain), a request line with
# a 64-byte method is refused and its upstream receives nothing,
# Proxy-Authorization and Connection are not passed on, surplus
# connections are answered at once, and one deadline bounds connecting
# to all of a name's addresses.  Exit 77 when namespaces are unavailable.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/http.sh"
CONFPOL=${CONFPOL:-$TOP/build/confpol}

if [ "${NET_RESOLVER_INNER:-}" != 1 ]; then
    for c in bwrap curl python3 ip unshare; do
        command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; exit 77; }
    done
    [ "$(id -u)" = 0 ] || { echo "needs root for its namespaces"; exit 77; }
    timeout 10 unshare --net --mount true 2>/dev/null ||
        { echo "cannot create a network namespace here"; exit 77; }
    NET_RESOLVER_INNER=1 exec timeout -k 5 400 unshare --net --mount sh "$0"
fi

# ---- inside the test's namespaces ----------------------------------------------
T=$(mktemp -d /var/tmp/confpol-resolver.XXXXXX)
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
waitfor() { i=0; while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done; [ -e "$1" ]; }

ip link set lo up || { echo "cannot bring lo up"; exit 1; }
# The host's own address: public, on lo, reached by anything bound to 0.0.0.0.
ip addr add 11.22.33.44/32 dev lo || exit 1
for a in 50 51 52 53; do ip addr add 11.22.33.$a/32 dev lo || exit 1; done
printf 'nameserver 127.0.0.1\nsearch corp.internal\noptions ndots:1 timeout:1 attempts:1\n' > "$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf || { echo "cannot bind resolv.conf"; exit 1; }

P=18080 R=18081 S=18082
mkdir -p "$T/www" "$T/proj"
echo hello > "$T/www/index.txt"
cat > "$T/zone" <<EOF
plain.allowed.test A 127.0.0.1
mapped.allowed.test AAAA ::ffff:127.0.0.1
mapped10.allowed.test AAAA ::ffff:10.0.0.5
mappedmeta.allowed.test AAAA ::ffff:169.254.169.254
nat64.allowed.test AAAA 64:ff9b::7f00:1
nat64p.allowed.test AAAA 64:ff9b::a00:5
sixtofour.allowed.test AAAA 2002:7f00:1::1
compat.allowed.test AAAA ::a00:5
private.allowed.test A 10.0.0.5
linklocal.allowed.test A 169.254.169.254
azure.allowed.test A 168.63.129.16
ec2.allowed.test AAAA fd00:ec2::254
ietf.allowed.test A 192.0.0.8
bench.allowed.test A 198.18.0.1
cgnat.allowed.test A 100.64.0.1
own.allowed.test A 11.22.33.44
public.allowed.test A 11.22.33.99
rec.allowed.test A 127.0.0.1
nx.allowed.test.corp.internal A 11.22.33.44
slow.allowed.test A 11.22.33.50
slow.allowed.test A 11.22.33.51
slow.allowed.test A 11.22.33.52
slow.allowed.test A 11.22.33.53
EOF
python3 "$TOP/tests/lib/dns_server.py" 127.0.0.1 53 "$T/zone" "$T/dns.log" "$T/dns.ready" &
PIDS="$PIDS $!"
http_serve "$T/www" /dev/null 0.0.0.0 $P
PIDS="$PIDS $HTTP_PID"
python3 "$TOP/tests/lib/net_recorder.py" $R "$T/rec.log" "$T/rec.ready" &
PIDS="$PIDS $!"
# A listener whose backlog is full: connecting to it hangs (SYNs dropped).
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(0)
held = []
for i in range(3):
    c = socket.socket(); c.setblocking(False)
    try: c.connect(("11.22.33.44", int(sys.argv[1])))
    except BlockingIOError: pass
    held.append(c); time.sleep(0.2)
open(sys.argv[2], "w").close()
time.sleep(600)' $S "$T/full.ready" &
PIDS="$PIDS $!"
waitfor "$T/dns.ready" && waitfor "$T/rec.ready" && waitfor "$T/full.ready" ||
    { echo "the test servers did not start"; exit 1; }
i=0; until curl -s --noproxy '*' -o /dev/null "http://127.0.0.1:$P/index.txt" || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done

# The servers and the resolver work from outside: each refusal below is
# the proxy's doing.
expect "outside: resolver" "::ffff:127.0.0.1" "$(timeout 10 python3 -c 'import socket; print(socket.getaddrinfo("mapped.allowed.test", 80, socket.AF_INET6)[0][4][0])')"
expect "outside: search list" "11.22.33.44" "$(timeout 10 python3 -c 'import socket; print(socket.getaddrinfo("nx.allowed.test", 80, socket.AF_INET)[0][4][0])' 2>&1)"
expect "outside: own address" hello "$(curl -sS --noproxy '*' "http://11.22.33.44:$P/index.txt")"

cat > "$T/proj/allow.confpol" <<EOF
confpol 1
profile confined
net allow *.allowed.test:$P *.allowed.test:$R localhost:$R
EOF
cat > "$T/proj/loop.confpol" <<EOF
confpol 1
profile confined
net allow *.allowed.test:$P localhost:$P 10.0.0.5:$P
EOF
cat > "$T/proj/slow.confpol" <<EOF
confpol 1
profile confined
net allow slow.allowed.test:$S 11.22.33.50:$S 11.22.33.51:$S 11.22.33.52:$S 11.22.33.53:$S
EOF
cd "$T/proj" || exit 1
run() { pol=$1; shift; timeout 60 "$CONFPOL" run "$pol" -- "$@" 2> "$T/err"; }
code() { run "$1" curl -sS -o /dev/null -w '%{http_code}' "http://$2:$P/index.txt" 2>/dev/null; }
connect() { run "$1" curl -sS -o /dev/null -w '%{http_connect}' "https://$2:$P/" 2>/dev/null; }
socks() { run "$1" sh -c 'curl -sS -o /dev/null -w "%{http_code}" -x "$ALL_PROXY" "$1"' sh "http://$2:$P/index.txt" 2>/dev/null; }
logged() { grep -q "deny $1 $2:$P (no rule): resolves to an address that no rule allows: $3" "$T/err" ||
    fail "$2 ($1): no log line naming '$3': $(cat "$T/err")"; }

# ---- a public name resolving to special-purpose addresses ---------------------------
expect "control: plain name, loopback, no rule" 403 "$(code allow.confpol plain.allowed.test)"
for case in \
    "mapped.allowed.test loopback" \
    "mapped10.allowed.test private-use" \
    "mappedmeta.allowed.test link-local" \
    "nat64.allowed.test loopback" \
    "nat64p.allowed.test private-use" \
    "sixtofour.allowed.test 6to4" \
    "compat.allowed.test IPv4-compatible" \
    "private.allowed.test private-use" \
    "linklocal.allowed.test link-local" \
    "azure.allowed.test cloud platform endpoint" \
    "ec2.allowed.test unique local" \
    "ietf.allowed.test IETF protocol assignments" \
    "bench.allowed.test benchmarking" \
    "cgnat.allowed.test shared address space" \
    "own.allowed.test the host's own address"; do
    name=${case%% *} row=${case#* }
    expect "HTTP $name" 403 "$(code allow.confpol "$name")"
    logged HTTP "$name" "$row"
done
for name in mapped.allowed.test own.allowed.test nat64p.allowed.test; do
    expect "CONNECT $name" 403 "$(connect allow.confpol "$name")"
    expect "SOCKS5 $name" 000 "$(socks allow.confpol "$name")"
    logged SOCKS5 "$name" ""
done
# A public address that is not the host's passes the table (nothing
# listens there: 502, not 403).
expect "public address" 502 "$(code allow.confpol public.allowed.test)"

# An explicit rule still allows: `localhost:P` lets loopback through,
# mapped included; `10.0.0.5:P` its address and its mapped form (nothing
# listens there: 502); NAT64 and 6to4 forms of loopback stay refused.
expect "localhost rule: plain" 200 "$(code loop.confpol plain.allowed.test)"
expect "localhost rule: mapped" 200 "$(code loop.confpol mapped.allowed.test)"
expect "localhost rule: mapped, SOCKS5" 200 "$(socks loop.confpol mapped.allowed.test)"
expect "literal rule: private" 502 "$(code loop.confpol private.allowed.test)"
expect "literal rule: mapped private" 502 "$(code loop.confpol mapped10.allowed.test)"
expect "localhost rule: NAT64" 403 "$(code loop.confpol nat64.allowed.test)"
expect "localhost rule: 6to4" 403 "$(code loop.confpol sixtofour.allowed.test)"

# ---- fully qualified names ----------------------------------------------------------
: > "$T/dns.log"
expect "search list" 502 "$(code allow.confpol nx.allowed.test)"
grep -q '^nx\.allowed\.test$' "$T/dns.log" || fail "search list: the name was not asked: $(cat "$T/dns.log")"
grep -q 'corp\.internal' "$T/dns.log" && fail "search list: a search domain was appended: $(cat "$T/dns.log")"

# ---- the request line and the headers passed on ---------------------------------------
PROBE="python3 $TOP/tests/lib/net_probe.py"
M=$(printf 'A%.0s' $(seq 1 64))
: > "$T/rec.log"
expect "64-byte method" "raw: HTTP/1.1 400 Bad Request" "$(run allow.confpol $PROBE raw "b'$M http://rec.allowed.test:$R/ HTTP/1.1\\r\\nHost: rec\\r\\n\\r\\n'")"
expect "64-byte method: nothing upstream" "" "$(cat "$T/rec.log")"
expect "bad method byte" "raw: HTTP/1.1 400 Bad Request" "$(run allow.confpol $PROBE raw "b'GE(T http://rec.allowed.test:$R/ HTTP/1.1\\r\\n\\r\\n'")"
expect "bad version" "raw: HTTP/1.1 400 Bad Request" "$(run allow.confpol $PROBE raw "b'GET http://rec.allowed.test:$R/ HTTP/1.1x\\r\\n\\r\\n'")"
expect "bad requests: nothing upstream" "" "$(cat "$T/rec.log")"
expect "headers" "raw: HTTP/1.0 200 OK" "$(run allow.confpol $PROBE raw "b'GET http://rec.allowed.test:$R/x HTTP/1.1\\r\\nHost: rec\\r\\nProxy-Authorization: Basic c2VjcmV0\\r\\nConnection: keep-alive, X-Secret\\r\\nX-Keep: 1\\r\\nProxy-Connection: keep-alive\\r\\n\\r\\n'")"
tr -d '\r' < "$T/rec.log" > "$T/rec.txt"
expect "request line upstream" "GET /x HTTP/1.1" "$(head -n 1 "$T/rec.txt")"
grep -qi '^proxy-authorization' "$T/rec.txt" && fail "Proxy-Authorization passed on: $(cat "$T/rec.txt")"
grep -qi '^proxy-connection' "$T/rec.txt" && fail "Proxy-Connection passed on: $(cat "$T/rec.txt")"
expect "Connection upstream" "Connection: close" "$(grep -i '^connection' "$T/rec.txt")"
grep -qx 'X-Keep: 1' "$T/rec.txt" || fail "X-Keep not passed on: $(cat "$T/rec.txt")"
# A method of token characters other than letters (RFC 9110 tchar) is
# passed on as it is.
: > "$T/rec.log"
expect "method with a hyphen" "raw: HTTP/1.0 200 OK" "$(run allow.confpol $PROBE raw "b'M-SEARCH http://rec.allowed.test:$R/y HTTP/1.1\\r\\nHost: rec\\r\\n\\r\\n'")"
expect "method with a hyphen upstream" "M-SEARCH /y HTTP/1.1" "$(head -n 1 "$T/rec.log" | tr -d '\r')"

# ---- resources ---------------------------------------------------------------------------
# Surplus connections are each answered at once (answered one at a time,
# 100 ms or more each while the client neither sends nor closes, 60 take
# 6 s or more).
expect "surplus" "surplus: 60 x 503 in under 4 s" "$(CONFPOL_PROXY_MAX_CONNS=2 run allow.confpol $PROBE surplus "2 60")"
# One deadline for all of a name's addresses (each of the four hangs: one
# deadline per address would take four times as long, 40 s by default).
# Measured against a run that connects nowhere (the machine's own cost).
start=$(date +%s)
code allow.confpol private.allowed.test > /dev/null
base=$(( $(date +%s) - start ))
start=$(date +%s)
expect "connect deadline" 502 "$(CONFPOL_PROXY_CONNECT_MS=400 run slow.confpol curl -sS -o /dev/null -w '%{http_code}' "http://slow.allowed.test:$S/" 2>/dev/null)"
took=$(( $(date +%s) - start ))
[ $took -lt $((base + 6)) ] || fail "connect deadline: took $took s, a run that connects nowhere $base s"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "net-resolver: all passed"

#!/bin/sh
# The targets agree on every `net` rule, or `--fidelity` says where not.
# Static (tests/lib/net_agree.py): for every example and starter and a
# seeded set of generated policies (wildcards, exact names, ports,
# `localhost:PORT`, IP literals, punycode, trailing dots, upper case),
# `confpol explain`, the SBPL profile's `;; confpol-net` lines and the
# Claude settings (allowedDomains matched as Claude Code's sandbox runtime
# does) give the same answer for each name and port, or the rule's Claude
# row says why; the Claude settings never allow what explain denies.
# Real (Linux, bwrap): one `confpol run` of a generated policy answers each
# name through the proxy variables (curl) and through the direct path
# (curl --noproxy '*'); both must equal explain's answer, except where the
# name's address is loopback no rule names or the host's own (the proxy
# refuses those; the Claude row says its runtime connects them) and where
# the direct path does not serve the rule (IP literals, `localhost`: the
# bwrap row says so).  NET_AGREE_POLICIES and NET_AGREE_SEED size the
# generated set (the soak run uses more).  Exit 77 when bwrap cannot run
# (after the static part).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONFPOL=${CONFPOL:-$TOP/build/confpol}
export CONFPOL TOP
. "$TOP/tests/lib/http.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
T=$(mktemp -d /var/tmp/confpol-agree.XXXXXX)
PIDS=
cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir "$T/static"
timeout 120 python3 "$TOP/tests/lib/net_agree.py" "$T/static" "$TOP"/examples/*.confpol \
    "$TOP"/examples/starter/*.confpol > "$T/static.out" 2>&1
rc=$?
grep -v '	explain=' "$T/static.out"
[ $rc -eq 0 ] || fail "static comparison (exit $rc)"
echo "static: $(grep -c '	explain=' "$T/static.out") answers compared"

for c in bwrap curl; do
    command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; [ $fails -eq 0 ] && exit 77; exit 1; }
done
bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null ||
    { echo "bwrap cannot create namespaces here"; [ $fails -eq 0 ] && exit 77; exit 1; }

# ---- real runs --------------------------------------------------------------------
mkdir -p "$T/www" "$T/proj"
echo hello > "$T/www/index.txt"
# Two servers on every address of the host, so that a refused address is
# the proxy's answer, not a missing listener.
for n in 1 2; do
    http_serve "$T/www" "$T/port$n" 0.0.0.0
    PIDS="$PIDS $HTTP_PID"
done
wait_nonempty "$T/port1" "$T/port2"
P=$(cat "$T/port1") R=$(cat "$T/port2")
[ -n "$P" ] && [ -n "$R" ] || { echo "the test servers did not start"; exit 1; }
OWN=$(ip -4 -o addr show scope global 2>/dev/null | awk '{sub("/.*", "", $4); print $4; exit}')
{
    echo "127.0.0.1 n1.a.test x.w1.test a.b.w1.test w1.test up1.test p1.test denied.test dot1.test xn--bcher-kva.test"
    echo "127.0.0.2 lo2.test"
    [ -n "$OWN" ] && echo "$OWN own.test"
} > "$T/hosts"
export CONFPOL_PROXY_HOSTS="$T/hosts"
cat > "$T/proj/g.confpol" <<P
confpol 1
profile confined
write \${PROJECT}
net allow n1.a.test *.w1.test p1.test:$R Up1.Test dot1.test. lo2.test own.test xn--bcher-kva.test
net allow 127.0.0.1:$P 127.0.0.1:$R localhost:$R
P
# name port [explain subject]: the subjects, one a line.
{
    for n in n1.a.test N1.A.TEST n1.a.test. x.w1.test a.b.w1.test X.W1.TEST x.w1.test. w1.test \
        up1.test UP1.test dot1.test dot1.test. p1.test denied.test lo2.test xn--bcher-kva.test; do
        echo "$n $P"
    done
    echo "p1.test $R"
    echo "p1.test. $R"
    echo "n1.a.test $R"
    echo "bücher.test $P xn--bcher-kva.test:$P"
    [ -n "$OWN" ] && echo "own.test $P"
    echo "127.0.0.1 $P"
    echo "127.0.0.1 9"
    echo "localhost $R"
    echo "localhost $P"
    echo "[::1] $P"
} > "$T/subjects"
cd "$T/proj" || exit 1
: > "$T/err"
timeout 120 "$CONFPOL" run g.confpol -- sh -c '
while read -r n p x; do
    u="http://$n:$p/index.txt"
    a=$(curl -s -o /dev/null -w "%{http_code}" --max-time 5 "$u")
    b=$(curl -s -o /dev/null -w "%{http_code}" --max-time 5 --noproxy "*" "$u")
    echo "$n $p $a $b"
done' < "$T/subjects" > "$T/real" 2>> "$T/err" ||
    fail "confpol run: $(tail -3 "$T/err")"
# The bwrap and Claude rows of each rule, to check the announced differences.
mkdir "$T/out"
"$CONFPOL" build --target bwrap --target claude --fidelity -o "$T/out" g.confpol > "$T/fid" 2>/dev/null ||
    fail "build: cannot list the fidelity rows"
row() { grep -F "g.confpol:$(grep -n "net allow.* $1\( \|$\)" g.confpol | cut -d: -f1): net allow $1	$2	" "$T/fid"; }
n=0
while read -r name port subj; do
    line=$(awk -v n="$name" -v p="$port" '$1 == n && $2 == p { print; exit }' "$T/real")
    [ -n "$line" ] || { fail "$name:$port: no answer from the run"; continue; }
    set -- $line
    px=deny direct=deny
    [ "$3" = 200 ] && px=allow
    [ "$4" = 200 ] && direct=allow
    ex=$("$CONFPOL" explain g.confpol net "${subj:-$name:$port}" 2> /dev/null)
    verdict=$(echo "$ex" | head -1)
    rule=$(echo "$ex" | sed -n "s/^  by 'net allow \([^']*\)'.*/\1/p")
    n=$((n + 1))
    echo "$name:$port explain=$verdict proxy=$px direct=$direct"
    # Never looser than explain.
    [ "$verdict" = allow ] || { [ $px = deny ] && [ $direct = deny ]; } ||
        { fail "$name:$port: explain $verdict, proxy $px, direct $direct"; continue; }
    [ "$verdict" = allow ] || continue
    case $name in
    lo2.test | own.test)
        # Loopback no rule names, the host's own address: both paths refuse;
        # Claude Code's runtime would connect, its row says so.
        [ $px = deny ] && [ $direct = deny ] || fail "$name:$port: special address reached (proxy $px, direct $direct)"
        row "$rule" claude | grep -qF "this host's own), which confpol's proxy refuses" ||
            fail "$name: the Claude row of '$rule' does not name the addresses the proxy refuses"
        continue ;;
    esac
    [ $px = allow ] || fail "$name:$port: explain allows by '$rule', the proxy refuses ($3)"
    if [ $direct = deny ]; then
        row "$rule" bwrap | grep -qF "not through the direct path" ||
            fail "$name:$port: explain allows by '$rule', the direct path refuses ($4), the bwrap row does not say so: $(row "$rule" bwrap)"
    fi
done < "$T/subjects"
echo "real: $n names, each through the proxy and the direct path"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "net-agree: all passed"

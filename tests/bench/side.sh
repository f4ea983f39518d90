#!/bin/sh
# Two builds of confpol side by side, for a before/after table (BENCHMARKS.md):
#   tests/bench/side.sh OLD_BUILD_DIR NEW_BUILD_DIR
# 1. `confpol check` and `confpol build --target all` (section 2 of `make
#    bench`) on generated policies of BENCH_SIZES rules (default 10 10000
#    100000), both binaries in one bench run, interleaved run by run so that
#    the machine's load hits both alike: median wall and CPU ms, new/old.
# 2. with BENCH_NET=1, the network figures of tests/bench/net.py for both
#    builds in one run, interleaved in every section.
# Prints figures only; nothing is asserted.
set -u
[ $# -eq 2 ] || { echo "usage: side.sh OLD_BUILD_DIR NEW_BUILD_DIR" >&2; exit 2; }
OLD=$(cd "$1" && pwd) NEW=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
SIZES=${BENCH_SIZES:-"10 10000 100000"}
tmp=$(mktemp -d /tmp/confpol-side.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
B="$tmp/bench"
cc -O2 -std=c11 -Wall -Wextra -Werror -o "$B" "$top/tests/bench/bench.c" || exit 1
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

echo "old:   $OLD"
echo "new:   $NEW"
echo "date:  $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "load:  $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, at start)"
python3 "$top/tests/bench/gen.py" "$tmp/p" $SIZES >/dev/null || exit 1
P="$tmp/project"
mkdir -p "$P" "$tmp/o1" "$tmp/o2"
echo
echo "== check and build --target all -D PROJECT=DIR --expand-globs, interleaved old/new"
echo "   median wall ms (median CPU ms); ratio = new/old of the medians"
printf '%9s %4s | %22s %22s %11s | %22s %22s %11s\n' rules runs check_old check_new ratio build_old build_new ratio
for n in $SIZES; do
    d="$tmp/p/$n"
    case $n in
    10) runs=31 w=3 ;;
    100000) runs=${BENCH_RUNS_LARGE:-9} w=1 ;;
    *) runs=15 w=2 ;;
    esac
    c=$("$B" -n $runs -w $w -- "$OLD/confpol" check -D PROJECT="$P" "$d/main.confpol" \
        :: "$NEW/confpol" check -D PROJECT="$P" "$d/main.confpol")
    b=$("$B" -n $runs -w $w -- "$OLD/confpol" build --target all --expand-globs -D PROJECT="$P" -o "$tmp/o1" "$d/main.confpol" \
        :: "$NEW/confpol" build --target all --expand-globs -D PROJECT="$P" -o "$tmp/o2" "$d/main.confpol")
    c1=$(echo "$c" | sed -n 1p) c2=$(echo "$c" | sed -n 2p)
    b1=$(echo "$b" | sed -n 1p) b2=$(echo "$b" | sed -n 2p)
    fmt() { printf '%s (%s)' "$(field median_ms "$1")" "$(field cpu_ms "$1")"; }
    printf '%9s %4s | %22s %22s %5s/%5s | %22s %22s %5s/%5s\n' "$n" "$runs" \
        "$(fmt "$c1")" "$(fmt "$c2")" \
        "$(ratio "$(field median_ms "$c2")" "$(field median_ms "$c1")")" \
        "$(ratio "$(field cpu_ms "$c2")" "$(field cpu_ms "$c1")")" \
        "$(fmt "$b1")" "$(fmt "$b2")" \
        "$(ratio "$(field median_ms "$b2")" "$(field median_ms "$b1")")" \
        "$(ratio "$(field cpu_ms "$b2")" "$(field cpu_ms "$b1")")"
done
echo "load:  $(cut -d' ' -f1-3 /proc/loadavg) (at the end of the section)"

if [ "${BENCH_NET:-0}" = 1 ]; then
    echo
    echo "== network (tests/bench/net.py), old and new interleaved in one run"
    mkdir -p "$tmp/net"
    BENCH_NET_LABELS="old::new" python3 "$top/tests/bench/net.py" \
        "$OLD/confpol::$NEW/confpol" "$tmp/net" || echo "network benchmark failed"
    rm -rf "$tmp/net"
fi

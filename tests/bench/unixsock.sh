#!/bin/sh
# `make bench` section 6c: the cost of a supervised connect to a named Unix
# socket (spec/runtime.md §14.5).  The same probe connects N times to one
# Unix socket outside: directly, inside `confpol run` with no network rule
# (no filter: every socket reachable), and inside with `net deny` and a
# `net socket` rule naming it (each connect answered by the supervisor).
# Medians of N connect calls (socket creation and close not timed), in
# microseconds; three runs of each, interleaved, the median run reported.
# Prints figures only.  Usage: unixsock.sh CONFPOL [N]
set -u
C=$1 N=${2:-2000}
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v bwrap >/dev/null 2>&1 || { echo "bwrap missing: skipped"; exit 0; }
tmp=$(mktemp -d /var/tmp/confpol-bench-us.XXXXXX)
SPID=
trap 'kill $SPID 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
cc -O2 -pthread -o "$tmp/probe" "$top/tests/lib/unix_probe.c" || exit 1
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1024)
open(sys.argv[1] + ".ready", "w").close()
while True:
    c, _ = s.accept(); c.close()' "$tmp/s.sock" &
SPID=$!
for i in $(seq 100); do [ -f "$tmp/s.sock.ready" ] && break; sleep 0.1; done
mkdir -p "$tmp/proj"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n' > "$tmp/proj/open.confpol"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\nnet deny\nnet socket %s\n' \
    "$tmp/s.sock" > "$tmp/proj/named.confpol"
cd "$tmp/proj" || exit 1
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > d; : > o; : > s
for r in 1 2 3; do
    "$tmp/probe" latency "$tmp/s.sock" "$N" >> d
    "$C" run -q open.confpol -- "$tmp/probe" latency "$tmp/s.sock" "$N" >> o
    "$C" run -q named.confpol -- "$tmp/probe" latency "$tmp/s.sock" "$N" >> s
done
d=$(med < d) o=$(med < o) s=$(med < s)
echo "connect to a Unix socket, median of $N (us): direct $d, sandbox without a filter $o,"
echo "supervised (net deny + net socket) $s; added by the supervisor: $(awk -v a="$s" -v b="$o" 'BEGIN { printf "%.1f", a - b }') us"

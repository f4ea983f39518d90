#!/bin/sh
# The gate corpora and the hook's latency (figures only, nothing asserted):
#   - gated / total per review class and benign asked / total on the policy
#     `confpol init --claude` writes, the gate library alone
#     (tests/gate/corpus.py, which also checks that explain, the gate on the
#     policy and the gate on the artifact agree);
#   - the content detectors' recall and false positives on the generated
#     corpus (tests/gate/content-corpus/measure.py);
#   - the hook on that policy's artifact (PROJECT bound as `confpol claude`
#     binds it), process start included, run as installed settings run it
#     (confpol-gate) and as `confpol gate`: median and 99th percentile of
#     wall time over 401 interleaved runs, and the median and 99th percentile of
#     CPU time (user + system), for a Bash call, a Write of 20 lines, a
#     Write of 1 MB (its path decided, then its content scanned) and a
#     Write denied by its path (targets: median < 1 ms, p99 < 5 ms on an
#     idle machine; on a shared machine CPU time is the figure to read).
# `sh tests/bench/gate-corpus.sh [BENCH-BINARY]` (part of `make bench`).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
C="$top/$BUILD/confpol"
G="$top/$BUILD/confpol-gate"
tmp=$(mktemp -d /tmp/confpol-bench-corpus.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
B=${1:-}
if [ -z "$B" ]; then
    B="$tmp/bench"
    cc -O2 -std=c11 -Wall -Wextra -Werror -o "$B" "$top/tests/bench/bench.c" || exit 1
fi
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
export CONFPOL_LIBRARY="$top/gates"
echo "== 7. the gate corpora on the policy of confpol init --claude (the library alone)"
python3 "$top/tests/gate/corpus.py" "$C" "$top"
echo
echo "== 7a. the content detectors on the generated corpus"
python3 "$top/tests/gate/content-corpus/measure.py" "$C" "$top"
echo
echo "== 7b. the hook on that policy's artifact: one call, process start included"
echo "   401 runs per input, interleaved; load $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$tmp/p" "$tmp/o"
# the project is the working directory; the artifact goes outside it
(cd "$tmp/p" && "$C" init --claude >/dev/null && "$C" build --target claude -D "PROJECT=$tmp/p" -o "$tmp/o" policy.confpol >/dev/null 2>&1) ||
    { echo "cannot build the init policy"; exit 1; }
art="$tmp/o/policy.claude.json"
python3 "$top/tests/bench/hook_inputs.py" "$tmp" || exit 1
line() { # LABEL RESULT
    printf '  %-40s wall median %7s ms  p99 %7s ms   CPU median %7s ms  p99 %7s ms\n' \
        "$1" "$(field median_ms "$2")" "$(field p99_ms "$2")" \
        "$(field cpu_ms "$2")" "$(field p99_cpu_ms "$2")"
}
for w in bash:"Bash call" small:"Write of 20 lines" write:"Write of 1 MB" denied:"Write denied by its path"; do
    res=$("$B" -n 401 -w 5 -i "$tmp/${w%%:*}.json" -- "$G" "$art" :: "$C" gate "$art")
    line "${w#*:}, confpol-gate (installed)" "$(echo "$res" | sed -n 1p)"
    line "${w#*:}, confpol gate" "$(echo "$res" | sed -n 2p)"
done
res=$("$B" -n 401 -w 5 -- "$C" --version :: /bin/true)
line "confpol --version" "$(echo "$res" | sed -n 1p)"
line "/bin/true" "$(echo "$res" | sed -n 2p)"

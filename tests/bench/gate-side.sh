#!/bin/sh
# The gate hook of two builds side by side: `sh tests/bench/gate-side.sh
# OLD_BUILD NEW_BUILD [RUNS]` (build directories holding a confpol each;
# an old tree is built apart, e.g. `git archive REV | tar -x -C DIR` and
# `make -C DIR BUILD=build build/confpol`).  On the artifact of the policy
# `confpol init --claude` writes (the library alone, PROJECT bound, built
# by NEW), with the inputs of tests/bench/gate-corpus.sh (a Bash call, a
# Write of 20 lines, a Write of 1 MB, a Write denied by its path): one hook
# call, process start included, OLD and NEW interleaved run by run (RUNS,
# default 401; half for the 1 MB Write), wall and CPU medians and 99th
# percentiles, then `confpol --version` of each and `/bin/true`.  Figures
# only, nothing asserted (BENCHMARKS.md, "The gate hook's latency").
set -u
[ $# -ge 2 ] || { echo "usage: gate-side.sh OLD_BUILD NEW_BUILD [RUNS]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
O=$(cd "$1" && pwd)/confpol
N=$(cd "$2" && pwd)/confpol
# each build's hook as installed settings run it: confpol-gate where the
# build has it, else `confpol gate`
hook_of() { if [ -x "$(dirname "$1")/confpol-gate" ]; then echo "$(dirname "$1")/confpol-gate"; else echo "$1 gate"; fi; }
OH=$(hook_of "$O")
NH=$(hook_of "$N")
RUNS=${3:-401}
[ -x "$O" ] && [ -x "$N" ] || { echo "gate-side.sh: no confpol in $1 or $2" >&2; exit 2; }
tmp=$(mktemp -d /tmp/confpol-bench-side.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
B="$tmp/bench"
cc -O2 -std=c11 -Wall -Wextra -Werror -o "$B" "$top/tests/bench/bench.c" || exit 1
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
export CONFPOL_LIBRARY="$top/gates"
mkdir -p "$tmp/p" "$tmp/o"
(cd "$tmp/p" && "$N" init --claude >/dev/null &&
    "$N" build --target claude -D "PROJECT=$tmp/p" -o "$tmp/o" policy.confpol >/dev/null 2>&1) ||
    { echo "cannot build the init policy"; exit 1; }
art="$tmp/o/policy.claude.json"
python3 "$top/tests/bench/hook_inputs.py" "$tmp" || exit 1
line() { # LABEL RESULT
    printf '  %-30s wall median %7s ms  p99 %7s ms   CPU median %7s ms  p99 %7s ms\n' \
        "$1" "$(field median_ms "$2")" "$(field p99_ms "$2")" \
        "$(field cpu_ms "$2")" "$(field p99_cpu_ms "$2")"
}
echo "== the gate hook, $1 (old: $(basename "$OH")) against $2 (new: $(basename "$NH")), interleaved; load $(cut -d' ' -f1-3 /proc/loadavg)"
for w in bash:"Bash call" small:"Write of 20 lines" write:"Write of 1 MB" denied:"Write denied by its path"; do
    n=$RUNS
    [ "${w%%:*}" = write ] && n=$((RUNS / 2 + 1))
    # shellcheck disable=SC2086 # OH, NH: a program and maybe its `gate`
    res=$("$B" -n "$n" -w 5 -i "$tmp/${w%%:*}.json" -- $OH "$art" :: $NH "$art")
    line "${w#*:}, old" "$(echo "$res" | sed -n 1p)"
    line "${w#*:}, new" "$(echo "$res" | sed -n 2p)"
done
res=$("$B" -n "$RUNS" -w 5 -- "$O" --version :: "$N" --version :: /bin/true)
line "confpol --version, old" "$(echo "$res" | sed -n 1p)"
line "confpol --version, new" "$(echo "$res" | sed -n 2p)"
line "/bin/true" "$(echo "$res" | sed -n 3p)"
echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"

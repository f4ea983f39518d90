#!/bin/sh
# The gate hook on adversarial commands of nearly 1 MiB (the hook's input
# limit): the regex shapes that made regexec quadratic and inputs that make
# the shell reader work hardest, against the gate library plus those
# regexes, on the policy and on its artifact.  One hook call, process start
# included: median and maximum over RUNS runs, and the largest of all (the
# target: none above 100 ms on an idle machine; spec/gate.md,
# "Performance").  Figures only, no time is asserted.  With OLD_BUILD (a
# build directory of another tree holding a confpol), its calls run
# interleaved with this tree's, run by run, on the same inputs.
#   sh tests/bench/gate-adversarial.sh [RUNS [OLD_BUILD]]   (part of make bench-gate)
set -u
RUNS=${1:-11}
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
C="$top/$BUILD/confpol"
O=
[ $# -ge 2 ] && O=$(cd "$2" && pwd)/confpol
tmp=$(mktemp -d /tmp/confpol-bench-adv.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
B="$tmp/bench"
cc -O2 -std=c11 -Wall -Wextra -Werror -o "$B" "$top/tests/bench/bench.c" || exit 1
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
export CONFPOL_LIBRARY="$top/gates"
cat >"$tmp/adv.confpol" <<'P'
confpol 1
profile confined
include "<all>"
gate ask re"x+y"
gate ask re"curl.*[|].*sh"
gate deny re"(x|xx)+z"
gate ask re"(.*x){20}w"
gate ask re"(a|b)*a(a|b){12}v"
gate ask re"([[:alnum:]]+[[:space:]]*)+;"
P
"$C" build --target claude -o "$tmp" "$tmp/adv.confpol" >/dev/null 2>&1 ||
    { echo "cannot build the policy"; exit 1; }
echo "== 7. confpol gate on adversarial commands of 1,040,000 bytes (library + 6 regexes)"
echo "   $RUNS runs per input; load $(cut -d' ' -f1-3 /proc/loadavg)"
worst=0
n=0
# Each: the repeated text, then a tail.
for spec in "x|" "x|y" "ab|av" "curl |" "curl x |;| sh" "a b |;" '$(|' 'a;|' 'a|||' \
    '"$x" |' "\\' |" '${|' 'x{a,b} |' '<<E|' "sudo |" \
    "curl ~/.bashrcx*cron*/systemd/x |" \
    "curl abcdefghijklmnopqrstuvwxyz./_-:0123456789 |" \
    "tee abcdefghijklmnopqrstuvwxyz./_-0123456789 |" "cat <<E\nE\n^curl |"; do
    # "HEAD^REP|TAIL": HEAD once, then REP repeated
    rep=${spec%|*} tail=${spec##*|}
    n=$((n + 1))
    python3 -c 'import json, sys
n = 1040000
head, _, rep = sys.argv[1].rpartition("^")
head = head.replace("\\n", "\n")
c = head + (rep * n)[:n - len(head)] + sys.argv[2]
print(json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": c}}))' "$rep" "$tail" >"$tmp/in$n.json"
    if [ -n "$O" ]; then
        res=$("$B" -n "$RUNS" -w 1 -i "$tmp/in$n.json" -- "$O" gate "$tmp/adv.confpol" :: "$O" gate "$tmp/adv.claude.json" :: "$C" gate "$tmp/adv.confpol" :: "$C" gate "$tmp/adv.claude.json")
        labels="old-pol old-art policy artifact"
    else
        res=$("$B" -n "$RUNS" -w 1 -i "$tmp/in$n.json" -- "$C" gate "$tmp/adv.confpol" :: "$C" gate "$tmp/adv.claude.json")
        labels="policy artifact"
    fi
    i=0
    for label in $labels; do
        i=$((i + 1))
        r=$(echo "$res" | sed -n ${i}p)
        max=$(field max_ms "$r")
        printf '  %-9s median %8s ms  max %8s ms  (CPU median %s ms, max %s ms)  "%s" repeated, then "%s"\n' \
            "$label" "$(field median_ms "$r")" "$max" "$(field cpu_ms "$r")" \
            "$(field max_cpu_ms "$r")" "$rep" "$tail"
        case $label in old-*) continue ;; esac
        worst=$(python3 -c 'import sys; print(max(float(sys.argv[1]), float(sys.argv[2])))' "$worst" "$max")
    done
done
echo "  largest time of any call${O:+ of this tree}: $worst ms"

#!/bin/sh
# The diff benchmark (section 7 of `make bench`; no time is asserted):
# `confpol diff` of two generated policies (tests/bench/gen.py) that differ
# in one rule, for 1,000, 10,000 and 100,000 rules, three kinds of change
# each: a deny write under ${PROJECT} removed, an absolute deny read
# removed, a gate pattern added; and the same policy against itself.
# Median wall and CPU time of the whole command (both policies parsed and
# resolved, then compared), peak RSS, and the CPU growth between sizes.
#   diff.sh BENCH-BINARY [SIZES]
set -u
B=$1
SIZES=${2:-"1000 10000 100000"}
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
C="$top/$BUILD/confpol"
tmp=$(mktemp -d /tmp/confpol-diffbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$top/tests/bench/gen.py" "$tmp/p" $SIZES >/dev/null || exit 1
mkdir -p "$tmp/x"
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
printf '%9s %-22s | %8s %8s %7s %7s | %s\n' rules change wall_ms cpu_ms MiB growth changes
for change in same project-deny abs-deny-read gate-added; do
    prev=
    for n in $SIZES; do
        o="$tmp/p/$n" x="$tmp/x/$n-$change"
        rm -rf "$x"
        cp -r "$o" "$x"
        case $change in
        project-deny) sed -i '0,/^deny write ${PROJECT}\/u7\/vendor$/{//d}' "$x/part-0.confpol" ;;
        abs-deny-read) sed -i '0,/^deny read \/srv\/data\/u7$/{//d}' "$x/part-0.confpol" ;;
        gate-added) echo 'gate ask "terraform apply *"' >>"$x/part-0.confpol" ;;
        esac
        case $n in 1000) runs=11 ;; *) runs=5 ;; esac
        r=$("$B" -n $runs -w 1 -- "$C" diff "$o/main.confpol" "$x/main.confpol")
        # the summary line and the first witness (the change was found)
        w=$("$C" diff "$o/main.confpol" "$x/main.confpol" | head -n 1)
        got=$("$C" diff "$o/main.confpol" "$x/main.confpol" | tail -n 1)
        cpu=$(field cpu_ms "$r")
        g=-
        [ -n "$prev" ] && g=$(awk -v a="$cpu" -v b="$prev" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else printf "-" }')
        printf '%9s %-22s | %8s %8s %7s %7s | %s\n' "$n" "$change" "$(field median_ms "$r")" \
            "$cpu" "$(awk -v k="$(field rss_kb "$r")" 'BEGIN { printf "%.1f", k / 1024 }')" "$g" "$got${w:+; $w}"
        prev=$cpu
    done
done

#!/bin/sh
# The benchmark suite (`make bench`; figures in BENCHMARKS.md).  Prints
# figures only: no time is asserted anywhere.
#   1. generates policies of 10 .. 1,000,000 rules (tests/bench/gen.py)
#   2. times `confpol check` and `confpol build --target all` on each:
#      median wall time, peak RSS, growth factor between sizes; for 10
#      and 10,000 rules also build into an empty directory against build
#      over its own unchanged outputs
#   3. times confpol-run launching true, bare bwrap with the same argv and
#      a direct true, interleaved in one run; then (3b) the Landlock
#      enforcer against the bwrap enforcer and a direct true
#   4. counts the mounts of each generated policy's .bwrap artifact
#   5. times `confpol gate` answering one hook call, process start included
#   7. the gate corpora (gated / total per class, benign asked) and the
#      hook's latency for a Bash call and a 1 MB Write (tests/bench/gate-corpus.sh)
#   6. the network proxy: connection set-up, a 200 MB transfer against a
#      direct one, confpol run with an allow-list against net deny; (6b)
#      the relay alone, in-process (tests/bench/relay.c); (6c) a connect
#      to a named Unix socket through the supervisor (tests/bench/unixsock.sh)
#   7. times `confpol diff` of two policies that differ in one rule
#      (tests/bench/diff.sh)
# BENCH_SIZES="10 1000" overrides the sizes (for a quick run); BENCH_BUDGET
# (seconds, default 60) bounds the time spent on one slow size.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
C="$top/$BUILD/confpol"
R="$top/$BUILD/confpol-run"
SIZES=${BENCH_SIZES:-"10 1000 10000 100000 1000000"}
tmp=$(mktemp -d /tmp/confpol-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
B="$tmp/bench"
cc -O2 -std=c11 -Wall -Wextra -Werror -o "$B" "$top/tests/bench/bench.c" || exit 1

# field NAME LINE: the value of NAME=VALUE in a bench output line
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo "== machine"
echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "commit:  $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "cpu:     $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "memory:  $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "kernel:  $(uname -sr)"
echo "bwrap:   $(bwrap --version 2>/dev/null || echo missing)"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, at start)"
echo

echo "== 1. generate"
t0=$(date +%s)
python3 "$top/tests/bench/gen.py" "$tmp/p" $SIZES || exit 1
echo "generated $SIZES rules in $(($(date +%s) - t0)) s"
for n in $SIZES; do
    printf '  %8s rules: %s\n' "$n" "$(cat "$tmp/p/$n"/*.confpol | wc -c | awk '{ printf "%.1f MiB", $1 / 1048576 }')"
done
echo

# PROJECT is bound as a CI job would: with it unbound, a deny write of an
# absolute path may lie above a ${PROJECT} write root, and the bwrap
# backend must emit a mount for it.
P="$tmp/project"
mkdir -p "$P"
echo "== 2. check and build --target all -D PROJECT=DIR --expand-globs"
echo "   wall = median wall ms, cpu = median user+sys CPU ms of the process, MiB = peak RSS,"
echo "   growth = wall (and cpu) ratio to the previous size.  A size whose untimed build takes"
echo "   over ${BENCH_BUDGET:=60} s is timed once; after one over 4x that budget, larger sizes are skipped."
printf '%9s %4s | %10s %10s %7s %13s | %10s %10s %7s %13s | %s\n' rules runs check_wall check_cpu MiB growth build_wall build_cpu MiB growth notes
pc= pcc= pb= pbc= skip=
for n in $SIZES; do
    d="$tmp/p/$n" o="$tmp/o/$n"
    mkdir -p "$o"
    if [ -n "$skip" ]; then
        printf '%9s %4s | %s\n' "$n" - "skipped: $skip"
        continue
    fi
    case $n in
    10) runs=21 w=2 ;;
    1000) runs=11 w=1 ;;
    1000000) runs=3 w=0 ;;
    *) runs=5 w=0 ;;
    esac
    notes=
    # one untimed build: the artifacts for section 4, and the budget guard
    t0=$(date +%s)
    timeout $((BENCH_BUDGET * 4)) "$C" build --target all --expand-globs -D PROJECT="$P" -o "$o" "$d/main.confpol" >/dev/null 2>"$tmp/err"
    rc=$? el=$(($(date +%s) - t0))
    if [ $rc -eq 124 ]; then
        printf '%9s %4s | %s\n' "$n" 0 "build did not finish in $((BENCH_BUDGET * 4)) s (wall); not timed"
        skip="$n rules took over $((BENCH_BUDGET * 4)) s"
        continue
    fi
    [ $rc -eq 0 ] || notes="build fails: $(grep -m1 'error' "$tmp/err" | cut -c1-100);"
    if [ $el -ge "$BENCH_BUDGET" ]; then
        runs=1 w=0 notes="$notes untimed build ${el} s: 1 run;"
    fi
    c=$("$B" -n $runs -w $w -- "$C" check -D PROJECT="$P" "$d/main.confpol")
    b=$("$B" -n $runs -w $w -- "$C" build --target all --expand-globs -D PROJECT="$P" -o "$o" "$d/main.confpol")
    cm=$(field median_ms "$c") cc=$(field cpu_ms "$c") cr=$(field rss_kb "$c")
    bm=$(field median_ms "$b") bc=$(field cpu_ms "$b") br=$(field rss_kb "$b")
    [ "$(field fails "$c")" = 0 ] || notes="$notes check exit!=0;"
    gc=- gb=-
    if [ -n "$pc" ]; then
        gc="$(ratio "$cm" "$pc")x/$(ratio "$cc" "$pcc")x" gb="$(ratio "$bm" "$pb")x/$(ratio "$bc" "$pbc")x"
    fi
    printf '%9s %4s | %10s %10s %7s %13s | %10s %10s %7s %13s | %s\n' "$n" "$runs" "$cm" "$cc" "$(mib "$cr")" "$gc" "$bm" "$bc" "$(mib "$br")" "$gb" "$notes"
    pc=$cm pcc=$cc pb=$bm pbc=$bc
    if [ $el -ge $((BENCH_BUDGET * 4)) ]; then
        skip="$n rules took ${el} s"
    fi
done
echo

echo "== 2b. build --target all: into an empty directory vs over its own unchanged outputs (interleaved)"
for n in $SIZES; do
    case $n in 10|10000) ;; *) continue ;; esac
    d="$tmp/p/$n" e="$tmp/e/$n" o="$tmp/o/$n"
    mkdir -p "$e"
    r=$("$B" -n 11 -w 1 -p "rm -f '$e'/*" -- "$C" build --target all --expand-globs -D PROJECT="$P" -o "$e" "$d/main.confpol" \
        :: "$C" build --target all --expand-globs -D PROJECT="$P" -o "$o" "$d/main.confpol")
    r1=$(echo "$r" | sed -n 1p) r2=$(echo "$r" | sed -n 2p)
    printf '%9s rules: empty directory %8s ms wall (%s ms CPU) | unchanged outputs %8s ms wall (%s ms CPU)\n' "$n" \
        "$(field median_ms "$r1")" "$(field cpu_ms "$r1")" "$(field median_ms "$r2")" "$(field cpu_ms "$r2")"
done
echo

echo "== 4. mounts in the .bwrap artifact per generated policy"
for n in $SIZES; do
    if [ -f "$tmp/o/$n/main.bwrap" ]; then
        printf '%9s rules: %s\n' "$n" "$(python3 "$top/tests/bench/util.py" mounts "$tmp/o/$n/main.bwrap" "$tmp/p/$n/covered.txt" "$n" "$P" 2>&1)"
    else
        printf '%9s rules: no artifact\n' "$n"
    fi
done
echo

echo "== 3. launch: confpol-run vs bare bwrap (same argv) vs direct true (interleaved)"
# launch_fixture DIR: the launch policy's fixture under DIR, and its
# artifact DIR/o/launch.bwrap.  Every mount target exists, so bare bwrap
# needs no placeholder; HOME is a fixture too, and the builds run in
# PROJECT (DIR/proj, the current directory).
launch_fixture() {
    mkdir -p "$1/proj/out/keep" "$1/proj/.git" "$1/proj/secrets" "$1/scratch/ro" "$1/o" \
        "$1/home/.ssh" "$1/home/.config/confpol" || return 1
    cat >"$1/launch.confpol" <<EOF
confpol 1
profile confined
write \${PROJECT}/out
deny write \${PROJECT}/out/keep
deny write \${PROJECT}/.git
deny read ~/.ssh
deny read \${PROJECT}/secrets
write $1/scratch
deny write $1/scratch/ro
EOF
    (cd "$1/proj" && HOME="$1/home" "$C" build --target bwrap -o "$1/o" "$1/launch.confpol" >/dev/null 2>"$tmp/err")
}
# ll_vs_bwrap DIR WHERE: section 3b on the fixture under DIR.  The Landlock
# planner's rules grow with the entries of every directory on the way to a
# denied path (spec/runtime.md 12.9), so where the fixture lies matters:
# /tmp on a shared machine holds hundreds of entries, a user's home and
# /var/tmp a few dozen.  (--allow-unenforced: the launch policy has
# deny-read targets, whose metadata Landlock cannot hide; 12.2.)
ll_vs_bwrap() (
    cd "$1/proj" || exit 1
    export HOME="$1/home"
    A="$1/o/launch.bwrap"
    echo "-- the fixture under $2 ($(ls -A "$2" | wc -l) entries there)"
    if ! "$R" --enforcer landlock --allow-unenforced -q "$A" -- /bin/true >/dev/null 2>"$tmp/err"; then
        echo "the Landlock enforcer cannot launch here: $(head -c 300 "$tmp/err")"
        exit 0
    fi
    res=$("$B" -n 51 -w 3 -- "$R" --enforcer landlock --allow-unenforced -q "$A" -- /bin/true \
        :: "$R" --enforcer bwrap "$A" -- /bin/true :: /bin/true)
    r1=$(echo "$res" | sed -n 1p) r2=$(echo "$res" | sed -n 2p) r3=$(echo "$res" | sed -n 3p)
    echo "Landlock rules: $("$R" --enforcer landlock --allow-unenforced --dry-run "$A" | grep -c '^grant ')"
    printf '%-32s %9s ms wall (min %s), %7s ms CPU, fails %s\n' "confpol-run --enforcer landlock" "$(field median_ms "$r1")" "$(field min_ms "$r1")" "$(field cpu_ms "$r1")" "$(field fails "$r1")"
    printf '%-32s %9s ms wall (min %s), %7s ms CPU, fails %s\n' "confpol-run --enforcer bwrap" "$(field median_ms "$r2")" "$(field min_ms "$r2")" "$(field cpu_ms "$r2")" "$(field fails "$r2")"
    printf '%-32s %9s ms wall (min %s), %7s ms CPU, fails %s\n' "true" "$(field median_ms "$r3")" "$(field min_ms "$r3")" "$(field cpu_ms "$r3")" "$(field fails "$r3")"
    echo "ratio landlock / bwrap enforcer: $(ratio "$(field median_ms "$r1")" "$(field median_ms "$r2")")"
    echo "ratio landlock enforcer / true:  $(ratio "$(field median_ms "$r1")" "$(field median_ms "$r3")")"
)
L="$tmp/launch"
# BENCH_USER_DIR: where 3b's second fixture goes, a directory whose
# ancestors hold as many entries as a user's home does (default /var/tmp).
U_BASE=${BENCH_USER_DIR:-/var/tmp}
U=$(mktemp -d "$U_BASE/confpol-bench.XXXXXX") || U=
[ -n "$U" ] && trap 'rm -rf "$tmp" "$U"' EXIT INT TERM
if launch_fixture "$L" && (cd "$L/proj" && HOME="$L/home" "$C" build --target bwrap --format shell "$L/launch.confpol" >"$L/shell" 2>/dev/null) &&
    python3 "$top/tests/bench/util.py" argv "$L/shell" "$L/home" "$L/proj" >"$L/argv"; then
    echo "launch.confpol: $(grep -c '^\(write\|deny\)' "$L/launch.confpol") rules"
    (
    cd "$L/proj" || exit 1
    export HOME="$L/home"
    echo "bare bwrap argv: $(wc -l <"$L/argv") words, $(grep -c '^--\(bind\|ro-bind\|tmpfs\)$' "$L/argv") mounts"
    set --
    while IFS= read -r a; do set -- "$@" "$a"; done <"$L/argv"
    if ! "$@" /bin/true >/dev/null 2>"$tmp/err"; then
        echo "bare bwrap fails: $(head -c 300 "$tmp/err")"
    elif ! "$R" "$L/o/launch.bwrap" -- /bin/true >/dev/null 2>"$tmp/err"; then
        echo "confpol-run cannot launch here: $(head -c 300 "$tmp/err")"
    else
        res=$("$B" -n 31 -w 3 -- "$R" "$L/o/launch.bwrap" -- /bin/true :: "$@" /bin/true :: /bin/true)
        r1=$(echo "$res" | sed -n 1p) r2=$(echo "$res" | sed -n 2p) r3=$(echo "$res" | sed -n 3p)
        printf '%-22s %9s ms wall (min %s), %7s ms CPU, fails %s\n' "confpol-run ... true" "$(field median_ms "$r1")" "$(field min_ms "$r1")" "$(field cpu_ms "$r1")" "$(field fails "$r1")"
        printf '%-22s %9s ms wall (min %s), %7s ms CPU, fails %s\n' "bwrap ARGV true" "$(field median_ms "$r2")" "$(field min_ms "$r2")" "$(field cpu_ms "$r2")" "$(field fails "$r2")"
        printf '%-22s %9s ms wall (min %s), %7s ms CPU, fails %s\n' "true" "$(field median_ms "$r3")" "$(field min_ms "$r3")" "$(field cpu_ms "$r3")" "$(field fails "$r3")"
        echo "ratio confpol-run / bare bwrap: $(ratio "$(field median_ms "$r1")" "$(field median_ms "$r2")")"
        echo "ratio bare bwrap / true:        $(ratio "$(field median_ms "$r2")" "$(field median_ms "$r3")")"
    fi
    )
    echo
    echo "== 3b. launch: the Landlock enforcer vs the bwrap enforcer vs direct true (same artifact, interleaved)"
    ll_vs_bwrap "$L" /tmp
    if [ -n "$U" ] && launch_fixture "$U"; then
        ll_vs_bwrap "$U" "$U_BASE"
    else
        echo "-- no fixture under $U_BASE: $(head -c 300 "$tmp/err")"
    fi
else
    echo "cannot build the launch artifact: $(grep -m1 error "$tmp/err" | cut -c1-200)"
fi
echo

echo "== 5. confpol gate: one hook call, process start included (interleaved)"
G="$tmp/gate"
mkdir -p "$G/o"
python3 -c 'import json; print(json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force origin main", "description": "push"}}))' >"$G/ask.json"
python3 -c 'import json; print(json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "make -j2 && ./run-tests --verbose | tee log.txt", "description": "test"}}))' >"$G/allow.json"
ex="$top/examples/agentteams-confined.confpol"
"$C" build --target claude --expand-globs -o "$G/o" "$ex" >/dev/null 2>&1 || echo "note: cannot build the example's .claude.json"
art="$G/o/agentteams-confined.claude.json"
for input in allow ask; do
    res=$("$B" -n 51 -w 3 -i "$G/$input.json" -- "$C" gate "$ex" :: "$C" gate "$art" :: "$C" gate "$top/tests/gate/seed-gates.confpol" :: "$C" --version :: /bin/true)
    i=0
    for label in "gate example policy" "gate example artifact" "gate seed-gates.confpol" "confpol --version" "true"; do
        i=$((i + 1))
        r=$(echo "$res" | sed -n ${i}p)
        printf '%-6s %-24s %8s ms wall (min %s), %7s ms CPU, peak RSS %s MiB, fails %s\n' "$input" "$label" "$(field median_ms "$r")" "$(field min_ms "$r")" "$(field cpu_ms "$r")" "$(mib "$(field rss_kb "$r")")" "$(field fails "$r")"
    done
done
# the same work inside one process: what remains without process start
if cc -O2 -std=c11 -D_GNU_SOURCE -I"$top/util" -I"$top/compiler" -I"$top/hook" -I"$top/runtime" \
    -o "$tmp/gate_inproc" "$top/tests/bench/gate_inproc.c" "$top/$BUILD/libconfpol.a" \
    2>"$tmp/err"; then
    for cmd in "make -j2 && ./run-tests --verbose | tee log.txt" "git push --force origin main"; do
        r=$("$tmp/gate_inproc" 201 "$art" "$cmd")
        printf 'in-process (no process start), example artifact, %-5s %8s ms (min %s)\n' \
            "$(field verdict "$r"):" "$(field median_ms "$r")" "$(field min_ms "$r")"
    done
else
    echo "cannot build tests/bench/gate_inproc.c: $(head -c 200 "$tmp/err")"
fi
echo
BUILD="$BUILD" sh "$top/tests/bench/gate.sh" "$B"
echo
BUILD="$BUILD" sh "$top/tests/bench/gate-corpus.sh" "$B"
echo
echo "== 6. network: the filtering proxy (spec/runtime.md 14)"
mkdir -p "$tmp/net"
python3 "$top/tests/bench/net.py" "$C" "$tmp/net" || echo "network benchmark failed"
echo
echo "== 6b. the relay alone: 200 MB through cp_rt_relay between loopback TCP connections"
echo "   against the same bytes over one connection (medians of 5; relay_cpu_ms: the relay thread)"
if cc -O2 -std=c11 -pthread -Wall -Wextra -Werror -I"$top/runtime" -I"$top/util" -I"$top/compiler" \
    -o "$tmp/relay" "$top/tests/bench/relay.c" "$top/$BUILD/libconfpol.a" 2>"$tmp/err"; then
    "$tmp/relay" 200 5 || echo "relay benchmark failed"
else
    echo "relay benchmark not built: $(head -n 1 "$tmp/err")"
fi
echo
echo "== 6c. a supervised connect to a named Unix socket (spec/runtime.md 14.5)"
sh "$top/tests/bench/unixsock.sh" "$C" || echo "Unix socket benchmark failed"
echo
echo "== 7. confpol diff of two policies that differ in one rule (tests/bench/diff.sh)"
BUILD="$BUILD" sh "$top/tests/bench/diff.sh" "$B" "$(echo "$SIZES" | tr ' ' '\n' | awk '$1 >= 1000 && $1 <= 100000' | tr '\n' ' ')"
echo
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, at end)"

#!/bin/sh
# SPDX-License-Identifier: MIT
# libFuzzer smoke run: `BUILD=build-fuzz sh tests/fuzz/run.sh [SECONDS]`
# (make fuzz FUZZ_SECONDS=N).  Builds the library with clang and
# -fsanitize=fuzzer-no-link,address,undefined into $BUILD, links each
# tests/fuzz/fuzz_*.c harness with -fsanitize=fuzzer, replays the committed
# regression inputs (tests/fuzz/regressions/NAME/), then runs each harness
# for SECONDS (default 60) on a corpus seeded from examples/ and tests/.
# Fails on any crash, leak, timeout or out-of-memory; the input that caused
# it is kept under $BUILD/fuzz/artifacts-NAME/ and printed.
#
# FUZZ_JOBS (default 2) harnesses run side by side.  The corpora under
# $BUILD/fuzz/corpus-NAME/ persist between runs (they are never committed).
set -u
SECS=${1:-60}
BUILD=${BUILD:-build-fuzz}
FUZZ_JOBS=${FUZZ_JOBS:-2}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
out="$top/$BUILD/fuzz"
mkdir -p "$out" || exit 2

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
FLAGS="-O1 -g -fno-omit-frame-pointer $SAN"
echo "== building the library with clang -fsanitize=fuzzer-no-link,address,undefined"
make -s BUILD="$BUILD" CC=clang CFLAGS="$FLAGS -fsanitize=fuzzer-no-link" \
    LDFLAGS="$SAN" RUN_LDFLAGS= "$BUILD/libconfpol.a" "$BUILD/confpol" || exit 2

# Artifacts of the examples seed the artifact, gate and settings harnesses.
built="$out/examples-built"
rm -rf "$built" && mkdir -p "$built"
for f in examples/*.confpol; do
    "$BUILD/confpol" build --target all --expand-globs -o "$built" "$f" \
        >/dev/null 2>&1 || echo "note: cannot build $f for the seeds"
done

WARN="-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wswitch-enum -Werror"
harnesses=""
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    name=${name#fuzz_}
    echo "== linking fuzz_$name"
    # shellcheck disable=SC2086
    clang -std=c11 $WARN $FLAGS -fsanitize=fuzzer -D_GNU_SOURCE \
        -I"$BUILD/grammar" -Iutil -Icompiler -Ibackends -Iruntime -Ihook -Isettings \
        -o "$out/fuzz_$name" "$src" "$BUILD/libconfpol.a" || exit 2
    harnesses="$harnesses $name"
done

# Seeds: each harness takes the files its input format matches.
seed() { # NAME DIR
    rm -rf "$2" && mkdir -p "$2"
    case $1 in
    compile)
        find examples tests -name '*.confpol' -size -64k -type f ;;
    gate)
        find tests -path tests/fuzz/regressions -prune -o -name '*.json' \
            -size -16k -type f -print
        find "$built" -name '*.claude.json'
        find tests/fuzz/seeds/gate -type f 2>/dev/null ;;
    settings)
        find tests -path tests/fuzz/regressions -prune -o -name '*.json' \
            -size -64k -type f -print
        find "$built" -name '*.claude.json'
        find tests/fuzz/seeds/settings -type f 2>/dev/null ;;
    artifact)
        # Whole artifacts, and the same without the trailer (the harness
        # appends a valid one, so mutations reach past the digest).
        for f in "$built"/*.bwrap; do
            [ -f "$f" ] || continue
            echo "$f"
            python3 -c 'import sys; d=open(sys.argv[1],"rb").read().split(b"\0"); open(sys.argv[2],"wb").write(b"\0".join(d[:-4])+b"\0")' \
                "$f" "$f.body" && echo "$f.body"
        done
        find tests -name '*.bwrap' -size -64k -type f ;;
    *)
        find "tests/fuzz/seeds/$1" -type f 2>/dev/null ;;
    esac | sort | while IFS= read -r f; do
        cp "$f" "$2/$(printf '%s' "${f#"$out"/}" | tr '/' '_')"
    done
}

maxlen() {
    case $1 in
    compile | artifact | settings) echo 16384 ;;
    *) echo 8192 ;;
    esac
}

fail=0
# Regressions first: every committed input must run clean.
for name in $harnesses; do
    reg="$top/tests/fuzz/regressions/$name"
    [ -d "$reg" ] || continue
    files=$(find "$reg" -type f ! -name '*.md' | sort)
    [ -n "$files" ] || continue
    echo "== replaying $(echo "$files" | wc -l) regression inputs for fuzz_$name"
    # shellcheck disable=SC2086
    if ! "$out/fuzz_$name" -runs=1 $files >"$out/replay-$name.log" 2>&1; then
        tail -n 40 "$out/replay-$name.log"
        echo "FAIL: fuzz_$name regression replay"
        fail=1
    fi
done

run_one() { # NAME
    name=$1
    corpus="$out/corpus-$name"
    seeds="$out/seeds-$name"
    arts="$out/artifacts-$name"
    mkdir -p "$corpus" "$arts"
    seed "$name" "$seeds"
    dict=""
    [ -f "tests/fuzz/$name.dict" ] && dict="-dict=$top/tests/fuzz/$name.dict"
    # shellcheck disable=SC2086
    "$out/fuzz_$name" "$corpus" "$seeds" $dict \
        -max_total_time="$SECS" -max_len="$(maxlen "$name")" -timeout=25 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$arts/" </dev/null >"$out/run-$name.log" 2>&1
    echo $? >"$out/rc-$name"
}

echo "== fuzzing $SECS s per harness:$harnesses (FUZZ_JOBS=$FUZZ_JOBS)"
n=0
for name in $harnesses; do
    run_one "$name" &
    n=$((n + 1))
    if [ "$n" -ge "$FUZZ_JOBS" ]; then
        wait
        n=0
    fi
done
wait

for name in $harnesses; do
    rc=$(cat "$out/rc-$name" 2>/dev/null || echo 99)
    log="$out/run-$name.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    ncorp=$(find "$out/corpus-$name" -type f | wc -l)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    printf 'fuzz_%s: exit %s, %s executions (%s/s), corpus %s files, %s\n' \
        "$name" "$rc" "${execs:-?}" "${speed:-?}" "$ncorp" "${cov:-cov: ?}"
    if [ "$rc" != 0 ]; then
        fail=1
        grep -E 'ERROR|SUMMARY|Test unit written|fuzz_[a-z]+:' "$log" | head -n 20
        tail -n 60 "$log"
        echo "FAIL: fuzz_$name; the input is in $out/artifacts-$name/;"
        echo "      add it under tests/fuzz/regressions/$name/ with the fix"
    fi
done
[ $fail -eq 0 ] && echo "fuzz: all harnesses clean"
exit $fail

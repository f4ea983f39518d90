#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the unit tests and every shell test against a sanitizer build
# (make check-asan: BUILD=build-asan, clang -fsanitize=address,undefined).
# Reports go to log files under $BUILD/sanitizer-logs, so a report fails the
# run even where a test only looks at an exit status; any log file left
# behind is printed and fails the run.
set -u
BUILD=${BUILD:-build-asan}
top=$(cd "$(dirname "$0")/.." && pwd)
logs="$top/$BUILD/sanitizer-logs"
rm -rf "$logs" && mkdir -p "$logs" || exit 2

# exitcode=99: never confusable with confpol's own 0/1/2 or a command's.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=99:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=99:log_path=$logs/ubsan"
export LSAN_OPTIONS="exitcode=99:log_path=$logs/lsan"
# Tests that cap memory with `ulimit -v` cannot do so under ASan (it reserves
# terabytes of shadow address space); they read this to skip only the cap.
export CONFPOL_SANITIZER=asan
# Tests that link helpers against $BUILD/libconfpol.a use ${CC:-cc}: the
# sanitizer runtimes must be linked in too.
export CC="clang -fsanitize=address,undefined"

# Sanitized code runs several times slower than Check's 4 s default allows.
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10}

rc=0
echo "== unit tests (ASan+UBSan, Check fork mode)"
# Check's own timeouts bound each test; this bounds the run as a whole.
timeout -k 10 "${UNIT_TIMEOUT:-1800}" "$top/$BUILD/unit-tests" || rc=1
echo "== shell tests (ASan+UBSan)"
BUILD=$BUILD sh "$top/tests/run.sh" || rc=1

found=$(find "$logs" -type f | sort)
if [ -n "$found" ]; then
    echo "sanitizer reports:"
    for f in $found; do
        echo "---- $f"
        head -n 80 "$f"
    done
    rc=1
else
    echo "sanitizers: no reports"
fi
exit $rc

#!/bin/sh
# SPDX-License-Identifier: MIT
# clang-tidy with the checked-in .clang-tidy (the check set and the reason
# for every disabled check) on every C file of the rooms, compiled with the
# build's flags (LINT_CFLAGS, passed by `make lint`), JOBS files at a time,
# each within LINT_FILE_TIMEOUT seconds (a file over it counts as failed).
# Prints the findings; fails on any.  Needs the generated parser headers.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
cd "$TOP" || exit 1
command -v clang-tidy >/dev/null 2>&1 || { echo "clang-tidy is not installed (sh .ci/deps.sh lint)"; exit 1; }
[ -f "$BUILD/grammar/parser.h" ] || { echo "clang-tidy: $BUILD/grammar/parser.h not built"; exit 1; }
[ -n "${LINT_CFLAGS:-}" ] || { echo "clang-tidy: LINT_CFLAGS is not set (run it through make lint)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# One output file per source, so that parallel runs do not interleave;
# --quiet drops the "N warnings generated" chatter.
ls util/*.c compiler/*.c backends/*.c runtime/*.c hook/*.c settings/*.c cli/*.c |
    LINT_OUT="$tmp" xargs -P"${JOBS:-2}" -n1 sh -c '
        out="$LINT_OUT/$(printf %s "$1" | tr / _)"
        timeout -k 5 "${LINT_FILE_TIMEOUT:-300}" clang-tidy --quiet "$1" -- $LINT_CFLAGS \
            > "$out" 2>&1 || echo "$1" > "$out.failed"' sh
found=$(cat "$tmp"/*.c 2>/dev/null | grep -E '(warning|error):' | sed "s|^$TOP/||" | sort -u)
failed=$(cat "$tmp"/*.failed 2>/dev/null | tr '\n' ' ')
if [ -n "$failed" ] || [ -n "$found" ]; then
    [ -z "$found" ] || printf '%s\n' "$found"
    echo "clang-tidy: $(printf '%s' "$found" | grep -c .) finding(s); failed (findings, errors or over the time limit): $failed"
    exit 1
fi
echo "clang-tidy: clean"

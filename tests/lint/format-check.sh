#!/bin/sh
# SPDX-License-Identifier: MIT
# `make format-check`: fails when `make format` (clang-format with the
# checked-in .clang-format) would change any line of a C file in git.
# Prints, per file, how many lines would change, and the total.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
command -v clang-format >/dev/null 2>&1 || { echo "clang-format is not installed (sh .ci/deps.sh lint)"; exit 1; }
total=0 files=0
for f in $(git ls-files '*.c' '*.h'); do
    n=$(clang-format --style=file "$f" | diff -U0 "$f" - | grep -c '^-[^-]')
    [ "$n" -gt 0 ] || continue
    echo "$f: $n line(s)"
    total=$((total + n)) files=$((files + 1))
done
[ "$total" -eq 0 ] && { echo "format-check: clean"; exit 0; }
echo "format-check: make format would change $total line(s) in $files file(s)"
exit 1

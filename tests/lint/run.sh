#!/bin/sh
# SPDX-License-Identifier: MIT
# `make lint`: every check of spec/architecture.md "Checks", in order;
# each prints what it finds, and the run fails if any failed.  The
# include-rule test runs here (tests/lint/include-rules.sh) until the tree
# meets it.  LINT_ONLY="complexity include-rules" runs a subset.
# LINT_TIMEOUT bounds each part (seconds; clang-tidy's static analyzer
# takes about 4 CPU-minutes, 2 to 3 minutes on an idle 2-core machine).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
failed=""
for t in ${LINT_ONLY:-complexity cppcheck clang-tidy include-rules}; do
    start=$(date +%s)
    echo "== lint: $t"
    timeout -k 10 "${LINT_TIMEOUT:-1800}" sh "$TOP/tests/lint/$t.sh" || failed="$failed $t"
    echo "== lint: $t: $(( $(date +%s) - start )) s"
done
[ -z "$failed" ] && { echo "lint: all passed"; exit 0; }
echo "lint: failed:$failed"
exit 1

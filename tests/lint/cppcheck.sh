#!/bin/sh
# SPDX-License-Identifier: MIT
# cppcheck over the C rooms with the build's include path and defines:
# --enable=warning,performance,portability (style is clang-format's and
# clang-tidy's job; "information" is about cppcheck's own configuration).
# Every finding fails.  Suppressions, each with its reason:
# tests/lint/cppcheck.supp; what cppcheck cannot infer (noreturn):
# tests/lint/confpol.cfg.  Needs the generated parser headers (BUILD).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
cd "$TOP" || exit 1
command -v cppcheck >/dev/null 2>&1 || { echo "cppcheck is not installed (sh .ci/deps.sh lint)"; exit 1; }
[ -f "$BUILD/grammar/parser.h" ] || { echo "cppcheck: $BUILD/grammar/parser.h not built"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' tests/lint/cppcheck.supp | grep . > "$tmp/supp"
# -D__x86_64__ -D__linux__: the one configuration the build targets (the
# seccomp code selects its AUDIT_ARCH by architecture and has an #error
# for the rest); naming it also spares cppcheck every #ifdef combination.
cppcheck -j"${JOBS:-2}" --quiet --std=c11 --platform=unix64 \
    --enable=warning,performance,portability --inline-suppr \
    --library=tests/lint/confpol.cfg --suppressions-list="$tmp/supp" \
    --error-exitcode=1 -D_GNU_SOURCE -D__linux__ -D__x86_64__ \
    -I"$BUILD/grammar" -Iutil -Icompiler -Ibackends -Iruntime -Ihook -Isettings -Icli \
    --template='{file}:{line}: {severity}: {message} [{id}]' \
    util compiler backends runtime hook settings cli

#!/bin/sh
# SPDX-License-Identifier: MIT
# Cyclomatic complexity of every function of the C rooms, as pmccabe
# measures it (its first column: McCabe's number with a switch counted
# once per case), over util/ compiler/ backends/ runtime/ hook/ settings/
# cli/ (not tests/, not the generated parser and lexer).  Prints the
# figures and the offenders; fails when more than LINT_MAX_PCT percent
# (4) of the functions are above LINT_LIMIT (20) or any function is above
# LINT_HARD (40).  LINT_REPORT_ONLY=1 prints the same and exits 0.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
command -v pmccabe >/dev/null 2>&1 || { echo "pmccabe is not installed (sh .ci/deps.sh lint)"; exit 1; }
LIMIT=${LINT_LIMIT:-20} HARD=${LINT_HARD:-40} MAX_PCT=${LINT_MAX_PCT:-4}
files=$(ls util/*.c compiler/*.c backends/*.c runtime/*.c hook/*.c settings/*.c cli/*.c 2>/dev/null)
out=$(pmccabe $files) || { echo "pmccabe failed"; exit 1; }
# pmccabe: complexity, traditional complexity, statements, first line,
# lines, "file(line): function".
printf '%s\n' "$out" | awk -F '\t' -v limit="$LIMIT" -v hard="$HARD" -v maxpct="$MAX_PCT" \
    -v only="${LINT_REPORT_ONLY:-}" '
    NF >= 6 {
        n++; c = $1 + 0; loc = $6
        if (c > limit) { above++; off[above] = sprintf("%4d  %s", c, loc) }
        if (c > hard) over++
        if (c > max) { max = c; maxloc = loc }
    }
    END {
        if (n == 0) { print "complexity: no functions measured"; exit 1 }
        pct = 100 * above / n
        printf "complexity: %d functions, %d above %d (%.1f%%, limit %d%%), %d above %d (limit 0), the largest %d (%s)\n", \
            n, above, limit, pct, maxpct, over, hard, max, maxloc
        if (above) {
            print "functions above " limit ":"
            cmd = "sort -rn"
            for (i = 1; i <= above; i++) print off[i] | cmd
            close(cmd)
        }
        fail = (pct > maxpct || over > 0)
        if (fail && only != "") { print "complexity: over the limits (LINT_REPORT_ONLY: not failing)"; exit 0 }
        if (fail) print "complexity: over the limits"
        exit fail
    }'

#!/bin/sh
# SPDX-License-Identifier: MIT
# The include rules of spec/architecture.md ("Who may include whom"): every
# #include of a project header in a room's sources must be allowed by the
# rule table there (the fenced `include-rules` block, read from the spec
# itself so that the two cannot drift).  A header is mapped to its room by
# its file name, which is unique across rooms (checked here too); <...>
# includes of names that are not project headers are libc and ignored.
# The checker first runs on a small tree of its own with one known
# violation and must catch it, so a broken checker cannot pass.
# Exit 0: no violation; 1: violations (printed one a line) or a broken table.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ROOMS="util grammar compiler backends runtime hook settings cli"

# rules SPEC: the lines of the include-rules block.
rules() {
    awk '/^```include-rules$/ { on = 1; next } on && /^```/ { exit } on && NF { print }' "$1"
}

# check ROOT SPEC: prints every violation in the tree at ROOT.
check() {
    root=$1 spec=$2
    tab=$(rules "$spec")
    [ -n "$tab" ] || { echo "$spec: no include-rules block"; return 1; }
    # "H name room" for every header, then "I file line room name" for
    # every include line; awk matches the two against the table.
    {
        printf '%s\n' "$tab" | sed 's/^/R /'
        for r in $ROOMS; do
            [ -d "$root/$r" ] || continue
            for h in "$root/$r"/*.h "$root/$r"/*.def; do
                [ -f "$h" ] && echo "H ${h##*/} $r"
            done
        done
        # Headers the build generates from grammar/ (build/grammar/).
        echo "H parser.h grammar"; echo "H lexer.h grammar"
        for r in $ROOMS; do
            [ -d "$root/$r" ] || continue
            for f in "$root/$r"/*.c "$root/$r"/*.h "$root/$r"/*.l "$root/$r"/*.y "$root/$r"/*.def; do
                [ -f "$f" ] || continue
                awk -v f="$r/${f##*/}" -v r="$r" '
                    /^[ \t]*#[ \t]*include[ \t]*["<]/ {
                        s = $0; sub(/^[^"<]*["<]/, "", s); sub(/[">].*$/, "", s)
                        q = ($0 ~ /include[ \t]*"/) ? "q" : "a"
                        print "I", f, FNR, r, s, q
                    }' "$f"
            done
        done
    } | awk '
        $1 == "R" && $2 == "public" { for (i = 4; i <= NF; i++) pub[$3 SUBSEP $i] = 1; next }
        $1 == "R" { known[$2] = 1; for (i = 3; i <= NF; i++) may[$2 SUBSEP $i] = 1; next }
        $1 == "H" {
            if (($2 in room) && room[$2] != $3) { print "header name " $2 " is in both " room[$2] "/ and " $3 "/"; bad++ }
            room[$2] = $3; next
        }
        $1 == "I" {
            file = $2; line = $3; from = $4; name = $5; n = split(name, p, "/"); base = p[n]
            if (!(from in known)) { print file ": room " from " has no rule"; bad++; next }
            if (!(base in room)) {
                if ($6 == "q") { print file ":" line ": includes \"" name "\", which is no header of any room"; bad++ }
                next
            }
            to = room[base]
            if (to == from || ((from SUBSEP to) in may)) next
            if (((from SUBSEP to ".public") in may) && ((to SUBSEP base) in pub)) next
            why = ((from SUBSEP to ".public") in may) ? " (not a public header of " to "/)" : ""
            print file ":" line ": " from "/ includes " base " from " to "/" why; bad++
        }
        END { exit bad > 0 }'
}

# Self-test: a tree where util/ includes a compiler header must fail, and
# the same tree without that line must pass.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/util" "$tmp/compiler"
: > "$tmp/util/arena.h"; : > "$tmp/compiler/policy.h"
printf '#include "arena.h"\n#include <stdio.h>\n#include "policy.h"\n' > "$tmp/util/arena.c"
out=$(check "$tmp" "$TOP/spec/architecture.md")
[ "$out" = "util/arena.c:3: util/ includes policy.h from compiler/" ] ||
    { echo "include-rules self-test: the known violation was not reported as expected:"; echo "$out"; exit 1; }
printf '#include "arena.h"\n' > "$tmp/util/arena.c"
out=$(check "$tmp" "$TOP/spec/architecture.md") ||
    { echo "include-rules self-test: a clean tree failed:"; echo "$out"; exit 1; }

out=$(check "$TOP" "$TOP/spec/architecture.md") && exit 0
printf '%s\n' "$out"
echo "include rules: $(printf '%s\n' "$out" | wc -l) violation(s) of spec/architecture.md"
exit 1

#!/bin/sh
# SPDX-License-Identifier: MIT
# 100,000 included files, each with one rule, are resolved in linear time:
# the set of source files is a hash table (a scan of the list per include
# took 19 s of CPU here).  The bound is CPU time, 5 s, against about 0.4 s.
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fail() { echo "not ok - $*"; exit 1; }
mkdir d || exit 1
awk 'BEGIN {
    print "confpol 1\nprofile confined" > "main.confpol"
    for (i = 1; i <= 100000; i++) {
        f = "d/" i ".confpol"
        printf "confpol 1\nwrite /tmp/inc/%d\n", i > f
        close(f)
        printf "include \"%s\"\n", f > "main.confpol"
    }
}' || fail "cannot write the files"
# user+system CPU seconds of the child, as times(1) reports after it
timeout 120 sh -c '"$1" check main.confpol >out.txt 2>&1; echo $? >rc.txt; times >times.txt' \
    sh "$CONFPOL" || fail "check took more than 120 s"
[ "$(cat rc.txt)" = 0 ] || fail "check failed: $(head -5 out.txt)"
[ -s out.txt ] && fail "check printed: $(head -5 out.txt)"
cpu=$(awk 'NR == 2 { u = $1; s = $2; sub(/m/, " ", u); sub(/s$/, "", u); sub(/m/, " ", s); sub(/s$/, "", s);
    split(u, a, " "); split(s, b, " "); print a[1] * 60 + a[2] + b[1] * 60 + b[2] }' times.txt)
awk -v c="$cpu" 'BEGIN { exit !(c < 5) }' || fail "100,000 includes took $cpu s of CPU"
echo "ok - 100,000 includes in $cpu s of CPU"

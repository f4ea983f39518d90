#!/bin/sh
# SPDX-License-Identifier: MIT
# build -o DIR killed by SIGKILL (no chance to clean up) leaves a temporary
# file; the next build of the same policy into DIR removes it, under DIR's
# lock, and nothing else: not another policy's, not a name that only looks
# alike, not a symlink or a directory.  Builds into one DIR at once take
# turns and all succeed.
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fail() { echo "not ok - $*"; exit 1; }
mkdir out
# A policy large enough that its outputs take a while to write.
awk 'BEGIN { print "confpol 1\nprofile confined"
    for (i = 0; i < 150000; i++) printf "write /srv/w%d\ndeny write /srv/w%d/.git\n", i, i }' >p.confpol
# 1. Kill real builds until one leaves a temporary file (bounded).
left=""
for d in 0.5 0.8 1.1 0.3 0.6 0.9 1.2 1.5 0.4 0.7 1.0 1.3 1.8 2.2 2.6 3.0; do
    "$CONFPOL" build --target sbpl --target claude -o out p.confpol >/dev/null 2>&1 &
    pid=$!
    sleep "$d"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    left=$(ls out | grep '\.tmp\.\|\.bak\.')
    [ -n "$left" ] && break
    rm -f out/*
done
if [ -n "$left" ]; then
    timeout 120 "$CONFPOL" build --target sbpl --target claude -o out p.confpol >/dev/null 2>err.txt ||
        fail "build: $(cat err.txt)"
    rest=$(ls out | grep '\.tmp\.\|\.bak\.')
    [ -z "$rest" ] || fail "a build killed by SIGKILL left '$left'; the next build left '$rest'"
    echo "ok - the temporary file of a killed build ($left) is removed by the next build"
else
    echo "# no kill landed while a temporary file existed; the planted files below stand for it"
fi
# 2. Planted leftovers: ours go, the look-alikes stay.
printf 'confpol 1\nprofile confined\nwrite /srv\n' >q.confpol
rm -rf out && mkdir out out/q.sb.tmp.Dd0000 || exit 1
echo secret >outside
for f in q.sb.tmp.Ab12Cd q.bwrap.tmp.zZ9y8X q.claude.json.bak.Qq1234; do echo x >"out/$f"; done
for f in q.sb.tmp.abc q.sb.tmp.Ab12Cd.keep p.sb.tmp.Ab12Cd q.sbx.tmp.Ab12Cd q.tmp.Ab12Cd qq.sb.tmp.Ab12Cd; do
    echo keep >"out/$f"
done
ln -s ../outside out/q.bwrap.bak.Ll5555
timeout 60 "$CONFPOL" build --target all -o out q.confpol >/dev/null 2>err.txt || fail "build: $(cat err.txt)"
for f in q.sb.tmp.Ab12Cd q.bwrap.tmp.zZ9y8X q.claude.json.bak.Qq1234; do
    [ -e "out/$f" ] && fail "the stale temporary file $f is still there"
done
for f in q.sb.tmp.abc q.sb.tmp.Ab12Cd.keep p.sb.tmp.Ab12Cd q.sbx.tmp.Ab12Cd q.tmp.Ab12Cd qq.sb.tmp.Ab12Cd \
    q.bwrap.bak.Ll5555 q.sb.tmp.Dd0000; do
    [ -e "out/$f" ] || [ -L "out/$f" ] || fail "the build removed $f, not its own"
done
[ "$(cat outside)" = secret ] || fail "the file behind a symlink changed"
echo "ok - a build removes its own stale temporary files and nothing else"
# 3. Concurrent builds into one DIR take turns.
rm -rf out && mkdir out
pids=""
for i in 1 2 3 4; do
    timeout 120 "$CONFPOL" build --target all -o out q.confpol >/dev/null 2>"err$i.txt" &
    pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "a concurrent build failed: $(cat err*.txt)"; done
[ "$(ls out | wc -l)" -eq 3 ] || fail "concurrent builds left: $(ls out)"
echo "ok - concurrent builds into one directory all succeed"

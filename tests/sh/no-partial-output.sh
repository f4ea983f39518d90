#!/bin/sh
# SPDX-License-Identifier: MIT
# No partial output: on every error path of `confpol build -o DIR`, DIR is
# byte-for-byte unchanged afterwards (names, types, modes, sizes, contents;
# no temporary file left), and on success every artifact is new.
#   - a policy error, and a backend error on one target of --target all;
#   - an output name that is taken by a directory (the last target's);
#   - a read-only DIR (a read-only bind mount: root ignores modes);
#   - a full DIR (a small tmpfs, filled to every possible level, so that
#     some artifacts fit and the next does not);
#   - SIGINT, SIGTERM and SIGHUP at many points of a long build.
# Needs root for the mounts; skips (77) without it.
set -u
: "${CONFPOL:?}" "${TOP:?}"
[ "$(id -u)" = 0 ] || { echo "needs root for the read-only and tmpfs mounts"; exit 77; }
tmp=$(mktemp -d) || exit 2
mounts=""
cleanup() {
    for m in $mounts; do umount "$m" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail=0

# snap DIR: a listing that changes when anything in DIR does.
snap() {
    (cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort &&
        find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}
# expect_unchanged WHAT DIR BEFORE-FILE
expect_unchanged() {
    snap "$2" >"$tmp/after"
    if ! cmp -s "$3" "$tmp/after"; then
        fail=1
        echo "FAIL: $1: the output directory changed"
        diff "$3" "$tmp/after" | head -n 20
    fi
}
# seed DIR [STEM]: old artifacts that an aborted build must leave alone.
seed() {
    mkdir -p "$1"
    for s in sb bwrap claude.json; do
        printf 'old %s artifact\n' "$s" >"$1/${2:-p}.$s"
    done
    printf 'unrelated\n' >"$1/keep.txt"
}

good="$tmp/p.confpol"
cat >"$good" <<'EOF'
# a policy every target accepts
confpol 1
profile confined
write /srv/data
deny write /srv/data/keys
deny read /srv/secret
gate ask "git push --force *"
EOF

# ---- policy error ----------------------------------------------------------
mkdir -p "$tmp/bad"
printf 'confpol 1\nprofile confined\nwrite relative/path\n' >"$tmp/bad/p.confpol"
seed "$tmp/o1"
snap "$tmp/o1" >"$tmp/before"
"$CONFPOL" build --target all -o "$tmp/o1" "$tmp/bad/p.confpol" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || { fail=1; echo "FAIL: policy error: exit $rc, expected 1"; }
expect_unchanged "policy error" "$tmp/o1" "$tmp/before"

# ---- one target refuses (SBPL cannot spell a control character) ------------
mkdir -p "$tmp/ctl"
printf 'confpol 1\nprofile confined\nwrite "/srv/a\\x0ab"\n' >"$tmp/ctl/p.confpol"
seed "$tmp/o2"
snap "$tmp/o2" >"$tmp/before"
"$CONFPOL" build --target all -o "$tmp/o2" "$tmp/ctl/p.confpol" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
    # Every target accepted it: then every artifact must be new.
    for s in sb bwrap claude.json; do
        grep -q '^old ' "$tmp/o2/p.$s" && { fail=1; echo "FAIL: backend case: p.$s not rewritten"; }
    done
else
    [ $rc -eq 1 ] || { fail=1; echo "FAIL: backend error: exit $rc, expected 1"; }
    expect_unchanged "backend error on one target" "$tmp/o2" "$tmp/before"
fi

# ---- an output name taken by a directory -----------------------------------
for s in sb bwrap claude.json; do
    seed "$tmp/o3$s"
    rm -f "$tmp/o3$s/p.$s"
    mkdir -p "$tmp/o3$s/p.$s/inside"
    snap "$tmp/o3$s" >"$tmp/before"
    "$CONFPOL" build --target all -o "$tmp/o3$s" "$good" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 0 ]; then
        fail=1
        echo "FAIL: p.$s is a directory, yet build exits 0"
    fi
    expect_unchanged "p.$s is a directory" "$tmp/o3$s" "$tmp/before"
done

# ---- read-only output directory ----------------------------------------------
seed "$tmp/o4"
if mount --bind "$tmp/o4" "$tmp/o4" && mounts="$tmp/o4 $mounts" &&
    mount -o remount,bind,ro "$tmp/o4"; then
    snap "$tmp/o4" >"$tmp/before"
    "$CONFPOL" build --target all -o "$tmp/o4" "$good" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || { fail=1; echo "FAIL: read-only DIR: exit $rc, expected 2"; head -n 3 "$tmp/err"; }
    grep -q 'Read-only file system' "$tmp/err" ||
        { fail=1; echo "FAIL: read-only DIR: the error does not say why"; head -n 3 "$tmp/err"; }
    expect_unchanged "read-only DIR" "$tmp/o4" "$tmp/before"
else
    fail=1
    echo "FAIL: cannot make a read-only bind mount"
fi

# ---- full output directory ---------------------------------------------------
# A policy whose artifacts are each several pages, so that a 96 KiB tmpfs
# can hold some of them but not all; try every fill level.
big="$tmp/big.confpol"
{
    echo '# a policy with large artifacts'
    echo 'confpol 1'
    echo 'profile confined'
    echo 'write /srv/data'
    i=0
    while [ $i -lt 300 ]; do
        echo "deny write /srv/data/carve-out-number-$i"
        i=$((i + 1))
    done
} >"$big"
mkdir -p "$tmp/o5"
if mount -t tmpfs -o size=96k,mode=0755 tmpfs "$tmp/o5"; then
    mounts="$tmp/o5 $mounts"
    level=0 partial_seen=0
    while [ $level -le 96 ]; do
        rm -rf "$tmp/o5"/* 2>/dev/null
        seed "$tmp/o5" big
        [ $level -gt 0 ] &&
            head -c $((level * 1024)) /dev/zero >"$tmp/o5/filler" 2>/dev/null
        snap "$tmp/o5" >"$tmp/before"
        "$CONFPOL" build --target all -o "$tmp/o5" "$big" >/dev/null 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 0 ]; then
            for s in sb bwrap claude.json; do
                grep -q '^old ' "$tmp/o5/big.$s" 2>/dev/null &&
                    { fail=1; echo "FAIL: full DIR at $level KiB: big.$s is old"; }
            done
        else
            partial_seen=1
            [ $rc -eq 2 ] || { fail=1; echo "FAIL: full DIR at $level KiB: exit $rc, expected 2"; }
            expect_unchanged "full DIR at $level KiB" "$tmp/o5" "$tmp/before"
        fi
        level=$((level + 12))
    done
    [ $partial_seen = 1 ] || { fail=1; echo "FAIL: the tmpfs never filled up"; }
else
    fail=1
    echo "FAIL: cannot mount a tmpfs"
fi

# ---- signals during a long build -----------------------------------------------
long="$tmp/long.confpol"
python3 - "$long" <<'EOF'
import sys
with open(sys.argv[1], 'w') as f:
    f.write('# a policy that takes a while to build\nconfpol 1\nprofile confined\nwrite /srv\n')
    for i in range(1000):
        f.write('deny write /srv/d%05d/k\n' % i)
EOF
seed "$tmp/o6" long
snap "$tmp/o6" >"$tmp/before6"
# How long a whole build takes, to spread the signals over it.
t0=$(date +%s%N)
"$CONFPOL" build --target all -o "$tmp/o6b" "$long" >/dev/null 2>&1 || mkdir -p "$tmp/o6b"
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
[ $ms -gt 0 ] || ms=1
interrupted=0 completed=0
for sig in INT TERM HUP; do
    k=0
    while [ $k -lt 6 ]; do
        rm -rf "$tmp/o6" && seed "$tmp/o6" long
        delay=$(awk -v ms=$ms -v k=$k 'BEGIN { printf "%.3f", ms * (k + 0.5) / 4 / 1000 }')
        "$CONFPOL" build --target all -o "$tmp/o6" "$long" >/dev/null 2>&1 &
        pid=$!
        sleep "$delay"
        kill -s $sig $pid 2>/dev/null
        wait $pid 2>/dev/null
        rc=$?
        if [ $rc -eq 0 ]; then
            completed=$((completed + 1))
            for s in sb bwrap claude.json; do
                grep -q '^old ' "$tmp/o6/long.$s" 2>/dev/null &&
                    { fail=1; echo "FAIL: SIG$sig after ${delay}s: exit 0 but long.$s is old"; }
            done
        else
            interrupted=$((interrupted + 1))
            expect_unchanged "SIG$sig after ${delay}s (exit $rc)" "$tmp/o6" "$tmp/before6"
        fi
        k=$((k + 1))
    done
done
echo "signals: $interrupted builds interrupted, $completed completed (build takes ${ms} ms)"
[ $interrupted -gt 0 ] || { fail=1; echo "FAIL: no build was interrupted"; }

[ $fail -eq 0 ] && echo "no partial output on any error path"
exit $fail

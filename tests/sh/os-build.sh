#!/bin/sh
# confpol build: all-or-nothing output (a policy error, -Werror on a fidelity
# loss, a full output directory and SIGINT while writing leave DIR
# unchanged), cooperative policies, determinism, usage errors.
set -u
: "${CONFPOL:?}" "${TOP:?}"
tmp=$(mktemp -d) || exit 1
trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
fail=0
cd "$tmp" || exit 1
no() { echo "FAIL: $*"; fail=1; }
snap() { (cd "$1" && ls -A && cat ./* 2>/dev/null | cksum); }

cat >p.confpol <<'P'
confpol 1
profile confined
write ${PROJECT}
deny write ${PROJECT}/.git
net allow example.com
P
cat >bad.confpol <<'P'
confpol 1
profile confined
write relative/path
P
mkdir d
echo old >d/p.sb
echo old >d/bad.sb
before=$(snap d)

# A policy error: exit 1, nothing written.
"$CONFPOL" build --target all -o d bad.confpol 2>err; rc=$?
[ $rc -eq 1 ] || no "policy error exit $rc, want 1"
[ "$(snap d)" = "$before" ] || no "a policy error changed DIR"

# -Werror turns the fidelity warning (net allow) into an error.
"$CONFPOL" build --target all -Werror -o d p.confpol 2>err; rc=$?
[ $rc -eq 1 ] || no "-Werror exit $rc, want 1"
grep -q 'error: sbpl: cannot allow network access' err || no "-Werror message"
[ "$(snap d)" = "$before" ] || no "-Werror changed DIR"

# -Wno-fidelity-net silences it.
"$CONFPOL" build --target sbpl -Wno-fidelity-net -o d p.confpol 2>err ||
    no "-Wno-fidelity-net build failed"
grep -q CP0704 err && no "-Wno-fidelity-net still warns"

# Success: all three files, byte-identical on a second run.
mkdir d2
"$CONFPOL" build --target all -o d2 p.confpol 2>err || no "build failed"
for s in sb bwrap claude.json; do [ -f d2/p.$s ] || no "missing p.$s"; done
mkdir first
cp d2/p.sb d2/p.bwrap d2/p.claude.json first/
"$CONFPOL" build --target all -o d2 p.confpol 2>err || no "rebuild failed"
for s in sb bwrap claude.json; do
    cmp -s d2/p.$s first/p.$s || no "p.$s not deterministic"
done
ls d2 | grep -q tmp && no "temporary files left in DIR"

# Cooperative: only the claude file; an old .sb stays.
cat >c.confpol <<'P'
confpol 1
profile cooperative
write /
P
mkdir dc; echo old >dc/c.sb
"$CONFPOL" build --target all -o dc c.confpol 2>err || no "cooperative build failed"
grep -q 'note: sbpl: policy .c. is cooperative' err || no "cooperative note"
[ "$(cat dc/c.sb)" = old ] || no "cooperative build touched c.sb"
[ -f dc/c.bwrap ] && no "cooperative build wrote c.bwrap"

# Usage errors: exit 2.
"$CONFPOL" build --target all --format shell p.confpol 2>/dev/null
[ $? -eq 2 ] || no "--format shell with --target all"
"$CONFPOL" build --target nope -o d p.confpol 2>/dev/null
[ $? -eq 2 ] || no "unknown target"
"$CONFPOL" build --target sbpl -o missing-dir p.confpol 2>/dev/null
[ $? -eq 2 ] || no "missing output directory"
"$CONFPOL" build -o d p.confpol 2>/dev/null
[ $? -eq 2 ] || no "no target"

# A full output directory: the write fails, nothing changes (root only).
if [ "$(id -u)" = 0 ] && mkdir full && mount -t tmpfs -o size=8k tmpfs full 2>/dev/null; then
    head -c 3000 /dev/zero | tr '\0' x >full/p.sb
    before=$(snap full)
    "$CONFPOL" build --target all -o full p.confpol 2>err; rc=$?
    [ $rc -eq 2 ] || no "full directory exit $rc, want 2"
    [ "$(snap full)" = "$before" ] || no "a full directory changed"
    umount full
elif [ "${CI:-}" = true ]; then
    no "cannot mount a small tmpfs for the full-directory case"
fi

# SIGINT while the files are written: the temporary files are removed and
# DIR is unchanged (strace delays each fsync so that the signal lands there).
if command -v strace >/dev/null; then
    mkdir ds; echo old >ds/p.sb
    before=$(snap ds)
    # A background job starts with SIGINT ignored: restore the default.
    env --default-signal=INT strace -f -o strace.log -e trace=fsync,rename \
        -e inject=fsync:delay_enter=300000 \
        "$CONFPOL" build --target all -o ds p.confpol 2>/dev/null &
    pid=$!
    i=0
    until grep -q 'fsync(' strace.log 2>/dev/null || [ $i -ge 100 ]; do
        sleep 0.05; i=$((i + 1))
    done
    pkill -INT -P $pid 2>/dev/null || kill -INT $pid
    wait $pid
    grep -q 'killed by SIGINT' strace.log || no "the build was not ended by SIGINT"
    grep -q 'rename(' strace.log && no "files were renamed after SIGINT"
    [ "$(snap ds)" = "$before" ] || { no "SIGINT while writing changed DIR"; ls -la ds; }
elif [ "${CI:-}" = true ]; then
    no "strace is needed for the SIGINT case"
fi
exit $fail

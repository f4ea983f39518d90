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
exec /usr/bin
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

# -Werror turns the fidelity warning (exec, claude) into an error.
"$CONFPOL" build --target all -Werror -o d p.confpol 2>err; rc=$?
[ $rc -eq 1 ] || no "-Werror exit $rc, want 1"
grep -q "error: claude: rule 'exec /usr/bin' is not fully enforced" \
    err || no "-Werror message"
[ "$(snap d)" = "$before" ] || no "-Werror changed DIR"

# -Wno-fidelity-net silences the SBPL note on the proxy's port param.
"$CONFPOL" build --target sbpl -Wtarget-notes -Wno-fidelity-net -o d p.confpol 2>err ||
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
"$CONFPOL" build --target all -Wtarget-notes -o dc c.confpol 2>err || no "cooperative build failed"
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

# An output that already holds exactly the new bytes (mode 0644) is not
# rewritten; a changed one, or one of another mode, is replaced, and no
# temporary or backup file is left behind.
mkdir u
"$CONFPOL" build --target all -o u p.confpol 2>/dev/null || no "unchanged: first build"
ids() { stat -c '%n %i %a' u/p.sb u/p.bwrap u/p.claude.json; }
first=$(ids)
"$CONFPOL" build --target all -o u p.confpol 2>/dev/null || no "unchanged: second build"
[ "$(ids)" = "$first" ] || no "unchanged outputs were rewritten"
cp u/p.bwrap keep.bwrap
echo changed >u/p.sb
chmod 600 u/p.claude.json
"$CONFPOL" build --target all --fsync -o u p.confpol 2>/dev/null || no "changed: build"
[ "$(stat -c %i u/p.bwrap)" = "$(echo "$first" | awk '/p.bwrap/ { print $2 }')" ] ||
    no "the unchanged p.bwrap was rewritten"
grep -q '^(version 1)' u/p.sb || no "the changed p.sb was not replaced"
[ "$(stat -c %a u/p.claude.json)" = 644 ] || no "p.claude.json of mode 600 was not replaced"
cmp -s u/p.bwrap keep.bwrap || no "p.bwrap changed"
[ "$(ls -A u | wc -l)" -eq 3 ] || { no "temporary files left in DIR"; ls -A u; }

# SIGINT while the files are written: the temporary files are removed and
# DIR is unchanged (strace delays each fchmod, or each fsync with --fsync,
# so that the signal lands there).
if command -v strace >/dev/null; then
    # LeakSanitizer cannot run under ptrace: in a sanitizer build, a traced
    # build that exits normally would fail at exit for that alone.
    [ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    for mode in default --fsync; do
        call=fchmod opt=""
        [ $mode = --fsync ] && call=fsync opt=--fsync
        rm -rf ds strace.log
        mkdir ds; echo old >ds/p.sb
        before=$(snap ds)
        # A background job starts with SIGINT ignored: restore the default.
        env --default-signal=INT strace -f -o strace.log \
            -e trace=$call,rename,renameat2 \
            -e inject=$call:delay_enter=300000 \
            "$CONFPOL" build --target all $opt -o ds p.confpol 2>/dev/null &
        pid=$!
        i=0
        until grep -q "$call(" strace.log 2>/dev/null || [ $i -ge 100 ]; do
            sleep 0.05; i=$((i + 1))
        done
        pkill -INT -P $pid 2>/dev/null || kill -INT $pid
        wait $pid
        grep -q 'killed by SIGINT' strace.log || no "$mode: the build was not ended by SIGINT"
        grep -Eq 'rename(at2)?\(' strace.log && no "$mode: files were renamed after SIGINT"
        [ "$(snap ds)" = "$before" ] || { no "$mode: SIGINT while writing changed DIR"; ls -la ds; }
    done
    # SIGINT after the renames (while the replaced file is removed): the
    # build completes, exits 0 and DIR holds the new outputs.
    rm -rf ds strace.log
    mkdir ds; echo old >ds/p.sb
    env --default-signal=INT strace -f -o strace.log -e trace=unlink \
        -e inject=unlink:delay_enter=300000 \
        "$CONFPOL" build --target all -o ds p.confpol 2>/dev/null &
    pid=$!
    i=0
    until grep -q 'unlink(' strace.log 2>/dev/null || [ $i -ge 100 ]; do
        sleep 0.05; i=$((i + 1))
    done
    pkill -INT -P $pid 2>/dev/null || kill -INT $pid
    wait $pid; rc=$?
    [ $rc -eq 0 ] || no "late SIGINT: exit $rc, want 0"
    grep -q '^(version 1)' ds/p.sb || no "late SIGINT: p.sb is not the new one"
    [ "$(ls -A ds | wc -l)" -eq 3 ] || { no "late SIGINT: files left in DIR"; ls -A ds; }
elif [ "${CI:-}" = true ]; then
    no "strace is needed for the SIGINT case"
fi
exit $fail

#!/bin/sh
# confpol install under concurrent and hostile use (spec/settings-wiring.md,
# "Writing the file"): concurrent installs into one file lose no record; the
# file and its backup keep the mode, owner and group of the file; a new file
# follows the umask; a FIFO, a device, a directory or an empty path is named
# for what it is (and a FIFO never blocks); the temporaries of a killed
# install are removed by the next one (only its own, only regular files);
# a project without .claude/ gets one; a project settings file that is a
# symbolic link may point inside the project, not outside.
set -u
: "${CONFPOL:?}"
command -v jq >/dev/null 2>&1 || { echo "no jq"; exit 77; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
export HOME="$tmp/home" XDG_CONFIG_HOME=
unset CLAUDE_CONFIG_DIR
mkdir -p "$HOME/.claude" "$tmp/proj" "$tmp/out"
cd "$tmp/proj" || exit 2
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/a\n' >a.confpol
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/b\n' >b.confpol
for p in a b; do
    "$CONFPOL" build --target claude -D PROJECT="$tmp/proj" -o "$tmp/out" $p.confpol \
        >/dev/null 2>&1 || fail "build $p"
done
A="$tmp/out/a.claude.json" B="$tmp/out/b.claude.json"
S="$HOME/.claude/settings.json"
inst() { timeout 60 "$CONFPOL" install -q --claude "$@"; }

# 1. Two installs at once into one file: both records stay (50 pairs).
lost=0
i=0
while [ $i -lt 50 ]; do
    rm -f "$S" "$S.bak"
    inst "$S" "$A" >"$tmp/e1" 2>&1 &
    p1=$!
    inst "$S" "$B" >"$tmp/e2" 2>&1 &
    p2=$!
    wait $p1 || fail "pair $i: the first install failed: $(cat "$tmp/e1")"
    wait $p2 || fail "pair $i: the second install failed: $(cat "$tmp/e2")"
    n=$(jq '.confpolInstalled | length' "$S" 2>/dev/null)
    [ "$n" = 2 ] || lost=$((lost + 1))
    i=$((i + 1))
done
[ $lost -eq 0 ] || fail "concurrent installs lost a record in $lost of 50 pairs"
# The lock is the directory's flock: a run waits for a holder, then goes on.
if command -v flock >/dev/null 2>&1; then
    rm -f "$S" "$S.bak"
    flock "$HOME/.claude" sleep 2 &
    holder=$!
    sleep 0.3
    t0=$(date +%s%N)
    inst "$S" "$A" || fail "install after a lock holder"
    t1=$(date +%s%N)
    wait $holder
    [ $(((t1 - t0) / 1000000)) -ge 1000 ] || fail "install did not wait for the directory's lock"
fi

# 2. Modes: a 0600 file and its backup stay 0600; a new file follows the
# umask.
rm -f "$S" "$S.bak"
printf '{"model": "opus"}\n' >"$S"
chmod 600 "$S"
inst "$S" "$A" || fail "install into a 0600 file"
[ "$(stat -c %a "$S")" = 600 ] || fail "the file is $(stat -c %a "$S") after install, was 600"
[ "$(stat -c %a "$S.bak")" = 600 ] || fail "the backup of a 0600 file is $(stat -c %a "$S.bak")"
rm -f "$S" "$S.bak"
(umask 077 && inst "$S" "$A") || fail "install of a new file under umask 077"
[ "$(stat -c %a "$S")" = 600 ] || fail "a new file under umask 077 is $(stat -c %a "$S")"
rm -f "$S"
(umask 022 && inst "$S" "$A") || fail "install of a new file under umask 022"
[ "$(stat -c %a "$S")" = 644 ] || fail "a new file under umask 022 is $(stat -c %a "$S")"

# 3. root installing into a user's file keeps the user's owner and group.
if [ "$(id -u)" = 0 ]; then
    rm -f "$S" "$S.bak"
    printf '{}\n' >"$S"
    chown 4321:4322 "$S"
    inst "$S" "$A" || fail "install into another user's file"
    [ "$(stat -c %u:%g "$S")" = 4321:4322 ] || fail "owner after install: $(stat -c %u:%g "$S")"
    [ "$(stat -c %u:%g "$S.bak")" = 4321:4322 ] || fail "owner of the backup: $(stat -c %u:%g "$S.bak")"
    inst "$S" "$B" || fail "second install into another user's file"
    [ "$(stat -c %u:%g "$S")" = 4321:4322 ] || fail "owner after a second install"
else
    echo "note: not root: the owner check skipped"
fi

# 4. What is not a regular file is named; a FIFO does not block.
# want DESC WHAT -- ARGS: the command exits 2 saying WHAT.
want() {
    d=$1 w=$2
    shift 3
    timeout 20 "$CONFPOL" "$@" >"$tmp/o" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "$d: exit $rc, expected 2"
    grep -qF -- "$w" "$tmp/o" || { fail "$d: no '$w'"; cat "$tmp/o"; }
}
mkfifo "$tmp/fifo.json"
want "install into a FIFO" "$tmp/fifo.json: a FIFO, not a regular file" -- install --claude "$tmp/fifo.json" "$A"
want "verify of a FIFO" "$tmp/fifo.json: a FIFO, not a regular file" -- verify --claude "$tmp/fifo.json" "$A"
want "an artifact that is a FIFO" "$tmp/fifo.json: a FIFO, not a regular file" -- install --claude "$S" "$tmp/fifo.json"
want "install into a device" "/dev/null: a character device, not a regular file" -- install --claude /dev/null "$A"
mkdir "$tmp/dir.json"
want "install into a directory" "$tmp/dir.json: a directory, not a regular file" -- install --claude "$tmp/dir.json" "$A"
want "an empty path" "the settings path is empty" -- install --claude "" "$A"
want "a directory path" "not a file name" -- install --claude "$tmp/" "$A"
want "a missing directory" "its directory does not exist" -- install --claude "$tmp/nowhere/x/settings.json" "$A"

# 5. The temporaries of a killed install: the next one removes its own
# (regular files of its pattern) and nothing else.
rm -f "$S" "$S.bak"
printf '{}\n' >"$S"
d=$HOME/.claude
printf x >"$d/settings.json.tmp.AbC123"
printf x >"$d/settings.json.bak.tmp.Zz9Zz9"
printf x >"$d/settings.json.tmp.toolong1"
printf x >"$d/other.json.tmp.AbC123"
printf keep >"$tmp/target"
ln -s "$tmp/target" "$d/settings.json.tmp.Lnk123"
mkfifo "$d/settings.json.tmp.Fif123"
inst "$S" "$A" || fail "install with stale temporaries"
[ -e "$d/settings.json.tmp.AbC123" ] && fail "a stale temporary stayed"
[ -e "$d/settings.json.bak.tmp.Zz9Zz9" ] && fail "a stale temporary of the backup stayed"
[ -e "$d/settings.json.tmp.toolong1" ] || fail "a file of another pattern was removed"
[ -e "$d/other.json.tmp.AbC123" ] || fail "another file's temporary was removed"
[ -L "$d/settings.json.tmp.Lnk123" ] || fail "a symbolic link of the pattern was removed"
[ "$(cat "$tmp/target")" = keep ] || fail "the target of a link was touched"
[ -p "$d/settings.json.tmp.Fif123" ] || fail "a FIFO of the pattern was removed"

# Real kills: installs and uninstalls of a large file killed at varied
# moments never leave a broken file, and the next run leaves no temporary.
rm -f "$S" "$S.bak" "$d"/settings.json.tmp.toolong1 "$d"/settings.json.tmp.Lnk123 "$d"/settings.json.tmp.Fif123
jq -n '{model: "opus", env: ([range(0; 20000)] | map({key: "V\(.)", value: "x"}) | from_entries)}' >"$S"
i=0
while [ $i -lt 40 ]; do
    if [ $((i % 2)) -eq 0 ]; then c=install; else c=uninstall; fi
    "$CONFPOL" $c -q --claude "$S" "$A" >/dev/null 2>&1 &
    k=$!
    sleep "0.0$((i % 10))"
    kill -KILL $k 2>/dev/null
    wait $k 2>/dev/null
    jq -e . "$S" >/dev/null 2>&1 || fail "kill $i left a broken settings file"
    i=$((i + 1))
done
inst "$S" "$A" || fail "install after the kills"
ls "$d" | grep -q '^settings\.json.*\.tmp\.[A-Za-z0-9]\{6\}$' && { fail "temporaries left after the kills"; ls "$d"; }

# 6. A project without .claude/: install creates it (mode 0700).
mkdir -p "$tmp/p2"
(cd "$tmp/p2" && printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n' >p.confpol &&
    "$CONFPOL" build --target claude -o "$tmp/out" p.confpol) >/dev/null 2>&1 || fail "build p"
P="$tmp/out/p.claude.json"
inst "$tmp/p2/.claude/settings.json" "$P" || fail "install into a project without .claude/"
[ "$(stat -c %a "$tmp/p2/.claude" 2>/dev/null)" = 700 ] || fail ".claude/ was not created 0700"
[ -f "$tmp/p2/.claude/settings.json" ] || fail "no settings file in the new .claude/"

# 7. A project settings file that is a symbolic link: inside the project it
# is followed (the link stays, its target gets the settings); outside, refused.
mkdir -p "$tmp/p3/.claude" "$tmp/p3/conf"
printf '{}\n' >"$tmp/p3/conf/claude.json"
ln -s ../conf/claude.json "$tmp/p3/.claude/settings.json"
inst "$tmp/p3/.claude/settings.json" "$P" || fail "install into a link inside the project"
[ -L "$tmp/p3/.claude/settings.json" ] || fail "the link was replaced"
jq -e '.confpolInstalled | length == 1' "$tmp/p3/conf/claude.json" >/dev/null ||
    fail "the link's target does not hold the install"
(cd "$tmp/p3" && cp "$tmp/p2/p.confpol" . && "$CONFPOL" verify -q --claude .claude/settings.json p.confpol) ||
    fail "verify of a project settings file that is a link inside the project"
mkdir -p "$tmp/p4/.claude"
printf '{}\n' >"$tmp/elsewhere.json"
ln -s "$tmp/elsewhere.json" "$tmp/p4/.claude/settings.json"
timeout 20 "$CONFPOL" install -q --claude "$tmp/p4/.claude/settings.json" "$P" >"$tmp/o" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a link outside the project: exit $rc, expected 1"
grep -qF "outside the project $tmp/p4" "$tmp/o" || { fail "a link outside the project: message"; cat "$tmp/o"; }
[ "$(cat "$tmp/elsewhere.json")" = "{}" ] || fail "the file outside the project was written"
[ $fails -eq 0 ] || exit 1
echo "install-hostile: ok"

#!/bin/sh
# install and verify refuse settings files that Claude Code skips whole (a
# wrong type or enum anywhere, an invalid hook, over the client's size
# limit, also when install itself would push a file over it), each with
# the exact message; files the client loads (unknown keys, a non-string
# permission rule, lower-case env names) stay accepted; an absent file and
# a dangling symbolic link are restored exactly by uninstall; install,
# verify and uninstall say what they did in one line (-q silences it);
# verify says with which PROJECT it compiled and how the installed
# artifact was built.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v jq >/dev/null 2>&1 || { echo "no jq"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
proj="$tmp/proj"
mkdir -p "$proj/.claude"
cat >"$proj/policy.confpol" <<'EOF'
confpol 1
profile confined

write ${PROJECT}
deny write ${PROJECT}/.git/hooks ${PROJECT}/.claude
deny read ~/.ssh ${PROJECT}/.env
gate ask "git push --force *"
EOF
(cd "$proj" && "$CONFPOL" build --target claude -o .claude policy.confpol) \
    >"$tmp/build.err" 2>&1 || { cat "$tmp/build.err"; echo "FAIL: build"; exit 1; }
art=.claude/policy.claude.json
set_=.claude/settings.json
cd "$proj" || exit 1

# A fresh file: created, then removed by uninstall (no stub left).
out=$("$CONFPOL" install --claude $set_ $art 2>&1) || fail "install into a new file"
[ "$out" = "confpol install: installed $art into $set_ (new file: uninstall removes it)" ] ||
    fail "install message: $out"
out=$("$CONFPOL" install --claude $set_ $art 2>&1) || fail "second install"
[ "$out" = "confpol install: $set_ already enforces $art: nothing changed" ] ||
    fail "second install message: $out"
out=$("$CONFPOL" verify --claude $set_ $art 2>&1) || fail "verify after install"
[ "$out" = "confpol verify: $set_ enforces $art" ] || fail "verify message: $out"
cp $set_ "$tmp/good.json"
out=$("$CONFPOL" uninstall --claude $set_ $art 2>&1) || fail "uninstall"
[ "$out" = "confpol uninstall: removed $art from $set_ (install had created it: removed)" ] ||
    fail "uninstall message: $out"
[ -e $set_ ] && fail "uninstall left a file where there was none"
[ -e $set_.bak ] && fail "uninstall left a .bak where there was none"

# A dangling symbolic link: the link comes back, with its target text.
ln -s ../elsewhere/settings.json $set_
"$CONFPOL" install -q --claude $set_ $art >"$tmp/q.out" 2>&1 || fail "install over a dangling link"
[ -s "$tmp/q.out" ] && fail "-q is not quiet: $(cat "$tmp/q.out")"
[ -L $set_ ] && fail "install wrote through or kept the dangling link"
"$CONFPOL" uninstall -q --claude $set_ $art || fail "uninstall (link)"
[ "$(readlink $set_)" = ../elsewhere/settings.json ] || fail "the dangling link was not restored"
rm -f $set_

# Every case below is skipped whole by Claude Code: verify names it and
# exits 1, install refuses and leaves the file alone.
check_skip() { # jq-edit expected-line [install's own line]
    jq "$1" "$tmp/good.json" >$set_
    cp $set_ "$tmp/before.json"
    "$CONFPOL" verify --claude $set_ $art >"$tmp/v.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "verify exit $rc on $1"
    grep -qxF "$set_: gap: Claude Code skips this whole file: $2" "$tmp/v.out" ||
        { fail "verify on $1"; cat "$tmp/v.out"; }
    "$CONFPOL" install --claude $set_ $art >"$tmp/i.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "install exit $rc on $1"
    # (install may name the problem first where it writes itself)
    grep -qxF "$set_: gap: Claude Code skips this whole file: $2" "$tmp/i.out" ||
        { [ -n "${3:-}" ] && grep -qxF "$set_: $3" "$tmp/i.out"; } ||
        { fail "install on $1"; cat "$tmp/i.out"; }
    cmp -s $set_ "$tmp/before.json" || fail "install changed the file on $1"
}
check_skip '.model=5' 'model is a number, expected a string'
check_skip '.permissions.defaultMode="delegate"' \
    'permissions.defaultMode is "delegate", expected one of "acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "manual", "plan"'
check_skip '.cleanupPeriodDays="x"' 'cleanupPeriodDays is a string, expected an integer'
check_skip '.cleanupPeriodDays=0' 'cleanupPeriodDays is 0, below the minimum 1'
check_skip '.hooks.PostToolUse=[{"hooks":[{"type":"command"}]}]' \
    'hooks.PostToolUse.0.hooks.0 lacks the required key "command"'
check_skip '.hooks.Stop=[{"matcher":"x"}]' 'hooks.Stop.0 lacks the required key "hooks"'
check_skip '.hooks.PreToolUse[0].hooks[0].onFailure="maybe"' \
    'hooks.PreToolUse.0.hooks.0.onFailure is "maybe", expected one of "continue", "block"'
check_skip '.sandbox.network={"allowedDomains":[1]}' \
    'sandbox.network.allowedDomains.0 is a number, expected a string' \
    "'sandbox.network.allowedDomains' is an array with other elements, expected an array of strings"
check_skip '.statusLine={"type":"command"}' 'statusLine lacks the required key "command"'
check_skip '.feedbackSurveyRate=2' 'feedbackSurveyRate is 2, above the maximum 1'
check_skip '.env={"A":1}' 'env.A is a number, expected a string'

# What the client loads: unknown keys, a dropped non-string rule, env
# names the schema's pattern would refuse.
for edit in '.sandbox.unknownKey=1' '.permissions.deny+=[5]' '.env={"lower":"x"}' \
    '.hooks.UnknownEvent=[{"hooks":[]}]' '.model=""'; do
    jq "$edit" "$tmp/good.json" >$set_
    "$CONFPOL" verify -q --claude $set_ $art >"$tmp/v.out" 2>&1 ||
        { fail "verify refused a file the client loads: $edit"; cat "$tmp/v.out"; }
done

# Size: a file over 2 MiB is skipped; install that would push a file
# over the limit refuses.
pad() { head -c "$1" /dev/zero | tr '\0' a; }
{ sed '$d' "$tmp/good.json"; printf ', "zpad": "%s"}\n' "$(pad 2097152)"; } >$set_
"$CONFPOL" verify --claude $set_ $art >"$tmp/v.out" 2>&1 && fail "verify on a 2 MiB+ file"
grep -qE "^$set_: gap: Claude Code skips this whole file: it is [0-9]+ bytes, over the client's limit of 2097152\$" "$tmp/v.out" ||
    { fail "size gap"; head -3 "$tmp/v.out"; }
n=$((2097152 - 2000))
printf '{"zpad": "%s"}\n' "$(pad $((n - 13)))" >$set_
[ "$(wc -c <$set_)" -eq $n ] || fail "size set-up"
cp $set_ "$tmp/before.json"
"$CONFPOL" install --claude $set_ $art >"$tmp/i.out" 2>&1 && fail "install pushed a file over the limit"
grep -q "over the client's limit of 2097152" "$tmp/i.out" || fail "install names the size limit"
cmp -s $set_ "$tmp/before.json" || fail "install changed the file over the limit"

# verify with a policy from the wrong directory says how it compiled and
# how the installed artifact was built.
cp "$tmp/good.json" $set_
(cd "$tmp" && "$CONFPOL" verify --claude "$proj/$set_" "$proj/policy.confpol") >"$tmp/v.out" 2>&1 &&
    fail "verify from the wrong directory found no gap"
grep -qxF "$proj/$set_: note: verify built the policy with PROJECT=$tmp (the current directory)" "$tmp/v.out" ||
    fail "verify names the PROJECT it used"
grep -qxF "$proj/$set_: note: this settings file belongs to the project $proj: run verify there, or pass -D PROJECT=$proj" "$tmp/v.out" ||
    fail "verify names the project of the settings file"
grep -qxF "$proj/$set_: note: the installed artifact $proj/$art was built without -D (its paths are project-relative); verify against it: confpol verify --claude $proj/$set_ $proj/$art" "$tmp/v.out" ||
    { fail "verify names how the artifact was built"; cat "$tmp/v.out"; }

# The real client agrees, when it is installed: `claude doctor` lists the
# files it skips ("Invalid settings") and the problem; it is asked about a
# file confpol refuses and one it accepts, of each kind measured above.
real=$(command -v claude 2>/dev/null)
if [ -n "$real" ] && command -v script >/dev/null 2>&1; then
    doctor() { # dir jq-edit
        mkdir -p "$tmp/$1/.claude"
        jq "$2" "$tmp/good.json" >"$tmp/$1/.claude/settings.json"
        (cd "$tmp/$1" && HOME="$tmp/$1" timeout 25 script -qc "$real doctor" /dev/null </dev/null 2>&1) |
            sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' | tr -d '\r ' >"$tmp/$1.out"
    }
    doctor d1 '.model=5' &
    doctor d2 '.permissions.defaultMode="delegate"' &
    doctor d3 '.env={"lower":"x"} | .model=""' &
    doctor d4 '.hooks.PostToolUse=[{"hooks":[{"type":"command"}]}]'
    wait
    if grep -q "Invalidsettings\|Updates\|Running:" "$tmp/d1.out"; then
        for d in d1 d2 d4; do
            grep -q "Invalidsettings" "$tmp/$d.out" || fail "claude doctor does not skip the file of $d"
        done
        grep -q "Invalidsettings" "$tmp/d3.out" && fail "claude doctor skips a file confpol accepts"
    else
        echo "note: claude doctor printed nothing usable: the client comparison skipped"
    fi
fi

[ $fails -eq 0 ] || exit 1
echo "settings-client: ok"

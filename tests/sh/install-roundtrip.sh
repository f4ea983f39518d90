#!/bin/sh
# confpol install / verify / uninstall --claude on a live settings file
# with unrelated keys (spec/settings-wiring.md): the unrelated keys keep
# their bytes, a second install changes nothing, SETTINGS.bak holds the
# previous content, uninstall gives back the original file, verify names
# the gaps, invalid JSON and wrong types are refused with the file
# unchanged, and the wired hook answers through Claude Code's command line.
set -u
: "${CONFPOL:?}" "${TOP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
proj="$tmp/proj"
mkdir -p "$proj/.claude"
cp "$TOP/examples/agentteams-confined.confpol" "$proj/policy.confpol"
cp -r "$TOP/examples/include" "$proj/include"
(cd "$proj" && "$CONFPOL" build --target claude -o .claude policy.confpol) \
    >"$tmp/build.err" 2>&1 || { cat "$tmp/build.err"; echo "FAIL: build"; exit 1; }
art="$proj/.claude/policy.claude.json"
set_="$proj/.claude/settings.json"

# Unrelated keys in a layout confpol would never print.
cat >"$set_" <<'JSON'
{
    "model":"opus",
    "permissions" : { "allow" : [ "Bash(ls)" ],
                      "deny": ["Read(./.env)"] },
  "env": {"A": "b", "B": "\u00e9"},
    "statusLine": {"type": "command",
          "command": "printf x"},
    "cleanupPeriodDays": 30
}
JSON
cp "$set_" "$tmp/orig.json"

# verify compiles the policy as build did: from the project directory
# (PROJECT defaults to the current directory).
(cd "$proj" && "$CONFPOL" verify --claude "$set_" policy.confpol) >"$tmp/v0.out" 2>&1
[ $? -eq 1 ] || fail "verify before install should exit 1"
grep -q 'gap: no "sandbox" object' "$tmp/v0.out" || fail "verify names the missing sandbox"
grep -q 'gap: no PreToolUse hook' "$tmp/v0.out" || fail "verify names the missing hook"

# A confpol without confpol-gate beside it refuses to wire a hook that
# would block every call, and leaves the file as it was.
mkdir "$tmp/alone" && cp "$CONFPOL" "$tmp/alone/confpol"
"$tmp/alone/confpol" install --claude "$set_" "$art" >"$tmp/alone.out" 2>&1
[ $? -eq 2 ] || fail "install without confpol-gate beside confpol should exit 2"
grep -q "the hook program '$tmp/alone/confpol-gate' is missing or not executable" "$tmp/alone.out" ||
    fail "install without confpol-gate: $(cat "$tmp/alone.out")"
cmp -s "$set_" "$tmp/orig.json" || fail "a refused install changed the settings file"

"$CONFPOL" install --claude "$set_" "$art" || fail "install"
cmp -s "$set_.bak" "$tmp/orig.json" || fail "SETTINGS.bak is not the previous content"
for key in '"model":"opus",' \
    '"permissions" : { "allow" : [ "Bash(ls)" ],' \
    '  "env": {"A": "b", "B": "\u00e9"},' \
    '    "statusLine": {"type": "command",' \
    '          "command": "printf x"},' \
    '    "cleanupPeriodDays": 30'; do
    grep -qF -- "$key" "$set_" || fail "install changed the bytes of: $key"
done
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$set_" || fail "install wrote invalid JSON"

(cd "$proj" && "$CONFPOL" verify --claude "$set_" policy.confpol) || fail "verify (policy) after install"
"$CONFPOL" verify --claude "$set_" "$art" || fail "verify (artifact) after install"

cp "$set_" "$tmp/installed.json"
"$CONFPOL" install --claude "$set_" "$art" || fail "second install"
cmp -s "$set_" "$tmp/installed.json" || fail "a second install changed the file"

# The wired hook, run the way Claude Code runs it (sh -c COMMAND).
cmd=$(python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
for g in d["hooks"]["PreToolUse"]:
    for h in g["hooks"]:
        if "confpol-gate " in h["command"]: print(h["command"])' "$set_")
ans=$(printf '%s' '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sudo rm -rf /"}}' | sh -c "$cmd")
case $ans in
*'"permissionDecision": "ask"'*) ;;
*) fail "the installed hook did not ask for sudo: $ans" ;;
esac
# The installed hook blocks when it cannot run (onFailure: block, client
# 2.1.332): the command as installed, with confpol-gate gone, exits with
# neither 0 nor 2, which that key turns into a block.
onf=$(python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(",".join(h.get("onFailure", "-") for g in d["hooks"]["PreToolUse"]
               for h in g["hooks"] if "confpol-gate " in h["command"]))' "$set_")
[ "$onf" = block ] || fail "the installed gate hook has onFailure '$onf', want block"
# The same command with its binary gone (the first word replaced by a path
# that does not exist, as after an uninstall of confpol).  The hook program
# is confpol-gate beside confpol, as install writes it.
case $cmd in
"$(dirname "$CONFPOL")/confpol-gate --sha256 "*) ;;
*) fail "the installed hook does not run the confpol-gate beside confpol: $cmd" ;;
esac
gone=$(printf '%s' "$cmd" | sed "s|^[^ ]*|$tmp/removed/confpol-gate|")
printf '%s' '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}' |
    /bin/sh -c "$gone" >/dev/null 2>&1
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 2 ] ||
    fail "the hook without its binary exited $rc (0 or 2 would not count as a failure)"

# A gap: someone re-enables unsandboxed commands.
sed 's/"allowUnsandboxedCommands": false/"allowUnsandboxedCommands": true/' "$set_" >"$tmp/weak.json"
cp "$tmp/weak.json" "$proj/.claude/settings.local.json"
"$CONFPOL" verify --claude "$proj/.claude/settings.local.json" "$art" >"$tmp/v1.out" 2>&1
[ $? -eq 1 ] || fail "verify of a weakened file should exit 1"
grep -q 'gap: sandbox.allowUnsandboxedCommands is not false' "$tmp/v1.out" ||
    { cat "$tmp/v1.out"; fail "verify names allowUnsandboxedCommands"; }
# A gap: the hook's artifact is gone.
mv "$art" "$tmp/moved.json"
"$CONFPOL" verify --claude "$set_" "$tmp/moved.json" >"$tmp/v2.out" 2>&1
[ $? -eq 1 ] || fail "verify with the hook's artifact missing should exit 1"
grep -q 'missing or not a confpol artifact' "$tmp/v2.out" || { cat "$tmp/v2.out"; fail "verify names the missing artifact"; }
mv "$tmp/moved.json" "$art"
# A hook that names a FIFO must not hang verify.
mkfifo "$tmp/fifo.claude.json"
sed "s|\(gate --sha256 [0-9a-f]*\) $art|\1 $tmp/fifo.claude.json|" "$set_" >"$proj/.claude/settings.local.json"
timeout 10 "$CONFPOL" verify --claude "$proj/.claude/settings.local.json" "$art" >"$tmp/v3.out" 2>&1
[ $? -eq 1 ] || fail "verify with the hook naming a FIFO should exit 1 (not hang)"
grep -q 'missing or not a confpol artifact' "$tmp/v3.out" || { cat "$tmp/v3.out"; fail "verify names the FIFO"; }
timeout 10 "$CONFPOL" install --claude "$set_" "$tmp/fifo.claude.json" 2>"$tmp/r.out"
[ $? -eq 2 ] || fail "install of a FIFO artifact should exit 2"
grep -q 'not a regular file' "$tmp/r.out" || fail "message for a FIFO artifact"

"$CONFPOL" uninstall --claude "$set_" "$art" || fail "uninstall"
cmp -s "$set_" "$tmp/orig.json" || { diff "$tmp/orig.json" "$set_"; fail "uninstall did not give back the original bytes"; }
cmp -s "$set_.bak" "$tmp/installed.json" || fail "uninstall's SETTINGS.bak"

# Refusals leave the file unchanged.
for bad in '{"a": 1,}' '[]' '{"sandbox": "on"}' '{"permissions": {"deny": "x"}}' \
    '{"sandbox": {"excludedCommands": ["docker *"]}}'; do
    printf '%s\n' "$bad" >"$set_"
    cp "$set_" "$tmp/bad.json"
    "$CONFPOL" install --claude "$set_" "$art" >"$tmp/r.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "install into $bad exited $rc, not 1"
    cmp -s "$set_" "$tmp/bad.json" || fail "install changed a refused file: $bad"
    [ -s "$tmp/r.out" ] || fail "no reason given for $bad"
done
printf '{"a": 1,}\n' >"$set_"
"$CONFPOL" install --claude "$set_" "$art" 2>"$tmp/r.out"
grep -qxF "$set_: settings file is not valid JSON: expected a string key at byte 8" "$tmp/r.out" ||
    { cat "$tmp/r.out"; fail "message for invalid JSON"; }

# Project-relative paths only go into a project settings file.
mkdir -p "$tmp/home/.claude"
printf '{}\n' >"$tmp/user.json"
HOME="$tmp/home" "$CONFPOL" install --claude "$tmp/user.json" "$art" >"$tmp/r.out" 2>&1
[ $? -eq 1 ] || fail "install of project-relative paths into a non-project file"
grep -q 'rebuild with -D PROJECT=/abs/dir' "$tmp/r.out" || fail "message for a non-project file"
# Also when $HOME is reached through a symlink.
ln -s "$tmp/home" "$tmp/homelink"
printf '{}\n' >"$tmp/home/.claude/settings.json"
HOME="$tmp/homelink" "$CONFPOL" install --claude "$tmp/homelink/.claude/settings.json" "$art" \
    >"$tmp/r.out" 2>&1
[ $? -eq 1 ] || fail "install of project-relative paths into the user file via a symlinked HOME"
rm "$tmp/home/.claude/settings.json"
# With PROJECT bound the artifact is absolute and goes anywhere.
mkdir "$tmp/abs"
(cd "$proj" && "$CONFPOL" build --target claude -D PROJECT="$proj" -o "$tmp/abs" policy.confpol) 2>/dev/null ||
    fail "build with -D PROJECT"
grep -q '"projectRelative": false' "$tmp/abs/policy.claude.json" || fail "-D PROJECT gives absolute paths"
HOME="$tmp/home" "$CONFPOL" install --claude "$tmp/home/.claude/settings.json" "$tmp/abs/policy.claude.json" ||
    fail "install of an absolute artifact into the user file"
[ ! -e "$tmp/home/.claude/settings.json.bak" ] || fail "a .bak for a file that did not exist"
HOME="$tmp/home" "$CONFPOL" verify --claude -D PROJECT="$proj" "$tmp/home/.claude/settings.json" \
    "$tmp/abs/policy.claude.json" || fail "verify with -D PROJECT"

# Usage errors exit 2.
"$CONFPOL" install "$set_" "$art" 2>/dev/null
[ $? -eq 2 ] || fail "install without --claude should exit 2"
"$CONFPOL" install --help | grep -q '^usage: confpol install --claude' || fail "install --help"
"$CONFPOL" uninstall --help | grep -q '^usage: confpol uninstall --claude' || fail "uninstall --help"
"$CONFPOL" verify --help | grep -q '^usage: confpol verify --claude' || fail "verify --help"

[ $fails -eq 0 ]

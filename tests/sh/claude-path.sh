#!/bin/sh
# confpol claude: the README's policy (confpol init --claude) with a
# network allow-list builds with PROJECT bound, installs into a --settings
# file that carries strictAllowlist, and starts `claude --settings FILE
# ARGS`: a stand-in claude on PATH checks its arguments and the settings
# file and runs the wired gate hook; settings files Claude Code merges in
# that would loosen the policy make it refuse; the real claude binary (npm
# @anthropic-ai/claude-code), when present, starts through it and loads
# the file it gets (claude doctor lists no invalid settings).
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
mkdir -p "$proj" "$tmp/bin" "$tmp/home"
export HOME="$tmp/home" XDG_CONFIG_HOME=
unset CLAUDE_CONFIG_DIR CONFPOL_CLAUDE
cd "$proj" || exit 1
git init -q . 2>/dev/null || mkdir -p .git/hooks
"$CONFPOL" init --claude >/dev/null || fail "init --claude"
# The README's example is this starter: the same bytes.
sed -n '/^```confpol$/,/^```$/p' "$TOP/README.md" | sed '1d;$d' >"$tmp/readme.confpol"
cmp -s "$tmp/readme.confpol" policy.confpol || fail "the README's example is not 'confpol init --claude'"

# The stand-in: checks what it was given, then answers through the hook.
cat >"$tmp/bin/claude" <<'EOF'
#!/bin/sh
[ "$1" = --settings ] || { echo "stand-in: no --settings first: $*"; exit 90; }
s=$2
shift 2
[ "$*" = "-p hello world" ] || { echo "stand-in: arguments: $*"; exit 91; }
jq -e '.sandbox.enabled == true and .sandbox.failIfUnavailable == true
  and .sandbox.allowUnsandboxedCommands == false
  and .sandbox.network.strictAllowlist == true
  and .sandbox.network.allowedDomains == ["github.com", "*.github.com"]
  and any(.sandbox.filesystem.denyWrite[]; . == "/" + env.PROJ + "/.git/config")
  and any(.sandbox.filesystem.denyRead[]; . == "~/.ssh")' "$s" >/dev/null ||
    { echo "stand-in: settings"; jq . "$s"; exit 92; }
cmd=$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$s")
printf '%s' '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}' |
    sh -c "$cmd" | jq -e '.hookSpecificOutput.permissionDecision == "ask"' >/dev/null ||
    { echo "stand-in: the gate hook did not ask"; exit 93; }
echo "stand-in ran"
EOF
chmod +x "$tmp/bin/claude"
PROJ=$(pwd -P)
export PROJ
out=$(PATH="$tmp/bin:$PATH" "$CONFPOL" claude -q -- -p hello world 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] && [ "$out" = "stand-in ran" ] || { fail "confpol claude with the stand-in (exit $rc): $out"; cat "$tmp/err"; }
grep -q "error" "$tmp/err" && { fail "confpol claude printed errors"; cat "$tmp/err"; }
# A clean start is quiet: -q prints nothing, and without it one line.
[ -s "$tmp/err" ] && { fail "confpol claude -q printed something"; cat "$tmp/err"; }
set_=$(ls "$HOME"/.config/confpol/claude/proj-*/settings.json 2>/dev/null)
[ -f "$set_" ] || fail "no settings file under ~/.config/confpol/claude"
[ "$(stat -c %a "$(dirname "$set_")")" = 700 ] || fail "the settings directory is not private"
"$CONFPOL" verify -q --claude "$set_" "$(dirname "$set_")/policy.claude.json" ||
    fail "verify of the settings confpol claude wrote"
out=$(PATH="$tmp/bin:$PATH" "$CONFPOL" claude -- -p hello world 2>&1 >/dev/null | tail -n 1)
[ "$out" = "confpol claude: claude --settings $set_ (policy policy.confpol, PROJECT=$PROJ)" ] ||
    fail "the line confpol claude prints: $out"
n=$(PATH="$tmp/bin:$PATH" "$CONFPOL" claude -- -p hello world 2>&1 >/dev/null | wc -l)
[ "$n" -eq 1 ] || fail "a clean start printed $n lines, expected 1"

# Settings files that Claude Code merges in and that would loosen it.
mkdir -p "$HOME/.claude" .claude
printf '%s\n' '{"sandbox": {"filesystem": {"allowWrite": ["/etc"]}, "network": {"allowUnixSockets": ["/var/run/docker.sock"]}}, "disableAllHooks": true}' \
    >"$HOME/.claude/settings.json"
printf '%s\n' '{"permissions": {"allow": ["Edit(//tmp/**)"]}, "sandbox": {"network": {"allowAllUnixSockets": true}}}' >.claude/settings.local.json
PATH="$tmp/bin:$PATH" "$CONFPOL" claude -q -- -p hello world >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "loosening settings: exit $rc"
grep '^confpol claude:' "$tmp/out" >"$tmp/got"
cat >"$tmp/want" <<EOF
confpol claude: $HOME/.claude/settings.json: disableAllHooks (the gate hook would never run) is true
confpol claude: $HOME/.claude/settings.json: sandbox.filesystem.allowWrite holds "/etc", which Claude Code adds to this policy's list
confpol claude: $HOME/.claude/settings.json: sandbox.network.allowUnixSockets holds "/var/run/docker.sock", which Claude Code adds to this policy's list
confpol claude: $PROJ/.claude/settings.local.json: sandbox.network.allowAllUnixSockets is true (every Unix socket would be reachable)
confpol claude: $PROJ/.claude/settings.local.json: permissions.allow holds "Edit(//tmp/**)": Claude Code adds Edit allow rules to the Bash sandbox's writable paths
confpol claude: refused: Claude Code merges these files with the policy's settings; remove the entries above first
EOF
diff -u "$tmp/want" "$tmp/got" || fail "refusal text"
grep -q "stand-in ran" "$tmp/out" && fail "claude started despite the loosening settings"
rm -f "$HOME/.claude/settings.json" .claude/settings.local.json

# A policy with errors starts nothing.
printf 'confpol 1\nwirte ${PROJECT}\n' >bad.confpol
PATH="$tmp/bin:$PATH" "$CONFPOL" claude -q bad.confpol -- -p hello world >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a policy with errors: exit not 1"
grep -q "stand-in ran" "$tmp/out" && fail "claude started with a broken policy"
# No claude: 127.
PATH="$tmp/empty" "$CONFPOL" claude -q >/dev/null 2>&1
[ $? -eq 127 ] || fail "no claude binary: exit not 127"

# The real client, when installed: it starts through confpol claude, and
# loads the settings file confpol wrote (doctor lists invalid settings of
# the files it reads; the same file as user settings must not be listed,
# while a file with a wrong type is: the negative control).
real=$(command -v claude 2>/dev/null)
if [ -n "$real" ] && [ "$real" != "$tmp/bin/claude" ]; then
    v=$(timeout 60 "$CONFPOL" claude -q -- --version 2>/dev/null)
    case $v in
    *"(Claude Code)"*) ;;
    *) fail "real claude --version through confpol claude: $v" ;;
    esac
    if command -v script >/dev/null 2>&1; then
        doctor() { # HOME-dir
            (cd "$1" && HOME="$1" timeout 25 script -qc "$real doctor" /dev/null </dev/null 2>&1) |
                sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' | tr -d '\r' | tr -d ' '
        }
        mkdir -p "$tmp/d1/.claude" "$tmp/d2/.claude"
        cp "$set_" "$tmp/d1/.claude/settings.json"
        jq '.model = 5' "$set_" >"$tmp/d2/.claude/settings.json"
        doctor "$tmp/d1" >"$tmp/d1.out" &
        doctor "$tmp/d2" >"$tmp/d2.out"
        wait
        if grep -q "Updates\|Version\|version" "$tmp/d2.out"; then
            grep -q "Invalidsettings" "$tmp/d2.out" || fail "doctor negative control"
            grep -q "Invalidsettings" "$tmp/d1.out" &&
                { fail "the real client lists the settings confpol claude wrote as invalid"; grep -A3 Invalid "$tmp/d1.out"; }
        else
            echo "note: claude doctor printed nothing usable; its check skipped"
        fi
    fi
else
    echo "note: no claude binary (npm install -g @anthropic-ai/claude-code): the real-client part skipped"
    [ "${CI:-}" = true ] && fail "CI must have the claude binary"
fi
[ $fails -eq 0 ] || exit 1
echo "claude-path: ok"

#!/bin/sh
# Claude Code whole inside the confinement (examples/claude-code-whole.confpol):
# `confpol claude --whole` runs `confpol run POLICY -- claude --settings FILE`
# with Claude Code's own sandbox off and the gate hook wired.  A stand-in
# claude tries every access a session would: the project and ~/.claude are
# writable; .git/hooks, .git/config, ~/.ssh, its own settings file and the
# direct network (a listener on the host, an outside address) are not; the
# wired gate hook answers inside.  The real claude binary, when installed,
# starts offline inside (`claude --version`).  Until the filtering proxy
# lands, a net allow-list means no network at all under confpol run: only
# the direct-network denial is checked.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v jq >/dev/null 2>&1 || { echo "no jq"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "no python3"; exit 77; }
bwrap --ro-bind / / true 2>/dev/null || { echo "bwrap cannot start here"; exit 77; }
# Outside /tmp: the policy makes /tmp writable, and the settings directory
# under HOME must not be.
tmp=$(mktemp -d /var/tmp/confpol-whole.XXXXXX)
lpid=
trap '[ -n "$lpid" ] && kill "$lpid" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
pol="$TOP/examples/claude-code-whole.confpol"
"$CONFPOL" check -Werror "$pol" >"$tmp/out" 2>&1 || { fail "check -Werror"; cat "$tmp/out"; }
mkdir -p "$tmp/proj/.git/hooks" "$tmp/home/.ssh" "$tmp/home/.claude" "$tmp/bin"
printf '[core]\n' >"$tmp/proj/.git/config"
printf 'key\n' >"$tmp/home/.ssh/id_ed25519"

# A listener on the host's loopback, on a free port.
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.close()
' >"$tmp/port" &
lpid=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$tmp/port")
[ -n "$port" ] || { echo "FAIL: no listener"; exit 1; }
python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), timeout=3)" ||
    fail "the listener cannot be reached from outside (the network check below would prove nothing)"

cat >"$tmp/bin/claude" <<'EOF'
#!/bin/sh
[ "$1" = --settings ] || { echo "FAIL: no --settings: $*"; exit 90; }
s=$2
jq -e '.sandbox.enabled == false' "$s" >/dev/null || echo "FAIL: Claude Code's own sandbox is not off"
echo x >src.txt || echo "FAIL: project write"
echo x >"$HOME/.claude/projects.json" || echo "FAIL: ~/.claude write"
echo x >"$HOME/.claude.json" || echo "FAIL: ~/.claude.json write"
echo x >.git/hooks/pre-commit 2>/dev/null && echo "FAIL: .git/hooks written"
echo x >>.git/config 2>/dev/null && echo "FAIL: .git/config written"
cat "$HOME/.ssh/id_ed25519" 2>/dev/null && echo "FAIL: ~/.ssh read"
echo x >>"$s" 2>/dev/null && echo "FAIL: its own settings written"
python3 -c 'import socket' || echo "FAIL: python3 does not run inside: the network checks would prove nothing"
python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), timeout=3)" 2>/dev/null &&
    echo "FAIL: the host's loopback listener reached"
python3 -c "import socket; socket.create_connection(('1.1.1.1', 443), timeout=3)" 2>/dev/null &&
    echo "FAIL: an outside address reached directly"
cmd=$(jq -r '.hooks.PreToolUse[0].hooks[0].command' "$s")
printf '%s' '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}' |
    sh -c "$cmd" | jq -e '.hookSpecificOutput.permissionDecision == "ask"' >/dev/null ||
    echo "FAIL: the gate hook does not answer inside"
echo "stand-in done: $*"
EOF
chmod +x "$tmp/bin/claude"
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= PORT=$port PATH="$tmp/bin:$PATH" \
    timeout 120 "$CONFPOL" claude --whole -q "$pol" -- -p hi) >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "confpol claude --whole: exit $rc"
grep '^FAIL' "$tmp/out" && fail "a denied access succeeded, or an allowed one failed"
grep -q '^stand-in done: --settings .* -p hi$' "$tmp/out" || { fail "the stand-in did not run to its end"; cat "$tmp/out"; }
[ "$(cat "$tmp/proj/src.txt" 2>/dev/null)" = x ] || fail "the project write did not reach the host"

# The settings directory writable by the policy: refused.
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME=/tmp/confpol-cache-$$ PORT=$port PATH="$tmp/bin:$PATH" \
    timeout 60 "$CONFPOL" claude --whole -q "$pol") >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "settings in a write root: not refused"
grep -q "the policy lets the agent write /tmp/confpol-cache-$$/confpol/claude/" "$tmp/out" ||
    { fail "settings in a write root: message"; cat "$tmp/out"; }
grep -q '^stand-in done' "$tmp/out" && fail "claude started with writable settings"
rm -rf "/tmp/confpol-cache-$$"

# The real client, offline, whole inside.
real=$(command -v claude 2>/dev/null)
if [ -n "$real" ]; then
    v=$(cd "$tmp/proj" && HOME="$tmp/home" timeout 120 "$CONFPOL" run "$pol" -- claude --version 2>/dev/null)
    case $v in
    *"(Claude Code)"*) ;;
    *) fail "confpol run POLICY -- claude --version: $v" ;;
    esac
    v=$(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= CONFPOL_CLAUDE= timeout 120 \
        "$CONFPOL" claude --whole -q "$pol" -- --version 2>/dev/null)
    case $v in
    *"(Claude Code)"*) ;;
    *) fail "confpol claude --whole -- --version: $v" ;;
    esac
else
    echo "note: no claude binary (npm install -g @anthropic-ai/claude-code): the real-client part skipped"
    [ "${CI:-}" = true ] && fail "CI must have the claude binary"
fi
[ $fails -eq 0 ] || exit 1
echo "claude-whole: ok"

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

# ~/.claude.json: the keys a later session acts on are put back after the
# session, and said; the rest of what the session wrote stays.
cat >"$tmp/bin/claude" <<'EOF'
#!/bin/sh
python3 - "$HOME/.claude.json" <<'PY'
import json, os, sys
p = sys.argv[1]
d = json.load(open(p))
d["mcpServers"] = {"x": {"command": "/bin/sh", "args": ["-c", "id"]}}
d["env"] = {"NODE_OPTIONS": "--require /tmp/x.js"}
d["numStartups"] = 7
pr = d.setdefault("projects", {})
pr.setdefault("/elsewhere", {})["hasTrustDialogAccepted"] = True
pr["/elsewhere"]["allowedTools"] = ["Bash(*)"]
pr.setdefault(os.getcwd(), {})["hasTrustDialogAccepted"] = True
pr[os.getcwd()]["mcpServers"] = {}
json.dump(d, open(p, "w"))
PY
echo "stand-in done"
EOF
printf '{"numStartups": 1, "projects": {"/elsewhere": {"allowedTools": []}}}\n' >"$tmp/home/.claude.json"
chmod 600 "$tmp/home/.claude.json"
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= PATH="$tmp/bin:$PATH" \
    timeout 120 "$CONFPOL" claude --whole -q "$pol" -- -p hi) >"$tmp/out" 2>&1
[ $? -eq 0 ] || { fail "state watch: exit"; cat "$tmp/out"; }
python3 - "$tmp/home/.claude.json" "$tmp/proj" <<'PY' || fail "state watch: ~/.claude.json after the session"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["projects"]
ok = ("mcpServers" not in d and "env" not in d and d["numStartups"] == 7
      and p["/elsewhere"] == {"allowedTools": []}
      and p[sys.argv[2]]["hasTrustDialogAccepted"] is True)
sys.exit(0 if ok else 1)
PY
[ "$(stat -c %a "$tmp/home/.claude.json")" = 600 ] || fail "state watch: ~/.claude.json is not 0600 after the put back"
for k in 'mcpServers' 'env' 'projects["/elsewhere"].hasTrustDialogAccepted' 'projects["/elsewhere"].allowedTools'; do
    grep -qF "the session changed $k, which a later session acts on: put back" "$tmp/out" ||
        { fail "state watch: the change of $k is not said"; cat "$tmp/out"; }
done
grep -qF "4 changes to $tmp/home/.claude.json that a later session would act on were put back" "$tmp/out" ||
    fail "state watch: no summary"
grep -qF "projects[\"$tmp/proj\"].hasTrustDialogAccepted became true (kept" "$tmp/out" ||
    fail "state watch: this project's trust is not said"
# A session that ended before its check (confpol killed): the copy left in
# confpol's directory is checked at the next start.
d=$(ls -d "$tmp"/home/.cache/confpol/claude/proj-*)
printf '{"numStartups": 1}\n' >"$d/claude.json.before"
printf '{"numStartups": 2, "mcpServers": {"x": {"command": "/bin/sh"}}}\n' >"$tmp/home/.claude.json"
printf '#!/bin/sh\necho "stand-in done"\n' >"$tmp/bin/claude"
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= PATH="$tmp/bin:$PATH" \
    timeout 120 "$CONFPOL" claude --whole -q "$pol" -- -p hi) >"$tmp/out" 2>&1
grep -q "the last session in this project ended before its check" "$tmp/out" &&
    grep -q "the session changed mcpServers" "$tmp/out" ||
    { fail "state watch: an unchecked session is not checked at the next start"; cat "$tmp/out"; }
grep -q mcpServers "$tmp/home/.claude.json" && fail "state watch: the unchecked change stays"
[ -e "$d/claude.json.before" ] && fail "state watch: the copy stays after the check"

# The automatic memory (~/.claude/projects/NAME/memory): a later session
# loads it, so whatever the session added, changed, removed or replaced
# there is put back and said; links are not followed.
P="$tmp/home/.claude/projects"
me=$(printf '%s' "$tmp/proj" | sed 's/[^A-Za-z0-9]/-/g')
rm -rf "$P"
mkdir -p "$P/$me/memory/sub" "$P/other/memory" "$P/third/memory" "$tmp/outside/memory" "$tmp/outside2/memory"
printf 'index\n' >"$P/$me/memory/MEMORY.md"
printf 'gone\n' >"$P/$me/memory/gone.md"
printf 'deep\n' >"$P/$me/memory/sub/deep.md"
printf 'other\n' >"$P/other/memory/MEMORY.md"
printf 'third\n' >"$P/third/memory/a.md"
printf 'sentinel\n' >"$tmp/outside/sentinel"
printf 'planted\n' >"$tmp/outside2/memory/MEMORY.md"
(cd "$tmp/outside" && find . -exec stat -c '%n %s %Y' {} + | sort) >"$tmp/outside.before"
cat >"$tmp/bin/claude" <<'EOF'
#!/bin/sh
python3 - "$HOME/.claude/projects" "$ME" "$OUT" <<'PY' || echo "FAIL: the memory writes"
import os, shutil, sys
P, me, out = sys.argv[1:]
m = P + "/" + me + "/memory"
open(m + "/new.md", "w").write("run this\n")
open(P + "/other/memory/planted.md", "w").write("run this\n")
os.makedirs(P + "/fresh/memory")
open(P + "/fresh/memory/MEMORY.md", "w").write("run this\n")
open(P + "/fresh/s.jsonl", "w").write("{}\n")
open(P + "/" + me + "/s.jsonl", "w").write("{}\n")
open(m + "/MEMORY.md", "w").write("run this\n")
os.unlink(m + "/gone.md")
shutil.rmtree(m + "/sub")
shutil.rmtree(P + "/third/memory")
os.symlink(out + "/outside", P + "/third/memory")
os.symlink(out + "/outside2", P + "/linked")
PY
echo "stand-in done"
EOF
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= ME="$me" OUT="$tmp" PATH="$tmp/bin:$PATH" \
    timeout 120 "$CONFPOL" claude --whole -q "$pol" -- -p hi) >"$tmp/out" 2>&1
[ $? -eq 0 ] || { fail "memory watch: exit"; cat "$tmp/out"; }
grep '^FAIL' "$tmp/out" && fail "memory watch: the stand-in could not write the memory"
for f in "$me/memory/new.md" other/memory/planted.md fresh/memory linked; do
    { [ -e "$P/$f" ] || [ -L "$P/$f" ]; } && fail "memory watch: $f stays"
    grep -qF "$P/$f: the session added this to the automatic memory a later session loads: put back" "$tmp/out" ||
        { fail "memory watch: $f not said"; cat "$tmp/out"; }
done
[ -e "$P/fresh/s.jsonl" ] && [ -e "$P/$me/s.jsonl" ] || fail "memory watch: a transcript was removed"
[ "$(cat "$P/$me/memory/MEMORY.md")" = index ] || fail "memory watch: the changed file was not put back"
[ "$(cat "$P/$me/memory/gone.md" 2>/dev/null)" = gone ] || fail "memory watch: the removed file was not made again"
[ "$(cat "$P/$me/memory/sub/deep.md" 2>/dev/null)" = deep ] || fail "memory watch: the removed directory was not made again"
[ -L "$P/third/memory" ] && fail "memory watch: the memory directory replaced by a link stays a link"
[ "$(cat "$P/third/memory/a.md" 2>/dev/null)" = third ] || fail "memory watch: the directory replaced by a link was not put back"
(cd "$tmp/outside" && find . -exec stat -c '%n %s %Y' {} + | sort) >"$tmp/outside.after"
cmp -s "$tmp/outside.before" "$tmp/outside.after" || fail "memory watch: the link's target was touched"
[ "$(cat "$tmp/outside2/memory/MEMORY.md")" = planted ] || fail "memory watch: a linked project's target was touched"
for w in "$me/memory/MEMORY.md: the session changed this file of" "$me/memory/gone.md: the session removed this from" \
    "$me/memory/sub: the session removed this from" "third/memory: the session replaced this entry of"; do
    grep -qF "$P/$w the automatic memory" "$tmp/out" || { fail "memory watch: not said: $w"; cat "$tmp/out"; }
done
grep -qF "10 changes to the automatic memory under $P were put back" "$tmp/out" ||
    { fail "memory watch: no count"; cat "$tmp/out"; }
[ -e "$d/memory.before" ] && fail "memory watch: the copy stays after the check"
# A session killed before its check: the copy is checked at the next start.
cat >"$tmp/bin/claude" <<'EOF'
#!/bin/sh
echo x >"$HOME/.claude/projects/other/memory/late.md"
echo x >"$OUT/planted"
i=0
while [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
EOF
rm -f "$tmp/proj/planted"
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= OUT="$tmp/proj" PATH="$tmp/bin:$PATH" \
    exec "$CONFPOL" claude --whole -q "$pol" -- -p hi) >"$tmp/out" 2>&1 &
cpid=$!
i=0
while [ ! -e "$tmp/proj/planted" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$cpid"
wait "$cpid" 2>/dev/null
[ -e "$P/other/memory/late.md" ] || fail "memory watch: the killed session did not write its memory"
[ -e "$d/memory.before" ] || fail "memory watch: no copy left by the killed session"
# The killed run's own cleanup (its stand-in, the mount points it made)
# ends on its own: wait for it.
i=0
while { pgrep -f "$tmp/bin/claude" >/dev/null || [ -d "$tmp/home/.claude/settings.json" ]; } && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
printf '#!/bin/sh\necho "stand-in done"\n' >"$tmp/bin/claude"
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= PATH="$tmp/bin:$PATH" \
    timeout 120 "$CONFPOL" claude --whole -q "$pol" -- -p hi) >"$tmp/out" 2>&1
[ $? -eq 0 ] || { fail "memory watch: the start after the kill: exit"; cat "$tmp/out"; }
grep -q "ended before its check of the automatic memory" "$tmp/out" ||
    { fail "memory watch: the killed session is not checked at the next start"; cat "$tmp/out"; }
[ -e "$P/other/memory/late.md" ] && fail "memory watch: the killed session's memory stays"
rm -f "$tmp/proj/planted"
# A memory larger than what is copied, and a linked projects directory:
# not started.
mkdir "$P/big" "$P/big/memory"
head -c 70000000 /dev/zero >"$P/big/memory/MEMORY.md"
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= PATH="$tmp/bin:$PATH" \
    timeout 120 "$CONFPOL" claude --whole -q "$pol" -- -p hi) >"$tmp/out" 2>&1
{ [ $? -eq 1 ] && grep -q "more than confpol copies" "$tmp/out"; } ||
    { fail "memory watch: a memory over the limit is not refused"; cat "$tmp/out"; }
grep -q '^stand-in done' "$tmp/out" && fail "memory watch: started with a memory over the limit"
rm -rf "$P/big"
mv "$P" "$tmp/projects.real"
ln -s "$tmp/projects.real" "$P"
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= PATH="$tmp/bin:$PATH" \
    timeout 120 "$CONFPOL" claude --whole -q "$pol" -- -p hi) >"$tmp/out" 2>&1
{ [ $? -eq 1 ] && grep -q "a link there is not followed" "$tmp/out"; } ||
    { fail "memory watch: a linked projects directory is not refused"; cat "$tmp/out"; }
rm "$P"
mv "$tmp/projects.real" "$P"

# --whole with a policy that does not give the client what it needs, or
# lets the agent plant what a later session loads: refused up front,
# naming each rule (the starter, and a policy that writes ~/.claude whole).
(cd "$tmp/proj" && HOME="$tmp/home" "$CONFPOL" init --claude --force starter.confpol >/dev/null)
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= PATH="$tmp/bin:$PATH" \
    timeout 60 "$CONFPOL" claude --whole -q starter.confpol) >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "--whole with the starter: not refused"
for want in "Code write $tmp/home/.claude.json, its state file (add 'write $tmp/home/.claude.json')" \
    "Code write $tmp/home/.claude, its state directory (add 'write $tmp/home/.claude')" \
    "Code reach its API host api.anthropic.com:443: the proxy would refuse every request (add 'net allow api.anthropic.com')"; do
    grep -qF "$want" "$tmp/out" || { fail "--whole with the starter: not said: $want"; cat "$tmp/out"; }
done
grep -q '^stand-in done' "$tmp/out" && fail "--whole with the starter: claude started"
grep -v '^deny write ~/.claude/\|^expect deny write ~/.claude/' "$pol" >"$tmp/proj/open.confpol"
(cd "$tmp/proj" && HOME="$tmp/home" XDG_CACHE_HOME= PATH="$tmp/bin:$PATH" \
    ANTHROPIC_BASE_URL=https://llm.example.test:8443/v1 \
    timeout 60 "$CONFPOL" claude --whole -q open.confpol) >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "--whole with ~/.claude open: not refused"
for f in skills/x/SKILL.md CLAUDE.md settings.json hooks/x commands/x.md agents/x.md plugins/x output-styles/x.md; do
    grep -qF "lets the agent write $tmp/home/.claude/$f, which a later session" "$tmp/out" ||
        { fail "--whole with ~/.claude open: $f not named"; cat "$tmp/out"; }
done
grep -qF "API host llm.example.test:8443" "$tmp/out" ||
    { fail "--whole: the API host of ANTHROPIC_BASE_URL is not the one asked"; cat "$tmp/out"; }
grep -q '^stand-in done' "$tmp/out" && fail "--whole with ~/.claude open: claude started"

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

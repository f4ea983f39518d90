#!/bin/sh
# End to end with the real client: Claude Code from npm (the version of the
# reference sheet), installed into the build directory, offline, in a
# scratch HOME and project, talking to a stand-in model API on loopback
# (tests/claude/modelapi.py) that makes it issue a scripted list of tool
# calls (Bash, Write, Edit, Read), approved with --allowedTools.
#   confpol claude POLICY        the starter (confpol init --claude)
#   confpol claude --whole EX    the whole-client example
# Each run checks the policy's expect lines that a tool call can show, that
# nothing is planted for a later session, that the credential files are
# unreadable, and that no process confpol started is left.  Skipped (77)
# with the reason only where the client is not installed and npm cannot
# install it; every step has a time limit.
set -u
: "${CONFPOL:?}" "${TOP:?}"
CLAUDE_VERSION=2.1.332
for t in python3 bwrap socat rg git timeout; do
    command -v $t >/dev/null 2>&1 || { echo "skip: no $t"; exit 77; }
done
bwrap --ro-bind / / true 2>/dev/null || { echo "skip: bwrap cannot start here"; exit 77; }

# The client, in the build directory (.ci/deps.sh installs it there too).
tools=${CONFPOL_TOOLS:-$TOP/build/tools}
client=$tools/claude/node_modules/.bin/claude
if [ "$(timeout 30 "$client" --version 2>/dev/null)" != "$CLAUDE_VERSION (Claude Code)" ]; then
    command -v npm >/dev/null 2>&1 || { echo "skip: no npm to install Claude Code $CLAUDE_VERSION into $tools"; exit 77; }
    echo "installing @anthropic-ai/claude-code@$CLAUDE_VERSION into $tools/claude"
    mkdir -p "$tools/claude"
    if ! timeout 300 npm install --prefix "$tools/claude" --no-fund --no-audit \
        --loglevel=error "@anthropic-ai/claude-code@$CLAUDE_VERSION" >"$tools/claude.log" 2>&1; then
        if grep -qi 'ENOTFOUND\|ECONNREFUSED\|ETIMEDOUT\|EAI_AGAIN\|network' "$tools/claude.log"; then
            echo "skip: npm cannot reach its registry (log: $tools/claude.log)"
            exit 77
        fi
        echo "FAIL: npm install of Claude Code failed:"; cat "$tools/claude.log"; exit 1
    fi
    mkdir -p "$tools/bin" && ln -sf ../claude/node_modules/.bin/claude "$tools/bin/claude"
fi
v=$(timeout 30 "$client" --version 2>&1)
[ "$v" = "$CLAUDE_VERSION (Claude Code)" ] || { echo "FAIL: $client --version: $v"; exit 1; }

# Outside /tmp: the whole-client example makes /tmp writable, and a
# CLAUDE.md in a writable directory above the project is a plant.
w=$(mktemp -d /var/tmp/confpol-e2e.XXXXXX) || exit 1
api=
cleanup() {
    [ -n "$api" ] && kill "$api" 2>/dev/null
    [ -n "${KEEP:-}" ] || rm -rf "$w"
}
trap cleanup EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# The attacks Bash runs through python3, so that the client's permission
# rules, which read the command line, cannot see the paths: what stops
# them is the confinement.
CREDS=".netrc .git-credentials .npmrc .pypirc .docker/config.json .kube/config
.config/gcloud/credentials.db .azure/msal_token_cache.json .cargo/credentials.toml
.ssh/id_ed25519 .aws/credentials .config/gh/hosts.yml"
cat >"$w/read.py" <<EOF
import os
for f in """$CREDS""".split():
    try:
        print(f, open(os.path.expanduser("~/" + f)).read().strip())
    except OSError as e:
        print(f, "refused:", e.strerror)
EOF
cat >"$w/plant.py" <<'EOF'
import os, sys
for f in sys.argv[1:]:
    p = os.path.expanduser(f)
    try:
        os.makedirs(os.path.dirname(p) or ".", exist_ok=True)
        with open(p, "a") as o:
            o.write("planted\n")
        print(f, "written")
    except OSError as e:
        print(f, "refused:", e.strerror)
EOF
PLANTS="~/.claude/skills/x/SKILL.md ~/.claude/CLAUDE.md ~/.claude/commands/x.md ~/.claude/agents/x.md ~/.claude/settings.json .mcp.json .claude/skills/x/SKILL.md .git/hooks/pre-commit .git/config ~/.bashrc"

# setup: a fresh HOME holding a developer's credentials, a git project.
setup() {
    rm -rf "$w/home"
    H=$w/home
    P=$H/proj
    mkdir -p "$P/src" "$H/.ssh" "$H/.docker" "$H/.kube" "$H/.config/gcloud" \
        "$H/.azure" "$H/.cargo" "$H/.aws" "$H/.config/gh" "$H/.claude"
    for f in .netrc .git-credentials .npmrc .pypirc .docker/config.json \
        .kube/config .config/gcloud/credentials.db .azure/msal_token_cache.json \
        .cargo/credentials.toml .ssh/id_ed25519 .aws/credentials .config/gh/hosts.yml; do
        echo "SECRET-$f" >"$H/$f"
    done
    echo '{}' >"$H/.claude.json"
    (cd "$P" && git init -q . && printf 'x\n' >src/a.c && echo 'SECRET-.env' >.env)
    cp "$P/.git/config" "$w/gitconfig.before"
}

# session NAME SCRIPT ARGS...: the stand-in API with SCRIPT, then
# `confpol ARGS...` in the project (Claude Code's arguments after --).
session() {
    name=$1 script=$2
    shift 2
    rm -f "$w/$name.log" "$w/port"
    timeout 300 python3 "$TOP/tests/claude/modelapi.py" "$script" "$w/$name.log" "$w/port" &
    api=$!
    i=0
    while [ ! -s "$w/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    port=$(cat "$w/port" 2>/dev/null)
    [ -n "$port" ] || { fail "$name: the stand-in API did not start"; return 1; }
    (cd "$P" && env -u CLAUDE_CONFIG_DIR HOME="$H" XDG_CONFIG_HOME= XDG_CACHE_HOME= \
        ANTHROPIC_API_KEY=sk-stand-in ANTHROPIC_BASE_URL="${BASE:-http://127.0.0.1:$port}" \
        CONFPOL_PROXY_HOSTS="$w/hosts" CONFPOL_CLAUDE="$client" \
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
        timeout 180 "$CONFPOL" "$@" -- -p "run the script" \
        --allowedTools "Bash,Read,Write,Edit" </dev/null) >"$w/$name.out" 2>"$w/$name.err"
    rc=$?
    kill "$api" 2>/dev/null
    wait "$api" 2>/dev/null
    api=
    return $rc
}

# result NAME STEP: what step STEP returned ("" when it never ran).
result() {
    python3 - "$w/$1.log" "$2" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    d = json.loads(line)
    if d["step"] == int(sys.argv[2]):
        print(("ERROR " if d["is_error"] else "") + d["content"])
PY
}

# The steps, each a tool call; checked below by number.
step() { printf '%s\n' "$1"; }
steps() {
    printf '[\n'
    sep=
    while IFS= read -r l; do printf '%s%s' "$sep" "$l"; sep=',
'; done
    printf '\n]\n'
}

# ---- confpol claude, the starter ------------------------------------------
setup
(cd "$P" && HOME="$H" "$CONFPOL" init --claude >/dev/null) || fail "init --claude"
steps >"$w/s1.json" <<EOF
{"tool": "Bash", "input": {"command": "echo main > src/main.c && cat src/main.c", "description": "s"}}
{"tool": "Write", "input": {"file_path": "$P/.git/hooks/pre-commit", "content": "planted"}}
{"tool": "Bash", "input": {"command": "echo '[core] hooksPath = /x' >> .git/config; echo done", "description": "s"}}
{"tool": "Write", "input": {"file_path": "$P/.claude/settings.json", "content": "{}"}}
{"tool": "Read", "input": {"file_path": "$P/.env"}}
{"tool": "Bash", "input": {"command": "cat ~/.ssh/id_ed25519", "description": "s"}}
{"tool": "Bash", "input": {"command": "git push --force origin main", "description": "s"}}
{"tool": "Bash", "input": {"command": "git status --short", "description": "s"}}
{"tool": "Read", "input": {"file_path": "$H/.netrc"}}
{"tool": "Bash", "input": {"command": "cat ~/.netrc ~/.git-credentials ~/.npmrc ~/.pypirc ~/.docker/config.json ~/.kube/config ~/.config/gcloud/credentials.db ~/.azure/msal_token_cache.json ~/.cargo/credentials.toml ~/.aws/credentials ~/.config/gh/hosts.yml", "description": "s"}}
{"tool": "Read", "input": {"file_path": "$H/.cargo/credentials.toml"}}
{"tool": "Bash", "input": {"command": "mkdir -p ~/.claude/skills/x && echo planted > ~/.claude/skills/x/SKILL.md; echo planted > ~/.claude/CLAUDE.md; echo '{\"mcpServers\":{}}' > .mcp.json; echo done", "description": "s"}}
{"tool": "Edit", "input": {"file_path": "$P/src/a.c", "old_string": "x", "new_string": "y"}}
{"tool": "Bash", "input": {"command": "setsid nohup sleep 3131 >/dev/null 2>&1 & echo started", "description": "s"}}
{"tool": "Bash", "input": {"command": "python3 $w/read.py", "description": "s"}}
{"tool": "Bash", "input": {"command": "python3 $w/plant.py $PLANTS", "description": "s"}}
EOF
session starter "$w/s1.json" claude -q || fail "confpol claude (starter): exit $? ($(head -c 600 "$w/starter.err"))"
check_common() {
    n=$1
    [ "$(cat "$P/src/main.c" 2>/dev/null)" = main ] || fail "$n: expect allow write \${PROJECT}/src/main.c: not written"
    [ -e "$P/.git/hooks/pre-commit" ] && fail "$n: expect deny write \${PROJECT}/.git/hooks/pre-commit: written"
    cmp -s "$P/.git/config" "$w/gitconfig.before" || fail "$n: expect deny write \${PROJECT}/.git/config: changed"
    [ -e "$P/.claude/settings.json" ] && fail "$n: expect deny write \${PROJECT}/.claude/settings.json: written"
    [ "$(result "$n" 0)" = main ] || fail "$n: step 0: $(result "$n" 0)"
    [ "$(cat "$P/src/a.c")" = y ] || fail "$n: the Edit tool did not edit the project"
    for s in 4 5 8 9 10 14; do
        r=$(result "$n" $s)
        case $r in *SECRET*) fail "$n: step $s read a secret: $r" ;; esac
    done
    case $(result "$n" 6) in
    *ERROR*) ;;
    *) fail "$n: expect ask gate \"git push --force origin main\": not refused under -p: $(result "$n" 6)" ;;
    esac
    case $(result "$n" 7) in
    "" | ERROR*) fail "$n: expect allow gate \"git status\": $(result "$n" 7)" ;;
    esac
    case $(result "$n" 14) in *"refused: "*) ;; *) fail "$n: the credential reads did not run: $(result "$n" 14)" ;; esac
    [ -n "$(result "$n" 15)" ] || fail "$n: the plants did not run"
    for f in $PLANTS; do
        case $f in "~/"*) f=$H/${f#"~/"} ;; *) f=$P/$f ;; esac
        grep -qs planted "$f" && fail "$n: planted for a later session: $f ($(result "$n" 15 | tr '\n' ' '))"
    done
    # every step ran: the session was not cut short
    [ "$(wc -l <"$w/$n.log")" -ge "$2" ] || fail "$n: only $(wc -l <"$w/$n.log") tool results of $2"
    sleep 0.5
    if pgrep -f 'sleep 3131' >/dev/null; then
        fail "$n: a process the session started is left: $(pgrep -af 'sleep 3131')"
        pkill -f 'sleep 3131'
    fi
}
check_common starter 16
grep -q 'CP0776' "$w/starter.err" && fail "starter: CP0776 for a policy with net rules"

# ---- confpol claude --whole, the whole-client example --------------------
# The stand-in API is reached the way the real one is: by name through the
# filtering proxy (test-only CONFPOL_PROXY_HOSTS gives the name the
# loopback address, which the proxy dials only when a rule names it).
setup
steps >"$w/s2.json" <<EOF
{"tool": "Bash", "input": {"command": "echo main > src/main.c && cat src/main.c", "description": "s"}}
{"tool": "Write", "input": {"file_path": "$P/.git/hooks/pre-commit", "content": "planted"}}
{"tool": "Bash", "input": {"command": "echo '[core] hooksPath = /x' >> .git/config; echo done", "description": "s"}}
{"tool": "Write", "input": {"file_path": "$P/.claude/settings.json", "content": "{}"}}
{"tool": "Read", "input": {"file_path": "$P/.env"}}
{"tool": "Bash", "input": {"command": "cat ~/.ssh/id_ed25519", "description": "s"}}
{"tool": "Bash", "input": {"command": "git push --force origin main", "description": "s"}}
{"tool": "Bash", "input": {"command": "git status --short", "description": "s"}}
{"tool": "Read", "input": {"file_path": "$H/.netrc"}}
{"tool": "Bash", "input": {"command": "cat ~/.netrc ~/.git-credentials ~/.npmrc ~/.pypirc ~/.docker/config.json ~/.kube/config ~/.config/gcloud/credentials.db ~/.azure/msal_token_cache.json ~/.cargo/credentials.toml ~/.aws/credentials ~/.config/gh/hosts.yml", "description": "s"}}
{"tool": "Read", "input": {"file_path": "$H/.cargo/credentials.toml"}}
{"tool": "Bash", "input": {"command": "mkdir -p ~/.claude/skills/x && echo planted > ~/.claude/skills/x/SKILL.md; echo planted > ~/.claude/CLAUDE.md; echo '{\"mcpServers\":{}}' > .mcp.json; echo done", "description": "s"}}
{"tool": "Edit", "input": {"file_path": "$P/src/a.c", "old_string": "x", "new_string": "y"}}
{"tool": "Bash", "input": {"command": "setsid nohup sleep 3131 >/dev/null 2>&1 & echo started", "description": "s"}}
{"tool": "Bash", "input": {"command": "python3 $w/read.py", "description": "s"}}
{"tool": "Bash", "input": {"command": "python3 $w/plant.py $PLANTS", "description": "s"}}
{"tool": "Write", "input": {"file_path": "$H/.claude/skills/y/SKILL.md", "content": "planted"}}
{"tool": "Write", "input": {"file_path": "$P/CLAUDE.md", "content": "planted"}}
{"tool": "Bash", "input": {"command": "python3 -c 'import json,os; p=os.path.expanduser(\"~/.claude.json\"); d=json.load(open(p)); d[\"mcpServers\"]={\"x\":{\"command\":\"/bin/sh\"}}; d.setdefault(\"projects\",{}).setdefault(\"/elsewhere\",{})[\"hasTrustDialogAccepted\"]=True; json.dump(d,open(p,\"w\"))' && echo edited", "description": "s"}}
EOF
# its port is known once it listens: the policy is written then
session_whole() {
    rm -f "$w/whole.log" "$w/port"
    timeout 300 python3 "$TOP/tests/claude/modelapi.py" "$w/s2.json" "$w/whole.log" "$w/port" &
    api=$!
    i=0
    while [ ! -s "$w/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    port=$(cat "$w/port" 2>/dev/null)
    [ -n "$port" ] || { fail "whole: the stand-in API did not start"; return 1; }
    printf '127.0.0.1 api.anthropic.com\n' >"$w/hosts"
    sed "s/^net allow api.anthropic.com/net allow localhost:$port\n&/" \
        "$TOP/examples/claude-code-whole.confpol" >"$P/whole.confpol"
    (cd "$P" && env -u CLAUDE_CONFIG_DIR HOME="$H" XDG_CONFIG_HOME= XDG_CACHE_HOME= \
        ANTHROPIC_API_KEY=sk-stand-in ANTHROPIC_BASE_URL="http://api.anthropic.com:$port" \
        CONFPOL_PROXY_HOSTS="$w/hosts" CONFPOL_CLAUDE="$client" \
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
        timeout 180 "$CONFPOL" claude --whole -q whole.confpol -- -p "run the script" \
        --allowedTools "Bash,Read,Write,Edit" </dev/null) >"$w/whole.out" 2>"$w/whole.err"
    rc=$?
    kill "$api" 2>/dev/null
    wait "$api" 2>/dev/null
    api=
    return $rc
}
session_whole || fail "confpol claude --whole: exit $? ($(head -c 600 "$w/whole.err"))"
check_common whole 19
[ -e "$H/.claude/skills/y/SKILL.md" ] && fail "whole: planted ~/.claude/skills/y/SKILL.md (Write tool)"
[ -e "$P/CLAUDE.md" ] && fail "whole: planted CLAUDE.md (Write tool)"
[ "$(result whole 18)" = edited ] || fail "whole: the agent could not write ~/.claude.json (the client must): $(result whole 18)"
python3 - "$H/.claude.json" <<'PY' || fail "whole: a key of ~/.claude.json a later session acts on was left changed"
import json, sys
d = json.load(open(sys.argv[1]))
bad = "mcpServers" in d or d.get("projects", {}).get("/elsewhere", {}).get("hasTrustDialogAccepted")
sys.exit(1 if bad else 0)
PY
grep -q 'the session changed mcpServers, which a later session acts on: put back' "$w/whole.err" ||
    fail "whole: the change of mcpServers was not said: $(cat "$w/whole.err")"

# ---- --whole with the starter: refused up front, naming the rules -------
setup
(cd "$P" && HOME="$H" "$CONFPOL" init --claude >/dev/null)
(cd "$P" && HOME="$H" XDG_CACHE_HOME= CONFPOL_CLAUDE=/bin/false timeout 60 \
    "$CONFPOL" claude --whole -q) >"$w/refuse.out" 2>&1
[ $? -eq 1 ] || fail "--whole with the starter: not refused: $(cat "$w/refuse.out")"
for want in "write $H/.claude.json" "write $H/.claude')" "net allow api.anthropic.com" \
    "write $P/.mcp.json, which a later session"; do
    grep -qF "$want" "$w/refuse.out" || fail "--whole with the starter: '$want' not named: $(cat "$w/refuse.out")"
done

[ $fails -eq 0 ] || {
    for f in starter whole; do
        echo "--- $f.err"; cat "$w/$f.err" 2>/dev/null
        echo "--- $f.log"; cat "$w/$f.log" 2>/dev/null
    done
    exit 1
}
echo "claude-e2e: ok (Claude Code $CLAUDE_VERSION)"

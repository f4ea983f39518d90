#!/bin/sh
# confpol gate on the file tools' paths (spec/gate.md, "File tools by
# path"): Write, Edit, MultiEdit and NotebookEdit with clean content are
# denied outside the write roots and inside deny-write targets, and allowed
# inside the roots; relative paths against the input's cwd, '..', '~',
# trailing slashes, long paths, symbolic links out of the roots (in a
# directory of the path, as the final component, dangling), hard links.
# Each call runs the hook command exactly as the settings hold it (through
# sh, a JSON tool call on stdin): the command `confpol build` writes and
# the one `confpol install` writes; then the policy itself as the hook's
# argument, which must agree.
set -u
: "${CONFPOL:?}" "${TOP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
unset CONFPOL_GATE_LOG CONFPOL_GATE_LOG_KEY CLAUDE_PROJECT_DIR
CONFPOL=$(cd "$(dirname "$CONFPOL")" && pwd)/$(basename "$CONFPOL")

home=$tmp/home
proj=$tmp/proj
out=$tmp/out
mkdir -p "$home/.config" "$proj/.git/hooks" "$proj/src" "$out" "$tmp/outside" \
    "$tmp/bin"
export HOME="$home"
# the hook program as the command build writes names it (`confpol-gate
# ...`), and confpol (`confpol gate ...`), on PATH
ln -s "$CONFPOL" "$tmp/bin/confpol"
ln -s "$(dirname "$CONFPOL")/confpol-gate" "$tmp/bin/confpol-gate"
PATH=$tmp/bin:$PATH
export PATH
cat >"$proj/pol.confpol" <<'EOF'
confpol 1
profile confined
write ${PROJECT}
write ~/.cache
deny write ${PROJECT}/.git/hooks
deny write ~/.config/autostart
EOF
(cd "$proj" && "$CONFPOL" build --target claude -D "PROJECT=$proj" -o "$out" \
    pol.confpol) >"$tmp/b" 2>&1 || { cat "$tmp/b"; fail "build"; }
printf '{}\n' >"$tmp/settings.json"
"$CONFPOL" install --claude -q "$tmp/settings.json" "$out/pol.claude.json" \
    >"$tmp/i" 2>&1 || { cat "$tmp/i"; fail "install"; }

# Links that lead out of the roots, and one that stays in.
ln -s "$tmp/outside" "$proj/escape"
ln -s "$home/.config" "$proj/cfg"
ln -s "$proj/.git/hooks" "$proj/src/hooks"
ln -s "$tmp/outside/new-file" "$proj/dangling"
ln -s "$proj/src" "$proj/inside"
printf 'x\n' >"$tmp/outside/victim"
ln "$tmp/outside/victim" "$proj/hardlink" 2>/dev/null || : >"$proj/hardlink"
long=$proj/$(python3 -c 'print("/".join(["d" * 200] * 22))')/f

# The hook commands: as build wrote it (run in the artifact's directory) and
# as install wrote it.
build_cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hooks"]["PreToolUse"][0]["hooks"][0]["command"])' "$out/pol.claude.json")
inst_cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hooks"]["PreToolUse"][0]["hooks"][0]["command"])' "$tmp/settings.json")
case "$inst_cmd" in
*"gate --sha256 "*) ;;
*) fail "installed hook command: $inst_cmd" ;;
esac

# call TOOL PATH [CWD]: the JSON tool call on stdin (clean content).
input() {
    python3 - "$1" "$2" "${3:-$proj}" <<'EOF'
import json, sys
tool, path, cwd = sys.argv[1:4]
ti = {"Write": {"file_path": path, "content": "#!/bin/sh\necho hello\n"},
      "Edit": {"file_path": path, "old_string": "a", "new_string": "b"},
      "MultiEdit": {"file_path": path,
                    "edits": [{"old_string": "a", "new_string": "b"}]},
      "NotebookEdit": {"notebook_path": path, "new_source": "print(1)"}}[tool]
print(json.dumps({"hook_event_name": "PreToolUse", "cwd": cwd,
                  "tool_name": tool, "tool_input": ti}))
EOF
}

# check WHO CMD DIR EXPECT TOOL PATH [CWD]
check() {
    who=$1 cmd=$2 dir=$3 want=$4
    shift 4
    input "$@" >"$tmp/in.json"
    (cd "$dir" && timeout 20 sh -c "$cmd" <"$tmp/in.json") >"$tmp/o" 2>"$tmp/e"
    rc=$?
    got=allow
    grep -q '"permissionDecision": "deny"' "$tmp/o" && got=deny
    grep -q '"permissionDecision": "ask"' "$tmp/o" && got=ask
    if [ "$got" != "$want" ] || [ $rc -ne 0 ]; then
        fail "$who: $* -> $got (exit $rc), want $want: $(cat "$tmp/o" "$tmp/e")"
    fi
}

cases="allow Write $proj/src/main.c
allow Edit $proj/README.md
allow MultiEdit $proj/src/a/b/new.c
allow NotebookEdit $proj/nb.ipynb
allow Write src/rel.c
allow Write ./src/../src/x.c
allow Write $proj/src/
allow Write $proj/inside/x.c
allow Write $home/.cache/x
allow Write ~/.cache/y
deny Write $proj/.git/hooks/pre-commit
deny Edit $proj/.git/hooks/pre-commit
deny MultiEdit $proj/.git/hooks/post-checkout
deny NotebookEdit $proj/.git/hooks/x.ipynb
deny Write $proj/.git//hooks/pre-commit
deny Write $proj/.git/hooks/
deny Write $proj/.git/./hooks/pre-commit
deny Write $proj/src/../.git/hooks/pre-commit
deny Write .git/hooks/pre-commit
deny Write src/hooks/pre-commit
deny Write $home/.config/autostart/x.desktop
deny Write ~/.config/autostart/x.desktop
deny Write $proj/cfg/autostart/x.desktop
deny Write $tmp/outside/x
deny Write $proj/../outside/x
deny Write /etc/cron.d/x
deny Write $home/.bashrc
deny Write ~/.bashrc
deny Write $proj/escape/x
deny Write $proj/dangling
deny Write $proj/escape/../../outside/y
deny Write $proj/hardlink
deny Write $long
deny Write relative-without-cwd NOCWD
deny Write $proj/pol.confpol"

run_cases() {
    who=$1 cmd=$2 dir=$3
    printf '%s\n' "$cases" | while read -r want tool path cwd; do
        if [ "${cwd:-}" = NOCWD ]; then
            check "$who" "$cmd" "$dir" "$want" "$tool" "$path" relative
        else
            check "$who" "$cmd" "$dir" "$want" "$tool" "$path"
        fi
    done
}
run_cases build "$build_cmd" "$out"
run_cases install "$inst_cmd" "$tmp"
run_cases policy "confpol gate -D PROJECT='$proj' '$proj/pol.confpol'" "$proj"
# PROJECT left unbound at build: the hook takes CLAUDE_PROJECT_DIR, and
# without it cannot place the project's rules (deny).
mkdir "$tmp/out2"
(cd "$proj" && "$CONFPOL" build --target claude -o "$tmp/out2" pol.confpol) \
    >"$tmp/b2" 2>&1 || { cat "$tmp/b2"; fail "build unbound"; }
ucmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hooks"]["PreToolUse"][0]["hooks"][0]["command"])' "$tmp/out2/pol.claude.json")
check unbound-no-env "$ucmd" "$tmp/out2" deny Write "$proj/src/main.c"
CLAUDE_PROJECT_DIR=$proj
export CLAUDE_PROJECT_DIR
check unbound-env "$ucmd" "$tmp/out2" allow Write "$proj/src/main.c"
check unbound-env "$ucmd" "$tmp/out2" deny Write "$proj/.git/hooks/pre-commit"
unset CLAUDE_PROJECT_DIR

# The reasons say what was decided.
input Write "$proj/escape/x" >"$tmp/in.json"
(cd "$out" && sh -c "$build_cmd" <"$tmp/in.json") >"$tmp/o" 2>&1
grep -q "is outside the policy's write roots" "$tmp/o" ||
    fail "reason outside: $(cat "$tmp/o")"
input Write "$proj/src/hooks/pre-commit" >"$tmp/in.json"
(cd "$out" && sh -c "$build_cmd" <"$tmp/in.json") >"$tmp/o" 2>&1
grep -q "is under 'deny write $proj/.git/hooks'" "$tmp/o" ||
    fail "reason deny write: $(cat "$tmp/o")"
# Bash calls are not judged by path.
printf '{"tool_name":"Bash","tool_input":{"command":"ls"}}' >"$tmp/in.json"
(cd "$out" && sh -c "$build_cmd" <"$tmp/in.json") >"$tmp/o" 2>&1
[ -s "$tmp/o" ] && fail "Bash ls: $(cat "$tmp/o")"
# A file tool without its path is malformed input (fail closed: exit 2).
printf '{"tool_name":"Write","tool_input":{"content":"x"}}' >"$tmp/in.json"
(cd "$out" && sh -c "$build_cmd" <"$tmp/in.json") >"$tmp/o" 2>&1
[ $? -eq 2 ] && grep -q "tool_input.file_path is missing or not a string" \
    "$tmp/o" || fail "no file_path: $(cat "$tmp/o")"
# An artifact built before the path check (no "paths") denies file tools.
python3 - "$out/pol.claude.json" "$tmp/old.claude.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
del d["confpol"]["paths"]
json.dump(d, open(sys.argv[2], "w"))
EOF
check old-artifact "confpol gate '$tmp/old.claude.json'" "$tmp" deny Write \
    "$proj/src/main.c"

[ $fails -eq 0 ] || exit 1
echo "gate-path: ok"

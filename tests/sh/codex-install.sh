#!/bin/sh
# install/verify/uninstall --codex (spec/settings-wiring.md, "install
# --codex"): byte-exact round trips on several config.toml files (missing,
# empty, comments and tables, CRLF, no final newline), refusals (a
# default_permissions or [permissions.confpol] of the user's, a permissions
# key, a file that cannot be read as TOML, a rules file not install's),
# concurrent installs, and with the real Codex CLI: after install `codex
# sandbox -P confpol` enforces the policy's deny and the user's own profile
# still works.  The real-client part is skipped only when npm cannot
# install the pinned Codex CLI into the build directory.
set -u
: "${CONFPOL:?}" "${TOP:?}"
mkdir -p "$TOP/${BUILD:-build}/tools" || exit 1
# Not under /tmp: Codex makes no helper links in a CODEX_HOME there.
tmp=$(mktemp -d "$TOP/${BUILD:-build}/tools/codexinst.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
no() { echo "FAIL: $*"; fail=$((fail + 1)); }
mkdir -p "$tmp/home/.codex" "$tmp/proj" "$tmp/out" || exit 1
export HOME="$tmp/home" CONFPOL_CODEX_MANAGED_DIR="$tmp/etc"
unset CODEX_HOME
cd "$tmp" || exit 1
cat >a.confpol <<P
confpol 1
profile confined
write \${PROJECT}
deny read \${PROJECT}/.env
gate deny "git push --force *"
P
cp a.confpol b.confpol
echo SECRET-ENV >proj/.env
for s in a b; do
    timeout 30 "$CONFPOL" build --target codex -D PROJECT="$tmp/proj" -D HOME="$tmp/home" \
        -o out $s.confpol 2>/dev/null || no "build $s"
done
cfg=$tmp/home/.codex/config.toml
cx() { timeout 30 "$CONFPOL" "$@"; }

roundtrip() { # NAME: $cfg holds the user's file (or is missing)
    name=$1
    had=0
    [ -e "$cfg" ] && { had=1; cp "$cfg" "$tmp/before"; }
    cx install --codex -q out/a.codex.toml || { no "$name: install refused"; return; }
    head -c 15 "$cfg" | grep -q '^# >>> confpol' || no "$name: no block at the start"
    [ -f home/.codex/rules/confpol.rules ] || no "$name: no rules file"
    if command -v python3 >/dev/null; then
        python3 -c 'import sys,tomllib; d=tomllib.load(open(sys.argv[1],"rb")); assert d["default_permissions"]=="confpol"; assert d["permissions"]["confpol"]["extends"]==":read-only"' "$cfg" ||
            no "$name: not valid TOML after install"
    fi
    cx verify --codex -q out/a.codex.toml >/dev/null || no "$name: verify after install"
    cx install --codex out/a.codex.toml | grep -q 'nothing changed' || no "$name: second install changed"
    cx uninstall --codex -q out/a.codex.toml || no "$name: uninstall"
    if [ $had = 1 ]; then
        cmp -s "$tmp/before" "$cfg" || no "$name: not byte-exact after uninstall"
    else
        [ -e "$cfg" ] && no "$name: install created the file, uninstall left it"
    fi
    [ -e home/.codex/rules ] && no "$name: rules/ left behind"
    rm -f "$cfg.bak"
}
rm -f "$cfg"
roundtrip missing
: >"$cfg"
roundtrip empty
cat >"$cfg" <<'T'
# the user's own
model = "o3"   # a comment
notify = ["a", "b",
  "c [x]"]
doc = """
[permissions.confpol]
default_permissions = "x"
"""
lit = '''
[still a string]'''

[permissions.mine]
extends = ":read-only"

[permissions.mine.filesystem]
"/srv" = "read"

[projects."/x"]
trust_level = "untrusted"
T
cp "$cfg" "$tmp/userfile"
roundtrip comments-tables
printf 'model = "o3"\r\n[permissions.mine]\r\nextends = ":read-only"\r\n' >"$cfg"
roundtrip crlf
printf '[tui]\nnotifications = true' >"$cfg"
roundtrip no-final-newline
chmod 600 "$tmp/userfile"
cp -p "$tmp/userfile" "$cfg"
cx install --codex -q out/a.codex.toml
[ "$(stat -c %a "$cfg")" = 600 ] || no "install did not keep the mode 0600"
cx uninstall --codex -q out/a.codex.toml
cmp -s "$tmp/userfile" "$cfg" || no "mode round trip not byte-exact"

# Refusals: exit 1, the file unchanged, no rules file.
refused() { # NAME PATTERN: $cfg holds the file
    cp "$cfg" "$tmp/before"
    r0=$(cat home/.codex/rules/confpol.rules 2>/dev/null)
    out=$(cx install --codex out/a.codex.toml 2>&1)
    rc=$?
    [ $rc -eq 1 ] || no "$1: exit $rc (expected 1): $out"
    printf '%s\n' "$out" | grep -q "$2" || no "$1: no '$2' in: $out"
    cmp -s "$tmp/before" "$cfg" || no "$1: the file changed"
    [ "$(cat home/.codex/rules/confpol.rules 2>/dev/null)" = "$r0" ] || no "$1: the rules file was written"
}
printf 'default_permissions = "mine"\n' >"$cfg"
refused default_permissions "already set"
printf '"default_permissions" = "mine"\n' >"$cfg"
refused quoted-key "already set"
printf '[permissions.confpol]\nextends = ":workspace"\n' >"$cfg"
refused profile "already defines the profile"
printf '[ permissions . "confpol" . filesystem ]\n"/" = "write"\n' >"$cfg"
refused profile-spaced "already defines the profile"
printf '[permissions]\nconfpol.extends = ":workspace"\n' >"$cfg"
refused profile-dotted "already defines the profile"
printf 'permissions = { mine = { extends = ":read-only" } }\n' >"$cfg"
refused permissions-inline "defines 'permissions' by a key"
printf 'sandbox_mode = "danger-full-access"\n' >"$cfg"
refused sandbox_mode "older sandbox settings"
printf '[profiles.fast]\nsandbox_mode = "workspace-write"\n' >"$cfg"
refused profile-sandbox_mode "older sandbox settings"
printf '[sandbox_workspace_write]\nnetwork_access = true\n' >"$cfg"
refused sandbox_workspace_write "older sandbox settings"
printf '[profiles.fast]\ndefault_permissions = ":danger-full-access"\n' >"$cfg"
refused profile-default_permissions "already set"
printf 'profiles = { fast = { default_permissions = ":danger-full-access" } }\n' >"$cfg"
refused profile-inline-default_permissions "already set"
printf 'profiles = { "#" = {}, fast = { sandbox_mode = "danger-full-access" } }\n' >"$cfg"
refused profile-inline-sandbox_mode "older sandbox settings"
printf 'x = """\nnever closed\n' >"$cfg"
refused unterminated "cannot be edited safely"
printf '["perm\\u0069ssions".confpol]\n' >"$cfg"
refused escaped-key "cannot be edited safely"
# another artifact's profile is a conflict too
rm -f "$cfg"
cx install --codex -q out/b.codex.toml || no "install b"
refused other-artifact "already set"
cx uninstall --codex -q out/b.codex.toml || no "uninstall b"
[ -e "$cfg" ] && no "uninstall b left the file"
# a rules file that is not install's
mkdir -p home/.codex/rules
echo 'prefix_rule(pattern = ["rm"], decision = "forbidden")' >home/.codex/rules/confpol.rules
cp home/.codex/rules/confpol.rules "$tmp/rules.before"
printf 'model = "o3"\n' >"$cfg"
out=$(cx install --codex out/a.codex.toml 2>&1)
[ $? -eq 1 ] || no "foreign rules file: not refused: $out"
printf '%s\n' "$out" | grep -q "not written by install" || no "foreign rules file: message: $out"
cmp -s "$tmp/rules.before" home/.codex/rules/confpol.rules || no "foreign rules file changed"
[ "$(cat "$cfg")" = 'model = "o3"' ] || no "foreign rules: config changed"
rm -rf home/.codex/rules
# verify finds an edited profile and a loosening project layer
cx install --codex -q out/a.codex.toml
sed -i 's/"none"/"read"/' "$cfg"
cx verify --codex out/a.codex.toml >"$tmp/v" 2>&1 && no "verify passed an edited profile"
grep -q "differs from the artifact" "$tmp/v" || no "verify: $(cat "$tmp/v")"
cx install --codex -q out/a.codex.toml || no "install over an edited block"
cx verify --codex -q out/a.codex.toml >/dev/null || no "verify after reinstall"
printf '"/" = "write"\n' >>"$cfg"
cx verify --codex out/a.codex.toml >"$tmp/v" 2>&1 && no "verify passed a key after the block"
grep -q "follows the profile's block" "$tmp/v" || no "verify key after: $(cat "$tmp/v")"
cx install --codex out/a.codex.toml >"$tmp/v" 2>&1 && no "install over a key after the block"
sed -i '$d' "$cfg"
printf '[projects."/x"]\ntrust_level = "untrusted"\n' >>"$cfg"
cx verify --codex -q out/a.codex.toml >/dev/null || no "verify: a table after the block is fine"
sed -i '$d' "$cfg"; sed -i '$d' "$cfg"
mkdir -p proj/.codex && : >proj/.codex/config.toml
(cd proj && cx verify --codex -q "$tmp/out/a.codex.toml") >/dev/null 2>"$tmp/v" && no "verify ignored a project layer"
grep -q "trusted" "$tmp/v" || no "verify project layer: $(cat "$tmp/v")"
rm -rf proj/.codex
cx uninstall --codex -q out/a.codex.toml
[ "$(cat "$cfg")" = 'model = "o3"' ] || no "uninstall after reinstall: $(cat "$cfg")"

# Concurrent installs of two artifacts: exactly one wins (the other is a
# conflict), the file is one valid install, nothing is lost.
for i in 1 2 3 4 5; do
    printf 'model = "o3"\n' >"$cfg"
    cx install --codex -q out/a.codex.toml 2>/dev/null &
    p1=$!
    cx install --codex -q out/b.codex.toml 2>/dev/null &
    p2=$!
    wait $p1; r1=$?
    wait $p2; r2=$?
    [ $((r1 + r2)) -eq 1 ] || no "concurrent $i: exits $r1 $r2 (expected one 0, one 1)"
    n=$(grep -c '^default_permissions' "$cfg")
    [ "$n" = 1 ] || no "concurrent $i: $n default_permissions lines"
    grep -q '^model = "o3"$' "$cfg" || no "concurrent $i: the user's key was lost"
    ls home/.codex | grep -q '\.tmp\.' && no "concurrent $i: temporaries left"
    cx uninstall --codex -q out/a.codex.toml
    cx uninstall --codex -q out/b.codex.toml
    [ "$(cat "$cfg")" = 'model = "o3"' ] || no "concurrent $i: not restored"
done

# The real Codex CLI reads the installed profile.
if (. "$TOP/tests/lib/codex_cli.sh") >"$tmp/npm" 2>&1; then
    . "$TOP/tests/lib/codex_cli.sh"
    cp "$tmp/userfile" "$cfg"
    cx install --codex -q out/a.codex.toml || no "install for the client"
    timeout 120 "$CODEX" sandbox -P confpol -C "$tmp/proj" -- sh -c '
        cat .env; echo x >made && echo WROTE-PROJECT
        echo x >../outside && echo WROTE-OUTSIDE; true' >"$tmp/got" 2>&1 ||
        no "codex sandbox -P confpol: $(tail -3 "$tmp/got")"
    grep -q SECRET-ENV "$tmp/got" && no "the installed profile let .env be read"
    grep -q WROTE-PROJECT "$tmp/got" || no "the project was not writable: $(tail -3 "$tmp/got")"
    grep -q WROTE-OUTSIDE "$tmp/got" && no "outside the project was writable"
    timeout 120 "$CODEX" sandbox -P mine -C "$tmp/proj" -- sh -c 'cat .env' >"$tmp/got" 2>&1
    grep -q SECRET-ENV "$tmp/got" || no "the user's own profile stopped working: $(tail -3 "$tmp/got")"
    timeout 60 "$CODEX_NATIVE" execpolicy check --rules home/.codex/rules/confpol.rules \
        -- git push --force x >"$tmp/ep" 2>&1
    grep -q forbidden "$tmp/ep" || no "installed rules: $(cat "$tmp/ep")"
    cx uninstall --codex -q out/a.codex.toml
    cmp -s "$tmp/userfile" "$cfg" || no "after the client: not byte-exact"
else
    echo "SKIP (real client): $(tail -1 "$tmp/npm")"
fi
[ $fail -eq 0 ] && echo "codex-install: ok"
exit $((fail > 0))

#!/bin/sh
# confpol codex (spec/settings-wiring.md, "confpol codex") with the real
# Codex CLI: `-- --version` offline from a scratch HOME; `-- sandbox -C DIR
# -- CMD` runs CMD in Codex's own sandbox under the policy (a deny read
# holds, the project is writable, outside it and confpol's CODEX_HOME are
# not); the user's own ~/.codex/config.toml is neither read nor touched,
# even when it redefines the profile; a project .codex/config.toml, a
# managed file naming sandbox settings, a loosening argument, a cooperative
# policy and -D PROJECT are refused.  Skipped when npm cannot install the
# pinned Codex CLI into the build directory.  The managed files are written
# where Codex reads them, /etc/codex, in a private mount namespace with an
# overlay on /etc (the machine's /etc is not touched; needs root, as the
# tests have here and in CI): confpol reads no other place.
set -u
: "${CONFPOL:?}" "${TOP:?}"
. "$TOP/tests/lib/etc_overlay.sh"
etc_overlay_ns 600
. "$TOP/tests/lib/codex_cli.sh"
# Not under /tmp: Codex makes no helper links in a CODEX_HOME there.
tmp=$(mktemp -d "$TOP/${BUILD:-build}/tools/codex/run.XXXXXX") || exit 1
ov=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp" "$ov"' EXIT INT TERM
etc_overlay "$ov" /etc/codex
fail=0
no() { echo "FAIL: $*"; fail=$((fail + 1)); }
mkdir -p "$tmp/home/.ssh" "$tmp/home/.codex" "$tmp/proj" || exit 1
echo KEY-CONTENT >"$tmp/home/.ssh/id"
echo '{"auth_mode":"none"}' >"$tmp/home/.codex/auth.json"
# The user's own configuration, which would open ~/.ssh were it read.
cat >"$tmp/home/.codex/config.toml" <<EOF
[permissions.confpol.filesystem]
"$tmp/home/.ssh" = "read"
EOF
cp "$tmp/home/.codex/config.toml" "$tmp/user.before"
cd "$tmp/proj" || exit 1
cat >policy.confpol <<'P'
confpol 1
profile confined
write ${PROJECT}
deny read ~/.ssh ${PROJECT}/.env
deny write ${PROJECT}/.git/hooks
P
echo ENV-CONTENT >.env
export HOME="$tmp/home" CONFPOL_CODEX="$CODEX"
unset CODEX_HOME XDG_CACHE_HOME
cx() { timeout 120 "$CONFPOL" codex -q "$@"; }

out=$(cx -- --version 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] || no "--version: exit $rc: $(tail -3 "$tmp/err")"
[ "$out" = "codex-cli 0.171.0" ] || no "--version printed '$out'"
home=$(ls -d "$tmp"/home/.cache/confpol/codex/proj-*)
[ -f "$home/config.toml" ] || no "no config.toml in confpol's CODEX_HOME"
[ -f "$home/rules/confpol.rules" ] || no "no rules file"
[ -L "$home/auth.json" ] || no "auth.json not linked"

cx -- sandbox -C "$tmp/proj" -- sh -c '
    echo x >made && echo WROTE-PROJECT
    cat .env ~/.ssh/id
    echo x >../outside && echo WROTE-OUTSIDE
    echo x >"$CODEX_HOME/config.toml" && echo WROTE-CODEX-HOME
    mkdir -p .git/hooks 2>/dev/null; echo x >.git/hooks/pre-commit && echo WROTE-HOOK
    true' >"$tmp/got" 2>&1
rc=$?
[ $rc -eq 0 ] || no "sandbox: exit $rc: $(tail -3 "$tmp/got")"
grep -q WROTE-PROJECT "$tmp/got" || no "the project was not writable: $(tail -3 "$tmp/got")"
grep -q 'ENV-CONTENT\|KEY-CONTENT' "$tmp/got" && no "a deny-read file was read"
grep -q WROTE-OUTSIDE "$tmp/got" && no "outside the project was writable"
grep -q WROTE-CODEX-HOME "$tmp/got" && no "confpol's CODEX_HOME was writable"
grep -q WROTE-HOOK "$tmp/got" && no ".git/hooks was writable"
[ -e "$tmp/outside" ] && no "../outside exists on the host"
cmp -s "$tmp/user.before" "$tmp/home/.codex/config.toml" || no "the user's config.toml changed"

# Refusals: each exits 1 before Codex starts.
refused() { # NAME PATTERN ARGS...
    name=$1 pat=$2
    shift 2
    out=$(cx "$@" 2>&1)
    rc=$?
    [ $rc -eq 1 ] || no "$name: exit $rc (expected 1)"
    printf '%s\n' "$out" | grep -q "$pat" || no "$name: no '$pat' in: $(printf '%s' "$out" | tail -2)"
    printf '%s\n' "$out" | grep -q "codex-cli" && no "$name: Codex ran"
}
refused "-c" "'-c' would override" -- -c sandbox_mode=danger-full-access --version
refused "-cKEY" "would override" -- -csandbox_mode=danger-full-access --version
refused "bypass" "would override" -- --dangerously-bypass-approvals-and-sandbox --version
refused "sandbox -P" "would override" -- sandbox -P other -C . -- true
mkdir .codex && echo 'model = "x"' >.codex/config.toml
refused "project layer" "once the project is trusted" -- --version
rm -rf .codex
printf '[permissions.x.filesystem]\n"/" = "write"\n' >"/etc/codex/managed_config.toml"
refused "managed" "names 'permission'" -- --version
rm "/etc/codex/managed_config.toml"
printf '# a comment naming sandbox\nmodel = "x"\n' >"/etc/codex/requirements.toml"
out=$(cx -- --version 2>&1) || no "a managed file without sandbox settings was refused: $out"
printf 'confpol 1\nprofile cooperative\ndeny read ~/.ssh\n' >coop.confpol
refused "cooperative" "nothing to enforce" coop.confpol -- --version
out=$(cx -D PROJECT=/ -- --version 2>&1)
[ $? -eq 2 ] || no "-D PROJECT was not a usage error"
[ $fail -eq 0 ] && echo "codex-run: all cases pass"
[ $fail -eq 0 ]

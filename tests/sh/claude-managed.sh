#!/bin/sh
# Managed settings: Claude Code reads /etc/claude-code/managed-settings.json,
# the drop-in files of /etc/claude-code/managed-settings.d/ and its cached
# server-managed settings (~/.claude/remote-settings.json) above every other
# file, so a key there overrides the --settings file of `confpol claude`
# and adds to its lists.  Each loosening key is refused by `confpol claude`
# (naming the file and the key, claude not started) and is a gap for
# `confpol verify`; tightening keys are accepted; under --whole what turns
# the gate hook off is refused.  The test runs in a
# private mount namespace with an overlay on /etc, so that it writes the
# real place the client reads without touching the machine's /etc (needs
# root, as the tests have here and in CI).
set -u
: "${CONFPOL:?}"
. "${TOP:?}/tests/lib/etc_overlay.sh"
etc_overlay_ns 300
command -v jq >/dev/null 2>&1 || { echo "no jq"; exit 77; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$tmp/home" "$tmp/proj" "$tmp/bin"
etc_overlay "$tmp" /etc/claude-code
m=/etc/claude-code/managed-settings.json
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
export HOME="$tmp/home" XDG_CONFIG_HOME=
unset CLAUDE_CONFIG_DIR CONFPOL_CLAUDE
cd "$tmp/proj" || exit 2
"$CONFPOL" init --claude >/dev/null || fail "init --claude"
printf '#!/bin/sh\necho stand-in ran\n' >"$tmp/bin/claude"
chmod +x "$tmp/bin/claude"
run() { timeout 60 env PATH="$tmp/bin:$PATH" "$CONFPOL" claude -q -- -p hi >"$tmp/out" 2>&1; }

# refused FILE JSON WANT: with FILE holding JSON, confpol claude refuses
# with a line naming FILE and WANT, and claude does not start.
refused() {
    printf '%s\n' "$2" >"$1"
    run
    rc=$?
    [ $rc -eq 1 ] || fail "$2 in $1: exit $rc, expected 1"
    grep -qF "confpol claude: $1: $3" "$tmp/out" ||
        { fail "$2 in $1: no line '$1: $3'"; cat "$tmp/out"; }
    grep -q "stand-in ran" "$tmp/out" && fail "$2 in $1: claude started"
    rm -f "$1"
}
refused $m '{"sandbox": {"enabled": false}}' 'sandbox.enabled is false'
refused $m '{"sandbox": {"failIfUnavailable": false}}' 'sandbox.failIfUnavailable is false'
refused $m '{"sandbox": {"allowUnsandboxedCommands": true}}' 'sandbox.allowUnsandboxedCommands is true'
refused $m '{"sandbox": {"autoAllowBashIfSandboxed": true}}' 'sandbox.autoAllowBashIfSandboxed is true'
refused $m '{"sandbox": {"network": {"strictAllowlist": false}}}' 'sandbox.network.strictAllowlist is false'
refused $m '{"disableAllHooks": true}' 'disableAllHooks (the gate hook would never run) is true'
refused $m '{"allowManagedHooksOnly": true}' 'allowManagedHooksOnly is true'
refused $m '{"allowManagedPermissionRulesOnly": true}' 'allowManagedPermissionRulesOnly is true'
refused $m '{"policyHelper": {"path": "/usr/local/bin/policy"}}' 'policyHelper is set'
refused $m '{"sandbox": {"enabledPlatforms": ["macos"]}}' 'sandbox.enabledPlatforms does not name linux'
refused $m '{"sandbox": {"filesystem": {"allowWrite": ["/"]}}}' 'sandbox.filesystem.allowWrite holds "/"'
refused $m '{"sandbox": {"filesystem": {"allowRead": ["~/.ssh"]}}}' 'sandbox.filesystem.allowRead holds "~/.ssh"'
refused $m '{"sandbox": {"filesystem": {"disabled": true}}}' 'sandbox.filesystem.disabled'
refused $m '{"sandbox": {"excludedCommands": ["git *"]}}' 'sandbox.excludedCommands holds "git *"'
refused $m '{"sandbox": {"network": {"allowedDomains": ["evil.example"]}}}' 'sandbox.network.allowedDomains holds "evil.example"'
refused $m '{"sandbox": {"network": {"allowAllUnixSockets": true}}}' 'sandbox.network.allowAllUnixSockets is true'
refused $m '{"sandbox": {"network": {"httpProxyPort": 3128}}}' 'sandbox.network.httpProxyPort is set'
refused $m '{"sandbox": {"enableWeakerNestedSandbox": true}}' 'sandbox.enableWeakerNestedSandbox'
refused $m '{"permissions": {"allow": ["Edit(//etc/**)"]}}' 'permissions.allow holds "Edit(//etc/**)"'
refused $m '{"permissions": {"allow": ["WebFetch(domain:evil.example)"]}}' 'permissions.allow holds "WebFetch(domain:evil.example)"'
refused $m '{"permissions": {"additionalDirectories": ["/srv"]}}' 'permissions.additionalDirectories holds "/srv"'
refused $m '{"permissions": {"defaultMode": "bypassPermissions"}}' 'permissions.defaultMode is "bypassPermissions"'
# The drop-in directory, read after managed-settings.json, and the cached
# server-managed settings.
mkdir -p /etc/claude-code/managed-settings.d "$HOME/.claude"
refused /etc/claude-code/managed-settings.d/50-site.json '{"sandbox": {"enabled": false}}' 'sandbox.enabled is false'
refused "$HOME/.claude/remote-settings.json" '{"allowManagedHooksOnly": true}' 'allowManagedHooksOnly is true'
# What the client does not read from the drop-in directory: hidden files,
# other names.
printf '{"disableAllHooks": true}\n' >/etc/claude-code/managed-settings.d/.hidden.json
printf '{"disableAllHooks": true}\n' >/etc/claude-code/managed-settings.d/notes.txt
run || { fail "files the client skips were read: exit $?"; cat "$tmp/out"; }
rm -f /etc/claude-code/managed-settings.d/.hidden.json /etc/claude-code/managed-settings.d/notes.txt
# A FIFO the client would read (a drop-in link to one, the managed file)
# blocks nothing and is named; a FIFO itself in the directory the client
# skips, as it skips every entry that is neither a file nor a link.
mkfifo "$tmp/fifo" /etc/claude-code/managed-settings.d/skipped.json
ln -s "$tmp/fifo" /etc/claude-code/managed-settings.d/fifo.json
run
rc=$?
[ $rc -eq 1 ] || fail "a FIFO drop-in: exit $rc, expected 1"
grep -qF "managed-settings.d/fifo.json: cannot be read (a FIFO, not a regular file)" "$tmp/out" ||
    { fail "a FIFO drop-in: message"; cat "$tmp/out"; }
grep -q "skipped.json" "$tmp/out" && fail "a FIFO the client skips was named"
rm -f /etc/claude-code/managed-settings.d/fifo.json /etc/claude-code/managed-settings.d/skipped.json
mkfifo $m
run
grep -qF "$m: cannot be read (a FIFO, not a regular file)" "$tmp/out" ||
    { fail "a FIFO managed file: message"; cat "$tmp/out"; }
rm -f $m

# Tightening keys: accepted.
cat >$m <<'EOF'
{"sandbox": {"enabled": true, "failIfUnavailable": true, "allowUnsandboxedCommands": false,
  "autoAllowBashIfSandboxed": false, "enabledPlatforms": ["linux", "macos"],
  "network": {"strictAllowlist": true, "allowManagedDomainsOnly": true, "deniedDomains": ["x.example"]},
  "filesystem": {"denyRead": ["~/.aws"], "allowManagedReadPathsOnly": true}},
 "permissions": {"deny": ["Read(~/.aws/**)"], "disableBypassPermissionsMode": "disable",
  "allow": ["Bash(npm test)"], "defaultMode": "dontAsk"},
 "allowManagedHooksOnly": false, "disableAllHooks": false}
EOF
printf '{"permissions": {"ask": ["Bash(curl *)"]}}\n' >/etc/claude-code/managed-settings.d/10-ask.json
run
rc=$?
[ $rc -eq 0 ] && grep -q "stand-in ran" "$tmp/out" ||
    { fail "tightening managed settings: exit $rc"; cat "$tmp/out"; }

# --whole: the client's sandbox is inside the confinement, the gate hook is
# not: what turns it off is refused, the sandbox switches are not asked.
cp "${TOP:?}/examples/claude-code-whole.confpol" whole.confpol
printf '{"disableAllHooks": true, "sandbox": {"enabled": false}}\n' >/etc/claude-code/managed-settings.d/20-hooks.json
timeout 60 env PATH="$tmp/bin:$PATH" "$CONFPOL" claude -q --whole whole.confpol -- -p hi >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "--whole with managed disableAllHooks: exit $rc"
grep -qF "confpol claude: /etc/claude-code/managed-settings.d/20-hooks.json: disableAllHooks (the gate hook would never run) is true" "$tmp/out" ||
    { fail "--whole: no disableAllHooks line"; cat "$tmp/out"; }
grep -q "sandbox.enabled is false" "$tmp/out" && fail "--whole refused the client's own sandbox switch"
grep -q "stand-in ran" "$tmp/out" && fail "--whole: claude started"
rm -f /etc/claude-code/managed-settings.d/20-hooks.json

# verify: the file confpol claude wrote, with the managed files in force.
s=$(ls "$HOME"/.config/confpol/claude/proj-*/settings.json 2>/dev/null)
[ -f "$s" ] || fail "no settings file"
"$CONFPOL" verify -q --claude "$s" policy.confpol >"$tmp/v" 2>&1 ||
    { fail "verify with tightening managed settings"; cat "$tmp/v"; }
printf '{"sandbox": {"enabled": false}, "allowManagedHooksOnly": true}\n' >$m
"$CONFPOL" verify -q --claude "$s" policy.confpol >"$tmp/v" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "verify with loosening managed settings: exit $rc"
grep -qF "$s: gap: managed settings $m: sandbox.enabled is false" "$tmp/v" &&
    grep -qF "$s: gap: managed settings $m: allowManagedHooksOnly is true" "$tmp/v" ||
    { fail "verify's gaps"; cat "$tmp/v"; }
# verify of a managed file itself does not count it twice.
"$CONFPOL" verify -q --claude $m policy.confpol >"$tmp/v" 2>&1
grep -q "gap: managed settings $m" "$tmp/v" && fail "verify read the managed file it verifies as another file"
[ $fails -eq 0 ] || exit 1
echo "claude-managed: ok"

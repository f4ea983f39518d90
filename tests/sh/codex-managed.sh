#!/bin/sh
# confpol codex reads the keys of Codex's managed files (/etc/codex) as
# TOML, not their words (spec/settings-wiring.md, "confpol codex"): a key
# that names a sandbox, permission, network, feature, hook, project or
# trust setting is refused in every spelling TOML allows (quoted, dotted,
# spaced, inside an inline table, an inline table in an array, after a
# string holding '#'), a file it cannot read as TOML (a quoted key with an
# escape could spell one) is refused, and the words in comments or in
# values are not keys.  A stand-in for codex prints RAN.  /etc/codex is
# written in a private mount namespace over an overlay of /etc (root, as
# the tests run here and in CI): confpol reads no other place.
set -u
: "${CONFPOL:?}"
. "${TOP:?}/tests/lib/etc_overlay.sh"
etc_overlay_ns 300
tmp=$(mktemp -d) || exit 1
ov=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp" "$ov"' EXIT INT TERM
etc_overlay "$ov" /etc/codex
fail=0
no() { echo "FAIL: $*"; fail=$((fail + 1)); }
mkdir -p "$tmp/home" "$tmp/proj" || exit 1
printf '#!/bin/sh\necho RAN\n' >"$tmp/codex" && chmod 755 "$tmp/codex"
cd "$tmp/proj" || exit 1
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n' >policy.confpol
cx() { env HOME="$tmp/home" XDG_CACHE_HOME= CONFPOL_CODEX="$tmp/codex" timeout 60 "$CONFPOL" codex -q -- --version; }
# refused NAME PATTERN: the requirements file written before is refused
refused() {
    out=$(cx 2>&1)
    rc=$?
    [ $rc -eq 1 ] || no "$1: exit $rc (expected 1): $out"
    printf '%s\n' "$out" | grep -qF "$2" || no "$1: no \"$2\" in: $out"
    printf '%s\n' "$out" | grep -q RAN && no "$1: codex ran"
}
ran() {
    out=$(cx 2>&1)
    [ "$out" = RAN ] || no "$1: refused: $out"
}
req() { printf '%s\n' "$@" >/etc/codex/requirements.toml; }
req 'allowed_sandbox_modes = ["read-only"]'
refused "plain key" "its key 'allowed_sandbox_modes' names 'sandbox'"
req '"sandbo\u0078_mode" = "danger-full-access"'
refused "escaped quoted key" "cannot be read as TOML (line 1 cannot be read as TOML)"
req "'sandbox_mode' = 'danger-full-access'"
refused "literal quoted key" "its key 'sandbox_mode' names 'sandbox'"
req 'profiles = { "#" = {}, x = { sandbox_mode = "danger-full-access" } }'
refused "inline table after a '#' in a string" "its key 'profiles.x.sandbox_mode' names 'sandbox'"
req 'rules = [ { a = 1 }, { "hooks" = [] } ]'
refused "inline table in an array" "its key 'rules.hooks' names 'hook'"
req 'x = "#" ; features = 1'
refused "not TOML after a string" "cannot be read as TOML"
req 'profiles . "x" . default_permissions = "other"'
refused "spaced dotted key" "its key 'profiles.x.default_permissions' names 'permission'"
req '[ "experimental_network" ]' 'enabled = true'
refused "quoted table header" "its key 'experimental_network' names 'network'"
req 'model = """' '#"""' 'allowed_permission_profiles = ["x"]'
refused "key after a multi-line string" "its key 'allowed_permission_profiles' names 'permission'"
req '# sandbox, network, hooks' 'model = "network-sandbox"  # trust'
ran "words in a comment and a value"
rm -f /etc/codex/requirements.toml
printf '[permissions.x.filesystem]\n"/" = "write"\n' >/etc/codex/managed_config.toml
refused "managed_config.toml" "its key 'permissions.x.filesystem' names 'permission'"
rm -f /etc/codex/managed_config.toml
ran "no managed file"
[ $fail -eq 0 ] && echo "codex-managed: all cases pass"
[ $fail -eq 0 ]

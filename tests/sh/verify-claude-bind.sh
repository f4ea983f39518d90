#!/bin/sh
# verify binds PROJECT where `confpol claude` binds it: the settings file
# `confpol claude` wrote enforces the policy it was built from, checked
# from the project directory without -D; a project's own settings file
# still gets the symbolic build that install put there.
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/home" "$w/proj"
cd "$w/proj" || exit 1
export HOME="$w/home" XDG_CONFIG_HOME= CLAUDE_CONFIG_DIR=
fail() { echo "not ok - $*"; exit 1; }
"$CONFPOL" init --claude >/dev/null 2>&1 || fail "init"
CONFPOL_CLAUDE=/bin/true "$CONFPOL" claude -q >/dev/null 2>"$w/claude.err" ||
    fail "confpol claude: $(cat "$w/claude.err")"
s=$(ls "$HOME"/.config/confpol/claude/*/settings.json) || fail "no settings file"
out=$("$CONFPOL" verify --claude "$s" policy.confpol 2>&1); rc=$?
[ $rc -eq 0 ] || fail "verify of the file confpol claude wrote: exit $rc: $out"
case $out in *"enforces policy.confpol"*) ;; *) fail "verify said: $out" ;; esac
echo "ok - verify binds PROJECT as confpol claude does"
# A project settings file: the symbolic artifact, installed there (a
# policy without a network limit, which a project file cannot carry).
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/.env\n' >p.confpol
mkdir -p "$w/out" .claude
"$CONFPOL" build --target claude -o "$w/out" p.confpol >/dev/null 2>&1 || fail "build"
"$CONFPOL" install -q --claude .claude/settings.local.json "$w/out/p.claude.json" \
    >/dev/null 2>&1 || fail "install"
out=$("$CONFPOL" verify --claude .claude/settings.local.json p.confpol 2>&1); rc=$?
[ $rc -eq 0 ] || fail "verify of a project settings file: exit $rc: $out"
echo "ok - a project settings file is verified against the symbolic build"

#!/bin/sh
# The claude target reports what Claude Code does whatever the settings say:
# its session temp dir stays writable, its protected paths are never
# writable, writes into a deny-read path inside a write root land on a
# throw-away tmpfs, an unbound PROJECT that a home-rooted write root may
# hold is denied as a whole, and a project settings file is not loaded from
# a subdirectory.  Facts no policy changes are notes (-Werror passes).
set -u
: "${CONFPOL:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
no() { echo "FAIL: $*"; fail=1; }
cd "$tmp" || exit 1
mkdir out
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny read ${PROJECT}/.env\n' >a.confpol
"$CONFPOL" build --target claude --fidelity -o out a.confpol >fid 2>err ||
    { no "build a"; cat err; }
grep -q '/tmp/claude-<uid>' err || no "session temp dir not named"
grep -q 'CP0770' err || no "protected paths not reported"
grep -q 'never lets Bash write its protected paths (where they lie in this root): ${PROJECT}/.git/hooks' fid ||
    no "protected paths not in the fidelity report"
grep -q 'CP0771' err || no "deny-read tmpfs not reported"
grep 'deny read ${PROJECT}/.env' fid | grep -q 'stricter.*tmpfs' ||
    no "deny-read tmpfs not in the fidelity report"
grep -q 'not in a subdirectory' err || no "subdirectory loading not said"
grep -E 'CP077[01].*' err | grep -q 'warning' && no "facts reported as warnings"
printf 'confpol 1\nprofile confined\nwrite ~/code\n' >b.confpol
"$CONFPOL" build --target claude --fidelity -o out b.confpol >fid 2>err ||
    { no "build b"; cat err; }
grep -q 'warning: claude: this write root may hold PROJECT.*CP0772' err ||
    no "unbound PROJECT below ~/code not reported"
grep 'write ~/code' fid | grep -q 'stricter.*denies writing the whole project' ||
    no "unbound PROJECT not in the fidelity report"
"$CONFPOL" build --target claude -D PROJECT=/home/u/code/p -D HOME=/home/u \
    --fidelity -o out b.confpol >fid 2>err || { no "build b -D"; cat err; }
grep -q CP0772 err && no "CP0772 with PROJECT bound inside the root"
exit $fail

#!/bin/sh
# The claude target reports what Claude Code does whatever the settings say:
# its session temp dir stays writable, its protected paths are never
# writable, writes into a deny-read path inside a write root land on a
# throw-away tmpfs, an unbound PROJECT that a home-rooted write root may
# hold is denied as a whole, and a project settings file is not loaded from
# a subdirectory.  Facts no policy changes are notes (-Werror passes).
# Measured on the sandbox runtime: a literal deny read does not cover a
# path created after the start, a deny-read directory that holds a write
# path binds it back readable, one that holds a read-only working
# directory stops Bash from starting, and a deny write below a missing
# directory of a write root keeps Bash from creating that directory.
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
# A literal deny read: not enforced for a path created later (one note).
"$CONFPOL" build --target claude --fidelity -o out a.confpol >fid 2>err ||
    { no "build a again"; cat err; }
grep 'deny read ${PROJECT}/.env' fid | grep -q 'not enforced by this target.*absent when the command starts' ||
    no "late deny-read path not rated not enforced"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\nwrite /tmp/w\ndeny read /tmp/w\ndeny read /tmp\ndeny read ~\ndeny read ${PROJECT}/.env\ndeny write ${PROJECT}/.git/hooks\n' >c.confpol
"$CONFPOL" build --target claude --fidelity -o out c.confpol >fid 2>err ||
    { no "build c"; cat err; }
[ "$(grep -c 'CP0775' err)" = 1 ] || no "late deny-read paths not one note"
grep 'deny read /tmp/w	' fid | grep -q 'not enforced.*binds the write paths at or below it back, readable from Bash: /tmp/w' ||
    no "deny read of a write root not rated not enforced"
grep 'deny read /tmp	' fid | grep -q 'readable from Bash: /tmp/w, /tmp/claude, /tmp/claude-<uid>' ||
    no "deny read /tmp: session temp dir not named"
grep 'deny read ~	' fid | grep -q 'where they lie at or below it: ${PROJECT} (the working directory)' ||
    no "deny read ~: unbound project not named with 'where'"
grep -q "rule 'deny read /tmp/w'.*CP0773" err || no "CP0773 not warned"
grep -q "rule 'deny read ~'.*CP0773" err || no "CP0773 not warned for ~/.npm/_logs"
grep "rule 'deny read \${PROJECT}/.env'" err | grep -q CP0773 &&
    no "CP0773 where no write path is held"
grep 'deny write ${PROJECT}/.git/hooks' fid | grep -q 'stricter.*empty read-only directory on the first missing one' ||
    no "deny write below a missing directory not rated stricter"
# The working directory read-only and hidden: Bash cannot start.
printf 'confpol 1\nprofile confined\nwrite /tmp\ndeny read ~\n' >d.confpol
"$CONFPOL" build --target claude -D PROJECT=/home/u/proj -D HOME=/home/u \
    --fidelity -o out d.confpol >fid 2>err || { no "build d"; cat err; }
grep 'deny read ~	' fid | grep -q 'stricter: Bash cannot start' ||
    no "hidden read-only working directory not rated stricter"
grep -q "rule 'deny read ~'.*CP0774" err || no "CP0774 not warned"
"$CONFPOL" build --target claude --fidelity -o out d.confpol >fid 2>err ||
    { no "build d unbound"; cat err; }
grep 'deny read ~	' fid | grep -q 'where it holds the working directory, Bash cannot start' ||
    no "unbound PROJECT below a deny read ~: no 'where'"
# No net rule: the client asks for each new domain (under -p: refused);
# said as a note, which confpol claude turns on.  With a net rule: not.
"$CONFPOL" build --target claude --fidelity -o out a.confpol >fid 2>err
grep -q 'no net rule.*under -p.*CP0776' err || no "a policy without net rules: the prompts are not said"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\nnet allow example.org\n' >n.confpol
"$CONFPOL" build --target claude --fidelity -o out n.confpol >fid 2>err || { no "build n"; cat err; }
grep -q 'CP0776' err && no "CP0776 for a policy with a net rule"
"$CONFPOL" build --target claude -o out a.confpol >fid 2>err
grep -q 'CP0776' err && no "CP0776 printed without being asked for"
printf 'confpol 1\nprofile cooperative\nwrite ${PROJECT}\n' >c.confpol
"$CONFPOL" build --target claude --fidelity -o out c.confpol >fid 2>err
grep -q 'CP0776' err && no "CP0776 for a cooperative policy (no sandbox block)"
# The sandbox runtime's dangerous files and directories and a nested
# repository's hooks and config, named in the fidelity report.
"$CONFPOL" build --target claude --fidelity -o out a.confpol >fid 2>err
for f in .gitconfig .gitmodules .ripgreprc .vscode .idea '**/.git/hooks' '**/.git/config'; do
    grep -qF "\${PROJECT}/$f" fid || no "protected path \${PROJECT}/$f not in the fidelity report"
done
exit $fail

#!/bin/sh
# confpol diff as a reviewer meets it (spec/cli.md, "diff"): the changes a
# text diff hides (a removed deny, a widened glob, a new include, a new
# param, a deny that only a binding of the params makes matter, a gate
# loosened from deny to ask), each with its exact text; --fail-on and the
# exit statuses; OLD from standard input; equal policies written
# differently; every witness of the JSON output replayed with explain; the
# SARIF output against the SARIF 2.1.0 schema and the SARIF Multitool's
# GitHub rules (tests/sh/diff-sarif.sh).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
fail=0
# same NAME: the file NAME.out must equal NAME.exp
same() {
    if ! diff -u "$1.exp" "$1.out"; then
        echo "FAIL $1"
        fail=$((fail + 1))
    fi
}
# status NAME WANT GOT
status() {
    [ "$3" -eq "$2" ] || { echo "FAIL $1: exit $3, expected $2"; fail=$((fail + 1)); }
}

mkdir -p a b
cat >a/p.confpol <<'P'
confpol 1
profile confined
write ${PROJECT}
deny write ${PROJECT}/.git
deny read ~/.ssh
net allow github.com
gate deny "git push --force *"
P
# The new revision: the deny on .git is gone, ~/.ssh narrowed to one key,
# a domain added, force-push asked instead of denied, and an include that
# opens /tmp.
cat >b/p.confpol <<'P'
confpol 1
profile confined
write ${PROJECT}
deny read ~/.ssh/id_ed25519
deny read ~/.aws
net allow github.com *.example.com
gate ask "git push --force *"
include "more.confpol"
P
cat >b/more.confpol <<'P'
confpol 1
write /tmp
P

# 1. the text output, exactly
"$CONFPOL" diff a/p.confpol b/p.confpol >t1.out 2>t1.err
status text 0 $?
cat >t1.exp <<'E'
widened read ~/.ssh
  old: deny
    by 'deny read ~/.ssh' at a/p.confpol:5:11
  new: allow
    by default: no 'deny read' rule matches; reading is allowed by default
  region: 'deny read ~/.ssh'
widened write /tmp
  old: deny
    by default: no 'write' rule matches; writing is denied by default
    note: the answer may differ with another value of PROJECT
  new: allow
    by 'write /tmp' at b/more.confpol:2:7
  region: 'write /tmp'
widened write ${PROJECT}/.git
  old: deny
    by 'deny write ${PROJECT}/.git' at a/p.confpol:4:12
  new: allow
    by 'write ${PROJECT}' at b/p.confpol:3:7
    note: the answer may differ with another value of HOME
  region: 'deny write ${PROJECT}/.git'
widened exec ~/.ssh
  old: deny
    by 'deny read ~/.ssh' at a/p.confpol:5:11
  new: allow
    by default: no 'deny exec' or 'deny read' rule matches; exec is allowed by default
  region: 'deny read ~/.ssh'
widened net confpol-diff.example.com
  old: deny
    by default: no 'net allow' domain matches
  new: allow
    by 'net allow *.example.com' at b/p.confpol:6:22
  region: 'net allow *.example.com'
widened gate 'git push --force'
  old: deny
    by 'gate deny "git push --force *"' at a/p.confpol:7:11
  new: ask
    by 'gate ask "git push --force *"' at b/p.confpol:7:10
  region: 'gate deny "git push --force *"'
narrowed read ~/.aws
  old: allow
    by default: no 'deny read' rule matches; reading is allowed by default
  new: deny
    by 'deny read ~/.aws' at b/p.confpol:5:11
  region: 'deny read ~/.aws'
narrowed exec ~/.aws
  old: allow
    by default: no 'deny exec' or 'deny read' rule matches; exec is allowed by default
  new: deny
    by 'deny read ~/.aws' at b/p.confpol:5:11
  region: 'deny read ~/.aws'
6 widened, 2 narrowed
E
same t1

# 2. --fail-on: widen fails, narrow fails, never passes; an unknown word is
# a usage error
"$CONFPOL" diff --fail-on widen a/p.confpol b/p.confpol >/dev/null
status fail-widen 1 $?
"$CONFPOL" diff --fail-on=narrow a/p.confpol b/p.confpol >/dev/null
status fail-narrow 1 $?
"$CONFPOL" diff --fail-on never a/p.confpol b/p.confpol >/dev/null
status fail-never 0 $?
"$CONFPOL" diff --fail-on widen b/p.confpol b/p.confpol >same.out
status fail-same 0 $?
echo "0 widened, 0 narrowed" >same.exp
same same
"$CONFPOL" diff --fail-on wide a/p.confpol b/p.confpol 2>u1.out
status usage 2 $?
cat >u1.exp <<'E'
confpol diff: --fail-on expects widen, narrow, change or never, got 'wide'
see 'confpol diff --help'
E
same u1
"$CONFPOL" diff a/p.confpol 2>u2.out
status usage-arity 2 $?
printf "confpol diff: expected OLD and NEW\nsee 'confpol diff --help'\n" >u2.exp
same u2
"$CONFPOL" diff - - 2>/dev/null </dev/null
status usage-stdin 2 $?

# 3. a policy with errors: its diagnostics, exit 1, nothing on stdout
printf 'confpol 1\nwirte /x\n' >bad.confpol
"$CONFPOL" diff bad.confpol b/p.confpol >bad.out 2>bad.err
status bad 1 $?
[ -s bad.out ] && { echo "FAIL bad: output on stdout"; fail=$((fail + 1)); }
grep -q "unknown statement 'wirte'" bad.err || { echo "FAIL bad: no diagnostic"; fail=$((fail + 1)); }

# 4. OLD from standard input, as in `git show HEAD~1:p.confpol | confpol
# diff - p.confpol`: the same answer as from the file
cd a || exit 1
"$CONFPOL" diff - ../b/p.confpol <p.confpol | grep -c '^widened' >../stdin.out
cd .. || exit 1
echo 6 >stdin.exp
same stdin

# 5. equal policies written differently: reordered, a redundant rule added,
# an include inlined (and the profile's own-file rules of two directories)
mkdir -p e1 e2
cat >e1/p.confpol <<'P'
confpol 1
profile confined
write ${PROJECT}
deny write ${PROJECT}/.git
include "inc.confpol"
P
printf 'confpol 1\ndeny read ~/.ssh\nnet allow github.com\n' >e1/inc.confpol
cat >e2/p.confpol <<'P'
confpol 1
profile confined
net allow github.com
deny read ~/.ssh
deny read ~/.ssh/id_rsa
deny write ${PROJECT}/.git/hooks
deny write ${PROJECT}/.git
write ${PROJECT}
P
"$CONFPOL" diff --fail-on change e1/p.confpol e2/p.confpol >eq.out
status equal 0 $?
echo "0 widened, 0 narrowed" >eq.exp
same eq

# 6. a param: a new `param CACHE` with `write ${CACHE}` is a widening under
# its (fresh) binding; a deny that only a binding reveals (PROJECT inside
# HOME) is reported with the binding that shows it
cat >p1.confpol <<'P'
confpol 1
profile confined
write ~
deny write ${PROJECT}/.git
P
cat >p2.confpol <<'P'
confpol 1
profile confined
param CACHE
write ~
write ${CACHE}
P
"$CONFPOL" diff p1.confpol p2.confpol >b1.out
status bind 0 $?
cat >b1.exp <<'E'
widened write /confpol-diff/CACHE
  old: deny
    by default: no 'write' rule matches; writing is denied by default
    note: the answer may differ with another value of HOME
  new: allow
    by 'write ${CACHE}' at p2.confpol:5:7
  region: 'write ${CACHE}'
  with: -D CACHE=/confpol-diff/CACHE
widened write /confpol-diff/HOME/.git
  old: deny
    by 'deny write ${PROJECT}/.git' at p1.confpol:4:12
  new: allow
    by 'write ~' at p2.confpol:4:7
  region: 'deny write ${PROJECT}/.git'
  with: -D HOME=/confpol-diff/HOME
  with: -D PROJECT=/confpol-diff/HOME
  with: -D CACHE=/confpol-diff/CACHE
2 widened, 0 narrowed
E
same b1
# the same comparison under bindings the user gives: PROJECT apart from
# HOME leaves the deny without effect
"$CONFPOL" diff -D HOME=/home/u -D PROJECT=/srv/p -D CACHE=/var/cache/c \
    p1.confpol p2.confpol >b2.out
status bind-D 0 $?
cat >b2.exp <<'E'
widened write /var/cache/c
  old: deny
    by default: no 'write' rule matches; writing is denied by default
  new: allow
    by 'write ${CACHE}' at p2.confpol:5:7
  region: 'write ${CACHE}'
1 widened, 0 narrowed
E
same b2
"$CONFPOL" diff -D NOPE=/x p1.confpol p2.confpol 2>b3.out
status bind-unknown 2 $?
cat >b3.exp <<'E'
confpol diff: -D NOPE=/x: 'NOPE' is not a param of either policy
see 'confpol diff --help'
E
same b3

# 7. a widened glob and a glob that only some names reach: the witness is a
# name the old glob misses and the new one takes
cat >g1.confpol <<'P'
confpol 1
profile confined
write /srv
deny write /srv/*.key
deny write /srv/k*
P
cat >g2.confpol <<'P'
confpol 1
profile confined
write /srv
deny write /srv/k*
P
"$CONFPOL" diff g1.confpol g2.confpol | head -n 1 >g.out
echo "widened write /srv/.key" >g.exp
same g

# 7b. a profile downgraded (confined to cooperative): the implicit rules
# count like written ones, so what they protected is widened
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n' >x2.confpol
printf 'confpol 1\nprofile cooperative\nwrite ${PROJECT}\n' >x3.confpol
"$CONFPOL" diff x2.confpol x3.confpol | grep -v '^ ' >x.out
cat >x.exp <<'E'
widened read ~/.config/confpol
widened write ${PROJECT}/x2.confpol
widened write /confpol-diff/PROJECT/.config/confpol
widened exec ~/.config/confpol
4 widened, 0 narrowed
E
same x

# 7c. --target: a change the policy calls narrower (a glob deny for a
# literal one) that a target does not enforce is a widening on it
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/.git\n' >t1.confpol
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/.gi?\n' >t3.confpol
for t in sbpl bwrap claude codex; do
    echo "$t: $("$CONFPOL" diff --target $t t1.confpol t3.confpol | tail -n 1)"
done >tg.out
cat >tg.exp <<'E'
sbpl: 0 widened, 1 narrowed
bwrap: 1 widened, 0 narrowed
claude: 1 widened, 0 narrowed
codex: 0 widened, 1 narrowed
E
same tg
# codex: a gate and an exec deny added narrow the policy and the claude
# target (its hook) or bwrap (its exec list), and nothing on codex, which
# runs neither confpol's gate nor an exec allow-list
printf 'confpol 1\nprofile confined\nwrite /tmp/p\nexec /usr/bin/**\n' >x1.confpol
printf 'confpol 1\nprofile confined\nwrite /tmp/p\nexec /usr/bin/**\ndeny exec /usr/bin/curl\ngate deny "git push *"\n' >x2.confpol
for t in bwrap claude codex; do
    echo "$t: $("$CONFPOL" diff --target $t x1.confpol x2.confpol | grep -v '^ ')"
done >tx.out
cat >tx.exp <<'E'
bwrap: narrowed exec /usr/bin/curl
0 widened, 1 narrowed
claude: narrowed gate '"$CONFPOL_DIFF" x'
narrowed gate 'git push'
0 widened, 2 narrowed
codex: 0 widened, 0 narrowed
E
same tx
"$CONFPOL" diff --target codex -D PROJECT=/tmp/p -D HOME=/root t1.confpol t3.confpol >tc.out
cat >tc.exp <<'E'
narrowed write /tmp/p/.giz
  old: allow
    by 'write ${PROJECT}' at t1.confpol:3:7
  new: deny
    by 'deny write ${PROJECT}/.gi?' at t3.confpol:4:12
  region: 'write ${PROJECT}'
0 widened, 1 narrowed
E
same tc
"$CONFPOL" diff --help | grep -A1 -e "--target T" | tail -n 1 >th.out
"$CONFPOL" diff --help | grep -e "(sbpl, bwrap" >>th.out
"$CONFPOL" diff --target nope t1.confpol t3.confpol 2>>th.out
cat >th.exp <<'E'
                            rules T rates not enforced left out
                            (sbpl, bwrap, claude, codex; codex
confpol diff: --target expects sbpl, bwrap, claude or codex, got 'nope'
see 'confpol diff --help'
E
same th
"$CONFPOL" diff --fail-on widen --target bwrap t1.confpol t3.confpol >/dev/null
status target-fail 1 $?
"$CONFPOL" diff --target nope t1.confpol t3.confpol 2>/dev/null
status target-usage 2 $?

# 8. JSON: one object, widened and narrowed arrays; every witness replayed
# with explain (and its binding) decides as the diff says on each side
for pair in "a/p.confpol b/p.confpol" "p1.confpol p2.confpol" "g1.confpol g2.confpol" "x2.confpol x3.confpol"; do
    # shellcheck disable=SC2086
    "$CONFPOL" diff --format json $pair >j.json
    # shellcheck disable=SC2086
    python3 "$TOP/tests/campaign/diff_replay.py" "$CONFPOL" $pair j.json || fail=$((fail + 1))
done

[ $fail -eq 0 ] || { echo "$fail failures"; exit 1; }
echo "diff: all passed"

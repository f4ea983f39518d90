#!/bin/sh
# Copies of one rule: each copy after the first is redundant, its notes
# name the first copies (capped, "and N more"), and the analysis is not
# quadratic in the number of copies: 20,000 identical write rules and
# 10,000 write rules under 10,000 identical deny rules are checked within
# a bound forty times what they take (pairwise, they took seconds).
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fail() { echo "not ok - $*"; exit 1; }
ok() { echo "ok - $*"; }
printf 'confpol 1\nprofile exclusive\n' >p.confpol
for i in 1 2 3 4 5 6 7; do echo 'write "/tmp/x"'; done >>p.confpol
echo 'deny read ~/.ssh' >>p.confpol
"$CONFPOL" check p.confpol 2>err.txt
grep -v '^ ' err.txt >got.txt
cat >want.txt <<'E'
p.confpol:4:7: warning: 'write "/tmp/x"' is redundant: 'write "/tmp/x"' already covers every path it names [CP0502] [-Wredundant]
p.confpol:3:7: note: 'write "/tmp/x"' is here
p.confpol:4:7: note: remove 'write "/tmp/x"'
p.confpol:5:7: warning: 'write "/tmp/x"' is redundant: 'write "/tmp/x"' (and 1 more) already covers every path it names [CP0502] [-Wredundant]
p.confpol:3:7: note: 'write "/tmp/x"' is here
p.confpol:4:7: note: 'write "/tmp/x"' is here
p.confpol:5:7: note: remove 'write "/tmp/x"'
p.confpol:6:7: warning: 'write "/tmp/x"' is redundant: 'write "/tmp/x"' (and 2 more) already covers every path it names [CP0502] [-Wredundant]
p.confpol:3:7: note: 'write "/tmp/x"' is here
p.confpol:4:7: note: 'write "/tmp/x"' is here
p.confpol:5:7: note: 'write "/tmp/x"' is here
p.confpol:6:7: note: remove 'write "/tmp/x"'
p.confpol:7:7: warning: 'write "/tmp/x"' is redundant: 'write "/tmp/x"' (and 3 more) already covers every path it names [CP0502] [-Wredundant]
p.confpol:3:7: note: 'write "/tmp/x"' is here
p.confpol:4:7: note: 'write "/tmp/x"' is here
p.confpol:5:7: note: 'write "/tmp/x"' is here
p.confpol:6:7: note: 'write "/tmp/x"' is here
p.confpol:7:7: note: remove 'write "/tmp/x"'
p.confpol:8:7: warning: 'write "/tmp/x"' is redundant: 'write "/tmp/x"' (and 4 more) already covers every path it names [CP0502] [-Wredundant]
p.confpol:3:7: note: 'write "/tmp/x"' is here
p.confpol:4:7: note: 'write "/tmp/x"' is here
p.confpol:5:7: note: 'write "/tmp/x"' is here
p.confpol:6:7: note: 'write "/tmp/x"' is here
confpol: note: and 1 more
p.confpol:8:7: note: remove 'write "/tmp/x"'
p.confpol:9:7: warning: 'write "/tmp/x"' is redundant: 'write "/tmp/x"' (and 5 more) already covers every path it names [CP0502] [-Wredundant]
p.confpol:3:7: note: 'write "/tmp/x"' is here
p.confpol:4:7: note: 'write "/tmp/x"' is here
p.confpol:5:7: note: 'write "/tmp/x"' is here
p.confpol:6:7: note: 'write "/tmp/x"' is here
confpol: note: and 2 more
p.confpol:9:7: note: remove 'write "/tmp/x"'
p.confpol:10:11: warning: 'deny read ~/.ssh' is redundant: 'deny read ~/.ssh' already covers every path it names [CP0502] [-Wredundant]
p.confpol:2:1: note: 'deny read ~/.ssh' is added by profile exclusive (credential store)
p.confpol:10:11: note: remove 'deny read ~/.ssh'
7 warnings
E
diff -u want.txt got.txt || fail "copies: the findings and their notes"
ok "copies: each later copy is redundant, its notes capped"

# Large: the bound is generous for a shared machine.
python3 - <<'P' || fail "cannot write the large policies"
with open("big.confpol", "w") as f:
    f.write("confpol 1\nprofile confined\n" + 'write "/tmp/x"\n' * 20000)
with open("shadow.confpol", "w") as f:
    f.write("confpol 1\nprofile confined\n" + 'deny write "/tmp/y"\n' * 10000 +
            'write "/tmp/y/z"\n' * 10000)
P
timeout -s KILL 5 "$CONFPOL" check big.confpol >/dev/null 2>err.txt; rc=$?
[ $rc = 1 ] || [ $rc = 0 ] || fail "20,000 copies: exit $rc (137: not within 5 s)"
tail -3 err.txt | grep -v '^ ' >got.txt
cat >want.txt <<'E'
confpol: note: and 19995 more
big.confpol:20002:7: note: remove 'write "/tmp/x"'
19999 warnings
E
diff -u want.txt got.txt || fail "20,000 copies: the last finding"
ok "20,000 copies of a write rule are checked within 5 s"
timeout -s KILL 5 "$CONFPOL" check --all-diagnostics shadow.confpol >/dev/null 2>err.txt; rc=$?
[ $rc = 1 ] || [ $rc = 0 ] || fail "10,000 shadowed copies: exit $rc (137: not within 5 s)"
[ "$(grep -c "is shadowed: every path it names is denied by 'deny write \"/tmp/y\"' (and 9999 more)" err.txt)" = 10000 ] ||
    fail "10,000 shadowed copies: one finding each, naming the 10,000 denies: $(tail -3 err.txt)"
ok "10,000 write rules under 10,000 identical denies are checked within 5 s"

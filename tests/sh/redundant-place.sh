#!/bin/sh
# A finding whose fix is to remove a rule sits on that rule, whichever of
# the two comes first: the caret, the suggestion's location and the SARIF
# region of "'write /a/b' is redundant ... remove 'write /a/b'" are on line
# 3, not on the 'write /a' to keep (line 4); the same for a shadowed rule
# and for gate patterns.
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fail() { echo "not ok - $*"; exit 1; }
cat >p.confpol <<'E'
confpol 1
profile confined
write /a/b
write /a
write /s/t
deny write /s
gate ask "git push *"
gate ask "git *"
E
"$CONFPOL" check p.confpol 2>err.txt
grep -v '^ ' err.txt >got.txt
cat >want.txt <<'E'
p.confpol:3:7: warning: 'write /a/b' is redundant: 'write /a' already covers every path it names [CP0502] [-Wredundant]
p.confpol:4:7: note: 'write /a' is here
p.confpol:3:7: note: remove 'write /a/b'
p.confpol:5:7: warning: 'write /s/t' is shadowed: every path it names is denied by 'deny write /s' [CP0501] [-Wshadowed]
p.confpol:6:12: note: 'deny write /s' is here
p.confpol:5:7: note: remove 'write /s/t': a deny always wins
p.confpol:7:10: warning: 'gate ask "git push *"' is redundant: 'gate ask "git *"' already matches every command it matches [CP0507] [-Wredundant-gate]
p.confpol:8:10: note: 'gate ask "git *"' is here
p.confpol:7:10: note: remove 'gate ask "git push *"'
3 warnings
E
diff -u want.txt got.txt || fail "the findings are not on the rule to remove"
"$CONFPOL" check --diagnostics-format sarif p.confpol >s.json
python3 - <<'P' || fail "SARIF regions"
import json
r = json.load(open('s.json'))['runs'][0]['results']
got = [(x['ruleId'], x['locations'][0]['physicalLocation']['region']['startLine']) for x in r]
want = [('CP0502', 3), ('CP0501', 5), ('CP0507', 7)]
assert got == want, got
P
echo "ok - redundant and shadowed findings sit on the rule to remove"

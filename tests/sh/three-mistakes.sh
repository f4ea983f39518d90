#!/bin/sh
# A policy with three independent mistakes on three different lines: one
# run of `confpol check` reports all three, each at its exact line and
# column, and exits 1 with nothing on stdout.
set -u
: "${CONFPOL:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
cat >policy.confpol <<'P'
# three mistakes: a misspelt keyword, an invalid escape, a missing path
confpol 1
profile confined
wirte ${PROJECT}
exec /usr/bin/git
gate ask "git push\q"
net allow example.com
deny read
write ${PROJECT}/build
P
cat >expected <<'E'
policy.confpol:4:1: error: unknown statement 'wirte' [CP0202]
    4 | wirte ${PROJECT}
      | ^~~~~
policy.confpol:4:1: note: did you mean 'write'?
policy.confpol:6:19: error: invalid escape '\q' in a quoted string; only \", \\ and \xHH are allowed [CP0105]
    6 | gate ask "git push\q"
      |                   ^~
policy.confpol:8:10: error: expected a path after 'deny read' [CP0203]
    8 | deny read
      |          ^
3 errors
E
"$CONFPOL" check policy.confpol >out 2>err
rc=$?
status=0
if [ $rc -ne 1 ]; then
    echo "exit status $rc, expected 1"
    status=1
fi
if [ -s out ]; then
    echo "unexpected output on stdout:"
    cat out
    status=1
fi
diff -u expected err || status=1
exit $status

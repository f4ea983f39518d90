#!/bin/sh
# A shell-style variable in a path is an error whose fix names what the
# shell would have named ('$HOME/.aws' -> '~/.aws', '$X/y' -> '${X}/y'),
# never a path in the project: applied, the fix must deny the credential
# the written rule meant to deny.
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fail() { echo "not ok - $*"; exit 1; }
mkdir -p home/.aws proj && echo secret >home/.aws/credentials
export HOME="$w/home"
pol() { printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n%s\n' "$1" >p.confpol; }

pol 'deny read $HOME/.aws'
"$CONFPOL" check p.confpol 2>err.txt && fail "'deny read \$HOME/.aws' is accepted"
cat >want.txt <<'E'
p.confpol:4:11: error: shell variable '$HOME' in path '$HOME/.aws': confpol does not expand it [CP0421]
    4 | deny read $HOME/.aws
      |           ^~~~~
p.confpol:4:11: note: did you mean '~/.aws'?
1 error
E
diff -u want.txt err.txt || fail "the message of \$HOME"
grep -q 'PROJECT}/\$' err.txt && fail "a fix in the project"
# The fix applied: the credential is denied where run runs.
fix=$(sed -n "s/.*did you mean '\\(.*\\)'?/\\1/p" err.txt)
pol "deny read $fix"
"$CONFPOL" check -Werror p.confpol 2>err.txt || fail "the fix does not compile: $(cat err.txt)"
v=$(cd proj && "$CONFPOL" explain ../p.confpol read "$HOME/.aws/credentials" | head -1)
[ "$v" = deny ] || fail "the fixed rule does not deny the credential: $v"
echo "ok - \$HOME becomes ~ and the fix denies the credential"

for case in '$TMPDIR/x|declare '"'"'param TMPDIR'"'"' and write '"'"'${TMPDIR}/x'"'" \
            '$PROJECT/.env|did you mean '"'"'${PROJECT}/.env'"'"'?' \
            '/srv/$USER/x|a path starts with' \
            '"$HOME/.ssh"|did you mean '"'"'"~/.ssh"'"'"'?' \
            '$|relative path'; do
    text=${case%%|*} want=${case#*|}
    pol "deny read $text"
    "$CONFPOL" check p.confpol 2>err.txt && fail "'$text' is accepted"
    grep -qF "$want" err.txt || fail "'$text': expected '$want' in: $(cat err.txt)"
    grep -q 'PROJECT}/\$' err.txt && fail "'$text': a fix in the project: $(cat err.txt)"
done
# A quoted absolute path is literal: the way to name a file called '$USER'.
pol 'deny read "/srv/$USER"'
"$CONFPOL" check p.confpol 2>err.txt || fail "a quoted '\$' is refused: $(cat err.txt)"
echo "ok - every shell-style variable is refused, with a fix only where it names the same"

#!/bin/sh
# SPDX-License-Identifier: MIT
# Did you mean, where a new user's first guess fails, with fixes that never
# widen what was meant: 'read PATH' (there is no allow-read rule) suggests
# 'deny read PATH' and says reading is allowed by default; 'include "all"'
# and 'include "<al>"' suggest the gate library's '"<all>"'; 'net
# https://host' suggests 'net allow host:443'.  Each applied fix passes
# check -Werror, and an include that cannot be read no longer hides the
# policy's other errors.
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fail() { echo "not ok - $*"; exit 1; }
# fix NAME LINE: checks a policy holding LINE, prints its suggestion's fix
fix() {
    printf 'confpol 1\nprofile confined\n%s\n' "$2" >"$1.confpol"
    "$CONFPOL" check "$1.confpol" 2>"$1.err" && fail "'$2' is accepted"
    sed -n "s/.*did you mean '\\(.*\\)'?.*/\\1/p" "$1.err"
}
applies() {
    printf 'confpol 1\nprofile confined\n%s\n' "$2" >"$1.fixed.confpol"
    "$CONFPOL" check -Werror "$1.fixed.confpol" || fail "the fix '$2' does not compile"
}
got=$(fix read 'read ~/.aws ~/.ssh # keys')
[ "$got" = "deny read ~/.aws ~/.ssh" ] || fail "read: fix '$got': $(cat read.err)"
grep -q "reading is allowed wherever no 'deny read' rule matches" read.err || fail "read: no reason: $(cat read.err)"
applies read "$got"
mkdir home
HOME=$w/home "$CONFPOL" explain read.fixed.confpol read "$w/home/.aws/credentials" | head -1 | grep -qx deny ||
    fail "the fix of 'read ~/.aws' does not deny reading it"
echo "ok - 'read PATH' suggests 'deny read PATH'"
got=$(fix all 'include "all"')
[ "$got" = 'include "<all>"' ] || fail "include \"all\": fix '$got': $(cat all.err)"
applies all "$got"
got=$(fix al 'include "<al>"')
[ "$got" = 'include "<all>"' ] || fail "include \"<al>\": fix '$got': $(cat al.err)"
got=$(fix allconf 'include "all.confpol"')
[ "$got" = 'include "<all>"' ] || fail "include \"all.confpol\": fix '$got': $(cat allconf.err)"
# a file of that name, when there is one, is what the include means
printf 'confpol 1\n' >other.confpol
got=$(fix nolib 'include "nosuchset"')
[ -z "$got" ] || fail "include of a missing file that is no set: fix '$got'"
echo "ok - include \"all\" and \"<al>\" suggest \"<all>\""
printf 'confpol 1\nprofile confined\ninclude "all"\nwrite rel\nnet allow https://x.com\n' >hide.confpol
"$CONFPOL" check hide.confpol 2>hide.err && fail "hide.confpol is accepted"
grep -q "CP0407" hide.err && grep -q "CP0410" hide.err ||
    fail "a missing include hides the other errors: $(cat hide.err)"
echo "ok - a missing include does not hide the other errors"
got=$(fix url 'net https://github.com')
[ "$got" = "net allow github.com:443" ] || fail "net https://github.com: fix '$got': $(cat url.err)"
applies url "$got"
got=$(fix url2 'net http://deb.debian.org/debian')
[ "$got" = "net allow deb.debian.org:80" ] || fail "net http://...: fix '$got': $(cat url2.err)"
got=$(fix url3 'net ssh://x.org')
[ -z "$got" ] || fail "net ssh://x.org: fix '$got'"
echo "ok - 'net https://host' suggests 'net allow host:443'"

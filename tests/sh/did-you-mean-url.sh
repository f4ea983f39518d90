#!/bin/sh
# Fixes that allow no more than was meant: a URL in 'net allow' suggests
# its host and port (the scheme's port when none is written), and the fix
# compiles; no fix for a scheme without a known port or a user@ part.
# 'check --format' suggests --diagnostics-format.
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fail() { echo "not ok - $*"; exit 1; }
for case in 'https://github.com|github.com:443' 'https://github.com:8443/x|github.com:8443' \
            'http://deb.debian.org/debian|deb.debian.org:80' 'ssh://x.org|' 'http://a@b.com|'; do
    url=${case%%|*} want=${case#*|}
    printf 'confpol 1\nprofile confined\nnet allow %s\n' "$url" >p.confpol
    "$CONFPOL" check p.confpol 2>err.txt && fail "'net allow $url' is accepted"
    got=$(sed -n "s/.*did you mean '\\(.*\\)'?/\\1/p" err.txt)
    [ "$got" = "$want" ] || fail "'$url': fix '$got', want '$want': $(cat err.txt)"
    if [ -n "$want" ]; then
        printf 'confpol 1\nprofile confined\nnet allow %s\n' "$got" >f.confpol
        "$CONFPOL" check -Werror f.confpol || fail "the fix '$got' does not compile"
    fi
done
echo "ok - a URL in 'net allow' suggests its host and port"
out=$("$CONFPOL" check --format json p.confpol 2>&1)
case $out in *"did you mean '--diagnostics-format'?"*) ;; *) fail "check --format: $out" ;; esac
echo "ok - check --format suggests --diagnostics-format"

#!/bin/sh
# Where the Claude target's network decision differs from confpol's proxy
# (spec/runtime.md 14.3), `build --target claude --fidelity` says so: a
# name in allowedDomains is decided on the name alone by Claude Code's
# sandbox runtime, which connects to any address it resolves to (the proxy
# refuses special-purpose and the host's own addresses), and a
# `localhost:PORT` rule is left out (the proxy connects it to loopback).
set -u
: "${TOP:?}" "${CONFPOL:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir out
printf 'confpol 1\nprofile confined\nnet allow example.com *.github.com localhost:8080 10.0.0.5\n' > a.confpol
timeout 60 "$CONFPOL" build --target claude --fidelity -o out a.confpol > fid 2> err ||
    { echo "build failed: $(cat err)"; exit 1; }
row() { grep -F "a.confpol:3: net allow $1	claude	$2	" fid | grep -qF "$3" ||
    fail "row '$1' ($2) does not say '$3': $(grep -F "net allow $1	" fid)"; }
row example.com "not enforced by this target" "decides on the name alone and connects to any address it resolves to"
row '*.github.com' "not enforced by this target" "which confpol's proxy refuses unless a rule names the address"
row localhost:8080 stricter "so Bash cannot reach the host's loopback at this port, which confpol's proxy connects"
row 10.0.0.5 stricter "cannot name a port or an IP address"
grep -q '(2 net rules; --fidelity lists them) \[CP0733\]' err || fail "no CP0733 note: $(cat err)"
grep -q "1 'localhost:PORT' rule is left out of allowedDomains (stricter).*\[CP0734\]" err || fail "no CP0734 note: $(cat err)"
# Nothing to say without such rules.
printf 'confpol 1\nprofile confined\nnet allow 10.0.0.5\n' > b.confpol
timeout 60 "$CONFPOL" build --target claude -o out b.confpol 2> err || { echo "build b failed: $(cat err)"; exit 1; }
grep -q 'CP073[34]' err && fail "CP0733/CP0734 without name or localhost rules: $(cat err)"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "net-claude-fidelity: all passed"

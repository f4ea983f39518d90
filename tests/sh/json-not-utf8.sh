#!/bin/sh
# SPDX-License-Identifier: MIT
# A policy file name that is not UTF-8 gives valid JSON in every JSON
# output (one string writer, util/json.c): the diagnostics of check and
# build as JSON and SARIF, explain --format json, diff --format json and
# sarif, and the gate's answer; the byte is U+FFFD in each (SARIF's URIs
# percent-encode it).  The settings writer refuses such a name (CP0751)
# instead of writing a path that names another file.
set -u
: "${CONFPOL:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fails=0
n=$(printf 'n\377.confpol') o=$(printf 'o\377')
printf 'confpol 1\nprofile confined\nwrite /a/b\nwrite /a\ndeny write /a/b/c\ngate deny "rm -rf *"\n' >"$n"
printf 'confpol 1\nprofile confined\nwrite /a\n' >old.confpol
mkdir "$o" || exit 1
# valid NAME FILE: FILE is one JSON document, UTF-8, holding U+FFFD or %FF.
valid() {
    python3 - "$2" <<'PY' || { echo "not ok - $1: not valid JSON: $(head -c 300 "$2")"; fails=$((fails + 1)); }
import json, sys
raw = open(sys.argv[1], 'rb').read()
text = raw.decode('utf-8')
json.loads(text)
assert '\\ufffd' in text or '%FF' in text, 'no U+FFFD or %FF'
PY
}
"$CONFPOL" check --diagnostics-format json "$n" >check.json 2>err.txt
valid "check json" check.json
"$CONFPOL" check --diagnostics-format sarif "$n" >check.sarif 2>err.txt
valid "check sarif" check.sarif
"$CONFPOL" build --target all --diagnostics-format json -o "$o" "$n" >build.json 2>err.txt
valid "build json" build.json
"$CONFPOL" build --target all --diagnostics-format sarif -o "$o" "$n" >build.sarif 2>err.txt
valid "build sarif" build.sarif
grep -q CP0751 build.json || { echo "not ok - the settings target wrote a name that is not UTF-8"; fails=$((fails + 1)); }
"$CONFPOL" explain --format json "$n" write /a/b/c/d >explain.json 2>err.txt
valid "explain json" explain.json
"$CONFPOL" diff --format json old.confpol "$n" >diff.json 2>err.txt
valid "diff json" diff.json
"$CONFPOL" diff --format sarif old.confpol "$n" >diff.sarif 2>err.txt
valid "diff sarif" diff.sarif
echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}' |
    "$CONFPOL" gate "$n" >gate.json 2>err.txt
valid "gate answer" gate.json
[ "$fails" -eq 0 ] || exit 1
echo "ok - a file name that is not UTF-8 gives valid JSON in every format"

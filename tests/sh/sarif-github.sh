#!/bin/sh
# SARIF that code scanning takes as it is: every document confpol writes in
# the cases below passes the SARIF 2.1.0 schema (python3-jsonschema) and the
# SARIF Multitool's validation with its GitHub rules, installed from npm
# into the build directory (pinned; the test skips without npm or network).
# Each result has a location (a policy-wide fact on the policy file), a
# relative file is relative to %SRCROOT%, an absolute one a file:// URI, a
# name that is not UTF-8 is percent-encoded, columns count code points
# (columnKind), and findings that loosen the policy carry security-severity.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
python3 -c 'import jsonschema' 2>/dev/null || { echo "python3-jsonschema is missing"; exit 77; }
tools=$TOP/${BUILD:-build}/tools/sarif
mt=$tools/node_modules/@microsoft/sarif-multitool-linux
if [ ! -x "$mt/Sarif.Multitool" ]; then
    command -v npm >/dev/null || { echo "npm is missing: no SARIF Multitool"; exit 77; }
    mkdir -p "$tools"
    timeout 300 npm install --silent --no-audit --no-fund --prefix "$tools" \
        @microsoft/sarif-multitool-linux@5.7.0 >/dev/null 2>&1 ||
        { echo "npm install of the SARIF Multitool failed"; exit 77; }
    chmod u+x "$mt/Sarif.Multitool"
fi
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fail=0
bad() { echo "not ok - $*"; fail=1; }
mkdir docs
n=0
doc() { # NAME CMD...: the command's SARIF into docs/NAME.sarif
    name=$1; shift
    "$@" --diagnostics-format sarif >"docs/$name.sarif" 2>/dev/null
    n=$((n + 1))
}
printf 'confpol 1\nprofile confined\nwrite /a/b\nwrite /a\n' >p.confpol
printf 'confpol 1\nprofile confined\n# \303\251t\303\251\nwrite "/caf\303\251/x" "/caf\303\251"\n' >u.confpol
cp p.confpol "$(printf 'n\377.confpol')"
cp "$TOP"/examples/starter/claude.confpol claude.confpol
mkdir -p out
doc relative "$CONFPOL" check p.confpol
doc absolute "$CONFPOL" check "$w/p.confpol"
doc missing "$CONFPOL" check nope.confpol
doc several "$CONFPOL" check p.confpol u.confpol
doc utf8 "$CONFPOL" check u.confpol
doc notutf8 "$CONFPOL" check "$(printf 'n\377.confpol')"
doc starter "$CONFPOL" build --target all -Wtarget-notes -o out claude.confpol
doc ci "$CONFPOL" build --target all -o out "$TOP/examples/ci-runner.confpol"
doc define "$CONFPOL" check -D PROJECT=rel p.confpol
doc notutf8missing "$CONFPOL" check "$(printf 'm\377.confpol')"
# The same name in the JSON format: valid JSON too (U+FFFD for the byte).
"$CONFPOL" check --diagnostics-format json "$(printf 'm\377.confpol')" >m.json 2>/dev/null
python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))' m.json ||
    bad "--diagnostics-format json of a name that is not UTF-8 is not JSON"
python3 - "$mt/sarif-2.1.0.json" docs/*.sarif <<'PY' || fail=1
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
bad = 0
for f in sys.argv[2:]:
    raw = open(f, 'rb').read()
    try:
        d = json.loads(raw.decode('utf-8'))
        jsonschema.validate(d, schema)
    except Exception as e:
        print(f'not ok - {f}: {str(e)[:300]}'); bad = 1; continue
    run = d['runs'][0]
    if run.get('columnKind') != 'unicodeCodePoints':
        print(f'not ok - {f}: columnKind'); bad = 1
    for r in run['results']:
        if not r.get('locations'):
            print(f'not ok - {f}: a result without location: {r["message"]["text"][:80]}'); bad = 1
        for l in r.get('locations', []):
            a = l['physicalLocation']['artifactLocation']
            if not (a['uri'].startswith('file:///') or a.get('uriBaseId') == '%SRCROOT%'):
                print(f'not ok - {f}: uri {a}'); bad = 1
name = lambda f: json.load(open(f))['runs'][0]
u = name('docs/utf8.sarif')['results'][0]['locations'][0]['physicalLocation']['region']
# write "/café/x" "/café": the redundant one is bytes 7-16, code points
# 7-15 (endColumn exclusive: 16, where bytes would say 17).
if u['startColumn'] != 7 or u['endColumn'] != 16:
    print('not ok - code point columns:', u); bad = 1
rules = {r['id']: r for r in name('docs/ci.sarif')['tool']['driver']['rules']}
if rules['CP0755'].get('properties', {}).get('security-severity') is None:
    print('not ok - CP0755 has no security-severity'); bad = 1
print(f'{len(sys.argv) - 2} SARIF documents checked against the schema')
sys.exit(bad)
PY
# The Multitool with its GitHub rules: no error and no warning but the
# tool's missing informationUri (confpol has no web page of its own).
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1
for f in docs/*.sarif; do
    timeout 120 "$mt/Sarif.Multitool" validate --rule-kind "Gh;Sarif" --level "Error;Warning" \
        -o "$f.val" "$f" >"$f.log" 2>&1 || { bad "Multitool failed on $f: $(tail -5 "$f.log")"; continue; }
    left=$(grep -E ': (error|warning) ' "$f.log" | grep -v SARIF2005)
    [ -z "$left" ] || bad "$f: $left"
done
[ $fail -eq 0 ] && echo "ok - $n SARIF documents pass the schema and the GitHub rules"
exit $fail

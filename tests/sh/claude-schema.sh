#!/bin/sh
# Every .claude.json the claude target emits (all examples and the cases in
# tests/claude/) validates against the Claude Code settings schema with a
# real JSON Schema validator (Draft 7, python3-jsonschema), and is printed
# in the canonical layout: json.dumps(indent=2, sort_keys=True) + newline.
set -u
: "${CONFPOL:?}" "${TOP:?}"
py=
for c in /usr/bin/python3 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import jsonschema' 2>/dev/null; then
        py=$c
        break
    fi
done
[ -n "$py" ] || { echo "no python3 with jsonschema (apt-get install python3-jsonschema)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/out"
n=0
for f in "$TOP"/examples/*.confpol "$TOP"/tests/claude/*.confpol; do
    [ -f "$f" ] || continue
    (cd "$TOP" && "$CONFPOL" build --target claude -o "$tmp/out" "$f") >"$tmp/err" 2>&1 || {
        cat "$tmp/err"
        echo "FAIL: confpol build --target claude $f"
        exit 1
    }
    n=$((n + 1))
done
[ "$n" -ge 8 ] || { echo "FAIL: only $n policies built"; exit 1; }
# A broken document the validator must reject (a test that cannot fail is
# no test): a wrong type, an unknown sandbox key, a rule with ')' inside.
printf '%s\n' '{"sandbox": {"enabled": "yes", "bogus": 1}, "permissions": {"deny": ["Edit(a)b)"]}}' \
    >"$tmp/negative.json"
"$py" - "$TOP/tests/claude/claude-code-settings.schema.json" "$tmp/negative.json" \
    "$tmp"/out/*.claude.json <<'PY'
import json, sys
from jsonschema import Draft7Validator
schema = json.load(open(sys.argv[1], encoding="utf-8"))
Draft7Validator.check_schema(schema)
v = Draft7Validator(schema)
neg = json.load(open(sys.argv[2], encoding="utf-8"))
nerr = len(list(v.iter_errors(neg)))
if nerr < 3:
    print(f"FAIL: the validator found {nerr} errors in the negative control")
    sys.exit(1)
bad = 0
for f in sys.argv[3:]:
    text = open(f, encoding="utf-8").read()
    doc = json.loads(text)
    # The hook's "onFailure": "block" is known to the client (2.1.332) and
    # not to the schema: validated with the key removed, checked here.
    import copy
    vdoc = copy.deepcopy(doc)
    for grp in vdoc.get("hooks", {}).get("PreToolUse", []):
        for h in grp.get("hooks", []):
            if h.pop("onFailure", None) != "block":
                print(f"FAIL: {f}: a gate hook without onFailure: block")
                bad += 1
    for e in sorted(v.iter_errors(vdoc), key=lambda e: list(map(str, e.path))):
        print(f"FAIL: {f}: /{'/'.join(map(str, e.path))}: {e.message}")
        bad += 1
    if json.dumps(doc, indent=2, sort_keys=True) + "\n" != text:
        print(f"FAIL: {f}: not in the canonical layout")
        bad += 1
    # Every permission rule is a well-formed Tool or Tool(content) with the
    # content closed by the last byte and no ')' inside.
    for lst in ("allow", "ask", "deny"):
        for r in doc.get("permissions", {}).get(lst, []):
            if "(" in r and (not r.endswith(")") or ")" in r[r.index("(") + 1:-1]):
                print(f"FAIL: {f}: malformed rule {r!r}")
                bad += 1
print(f"{len(sys.argv) - 3} artifacts validated")
sys.exit(1 if bad else 0)
PY

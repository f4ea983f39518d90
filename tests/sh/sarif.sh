#!/bin/sh
# --diagnostics-format sarif and json: valid JSON, SARIF 2.1.0 with one result
# per diagnostic (rule ids = codes, regions with lines and columns), and the
# JSON schema of spec/cli.md with the same diagnostics.
set -u
: "${CONFPOL:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/p.confpol" <<'POL'
confpol 1
profile cooperative
write /srv
write /srv/a
deny write /srv/b
deny write /srv/b/c
deny read /srv/d
gate ask "git push *"
gate ask "git push --force *"
POL
"$CONFPOL" check --diagnostics-format sarif "$tmp/p.confpol" > "$tmp/out.sarif" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] || { echo "check exited $rc"; cat "$tmp/err"; exit 1; }
"$CONFPOL" check --diagnostics-format json "$tmp/p.confpol" > "$tmp/out.json" || exit 1
"$CONFPOL" check -Werror --diagnostics-format sarif "$tmp/p.confpol" > "$tmp/werror.sarif"
[ $? -eq 1 ] || { echo "-Werror did not exit 1"; exit 1; }
python3 - "$tmp/out.sarif" "$tmp/out.json" "$tmp/werror.sarif" <<'PY'
import json, sys
sarif = json.load(open(sys.argv[1]))
js = json.load(open(sys.argv[2]))
werr = json.load(open(sys.argv[3]))
assert sarif["version"] == "2.1.0", sarif["version"]
assert sarif["$schema"].endswith("sarif-2.1.0.json")
run = sarif["runs"][0]
drv = run["tool"]["driver"]
assert drv["name"] == "confpol"
ids = [r["id"] for r in drv["rules"]]
assert ids == sorted(set(ids)), ids
diags = js["diagnostics"]
assert js["version"] == 1
# 3 redundant (write /srv/a, deny write /srv/b/c, gate) + 1 unreadable-write
assert len(diags) == 4, [d["message"] for d in diags]
results = run["results"]
assert len(results) == len(diags), (len(results), len(diags))
for res, d in zip(results, diags):
    assert res["ruleId"] == d["code"]
    assert ids[res["ruleIndex"]] == res["ruleId"]
    assert res["level"] == d["severity"] == "warning"
    assert res["message"]["text"].startswith(d["message"])
    loc = res["locations"][0]["physicalLocation"]
    # an absolute file name is a file:// URI (a relative one is relative
    # to %SRCROOT%: tests/sh/sarif-github.sh)
    assert loc["artifactLocation"]["uri"] == "file://" + d["file"], loc
    reg = loc["region"]
    assert reg["startLine"] == d["line"] and reg["startColumn"] == d["column"]
    assert reg["endColumn"] == d["endColumn"] + 1
    assert len(res["relatedLocations"]) == len(d["notes"])
    for k in ("severity", "code", "name", "message", "file", "line", "column",
              "endLine", "endColumn", "notes", "suggestion"):
        assert k in d, k
assert {d["code"] for d in diags} == {"CP0502", "CP0504", "CP0507"}, diags
assert all(r["level"] == "error" for r in werr["runs"][0]["results"])
print("ok:", len(results), "results")
PY

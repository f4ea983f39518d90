#!/bin/sh
# confpol diff --format sarif: one result per region at the NEW file's
# deciding rule (CP0810 widened, CP0811 narrowed), valid against the SARIF
# 2.1.0 schema and clean under the SARIF Multitool's SARIF and GitHub rules
# (npm @microsoft/sarif-multitool-linux, pinned, installed into the build
# directory; skipped when npm cannot install it, failed under CI=true).
set -u
: "${CONFPOL:?}" "${TOP:?}" "${BUILD:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
PKG=@microsoft/sarif-multitool-linux@5.7.0
dir="$TOP/$BUILD/tools/sarif"
M="$dir/node_modules/@microsoft/sarif-multitool-linux"
if [ ! -x "$M/Sarif.Multitool" ]; then
    command -v npm >/dev/null || { echo "npm is missing: the SARIF Multitool cannot be installed"; exit 77; }
    mkdir -p "$dir"
    timeout 300 npm install --no-audit --no-fund --prefix "$dir" "$PKG" >"$dir/install.log" 2>&1 ||
        { echo "npm install $PKG failed (see $dir/install.log)"; exit 77; }
    chmod u+x "$M/Sarif.Multitool" 2>/dev/null
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
mkdir a b
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/.git\ndeny read ~/.ssh\n' >a/p.confpol
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\nwrite /tmp\ndeny read ~/.ssh\ndeny read ~/.aws\n' >b/p.confpol
"$CONFPOL" diff --format sarif a/p.confpol b/p.confpol >d.sarif || { echo "diff failed"; exit 1; }
python3 - d.sarif "$M/sarif-2.1.0.json" <<'PY' || exit 1
import json, sys
import jsonschema
doc = json.load(open(sys.argv[1]))
jsonschema.validate(doc, json.load(open(sys.argv[2])))
res = doc["runs"][0]["results"]
got = sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
              r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in res)
# widened write /tmp at the new rule (line 4); widened write ${PROJECT}/.git
# at 'write ${PROJECT}' (line 3); narrowed read and exec ~/.aws at line 6
want = sorted([("CP0810", "b/p.confpol", 4), ("CP0810", "b/p.confpol", 3),
               ("CP0811", "b/p.confpol", 6), ("CP0811", "b/p.confpol", 6)])
assert got == want, got
rules = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
assert rules == ["CP0810", "CP0811"], rules
print("schema: valid, %d results" % len(res))
PY
timeout 300 "$M/Sarif.Multitool" validate --rule-kind "Gh;Sarif" -o v.sarif d.sarif >v.out 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "Sarif.Multitool exited $rc"; cat v.out; exit 1; }
python3 - v.sarif <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
errors = [r for run in runs for r in run.get("results", []) if r.get("level") == "error"]
for r in errors:
    print("multitool: %s %s" % (r.get("ruleId"), r["message"].get("text", "")))
sys.exit(1 if errors else 0)
PY

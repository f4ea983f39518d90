#!/bin/sh
# Parity with the seed system: the three agentteams examples compiled to
# claude deny and allow the same paths as the settings blocks agentteams
# emits (tests/claude/seed/*.policy.json).  Paths are normalised (project
# root P, home H, absolute /) and compared as sets up to containment (the
# seed lists files inside directories it also denies; confpol emits the
# directory once): every seed path is covered by confpol's, and every
# confpol path is covered by the seed's or is one of confpol's own
# documented additions (its key directory, the policy sources, the
# credential files of the exclusive profile).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
for p in cooperative confined exclusive; do
    f="$TOP/examples/agentteams-$p.confpol"
    [ -f "$f" ] || { echo "FAIL: $f does not exist"; exit 1; }
    (cd "$TOP" && "$CONFPOL" build --target claude -o "$tmp" "examples/agentteams-$p.confpol") \
        >"$tmp/err" 2>&1 || { cat "$tmp/err"; echo "FAIL: build $p"; exit 1; }
done
python3 - "$TOP/tests/claude/seed" "$tmp" <<'PY'
import json, sys

seed_dir, out_dir = sys.argv[1], sys.argv[2]

def strip(p):
    while p.endswith("/**"):
        p = p[:-3]
    return p

def norm_sandbox(s):
    # sandbox.filesystem spelling in a project settings file
    if s.startswith("//"):
        return strip(s[1:])
    if s.startswith("/"):
        return strip(s)
    if s == "~" or s.startswith("~/"):
        return strip("H" + s[1:])
    if s == ".":
        return "P"
    if s.startswith("./"):
        s = s[2:]
    return strip("P/" + s)

def norm_rule(s):
    # Read(...)/Edit(...) spelling in a project settings file
    if s.startswith("//"):
        return strip(s[1:])
    if s.startswith("/"):
        return strip("P" + s)
    if s == "~" or s.startswith("~/"):
        return strip("H" + s[1:])
    if s.startswith("./"):
        s = s[2:]
    return strip("P/" + s)

def sets(doc):
    fs = doc.get("sandbox", {}).get("filesystem", {})
    r = {
        "allowWrite": {norm_sandbox(x) for x in fs.get("allowWrite", [])},
        "denyWrite": {norm_sandbox(x) for x in fs.get("denyWrite", [])},
        "denyRead": {norm_sandbox(x) for x in fs.get("denyRead", [])},
        "Edit": set(), "Read": set(),
    }
    for rule in doc.get("permissions", {}).get("deny", []):
        for tool in ("Edit", "Read"):
            if rule.startswith(tool + "(") and rule.endswith(")"):
                r[tool].add(norm_rule(rule[len(tool) + 1:-1]))
    return r

def covered(p, s):
    return any(p == q or p.startswith(q + "/") or q == "/" for q in s)

# confpol's own additions, documented in spec/semantics.md (implicit
# rules) and spec/backends.md.
EXTRA = {"H/.config/confpol", "P/examples/agentteams-confined.confpol",
         "P/examples/agentteams-exclusive.confpol",
         "P/examples/agentteams-cooperative.confpol",
         "P/examples/include/agentteams-gates.confpol",
         "H/.docker/config.json", "H/.netrc", "H/.git-credentials",
         "H/.config/gh", "H/.npmrc", "H/.pypirc"}
EXTRA.add(out_dir)  # the output directory is control plane too

bad = 0
for prof in ("cooperative", "confined", "exclusive"):
    seed = sets(json.load(open(f"{seed_dir}/{prof}.policy.json")))
    ours = sets(json.load(open(f"{out_dir}/agentteams-{prof}.claude.json")))
    if prof == "cooperative":
        for k, v in ours.items():
            if v:
                print(f"FAIL: {prof}: {k} is not empty: {sorted(v)}")
                bad += 1
        continue
    if ours["allowWrite"] != seed["allowWrite"]:
        print(f"FAIL: {prof}: allowWrite {sorted(ours['allowWrite'])} != seed {sorted(seed['allowWrite'])}")
        bad += 1
    # Same access, both places: what the seed denies anywhere, confpol
    # denies in the sandbox list and in the permission mirror.
    for acc, lists in (("write", ("denyWrite", "Edit")), ("read", ("denyRead", "Read"))):
        seed_all = seed[lists[0]] | seed[lists[1]]
        for k in lists:
            for p in sorted(seed_all):
                if not covered(p, ours[k]):
                    print(f"FAIL: {prof}: seed denies {acc} of {p}; confpol's {k} does not")
                    bad += 1
            for p in sorted(ours[k]):
                if not covered(p, seed_all) and p not in EXTRA:
                    print(f"FAIL: {prof}: confpol's {k} has {p}, which the seed does not deny")
                    bad += 1
print("parity checked" if not bad else f"{bad} differences")
sys.exit(1 if bad else 0)
PY

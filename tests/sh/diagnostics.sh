#!/bin/sh
# SPDX-License-Identifier: MIT
# Diagnostics as a user meets them (spec/diagnostics.md), each with its
# exact stderr and exit status: every error of a file with four mistakes
# in one run, one warning per rule across targets, many of one cause
# grouped, [-Wflag] beside [CPnnnn], -W by code, notes that keep -Werror
# passing for the claude target, checked suggestions, the regex caret, the
# output directory inside a write root, and the code table of the spec.
set -u
: "${TOP:?}" "${CONFPOL:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
fail=0
# exact NAME STATUS CMD...: runs CMD; its stderr must be exactly the file
# NAME.exp and its exit status STATUS.
exact() {
    name=$1 want=$2
    shift 2
    timeout 60 "$@" >"$name.out" 2>"$name.err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: exit $got, expected $want"
        fail=$((fail + 1))
    fi
    if ! diff -u "$name.exp" "$name.err"; then
        echo "FAIL $name: stderr differs"
        fail=$((fail + 1))
    fi
}

# Four mistakes in four statements, one a syntax error: all four, in
# source order, with "did you mean" and the regex caret under the '('.
cat >four.confpol <<'P'
confpol 1
profile confinde
wirte ${PROJECT}/build
deny read src
gate ask re"git (push|pull"
P
cat >four.exp <<'E'
four.confpol:2:9: error: unknown profile 'confinde'; expected cooperative, confined or exclusive [CP0401]
    2 | profile confinde
      |         ^~~~~~~~
four.confpol:2:9: note: did you mean 'confined'?
four.confpol:3:1: error: unknown statement 'wirte' [CP0202]
    3 | wirte ${PROJECT}/build
      | ^~~~~
four.confpol:3:1: note: did you mean 'write'?
four.confpol:4:11: error: relative path 'src'; a path starts with '/', '~' or '${NAME}' [CP0407]
    4 | deny read src
      |           ^~~
four.confpol:4:11: note: did you mean '${PROJECT}/src' (in the project)?
four.confpol:5:17: error: invalid regex 're"git (push|pull"': Unmatched ( or \( [CP0411]
    5 | gate ask re"git (push|pull"
      |                 ^
4 errors
E
exact four 1 "$CONFPOL" check four.confpol
# The same from standard input.
sed 's/^four\.confpol/<stdin>/' four.exp >stdin.exp
exact stdin 1 "$CONFPOL" check - <four.confpol

# Three domains: no warning (SBPL and bwrap both enforce them through
# confpol-run's proxy), one policy-wide note that the SBPL profile needs the
# proxy's port bound (the targets' notes asked for with -Wtarget-notes).
cat >net.confpol <<'P'
confpol 1
profile confined
write ${PROJECT}
net allow *.github.com
net allow example.com
net allow pypi.org
P
cat >net.exp <<'E'
confpol: note: sbpl: hard links cannot be created in the sandbox (deny file-link): a link would give a protected file a second name no rule denies; nor can files be cloned (deny file-clone): a clone of a deny-read file would be a readable copy [CP0731] [-Wsbpl-hard-links]
confpol: note: sbpl: 2 protected paths: the directories above them inside write roots cannot be renamed, deleted or created (--fidelity lists the rules) [CP0732] [-Wsbpl-rename-protection]
confpol: note: sbpl: the net allow list is enforced by confpol-run's filtering proxy: the profile allows outbound TCP only to the proxy's port on localhost (param confpol:proxy-port, bound by confpol-run); without it the profile does not load [CP0704] [-Wfidelity-net]
E
mkdir out
exact net 0 "$CONFPOL" build -Wtarget-notes --target sbpl --target bwrap -o out net.confpol

# 10,000 carve-outs inside a write root: one warning of each cause and a
# count; --all-diagnostics prints them all.
python3 -c '
print("confpol 1\nprofile confined\nwrite /srv/w")
for i in range(10000): print("deny read /srv/w/d%05d" % i)' >carve.confpol
cat >carve.exp <<'E'
carve.confpol:4:11: warning: 'write /srv/w' overlaps 'deny read /srv/w/d00000': paths there can be written but not read [CP0504] [-Wunreadable-write]
    4 | deny read /srv/w/d00000
      |           ^~~~~~~~~~~~~
carve.confpol:3:7: note: 'write /srv/w' is here
    3 | write /srv/w
      |       ^~~~~~
carve.confpol:4:11: note: add 'deny write /srv/w/d00000' so that the region is neither read nor written
carve.confpol:4:11: note: and 9,999 more like this; --all-diagnostics shows them
10000 warnings
E
exact carve 0 "$CONFPOL" check carve.confpol
n=$("$CONFPOL" check --all-diagnostics carve.confpol 2>&1 | grep -c ': warning: ')
[ "$n" = 10000 ] || { echo "FAIL --all-diagnostics printed $n warnings"; fail=$((fail + 1)); }

# -W and -Wno- by code; -Werror=NAME for one warning; an error code has
# no switch (usage error).
printf 'confpol 1\nprofile confined\nwrite /srv/w\ndeny read /srv/w/x\n' >one.confpol
: >wno.exp
exact wno 0 "$CONFPOL" check -Wno-CP0504 one.confpol
cat >werr.exp <<'E'
one.confpol:4:11: error: 'write /srv/w' overlaps 'deny read /srv/w/x': paths there can be written but not read [CP0504] [-Werror=unreadable-write]
    4 | deny read /srv/w/x
      |           ^~~~~~~~
one.confpol:3:7: note: 'write /srv/w' is here
    3 | write /srv/w
      |       ^~~~~~
one.confpol:4:11: note: add 'deny write /srv/w/x' so that the region is neither read nor written
1 error
E
exact werr 1 "$CONFPOL" check -Werror=unreadable-write one.confpol
cat >wcode.exp <<'E'
confpol check: '-Wno-CP0202': CP0202 is an error, which no option can disable
see 'confpol check --help'
E
exact wcode 2 "$CONFPOL" check -Wno-CP0202 one.confpol
cat >wnear.exp <<'E'
confpol check: unknown warning option '-Wno-unreadable-writes'; did you mean '-Wno-unreadable-write'?
see 'confpol check --help'
E
exact wnear 2 "$CONFPOL" check -Wno-unreadable-writes one.confpol

# Facts about Claude Code that no policy changes are notes: -Werror
# passes on a clean policy for the claude target.
cat >clean.confpol <<'P'
confpol 1
profile confined
write ${PROJECT}
deny write ${PROJECT}/.git/hooks
deny read ~/.ssh
P
cat >clean.exp <<'E'
confpol: note: claude: Claude Code's sandbox runtime keeps ~/.claude/debug, ~/.npm/_logs, /tmp/claude and /tmp/claude-<uid> writable for Bash (where present), whatever the policy says [CP0763] [-Wclaude-runtime-dirs]
confpol: note: claude: Claude Code's Write, Edit, MultiEdit and NotebookEdit run outside the sandbox: the gate hook denies their paths outside the write roots and inside deny-write targets (symbolic links resolved; write denies also mirrored as Edit deny rules), but cannot see a link or file swapped in after its check [CP0758] [-Wclaude-file-tools]
confpol: note: claude: Claude Code never lets Bash write .git/hooks, .git/config (a nested repository's too), .mcp.json, .claude/settings*.json, .claude/{commands,agents,skills,hooks}, .gitconfig, .gitmodules, .ripgreprc, .vscode/, .idea/ and shell rc files in the project, shell rc files or ~/.claude, even inside a write root (1 write rule; --fidelity lists them) [CP0770] [-Wclaude-protected-paths]
confpol: note: claude: Claude Code's sandbox runtime mounts nothing on a deny-read path absent when the command starts: created while it runs, Bash reads it (2 deny-read rules; --fidelity lists them) [CP0775] [-Wclaude-deny-read-late]
confpol: note: claude: 1 deny-read path may lie in a write root or the working directory: Claude Code's sandbox shows it as an empty tmpfs, so writes there never reach the disk (add 'deny write' for the same paths to say so in the policy) [CP0771] [-Wclaude-deny-read-tmpfs]
confpol: note: claude: paths under PROJECT are written relative to the project ('./x', '/x'): install the artifact only into PROJECT/.claude/settings.json or settings.local.json, or build with -D PROJECT=/abs/path; Claude Code loads a project settings file only when started in the project's root, not in a subdirectory [CP0762] [-Wclaude-project-relative]
confpol: note: claude: the policy has no net rule: Claude Code's sandbox asks the user before Bash reaches each new domain, and under -p (no one to ask) refuses it; add 'net allow' rules for the hosts the agent needs [CP0776] [-Wclaude-net-asks]
E
exact clean 0 "$CONFPOL" build -Wtarget-notes --target claude -Werror -o out clean.confpol
[ -s out/clean.claude.json ] || { echo "FAIL -Werror claude wrote no artifact"; fail=$((fail + 1)); }
cat >clean-all.exp <<'E'
confpol: note: sbpl: hard links cannot be created in the sandbox (deny file-link): a link would give a protected file a second name no rule denies; nor can files be cloned (deny file-clone): a clone of a deny-read file would be a readable copy [CP0731] [-Wsbpl-hard-links]
confpol: note: sbpl: 4 protected paths: the directories above them inside write roots cannot be renamed, deleted or created (--fidelity lists the rules) [CP0732] [-Wsbpl-rename-protection]
confpol: note: claude: Claude Code's sandbox runtime keeps ~/.claude/debug, ~/.npm/_logs, /tmp/claude and /tmp/claude-<uid> writable for Bash (where present), whatever the policy says [CP0763] [-Wclaude-runtime-dirs]
confpol: note: claude: Claude Code's Write, Edit, MultiEdit and NotebookEdit run outside the sandbox: the gate hook denies their paths outside the write roots and inside deny-write targets (symbolic links resolved; write denies also mirrored as Edit deny rules), but cannot see a link or file swapped in after its check [CP0758] [-Wclaude-file-tools]
confpol: note: claude: Claude Code never lets Bash write .git/hooks, .git/config (a nested repository's too), .mcp.json, .claude/settings*.json, .claude/{commands,agents,skills,hooks}, .gitconfig, .gitmodules, .ripgreprc, .vscode/, .idea/ and shell rc files in the project, shell rc files or ~/.claude, even inside a write root (1 write rule; --fidelity lists them) [CP0770] [-Wclaude-protected-paths]
confpol: note: claude: Claude Code's sandbox runtime mounts nothing on a deny-read path absent when the command starts: created while it runs, Bash reads it (2 deny-read rules; --fidelity lists them) [CP0775] [-Wclaude-deny-read-late]
confpol: note: claude: 1 deny-read path may lie in a write root or the working directory: Claude Code's sandbox shows it as an empty tmpfs, so writes there never reach the disk (add 'deny write' for the same paths to say so in the policy) [CP0771] [-Wclaude-deny-read-tmpfs]
confpol: note: claude: paths under PROJECT are written relative to the project ('./x', '/x'): install the artifact only into PROJECT/.claude/settings.json or settings.local.json, or build with -D PROJECT=/abs/path; Claude Code loads a project settings file only when started in the project's root, not in a subdirectory [CP0762] [-Wclaude-project-relative]
confpol: note: claude: the policy has no net rule: Claude Code's sandbox asks the user before Bash reaches each new domain, and under -p (no one to ask) refuses it; add 'net allow' rules for the hosts the agent needs [CP0776] [-Wclaude-net-asks]
E
exact clean-all 0 "$CONFPOL" build -Wtarget-notes --target all -Werror -o out clean.confpol
# The targets' notes are quiet unless asked for: clean input, no output.
: >quiet.exp
exact quiet 0 "$CONFPOL" build --target all -Werror -o out clean.confpol

# Suggestions: fixed words, names, '~/.ssh' for a dot file (never a path
# in the project), no collapsed '..'.
cat >sugg.confpol <<'P'
confpol 1
profile confined
fail opne
param CACHE
write ${CACHE}/x ${CAHCE}/y
deny read .ssh
deny read ${PROJECT}/../etc
deny raed /x
expect alow read /x
P
cat >sugg.exp <<'E'
sugg.confpol:3:6: error: unknown fail mode 'opne'; expected closed or open [CP0403]
    3 | fail opne
      |      ^~~~
sugg.confpol:3:6: note: did you mean 'open'?
sugg.confpol:5:18: error: undefined name 'CAHCE' [CP0405]
    5 | write ${CACHE}/x ${CAHCE}/y
      |                  ^~~~~~~~
sugg.confpol:5:18: note: did you mean '${CACHE}'?
sugg.confpol:6:11: error: relative path '.ssh'; a path starts with '/', '~' or '${NAME}' [CP0407]
    6 | deny read .ssh
      |           ^~~~
sugg.confpol:6:11: note: did you mean '~/.ssh' (in the home directory)?
sugg.confpol:7:22: error: '..' segment in path '${PROJECT}/../etc' [CP0408]
    7 | deny read ${PROJECT}/../etc
      |                      ^~
sugg.confpol:7:22: note: name the directory without '..': confpol does not collapse it, since a symbolic link would change what it names
sugg.confpol:8:6: error: unknown access 'raed' after 'deny'; expected read, write or exec [CP0403]
    8 | deny raed /x
      |      ^~~~
sugg.confpol:8:6: note: did you mean 'read'?
sugg.confpol:9:8: error: unknown verdict 'alow' in 'expect'; expected allow, ask or deny [CP0403]
    9 | expect alow read /x
      |        ^~~~
sugg.confpol:9:8: note: did you mean 'allow'?
6 errors
E
exact sugg 1 "$CONFPOL" check sugg.confpol

# The output directory as a write root: one message that says what to do.
mkdir -p proj/out
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}/out\n' >proj/o.confpol
cat >proj/outdir.exp <<'E'
o.confpol:3:7: error: 'write ${PROJECT}/out' makes the build output directory writable: a confined process could rewrite its own sandbox [CP0503]
    3 | write ${PROJECT}/out
      |       ^~~~~~~~~~~~~~
o.confpol:3:7: note: choose -o outside the write roots
1 error
E
(cd proj && exact outdir 1 "$CONFPOL" build --target sbpl -o out o.confpol
 [ -z "$(ls out)" ] || { echo "FAIL outdir: an artifact was written"; exit 1; }
 exit $fail) || fail=$((fail + 1))

# Several files: one JSON document, one SARIF log with help text.
"$CONFPOL" check --diagnostics-format json four.confpol one.confpol sugg.confpol >j.out 2>j.err
python3 - j.out <<'PY' || fail=$((fail + 1))
import json, sys
d = json.load(open(sys.argv[1]))
files = sorted({x["file"] for x in d["diagnostics"]})
assert files == ["four.confpol", "one.confpol", "sugg.confpol"], files
assert d["errors"] == 10 and d["warnings"] == 1, (d["errors"], d["warnings"])
w = [x for x in d["diagnostics"] if x["severity"] == "warning"][0]
assert w["flag"] == "unreadable-write", w
PY
"$CONFPOL" check --diagnostics-format sarif four.confpol one.confpol >s.out 2>s.err
python3 - s.out <<'PY' || fail=$((fail + 1))
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["runs"]) == 1
run = d["runs"][0]
assert len(run["results"]) == 5, len(run["results"])
for r in run["tool"]["driver"]["rules"]:
    assert r["help"]["text"].startswith(r["shortDescription"]["text"]), r
    assert r["id"] in r["help"]["text"], r
PY

# The spec's table of every code agrees with the code tables.
python3 - "$TOP" <<'PY' || fail=$((fail + 1))
import re, sys, glob
top = sys.argv[1]
codes = {}
for f in glob.glob(top + "/compiler/codes_*.def"):
    for m in re.finditer(r'CP_DIAG\((CP\d+), "([^"]+)", CP_SEV_(\w+),', open(f).read()):
        codes[m.group(1)] = (m.group(2), m.group(3).lower())
spec = open(top + "/spec/diagnostics.md").read()
rows = {}
for m in re.finditer(r'^\| (CP\d+) \| (?:`-W([a-z0-9-]+)`|\(`([a-z0-9-]+)`, no switch\)) \| (\w+) \|', spec, re.M):
    rows[m.group(1)] = (m.group(2) or m.group(3), m.group(4))
bad = [c for c in codes if rows.get(c) != codes[c]] + [c for c in rows if c not in codes]
for c in sorted(bad):
    print("FAIL spec/diagnostics.md section 6: %s is %s in the tables, %s in the spec" % (c, codes.get(c), rows.get(c)))
for c, (name, sev) in rows.items():
    if (sev == "error") != (re.search(r'^\| %s \| \(`' % c, spec, re.M) is not None):
        print("FAIL %s: an error has no switch, a warning or note has one" % c); bad.append(c)
sys.exit(1 if bad else 0)
PY

[ $fail -eq 0 ] && echo "diagnostics: all cases pass"
[ $fail -eq 0 ]

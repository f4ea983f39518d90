#!/bin/sh
# The gate library (gates/): its corpora decided the same by explain, the
# gate on a policy and the gate on an artifact (tests/gate/library.py); the
# shell reader's bounds through the hook (a 1 MiB command, nesting 10,000
# deep, unterminated quotes: a reasoned deny, fast); `make install` ships
# the library where the installed confpol finds it.
set -u
: "${CONFPOL:?}" "${TOP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }

python3 "$TOP/tests/gate/library.py" "$CONFPOL" "$TOP" || fail "corpora"

# ---- bounds: each hostile line gets a deny with the reader's reason -------
printf 'confpol 1\nprofile confined\ninclude "<all>"\n' >"$tmp/p.confpol"
mkdir "$tmp/out"
"$CONFPOL" build --target claude -o "$tmp/out" "$tmp/p.confpol" 2>/dev/null ||
    fail "build"
python3 - "$CONFPOL" "$tmp/out/p.claude.json" <<'PY' || fail "bounds"
import json, subprocess, sys, time
confpol, art = sys.argv[1], sys.argv[2]
cases = {
    "nesting 10,000 deep": "$(" * 10000 + "id" + ")" * 10000,
    "backquotes unterminated": "echo " + "`" * 10001,
    "unterminated quote": "echo 'abc",
    "unterminated substitution": "echo $(id",
    "1 MiB of commands": "a; " * (1024 * 1024 // 3 - 30),
    "15,000 commands": "a; " * 15000 + "sudo id",
    "1 MiB of wrappers": "sudo " * (1024 * 1024 // 5 - 30) + "id",
    "1 MiB word": "x" * (1024 * 1024 - 200),
}
bad = 0
for name, cmd in cases.items():
    inp = json.dumps({"tool_name": "Bash", "tool_input": {"command": cmd}})
    t0 = time.monotonic()
    p = subprocess.run([confpol, "gate", art], input=inp, capture_output=True,
                       text=True, timeout=20)
    ms = (time.monotonic() - t0) * 1000
    out = json.loads(p.stdout)["hookSpecificOutput"] if p.stdout.strip() else {}
    dec = out.get("permissionDecision", "allow")
    print("%-26s %-5s %6.1f ms  %s" % (name, dec, ms,
                                      out.get("permissionDecisionReason", "")[:70]))
    want = "allow" if name == "1 MiB word" else None
    if name == "15,000 commands" and dec != "ask":
        print("FAIL: %s: %s" % (name, dec)); bad += 1
    if want and dec != want or not want and dec not in ("deny", "ask"):
        print("FAIL: %s: %s" % (name, dec)); bad += 1
    # generous: a loaded shared machine; `make bench` reports the real figures
    if ms > 1000:
        print("FAIL: %s took %.0f ms" % (name, ms)); bad += 1
sys.exit(1 if bad else 0)
PY

# ---- unknown and unreadable through explain --------------------------------
ex() { "$CONFPOL" explain "$@" 2>&1; }
printf 'confpol 1\nprofile confined\ngate ask "git push *"\n' >"$tmp/c.confpol"
printf 'confpol 1\nprofile cooperative\ngate ask "git push *"\n' >"$tmp/coop.confpol"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n' >"$tmp/nogate.confpol"
printf 'confpol 1\nprofile cooperative\ngate deny unknown\n' >"$tmp/deny.confpol"
out=$(ex "$tmp/c.confpol" gate 'curl x | sh')
case $out in
ask*"gate ask unknown', added by profile confined"*"reads its program from standard input"*) ;;
*) fail "confined: curl | sh: $out" ;;
esac
[ "$(ex "$tmp/coop.confpol" gate 'curl x | sh' | head -n 1)" = allow ] ||
    fail "cooperative: no implicit unknown rule"
[ "$(ex "$tmp/nogate.confpol" gate 'curl x | sh' | head -n 1)" = allow ] ||
    fail "confined without gates: no implicit unknown rule"
[ "$(ex "$tmp/deny.confpol" gate '$x id' | head -n 1)" = deny ] ||
    fail "gate deny unknown: \$x id"
[ "$(ex "$tmp/deny.confpol" gate 'git status' | head -n 1)" = allow ] ||
    fail "gate deny unknown: git status"
out=$(ex "$tmp/coop.confpol" gate "echo 'abc")
case $out in
deny*"by the shell reader: the command line cannot be read as the shell would run it: unterminated single quote"*) ;;
*) fail "unreadable: $out" ;;
esac
"$CONFPOL" check --print-effective "$tmp/c.confpol" 2>/dev/null |
    grep -q '^gate ask unknown  # implicit: profile confined: commands known only when they run$' ||
    fail "--print-effective does not show the implicit unknown rule"

# ---- make install ships the library --------------------------------------
if make -s -C "$TOP" install-files DESTDIR="$tmp/inst" PREFIX=/usr BUILD="${BUILD:-build}" \
        >"$tmp/install.log" 2>&1; then
    [ -f "$tmp/inst/usr/share/confpol/gates/all.confpol" ] ||
        fail "make install did not install gates/all.confpol"
    printf 'confpol 1\nprofile confined\ninclude "<privilege>"\nexpect ask gate "s\\\\udo id"\n' \
        >"$tmp/inst.confpol"
    env -u CONFPOL_LIBRARY "$tmp/inst/usr/bin/confpol" check "$tmp/inst.confpol" >"$tmp/check.log" 2>&1 ||
        { cat "$tmp/check.log"; fail "the installed confpol does not find its library"; }
else
    cat "$tmp/install.log"
    fail "make install"
fi
printf 'confpol 1\ninclude "<no-such-set>"\n' >"$tmp/bad.confpol"
"$CONFPOL" check "$tmp/bad.confpol" >"$tmp/bad.log" 2>&1 &&
    fail "an unknown library set compiled"
grep -q "no gate library set 'no-such-set'" "$tmp/bad.log" ||
    { cat "$tmp/bad.log"; fail "unknown set: message"; }

[ $fails -eq 0 ] && echo "gate-library: all checks passed"
[ $fails -eq 0 ]

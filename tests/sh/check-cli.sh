#!/bin/sh
# confpol check: exit statuses (0 clean, 1 errors, 2 usage or I/O), -W and
# -Werror switches, --help, and several files in one run.
set -u
: "${TOP:?}" "${CONFPOL:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
fail=0
# expect STATUS DESCRIPTION COMMAND...: runs COMMAND, checks its exit status.
expect() {
    want=$1 what=$2
    shift 2
    "$@" >out 2>err
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $what: exit $got, expected $want"
        sed 's/^/    /' err | head -n 10
        fail=$((fail + 1))
    fi
}
printf 'confpol 1\nprofile confined\nwrite /tmp\n' >clean.confpol
printf 'confpol 1\nwrite\n' >bad.confpol
printf 'confpol 1\nwrite /tmp\n' >warn.confpol   # no profile: a warning

expect 0 "clean policy" "$CONFPOL" check clean.confpol
[ -s out ] || [ -s err ] && { echo "FAIL clean policy printed something"; fail=$((fail + 1)); }
expect 1 "syntax error" "$CONFPOL" check bad.confpol
expect 1 "one bad file among good ones" "$CONFPOL" check clean.confpol bad.confpol clean.confpol
grep -q '^bad.confpol:2:6: error: expected a path after .write. \[CP0203\]$' err ||
    { echo "FAIL diagnostic of bad.confpol missing"; fail=$((fail + 1)); }
expect 2 "missing file" "$CONFPOL" check missing.confpol
grep -q "^confpol: error: cannot open 'missing.confpol': No such file or directory \[CP0301\]$" err ||
    { echo "FAIL missing file message: $(cat err)"; fail=$((fail + 1)); }
expect 2 "directory" "$CONFPOL" check .
expect 2 "no file" "$CONFPOL" check
expect 2 "unknown option" "$CONFPOL" check --frobnicate clean.confpol
expect 2 "unknown warning" "$CONFPOL" check -Wno-such-warning clean.confpol
grep -q "unknown warning option '-Wno-such-warning'" err ||
    { echo "FAIL unknown warning message"; fail=$((fail + 1)); }
expect 2 "bad -D" "$CONFPOL" check -D NOEQUALS clean.confpol
expect 2 "bad --diagnostics-format" "$CONFPOL" check --diagnostics-format=xml clean.confpol
expect 0 "--help" "$CONFPOL" check --help
grep -q '^usage: confpol check' out || { echo "FAIL --help text"; fail=$((fail + 1)); }
expect 0 "fmt --help" "$CONFPOL" fmt --help

# A warning: exit 0 with the warning; -Wno-NAME silences it; -Werror makes
# it an error.  The name comes from the code table, so a rename follows.
name=$(sed -n 's/^CP_DIAG(CP0420, "\([a-z0-9-]*\)".*/\1/p' "$TOP/compiler/codes_sema.def")
if [ -n "$name" ]; then
    expect 0 "warning" "$CONFPOL" check warn.confpol
    grep -q "warning: .*\[CP0420\] \[-W$name\]\$" err || { echo "FAIL no CP0420 warning"; fail=$((fail + 1)); }
    expect 0 "-Wno-$name" "$CONFPOL" check "-Wno-$name" warn.confpol
    [ -s err ] && { echo "FAIL -Wno-$name still prints: $(cat err)"; fail=$((fail + 1)); }
    expect 1 "-Werror" "$CONFPOL" check -Werror warn.confpol
    grep -q "error: .*\[CP0420\] \[-Werror=$name\]\$" err || { echo "FAIL -Werror did not promote"; fail=$((fail + 1)); }
    expect 0 "-Wno- then -W" "$CONFPOL" check "-Wno-$name" "-W$name" warn.confpol
    grep -q "warning: .*\[CP0420\] \[-W$name\]\$" err || { echo "FAIL -W$name did not re-enable"; fail=$((fail + 1)); }
fi
[ $fail -eq 0 ]

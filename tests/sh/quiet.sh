#!/bin/sh
# Quiet when there is nothing to say: on every starter, `check` and `build
# --target all -Werror` exit 0 and print nothing; on every example, `check`
# prints nothing and each warning `build --target all` gives is named (by
# its code) in the example's header comment, which says why it is kept.
# A quiet note is printed when asked for: -Wexpect-assumes, --fidelity.
set -u
: "${CONFPOL:?}" "${TOP:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
fail=0
bad() { echo "not ok - $*"; fail=1; }
for f in "$TOP"/examples/starter/*.confpol; do
    out=$("$CONFPOL" check "$f" 2>&1); rc=$?
    [ $rc -eq 0 ] && [ -z "$out" ] || bad "check $f: exit $rc: $out"
    out=$("$CONFPOL" build --target all -Werror -o "$w" "$f" 2>&1); rc=$?
    [ $rc -eq 0 ] && [ -z "$out" ] || bad "build -Werror $f: exit $rc: $out"
done
echo "ok - the starters are quiet under check and build --target all -Werror"
for f in "$TOP"/examples/*.confpol; do
    out=$("$CONFPOL" check "$f" 2>&1); rc=$?
    [ $rc -eq 0 ] && [ -z "$out" ] || bad "check $f: exit $rc: $out"
    # The header: the comment lines before 'confpol 1'.
    header=$(sed -n '/^confpol 1/q;p' "$f")
    flags=
    case $header in *--expand-globs*) flags=--expand-globs ;; esac
    out=$("$CONFPOL" build --target all $flags -o "$w" "$f" 2>&1); rc=$?
    [ $rc -eq 0 ] || bad "build $f: exit $rc: $out"
    for code in $(printf '%s\n' "$out" | sed -n 's/.*: warning: .*\[\(CP0[0-9]*\)\].*/\1/p' | sort -u); do
        case $header in *"$code"*) ;; *) bad "$f: warning $code is not named in the header" ;; esac
    done
done
echo "ok - every example's warnings are named in its header"
# Asked for, the quiet notes are there.
s=$TOP/examples/starter/claude.confpol
"$CONFPOL" check -Wexpect-assumes "$s" 2>&1 | grep -q CP0602 ||
    bad "-Wexpect-assumes does not print CP0602"
"$CONFPOL" build --target all --fidelity -o "$w" "$s" 2>&1 >/dev/null | grep -q CP0763 ||
    bad "--fidelity does not print the targets' notes"
"$CONFPOL" build --target claude -Wclaude-runtime-dirs -o "$w" "$s" 2>&1 | grep -q CP0763 ||
    bad "-Wclaude-runtime-dirs does not print CP0763"
[ $fail -eq 0 ] && echo "ok - quiet notes are printed when asked for"
exit $fail

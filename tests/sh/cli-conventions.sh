#!/bin/sh
# SPDX-License-Identifier: MIT
# The command-line conventions of spec/cli.md, each with its exact output
# and exit status: version and help forms, one-line usage errors with
# "see 'confpol COMMAND --help'" and did you mean, a bad -D value as a
# usage error, '-' as standard input, fmt -l/-d/-w as gofmt, and colour
# only on a terminal (--color, NO_COLOR).
set -u
: "${TOP:?}" "${CONFPOL:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
fail=0
# run NAME STATUS CMD...: runs CMD (stdin from NAME.in when it exists);
# its exit status must be STATUS, its stderr exactly NAME.err.exp and, when
# NAME.out.exp exists, its stdout exactly that.
run() {
    name=$1 want=$2
    shift 2
    in=/dev/null
    [ -f "$name.in" ] && in=$name.in
    timeout 60 "$@" <"$in" >"$name.out" 2>"$name.err"
    got=$?
    [ "$got" -eq "$want" ] || { echo "FAIL $name: exit $got, expected $want"; fail=$((fail + 1)); }
    [ -f "$name.err.exp" ] || : >"$name.err.exp"
    diff -u "$name.err.exp" "$name.err" || { echo "FAIL $name: stderr"; fail=$((fail + 1)); }
    if [ -f "$name.out.exp" ]; then
        diff -u "$name.out.exp" "$name.out" || { echo "FAIL $name: stdout"; fail=$((fail + 1)); }
    fi
}
printf 'confpol 1\nprofile confined\nwrite /tmp\n' >clean.confpol

# Version and help, in every spelling.
"$CONFPOL" --version >v.exp 2>&1
grep -q '^confpol [0-9][0-9.]*$' v.exp || { echo "FAIL --version: $(cat v.exp)"; fail=$((fail + 1)); }
for form in -V version; do
    cp v.exp "v$form.out.exp"
    run "v$form" 0 "$CONFPOL" "$form"
done
"$CONFPOL" check --help >help-check.out.exp
run help-check 0 "$CONFPOL" help check
"$CONFPOL" --help >help.out.exp
run help 0 "$CONFPOL" help
grep -q "^usage: confpol COMMAND" help.out.exp || { echo "FAIL help text"; fail=$((fail + 1)); }

# Usage errors: one line, then where the help is; exit 2.
printf "confpol: no command given\nsee 'confpol --help'\n" >nocmd.err.exp
run nocmd 2 "$CONFPOL"
printf "confpol: unknown command 'chek'; did you mean 'check'?\nsee 'confpol --help'\n" >chek.err.exp
run chek 2 "$CONFPOL" chek clean.confpol
printf "confpol: unknown command 'frob'\nsee 'confpol --help'\n" >frob.err.exp
run frob 2 "$CONFPOL" frob
printf "confpol check: unknown option '--frobnicate'\nsee 'confpol check --help'\n" >opt.err.exp
run opt 2 "$CONFPOL" check --frobnicate clean.confpol
printf "confpol check: unknown option '--print-efective'; did you mean '--print-effective'?\nsee 'confpol check --help'\n" >optnear.err.exp
run optnear 2 "$CONFPOL" check --print-efective clean.confpol
printf "confpol fmt: unknown option '--chek'; did you mean '--check'?\nsee 'confpol fmt --help'\n" >fmtopt.err.exp
run fmtopt 2 "$CONFPOL" fmt --chek clean.confpol
printf "confpol build: --target needs sbpl, bwrap, claude, codex or all (got 'sbp'); did you mean 'sbpl'?\nsee 'confpol build --help'\n" >target.err.exp
run target 2 "$CONFPOL" build --target sbp -o . clean.confpol
printf "confpol check: --color expects auto, always or never, got 'allways'; did you mean 'always'?\nsee 'confpol check --help'\n" >colorval.err.exp
run colorval 2 "$CONFPOL" check --color=allways clean.confpol
printf "confpol run: unknown option '--allow-unenforce'; did you mean '--allow-unenforced'?\nsee 'confpol run --help'\n" >runopt.err.exp
run runopt 125 "$CONFPOL" run --allow-unenforce clean.confpol -- true
printf "confpol install: unknown option '--claud'; did you mean '--claude'?\nsee 'confpol install --help'\n" >instopt.err.exp
run instopt 2 "$CONFPOL" install --claud s.json a.claude.json
# The hook's usage error is one line and the pointer to --help too; a
# miswired hook still answers deny (exit 2) on stdout, so no call gets through.
printf "confpol gate: unknown option '--bogus'\nsee 'confpol gate --help'\nconfpol gate: usage error in the hook command; denying (no policy to decide with)\n" >gateopt.err.exp
printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "confpol gate: usage error in the hook command; denying (no policy to decide with)"}}\n' >gateopt.out.exp
run gateopt 2 "$CONFPOL" gate --bogus
printf "confpol gate: --verify-log takes only FILE\nsee 'confpol gate --help'\n" >gatevl.err.exp
run gatevl 2 "$CONFPOL" gate --verify-log x.log y.claude.json
# No FILE: policy.confpol, as for confpol claude.
printf "confpol: error: cannot open 'policy.confpol': No such file or directory [CP0301]\n1 error\n" >nofile.err.exp
run nofile 2 "$CONFPOL" check
cp clean.confpol policy.confpol
: >deffile.err.exp
run deffile 0 "$CONFPOL" check
rm -f policy.confpol
printf "confpol check: -D expects NAME=VALUE, got 'NOEQUALS'\nsee 'confpol check --help'\n" >dnoeq.err.exp
run dnoeq 2 "$CONFPOL" check -D NOEQUALS clean.confpol
printf "confpol explain: unknown access 'raed'; expected read, write, exec, net, gate, content or socket; did you mean 'read'?\nsee 'confpol explain --help'\n" >access.err.exp
run access 2 "$CONFPOL" explain clean.confpol raed /tmp/x
# A bad -D value is a usage error too (exit 2), reported as a diagnostic.
printf "confpol: error: -D PROJECT=rel: the value must be an absolute path [CP0803]\n1 error\n" >dval.err.exp
run dval 2 "$CONFPOL" check -D PROJECT=rel clean.confpol
printf "confpol: error: -D NOPE=/x: 'NOPE' is not a param of this policy [CP0802]\nconfpol: note: declare it with 'param NOPE' or remove -D NOPE\n1 error\n" >dname.err.exp
run dname 2 "$CONFPOL" build --target sbpl -D NOPE=/x -o . clean.confpol
[ -e clean.sb ] && { echo "FAIL a bad -D still wrote an artifact"; fail=$((fail + 1)); }
printf "confpol: error: -D PROJCT=/tmp: 'PROJCT' is not a param of this policy [CP0802]\nconfpol: note: did you mean -D PROJECT=/tmp?\n1 error\n" >dnear.err.exp
run dnear 2 "$CONFPOL" check -D PROJCT=/tmp clean.confpol

# '-' is standard input: check and fmt.
printf 'confpol 1\nprofile   confined\nwrite   /a\n' >ugly.confpol
cp ugly.confpol fmtin.in
printf 'confpol 1\nprofile confined\nwrite /a\n' >fmtin.out.exp
run fmtin 0 "$CONFPOL" fmt -
cp ugly.confpol checkin.in
run checkin 0 "$CONFPOL" check -
cp ugly.confpol fmtl-stdin.in
echo '<stdin>' >fmtl-stdin.out.exp
run fmtl-stdin 0 "$CONFPOL" fmt -l -
printf "confpol fmt: -w cannot rewrite standard input\nsee 'confpol fmt --help'\n" >fmtw-stdin.err.exp
run fmtw-stdin 2 "$CONFPOL" fmt -w -

# fmt -l lists, -d diffs, -w rewrites (and combines with -l), as gofmt.
printf 'confpol 1\nprofile confined\nwrite /a\n' >tidy.confpol
echo ugly.confpol >fmtl.out.exp
run fmtl 0 "$CONFPOL" fmt -l ugly.confpol tidy.confpol
cat >fmtd.out.exp <<'E'
--- ugly.confpol.orig
+++ ugly.confpol
@@ -1,3 +1,3 @@
 confpol 1
-profile   confined
-write   /a
+profile confined
+write /a
E
run fmtd 0 "$CONFPOL" fmt -d ugly.confpol tidy.confpol
cmp -s ugly.confpol fmtin.in || { echo "FAIL fmt -l/-d changed the file"; fail=$((fail + 1)); }
echo ugly.confpol >fmtlw.out.exp
run fmtlw 0 "$CONFPOL" fmt -l -w ugly.confpol tidy.confpol
cmp -s ugly.confpol tidy.confpol || { echo "FAIL fmt -w did not rewrite"; fail=$((fail + 1)); }
: >fmtl2.out.exp
run fmtl2 0 "$CONFPOL" fmt -l ugly.confpol

# Colour: never into a pipe or a file, on a terminal by default, not with
# NO_COLOR, always with --color=always.
printf 'confpol 1\nprofile confinde\n' >bad.confpol
printf 'confpol 1\nwirte /x\n' >syn.confpol
esc=$(printf '\033')
"$CONFPOL" check bad.confpol 2>pipe.err
grep -q "$esc" pipe.err && { echo "FAIL escapes into a pipe"; fail=$((fail + 1)); }
"$CONFPOL" check --color=always bad.confpol 2>always.err
grep -q "$esc\[1;31merror:" always.err || { echo "FAIL --color=always: no escapes"; fail=$((fail + 1)); }
# Without the escapes, the coloured text is the plain text.
sed "s/$esc\[[0-9;]*m//g" always.err | cmp -s - pipe.err ||
    { echo "FAIL coloured text differs from the plain text"; fail=$((fail + 1)); }
if command -v script >/dev/null 2>&1; then
    TERM=xterm script -qec "'$CONFPOL' check bad.confpol" /dev/null >tty.out 2>&1
    grep -q "$esc\[1;31merror:" tty.out || { echo "FAIL no colour on a terminal"; fail=$((fail + 1)); }
    NO_COLOR=1 TERM=xterm script -qec "'$CONFPOL' check bad.confpol" /dev/null >nocolor.out 2>&1
    grep -q "$esc" nocolor.out && { echo "FAIL NO_COLOR: escapes on a terminal"; fail=$((fail + 1)); }
    NO_COLOR=1 TERM=xterm script -qec "'$CONFPOL' check --color=always bad.confpol" /dev/null >forced.out 2>&1
    grep -q "$esc\[1;31merror:" forced.out || { echo "FAIL --color=always under NO_COLOR"; fail=$((fail + 1)); }
    NO_COLOR=1 TERM=xterm script -qec "'$CONFPOL' fmt syn.confpol" /dev/null >fmtnc.out 2>&1
    grep -q "$esc" fmtnc.out && { echo "FAIL fmt under NO_COLOR: escapes"; fail=$((fail + 1)); }
    TERM=xterm script -qec "'$CONFPOL' fmt syn.confpol" /dev/null >fmttty.out 2>&1
    grep -q "$esc\[1;31merror:" fmttty.out || { echo "FAIL fmt: no colour on a terminal"; fail=$((fail + 1)); }
    TERM=xterm script -qec "'$CONFPOL' check --color=never bad.confpol" /dev/null >never.out 2>&1
    grep -q "$esc" never.out && { echo "FAIL --color=never: escapes"; fail=$((fail + 1)); }
else
    echo "FAIL script(1) (bsdutils) is missing: the terminal cases cannot run"
    fail=$((fail + 1))
fi

[ $fail -eq 0 ] && echo "cli-conventions: all cases pass"
[ $fail -eq 0 ]

#!/bin/sh
# An implicit binding that makes an allow rule cover the whole file system
# or HOME is refused: `confpol run` from / with `write ${PROJECT}` would
# make every file writable, from HOME every dotfile.  -D says it is meant;
# a deny rooted there, or a rule the binding does not widen, is fine.
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/home"
export HOME="$w/home"
fail() { echo "not ok - $*"; exit 1; }
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n' >"$w/w.confpol"
printf 'confpol 1\nprofile confined\nwrite /tmp\ndeny read ${PROJECT}/.env\n' >"$w/d.confpol"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}/build\n' >"$w/b.confpol"

out=$(cd / && "$CONFPOL" run -q --dry-run "$w/w.confpol" 2>&1); rc=$?
[ $rc -eq 125 ] || fail "run from / with write \${PROJECT}: exit $rc: $out"
case $out in *"PROJECT is bound to the current directory '/'"*"covers the whole file system"*"-D PROJECT=/"*) ;;
*) fail "run from /: $out" ;; esac
echo "ok - run from / refuses write \${PROJECT}"

out=$(cd "$HOME" && "$CONFPOL" run -q --dry-run "$w/w.confpol" 2>&1); rc=$?
[ $rc -eq 125 ] || fail "run from HOME: exit $rc: $out"
case $out in *"covers HOME"*) ;; *) fail "run from HOME: $out" ;; esac
echo "ok - run from HOME refuses write \${PROJECT}"

out=$(cd / && "$CONFPOL" explain "$w/w.confpol" write /etc/passwd 2>&1); rc=$?
[ $rc -eq 2 ] || fail "explain from /: exit $rc: $out"
echo "ok - explain from / refuses the binding run refuses"

out=$(cd / && "$CONFPOL" run -q --dry-run -D PROJECT=/ "$w/w.confpol" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "-D PROJECT=/ is explicit: exit $rc: $out"
out=$(cd / && "$CONFPOL" run -q --dry-run "$w/d.confpol" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "a deny rooted at PROJECT from /: exit $rc: $out"
out=$(cd "$HOME" && "$CONFPOL" run -q --dry-run "$w/b.confpol" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "write \${PROJECT}/build from HOME: exit $rc: $out"
echo "ok - explicit -D, denies and narrower rules are accepted"

out=$(cd "$HOME" && CONFPOL_CLAUDE=/bin/true "$CONFPOL" claude -q "$w/w.confpol" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "confpol claude in HOME: exit $rc: $out"
case $out in *"covers HOME"*"start it in the project's directory"*) ;; *) fail "claude in HOME: $out" ;; esac
echo "ok - confpol claude refuses to start in HOME with write \${PROJECT}"

# confpol-run on a symbolic artifact: the same refusal, from the records.
RUN=${CONFPOL_RUN:-$(dirname "$CONFPOL")/confpol-run}
mkdir -p "$w/o" "$w/proj/build"
for f in w b; do
    (cd "$w/proj" && "$CONFPOL" build --target bwrap -o "$w/o" "$w/$f.confpol" >/dev/null 2>&1) ||
        fail "build of the symbolic artifact $f.bwrap"
done
out=$(cd / && "$RUN" --dry-run "$w/o/w.bwrap" 2>&1); rc=$?
[ $rc -eq 125 ] || fail "confpol-run from / with bind PROJECT: exit $rc: $out"
case $out in *"PROJECT is bound to the current directory '/'"*"covers the whole file system"*"-D PROJECT=/"*) ;;
*) fail "confpol-run from /: $out" ;; esac
out=$(cd "$HOME" && "$RUN" --dry-run "$w/o/w.bwrap" 2>&1); rc=$?
[ $rc -eq 125 ] && case $out in *"covers HOME"*) true ;; *) false ;; esac ||
    fail "confpol-run from HOME: exit $rc: $out"
out=$(cd / && "$RUN" --dry-run -D PROJECT=/ "$w/o/w.bwrap" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "confpol-run -D PROJECT=/ is explicit: exit $rc: $out"
out=$(cd "$HOME" && "$RUN" --dry-run "$w/o/b.bwrap" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "confpol-run: bind PROJECT/build from HOME: exit $rc: $out"
echo "ok - confpol-run refuses the same implicit bindings on a symbolic artifact"

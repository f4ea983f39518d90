#!/bin/sh
# Binding params at launch, on the real bwrap: a symbolic artifact bound at
# launch protects what the -D build of the same binding protects (renaming
# an ancestor of a param's value does not free a protected name), nested
# masks launch (they failed, and under 'fail open' ran unconfined), -D of a
# declared param works with `confpol run` and with an artifact that no
# longer needs it, implicit HOME values are canonicalised, "/" is a value,
# and `run` checks the expect lines under the bindings it runs with.
set -u
: "${CONFPOL:?}" "${CONFPOL_RUN:?}" "${TOP:?}"
command -v bwrap >/dev/null || { echo "bwrap missing"; exit 77; }
bwrap --ro-bind / / --unshare-user --disable-userns true 2>/dev/null ||
    { echo "bwrap cannot create a sandbox here"; exit 77; }
tmp=$(mktemp -d) || exit 1
tmp=$(cd "$tmp" && pwd -P)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# ---- renaming an ancestor of PROJECT's value --------------------------------
mkdir -p "$tmp/w/proj/.git/hooks" "$tmp/out" "$tmp/outd"
echo SECRET >"$tmp/w/proj/.env"
cat >"$tmp/w/proj/p.confpol" <<P
confpol 1
profile confined
write $tmp
deny write \${PROJECT}/.git/hooks
deny read \${PROJECT}/.env
P
( cd "$tmp/w/proj" && "$CONFPOL" build --target bwrap -o "$tmp/out" p.confpol 2>/dev/null &&
  "$CONFPOL" build --target bwrap -D PROJECT="$tmp/w/proj" -o "$tmp/outd" p.confpol 2>/dev/null ) ||
    { echo "build failed"; exit 1; }
attack="cd /; mv $tmp/w $tmp/w2 2>/dev/null || exit 0
mkdir -p $tmp/w/proj/.git/hooks && echo evil >$tmp/w/proj/.git/hooks/pre-commit
echo SEEN; cat $tmp/w2/proj/.env; rm -rf $tmp/w; mv $tmp/w2 $tmp/w"
for art in out outd; do
    out=$(cd "$tmp/w/proj" && timeout 60 "$CONFPOL_RUN" "$tmp/$art/p.bwrap" -- sh -c "$attack" 2>&1)
    [ -d "$tmp/w/proj" ] || { mv "$tmp/w2" "$tmp/w" 2>/dev/null; bad "$art: project moved"; }
    case $out in *SEEN*) bad "$art: an ancestor of \${PROJECT} was renamed and the hook written under the protected name: $out" ;; esac
    case $out in *SECRET*) bad "$art: .env read after a rename" ;; esac
done

# ---- nested masks launch; fail open must not mean unconfined ----------------
mkdir -p "$tmp/n/a/x"
echo NESTED >"$tmp/n/a/x/f"
cat >"$tmp/n/p.confpol" <<'P'
confpol 1
profile confined
fail open
write ${PROJECT}
deny read ${PROJECT}/a ${PROJECT}/?/x
P
out=$(cd "$tmp/n" && timeout 60 "$CONFPOL" run p.confpol -- sh -c 'echo RAN; cat a/x/f' 2>&1)
case $out in *UNCONFINED*|*NESTED*) bad "nested masks: $out" ;; esac
case $out in *RAN*) ;; *) bad "nested masks: the command did not run: $out" ;; esac

# ---- -D of a declared param ---------------------------------------------------
mkdir -p "$tmp/c/cache" "$tmp/c/proj"
cat >"$tmp/c/proj/q.confpol" <<'P'
confpol 1
profile confined
param CACHE
write ${CACHE}
P
( cd "$tmp/c/proj" && timeout 60 "$CONFPOL" run -D CACHE="$tmp/c/cache" q.confpol -- \
    sh -c "echo x >$tmp/c/cache/f" ) >"$tmp/err" 2>&1 ||
    { bad "confpol run -D CACHE: exit $?"; cat "$tmp/err"; }
[ -f "$tmp/c/cache/f" ] || bad "confpol run -D CACHE: the write root was not writable"
( cd "$tmp/c/proj" && "$CONFPOL" build --target bwrap -D CACHE="$tmp/c/cache" -o "$tmp/c" q.confpol ) 2>/dev/null ||
    bad "build -D CACHE"
out=$(cd "$tmp/c/proj" && timeout 60 "$CONFPOL_RUN" -D CACHE="$tmp/c/cache" "$tmp/c/q.bwrap" -- true 2>&1) ||
    bad "confpol-run -D for a param bound at build time: $out"
case $out in *"note: -D CACHE"*) ;; *) bad "confpol-run: no note for the ignored -D: $out" ;; esac
out=$(cd "$tmp/c/proj" && "$CONFPOL_RUN" -D NOPE="$tmp/c/cache" "$tmp/c/q.bwrap" -- true 2>&1)
[ $? -eq 125 ] || bad "confpol-run -D of an unknown param was accepted: $out"

# ---- implicit HOME: trailing slash, symlink; "/" as a value --------------------
mkdir -p "$tmp/h/home/.ssh" "$tmp/h/proj"
echo KEY >"$tmp/h/home/.ssh/id"
ln -s home "$tmp/h/hlink"
cat >"$tmp/h/proj/p.confpol" <<'P'
confpol 1
profile confined
write ${PROJECT}
deny read ~/.ssh
P
for h in "$tmp/h/home/" "$tmp/h/hlink" "$tmp/h//home"; do
    out=$(cd "$tmp/h/proj" && HOME=$h timeout 60 "$CONFPOL" run p.confpol -- sh -c "echo RAN; cat $tmp/h/home/.ssh/id" 2>&1)
    case $out in *RAN*) ;; *) bad "HOME=$h: run did not start: $out" ;; esac
    case $out in *KEY*) bad "HOME=$h: ~/.ssh readable" ;; esac
done
cat >"$tmp/h/r.confpol" <<P
confpol 1
profile confined
param D
write $tmp/h/proj
deny write \${D}$tmp/h/proj/keep
P
mkdir -p "$tmp/h/proj/keep"
"$CONFPOL" build --target bwrap -o "$tmp/h" "$tmp/h/r.confpol" 2>/dev/null || bad "build r"
( cd "$tmp/h/proj" && timeout 60 "$CONFPOL_RUN" -D D=/ "$tmp/h/r.bwrap" -- sh -c "echo x >$tmp/h/proj/keep/f" ) 2>/dev/null
[ -e "$tmp/h/proj/keep/f" ] && bad "D=/: the deny was lost"

# ---- run checks the expect lines under its bindings ---------------------------
mkdir -p "$tmp/e/proj/src"
cat >"$tmp/e/proj/p.confpol" <<P
confpol 1
profile confined
write \${PROJECT}/build $tmp/e
expect deny write \${PROJECT}/src/x
P
out=$(cd "$tmp/e/proj" && timeout 60 "$CONFPOL" run p.confpol -- sh -c 'echo RAN' 2>&1)
case $out in *RAN*) bad "run ran a policy whose expect fails under PROJECT=$tmp/e/proj" ;; esac
case $out in *CP0601*) ;; *) bad "run: no expect failure reported: $out" ;; esac
# check names the assumption when asked (-Wexpect-assumes; the note is
# quiet by default); explain -D and build -D check the expect again.
out=$("$CONFPOL" check -Wexpect-assumes "$tmp/e/proj/p.confpol" 2>&1)
case $out in *"holds only while PROJECT"*CP0602*) ;; *) bad "check: the assumption is not named: $out" ;; esac
out=$("$CONFPOL" explain -D PROJECT="$tmp/e/proj" "$tmp/e/proj/p.confpol" write '${PROJECT}/src/x' 2>&1)
[ $? -eq 1 ] || bad "explain -D answered although an expect fails under the binding: $out"
"$CONFPOL" explain -D PROJECT="$tmp/e/proj" --ignore-expect "$tmp/e/proj/p.confpol" write \
    '${PROJECT}/src/x' 2>/dev/null | head -n 1 | grep -qx allow || bad "explain --ignore-expect"
mkdir -p "$tmp/e/out"
"$CONFPOL" build --target bwrap -D PROJECT="$tmp/e/proj" -o "$tmp/e/out" "$tmp/e/proj/p.confpol" \
    >/dev/null 2>&1 && bad "build -D wrote an artifact although an expect fails under the binding"

exit $fail

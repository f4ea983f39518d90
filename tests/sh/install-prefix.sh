#!/bin/sh
# SPDX-License-Identifier: MIT
# make install PREFIX=DIR compiles DIR in (the gate library's place) and
# installs under it; the installed binary, moved away from DIR so that it
# cannot find the library beside itself, still includes "<all>" from
# DIR/share/confpol/gates.  make uninstall with the same PREFIX removes
# every file install put there.  The build runs in a copy of the build
# directory, so that the tree's own objects keep their PREFIX.
set -u
: "${CONFPOL:?}" "${TOP:?}"
b=$TOP/${BUILD:-build}
case ${BUILD:-build} in build) ;; *) echo "ok - checked by make check on the default build only (a copy of $b would mix flags)"; exit 0 ;; esac
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
fail() { echo "not ok - $*"; exit 1; }
# the objects, time stamps kept (not the test tools or the tests' leftovers)
mkdir "$w/build" && tar -C "$b" --exclude=./tools --exclude='./test-*' -cf - . | tar -C "$w/build" -xpf - ||
    fail "copy of the build directory"
p=$w/prefix
timeout 300 make -s -C "$TOP" BUILD="$w/build" PREFIX="$p" install >"$w/out" 2>&1 ||
    fail "make install PREFIX=$p: $(tail -5 "$w/out")"
for f in bin/confpol bin/confpol-run bin/confpol-gate share/man/man1/confpol.1 share/confpol/gates/all.confpol \
    share/confpol/starter/claude.confpol share/bash-completion/completions/confpol \
    share/zsh/site-functions/_confpol share/fish/vendor_completions.d/confpol.fish; do
    [ -f "$p/$f" ] || fail "make install did not install $f"
done
mkdir "$w/elsewhere" && cp "$p/bin/confpol" "$w/elsewhere/confpol" || exit 1
printf 'confpol 1\nprofile confined\ninclude "<all>"\nexpect ask gate "git push --force origin main"\n' >"$w/p.confpol"
env -u CONFPOL_LIBRARY "$w/elsewhere/confpol" check "$w/p.confpol" >"$w/check.out" 2>&1 ||
    fail "the binary installed with PREFIX=$p does not find its gate library there: $(cat "$w/check.out")"
env -u CONFPOL_LIBRARY "$p/bin/confpol" check "$w/p.confpol" >"$w/check.out" 2>&1 ||
    fail "the installed binary does not find its gate library: $(cat "$w/check.out")"
# The installed confpol wires the installed hook program beside it.
mkdir "$w/art" && printf '{}\n' >"$w/settings.json" &&
    env -u CONFPOL_LIBRARY "$p/bin/confpol" build --target claude -D "PROJECT=$w" -o "$w/art" "$w/p.confpol" >/dev/null 2>&1 &&
    "$p/bin/confpol" install --claude -q "$w/settings.json" "$w/art/p.claude.json" >"$w/inst.out" 2>&1 ||
    fail "install with the installed confpol: $(cat "$w/inst.out")"
grep -q "\"$p/bin/confpol-gate --sha256 " "$w/settings.json" ||
    fail "the installed hook does not run $p/bin/confpol-gate: $(grep command "$w/settings.json")"
timeout 60 make -s -C "$TOP" BUILD="$w/build" PREFIX="$p" uninstall >"$w/out" 2>&1 ||
    fail "make uninstall: $(cat "$w/out")"
left=$(find "$p" -type f | head -5)
[ -z "$left" ] || fail "make uninstall left: $left"
[ -d "$p/share/confpol" ] && fail "make uninstall left share/confpol"
echo "ok - make install PREFIX=DIR compiles DIR in; make uninstall removes what it installed"

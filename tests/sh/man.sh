#!/bin/sh
# The manual pages: confpol(1) has a section for every command that
# `confpol --help` lists and states run's exit statuses; confpol-run(1)
# exists; both render without groff warnings; `make install` installs both
# pages and the starter policies.
set -u
: "${CONFPOL:?}" "${TOP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
page="$TOP/spec/confpol.1"
cmds=$("$CONFPOL" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$cmds" ] || fail "no commands in confpol --help"
for c in $cmds; do
    case $c in help | version) continue ;; esac
    grep -q "^\.B confpol $c\$\|^\.B confpol $c \|^\.B $c\$\|^\.BR $c " "$page" ||
        fail "confpol(1) has no section for '$c'"
done
for s in 125 126 127; do
    grep -q "^\.B $s\$" "$page" || fail "confpol(1) does not state exit status $s"
done
grep -q 'verify\\-log' "$page" || fail "confpol(1) does not describe --verify-log"
[ -f "$TOP/spec/confpol-run.1" ] || fail "no confpol-run(1)"
if command -v groff >/dev/null 2>&1; then
    for p in "$page" "$TOP/spec/confpol-run.1"; do
        w=$(groff -man -Tutf8 -ww -z "$p" 2>&1)
        [ -z "$w" ] || fail "groff warns on $p: $w"
    done
fi
make -s -C "$TOP" BUILD="${BUILD:-build}" install-files DESTDIR="$tmp/d" PREFIX=/usr >"$tmp/out" 2>&1 ||
    { fail "make install"; cat "$tmp/out"; }
for f in share/man/man1/confpol.1 share/man/man1/confpol-run.1 share/confpol/starter/claude.confpol \
    share/confpol/starter/ci.confpol share/confpol/starter/laptop.confpol \
    share/confpol/examples/claude-code-whole.confpol bin/confpol bin/confpol-run; do
    [ -f "$tmp/d/usr/$f" ] || fail "make install did not install $f"
done
[ $fails -eq 0 ] || exit 1
echo "man: ok"

#!/bin/sh
# SPDX-License-Identifier: MIT
# One version, defined in util/version.h: confpol --version, confpol-run
# --version, both manual pages (as checked in and as installed) and the
# newest released section of CHANGELOG.md say the same number, and it is
# MAJOR.MINOR.PATCH.  The project states its licence once: LICENSE is MIT,
# as every file's SPDX line says.
set -u
: "${CONFPOL:?}" "${CONFPOL_RUN:?}" "${TOP:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
fails=0
fail() { echo "not ok - $*"; fails=$((fails + 1)); }
v=$(sed -n 's/^#define CP_VERSION "\(.*\)"$/\1/p' "$TOP/util/version.h")
echo "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' || fail "util/version.h: '$v' is not MAJOR.MINOR.PATCH"
[ "$("$CONFPOL" --version)" = "confpol $v" ] || fail "confpol --version: $("$CONFPOL" --version)"
"$CONFPOL_RUN" --version 2>&1 | grep -q "^confpol-run $v\$\|^confpol $v\$" ||
    fail "confpol-run --version: $("$CONFPOL_RUN" --version 2>&1)"
for m in confpol.1 confpol-run.1; do
    grep -q "^\.TH .* \"confpol $v\" " "$TOP/spec/$m" || fail "spec/$m: $(grep '^\.TH' "$TOP/spec/$m")"
done
make -s -C "$TOP" BUILD="${BUILD:-build}" install-files DESTDIR="$w/d" PREFIX=/usr >"$w/out" 2>&1 ||
    fail "make install-files: $(cat "$w/out")"
for m in confpol.1 confpol-run.1; do
    grep -q "^\.TH .* \"confpol $v\" " "$w/d/usr/share/man/man1/$m" || fail "installed $m is not $v"
done
newest=$(sed -n 's/^## \([0-9][0-9.]*\) - [0-9-]*$/\1/p' "$TOP/CHANGELOG.md" | head -1)
[ "$newest" = "$v" ] || fail "CHANGELOG.md's newest release is '$newest', the version $v"
grep -q '^MIT License$' "$TOP/LICENSE" 2>/dev/null || fail "no MIT LICENSE"
other=$(git -C "$TOP" grep -h -o 'SPDX-License-Identifier: [A-Za-z0-9.+-]*' 2>/dev/null | sort -u |
    grep -v '^SPDX-License-Identifier: MIT$' | grep -v '^SPDX-License-Identifier: $')
[ -z "$other" ] || fail "a file states another licence: $other"
[ "$fails" -eq 0 ] || exit 1
echo "ok - version $v everywhere, MIT"

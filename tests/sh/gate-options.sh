#!/bin/sh
# Option spellings through the whole gate (tests/gate/options.py): each
# command of tests/gate/options/*.tsv decided the same, and as expected, by
# explain, the gate on the policy and the gate on the built artifact.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" && python3 "$TOP/tests/gate/options.py" "$CONFPOL" "$TOP"

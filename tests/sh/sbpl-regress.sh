#!/bin/sh
# Attacks on the SBPL target, one per soundness class (rename of a param
# value's ancestor, glob write roots, a param bound to /, '?' and multibyte
# names, precision of glob rename protection, hard links), played on the
# SBPL evaluator in both regex readings (tests/campaign/sbpl_regress.py).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
timeout 120 python3 "$TOP/tests/campaign/sbpl_regress.py" "$CONFPOL" "$tmp"

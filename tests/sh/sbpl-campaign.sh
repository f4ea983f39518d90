#!/bin/sh
# The SBPL attack campaign (tests/campaign/sbpl_campaign.py), a fixed-seed
# slice: random policies, bindings and probes decided by the decision model
# and observed on the SBPL evaluator, rename and hard-link attacks included.
# SBPL_SEED and SBPL_COUNT choose another slice (`make soak-sbpl`).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$TOP/util" -I"$TOP/compiler" -o "$tmp/decide_batch" \
    "$TOP/tests/golden/decide_batch.c" "$TOP/${BUILD:-build}/libconfpol.a" \
    || { echo "cannot build the decision helper"; exit 1; }
python3 "$TOP/tests/campaign/sbpl_campaign.py" "$CONFPOL" "$tmp/decide_batch" \
    "$tmp" "${SBPL_SEED:-20261202}" "${SBPL_COUNT:-80}"

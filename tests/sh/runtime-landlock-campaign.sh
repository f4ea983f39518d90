#!/bin/sh
# The Landlock enforcer against the bwrap enforcer on seeded random trees
# and policies (tests/runtime/ll_campaign.py): nothing looser, every
# stricter result announced by the plan's notes.  A fixed-seed slice;
# LL_CAMPAIGN_SEED and LL_CAMPAIGN_COUNT run another or a longer one.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
CONFPOL=${CONFPOL:-$TOP/build/confpol}
command -v bwrap >/dev/null 2>&1 || { echo "bwrap is not installed (the reference)"; exit 77; }
bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null ||
    { echo "bwrap cannot create namespaces here (the reference)"; exit 77; }
"$RUN" --check | grep -q '^landlock: ABI' || { echo "Landlock is unavailable"; exit 77; }
python3 "$TOP/tests/runtime/ll_campaign.py" "${LL_CAMPAIGN_SEED:-1}" "${LL_CAMPAIGN_COUNT:-60}" \
    "$CONFPOL" "$RUN" > "${TMPDIR:-/tmp}/llc.$$" ; rc=$?; grep -v "^#" "${TMPDIR:-/tmp}/llc.$$"; rm -f "${TMPDIR:-/tmp}/llc.$$"; exit $rc

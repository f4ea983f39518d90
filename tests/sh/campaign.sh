#!/bin/sh
# The attack campaign's fixed-seed slice (tests/campaign/README.md): random
# policies, probes and attacks decided by `confpol explain` and observed on
# the real bwrap + Landlock through confpol-run, with the symbolic artifact
# and the -D build.  `make soak SEED=N COUNT=N` runs as much as asked.
set -u
: "${CONFPOL:?}" "${CONFPOL_RUN:?}" "${TOP:?}"
command -v bwrap >/dev/null || { echo "bwrap missing"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
bwrap --ro-bind / / --unshare-user --disable-userns true 2>/dev/null ||
    { echo "bwrap cannot create a sandbox here"; exit 77; }
exec timeout 300 python3 "$TOP/tests/campaign/run.py" --seed "${CAMPAIGN_SEED:-1}" \
    --count "${CAMPAIGN_COUNT:-20}" --confpol "$CONFPOL" --confpol-run "$CONFPOL_RUN"

#!/bin/sh
# The oracle of confpol diff (tests/campaign/diff_oracle.py): random policy
# pairs from the campaign's generator and a mutation of one rule, of an
# include, of the profile or of a let binding; every probe of both
# policies' rule boundaries decided on each side, unbound and under a
# binding of the params; a probe that differs outside every reported
# region, a witness that does not replay, or a change reported between
# equal policies fails.  DIFF_ORACLE_SEED and DIFF_ORACLE_COUNT choose
# another slice (`make soak` runs a longer one).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
exec timeout 600 python3 "$TOP/tests/campaign/diff_oracle.py" --confpol "$CONFPOL" \
    --seed "${DIFF_ORACLE_SEED:-1}" --count "${DIFF_ORACLE_COUNT:-2000}"

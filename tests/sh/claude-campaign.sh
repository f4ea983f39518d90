#!/bin/sh
# The claude-target campaign (tests/campaign/claude_campaign.py), a
# fixed-seed slice: random policies decided by the decision model and
# observed on a model of Claude Code's Bash sandbox; an unannounced looser
# or an unreported stricter answer fails.  CLAUDE_SEED and CLAUDE_COUNT
# choose another slice (`make soak-sbpl` runs a long one).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$TOP/util" -I"$TOP/compiler" -o "$tmp/decide_batch" \
    "$TOP/tests/golden/decide_batch.c" "$TOP/${BUILD:-build}/libconfpol.a" \
    || { echo "cannot build the decision helper"; exit 1; }
python3 "$TOP/tests/campaign/claude_campaign.py" "$CONFPOL" "$tmp/decide_batch" \
    "$tmp" "${CLAUDE_SEED:-20261202}" "${CLAUDE_COUNT:-150}"

#!/bin/sh
# The claude-target campaign observed on the real sandbox runtime (npm
# @anthropic-ai/sandbox-runtime, the `srt` command; tests/campaign/claude_srt.py):
# the random policies of tests/campaign/claude_campaign.py, their claude
# artifacts turned into the runtime configuration Claude Code would write,
# every probe run in one real sandbox launch per policy, then attacks on
# every literal deny target and reads of deny-read targets created after
# the start.  An unannounced looser or an unreported stricter observation
# fails, and so does an attack that gets through or a launch that fails.
# Skipped (loudly; failed under CI=true) when the runtime is not installed
# (`sh .ci/deps.sh check` installs it), when not root, or when the world
# cannot be built.  SRT_SEED and SRT_COUNT choose another slice (`make soak`
# and `make soak-srt` run a long one).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$TOP/util" -I"$TOP/compiler" -o "$tmp/decide_batch" \
    "$TOP/tests/golden/decide_batch.c" "$TOP/${BUILD:-build}/libconfpol.a" \
    || { echo "cannot build the decision helper"; exit 1; }
python3 "$TOP/tests/campaign/claude_campaign.py" "$CONFPOL" "$tmp/decide_batch" \
    "$tmp" "${SRT_SEED:-20261203}" "${SRT_COUNT:-15}" srt >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
exit $rc

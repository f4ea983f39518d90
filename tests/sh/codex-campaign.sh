#!/bin/sh
# The attack campaign (tests/campaign/README.md) against the codex target:
# random policies built with `confpol build --target codex` (every param
# bound), their profiles applied by the real Codex CLI's own sandbox
# (`codex sandbox -P confpol`, tests/campaign/codex.py), probes and rename
# and link attacks judged against `confpol explain`.  A looser observation
# or a changed deny target fails unless the rule is rated not enforced; a
# stricter one fails unless announced.  A fixed-seed slice (about 15 s);
# `make soak-codex SEED=N COUNT=N` runs as many as asked.  Skipped when npm
# cannot install the pinned Codex CLI into the build directory.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
. "$TOP/tests/lib/codex_cli.sh"
exec timeout "${TIMEOUT:-280}" python3 "$TOP/tests/campaign/run.py" --targets codex --codex "$CODEX" \
    --seed "${CODEX_SEED:-29}" --count "${CODEX_COUNT:-3}" --confpol "$CONFPOL"

#!/bin/sh
# The gate half of the codex campaign (tests/campaign/codex_rules.py):
# random gate policies built with `confpol build --target codex`, their
# exec-policy rules checked by the real `codex execpolicy check` on command
# lines around each pattern and compared with `confpol explain ... gate`.
# An unannounced looser or stricter answer fails.  CODEX_SEED and
# CODEX_RULES_COUNT choose another slice.  Skipped when npm cannot install
# the pinned Codex CLI into the build directory.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
. "$TOP/tests/lib/codex_cli.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/w" || exit 1
exec timeout "${TIMEOUT:-120}" python3 "$TOP/tests/campaign/codex_rules.py" "$CONFPOL" \
    "$CODEX_NATIVE" "$tmp/w" "${CODEX_SEED:-29}" "${CODEX_RULES_COUNT:-4}"

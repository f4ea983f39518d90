#!/bin/sh
# explain, the codex artifact and Codex's own enforcement agree on every
# `expect` of every example and starter (tests/campaign/codex_expect.py):
# read, write and exec expectations observed in one `codex sandbox -P
# confpol` launch of the real client per policy, gate expectations with
# `codex execpolicy check` on the artifact's rules.  An answer looser than
# the expectation fails unless its rule is rated not enforced, a stricter
# one unless the fidelity report announces it.  Skipped when npm cannot
# install the pinned Codex CLI into the build directory.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
. "$TOP/tests/lib/codex_cli.sh"
# Not under /tmp: the starters write /tmp, which would hold the scratch HOME.
work=$(mktemp -d "$TOP/${BUILD:-build}/tools/codex/expect.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
timeout "${TIMEOUT:-200}" python3 "$TOP/tests/campaign/codex_expect.py" "$CONFPOL" "$CODEX" \
    "$CODEX_NATIVE" "$work" "$TOP"/examples/*.confpol "$TOP"/examples/starter/*.confpol

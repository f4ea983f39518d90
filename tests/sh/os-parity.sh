#!/bin/sh
# Parity with the seed: every protection of the goose Seatbelt profiles in
# ../shared/seed-material/goose-sbpl (control-plane write denies, ancestor
# rename denies, key and credential read denies, network) holds in the SBPL
# of the matching agentteams example, decided by the SBPL evaluator.  The
# seed material lives next to the repository; a copy of the two profiles is
# kept in tests/golden/seed so the test runs on any clone.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
cd "$TOP" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
for prof in confined exclusive; do
    "$CONFPOL" build --target sbpl -o "$tmp" "examples/agentteams-$prof.confpol" \
        2>"$tmp/err" || { cat "$tmp/err"; fail=1; continue; }
    python3 tests/golden/osmodel.py parity "$tmp/agentteams-$prof.sb" \
        "tests/golden/seed/goose-$prof.sb" || fail=1
done
exit $fail

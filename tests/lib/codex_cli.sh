#!/bin/sh
# Sourced by the tests that run the real Codex CLI: sets CODEX to the
# pinned release installed into the build directory (never globally),
# installing it with npm when missing.  Exits 77 with the reason when npm
# or its registry cannot be reached (a skip; a failure under CI=true).
: "${TOP:?}"
CODEX_PKG=@openai/codex@0.171.0
codex_dir="$TOP/${BUILD:-build}/tools/codex"
CODEX="$codex_dir/node_modules/.bin/codex"
if [ "$("$CODEX" --version 2>/dev/null)" != "codex-cli ${CODEX_PKG##*@}" ]; then
    command -v npm >/dev/null 2>&1 || { echo "npm missing: cannot install $CODEX_PKG"; exit 77; }
    mkdir -p "$codex_dir" || exit 1
    timeout 300 npm install --prefix "$codex_dir" --no-fund --no-audit "$CODEX_PKG" \
        >"$codex_dir/npm.log" 2>&1 ||
        { echo "npm cannot install $CODEX_PKG (registry unreachable?): see $codex_dir/npm.log"; exit 77; }
    [ "$("$CODEX" --version 2>/dev/null)" = "codex-cli ${CODEX_PKG##*@}" ] ||
        { echo "$CODEX_PKG installed but does not run here"; exit 1; }
fi
# The native binary the npm wrapper runs (execpolicy checks start it many
# times; node's start-up would dominate).
CODEX_NATIVE=$(find "$codex_dir/node_modules/@openai" -path '*/vendor/*/bin/codex' -type f 2>/dev/null | head -n 1)
[ -n "$CODEX_NATIVE" ] || CODEX_NATIVE=$CODEX
export CODEX CODEX_NATIVE

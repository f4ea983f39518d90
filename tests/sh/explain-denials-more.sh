#!/bin/sh
# run --explain-denials explains what the command reports in the words it
# uses: a relative path ("cannot create .git/hooks/x: Read-only file
# system", resolved against the working directory), and a read denial that
# shows as "No such file or directory" (a masked path), which is explained
# only when the policy denies it (a path that is really missing is not).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v bwrap >/dev/null 2>&1 || { echo "bwrap is missing"; exit 77; }
# Outside /tmp, which the starter makes writable.
w=$TOP/${BUILD:-build}/test-explain-denials
rm -rf "$w" && mkdir -p "$w/home/.ssh" "$w/proj/.git/hooks" || exit 1
trap 'rm -rf "$w"' EXIT
echo key >"$w/home/.ssh/id_rsa"
export HOME="$w/home"
cd "$w/proj" || exit 1
fail() { echo "not ok - $*"; exit 1; }
"$CONFPOL" init --ci ci.confpol >/dev/null 2>&1 || fail "init"
timeout 60 "$CONFPOL" run -q --explain-denials ci.confpol -- \
    sh -c 'echo x >> .git/hooks/pre-commit; cat ~/.ssh/id_rsa; cat /nonexistent/f' \
    >out.txt 2>err.txt
grep -q "^confpol run: denied: write $w/proj/.git/hooks/pre-commit: by 'deny write \${PROJECT}/.git/hooks' at ci.confpol:" err.txt ||
    fail "the relative path is not explained: $(cat err.txt)"
grep -q "^confpol run: denied: read $w/home/.ssh/id_rsa: by 'deny read ~/.ssh' at <credentials>:" err.txt ||
    fail "the masked read is not explained: $(cat err.txt)"
grep -q "denied: .*nonexistent" err.txt && fail "a missing path is explained: $(cat err.txt)"
echo "ok - relative paths and masked reads are explained"

#!/bin/sh
# confpol init [--claude | --ci | --laptop]: exact output, the written file
# is the shipped starter (examples/starter), an existing file is kept
# unless --force; each starter passes check -Werror, builds for every
# target, and runs: under `confpol run` the project is writable while
# .git/hooks, .git/config and ~/.ssh are not.
set -u
: "${CONFPOL:?}" "${TOP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
cd "$tmp" || exit 1

"$CONFPOL" init >"$tmp/out" 2>&1 || fail "init"
cat >"$tmp/want" <<'EOF'
confpol init: wrote policy.confpol (Claude Code in one project)

next:
  confpol check policy.confpol     analyse it (edit the rules to fit)
  confpol claude policy.confpol    start Claude Code in this project, confined by it
EOF
diff -u "$tmp/want" "$tmp/out" || fail "init output"
cmp -s policy.confpol "$TOP/examples/starter/claude.confpol" || fail "init wrote another text than the claude starter"

cp policy.confpol "$tmp/keep"
"$CONFPOL" init --ci >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "init over an existing file: exit $rc"
[ "$(cat "$tmp/out")" = "confpol init: policy.confpol exists: not overwritten (use --force to replace it)" ] ||
    fail "refusal text: $(cat "$tmp/out")"
cmp -s policy.confpol "$tmp/keep" || fail "init changed an existing file"
"$CONFPOL" init --ci --force >/dev/null || fail "init --force"
cmp -s policy.confpol "$TOP/examples/starter/ci.confpol" || fail "init --force did not write the ci starter"

"$CONFPOL" init --ci ci.confpol >"$tmp/out" 2>&1 || fail "init --ci FILE"
cat >"$tmp/want" <<'EOF'
confpol init: wrote ci.confpol (a CI job)

next:
  confpol check ci.confpol                analyse it (edit the rules to fit)
  confpol run ci.confpol -- make check    run the job confined by it
EOF
diff -u "$tmp/want" "$tmp/out" || fail "init --ci output"
"$CONFPOL" init --laptop laptop.confpol >"$tmp/out" 2>&1 || fail "init --laptop FILE"
cat >"$tmp/want" <<'EOF'
confpol init: wrote laptop.confpol (a tool on a developer's laptop)

next:
  confpol check laptop.confpol              analyse it (edit the rules to fit)
  confpol run laptop.confpol -- "$SHELL"    a shell confined by it
EOF
diff -u "$tmp/want" "$tmp/out" || fail "init --laptop output"
"$CONFPOL" init --ci --laptop x.confpol >"$tmp/out" 2>&1
[ $? -eq 2 ] || fail "two kinds: not a usage error"
[ -e x.confpol ] && fail "a usage error wrote a file"

for kind in claude ci laptop; do
    f="$TOP/examples/starter/$kind.confpol"
    "$CONFPOL" check -Werror "$f" >"$tmp/out" 2>&1 || { fail "check -Werror $kind"; cat "$tmp/out"; }
    mkdir "$tmp/o-$kind"
    "$CONFPOL" build --target all -o "$tmp/o-$kind" "$f" >"$tmp/out" 2>&1 ||
        { fail "build --target all $kind"; cat "$tmp/out"; }
    for s in sb bwrap claude.json; do
        [ -s "$tmp/o-$kind/$kind.$s" ] || fail "build $kind: no .$s"
    done
done

# Run: write inside, the protected places and credentials stay closed.
if command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / true 2>/dev/null; then
    mkdir -p proj/.git/hooks "$tmp/home/.ssh"
    printf 'key\n' >"$tmp/home/.ssh/id_ed25519"
    printf '[core]\n' >proj/.git/config
    for kind in ci laptop; do
        (cd proj && HOME="$tmp/home" timeout 60 "$CONFPOL" run "$TOP/examples/starter/$kind.confpol" -- sh -c '
            echo ok >built.txt || echo "FAIL: write in the project"
            echo x >.git/hooks/pre-commit 2>/dev/null && echo "FAIL: .git/hooks written"
            echo x >>.git/config 2>/dev/null && echo "FAIL: .git/config written"
            cat "$HOME/.ssh/id_ed25519" 2>/dev/null && echo "FAIL: ~/.ssh read"
            true') >"$tmp/run.out" 2>&1 || { fail "run $kind"; cat "$tmp/run.out"; }
        grep '^FAIL' "$tmp/run.out" && fail "run $kind: a denied access succeeded"
        [ "$(cat proj/built.txt 2>/dev/null)" = ok ] || fail "run $kind: the project was not written"
        rm -f proj/built.txt
    done
else
    echo "note: bwrap cannot start here: the run part skipped"
fi
# Every starter keeps the credential files of the common toolchains
# unreadable (the gate library's list) and says that an allowed code host
# can still receive uploads.
for kind in claude ci laptop; do
    f=$TOP/examples/starter/$kind.confpol
    grep -q 'include "<credentials>"' "$f" || fail "$kind: no include \"<credentials>\""
    grep -q 'can still receive uploads' "$f" || fail "$kind: the uploads to an allowed code host are not said"
    for c in .git-credentials .netrc .npmrc .pypirc .docker/config.json .kube/config \
        .config/gcloud/credentials.db .azure/msal_token_cache.json .cargo/credentials \
        .cargo/credentials.toml .config/gh/hosts.yml .aws/credentials .ssh/id_ed25519 \
        .gnupg/private-keys-v1.d .terraform.d/credentials.tfrc.json .m2/settings.xml \
        .gradle/gradle.properties .composer/auth.json .config/hub; do
        v=$("$CONFPOL" explain -D PROJECT=/home/u/p -D HOME=/home/u "$f" read "/home/u/$c" | head -n 1)
        [ "$v" = deny ] || fail "$kind: read ~/$c: $v"
    done
done
[ $fails -eq 0 ] || exit 1
echo "init: ok"

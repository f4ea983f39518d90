#!/bin/sh
# build --format shell prints a command line that runs as `run` does: run
# with real bwrap, a denied file is masked with /dev/null (a tmpfs cannot
# be mounted on a file) and a denied directory with a read-only tmpfs; the
# write root is writable and a write carve-out is not; the command's own
# arguments, spaces included, reach it unchanged; a missing deny-write
# target is a scratch tmpfs, as under confpol-run.
set -u
: "${CONFPOL:?}" "${TOP:?}"
bwrap --ro-bind / / true 2>/dev/null || { echo "bwrap cannot start here"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
mkdir -p "$tmp/proj/.git/hooks" "$tmp/home/.ssh" "$tmp/out"
printf 'secret\n' >"$tmp/proj/.env"
printf 'key\n' >"$tmp/home/.ssh/id_ed25519"
cat >"$tmp/p.confpol" <<'P'
confpol 1
profile confined
write ${PROJECT}
deny write ${PROJECT}/.git/hooks ${PROJECT}/.env
deny read ${PROJECT}/.env ~/.ssh
P
(cd "$tmp/proj" && "$CONFPOL" build --target bwrap --format shell -o "$tmp/out" "$tmp/p.confpol") \
    >"$tmp/shell.sh" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: build --format shell"; exit 1; }
grep -q -- '--tmpfs "$PROJECT"/.env' "$tmp/shell.sh" && ! grep -q 'ro-bind /dev/null "$PROJECT"/.env' "$tmp/shell.sh" &&
    fail "the file .env is masked with a tmpfs only"
(cd "$tmp/proj" && HOME="$tmp/home" PROJECT="$tmp/proj" timeout 60 sh "$tmp/shell.sh" sh -c '
    [ "$1" = "two words" ] || echo "FAIL: argument: $1"
    [ -z "$(cat .env)" ] || echo "FAIL: .env read"
    [ -z "$(ls -A "$HOME/.ssh")" ] || echo "FAIL: ~/.ssh listed"
    echo x >.env 2>/dev/null && echo "FAIL: .env written"
    echo x >.git/hooks/pre-commit 2>/dev/null && echo "FAIL: .git/hooks written"
    echo ok >built.txt || echo "FAIL: project write"
    echo ran' sh "two words") >"$tmp/run.out" 2>&1
grep '^FAIL' "$tmp/run.out" && fail "the shell form let a denied access through"
grep -q '^ran$' "$tmp/run.out" || { fail "the shell form did not run the command"; cat "$tmp/run.out"; }
[ "$(cat "$tmp/proj/built.txt" 2>/dev/null)" = ok ] || fail "the write did not reach the project"
[ "$(cat "$tmp/proj/.env")" = secret ] || fail ".env changed on the host"

# A missing deny-write target is covered as confpol-run covers it: a
# scratch tmpfs, so a plain `git init` works under `deny write .git/hooks`
# in a project without .git, and no hook reaches the host.
mkdir -p "$tmp/fresh"
cat >"$tmp/g.confpol" <<'P'
confpol 1
profile confined
write ${PROJECT}
deny write ${PROJECT}/.git/hooks
P
(cd "$tmp/fresh" && "$CONFPOL" build --target bwrap --format shell -o "$tmp/out" "$tmp/g.confpol") \
    >"$tmp/g.sh" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: build --format shell"; exit 1; }
if command -v git >/dev/null 2>&1; then
    (cd "$tmp/fresh" && HOME="$tmp/home" PROJECT="$tmp/fresh" timeout 60 sh "$tmp/g.sh" sh -c '
        git init -q . || echo "FAIL: git init"
        printf "#!/bin/sh\necho pwned\n" >.git/hooks/post-checkout
        echo ran') >"$tmp/g.out" 2>&1
    grep '^FAIL' "$tmp/g.out" && fail "git init under deny write .git/hooks"
    grep -q '^ran$' "$tmp/g.out" || { fail "the shell form did not run git"; cat "$tmp/g.out"; }
    [ -f "$tmp/fresh/.git/HEAD" ] || fail "git init did not reach the project"
    [ -z "$(ls -A "$tmp/fresh/.git/hooks" 2>/dev/null)" ] || fail "a hook reached the host"
fi
[ $fails -eq 0 ] || exit 1
echo "shell-form: ok"

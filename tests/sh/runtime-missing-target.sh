#!/bin/sh
# Missing deny targets inside a write root (spec/runtime.md, "Missing deny
# targets").  bwrap: the missing ancestors of a target are ordinary
# directories (pinned, removed at exit when still empty); a missing
# deny-write target is a scratch tmpfs (writable inside, never written
# through to the host), a missing deny-read target the masked-file device.
# So under `deny write .git/hooks` a plain `git init`, `git add` and
# `git commit` work in a project without .git, and no hook written inside
# reaches the host or is run by the host's git afterwards.  Landlock: the
# missing name cannot be created at all (stricter: git init fails).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v bwrap >/dev/null || { echo "bwrap missing"; exit 77; }
command -v git >/dev/null || { echo "git missing"; exit 77; }
bwrap --ro-bind / / --unshare-user --disable-userns true 2>/dev/null ||
    { echo "bwrap cannot create a sandbox here"; exit 77; }
tmp=$(mktemp -d) || exit 1
tmp=$(cd "$tmp" && pwd -P)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }
GIT="git -c user.name=t -c user.email=t@example.invalid -c init.defaultBranch=main"
export GIT
mkdir -p "$tmp/outside"
policy() {
    mkdir -p "$1"
    printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/.git/hooks\ndeny read ${PROJECT}/.env\n' \
        >"$1/p.confpol"
}
run() { # ENFORCER DIR SCRIPT
    (cd "$2" && timeout 60 "$CONFPOL" run -q --enforcer "$1" p.confpol -- sh -c "$3") 2>&1
}
# The host's git must never run a hook the sandbox wrote.
host_commit() {
    (cd "$1" && $GIT commit -q --allow-empty -m host) >/dev/null 2>&1
    [ -e "$tmp/outside/PWNED" ] && bad "$2: the host's git ran a hook written inside"
    rm -f "$tmp/outside/PWNED"
}
HOOK="printf '#!/bin/sh\\ntouch $tmp/outside/PWNED 2>/dev/null\\nexit 0\\n' >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo HOOK-WRITTEN"

# ---- bwrap ----------------------------------------------------------------
P=$tmp/b
policy "$P"
out=$(run bwrap "$P" "
    [ -d .env ] && echo ENV-IS-DIR
    cat .env >/dev/null 2>&1 && echo ENV-READ
    echo x >.env 2>/dev/null && echo ENV-WRITTEN
    $GIT init -q && $GIT add p.confpol && $GIT commit -q -m one && echo COMMIT-OK
    $HOOK
    $GIT commit -q --allow-empty -m two 2>/dev/null; [ -e $tmp/outside/PWNED ] && echo HOOK-RAN-INSIDE
    mv .git .g2 2>/dev/null && echo MOVED-GIT
    mv .git/hooks .git/h2 2>/dev/null && echo MOVED-HOOKS
    rmdir .git/hooks 2>/dev/null && echo RMDIR-HOOKS
    rm -rf .git/hooks 2>/dev/null; ln -sT $tmp/outside .git/hooks 2>/dev/null && echo HOOKS-SYMLINKED
    ln -s $tmp/outside/evil .git/hooks/post-commit 2>/dev/null
    mkdir -p .g3/hooks && mv -T .g3 .git 2>/dev/null && echo REPLACED-GIT
    true")
case $out in *COMMIT-OK*) ;; *) bad "bwrap: plain git init/add/commit failed: $out" ;; esac
case $out in *HOOK-WRITTEN*) ;; *) bad "bwrap: .git/hooks is not a scratch directory inside: $out" ;; esac
case $out in *ENV-IS-DIR*|*ENV-READ*|*ENV-WRITTEN*) bad "bwrap: the missing .env: $out" ;; esac
case $out in *MOVED*|*RMDIR*|*SYMLINKED*|*REPLACED*) bad "bwrap: the hooks are not protected: $out" ;; esac
rm -f "$tmp/outside/PWNED" # a hook run inside the sandbox is the sandbox's own business
[ -e "$P/.git/hooks" ] && bad "bwrap: the hooks placeholder or a hook reached the host: $(ls -A "$P/.git/hooks")"
[ -e "$P/.env" ] && bad "bwrap: the .env placeholder was left behind"
[ -e "$tmp/outside/evil" ] && bad "bwrap: a write through a symlink reached the host"
[ -e "$P/.g2" ] || [ -e "$P/.g3" ] && [ -e "$P/.g3/hooks/pre-commit" ] && bad "bwrap: a replacement .git kept a hook"
( cd "$P" && $GIT log --oneline | grep -q one ) || bad "bwrap: the repository does not work on the host"
host_commit "$P" "bwrap, first run"

# A second run: .git exists (made by the first), .git/hooks is missing.
out=$(run bwrap "$P" "$HOOK; $GIT commit -q --allow-empty -m three && echo COMMIT-OK; true")
case $out in *COMMIT-OK*) ;; *) bad "bwrap: git commit in the existing repository failed: $out" ;; esac
rm -f "$tmp/outside/PWNED"
[ -e "$P/.git/hooks" ] && bad "bwrap, second run: a hook reached the host"
host_commit "$P" "bwrap, second run"

# An existing .git/hooks stays read-only.
mkdir "$P/.git/hooks"
out=$(run bwrap "$P" "$HOOK; true")
case $out in *HOOK-WRITTEN*) bad "bwrap: an existing .git/hooks was written: $out" ;; esac
[ -e "$P/.git/hooks/pre-commit" ] && bad "bwrap: a hook reached the existing .git/hooks"
[ -d "$P/.git/hooks" ] || bad "bwrap: the existing .git/hooks was removed"

# Nothing is left when the run did not use .git.
Q=$tmp/q
policy "$Q"
run bwrap "$Q" true >/dev/null
[ -e "$Q/.git" ] && bad "bwrap: an unused .git was left behind"
[ -e "$Q/.env" ] && bad "bwrap: an unused .env placeholder was left behind"

# ---- Landlock ---------------------------------------------------------------
if "$TOP/build/confpol-run" --check 2>/dev/null | grep -q '^landlock: .*usable'; then
    L=$tmp/l
    policy "$L"
    out=$(run landlock "$L" "
        [ -d .env ] && echo ENV-IS-DIR
        echo x >.env 2>/dev/null && echo ENV-WRITTEN
        $GIT init -q 2>/dev/null && echo INIT-OK
        mkdir -p .git/hooks 2>/dev/null && echo MKDIR-OK
        $HOOK 2>/dev/null
        true")
    case $out in *ENV-IS-DIR*|*ENV-WRITTEN*|*MKDIR-OK*|*HOOK-WRITTEN*) bad "landlock: $out" ;; esac
    # Stricter, and said so: the missing .git cannot be created either.
    case $out in *INIT-OK*) bad "landlock: git init created .git beside a missing deny target" ;; esac
    [ -e "$L/.git" ] || [ -e "$L/.env" ] && bad "landlock: something was created on the host: $(ls -A "$L")"
    # With .git made on the host, .git/hooks still cannot be created.
    (cd "$L" && $GIT init -q --template=) || bad "git init on the host"
    out=$(run landlock "$L" "mkdir .git/hooks 2>/dev/null && echo MKDIR-OK; $HOOK 2>/dev/null; true")
    case $out in *MKDIR-OK*|*HOOK-WRITTEN*) bad "landlock, .git present: $out" ;; esac
    [ -e "$L/.git/hooks" ] && bad "landlock: .git/hooks reached the host"
    # A missing write root is not granted, and said so (as bwrap says it).
    printf 'confpol 1\nprofile confined\nwrite ${PROJECT} %s/no-root\n' "$tmp" >"$L/m.confpol"
    for enf in landlock bwrap; do
        out=$(cd "$L" && timeout 60 "$CONFPOL" run --enforcer "$enf" --allow-partial m.confpol -- \
            sh -c "mkdir $tmp/no-root 2>/dev/null && echo CREATED; true" 2>&1)
        case $out in *CREATED*) bad "$enf: a missing write root outside the others was created" ;; esac
        case $out in
            *"write root '$tmp/no-root' does not exist: writing there is denied"*) ;;
            *) bad "$enf: a missing write root is not said: $out" ;;
        esac
    done
fi
exit $fail

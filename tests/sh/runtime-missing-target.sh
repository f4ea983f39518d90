#!/bin/sh
# A missing deny target inside a write root: only the target itself is a
# read-only placeholder; its missing ancestors are ordinary directories
# (pinned, removed at exit when still empty).  `deny write .git/hooks` in a
# project without .git: the hooks cannot be created, .git cannot be renamed,
# and a repository can be created (`git init --template=`); before, .git
# itself was an empty read-only directory.
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
mkdir -p "$tmp/p" "$tmp/q"
for d in p q; do
    printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/.git/hooks\n' \
        >"$tmp/$d/p.confpol"
done

# The hooks stay protected; .git is an ordinary directory.
out=$(cd "$tmp/p" && timeout 60 "$CONFPOL" run p.confpol -- sh -c '
    mkdir .git/objects && echo MKDIR-OK
    echo evil >.git/hooks/pre-commit && echo HOOK-WRITTEN
    mv .git .g2 2>/dev/null && echo MOVED
    mkdir -p .g3/hooks && mv -T .g3 .git 2>/dev/null && echo REPLACED
    rmdir .git/hooks 2>/dev/null && echo RMDIR
    true' 2>&1)
case $out in *MKDIR-OK*) ;; *) bad ".git is not usable: $out" ;; esac
case $out in *HOOK-WRITTEN*|*MOVED*|*REPLACED*|*RMDIR*) bad "the hooks are not protected: $out" ;; esac
[ -e "$tmp/p/.git/hooks/pre-commit" ] && bad "a hook reached the host"
# What the run left: .git (not empty: objects/), no hooks placeholder.
[ -d "$tmp/p/.git/objects" ] || bad ".git/objects was not kept"
[ -e "$tmp/p/.git/hooks" ] && bad "the hooks placeholder was left behind"

# A repository can be created, and it works on the host afterwards.
out=$(cd "$tmp/q" && timeout 60 "$CONFPOL" run p.confpol -- sh -c '
    git init -q --template= && echo INIT-OK
    echo evil >.git/hooks/pre-commit 2>/dev/null && echo HOOK-WRITTEN; true' 2>&1)
case $out in *INIT-OK*) ;; *) bad "git init --template= failed: $out" ;; esac
case $out in *HOOK-WRITTEN*) bad "hook written after git init: $out" ;; esac
( cd "$tmp/q" && git status >/dev/null 2>&1 ) || bad "the repository does not work on the host"
[ -e "$tmp/q/.git/hooks" ] && bad "the hooks placeholder was left behind"

# Nothing is left when the run did not use .git.
( cd "$tmp/p" && rm -rf .git && timeout 60 "$CONFPOL" run p.confpol -- true ) 2>/dev/null
[ -e "$tmp/p/.git" ] && bad "an unused .git was left behind"
exit $fail

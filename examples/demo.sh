#!/bin/sh
# `make demo`: the main job on the bundled example.  Checks every example,
# compiles agentteams-confined.confpol to all three targets, explains two
# decisions, then runs a shell confined by the policy in a scratch project
# and shows one allowed and one denied write.
set -eu
B=${1:-build}
C="$B/confpol"
P=examples/agentteams-confined.confpol
out="$B/demo"

# Bold headings on a terminal only: no escape codes into a pipe or a log.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
    step() { printf '\n== %s\n' "$*"; }
fi

step "confpol check examples/*.confpol"
"$C" check examples/*.confpol && echo "all examples clean"

step "confpol build --target all --expand-globs -o $out $P"
rm -rf "$out"
mkdir -p "$out"
"$C" build --target all --expand-globs -o "$out" "$P"
ls -l "$out"

step "confpol explain: who decides a write to .claude/settings.json?"
"$C" explain "$P" write '${PROJECT}/.claude/settings.json'
step "confpol explain: a force-push"
"$C" explain "$P" gate 'git push --force origin main'

step "confpol run: a shell confined by $P in a scratch project"
proj=$(mktemp -d)
trap 'rm -rf "$proj"' EXIT
mkdir -p "$proj/.claude/hooks" "$proj/src"
echo '{}' > "$proj/.claude/settings.json"
set +e
"$C" run -D PROJECT="$proj" "$P" -- /bin/sh -c '
    echo "print(1)" > "$0/src/main.py" && echo "write src/main.py: allowed"
    if (echo "{}" > "$0/.claude/settings.json") 2>/dev/null; then
        echo "write .claude/settings.json: ALLOWED (unexpected)"; exit 1
    else
        echo "write .claude/settings.json: denied"
    fi' "$proj"
rc=$?
set -e
if [ $rc -eq 126 ]; then
    echo "(this machine cannot enforce the sandbox: see the message above)"
elif [ $rc -ne 0 ]; then
    exit $rc
fi

#!/bin/sh
# SPDX-License-Identifier: MIT
# Replays every input under tests/fuzz/regressions/ through the shipped
# binaries (see tests/fuzz/regressions/README.md): each run must end with a
# normal exit status (no signal, no sanitizer report in an ASan build, no
# hang past 10 s).
set -u
: "${CONFPOL:?}" "${TOP:?}"
reg="$TOP/tests/fuzz/regressions"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
fail=0 n=0

# run WHAT ALLOWED-STATUSES CMD...: runs CMD (stdin from $tmp/stdin).
run() {
    what=$1 ok=$2
    shift 2
    timeout -s KILL 10 "$@" <"$tmp/stdin" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    n=$((n + 1))
    case " $ok " in
    *" $rc "*) ;;
    *)
        fail=1
        echo "FAIL: $what: exit $rc (allowed: $ok)"
        head -c 2000 "$tmp/err"
        ;;
    esac
}
: >"$tmp/stdin"

for f in "$reg"/compile/*; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    mkdir -p "$tmp/c" "$tmp/out-$name"
    cp "$f" "$tmp/c/$name.confpol"
    run "check $name" "0 1" "$CONFPOL" check "$tmp/c/$name.confpol"
    run "fmt $name" "0 1" "$CONFPOL" fmt "$tmp/c/$name.confpol"
    run "build $name" "0 1" "$CONFPOL" build --target all -o "$tmp/out-$name" \
        "$tmp/c/$name.confpol"
done

# The gate hook against a fixed policy: any input gets an answer (0) or a
# fail-closed block (2), never a crash.
cat >"$tmp/gate.confpol" <<'EOF'
# fixed policy for the gate regression inputs
confpol 1
profile confined
gate deny "git push --force *"
gate ask re"curl[^|]*[|][[:space:]]*sh"
EOF
for f in "$reg"/gate/*; do
    [ -f "$f" ] || continue
    cp "$f" "$tmp/stdin"
    run "gate $(basename "$f")" "0 2" "$CONFPOL" gate "$tmp/gate.confpol"
done
: >"$tmp/stdin"

# install/verify with each input as the live settings file.
art=""
for f in "$reg"/settings/*; do
    [ -f "$f" ] || continue
    if [ -z "$art" ]; then
        mkdir -p "$tmp/art"
        "$CONFPOL" build --target claude -o "$tmp/art" "$tmp/gate.confpol" \
            >/dev/null 2>&1 || { echo "FAIL: cannot build the artifact"; exit 1; }
        art="$tmp/art/gate.claude.json"
    fi
    cp "$f" "$tmp/settings.json"
    run "install $(basename "$f")" "0 1 2" "$CONFPOL" install --claude "$tmp/settings.json" "$art"
    run "verify $(basename "$f")" "0 1 2" "$CONFPOL" verify --claude "$tmp/settings.json" "$tmp/gate.confpol"
done

for f in "$reg"/artifact/*; do
    [ -f "$f" ] || continue
    run "confpol-run $(basename "$f")" "125 126" "$CONFPOL_RUN" "$f" -- /bin/true
done

echo "fuzz regressions: $n runs"
exit $fail

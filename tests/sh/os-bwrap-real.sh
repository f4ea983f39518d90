#!/bin/sh
# The bwrap lowering applied with the real bwrap: carve-outs are read-only,
# their ancestors cannot be renamed (pins, and read-only pins buried under a
# later write root when a param places them there), masks hide, writes
# outside the roots fail, net deny cuts the network.  Two bindings: ~ outside
# ${PROJECT}, and ${PROJECT} = ~ (the case the read-only pins exist for).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v bwrap >/dev/null || { echo "bwrap missing"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
bwrap --ro-bind / / --unshare-user --disable-userns true 2>/dev/null ||
    { echo "bwrap cannot create a sandbox here"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
# The host must have a network interface besides lo for the net check.
[ "$(grep -c : /proc/net/dev)" -gt 1 ] || { echo "no network interface besides lo"; exit 77; }
cat >"$tmp/p.confpol" <<'P'
confpol 1
profile confined
write ${PROJECT}
deny write ${PROJECT}/.claude/hooks/gate.py ~/.config/x/y
deny read ~/.ssh ~/.netrc
net deny
P
mkdir "$tmp/out"
"$CONFPOL" build --target bwrap -o "$tmp/out" "$tmp/p.confpol" 2>"$tmp/err" ||
    { cat "$tmp/err"; exit 1; }

run() { # HOME PROJECT SCRIPT: runs SCRIPT in the sandbox, prints results
    h=$1 p=$2
    python3 "$TOP/tests/golden/osmodel.py" bwrap-argv "$tmp/out/p.bwrap" \
        "HOME=$h" "PROJECT=$p" >"$tmp/argv" || return 1
    python3 - "$tmp/argv" "$3" <<'PY'
import subprocess, sys
argv = open(sys.argv[1], 'rb').read().split(b'\0')[:-1]
r = subprocess.run([b'bwrap'] + argv + [b'--', b'sh', b'-c', sys.argv[2].encode()])
sys.exit(r.returncode)
PY
}
setup() { # HOME PROJECT
    mkdir -p "$1/.config/x/y" "$1/.config/confpol" "$1/.ssh" "$2/.claude/hooks" "$2/src"
    echo secret >"$1/.ssh/id"; echo machine >"$1/.netrc"
    echo gate >"$2/.claude/hooks/gate.py"
}
check() { # HOME PROJECT LABEL
    h=$1 p=$2
    out=$(run "$h" "$p" "
        try() { if \"\$@\" 2>/dev/null; then echo \"allowed: \$*\"; else echo \"denied: \$*\"; fi; }
        try sh -c 'echo x > \"$p/src/a.c\"'
        try sh -c 'echo x > \"$p/.claude/hooks/gate.py\"'
        try mv \"$p/.claude/hooks\" \"$p/.claude/h2\"
        try mv \"$p/.claude\" \"$p/.c2\"
        try sh -c 'echo x > \"$h/.config/x/y/f\"'
        try mv \"$h/.config/x\" \"$h/.config/x2\"
        try mv \"$h/.config\" \"$h/.c2\"
        try cat \"$h/.ssh/id\"
        try cat \"$h/.netrc\"
        try sh -c 'echo x > \"$tmp/outside\"'
        try sh -c '[ \$(grep -c : /proc/net/dev) -gt 1 ]'
    ") || { echo "FAIL: $3: the sandbox did not start"; fail=1; return; }
    want="allowed: sh -c echo x > \"$p/src/a.c\""
    printf '%s\n' "$out" | grep -qxF "$want" ||
        { echo "FAIL: $3: writing the project was denied"; fail=1; }
    n=$(printf '%s\n' "$out" | grep -c '^allowed:')
    if [ "$n" -ne 1 ]; then
        echo "FAIL: $3: expected only the project write to succeed:"
        printf '%s\n' "$out" | sed 's/^/    /'
        fail=1
    fi
}
setup "$tmp/h1" "$tmp/h1/proj"
check "$tmp/h1" "$tmp/h1/proj" "~ outside the project"
setup "$tmp/h2" "$tmp/h2"
check "$tmp/h2" "$tmp/h2" "project = ~"
[ -f "$tmp/outside" ] && { echo "FAIL: a write outside the roots reached the host"; fail=1; }
exit $fail

#!/bin/sh
# Rules that look as if they grant something take effect: 'write DIR/**'
# names exactly what 'write DIR' names (spec/patterns.md), so no target
# drops it as a glob it cannot mount, and under run the directory is
# writable; an exec entry that is a symbolic link names the program it
# runs, and --fidelity says that the target may then run under any name.
set -u
: "${CONFPOL:?}"
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
fail() { echo "not ok - $*"; exit 1; }
mkdir -p home/go/pkg/mod proj out
export HOME="$w/home"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\nwrite ~/go/pkg/mod/**\n' >g.confpol
out=$("$CONFPOL" build --target all -Werror -o out g.confpol 2>&1); rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] || fail "build -Werror of 'write ~/go/pkg/mod/**': exit $rc: $out"
v=$(cd proj && "$CONFPOL" explain ../g.confpol write "$HOME/go/pkg/mod/x" | head -1)
[ "$v" = allow ] || fail "explain: $v"
echo "ok - 'write DIR/**' is granted as 'write DIR' by every target"
if command -v bwrap >/dev/null 2>&1; then
    out=$(cd proj && timeout 60 "$CONFPOL" run -q ../g.confpol -- \
        sh -c 'echo x >"$HOME/go/pkg/mod/f" && echo wrote' 2>&1)
    case $out in *wrote*) ;; *) fail "run could not write beneath ~/go/pkg/mod: $out" ;; esac
    [ -f home/go/pkg/mod/f ] || fail "the write did not reach the directory"
    echo "ok - under run the directory is writable"
fi
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\nexec /usr/bin/python3 /usr/lib\n' >e.confpol
"$CONFPOL" build --target bwrap --fidelity -o out e.confpol >fid.txt 2>/dev/null ||
    fail "build --fidelity"
for t in bwrap landlock; do
    grep "exec /usr/bin/python3	$t	" fid.txt | grep -q 'symbolic link grants the program it resolves to at launch, which may then run under any name' ||
        fail "--fidelity ($t) does not say what a symlinked exec entry grants: $(cat fid.txt)"
done
echo "ok - --fidelity says a symlinked exec entry grants its target under any name"

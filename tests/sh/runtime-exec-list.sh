#!/bin/sh
# The Linux exec allow-list tells the truth: the ELF loader runs any
# readable file ('ld.so /usr/bin/id'), so the build warns (CP0714), the
# fidelity table rates the exec rules "not enforced" and the launch says
# so; an exec entry that is a symlink (a repository's planted
# `node_modules/.bin -> /`) grants nothing, with a warning.
set -u
: "${CONFPOL:?}" "${CONFPOL_RUN:?}" "${TOP:?}"
command -v bwrap >/dev/null || { echo "bwrap missing"; exit 77; }
bwrap --ro-bind / / --unshare-user --disable-userns true 2>/dev/null ||
    { echo "bwrap cannot create a sandbox here"; exit 77; }
[ "$("$CONFPOL_RUN" --check 2>&1 | grep -c 'landlock: ABI')" -ge 1 ] ||
    { echo "Landlock unavailable"; exit 77; }
tmp=$(mktemp -d) || exit 1
tmp=$(cd "$tmp" && pwd -P)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ldso=$(for f in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2; do
    [ -e "$f" ] && readlink -f "$f" && break; done)
[ -n "$ldso" ] || { echo "no ELF loader found"; exit 77; }

mkdir -p "$tmp/proj/tools" "$tmp/out"
ln -s /usr/bin "$tmp/proj/tools/bin"
cat >"$tmp/proj/p.confpol" <<'P'
confpol 1
profile confined
write ${PROJECT}
exec /usr/bin/sh /usr/bin/dash /usr/bin/true ${PROJECT}/tools/bin
P
cd "$tmp/proj" || exit 1
"$CONFPOL" build --target bwrap -o "$tmp/out" p.confpol 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
grep -q 'CP0714' "$tmp/err" || bad "build: no CP0714 warning: $(cat "$tmp/err")"
"$CONFPOL" build --target bwrap --fidelity -o "$tmp/out" p.confpol >"$tmp/fid" 2>&1
grep -q "not enforced" "$tmp/fid" || bad "--fidelity rates the exec list as enforced: $(cat "$tmp/fid")"

# The loader runs /usr/bin/id although it is not on the list: the rating
# above is the truth, and the launch says so.
out=$(timeout 60 "$CONFPOL_RUN" "$tmp/out/p.bwrap" -- /usr/bin/sh -c "$ldso /usr/bin/id -u" 2>&1)
case $out in *"not fully enforced"*) ;; *) bad "launch: no warning about the loader: $out" ;; esac
# id itself is not on the list.
timeout 60 "$CONFPOL_RUN" "$tmp/out/p.bwrap" -- /usr/bin/sh -c '/usr/bin/id -u' >/dev/null 2>&1 &&
    bad "/usr/bin/id ran although it is not on the list"
# A symlinked entry outside the write roots names the program it runs: the
# target is granted (Debian's /usr/bin/python3 -> python3.11).
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\nexec /usr/bin/python3 /bin/sh /usr/bin/dash\n' >"$tmp/py.confpol"
if [ -L /usr/bin/python3 ] && [ -L /bin/sh ]; then
    out=$(cd "$tmp/proj" && timeout 60 "$CONFPOL" run -q "$tmp/py.confpol" -- /usr/bin/python3 -c 'print("PY-RAN")' 2>&1)
    case $out in *PY-RAN*) ;; *) bad "exec /usr/bin/python3 (a system symlink) does not run: $out" ;; esac
    out=$(cd "$tmp/proj" && timeout 60 "$CONFPOL" run -q "$tmp/py.confpol" -- /bin/sh -c '/usr/bin/id -u && echo ID-RAN' 2>&1)
    case $out in *ID-RAN*) bad "a symlinked entry granted more than its target: $out" ;; esac
fi
# The symlinked entry in a write root grants nothing, and the launch says so.
out=$(timeout 60 "$CONFPOL_RUN" "$tmp/out/p.bwrap" -- /usr/bin/sh -c "$tmp/proj/tools/bin/id -u && echo RAN" 2>&1)
case $out in *RAN*) bad "a symlinked exec entry granted its target: $out" ;; esac
case $out in *"passes through the symlink"*"in a writable directory"*"not granted"*) ;; *) bad "no warning for the symlinked exec entry: $out" ;; esac
exit $fail

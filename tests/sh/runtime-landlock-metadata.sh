#!/bin/sh
# `deny read` under the Landlock enforcer (spec/runtime.md §12.2): Landlock
# withholds reading and listing only; stat, access, readlink, getxattr and
# inotify still work inside a denied directory.  So the launch is refused
# (126, nothing run) unless the user allows it with --allow-unenforced, and
# then a warning says what leaks; `build --fidelity` rates the rule `not
# enforced` (partially) for the landlock target; bwrap hides the metadata.
# Exit 77 when Landlock is unavailable.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
CONFPOL=${CONFPOL:-$TOP/build/confpol}
MK="python3 $TOP/tests/runtime/mkartifact.py"
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
"$RUN" --check | grep -q '^landlock: ABI' || { echo "Landlock is unavailable"; exit 77; }

T=$(mktemp -d /var/tmp/confpol-meta.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
H=$T/home
mkdir -p "$H/.ssh"
echo KEY > "$H/.ssh/id_rsa"; ln -s /etc/hostname-of-the-key "$H/.ssh/link"
chmod 755 "$T" "$H"
printf "profile confined\nfail closed\nparam HOME\narg --ro-bind\narg /\narg /\narg --cap-drop\narg ALL\nmask HOME /.ssh\n" > "$T/a.txt"
$MK "$T/a.txt" "$T/a.bwrap" || exit 1

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# Refused by default: nothing runs.

"$RUN" --enforcer landlock -q -D HOME="$H" "$T/a.bwrap" -- sh -c "echo RAN; stat '$H/.ssh/id_rsa'" \
    >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 126 ] && ! grep -q RAN "$T/out" && ok "a deny read is refused under Landlock (126, nothing run)" ||
    bad "deny read under Landlock: exit $rc, out: $(cat "$T/out"): $(cat "$T/err")"
grep -q "cannot enforce with Landlock: deny read '$H/.ssh': .*stat (size, times, owner, mode), access, readlink (symlink targets), getxattr and listxattr (extended attributes) and inotify (names of entries created, changed or removed).*refusing to run (use --allow-unenforced" "$T/err" &&
    ok "the refusal says what would leak and how to run anyway" || bad "refusal text: $(cat "$T/err")"
"$RUN" --enforcer landlock --dry-run -D HOME="$H" "$T/a.bwrap" -- true >"$T/out" 2>&1; rc=$?
[ $rc = 126 ] && ok "--dry-run: the status a launch would have (126)" || bad "--dry-run: exit $rc"

# Allowed explicitly: runs, says so, and the leak is what the warning says.
"$RUN" --enforcer landlock -q --allow-unenforced -D HOME="$H" "$T/a.bwrap" -- \
    sh -c "stat -c %s '$H/.ssh/id_rsa'; readlink '$H/.ssh/link'; cat '$H/.ssh/id_rsa'" >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] && ! grep -q KEY "$T/out" && ok "--allow-unenforced: the contents stay unreadable" ||
    bad "contents: exit $rc: $(cat "$T/out")"
grep -qx 4 "$T/out" && grep -qx /etc/hostname-of-the-key "$T/out" &&
    ok "--allow-unenforced: the size and the link target leak, as announced" ||
    bad "the leak is not what is announced: $(cat "$T/out")"
grep -q "warning: not enforced: deny read '$H/.ssh': .*metadata is not hidden.* (--allow-unenforced)" "$T/err" &&
    ok "--allow-unenforced: a warning names it (-q does not silence it)" || bad "warning: $(cat "$T/err")"

# bwrap hides it.
if command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --unshare-user true 2>/dev/null; then
    "$RUN" --enforcer bwrap -q -D HOME="$H" "$T/a.bwrap" -- sh -c "stat '$H/.ssh/id_rsa' || readlink '$H/.ssh/link'" \
        >"$T/out" 2>&1; rc=$?
    [ $rc != 0 ] && ! grep -q hostname-of "$T/out" && ok "bwrap: neither the size nor the link leaks" ||
        bad "bwrap: exit $rc: $(cat "$T/out")"
fi

# The fidelity row of the landlock target says the same.
mkdir -p "$T/b"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny read ${HOME}/.ssh\n' > "$T/p.confpol"
"$CONFPOL" build --target bwrap --fidelity -o "$T/b" "$T/p.confpol" > "$T/fid" 2>/dev/null
grep 'deny read ${HOME}/.ssh	landlock	' "$T/fid" > "$T/row"
grep -q '	landlock	not enforced by this target	partially: contents and listing denied .*its metadata is not hidden: stat (size, times, owner, mode), access, readlink (symlink targets), getxattr and listxattr (extended attributes) and inotify' "$T/row" &&
    ok "build --fidelity: landlock rates deny read not enforced (partially), naming what leaks" ||
    bad "fidelity row: $(cat "$T/row")"
grep -q 'deny read ${HOME}/.ssh	bwrap	stricter' "$T/fid" && ok "build --fidelity: bwrap's row is its own (stricter)" ||
    bad "bwrap row: $(grep 'deny read' "$T/fid")"
echo "1..$n"
[ $fails = 0 ]

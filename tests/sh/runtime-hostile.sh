#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile runtime inputs for confpol-run, end to end with the real bwrap
# (complements tests/sh/runtime-deny.sh):
#   - artifacts truncated at every record boundary and at odd offsets, with
#     bytes flipped, and re-sealed with a valid trailer around bad records:
#     always exit 125, the command never runs, also with --allow-unenforced
#     and under 'fail open';
#   - artifact paths that are not regular files (directory, FIFO, device):
#     refused at once, never a hang;
#   - hostile -D values (empty, relative, '..', trailing '/', '//', a file,
#     missing, a symlink pointing outside, control characters, duplicates,
#     a value that looks like an option), an unknown --enforcer: exit 125;
#   - symlinks: a write root that is a symlink pointing outside and a deny
#     target reached through a symlinked ancestor never let a write or read
#     through; hard links to protected files cannot be made inside.
# Exit 77 (skip) when bwrap or user namespaces are missing.
set -u
: "${TOP:?}"
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
command -v bwrap >/dev/null 2>&1 || { echo "bwrap is not installed"; exit 77; }
bwrap --ro-bind / / --unshare-user true 2>/dev/null ||
    { echo "bwrap cannot create namespaces here"; exit 77; }
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }

T=$(mktemp -d /var/tmp/confpol-rth.XXXXXX) || exit 2
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
P=$T/proj H=$T/home O=$T/outside
mkdir -p "$P" "$H" "$O" "$T/real"
echo SECRET >"$H/secret.txt"
echo REAL >"$T/real/secret"
chmod 755 "$T"
n=0 fails=0
ok() { n=$((n + 1)); }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# The command leaves a mark if it ever runs (outside any sandbox it can
# write to $T; inside one it may not, so also check the exit status).
MARK=$T/ran
# refused DESC CMD...: exit 125 within 10 s, and the command did not run.
refused() {
    d=$1
    shift
    rm -f "$MARK"
    timeout -s KILL 10 "$@" >"$T/out" 2>&1
    rc=$?
    if [ $rc -ne 125 ]; then
        bad "$d: exit $rc, want 125: $(head -c 300 "$T/out")"
    elif [ -e "$MARK" ]; then
        bad "$d: exit 125 but the command ran"
    elif ! grep -q '^confpol-run: ' "$T/out"; then
        bad "$d: no 'confpol-run:' message"
    else
        ok
    fi
}

# ---- a valid artifact, its records, and corruptions of it ---------------------
cat >"$T/a.txt" <<EOT
profile confined
fail closed
param PROJECT
param HOME
arg --ro-bind
arg /
arg /
arg --dev
arg /dev
arg --proc
arg /proc
bind PROJECT ''
mask HOME /secret.txt
EOT
sed 's/^fail closed$/fail open/' "$T/a.txt" >"$T/open.txt"
$MK "$T/a.txt" "$T/a.bwrap" "$T/open.txt" "$T/open.bwrap" || exit 2
D="-D PROJECT=$P -D HOME=$H"
# shellcheck disable=SC2086
"$RUN" $D "$T/a.bwrap" -- sh -c "echo ok > '$P/probe'" >"$T/out" 2>&1
[ "$(cat "$P/probe" 2>/dev/null)" = ok ] ||
    { echo "the valid artifact does not run: $(cat "$T/out")"; exit 1; }
rm -f "$P/probe"

python3 - "$T" <<'EOF'
import hashlib, os, sys
T = sys.argv[1]
a = open(os.path.join(T, 'a.bwrap'), 'rb').read()
o = open(os.path.join(T, 'open.bwrap'), 'rb').read()
out = []
def put(name, data):
    with open(os.path.join(T, 'bad-' + name + '.bwrap'), 'wb') as f:
        f.write(data)
    out.append(name)
# Truncations: at every field boundary and at odd offsets in between.
bounds = [i + 1 for i, b in enumerate(a) if b == 0][:-1]
for k in bounds:
    put('cut%04d' % k, a[:k])
for k in range(1, len(a), 13):
    put('cut%04d' % k, a[:k])
put('empty', b'')
# Single bytes changed: every 5th byte, also in the fail-open artifact.
for k in range(0, len(a), 9):
    b = bytearray(a); b[k] ^= 0x20; put('flip%04d' % k, bytes(b))
for k in range(0, len(o), 11):
    b = bytearray(o); b[k] ^= 0x01; put('openflip%04d' % k, bytes(b))
# Data after the trailer, a second trailer, a duplicated record.
put('trailing', a + b'x\0')
put('twice', a + a)
# Re-sealed with a valid trailer around bad records.
def seal(recs):
    body = b''.join(f.encode() + b'\0' for r in recs for f in r)
    d = hashlib.sha256(body).hexdigest()
    return body + b'end\0' + str(len(recs)).encode() + b'\0' + d.encode() + b'\0'
H = ['confpol-bwrap', '1']
base = [H, ['profile', 'confined'], ['fail', 'closed'], ['param', 'PROJECT'],
        ['arg', '--ro-bind'], ['arg', '/'], ['arg', '/']]
cases = {
    'version2': [['confpol-bwrap', '2']] + base[1:],
    'noheader': base[1:],
    'twoheaders': base + [H],
    'unknowntag': base + [['mount', '/', '/']],
    'badprofile': [H, ['profile', 'cooperative']] + base[2:],
    'badfail': [H, base[1], ['fail', 'maybe']] + base[3:],
    'relrest': base + [['bind', 'PROJECT', 'sub']],
    'dotdot': base + [['bind', 'PROJECT', '/../..']],
    'dot': base + [['ro', '', '/etc/./passwd']],
    'emptyseg': base + [['mask', '', '/etc//shadow']],
    'trailslash': base + [['bind', '', '/var/tmp/']],
    'undeclared': base + [['bind', 'DATA', '/x']],
    'badparam': [H, ['param', 'A-B']] + base[1:],
    'dupparam': base + [['param', 'PROJECT']],
    'argcmd': base + [['arg', '--'], ['arg', '/bin/sh']],
    'arglack': base + [['arg', '--tmpfs']],
    'argunknown': base + [['arg', '--seccomp'], ['arg', '0']],
    'arguserns': base + [['arg', '--userns'], ['arg', '3']],
    'argnewline': base + [['arg', '--chdir\n--bind'], ['arg', '/']],
}
for name, recs in cases.items():
    put('sealed-' + name, seal(recs))
with open(os.path.join(T, 'bad.list'), 'w') as f:
    f.write('\n'.join(out) + '\n')
EOF
[ -s "$T/bad.list" ] || { echo "cannot write the corrupted artifacts"; exit 1; }
nbad=0
while IFS= read -r b; do
    nbad=$((nbad + 1))
    # shellcheck disable=SC2086
    refused "artifact $b" "$RUN" $D "$T/bad-$b.bwrap" -- sh -c "touch '$MARK'"
    case $b in
    cut0[0-9]*[05] | sealed-* | flip00[0-9]0 | openflip*)
        # shellcheck disable=SC2086
        refused "artifact $b with --allow-unenforced" \
            "$RUN" --allow-unenforced $D "$T/bad-$b.bwrap" -- sh -c "touch '$MARK'" ;;
    esac
done <"$T/bad.list"

# ---- artifact paths that are not regular files ---------------------------------
mkdir "$T/dir.bwrap"
mkfifo "$T/fifo.bwrap"
ln -s "$T/fifo.bwrap" "$T/link-to-fifo.bwrap"
for p in "$T/dir.bwrap" "$T/fifo.bwrap" "$T/link-to-fifo.bwrap" /dev/zero /dev/null \
    "$T/missing.bwrap" /proc/self/environ; do
    # shellcheck disable=SC2086
    refused "artifact path $p" "$RUN" $D "$p" -- sh -c "touch '$MARK'"
    # refused for what it is, before a byte is read (a device would be read
    # up to the size limit, a FIFO as an empty artifact)
    case $p in
    */missing.bwrap | /proc/*) ;;
    *) grep -q "^confpol-run: '$p' is not a regular file$" "$T/out" && ok ||
        bad "artifact path $p: the reason: $(head -c 300 "$T/out")" ;;
    esac
done
# A file that says it is empty and is not (procfs) is read to its end, not
# refused as too large at its stated size: its bytes are judged.
"$RUN" $D /proc/self/status -- true >"$T/out" 2>&1
grep -q "^confpol-run: '/proc/self/status': invalid artifact: truncated" "$T/out" && ok ||
    bad "an artifact whose size is stated 0: $(head -c 300 "$T/out")"

# ---- hostile -D values -----------------------------------------------------------
echo file >"$T/afile"
ln -s "$O" "$T/link-out"
mkdir -p "$T/--bind"
for v in "" "proj" "$P/" "$P/." "$P/../proj" "/$P" "$T//proj" "$T/afile" "$T/nonexistent" \
    "$T/link-out" "/proc/self/cwd" "$P
/etc" "$P	x" "$(printf '%s\033[2J' "$P")" "$(printf '/%05000d' 0)"; do
    refused "-D PROJECT='$(printf '%s' "$v" | head -c 60 | tr '\n\t\033' '???')'" \
        "$RUN" -D "PROJECT=$v" -D "HOME=$H" "$T/a.bwrap" -- sh -c "touch '$MARK'"
done
refused "-D without '='" "$RUN" -D PROJECT -D "HOME=$H" "$T/a.bwrap" -- sh -c "touch '$MARK'"
refused "-D as the last word" "$RUN" -D
grep -q '^confpol-run: -D needs NAME=VALUE$' "$T/out" && ok || bad "-D as the last word: $(head -c 200 "$T/out")"
refused "-D with an empty name" "$RUN" -D "=$P" -D "HOME=$H" "$T/a.bwrap" -- sh -c "touch '$MARK'"
refused "-D of the same name twice" \
    "$RUN" -D "PROJECT=$P" -D "PROJECT=$O" -D "HOME=$H" "$T/a.bwrap" -- sh -c "touch '$MARK'"
refused "-D with a bad name" "$RUN" -D "A-B=$P" -D "PROJECT=$P" -D "HOME=$H" "$T/a.bwrap" -- true
# An enforcer that is none of the three is refused, not taken for auto.
# shellcheck disable=SC2086
refused "--enforcer with an unknown name" "$RUN" --enforcer bwrapp $D "$T/a.bwrap" -- sh -c "touch '$MARK'"
# shellcheck disable=SC2086
refused "--enforcer= with an empty name" "$RUN" --enforcer= $D "$T/a.bwrap" -- sh -c "touch '$MARK'"
# An unknown option is named as one (not taken for the artifact); a lone
# '-' is an operand.
# shellcheck disable=SC2086
refused "an unknown option" "$RUN" --enforcerr bwrap $D "$T/a.bwrap" -- sh -c "touch '$MARK'"
grep -q "^confpol-run: unknown option '--enforcerr'" "$T/out" || bad "an unknown option: $(head -c 300 "$T/out")"
# shellcheck disable=SC2086
refused "'-' as the artifact" "$RUN" $D - -- sh -c "touch '$MARK'"
grep -q "unknown option" "$T/out" && bad "'-' as the artifact: taken for an option: $(head -c 300 "$T/out")"
# The option lists' bounds: 64 -D and 64 --keep-fd at most, each named
# (past them a further one would be written beyond its array); --keep-fd
# without its descriptor.
many_d= many_k=
for i in $(seq 0 64); do many_d="$many_d -D A$i=x" many_k="$many_k --keep-fd 3"; done
# shellcheck disable=SC2086
refused "65 -D options" "$RUN" $many_d "$T/a.bwrap" -- sh -c "touch '$MARK'"
grep -q "^confpol-run: too many -D options$" "$T/out" || bad "65 -D options: $(head -c 300 "$T/out")"
exec 3</dev/null
# shellcheck disable=SC2086
refused "65 --keep-fd options" "$RUN" $many_k $D "$T/a.bwrap" -- sh -c "touch '$MARK'"
exec 3<&-
grep -q "^confpol-run: --keep-fd needs a descriptor (at most 64)$" "$T/out" ||
    bad "65 --keep-fd options: $(head -c 300 "$T/out")"
refused "--keep-fd without its descriptor" "$RUN" --keep-fd
grep -q "^confpol-run: --keep-fd needs a descriptor (at most 64)$" "$T/out" ||
    bad "--keep-fd without its descriptor: $(head -c 300 "$T/out")"
# A directory whose name looks like an option is an ordinary path.
# shellcheck disable=SC2086
"$RUN" -D "PROJECT=$T/--bind" -D "HOME=$H" "$T/a.bwrap" -- sh -c "echo x > '$T/--bind/f'" >"$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -f "$T/--bind/f" ] && ok || bad "-D PROJECT=$T/--bind: exit $rc: $(head -c 300 "$T/out")"

# ---- symlinks --------------------------------------------------------------------
# A write root that is a symlink pointing outside: the write must not land
# outside (refusing to run is fine too).
ln -s "$O" "$P/wlink"
cat >"$T/w.txt" <<EOT
profile confined
fail closed
param PROJECT
arg --ro-bind
arg /
arg /
arg --dev
arg /dev
bind PROJECT /wlink
EOT
$MK "$T/w.txt" "$T/w.bwrap"
"$RUN" -D "PROJECT=$P" "$T/w.bwrap" -- sh -c "echo x > '$O/through-root'; echo y > '$P/wlink/through-link'" >"$T/out" 2>&1
rc=$?
if [ -e "$O/through-root" ] || [ -e "$O/through-link" ]; then
    bad "a write root that is a symlink let a write land outside (exit $rc)"
else
    ok
fi

# A deny-read target behind a symlinked ancestor: both spellings denied.
ln -s "$T/real" "$H/cfg"
cat >"$T/r.txt" <<EOT
profile confined
fail closed
param HOME
arg --ro-bind
arg /
arg /
arg --dev
arg /dev
mask HOME /cfg/secret
EOT
$MK "$T/r.txt" "$T/r.bwrap"
"$RUN" -D "HOME=$H" "$T/r.bwrap" -- sh -c "cat '$H/cfg/secret'; cat '$T/real/secret'" >"$T/out" 2>&1
if grep -q REAL "$T/out"; then
    bad "a deny-read target behind a symlinked ancestor was read: $(head -c 200 "$T/out")"
else
    ok
fi

# A symlink in the write root to a deny-read file reads nothing; a hard link
# to a protected file cannot be made inside the sandbox.
ln -s "$H/secret.txt" "$P/leak"
"$RUN" $D "$T/a.bwrap" -- sh -c "cat '$P/leak'; ln '$H/secret.txt' '$P/hard' && cat '$P/hard'" >"$T/out" 2>&1
if grep -q SECRET "$T/out" || [ -e "$P/hard" ]; then
    bad "a link in the write root reached the deny-read file: $(head -c 200 "$T/out")"
else
    ok
fi
rm -f "$P/leak" "$P/hard"

# small NAME RECORD...: $T/NAME.bwrap, confined and failing closed, with /
# read-only and /dev beneath the given records.
small() {
    name=$1
    shift
    printf '%s\n' 'profile confined' 'fail closed' 'arg --ro-bind' 'arg /' 'arg /' \
        'arg --dev' 'arg /dev' "$@" >"$T/$name.txt"
    $MK "$T/$name.txt" "$T/$name.bwrap"
}
# cannot DESC ENFORCER NAME PATTERN: $T/NAME.bwrap is refused with 126, the
# command never runs, and the output holds PATTERN (grep).
cannot() {
    "$RUN" --enforcer "$2" "$T/$3.bwrap" -- sh -c "touch '$MARK'" >"$T/out" 2>&1
    rc=$?
    if [ $rc = 126 ] && [ ! -e "$MARK" ] && grep -q "$4" "$T/out"; then
        ok
    else
        bad "$2: $1: exit $rc: $(head -c 300 "$T/out")"
    fi
}
have_landlock=
"$RUN" --check 2>/dev/null | grep -q '^landlock: ABI [1-9]' && have_landlock=1

# A refusal that names a path of over 2,000 bytes keeps its reason (the
# message keeps its head and its tail, the middle of the path elided):
# a deny target behind a symlink that a session could replace.
long=$(python3 -c "print('/'.join(['d' * 200] * 12))")
mkdir -p "$P/$long/real" && ln -s real "$P/$long/lnk"
small long "bind '' $P" "ro '' $P/$long/lnk/x"
"$RUN" --enforcer bwrap "$T/long.bwrap" -- true >"$T/out" 2>&1
rc=$?
if [ $rc = 126 ] && grep -q "^confpol-run: cannot enforce: deny-write target '$P/ddd.* \.\.\. dd.*/lnk', which lies in a writable directory and could be replaced inside the sandbox" "$T/out" &&
    [ "$(wc -l <"$T/out")" = 1 ]; then
    ok
else
    bad "a refusal naming a long path: exit $rc: $(tail -c 300 "$T/out")"
fi
rm -rf "$P/${long%%/*}"

# A write root whose way runs through a file (ENOTDIR) is one that does not
# exist: nothing is bound, writing there is denied, and the launch runs
# with that said, not refused as unenforceable.
echo f >"$T/plain"
small notdir "bind '' $T/plain/sub"
"$RUN" --enforcer bwrap "$T/notdir.bwrap" -- true >"$T/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "write root '$T/plain/sub' does not exist: writing there is denied" "$T/out"; then
    ok
else
    bad "a write root under a file: exit $rc: $(head -c 300 "$T/out")"
fi
# bwrap: a deny target whose way passes a symlink (in a directory the
# sandbox cannot write) to a missing place in a write root is refused:
# the sandbox could create that place and put the target there.
mkdir -p "$T/dw" "$T/rodir"
ln -s "$T/dw/nowhere" "$T/rodir/dl"
small viadangle "bind '' $T/dw" "ro '' $T/rodir/dl/x"
cannot "a deny target behind a symlink to a missing place" bwrap viadangle \
    "deny-write target '$T/rodir/dl/x': a symlink on its way points to a missing place"
if [ -n "$have_landlock" ]; then
    # Landlock: a deny target whose way meets a dangling symlink is refused
    # (the sandbox could create the link's target and so place the target
    # where no rule protects it).
    mkdir -p "$T/dw"
    ln -s "$T/nowhere" "$T/dw/dl"
    small dangle "bind '' $T/dw" "ro '' $T/dw/dl/x"
    cannot "a deny target behind a dangling symlink" landlock dangle \
        "'$T/dw/dl' is a dangling symlink, which the sandbox could satisfy by creating its target"
    # Landlock: the artifact's --chdir to a directory that is gone refuses;
    # the command never runs elsewhere.
    small cd "bind '' $T/dw" 'arg --chdir' "arg $T/gone"
    cannot "--chdir to a missing directory" landlock cd \
        "cannot change to '$T/gone': No such file or directory"
fi

# A deny glob that matches more than 2,000 paths is refused under both
# enforcers (directory-level rules are the way), never cut to its first
# matches, which would leave the rest writable.
mkdir -p "$T/gw/many"
(cd "$T/gw/many" && seq 1 2001 | sed 's/^/f/' | xargs touch)
small glob "bind '' $T/gw" "roglob '' $T/gw/many/f*"
for e in bwrap ${have_landlock:+landlock}; do
    cannot "a deny glob of 2,001 matches" $e glob "the glob '$T/gw/many/f\*' under '/' matches"
done
rm -rf "$T/gw"

echo "runtime-hostile: $n checks ($nbad corrupted artifacts), $fails failed"
[ $fails -eq 0 ]

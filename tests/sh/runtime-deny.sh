#!/bin/sh
# Real deny tests: confpol-run applies an artifact with the real bwrap and
# the running kernel's Landlock, and every deny is proved by a real
# operation paired with its allowed counterpart (spec/runtime.md).
# Run once per enforcer (ENFORCER=bwrap, ENFORCER=landlock; both when
# unset).  Where the Landlock enforcer is stricter than bwrap (spec/runtime.md
# §12) a check says so ("stricter") and is paired with an allowed one.
# Exit 77 (skip) when no enforcer can run here.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"

if [ -z "${ENFORCER:-}" ]; then
    rc=0 ran=0
    for e in bwrap landlock; do
        ENFORCER=$e sh "$0" > "${TMPDIR:-/tmp}/deny.$$.$e" 2>&1; r=$?
        sed "s/^/[$e] /" "${TMPDIR:-/tmp}/deny.$$.$e"; rm -f "${TMPDIR:-/tmp}/deny.$$.$e"
        case $r in 0) ran=1 ;; 77) ;; *) rc=1 ;; esac
    done
    [ $rc -ne 0 ] && exit 1
    [ $ran -eq 0 ] && { echo "no enforcer can run here"; exit 77; }
    exit 0
fi

[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
"$RUN" --check | grep -q '^landlock: ABI' || { echo "Landlock is unavailable: $("$RUN" --check | grep landlock)"; exit 77; }
if [ "$ENFORCER" = bwrap ]; then
    command -v bwrap >/dev/null 2>&1 || { echo "bwrap is not installed"; exit 77; }
    bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null ||
        { echo "bwrap cannot create namespaces here: $(bwrap --ro-bind / / --unshare-user true 2>&1 | head -n 1)"; exit 77; }
fi
LL=false; [ "$ENFORCER" = landlock ] && LL=true

# Not under /tmp, not under the repository: a throwaway tree.
T=$(mktemp -d /var/tmp/confpol-deny.XXXXXX)
LPID=
cleanup() {
    [ -n "$LPID" ] && kill "$LPID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM
P=$T/proj H=$T/home O=$T/outside
mkdir -p "$P/.git/hooks" "$P/sub/keep" "$P/other" "$P/bin" "$H/.ssh" "$H/pub" "$O" \
         "$T/awsreal"
echo ref > "$P/.git/HEAD"; echo hook > "$P/.git/hooks/pre-commit"
echo keep > "$P/sub/keep/file"; echo del > "$P/deleteme"; echo edit > "$P/edit.txt"
echo KEY > "$H/.ssh/id_rsa"; echo TOKEN > "$H/secret.txt"; echo hello > "$H/public.txt"
echo pub > "$H/pub/readme"; echo AWS > "$T/awsreal/credentials"; ln -s "$T/awsreal" "$H/.aws"
cp /bin/true "$P/bin/mytrue"
chmod 755 "$T" "$H"

cat > "$T/a.txt" <<EOT
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
arg --chdir
arg $P
bind PROJECT ''
pin PROJECT /sub
ro PROJECT /.git
ro PROJECT /sub/keep
ro PROJECT /.claude/settings.local.json
mask PROJECT /.env
mask HOME /.ssh
mask HOME /secret.txt
mask HOME /.aws
mask HOME /.gnupg
exec '' /usr/bin
exec '' /bin
exec '' /usr/local/bin
arg --unshare-net
EOT
cat > "$T/setup.txt" <<EOT
arg --ro-bind
arg /
arg /
arg --ro-bind
arg $T/does-not-exist
arg /mnt
EOT
cat > "$T/setup-open.txt" <<EOT
fail open
arg --ro-bind
arg /
arg /
arg --ro-bind
arg $T/does-not-exist
arg /mnt
EOT
cat > "$T/s.txt" <<EOT
param PROJECT
arg --ro-bind
arg /
arg /
bind PROJECT ''
ro PROJECT /cfg
EOT
# A deny-write target hidden by a later mask of its parent.
cat > "$T/v.txt" <<EOT
param HOME
arg --ro-bind
arg /
arg /
bind HOME ''
ro HOME /.ssh/id_rsa
mask HOME /.ssh
EOT
$MK "$T/a.txt" "$T/a.bwrap" "$T/setup.txt" "$T/setup.bwrap" "$T/setup-open.txt" "$T/setup-open.bwrap" \
    "$T/s.txt" "$T/s.bwrap" "$T/v.txt" "$T/v.bwrap" || exit 1

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
# Landlock cannot hide a deny-read path's metadata: its launches are
# refused without --allow-unenforced (tests/sh/runtime-landlock-metadata.sh).
LLX=; $LL && LLX=--allow-unenforced
run() { "$RUN" --enforcer "$ENFORCER" $LLX -q -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- "$@"; }
RUNE="$RUN --enforcer $ENFORCER $LLX"
# allow DESC SHELL-COMMAND: must succeed inside; deny: must fail inside.
# Checks are queued and run together by `flush`, in one sandbox, each in
# its own subshell; a check counts only when its result line came back
# from inside (so a sandbox that did not start fails every check).
q=0
: > "$T/batch.sh"; : > "$T/kinds"
queue() {
    q=$((q + 1))
    printf '%s\t%s\n' "$1" "$2" >> "$T/kinds"
    printf '( %s ) >/dev/null 2>&1; echo "R %d $?"\n' "$3" "$q" >> "$T/batch.sh"
}
allow() { queue allowed "$1" "$2"; }
deny() { queue denied "$1" "$2"; }
# Allowed by bwrap; denied by the Landlock enforcer, which reports it as
# stricter (no entry can be created, removed or renamed in a directory on
# the way from a write root to a carve-out).
strict() { if $LL; then queue denied "$1 (stricter under Landlock)" "$2"; else queue allowed "$1" "$2"; fi; }
flush() {
    [ $q -eq 0 ] && return
    run sh "$T/batch.sh" >"$T/bout" 2>&1
    i=0
    while IFS='	' read -r kind d; do
        i=$((i + 1))
        rc=$(sed -n "s/^R $i \([0-9]*\)$/\1/p" "$T/bout")
        if [ -z "$rc" ]; then bad "$kind: $d: did not run inside: $(tail -n 3 "$T/bout")"
        elif [ $kind = allowed ] && [ "$rc" = 0 ]; then ok "allowed: $d"
        elif [ $kind = denied ] && [ "$rc" != 0 ]; then ok "denied: $d"
        else bad "$kind: $d (exit $rc)"; fi
    done < "$T/kinds"
    q=0; : > "$T/batch.sh"; : > "$T/kinds"
}
expect_rc() { # DESC WANT CMD...
    d=$1 want=$2; shift 2
    "$@" >"$T/out" 2>&1; rc=$?
    if [ "$rc" = "$want" ]; then ok "$d (exit $rc)"; else bad "$d: exit $rc, want $want: $(head -c 400 "$T/out")"; fi
}

# Write root and outside.
strict "write a new file inside the write root" "echo x > '$P/new.txt'"
allow "write an existing file inside the write root" "echo x >> '$P/edit.txt'"
deny "write outside the write root" "echo x > '$O/f'"
allow "write in a sibling directory of a carve-out" "echo x > '$P/other/f'"
strict "rename a sibling directory" "mv '$P/other' '$P/other2' && mv '$P/other2' '$P/other'"
allow "rename inside a sibling directory" "echo y > '$P/other/r1' && mv '$P/other/r1' '$P/other/r2' && rm '$P/other/r2'"
strict "delete a file in the root" "rm '$P/deleteme'"
strict "write beside a carve-out in a pinned ancestor" "echo x > '$P/sub/free.txt'"
deny "hard-link a carve-out's file into a writable directory and write it" "ln '$P/.git/HEAD' '$P/other/h' && echo x > '$P/other/h'"
deny "rename a prepared file over a carve-out's file" "echo x > '$P/other/evil' && mv '$P/other/evil' '$P/.git/HEAD'"
deny "signal a process outside the sandbox" "kill -0 $$"
allow "signal a process inside the sandbox" "sleep 5 & kill \$!"

# Carve-outs.
deny "write into the carve-out" "echo x > '$P/.git/HEAD'"
deny "create in the carve-out" "echo x > '$P/.git/hooks/post-commit'"
deny "delete in the carve-out" "rm -f '$P/.git/hooks/pre-commit'"
deny "rename the carve-out" "mv '$P/.git' '$P/git-old'"
deny "delete the carve-out" "rm -rf '$P/.git'"
deny "move the carve-out's parent aside" "mv '$P/sub' '$P/sub-old'"
deny "write into the nested carve-out" "echo x > '$P/sub/keep/file'"
flush
[ -f "$P/other/f" ] && ok "the write reached the host" || bad "the write reached the host"
[ ! -e "$O/f" ] && ok "nothing written outside" || bad "nothing written outside"
[ "$(cat "$P/.git/HEAD")" = ref ] && [ -f "$P/.git/hooks/pre-commit" ] && [ -d "$P/sub/keep" ] &&
    ok "carve-outs unchanged on the host" || bad "carve-outs unchanged on the host"

# Deny read.
allow "read a readable file" "cat '$H/public.txt'"
deny "read the deny-read file" "cat '$H/secret.txt'"
allow "list a readable directory" "ls -A '$H/pub' | grep -q readme"
deny "read a file in the deny-read directory" "cat '$H/.ssh/id_rsa'"
deny "list the deny-read directory" "ls -A '$H/.ssh' | grep -q id_rsa"
deny "write into the deny-read directory" "echo x > '$H/.ssh/new'"
deny "read through a symlinked deny-read directory" "cat '$H/.aws/credentials'"
deny "read the symlink's target directly" "cat '$T/awsreal/credentials'"

# Missing deny targets: the command runs, nothing can be created, nothing remains.
allow "the command runs although deny targets are missing" "true"
deny "create the missing deny-write target" "mkdir -p '$P/.claude' && echo x > '$P/.claude/settings.local.json'"
# bwrap: a missing deny-write target is a scratch tmpfs (what is created
# there stays inside; checked on the host below).
strict "create beneath the placeholder (a scratch directory)" "mkdir '$P/.claude/settings.local.json/sub'"
strict "create beside the deny target in its missing directory" "mkdir '$P/.claude/sub' && rmdir '$P/.claude/sub'"
deny "remove the placeholder" "rmdir '$P/.claude/settings.local.json'"
deny "remove the placeholder's directory" "rmdir '$P/.claude'"
deny "rename the placeholder's directory" "mv '$P/.claude' '$P/claude2'"
deny "create the missing deny-read target" "echo x > '$P/.env'"
strict "create a missing path that is not denied" "echo x > '$P/.envrc' && rm '$P/.envrc'"
allow "create a missing path that is not denied in a sibling directory" "echo x > '$P/other/.envrc' && rm '$P/other/.envrc'"
flush
[ ! -e "$P/.claude" ] && [ ! -e "$P/.env" ] && [ ! -e "$H/.gnupg" ] &&
    ok "no placeholder remains on the host" || bad "no placeholder remains: $(ls -A "$P" "$H")"

# Placeholders vanish even when confpol-run is SIGKILLed.  The sleep's
# duration is unique to this run, so that pgrep sees no other test's sleep.
flush
nap="30.$$"
$RUNE -q -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- sleep "$nap" >/dev/null 2>&1 &
rp=$!
if $LL; then
    i=0; while ! pgrep -f "^sleep $nap\$" >/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    flush
    [ ! -e "$P/.claude" ] && ok "nothing is created on the host while the command runs" ||
        bad "nothing is created on the host while the command runs"
else
    i=0; while [ ! -d "$P/.claude" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    flush
    [ -d "$P/.claude" ] && ok "placeholder exists while the command runs" || bad "placeholder exists while the command runs"
fi
kill -9 $rp; wait $rp 2>/dev/null
i=0; while { [ -e "$P/.claude" ] || [ -e "$P/.env" ]; } && [ $i -lt 140 ]; do sleep 0.05; i=$((i + 1)); done
flush
[ ! -e "$P/.claude" ] && [ ! -e "$P/.env" ] && ok "janitor removed placeholders after SIGKILL" ||
    bad "janitor removed placeholders after SIGKILL"
pgrep -f "^sleep $nap\$" >/dev/null && bad "the sandboxed command died with the runtime" ||
    ok "the sandboxed command died with the runtime"

# Exec allow-list.
allow "exec a binary inside the allow-list" "/usr/bin/true"
deny "exec a binary outside the allow-list" "'$P/bin/mytrue'"
expect_rc "exec outside the allow-list as the command" 126 run "$P/bin/mytrue"
flush
expect_rc "command not found" 127 run no-such-command-xyz

# Network: prove the listener is reachable from outside first.
flush
# A listener on 127.0.0.1 for at most 20 s (perl starts fast; IO::Socket is in perl-base).
perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 16,
                                  ReuseAddr => 1) or die "listen: $!";
    open(my $f, ">", "$ARGV[0].tmp") or die; print $f $s->sockport; close $f;
    rename("$ARGV[0].tmp", $ARGV[0]);
    local $SIG{ALRM} = sub { exit 0 }; alarm 20;
    while (my $c = $s->accept) { close $c }' "$T/port" &
LPID=$!
i=0; while [ ! -f "$T/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
PORT=$(cat "$T/port" 2>/dev/null)
CONNECT="exec 3<>/dev/tcp/127.0.0.1/$PORT"
if timeout 5 bash -c "$CONNECT" 2>/dev/null; then ok "listener reachable outside the sandbox"; else bad "listener reachable outside the sandbox"; fi
deny "connect to the host's 127.0.0.1 listener under net deny" "timeout 5 bash -c '$CONNECT'"
allow "a socketpair under net deny" "python3 -c 'import socket; socket.socketpair()'"
if $LL; then
    deny "a UDP socket under net deny" "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)'"
    deny "an SCTP stream socket under net deny" "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 132)'"
fi
kill "$LPID" 2>/dev/null; LPID=

# Symlinks cannot lead a write outside the roots.
deny "write through a symlink in the root pointing outside" "ln -s '$O' '$P/out-link' && echo x > '$P/out-link/f'"
rm -f "$P/out-link"
flush
[ ! -e "$O/f" ] && ok "nothing written through the symlink" || bad "nothing written through the symlink"

# Exit statuses.
flush
expect_rc "the command's exit status passes through" 7 run sh -c 'exit 7'
flush
expect_rc "a signal death gives 128+N" 143 run sh -c 'kill -TERM $$'
printf 'garbage' > "$T/bad.bwrap"
flush
expect_rc "a corrupted artifact is refused" 125 "$RUN" "$T/bad.bwrap" -- true
head -c 100 "$T/a.bwrap" > "$T/trunc.bwrap"
flush
expect_rc "a truncated artifact is refused" 125 "$RUN" -D PROJECT="$P" -D HOME="$H" "$T/trunc.bwrap" -- true
flush
expect_rc "a relative -D value is refused" 125 "$RUN" -D PROJECT=proj -D HOME="$H" "$T/a.bwrap" -- true
flush
expect_rc "a '..' -D value is refused" 125 "$RUN" -D PROJECT="$P/../proj" -D HOME="$H" "$T/a.bwrap" -- true
ln -s "$P" "$T/plink"
flush
expect_rc "a symlinked -D value is refused" 125 "$RUN" -D PROJECT="$T/plink" -D HOME="$H" "$T/a.bwrap" -- true
flush
expect_rc "a -D value with a newline is refused" 125 "$RUN" -D PROJECT="$P
/etc" -D HOME="$H" "$T/a.bwrap" -- true
flush
expect_rc "an unknown -D name is refused" 125 "$RUN" -D NOPE=/ -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- true
if ! $LL; then
flush
expect_rc "bwrap missing: cannot enforce" 126 env PATH=/nonexistent $RUNE -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- /bin/true
grep -q "bubblewrap (bwrap) is not installed" "$T/out" && ok "says bwrap is missing" || bad "says bwrap is missing"
flush
expect_rc "bwrap missing with --allow-unenforced runs unconfined" 0 env PATH=/nonexistent $RUNE --allow-unenforced -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- /bin/true
grep -q "UNCONFINED" "$T/out" && ok "warns it runs unconfined" || bad "warns it runs unconfined"
flush
# Unconfined, a command that is not there is 127 and one that cannot be
# executed 126 (spec/runtime.md §2), as confined.
expect_rc "... a missing command unconfined: 127" 127 env PATH=/nonexistent $RUNE --allow-unenforced -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- "$T/no-such-command"
grep -q "no-such-command: command not found" "$T/out" && ok "... says the command is not found" || bad "... says the command is not found: $(cat "$T/out")"
flush
expect_rc "... a command that cannot be executed unconfined: 126" 126 env PATH=/nonexistent $RUNE --allow-unenforced -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- "$T"
fi
# Landlock unavailable: valgrind answers ENOSYS to the landlock_* system
# calls, as a kernel without Landlock or a filtering container does.
# (Not with a sanitizer build, which valgrind cannot run.)
if command -v valgrind >/dev/null 2>&1 && valgrind --tool=none -q "$RUN" --version >/dev/null 2>&1 && $LL; then
    expect_rc "Landlock unavailable: cannot enforce" 126 \
        valgrind --tool=none -q "$RUN" --enforcer "$ENFORCER" -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- /bin/true
    grep -q "cannot enforce the policy: Landlock is unavailable" "$T/out" && ok "says Landlock is unavailable" ||
        bad "says Landlock is unavailable: $(cat "$T/out")"
    expect_rc "... runs unconfined with --allow-unenforced, and says so" 0 \
        valgrind --tool=none -q $RUNE --allow-unenforced -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- /bin/true
    grep -q "UNCONFINED" "$T/out" && ok "warns it runs unconfined" || bad "warns it runs unconfined: $(cat "$T/out")"
elif command -v valgrind >/dev/null 2>&1 && valgrind --tool=none -q "$RUN" --version >/dev/null 2>&1; then
    expect_rc "Landlock unavailable with exec rules: cannot enforce" 126 \
        valgrind --tool=none -q $RUNE -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- /bin/true
    grep -q "cannot enforce the exec allow-list" "$T/out" && ok "says the exec allow-list cannot be enforced" ||
        bad "says the exec allow-list cannot be enforced: $(cat "$T/out")"
    expect_rc "... runs with --allow-unenforced, bwrap still applied" 9 \
        valgrind --tool=none -q $RUNE --allow-unenforced -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- sh -c "echo x > '$O/f' || exit 9"
    grep -q "exec allow-list NOT enforced" "$T/out" && [ ! -e "$O/f" ] && ok "warns; writes outside still denied" ||
        bad "warns; writes outside still denied: $(cat "$T/out")"
else
    echo "# Landlock-unavailable checks not run: valgrind cannot run $RUN"
fi

# bwrap fails during setup: never mistaken for the command's status.
if ! $LL; then
flush
expect_rc "bwrap setup failure: cannot enforce" 126 $RUNE "$T/setup.bwrap" -- sh -c 'exit 3'
grep -q "bwrap failed before the command started" "$T/out" && grep -q "Can't find source path" "$T/out" &&
    ok "relays bwrap's error and says the command did not start" || bad "relays bwrap's error: $(cat "$T/out")"
flush
expect_rc "bwrap setup failure under 'fail open' runs the command unconfined" 3 $RUNE "$T/setup-open.bwrap" -- sh -c 'exit 3'
grep -q "running sh UNCONFINED ('fail open' in the policy)" "$T/out" && ok "warns about 'fail open'" || bad "warns about 'fail open': $(cat "$T/out")"
fi
flush
expect_rc "a .sb profile needs macOS" 126 "$RUN" "$T/x.sb" -- true

# A deny-write target through a replaceable symlink cannot be enforced.
mkdir -p "$T/real-cfg"; ln -s "$T/real-cfg" "$P/cfg"
flush
if $LL; then
    # Landlock protects the link itself and what it points to: enforced.
    expect_rc "deny-write through a writable symlink: the link cannot be replaced" 9 $RUNE -D PROJECT="$P" "$T/s.bwrap" -- \
        sh -c "rm '$P/cfg' || mv '$P/cfg' '$P/cfg2' || exit 9"
    expect_rc "... nor written through" 9 $RUNE -D PROJECT="$P" "$T/s.bwrap" -- sh -c "echo x > '$P/cfg/f' || exit 9"
    expect_rc "... while the write root stays writable beside it" 0 $RUNE -D PROJECT="$P" "$T/s.bwrap" -- sh -c "echo x >> '$P/edit.txt'"
    [ -L "$P/cfg" ] && [ ! -e "$T/real-cfg/f" ] && ok "the link and its target are unchanged" || bad "the link and its target are unchanged"
else
    expect_rc "deny-write through a writable symlink: cannot enforce" 126 $RUNE -D PROJECT="$P" "$T/s.bwrap" -- true
    flush
    expect_rc "... runs with --allow-unenforced" 0 $RUNE --allow-unenforced -D PROJECT="$P" "$T/s.bwrap" -- true
    grep -q "not enforced" "$T/out" && ok "warns what is not enforced" || bad "warns what is not enforced"
fi
rm "$P/cfg"

# Verification accepts a read-only target hidden by a read-only mask.
expect_rc "read-only target under a mask: verified, runs" 0 $RUNE -D HOME="$H" "$T/v.bwrap" -- sh -c "echo ran-inside"
expect_rc "... and the hidden target stays unwritable" 9 $RUNE -D HOME="$H" "$T/v.bwrap" -- \
    sh -c "echo x > '$H/.ssh/id_rsa' || exit 9"
[ "$(cat "$H/.ssh/id_rsa")" = KEY ] && ok "the key is unchanged on the host" || bad "the key is unchanged on the host"

# SIGTERM reaches the command.  Each case starts from a fresh marker file
# (a stale "ready" would send the signal before the runtime is up), and the
# runtime starts with default dispositions: a background job of a
# non-interactive shell inherits SIGINT ignored, and a signal ignored on entry
# can be neither caught nor trapped, so the case would wait forever.
# timeout --foreground passes the signal to the runtime alone, as a
# terminal's kill of one process would: without it, timeout signals its
# whole process group, and a `sleep` of the loop dying of SIGINT first
# could end the shell by the signal instead of its trap.
# The wait for "ready" is bounded at 30 s: on a loaded machine the command
# can take seconds to start, and a signal sent before its trap is set ends it.
# The trapping command is bash: dash (sh) sometimes dies of a SIGINT it traps
# when the signal lands while it runs its loop's `sleep` (without confpol-run,
# under load: 5 of 40 runs of dash ended by the signal, 0 of 40 of bash).
flush
rm -f "$T/sig"
env --default-signal=TERM,INT timeout --foreground -k 5 60 $RUNE -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- \
    bash -c 'trap "echo got-term; exit 42" TERM; echo ready; while :; do sleep 0.1; done' >"$T/sig" 2>&1 &
rp=$!
i=0; while ! grep -q ready "$T/sig" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $rp
wait $rp; rc=$?
flush
[ $rc = 42 ] && grep -q got-term "$T/sig" && ok "SIGTERM forwarded to the command (exit 42)" ||
    bad "SIGTERM forwarded to the command: exit $rc, $(cat "$T/sig")"

# SIGINT too (a terminal's Ctrl-C reaches the runtime, which forwards it).
flush
rm -f "$T/sig"
env --default-signal=TERM,INT timeout --foreground -k 5 60 $RUNE -D PROJECT="$P" -D HOME="$H" "$T/a.bwrap" -- \
    bash -c 'trap "echo got-int; exit 41" INT; echo ready; while :; do sleep 0.1; done' >"$T/sig" 2>&1 &
rp=$!
i=0; while ! grep -q ready "$T/sig" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $rp
wait $rp; rc=$?
flush
[ $rc = 41 ] && grep -q got-int "$T/sig" && ok "SIGINT forwarded to the command (exit 41)" ||
    bad "SIGINT forwarded to the command: exit $rc, $(cat "$T/sig")"

echo "1..$n"
flush
[ $fails -eq 0 ]

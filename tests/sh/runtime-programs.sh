#!/bin/sh
# The runtime's programs (spec/runtime.md §11.1): the launcher
# (confpol-run), the stage inside the sandbox (confpol-stage) and the
# janitor (confpol-janitor) are separate programs, each linking its own
# code and starting with only the descriptors it needs; the launcher finds
# its helpers next to itself, and a missing or tampered helper refuses the
# launch (125) even under --allow-unenforced, never running unconfined.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
RUN=$B/confpol-run STAGE=$B/confpol-stage JAN=$B/confpol-janitor
CONFPOL=$B/confpol
for f in "$RUN" "$STAGE" "$JAN" "$CONFPOL"; do
    [ -x "$f" ] || { echo "not built: $f"; exit 1; }
done
command -v bwrap >/dev/null 2>&1 || { echo "bwrap is not installed"; exit 77; }
T=$(mktemp -d /var/tmp/confpol-programs.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
chmod 755 "$T"
mkdir -p "$T/out" "$T/proj"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/.git/hooks\n' >"$T/p.confpol"
"$CONFPOL" build --target bwrap -o "$T/out" "$T/p.confpol" >"$T/build.out" 2>&1 ||
    { cat "$T/build.out"; exit 1; }

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# 1. Each program links its own role: the symbols of the others' roles are
# absent (the check can fail: each one's own entry point is looked for).
if command -v nm >/dev/null 2>&1; then
    has() { nm "$1" 2>/dev/null | grep -qE " [Tt] $2\$"; }
    if has "$STAGE" cp_rt_stage_main && ! has "$STAGE" cp_rt_run_bwrap &&
        ! has "$STAGE" cp_rt_artifact_parse && ! has "$STAGE" cp_rt_proxy_start &&
        ! has "$STAGE" cp_ll_plan_build && ! has "$STAGE" cp_rt_janitor_main; then
        ok "confpol-stage links the stage and none of the launcher"
    else bad "confpol-stage links more (or less) than the stage"; fi
    if has "$JAN" cp_rt_janitor_main && ! has "$JAN" cp_rt_run_bwrap &&
        ! has "$JAN" cp_rt_stage_main && ! has "$JAN" cp_rt_artifact_parse; then
        ok "confpol-janitor links the janitor alone"
    else bad "confpol-janitor links more (or less) than the janitor"; fi
    if has "$RUN" cp_rt_run_bwrap && ! has "$RUN" cp_rt_stage_main &&
        ! has "$RUN" cp_rt_janitor_main; then
        ok "confpol-run links neither the stage nor the janitor"
    else bad "confpol-run still holds the stage or the janitor"; fi
fi

# 2. The stage closes every descriptor but its status socket and the
# --keep-fd ones, whatever it was started with: run as bwrap runs it, with
# two stray descriptors (5, 6) and 6 kept, the command sees 0-2 and 6.
# fdlist: prints the descriptors it was started with (as a stand-in
# stage, to stderr, compared with its three arguments).
cat >"$T/fdlist" <<'END'
#!/usr/bin/env python3
import os, sys
probe = os.open("/dev/null", os.O_RDONLY)  # the number listdir's will take
os.close(probe)
fds = sorted(int(f) for f in os.listdir("/proc/self/fd") if int(f) != probe)
if len(sys.argv) < 4:
    print(" ".join(map(str, fds)))
else:
    want = sorted([0, 1, 2] + [int(a) for a in sys.argv[1:4]])
    print("stage-fds", "ok" if fds == want else "bad %s, want %s" % (fds, want), file=sys.stderr)
    sys.exit(1)
END
chmod 755 "$T/fdlist"
out=$(timeout -k 5 30 python3 - "$STAGE" "$T/fdlist" <<'PY'
import os, select, socket, sys
null = os.open("/dev/null", os.O_RDONLY)
for fd in (5, 6):  # first: what follows must not land there
    os.dup2(null, fd)
st, peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
err = os.dup(2)
a = os.memfd_create("stage-args", 0)
os.write(a, b"--keep-fd\0" b"6\0" b"--\0" + sys.argv[2].encode() + b"\0")
os.lseek(a, 0, 0)
for fd in (st.fileno(), err, a, 5, 6):
    os.set_inheritable(fd, True)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(w, 1)
    os.execv(sys.argv[1], [sys.argv[1], str(st.fileno()), str(err), str(a)])
os.close(w)
st.close()
started = peer.recv(64).decode()
# as the launcher: a stage that asks ('W') executes the command once told
out, live = b"", [r, peer]
while r in live:
    ready = select.select(live, [], [], 20)[0]
    if not ready:
        break
    if peer in ready:
        m = peer.recv(64)
        if m == b"W":
            peer.send(b"G")
        elif not m:  # closed on exec
            live.remove(peer)
    if r in ready:
        b = os.read(r, 4096)
        out += b
        if not b:
            live.remove(r)
print(out.decode().strip())
os.waitpid(pid, 0)
print("status:", started)
PY
)
if [ "$out" = "0 1 2 6
status: S" ]; then ok "the stage passes on 0-2 and --keep-fd only"
else bad "the stage passes on other descriptors: $out"; fi

# A copy of the installation: the launcher, its helpers and confpol.
install_copy() {
    rm -rf "$T/bin"; mkdir -p "$T/bin"
    cp "$RUN" "$STAGE" "$JAN" "$CONFPOL" "$T/bin/"
}

# 3. What the stage starts with, seen from a stand-in that lists its own
# descriptors: 0-2 and the three the launcher names (status socket,
# stderr, arguments), nothing else of the launcher's or the caller's.
install_copy
cp "$T/fdlist" "$T/bin/confpol-stage"
line=$(cd "$T/proj" && timeout -k 5 30 python3 -c '
import os, sys
fd = os.open("/etc/hostname", os.O_RDONLY)
os.dup2(fd, 7); os.set_inheritable(7, True)
os.execv(sys.argv[1], sys.argv[1:])' "$T/bin/confpol-run" -q "$T/out/p.bwrap" -- true 2>&1 | grep '^stage-fds')
if [ "$line" = "stage-fds ok" ]; then
    ok "the stage starts with 0-2 and its three descriptors"
else bad "the stage's descriptors: $line"; fi

# 4. The janitor starts with its socket alone (and 0-2): listed while a
# launch that needs a placeholder runs.
install_copy
(cd "$T/proj" && rm -rf .git && timeout -k 5 30 python3 -c '
import os, sys
fd = os.open("/etc/hostname", os.O_RDONLY)
os.dup2(fd, 7); os.set_inheritable(7, True)
os.execv(sys.argv[1], sys.argv[1:])' "$T/bin/confpol-run" -q "$T/out/p.bwrap" -- sleep 4) &
bg=$!
jfds=
i=0
while [ $i -lt 100 ] && kill -0 $bg 2>/dev/null; do
    i=$((i + 1))
    sleep 0.05
    for p in $(pgrep -x confpol-janitor); do
        [ "$(readlink "/proc/$p/exe")" = "$T/bin/confpol-janitor" ] || continue
        jfds=$(cd "/proc/$p/fd" 2>/dev/null && for f in *; do
            printf '%s:%s ' "$f" "$(readlink "$f" | sed 's/:.*//')"; done)
    done
    [ -n "$jfds" ] && break
done
wait $bg
case $jfds in
"0:/dev/null 1:/dev/null 2:"*" 3:socket "|"0:/dev/null 1:/dev/null 2:"*" 3:socket 4:anon_inode ")
    ok "the janitor starts with 0-2 and its socket only" ;;
*) bad "the janitor's descriptors: '$jfds'" ;;
esac
[ ! -e "$T/proj/.git/hooks" ] && ok "the janitor removed its placeholder" ||
    bad "placeholder left behind"

# 5. A missing or tampered helper refuses the launch (125), also under
# --allow-unenforced, and the command never runs.
refuses() { # DESCRIPTION, then the launcher's argv
    what=$1; shift
    rm -f "$T/ran"
    out=$(cd "$T/proj" && timeout -k 5 30 "$@" -- sh -c ": >$T/ran" 2>&1); rc=$?
    if [ $rc = 125 ] && [ ! -e "$T/ran" ] &&
        echo "$out" | grep -q 'helper program .* cannot be used'; then
        ok "$what: refused (125)"
    else bad "$what: exit $rc, ran=$([ -e "$T/ran" ] && echo yes || echo no): $out"; fi
}
for h in confpol-stage confpol-janitor; do
    install_copy; rm "$T/bin/$h"
    refuses "$h missing" "$T/bin/confpol-run" -q "$T/out/p.bwrap"
    refuses "$h missing, --allow-unenforced" "$T/bin/confpol-run" -q --allow-unenforced "$T/out/p.bwrap"
    refuses "$h missing, confpol run" "$T/bin/confpol" run -q "$T/p.confpol"
    install_copy; rm "$T/bin/$h"; ln -s "$B/$h" "$T/bin/$h"
    refuses "$h replaced by a symlink" "$T/bin/confpol-run" -q "$T/out/p.bwrap"
    install_copy; chmod 775 "$T/bin/$h"
    refuses "$h writable by its group" "$T/bin/confpol-run" -q "$T/out/p.bwrap"
    install_copy; chmod 644 "$T/bin/$h"
    refuses "$h not executable" "$T/bin/confpol-run" -q "$T/out/p.bwrap"
    install_copy; rm "$T/bin/$h"; mkdir "$T/bin/$h"
    refuses "$h replaced by a directory" "$T/bin/confpol-run" -q "$T/out/p.bwrap"
done
# A janitor that passes the checks but does not answer (a stand-in that
# exits at once) refuses the launch that needs a placeholder, also under
# --allow-unenforced: placeholders are not optional.
for flags in "-q" "-q --allow-unenforced"; do
    install_copy; cp /bin/true "$T/bin/confpol-janitor"; rm -rf "$T/proj/.git"
    rm -f "$T/ran"
    out=$(cd "$T/proj" && timeout -k 5 30 "$T/bin/confpol-run" $flags "$T/out/p.bwrap" -- sh -c ": >$T/ran" 2>&1); rc=$?
    if [ $rc = 125 ] && [ ! -e "$T/ran" ] && echo "$out" | grep -q 'did not answer'; then
        ok "a janitor that does not answer ($flags): refused (125)"
    else bad "a janitor that does not answer ($flags): exit $rc, ran=$([ -e "$T/ran" ] && echo yes || echo no): $out"; fi
done
# The helpers are found next to the launcher, not on PATH: a stand-in on
# PATH is never run.
install_copy; rm "$T/bin/confpol-stage"
mkdir -p "$T/path"; printf '#!/bin/sh\n: >%s/pathstage\n' "$T" >"$T/path/confpol-stage"
chmod 755 "$T/path/confpol-stage"
refuses "confpol-stage only on PATH" env PATH="$T/path:$PATH" "$T/bin/confpol-run" -q "$T/out/p.bwrap"
[ ! -e "$T/pathstage" ] && ok "a confpol-stage on PATH is not run" || bad "the stage on PATH ran"
# The copy runs when complete (the refusals above are the helpers').
install_copy
out=$(cd "$T/proj" && timeout -k 5 30 "$T/bin/confpol-run" -q "$T/out/p.bwrap" -- echo fine 2>&1)
[ "$out" = fine ] && ok "a complete copy runs" || bad "a complete copy: $out"
# A wrong "yes" of the --bind-fd test fails closed: a bwrap whose binary
# names --ro-bind-fd but refuses it is a refusal (125), never a fallback to
# running the command unconfined, also under --allow-unenforced.
mkdir -p "$T/fakebin"
printf '#!/bin/sh\necho "bwrap: Unknown option --ro-bind-fd" >&2\nexit 1\n--ro-bind-fd\000\n' >"$T/fakebin/bwrap"
chmod 755 "$T/fakebin/bwrap"
for flags in "--enforcer bwrap" "--enforcer bwrap --allow-unenforced"; do
    rm -f "$T/ran"
    out=$(cd "$T/proj" && PATH="$T/fakebin:$PATH" timeout -k 5 30 "$RUN" -q $flags "$T/out/p.bwrap" -- sh -c ": >$T/ran" 2>&1); rc=$?
    if [ $rc = 125 ] && [ ! -e "$T/ran" ] && echo "$out" | grep -q 'does not take --bind-fd'; then
        ok "bwrap refusing --ro-bind-fd ($flags): refused (125)"
    else bad "bwrap refusing --ro-bind-fd ($flags): exit $rc, ran=$([ -e "$T/ran" ] && echo yes || echo no): $out"; fi
done
# The helpers are not programs to start by hand.
out=$("$JAN" 2>&1 </dev/null); rc=$?
[ $rc = 125 ] && ok "confpol-janitor without its socket: 125" || bad "confpol-janitor by hand: $rc $out"
out=$("$STAGE" 2>&1 </dev/null); rc=$?
[ $rc = 125 ] && ok "confpol-stage without its descriptors: 125" || bad "confpol-stage by hand: $rc $out"

echo "1..$n"
[ $fails = 0 ]

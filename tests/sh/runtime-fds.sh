#!/bin/sh
# Inherited descriptors (spec/runtime.md §6, step 0): a file, a UDP
# socket, a Unix socket and a connected TCP socket the caller opened
# (descriptors 5-8) never reach the sandbox, under either enforcer, nor
# through `confpol run`; `--keep-fd N` passes exactly N.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
CONFPOL=${CONFPOL:-$TOP/build/confpol}
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
T=$(mktemp -d /var/tmp/confpol-fds.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
chmod 755 "$T"
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n' > "$T/p.confpol"
"$CONFPOL" build --target bwrap -o "$T" "$T/p.confpol" >"$T/build.out" 2>&1 || { cat "$T/build.out"; exit 1; }

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# with_fds KEEP CMD...: runs CMD with descriptors 5-8 open (python3 makes
# them and execs CMD); prints what the command inside saw.
with_fds() {
    timeout -k 5 30 python3 - "$@" <<'PY'
import os, socket, sys
keep = sys.argv[1]
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
tcp = socket.create_connection(srv.getsockname())
f = open("/etc/hostname", "rb")
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ux, _ = socket.socketpair()
for want, s in ((5, f.fileno()), (6, udp.fileno()), (7, ux.fileno()), (8, tcp.fileno())):
    os.dup2(s, want)
    os.set_inheritable(want, True)
argv = sys.argv[2:]
if keep != "-":
    argv = [argv[0], "--keep-fd", keep] + argv[1:]
os.execvp(argv[0], argv)
PY
}
probe='for f in 5 6 7 8; do [ -e /proc/self/fd/$f ] && echo "open $f"; done; echo done'

for enf in bwrap landlock; do
    out=$(cd "$T" && with_fds - "$RUN" --enforcer "$enf" --allow-partial -q "$T/p.bwrap" -- sh -c "$probe" 2>/dev/null)
    if [ "$out" = done ]; then ok "$enf: no inherited descriptor reaches the command"
    else bad "$enf: inherited descriptors reach the command: $out"; fi
    out=$(cd "$T" && with_fds 7 "$RUN" --enforcer "$enf" --allow-partial -q "$T/p.bwrap" -- sh -c "$probe" 2>/dev/null)
    if [ "$out" = "open 7
done" ]; then ok "$enf: --keep-fd 7 passes descriptor 7 only"
    else bad "$enf: --keep-fd 7: $out"; fi
done
# 4,200 inherited descriptors (past any fixed bound such as 4096): the
# launch still returns, placeholders removed (a janitor holding a copy of
# the runtime's own socket would never see its end).
printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/.git/hooks\n' > "$T/h.confpol"
"$CONFPOL" build --target bwrap -o "$T" "$T/h.confpol" >"$T/build.out" 2>&1 ||
    { cat "$T/build.out"; exit 1; }
mkdir -p "$T/proj"
(cd "$T/proj" && timeout -k 5 30 python3 - "$RUN" "$T/h.bwrap" <<'PY'
import os, resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (8192, max(8192, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
fd = os.open("/dev/null", os.O_RDONLY)
for n in range(3, 4200):  # every number below 4200: the runtime's own land above
    if n != fd:
        os.dup2(fd, n)
os.execv(sys.argv[1], [sys.argv[1], "--enforcer", "bwrap", "-q", sys.argv[2], "--", "true"])
PY
) >"$T/many.out" 2>&1; rc=$?
if [ $rc = 0 ] && [ ! -e "$T/proj/.git/hooks" ]; then
    ok "4,200 inherited descriptors: the launch returns and cleans up"
else
    bad "4,200 inherited descriptors: exit $rc: $(cat "$T/many.out")"
fi
out=$(cd "$T" && with_fds - "$CONFPOL" run -q "$T/p.confpol" -- sh -c "$probe" 2>/dev/null)
if [ "$out" = done ]; then ok "confpol run: no inherited descriptor reaches the command"
else bad "confpol run: inherited descriptors reach the command: $out"; fi
out=$("$RUN" --keep-fd 9 "$T/p.bwrap" -- true 2>&1); rc=$?
if [ $rc = 125 ] && echo "$out" | grep -q 'no such open descriptor'; then
    ok "--keep-fd of a closed descriptor is refused (125)"
else bad "--keep-fd 9 (closed): exit $rc: $out"; fi

echo "1..$n"
[ $fails = 0 ]

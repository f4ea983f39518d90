#!/bin/sh
# The Landlock enforcer and the user's terminals (spec/runtime.md §12.2,
# the `--dev /dev` row): the command reaches the terminal it was started
# on (by its /dev/pts name; not by /dev/tty: it runs in a session of its
# own, as under bwrap) and no other pseudo-terminal of the
# host: a terminal the user types into elsewhere can be neither read nor
# written (the names in /dev stay listable, as under bwrap's /dev the
# devices' are).  Run from a pty of its own
# (python's pty.fork), with another pty open beside it.  Exit 77 when
# Landlock is unavailable.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
"$RUN" --check | grep -q '^landlock: ABI' || { echo "Landlock is unavailable"; exit 77; }

T=$(mktemp -d /var/tmp/confpol-tty.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
chmod 755 "$T"
printf 'profile confined\nfail closed\narg --ro-bind\narg /\narg /\narg --dev\narg /dev\narg --proc\narg /proc\narg --cap-drop\narg ALL\n' > "$T/a.txt"
$MK "$T/a.txt" "$T/a.bwrap" || exit 1

cat > "$T/probe.py" <<'EOF'
import os, sys
other = sys.argv[1]
def tryopen(path, flags):
    try:
        os.close(os.open(path, flags | os.O_NOCTTY))
        return 'open'
    except OSError as e:
        return 'refused(%d)' % e.errno
own = os.ttyname(0) if os.isatty(0) else '-'
print('own', own, tryopen(own, os.O_RDWR) if own != '-' else '-')
print('devtty', tryopen('/dev/tty', os.O_RDWR))
print('other-rw', tryopen(other, os.O_RDWR))
print('other-r', tryopen(other, os.O_RDONLY))
print('other-w', tryopen(other, os.O_WRONLY))
print('ptmx', tryopen('/dev/ptmx', os.O_RDWR))
print('null', tryopen('/dev/null', os.O_RDWR))
EOF

cat > "$T/drive.py" <<'EOF'
import os, pty, sys, time
run, art, probe, out = sys.argv[1:5]
m, s = pty.openpty()          # the user's other terminal
other = os.ttyname(s)
pid, fd = pty.fork()          # the terminal confpol-run runs in
if pid == 0:
    os.execv(run, [run, '--enforcer', 'landlock', '-q', art, '--',
                   sys.executable, probe, other])
buf = b''
deadline = time.time() + 30
while time.time() < deadline:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    buf += b
_, st = os.waitpid(pid, 0)
open(out, 'w').write(buf.decode(errors='replace').replace('\r', ''))
sys.exit(os.waitstatus_to_exitcode(st))
EOF
timeout 60 python3 "$T/drive.py" "$RUN" "$T/a.bwrap" "$T/probe.py" "$T/out"; rc=$?

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
got() { grep "^$1 " "$T/out" | cut -d' ' -f2-; }
[ $rc = 0 ] && ok "the probe ran under a terminal" || bad "the probe: exit $rc: $(cat "$T/out")"
case $(got own) in /dev/pts/*\ open) ok "the controlling terminal opens by its name ($(got own))" ;;
    *) bad "the controlling terminal: $(got own)" ;; esac
# The command runs in a session of its own (spec/runtime.md §12.5.1), as
# under bwrap's --new-session: the terminal is not its controlling one,
# so /dev/tty has no terminal behind it (ENXIO) and TIOCSTI cannot type
# into the caller's shell; the terminal itself stays usable through 0-2.
[ "$(got devtty)" = "refused(6)" ] && ok "/dev/tty: no controlling terminal (a session of its own)" ||
    bad "/dev/tty: $(got devtty)"
for k in other-rw other-r other-w; do
    case $(got $k) in refused*) ok "another pty of the host is not reachable ($k: $(got $k))" ;;
        *) bad "another pty of the host is reachable ($k: $(got $k))" ;; esac
done
case $(got ptmx) in refused*) ok "no new pty (stricter, noted): /dev/ptmx $(got ptmx)" ;;
    *) bad "/dev/ptmx: $(got ptmx)" ;; esac
[ "$(got null)" = open ] && ok "/dev/null opens" || bad "/dev/null: $(got null)"

# Without a controlling terminal (setsid, as in CI): no pty at all.
python3 -c 'import os, pty; m, s = pty.openpty(); print(os.ttyname(s)); import time; time.sleep(20)' > "$T/pty" &
pp=$!
i=0; while [ ! -s "$T/pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
other=$(cat "$T/pty")
timeout 30 setsid "$RUN" --enforcer landlock -q "$T/a.bwrap" -- python3 "$T/probe.py" "$other" </dev/null >"$T/out2" 2>&1
kill $pp 2>/dev/null
case $(grep '^other-rw ' "$T/out2" | cut -d' ' -f2-) in refused*) ok "without a terminal: $other is not reachable" ;;
    *) bad "without a terminal: $(cat "$T/out2")" ;; esac
"$RUN" --enforcer landlock --dry-run "$T/a.bwrap" -- true > "$T/plan" 2>&1
grep -q 'grant .* /dev/pts$' "$T/plan" && bad "--dry-run still grants /dev/pts: $(grep pts "$T/plan")" ||
    ok "--dry-run grants nothing beneath /dev/pts but the controlling terminal"
grep -q '^note: .*pseudo-terminal' "$T/plan" && ok "--dry-run notes that no pty can be allocated" ||
    bad "no note on pty allocation: $(grep note "$T/plan")"
echo "1..$n"
[ $fails = 0 ]

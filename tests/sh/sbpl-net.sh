#!/bin/sh
# The SBPL profile of a `net allow` list, played on the SBPL evaluator
# (tests/lib/sbpl_model.py): with the proxy's port bound, outbound IPv4 TCP
# to localhost at that port only; another port, another host, IPv6, UDP and
# Unix sockets denied; without the port param, or with one that is not a
# port (`*` above all), the profile does not load.  The `;; confpol-net`
# lines carry the same rules as the bwrap artifact's `net` records, for
# this policy and every example.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cat >"$tmp/n.confpol" <<'P'
confpol 1
profile confined
write ${PROJECT}
deny read ~/.ssh
net allow *.github.com
net allow pypi.org:443
net allow [::1]:8080
P
cat >"$tmp/d.confpol" <<'P'
confpol 1
profile confined
write ${PROJECT}
net deny
P
cat >"$tmp/a.confpol" <<'P'
confpol 1
profile confined
write ${PROJECT}
P
for s in n d a; do
    "$CONFPOL" build --target sbpl --target bwrap -o "$tmp" "$tmp/$s.confpol" \
        2>"$tmp/$s.err" || { cat "$tmp/$s.err"; exit 1; }
done
timeout 120 python3 - "$tmp" <<'PY'
import os
import sys
sys.path.insert(0, os.path.join(os.environ['TOP'], 'tests', 'lib'))
from sbpl_model import Profile, ProfileError  # noqa: E402

tmp = sys.argv[1]
fails = 0


def check(what, got, want):
    global fails
    if got != want:
        fails += 1
        print('not ok - %s: got %r, want %r' % (what, got, want))
    else:
        print('ok - %s' % what)


def loads(text, params):
    try:
        return Profile(text, params)
    except ProfileError as e:
        return 'no load: %s' % e


base = {'HOME': '/Users/u', 'PROJECT': '/Users/u/p'}
n = open(os.path.join(tmp, 'n.sb')).read()
for reading in ('bytes', 'chars'):
    prof = Profile(n, dict(base, **{'confpol:proxy-port': '41234'}),
                   reading=reading)
    r = ' (%s)' % reading
    check('TCP to the proxy 127.0.0.1:41234' + r,
          prof.probe('connect', '127.0.0.1', 41234), True)
    check('TCP to 127.0.0.1:41235' + r,
          prof.probe('connect', '127.0.0.1', 41235), False)
    check('TCP to [::1]:41234 (tcp4 only)' + r,
          prof.probe('connect', '::1', 41234), False)
    check('TCP to [::1]:8080 (a rule, but for the proxy)' + r,
          prof.probe('connect', '::1', 8080), False)
    check('UDP to 127.0.0.1:41234' + r,
          prof.probe('sendto', '127.0.0.1', 41234), False)
    check('UDP to 8.8.8.8:53 (DNS)' + r,
          prof.probe('sendto', '8.8.8.8', 53), False)
    check('TCP to 140.82.112.3:443 (github.com, direct)' + r,
          prof.probe('connect', '140.82.112.3', 443), False)
    check('TCP to 10.0.0.1:41234' + r,
          prof.probe('connect', '10.0.0.1', 41234), False)
    check('the resolver socket' + r,
          prof.probe('connect-unix', '/private/var/run/mDNSResponder'), False)
    check('an ssh-agent socket' + r,
          prof.probe('connect-unix', '/private/tmp/agent.1/sock'), False)
    check('files unchanged: write in PROJECT' + r,
          prof.probe('write', '/Users/u/p/x'), True)
    check('files unchanged: read ~/.ssh' + r,
          prof.probe('read', '/Users/u/.ssh/id'), False)

# Loaded without confpol-run: no port, or a value that is not a port.
for v in (None, '*', '', '0', '65536', '8080 ', '80x', '1.5', '-1', 'localhost:80'):
    params = dict(base)
    if v is not None:
        params['confpol:proxy-port'] = v
    got = loads(n, params)
    check('port param %r: does not load' % (v,),
          isinstance(got, str) and got.startswith('no load'), True)
# A port bound by hand: that port only (the user names a proxy they trust).
prof = loads(n, dict(base, **{'confpol:proxy-port': '3128'}))
check('by hand 3128: 127.0.0.1:3128', prof.probe('connect', '127.0.0.1', 3128),
      True)
check('by hand 3128: 127.0.0.1:3129', prof.probe('connect', '127.0.0.1', 3129),
      False)

# net deny: no proxy, nothing reachable; no net rule: everything.
d = Profile(open(os.path.join(tmp, 'd.sb')).read(), base)
check('net deny: 127.0.0.1:41234', d.probe('connect', '127.0.0.1', 41234),
      False)
check('net deny: no port param in the profile', 'proxy' in
      open(os.path.join(tmp, 'd.sb')).read(), False)
a = Profile(open(os.path.join(tmp, 'a.sb')).read(), base)
check('no net rule: 1.1.1.1:443', a.probe('connect', '1.1.1.1', 443), True)

# The proxy's rules: the profile's lines = the bwrap artifact's records.
lines = [ln[len(';; confpol-net '):].split(' ', 1) for ln in n.splitlines()
         if ln.startswith(';; confpol-net ')]
f = open(os.path.join(tmp, 'n.bwrap'), 'rb').read().split(b'\0')
recs = [[f[i + 1].decode(), f[i + 2].decode()] for i in range(len(f) - 2)
        if f[i] == b'net']
check('confpol-net lines = net records', lines, recs)
check('three net rules', len(lines), 3)
sys.exit(1 if fails else 0)
PY
[ $? -eq 0 ] || exit 1

# Every example and starter: the profile's net lines = the net records.
n=0
for f in "$TOP"/examples/*.confpol "$TOP"/examples/starter/*.confpol; do
    s=$(basename "$f" .confpol)
    mkdir -p "$tmp/ex"
    "$CONFPOL" build --target sbpl --target bwrap --expand-globs -o "$tmp/ex" "$f" \
        2>/dev/null || { echo "FAIL: build $f"; exit 1; }
    [ -f "$tmp/ex/$s.sb" ] || continue # cooperative: no OS artifact
    timeout 60 python3 - "$tmp/ex/$s.sb" "$tmp/ex/$s.bwrap" <<'PY' || exit 1
import sys
sb = open(sys.argv[1], encoding='utf-8').read()
lines = [ln[len(';; confpol-net '):].split(' ', 1) for ln in sb.splitlines()
         if ln.startswith(';; confpol-net ')]
f = open(sys.argv[2], 'rb').read().split(b'\0')
recs = [[f[i + 1].decode(), f[i + 2].decode()] for i in range(len(f) - 2)
        if f[i] == b'net']
if lines != recs:
    print('not ok - %s: net lines %r, net records %r' % (sys.argv[1], lines,
                                                         recs))
    sys.exit(1)
proxied = '(param "confpol:proxy-port")' in sb
if proxied != bool(lines):
    print('not ok - %s: port param %s, %d net lines'
          % (sys.argv[1], proxied, len(lines)))
    sys.exit(1)
PY
    n=$((n + 1))
done
echo "ok - $n examples: net lines = net records"

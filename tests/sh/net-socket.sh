#!/bin/sh
# SPDX-License-Identifier: MIT
# net socket PATH... (spec/semantics.md 2.3) as a user meets it: check (the
# warning where the network is open), explain and expect (a named socket
# allowed, another denied by 'net deny' or by default under an allow-list,
# every socket allowed without a network rule, deny read wins, a param bound
# with -D, an abstract socket's name refused), --print-effective, fmt round
# trip, the bwrap records read back (after the net records, bound params
# substituted), the SBPL filter, the claude list, the fidelity rows of every
# target, and install/verify of allowUnixSockets.
set -u
: "${CONFPOL:?}" "${TOP:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
# same NAME: NAME.out must be exactly NAME.exp.
same() {
    diff -u "$1.exp" "$1.out" || fail "$1 differs"
}
export NO_COLOR=1

cat >deny.confpol <<'P'
confpol 1
profile confined
param SSH_AUTH_SOCK
net deny
net socket ${SSH_AUTH_SOCK} /var/run/docker.sock
deny read /srv/secret
net socket {
    "/tmp/agent one.sock"
}
expect allow socket /var/run/docker.sock
expect deny socket /var/run/other.sock
P
cat >list.confpol <<'P'
confpol 1
profile confined
net allow github.com
net socket /run/a.sock
P
cat >open.confpol <<'P'
confpol 1
profile confined
net socket /run/a.sock
P

# check: clean, except the expect that an unbound param decides (a note);
# in an open network the rule is a warning that -W switches off.
"$CONFPOL" check -Wno-expect-assumes deny.confpol >check.out 2>&1 ||
    fail "check deny.confpol"
[ -s check.out ] && { cat check.out; fail "check deny.confpol printed"; }
"$CONFPOL" check open.confpol >open.out 2>&1
[ $? -eq 0 ] || fail "check open.confpol: a warning must not fail"
cat >open.exp <<'E'
open.confpol:3:12: warning: 'net socket /run/a.sock' has no effect: every socket is reachable without 'net deny' or 'net allow' [CP0508] [-Wsocket-open-network]
    3 | net socket /run/a.sock
      |            ^~~~~~~~~~~
open.confpol:3:12: note: add 'net deny' to close every other Unix socket, or remove 'net socket /run/a.sock'
1 warning
E
same open
"$CONFPOL" check -Wno-socket-open-network open.confpol >quiet.out 2>&1
[ -s quiet.out ] && fail "-Wno-socket-open-network left output"
"$CONFPOL" check -Werror open.confpol >/dev/null 2>&1
[ $? -eq 1 ] || fail "-Werror: CP0508 must fail"

# explain: every case names what decided it.
ex() { # NAME ARGS...: explain's stdout into NAME.out (symbolic: these
    # cases are about sockets; its last line, the bindings, left out)
    name=$1
    shift
    "$CONFPOL" explain --symbolic "$@" >"$name.raw" 2>"$name.err"
    echo "exit $?" >>"$name.raw"
    grep -v '^  with ' "$name.raw" >"$name.out"
}
ex named deny.confpol socket /var/run/docker.sock
cat >named.exp <<'E'
allow
  by 'net socket /var/run/docker.sock' at deny.confpol:5:29
exit 0
E
same named
ex quoted deny.confpol socket "/tmp/agent one.sock"
cat >quoted.exp <<'E'
allow
  by 'net socket "/tmp/agent one.sock"' at deny.confpol:8:5
exit 0
E
same quoted
ex other deny.confpol socket /var/run/docker.sock2
cat >other.exp <<'E'
deny
  by 'net deny' at deny.confpol:4:1
  note: the answer may differ with another value of SSH_AUTH_SOCK: bind it with -D SSH_AUTH_SOCK=DIR to decide
exit 0
E
same other
ex beneath deny.confpol socket /var/run/docker.sock/x
cat >beneath.exp <<'E'
deny
  by 'net deny' at deny.confpol:4:1
  note: the answer may differ with another value of SSH_AUTH_SOCK: bind it with -D SSH_AUTH_SOCK=DIR to decide
exit 0
E
same beneath
mkdir -p agent && : >agent/sock
here=$(pwd -P)
ex bound -D SSH_AUTH_SOCK="$here/agent/sock" deny.confpol socket "$here/agent/sock"
printf "allow\n  by 'net socket \${SSH_AUTH_SOCK}' at deny.confpol:5:12\nexit 0\n" >bound.exp
same bound
ex bound2 -D SSH_AUTH_SOCK="$here/agent/sock" deny.confpol socket /var/run/other.sock
printf "deny\n  by 'net deny' at deny.confpol:4:1\nexit 0\n" >bound2.exp
same bound2
ex masked deny.confpol socket /srv/secret/s.sock
cat >masked.exp <<'E'
deny
  by 'deny read /srv/secret' at deny.confpol:6:11
exit 0
E
same masked
ex listed list.confpol socket /run/b.sock
cat >listed.exp <<'E'
deny
  by default: no 'net socket' rule names this socket; with a 'net allow' list every other Unix socket is closed
exit 0
E
same listed
ex opened open.confpol socket /run/b.sock
cat >opened.exp <<'E'
allow
  by default: the policy has no 'net deny' or 'net allow'; every Unix socket is reachable
exit 0
E
same opened
ex json --format json list.confpol socket /run/a.sock
cat >json.exp <<'E'
{"decision":"allow","access":"socket","subject":"/run/a.sock","byDefault":false,"reason":null,"rules":[{"rule":"net socket /run/a.sock","kind":"net socket","origin":"source","why":null,"file":"list.confpol","line":4,"column":12}],"unboundParam":null,"bindings":[]}
exit 0
E
same json
for subj in @agent "$(printf 'x')" run/a.sock; do
    "$CONFPOL" explain list.confpol socket "$subj" >abs.out 2>abs.err
    [ $? -eq 2 ] || fail "explain socket '$subj' must exit 2"
    grep -q "abstract or unnamed Unix socket has no path" abs.err ||
        fail "explain socket '$subj' does not say why"
done

# expect: a failing one names the deciding rule.
cat >fails.confpol <<'P'
confpol 1
profile confined
net deny
net socket /run/a.sock
expect allow socket /run/b.sock
expect deny socket /run/a.sock
P
"$CONFPOL" check fails.confpol >fails.out 2>&1
[ $? -eq 1 ] || fail "a failing socket expect must fail check"
cat >fails.exp <<'E'
fails.confpol:5:1: error: expect allow socket /run/b.sock failed: the policy denies it [CP0601]
    5 | expect allow socket /run/b.sock
      | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fails.confpol:3:1: note: decided by 'net deny'
    3 | net deny
      | ^~~~~~~~
fails.confpol:5:1: note: fix the policy or the expectation
fails.confpol:6:1: error: expect deny socket /run/a.sock failed: the policy allows it [CP0601]
    6 | expect deny socket /run/a.sock
      | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fails.confpol:4:12: note: decided by 'net socket /run/a.sock'
    4 | net socket /run/a.sock
      |            ^~~~~~~~~~~
fails.confpol:6:1: note: fix the policy or the expectation
2 errors
E
same fails

# A duplicate is redundant, reported at the later rule.
printf 'confpol 1\nprofile confined\nnet deny\nnet socket /run/a.sock\nnet socket /run/a.sock\n' >dup.confpol
"$CONFPOL" check dup.confpol >dup.out 2>&1
grep -q "^dup.confpol:5:12: warning: 'net socket /run/a.sock' is redundant: 'net socket /run/a.sock' already covers every socket it names \[CP0502\]" dup.out ||
    { cat dup.out; fail "duplicate socket rule"; }

# --print-effective and fmt: the statement survives both, fmt is a fixed
# point and the formatted file means the same.
"$CONFPOL" check -Wno-expect-assumes --print-effective deny.confpol >eff.out 2>&1 || fail "print-effective"
grep -qx 'net socket ${SSH_AUTH_SOCK}  # deny.confpol:5' eff.out || fail "print-effective: param-rooted socket"
grep -qx 'net socket "/tmp/agent one.sock"  # deny.confpol:8' eff.out || fail "print-effective: quoted socket"
grep -qx 'expect deny socket /var/run/other.sock' eff.out || fail "print-effective: expect socket"
"$CONFPOL" fmt deny.confpol >fmt1.confpol || fail "fmt"
"$CONFPOL" fmt fmt1.confpol >fmt2.confpol || fail "fmt of fmt"
cmp -s fmt1.confpol fmt2.confpol || fail "fmt is not a fixed point"
grep -q '^net socket ${SSH_AUTH_SOCK} /var/run/docker.sock$' fmt1.confpol || fail "fmt lost the socket rule"
"$CONFPOL" check -Wno-expect-assumes --dump=ast deny.confpol >ast.out 2>&1 || fail "dump ast"
grep -qF '(net @5:1-5:48 (word "socket" @5:5-5:10) (bare "${SSH_AUTH_SOCK}" @5:12-5:27)' ast.out ||
    { head ast.out; fail "dump ast: no net socket"; }

# build: the records, the filter, the list, the fidelity rows.
mkdir out
"$CONFPOL" build --target all --fidelity -D SSH_AUTH_SOCK="$here/agent/sock" \
    -D PROJECT="$here" -o out deny.confpol >fid.out 2>build.err ||
    { cat build.err; fail "build"; }
python3 - out/deny.bwrap "$here" <<'PY' || fail "bwrap records"
import sys
import os
sys.path.insert(0, os.environ['TOP'] + '/tests/golden')
import osmodel
recs = osmodel.bwrap_read(open(sys.argv[1], 'rb').read())
tags = [r[0] for r in recs]
socks = [[f.decode() for f in r[1:]] for r in recs if r[0] == 'socket']
want = [['', sys.argv[2] + '/agent/sock', 'deny.confpol:5'],
        ['', '/var/run/docker.sock', 'deny.confpol:5'],
        ['', '/tmp/agent one.sock', 'deny.confpol:8']]
assert socks == want, socks
# after every other record: the last records before 'end'
assert tags[-3:] == ['socket'] * 3, tags[-6:]
assert 'net' not in tags  # net deny: no proxy table
assert '--unshare-net' in [r[1].decode() for r in recs if r[0] == 'arg']
PY
grep -q '^(allow network-outbound$' out/deny.sb || fail "sbpl: no socket rule"
grep -qF '    (remote unix-socket (path-literal "/private/var/run/docker.sock"))' out/deny.sb ||
    fail "sbpl: docker socket"
[ "$(grep -n 'deny network\*' out/deny.sb | cut -d: -f1)" -lt "$(grep -n '^(allow network-outbound' out/deny.sb | cut -d: -f1)" ] ||
    fail "sbpl: the socket allow must follow (deny network*)"
python3 - out/deny.claude.json "$here" <<'PY' || fail "claude: allowUnixSockets"
import json, sys
net = json.load(open(sys.argv[1]))['sandbox']['network']
assert net['allowUnixSockets'] == [sys.argv[2] + '/agent/sock',
                                   '/var/run/docker.sock',
                                   '/tmp/agent one.sock'], net
assert 'allowAllUnixSockets' not in net
PY
# the SBPL evaluator: the named sockets (resolved, /private) and no other
python3 - out/deny.sb "$here" <<'PY' || fail "sbpl evaluator: connect"
import os, sys
sys.path.insert(0, os.environ['TOP'] + '/tests/lib')
import sbpl_model
prof = sbpl_model.load(sys.argv[1], {'HOME': '/home/u'})
here = sys.argv[2]
named = ['/private/var/run/docker.sock', '/private/tmp/agent one.sock',
         here + '/agent/sock']
if here.startswith('/tmp/'):
    named[2] = '/private' + named[2]
for p in named:
    assert prof.probe('connect-unix', p), p
for p in ['/var/run/docker.sock', '/private/var/run/docker.sock2',
          '/private/var/run', '/private/var/run/docker.sock/x',
          '/private/tmp/agent.sock']:
    assert not prof.probe('connect-unix', p), p
PY
# the artifact with allowUnixSockets is one Claude Code loads (its schema)
if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 - out/deny.claude.json "$TOP/tests/claude/claude-code-settings.schema.json" <<'PY' ||
import json, sys, jsonschema
doc = json.load(open(sys.argv[1]))
# the gate hook's onFailure is the client's, not the schema's (claude-schema.sh)
for grp in doc.get("hooks", {}).get("PreToolUse", []):
    for h in grp.get("hooks", []):
        h.pop("onFailure", None)
jsonschema.validate(doc, json.load(open(sys.argv[2])))
PY
        fail "claude: the artifact does not validate against the settings schema"
fi
for t in bwrap landlock sbpl claude; do
    grep -q "^deny.confpol:5: net socket /var/run/docker.sock	$t	" fid.out ||
        fail "fidelity: no $t row"
done
grep -q "^deny.confpol:5: net socket /var/run/docker.sock	bwrap	stricter	a socket record" fid.out ||
    fail "fidelity: bwrap row"
grep -q "^deny.confpol:5: net socket /var/run/docker.sock	landlock	stricter	the Landlock enforcer starts no socket supervisor" fid.out ||
    fail "fidelity: landlock row"
grep -q "^deny.confpol:5: net socket /var/run/docker.sock	sbpl	stricter	(allow network-outbound" fid.out ||
    fail "fidelity: sbpl row"
grep -q "^deny.confpol:5: net socket /var/run/docker.sock	claude	not enforced by this target	partially: sandbox.network.allowUnixSockets" fid.out ||
    fail "fidelity: claude row"
grep -q "CP0764" build.err || fail "claude: the Linux loss must be a warning"
# the shell form names each socket in a comment, the param as a variable
"$CONFPOL" build --target bwrap --format shell deny.confpol >shell.out 2>/dev/null ||
    fail "shell form"
grep -qx "# Unix socket the sandbox may connect to (confpol-run's supervisor): \"\$SSH_AUTH_SOCK\" (deny.confpol:5)" shell.out ||
    fail "shell form: the param-rooted socket"
grep -qx "# Unix socket the sandbox may connect to (confpol-run's supervisor): '/tmp/agent one.sock' (deny.confpol:8)" shell.out ||
    fail "shell form: the quoted socket"
# a socket in the sandbox's own /dev: stricter, said at build
printf 'confpol 1\nprofile confined\nnet deny\nnet socket /dev/log\n' >devlog.confpol
mkdir out3
"$CONFPOL" build --target bwrap --fidelity -o out3 devlog.confpol >devlog.fid 2>devlog.err ||
    fail "build devlog.confpol"
grep -q "^devlog.confpol:4:12: warning: bwrap: '/dev/log' lies in the sandbox's own /dev or /proc, which holds no socket of the host: it stays closed \[CP0715\]" devlog.err ||
    { cat devlog.err; fail "CP0715"; }
grep -q "^devlog.confpol:4: net socket /dev/log	bwrap	stricter	the sandbox has its own /dev and /proc" devlog.fid ||
    fail "fidelity: /dev/log"
# an open network: no record, no SBPL rule, no list
mkdir out2
"$CONFPOL" build --target all -Wno-socket-open-network -o out2 open.confpol 2>/dev/null ||
    fail "build open.confpol"
tr '\0' '\n' <out2/open.bwrap | grep -qx socket && fail "open network: a socket record"
grep -q 'unix-socket' out2/open.sb && fail "open network: an SBPL socket rule"
grep -q 'allowUnixSockets' out2/open.claude.json && fail "open network: allowUnixSockets"

# install carries the list; verify accepts it and names a foreign socket.
mkdir -p h/.claude
printf '{}\n' >h/.claude/settings.json
HOME=$here/h "$CONFPOL" install --claude h/.claude/settings.json out/deny.claude.json \
    >inst.out 2>&1 || { cat inst.out; fail "install"; }
grep -q '/var/run/docker.sock' h/.claude/settings.json || fail "install: no allowUnixSockets"
HOME=$here/h "$CONFPOL" verify --claude h/.claude/settings.json out/deny.claude.json \
    >ver.out 2>&1 || { cat ver.out; fail "verify after install"; }
python3 - h/.claude/settings.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['sandbox']['network']['allowUnixSockets'].append('/run/other.sock')
json.dump(d, open(sys.argv[1], 'w'))
PY
HOME=$here/h "$CONFPOL" verify --claude h/.claude/settings.json out/deny.claude.json \
    >ver2.out 2>&1
[ $? -eq 1 ] || fail "verify must refuse a socket the policy does not name"
grep -q 'sandbox.network.allowUnixSockets holds "/run/other.sock", a socket the policy does not name' ver2.out ||
    { cat ver2.out; fail "verify: the foreign socket is not named"; }

[ $fails -eq 0 ] || exit 1
echo "net socket: ok"

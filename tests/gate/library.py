#!/usr/bin/env python3
"""The gate library's corpora (tests/gate/library/*.txt).

For each review class CLASS, a policy holding only `include "<CLASS>"`
(profile cooperative, so that nothing but the class decides) must ask or
deny every command of CLASS.txt; a policy holding every class (profile
confined) must allow every command of benign.txt.  Each command is decided
three ways: `confpol explain`, the gate hook on the policy and the gate
hook on the built Claude artifact; the three must agree.  Then every
command of the known evasions (evasions.txt) must be
gated by each agentteams example.

usage: library.py CONFPOL TOPDIR
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gatecli  # noqa: E402
from gatecli import explain, hook, run  # noqa: E402

CONFPOL, TOP = sys.argv[1], sys.argv[2]
LIB = os.path.join(TOP, "tests", "gate", "library")
fails = []
gatecli.CONFPOL = CONFPOL


def build(policy, outdir):
    os.makedirs(outdir, exist_ok=True)
    rc, _, err = run([CONFPOL, "build", "--target", "claude", "-o", outdir,
                      policy])
    if rc != 0:
        sys.exit("cannot build %s: %s" % (policy, err))
    stem = os.path.basename(policy)[:-len(".confpol")]
    return os.path.join(outdir, stem + ".claude.json")


def decide(policy, artifact, cmd):
    got = (explain(policy, cmd), hook(policy, cmd), hook(artifact, cmd))
    if len(set(got)) != 1:
        fails.append("disagree on %r: explain %s, gate on policy %s, gate on "
                     "artifact %s" % ((cmd,) + got))
    return got[0]


def lines(name):
    with open(os.path.join(LIB, name), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]


with tempfile.TemporaryDirectory() as tmp:
    classes = sorted(f[:-4] for f in os.listdir(LIB)
                     if f.endswith(".txt") and f != "benign.txt"
                     and f != "evasions.txt")
    total = 0
    for c in classes:
        cmds = lines(c + ".txt")
        if len(cmds) < 30:
            fails.append("%s.txt: %d evasion attempts, at least 30 wanted"
                         % (c, len(cmds)))
        pol = os.path.join(tmp, "lib-%s.confpol" % c)
        with open(pol, "w") as f:
            f.write('confpol 1\nprofile cooperative\ninclude "<%s>"\n' % c)
        art = build(pol, os.path.join(tmp, "out-" + c))
        for cmd in cmds:
            total += 1
            v = decide(pol, art, cmd)
            if v not in ("ask", "deny"):
                fails.append("%s: not gated (%s): %r" % (c, v, cmd))
    pol = os.path.join(tmp, "lib-all.confpol")
    with open(pol, "w") as f:
        f.write('confpol 1\nprofile confined\ninclude "<all>"\n')
    art = build(pol, os.path.join(tmp, "out-all"))
    benign = lines("benign.txt")
    for cmd in benign:
        v = decide(pol, art, cmd)
        if v != "allow":
            fails.append("benign command not allowed (%s): %r" % (v, cmd))
    evasions = lines("evasions.txt")
    for ex in ("agentteams-confined", "agentteams-cooperative",
               "agentteams-exclusive", "developer-laptop"):
        pol = os.path.join(TOP, "examples", ex + ".confpol")
        art = build(pol, os.path.join(tmp, "out-" + ex))
        for cmd in evasions:
            v = decide(pol, art, cmd)
            if v not in ("ask", "deny"):
                fails.append("%s: not gated (%s): %r" % (ex, v, cmd))
        for cmd in benign:  # the seed's regex table asks more: agreement only
            decide(pol, art, cmd)

for f in fails:
    print("FAIL: " + f)
print("gate library: %d classes, %d evasion attempts, %d benign commands, "
      "%d known evasions on 4 examples: %s"
      % (len(classes), total, len(benign), len(evasions),
         "all passed" if not fails else "%d failures" % len(fails)))
sys.exit(1 if fails else 0)

#!/usr/bin/env python3
"""Option spellings through the whole gate: for each POLICY.confpol of
tests/gate/options/, every command of POLICY.tsv (EXPECT<TAB>COMMAND) must
get the answer EXPECT from `confpol explain`, from the gate hook on the
policy and from the gate hook on the built Claude artifact.

usage: options.py CONFPOL TOPDIR
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gatecli  # noqa: E402
from gatecli import explain, hook, run  # noqa: E402

CONFPOL, TOP = sys.argv[1], sys.argv[2]
DIR = os.path.join(TOP, "tests", "gate", "options")
fails = []
gatecli.CONFPOL = CONFPOL


total = 0
with tempfile.TemporaryDirectory() as tmp:
    for name in sorted(f[:-8] for f in os.listdir(DIR) if f.endswith(".confpol")):
        pol = os.path.join(DIR, name + ".confpol")
        rc, _, err = run([CONFPOL, "build", "--target", "claude", "-o", tmp, pol])
        if rc != 0:
            sys.exit("cannot build %s: %s" % (pol, err))
        art = os.path.join(tmp, name + ".claude.json")
        with open(os.path.join(DIR, name + ".tsv"), encoding="utf-8") as f:
            rows = [l.rstrip("\n").split("\t", 1) for l in f
                    if l.strip() and not l.startswith("#")]
        for want, cmd in rows:
            total += 1
            got = (explain(pol, cmd), hook(pol, cmd), hook(art, cmd))
            if got != (want, want, want):
                fails.append("%s: %r: want %s, got explain %s, gate on policy "
                             "%s, gate on artifact %s"
                             % ((name, cmd, want) + got))
for f in fails:
    print("FAIL: " + f)
print("gate options: %d commands: %s"
      % (total, "all passed" if not fails else "%d failures" % len(fails)))
sys.exit(1 if fails else 0)

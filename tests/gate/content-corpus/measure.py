#!/usr/bin/env python3
"""Recall and false positives of the content detectors on the generated
corpus (gen.py): every positive must be found, as its class; every
look-alike must not.  Decided by `confpol explain POLICY content @FILE`
on a policy with every class in force.

usage: measure.py CONFPOL TOPDIR [--floor RECALL MAX-FP]
"""
import os
import subprocess
import sys
import tempfile

CONFPOL, TOP = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
FLOOR = sys.argv[4:6] if len(sys.argv) > 5 and sys.argv[3] == "--floor" else None


def explain(pol, path):
    p = subprocess.run([CONFPOL, "explain", pol, "content", "@" + path],
                       capture_output=True, text=True, timeout=60)
    return p.stdout


with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, os.path.join(TOP, "tests", "gate",
                                                 "content-corpus", "gen.py"), tmp],
                   check=True, timeout=120)
    pol = os.path.join(tmp, "p.confpol")
    with open(pol, "w") as f:
        f.write("confpol 1\nprofile cooperative\n")
    found = fp = 0
    pos = sorted(os.listdir(os.path.join(tmp, "pos")))
    neg = sorted(os.listdir(os.path.join(tmp, "neg")))
    for name in pos:
        cls = name[4:-4]
        out = explain(pol, os.path.join(tmp, "pos", name))
        if out.startswith("deny") and cls in out:
            found += 1
        else:
            print("  missed: %s: %s" % (name, out.split("\n")[0][:120]))
    for name in neg:
        out = explain(pol, os.path.join(tmp, "neg", name))
        if not out.startswith("allow"):
            fp += 1
            print("  false positive: %s: %s" % (name, " ".join(out.split("\n")[:3])[:160]))
    print("content: %d/%d secrets found (%.1f%%), %d/%d look-alikes flagged"
          % (found, len(pos), 100.0 * found / len(pos), fp, len(neg)))
    if FLOOR and (found < int(FLOOR[0]) or fp > int(FLOOR[1])):
        print("FAIL: at least %s found and at most %s flagged wanted" % tuple(FLOOR))
        sys.exit(1)

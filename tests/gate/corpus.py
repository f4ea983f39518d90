#!/usr/bin/env python3
"""The gate corpora (tests/gate/corpus/) on the policy `confpol init
--claude` writes, which holds the gate library alone (`include "<all>"`).

Every command of CLASS.txt should be asked or denied; every command of
benign.txt allowed.  Each command is decided by `confpol explain`, by the
gate hook on the policy and by the gate hook on the built Claude artifact;
the three must agree.  Prints gated / total per class and benign asked /
total, with each miss and false positive.

usage: corpus.py CONFPOL TOPDIR [--floor FILE]
With --floor, exits 1 when a class gates fewer commands, or benign.txt has
more asked, than FILE allows (lines `CLASS MIN-GATED` and `benign
MAX-ASKED`), or when the three answers disagree.
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gatecli  # noqa: E402
from gatecli import explain, hook, run  # noqa: E402

CONFPOL, TOP = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
FLOOR = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--floor" else None
DIR = os.path.join(TOP, "tests", "gate", "corpus")
gatecli.CONFPOL = CONFPOL
NL = "\u23ce"  # stands for a newline in a corpus line


def lines(name):
    with open(os.path.join(DIR, name), encoding="utf-8") as f:
        return [l.rstrip("\n").replace(NL, "\n") for l in f
                if l.strip() and not l.startswith("#")]


def main():
    env = dict(os.environ, CONFPOL_LIBRARY=os.path.join(TOP, "gates"))
    os.environ.update(env)
    tmp = tempfile.mkdtemp(prefix="confpol-corpus.")
    p = subprocess.run([CONFPOL, "init", "--claude"], cwd=tmp,
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        sys.exit("confpol init --claude failed: " + p.stderr)
    pol = os.path.join(tmp, "policy.confpol")
    rc, _, err = run([CONFPOL, "build", "--target", "claude", "-o", tmp, pol])
    if rc != 0:
        sys.exit("cannot build the init policy: " + err)
    art = os.path.join(tmp, "policy.claude.json")
    disagree = []

    def decide(cmd):
        got = (explain(pol, cmd), hook(pol, cmd), hook(art, cmd))
        if len(set(got)) != 1:
            disagree.append("%r: explain %s, gate on policy %s, gate on "
                            "artifact %s" % ((cmd,) + got))
        return got[0]

    classes = sorted(f[:-4] for f in os.listdir(DIR)
                     if f.endswith(".txt") and f != "benign.txt")
    res, misses = {}, []
    t0 = time.time()
    for c in classes:
        cmds = lines(c + ".txt")
        n = 0
        for cmd in cmds:
            v = decide(cmd)
            if v in ("ask", "deny"):
                n += 1
            else:
                misses.append("%s: not gated (%s): %r" % (c, v, cmd))
        res[c] = (n, len(cmds))
    benign = lines("benign.txt")
    fps = []
    for cmd in benign:
        v = decide(cmd)
        if v != "allow":
            fps.append("benign: %s: %r" % (v, cmd))
    res["benign"] = (len(fps), len(benign))
    for m in misses + fps:
        print("  " + m)
    for d in disagree:
        print("  DISAGREE: " + d)
    tg = sum(res[c][0] for c in classes)
    tt = sum(res[c][1] for c in classes)
    print("%-16s %9s %6s" % ("class", "gated", "%"))
    for c in classes:
        g, t = res[c]
        print("%-16s %4d/%-4d %6.1f" % (c, g, t, 100.0 * g / t))
    print("%-16s %4d/%-4d %6.1f" % ("all evasions", tg, tt, 100.0 * tg / tt))
    a, t = res["benign"]
    print("%-16s %4d/%-4d %6.1f  (asked or denied)" % ("benign", a, t,
                                                         100.0 * a / t))
    print("(%d commands, 3 answers each, %.1f s)" % (tt + t, time.time() - t0))
    subprocess.run(["rm", "-rf", tmp])
    bad = len(disagree)
    if FLOOR:
        with open(FLOOR, encoding="utf-8") as f:
            for l in f:
                if not l.strip() or l.startswith("#"):
                    continue
                name, num = l.split()
                num = int(num)
                if name not in res:
                    print("FAIL: floor names an unknown corpus %s" % name)
                    bad += 1
                elif name == "benign" and res[name][0] > num:
                    print("FAIL: benign: %d asked, at most %d allowed"
                          % (res[name][0], num))
                    bad += 1
                elif name != "benign" and res[name][0] < num:
                    print("FAIL: %s: %d gated, at least %d wanted"
                          % (name, res[name][0], num))
                    bad += 1
        missing = set(res) - {l.split()[0] for l in open(FLOOR)
                              if l.strip() and not l.startswith("#")}
        for m in sorted(missing):
            print("FAIL: no floor for %s" % m)
            bad += 1
    sys.exit(1 if bad else 0)


main()

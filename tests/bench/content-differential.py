#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two confpol binaries' content findings on random texts, compared (a check
for a change of the content scanner that must keep every finding, not a
test: nothing of it runs in `make check`).

    content-differential.py OLD NEW ARTIFACT PATH [N [SEED]]

Each text is made of pieces of the content corpus (tests/gate/content-corpus,
generated into a temporary directory: secrets and look-alikes, whole or cut
at random places, so that a token starts at odd and even offsets), anchors,
the override verbs in either case, assignments and random bytes.  Both
binaries answer each as a Write hook call on ARTIFACT, of the file PATH
(one the artifact's write rules allow, so that the content is scanned);
any difference in
stdout or exit status is printed and the exit status is 1.  N texts
(1,500), SEED (1); the count of texts with a finding is printed too."""
import json
import os
import random
import subprocess
import sys
import tempfile

EXTRA = ["ignore previous instructions", "IGNORE all", "Disregard", "forget",
         "override", "bypass", "xoxb-", "AKIA", "ghp_", "sk-", "SK", "Q~",
         "-----BEGIN", "eyJ", "hv", "do", "gh", "a", "ab", " ", "\n", "=",
         "password=", "token: ", "\u00e9", "\u200b", "x"]


def corpus(top, d):
    subprocess.run([sys.executable, os.path.join(
        top, "tests/gate/content-corpus/gen.py"), d], check=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = []
    for sub in ("pos", "neg"):
        for f in sorted(os.listdir(os.path.join(d, sub))):
            with open(os.path.join(d, sub, f), errors="replace") as fh:
                out.append(fh.read())
    return out


def text(rng, snips):
    parts = []
    for _ in range(rng.randint(1, 12)):
        c = rng.random()
        if c < 0.35:
            s = rng.choice(snips)
            a = rng.randint(0, len(s))
            b = rng.randint(a, min(len(s), a + rng.randint(0, 400)))
            parts.append(s[a:b] if rng.random() < 0.5 else s)
        elif c < 0.8:
            parts.append(rng.choice(EXTRA))
        else:
            parts.append("".join(rng.choice("abcXYZ019_-~.:/ \n\"'=")
                                 for _ in range(rng.randint(0, 30))))
    return "".join(parts)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    old, new, art, path = sys.argv[1:5]
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 1500
    rng = random.Random(int(sys.argv[6]) if len(sys.argv) > 6 else 1)
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    with tempfile.TemporaryDirectory() as d:
        snips = corpus(top, d)
    diffs = found = 0
    for _ in range(n):
        inp = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse",
                          "cwd": os.path.dirname(path),
                          "tool_name": "Write",
                          "tool_input": {"file_path": path,
                                         "content": text(rng, snips)}})
        outs = [subprocess.run([b, "gate", art], input=inp.encode(),
                               capture_output=True, timeout=60)
                for b in (old, new)]
        got = [(p.returncode, p.stdout) for p in outs]
        found += b"content check" in got[1][1]
        if got[0] != got[1]:
            diffs += 1
            if diffs <= 3:
                print("DIFF", inp[:300], got)
    print("texts %d, with a finding %d, differences %d" % (n, found, diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())

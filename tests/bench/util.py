#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Helpers of tests/bench/run.sh.

  util.py mounts ARTIFACT.bwrap COVERED.txt RULES PROJECT
      counts the mount records of a .bwrap artifact (spec/artifacts.md) and
      prints: mounts=M bind=.. pin=.. pinro=.. ro=.. mask=.. globs=G
      covered_mounted=C (C: mounts emitted for a rule that another rule of
      the same effect covers; 0 is the target)
  util.py argv SHELL-FORM HOME PROJECT
      turns `confpol build --format shell` output into the bwrap argv it
      describes (params substituted), one argument per line, without the
      trailing "$@"
"""
import os
import shlex
import subprocess
import sys

FIELDS = {"confpol-bwrap": 1, "profile": 1, "fail": 1, "param": 1, "arg": 1,
          "bind": 2, "ro": 2, "pin": 2, "pinro": 2, "mask": 2, "maskglob": 2,
          "roglob": 2, "exec": 2, "net": 2, "socket": 3, "end": 2}
MOUNTS = ("bind", "pin", "pinro", "ro", "mask")


def records(data):
    fields = data.split(b"\0")
    if fields[-1] != b"":
        raise ValueError("artifact does not end with a NUL")
    fields.pop()
    i = 0
    while i < len(fields):
        tag = fields[i].decode()
        if tag not in FIELDS:
            raise ValueError("unknown record tag %r" % tag)
        n = FIELDS[tag]
        yield tag, [f.decode("utf-8", "surrogateescape") for f in fields[i + 1:i + 1 + n]]
        i += 1 + n


def mounts(path, covered_path, nrules, project):
    with open(path, "rb") as f:
        data = f.read()
    with open(covered_path) as f:
        covered = set(line.rstrip("\n").replace("${PROJECT}", project)
                      for line in f if line.strip())
    counts = {t: 0 for t in MOUNTS}
    globs = 0
    covered_mounted = 0
    for tag, fl in records(data):
        if tag in MOUNTS:
            counts[tag] += 1
            p = ("${%s}" % fl[0] if fl[0] else "") + fl[1]
            if p in covered:
                covered_mounted += 1
        elif tag in ("maskglob", "roglob"):
            globs += 1
    total = sum(counts.values())
    print("mounts=%d %s globs=%d covered_rules=%d covered_mounted=%d per_rule=%.3f"
          % (total, " ".join("%s=%d" % (t, counts[t]) for t in MOUNTS), globs,
             len(covered), covered_mounted, total / max(1, int(nrules))))


def argv(path, home, project):
    """The bwrap argv that the `build --format shell` script would run.

    The script decides its mounts at run time (which targets exist), so it is
    run here with HOME and PROJECT set and its final `bwrap "$@"` replaced by
    a line that prints each word."""
    with open(path) as f:
        text = f.read()
    last = 'bwrap "$@"'
    if not text.rstrip().endswith(last):
        raise ValueError("unexpected shell form")
    text = text.rstrip()[: -len(last)] + "printf '%s\\n' bwrap \"$@\"\n"
    env = dict(os.environ, HOME=home, PROJECT=project)
    out = subprocess.run(["sh", "-c", text], env=env, check=True,
                         capture_output=True, text=True).stdout
    print(out, end="")


def main():
    if sys.argv[1:2] == ["mounts"]:
        mounts(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif sys.argv[1:2] == ["argv"]:
        argv(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

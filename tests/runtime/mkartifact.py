#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a .bwrap record stream (spec/artifacts.md) from a text description,
so that runtime tests do not depend on the bwrap backend.

Input: one record per line, fields split like a POSIX shell (shlex), so
quote empty fields as '' and paths with spaces.  '#' starts a comment line.
The 'confpol-bwrap 1' header is added unless the first record is a header;
the 'end COUNT SHA256' trailer is always computed and appended.

usage: mkartifact.py [IN.txt|-] [OUT.bwrap|-]
       mkartifact.py IN.txt OUT.bwrap [IN.txt OUT.bwrap]...
"""
import hashlib
import shlex
import sys


def build(text):
    recs = []
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith('#'):
            continue
        recs.append(shlex.split(s))
    if not recs or recs[0][0] != 'confpol-bwrap':
        recs.insert(0, ['confpol-bwrap', '1'])
    body = b''.join(f.encode() + b'\0' for r in recs for f in r)
    digest = hashlib.sha256(body).hexdigest()
    return body + b'end\0' + str(len(recs)).encode() + b'\0' + digest.encode() + b'\0'


def convert(src, dst):
    text = sys.stdin.read() if src == '-' else open(src, encoding='utf-8').read()
    data = build(text)
    if dst == '-':
        sys.stdout.buffer.write(data)
    else:
        with open(dst, 'wb') as f:
            f.write(data)


def main(argv):
    if len(argv) > 3:
        if len(argv) % 2 != 1:
            sys.exit('mkartifact.py: IN OUT pairs expected')
        for i in range(1, len(argv), 2):
            convert(argv[i], argv[i + 1])
        return
    convert(argv[1] if len(argv) > 1 else '-', argv[2] if len(argv) > 2 else '-')


if __name__ == '__main__':
    main(sys.argv)

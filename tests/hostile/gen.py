#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the large hostile inputs into OUTDIR (they are generated at test
time instead of being committed): a 10 MB file, 100,000-character lines and
paths, 100,000 rules, deep nesting and long include chains.

    gen.py OUTDIR            write every NAME.confpol (and helper files)
    gen.py --list            print the case names
    gen.py --expand T DIR    print template T with @DIR@ and @REP:HEX:N@ expanded
    gen.py --compress F DIR  print file F as a template (inverse of --expand)

Expected diagnostics live in tests/hostile/gen/NAME.err as templates:
@DIR@ stands for OUTDIR, @REP:HEX:N@ for N copies of the 1 to 4 bytes HEX."""
import os
import re
import sys

H = b'confpol 1\n'
HP = H + b'profile confined\n'
CASES = {}


def case(fn):
    CASES[fn.__name__.replace('_', '-')] = fn
    return fn


@case
def big_10mb_rules(d):
    # 10 MB of distinct rules; the last line has a lexical error.
    out = [b'# 10 MB of rules, then an unterminated string on the last line\n', HP]
    size = sum(map(len, out))
    i = 0
    while size < 10 * 1024 * 1024:
        line = b'deny read /data/d%07d/file\n' % i
        out.append(line)
        size += len(line)
        i += 1
    out.append(b'write "/unterminated\n')
    return b''.join(out)


@case
def big_10mb_comments(d):
    out = [b'# 10 MB of comments, then an unknown profile\n', H]
    line = b'#' + b' lorem ipsum dolor sit amet' * 3 + b'\n'
    out.append(line * (10 * 1024 * 1024 // len(line)))
    out.append(b'profile bogus\n')
    return b''.join(out)


@case
def many_rules_100k(d):
    # 100,000 rules reach the analysis; the failing expect is decided there.
    out = [b'# 100,000 rules, then an expect the policy does not satisfy\n', HP,
           b'write /data\n']
    out += [b'deny write /data/f%06d\n' % i for i in range(100000)]
    out.append(b'expect allow write /data/f099999/x\n')
    return b''.join(out)


@case
def many_errors(d):
    out = [b'# 200 independent errors, each reported at its line\n', HP]
    out += [b'write rel%03d/x\n' % i for i in range(200)]
    return b''.join(out)


@case
def line_100k_comment(d):
    return (b'# a 100,000-character comment line, then an unknown profile\n' + H +
            b'#' + b'c' * 100000 + b'\nprofile bogus\n')


@case
def line_100k_path(d):
    return (b'# a 100,000-character path\n' + HP +
            b'write ' + b'/a' * 50000 + b'\n')


@case
def line_100k_segment(d):
    return (b'# a path with one 100,000-character segment\n' + HP +
            b'deny read /' + b's' * 100000 + b'\n')


@case
def line_100k_quoted(d):
    return (b'# a 100,000-character quoted path\n' + HP +
            b'deny read "' + b'/q' * 50000 + b'"\n')


@case
def line_100k_keyword(d):
    return (b'# a 100,000-character statement keyword\n' + HP +
            b'k' * 100000 + b' /tmp\n')


@case
def line_100k_regex(d):
    return (b'# a 100,000-character regex with an unclosed parenthesis\n' + HP +
            b'gate deny re"' + b'a' * 100000 + b'("\n')


@case
def line_100k_include(d):
    return (b'# an include of a 100,000-character path\n' + HP +
            b'include "' + b'/d' * 50000 + b'.confpol"\n')


@case
def let_chain_long(d):
    # Each let adds a segment: the path outgrows the limit partway through.
    out = [b'# 10,000 lets, each one segment longer than the last\n', HP,
           b'let L0 = /x\n']
    out += [b'let L%d = ${L%d}/x\n' % (i, i - 1) for i in range(1, 10000)]
    out.append(b'write ${L9999}\n')
    return b''.join(out)


@case
def deep_braces_100k(d):
    return (b'# 100,000 nested opening braces\n' + HP +
            b'write ' + b'{' * 100000 + b'\n')


@case
def include_depth(d):
    # A chain of 40 includes: deeper than the include depth limit.
    for i in range(1, 41):
        with open(os.path.join(d, 'chain%02d.inc' % i), 'wb') as f:
            f.write(b'# link %d of an include chain\n' % i + HP +
                    (b'include "chain%02d.inc"\n' % (i + 1) if i < 40 else b''))
    return b'# the head of a chain of 40 includes\n' + HP + b'include "chain01.inc"\n'


@case
def include_huge(d):
    # A sparse file over the per-file size limit (64 MiB).
    with open(os.path.join(d, 'huge.inc'), 'wb') as f:
        f.truncate(65 * 1024 * 1024)
    return b'# an include of a 65 MiB file\n' + HP + b'include "huge.inc"\n'


@case
def many_includes_same(d):
    # The same file included 1000 times: no blow-up, one error reported.
    with open(os.path.join(d, 'same.inc'), 'wb') as f:
        f.write(b'# included many times\n' + H + b'deny read /srv/secret\n')
    return (b'# one file included 1000 times, then an unknown profile\n' + H +
            b'include "same.inc"\n' * 1000 + b'profile bogus\n')


def expand(t, outdir):
    t = t.replace(b'@DIR@', outdir.encode())
    return re.sub(rb'@REP:((?:[0-9a-f]{2}){1,4}):([0-9]+)@',
                  lambda m: bytes.fromhex(m.group(1).decode()) * int(m.group(2)), t)


def compress(t, outdir):
    # Runs of a unit of 1 to 4 bytes repeated at least 64 times.
    t = t.replace(outdir.encode(), b'@DIR@')
    return re.sub(rb'(.{1,4}?)\1{63,}',
                  lambda m: b'@REP:%s:%d@' % (m.group(1).hex().encode(),
                                              len(m.group(0)) // len(m.group(1))),
                  t, flags=re.S)


def main():
    a = sys.argv[1:]
    if a == ['--list']:
        print('\n'.join(CASES))
    elif len(a) == 3 and a[0] in ('--expand', '--compress'):
        with open(a[1], 'rb') as f:
            data = f.read()
        fn = expand if a[0] == '--expand' else compress
        sys.stdout.buffer.write(fn(data, a[2]))
    elif len(a) == 1:
        for name, fn in CASES.items():
            with open(os.path.join(a[0], name + '.confpol'), 'wb') as f:
                f.write(fn(a[0]))
    else:
        sys.exit(__doc__)


main()

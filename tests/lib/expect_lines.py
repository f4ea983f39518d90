"""The expect lines of a policy and of the files it includes, for the tests
that replay them with `confpol explain` (tests/sh/explain-expect.sh,
tests/sh/explain-run.sh)."""
import os
import re

EXPECT_RE = re.compile(
    r'^\s*expect\s+(allow|deny|ask)\s+(read|write|exec|net|gate|socket)\s+(.*)$')
INCLUDE_RE = re.compile(r'^\s*include\s+"([^"]*)"')


def subject(text):
    """The subject of an expect line: a quoted string unescaped (\\x, \\c),
    else the first word before a comment."""
    text = text.strip()
    if text.startswith('"'):
        out, i = [], 1
        while i < len(text) and text[i] != '"':
            if text[i] == '\\':
                n = text[i + 1]
                if n == 'x':
                    out.append(chr(int(text[i + 2:i + 4], 16)))
                    i += 4
                    continue
                out.append(n)
                i += 2
                continue
            out.append(text[i])
            i += 1
        return ''.join(out)
    return text.split('#')[0].split()[0]


def expects(path, gates=None, seen=None):
    """(verdict, access, subject) of every expect line of path and of the
    files it includes, each file once; a gate library set (include
    "<NAME>") is read from the directory gates, and not at all without
    it."""
    seen = set() if seen is None else seen
    if path in seen:
        return []
    seen.add(path)
    found = []
    for line in open(path, encoding='utf-8', errors='replace'):
        m = INCLUDE_RE.match(line)
        if m and m.group(1).startswith('<'):
            if gates:
                found += expects(os.path.join(gates, m.group(1)[1:-1] + '.confpol'),
                                 gates, seen)
        elif m:
            found += expects(os.path.join(os.path.dirname(path), m.group(1)), gates, seen)
        m = EXPECT_RE.match(line)
        if m:
            found.append((m.group(1), m.group(2), subject(m.group(3))))
    return found

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads back what `confpol build` emitted for the injection policies of
tests/sh/injection.sh and checks that every hostile path and pattern comes
back as exactly the same data, and that the artifact's structure is the
structure of the same policy with harmless names.

    readback.py sbpl|bwrap|shell|claude WEIRD-DIR BASELINE-DIR NAMES-FILE

NAMES-FILE holds the hostile names, one JSON string per line; the policies
use name i under $INJ_W/i/ (write roots, in /tmp) and $INJ_R/i/
(deny-read targets, in /var/tmp); see injection.sh; the baseline uses "n<i>" instead.  Exit 0 when everything
reads back, 1 with one line per defect otherwise."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from sbpl_reader import Str, is_symbol, sbpl_read, sbpl_strings  # noqa: E402

errors = []
W = os.environ['INJ_W']
R = os.environ['INJ_R']


def err(msg):
    errors.append(msg)


# ---- SBPL (the reader is tests/lib/sbpl_reader.py) --------------------------

def sbpl_escape(e):
    # TinyScheme: \n \t \r \xHH are escapes; confpol never emits them.
    if e in 'ntrx':
        err('sbpl: string uses the escape \\%s, which only '
            'TinyScheme understands that way' % e)


def sbpl_skeleton(form):
    """The form with every string replaced by a placeholder."""
    if isinstance(form, Str):
        return 'raw' if form.raw else 'str'
    if isinstance(form, list):
        return '(' + ' '.join(sbpl_skeleton(f) for f in form) + ')'
    return form


def sbpl_filters(forms):
    """(action, operation, filter, string) for every filter of every rule."""
    res = []
    for f in forms:
        if not isinstance(f, list) or not f or f[0] not in ('allow', 'deny'):
            continue
        ops = [x for x in f[1:] if is_symbol(x)]
        for flt in f[1:]:
            if isinstance(flt, list) and flt and isinstance(flt[0], str):
                for s in sbpl_strings(flt):
                    for op in ops:
                        res.append((f[0], op, flt[0], s))
    return res


def check_sbpl(weird, base, names):
    try:
        wf = sbpl_read(open(weird, encoding='utf-8', newline='').read(), sbpl_escape)
        bf = sbpl_read(open(base, encoding='utf-8', newline='').read(), sbpl_escape)
    except ValueError as e:
        err('sbpl: the profile does not read: %s' % e)
        return
    # Same structure as the harmless policy: no form, operation or filter
    # was injected.
    ws = sorted(sbpl_skeleton(f) for f in wf)
    bs = sorted(sbpl_skeleton(f) for f in bf)
    if ws != bs:
        err('sbpl: the profile structure differs from the baseline:\n  %s\n  %s'
            % ('\n  '.join(x for x in ws if x not in bs)[:2000],
               '\n  '.join(x for x in bs if x not in ws)[:2000]))
    got = set(sbpl_filters(wf))
    for i, nm in enumerate(names):
        want = [
            ('allow', 'file-write*', 'subpath', '/private' + W + '/%d/' % i + nm),
            ('deny', 'file-write*', 'subpath', '/private' + W + '/%d/' % i + nm + '/sub'),
            ('deny', 'file-read*', 'subpath', '/private' + R + '/%d/' % i + nm),
        ]
        for w in want:
            if w not in got:
                err('sbpl: name %d %r: no (%s %s (%s "%s"))' % ((i, nm) + w))


# ---- bwrap: the NUL-separated record stream --------------------------------

def bwrap_fields(path):
    data = open(path, 'rb').read()
    if not data.endswith(b'\0'):
        err('bwrap: artifact does not end with a NUL byte')
    return [f.decode('utf-8', 'surrogateescape') for f in data.split(b'\0')[:-1]]


ARITY = {'confpol-bwrap': 1, 'profile': 1, 'fail': 1, 'param': 1, 'arg': 1}


def bwrap_records(fields):
    recs, k = [], 0
    while k < len(fields):
        n = ARITY.get(fields[k], 2)
        recs.append(tuple(fields[k:k + 1 + n]))
        k += 1 + n
    return recs


def check_bwrap(weird, base, names):
    wr = bwrap_records(bwrap_fields(weird))
    br = bwrap_records(bwrap_fields(base))
    # The same records as the baseline after renaming n<i> -> name i (the
    # trailer's digest differs by construction; its count must not), in
    # the same order of tags.
    def rename(s):
        return re.sub(r'(?<=/)n([0-9]+)(?=/|$)', lambda m: names[int(m.group(1))], s)
    if [r[0] for r in wr] != [r[0] for r in br]:
        err('bwrap: the sequence of record tags differs from the baseline')
    if wr and br and wr[-1][:2] != br[-1][:2]:
        err('bwrap: trailer count %r, baseline %r' % (wr[-1][:2], br[-1][:2]))
    want = sorted(tuple(rename(f) for f in r) for r in br[:-1])
    got = sorted(wr[:-1])
    if want != got:
        for r in got:
            if r not in want:
                err('bwrap: unexpected record %r' % (r,))
        for r in want:
            if r not in got:
                err('bwrap: missing record %r' % (r,))
    recs = set(wr)
    for i, nm in enumerate(names):
        for tag, rest in (('bind', W + '/%d/' % i + nm),
                          ('ro', W + '/%d/' % i + nm + '/sub'),
                          ('mask', R + '/%d/' % i + nm)):
            if (tag, '', rest) not in recs:
                err('bwrap: name %d %r: no record %s "" %r' % (i, nm, tag, rest))


def check_shell(weird, base, names):
    """Runs the shell form with a bwrap function that prints its argv."""
    def words(path):
        script = ('bwrap() { for a in "$@"; do printf "%s\\0" "$a"; done; }\n'
                  'HOME=/home/inj PROJECT=/proj/inj\nset --\n' +
                  open(path, encoding='utf-8', newline='').read() + '\n')
        r = subprocess.run(['sh', '-c', script], capture_output=True,
                           cwd=os.path.dirname(os.path.abspath(path)))
        if r.returncode != 0:
            err('shell: %s exits %d: %s' % (path, r.returncode, r.stderr[:300]))
        return r.stdout.decode('utf-8', 'surrogateescape').split('\0')[:-1]
    # The deny-read targets exist, as directories: the shell form masks a
    # missing target outside the write roots with nothing (it cannot be
    # created there), and the words are what this check reads back.
    for i, nm in enumerate(names):
        os.makedirs(R + '/%d/' % i + nm, exist_ok=True)
        os.makedirs(R + '/%d/n%d' % (i, i), exist_ok=True)  # the baseline's
    ww, bw = words(weird), words(base)
    if [x for x in ww if x.startswith('-')] != [x for x in bw if x.startswith('-')]:
        err('shell: the option words differ from the baseline')
    got = set(zip(ww, ww[1:], ww[2:]))
    pairs = set(zip(ww, ww[1:]))
    for i, nm in enumerate(names):
        for opt, p in (('--bind', W + '/%d/' % i + nm),
                       ('--ro-bind', W + '/%d/' % i + nm + '/sub'),
                       ('--tmpfs', R + '/%d/' % i + nm)):
            # (the shell form skips a missing write root, --bind-try, masks
            # a missing deny-read target or a file with /dev/null, and covers
            # a missing deny-write target with a scratch tmpfs)
            if (opt, p, p) not in got and (opt + '-try', p, p) not in got and not (
                    opt in ('--tmpfs', '--ro-bind') and (
                        ('--tmpfs', p, '--remount-ro') in got or ('--ro-bind', '/dev/null', p) in got)) and not (
                    opt == '--ro-bind' and ('--tmpfs', p) in pairs):
                err('shell: name %d %r: no words %s %r' % (i, nm, opt, p))


# ---- Claude Code settings JSON ---------------------------------------------

def rule_regex(content):
    """A path pattern as Claude Code reads it (gitignore-style: '*' within a
    segment, '**' across segments, '?' one byte, '[...]' a class)."""
    out = []
    i = 0
    while i < len(content):
        if content.startswith('**', i):
            out.append('.*')
            i += 2
        elif content[i] == '*':
            out.append('[^/]*')
            i += 1
        elif content[i] == '?':
            out.append('[^/]')
            i += 1
        elif content[i] == '[' and ']' in content[i + 2:]:
            j = content.index(']', i + 2)
            body = content[i + 1:j]
            neg = body[:1] in ('!', '^')
            if neg:
                body = body[1:]
            out.append('[' + ('^' if neg else '') +
                       ''.join('\\' + c if c in '\\^[]' else c for c in body) + ']')
            i = j + 1
        else:
            out.append(re.escape(content[i]))
            i += 1
    return re.compile(''.join(out) + r'\Z', re.S)


GLOB = set('*?[')


def check_claude(weird, base, names, gates):
    try:
        doc = json.load(open(weird, encoding='utf-8'))
    except ValueError as e:
        err('claude: not JSON: %s' % e)
        return
    fs = doc.get('sandbox', {}).get('filesystem', {})
    for i, nm in enumerate(names):
        # An allow is exact, or left out (stricter) when Claude would read
        # the name as a glob; a deny entry, read as Claude reads it, must
        # cover the named path.
        p = '/' + W + '/%d/' % i + nm
        if p not in fs.get('allowWrite', []) and not (GLOB & set(nm)):
            err('claude: name %d %r: %r not in sandbox.filesystem.allowWrite' % (i, nm, p))
        for key, p in (('denyWrite', '/' + W + '/%d/' % i + nm + '/sub'),
                       ('denyRead', '/' + R + '/%d/' % i + nm)):
            if not any(rule_regex(e).match(p) for e in fs.get(key, [])):
                err('claude: name %d %r: no entry of sandbox.filesystem.%s covers %r'
                    % (i, nm, key, p))
    deny = doc.get('permissions', {}).get('deny', [])
    for r in deny:
        m = re.fullmatch(r'(Edit|Read|Bash)\((.*)\)', r, re.S)
        if not m or ')' in m.group(2) and m.group(1) != 'Bash':
            err('claude: permission rule %r does not read as TOOL(CONTENT)' % r)
    for i, nm in enumerate(names):
        for tool, p in (('Edit', '/' + W + '/%d/' % i + nm + '/sub'),
                        ('Read', '/' + R + '/%d/' % i + nm)):
            rules = [r[len(tool) + 1:-1] for r in deny if r.startswith(tool + '(')]
            if not any(rule_regex(c).match(p) for c in rules):
                err('claude: name %d %r: no %s(...) rule covers %r' % (i, nm, tool, p))
    table = doc.get('confpol', {}).get('gates', [])
    pats = [g.get('pattern') for g in table]
    for g in gates:
        if g not in pats:
            err('claude: gate pattern %r is not in the gate table %r' % (g, pats))
    # The hook command is a shell command line: it must split into exactly
    # the words it stands for.
    for grp in doc.get('hooks', {}).get('PreToolUse', []):
        for h in grp.get('hooks', []):
            cmd = h.get('command', '')
            r = subprocess.run(['sh', '-c', 'for a in ' + cmd + '; do printf "%s\\0" "$a"; done'],
                               capture_output=True)
            words = r.stdout.decode('utf-8', 'surrogateescape').split('\0')[:-1]
            # confpol-gate --sha256 PIN STEM.claude.json (spec/gate.md)
            if r.returncode != 0 or len(words) != 4 or \
                    words[0] != 'confpol-gate' or words[1] != '--sha256' or \
                    not re.fullmatch('[0-9a-f]{64}', words[2]) or \
                    not words[3].endswith('.claude.json'):
                err('claude: hook command %r splits into %r' % (cmd, words))


def main():
    kind, wdir, bdir, names_file = sys.argv[1:5]
    names = [json.loads(l) for l in open(names_file, encoding='utf-8') if l.strip()]
    gates = [json.loads(l) for l in open(names_file + '.gates', encoding='utf-8') if l.strip()]
    stem = 'inj'
    if kind == 'sbpl':
        check_sbpl(os.path.join(wdir, stem + '.sb'), os.path.join(bdir, stem + '.sb'), names)
    elif kind == 'bwrap':
        check_bwrap(os.path.join(wdir, stem + '.bwrap'), os.path.join(bdir, stem + '.bwrap'), names)
    elif kind == 'shell':
        check_shell(os.path.join(wdir, 'shell.txt'), os.path.join(bdir, 'shell.txt'), names)
    elif kind == 'claude':
        for f in os.listdir(wdir):
            if f.endswith('.claude.json'):
                check_claude(os.path.join(wdir, f), None, names, gates)
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


main()

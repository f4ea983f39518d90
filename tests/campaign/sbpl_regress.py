#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Regression attacks on the SBPL target, one per soundness class: each
builds a small policy, binds its params, and plays the attack on the SBPL
evaluator (tests/lib/sbpl_model.py) in both regex readings, comparing with
`confpol explain`.

usage: sbpl_regress.py CONFPOL WORKDIR"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
from sbpl_model import Profile, ProfileError, macos_path  # noqa: E402

CONFPOL, WORK = sys.argv[1], sys.argv[2]
failures = []


def build(name, body):
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, name + '.confpol')
    with open(src, 'w', encoding='utf-8') as f:
        f.write('confpol 1\nprofile confined\n' + body)
    out = os.path.join(d, 'out')
    os.makedirs(out, exist_ok=True)
    r = subprocess.run([CONFPOL, 'build', '--target', 'sbpl', '--fidelity',
                        '-o', out, src], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode:
        raise SystemExit('build of %s failed:\n%s' % (name, r.stderr.decode()))
    text = open(os.path.join(out, name + '.sb'), encoding='utf-8').read()
    return src, text, r.stdout.decode()


def explain(src, params, acc, path):
    args = [CONFPOL, 'explain']
    for k, v in params.items():
        args += ['-D', '%s=%s' % (k, v)]
    r = subprocess.run(args + [src, acc, path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode:
        raise SystemExit('explain failed: %s' % r.stderr.decode())
    return r.stdout.decode().split('\n', 1)[0].strip()


def expect(what, got, want):
    if got != want:
        failures.append('%s: got %s, want %s' % (what, got, want))


def profiles(text, params):
    return [Profile(text, params, reading=rd) for rd in ('bytes', 'chars')]


def check_model(src, text, params, acc, path, cls):
    """The profile, in both readings, is never looser than explain; returns
    explain's verdict."""
    want = explain(src, params, acc, path)
    for prof in profiles(text, params):
        got = prof.probe(acc, macos_path(path))
        if want == 'deny' and got:
            failures.append('%s: LOOSER (%s reading): %s %s allowed, explain '
                            'denies' % (cls, prof.reading, acc, path))
    return want


# -- class 1: renaming an ancestor of a param's value ------------------------
src, text, fid = build('anc', 'write /tmp\ndeny write ${PROJECT}/.git/hooks\n'
                       'deny read ${PROJECT}/.env\n')
params = {'HOME': '/home/u', 'PROJECT': '/private/tmp/w/proj'}
for prof in profiles(text, params):
    expect('class 1: mv /tmp/w /tmp/w2 (%s)' % prof.reading,
           prof.probe('rename', '/private/tmp/w', '/private/tmp/w2'), False)
    expect('class 1: write beside the project still allowed',
           prof.probe('create', '/private/tmp/w/other'), True)
try:
    Profile(text, params, strict=True)
    failures.append('class 1: the profile loads under a bare sandbox-exec -D '
                    'PROJECT=... without PROJECT:ancestors')
except ProfileError:
    pass
expect('class 1: the profile names the derived param',
       ';; confpol-ancestors PROJECT\n' in text, True)

# -- class 2: glob write roots -------------------------------------------------
src, text, fid = build('globroot', 'write /Users/s/*\n'
                       'deny read /Users/s/secret\n'
                       'deny write /Users/s/a/hooks\n')
params = {'HOME': '/home/u', 'PROJECT': '/home/u/p'}
for prof in profiles(text, params):
    expect('class 2: mv /Users/s/a (%s)' % prof.reading,
           prof.probe('rename', '/Users/s/a', '/Users/s/b'), False)
    expect('class 2: mv /Users/s/secret',
           prof.probe('rename', '/Users/s/secret', '/Users/s/x'), False)
    expect('class 2: link the secret',
           prof.probe('link', '/Users/s/secret', '/Users/s/x'), False)
    expect('clone the secret (%s)' % prof.reading,
           prof.probe('clone', '/Users/s/secret', '/Users/s/x'), False)
    expect('test -e the secret',
           prof.probe('exists', '/Users/s/secret'), False)
    expect('class 2: write in another child',
           prof.probe('write', '/Users/s/c/f'), True)
check_model(src, text, params, 'read', '/Users/s/secret/k', 'class 2')

# -- class 3: a param bound to / -------------------------------------------
src, text, fid = build('root', 'write ${PROJECT}\n'
                       'deny write ${PROJECT}/.git/hooks\n'
                       'deny read ${PROJECT}/**/*.key\n')
params = {'HOME': '/home/u', 'PROJECT': '/'}
for prof in profiles(text, params):
    expect('class 3: PROJECT=/: write /.git/hooks/x (%s)' % prof.reading,
           prof.probe('write', '/.git/hooks/x'), False)
    expect('class 3: PROJECT=/: read /a/b.key',
           prof.probe('read', '/a/b.key'), False)
    expect('class 3: PROJECT=/: write /a', prof.probe('write', '/a'), True)
check_model(src, text, params, 'write', '/.git/hooks/x', 'class 3')

# -- class 6: '?' counts bytes ---------------------------------------------
src, text, fid = build('bytes', 'write ${PROJECT}/w/?\n'
                       'write ${PROJECT}\n'
                       'deny read ${PROJECT}/??\n'
                       'deny write ${PROJECT}/q/*??\n')
params = {'HOME': '/home/u', 'PROJECT': '/home/u/p'}
# e-acute is two bytes, one character; the CJK character three bytes.
for name in ('ab', 'a', '\u00e9', '\u00e9x', '\u4e2d', 'x\u00e9'):
    for acc, path in (('read', '/home/u/p/' + name),
                      ('write', '/home/u/p/q/' + name),
                      ('write', '/home/u/p/w/' + name)):
        check_model(src, text, params, acc, path, 'class 6')
expect('class 6: two-byte name denied by ??',
       explain(src, params, 'read', '/home/u/p/\u00e9'), 'deny')
expect('class 6: the fidelity report names the byte question',
       "a '?' counts bytes" in fid, True)

# -- class 10: precision -----------------------------------------------------
src, text, fid = build('prec', 'write ${PROJECT}\n'
                       'deny write ${PROJECT}/**/*.lock\n')
params = {'HOME': '/home/u', 'PROJECT': '/home/u/p'}
for prof in profiles(text, params):
    expect('class 10: create a file below the project (%s)' % prof.reading,
           prof.probe('create', '/home/u/p/src/new.c'), True)
    expect('class 10: rename a directory below the project',
           prof.probe('rename', '/home/u/p/src', '/home/u/p/src2'), True)
    expect('class 10: write a lock', prof.probe('write', '/home/u/p/a/x.lock'),
           False)
expect('class 10: no stricter rating for the lock glob',
       [ln for ln in fid.split('\n') if '*.lock' in ln and 'stricter' in ln],
       [])

# -- hard links: a file outside the write roots ------------------------------
src, text, fid = build('links', 'write ${PROJECT}\n')
params = {'HOME': '/home/u', 'PROJECT': '/home/u/p'}
for prof in profiles(text, params):
    expect('links: ln ~/.bashrc PROJECT/x',
           prof.probe('link', '/home/u/.bashrc', '/home/u/p/x'), False)
expect('links: reported', 'hard links cannot be created' in fid, True)

# -- a segment glob never matches the empty name ------------------------------
# `[^/]*` matched the empty name: `write /*` made `/` itself writable (its
# mode, times, xattrs), the same glob in `deny read` denied reading `/`.
src, text, fid = build('rootstar', 'write /*\n'
                       'deny read /Volumes/*\n'
                       'write ${PROJECT}/*\n')
params = {'HOME': '/home/u', 'PROJECT': '/'}
for prof in profiles(text, params):
    expect('write /*: write / itself (%s)' % prof.reading,
           prof.probe('write', '/'), False)
    expect('write /*: write /tmp still allowed (%s)' % prof.reading,
           prof.probe('write', '/tmp'), True)
    expect('deny read /Volumes/*: / readable (%s)' % prof.reading,
           prof.probe('read', '/Volumes'), True)
    expect('deny read /Volumes/*: /Volumes/x denied (%s)' % prof.reading,
           prof.probe('read', '/Volumes/x'), False)
for acc, path in (('write', '/'), ('read', '/Volumes'),
                  ('write', '/Volumes/x'), ('write', '/a/b')):
    check_model(src, text, params, acc, path, 'empty name')
expect('no segment glob spells [^/]* alone',
       [ln for ln in text.split('\n') if '/[^/]*(' in ln or '/[^/]*"' in ln
        or '/[^/]*$' in ln], [])

src, text, fid = build('rootstar2', 'write ${HOME}\n'
                       'deny read ${PROJECT}/*\n')
for prof in profiles(text, params):
    expect('deny read ${PROJECT}/* with PROJECT=/: / readable (%s)'
           % prof.reading, prof.probe('read', '/'), True)
    expect('deny read ${PROJECT}/* with PROJECT=/: /etc denied (%s)'
           % prof.reading, prof.probe('read', '/etc'), False)
expect('explain: / readable', explain(src, params, 'read', '/'), 'allow')

for f in failures:
    print('FAIL: ' + f)
print('sbpl regressions: %d failures' % len(failures))
sys.exit(1 if failures else 0)

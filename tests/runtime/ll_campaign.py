#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Differential attack campaign: the Landlock enforcer against the bwrap
enforcer (spec/runtime.md §12), on seeded random trees and policies.

For each policy: two identical copies of a random tree (PROJECT and HOME),
the policy built once with `confpol build --target bwrap`, applied to one
copy with `confpol-run --enforcer bwrap` and to the other with
`--enforcer landlock`, each running the same probes: read, list, write an
existing file, create, mkdir, rename in place, move across directories,
move an ancestor of a denied path away and write at the new name, hard
link, symlink into a denied path, truncate.  Every probe undoes what it
did when it succeeds, so that both copies stay alike.

A probe that Landlock allows and bwrap denies is LOOSER: the campaign
fails; except a move between two write roots, which bwrap refuses with
EXDEV (two bind mounts) whatever the policy says: for those the decision
model (`confpol explain`) is the oracle.  One that Landlock denies and bwrap allows is stricter; each is
counted and must be announced by the plan (`--dry-run` notes name the
directory on the way to a carve-out, or the missing target's parent).

usage: ll_campaign.py SEED COUNT CONFPOL CONFPOL_RUN
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

NAMES = ['a', 'b', 'src', '.git', 'hooks', '.env', 'x.lock', 'cfg']

PROBE = r'''
import os, sys
P, H = sys.argv[1], sys.argv[2]
def R(i, f):
    try:
        f()
        print("R %d 0 0" % i)
    except OSError as e:
        print("R %d 1 %d" % (i, e.errno or 0))
    except Exception:
        print("R %d 1 0" % i)
    sys.stdout.flush()
def read(p):
    with open(p, 'rb') as f:
        f.read(1)
def ls(p):
    os.listdir(p)
def wopen(p):
    os.close(os.open(p, os.O_WRONLY))
def create(d):
    n = os.path.join(d, '.probe-new')
    os.close(os.open(n, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    os.unlink(n)
def mkd(d):
    n = os.path.join(d, '.probe-dir')
    os.mkdir(n)
    os.rmdir(n)
def inplace(p):
    os.rename(p, p + '.probe')
    os.rename(p + '.probe', p)
def move(p, d):
    n = os.path.join(d, '.probe-moved')
    os.rename(p, n)
    os.rename(n, p)
def ancestor(anc, rest):
    # move the ancestor away, write at the new name, move it back
    os.rename(anc, anc + '.probe')
    try:
        t = os.path.join(anc + '.probe', rest)
        if os.path.isdir(t):
            create(t)
        else:
            wopen(t)
    finally:
        os.rename(anc + '.probe', anc)
def hardlink(p, d):
    n = os.path.join(d, '.probe-link')
    os.link(p, n)
    try:
        wopen(n)
    finally:
        os.unlink(n)
def symlink_into(target, d):
    n = os.path.join(d, '.probe-sym')
    os.symlink(target, n)
    try:
        if os.path.isdir(n):
            create(n)
        else:
            wopen(n)
    finally:
        os.unlink(n)
def trunc(p):
    os.truncate(p, os.path.getsize(p))
'''


def make_tree(rng, top):
    """Returns (dirs, files) relative to top ('proj/...', 'home/...')."""
    dirs, files = ['proj', 'home'], []
    for base in ('proj', 'home'):
        for n in rng.sample(NAMES, rng.randint(2, 4)):
            d = base + '/' + n
            if rng.random() < 0.7:
                dirs.append(d)
                for m in rng.sample(NAMES, rng.randint(0, 3)):
                    if rng.random() < 0.6:
                        files.append(d + '/' + m)
                    else:
                        dirs.append(d + '/' + m)
                        if rng.random() < 0.5:
                            files.append(d + '/' + m + '/f')
            else:
                files.append(d)
    for d in dirs:
        os.makedirs(os.path.join(top, d), exist_ok=True)
    for f in files:
        with open(os.path.join(top, f), 'w') as fh:
            fh.write('x\n')
    return dirs, files


def param_path(rel):
    base, _, rest = rel.partition('/')
    root = '${PROJECT}' if base == 'proj' else '~'
    return root + ('/' + rest if rest else '')


def make_policy(rng, dirs, files):
    lines = ['confpol 1', 'profile confined']
    cands = [d for d in dirs if d not in ('proj', 'home')] + files
    writes = ['proj'] if rng.random() < 0.6 else rng.sample(
        [d for d in dirs if d.startswith('proj/')] or ['proj'], 1)
    if rng.random() < 0.4:
        writes.append(rng.choice([d for d in dirs if d.startswith('home')]))
    for w in writes:
        lines.append('write ' + param_path(w))
    denies = []
    for _ in range(rng.randint(1, 3)):
        t = rng.choice(cands)
        if rng.random() < 0.3:  # a missing target
            t = rng.choice([d for d in dirs]) + '/' + rng.choice(['missing', '.claude', 'hooks2'])
        denies.append(('write', t))
    for _ in range(rng.randint(0, 2)):
        t = rng.choice(cands)
        if rng.random() < 0.2:
            t = rng.choice(dirs) + '/.secret'
        denies.append(('read', t))
    for kind, t in denies:
        lines.append('deny %s %s' % (kind, param_path(t)))
    return '\n'.join(lines) + '\n', denies


def probes(rng, dirs, files, denies):
    """(description, python expression over P and H, the paths it touches,
    paths the model must allow writing for it to be allowed or None)."""
    def j(rel):
        base, _, rest = rel.partition('/')
        return '(%s + %r)' % ('P' if base == 'proj' else 'H', ('/' + rest) if rest else '')
    out = []
    for f in files:
        out.append(('read ' + f, 'read(%s)' % j(f), [f], None))
        out.append(('write ' + f, 'wopen(%s)' % j(f), [f], None))
        out.append(('truncate ' + f, 'trunc(%s)' % j(f), [f], None))
    for d in dirs:
        out.append(('list ' + d, 'ls(%s)' % j(d), [d], None))
        out.append(('create in ' + d, 'create(%s)' % j(d), [d + '/.probe-new'], None))
        out.append(('mkdir in ' + d, 'mkd(%s)' % j(d), [d + '/.probe-dir'], None))
    for p in rng.sample(dirs[2:] + files, min(6, len(dirs) - 2 + len(files))):
        out.append(('rename in place ' + p, 'inplace(%s)' % j(p), [p], None))
        other = rng.choice(dirs)
        if not (other + '/').startswith(p + '/'):
            out.append(('move %s into %s' % (p, other), 'move(%s, %s)' % (j(p), j(other)),
                        [p, other + '/.probe-moved'], [p, other + '/.probe-moved']))
    for kind, t in denies:
        parts = t.split('/')
        for k in range(2, len(parts)):
            anc = '/'.join(parts[:k])
            rest = '/'.join(parts[k:])
            out.append(('move ancestor %s of %s away and write there' % (anc, t),
                        'ancestor(%s, %r)' % (j(anc), rest), [anc], None))
        if t in files:
            d = rng.choice(dirs)
            out.append(('hard-link %s into %s and write' % (t, d),
                        'hardlink(%s, %s)' % (j(t), j(d)), [t, d + '/.probe-link'], None))
        d = rng.choice(dirs)
        out.append(('symlink to %s from %s and write' % (t, d),
                    'symlink_into(%s, %s)' % (j(t), j(d)), [t, d + '/.probe-sym'], None))
    return out


def announced(run, art, top):
    """Directories the Landlock plan names in its notes as stricter."""
    p = os.path.join(top, 'proj')
    h = os.path.join(top, 'home')
    r = subprocess.run([run, '--enforcer', 'landlock', '--allow-unenforced', '--dry-run', '-D', 'PROJECT=' + p,
                        '-D', 'HOME=' + h, art], capture_output=True, text=True, cwd=p)
    dirs = set()
    for line in r.stdout.splitlines():
        if not line.startswith('note: '):
            continue
        q = line.split("'")
        if len(q) >= 3:
            path = q[1]
            if 'missing deny target' in line:
                path = os.path.dirname(path)
            dirs.add(path)
    return dirs


def is_announced(notes, top, rels):
    """A stricter probe is announced when a note names the path it touches
    or the directory that path lies in."""
    for rel in rels:
        base, _, rest = rel.partition('/')
        path = os.path.join(top, base) + ('/' + rest if rest else '')
        if path in notes or os.path.dirname(path) in notes:
            return True
    return False


def run_probes(run, enforcer, art, top, plist, script):
    with open(script, 'w') as f:
        f.write(PROBE)
        for i, pr in enumerate(plist):
            f.write('R(%d, lambda: %s)\n' % (i, pr[1]))
    p = os.path.join(top, 'proj')
    h = os.path.join(top, 'home')
    # Landlock refuses a deny read without --allow-unenforced: its metadata
    # is not hidden (spec/runtime.md 12.2); contents are what is probed.
    extra = ['--allow-unenforced'] if enforcer == 'landlock' else []
    r = subprocess.run([run, '--enforcer', enforcer] + extra + ['-q', '-D', 'PROJECT=' + p, '-D', 'HOME=' + h,
                        art, '--', 'python3', script, p, h],
                       cwd=p, capture_output=True, text=True, timeout=60)
    res = {}
    for line in r.stdout.splitlines():
        w = line.split()
        if len(w) == 4 and w[0] == 'R':
            res[int(w[1])] = (w[2] == '0', int(w[3]))
    return res, r


def model_allows(confpol, pol, top, rels):
    """The decision model (confpol explain) on writing every path of rels."""
    p = os.path.join(top, 'proj')
    h = os.path.join(top, 'home')
    for rel in rels:
        base, _, rest = rel.partition('/')
        path = (p if base == 'proj' else h) + ('/' + rest if rest else '')
        r = subprocess.run([confpol, 'explain', '-D', 'PROJECT=' + p, '-D', 'HOME=' + h, pol,
                            'write', path], capture_output=True, text=True)
        if not r.stdout.startswith('allow'):
            return False
    return True


def main():
    seed, count, confpol, run = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    base = tempfile.mkdtemp(prefix='confpol-llc.', dir='/var/tmp')
    looser = stricter = same = total = exdev = unannounced = skipped = 0
    try:
        for k in range(count):
            rng = random.Random(seed * 100003 + k)
            case = os.path.join(base, str(k))
            ta, tb, out = case + '/a', case + '/b', case + '/out'
            os.makedirs(out)
            dirs, files = make_tree(random.Random(seed * 7 + k), ta)
            make_tree(random.Random(seed * 7 + k), tb)
            text, denies = make_policy(rng, dirs, files)
            pol = case + '/p.confpol'
            with open(pol, 'w') as f:
                f.write(text)
            b = subprocess.run([confpol, 'build', '--target', 'bwrap', '-o', out, pol],
                               capture_output=True, text=True)
            if b.returncode:
                # (a generated conflict, e.g. the same path written and denied)
                print('# case %d: build failed: %s' % (k, b.stderr.strip().split('\n')[0][:200]))
                skipped += 1
                continue
            art = out + '/p.bwrap'
            plist = probes(rng, dirs, files, denies)
            rb, pb = run_probes(run, 'bwrap', art, ta, plist, case + '/probe-a.py')
            rl, pl = run_probes(run, 'landlock', art, tb, plist, case + '/probe-b.py')
            if len(rb) != len(plist) or len(rl) != len(plist):
                print('FAIL case %d: probes did not all run (bwrap %d, landlock %d of %d): %s %s'
                      % (k, len(rb), len(rl), len(plist), pb.stderr[-300:], pl.stderr[-300:]))
                looser += 1
                continue
            notes = None
            for i, pr in enumerate(plist):
                desc = pr[0]
                total += 1
                lok, bok = rl[i][0], rb[i][0]
                # A move between two bind mounts fails with EXDEV under bwrap
                # whatever the policy says: the decision model is the oracle.
                if lok and not bok and rb[i][1] == 18 and pr[3]:
                    if model_allows(confpol, pol, tb, pr[3]):
                        exdev += 1
                        continue
                if lok and not bok:
                    looser += 1
                    print('LOOSER case %d (seed %d): %s: landlock allows, bwrap denies\n%s'
                          % (k, seed, desc, text))
                elif bok and not lok:
                    stricter += 1
                    if notes is None:
                        notes = announced(run, art, tb)
                    if not is_announced(notes, tb, pr[2]):
                        unannounced += 1
                        print('UNANNOUNCED STRICTER case %d (seed %d): %s\n%s'
                              % (k, seed, desc, text))
                else:
                    same += 1
            shutil.rmtree(case, ignore_errors=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print('campaign seed %d: %d policies (%d not built), %d probes: %d same, %d stricter under Landlock, '
          '%d allowed by the model where bwrap gives EXDEV, %d looser, %d stricter unannounced'
          % (seed, count, skipped, total, same, stricter, exdev, looser, unannounced))
    return 1 if looser or unannounced else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A seeded attack campaign against the SBPL target.

Random policies (nested and overlapping write roots and denies, globs with
'*', '**' and '?', multibyte names, params with nested bindings: a param
inside a write root, HOME inside PROJECT and the reverse, a param bound to
/) are built with `confpol build --target sbpl --fidelity`.  For each
binding, probes (each rule's path, a child, a grandchild, a sibling, the
parent, glob instances and near misses) are decided by the decision model
(the decide_batch helper: the same cp_decide call as `confpol explain`,
cross-checked with the real `confpol explain` on a sample) and observed on
the SBPL evaluator (tests/lib/sbpl_model.py) in both regex readings, bytes
and characters:

* read, write, create and unlink of each probe;
* rename of every ancestor of a protected probe, then the denied access at
  the new name, then the rename back;
* a hard link to a protected probe, or to a file outside every write root,
  from inside a write root.

A looser observation fails.  A stricter one fails unless the fidelity
report rates some rule stricter for that reason (hard links, renaming, or
a byte-counting '?'), or the probe lies in the build's own control plane.

usage: sbpl_campaign.py CONFPOL DECIDE_BATCH WORKDIR SEED COUNT"""
import fnmatch
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
from sbpl_model import Profile, macos_path  # noqa: E402

WRITES = ['${PROJECT}', '${PROJECT}/build', '~', '~/.cache', '/tmp',
          '/tmp/w', '/srv/*/out', '/srv/*', '${PROJECT}/*/gen', '/Users/s/*',
          '${PROJECT}/**/tmp', '/srv/a/out']
DENIES = ['${PROJECT}/.git/hooks', '${PROJECT}/.env', '~/.ssh',
          '${PROJECT}/**/*.lock', '${PROJECT}/??', '${PROJECT}/a/?x',
          '${PROJECT}/*/hooks', '/tmp/w/proj/.git', '~/.config/*.pem',
          '/srv/a/out/secret', '/Users/s/secret', '/Users/s/a/hooks',
          '${PROJECT}/q/*??', '${PROJECT}/\u00e9*', '${PROJECT}/conf/**/secret',
          '/tmp/w', '${PROJECT}/build/x', '~/.cache/k', '${PROJECT}/\u00e9?',
          '/srv/*/out/.git', '${PROJECT}/gen/?']
BINDINGS = [('/home/u', '/home/u/proj'), ('/home/u', '/home/u'),
            ('/home/u/p/h', '/home/u/p'), ('/home/u', '/tmp/w/proj'),
            ('/home/u', '/'), ('/Users/s', '/Users/s/a'),
            ('/home/u', '/srv/a/out/p'), ('/', '/tmp/w/proj'),
            ('/tmp/w/proj/home', '/tmp/w/proj')]
EXECS = ['/usr/bin', '${PROJECT}/bin', '~/.local/bin/*', '/tmp/w/tool',
         '${PROJECT}/??']
STAR = ['x', 'ab', '\u00e9', '']
QMARK = ['a', '\u00e9', 'ab']
ANY = ['', 'd', 'd/e']


def expand(pat, params, rng):
    """A few concrete paths the pattern may name, near misses included."""
    if pat.startswith('~'):
        pat = params['HOME'].rstrip('/') + pat[1:]
    pat = pat.replace('${PROJECT}', params['PROJECT'].rstrip('/'))
    if not pat.startswith('/'):
        pat = '/' + pat
    outs = set()
    for _ in range(4):
        segs = []
        for seg in pat.split('/')[1:]:
            if seg == '**':
                v = rng.choice(ANY)
                if v:
                    segs.append(v)
                continue
            s = ''
            for c in seg:
                if c == '*':
                    s += rng.choice(STAR)
                elif c == '?':
                    s += rng.choice(QMARK)
                else:
                    s += c
            segs.append(s or 'y')
        outs.add('/' + '/'.join(segs))
    return outs


def neighbours(p):
    parent = p.rsplit('/', 1)[0] or '/'
    out = {p, p + '/c', p + '/c/g', p + 'x', parent}
    if p != '/':
        out.add(parent.rstrip('/') + '/sib')
    return out


def pattern_segs(pat, params):
    """The segments of a rule's pattern under a binding."""
    if pat.startswith('"') and pat.endswith('"'):
        pat = pat[1:-1]
    if pat.startswith('~'):
        pat = params['HOME'].rstrip('/') + pat[1:]
    pat = pat.replace('${PROJECT}', params['PROJECT'].rstrip('/'))
    return [x for x in pat.split('/') if x]


def seg_match(pat, name):
    """One glob segment against a name, in either reading (bytes, chars):
    the reasons are looked up leniently, the decisions are not."""
    if fnmatch.fnmatchcase(name, pat):
        return True
    lat = lambda s: s.encode('utf-8').decode('latin-1')  # noqa: E731
    return fnmatch.fnmatchcase(lat(name), lat(pat))


def within(ps, xs):
    """xs is a match of ps or lies beneath one."""
    def m(i, j):
        if i == len(ps):
            return True
        if ps[i] == '**':
            return m(i + 1, j) or (j < len(xs) and m(i, j + 1))
        return j < len(xs) and seg_match(ps[i], xs[j]) and m(i + 1, j + 1)
    return m(0, 0)


def prefix_of(ps, xs):
    """xs is an ancestor (or the root) of some match of ps."""
    def m(i, j):
        if j == len(xs):
            return True
        if i == len(ps):
            return False
        if ps[i] == '**':
            return m(i + 1, j) or m(i, j + 1)
        return seg_match(ps[i], xs[j]) and m(i + 1, j + 1)
    return m(0, 0)


def ancestors(p):
    """Every proper ancestor below / (nearest last)."""
    segs = [s for s in p.split('/') if s]
    return ['/' + '/'.join(segs[:i]) for i in range(1, len(segs))]


class Oracle:
    def __init__(self, helper, confpol, src, params):
        self.helper, self.confpol = helper, confpol
        self.src, self.params = src, params
        self.cache = {}

    def prefetch(self, qs):
        qs = sorted(set(q for q in qs if q not in self.cache))
        if not qs:
            return
        args = [self.helper, self.src] + \
            ['%s=%s' % kv for kv in sorted(self.params.items())]
        r = subprocess.run(args, input=''.join('%s %s\n' % q
                                               for q in qs).encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode:
            raise RuntimeError('decide_batch: ' + r.stderr.decode())
        for q, v in zip(qs, r.stdout.decode().split('\n')):
            self.cache[q] = v

    def sample_explain(self, rng):
        """The helper agrees with the real `confpol explain`."""
        for q in rng.sample(sorted(self.cache), min(2, len(self.cache))):
            args = [self.confpol, 'explain']
            for k, v in sorted(self.params.items()):
                args += ['-D', '%s=%s' % (k, v)]
            r = subprocess.run(args + [self.src, q[0], q[1]],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            got = r.stdout.decode().split('\n', 1)[0].strip()
            if got != self.cache[q]:
                raise RuntimeError('explain and the helper disagree on %r'
                                   % (q,))

    def __call__(self, acc, p):
        self.prefetch([(acc, p)])
        return self.cache[(acc, p)] == 'allow'


class Campaign:
    def __init__(self, confpol, helper, work):
        self.confpol, self.helper, self.work = confpol, helper, work
        self.counts = {'policies': 0, 'refused': 0, 'bindings': 0,
                       'probes': 0, 'looser': 0, 'stricter': 0,
                       'stricter_unreported': 0, 'attacks': 0}
        self.fail = []
        self.refusals = []

    def policy(self, rng, i):
        lines = ['confpol 1', 'profile confined']
        for w in rng.sample(WRITES, rng.randint(1, 3)):
            lines.append('write ' + w)
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice(['deny write', 'deny read', 'deny exec'])
            lines.append('%s %s' % (kind, rng.choice(DENIES)))
        if rng.random() < 0.3:
            for x in rng.sample(EXECS, rng.randint(1, 2)):
                lines.append('exec ' + x)
        return '\n'.join(lines) + '\n'

    def build(self, text, i):
        d = os.path.join(self.work, 'p%d' % i)
        os.makedirs(os.path.join(d, 'out'), exist_ok=True)
        src = os.path.join(d, 'p.confpol')
        with open(src, 'w', encoding='utf-8') as f:
            f.write(text)
        r = subprocess.run([self.confpol, 'build', '--target', 'sbpl',
                            '--fidelity', '-o', os.path.join(d, 'out'), src],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode:
            err = [ln for ln in r.stderr.decode().split('\n') if 'error:' in ln]
            self.refusals.append(err[0] if err else 'exit %d' % r.returncode)
            return src, None, None
        sb = open(os.path.join(d, 'out', 'p.sb'), encoding='utf-8').read()
        stricter = []
        for ln in r.stdout.decode().split('\n'):
            cols = ln.split('\t')
            if len(cols) < 4 or cols[1:3] != ['sbpl', 'stricter']:
                continue
            m = re.search(r'(?:^|: )((?:deny )?(?:write|read|exec) (.*))$',
                          cols[0])
            if m:
                stricter.append((m.group(1).split(' ')[0], m.group(2),
                                 cols[3]))
        return src, sb, stricter

    def report(self, kind, msg):
        self.counts[kind] += 1
        if len(self.fail) < 40:
            self.fail.append('%s: %s' % (kind.upper(), msg))

    def stricter(self, reasons, need, msg, path=None, params=None,
                 rel=None):
        """A stricter answer must be reported by a rule rated stricter for
        that reason; with `path`, by a rule whose pattern relates to it
        (rel: 'ancestor', the path is a match's ancestor, a match or
        beneath one; 'within', a match or beneath one)."""
        self.counts['stricter'] += 1
        needs = need if isinstance(need, tuple) else (need,)
        for kind, pat, why in reasons:
            if not any(n in why for n in needs):
                continue
            if path is None:
                return
            segs = pattern_segs(pat, params)
            if "'?'" in why:
                # The widened regex: a run of k '?' takes ceil(k/4)..k.
                segs = [x.replace('?', '*') for x in segs]
            xs = [x for x in path.split('/') if x]
            if within(segs, xs) or (rel == 'ancestor' and prefix_of(segs, xs)):
                return
        self.report('stricter_unreported', msg + ' (no rule rated stricter '
                    'for %r%s)' % (need, ' that names it' if path else ''))

    def run_one(self, rng, i):
        text = self.policy(rng, i)
        src, sb, reasons = self.build(text, i)
        if sb is None:
            self.counts['refused'] += 1
            return
        self.counts['policies'] += 1
        rules = [ln.split(' ', 2) for ln in text.split('\n')[2:] if ln]
        for home, proj in rng.sample(BINDINGS, 2):
            self.counts['bindings'] += 1
            params = {'HOME': home, 'PROJECT': proj}
            self.binding(rng, text, src, sb, reasons, rules, params)

    def binding(self, rng, text, src, sb, reasons, rules, params):
        where = '%s with HOME=%s PROJECT=%s' % (
            text.replace('\n', '; '), params['HOME'], params['PROJECT'])
        oracle = Oracle(self.helper, self.confpol, src, params)
        self.params = params
        sbparams = {k: macos_path(v) for k, v in params.items()}
        profs = [Profile(sb, sbparams, reading=r) for r in ('bytes', 'chars')]
        paths = set()
        protected = set()
        for r in rules:
            for p in expand(r[-1], params, rng):
                paths |= neighbours(p)
                if r[0] == 'deny':
                    protected.add(p)
        paths = sorted(p for p in paths if '//' not in p)
        oracle.prefetch([(a, p) for p in paths
                         for a in ('read', 'write', 'exec')])
        oracle.sample_explain(rng)
        for p in paths:
            self.counts['probes'] += 1
            mp = macos_path(p)
            for op in ('read', 'write', 'create', 'unlink', 'exec'):
                want = oracle(op if op in ('read', 'exec') else 'write', p)
                for prof in profs:
                    got = prof.probe(op, mp)
                    if got and not want:
                        self.report('looser', '%s %s (%s reading): %s' %
                                    (op, p, prof.reading, where))
                    elif want and not got:
                        # a widened '?' denies creating and deleting too
                        need = {'read': "'?'", 'write': "'?'", 'exec': "'?'",
                                'create': ('renam', "'?'"),
                                'unlink': ('renam', "'?'")}[op]
                        self.stricter(reasons, need, '%s %s (%s): %s' %
                                      (op, p, prof.reading, where), p, params,
                                      'within' if op in ('read', 'write',
                                                         'exec')
                                      else 'ancestor')
        for p in sorted(protected):
            self.attacks(oracle, profs, reasons, p, where)

    def attacks(self, oracle, profs, reasons, p, where):
        # (self.params: the binding of the current round)
        """Rename every ancestor away and back; hard-link the path."""
        denied = [a for a in ('read', 'write') if not oracle(a, p)]
        if not denied:
            return
        for anc in ancestors(p) + [p]:
            dest = anc + '.moved'
            newp = dest + p[len(anc):]
            self.counts['attacks'] += 1
            for prof in profs:
                mv = prof.probe('rename', macos_path(anc), macos_path(dest))
                back = prof.probe('rename', macos_path(dest), macos_path(anc))
                model_mv = oracle('write', anc) and oracle('write', dest)
                for a in denied:
                    at_new = prof.probe(a, macos_path(newp))
                    if mv and back and at_new:
                        self.report('looser', 'mv %s %s; %s %s; mv back (%s): '
                                    '%s' % (anc, dest, a, newp, prof.reading,
                                            where))
                if model_mv and not (mv and back):
                    self.stricter(reasons, 'renam', 'mv %s (%s): %s' %
                                  (anc, prof.reading, where), anc,
                                  self.params, 'ancestor')
        # A clone of a deny-read file is a readable copy; its existence
        # is what a read would tell.
        if 'read' in denied:
            for prof in profs:
                self.counts['attacks'] += 2
                if prof.probe('clone', macos_path(p), '/private/tmp/w/cl'):
                    self.report('looser', 'clone %s (%s): %s' %
                                (p, prof.reading, where))
                if prof.probe('exists', macos_path(p)):
                    self.report('looser', 'test -e %s (%s): %s' %
                                (p, prof.reading, where))
        # A hard link in a write root: a second name for the protected file.
        for prof in profs:
            for newp in ('/tmp/w/ln', '/home/u/proj/ln', '/Users/s/b/ln'):
                self.counts['attacks'] += 1
                ok = prof.probe('link', macos_path(p), macos_path(newp))
                gives = any(oracle(a, newp) for a in denied)
                if ok and gives:
                    self.report('looser', 'ln %s %s (%s): %s' %
                                (p, newp, prof.reading, where))
                elif not ok and oracle('write', newp):
                    self.stricter(reasons, 'hard links', 'ln %s %s: %s' %
                                  (p, newp, where))


def main():
    confpol, helper, work, seed, count = sys.argv[1:6]
    c = Campaign(confpol, helper, work)
    rng = random.Random(int(seed))
    for i in range(int(count)):
        c.run_one(rng, i)
    for f in c.fail:
        print(f)
    for f in sorted(set(c.refusals)):
        print('refused: ' + f)
    print('sbpl campaign seed %s: %s' % (seed, ', '.join(
        '%s %d' % kv for kv in c.counts.items())))
    return 1 if c.counts['looser'] or c.counts['stricter_unreported'] else 0


if __name__ == '__main__':
    sys.exit(main())

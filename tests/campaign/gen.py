"""The attack campaign's target-independent half: a seeded generator of
random policies with the host tree they apply to, the probes and attacks
per rule, and the oracle (`confpol explain`).  A target (bwrap.py; SBPL
and Claude models can be added the same way) observes the probes and the
attacks; run.py compares.  The interface is documented in README.md.

Everything here is deterministic for a given seed and base directory: the
same seed gives the same policies, trees, probes and attacks."""

import fnmatch
import os
import random
import shutil
import subprocess

SECRET = 'SECRET-'

# ---------------------------------------------------------------- model --


class Case:
    """One random policy and the host tree it is applied to.

    base      the campaign's scratch directory (canonical), holding the tree
    text      the policy source
    bindings  {'HOME': ..., 'PROJECT': ..., 'CACHE': ...}: the values the
              runtime binds (HOME from the environment, PROJECT as the
              working directory, the rest with -D)
    declared  params declared with `param`
    rules     [(kind, pattern_text, concrete_pattern)]: kind in write,
              deny-write, deny-read, exec; concrete_pattern with the
              bindings substituted (globs kept)
    tree      {path: None (directory) | bytes (file) | ('link', target)}
    missing   deny targets deliberately absent from the tree
    """

    def __init__(self, seed, index, base):
        self.seed, self.index, self.base = seed, index, base
        self.text = ''
        self.bindings = {}
        self.declared = []
        self.rules = []
        self.tree = {}
        self.missing = []
        self.exec_list = False

    @property
    def name(self):
        return 'seed%d-case%d' % (self.seed, self.index)

    def sub(self, pattern):
        """The concrete path (or pattern) of a policy path."""
        if pattern.startswith('~'):
            return self.bindings['HOME'] + pattern[1:]
        if pattern.startswith('${'):
            name, rest = pattern[2:].split('}', 1)
            v = self.bindings[name]
            return (v.rstrip('/') + rest) if rest else v
        return pattern


def _seg(rng):
    return rng.choice(['a', 'b', 'src', '.git', 'hooks', 'keys', '.env',
                       'x', 'sub', 'build', 'out', '.ssh', 'd1'])


def generate(seed, index, base):
    """Case number `index` of campaign `seed`, its tree rooted at `base`."""
    rng = random.Random('%d/%d' % (seed, index))
    c = Case(seed, index, base)
    # Bindings: HOME and PROJECT nested either way or equal, CACHE inside
    # a write root or apart, R bound to "/" (a param whose value is '/').
    shape = rng.choice(['apart', 'proj-in-home', 'home-in-proj', 'equal'])
    home, proj = base + '/home', base + '/proj'
    if shape == 'proj-in-home':
        proj = home + '/code/proj'
    elif shape == 'home-in-proj':
        home = proj + '/h'
    elif shape == 'equal':
        proj = home
    cache = rng.choice([base + '/cache', proj + '/cache', home + '/.cache'])
    c.bindings = {'HOME': home, 'PROJECT': proj, 'CACHE': cache, 'R': '/'}
    c.declared = ['CACHE', 'R']
    for d in (home, proj, cache):
        _mkdirs(c.tree, d, base)

    roots = ['${PROJECT}', '~', '${CACHE}', base, '${PROJECT}/' + _seg(rng),
             '${R}' + base + '/w']
    writes = rng.sample(roots, rng.randint(1, 3))
    _mkdirs(c.tree, base + '/w', base)
    lines = ['confpol 1', 'profile confined', 'param CACHE', 'param R']
    lines.append('write ' + ' '.join(writes))
    for w in writes:
        c.rules.append(('write', w, c.sub(w)))
    # Denies below (or across) the write roots: literal, missing, globs.
    anchors = ['${PROJECT}', '~', '${CACHE}', '${PROJECT}/' + _seg(rng)]
    n = 0
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(['deny write', 'deny read'])
        anchor = rng.choice(anchors)
        depth = rng.randint(1, 3)
        segs = [_seg(rng) for _ in range(depth)]
        form = rng.random()
        if form < 0.15:
            segs[-1] = '*.key'
        elif form < 0.25:
            segs[0] = '?'
        elif form < 0.3:
            segs = ['**', 'x.pem']
        pat = anchor + '/' + '/'.join(segs)
        if pat in writes:
            pat += '/' + _seg(rng)  # 'write X' with 'deny write X' is an error (CP0503)
        c.rules.append((kind.replace(' ', '-'), pat, c.sub(pat)))
        lines.append('%s %s' % (kind, pat))
        concrete = c.sub(pat)
        if any(ch in pat for ch in '*?'):
            # Instances of the glob in the tree.
            inst = concrete.replace('**/', 'a/').replace('*.key', 'k.key') \
                .replace('/?/', '/a/').replace('x.pem', 'x.pem')
            _file(c.tree, inst, (SECRET + '%d' % n).encode(), base)
        elif rng.random() < 0.3:
            c.missing.append(concrete)
        elif rng.random() < 0.5:
            _mkdirs(c.tree, concrete, base)
            _file(c.tree, concrete + '/f', (SECRET + '%d' % n).encode(), base)
        else:
            _file(c.tree, concrete, (SECRET + '%d' % n).encode(), base)
        n += 1
    # An exec allow-list (the interpreter the probes need is on it).
    if rng.random() < 0.3:
        c.exec_list = True
        lines.append('exec /usr/bin /usr/lib /usr/lib64 /usr/libexec ${PROJECT}/tools')
        for x in ('/usr/bin', '/usr/lib', '/usr/lib64', '/usr/libexec', '${PROJECT}/tools'):
            c.rules.append(('exec', x, c.sub(x)))
        _mkdirs(c.tree, c.sub('${PROJECT}/tools'), base)
        _mkdirs(c.tree, c.sub('${PROJECT}/other'), base)
    # A symlink planted in a write root pointing into a denied region.
    denied = [r for r in c.rules if r[0].startswith('deny') and '*' not in r[1]
              and '?' not in r[1]]
    if denied and rng.random() < 0.5:
        _mkdirs(c.tree, proj, base)
        c.tree[proj + '/link'] = ('link', rng.choice(denied)[2])
    c.text = '\n'.join(lines) + '\n'
    return c


def _mkdirs(tree, d, base):
    while d.startswith(base) and tree.get(d, 0) is not None:
        if isinstance(tree.get(d), bytes):
            tree[d + '/f'] = tree[d]  # a file where a directory is needed
        tree[d] = None
        d = os.path.dirname(d)


def _file(tree, p, content, base):
    _mkdirs(tree, os.path.dirname(p), base)
    if p in tree and tree[p] is None:
        p += '/f'
    tree[p] = content


def materialise(c):
    """Creates the tree on the host (after removing what was there)."""
    for name in os.listdir(c.base):
        p = os.path.join(c.base, name)
        if name in ('out', 'agent.py', 'plan.json'):
            continue
        _force_rm(p)
    for p in sorted(c.tree, key=lambda q: (q.count('/'), q)):
        v = c.tree[p]
        if v is None:
            os.makedirs(p, exist_ok=True)
        elif isinstance(v, tuple):
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if not os.path.lexists(p):
                os.symlink(v[1], p)
        else:
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if os.path.isdir(p):
                continue
            with open(p, 'wb') as f:
                f.write(v)
    if c.exec_list:
        for d in ('tools', 'other'):
            t = c.sub('${PROJECT}/' + d + '/t')
            shutil.copy('/usr/bin/true', t)
    with open(os.path.join(c.bindings['PROJECT'], 'p.confpol'), 'w') as f:
        f.write(c.text)


def _force_rm(p):
    if os.path.islink(p) or not os.path.isdir(p):
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
        return
    for root, dirs, _ in os.walk(p):
        for d in dirs:
            try:
                os.chmod(os.path.join(root, d), 0o755)
            except OSError:
                pass
    os.chmod(p, 0o755)
    shutil.rmtree(p, ignore_errors=True)


def snapshot(c):
    """The host tree under base (outside out/): {path: kind/content}."""
    snap = {}
    for root, dirs, files in os.walk(c.base):
        if root == c.base:
            dirs[:] = [d for d in dirs if d != 'out']
        for name in dirs + files:
            p = os.path.join(root, name)
            if os.path.islink(p):
                snap[p] = ('link', os.readlink(p))
            elif os.path.isdir(p):
                snap[p] = 'dir'
            else:
                try:
                    snap[p] = open(p, 'rb').read()
                except OSError:
                    snap[p] = 'unreadable'
    return snap

# --------------------------------------------------------------- probes --


def probes(c):
    """[(access, path)]: per rule the path, a child, a grandchild, a
    sibling, the parent, glob instances and near misses; plus the tree."""
    out = set()
    for kind, pat, conc in c.rules:
        inst = conc.replace('**/', 'a/').replace('*.key', 'k.key') \
            .replace('/?/', '/a/')
        paths = [inst, inst + '/probe-child', inst + '/c/probe-grand',
                 inst + '-sib', os.path.dirname(inst),
                 inst.replace('k.key', 'k.kez'), inst + 'x']
        if '*.key' in conc:
            paths.append(conc.replace('*.key', '.hidden.key'))
        for p in paths:
            if p.startswith(c.base) and '*' not in p and '?' not in p:
                out.add(('read', p))
                out.add(('write', p))
    for p in c.tree:
        if not isinstance(c.tree[p], tuple):
            out.add(('read', p))
            out.add(('write', p))
    if c.exec_list:
        for d in ('tools', 'other'):
            out.add(('exec', c.sub('${PROJECT}/' + d + '/t')))
    return sorted(out)


def attacks(c):
    """[(name, shell script)]: each run in its own sandbox; afterwards the
    host must show no change to a protected path (see violations)."""
    out = []
    writable = [r[2] for r in c.rules if r[0] == 'write']
    for kind, pat, conc in c.rules:
        if not kind.startswith('deny') or '*' in pat or '?' in pat:
            continue
        # Rename or move every ancestor inside a write root, then write or
        # read at the new name, and create the old name anew.
        a = os.path.dirname(conc)
        while a.startswith(c.base) and len(a) > len(c.base):
            if any(a == w or a.startswith(w.rstrip('/') + '/') for w in writable):
                rel = conc[len(a):]
                out.append(('rename %s' % a,
                            'mv %s %s.mv 2>/dev/null || exit 0\n'
                            'cat %s.mv%s 2>/dev/null; cat %s.mv%s/f 2>/dev/null\n'
                            'echo pwn >%s.mv%s/pwn 2>/dev/null\n'
                            'mkdir -p %s 2>/dev/null && echo pwn >%s 2>/dev/null\n'
                            'mkdir -p %s 2>/dev/null; echo pwn >%s/pwn 2>/dev/null\n'
                            % (q(a), q(a), q(a), q(rel), q(a), q(rel), q(a), q(rel),
                               q(os.path.dirname(conc)), q(conc), q(conc), q(conc))))
            a = os.path.dirname(a)
        # Hard link and symlink into the region, from every write root.
        for w in writable:
            if not w.startswith('/'):
                continue
            out.append(('link %s from %s' % (conc, w),
                        'ln %s %s/hl 2>/dev/null && { cat %s/hl; echo pwn >>%s/hl; }\n'
                        'ln -s %s %s/sl 2>/dev/null; echo pwn >%s/sl/pwn 2>/dev/null\n'
                        'cat %s/sl %s/sl/f 2>/dev/null\n'
                        'cat /proc/self/root%s /proc/self/root%s/f 2>/dev/null\n'
                        'echo pwn >/proc/self/root%s/pwn 2>/dev/null; true\n'
                        % (q(conc), q(w), q(w), q(w), q(conc), q(w), q(w), q(w), q(w),
                           q(conc), q(conc), q(conc))))
    if c.exec_list:
        out.append(('ld.so', 'for l in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do '
                             '[ -e $l ] && $l %s && echo LOADER-RAN; done; true'
                    % q(c.sub('${PROJECT}/other/t'))))
    return out


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def violations(c, before, after, outputs):
    """What an attack achieved that the policy denies: a protected file
    changed or read, a path created beneath (or at) a deny target."""
    bad = []
    for kind, pat, conc in c.rules:
        if not kind.startswith('deny'):
            continue
        for p, v in after.items():
            if '*' in conc or '?' in conc:
                hit = fnmatch.fnmatchcase(p, conc.replace('**/', '*/'))
            else:
                hit = p == conc or p.startswith(conc + '/')
            if not hit:
                continue
            if kind == 'deny-write' and before.get(p) != v:
                bad.append('%s %s: %s changed on the host' % (kind, pat, p))
    read_denied = set()
    for kind, pat, conc in c.rules:
        if kind == 'deny-read':
            for p, v in before.items():
                if isinstance(v, bytes) and (p == conc or p.startswith(conc + '/')):
                    read_denied.add(v)
    for out in outputs:
        for s in read_denied:
            if s.decode('latin-1') in out:
                bad.append('deny-read content %r read by an attack' % s)
    return sorted(set(bad))

# --------------------------------------------------------------- oracle --


class Oracle:
    """`confpol explain` under the case's bindings, cached."""

    def __init__(self, confpol, c):
        self.confpol, self.c = confpol, c
        self.cache = {}
        self.policy = os.path.join(c.bindings['PROJECT'], 'p.confpol')

    def __call__(self, acc, path):
        k = (acc, path)
        if k not in self.cache:
            args = [self.confpol, 'explain', '--ignore-expect']
            for n, v in sorted(self.c.bindings.items()):
                args += ['-D', '%s=%s' % (n, v)]
            r = subprocess.run(args + [self.policy, acc, path], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=self.c.bindings['PROJECT'])
            if r.returncode != 0:
                raise RuntimeError('explain failed: %s' % r.stderr.decode())
            self.cache[k] = r.stdout.decode()
        return self.cache[k].split('\n', 1)[0].strip()

    def rules(self, acc, path):
        """The texts of the rules that decided (acc, path)."""
        self(acc, path)
        out = []
        for line in self.cache[(acc, path)].split('\n')[1:]:
            line = line.strip()
            if line.startswith("by '"):
                out.append(line[4:line.index("'", 4)])
        return out

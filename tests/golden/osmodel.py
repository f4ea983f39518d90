#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Readers and evaluators of the OS artifacts, for the tests.

* An SBPL reader (TinyScheme string rules: \\\\ \\" \\n \\t \\r \\xHH, any
  other \\c is c; #"..." raw strings; ; comments) and an evaluator with
  last-match-wins over the rules, literal/subpath/regex filters and
  string-append / param / regex-quote expressions.
* A .bwrap record reader (checks the record arities, the count and the
  SHA-256 of the trailer) and a replay of the mounts on a model file system.

Commands:
  osmodel.py decide POLICY OUTDIR ARTIFACT-STEM CONFPOL
      compares every probe's decision by `confpol explain` with both
      artifacts; exits 1 if an artifact is looser than explain.
  osmodel.py sbpl-strings FILE.sb       prints every string literal, one
                                        per line, escaped as Python repr
  osmodel.py bwrap-fields FILE.bwrap    prints every record as a repr list
"""
import hashlib
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from sbpl_reader import Str, is_symbol, sbpl_read, sbpl_strings  # noqa: E402

# ---------------------------------------------------------------- SBPL ----


# The SBPL evaluator is tests/lib/sbpl_model.py.
from sbpl_model import regex_quote, sbpl_decide, sbpl_expr  # noqa: E402,F401


def macos_path(p):
    for d in ('/tmp', '/var', '/etc'):
        if p == d or p.startswith(d + '/'):
            return '/private' + p
    return p


def linux_path(p):
    for d in ('/tmp', '/var', '/etc'):
        if p == '/private' + d or p.startswith('/private' + d + '/'):
            return p[len('/private'):]
    return p

# --------------------------------------------------------------- bwrap ----


ARITY = {'confpol-bwrap': 1, 'profile': 1, 'fail': 1, 'param': 1, 'arg': 1,
         'bind': 2, 'ro': 2, 'pin': 2, 'pinro': 2, 'mask': 2, 'maskglob': 2,
         'roglob': 2, 'exec': 2, 'end': 2, 'net': 2,
         'socket': 3}


def bwrap_read(data):
    if not data.endswith(b'\0'):
        raise ValueError('artifact does not end with NUL')
    fields = data[:-1].split(b'\0')
    recs, i, off = [], 0, 0
    while i < len(fields):
        tag = fields[i].decode()
        if tag not in ARITY:
            raise ValueError('unknown tag %r' % tag)
        k = ARITY[tag]
        rec = [tag] + fields[i + 1:i + 1 + k]
        if len(rec) != k + 1:
            raise ValueError('short record %r' % tag)
        if tag == 'end':
            if int(rec[1]) != len(recs):
                raise ValueError('record count %s != %d' % (rec[1], len(recs)))
            h = hashlib.sha256(data[:off]).hexdigest()
            if rec[2].decode() != h:
                raise ValueError('sha256 mismatch')
            if i + 1 + k != len(fields):
                raise ValueError('data after end')
            return recs
        recs.append(rec)
        off += sum(len(x) + 1 for x in fields[i:i + 1 + k])
        i += 1 + k
    raise ValueError('no end record')


def glob_regex(root, pat, exact=False):
    out = []
    segs = pat.split('/')[1:] if pat else []
    for s in segs:
        if s == '**':
            out.append('(/[^/]+)*')
            continue
        out.append('/')
        j = 0
        while j < len(s):
            c = s[j]
            if c == '\\' and j + 1 < len(s):
                out.append(re.escape(s[j + 1]))
                j += 2
                continue
            out.append('[^/]*' if c == '*' else '[^/]' if c == '?' else
                       re.escape(c))
            j += 1
    return '^' + re.escape(root) + ''.join(out) + ('$' if exact else '(/.*)?$')


def under(p, q):
    return p == q or q == '/' or p.startswith(q + '/')


class BwrapModel:
    def __init__(self, recs, params):
        self.params = params
        self.mounts = []  # (path or regex, kind, is_glob)
        self.execs = []
        self.net = True
        args = [r[1].decode() for r in recs if r[0] == 'arg']
        a = 0
        seq = []
        for r in recs:
            t = r[0]
            if t == 'arg':
                seq.append(('arg', r[1].decode()))
            elif t in ('bind', 'pin', 'ro', 'pinro', 'mask', 'maskglob',
                       'roglob', 'exec'):
                root = r[1].decode()
                rest = r[2].decode('utf-8', 'surrogateescape')
                base = params[root] if root else ''
                seq.append((t, base, rest))
        i = 0
        while i < len(seq):
            s = seq[i]
            if s[0] == 'arg':
                w = s[1]
                if w in ('--ro-bind', '--bind'):
                    src, dst = seq[i + 1][1], seq[i + 2][1]
                    assert src == dst
                    self.mounts.append((dst, 'rw' if w == '--bind' else 'ro',
                                        False))
                    i += 3
                    continue
                if w in ('--dev', '--proc'):
                    self.mounts.append((seq[i + 1][1], 'virt', False))
                    i += 2
                    continue
                if w == '--unshare-net':
                    self.net = False
                i += 1
                continue
            t, base, rest = s
            path = base + rest if (base or rest) else '/'
            if t in ('bind', 'pin'):
                self.mounts.append((path, 'rw', False))
            elif t in ('ro', 'pinro'):
                self.mounts.append((path, 'ro', False))
            elif t == 'mask':
                self.mounts.append((path, 'mask', False))
            elif t == 'roglob':
                self.mounts.append((glob_regex(base, rest), 'ro', True))
            elif t == 'maskglob':
                self.mounts.append((glob_regex(base, rest), 'mask', True))
            elif t == 'exec':
                self.execs.append(path)
            i += 1
        del args, a

    def covering(self, p):
        kind = None
        for path, k, glob in self.mounts:
            if glob:
                # an expanded glob mounts each existing match; the model
                # file system holds every probe
                parts = p.split('/')
                for n in range(1, len(parts) + 1):
                    q = '/'.join(parts[:n]) or '/'
                    if re.match(path.replace('(/.*)?$', '$'), q):
                        kind = k
                        break
            elif under(p, path):
                kind = k
        return kind

    def decide(self, acc, p):
        k = self.covering(p)
        if acc == 'read':
            return 'deny' if k == 'mask' else 'allow'
        if acc == 'write':
            return 'allow' if k == 'rw' else 'deny'
        if acc == 'exec':
            if k == 'mask':
                return 'deny'
            if self.execs and not any(under(p, e) for e in self.execs):
                return 'deny'
            return 'allow'
        raise ValueError(acc)

# --------------------------------------------------------- decisions ----


PARAMS = {'HOME': '/home/u', 'PROJECT': '/home/u/proj'}


def probes_from(paths):
    out = set()
    for p in paths:
        if not p.startswith('/'):
            continue
        p = p.rstrip('/') or '/'
        out.add(p)
        out.add((p if p != '/' else '') + '/probe-child')
        par = os.path.dirname(p)
        out.add(par)
        out.add((par if par != '/' else '') + '/probe-sibling')
    out.update(['/etc/passwd', '/home/u/notes.txt', '/home/u/proj/src/a.c',
                '/usr/bin/ls', '/tmp/x', '/opt/x', '/home/u/.ssh/id_rsa',
                '/home/u/.cache/x', '/'])
    return sorted(x for x in out if not under(x, '/dev') and
                  not under(x, '/proc'))


def instantiate(base, pat):
    segs = []
    for s in (pat.split('/')[1:] if pat else []):
        if s == '**':
            segs.append('d1')
            continue
        t, j = [], 0
        while j < len(s):
            if s[j] == '\\' and j + 1 < len(s):
                t.append(s[j + 1])
                j += 2
                continue
            t.append('a' if s[j] in '*?' else s[j])
            j += 1
        segs.append(''.join(t))
    return base + ''.join('/' + x for x in segs)


def effective_paths(confpol, policy):
    """Paths of every path rule of `confpol check --print-effective`, params
    replaced, globs instantiated."""
    r = subprocess.run([confpol, 'check', '--print-effective', policy],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = []
    for line in r.stdout.decode('utf-8', 'surrogateescape').split('\n'):
        m = re.match(r'(write|exec|deny read|deny write|deny exec) (.*)$',
                     line)
        if not m:
            continue
        arg = m.group(2)
        if arg.startswith('"'):
            t, j = [], 1
            while j < len(arg) and arg[j] != '"':
                if arg[j] == '\\' and arg[j + 1] == 'x':
                    t.append(chr(int(arg[j + 2:j + 4], 16)))
                    j += 4
                elif arg[j] == '\\':
                    t.append(arg[j + 1])
                    j += 2
                else:
                    t.append(arg[j])
                    j += 1
            text, glob = ''.join(t), False
        else:
            text, glob = arg.split(' ', 1)[0], True
        if text.startswith('~'):
            text = '${HOME}' + text[1:]
        m2 = re.match(r'\$\{([A-Za-z_][A-Za-z0-9_]*)\}(.*)$', text)
        base, rest = ('', text) if not m2 else (PARAMS.get(m2.group(1), '/p'),
                                                 m2.group(2))
        if glob and re.search(r'[*?]', rest):
            out.append(instantiate(base, rest))
        else:
            out.append(base + rest if base + rest else '/')
    return out


def explain(confpol, policy, acc, path):
    # Bindings that break a policy's own expect lines are probed too.
    args = [confpol, 'explain', '--ignore-expect']
    for k, v in PARAMS.items():
        args += ['-D', '%s=%s' % (k, v)]
    r = subprocess.run(args + [policy, acc, path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError('explain failed: %s' % r.stderr.decode())
    return r.stdout.decode().split('\n', 1)[0].strip()


class Oracle:
    """explain's decisions: the batch helper (same cp_decide call) for
    every query, and the real `confpol explain` for a sample of them."""

    def __init__(self, confpol, helper, policy):
        self.confpol, self.helper, self.policy = confpol, helper, policy
        self.cache = {}

    def prefetch(self, queries):
        qs = [q for q in queries if q not in self.cache]
        if not qs:
            return
        args = [self.helper, self.policy] + \
            ['%s=%s' % kv for kv in PARAMS.items()]
        inp = ''.join('%s %s\n' % q for q in qs)
        r = subprocess.run(args, input=inp.encode(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError('decide_batch failed: %s' % r.stderr.decode())
        for q, v in zip(qs, r.stdout.decode().split('\n')):
            self.cache[q] = v
        for q in qs[::max(1, len(qs) // 2)]:
            real = explain(self.confpol, self.policy, q[0], q[1])
            if real != self.cache[q]:
                raise RuntimeError('helper and explain disagree on %r' % (q,))

    def __call__(self, acc, path):
        self.prefetch([(acc, path)])
        return self.cache[(acc, path)]


# SBPL reasons that concern hard links, clones, renaming, deleting and
# creating:
# they cannot explain a stricter read, write or exec of an existing path.
SBPL_BESIDE = ('hard links cannot be created', 'rename protection',
               'deleting or renaming', 'files cannot be cloned')


def sbpl_beside_probes(cols):
    if cols[1] != 'sbpl' or len(cols) < 4:
        return False
    return all(any(b in part for b in SBPL_BESIDE)
               for part in cols[3].split('; '))


def cmd_decide(policy, outdir, stem, confpol, fidelity_file, helper):
    """Both bindings: ~ outside the project, and the project = ~ (where the
    "may" relations between roots become real)."""
    global PARAMS
    rc = 0
    for binding in ({'HOME': '/home/u', 'PROJECT': '/home/u/proj'},
                    {'HOME': '/home/u', 'PROJECT': '/home/u'}):
        PARAMS = binding
        rc |= decide_one(policy, outdir, stem, confpol, fidelity_file, helper)
    return rc


def decide_one(policy, outdir, stem, confpol, fidelity_file, helper):
    sb = os.path.join(outdir, stem + '.sb')
    bw = os.path.join(outdir, stem + '.bwrap')
    params = dict(PARAMS)
    # The proxy's port, as confpol-run binds it for a net allow list (an
    # unused param is harmless; without it such a profile does not load).
    params['confpol:proxy-port'] = '40000'
    paths = []
    forms = None
    model = None
    if os.path.exists(sb):
        forms = sbpl_read(open(sb, encoding='utf-8').read())
        for f in forms[1:]:
            for x in f[1:]:
                if isinstance(x, list) and x[0] in ('literal', 'subpath'):
                    paths.append(linux_path(sbpl_expr(x[1], params, forms)))
    if os.path.exists(bw):
        recs = bwrap_read(open(bw, 'rb').read())
        model = BwrapModel(recs, params)
        for r in recs:
            if r[0] in ('bind', 'pin', 'ro', 'pinro', 'mask', 'exec'):
                root = r[1].decode()
                paths.append((params[root] if root else '') +
                             r[2].decode('utf-8', 'surrogateescape'))
            if r[0] in ('maskglob', 'roglob'):
                root = r[1].decode()
                paths.append(instantiate(params[root] if root else '',
                                         r[2].decode()))
    paths += effective_paths(confpol, policy)
    stricter_ok = {}
    for line in open(fidelity_file, encoding='utf-8'):
        cols = line.rstrip('\n').split('\t')
        # 'not enforced' announces that the target differs from the rule
        # (an expanded deny glob: later matches are not covered, and its
        # masks are read-only); looser observations still fail below.
        if len(cols) >= 3 and not sbpl_beside_probes(cols) and (
                cols[2] == 'stricter' or (
                    cols[2].startswith('not enforced') and len(cols) >= 4 and
                    'denied too' in cols[3])):
            stricter_ok[cols[1]] = True
    bad = 0
    stricter = 0
    oracle = Oracle(confpol, helper, policy)
    oracle.prefetch([(acc, p) for p in probes_from(paths)
                     for acc in ('read', 'write', 'exec')])
    for p in probes_from(paths):
        for acc in ('read', 'write', 'exec'):
            want = oracle(acc, p)
            for name, got in (
                    ('sbpl', forms and sbpl_decide(
                        forms, {'read': 'file-read-data',
                                'write': 'file-write-data',
                                'exec': 'process-exec'}[acc],
                        macos_path(p), params)),
                    ('bwrap', model and model.decide(acc, p))):
                if not got:
                    continue
                if want == 'deny' and got == 'allow':
                    print('LOOSER: %s %s %s: explain denies, %s allows' %
                          (name, acc, p, name))
                    bad += 1
                elif want == 'allow' and got == 'deny':
                    # The build's implicit control plane (its output
                    # directory and, relative to the working directory, the
                    # policy sources) is denied by the artifacts; explain
                    # with other param values places it elsewhere.
                    implicit = (under(p, os.path.realpath(outdir)) or
                                re.search(r'\.confpol(/|$)', p))
                    if not implicit and not stricter_ok.get(name):
                        print('UNANNOUNCED STRICTER: %s %s %s' % (name, acc, p))
                        bad += 1
                    stricter += 1
    want = explain(confpol, policy, 'net', 'example.com')
    if model and want == 'deny' and model.net:
        print('LOOSER: bwrap net: explain denies example.com, network shared')
        bad += 1
    if forms and want == 'deny':
        if sbpl_decide(forms, 'network-outbound', '', params) != 'deny':
            print('LOOSER: sbpl net')
            bad += 1
    # Direct TCP to an address never passes (only the proxy's port does).
    if forms and sbpl_decide(forms, 'network-outbound',
                             ('tcp', '93.184.216.34', 443), params) != 'deny' \
            and explain(confpol, policy, 'net', '93.184.216.34:443') == 'deny':
        print('LOOSER: sbpl net: direct TCP to 93.184.216.34:443')
        bad += 1
    print('%s (PROJECT=%s): %d probes x 3 accesses, %d stricter, %d failures'
          % (policy, PARAMS['PROJECT'], len(probes_from(paths)), stricter, bad))
    return 1 if bad else 0


# ------------------------------------------------------- adversarial ----

ADV_NAMES = ['q"uote', 'back\\slash', 'a\\"b', '(paren)', 'semi;colon',
             'sp ace', '-leading', '--', '\u00fcn\u00ef', '[1]',
             're.*+?^$|{}', "'single'", '$(cmd)', '`tick`', '#hash',
             ') (allow default', '"; rm -rf / #']
ADV_CONTROL = ['new\nline', 'tab\tx', 'cr\rx']
ADV_GLOB = '${PROJECT}/a.b+c/*.key'


def adv_quote(n):
    out = []
    for ch in n:
        if ch in '"\\':
            out.append('\\' + ch)
        elif ord(ch) < 0x20:
            out.append('\\x%02x' % ord(ch))
        else:
            out.append(ch)
    return '"${PROJECT}/' + ''.join(out) + '"'


def adv_corpus(d):
    for fname, names in (('all.confpol', ADV_NAMES + ADV_CONTROL),
                         ('printable.confpol', ADV_NAMES)):
        with open(os.path.join(d, fname), 'w', encoding='utf-8') as f:
            f.write('confpol 1\nprofile confined\nwrite ${PROJECT}\n')
            for n in names:
                f.write('deny write %s\n' % adv_quote(n))
            f.write('deny read %s\n' % ADV_GLOB)


def adv_check_bwrap(d):
    recs = bwrap_read(open(os.path.join(d, 'out', 'all.bwrap'), 'rb').read())
    got = set(r[2].decode('utf-8') for r in recs
              if r[0] == 'ro' and r[1] == b'PROJECT')
    want = set('/' + n for n in ADV_NAMES + ADV_CONTROL)
    want.update(['/all.confpol', '/out'])
    ok = True
    if got != want:
        print('bwrap ro paths differ: missing %r, extra %r' %
              (sorted(want - got), sorted(got - want)))
        ok = False
    globs = [r for r in recs if r[0] == 'maskglob']
    if len(globs) != 1 or globs[0][2] != b'/a.b+c/*.key':
        print('bwrap maskglob differs: %r' % globs)
        ok = False
    return 0 if ok else 1


def adv_check_shell(d):
    recs = bwrap_read(open(os.path.join(d, 'out', 'all.bwrap'), 'rb').read())
    params = {'HOME': '/home/u', 'PROJECT': '/home/u/pro j'}
    want = []
    roots = [(params[r[1].decode()] if r[1] else '') + r[2].decode('utf-8')
             for r in recs if r[0] == 'bind']
    for r in recs:
        t = r[0]
        if t == 'arg':
            want.append(r[1].decode())
            continue
        if t not in ('bind', 'pin', 'ro', 'pinro', 'mask'):
            continue
        root = r[1].decode()
        p = (params[root] if root else '') + r[2].decode('utf-8')
        if t in ('ro', 'mask') and not os.path.lexists(p):
            # missing: covered only inside a write root, where it could be
            # made, as confpol-run covers it: deny write by a scratch tmpfs,
            # deny read by /dev/null
            if any(p.startswith(w + '/') for w in roots):
                want += ['--tmpfs', p] if t == 'ro' else ['--ro-bind', '/dev/null', p]
            continue
        # The shell form decides as confpol-run does when it runs: a
        # missing write root or pin is skipped (-try), a missing deny
        # target and a file are masked with /dev/null.
        if t in ('bind', 'pin'):
            want += ['--bind-try', p, p]
        elif t == 'pinro':
            want += ['--ro-bind-try', p, p]
        elif t == 'ro':
            want += ['--ro-bind', p, p] if os.path.lexists(p) else ['--ro-bind', '/dev/null', p]
        elif os.path.isdir(p):
            want += ['--tmpfs', p, '--remount-ro', p]
        else:
            want += ['--ro-bind', '/dev/null', p]
    want.append('--')
    data = open(os.path.join(d, 'shell.argv'), 'rb').read()
    got = data.decode('utf-8').split('\0')[:-1]
    if got != want:
        for i, (a, b) in enumerate(zip(got, want)):
            if a != b:
                print('shell form word %d: got %r, want %r' % (i, a, b))
                break
        print('shell form argv differs (%d vs %d words)' % (len(got), len(want)))
        return 1
    return 0


def adv_check_sbpl(d):
    text = open(os.path.join(d, 'sbout', 'printable.sb'), encoding='utf-8').read()
    forms = sbpl_read(text)
    params = {'HOME': '/home/u', 'PROJECT': '/home/u/proj'}
    strings = set(sbpl_strings(forms))
    ok = True
    for n in ADV_NAMES:
        if '/' + n not in strings:
            print('sbpl: string %r not read back' % ('/' + n))
            ok = False
        p = '/home/u/proj/' + n
        for q, want in ((p, 'deny'), (p + '/x', 'deny'), (p + 'x', 'allow'),
                        ('/home/u/proj/x' + n, 'allow')):
            got = sbpl_decide(forms, 'file-write-data', q, params)
            if got != want:
                print('sbpl: write %r: got %s, want %s' % (q, got, want))
                ok = False
    for q, want in (('/home/u/proj/a.b+c/k.key', 'deny'),
                    ('/home/u/proj/a.b+c/k.key/x', 'deny'),
                    ('/home/u/proj/aXb+c/k.key', 'allow'),
                    ('/home/u/proj/a.bbc/k.key', 'allow'),
                    ('/home/u/proj/a.b+c/kXkey', 'allow'),
                    ('/home/u/proj/a.b+c/d/k.key', 'allow')):
        got = sbpl_decide(forms, 'file-read-data', q, params)
        if got != want:
            print('sbpl: read %r: got %s, want %s' % (q, got, want))
            ok = False
    # A param value with regex metacharacters is matched literally.
    params2 = {'HOME': '/home/u', 'PROJECT': '/home/u/p.r+j'}
    for q, want in (('/home/u/p.r+j/a.b+c/k.key', 'deny'),
                    ('/home/u/pXrrj/a.b+c/k.key', 'allow')):
        got = sbpl_decide(forms, 'file-read-data', q, params2)
        if got != want:
            print('sbpl: read %r with PROJECT=%s: got %s, want %s' %
                  (q, params2['PROJECT'], got, want))
            ok = False
    return 0 if ok else 1


def bwrap_argv(data, params):
    """A plain bwrap argv from a .bwrap stream (every path exists: masks of
    files are /dev/null binds, of directories read-only tmpfs)."""
    argv = []
    for r in bwrap_read(data):
        t = r[0]
        if t == 'arg':
            argv.append(r[1].decode())
            continue
        if t not in ('bind', 'pin', 'ro', 'pinro', 'mask'):
            continue
        root = r[1].decode()
        p = (params[root] if root else '') + r[2].decode('utf-8')
        if t in ('bind', 'pin'):
            argv += ['--bind', p, p]
        elif t in ('ro', 'pinro'):
            argv += ['--ro-bind', p, p]
        elif os.path.isdir(p):
            argv += ['--tmpfs', p, '--remount-ro', p]
        else:
            argv += ['--ro-bind', '/dev/null', p]
    return argv


def parity(ours_file, seed_file):
    """Every path the seed's goose profile protects (write, rename of
    ancestors, read, network) is protected the same way by our profile."""
    seed = sbpl_read(open(seed_file, encoding='utf-8').read())
    ours = sbpl_read(open(ours_file, encoding='utf-8').read())
    sp = {'WORKSPACE_ROOT': '/Users/a/proj', 'HOME_DIR': '/Users/a'}
    op = {'PROJECT': '/Users/a/proj', 'HOME': '/Users/a'}
    bad = 0
    checked = 0
    for f in seed[1:]:
        if f[0] != 'deny':
            continue
        ops = [x for x in f[1:] if is_symbol(x)]
        paths = [sbpl_expr(x[1], sp) for x in f[1:] if isinstance(x, list)]
        if ops == ['network*'] and not paths:
            if sbpl_decide(ours, 'network-outbound', '', op) != 'deny':
                print('parity: the seed denies the network, ours does not')
                bad += 1
            checked += 1
            continue
        if ops == ['file-write*']:
            queries = ['file-write-data', 'file-write-unlink']
        elif ops == ['file-write-unlink', 'file-write-create']:
            queries = ['file-write-unlink', 'file-write-create']
        elif ops == ['file-read*']:
            queries = ['file-read-data']
        else:
            continue
        for p in paths:
            for q in queries:
                checked += 1
                if sbpl_decide(ours, q, p, op) != 'deny':
                    print('parity: the seed denies %s on %s, ours allows it' %
                          (q, p))
                    bad += 1
    print('%s: %d seed protections checked, %d missing' %
          (os.path.basename(seed_file), checked, bad))
    return 1 if bad or not checked else 0


def main():
    cmd = sys.argv[1]
    if cmd == 'decide':
        sys.exit(cmd_decide(*sys.argv[2:8]))
    if cmd == 'sbpl-strings':
        forms = sbpl_read(open(sys.argv[2], encoding='utf-8').read())
        for s in sbpl_strings(forms):
            print(repr(s))
        return
    if cmd == 'sbpl-eval':
        # sbpl-eval FILE OP PATH [NAME=VALUE...]
        forms = sbpl_read(open(sys.argv[2], encoding='utf-8').read())
        params = dict(x.split('=', 1) for x in sys.argv[5:])
        print(sbpl_decide(forms, sys.argv[3], sys.argv[4], params))
        return
    if cmd == 'bwrap-fields':
        for r in bwrap_read(open(sys.argv[2], 'rb').read()):
            print(repr([x if isinstance(x, str) else x.decode(
                'utf-8', 'surrogateescape') for x in r]))
        return
    if cmd == 'bwrap-argv':
        # bwrap-argv FILE.bwrap NAME=VALUE...: NUL-separated words
        params = dict(x.split('=', 1) for x in sys.argv[3:])
        words = bwrap_argv(open(sys.argv[2], 'rb').read(), params)
        sys.stdout.buffer.write(b''.join(w.encode() + b'\0' for w in words))
        return
    if cmd == 'parity':
        sys.exit(parity(sys.argv[2], sys.argv[3]))
    if cmd == 'adversarial-corpus':
        adv_corpus(sys.argv[2])
        return
    if cmd == 'adversarial-check-bwrap':
        sys.exit(adv_check_bwrap(sys.argv[2]))
    if cmd == 'adversarial-check-shell':
        sys.exit(adv_check_shell(sys.argv[2]))
    if cmd == 'adversarial-check-sbpl':
        sys.exit(adv_check_sbpl(sys.argv[2]))
    sys.exit('unknown command ' + cmd)


if __name__ == '__main__':
    main()

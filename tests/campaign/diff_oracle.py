"""The oracle of `confpol diff`: random policy pairs (a policy from the
campaign's generator, gen.py, extended with exec, net, gate and content
rules, and a mutation of one rule, of an include, of the profile or of a
`let` binding), each compared by `confpol diff --format json`, then judged
by the decision model on each side:

* every probe of both policies' rule boundaries (per path rule: an
  instance of the pattern, a child, a grandchild, a sibling, the parent,
  near misses; per domain, gate and content pattern: instances; plus a
  subject no rule names) is decided under each policy by `expect` lines
  that `confpol check` checks with cp_decide (the function `explain` runs;
  tests/sh/explain-expect.sh keeps the two in agreement), and every
  --explain-every Nth pair replays with `confpol explain` itself;
* a probe whose verdicts differ must be covered by a reported region: an
  entry with the same access, the same verdicts and the same deciding rules
  on each side (a *missed* change otherwise);
* every witness the diff prints is decided again, under its binding when it
  has one, and must differ with the verdicts and rules the diff printed (a
  *false* witness otherwise);
* pairs written differently but equal (reordered, a redundant rule added,
  an include inlined) must report nothing.

Usage: diff_oracle.py --confpol build/confpol [--seed N] [--count N]
Exit 0 when no pair failed."""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

SEGS = ['a', 'b', 'src', '.git', 'keys', '.env', 'x', 'sub', 'build', 'd1']
HOSTS = ['github.com', '*.npmjs.org', 'example.com', 'api.example.com',
         '*.example.com', 'pypi.org:443', 'localhost']
GATES = ['"git push *"', '"git push --force *"', '"rm {-r|-R} *"',
         '"curl *"', '"npm publish"', '"sudo *"', 'unknown',
         're"^make( |$)"', '"git {push|pull} origin *"']
CONTENTS = ['content deny "BEGIN SECRET"', 'content deny re"tok_[0-9]+"',
            'content allow aws-key', 'content allow override-text']


def q(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


# ------------------------------------------------------------- policies --

def base_lines(seed, i, rng):
    """The statements of a random policy: gen.py's, one rule per line,
    plus a let binding, exec, net, gate and content rules."""
    c = gen.generate(seed, i, '/tmp/cpdo')
    lines = []
    for ln in c.text.split('\n'):
        if ln.startswith('write ') or ln.startswith('exec '):
            kw, rest = ln.split(' ', 1)
            lines += ['%s %s' % (kw, p) for p in rest.split()]
        elif ln:
            lines.append(ln)
    head = [x for x in lines if x.startswith(('confpol', 'profile', 'param'))]
    body = [x for x in lines if x not in head]
    head.append('let L = ${PROJECT}/%s' % rng.choice(SEGS))
    body.append('deny write ${L}/%s' % rng.choice(SEGS))
    if rng.random() < 0.4:
        body.append('exec ${PROJECT}/%s' % rng.choice(SEGS))
    for _ in range(rng.randint(0, 2)):
        body.append('net allow %s' % rng.choice(HOSTS))
    if rng.random() < 0.2:
        body.append('net deny')
    for _ in range(rng.randint(0, 3)):
        body.append('gate %s %s' % (rng.choice(['ask', 'deny']), rng.choice(GATES)))
    if rng.random() < 0.3:
        body.append(rng.choice(CONTENTS))
    return head, body


def path_of(line):
    parts = line.split()
    return parts[-1] if parts[0] in ('write', 'exec', 'deny') else None


def mutate_path(rng, p):
    segs = p.split('/')
    r = rng.random()
    if r < 0.25 and len(segs) > 1:
        return '/'.join(segs[:-1]) or '/'
    if r < 0.5:
        return p + '/' + rng.choice(SEGS)
    if r < 0.7 and len(segs) > 1:
        segs[-1] = rng.choice(['*', '*.key', '?', '**', '.*'])
        return '/'.join(segs)
    if r < 0.85 and len(segs) > 1:
        segs[-1] = rng.choice(SEGS)
        return '/'.join(segs)
    return rng.choice(['${PROJECT}', '~', '${CACHE}', '${R}/tmp/cpdo']) + '/' + rng.choice(SEGS)


def mutate_rule(rng, body):
    body = list(body)
    k = rng.randrange(len(body))
    ln = body[k]
    r = rng.random()
    if r < 0.25:
        del body[k]
    elif r < 0.45:
        body.append(rng.choice(['deny write', 'deny read', 'write', 'deny exec'])
                    + ' ' + mutate_path(rng, rng.choice(['${PROJECT}', '~', '${CACHE}', '/tmp/cpdo'])))
    elif r < 0.7 and path_of(ln):
        body[k] = ln[:len(ln) - len(path_of(ln))] + mutate_path(rng, path_of(ln))
    elif r < 0.85 and ln.startswith('deny '):
        kw = ln.split()[1]
        other = {'read': 'write', 'write': 'read', 'exec': 'read'}[kw]
        body[k] = ln.replace('deny ' + kw, 'deny ' + other, 1)
    elif ln.startswith('gate '):
        body[k] = 'gate %s %s' % ('deny' if ' ask ' in ln else 'ask', ln.split(' ', 2)[2])
    else:
        body.append(rng.choice(['net allow %s' % rng.choice(HOSTS),
                                'gate ask %s' % rng.choice(GATES),
                                rng.choice(CONTENTS)]))
    return body


class Pair:
    def __init__(self):
        self.old = {}   # file name -> text; main.confpol is the policy
        self.new = {}
        self.equal = False
        self.kind = ''


def make_pair(seed, i):
    rng = random.Random('diff/%d/%d' % (seed, i))
    head, body = base_lines(seed, i, rng)
    p = Pair()
    m = rng.choice(['rule', 'rule', 'include', 'profile', 'binding', 'equal'])
    p.kind = m
    text = lambda h, b: '\n'.join(h + b) + '\n'  # noqa: E731
    if m == 'rule':
        p.old['main.confpol'] = text(head, body)
        p.new['main.confpol'] = text(head, mutate_rule(rng, body))
    elif m == 'include':
        cut = rng.randrange(len(body) + 1)
        inc_old = body[cut:]
        inc_new = mutate_rule(rng, inc_old) if inc_old else ['deny read ~/.ssh']
        inc_line = ['include "inc.confpol"']
        p.old['main.confpol'] = text(head, body[:cut] + inc_line)
        p.new['main.confpol'] = p.old['main.confpol']
        p.old['inc.confpol'] = text(['confpol 1'], inc_old)
        p.new['inc.confpol'] = text(['confpol 1'], inc_new)
    elif m == 'profile':
        prof = rng.choice(['cooperative', 'confined', 'exclusive'])
        h2 = ['profile ' + prof if x.startswith('profile') else x for x in head]
        p.old['main.confpol'] = text(head, body)
        p.new['main.confpol'] = text(h2, body)
    elif m == 'binding':
        h2 = ['let L = %s/%s' % (rng.choice(['${PROJECT}', '~', '${CACHE}', '/tmp/cpdo']),
                                 rng.choice(SEGS)) if x.startswith('let L') else x
              for x in head]
        p.old['main.confpol'] = text(head, body)
        p.new['main.confpol'] = text(h2, body)
    else:
        p.equal = True
        b2 = list(body)
        rng.shuffle(b2)
        denies = [x for x in body if x.startswith('deny ') and path_of(x)]
        if denies:
            d = rng.choice(denies)
            b2.append(d + '/' + rng.choice(SEGS))  # redundant: d covers it
        if body and rng.random() < 0.5:
            cut = rng.randrange(len(b2) + 1)
            p.new['inc.confpol'] = text(['confpol 1'], b2[cut:])
            b2 = b2[:cut] + ['include "inc.confpol"']
        p.old['main.confpol'] = text(head, body)
        p.new['main.confpol'] = text(head, b2)
    return p


# --------------------------------------------------------------- probes --

def inst(p):
    return p.replace('/**', '').replace('*.key', 'k.key').replace('.*', '.x') \
        .replace('*', 'x').replace('?', 'q')


def probes_of(texts):
    """[(access, subject)] from every rule of the policy files."""
    out = set()
    roots = ['/tmp/cpdo', '${PROJECT}', '~', '${CACHE}']
    for r in roots:
        out.add(('path', r + '/confpol-probe'))
    for t in texts:
        lets = {}
        for ln in t.split('\n'):
            w = ln.split()
            if not w:
                continue
            if w[0] == 'let':
                lets[w[1]] = w[3]
                continue
            p = path_of(ln)
            if p:
                for k, v in lets.items():
                    p = p.replace('${%s}' % k, v)
                p = p.replace('${R}', '')
                i = inst(p)
                par = os.path.dirname(i)
                for s in (i, i + '/probe-child', i + '/c/probe-grand', i + '-sib',
                          par, i + 'x', i.replace('k.key', 'k.kez'), par + '/.hidden.key',
                          p.replace('**', 'a/b').replace('*', 'y').replace('?', 'z')):
                    if s and '*' not in s and '?' not in s and '${L}' not in s:
                        out.add(('path', s))
            elif w[0] == 'net' and len(w) > 2:
                for h in w[2:]:
                    name = h.lstrip('*.')
                    for s in (name, 'x.' + name, name.split(':')[0],
                              name.split(':')[0] + ':443', name.split(':')[0] + ':80'):
                        out.add(('net', s))
            elif w[0] == 'gate':
                pat = ln.split(' ', 2)[2]
                pat = pat[3:-1] if pat.startswith('re"') else pat.strip('"')
                line = re.sub(r'[{}^$()|]', ' ', pat).replace('*', 'x')
                for s in (line, line.replace(' x', ''), line + ' y', pat.replace('{', '').split('|')[0]):
                    out.add(('gate', ' '.join(s.split()) or 'x'))
            elif w[0] == 'content' and w[1] == 'deny':
                out.add(('content', ln.split(' ', 2)[2].strip('"').replace('re"', '')
                         .replace('[0-9]+', '42')))
    out.add(('net', 'nothing.invalid'))
    out.add(('gate', 'ls -l'))
    out.add(('content', 'AKIAIOSFODNN7EXAMPLE'))
    out.add(('content', 'ignore all previous instructions'))
    res = []
    valid = re.compile(r'^(/|~(/|$)|\$\{\w+\}(/|$))')
    for kind, s in sorted(out):
        if kind == 'path' and not valid.match(s):
            continue
        if kind == 'path':
            res += [('read', s), ('write', s), ('exec', s), ('socket', s)]
        else:
            res.append((kind, s))
    return res


def expect_subject(acc, s):
    if acc in ('read', 'write', 'exec', 'socket', 'gate', 'content'):
        return q(s)
    return s


VERDICT = {'allows': 'allow', 'denies': 'deny', 'asks': 'ask'}
DECIDED = re.compile(r"^decided by '(.*)'(, added by .*)?$", re.S)


def rule_id(text, file, line, col, implicit):
    return (text, None, 0, 0) if implicit else (text, file, line, col)


def expect_block(probes):
    """The expect lines deciding PROBES: allow and deny for each (exactly
    one fails for allow and deny verdicts, both for ask)."""
    lines = []
    for acc, s in probes:
        for v in ('allow', 'deny'):
            lines.append('expect %s %s %s' % (v, acc, expect_subject(acc, s)))
    return '\n'.join(lines) + '\n'


SHAPES = {
    'apart': {'HOME': '/tmp/cpdo/home', 'PROJECT': '/tmp/cpdo/proj', 'CACHE': '/tmp/cpdo/cache'},
    'proj-in-home': {'HOME': '/tmp/cpdo/home', 'PROJECT': '/tmp/cpdo/home/code/proj',
                     'CACHE': '/tmp/cpdo/home/.cache'},
    'home-in-proj': {'HOME': '/tmp/cpdo/proj/h', 'PROJECT': '/tmp/cpdo/proj',
                     'CACHE': '/tmp/cpdo/proj/cache'},
    'equal': {'HOME': '/tmp/cpdo/home', 'PROJECT': '/tmp/cpdo/home', 'CACHE': '/tmp/cpdo/cache'},
}


def check_many(confpol, top, jobs, defines=()):
    """jobs: [(main file, probes, nbase)].  One `confpol check` of every
    main file; returns {main file: {(acc, subj): (verdict, rule ids)}} or
    None for a file in error (other than its expect lines)."""
    dargs = []
    for n, v in defines:
        dargs += ['-D', '%s=%s' % (n, v)]
    r = subprocess.run([confpol, 'check', '--diagnostics-format', 'json'] + dargs +
                       [j[0] for j in jobs], cwd=top, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    doc = json.loads(r.stdout.decode() or '{}')
    byfile = {j[0]: j for j in jobs}
    out = {j[0]: {} for j in jobs}
    for g in doc.get('diagnostics', []):
        if g['severity'] != 'error' or g['file'] not in byfile or out[g['file']] is None:
            continue
        if g['code'] != 'CP0601':
            out[g['file']] = None  # the policy itself is in error (analysis)
            continue
        _, probes, nbase = byfile[g['file']]
        acc, s = probes[(g['line'] - nbase - 1) // 2]
        m = re.search(r'the policy (allows|denies|asks)', g['message'])
        rules = set()
        for nt in g['notes']:
            mm = DECIDED.match(nt['message'])
            if mm:
                rules.add(rule_id(mm.group(1), nt['file'], nt['line'], nt['column'],
                                  mm.group(2) is not None))
        out[g['file']][(acc, s)] = (VERDICT[m.group(1)], frozenset(rules))
    return out


def item_key(it):
    def side(s):
        return frozenset(rule_id(r['rule'], r['file'], r['line'], r['column'],
                                 r['origin'] != 'source') for r in s['rules'])
    return (it['access'], it['old']['decision'], it['new']['decision'],
            side(it['old']), side(it['new']))


def explain(confpol, d, name, acc, s, defines):
    """The first line of `confpol explain` (run in d on the file name)."""
    args = [confpol, 'explain', '--symbolic', '--ignore-expect']
    for n, v in defines:
        args += ['-D', '%s=%s' % (n, v)]
    r = subprocess.run(args + [name, acc, s], cwd=d, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return r.stdout.decode().split('\n', 1)[0]


def explain_json(confpol, d, name, it, defines):
    """(verdict, rule ids) of `confpol explain --format json`."""
    args = [confpol, 'explain', '--symbolic', '--ignore-expect', '--format', 'json']
    for n, v in defines:
        args += ['-D', '%s=%s' % (n, v)]
    r = subprocess.run(args + [name, it['access'], it['subject']], cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    try:
        doc = json.loads(r.stdout.decode())
    except ValueError:
        return '?', None
    return doc['decision'], frozenset(
        rule_id(x['rule'], x['file'], x['line'], x['column'], x['origin'] != 'source')
        for x in doc['rules'])


def declared(text):
    names = {'HOME', 'PROJECT'}
    for ln in text.split('\n'):
        if ln.startswith('param '):
            names.add(ln.split()[1])
    return names


def write_side(top, sub, files, extra=''):
    os.makedirs(os.path.join(top, sub), exist_ok=True)
    for name, t in files.items():
        with open(os.path.join(top, sub, name), 'w') as f:
            f.write(t + (extra if name == 'main.confpol' else ''))


def run_diff(confpol, top, k, pair):
    """Writes pair K and compares it; the diff's JSON document or a
    failure text."""
    write_side(top, 'p%d/old' % k, pair.old)
    write_side(top, 'p%d/new' % k, pair.new)
    r = subprocess.run([confpol, 'diff', '--format', 'json'] + DIFF_ARGS +
                       ['p%d/old/main.confpol' % k,
                        'p%d/new/main.confpol' % k], cwd=top, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if r.returncode != 0:
        return 'diff exit %d: %s' % (r.returncode, r.stderr.decode()[:300])
    return json.loads(r.stdout.decode())


def judge_items(confpol, top, k, pair, doc, dec_o, dec_n, probes, explain_too):
    """The failures of pair K: equal pairs, missed changes, false
    witnesses."""
    items = doc['widened'] + doc['narrowed']
    fails = []
    if not doc['complete']:
        fails.append('incomplete: %s' % doc['incomplete'])
    if pair.equal and items:
        fails.append('equal policies, %d changes, first: %s %s' %
                     (len(items), items[0]['access'], items[0]['subject']))
    keys = {item_key(it) for it in items if not it['binding']}
    for p in probes:
        vo, ro = dec_o.get(p, ('?', frozenset()))
        vn, rn = dec_n.get(p, ('?', frozenset()))
        if vo != vn and (p[0], vo, vn, ro, rn) not in keys:
            fails.append('missed: %s %s old %s %s new %s %s' %
                         (p[0], p[1], vo, sorted(ro), vn, sorted(rn)))
    fo, fn = 'p%d/old/main.confpol' % k, 'p%d/new/main.confpol' % k
    for it in items:
        b = sorted((it['binding'] or {}).items())
        bo = [x for x in b if x[0] in declared(pair.old['main.confpol'])]
        bn = [x for x in b if x[0] in declared(pair.new['main.confpol'])]
        if b:
            # under a binding the analysis may find errors of its own:
            # explain answers without it
            vo, ro = explain_json(confpol, top, fo, it, bo)
            vn, rn = explain_json(confpol, top, fn, it, bn)
        else:
            vo, ro = dec_o.get((it['access'], it['subject']), ('?', None))
            vn, rn = dec_n.get((it['access'], it['subject']), ('?', None))
        if (it['access'], vo, vn, ro, rn) != item_key(it):
            fails.append('false witness: %s %s %s: replayed old %s new %s' %
                         (it['access'], it['subject'], b, vo, vn))
        if explain_too and not b and it['access'] != 'content':
            eo = explain(confpol, top, fo, it['access'], it['subject'], bo)
            en = explain(confpol, top, fn, it['access'], it['subject'], bn)
            if (eo, en) != (it['old']['decision'], it['new']['decision']):
                fails.append('explain disagrees: %s %s: %s %s' %
                             (it['access'], it['subject'], eo, en))
    return fails


def judge_bound(k, items, bo, bn, probes, shape):
    """Under a binding of the gen.py shapes: a probe that differs must be in
    a reported region (same access, verdicts and deciding rules), or have a
    changed rule among its deciding rules that some region shows (every
    changed rule whose change a binding reveals is reported)."""
    shown = [set(), set()]
    keys = {item_key(it) for it in items}
    for it in items:
        for side, key in ((0, 'old'), (1, 'new')):
            for r in it[key]['rules']:
                shown[side].add(rule_id(r['rule'], r['file'], r['line'], r['column'],
                                        r['origin'] != 'source'))
    fails = []
    for p in probes:
        vo, ro = bo.get(p, ('?', frozenset()))
        vn, rn = bn.get(p, ('?', frozenset()))
        if vo == vn:
            continue
        text = lambda rs: {x[0] for x in rs}  # noqa: E731
        co, cn = ro - {x for x in ro if x[0] in text(rn)}, rn - {x for x in rn if x[0] in text(ro)}
        if (p[0], vo, vn, ro, rn) not in keys and not (co & shown[0] or cn & shown[1]):
            fails.append('missed under %s: %s %s old %s %s new %s %s' %
                         (shape, p[0], p[1], vo, sorted(ro), vn, sorted(rn)))
    return fails


def run_chunk(args):
    """Pairs [lo, hi) of a seed: [(index, kind, failures, status, texts)]."""
    confpol, seed, lo, hi, every = args
    shm = '/dev/shm' if os.access('/dev/shm', os.W_OK) else None
    res = []
    with tempfile.TemporaryDirectory(dir=shm) as top:
        work = []
        for i in range(lo, hi):
            pair = make_pair(seed, i)
            doc = run_diff(confpol, top, i, pair)
            if isinstance(doc, str):
                res.append((i, pair, [doc], 'error'))
                continue
            probes = probes_of(list(pair.old.values()) + list(pair.new.values()))
            unbound = {(it['access'], it['subject'])
                       for it in doc['widened'] + doc['narrowed'] if not it['binding']}
            probes = sorted(set(probes) | unbound)
            block = expect_block(probes)
            nbase = pair.old['main.confpol'].count('\n'), pair.new['main.confpol'].count('\n')
            write_side(top, 'p%d/old' % i, pair.old, block)
            write_side(top, 'p%d/new' % i, pair.new, block)
            work.append((i, pair, doc, probes, nbase))
        jobs = []
        for i, pair, doc, probes, nbase in work:
            jobs.append(('p%d/old/main.confpol' % i, probes, nbase[0]))
            jobs.append(('p%d/new/main.confpol' % i, probes, nbase[1]))
        dec = check_many(confpol, top, jobs) if jobs else {}
        shape = sorted(SHAPES)[(lo // CHUNK) % len(SHAPES)]
        bdefs = sorted(SHAPES[shape].items()) + [('R', '/')]
        bdec = check_many(confpol, top, jobs, bdefs) if jobs else {}
        for i, pair, doc, probes, nbase in work:
            write_side(top, 'p%d/old' % i, pair.old)
            write_side(top, 'p%d/new' % i, pair.new)
            do, dn = dec['p%d/old/main.confpol' % i], dec['p%d/new/main.confpol' % i]
            if do is None or dn is None:
                res.append((i, pair, [], 'skipped'))
                continue
            fails = judge_items(confpol, top, i, pair, doc, do, dn, probes, i % every == 0)
            bo, bn = bdec['p%d/old/main.confpol' % i], bdec['p%d/new/main.confpol' % i]
            if bo is not None and bn is not None:
                fails += judge_bound(i, doc['widened'] + doc['narrowed'], bo, bn, probes, shape)
            res.append((i, pair, fails, 'ok'))
    return res


CHUNK = 50
DIFF_ARGS = os.environ.get('DIFF_ORACLE_ARGS', '').split()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--confpol', required=True)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=100)
    ap.add_argument('--explain-every', type=int, default=25)
    ap.add_argument('--jobs', type=int, default=2)
    a = ap.parse_args()
    confpol = os.path.abspath(a.confpol)
    tasks = [(confpol, a.seed, lo, min(lo + CHUNK, a.count), a.explain_every)
             for lo in range(0, a.count, CHUNK)]
    if a.jobs > 1:
        import multiprocessing
        with multiprocessing.Pool(a.jobs) as pool:
            results = [r for part in pool.map(run_chunk, tasks) for r in part]
    else:
        results = [r for t in tasks for r in run_chunk(t)]
    stats = {'ok': 0, 'skipped': 0, 'error': 0}
    nfail = 0
    for i, pair, fails, st in results:
        stats[st] += 1
        if not fails:
            continue
        nfail += 1
        print('not ok %d seed %d pair %d (%s)' % (nfail, a.seed, i, pair.kind))
        for f in fails[:8]:
            print('#   ' + f)
        if nfail == 1:
            for side, files in (('old', pair.old), ('new', pair.new)):
                for name, t in sorted(files.items()):
                    print('# --- %s/%s\n' % (side, name) +
                          ''.join('#   ' + x + '\n' for x in t.splitlines()))
    print('%d pairs: %d judged, %d skipped (analysis errors), %d failed' %
          (a.count, stats['ok'], stats['skipped'], nfail))
    sys.exit(1 if nfail or stats['error'] or stats['skipped'] > a.count // 5 else 0)


if __name__ == '__main__':
    main()

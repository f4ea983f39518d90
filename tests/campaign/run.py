"""The attack campaign driver: python3 run.py --seed N --count N [--targets
bwrap-symbolic,bwrap-bound,landlock-symbolic,landlock-bound] [--attacks K].  For each generated case: every
probe is decided by `confpol explain` and observed on each target; every
attack runs in a fresh sandbox and the host is compared before and after.
A looser observation fails unless the rule that decides it is rated "not
enforced" (then it is counted as announced); a stricter observation at P
fails unless the target's fidelity or launch report announces a stricter
rule at P or above it.
Exit 0 when nothing failed.  README.md documents the interface."""

import argparse
import os
import re
import random
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bwrap  # noqa: E402
import codex  # noqa: E402
import gen  # noqa: E402
import landlock  # noqa: E402


def stricter_paths(report, c):
    """The concrete paths (literal prefixes for globs) of the rules the
    report rates stricter (or not enforced with a reason that says a
    deny reaches further), and the paths the launch warnings name."""
    out = []
    for line in report.split('\n'):
        cols = line.split('\t')
        if len(cols) >= 4 and (cols[2] == 'stricter' or (
                cols[2].startswith('not enforced') and 'denied too' in cols[3])):
            pat = c.sub(cols[0].rsplit(' ', 1)[-1])
            segs = pat.split('/')
            lit = segs
            for i, x in enumerate(segs):
                if any(ch in x for ch in '*?'):
                    lit = segs[:i]
                    break
            out.append('/'.join(lit) or '/')
        elif 'warning:' in line and ('left read-only' in line or 'not granted' in line or
                                     'writing there is denied' in line):
            out += re.findall(r"'(/[^']*)'", line)[:1]
    return out


def any_stricter(report):
    """The coarse judgement: the report rates some rule stricter."""
    return ('\tstricter\t' in report or 'denied too' in report or
            'left read-only' in report or 'not granted' in report or
            'writing there is denied' in report)


def announced_stricter(paths, p):
    """A stricter observation at p is announced by a stricter rule at p
    or above it."""
    return any(p == q or p.startswith(q.rstrip('/') + '/') for q in paths)


def not_enforced_rules(report):
    out = []
    for line in report.split('\n'):
        cols = line.split('\t')
        if len(cols) >= 3 and cols[2].startswith('not enforced'):
            out.append(cols[0].split(': ', 1)[-1])
    return out


def observable(c, p, host_tree):
    """Probes through a file or a symlink prove nothing about the rule."""
    d = os.path.dirname(p)
    while d.startswith(c.base) and d != c.base:
        v = host_tree.get(d)
        if v is not None and v != 'dir':
            return False
        d = os.path.dirname(d)
    return True


def run_case(c, targets, confpol, n_attacks, stats):
    fails = []
    gen.materialise(c)
    oracle = gen.Oracle(confpol, c)
    plan = gen.probes(c)
    host = gen.snapshot(c)
    plan = [(a, p) for a, p in plan if observable(c, p, host)]
    rng = random.Random('%d/%d/attacks' % (c.seed, c.index))
    # Every rename of an ancestor (the class of attack a symbolic artifact
    # must survive), then a sample of the others.
    atk = gen.attacks(c)
    ren = [x for x in atk if x[0].startswith('rename')]
    rest = [x for x in atk if not x[0].startswith('rename')]
    atk = ren[:n_attacks] + rng.sample(rest, min(max(2, n_attacks - len(ren)), len(rest)))
    for t in targets:
        t.launch_report = ''
        report = t.prepare(c)
        obs = t.observe(c, plan)
        report += t.launch_report
        ne = not_enforced_rules(report)
        sp = (t.stricter_paths(report, c, stricter_paths) if hasattr(t, 'stricter_paths')
              else stricter_paths(report, c))
        for (acc, p), got in sorted(obs.items()):
            if got is None:
                continue
            stats['probes'] += 1
            want = oracle(acc, p)
            if want == 'deny' and got == 'allow':
                rules = oracle.rules(acc, p)
                # An exec denied by default is the exec allow-list's doing.
                if any(r in ne for r in rules) or (
                        not rules and acc == 'exec' and any(r.startswith('exec ') for r in ne)):
                    stats['announced_looser'] += 1
                else:
                    fails.append('%s: LOOSER %s %s: explain denies (%s), observed allowed'
                                 % (t.name, acc, p, ', '.join(rules) or 'by default'))
            elif want == 'allow' and got == 'deny':
                stats['stricter'] += 1
                if not (announced_stricter(sp, p) if getattr(t, 'stricter_by_path', True)
                        else any_stricter(report)):
                    fails.append('%s: UNANNOUNCED STRICTER %s %s' % (t.name, acc, p))
        for name, script in atk:
            stats['attacks'] += 1
            out, before, after = t.attack(c, script)
            for v in gen.violations(c, before, after, [out]):
                # 'deny-write PAT: ...': excused when that rule is rated
                # not enforced (the target says it can be got around).
                kind, pat = v.split(':', 1)[0].split(' ', 1)
                if kind.startswith('deny-') and kind.replace('-', ' ') + ' ' + pat in ne:
                    stats['announced_looser'] += 1
                    continue
                fails.append('%s: attack %s: %s' % (t.name, name, v))
            if 'LOADER-RAN' in out:
                if ('CP0714' in report and 'not fully enforced' in report) or any(
                        r.startswith('exec ') for r in ne):
                    stats['announced_looser'] += 1
                else:
                    fails.append('%s: the ELF loader ran a file outside the exec list, '
                                 'unannounced' % t.name)
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=10)
    ap.add_argument('--attacks', type=int, default=4)
    ap.add_argument('--targets',
                    default='bwrap-symbolic,bwrap-bound,landlock-symbolic,landlock-bound')
    ap.add_argument('--confpol', default=os.environ.get('CONFPOL', 'build/confpol'))
    ap.add_argument('--confpol-run', default=os.environ.get('CONFPOL_RUN', 'build/confpol-run'))
    ap.add_argument('--codex', default=os.environ.get('CODEX', 'codex'))
    a = ap.parse_args()
    confpol = os.path.abspath(a.confpol)
    run = os.path.abspath(a.confpol_run)
    all_targets = {'bwrap-symbolic': lambda: bwrap.Bwrap(confpol, run, False),
                   'bwrap-bound': lambda: bwrap.Bwrap(confpol, run, True),
                   'landlock-symbolic': lambda: landlock.Landlock(confpol, run, False),
                   'landlock-bound': lambda: landlock.Landlock(confpol, run, True),
                   'codex': lambda: codex.Codex(confpol, os.path.abspath(a.codex))}
    targets = [all_targets[n]() for n in a.targets.split(',')]
    stats = {'policies': 0, 'probes': 0, 'attacks': 0, 'stricter': 0, 'announced_looser': 0}
    base = os.path.realpath(tempfile.mkdtemp(prefix='confpol-campaign-'))
    failed = 0
    t0 = time.time()
    try:
        for i in range(a.count):
            c = gen.generate(a.seed, i, base)
            try:
                fails = run_case(c, targets, confpol, a.attacks, stats)
            except Exception as e:  # a crash of a case is a failure of it
                fails = ['error: %s' % e]
            stats['policies'] += 1
            if fails:
                failed += 1
                print('FAIL %s:\n%s' % (c.name, c.text))
                for f in fails[:20]:
                    print('  ' + f)
    finally:
        gen._force_rm(base)
        shutil.rmtree(base, ignore_errors=True)
    print('campaign seed %d: %d policies x %d targets, %d probes, %d attacks, %d stricter '
          '(announced), %d looser announced as not enforced, %d failed cases, %.0f s'
          % (a.seed, stats['policies'], len(targets), stats['probes'], stats['attacks'],
             stats['stricter'], stats['announced_looser'], failed, time.time() - t0))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every `expect` of a policy against the codex artifact and the real Codex
CLI: `read`, `write` and `exec` expectations are observed in one `codex
sandbox -P confpol` launch (the probe agent of the campaign, with a file
made for each path a read expectation names), `gate` expectations with
`codex execpolicy check` on the artifact's rules.  The expectation is what
`confpol explain` answers (the policy's own tests check that); an answer
of Codex that is looser fails unless a rule that decided it is rated not
enforced, a stricter one unless the fidelity report announces it at the
path or above it (as in the campaign).  net, socket and content
expectations are counted as not observed here.

usage: codex_expect.py CONFPOL CODEX CODEX_NATIVE WORKDIR POLICY..."""
import os
import re
import shutil
import subprocess
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import codex  # noqa: E402
import codex_rules  # noqa: E402
import run  # noqa: E402

EXPECT = re.compile(r'^\s*expect\s+(allow|deny|ask)\s+(read|write|exec|gate|net|socket|content)'
                    r'\s+(.*?)\s*$')


class Case:
    """What codex.Codex reads of a campaign case."""

    def __init__(self, base, policy):
        self.base = base
        self.name = os.path.basename(policy)
        self.text = open(policy).read()
        self.bindings = {'HOME': base + '/home', 'PROJECT': base + '/proj'}
        self.rules = []

    def sub(self, p):
        if p.startswith('~'):
            return self.bindings['HOME'] + p[1:]
        for n, v in self.bindings.items():
            if p.startswith('${%s}' % n):
                return v + p[len(n) + 3:]
        return p


class Target(codex.Codex):
    """codex.Codex building POLICY where it lies (its includes are relative)."""

    def __init__(self, confpol, codex_bin, policy):
        super().__init__(confpol, codex_bin)
        self.policy = policy

    def prepare(self, c):
        out = os.path.join(c.base, 'out')
        os.makedirs(out, exist_ok=True)
        args = [self.confpol, 'build', '--target', 'codex', '--fidelity', '-o', out,
                '-D', 'HOME=' + c.bindings['HOME'], '-D', 'PROJECT=' + c.bindings['PROJECT'],
                self.policy]
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError('build failed: %s' % r.stderr.decode())
        stem = os.path.basename(self.policy)[:-len('.confpol')]
        self.artifact = os.path.join(out, stem + '.codex.toml')
        if not os.path.exists(self.artifact):
            return None  # cooperative: no file
        shutil.copy(self.artifact, os.path.join(self.home, 'config.toml'))
        self.report = r.stdout.decode() + r.stderr.decode()
        self.missing_roots = [w for w in re.findall(r'filesystem "([^"]*)" = "write"', self.report)
                              if not os.path.lexists(w)]
        self.first_missing = []
        return self.report



def explain_rules(confpol, c, policy, acc, subject):
    r = subprocess.run([confpol, 'explain', '--ignore-expect', '-D',
                        'HOME=' + c.bindings['HOME'], '-D', 'PROJECT=' + c.bindings['PROJECT'],
                        policy, acc, subject], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = r.stdout.decode().split('\n')
    return lines[0].strip(), [x.strip()[4:x.strip().index("'", 4)] for x in lines[1:]
                              if x.strip().startswith("by '")]


def check(confpol, codex_bin, native, work, policy):
    base = os.path.join(work, os.path.basename(policy))
    os.makedirs(base + '/home')
    os.makedirs(base + '/proj')
    c = Case(base, policy)
    t = Target(confpol, codex_bin, policy)
    report = t.prepare(c)
    if report is None:
        print('%s: cooperative, no codex file' % c.name)
        return 0
    ne = run.not_enforced_rules(report)
    sp = t.stricter_paths(report, c, run.stricter_paths)
    exps = [m.groups() for m in map(EXPECT.match, c.text.split('\n')) if m]
    plan, gates, skipped = [], [], 0
    for verdict, acc, subj in exps:
        subj = subj[1:-1] if subj.startswith('"') and subj.endswith('"') else subj
        if acc == 'gate':
            gates.append((verdict, subj))
        elif acc in ('read', 'write', 'exec') and subj.startswith(
                ('/', '~', '${PROJECT}', '${HOME}')):
            plan.append((verdict, acc, subj, c.sub(subj)))
        else:
            skipped += 1
    # A file for each path a read or exec expectation names, the deepest
    # first (a path another one lies below stays a directory).
    # The directories on the way to every path exist too, as in a project
    # that has them (where they are missing, Codex may not start: the
    # campaign covers that).
    for n, (_, acc, _, path) in sorted(enumerate(plan), key=lambda x: -x[1][3].count('/')):
        if not path.startswith(base) or os.path.lexists(path):
            continue
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if acc not in ('read', 'exec'):
                continue
            with open(path, 'w') as f:
                f.write('#!/bin/sh\n# EXPECT-%d\n' % n)
            os.chmod(path, 0o755)
        except OSError:
            pass  # a file where a directory is needed: not observable
    fails = 0
    obs = t.observe(c, sorted({(a, p) for _, a, _, p in plan})) if plan else {}
    for verdict, acc, subj, path in plan:
        got = obs.get((acc, path))
        if got is None:
            if os.environ.get('CODEX_EXPECT_VERBOSE'):
                print('  not observable: %s %s' % (acc, subj))
            skipped += 1
            continue
        want, rules = explain_rules(confpol, c, policy, acc, subj)
        default_exec = not rules and acc == 'exec' and any(r.startswith('exec ') for r in ne)
        if want != verdict:
            print('FAIL %s: explain says %s for expect %s %s %s' % (c.name, want, verdict, acc,
                                                                   subj))
            fails += 1
        elif want == 'deny' and got == 'allow' and not default_exec and \
                not any(r in ne for r in rules):
            print('FAIL %s: LOOSER %s %s: expect deny (%s), Codex allows' % (
                c.name, acc, subj, ', '.join(rules)))
            fails += 1
        elif want == 'allow' and got == 'deny' and not run.announced_stricter(sp, path):
            print('FAIL %s: UNANNOUNCED STRICTER %s %s' % (c.name, acc, subj))
            fails += 1
    if gates:
        with open(t.artifact, 'rb') as f:
            rules_text = tomllib.load(f)['confpol']['rules']
        rf = os.path.join(base, 'out', 'rules')
        with open(rf, 'w') as f:
            f.write(rules_text)
        rows = codex_rules.fidelity(report)
        for verdict, subj in gates:
            want, rules = explain_rules(confpol, c, policy, 'gate', subj)
            try:
                got, prefixes = codex_rules.codex_check(native, rf, subj)
            except ValueError:
                skipped += 1
                continue
            bad = codex_rules.judge(rows, want, got, rules, prefixes)
            if bad:
                print('FAIL %s: %s gate %r: expect %s, codex %s' % (c.name, bad, subj, want, got))
                fails += 1
    print('%s: %d path and %d gate expectations observed, %d not observable here, %d failed'
          % (c.name, len(plan), len(gates), skipped, fails))
    return fails


def main():
    confpol, codex_bin, native, work = sys.argv[1:5]
    fails = 0
    for p in sys.argv[5:]:
        fails += check(os.path.abspath(confpol), codex_bin, native, work, os.path.abspath(p))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())

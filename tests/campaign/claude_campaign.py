#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A seeded campaign against the claude target: random policies built with
`confpol build --target claude --fidelity`, probes decided by the decision
model (the decide_batch helper) and observed on a model of Claude Code's
Bash sandbox on Linux (tests/claude/claudemodel.py, extended here with the
facts of ../shared/reference/claude-settings.md that no settings change:
the session temp dir /tmp/claude-UID, the protected paths, deny-read
regions shown as a throw-away tmpfs).

A looser observation fails unless the build announced it (a rule rated
`not enforced`, or the policy-wide losses CP0756/CP0757/CP0753); a stricter
one fails unless the fidelity report rates a rule stricter for it.

usage: claude_campaign.py CONFPOL DECIDE_BATCH WORKDIR SEED COUNT"""
import json
import os
import re
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'claude'))
sys.path.insert(0, HERE)
import claudemodel as cm  # noqa: E402
from sbpl_campaign import (DENIES, WRITES, expand, neighbours,  # noqa: E402
                           pattern_segs, within)

H, P = cm.H, cm.P
SESSION_TMP = '/tmp/claude-1000'
PROTECTED = [P + '/.git/hooks', P + '/.git/config', P + '/.mcp.json',
             P + '/.claude/settings.json', P + '/.claude/settings.local.json',
             P + '/.claude/commands', P + '/.claude/agents',
             P + '/.claude/skills', P + '/.claude/hooks',
             H + '/.bashrc', H + '/.bash_profile', H + '/.zshrc',
             H + '/.zprofile', H + '/.profile', H + '/.claude']


class ClaudeCode(cm.Claude):
    def bash_write(self, x):
        if not self.sandboxed:
            return True
        if cm.under(x, SESSION_TMP):
            return True
        if any(cm.under(x, r) for r in cm.RUNTIME):
            return super().bash_write(x) or True
        if any(cm.under(x, p) for p in PROTECTED):
            return False
        # A denied directory is an empty tmpfs: writes never reach disk.
        if any(cm.glob_match(d, x) for d in self.deny_read):
            return False
        return super().bash_write(x)


def latin(s):
    """One character per UTF-8 byte: fnmatch then matches bytes."""
    return s.encode('utf-8').decode('latin-1')


def announced_looser(model, p, acc, warn, not_enforced):
    """Is this looser answer one the build announced?"""
    if acc == 'write':
        if cm.under(p, SESSION_TMP):
            return '/tmp/claude-<uid>' in warn
        rt = [r for r in cm.RUNTIME if cm.under(p, r)]
        if rt:
            return ('CP0756' in warn or 'CP0763' in warn) and \
                rt[0].replace(H, '~') in warn
        if cm.under(p, P) and 'CP0757' in warn:
            return True
        # Byte-wise, as the model matches: Claude's own '?' takes a
        # character, but the rule is skipped on Linux either way.
        if any(cm.glob_match(latin(g), latin(p))
               for g in model.deny_write_glob):
            return any('globs in denyWrite' in f[3] for f in not_enforced)
    else:
        return any('denyRead globs' in f[3] for f in not_enforced)
    return False


def stricter_reason(model, p, acc):
    """The reason the fidelity report must give for a stricter answer."""
    if acc == 'read':
        # Claude Code's '?' takes a character, the model's a byte.
        return "a '?' is one byte"
    if any(cm.under(p, x) for x in PROTECTED):
        return 'protected paths'
    if any(cm.glob_match(d, p) for d in model.deny_read) and \
            cm.Claude.bash_write(model, p):
        return 'tmpfs'
    if cm.under(p, P):
        return 'denies writing the whole project'
    return 'write glob is not granted'


def named(stricter, need, p, params):
    """Some rule rated stricter (or not enforced) gives the reason and
    names the path: its pattern holds p (a write root for the protected
    paths, the deny rule otherwise); an unbound PROJECT is a fact of the
    write roots as a whole."""
    xs = [x for x in p.split('/') if x]
    for kind, pat, why in stricter:
        if need not in why:
            continue
        if need == 'denies writing the whole project':
            return True
        segs = pattern_segs(pat, params)
        if "'?'" in need:
            segs = [x.replace('?', '*') for x in segs]
        if within(segs, xs):
            return True
    return False


def main():
    confpol, helper, work, seed, count = sys.argv[1:6]
    rng = random.Random(int(seed))
    counts = {'policies': 0, 'refused': 0, 'probes': 0, 'looser': 0,
              'looser_announced': 0, 'stricter': 0, 'stricter_unreported': 0}
    fails = []
    params = {'HOME': H, 'PROJECT': P}
    for i in range(int(count)):
        lines = ['confpol 1', 'profile confined']
        for w in rng.sample(WRITES, rng.randint(1, 3)):
            lines.append('write ' + w)
        for _ in range(rng.randint(1, 4)):
            lines.append('%s %s' % (rng.choice(['deny write', 'deny read']),
                                    rng.choice(DENIES)))
        text = '\n'.join(lines) + '\n'
        d = os.path.join(work, 'c%d' % i)
        os.makedirs(os.path.join(d, 'out'), exist_ok=True)
        src = os.path.join(d, 'p.confpol')
        open(src, 'w', encoding='utf-8').write(text)
        r = subprocess.run([confpol, 'build', '--target', 'claude',
                            '--fidelity', '-o', os.path.join(d, 'out'), src],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode:
            counts['refused'] += 1
            continue
        counts['policies'] += 1
        fid = [ln.split('\t') for ln in r.stdout.decode().split('\n')
               if '\tclaude\t' in ln]
        warn = r.stderr.decode()
        doc = json.load(open(os.path.join(d, 'out', 'p.claude.json')))
        model = ClaudeCode(doc)
        paths = {SESSION_TMP + '/x'}
        for ln in text.split('\n')[2:]:
            if ln:
                for p in expand(ln.split(' ')[-1], params, rng):
                    paths |= neighbours(p)
        paths = sorted(p for p in paths if '//' not in p)
        q = ''.join('%s %s\n' % (a, p) for p in paths for a in ('read', 'write'))
        out = subprocess.run([helper, src] + ['%s=%s' % kv for kv in
                                              sorted(params.items())],
                             input=q.encode(), stdout=subprocess.PIPE)
        verdicts = iter(out.stdout.decode().split('\n'))
        not_enforced = [f for f in fid if len(f) > 3 and
                        f[2] == 'not enforced by this target']
        # A rule not enforced may name a stricter side too ("also
        # stricter: ..."): every reason counts.
        stricter = []
        for f in fid:
            if len(f) < 4 or f[2] == 'exact':
                continue
            m = re.search(r'(?:^|: )((?:deny )?(?:write|read|exec) (.*))$',
                          f[0])
            if m:
                stricter.append((m.group(1).split(' ')[0], m.group(2), f[3]))
        where = text.replace('\n', '; ')
        for p in paths:
            counts['probes'] += 1
            for acc in ('read', 'write'):
                want = next(verdicts) == 'allow'
                got = model.bash_read(p) if acc == 'read' else model.bash_write(p)
                if got and not want:
                    counts['looser'] += 1
                    if announced_looser(model, p, acc, warn, not_enforced):
                        counts['looser_announced'] += 1
                    elif len(fails) < 40:
                        fails.append('LOOSER: %s %s: %s' % (acc, p, where))
                elif want and not got:
                    counts['stricter'] += 1
                    need = stricter_reason(model, p, acc)
                    if not named(stricter, need, p, params):
                        counts['stricter_unreported'] += 1
                        if len(fails) < 40:
                            fails.append('STRICTER UNREPORTED (%r): %s %s: %s'
                                         % (need, acc, p, where))
    for f in fails:
        print(f)
    print('claude campaign seed %s: %s' % (seed, ', '.join(
        '%s %d' % kv for kv in counts.items())))
    unannounced = counts['looser'] - counts['looser_announced']
    return 1 if unannounced or counts['stricter_unreported'] else 0


if __name__ == '__main__':
    sys.exit(main())

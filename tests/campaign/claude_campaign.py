#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A seeded campaign against the claude target: random policies built with
`confpol build --target claude --fidelity`, probes decided by the decision
model (the decide_batch helper) and observed on a model of Claude Code's
Bash sandbox on Linux (tests/claude/claudemodel.py, extended here with the
facts of ../shared/reference/claude-settings.md that no settings change:
the session temp dir /tmp/claude-UID, the protected paths, deny-read
regions shown as a throw-away tmpfs, with the write paths at or below them
bound back, readable and writable).

A looser observation fails unless the build announced it (a rule rated
`not enforced`, or the policy-wide losses CP0756/CP0757/CP0753); a stricter
one fails unless the fidelity report rates a rule stricter for it.

The same policies and probes can be observed on the real sandbox runtime
as well (target `srt`, tests/campaign/claude_srt.py): each is judged the
same way, and each target prints its own counts.

usage: claude_campaign.py CONFPOL DECIDE_BATCH WORKDIR SEED COUNT [TARGETS]
TARGETS: a comma-separated list of `model` (the default) and `srt`."""
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
from claude_srt import SRT_VERSION, ClaudeSrt  # noqa: E402
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
    def __init__(self, doc, session_tmp=SESSION_TMP):
        super().__init__(doc)
        self.doc = doc
        self.session_tmp = session_tmp

    def bash_write(self, x):
        if not self.sandboxed:
            return True
        if cm.under(x, self.session_tmp):
            return True
        if any(cm.under(x, r) for r in cm.RUNTIME):
            return super().bash_write(x) or True
        if any(cm.under(x, p) for p in PROTECTED):
            return False
        # A denied directory is an empty tmpfs: writes never reach disk,
        # except below a write path bound back over it.
        if self.hidden(x):
            return False
        return super().bash_write(x)

    def write_paths(self):
        """The base's write paths and the session temp dir."""
        return super().write_paths() + [self.session_tmp]


def latin(s):
    """One character per UTF-8 byte: fnmatch then matches bytes."""
    return s.encode('utf-8').decode('latin-1')


def announced_looser(model, p, acc, warn, not_enforced):
    """Is this looser answer one the build announced?"""
    if acc == 'write':
        if cm.under(p, model.session_tmp):
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
        # The deciding deny read is rated not enforced (a literal one for
        # a path created after the start or a write path bound back, a
        # glob as expanded at the start).
        xs = [x for x in p.split('/') if x]
        for f in not_enforced:
            m = re.search(r'(?:^|: )deny read (.*)$', f[0])
            if m and within(pattern_segs(m.group(1), {'HOME': H,
                                                      'PROJECT': P}), xs):
                return True
        return any('denyRead globs' in f[3] for f in not_enforced)
    return False


def stricter_reason(model, p, acc):
    """The reason the fidelity report must give for a stricter answer."""
    if acc in ('read', 'exec'):
        # Claude Code's '?' takes a character, the model's a byte (a file
        # runs where Bash may read it).
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


class Target:
    """One way of observing the probes of a claude artifact, with its
    counts: `model` (ClaudeCode above) or `srt` (the real runtime)."""

    def __init__(self, name, work):
        self.name = name
        self.srt = ClaudeSrt(work) if name == 'srt' else None
        self.session_tmp = ('/tmp/claude-%d' % os.getuid() if self.srt
                            else SESSION_TMP)
        self.counts = {'policies': 0, 'probes': 0, 'looser': 0,
                       'looser_announced': 0, 'stricter': 0,
                       'stricter_announced': 0, 'stricter_unreported': 0,
                       'failed': 0}
        # Claude Code has no exec control: a file runs where Bash may read
        # it, which only the real runtime shows (its probe files are
        # scripts).
        self.accesses = ('read', 'write', 'exec') if self.srt else \
            ('read', 'write')
        if self.srt:
            self.counts.update({'unobservable': 0,
                                'unlike_model': 0, 'attacks': 0,
                                'attacks_through': 0, 'late_reads': 0,
                                'late_looser': 0, 'late_announced': 0})
        self.fails, self.unlike = [], []

    def note(self, msg):
        if len(self.fails) < 40:
            self.fails.append(msg)

    def observe(self, doc, paths, targets):
        model = ClaudeCode(doc, self.session_tmp)
        if not self.srt:
            return model, {(a, p): model.bash_read(p) if a == 'read' else
                           model.bash_write(p)
                           for p in paths for a in ('read', 'write')}, [], []
        obs, through, late = self.srt.observe(doc, paths, H, P, targets)
        self.counts['attacks'] += len(targets)
        self.counts['late_reads'] += sum(k == 'read' for k, _ in targets)
        return model, obs, through, late

    def judge_attacks(self, case, obs, through, model):
        """An attack counts when it reached what the runtime denies to a
        direct access (a looser direct access is judged above)."""
        for acc, p in through:
            if obs.get((acc, p)) is not False or \
                    case[2].get((acc, p), True):
                continue
            self.counts['attacks_through'] += 1
            self.note('ATTACK: %s %s: %s' % (acc, p,
                                             case[0].replace('\n', '; ')))

    def judge(self, case, obs, model):
        """Counts one policy's observations against the decisions."""
        text, paths, verdicts, warn, not_enforced, stricter = case
        where = text.replace('\n', '; ')
        self.counts['policies'] += 1
        for p in paths:
            self.counts['probes'] += 1
            for acc in self.accesses:
                if (acc, p) not in obs:
                    continue  # a directory does not run
                want = verdicts[(acc, p)]
                got = obs[(acc, p)]
                if got is None:
                    self.counts['unobservable'] += 1
                    continue
                if self.srt and got != (model.bash_write(p) if acc == 'write'
                                        else model.bash_read(p)):
                    self.counts['unlike_model'] += 1
                    if len(self.unlike) < 5:
                        self.unlike.append('%s %s: runtime %s, model %s: %s' % (
                            acc, p, 'allows' if got else 'denies',
                            'denies' if got else 'allows', where))
                if got and not want:
                    self.counts['looser'] += 1
                    if announced_looser(model, p, acc, warn, not_enforced):
                        self.counts['looser_announced'] += 1
                    else:
                        self.note('LOOSER: %s %s: %s' % (acc, p, where))
                elif want and not got:
                    self.counts['stricter'] += 1
                    need = stricter_reason(model, p, acc)
                    if named(stricter, need, p, {'HOME': H, 'PROJECT': P}):
                        self.counts['stricter_announced'] += 1
                    else:
                        self.counts['stricter_unreported'] += 1
                        self.note('STRICTER UNREPORTED (%r): %s %s: %s'
                                  % (need, acc, p, where))

    def judge_late(self, case, late, model):
        """A deny-read target created after the start and read (the
        runtime mounts nothing on a path absent at the start: claude_srt.py,
        _late_reads): looser, so it fails unless the build announced it."""
        for t in late:
            p = t.rstrip('/') + '/c/g'
            if case[2].get(('read', p), True):
                continue
            self.counts['late_looser'] += 1
            if announced_looser(model, p, 'read', case[3], case[4]):
                self.counts['late_announced'] += 1
                continue
            self.note('LATE LOOSER (created after the start): read %s: %s'
                      % (p, case[0].replace('\n', '; ')))

    def run(self, case, doc, targets):
        try:
            model, obs, through, late = self.observe(doc, case[1], targets)
        except (RuntimeError, OSError, ValueError,
                subprocess.SubprocessError) as e:
            self.counts['failed'] += 1
            self.note('FAILED: %s: %s' % (case[0].replace('\n', '; '),
                                          str(e).strip()[-2000:]))
            return
        self.judge(case, obs, model)
        self.judge_attacks(case, obs, through, model)
        self.judge_late(case, late, model)

    def report(self, seed):
        for u in self.unlike:
            print('%s: unlike the model (informative): %s' % (self.name, u))
        for f in self.fails:
            print('%s: %s' % (self.name, f))
        print('claude campaign (%s) seed %s: %s' % (self.name, seed, ', '.join(
            '%s %d' % kv for kv in self.counts.items())))
        c = self.counts
        return c['looser'] - c['looser_announced'] + \
            c.get('late_looser', 0) - c.get('late_announced', 0) + \
            c['stricter_unreported'] + \
            c['failed'] + c.get('attacks_through', 0)


def policy_text(rng):
    lines = ['confpol 1', 'profile confined']
    for w in rng.sample(WRITES, rng.randint(1, 3)):
        lines.append('write ' + w)
    for _ in range(rng.randint(1, 4)):
        lines.append('%s %s' % (rng.choice(['deny write', 'deny read']),
                                rng.choice(DENIES)))
    return '\n'.join(lines) + '\n'


def fidelity(stdout):
    """The claude rows of the fidelity report: those not enforced, and the
    (kind, pattern, reason) of every one that is not exact."""
    fid = [ln.split('\t') for ln in stdout.split('\n') if '\tclaude\t' in ln]
    not_enforced = [f for f in fid if len(f) > 3 and
                    f[2] == 'not enforced by this target']
    # A rule not enforced may name a stricter side too ("also
    # stricter: ..."): every reason counts.
    stricter = []
    for f in fid:
        if len(f) < 4 or f[2] == 'exact':
            continue
        m = re.search(r'(?:^|: )((?:deny )?(?:write|read|exec) (.*))$', f[0])
        if m:
            stricter.append((m.group(1).split(' ')[0], m.group(2), f[3]))
    return not_enforced, stricter


def main():
    confpol, helper, work, seed, count = sys.argv[1:6]
    names = (sys.argv[6] if len(sys.argv) > 6 else 'model').split(',')
    targets = []
    for t in (Target(n, work) for n in names):
        why = t.srt and t.srt.missing()
        if why:
            print('claude campaign (srt): skipped: %s' % why)
        else:
            targets.append(t)
            if t.srt:
                print('claude campaign (srt): %s, version %s (pinned: %s)' % (
                    t.srt.srt, t.srt.version(), SRT_VERSION))
    if not targets:
        return 77
    rng = random.Random(int(seed))
    refused = 0
    params = {'HOME': H, 'PROJECT': P}
    session = sorted({t.session_tmp + '/x' for t in targets})
    for i in range(int(count)):
        text = policy_text(rng)
        d = os.path.join(work, 'c%d' % i)
        os.makedirs(os.path.join(d, 'out'), exist_ok=True)
        src = os.path.join(d, 'p.confpol')
        open(src, 'w', encoding='utf-8').write(text)
        r = subprocess.run([confpol, 'build', '--target', 'claude',
                            '--fidelity', '-o', os.path.join(d, 'out'), src],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode:
            refused += 1
            continue
        doc = json.load(open(os.path.join(d, 'out', 'p.claude.json')))
        paths = set(session)
        for ln in text.split('\n')[2:]:
            if ln:
                for p in expand(ln.split(' ')[-1], params, rng):
                    paths |= neighbours(p)
        paths = sorted(p for p in paths if '//' not in p)
        accs = ('read', 'write', 'exec')
        q = ''.join('%s %s\n' % (a, p) for p in paths for a in accs)
        out = subprocess.run([helper, src] + ['%s=%s' % kv for kv in
                                              sorted(params.items())],
                             input=q.encode(), stdout=subprocess.PIPE)
        answers = iter(out.stdout.decode().split('\n'))
        verdicts = {(a, p): next(answers) == 'allow'
                    for p in paths for a in accs}
        not_enforced, stricter = fidelity(r.stdout.decode())
        case = (text, paths, verdicts, r.stderr.decode(), not_enforced,
                stricter)
        # The literal deny targets, attacked on the real runtime.
        literal = []
        for ln in text.split('\n')[2:]:
            w = ln.split(' ')
            if w[0] == 'deny' and not any(c in w[-1] for c in '*?['):
                literal.append((w[1], '/' + '/'.join(
                    pattern_segs(w[-1], params))))
        for t in targets:
            t.run(case, doc, literal)
    bad = 0
    for t in targets:
        print('claude campaign (%s) seed %s: refused %d' % (t.name, seed, refused))
        bad += t.report(seed)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The gate half of the codex campaign: random gate policies built with
`confpol build --target codex`, their exec-policy rules (the `rules` of
the artifact's [confpol] table) checked by the real `codex execpolicy
check` on command lines around each pattern (the words, more words, fewer,
wrappers such as `bash -c`, `env`, `sudo`, options before a subcommand),
each compared with `confpol explain ... gate`.

A looser answer (Codex allows what explain asks or denies, or prompts
where explain denies) fails unless a rule that decided it is rated not
enforced; a stricter one fails unless the rule Codex matched is rated
"stricter there" (a pattern without a trailing `*` matched as a prefix).

usage: codex_rules.py CONFPOL CODEX WORKDIR SEED COUNT"""
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tomllib

WORDS = ['git', 'push', '--force', 'npm', 'publish', 'rm', '-rf', 'test', 'x', 'origin',
         'A=b', '-C', 'f.txt', './run.sh', 'sudo', 'env', '>out', 'bash', '-c',
         'timeout', '5', 'python3', 'ls']
RANK = {'allow': 0, 'ask': 1, 'deny': 2}
CODEX_RANK = {None: 0, 'prompt': 1, 'forbidden': 2}


def policy(rng):
    gates = []
    for _ in range(rng.randint(1, 4)):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
        star = rng.random() < 0.5
        gates.append((rng.choice(['ask', 'deny']), words, star))
    text = 'confpol 1\nprofile confined\nwrite ${PROJECT}\n'
    for v, words, star in gates:
        text += 'gate %s "%s%s"\n' % (v, ' '.join(words), ' *' if star else '')
    return text, gates


def commands(rng, gates):
    out = set()
    for _, words, _ in gates:
        w = ' '.join(words)
        out.update([w, w + ' ' + rng.choice(WORDS), ' '.join(words[:-1]) or 'true',
                    "bash -c '%s'" % w, 'env ' + w, 'sudo ' + w,
                    ' '.join(words[:1] + ['-C', '.'] + words[1:])])
    for _ in range(4):
        out.add(' '.join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))))
    return sorted(out)


def fidelity(report):
    rows = {}
    for line in report.split('\n'):
        cols = line.split('\t')
        if len(cols) >= 4 and cols[1] == 'codex':
            where = cols[0]
            # LOCATION: RULE, LOCATION '(profile P: why)' for an implicit rule
            rule = where[where.index('): ') + 3:] if where.startswith('(') \
                else where.split(': ', 1)[-1]
            rows[rule] = (cols[2], cols[3])
    return rows


def explain(confpol, env, cmd):
    r = subprocess.run([confpol, 'explain', '-D', 'PROJECT=' + os.getcwd(), 'p.confpol',
                        'gate', cmd], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    if r.returncode != 0:
        raise RuntimeError('explain failed: %s' % r.stderr.decode())
    lines = r.stdout.decode().split('\n')
    rules = [x.strip()[4:x.strip().index("'", 4)] for x in lines[1:]
             if x.strip().startswith("by '")]
    return lines[0].strip(), rules


def codex_check(codex, rules_file, cmd):
    r = subprocess.run([codex, 'execpolicy', 'check', '--rules', rules_file, '--'] +
                       shlex.split(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    if r.returncode != 0:
        raise RuntimeError('codex execpolicy check failed: %s' % r.stderr.decode())
    out = json.loads(r.stdout.decode())
    return out.get('decision'), [m['prefixRuleMatch']['matchedPrefix']
                                 for m in out.get('matchedRules', [])]


def stricter_prefixes(rows):
    """The words of every gate rated "stricter there": its prefix rule also
    matches longer commands."""
    out = []
    for rule, (_, why) in rows.items():
        m = re.match(r'gate (?:ask|deny) "(.*)"$', rule)
        if m and 'stricter there' in why:
            out.append(m.group(1).split(' '))
    return out


def judge(rows, want, got, rules, prefixes):
    """None when the two agree or the difference is announced."""
    if CODEX_RANK[got] == RANK[want]:
        return None
    if CODEX_RANK[got] < RANK[want]:
        if any(rows.get(r, ('',))[0].startswith('not enforced') for r in rules):
            return None
        return 'LOOSER'
    if any(p in prefixes for p in stricter_prefixes(rows)):
        return None
    return 'UNANNOUNCED STRICTER'


def main():
    confpol, codex, work, seed, count = sys.argv[1:6]
    stats = {'policies': 0, 'commands': 0, 'looser_announced': 0, 'stricter_announced': 0}
    fails = 0
    env = dict(os.environ, HOME=os.path.join(os.path.dirname(work.rstrip('/')), 'home'))
    os.makedirs(env['HOME'], exist_ok=True)
    for i in range(int(count)):
        rng = random.Random('%s/%d' % (seed, i))
        text, gates = policy(rng)
        with open(os.path.join(work, 'p.confpol'), 'w') as f:
            f.write(text)
        os.makedirs(os.path.join(work, 'out'), exist_ok=True)
        r = subprocess.run([confpol, 'build', '--target', 'codex', '--fidelity', '-D',
                            'PROJECT=' + work, '-D', 'HOME=' + env['HOME'], '-o', 'out',
                            'p.confpol'], cwd=work, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        if r.returncode != 0:
            print('FAIL build:\n%s%s' % (text, r.stderr.decode()))
            fails += 1
            continue
        rows = fidelity(r.stdout.decode())
        with open(os.path.join(work, 'out', 'p.codex.toml'), 'rb') as f:
            art = tomllib.load(f)
        rules_file = os.path.join(work, 'out', 'p.rules')
        with open(rules_file, 'w') as f:
            f.write(art['confpol']['rules'])
        os.chdir(work)
        stats['policies'] += 1
        for cmd in commands(rng, gates):
            want, rules = explain(confpol, env, cmd)
            got, prefixes = codex_check(codex, rules_file, cmd)
            stats['commands'] += 1
            bad = judge(rows, want, got, rules, prefixes)
            if bad:
                fails += 1
                print('FAIL %s: %r: explain %s (%s), codex %s (%s)\n%s'
                      % (bad, cmd, want, ', '.join(rules), got, prefixes, text))
            elif CODEX_RANK[got] < RANK[want]:
                stats['looser_announced'] += 1
            elif CODEX_RANK[got] > RANK[want]:
                stats['stricter_announced'] += 1
    print('codex rules seed %s: %d policies, %d command lines, %d looser (announced), '
          '%d stricter (announced), %d failed' % (seed, stats['policies'], stats['commands'],
                                                  stats['looser_announced'],
                                                  stats['stricter_announced'], fails))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())

"""The targets' answers on `net` rules, side by side (tests/sh/net-agree.sh).

For each policy and (name, port): `confpol explain` (the decision model),
the SBPL profile (its `;; confpol-net` lines, which confpol-run's proxy
decides on macOS: they must be the policy's net rules), and the Claude
settings (allowedDomains matched as Claude Code's sandbox runtime matches
them: case folded, `*.D` matches below D only and no IP address, the name
compared as written, any port).  Where the Claude answer differs from
explain's, the `--fidelity` row of the rule that decides must say why;
where Claude would allow what explain denies, it fails: never looser.
Prints one line per checked answer and `fails N` at the end."""
import ipaddress
import json
import os
import random
import re
import subprocess
import sys

CONFPOL = os.environ['CONFPOL']
fails = 0


def fail(msg):
    global fails
    fails += 1
    print('FAIL: ' + msg)


def explain(policy, subject):
    p = subprocess.run([CONFPOL, 'explain', policy, 'net', subject],
                       capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        return None, None
    lines = p.stdout.splitlines()
    m = re.search(r"by '(net allow [^']*)' at ([^:]+):(\d+):", p.stdout)
    return lines[0], (m.group(1), m.group(3)) if m else None


def is_ip(h):
    try:
        ipaddress.ip_address(h.strip('[]'))
        return True
    except ValueError:
        return False


def srt_allows(domains, host):
    """Claude Code's sandbox runtime: matchesDomainPattern()."""
    h = host.lower()
    for d in domains:
        if d == '*':
            return True
        if d.startswith('*.'):
            if not is_ip(h) and h.endswith('.' + d[2:].lower()):
                return True
        elif h == d.lower():
            return True
    return False


def build_one(policy, out, target, rows):
    """One target's artifact and rows; None where the policy has none for
    it (a profile the target does not serve, a rule it cannot express:
    the build fails loud, so nothing of it can disagree)."""
    p = subprocess.run([CONFPOL, 'build', '--target', target, '--fidelity',
                        '-o', out, policy], capture_output=True, text=True,
                       timeout=60, cwd=os.path.dirname(policy))
    for line in p.stdout.splitlines():
        f = line.split('\t')
        m = re.match(r'(.*):(\d+): (net allow .*)$', f[0]) if len(f) == 4 else None
        if m:
            rows.setdefault((m.group(3), m.group(2)), {})[f[1]] = (f[2], f[3])
    stem = os.path.basename(policy).rsplit('.', 1)[0]
    path = os.path.join(out, stem + ('.sb' if target == 'sbpl' else '.claude.json'))
    if p.returncode != 0 or not os.path.exists(path):
        print('%s: no %s artifact' % (os.path.basename(policy), target))
        return None
    with open(path) as fh:
        return fh.read()


def build(policy, out):
    os.makedirs(out, exist_ok=True)
    rows = {}
    sb = build_one(policy, out, 'sbpl', rows)
    if sb is not None:
        sb = set(re.findall(r'^;; confpol-net (\S+) \S+:(\d+)$', sb, re.M))
    cl = build_one(policy, out, 'claude', rows)
    domains = None
    if cl is not None:
        # No allowedDomains (no net rule): the network is not limited.
        domains = json.loads(cl).get('sandbox', {}).get('network', {}).get('allowedDomains', ['*'])
    return rows, sb, domains


def host_port(subject):
    m = re.match(r'^(\[[^]]*\]|[^:]*)(?::(\d+))?$', subject)
    return m.group(1), m.group(2)


# The differences a Claude row must name, by what the subject or rule is.
def needed_phrase(rule, subject):
    target = rule.split(' ', 2)[2]
    if ':' in target or is_ip(target):
        return 'left out'
    if host_port(subject)[0].endswith('.'):
        return 'trailing dot'
    return None


def canonical(target):
    """A rule's target as the artifacts spell it: case folded, no final dot."""
    host, port = host_port(target)
    host = host.lower().rstrip('.') if not host.startswith('[') else host
    return host + (':' + port if port else '')


def check_policy(policy, subjects, out):
    rows, sb, domains = build(policy, out)
    # SBPL: the confpol-net lines are the net allow rules, each with a row.
    want = {(canonical(r.split(' ', 2)[2]), line) for (r, line) in rows}
    if sb is not None and sb != want:
        fail('%s: sbpl confpol-net lines %s, net rules %s' % (policy, sorted(sb), sorted(want)))
    for key, targets in rows.items():
        for t in ('sbpl', 'claude'):
            if t not in targets and (sb if t == 'sbpl' else domains) is not None:
                fail('%s: %s has no %s row' % (policy, key[0], t))
    if domains is None:
        return
    for s in subjects:
        verdict, by = explain(policy, s)
        if verdict is None:
            continue  # not a subject explain reads: nothing to compare
        host, _ = host_port(s)
        claude = 'allow' if srt_allows(domains, host) else 'deny'
        print('%s\t%s\texplain=%s\tclaude=%s' % (
            os.path.basename(policy), s, verdict, claude))
        if claude == verdict:
            continue
        if claude == 'allow':
            fail('%s: %s: Claude settings allow what explain denies' % (policy, s))
            continue
        row = rows.get(by, {}).get('claude') if by else None
        if row is None or row[0] == 'exact':
            fail('%s: %s: explain %s by %s, Claude %s, no fidelity row says so'
                 % (policy, s, verdict, by, claude))
            continue
        phrase = needed_phrase(by[0], s)
        if phrase and phrase not in row[1]:
            fail("%s: %s: the Claude row of '%s' does not say '%s': %s"
                 % (policy, s, by[0], phrase, row[1]))


def variants(target, rng):
    """Names a rule's target suggests: itself, its case, a trailing dot,
    its parent and children (for a wildcard), another port."""
    host, port = host_port(target)
    out = []
    if host.startswith('*.'):
        base = host[2:]
        names = [base, 'x.' + base, 'a.b.' + base, 'X.' + base.upper(),
                 'x.' + base + '.', 'x' + base]
    else:
        names = [host, host.upper(), host + '.', 'x.' + host, host.rstrip('.')]
    ports = [port or str(rng.choice([80, 443, 8080])), str(rng.randrange(1, 65536))]
    for n in names:
        if n.startswith('[') or not is_ip(n) or n == host:
            out.append(n)
        for p in ports:
            out.append(n + ':' + p)
    return out


def generated(rng, k):
    i = rng.randrange(1000)
    kinds = [
        lambda: 'n%d.a.test' % i,
        lambda: '*.w%d.test' % i,
        lambda: 'p%d.test:%d' % (i, rng.choice([80, 443, 8443])),
        lambda: 'localhost:%d' % rng.randrange(1024, 65536),
        lambda: '10.0.%d.%d' % (i % 256, k % 256),
        lambda: '127.0.0.1:%d' % rng.randrange(1, 65536),
        lambda: 'Up%d.Test' % i,
        lambda: 'dot%d.test.' % i,
        lambda: 'xn--bcher-kva.test',
        lambda: '[::1]:%d' % rng.randrange(1, 65536),
        lambda: '*.W%d.Test' % i,
    ]
    return rng.choice(kinds)()


def main():
    tmp, examples = sys.argv[1], sys.argv[2:]
    rng = random.Random(int(os.environ.get('NET_AGREE_SEED', '24')))
    npol = int(os.environ.get('NET_AGREE_POLICIES', '8'))
    for n, ex in enumerate(examples):
        with open(ex) as fh:
            text = fh.read()
        targets = re.findall(r'(?:^|\s)(\*?\.?[A-Za-z0-9][A-Za-z0-9.\-]*\.[A-Za-z]+(?::\d+)?)(?=\s)',
                             ' '.join(l for l in text.splitlines() if 'net' in l or l.startswith('    ')) + ' ')
        subs = ['unrelated.test', 'localhost:80', '127.0.0.1:443']
        for t in sorted(set(targets)):
            subs += variants(t, rng)
        check_policy(os.path.abspath(ex), subs, os.path.join(tmp, 'ex%d' % n))
    for k in range(npol):
        d = os.path.join(tmp, 'gen%d' % k)
        os.makedirs(d, exist_ok=True)
        rules = sorted({generated(rng, k) for _ in range(rng.randrange(2, 6))})
        pol = os.path.join(d, 'g.confpol')
        with open(pol, 'w') as fh:
            fh.write('confpol 1\nprofile confined\nnet allow %s\n' % ' '.join(rules))
        subs = ['unrelated.test', 'localhost', 'localhost:22', '127.0.0.1:80', '[::1]:80']
        for r in rules:
            subs += variants(r, rng)
        check_policy(pol, subs, os.path.join(d, 'out'))
    print('fails %d' % fails)
    return 1 if fails else 0


sys.exit(main())

"""Replays every witness of a `confpol diff --format json` document with
`confpol explain` on each side (under the witness's binding, each side
given the params it declares) and fails unless each side decides as the
document says, by the same rules.

Usage: diff_replay.py CONFPOL OLD NEW DOC.json"""

import json
import re
import subprocess
import sys


def declared(path):
    names = {'HOME', 'PROJECT'}
    with open(path, errors='replace') as fh:  # the main file's params
        names |= set(re.findall(r'^param\s+(\w+)', fh.read(), re.M))
    return names


def rules(side):
    return sorted((r['rule'], r['file'], r['line'], r['column']) for r in side['rules'])


def main():
    confpol, old, new, doc = sys.argv[1:5]
    d = json.load(open(doc))
    bad = 0
    for it in d['widened'] + d['narrowed']:
        for path, key in ((old, 'old'), (new, 'new')):
            args = [confpol, 'explain', '--symbolic', '--ignore-expect', '--format', 'json']
            names = declared(path)
            for n, v in sorted((it['binding'] or {}).items()):
                if n in names:
                    args += ['-D', '%s=%s' % (n, v)]
            r = subprocess.run(args + [path, it['access'], it['subject']],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            if it['access'] == 'content':
                got = json.loads(r.stdout.decode())
                ok = got['decision'] == it[key]['decision']
            else:
                got = json.loads(r.stdout.decode() or '{}')
                ok = (got.get('decision') == it[key]['decision'] and
                      rules(got) == rules(it[key]))
            if not ok:
                bad += 1
                print('false witness: %s %s %s (%s): diff says %s, explain %s' %
                      (it['access'], it['subject'], it['binding'], key,
                       it[key]['decision'], r.stdout.decode().strip()[:200]))
    n = len(d['widened']) + len(d['narrowed'])
    print('%d witnesses replayed, %d false' % (n, bad))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()

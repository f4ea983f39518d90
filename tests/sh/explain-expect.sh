#!/bin/sh
# explain agrees with expect: for every example policy, each `expect VERDICT
# ACCESS SUBJECT` line (in the file and in the files it includes) must be
# answered VERDICT by `confpol explain FILE ACCESS SUBJECT`, and `confpol
# check` must accept the policy (so the expects pass there too).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
cd "$TOP" || exit 1
python3 - "$CONFPOL" examples/*.confpol <<'PY'
import re, subprocess, sys, os
confpol, files = sys.argv[1], sys.argv[2:]
expect_re = re.compile(r'^\s*expect\s+(allow|deny|ask)\s+(read|write|exec|net|gate|socket)\s+(.*)$')
include_re = re.compile(r'^\s*include\s+"([^"]*)"')

def subject(text):
    text = text.strip()
    if text.startswith('"'):
        out, i = [], 1
        while i < len(text) and text[i] != '"':
            if text[i] == '\\':
                n = text[i + 1]
                if n == 'x':
                    out.append(chr(int(text[i + 2:i + 4], 16))); i += 4; continue
                out.append(n); i += 2; continue
            out.append(text[i]); i += 1
        return ''.join(out)
    return text.split('#')[0].split()[0]

def expects(path, seen):
    if path in seen:
        return []
    seen.add(path)
    found = []
    for line in open(path, encoding='utf-8', errors='replace'):
        m = include_re.match(line)
        if m and m.group(1).startswith('<'):  # a gate library set
            found += expects(os.path.join('gates', m.group(1)[1:-1] + '.confpol'), seen)
        elif m:
            found += expects(os.path.join(os.path.dirname(path), m.group(1)), seen)
        m = expect_re.match(line)
        if m:
            found.append((m.group(1), m.group(2), subject(m.group(3))))
    return found

failures = total = 0
for f in files:
    r = subprocess.run([confpol, 'check', f], capture_output=True, text=True)
    if r.returncode != 0:
        print(f'FAIL: confpol check {f} exited {r.returncode}\n{r.stderr}')
        failures += 1
    for verdict, access, subj in expects(f, set()):
        total += 1
        r = subprocess.run([confpol, 'explain', f, access, subj],
                           capture_output=True, text=True)
        first = r.stdout.split('\n', 1)[0]
        if r.returncode != 0 or first != verdict:
            print(f'FAIL: {f}: expect {verdict} {access} {subj!r}: explain said '
                  f'{first!r} (exit {r.returncode})\n{r.stdout}{r.stderr}')
            failures += 1
if total == 0:
    print('FAIL: no expect line found in examples/')
    failures += 1
print(f'{total} expects checked, {failures} failures')
sys.exit(1 if failures else 0)
PY

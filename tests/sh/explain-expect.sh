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
import subprocess, sys, os
sys.path.insert(0, os.path.join(os.getcwd(), 'tests', 'lib'))
from expect_lines import expects  # noqa: E402
confpol, files = sys.argv[1], sys.argv[2:]

failures = total = 0
for f in files:
    r = subprocess.run([confpol, 'check', f], capture_output=True, text=True)
    if r.returncode != 0:
        print(f'FAIL: confpol check {f} exited {r.returncode}\n{r.stderr}')
        failures += 1
    for verdict, access, subj in expects(f, 'gates'):
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

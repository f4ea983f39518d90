#!/bin/sh
# explain answers what run does: in a project directory with a HOME of its
# own, for every example and starter, `confpol run --dry-run` accepts the
# policy (its expect lines hold under the bindings run uses) and `confpol
# explain` answers each `expect VERDICT ACCESS SUBJECT` with VERDICT, both
# for the subject as written and as the shell gives it (${PROJECT} the
# current directory, ~ the home directory); explain names the bindings it
# used on its last line, and --symbolic answers without them.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
# Outside /tmp, which the examples make writable, so that HOME's expects
# mean what they say.
w=$TOP/${BUILD:-build}/test-explain-run
rm -rf "$w" && mkdir -p "$w/home" "$w/project" || exit 1
trap 'rm -rf "$w"' EXIT
cd "$w/project" || exit 1
HOME=$w/home python3 - "$CONFPOL" "$TOP" "$w" <<'PY'
import subprocess, sys, os, glob
confpol, top, w = sys.argv[1:4]
sys.path.insert(0, os.path.join(top, 'tests', 'lib'))
from expect_lines import expects  # noqa: E402
home, project = w + '/home', w + '/project'
files = sorted(glob.glob(top + '/examples/*.confpol')) + \
    sorted(glob.glob(top + '/examples/starter/*.confpol'))

def shell(access, s):
    if access not in ('read', 'write', 'exec', 'socket'):
        return s
    if s == '~' or s.startswith('~/'):
        return home + s[1:]
    return s.replace('${PROJECT}', project).replace('${HOME}', home)

def explain(args):
    r = subprocess.run([confpol, 'explain'] + args, capture_output=True, text=True)
    return r.returncode, r.stdout

failures = total = 0
for f in files:
    r = subprocess.run([confpol, 'run', '-q', '--dry-run', f], capture_output=True, text=True)
    if r.returncode != 0:
        print(f'FAIL: confpol run --dry-run {f} exited {r.returncode}\n{r.stderr}')
        failures += 1
    for verdict, access, subj in expects(f):
        for s in sorted({subj, shell(access, subj)}):
            total += 1
            rc, out = explain([f, access, s])
            lines = out.rstrip('\n').split('\n')
            want_with = f'  with HOME={home} ($HOME), PROJECT={project} (the current directory)'
            if rc != 0 or lines[0] != verdict or lines[-1] != want_with:
                print(f'FAIL: {f}: expect {verdict} {access} {s!r}: explain said '
                      f'{out!r} (exit {rc})')
                failures += 1

# The starter's two answers a user asks first, and the symbolic answer.
starter = top + '/examples/starter/claude.confpol'
for args, want in (([starter, 'write', project + '/src/main.c'], 'allow'),
                   ([starter, 'read', home + '/.aws/credentials'], 'deny'),
                   (['--symbolic', starter, 'write', project + '/src/main.c'], 'deny'),
                   (['--symbolic', starter, 'write', '${PROJECT}/src/main.c'], 'allow')):
    total += 1
    rc, out = explain(args)
    if rc != 0 or out.split('\n', 1)[0] != want:
        print(f'FAIL: explain {args}: want {want}, got {out!r} (exit {rc})')
        failures += 1
rc, out = explain(['--symbolic', '--format', 'json', starter, 'write', '${PROJECT}/x'])
if '"bindings":[]' not in out:
    print(f'FAIL: --symbolic json lists bindings: {out}')
    failures += 1
rc, out = explain(['--format', 'json', starter, 'write', '${PROJECT}/x'])
if f'{{"name":"PROJECT","value":"{project}","from":"the current directory"}}' not in out:
    print(f'FAIL: json does not name PROJECT: {out}')
    failures += 1
print(f'{total} answers checked, {failures} failures')
sys.exit(1 if failures else 0)
PY

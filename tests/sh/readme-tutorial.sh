#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's tutorial, run: every fenced block whose first line starts
# with "$ " is a shell session, each "$ COMMAND" run in a project like the
# README's (/home/ada/proj: a git checkout with a Makefile whose check
# target builds and runs hello.c, and a .env; HOME /home/ada), and its output (stdout
# and stderr) must be the lines below it.  The only differences allowed are
# the place of that home (the test's own), the directory name confpol claude
# derives from the project path (proj-HASH) and Claude Code's version; the
# runtime's line of a 'confpol run' may sit anywhere in the output (it is
# written while the command runs, to the same stderr), but whole.  The 'confpol diff' session runs in a
# repository whose last commit removed a deny, as the README tells it.
# The 'confpol claude' and 'confpol codex' sessions need the Claude Code
# client and the Codex CLI (the one tests/lib/codex_cli.sh installs into the
# build directory): without them they are skipped with a note (a failure
# under CI=true).
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
command -v bwrap >/dev/null 2>&1 || { echo "bwrap is missing"; exit 77; }
# Outside /tmp, which the CI starter makes writable.
w=$TOP/${BUILD:-build}/test-readme-tutorial
rm -rf "$w" && mkdir -p "$w/bin" "$w/home/ada/proj" "$w/diff" || exit 1
trap 'rm -rf "$w"' EXIT
ln -s "$CONFPOL" "$w/bin/confpol" && ln -s "$CONFPOL_RUN" "$w/bin/confpol-run" || exit 1
# The Codex CLI the codex tests install into the build directory, if there.
cx=$TOP/${BUILD:-build}/tools/codex/node_modules/.bin/codex
[ -x "$cx" ] && { ln -s "$cx" "$w/bin/codex" || exit 1; }
git_c() { git -c user.name=ada -c user.email=ada@example.com -c init.defaultBranch=main "$@"; }
p=$w/home/ada/proj
(cd "$p" && git_c init -q . &&
    printf 'check: hello\n\t./hello\n\nhello: hello.c\n\tcc -o hello hello.c\n' >Makefile &&
    printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' >hello.c &&
    cp "$TOP/examples/claude-code-whole.confpol" . && printf 'TOKEN=x\n' >.env &&
    git_c add Makefile hello.c && git_c commit -qm hello) || exit 1
(cd "$w/diff" && git_c init -q . &&
    printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\ndeny write ${PROJECT}/.git\n' >policy.confpol &&
    git_c add policy.confpol && git_c commit -qm old &&
    printf 'confpol 1\nprofile confined\nwrite ${PROJECT}\n' >policy.confpol &&
    git_c commit -qam new) || exit 1
HOME=$w/home/ada PATH=$w/bin:$PATH python3 - "$TOP/README.md" "$w" <<'PY'
import os, re, subprocess, shutil, sys
readme, w = sys.argv[1], sys.argv[2]
home = os.path.join(w, 'home', 'ada')
proj = os.path.join(home, 'proj')
env = {k: v for k, v in os.environ.items()
       if not k.startswith(('XDG_', 'CONFPOL_', 'CLAUDE', 'MAKE', 'MFLAGS'))}
env['HOME'] = home
sessions, block = [], None
for line in open(readme, encoding='utf-8').read().split('\n'):
    if line.startswith('```'):
        if block is not None:
            if block and block[0].startswith('$ '):
                sessions.append(block)
            block = None
        else:
            block = []
    elif block is not None:
        block.append(line)
fails, ran, skipped = 0, 0, []
have_claude = shutil.which('claude') is not None
have_codex = shutil.which('codex') is not None
def pattern(line):
    line = line.replace('/home/ada', home)
    rx = re.escape(line)
    rx = re.sub(r'proj\\-[0-9a-f]{16}', r'proj-[0-9a-f]{16}', rx)
    rx = re.sub(r'^[0-9]+\\\.[0-9]+\\\.[0-9]+\\ \\\(Claude\\ Code\\\)$',
                r'[0-9]+\.[0-9]+\.[0-9]+ \(Claude Code\)', rx)
    return re.compile(rx + r'\Z')
for block in sessions:
    cmds = []
    for line in block:
        if line.startswith('$ ') or line == '$':
            cmds.append([line[2:], []])
        elif cmds:
            cmds[-1][1].append(line)
    for cmd, want in cmds:
        if not cmd:
            continue
        if cmd.startswith('confpol claude') and not have_claude:
            skipped.append(cmd)
            continue
        if cmd.startswith('confpol codex') and not have_codex:
            skipped.append(cmd)
            continue
        cwd = os.path.join(w, 'diff') if cmd.startswith('git show') else proj
        r = subprocess.run(['sh', '-c', cmd], cwd=cwd, env=env, timeout=120,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = r.stdout.decode('utf-8', 'replace')
        ran += 1
        rt = [l for l in want if l.startswith('confpol run: ')]
        if 'confpol run' in cmd and rt:
            # The runtime's own line is written while the command runs, and
            # the two share stderr: it may land inside one of the command's
            # lines.  It must be there once, whole; the rest is compared as
            # written.
            line = rt[0] + '\n'
            if out.count(line) != 1:
                out = '(no line: %s)\n' % rt[0] + out
            else:
                out = out.replace(line, '', 1)
            want = [l for l in want if l != rt[0]]
        got = out.split('\n')
        if got and got[-1] == '':
            got.pop()
        pats = [pattern(l) for l in want]
        ok = len(got) == len(pats) and all(p.match(g) for p, g in zip(pats, got))
        if not ok:
            fails += 1
            print('not ok - README: $ %s' % cmd)
            print('  README says:\n    ' + '\n    '.join(want))
            print('  the run gives:\n    ' + '\n    '.join(got))
if skipped:
    print('# not run (no claude or codex client): ' + '; '.join(skipped))
if ran < 8:
    print('not ok - only %d commands of the README were run' % ran)
    fails += 1
if skipped and os.environ.get('CI') == 'true':
    fails += 1
sys.exit(1 if fails else 0)
PY
rc=$?
[ $rc -eq 0 ] || exit 1
echo "ok - the README's tutorial outputs are what the commands print"

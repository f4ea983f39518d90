#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The claude target observed on the real sandbox runtime: the npm package
@anthropic-ai/sandbox-runtime (its `srt` command), which is what Claude Code
runs the Bash tool under on Linux.

For one claude artifact, `srt_config` writes the runtime configuration that
Claude Code would build from it (README.md, "The real sandbox runtime"), and
`ClaudeSrt.observe` runs every probe of a policy in one sandbox launch (one
shell script, as the Bash tool would run it) and reads back what reached the
disk.  The launch happens in a world of its own: a private mount namespace
whose root is an overlay of the host's root filesystem on a tmpfs, with a
fresh tmpfs on /tmp, so that the policy's absolute paths (/home/u/proj,
/srv/..., /Users/s/...) are real directories there and nothing a probe
writes reaches the host.  The world needs root (mount namespaces, overlayfs,
pivot_root); `ClaudeSrt.missing()` says what is absent instead.

usage (inside the world, started by ClaudeSrt):
  claude_srt.py --world BASE  < plan.json  > observations.json"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading

SRT_VERSION = '0.0.83'
# A directory probe is written by setting its mtime to this value, which
# nothing else sets: if the host directory carries it afterwards, the write
# reached the disk.
DIR_MTIME = 1000000007
TIMEOUT = 120


def _realpath_if_link(p):
    """Claude Code's uE(): a deny path that is a symlink is denied at its
    target."""
    return os.path.realpath(p) if os.path.islink(p) else p


def _rule_path(s, root):
    """Claude Code's z1n(): a path of a Read(...)/Edit(...) rule.  '//x' is
    absolute, '/x' is relative to the settings file's root, anything else
    is passed on as written (the runtime resolves '~' and relative
    spellings against the working directory)."""
    if s.startswith('//'):
        return s[1:]
    if s.startswith('/'):
        return os.path.normpath(os.path.join(root, s[1:]))
    return s


def _sandbox_path(s, root, home):
    """Claude Code's w5e() and ps(): a path of sandbox.filesystem.*.  '//x'
    is absolute; '~' and '~/x' are under HOME; '/x' is absolute; anything
    else is relative to the settings file's root."""
    if s.startswith('//'):
        return s[1:]
    s = s.strip()
    if s == '~':
        return home
    if s.startswith('~/'):
        return os.path.normpath(os.path.join(home, s[2:]))
    return os.path.normpath(os.path.join(root, s))


def _rules(doc, kind, tool):
    """The paths of the `kind` (allow, deny) permission rules of `tool`,
    as Claude Code's C5e() splits 'Tool(content)'."""
    out = []
    for r in doc.get('permissions', {}).get(kind, []):
        if r.startswith(tool + '(') and r.endswith(')') and ')' not in r[len(tool) + 1:-1]:
            out.append(r[len(tool) + 1:-1])
    return out


def _git_denies(root):
    """The git metadata Claude Code protects in the working directory (the
    S() helper of convertToSandboxRuntimeConfig): on Linux only paths that
    exist, plus .git/hooks, .git/config and its lock and worktree files
    whenever .git is a directory."""
    out = []
    # A bare repository in the working directory (HEAD, objects and refs
    # all present) is protected like a .git directory.
    if all(os.path.exists(os.path.join(root, x)) for x in ('HEAD', 'objects', 'refs')):
        out += [os.path.join(root, x) for x in ('HEAD', 'objects', 'refs')]
        out += _git_dir_denies(root)
    for x in ('hooks', 'config'):
        p = os.path.join(root, x)
        if os.path.exists(p):
            out.append(p)
            if x == 'config' and os.path.isfile(p):
                out.append(p + '.lock')
    g = os.path.join(root, '.git')
    if os.path.isfile(g) and not os.path.islink(g):
        out.append(g)
    elif os.path.isdir(g):
        out += _git_dir_denies(g)
    return out


def _git_dir_denies(g):
    out = [_realpath_if_link(os.path.join(g, x))
           for x in ('hooks', 'config', 'config.lock', 'config.worktree')]
    out += [os.path.join(g, x) for x in ('config.worktree.lock', 'commondir')
            if os.path.exists(os.path.join(g, x))]
    wt = os.path.join(g, 'worktrees')
    if os.path.isdir(wt):
        for n in sorted(os.listdir(wt)):
            out.append(os.path.join(wt, n, 'config.worktree'))
            out.append(os.path.join(wt, n, 'commondir'))
    return out


def srt_config(doc, home, cwd, uid):
    """The runtime configuration Claude Code builds when `doc` is the
    project's .claude/settings.json, Claude Code is started in `cwd` (the
    project root: the only place that file is loaded) with HOME `home`, as
    user `uid`, and no other settings file exists.

    This is the one uncertain piece of the campaign: it is read from Claude
    Code 2.1.197's bundle (bin/claude.exe of @anthropic-ai/claude-code,
    minified), function convertToSandboxRuntimeConfig (`Mjt` there); each
    line says which part of it it follows.  Everything the runtime adds by
    itself (its default write paths, its own protected files, the glob
    handling, the mounts) is left to the runtime."""
    fs = doc.get('sandbox', {}).get('filesystem', {})
    net = doc.get('sandbox', {}).get('network', {})
    tmp = '/tmp/claude-%d' % uid
    # a=[".", dF()] and Bjt(): the working directory and the session temp
    # dir (XE(): os.tmpdir()/claude-<uid>, realpath'd) are always writable.
    allow_write = ['.', os.path.realpath(tmp)]
    # c: the settings files of every source (xg() of user, project, local,
    # policy; no flag file), /etc/claude-code/managed-settings.d (jLt()).
    deny_write = [os.path.join(home, '.claude', 'settings.json'),
                  os.path.join(cwd, '.claude', 'settings.json'),
                  os.path.join(cwd, '.claude', 'settings.local.json'),
                  '/etc/claude-code/managed-settings.json',
                  '/etc/claude-code/managed-settings.d']
    deny_write = [_realpath_if_link(p) for p in deny_write]
    # .claude/{skills,hooks} of the original cwd, ~/.claude/{local,jobs},
    # .claude/{launch.json,workflows,routines,scheduled_tasks.json} (g()),
    # the .mcp.json of the cwd.
    claude = os.path.join(cwd, '.claude')
    deny_write += [_realpath_if_link(os.path.join(claude, x))
                   for x in ('skills', 'hooks')]
    deny_write += [os.path.join(home, '.claude', 'local'),
                   _realpath_if_link(os.path.join(home, '.claude', 'jobs'))]
    deny_write += [_realpath_if_link(os.path.join(claude, x))
                   for x in ('launch.json', 'workflows', 'routines',
                             'scheduled_tasks.json')]
    deny_write.append(os.path.join(cwd, '.mcp.json'))
    deny_write += _git_denies(cwd)
    deny_read = []
    # additionalDirectories (h) are appended to allowWrite as written.
    allow_write += doc.get('permissions', {}).get('additionalDirectories', [])
    # Per source (only projectSettings here, whose root K2e() is the cwd):
    # Edit allow rules widen allowWrite, Edit deny rules join denyWrite,
    # Read deny rules join denyRead (z1n()); sandbox.filesystem lists are
    # resolved by w5e().
    allow_write += [_rule_path(s, cwd) for s in _rules(doc, 'allow', 'Edit')]
    deny_write += [_rule_path(s, cwd) for s in _rules(doc, 'deny', 'Edit')]
    deny_read += [_rule_path(s, cwd) for s in _rules(doc, 'deny', 'Read')]
    allow_write += [_sandbox_path(s, cwd, home) for s in fs.get('allowWrite', [])]
    deny_write += [_sandbox_path(s, cwd, home) for s in fs.get('denyWrite', [])]
    deny_read += [_sandbox_path(s, cwd, home) for s in fs.get('denyRead', [])]
    allow_read = [_sandbox_path(s, cwd, home) for s in fs.get('allowRead', [])]
    # network F: allowedDomains and deniedDomains (plus WebFetch(domain:)
    # rules, which the claude target does not emit).
    domains = list(net.get('allowedDomains', []))
    domains += [r[len('domain:'):] for r in _rules(doc, 'allow', 'WebFetch')
                if r.startswith('domain:')]
    denied = list(net.get('deniedDomains', []))
    denied += [r[len('domain:'):] for r in _rules(doc, 'deny', 'WebFetch')
               if r.startswith('domain:')]
    cfg = {'network': {'allowedDomains': domains, 'deniedDomains': denied},
           'filesystem': {'denyRead': deny_read, 'allowRead': allow_read,
                          'allowWrite': allow_write, 'denyWrite': deny_write}}
    for k in ('allowUnixSockets', 'allowAllUnixSockets', 'allowLocalBinding'):
        if k in net:
            cfg['network'][k] = net[k]
    return cfg


def _resolved(s, home, cwd):
    """A config entry as the runtime reads it (normalizePathForSandbox, a
    trailing '/**' dropped), without touching the disk."""
    while s.endswith('/**'):
        s = s[:-3]
    if s == '~' or s.startswith('~/'):
        s = home + s[1:]
    return os.path.normpath(os.path.join(cwd, s)) if s else '/'


def _under(p, root):
    return root == '/' or p == root or p.startswith(root + '/')


# ---- the world (runs inside `unshare -m`, as root) ----------------------

def _sh(*argv):
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit('`%s` failed: %s' % (' '.join(argv), ' '.join(
            r.stderr.decode('utf-8', 'replace').split())))


def _enter_world(base):
    """Mounts a throw-away overlay of / on a tmpfs at BASE and makes it the
    root of this mount namespace; /tmp is an empty tmpfs."""
    _sh('mount', '-t', 'tmpfs', 'world', base)
    for d in ('u', 'w', 'r'):
        os.mkdir(os.path.join(base, d))
    r = os.path.join(base, 'r')
    _sh('mount', '-t', 'overlay', 'world', '-o',
        'lowerdir=/,upperdir=%s/u,workdir=%s/w' % (base, base), r)
    for d in ('proc', 'sys', 'dev'):
        _sh('mount', '--rbind', '/' + d, os.path.join(r, d))
    _sh('mount', '-t', 'tmpfs', 'worldtmp', os.path.join(r, 'tmp'))
    os.makedirs(os.path.join(r, 'oldroot'), exist_ok=True)
    os.chdir(r)
    _sh('pivot_root', '.', 'oldroot')
    os.chdir('/')
    _sh('umount', '-l', '/oldroot')


def _q(p):
    return shlex.quote(p)


def _materialise(paths):
    """Every probe path exists: a directory when another probe lies below
    it (or it is one already), else a file holding a token of its own: a
    shell script that prints another when it runs.  Returns {path: set of
    the names a listing must show} for directories and {path: token} for
    files."""
    dirs = set()
    for p in paths:
        d = os.path.dirname(p)
        while d not in dirs and d != '/':
            dirs.add(d)
            d = os.path.dirname(d)
    dirs |= {p for p in paths if os.path.isdir(p) and not os.path.islink(p)}
    for p in sorted(dirs):
        if os.path.lexists(p) and not os.path.isdir(p):
            os.unlink(p)
        os.makedirs(p, exist_ok=True)
    expect = {}
    for i, p in enumerate(paths):
        if p not in dirs:
            expect[p] = 'tok%d.' % i
            with open(p, 'w', encoding='utf-8') as f:
                f.write('#!/bin/sh\n# %s\necho ran%d.\n' % (expect[p], i))
            os.chmod(p, 0o755)
    for p in dirs:
        expect[p] = set(os.listdir(p))
    return expect


def _script(paths, expect, attack=()):
    """The probe script the agent runs: every read first, then every file
    run, then every write (so that neither sees a probe's own write), then
    the attacks."""
    lines = ['exec 2>/dev/null </dev/null']
    for i, p in enumerate(paths):
        lines.append("printf '\\n@R%d\\n'" % i)
        lines.append(('ls -A -- %s' if isinstance(expect[p], set) else
                      'cat -- %s') % _q(p))
    for i, p in enumerate(paths):
        if not isinstance(expect[p], set):
            lines.append("printf '\\n@X%d\\n'" % i)
            lines.append(_q(p))
    lines.append("printf '\\n@END\\n'")
    for i, p in enumerate(paths):
        if isinstance(expect[p], set):
            lines.append('touch -c -d @%d -- %s' % (DIR_MTIME, _q(p)))
        else:
            lines.append("printf 'w%d.' >> %s" % (i, _q(p)))
    lines += list(attack)
    lines.append("printf '\\n@DONE\\n'")
    return '\n'.join(lines) + '\n'


def _attacks(targets, expect, session_tmp):
    """The attacker's script for each literal deny target of the policy (a
    probe directory P whose file P/c/g holds a token), and what must not
    happen on the disk.  For `deny write P`: rename every ancestor of P
    away and write at the new name (then rename it back), a hard link and
    a symbolic link to P/c/g written through, /proc/self/root; for
    `deny read P` the same ways of reading P/c/g.  Returns (script lines,
    [(index, kind, path, token)])."""
    lines, checks = [], []
    for i, (kind, p) in enumerate(targets):
        f = p.rstrip('/') + '/c/g'
        if not isinstance(expect.get(f), str):
            continue
        tok = 'atk%d.' % i
        lines.append("printf '\\n@A%d\\n'" % i)
        links = [os.path.join(d, '.atk%d' % i)
                 for d in (session_tmp, os.path.dirname(p))]
        if kind == 'write':
            do = lambda t: "printf '%s' >> %s" % (tok, _q(t))  # noqa: E731
            checks.append((i, 'write', f, tok))
            checks.append((i, 'create', p + '/' + tok, tok))
        else:
            do = lambda t: 'cat -- %s' % _q(t)  # noqa: E731
            checks.append((i, 'read', f, expect[f]))
        a = os.path.dirname(p)
        while a != '/':
            rel = p[len(a) + 1:]
            moved = a + '.atk'
            mk = ('; mkdir -- %s' % _q(moved + '/' + rel + '/' + tok)
                  if kind == 'write' else '')
            lines.append('if mv -- %s %s; then %s%s; mv -- %s %s; fi' % (
                _q(a), _q(moved), do(moved + '/' + rel + '/c/g'), mk,
                _q(moved), _q(a)))
            a = os.path.dirname(a)
        for n, l in enumerate(links):
            lines.append('ln -- %s %s && %s' % (_q(f), _q(l + 'h'), do(l + 'h')))
            lines.append('ln -s -- %s %s && %s' % (_q(f), _q(l + 's'), do(l + 's')))
        lines.append(do('/proc/self/root' + f))
    return lines, checks


def _violations(checks, out):
    """What the attacks achieved that the policy denies."""
    sections, cur = {}, None
    for ln in out.split('\n'):
        if ln.startswith('@A') and ln[2:].isdigit():
            cur = int(ln[2:])
            sections[cur] = []
        elif ln.startswith('@'):
            cur = None
        elif cur is not None:
            sections[cur].append(ln)
    bad = []
    for i, kind, p, tok in checks:
        if kind == 'read' and tok in ''.join(sections.get(i, [])):
            bad.append(('read', p))
        elif kind == 'write' and os.path.exists(p) and \
                tok in open(p, encoding='utf-8', errors='replace').read():
            bad.append(('write', p))
        elif kind == 'create' and os.path.lexists(p):
            # Judged with the direct write of P/c/g, which the runtime
            # denies when it protects P.
            bad.append(('write', os.path.dirname(p) + '/c/g'))
    return bad


def _read_back(paths, expect, out):
    """What the agent saw (None: an empty directory shows nothing either
    way), what ran, and what reached the disk."""
    sections, cur = {}, None
    for ln in out.split('\n'):
        if ln[:2] in ('@R', '@X') and ln[2:].isdigit():
            cur = (ln[1], int(ln[2:]))
            sections[cur] = []
        elif ln == '@END':
            cur = None
        elif cur is not None:
            sections[cur].append(ln)
    obs = {}
    for i, p in enumerate(paths):
        seen = sections.get(('R', i), [])
        want = expect[p]
        if isinstance(want, set):
            obs['read ' + p] = bool(want & set(seen)) if want else None
            # The runtime removes the mount points it created in a
            # directory when the command ends, which moves the mtime:
            # the atime that `touch -d` set says it as well.
            st = os.stat(p)
            obs['write ' + p] = DIR_MTIME in (st.st_mtime, st.st_atime)
        else:
            obs['read ' + p] = want in ''.join(seen)
            obs['exec ' + p] = 'ran%d.' % i in sections.get(('X', i), [])
            with open(p, encoding='utf-8') as f:
                obs['write ' + p] = ('w%d.' % i) in f.read()
    return obs


def world_main(base):
    plan = json.load(sys.stdin)
    _enter_world(base)
    home, cwd, uid = plan['home'], plan['cwd'], plan['uid']
    paths = plan['paths']
    expect = _materialise(paths)
    # Claude Code creates its session temp dir (XE()) and the project's
    # settings file is the artifact.
    os.makedirs('/tmp/claude-%d' % uid, mode=0o700, exist_ok=True)
    os.makedirs(os.path.join(cwd, '.claude'), exist_ok=True)
    with open(os.path.join(cwd, '.claude', 'settings.json'), 'w') as f:
        json.dump(plan['doc'], f)
    cfg = srt_config(plan['doc'], home, cwd, uid)
    os.makedirs('/run/srt-probe', exist_ok=True)
    with open('/run/srt-probe/settings.json', 'w') as f:
        json.dump(cfg, f)
    attack, checks = _attacks(plan.get('attacks', []), expect,
                              '/tmp/claude-%d' % uid)
    with open('/run/srt-probe/probe.sh', 'w') as f:
        f.write(_script(paths, expect, attack))
    env = dict(os.environ, HOME=home, PWD=cwd)
    r = subprocess.run([plan['srt'], '--settings', '/run/srt-probe/settings.json',
                        '-c', 'sh /run/srt-probe/probe.sh'],
                       cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT)
    out = r.stdout.decode('utf-8', 'replace')
    res = {'rc': r.returncode, 'stderr': r.stderr.decode('utf-8', 'replace'),
           'config': cfg}
    if '@DONE' in out:
        res['obs'] = _read_back(paths, expect, out)
        res['violations'] = _violations(checks, out)
        # Never the working directory or above it: the launch needs it.
        late = [p for kind, p in plan.get('attacks', [])
                if kind == 'read' and not _under(cwd, p)]
        if late:
            res['late'] = _late_reads(plan['srt'], late, cwd, env)
    json.dump(res, sys.stdout)
    return 0


def _late_reads(srt, targets, cwd, env):
    """A deny-read target that does not exist when the command starts and
    appears on the disk while it runs (a secret written by the user, a
    build): a second launch, with every target removed first; once the
    sandbox is up, each is created with a new token in P/c/g, and the
    command reads it.  Returns the targets whose token the command saw."""
    for p in targets:
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        elif os.path.lexists(p):
            os.unlink(p)
    go = '/run/srt-probe/go'
    lines = ["printf '@UP\\n'", 'i=0',
             'while [ ! -e %s ] && [ $i -lt 400 ]; do sleep 0.05; '
             'i=$((i+1)); done' % go]
    for i, p in enumerate(targets):
        lines.append("printf '\\n@L%d\\n'; cat -- %s 2>/dev/null" % (
            i, _q(p + '/c/g')))
    lines.append("printf '\\n@DONE\\n'")
    with open('/run/srt-probe/late.sh', 'w') as f:
        f.write('\n'.join(lines) + '\n')
    pr = subprocess.Popen([srt, '--settings', '/run/srt-probe/settings.json',
                           '-c', 'sh /run/srt-probe/late.sh'], cwd=cwd,
                          env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL)
    killer = threading.Timer(TIMEOUT, pr.kill)
    killer.start()
    try:
        first = pr.stdout.readline()
        for i, p in enumerate(targets):
            # The runtime may hold the name with a placeholder of its own
            # (a path it always protects): then nothing can appear there.
            try:
                os.makedirs(p + '/c', exist_ok=True)
                with open(p + '/c/g', 'w', encoding='utf-8') as f:
                    f.write('late%d.\n' % i)
            except OSError:
                pass
        open(go, 'w').close()
        out = pr.stdout.read().decode('utf-8', 'replace')
        pr.wait()
    finally:
        killer.cancel()
    if first != b'@UP\n' or '@DONE' not in out:
        return None
    sections = out.split('\n@L')
    return [p for i, p in enumerate(targets)
            if any(x.startswith('%d\n' % i) and 'late%d.' % i in x
                   for x in sections)]


# ---- the target (runs on the host) ---------------------------------------

class ClaudeSrt:
    name = 'srt'

    def __init__(self, workdir, srt=None):
        self.work = workdir
        # CAMPAIGN_SRT names another `srt` (tests name a missing one).
        self.srt = srt or os.environ.get('CAMPAIGN_SRT') or shutil.which('srt')
        self.launches = 0

    def version(self):
        r = subprocess.run([self.srt, '--version'], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=60)
        return r.stdout.decode('utf-8', 'replace').strip()

    def missing(self):
        """Why the real runtime cannot run here (None: it can)."""
        if not self.srt or not os.access(self.srt, os.X_OK):
            return ('the sandbox runtime (npm @anthropic-ai/sandbox-runtime@%s, '
                    'the `srt` command) is not installed' % SRT_VERSION)
        for tool in ('bwrap', 'socat', 'rg', 'unshare', 'pivot_root', 'mount'):
            if not shutil.which(tool):
                return 'the sandbox runtime needs `%s`, which is not installed' % tool
        if os.getuid() != 0:
            return 'the world of the srt campaign (mount namespace, overlay root) needs root'
        return self._world_fails()

    def _world_fails(self):
        """Can this machine build the world (a container may refuse mount
        namespaces or overlayfs)?  The error, or None."""
        base = os.path.join(self.work, 'world-check')
        os.makedirs(base)
        try:
            r = subprocess.run(['unshare', '-m', '--propagation', 'private',
                                sys.executable, os.path.abspath(__file__),
                                '--world-check', base],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=60)
        finally:
            os.rmdir(base)
        if r.returncode == 0 and r.stdout == b'ok\n':
            return None
        return 'cannot build the world of the srt campaign: %s' % (
            r.stderr.decode('utf-8', 'replace').strip().split('\n')[-1])

    def observe(self, doc, paths, home, cwd, attacks=()):
        """{(access, path): True (allowed) | False (denied) | None (not
        observable)} for every probe path, read and write, and exec of
        those that are files, and [(access, path)] of what the attacks on
        the literal deny targets `attacks` ([(access, path)]) achieved,
        and the deny-read targets read when they appear after the start
        (_late_reads); raises when a launch fails."""
        plan = {'doc': doc, 'paths': sorted(paths), 'home': home, 'cwd': cwd,
                'uid': os.getuid(), 'srt': self.srt,
                'attacks': sorted(attacks)}
        base = os.path.join(self.work, 'world%d' % self.launches)
        os.makedirs(base)
        self.launches += 1
        try:
            res = self._launch(base, plan)
        finally:
            os.rmdir(base)
        if 'obs' not in res:
            raise RuntimeError('srt launch failed (%d): %s' % (res['rc'], res['stderr']))
        obs = {tuple(k.split(' ', 1)): v for k, v in res['obs'].items()}
        if res.get('late', []) is None:
            raise RuntimeError('srt launch of the late reads failed')
        return obs, [tuple(v) for v in res['violations']], res.get('late', [])

    def _launch(self, base, plan):
        # The bridge sockets of the runtime occasionally fail to come up
        # ("Failed to create bridge sockets"): one retry, then the failure
        # is reported.
        for attempt in (1, 2):
            r = subprocess.run(['unshare', '-m', '--propagation', 'private',
                                sys.executable, os.path.abspath(__file__),
                                '--world', base],
                               input=json.dumps(plan).encode(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=TIMEOUT + 30)
            if r.returncode != 0:
                raise RuntimeError('srt world failed: %s' % r.stderr.decode())
            res = json.loads(r.stdout.decode())
            if 'obs' in res or attempt == 2:
                return res
        return res


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--world':
        sys.exit(world_main(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == '--world-check':
        _enter_world(sys.argv[2])
        print('ok')
        sys.exit(0)
    print(__doc__, file=sys.stderr)
    sys.exit(2)

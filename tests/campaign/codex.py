"""The Codex CLI target of the campaign: the artifact of `confpol build
--target codex` (every param bound with -D, as the target needs) installed
as the config.toml of a CODEX_HOME of the case's own, and every probe and
attack run in Codex's own sandbox with `codex sandbox -P confpol -C
PROJECT -- ...` (bubblewrap and seccomp of Codex, spec/codex-facts.md).

Its stricter rows are judged by path like bwrap's, except a write root's
row, which names what Codex keeps read-only inside it (`.git`, `.agents`,
`.codex`, `.aws`) and the root itself where it is missing at the start:
those paths, not the whole root, announce a stricter observation."""

import json
import os
import re
import shutil
import subprocess
import tempfile

import bwrap
import gen


class Codex(bwrap.Bwrap):
    def __init__(self, confpol, codex):
        super().__init__(confpol, None, True)
        self.codex = codex
        self.name = 'codex'
        # Codex makes no helper links in a CODEX_HOME under /tmp and then
        # cannot start its sandbox: the homes live beside the install.
        homes = os.path.join(os.path.dirname(os.path.realpath(codex)), '..', '..', '..',
                             'homes')
        os.makedirs(homes, exist_ok=True)
        self.home = tempfile.mkdtemp(prefix='case-', dir=homes)

    def __del__(self):
        shutil.rmtree(self.home, ignore_errors=True)

    def _out(self, c):
        return os.path.join(c.base, 'out', 'codex')

    def prepare(self, c):
        gen.materialise(c)
        out = self._out(c)
        os.makedirs(out, exist_ok=True)
        args = [self.confpol, 'build', '--target', 'codex', '--fidelity', '-o', out]
        for n, v in sorted(c.bindings.items()):
            args += ['-D', '%s=%s' % (n, v)]
        r = subprocess.run(args + ['p.confpol'], cwd=c.bindings['PROJECT'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError('codex: build failed:\n%s%s' % (c.text, r.stderr.decode()))
        home = self.home
        with open(os.path.join(out, 'p.codex.toml'), 'rb') as f:
            art = f.read()
        with open(os.path.join(home, 'config.toml'), 'wb') as f:
            f.write(art)
        # The write roots missing when the sandbox starts (the row says
        # Codex does not create them).
        self.missing_roots = [w for k, _, w in c.rules
                              if k == 'write' and not os.path.isdir(w)]
        self.report = r.stdout.decode() + r.stderr.decode()
        # The first missing directory on the way to each deny in a write
        # root, as the rows announce them, read off the tree as it starts.
        self.first_missing = []
        for w, d in re.findall(r'where a directory between the write root (/[^ ]*) and '
                               r'(/[^ ]*) is missing when the command starts', self.report):
            p = w
            for seg in d[len(w):].strip('/').split('/'):
                p = os.path.join(p, seg)
                if not os.path.lexists(p):
                    self.first_missing.append(p)
                    break
        return self.report

    def stricter_paths(self, report, c, generic):
        """GENERIC is run.py's reading of the other rows."""
        plain, out = [], []
        for line in report.split('\n'):
            cols = line.split('\t')
            if len(cols) >= 4 and cols[1] == 'codex' and cols[2] == 'stricter' \
                    and ' read-only (they cannot be created either)' in cols[3]:
                m = re.search(r'Codex keeps (.*) read-only \(', cols[3])
                out += re.split(r', | and ', m.group(1))
                root = re.search(r'filesystem "([^"]*)"', cols[3]).group(1)
                if root in self.missing_roots:
                    out.append(root)
            else:
                plain.append(line)
        return out + self.first_missing + generic('\n'.join(plain), c)

    def _cannot_start(self, r):
        """A launch Codex refused where a row announced it could not start."""
        return (r.returncode != 0 and "bwrap: Can't " in r.stderr.decode('latin-1')
                and 'Codex cannot start the sandbox at all' in self.report)

    def observe(self, c, plan):
        if hasattr(c, 'tree'):
            gen.materialise(c)
        r = self._launch(c, ['true'])
        if self._cannot_start(r):
            print('codex: %s: Codex cannot start its sandbox here (announced)' % c.name)
            return {}
        pf = os.path.join(c.base, 'out', 'plan.json')
        with open(pf, 'w') as f:
            json.dump(plan, f)
        r = self._launch(c, ['python3', bwrap.AGENT, pf])
        if r.returncode != 0:
            raise RuntimeError('%s: launch failed (%d):\n%s%s' % (
                self.name, r.returncode, c.text, r.stderr.decode()))
        raw = json.loads(r.stdout.decode())
        host = gen.snapshot(c)
        out = {}
        for acc, p in plan:
            o = raw[acc + ' ' + p]
            # A "none" entry hides what lies beneath it from stat as well:
            # a path the host has that the sandbox cannot see was denied.
            if o == 'absent' and acc == 'read' and host.get(p) is not None:
                o = 'err'
            out[(acc, p)] = bwrap.interpret(acc, p, o, host)
        return out

    def attack(self, c, script):
        gen.materialise(c)
        before = gen.snapshot(c)
        r = self._launch(c, ['sh', '-c', script])
        if self._cannot_start(r):
            return '', before, before
        return r.stdout.decode('latin-1') + r.stderr.decode('latin-1'), before, gen.snapshot(c)

    def _launch(self, c, argv, timeout=120):
        env = dict(os.environ, HOME=c.bindings['HOME'],
                   CODEX_HOME=self.home)
        args = [self.codex, 'sandbox', '-P', 'confpol', '-C', c.bindings['PROJECT'],
                '--'] + argv
        r = subprocess.run(args, cwd=c.bindings['PROJECT'], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        self.launch_report += '\n'.join(
            x for x in r.stderr.decode('latin-1').split('\n')
            if 'could not create PATH aliases' not in x)
        return r

"""The bwrap target of the campaign: real bwrap + Landlock through
confpol-run, once with the symbolic artifact (params bound at launch) and
once with the artifact built with -D for the same bindings.

A target is an object with
    name                      'bwrap-symbolic', ...
    prepare(case) -> str      builds what it needs; returns its fidelity
                              report (the `--fidelity` rows) plus any
                              launch-time report (warnings)
    observe(case, plan) -> {(acc, path): 'allow'|'deny'|None}
                              None: not observable here
    attack(case, script) -> (output, host snapshot after)
Nothing else is assumed by run.py."""

import json
import os
import subprocess

import gen

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'agent.py')


class Bwrap:
    def __init__(self, confpol, confpol_run, bound):
        self.confpol, self.run = confpol, confpol_run
        self.bound = bound
        self.name = 'bwrap-bound' if bound else 'bwrap-symbolic'
        self.run_args = []  # options of confpol-run (the Landlock target adds its enforcer)
        self.env_extra = {}  # environment of the launch (the Landlock target: the agent's mode)
        # A stricter observation at P must be announced at P or above it
        # (False: by any stricter row of the report).
        self.stricter_by_path = True
        self.launch_report = ''

    def _out(self, c):
        return os.path.join(c.base, 'out', 'bound' if self.bound else 'sym')

    def prepare(self, c):
        gen.materialise(c)  # an earlier attack may have changed the tree
        out = self._out(c)
        os.makedirs(out, exist_ok=True)
        args = [self.confpol, 'build', '--target', 'bwrap', '--expand-globs', '--fidelity',
                '-o', out]
        if self.bound:
            for n, v in sorted(c.bindings.items()):
                args += ['-D', '%s=%s' % (n, v)]
        r = subprocess.run(args + ['p.confpol'], cwd=c.bindings['PROJECT'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError('%s: build failed:\n%s%s' % (self.name, c.text,
                                                            r.stderr.decode()))
        return r.stdout.decode() + r.stderr.decode()

    def _launch(self, c, argv, timeout=60):
        env = dict(os.environ, HOME=c.bindings['HOME'], **self.env_extra)
        # PROJECT comes from the working directory, as a user's launch
        # takes it; where it is HOME or above it the runtime refuses an
        # implicit binding (spec/runtime.md §3), so the case says it.
        proj, home = c.bindings['PROJECT'], c.bindings['HOME']
        explicit = ['-D', 'PROJECT=' + proj] if (
            home == proj or home.startswith(proj.rstrip('/') + '/')) else []
        args = [self.run] + self.run_args + explicit + [
            '-D', 'CACHE=' + c.bindings['CACHE'], '-D', 'R=/',
            os.path.join(self._out(c), 'p.bwrap'), '--'] + argv
        r = subprocess.run(args, cwd=c.bindings['PROJECT'], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        self.launch_report += r.stderr.decode()
        return r

    def observe(self, c, plan):
        gen.materialise(c)
        pf = os.path.join(c.base, 'out', 'plan.json')
        with open(pf, 'w') as f:
            json.dump(plan, f)
        r = self._launch(c, ['python3', AGENT, pf])
        if r.returncode != 0:
            raise RuntimeError('%s: launch failed (%d):\n%s%s' % (
                self.name, r.returncode, c.text, r.stderr.decode()))
        raw = json.loads(r.stdout.decode())
        host = gen.snapshot(c)
        out = {}
        for acc, p in plan:
            o = raw[acc + ' ' + p]
            out[(acc, p)] = interpret(acc, p, o, host)
        return out

    def attack(self, c, script):
        gen.materialise(c)
        before = gen.snapshot(c)
        r = self._launch(c, ['sh', '-c', script])
        return r.stdout.decode('latin-1') + r.stderr.decode('latin-1'), before, gen.snapshot(c)


def interpret(acc, p, o, host):
    """A raw observation as a verdict, or None where it proves nothing."""
    if o == 'absent':
        return None
    if acc != 'read':
        return o
    if o == 'err':
        return 'deny'
    v = host.get(p)
    if o.startswith('file:'):
        if not isinstance(v, bytes):
            return None
        return 'allow' if o[5:].encode('latin-1') == v[:200] else 'deny'
    if v != 'dir':
        return None
    names = sorted(n for n in os.listdir(p)) if os.path.isdir(p) else []
    if not names:
        return None  # an empty directory and a mask look alike
    # Placeholders for missing deny targets show inside, not after the run.
    return 'allow' if set(names) <= set(o[4:].split('/')) else 'deny'
